//! assign_temps: target registers for the passes' virtual temporaries.
//!
//! Rule: temporaries never clobber a live value. Every register the translated stream
//! names, and every register of the register map, keeps its value: temporaries come only
//! from the others. Two temporaries share registers only when their live ranges (first to
//! last item naming them) do not overlap: the interference graph of the whole stream
//! (petgraph) decides, and each temporary takes the lowest registers its neighbours leave
//! free, with its layout's constraint (`align_regs`: an NVIDIA vector aligned to its length,
//! a DX vector in one register, vISA channel blocks in one variable).

use std::collections::BTreeSet;

use petgraph::graph::{NodeIndex, UnGraph};

use super::map_regs::{channel_stride, visa_type};
use super::PassContext;
use crate::error::Error;
use crate::hash::FastMap;
use crate::ir::layout::GroupLayout;
use crate::ir::{Item, Reg, RegFile, Scalar, Span, Variable};
use crate::mappings::targets::RegisterModel;

/// One virtual vector's live range and size.
#[derive(Clone, Copy, Debug)]
struct Live {
    first: usize,
    last: usize,
    len: u32,
    span: Span,
}

fn for_each_scalar(item: &mut Item, mut f: impl FnMut(&mut Scalar)) {
    match item {
        Item::Tex(t) => {
            t.for_each_source_mut(&mut f);
            t.for_each_dst_mut(&mut f);
        }
        Item::Alu(a) => {
            f(&mut a.dst);
            a.srcs.iter_mut().for_each(f);
        }
        Item::Comment(_) | Item::Opaque(_) => {}
    }
}

fn span_of(item: &Item) -> Span {
    match item {
        Item::Tex(t) => t.span,
        Item::Alu(a) => a.span,
        Item::Comment(c) => c.span,
        Item::Opaque(o) => o.span,
    }
}

