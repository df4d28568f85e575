//! fxc listing lines parsed into tokens: the inverse of [`super::disasm`]. The Wine /
//! vkd3d-shader 1.6 spellings (research/dxbc.md §8) are accepted too: `ld2dms`,
//! `sample_info`, groups in either order, an omitted all-float return type, `.x` for a
//! replicated swizzle, `comparisonMode`, `0.00000000e+00`.
//!
//! Where text does not say how an operand is encoded, the choice is fxc's as observed in the
//! corpus blobs: an unsuffixed register has the component count of `register_types`, an
//! immediate has one or four components, SM5.1 declaration ranges and constant buffers in
//! declarations are four-component `xyzw` swizzles, a relative index `[r0.x + 0]` is
//! relative-only and `[r0.x + 2]` immediate-plus-relative.

use crate::error::ParseError;

use super::tables::{find_code, tables, OpInfo, RegisterTypeRow, Tables};
use super::tokens::{
    Index, Instruction, Operand, Spare, EXT_OPERAND_MODIFIER, EXT_RESOURCE_DIM, EXT_RETURN_TYPE,
    INDEX_IMM32_RELATIVE, INDEX_RELATIVE, MAX_INDICES, NONUNIFORM_BIT, OPERAND_IMM32,
    OPERAND_IMM64, OP_CUSTOMDATA, SEL_MASK, SEL_SELECT1,
};

/// Where a line sits in its input, for error locations.
#[derive(Clone, Copy, Debug)]
pub struct LinePos {
    pub line: u32,
    /// Column of the line's first byte handed to the parser (1-based).
    pub column: u32,
}

/// A cursor over one line (or one multi-line immediate constant buffer).
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    at: LinePos,
}

/// How an operand's components are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Dst,
    Src,
    Decl,
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str, at: LinePos) -> Self {
        Cursor { s, pos: 0, at }
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// An error at byte `pos` of the line, naming the token found there.
    fn err_at(&self, pos: usize, expected: impl Into<String>) -> ParseError {
        let rest = self.s.get(pos..).unwrap_or("");
        let token: String = match rest.bytes().next() {
            Some(c) if is_ident(c) => rest
                .chars()
                .take_while(|c| is_ident(*c as u8) && c.is_ascii())
                .collect(),
            Some(_) => rest.chars().take(1).collect(),
            None => String::new(),
        };
        let column = self
            .s
            .get(..pos)
            .map_or(0, |p| p.rsplit('\n').next().unwrap_or("").len());
        let line_offset = self.s.get(..pos).map_or(0, |p| p.matches('\n').count()) as u32;
        ParseError {
            line: self.at.line + line_offset,
            column: if line_offset == 0 {
                self.at.column + column as u32
            } else {
                column as u32 + 1
            },
            token,
            expected: expected.into(),
        }
    }

    fn err(&self, expected: impl Into<String>) -> ParseError {
        self.err_at(self.pos, expected)
    }

    fn expect(&mut self, c: u8) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(format!("`{}`", c as char)))
        }
    }

    /// An identifier at the cursor (no leading whitespace skipped).
    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    /// A parenthesised group's contents (the `(` is next); inner parentheses (Wine's
    /// `l(-nan(ind))`) belong to the group.
    fn group(&mut self) -> Result<(usize, &'a str), ParseError> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut depth = 0u32;
        while let Some(c) = self.peek() {
            match c {
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
        if self.peek() != Some(b')') {
            return Err(self.err_at(open, "a closing `)`"));
        }
        let body = &self.s[start..self.pos];
        self.pos += 1;
        Ok((start, body))
    }

    /// Inlined, as [`letters`].
    #[inline(always)]
    fn unsigned(&mut self) -> Result<u32, ParseError> {
        self.ws();
        let start = self.pos;
        // Digits accumulated as they are read: none, or more than a `u32` holds, is no number.
        let mut value = Some(0u32);
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            value = value.and_then(|v| v.checked_mul(10)?.checked_add(u32::from(c - b'0')));
            self.pos += 1;
        }
        value
            .filter(|_| self.pos > start)
            .ok_or_else(|| self.err_at(start, "an unsigned integer"))
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }
}

/// A number as fxc or Wine prints it: `0x3f800000`, `-2`, `1.000000`, `1.40129846e-45`.
///
/// D3DDisassemble prints some negative floats with two minus signs (`--0.229850411`, a
/// 3DMigoto listing in the corpus); they read as one.
pub(super) fn number_bits(text: &str, double: bool) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_prefix('-')
        .filter(|r| r.starts_with('-'))
        .unwrap_or(t);
    if let Some(hex) = t.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    // Wine prints floats with the MSVC runtime's `%.8e`: the default quiet NaN (sign set,
    // payload 0) is `-nan(ind)`.
    if t == "-nan(ind)" {
        return Some(if double {
            0xfff8_0000_0000_0000
        } else {
            0xffc0_0000
        });
    }
    let is_float = t.contains(['.', 'e', 'E']) || t.contains("inf") || t.contains("nan");
    if double {
        return t.parse::<f64>().ok().map(f64::to_bits);
    }
    if is_float {
        return t.parse::<f32>().ok().map(|f| u64::from(f.to_bits()));
    }
    t.parse::<i64>()
        .ok()
        .filter(|v| (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(v))
        .map(|v| u64::from(v as u32))
}

/// One to four components (0 = x .. 3 = w), as letters spell them.
struct Letters {
    comps: [u8; 4],
    len: usize,
}

