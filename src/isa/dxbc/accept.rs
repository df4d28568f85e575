//! Listing lines that the text → text stream copies as they are, without parsing them into
//! tokens ([`super::stream`]): an instruction that is neither a declaration nor a texture
//! instruction, which [`super::asm`] parses and which encodes. Such a line is an opaque item
//! that [`super::print_text`] prints as it was read, so the copy is the whole path's output.
//!
//! [`plain`] says yes only for lines of a narrow form (fxc's spelling of most ALU and flow
//! instructions) whose every part the full parser accepts; anything else, an error included,
//! is `false`, and the full parser then reads the line (and makes the error). The form:
//! - the mnemonic: identifier characters only (no `(...)` groups, no `[precise]`), naming
//!   an opcode as the parser resolves it ([`asm::instruction_opcode`]) that has no texture
//!   row and declares nothing ([`Decls::records`]: `print_text` decodes those again);
//! - after one or more spaces, operands separated by `,` and spaces, each either
//!   `l(v)` / `l(v, v, v, v)` of numbers the parser reads ([`asm::number_bits`]), or
//!   `[-][|]reg[N][[i]]...[.letters][|]`: a register file name, indices of at most nine
//!   digits (`N`, `[N]`) or one level of relative index `[reg[N][.c] [+ N]]`, at most
//!   three indices, one to four component letters (a source: one or four);
//! - at most [`LONGEST`] bytes: each dword of the encoding takes at least one byte of the
//!   text (the mnemonic, a register name, a modifier, a value, an index's digits), so it
//!   fits the length field.

use super::asm;
use super::lift::Decls;
use super::tables::{tables, Tables};
use super::tokens::MAX_INDICES;

/// The longest line [`plain`] accepts: the most dwords an instruction's length field
/// (7 bits) holds.
const LONGEST: usize = 127;

/// The most digits of an index read here: any such number fits a `u32`.
const DIGITS: usize = 9;

/// Whether `code` (a listing line without indentation, trailing comment and trailing
/// whitespace) is a plain instruction of the module's form that the full parser accepts
/// and that encodes; `false` also when unsure.
pub fn plain(code: &str) -> bool {
    let s = code.as_bytes();
    if s.len() > LONGEST {
        return false;
    }
    let name_end = s.iter().position(|b| !is_ident(*b)).unwrap_or(s.len());
    let name = &code[..name_end];
    if name.is_empty() || name.starts_with("dcl_") {
        return false;
    }
    let Some((opcode, info)) = asm::instruction_opcode(name) else {
        return false;
    };
    if info.tex.is_some() || Decls::records(opcode) {
        return false;
    }
    let t = tables();
    let mut r = Reader { s, pos: name_end };
    if r.pos == s.len() {
        return true;
    }
    if r.peek() != Some(b' ') {
        return false;
    }
    r.spaces();
    let mut n = 0;
    loop {
        if !r.operand(t, n >= info.dst_types.len()) {
            return false;
        }
        n += 1;
        r.spaces();
        match r.peek() {
            None => return true,
            Some(b',') => {
                r.pos += 1;
                r.spaces();
            }
            Some(_) => return false,
        }
    }
}

/// The parser's identifier characters (a mnemonic's).
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A position in a line.
struct Reader<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        let here = self.peek() == Some(b);
        self.pos += usize::from(here);
        here
    }

    /// One to [`DIGITS`] digits.
    fn digits(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        (1..=DIGITS).contains(&(self.pos - start))
    }

    /// An operand at the cursor; `src`: a source (one or four component letters).
    fn operand(&mut self, t: &Tables, src: bool) -> bool {
        let neg = self.eat(b'-');
        let abs = self.eat(b'|');
        let at = self.pos;
        if self.s[at..].starts_with(b"l(") {
            return !neg && !abs && self.immediate(at + 2);
        }
        self.register(t, src, 0) && (!abs || self.eat(b'|'))
    }

    /// `l(...)`'s values from `body` on (after the `(`): one or four numbers, no
    /// parentheses inside.
    fn immediate(&mut self, body: usize) -> bool {
        let Some(len) = self.s[body..].iter().position(|b| *b == b')') else {
            return false;
        };
        let Ok(text) = std::str::from_utf8(&self.s[body..body + len]) else {
            return false;
        };
        if text.contains('(') {
            return false;
        }
        let mut count = 0;
        for v in text.split(',') {
            if asm::number_bits(v, false).is_none() {
                return false;
            }
            count += 1;
        }
        self.pos = body + len + 1;
        count == 1 || count == 4
    }

    /// A register operand at the cursor; `depth` 1 inside a relative index (which has no
    /// relative index of its own here).
    fn register(&mut self, t: &Tables, src: bool, depth: u32) -> bool {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        {
            self.pos += 1;
        }
        let Ok(name) = std::str::from_utf8(&self.s[start..self.pos]) else {
            return false;
        };
        if t.register_named(name).is_none() {
            return false;
        }
        let mut indices = 0;
        if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            if !self.digits() {
                return false;
            }
            indices += 1;
        }
        while self.eat(b'[') {
            self.spaces();
            if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                if !self.digits() {
                    return false;
                }
            } else {
                if depth > 0 || !self.register(t, true, depth + 1) {
                    return false;
                }
                self.spaces();
                if self.eat(b'+') {
                    self.spaces();
                    if !self.digits() {
                        return false;
                    }
                }
            }
            self.spaces();
            if !self.eat(b']') {
                return false;
            }
            indices += 1;
        }
        if indices > MAX_INDICES {
            return false;
        }
        if !self.eat(b'.') {
            return true;
        }
        let mut letters = 0;
        while let Some(b) = self.peek() {
            if matches!(b, b'x' | b'y' | b'z' | b'w' | b'r' | b'g' | b'b' | b'a') {
                letters += 1;
                self.pos += 1;
            } else if is_ident(b) {
                return false;
            } else {
                break;
            }
        }
        (1..=4).contains(&letters) && (!src || letters == 1 || letters == 4)
    }
}
