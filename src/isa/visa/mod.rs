//! Intel vISA (IGC's virtual ISA): the 3D sampler instructions `3D_SAMPLE` (0x6d),
//! `3D_LOAD` (0x6e), `3D_SAMPLE4` (0x6f), `INFO_3D` (0x70) and `GATHER4_TYPED` (0x4b), as
//! `.visaasm` text exactly as IGC 1.0.12504 prints it and as vISA binary instructions.
//!
//! - `text`: the line parser and printer; a whole kernel file round-trips byte-identically
//!   (non-sampler lines are opaque items; `.decl` lines also name the variables).
//! - `binary`: the instruction encoding (research §6).
//! - `lift` / `emit_inst`: vISA instruction ↔ IR; what the IR does not carry lives in
//!   [`VisaExtras`] (`Origin::Visa`) and, per program, [`VisaProgram`] (`Program::visa`).
//! - `validate`: the rules of the seeds that GenX_IR does not enforce.
//! - `emit` (the translation backend, a whole kernel from target-ready IR) and `alu`
//!   (IR ALU instructions as vISA arithmetic, printed and encoded).
//!
//! The tables (opcodes, sub-ops, parameter orders, types, modifiers) are
//! `mappings/visa.toml`.

mod accept;
mod alu;
mod binary;
mod constants;
mod container;
mod decls;
mod emit;
mod emit_inst;
mod groups;
mod inst;
mod lift;
mod names;
mod stream;
mod tables;
mod text;
mod validate;

use crate::error::{Error, Location, Unsupported, ValidationError};
use crate::ir::{Isa, Item, Opaque, Program, Span, TexInstr};

pub use container::{IsaContainer, IsaKernel, IsaSampler};
pub use inst::{
    Aoffimmi, Checks, Gap, Layout, MsForm, Raw, Region, VisaExtras, VisaInst, VisaProgram,
};
pub use lift::unpack_aoffimmi;

use emit_inst::EmitError;
use inst::FieldPositions;
use names::{Named, Scope};

/// Parses `.visaasm` text (a whole kernel file or bare instructions) under [`Checks::Strict`].
pub fn parse_text(src: &str) -> Result<Program, Error> {
    parse_text_with(src, Checks::Strict)
}

/// What [`read_lines`] returns: the declarations, the lines, each line's instruction, and
/// the first error reading them under [`Checks::Strict`] gives, when `checks` relaxes it.
type ReadLines<'a> = (
    Program,
    Vec<&'a str>,
    Vec<Option<text::ParsedLine>>,
    Option<Error>,
);

/// The declarations of `.visaasm` text (a program holding them) and every line with its
/// sampler instruction, parsed and checked under `checks` (`None` for other lines, which are
/// checked to be valid vISA lines of another kind): what [`parse_text_with`] lifts and
/// [`parse_text_instructions`] hands out as they are. Under [`Checks::IgcCompatible`] it also
/// says what a strict reading refuses: the first line whose instruction only the relaxation
/// lets through (every earlier line reads alike either way, so this is the error a strict
/// reading of the whole text stops at).
fn read_lines(src: &str, checks: Checks) -> Result<ReadLines<'_>, Error> {
    let (lines, crlf, final_newline) = split_lines(src);
    let mut program = Program::new(Isa::Visa);
    let mut visa = VisaProgram {
        crlf,
        final_newline,
        checks,
        ..VisaProgram::default()
    };
    names::read_decls(&lines, &mut program, &mut visa)?;
    program.state = crate::ir::Origin::new(visa);
    let mut parsed_lines = Vec::with_capacity(lines.len());
    let mut strict_refusal = None;
    {
        let scope = Scope::new(&program);
        let mut in_comment = false;
        for (i, line) in lines.iter().enumerate() {
            let no = i as u32 + 1;
            let parsed = read_line(
                line,
                no,
                &scope,
                checks,
                &mut in_comment,
                &mut strict_refusal,
            )?;
            parsed_lines.push(parsed);
        }
    }
    Ok((program, lines, parsed_lines, strict_refusal))
}