impl Letters {
    fn as_slice(&self) -> &[u8] {
        &self.comps[..self.len]
    }
}

/// The swizzle or mask letters after `.`: one to four of `xyzw` (or `rgba`). Inlined: a
/// result returned through memory is read back before its stores have left the core.
#[inline(always)]
fn letters(c: &mut Cursor) -> Result<Letters, ParseError> {
    let start = c.pos;
    // Gathered in one word and stored whole: a caller reading the letters right after
    // four one-byte stores waits for them (store forwarding).
    let mut comps = 0u32;
    let mut len = 0;
    while let Some(ch) = c.peek() {
        let comp = match ch {
            b'x' | b'r' => 0,
            b'y' | b'g' => 1,
            b'z' | b'b' => 2,
            b'w' | b'a' => 3,
            _ if is_ident(ch) => return Err(c.err_at(start, "component letters xyzw")),
            _ => break,
        };
        if len == 4 {
            return Err(c.err_at(start, "one to four component letters"));
        }
        comps |= comp << (8 * len);
        len += 1;
        c.pos += 1;
    }
    if len == 0 {
        return Err(c.err_at(start, "one to four component letters"));
    }
    Ok(Letters {
        comps: comps.to_le_bytes(),
        len,
    })
}

/// One operand, into `op` (every field rewritten; its storage reused, the operands of
/// relative indices from `spare`).
fn operand(
    t: &Tables,
    c: &mut Cursor,
    slot: Slot,
    depth: u32,
    op: &mut Operand,
    spare: &mut Spare,
) -> Result<(), ParseError> {
    c.ws();
    let start = c.pos;
    if depth > 4 {
        return Err(c.err("an operand without deeper relative addressing"));
    }
    let neg = c.eat(b'-');
    let abs = c.eat(b'|');
    let modifier = u32::from(neg) | u32::from(abs) << 1;
    immediate_or_register(t, c, slot, depth, op, spare)?;
    if abs {
        c.expect(b'|')?;
    }
    let nonuniform = nonuniform_mark(c);
    if modifier != 0 || nonuniform {
        if op.ty == OPERAND_IMM32 || op.ty == OPERAND_IMM64 {
            return Err(c.err_at(start, "a register (immediates take no modifier)"));
        }
        op.extended
            .push(EXT_OPERAND_MODIFIER | modifier << 6 | u32::from(nonuniform) << NONUNIFORM_BIT);
    }
    Ok(())
}

/// Wine's ` {nonuniform}` after an SM5.1 operand (vkd3d-shader 1.6 `shader_dump_src_param`):
/// bit 17 of the extended operand token, the token that also holds `-` and `|...|`.
fn nonuniform_mark(c: &mut Cursor) -> bool {
    let save = c.pos;
    c.ws();
    if c.peek() == Some(b'{') && c.s[c.pos..].starts_with("{nonuniform}") {
        c.pos += "{nonuniform}".len();
        true
    } else {
        c.pos = save;
        false
    }
}

fn immediate_or_register(
    t: &Tables,
    c: &mut Cursor,
    slot: Slot,
    depth: u32,
    op: &mut Operand,
    spare: &mut Spare,
) -> Result<(), ParseError> {
    c.ws();
    let start = c.pos;
    let name_end = c.s[start..]
        .bytes()
        .position(|b| !b.is_ascii_alphabetic() && b != b'_')
        .map_or(c.s.len(), |n| start + n);
    let name = &c.s[start..name_end];
    if (name == "l" || name == "d") && c.s.as_bytes().get(name_end) == Some(&b'(') {
        c.pos = name_end;
        let (body_at, body) = c.group()?;
        let double = name == "d";
        op.reset(if double { OPERAND_IMM64 } else { OPERAND_IMM32 }, spare);
        for (i, v) in body.split(',').enumerate() {
            let bits = number_bits(v, double).ok_or_else(|| {
                let off = body_at + body.split(',').take(i).map(|p| p.len() + 1).sum::<usize>();
                c.err_at(off, "a number")
            })?;
            if double {
                op.imm.push(bits as u32);
                op.imm.push((bits >> 32) as u32);
            } else {
                op.imm.push(bits as u32);
            }
        }
        let per = if double { 2 } else { 1 };
        let count = op.imm.len() / per;
        if count != 1 && count != if double { 2 } else { 4 } {
            return Err(c.err_at(start, "an immediate of one or four values"));
        }
        op.num_components = if count == 1 { 1 } else { 2 };
        op.selection = 0;
        op.comp = 0;
        return Ok(());
    }
    // The register file: the longest prefix that names one (fxc or SM5.1 spelling).
    let row = t
        .register_named(name)
        .ok_or_else(|| c.err_at(start, "a register (r#, v#, o#, t#, s#, cb#[], l(...) ...)"))?;
    c.pos = name_end;
    op.reset(row.0, spare);
    if c.peek().is_some_and(|b| b.is_ascii_digit()) {
        op.indices.push(Index::imm(c.unsigned()?));
    }
    while c.peek() == Some(b'[') {
        c.pos += 1;
        c.ws();
        if c.peek().is_some_and(|b| b.is_ascii_digit()) {
            op.indices.push(Index::imm(c.unsigned()?));
            if c.eat(b':') {
                c.ws();
                let upper = if c.eat(b'*') { u32::MAX } else { c.unsigned()? };
                op.indices.push(Index::imm(upper));
            }
        } else {
            let mut rel = spare.boxed();
            operand(t, c, Slot::Src, depth + 1, &mut rel, spare)?;
            let imm = if c.eat(b'+') { c.unsigned()? } else { 0 };
            let repr = if imm == 0 {
                INDEX_RELATIVE
            } else {
                INDEX_IMM32_RELATIVE
            };
            op.indices.push(Index {
                repr,
                imm: u64::from(imm),
                rel: Some(rel),
            });
        }
        c.expect(b']')?;
    }
    // The operand token has three index slots; an SM5.1 constant-buffer declaration
    // `CB0[lower:upper][size]` has a fourth, which the declaration moves into a word.
    let most = MAX_INDICES + usize::from(slot == Slot::Decl && row.0 == 8);
    if op.indices.len() > most {
        return Err(c.err_at(start, "at most three indices"));
    }
    // SM5.1 ranges: fxc writes `T0[0:*]`, Wine `t0[0:*]` (three indices in a declaration).
    // (What only a declaration asks.)
    let uses_range = slot == Slot::Decl
        && ((!row.4.is_empty() && name == row.4) || op.indices.len() == MAX_INDICES);
    if c.peek() == Some(b'.') {
        c.pos += 1;
        let letters = letters(c)?;
        let comps = letters.as_slice();
        // Wine declares and writes a scalar register with `.x` (`dcl_output oDepth.x`,
        // `mov oDepth.x, r0.x`); fxc writes it bare, as the token has one component or
        // none. As a source both print `.x` (a select-1 of four components).
        if slot != Slot::Src && row.2 == 1 && comps == [0] {
            unsuffixed(row, slot, uses_range, op);
            return Ok(());
        }
        // An SM5.1 range declaration holds the swizzle `xyzw` (0xe4); vkd3d-shader 1.6
        // reads its low four bits as a write mask and prints `t0[0:*].z`.
        if slot == Slot::Decl && uses_range && comps == [2] {
            unsuffixed(row, slot, uses_range, op);
            return Ok(());
        }
        match (slot, comps.len()) {
            (Slot::Dst | Slot::Decl, _) => {
                op.selection = SEL_MASK;
                op.comp = comps.iter().fold(0, |m, c| m | 1 << c);
            }
            (Slot::Src, 4) => op.set_swizzle([comps[0], comps[1], comps[2], comps[3]]),
            (Slot::Src, 1) => {
                op.selection = SEL_SELECT1;
                op.comp = comps[0];
            }
            (Slot::Src, _) => {
                return Err(c.err_at(start, "a four-letter swizzle or one selected component"))
            }
        }
        return Ok(());
    }
    unsuffixed(row, slot, uses_range, op);
    Ok(())
}

