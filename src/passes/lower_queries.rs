//! lower_queries: query results in the form the source's consumers read.
//!
//! Rule: a size query whose source returns floats (DX `resinfo` without `_uint`) on a target
//! whose size query returns integers (NVIDIA `TXQ`, vISA `resinfo`;
//! `TargetCaps::size_query_float`) writes fresh registers, and each written channel is
//! converted into the source's register by `U32ToF32`. A target that can return either
//! (DX) is given the source's type (`resinfo_uint` for an integer source). LOD queries
//! need no fix-up between vISA (R = clamped, G = unclamped) and DX (x = clamped,
//! y = unclamped): the IR's order is theirs.

use super::{expand_tex, virtual_reg, PassContext};
use crate::error::Error;
use crate::ir::{AluOp, Item, ScalarType, TexOp};

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let source_float = ctx.source_caps.size_query_float;
    expand_tex(items, |mut t| {
        // A source whose size query returns integers whatever its destination's type (vISA
        // `resinfo`) asks for integers.
        if t.op == TexOp::QuerySize && !source_float {
            t.result_type = Some(ScalarType::U32);
        }
        if t.op != TexOp::QuerySize
            || t.result_type != Some(ScalarType::F32)
            || ctx.target.caps.size_query_float
        {
            if t.op == TexOp::QuerySize && t.result_type.is_none() {
                t.result_type = Some(ScalarType::U32);
            }
            return Ok(vec![Item::Tex(t)]);
        }
        let v = ctx.new_virtual();
        let mut after = Vec::new();
        for c in 0..4 {
            if let Some(d) = t.dst[c] {
                let tmp = virtual_reg(v, c as u32);
                ctx.virtual_types.insert((v, c as u32), ScalarType::U32);
                t.dst[c] = Some(tmp);
                after.push(ctx.alu(AluOp::U32ToF32, d, vec![tmp], t.span));
            }
        }
        t.result_type = Some(ScalarType::U32);
        ctx.note(
            t.span,
            "lower_queries",
            "integer size results converted to float",
        );
        let mut out = vec![Item::Tex(t)];
        out.extend(after);
        Ok(out)
    })
}
