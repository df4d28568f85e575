//! Streaming a listing (`.sass` text → text, [`crate::stream::transcode`]) line by line,
//! without building a [`crate::Program`]: what [`super::listing::parse`] then
//! [`super::listing::print`] write, and the same error.
//!
//! The input is read twice. The first reading finds what the whole path knows before its
//! first line: whether the input is binary after all ([`super::looks_binary`]: a zero byte,
//! an ELF header or bytes that are not UTF-8; printed by [`super::stream::disasm`], as
//! decoding then printing does) and whether every line ends with `\r\n`. The second reads
//! windows of whole lines, each checked to be UTF-8 once and split once ([`read_lines`]),
//! and each item of them ([`read_item`]: a line, or a `}` line with its encoding on the
//! next line) and prints it: a line kept as read is copied, a texture instruction is
//! printed from the instruction read (its word encoded, its text written into the output:
//! no allocation).
//! The lines `disasm` prints are taken without that work ([`accept_line`]: a lone encoding
//! comment; a texture line whose text is what the printer prints for its comment's word,
//! decoded) and printed as [`read_item`] would have them printed.
//!
//! Printing writes each texture instruction's phase into its bundle's control comment up to
//! three word lines earlier ([`Phases`]), so the output is held back from the oldest control
//! comment that can still change; all other output is written in chunks. Lines between a
//! control comment and its bundle's instructions (labels, comments, directives) could hold
//! any amount back: past [`HOLD_LIMIT`] bytes, the items ahead are read (and not printed)
//! until the pending control comments are final, and reading goes back to where it was. Peak
//! memory is a chunk, the held bytes and the longest line, whatever the input's size.

use std::io::{self, SeekFrom, Write};

use super::listing::Accepted;
use super::listing::{
    accept_line, apply_patch, headerflags_sm, read_item, write_tex_lines, Layout, ListingItem,
    Phases, Taken,
};
use super::table::Sm;
use super::text::write_inst;
use crate::error::Error;
use crate::stream::{Input, Stats, StreamError};

/// Bytes read from the input at a time.
const CHUNK: usize = 1 << 16;

/// Output bytes collected before they are written out.
const OUT_CHUNK: usize = 1 << 16;

/// Output bytes held back behind a pending control comment before the items ahead are read
/// to settle it.
const HOLD_LIMIT: usize = 1 << 20;

/// What the first reading found: `None` for a binary input.
struct Survey {
    /// Every line ends with `\r\n`.
    crlf: bool,
}

/// The first reading: whether the input is binary ([`super::looks_binary`]), else its line
/// ends as [`super::listing::parse`] reads them (CRLF only when every line terminator is
/// `\r\n`).
fn survey(input: &mut dyn Input) -> io::Result<Option<Survey>> {
    input.rewind()?;
    let mut buf = vec![0u8; CHUNK];
    // Bytes of a UTF-8 sequence cut by the chunk's end, carried to the next chunk.
    let mut carry = 0;
    // The first bytes, for the ELF magic.
    let (mut head, mut head_len) = ([0u8; 4], 0);
    let (mut newlines, mut crlf, mut prev) = (0usize, true, 0u8);
    loop {
        let n = input.read(&mut buf[carry..])?;
        if n == 0 {
            // A sequence cut by the end of the input is not UTF-8.
            let text = carry == 0 && &head[..head_len] != b"\x7fELF";
            return Ok(text.then_some(Survey {
                crlf: crlf && newlines > 0,
            }));
        }
        let chunk = &buf[carry..carry + n];
        if memchr::memchr(0, chunk).is_some() {
            return Ok(None);
        }
        let k = (head.len() - head_len).min(n);
        head[head_len..head_len + k].copy_from_slice(&chunk[..k]);
        head_len += k;
        for i in memchr::memchr_iter(b'\n', chunk) {
            newlines += 1;
            let before = if i == 0 { prev } else { chunk[i - 1] };
            crlf &= before == b'\r';
        }
        prev = chunk[n - 1];
        let len = carry + n;
        carry = match std::str::from_utf8(&buf[..len]) {
            Ok(_) => 0,
            Err(e) if e.error_len().is_none() => len - e.valid_up_to(),
            Err(_) => return Ok(None),
        };
        buf.copy_within(len - carry..len, 0);
    }
}

/// The input read in chunks, for [`read_lines`].
struct Lines<'a> {
    input: &'a mut dyn Input,
    buf: Vec<u8>,
    /// `buf[pos..len]` is input not yet consumed, from input offset `base + pos`.
    pos: usize,
    len: usize,
    base: u64,
    eof: bool,
    crlf: bool,
}

impl<'a> Lines<'a> {
    fn new(input: &'a mut dyn Input, crlf: bool) -> io::Result<Self> {
        input.rewind()?;
        Ok(Lines {
            input,
            buf: vec![0; CHUNK],
            pos: 0,
            len: 0,
            base: 0,
            eof: false,
            crlf,
        })
    }