/// An operand written without a component suffix: the component count the register has in
/// this position.
fn unsuffixed(row: &RegisterTypeRow, slot: Slot, uses_range: bool, op: &mut Operand) {
    let sm51_decl = slot == Slot::Decl && (uses_range || row.0 == 8);
    let count = if sm51_decl {
        2
    } else if slot == Slot::Decl {
        row.3
    } else {
        row.2
    };
    op.num_components = count;
    if count == 2 {
        op.set_swizzle([0, 1, 2, 3]);
    } else {
        op.selection = 0;
        op.comp = 0;
    }
}

/// What each byte does to the bracket depth: `(`, `[` and `{` open (1), their closers close
/// (-1), anything else nothing (a table: no branch per byte).
const BRACKETS: [i8; 256] = {
    let mut t = [0i8; 256];
    t[b'(' as usize] = 1;
    t[b'[' as usize] = 1;
    t[b'{' as usize] = 1;
    t[b')' as usize] = -1;
    t[b']' as usize] = -1;
    t[b'}' as usize] = -1;
    t
};

/// The parts of `s` between commas outside parentheses, brackets and braces, each with its
/// offset; one part when there is no such comma.
struct TopParts<'a> {
    s: &'a str,
    /// Where the next part starts; `None` after the last.
    start: Option<usize>,
    depth: i32,
}

impl<'a> TopParts<'a> {
    fn new(s: &'a str) -> Self {
        TopParts {
            s,
            start: Some(0),
            depth: 0,
        }
    }
}

impl<'a> Iterator for TopParts<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let start = self.start?;
        for (i, b) in self.s.bytes().enumerate().skip(start) {
            if b == b',' && self.depth == 0 {
                self.start = Some(i + 1);
                return Some((start, &self.s[start..i]));
            }
            self.depth += i32::from(BRACKETS[usize::from(b)]);
        }
        self.start = None;
        Some((start, &self.s[start..]))
    }
}

/// The first `N` comma-separated parts of `s`, trimmed (empty past the last), and how
/// many parts it has.
fn first_parts<const N: usize>(s: &str) -> ([&str; N], usize) {
    let mut out = [""; N];
    let mut n = 0;
    for part in s.split(',') {
        if let Some(slot) = out.get_mut(n) {
            *slot = part.trim();
        }
        n += 1;
    }
    (out, n)
}

/// Listing lines parsed one after another ([`Parser::line`]) into storage reused from line
/// to line: no allocation per line once it has grown to what the longest line needs.
pub struct Parser {
    /// The mnemonic: its identifier pieces, joined (`sample_aoffimmi(1,0,0)_indexable`
    /// is `sample_aoffimmi_indexable`).
    name: String,
    store: Storage,
}

