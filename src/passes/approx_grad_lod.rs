//! approx_grad_lod: `--grad approx` — a gradient sample the target has no native form for,
//! sampled at the LOD its gradients give under the isotropic rule.
//!
//! Rule (D3D11.3 functional specification §7.18.11 "LOD Calculation", the isotropic case;
//! §7.18.5 / §7.18.6 for the cube face): each gradient is scaled to texels by the size of the
//! texture's most detailed level, the x and y derivative vectors' lengths are taken, and
//! `LOD = log2(max(|dX|, |dY|))`. The sampler then adds its bias and clamps as for any
//! explicit LOD. With `|v|² = Σ vᵢ²` this is `0.5 · log2(max(|dX|², |dY|²))`: no square
//! root is needed.
//!
//! - 1D / 2D / 3D and their arrays: `dXᵢ = ∂cᵢ/∂x · sizeᵢ`, likewise `dY`.
//! - Cube and cube array: the direction `c` selects the face of its major axis `m` (the
//!   largest `|cᵢ|`; ties go to z, then y, as the DX cube rule orders the faces), whose
//!   coordinates `c_a / |c_m|` in [-1, 1] cover the face's `size` texels. Their derivative is
//!   `(d_a − c_a · d_m / c_m) / |c_m|` (the quotient rule), so with `p = d − c · (d_m / c_m)`
//!   (its `m` component is 0) the face-space derivative vector in texels is
//!   `p · size / (2 |c_m|)`. The face is chosen without branches: `FSET.BF` gives 1.0 or 0.0
//!   for `|c_z| ≥ max`, `|c_y| ≥ max`, and the weights `w_z = e_z`, `w_y = e_y (1 − e_z)`,
//!   `w_x = (1 − e_z)(1 − e_y)` select `c_m` and `d_m` exactly (products with 0 and 1).
//!
//! The size is the texture's own: a size query at level 0 (NVIDIA `TXQ TEX_HEADER_DIMENSION`,
//! unsigned width, height, depth; a cube's face width) converted to float before the sample.
//! The LOD arithmetic is `FMUL`, `FFMA`, `FMNMX`, `FSET.BF`, `MUFU.RCP` and `MUFU.LG2`
//! (`AluOp::FMul`, `FFma`, `FMaxAbs`, `FMaxRightAbs`, `FSetGeAbs`, `FRcp`, `FLog2`), then the
//! sample takes `Lod::Level` (NVIDIA `TEX.LL`, `TEX.LL.DC`); cube coordinates are normalised
//! afterwards as for every NVIDIA cube access (`lower_arrays::cube_norm`).
//!
//! Not exact, and the Report says so on every such instruction: the hardware's anisotropic
//! filtering and its own LOD arithmetic (fixed point, per quad) are not reproduced. The
//! semantic check compares everything but the LOD, and the LOD with the isotropic rule
//! computed independently (`check`, "agrees up to the LOD").
//!
//! Runs on the instructions `rules::decide` approximates (rows with an `approx` column under
//! `--grad approx`: NVIDIA 3D / cube / cube-array gradients and gradients with compare), after
//! `lower_arrays` and beside `emulate_grad_quad` (which takes them under `--grad exact`).

use super::lower_arrays::cube_norm;
use super::{claim_layouts, expand_tex, legalize_forms::rule_ids, virtual_reg, PassContext};
use crate::error::Error;
use crate::ir::{
    AluOp, Dim, Dimension, Flags, Imm, Item, Lod, Offset, Scalar, ScalarType, TexInstr, TexOp,
};
use crate::mappings::rules::{self, Decision};

/// This pass's name.
pub const NAME: &str = "approx_grad_lod";

/// Whether the rule table approximates `t` under the policy in force.
pub(crate) fn routed_here(t: &TexInstr, ctx: &PassContext) -> bool {
    matches!(t.lod, Lod::Grad { .. })
        && rule_ids(t, ctx.source_caps).into_iter().any(|id| {
            matches!(
                rules::decide(id, ctx.target.isa, ctx.grad),
                Decision::Approximate(_)
            )
        })
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |t| {
        if routed_here(&t, ctx) {
            approximate(*t, ctx).map(Into::into)
        } else {
            Ok(t.into())
        }
    })
}

fn f32_imm(x: f32) -> Scalar {
    Scalar::Imm(Imm {
        bits: u64::from(x.to_bits()),
        ty: ScalarType::F32,
    })
}

/// The ALU instructions of one computation, each result a fresh virtual f32 scalar.
struct Seq<'c, 'a> {
    ctx: &'c mut PassContext<'a>,
    out: Vec<Item>,
    span: crate::ir::Span,
}

impl Seq<'_, '_> {
    fn op(&mut self, op: AluOp, srcs: Vec<Scalar>) -> Scalar {
        let d = self.ctx.new_virtual_scalar(ScalarType::F32);
        self.out.push(self.ctx.alu(op, d, srcs, self.span));
        d
    }

    /// `Σ vᵢ²`.
    fn square_sum(&mut self, v: &[Scalar]) -> Scalar {
        let mut acc = self.op(AluOp::FMul, vec![v[0], v[0]]);
        for x in &v[1..] {
            acc = self.op(AluOp::FFma, vec![*x, *x, acc]);
        }
        acc
    }

    /// `Σ vᵢ · wᵢ`.
    fn dot(&mut self, v: &[Scalar], w: &[Scalar]) -> Scalar {
        let mut acc = self.op(AluOp::FMul, vec![v[0], w[0]]);
        for (x, y) in v[1..].iter().zip(&w[1..]) {
            acc = self.op(AluOp::FFma, vec![*x, *y, acc]);
        }
        acc
    }