    /// Reads more input, keeping `buf[pos..len]` (moved to the buffer's start, which grows
    /// for a line longer than it).
    fn fill(&mut self) -> io::Result<()> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.base += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        if self.len == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = self.input.read(&mut self.buf[self.len..])?;
        self.len += n;
        self.eof = n == 0;
        Ok(())
    }

    /// The input from the current line to the end of the last whole line read, holding at
    /// least two whole lines (reading on for them), or to the input's end once it is
    /// reached (then `true`): checked to be UTF-8 once for all its lines.
    fn window(&mut self) -> io::Result<(&str, bool)> {
        let end = loop {
            let rest = &self.buf[self.pos..self.len];
            if self.eof {
                break rest.len();
            }
            if let Some(last) = memchr::memrchr(b'\n', rest) {
                if memchr::memchr(b'\n', &rest[..last]).is_some() {
                    break last + 1;
                }
            }
            self.fill()?;
        };
        // The first reading found the input UTF-8: a change since is an I/O error.
        let text = std::str::from_utf8(&self.buf[self.pos..self.pos + end])
            .map_err(|_| io::Error::other("the input changed while it was read"))?;
        Ok((text, self.eof))
    }

    /// Moves past `n` bytes of the [`Lines::window`].
    fn advance(&mut self, n: usize) {
        self.pos += n;
    }

    /// The input offset of the current line.
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads again from input offset `at`.
    fn seek(&mut self, at: u64) -> io::Result<()> {
        self.input.seek(SeekFrom::Start(at))?;
        (self.base, self.pos, self.len, self.eof) = (at, 0, 0, false);
        Ok(())
    }
}

/// The line of `text` from byte `at`: its text without its `\n` (and its `\r` when every
/// line ends with `\r\n`), the start of the line after, and whether it had a `\n`.
fn line_at(text: &str, at: usize, crlf: bool) -> Option<(&str, usize, bool)> {
    let rest = text.get(at..).filter(|r| !r.is_empty())?;
    let (line, terminated) = match memchr::memchr(b'\n', rest.as_bytes()) {
        Some(end) => (&rest[..end], true),
        None => (rest, false),
    };
    let next = at + line.len() + usize::from(terminated);
    let line = match line.strip_suffix('\r') {
        Some(l) if crlf && terminated => l,
        _ => line,
    };
    Some((line, next, terminated))
}

/// What [`read_lines`] hands each line: the line, the line after it (a `}` line's
/// encoding can be on the next line), and whether each had a `\n`.
struct LinePair<'t> {
    line: &'t str,
    terminated: bool,
    next: Option<(&'t str, bool)>,
}

/// Reads the lines of `lines` from the current one, each split from a window checked to be
/// UTF-8 once ([`Lines::window`]), calling `f` on each with the line after it: `f` says how
/// many lines it took (1, or 2 with the next) and whether to stop after them. `true` when
/// `f` stopped (reading resumes after the lines it took), `false` at the input's end.
fn read_lines(
    lines: &mut Lines,
    mut f: impl FnMut(&LinePair) -> Result<(usize, bool), StreamError>,
) -> Result<bool, StreamError> {
    let crlf = lines.crlf;
    loop {
        let (text, eof) = lines.window()?;
        let mut at = 0;
        let mut stop = false;
        let mut cur = line_at(text, 0, crlf);
        while let Some((line, after, terminated)) = cur {
            let next = line_at(text, after, crlf);
            if next.is_none() && !eof {
                // The next line is not read yet.
                break;
            }
            let pair = LinePair {
                line,
                terminated,
                next: next.map(|(l, _, t)| (l, t)),
            };
            let (taken, stop_here) = f(&pair)?;
            (at, cur) = match (taken, next) {
                (2, Some((_, after_next, _))) => (after_next, line_at(text, after_next, crlf)),
                _ => (after, next),
            };
            if stop_here {
                stop = true;
                break;
            }
        }
        let done = eof && cur.is_none();
        lines.advance(at);
        if stop || done {
            return Ok(stop);
        }
    }
}

/// Output collected in a buffer and written in chunks, but for what is held back behind a
/// pending control comment.
struct Held<'a> {
    out: &'a mut dyn Write,
    buf: Vec<u8>,
    /// Bytes written out so far: the output offset of `buf[0]`.
    written: usize,
}

impl Held<'_> {
    /// Writes out what no control comment still pending can change (`pending`:
    /// [`Phases::pending_from`]).
    fn flush(&mut self, pending: Option<usize>) -> io::Result<()> {
        let free = pending.map_or(self.buf.len(), |at| at - self.written);
        if free >= OUT_CHUNK {
            self.out.write_all(&self.buf[..free])?;
            self.buf.drain(..free);
            self.written += free;
        }
        Ok(())
    }

    /// Writes a texture instruction's phase into its bundle's control comment and appends
    /// its lines (`lines`: [`write_tex_lines`]).
    fn tex(
        &mut self,
        phases: &mut Phases,
        layout: &Layout,
        phase: u8,
        lines: impl FnOnce(&mut Vec<u8>),
    ) {
        apply_patch(&mut self.buf, self.written, phases.tex(layout, phase));
        lines(&mut self.buf);
    }

    /// Bytes held back behind a pending control comment (`pending`:
    /// [`Phases::pending_from`]).
    fn held(&self, pending: Option<usize>) -> usize {
        pending.map_or(0, |at| self.written + self.buf.len() - at)
    }
}

