//! DirectX Shader Model 4/5 ("DXBC", "TPF"): the DXBC container, the program token stream,
//! and fxc's assembly listing.
//!
//! - [`container`]: chunks, sizes and the checksum (research/dxbc.md §1-§2).
//! - [`tokens`]: the token stream decoded into fields that encode back to the same dwords.
//! - `disasm` / `asm`: fxc's listing syntax, printed and parsed (Wine spellings accepted).
//! - `lift` / `emit_inst`: texture instructions to and from [`crate::ir::TexInstr`]; `emit`
//!   builds a whole program from target-ready IR (the translation backend), `emit_alu` its
//!   ALU instructions.
//!
//! Texture instructions become [`Item::Tex`] with their tokens kept in [`DxbcExtras`] as the
//! template `emit_inst` keeps when the IR still says what it says; every other instruction,
//! declaration and listing line is an [`crate::ir::Opaque`] item holding its dwords (binary
//! input) or its text (listing input).

mod accept;
mod asm;
mod assemble;
mod constants;
pub mod container;
pub mod disasm;
mod emit;
mod emit_alu;
mod emit_inst;
mod groups;
mod lift;
mod listing;
pub mod signature;
mod stream;
pub mod tokens;

mod tables;

use crate::error::Location;
use crate::error::{DecodeError, Error, ValidationError};
use crate::ir::{Isa, Item, Opaque, Program, Span, TexInstr};

use lift::Decls;

use container::Container;
use tokens::{Instruction, TokenProgram};

/// DXBC program state kept on the [`Program`] (`Program::state`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DxbcModule {
    /// The version token (`ps_5_0` = `0x00000050`), when the input had one.
    pub version: Option<u32>,
    /// The container the program came in, when it came in one. Its program chunk is
    /// rewritten from the items on encode; every other chunk is written back as it was.
    pub container: Option<Container>,
    /// The program was parsed from a listing: every line (comments, the profile line) is an
    /// item, and `final_newline` says whether the last line was terminated.
    pub listing: Option<Listing>,
}

/// How a parsed listing ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The last line has a terminator.
    pub final_newline: bool,
}

/// What a DXBC texture instruction carries beyond the IR: its tokens as decoded or parsed.
/// `emit_inst` keeps them when the IR is unchanged and patches them when only operands
/// changed, so an unchanged IR re-encodes to the same tokens and an edited one to what the
/// edit means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DxbcExtras {
    /// The instruction's tokens.
    pub instr: Instruction,
    /// The line around the instruction, when it was parsed from a listing.
    pub text: Option<LineText>,
}

/// What a listing line holds besides the instruction: its indentation and what follows the
/// instruction (trailing spaces, a `// comment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineText {
    /// The whitespace before the instruction.
    pub indent: String,
    /// What follows the instruction on its line (spaces, a `// comment`).
    pub trailing: String,
}

fn decode_error(e: DecodeError) -> Error {
    Error::Decode(e)
}

/// Whether `bytes` is a DXBC container (`DXBC` magic) or a bare token stream (a version
/// token of SM4.0-SM5.1 followed by a length token that matches the input).
pub fn looks_binary(bytes: &[u8]) -> bool {
    if bytes.starts_with(container::MAGIC) {
        return true;
    }
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    match (word(0), word(1)) {
        (Some(v), Some(len)) => {
            tokens::check_version(v).is_ok() && u64::from(len) * 4 == bytes.len() as u64
        }
        _ => false,
    }
}

/// Decodes a DXBC container or a bare token stream.
pub fn decode_binary(bytes: &[u8]) -> Result<Program, Error> {
    decode_binary_items(bytes).map(lift_alu)
}

fn decode_binary_items(bytes: &[u8]) -> Result<Program, Error> {
    let (container, stream, base) = if bytes.starts_with(container::MAGIC) {
        let c = container::parse(bytes).map_err(decode_error)?;
        let base = 32
            + 4 * c.chunks.len()
            + c.chunks[..c.program]
                .iter()
                .map(|ch| 8 + ch.data.len())
                .sum::<usize>()
            + 8;
        let words = tokens::dwords(&c.chunks[c.program].data, base).map_err(decode_error)?;
        (Some(c), words, base)
    } else {
        (None, tokens::dwords(bytes, 0).map_err(decode_error)?, 0)
    };
    let tp = tokens::decode_program(&stream, base).map_err(decode_error)?;
    Ok(build_program(tp, &stream, base, container))
}

