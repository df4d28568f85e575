//! Streaming ([`crate::stream`]): raw word streams and cubin sections printed word by word,
//! `--hex` words printed one by one, and identity binary → binary re-encoded word by word,
//! without building a [`crate::Program`].
//!
//! A stream listing pads every encoding comment to one column set by the widest texture
//! instruction of the whole input ([`super::listing::stream_column`]), so a raw stream is
//! read twice: once to check every word and measure the texts, once to print. Nothing is
//! written when a word is rejected. Words are decoded for an SM (`--sm`): every word nvdisasm
//! prints for it is printed the same, reserved `INVALID…` values and register vectors past
//! R254 included; only the identity transcode refuses those (validation, as encoding does). The words printed are the words read: for every word
//! that decodes and lifts, `encode(emit(lift(decode(w)))) == w` and the text printed from
//! the decoded instruction is the one printed from the IR (`tests/stream.rs` checks both on
//! the corpus and on random words).

use std::io::{self, SeekFrom, Write};

use super::binary::{check_whole_words, cubin_sections, decode_at, phase_of, read_word, word_at};
use super::binary::{Ctrl, StreamWord};
use super::control::{self, BUNDLE_WORDS, WORD_BYTES};
use super::listing::{section_header, stream_column, stream_line};
use super::mnemonic_text::Mnemonics;
use super::shapes::Shapes;
use super::table::Sm;
use super::text::write_inst;
use crate::error::{DecodeError, Error};
use crate::stream::{Input, Sink, Stats, StreamError};
use crate::Form;

/// Words read from a stream at a time.
const CHUNK_BYTES: usize = 1 << 16;

/// Calls `f(bytes, at)` on the `len` bytes of `input` in chunks of whole words from its
/// start, `at` the offset of the chunk's first byte.
fn for_each_chunk(
    input: &mut dyn Input,
    len: usize,
    mut f: impl FnMut(&[u8], usize) -> Result<(), StreamError>,
) -> Result<(), StreamError> {
    input.rewind()?;
    let mut buf = vec![0u8; CHUNK_BYTES];
    let mut at = 0;
    while at < len {
        let n = (len - at).min(CHUNK_BYTES);
        input.read_exact(&mut buf[..n])?;
        f(&buf[..n], at)?;
        at += n;
    }
    Ok(())
}

/// Calls `f(word, offset, index)` on each word of the raw stream of `len` bytes in `input`,
/// reading it in chunks from its start.
fn for_each_word(
    input: &mut dyn Input,
    len: usize,
    mut f: impl FnMut(u64, usize, usize) -> Result<(), StreamError>,
) -> Result<(), StreamError> {
    for_each_chunk(input, len, |bytes, at| {
        for k in 0..bytes.len() / WORD_BYTES {
            let offset = at + k * WORD_BYTES;
            f(word_at(bytes, k), offset, offset / WORD_BYTES)?;
        }
        Ok(())
    })
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

/// Slots of the [`Recent`] cache (a power of two).
const RECENT_SLOTS: usize = 4096;
/// The longest text the cache keeps (longer texts are formatted every time).
const RECENT_TEXT: usize = 72;

/// What a word read before turned out to be: a texture instruction with its phase and
/// text, or another instruction.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    word: u64,
    /// `u8::MAX`: not a texture instruction.
    pub(super) phase: u8,
    len: u8,
    text: [u8; RECENT_TEXT],
}

impl Seen {
    /// Its text (empty for another instruction).
    pub(super) fn text(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }
}

/// A direct-mapped cache of the words a stream has read recently (a fixed 352 KiB whatever the
/// input's size). GPU code repeats instruction words — the same sample with the same
/// registers in every unrolled iteration and every variant of a kernel — and a word read
/// again is neither decoded, checked nor formatted again: its text is copied. Only words that
/// were accepted are kept, so a hit is what [`read_word`] and [`write_inst`] give. (The
/// listing stream keeps its own: the texture lines it took, [`super::listing::accept_line`].)
pub(super) struct Recent {
    slots: Vec<Option<Seen>>,
}

impl Recent {
    pub(super) fn new() -> Self {
        Recent {
            slots: vec![None; RECENT_SLOTS],
        }
    }

