//! The DirectX SM4/SM5 model: a DXBC container, a bare token stream, or an fxc listing.
//!
//! Instructions are decoded with the codec's token decoder ([`tokens`], [`container`]);
//! listings are read by the codec's listing parser and only the instruction tokens it
//! produced are used. The operand roles per opcode ([`layout`]) are this module's own table,
//! from research/dxbc.md §7 (operand orders of DXVK `dxbc_defs.cpp` and vkd3d `dxbc.c`) and
//! the seed seeds/dx-sm4-sample.md:
//!
//! - the coordinate components come from the resource dimension (the `dcl_resource*`
//!   declaration, or the instruction's `_indexable` dimension token): 1D/buffer x; 2D x, y;
//!   3D and cube x, y, z; the array layer is the next component (1D array: y, 2D array: z,
//!   cube array: w), a float rounded to nearest even and clamped for sample-like ops (seed
//!   "Array Resources"), an integer for fetches;
//! - `ld` reads its mip level from the address's **w** component (vkd3d-shader `spirv.c`
//!   `emit_ld`: the LOD is loaded with write mask 3 = w) for resources that have mips (not
//!   buffers, not multisampled);
//! - the result is swizzled by the resource operand, then masked by the destination (seed
//!   "Return Type Control"); `gather4` takes its channel from the sampler operand's selected
//!   component (research §7);
//! - `resinfo` returns floats unless `_uint` (and `_rcpfloat` returns 1/size for the size
//!   channels), `sampleinfo` floats unless `_uint`: the model records the conversion on the
//!   symbolic result.
//!
//! ALU instructions evaluated: `mov`, `utof`, `itof`, `ftou`, `ftoi`, `round_ne`, `round_ni`,
//! `round_pi`, `round_z`, `min`, `max`, `umin`, `umax`, `imin`, `imax`, `mul`, `rcp`, `and`,
//! `ibfe`, `ubfe` and `bfi` (immediate width and offset), with float source modifiers and `_sat`. Declarations, `customdata`, `nop` and `ret` are
//! skipped (execution ends at the first `ret`); any other instruction is an error.

use crate::check::{
    coord_count, imm_offsets, register_offsets, resource_id, Error, Execution, InitialFile, LodReq,
    Machine, ReqOp, Request, ResourceId, Role, Value, ValueOp,
};
use crate::ir::{Dim, Dimension, Isa, Item, Reg, RegFile};
use crate::isa::dxbc::tokens::{self, Instruction, Operand};
use crate::isa::dxbc::{container, DxbcExtras};
use crate::translate::bindings::Bindings;

const ISA: Isa = Isa::Dxbc;

/// The role of each operand after the destination(s) of a texture instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role2 {
    /// The coordinate (address) vector.
    Address,
    /// The resource (`tN`, `uN`).
    Resource,
    /// The sampler (`sN`).
    Sampler,
    /// Depth-compare reference.
    Ref,
    /// Explicit LOD.
    Lod,
    /// LOD bias.
    Bias,
    /// Gradient along x.
    Ddx,
    /// Gradient along y.
    Ddy,
    /// Sample index.
    SampleIndex,
    /// Mip level (`resinfo`).
    MipLevel,
    /// Programmable offsets (`gather4_po`).
    Offset,
    /// Minimum-LOD clamp.
    Clamp,
    /// Byte offset (raw and structured buffers).
    ByteOffset,
    /// Structure index (structured buffers).
    StructIndex,
    /// Residency status destination.
    Status,
}

