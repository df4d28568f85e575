//! IR ALU instructions ([`AluInstr`]) as vISA arithmetic instructions: the fewest of the
//! same exec size for each [`AluOp`], printed as IGC prints them and encoded in the full
//! (untruncated) binary layout.
//!
//! vISA operands take their type from the variable's declaration, so an operand read or
//! written as another type than its variable's goes through an alias declaration
//! (`.decl <name>_<type> ... alias=<name, 0>`, as IGC declares its reinterpretations, e.g.
//! `V0049 type=uw alias=<V0038, 0>` in every SKL dump); [`emit`](super::emit) declares the
//! aliases [`aliases_needed`] lists.
//!
//! Evidence (GenX_IR 1.0.12504, `visa-assemble --asm` on SKL and TGLLP, run for this file):
//! - mnemonics `mov`, `mov.sat`, `rnde` (IGC's RNDE; `rndne` is rejected), `min`, `max`,
//!   `inv` (`math.inv`), `mul`; source modifier `(abs)`.
//! - binary: general vector operand = tag (class 0 | modifier << 3; abs = 1, sat = 4 on dst)
//!   · u32 variable (user variables from 32) · u8 row · u8 column · u16 region (dst `<1>` =
//!   0x0200, src `<1;1,0>` = 0x0122); `min`/`max` are FMINMAX (0x45) with op_ext 0 = min,
//!   1 = max and no predicate field (the bytes of GenX_IR's `.isa` up to 12504's cut).
//! - `mov` f → d/ud is the hardware conversion, which rounds toward zero (the Gen `mov`
//!   GenX_IR emits for it, `mov (16|M0) r4.0<1>:d r0.0<8;8,1>:f`).
//! - the 16-bit conversions (NVIDIA TMML's fixed point): `shl` then `asr` by 16 in the
//!   destination as `d` (sign extension of bits 15:0), or `and` with 0xffff as `ud`, then the
//!   converting `mov` to `f`; SHL 0x24, ASR 0x26, AND 0x20 take dst, src, src like MUL, and
//!   IGC prints them so (`shl (M1, 16) V0070(0,0)<1> V0051(0,0)<1;1,0> 0x2:d`,
//!   `and (M1, 16) V0066(0,0)<1> V0060(0,0)<1;1,0> 0x807fffff:d` in the SKL dumps).
//! - the bit-field ops (programmable offsets): BFE 0x46 and BFI 0x47 (`mappings/visa_isa.toml`)
//!   take the width and the offset first, then the value (and for `bfi` the base), as the
//!   Gen instructions (`bfi dst width offset insert base`; `bfe` on `d` sign-extends).
//! - the gradient approximation's LOD arithmetic (an approximated NVIDIA kernel translated
//!   onwards): `mad` (MAD 0x0c; Gen `mad`), `log` (LOG 0x0b; Gen `math.log`, base 2) and
//!   `cmp.ge (M1, 16) V_ud(0,0)<1> (abs)a b` then `and … 0x3f800000:ud` for FSET.BF's 1.0/0.0:
//!   CMP 0x2c takes exec, a one-byte relation (GE = 3, read back from GenX_IR's `.isa`), dst,
//!   src, src, and with a general destination writes all ones or 0 per lane (Gen `cmp (ge)f0.0
//!   r:ud (abs)r:f r:f`).

use crate::error::{Error, Location, Unsupported, ValidationError};
use crate::ir::{AluInstr, AluOp, Exec, Isa, RegFile, Scalar};

use super::names::{Named, Scope};
use super::tables::{self, TypeDesc};

/// One vISA ALU operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A general variable (or its alias) at GRF `row`, element `col`.
    Var {
        var: u32,
        row: u8,
        col: u8,
        abs: bool,
    },
    Imm {
        bits: u32,
        ty: &'static TypeDesc,
    },
}

