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
    Field {
        name: FieldName::Target,
        lo,
        width,
    }
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

    /// The template of `op` for a source of kind `src` (`reg`, `imm`).
    pub fn template(&self, op: AluOp, src: &str) -> Option<&AluTemplate> {
        let name = format!("{op:?}");
        self.insts.iter().find(|t| t.op == name && t.src == src)
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
    let src_kind = match a.srcs.first() {
        Some(Scalar::Imm(_)) => "imm",
        _ => "reg",
    };
    let tpl = table.template(a.op, src_kind).ok_or_else(|| {
        refuse(
            a,
            format!(
                "SM50 has no single-instruction form of it with {} source here",
                if src_kind == "imm" {
                    "an immediate"
                } else {
                    "a register"
                }
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
            other => panic!("mappings/nvidia_alu.toml: operand `{other}`"),
        }
        .ok_or_else(|| refuse(a, format!("it needs an operand `{operand}`")))?;
        let (value, shown) = match scalar {
            // Only a move has an immediate form (MOV32I): an immediate anywhere else would be
            // truncated into a register field.
            Scalar::Imm(_) if src_kind != "imm" || operand != "src0" => {
                return Err(refuse(
                    a,
                    format!("its {operand} is an immediate, which only MOV32I takes: move it into a register first"),
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
    if let Some(p) = a.pred {
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
    })
}

/// The [`AluInstr`] whose encoding ([`encode`]) is exactly `word` and, when `text` is given,
/// whose nvdisasm text (without ` ;`) is `text`; `None` for every other word.
pub fn lift(word: u64, text: Option<&str>) -> Option<AluInstr> {
    let table = alu_table();
    let guard = table.fields["guard"];
    for tpl in &table.insts {
        let mask = tpl
            .operands
            .iter()
            .fold(guard.mask(), |m, (f, _)| m | table.fields[f].mask());
        if word & !mask != tpl.word & !mask {
            continue;
        }
        let mut dst = None;
        let mut srcs = [None, None];
        for (field, operand) in &tpl.operands {
            let value = table.fields[field].get(word);
            let scalar = if tpl.src == "imm" && operand == "src0" {
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
                _ => srcs[1] = Some(scalar),
            }
        }
        let g = guard.get(word) as u16;
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
            _ => continue,
        };
        let a = AluInstr {
            op,
            dst: dst?,
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
