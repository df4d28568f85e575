//! vISA text as IGC 1.0.12504 prints it (research §3; `visa/IsaDisassembly.cpp`):
//!
//! ```text
//! [(<!>P<n>[.any|.all]) ]<mnemonic>[.pixel_null_mask][.cps][.divS].<channels> (<emask>, <size>)  <aoffimmi> [S<i>] <T> <dst> <param>...
//! sample4 ops: one channel letter, one space before the aoffimmi
//! resinfo.<ch> (<emask>, <size>)  <T> <lod> <dst>        sampleinfo.<ch> (<emask>, <size>)  <T> <dst>
//! gather4_typed.<ch> (<emask>, <size>) <T> <u> <v> <r> <lod> <dst>
//! ```
//!
//! Only sampler lines are parsed; every other line of a `.visaasm` file is kept as an opaque
//! item (`.decl` lines are also read for the names they declare).

use crate::error::Error;
use crate::isa::text_out::{push_decimal, push_hex, Matches, TextOut};

use super::inst::{Aoffimmi, Field, FieldPositions, Gap, Layout, Raw, Region, VisaInst};
use super::names::{parse_error, Named, Scope};
use super::tables::{self, ChannelKind, OpDesc};

const CHANNELS: [char; 4] = ['R', 'G', 'B', 'A'];

/// One parsed sampler line.
pub struct ParsedLine {
    pub inst: VisaInst,
    pub layout: Layout,
    /// Byte offsets in the line of each operand, for diagnostics.
    pub positions: FieldPositions,
}

/// A cursor over one line.
struct Line<'a> {
    text: &'a str,
    no: u32,
    pos: usize,
}

impl<'a> Line<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// Skips whitespace, returning what was skipped.
    fn skip_ws(&mut self) -> &'a str {
        let rest = self.rest();
        let n = rest.len() - rest.trim_start().len();
        self.pos += n;
        &rest[..n]
    }

    /// Skips the whitespace that must separate two operands (`expected` is formatted only
    /// for the error).
    fn separator(&mut self, expected: impl std::fmt::Display) -> Result<(), Error> {
        if self.skip_ws().is_empty() || self.at_end() {
            let expected = expected.to_string();
            return Err(self.error(self.pos, self.token_at(self.pos), &expected));
        }
        Ok(())
    }

    /// Whether only a comment or nothing is left.
    fn at_end(&self) -> bool {
        let rest = self.rest();
        rest.is_empty() || rest.starts_with("//")
    }

    /// The next whitespace-delimited word, with its offset.
    fn word(&mut self) -> (usize, &'a str) {
        let start = self.pos;
        let rest = self.rest();
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.pos += len;
        (start, &rest[..len])
    }

    fn token_at(&self, at: usize) -> &'a str {
        let rest = self.text.get(at..).unwrap_or("");
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        &rest[..len]
    }

    fn error(&self, at: usize, token: &str, expected: &str) -> Error {
        parse_error(self.text, self.no, at, token, expected)
    }
}

/// The IGC mnemonic a line starts with, after an optional predicate, if it is a sampler
/// instruction; `None` for every other line.
fn sampler_op(line: &str) -> Option<&'static OpDesc> {
    let mut s = line.trim_start();
    if let Some(after) = s.strip_prefix('(') {
        s = after.get(after.find(')')? + 1..)?.trim_start();
    }
    let end = s
        .find(|c: char| c == '.' || c.is_whitespace())
        .unwrap_or(s.len());
    tables::op_by_name(&s[..end])
}

/// Parses one line. `Ok(None)` when the line is not a sampler instruction.
pub fn parse_line(text: &str, no: u32, scope: &Scope) -> Result<Option<ParsedLine>, Error> {
    let (mut inst, mut positions) = (VisaInst::default(), FieldPositions::default());
    let Some((end, op)) = parse_into(text, no, scope, &mut inst, &mut positions)? else {
        return Ok(None);
    };
    let start = positions.start;
    let indent = &text[..start];
    let written = &text[start..end];
    let rest = &text[end..];
    let after = rest.trim_start();
    let between = &rest[..rest.len() - after.len()];
    // `parse_into` saw a comment or nothing after the instruction.
    let (gap, comment, trailing) = if after.starts_with("//") {
        let comment = after.trim_end();
        let trailing = &after[comment.len()..];
        let aligned = aligned_gap(indent, written);
        let gap = if between.len() == aligned && between.bytes().all(|b| b == b' ') {
            Gap::Aligned
        } else {
            Gap::Exact(between.to_string())
        };
        (gap, Some(comment.to_string()), trailing.to_string())
    } else {
        (Gap::Aligned, None, between.to_string())
    };
    let canonical = is_canonical(written, &inst, op, scope);
    let layout = Layout {
        indent: indent.to_string(),
        written: (!canonical).then(|| (written.to_string(), inst.clone())),
        gap,
        comment,
        trailing,
    };
    Ok(Some(ParsedLine {
        inst,
        layout,
        positions,
    }))
}