/// Line `no` of `.visaasm` text, parsed and checked under `checks`: its sampler instruction,
/// or `None` for a line of another kind (checked to be a valid vISA line). `in_comment`
/// carries a `/* ... */` comment from line to line. An instruction that only a relaxed
/// `checks` lets through leaves its strict refusal in `strict_refusal`, unless one is there.
fn read_line(
    line: &str,
    no: u32,
    scope: &Scope,
    checks: Checks,
    in_comment: &mut bool,
    strict_refusal: &mut Option<Error>,
) -> Result<Option<text::ParsedLine>, Error> {
    if !*in_comment && text::is_other_instruction(line.as_bytes()) {
        return Ok(None);
    }
    let parsed = if *in_comment {
        None
    } else {
        text::parse_line(line, no, scope)?
    };
    match &parsed {
        None => text::check_other_line(line, no, in_comment)?,
        Some(p) => check_read(
            &p.inst,
            &p.positions,
            (no, line),
            scope,
            checks,
            strict_refusal,
        )?,
    }
    Ok(parsed)
}

/// Checks instruction `inst` read from `line` (number and text; `positions` locate its
/// fields there) under `checks`. An instruction that only a relaxed `checks` lets through
/// leaves its strict refusal in `strict_refusal`, unless one is there.
fn check_read(
    inst: &VisaInst,
    positions: &FieldPositions,
    line: (u32, &str),
    scope: &Scope,
    checks: Checks,
    strict_refusal: &mut Option<Error>,
) -> Result<(), Error> {
    let check = |checks| {
        validate::check(inst, checks, &|v| scope.var_type(v))
            .map_err(|v| v.locate(positions, Some(line)))
    };
    // What the strict rules accept, every reading accepts.
    if let Err(e) = check(Checks::Strict) {
        if checks == Checks::Strict {
            return Err(e);
        }
        check(checks)?;
        strict_refusal.get_or_insert(e);
    }
    Ok(())
}

/// The sampler instruction parsed from line `no` as a texture instruction.
fn lift_line(
    line: &str,
    no: u32,
    parsed: text::ParsedLine,
    scope: &Scope,
) -> Result<TexInstr, Error> {
    let op = parsed.inst.op().ok_or_else(|| internal("parsed op"))?;
    let extras = VisaExtras {
        layout: Some(parsed.layout),
        ..VisaExtras::default()
    };
    let span = Span {
        offset: 0,
        line: no,
        column: names::column(line, parsed.positions.start),
    };
    Ok(lift::lift(
        &parsed.inst,
        op,
        &|v| scope.var_type(v),
        extras,
        span,
    ))
}

/// Parses `.visaasm` text under `checks`.
pub fn parse_text_with(src: &str, checks: Checks) -> Result<Program, Error> {
    parse_lifted(src, checks).map(|(program, _)| program)
}

/// Parses `.visaasm` text under [`Checks::IgcCompatible`], with the error reading it under
/// [`Checks::Strict`] gives ([`parse_text`]; `None` when that reading succeeds): one reading
/// where the relaxed one succeeds, the strict reading of the whole text again where it fails.
pub fn parse_text_relaxed(src: &str) -> (Result<Program, Error>, Option<Error>) {
    match parse_lifted(src, Checks::IgcCompatible) {
        Ok((program, strict_refusal)) => (Ok(program), strict_refusal),
        Err(e) => (Err(e), parse_text(src).err()),
    }
}

