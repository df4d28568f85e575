//! The constants a vISA kernel's stream sets before each sampler instruction
//! (`Codec::constants`, folded by `passes::fold_constants`): a variable written whole-lane by
//! `mov (M1, N) Vx(0,0)<1> imm:t` (read back as `AluOp::Mov` of an immediate) holds the
//! immediate in every lane of its first `N` elements. IGC passes an explicit LOD this way
//! (a `sample_l_c` at a constant 0 is DX's `sample_c_lz`).
//!
//! Conservative by construction: a constant is kept only for the register the move wrote
//! (variable and byte offset) and only for instructions running no more lanes than the move
//! and under the same mask; any other write to the variable forgets it, any instruction
//! texlate does not read (an opaque line other than a declaration) forgets every constant,
//! and variables that alias another's storage (or are aliased) are never tracked.

use std::collections::HashSet;

use crate::ir::{Item, Program, Reg, RegFile, Scalar};

/// For each texture instruction of `program`, in order, the registers holding a constant.
pub fn constants(program: &Program, aliased: &HashSet<u32>) -> Vec<Vec<(Reg, u32)>> {
    // (register, bits, exec size, mask) of each live constant.
    let mut known: Vec<(Reg, u32, u8, u8)> = Vec::new();
    let mut out = Vec::new();
    let forget = |known: &mut Vec<(Reg, u32, u8, u8)>, s: &Scalar| {
        if let Scalar::Reg(r) = s {
            known.retain(|(k, ..)| k.file != r.file || k.index != r.index);
        }
    };
    for item in &program.items {
        match item {
            Item::Tex(t) => {
                let (size, mask) = t.exec.map_or((1, 0), |e| (e.size, e.mask));
                out.push(
                    known
                        .iter()
                        .filter(|(_, _, n, m)| *n >= size && *m == mask)
                        .map(|(r, v, ..)| (*r, *v))
                        .collect(),
                );
                for d in t.dsts() {
                    forget(&mut known, &d);
                }
            }
            Item::Alu(a) => {
                forget(&mut known, &a.dst);
                let (Scalar::Reg(r), [Scalar::Imm(imm)], None, Some(e)) =
                    (a.dst, a.srcs.as_slice(), a.pred, a.exec)
                else {
                    continue;
                };
                let whole = a.op == crate::ir::AluOp::Mov
                    && r.file == RegFile::Temp
                    && !aliased.contains(&r.index)
                    && imm.bits >> 32 == 0;
                if whole {
                    known.push((r, imm.bits as u32, e.size, e.mask));
                }
            }
            Item::Opaque(o) => {
                let declaration = o.text.as_deref().is_some_and(|t| {
                    let t = t.trim_start();
                    t.is_empty() || t.starts_with('.') || t.starts_with("//")
                });
                if !declaration {
                    known.clear();
                }
            }
            Item::Comment(_) => {}
        }
    }
    out
}
