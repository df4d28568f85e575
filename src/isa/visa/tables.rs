//! The vISA tables of `mappings/visa.toml`, parsed once on first use.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::{ScalarType, TexOp, TypeName};
use crate::isa::names::Names;

/// The whole `mappings/visa.toml`.
#[derive(Debug, Deserialize)]
pub struct Tables {
    pub limits: Limits,
    #[serde(rename = "type")]
    pub types: Vec<TypeDesc>,
    #[serde(rename = "modifier")]
    pub modifiers: Vec<ModifierDesc>,
    #[serde(rename = "opcode")]
    pub opcodes: Vec<OpcodeDesc>,
    #[serde(rename = "op")]
    pub ops: Vec<OpDesc>,
}

/// Numbering, limits and fixed name lists.
#[derive(Debug, Deserialize)]
pub struct Limits {
    pub first_user_variable: u32,
    pub first_user_surface: u32,
    pub predefined_sampler: u32,
    pub first_user_predicate: u32,
    pub grf_bytes: u32,
    pub min_params: usize,
    pub max_params: usize,
    pub comment_column: usize,
    pub predefined_variables: Vec<String>,
    pub predefined_surfaces: Vec<String>,
    pub exec_sizes: Vec<u8>,
    pub emasks: Vec<String>,
    pub pred_controls: Vec<String>,
    pub region_values: Vec<u8>,
    pub aoffimmi_type: String,
}

/// A vISA element type.
#[derive(Debug, PartialEq, Eq, Deserialize)]
pub struct TypeDesc {
    pub name: String,
    pub code: u8,
    pub bytes: u8,
    ir: String,
}

impl TypeDesc {
    /// The IR scalar type this vISA type stands for.
    pub fn ir_type(&'static self) -> ScalarType {
        match self.ir.as_str() {
            "u32" => ScalarType::U32,
            "i32" => ScalarType::I32,
            "u16" => ScalarType::U16,
            "i16" => ScalarType::I16,
            "u8" => ScalarType::U8,
            "i8" => ScalarType::I8,
            "f64" => ScalarType::F64,
            "f32" => ScalarType::F32,
            "u64" => ScalarType::U64,
            "i64" => ScalarType::I64,
            "f16" => ScalarType::F16,
            _ => ScalarType::Other(TypeName::new(&self.name)),
        }
    }

    /// Whether an immediate of this type is an integer of at most 32 bits (the aoffimmi forms
    /// texlate reads: the binary payload is then one u32).
    pub fn is_small_int(&self) -> bool {
        matches!(
            self.ir.as_str(),
            "u32" | "i32" | "u16" | "i16" | "u8" | "i8"
        )
    }
}

/// A sub-op modifier bit (`.pixel_null_mask`, `.cps`, `.divS`).
#[derive(Debug, Deserialize)]
pub struct ModifierDesc {
    pub name: String,
    pub bit: u8,
}

/// How the channel field of an opcode is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelKind {
    /// RGBA write mask, bit 0 = R.
    Mask,
    /// Index 0..3 of the one gathered channel.
    Index,
}

/// The type rule for an opcode's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamClass {
    Float,
    Int,
    Any,
}

/// One opcode's binary layout and text shape.
#[derive(Debug, Deserialize)]
pub struct OpcodeDesc {
    pub code: u8,
    pub name: String,
    pub subop_bytes: u8,
    pub channel: ChannelKind,
    pub sampler: bool,
    pub aoffimmi: bool,
    pub pred: bool,
    pub num_params: bool,
    pub modifiers: Vec<String>,
    #[serde(default)]
    pub aoffimmi_gap: String,
    #[serde(default)]
    pub surface_gap: String,
    pub exec_sizes: Vec<u8>,
    pub param_class: ParamClass,
    pub dst_types: Vec<String>,
}

/// How an op chooses its level of detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LodKind {
    Implicit,
    Zero,
    Bias,
    Level,
    Grad,
    None,
}

/// A parameter slot of a sampler op, by name in `mappings/visa.toml` (the seeds' operand
/// names): a misspelt slot fails to parse the table instead of falling into a catch-all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Slot {
    U,
    V,
    R,
    /// Array index.
    Ai,
    /// Depth-compare reference.
    Ref,
    Bias,
    Lod,
    Dudx,
    Dudy,
    Dvdx,
    Dvdy,
    Drdx,
    Drdy,
    /// Sample index.
    Si,
    /// `load_2dms_w` MCS words: two 32-bit (SKL) or four 16-bit (ICL+).
    Mcsl,
    Mcsh,
    Mcs0,
    Mcs1,
    Mcs2,
    Mcs3,
    /// `sample4_po*` per-pixel offsets.
    Offu,
    Offv,
}