/// An opcode's request op, its source operand roles (after the destinations), and whether a
/// residency status destination precedes them (the `*_s` opcodes).
pub fn layout(opcode: u16) -> Option<(ReqOp, &'static [Role2], bool)> {
    use Role2::*;
    const G: ReqOp = ReqOp::Gather { channel: 0 };
    Some(match opcode {
        45 => (ReqOp::Fetch, &[Address, Resource], false),
        46 => (ReqOp::Fetch, &[Address, Resource, SampleIndex], false),
        61 => (ReqOp::QuerySize, &[MipLevel, Resource], false),
        69 => (ReqOp::Sample, &[Address, Resource, Sampler], false),
        70 | 71 => (ReqOp::Sample, &[Address, Resource, Sampler, Ref], false),
        72 => (ReqOp::Sample, &[Address, Resource, Sampler, Lod], false),
        73 => (
            ReqOp::Sample,
            &[Address, Resource, Sampler, Ddx, Ddy],
            false,
        ),
        74 => (ReqOp::Sample, &[Address, Resource, Sampler, Bias], false),
        108 => (ReqOp::QueryLod, &[Address, Resource, Sampler], false),
        109 => (G, &[Address, Resource, Sampler], false),
        110 => (ReqOp::SamplePos, &[Resource, SampleIndex], false),
        111 => (ReqOp::QuerySamples, &[Resource], false),
        121 => (ReqOp::BufferInfo, &[Resource], false),
        126 => (G, &[Address, Resource, Sampler, Ref], false),
        127 => (G, &[Address, Offset, Resource, Sampler], false),
        128 => (G, &[Address, Offset, Resource, Sampler, Ref], false),
        163 => (ReqOp::LoadTyped, &[Address, Resource], false),
        165 => (ReqOp::LoadRaw, &[ByteOffset, Resource], false),
        167 => (
            ReqOp::LoadStructured,
            &[StructIndex, ByteOffset, Resource],
            false,
        ),
        219 => (G, &[Address, Resource, Sampler], true),
        220 => (G, &[Address, Resource, Sampler, Ref], true),
        221 => (G, &[Address, Offset, Resource, Sampler], true),
        222 => (G, &[Address, Offset, Resource, Sampler, Ref], true),
        223 => (ReqOp::Fetch, &[Address, Resource], true),
        224 => (ReqOp::Fetch, &[Address, Resource, SampleIndex], true),
        225 => (ReqOp::LoadTyped, &[Address, Resource], true),
        226 => (ReqOp::LoadRaw, &[ByteOffset, Resource], true),
        227 => (
            ReqOp::LoadStructured,
            &[StructIndex, ByteOffset, Resource],
            true,
        ),
        228 => (ReqOp::Sample, &[Address, Resource, Sampler, Lod], true),
        229 => (ReqOp::Sample, &[Address, Resource, Sampler, Ref], true),
        230 => (ReqOp::Sample, &[Address, Resource, Sampler, Clamp], true),
        231 => (
            ReqOp::Sample,
            &[Address, Resource, Sampler, Bias, Clamp],
            true,
        ),
        232 => (
            ReqOp::Sample,
            &[Address, Resource, Sampler, Ddx, Ddy, Clamp],
            true,
        ),
        233 => (
            ReqOp::Sample,
            &[Address, Resource, Sampler, Ref, Clamp],
            true,
        ),
        234 => (ReqOp::CheckAccessMapped, &[Status], false),
        _ => return None,
    })
}

/// Opcodes with a level-zero LOD: `sample_c_lz`, `sample_c_lz_s`.
fn lod_zero(opcode: u16) -> bool {
    matches!(opcode, 71 | 229)
}

/// Declarations and other instructions that cannot touch registers.
fn skipped(opcode: u16) -> bool {
    matches!(opcode, 53 | 58 | 88..=106 | 113..=116 | 143..=162 | 206)
}

/// A DX resource dimension code (research §4) as a dimension.
fn dim_code(code: u8) -> Option<Dimension> {
    let (dim, arrayed, multisampled) = match code {
        1 => (Dim::Buffer, false, false),
        2 => (Dim::D1, false, false),
        3 => (Dim::D2, false, false),
        4 => (Dim::D2, false, true),
        5 => (Dim::D3, false, false),
        6 => (Dim::Cube, false, false),
        7 => (Dim::D1, true, false),
        8 => (Dim::D2, true, false),
        9 => (Dim::D2, true, true),
        10 => (Dim::Cube, true, false),
        11 => (Dim::RawBuffer, false, false),
        12 => (Dim::StructuredBuffer, false, false),
        _ => return None,
    };
    Some(Dimension::Known {
        dim,
        arrayed,
        multisampled,
    })
}

