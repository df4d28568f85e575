//! emulate_ptp_gathers: NVIDIA `TLD4.PTP` (a gather whose four texels each have their own
//! offset) as four gathers with per-pixel offsets, texel k taken from the k-th, on targets
//! without per-texel offsets (DX `gather4_po`, vISA `sample4_po`).
//!
//! Rule (`mappings/rules.toml` `offset_per_texel`): `.PTP` reads two registers; texel k's
//! u and v are bytes 2k and 2k + 1 of the pair (register k / 2, the fields at bit 16·(k mod 2)
//! and 8 above it), 6-bit two's complement. That is Mesa NAK's packing, which the semantic
//! model reads too (src/check/nvidia.rs, "Unverified, and said so": PTX has no `.PTP` form,
//! so ptxas cannot be asked; research/nvidia.md §4 gives the offset-mode field, 2 = PTP).
//! Texel k is the gather's result channel k (GLSL `textureGatherOffsets`: `offsets[k]` for
//! the k-th texel, returned in component k). For every channel the source writes: u and v
//! sign-extended into their own registers (`ExtractFieldSigned`), a gather with those
//! per-pixel offsets writing channel k only, into a fresh register; then the channels moved
//! into the source's destinations, after the last gather (a destination may be a later
//! gather's input). The semantic model reads `.PTP` as the same four gathers, one request
//! per texel, so each lane's texels must be the ones the source asked for.

use super::offsets_to_register::emulated_by;
use super::{expand_tex, PassContext};
use crate::error::Error;
use crate::ir::{field_imm, AluOp, Item, Offset, ScalarType};

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |t| {
        let Offset::PerTexel(regs) = &t.offset else {
            return Ok(t.into());
        };
        if !emulated_by(&t, ctx, "emulate_ptp_gathers") {
            return Ok(t.into());
        }
        if regs.len() != 2 || t.status_dst.is_some() {
            return Err(ctx.unsupported(
                "per-texel gather offsets",
                "TLD4.PTP reads its offsets from two registers and returns no status here",
                t.span,
            ));
        }
        let regs = regs.clone();
        let ty = t.result_type.unwrap_or(ScalarType::F32);
        let mut out = Vec::new();
        let mut moves = Vec::new();
        for k in 0..4usize {
            let Some(dst) = t.dst[k] else { continue };
            let lo = 16 * (k as u8 % 2);
            let mut offsets = Vec::new();
            for field in [lo, lo + 8] {
                let o = ctx.new_virtual_scalar(ScalarType::I32);
                let mut a = ctx.alu(
                    AluOp::ExtractFieldSigned,
                    o,
                    vec![regs[k / 2], field_imm(field, 6)],
                    t.span,
                );
                if let Item::Alu(a) = &mut a {
                    a.pred = t.pred;
                }
                out.push(a);
                offsets.push(o);
            }
            let texel = ctx.new_virtual_scalar(ty);
            let mut g = t.clone();
            g.offset = Offset::Dynamic(offsets);
            g.dst = [None; 4];
            g.dst[k] = Some(texel);
            out.push(Item::Tex(g));
            let mut mv = ctx.alu(AluOp::Mov, dst, vec![texel], t.span);
            if let Item::Alu(a) = &mut mv {
                a.pred = t.pred;
            }
            moves.push(mv);
        }
        ctx.note(
            t.span,
            "emulate_ptp_gathers",
            format!(
                "per-texel offsets: {} gathers with per-pixel offsets, texel k from the k-th",
                moves.len()
            ),
        );
        out.extend(moves);
        Ok(out.into())
    })
}