/// The program of a decoded token stream: one item per instruction. `words` is the stream
/// `tp` was decoded from and `base` the byte offset of its first dword: an opaque item
/// keeps its instruction's dwords as they were read (decoding keeps every bit, so they are
/// also what the instruction re-encodes to).
fn build_program(
    tp: TokenProgram,
    words: &[u32],
    base: usize,
    container: Option<Container>,
) -> Program {
    let mut program = Program::new(Isa::Dxbc);
    // Declarations first, all of them: a texture instruction lifts against the same
    // declarations whether it is decoded or encoded.
    let mut decls = Decls::default();
    for (_, instr) in &tp.instructions {
        decls.add(instr);
    }
    let starts: Vec<usize> = tp
        .instructions
        .iter()
        .map(|(offset, _)| (offset - base) / 4)
        .chain([words.len()])
        .collect();
    for (i, (offset, instr)) in tp.instructions.into_iter().enumerate() {
        match lift::lift(instr, &decls) {
            Some(mut tex) => {
                tex.span = Span {
                    offset,
                    line: 0,
                    column: 0,
                };
                program.items.push(Item::Tex(Box::new(tex)))
            }
            None => program
                .items
                .push(opaque_words(&words[starts[i]..starts[i + 1]], offset)),
        }
    }
    record_declarations(&mut program, &decls);
    program.state = crate::ir::Origin::new(DxbcModule {
        version: Some(tp.version),
        container,
        listing: None,
    });
    program
}

/// An opaque item holding an instruction's dwords.
fn opaque_words(words: &[u32], offset: usize) -> Item {
    Item::Opaque(Opaque {
        text: None,
        bytes: tokens::le_bytes(words),
        span: Span {
            offset,
            line: 0,
            column: 0,
        },
    })
}

fn validation(span: Span, rule: &'static str, detail: String) -> Error {
    Error::Validation(ValidationError {
        location: Location::from_span(span, span.line != 0),
        rule,
        detail,
    })
}

/// Calls `each` with the dwords of every item that has some, in order, and where the item
/// was read.
fn for_each_item_words(
    program: &Program,
    mut each: impl FnMut(&[u32], Span) -> Result<(), Error>,
) -> Result<(), Error> {
    let decls = program_decls(program)?;
    let sm5 = is_sm5(program);
    let mut words = Vec::new();
    for item in &program.items {
        words.clear();
        let span = match item {
            Item::Opaque(o) => {
                if o.bytes.is_empty() {
                    continue;
                }
                tokens::extend_dwords(&mut words, &o.bytes, o.span.offset).map_err(decode_error)?;
                o.span
            }
            Item::Tex(t) => {
                emit_tex(t, &decls, sm5)?
                    .encode(&mut words)
                    .map_err(|e| validation(Span::default(), "dxbc-encode", e))?;
                t.span
            }
            Item::Comment(_) => continue,
            Item::Alu(a) => {
                for instr in emit_alu::emit(a)? {
                    words.clear();
                    instr
                        .encode(&mut words)
                        .map_err(|e| validation(a.span, "dxbc-encode", e))?;
                    each(&words, a.span)?;
                }
                continue;
            }
        };
        each(&words, span)?;
    }
    Ok(())
}

/// The profile a program without a version token is assembled as (single instructions, a
/// listing without its profile line): `ps_5_0`, the stage of every sampling instruction.
pub const ASSUMED_PROFILE: &str = "ps_5_0";

/// The version token the program is encoded with, and whether it is [`ASSUMED_PROFILE`]
/// because the program has none.
fn encoding_version(program: &Program) -> (u32, bool) {
    match program.state.get::<DxbcModule>().and_then(|m| m.version) {
        Some(v) => (v, false),
        None => (profile_version(ASSUMED_PROFILE).unwrap_or(0x50), true),
    }
}

/// What encoding `program` assumes that it does not say: a program without a profile line is
/// assembled as [`ASSUMED_PROFILE`] (returned for the caller to show; nothing is printed).
pub fn encode_warnings(program: &Program) -> Vec<String> {
    match encoding_version(program) {
        (_, true) => vec![format!(
            "no profile line: assembled as `{ASSUMED_PROFILE}` (add a profile line such as \
             `cs_5_0` as the first instruction line for another stage or shader model)"
        )],
        (_, false) => Vec::new(),
    }
}

