//! The DXBC instructions of an [`AluInstr`]: every [`AluOp`] with the fewest SM5 instructions,
//! opcode numbers from `mappings/dxbc.toml`.
//!
//! | IR | DXBC |
//! |---|---|
//! | `Mov` | `mov` |
//! | `U32ToF32` / `I32ToF32` | `utof` / `itof` |
//! | `F32ToI32` | `ftoi` (rounds toward zero) |
//! | `F32ToLayer` | `round_ne`, `ftou`, `umin …, l(65535)` |
//! | `U32ToLayer` | `umin …, l(65535)` |
//! | `FMul` | `mul` |
//! | `FMaxAbs` | `max dst, |a|, |b|` (the `abs` source modifier) |
//! | `FMaxRightAbs` | `max dst, a, |b|` |
//! | `FRcp` | `rcp` (SM5) |
//! | `I16ToF32` | `ibfe dst, l(16), l(0), src`, `itof` |
//! | `U16ToF32` | `and dst, src, l(0x0000ffff)`, `utof` |
//! | `FFma` | `mad` |
//! | `FLog2` | `log` (base 2) |
//! | `FSetGeAbs` | `ge dst, |a|, b`, `and dst, dst, l(1.0)` |
//! | `InsertField` | `bfi dst, l(width), l(lo), src0, src1` |
//! | `ExtractFieldSigned` | `ibfe dst, l(width), l(lo), src0` |
//!
//! The bit-field ops (programmable offsets) take their field as an immediate control word
//! `lo | width << 8` ([`crate::ir::field_control`]); SM5's `bfi` and `ibfe` take the width
//! and the offset as two immediates, first (Microsoft's "bfi (sm5 - asm)": `bfi dest, width,
//! offset, src2 (inserted), src3 (base)`; "ibfe (sm5 - asm)").
//!
//! `F32ToLayer` needs no `max` with 0 before `ftou`: `ftou` clamps its input to
//! `[0.0f, 4294967295.999f]` and turns NaN into 0 (Microsoft's "ftou (sm4 - asm)" reference),
//! and `round_ne` keeps a negative input negative (or -0), so the clamp gives what
//! `max(src, 0)` would.
//!
//! The 16-bit conversions (NVIDIA TMML's fixed point, docs/nvidia.md) extract the field in
//! the destination component and convert it there: `ibfe` with width 16 and offset 0
//! sign-extends bits 15:0 (Microsoft's "ibfe (sm5 - asm)"); `and` with `0x0000ffff` is what
//! fxc writes for `x & 0xffff` (the corpus: `and r5.x, r5.x, l(0x0000ffff)`).
//!
//! The gradient approximation's ops (NVIDIA `FFMA`, `MUFU.LG2`, `FSET.BF`; an approximated
//! NVIDIA kernel translated to DX): `ge` writes `0xffffffff` or 0 (Microsoft's "ge (sm4 -
//! asm)"), so `and` with the bits of 1.0 gives FSET.BF's 1.0 or 0.0; `mad` is SM5's
//! multiply-add (not required to be fused: the rounding of the product may differ by one
//! ulp, far inside the LOD tolerance of the approximation).
//!
//! Each scalar is one register component: the destination is written through a one-bit
//! mask (`r1.y`), a register source is read as a select-1 operand (`r0.z`), an immediate as a
//! one-component `l(...)`, as fxc writes scalar code.

use crate::error::{Error, Unsupported};
use crate::ir::{AluInstr, AluOp, Imm, Isa, Reg, Scalar, ScalarType};

use super::lift::{file_type, simple_file};
use super::tables::tables;
use super::tokens::{
    decode_instructions, Instruction, Operand, EXT_OPERAND_MODIFIER, OPERAND_IMM32, SEL_MASK,
    SEL_SELECT1,
};

fn unsupported(a: &AluInstr, why: impl Into<String>) -> Error {
    Error::Unsupported(Unsupported::new(
        format!("the ALU operation `{a}`"),
        Isa::Dxbc,
        Isa::Dxbc,
        why,
    ))
}