/// [`parse_text_with`], with [`read_lines`]' strict refusal.
fn parse_lifted(src: &str, checks: Checks) -> Result<(Program, Option<Error>), Error> {
    let (mut program, lines, parsed_lines, strict_refusal) = read_lines(src, checks)?;
    let mut items = Vec::with_capacity(lines.len());
    {
        let scope = Scope::new(&program);
        for (i, (line, parsed)) in lines.iter().zip(parsed_lines).enumerate() {
            let no = i as u32 + 1;
            let Some(parsed) = parsed else {
                items.push(Item::Opaque(Opaque {
                    text: Some(line.to_string()),
                    bytes: Vec::new(),
                    span: Span {
                        offset: 0,
                        line: no,
                        column: 1,
                    },
                }));
                continue;
            };
            let tex = lift_line(line, no, parsed, &scope)?;
            items.push(Item::Tex(Box::new(tex)));
        }
        // The ALU instructions texlate's backend emits, as `Item::Alu`.
        crate::ir::lift_alu(Isa::Visa, &mut items, |run| {
            let lines = run
                .iter()
                .map(|o| o.text.as_deref())
                .collect::<Option<Vec<_>>>()?;
            alu::lift(&lines, &scope)
        });
    }
    program.items = items;
    Ok((program, strict_refusal))
}

/// The sampler instructions of `.visaasm` text as [`VisaInst`]s, parsed and checked under
/// `checks` but not lifted, each with its 1-based line number, and the program holding the
/// declarations (for [`general_variable`] and [`variable_type`]). For tools that need the
/// instructions themselves (the semantic check, `crate::check::visa`).
pub fn parse_text_instructions(
    src: &str,
    checks: Checks,
) -> Result<(Program, Vec<(u32, VisaInst)>), Error> {
    let (program, _, parsed_lines, _) = read_lines(src, checks)?;
    let out = parsed_lines
        .into_iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i as u32 + 1, p.inst)))
        .collect();
    Ok((program, out))
}

/// The variable index a general-variable name has in `program` (as raw operands number
/// them): predefined names, declared names, or IGC's `V<n>` in undeclared programs.
pub fn general_variable(program: &Program, name: &str) -> Option<u32> {
    match Scope::new(program).resolve(name) {
        Some(names::Named::General(i)) => Some(i),
        _ => None,
    }
}

/// The declared element type (`f`, `ud`, ...) of general variable `index`.
pub fn variable_type(program: &Program, index: u32) -> Option<&'static str> {
    Scope::new(program).var_type(index).map(|t| t.name.as_str())
}

/// Prints `program` as `.visaasm` text.
pub fn print_text(p: &Program) -> Result<String, Error> {
    // ALU instructions read from text print as they were read.
    let p = &*p.alu_as_read();
    let scope = Scope::new(p);
    let checks = p
        .state
        .get::<VisaProgram>()
        .map_or(Checks::Strict, |v| v.checks);
    let (eol, final_newline) = match p.state.get::<VisaProgram>() {
        Some(v) => (if v.crlf { "\r\n" } else { "\n" }, v.final_newline),
        None => ("\n", true),
    };
    let mut text = TextOut::new(p.items.len(), eol);
    for (k, item) in p.items.iter().enumerate() {
        let at = |_: &TexInstr| Location::Text {
            line: k as u32 + 1,
            column: 1,
        };
        text.item(item, p.isa, &scope, checks, at)?;
    }
    Ok(text.finish(final_newline))
}

/// A `.visaasm` text written item by item into one buffer, one line per item (an ALU
/// item's instructions on lines of their own): [`print_text`], and the backend writing the
/// kernel as it checks it ([`emit::emit_output`]).
pub(crate) struct TextOut {
    out: String,
    eol: &'static str,
    items: usize,
}

impl TextOut {
    /// A buffer for about `items` items, lines ending with `eol`.
    pub(crate) fn new(items: usize, eol: &'static str) -> TextOut {
        TextOut {
            out: String::with_capacity(items * 64),
            eol,
            items: 0,
        }
    }

    /// Writes `line` as the next line.
    pub(crate) fn line(&mut self, line: &str) {
        self.next_line();
        self.out.push_str(line);
    }

