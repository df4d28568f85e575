//! A reader of the canonical IR text ([`display_program`](super::display_program) and
//! [`display_program_full`](super::display_program_full)), for tests that write IR by hand
//! (the pass filetests, `tests/passes/*.irtest`) and tools that edit it.
//!
//! One item per line, exactly as the display prints it:
//!
//! ```text
//! // a comment
//! resource #0 "t0" 2d return=f32
//! sampler #0 "s0" comparison
//! variable "V32" type=f elts=64
//! @!p0 sample 2d_array bias=r3.0 tex=#0 smp=#0 coord=(r1.0, r1.1) layer=r1.2 offset=(1, -2, 0) types=f32->f32 -> r=r0.0 g=r0.1 exec=16:M1
//! alu mov %0.0 <- 0x3f800000:f32 exec=16:M1
//! ```
//!
//! Fields may come in any order, each at most once, separated by any amount of blank space;
//! blank lines are skipped. What the display leaves out is not read either: spans become the
//! line and column of the item, origins are [`Origin::SYNTHETIC`]. `opaque ...` lines are
//! summaries of source items (their text is not printed) and are refused. Every malformed
//! line is a [`ParseError`] with its line and column; the reader never panics.

use super::*;
use crate::error::ParseError;

/// Reads a program of `isa` from its canonical IR text.
///
/// ```
/// use texlate::ir::{display_program, parse_program, Isa};
/// let text = "sample 2d tex=#0 smp=#0 coord=(r1.0, r1.1) -> r=r0.0 g=r0.1\n";
/// let program = parse_program(Isa::Dxbc, text)?;
/// assert_eq!(display_program(&program), text);
/// # Ok::<(), texlate::error::ParseError>(())
/// ```
pub fn parse_program(isa: Isa, text: &str) -> Result<Program, ParseError> {
    let mut program = Program::new(isa);
    let mut offset = 0;
    for (n, raw) in text.split('\n').enumerate() {
        let line_start = offset;
        offset += raw.len() + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let mut c = Cursor {
            s: line,
            pos: 0,
            line: u32::try_from(n + 1).unwrap_or(u32::MAX),
        };
        c.skip_ws();
        if c.at_end() {
            continue;
        }
        let span = Span {
            offset: line_start + c.pos,
            line: c.line,
            column: c.column(),
        };
        if c.rest().starts_with("//") {
            let text = &c.rest()[2..];
            let text = text.strip_prefix(' ').unwrap_or(text);
            program.items.push(Item::Comment(Comment {
                text: text.to_string(),
                span,
            }));
            continue;
        }
        match c.peek_word() {
            "opaque" => {
                return Err(c.error(
                    "a texture instruction, `alu`, a declaration or a `//` comment \
                     (`opaque` lines summarise source items and cannot be read back)",
                ))
            }
            "resource" => {
                let (index, r) = c.resource()?;
                if program.resources.insert(index, r).is_some() {
                    return Err(c.error_at(span, "one declaration per resource"));
                }
            }
            "sampler" => {
                let (index, s) = c.sampler_decl()?;
                if program.samplers.insert(index, s).is_some() {
                    return Err(c.error_at(span, "one declaration per sampler"));
                }
            }
            "variable" => {
                let v = c.variable()?;
                if program.variables.insert(v.name.clone(), v).is_some() {
                    return Err(c.error_at(span, "one declaration per variable"));
                }
            }
            _ => program.items.push(c.instruction(span)?),
        }
    }
    Ok(program)
}

/// Reads one texture or ALU instruction line (no comment, no declaration).
pub fn parse_item(line: &str) -> Result<Item, ParseError> {
    let mut c = Cursor {
        s: line,
        pos: 0,
        line: 1,
    };
    c.skip_ws();
    let span = Span {
        offset: c.pos,
        line: 1,
        column: c.column(),
    };
    c.instruction(span)
}

