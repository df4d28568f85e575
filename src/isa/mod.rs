//! One module per instruction set. Each offers the same six entry points, which
//! [`crate::decode`], [`crate::encode`] and the CLI dispatch to:
//!
//! - `parse_text(&str) -> Result<Program, Error>` and `print_text(&Program) -> Result<String, Error>`
//! - `decode_binary(&[u8]) -> Result<Program, Error>` and `encode_binary(&Program) -> Result<Vec<u8>, Error>`
//! - `decode_hex(&[&str]) -> Result<Program, Error>` and `print_hex(&Program) -> Result<String, Error>`
//!   (the CLI's `--hex`: one instruction per output line)
//! - `looks_binary(&[u8]) -> bool`: whether an input is the ISA's binary form.

pub mod dxbc;

use crate::error::{Error, Unsupported};
use crate::ir::{Isa, Program};

/// The form of an input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Text,
    Binary,
}

fn not_built(isa: Isa) -> Error {
    Error::Unsupported(Unsupported::new(
        "this instruction set",
        isa,
        isa,
        "its frontend and backend are not part of this build yet",
    ))
}

/// Parses `src` as `isa` text.
pub fn parse_text(isa: Isa, src: &str) -> Result<Program, Error> {
    match isa {
        Isa::Dxbc => dxbc::parse_text(src),
        _ => Err(not_built(isa)),
    }
}

/// Prints `program` as `isa` text.
pub fn print_text(isa: Isa, program: &Program) -> Result<String, Error> {
    match isa {
        Isa::Dxbc => dxbc::print_text(program),
        _ => Err(not_built(isa)),
    }
}

/// Decodes `bytes` as an `isa` binary.
pub fn decode_binary(isa: Isa, bytes: &[u8]) -> Result<Program, Error> {
    match isa {
        Isa::Dxbc => dxbc::decode_binary(bytes),
        _ => Err(not_built(isa)),
    }
}

/// Encodes `program` as an `isa` binary.
pub fn encode_binary(isa: Isa, program: &Program) -> Result<Vec<u8>, Error> {
    match isa {
        Isa::Dxbc => dxbc::encode_binary(program),
        _ => Err(not_built(isa)),
    }
}

/// Decodes instructions given as hex on the command line.
pub fn decode_hex(isa: Isa, words: &[&str]) -> Result<Program, Error> {
    match isa {
        Isa::Dxbc => dxbc::decode_hex(words),
        _ => Err(not_built(isa)),
    }
}

/// Prints `program` as hex, one instruction per line.
pub fn print_hex(isa: Isa, program: &Program) -> Result<String, Error> {
    match isa {
        Isa::Dxbc => dxbc::print_hex(program),
        _ => Err(not_built(isa)),
    }
}

/// Whether `bytes` is the binary form of `isa` (otherwise it is read as text).
pub fn looks_binary(isa: Isa, bytes: &[u8]) -> bool {
    match isa {
        Isa::Dxbc => dxbc::looks_binary(bytes),
        _ => std::str::from_utf8(bytes).is_err(),
    }
}
