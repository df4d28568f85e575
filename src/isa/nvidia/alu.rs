//! The ALU instructions the backend emits ([`AluOp`] → one SM50 instruction), the kernel's
//! end (`EXIT`, `BRA`) and the scheduling rules: all data of `mappings/nvidia_alu.toml`,
//! learned from ptxas output and checked with nvdisasm.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::table::{Field, FieldName};
use super::text::reg_name;
use super::RZ;
use crate::error::{Error, Unsupported};
use crate::ir::{AluInstr, AluOp, Isa, RegFile, Scalar};

#[derive(Debug, Deserialize)]
struct RawInst {
    op: String,
    src: String,
    text: String,
    word: String,
    operands: BTreeMap<String, String>,
    unit: String,
    #[serde(default)]
    src1: Option<String>,
    #[serde(default)]
    imm_max: Option<u64>,
    #[serde(default = "yes")]
    guarded: bool,
    #[serde(default)]
    stall: Option<u32>,
    #[serde(default)]
    fence: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
struct RawEnd {
    exit_text: String,
    exit: String,
    bra_text: String,
    bra: String,
    bra_offset: [u32; 2],
    bra_self_offset: BTreeMap<String, i64>,
    nop_text: String,
}

/// The scheduling rules (`[schedule]`).
#[derive(Clone, Debug, Deserialize)]
pub struct Schedule {
    /// Cycles before a fixed-latency result is ready.
    pub fixed_latency: u32,
    /// The smallest stall count an instruction gets.
    pub min_stall: u32,
    /// The yield bit's value.
    #[serde(rename = "yield")]
    pub yield_: u64,
    /// Stall of the last instruction before the end.
    pub end_stall: u32,
    /// Write barriers texture instructions may use.
    pub tex_barriers: Vec<u8>,
    /// Write barriers variable-latency ALU instructions may use.
    pub alu_barriers: Vec<u8>,
    /// Cycles a texture result takes, for scheduling.
    pub tex_wait_cycles: u32,
    /// Cycles a variable-latency ALU result takes.
    pub alu_wait_cycles: u32,
    /// Most texture instructions issued before one is waited on.
    pub tex_batch_max: usize,
}

#[derive(Debug, Deserialize)]
struct RawAlu {
    fields: BTreeMap<String, [u32; 2]>,
    inst: Vec<RawInst>,
    end: RawEnd,
    schedule: Schedule,
}

/// How an instruction's result becomes ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// After a fixed number of cycles.
    Fixed,
    /// When its write barrier clears.
    Variable,
}

/// One ALU instruction template.
#[derive(Clone, Debug)]
pub struct AluTemplate {
    /// The IR ALU op it encodes.
    pub op: String,
    /// `reg` or `imm`: the kind of `src0`.
    pub src: String,
    /// `reg` or `imm`: the kind of `src1`.
    pub src1: String,
    /// The largest immediate source the op takes, if it is not the field's.
    pub imm_max: Option<u64>,
    /// Whether the word has a guard field.
    pub guarded: bool,
    /// The stall ptxas gives it, when not the fixed-latency rule's.
    pub stall: Option<u32>,
    /// Whether it changes the active mask (every pending barrier is waited on first).
    pub fence: bool,
    /// nvdisasm's text, with operand placeholders.
    pub text: String,
    /// The word, operand fields zero.
    pub word: u64,
    /// Field name → IR operand (`dst`, `src0`, `src1`).
    pub operands: Vec<(String, String)>,
    /// How its result becomes ready.
    pub unit: Unit,
}

/// The kernel end.
#[derive(Clone, Debug)]
pub struct End {
    /// The EXIT instruction's text.
    pub exit_text: String,
    /// Its word.
    pub exit: u64,
    /// The closing self-branch's text.
    pub bra_text: String,
    /// Its word.
    pub bra: u64,
    /// The branch offset field.
    pub bra_offset: Field,
    /// The self-branch offset when the branch sits in slot 1 of a bundle.
    pub bra_self_slot1: i64,
    /// The self-branch offset in the other slots.
    pub bra_self_other: i64,
    /// NOP's text.
    pub nop_text: String,
}