    /// Writes `item` of a program in `isa` on the next line(s). An instruction is emitted
    /// and checked (`checks`) on the way: a texture instruction `t` that does not emit is an
    /// error located at `at(t)`.
    pub(crate) fn item(
        &mut self,
        item: &Item,
        isa: Isa,
        scope: &Scope,
        checks: Checks,
        at: impl FnOnce(&TexInstr) -> Location,
    ) -> Result<(), Error> {
        self.next_line();
        let out = &mut self.out;
        match item {
            Item::Opaque(o) => out.push_str(&opaque_line(isa, o)?),
            Item::Comment(c) => crate::isa::push_comment_line(out, &c.text),
            Item::Alu(a) => {
                for (j, i) in alu::emit(a, scope)?.iter().enumerate() {
                    if j > 0 {
                        out.push_str(self.eol);
                    }
                    alu::print_into(out, i, scope);
                }
            }
            Item::Tex(t) => write_tex_at(out, t, isa, scope, checks, at(t))?,
        }
        Ok(())
    }

    /// Ends the line before, if any.
    fn next_line(&mut self) {
        if self.items > 0 {
            self.out.push_str(self.eol);
        }
        self.items += 1;
    }

    /// The text, with a line break after the last line when `final_newline` asks for one.
    pub(crate) fn finish(mut self, final_newline: bool) -> String {
        if final_newline && self.items > 0 {
            self.out.push_str(self.eol);
        }
        self.out
    }
}

/// The line of texture instruction `t` (of a program read from `from`), printed as line
/// `line_no` and appended to `out`: in its layout when read from text.
fn write_tex(
    out: &mut String,
    t: &TexInstr,
    from: Isa,
    scope: &Scope,
    checks: Checks,
    line_no: u32,
) -> Result<(), Error> {
    let at = Location::Text {
        line: line_no,
        column: 1,
    };
    write_tex_at(out, t, from, scope, checks, at)
}

/// [`write_tex`], an instruction that does not emit an error located at `at`.
fn write_tex_at(
    out: &mut String,
    t: &TexInstr,
    from: Isa,
    scope: &Scope,
    checks: Checks,
    at: Location,
) -> Result<(), Error> {
    let inst = emit_checked(t, from, scope, checks, at)?;
    let op = inst.op().ok_or_else(|| internal("emitted op"))?;
    let layout = t.origin.get::<VisaExtras>().and_then(|e| e.layout.as_ref());
    text::write_line(out, &inst, op, layout, scope);
    Ok(())
}

/// The text of an opaque item: vISA lines as read; another ISA's lines as vISA comments, so
/// nothing is dropped silently.
fn opaque_line(isa: Isa, o: &Opaque) -> Result<String, Error> {
    match (&o.text, isa) {
        (Some(t), Isa::Visa) => Ok(t.clone()),
        (Some(t), other) => Ok(format!("// not translated from {}: {t}", other.name())),
        (None, _) => Err(Error::Unsupported(Unsupported::new(
            format!("an opaque binary item of {} bytes", o.bytes.len()),
            isa,
            Isa::Visa,
            "it has no text form",
        ))),
    }
}

/// Reads IGC 1.0.12504's `.isa` container: per kernel its name and the sampler instructions
/// of its stream, as far as 12504's truncating writer kept them (research §6).
pub fn decode_isa_container(bytes: &[u8]) -> Result<IsaContainer, Error> {
    container::decode(bytes)
}

/// Decodes one sampler instruction (full layout) at `bytes[at..]`: the instruction and the
/// offset after it.
pub fn decode_instruction(bytes: &[u8], at: usize) -> Result<(VisaInst, usize), Error> {
    binary::decode_inst(bytes, at).map(|(inst, _, next)| (inst, next))
}

