//! Instructions printed in fxc's listing syntax (`fxc /Fc`), the spelling observed in the
//! 438 listings of shared/corpus/dxbc/asm (research/dxbc.md §8):
//!
//! - `op[_aoffimmi][_indexable](u,v,w)(dim)(types)[_uint] dst, src, ...`; `_sat` after the
//!   mnemonic; `_nz`/`_z` on conditional operations;
//! - `r0.xyzw` (mask or four-letter swizzle), `v1.x` (select one), `l(0.000000)`,
//!   `cb0[r1.x + 3].xyzw`, SM5.1 ranges `T0[0]`, `CB0[0][1]`, declarations `T0[0:0], space=0`;
//! - an instruction without operands is followed by one space (`ret `).

use std::fmt::Write as _;

use super::tables::{find_name, tables, Layout, Tables};
use super::tokens::{
    Index, Instruction, Operand, OPERAND_IMM32, OPERAND_IMM64, OP_CUSTOMDATA, SEL_MASK,
    SEL_SELECT1, SEL_SWIZZLE,
};

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// Opcodes whose controls bit 7 (token bit 18) selects `_nz` over `_z`.
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
pub fn float(bits: u32) -> String {
    format!("{:.6}", f64::from(f32::from_bits(bits)))
}

/// An integer immediate: decimal within ±10000, `0x%08x` beyond.
pub fn integer(bits: u32) -> String {
    let v = bits as i32;
    if (-DECIMAL_LIMIT..=DECIMAL_LIMIT).contains(&v) {
        v.to_string()
    } else {
        format!("0x{bits:08x}")
    }
}

/// An untyped immediate (`mov`, `movc`, immediate constant buffers): a float when its bits
/// are a normal float or -0.0, an integer otherwise (`l(0,0,0,1.000000)`, `l(-0.000000)`
/// in the corpus).
pub fn untyped(bits: u32) -> String {
    let exponent = (bits >> 23) & 0xff;
    if bits != 0x8000_0000 && (exponent == 0 || exponent == 0xff) {
        integer(bits)
    } else {
        float(bits)
    }
}

fn immediate(op: &Operand, kind: u8) -> String {
    if op.ty == OPERAND_IMM64 {
        let values: Vec<String> = op
            .imm
            .chunks(2)
            .map(|p| {
                let bits = u64::from(p[0]) | u64::from(*p.get(1).unwrap_or(&0)) << 32;
                format!("{:.6}", f64::from_bits(bits))
            })
            .collect();
        return format!("d({})", values.join(", "));
    }
    let values: Vec<String> = op
        .imm
        .iter()
        .map(|b| match kind {
            b'f' | b'd' => float(*b),
            b'i' | b'u' => integer(*b),
            _ => untyped(*b),
        })
        .collect();
    let sep = if kind == b'*' { "," } else { ", " };
    format!("l({})", values.join(sep))
}

/// Whether an operand uses SM5.1 range syntax (`T0[0]`, `CB0[0][1]`): resources, samplers
/// and UAVs with two indices, constant buffers with three.
fn is_range(t: &Tables, op: &Operand) -> bool {
    let has_range_prefix = t.register_type(op.ty).is_some_and(|r| !r.4.is_empty());
    has_range_prefix && (op.indices.len() >= 3 || (op.ty != 8 && op.indices.len() == 2))
}

fn index(t: &Tables, idx: &Index) -> String {
    match &idx.rel {
        None => idx.imm.to_string(),
        // fxc prints a purely relative index with `+ 0` too (`x0[r0.x + 0]`).
        Some(rel) => format!("{} + {}", operand(t, rel, b'i'), idx.imm),
    }
}

