//! lower_queries: query results in the form the source's consumers read.
//!
//! Size and sample-count queries: a size or sample-count query whose source returns floats
//! (DX `resinfo`, `sampleinfo` without `_uint`) on a target whose queries return integers (NVIDIA `TXQ`, vISA `resinfo`;
//! `TargetCaps::size_query_float`) writes fresh registers, and each written channel is
//! converted into the source's register by `U32ToF32`. A target that can return either
//! (DX) is given the source's type (`resinfo_uint` for an integer source).
//!
//! LOD queries: the IR's order is DX's and vISA's (channel 0 = clamped LOD, 1 = unclamped).
//! NVIDIA's TMML writes the unclamped LOD first, and both as 8.8 fixed point in bits 15:0:
//! Rd+0 = unclamped (signed), Rd+1 = clamped (unsigned); the NVIDIA codec swaps the two
//! channels in lift and emit, and this pass converts the format
//! (`TargetCaps::lod_query_fixed_point`). Sources: Mesa nouveau
//! `NVC0LoweringPass::handleTXLQ` (outputs inverted, "convert from s16/u16 to f32 ... multiply
//! by 1/256") and Mesa NAK `nak_nir_lower_tex.c` (`nir_texop_lod`: "The outputs are flipped",
//! `u2f32(x & 0xffff)` for the clamped, `i2f32((x << 16) >> 16)` for the unclamped); docs/nvidia.md.
//! - Float source, fixed-point target (DX/vISA `lod` → TMML): TMML writes fresh registers, and
//!   each written channel is converted into the source's register: `U16ToF32` (clamped) or
//!   `I16ToF32` (unclamped), then `FMul` by 1/256.
//! - Fixed-point source, float target (TMML → DX/vISA `lod`): `lod` writes fresh registers,
//!   and each written channel is brought into the form the source's code downstream reads:
//!   `FMul` by 256, then `F32ToI32` (toward zero) into the source's register.
//!
//! Channels 2 and 3 of a LOD query are undefined on every ISA and are left as they are.
//!
//! The conversions run under the query's guard: where it does not hold, the source's
//! registers keep their values.

use super::{expand_tex, virtual_reg, Expansion, PassContext};
use crate::error::Error;
use crate::ir::{AluOp, Imm, Item, Scalar, ScalarType, TexInstr, TexOp};

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let source_float = ctx.source_caps.size_query_float;
    expand_tex(items, |mut t| {
        if t.op == TexOp::QueryLod {
            return Ok(lod_query(t, ctx).into());
        }
        let zeros = sample_count_zeros(&mut t, ctx);
        let query = count_query(t, ctx, source_float);
        if zeros.is_empty() {
            return Ok(query);
        }
        let mut out = match query {
            Expansion::Keep(t) => vec![Item::Tex(t)],
            Expansion::Items(items) => items,
        };
        out.extend(zeros);
        Ok(out.into())
    })
}

/// A size or sample-count query (the others as they are), its results converted to the
/// source's type (module documentation).
fn count_query(mut t: Box<TexInstr>, ctx: &mut PassContext, source_float: bool) -> Expansion {
    // Sample-count queries follow the size queries' rule: DX `sampleinfo` returns a float
    // unless `_uint`; vISA `sampleinfo` and NVIDIA `TXQ TEX_HEADER_TEXTURE_TYPE` (Mesa NAK
    // `build_txq_samples`, Ryujinx `Txq`) return the count as an integer.
    let counts = matches!(t.op, TexOp::QuerySize | TexOp::QuerySamples);
    // A source whose size query returns integers whatever its destination's type (vISA
    // `resinfo`) asks for integers.
    if counts && !source_float {
        t.result_type = Some(ScalarType::U32);
    }
    if !counts || t.result_type != Some(ScalarType::F32) || ctx.target.caps.size_query_float {
        if counts && t.result_type.is_none() {
            t.result_type = Some(ScalarType::U32);
        }
        return t.into();
    }
    let v = ctx.new_virtual();
    let mut after = Vec::new();
    for c in 0..4 {
        if let Some(d) = t.dst[c] {
            let tmp = virtual_reg(v, c as u32);
            ctx.virtual_types.insert((v, c as u32), ScalarType::U32);
            t.dst[c] = Some(tmp);
            after.push(ctx.alu_after(&t, AluOp::U32ToF32, d, vec![tmp]));
        }
    }
    t.result_type = Some(ScalarType::U32);
    ctx.note(
        t.span,
        "lower_queries",
        "integer size or sample-count results converted to float",
    );
    let mut out = vec![Item::Tex(t)];
    out.extend(after);
    out.into()
}