/// What a line is parsed into, reused.
struct Storage {
    instr: Instruction,
    spare: Spare,
    /// The parenthesised groups of the mnemonic (and of a declaration, those after it):
    /// where each body starts and ends in the line.
    groups: Vec<(usize, usize)>,
    /// A declaration's fields (commas at the top level), trimmed: where each starts and
    /// ends in the line.
    fields: Vec<(usize, usize)>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            name: String::new(),
            store: Storage {
                instr: Instruction::new(0),
                spare: Spare::default(),
                groups: Vec::new(),
                fields: Vec::new(),
            },
        }
    }
}

impl Parser {
    /// Parses one instruction line (without indentation); `at` locates its first byte.
    pub fn line(&mut self, text: &str, at: LinePos) -> Result<&Instruction, ParseError> {
        instruction_into(text, at, &mut self.name, &mut self.store)?;
        Ok(&self.store.instr)
    }
}

/// Parses one instruction line (without indentation); `at` locates its first byte.
pub fn instruction(text: &str, at: LinePos) -> Result<Instruction, ParseError> {
    let mut parser = Parser::default();
    parser.line(text, at)?;
    Ok(parser.store.instr)
}

/// Wine's `[precise]` / `[precise(xy)]` after the base mnemonic (vkd3d-shader 1.6
/// `shader_dump_precise_flags`), when it is next: the component mask it names.
fn precise_mark(c: &mut Cursor) -> Result<Option<u32>, ParseError> {
    let save = c.pos;
    c.ws();
    if c.peek() != Some(b'[') {
        c.pos = save;
        return Ok(None);
    }
    let rest = &c.s[c.pos..];
    if rest.starts_with("[precise]") {
        c.pos += "[precise]".len();
        return Ok(Some(0xf));
    }
    if rest.starts_with("[precise(") {
        c.pos += "[precise(".len();
        let letters = letters(c)?;
        if !c.s[c.pos..].starts_with(")]") {
            return Err(c.err("`)]` closing `[precise(...`"));
        }
        c.pos += 2;
        return Ok(Some(letters.as_slice().iter().fold(0, |m, x| m | 1 << x)));
    }
    c.pos = save;
    Ok(None)
}

/// The mnemonic at the cursor: its name with suffixes into `name`, its parenthesised
/// groups into `groups` (both cleared first); returns Wine's `[precise]` /
/// `[precise(xy)]` component mask (0 without one).
fn mnemonic(
    c: &mut Cursor,
    name: &mut String,
    groups: &mut Vec<(usize, usize)>,
) -> Result<u32, ParseError> {
    name.clear();
    groups.clear();
    let mut precise = 0;
    c.ws();
    loop {
        name.push_str(c.ident());
        if c.peek() == Some(b'(') {
            let (at, body) = c.group()?;
            groups.push((at, at + body.len()));
            continue;
        }
        if c.peek().is_some_and(is_ident) {
            continue;
        }
        if precise == 0 && !name.is_empty() {
            if let Some(mask) = precise_mark(c)? {
                precise = mask;
                continue;
            }
        }
        break;
    }
    if name.is_empty() {
        return Err(c.err("an instruction mnemonic"));
    }
    Ok(precise)
}

/// Where the `precise` component mask sits in the controls (opcode token `[22:19]`).
const PRECISE_SHIFT: u32 = 8;

/// "an SM4/SM5 mnemonic", with the closest known one as a hint.
fn unknown_mnemonic(t: &super::tables::Tables, name: &str) -> String {
    let mut names: Vec<&str> = t.by_name.keys().map(String::as_str).collect();
    names.sort_unstable();
    crate::isa::hint::expected_with_hint("an SM4/SM5 mnemonic", name, names)
}

/// Parses one instruction line (without indentation) into `store.instr`; `at` locates its
/// first byte.
fn instruction_into(
    text: &str,
    at: LinePos,
    mnemonic_name: &mut String,
    store: &mut Storage,
) -> Result<(), ParseError> {
    let t = tables();
    let mut c = Cursor::new(text, at);
    let precise = mnemonic(&mut c, mnemonic_name, &mut store.groups)?;
    let full_name = mnemonic_name.as_str();
    if full_name.starts_with("dcl_") {
        return declaration(t, &mut c, full_name, store);
    }
    let Storage {
        instr,
        spare,
        groups: mnemonic_groups,
        ..
    } = store;
    let (opcode, info, controls) = opcode_controls(t, &c, full_name)?;
    // As `instr.reset(opcode, spare)`, but the operands of the line before stay where they
    // are, to be parsed over (moving them costs more than parsing some lines).
    instr.opcode = opcode;
    instr.extended.clear();
    instr.words.clear();
    instr.controls = controls | precise << PRECISE_SHIFT;
    groups(t, &c, mnemonic_groups, instr)?;
    // The operands, each up to a `,` or the end of the line, read in one pass. An operand
    // read whole is balanced (its brackets close, its commas are inside `l(...)`), so the
    // comma after it is one at the top level.
    let dst_count = info.dst_types.len();
    let mut count = 0;
    if !c.at_end() {
        loop {
            let slot = if count < dst_count {
                Slot::Dst
            } else {
                Slot::Src
            };
            if count == instr.operands.len() {
                instr.operands.push(spare.operand());
            }
            operand(t, &mut c, slot, 0, &mut instr.operands[count], spare)?;
            count += 1;
            if c.at_end() {
                break;
            }
            if c.peek() != Some(b',') {
                return Err(c.err("`,` or the end of the line"));
            }
            c.pos += 1;
        }
    }
    spare.give_back(&mut instr.operands, count);
    Ok(())
}

