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
//! byte or the `.isa` magic, seen a chunk at a time; invalid UTF-8), whether every line ends
//! in `\r\n`, and the `.decl` declarations, which name variables for every line, also those
//! before them; so text is read once for those and once more line by line. Memory holds a
//! chunk of the input, the longest line, the declarations and the output buffer.

use std::io::{self, Read, Write};

use crate::error::Error;
use crate::ir::{Isa, Program};
use crate::stream::{Input, Sink, Stats, StreamError};
use crate::Form;

use super::accept::Acceptor;
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

/// One line of the input at a time: its bytes without the `\n`, and whether it had one. The
/// input is read a chunk at a time and a line is handed out where it lies in the chunk (one
/// that runs on into the next chunk is moved to the front first), so memory holds a chunk
/// and the longest line. Each chunk is looked at for what makes the input binary, a zero
/// byte or (the first) the `.isa` magic: from then on there are no more lines
/// ([`LineReader::binary`]), whether or not a line end is ever found.
struct LineReader<'a> {
    input: &'a mut dyn Input,
    buf: Vec<u8>,
    /// Where the next line starts in `buf`.
    start: usize,
    /// `buf[start..scanned]` holds no `\n`.
    scanned: usize,
    eof: bool,
    /// Nothing read yet.
    fresh: bool,
    binary: bool,
}

impl<'a> LineReader<'a> {
    /// Lines from the start of `input`.
    fn new(input: &'a mut dyn Input) -> io::Result<Self> {
        input.rewind()?;
        Ok(LineReader {
            input,
            buf: Vec::with_capacity(CHUNK),
            start: 0,
            scanned: 0,
            eof: false,
            fresh: true,
            binary: false,
        })
    }

    /// Whether a zero byte or the `.isa` magic was met (then [`LineReader::next`] stops).
    fn binary(&self) -> bool {
        self.binary
    }

    /// The next line and whether a `\n` ended it; `None` at the end of the input or once
    /// the input shows itself binary.
    fn next(&mut self) -> io::Result<Option<(&[u8], bool)>> {
        loop {
            if self.binary {
                return Ok(None);
            }
            let start = self.start;
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
                let end = self.scanned + i;
                self.start = end + 1;
                self.scanned = self.start;
                return Ok(Some((&self.buf[start..end], true)));
            }
            self.scanned = self.buf.len();
            if self.eof {
                if start == self.buf.len() {
                    return Ok(None);
                }
                self.start = self.buf.len();
                return Ok(Some((&self.buf[start..], false)));
            }
            self.buf.drain(..start);
            self.start = 0;
            self.scanned -= start;
            let old = self.buf.len();
            let got = (&mut *self.input)
                .take(CHUNK as u64)
                .read_to_end(&mut self.buf)?;
            self.eof = got < CHUNK;
            let chunk = &self.buf[old..];
            self.binary = memchr::memchr(0, chunk).is_some()
                || self.fresh && chunk.starts_with(super::container::MAGIC);
            self.fresh = false;
        }
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
    if lines.binary() {
        return Ok(None);
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
    let mut printed = String::new();
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
                printed.clear();
                match super::write_tex(&mut printed, &t, Isa::Visa, &scope, checks, no) {
                    Ok(()) => sink.buf().extend_from_slice(printed.as_bytes()),
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
            buf: Vec::with_capacity(CHUNK + MAX_INST_BYTES),
            pos: 0,
            base: 0,
            eof: false,
        })
    }

    /// Whether `buf[pos..]` holds `need` bytes or the rest of the input.
    fn holds(&self, need: usize) -> bool {
        self.eof || self.buf.len() - self.pos >= need
    }

    /// Makes `buf[pos..]` hold at least `need` bytes, or the rest of the input.
    fn fill(&mut self, need: usize) -> io::Result<()> {
        if self.holds(need) {
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
/// To binary, an instruction the [`Acceptor`] accepts is part of a run of bytes copied as
/// they are (encoding a decoded instruction gives its bytes back); any other instruction is
/// decoded into one reused [`VisaInst`] and checked, which makes the error of a refused one.
/// Where lift and emit give it back unchanged ([`super::lift::lifts_back_untyped`]) it is
/// printed as it is, or its bytes are copied; otherwise it goes the whole path's way (lift,
/// emit, check, print or encode).
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
    let (mut encoded, mut printed) = (Vec::new(), String::new());
    let acceptor = (emit == Form::Binary).then(Acceptor::get);
    // Output bytes so far; the accepted instructions `w.buf[run..w.pos]` not yet copied.
    let (mut written, mut run) = (0, 0);
    // An error printing or encoding an instruction, returned once every instruction decodes.
    let mut error = None;
    w.fill(MAX_INST_BYTES)?;
    super::refuse_container(&w.buf)?;
    loop {
        if !w.holds(MAX_INST_BYTES) {
            if error.is_none() {
                written += copy_run(&mut sink, &w.buf[run..w.pos])?;
            }
            w.fill(MAX_INST_BYTES)?;
            run = w.pos;
        }
        if w.pos >= w.buf.len() {
            break;
        }
        stats.items += 1;
        stats.texture += 1;
        if let Some(len) = acceptor.and_then(|a| a.accept(&w.buf[w.pos..])) {
            w.pos += len;
            continue;
        }
        let (at, base_at) = (w.pos, w.base + w.pos);
        if error.is_none() {
            written += copy_run(&mut sink, &w.buf[run..at])?;
        }
        w.pos = super::decode_checked(&w.buf, at, base_at, &mut inst, &mut positions)?;
        run = w.pos;
        if error.is_some() {
            continue;
        }
        let line_no = stats.items as u32;
        let done = if super::lift::lifts_back_untyped(&inst) {
            let op = inst.op().ok_or_else(|| super::internal("decoded op"))?;
            match emit {
                Form::Text => {
                    text::write_inst(sink.buf(), &inst, op, &scope);
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
                    printed.clear();
                    let checks = Checks::Strict;
                    super::write_tex(&mut printed, &t, Isa::Visa, &scope, checks, line_no).map(
                        |()| {
                            sink.buf().extend_from_slice(printed.as_bytes());
                            sink.buf().push(b'\n');
                        },
                    )
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
    copy_run(&mut sink, &w.buf[run..w.pos])?;
    sink.finish()?;
    Ok(stats)
}

/// Copies a run of accepted instructions to the output; its length.
fn copy_run(sink: &mut Sink, run: &[u8]) -> io::Result<usize> {
    sink.buf().extend_from_slice(run);
    sink.done_line()?;
    Ok(run.len())
}

/// [`crate::isa::Codec::stream_disasm_hex`] for vISA: the bytes the words spell, streamed.
pub(super) fn disasm_hex(words: &[&str], out: &mut dyn Write) -> Result<Stats, StreamError> {
    let bytes =
        crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Bytes).map_err(Error::from)?;
    instructions(&mut io::Cursor::new(bytes), Form::Text, out)
}
