//! The vISA operands of a texture instruction that span several channel blocks
//! (`Codec::register_groups`): the result. "For each enabled channel <exec_size> elements
//! are returned in RGBA order, with the disabled channels skipped ... Each channel's return
//! data start in the next GRF" (seeds/visa-3D_SAMPLE.md): the written channels are blocks of
//! one variable, one channel stride apart. Every parameter is its own raw operand.

use super::lift::channel_stride;
use crate::ir::TexInstr;
use crate::isa::{GroupLayout, Operand, RegGroup};

/// The register groups of `t` as vISA writes it.
pub fn register_groups(t: &TexInstr) -> Vec<RegGroup> {
    let exec = t.exec.map_or(16, |e| e.size);
    // A gather (sample4) returns all four texels: every channel is written.
    let gather = matches!(t.op, crate::ir::TexOp::Gather { .. });
    let dst: Vec<Operand> = (0..4u8)
        .filter(|&c| gather || t.dst[c as usize].is_some())
        .map(Operand::Dst)
        .collect();
    if dst.is_empty() {
        return Vec::new();
    }
    vec![RegGroup {
        name: "dst",
        operands: dst,
        layout: GroupLayout::ChannelBlocks {
            stride: channel_stride(exec, t.result_type),
        },
    }]
}
