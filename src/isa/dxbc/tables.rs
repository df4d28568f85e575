//! The DXBC tables of `mappings/dxbc.toml`, parsed once and indexed for lookups.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::{Dim, TexOp};
use crate::isa::names::Names;
use crate::mappings::parse_table;

use super::tokens::{OPERAND_IMM32, OPERAND_IMM64};

/// One row of `opcodes`: number, fxc mnemonic, destination and source operand types.
#[derive(Debug, Deserialize)]
pub struct OpcodeRow(pub u16, pub String, pub String, pub String);

/// One row of `resource_dims`: code, fxc spelling, IR dimension, arrayed, multisampled.
#[derive(Debug, Deserialize)]
pub struct ResourceDimRow(pub u8, pub String, pub String, pub bool, pub bool);

/// One row of `register_types`: code, prefix, components when unsuffixed in an instruction
/// and in a declaration, SM5.1 prefix.
#[derive(Debug, Deserialize)]
pub struct RegisterTypeRow(pub u8, pub String, pub u8, pub u8, pub String);

/// One `[[tex]]` entry: a texture instruction's IR meaning and operand roles.
#[derive(Debug, Deserialize)]
pub struct TexRow {
    pub mnemonic: String,
    pub ir: String,
    pub lod: String,
    pub operands: Vec<String>,
}

/// One `[[signature_value]]` row: how a signature element is named (see the table).
#[derive(Debug, Deserialize)]
pub struct SignatureValueRow {
    pub key: String,
    pub column: String,
    pub code: u32,
    pub semantic: String,
    pub index: String,
    pub ty: String,
}

/// The file as written.
#[derive(Debug, Deserialize)]
pub struct File {
    pub opcodes: Vec<OpcodeRow>,
    pub conditional_ops: Vec<String>,
    pub flow_control_ops: Vec<String>,
    pub constant_move: String,
    pub decl_layouts: Vec<(u16, i8)>,
    pub wine_aliases: Vec<(String, String)>,
    pub wine_words: Vec<(String, String)>,
    pub wine_input_primitives: Vec<(String, String)>,
    pub resource_dims: Vec<ResourceDimRow>,
    pub return_types: Vec<(u8, String)>,
    pub register_types: Vec<RegisterTypeRow>,
    pub interpolation_modes: Vec<(u8, String)>,
    pub system_values: Vec<(u32, String)>,
    pub global_flags: Vec<String>,
    pub sampler_modes: Vec<(u8, String)>,
    pub uav_flags: Vec<(u8, String)>,
    pub output_topologies: Vec<(u8, String)>,
    pub input_primitives: Vec<(u8, String)>,
    pub tessellator_domains: Vec<(u8, String)>,
    pub tessellator_partitionings: Vec<(u8, String)>,
    pub tessellator_outputs: Vec<(u8, String)>,
    pub program_types: Vec<(u32, String)>,
    pub signature_formats: Vec<(String, u32, u32)>,
    pub shader_features: Vec<(u32, String)>,
    pub tex: Vec<TexRow>,
    pub signature_value: Vec<SignatureValueRow>,
}

/// How an instruction's dwords after the opcode (and extended) tokens are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Operand tokens only.
    Operands,
    /// `n` operand tokens, then the declaration's own words.
    Decl(u8),
    /// Words only, kept raw (function tables, interfaces, `fcall`, unknown opcodes).
    Raw,
}

/// What decoding an opcode's instructions needs of its [`OpInfo`], packed small: looked up
/// for every instruction of a token stream ([`Tables::shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpShape {
    /// [`OpInfo::layout`]; [`Layout::Raw`] for an opcode the table does not know.
    pub layout: Layout,
    /// The number of operand roles of a texture instruction ([`TexInfo::roles`]).
    pub roles: Option<u8>,
}

/// The LOD rule of a texture instruction (`[[tex]].lod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LodRule {
    Implicit,
    Zero,
    Level,
    Bias,
    Grad,
    /// The mip level is the coordinate component after the array index (`ld`).
    Coord,
    /// The level of a size query (`resinfo`).
    Mip,
    None,
}

/// The role of one operand of a texture instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Dst,
    Status,
    Coord,
    Offset,
    Resource,
    Sampler,
    Ref,
    Lod,
    Bias,
    Ddx,
    Ddy,
    Clamp,
    Sample,
    Mip,
    Index,
    ByteOffset,
}