/// Parses the sampler instruction of line `text` into `inst` and `positions` (storage
/// reused from line to line: nothing is allocated unless the line is refused): `Ok(None)`
/// when the line is not a sampler instruction, else where the instruction's text ends (it
/// starts at `positions.start`; only whitespace and a `//` comment may follow) and its op.
pub fn parse_into(
    text: &str,
    no: u32,
    scope: &Scope,
    inst: &mut VisaInst,
    positions: &mut FieldPositions,
) -> Result<Option<(usize, &'static OpDesc)>, Error> {
    let Some(op) = sampler_op(text) else {
        return Ok(None);
    };
    let opc = op.opcode_desc();
    let mut l = Line { text, no, pos: 0 };
    l.skip_ws();
    positions.start = l.pos;
    positions.fields.clear();
    let mut params = std::mem::take(&mut inst.params);
    params.clear();
    *inst = VisaInst {
        opcode: op.opcode,
        subop: op.subop,
        modifiers: 0,
        exec_size: 0,
        emask: 0,
        pred: 0,
        channels: 0,
        aoffimmi: None,
        sampler: None,
        surface: 0,
        dst: Raw::default(),
        params,
    };

    if l.rest().starts_with('(') {
        positions.fields.push((Field::Pred, l.pos));
        inst.pred = parse_pred(&mut l, scope, opc.pred, &op.mnemonic)?;
        l.skip_ws();
    }

    // mnemonic[.modifier]*.channels
    positions.fields.push((Field::SubOp, l.pos));
    let (word_at, word) = l.word();
    let Some((head, channels)) = word.rsplit_once('.') else {
        return Err(l.error(l.pos, "", "`.<channels>` after the mnemonic"));
    };
    let mut part_at = word_at + word.find('.').unwrap_or(0) + 1;
    let mut last_bit: Option<u8> = None;
    positions.fields.push((Field::Modifiers, part_at));
    for m in head.split('.').skip(1) {
        let known = tables::modifier_by_name(m).filter(|d| {
            opc.modifiers
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&d.name))
        });
        let Some(d) = known else {
            let expected = if opc.modifiers.is_empty() {
                "the channel mask".to_string()
            } else {
                format!("one of .{} or the channel mask", opc.modifiers.join(" ."))
            };
            return Err(l.error(part_at, m, &expected));
        };
        if last_bit.is_some_and(|b| b >= d.bit) {
            return Err(l.error(
                part_at,
                m,
                &format!("modifiers in the order .{}", opc.modifiers.join(" .")),
            ));
        }
        last_bit = Some(d.bit);
        inst.modifiers |= 1 << d.bit;
        part_at += m.len() + 1;
    }
    positions.fields.push((Field::Channels, part_at));
    let mask = parse_channels(&l, part_at, channels)?;
    inst.channels = match opc.channel {
        ChannelKind::Mask => mask,
        // A mask that is not one channel is left to validation ("sample4-channel").
        ChannelKind::Index if mask.count_ones() == 1 => mask.trailing_zeros() as u8,
        ChannelKind::Index => 0x10 | mask,
    };

    // (emask, size)
    l.separator("`(<emask>, <exec size>)`")?;
    positions.fields.push((Field::Exec, l.pos));
    (inst.emask, inst.exec_size) = parse_exec(&mut l)?;

    if opc.aoffimmi {
        l.separator("the aoffimmi operand")?;
        positions.fields.push((Field::Aoffimmi, l.pos));
        inst.aoffimmi = Some(parse_aoffimmi(&mut l, scope)?);
    }
    if opc.sampler {
        l.separator("a sampler variable")?;
        positions.fields.push((Field::Sampler, l.pos));
        let (at, name) = l.word();
        inst.sampler = Some(match resolve(&l, at, name, scope)? {
            Named::Sampler(i) => i,
            other => return Err(state_swap(&l, at, name, "a sampler", other, &op.mnemonic)),
        });
    }
    l.separator("a surface variable")?;
    positions.fields.push((Field::Surface, l.pos));
    let (at, name) = l.word();
    inst.surface = match resolve(&l, at, name, scope)? {
        Named::Surface(i) => i,
        other => return Err(state_swap(&l, at, name, "a surface", other, &op.mnemonic)),
    };

    if opc.num_params {
        l.separator("the destination raw operand")?;
        positions.fields.push((Field::Dst, l.pos));
        inst.dst = parse_raw(&mut l, scope)?;
        positions.fields.push((Field::NumParams, l.pos));
        loop {
            let before = l.pos;
            if l.skip_ws().is_empty() || l.at_end() {
                l.pos = before;
                break;
            }
            positions
                .fields
                .push((Field::Param(inst.params.len()), l.pos));
            inst.params.push(parse_raw(&mut l, scope)?);
        }
    } else {
        for (i, slot) in op.params.iter().enumerate() {
            l.separator(format_args!("the {slot} raw operand"))?;
            positions.fields.push((Field::Param(i), l.pos));
            inst.params.push(parse_raw(&mut l, scope)?);
        }
        l.separator("the destination raw operand")?;
        positions.fields.push((Field::Dst, l.pos));
        inst.dst = parse_raw(&mut l, scope)?;
    }
    let end = l.pos;
    l.skip_ws();
    if !(l.rest().is_empty() || l.rest().starts_with("//")) {
        return Err(l.error(l.pos, l.token_at(l.pos), "the end of the instruction"));
    }
    Ok(Some((end, op)))
}

