//! lower_arrays: the array layer in the form the target reads, cube coordinates as the
//! target needs them.
//!
//! Rules:
//! - A float layer (DX sample: "a round-to-nearest even is applied on the value, followed by
//!   a clamp", seeds/dx-sm4-sample.md; vISA "unnormalized array index") becomes NVIDIA's u16
//!   (`Ra+0 array[15:0]`, seeds/nvidia-TEX.txt) by `F32ToLayer`; an integer layer (a fetch)
//!   is saturated to 16 bits by `U32ToLayer`, as ptxas's `I2I.U16.U32.SAT` does
//!   (research/nvidia.md §5.3). NVIDIA's u16 layer (the register's low half: the upper half
//!   is not read) becomes a float by `U16ToF32` on targets that sample with float layers.
//! - NVIDIA cube coordinates are divided by max(|x|, |y|, |z|) first: ptxas emits this before
//!   every CUBE/ARRAY_CUBE access and Mesa's nvc0 lowering does the same
//!   (research/nvidia.md §3 "cube-norm", research/ir-and-passes.md §2.2 `handleTEX`).

use super::{expand_tex, virtual_reg, PassContext};
use crate::error::Error;
use crate::ir::{AluOp, Dim, Dimension, Item, Lod, Scalar, ScalarType, TexOp};
use crate::mappings::targets::LayerForm;

fn layer_form(caps: &crate::mappings::targets::TargetCaps, op: TexOp) -> LayerForm {
    if op == TexOp::Fetch {
        caps.fetch_layer
    } else {
        caps.sample_layer
    }
}

/// ptxas's cube normalisation (research/nvidia.md §3 "cube-norm"): `m = max(|x|, |y|)`,
/// `m = max(m, |z|)`, `r = 1 / m`, then `out[i] = coord[i] * r` (`FMNMX`, `FMNMX`,
/// `MUFU.RCP`, 3 × `FMUL`). `out` may be `coord` itself (ptxas multiplies in place).
pub(crate) fn cube_norm(
    ctx: &mut PassContext,
    coord: &[Scalar],
    out: &[Scalar],
    span: crate::ir::Span,
) -> Vec<Item> {
    let m = ctx.new_virtual();
    let r = ctx.new_virtual();
    for v in [m, r] {
        ctx.virtual_types.insert((v, 0), ScalarType::F32);
    }
    let (m, r) = (virtual_reg(m, 0), virtual_reg(r, 0));
    let mut items = vec![
        ctx.alu(AluOp::FMaxAbs, m, vec![coord[0], coord[1]], span),
        ctx.alu(AluOp::FMaxRightAbs, m, vec![m, coord[2]], span),
        ctx.alu(AluOp::FRcp, r, vec![m], span),
    ];
    for (c, o) in coord.iter().zip(out) {
        items.push(ctx.alu(AluOp::FMul, *o, vec![*c, r], span));
    }
    items
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |mut t| {
        let mut out = Vec::new();
        if let Some(layer) = t.array_index {
            let from = layer_form(ctx.source_caps, t.op);
            let to = layer_form(ctx.target.caps, t.op);
            let op = match (from, to) {
                (LayerForm::Float, LayerForm::U16) => Some(AluOp::F32ToLayer),
                (LayerForm::Integer, LayerForm::U16) => Some(AluOp::U32ToLayer),
                (LayerForm::U16, LayerForm::Float) => Some(AluOp::U16ToF32),
                (LayerForm::Float, LayerForm::Integer) | (LayerForm::Integer, LayerForm::Float) => {
                    return Err(ctx.unsupported(
                        &format!("the array layer of `{}`", t.op),
                        "the source and target disagree on whether it is a float",
                        t.span,
                    ))
                }
                _ => None,
            };
            if let (Some(op), Scalar::Reg(_) | Scalar::Imm(_)) = (op, layer) {
                let ty = if op == AluOp::U16ToF32 {
                    ScalarType::F32
                } else {
                    ScalarType::U32
                };
                let reg = ctx.new_virtual_scalar(ty);
                out.push(ctx.alu(op, reg, vec![layer], t.span));
                t.array_index = Some(reg);
                ctx.note(
                    t.span,
                    "lower_arrays",
                    format!("layer {layer} converted by {op}"),
                );
            }
        }
        let cube = matches!(t.dim, Dimension::Known { dim: Dim::Cube, .. });
        let needs_norm = cube
            && ctx.target.caps.normalized_cube_coords
            && !ctx.source_caps.normalized_cube_coords
            && t.coord.len() == 3
            && !matches!(t.lod, Lod::Grad { .. })
            && t.op != TexOp::QuerySize;
        if needs_norm {
            let n = ctx.new_virtual();
            let normed: Vec<Scalar> = (0..3).map(|i| virtual_reg(n, i)).collect();
            for i in 0..3 {
                ctx.virtual_types.insert((n, i), ScalarType::F32);
            }
            out.extend(cube_norm(ctx, &t.coord, &normed, t.span));
            t.coord = normed;
            ctx.note(
                t.span,
                "lower_arrays",
                "cube coordinates divided by max(|x|, |y|, |z|)",
            );
        }
        out.push(Item::Tex(t));
        Ok(out.into())
    })
}
