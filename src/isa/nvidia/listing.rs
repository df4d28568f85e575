//! Whole listings as nvdisasm and cuobjdump print them (research §6): headers, sections,
//! labels and non-texture instructions are kept as opaque lines; texture instruction lines
//! (`        /*0018*/                   TEXS.P R6, … ;   /* 0xd83006e060470404 */`, with a
//! dual-issue `{`/`}` and the encoding of a `}` line on the next line) become IR
//! instructions that print back with the same layout. A line of a single instruction
//! (`TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA`) is a listing of one line.
//!
//! Printing re-encodes each texture instruction into its encoding comment and writes its
//! phase into the encoding comment of its bundle's control word, so an edited listing stays
//! consistent.

use super::binary::{opaque_texture, phase_of, program_sm};
use super::control::{self, BUNDLE_WORDS};
use super::inst::{check_word_on, decode_form_into};
use super::mnemonic_text::Mnemonics;
use super::shapes::Shapes;
use super::stream::Recent;
use super::table::{table, Sm};
use super::text::{is_texture_text, parse_inst, parse_inst_word, print_inst, write_inst, TextOut};
use super::{
    decode_word_on, emit_inst, extras_of, lift, ListingLine, NvInst, NvidiaContainer, NvidiaExtras,
};
use crate::error::{Error, ParseError};
use crate::ir::{Isa, Item, Opaque, Program, Span};
use crate::isa::text_out::{hex16_digits, push_hex16};

/// Where the 16 digits of an encoding comment `/* 0x… */` are, from its first byte.
const HEX_DIGITS_AT: std::ops::Range<usize> = 5..21;

/// The byte index of the first `needle` in `hay`, as `str::find` gives it: a scan for the
/// needle's first byte, then a compare (`str::find` of a string sets up a Two-Way searcher on
/// every call, which cost more than the search on short listing lines).
pub(super) fn find_short(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(k) = memchr::memchr(first, h.get(from..)?) {
        if h[from + k..].starts_with(n) {
            return Some(from + k);
        }
        from += k + 1;
    }
    None
}

/// An encoding comment `/* 0x<16 hex> */` on a line: its byte column, the word, and the
/// byte offset just past it.
pub(super) fn hex_comment(line: &str) -> Option<(usize, u64, usize)> {
    let col = find_short(line, "/* 0x")?;
    Some((col, hex_comment_at(line, col)?, col + HEX_COMMENT_LEN))
}

/// Bytes of an encoding comment `/* 0x<16 hex> */`.
const HEX_COMMENT_LEN: usize = 24;

/// The word of the encoding comment `/* 0x<16 hex> */` at byte `col` of `line`, if one is
/// there.
fn hex_comment_at(line: &str, col: usize) -> Option<u64> {
    let b = line.as_bytes().get(col..col + HEX_COMMENT_LEN)?;
    if !(b.starts_with(b"/* 0x") && b.ends_with(b" */")) {
        return None;
    }
    hex16_word(b[HEX_DIGITS_AT].try_into().ok()?)
}

/// [`hex_word`] of exactly 16 digits (an encoding comment's), eight at a time.
fn hex16_word(digits: &[u8; 16]) -> Option<u64> {
    let (hi, lo) = digits.split_at(8);
    let eight = |d: &[u8]| hex8_word(u64::from_be_bytes(d.try_into().ok()?));
    Some(u64::from(eight(hi)?) << 32 | u64::from(eight(lo)?))
}

/// The value of the eight hex digits (either case) in the bytes of `x`, the first digit in
/// its highest byte; `None` when a byte is not a hex digit. Each byte is checked by adding
/// to all of them at once (SWAR: bytes below 0x80 carry into no other byte): a digit `0`..`9`
/// or, with bit 5 set, a letter `a`..`f`; its value is its low four bits, plus 9 for a
/// letter; then the nibbles are packed pairwise.
fn hex8_word(x: u64) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    if x & HIGH != 0 {
        return None;
    }
    // The top bit of each byte that is `m` or more.
    let at_least = |v: u64, m: u8| (v + ONES * u64::from(0x80 - m)) & HIGH;
    let digit = at_least(x, b'0') & !at_least(x, b'9' + 1);
    let lower = x | (ONES * 0x20);
    let letter = at_least(lower, b'a') & !at_least(lower, b'f' + 1);
    if digit | letter != HIGH {
        return None;
    }
    let mut v = (x & (ONES * 0x0f)) + (letter >> 7) * 9;
    v = (v | v >> 4) & 0x00ff_00ff_00ff_00ff;
    v = (v | v >> 8) & 0x0000_ffff_0000_ffff;
    v = (v | v >> 16) & 0x0000_0000_ffff_ffff;
    Some(v as u32)
}

/// The value of hex digits (either case), as `u64::from_str_radix(_, 16)` reads at most 16
/// of them; `None` when one is not a hex digit. (Every digit is read, without a branch per
/// digit: the values of bytes that are no digit have a bit over 15 set.)
fn hex_word(digits: &[u8]) -> Option<u64> {
    let (mut word, mut bad) = (0u64, 0u8);
    for &b in digits {
        let v = HEX_VALUES[usize::from(b)];
        bad |= v;
        word = word << 4 | u64::from(v & 15);
    }
    (bad < 16).then_some(word)
}

/// Each byte's value as a hex digit (either case), 16 and over for a byte that is none.
const HEX_VALUES: [u8; 256] = {
    let mut t = [u8::MAX; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => u8::MAX,
        };
        b += 1;
    }
    t
};

/// The end of a line's lead: indentation, an address `/*0018*/` and a dual-issue `{`.
pub(super) fn lead_end(line: &str) -> usize {
    lead(line).0
}

/// [`lead_end`], and the address the lead shows ([`line_address`] of it: read as the lead is
/// found).
fn lead(line: &str) -> (usize, Option<u64>) {
    let b = line.as_bytes();
    let skip_ws = |mut i: usize| {
        i += spaces_end(&b[i..]);
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    let mut address = None;
    if b[i..].starts_with(b"/*") && !b[i..].starts_with(b"/* 0x") {
        // Hex digits up to the first `*/` (they hold no `*`), one at least, read as they
        // are found (as `hex_word` reads them: past 16, the first ones shift out).
        let (mut close, mut value) = (i + 2, 0u64);
        while let Some(&v) = b.get(close).map(|&c| &HEX_VALUES[usize::from(c)]) {
            if v > 15 {
                break;
            }
            value = value << 4 | u64::from(v);
            close += 1;
        }
        let digits = close - (i + 2);
        if digits > 0 && b[close..].starts_with(b"*/") {
            // `line_address` reads at most 16 digits.
            address = (digits <= 16).then_some(value);
            i = skip_ws(close + 2);
        }
    }
    if b.get(i) == Some(&b'{') {
        i = skip_ws(i + 1);
    }
    (i, address)
}

/// The address of a listing line (`/*0018*/ …`), if it shows one.
pub(super) fn line_address(line: &str) -> Option<u64> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let inner = &rest[..find_short(rest, "*/")?];
    if inner.is_empty() || inner.len() > 16 {
        return None;
    }
    hex_word(inner.as_bytes())
}