/// Declared resource dimensions: (operand type, slot) → dimension.
#[derive(Default)]
struct Decls {
    dims: std::collections::HashMap<(u8, u64), Dimension>,
}

impl Decls {
    fn add(&mut self, i: &Instruction) {
        let Some(op) = i.operands.first() else { return };
        let Some(slot) = op.first_index() else { return };
        let dim = match i.opcode {
            88 | 156 => dim_code((i.controls & 0x1f) as u8),
            161 | 157 => dim_code(11),
            162 | 158 => dim_code(12),
            _ => None,
        };
        if let Some(d) = dim {
            self.dims.insert((op.ty, slot), d);
        }
    }
}

fn unsupported(at: &str, i: &Instruction, why: &str) -> Error {
    Error::model(
        ISA,
        at,
        format!("`{}`: {why}", crate::isa::dxbc::disasm::instruction(i)),
    )
}

/// The register an operand's component `comp` names.
fn reg_of(op: &Operand, comp: u8) -> Option<Reg> {
    if op.indices.iter().any(|i| i.rel.is_some()) {
        return None;
    }
    let idx = |k: usize| op.indices.get(k).map(|i| i.imm as u32);
    let c = u32::from(comp);
    let (file, index, sub) = match op.ty {
        0 => (RegFile::Temp, idx(0)?, c),
        1 => (RegFile::Input, idx(0)?, c),
        2 => (RegFile::Output, idx(0)?, c),
        3 => (RegFile::IndexableTemp, idx(0)? << 16 | idx(1)?, c),
        8 => {
            let elem = op.indices.last()?.imm as u32;
            (RegFile::ConstantBuffer, idx(0)?, elem * 4 + c)
        }
        9 => (RegFile::ImmConstantBuffer, 0, idx(0)? * 4 + c),
        t => (RegFile::Other(t), idx(0).unwrap_or(0), c),
    };
    Some(Reg { file, index, sub })
}

/// Lane `lane` of a source operand, with its source modifier applied for float reads.
fn src(
    m: &mut Machine,
    op: &Operand,
    lane: usize,
    role: Role,
    float: bool,
    at: &str,
    i: &Instruction,
) -> Result<Value, Error> {
    let v = if op.ty == tokens::OPERAND_IMM32 {
        let k = if op.imm.len() == 1 { 0 } else { lane };
        Value::Bits(
            *op.imm
                .get(k)
                .ok_or_else(|| unsupported(at, i, "short immediate"))?,
        )
    } else if op.ty == tokens::OPERAND_IMM64 {
        return Err(unsupported(at, i, "64-bit immediates are not modelled"));
    } else {
        let r = reg_of(op, op.component(lane))
            .ok_or_else(|| unsupported(at, i, "relative addressing is not modelled"))?;
        m.read(r, role)
    };
    let modifier = op.modifier();
    if modifier == 0 {
        return Ok(v);
    }
    if !float {
        return Err(unsupported(
            at,
            i,
            "a source modifier on an integer operand is not modelled",
        ));
    }
    let v = if modifier & 2 != 0 {
        v.unary(ValueOp::FAbs)
    } else {
        v
    };
    Ok(if modifier & 1 != 0 {
        v.unary(ValueOp::FNeg)
    } else {
        v
    })
}

/// Writes `value(c)` to each component `c` of a destination's mask.
fn write_dst(
    m: &mut Machine,
    op: &Operand,
    at: &str,
    i: &Instruction,
    mut value: impl FnMut(u8) -> Value,
) -> Result<(), Error> {
    if op.ty == 13 {
        return Ok(()); // null
    }
    for c in 0..4u8 {
        if op.mask() & (1 << c) == 0 {
            continue;
        }
        let r = reg_of(op, c)
            .ok_or_else(|| unsupported(at, i, "relative addressing is not modelled"))?;
        m.write(r, value(c));
    }
    Ok(())
}