/// All of `mappings/nvidia_alu.toml`.
#[derive(Debug)]
pub struct AluTable {
    /// Operand fields by name.
    pub fields: BTreeMap<String, Field>,
    /// The instruction templates.
    pub insts: Vec<AluTemplate>,
    /// The kernel end.
    pub end: End,
    /// The scheduling rules.
    pub schedule: Schedule,
}

fn hex(what: &str, s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16)
        .unwrap_or_else(|e| panic!("mappings/nvidia_alu.toml: {what} `{s}` is not hex: {e}"))
}

fn field([lo, width]: [u32; 2]) -> Field {
    Field::bits(FieldName::Target, lo, width)
}

impl AluTable {
    fn load() -> AluTable {
        let raw: RawAlu = crate::mappings::parse_table(
            "nvidia_alu.toml",
            include_str!("../../../mappings/nvidia_alu.toml"),
        );
        let fields: BTreeMap<String, Field> =
            raw.fields.into_iter().map(|(k, v)| (k, field(v))).collect();
        let insts = raw
            .inst
            .into_iter()
            .map(|i| {
                for f in i.operands.keys() {
                    assert!(
                        fields.contains_key(f),
                        "mappings/nvidia_alu.toml: {}: no field `{f}`",
                        i.op
                    );
                }
                AluTemplate {
                    unit: match i.unit.as_str() {
                        "fixed" => Unit::Fixed,
                        "variable" => Unit::Variable,
                        u => panic!("mappings/nvidia_alu.toml: {}: unit `{u}`", i.op),
                    },
                    word: hex("word", &i.word),
                    op: i.op,
                    src: i.src,
                    src1: i.src1.unwrap_or_else(|| "reg".to_string()),
                    imm_max: i.imm_max,
                    guarded: i.guarded,
                    stall: i.stall,
                    fence: i.fence,
                    text: i.text,
                    operands: i.operands.into_iter().collect(),
                }
            })
            .collect();
        let e = raw.end;
        let offset = |k: &str| {
            *e.bra_self_offset
                .get(k)
                .unwrap_or_else(|| panic!("mappings/nvidia_alu.toml: bra_self_offset.{k}"))
        };
        AluTable {
            fields,
            insts,
            end: End {
                exit: hex("exit", &e.exit),
                bra: hex("bra", &e.bra),
                bra_offset: field(e.bra_offset),
                bra_self_slot1: offset("slot1"),
                bra_self_other: offset("other"),
                exit_text: e.exit_text,
                bra_text: e.bra_text,
                nop_text: e.nop_text,
            },
            schedule: raw.schedule,
        }
    }

    /// The template of `op` for sources of kinds `src` and `src1` (`reg`, `imm`).
    pub fn template(&self, op: AluOp, src: &str, src1: &str) -> Option<&AluTemplate> {
        let name = format!("{op:?}");
        self.insts
            .iter()
            .find(|t| t.op == name && t.src == src && t.src1 == src1)
    }
}

/// The table, parsed on first use.
pub fn alu_table() -> &'static AluTable {
    static TABLE: OnceLock<AluTable> = OnceLock::new();
    TABLE.get_or_init(AluTable::load)
}

/// One encoded ALU instruction: its text (nvdisasm's, without ` ;`), its word, the registers
/// it reads and writes (R0..R254 as 0..254, predicates P0..P6 as 256..262) and its unit.
#[derive(Clone, Debug)]
pub struct EncodedAlu {
    /// nvdisasm's text, without ` ;`.
    pub text: String,
    /// The word.
    pub word: u64,
    /// Registers read.
    pub reads: Vec<u16>,
    /// Registers written.
    pub writes: Vec<u16>,
    /// How its result becomes ready.
    pub unit: Unit,
    /// The stall ptxas gives it, when not the fixed-latency rule's.
    pub stall: Option<u32>,
    /// Whether it changes the active mask.
    pub fence: bool,
}

/// The id of predicate `p` in [`EncodedAlu::reads`].
pub fn pred_id(p: u16) -> u16 {
    256 + p
}

fn refuse(a: &AluInstr, why: String) -> Error {
    Error::Unsupported(Unsupported::new(
        format!("the ALU operation `{}`", a.op),
        Isa::Nvidia,
        Isa::Nvidia,
        why,
    ))
}