/// The source modifier `abs` (extended operand token kind 1, modifier `[13:6]` = 2).
const MOD_ABS: u32 = 2;

fn reg(a: &AluInstr, s: &Scalar) -> Result<(Operand, u8), Error> {
    let Scalar::Reg(r) = s else {
        return Err(unsupported(a, format!("{s} is not a register")));
    };
    let ty = file_type(r.file)
        .ok_or_else(|| unsupported(a, format!("{s}: the DXBC backend writes r#, v# and o#")))?;
    if r.sub > 3 {
        return Err(unsupported(
            a,
            format!("{s}: a DX register has components 0..3"),
        ));
    }
    Ok((Operand::new(ty, &[r.index]), r.sub as u8))
}

fn dst(a: &AluInstr, s: &Scalar) -> Result<Operand, Error> {
    let (mut op, c) = reg(a, s)?;
    op.selection = SEL_MASK;
    op.comp = 1 << c;
    Ok(op)
}

fn src(a: &AluInstr, s: &Scalar) -> Result<Operand, Error> {
    let bits = match s {
        Scalar::Imm(Imm { bits, .. }) => Some(*bits as u32),
        Scalar::Zero => Some(0),
        Scalar::Reg(_) => None,
    };
    if let Some(bits) = bits {
        let mut op = Operand::new(OPERAND_IMM32, &[]);
        op.num_components = 1;
        op.selection = 0;
        op.comp = 0;
        op.imm = vec![bits];
        return Ok(op);
    }
    let (mut op, c) = reg(a, s)?;
    op.selection = SEL_SELECT1;
    op.comp = c;
    Ok(op)
}

fn imm(bits: u32) -> Operand {
    let mut op = Operand::new(OPERAND_IMM32, &[]);
    op.num_components = 1;
    op.selection = 0;
    op.comp = 0;
    op.imm = vec![bits];
    op
}

fn instr(name: &str, operands: Vec<Operand>) -> Result<Instruction, Error> {
    let opcode = tables().opcode(name).ok_or_else(|| {
        Error::Unsupported(Unsupported::new(
            name,
            Isa::Dxbc,
            Isa::Dxbc,
            "mappings/dxbc.toml has no such opcode",
        ))
    })?;
    let mut i = Instruction::new(opcode);
    i.operands = operands;
    Ok(i)
}

