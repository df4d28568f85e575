//! Signatures: the `ISGN`/`OSGN`/`PCSG` chunks (and their SM5 forms `OSG5`, `ISG1`/`OSG1`/
//! `PSG1`), fxc's signature tables above a listing, and the elements a program's
//! `dcl_input*`/`dcl_output*` declarations imply.
//!
//! Chunk layout (research/dxbc.md §2, vkd3d `shader_parse_signature`, all 495 corpus blobs):
//! element count, 8, then per element [stream (OSG5, *1)] name offset, semantic index,
//! system value, component type, register, mask | read-write mask << 8, [minimum precision
//! (*1)]; then the names, each once in order of first use, NUL-terminated, the last padded
//! to a dword with `0xab` as fxc pads it. The second mask byte is the components read for an
//! input and the components never written for an output (fxc's "Used" column is its
//! complement there: 332/332 output elements of the 339 paired corpus blobs).
//!
//! A listing's tables give every field. Without them the elements come from the
//! declarations, with what a listing cannot say chosen as docs/dxbc.md ("Containers from
//! listings") states: `[[signature_value]]` of `mappings/dxbc.toml` names them.

use crate::error::{Error, Location, ParseError, ValidationError};
use crate::ir::Span;

use super::container::Chunk;
use super::tables::{find_name, tables, SignatureValueRow};
use super::tokens::Instruction;

/// The register of an element a program names by register type (`oDepth`, `oMask`), as fxc
/// stores it (3/3 `SV_Depth` elements of the corpus blobs).
pub const NO_REGISTER: u32 = u32::MAX;

/// One signature element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// Semantic name (`TEXCOORD`, `SV_Position`).
    pub name: String,
    /// Semantic index.
    pub index: u32,
    /// System value (D3D_NAME; 0 for none and for the values named by register).
    pub system_value: u32,
    /// Component type (D3D_REGISTER_COMPONENT_TYPE: 1 uint32, 2 sint32, 3 float32).
    pub component_type: u32,
    /// Register, or [`NO_REGISTER`].
    pub register: u32,
    /// Components of the element.
    pub mask: u8,
    /// Components read (input) or never written (output).
    pub rw_mask: u8,
    /// Geometry-shader output stream (`OSG5`, `*1` chunks).
    pub stream: u32,
    /// Minimum precision (D3D_MIN_PRECISION, `*1` chunks).
    pub min_precision: u32,
}

/// Which signature an element belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ISGN`: what the stage reads.
    Input,
    /// `OSGN`: what the stage writes.
    Output,
    /// `PCSG`: patch constants (written by a hull shader, read by a domain shader).
    PatchConstant,
}

/// How a chunk lays out its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Six dwords (`ISGN`, `OSGN`, `PCSG`).
    Plain,
    /// A leading stream dword (`OSG5`).
    Stream,
    /// A leading stream and a trailing minimum-precision dword (`ISG1`, `OSG1`, `PSG1`).
    MinPrecision,
}

impl Layout {
    /// The layout of a chunk tagged `tag`, when it is a signature chunk.
    pub fn of_tag(tag: &[u8; 4]) -> Option<(Kind, Layout)> {
        Some(match tag {
            b"ISGN" => (Kind::Input, Layout::Plain),
            b"OSGN" => (Kind::Output, Layout::Plain),
            b"PCSG" => (Kind::PatchConstant, Layout::Plain),
            b"OSG5" => (Kind::Output, Layout::Stream),
            b"ISG1" => (Kind::Input, Layout::MinPrecision),
            b"OSG1" => (Kind::Output, Layout::MinPrecision),
            b"PSG1" => (Kind::PatchConstant, Layout::MinPrecision),
            _ => return None,
        })
    }

    fn dwords(self) -> usize {
        match self {
            Layout::Plain => 6,
            Layout::Stream => 7,
            Layout::MinPrecision => 8,
        }
    }
}

/// The tag of the chunk holding signature `kind` in `layout`.
pub fn tag(kind: Kind, layout: Layout) -> [u8; 4] {
    match (kind, layout) {
        (Kind::Input, Layout::MinPrecision) => *b"ISG1",
        (Kind::Input, _) => *b"ISGN",
        (Kind::Output, Layout::Plain) => *b"OSGN",
        (Kind::Output, Layout::Stream) => *b"OSG5",
        (Kind::Output, Layout::MinPrecision) => *b"OSG1",
        (Kind::PatchConstant, Layout::MinPrecision) => *b"PSG1",
        (Kind::PatchConstant, _) => *b"PCSG",
    }
}

