//! coalesce_moves: a temporary that exists only to be moved into another is written in
//! place.
//!
//! Rule: for `mov B.k <- A.i` where element `A.i` of a virtual vector without a layout of
//! its own is written once and read only by this move, the instruction that writes `A.i`
//! writes `B.k` instead and the move goes (the classic copy coalescing of register
//! allocators; `align_regs` moves operands into fresh vectors without looking at where they
//! came from, and this pass takes the moves back where nothing else needs the temporary).
//! The other way round likewise: where `A.i` is written once and read only by this move,
//! and `B.k` (without a layout of its own, of the same type) is written only by it, the
//! readers of `B.k` read `A.i` and the move goes (a query's results moved out of the vector
//! the target writes, into the temporaries a conversion reads).

use super::PassContext;
use crate::error::Error;
use crate::hash::{FastMap, FastSet};
use crate::ir::{AluOp, Item, Reg, RegFile, Scalar};

fn for_each_reg(item: &mut Item, mut f: impl FnMut(&mut Reg, bool)) {
    let mut on = |s: &mut Scalar, write: bool| {
        if let Scalar::Reg(r) = s {
            f(r, write);
        }
    };
    match item {
        Item::Tex(t) => {
            t.for_each_source_mut(|s| on(s, false));
            t.for_each_dst_mut(|s| on(s, true));
        }
        Item::Alu(a) => {
            a.srcs.iter_mut().for_each(|s| on(s, false));
            on(&mut a.dst, true);
        }
        Item::Comment(_) | Item::Opaque(_) => {}
    }
}

/// How a virtual element is used: its reads and writes, and the items naming it, in order.
#[derive(Default)]
struct Uses {
    reads: u32,
    writes: u32,
    at: Vec<usize>,
}

/// Runs the pass.
pub fn run(mut items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    // Reads and writes of every virtual element, and where it is named, in one walk.
    let mut uses: FastMap<(u32, u32), Uses> = FastMap::default();
    for (i, item) in items.iter_mut().enumerate() {
        for_each_reg(item, |r, write| {
            if r.file == RegFile::Virtual {
                let e = uses.entry((r.index, r.sub)).or_default();
                if write {
                    e.writes += 1;
                } else {
                    e.reads += 1;
                }
                e.at.push(i);
            }
        });
    }
    let mut rename: FastMap<(u32, u32), Reg> = FastMap::default();
    // The elements `rename` renames to (all virtual), so that a look-up by value is one probe.
    let mut renamed_to: FastSet<(u32, u32)> = FastSet::default();
    let mut drop = vec![false; items.len()];
    for (i, item) in items.iter().enumerate() {
        let Item::Alu(a) = item else { continue };
        let (Scalar::Reg(dst), [Scalar::Reg(src)]) = (a.dst, a.srcs.as_slice()) else {
            continue;
        };
        let both_virtual = dst.file == RegFile::Virtual && src.file == RegFile::Virtual;
        if a.op != AluOp::Mov || a.pred.is_some() || !both_virtual {
            continue;
        }
        let (s, d) = ((src.index, src.sub), (dst.index, dst.sub));
        if uses.get(&s).is_none_or(|u| (u.reads, u.writes) != (1, 1)) {
            continue;
        }
        let taken = |k: (u32, u32)| rename.contains_key(&k) || renamed_to.contains(&k);
        // B.k read as A.i: B.k written only here and named nowhere before, A.i written before.
        let reverse = !ctx.virtual_layouts.contains_key(&dst.index)
            && uses.get(&d).is_some_and(|u| u.writes == 1)
            && uses[&d].at.iter().all(|&k| k >= i)
            && uses[&s].at.first().is_some_and(|&k| k < i)
            && ctx.virtual_types.get(&s) == ctx.virtual_types.get(&d)
            && !taken(s)
            && !taken(d);
        if ctx.virtual_layouts.contains_key(&src.index) || rename.contains_key(&d) {
            if reverse {
                rename.insert(d, *src);
                renamed_to.insert(s);
                drop[i] = true;
            }
            continue;
        }
        // The destination must be untouched between the source's write and the move, or
        // writing it early would clobber a value still to be read.
        let def = uses[&s].at.first().copied().unwrap_or(i);
        let busy = uses
            .get(&d)
            .is_some_and(|u| u.at.iter().any(|&k| k > def && k < i));
        if busy || renamed_to.contains(&d) {
            continue;
        }
        rename.insert(s, dst);
        renamed_to.insert(d);
        drop[i] = true;
    }
    if rename.is_empty() {
        return Ok(items);
    }
    let count = rename.len();
    let mut out = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        if drop[i] {
            continue;
        }
        for_each_reg(&mut item, |r, _| {
            if r.file == RegFile::Virtual {
                if let Some(to) = rename.get(&(r.index, r.sub)) {
                    *r = *to;
                }
            }
        });
        out.push(item);
    }
    ctx.note(
        crate::ir::Span::default(),
        "coalesce_moves",
        format!("{count} move(s) coalesced"),
    );
    Ok(out)
}
