//! Streaming ([`crate::stream`]) of DXBC without building a [`crate::Program`]: a container
//! (held whole: its checksum covers all of it) or a bare token stream is checked as
//! [`super::decode_binary`] checks it, then its token stream is decoded one instruction at a
//! time into reused storage ([`tokens::Instructions`]) and printed straight into the output
//! by the printer the whole-program path uses ([`disasm::push_instruction`]).
//!
//! The output is the whole path's byte for byte: [`super::print_text`] prints a decoded
//! program's items in token order, each as it was decoded (an opaque item's dwords; a
//! texture instruction's tokens, which `emit_inst` keeps because its IR is unchanged), after
//! the profile line, indented by block nesting. Errors are the whole path's: printing a
//! decoded program cannot fail, so the first decoding error is the one both report, and
//! nothing is written before the whole input has been read.
//!
//! The identity transcode streams too ([`transcode`]):
//! - binary → binary writes the input as it is, once every check of decoding has passed
//!   (the decoder's checks over the input's bytes, storing nothing: [`tokens::check_program`],
//!   which also sees what counting texture instructions asks, [`lift::lifts_walked`]): a
//!   decoded instruction keeps every bit and re-encodes to its own dwords, an accepted
//!   container has its chunks back to back with a valid checksum, so decode then encode
//!   writes exactly the input (`tests/stream.rs` compares the two on mutated inputs);
//! - binary → text is [`print_binary`];
//! - text → text walks the listing item by item ([`super::listing::Items`]), parsing each
//!   instruction line and checking that it encodes as [`super::parse_text`] does (its
//!   errors, in its order: [`Instruction::encoded_len`](tokens::Instruction::encoded_len)
//!   fails exactly when encoding does; a plain instruction line, [`accept::plain`], is
//!   not parsed into tokens) and printing it back as [`super::print_text`] does: every
//!   line as it was read, except a texture instruction, printed from its tokens between
//!   the line's indentation and
//!   trailing text. `print_text` lifts it again against the declarations it was parsed
//!   with (they decode back from their dwords as parsed), so the IR is unchanged and
//!   `emit_inst` keeps the parsed instruction: the one printed here.
//!
//! [`Stats::items`] counts token instructions and declarations (binary input) or listing
//! items (text input).

use super::{
    accept, asm, assemble_line, code_part, container, decode_error, disasm, lift, listing, tokens,
};
use crate::error::Error;
use crate::ir::Isa;
use crate::stream::{read_all, transcode_whole, write_whole, Input, Stats, StreamError};
use crate::{Form, ReadOptions};

/// The token stream of a DXBC container or of a bare token stream, and the byte offset of
/// its first byte in `bytes`: what [`super::decode_binary`] decodes, with the container's
/// errors.
fn token_stream(bytes: &[u8]) -> Result<(&[u8], usize), Error> {
    let payload = if bytes.starts_with(container::MAGIC) {
        container::program_payload(bytes).map_err(decode_error)?
    } else {
        0..bytes.len()
    };
    Ok((&bytes[payload.clone()], payload.start))
}

/// Checks `bytes` as [`super::decode_binary`] does, with the same errors, without decoding
/// them ([`tokens::check_program`]): how many instructions and texture instructions
/// decoding them makes.
fn check_binary(bytes: &[u8]) -> Result<Stats, Error> {
    let (stream, base) = token_stream(bytes)?;
    let mut texture = 0;
    let (_, items) = tokens::check_program(stream, base, |walked| {
        texture += u64::from(lift::lifts_walked(walked));
    })
    .map_err(decode_error)?;
    Ok(Stats { items, texture })
}