/// A sample-count query of a source whose query returns `(count, 0, 0, 0)` (DX
/// `sampleinfo`: "The instruction computes the vector (SampleCount,0,0,0)", sampleinfo
/// (sm4.1 - asm); an NVIDIA source reads the count only) that writes channels past the
/// count: the query writes the count alone (into a fresh register when the source does not
/// read it) and moves after it write zeros to the others, since targets return other data
/// there (vISA's A is the sample position palette index, igc documentation/visa INFO.md;
/// NVIDIA's TXQ gives the count alone). Returns those moves.
fn sample_count_zeros(t: &mut TexInstr, ctx: &mut PassContext) -> Vec<Item> {
    if t.op != TexOp::QuerySamples
        || ctx.source_caps.sampleinfo_all_channels
        || t.dst[1..].iter().all(Option::is_none)
    {
        return Vec::new();
    }
    let zero = Scalar::Imm(Imm {
        bits: 0,
        ty: ScalarType::U32,
    });
    let zeros: Vec<Scalar> = t.dst[1..].iter_mut().filter_map(Option::take).collect();
    if t.dst[0].is_none() {
        let v = ctx.new_virtual();
        ctx.virtual_types.insert((v, 0), ScalarType::U32);
        t.dst[0] = Some(virtual_reg(v, 0));
        // A fresh register takes the count as the target returns it.
        t.result_type = Some(ScalarType::U32);
    }
    ctx.note(
        t.span,
        "lower_queries",
        "sample-count channels past the count written as zeros",
    );
    zeros
        .into_iter()
        .map(|d| ctx.alu_after(t, AluOp::Mov, d, vec![zero]))
        .collect()
}

/// The f32 immediate `x`.
fn f32_imm(x: f32) -> Scalar {
    Scalar::Imm(Imm {
        bits: u64::from(x.to_bits()),
        ty: ScalarType::F32,
    })
}

/// A LOD query between float and 8.8 fixed-point results (module documentation).
fn lod_query(mut t: Box<TexInstr>, ctx: &mut PassContext) -> Vec<Item> {
    let from_fixed = ctx.source_caps.lod_query_fixed_point;
    let to_fixed = ctx.target.caps.lod_query_fixed_point;
    let written = |s: &Option<Scalar>| s.is_some_and(|d| d != Scalar::Zero);
    if from_fixed == to_fixed || !t.dst[..2].iter().any(written) {
        return vec![Item::Tex(t)];
    }
    let v = ctx.new_virtual();
    let mut after = Vec::new();
    for c in 0..2 {
        let Some(d) = t.dst[c].filter(|d| *d != Scalar::Zero) else {
            continue;
        };
        let tmp = virtual_reg(v, c as u32);
        t.dst[c] = Some(tmp);
        if to_fixed {
            // Channel 0 (clamped) is u8.8, channel 1 (unclamped) s8.8.
            let convert = if c == 0 {
                AluOp::U16ToF32
            } else {
                AluOp::I16ToF32
            };
            ctx.virtual_types.insert((v, c as u32), ScalarType::U32);
            after.push(ctx.alu_after(&t, convert, d, vec![tmp]));
            after.push(ctx.alu_after(&t, AluOp::FMul, d, vec![d, f32_imm(1.0 / 256.0)]));
        } else {
            ctx.virtual_types.insert((v, c as u32), ScalarType::F32);
            after.push(ctx.alu_after(&t, AluOp::FMul, d, vec![tmp, f32_imm(256.0)]));
            after.push(ctx.alu_after(&t, AluOp::F32ToI32, d, vec![d]));
        }
    }
    // The registers the query writes hold integers on a fixed-point target, floats otherwise.
    t.result_type = Some(if to_fixed {
        ScalarType::U32
    } else {
        ScalarType::F32
    });
    ctx.note(
        t.span,
        "lower_queries",
        if to_fixed {
            "8.8 fixed-point LOD results converted to float (clamped u16, unclamped s16, × 1/256)"
        } else {
            "float LOD results converted to the source's 8.8 fixed point (× 256, toward zero)"
        },
    );
    let mut out = vec![Item::Tex(t)];
    out.extend(after);
    out
}
