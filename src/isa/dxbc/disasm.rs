//! Instructions printed in fxc's listing syntax (`fxc /Fc`), the spelling observed in the
//! 438 listings of shared/corpus/dxbc/asm (research/dxbc.md §8):
//!
//! - `op[_aoffimmi][_indexable](u,v,w)(dim)(types)[_uint] dst, src, ...`; `_sat` after the
//!   mnemonic; `_nz`/`_z` on conditional operations;
//! - `r0.xyzw` (mask or four-letter swizzle), `v1.x` (select one), `l(0.000000)`,
//!   `cb0[r1.x + 3].xyzw`, SM5.1 ranges `T0[0]`, `CB0[0][1]`, declarations `T0[0:0], space=0`;
//! - an instruction without operands is followed by one space (`ret `).
//!
//! Every function appends to one output `String` (no `String` per operand or number), so
//! the whole-program printer and the streaming path (the DXBC codec's `stream` module) print
//! through the same code at the same cost.

use std::fmt::Write as _;

use super::tables::{find_name, tables, Layout, Tables};
use super::tokens::{
    Index, Instruction, Operand, OPERAND_IMM32, OPERAND_IMM64, OP_CUSTOMDATA, SEL_MASK,
    SEL_SELECT1, SEL_SWIZZLE,
};
use crate::isa::text_out::{push_decimal, push_hex_digits, push_signed};

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// `customdata` class of an immediate constant buffer.
const CUSTOMDATA_ICB: u32 = 3;
/// The largest magnitude fxc prints as a decimal integer; larger values print as
/// `0x%08x` (corpus listings: 8192 decimal, 0x00002720 = 10016 hex).
const DECIMAL_LIMIT: i32 = 10000;

/// How the immediates of an operand print: by the operand's data type in the opcode table.
fn imm_kind(t: &Tables, instr: &Instruction, operand: usize) -> u8 {
    let Some(info) = t.op(instr.opcode) else {
        return b'*';
    };
    let types = info.dst_types.iter().chain(&info.src_types);
    types.copied().nth(operand).unwrap_or(b'*')
}

/// `%f`, as fxc 10.1 prints floats (`l(0.032258)`, corpus listings).
pub fn push_float(out: &mut String, bits: u32) {
    push_f64(out, f64::from(f32::from_bits(bits)));
}

/// `%f` of a double (`d(1.000000)`).
fn push_f64(out: &mut String, value: f64) {
    let _ = write!(out, "{value:.6}");
}

/// An integer immediate: decimal within ±10000, `0x%08x` beyond.
pub fn push_integer(out: &mut String, bits: u32) {
    let v = bits as i32;
    if (-DECIMAL_LIMIT..=DECIMAL_LIMIT).contains(&v) {
        push_signed(out, v.into());
    } else {
        out.push_str("0x");
        push_hex_digits(out, bits.into(), 8);
    }
}

/// An untyped immediate (`mov`, `movc`, immediate constant buffers): a float when its bits
/// are a normal float or -0.0, an integer otherwise (`l(0,0,0,1.000000)`, `l(-0.000000)`
/// in the corpus).
pub fn push_untyped(out: &mut String, bits: u32) {
    let exponent = (bits >> 23) & 0xff;
    if bits != 0x8000_0000 && (exponent == 0 || exponent == 0xff) {
        push_integer(out, bits)
    } else {
        push_float(out, bits)
    }
}

fn immediate(out: &mut String, op: &Operand, kind: u8) {
    if op.ty == OPERAND_IMM64 {
        out.push_str("d(");
        for (i, p) in op.imm.chunks(2).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let bits = u64::from(p[0]) | u64::from(*p.get(1).unwrap_or(&0)) << 32;
            push_f64(out, f64::from_bits(bits));
        }
        out.push(')');
        return;
    }
    let sep = if kind == b'*' { "," } else { ", " };
    out.push_str("l(");
    for (i, b) in op.imm.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match kind {
            b'f' | b'd' => push_float(out, *b),
            b'i' | b'u' => push_integer(out, *b),
            _ => push_untyped(out, *b),
        }
    }
    out.push(')');
}

/// Whether an operand uses SM5.1 range syntax (`T0[0]`, `CB0[0][1]`): resources, samplers
/// and UAVs with two indices, constant buffers with three.
fn is_range(t: &Tables, op: &Operand) -> bool {
    let has_range_prefix = t.register_type(op.ty).is_some_and(|r| !r.4.is_empty());
    has_range_prefix && (op.indices.len() >= 3 || (op.ty != 8 && op.indices.len() == 2))
}