/// Appends to `out` what [`super::decode_binary`] then [`super::print_text`] give for
/// `bytes`, printing each instruction as it is decoded.
pub(super) fn print_binary(bytes: &[u8], out: &mut String) -> Result<Stats, Error> {
    let (stream, base) = token_stream(bytes)?;
    let words = tokens::dwords(stream, base).map_err(decode_error)?;
    let (version, mut instrs) =
        tokens::Instructions::program(&words, base).map_err(decode_error)?;
    disasm::push_profile(out, version);
    out.push('\n');
    let mut indent = disasm::Indent::default();
    let mut stats = Stats::default();
    while let Some(next) = instrs.next_instruction() {
        let (_, instr) = next.map_err(decode_error)?;
        stats.items += 1;
        stats.texture += u64::from(lift::lifts(instr));
        indent.push(out, instr.opcode);
        disasm::push_instruction(out, instr);
        out.push('\n');
    }
    Ok(stats)
}

/// Appends to `out` what [`super::parse_text`] then [`super::print_text`] give for the
/// listing `src`, item by item: every line as it was read (runs of them copied at once)
/// except texture instructions, printed from their tokens between indentation and
/// trailing text. A plain instruction line ([`accept::plain`]) is copied unparsed; the
/// others are parsed and only checked to encode, not encoded.
pub(super) fn print_listing(src: &str, out: &mut String) -> Result<Stats, Error> {
    let mut items = listing::Items::new(src);
    let mut parser = asm::Parser::default();
    let mut stats = Stats::default();
    // `src[copied..]` is still to be written.
    let mut copied = 0;
    for item in items.by_ref() {
        stats.items += 1;
        let Some(indent) = item.code else { continue };
        if accept::plain(code_part(&item.text[indent..])) {
            debug_assert!(
                assemble_line(&mut parser, &item, indent, None)
                    .is_ok_and(|(i, ..)| !lift::lifts(i)),
                "line {}: accepted as plain but the parser says otherwise",
                item.span.line
            );
            continue;
        }
        let (instr, _, code) = assemble_line(&mut parser, &item, indent, None)?;
        if lift::lifts(instr) {
            stats.texture += 1;
            let at = item.span.offset + indent;
            out.push_str(&src[copied..at]);
            disasm::push_instruction(out, instr);
            copied = at + code.len();
        }
    }
    out.push_str(&src[copied..]);
    Ok(stats)
}

/// Listing bytes per input byte to reserve at first (fxc listings run about twice the size
/// of their token streams); the buffer grows past it when needed.
const TEXT_PER_BYTE: usize = 2;

/// [`crate::stream::disasm`] of DXBC: the input read whole, its listing written once it is
/// complete.
pub(super) fn disasm(
    input: &mut dyn Input,
    out: &mut dyn std::io::Write,
) -> Result<Stats, StreamError> {
    let bytes = read_all(input)?;
    let mut text = String::with_capacity(bytes.len().saturating_mul(TEXT_PER_BYTE));
    let stats = print_binary(&bytes, &mut text)?;
    write_whole(out, text.as_bytes())?;
    Ok(stats)
}

/// [`crate::stream::transcode`] of DXBC: binary → binary, binary → text and text → text
/// stream (the module doc); text → binary and `--emit tokens` take the whole-program path.
pub(super) fn transcode(
    codec: &super::DxbcCodec,
    input: &mut dyn Input,
    read: ReadOptions,
    emit: Form,
    out: &mut dyn std::io::Write,
) -> Result<Stats, StreamError> {
    let bytes = read_all(input)?;
    let binary = super::looks_binary(&bytes);
    let mut text = String::new();
    let stats = match (binary, emit) {
        (true, Form::Binary) => {
            // Nothing is decoded: the walk sees enough to count texture instructions.
            let stats = check_binary(&bytes)?;
            write_whole(out, &bytes)?;
            return Ok(stats);
        }
        (true, Form::Text) => {
            text.reserve(bytes.len().saturating_mul(TEXT_PER_BYTE));
            print_binary(&bytes, &mut text)?
        }
        (false, Form::Text) => {
            let src = crate::text_input(Isa::Dxbc, &bytes)?;
            text.reserve(src.len());
            print_listing(src, &mut text)?
        }
        (_, Form::Binary | Form::Tokens) => {
            return transcode_whole(codec, input, read, emit, out);
        }
    };
    write_whole(out, text.as_bytes())?;
    Ok(stats)
}
