//! emulate_grad_quad: a gradient sample the target has no instruction for, built from the
//! quad, exactly as ptxas builds it.
//!
//! Rule: NVIDIA `TXD` takes no 3D, cube or cube-array target and no depth compare; ptxas
//! compiles `tex.grad` on those (and any `tex.grad` with a compare) into a four-pass quad
//! emulation (research/nvidia.md §5.1; corpus `shared/corpus/nvidia/tex_grad.ptx` →
//! `tex_grad.sm_50.sass`, `texgrad_3d_f32_f32`, `texgrad_cube_f32_f32`; texlate's own ptxas
//! references `tests/cases/nvidia/quad_grad.ptx` → `quad_grad.sm_50.sass`). For quad lane
//! `k` = 0..3, in order:
//!
//! 1. `SAM`: every lane of the quad active;
//! 2. `SHFL.IDX … k, 0x1c03`: lane `k`'s coordinate `c` and gradients `dx`, `dy` broadcast to
//!    the quad (per coordinate `c`, `dx`, then every `dy`); for `k` ≥ 1 also lane `k`'s
//!    array layer, packed offsets and depth reference (lane 0 reads its own);
//! 3. `FSWZADD.NDV … ZPPPZPPP` then `ZPZPPPPP`: a synthetic quad `c`, `c + dx`, `c + dy`,
//!    `c + dx + dy` in lanes 0..3, whose implicit derivatives are lane `k`'s gradients;
//! 4. for cubes, ptxas's cube normalisation of each lane's coordinates (as `lower_arrays`);
//! 5. `TEX[.DC][.AOFFI].NDV` with implicit LOD: lane 0 of the synthetic quad samples `c`
//!    with derivatives `dx`, `dy`;
//! 6. for `k` ≥ 1, `SHFL.IDX … RZ, 0x1c03`: lane 0's result to the quad;
//! 7. `RAM`: the active mask restored;
//! 8. `MOV d, r, 1 << k` per result channel: only lane `k` keeps it.
//!
//! Runs on the instructions `rules::decide` sends here (rows `sample_d_3d_cube`,
//! `sample_d_c` under `--grad exact`), after `lower_arrays` (the layer is converted once,
//! before the passes) and before `align_regs`; every new value is a virtual register.

use super::lower_arrays::cube_norm;
use super::{claim_layouts, expand_tex, legalize_forms::rule_ids, virtual_reg, PassContext};
use crate::error::Error;
use crate::ir::{
    AluOp, Dim, Dimension, Imm, Item, Lod, Offset, RegFile, Scalar, ScalarType, TexInstr,
};
use crate::mappings::rules::{self, Decision};

/// This pass's name, as `mappings/rules.toml` names it.
pub const NAME: &str = "emulate_grad_quad";

/// Whether the rule table sends `t` to this pass under the policy in force.
fn routed_here(t: &TexInstr, ctx: &PassContext) -> bool {
    matches!(t.lod, Lod::Grad { .. })
        && rule_ids(t, ctx.source_caps).into_iter().any(|id| {
            matches!(
                rules::decide(id, ctx.target.isa, ctx.grad),
                Decision::Emulate { pass, .. } if pass == NAME
            )
        })
}

/// A fresh virtual vector of `len` elements of type `ty`.
fn vector(ctx: &mut PassContext, len: u32, ty: ScalarType) -> u32 {
    let v = ctx.new_virtual();
    for i in 0..len {
        ctx.virtual_types.insert((v, i), ty);
    }
    v
}

/// Quad lane `k` as `SHFL`'s lane operand: `RZ` for lane 0, an immediate otherwise.
fn lane(k: u32) -> Scalar {
    if k == 0 {
        Scalar::Zero
    } else {
        Scalar::Imm(Imm {
            bits: u64::from(k),
            ty: ScalarType::U32,
        })
    }
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |t| {
        if routed_here(&t, ctx) {
            emulate(*t, ctx).map(Into::into)
        } else {
            Ok(t.into())
        }
    })
}