/// The bundle slot (0 = control word) of the word at `address`: bundles are 32 bytes.
pub(super) fn address_slot(address: u64) -> usize {
    (address / control::WORD_BYTES as u64 % BUNDLE_WORDS as u64) as usize
}

/// Whether an opaque line holds an instruction (an address `/*0018*/` before text).
pub(super) fn is_instruction_line(line: &str) -> bool {
    let lead = lead_end(line);
    let trimmed = line.trim_start();
    lead > 0
        && trimmed.starts_with("/*")
        && !trimmed.starts_with("/* 0x")
        && !line[lead..].trim().is_empty()
}

/// The word and instruction text (without ` ;`) of an instruction line that shows its word
/// and is not a control word (`/*0008*/  MOV R1, R2 ;  /* 0x… */`).
fn alu_line(line: &str) -> Option<(u64, &str)> {
    if !is_instruction_line(line) || line_address(line).map(address_slot) == Some(0) {
        return None;
    }
    let (col, word, end) = hex_comment(line)?;
    if !line[end..].trim().is_empty() {
        return None;
    }
    let lead = lead_end(line);
    let text = line
        .get(lead..col)?
        .trim_end()
        .strip_suffix(';')?
        .trim_end();
    Some((word, text))
}

/// How a texture instruction's line is laid out around its text: [`ListingLine`] borrowed
/// from the line as read (parsing, streaming) or from the IR's extras (printing).
#[derive(Debug, PartialEq)]
pub(super) struct Layout<'a> {
    lead: &'a str,
    /// The bundle slot the lead's address shows ([`Layout::address_slot`]).
    slot: Option<usize>,
    gap: &'a str,
    terminator: &'a str,
    hex_column: Option<usize>,
    hex_next_line: Option<usize>,
    trailing: &'a str,
}

impl Layout<'_> {
    /// Whether the instruction shows its word (an encoding comment on its line or the next).
    pub(super) fn has_hex(&self) -> bool {
        self.hex_column.is_some() || self.hex_next_line.is_some()
    }

    /// The bundle slot its address shows, if it shows one.
    pub(super) fn address_slot(&self) -> Option<usize> {
        self.slot
    }

    fn to_owned(&self) -> ListingLine {
        ListingLine {
            lead: self.lead.to_string(),
            gap: self.gap.to_string(),
            terminator: self.terminator.to_string(),
            hex_column: self.hex_column,
            hex_next_line: self.hex_next_line,
            trailing: self.trailing.to_string(),
        }
    }
}

impl ListingLine {
    fn layout(&self) -> Layout<'_> {
        Layout {
            lead: &self.lead,
            slot: line_address(&self.lead).map(address_slot),
            gap: &self.gap,
            terminator: &self.terminator,
            hex_column: self.hex_column,
            hex_next_line: self.hex_next_line,
            trailing: &self.trailing,
        }
    }
}

/// A texture instruction line split into its layout and the instruction text.
struct TexLine<'a> {
    layout: Layout<'a>,
    text: &'a str,
    text_start: usize,
    /// The word of the encoding comment on the line.
    word: Option<u64>,
}

fn split_tex_line(line: &str) -> Option<TexLine<'_>> {
    split_instruction_line(line).filter(|tl| is_texture_text(tl.text))
}

/// [`split_tex_line`] without asking whether the text names a texture instruction.
fn split_instruction_line(line: &str) -> Option<TexLine<'_>> {
    let (start, address) = lead(line);
    let body = &line[start..];
    if body.starts_with("/*") {
        return None;
    }
    let (text_end, terminator, rest_start) =
        if let Some(semi) = memchr::memchr(b';', body.as_bytes()) {
            (semi, ";", semi + 1)
        } else if let Some(brace) = body.trim_end().strip_suffix('}').map(str::len) {
            (brace, "}", brace + 1)
        } else {
            (body.len(), "", body.len())
        };
    let text = body[..text_end].trim_end();
    if text.is_empty() {
        return None;
    }
    let gap = &body[text.len()..text_end];
    let rest = &body[rest_start..];
    let (hex_column, word, trailing) = match hex_comment(rest) {
        Some((col, word, end)) if blank(&rest[..col]) => {
            (Some(start + rest_start + col), Some(word), &rest[end..])
        }
        _ => (None, None, rest),
    };
    Some(TexLine {
        layout: Layout {
            lead: &line[..start],
            slot: address.map(address_slot),
            gap,
            terminator,
            hex_column,
            hex_next_line: None,
            trailing,
        },
        text,
        text_start: start,
        word,
    })
}

/// One item of a listing as [`parse`] reads it: a line, or a texture line ending in `}`
/// whose encoding comment is the next line.
pub(super) enum ListingItem<'a> {
    /// A line kept as read: not a texture instruction (checked by
    /// [`super::mnemonics::check_other_line`]), or one the IR does not model (`.F16`).
    Kept {
        /// Whether it is a texture instruction (`.F16`).
        texture: bool,
    },
    /// A texture instruction.
    Tex(TexItem<'a>),
}

/// A texture instruction of a listing: what it prints back from.
pub(super) struct TexItem<'a> {
    /// Its layout.
    pub(super) layout: Layout<'a>,
    /// The instruction, its unprinted bits taken from its encoding comment.
    pub(super) inst: NvInst,
    /// Its word without the unprinted bits.
    plain_word: u64,
    /// Its text as read.
    text: &'a str,
    /// The 1-based line and column of its text.
    line: u32,
    column: u32,
    /// Whether it took the next line (its encoding comment).
    pub(super) joined: bool,
}

impl TexItem<'_> {
    /// The error [`lift::lift`]'s failure `e` is at the instruction.
    fn lift_error(&self, e: super::FieldError) -> Error {
        ParseError {
            line: self.line,
            column: self.column,
            token: self.text.to_string(),
            expected: e.to_string(),
        }
        .into()
    }

    /// Its word, as printing encodes it ([`super::emit_inst`]).
    pub(super) fn word(&self) -> Result<u64, Error> {
        match self.inst.raw {
            0 => Ok(self.plain_word),
            _ => super::encode_at(&self.inst, self.span()),
        }
    }

    /// Where the instruction is, for the IR.
    fn span(&self) -> Span {
        Span {
            offset: 0,
            line: self.line,
            column: self.column,
        }
    }
}

