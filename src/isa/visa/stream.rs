//! vISA streamed ([`crate::stream`]): `.visaasm` text printed back line by line, and bare
//! sampler-instruction streams decoded and printed or re-encoded instruction by instruction,
//! without building a [`Program`] of the input.
//!
//! Each line and instruction goes through the functions the whole-program path uses
//! ([`super::read_line`], [`super::lift_line`], [`super::print_tex`]; [`super::decode_checked`],
//! [`super::lift_decoded`], [`super::encode_tex`]), except that an instruction lift and emit
//! give back unchanged is printed or copied as decoded; errors come in the whole path's
//! order: the whole path reads every line (or instruction) before it prints or encodes any,
//! so an error printing one stops the output and is returned only when the rest reads.
//!
//! Before its first line, the whole path knows whether the input is binary after all (a zero
//! byte or the `.isa` magic, read a chunk at a time; invalid UTF-8), whether every line ends
//! in `\r\n`, and the `.decl` declarations, which name variables for every line, also those
//! before them; so text is read once for those and once more line by line. Memory holds one
//! line, the declarations and the output buffer.

use std::io::{self, BufRead, BufReader, Read, Write};

use crate::error::Error;
use crate::ir::{Isa, Program};
use crate::stream::{Input, Sink, Stats, StreamError};
use crate::Form;

use super::binary::MAX_INST_BYTES;
use super::inst::FieldPositions;
use super::names::{self, Scope};
use super::{text, Checks, VisaInst, VisaProgram};

/// How many bytes of the input are read at a time.
const CHUNK: usize = 1 << 16;

/// [`crate::isa::Codec::stream_transcode`] for vISA: text → text and binary → text or binary
/// streamed; text → binary and [`Form::Tokens`] by the whole-program path (`None`).
pub(super) fn transcode(
    input: &mut dyn Input,
    checks: Checks,
    emit: Form,
    out: &mut dyn Write,
) -> Result<Option<Stats>, StreamError> {
    match (survey(input, checks)?, emit) {
        (None, Form::Text | Form::Binary) => instructions(input, emit, out).map(Some),
        (Some(decls), Form::Text) => lines(input, &decls, out).map(Some),
        _ => Ok(None),
    }
}

/// [`crate::isa::Codec::stream_disasm`] for vISA: a bare instruction stream decoded and
/// printed instruction by instruction.
pub(super) fn disasm(input: &mut dyn Input, out: &mut dyn Write) -> Result<Stats, StreamError> {
    instructions(input, Form::Text, out)
}

/// One line of the input at a time: its bytes without the `\n`, and whether it had one.
struct LineReader<'a> {
    reader: BufReader<&'a mut dyn Input>,
    line: Vec<u8>,
}

impl<'a> LineReader<'a> {
    /// Lines from the start of `input`.
    fn new(input: &'a mut dyn Input) -> io::Result<Self> {
        input.rewind()?;
        Ok(LineReader {
            reader: BufReader::with_capacity(CHUNK, input),
            line: Vec::new(),
        })
    }

    /// The next line and whether a `\n` ended it; `None` at the end of the input.
    fn next(&mut self) -> io::Result<Option<(&[u8], bool)>> {
        self.line.clear();
        if self.reader.read_until(b'\n', &mut self.line)? == 0 {
            return Ok(None);
        }
        let terminated = self.line.last() == Some(&b'\n');
        if terminated {
            self.line.pop();
        }
        Ok(Some((&self.line, terminated)))
    }
}

/// Line `line` without the `\r` of a `\r\n` ending (`crlf`: every terminated line has one).
fn strip_cr(line: &str, terminated: bool, crlf: bool) -> &str {
    match line.strip_suffix('\r') {
        Some(s) if crlf && terminated => s,
        _ => line,
    }
}

/// The first reading of the input: `None` when [`super::looks_binary`] holds for it, else its
/// declarations and line ends, as [`super::parse_text_with`] reads them before its first
/// line (the first bad declaration is the error).
fn survey(input: &mut dyn Input, checks: Checks) -> Result<Option<Program>, StreamError> {
    if has_zero_or_magic(input)? {
        return Ok(None);
    }
    let mut lines = LineReader::new(input)?;
    let (mut crlf, mut terminated_lines, mut final_newline) = (true, 0usize, false);
    // Declarations are read assuming `\r\n` ends until a line shows otherwise; if a line
    // was read so and the input then turns out to have other ends, they are read again.
    let mut stripped = false;
    let mut decls = Decls::new(checks);
    while let Some((bytes, terminated)) = lines.next()? {
        let Ok(line) = std::str::from_utf8(bytes) else {
            return Ok(None);
        };
        if terminated {
            terminated_lines += 1;
            crlf &= line.ends_with('\r');
        }
        final_newline = terminated;
        let kept = strip_cr(line, terminated, crlf);
        stripped |= kept.len() != line.len();
        decls.read(kept);
    }
    let crlf = crlf && terminated_lines > 0;
    if stripped && !crlf {
        let mut lines = LineReader::new(input)?;
        decls = Decls::new(checks);
        while let Some((bytes, _)) = lines.next()? {
            decls.read(std::str::from_utf8(bytes).map_err(|_| super::internal("UTF-8"))?);
        }
    }
    decls.visa.crlf = crlf;
    decls.visa.final_newline = final_newline;
    Ok(Some(decls.finish()?))
}