fn emulate(t: TexInstr, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let span = t.span;
    let Lod::Grad { dx, dy } = t.lod.clone() else {
        return Ok(vec![Item::Tex(Box::new(t))]);
    };
    let n = t.coord.len();
    if n == 0 || dx.len() != n || dy.len() != n {
        return Err(ctx.unsupported(
            "a gradient sample",
            &format!(
                "the quad emulation needs one x and one y gradient per coordinate ({n} coordinate(s), {} and {} gradient(s))",
                dx.len(),
                dy.len()
            ),
            span,
        ));
    }
    let cube = matches!(t.dim, Dimension::Known { dim: Dim::Cube, .. });
    let norm = cube
        && n == 3
        && ctx.target.caps.normalized_cube_coords
        && !ctx.source_caps.normalized_cube_coords;
    let channels: Vec<(usize, Scalar)> = t
        .dst
        .iter()
        .enumerate()
        .filter_map(|(c, d)| d.map(|d| (c, d)))
        .collect();
    let layer_first = usize::from(t.array_index.is_some());
    let mut out = Vec::new();
    for k in 0..4u32 {
        let at = lane(k);
        out.push(ctx.alu(AluOp::SetActiveMask, Scalar::Zero, vec![], span));
        // Lane k's coordinates and gradients, broadcast to the quad.
        let shfl = |ctx: &mut PassContext, out: &mut Vec<Item>, s: Scalar, ty| {
            let d = ctx.new_virtual_scalar(ty);
            out.push(ctx.alu(AluOp::QuadBroadcast, d, vec![s, at], span));
            d
        };
        let mut c = Vec::with_capacity(n);
        let mut ddx = Vec::with_capacity(n);
        for (coord, d) in t.coord.iter().zip(&dx) {
            c.push(shfl(ctx, &mut out, *coord, ScalarType::F32));
            ddx.push(shfl(ctx, &mut out, *d, ScalarType::F32));
        }
        let ddy: Vec<Scalar> = dy
            .iter()
            .map(|d| shfl(ctx, &mut out, *d, ScalarType::F32))
            .collect();
        // The coordinate vector the TEX reads: [layer,] coordinates. In pass 0 a layer the
        // passes converted into a fresh register is extended in place (ptxas converts the
        // layer straight into Ra+0).
        let (q, first) = match t.array_index {
            Some(Scalar::Reg(r)) if k == 0 && r.file == RegFile::Virtual && r.sub == 0 => {
                for i in 1..=n as u32 {
                    ctx.virtual_types.insert((r.index, i), ScalarType::F32);
                }
                (r.index, None)
            }
            Some(layer) => {
                let q = vector(ctx, n as u32 + 1, ScalarType::F32);
                ctx.virtual_types.insert((q, 0), ScalarType::U32);
                let op = if k == 0 {
                    AluOp::Mov
                } else {
                    AluOp::QuadBroadcast
                };
                let srcs = if k == 0 { vec![layer] } else { vec![layer, at] };
                (q, Some(ctx.alu(op, virtual_reg(q, 0), srcs, span)))
            }
            None => (vector(ctx, n as u32, ScalarType::F32), None),
        };
        out.extend(first);
        let extra = |s: Option<Scalar>, ctx: &mut PassContext, out: &mut Vec<Item>, ty| {
            s.map(|s| if k == 0 { s } else { shfl(ctx, out, s, ty) })
        };
        let offset = match t.offset {
            Offset::Packed(s) => {
                Offset::Packed(extra(Some(s), ctx, &mut out, ScalarType::U32).unwrap_or(s))
            }
            ref other => other.clone(),
        };
        let depth_ref = extra(t.depth_ref, ctx, &mut out, ScalarType::F32);
        // The synthetic quad: c, c + dx, c + dy, c + dx + dy.
        let coords: Vec<Scalar> = (0..n)
            .map(|i| virtual_reg(q, (layer_first + i) as u32))
            .collect();
        for ((q, d), c) in coords.iter().zip(&ddx).zip(&c) {
            out.push(ctx.alu(AluOp::QuadAddX, *q, vec![*d, *c], span));
        }
        for (q, d) in coords.iter().zip(&ddy) {
            out.push(ctx.alu(AluOp::QuadAddY, *q, vec![*d, *q], span));
        }
        if norm {
            out.extend(cube_norm(ctx, &coords, &coords, span));
        }
        let result = vector(
            ctx,
            channels.len() as u32,
            t.result_type.unwrap_or(ScalarType::F32),
        );
        let mut tex = t.clone();
        tex.lod = Lod::Implicit;
        tex.coord = coords;
        if tex.array_index.is_some() {
            tex.array_index = Some(virtual_reg(q, 0));
        }
        tex.offset = offset;
        tex.depth_ref = depth_ref;
        tex.flags.ndv = true;
        tex.dst = [None; 4];
        for (j, (ch, _)) in channels.iter().enumerate() {
            tex.dst[*ch] = Some(virtual_reg(result, j as u32));
        }
        claim_layouts(ctx, &tex, &[q, result])?;
        out.push(Item::Tex(Box::new(tex)));
        // Lane 0's result to the quad (pass 0: lane 0 is the lane that keeps it).
        let kept: Vec<Scalar> = (0..channels.len() as u32)
            .map(|j| {
                let r = virtual_reg(result, j);
                if k == 0 {
                    r
                } else {
                    let s = ctx.new_virtual_scalar(t.result_type.unwrap_or(ScalarType::F32));
                    out.push(ctx.alu(AluOp::QuadBroadcast, s, vec![r, Scalar::Zero], span));
                    s
                }
            })
            .collect();
        out.push(ctx.alu(AluOp::RestoreActiveMask, Scalar::Zero, vec![], span));
        let mask = Scalar::Imm(Imm {
            bits: 1 << k,
            ty: ScalarType::U32,
        });
        for ((_, d), r) in channels.iter().zip(kept) {
            out.push(ctx.alu(AluOp::MovLanes, *d, vec![r, mask], span));
        }
    }
    ctx.note(
        span,
        NAME,
        format!(
            "gradients emulated per quad lane: SHFL.IDX, FSWZADD.NDV{}, TEX{}.NDV, lane-masked MOV",
            if norm { ", cube normalisation" } else { "" },
            if t.depth_ref.is_some() { ".DC" } else { "" }
        ),
    );
    Ok(out)
}