/// The scalar type spelled `name` (see `Display for ScalarType`).
fn scalar_type(name: &str) -> Option<ScalarType> {
    Some(match name {
        "f32" => ScalarType::F32,
        "f16" => ScalarType::F16,
        "f64" => ScalarType::F64,
        "u32" => ScalarType::U32,
        "i32" => ScalarType::I32,
        "u16" => ScalarType::U16,
        "i16" => ScalarType::I16,
        "u8" => ScalarType::U8,
        "i8" => ScalarType::I8,
        "u64" => ScalarType::U64,
        "i64" => ScalarType::I64,
        // Other names: short identifiers only (vISA type names, DX return types).
        _ if !name.is_empty()
            && name.len() <= 16
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !name.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            ScalarType::Other(TypeName::new(name))
        }
        _ => return None,
    })
}

fn alu_op(name: &str) -> Option<AluOp> {
    Some(match name {
        "mov" => AluOp::Mov,
        "u32_to_f32" => AluOp::U32ToF32,
        "i32_to_f32" => AluOp::I32ToF32,
        "f32_to_layer" => AluOp::F32ToLayer,
        "u32_to_layer" => AluOp::U32ToLayer,
        "f32_to_i32" => AluOp::F32ToI32,
        "fmul" => AluOp::FMul,
        "fmax_abs" => AluOp::FMaxAbs,
        "frcp" => AluOp::FRcp,
        "i16_to_f32" => AluOp::I16ToF32,
        "u16_to_f32" => AluOp::U16ToF32,
        "fmax_right_abs" => AluOp::FMaxRightAbs,
        "set_active_mask" => AluOp::SetActiveMask,
        "restore_active_mask" => AluOp::RestoreActiveMask,
        "quad_broadcast" => AluOp::QuadBroadcast,
        "quad_add_x" => AluOp::QuadAddX,
        "quad_add_y" => AluOp::QuadAddY,
        "mov_lanes" => AluOp::MovLanes,
        "insert_field" => AluOp::InsertField,
        "extract_field_signed" => AluOp::ExtractFieldSigned,
        "ffma" => AluOp::FFma,
        "flog2" => AluOp::FLog2,
        "fset_ge_abs" => AluOp::FSetGeAbs,
        _ => return None,
    })
}

fn tex_op(name: &str) -> Option<TexOp> {
    Some(match name {
        "sample" => TexOp::Sample,
        "fetch" => TexOp::Fetch,
        "fetch_mcs" => TexOp::FetchMcs,
        "gather.r" => TexOp::Gather { component: 0 },
        "gather.g" => TexOp::Gather { component: 1 },
        "gather.b" => TexOp::Gather { component: 2 },
        "gather.a" => TexOp::Gather { component: 3 },
        "query_lod" => TexOp::QueryLod,
        "query_size" => TexOp::QuerySize,
        "query_samples" => TexOp::QuerySamples,
        "sample_pos" => TexOp::SamplePos,
        "buffer_info" => TexOp::BufferInfo,
        "load_typed" => TexOp::LoadTyped,
        "load_raw" => TexOp::LoadRaw,
        "load_structured" => TexOp::LoadStructured,
        "check_access_mapped" => TexOp::CheckAccessMapped,
        _ => {
            let code = name.strip_prefix("query.0x")?;
            if code.is_empty() || code.len() > 2 {
                return None;
            }
            TexOp::QueryOther {
                code: u8::from_str_radix(code, 16).ok()?,
            }
        }
    })
}

/// A dimension as `Display for Dimension` spells it.
pub fn parse_dimension(word: &str) -> Option<Dimension> {
    if word == "deferred" {
        return Some(Dimension::Deferred);
    }
    let (dim, rest) = [
        ("structured_buffer", Dim::StructuredBuffer),
        ("raw_buffer", Dim::RawBuffer),
        ("buffer", Dim::Buffer),
        ("cube", Dim::Cube),
        ("1d", Dim::D1),
        ("2d", Dim::D2),
        ("3d", Dim::D3),
    ]
    .iter()
    .find_map(|(name, d)| word.strip_prefix(name).map(|r| (*d, r)))?;
    let (multisampled, rest) = match rest.strip_prefix("ms") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let arrayed = match rest {
        "" => false,
        "_array" => true,
        _ => return None,
    };
    Some(Dimension::Known {
        dim,
        arrayed,
        multisampled,
    })
}

