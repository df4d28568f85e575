//! One instruction as nvdisasm prints it (research §6):
//! `[@[!]Pn ]OPC{.MOD} operands`, e.g. `TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA` or
//! `TEX.LL.AOFFI.DC R4, R4, R8, 0x6e, 2D, 0xf`. The modifier order is the table's
//! `modifier_order`; the phase (`.T`/`.P`) comes last.

use super::inst::{comps_code, encode_word, lod_code, query_valid, NvInst, OFFSET_NONE, RZ};
use super::table::{code_of, table, FieldName, Modifier, OpClass};
use crate::error::ParseError;
use crate::hash::FastMap;
use std::sync::OnceLock;

/// The register as printed: `R7`, `RZ`.
pub fn reg_name(r: u8) -> String {
    let mut s = String::new();
    push_reg(&mut s, r);
    s
}

pub use crate::isa::text_out::TextOut;
pub(super) use crate::isa::text_out::{push_decimal, push_hex};

pub(super) fn push_reg(out: &mut (impl TextOut + ?Sized), r: u8) {
    out.push_text(&reg_names()[usize::from(r)][SEP.len()..]);
}

/// What separates two operands.
const SEP: &str = ", ";

/// Every register's name by number (`R0`..`R254`, `RZ`) after an operand separator (`, R7`),
/// printed once: the printer copies a name (with its separator, when it follows another
/// operand) where it would format a number per register.
fn reg_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..=u8::MAX)
            .map(|r| {
                let mut s = String::from(SEP);
                match r {
                    RZ => s.push_str("RZ"),
                    _ => {
                        s.push('R');
                        push_decimal(&mut s, r.into());
                    }
                }
                s
            })
            .collect()
    })
}

/// Appends the guard `guard` prints as (`@P3 `, `@!PT `; nothing for the guard that is always
/// true), copied from [`guard_texts`].
pub(super) fn push_guard(out: &mut (impl TextOut + ?Sized), guard: u8) {
    match guard_texts().get(usize::from(guard)) {
        Some(text) => out.push_text(text),
        None => write_guard(out, guard),
    }
}

/// The text of every guard field value (4 bits), printed once by [`write_guard`].
fn guard_texts() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        (0..16)
            .map(|g| {
                let mut s = String::new();
                write_guard(&mut s, g);
                s
            })
            .collect()
    })
}

/// Appends the guard `guard` prints as, digit by digit.
fn write_guard(out: &mut (impl TextOut + ?Sized), guard: u8) {
    if guard == table().guard_true {
        return;
    }
    out.push_ascii(b'@');
    if guard & 8 != 0 {
        out.push_ascii(b'!');
    }
    match guard & 7 {
        7 => out.push_text("PT"),
        p => {
            out.push_ascii(b'P');
            push_decimal(out, p.into());
        }
    }
    out.push_ascii(b' ');
}

/// The spelling of `inst`'s modifier of class `m`, if it prints one.
#[inline]
fn modifier(d: &'static super::table::Dense, inst: &NvInst, m: Modifier) -> Option<&'static str> {
    let s = match m {
        Modifier::Comp if matches!(inst.op, OpClass::TLD4 | OpClass::TLD4S) => {
            d.comp[usize::from(inst.comp)]
        }
        Modifier::B if inst.bindless => Some("B"),
        Modifier::F16 if inst.f16 => Some("F16"),
        Modifier::Rtz if inst.rtz => Some("RTZ"),
        Modifier::Lod => d.printed_lod[usize::from(inst.lod)],
        Modifier::Fixed => d.fixed[inst.op as usize],
        Modifier::Lc if inst.lc => Some("LC"),
        Modifier::Offset => d.printed_offset_mode[usize::from(inst.offset)],
        Modifier::Dc if inst.dc => Some("DC"),
        Modifier::Ms if inst.ms => Some("MS"),
        Modifier::Cl if inst.cl => Some("CL"),
        Modifier::Ndv if inst.ndv => Some("NDV"),
        Modifier::Nodep if inst.nodep => Some("NODEP"),
        Modifier::Phase => d.phase[usize::from(inst.phase)],
        _ => None,
    };
    s.filter(|s| !s.is_empty())
}

fn has_field(inst: &NvInst, name: FieldName) -> bool {
    inst.form().and_then(|f| f.field(name)).is_some()
}

/// The short-form component spelling (`RGBA`, `R`, ...).
fn comps_spelling(inst: &NvInst) -> &'static str {
    if let Some(code) = inst.invalid_comps {
        return table().dense.printed_comps_quad[usize::from(code)].unwrap_or("");
    }
    let names = &table().dense.comps[usize::from(inst.rd1 != RZ)];
    comps_code(inst.mask, inst.rd1 == RZ)
        .and_then(|c| names[usize::from(c)])
        .unwrap_or("")
}

