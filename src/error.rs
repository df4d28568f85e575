//! Errors, one type per layer (`DESIGN.md` §6). Every error says where: line and column
//! for text, byte offset for binaries.

use crate::ir::{Isa, Span};

/// A text input that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: expected {expected}, found `{token}`")]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    /// The offending token as written (empty at end of line).
    pub token: String,
    /// What the parser expected there.
    pub expected: String,
}

/// A binary input that does not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("byte offset {offset:#x}: {reason}")]
pub struct DecodeError {
    /// Offset of the offending field from the start of the input.
    pub offset: usize,
    /// Why it does not decode, naming the field (and the word, where the ISA has words).
    pub reason: String,
}

/// An instruction that parses or decodes but breaks a rule of its ISA.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {rule}: {detail}")]
pub struct ValidationError {
    pub location: Location,
    pub rule: &'static str,
    pub detail: String,
}

/// Where a validation error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Line and column of a text input.
    Text { line: u32, column: u32 },
    /// Byte offset of a binary input.
    Binary { offset: usize },
}

impl Location {
    /// The location a decoded item's span stands for.
    pub fn from_span(span: Span, text: bool) -> Self {
        if text {
            Location::Text {
                line: span.line,
                column: span.column,
            }
        } else {
            Location::Binary {
                offset: span.offset,
            }
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Text { line, column } => write!(f, "line {line}, column {column}"),
            Location::Binary { offset } => write!(f, "byte offset {offset:#x}"),
        }
    }
}

/// A request texlate cannot carry out, with what would allow it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{what} is not supported from {from} to {to}: {why}", at.map(|l| format!("{l}: ")).unwrap_or_default())]
pub struct Unsupported {
    pub what: String,
    pub from: &'static str,
    pub to: &'static str,
    pub why: String,
    /// Where the instruction was read, when the refusal is about one instruction.
    pub at: Option<Location>,
}

impl Unsupported {
    pub fn new(what: impl Into<String>, from: Isa, to: Isa, why: impl Into<String>) -> Self {
        Unsupported {
            what: what.into(),
            from: from.name(),
            to: to.name(),
            why: why.into(),
            at: None,
        }
    }

    /// The same refusal, located.
    pub fn at(self, location: Location) -> Self {
        Unsupported {
            at: Some(location),
            ..self
        }
    }
}

/// A bindings or register-map file that is malformed or contradicts itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: line {line}, column {column}: {reason}")]
pub struct ConfigError {
    /// Which file: `bindings` or `regmap` (or the path the user gave).
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub reason: String,
}

/// Any texlate error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("parse error: {0}")]
    Parse(#[from] ParseError),
    #[error("decode error: {0}")]
    Decode(#[from] DecodeError),
    #[error("invalid instruction: {0}")]
    Validation(#[from] ValidationError),
    #[error("unsupported: {0}")]
    Unsupported(#[from] Unsupported),
    #[error("{0}")]
    Config(#[from] ConfigError),
}
