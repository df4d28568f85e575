//! offsets_from_register: offsets packed in one register (NVIDIA `TLD4.AOFFI`, a vISA
//! `sample4` aoffimmi variable) taken apart into the per-pixel offset registers of DX
//! `gather4_po` / vISA `sample4_po`.
//!
//! Rule (`mappings/rules.toml` `offset_packed_dynamic_gather`, `offset_packed_u_high_gather`):
//! each field of the source's packing (`mappings/targets.toml` `packed_offset_gather`: NVIDIA
//! TLD4 6-bit fields at bits 5:0 and 13:8, research/nvidia.md §4; vISA aoffimmi 4-bit
//! `U[11:8] V[7:4]`, seeds/visa-3D_SAMPLE.md) sign-extended into its own register by one
//! `ExtractFieldSigned` (DX `ibfe`, vISA `bfe` on `d`, the signed bit-field extract PTX
//! `bfe.s32` compiles to). `gather4_po` honours the low 6 bits of each offset (Microsoft's
//! gather4_po reference): a sign-extended 6- or 4-bit field reads back as itself. Gathers are
//! two-dimensional: u and v are extracted.

use super::offsets_to_register::{emulated_by, layout};
use super::{expand_tex, PassContext};
use crate::error::Error;
use crate::ir::{field_imm, AluOp, Item, Offset, Scalar, ScalarType, Span};
use crate::mappings::targets::PackedOffset;

/// Emits into `out` one signed field extraction per component `0..n` of `packed` (laid out
/// by `layout`), and answers the registers holding them.
pub(crate) fn unpack(
    ctx: &mut PassContext,
    layout: PackedOffset,
    packed: Scalar,
    n: usize,
    span: Span,
    out: &mut Vec<Item>,
) -> Vec<Scalar> {
    (0..n as u32)
        .map(|i| {
            let (lo, width) = layout.field(i);
            let dst = ctx.new_virtual_scalar(ScalarType::I32);
            out.push(ctx.alu(
                AluOp::ExtractFieldSigned,
                dst,
                vec![packed, field_imm(lo, width)],
                span,
            ));
            dst
        })
        .collect()
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |mut t| {
        let Offset::Packed(packed) = t.offset else {
            return Ok(t.into());
        };
        if !emulated_by(&t, ctx, "offsets_from_register") {
            return Ok(t.into());
        }
        let Some(from) = layout(ctx.source_caps, &t) else {
            return Err(ctx.unsupported(
                "register offsets",
                "the source's packed-offset layout is missing from mappings/targets.toml",
                t.span,
            ));
        };
        let mut out = Vec::new();
        let comps = unpack(ctx, from, packed, 2, t.span, &mut out);
        ctx.note(
            t.span,
            "offsets_from_register",
            format!(
                "packed offsets ({}-bit fields) sign-extended into {} offset registers",
                from.bits,
                comps.len()
            ),
        );
        t.offset = Offset::Dynamic(comps);
        out.push(Item::Tex(t));
        Ok(out.into())
    })
}
