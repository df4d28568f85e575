//! Streaming: decode → print (or re-encode) instruction by instruction, writing through a
//! buffer, without building a [`crate::Program`].
//!
//! [`disasm`] reads a binary of one ISA and writes its text; [`disasm_hex`] does the same for
//! instructions given as hex (the CLI's `--hex`); [`transcode`] is the identity translation
//! (text or binary in, text or binary out). Each writes exactly what the whole-program path
//! ([`crate::decode`] then [`crate::encode`] or [`crate::isa::Codec::print_text`]) writes for
//! the same input: the streaming paths are a faster route to the same bytes, checked on every
//! corpus file by `tests/stream.rs`.
//!
//! Every codec answers every call ([`crate::isa::Codec`] has whole-program defaults). The
//! forms with a streaming implementation decode and print (or check) instruction by
//! instruction without a [`crate::Program`]; NVIDIA's raw word streams also keep peak memory
//! independent of the input's size. Throughput per core (criterion medians of
//! `benches/throughput.rs` on the corpus, on a loaded 2-core machine: compare ratios):
//!
//! | ISA | streamed | held whole |
//! |---|---|---|
//! | NVIDIA | raw word streams (read twice: nvdisasm pads every encoding comment to the widest instruction), `--hex`, identity binary → binary (words checked by shape, the input copied through: ~60 M words per CPU second), listings → text item by item (read twice: binary or not and line ends, then items; output held back only from a control word's comment until its bundle's phases are written into it) | a cubin (an ELF file, read whole; its `.text` sections print word by word, and are checked word by word for binary → binary, the file written back); listings → binary (whole-program path) |
//! | DXBC | container or bare token stream → text (0.15 → 1.6 M instructions/s), identity binary → binary (checked as decoding checks it, the input's bytes in place, then the input written: 0.30 → 3.1 M/s, ~13 M/s per CPU second since session 8; ~80 M/s without a container's MD5), listing → text line by line (0.28 → 0.6-0.9 M lines/s) | the input (a container's checksum covers all of it) and the output (written once complete, so a refused input writes nothing); text → binary and `--emit tokens` (whole-program path) |
//! | vISA | `.visaasm` text → text (read twice: line ends, declarations and what makes it binary after all, zero bytes or the `.isa` magic, seen a chunk at a time; then one line at a time, lines borrowed from the chunk; 2.7 → 3.8 M lines per CPU second on 200 MB, 6.5 MiB peak at 20 and 200 MB), instruction streams → binary (instructions accepted by table, `isa::visa::accept`, and copied in runs: 3.6 → 28 M/s) and text (0.6 → 2.1 M/s), `--hex` (4.1–4.3 MiB at 92 MB) | an `.isa` container (refused, as [`crate::decode`] refuses it); text → binary |
//!
//! An input is read through [`Input`] (`Read + Seek`): a file streams; standard input is
//! read into memory first (`std::io::Cursor`). Errors are the codecs' typed errors with
//! their location, or I/O errors; on an error the output may hold what was written before
//! it (the CLI writes `-o` files through a temporary file that a failure removes).
//!
//! ```
//! use texlate::{stream, Isa};
//!
//! // A bundle: control word (phase .P in slot 1), TEXS, two NOPs.
//! let words: [u64; 4] = [0x001f8000fc0447e0, 0xd83006e060570404, 0x50b0000000070f00, 0x50b0000000070f00];
//! let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
//! let mut out = Vec::new();
//! let stats = stream::disasm(Isa::Nvidia, &mut std::io::Cursor::new(&bytes), &mut out)?;
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.contains("TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA ;"), "{text}");
//! assert_eq!(stats.texture, 1);
//! // The same bytes as the whole-program path.
//! let program = texlate::decode(Isa::Nvidia, &bytes)?;
//! assert_eq!(text, texlate::isa::codec(Isa::Nvidia).print_text(&program)?);
//! # Ok::<(), stream::StreamError>(())
//! ```

use std::io::{self, Read, Seek, Write};

use crate::error::Error;
use crate::ir::Isa;
use crate::isa::codec;
use crate::{Form, ReadOptions};

/// An input a stream reads: bytes that can be read again from the start (some outputs depend
/// on the whole input, as nvdisasm's encoding-comment column does).
pub trait Input: Read + Seek {}

