//! repack_offsets: offsets packed in a register by the source's layout moved into the
//! target's (a vISA aoffimmi variable `U[11:8] V[7:4] R[3:0]` → NVIDIA `.AOFFI`
//! `U[3:0] V[7:4] R[11:8]`, or for `sample4` TLD4's 6-bit fields at an 8-bit stride).
//!
//! Rule (`mappings/rules.toml` `offset_packed_u_high`, `offset_packed_u_high_gather`): each
//! field of the source layout sign-extended
//! (`offsets_from_register::unpack`, one `ExtractFieldSigned` per component), then packed by
//! the target layout (`offsets_to_register::pack`: `InsertField`s from zero, or into the
//! lowest component where the target reads its fields only, as ptxas packs TLD4's). Layouts
//! are `mappings/targets.toml` `packed_offset` / `packed_offset_gather` (seeds/visa-3D_SAMPLE.md
//! "Aoffimmi", research/nvidia.md §4). The target's other bits are zero where they may matter
//! (TEX's 4-bit register is built from zero). A 4-bit field sign-extended into a 6-bit one
//! keeps its value, so vISA's [-8, 7] fit TLD4's [-32, 31]. vISA's aoffimmi is one value per
//! message, so every NVIDIA thread gets the same offsets, as the source's lanes did; the
//! other way (per-thread registers into one header) is refused by the table.

use super::canonical_coords::spatial_count;
use super::offsets_from_register::unpack;
use super::offsets_to_register::{emulated_by, layout, pack, target_layout};
use super::{expand_tex, PassContext};
use crate::error::Error;
use crate::ir::{Dimension, Item, Offset, TexOp};

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |mut t| {
        let Offset::Packed(packed) = t.offset else {
            return Ok(t.into());
        };
        if !emulated_by(&t, ctx, "repack_offsets") {
            return Ok(t.into());
        }
        let (Some(from), Some(to)) = (layout(ctx.source_caps, &t), target_layout(ctx, &t)) else {
            return Err(ctx.unsupported(
                "register offsets",
                "a packed-offset layout is missing from mappings/targets.toml",
                t.span,
            ));
        };
        // The components the dimension reads (all three when it is not known yet); gathers
        // are two-dimensional.
        let n = match t.dim {
            _ if matches!(t.op, TexOp::Gather { .. }) => 2,
            Dimension::Known { dim, .. } => spatial_count(dim),
            Dimension::Deferred => 3,
        };
        let mut out = Vec::new();
        let comps = unpack(ctx, from, packed, n, t.span, &mut out);
        let reg = pack(ctx, to, &comps, t.span, &mut out);
        ctx.note(
            t.span,
            "repack_offsets",
            format!(
                "{n} packed offsets moved from {}-bit fields{} to {}-bit fields at a {}-bit stride{} by {} instruction(s)",
                from.bits,
                if from.u_high { " (u highest)" } else { "" },
                to.bits,
                to.stride,
                if to.u_high { " (u highest)" } else { "" },
                out.len()
            ),
        );
        t.offset = Offset::Packed(reg);
        out.push(Item::Tex(t));
        Ok(out.into())
    })
}