/// Whether `op`'s first index is printed in brackets: `icb`, a 2D-indexed input (a geometry
/// or hull shader's per-vertex inputs) and an input control point (`vicp`).
fn brackets_first_index(op: &Operand) -> bool {
    const INPUT: u8 = 1;
    const IMMEDIATE_CONSTANT_BUFFER: u8 = 9;
    const INPUT_CONTROL_POINT: u8 = 25;
    match op.ty {
        IMMEDIATE_CONSTANT_BUFFER | INPUT_CONTROL_POINT => true,
        INPUT => op.indices.len() >= 2,
        _ => false,
    }
}

fn index(out: &mut String, t: &Tables, idx: &Index) {
    if let Some(rel) = &idx.rel {
        // fxc prints a purely relative index with `+ 0` too (`x0[r0.x + 0]`).
        operand(out, t, rel, b'i');
        out.push_str(" + ");
    }
    push_decimal(out, idx.imm);
}

/// The register part of an operand (no modifiers), with `range` printing SM5.1 declaration
/// ranges `T0[lower:upper]`.
fn register(out: &mut String, t: &Tables, op: &Operand, range: bool) {
    let row = t.register_type(op.ty);
    let sm51 = is_range(t, op);
    match row {
        Some(r) if sm51 => out.push_str(&r.4),
        Some(r) => out.push_str(&r.1),
        None => {
            out.push_str("reg");
            push_decimal(out, op.ty.into());
            out.push('_');
        }
    }
    let mut rest = op.indices.iter();
    // icb[...] brackets its only index, and so do the control points of a vertex array (a
    // geometry or hull shader's `v[3][0]`, `vicp[2][1]`: the vertex, then the register, as
    // vkd3d-shader prints them); every other register glues an immediate first index to its
    // name (r0, cb0[3], x1[r0.x + 2]).
    if !brackets_first_index(op) {
        if let Some(first) = op.indices.first() {
            if first.rel.is_none() {
                push_decimal(out, first.imm);
                rest.next();
            }
        }
    }
    if range && sm51 {
        out.push('[');
        if let Some(lower) = op.indices.get(1) {
            index(out, t, lower);
        }
        out.push(':');
        match op.indices.get(2) {
            Some(i) if i.rel.is_none() && i.imm == u64::from(u32::MAX) => out.push('*'),
            Some(i) => index(out, t, i),
            None => {}
        }
        out.push(']');
        return;
    }
    for idx in rest {
        out.push('[');
        index(out, t, idx);
        out.push(']');
    }
}

fn components(out: &mut String, op: &Operand) {
    if op.num_components != 2 {
        return;
    }
    match op.selection {
        SEL_MASK if op.comp & 0xf != 0 => {
            out.push('.');
            for (c, letter) in XYZW.iter().enumerate() {
                if op.comp & (1 << c) != 0 {
                    out.push(*letter);
                }
            }
        }
        SEL_SWIZZLE => {
            out.push('.');
            for c in op.swizzle() {
                out.push(XYZW[usize::from(c)]);
            }
        }
        SEL_SELECT1 => {
            out.push('.');
            out.push(XYZW[usize::from(op.comp & 3)]);
        }
        _ => {}
    }
}

/// One operand; `kind` is the operand's data type (how its immediates print).
pub fn operand(out: &mut String, t: &Tables, op: &Operand, kind: u8) {
    let modifier = op.modifier();
    let (before, after) = match modifier {
        1 => ("-", ""),
        2 => ("|", "|"),
        3 => ("-|", "|"),
        _ => ("", ""),
    };
    out.push_str(before);
    if op.ty == OPERAND_IMM32 || op.ty == OPERAND_IMM64 {
        immediate(out, op, kind);
    } else {
        register(out, t, op, false);
        components(out, op);
    }
    out.push_str(after);
}

fn return_types(out: &mut String, t: &Tables, types: [u8; 4]) {
    out.push('(');
    for (i, c) in types.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match t.return_type(*c) {
            Some(name) => out.push_str(name),
            None => {
                out.push_str("type");
                push_decimal(out, (*c).into());
            }
        }
    }
    out.push(')');
}