/// The register part of an operand (no modifiers), with `range` printing SM5.1 declaration
/// ranges `T0[lower:upper]`.
fn register(t: &Tables, op: &Operand, range: bool) -> String {
    let row = t.register_type(op.ty);
    let sm51 = is_range(t, op);
    let prefix = match row {
        Some(r) if sm51 => r.4.clone(),
        Some(r) => r.1.clone(),
        None => format!("reg{}_", op.ty),
    };
    let mut s = prefix;
    let mut rest = op.indices.iter();
    // icb[...] brackets its only index; every other register glues an immediate first
    // index to its name (r0, cb0[3], x1[r0.x + 2]).
    if op.ty != 9 {
        if let Some(first) = op.indices.first() {
            if first.rel.is_none() {
                let _ = write!(s, "{}", first.imm);
                rest.next();
            }
        }
    }
    if range && sm51 {
        let lower = op.indices.get(1).map(|i| index(t, i)).unwrap_or_default();
        let upper = match op.indices.get(2) {
            Some(i) if i.rel.is_none() && i.imm == u64::from(u32::MAX) => "*".to_string(),
            Some(i) => index(t, i),
            None => String::new(),
        };
        let _ = write!(s, "[{lower}:{upper}]");
        return s;
    }
    for idx in rest {
        let _ = write!(s, "[{}]", index(t, idx));
    }
    s
}

fn components(op: &Operand) -> String {
    if op.num_components != 2 {
        return String::new();
    }
    match op.selection {
        SEL_MASK => {
            let mask: String = (0..4)
                .filter(|c| op.comp & (1 << c) != 0)
                .map(|c| XYZW[c])
                .collect();
            if mask.is_empty() {
                mask
            } else {
                format!(".{mask}")
            }
        }
        SEL_SWIZZLE => {
            let swz: String = op.swizzle().iter().map(|c| XYZW[*c as usize]).collect();
            format!(".{swz}")
        }
        SEL_SELECT1 => format!(".{}", XYZW[(op.comp & 3) as usize]),
        _ => String::new(),
    }
}

/// One operand; `kind` is the operand's data type (how its immediates print).
pub fn operand(t: &Tables, op: &Operand, kind: u8) -> String {
    let body = if op.ty == OPERAND_IMM32 || op.ty == OPERAND_IMM64 {
        immediate(op, kind)
    } else {
        format!("{}{}", register(t, op, false), components(op))
    };
    match op.modifier() {
        1 => format!("-{body}"),
        2 => format!("|{body}|"),
        3 => format!("-|{body}|"),
        _ => body,
    }
}

fn return_types(t: &Tables, types: [u8; 4]) -> String {
    let names: Vec<String> = types
        .iter()
        .map(|c| {
            t.return_type(*c)
                .map_or_else(|| format!("type{c}"), str::to_string)
        })
        .collect();
    format!("({})", names.join(","))
}

fn name_or_code<C: PartialEq + Copy + std::fmt::Display>(rows: &[(C, String)], code: C) -> String {
    find_name(rows, code).map_or_else(|| code.to_string(), str::to_string)
}

/// The mnemonic with every suffix and parenthesised group.
fn mnemonic(t: &Tables, instr: &Instruction, name: &str) -> String {
    let mut m = name.to_string();
    if instr.opcode == t.codes.sync {
        for (bit, flag) in [(3, "_uglobal"), (2, "_ugroup"), (1, "_g"), (0, "_t")] {
            if instr.controls & (1 << bit) != 0 {
                m.push_str(flag);
            }
        }
        return m;
    }
    if t.codes.conditional.contains(&instr.opcode) {
        m.push_str(if instr.controls & 0x80 != 0 {
            "_nz"
        } else {
            "_z"
        });
    }
    if instr.saturate() {
        m.push_str("_sat");
    }
    let offsets = instr.aoffimmi();
    let dim = instr.resource_dim();
    if offsets.is_some() {
        m.push_str("_aoffimmi");
    }
    if dim.is_some() {
        m.push_str("_indexable");
    }
    if let Some([u, v, w]) = offsets {
        let _ = write!(m, "({u},{v},{w})");
    }
    if let Some((code, stride)) = dim {
        let dim_name = t
            .dim(code)
            .map_or_else(|| format!("dim{code}"), |d| d.name.clone());
        if code == 12 {
            let _ = write!(m, "({dim_name}, stride={stride})");
        } else {
            let _ = write!(m, "({dim_name})");
        }
    }
    if let Some(types) = instr.return_types() {
        m.push_str(&return_types(t, types));
    }
    if instr.opcode == t.codes.resinfo {
        m.push_str(match instr.controls & 3 {
            1 => "_rcpfloat",
            2 => "_uint",
            _ => "",
        });
    } else if instr.opcode == t.codes.sampleinfo && instr.controls & 1 != 0 {
        m.push_str("_uint");
    }
    m
}