/// `(P1)`, `(!P1)`, `(P1.any)`: the predicate field (research §3.1: `!` = bit 15).
fn parse_pred(l: &mut Line, scope: &Scope, allowed: bool, mnemonic: &str) -> Result<u16, Error> {
    let open = l.pos;
    let inner_start = open + 1;
    let close = l
        .rest()
        .find(')')
        .map(|i| open + i)
        .ok_or_else(|| l.error(open, l.token_at(open), "`(<predicate>)`"))?;
    if !allowed {
        return Err(l.error(
            open,
            &l.text[open..=close],
            &format!("{mnemonic} without a predicate (INFO_3D has no predicate field)"),
        ));
    }
    let inner = &l.text[inner_start..close];
    let (negate, body, body_at) = match inner.strip_prefix('!') {
        Some(b) => (true, b, inner_start + 1),
        None => (false, inner, inner_start),
    };
    let (name, control) = match body.split_once('.') {
        Some((n, c)) => (n, Some(c)),
        None => (body, None),
    };
    let controls = &tables::tables().limits.pred_controls;
    let control_code = match control {
        None => 0,
        Some(c) => match controls.iter().position(|k| !k.is_empty() && k == c) {
            Some(i) => i as u16,
            None => {
                return Err(l.error(
                    body_at + name.len() + 1,
                    c,
                    "a predicate control `.any` or `.all`",
                ))
            }
        },
    };
    let id = match resolve(l, body_at, name, scope)? {
        Named::Predicate(id) => id,
        other => {
            return Err(super::names::parse_error(
                l.text,
                l.no,
                body_at,
                name,
                &format!("a predicate, not {}", other.class()),
            ))
        }
    };
    l.pos = close + 1;
    Ok(id | control_code << 13 | if negate { 0x8000 } else { 0 })
}

/// Channel letters R, G, B, A in that order, either case (research §3.1). An empty mask or
/// `0000` is reported by validation ("channel-mask").
fn parse_channels(l: &Line, at: usize, s: &str) -> Result<u8, Error> {
    if s.bytes().all(|b| b == b'0') {
        return Ok(0);
    }
    let mut mask = 0u8;
    for (i, c) in s.char_indices() {
        let bit = CHANNELS
            .iter()
            .position(|k| k.eq_ignore_ascii_case(&c))
            .ok_or_else(|| l.error(at + i, s, "channel letters from R, G, B, A"))?;
        if mask >> bit != 0 {
            return Err(l.error(at + i, s, "channel letters in the order R, G, B, A"));
        }
        mask |= 1 << bit;
    }
    Ok(mask)
}

