//! One module per instruction set. Each offers the same six entry points, which
//! [`crate::decode`], [`crate::encode`] and the CLI dispatch to:
//!
//! - `parse_text(&str) -> Result<Program, Error>` and `print_text(&Program) -> Result<String, Error>`
//! - `decode_binary(&[u8]) -> Result<Program, Error>` and `encode_binary(&Program) -> Result<Vec<u8>, Error>`
//! - `decode_hex(&[&str]) -> Result<Program, Error>` and `print_hex(&Program) -> Result<String, Error>`
//!   (the CLI's `--hex`: one instruction per output line)
//! - `looks_binary(&[u8]) -> bool`: whether an input is the ISA's binary form.

pub mod dxbc;
pub mod nvidia;
pub mod visa;

use crate::error::Error;
use crate::ir::{Isa, Program};

/// The form of an input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Text,
    Binary,
}

/// Parses `src` as `isa` text.
pub fn parse_text(isa: Isa, src: &str) -> Result<Program, Error> {
    match isa {
        Isa::Visa => visa::parse_text(src),
        Isa::Nvidia => nvidia::parse_text(src),
        Isa::Dxbc => dxbc::parse_text(src),
    }
}

/// Prints `program` as `isa` text.
pub fn print_text(isa: Isa, program: &Program) -> Result<String, Error> {
    match isa {
        Isa::Visa => visa::print_text(program),
        Isa::Nvidia => nvidia::print_text(program),
        Isa::Dxbc => dxbc::print_text(program),
    }
}

/// Decodes `bytes` as an `isa` binary.
pub fn decode_binary(isa: Isa, bytes: &[u8]) -> Result<Program, Error> {
    match isa {
        Isa::Visa => visa::decode_binary(bytes),
        Isa::Nvidia => nvidia::decode_binary(bytes),
        Isa::Dxbc => dxbc::decode_binary(bytes),
    }
}

/// Encodes `program` as an `isa` binary.
pub fn encode_binary(isa: Isa, program: &Program) -> Result<Vec<u8>, Error> {
    match isa {
        Isa::Visa => visa::encode_binary(program),
        Isa::Nvidia => nvidia::encode_binary(program),
        Isa::Dxbc => dxbc::encode_binary(program),
    }
}

/// Decodes instructions given as hex on the command line.
pub fn decode_hex(isa: Isa, words: &[&str]) -> Result<Program, Error> {
    match isa {
        Isa::Visa => visa::decode_hex(words),
        Isa::Nvidia => nvidia::decode_hex(words),
        Isa::Dxbc => dxbc::decode_hex(words),
    }
}

/// Prints `program` as hex, one instruction per line.
pub fn print_hex(isa: Isa, program: &Program) -> Result<String, Error> {
    match isa {
        Isa::Visa => visa::print_hex(program),
        Isa::Nvidia => nvidia::print_hex(program),
        Isa::Dxbc => dxbc::print_hex(program),
    }
}

/// Whether `bytes` is the binary form of `isa` (otherwise it is read as text).
pub fn looks_binary(isa: Isa, bytes: &[u8]) -> bool {
    match isa {
        Isa::Visa => visa::looks_binary(bytes),
        Isa::Nvidia => nvidia::looks_binary(bytes),
        Isa::Dxbc => dxbc::looks_binary(bytes),
    }
}

/// The op table of every ISA, rendered from `mappings/` (README's "Instructions" section and
/// `texlate ops`).
pub fn op_table_markdown() -> String {
    format!(
        "### Intel vISA\n\n{}\n### DirectX SM4/SM5 (DXBC)\n\n{}\n### NVIDIA Maxwell (SM50/SM52)\n\n{}",
        visa::readme_table(),
        dxbc::readme_table(),
        nvidia::readme_table()
    )
}
