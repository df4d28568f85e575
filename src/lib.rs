//! texlate translates GPU texture instructions between Intel vISA, DirectX SM4/SM5 (DXBC)
//! and NVIDIA Maxwell SASS through one shared texture-op IR ([`ir`]).
//!
//! ```text
//! input ──frontend──▶ Program (IR) ──passes──▶ backend ──▶ output
//! ```
//!
//! The parts are public for tools that need them: [`decode`] a text or binary input into a
//! [`ir::Program`], inspect or rewrite it, and [`encode`] it again.

pub mod error;
pub mod ir;
pub mod isa;
mod mappings;

pub use error::Error;
pub use ir::{Isa, Program};
pub use isa::Form;

/// Decodes an input of `isa`, detecting whether it is text or binary.
pub fn decode(isa: Isa, input: &[u8]) -> Result<Program, Error> {
    if isa::looks_binary(isa, input) {
        isa::decode_binary(isa, input)
    } else {
        // looks_binary is false only for valid UTF-8 text.
        let text = String::from_utf8_lossy(input);
        isa::parse_text(isa, &text)
    }
}

/// Encodes `program` as `isa` text or binary.
pub fn encode(isa: Isa, program: &Program, form: Form) -> Result<Vec<u8>, Error> {
    match form {
        Form::Text => isa::print_text(isa, program).map(String::into_bytes),
        Form::Binary => isa::encode_binary(isa, program),
    }
}