/// Decodes a stream of vISA sampler instructions. `.isa` containers are refused: IGC 12504's
/// writer cut the last operands of each instruction, so they cannot become whole texture
/// instructions; [`decode_isa_container`] reads what they hold.
pub fn decode_binary(bytes: &[u8]) -> Result<Program, Error> {
    refuse_container(bytes)?;
    let mut program = Program::new(Isa::Visa);
    let mut at = 0;
    while at < bytes.len() {
        let (tex, next) = decode_tex(bytes, at, at)?;
        program.items.push(Item::Tex(Box::new(tex)));
        at = next;
    }
    Ok(program)
}

/// The error [`decode_binary`] gives for an input that starts as an `.isa` container.
fn refuse_container(bytes: &[u8]) -> Result<(), Error> {
    if bytes.starts_with(container::MAGIC) {
        return Err(binary::decode_error(
            0,
            "a vISA container (.isa file): IGC 12504's writer cut the last operands of each \
             instruction, so it holds no whole texture instruction; `texlate disasm --isa \
             visa` (texlate::isa::visa::decode_isa_container) shows what it holds",
        ));
    }
    Ok(())
}

/// Decodes and checks the instruction at `bytes[at..]` as a texture instruction, and the
/// offset after it. `base` is the input offset of `bytes[0]`, for the span and errors.
fn decode_tex(bytes: &[u8], at: usize, base_at: usize) -> Result<(TexInstr, usize), Error> {
    let (mut inst, mut positions) = (VisaInst::default(), FieldPositions::default());
    let next = decode_checked(bytes, at, base_at, &mut inst, &mut positions)?;
    Ok((lift_decoded(&inst, base_at)?, next))
}

/// Decodes the instruction at `bytes[at..]` into `inst` ([`binary::decode_inst_into`]) and
/// checks it as a binary's instruction (no declared types); the offset after it. `base_at`
/// is the input offset of `bytes[at]`, for errors.
fn decode_checked(
    bytes: &[u8],
    at: usize,
    base_at: usize,
    inst: &mut VisaInst,
    positions: &mut FieldPositions,
) -> Result<usize, Error> {
    let shift = |e| binary::shift_error(e, base_at - at);
    let next = binary::decode_inst_into(bytes, at, inst, positions).map_err(shift)?;
    validate::check(inst, Checks::Strict, &|_| None)
        .map_err(|v| shift(v.locate(positions, None)))?;
    Ok(next)
}

/// A decoded instruction (at input offset `at`) as a texture instruction.
fn lift_decoded(inst: &VisaInst, at: usize) -> Result<TexInstr, Error> {
    let op = inst.op().ok_or_else(|| internal("decoded op"))?;
    let span = Span {
        offset: at,
        line: 0,
        column: 0,
    };
    Ok(lift::lift(inst, op, &|_| None, VisaExtras::default(), span))
}

/// Encodes the texture instructions of `p`, in order. Opaque text lines (declarations and
/// non-sampler instructions of a kernel file) have no binary form here and are skipped;
/// opaque binary items are copied.
pub fn encode_binary(p: &Program) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    for_each_encoded(p, |bytes| out.extend_from_slice(bytes))?;
    Ok(out)
}

/// Decodes instructions given as hex: bytes separated by whitespace, or long hex strings.
pub fn decode_hex(words: &[&str]) -> Result<Program, Error> {
    let bytes = crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Bytes)?;
    decode_binary(&bytes)
}

/// Prints the encoding of each texture instruction as hex bytes, one instruction per line.
pub fn print_hex(p: &Program) -> Result<String, Error> {
    let mut out = String::new();
    for_each_encoded(p, |bytes| {
        crate::isa::hex::push_bytes_hex(&mut out, bytes, " ");
        out.push('\n');
    })?;
    Ok(out)
}

/// Whether `bytes` is vISA binary: sampler instructions always hold zero bytes (variable
/// indices are u32), text never does; `.isa` files start with `CISA`.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(b"CISA") || bytes.contains(&0) || std::str::from_utf8(bytes).is_err()
}