/// A signature chunk's payload.
pub fn write(elements: &[Element], layout: Layout) -> Vec<u8> {
    let mut names: Vec<&str> = Vec::new();
    for e in elements {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    let table_end = 8 + 4 * layout.dwords() * elements.len();
    let mut offsets = Vec::with_capacity(names.len());
    let mut strings = Vec::new();
    for n in &names {
        offsets.push(table_end + strings.len());
        strings.extend_from_slice(n.as_bytes());
        strings.push(0);
    }
    while strings.len() % 4 != 0 {
        strings.push(0xab);
    }
    let mut out = Vec::with_capacity(table_end + strings.len());
    let mut push = |w: u32| out.extend_from_slice(&w.to_le_bytes());
    push(elements.len() as u32);
    push(8);
    for e in elements {
        let at = names.iter().position(|n| *n == e.name).unwrap_or(0);
        if layout != Layout::Plain {
            push(e.stream);
        }
        push(offsets[at] as u32);
        push(e.index);
        push(e.system_value);
        push(e.component_type);
        push(e.register);
        push(u32::from(e.mask) | u32::from(e.rw_mask) << 8);
        if layout == Layout::MinPrecision {
            push(e.min_precision);
        }
    }
    out.extend_from_slice(&strings);
    out
}

/// The elements of a signature chunk's payload.
pub fn read(data: &[u8], layout: Layout) -> Result<Vec<Element>, String> {
    let word = |at: usize| {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| format!("the chunk ends at byte {at} inside its element table"))
    };
    let count = word(0)? as usize;
    let size = 4 * layout.dwords();
    if count.checked_mul(size).is_none_or(|n| 8 + n > data.len()) {
        return Err(format!("{count} elements do not fit {} bytes", data.len()));
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let mut at = 8 + size * i;
        let mut next = || {
            let w = word(at);
            at += 4;
            w
        };
        let stream = if layout == Layout::Plain { 0 } else { next()? };
        let name_at = next()? as usize;
        let index = next()?;
        let system_value = next()?;
        let component_type = next()?;
        let register = next()?;
        let masks = next()?;
        let min_precision = if layout == Layout::MinPrecision {
            next()?
        } else {
            0
        };
        let name = data
            .get(name_at..)
            .and_then(|s| s.iter().position(|b| *b == 0).map(|end| &s[..end]))
            .ok_or_else(|| format!("element {i}: name offset {name_at} is outside the chunk"))?;
        out.push(Element {
            name: String::from_utf8_lossy(name).into_owned(),
            index,
            system_value,
            component_type,
            register,
            mask: masks as u8,
            rw_mask: (masks >> 8) as u8,
            stream,
            min_precision,
        });
    }
    Ok(out)
}

/// A program's three signatures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    /// What the stage reads.
    pub input: Vec<Element>,
    /// What the stage writes.
    pub output: Vec<Element>,
    /// Patch constants (hull and domain shaders).
    pub patch_constant: Vec<Element>,
}

impl Signatures {
    /// The signature of `kind`.
    pub fn get_mut(&mut self, kind: Kind) -> &mut Vec<Element> {
        match kind {
            Kind::Input => &mut self.input,
            Kind::Output => &mut self.output,
            Kind::PatchConstant => &mut self.patch_constant,
        }
    }

    /// The signature chunks of a program with `version`, in fxc's order: input, output, and
    /// for hull and domain shaders the patch constants (the corpus's `hs_5_0` blob: `ISGN`,
    /// `OSGN`, `PCSG`). A geometry shader of SM5 writes `OSG5` (its elements carry a stream);
    /// a signature with a minimum-precision element is written in its `*1` form.
    pub fn chunks(&self, version: u32) -> Vec<Chunk> {
        let program_type = version >> 16;
        let major = (version >> 4) & 0xf;
        let layout = |elements: &[Element], stream: bool| {
            if elements.iter().any(|e| e.min_precision != 0) {
                Layout::MinPrecision
            } else if stream {
                Layout::Stream
            } else {
                Layout::Plain
            }
        };
        let gs5 = program_type == program_type_code("gs") && major >= 5;
        let mut out = Vec::with_capacity(3);
        for (kind, elements, stream) in [
            (Kind::Input, &self.input, false),
            (Kind::Output, &self.output, gs5),
        ] {
            let l = layout(elements, stream);
            out.push(Chunk {
                tag: tag(kind, l),
                data: write(elements, l),
            });
        }
        if has_patch_constants(version) {
            let l = layout(&self.patch_constant, false);
            out.push(Chunk {
                tag: tag(Kind::PatchConstant, l),
                data: write(&self.patch_constant, l),
            });
        }
        out
    }
}