fn name_or_code<C: PartialEq + Copy + Into<u64>>(out: &mut String, rows: &[(C, String)], code: C) {
    match find_name(rows, code) {
        Some(name) => out.push_str(name),
        None => push_decimal(out, code.into()),
    }
}

/// A resource dimension's name (`texture2d`), or `dim<code>` for a code the table lacks.
fn dim_name(out: &mut String, t: &Tables, code: u8) {
    match t.dim(code) {
        Some(d) => out.push_str(&d.name),
        None => {
            out.push_str("dim");
            push_decimal(out, code.into());
        }
    }
}

/// The mnemonic with every suffix and parenthesised group.
fn mnemonic(out: &mut String, t: &Tables, instr: &Instruction, name: &str) {
    out.push_str(name);
    if instr.opcode == t.codes.sync {
        for (bit, flag) in [(3, "_uglobal"), (2, "_ugroup"), (1, "_g"), (0, "_t")] {
            if instr.controls & (1 << bit) != 0 {
                out.push_str(flag);
            }
        }
        return;
    }
    if t.codes.conditional.contains(&instr.opcode) {
        out.push_str(if instr.controls & 0x80 != 0 {
            "_nz"
        } else {
            "_z"
        });
    }
    if instr.saturate() {
        out.push_str("_sat");
    }
    let offsets = instr.aoffimmi();
    let dim = instr.resource_dim();
    if offsets.is_some() {
        out.push_str("_aoffimmi");
    }
    if dim.is_some() {
        out.push_str("_indexable");
    }
    if let Some(offsets) = offsets {
        for (i, o) in offsets.iter().enumerate() {
            out.push(if i == 0 { '(' } else { ',' });
            push_signed(out, (*o).into());
        }
        out.push(')');
    }
    if let Some((code, stride)) = dim {
        out.push('(');
        dim_name(out, t, code);
        if code == 12 {
            out.push_str(", stride=");
            push_decimal(out, stride.into());
        }
        out.push(')');
    }
    if let Some(types) = instr.return_types() {
        return_types(out, t, types);
    }
    if instr.opcode == t.codes.resinfo {
        out.push_str(match instr.controls & 3 {
            1 => "_rcpfloat",
            2 => "_uint",
            _ => "",
        });
    } else if instr.opcode == t.codes.sampleinfo && instr.controls & 1 != 0 {
        out.push_str("_uint");
    }
}

/// `, space=N` of an SM5.1 declaration (the word after the declaration's own words).
fn space(out: &mut String, words: &[u32], at: usize) {
    if let Some(s) = words.get(at) {
        out.push_str(", space=");
        push_decimal(out, (*s).into());
    }
}

/// A declaration's word `at` in decimal, `?` when it has none.
fn word(out: &mut String, words: &[u32], at: usize) {
    match words.get(at) {
        Some(w) => push_decimal(out, (*w).into()),
        None => out.push('?'),
    }
}

/// Operand `i` of a declaration: samplers, resources, constant buffers, UAVs and shared
/// memory name the register without components; input/output declarations carry their
/// mask.
fn decl_reg(out: &mut String, t: &Tables, instr: &Instruction, i: usize) {
    if let Some(o) = instr.operands.get(i) {
        register(out, t, o, true);
        if !matches!(o.ty, 6 | 7 | 8 | 30 | 31) {
            components(out, o);
        }
    }
}