/// Reads the listing item starting at `line` (1-based number `line_no`; `next` is the line
/// after it), for `sm`: what [`parse`] reads there, and the same error. A texture
/// instruction is checked to lift ([`lift::check`]): it prints from the instruction read.
pub(super) fn read_item<'a>(
    line: &'a str,
    next: Option<&'a str>,
    line_no: u32,
    sm: Sm,
) -> Result<ListingItem<'a>, Error> {
    let Some(tl) = split_tex_line(line) else {
        super::mnemonics::check_other_line(line, line_no)?;
        return Ok(ListingItem::Kept { texture: false });
    };
    let column = one_based(tl.text_start);
    let (mut inst, plain_word) = parse_inst_word(tl.text, line_no, column)?;
    check_word_on(&inst, plain_word, sm).map_err(|e| ParseError {
        line: line_no,
        column,
        token: tl.text.split_whitespace().next().unwrap_or("").to_string(),
        expected: format!("an instruction {sm} encodes ({e})"),
    })?;
    // What the IR does not model (`.F16` results, two halves per register; `TXD.LC`) is
    // kept as read (printed back, encoded from its text by `asm`, refused by translation),
    // as the binary paths keep its word.
    if lift::not_modelled(&inst).is_some() {
        return Ok(ListingItem::Kept { texture: true });
    }
    let TexLine {
        mut layout,
        text,
        mut word,
        ..
    } = tl;
    let mut joined = false;
    if layout.terminator == "}" && word.is_none() {
        if let Some((col, w)) = next.and_then(lone_hex) {
            layout.hex_next_line = Some(col);
            word = Some(w);
            joined = true;
        }
    }
    // Keep the word's unprinted bits when its encoding comment is this instruction.
    if let Some(Ok(Some(mut decoded))) = word.map(|w| decode_word_on(w, sm)) {
        decoded.phase = inst.phase;
        decoded.raw = 0;
        let mut plain = inst.clone();
        plain.raw = 0;
        if decoded == plain {
            let w = word.unwrap_or(0);
            inst.raw = w & super::table::table()
                .form_of(w)
                .map_or(0, |f| f.free_bits_on(sm));
        }
    }
    let item = TexItem {
        layout,
        inst,
        plain_word,
        text,
        line: line_no,
        column,
        joined,
    };
    lift::check(&item.inst).map_err(|e| item.lift_error(e))?;
    Ok(ListingItem::Tex(item))
}

/// A line [`accept_line`] took.
pub(super) enum Accepted<'a> {
    /// A lone encoding comment (a control word's line: [`lone_hex`], its column and word),
    /// which [`read_item`] keeps as read.
    LoneHex(usize, u64),
    /// A texture instruction.
    Tex(AcceptedTex<'a>),
}

/// A texture line [`accept_line`] took: what [`read_item`] reads from it.
pub(super) struct AcceptedTex<'a> {
    /// Its layout.
    pub(super) layout: Layout<'a>,
    /// Its phase.
    pub(super) phase: u8,
    /// Its word, as printing encodes it ([`TexItem::word`]).
    pub(super) word: u64,
    /// Its instruction text, as printed.
    text: &'a str,
    /// The line as read, when it is what [`write_tex_lines`] prints for it.
    verbatim: Option<&'a str>,
}

impl AcceptedTex<'_> {
    /// Appends its line as [`write_tex_lines`] prints it.
    pub(super) fn write(&self, out: &mut Vec<u8>, nl: &str) {
        match self.verbatim {
            Some(line) => out.extend_from_slice(line.as_bytes()),
            None => {
                let text = |o: &mut Vec<u8>| o.extend_from_slice(self.text.as_bytes());
                write_tex_lines(out, text, self.word, &self.layout, nl)
            }
        }
    }
}

/// Takes the lines of a listing as `disasm` prints them without [`read_item`]'s work: a lone
/// encoding comment, and a texture line whose text is what the printer prints for its word
/// ([`accept_tex_line`]). `None` for any other line, which [`read_item`] then reads (and
/// refuses, when it does).
///
/// A lone encoding comment (blank, the comment, nothing after it) is kept as read: its lead
/// ([`lead_end`]) ends at the comment or at a white space other than a space or a tab, so
/// its text is no instruction's (it is `/* 0x…` after white space) and
/// [`super::mnemonics::check_other_line`] takes a line whose trimmed text starts with `/*`.
pub(super) fn accept_line<'a>(line: &'a str, sm: Sm, taken: &mut Taken) -> Option<Accepted<'a>> {
    // Both end with an encoding comment.
    let last = line.len().checked_sub(HEX_COMMENT_LEN)?;
    let word = hex_comment_at(line, last)?;
    // `lone_hex`: the comment starts where the line's leading white space ends.
    let b = line.as_bytes();
    let spaces = spaces_end(&b[..last]);
    let lone = spaces == last
        || match b[spaces] {
            c if c.is_ascii() && !is_blank_byte(c) => false,
            _ => blank(&line[spaces..last]),
        };
    match lone {
        true => Some(Accepted::LoneHex(last, word)),
        false => accept_tex_line(line, last, word, sm, taken).map(Accepted::Tex),
    }
}

/// What [`accept_line`] keeps from line to line of one listing: the words of the texture
/// lines it took (a [`Recent`] cache: a word that decoded for the listing's SM, is not
/// `.F16` and lifts, with the text printed for it and its phase; whether a word does so
/// depends on the word and the SM alone).
pub(super) struct Taken {
    /// What the cache keeps, allocated at the first texture line: most listings of the corpus
    /// hold few.
    cache: Option<TakenCache>,
}

/// The caches of [`Taken`].
struct TakenCache {
    recent: Recent,
    /// The shapes of the words that lifted ([`Shapes::lifts`]), for the SM they were read
    /// for.
    shapes: Shapes,
    /// The mnemonics printed so far.
    mnemonics: Mnemonics,
}

impl Taken {
    pub(super) fn new() -> Taken {
        Taken { cache: None }
    }
}