/// The opcode and table row of the instruction mnemonic `name` (not a declaration's) when
/// the parser reads it without error ([`opcode_controls`]).
pub(super) fn instruction_opcode(name: &str) -> Option<(u16, &'static OpInfo)> {
    let at = LinePos { line: 1, column: 1 };
    opcode_controls(tables(), &Cursor::new(name, at), name)
        .ok()
        .map(|(opcode, info, _)| (opcode, info))
}

/// The opcode an instruction mnemonic `full_name` names (its `_sat`, `_nz`, `_uint` ...
/// suffixes and `sync` flags stripped), its table row, and the controls the suffixes set;
/// errors at the line's first byte (`c`).
fn opcode_controls<'t>(
    t: &'t Tables,
    c: &Cursor,
    full_name: &str,
) -> Result<(u16, &'t OpInfo, u32), ParseError> {
    let mut name = full_name;
    let (mut controls, mut sat, mut test, mut ret_kind) = (0u32, false, None, 0u32);
    let mut sync = 0u32;
    let opcode = loop {
        if let Some(code) = t.opcode_named(name) {
            break code;
        }
        if let Some(n) = name.strip_suffix("_sat") {
            sat = true;
            name = n;
        } else if let Some(n) = name.strip_suffix("_uint") {
            ret_kind = 2;
            name = n;
        } else if let Some(n) = name.strip_suffix("_rcpfloat") {
            ret_kind = 1;
            name = n;
        } else if let Some(n) = name.strip_suffix("_indexable") {
            name = n;
        } else if let Some(n) = name.strip_suffix("_aoffimmi") {
            name = n;
        } else if let Some(n) = name.strip_suffix("_nz") {
            test = Some(true);
            name = n;
        } else if let Some(n) = name.strip_suffix("_z") {
            test = Some(false);
            name = n;
        } else if let Some(flags) = name.strip_prefix("sync") {
            for f in flags.split('_').filter(|f| !f.is_empty()) {
                sync |= match f {
                    "t" => 1,
                    "g" => 2,
                    "ugroup" => 4,
                    "uglobal" => 8,
                    _ => return Err(c.err_at(0, "a sync flag (_uglobal, _ugroup, _g, _t)")),
                };
            }
            name = "sync";
        } else {
            return Err(c.err_at(0, unknown_mnemonic(t, full_name)));
        }
    };
    let info = t
        .op(opcode)
        .ok_or_else(|| c.err_at(0, unknown_mnemonic(t, full_name)))?;
    if sat {
        controls |= 4;
    }
    match (test, t.codes.conditional.contains(&opcode)) {
        (Some(true), true) => controls |= 0x80,
        (Some(false), true) => {}
        (None, false) => {}
        _ => return Err(c.err_at(0, "`_nz`/`_z` exactly on conditional operations")),
    }
    let k = &t.codes;
    if opcode == k.resinfo {
        controls |= ret_kind;
    } else if opcode == k.sampleinfo && ret_kind == 2 {
        controls |= 1;
    } else if opcode == k.sync {
        controls |= sync;
    } else if ret_kind != 0 {
        return Err(c.err_at(0, "`_uint` only on resinfo and sampleinfo"));
    }
    Ok((opcode, info, controls))
}

/// The `(u,v,w)`, `(dim[, stride=N])` and `(types)` groups after a mnemonic, in any order.
fn groups(
    t: &Tables,
    c: &Cursor,
    groups: &[(usize, usize)],
    instr: &mut Instruction,
) -> Result<(), ParseError> {
    let mut dim = None;
    let mut types = None;
    for &(at, end) in groups {
        let (parts, count) = first_parts::<4>(&c.s[at..end]);
        if count == 3 && parts[..3].iter().all(|p| p.parse::<i8>().is_ok()) {
            let o = [0, 1, 2].map(|i| parts[i].parse::<i8>().unwrap_or(0));
            if o.iter().any(|v| !(-8..=7).contains(v)) {
                return Err(c.err_at(at, "offsets in [-8, 7]"));
            }
            instr.set_aoffimmi(Some(o));
        } else if let Some(d) = t.dim_named(parts[0]) {
            let stride = match parts.get(1).and_then(|p| p.strip_prefix("stride=")) {
                Some(s) => s
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| c.err_at(at, "stride=N"))?,
                None => 0,
            };
            if stride > 0xfff {
                return Err(c.err_at(at, "a stride below 4096"));
            }
            dim = Some(u32::from(d.code) | stride << 5);
        } else if count == 4 {
            let mut word = 0u32;
            for (i, p) in parts.iter().enumerate() {
                let code = t.return_type_named(p).ok_or_else(|| {
                    c.err_at(
                        at,
                        "a return type (float, uint, sint, unorm, snorm, mixed ...)",
                    )
                })?;
                word |= u32::from(code) << (4 * i);
            }
            types = Some(word);
        } else {
            return Err(c.err_at(
                at,
                "(u,v,w) offsets, a resource dimension or four return types",
            ));
        }
    }
    if let Some(d) = dim {
        instr.set_ext(EXT_RESOURCE_DIM, Some(EXT_RESOURCE_DIM | d << 6));
        // Wine omits an all-float return type; fxc always prints it.
        let types = types.unwrap_or(0x5555);
        instr.set_ext(EXT_RETURN_TYPE, Some(EXT_RETURN_TYPE | types << 6));
    } else if let Some(ty) = types {
        instr.set_ext(EXT_RETURN_TYPE, Some(EXT_RETURN_TYPE | ty << 6));
    }
    Ok(())
}

