//! [`Codec::constants`](crate::isa::Codec::constants) for NVIDIA: the registers the stream
//! before each texture instruction set to a constant (`MOV32I R9, 0xe1` feeding `TEX.AOFFI`,
//! research §4), from instruction words (raw streams, cubins) and from listing text.
//!
//! The constant-setting instructions are the backend's own `Mov` templates
//! (`mappings/nvidia_alu.toml`): `MOV32I Rd, imm32`, and `MOV Rd, Rb` with Rb = RZ (0) or a
//! register holding a known constant, unpredicated. What every other instruction does to
//! registers is the `[stream]` table of the same file: control flow forgets everything, a
//! one-destination instruction forgets Rd, an instruction of no class forgets what it may
//! write (a word: Rd = bits 0..7 and the three registers after it; text: every register it
//! names and the three after each). A texture instruction forgets its destinations; a new
//! kernel (a label, a directive, a cubin section) forgets everything.

use std::sync::OnceLock;

use serde::Deserialize;

use super::alu::{alu_table, AluTemplate};
use super::control::{BUNDLE_WORDS, WORD_BYTES};
use super::listing::{is_instruction_line, lead_end, lone_hex};
use super::text::parse_reg;
use super::{NvidiaContainer, RZ};
use crate::ir::{AluOp, Item, Program, Reg, RegFile, Scalar};
use crate::isa::constants::Known;

#[derive(Debug, Deserialize)]
struct RawFile {
    stream: RawStream,
}

#[derive(Debug, Deserialize)]
struct RawStream {
    control_flow_words: Vec<[String; 2]>,
    single_dst_words: Vec<String>,
    no_write_words: Vec<String>,
    control_flow: Vec<String>,
    single_dst: Vec<String>,
    no_write: Vec<String>,
}

/// The `[stream]` table, resolved.
struct Stream {
    control_flow_words: Vec<(u64, u64)>,
    single_dst_words: Vec<u64>,
    no_write_words: Vec<u64>,
    control_flow: Vec<String>,
    single_dst: Vec<String>,
    no_write: Vec<String>,
}

/// Bits of the opcode in `single_dst_words`/`no_write_words` (the top 16).
const OPCODE_SHIFT: u32 = 48;

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16)
        .unwrap_or_else(|e| panic!("mappings/nvidia_alu.toml [stream]: `{s}` is not hex: {e}"))
}

fn stream() -> &'static Stream {
    static TABLE: OnceLock<Stream> = OnceLock::new();
    TABLE.get_or_init(|| {
        let raw: RawFile = crate::mappings::parse_table(
            "nvidia_alu.toml",
            include_str!("../../../mappings/nvidia_alu.toml"),
        );
        let s = raw.stream;
        Stream {
            control_flow_words: s
                .control_flow_words
                .iter()
                .map(|[m, v]| (hex(m), hex(v)))
                .collect(),
            single_dst_words: s.single_dst_words.iter().map(|o| hex(o)).collect(),
            no_write_words: s.no_write_words.iter().map(|o| hex(o)).collect(),
            control_flow: s.control_flow,
            single_dst: s.single_dst,
            no_write: s.no_write,
        }
    })
}

/// A `Mov` template: its word, the bits outside its operand and guard fields, and the
/// fields of Rd, the source and the guard.
struct MovForm {
    /// The mnemonic of its text (`MOV32I`, `MOV`).
    mnemonic: String,
    word: u64,
    opcode_mask: u64,
    rd: crate::isa::nvidia::table::Field,
    src: crate::isa::nvidia::table::Field,
    guard: crate::isa::nvidia::table::Field,
}

fn mov_form(tpl: &AluTemplate) -> MovForm {
    let fields = &alu_table().fields;
    let field = |operand: &str| {
        tpl.operands
            .iter()
            .find(|(_, o)| o == operand)
            .map(|(f, _)| fields[f])
            .unwrap_or_else(|| panic!("mappings/nvidia_alu.toml: Mov has no `{operand}`"))
    };
    let (rd, src, guard) = (field("dst"), field("src0"), fields["guard"]);
    MovForm {
        mnemonic: tpl
            .text
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string(),
        word: tpl.word,
        opcode_mask: !(rd.mask() | src.mask() | guard.mask()),
        rd,
        src,
        guard,
    }
}

