//! vISA streamed ([`crate::stream`]): `.visaasm` text printed back line by line, and bare
//! sampler-instruction streams decoded and printed or re-encoded instruction by instruction,
//! without building a [`Program`] of the input.
//!
//! Each line and instruction goes through the functions the whole-program path uses
//! ([`super::read_line`], [`super::lift_line`], [`super::print_tex`]; [`super::decode_checked`],
//! [`super::lift_decoded`], [`super::encode_tex`]), except where the output is known to be
//! the input: a line the whole path keeps as it is (blank, a directive, a comment, another
//! kind of instruction: [`text::is_plain_line`]) or a sampler line that prints back as it
//! was read ([`accept::accept_line`]) is copied, and so is an instruction the [`Acceptor`]
//! accepts; an instruction lift and emit give back unchanged is printed as decoded. Errors
//! come in the whole path's order: the whole path reads every line (or instruction) before
//! it prints or encodes any, so an error printing one stops the output and is returned only
//! when the rest reads.
//!
//! Before its first line, the whole path knows whether the input is binary after all (a zero
//! byte or the `.isa` magic, seen a chunk at a time; invalid UTF-8), whether every line ends
//! in `\r\n`, and the `.decl` declarations, which name variables for every line, also those
//! before them; so text is read once for those (the one UTF-8 check of every line; the
//! declarations into a [`DeclTable`], no allocation per declaration) and once more line by
//! line (from the bytes: only a line that goes the whole path's way is read as a string
//! again). An input that fits one chunk is read once: the second reading starts again in the
//! buffer the first one filled, and a binary input's instructions are taken from it too.
//! Memory holds a chunk of the input, the longest line, the declarations and the output
//! buffer.

use std::io::{self, Read, SeekFrom, Write};

use crate::error::Error;
use crate::ir::Isa;
use crate::stream::{Input, Sink, Stats, StreamError};
use crate::Form;

use super::accept::{self, Acceptor};
use super::binary::MAX_INST_BYTES;
use super::decls::DeclTable;
use super::inst::FieldPositions;
use super::names::{self, Scope};
use super::{text, Checks, VisaInst};

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
    let mut reader = LineReader::new(input)?;
    match (survey(&mut reader)?, emit) {
        (None, Form::Text | Form::Binary) => {
            instructions(reader.into_window()?, emit, out).map(Some)
        }
        (Some(text), Form::Text) => {
            reader.restart()?;
            lines(reader, &text, checks, out).map(Some)
        }
        _ => Ok(None),
    }
}

/// [`crate::isa::Codec::stream_disasm`] for vISA: a bare instruction stream decoded and
/// printed instruction by instruction.
pub(super) fn disasm(input: &mut dyn Input, out: &mut dyn Write) -> Result<Stats, StreamError> {
    instructions(Window::new(input)?, Form::Text, out)
}

/// A buffer for reading `input` a chunk at a time from its start: the whole input if that
/// is shorter than a chunk (a short input costs no chunk-sized allocation), else a chunk
/// and the most a [`Window`] keeps of the one before.
fn chunk_buffer(input: &mut dyn Input) -> io::Result<Vec<u8>> {
    let len = input.seek(SeekFrom::End(0))?;
    input.rewind()?;
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    // One byte more: the read that finds the end needs no room of its own.
    Ok(Vec::with_capacity(if len < CHUNK {
        len + 1
    } else {
        CHUNK + MAX_INST_BYTES
    }))
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
    /// Bytes were dropped from the front of `buf` (it no longer starts at the input's start).
    dropped: bool,
}

impl<'a> LineReader<'a> {
    /// Lines from the start of `input`.
    fn new(input: &'a mut dyn Input) -> io::Result<Self> {
        let buf = chunk_buffer(input)?;
        Ok(LineReader {
            input,
            buf,
            start: 0,
            scanned: 0,
            eof: false,
            fresh: true,
            binary: false,
            dropped: false,
        })
    }

    /// Lines from the start again: from the buffer when it holds the whole input, else read
    /// again.
    fn restart(&mut self) -> io::Result<()> {
        (self.start, self.scanned) = (0, 0);
        if self.dropped || !self.eof {
            self.input.rewind()?;
            self.buf.clear();
            (self.eof, self.fresh, self.binary, self.dropped) = (false, true, false, false);
        }
        Ok(())
    }