fn push_query(out: &mut (impl TextOut + ?Sized), code: u8) {
    match table().dense.query[usize::from(code)] {
        Some(name) => out.push_text(name),
        None => push_decimal(out, u64::from(code / 2)),
    }
}

/// Prints one instruction as nvdisasm does (without ` ;`).
pub fn print_inst(inst: &NvInst) -> String {
    let mut s = String::new();
    write_inst(&mut s, inst);
    s
}

/// [`print_inst`], appended to `out` (no allocation but `out`'s own growth).
pub fn write_inst<O: TextOut + ?Sized>(out: &mut O, inst: &NvInst) {
    push_guard(out, inst.guard);
    out.push_text(inst.op.mnemonic());
    write_modifiers(out, inst, &table().modifier_classes);
    out.push_ascii(b' ');
    write_operands(out, inst);
}

/// Appends the modifiers of `inst` of the classes `classes` (in their order), each after
/// a `.`.
pub(super) fn write_modifiers<O: TextOut + ?Sized>(
    out: &mut O,
    inst: &NvInst,
    classes: &[Modifier],
) {
    let d = &table().dense;
    for &m in classes {
        if let Some(m) = modifier(d, inst, m) {
            out.push_ascii(b'.');
            out.push_text(m);
        }
    }
}

/// Appends the phase of `inst` after a `.`, if it prints one: [`write_modifiers`] of the
/// phase class alone.
pub(super) fn push_phase<O: TextOut + ?Sized>(out: &mut O, inst: &NvInst) {
    if let Some(m) = modifier(&table().dense, inst, Modifier::Phase) {
        out.push_ascii(b'.');
        out.push_text(m);
    }
}

/// The operands of `inst` as [`write_inst`] appends them (after the mnemonic's space),
/// separated by `, `.
pub(super) fn write_operands<O: TextOut + ?Sized>(out: &mut O, inst: &NvInst) {
    let t = table();
    let mut ops = Operands { out, first: true };
    if inst.sparse != t.sparse_none {
        ops.sep().push_ascii(b'P');
        push_decimal(ops.out, inst.sparse.into());
    }
    let tid = if inst.bindless { 0 } else { inst.tid.into() };
    let dim = t.dense.dim[usize::from(inst.dim)].unwrap_or("");
    let rb_printed =
        has_field(inst, FieldName::Rb) && (inst.rb != RZ || t.rb_rz_printed.contains(&inst.op));
    match inst.op {
        OpClass::TEXS | OpClass::TLDS | OpClass::TLD4S => {
            ops.regs(&[inst.rd1, inst.rd, inst.ra]);
            if rb_printed {
                ops.regs(&[inst.rb]);
            }
            push_hex(ops.sep(), tid);
            if inst.op != OpClass::TLD4S {
                ops.sep().push_text(dim);
                ops.sep().push_text(comps_spelling(inst));
            }
        }
        OpClass::TXQ => {
            ops.regs(&[inst.rd, inst.ra]);
            push_query(ops.sep(), inst.query);
            push_hex(ops.sep(), tid);
            push_hex(ops.sep(), inst.mask.into());
        }
        _ => {
            ops.regs(&[inst.rd, inst.ra]);
            if rb_printed {
                ops.regs(&[inst.rb]);
            }
            push_hex(ops.sep(), tid);
            ops.sep().push_text(dim);
            push_hex(ops.sep(), inst.mask.into());
        }
    }
}

/// An instruction's operands as [`write_inst`] appends them to `out`.
struct Operands<'o, O: ?Sized> {
    out: &'o mut O,
    first: bool,
}