fn program_type_code(prefix: &str) -> u32 {
    super::tables::find_code(&tables().file.program_types, prefix).unwrap_or(u32::MAX)
}

/// Whether a program with `version` has a patch-constant signature (hull, domain).
pub fn has_patch_constants(version: u32) -> bool {
    let ty = version >> 16;
    ty == program_type_code("hs") || ty == program_type_code("ds")
}

/// Whether the second mask byte of `kind`'s elements means "never written" in a program of
/// `version` (outputs; a hull shader's patch constants).
fn output_like(kind: Kind, version: u32) -> bool {
    match kind {
        Kind::Input => false,
        Kind::Output => true,
        Kind::PatchConstant => version >> 16 == program_type_code("hs"),
    }
}

/// The component type and minimum precision fxc's Format column spells `name`.
fn format_named(name: &str) -> Option<(u32, u32)> {
    tables()
        .file
        .signature_formats
        .iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, ty, mp)| (*ty, *mp))
}

/// The component type fxc's Format column spells `name` (0 when it spells none).
pub fn component_type_named(name: &str) -> u32 {
    format_named(name).map_or(0, |(ty, _)| ty)
}

fn mask_of(letters: &str) -> Option<u8> {
    letters.chars().try_fold(0u8, |m, c| {
        let bit = "xyzw".find(c)?;
        Some(m | 1 << bit)
    })
}

/// One element with the line it was read from (a table row or a declaration).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The element.
    pub element: Element,
    /// Where it was read.
    pub span: Span,
}

/// The signature tables of an fxc listing (the comments above its profile line); a kind is
/// `None` when the listing has no table for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListingTables {
    /// `// Input signature:`.
    pub input: Option<Vec<Located>>,
    /// `// Output signature:`.
    pub output: Option<Vec<Located>>,
    /// `// Patch Constant signature:`.
    pub patch_constant: Option<Vec<Located>>,
}

impl ListingTables {
    fn get(&self, kind: Kind) -> Option<&Vec<Located>> {
        match kind {
            Kind::Input => self.input.as_ref(),
            Kind::Output => self.output.as_ref(),
            Kind::PatchConstant => self.patch_constant.as_ref(),
        }
    }

    fn slot(&mut self, kind: Kind) -> &mut Option<Vec<Located>> {
        match kind {
            Kind::Input => &mut self.input,
            Kind::Output => &mut self.output,
            Kind::PatchConstant => &mut self.patch_constant,
        }
    }
}

/// Reads the signature tables of a listing's comment lines (`(line number, text)`, before
/// the profile line), as fxc and D3DDisassemble print them:
///
/// ```text
/// // Input signature:
/// //
/// // Name                 Index   Mask Register SysValue  Format   Used
/// // -------------------- ----- ------ -------- -------- ------- ------
/// // SV_Position              0   xyzw        0      POS   float   xy
/// // TEXCOORD                 1   xyzw        1     NONE   float   xy w
/// ```
///
/// A row is the name, the index, the mask (letters at fixed places, so possibly split by
/// spaces; `N/A` for an element named by register), the register (a number, or the
/// register's name), the system value, the format and the components used (`YES`/`NO` for
/// an element named by register). `// no Input` is an empty table. Rows past the dashes up to
/// the next blank comment are read; one that does not read is a located error.
pub fn read_tables<'a>(
    lines: impl IntoIterator<Item = (u32, &'a str)>,
    version: u32,
) -> Result<ListingTables, Error> {
    let mut tables = ListingTables::default();
    let mut current: Option<Kind> = None;
    let mut in_rows = false;
    for (line, text) in lines {
        let body = text.trim_end().strip_prefix("//").map(str::trim);
        let Some(body) = body else {
            current = None;
            continue;
        };
        let kind = match body {
            "Input signature:" => Some(Kind::Input),
            "Output signature:" => Some(Kind::Output),
            "Patch Constant signature:" => Some(Kind::PatchConstant),
            _ => None,
        };
        if let Some(k) = kind {
            current = Some(k);
            in_rows = false;
            *tables.slot(k) = Some(Vec::new());
            continue;
        }
        let Some(k) = current else { continue };
        if !in_rows {
            in_rows = body.starts_with("---");
            continue;
        }
        if body.is_empty() {
            current = None;
            continue;
        }
        if body.starts_with("no ") {
            continue;
        }
        let column = text.find("//").map_or(1, |c| c + 3) as u32;
        let element = read_row(text, line, version, k)?;
        if let Some(rows) = tables.slot(k) {
            rows.push(Located {
                element,
                span: Span {
                    offset: 0,
                    line,
                    column,
                },
            });
        }
    }
    Ok(tables)
}

