//! Backend: a whole NVIDIA (SM50) kernel built from target-ready IR (docs/translation.md).
//!
//! Texture instructions are emitted in their long forms (TEX, TLD, TLD4, TXD, TMML, TXQ;
//! `.B` for a handle) by [`super::emit_inst`], ALU instructions by [`super::alu`] (one SM50
//! instruction per [`crate::ir::AluOp`], `mappings/nvidia_alu.toml`), and the kernel ends as
//! ptxas ends every kernel: `EXIT`, then a `BRA` to itself. Instructions fill bundles of three
//! behind a control word, the last bundle padded with `NOP`.
//!
//! **Control words** (research §6, §7; rules in `[schedule]` of `mappings/nvidia_alu.toml`):
//! - Consecutive texture ops without a register conflict form a batch, as ptxas batches
//!   them: all but the last get phase `.T` and no barrier, the last `.P` and a write barrier
//!   (5 first, as ptxas) that covers the whole batch.
//! - Conversions, `MUFU` and `SHFL` are variable latency: each sets a write barrier (0
//!   first).
//! - `SAM` and `RAM` change the active mask: like `EXIT`, they wait on every barrier still
//!   pending (ptxas waits on all of them before `RAM`), and get ptxas's stall of 13.
//! - An instruction that reads a pending result, or writes a register a pending instruction
//!   reads or writes, waits on that barrier (the WAR case waits on the write barrier, which
//!   clears after the sources were read: no read barriers are used). `EXIT` waits on every
//!   barrier still pending, so results nothing reads are complete when the kernel ends.
//! - Fixed-latency results are read no sooner than `fixed_latency` cycles after their
//!   instruction issues, and a barrier is waited on no sooner than ptxas does: the stall of
//!   the previous instruction grows to cover both. Every instruction has yield set and stall
//!   at least 1; `EXIT` and `BRA` stall 15, as in ptxas output.
//!
//! The result is a [`Program`] in the form of a parsed nvdisasm listing: a label, each
//! bundle's control word as a lone `/* 0x… */` line, texture instructions as
//! [`Item::Tex`] with their listing layout and phase, everything else as opaque lines with
//! their encodings, and the IR's comments as `//` lines. So [`super::print_text`] writes the
//! listing, [`super::encode_binary`] the raw word stream, and [`super::parse_text`] reads the
//! listing back. A translation takes the listing's text or words from [`emit_output`], which
//! writes them as it lays the kernel out (each instruction printed once, from the
//! instruction and word it emitted), rather than reading the program back.

use super::alu::{self, alu_table, pred_id, RegIds, Unit};
use super::control::BUNDLE_WORDS;
use super::inst::{NvInst, RZ};
use super::listing::push_spaces;
use super::packing::{dst_channels, param_counts};
use super::table::table;
use super::text::write_inst;
use super::{ListingLine, NvidiaContainer, NvidiaExtras};
use crate::error::{Error, Location, Unsupported, ValidationError};
use crate::ir::{Comment, Isa, Item, Opaque, Origin, Program, RegFile, Scalar, Span, TexInstr};
use crate::isa::text_out::{push_hex16, push_hex_digits};
use crate::isa::{EmitOptions, Form};
use std::borrow::Cow;

/// Spaces between an address `/*0008*/` and the instruction, as nvdisasm prints them.
const LEAD_GAP: usize = 19;
/// Columns before the instruction text: 8 spaces, `/*0008*/`, the gap.
const TEXT_COLUMN: usize = 8 + 8 + LEAD_GAP;

/// What an emitted instruction is.
#[derive(Clone, Debug)]
enum Body {
    Tex(Box<TexInstr>, NvInst),
    /// Boxed: an ALU encoding (its operands as printed) is 168 bytes, three times the rest,
    /// and the kernel holds every instruction until it is laid out.
    Alu(Box<alu::EncodedAlu>),
    Exit,
    Bra,
}

/// One emitted instruction with its dependencies and, after [`schedule`], its control field.
#[derive(Clone, Debug)]
struct Instr {
    body: Body,
    word: u64,
    reads: RegIds,
    writes: RegIds,
    comments: Vec<Comment>,
    phase: u8,
    stall: u32,
    wait: u8,
    barrier: Option<u8>,
    /// The stall ptxas gives it (`SAM`, `RAM`), when not the rule's.
    fixed_stall: Option<u32>,
    /// It changes the active mask: every pending barrier is waited on first.
    fence: bool,
}