fn alu(m: &mut Machine, i: &Instruction, at: &str) -> Result<bool, Error> {
    use ValueOp as O;
    // (ops applied in order to the first source, or a binary op), float sources?
    let (ops, binary, float_src, role): (&[O], Option<O>, bool, Role) = match i.opcode {
        54 => (&[], None, true, Role::Float),
        86 => (&[O::U32ToF32], None, false, Role::SmallInt),
        43 => (&[O::I32ToF32], None, false, Role::SmallInt),
        28 => (&[O::F32ToU32], None, true, Role::Float),
        27 => (&[O::F32ToI32], None, true, Role::Float),
        64 => (&[O::RoundNe], None, true, Role::Float),
        65 => (&[O::RoundNi], None, true, Role::Float),
        66 => (&[O::RoundPi], None, true, Role::Float),
        67 => (&[O::RoundZ], None, true, Role::Float),
        129 => (&[O::FRcp], None, true, Role::Float),
        51 => (&[], Some(O::FMin), true, Role::Float),
        52 => (&[], Some(O::FMax), true, Role::Float),
        56 => (&[], Some(O::FMul), true, Role::Float),
        84 => (&[], Some(O::UMin), false, Role::SmallInt),
        83 => (&[], Some(O::UMax), false, Role::SmallInt),
        37 => (&[], Some(O::IMin), false, Role::SmallInt),
        36 => (&[], Some(O::IMax), false, Role::SmallInt),
        1 => (&[], Some(O::And), false, Role::SmallInt),
        138 => return ubfe(m, i, at).map(|()| true),
        139 => return ibfe(m, i, at).map(|()| true),
        140 => return bfi(m, i, at).map(|()| true),
        // The gradient approximation's LOD arithmetic: mad (modelled fused, as NVIDIA's FFMA),
        // log (base 2), ge (a mask).
        50 => return mad(m, i, at).map(|()| true),
        47 => (&[O::FLog2], None, true, Role::Float),
        29 => (&[], Some(O::FGeMask), true, Role::Float),
        _ => return Ok(false),
    };
    let float_dst = matches!(i.opcode, 54 | 86 | 43 | 64..=67 | 129 | 51 | 52 | 56 | 47);
    let dst = i
        .operands
        .first()
        .ok_or_else(|| unsupported(at, i, "no destination"))?;
    let mut vals = [const { None }; 4];
    for (c, slot) in vals.iter_mut().enumerate() {
        if dst.mask() & (1 << c) == 0 {
            continue;
        }
        let a = src(m, &i.operands[1], c, role, float_src, at, i)?;
        let mut v = match binary {
            Some(op) => {
                let b = src(m, &i.operands[2], c, role, float_src, at, i)?;
                Value::apply(op, vec![a, b])
            }
            None => ops.iter().fold(a, |v, op| v.unary(*op)),
        };
        if i.saturate() {
            if !float_dst {
                return Err(unsupported(
                    at,
                    i,
                    "_sat on an integer result is not modelled",
                ));
            }
            v = v.unary(O::FSat);
        }
        *slot = Some(v);
    }
    write_dst(m, dst, at, i, |c| {
        vals[c as usize].clone().unwrap_or(Value::Bits(0))
    })?;
    Ok(true)
}

/// `mad dst, a, b, c`: `a * b + c` per component.
fn mad(m: &mut Machine, i: &Instruction, at: &str) -> Result<(), Error> {
    let [dst, a, b, c] = i.operands.as_slice() else {
        return Err(unsupported(at, i, "unexpected operand count"));
    };
    let mut vals = [const { None }; 4];
    for (k, slot) in vals.iter_mut().enumerate() {
        if dst.mask() & (1 << k) == 0 {
            continue;
        }
        let args = [a, b, c]
            .into_iter()
            .map(|o| src(m, o, k, Role::Float, true, at, i))
            .collect::<Result<Vec<_>, _>>()?;
        let mut v = Value::apply(ValueOp::FFma, args);
        if i.saturate() {
            v = v.unary(ValueOp::FSat);
        }
        *slot = Some(v);
    }
    write_dst(m, dst, at, i, |c| {
        vals[c as usize].clone().unwrap_or(Value::Bits(0))
    })
}