impl Slot {
    /// The name as `mappings/visa.toml` and the seeds write it.
    pub fn name(self) -> &'static str {
        match self {
            Slot::U => "u",
            Slot::V => "v",
            Slot::R => "r",
            Slot::Ai => "ai",
            Slot::Ref => "ref",
            Slot::Bias => "bias",
            Slot::Lod => "lod",
            Slot::Dudx => "dudx",
            Slot::Dudy => "dudy",
            Slot::Dvdx => "dvdx",
            Slot::Dvdy => "dvdy",
            Slot::Drdx => "drdx",
            Slot::Drdy => "drdy",
            Slot::Si => "si",
            Slot::Mcsl => "mcsl",
            Slot::Mcsh => "mcsh",
            Slot::Mcs0 => "mcs0",
            Slot::Mcs1 => "mcs1",
            Slot::Mcs2 => "mcs2",
            Slot::Mcs3 => "mcs3",
            Slot::Offu => "offu",
            Slot::Offv => "offv",
        }
    }

    /// Whether this is a coordinate (u, v, r).
    pub fn is_coord(self) -> bool {
        matches!(self, Slot::U | Slot::V | Slot::R)
    }

    /// Whether this is an x (`d?dx`) or y (`d?dy`) gradient: `Some(false)` x, `Some(true)` y.
    pub fn gradient(self) -> Option<bool> {
        match self {
            Slot::Dudx | Slot::Dvdx | Slot::Drdx => Some(false),
            Slot::Dudy | Slot::Dvdy | Slot::Drdy => Some(true),
            _ => None,
        }
    }

    /// Whether this is an MCS word of `load_2dms_w`.
    pub fn is_mcs(self) -> bool {
        matches!(
            self,
            Slot::Mcsl | Slot::Mcsh | Slot::Mcs0 | Slot::Mcs1 | Slot::Mcs2 | Slot::Mcs3
        )
    }

    /// Whether this is a `sample4_po` per-pixel offset.
    pub fn is_offset(self) -> bool {
        matches!(self, Slot::Offu | Slot::Offv)
    }
}

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One instruction (opcode + sub-op).
#[derive(Debug, Deserialize)]
pub struct OpDesc {
    pub mnemonic: String,
    pub doc: String,
    pub opcode: u8,
    pub subop: u8,
    ir: String,
    pub lod: LodKind,
    pub params: Vec<Slot>,
    #[serde(default)]
    pub params_w: Vec<Slot>,
    #[serde(default)]
    pub cps: bool,
}

impl OpDesc {
    /// The IR operation; `gather` takes its component from the channel field.
    pub fn ir_op(&self, gather_component: u8) -> TexOp {
        match self.ir.as_str() {
            "sample" => TexOp::Sample,
            "fetch" => TexOp::Fetch,
            "fetch_mcs" => TexOp::FetchMcs,
            "gather" => TexOp::Gather {
                component: gather_component,
            },
            "query_lod" => TexOp::QueryLod,
            "query_size" => TexOp::QuerySize,
            "query_samples" => TexOp::QuerySamples,
            "load_typed" => TexOp::LoadTyped,
            other => panic!(
                "mappings/visa.toml: op {} has unknown ir `{other}`",
                self.mnemonic
            ),
        }
    }

    /// The IR operation name as written in the table (for the README table).
    pub fn ir_name(&self) -> &str {
        &self.ir
    }

    /// The opcode this op belongs to.
    pub fn opcode_desc(&self) -> &'static OpcodeDesc {
        opcode(self.opcode).unwrap_or_else(|| {
            panic!(
                "mappings/visa.toml: op {} has unknown opcode",
                self.mnemonic
            )
        })
    }

    /// The parameter order; `wide` selects the 16-bit-MCS form where the op has one.
    pub fn param_order(&self, wide: bool) -> &[Slot] {
        if wide && !self.params_w.is_empty() {
            &self.params_w
        } else {
            &self.params
        }
    }

    /// The most parameters any form of the op takes.
    pub fn max_params(&self) -> usize {
        self.params.len().max(self.params_w.len())
    }

    /// Whether the op has a parameter slot named `slot`.
    pub fn has_slot(&self, slot: Slot) -> bool {
        self.params.contains(&slot)
    }
}