const CHANNEL_NAMES: [&str; 4] = ["r", "g", "b", "a"];

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    line: u32,
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%' | '#' | ':' | '@' | '!' | '-')
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.rest().trim().is_empty()
    }

    fn column(&self) -> u32 {
        u32::try_from(self.s[..self.pos].chars().count() + 1).unwrap_or(u32::MAX)
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t']).len();
    }

    /// The token at the cursor, for messages: up to the next blank, comma or bracket.
    fn token(&self) -> String {
        let rest = self.rest();
        let end = rest
            .char_indices()
            .find(|(i, c)| {
                c.is_whitespace() || (*i > 0 && matches!(c, ',' | '(' | ')' | '[' | ']'))
            })
            .map_or(rest.len(), |(i, _)| i);
        rest[..end.max(rest.chars().next().map_or(0, char::len_utf8))].to_string()
    }

    fn error(&self, expected: &str) -> ParseError {
        ParseError {
            line: self.line,
            column: self.column(),
            token: self.token(),
            expected: expected.to_string(),
        }
    }

    fn error_at(&self, span: Span, expected: &str) -> ParseError {
        ParseError {
            line: span.line,
            column: span.column,
            token: self.s[span.column as usize - 1..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string(),
            expected: expected.to_string(),
        }
    }

    /// The word at the cursor without consuming it.
    fn peek_word(&self) -> &'a str {
        let rest = self.rest();
        let end = rest.find(|c: char| !word_char(c)).unwrap_or(rest.len());
        &rest[..end]
    }

    fn word(&mut self) -> &'a str {
        let w = self.peek_word();
        self.pos += w.len();
        w
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, lit: &str) -> Result<(), ParseError> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(self.error(&format!("`{lit}`")))
        }
    }

    /// At least one blank, or the end of the line.
    fn separator(&mut self) -> Result<(), ParseError> {
        if self.rest().is_empty() || self.rest().starts_with([' ', '\t']) {
            self.skip_ws();
            Ok(())
        } else {
            Err(self.error("a blank between fields"))
        }
    }

    fn number<T: TryFrom<u64>>(&mut self, what: &str) -> Result<T, ParseError> {
        let rest = self.rest();
        let len = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let digits = &rest[..len];
        let value = (len > 0 && len <= 20)
            .then(|| digits.parse::<u64>().ok())
            .flatten()
            .and_then(|v| T::try_from(v).ok());
        match value {
            Some(v) => {
                self.pos += len;
                Ok(v)
            }
            None => Err(self.error(what)),
        }
    }

    fn reg(&mut self) -> Result<Reg, ParseError> {
        let start = self.pos;
        let file = if self.eat("icb") {
            RegFile::ImmConstantBuffer
        } else if self.eat("cb") {
            RegFile::ConstantBuffer
        } else if self.eat("other") {
            let ty = self.number::<u8>("a register type code (0..255)")?;
            self.expect(":")?;
            RegFile::Other(ty)
        } else if self.eat("r") {
            RegFile::Temp
        } else if self.eat("v") {
            RegFile::Input
        } else if self.eat("o") {
            RegFile::Output
        } else if self.eat("x") {
            RegFile::IndexableTemp
        } else if self.eat("p") {
            RegFile::Predicate
        } else if self.eat("%") {
            RegFile::Virtual
        } else {
            return Err(self.error("a register, an immediate or `zero`"));
        };
        if !self.rest().starts_with(|c: char| c.is_ascii_digit()) {
            self.pos = start;
            return Err(self.error("a register, an immediate or `zero`"));
        }
        let index = self.number("a register number (32 bits)")?;
        let sub = if file == RegFile::Predicate {
            0
        } else {
            self.expect(".")?;
            self.number("a register element (32 bits)")?
        };
        Ok(Reg { file, index, sub })
    }

    fn scalar_type(&mut self) -> Result<ScalarType, ParseError> {
        let rest = self.rest();
        let len = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
                .len();
        match scalar_type(&rest[..len]) {
            Some(t) => {
                self.pos += len;
                Ok(t)
            }
            None => Err(self.error("a scalar type (f32, u32, i32, f16, ...)")),
        }
    }

    fn scalar(&mut self) -> Result<Scalar, ParseError> {
        if self.peek_word() == "zero"
            || (self.rest().starts_with("zero") && !self.rest()[4..].starts_with(word_char))
        {
            self.pos += 4;
            return Ok(Scalar::Zero);
        }
        if self.rest().starts_with("0x") {
            self.pos += 2;
            let rest = self.rest();
            let len = rest.len()
                - rest
                    .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                    .len();
            let bits = (len > 0 && len <= 16)
                .then(|| u64::from_str_radix(&rest[..len], 16).ok())
                .flatten();
            let Some(bits) = bits else {
                return Err(self.error("hexadecimal digits (64 bits at most)"));
            };
            self.pos += len;
            self.expect(":")?;
            let ty = self.scalar_type()?;
            return Ok(Scalar::Imm(Imm { bits, ty }));
        }
        self.reg().map(Scalar::Reg)
    }

    /// `(a, b, ...)` of items read by `item`.
    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        self.expect("(")?;
        self.skip_ws();
        let mut out = Vec::new();
        if self.eat(")") {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            self.skip_ws();
            if self.eat(")") {
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(self.error("`,` or `)`"));
            }
            self.skip_ws();
        }
    }

    fn scalars(&mut self) -> Result<Vec<Scalar>, ParseError> {
        self.list(Self::scalar)
    }

    fn resref(&mut self) -> Result<ResRef, ParseError> {
        if self.eat("#") {
            return Ok(ResRef::Binding(self.number("a binding number (32 bits)")?));
        }
        if self.eat("handle(") {
            let s = self.scalar()?;
            self.expect(")")?;
            return Ok(ResRef::Handle(s));
        }
        if self.eat("range") {
            let range = self.number("a range number (32 bits)")?;
            self.expect("[")?;
            let base = self.number("a base (32 bits)")?;
            self.skip_ws();
            let dynamic = if self.eat("+") {
                self.skip_ws();
                Some(self.scalar()?)
            } else {
                None
            };
            self.expect("]")?;
            let save = self.pos;
            self.skip_ws();
            let nonuniform = self.peek_word() == "nonuniform";
            if nonuniform {
                self.pos += "nonuniform".len();
            } else {
                self.pos = save;
            }
            return Ok(ResRef::Indexed {
                range,
                base,
                dynamic,
                nonuniform,
            });
        }
        Err(self.error("`#N`, `rangeN[...]` or `handle(...)`"))
    }

    fn pred(&mut self) -> Result<Option<Pred>, ParseError> {
        if !self.eat("@") {
            return Ok(None);
        }
        let negate = self.eat("!");
        self.expect("p")?;
        let index = self.number("a predicate number (16 bits)")?;
        self.separator()?;
        Ok(Some(Pred { index, negate }))
    }

    /// `exec=16:M1` (or `exec=8:M3_NM`): the SIMD width and execution mask.
    fn exec(&mut self) -> Result<Exec, ParseError> {
        let size = self.number("a SIMD width (8 bits)")?;
        self.expect(":M")?;
        let group: u8 = self.number("an execution mask group M1..M8")?;
        if !(1..=8).contains(&group) {
            self.pos -= 1;
            return Err(self.error("an execution mask group M1..M8"));
        }
        let nm = if self.eat("_NM") { 8 } else { 0 };
        Ok(Exec {
            size,
            mask: (group - 1) | nm,
        })
    }

    fn end(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("the end of the line"))
        }
    }

    fn quoted(&mut self) -> Result<String, ParseError> {
        self.expect("\"")?;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    _ => {
                        self.pos += i;
                        return Err(self.error("`\\\"` or `\\\\`"));
                    }
                },
                c => out.push(c),
            }
        }
        self.pos = self.s.len();
        Err(self.error("a closing `\"`"))
    }

    fn keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        if self.peek_word() == kw {
            self.pos += kw.len();
            self.separator()
        } else {
            Err(self.error(&format!("`{kw}`")))
        }
    }

    /// `resource #0 "t0" 2d [return=f32 | return=(f32, f32, f32, f32)] [samples=N]`
    fn resource(&mut self) -> Result<(u32, Resource), ParseError> {
        self.keyword("resource")?;
        self.expect("#")?;
        let index = self.number("a binding number (32 bits)")?;
        self.separator()?;
        let name = self.quoted()?;
        self.separator()?;
        let dim = self.dimension()?;
        let mut r = Resource {
            name,
            dim,
            return_type: None,
            sample_count: None,
        };
        loop {
            self.separator()?;
            if self.at_end() {
                return Ok((index, r));
            }
            if self.eat("return=") && r.return_type.is_none() {
                r.return_type = Some(if self.rest().starts_with('(') {
                    let at = self.pos;
                    let types = self.list(Self::scalar_type)?;
                    match <[ScalarType; 4]>::try_from(types) {
                        Ok(t) => t,
                        Err(_) => {
                            self.pos = at;
                            return Err(self.error("four return types"));
                        }
                    }
                } else {
                    [self.scalar_type()?; 4]
                });
            } else if self.eat("samples=") && r.sample_count.is_none() {
                r.sample_count = Some(self.number("a sample count (32 bits)")?);
            } else {
                return Err(self.error("`return=` or `samples=` (each at most once)"));
            }
        }
    }

    /// `sampler #0 "s0" [comparison]`
    fn sampler_decl(&mut self) -> Result<(u32, SamplerDecl), ParseError> {
        self.keyword("sampler")?;
        self.expect("#")?;
        let index = self.number("a binding number (32 bits)")?;
        self.separator()?;
        let name = self.quoted()?;
        self.separator()?;
        let comparison = self.peek_word() == "comparison";
        if comparison {
            self.pos += "comparison".len();
        }
        self.end()?;
        Ok((index, SamplerDecl { name, comparison }))
    }

    /// `variable "V32" type=f elts=64`
    fn variable(&mut self) -> Result<Variable, ParseError> {
        self.keyword("variable")?;
        let name = self.quoted()?;
        self.separator()?;
        self.expect("type=")?;
        let ty = self.quoted()?;
        self.separator()?;
        self.expect("elts=")?;
        let num_elts = self.number("an element count (32 bits)")?;
        self.end()?;
        Ok(Variable { name, ty, num_elts })
    }

    fn dimension(&mut self) -> Result<Dimension, ParseError> {
        match parse_dimension(self.peek_word()) {
            Some(d) => {
                self.word();
                Ok(d)
            }
            None => Err(self.error(
                "a dimension (1d, 2d, 3d, cube, buffer, raw_buffer, structured_buffer, \
                 with `ms` and `_array` suffixes, or deferred)",
            )),
        }
    }

    fn instruction(&mut self, span: Span) -> Result<Item, ParseError> {
        let pred = self.pred()?;
        if self.peek_word() == "alu" {
            return self.alu(pred, span);
        }
        let op = match tex_op(self.peek_word()) {
            Some(op) => op,
            None => {
                return Err(self.error(
                    "a texture op (sample, fetch, gather.r, query_size, ...), `alu`, \
                     a declaration or a `//` comment",
                ))
            }
        };
        self.word();
        self.separator()?;
        let dim = self.dimension()?;
        let mut t = TexInstr::new(op, ResRef::Binding(0), Origin::SYNTHETIC);
        t.dim = dim;
        t.pred = pred;
        t.span = span;
        let mut seen: Vec<&'static str> = Vec::new();
        let mut texture = None;
        let (mut ddx, mut ddy) = (None, None);
        let arrow;
        loop {
            self.separator()?;
            if self.at_end() {
                return Err(self.error("`-> ` and the results"));
            }
            if self.rest().starts_with("->") {
                arrow = self.pos;
                self.pos += 2;
                break;
            }
            let at = self.pos;
            let key = self.rest().split(['=', ' ', '\t']).next().unwrap_or("");
            const KEYS: [&str; 21] = [
                "lod",
                "bias",
                "ddx",
                "ddy",
                "tex",
                "smp",
                "coord",
                "layer",
                "ref",
                "min_lod",
                "sample",
                "mcs",
                "offset",
                "offsets",
                "types",
                "residency",
                "cps",
                "nonuniform_sampler",
                "ndv",
                "nodep",
                "exec",
            ];
            let Some(key) = KEYS.iter().find(|k| **k == key).copied() else {
                return Err(self.error("a field (`lod=`, `tex=`, `coord=`, a flag, ...) or `->`"));
            };
            if seen.contains(&key) {
                return Err(self.error(&format!("`{key}` at most once")));
            }
            seen.push(key);
            let lod_keys = ["lod", "bias", "ddx", "ddy"];
            let grad = |k: &str| k == "ddx" || k == "ddy";
            if lod_keys.contains(&key)
                && seen[..seen.len() - 1]
                    .iter()
                    .filter(|k| lod_keys.contains(k))
                    .any(|k| !(grad(k) && grad(key)))
            {
                return Err(self.error("one LOD form (`lod=`, `bias=` or `ddx= ddy=`)"));
            }
            if (key == "offset" && seen.contains(&"offsets"))
                || (key == "offsets" && seen.contains(&"offset"))
            {
                return Err(self.error("one offset form"));
            }
            self.pos += key.len();
            let flag = |t: &mut TexInstr| -> Option<()> {
                let f = &mut t.flags;
                *match key {
                    "residency" => &mut f.residency,
                    "cps" => &mut f.cps,
                    "nonuniform_sampler" => &mut f.nonuniform_sampler,
                    "ndv" => &mut f.ndv,
                    "nodep" => &mut f.nodep,
                    _ => return None,
                } = true;
                Some(())
            };
            if flag(&mut t).is_some() {
                continue;
            }
            if !self.eat("=") {
                self.pos = at + key.len();
                return Err(self.error("`=`"));
            }
            match key {
                "lod" => {
                    let zero = self.rest().starts_with('0')
                        && !self.rest()[1..].starts_with(|c: char| c.is_ascii_alphanumeric());
                    t.lod = if zero {
                        self.pos += 1;
                        Lod::Zero
                    } else {
                        Lod::Level(self.scalar()?)
                    };
                }
                "bias" => t.lod = Lod::Bias(self.scalar()?),
                "ddx" => ddx = Some(self.scalars()?),
                "ddy" => ddy = Some(self.scalars()?),
                "tex" => texture = Some(self.resref()?),
                "smp" => t.sampler = Some(self.resref()?),
                "coord" => t.coord = self.scalars()?,
                "layer" => t.array_index = Some(self.scalar()?),
                "ref" => t.depth_ref = Some(self.scalar()?),
                "min_lod" => t.min_lod = Some(self.scalar()?),
                "sample" => t.sample_index = Some(self.scalar()?),
                "mcs" => t.mcs = self.scalars()?,
                "offsets" => t.offset = Offset::PerTexel(self.scalars()?),
                "offset" => {
                    if self.eat("packed(") {
                        let s = self.scalar()?;
                        self.expect(")")?;
                        t.offset = Offset::Packed(s);
                    } else {
                        t.offset = self.offset_list()?;
                    }
                }
                "types" => {
                    let side = |c: &mut Self| -> Result<Option<ScalarType>, ParseError> {
                        // `-` is an absent type: `types=-->u32`, `types=f32->-`.
                        if c.rest().starts_with('-') && !c.rest().starts_with("->") {
                            c.pos += 1;
                            Ok(None)
                        } else {
                            c.scalar_type().map(Some)
                        }
                    };
                    t.coord_type = side(self)?;
                    self.expect("->")?;
                    t.result_type = side(self)?;
                    if t.coord_type.is_none() && t.result_type.is_none() {
                        return Err(self.error("a coordinate or result type in `types=`"));
                    }
                }
                "exec" => t.exec = Some(self.exec()?),
                _ => return Err(self.error("a known field")),
            }
        }
        let after = self.pos;
        self.pos = arrow;
        match (ddx, ddy) {
            (Some(dx), Some(dy)) => t.lod = Lod::Grad { dx, dy },
            (None, None) => {}
            _ => return Err(self.error("both `ddx=` and `ddy=` before `->`")),
        }
        match texture {
            Some(tex) => t.texture = tex,
            None => return Err(self.error("a `tex=` field before `->`")),
        }
        self.pos = after;
        // Results: `none` or `r=S g=S ...`, then `status=S`, `exec=...`.
        let mut any = false;
        let mut none = false;
        loop {
            self.separator()?;
            if self.at_end() {
                break;
            }
            if self.peek_word() == "none" && !any && !none {
                self.pos += 4;
                none = true;
                continue;
            }
            if self.eat("status=") && t.status_dst.is_none() {
                t.status_dst = Some(self.scalar()?);
                continue;
            }
            if self.eat("exec=") && t.exec.is_none() && !seen.contains(&"exec") {
                t.exec = Some(self.exec()?);
                seen.push("exec");
                continue;
            }
            let c = CHANNEL_NAMES
                .iter()
                .position(|c| self.rest().starts_with(&format!("{c}=")));
            match c {
                Some(c)
                    if !none
                        && t.dst[c].is_none()
                        && t.status_dst.is_none()
                        && !seen.contains(&"exec") =>
                {
                    self.pos += 2;
                    t.dst[c] = Some(self.scalar()?);
                    any = true;
                }
                _ => {
                    return Err(self.error(
                        "a result (`r=`, `g=`, `b=`, `a=` once each, or `none`), \
                         then `status=` and `exec=`",
                    ))
                }
            }
        }
        if !any && !none {
            return Err(self.error("the results (`r=...` or `none`)"));
        }
        Ok(Item::Tex(Box::new(t)))
    }

    /// `(1, -2, 0)` immediates, or `(S, ...)` scalars in registers.
    fn offset_list(&mut self) -> Result<Offset, ParseError> {
        let at = self.pos;
        let imm = {
            let mut probe = Cursor {
                s: self.s,
                pos: self.pos,
                line: self.line,
            };
            probe
                .list(|c| {
                    let neg = c.eat("-");
                    let v: i64 = c.number::<u8>("an offset in [-128, 127]")?.into();
                    Ok(if neg { -v } else { v })
                })
                .ok()
                .map(|v| (v, probe.pos))
        };
        match imm {
            Some((v, end)) if !v.is_empty() => {
                let parsed: Option<Vec<i8>> = v.iter().map(|x| i8::try_from(*x).ok()).collect();
                match parsed.and_then(|p| <[i8; 3]>::try_from(p).ok()) {
                    Some(o) => {
                        self.pos = end;
                        Ok(Offset::Imm(o))
                    }
                    None => {
                        self.pos = at;
                        Err(self.error("three immediate offsets in [-128, 127]"))
                    }
                }
            }
            _ => Ok(Offset::Dynamic(self.scalars()?)),
        }
    }

    fn alu(&mut self, pred: Option<Pred>, span: Span) -> Result<Item, ParseError> {
        self.keyword("alu")?;
        let Some(op) = alu_op(self.peek_word()) else {
            return Err(self.error("an ALU op (mov, u32_to_f32, fmul, ...)"));
        };
        self.word();
        self.separator()?;
        let dst = self.scalar()?;
        self.separator()?;
        self.expect("<-")?;
        let mut srcs = Vec::new();
        let mut exec = None;
        loop {
            self.separator()?;
            if self.at_end() {
                break;
            }
            if self.eat("exec=") {
                exec = Some(self.exec()?);
                self.end()?;
                break;
            }
            if !srcs.is_empty() {
                // `a, b`: the comma follows the previous operand directly.
                return Err(self.error("`,` between operands"));
            }
            srcs.push(self.scalar()?);
            while self.eat(",") {
                self.skip_ws();
                srcs.push(self.scalar()?);
            }
        }
        Ok(Item::Alu(Box::new(AluInstr {
            op,
            dst,
            srcs,
            pred,
            exec,
            span,
            origin: crate::ir::Origin::SYNTHETIC,
        })))
    }
}