/// `(M1, 16)`, `(M5_NM, 8)`.
fn parse_exec(l: &mut Line) -> Result<(u8, u8), Error> {
    let limits = &tables::tables().limits;
    let open = l.pos;
    let expected = "`(<emask>, <exec size>)`";
    let rest = l.rest();
    let close = match (rest.starts_with('('), rest.find(')')) {
        (true, Some(c)) => open + c,
        _ => return Err(l.error(open, l.token_at(open), expected)),
    };
    let inner = &l.text[open + 1..close];
    let Some((mask_s, size_s)) = inner.split_once(',') else {
        return Err(l.error(open, &l.text[open..=close], expected));
    };
    let mask_at = open + 1 + (mask_s.len() - mask_s.trim_start().len());
    let mask_name = mask_s.trim();
    let emask = limits
        .emasks
        .iter()
        .position(|m| m.eq_ignore_ascii_case(mask_name))
        .ok_or_else(|| {
            l.error(
                mask_at,
                mask_name,
                "an execution mask M1..M8 or M1_NM..M8_NM",
            )
        })?;
    let size_at = open + 1 + mask_s.len() + 1 + (size_s.len() - size_s.trim_start().len());
    let size_name = size_s.trim();
    let size = size_name
        .parse::<u8>()
        .ok()
        .filter(|s| limits.exec_sizes.contains(s))
        .ok_or_else(|| l.error(size_at, size_name, "an exec size 1, 2, 4, 8, 16 or 32"))?;
    l.pos = close + 1;
    Ok((emask as u8, size))
}

/// The aoffimmi operand: `0x1e3:uw`, an integer immediate of at most 32 bits (hex, decimal,
/// or negative decimal, which GenX_IR also accepts), or a general variable read with a
/// region, `V0061(0,0)<0;1,0>` (what IGC writes for offsets that are not constants).
fn parse_aoffimmi(l: &mut Line, scope: &Scope) -> Result<Aoffimmi, Error> {
    let (at, tok) = l.word();
    let expected = "an integer immediate `0x<hex>:<type>` or a general variable \
                    `<name>(<row>,<col>)<0;1,0>`";
    let Some((value_s, ty_s)) = tok.split_once(':') else {
        return parse_aoffimmi_var(l, at, tok, scope, expected);
    };
    let ty = tables::type_by_name(ty_s)
        .filter(|t| t.is_small_int())
        .ok_or_else(|| {
            l.error(
                at + value_s.len() + 1,
                ty_s,
                "an integer type ud, d, uw, w, ub or b",
            )
        })?;
    let value = if let Some(hex) = value_s
        .strip_prefix("0x")
        .or_else(|| value_s.strip_prefix("0X"))
    {
        u32::from_str_radix(hex, 16).ok()
    } else if let Some(neg) = value_s.strip_prefix('-') {
        neg.parse::<u32>()
            .ok()
            .filter(|n| *n <= 1 << 31)
            .map(|n| n.wrapping_neg())
    } else {
        value_s.parse::<u32>().ok()
    };
    let value = value.ok_or_else(|| l.error(at, value_s, "a 32-bit integer"))?;
    Ok(Aoffimmi::Imm { value, ty: ty.code })
}

