//! NVIDIA Maxwell/Pascal SASS (SM50–SM62, `--sm`) texture instructions: nvdisasm text, 64-bit words with
//! their bundle control words, raw instruction streams and cubin `.text` sections.
//!
//! Layers: [`table`] (the data of `mappings/nvidia.toml`), [`inst`] (one instruction field by
//! field, and its word), [`text`] (one instruction as nvdisasm prints it), [`control`] (the
//! bundle control word), [`packing`] (Ra/Rb slot orders), `lift` (instruction → IR), `emit_inst` (IR → instruction), `emit` (target-ready IR → whole program),
//! `listing` (whole nvdisasm/cuobjdump listings) and `binary` (raw streams and cubins).
//!
//! Registers: `R#` is `Scalar::Reg` in [`RegFile::Temp`](crate::ir::RegFile::Temp); `RZ`
//! is [`Scalar::Zero`](crate::ir::Scalar::Zero), never `R255`, so "reads as zero" has one
//! spelling in the IR. The sparse-status predicate is a register of `RegFile::Predicate`.

pub mod alu;
mod binary;
mod constants;
pub mod control;
mod emit;
mod emit_inst;
pub mod inst;
mod lift;
mod listing;
mod listing_stream;
mod mnemonic_text;
pub mod mnemonics;
pub mod packing;
mod shapes;
mod stream;
pub mod table;
pub mod text;

pub use inst::{decode_word, decode_word_on, encode_word, encode_word_on, FieldError, NvInst, RZ};
pub use table::Sm;
pub use text::{parse_inst, print_inst};

use crate::error::{DecodeError, Error};
use crate::ir::{Item, Program, Span, TexInstr};
use table::OpClass;

/// What only NVIDIA has, per instruction (`Origin::Nvidia`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvidiaExtras {
    /// The instruction class it was read as (TEXS and TEX lift to the same IR).
    pub op: OpClass,
    /// `.B`: the texture comes from a register (bindless).
    pub bindless: bool,
    /// `.LBA`/`.LLA`: the LOD is averaged across the quad.
    pub lod_averaged: bool,
    /// TLD `.CL` (meaning unknown; research §3 infers a LOD-clamp flag).
    pub cl: bool,
    /// TXQ query code.
    pub query: u8,
    /// Phase from the bundle control word: 0 none, 1 `.T`, 2 `.P`.
    pub phase: u8,
    /// Word bits in no field (nvdisasm shows no use for them).
    pub raw: u64,
    /// Register fields that hold no parameter but are not RZ.
    pub spare_ra: Option<u8>,
    /// The same for Rb.
    pub spare_rb: Option<u8>,
    /// The same for Rd.
    pub spare_rd: Option<u8>,
    /// The layout of its listing line, when read from a listing.
    pub listing: Option<ListingLine>,
}

impl NvidiaExtras {
    /// Extras of an instruction with nothing known yet.
    pub fn empty() -> Self {
        NvidiaExtras {
            op: OpClass::TEX,
            bindless: false,
            lod_averaged: false,
            cl: false,
            query: 0,
            phase: 0,
            raw: 0,
            spare_ra: None,
            spare_rb: None,
            spare_rd: None,
            listing: None,
        }
    }
}

/// How a texture instruction's line of a listing was laid out, so it prints back identically
/// (nvdisasm pads every encoding comment of a file to one column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingLine {
    /// Everything before the instruction: indentation, `/*0018*/`, a dual-issue `{`.
    pub lead: String,
    /// Whitespace between the instruction and its terminator.
    pub gap: String,
    /// `;`, `}` (second of a dual-issue pair) or nothing.
    pub terminator: String,
    /// Byte column of the `/* 0x… */` encoding comment on the line.
    pub hex_column: Option<usize>,
    /// Byte column of the encoding comment on the next line (after a `}`).
    pub hex_next_line: Option<usize>,
    /// The rest of the line after the encoding comment (or the terminator).
    pub trailing: String,
}

/// What an NVIDIA input was, for an exact round trip (`Program::nvidia`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NvidiaContainer {
    /// An nvdisasm or cuobjdump listing.
    Listing {
        /// Lines end with `\r\n`.
        crlf: bool,
        /// The last line has a terminator.
        final_newline: bool,
    },
    /// A raw stream of little-endian words, bundles of four with the control word first.
    Stream {
        /// The SM its words were decoded for.
        sm: Sm,
    },
    /// A cubin: the file is kept whole; its `.text.*` sections are rewritten in place.
    Cubin {
        /// The whole file.
        file: Vec<u8>,
        /// Its `.text.*` sections.
        sections: Vec<TextSection>,
        /// The SM its words were decoded for.
        sm: Sm,
    },
    /// Instruction words given one by one (`--hex`), printed one per line.
    Words {
        /// The SM they were decoded for.
        sm: Sm,
    },
}

