//! Streaming ([`crate::stream`]): raw word streams and cubin sections printed word by word,
//! `--hex` words printed one by one, and identity binary → binary re-encoded word by word,
//! without building a [`crate::Program`].
//!
//! A stream listing pads every encoding comment to one column set by the widest texture
//! instruction of the whole input ([`super::listing::stream_column`]), so a raw stream is
//! read twice: once to check every word and measure the texts, once to print. Nothing is
//! written when a word is rejected. The words printed are the words read: for every word
//! that decodes and lifts, `encode(emit(lift(decode(w)))) == w` and the text printed from
//! the decoded instruction is the one printed from the IR (`tests/stream.rs` checks both on
//! the corpus and on random words).

use std::io::{self, SeekFrom, Write};

use super::binary::{check_whole_words, cubin_sections, decode_checked, read_word, word_at};
use super::binary::{Ctrl, StreamWord};
use super::control::WORD_BYTES;
use super::listing::{section_header, stream_column, stream_line};
use super::text::write_inst;
use crate::error::{DecodeError, Error};
use crate::stream::{Input, Sink, Stats, StreamError};
use crate::Form;

/// Words read from a stream at a time.
const CHUNK_BYTES: usize = 1 << 16;

/// Calls `f(word, offset, index)` on each word of the raw stream of `len` bytes in `input`,
/// reading it in chunks from its start.
fn for_each_word(
    input: &mut dyn Input,
    len: usize,
    mut f: impl FnMut(u64, usize, usize) -> Result<(), StreamError>,
) -> Result<(), StreamError> {
    input.rewind()?;
    let mut buf = vec![0u8; CHUNK_BYTES];
    let mut at = 0;
    while at < len {
        let n = (len - at).min(CHUNK_BYTES);
        input.read_exact(&mut buf[..n])?;
        for k in 0..n / WORD_BYTES {
            let offset = at + k * WORD_BYTES;
            f(word_at(&buf[..n], k), offset, offset / WORD_BYTES)?;
        }
        at += n;
    }
    Ok(())
}

/// The input's length, and whether it is an ELF file (a cubin).
fn probe(input: &mut dyn Input) -> io::Result<(usize, bool)> {
    let len = input.seek(SeekFrom::End(0))?;
    let len = usize::try_from(len).map_err(|_| io::Error::other("the input is too large"))?;
    input.rewind()?;
    let mut magic = [0u8; 4];
    let elf = len >= magic.len() && {
        input.read_exact(&mut magic)?;
        &magic == b"\x7fELF"
    };
    Ok((len, elf))
}

/// The state of one walk over a stream's words: pass 1 measures, pass 2 prints.
struct Walk {
    ctrl: Ctrl,
    scratch: String,
    widest: usize,
    stats: Stats,
}

impl Walk {
    fn new() -> Self {
        Walk {
            ctrl: (0, 0),
            scratch: String::new(),
            widest: 0,
            stats: Stats::default(),
        }
    }

    /// Pass 1: checks word `index` of its section (at byte `offset`) and measures its text.
    fn measure(&mut self, word: u64, offset: usize, index: usize) -> Result<(), Error> {
        self.stats.items += 1;
        if let StreamWord::Tex(inst) = read_word(word, offset, index, &mut self.ctrl)? {
            self.stats.texture += 1;
            self.scratch.clear();
            write_inst(&mut self.scratch, &inst);
            self.widest = self.widest.max(self.scratch.len());
        }
        Ok(())
    }

    /// Pass 2: appends the line of word `index` of its section to `out`.
    fn print(
        &mut self,
        out: &mut String,
        column: usize,
        word: u64,
        offset: usize,
        index: usize,
    ) -> Result<(), Error> {
        let w = read_word(word, offset, index, &mut self.ctrl)?;
        stream_line(out, index, word, column, |out| {
            if let StreamWord::Tex(inst) = &w {
                write_inst(out, inst);
            }
        });
        Ok(())
    }
}