/// `ibfe dst, width, offset, src` with immediate width and offset (the form texlate's
/// backend emits): bits `[offset, offset + width)` of `src` sign-extended, the field ending at
/// bit 31 when it would run past it; width 0 gives 0 (Microsoft's "ibfe (sm5 - asm)").
fn ibfe(m: &mut Machine, i: &Instruction, at: &str) -> Result<(), Error> {
    bit_field(m, i, at, |(o, w), x| match w {
        0 => Value::Bits(0),
        w => Value::apply(
            ValueOp::SignedField {
                lo: o as u8,
                width: w.min(32 - o) as u8,
            },
            vec![x[0].clone()],
        ),
    })
}

/// `ubfe dst, width, offset, src` with immediate width and offset: as `ibfe`, zero-extended
/// (Microsoft's "ubfe (sm5 - asm)").
fn ubfe(m: &mut Machine, i: &Instruction, at: &str) -> Result<(), Error> {
    bit_field(m, i, at, |(o, w), x| match w {
        0 => Value::Bits(0),
        w => Value::apply(
            ValueOp::Field {
                lo: o as u8,
                width: w.min(32 - o) as u8,
            },
            vec![x[0].clone()],
        ),
    })
}

/// `bfi dst, width, offset, src2, src3` with immediate width and offset: `src3` with the
/// bits of `((1 << width) - 1) << offset` (cut at bit 31) taken from `src2 << offset`; width
/// and offset are read `& 0x1f` (Microsoft's "bfi (sm5 - asm)"). Width 0 gives `src3`.
fn bfi(m: &mut Machine, i: &Instruction, at: &str) -> Result<(), Error> {
    bit_field(m, i, at, |(o, w), x| match w {
        0 => x[1].clone(),
        w => Value::apply(
            ValueOp::InsertField {
                lo: o as u8,
                width: w.min(32 - o) as u8,
            },
            x.to_vec(),
        ),
    })
}

/// A bit-field instruction `op dst, width, offset, src...` with immediate width and offset
/// (each `& 31`), per destination component: `f((offset, width), sources)`.
fn bit_field(
    m: &mut Machine,
    i: &Instruction,
    at: &str,
    f: impl Fn((u32, u32), &[Value]) -> Value,
) -> Result<(), Error> {
    let [dst, width, offset, values @ ..] = i.operands.as_slice() else {
        return Err(unsupported(at, i, "unexpected operand count"));
    };
    if i.saturate() {
        return Err(unsupported(
            at,
            i,
            "_sat on an integer result is not modelled",
        ));
    }
    let mut vals = [const { None }; 4];
    for (c, slot) in vals.iter_mut().enumerate() {
        if dst.mask() & (1 << c) == 0 {
            continue;
        }
        let field = |m: &mut Machine, op| -> Result<u32, Error> {
            src(m, op, c, Role::SmallInt, false, at, i)?
                .bits()
                .map(|b| b & 31)
                .ok_or_else(|| unsupported(at, i, "a register width or offset is not modelled"))
        };
        let (w, o) = (field(m, width)?, field(m, offset)?);
        let x = values
            .iter()
            .map(|v| src(m, v, c, Role::SmallInt, false, at, i))
            .collect::<Result<Vec<_>, _>>()?;
        *slot = Some(f((o, w), &x));
    }
    write_dst(m, dst, at, i, |c| {
        vals[c as usize].clone().unwrap_or(Value::Bits(0))
    })
}