/// One vISA ALU instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AluInst {
    /// vISA opcode (`mappings/visa_isa.toml`): MOV 0x29, RNDE 0x14, INV 0x1b, MUL 0x10,
    /// FMINMAX 0x45, SHL 0x24, ASR 0x26, AND 0x20.
    pub opcode: u8,
    pub mnemonic: &'static str,
    /// FMINMAX's op_ext: 0 = min, 1 = max.
    pub op_ext: Option<u8>,
    pub sat: bool,
    pub exec: Exec,
    pub pred: u16,
    pub dst: Operand,
    pub srcs: Vec<Operand>,
}

/// The types an instruction reads and writes: (dst, srcs) as vISA type names.
struct Step {
    opcode: u8,
    mnemonic: &'static str,
    op_ext: Option<u8>,
    sat: bool,
    dst_ty: &'static str,
    /// Each source: an IR source index (or the dst, `None`) read as a type, or an immediate.
    srcs: Vec<Src>,
    /// Bit `k`: source `k` reads its absolute value (`(abs)`).
    abs: u8,
}

#[derive(Clone, Copy)]
enum Src {
    Ir(usize, &'static str),
    Dst(&'static str),
    Imm(u32, &'static str),
}

const MOV: u8 = 0x29;
const RNDE: u8 = 0x14;
const INV: u8 = 0x1b;
const MUL: u8 = 0x10;
const FMINMAX: u8 = 0x45;
const SHL: u8 = 0x24;
const ASR: u8 = 0x26;
const AND: u8 = 0x20;
const BFE: u8 = 0x46;
const BFI: u8 = 0x47;
const MAD: u8 = 0x0c;
const LOG: u8 = 0x0b;
const CMP: u8 = 0x2c;
/// CMP's relation byte for `>=` (IGC's `ISA_CMP_GE`).
const CMP_GE: u8 = 3;

fn step(opcode: u8, mnemonic: &'static str, dst_ty: &'static str, srcs: Vec<Src>) -> Step {
    Step {
        opcode,
        mnemonic,
        op_ext: None,
        sat: false,
        dst_ty,
        srcs,
        abs: 0,
    }
}

/// The instructions of `a`: the fewest vISA instructions of the same exec size.
fn steps(a: &AluInstr, dst_ty: Option<&'static TypeDesc>) -> Result<Vec<Step>, Error> {
    if a.op.nvidia_only() {
        return Err(quad_op(a));
    }
    let n_srcs = n_sources(a.op);
    if a.srcs.len() != n_srcs {
        return Err(rule(
            a,
            "alu-operands",
            format!("{} takes {n_srcs} sources, not {}", a.op, a.srcs.len()),
        ));
    }
    Ok(match a.op {
        // Bit copy: read the source as the destination's own (32-bit) type.
        AluOp::Mov => {
            let ty = match dst_ty {
                Some(t) if t.bytes == 4 => name_of(t),
                Some(t) => {
                    return Err(rule(
                        a,
                        "alu-type",
                        format!(
                            "mov is a 32-bit copy; the destination is declared {}",
                            t.name
                        ),
                    ))
                }
                None => "ud",
            };
            vec![step(MOV, "mov", ty, vec![Src::Ir(0, ty)])]
        }
        AluOp::U32ToF32 => vec![step(MOV, "mov", "f", vec![Src::Ir(0, "ud")])],
        AluOp::I32ToF32 => vec![step(MOV, "mov", "f", vec![Src::Ir(0, "d")])],
        AluOp::F32ToI32 => vec![step(MOV, "mov", "d", vec![Src::Ir(0, "f")])],
        // rnde in place, then the saturating conversion (negative and NaN → 0), then the
        // 16-bit clamp. A `min.sat` with a float source (2 instructions, GenX_IR accepts it as
        // `sel.lt (sat):ud ... 65535.0:f`) would give 65535 for NaN: Gen's sel returns the
        // non-NaN source.
        AluOp::F32ToLayer => vec![
            step(RNDE, "rnde", "f", vec![Src::Ir(0, "f")]),
            Step {
                sat: true,
                ..step(MOV, "mov", "ud", vec![Src::Dst("f")])
            },
            Step {
                op_ext: Some(0),
                ..step(
                    FMINMAX,
                    "min",
                    "ud",
                    vec![Src::Dst("ud"), Src::Imm(0xffff, "ud")],
                )
            },
        ],
        AluOp::U32ToLayer => vec![Step {
            op_ext: Some(0),
            ..step(
                FMINMAX,
                "min",
                "ud",
                vec![Src::Ir(0, "ud"), Src::Imm(0xffff, "ud")],
            )
        }],
        AluOp::FMul => vec![step(
            MUL,
            "mul",
            "f",
            vec![Src::Ir(0, "f"), Src::Ir(1, "f")],
        )],
        AluOp::FMaxAbs => vec![Step {
            op_ext: Some(1),
            abs: 0b11,
            ..step(FMINMAX, "max", "f", vec![Src::Ir(0, "f"), Src::Ir(1, "f")])
        }],
        AluOp::FMaxRightAbs => vec![Step {
            op_ext: Some(1),
            abs: 0b10,
            ..step(FMINMAX, "max", "f", vec![Src::Ir(0, "f"), Src::Ir(1, "f")])
        }],
        AluOp::FRcp => vec![step(INV, "inv", "f", vec![Src::Ir(0, "f")])],
        AluOp::I16ToF32 => vec![
            step(SHL, "shl", "d", vec![Src::Ir(0, "d"), Src::Imm(16, "d")]),
            step(ASR, "asr", "d", vec![Src::Dst("d"), Src::Imm(16, "d")]),
            step(MOV, "mov", "f", vec![Src::Dst("d")]),
        ],
        AluOp::U16ToF32 => vec![
            step(
                AND,
                "and",
                "ud",
                vec![Src::Ir(0, "ud"), Src::Imm(0xffff, "ud")],
            ),
            step(MOV, "mov", "f", vec![Src::Dst("ud")]),
        ],
        AluOp::SetActiveMask
        | AluOp::RestoreActiveMask
        | AluOp::QuadBroadcast
        | AluOp::QuadAddX
        | AluOp::QuadAddY
        | AluOp::MovLanes => return Err(quad_op(a)),
        AluOp::InsertField | AluOp::ExtractFieldSigned => {
            let at = a.op.field_operand().unwrap_or(1);
            let (lo, width) = crate::ir::field_control(&a.srcs[at]).ok_or_else(|| {
                rule(
                    a,
                    "alu-operands",
                    format!("{}: the field must be an immediate `lo | width << 8`", a.op),
                )
            })?;
            let (w, o) = (
                Src::Imm(u32::from(width), "ud"),
                Src::Imm(u32::from(lo), "ud"),
            );
            if a.op == AluOp::InsertField {
                vec![step(
                    BFI,
                    "bfi",
                    "ud",
                    vec![w, o, Src::Ir(0, "ud"), Src::Ir(1, "ud")],
                )]
            } else {
                vec![step(BFE, "bfe", "d", vec![w, o, Src::Ir(0, "d")])]
            }
        }
        AluOp::FFma => vec![step(
            MAD,
            "mad",
            "f",
            vec![Src::Ir(0, "f"), Src::Ir(1, "f"), Src::Ir(2, "f")],
        )],
        AluOp::FLog2 => vec![step(LOG, "log", "f", vec![Src::Ir(0, "f")])],
        AluOp::FSetGeAbs => vec![
            Step {
                op_ext: Some(CMP_GE),
                abs: 0b01,
                ..step(CMP, "cmp.ge", "ud", vec![Src::Ir(0, "f"), Src::Ir(1, "f")])
            },
            step(
                AND,
                "and",
                "ud",
                vec![Src::Dst("ud"), Src::Imm(0x3f80_0000, "ud")],
            ),
        ],
    })
}

/// How many sources `op` takes.
fn n_sources(op: AluOp) -> usize {
    match op {
        AluOp::FMul | AluOp::FMaxAbs | AluOp::FMaxRightAbs | AluOp::FSetGeAbs => 2,
        AluOp::ExtractFieldSigned => 2,
        AluOp::FFma | AluOp::InsertField => 3,
        _ => 1,
    }
}

fn name_of(t: &'static TypeDesc) -> &'static str {
    t.name.as_str()
}

fn ty(name: &str) -> &'static TypeDesc {
    tables::type_by_name(name).expect("vISA type table has f, ud and d")
}

/// The refusal of an NVIDIA-only op ([`AluOp::nvidia_only`]).
fn quad_op(a: &AluInstr) -> Error {
    Error::Unsupported(Unsupported::new(
        format!("the ALU operation `{a}`"),
        Isa::Nvidia,
        Isa::Visa,
        "it is an NVIDIA quad operation (the gradient emulation); vISA has none, and reading \
         the emulation back as one gradient sample is not built",
    ))
}

fn rule(a: &AluInstr, rule: &'static str, detail: String) -> Error {
    Error::Validation(ValidationError {
        location: Location::Text {
            line: a.span.line,
            column: a.span.column,
        },
        rule,
        detail,
    })
}

/// The alias name of variable `name` read as type `ty`.
pub fn alias_name(name: &str, ty: &str) -> String {
    format!("{name}_{ty}")
}

/// Each (variable index, type) that `a` reads or writes as a type other than the
/// variable's declared one: the aliases the program must declare.
pub fn aliases_needed(a: &AluInstr, scope: &Scope) -> Result<Vec<(u32, &'static str)>, Error> {
    let dst_ty = reg_index(a.dst).and_then(|v| scope.var_type(v));
    let mut out = Vec::new();
    for s in steps(a, dst_ty)? {
        let mut need = |sc: Scalar, t: &'static str| {
            if let Some(v) = reg_index(sc) {
                if scope.var_type(v).is_some_and(|d| d.name != t) && !out.contains(&(v, t)) {
                    out.push((v, t));
                }
            }
        };
        need(a.dst, s.dst_ty);
        for src in &s.srcs {
            match *src {
                Src::Ir(i, t) => need(a.srcs[i], t),
                Src::Dst(t) => need(a.dst, t),
                Src::Imm(..) => {}
            }
        }
    }
    Ok(out)
}

fn reg_index(s: Scalar) -> Option<u32> {
    match s {
        Scalar::Reg(r) if r.file == RegFile::Temp => Some(r.index),
        _ => None,
    }
}

/// The vISA instructions of `a` in a program whose names are `scope`.
pub fn emit(a: &AluInstr, scope: &Scope) -> Result<Vec<AluInst>, Error> {
    let exec = a.exec.unwrap_or(Exec { size: 16, mask: 0 });
    if ![1, 2, 4, 8, 16].contains(&exec.size) {
        return Err(rule(
            a,
            "exec-size",
            format!(
                "{} at exec size {}: texlate emits vISA ALU instructions of 1 to 16 lanes \
                 (the sampler's SIMD8/SIMD16)",
                a.op, exec.size
            ),
        ));
    }
    let dst_ty = reg_index(a.dst).and_then(|v| scope.var_type(v));
    let steps = steps(a, dst_ty)?;
    let pred = match a.pred {
        None => 0,
        Some(_) if steps.iter().any(|s| s.op_ext.is_some()) => {
            let which = if steps.iter().any(|s| s.opcode == CMP) {
                "vISA cmp has no predicate field (its relation byte takes its place)"
            } else {
                "vISA min/max (FMINMAX) has no predicate field"
            };
            return Err(Error::Unsupported(Unsupported::new(
                format!("a predicated {}", a.op),
                Isa::Visa,
                Isa::Visa,
                which,
            )));
        }
        Some(p) if p.index == 0 || u32::from(p.index) > super::names::MAX_PREDICATE_ID => {
            return Err(rule(
                a,
                "predicate",
                format!("predicate index {} is outside 1..4095", p.index),
            ))
        }
        Some(p) => p.index | if p.negate { 0x8000 } else { 0 },
    };
    let operand = |s: Scalar, t: &'static str, abs: bool| -> Result<Operand, Error> {
        match s {
            Scalar::Zero => Ok(Operand::Imm { bits: 0, ty: ty(t) }),
            Scalar::Imm(i) => Ok(Operand::Imm {
                bits: u32::try_from(i.bits).map_err(|_| {
                    rule(
                        a,
                        "alu-immediate",
                        format!("immediate {i} is wider than 32 bits"),
                    )
                })?,
                ty: ty(t),
            }),
            Scalar::Reg(r) if r.file == RegFile::Temp => {
                let grf = tables::tables().limits.grf_bytes;
                if r.sub % 4 != 0 {
                    return Err(rule(
                        a,
                        "alu-offset",
                        format!("byte offset {} of {r} is not 32-bit aligned", r.sub),
                    ));
                }
                let var = match scope.var_type(r.index) {
                    Some(d) if d.name != t => {
                        let alias = alias_name(&scope.var_name(r.index), t);
                        match scope.resolve(&alias) {
                            Some(Named::General(v)) => v,
                            _ => {
                                return Err(rule(
                                    a,
                                    "undeclared",
                                    format!(
                                        "{} reads {r} as {t}: the program declares no alias \
                                         `{alias}`",
                                        a.op
                                    ),
                                ))
                            }
                        }
                    }
                    _ => r.index,
                };
                let row = u8::try_from(r.sub / grf)
                    .map_err(|_| rule(a, "alu-offset", format!("{r} is beyond 255 GRFs")))?;
                Ok(Operand::Var {
                    var,
                    row,
                    col: ((r.sub % grf) / 4) as u8,
                    abs,
                })
            }
            Scalar::Reg(r) => Err(Error::Unsupported(Unsupported::new(
                format!("register {r}"),
                Isa::Visa,
                Isa::Visa,
                "vISA operands are general variables; map registers first",
            ))),
        }
    };
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        let dst = match a.dst {
            Scalar::Reg(_) => operand(a.dst, s.dst_ty, false)?,
            _ => Operand::Var {
                var: 0,
                row: 0,
                col: 0,
                abs: false,
            },
        };
        let srcs = s
            .srcs
            .iter()
            .enumerate()
            .map(|(k, src)| match *src {
                Src::Ir(i, t) => operand(a.srcs[i], t, s.abs & (1 << k) != 0),
                Src::Dst(t) => operand(a.dst, t, false),
                Src::Imm(bits, t) => Ok(Operand::Imm { bits, ty: ty(t) }),
            })
            .collect::<Result<_, _>>()?;
        out.push(AluInst {
            opcode: s.opcode,
            mnemonic: s.mnemonic,
            op_ext: s.op_ext,
            sat: s.sat,
            exec,
            pred,
            dst,
            srcs,
        });
    }
    Ok(out)
}