/// `<name>(<row>,<col>)<vstride;width,hstride>`: a general variable source operand without
/// source modifier (IGC writes none on an aoffimmi; GenX_IR rejects `-V(0,0)<0;1,0>`).
fn parse_aoffimmi_var(
    l: &Line,
    at: usize,
    tok: &str,
    scope: &Scope,
    expected: &str,
) -> Result<Aoffimmi, Error> {
    let modifier = tok.starts_with(['-', '(', '~']);
    let Some(open) = tok.find('(').filter(|o| *o > 0 && !modifier) else {
        let expected = if modifier {
            "a general variable without source modifier (the aoffimmi takes none)"
        } else {
            expected
        };
        return Err(l.error(at, tok, expected));
    };
    let name = &tok[..open];
    let var = match resolve(l, at, name, scope)? {
        Named::General(v) => v,
        other => {
            return Err(class_error(
                l,
                at,
                name,
                "operand-class",
                format!(
                    "the aoffimmi is a general variable or an immediate; `{name}` is {}",
                    other.class()
                ),
            ))
        }
    };
    let rest = &tok[open + 1..];
    let (place, region_s) = rest
        .split_once(')')
        .ok_or_else(|| l.error(at + open, &tok[open..], "`(<row>,<col>)`"))?;
    let place_at = at + open + 1;
    let (row_s, col_s) = place
        .split_once(',')
        .ok_or_else(|| l.error(place_at, place, "`<row>,<col>`"))?;
    let row = row_s
        .trim()
        .parse::<u8>()
        .map_err(|_| l.error(place_at, row_s, "a GRF row 0..255"))?;
    let col_at = place_at + row_s.len() + 1;
    let col = col_s
        .trim()
        .parse::<u8>()
        .map_err(|_| l.error(col_at, col_s, "an element 0..255"))?;
    let region_at = at + open + 1 + place.len() + 1;
    let region = region_s
        .strip_prefix('<')
        .and_then(|r| r.strip_suffix('>'))
        .and_then(|r| {
            let (v, rest) = r.split_once(';')?;
            let (w, h) = rest.split_once(',')?;
            Region::new(
                v.trim().parse().ok()?,
                w.trim().parse().ok()?,
                h.trim().parse().ok()?,
            )
        })
        .ok_or_else(|| {
            l.error(
                region_at,
                region_s,
                "a source region `<vstride;width,hstride>` of 0, 1, 2, 4, 8, 16, 32",
            )
        })?;
    Ok(Aoffimmi::Var {
        var,
        row,
        col,
        region,
    })
}

/// `V0057.64`, `%null.0`: a general variable and a byte offset.
fn parse_raw(l: &mut Line, scope: &Scope) -> Result<Raw, Error> {
    let (at, tok) = l.word();
    let expected = "a raw operand `<variable>.<byte offset>`";
    let Some((name, off)) = tok.split_once('.') else {
        return Err(l.error(at, tok, expected));
    };
    // IGC's assembler also reads an offset expression: `V32.(64)`, `V32.(2*32+16)`.
    let value = match off.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
        Some(expr) => const_expr(expr),
        None => off
            .parse::<i64>()
            .ok()
            .filter(|_| !off.starts_with(['+', '-'])),
    };
    let offset = value.and_then(|v| u16::try_from(v).ok()).ok_or_else(|| {
        l.error(
            at + name.len() + 1,
            off,
            "a byte offset 0..65535 or an offset expression `(<expr>)`",
        )
    })?;
    match resolve(l, at, name, scope)? {
        Named::General(var) => Ok(Raw { var, offset }),
        other => Err(class_error(
            l,
            at,
            name,
            "operand-class",
            format!(
                "`{name}` is {}, a raw operand needs a general variable",
                other.class()
            ),
        )),
    }
}

/// Resolves `name`, or reports it undeclared.
fn resolve(l: &Line, at: usize, name: &str, scope: &Scope) -> Result<Named, Error> {
    if name.is_empty() {
        return Err(l.error(at, name, "a variable name"));
    }
    scope.resolve(name).ok_or_else(|| {
        let why = if scope.declared() {
            "is not declared"
        } else {
            "is not declared (without .decl lines only V<n>, S<n>, T<n>, P<n> and predefined \
             names are known)"
        };
        class_error(l, at, name, "undeclared", format!("`{name}` {why}"))
    })
}

/// A surface where a sampler is expected or the reverse (GenX_IR assembles that swapped,
/// research §3.1).
fn state_swap(l: &Line, at: usize, name: &str, want: &str, got: Named, mnemonic: &str) -> Error {
    class_error(
        l,
        at,
        name,
        "state-class",
        format!(
            "{mnemonic} expects {want} variable here, `{name}` is {} (sampler and surface swapped?)",
            got.class()
        ),
    )
}

fn class_error(l: &Line, at: usize, _name: &str, rule: &'static str, detail: String) -> Error {
    Error::Validation(crate::error::ValidationError {
        location: crate::error::Location::Text {
            line: l.no,
            column: super::names::column(l.text, at),
        },
        rule,
        detail,
    })
}