impl Instr {
    fn new(body: Body, word: u64, reads: RegIds, writes: RegIds) -> Instr {
        Instr {
            body,
            word,
            reads,
            writes,
            comments: Vec::new(),
            phase: 0,
            stall: 0,
            wait: 0,
            barrier: None,
            fixed_stall: None,
            fence: false,
        }
    }

    fn is_tex(&self) -> bool {
        matches!(self.body, Body::Tex(..))
    }

    /// Its unit: texture ops and conversions are variable latency.
    fn unit(&self) -> Option<Unit> {
        match &self.body {
            Body::Tex(..) => Some(Unit::Variable),
            Body::Alu(_) => None,
            Body::Exit | Body::Bra => Some(Unit::Fixed),
        }
    }
}

fn invalid(t: &TexInstr, rule: &'static str, detail: String) -> Error {
    Error::Validation(ValidationError {
        location: Location::from_span(t.span, t.span.line > 0),
        rule,
        detail,
    })
}

/// A texture instruction as its long form, its registers checked for alignment.
fn tex_instr(mut t: Box<TexInstr>) -> Result<Instr, Error> {
    t.origin = Origin::SYNTHETIC;
    // Refuses non-consecutive vectors and registers past R254 (typed validation errors).
    let (inst, word) = super::emit_inst(&t)?;
    let (ra, rb) = param_counts(&inst).ok_or_else(|| {
        invalid(
            &t,
            "operands",
            format!("{} has no packing", inst.op.mnemonic()),
        )
    })?;
    let rd_len = dst_channels(&inst).count();
    for (name, base, len) in [
        ("Ra", inst.ra, ra),
        ("Rb", inst.rb, rb),
        ("Rd", inst.rd, rd_len),
    ] {
        if base == RZ || len == 0 {
            continue;
        }
        let align = table().vector_align(len).ok_or_else(|| {
            invalid(
                &t,
                "register alignment",
                format!("{name} holds {len} registers; at most 4"),
            )
        })?;
        if u32::from(base) % align != 0 {
            return Err(invalid(
                &t,
                "register alignment",
                format!(
                    "{name} R{base}..R{} ({len} registers) must start at a multiple of {align} \
                     (seeds/nvidia-TEX.txt alignment restrictions)",
                    u32::from(base) + len as u32 - 1
                ),
            ));
        }
        if u32::from(base) + len as u32 > u32::from(RZ) {
            return Err(invalid(
                &t,
                "registers",
                format!("{name} R{base}.. runs past R254"),
            ));
        }
    }
    let mut reads = RegIds::default();
    reads.push_vector(inst.ra, ra);
    reads.push_vector(inst.rb, rb);
    let mut writes = RegIds::default();
    writes.push_vector(inst.rd, rd_len);
    if let Some(p) = t.pred {
        reads.push(pred_id(p.index));
    }
    if let Some(Scalar::Reg(r)) = t.status_dst {
        if r.file == RegFile::Predicate {
            writes.push(pred_id(r.index as u16));
        }
    }
    Ok(Instr::new(Body::Tex(t, inst), word, reads, writes))
}

