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
use crate::ir::{Isa, Item};

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    let to = ctx.target.isa;
    let mut notes = Vec::new();
    for item in items.iter_mut() {
        let Item::Tex(t) = item else { continue };
        let mut dropped = Vec::new();
        if to != Isa::Nvidia {
            if std::mem::take(&mut t.flags.ndv) {
                dropped.push(".NDV");
            }
            if std::mem::take(&mut t.flags.nodep) {
                dropped.push(".NODEP");
            }
        }
        if to != Isa::Visa {
            if std::mem::take(&mut t.flags.cps) {
                dropped.push(".cps");
            }
            if std::mem::take(&mut t.flags.nonuniform_sampler) {
                dropped.push("the non-uniform sampler bit");
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