/// How many spaces IGC puts between `<indent><instruction>` and its `/// $N` comment:
/// padding to the comment column, then one space.
pub fn aligned_gap(indent: &str, text: &str) -> usize {
    let col = tables::tables().limits.comment_column;
    let used = indent.chars().count() + text.chars().count();
    col.saturating_sub(used) + 1
}

/// The instruction as IGC prints it.
pub fn print_inst(inst: &VisaInst, op: &OpDesc, scope: &Scope) -> String {
    let mut s = String::new();
    write_inst(&mut s, inst, op, scope);
    s
}

/// [`print_inst`], appended to `s`.
pub fn write_inst(s: &mut (impl TextOut + ?Sized), inst: &VisaInst, op: &OpDesc, scope: &Scope) {
    let t = tables::tables();
    let opc = op.opcode_desc();
    let id = inst.pred & 0xfff;
    if id != 0 {
        s.push_ascii(b'(');
        if inst.pred & 0x8000 != 0 {
            s.push_ascii(b'!');
        }
        scope.push_pred_name(s, id);
        let control = usize::from(inst.pred >> 13 & 3);
        if let Some(c) = t
            .limits
            .pred_controls
            .get(control)
            .filter(|c| !c.is_empty())
        {
            s.push_ascii(b'.');
            s.push_text(c);
        }
        s.push_text(") ");
    }
    s.push_text(&op.mnemonic);
    for m in &t.modifiers {
        if inst.has_modifier(m.bit) {
            s.push_ascii(b'.');
            s.push_text(&m.name);
        }
    }
    s.push_ascii(b'.');
    match opc.channel {
        ChannelKind::Mask => {
            for (i, c) in CHANNELS.iter().enumerate() {
                if inst.channels >> i & 1 != 0 {
                    s.push_ascii(*c as u8);
                }
            }
        }
        ChannelKind::Index => {
            let c = CHANNELS.get(usize::from(inst.channels)).unwrap_or(&'?');
            s.push_ascii(*c as u8);
        }
    }
    let emask = t
        .limits
        .emasks
        .get(usize::from(inst.emask))
        .map_or("?", String::as_str);
    s.push_text(" (");
    s.push_text(emask);
    s.push_text(", ");
    push_decimal(s, u64::from(inst.exec_size));
    s.push_ascii(b')');
    if let Some(a) = inst.aoffimmi {
        s.push_text(&opc.aoffimmi_gap);
        match a {
            Aoffimmi::Imm { value, ty } => {
                push_hex(s, u64::from(value));
                s.push_ascii(b':');
                s.push_text(tables::type_by_code(ty).map_or("?", |t| t.name.as_str()));
            }
            Aoffimmi::Var {
                var,
                row,
                col,
                region,
            } => {
                scope.push_var_name(s, var);
                s.push_ascii(b'(');
                push_decimal(s, u64::from(row));
                s.push_ascii(b',');
                push_decimal(s, u64::from(col));
                s.push_ascii(b')');
                region.push_text(s);
            }
        }
    } else {
        s.push_text(&opc.surface_gap);
    }
    if let Some(smp) = inst.sampler {
        s.push_ascii(b' ');
        scope.push_sampler_name(s, smp);
    }
    if inst.aoffimmi.is_some() {
        s.push_ascii(b' ');
    }
    scope.push_surface_name(s, inst.surface);
    if opc.num_params {
        push_raw(s, &inst.dst, scope);
    }
    for p in &inst.params {
        push_raw(s, p, scope);
    }
    if !opc.num_params {
        push_raw(s, &inst.dst, scope);
    }
}

/// ` V0057.64`: a space and a raw operand.
fn push_raw(s: &mut (impl TextOut + ?Sized), r: &Raw, scope: &Scope) {
    s.push_ascii(b' ');
    scope.push_var_name(s, r.var);
    s.push_ascii(b'.');
    push_decimal(s, u64::from(r.offset));
}

/// Whether `text` is what [`print_inst`] prints for the instruction, without printing it.
fn is_canonical(text: &str, inst: &VisaInst, op: &OpDesc, scope: &Scope) -> bool {
    let mut compare = Matches::new(text.as_bytes());
    write_inst(&mut compare, inst, op, scope);
    compare.all()
}