/// A field of a declaration: `name`, `N`, `space=N`.
fn field_number(c: &Cursor, at: usize, text: &str) -> Result<u32, ParseError> {
    let t = text.trim();
    let t = t.strip_prefix("space=").unwrap_or(t).trim();
    t.parse().map_err(|_| c.err_at(at, "a number"))
}

/// The declaration operand at byte `start` of `text`, appended to `ops` (parsed in place);
/// where it ends.
fn decl_operand(
    t: &Tables,
    text: &str,
    at: LinePos,
    start: usize,
    ops: &mut Vec<Operand>,
    spare: &mut Spare,
) -> Result<usize, ParseError> {
    let mut c = Cursor::new(text, at);
    c.pos = start;
    operand(t, &mut c, Slot::Decl, 0, push_operand(ops, spare), spare)?;
    Ok(c.pos)
}

/// Appends an operand from `spare` to `ops` for new contents, and returns it.
fn push_operand<'o>(ops: &'o mut Vec<Operand>, spare: &mut Spare) -> &'o mut Operand {
    let n = ops.len();
    ops.push(spare.operand());
    &mut ops[n]
}

/// A declaration line (`name` is its mnemonic, its groups in `store.groups`), into
/// `store.instr`.
fn declaration(
    t: &Tables,
    c: &mut Cursor,
    name: &str,
    store: &mut Storage,
) -> Result<(), ParseError> {
    let Storage {
        instr,
        spare,
        groups,
        fields,
    } = store;
    let f = &t.file;
    let text = c.s;
    let at = c.at;
    // Groups after the name and whitespace: `dcl_resource_texture2d (float,...) t0`.
    c.ws();
    while c.peek() == Some(b'(') {
        let (o, body) = c.group()?;
        groups.push((o, o + body.len()));
        c.ws();
    }
    let rest_at = c.pos;
    fields.clear();
    if !c.at_end() {
        fields.extend(TopParts::new(&text[rest_at..]).map(|(o, s)| {
            let start = rest_at + o + (s.len() - s.trim_start().len());
            (start, start + s.trim().len())
        }));
    }
    let fields = &*fields;
    // The groups not yet read; `_unknown_flags(..)` reads the first.
    let mut groups: &[(usize, usize)] = groups;
    let group = |groups: &[(usize, usize)], i: usize| groups.get(i).map(|&(o, e)| (o, &text[o..e]));
    let field_at = |i: usize| fields.get(i).map(|&(o, e)| (o, &text[o..e]));
    let field = |i: usize| {
        field_at(i).ok_or_else(|| c.err_at(text.len(), format!("field {} of `{name}`", i + 1)))
    };
    let num = |i: usize| -> Result<u32, ParseError> {
        let (o, s) = field(i)?;
        field_number(c, o, s)
    };
    // Field `i` as an operand of at most `most` indices (four only for the constant-buffer
    // size of `dcl_constantbuffer CB0[lower:upper][size]`).
    // Field `i` as an operand appended to `ops`.
    let opnd_upto = |i: usize,
                     most: usize,
                     ops: &mut Vec<Operand>,
                     spare: &mut Spare|
     -> Result<(), ParseError> {
        let (o, s) = field(i)?;
        let end = decl_operand(t, text, at, o, ops, spare)?;
        if end - o != s.len() {
            return Err(c.err_at(end, "`,` or the end of the declaration"));
        }
        if ops.last().is_some_and(|op| op.indices.len() > most) {
            return Err(c.err_at(o, "at most three indices"));
        }
        Ok(())
    };
    let opnd =
        |i: usize, ops: &mut Vec<Operand>, spare: &mut Spare| opnd_upto(i, MAX_INDICES, ops, spare);
    let named = |i: usize, rows: &[(u8, String)], what: &str| -> Result<u32, ParseError> {
        let (o, s) = field(i)?;
        find_code(rows, s)
            .map(u32::from)
            .ok_or_else(|| c.err_at(o, what.to_string()))
    };
    let sysval = |i: usize| -> Result<u32, ParseError> {
        let (o, s) = field(i)?;
        find_code(&f.system_values, t.fxc_word(s)).ok_or_else(|| c.err_at(o, "a system value name"))
    };
    let optional_space = |i: usize, words: &mut Vec<u32>| -> Result<(), ParseError> {
        if let Some((o, s)) = field_at(i) {
            if !s.starts_with("space=") {
                return Err(c.err_at(o, "space=N"));
            }
            words.push(field_number(c, o, s)?);
        }
        Ok(())
    };
    let types_word = |group: Option<(usize, &str)>| -> Result<u32, ParseError> {
        let Some((o, body)) = group else {
            return Ok(0x5555);
        };
        let mut word = 0;
        let (parts, count) = first_parts::<4>(body);
        if count != 4 {
            return Err(c.err_at(o, "four return types"));
        }
        for (i, p) in parts.iter().enumerate() {
            word |= u32::from(
                t.return_type_named(p)
                    .ok_or_else(|| c.err_at(o, "a return type"))?,
            ) << (4 * i);
        }
        Ok(word)
    };
    if name == "dcl_immediateConstantBuffer" {
        instr.reset(OP_CUSTOMDATA, spare);
        instr.controls = 3;
        let body = text[rest_at..].trim();
        let inner = body
            .strip_prefix('{')
            .and_then(|b| b.strip_suffix('}'))
            .ok_or_else(|| c.err_at(rest_at, "`{ { a, b, c, d}, ... }`"))?;
        for row in inner.split('}') {
            let row = row.trim().trim_start_matches(',').trim();
            if row.is_empty() {
                continue;
            }
            let row = row
                .strip_prefix('{')
                .ok_or_else(|| c.err_at(rest_at, "`{` opening a row"))?;
            if row.split(',').count() != 4 {
                return Err(c.err_at(rest_at, "rows of four values"));
            }
            for v in row.split(',') {
                let bits = number_bits(v, false).ok_or_else(|| c.err_at(rest_at, "a number"))?;
                instr.words.push(bits as u32);
            }
        }
        return Ok(());
    }
    if let Some(dim) = name
        .strip_prefix("dcl_resource_")
        .filter(|d| t.dim_named(d).is_some())
    {
        let d = t.dim_named(dim).map_or(0, |d| d.code);
        instr.reset(88, spare);
        let (count, types_from) = match group(groups, 0) {
            Some((o, g)) if !g.contains(',') => (
                g.trim()
                    .parse::<u32>()
                    .map_err(|_| c.err_at(o, "a sample count"))?,
                1,
            ),
            _ => (0, 0),
        };
        let count = in_field(
            c,
            groups.first().map_or(rest_at, |g| g.0),
            count,
            SAMPLE_COUNT_BITS,
            "a sample count",
        )?;
        instr.controls = u32::from(d) | count << 5;
        opnd(0, &mut instr.operands, spare)?;
        instr.words.push(types_word(group(groups, types_from))?);
        optional_space(1, &mut instr.words)?;
        return Ok(());
    }
    // Wine: `dcl_uav_typedtexture2d(float,...)`, unnamed UAV flags as `_unknown_flags(0x4)`.
    let (name, extra_flags) = match name.strip_suffix("_unknown_flags") {
        Some(n) if !groups.is_empty() => {
            let (o, bits) = group(groups, 0).unwrap_or_default();
            groups = &groups[1..];
            (n, unknown_flags(c, o, Some(bits))? << UAV_FLAGS_SHIFT)
        }
        _ => (name, 0),
    };
    if let Some(rest) = name.strip_prefix("dcl_uav_typed") {
        let (dim, flags) = uav_flags(rest.strip_prefix('_').unwrap_or(rest));
        let flags = flags | extra_flags;
        let d = t
            .dim_named(dim)
            .ok_or_else(|| c.err_at(0, "a UAV dimension"))?;
        instr.reset(156, spare);
        instr.controls = u32::from(d.code) | flags;
        opnd(0, &mut instr.operands, spare)?;
        instr.words.push(types_word(group(groups, 0))?);
        optional_space(1, &mut instr.words)?;
        return Ok(());
    }
    let (base, uav) = uav_flags(name);
    let uav = uav | extra_flags;
    let opcode = t
        .opcode_named(base)
        .ok_or_else(|| c.err_at(0, "a declaration"))?;
    instr.reset(opcode, spare);
    instr.controls = uav;
    let w = &mut instr.words;
    let ops = &mut instr.operands;
    match opcode {
        89 => {
            opnd_upto(0, MAX_INDICES + 1, ops, spare)?;
            if let Some(op) = ops.last_mut().filter(|op| op.indices.len() > MAX_INDICES) {
                let (o, _) = field(0)?;
                let size = &op.indices[MAX_INDICES];
                if size.rel.is_some() {
                    return Err(c.err_at(o, "an immediate constant-buffer size"));
                }
                w.push(size.imm as u32);
                op.indices.truncate(MAX_INDICES);
            }
            let (o, access) = field(1)?;
            instr.controls = match access {
                "immediateIndexed" => 0,
                "dynamicIndexed" => 1,
                _ => return Err(c.err_at(o, "immediateIndexed or dynamicIndexed")),
            };
            optional_space(2, w)?;
        }
        90 => {
            opnd(0, ops, spare)?;
            // Wine omits `mode_default` (code 0) and spells `mode_comparison` `comparisonMode`.
            let mode = field_at(1).filter(|(_, s)| !s.starts_with("space="));
            if let Some((o, mode)) = mode {
                instr.controls = find_code(&f.sampler_modes, t.fxc_word(mode))
                    .map(u32::from)
                    .ok_or_else(|| c.err_at(o, "mode_default, mode_comparison or mode_mono"))?;
            }
            optional_space(1 + usize::from(mode.is_some()), w)?;
        }
        91 => {
            let (o, s) = field(0)?;
            let (space_at, _) = s
                .char_indices()
                .rev()
                .find(|(_, ch)| *ch == ' ')
                .ok_or_else(|| c.err_at(o, "`register count`"))?;
            decl_operand(t, &text[..o + space_at], at, o, ops, spare)?;
            w.push(field_number(c, o + space_at, &s[space_at..])?);
        }
        92 => instr.controls = named(0, &f.output_topologies, "an output topology")?,
        93 => {
            let (o, s) = field(0)?;
            let fxc = f
                .wine_input_primitives
                .iter()
                .find(|(wine, _)| wine == s)
                .map_or(s, |(_, fxc)| fxc.as_str());
            instr.controls = match (find_code(&f.input_primitives, fxc), s.strip_prefix("patch")) {
                (Some(code), _) => u32::from(code),
                // D3D11_SB_PRIMITIVE_1_CONTROL_POINT_PATCH = 8 .. _32_ = 39.
                (None, Some(n)) => n
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=32).contains(n))
                    .map(|n| n + 7)
                    .ok_or_else(|| c.err_at(o, "patch1 to patch32"))?,
                _ => return Err(c.err_at(o, "an input primitive")),
            };
        }
        94 | 104 | 153 | 154 | 206 => w.push(num(0)?),
        95 | 101 | 143 => opnd(0, ops, spare)?,
        96 | 97 | 102 | 103 => {
            opnd(0, ops, spare)?;
            w.push(sysval(1)?);
        }
        98..=100 => {
            let (o, s) = field(0)?;
            let mut mode = 0;
            let mut op_at = o;
            for (code, words) in &f.interpolation_modes {
                if let Some(r) = s
                    .strip_prefix(words.as_str())
                    .filter(|r| r.starts_with(' '))
                {
                    if o + s.len() - r.len() > op_at {
                        mode = u32::from(*code);
                        op_at = o + s.len() - r.len();
                    }
                }
            }
            instr.controls = mode;
            decl_operand(t, text, at, op_at, ops, spare)?;
            if opcode != 98 {
                w.push(sysval(1)?);
            }
        }
        105 => {
            let (o, s) = field(0)?;
            let inner = s
                .strip_prefix('x')
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|r| r.split_once('['))
                .ok_or_else(|| c.err_at(o, "x#[size]"))?;
            w.push(field_number(c, o, inner.0)?);
            w.push(field_number(c, o, inner.1)?);
            w.push(num(1)?);
        }
        106 => {
            let (o, s) = field_at(0).unwrap_or((rest_at, ""));
            for flag in s.split('|').map(str::trim).filter(|f| !f.is_empty()) {
                // vkd3d-shader 1.6 prints the bits it has no name for as
                // `unknown_flags(0x80)`, counted from controls bit 0 (token bit 11).
                if let Some(bits) = flag.strip_prefix("unknown_flags(") {
                    instr.controls |= unknown_flags(c, o, bits.strip_suffix(')'))?;
                    continue;
                }
                let bit = f
                    .global_flags
                    .iter()
                    .position(|g| g == flag)
                    .ok_or_else(|| c.err_at(o, "a global flag"))?;
                instr.controls |= 1 << bit;
            }
        }
        113..=116 => {}
        144 => {
            let (o, s) = field(0)?;
            w.push(field_number(c, o, s.trim_start_matches("fb"))?);
        }
        147 | 148 => {
            let (o, _) = field(0)?;
            instr.controls = in_field(c, o, num(0)?, CONTROL_POINT_BITS, "a control point count")?;
        }
        149 => instr.controls = named(0, &f.tessellator_domains, "a tessellator domain")?,
        150 => instr.controls = named(0, &f.tessellator_partitionings, "a partitioning")?,
        151 => instr.controls = named(0, &f.tessellator_outputs, "a tessellator output")?,
        152 => {
            let (o, s) = field(0)?;
            let v = s
                .strip_prefix("l(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|r| number_bits(r, false))
                .ok_or_else(|| c.err_at(o, "l(max tessellation factor)"))?;
            w.push(v as u32);
        }
        155 => {
            for i in 0..3 {
                w.push(num(i)?);
            }
        }
        157 | 161 => {
            opnd(0, ops, spare)?;
            optional_space(1, w)?;
        }
        158 | 162 => {
            opnd(0, ops, spare)?;
            w.push(num(1)?);
            optional_space(2, w)?;
        }
        159 => {
            opnd(0, ops, spare)?;
            w.push(num(1)?);
        }
        160 => {
            opnd(0, ops, spare)?;
            w.push(num(1)?);
            w.push(num(2)?);
        }
        _ => return Err(c.err_at(0, "a declaration texlate assembles")),
    }
    Ok(())
}