/// A texture instruction's entry, resolved.
#[derive(Debug)]
pub struct TexInfo {
    pub opcode: u16,
    pub op: TexOp,
    pub lod: LodRule,
    pub roles: Vec<Role>,
}

/// An opcode's entry, resolved.
#[derive(Debug)]
pub struct OpInfo {
    pub name: String,
    pub dst_types: Vec<u8>,
    pub src_types: Vec<u8>,
    pub layout: Layout,
    pub tex: Option<TexInfo>,
}

/// A resource dimension, resolved.
#[derive(Debug)]
pub struct DimInfo {
    pub code: u8,
    pub name: String,
    pub dim: Dim,
    pub arrayed: bool,
    pub ms: bool,
}

/// Opcode numbers and operand type codes that code names, resolved once from the tables
/// (`opcodes`, `register_types`, `conditional_ops`) so that no number is written in code.
#[derive(Debug)]
pub struct Codes {
    /// Opcodes whose `_nz`/`_z` suffix sets the test bit.
    pub conditional: Vec<u16>,
    pub resinfo: u16,
    pub sampleinfo: u16,
    pub sync: u16,
    pub ret: u16,
    pub dcl_resource: u16,
    pub dcl_uav_typed: u16,
    pub dcl_resource_raw: u16,
    pub dcl_uav_raw: u16,
    pub dcl_resource_structured: u16,
    pub dcl_uav_structured: u16,
    pub dcl_sampler: u16,
    /// Operand types: `r`, `v`, `o`, `null`, `t`, `s`, `l`.
    pub temp: u8,
    pub input: u8,
    pub output: u8,
    pub null: u8,
    pub resource: u8,
    pub sampler: u8,
    pub imm32: u8,
}

/// All tables, indexed.
#[derive(Debug)]
pub struct Tables {
    pub file: File,
    pub codes: Codes,
    /// Opcode entries indexed by opcode number (looked up for every instruction).
    pub ops: Vec<Option<OpInfo>>,
    /// [`Tables::shape`] of every opcode of `ops`.
    shapes: Vec<OpShape>,
    pub by_name: HashMap<String, u16>,
    pub dims: Vec<DimInfo>,
    /// [`Tables::opcode_named`] of every name it knows, hashed once.
    mnemonics: Names<u16>,
    /// [`Tables::register_named`] of every name it knows (an index into `register_types`).
    registers: Names<usize>,
    /// [`Tables::registers`] of the one-byte names (`r`, `v`, `o` ...: most operands) by
    /// their byte: the row plus one, 0 = none.
    one_byte_registers: [u16; 256],
}

fn role(name: &str) -> Role {
    match name {
        "dst" => Role::Dst,
        "status" => Role::Status,
        "coord" => Role::Coord,
        "offset" => Role::Offset,
        "resource" => Role::Resource,
        "sampler" => Role::Sampler,
        "ref" => Role::Ref,
        "lod" => Role::Lod,
        "bias" => Role::Bias,
        "ddx" => Role::Ddx,
        "ddy" => Role::Ddy,
        "clamp" => Role::Clamp,
        "sample" => Role::Sample,
        "mip" => Role::Mip,
        "index" => Role::Index,
        "byte_offset" => Role::ByteOffset,
        other => panic!("mappings/dxbc.toml: unknown operand role `{other}`"),
    }
}

fn tex_op(name: &str) -> TexOp {
    match name {
        "sample" => TexOp::Sample,
        "fetch" => TexOp::Fetch,
        "gather" => TexOp::Gather { component: 0 },
        "query_lod" => TexOp::QueryLod,
        "query_size" => TexOp::QuerySize,
        "query_samples" => TexOp::QuerySamples,
        "sample_pos" => TexOp::SamplePos,
        "buffer_info" => TexOp::BufferInfo,
        "load_typed" => TexOp::LoadTyped,
        "load_raw" => TexOp::LoadRaw,
        "load_structured" => TexOp::LoadStructured,
        other => panic!("mappings/dxbc.toml: unknown IR op `{other}`"),
    }
}