/// A declaration, or `false` (nothing written) for an ordinary instruction.
fn declaration(out: &mut String, t: &Tables, instr: &Instruction, name: &str) -> bool {
    let f = &t.file;
    let w = &instr.words;
    let c = instr.controls;
    let sysval = |out: &mut String, at: usize| {
        if let Some(v) = w.get(at) {
            name_or_code(out, &f.system_values, *v);
        }
    };
    let interp = |out: &mut String| {
        if let Some(n) = find_name(&f.interpolation_modes, (c & 0xf) as u8) {
            out.push_str(n);
            out.push(' ');
        }
    };
    let ret = |out: &mut String, at: usize| {
        if let Some(r) = w.get(at) {
            return_types(out, t, [0, 1, 2, 3].map(|i| ((r >> (4 * i)) & 0xf) as u8));
        }
    };
    let reg = |out: &mut String, i: usize| decl_reg(out, t, instr, i);
    let named = |out: &mut String| {
        out.push_str(name);
        out.push(' ');
    };
    match instr.opcode {
        88 => {
            let code = (c & 0x1f) as u8;
            out.push_str("dcl_resource_");
            dim_name(out, t, code);
            if t.dim(code).is_some_and(|d| d.ms) {
                out.push('(');
                push_decimal(out, ((c >> 5) & 0x7f).into());
                out.push(')');
            }
            out.push(' ');
            ret(out, 0);
            out.push(' ');
            reg(out, 0);
            space(out, w, 1);
        }
        89 => {
            let access = if c & 1 != 0 {
                "dynamicIndexed"
            } else {
                "immediateIndexed"
            };
            named(out);
            reg(out, 0);
            if let Some(size) = w.first() {
                out.push('[');
                push_decimal(out, (*size).into());
                out.push(']');
            }
            out.push_str(", ");
            out.push_str(access);
            space(out, w, 1);
        }
        90 => {
            named(out);
            reg(out, 0);
            out.push_str(", ");
            name_or_code(out, &f.sampler_modes, (c & 0xf) as u8);
            space(out, w, 0);
        }
        91 => {
            named(out);
            reg(out, 0);
            out.push(' ');
            word(out, w, 0);
        }
        92 => {
            named(out);
            name_or_code(out, &f.output_topologies, (c & 0x3f) as u8);
        }
        93 => {
            named(out);
            let code = (c & 0x3f) as u8;
            match find_name(&f.input_primitives, code) {
                Some(n) => out.push_str(n),
                None => {
                    out.push_str("patch");
                    push_decimal(out, code.saturating_sub(7).into());
                }
            }
        }
        94 | 104 | 153 | 154 | 206 => {
            named(out);
            word(out, w, 0);
        }
        95 | 101 | 143 => {
            named(out);
            reg(out, 0);
        }
        96 | 97 | 102 | 103 => {
            named(out);
            reg(out, 0);
            out.push_str(", ");
            sysval(out, 0);
        }
        98 => {
            named(out);
            interp(out);
            reg(out, 0);
        }
        99 | 100 => {
            named(out);
            interp(out);
            reg(out, 0);
            out.push_str(", ");
            sysval(out, 0);
        }
        105 => {
            named(out);
            out.push('x');
            word(out, w, 0);
            out.push('[');
            word(out, w, 1);
            out.push_str("], ");
            word(out, w, 2);
        }
        106 => {
            named(out);
            let set = f.global_flags.iter().enumerate();
            for (k, (_, n)) in set.filter(|(i, _)| c & (1 << i) != 0).enumerate() {
                if k > 0 {
                    out.push_str(" | ");
                }
                out.push_str(n);
            }
        }
        144 => {
            named(out);
            out.push_str("fb");
            word(out, w, 0);
        }
        147 | 148 => {
            named(out);
            push_decimal(out, (c & 0x3f).into());
        }
        149 => {
            named(out);
            name_or_code(out, &f.tessellator_domains, (c & 3) as u8);
        }
        150 => {
            named(out);
            name_or_code(out, &f.tessellator_partitionings, (c & 7) as u8);
        }
        151 => {
            named(out);
            name_or_code(out, &f.tessellator_outputs, (c & 7) as u8);
        }
        152 => {
            named(out);
            out.push_str("l(");
            if let Some(b) = w.first() {
                push_float(out, *b);
            }
            out.push(')');
        }
        155 => {
            named(out);
            word(out, w, 0);
            out.push_str(", ");
            word(out, w, 1);
            out.push_str(", ");
            word(out, w, 2);
        }
        156 => {
            out.push_str("dcl_uav_typed_");
            dim_name(out, t, (c & 0x1f) as u8);
            uav_flags(out, c);
            out.push(' ');
            ret(out, 0);
            out.push(' ');
            reg(out, 0);
            space(out, w, 1);
        }
        157 => {
            out.push_str(name);
            uav_flags(out, c);
            out.push(' ');
            reg(out, 0);
            space(out, w, 0);
        }
        158 => {
            out.push_str(name);
            uav_flags(out, c);
            out.push(' ');
            reg(out, 0);
            out.push_str(", ");
            word(out, w, 0);
            space(out, w, 1);
        }
        159 => {
            named(out);
            reg(out, 0);
            out.push_str(", ");
            word(out, w, 0);
        }
        160 => {
            named(out);
            reg(out, 0);
            out.push_str(", ");
            word(out, w, 0);
            out.push_str(", ");
            word(out, w, 1);
        }
        161 => {
            named(out);
            reg(out, 0);
            space(out, w, 0);
        }
        162 => {
            named(out);
            reg(out, 0);
            out.push_str(", ");
            word(out, w, 0);
            space(out, w, 1);
        }
        _ => return false,
    }
    true
}