    fn slot(word: u64) -> usize {
        (word.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_SLOTS.trailing_zeros())) as usize
    }

    pub(super) fn get(&self, word: u64) -> Option<&Seen> {
        self.slots[Self::slot(word)]
            .as_ref()
            .filter(|s| s.word == word)
    }

    pub(super) fn put(&mut self, word: u64, phase: u8, text: &[u8]) {
        if text.len() > RECENT_TEXT {
            return;
        }
        let mut seen = Seen {
            word,
            phase,
            len: text.len() as u8,
            text: [0; RECENT_TEXT],
        };
        seen.text[..text.len()].copy_from_slice(text);
        self.slots[Self::slot(word)] = Some(seen);
    }
}

/// [`phase_of`] of `slot` (1..=3) in the control word of `ctrl`, through `phases`: the
/// phases of the slots of the control word read last, as [`phase_of`] reads them (`None`: a
/// reserved phase, [`phase_of`]'s error), read once per control word.
fn bundle_phase(
    phases: &mut Option<(u64, [Option<u8>; BUNDLE_WORDS])>,
    ctrl: Ctrl,
    slot: usize,
) -> Result<u8, Error> {
    let read = match *phases {
        Some((c, read)) if c == ctrl.0 => read,
        _ => {
            let read = std::array::from_fn(|s| {
                (s != 0)
                    .then(|| control::phase_of(ctrl.0, s).ok())
                    .flatten()
            });
            *phases = Some((ctrl.0, read));
            read
        }
    };
    match read[slot] {
        Some(phase) => Ok(phase),
        None => phase_of(ctrl, slot),
    }
}

/// The state of one walk over a stream's words: pass 1 measures, pass 2 prints.
struct Walk {
    sm: Sm,
    ctrl: Ctrl,
    /// The phases of the control word read last ([`bundle_phase`]).
    phases: Option<(u64, [Option<u8>; BUNDLE_WORDS])>,
    scratch: Vec<u8>,
    widest: usize,
    stats: Stats,
    recent: Recent,
    mnemonics: Mnemonics,
}

impl Walk {
    fn new(sm: Sm) -> Self {
        Walk {
            sm,
            ctrl: (0, 0),
            phases: None,
            scratch: Vec::new(),
            widest: 0,
            stats: Stats::default(),
            recent: Recent::new(),
            mnemonics: Mnemonics::new(),
        }
    }

    /// Reads word `index` of its section (at byte `offset`) into `scratch`: its text when it
    /// is a texture instruction (`true`), nothing otherwise (`false`).
    fn read(&mut self, word: u64, offset: usize, index: usize) -> Result<bool, Error> {
        self.scratch.clear();
        let slot = index % BUNDLE_WORDS;
        if slot != 0 {
            if let Some(seen) = self.recent.get(word) {
                if seen.phase == u8::MAX {
                    return Ok(false);
                }
                // A texture word read before: only its phase (from this bundle) can differ.
                if bundle_phase(&mut self.phases, self.ctrl, slot)? == seen.phase {
                    self.scratch.extend_from_slice(seen.text());
                    return Ok(true);
                }
            }
        }
        match read_word(word, offset, index, &mut self.ctrl, self.sm)? {
            StreamWord::Tex(inst) => {
                self.mnemonics.write_inst(&mut self.scratch, &inst);
                self.recent.put(word, inst.phase, &self.scratch);
                Ok(true)
            }
            StreamWord::Other => {
                self.recent.put(word, u8::MAX, &[]);
                Ok(false)
            }
            StreamWord::Control => Ok(false),
        }
    }

    /// Pass 1: checks word `index` of its section (at byte `offset`) and measures its text.
    fn measure(&mut self, word: u64, offset: usize, index: usize) -> Result<(), Error> {
        self.stats.items += 1;
        if self.read(word, offset, index)? {
            self.stats.texture += 1;
            self.widest = self.widest.max(self.scratch.len());
        }
        Ok(())
    }

    /// Pass 2: appends the line of word `index` of its section to `out`.
    fn print(
        &mut self,
        out: &mut Vec<u8>,
        column: usize,
        word: u64,
        offset: usize,
        index: usize,
    ) -> Result<(), Error> {
        self.read(word, offset, index)?;
        stream_line(out, index, word, column, |out| {
            out.extend_from_slice(&self.scratch)
        });
        Ok(())
    }
}

