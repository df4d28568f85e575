//! lower_lod: an explicit LOD that is the constant 0 becomes the level-zero form.
//!
//! Rule: `sample_l` with 0 → LZ forms (`sample_lz`, `TEX.LZ`, DX `sample_l` with `l(0.0)`,
//! `sample_c_lz` / `TEX.LZ.DC` with a compare); a fetch at level 0 → `ld_lz` / `TLD.LZ` /
//! `load_lz` (Mesa NAK `nak_nir_lower_tex`: "constant lod == 0 → Zero"; brw: "lod == 0 turns
//! TXL → SAMPLE_LZ and TXF → LD_LZ on gfx9+"). A vISA LOD slot left out reads 0 (seeds:
//! "missing parameters will have the value of 0"), which lifts as `Scalar::Zero`. A target
//! whose fetch reads the level from its address (DX `ld`, `fetch_lod_in_address`) is given
//! the level 0 as an immediate there.

use super::{for_each_tex, PassContext};
use crate::error::Error;
use crate::ir::{Dim, Dimension, Imm, Item, Lod, Scalar, ScalarType, TexOp};

/// Whether `s` is the constant 0 (+0.0, -0.0 or integer 0).
pub fn is_zero(s: &Scalar) -> bool {
    match s {
        Scalar::Zero => true,
        // Only a float's sign bit may be ignored (-0.0 is 0); an integer is 0 only as 0.
        Scalar::Imm(i) => match i.ty {
            ScalarType::F32 | ScalarType::F16 => i.bits & 0x7fff_ffff == 0,
            ScalarType::F64 => i.bits & 0x7fff_ffff_ffff_ffff == 0,
            _ => i.bits == 0,
        },
        Scalar::Reg(_) => false,
    }
}

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    let mut notes = Vec::new();
    let lod_in_address = ctx.target.caps.fetch_lod_in_address;
    for_each_tex(items, |_, t| {
        let zero = matches!(&t.lod, Lod::Level(s) if is_zero(s));
        let buffer = matches!(
            t.dim,
            Dimension::Known {
                dim: Dim::Buffer,
                ..
            }
        );
        if buffer && t.op == TexOp::Fetch && t.lod != Lod::Zero {
            // A buffer has no mip levels (DX ld: "if the resource is a buffer ... srcAddress.a
            // is ignored"): its fetch has no level to carry.
            t.lod = Lod::Zero;
            notes.push((t.span, "a buffer has no mip levels: its LOD is dropped"));
        }
        if matches!(t.op, TexOp::QuerySamples | TexOp::SamplePos) && t.lod == Lod::Zero {
            // A multisample surface has one level, and its sample queries name none (DX
            // sampleinfo / samplepos, vISA sampleinfo, NVIDIA TXQ TEX_HEADER_TEXTURE_TYPE):
            // their canonical LOD is implicit.
            t.lod = Lod::Implicit;
        } else if let TexOp::Gather { .. } = t.op {
            // A gather reads level 0 on every ISA and names no LOD (DX gather4, vISA
            // sample4, NVIDIA TLD4): its canonical LOD is implicit.
            if t.lod == Lod::Zero || zero {
                t.lod = Lod::Implicit;
            }
        } else if zero && matches!(t.op, TexOp::Sample | TexOp::Fetch) {
            t.lod = Lod::Zero;
            notes.push((t.span, "explicit LOD 0 → level-zero form"));
        }
        if lod_in_address
            && t.op == TexOp::Fetch
            && t.lod == Lod::Zero
            && t.sample_index.is_none()
            && !buffer
        {
            t.lod = Lod::Level(Scalar::Imm(Imm {
                bits: 0,
                ty: ScalarType::U32,
            }));
            notes.push((t.span, "level 0 named in the fetch address"));
        }
        Ok(())
    })?;
    for (span, n) in notes {
        ctx.note(span, "lower_lod", n);
    }
    Ok(())
}
