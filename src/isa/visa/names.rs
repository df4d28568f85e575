//! Declarations and names: `.decl` lines fill the program's tables, and names resolve to the
//! indices the binary uses (research §6: variables from 32 in declaration order, surfaces
//! from 6, samplers from 0, predicates from 1).

use crate::error::{Error, Location, ParseError, ValidationError};
use crate::ir::Program;
use crate::isa::text_out::{push_decimal, push_decimal_width, TextOut};

use super::decls::{DeclTable, Kind};
use super::inst::VisaProgram;
use super::tables::{self, TypeDesc};

/// The largest predicate id: the predicate field's bits 11:0 (research §3.1).
pub const MAX_PREDICATE_ID: u32 = 0xfff;

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    General(u32),
    Sampler(u8),
    Surface(u8),
    Predicate(u16),
}

impl Named {
    /// How a diagnostic calls this kind of name.
    pub fn class(self) -> &'static str {
        match self {
            Named::General(_) => "a general variable",
            Named::Sampler(_) => "a sampler variable",
            Named::Surface(_) => "a surface variable",
            Named::Predicate(_) => "a predicate",
        }
    }
}

/// The names visible to one program: a program's tables, or the declarations a stream read.
pub struct Scope<'p> {
    decls: Decls<'p>,
    declared: bool,
}

/// Where a [`Scope`]'s declared names are.
#[derive(Clone, Copy)]
enum Decls<'p> {
    /// A program's variables, samplers and resources, and its vISA state's predicates.
    Program(&'p Program, &'p [String]),
    /// Declarations as read ([`DeclTable`]).
    Table(&'p DeclTable),
}

impl<'p> Scope<'p> {
    pub fn new(program: &'p Program) -> Self {
        let (predicates, declared): (&[String], bool) = match program.state.get::<VisaProgram>() {
            Some(v) => (&v.predicates, v.declared),
            None => (&[], false),
        };
        let declared = declared
            || !program.variables.is_empty()
            || !program.samplers.is_empty()
            || !program.resources.is_empty();
        Scope {
            decls: Decls::Program(program, predicates),
            declared,
        }
    }

    /// The names `table` declares: what [`Scope::new`] gives for the program
    /// [`DeclTable::fill`] fills from it.
    pub fn of_table(table: &'p DeclTable) -> Self {
        Scope {
            decls: Decls::Table(table),
            declared: table.declared(),
        }
    }

    /// What declared name `name` stands for: `None` when it is not declared, `Some(None)`
    /// when its index does not fit the operand that names it.
    fn declared_name(&self, name: &str) -> Option<Option<Named>> {
        let (program, predicates) = match self.decls {
            Decls::Table(t) => return t.resolve(name),
            Decls::Program(program, predicates) => (program, predicates),
        };
        let limits = &tables::tables().limits;
        if let Some(pos) = program.variables.get_index_of(name) {
            return Some(
                u32::try_from(pos)
                    .ok()
                    .and_then(|p| p.checked_add(limits.first_user_variable))
                    .map(Named::General),
            );
        }
        if let Some((&i, _)) = program.samplers.iter().find(|(_, s)| s.name == name) {
            return Some(u8::try_from(i).ok().map(Named::Sampler));
        }
        if let Some((&i, _)) = program.resources.iter().find(|(_, r)| r.name == name) {
            return Some(u8::try_from(i).ok().map(Named::Surface));
        }
        let pos = predicates.iter().position(|p| p == name)?;
        Some(
            u16::try_from(pos as u32 + limits.first_user_predicate)
                .ok()
                .map(Named::Predicate),
        )
    }

    /// What `name` stands for. Predefined names always resolve; declared names when the
    /// program declares variables; IGC's own `V<n>`/`S<n>`/`T<n>`/`P<n>` when it does not.
    pub fn resolve(&self, name: &str) -> Option<Named> {
        let limits = &tables::tables().limits;
        if let Some(named) = predefined(name) {
            return Some(named);
        }
        if self.declared {
            if let Some(named) = self.declared_name(name) {
                return named;
            }
        }
        let mut chars = name.chars();
        let prefix = chars.next()?;
        let digits = chars.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u32 = digits.parse().ok()?;
        match prefix {
            'V' if n < limits.first_user_variable || !self.declared => Some(Named::General(n)),
            'T' if n < limits.first_user_surface || !self.declared => {
                u8::try_from(n).ok().map(Named::Surface)
            }
            'S' if !self.declared => u8::try_from(n).ok().map(Named::Sampler),
            'P' if !self.declared && n <= MAX_PREDICATE_ID => {
                u16::try_from(n).ok().map(Named::Predicate)
            }
            _ => None,
        }
    }

