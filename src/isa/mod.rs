//! One module per instruction set, each behind the one [`Codec`] trait that
//! [`crate::decode`], [`crate::encode`], translation and the CLI go through.
//!
//! A codec reads and writes its ISA (text, binary, hex), lifts what it reads into the IR, and,
//! as a translation backend, builds a whole program of its ISA from target-ready IR
//! ([`Codec::emit`]). What it can express is data: [`Codec::caps`] (from
//! `mappings/targets.toml`) and, for register-vector constraints, [`Codec::register_groups`].

/// The [`Codec`] methods every ISA module implements as free functions of the same names
/// (`print_text`, `decode_binary`, ..., `emit::emit_output`, `readme_table`): one
/// delegation, written once.
macro_rules! codec_functions {
    ($isa:ident) => {
        fn isa(&self) -> crate::ir::Isa {
            crate::ir::Isa::$isa
        }
        fn print_text(&self, program: &Program) -> Result<String, Error> {
            print_text(program)
        }
        fn decode_binary(&self, bytes: &[u8]) -> Result<Program, Error> {
            decode_binary(bytes)
        }
        fn encode_binary(&self, program: &Program) -> Result<Vec<u8>, Error> {
            encode_binary(program)
        }
        fn decode_hex(&self, words: &[&str]) -> Result<Program, Error> {
            decode_hex(words)
        }
        fn print_hex(&self, program: &Program) -> Result<String, Error> {
            print_hex(program)
        }
        fn looks_binary(&self, bytes: &[u8]) -> bool {
            looks_binary(bytes)
        }
        fn emit(&self, ir: &Program, options: &crate::isa::EmitOptions) -> Result<Program, Error> {
            emit::emit_output(std::borrow::Cow::Borrowed(ir), options, None)
                .map(|(program, _)| program)
        }
        fn emit_output(
            &self,
            ir: std::borrow::Cow<'_, Program>,
            options: &crate::isa::EmitOptions,
            form: crate::Form,
        ) -> Result<(Program, Option<Vec<u8>>), Error> {
            emit::emit_output(ir, options, Some(form))
        }
        fn readme_table(&self) -> String {
            readme_table()
        }
    };
}
pub(crate) use codec_functions;

pub mod constants;
pub mod dxbc;
pub mod hex;
pub mod hint;
pub mod names;
pub mod nvidia;
pub mod text_out;
pub mod visa;

pub use hex::parse_hex_words;

use crate::error::{Error, Unsupported};
use crate::ir::{AluInstr, Isa, Program, TexInstr};
use crate::mappings::targets::TargetCaps;
use crate::ReadOptions;

/// The form of an input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A listing, as the vendor tool prints it.
    Text,
    /// The binary encoding (for DX a whole DXBC container).
    Binary,
    /// DX only: the bare SM4/SM5 token stream, without the DXBC container around it.
    Tokens,
}

pub use crate::ir::layout::{GroupLayout, Operand, RegGroup};