/// The instruction as IGC prints it: `[(P1) ]mov[.sat] (M1, 16) V0032(0,0)<1> V0033(0,0)<1;1,0>`.
pub fn print(i: &AluInst, scope: &Scope) -> String {
    let mut s = String::new();
    print_into(&mut s, i, scope);
    s
}

/// [`print`], appending to `s`.
pub fn print_into(s: &mut String, i: &AluInst, scope: &Scope) {
    use std::fmt::Write as _;
    let t = tables::tables();
    let id = i.pred & 0xfff;
    if id != 0 {
        let neg = if i.pred & 0x8000 != 0 { "!" } else { "" };
        let _ = write!(s, "({neg}{}) ", scope.pred_name(id));
    }
    s.push_str(i.mnemonic);
    if i.sat {
        s.push_str(".sat");
    }
    let emask = t
        .limits
        .emasks
        .get(usize::from(i.exec.mask))
        .map_or("?", String::as_str);
    let _ = write!(s, " ({emask}, {})", i.exec.size);
    let operand = |s: &mut String, o: &Operand, dst: bool| match o {
        Operand::Var { var, row, col, abs } => {
            let region = if dst {
                "<1>"
            } else if i.exec.size == 1 {
                "<0;1,0>"
            } else {
                "<1;1,0>"
            };
            let abs = if *abs { "(abs)" } else { "" };
            let _ = write!(s, "{abs}{}({row},{col}){region}", scope.var_name(*var));
        }
        Operand::Imm { bits, ty } => {
            let _ = write!(s, "{bits:#x}:{}", ty.name);
        }
    };
    s.push(' ');
    operand(s, &i.dst, true);
    for src in &i.srcs {
        s.push(' ');
        operand(s, src, false);
    }
}