/// The instructions that compute `a`, in order.
pub fn emit(a: &AluInstr) -> Result<Vec<Instruction>, Error> {
    if a.pred.is_some() {
        return Err(unsupported(a, "DX instructions are not predicated"));
    }
    if a.op.nvidia_only() {
        return Err(unsupported(
            a,
            "it is an NVIDIA quad operation (the gradient emulation); SM4/SM5 have none, and \
             reading the emulation back as one gradient sample is not built",
        ));
    }
    let want = match a.op {
        AluOp::FMul | AluOp::FMaxAbs | AluOp::FMaxRightAbs | AluOp::FSetGeAbs => 2,
        AluOp::FFma => 3,
        AluOp::ExtractFieldSigned => 2,
        AluOp::InsertField => 3,
        _ => 1,
    };
    if a.srcs.len() != want {
        return Err(unsupported(
            a,
            format!("it takes {want} source(s), not {}", a.srcs.len()),
        ));
    }
    let d = dst(a, &a.dst)?;
    let s0 = src(a, &a.srcs[0])?;
    let unary = |name: &str| Ok(vec![instr(name, vec![d.clone(), s0.clone()])?]);
    match a.op {
        AluOp::Mov => unary("mov"),
        AluOp::U32ToF32 => unary("utof"),
        AluOp::I32ToF32 => unary("itof"),
        AluOp::F32ToI32 => unary("ftoi"),
        AluOp::FRcp => unary("rcp"),
        AluOp::FMul => Ok(vec![instr("mul", vec![d, s0, src(a, &a.srcs[1])?])?]),
        AluOp::SetActiveMask
        | AluOp::RestoreActiveMask
        | AluOp::QuadBroadcast
        | AluOp::QuadAddX
        | AluOp::QuadAddY
        | AluOp::MovLanes => Err(unsupported(a, "it is an NVIDIA quad operation")),
        AluOp::FFma => Ok(vec![instr(
            "mad",
            vec![d, s0, src(a, &a.srcs[1])?, src(a, &a.srcs[2])?],
        )?]),
        AluOp::FLog2 => unary("log"),
        AluOp::FSetGeAbs => {
            let mut abs = s0;
            abs.extended = vec![EXT_OPERAND_MODIFIER | MOD_ABS << 6];
            let back = in_place(&d);
            Ok(vec![
                instr("ge", vec![d.clone(), abs, src(a, &a.srcs[1])?])?,
                instr("and", vec![d, back, imm(1f32.to_bits())])?,
            ])
        }
        AluOp::FMaxAbs => {
            let abs = |mut op: Operand| {
                op.extended = vec![EXT_OPERAND_MODIFIER | MOD_ABS << 6];
                op
            };
            let s1 = src(a, &a.srcs[1])?;
            Ok(vec![instr("max", vec![d, abs(s0), abs(s1)])?])
        }
        AluOp::FMaxRightAbs => {
            let mut s1 = src(a, &a.srcs[1])?;
            s1.extended = vec![EXT_OPERAND_MODIFIER | MOD_ABS << 6];
            Ok(vec![instr("max", vec![d, s0, s1])?])
        }
        AluOp::U32ToLayer => Ok(vec![instr("umin", vec![d, s0, imm(0xffff)])?]),
        AluOp::F32ToLayer => {
            // The intermediate values live in the destination component itself.
            let back = in_place(&d);
            Ok(vec![
                instr("round_ne", vec![d.clone(), s0])?,
                instr("ftou", vec![d.clone(), back.clone()])?,
                instr("umin", vec![d, back, imm(0xffff)])?,
            ])
        }
        AluOp::I16ToF32 => {
            let back = in_place(&d);
            Ok(vec![
                instr("ibfe", vec![d.clone(), imm(16), imm(0), s0])?,
                instr("itof", vec![d, back])?,
            ])
        }
        AluOp::U16ToF32 => {
            let back = in_place(&d);
            Ok(vec![
                instr("and", vec![d.clone(), s0, imm(0xffff)])?,
                instr("utof", vec![d, back])?,
            ])
        }
        AluOp::InsertField | AluOp::ExtractFieldSigned => {
            let at = a.op.field_operand().unwrap_or(1);
            let (lo, width) = crate::ir::field_control(&a.srcs[at]).ok_or_else(|| {
                unsupported(
                    a,
                    "its field must be an immediate `lo | width << 8` inside 32 bits",
                )
            })?;
            let (w, o) = (imm(u32::from(width)), imm(u32::from(lo)));
            Ok(vec![if a.op == AluOp::InsertField {
                instr("bfi", vec![d, w, o, s0, src(a, &a.srcs[1])?])?
            } else {
                instr("ibfe", vec![d, w, o, s0])?
            }])
        }
    }
}

/// The one-component destination `d` read back as a source (`r1.y` → `r1.y` select-1).
fn in_place(d: &Operand) -> Operand {
    let mut back = d.clone();
    back.selection = SEL_SELECT1;
    back.comp = (d.comp.trailing_zeros() & 3) as u8;
    back
}

/// The IR scalar of a one-component operand as [`emit`] writes it (modifiers ignored:
/// re-encoding the lifted instruction decides whether they were [`emit`]'s).
fn read_scalar(op: &Operand, dst: bool, ty: ScalarType) -> Option<Scalar> {
    if op.ty == OPERAND_IMM32 {
        return (!dst && op.imm.len() == 1).then(|| {
            Scalar::Imm(Imm {
                bits: u64::from(op.imm[0]),
                ty,
            })
        });
    }
    let file = simple_file(op.ty)?;
    if op.indices.len() != 1 || op.indices[0].rel.is_some() {
        return None;
    }
    let index = u32::try_from(op.indices[0].imm).ok()?;
    let sub = match (dst, op.selection) {
        (true, SEL_MASK) if op.comp.count_ones() == 1 => op.comp.trailing_zeros(),
        (false, SEL_SELECT1) => u32::from(op.comp & 3),
        _ => return None,
    };
    Some(Scalar::Reg(Reg { file, index, sub }))
}