    /// The input as a [`Window`] from its start, holding what was read of it already when
    /// the buffer starts at the input's start (the input is then positioned after it).
    fn into_window(mut self) -> io::Result<Window<'a>> {
        if self.dropped {
            self.input.rewind()?;
            self.buf.clear();
            self.eof = false;
        }
        Ok(Window {
            input: self.input,
            buf: self.buf,
            pos: 0,
            base: 0,
            eof: self.eof,
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
            if start > 0 {
                self.buf.drain(..start);
                self.dropped = true;
            }
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
fn strip_cr(line: &[u8], terminated: bool, crlf: bool) -> &[u8] {
    match line.strip_suffix(b"\r") {
        Some(s) if crlf && terminated => s,
        _ => line,
    }
}

/// What the first reading of text finds: its declarations, and whether its lines end in
/// `\r\n`.
struct Text {
    decls: DeclTable,
    crlf: bool,
}

/// The first reading of the input: `None` when [`super::looks_binary`] holds for it, else its
/// declarations and line ends, as [`super::parse_text_with`] reads them before its first
/// line (the first bad declaration is the error).
fn survey(lines: &mut LineReader) -> Result<Option<Text>, StreamError> {
    let (mut crlf, mut terminated_lines) = (true, 0usize);
    // Declarations are read assuming `\r\n` ends until a line shows otherwise; if a line
    // was read so and the input then turns out to have other ends, they are read again.
    let mut stripped = false;
    let mut decls = Decls::default();
    while let Some((bytes, terminated)) = lines.next()? {
        let Ok(line) = std::str::from_utf8(bytes) else {
            return Ok(None);
        };
        if terminated {
            terminated_lines += 1;
            crlf &= line.ends_with('\r');
        }
        let kept = strip_cr(bytes, terminated, crlf);
        stripped |= kept.len() != line.len();
        decls.read(&line[..kept.len()]);
    }
    if lines.binary() {
        return Ok(None);
    }
    let crlf = crlf && terminated_lines > 0;
    if stripped && !crlf {
        lines.restart()?;
        decls = Decls::default();
        while let Some((bytes, _)) = lines.next()? {
            decls.read(std::str::from_utf8(bytes).map_err(|_| super::internal("UTF-8"))?);
        }
    }
    Ok(Some(Text {
        decls: decls.finish()?,
        crlf,
    }))
}

/// The declarations read so far, line by line ([`names::read_decl`]).
#[derive(Default)]
struct Decls {
    table: DeclTable,
    line_no: u32,
    error: Option<Error>,
}

impl Decls {
    /// Reads the next line (up to the first bad declaration).
    fn read(&mut self, line: &str) {
        self.line_no = self.line_no.wrapping_add(1);
        if self.error.is_none() {
            self.error = names::read_decl(line, self.line_no, &mut self.table).err();
        }
    }

    /// The declarations, or the first bad one.
    fn finish(self) -> Result<DeclTable, Error> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.table),
        }
    }
}

/// Text → text: each line printed back as [`super::print_text`] prints it: a line of another
/// kind as it is, a sampler instruction lifted and printed in its layout
/// ([`super::print_tex`]). A line the whole path keeps as it is ([`text::is_plain_line`])
/// and a sampler line that prints back as read ([`accept::accept_line`]) are copied; any
/// other goes through [`super::read_line`] (which makes a refused line's error) and, for a
/// sampler instruction, lift and print.
fn lines(
    mut lines: LineReader,
    text: &Text,
    checks: Checks,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    let eol: &[u8] = if text.crlf { b"\r\n" } else { b"\n" };
    let scope = Scope::of_table(&text.decls);
    let mut sink = Sink::new(out);
    let mut stats = Stats::default();
    let mut in_comment = false;
    // What a strict reading would refuse: the stream has no use for it.
    let mut strict_refusal = None;
    let (mut inst, mut positions) = (VisaInst::default(), FieldPositions::default());
    let mut printed = String::new();
    // An error lifting or printing a line, returned once every line has read.
    let (mut lift_error, mut print_error) = (None, None);
    while let Some((bytes, terminated)) = lines.next()? {
        let bytes = strip_cr(bytes, terminated, text.crlf);
        stats.items += 1;
        let no = stats.items as u32;
        // Whether the line is copied (else `printed` holds what is printed for it).
        let copy = if !in_comment && text::is_plain_line(bytes) {
            true
        } else {
            let line = std::str::from_utf8(bytes).map_err(|_| super::internal("UTF-8"))?;
            let scope = &scope;
            if !in_comment
                && accept::accept_line(line, no, scope, checks, &mut inst, &mut positions)
            {
                stats.texture += 1;
                true
            } else {
                let ic = &mut in_comment;
                match super::read_line(line, no, scope, checks, ic, &mut strict_refusal)? {
                    None => true,
                    Some(parsed) => {
                        stats.texture += 1;
                        if lift_error.is_some() {
                            continue;
                        }
                        let t = match super::lift_line(line, no, parsed, scope) {
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
                        let written =
                            super::write_tex(&mut printed, &t, Isa::Visa, scope, checks, no);
                        if let Err(e) = written {
                            print_error = Some(e);
                            continue;
                        }
                        false
                    }
                }
            }
        };
        if lift_error.is_none() && print_error.is_none() {
            let line = if copy { bytes } else { printed.as_bytes() };
            copy_line(&mut sink, line, terminated.then_some(eol))?;
        }
    }
    if let Some(e) = lift_error.or(print_error) {
        return Err(e.into());
    }
    sink.finish()?;
    Ok(stats)
}

/// Writes `line` and its line end, if any.
fn copy_line(sink: &mut Sink, line: &[u8], eol: Option<&[u8]>) -> io::Result<()> {
    let buf = sink.buf();
    buf.extend_from_slice(line);
    if let Some(eol) = eol {
        buf.extend_from_slice(eol);
    }
    sink.done_line()
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
        Ok(Window {
            buf: chunk_buffer(input)?,
            input,
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
fn instructions(mut w: Window, emit: Form, out: &mut dyn Write) -> Result<Stats, StreamError> {
    let mut sink = Sink::new(out);
    let mut stats = Stats::default();
    let undeclared = DeclTable::default();
    let scope = Scope::of_table(&undeclared);
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
    instructions(Window::new(&mut io::Cursor::new(bytes))?, Form::Text, out)
}