/// Builds a whole kernel from target-ready IR `ir` ([`Codec::emit`](crate::isa::Codec::emit);
/// see the module doc; an owned IR's instructions move into the kernel, the rest is freed
/// before the kernel is laid out), and, when `form` asks for text or binary, the
/// kernel's bytes in it: written as the kernel is laid out, byte for byte what
/// [`super::print_text`] and [`super::encode_binary`] write of the program (`None` for any
/// other form).
pub fn emit_output(
    ir: Cow<'_, Program>,
    options: &EmitOptions,
    form: Option<Form>,
) -> Result<(Program, Option<Vec<u8>>), Error> {
    let source_isa = ir.isa;
    let items = Program::items_of(ir);
    let mut list: Vec<Instr> = Vec::with_capacity(items.size_hint().0 + 2);
    let mut comments: Vec<Comment> = Vec::new();
    for item in items {
        // Borrowed (the IR kept for a Report): each item is copied into the kernel.
        let mut instr = match item.into_owned() {
            Item::Comment(c) => {
                comments.push(c);
                continue;
            }
            Item::Tex(t) => tex_instr(t)?,
            Item::Alu(a) => {
                let e = alu::encode(&a)?;
                let (word, reads, writes) = (e.word, e.reads, e.writes);
                let (barrier, fixed_stall, fence) =
                    ((e.unit == Unit::Variable).then_some(0), e.stall, e.fence);
                let mut i = Instr::new(Body::Alu(Box::new(e)), word, reads, writes);
                i.barrier = barrier;
                i.fixed_stall = fixed_stall;
                i.fence = fence;
                i
            }
            Item::Opaque(o) => {
                return Err(Error::Unsupported(Unsupported::new(
                    format!(
                        "the opaque item `{}`",
                        o.text.unwrap_or_else(|| format!("{:02x?}", o.bytes))
                    ),
                    source_isa,
                    Isa::Nvidia,
                    "target-ready IR holds texture, ALU and comment items only",
                )))
            }
        };
        instr.comments = std::mem::take(&mut comments);
        list.push(instr);
    }
    let end = &alu_table().end;
    let mut exit = Instr::new(Body::Exit, end.exit, RegIds::default(), RegIds::default());
    exit.comments = comments;
    list.push(exit);
    let bra_slot = list.len() % (BUNDLE_WORDS - 1) + 1;
    let mut bra = end.bra;
    let offset = if bra_slot == 1 {
        end.bra_self_slot1
    } else {
        end.bra_self_other
    };
    end.bra_offset.put(&mut bra, offset as u64);
    list.push(Instr::new(
        Body::Bra,
        bra,
        RegIds::default(),
        RegIds::default(),
    ));
    schedule(&mut list);
    Ok(layout(list, options, form))
}

/// A set of the register ids the scheduler tracks (R0..R254 as 0..254, predicates from 256,
/// [`pred_id`]): a bitset over the ids below 512, any other id in a short list, so membership
/// is exact for every id without hashing.
#[derive(Clone, Default)]
struct RegSet {
    low: [u64; 8],
    high: Vec<u16>,
}

impl RegSet {
    fn insert(&mut self, r: u16) {
        match self.low.get_mut(usize::from(r) / 64) {
            Some(w) => *w |= 1 << (r % 64),
            None if !self.high.contains(&r) => self.high.push(r),
            None => {}
        }
    }

    fn contains(&self, r: u16) -> bool {
        match self.low.get(usize::from(r) / 64) {
            Some(w) => w & (1 << (r % 64)) != 0,
            None => self.high.contains(&r),
        }
    }

    fn of(regs: &[u16]) -> RegSet {
        let mut set = RegSet::default();
        set.extend(regs);
        set
    }

    fn extend(&mut self, regs: &[u16]) {
        regs.iter().for_each(|&r| self.insert(r));
    }
}