/// Encodes each item of `p` and hands its bytes to `sink`.
fn for_each_encoded(p: &Program, mut sink: impl FnMut(&[u8])) -> Result<(), Error> {
    // ALU instructions read from text stay text lines, as before they were read as `Item::Alu`:
    // the binary decoder reads sampler instructions only (and a bare stream has no
    // declarations to tell a `mov` copy from a `mov` conversion).
    let p = &*p.alu_as_read();
    let scope = Scope::new(p);
    let checks = p
        .state
        .get::<VisaProgram>()
        .map_or(Checks::Strict, |v| v.checks);
    let mut offset = 0;
    let mut buf = Vec::new();
    for item in &p.items {
        match item {
            Item::Opaque(o) if o.text.is_none() => buf.extend_from_slice(&o.bytes),
            Item::Opaque(_) | Item::Comment(_) => {}
            Item::Alu(a) => {
                for i in alu::emit(a, &scope)? {
                    alu::encode(&i, &mut buf);
                }
            }
            Item::Tex(t) => encode_tex(t, p.isa, &scope, checks, offset, &mut buf)?,
        }
        if !buf.is_empty() {
            sink(&buf);
            offset += buf.len();
            buf.clear();
        }
    }
    Ok(())
}

/// Appends the encoding of texture instruction `t` (of a program read from `from`) to
/// `buf`; errors are located at `offset`, where it starts in the output.
fn encode_tex(
    t: &TexInstr,
    from: Isa,
    scope: &Scope,
    checks: Checks,
    offset: usize,
    buf: &mut Vec<u8>,
) -> Result<(), Error> {
    let inst = emit_checked(t, from, scope, checks, Location::Binary { offset })?;
    binary::encode_inst(&inst, buf).map_err(|why| {
        Error::Validation(ValidationError {
            location: Location::Binary { offset },
            rule: "encoding",
            detail: why,
        })
    })
}

/// Emits one IR instruction as a vISA instruction and checks it; errors are located at `at` (the output position).
fn emit_checked(
    t: &TexInstr,
    from: Isa,
    scope: &Scope,
    checks: Checks,
    at: Location,
) -> Result<VisaInst, Error> {
    let located = |rule, detail| {
        Error::Validation(ValidationError {
            location: at,
            rule,
            detail,
        })
    };
    let mut inst = emit_inst::emit(t, &|v| scope.var_type(v)).map_err(|e| match e {
        EmitError::Rule(v) => located(v.rule, v.detail),
        EmitError::Unsupported(what, why) => {
            Error::Unsupported(Unsupported::new(what, from, Isa::Visa, why))
        }
    })?;
    // A translated parameter held in a variable of another type is read through the alias
    // of the type it needs, which `emit::emit_output` declares (`tex_aliases_needed`).
    if t.origin.get::<VisaExtras>().is_none() {
        for (i, ty) in validate::param_retypes(&inst, &|v| scope.var_type(v)) {
            let alias = alu::alias_name(&scope.var_name(inst.params[i].var), ty);
            if let Some(Named::General(index)) = scope.resolve(&alias) {
                inst.params[i].var = index;
            }
        }
    }
    validate::check(&inst, checks, &|v| scope.var_type(v))
        .map_err(|v| located(v.rule, v.detail))?;
    Ok(inst)
}

/// Splits `src` into lines: `\r\n` endings when every line has one, the last line's
/// terminator remembered.
fn split_lines(src: &str) -> (Vec<&str>, bool, bool) {
    if src.is_empty() {
        return (Vec::new(), false, false);
    }
    let final_newline = src.ends_with('\n');
    let body = if final_newline {
        &src[..src.len() - 1]
    } else {
        src
    };
    let mut lines: Vec<&str> = body.split('\n').collect();
    let terminated = if final_newline {
        lines.len()
    } else {
        lines.len() - 1
    };
    let crlf = terminated > 0 && lines[..terminated].iter().all(|l| l.ends_with('\r'));
    if crlf {
        for l in &mut lines[..terminated] {
            *l = &l[..l.len() - 1];
        }
    }
    (lines, crlf, final_newline)
}