/// Width of the sample count of `dcl_resource_texture2dms(N)` (controls `[22:16]`).
const SAMPLE_COUNT_BITS: u32 = 7;
/// Width of the control point count of `dcl_*_control_point_count` (controls `[16:11]`).
const CONTROL_POINT_BITS: u32 = 6;

/// `value` when it fits a field of `bits` bits; a wider value would be cut silently.
fn in_field(c: &Cursor, at: usize, value: u32, bits: u32, what: &str) -> Result<u32, ParseError> {
    if value >> bits == 0 {
        Ok(value)
    } else {
        Err(c.err_at(at, format!("{what} of at most {}", (1u32 << bits) - 1)))
    }
}

/// Where vkd3d-shader 1.6 counts UAV declaration flags from: opcode token bit 15, which is
/// controls bit 4 (its `VKD3D_SM5_UAV_FLAGS_SHIFT`; `_glc` = its flag 0x2 = token bit 16).
const UAV_FLAGS_SHIFT: u32 = 4;

/// The value of Wine's `unknown_flags(0x..)` (hexadecimal, as vkd3d prints it).
fn unknown_flags(c: &Cursor, at: usize, bits: Option<&str>) -> Result<u32, ParseError> {
    bits.and_then(|b| b.trim().strip_prefix("0x"))
        .and_then(|b| u32::from_str_radix(b, 16).ok())
        .filter(|b| b >> 13 == 0)
        .ok_or_else(|| c.err_at(at, "unknown_flags(0x..) of at most 13 bits"))
}

/// Splits the UAV flag suffixes (`uav_flags`: `_glc`, `_rov`, `_opc`) off a declaration name.
fn uav_flags(name: &str) -> (&str, u32) {
    let mut name = name;
    let mut flags = 0;
    'strip: loop {
        for (bit, suffix) in &tables().file.uav_flags {
            if let Some(n) = name.strip_suffix(suffix.as_str()) {
                flags |= 1 << bit;
                name = n;
                continue 'strip;
            }
        }
        return (name, flags);
    }
}
