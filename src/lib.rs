//! texlate translates GPU texture instructions between Intel vISA, DirectX SM4/SM5 (DXBC)
//! and NVIDIA Maxwell SASS through one shared texture-op IR ([`ir`]).
//!
//! ```text
//! input ──frontend──▶ Program (IR) ──passes──▶ backend ──▶ output
//! ```
//!
//! The parts are public for tools that need them: [`decode`] a text or binary input into a
//! [`ir::Program`], inspect or rewrite it, and [`encode`] it again.
//!
//! ```
//! use texlate::{decode, encode, ir, Form, Isa};
//!
//! // An NVIDIA instruction as nvdisasm prints it, to its 64-bit word and its IR.
//! let program = decode(Isa::Nvidia, b"TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n")?;
//! assert_eq!(texlate::isa::codec(Isa::Nvidia).print_hex(&program)?.trim(), "d83006e060570404");
//! let tex = program.tex_instrs().next().expect("one texture instruction");
//! assert_eq!(tex.op, ir::TexOp::Sample);
//! assert_eq!(tex.coord.len(), 2);
//!
//! // A vISA sampler instruction, edited in the IR and encoded again.
//! let mut program = decode(Isa::Visa, b"sample_lz.RGBA (M1, 16) 0x0:uw S0 T6 V0057.0 V0053.0 V0059.0\n")?;
//! if let Some(ir::Item::Tex(tex)) = program.items.first_mut() {
//!     tex.offset = ir::Offset::Imm([1, -2, 0]);
//! }
//! let text = encode(Isa::Visa, &program, Form::Text)?;
//! assert_eq!(
//!     String::from_utf8(text).unwrap(),
//!     "sample_lz.RGBA (M1, 16)  0x1e0:uw S0 T6 V0057.0 V0053.0 V0059.0\n"
//! );
//! # Ok::<(), texlate::Error>(())
//! ```

#![warn(missing_docs)]

pub mod batch;
pub mod check;
pub mod diagnostic;
pub mod error;
pub mod hash;
pub mod ir;
pub mod isa;
pub mod mappings;
pub mod passes;
#[doc(hidden)]
pub mod rng;
pub mod stream;
pub mod translate;

pub use error::Error;
pub use ir::{Isa, Program};
pub use isa::{op_table_markdown, Form};

/// How strictly inputs are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Accept what IGC 1.0.12504 itself prints although it breaks a vISA rule: `sample4`
    /// parameters mixing F and HF (IGC's half-precision gather4). vISA text only.
    pub igc_compatible: bool,
    /// The NVIDIA architecture, by nvdisasm's name (default SM50): which forms and fields a
    /// word decodes to and an instruction may encode as (`mappings/nvidia.toml`). NVIDIA
    /// only; on `translate` the NVIDIA side's (source, target or both).
    pub sm: isa::nvidia::Sm,
}

/// Decodes an input of `isa`, detecting whether it is text or binary.
pub fn decode(isa: Isa, input: &[u8]) -> Result<Program, Error> {
    decode_with(isa, input, ReadOptions::default())
}

/// [`decode`] with explicit [`ReadOptions`].
pub fn decode_with(isa: Isa, input: &[u8], options: ReadOptions) -> Result<Program, Error> {
    let codec = isa::codec(isa);
    if codec.looks_binary(input) {
        return codec.decode_binary_with(input, options);
    }
    parse_text_with(isa, text_input(isa, input)?, options)
}

/// `input` (not `isa` binary) as text: the error [`decode_with`] gives when it is not UTF-8.
pub(crate) fn text_input(isa: Isa, input: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(input).map_err(|e| {
        Error::Decode(error::DecodeError {
            offset: e.valid_up_to(),
            reason: format!("neither {} binary nor UTF-8 text", isa.name()),
        })
    })
}

/// Parses `isa` text with explicit [`ReadOptions`].
pub fn parse_text_with(isa: Isa, text: &str, options: ReadOptions) -> Result<Program, Error> {
    isa::codec(isa).parse_text(text, options)
}

/// Encodes `program` as `isa` text or binary (or, for DX, the bare token stream).
pub fn encode(isa: Isa, program: &Program, form: Form) -> Result<Vec<u8>, Error> {
    match form {
        Form::Text => isa::codec(isa).print_text(program).map(String::into_bytes),
        Form::Binary => isa::codec(isa).encode_binary(program),
        Form::Tokens => isa::codec(isa).encode_tokens(program),
    }
}