impl<O: TextOut + ?Sized> Operands<'_, O> {
    /// `out`, after the separator of the next operand (none before the first).
    fn sep(&mut self) -> &mut O {
        if !std::mem::take(&mut self.first) {
            self.out.push_text(SEP);
        }
        self.out
    }

    fn regs(&mut self, regs: &[u8]) {
        for &r in regs {
            // The name with its separator, in one piece.
            let name = &reg_names()[usize::from(r)];
            let first = std::mem::take(&mut self.first);
            self.out
                .push_text(if first { &name[SEP.len()..] } else { name });
        }
    }
}

/// Whether `text` (one instruction, guard allowed) names a texture instruction texlate reads.
pub fn is_texture_text(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let mut first = words.next().unwrap_or("");
    if first.starts_with('@') {
        first = words.next().unwrap_or("");
    }
    let base = first.split('.').next().unwrap_or("");
    OpClass::from_mnemonic(base).is_some()
}

/// The phase an instruction's text spells: its mnemonic's last modifier when that is a
/// phase name (`TEXS.LZ.P` → 2), else 0. What the text holds for the phase, not whether
/// the text parses (the mnemonic ends at the first space, after a guard's).
pub(super) fn printed_phase(text: &[u8]) -> u8 {
    let b = text;
    // Mnemonics are short: a loop, not `memchr`'s set-up.
    let space = |from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b' ')
            .map_or(b.len(), |k| from + k)
    };
    let end = match b.first() {
        Some(b'@') => space(space(0).saturating_add(1).min(b.len())),
        _ => space(0),
    };
    // Its last modifier (a phase name holds no `.`).
    let mnemonic = &b[..end];
    let Some(dot) = mnemonic.iter().rposition(|&c| c == b'.') else {
        return 0;
    };
    let last = &mnemonic[dot + 1..];
    table()
        .control
        .phase_names
        .iter()
        .find(|(_, name)| !name.is_empty() && name.as_bytes() == last)
        .map_or(0, |(&code, _)| code)
}

/// What a modifier spelling is in the table: the codes it spells in each value table a
/// modifier reads (the first code, as [`code_of`] finds it) and its class's rank in
/// `modifier_order` (0 when it names none).
#[derive(Clone, Copy, Default)]
struct Spelling {
    invalid: bool,
    comp: Option<u8>,
    lod: bool,
    offset: Option<u8>,
    phase: Option<u8>,
    rank: usize,
}

/// The [`Spelling`] of `m`: every spelling of the tables looked up once, as parsing reads
/// each modifier of every instruction.
fn spelling(m: &str) -> Spelling {
    static SPELLINGS: OnceLock<FastMap<&'static str, Spelling>> = OnceLock::new();
    let map = SPELLINGS.get_or_init(|| {
        let t = table();
        let mut map: FastMap<&'static str, Spelling> = FastMap::default();
        let mut each = |values: &'static super::table::ValueTable,
                        set: &dyn Fn(&mut Spelling, u8)| {
            // Codes in order: the first one spelled so wins, as `code_of` finds it.
            for (&code, v) in values.iter().rev() {
                set(map.entry(v.as_str()).or_default(), code);
            }
        };
        for v in [
            &t.invalid.lod,
            &t.invalid.offset_mode,
            &t.invalid.comps_quad,
        ] {
            each(v, &|s, _| s.invalid = true);
        }
        each(&t.comp, &|s, c| s.comp = Some(c));
        each(&t.lod, &|s, _| s.lod = true);
        each(&t.offset_mode, &|s, c| s.offset = Some(c));
        each(&t.control.phase_names, &|s, c| s.phase = Some(c));
        for (rank, class) in t.modifier_order.iter().enumerate().rev() {
            map.entry(class.as_str()).or_default().rank = rank;
        }
        map
    });
    map.get(m).copied().unwrap_or_default()
}

/// A token of the instruction text with its 1-based column.
struct Tok<'a> {
    text: &'a str,
    column: u32,
}

/// Parses one instruction (`text` holds no ` ;` and no listing decoration). `line` and
/// `column0` (1-based column of `text`'s first byte) place errors.
pub fn parse_inst(text: &str, line: u32, column0: u32) -> Result<NvInst, ParseError> {
    parse_inst_word(text, line, column0).map(|(inst, _)| inst)
}

