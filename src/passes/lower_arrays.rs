//! lower_arrays: the array layer in the form the target reads, cube coordinates as the
//! target needs them.
//!
//! Rules:
//! - A float layer (DX sample: "a round-to-nearest even is applied on the value, followed by
//!   a clamp", seeds/dx-sm4-sample.md; vISA "unnormalized array index") becomes NVIDIA's u16
//!   (`Ra+0 array[15:0]`, seeds/nvidia-TEX.txt) by `F32ToLayer`; an integer layer (a fetch)
//!   is saturated to 16 bits by `U32ToLayer`, as ptxas's `I2I.U16.U32.SAT` does
//!   (research/nvidia.md §5.3). NVIDIA's u16 layer becomes a float by `U32ToF32` on targets
//!   that sample with float layers.
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
                (LayerForm::U16, LayerForm::Float) => Some(AluOp::U32ToF32),
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
                let ty = if op == AluOp::U32ToF32 {
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
            let m = ctx.new_virtual();
            ctx.virtual_types.insert((m, 0), ScalarType::F32);
            let (x, y, z) = (t.coord[0], t.coord[1], t.coord[2]);
            out.push(ctx.alu(AluOp::FMaxAbs, virtual_reg(m, 0), vec![x, y], t.span));
            out.push(ctx.alu(
                AluOp::FMaxAbs,
                virtual_reg(m, 0),
                vec![virtual_reg(m, 0), z],
                t.span,
            ));
            out.push(ctx.alu(
                AluOp::FRcp,
                virtual_reg(m, 0),
                vec![virtual_reg(m, 0)],
                t.span,
            ));
            let n = ctx.new_virtual();
            for (i, c) in [x, y, z].into_iter().enumerate() {
                ctx.virtual_types.insert((n, i as u32), ScalarType::F32);
                out.push(ctx.alu(
                    AluOp::FMul,
                    virtual_reg(n, i as u32),
                    vec![c, virtual_reg(m, 0)],
                    t.span,
                ));
                t.coord[i] = virtual_reg(n, i as u32);
            }
            ctx.note(
                t.span,
                "lower_arrays",
                "cube coordinates divided by max(|x|, |y|, |z|)",
            );
        }
        out.push(Item::Tex(t));
        Ok(out)
    })
}
