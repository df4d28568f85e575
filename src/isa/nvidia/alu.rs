//! The ALU instructions the backend emits ([`AluOp`] → one SM50 instruction), the kernel's
//! end (`EXIT`, `BRA`) and the scheduling rules: all data of `mappings/nvidia_alu.toml`,
//! learned from ptxas output and checked with nvdisasm.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::table::{Field, FieldName};
use super::text::{push_reg, TextOut};
use super::RZ;
use crate::error::{Error, Unsupported};
use crate::ir::{AluInstr, AluOp, Isa, RegFile, Scalar};
use crate::isa::text_out::{push_decimal, push_hex};

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
    /// The template resolved for encoding and lifting without looking names up.
    compiled: Compiled,
}

/// Which IR operand a template field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OperandRef {
    Dst,
    /// `src0`, `src1`, `src2`.
    Src(usize),
}

/// One operand field of a template, resolved at load.
#[derive(Clone, Copy, Debug)]
struct Slot {
    field: Field,
    operand: OperandRef,
    /// Whether it holds an immediate (`src` / `src1` is `imm`).
    imm: bool,
}

/// A piece of a template's text: literal text, or the operand of a slot.
#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    Operand(usize),
}

/// A template as [`encode`] and [`lift`] use it: its op, its operand slots (in the order of
/// `operands`), its text split at the `{field}` placeholders of those slots, and the mask of
/// its operand (and guard) fields.
#[derive(Clone, Debug)]
struct Compiled {
    op: AluOp,
    slots: Vec<Slot>,
    pieces: Vec<Piece>,
    mask: u64,
    has_dst: bool,
}

/// The [`AluOp`] a template's `op` names.
fn op_named(name: &str) -> Option<AluOp> {
    Some(match name {
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
        _ => return None,
    })
}

impl Compiled {
    fn new(
        op: &str,
        operands: &[(String, String)],
        text: &str,
        guarded: bool,
        imm: [bool; 2],
        fields: &BTreeMap<String, Field>,
    ) -> Compiled {
        let slots: Vec<Slot> = operands
            .iter()
            .map(|(f, o)| {
                let operand = match o.as_str() {
                    "dst" => OperandRef::Dst,
                    "src0" => OperandRef::Src(0),
                    "src1" => OperandRef::Src(1),
                    "src2" => OperandRef::Src(2),
                    other => panic!("mappings/nvidia_alu.toml: {op}: operand `{other}`"),
                };
                Slot {
                    field: fields[f],
                    operand,
                    imm: match operand {
                        OperandRef::Src(k) => imm.get(k).copied().unwrap_or(false),
                        OperandRef::Dst => false,
                    },
                }
            })
            .collect();
        // `{field}` of an operand field is its operand; anything else is text.
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            let hit = operands.iter().enumerate().find_map(|(k, (f, _))| {
                let tail = rest.strip_prefix('{')?.strip_prefix(f.as_str())?;
                Some((k, tail.strip_prefix('}')?))
            });
            match hit {
                Some((k, tail)) => {
                    if !literal.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Operand(k));
                    rest = tail;
                }
                None => {
                    let c = rest.chars().next().unwrap_or_default();
                    literal.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        assert!(
            slots.len() <= MAX_SLOTS,
            "mappings/nvidia_alu.toml: {op}: more than {MAX_SLOTS} operands"
        );
        let guard_mask = if guarded { fields["guard"].mask() } else { 0 };
        Compiled {
            op: op_named(op)
                .unwrap_or_else(|| panic!("mappings/nvidia_alu.toml: op `{op}` is no AluOp")),
            mask: slots.iter().fold(guard_mask, |m, s| m | s.field.mask()),
            has_dst: slots.iter().any(|s| s.operand == OperandRef::Dst),
            slots,
            pieces,
        }
    }
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
    /// The guard field (`fields.guard`).
    guard: Field,
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
                let operands: Vec<(String, String)> = i.operands.into_iter().collect();
                let src1 = i.src1.unwrap_or_else(|| "reg".to_string());
                let compiled = Compiled::new(
                    &i.op,
                    &operands,
                    &i.text,
                    i.guarded,
                    [i.src == "imm", src1 == "imm"],
                    &fields,
                );
                AluTemplate {
                    unit: match i.unit.as_str() {
                        "fixed" => Unit::Fixed,
                        "variable" => Unit::Variable,
                        u => panic!("mappings/nvidia_alu.toml: {}: unit `{u}`", i.op),
                    },
                    word: hex("word", &i.word),
                    op: i.op,
                    src: i.src,
                    src1,
                    imm_max: i.imm_max,
                    guarded: i.guarded,
                    stall: i.stall,
                    fence: i.fence,
                    text: i.text,
                    operands,
                    compiled,
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
            guard: fields["guard"],
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
        self.insts
            .iter()
            .find(|t| t.compiled.op == op && t.src == src && t.src1 == src1)
    }
}

/// The table, parsed on first use.
pub fn alu_table() -> &'static AluTable {
    static TABLE: OnceLock<AluTable> = OnceLock::new();
    TABLE.get_or_init(AluTable::load)
}