    /// The declared name of the `pos`-th general variable.
    fn var_decl_name(&self, pos: usize) -> Option<&'p str> {
        match self.decls {
            Decls::Program(p, _) => p.variables.get_index(pos).map(|(n, _)| n.as_str()),
            Decls::Table(t) => t.name_of(Kind::General, pos),
        }
    }

    /// The name of general variable `index`.
    pub fn var_name(&self, index: u32) -> String {
        let mut s = String::new();
        self.push_var_name(&mut s, index);
        s
    }

    /// [`Scope::var_name`], appended to `out`.
    pub fn push_var_name(&self, out: &mut (impl TextOut + ?Sized), index: u32) {
        let limits = &tables::tables().limits;
        if let Some(n) = limits.predefined_variables.get(index as usize) {
            return out.push_text(n);
        }
        if index < limits.first_user_variable {
            out.push_ascii(b'V');
            return push_decimal(out, u64::from(index));
        }
        let pos = (index - limits.first_user_variable) as usize;
        match self.var_decl_name(pos) {
            Some(name) => out.push_text(name),
            None => {
                out.push_ascii(b'V');
                push_decimal_width(out, u64::from(index), 4);
            }
        }
    }

    /// The name of sampler `index`, appended to `out`.
    pub fn push_sampler_name(&self, out: &mut (impl TextOut + ?Sized), index: u8) {
        let name = match self.decls {
            Decls::Program(p, _) => p.samplers.get(&u32::from(index)).map(|s| s.name.as_str()),
            Decls::Table(t) => t.name_of(Kind::Sampler, usize::from(index)),
        };
        match name {
            Some(name) => out.push_text(name),
            None => {
                out.push_ascii(b'S');
                push_decimal(out, u64::from(index));
            }
        }
    }

    /// The name of surface `index`, appended to `out`.
    pub fn push_surface_name(&self, out: &mut (impl TextOut + ?Sized), index: u8) {
        let limits = &tables::tables().limits;
        let name = match self.decls {
            Decls::Program(p, _) => p.resources.get(&u32::from(index)).map(|r| r.name.as_str()),
            Decls::Table(t) => u32::from(index)
                .checked_sub(limits.first_user_surface)
                .and_then(|pos| t.name_of(Kind::Surface, pos as usize)),
        };
        if let Some(name) = name {
            return out.push_text(name);
        }
        match limits.predefined_surfaces.get(usize::from(index)) {
            Some(n) => out.push_text(n),
            None => {
                out.push_ascii(b'T');
                push_decimal(out, u64::from(index));
            }
        }
    }

    /// The name of predicate `id`.
    pub fn pred_name(&self, id: u16) -> String {
        let mut s = String::new();
        self.push_pred_name(&mut s, id);
        s
    }

    /// [`Scope::pred_name`], appended to `out`.
    pub fn push_pred_name(&self, out: &mut (impl TextOut + ?Sized), id: u16) {
        let first = tables::tables().limits.first_user_predicate;
        let declared = u32::from(id)
            .checked_sub(first)
            .and_then(|p| match self.decls {
                Decls::Program(_, predicates) => predicates.get(p as usize).map(String::as_str),
                Decls::Table(t) => t.name_of(Kind::Predicate, p as usize),
            });
        match declared {
            Some(name) => out.push_text(name),
            None => {
                out.push_ascii(b'P');
                push_decimal(out, u64::from(id));
            }
        }
    }

    /// The declared element type of general variable `index`, when declared.
    pub fn var_type(&self, index: u32) -> Option<&'static TypeDesc> {
        let first = tables::tables().limits.first_user_variable;
        let pos = index.checked_sub(first)? as usize;
        match self.decls {
            Decls::Program(p, _) => tables::type_by_name(&p.variables.get_index(pos)?.1.ty),
            Decls::Table(t) => t.var_type(pos),
        }
    }

    /// Whether the program declares its variables.
    pub fn declared(&self) -> bool {
        self.declared
    }
}