/// Whether the input holds a zero byte or starts with the `.isa` magic: binary, read a chunk
/// at a time (a binary need not hold a line end).
fn has_zero_or_magic(input: &mut dyn Input) -> io::Result<bool> {
    input.rewind()?;
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut first = true;
    loop {
        chunk.clear();
        if (&mut *input).take(CHUNK as u64).read_to_end(&mut chunk)? == 0 {
            return Ok(false);
        }
        if first && chunk.starts_with(super::container::MAGIC) || chunk.contains(&0) {
            return Ok(true);
        }
        first = false;
    }
}

/// The declarations read so far, line by line ([`names::read_decl`]).
struct Decls {
    program: Program,
    visa: VisaProgram,
    names: names::DeclaredNames,
    line_no: u32,
    error: Option<Error>,
}

impl Decls {
    fn new(checks: Checks) -> Self {
        Decls {
            program: Program::new(Isa::Visa),
            visa: VisaProgram {
                checks,
                ..VisaProgram::default()
            },
            names: names::DeclaredNames::default(),
            line_no: 0,
            error: None,
        }
    }

    /// Reads the next line (up to the first bad declaration).
    fn read(&mut self, line: &str) {
        self.line_no = self.line_no.wrapping_add(1);
        if self.error.is_none() {
            let (p, v, n) = (&mut self.program, &mut self.visa, &mut self.names);
            self.error = names::read_decl(line, self.line_no, p, v, n).err();
        }
    }

    /// The program holding the declarations, or the first bad one.
    fn finish(self) -> Result<Program, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut program = self.program;
        program.state = crate::ir::Origin::new(self.visa);
        Ok(program)
    }
}

/// Text → text: each line read ([`super::read_line`]) and printed back as
/// [`super::print_text`] prints it: a line of another kind as it is, a sampler instruction
/// lifted and printed in its layout ([`super::print_tex`]).
fn lines(
    input: &mut dyn Input,
    decls: &Program,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    let state = decls.state.get::<VisaProgram>();
    let checks = state.map_or(Checks::Strict, |v| v.checks);
    let crlf = state.is_some_and(|v| v.crlf);
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let scope = Scope::new(decls);
    let mut lines = LineReader::new(input)?;
    let mut sink = Sink::new(out);
    let mut stats = Stats::default();
    let mut in_comment = false;
    // What a strict reading would refuse: the stream has no use for it.
    let mut strict_refusal = None;
    // An error lifting or printing a line, returned once every line has read.
    let (mut lift_error, mut print_error) = (None, None);
    while let Some((bytes, terminated)) = lines.next()? {
        let line = std::str::from_utf8(bytes).map_err(|_| super::internal("UTF-8"))?;
        let line = strip_cr(line, terminated, crlf);
        stats.items += 1;
        let no = stats.items as u32;
        let parsed = super::read_line(
            line,
            no,
            &scope,
            checks,
            &mut in_comment,
            &mut strict_refusal,
        )?;
        if lift_error.is_some() {
            continue;
        }
        match parsed {
            None if print_error.is_none() => sink.buf().extend_from_slice(line.as_bytes()),
            None => continue,
            Some(parsed) => {
                stats.texture += 1;
                let t = match super::lift_line(line, no, parsed, &scope) {
                    Ok(t) => t,
                    Err(e) => {
                        lift_error = Some(e);
                        continue;
                    }
                };
                if print_error.is_some() {
                    continue;
                }
                match super::print_tex(&t, Isa::Visa, &scope, checks, no) {
                    Ok(text) => sink.buf().extend_from_slice(text.as_bytes()),
                    Err(e) => {
                        print_error = Some(e);
                        continue;
                    }
                }
            }
        }
        if terminated {
            sink.buf().extend_from_slice(eol);
        }
        sink.done_line()?;
    }
    if let Some(e) = lift_error.or(print_error) {
        return Err(e.into());
    }
    sink.finish()?;
    Ok(stats)
}