/// The [`AluInstr`] that the first instructions of `run` are, when they are exactly what
/// [`emit`] writes for it (every token equal), and how many instructions it takes; `None`
/// otherwise. `words` gives an item's instruction tokens.
pub fn lift<T>(run: &[T], words: impl Fn(&T) -> Option<Vec<u32>>) -> Option<(AluInstr, usize)> {
    let first_words = words(run.first()?)?;
    let (_, first) = decode_instructions(&first_words).ok()?.pop()?;
    let t = tables();
    let name = t
        .by_name
        .iter()
        .find(|(_, c)| **c == first.opcode)
        .map(|(n, _)| n.as_str())?;
    let (ops, ty): (&[AluOp], _) = match name {
        "mov" => (&[AluOp::Mov], ScalarType::U32),
        "utof" => (&[AluOp::U32ToF32], ScalarType::U32),
        "itof" => (&[AluOp::I32ToF32], ScalarType::I32),
        "ftoi" => (&[AluOp::F32ToI32], ScalarType::F32),
        "rcp" => (&[AluOp::FRcp], ScalarType::F32),
        "mul" => (&[AluOp::FMul], ScalarType::F32),
        "max" => (&[AluOp::FMaxAbs, AluOp::FMaxRightAbs], ScalarType::F32),
        "umin" => (&[AluOp::U32ToLayer], ScalarType::U32),
        "round_ne" => (&[AluOp::F32ToLayer], ScalarType::F32),
        "ibfe" => (
            &[AluOp::I16ToF32, AluOp::ExtractFieldSigned],
            ScalarType::I32,
        ),
        "bfi" => (&[AluOp::InsertField], ScalarType::U32),
        "and" => (&[AluOp::U16ToF32], ScalarType::U32),
        "mad" => (&[AluOp::FFma], ScalarType::F32),
        "log" => (&[AluOp::FLog2], ScalarType::F32),
        "ge" => (&[AluOp::FSetGeAbs], ScalarType::F32),
        _ => return None,
    };
    'candidate: for &op in ops {
        let n_srcs = match op {
            AluOp::FMul
            | AluOp::FMaxAbs
            | AluOp::FMaxRightAbs
            | AluOp::FSetGeAbs
            | AluOp::InsertField => 2,
            AluOp::FFma => 3,
            _ => 1,
        };
        // The IR source's operand: `ibfe dst, width, offset, src` (and `bfi`) read it last.
        let at = if matches!(
            op,
            AluOp::I16ToF32 | AluOp::ExtractFieldSigned | AluOp::InsertField
        ) {
            3
        } else {
            1
        };
        if first.operands.len() < at + n_srcs {
            return None;
        }
        let mut srcs: Vec<Scalar> = first.operands[at..at + n_srcs]
            .iter()
            .map(|o| read_scalar(o, false, ty))
            .collect::<Option<_>>()?;
        if op.field_operand().is_some() {
            // The control word from the immediate width and offset.
            let field = |k: usize| match read_scalar(&first.operands[k], false, ty)? {
                Scalar::Imm(i) if i.bits < 256 => Some(i.bits as u8),
                _ => None,
            };
            srcs.push(crate::ir::field_imm(field(2)?, field(1)?));
        }
        let a = AluInstr {
            op,
            dst: read_scalar(&first.operands[0], true, ty)?,
            srcs,
            pred: None,
            exec: None,
            span: Default::default(),
            origin: Default::default(),
        };
        let emitted = emit(&a).ok()?;
        if emitted.len() > run.len() {
            continue;
        }
        for (i, item) in emitted.iter().zip(run) {
            let mut w = Vec::new();
            i.encode(&mut w).ok()?;
            if words(item)? != w {
                continue 'candidate;
            }
        }
        return Some((a, emitted.len()));
    }
    None
}