/// One encoded ALU instruction: its word, the registers it reads and writes (R0..R254 as
/// 0..254, predicates P0..P6 as 256..262), its unit, and what its nvdisasm text is printed
/// from ([`EncodedAlu::write_text`]).
#[derive(Clone, Debug)]
pub struct EncodedAlu {
    /// The word.
    pub word: u64,
    /// Registers read.
    pub reads: RegIds,
    /// Registers written.
    pub writes: RegIds,
    /// How its result becomes ready.
    pub unit: Unit,
    /// The stall ptxas gives it, when not the fixed-latency rule's.
    pub stall: Option<u32>,
    /// Whether it changes the active mask.
    pub fence: bool,
    /// The template's text pieces.
    pieces: &'static [Piece],
    /// Each slot's operand as printed.
    shown: [Shown; MAX_SLOTS],
    /// The guard (index, negated), if predicated.
    guard: Option<(u16, bool)>,
}

/// The most operand fields a template has.
const MAX_SLOTS: usize = 4;

/// An operand as nvdisasm prints it: a register (`R7`, `RZ`) or an immediate (`0x3e03`).
#[derive(Clone, Copy, Debug)]
enum Shown {
    Reg(u8),
    Imm(u64),
}

impl EncodedAlu {
    /// Appends nvdisasm's text, without ` ;` (`@!P0 MOV R1, R2`).
    pub fn write_text(&self, out: &mut (impl TextOut + ?Sized)) {
        if let Some((index, negate)) = self.guard {
            out.push_text(if negate { "@!P" } else { "@P" });
            push_decimal(out, u64::from(index));
            out.push_ascii(b' ');
        }
        for piece in self.pieces {
            match piece {
                Piece::Text(t) => out.push_text(t),
                Piece::Operand(k) => match self.shown[*k] {
                    Shown::Reg(r) => push_reg(out, r),
                    Shown::Imm(v) => push_hex(out, v),
                },
            }
        }
    }

    /// nvdisasm's text, without ` ;`.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write_text(&mut s);
        s
    }
}

/// Register ids an instruction reads or writes (R0..R254 as 0..254, predicates from 256,
/// [`pred_id`]), held inline: the backend's instructions have few.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegIds {
    len: usize,
    ids: [u16; RegIds::CAPACITY],
}

impl RegIds {
    /// The most ids held: a texture instruction reads two vectors of at most four registers
    /// and its predicate, an ALU instruction at most four operands and its guard.
    pub const CAPACITY: usize = 12;

    /// Adds `id`.
    pub fn push(&mut self, id: u16) {
        debug_assert!(
            self.len < Self::CAPACITY,
            "more register ids than an instruction has"
        );
        if let Some(slot) = self.ids.get_mut(self.len) {
            *slot = id;
            self.len += 1;
        }
    }

    /// Adds the registers of a vector of `len` registers from `base` (none when based at RZ).
    pub fn push_vector(&mut self, base: u8, len: usize) {
        if base != RZ {
            (0..len as u16).for_each(|i| self.push(u16::from(base) + i));
        }
    }
}