/// The full binary layout: opcode · exec · [pred u16 | op_ext u8] · dst · srcs.
pub fn encode(i: &AluInst, out: &mut Vec<u8>) {
    out.push(i.opcode);
    let size_code = tables::tables()
        .limits
        .exec_sizes
        .iter()
        .position(|&s| s == i.exec.size)
        .unwrap_or(0) as u8;
    out.push(size_code | i.exec.mask << 4);
    match i.op_ext {
        Some(e) => out.push(e),
        None => out.extend_from_slice(&i.pred.to_le_bytes()),
    }
    let operand = |out: &mut Vec<u8>, o: &Operand, dst: bool, sat: bool| match o {
        Operand::Var { var, row, col, abs } => {
            let modifier: u8 = if sat {
                4
            } else if *abs {
                1
            } else {
                0
            };
            out.push(modifier << 3);
            out.extend_from_slice(&var.to_le_bytes());
            out.push(*row);
            out.push(*col);
            let region: u16 = if dst {
                0x0200
            } else if i.exec.size == 1 {
                0x0121
            } else {
                0x0122
            };
            out.extend_from_slice(&region.to_le_bytes());
        }
        Operand::Imm { bits, ty } => {
            out.push(5);
            out.push(ty.code);
            out.extend_from_slice(&bits.to_le_bytes());
        }
    };
    operand(out, &i.dst, true, i.sat);
    for s in &i.srcs {
        operand(out, s, false, false);
    }
}