fn lod_rule(name: &str) -> LodRule {
    match name {
        "implicit" => LodRule::Implicit,
        "zero" => LodRule::Zero,
        "level" => LodRule::Level,
        "bias" => LodRule::Bias,
        "grad" => LodRule::Grad,
        "coord" => LodRule::Coord,
        "mip" => LodRule::Mip,
        "none" => LodRule::None,
        other => panic!("mappings/dxbc.toml: unknown lod rule `{other}`"),
    }
}

fn ir_dim(name: &str) -> Dim {
    match name {
        "1d" => Dim::D1,
        "2d" => Dim::D2,
        "3d" => Dim::D3,
        "cube" => Dim::Cube,
        "buffer" => Dim::Buffer,
        "raw_buffer" => Dim::RawBuffer,
        "structured_buffer" => Dim::StructuredBuffer,
        other => panic!("mappings/dxbc.toml: unknown dimension `{other}`"),
    }
}

impl Tables {
    fn build(file: File) -> Tables {
        let layouts: HashMap<u16, i8> = file.decl_layouts.iter().copied().collect();
        let slots = file.opcodes.iter().map(|o| usize::from(o.0) + 1).max();
        let mut ops: Vec<Option<OpInfo>> = Vec::new();
        ops.resize_with(slots.unwrap_or(0), || None);
        let mut by_name = HashMap::new();
        for OpcodeRow(code, name, dst, src) in &file.opcodes {
            let layout = match layouts.get(code) {
                None => Layout::Operands,
                Some(n) if *n < 0 => Layout::Raw,
                Some(n) => Layout::Decl(*n as u8),
            };
            by_name.insert(name.clone(), *code);
            ops[usize::from(*code)] = Some(OpInfo {
                name: name.clone(),
                dst_types: dst.bytes().collect(),
                src_types: src.bytes().collect(),
                layout,
                tex: None,
            });
        }
        for t in &file.tex {
            let code = *by_name.get(&t.mnemonic).unwrap_or_else(|| {
                panic!("mappings/dxbc.toml: [[tex]] `{}` has no opcode", t.mnemonic)
            });
            assert!(
                t.operands.len() <= super::tokens::WALKED_TYPES,
                "mappings/dxbc.toml: [[tex]] `{}` has more operands than a walk records",
                t.mnemonic
            );
            let info = TexInfo {
                opcode: code,
                op: tex_op(&t.ir),
                lod: lod_rule(&t.lod),
                roles: t.operands.iter().map(|r| role(r)).collect(),
            };
            if let Some(op) = ops.get_mut(usize::from(code)).and_then(Option::as_mut) {
                op.tex = Some(info);
            }
        }
        let dims = file
            .resource_dims
            .iter()
            .map(|ResourceDimRow(code, name, dim, arrayed, ms)| DimInfo {
                code: *code,
                name: name.clone(),
                dim: ir_dim(dim),
                arrayed: *arrayed,
                ms: *ms,
            })
            .collect();
        let op = |name: &str| -> u16 {
            *by_name
                .get(name)
                .unwrap_or_else(|| panic!("mappings/dxbc.toml: no opcode `{name}`"))
        };
        let ty = |prefix: &str| -> u8 {
            file.register_types
                .iter()
                .find(|r| r.1 == prefix)
                .unwrap_or_else(|| panic!("mappings/dxbc.toml: no operand type `{prefix}`"))
                .0
        };
        let codes = Codes {
            conditional: file.conditional_ops.iter().map(|n| op(n)).collect(),
            resinfo: op("resinfo"),
            sampleinfo: op("sampleinfo"),
            sync: op("sync"),
            ret: op("ret"),
            dcl_resource: op("dcl_resource"),
            dcl_uav_typed: op("dcl_uav_typed"),
            dcl_resource_raw: op("dcl_resource_raw"),
            dcl_uav_raw: op("dcl_uav_raw"),
            dcl_resource_structured: op("dcl_resource_structured"),
            dcl_uav_structured: op("dcl_uav_structured"),
            dcl_sampler: op("dcl_sampler"),
            temp: ty("r"),
            input: ty("v"),
            output: ty("o"),
            null: ty("null"),
            resource: ty("t"),
            sampler: ty("s"),
            imm32: ty("l"),
        };
        let shapes = ops
            .iter()
            .map(|o| OpShape {
                layout: o.as_ref().map_or(Layout::Raw, |o| o.layout),
                roles: o.as_ref().and_then(|o| o.tex.as_ref()).map(|t| {
                    u8::try_from(t.roles.len()).expect("a texture instruction's roles fit u8")
                }),
            })
            .collect();
        let mut t = Tables {
            file,
            codes,
            ops,
            shapes,
            by_name,
            dims,
            mnemonics: Names::new(std::iter::empty()),
            registers: Names::new(std::iter::empty()),
            one_byte_registers: [0; 256],
        };
        // Every name that either look-up knows is one of these, so the maps answer as
        // the scans do for every name.
        let f = &t.file;
        let mnemonics = t
            .by_name
            .keys()
            .chain(f.wine_aliases.iter().map(|(w, _)| w));
        let mnemonics = Names::new(
            mnemonics
                .filter_map(|n| Some((n.clone(), t.opcode_scan(n)?)))
                .collect::<Vec<_>>()
                .into_iter(),
        );
        let registers = f.register_types.iter().flat_map(|r| [&r.1, &r.4]);
        let registers = registers.chain(f.wine_words.iter().map(|(w, _)| w));
        let registers = Names::new(
            registers
                .filter_map(|n| Some((n.clone(), t.register_scan(n)?)))
                .collect::<Vec<_>>()
                .into_iter(),
        );
        for (b, slot) in t.one_byte_registers.iter_mut().enumerate() {
            let row = registers
                .get(&[b as u8])
                .map_or(Some(0), |r| u16::try_from(r + 1).ok());
            *slot = row.expect("register rows fit 16 bits");
        }
        t.mnemonics = mnemonics;
        t.registers = registers;
        t
    }

