//! Errors, one type per layer (`DESIGN.md` §6). Every error says where: line and column
//! for text, byte offset for binaries.

use crate::ir::{Isa, Span};

/// A text input that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: expected {expected}, found `{token}`")]
pub struct ParseError {
    /// Line of the token, from 1.
    pub line: u32,
    /// Column of the token, from 1, in characters.
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
    /// Where the instruction was read.
    pub location: Location,
    /// The rule's name (e.g. `aoffimmi-reserved`), stable for tools.
    pub rule: &'static str,
    /// How the instruction breaks it.
    pub detail: String,
}

/// Where a validation error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Line and column of a text input.
    Text {
        /// Line, from 1.
        line: u32,
        /// Column, from 1, in characters.
        column: u32,
    },
    /// Byte offset of a binary input.
    Binary {
        /// Offset from the start of the input.
        offset: usize,
    },
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
    /// What is refused (an instruction, a resource, an ISA pair).
    pub what: String,
    /// The source ISA's name.
    pub from: &'static str,
    /// The target ISA's name.
    pub to: &'static str,
    /// Why, and what would allow it (e.g. a bindings row).
    pub why: String,
    /// Where the instruction was read, when the refusal is about one instruction.
    pub at: Option<Location>,
}

impl Unsupported {
    /// A refusal of `what` from `from` to `to`, without location.
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

impl Error {
    /// A backend's refusal named as the translation's: a backend building a program of its
    /// ISA refuses "from" its own ISA (it does not know the source); the translation from
    /// `from` says so. Other errors are unchanged.
    pub fn from_source(self, from: Isa) -> Self {
        match self {
            Error::Unsupported(mut u) if u.from == u.to => {
                u.from = from.name();
                Error::Unsupported(u)
            }
            e => e,
        }
    }
}

/// A bindings or register-map file that is malformed or contradicts itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: line {line}, column {column}: {reason}")]
pub struct ConfigError {
    /// Which file: `bindings` or `regmap` (or the path the user gave).
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// What is wrong, and what was expected.
    pub reason: String,
}

/// Any texlate error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A text input that does not parse.
    #[error("parse error: {0}")]
    Parse(#[from] ParseError),
    /// A binary input that does not decode.
    #[error("decode error: {0}")]
    Decode(#[from] DecodeError),
    /// An instruction that breaks a rule of its ISA.
    #[error("invalid instruction: {0}")]
    Validation(#[from] ValidationError),
    /// A request texlate cannot carry out.
    #[error("unsupported: {0}")]
    Unsupported(#[from] Unsupported),
    /// A malformed bindings or register-map file.
    #[error("{0}")]
    Config(#[from] ConfigError),
}