/// One operand as [`print`] writes it, as an IR scalar: a variable (an alias `<name>_<type>`
/// stands for its base variable) at a byte offset, or an immediate.
fn read_operand(s: &str, scope: &Scope) -> Option<Scalar> {
    if let Some((bits, ty_name)) = s.split_once(':') {
        let bits = u32::from_str_radix(bits.strip_prefix("0x")?, 16).ok()?;
        let ty = match ty_name {
            "f" => crate::ir::ScalarType::F32,
            "d" => crate::ir::ScalarType::I32,
            _ => crate::ir::ScalarType::U32,
        };
        return Some(Scalar::Imm(crate::ir::Imm {
            bits: u64::from(bits),
            ty,
        }));
    }
    let s = s.strip_prefix("(abs)").unwrap_or(s);
    let (name, rest) = s.split_once('(')?;
    let (row, rest) = rest.split_once(',')?;
    let (col, _) = rest.split_once(')')?;
    let general = |n: &str| match scope.resolve(n) {
        Some(Named::General(v)) => Some(v),
        _ => None,
    };
    let index = name
        .rsplit_once('_')
        .and_then(|(base, _)| general(base))
        .or_else(|| general(name))?;
    let grf = tables::tables().limits.grf_bytes;
    let sub = row.parse::<u32>().ok()? * grf + col.parse::<u32>().ok()? * 4;
    Some(Scalar::Reg(crate::ir::Reg {
        file: RegFile::Temp,
        index,
        sub,
    }))
}