/// [`parse_inst`] and the instruction's word (without unprinted bits).
pub(super) fn parse_inst_word<'t>(
    text: &'t str,
    line: u32,
    column0: u32,
) -> Result<(NvInst, u64), ParseError> {
    let err = |tok: &Tok, expected: &str| ParseError {
        line,
        column: tok.column,
        token: tok.text.to_string(),
        expected: expected.to_string(),
    };
    let col_of = |sub: &str| {
        let byte = (sub.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        column0.saturating_add(u32::try_from(byte).unwrap_or(u32::MAX))
    };
    let tok = |sub: &'t str| Tok {
        text: sub,
        column: col_of(sub),
    };
    let t = table();
    let body = text.trim_start();
    let (guard_tok, rest) = match body.strip_prefix('@') {
        Some(_) => {
            let end = body.find(char::is_whitespace).unwrap_or(body.len());
            (Some(&body[..end]), body[end..].trim_start())
        }
        None => (None, body),
    };
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let mnemonic = &rest[..end];
    let operand_text = &rest[end..];
    let mut parts = mnemonic.split('.');
    let base = parts.next().unwrap_or("");
    let op = OpClass::from_mnemonic(base)
        .ok_or_else(|| err(&tok(base), "a texture instruction (TEX, TEXS, TLD, ...)"))?;
    let mut inst = NvInst::new(op, false);
    if let Some(g) = guard_tok {
        inst.guard = parse_guard(g).ok_or_else(|| err(&tok(g), "a guard @P0..@P6, @PT, @!Pn"))?;
    }
    // Modifiers, in print order.
    let mut last_class: Option<usize> = None;
    let mut first_mod = true;
    let mut lod_spelled = "";
    let mut fixed_seen = false;
    for m in parts {
        let mt = tok(m);
        let sp = spelling(m);
        if sp.invalid {
            return Err(err(
                &mt,
                &format!(
                    "a modifier of {} (`{m}` is a reserved value nvdisasm prints: `disasm` \
                     prints it, the hardware cannot run it)",
                    op.mnemonic()
                ),
            ));
        }
        let class = if m == "F16" && op.is_short() {
            inst.f16 = true;
            "F16"
        } else if m == "RTZ" && inst.f16 {
            inst.rtz = true;
            "RTZ"
        } else if first_mod && matches!(op, OpClass::TLD4 | OpClass::TLD4S) {
            let c = sp
                .comp
                .ok_or_else(|| err(&mt, "the gather component R, G, B or A"))?;
            inst.comp = c;
            "comp"
        } else if m == "B" {
            inst.bindless = true;
            "B"
        } else if !m.is_empty() && sp.lod {
            lod_spelled = m;
            "lod"
        } else if t.fixed.get(&op).is_some_and(|f| f == m) {
            fixed_seen = true;
            "fixed"
        } else if let (Some(c), false) = (sp.offset, m.is_empty()) {
            inst.offset = c;
            "offset"
        } else if let (Some(c), false) = (sp.phase, m.is_empty()) {
            inst.phase = c;
            "phase"
        } else {
            let flag = match m {
                "LC" => &mut inst.lc,
                "DC" => &mut inst.dc,
                "MS" => &mut inst.ms,
                "CL" => &mut inst.cl,
                "NDV" => &mut inst.ndv,
                "NODEP" => &mut inst.nodep,
                _ => return Err(err(&mt, &format!("a modifier of {}", op.mnemonic()))),
            };
            *flag = true;
            m
        };
        first_mod &= matches!(class, "F16" | "RTZ");
        let rank = spelling(class).rank;
        if last_class.is_some_and(|l| l >= rank) {
            return Err(err(&mt, "modifiers in nvdisasm's order, each once"));
        }
        last_class = Some(rank);
    }
    if matches!(op, OpClass::TLD4 | OpClass::TLD4S) && first_mod {
        return Err(err(&tok(mnemonic), "a gather component (.R, .G, .B, .A)"));
    }
    if let Some(f) = t.fixed.get(&op) {
        if !fixed_seen {
            return Err(err(&tok(mnemonic), &format!("{}.{f}", op.mnemonic())));
        }
    }
    inst.lod = lod_code(lod_spelled);
    if op == OpClass::TLD && lod_spelled.is_empty() {
        return Err(err(&tok(mnemonic), "TLD.LZ or TLD.LL"));
    }
    // Operands.
    // Every operand is checked to be there before any is read.
    let pieces = || {
        let none = operand_text.trim().is_empty();
        operand_text.split(',').filter(move |_| !none)
    };
    if let Some(piece) = pieces().find(|p| p.trim().is_empty()) {
        let at = if piece.is_empty() {
            piece
        } else {
            &piece[piece.len()..]
        };
        return Err(err(&tok(at), "an operand"));
    }
    let ops = pieces().map(|p| tok(p.trim()));
    let end_tok = Tok {
        text: "",
        column: col_of(&text[text.len()..]),
    };
    let mut it = ops;
    let mut next = |what: &str| it.next().ok_or_else(|| err(&end_tok, what));
    // Sparse predicate destination.
    let mut first = next("operands")?;
    {
        if let Some(p) = first.text.strip_prefix('P') {
            let n: u8 = p
                .parse()
                .ok()
                .filter(|n| *n < t.sparse_none)
                .ok_or_else(|| err(&first, "a sparse predicate P0..P6"))?;
            if !has_field(&inst, FieldName::Sparse) {
                return Err(err(&first, "a register (no sparse predicate here)"));
            }
            inst.sparse = n;
            first = next("a destination register")?;
        }
    }
    let reg = |tk: &Tok| parse_reg(tk.text).ok_or_else(|| err(tk, "a register R0..R254 or RZ"));
    match op {
        OpClass::TEXS | OpClass::TLDS | OpClass::TLD4S => {
            inst.rd1 = reg(&first)?;
            inst.rd = reg(&next("Rd0")?)?;
            inst.ra = reg(&next("Ra")?)?;
            let after = next("Rb or tid")?;
            let tid_tok = if op == OpClass::TLD4S {
                inst.rb = reg(&after)?;
                next("tid")?
            } else if let Some(r) = parse_reg(after.text) {
                inst.rb = r;
                next("tid")?
            } else {
                after
            };
            inst.tid = parse_tid(&tid_tok, inst.bindless).map_err(|e| err(&tid_tok, e))?;
            if op != OpClass::TLD4S {
                let d = next("a dimension")?;
                inst.dim = t
                    .dim_code(d.text)
                    .ok_or_else(|| err(&d, "a dimension (2D, ...)"))?;
                let c = next("components (RGBA, ...)")?;
                let names = if inst.rd1 == RZ {
                    &t.comps_pair
                } else {
                    &t.comps_quad
                };
                let code = code_of(names, c.text).ok_or_else(|| {
                    err(
                        &c,
                        if t.invalid.contains(c.text) {
                            "three or four components (RGB, RGA, RBA, GBA, RGBA): the code \
                             nvdisasm prints as INVALID5..7 is reserved (`disasm` prints it, \
                             the hardware cannot run it)"
                        } else if inst.rd1 == RZ {
                            "one or two components (R, G, B, A, RG, RA, GA, BA) when Rd1 is RZ"
                        } else {
                            "three or four components (RGB, RGA, RBA, GBA, RGBA)"
                        },
                    )
                })?;
                inst.mask = super::inst::comps_mask(&names[&code]);
            }
        }
        OpClass::TXQ => {
            inst.rd = reg(&first)?;
            inst.ra = reg(&next("Ra")?)?;
            let q = next("a query")?;
            inst.query = parse_query(q.text).ok_or_else(|| err(&q, "a TXQ query"))?;
            let tid_tok = next("tid")?;
            inst.tid = parse_tid(&tid_tok, inst.bindless).map_err(|e| err(&tid_tok, e))?;
            let m = next("a write mask")?;
            inst.mask = parse_mask(m.text).ok_or_else(|| err(&m, "a write mask 0x0..0xf"))?;
        }
        _ => {
            inst.rd = reg(&first)?;
            inst.ra = reg(&next("Ra")?)?;
            let after = next("Rb or tid")?;
            let tid_tok = match parse_reg(after.text) {
                Some(r) if has_field(&inst, FieldName::Rb) => {
                    inst.rb = r;
                    next("tid")?
                }
                Some(_) => return Err(err(&after, "tid (this form has no Rb)")),
                None => after,
            };
            inst.tid = parse_tid(&tid_tok, inst.bindless).map_err(|e| err(&tid_tok, e))?;
            let d = next("a dimension")?;
            inst.dim = t
                .dim_code(d.text)
                .ok_or_else(|| err(&d, "a dimension (2D, ...)"))?;
            let m = next("a write mask")?;
            inst.mask = parse_mask(m.text).ok_or_else(|| err(&m, "a write mask 0x0..0xf"))?;
        }
    }
    if let Some(extra) = it.next() {
        return Err(err(&extra, "the end of the instruction"));
    }
    if inst.offset != OFFSET_NONE && op == OpClass::TXQ {
        return Err(err(&tok(mnemonic), "no offset modifier on TXQ"));
    }
    let word = encode_word(&inst).map_err(|e| err(&tok(mnemonic), &e.to_string()))?;
    Ok((inst, word))
}

