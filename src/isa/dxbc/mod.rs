//! DirectX Shader Model 4/5 ("DXBC", "TPF"): the DXBC container, the program token stream,
//! and fxc's assembly listing.
//!
//! - [`container`]: chunks, sizes and the checksum (research/dxbc.md §1-§2).
//! - [`tokens`]: the token stream decoded into fields that encode back to the same dwords.
//! - `disasm` / `asm`: fxc's listing syntax, printed and parsed (Wine spellings accepted).
//! - `lift` / `lower`: texture instructions to and from [`crate::ir::TexInstr`].
//!
//! Texture instructions become [`Item::Tex`] with their tokens kept in [`DxbcExtras`] as the
//! template [`lower`] starts from; every other instruction, declaration and listing line is an
//! [`crate::ir::Opaque`] item holding its dwords (binary input) or its text (listing input).

pub mod container;
pub mod disasm;
pub mod tokens;

#[allow(dead_code)] // the listing printer and the lift use the rest (next commits)
mod tables;

use crate::error::Location;
use crate::error::{DecodeError, Error, ValidationError};
use crate::ir::{Isa, Item, Opaque, Program, Span};

use container::Container;
use tokens::{Instruction, TokenProgram};

/// DXBC program state kept on [`Program::dxbc`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DxbcModule {
    /// The version token (`ps_5_0` = `0x00000050`), when the input had one.
    pub version: Option<u32>,
    /// The container the program came in, when it came in one. Its program chunk is
    /// rewritten from the items on encode; every other chunk is written back as it was.
    pub container: Option<Container>,
}

/// What a DXBC texture instruction carries beyond the IR: its tokens as decoded or parsed.
/// [`lower`] starts from them and overwrites what the IR fields say, so an unchanged IR
/// re-encodes to the same tokens and an edited one to what the edit means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DxbcExtras {
    pub instr: Instruction,
}

fn decode_error(e: DecodeError) -> Error {
    Error::Decode(e)
}

/// Whether `bytes` is a DXBC container (`DXBC` magic) or a bare token stream (a version
/// token of SM4.0-SM5.1 followed by a length token that matches the input).
pub fn looks_binary(bytes: &[u8]) -> bool {
    if bytes.starts_with(container::MAGIC) {
        return true;
    }
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    match (word(0), word(1)) {
        (Some(v), Some(len)) => tokens::check_version(v).is_ok() && len as usize * 4 == bytes.len(),
        _ => false,
    }
}

/// Decodes a DXBC container or a bare token stream.
pub fn decode_binary(bytes: &[u8]) -> Result<Program, Error> {
    let (container, stream, base) = if bytes.starts_with(container::MAGIC) {
        let c = container::parse(bytes).map_err(decode_error)?;
        let base = 32
            + 4 * c.chunks.len()
            + c.chunks[..c.program]
                .iter()
                .map(|ch| 8 + ch.data.len())
                .sum::<usize>()
            + 8;
        let stream = c.chunks[c.program].data.clone();
        (Some(c), stream, base)
    } else {
        (None, bytes.to_vec(), 0)
    };
    let words = tokens::dwords(&stream, base).map_err(decode_error)?;
    let tp = tokens::decode_program(&words, base).map_err(decode_error)?;
    Ok(build_program(tp, container))
}

/// The program of a decoded token stream: one item per instruction.
fn build_program(tp: TokenProgram, container: Option<Container>) -> Program {
    let mut program = Program::new(Isa::Dxbc);
    for (offset, instr) in tp.instructions {
        program.items.push(opaque_instr(&instr, offset));
    }
    program.dxbc = Some(Box::new(DxbcModule {
        version: Some(tp.version),
        container,
    }));
    program
}

/// An opaque item holding an instruction's dwords.
fn opaque_instr(instr: &Instruction, offset: usize) -> Item {
    let mut words = Vec::new();
    // Decoded instructions always re-encode (their length was at most 127 dwords).
    let _ = instr.encode(&mut words);
    Item::Opaque(Opaque {
        text: None,
        bytes: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        span: Span {
            offset,
            line: 0,
            column: 0,
        },
    })
}

fn validation(span: Span, rule: &'static str, detail: String) -> Error {
    Error::Validation(ValidationError {
        location: Location::from_span(span, span.line != 0),
        rule,
        detail,
    })
}