/// UAV declaration flag suffixes (`uav_flags`: globally coherent, rasterizer ordered,
/// order-preserving counter).
fn uav_flags(out: &mut String, controls: u32) {
    for (bit, suffix) in &tables().file.uav_flags {
        if controls & (1 << bit) != 0 {
            out.push_str(suffix);
        }
    }
}

/// An immediate constant buffer, one `{ a, b, c, d}` row per line as fxc prints it.
fn immediate_constant_buffer(out: &mut String, words: &[u32]) {
    const INDENT: &str = "                              ";
    out.push_str("dcl_immediateConstantBuffer { ");
    for (r, row) in words.chunks(4).enumerate() {
        if r > 0 {
            out.push_str(",\n");
            out.push_str(INDENT);
        }
        out.push_str("{ ");
        for (i, b) in row.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_untyped(out, *b);
        }
        out.push('}');
    }
    out.push_str(" }");
}

/// One instruction as an fxc listing line (an immediate constant buffer spans several).
pub fn instruction(instr: &Instruction) -> String {
    let mut out = String::new();
    push_instruction(&mut out, instr);
    out
}

/// Appends [`instruction`]'s text to `out`.
pub fn push_instruction(out: &mut String, instr: &Instruction) {
    let t = tables();
    if instr.opcode == OP_CUSTOMDATA {
        if instr.controls == CUSTOMDATA_ICB {
            return immediate_constant_buffer(out, &instr.words);
        }
        out.push_str("// customdata class ");
        push_decimal(out, instr.controls.into());
        out.push_str(", ");
        push_decimal(out, instr.words.len() as u64);
        out.push_str(" dwords");
        return;
    }
    let Some(info) = t.op(instr.opcode).filter(|i| i.layout != Layout::Raw) else {
        return raw_comment(out, instr);
    };
    if declaration(out, t, instr, &info.name) {
        return;
    }
    mnemonic(out, t, instr, &info.name);
    if instr.operands.is_empty() {
        if instr.opcode != t.codes.sync {
            out.push(' ');
        }
        return;
    }
    for (i, o) in instr.operands.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        operand(out, t, o, imm_kind(t, instr, i));
    }
}

/// An instruction texlate does not spell (an unknown opcode, a function table): its dwords
/// as a comment, so the listing still shows them.
fn raw_comment(out: &mut String, instr: &Instruction) {
    let mut words = Vec::new();
    let _ = instr.encode(&mut words);
    out.push_str("// opcode ");
    push_decimal(out, instr.opcode.into());
    out.push(':');
    for w in words {
        out.push(' ');
        push_hex_digits(out, w.into(), 8);
    }
}

/// Opcodes that open a block (`if`, `loop`, `switch`) and close one (`endif`, `endloop`,
/// `endswitch`); `else` does both. fxc indents block bodies by two spaces.
const OPENS: [u16; 4] = [31, 48, 76, 18];
const CLOSES: [u16; 4] = [21, 22, 23, 18];

/// Deepest block nesting that is indented further. Direct3D 10/11 limit flow-control
/// nesting to 64 levels, so no valid shader reaches it; a crafted stream of `if` tokens
/// still prints in linear size instead of with quadratic indentation.
const MAX_INDENT: usize = 64;

/// Tracks block nesting to indent a listing as fxc does.
#[derive(Default)]
pub struct Indent(usize);

impl Indent {
    /// Appends the indentation of `opcode`'s line; updates the nesting for the lines after
    /// it.
    pub fn push(&mut self, out: &mut String, opcode: u16) {
        if CLOSES.contains(&opcode) {
            self.0 = self.0.saturating_sub(1);
        }
        for _ in 0..self.0.min(MAX_INDENT) {
            out.push_str("  ");
        }
        if OPENS.contains(&opcode) {
            self.0 += 1;
        }
    }
}

/// Appends the profile line of a version token (`ps_5_0`) to `out`.
pub fn push_profile(out: &mut String, version: u32) {
    name_or_code(out, &tables().file.program_types, version >> 16);
    out.push('_');
    push_decimal(out, ((version >> 4) & 0xf).into());
    out.push('_');
    push_decimal(out, (version & 0xf).into());
}