/// [`crate::stream::disasm`] of NVIDIA binaries: a raw stream or a cubin.
pub(super) fn disasm(input: &mut dyn Input, out: &mut dyn Write) -> Result<Stats, StreamError> {
    let (len, elf) = probe(input)?;
    if elf {
        return disasm_cubin(&crate::stream::read_all(input)?, out);
    }
    check_whole_words(len, 0)?;
    let mut walk = Walk::new();
    for_each_word(input, len, |word, offset, index| {
        Ok(walk.measure(word, offset, index)?)
    })?;
    let column = stream_column(walk.widest);
    let stats = walk.stats;
    let mut sink = Sink::new(out);
    for_each_word(input, len, |word, offset, index| {
        walk.print(sink.buf(), column, word, offset, index)?;
        Ok(sink.done_line()?)
    })?;
    sink.finish()?;
    Ok(stats)
}

/// A cubin (read whole: an ELF file is read by its section headers), its `.text.*`
/// sections printed word by word.
fn disasm_cubin(bytes: &[u8], out: &mut dyn Write) -> Result<Stats, StreamError> {
    let sections = cubin_sections(bytes)?;
    let mut walk = Walk::new();
    for (section, data) in &sections {
        check_whole_words(data.len(), section.offset)?;
        walk.ctrl = (0, section.offset);
        for k in 0..data.len() / WORD_BYTES {
            walk.measure(word_at(data, k), section.offset + k * WORD_BYTES, k)?;
        }
    }
    let column = stream_column(walk.widest);
    let stats = walk.stats;
    let mut sink = Sink::new(out);
    for (section, data) in &sections {
        section_header(sink.buf(), &section.name);
        walk.ctrl = (0, section.offset);
        for k in 0..data.len() / WORD_BYTES {
            let offset = section.offset + k * WORD_BYTES;
            walk.print(sink.buf(), column, word_at(data, k), offset, k)?;
            sink.done_line()?;
        }
    }
    sink.finish()?;
    Ok(stats)
}

/// [`crate::stream::disasm_hex`]: each word one texture instruction, printed on its line.
pub(super) fn disasm_hex(words: &[&str], out: &mut dyn Write) -> Result<Stats, StreamError> {
    let bytes =
        crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Qword).map_err(Error::from)?;
    let mut stats = Stats::default();
    // Every word is checked before anything is written.
    let mut insts = Vec::with_capacity(bytes.len() / WORD_BYTES);
    for k in 0..bytes.len() / WORD_BYTES {
        let (word, offset) = (word_at(&bytes, k), k * WORD_BYTES);
        let inst = decode_checked(word, offset, 0)?
            .ok_or_else(|| DecodeError {
                offset,
                reason: format!("word {word:#018x} is not a texture instruction"),
            })
            .map_err(Error::from)?;
        insts.push(inst);
    }
    let mut sink = Sink::new(out);
    for inst in &insts {
        stats.items += 1;
        stats.texture += 1;
        write_inst(sink.buf(), inst);
        sink.buf().push('\n');
        sink.done_line()?;
    }
    sink.finish()?;
    Ok(stats)
}

/// [`crate::stream::transcode`] of a raw stream to binary: each word checked and written
/// back (a stream re-encodes to its own words). `None`: another input or output form,
/// for the whole-program path.
pub(super) fn transcode(
    input: &mut dyn Input,
    emit: Form,
    out: &mut dyn Write,
) -> Result<Option<Stats>, StreamError> {
    let (len, elf) = probe(input)?;
    if elf || emit != Form::Binary || !super::looks_binary_prefix(input, len)? {
        return Ok(None);
    }
    check_whole_words(len, 0)?;
    let mut walk = Walk::new();
    for_each_word(input, len, |word, offset, index| {
        walk.stats.items += 1;
        if let StreamWord::Tex(_) = read_word(word, offset, index, &mut walk.ctrl)? {
            walk.stats.texture += 1;
        }
        Ok(())
    })?;
    let mut w = io::BufWriter::with_capacity(CHUNK_BYTES, out);
    for_each_word(input, len, |word, _, _| {
        Ok(w.write_all(&word.to_le_bytes())?)
    })?;
    w.flush()?;
    Ok(Some(walk.stats))
}
