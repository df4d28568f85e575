//! lower_offsets: texel offsets in the target's layout.
//!
//! Rule: DX `_aoffimmi` (extended token U\[12:9\] V\[16:13\] W\[20:17\]) and vISA `Aoffimmi`
//! (U\[11:8\] V\[7:4\] R\[3:0\]) are immediates of the instruction: the IR's `Offset::Imm` is
//! what their emitters encode. NVIDIA `.AOFFI` reads them packed in a register
//! (`TargetCaps::packed_offset`: 4-bit fields; TLD4 6-bit fields at an 8-bit stride,
//! research/nvidia.md §4): the pass packs the constant and moves it into a fresh register
//! (`MOV32I`, as ptxas does). Every ISA's immediate range is [-8, 7] (seeds); all-zero
//! offsets are dropped. Cube maps were refused by `legalize_forms`; register offsets are the
//! next passes' (`offsets_to_register`, `offsets_from_register`, `repack_offsets`).

use super::{expand_tex, PassContext};
use crate::error::Error;
use crate::ir::{AluOp, Imm, Item, Offset, Scalar, ScalarType};
use crate::mappings::targets::OffsetForm;

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |mut t| {
        let Offset::Imm(o) = t.offset else {
            return Ok(t.into());
        };
        if o.iter().any(|v| !(-8..=7).contains(v)) {
            return Err(ctx.unsupported(
                &format!("offsets ({}, {}, {})", o[0], o[1], o[2]),
                "immediate texel offsets are 4-bit two's complement, [-8, 7], on every ISA",
                t.span,
            ));
        }
        if o == [0; 3] {
            t.offset = Offset::None;
            ctx.note(t.span, "lower_offsets", "zero offsets dropped");
            return Ok(t.into());
        }
        if ctx.target.caps.offsets == OffsetForm::Immediate {
            return Ok(t.into());
        }
        let Some(layout) = super::offsets_to_register::target_layout(ctx, &t) else {
            return Err(ctx.unsupported(
                "texel offsets",
                "the target's packed-offset layout is missing from mappings/targets.toml",
                t.span,
            ));
        };
        let packed = layout.pack(o);
        let reg = ctx.new_virtual_scalar(ScalarType::U32);
        let mov = ctx.alu(
            AluOp::Mov,
            reg,
            vec![Scalar::Imm(Imm {
                bits: u64::from(packed),
                ty: ScalarType::U32,
            })],
            t.span,
        );
        ctx.note(
            t.span,
            "lower_offsets",
            format!(
                "offsets ({}, {}, {}) packed as {packed:#x}",
                o[0], o[1], o[2]
            ),
        );
        t.offset = Offset::Packed(reg);
        Ok(vec![mov, Item::Tex(t)].into())
    })
}