fn parse_guard(g: &str) -> Option<u8> {
    let g = g.strip_prefix('@')?;
    let (neg, p) = match g.strip_prefix('!') {
        Some(p) => (8, p),
        None => (0, g),
    };
    let p = p.strip_prefix('P')?;
    let n = if p == "T" {
        7
    } else {
        p.parse::<u8>().ok().filter(|n| *n < 7)?
    };
    // `@PT` is the absent guard and is never printed; accept it as that.
    Some(n | neg)
}

/// `R0`..`R254` or `RZ`.
pub fn parse_reg(s: &str) -> Option<u8> {
    if s == "RZ" {
        return Some(RZ);
    }
    let n = s.strip_prefix('R')?;
    if n.is_empty() || n.len() > 3 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse::<u16>().ok().filter(|n| *n < 255).map(|n| n as u8)
}

fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x")?;
    if h.is_empty() || h.len() > 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

fn parse_mask(s: &str) -> Option<u8> {
    parse_hex(s).filter(|m| *m <= 0xf).map(|m| m as u8)
}

fn parse_tid(tk: &Tok, bindless: bool) -> Result<u16, &'static str> {
    let v = parse_hex(tk.text).ok_or("a texture index 0x0..0x1fff")?;
    if bindless {
        return if v == 0 {
            Ok(0)
        } else {
            Err("0x0 (bindless forms print no texture index)")
        };
    }
    if v > 0x1fff {
        return Err("a texture index 0x0..0x1fff");
    }
    Ok(v as u16)
}