/// An instruction set: its text and binary forms, its hex form on the command line, and
/// its backend for translation.
pub trait Codec: Sync {
    /// Which ISA this is.
    fn isa(&self) -> Isa;
    /// Parses text: single instructions or a whole listing/kernel.
    fn parse_text(&self, src: &str, read: ReadOptions) -> Result<Program, Error>;
    /// Prints a program as text.
    fn print_text(&self, program: &Program) -> Result<String, Error>;
    /// Decodes the ISA's binary form.
    fn decode_binary(&self, bytes: &[u8]) -> Result<Program, Error>;
    /// Encodes a program in the ISA's binary form.
    fn encode_binary(&self, program: &Program) -> Result<Vec<u8>, Error>;
    /// Decodes instructions given as hex words (the CLI's `--hex`).
    fn decode_hex(&self, words: &[&str]) -> Result<Program, Error>;
    /// [`Codec::decode_binary`] as `read` says (NVIDIA: for `read.sm`).
    fn decode_binary_with(&self, bytes: &[u8], read: ReadOptions) -> Result<Program, Error> {
        let _ = read;
        self.decode_binary(bytes)
    }
    /// [`Codec::decode_hex`] as `read` says (NVIDIA: for `read.sm`).
    fn decode_hex_with(&self, words: &[&str], read: ReadOptions) -> Result<Program, Error> {
        let _ = read;
        self.decode_hex(words)
    }
    /// An item of `program` (read by this codec) that translation must refuse rather than
    /// carry as a comment: NVIDIA words that decode as a texture instruction the hardware
    /// cannot run (`disasm` prints them). `None` by default.
    fn opaque_refusal(&self, program: &Program, item: &crate::ir::Opaque) -> Option<Error> {
        let _ = (program, item);
        None
    }
    /// What cross translation must refuse rather than carry as a comment:
    /// [`Codec::opaque_refusal`], and the texture instructions the source decodes and the
    /// hardware runs but the IR does not model (NVIDIA `.F16`, `TXD.LC`: identity paths keep
    /// them as read).
    fn opaque_untranslatable(&self, program: &Program, item: &crate::ir::Opaque) -> Option<Error> {
        self.opaque_refusal(program, item)
    }
    /// Prints the encoding of each instruction as hex, one instruction per line.
    fn print_hex(&self, program: &Program) -> Result<String, Error>;
    /// Encodes a program as its bare instruction stream without a container
    /// ([`Form::Tokens`]: DX's SM4/SM5 token stream). The other ISAs' binaries have no
    /// container to leave out: they refuse it.
    fn encode_tokens(&self, program: &Program) -> Result<Vec<u8>, Error> {
        let _ = program;
        Err(Error::Unsupported(Unsupported::new(
            "a bare token stream (`--emit tokens`)",
            self.isa(),
            self.isa(),
            "tokens are DX's SM4/SM5 stream without its container; use the binary form",
        )))
    }
    /// What encoding `program` as `form` assumes that the program does not say, as warnings
    /// for the caller to show (DX: single instructions without a profile line are assembled
    /// as `ps_5_0`). Nothing is printed.
    fn encode_warnings(&self, program: &Program, form: Form) -> Vec<String> {
        let _ = (program, form);
        Vec::new()
    }
    /// Whether `bytes` is the binary form (otherwise it is read as text).
    fn looks_binary(&self, bytes: &[u8]) -> bool;
    /// What the ISA can express, as data (`mappings/targets.toml`).
    fn caps(&self) -> &'static TargetCaps {
        crate::mappings::targets::caps(self.isa())
    }
    /// The register vectors `t` reads and writes in this ISA: operands that must be
    /// consecutive and aligned. Empty when the ISA has no such constraint.
    fn register_groups(&self, t: &TexInstr) -> Result<Vec<RegGroup>, Error> {
        let _ = t;
        Ok(Vec::new())
    }
    /// For each texture instruction of `program`, in order, the registers the stream before
    /// it sets to a constant that nothing in between overwrites (`MOV32I R9, 0xe1`, DX
    /// `mov r0.x, l(0)`): what `passes::fold_constants` folds into immediates. A codec that
    /// cannot tell reports none.
    fn constants(&self, program: &Program) -> Vec<Vec<(crate::ir::Reg, u32)>> {
        vec![Vec::new(); program.tex_instrs().count()]
    }
    /// Whether a text line declares something instructions depend on (DX `dcl_*` and the
    /// profile line, vISA `.` directives): what the semantic check keeps of a source besides
    /// its texture instructions.
    fn is_declaration(&self, line: &str) -> bool {
        let _ = line;
        false
    }
    /// Registers of `program` that alias storage of another (vISA `.decl V49 ... alias=<V38,
    /// 0>`): variable → (root variable, byte offset). The passes map a register through its
    /// root, so that aliases of one storage land in one target register.
    fn aliases(&self, program: &Program) -> Vec<(u32, u32, u32)> {
        let _ = program;
        Vec::new()
    }
    /// Result channels `t` (read by this codec) writes to more than one destination, which
    /// the IR places once each ([`crate::ir::TexInstr::dst`]): (the other destination, the
    /// one the IR places the channel in), for the translation to copy after the instruction.
    /// DX: a resource swizzle naming a channel twice under the write mask (`sample r0.zw,
    /// v0.xyxx, t0.wwww, s0`). None by default.
    fn result_copies(
        &self,
        t: &crate::ir::TexInstr,
    ) -> Vec<(crate::ir::Scalar, crate::ir::Scalar)> {
        let _ = t;
        Vec::new()
    }
    /// Builds a whole program of this ISA from target-ready IR (the output of the passes):
    /// the instructions, the declarations they need and the program around them, so that
    /// [`Codec::print_text`] and [`Codec::encode_binary`] write what the vendor tool accepts.
    fn emit(&self, ir: &Program, options: &EmitOptions) -> Result<Program, Error>;
    /// [`Codec::emit`] of `ir` (owned: freed, or its items moved into the program, as the
    /// program is built), and the program's bytes in `form` when the backend writes them as
    /// it lays the program out (`None`: the caller encodes the program, [`crate::encode`]).
    /// The bytes are exactly what [`crate::encode`] of the program gives.
    fn emit_output(
        &self,
        ir: std::borrow::Cow<'_, Program>,
        options: &EmitOptions,
        form: Form,
    ) -> Result<(Program, Option<Vec<u8>>), Error> {
        let _ = form;
        Ok((self.emit(&ir, options)?, None))
    }
    /// The README table of the ISA's texture instructions, from `mappings/`.
    fn readme_table(&self) -> String;
    /// [`crate::stream::disasm`]: by default the whole-program path (decode, then print).
    fn stream_disasm(
        &self,
        input: &mut dyn crate::stream::Input,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        let program = self.decode_binary(&crate::stream::read_all(input)?)?;
        crate::stream::write_whole(out, self.print_text(&program)?.as_bytes())?;
        Ok(crate::stream::program_stats(&program))
    }
    /// [`crate::stream::disasm_with`]: by default [`Codec::stream_disasm`].
    fn stream_disasm_with(
        &self,
        input: &mut dyn crate::stream::Input,
        read: ReadOptions,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        let _ = read;
        self.stream_disasm(input, out)
    }
    /// [`crate::stream::disasm_hex_with`]: by default [`Codec::stream_disasm_hex`].
    fn stream_disasm_hex_with(
        &self,
        words: &[&str],
        read: ReadOptions,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        let _ = read;
        self.stream_disasm_hex(words, out)
    }
    /// [`crate::stream::disasm_hex`]: by default the whole-program path.
    fn stream_disasm_hex(
        &self,
        words: &[&str],
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        let program = self.decode_hex(words)?;
        crate::stream::write_whole(out, self.print_text(&program)?.as_bytes())?;
        Ok(crate::stream::program_stats(&program))
    }
    /// [`crate::stream::transcode`]: by default the whole-program path.
    fn stream_transcode(
        &self,
        input: &mut dyn crate::stream::Input,
        read: ReadOptions,
        emit: Form,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        crate::stream::transcode_whole(self, input, read, emit, out)
    }
}