/// The parsed tables.
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        crate::mappings::parse_table("visa.toml", include_str!("../../../mappings/visa.toml"))
    })
}

/// The opcodes and ops by their binary codes, and each opcode's modifier bits: what decoding
/// asks of every instruction, indexed once.
struct ByCode {
    opcodes: [Option<&'static OpcodeDesc>; 256],
    /// The ops of the opcodes texlate reads, a row of 256 sub-ops each: opcode `c`'s row is
    /// `op_rows[rows[c] - 1]` (`rows[c]` 0: no row).
    rows: [u8; 256],
    op_rows: Vec<[Option<&'static OpDesc>; 256]>,
    /// The modifier bits each opcode defines.
    modifier_masks: [u16; 256],
}

fn by_code() -> &'static ByCode {
    static BY_CODE: OnceLock<ByCode> = OnceLock::new();
    BY_CODE.get_or_init(|| {
        let t = tables();
        let mut by = ByCode {
            opcodes: [None; 256],
            rows: [0; 256],
            op_rows: Vec::new(),
            modifier_masks: [0; 256],
        };
        for o in t.opcodes.iter().rev() {
            by.opcodes[usize::from(o.code)] = Some(o);
            by.modifier_masks[usize::from(o.code)] = o
                .modifiers
                .iter()
                .filter_map(|m| modifier_by_name(m))
                .fold(0, |mask, d| mask | 1 << d.bit);
        }
        for o in t.ops.iter().rev() {
            let row = &mut by.rows[usize::from(o.opcode)];
            if *row == 0 {
                by.op_rows.push([None; 256]);
                *row = u8::try_from(by.op_rows.len()).expect("at most 255 sampler opcodes");
            }
            by.op_rows[usize::from(*row) - 1][usize::from(o.subop)] = Some(o);
        }
        by
    })
}

/// The opcode with binary code `code`.
pub fn opcode(code: u8) -> Option<&'static OpcodeDesc> {
    by_code().opcodes[usize::from(code)]
}

/// The op with `opcode` and `subop`.
pub fn op_by_code(opcode: u8, subop: u8) -> Option<&'static OpDesc> {
    let by = by_code();
    let row = usize::from(by.rows[usize::from(opcode)]).checked_sub(1)?;
    by.op_rows[row][usize::from(subop)]
}

/// The sub-op modifier bits (`.pixel_null_mask`, `.cps`, `.divS`) opcode `code` defines.
pub fn modifier_mask(code: u8) -> u16 {
    by_code().modifier_masks[usize::from(code)]
}

/// The op spelled `name` (IGC mnemonic or seed name, any case). Every line of a `.visaasm`
/// file asks, so the names are hashed once ([`Names`]), and a word whose first letter no
/// op name has is answered at once.
pub fn op_by_name(name: &str) -> Option<&'static OpDesc> {
    static OPS: OnceLock<(Names<&'static OpDesc>, [bool; 256])> = OnceLock::new();
    let (ops, firsts) = OPS.get_or_init(|| {
        let ops = &tables().ops;
        let names = ops.iter().flat_map(|o| [(&o.mnemonic, o), (&o.doc, o)]);
        let names: Vec<(String, _)> = names.map(|(n, o)| (n.to_ascii_lowercase(), o)).collect();
        let mut firsts = [false; 256];
        for (n, _) in &names {
            firsts[usize::from(n.as_bytes()[0])] = true;
        }
        (Names::new(names.into_iter()), firsts)
    });
    let first = name.as_bytes().first()?.to_ascii_lowercase();
    if !firsts[usize::from(first)] {
        return None;
    }
    let mut lower = [0u8; Names::<()>::LONGEST];
    let lower = lower.get_mut(..name.len())?;
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    ops.get(lower).copied()
}

/// The type named `name` (lower case as IGC prints it; any case accepted).
pub fn type_by_name(name: &str) -> Option<&'static TypeDesc> {
    tables()
        .types
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
}

/// The type with binary code `code`.
pub fn type_by_code(code: u8) -> Option<&'static TypeDesc> {
    tables().types.iter().find(|t| t.code == code)
}

