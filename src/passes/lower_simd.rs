//! lower_simd: SIMD execution for SIMD targets.
//!
//! Rule: a vISA target runs every instruction at the `--simd` width (8 or 16; default 16,
//! IGC's usual pixel-shader width) with the first execution mask (`M1`); per-lane targets
//! (DX, NVIDIA) have none, and a vISA source's exec size and mask are dropped with a note.

use super::PassContext;
use crate::error::Error;
use crate::ir::{Exec, Item};

/// Runs the pass.
pub fn run(mut items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let caps = ctx.target.caps;
    if caps.simd && !caps.simd_widths.contains(&ctx.simd) {
        return Err(ctx.unsupported_program(
            &format!("SIMD{}", ctx.simd),
            &format!("the target runs SIMD widths {:?}", caps.simd_widths),
        ));
    }
    let exec = caps.simd.then_some(Exec {
        size: ctx.simd,
        mask: 0,
    });
    let mut dropped = Vec::new();
    for item in &mut items {
        match item {
            Item::Tex(t) => {
                if let (Some(e), None) = (t.exec, exec) {
                    dropped.push((t.span, e));
                }
                t.exec = exec;
            }
            Item::Alu(a) => a.exec = exec,
            _ => {}
        }
    }
    for (span, e) in dropped {
        ctx.warn(
            span,
            "lower_simd",
            format!(
                "SIMD{} (mask M{}) dropped: the target runs per lane",
                e.size,
                (e.mask & 7) + 1
            ),
        );
    }
    Ok(items)
}