/// One table row (see [`read_tables`]).
fn read_row(text: &str, line: u32, version: u32, kind: Kind) -> Result<Element, Error> {
    // Tokens with their columns.
    let mut tokens: Vec<(u32, &str)> = Vec::new();
    let start = text.find("//").map_or(0, |c| c + 2);
    let mut at = start;
    for piece in text[start..].split(' ') {
        if !piece.is_empty() {
            tokens.push((at as u32 + 1, piece.trim_end()));
        }
        at += piece.len() + 1;
    }
    let end_col = text.trim_end().len() as u32 + 1;
    let fail = |i: usize, expected: &str| {
        let (column, token) = tokens.get(i).copied().unwrap_or((end_col, ""));
        Error::Parse(ParseError {
            line,
            column,
            token: token.to_string(),
            expected: format!("{expected} (a row of the listing's signature table)"),
        })
    };
    let (name_s, rest) = (tokens.first().map(|t| t.1).unwrap_or(""), 1);
    if name_s.is_empty() {
        return Err(fail(0, "a semantic name"));
    }
    // A geometry shader's stream prefix `m1:` (OSG5).
    let (stream, name) = match name_s.split_once(':') {
        Some((m, n)) if m.len() > 1 && m.starts_with('m') => {
            let s = m[1..]
                .parse::<u32>()
                .map_err(|_| fail(0, "a stream `m<n>:`"))?;
            (s, n)
        }
        _ => (0, name_s),
    };
    let mut i = rest;
    let index = tokens
        .get(i)
        .and_then(|t| t.1.parse::<u32>().ok())
        .ok_or_else(|| fail(i, "a semantic index"))?;
    i += 1;
    let mut mask = 0u8;
    let mut named_by_register = false;
    while let Some(&(_, tok)) = tokens.get(i) {
        if tok == "N/A" {
            named_by_register = true;
        } else if let Some(m) = mask_of(tok) {
            mask |= m;
        } else {
            break;
        }
        i += 1;
    }
    if named_by_register {
        mask = 1;
    }
    if mask == 0 {
        return Err(fail(i, "a component mask (`xyzw`, `N/A`)"));
    }
    let register = match tokens.get(i) {
        Some((_, r)) => r.parse::<u32>().unwrap_or(NO_REGISTER),
        None => return Err(fail(i, "a register")),
    };
    i += 1;
    let t = tables();
    let system_value = tokens
        .get(i)
        .and_then(|(_, c)| t.file.signature_value.iter().find(|r| r.column == *c))
        .map(|r| r.code)
        .ok_or_else(|| fail(i, "a system value (NONE, POS, TARGET, ...)"))?;
    i += 1;
    let (component_type, min_precision) = tokens
        .get(i)
        .and_then(|(_, f)| format_named(f))
        .ok_or_else(|| fail(i, "a format (float, uint, int, min16f, ...)"))?;
    i += 1;
    let mut used = 0u8;
    for (k, (_, tok)) in tokens.iter().enumerate().skip(i) {
        used |= match *tok {
            "YES" => mask,
            "NO" => 0,
            letters => mask_of(letters).ok_or_else(|| fail(k, "the components used"))?,
        };
    }
    let rw_mask = if output_like(kind, version) {
        !used & 0xf
    } else {
        used
    };
    Ok(Element {
        name: name.to_string(),
        index,
        system_value,
        component_type,
        register,
        mask,
        rw_mask,
        stream,
        min_precision,
    })
}

/// The `[[signature_value]]` row keyed `key`.
fn value_row(key: &str) -> Option<&'static SignatureValueRow> {
    tables().file.signature_value.iter().find(|r| r.key == key)
}

/// Which signature, register and name a declaration declares.
struct Declared<'a> {
    kind: Kind,
    register: u32,
    mask: u8,
    row: &'a SignatureValueRow,
    /// A pixel shader input declared `constant` (not interpolated).
    constant: bool,
}