/// The program's token stream (version, length, instructions), and when `scan` is given, what
/// its instructions say about a container.
fn token_stream(
    program: &Program,
    mut scan: Option<&mut assemble::Scan>,
) -> Result<Vec<u8>, Error> {
    let (version, _) = encoding_version(program);
    let mut stream = tokens::le_bytes(&[version, 0]);
    for_each_item_words(program, |words, span| {
        tokens::extend_le_bytes(&mut stream, words);
        match scan.as_deref_mut() {
            Some(s) => s.add(words, span),
            None => Ok(()),
        }
    })?;
    let length = (stream.len() / 4) as u32;
    stream[4..8].copy_from_slice(&length.to_le_bytes());
    Ok(stream)
}

/// Encodes the program as a DXBC container: the container it came in (its other chunks kept),
/// or, for a program parsed from a listing or built from IR, the container the listing implies
/// (signatures, program chunk, feature flags, checksum: docs/dxbc.md). A program
/// decoded from a bare token stream is encoded as one. A program without a version token is
/// assembled as [`ASSUMED_PROFILE`] ([`encode_warnings`] says so).
pub fn encode_binary(program: &Program) -> Result<Vec<u8>, Error> {
    let program = &*program.alu_as_read();
    let module = program.state.get::<DxbcModule>();
    if let Some(c) = module.and_then(|m| m.container.as_ref()) {
        return Ok(container::write_with_program(
            c,
            &token_stream(program, None)?,
        ));
    }
    if module.is_some_and(|m| m.listing.is_none()) {
        return token_stream(program, None);
    }
    let (version, _) = encoding_version(program);
    let mut scan = assemble::Scan::new(version);
    let stream = token_stream(program, Some(&mut scan))?;
    let tables = signature::read_tables(header_lines(program), version)?;
    let c = scan.container(&tables)?;
    Ok(container::write_with_program(&c, &stream))
}

/// Encodes the program as its bare token stream (version, length, instructions), without a
/// container (`--emit tokens`).
pub fn encode_tokens(program: &Program) -> Result<Vec<u8>, Error> {
    token_stream(&program.alu_as_read(), None)
}

/// The comment lines of a listing before its first instruction (where fxc prints the
/// signature tables), with their line numbers.
fn header_lines(program: &Program) -> impl Iterator<Item = (u32, &str)> {
    program
        .items
        .iter()
        .map_while(|item| match item {
            Item::Opaque(o) if o.bytes.is_empty() => Some(o),
            _ => None,
        })
        .filter_map(|o| o.text.as_deref().map(|t| (o.span.line, t)))
}

/// Decodes instructions given as hex dwords (`8a00002d 8001de01 ...`). A leading version
/// and length token are accepted and kept.
pub fn decode_hex(words: &[&str]) -> Result<Program, Error> {
    decode_hex_items(words).map(lift_alu)
}

fn decode_hex_items(words: &[&str]) -> Result<Program, Error> {
    let bytes = crate::isa::parse_hex_words(words, crate::isa::hex::HexUnit::Dword)?;
    let dwords = tokens::dwords(&bytes, 0).map_err(decode_error)?;
    let whole = dwords.len() >= 2
        && tokens::check_version(dwords[0]).is_ok()
        && dwords[1] as usize == dwords.len();
    if whole {
        let tp = tokens::decode_program(&dwords, 0).map_err(decode_error)?;
        return Ok(build_program(tp, &dwords, 0, None));
    }
    let instrs = tokens::decode_instructions(&dwords).map_err(decode_error)?;
    Ok(build_program(
        TokenProgram {
            version: 0,
            instructions: instrs,
        },
        &dwords,
        0,
        None,
    ))
    .map(|mut p| {
        if let Some(m) = p.state.get_mut::<DxbcModule>() {
            m.version = None;
        }
        p
    })
}

/// `program` with the ALU instructions texlate's backend emits ([`emit_alu::emit`]) as
/// `Item::Alu`.
fn lift_alu(mut program: Program) -> Program {
    crate::ir::lift_alu(Isa::Dxbc, &mut program.items, |run| {
        emit_alu::lift(run, |o| tokens::dwords(&o.bytes, 0).ok())
    });
    program
}

