//! lower_simd: SIMD execution for SIMD targets.
//!
//! Rule: a vISA target runs every instruction at the `--simd` width (8 or 16; default 16,
//! IGC's usual pixel-shader width) with the first execution mask (`M1`); per-lane targets
//! (DX, NVIDIA) have none, and a vISA source's exec size and mask are dropped with a note,
//! a Report warning where the mask is not `M1` (another lane group, or `_NM`).

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
        let group = format!(
            "M{}{}",
            (e.mask & 7) + 1,
            if e.mask & 8 != 0 { "_NM" } else { "" }
        );
        let detail = format!(
            "SIMD{} (mask {group}) dropped: the target runs per lane",
            e.size
        );
        // `M1` under the dispatch mask is every lane of the kernel, one per thread of a
        // per-lane target: nothing is lost. Another lane group, or `_NM` (inactive lanes run
        // too), is not what a per-lane target does: a warning.
        if e.mask == 0 {
            ctx.note(span, "lower_simd", detail);
        } else {
            ctx.warn(span, "lower_simd", detail);
        }
    }
    Ok(items)
}