/// `, space=N` of an SM5.1 declaration (the word after the declaration's own words).
fn space(words: &[u32], at: usize) -> String {
    words
        .get(at)
        .map_or_else(String::new, |s| format!(", space={s}"))
}

fn word(words: &[u32], at: usize) -> String {
    words.get(at).map_or_else(|| "?".into(), u32::to_string)
}

/// A declaration, or `None` for an ordinary instruction.
fn declaration(t: &Tables, instr: &Instruction, name: &str) -> Option<String> {
    let f = &t.file;
    let ops = &instr.operands;
    let w = &instr.words;
    let c = instr.controls;
    // Declarations of samplers, resources, constant buffers, UAVs and shared memory name
    // the register without components; input/output declarations carry their mask.
    let reg = |i: usize| {
        ops.get(i)
            .map(|o| match o.ty {
                6 | 7 | 8 | 30 | 31 => register(t, o, true),
                _ => format!("{}{}", register(t, o, true), components(o)),
            })
            .unwrap_or_default()
    };
    let sysval = |at: usize| {
        w.get(at)
            .map(|v| name_or_code(&f.system_values, *v))
            .unwrap_or_default()
    };
    let interp = || {
        let mode = (c & 0xf) as u8;
        match find_name(&f.interpolation_modes, mode) {
            Some(n) => format!("{n} "),
            None => String::new(),
        }
    };
    let dim_name = || {
        let code = (c & 0x1f) as u8;
        t.dim(code)
            .map_or_else(|| format!("dim{code}"), |d| d.name.clone())
    };
    let ret = |at: usize| {
        w.get(at)
            .map(|r| return_types(t, [0, 1, 2, 3].map(|i| ((r >> (4 * i)) & 0xf) as u8)))
            .unwrap_or_default()
    };
    let text = match instr.opcode {
        88 => {
            let code = (c & 0x1f) as u8;
            let ms = t.dim(code).is_some_and(|d| d.ms);
            let count = if ms {
                format!("({})", (c >> 5) & 0x7f)
            } else {
                String::new()
            };
            format!(
                "dcl_resource_{}{count} {} {}{}",
                dim_name(),
                ret(0),
                reg(0),
                space(w, 1)
            )
        }
        89 => {
            let access = if c & 1 != 0 {
                "dynamicIndexed"
            } else {
                "immediateIndexed"
            };
            match w.first() {
                Some(size) => format!("{name} {}[{size}], {access}{}", reg(0), space(w, 1)),
                None => format!("{name} {}, {access}", reg(0)),
            }
        }
        90 => format!(
            "{name} {}, {}{}",
            reg(0),
            name_or_code(&f.sampler_modes, (c & 0xf) as u8),
            space(w, 0)
        ),
        91 => format!("{name} {} {}", reg(0), word(w, 0)),
        92 => format!(
            "{name} {}",
            name_or_code(&f.output_topologies, (c & 0x3f) as u8)
        ),
        93 => {
            let code = (c & 0x3f) as u8;
            match find_name(&f.input_primitives, code) {
                Some(n) => format!("{name} {n}"),
                None => format!("{name} patch{}", code.saturating_sub(7)),
            }
        }
        94 | 104 | 153 | 154 | 206 => format!("{name} {}", word(w, 0)),
        95 | 101 => format!("{name} {}", reg(0)),
        96 | 97 | 102 | 103 => format!("{name} {}, {}", reg(0), sysval(0)),
        98 => format!("{name} {}{}", interp(), reg(0)),
        99 | 100 => format!("{name} {}{}, {}", interp(), reg(0), sysval(0)),
        105 => format!("{name} x{}[{}], {}", word(w, 0), word(w, 1), word(w, 2)),
        106 => {
            let flags: Vec<&str> = f
                .global_flags
                .iter()
                .enumerate()
                .filter(|(i, _)| c & (1 << i) != 0)
                .map(|(_, n)| n.as_str())
                .collect();
            format!("{name} {}", flags.join(" | "))
        }
        143 => format!("{name} {}", reg(0)),
        144 => format!("{name} fb{}", word(w, 0)),
        147 | 148 => format!("{name} {}", c & 0x3f),
        149 => format!(
            "{name} {}",
            name_or_code(&f.tessellator_domains, (c & 3) as u8)
        ),
        150 => format!(
            "{name} {}",
            name_or_code(&f.tessellator_partitionings, (c & 7) as u8)
        ),
        151 => format!(
            "{name} {}",
            name_or_code(&f.tessellator_outputs, (c & 7) as u8)
        ),
        152 => format!(
            "{name} l({})",
            w.first().map_or_else(String::new, |b| float(*b))
        ),
        155 => format!("{name} {}, {}, {}", word(w, 0), word(w, 1), word(w, 2)),
        156 => format!(
            "dcl_uav_typed_{}{} {} {}{}",
            dim_name(),
            uav_flags(c),
            ret(0),
            reg(0),
            space(w, 1)
        ),
        157 => format!("{name}{} {}{}", uav_flags(c), reg(0), space(w, 0)),
        158 => format!(
            "{name}{} {}, {}{}",
            uav_flags(c),
            reg(0),
            word(w, 0),
            space(w, 1)
        ),
        159 => format!("{name} {}, {}", reg(0), word(w, 0)),
        160 => format!("{name} {}, {}, {}", reg(0), word(w, 0), word(w, 1)),
        161 => format!("{name} {}{}", reg(0), space(w, 0)),
        162 => format!("{name} {}, {}{}", reg(0), word(w, 0), space(w, 1)),
        _ => return None,
    };
    Some(text)
}