/// Takes a texture line that ends with its encoding comment (`word`, at byte `last`) without
/// parsing its text, when the text is exactly what [`write_inst`] prints for the word
/// (decoded for `sm`, with the phase the text spells), or when [`Taken`] took the word with
/// this text before. `None` for any other line, which [`read_item`] then reads (and
/// refuses, when it does).
///
/// The line is split as [`split_instruction_line`] splits it, byte by byte, for a line whose
/// text ends at its first `;` and whose `;` is followed by ASCII white space then the
/// comment: the lead is [`lead`]'s; the text, `trim_end` of what comes before the `;` (one
/// ending in a byte that is not ASCII is left to [`read_item`], as white space there may be
/// Unicode's); no `/` comes between the `;` and the comment, so the comment is the first
/// `hex_comment` finds after the `;`, on blank space (its column is `last`, nothing
/// trails it). Other lines are left to [`read_item`].
///
/// What [`read_item`] reads from such a line, and so what the stream prints from it, step
/// by step. The layout is [`split_tex_line`]'s (whose texture check holds: the text starts
/// with a printed mnemonic). Let `d` be the comment's word `w` decoded, with the text's
/// phase, and `d0` it without its unprinted bits (`raw`).
/// - Parsing the text gives `d0` and the word `encode_word(d0)`: the parser reads back every
///   spelling the printer writes ([`super::text::parse_inst_word`] inverts [`write_inst`] on
///   every instruction that decodes and lifts but `.F16`; `tests::printed_instructions_parse_back`
///   checks it on every form, SM and field value).
/// - `check_word_on` accepts `d0`: decoding for `sm` already refused a form or field value
///   of a later SM, and left the fields `sm` no longer decodes absent (their bits are `raw`).
/// - The decoded comment equals `d0` but for `raw`, so the instruction read is `d`.
/// - [`lift::check`] runs on `d` here as there (here through [`Shapes::lifts`]: a word whose
///   shape lifted before, its vectors fitting, lifts; see [`super::shapes`]).
/// - [`TexItem::word`] encodes `d` (`encode_word(d0) | raw`), which is `w`: `encode_word`
///   inverts `decode_word_on` on every word that decodes ([`super::inst`]).
///
/// A `.F16` instruction (kept as read), a `}` line whose comment is on the next line and any
/// text that is not exactly the printed one are left to [`read_item`].
fn accept_tex_line<'a>(
    line: &'a str,
    last: usize,
    word: u64,
    sm: Sm,
    taken: &mut Taken,
) -> Option<AcceptedTex<'a>> {
    // Only the words of texture forms: the other instruction lines of a kernel's listing are
    // left at once.
    let t = table();
    let form = t.form_index_of(word)?;
    let b = line.as_bytes();
    let (start, address) = lead(line);
    // An address's `*/` may end on the comment's `/`.
    let body = b.get(start..last)?;
    if body.starts_with(b"/*") {
        return None;
    }
    let semi = memchr::memchr(b';', body)?;
    let text_end = body[..semi]
        .iter()
        .rposition(|&c| !is_blank_byte(c))
        .filter(|&k| body[k].is_ascii())?
        + 1;
    let pad = &body[semi + 1..];
    // Spaces, as `disasm` pads (looked at eight at a time), or other white space.
    let spaces = spaces_end(pad) == pad.len();
    if !spaces && !pad.iter().all(|&c| is_blank_byte(c)) {
        return None;
    }
    let text = &line[start..start + text_end];
    let cache = taken.cache.get_or_insert_with(|| TakenCache {
        recent: Recent::new(),
        shapes: Shapes::new(sm),
        mnemonics: Mnemonics::new(),
    });
    let phase = match cache.recent.get(word) {
        // Taken before, with this text: the same checks passed.
        Some(seen) if seen.text() == text.as_bytes() => seen.phase,
        _ => {
            let f = &t.forms[form];
            let mut inst = NvInst::new(f.op, f.bindless);
            decode_form_into(f, word, sm, &mut inst).ok()?;
            // `printed_phase` and `write_inst`, through the kept mnemonics.
            if inst.f16 || !cache.mnemonics.prints_as(text.as_bytes(), &mut inst) {
                return None;
            }
            if !cache.shapes.lifts(form, word, &inst) {
                return None;
            }
            cache.recent.put(word, inst.phase, text.as_bytes());
            inst.phase
        }
    };
    // `write_tex_lines` pads the comment to its column with spaces (at least one) and
    // prints its digits in lower case: a line already so is printed as read.
    let digits = &b[last + HEX_DIGITS_AT.start..last + HEX_DIGITS_AT.end];
    let verbatim =
        (!pad.is_empty() && spaces && !digits.iter().any(u8::is_ascii_uppercase)).then_some(line);
    Some(AcceptedTex {
        layout: Layout {
            lead: &line[..start],
            slot: address.map(address_slot),
            gap: &line[start + text_end..start + semi],
            terminator: ";",
            hex_column: Some(last),
            hex_next_line: None,
            trailing: "",
        },
        phase,
        word,
        text,
        verbatim,
    })
}

/// Whether `c` is white space as `char::is_whitespace` has it, for an ASCII byte.
fn is_blank_byte(c: u8) -> bool {
    c == b' ' || (b'\t'..=b'\r').contains(&c)
}

/// A line that is only an encoding comment: its column and word.
pub(super) fn lone_hex(line: &str) -> Option<(usize, u64)> {
    // The comment starts where the line's leading white space ends (spaces looked past
    // byte by byte first): no `/` comes before it.
    let b = line.as_bytes();
    let mut col = spaces_end(b);
    if b.get(col) != Some(&b'/') {
        col = line.len() - line.trim_start().len();
    }
    let word = hex_comment_at(line, col)?;
    (col + HEX_COMMENT_LEN == line.len()).then_some((col, word))
}