fn texture(
    m: &mut Machine,
    i: &Instruction,
    decls: &Decls,
    bindings: &Bindings,
    at: &str,
) -> Result<bool, Error> {
    let Some((mut op, roles, has_status)) = layout(i.opcode) else {
        return Ok(false);
    };
    m.begin_texture();
    let ndst = if has_status { 2 } else { 1 };
    if i.operands.len() != ndst + roles.len() {
        return Err(unsupported(at, i, "unexpected operand count"));
    }
    let operand = |r: Role2| {
        roles
            .iter()
            .position(|x| *x == r)
            .map(|p| &i.operands[ndst + p])
    };
    let res_op = operand(Role2::Resource);
    let smp_op = operand(Role2::Sampler);
    let slot = |o: Option<&Operand>| o.and_then(|o| o.first_index()).map(|v| v as u32);
    let (tex, smp) = (slot(res_op), slot(smp_op));
    let res_ty = res_op.map_or(7, |o| o.ty);
    let mut dim = res_op
        .and_then(|o| o.first_index().map(|s| (o.ty, s)))
        .and_then(|k| decls.dims.get(&k).copied());
    if let Some((code, _)) = i.resource_dim() {
        dim = dim_code(code).or(dim);
    }
    let resource = match (res_ty, tex) {
        (7, Some(t)) => resource_id(
            bindings,
            ISA,
            t,
            smp,
            match smp {
                Some(s) => format!("t{t}/s{s}"),
                None => format!("t{t}"),
            },
        ),
        (30, Some(u)) => ResourceId::Unbound(format!("u{u}")),
        (31, Some(g)) => ResourceId::Unbound(format!("g{g}")),
        // `sampleinfo rasterizer`: the render target's sample count.
        (14, _) => ResourceId::Unbound("rasterizer".into()),
        (_, _) if op == ReqOp::CheckAccessMapped => ResourceId::Unbound("none".into()),
        _ => {
            return Err(unsupported(
                at,
                i,
                "a resource operand the model does not read",
            ))
        }
    };
    if let ReqOp::Gather { .. } = op {
        op = ReqOp::Gather {
            channel: smp_op.map_or(0, |s| s.component(0)),
        };
    }
    let fetch = matches!(op, ReqOp::Fetch | ReqOp::LoadTyped);
    let mut r = Request::new(op.clone(), resource.clone());
    if smp.is_some() {
        r.sampler = Some(resource.clone());
    }
    r.dim = dim;
    let (dimk, arrayed, ms) = match dim {
        Some(Dimension::Known {
            dim,
            arrayed,
            multisampled,
        }) => (Some(dim), arrayed, multisampled),
        _ => (None, false, false),
    };
    let n = dimk.map_or(0, coord_count);
    let coord_role = if fetch { Role::SmallInt } else { Role::Float };
    if let Some(a) = operand(Role2::Address) {
        if dimk.is_none() {
            return Err(unsupported(at, i, "the resource has no declared dimension"));
        }
        for lane in 0..n {
            let v = src(m, a, lane, coord_role, !fetch, at, i)?;
            r.coords.push(v);
        }
        if arrayed {
            let role = if fetch {
                Role::SmallInt
            } else {
                Role::FloatLayer
            };
            let v = src(m, a, n, role, !fetch, at, i)?;
            r.layer = Some(v.unary(if fetch {
                ValueOp::IntLayer
            } else {
                ValueOp::FloatLayer
            }));
        }
        if op == ReqOp::Fetch
            && i.opcode != 46
            && i.opcode != 224
            && !ms
            && dimk != Some(Dim::Buffer)
        {
            let v = src(m, a, 3, Role::SmallInt, false, at, i)?;
            r.lod = LodReq::level(v);
        } else if fetch {
            r.lod = LodReq::Zero;
        }
    }
    if let Some(o) = operand(Role2::ByteOffset) {
        r.coords.push(src(m, o, 0, Role::SmallInt, false, at, i)?);
    }
    if let Some(o) = operand(Role2::StructIndex) {
        r.coords
            .insert(0, src(m, o, 0, Role::SmallInt, false, at, i)?);
    }
    if let Some(o) = operand(Role2::Status) {
        r.coords.push(src(m, o, 0, Role::Any, false, at, i)?);
    }
    let scalar =
        |m: &mut Machine, role2: Role2, role: Role, float: bool| -> Result<Option<Value>, Error> {
            operand(role2)
                .map(|o| src(m, o, 0, role, float, at, i))
                .transpose()
        };
    if let Some(v) = scalar(m, Role2::Lod, Role::Lod, true)? {
        r.lod = LodReq::level(v);
    }
    if let Some(v) = scalar(m, Role2::Bias, Role::Lod, true)? {
        r.lod = LodReq::Bias(v);
    }
    if let Some(v) = scalar(m, Role2::MipLevel, Role::SmallInt, false)? {
        r.lod = LodReq::level(v);
    }
    if lod_zero(i.opcode) {
        r.lod = LodReq::Zero;
    }
    if let (Some(dx), Some(dy)) = (operand(Role2::Ddx), operand(Role2::Ddy)) {
        let mut gx = Vec::new();
        let mut gy = Vec::new();
        for lane in 0..n {
            gx.push(src(m, dx, lane, Role::Float, true, at, i)?);
            gy.push(src(m, dy, lane, Role::Float, true, at, i)?);
        }
        r.lod = LodReq::Grad { dx: gx, dy: gy };
    }
    r.reference = scalar(m, Role2::Ref, Role::Reference, true)?;
    r.min_lod = scalar(m, Role2::Clamp, Role::Lod, true)?;
    r.sample_index = scalar(m, Role2::SampleIndex, Role::SmallInt, false)?;
    if let Some(o) = operand(Role2::Offset) {
        // Any 32 bits: the sampler honours the low 6, so the sign and the ignored bits are
        // exercised.
        let mut v = Vec::new();
        for lane in 0..2 {
            v.push(src(m, o, lane, Role::Any, false, at, i)?);
        }
        // Only the bottom 6 bits of each offset are honoured (gather4_po reference).
        r.offsets = register_offsets(dim, &v, 6);
    } else if let Some(o) = i.aoffimmi() {
        r.offsets = imm_offsets(dim, o.map(i32::from));
    }
    // A `_s` instruction whose status operand is `null` asks for no status (the clamp
    // variants `*_cl_s` exist only with the status operand).
    r.residency = has_status && i.operands.get(1).is_some_and(|o| o.ty != 13);
    // Result channels: destination component c receives result channel swizzle[c].
    let dst = &i.operands[0];
    let swizzle = |c: u8| res_op.map_or(c, |o| o.component(c as usize));
    r.channels = if i.opcode == 111 {
        // sampleinfo asks the sample count alone: "The instruction computes the vector
        // (SampleCount,0,0,0)" (sampleinfo (sm4.1 - asm)), whichever channels its swizzle
        // then reads.
        1
    } else {
        (0..4u8)
            .filter(|c| dst.mask() & (1 << c) != 0)
            .fold(0, |acc, c| acc | (1 << swizzle(c)))
    };
    let k = m.request(r, at.to_string());
    let convert = |ch: u8| -> Value {
        let v = Value::Result {
            request: k,
            channel: ch,
        };
        match (i.opcode, i.controls & 3) {
            (61, 0) => v.unary(ValueOp::U32ToF32),
            (61, 1) if ch < 3 => v.unary(ValueOp::U32ToF32).unary(ValueOp::FRcp),
            (61, 1) => v.unary(ValueOp::U32ToF32),
            (111, c) if c & 1 == 0 && ch == 0 => v.unary(ValueOp::U32ToF32),
            (111, _) if ch != 0 => Value::Bits(0),
            _ => v,
        }
    };
    write_dst(m, dst, at, i, |c| convert(swizzle(c)))?;
    if has_status {
        write_dst(m, &i.operands[1], at, i, |_| Value::Result {
            request: k,
            channel: 4,
        })?;
    }
    Ok(true)
}