/// A window onto the input: `buf[pos..]` is the input from offset `base + pos`.
struct Window<'a> {
    input: &'a mut dyn Input,
    buf: Vec<u8>,
    pos: usize,
    base: usize,
    eof: bool,
}

impl<'a> Window<'a> {
    /// The input from its start.
    fn new(input: &'a mut dyn Input) -> io::Result<Self> {
        input.rewind()?;
        Ok(Window {
            input,
            buf: Vec::new(),
            pos: 0,
            base: 0,
            eof: false,
        })
    }

    /// Makes `buf[pos..]` hold at least `need` bytes, or the rest of the input.
    fn fill(&mut self, need: usize) -> io::Result<()> {
        if self.eof || self.buf.len() - self.pos >= need {
            return Ok(());
        }
        self.buf.drain(..self.pos);
        self.base += self.pos;
        self.pos = 0;
        while !self.eof && self.buf.len() < need {
            let want = CHUNK.max(need);
            let got = (&mut *self.input)
                .take(want as u64)
                .read_to_end(&mut self.buf)?;
            self.eof = got < want;
        }
        Ok(())
    }
}

/// A bare instruction stream → text (as [`super::print_text`] prints
/// [`super::decode_binary`]'s program) or binary (as [`super::encode_binary`] encodes it),
/// one instruction at a time. A window of the input holds at least the longest instruction.
/// Each instruction is decoded into one reused [`VisaInst`] and checked; where lift and emit
/// give it back unchanged ([`super::lift::lifts_back_untyped`]) it is printed as it is, or
/// its bytes are copied (encoding a decoded instruction gives its bytes back); otherwise it
/// goes the whole path's way (lift, emit, check, print or encode).
fn instructions(
    input: &mut dyn Input,
    emit: Form,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    let mut w = Window::new(input)?;
    let mut sink = Sink::new(out);
    let mut stats = Stats::default();
    let empty = Program::new(Isa::Visa);
    let scope = Scope::new(&empty);
    let (mut inst, mut positions) = (VisaInst::default(), FieldPositions::default());
    let mut encoded = Vec::new();
    let mut written = 0;
    // An error printing or encoding an instruction, returned once every instruction decodes.
    let mut error = None;
    loop {
        w.fill(MAX_INST_BYTES)?;
        if w.pos == 0 && w.base == 0 {
            super::refuse_container(&w.buf)?;
        }
        if w.pos >= w.buf.len() {
            break;
        }
        let (at, base_at) = (w.pos, w.base + w.pos);
        w.pos = super::decode_checked(&w.buf, at, base_at, &mut inst, &mut positions)?;
        stats.items += 1;
        stats.texture += 1;
        if error.is_some() {
            continue;
        }
        let line_no = stats.items as u32;
        let done = if super::lift::lifts_back_untyped(&inst) {
            let op = inst.op().ok_or_else(|| super::internal("decoded op"))?;
            match emit {
                Form::Text => {
                    let line = text::print_inst(&inst, op, &scope);
                    sink.buf().extend_from_slice(line.as_bytes());
                    sink.buf().push(b'\n');
                }
                _ => {
                    written += w.pos - at;
                    sink.buf().extend_from_slice(&w.buf[at..w.pos]);
                }
            }
            Ok(())
        } else {
            let t = super::lift_decoded(&inst, base_at)?;
            match emit {
                Form::Text => {
                    super::print_tex(&t, Isa::Visa, &scope, Checks::Strict, line_no).map(|line| {
                        sink.buf().extend_from_slice(line.as_bytes());
                        sink.buf().push(b'\n');
                    })
                }
                _ => {
                    encoded.clear();
                    super::encode_tex(&t, Isa::Visa, &scope, Checks::Strict, written, &mut encoded)
                        .map(|()| {
                            written += encoded.len();
                            sink.buf().extend_from_slice(&encoded);
                        })
                }
            }
        };
        match done {
            Ok(()) => sink.done_line()?,
            Err(e) => error = Some(e),
        }
    }
    if let Some(e) = error {
        return Err(e.into());
    }
    sink.finish()?;
    Ok(stats)
}

/// [`crate::isa::Codec::stream_disasm_hex`] for vISA: the bytes the words spell, streamed.
pub(super) fn disasm_hex(words: &[&str], out: &mut dyn Write) -> Result<Stats, StreamError> {
    let bytes =
        crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Bytes).map_err(Error::from)?;
    instructions(&mut io::Cursor::new(bytes), Form::Text, out)
}