/// The instruction an opaque binary item holds.
fn opaque_instruction(o: &Opaque) -> Result<Instruction, Error> {
    let words = tokens::dwords(&o.bytes, o.span.offset).map_err(decode_error)?;
    let mut instrs = tokens::decode_instructions(&words).map_err(decode_error)?;
    match (instrs.pop(), instrs.is_empty()) {
        (Some((_, i)), true) => Ok(i),
        _ => Err(decode_error(DecodeError {
            offset: o.span.offset,
            reason: "an opaque item must hold exactly one instruction".into(),
        })),
    }
}

/// Prints the program as an fxc listing: the profile line, then one line per instruction
/// (a decoded binary), or every line of the listing it was parsed from.
pub fn print_text(program: &Program) -> Result<String, Error> {
    let program = &*program.alu_as_read();
    let mut out = String::new();
    let module = program.state.get::<DxbcModule>();
    let listing = module.and_then(|m| m.listing);
    if let (Some(v), None) = (module.and_then(|m| m.version), listing) {
        disasm::push_profile(&mut out, v);
        out.push('\n');
    }
    let mut indent = disasm::Indent::default();
    let decls = program_decls(program)?;
    let sm5 = is_sm5(program);
    for item in &program.items {
        match item {
            Item::Comment(c) => crate::isa::push_comment_line(&mut out, &c.text),
            Item::Alu(a) => {
                for (k, i) in emit_alu::emit(a)?.iter().enumerate() {
                    if k > 0 {
                        out.push('\n');
                    }
                    indent.push(&mut out, i.opcode);
                    disasm::push_instruction(&mut out, i);
                }
            }
            Item::Opaque(o) => match &o.text {
                Some(text) => out.push_str(text),
                None => {
                    let instr = opaque_instruction(o)?;
                    indent.push(&mut out, instr.opcode);
                    disasm::push_instruction(&mut out, &instr);
                }
            },
            Item::Tex(t) => {
                let instr = emit_tex(t, &decls, sm5)?;
                match extras(t).and_then(|x| x.text.as_ref()) {
                    Some(line) => {
                        out.push_str(&line.indent);
                        disasm::push_instruction(&mut out, &instr);
                        out.push_str(&line.trailing);
                    }
                    None => {
                        indent.push(&mut out, instr.opcode);
                        disasm::push_instruction(&mut out, &instr);
                    }
                }
            }
        }
        out.push('\n');
    }
    if listing.is_some_and(|l| !l.final_newline) {
        out.pop();
    }
    Ok(out)
}

/// The DXBC extras of a texture instruction, when it came from DXBC.
fn extras(t: &TexInstr) -> Option<&DxbcExtras> {
    t.origin.get::<DxbcExtras>()
}

/// Whether the program is SM5.x (or has no version token: texlate writes SM5).
fn is_sm5(program: &Program) -> bool {
    program
        .state
        .get::<DxbcModule>()
        .and_then(|m| m.version)
        .is_none_or(|v| (v >> 4) & 0xf >= 5)
}

/// Emits one texture instruction against the program's declarations: its decoded tokens
/// when the IR still says what they say, otherwise built from the IR.
fn emit_tex(t: &TexInstr, decls: &Decls, sm5: bool) -> Result<Instruction, Error> {
    let env = emit_inst::Env { decls, sm5 };
    emit_inst::emit(t, extras(t).map(|x| &x.instr), env)
}

/// The declarations of a program's items (opaque declaration instructions).
fn program_decls(program: &Program) -> Result<Decls, Error> {
    let mut decls = Decls::default();
    for item in &program.items {
        if let Item::Opaque(o) = item {
            if needs_decoding(o) {
                decls.add(&opaque_instruction(o)?);
            }
        }
    }
    Ok(decls)
}

/// Whether [`program_decls`] decodes an opaque item: when it holds bytes and either is a
/// declaration [`Decls`] records, or does not plainly hold one instruction (whole dwords,
/// as many as its first token claims), which decoding then reports. Every other
/// instruction is skipped undecoded.
fn needs_decoding(o: &Opaque) -> bool {
    if o.bytes.is_empty() {
        return false;
    }
    let plain = o.bytes.len() % 4 == 0 && tokens::claimed_len(&o.bytes) == Some(o.bytes.len() / 4);
    let opcode = o
        .bytes
        .get(..2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]) & 0x7ff);
    !plain || opcode.is_none_or(Decls::records)
}