/// Reads a program: (location, instruction) in order.
pub(crate) fn read(program: &[u8]) -> Result<Vec<(String, Instruction)>, Error> {
    let decode = |e: crate::error::DecodeError| Error::read(ISA, crate::Error::Decode(e));
    if program.starts_with(container::MAGIC) {
        let c = container::parse(program).map_err(decode)?;
        let words = tokens::dwords(&c.chunks[c.program].data, 0).map_err(decode)?;
        let tp = tokens::decode_program(&words, 0).map_err(decode)?;
        return Ok(located(tp.instructions));
    }
    if crate::isa::dxbc::looks_binary(program) {
        let words = tokens::dwords(program, 0).map_err(decode)?;
        let tp = tokens::decode_program(&words, 0).map_err(decode)?;
        return Ok(located(tp.instructions));
    }
    let text = std::str::from_utf8(program)
        .map_err(|e| Error::model(ISA, "input", format!("not UTF-8: {e}")))?;
    let parsed = crate::isa::dxbc::parse_text(text).map_err(|e| Error::read(ISA, e))?;
    let parsed = parsed.alu_as_read();
    let mut out = Vec::new();
    for (index, item) in parsed.items.iter().enumerate() {
        let (mut span, words) = match item {
            Item::Opaque(o) if !o.bytes.is_empty() => {
                (o.span, tokens::dwords(&o.bytes, 0).map_err(decode)?)
            }
            Item::Tex(t) => {
                let x = t.origin.get::<DxbcExtras>().ok_or_else(|| {
                    Error::model(
                        ISA,
                        format!("line {}", t.span.line),
                        "listing instruction without tokens",
                    )
                })?;
                let mut w = Vec::new();
                x.instr
                    .encode(&mut w)
                    .map_err(|e| Error::model(ISA, format!("line {}", t.span.line), e))?;
                (t.span, w)
            }
            _ => continue,
        };
        if span.line == 0 {
            span.line = index as u32 + 1;
        }
        for (_, instr) in tokens::decode_instructions(&words).map_err(decode)? {
            out.push((format!("line {}", span.line), instr));
        }
    }
    Ok(out)
}