/// UAV declaration flag suffixes (`uav_flags`: globally coherent, rasterizer ordered,
/// order-preserving counter).
fn uav_flags(controls: u32) -> String {
    tables()
        .file
        .uav_flags
        .iter()
        .filter(|(bit, _)| controls & (1 << bit) != 0)
        .map(|(_, suffix)| suffix.as_str())
        .collect()
}

/// An immediate constant buffer, one `{ a, b, c, d}` row per line as fxc prints it.
fn immediate_constant_buffer(words: &[u32]) -> String {
    const INDENT: &str = "                              ";
    let rows: Vec<String> = words
        .chunks(4)
        .map(|row| {
            let values: Vec<String> = row.iter().map(|b| untyped(*b)).collect();
            format!("{{ {}}}", values.join(", "))
        })
        .collect();
    format!(
        "dcl_immediateConstantBuffer {{ {} }}",
        rows.join(&format!(",\n{INDENT}"))
    )
}

/// One instruction as an fxc listing line (an immediate constant buffer spans several).
pub fn instruction(instr: &Instruction) -> String {
    let t = tables();
    if instr.opcode == OP_CUSTOMDATA {
        if instr.controls == CUSTOMDATA_ICB {
            return immediate_constant_buffer(&instr.words);
        }
        return format!(
            "// customdata class {}, {} dwords",
            instr.controls,
            instr.words.len()
        );
    }
    let Some(info) = t.op(instr.opcode) else {
        return raw_comment(instr);
    };
    if info.layout == Layout::Raw {
        return raw_comment(instr);
    }
    if let Some(text) = declaration(t, instr, &info.name) {
        return text;
    }
    let m = mnemonic(t, instr, &info.name);
    if instr.operands.is_empty() {
        return if instr.opcode == t.codes.sync {
            m
        } else {
            format!("{m} ")
        };
    }
    let ops: Vec<String> = instr
        .operands
        .iter()
        .enumerate()
        .map(|(i, o)| operand(t, o, imm_kind(t, instr, i)))
        .collect();
    format!("{m} {}", ops.join(", "))
}

/// An instruction texlate does not spell (an unknown opcode, a function table): its dwords
/// as a comment, so the listing still shows them.
fn raw_comment(instr: &Instruction) -> String {
    let mut words = Vec::new();
    let _ = instr.encode(&mut words);
    let hex: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
    format!("// opcode {}: {}", instr.opcode, hex.join(" "))
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
    /// The indentation of `opcode`'s line; updates the nesting for the lines after it.
    pub fn line(&mut self, opcode: u16) -> String {
        if CLOSES.contains(&opcode) {
            self.0 = self.0.saturating_sub(1);
        }
        let pad = "  ".repeat(self.0.min(MAX_INDENT));
        if OPENS.contains(&opcode) {
            self.0 += 1;
        }
        pad
    }
}

/// The profile line of a version token (`ps_5_0`).
pub fn profile(version: u32) -> String {
    let t = tables();
    let kind = name_or_code(&t.file.program_types, version >> 16);
    format!("{kind}_{}_{}", (version >> 4) & 0xf, version & 0xf)
}