/// A whole line, appended to `out`: the layout around the instruction, or IGC's canonical
/// spacing alone.
pub fn write_line(
    out: &mut String,
    inst: &VisaInst,
    op: &OpDesc,
    layout: Option<&Layout>,
    scope: &Scope,
) {
    let Some(layout) = layout else {
        return write_inst(out, inst, op, scope);
    };
    out.push_str(&layout.indent);
    let start = out.len();
    match &layout.written {
        Some((w, orig)) if orig == inst => out.push_str(w),
        _ => write_inst(out, inst, op, scope),
    }
    if let Some(c) = &layout.comment {
        match &layout.gap {
            Gap::Aligned => {
                let gap = aligned_gap(&layout.indent, &out[start..]);
                out.extend(std::iter::repeat_n(' ', gap));
            }
            Gap::Exact(g) => out.push_str(g),
        }
        out.push_str(c);
    }
    out.push_str(&layout.trailing);
}

/// Whether a line is inside, opens or closes a `/* ... */` comment; tracks the state across
/// lines. Returns the part of the line outside any block comment (only a prefix is kept:
/// text after a comment that closes on the line is checked too).
fn strip_block_comment<'a>(line: &'a str, in_comment: &mut bool) -> &'a str {
    if *in_comment {
        match line.find("*/") {
            Some(end) => {
                *in_comment = false;
                strip_block_comment(&line[end + 2..], in_comment)
            }
            None => "",
        }
    } else if let Some(start) = line
        .trim_start()
        .strip_prefix("/*")
        .map(|r| line.len() - r.len())
    {
        *in_comment = true;
        strip_block_comment(&line[start..], in_comment)
    } else {
        line
    }
}

/// Whether `text` is an instruction of another kind than the sampler's, which
/// [`check_other_line`] accepts as it is: its first word (after the indentation, up to a `.`
/// or a space) is ASCII letters, digits and `_`, starting with a letter, names no sampler op
/// ([`sampler_op`]) and is a mnemonic IGC's assembler reads. A line of this kind is neither a
/// label (its word has no `:`), nor a comment, nor predicated; so the one look-up answers for
/// both. `false` sends a line the long way (also where the indentation is not ASCII).
pub fn is_other_instruction(text: &[u8]) -> bool {
    let body = trim_ascii_indent(text);
    if !body.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let len = body
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(body.len());
    // `char::is_whitespace` on ASCII: what ends a word in `sampler_op` and `check_other_line`.
    let ends = match body.get(len) {
        None | Some(b'.') => true,
        Some(&b) => is_ascii_space(b),
    };
    let word = std::str::from_utf8(&body[..len]).unwrap_or("");
    ends && tables::op_by_name(word).is_none() && tables::is_igc_mnemonic(word)
}

/// Whether [`check_other_line`] accepts line `text` outside a block comment, and the whole
/// path keeps it as it is (an opaque line): blank, a directive (`.decl`, `.kernel`, ...), a
/// `//` comment, or [`is_other_instruction`]. Read from the bytes: `false` sends a line the
/// long way (also where the indentation is not ASCII).
pub fn is_plain_line(text: &[u8]) -> bool {
    match trim_ascii_indent(text) {
        [] | [b'.', ..] | [b'/', b'/', ..] => true,
        _ => is_other_instruction(text),
    }
}

/// `char::is_whitespace` on an ASCII byte: space, and `\t` `\n` `\x0b` `\x0c` `\r`.
pub(super) fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// `text` without the ASCII whitespace it starts with (what `str::trim_start` takes off up to
/// the first byte that is not ASCII).
fn trim_ascii_indent(text: &[u8]) -> &[u8] {
    let n = text.iter().take_while(|b| is_ascii_space(**b)).count();
    &text[n..]
}