/// The modifier named `name` (any case).
pub fn modifier_by_name(name: &str) -> Option<&'static ModifierDesc> {
    tables()
        .modifiers
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A misspelt parameter slot is a table error, not a silent MCS operand.
    #[test]
    fn misspelt_slot_is_refused() {
        #[derive(Debug, Deserialize)]
        struct Params {
            #[allow(dead_code)]
            params: Vec<Slot>,
        }
        assert!(toml::from_str::<Params>(r#"params = ["u", "dvdx", "mcs3"]"#).is_ok());
        let err = toml::from_str::<Params>(r#"params = ["u", "dvxd"]"#).unwrap_err();
        assert!(err.to_string().contains("dvxd"), "{err}");
    }

    #[test]
    fn table_loads_and_is_consistent() {
        let t = tables();
        assert_eq!(t.limits.emasks.len(), 16);
        assert!(t.limits.exec_sizes.len() <= 16);
        assert_eq!(t.limits.pred_controls.first().map(String::as_str), Some(""));
        for (i, a) in t.types.iter().enumerate() {
            assert!(a.code < 16, "{}", a.name);
            for b in &t.types[i + 1..] {
                assert!(
                    a.code != b.code && a.name != b.name,
                    "{} / {}",
                    a.name,
                    b.name
                );
            }
        }
        for m in &t.modifiers {
            assert!((8..16).contains(&m.bit), "{}", m.name);
        }
        for o in &t.opcodes {
            assert!(o.subop_bytes <= 2);
            for m in &o.modifiers {
                assert!(modifier_by_name(m).is_some(), "{}: {m}", o.name);
            }
            for s in &o.exec_sizes {
                assert!(t.limits.exec_sizes.contains(s), "{}: {s}", o.name);
            }
            for d in &o.dst_types {
                assert!(type_by_name(d).is_some(), "{}: {d}", o.name);
            }
            assert!(o.aoffimmi != o.aoffimmi_gap.is_empty(), "{}", o.name);
        }
        for (i, a) in t.ops.iter().enumerate() {
            let opc = a.opcode_desc();
            let _ = a.ir_op(0);
            assert!(opc.subop_bytes > 0 || a.subop == 0, "{}", a.mnemonic);
            assert!(a.max_params() <= t.limits.max_params, "{}", a.mnemonic);
            for (i, p) in a.params.iter().enumerate() {
                assert!(!a.params[i + 1..].contains(p), "{}: {p} twice", a.mnemonic);
            }
            if !opc.num_params {
                assert!(a.params_w.is_empty(), "{}", a.mnemonic);
            }
            for b in &t.ops[i + 1..] {
                assert!(
                    (a.opcode, a.subop) != (b.opcode, b.subop),
                    "{} / {}",
                    a.mnemonic,
                    b.mnemonic
                );
                for x in [&a.mnemonic, &a.doc] {
                    for y in [&b.mnemonic, &b.doc] {
                        assert!(!x.eq_ignore_ascii_case(y), "{x} names two ops");
                    }
                }
            }
            // Names resolve back to the op.
            assert!(std::ptr::eq(op_by_name(&a.mnemonic).unwrap(), a));
            assert!(std::ptr::eq(op_by_name(&a.doc.to_uppercase()).unwrap(), a));
        }
    }
}

/// `mappings/visa_mnemonics.toml`: every instruction mnemonic IGC's assembler reads.
#[derive(Debug, Deserialize)]
pub struct Mnemonics {
    pub mnemonics: Vec<String>,
}

/// The mnemonic table, parsed once.
pub fn mnemonics() -> &'static Mnemonics {
    static TABLE: OnceLock<Mnemonics> = OnceLock::new();
    TABLE.get_or_init(|| {
        crate::mappings::parse_table(
            "visa_mnemonics.toml",
            include_str!("../../../mappings/visa_mnemonics.toml"),
        )
    })
}

/// Whether `name` (the word before the first `.`) is an instruction mnemonic of vISA text:
/// a sampler op of `visa.toml` (any case, with the seeds' spellings) or one of
/// `visa_mnemonics.toml` (case-sensitive, as IGC's lexer).
pub fn is_mnemonic(name: &str) -> bool {
    is_igc_mnemonic(name) || op_by_name(name).is_some()
}

/// Whether `name` is one of `visa_mnemonics.toml` (case-sensitive, as IGC's lexer).
pub fn is_igc_mnemonic(name: &str) -> bool {
    static IGC: OnceLock<Names<()>> = OnceLock::new();
    let igc = IGC.get_or_init(|| Names::new(mnemonics().mnemonics.iter().map(|m| (m.clone(), ()))));
    igc.get(name.as_bytes()).is_some()
}

/// Every mnemonic, for hints.
pub fn all_mnemonics() -> impl Iterator<Item = &'static str> {
    tables()
        .ops
        .iter()
        .map(|o| o.mnemonic.as_str())
        .chain(mnemonics().mnemonics.iter().map(String::as_str))
}
