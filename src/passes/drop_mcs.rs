//! drop_mcs: vISA's explicit multisample control data dropped where the target reads the
//! surface's own.
//!
//! Rule: a vISA multisample read is two sampler messages, `load_mcs` (the MCS of the texel)
//! and `load_2dms_w` (the sample, with those MCS words passed back in), as IGC emits every
//! OpenCL `read_image*(image2d_msaa_t, coord, sample)` (research/intel-visa.md §4, the MSAA
//! row; corpus `shared/corpus/intel/dumps/*/c05_msaa`; texlate's own IGC reference
//! `tests/cases/visa/msaa/`). DX `ldms` and NVIDIA `TLD.MS` take only the texel and the
//! sample index: the hardware reads the MCS itself (seeds/dx-sm4-sample.md has no MCS
//! operand; research/nvidia.md §3 `TLD.MS`). So, on those targets (rows `fetch_ms_mcs` and
//! `fetch_mcs` of `mappings/rules.toml`):
//!
//! - `load_2dms_w`'s MCS words are dropped (`TexInstr::mcs` emptied): the target reads the
//!   surface's own MCS, which is what a `load_mcs` of the same texel returns; MCS words from
//!   anywhere else change which sample data the hardware reads, so every drop is a Report
//!   warning;
//! - a `load_mcs` whose result is read only as MCS words of `load_2dms_w` (directly, or
//!   through `mov`s whose results are read only so) disappears, with those moves;
//! - a `load_mcs` whose result any other translated instruction reads is refused, naming
//!   the reader: the target has no instruction that returns the MCS.
//!
//! Runs right after `legalize_forms`, on source registers (vISA variables resolved through
//! their aliases, `PassContext::source_aliases`). Items the translation does not keep
//! (comments of the source's other instructions) are not readers.

use super::{routed_to, PassContext};
use crate::error::Error;
use crate::hash::FastSet;
use crate::ir::{AluOp, Item, Reg, RegFile, Scalar, TexInstr, TexOp};

/// This pass's name, as `mappings/rules.toml` names it.
pub const NAME: &str = "drop_mcs";

/// Whether the rule table sends `t` to this pass.
fn routed_here(t: &TexInstr, ctx: &PassContext) -> bool {
    routed_to(t, ctx, NAME)
}

/// `r` with its variable resolved through the source's aliases to root storage.
fn root(r: Reg, ctx: &PassContext) -> Reg {
    let (mut index, mut sub) = (r.index, r.sub);
    if r.file == RegFile::Temp {
        // Alias chains are short; the bound guards a cycle in a malformed input.
        for _ in 0..16 {
            match ctx.source_aliases.get(&index) {
                Some(&(to, offset)) => {
                    index = to;
                    sub = sub.saturating_add(offset);
                }
                None => break,
            }
        }
    }
    Reg { index, sub, ..r }
}

fn reg_of(s: &Scalar, ctx: &PassContext) -> Option<Reg> {
    match s {
        Scalar::Reg(r) => Some(root(*r, ctx)),
        _ => None,
    }
}

/// The MCS words of a `load_2dms_w` this pass drops: a multisample fetch routed here.
fn drops_mcs(t: &TexInstr, ctx: &PassContext) -> bool {
    t.op == TexOp::Fetch && !t.mcs.is_empty() && routed_here(t, ctx)
}

/// The items that only carry `load_mcs` item `at`'s result to MCS words of `load_2dms_w`
/// (the moves), or the refusal naming the first other reader.
fn plumbing(items: &[Item], at: usize, ctx: &PassContext) -> Result<Vec<usize>, Error> {
    let Item::Tex(mcs) = &items[at] else {
        return Ok(Vec::new());
    };
    let mut held: FastSet<Reg> = mcs.dsts().iter().filter_map(|s| reg_of(s, ctx)).collect();
    let mut moves = Vec::new();
    let refuse = |what: String, span| {
        Err(ctx.unsupported(
            "a load_mcs whose result is read by another instruction",
            &format!(
                "{what} reads the MCS that load_mcs ({}) returns; the target has no multisample-control-surface read, so only MCS words of load_2dms_w can be dropped",
                ctx.location(mcs.span)
            ),
            span,
        ))
    };
    for (j, item) in items.iter().enumerate().skip(at + 1) {
        if held.is_empty() {
            break;
        }
        match item {
            Item::Tex(t) => {
                let mut probe = (**t).clone();
                if drops_mcs(t, ctx) {
                    probe.mcs.clear();
                }
                if probe
                    .sources()
                    .iter()
                    .any(|s| reg_of(s, ctx).is_some_and(|r| held.contains(&r)))
                {
                    return refuse(format!("`{}`", t.op), t.span);
                }
                for d in t.dsts() {
                    if let Some(r) = reg_of(&d, ctx) {
                        held.remove(&r);
                    }
                }
            }
            Item::Alu(a) => {
                let reads = a
                    .srcs
                    .iter()
                    .any(|s| reg_of(s, ctx).is_some_and(|r| held.contains(&r)));
                match (reads, a.op) {
                    (true, AluOp::Mov) => {
                        if let Some(r) = reg_of(&a.dst, ctx) {
                            held.insert(r);
                        }
                        moves.push(j);
                    }
                    (true, op) => return refuse(format!("the ALU instruction `{op:?}`"), a.span),
                    (false, _) => {
                        if let Some(r) = reg_of(&a.dst, ctx) {
                            held.remove(&r);
                        }
                    }
                }
            }
            Item::Comment(_) | Item::Opaque(_) => {}
        }
    }
    Ok(moves)
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let mut remove = vec![false; items.len()];
    for (i, item) in items.iter().enumerate() {
        let Item::Tex(t) = item else { continue };
        if t.op != TexOp::FetchMcs || !routed_here(t, ctx) {
            continue;
        }
        let moves = plumbing(&items, i, ctx)?;
        remove[i] = true;
        for &j in &moves {
            remove[j] = true;
        }
        ctx.warn(
            t.span,
            NAME,
            format!(
                "load_mcs dropped ({} move(s) of its result with it): no translated instruction reads its result but as MCS words of load_2dms_w, which the target reads itself",
                moves.len()
            ),
        );
    }
    let mut out = Vec::with_capacity(items.len());
    for (item, gone) in items.into_iter().zip(remove) {
        if gone {
            continue;
        }
        let item = match item {
            Item::Tex(mut t) if drops_mcs(&t, ctx) => {
                let words: Vec<String> = t.mcs.iter().map(|s| s.to_string()).collect();
                t.mcs.clear();
                ctx.warn(
                    t.span,
                    NAME,
                    format!(
                        "explicit MCS words dropped ({}): the target reads the surface's own MCS, which equals them only when they are load_mcs's result for this texel",
                        words.join(", ")
                    ),
                );
                Item::Tex(t)
            }
            other => other,
        };
        out.push(item);
    }
    Ok(out)
}