/// Sets phases, barriers, wait masks and stalls (see the module doc).
fn schedule(list: &mut [Instr]) {
    let s = &alu_table().schedule;
    let n = list.len();
    // Texture batches: `.T` members, closed by a `.P`.
    let mut i = 0;
    while i < n {
        if !list[i].is_tex() {
            i += 1;
            continue;
        }
        let mut reads = RegSet::of(&list[i].reads);
        let mut writes = RegSet::of(&list[i].writes);
        let mut j = i;
        while j + 1 < n && list[j + 1].is_tex() && j + 1 - i < s.tex_batch_max {
            let next = &list[j + 1];
            let conflict = next.reads.iter().any(|&r| writes.contains(r))
                || next
                    .writes
                    .iter()
                    .any(|&w| writes.contains(w) || reads.contains(w));
            if conflict {
                break;
            }
            reads.extend(&next.reads);
            writes.extend(&next.writes);
            j += 1;
        }
        for k in &mut list[i..j] {
            k.phase = 1;
        }
        list[j].phase = 2;
        i = j + 1;
    }
    // Barriers, waits and stalls.
    struct Pending {
        reads: RegSet,
        writes: RegSet,
        set_at: usize,
        cycles: u32,
    }
    let mut bars: Vec<Option<Pending>> = (0..6).map(|_| None).collect();
    let mut batch_reads = RegSet::default();
    let mut batch_writes = RegSet::default();
    let mut fixed_writer: crate::hash::FastMap<u16, usize> = Default::default();
    let mut cycle = vec![0u32; n];
    for i in 0..n {
        if i > 0 {
            cycle[i] = cycle[i - 1] + list[i - 1].stall;
        }
        let is_end = matches!(list[i].body, Body::Exit) || list[i].fence;
        let mut wait = 0u8;
        for (b, p) in bars.iter().enumerate() {
            let Some(p) = p else { continue };
            let hit = list[i].reads.iter().any(|&r| p.writes.contains(r))
                || list[i]
                    .writes
                    .iter()
                    .any(|&w| p.writes.contains(w) || p.reads.contains(w));
            if hit || is_end {
                wait |= 1 << b;
            }
        }
        let (sets, order, cycles) = match list[i].unit() {
            Some(Unit::Variable) if list[i].phase == 2 => {
                (true, &s.tex_barriers, s.tex_wait_cycles)
            }
            Some(_) => (false, &s.tex_barriers, 0),
            // ALU: `barrier` marks a variable-latency op (set by emit_output).
            None => (
                list[i].barrier.is_some() && !list[i].writes.is_empty(),
                &s.alu_barriers,
                s.alu_wait_cycles,
            ),
        };
        let mut barrier = None;
        if sets {
            let free = order
                .iter()
                .copied()
                .find(|&b| bars[b as usize].is_none() || wait & (1 << b) != 0);
            let b = free.unwrap_or_else(|| {
                let oldest = order
                    .iter()
                    .copied()
                    .min_by_key(|&b| bars[b as usize].as_ref().map_or(usize::MAX, |p| p.set_at))
                    .unwrap_or(order[0]);
                wait |= 1 << oldest;
                oldest
            });
            barrier = Some(b);
        }
        let mut need = cycle[i];
        for (b, slot) in bars.iter_mut().enumerate() {
            if wait & (1 << b) != 0 {
                if let Some(p) = slot.take() {
                    need = need.max(cycle[p.set_at] + p.cycles);
                }
            }
        }
        for r in list[i].reads.iter() {
            if let Some(&p) = fixed_writer.get(r) {
                need = need.max(cycle[p] + s.fixed_latency);
            }
        }
        if need > cycle[i] && i > 0 {
            let prev = &mut list[i - 1];
            prev.stall = (prev.stall + need - cycle[i]).min(15);
            cycle[i] = cycle[i - 1] + prev.stall;
        }
        for w in list[i].writes.iter() {
            fixed_writer.remove(w);
        }
        let fixed_alu = matches!(list[i].body, Body::Alu(_)) && list[i].barrier.is_none();
        if fixed_alu {
            for w in list[i].writes.iter() {
                fixed_writer.insert(*w, i);
            }
        }
        if list[i].is_tex() {
            batch_reads.extend(&list[i].reads);
            batch_writes.extend(&list[i].writes);
        }
        if let Some(b) = barrier {
            let mut reads = std::mem::take(&mut batch_reads);
            let mut writes = std::mem::take(&mut batch_writes);
            reads.extend(&list[i].reads);
            writes.extend(&list[i].writes);
            bars[b as usize] = Some(Pending {
                reads,
                writes,
                set_at: i,
                cycles,
            });
        }
        let instr = &mut list[i];
        instr.wait = wait;
        instr.barrier = barrier;
        instr.stall = match instr.body {
            Body::Exit | Body::Bra => s.end_stall,
            _ => instr.fixed_stall.unwrap_or(s.min_stall),
        };
    }
}

/// The 21-bit control field of an instruction.
fn control_field(i: &Instr) -> u64 {
    let c = &table().control;
    let s = &alu_table().schedule;
    let mut f = 0u64;
    c.stall.put(&mut f, u64::from(i.stall));
    c.yield_.put(&mut f, s.yield_);
    c.write_barrier
        .put(&mut f, u64::from(i.barrier.unwrap_or(c.no_barrier)));
    c.read_barrier.put(&mut f, u64::from(c.no_barrier));
    c.wait.put(&mut f, u64::from(i.wait));
    c.phase.put(&mut f, u64::from(i.phase));
    f
}