/// The two `Mov` forms: of an immediate (`MOV32I`) and of a register (`MOV`).
fn mov_forms() -> &'static (MovForm, MovForm) {
    static FORMS: OnceLock<(MovForm, MovForm)> = OnceLock::new();
    FORMS.get_or_init(|| {
        let t = alu_table();
        let get = |src| {
            mov_form(
                t.template(AluOp::Mov, src, "reg")
                    .unwrap_or_else(|| panic!("mappings/nvidia_alu.toml: no Mov of `{src}`")),
            )
        };
        (get("imm"), get("reg"))
    })
}

/// The guard value of an unpredicated instruction (`PT`).
const GUARD_PT: u64 = 7;

/// The registers R0..R254 known to hold constants.
type Regs = Known<u8>;

/// Forgets `first` and, when `wide`, the three registers after it.
fn kill_from(known: &mut Regs, first: u8, wide: bool) {
    if first == RZ {
        return;
    }
    let last = if wide {
        first.saturating_add(3).min(RZ - 1)
    } else {
        first
    };
    known.kill_where(|r| (first..=last).contains(r));
}

/// `rd` gets `value` (the register RZ discards it); a predicated move only may.
fn assign(known: &mut Regs, rd: u8, value: Option<u32>, predicated: bool) {
    if rd == RZ {
        return;
    }
    match value {
        Some(v) if !predicated => known.set(rd, v),
        _ => known.kill(rd),
    }
}

/// What one non-texture instruction word does.
fn step_word(known: &mut Regs, word: u64) {
    let (imm, reg) = mov_forms();
    let rd = |f: &MovForm| f.rd.get(word) as u8;
    if word & imm.opcode_mask == imm.word & imm.opcode_mask {
        let predicated = imm.guard.get(word) != GUARD_PT;
        assign(known, rd(imm), Some(imm.src.get(word) as u32), predicated);
        return;
    }
    if word & reg.opcode_mask == reg.word & reg.opcode_mask {
        let predicated = reg.guard.get(word) != GUARD_PT;
        let src = reg.src.get(word) as u8;
        let value = if src == RZ { Some(0) } else { known.get(src) };
        assign(known, rd(reg), value, predicated);
        return;
    }
    let s = stream();
    if s.control_flow_words.iter().any(|(m, v)| word & m == v & m) {
        known.kill_all();
        return;
    }
    let opcode = word >> OPCODE_SHIFT;
    if s.no_write_words.contains(&opcode) {
        return;
    }
    let single = s.single_dst_words.contains(&opcode);
    kill_from(known, (word & 0xff) as u8, !single);
}

/// An `R#` operand, without `.CC`/`.reuse` suffixes, a negation or absolute bars.
fn operand_reg(op: &str) -> Option<u8> {
    let op = op.trim().trim_start_matches(['-', '!', '|', '~']);
    let op = op.split(['.', '|']).next().unwrap_or(op);
    parse_reg(op)
}

/// Every `R#` a piece of text names.
fn named_regs(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        let starts = c == b'R' && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts {
            continue;
        }
        let digits: String = text[i + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Some(r) = parse_reg(&format!("R{digits}")) {
            out.push(r);
        }
    }
    out
}

/// An immediate as nvdisasm prints one (`0xe1`, `-0x1`, `12`), as its low 32 bits.
fn parse_imm(s: &str) -> Option<u32> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => s.parse::<u64>().ok()?,
    };
    if v > u64::from(u32::MAX) {
        return None;
    }
    let v = v as u32;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// What one line of instruction text (without address, `{`, `;` or `}`) does. `false`: the
/// text is not an instruction.
fn step_text(known: &mut Regs, text: &str) -> bool {
    let text = text.trim();
    let (predicated, rest) = match text.strip_prefix('@') {
        Some(r) => {
            let (guard, rest) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
            (guard != "PT", rest.trim_start())
        }
        None => (false, text),
    };
    let (mnemonic, operands) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let base = mnemonic.split('.').next().unwrap_or(mnemonic);
    if base.is_empty()
        || !base.starts_with(|c: char| c.is_ascii_uppercase())
        || !base
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
    {
        return false;
    }
    let ops: Vec<&str> = operands
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    let (imm, reg) = mov_forms();
    let is_imm = mnemonic == imm.mnemonic;
    if ops.len() == 2 && (is_imm || mnemonic == reg.mnemonic) {
        if let Some(rd) = operand_reg(ops[0]).filter(|_| !ops[0].contains(['.', '|', '-'])) {
            let value = if is_imm {
                parse_imm(ops[1])
            } else {
                match parse_reg(ops[1]) {
                    Some(RZ) => Some(0),
                    Some(r) => known.get(r),
                    None => None,
                }
            };
            assign(known, rd, value, predicated);
            return true;
        }
    }
    let s = stream();
    let listed = |l: &[String]| l.iter().any(|m| m == base);
    if listed(&s.control_flow) {
        known.kill_all();
    } else if listed(&s.no_write) {
    } else if listed(&s.single_dst) {
        let wide = mnemonic.split('.').any(|m| m == "64" || m == "128");
        match ops.iter().find_map(|o| operand_reg(o)) {
            Some(rd) => kill_from(known, rd, wide),
            None => {
                for r in named_regs(operands) {
                    kill_from(known, r, true);
                }
            }
        }
    } else {
        for r in named_regs(operands) {
            kill_from(known, r, true);
        }
    }
    true
}