/// A register operand: R0..R254, or RZ for `Scalar::Zero`.
fn register(a: &AluInstr, s: Scalar, what: &str) -> Result<u8, Error> {
    match s {
        Scalar::Zero => Ok(RZ),
        Scalar::Reg(r) if r.file == RegFile::Temp && r.sub == 0 && r.index < u32::from(RZ) => {
            Ok(r.index as u8)
        }
        other => Err(refuse(
            a,
            format!("its {what} must be an NVIDIA register R0..R254 or RZ, found `{other}`"),
        )),
    }
}

/// Encodes one ALU instruction (see `mappings/nvidia_alu.toml`).
pub fn encode(a: &AluInstr) -> Result<EncodedAlu, Error> {
    let table = alu_table();
    let kind = |s: Option<&Scalar>| match s {
        Some(Scalar::Imm(_)) => "imm",
        _ => "reg",
    };
    let (src_kind, src1_kind) = (kind(a.srcs.first()), kind(a.srcs.get(1)));
    let tpl = table.template(a.op, src_kind, src1_kind).ok_or_else(|| {
        let what = |k: &str| {
            if k == "imm" {
                "an immediate"
            } else {
                "a register"
            }
        };
        refuse(
            a,
            format!(
                "SM50 has no single-instruction form of it with {} first source and {} second here",
                what(src_kind),
                what(src1_kind)
            ),
        )
    })?;
    let mut word = tpl.word;
    let mut text = tpl.text.clone();
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    for (field_name, operand) in &tpl.operands {
        let f = table.fields[field_name];
        let scalar = match operand.as_str() {
            "dst" => Some(a.dst),
            "src0" => a.srcs.first().copied(),
            "src1" => a.srcs.get(1).copied(),
            "src2" => a.srcs.get(2).copied(),
            other => panic!("mappings/nvidia_alu.toml: operand `{other}`"),
        }
        .ok_or_else(|| refuse(a, format!("it needs an operand `{operand}`")))?;
        let imm_here = match operand.as_str() {
            "src0" => tpl.src == "imm",
            "src1" => tpl.src1 == "imm",
            _ => false,
        };
        let (value, shown) = match scalar {
            // Only the templates that say so take an immediate (MOV32I, SHFL's lane, MOV's
            // lane mask): an immediate anywhere else would be truncated into a register field.
            Scalar::Imm(_) if !imm_here => {
                return Err(refuse(
                    a,
                    format!("its {operand} is an immediate, which this instruction does not take: move it into a register first"),
                ));
            }
            Scalar::Imm(imm) => {
                let v = imm.bits & 0xffff_ffff;
                if imm.bits >> 32 != 0 && imm.bits >> 31 != 0x1_ffff_ffff {
                    return Err(refuse(
                        a,
                        format!("the immediate {:#x} does not fit 32 bits", imm.bits),
                    ));
                }
                let max = tpl.imm_max.unwrap_or(f.mask() >> f.lo);
                if v > max {
                    return Err(refuse(
                        a,
                        format!("its {operand} {v:#x} is out of range (0..={max:#x})"),
                    ));
                }
                (v, format!("{v:#x}"))
            }
            s => {
                let r = register(a, s, operand)?;
                if r != RZ {
                    if operand == "dst" {
                        writes.push(u16::from(r));
                    } else {
                        reads.push(u16::from(r));
                    }
                }
                (u64::from(r), reg_name(r))
            }
        };
        f.put(&mut word, value);
        text = text.replace(&format!("{{{field_name}}}"), &shown);
    }
    let expected = tpl.operands.iter().filter(|(_, o)| o != "dst").count();
    if a.srcs.len() != expected {
        return Err(refuse(
            a,
            format!("it takes {expected} sources, the IR gives {}", a.srcs.len()),
        ));
    }
    if !tpl.guarded && a.dst != Scalar::Zero {
        return Err(refuse(
            a,
            format!("it writes no register, the IR gives `{}`", a.dst),
        ));
    }
    if let Some(p) = a.pred {
        if !tpl.guarded {
            return Err(refuse(a, "it takes no guard".to_string()));
        }
        if p.index > 6 {
            return Err(refuse(a, format!("its guard P{} does not exist", p.index)));
        }
        table.fields["guard"].put(&mut word, u64::from(p.index) | if p.negate { 8 } else { 0 });
        text = format!("@{}P{} {text}", if p.negate { "!" } else { "" }, p.index);
        reads.push(pred_id(p.index));
    }
    Ok(EncodedAlu {
        text,
        word,
        reads,
        writes,
        unit: tpl.unit,
        stall: tpl.stall,
        fence: tpl.fence,
    })
}