/// What a backend needs to know beyond the IR to build a whole program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmitOptions {
    /// DX shader stage (`ps`, `cs`): pixel when an instruction needs implicit derivatives,
    /// otherwise compute, unless the user says (`--stage`).
    pub stage: Option<Stage>,
    /// Kernel or entry-point name.
    pub name: Option<String>,
}

/// A shader stage, for targets whose programs name one (DX).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// A pixel shader (`ps_5_0`): implicit derivatives available.
    Pixel,
    /// A compute shader (`cs_5_0`).
    Compute,
    /// A vertex shader (`vs_5_0`).
    Vertex,
}

/// The codec of `isa`.
pub fn codec(isa: Isa) -> &'static dyn Codec {
    match isa {
        Isa::Visa => &visa::VisaCodec,
        Isa::Nvidia => &nvidia::NvidiaCodec,
        Isa::Dxbc => &dxbc::DxbcCodec,
    }
}

/// A comment in the syntax all three ISAs' text shares (`// ...`), every line of it. Control
/// characters other than tab are written as `\u{..}` escapes: a NUL or DEL carried over from
/// a source line would make the output look binary to a reader (texlate's own included).
pub fn comment_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 3);
    push_comment_line(&mut out, text);
    out
}

/// [`comment_line`], appended to `out` (no allocation of its own: backends write a comment
/// per source line they do not translate).
pub fn push_comment_line(out: &mut String, text: &str) {
    let escaped = |c: char| c.is_control() && c != '\t';
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
        }
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            out.push_str("//");
            continue;
        }
        out.push_str("// ");
        if !line.contains(escaped) {
            out.push_str(line);
            continue;
        }
        for c in line.chars() {
            if escaped(c) {
                out.extend(c.escape_unicode());
            } else {
                out.push(c);
            }
        }
    }
}

/// The error for an ALU instruction a backend has no encoding for.
pub fn alu_unsupported(a: &AluInstr, isa: Isa) -> Error {
    Error::Unsupported(Unsupported::new(
        format!("the ALU operation `{}`", a.op),
        isa,
        isa,
        "this backend has no encoding for it",
    ))
}

/// The op table of every ISA, rendered from `mappings/` (README's "Instructions" section and
/// `texlate ops`).
pub fn op_table_markdown() -> String {
    format!(
        "### Intel vISA\n\n{}\n### DirectX SM4/SM5 (DXBC)\n\n{}\n### NVIDIA Maxwell/Pascal (SM50–SM62)\n\n{}",
        codec(Isa::Visa).readme_table(),
        codec(Isa::Dxbc).readme_table(),
        codec(Isa::Nvidia).readme_table()
    )
}

#[cfg(test)]
mod tests {
    use super::comment_line;

    /// Every line commented, empty lines bare, `\r` before a line break dropped, control
    /// characters other than tab escaped.
    #[test]
    fn comment_lines() {
        assert_eq!(comment_line(""), "//");
        assert_eq!(comment_line("mov r0.x, l(0)"), "// mov r0.x, l(0)");
        assert_eq!(
            comment_line("a\u{0}b\u{7f}\r\n\nc\td\r"),
            "// a\\u{0}b\\u{7f}\n//\n// c\td"
        );
        assert_eq!(comment_line("x\r\r\ny"), "// x\n// y");
    }
}