/// Fills [`Program::resources`] and [`Program::samplers`] from the declarations.
fn record_declarations(program: &mut Program, decls: &Decls) {
    let t = tables::tables();
    let mut resources: Vec<_> = decls.resources.iter().collect();
    resources.sort_by_key(|(k, _)| **k);
    for ((ty, id), d) in resources {
        let prefix = t.register_type(*ty).map_or("?", |r| r.1.as_str());
        let dim = t.dim(d.dim).map_or(crate::ir::Dimension::Deferred, |info| {
            crate::ir::Dimension::Known {
                dim: info.dim,
                arrayed: info.arrayed,
                multisampled: info.ms,
            }
        });
        program.resources.insert(
            *id as u32,
            crate::ir::Resource {
                name: format!("{prefix}{id}"),
                dim,
                return_type: None,
                sample_count: None,
            },
        );
    }
    let mut samplers: Vec<_> = decls.samplers.iter().collect();
    samplers.sort();
    for (id, mode) in samplers {
        program.samplers.insert(
            *id as u32,
            crate::ir::SamplerDecl {
                name: format!("s{id}"),
                comparison: *mode == 1,
            },
        );
    }
}

/// A line without its trailing `// comment` and whitespace.
fn code_part(line: &str) -> &str {
    let bytes = line.as_bytes();
    let comment = memchr::memchr_iter(b'/', bytes)
        .find(|&i| bytes.get(i + 1) == Some(&b'/'))
        .unwrap_or(bytes.len());
    line[..comment].trim_end()
}

/// The version token of a profile line (`ps_5_0`), when the line is one.
fn profile_version(line: &str) -> Option<u32> {
    let (kind, model) = line.trim_end().split_once('_')?;
    let kind = tables::find_code(&tables::tables().file.program_types, kind)?;
    let version = match model {
        "4_0" => 0x40,
        "4_1" => 0x41,
        "5_0" => 0x50,
        "5_1" => 0x51,
        _ => return None,
    };
    Some(kind << 16 | version)
}

/// Parses an fxc listing (or Wine's disassembly). Lines before the SM4/SM5 profile line
/// (signature comments, a Level9 listing) are kept as they are; after it, comments, blank
/// lines and `#line` directives are kept and every other line must be an instruction or
/// declaration. Without a profile line every non-comment line is parsed as an instruction
/// (single instructions on the command line).
pub fn parse_text(src: &str) -> Result<Program, Error> {
    parse_text_items(src).map(lift_alu)
}

fn parse_text_items(src: &str) -> Result<Program, Error> {
    let mut program = Program::new(Isa::Dxbc);
    let mut items = listing::Items::new(src);
    let final_newline = items.final_newline();
    let mut decls = Decls::default();
    let mut parsed: Vec<(usize, Instruction, LineText, asm::LinePos)> = Vec::new();
    // One buffer for every instruction's dwords.
    let mut words = Vec::new();
    let mut parser = asm::Parser::default();
    for item in items.by_ref() {
        let mut bytes = Vec::new();
        if let Some(indent) = item.code {
            let (instr, at, code) = assemble_line(&mut parser, &item, indent, Some(&mut words))?;
            decls.add(instr);
            bytes = tokens::le_bytes(&words);
            // Only a texture instruction lifts: no other is copied for the second walk.
            if lift::is_texture_op(instr.opcode) {
                let line_text = LineText {
                    indent: item.text[..indent].to_string(),
                    trailing: item.text[indent + code.len()..].to_string(),
                };
                parsed.push((program.items.len(), instr.clone(), line_text, at));
            }
        }
        program.items.push(Item::Opaque(Opaque {
            text: Some(item.text.to_string()),
            bytes,
            span: item.span,
        }));
    }
    let version = items.version;
    // Texture instructions lift once every declaration is known.
    for (at, instr, line_text, pos) in parsed {
        if let Some(mut tex) = lift::lift(instr, &decls) {
            tex.span = Span {
                offset: 0,
                line: pos.line,
                column: pos.column,
            };
            if let Some(x) = tex.origin.get_mut::<DxbcExtras>() {
                x.text = Some(line_text);
            }
            program.items[at] = Item::Tex(Box::new(tex));
        }
    }
    record_declarations(&mut program, &decls);
    program.state = crate::ir::Origin::new(DxbcModule {
        version,
        container: None,
        listing: Some(Listing { final_newline }),
    });
    Ok(program)
}