/// A `.text.*` section of a cubin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextSection {
    /// The section's name.
    pub name: String,
    /// File offset and size in bytes.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// The NVIDIA extras of an IR instruction, if it came from NVIDIA.
pub fn extras_of(t: &TexInstr) -> Option<&NvidiaExtras> {
    t.origin.get::<NvidiaExtras>()
}

/// Emits and encodes one IR instruction: its ISA form and its word.
pub fn emit_inst(t: &TexInstr) -> Result<(NvInst, u64), Error> {
    let inst = emit_inst::emit(t)?;
    let word = encode_at(&inst, t.span)?;
    Ok((inst, word))
}

/// Encodes an instruction that prints at `span`; the error is a validation error there.
fn encode_at(inst: &NvInst, span: Span) -> Result<u64, Error> {
    encode_word(inst).map_err(|e| {
        Error::Validation(crate::error::ValidationError {
            location: crate::error::Location::from_span(span, span.line > 0),
            rule: e.field,
            detail: e.reason,
        })
    })
}

/// Lifts one decoded instruction read at `span`.
pub fn lift_inst(inst: &NvInst, span: Span) -> Result<TexInstr, FieldError> {
    lift::lift(inst, NvidiaExtras::empty(), span)
}

/// `item` (an opaque instruction `word`, with its nvdisasm `text` when read from a listing)
/// as `Item::Alu` when it is exactly an instruction the backend emits ([`alu::lift`]).
fn read_alu(item: Item, word: u64, text: Option<&str>) -> Item {
    let Item::Opaque(o) = item else {
        return item;
    };
    let Some(mut a) = alu::lift(word, text) else {
        return Item::Opaque(o);
    };
    a.span = o.span;
    a.origin = crate::ir::Origin::new(crate::ir::AluSource {
        isa: crate::ir::Isa::Nvidia,
        items: vec![o],
    });
    Item::Alu(Box::new(a))
}

/// Parses nvdisasm text: single instructions, or whole nvdisasm/cuobjdump listings (SM50).
pub fn parse_text(src: &str) -> Result<Program, Error> {
    listing::parse(src, Sm::SM50)
}

/// Prints a program as nvdisasm text.
pub fn print_text(p: &Program) -> Result<String, Error> {
    listing::print(&p.alu_as_read())
}

/// Decodes a cubin (ELF) or a raw instruction stream, as SM50.
pub fn decode_binary(bytes: &[u8]) -> Result<Program, Error> {
    decode_binary_on(bytes, Sm::SM50)
}

/// Decodes a cubin (ELF) or a raw instruction stream for `sm`. A texture word that decodes
/// but cannot run (a reserved value nvdisasm spells `INVALID…`, a register vector past R254,
/// TXD on a target without a gradient layout) is kept as an opaque word: printed as nvdisasm
/// prints it, refused by encoding and translation with a validation error at its offset.
pub fn decode_binary_on(bytes: &[u8], sm: Sm) -> Result<Program, Error> {
    binary::decode(bytes, sm)
}

/// Encodes a program: a cubin is rewritten in place, anything else becomes a raw stream.
pub fn encode_binary(p: &Program) -> Result<Vec<u8>, Error> {
    binary::encode(&p.alu_as_read())
}

/// Decodes instruction words given as 16 hex digits (`0x` optional), one instruction each,
/// as SM50.
pub fn decode_hex(words: &[&str]) -> Result<Program, Error> {
    decode_hex_on(words, Sm::SM50)
}

/// [`decode_hex`] for `sm`; a word that decodes but cannot run is kept as in
/// [`decode_binary_on`].
pub fn decode_hex_on(words: &[&str], sm: Sm) -> Result<Program, Error> {
    let mut program = Program::new(crate::ir::Isa::Nvidia);
    let bytes = crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Qword)?;
    for (i, chunk) in bytes.chunks_exact(control::WORD_BYTES).enumerate() {
        let offset = i * control::WORD_BYTES;
        let mut le = [0u8; 8];
        le.copy_from_slice(chunk);
        let word = u64::from_le_bytes(le);
        let t = binary::decode_instruction(word, offset, 0, sm)?.ok_or_else(|| DecodeError {
            offset,
            reason: format!("word {word:#018x} is not a texture instruction"),
        })?;
        program.items.push(match t {
            Ok(t) => Item::Tex(Box::new(t)),
            Err(_) => Item::Opaque(crate::ir::Opaque {
                text: None,
                bytes: chunk.to_vec(),
                span: Span {
                    offset,
                    line: 0,
                    column: 0,
                },
            }),
        });
    }
    program.state = crate::ir::Origin::new(NvidiaContainer::Words { sm });
    Ok(program)
}