/// The [`AluInstr`] the first lines of `run` are, when they are exactly what [`emit`] and
/// [`print`] write for it in a program whose names are `scope` (leading and trailing blanks
/// aside), and how many lines it takes; `None` otherwise.
pub fn lift(run: &[&str], scope: &Scope) -> Option<(AluInstr, usize)> {
    // A vISA operand's type is its variable's declaration: without declarations, `mov` may
    // be a copy or a conversion, and the line is not read back as either.
    if !scope.declared() {
        return None;
    }
    let first = run.first()?.trim();
    let (pred, rest) = match first.strip_prefix('(') {
        Some(r) => {
            let (p, rest) = r.split_once(')')?;
            let (negate, name) = match p.strip_prefix('!') {
                Some(n) => (true, n),
                None => (false, p),
            };
            let Some(Named::Predicate(index)) = scope.resolve(name) else {
                return None;
            };
            (Some(crate::ir::Pred { index, negate }), rest.trim_start())
        }
        None => (None, first),
    };
    let (mnemonic, rest) = rest.split_once(' ')?;
    let (exec, operands) = rest.trim_start().strip_prefix('(')?.split_once(')')?;
    let (emask, size) = exec.split_once(',')?;
    let mask = tables::tables()
        .limits
        .emasks
        .iter()
        .position(|m| m == emask.trim())?;
    let exec = Exec {
        size: size.trim().parse().ok()?,
        mask: u8::try_from(mask).ok()?,
    };
    let operands = operands
        .split_whitespace()
        .map(|o| read_operand(o, scope))
        .collect::<Option<Vec<_>>>()?;
    // Nor when a user variable it names is declared without `type=`: its type is unknown.
    let first_user = tables::tables().limits.first_user_variable;
    if operands.iter().any(|o| {
        matches!(o, Scalar::Reg(r) if r.index >= first_user && scope.var_type(r.index).is_none())
    }) {
        return None;
    }
    let ops: &[AluOp] = match mnemonic {
        "mov" => &[
            AluOp::Mov,
            AluOp::U32ToF32,
            AluOp::I32ToF32,
            AluOp::F32ToI32,
        ],
        "rnde" => &[AluOp::F32ToLayer],
        "min" => &[AluOp::U32ToLayer],
        "max" => &[AluOp::FMaxAbs, AluOp::FMaxRightAbs],
        "mul" => &[AluOp::FMul],
        "inv" => &[AluOp::FRcp],
        "shl" => &[AluOp::I16ToF32],
        "and" => &[AluOp::U16ToF32],
        "bfi" => &[AluOp::InsertField],
        "bfe" => &[AluOp::ExtractFieldSigned],
        "mad" => &[AluOp::FFma],
        "log" => &[AluOp::FLog2],
        "cmp.ge" => &[AluOp::FSetGeAbs],
        _ => return None,
    };
    let (dst, srcs) = operands.split_first()?;
    for &op in ops {
        // vISA's bfi/bfe take the field as two operands (width, offset) where the IR has one.
        let n = match op {
            AluOp::InsertField => 4,
            AluOp::ExtractFieldSigned => 3,
            _ => n_sources(op),
        };
        if srcs.len() < n {
            continue;
        }
        let srcs = if op.field_operand().is_some() {
            // `width offset value [base]`: the IR's control word goes last.
            let small = |s: &Scalar| match s {
                Scalar::Imm(i) if i.bits < 256 => Some(i.bits as u8),
                _ => None,
            };
            let mut v = srcs[2..n].to_vec();
            v.push(crate::ir::field_imm(small(&srcs[1])?, small(&srcs[0])?));
            v
        } else {
            srcs[..n].to_vec()
        };
        let a = AluInstr {
            op,
            dst: *dst,
            srcs,
            pred,
            exec: Some(exec),
            span: Default::default(),
            origin: Default::default(),
        };
        let Ok(insts) = emit(&a, scope) else { continue };
        if insts.len() <= run.len()
            && insts
                .iter()
                .zip(run)
                .all(|(i, line)| print(i, scope) == line.trim())
        {
            return Some((a, insts.len()));
        }
    }
    None
}