/// The length of the spaces `b` starts with (looked at eight at a time, as a word: a control
/// word's line starts with ~90).
fn spaces_end(b: &[u8]) -> usize {
    const SPACES: u64 = u64::from_le_bytes(*b"        ");
    let mut n = 0;
    for eight in b.chunks_exact(8) {
        let Ok(eight) = <[u8; 8]>::try_from(eight) else {
            break;
        };
        // The first byte that is not a space is the lowest that differs.
        let differ = u64::from_le_bytes(eight) ^ SPACES;
        if differ != 0 {
            return n + (differ.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + b[n..].iter().take_while(|&&c| c == b' ').count()
}

/// Whether `s` is empty or white space, as `s.trim().is_empty()` says (ASCII text is checked
/// byte by byte).
fn blank(s: &str) -> bool {
    if s.is_ascii() {
        s.bytes().all(is_blank_byte)
    } else {
        s.trim().is_empty()
    }
}

/// A 0-based line or byte index as a 1-based line or column (saturating past `u32::MAX`).
fn one_based(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |i| i.saturating_add(1))
}

/// Parses a listing (or single instruction lines) for `sm`: an instruction `sm` cannot
/// encode (a form or modifier of a later SM) is an error at its mnemonic.
/// The SM a listing line names: nvdisasm and cuobjdump print `.headerflags @"...
/// EF_CUDA_SM61 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM50)"` ahead of each cubin's (cuobjdump: each
/// function's) code, which is read for that SM from there on, as nvdisasm read the cubin.
/// `None`: not such a line. Code of an SM texlate does not read is refused at the line.
pub(super) fn headerflags_sm(line: &str, line_no: u32) -> Result<Option<Sm>, Error> {
    let trimmed = line.trim_start();
    let Some(flags) = trimmed.strip_prefix(".headerflags") else {
        return Ok(None);
    };
    let Some(n) = flags
        .split(|c: char| c.is_whitespace() || c == '"' || c == '@')
        .find_map(|t| t.strip_prefix("EF_CUDA_SM"))
    else {
        return Ok(None);
    };
    let column = one_based(line.len() - trimmed.len());
    match n.parse().ok().and_then(Sm::from_number) {
        Some(sm) => Ok(Some(sm)),
        None => Err(ParseError {
            line: line_no,
            column,
            token: format!("EF_CUDA_SM{n}"),
            expected: format!(
                "code of an SM texlate reads (Maxwell and Pascal: {})",
                Sm::ALL.map(Sm::name).join(", ")
            ),
        }
        .into()),
    }
}

pub(super) fn parse(src: &str, sm: Sm) -> Result<Program, Error> {
    let mut sm = sm;
    let mut program = Program::new(Isa::Nvidia);
    let final_newline = src.ends_with('\n');
    let body = src.strip_suffix('\n').unwrap_or(src);
    let mut lines: Vec<&str> = if body.is_empty() && !final_newline {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    // CRLF only when every line terminator is `\r\n`; otherwise a `\r` stays in its line.
    let terminated = if final_newline {
        lines.len()
    } else {
        lines.len().saturating_sub(1)
    };
    let crlf = terminated > 0 && lines[..terminated].iter().all(|l| l.ends_with('\r'));
    if crlf {
        for l in &mut lines[..terminated] {
            *l = &l[..l.len() - 1];
        }
    }
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let line_no = one_based(i);
        let opaque = || {
            Item::Opaque(Opaque {
                text: Some(line.to_string()),
                bytes: Vec::new(),
                span: Span {
                    offset: 0,
                    line: line_no,
                    column: 1,
                },
            })
        };
        match read_item(line, lines.get(i + 1).copied(), line_no, sm)? {
            ListingItem::Kept { texture: false } => {
                sm = headerflags_sm(line, line_no)?.unwrap_or(sm);
                program.items.push(match alu_line(line) {
                    Some((word, text)) => super::read_alu(opaque(), word, Some(text)),
                    None => opaque(),
                });
            }
            ListingItem::Kept { texture: true } => program.items.push(opaque()),
            ListingItem::Tex(tex) => {
                let mut extras = NvidiaExtras::empty();
                extras.listing = Some(tex.layout.to_owned());
                let ti =
                    lift::lift(&tex.inst, extras, tex.span()).map_err(|e| tex.lift_error(e))?;
                program.items.push(Item::Tex(Box::new(ti)));
                i += usize::from(tex.joined);
            }
        }
        i += 1;
    }
    program.state = crate::ir::Origin::new(NvidiaContainer::Listing {
        crlf,
        final_newline,
    });
    Ok(program)
}

/// The texture instruction of an opaque listing line: one that parses but is kept as read
/// (`.F16`, which does not lift), with the 1-based column of its text.
pub(super) fn opaque_text_inst(o: &Opaque) -> Option<(NvInst, u32)> {
    let tl = split_tex_line(o.text.as_deref()?)?;
    let column = one_based(tl.text_start);
    Some((parse_inst(tl.text, o.span.line, column).ok()?, column))
}

/// `/* 0x… */` for a word.
fn hex_text(word: u64) -> String {
    let mut s = String::with_capacity(24);
    push_hex_comment(&mut s, word);
    s
}

/// Appends `/* 0x…16 digits… */`, the encoding comment of `word`.
fn push_hex_comment(out: &mut impl TextOut, word: u64) {
    out.push_text("/* ");
    push_hex16(out, word);
    out.push_text(" */");
}

/// Appends `n` spaces.
pub(super) fn push_spaces(out: &mut impl TextOut, mut n: usize) {
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_text(&SPACES[..k]);
        n -= k;
    }
}

/// Appends the lines of one texture instruction in a listing, its text appended by `text`,
/// ended (but for the last) by `nl`: written into the listing's buffer, as this runs once
/// per instruction.
pub(super) fn write_tex_lines<O: TextOut>(
    out: &mut O,
    text: impl FnOnce(&mut O),
    word: u64,
    layout: &Layout,
    nl: &str,
) {
    let line_start = out.text_len();
    out.push_text(layout.lead);
    text(out);
    out.push_text(layout.gap);
    out.push_text(layout.terminator);
    if let Some(col) = layout.hex_column {
        // Padded to the column, with at least one space.
        push_spaces(out, col.saturating_sub(out.text_len() - line_start).max(1));
        push_hex_comment(out, word);
    }
    out.push_text(layout.trailing);
    if let Some(col) = layout.hex_next_line {
        out.push_text(nl);
        push_spaces(out, col);
        push_hex_comment(out, word);
    }
}

/// Prints a program: a listing back with its layout, anything else as an nvdisasm-style
/// listing (one line per word, with addresses and encodings) or, for single instructions,
/// one instruction per line.
pub(super) fn print(p: &Program) -> Result<String, Error> {
    match p.state.get::<NvidiaContainer>() {
        Some(NvidiaContainer::Listing {
            crlf,
            final_newline,
        }) => print_listing(p, *crlf, *final_newline),
        Some(NvidiaContainer::Stream { .. }) | Some(NvidiaContainer::Cubin { .. }) => {
            print_stream(p)
        }
        Some(NvidiaContainer::Words { .. }) | None => {
            let sm = program_sm(p);
            let mut out = String::new();
            for item in &p.items {
                match item {
                    Item::Tex(t) => out.push_str(&print_inst(&emit_inst(t)?.0)),
                    Item::Comment(c) => crate::isa::push_comment_line(&mut out, &c.text),
                    Item::Alu(a) => {
                        return Err(crate::isa::alu_unsupported(a, crate::ir::Isa::Nvidia))
                    }
                    Item::Opaque(o) => match (&o.text, opaque_texture(o, sm)) {
                        (Some(text), _) => out.push_str(text),
                        (None, Some((inst, _))) => out.push_str(&print_inst(&inst)),
                        (None, None) => out.push_str(&hex_text(word_of(&o.bytes))),
                    },
                }
                out.push('\n');
            }
            Ok(out)
        }
    }
}

fn word_of(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// Writes each texture instruction's phase into the encoding comment of its bundle's
/// control word as a listing is printed, so an edited listing stays consistent. The lines
/// that show a word (an encoding comment) count as the listing's words; a texture line's
/// bundle slot is its address's (a listing excerpt need not start at a bundle), else its
/// position's, and its control word is the line `slot` words before when that line is a
/// lone encoding comment. Only the last bundle's lines are remembered: a printer holds its
/// output back from the oldest control comment that can still change
/// ([`Phases::pending_from`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Phases {
    /// Word lines so far.
    words: usize,
    /// The last word lines by position mod [`BUNDLE_WORDS`].
    recent: [Option<WordLine>; BUNDLE_WORDS],
}

/// A line that shows a word, as [`Phases`] remembers it.
#[derive(Clone, Copy, Debug)]
struct WordLine {
    /// Its position among the word lines.
    pos: usize,
    /// For a lone encoding comment (a control word can be one): the output offset of its
    /// digits and its word so far.
    control: Option<(usize, u64)>,
}

impl Phases {
    fn push(&mut self, control: Option<(usize, u64)>) -> usize {
        let pos = self.words;
        self.recent[pos % BUNDLE_WORDS] = Some(WordLine { pos, control });
        self.words += 1;
        pos
    }

    /// A line kept as read, printed at output offset `start` (`None`: not printed): counted
    /// if it shows a word, remembered as a possible control word if it is a lone encoding
    /// comment that is printed.
    pub(super) fn kept_line(&mut self, line: &str, start: Option<usize>) {
        match lone_hex(line) {
            Some(lone) => self.lone_hex_line(lone, start),
            None => {
                if hex_comment(line).is_some() {
                    self.push(None);
                }
            }
        }
    }

    /// [`Phases::kept_line`] of a lone encoding comment ([`lone_hex`]: its column and word).
    pub(super) fn lone_hex_line(&mut self, (col, word): (usize, u64), start: Option<usize>) {
        self.push(start.map(|start| (start + col + HEX_DIGITS_AT.start, word)));
    }

    /// A texture instruction with `phase` laid out as `layout`: the control comment it
    /// changes, as (output offset of its digits, new word).
    pub(super) fn tex(&mut self, layout: &Layout, phase: u8) -> Option<(usize, u64)> {
        if !layout.has_hex() {
            return None;
        }
        let pos = self.push(None);
        let slot = layout.address_slot().unwrap_or(pos % BUNDLE_WORDS);
        let c = pos.checked_sub(slot).filter(|_| slot != 0)?;
        let line = self.recent[c % BUNDLE_WORDS]
            .as_mut()
            .filter(|l| l.pos == c)?;
        let (at, ctrl) = line.control.as_mut()?;
        *ctrl = control::with_phase(*ctrl, slot, phase);
        Some((*at, *ctrl))
    }

    /// The output offset of the oldest control comment a later line can still change.
    pub(super) fn pending_from(&self) -> Option<usize> {
        let first = self.words.saturating_sub(BUNDLE_WORDS - 1);
        self.recent
            .iter()
            .flatten()
            .filter(|l| l.pos >= first)
            .filter_map(|l| l.control.map(|(at, _)| at))
            .min()
    }

    /// Forgets the control comments pending (their final words are written).
    pub(super) fn settle(&mut self) {
        for line in self.recent.iter_mut().flatten() {
            line.control = None;
        }
    }
}

/// Rewrites the control comment `patch` ([`Phases::tex`]) names in `out`, whose first byte
/// is output offset `base`.
pub(super) fn apply_patch(out: &mut impl TextOut, base: usize, patch: Option<(usize, u64)>) {
    if let Some((at, ctrl)) = patch {
        out.overwrite_ascii(at - base, &hex16_digits(ctrl));
    }
}

fn print_listing(p: &Program, crlf: bool, final_newline: bool) -> Result<String, Error> {
    let nl = if crlf { "\r\n" } else { "\n" };
    // An nvdisasm line is ~90 bytes: sized once rather than regrown through the listing.
    let mut out = String::with_capacity(p.items.len() * 96);
    let mut phases = Phases::default();
    for (k, item) in p.items.iter().enumerate() {
        if k > 0 {
            out.push_str(nl);
        }
        match item {
            Item::Tex(t) => {
                let (inst, word) = emit_inst(t)?;
                match extras_of(t).and_then(|x| x.listing.as_ref()) {
                    Some(layout) => {
                        let layout = layout.layout();
                        apply_patch(&mut out, 0, phases.tex(&layout, inst.phase));
                        write_tex_lines(&mut out, |o| write_inst(o, &inst), word, &layout, nl);
                    }
                    None => write_inst(&mut out, &inst),
                }
            }
            Item::Comment(c) => crate::isa::push_comment_line(&mut out, &c.text),
            Item::Alu(a) => return Err(crate::isa::alu_unsupported(a, crate::ir::Isa::Nvidia)),
            Item::Opaque(o) => match &o.text {
                Some(text) => {
                    phases.kept_line(text, Some(out.len()));
                    out.push_str(text);
                }
                None => push_hex_comment(&mut out, word_of(&o.bytes)),
            },
        }
    }
    if final_newline && !p.items.is_empty() {
        out.push_str(nl);
    }
    Ok(out)
}

/// Bytes between a stream line's address and its instruction, as nvdisasm lays them out.
const LEAD_GAP: usize = 19;

/// The byte column of the encoding comments of a stream listing whose widest texture
/// instruction text is `widest` bytes long.
pub(super) fn stream_column(widest: usize) -> usize {
    (16 + LEAD_GAP + widest + 2 + 3).max(85)
}

/// Appends the header line of a cubin section named `name` (none for a raw stream).
pub(super) fn section_header(out: &mut impl TextOut, name: &str) {
    if !name.is_empty() {
        out.push_text("//--------------------- ");
        out.push_text(name);
        out.push_text(" --------------------------\n");
    }
}

/// Appends the line of word `i` of a stream section: its address (a control word has none),
/// the instruction text `text` appends (a texture instruction's, then ` ;`; other words
/// append nothing) and the encoding comment at `column`.
pub(super) fn stream_line<O: TextOut>(
    out: &mut O,
    i: usize,
    word: u64,
    column: usize,
    text: impl FnOnce(&mut O),
) {
    let start = out.text_len();
    if i % BUNDLE_WORDS != 0 {
        // `        /*` the address (4 hex digits at least) `*/` and the gap, in one piece.
        const AT: usize = 10;
        let mut lead = [b' '; AT + 16 + 2 + LEAD_GAP];
        lead[AT - 2..AT].copy_from_slice(b"/*");
        let address = (i * control::WORD_BYTES) as u64;
        let digits = ((64 - address.leading_zeros()).div_ceil(4).max(4)) as usize;
        lead[AT..AT + digits].copy_from_slice(&hex16_digits(address)[16 - digits..]);
        lead[AT + digits..AT + digits + 2].copy_from_slice(b"*/");
        out.push_ascii_slice(&lead[..AT + digits + 2 + LEAD_GAP]);
    }
    let before = out.text_len();
    text(out);
    if out.text_len() > before {
        out.push_text(" ;");
    }
    push_spaces(out, column.saturating_sub(out.text_len() - start).max(1));
    let mut comment = *b"/* 0x0123456789abcdef */\n";
    comment[HEX_DIGITS_AT].copy_from_slice(&hex16_digits(word));
    out.push_ascii_slice(&comment);
}

const SPACES: &str = "                                                                ";

/// An nvdisasm-style listing of a stream or cubin: control words as lone encoding
/// comments, texture instructions as text, other instructions as their encoding.
fn print_stream(p: &Program) -> Result<String, Error> {
    let sections: Vec<(String, usize)> = match p.state.get::<NvidiaContainer>() {
        Some(NvidiaContainer::Cubin { sections, .. }) => sections
            .iter()
            .map(|s| (s.name.clone(), s.size / control::WORD_BYTES))
            .collect(),
        _ => vec![(String::new(), p.items.len())],
    };
    let sm = program_sm(p);
    let mut texts: Vec<Option<(String, u64)>> = Vec::with_capacity(p.items.len());
    // Each section's control word (item index, value) as the items are walked, for the
    // phase of an opaque texture word (one that decodes but cannot run).
    let mut bounds = Vec::new();
    let mut start = 0;
    for (_, len) in &sections {
        bounds.push(start);
        start += len;
    }
    let mut ctrl: (u64, usize) = (0, 0);
    for (k, item) in p.items.iter().enumerate() {
        let section_start = bounds.iter().rev().find(|&&b| b <= k).copied().unwrap_or(0);
        let slot = (k - section_start) % BUNDLE_WORDS;
        texts.push(match item {
            Item::Tex(t) => {
                let (inst, word) = emit_inst(t)?;
                Some((print_inst(&inst), word))
            }
            Item::Alu(a) => return Err(crate::isa::alu_unsupported(a, crate::ir::Isa::Nvidia)),
            Item::Opaque(o) => {
                if slot == 0 {
                    ctrl = (word_of(&o.bytes), o.span.offset);
                    None
                } else {
                    match opaque_texture(o, sm) {
                        Some((mut inst, word)) => {
                            inst.phase = phase_of(ctrl, slot)?;
                            Some((print_inst(&inst), word))
                        }
                        None => None,
                    }
                }
            }
            Item::Comment(_) => None,
        });
    }
    let widest = texts
        .iter()
        .flatten()
        .map(|(t, _)| t.len())
        .max()
        .unwrap_or(0);
    let column = stream_column(widest);
    let mut out = String::new();
    let mut k = 0;
    for (name, len) in sections {
        section_header(&mut out, &name);
        for i in 0..len {
            let Some(item) = p.items.get(k) else { break };
            let text = texts.get(k).and_then(Option::as_ref);
            let word = match (item, text) {
                (_, Some((_, word))) => *word,
                (Item::Opaque(o), _) => word_of(&o.bytes),
                (_, None) => 0,
            };
            stream_line(&mut out, i, word, column, |out| {
                if let Some((text, _)) = text {
                    out.push_str(text);
                }
            });
            k += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::table::{table, Sm};
    use super::super::text::write_inst;
    use super::super::{decode_word_on, lift};
    use super::{
        accept_line, blank, find_short, hex16_word, hex_comment, hex_word, lone_hex, read_item,
        spaces_end, stream_column, stream_line, write_tex_lines, Accepted, AcceptedTex,
        ListingItem, Taken, TexItem,
    };
    use crate::isa::text_out::hex16_digits;
    use crate::rng::Rng;

    /// The words a sweep tries for each form: each value of each field (up to 256 of them,
    /// the others random) over random other bits, and random words of the form.
    pub(in super::super) fn sweep_words(rng: &mut Rng) -> Vec<u64> {
        let mut words = Vec::new();
        for form in &table().forms {
            let random = |rng: &mut Rng| (rng.next() & !form.mask & !form.reserved) | form.value;
            for f in &form.fields {
                let values = 1u64 << f.width.min(8);
                for v in 0..values {
                    let v = if f.width > 8 {
                        rng.next() & (f.mask() >> f.lo)
                    } else {
                        v
                    };
                    let mut w = random(rng);
                    f.put(&mut w, v);
                    words.push(w);
                }
            }
            words.extend((0..100).map(|_| random(rng)));
        }
        words
    }

    /// `stream_line` lays a word's line out as `format!` spells it: the address in four hex
    /// digits or more (up to 16), the gap, the text and ` ;`, the padding to the column (one
    /// space at least), the encoding comment; a control word's line without an address.
    #[test]
    fn stream_lines_are_laid_out_as_format_lays_them_out() {
        let word = 0xd830_06e0_6047_0404u64;
        for i in [
            0usize,
            1,
            3,
            5,
            0x1fff,
            0x2001,
            0x20_0001,
            usize::MAX / 8 - 2,
        ] {
            for (text, column) in [
                ("", 85),
                ("TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA", 85),
                ("T", 30),
            ] {
                let mut line = String::new();
                stream_line(&mut line, i, word, column, |o| o.push_str(text));
                let mut expected = match i % 4 {
                    0 => String::new(),
                    _ => format!("        /*{:04x}*/{:19}", i * 8, ""),
                };
                if !text.is_empty() {
                    expected += &format!("{text} ;");
                }
                let pad = column.saturating_sub(expected.len()).max(1);
                expected += &format!("{:pad$}/* {word:#018x} */\n", "");
                assert_eq!(line, expected, "word {i}");
            }
        }
    }

    /// `spaces_end` counts the spaces a slice starts with: every length up to 40, a byte
    /// after them of each kind (none, a tab, a space's neighbours, a letter, a non-ASCII one).
    #[test]
    fn spaces_end_counts_leading_spaces() {
        for len in 0..40 {
            for after in [
                None,
                Some(b'\t'),
                Some(b'!'),
                Some(0x1f),
                Some(b'R'),
                Some(0xa0),
            ] {
                let mut b = vec![b' '; len];
                b.extend(after);
                b.extend_from_slice(b" x        ");
                let expected = b.iter().take_while(|&&c| c == b' ').count();
                assert_eq!(spaces_end(&b), expected, "{b:?}");
                assert_eq!(spaces_end(&b[..len]), len);
            }
        }
    }

    /// `hex16_word` reads 16 digits as `hex_word` does: every byte value at every position
    /// (among digits of both cases), and random digit strings.
    #[test]
    fn hex16_word_is_hex_word() {
        let mut rng = Rng(0x4865_7831_3600_0001);
        let hex = b"0123456789abcdefABCDEF";
        for round in 0..2000 {
            let mut digits = [0u8; 16];
            for d in &mut digits {
                *d = hex[(rng.next() % hex.len() as u64) as usize];
            }
            assert_eq!(hex16_word(&digits), hex_word(&digits), "{digits:?}");
            let at = round % 16;
            for b in 0..=u8::MAX {
                digits[at] = b;
                assert_eq!(hex16_word(&digits), hex_word(&digits), "{digits:?}");
            }
        }
    }

    /// The words of [`sweep_words`] (seeded with `seed`) that decode, with their instruction,
    /// for every SM in turn.
    pub(in super::super) fn swept_instructions(
        seed: u64,
    ) -> impl Iterator<Item = (Sm, u64, super::NvInst)> {
        let words = sweep_words(&mut Rng(seed));
        Sm::ALL.into_iter().flat_map(move |sm| {
            let words = words.clone();
            words
                .into_iter()
                .filter_map(move |w| Some((sm, w, decode_word_on(w, sm).ok()??)))
        })
    }

    /// `read_item`'s reading of a line `accept_line` took as `acc`, asserted to be the same:
    /// its layout, phase and word, and its line printed alike.
    fn read_as_taken<'a>(line: &'a str, sm: Sm, acc: &AcceptedTex) -> TexItem<'a> {
        let item = match read_item(line, None, 1, sm) {
            Ok(ListingItem::Tex(item)) => item,
            Ok(ListingItem::Kept { .. }) => panic!("{line:?} on {sm}: kept"),
            Err(e) => panic!("{line:?} on {sm}: taken, refused: {e}"),
        };
        assert_eq!(acc.layout, item.layout, "{line:?}");
        assert_eq!(acc.phase, item.inst.phase, "{line:?} on {sm}");
        let word = item.word().expect("encodes");
        assert_eq!(acc.word, word, "{line:?} on {sm}");
        let (mut out, mut expected) = (Vec::new(), Vec::new());
        acc.write(&mut out, "\n");
        let text = |o: &mut Vec<u8>| write_inst(o, &item.inst);
        write_tex_lines(&mut expected, text, word, &item.layout, "\n");
        assert_eq!(out, expected, "{line:?} on {sm}");
        item
    }

    /// A line `accept_line` takes is read alike by `read_item` (the same layout, phase and
    /// printed word, and the instruction it prints is the one `read_item` reads) and printed
    /// as `write_tex_lines` prints what `read_item` reads; every line `disasm` prints for a
    /// word that decodes and lifts is taken (but `.F16`): on every form, SM, field value and
    /// phase, each line twice (taken before: from `Taken`'s cache), and once more with its
    /// comment not where `write_tex_lines` puts it (after a tab, in upper case).
    #[test]
    fn accepted_lines_read_as_read_item_reads_them() {
        let words = sweep_words(&mut Rng(0xacce_9700_0000_0001)).len();
        let mut taken = 0;
        let mut seen = (Sm::SM50, Taken::new());
        for (sm, w, mut inst) in swept_instructions(0xacce_9700_0000_0001) {
            if seen.0 != sm {
                seen = (sm, Taken::new());
            }
            let seen = &mut seen.1;
            for phase in 0..3 {
                inst.phase = phase;
                let mut printed = String::new();
                write_inst(&mut printed, &inst);
                let mut line = String::new();
                let column = stream_column(printed.len());
                stream_line(&mut line, 1 + phase as usize, w, column, |o| {
                    o.push_str(&printed)
                });
                let line = line.trim_end_matches('\n');
                let (head, comment) = line.split_at(line.rfind("/* 0x").unwrap_or(0));
                let digits = comment.get(5..21).unwrap_or("").to_uppercase();
                let moved = format!("{}\t/* 0x{digits} */", head.trim_end());
                for line in [line, line, moved.as_str()] {
                    let acc = match accept_line(line, sm, seen) {
                        Some(Accepted::Tex(acc)) => acc,
                        Some(Accepted::LoneHex(..)) => panic!("{line}: a lone comment"),
                        None => {
                            let lifts = lift::check(&inst).is_ok();
                            assert!(!lifts || inst.f16, "{line} on {sm}: not taken");
                            continue;
                        }
                    };
                    let item = read_as_taken(line, sm, &acc);
                    assert_eq!(item.inst, inst, "{line} on {sm}");
                    assert_eq!(acc.text, printed);
                    assert!(!item.joined);
                    taken += 1;
                }
            }
        }
        assert!(taken > words, "{taken} lines taken");
    }

    /// Lines laid out unlike `disasm`'s (white space of every kind around the address and
    /// the text, addresses long, empty or joined to a `{`, gaps, terminators, padding,
    /// digits in upper case, something after the comment): a texture line `accept_line`
    /// takes is read alike by `read_item` and printed alike, a lone comment it takes is
    /// `lone_hex`'s, and `lead` reads the address `line_address` reads from the lead.
    #[test]
    fn oddly_laid_out_lines_are_taken_as_read_item_reads_them() {
        let mut rng = Rng(0x0dd1_a700_0000_0001);
        let words = sweep_words(&mut rng);
        let pick = |rng: &mut Rng, from: &[&'static str]| from[rng.below(from.len())];
        let leads = [
            "        /*0008*/                   ",
            "\t/*0010*/ ",
            "/*0018*/",
            "  /*00000000000000008*/   ",
            "  /*0000000000000018*/ ",
            "  /**/  ",
            " { ",
            "  /*0008*/{",
            "  /*0008*/ {  ",
            "\u{a0}/*0008*/  ",
            "\u{b}/*0008*/  ",
            "",
            " /*0008* ",
        ];
        let gaps = ["", " ", "\t", "  ", "\u{a0}", "\u{3000}", "\u{b}"];
        let terminators = [";", ";", "", "}", ";;"];
        let pads = [
            "", " ", "    ", "\t", " \u{c} ", "\r", "\u{a0}", "\u{3000}", "x ", " / ",
        ];
        let trailings = ["", "", " ", "\u{a0}", "x"];
        let (mut taken, mut left) = (0, 0);
        for sm in [Sm::SM50, Sm::SM61] {
            let mut seen = Taken::new();
            for &w in words.iter().step_by(3) {
                let Ok(Some(mut inst)) = decode_word_on(w, sm) else {
                    continue;
                };
                inst.phase = (w % 3) as u8;
                let mut text = String::new();
                write_inst(&mut text, &inst);
                let mut digits = String::from_utf8(hex16_digits(w).to_vec()).unwrap();
                if rng.below(4) == 0 {
                    digits = digits.to_uppercase();
                }
                for _ in 0..4 {
                    let line = format!(
                        "{}{text}{}{}{}/* 0x{digits} */{}",
                        pick(&mut rng, &leads),
                        pick(&mut rng, &gaps),
                        pick(&mut rng, &terminators),
                        pick(&mut rng, &pads),
                        pick(&mut rng, &trailings),
                    );
                    let (end, address) = super::lead(&line);
                    assert_eq!(end, super::lead_end(&line), "{line:?}");
                    assert_eq!(address, super::line_address(&line[..end]), "{line:?}");
                    let acc = match accept_line(&line, sm, &mut seen) {
                        Some(Accepted::Tex(acc)) => acc,
                        Some(Accepted::LoneHex(col, word)) => {
                            assert_eq!(lone_hex(&line), Some((col, word)), "{line:?}");
                            continue;
                        }
                        None => {
                            left += 1;
                            continue;
                        }
                    };
                    read_as_taken(&line, sm, &acc);
                    taken += 1;
                }
            }
        }
        assert!(taken > 500 && left > 500, "{taken} taken, {left} left");
    }

    /// `lone_hex` finds what `hex_comment` finds on a line of white space and one comment.
    #[test]
    fn lone_hex_is_a_comment_alone() {
        for line in [
            "/* 0x001fc000fe4007f6 */",
            "    /* 0x001fc000fe4007f6 */",
            "\t /* 0x001FC000FE4007F6 */",
            "\u{a0}/* 0x001fc000fe4007f6 */",
            "  x /* 0x001fc000fe4007f6 */",
            "  /* 0x001fc000fe4007f6 */ ",
            "  /* 0x001fc000fe4007f */",
            "  /* 0x001fc000fe4007fg */",
            "  /* 0x */",
            "",
            "   ",
            "/*0008*/ /* 0x001fc000fe4007f6 */",
        ] {
            let expected = hex_comment(line)
                .filter(|&(col, _, end)| blank(&line[..col]) && end == line.len())
                .map(|(col, word, _)| (col, word));
            assert_eq!(lone_hex(line), expected, "{line:?}");
        }
    }

    #[test]
    fn blank_is_trim_empty() {
        for s in [
            "",
            " ",
            "\t\n\x0b\x0c\r ",
            "  x ",
            "\u{a0}",
            " \u{2003} ",
            "\u{a0}x",
            "\x1c",
        ] {
            assert_eq!(blank(s), s.trim().is_empty(), "{s:?}");
        }
    }

    #[test]
    fn find_short_is_str_find() {
        let hays = [
            "",
            "/",
            "/*",
            "*/",
            "        /*0008*/                   TEX.P R0, R4, 0x0, 2D, 0xf ;   /* 0x1234567890abcdef */",
            "/ /* 0/* 0x/* 0xé/* 0x",
            "é*/é/*",
            "////* 0x0 */",
        ];
        for hay in hays {
            for needle in ["", "/", "/*", "*/", "/* 0x", "é", "x"] {
                assert_eq!(
                    find_short(hay, needle),
                    hay.find(needle),
                    "{hay:?} {needle:?}"
                );
            }
        }
    }
}