/// Prints the instruction words of a program as hex, one per line (control words omitted).
pub fn print_hex(p: &Program) -> Result<String, Error> {
    let mut out = String::new();
    for w in binary::instruction_words(&p.alu_as_read())? {
        out.push_str(&format!("{w:016x}\n"));
    }
    Ok(out)
}

/// An ELF file (a cubin), or bytes that are not text.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF") || std::str::from_utf8(bytes).is_err() || bytes.contains(&0)
}

/// Whether the `len` bytes of `input` hold a zero byte, so that [`looks_binary`] holds
/// without reading them whole (a word stream has zero bytes within its first words). `false`
/// says nothing: the input may still not be UTF-8.
fn looks_binary_prefix(input: &mut dyn crate::stream::Input, len: usize) -> std::io::Result<bool> {
    input.rewind()?;
    let mut buf = vec![0u8; 1 << 16];
    let mut left = len;
    while left > 0 {
        let n = left.min(buf.len());
        input.read_exact(&mut buf[..n])?;
        if buf[..n].contains(&0) {
            return Ok(true);
        }
        left -= n;
    }
    Ok(false)
}

/// The README table of NVIDIA texture instructions, rendered from `mappings/nvidia.toml`.
pub fn readme_table() -> String {
    let mut s = String::from(
        "| SASS mnemonic | IR op | operands (as nvdisasm prints them) |\n|---|---|---|\n",
    );
    for op in &table::table().ops {
        s.push_str(&format!(
            "| `{}` | {} | `{}` |\n",
            op.mnemonic, op.ir_op, op.operands
        ));
    }
    s
}

/// The Nvidia codec ([`crate::isa::Codec`]).
pub struct NvidiaCodec;

impl crate::isa::Codec for NvidiaCodec {
    crate::isa::codec_functions!(Nvidia);
    fn parse_text(&self, src: &str, read: crate::ReadOptions) -> Result<Program, Error> {
        listing::parse(src, read.sm)
    }
    fn decode_binary_with(&self, bytes: &[u8], read: crate::ReadOptions) -> Result<Program, Error> {
        decode_binary_on(bytes, read.sm)
    }
    fn decode_hex_with(&self, words: &[&str], read: crate::ReadOptions) -> Result<Program, Error> {
        decode_hex_on(words, read.sm)
    }
    fn opaque_refusal(&self, program: &Program, item: &crate::ir::Opaque) -> Option<Error> {
        binary::opaque_refusal(item, binary::program_sm(program), false)
    }
    fn opaque_untranslatable(&self, program: &Program, item: &crate::ir::Opaque) -> Option<Error> {
        binary::opaque_refusal(item, binary::program_sm(program), true)
    }
    fn register_groups(&self, t: &TexInstr) -> Result<Vec<crate::isa::RegGroup>, Error> {
        emit_inst::register_groups(t)
    }
    fn constants(&self, program: &Program) -> Vec<Vec<(crate::ir::Reg, u32)>> {
        // `constants` steps an ALU instruction read back as the words or lines it was read
        // from: no copy of the program with them put back is needed.
        constants::constants(program)
    }
    fn stream_disasm(
        &self,
        input: &mut dyn crate::stream::Input,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm(input, out, Sm::SM50)
    }
    fn stream_disasm_hex(
        &self,
        words: &[&str],
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm_hex(words, out, Sm::SM50)
    }
    fn stream_disasm_with(
        &self,
        input: &mut dyn crate::stream::Input,
        read: crate::ReadOptions,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm(input, out, read.sm)
    }
    fn stream_disasm_hex_with(
        &self,
        words: &[&str],
        read: crate::ReadOptions,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm_hex(words, out, read.sm)
    }
    fn stream_transcode(
        &self,
        input: &mut dyn crate::stream::Input,
        read: crate::ReadOptions,
        emit: crate::Form,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        match stream::transcode(input, emit, out, read.sm)? {
            Some(stats) => Ok(stats),
            None => crate::stream::transcode_whole(self, input, read, emit, out),
        }
    }
}