/// What a predefined name stands for: a general variable (`%null`, `%r0`, ...) or a surface
/// (`%slm`, `T1`, ...), looked up by hash (every operand of every line asks).
fn predefined(name: &str) -> Option<Named> {
    static NAMES: std::sync::OnceLock<crate::isa::names::Names<Named>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let limits = &tables::tables().limits;
        let variables = (0..).zip(&limits.predefined_variables);
        let surfaces = (0..).zip(&limits.predefined_surfaces);
        crate::isa::names::Names::new(
            variables
                .map(|(i, n)| (n.clone(), Named::General(i)))
                .chain(surfaces.map(|(i, n)| (n.clone(), Named::Surface(i)))),
        )
    });
    names.get(name.as_bytes()).copied()
}

/// Reads every `.decl` line of `lines` into `program`'s tables and `visa`'s predicate list.
/// Lines are numbered from 1.
pub fn read_decls(
    lines: &[&str],
    program: &mut Program,
    visa: &mut VisaProgram,
) -> Result<(), Error> {
    let mut table = DeclTable::default();
    for (i, line) in lines.iter().enumerate() {
        read_decl(line, i as u32 + 1, &mut table)?;
    }
    table.fill(program, visa);
    Ok(())
}

/// Reads line `line_no` into `table` when it is a `.decl` line (`// .decl` comments, IGC's
/// predefined block, are not declarations). A name is declared once, whatever its kind;
/// declarations of another `v_type` than G, P, S and T are passed over.
pub fn read_decl(line: &str, line_no: u32, table: &mut DeclTable) -> Result<(), Error> {
    let limits = &tables::tables().limits;
    let body = line.trim_start();
    let Some(rest) = body.strip_prefix(".decl") else {
        return Ok(());
    };
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return Ok(());
    }
    table.set_declared();
    let indent = line.len() - body.len() + ".decl".len();
    let mut words = split_words(rest, indent);
    let Some((name_col, name)) = words.next() else {
        return Err(parse_error(
            line,
            line_no,
            line.len(),
            "",
            "a variable name",
        ));
    };
    // Each attribute is the first word, the name included, that starts with its key.
    let (mut v_type_attr, mut type_attr, mut num_elts_attr) = (None, None, None);
    for (col, word) in std::iter::once((name_col, name)).chain(words) {
        if v_type_attr.is_some() && type_attr.is_some() && num_elts_attr.is_some() {
            break;
        }
        let (key, attr) = match word.as_bytes().first() {
            Some(b'v') => ("v_type=", &mut v_type_attr),
            Some(b't') => ("type=", &mut type_attr),
            Some(b'n') => ("num_elts=", &mut num_elts_attr),
            _ => continue,
        };
        if attr.is_none() {
            *attr = word.strip_prefix(key).map(|v| (col, v));
        }
    }
    let Some((vt_col, v_type)) = v_type_attr else {
        return Err(parse_error(
            line,
            line_no,
            line.len(),
            "",
            "`v_type=` in .decl",
        ));
    };
    let kind = match v_type {
        "G" => Kind::General,
        "P" => Kind::Predicate,
        "S" => Kind::Sampler,
        "T" => Kind::Surface,
        _ => return Ok(()),
    };
    let Some(vacant) = table.vacant(name) else {
        return Err(Error::Validation(ValidationError {
            location: Location::Text {
                line: line_no,
                column: column(line, name_col),
            },
            rule: "duplicate-declaration",
            detail: format!("`{name}` is declared twice"),
        }));
    };
    let too_many = |what: &str| {
        parse_error(
            line,
            line_no,
            name_col,
            name,
            &format!("at most 256 {what} (indices are one byte)"),
        )
    };
    let count = table.count(kind) as u32;
    match kind {
        Kind::General => {
            let ty = type_attr.map_or("", |(_, t)| t);
            let desc = tables::type_by_name(ty);
            if !ty.is_empty() && desc.is_none() {
                let (col, _) = type_attr.unwrap_or((vt_col, ""));
                return Err(parse_error(line, line_no, col, ty, "a vISA type name"));
            }
            let num_elts = num_elts_attr.map_or(Ok(0), |(col, n)| {
                n.parse::<u32>()
                    .map_err(|_| parse_error(line, line_no, col, n, "a number of elements"))
            })?;
            table.insert(vacant, name, kind, desc, num_elts);
        }
        Kind::Predicate => {
            // Research §3.1: the predicate field holds the id in bits 11:0; a larger id
            // would spill into the control bits.
            if count + limits.first_user_predicate > MAX_PREDICATE_ID {
                return Err(parse_error(
                    line,
                    line_no,
                    name_col,
                    name,
                    &format!("at most {MAX_PREDICATE_ID} predicates (ids are 12 bits)"),
                ));
            }
            table.insert(vacant, name, kind, None, 0);
        }
        Kind::Sampler if count > u32::from(u8::MAX) => return Err(too_many("samplers")),
        Kind::Surface if count + limits.first_user_surface > u32::from(u8::MAX) => {
            return Err(too_many("surfaces"))
        }
        Kind::Sampler | Kind::Surface => table.insert(vacant, name, kind, None, 0),
    }
    Ok(())
}