/// Runs the pass.
pub fn run(mut items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let model = ctx.target.caps.register_model;
    let (first, count) = (
        ctx.target.caps.first_register,
        ctx.target.caps.register_count,
    );
    let stride = channel_stride(ctx.simd, ctx.target.caps.grf_bytes);
    let mut live: FastMap<u32, Live> = FastMap::default();
    let mut used: BTreeSet<u32> = ctx.regmap.entries.values().map(|r| r.index).collect();
    for (i, item) in items.iter_mut().enumerate() {
        let span = span_of(item);
        for_each_scalar(item, |s| {
            let Scalar::Reg(r) = s else { return };
            if r.file == RegFile::Virtual {
                let l = live.entry(r.index).or_insert(Live {
                    first: i,
                    last: i,
                    len: 0,
                    span,
                });
                l.last = i;
                l.len = l.len.max(r.sub + 1);
            } else if r.file == RegFile::Temp {
                used.insert(r.index);
            }
        });
    }
    let mut order: Vec<(u32, Live)> = live.into_iter().collect();
    order.sort_by_key(|&(v, l)| (l.first, v));
    // The interference graph: an edge between temporaries alive at once. Swept in order of
    // first use, a temporary meets exactly the earlier ones still alive where it starts, so
    // building it costs its edges, not every pair. Node `k` is `order[k]`.
    let mut graph: UnGraph<u32, ()> = UnGraph::with_capacity(order.len(), 0);
    let mut alive: Vec<(usize, NodeIndex)> = Vec::new();
    for &(v, l) in &order {
        let node = graph.add_node(v);
        alive.retain(|&(last, _)| last >= l.first);
        for &(_, other) in &alive {
            graph.add_edge(other, node, ());
        }
        alive.push((l.last, node));
    }
    // First free index of the target's registers past everything the stream names.
    let base = match model {
        RegisterModel::Scalar => 0,
        RegisterModel::Vec4 => used.iter().next_back().map_or(0, |m| m.saturating_add(1)),
        RegisterModel::ByteVariables => used
            .iter()
            .next_back()
            .map_or(first, |m| m.saturating_add(1).max(first)),
    };
    // Virtual vector → first target index; by node, the same.
    let mut placed: FastMap<u32, u32> =
        FastMap::with_capacity_and_hasher(order.len(), Default::default());
    let mut placed_node: Vec<Option<u32>> = vec![None; order.len()];
    let mut taken_by_neighbours: Vec<(u32, u32)> = Vec::new();
    for (k, &(v, l)) in order.iter().enumerate() {
        let layout = ctx
            .virtual_layouts
            .get(&v)
            .copied()
            .unwrap_or(GroupLayout::Consecutive { align: 1 });
        taken_by_neighbours.clear();
        taken_by_neighbours.extend(
            graph
                .neighbors(NodeIndex::new(k))
                .filter_map(|n| placed_node[n.index()].map(|b| (b, order[n.index()].1.len))),
        );
        let overlaps = |start: u32, len: u32| {
            taken_by_neighbours.iter().any(|&(b, n)| match model {
                RegisterModel::Scalar => start < b + n && b < start + len,
                _ => b == start,
            })
        };
        let index = match model {
            RegisterModel::Scalar => {
                let align = match layout {
                    GroupLayout::Consecutive { align } => align.max(1),
                    _ => 1,
                };
                (first..count)
                    .step_by(align as usize)
                    .find(|&b| {
                        b + l.len <= count
                            && !(b..b + l.len).any(|r| used.contains(&r))
                            && !overlaps(b, l.len)
                    })
                    .ok_or_else(|| {
                        ctx.unsupported(
                            "a temporary register",
                            "no free NVIDIA registers are left (R0..R254 are live)",
                            l.span,
                        )
                    })?
            }
            RegisterModel::Vec4 => {
                if l.len > 4 {
                    return Err(ctx.unsupported(
                        "a temporary vector",
                        &format!("{} components do not fit one DX register", l.len),
                        l.span,
                    ));
                }
                (base..).find(|&b| !overlaps(b, 1)).unwrap_or(base)
            }
            RegisterModel::ByteVariables => {
                // A variable is declared with one type: temporaries share one only when
                // they are of its type (a `ud` LOD and an `f` layer must not meet in one
                // variable, whose declaration would then mistype one of them).
                let ty = visa_type(ctx.virtual_types.get(&(v, 0)).copied());
                let index = (base..)
                    .find(|&b| {
                        !overlaps(b, 1)
                            && ctx
                                .variables
                                .get(&format!("V{b}"))
                                .is_none_or(|var| var.ty == ty)
                    })
                    .unwrap_or(base);
                let name = format!("V{index}");
                let elts = l.len * stride / 4;
                let var = ctx
                    .variables
                    .entry(name.clone())
                    .or_insert_with(|| Variable {
                        name,
                        ty: ty.to_string(),
                        num_elts: elts,
                    });
                var.num_elts = var.num_elts.max(elts);
                index
            }
        };
        placed.insert(v, index);
        placed_node[k] = Some(index);
    }
    let target = |r: Reg| -> Reg {
        let b = placed[&r.index];
        match model {
            RegisterModel::Scalar => Reg {
                file: RegFile::Temp,
                index: b + r.sub,
                sub: 0,
            },
            RegisterModel::Vec4 => Reg {
                file: RegFile::Temp,
                index: b,
                sub: r.sub,
            },
            RegisterModel::ByteVariables => Reg {
                file: RegFile::Temp,
                index: b,
                sub: r.sub * stride,
            },
        }
    };
    for item in &mut items {
        for_each_scalar(item, |s| {
            if let Scalar::Reg(r) = s {
                if r.file == RegFile::Virtual {
                    *r = target(*r);
                }
            }
        });
    }
    if !placed.is_empty() {
        ctx.note(
            Span::default(),
            "assign_temps",
            format!("{} temporaries placed", placed.len()),
        );
    }
    Ok(items)
}
