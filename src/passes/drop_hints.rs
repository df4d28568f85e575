//! drop_hints: scheduling and divergence hints a target has no field for are dropped, with
//! a note.
//!
//! Rule: NVIDIA `.NODEP` ("no subsequent quad derivatives", a scheduling hint) and `.NDV`
//! (treat the quad as non-divergent for the LOD) change no sampler request of a converged
//! quad (seeds/nvidia-TEX.txt); DX and vISA have no such fields, so a translation to them
//! drops the hints and says so. vISA's non-uniform-sampler bit and `.cps` are likewise
//! vISA-only: other targets drop them with a note.

use super::PassContext;
use crate::error::Error;
use crate::ir::Item;

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    let has = |hint: &str| ctx.target.caps.hints.iter().any(|h| h == hint);
    let (ndv, nodep, cps, nonuniform) = (
        has("ndv"),
        has("nodep"),
        has("cps"),
        has("nonuniform_sampler"),
    );
    let mut notes = Vec::new();
    for item in items.iter_mut() {
        let Item::Tex(t) = item else { continue };
        let mut dropped = Vec::new();
        let f = &mut t.flags;
        for (kept, flag, name) in [
            (ndv, &mut f.ndv, ".NDV"),
            (nodep, &mut f.nodep, ".NODEP"),
            (cps, &mut f.cps, ".cps"),
            (
                nonuniform,
                &mut f.nonuniform_sampler,
                "the non-uniform sampler bit",
            ),
        ] {
            if !kept && std::mem::take(flag) {
                dropped.push(name);
            }
        }
        if !dropped.is_empty() {
            notes.push((
                t.span,
                format!(
                    "{} dropped: the target has no such field",
                    dropped.join(", ")
                ),
            ));
        }
    }
    for (span, n) in notes {
        ctx.note(span, "drop_hints", n);
    }
    Ok(())
}