/// Whitespace-separated words of `s` with their byte offsets in the line (`base` = offset
/// of `s` in the line). Whitespace is `char::is_whitespace`, ASCII tested byte by byte.
fn split_words(s: &str, base: usize) -> impl Iterator<Item = (usize, &str)> {
    let mut from = 0;
    std::iter::from_fn(move || {
        let start = from + whitespace_len(s.get(from..)?, true);
        let word = s.get(start..)?;
        if word.is_empty() {
            return None;
        }
        from = start + whitespace_len(word, false);
        Some((base + start, &s[start..from]))
    })
}

/// The length of the run of whitespace (`space`) or of non-whitespace that `s` starts with.
fn whitespace_len(s: &str, space: bool) -> usize {
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        if !space {
            i += graphic_len(&bytes[i..]);
        }
        let Some(&b) = bytes.get(i) else {
            return i;
        };
        let (is_space, len) = if b.is_ascii() {
            (super::text::is_ascii_space(b), 1)
        } else {
            let c = s[i..].chars().next().unwrap_or(' ');
            (c.is_whitespace(), c.len_utf8())
        };
        if is_space != space {
            return i;
        }
        i += len;
    }
}

/// How many bytes `bytes` starts with that are ASCII graphic (`!` to `~`, never whitespace),
/// read 8 at a time.
fn graphic_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        // The high bit of each byte below `!` (`x - 0x21` borrows: Bit Twiddling Hacks'
        // `hasless`), of DEL (`x + 1` carries into it) and of each byte from 0x80. A borrow
        // or carry only runs on from such a byte to the bytes after it, so the lowest bit set
        // is the first byte that is not graphic.
        let stop = (x.wrapping_sub(ONES * 0x21) & !x | x.wrapping_add(ONES) | x) & HIGH;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + bytes[i..]
        .iter()
        .take_while(|b| (b'!'..=b'~').contains(*b))
        .count()
}

/// The 1-based character column of byte offset `at` in `line`.
pub fn column(line: &str, at: usize) -> u32 {
    line.get(..at).map_or(1, |p| p.chars().count() as u32 + 1)
}

/// A parse error at byte offset `at` of `line`.
pub fn parse_error(line: &str, line_no: u32, at: usize, token: &str, expected: &str) -> Error {
    Error::Parse(ParseError {
        line: line_no,
        column: column(line, at),
        token: token.to_string(),
        expected: expected.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use crate::rng::Rng;

    /// The words `str::split_whitespace` gives, with their offsets, on random lines of
    /// graphic ASCII, ASCII whitespace and control bytes, DEL, and non-ASCII spaces and
    /// letters, in words shorter and longer than 8 bytes.
    #[test]
    fn words_split_at_char_whitespace() {
        let pieces = [
            "a",
            "v_type=G",
            "num_elts=16",
            " ",
            "\t",
            "\r",
            "\x0b",
            "\x01",
            "\x7f",
            "\u{a0}",
            "\u{2003}",
            "\u{3000}",
            "\u{85}",
            "é",
            "V0032",
            "alias=<%r0,",
            "0>",
            "~!",
        ];
        let mut rng = Rng(0x5917_7e55);
        for _ in 0..20_000 {
            let line: String = (0..rng.below(12))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect();
            let want: Vec<(usize, &str)> = line
                .split_whitespace()
                .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize + 3, w))
                .collect();
            let got: Vec<(usize, &str)> = super::split_words(&line, 3).collect();
            assert_eq!(got, want, "{line:?}");
        }
    }
}