impl<T: Read + Seek + ?Sized> Input for T {}

/// What stopped a stream: the input (a typed error with its location) or the I/O.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The input was rejected, as [`crate::decode`] or [`crate::encode`] reject it.
    #[error(transparent)]
    Codec(#[from] Error),
    /// Reading the input or writing the output failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// What a stream went through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions (or other items: control words, opaque lines) read.
    pub items: u64,
    /// Texture instructions among them.
    pub texture: u64,
}

/// Writes `isa` binary from `input` to `out` as text, instruction by instruction: what
/// [`crate::isa::Codec::decode_binary`] then [`crate::isa::Codec::print_text`] give.
pub fn disasm(isa: Isa, input: &mut dyn Input, out: &mut dyn Write) -> Result<Stats, StreamError> {
    codec(isa).stream_disasm(input, out)
}

/// [`disasm`] as `read` says (NVIDIA: the words decoded for `read.sm`): what
/// [`crate::isa::Codec::decode_binary_with`] then [`crate::isa::Codec::print_text`] give.
pub fn disasm_with(
    isa: Isa,
    input: &mut dyn Input,
    read: ReadOptions,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    codec(isa).stream_disasm_with(input, read, out)
}

/// [`disasm_hex`] as `read` says: what [`crate::isa::Codec::decode_hex_with`] then
/// [`crate::isa::Codec::print_text`] give.
pub fn disasm_hex_with(
    isa: Isa,
    words: &[&str],
    read: ReadOptions,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    codec(isa).stream_disasm_hex_with(words, read, out)
}

/// Writes instructions given as hex (`--hex`) as text: what
/// [`crate::isa::Codec::decode_hex`] then [`crate::isa::Codec::print_text`] give.
pub fn disasm_hex(isa: Isa, words: &[&str], out: &mut dyn Write) -> Result<Stats, StreamError> {
    codec(isa).stream_disasm_hex(words, out)
}

/// The identity translation of `input` (text or binary of `isa`, detected as
/// [`crate::decode`] does) into `emit`: what [`crate::translate::translate`] writes with
/// `from == to == isa`.
pub fn transcode(
    isa: Isa,
    input: &mut dyn Input,
    read: ReadOptions,
    emit: Form,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    codec(isa).stream_transcode(input, read, emit, out)
}

/// The whole input, from its start.
pub(crate) fn read_all(input: &mut dyn Input) -> io::Result<Vec<u8>> {
    input.rewind()?;
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes a whole output and flushes.
pub(crate) fn write_whole(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(bytes)?;
    out.flush()
}

/// [`transcode`] by the whole-program path: decode, then encode.
pub(crate) fn transcode_whole(
    codec: &(impl crate::isa::Codec + ?Sized),
    input: &mut dyn Input,
    read: ReadOptions,
    emit: Form,
    out: &mut dyn Write,
) -> Result<Stats, StreamError> {
    let program = crate::decode_with(codec.isa(), &read_all(input)?, read)?;
    write_whole(out, &crate::encode(codec.isa(), &program, emit)?)?;
    Ok(program_stats(&program))
}

/// Counts the items of a program (the whole-program defaults' [`Stats`]).
pub(crate) fn program_stats(p: &crate::Program) -> Stats {
    Stats {
        items: p.items.len() as u64,
        texture: p.tex_instrs().count() as u64,
    }
}

/// How many bytes [`Sink`] collects before it writes them out.
const SINK_CHUNK: usize = 1 << 16;

/// Text output collected in a buffer of bounded size and written out in large chunks.
pub(crate) struct Sink<'a> {
    out: &'a mut dyn Write,
    buf: Vec<u8>,
}

impl<'a> Sink<'a> {
    /// A sink writing to `out`. The buffer grows as text comes (to a chunk and a line at
    /// most): a short input (most shaders) does not pay for a whole chunk.
    pub(crate) fn new(out: &'a mut dyn Write) -> Self {
        Sink {
            out,
            buf: Vec::new(),
        }
    }

    /// The buffer to append text to; [`Sink::done_line`] writes it out when it is full.
    pub(crate) fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Writes the buffer out if it holds a chunk.
    pub(crate) fn done_line(&mut self) -> io::Result<()> {
        if self.buf.len() >= SINK_CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes what is left and flushes `out`.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}