/// An internal invariant failed (a table and the code disagree); never user input.
fn internal(what: &str) -> Error {
    Error::Validation(ValidationError {
        location: Location::Binary { offset: 0 },
        rule: "internal",
        detail: format!("texlate's vISA tables are inconsistent ({what})"),
    })
}

/// The README table of vISA sampler instructions, rendered from `mappings/visa.toml`.
pub fn readme_table() -> String {
    let mut s = String::from(
        "| vISA mnemonic | opcode | sub-op | IR op | parameters |\n|---|---|---|---|---|\n",
    );
    for op in &tables::tables().ops {
        let names = |v: &[tables::Slot]| v.iter().map(|s| s.name()).collect::<Vec<_>>().join(" ");
        let mut params = names(&op.params);
        if !op.params_w.is_empty() {
            params = format!("{params} (W form: {})", names(&op.params_w));
        }
        s.push_str(&format!(
            "| `{}` | {:#04x} {} | {} | {} | {} |\n",
            op.mnemonic,
            op.opcode,
            op.opcode_desc().name,
            op.subop,
            op.ir_name(),
            params
        ));
    }
    s
}

/// The Visa codec ([`crate::isa::Codec`]).
pub struct VisaCodec;

impl crate::isa::Codec for VisaCodec {
    crate::isa::codec_functions!(Visa);
    fn is_declaration(&self, line: &str) -> bool {
        line.trim_start().starts_with('.')
    }
    fn constants(&self, program: &Program) -> Vec<Vec<(crate::ir::Reg, u32)>> {
        let aliased = self
            .aliases(program)
            .into_iter()
            .flat_map(|(v, root, _)| [v, root])
            .collect();
        constants::constants(program, &aliased)
    }
    fn aliases(&self, program: &Program) -> Vec<(u32, u32, u32)> {
        let scope = Scope::new(program);
        let general = |name: &str| match scope.resolve(name.trim()) {
            Some(names::Named::General(i)) => Some(i),
            _ => None,
        };
        let mut out = Vec::new();
        for item in &program.items {
            let Item::Opaque(o) = item else { continue };
            let Some(rest) = o
                .text
                .as_deref()
                .and_then(|t| t.trim_start().strip_prefix(".decl "))
            else {
                continue;
            };
            let (Some(name), Some(at)) = (rest.split_whitespace().next(), rest.find("alias=<"))
            else {
                continue;
            };
            let inner = &rest[at + 7..];
            let Some((root, offset)) = inner.split_once(',') else {
                continue;
            };
            let offset = offset.trim().trim_end_matches('>').trim().parse::<u32>();
            if let (Some(v), Some(r), Ok(off)) = (general(name), general(root), offset) {
                out.push((v, r, off));
            }
        }
        out
    }
    fn register_groups(&self, t: &crate::ir::TexInstr) -> Result<Vec<crate::isa::RegGroup>, Error> {
        Ok(groups::register_groups(t))
    }
    fn parse_text(&self, src: &str, read: crate::ReadOptions) -> Result<Program, Error> {
        parse_text_with(src, read_checks(read))
    }
    fn stream_disasm(
        &self,
        input: &mut dyn crate::stream::Input,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm(input, out)
    }
    fn stream_disasm_hex(
        &self,
        words: &[&str],
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm_hex(words, out)
    }
    fn stream_transcode(
        &self,
        input: &mut dyn crate::stream::Input,
        read: crate::ReadOptions,
        emit: crate::Form,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        match stream::transcode(input, read_checks(read), emit, out)? {
            Some(stats) => Ok(stats),
            None => crate::stream::transcode_whole(self, input, read, emit, out),
        }
    }
}