    /// The opcode of `mnemonic` (fxc spelling); `None` when the table has no such opcode.
    pub fn opcode(&self, mnemonic: &str) -> Option<u16> {
        self.by_name.get(mnemonic).copied()
    }

    /// The entry of `opcode`, when it is a known SM4/SM5 opcode.
    pub fn op(&self, opcode: u16) -> Option<&OpInfo> {
        self.ops.get(usize::from(opcode)).and_then(Option::as_ref)
    }

    /// What decoding instructions with `opcode` needs of its entry ([`OpShape`]).
    pub fn shape(&self, opcode: u16) -> OpShape {
        self.shapes
            .get(usize::from(opcode))
            .copied()
            .unwrap_or(OpShape {
                layout: Layout::Raw,
                roles: None,
            })
    }

    /// The opcode spelled `name` (fxc spelling or a Wine alias).
    pub fn opcode_named(&self, name: &str) -> Option<u16> {
        self.mnemonics.get(name.as_bytes()).copied()
    }

    /// [`Tables::opcode_named`] by scanning the tables.
    fn opcode_scan(&self, name: &str) -> Option<u16> {
        if let Some(code) = self.by_name.get(name) {
            return Some(*code);
        }
        let (_, fxc) = self.file.wine_aliases.iter().find(|(w, _)| w == name)?;
        self.by_name.get(fxc).copied()
    }

    /// The resource dimension with `code`.
    pub fn dim(&self, code: u8) -> Option<&DimInfo> {
        self.dims.iter().find(|d| d.code == code)
    }

    /// The resource dimension spelled `name`.
    pub fn dim_named(&self, name: &str) -> Option<&DimInfo> {
        self.dims.iter().find(|d| d.name == name)
    }

    /// The fxc spelling of return type `code`.
    pub fn return_type(&self, code: u8) -> Option<&str> {
        find_name(&self.file.return_types, code)
    }

    /// The return type spelled `name` (fxc or Wine spelling).
    pub fn return_type_named(&self, name: &str) -> Option<u8> {
        find_code(&self.file.return_types, self.fxc_word(name))
    }

    /// fxc's spelling of a register name, sampler mode, system value or return type that
    /// Wine spells `word` (`wine_words`); any other word as it is.
    pub fn fxc_word<'a>(&'a self, word: &'a str) -> &'a str {
        self.file
            .wine_words
            .iter()
            .find(|(w, _)| w == word)
            .map_or(word, |(_, fxc)| fxc.as_str())
    }

