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
//! nothing is written before the whole input has been read. [`Stats::items`] counts token
//! instructions and declarations.

use super::{container, decode_error, disasm, lift, tokens};
use crate::error::Error;
use crate::stream::{read_all, write_whole, Input, Stats, StreamError};

/// The token stream of a DXBC container or of a bare token stream, as dwords, and the byte
/// offset of its first dword in `bytes`: what [`super::decode_binary`] decodes, with the
/// same errors.
fn token_words(bytes: &[u8]) -> Result<(Vec<u32>, usize), Error> {
    let payload = if bytes.starts_with(container::MAGIC) {
        container::program_payload(bytes).map_err(decode_error)?
    } else {
        0..bytes.len()
    };
    let base = payload.start;
    let words = tokens::dwords(&bytes[payload], base).map_err(decode_error)?;
    Ok((words, base))
}

/// Appends to `out` what [`super::decode_binary`] then [`super::print_text`] give for
/// `bytes`, printing each instruction as it is decoded.
pub(super) fn print_binary(bytes: &[u8], out: &mut String) -> Result<Stats, Error> {
    let (words, base) = token_words(bytes)?;
    let (version, mut instrs) =
        tokens::Instructions::program(&words, base).map_err(decode_error)?;
    disasm::push_profile(out, version);
    out.push('\n');
    let mut indent = disasm::Indent::default();
    let mut stats = Stats::default();
    while let Some(next) = instrs.next_instruction() {
        let (_, instr) = next.map_err(decode_error)?;
        indent.push(out, instr.opcode);
        disasm::push_instruction(out, instr);
        out.push('\n');
        stats.items += 1;
        stats.texture += u64::from(lift::lifts(instr));
    }
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