/// Checks a line that is not a sampler instruction: blank, a comment, a directive (`.decl`,
/// `.kernel`, ...), a label (`name:`), a brace, or an instruction whose mnemonic IGC's
/// assembler reads (`mappings/visa_mnemonics.toml`). Anything else is a parse error at the
/// unknown word, with the closest mnemonic as a hint. `in_comment` carries the state of a
/// multi-line `/* ... */` comment from line to line.
pub fn check_other_line(text: &str, no: u32, in_comment: &mut bool) -> Result<(), Error> {
    let kept = strip_block_comment(text, in_comment);
    let offset = text.len() - kept.len();
    let body = kept.trim();
    if body.is_empty() || body.starts_with("//") || body.starts_with('.') {
        return Ok(());
    }
    if matches!(body, "{" | "}") {
        return Ok(());
    }
    let mut at = offset + (kept.len() - kept.trim_start().len());
    let mut rest = &text[at..];
    // A label: IGC's lexer rule `^[a-zA-Z_$@?][a-zA-Z0-9_\-$@?]*:`.
    let ident = |c: char| c.is_ascii_alphanumeric() || "_-$@?".contains(c);
    let head_len = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
    if head_len > 0 && rest[head_len..].starts_with(':') {
        let after = rest[head_len + 1..].trim();
        if after.is_empty() || after.starts_with("//") {
            return Ok(());
        }
    }
    // A predicate `(P1)` / `(!P1.any)` before the mnemonic.
    if rest.starts_with('(') {
        if let Some(close) = rest.find(')') {
            let after = &rest[close + 1..];
            at += close + 1 + (after.len() - after.trim_start().len());
            rest = &text[at..];
        }
    }
    let word_len = rest
        .find(|c: char| c.is_whitespace() || c == '.')
        .unwrap_or(rest.len());
    let word = &rest[..word_len];
    if tables::is_mnemonic(word) {
        return Ok(());
    }
    let expected = crate::isa::hint::expected_with_hint(
        "a vISA instruction mnemonic, a directive, a label or a comment",
        word,
        tables::all_mnemonics(),
    );
    Err(parse_error(text, no, at, word, &expected))
}

/// Evaluates an integer constant expression of IGC's assembler (`64`, `0x40`, `2*32+16`,
/// `(a+b)*c`, unary `-`): `None` when it is not one or overflows.
fn const_expr(s: &str) -> Option<i64> {
    fn sum(t: &[u8], i: &mut usize) -> Option<i64> {
        let mut v = product(t, i)?;
        loop {
            skip(t, i);
            match t.get(*i) {
                Some(b'+') => {
                    *i += 1;
                    v = v.checked_add(product(t, i)?)?;
                }
                Some(b'-') => {
                    *i += 1;
                    v = v.checked_sub(product(t, i)?)?;
                }
                _ => return Some(v),
            }
        }
    }
    fn product(t: &[u8], i: &mut usize) -> Option<i64> {
        let mut v = unary(t, i)?;
        loop {
            skip(t, i);
            match t.get(*i) {
                Some(b'*') => {
                    *i += 1;
                    v = v.checked_mul(unary(t, i)?)?;
                }
                Some(b'/') => {
                    *i += 1;
                    v = v.checked_div(unary(t, i)?)?;
                }
                _ => return Some(v),
            }
        }
    }
    fn unary(t: &[u8], i: &mut usize) -> Option<i64> {
        skip(t, i);
        match t.get(*i)? {
            b'-' => {
                *i += 1;
                unary(t, i)?.checked_neg()
            }
            b'(' => {
                *i += 1;
                let v = sum(t, i)?;
                skip(t, i);
                (t.get(*i) == Some(&b')')).then(|| *i += 1)?;
                Some(v)
            }
            _ => {
                let start = *i;
                while t.get(*i).is_some_and(|b| b.is_ascii_alphanumeric()) {
                    *i += 1;
                }
                let lit = std::str::from_utf8(&t[start..*i]).ok()?;
                match lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                    Some(h) => i64::from_str_radix(h, 16).ok(),
                    None => lit.parse().ok(),
                }
            }
        }
    }
    fn skip(t: &[u8], i: &mut usize) {
        while t.get(*i).is_some_and(u8::is_ascii_whitespace) {
            *i += 1;
        }
    }
    let t = s.as_bytes();
    let mut i = 0;
    let v = sum(t, &mut i)?;
    skip(t, &mut i);
    (i == t.len()).then_some(v)
}

#[cfg(test)]
mod expr_tests {
    #[test]
    fn offset_expressions() {
        assert_eq!(super::const_expr("64"), Some(64));
        assert_eq!(super::const_expr("2*32+16"), Some(80));
        assert_eq!(super::const_expr("(1+1)*0x20"), Some(64));
        assert_eq!(super::const_expr("-32+96"), Some(64));
        assert_eq!(super::const_expr("64)"), None);
        assert_eq!(super::const_expr(""), None);
    }
}