/// The instruction text of a listing line: after the address and a dual-issue `{`, up to
/// `;` or a closing `}`.
fn line_instruction(line: &str) -> &str {
    let body = &line[lead_end(line)..];
    let end = body.find([';', '}']).unwrap_or(body.len());
    let text = &body[..end];
    match super::listing::find_short(text, "/*") {
        Some(c) => &text[..c],
        None => text,
    }
}

/// What one opaque listing line does.
fn step_line(known: &mut Regs, line: &str) {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with("//") || lone_hex(line).is_some() {
        return;
    }
    let text = if is_instruction_line(line) {
        line_instruction(line)
    } else {
        // A bare instruction, perhaps with its encoding comment (`MOV32I R6, 0x0 ; /* 0x… */`).
        let t = trimmed.trim_start_matches('{');
        &t[..t.find([';', '}']).unwrap_or(t.len())]
    };
    if trimmed.ends_with(':') || trimmed.starts_with('.') || !step_text(known, text) {
        known.kill_all();
    }
}

/// The start of the stream (cubin section) holding byte `offset`, for a binary program.
fn stream_start(program: &Program, offset: usize) -> usize {
    match program.state.get::<NvidiaContainer>() {
        Some(NvidiaContainer::Cubin { sections, .. }) => sections
            .iter()
            .filter(|s| s.offset <= offset)
            .map(|s| s.offset)
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

/// For each texture instruction of `program`, the registers holding known constants.
pub fn constants(program: &Program) -> Vec<Vec<(Reg, u32)>> {
    let mut known = Regs::default();
    let mut out = Vec::new();
    let mut section = None;
    for item in &program.items {
        match item {
            Item::Tex(t) => {
                out.push(
                    known
                        .iter()
                        .map(|(r, v)| {
                            let reg = Reg {
                                file: RegFile::Temp,
                                index: u32::from(r),
                                sub: 0,
                            };
                            (reg, v)
                        })
                        .collect(),
                );
                for d in t.dsts() {
                    if let Scalar::Reg(Reg {
                        file: RegFile::Temp,
                        index,
                        ..
                    }) = d
                    {
                        if let Ok(r) = u8::try_from(index) {
                            known.kill(r);
                        }
                    }
                }
            }
            Item::Opaque(o) => step_opaque(&mut known, &mut section, program, o),
            // An ALU instruction the codec read back (`MOV32I R6, 0x0` with its encoding, a
            // word of a stream) steps as the instructions it was read from.
            Item::Alu(a) => match a.source(crate::ir::Isa::Nvidia) {
                Some(items) => {
                    for o in items {
                        step_opaque(&mut known, &mut section, program, o);
                    }
                }
                None => known.kill_all(),
            },
            Item::Comment(_) => known.kill_all(),
        }
    }
    out
}

/// One source item that is not a texture instruction: a listing line or a word (a control
/// word, slot 0 of a bundle, changes nothing; a new cubin section forgets every constant).
fn step_opaque(
    known: &mut Regs,
    section: &mut Option<usize>,
    program: &Program,
    o: &crate::ir::Opaque,
) {
    match &o.text {
        Some(line) => step_line(known, line),
        None => {
            let start = stream_start(program, o.span.offset);
            if *section != Some(start) {
                *section = Some(start);
                known.kill_all();
            }
            let Ok(bytes) = <[u8; WORD_BYTES]>::try_from(o.bytes.as_slice()) else {
                known.kill_all();
                return;
            };
            let slot = (o.span.offset - start) / WORD_BYTES % BUNDLE_WORDS;
            if slot != 0 {
                step_word(known, u64::from_le_bytes(bytes));
            }
        }
    }
}
