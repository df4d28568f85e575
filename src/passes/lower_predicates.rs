//! lower_predicates: a guarded instruction keeps its guard in the target's predicate file.
//!
//! Rule: predicate registers are numbered from each ISA's first usable one
//! (`TargetCaps::predicates`: NVIDIA `@P0`..`@P6`, vISA `P1`..`P4095`, P0 being predefined):
//! the n-th usable predicate of the source is the n-th of the target. A target whose texture
//! instructions take no predicate (DX: flow control is by branches) refuses a guarded one,
//! as does a predicate past the target's last.

use super::PassContext;
use crate::error::Error;
use crate::ir::{Item, Pred};

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    let from = ctx.source_caps.predicates.first().copied().unwrap_or(0);
    let range = ctx.target.caps.predicates.clone();
    let mut notes = Vec::new();
    for item in items.iter_mut() {
        let (pred, span) = match item {
            Item::Tex(t) => (&mut t.pred, t.span),
            Item::Alu(a) => (&mut a.pred, a.span),
            _ => continue,
        };
        let Some(p) = *pred else { continue };
        let (Some(&first), Some(&last)) = (range.first(), range.last()) else {
            return Err(ctx.unsupported(
                "a predicated texture instruction",
                "the target's texture instructions take no predicate",
                span,
            ));
        };
        let index = p.index.saturating_sub(from) + first;
        if index > last {
            return Err(ctx.unsupported(
                &format!("predicate {}", p.index),
                &format!("the target's predicates end at {last}"),
                span,
            ));
        }
        *pred = Some(Pred { index, ..p });
        if index != p.index {
            notes.push((span, format!("predicate {} → {index}", p.index)));
        }
    }
    for (span, n) in notes {
        ctx.note(span, "lower_predicates", n);
    }
    Ok(())
}