fn located(v: Vec<(usize, Instruction)>) -> Vec<(String, Instruction)> {
    v.into_iter()
        .map(|(off, i)| (format!("offset {off:#x}"), i))
        .collect()
}

/// Runs instructions over `m`.
pub(crate) fn execute(
    m: &mut Machine,
    instrs: &[(String, Instruction)],
    bindings: &Bindings,
) -> Result<(), Error> {
    let mut decls = Decls::default();
    for (_, i) in instrs {
        decls.add(i);
    }
    for (at, i) in instrs {
        if i.opcode == 62 {
            break; // ret
        }
        if skipped(i.opcode) || texture(m, i, &decls, bindings, at)? || alu(m, i, at)? {
            continue;
        }
        return Err(unsupported(at, i, "instruction not modelled"));
    }
    Ok(())
}

/// Runs the model over a whole program.
pub fn run(program: &[u8], init: InitialFile, bindings: &Bindings) -> Result<Execution, Error> {
    let instrs = read(program)?;
    let mut m = Machine::new(init);
    execute(&mut m, &instrs, bindings)?;
    Ok(m.into())
}

/// The declarations and one instruction of a token stream, as a program of their own: what
/// the corpus test evaluates for each texture instruction of a blob.
pub fn single_instruction_program(
    version: u32,
    decls: &[&Instruction],
    instr: &Instruction,
) -> Result<Vec<u8>, String> {
    let mut all: Vec<&Instruction> = decls.to_vec();
    all.push(instr);
    let words = tokens::encode_program(version, &all)?;
    Ok(tokens::le_bytes(&words))
}

/// Whether `opcode` is a texture instruction of the model.
pub fn is_texture(opcode: u16) -> bool {
    layout(opcode).is_some()
}

/// Whether `opcode` is a declaration the model reads or skips.
pub fn is_declaration(opcode: u16) -> bool {
    skipped(opcode)
}