/// Appends the lead of the instruction at `address`: indentation, `/*<address>*/`, the gap.
fn push_lead(out: &mut String, address: usize) {
    out.push_str("        /*");
    push_hex_digits(out, address as u64, 4);
    out.push_str("*/");
    push_spaces(out, LEAD_GAP);
}

/// Appends ` ;`, padding to `column` (at least one space) and the encoding comment of `word`:
/// the rest of an instruction line that started at `line_start`.
fn push_line_end(out: &mut String, line_start: usize, column: usize, word: u64) {
    out.push_str(" ;");
    let pad = column.saturating_sub(out.len() - line_start).max(1);
    push_spaces(out, pad);
    push_hex_comment(out, word);
}

/// Appends `/* 0x<16 hex> */`.
fn push_hex_comment(out: &mut String, word: u64) {
    out.push_str("/* ");
    push_hex16(out, word);
    out.push_str(" */");
}

/// Where the laid-out kernel goes: the listing program, and its bytes when asked for (the
/// listing's text, or its words). Every line of the program that is not a texture
/// instruction is an opaque line, written once into the text (or a scratch line) and
/// copied into the program from there.
struct Sink {
    program: Program,
    form: Option<Form>,
    /// The listing's text ([`Form::Text`]) or one line ([`Form::Binary`], none).
    text: String,
    /// The words ([`Form::Binary`]).
    bytes: Vec<u8>,
}

impl Sink {
    /// Appends an opaque line that `write` writes.
    fn line(&mut self, write: impl FnOnce(&mut String)) {
        let start = match self.form {
            Some(Form::Text) => self.text.len(),
            _ => {
                self.text.clear();
                0
            }
        };
        write(&mut self.text);
        self.program.items.push(Item::Opaque(Opaque {
            text: Some(self.text[start..].to_string()),
            bytes: Vec::new(),
            span: Span::default(),
        }));
        self.end_line();
    }

    /// Ends a line of the listing's text.
    fn end_line(&mut self) {
        if self.form == Some(Form::Text) {
            self.text.push('\n');
        }
    }

    /// Appends a word of the kernel's binary.
    fn word(&mut self, word: u64) {
        if self.form == Some(Form::Binary) {
            self.bytes.extend_from_slice(&word.to_le_bytes());
        }
    }
}