    /// The operand type with `code`.
    pub fn register_type(&self, code: u8) -> Option<&RegisterTypeRow> {
        self.file.register_types.iter().find(|r| r.0 == code)
    }

    /// The register file (not an immediate) spelled `name`: the first row whose prefix is
    /// `name`'s fxc spelling ([`Tables::fxc_word`]) or whose SM5.1 prefix is `name`.
    pub fn register_named(&self, name: &str) -> Option<&RegisterTypeRow> {
        let row = match name.as_bytes() {
            [b] => usize::from(self.one_byte_registers[usize::from(*b)]).checked_sub(1)?,
            bytes => *self.registers.get(bytes)?,
        };
        self.file.register_types.get(row)
    }

    /// The row index of [`Tables::register_named`] by scanning the tables.
    fn register_scan(&self, name: &str) -> Option<usize> {
        let fxc_name = self.fxc_word(name);
        self.file.register_types.iter().position(|r| {
            r.0 != OPERAND_IMM32
                && r.0 != OPERAND_IMM64
                && (r.1 == fxc_name || (!r.4.is_empty() && r.4 == name))
        })
    }

    /// The operand types, in table order.
    pub fn register_types(&self) -> &[RegisterTypeRow] {
        &self.file.register_types
    }
}

/// The name of `code` in a `[code, name]` table.
pub fn find_name<C: PartialEq + Copy>(rows: &[(C, String)], code: C) -> Option<&str> {
    rows.iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| n.as_str())
}

/// The code of `name` in a `[code, name]` table.
pub fn find_code<C: Copy>(rows: &[(C, String)], name: &str) -> Option<C> {
    rows.iter().find(|(_, n)| n == name).map(|(c, _)| *c)
}

/// The tables, parsed on first use.
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        Tables::build(parse_table(
            "dxbc.toml",
            include_str!("../../../mappings/dxbc.toml"),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table loads and is self-consistent: unique opcode numbers and names, every
    /// layout and texture entry names a listed opcode, every texture instruction has a
    /// result and a resource, every dimension and return type code is unique.
    #[test]
    fn dxbc_table_is_consistent() {
        let t = tables();
        let f = &t.file;
        let mut codes: Vec<u16> = f.opcodes.iter().map(|o| o.0).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), f.opcodes.len(), "duplicate opcode numbers");
        assert_eq!(t.by_name.len(), f.opcodes.len(), "duplicate mnemonics");
        for (code, _) in &f.decl_layouts {
            assert!(t.op(*code).is_some(), "layout for unknown opcode {code}");
        }
        for (wine, fxc) in &f.wine_aliases {
            assert!(t.by_name.contains_key(fxc), "alias {wine} -> unknown {fxc}");
        }
        // Every Wine word names something fxc spells: a register, a sampler mode, a system
        // value or a return type.
        for (wine, fxc) in &f.wine_input_primitives {
            assert!(
                find_code(&f.input_primitives, fxc).is_some(),
                "Wine input primitive {wine} -> unknown {fxc}"
            );
        }
        for (wine, fxc) in &f.wine_words {
            let known = f.register_types.iter().any(|r| &r.1 == fxc)
                || f.sampler_modes.iter().any(|m| &m.1 == fxc)
                || f.system_values.iter().any(|v| &v.1 == fxc)
                || f.return_types.iter().any(|r| &r.1 == fxc);
            assert!(known, "Wine word {wine} -> unknown {fxc}");
        }
        assert_eq!(f.tex.len(), 35);
        for tex in &f.tex {
            let code = t.by_name[&tex.mnemonic];
            let info = t.op(code).and_then(|o| o.tex.as_ref()).unwrap();
            assert!(info.roles.contains(&Role::Dst) && info.roles.contains(&Role::Resource));
            let op = t.op(code).unwrap();
            assert_eq!(
                op.dst_types.len() + op.src_types.len(),
                info.roles.len(),
                "{}: operand types and roles disagree",
                tex.mnemonic
            );
        }
        let mut dims: Vec<u8> = t.dims.iter().map(|d| d.code).collect();
        dims.dedup();
        assert_eq!(dims.len(), 12);
        assert!(t
            .register_types()
            .iter()
            .enumerate()
            .all(|(i, r)| r.0 as usize == i));
    }
}