impl std::ops::Deref for RegIds {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        &self.ids[..self.len]
    }
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
    let c = &tpl.compiled;
    let mut word = tpl.word;
    let mut shown = [Shown::Reg(RZ); MAX_SLOTS];
    let mut reads = RegIds::default();
    let mut writes = RegIds::default();
    for (k, slot) in c.slots.iter().enumerate() {
        let f = slot.field;
        let name = |o: OperandRef| match o {
            OperandRef::Dst => "dst",
            OperandRef::Src(0) => "src0",
            OperandRef::Src(1) => "src1",
            OperandRef::Src(_) => "src2",
        };
        let operand = name(slot.operand);
        let scalar = match slot.operand {
            OperandRef::Dst => Some(a.dst),
            OperandRef::Src(i) => a.srcs.get(i).copied(),
        }
        .ok_or_else(|| refuse(a, format!("it needs an operand `{operand}`")))?;
        let (value, show) = match scalar {
            // Only the templates that say so take an immediate (MOV32I, SHFL's lane, MOV's
            // lane mask): an immediate anywhere else would be truncated into a register field.
            Scalar::Imm(_) if !slot.imm => {
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
                (v, Shown::Imm(v))
            }
            s => {
                let r = register(a, s, operand)?;
                if r != RZ {
                    if slot.operand == OperandRef::Dst {
                        writes.push(u16::from(r));
                    } else {
                        reads.push(u16::from(r));
                    }
                }
                (u64::from(r), Shown::Reg(r))
            }
        };
        f.put(&mut word, value);
        shown[k] = show;
    }
    let expected = c
        .slots
        .iter()
        .filter(|s| s.operand != OperandRef::Dst)
        .count();
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
    let mut guard = None;
    if let Some(p) = a.pred {
        if !tpl.guarded {
            return Err(refuse(a, "it takes no guard".to_string()));
        }
        if p.index > 6 {
            return Err(refuse(a, format!("its guard P{} does not exist", p.index)));
        }
        table
            .guard
            .put(&mut word, u64::from(p.index) | if p.negate { 8 } else { 0 });
        guard = Some((p.index, p.negate));
        reads.push(pred_id(p.index));
    }
    Ok(EncodedAlu {
        word,
        reads,
        writes,
        unit: tpl.unit,
        stall: tpl.stall,
        fence: tpl.fence,
        pieces: &c.pieces,
        shown,
        guard,
    })
}

/// The [`AluInstr`] whose encoding ([`encode`]) is exactly `word` and, when `text` is given,
/// whose nvdisasm text (without ` ;`) is `text`; `None` for every other word.
pub fn lift(word: u64, text: Option<&str>) -> Option<AluInstr> {
    let table = alu_table();
    for tpl in &table.insts {
        let c = &tpl.compiled;
        if word & !c.mask != tpl.word & !c.mask {
            continue;
        }
        let mut dst = None;
        let mut srcs = [None, None, None];
        for slot in &c.slots {
            let value = slot.field.get(word);
            let scalar = if slot.imm {
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
            match slot.operand {
                OperandRef::Dst => dst = Some(scalar),
                OperandRef::Src(k) => srcs[k] = Some(scalar),
            }
        }
        let g = if tpl.guarded {
            table.guard.get(word) as u16
        } else {
            7
        };
        let pred = (g != 7).then_some(crate::ir::Pred {
            index: g & 7,
            negate: g & 8 != 0,
        });
        let a = AluInstr {
            op: c.op,
            dst: if c.has_dst { dst? } else { Scalar::Zero },
            srcs: srcs.into_iter().flatten().collect(),
            pred,
            exec: None,
            span: Default::default(),
            origin: Default::default(),
        };
        // The round trip decides: the word must encode back exactly (a guard of PT with the
        // negation bit, an immediate past `imm_max`, a form `encode` picks differently all
        // fail), and the text must be the one printed.
        match encode(&a) {
            Ok(e) if e.word == word && text.is_none_or(|t| e.text_is(t)) => return Some(a),
            _ => continue,
        }
    }
    None
}

/// Text compared as it is printed ([`EncodedAlu::text_is`]): each piece must continue `rest`.
struct Expect<'a> {
    rest: &'a str,
    len: usize,
    same: bool,
}

impl TextOut for Expect<'_> {
    fn push_text(&mut self, s: &str) {
        self.len += s.len();
        match self.rest.strip_prefix(s) {
            Some(rest) if self.same => self.rest = rest,
            _ => self.same = false,
        }
    }
    fn push_ascii(&mut self, b: u8) {
        let mut buf = [0u8; 4];
        self.push_text(char::from(b).encode_utf8(&mut buf));
    }
    fn text_len(&self) -> usize {
        self.len
    }
    fn overwrite_ascii(&mut self, _at: usize, _ascii: &[u8]) {
        // Printed text is compared as it comes: a rewrite cannot be checked.
        self.same = false;
    }
}

impl EncodedAlu {
    /// Whether its text is `text` ([`EncodedAlu::text`] without building it).
    pub fn text_is(&self, text: &str) -> bool {
        let mut e = Expect {
            rest: text,
            len: 0,
            same: true,
        };
        self.write_text(&mut e);
        e.same && e.rest.is_empty()
    }
}
