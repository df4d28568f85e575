//! canonical_coords: coordinates spatial only, the array layer in its own operand.
//!
//! Rule: a source that passes coordinates positionally (`TargetCaps::positional_coords`:
//! vISA's u, v, r, where "for 1D_ARRAY v is the unnormalized array index, for 2D_ARRAY r",
//! seeds/visa-3D_SAMPLE.md and visa-3D_LOAD.md) has its layer moved out of the coordinates
//! once the bindings give the dimension, and the positions the dimension ignores ("ignored"
//! in the seeds' u/v/r table) dropped, with a note.

use super::{for_each_tex, PassContext};
use crate::error::Error;
use crate::ir::{Dim, Dimension, Item, Scalar};

/// Spatial coordinates of a dimension.
pub fn spatial_count(dim: Dim) -> usize {
    match dim {
        Dim::D1 | Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer => 1,
        Dim::D2 => 2,
        Dim::D3 | Dim::Cube => 3,
    }
}

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    if !ctx.source_caps.positional_coords {
        return Ok(());
    }
    let mut notes = Vec::new();
    for_each_tex(items, |_, t| {
        let Dimension::Known { dim, arrayed, .. } = t.dim else {
            return Ok(());
        };
        let n = spatial_count(dim);
        // Only an instruction that passes coordinates has a positional layer (a size query
        // passes none).
        if arrayed && t.array_index.is_none() && dim != Dim::Cube && !t.coord.is_empty() {
            t.array_index = Some(t.coord.get(n).copied().unwrap_or(Scalar::Zero));
            notes.push((t.span, format!("position {} is the layer", n + 1)));
        }
        if t.coord.len() > n {
            let dropped = t.coord.len() - n - usize::from(arrayed && dim != Dim::Cube);
            t.coord.truncate(n);
            if dropped > 0 {
                notes.push((
                    t.span,
                    format!("{dropped} coordinate(s) the dimension ignores dropped"),
                ));
            }
        }
        Ok(())
    })?;
    for (span, n) in notes {
        ctx.note(span, "canonical_coords", n);
    }
    Ok(())
}