    /// `1 − e` for `e` in {0.0, 1.0}, exactly.
    fn not(&mut self, e: Scalar) -> Scalar {
        self.op(AluOp::FFma, vec![e, f32_imm(-1.0), f32_imm(1.0)])
    }
}

fn approximate(t: TexInstr, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let span = t.span;
    let Lod::Grad { dx, dy } = t.lod.clone() else {
        return Ok(vec![Item::Tex(Box::new(t))]);
    };
    let n = t.coord.len();
    let cube = matches!(t.dim, Dimension::Known { dim: Dim::Cube, .. });
    if n == 0 || dx.len() != n || dy.len() != n || (cube && n != 3) {
        return Err(ctx.unsupported(
            "a gradient sample",
            &format!(
                "the LOD approximation needs one x and one y gradient per coordinate, three on \
                 a cube ({n} coordinate(s), {} and {} gradient(s))",
                dx.len(),
                dy.len()
            ),
            span,
        ));
    }
    // The size of level 0: width (and height, depth), unsigned, converted to float.
    let sizes = if cube { 1 } else { n };
    let q = ctx.new_virtual();
    let mut query = t.clone();
    query.op = TexOp::QuerySize;
    query.lod = Lod::Level(Scalar::Zero);
    query.coord = Vec::new();
    query.array_index = None;
    query.depth_ref = None;
    query.offset = Offset::None;
    query.min_lod = None;
    query.sampler = None;
    query.flags = Flags::default();
    query.status_dst = None;
    query.coord_type = None;
    query.exec = None;
    query.result_type = Some(ScalarType::U32);
    query.dst = [None; 4];
    for c in 0..sizes {
        query.dst[c] = Some(virtual_reg(q, c as u32));
        ctx.virtual_types.insert((q, c as u32), ScalarType::U32);
    }
    claim_layouts(ctx, &query, &[q])?;
    let mut s = Seq {
        ctx,
        out: vec![Item::Tex(Box::new(query))],
        span,
    };
    let size: Vec<Scalar> = (0..sizes)
        .map(|c| s.op(AluOp::U32ToF32, vec![virtual_reg(q, c as u32)]))
        .collect();
    let c = &t.coord;
    let m = if cube {
        // The major axis: e_z = |z| ≥ max, e_y = |y| ≥ max; weights w_x, w_y, w_z.
        let ma = s.op(AluOp::FMaxAbs, vec![c[0], c[1]]);
        let ma = s.op(AluOp::FMaxRightAbs, vec![ma, c[2]]);
        let ez = s.op(AluOp::FSetGeAbs, vec![c[2], ma]);
        let ey = s.op(AluOp::FSetGeAbs, vec![c[1], ma]);
        let nz = s.not(ez);
        let ny = s.not(ey);
        let wy = s.op(AluOp::FMul, vec![ey, nz]);
        let wx = s.op(AluOp::FMul, vec![nz, ny]);
        let w = [wx, wy, ez];
        let cm = s.dot(c, &w);
        let inv = s.op(AluOp::FRcp, vec![cm]);
        let neg_inv = s.op(AluOp::FMul, vec![inv, f32_imm(-1.0)]);
        // p = d − c · d_m / c_m, per axis; |p|².
        let mut lens = Vec::new();
        for d in [&dx, &dy] {
            let dm = s.dot(d, &w);
            let r = s.op(AluOp::FMul, vec![dm, neg_inv]);
            let p: Vec<Scalar> = (0..3)
                .map(|i| s.op(AluOp::FFma, vec![c[i], r, d[i]]))
                .collect();
            lens.push(s.square_sum(&p));
        }
        // (size / (2 |c_m|))².
        let k = s.op(AluOp::FMul, vec![inv, size[0]]);
        let k = s.op(AluOp::FMul, vec![k, f32_imm(0.5)]);
        let k2 = s.op(AluOp::FMul, vec![k, k]);
        let m = s.op(AluOp::FMaxAbs, vec![lens[0], lens[1]]);
        s.op(AluOp::FMul, vec![m, k2])
    } else {
        let mut lens = Vec::new();
        for d in [&dx, &dy] {
            let texels: Vec<Scalar> = d
                .iter()
                .zip(&size)
                .map(|(g, w)| s.op(AluOp::FMul, vec![*g, *w]))
                .collect();
            lens.push(s.square_sum(&texels));
        }
        s.op(AluOp::FMaxAbs, vec![lens[0], lens[1]])
    };
    let log = s.op(AluOp::FLog2, vec![m]);
    let lod = s.op(AluOp::FMul, vec![log, f32_imm(0.5)]);
    let mut out = s.out;
    let mut tex = t;
    tex.lod = Lod::Level(lod);
    let norm =
        cube && ctx.target.caps.normalized_cube_coords && !ctx.source_caps.normalized_cube_coords;
    if norm {
        let v = ctx.new_virtual();
        let normed: Vec<Scalar> = (0..3).map(|i| virtual_reg(v, i)).collect();
        for i in 0..3 {
            ctx.virtual_types.insert((v, i), ScalarType::F32);
        }
        out.extend(cube_norm(ctx, &tex.coord, &normed, span));
        tex.coord = normed;
    }
    ctx.warn(
        span,
        NAME,
        format!(
            "approximated: the gradients replaced by the isotropic LOD 0.5 · log2(max(|dX|², |dY|²)) \
             in texels of level 0 (size query{}), sampled at that explicit LOD; anisotropic \
             filtering and the hardware's own LOD arithmetic are not reproduced",
            if cube {
                ", gradients projected onto the major-axis face"
            } else {
                ""
            }
        ),
    );
    out.push(Item::Tex(Box::new(tex)));
    Ok(out)
}