/// What one declaration of a program with `version` declares into a signature; `patch` says
/// the declaration is in a hull shader's fork or join phase.
fn declared(instr: &Instruction, version: u32, patch: bool) -> Option<Declared<'static>> {
    let t = tables();
    let name = t.op(instr.opcode)?.name.as_str();
    let input = matches!(
        name,
        "dcl_input"
            | "dcl_input_sgv"
            | "dcl_input_siv"
            | "dcl_input_ps"
            | "dcl_input_ps_sgv"
            | "dcl_input_ps_siv"
    );
    let output = matches!(name, "dcl_output" | "dcl_output_sgv" | "dcl_output_siv");
    if !input && !output {
        return None;
    }
    let op = instr.operands.first()?;
    let prefix = t.register_type(op.ty)?.1.as_str();
    let kind = match (input, prefix) {
        (true, "v" | "vicp") => Kind::Input,
        (true, "vpc") => Kind::PatchConstant,
        (false, "o") if patch => Kind::PatchConstant,
        (false, "o") => Kind::Output,
        (false, _) => {
            // Outputs a program names by register (`oDepth`, `oMask`, ...).
            let row = value_row(prefix)?;
            return Some(Declared {
                kind: Kind::Output,
                register: NO_REGISTER,
                mask: 1,
                row,
                constant: false,
            });
        }
        _ => return None,
    };
    if op.num_components != 2 {
        return None;
    }
    let register = u32::try_from(op.indices.last()?.imm).ok()?;
    let mask = op.mask();
    // `_sgv`/`_siv` name a system value in the word after the operand.
    let key = if name.ends_with("_sgv") || name.ends_with("_siv") {
        find_name(&t.file.system_values, *instr.words.first()?)?
    } else if kind == Kind::Output && version >> 16 == program_type_code("ps") {
        "o"
    } else {
        ""
    };
    let constant = name.starts_with("dcl_input_ps")
        && find_name(&t.file.interpolation_modes, (instr.controls & 0xf) as u8) == Some("constant");
    Some(Declared {
        kind,
        register,
        mask,
        row: value_row(key)?,
        constant,
    })
}

/// The signature elements the declarations of a program with `version` imply (docs/dxbc.md):
/// one element per declared register and components (declarations of the same register,
/// stream and system value with overlapping components are one element), named by
/// `[[signature_value]]`: `TEXCOORD<register>` when the declaration names no system value,
/// `SV_Target<register>` for a pixel shader's outputs; the components declared; the
/// components read (inputs) or never written (outputs) as the declaration says; `float`, or
/// the system value's type, or `uint` for a pixel shader input declared `constant`. Elements
/// are ordered by stream, register and first component, those named by register last.
pub fn from_declarations<'a>(
    instrs: impl IntoIterator<Item = (&'a Instruction, Span)>,
    version: u32,
) -> Vec<(Kind, Located)> {
    let t = tables();
    let phase = |n: &str| t.opcode(n).unwrap_or(u16::MAX);
    let (cp_phase, fork, join, stream_op) = (
        phase("hs_control_point_phase"),
        phase("hs_fork_phase"),
        phase("hs_join_phase"),
        phase("dcl_stream"),
    );
    let mut out: Vec<(Kind, Located, &SignatureValueRow)> = Vec::new();
    let mut patch = false;
    let mut stream = 0;
    for (instr, span) in instrs {
        if instr.opcode == cp_phase {
            patch = false;
        } else if instr.opcode == fork || instr.opcode == join {
            patch = true;
        } else if instr.opcode == stream_op {
            stream = instr
                .operands
                .first()
                .and_then(|o| o.first_index())
                .and_then(|s| u32::try_from(s).ok())
                .unwrap_or(0);
        }
        let Some(d) = declared(instr, version, patch) else {
            continue;
        };
        let same = out.iter_mut().find(|(k, l, row)| {
            *k == d.kind
                && l.element.register == d.register
                && l.element.stream == stream
                && std::ptr::eq(*row, d.row)
                && l.element.mask & d.mask != 0
        });
        let output_like = output_like(d.kind, version);
        if let Some((_, l, _)) = same {
            l.element.mask |= d.mask;
            l.element.rw_mask = if output_like {
                !l.element.mask & 0xf
            } else {
                l.element.mask
            };
            continue;
        }
        let component_type = if d.constant && d.row.key.is_empty() {
            component_type_named("uint")
        } else {
            component_type_named(&d.row.ty)
        };
        out.push((
            d.kind,
            Located {
                element: Element {
                    name: d.row.semantic.clone(),
                    index: 0,
                    system_value: d.row.code,
                    component_type,
                    register: d.register,
                    mask: d.mask,
                    rw_mask: if output_like { !d.mask & 0xf } else { d.mask },
                    stream,
                    min_precision: 0,
                },
                span,
            },
            d.row,
        ));
    }
    out.sort_by_key(|(k, l, _)| {
        let e = &l.element;
        (
            *k as u8,
            e.stream,
            e.register == NO_REGISTER,
            e.register,
            e.mask.trailing_zeros(),
        )
    });
    // Semantic indices, per signature and stream.
    for kind in [Kind::Input, Kind::Output, Kind::PatchConstant] {
        let mut taken: Vec<(u32, String, u32)> = Vec::new();
        let mut unplaced = Vec::new();
        for (i, (k, l, row)) in out.iter_mut().enumerate() {
            if *k != kind {
                continue;
            }
            let e = &mut l.element;
            let same = |t: &&(u32, String, u32)| t.0 == e.stream && t.1 == e.name;
            let wanted = match row.index.as_str() {
                "register" if e.register != NO_REGISTER => Some(e.register),
                "register" | "count" => Some(taken.iter().filter(same).count() as u32),
                n => n.parse().ok(),
            };
            match wanted {
                Some(w) if !taken.contains(&(e.stream, e.name.clone(), w)) => {
                    e.index = w;
                    taken.push((e.stream, e.name.clone(), w));
                }
                _ => unplaced.push(i),
            }
        }
        // A second element named alike in one register: the next index nothing uses.
        for i in unplaced {
            let e = &mut out[i].1.element;
            let next = taken
                .iter()
                .filter(|t| t.0 == e.stream && t.1 == e.name)
                .map(|t| t.2 + 1)
                .max()
                .unwrap_or(0);
            e.index = next;
            taken.push((e.stream, e.name.clone(), next));
        }
    }
    out.into_iter().map(|(k, l, _)| (k, l)).collect()
}