/// The dwords of every item, in order.
fn item_words(program: &Program) -> Result<Vec<Vec<u32>>, Error> {
    let mut out = Vec::new();
    for item in &program.items {
        match item {
            Item::Opaque(o) => {
                if o.bytes.is_empty() {
                    continue;
                }
                let words = tokens::dwords(&o.bytes, o.span.offset).map_err(decode_error)?;
                out.push(words);
            }
            Item::Tex(t) => {
                return Err(validation(
                    Span::default(),
                    "dxbc-lower",
                    format!("texture instruction `{t}` has no DXBC encoding yet"),
                ))
            }
        }
    }
    Ok(out)
}

/// Encodes the program as a container (when it came in one) or a bare token stream.
pub fn encode_binary(program: &Program) -> Result<Vec<u8>, Error> {
    let module = program.dxbc.as_deref();
    let version = module.and_then(|m| m.version).ok_or_else(|| {
        validation(
            Span::default(),
            "dxbc-version",
            "the program has no version token; a listing needs its profile line (e.g. `ps_5_0`)"
                .into(),
        )
    })?;
    let mut words = vec![version, 0];
    for w in item_words(program)? {
        words.extend(w);
    }
    words[1] = words.len() as u32;
    let stream: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match module.and_then(|m| m.container.as_ref()) {
        Some(c) => {
            let mut c = c.clone();
            c.chunks[c.program].data = stream;
            Ok(container::write(&c))
        }
        None => Ok(stream),
    }
}

/// Decodes instructions given as hex dwords (`8a00002d 8001de01 ...`). A leading version
/// and length token are accepted and kept.
pub fn decode_hex(words: &[&str]) -> Result<Program, Error> {
    let mut dwords = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let digits = w.trim_start_matches("0x").trim_start_matches("0X");
        let value = u32::from_str_radix(digits, 16).map_err(|_| {
            decode_error(DecodeError {
                offset: 4 * i,
                reason: format!("`{w}` is not a hexadecimal dword"),
            })
        })?;
        dwords.push(value);
    }
    let whole = dwords.len() >= 2
        && tokens::check_version(dwords[0]).is_ok()
        && dwords[1] as usize == dwords.len();
    if whole {
        let tp = tokens::decode_program(&dwords, 0).map_err(decode_error)?;
        return Ok(build_program(tp, None));
    }
    let instrs = tokens::decode_instructions(&dwords).map_err(decode_error)?;
    Ok(build_program(
        TokenProgram {
            version: 0,
            instructions: instrs,
        },
        None,
    ))
    .map(|mut p| {
        if let Some(m) = p.dxbc.as_mut() {
            m.version = None;
        }
        p
    })
}

/// The instruction an opaque binary item holds.
fn opaque_instruction(o: &Opaque) -> Result<Instruction, Error> {
    let words = tokens::dwords(&o.bytes, o.span.offset).map_err(decode_error)?;
    let mut instrs = tokens::decode_instructions(&words).map_err(decode_error)?;
    match (instrs.pop(), instrs.is_empty()) {
        (Some((_, i)), true) => Ok(i),
        _ => Err(decode_error(DecodeError {
            offset: o.span.offset,
            reason: "an opaque item must hold exactly one instruction".into(),
        })),
    }
}

/// Prints the program as an fxc listing: the profile line, then one line per instruction
/// (a decoded binary), or every line of the listing it was parsed from.
pub fn print_text(program: &Program) -> Result<String, Error> {
    let mut out = String::new();
    if let Some(v) = program.dxbc.as_deref().and_then(|m| m.version) {
        out.push_str(&disasm::profile(v));
        out.push('\n');
    }
    let mut indent = disasm::Indent::default();
    for item in &program.items {
        match item {
            Item::Opaque(o) => match &o.text {
                Some(text) => out.push_str(text),
                None => {
                    let instr = opaque_instruction(o)?;
                    out.push_str(&indent.line(instr.opcode));
                    out.push_str(&disasm::instruction(&instr));
                }
            },
            Item::Tex(t) => {
                return Err(validation(
                    Span::default(),
                    "dxbc-lower",
                    format!("texture instruction `{t}` has no DXBC spelling yet"),
                ))
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// Prints each instruction's dwords as hex on one line, in order.
pub fn print_hex(program: &Program) -> Result<String, Error> {
    let mut out = String::new();
    for words in item_words(program)? {
        let line: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
        out.push_str(&line.join(" "));
        out.push('\n');
    }
    Ok(out)
}