/// [`crate::stream::transcode`] of a listing to text. `None`: the input is binary after
/// all, for [`super::stream`].
pub(super) fn transcode(
    input: &mut dyn Input,
    out: &mut dyn Write,
    mut sm: Sm,
) -> Result<Option<Stats>, StreamError> {
    let Some(survey) = survey(input)? else {
        return Ok(None);
    };
    let nl = if survey.crlf { "\r\n" } else { "\n" };
    let mut lines = Lines::new(input, survey.crlf)?;
    let mut held = Held {
        out,
        buf: Vec::with_capacity(OUT_CHUNK + CHUNK),
        written: 0,
    };
    let mut phases = Phases::default();
    let mut stats = Stats::default();
    let mut line_no = 0u32;
    // An error encoding a texture instruction: the whole path meets it printing, once every
    // line has parsed.
    let mut print_error: Option<Error> = None;
    // The texture lines `accept_line` took.
    let mut seen = Taken::new();
    loop {
        let stopped = read_lines(&mut lines, |pair| {
            let line = pair.line;
            line_no = line_no.saturating_add(1);
            stats.items += 1;
            let start = held.written + held.buf.len();
            let taken = if let Some(acc) = accept_line(line, sm, &mut seen) {
                match acc {
                    Accepted::LoneHex(col, word) => {
                        phases.lone_hex_line((col, word), Some(start));
                        held.buf.extend_from_slice(line.as_bytes());
                    }
                    Accepted::Tex(tex) => {
                        stats.texture += 1;
                        let lines = |o: &mut Vec<u8>| tex.write(o, nl);
                        held.tex(&mut phases, &tex.layout, tex.phase, lines);
                    }
                }
                1
            } else {
                match read_item(line, pair.next.map(|(l, _)| l), line_no, sm)? {
                    ListingItem::Kept { .. } => {
                        if let Some(named) = headerflags_sm(line, line_no)? {
                            if named != sm {
                                // The lines taken before were taken for the other SM.
                                seen = Taken::new();
                            }
                            sm = named;
                        }
                        phases.kept_line(line, Some(start));
                        held.buf.extend_from_slice(line.as_bytes());
                        1
                    }
                    ListingItem::Tex(tex) => {
                        stats.texture += 1;
                        match tex.word() {
                            Ok(word) => {
                                let lines = |o: &mut Vec<u8>| {
                                    let text = |o: &mut Vec<u8>| write_inst(o, &tex.inst);
                                    write_tex_lines(o, text, word, &tex.layout, nl)
                                };
                                held.tex(&mut phases, &tex.layout, tex.inst.phase, lines);
                            }
                            Err(e) => {
                                print_error.get_or_insert(e);
                            }
                        }
                        1 + usize::from(tex.joined)
                    }
                }
            };
            line_no = line_no.saturating_add(u32::from(taken == 2));
            let terminated = match (taken, pair.next) {
                (2, Some((_, t))) => t,
                _ => pair.terminated,
            };
            if terminated {
                held.buf.extend_from_slice(nl.as_bytes());
            }
            let pending = phases.pending_from();
            held.flush(pending)?;
            Ok((taken, held.held(pending) > HOLD_LIMIT))
        })?;
        if !stopped {
            break;
        }
        settle_ahead(&mut lines, &mut held, &mut phases, line_no, sm)?;
        held.flush(phases.pending_from())?;
    }
    if let Some(e) = print_error {
        return Err(e.into());
    }
    held.out.write_all(&held.buf)?;
    held.out.flush()?;
    Ok(Some(stats))
}

/// Reads the items ahead of `lines` (without printing them) until the control comments
/// pending in `phases` are final, writes them into the held output and reads on from where
/// it was. An item that does not read is the error the stream meets next.
fn settle_ahead(
    lines: &mut Lines,
    held: &mut Held,
    phases: &mut Phases,
    mut line_no: u32,
    mut sm: Sm,
) -> Result<(), StreamError> {
    let at = lines.offset();
    let mut ahead = *phases;
    if ahead.pending_from().is_some() {
        read_lines(lines, |pair| {
            line_no = line_no.saturating_add(1);
            let taken = match read_item(pair.line, pair.next.map(|(l, _)| l), line_no, sm)? {
                ListingItem::Kept { .. } => {
                    sm = headerflags_sm(pair.line, line_no)?.unwrap_or(sm);
                    ahead.kept_line(pair.line, None);
                    1
                }
                ListingItem::Tex(tex) => {
                    apply_patch(
                        &mut held.buf,
                        held.written,
                        ahead.tex(&tex.layout, tex.inst.phase),
                    );
                    1 + usize::from(tex.joined)
                }
            };
            line_no = line_no.saturating_add(u32::from(taken == 2));
            Ok((taken, ahead.pending_from().is_none()))
        })?;
    }
    phases.settle();
    lines.seek(at)?;
    Ok(())
}