fn parse_query(s: &str) -> Option<u8> {
    if let Some(c) = code_of(&table().query, s) {
        return Some(c);
    }
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let code = s.parse::<u8>().ok()?.checked_mul(2)?;
    (query_valid(code) && !table().query.contains_key(&code)).then_some(code)
}

#[cfg(test)]
mod tests {
    use super::{parse_inst, printed_phase};
    use crate::isa::nvidia::table::table;

    /// `printed_phase` reads the phase parsing reads from a mnemonic whose last modifier is
    /// a phase name (which holds no `.`), and 0 from one without.
    #[test]
    fn printed_phase_is_the_parsed_phase() {
        let names = &table().control.phase_names;
        assert!(names.values().all(|n| !n.contains('.')), "{names:?}");
        for text in [
            "TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA",
            "@!P3 TEXS.LZ.T R6, R4, R4, R5, 0x6e, 2D, RGBA",
            "TEX.LL.AOFFI.DC R4, R4, R8, 0x6e, 2D, 0xf",
            "@P1 TLD.LZ.P R0, R2, R4, 0x1, 2D, 0xf",
            "TLD4.R.T R0, R2, R4, 0x1, 2D, 0xf",
            "TXQ.P R0, R2, TEX_HEADER_DIMENSION, 0x0, 0x1",
        ] {
            let parsed = parse_inst(text, 1, 1).expect("parses");
            assert_eq!(printed_phase(text.as_bytes()), parsed.phase, "{text}");
        }
        assert_eq!(printed_phase(b"@P1"), 0);
        assert_eq!(printed_phase(b""), 0);
        assert_eq!(printed_phase(b"TEX.P.X R0"), 0);
    }
}
