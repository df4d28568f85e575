//! offsets_to_register: per-pixel gather offsets (DX `gather4_po`, vISA `sample4_po`: one
//! register per component) packed into the one register NVIDIA's `TLD4.AOFFI` reads.
//!
//! Rule (`mappings/rules.toml` `offset_dynamic`, NVIDIA column): TLD4's offset register holds
//! u in bits 5:0 and v in bits 13:8, 6-bit two's complement (research/nvidia.md §4;
//! `mappings/targets.toml` `packed_offset_gather`). The sequence is ptxas's own: for
//! `tld4.r.2d ... {%r1, %r2}` ptxas 12.9 (`ptx-to-sass`, sm_50) emits `MOV32I R3, 0x608` and
//! `BFI R15, R2, R3, <u>`: v inserted at bit 8, width 6, into u moved in whole (the register's
//! other bits are ignored: `fields_only`). Layouts whose other bits matter are built from
//! zero, one `InsertField` per component. The control word `lo | width << 8` reaches NVIDIA
//! through a register (`align_regs` moves it, as ptxas's `MOV32I`); DX and vISA encode it as
//! two immediates.
//!
//! The DX and vISA offsets honour their low 6 bits (Microsoft's gather4_po reference): the
//! 6-bit fields take exactly those bits, so the sampler sees the same offsets. The semantic
//! check compares them so (`check::register_offsets`).

use super::{expand_tex, PassContext};
use crate::error::Error;
use crate::ir::{
    field_imm, AluOp, Item, Offset, RegFile, Scalar, ScalarType, Span, TexInstr, TexOp,
};
use crate::mappings::rules::{self, Decision};
use crate::mappings::targets::PackedOffset;

/// Whether the offsets of `t` are emulated on the target by pass `pass` (its offset row of
/// `mappings/rules.toml`, `legalize_forms::offset_rule`). Offsets in registers a pass made
/// (`lower_offsets`' packed immediates, another offset pass's result) are the target's
/// already: no rule of the source applies to them.
pub(crate) fn emulated_by(t: &TexInstr, ctx: &PassContext, pass: &str) -> bool {
    let made_by_a_pass = t.sources().iter().any(|s| {
        matches!(s, Scalar::Reg(r) if r.file == RegFile::Virtual)
            && match &t.offset {
                Offset::Packed(p) => p == s,
                Offset::Dynamic(v) | Offset::PerTexel(v) => v.contains(s),
                Offset::None | Offset::Imm(_) => false,
            }
    });
    !made_by_a_pass
        && super::legalize_forms::offset_rule(t, ctx.source_caps).is_some_and(|id| {
            matches!(rules::decide(id, ctx.target.isa, ctx.grad),
            Decision::Emulate { pass: p, .. } if p == pass)
        })
}

/// The packed-register layout `caps` gives the offsets of `t` (gathers and gradient samples
/// may have their own).
pub(crate) fn layout(
    caps: &crate::mappings::targets::TargetCaps,
    t: &TexInstr,
) -> Option<PackedOffset> {
    match (&t.op, &t.lod) {
        (TexOp::Gather { .. }, _) => caps.packed_offset_gather,
        (_, crate::ir::Lod::Grad { .. }) => caps.packed_offset_grad.or(caps.packed_offset),
        _ => caps.packed_offset,
    }
}

/// The packed-register layout of the instruction the target runs for `t`: [`layout`] of the
/// target's caps, except that a gradient sample an emulation replaces by plain samples
/// (`emulate_grad_quad`'s TEX.NDV, `approx_grad_lod`'s explicit-LOD sample) takes the plain
/// samples' packing, not the gradient instruction's (NVIDIA TXD's fields sit at bit 16).
pub(crate) fn target_layout(ctx: &PassContext, t: &TexInstr) -> Option<PackedOffset> {
    let caps = ctx.target.caps;
    let replaced = matches!(t.lod, crate::ir::Lod::Grad { .. })
        && (super::routed_to(t, ctx, "emulate_grad_quad")
            || super::approx_grad_lod::routed_here(t, ctx));
    if replaced {
        caps.packed_offset
    } else {
        layout(caps, t)
    }
}

/// Emits into `out` the instructions that pack `comps` (u, v, w as 32-bit integers, each
/// field taking its low bits) by `layout`, and answers the packed register.
pub(crate) fn pack(
    ctx: &mut PassContext,
    layout: PackedOffset,
    comps: &[Scalar],
    span: Span,
    out: &mut Vec<Item>,
) -> Scalar {
    let mut order: Vec<usize> = (0..comps.len()).collect();
    let mut acc = None;
    if layout.fields_only {
        // The component of the field at bit 0, taken whole (ptxas: `BFI R15, R2, R3, <u>`).
        if let Some(k) = order
            .iter()
            .position(|&i| layout.field(i as u32).0 == 0 && matches!(comps[i], Scalar::Reg(_)))
        {
            acc = Some(comps[order.remove(k)]);
        }
    }
    for i in order {
        let (lo, width) = layout.field(i as u32);
        let dst = ctx.new_virtual_scalar(ScalarType::U32);
        out.push(ctx.alu(
            AluOp::InsertField,
            dst,
            vec![comps[i], acc.unwrap_or(Scalar::Zero), field_imm(lo, width)],
            span,
        ));
        acc = Some(dst);
    }
    acc.unwrap_or(Scalar::Zero)
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |mut t| {
        let Offset::Dynamic(comps) = &t.offset else {
            return Ok(t.into());
        };
        if !emulated_by(&t, ctx, "offsets_to_register") {
            return Ok(t.into());
        }
        let Some(layout) = target_layout(ctx, &t) else {
            return Err(ctx.unsupported(
                "register offsets",
                "the target's packed-offset layout is missing from mappings/targets.toml",
                t.span,
            ));
        };
        let comps = comps.clone();
        let mut out = Vec::new();
        let reg = pack(ctx, layout, &comps, t.span, &mut out);
        ctx.note(
            t.span,
            "offsets_to_register",
            format!(
                "{} register offsets packed into one register ({}-bit fields at a {}-bit stride) by {} instruction(s)",
                comps.len(),
                layout.bits,
                layout.stride,
                out.len()
            ),
        );
        t.offset = Offset::Packed(reg);
        out.push(Item::Tex(t));
        Ok(out.into())
    })
}