/// The listing program: bundles of three instructions behind their control word.
fn layout(
    list: Vec<Instr>,
    options: &EmitOptions,
    form: Option<Form>,
) -> (Program, Option<Vec<u8>>) {
    let end = &alu_table().end;
    let slots = BUNDLE_WORDS - 1;
    // Every instruction's text, printed once: its width sets the encoding column.
    let mut texts = String::new();
    let mut text_ends = Vec::with_capacity(list.len());
    for (k, i) in list.iter().enumerate() {
        match &i.body {
            Body::Tex(_, inst) => {
                let mut inst = inst.clone();
                inst.phase = i.phase;
                write_inst(&mut texts, &inst);
            }
            Body::Alu(e) => e.write_text(&mut texts),
            Body::Exit => texts.push_str(&end.exit_text),
            Body::Bra => {
                // The target: relative to the next word (research corpus; see the TOML).
                let address = (k / slots * BUNDLE_WORDS + k % slots + 1) * 8;
                let offset = end.bra_offset.get(i.word) as i64;
                let offset = (offset << 40) >> 40;
                let target = address as i64 + 8 + offset;
                texts.push_str(&end.bra_text.replace("{target}", &format!("{target:#x}")));
            }
        }
        text_ends.push(texts.len());
    }
    let text_of = |k: usize| &texts[if k == 0 { 0 } else { text_ends[k - 1] }..text_ends[k]];
    let widest = (0..list.len()).map(|k| text_of(k).len()).max().unwrap_or(0);
    let column = TEXT_COLUMN + widest + 2 + 2;
    let name = options.name.as_deref().unwrap_or("texlate");
    let lines = list.len() / slots * (slots + 2) + list.len() + 2;
    let mut sink = Sink {
        program: Program::new(Isa::Nvidia),
        form,
        text: String::with_capacity(match form {
            Some(Form::Text) => lines * (column + 24),
            _ => column + 24,
        }),
        bytes: Vec::with_capacity(match form {
            Some(Form::Binary) => list.len().div_ceil(slots) * BUNDLE_WORDS * 8,
            _ => 0,
        }),
    };
    sink.program.items.reserve(lines);
    sink.line(|out| {
        out.push_str(".text.");
        out.push_str(name);
        out.push(':');
    });
    let nop = table().control.nop;
    let nop_field = table().control.default_field;
    let width = table().control.slot_width;
    let mut list = list.into_iter().enumerate().peekable();
    let mut bundle = 0usize;
    while list.peek().is_some() {
        let chunk: Vec<(usize, Instr)> = list.by_ref().take(slots).collect();
        let filled = chunk.len();
        let mut ctrl = 0u64;
        for k in 0..slots {
            let field = chunk.get(k).map_or(nop_field, |(_, i)| control_field(i));
            ctrl |= field << (width * k as u32);
        }
        let base = bundle * BUNDLE_WORDS * 8;
        for (k, (index, instr)) in chunk.into_iter().enumerate() {
            let address = base + (k + 1) * 8;
            for c in instr.comments {
                if sink.form == Some(Form::Text) {
                    crate::isa::push_comment_line(&mut sink.text, &c.text);
                    sink.end_line();
                }
                sink.program.items.push(Item::Comment(c));
            }
            if k == 0 {
                sink.line(|out| {
                    push_spaces(out, column);
                    push_hex_comment(out, ctrl);
                });
                sink.word(ctrl);
            }
            let text = text_of(index);
            match instr.body {
                Body::Tex(mut t, inst) => {
                    let mut lead = String::with_capacity(16 + LEAD_GAP);
                    push_lead(&mut lead, address);
                    if sink.form == Some(Form::Text) {
                        let start = sink.text.len();
                        sink.text.push_str(&lead);
                        sink.text.push_str(text);
                        push_line_end(&mut sink.text, start, column, instr.word);
                        sink.end_line();
                    }
                    let mut x = NvidiaExtras::empty();
                    x.op = inst.op;
                    x.bindless = inst.bindless;
                    x.query = inst.query;
                    x.phase = instr.phase;
                    x.listing = Some(ListingLine {
                        lead,
                        gap: " ".to_string(),
                        terminator: ";".to_string(),
                        hex_column: Some(column),
                        hex_next_line: None,
                        trailing: String::new(),
                    });
                    t.origin = Origin::new(x);
                    sink.program.items.push(Item::Tex(t));
                }
                _ => sink.line(|out| {
                    let start = out.len();
                    push_lead(out, address);
                    out.push_str(text);
                    push_line_end(out, start, column, instr.word);
                }),
            }
            sink.word(instr.word);
        }
        for k in filled..slots {
            let address = base + (k + 1) * 8;
            sink.line(|out| {
                let start = out.len();
                push_lead(out, address);
                out.push_str(&end.nop_text);
                push_line_end(out, start, column, nop);
            });
            sink.word(nop);
        }
        bundle += 1;
    }
    sink.program.state = Origin::new(NvidiaContainer::Listing {
        crlf: false,
        final_newline: true,
    });
    let bytes = match form {
        Some(Form::Text) => Some(sink.text.into_bytes()),
        Some(Form::Binary) => Some(sink.bytes),
        _ => None,
    };
    (sink.program, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{AluInstr, AluOp, Dim, Dimension, Lod, Reg, ResRef, TexOp};
    use crate::isa::nvidia::packing::{dst_layout, params};
    use crate::isa::nvidia::{decode_binary, decode_word, encode_binary};

    /// The kernel the backend builds from `ir`.
    fn emit_program(ir: &Program, options: &EmitOptions) -> Result<Program, Error> {
        crate::isa::codec(Isa::Nvidia).emit(ir, options)
    }

    /// The registers of a vector of `len` registers from `base` (none when based at RZ).
    fn vector(base: u8, len: usize) -> Vec<u16> {
        if base == RZ {
            return Vec::new();
        }
        (0..len as u16).map(|i| u16::from(base) + i).collect()
    }

    fn r(i: u32) -> Scalar {
        Scalar::Reg(Reg {
            file: RegFile::Temp,
            index: i,
            sub: 0,
        })
    }

    fn tex(coord: [u32; 2], dst: u32) -> Item {
        let mut t = TexInstr::new(TexOp::Sample, ResRef::Binding(0x6e), Origin::SYNTHETIC);
        t.dim = Dimension::Known {
            dim: Dim::D2,
            arrayed: false,
            multisampled: false,
        };
        t.lod = Lod::Zero;
        t.coord = coord.iter().map(|c| r(*c)).collect();
        t.dst = [
            Some(r(dst)),
            Some(r(dst + 1)),
            Some(r(dst + 2)),
            Some(r(dst + 3)),
        ];
        Item::Tex(Box::new(t))
    }

    fn alu(op: AluOp, dst: u32, srcs: &[u32]) -> Item {
        Item::Alu(Box::new(AluInstr {
            op,
            dst: r(dst),
            srcs: srcs.iter().map(|s| r(*s)).collect(),
            pred: None,
            exec: None,
            span: Span::default(),
            origin: Default::default(),
        }))
    }

    /// The registers a word reads and writes, decoded independently of the emitter: texture
    /// words through the decoder and the packing tables, ALU words through their template's
    /// operand fields.
    fn regs_of(word: u64) -> (Vec<u16>, Vec<u16>, bool) {
        if let Some(inst) = decode_word(word).unwrap() {
            let (ra, rb) = params(&inst).unwrap();
            let mut reads = vector(inst.ra, ra.len());
            reads.extend(vector(inst.rb, rb.len()));
            return (reads, vector(inst.rd, dst_layout(&inst).len()), true);
        }
        let t = alu_table();
        for tpl in &t.insts {
            let mask = tpl
                .operands
                .iter()
                .fold(0u64, |m, (f, _)| m | t.fields[f].mask());
            if word & !mask == tpl.word {
                let mut reads = Vec::new();
                let mut writes = Vec::new();
                for (f, o) in &tpl.operands {
                    let v = t.fields[f].get(word);
                    if f == "imm32" || v == u64::from(RZ) {
                        continue;
                    }
                    if o == "dst" {
                        writes.push(v as u16);
                    } else {
                        reads.push(v as u16);
                    }
                }
                return (reads, writes, false);
            }
        }
        (Vec::new(), Vec::new(), false)
    }

    /// Decodes every control word of the stream and checks: each texture op's barrier (its
    /// own `.P`, or its batch's) is waited on, before or at the first later instruction that
    /// touches its destinations, or at EXIT; a `.T` op's results are not touched before its
    /// batch's `.P`.
    fn check_barriers(program: &Program) {
        let bytes = encode_binary(program).unwrap();
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let c = &table().control;
        let mut seq = Vec::new(); // (word, field)
        for b in words.chunks(4) {
            for k in 1..4 {
                let f = (b[0] >> (c.slot_width * (k as u32 - 1))) & ((1 << c.slot_width) - 1);
                seq.push((b[k], f));
            }
        }
        let exit = alu_table().end.exit;
        let exit_at = seq.iter().position(|(w, _)| *w == exit).unwrap();
        let mut checked = 0;
        for (i, (w, f)) in seq.iter().enumerate() {
            let (_, writes, is_tex) = regs_of(*w);
            if !is_tex {
                continue;
            }
            let phase = c.phase.get(*f);
            // The batch's closing `.P`.
            let p = (i..seq.len())
                .find(|&k| c.phase.get(seq[k].1) == 2)
                .unwrap();
            assert!(phase == 2 || p > i, "texture op {i} has phase {phase}");
            for (k, (word_k, _)) in seq.iter().enumerate().take(p + 1).skip(i + 1) {
                let (reads_k, writes_k, _) = regs_of(*word_k);
                assert!(
                    !reads_k.iter().chain(&writes_k).any(|r| writes.contains(r)),
                    "batch member {k} touches the results of {i}"
                );
            }
            let b = c.write_barrier.get(seq[p].1);
            assert_ne!(b, u64::from(c.no_barrier), "`.P` {p} sets no barrier");
            let first = (p + 1..seq.len())
                .find(|&k| {
                    let (reads_k, writes_k, _) = regs_of(seq[k].0);
                    reads_k.iter().chain(&writes_k).any(|r| writes.contains(r))
                })
                .unwrap_or(exit_at)
                .min(exit_at);
            let waited = (p + 1..=first).any(|k| c.wait.get(seq[k].1) & (1 << b) != 0);
            assert!(
                waited,
                "nothing waits on barrier {b} of texture op {i} by {first}"
            );
            checked += 1;
        }
        assert!(checked > 0);
        // And the stream decodes back to the same texture instructions.
        let back = decode_binary(&bytes).unwrap();
        assert_eq!(back.tex_instrs().count(), program.tex_instrs().count());
    }

    #[test]
    fn every_control_word_honours_the_barrier_rule() {
        let mut p = Program::new(Isa::Nvidia);
        p.items = vec![
            alu(AluOp::Mov, 4, &[0]),
            alu(AluOp::U32ToF32, 5, &[1]),
            tex([4, 5], 8),               // reads the conversion: waits on its barrier
            tex([4, 5], 12),              // batched with the first (.T .P)
            alu(AluOp::FMul, 2, &[8, 9]), // reads the first result
            tex([2, 3], 16),              // reads R2 (fixed latency)
            tex([16, 17], 20),            // reads the previous result: its own batch
            alu(AluOp::FRcp, 0, &[13]),   // reads the second batch result
            tex([0, 1], 24),              // nothing reads it: EXIT waits
        ];
        let out = emit_program(&p, &EmitOptions::default()).unwrap();
        check_barriers(&out);
    }

    #[test]
    fn more_pending_results_than_barriers() {
        let mut p = Program::new(Isa::Nvidia);
        for k in 0..10 {
            p.items.push(alu(AluOp::I32ToF32, 100 + k, &[k]));
        }
        for k in 0..8u32 {
            p.items.push(tex([2 * k, 2 * k + 1], 32 + 4 * k));
            p.items.push(alu(AluOp::Mov, 200 + k, &[150]));
        }
        let out = emit_program(&p, &EmitOptions::default()).unwrap();
        check_barriers(&out);
    }

    /// Random kernels of texture, ALU (register, immediate and predicated) and comment
    /// items: the bytes [`emit_output`] writes as it lays a kernel out are what printing and
    /// encoding the program it returns write, and that program is [`Codec::emit`](crate::isa::Codec::emit)'s.
    #[test]
    fn written_output_is_the_program_encoded() {
        let mut rng = crate::rng::Rng(0x5eed);
        for case in 0..400 {
            let mut p = Program::new(Isa::Nvidia);
            for _ in 0..rng.below(24) {
                let reg = |rng: &mut crate::rng::Rng| rng.below(120) as u32;
                let item = match rng.below(6) {
                    0 | 1 => {
                        let c = 2 * rng.below(60) as u32;
                        tex([c, c + 1], 4 * rng.below(30) as u32)
                    }
                    2 => alu(AluOp::Mov, reg(&mut rng), &[reg(&mut rng)]),
                    3 => alu(AluOp::U32ToF32, reg(&mut rng), &[reg(&mut rng)]),
                    4 => {
                        let Item::Alu(mut a) = alu(AluOp::Mov, reg(&mut rng), &[0]) else {
                            unreachable!()
                        };
                        a.srcs[0] = Scalar::Imm(crate::ir::Imm {
                            bits: rng.next() & 0xffff_ffff,
                            ty: crate::ir::ScalarType::U32,
                        });
                        a.pred = (rng.below(2) == 0).then(|| crate::ir::Pred {
                            index: rng.below(7) as u16,
                            negate: rng.below(2) == 0,
                        });
                        Item::Alu(a)
                    }
                    _ => Item::Comment(Comment {
                        text: ["kept", "two\nlines", "", "trailing \r"][rng.below(4)].to_string(),
                        span: Span::default(),
                    }),
                };
                p.items.push(item);
            }
            let options = EmitOptions {
                stage: None,
                name: (case % 2 == 0).then(|| format!("k{case}")),
            };
            let program = emit_program(&p, &options).unwrap();
            for (form, owned) in [(Form::Text, false), (Form::Binary, true)] {
                let ir = if owned {
                    Cow::Owned(p.clone())
                } else {
                    Cow::Borrowed(&p)
                };
                let (q, bytes) = emit_output(ir, &options, Some(form)).unwrap();
                assert_eq!(q, program, "case {case}");
                let encoded = crate::encode(Isa::Nvidia, &q, form).unwrap();
                assert!(bytes == Some(encoded), "case {case} {form:?}");
            }
        }
    }
}