/// [`crate::stream::disasm`] of NVIDIA binaries: a raw stream or a cubin.
pub(super) fn disasm(
    input: &mut dyn Input,
    out: &mut dyn Write,
    sm: Sm,
) -> Result<Stats, StreamError> {
    let (len, elf) = probe(input)?;
    if elf {
        return disasm_cubin(&crate::stream::read_all(input)?, out, sm);
    }
    check_whole_words(len, 0)?;
    let mut walk = Walk::new(sm);
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
fn disasm_cubin(bytes: &[u8], out: &mut dyn Write, sm: Sm) -> Result<Stats, StreamError> {
    let (sm, sections) = cubin_sections(bytes, sm)?;
    let mut walk = Walk::new(sm);
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
pub(super) fn disasm_hex(
    words: &[&str],
    out: &mut dyn Write,
    sm: Sm,
) -> Result<Stats, StreamError> {
    let bytes =
        crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Qword).map_err(Error::from)?;
    let mut stats = Stats::default();
    // Every word is checked before anything is written.
    let mut insts = Vec::with_capacity(bytes.len() / WORD_BYTES);
    for k in 0..bytes.len() / WORD_BYTES {
        let (word, offset) = (word_at(&bytes, k), k * WORD_BYTES);
        let inst = decode_at(word, offset, 0, sm)?
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
        sink.buf().push(b'\n');
        sink.done_line()?;
    }
    sink.finish()?;
    Ok(stats)
}

/// [`crate::stream::transcode`]: to text, a listing line by line
/// ([`super::listing_stream`]) and a binary as [`disasm`] prints it (decoding then printing);
/// to binary, a raw stream or a cubin as [`transcode_binary`] checks it. `None`: a listing
/// to binary or `--emit tokens`, for the whole-program path.
pub(super) fn transcode(
    input: &mut dyn Input,
    emit: Form,
    out: &mut dyn Write,
    sm: Sm,
) -> Result<Option<Stats>, StreamError> {
    match emit {
        Form::Text => match super::listing_stream::transcode(input, out, sm)? {
            Some(stats) => Ok(Some(stats)),
            None => disasm(input, out, sm).map(Some),
        },
        Form::Binary => transcode_binary(input, out, sm),
        Form::Tokens => Ok(None),
    }
}

/// [`transcode`] to binary of a raw stream or a cubin: what the whole-program path writes is
/// the input itself when it accepts it, so each word is checked ([`Shapes`]: the same
/// errors, in the same order, as decoding then encoding) and the input is written back as
/// read. `None`: a listing, for the whole-program path.
fn transcode_binary(
    input: &mut dyn Input,
    out: &mut dyn Write,
    sm: Sm,
) -> Result<Option<Stats>, StreamError> {
    let (len, elf) = probe(input)?;
    if elf {
        return transcode_cubin(&crate::stream::read_all(input)?, out, sm).map(Some);
    }
    if !super::looks_binary_prefix(input, len)? {
        return Ok(None);
    }
    check_whole_words(len, 0)?;
    let mut shapes = Shapes::new(sm);
    shapes.start(0);
    for_each_chunk(input, len, |bytes, at| {
        Ok(shapes.words(bytes, at, at / WORD_BYTES)?)
    })?;
    if let Some(e) = shapes.first_refusal() {
        return Err(e.into());
    }
    for_each_chunk(input, len, |bytes, _| Ok(out.write_all(bytes)?))?;
    out.flush()?;
    Ok(Some(shapes.stats()))
}

/// [`transcode`] of a cubin (read whole): the words of its `.text.*` sections checked, the
/// file written back as read (the whole-program path rewrites those sections in place with
/// the same words).
fn transcode_cubin(bytes: &[u8], out: &mut dyn Write, sm: Sm) -> Result<Stats, StreamError> {
    let (sm, sections) = cubin_sections(bytes, sm)?;
    let mut shapes = Shapes::new(sm);
    for (section, data) in sections {
        check_whole_words(data.len(), section.offset)?;
        shapes.start(section.offset);
        shapes.words(data, section.offset, 0)?;
    }
    if let Some(e) = shapes.first_refusal() {
        return Err(e.into());
    }
    crate::stream::write_whole(out, bytes)?;
    Ok(shapes.stats())
}