/// The [`AluInstr`] whose encoding ([`encode`]) is exactly `word` and, when `text` is given,
/// whose nvdisasm text (without ` ;`) is `text`; `None` for every other word.
pub fn lift(word: u64, text: Option<&str>) -> Option<AluInstr> {
    let table = alu_table();
    let guard = table.fields["guard"];
    for tpl in &table.insts {
        let guard_mask = if tpl.guarded { guard.mask() } else { 0 };
        let mask = tpl
            .operands
            .iter()
            .fold(guard_mask, |m, (f, _)| m | table.fields[f].mask());
        if word & !mask != tpl.word & !mask {
            continue;
        }
        let mut dst = None;
        let mut srcs = [None, None, None];
        for (field, operand) in &tpl.operands {
            let value = table.fields[field].get(word);
            let imm = match operand.as_str() {
                "src0" => tpl.src == "imm",
                "src1" => tpl.src1 == "imm",
                _ => false,
            };
            let scalar = if imm {
                Scalar::Imm(crate::ir::Imm {
                    bits: value,
                    ty: crate::ir::ScalarType::U32,
                })
            } else if value == u64::from(RZ) {
                Scalar::Zero
            } else {
                Scalar::Reg(crate::ir::Reg {
                    file: RegFile::Temp,
                    index: value as u32,
                    sub: 0,
                })
            };
            match operand.as_str() {
                "dst" => dst = Some(scalar),
                "src0" => srcs[0] = Some(scalar),
                "src2" => srcs[2] = Some(scalar),
                _ => srcs[1] = Some(scalar),
            }
        }
        let g = if tpl.guarded {
            guard.get(word) as u16
        } else {
            7
        };
        let pred = (g != 7).then_some(crate::ir::Pred {
            index: g & 7,
            negate: g & 8 != 0,
        });
        let op = match tpl.op.as_str() {
            "Mov" => AluOp::Mov,
            "U32ToF32" => AluOp::U32ToF32,
            "I32ToF32" => AluOp::I32ToF32,
            "F32ToLayer" => AluOp::F32ToLayer,
            "U32ToLayer" => AluOp::U32ToLayer,
            "F32ToI32" => AluOp::F32ToI32,
            "FMul" => AluOp::FMul,
            "FMaxAbs" => AluOp::FMaxAbs,
            "FRcp" => AluOp::FRcp,
            "I16ToF32" => AluOp::I16ToF32,
            "U16ToF32" => AluOp::U16ToF32,
            "FMaxRightAbs" => AluOp::FMaxRightAbs,
            "SetActiveMask" => AluOp::SetActiveMask,
            "RestoreActiveMask" => AluOp::RestoreActiveMask,
            "QuadBroadcast" => AluOp::QuadBroadcast,
            "QuadAddX" => AluOp::QuadAddX,
            "QuadAddY" => AluOp::QuadAddY,
            "MovLanes" => AluOp::MovLanes,
            "InsertField" => AluOp::InsertField,
            "ExtractFieldSigned" => AluOp::ExtractFieldSigned,
            "FFma" => AluOp::FFma,
            "FLog2" => AluOp::FLog2,
            "FSetGeAbs" => AluOp::FSetGeAbs,
            _ => continue,
        };
        let has_dst = tpl.operands.iter().any(|(_, o)| o == "dst");
        let a = AluInstr {
            op,
            dst: if has_dst { dst? } else { Scalar::Zero },
            srcs: srcs.into_iter().flatten().collect(),
            pred,
            exec: None,
            span: Default::default(),
            origin: Default::default(),
        };
        match encode(&a) {
            Ok(e) if e.word == word && text.is_none_or(|t| t == e.text) => return Some(a),
            _ => continue,
        }
    }
    None
}