/// The signatures of a listing program: each kind from the listing's table when it has one,
/// otherwise from the declarations. Every declared register and component must be an
/// element of the table (with the declaration's system value): a declaration the table does
/// not hold is a validation error at the declaration (rule `dxbc-signature`).
pub fn for_listing(
    tables: &ListingTables,
    declared: &[(Kind, Located)],
) -> Result<Signatures, Error> {
    let mut sigs = Signatures::default();
    for kind in [Kind::Input, Kind::Output, Kind::PatchConstant] {
        let mine = declared.iter().filter(|(k, _)| *k == kind).map(|(_, l)| l);
        let Some(table) = tables.get(kind) else {
            *sigs.get_mut(kind) = mine.map(|l| l.element.clone()).collect();
            continue;
        };
        for d in mine {
            let e = &d.element;
            let covered = table.iter().any(|r| {
                let t = &r.element;
                t.register == e.register
                    && t.stream == e.stream
                    && t.mask & e.mask == e.mask
                    && t.system_value == e.system_value
                    && (e.register != NO_REGISTER || t.name.eq_ignore_ascii_case(&e.name))
            });
            if !covered {
                let what = if e.register == NO_REGISTER {
                    e.name.clone()
                } else {
                    let mask: String = (0..4)
                        .filter(|c| e.mask >> c & 1 != 0)
                        .map(|c| ['x', 'y', 'z', 'w'][c])
                        .collect();
                    format!("register {} (.{mask})", e.register)
                };
                let table_name = match kind {
                    Kind::Input => "input",
                    Kind::Output => "output",
                    Kind::PatchConstant => "patch constant",
                };
                return Err(Error::Validation(ValidationError {
                    location: Location::from_span(d.span, d.span.line != 0),
                    rule: "dxbc-signature",
                    detail: format!(
                        "the declaration declares {what}{}, which the listing's {table_name} \
                         signature table does not hold; add the row or remove the table \
                         (without one, texlate derives the signature from the declarations)",
                        if e.system_value != 0 {
                            format!(" as system value {}", e.name)
                        } else {
                            String::new()
                        }
                    ),
                }));
            }
        }
        *sigs.get_mut(kind) = table.iter().map(|r| r.element.clone()).collect();
    }
    Ok(sigs)
}
