//! fold_constants: operands the target needs as immediates, taken from the constants the
//! source stream sets.
//!
//! Rule: an offset register (NVIDIA `.AOFFI`) or an explicit LOD the source stream set to a
//! constant before the instruction (`MOV32I R9, 0xe1` feeding `TEX.AOFFI`, as ptxas emits
//! for immediate offsets, research/nvidia.md §4) becomes that constant: offsets unpacked by
//! the source's packing (`TargetCaps::packed_offset`), an LOD as its bits. The constants
//! themselves come from the source codec (`Codec::constants`), computed by the translation
//! driver before the passes run.

use super::{for_each_tex, PassContext};
use crate::error::Error;
use crate::ir::{Imm, Item, Lod, Offset, Reg, Scalar, ScalarType, TexOp};

/// The constant `s` holds before texture instruction number `at` (0-based, in order).
fn constant(ctx: &PassContext, at: usize, s: Scalar) -> Option<u32> {
    let Scalar::Reg(r) = s else { return None };
    ctx.constants
        .get(at)?
        .iter()
        .find(|(k, _)| *k == r)
        .map(|(_, v)| *v)
}

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    let mut notes = Vec::new();
    let snapshot: &PassContext = ctx;
    let mut ordinal = 0;
    for_each_tex(items, |_, t| {
        let at = ordinal;
        ordinal += 1;
        if let Offset::Packed(reg) = t.offset {
            let layout = super::offsets_to_register::layout(snapshot.source_caps, t);
            if let (Some(layout), Some(v)) = (layout, constant(snapshot, at, reg)) {
                t.offset = Offset::Imm(layout.unpack(v));
                notes.push((t.span, format!("offsets {reg} = {v:#x} folded")));
            } else if reg == Scalar::Zero {
                t.offset = Offset::Imm([0; 3]);
            }
        }
        if let Lod::Level(s) = t.lod {
            if let Some(v) = constant(snapshot, at, s) {
                let ty = if t.op == TexOp::Fetch {
                    ScalarType::I32
                } else {
                    ScalarType::F32
                };
                t.lod = Lod::Level(Scalar::Imm(Imm {
                    bits: u64::from(v),
                    ty,
                }));
                notes.push((t.span, format!("LOD {s} = {v:#x} folded")));
            }
        }
        Ok(())
    })?;
    for (span, n) in notes {
        ctx.note(span, "fold_constants", n);
    }
    Ok(())
}

/// A register set to a constant: what the source codec reports per item.
pub type Constant = (Reg, u32);
