//! Streaming a listing (`.sass` text → text, [`crate::stream::transcode`]) line by line,
//! without building a [`crate::Program`]: what [`super::listing::parse`] then
//! [`super::listing::print`] write, and the same error.
//!
//! The input is read twice. The first reading finds what the whole path knows before its
//! first line: whether the input is binary after all ([`super::looks_binary`]: a zero byte,
//! an ELF header or bytes that are not UTF-8; printed by [`super::stream::disasm`], as
//! decoding then printing does) and whether every line ends with `\r\n`. The second reads
//! each item ([`read_item`]: a line, or a `}` line with its encoding on the next line) and
//! prints it: a line kept as read is copied, a texture instruction is printed from the
//! instruction read (its word encoded, its text written into the output: no allocation).
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
    accept_line, apply_patch, read_item, write_tex_lines, Layout, ListingItem, Phases, Taken,
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
        if chunk.contains(&0) {
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

/// The lines of the input, read in chunks: the current line and the next (a `}` line's
/// encoding can be on the next line) are whole in the buffer.
struct Lines<'a> {
    input: &'a mut dyn Input,
    buf: Vec<u8>,
    /// `buf[pos..len]` is input not yet consumed, from input offset `base + pos`.
    pos: usize,
    len: usize,
    base: u64,
    eof: bool,
    crlf: bool,
    /// The ends of the next two lines found so far, relative to `pos`: (text end, start of
    /// the line after).
    ends: [Option<(usize, usize)>; 2],
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
            ends: [None; 2],
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

    /// The ends of the line that starts `from` bytes past `pos`, if there is one.
    fn find_end(&mut self, from: usize) -> io::Result<Option<(usize, usize)>> {
        let mut searched = from;
        loop {
            let rest = &self.buf[self.pos + searched..self.len];
            if let Some(i) = memchr::memchr(b'\n', rest) {
                let end = searched + i;
                return Ok(Some((end, end + 1)));
            }
            searched = self.len - self.pos;
            if self.eof {
                return Ok((searched > from).then_some((searched, searched)));
            }
            self.fill()?;
        }
    }

    /// The ends of line `k` (0 or 1) from `pos`.
    fn ends(&mut self, k: usize) -> io::Result<Option<(usize, usize)>> {
        if self.ends[k].is_none() {
            let from = match k {
                0 => 0,
                _ => match self.ends(0)? {
                    Some((_, next)) => next,
                    None => return Ok(None),
                },
            };
            self.ends[k] = self.find_end(from)?;
        }
        Ok(self.ends[k])
    }

    /// The text of the line from `start` with `ends` ([`Lines::ends`]), without its `\n`
    /// (and its `\r` when every line ends with `\r\n`).
    fn text(&self, start: usize, (end, next): (usize, usize)) -> io::Result<&str> {
        let bytes = &self.buf[self.pos + start..self.pos + end];
        let terminated = next > end;
        let bytes = match bytes.strip_suffix(b"\r") {
            Some(b) if self.crlf && terminated => b,
            _ => bytes,
        };
        std::str::from_utf8(bytes)
            .map_err(|_| io::Error::other("the input changed while it was read"))
    }

    /// The current line, and the next one's bytes (for [`Next::text`]: a line is checked to
    /// be UTF-8 when it is read, not also when it is the next).
    fn two(&mut self) -> io::Result<Option<(&str, Next<'_, 'a>)>> {
        let (Some(first), second) = (self.ends(0)?, self.ends(1)?) else {
            return Ok(None);
        };
        let next = Next {
            lines: self,
            at: second.map(|s| (first.1, s)),
        };
        Ok(Some((self.text(0, first)?, next)))
    }

    /// Moves past `lines` lines (1 or 2), returning whether the last had a `\n`.
    fn consume(&mut self, lines: usize) -> bool {
        let Some((end, next)) = self.ends[lines - 1] else {
            return false;
        };
        self.pos += next;
        self.ends = match lines {
            1 => [self.ends[1].map(|(e, n)| (e - next, n - next)), None],
            _ => [None; 2],
        };
        next > end
    }

    /// The input offset of the current line.
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads again from input offset `at`.
    fn seek(&mut self, at: u64) -> io::Result<()> {
        self.input.seek(SeekFrom::Start(at))?;
        (self.base, self.pos, self.len, self.eof, self.ends) = (at, 0, 0, false, [None; 2]);
        Ok(())
    }
}

/// The line after the current one, as [`Lines::two`] finds it.
struct Next<'a, 'i> {
    lines: &'a Lines<'i>,
    /// Its start and ends ([`Lines::ends`]), if there is one.
    at: Option<(usize, (usize, usize))>,
}

impl<'a> Next<'a, '_> {
    /// Its text.
    fn text(&self) -> io::Result<Option<&'a str>> {
        self.at
            .map(|(start, ends)| self.lines.text(start, ends))
            .transpose()
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
    /// Writes out what no control comment still pending can change.
    fn flush(&mut self, phases: &Phases) -> io::Result<()> {
        let free = phases
            .pending_from()
            .map_or(self.buf.len(), |at| at - self.written);
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

    /// Bytes held back behind a pending control comment.
    fn held(&self, phases: &Phases) -> usize {
        phases
            .pending_from()
            .map_or(0, |at| self.written + self.buf.len() - at)
    }
}

/// [`crate::stream::transcode`] of a listing to text. `None`: the input is binary after
/// all, for [`super::stream`].
pub(super) fn transcode(
    input: &mut dyn Input,
    out: &mut dyn Write,
    sm: Sm,
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
    while let Some((line, next)) = lines.two()? {
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
            match read_item(line, next.text()?, line_no, sm)? {
                ListingItem::Kept { .. } => {
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
        if lines.consume(taken) {
            held.buf.extend_from_slice(nl.as_bytes());
        }
        if held.held(&phases) > HOLD_LIMIT {
            settle_ahead(&mut lines, &mut held, &mut phases, line_no, sm)?;
        }
        held.flush(&phases)?;
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
    sm: Sm,
) -> Result<(), StreamError> {
    let at = lines.offset();
    let mut ahead = *phases;
    while ahead.pending_from().is_some() {
        let Some((line, next)) = lines.two()? else {
            break;
        };
        line_no = line_no.saturating_add(1);
        let taken = match read_item(line, next.text()?, line_no, sm)? {
            ListingItem::Kept { .. } => {
                ahead.kept_line(line, None);
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
        lines.consume(taken);
    }
    phases.settle();
    lines.seek(at)?;
    Ok(())
}