/// The instruction or declaration of a listing item that is code (`indent` bytes into its
/// text), parsed by `parser` (into its storage), where it starts, and its text without
/// indentation and trailing comment; `words`, when given, receives its dwords, otherwise
/// only their length is checked (the same errors). Errors: the parser's (line and
/// column), or an instruction with no encoding (validation, at the item).
fn assemble_line<'a, 'p>(
    parser: &'p mut asm::Parser,
    item: &listing::Item<'a>,
    indent: usize,
    words: Option<&mut Vec<u32>>,
) -> Result<(&'p Instruction, asm::LinePos, &'a str), Error> {
    let at = asm::LinePos {
        line: item.span.line,
        column: indent as u32 + 1,
    };
    let code = code_part(&item.text[indent..]);
    let instr = parser.line(code, at).map_err(Error::Parse)?;
    let encodes = match words {
        Some(words) => {
            words.clear();
            instr.encode(words)
        }
        None => instr.encoded_len().map(drop),
    };
    encodes.map_err(|e| validation(item.span, "dxbc-encode", e))?;
    Ok((instr, at, code))
}

/// Prints each instruction's dwords as hex on one line, in order.
pub fn print_hex(program: &Program) -> Result<String, Error> {
    let program = &*program.alu_as_read();
    let mut out = String::new();
    for_each_item_words(program, |words, _| {
        let line: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
        out.push_str(&line.join(" "));
        out.push('\n');
        Ok(())
    })?;
    Ok(out)
}

/// The README table of DXBC texture instructions, rendered from `mappings/dxbc.toml`.
pub fn readme_table() -> String {
    let t = tables::tables();
    let mut s =
        String::from("| fxc mnemonic | opcode | IR op | LOD | operands |\n|---|---|---|---|---|\n");
    for row in &t.file.tex {
        let opcode = t
            .by_name
            .get(&row.mnemonic)
            .map_or_else(|| "?".to_string(), |c| format!("{c} ({c:#04x})"));
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            row.mnemonic,
            opcode,
            row.ir,
            row.lod,
            row.operands.join(", ")
        ));
    }
    s
}

/// The Dxbc codec ([`crate::isa::Codec`]).
pub struct DxbcCodec;

impl crate::isa::Codec for DxbcCodec {
    fn is_declaration(&self, line: &str) -> bool {
        let t = line.trim_start();
        t.starts_with("dcl_") || tokens::profile_prefix(t)
    }
    fn constants(&self, program: &Program) -> Vec<Vec<(crate::ir::Reg, u32)>> {
        constants::constants(program)
    }
    fn register_groups(&self, t: &crate::ir::TexInstr) -> Result<Vec<crate::isa::RegGroup>, Error> {
        Ok(groups::register_groups(t))
    }
    fn result_copies(
        &self,
        t: &crate::ir::TexInstr,
    ) -> Vec<(crate::ir::Scalar, crate::ir::Scalar)> {
        extras(t).map_or_else(Vec::new, |x| lift::result_copies(&x.instr))
    }
    crate::isa::codec_functions!(Dxbc);
    fn parse_text(&self, src: &str, read: crate::ReadOptions) -> Result<Program, Error> {
        let _ = read;
        parse_text(src)
    }
    fn encode_tokens(&self, program: &Program) -> Result<Vec<u8>, Error> {
        encode_tokens(program)
    }
    fn encode_warnings(&self, program: &Program, form: crate::Form) -> Vec<String> {
        match form {
            crate::Form::Text => Vec::new(),
            crate::Form::Binary | crate::Form::Tokens => encode_warnings(program),
        }
    }
    fn stream_disasm(
        &self,
        input: &mut dyn crate::stream::Input,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::disasm(input, out)
    }
    fn stream_transcode(
        &self,
        input: &mut dyn crate::stream::Input,
        read: crate::ReadOptions,
        emit: crate::Form,
        out: &mut dyn std::io::Write,
    ) -> Result<crate::stream::Stats, crate::stream::StreamError> {
        stream::transcode(self, input, read, emit, out)
    }
}