/// The checks text is read under: [`Checks::IgcCompatible`] when `read` says so.
fn read_checks(read: crate::ReadOptions) -> Checks {
    if read.igc_compatible {
        Checks::IgcCompatible
    } else {
        Checks::Strict
    }
}

/// Whether `name` is an instruction mnemonic of vISA text (a sampler op of `visa.toml`, any
/// case, or a mnemonic of IGC's assembler, `mappings/visa_mnemonics.toml`).
pub fn is_mnemonic(name: &str) -> bool {
    tables::is_mnemonic(name)
}

/// Whether `bytes` is a vISA `.isa` container (`CISA` magic).
pub fn is_isa_container(bytes: &[u8]) -> bool {
    bytes.starts_with(container::MAGIC)
}

/// One sampler instruction of a container as vISA text, as far as the writer kept it, and
/// what it lost.
fn container_inst_text(s: &IsaSampler, scope: &Scope) -> (String, String) {
    let text = match s.inst.op() {
        Some(op) => text::print_inst(&s.inst, op, scope),
        None => format!("opcode {:#04x} sub-op {}", s.inst.opcode, s.inst.subop),
    };
    let mut lost = format!("the last {} operand slot(s)", s.dropped);
    if !s.dst_kept {
        lost.push_str(" (its destination too: `%null.0` above stands for it)");
    } else if s.num_params.is_none() && matches!(s.inst.opcode, 0x6d..=0x6f) {
        lost.push_str(" (NumParams too)");
    }
    (text, lost)
}

/// The text `texlate disasm` prints for an `.isa` container: per kernel a header and each
/// sampler instruction at its byte offset, as far as IGC 1.0.12504's writer kept it, all as
/// `//` comment lines (the writer cut the last operands of every instruction, so none of them
/// is a whole instruction that could be read back).
pub fn print_isa_container(c: &IsaContainer) -> String {
    let program = Program::new(Isa::Visa);
    let scope = Scope::new(&program);
    let mut out = format!(
        "// vISA container (.isa), format {}.{}, {} kernel(s). IGC 1.0.12504's writer cut the last\n\
         // operands of every instruction (fixed upstream in ee604b2c8): the sampler instructions\n\
         // below are what it kept, as comments; the .visaasm text IGC dumps alongside is whole.\n",
        c.version.0,
        c.version.1,
        c.kernels.len()
    );
    for k in &c.kernels {
        out.push_str(&format!(
            "// .kernel \"{}\": {} instructions, {} sampler instruction(s)\n",
            k.name,
            k.instructions,
            k.samplers.len()
        ));
        for s in &k.samplers {
            let (text, lost) = container_inst_text(s, &scope);
            out.push_str(&format!(
                "//   {:#07x}: {text}    (lost {lost})\n",
                s.offset
            ));
        }
    }
    out
}

/// Why a container's instructions cannot be translated: the first sampler instruction and
/// what the writer cut from it, or that there is none.
pub fn container_refusal(c: &IsaContainer) -> Error {
    let program = Program::new(Isa::Visa);
    let scope = Scope::new(&program);
    let first = c
        .kernels
        .iter()
        .find_map(|k| k.samplers.first().map(|s| (k, s)));
    let reason = match first {
        Some((k, s)) => {
            let (text, lost) = container_inst_text(s, &scope);
            let total: usize = c.kernels.iter().map(|k| k.samplers.len()).sum();
            format!(
                "the vISA container (.isa) holds {total} sampler instruction(s), none whole: IGC \
                 1.0.12504's writer cut the last operands of every instruction; the first, in \
                 kernel `{}` (`{text}`), lost {lost}. Translate the .visaasm text IGC dumps \
                 alongside; `texlate disasm --isa visa` shows what the container kept",
                k.name
            )
        }
        None => "the vISA container (.isa) holds no sampler instruction".to_string(),
    };
    let at = first.map_or(0, |(_, s)| s.offset);
    binary::decode_error(at, &reason)
}
