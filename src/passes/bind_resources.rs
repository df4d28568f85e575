//! bind_resources: every texture and sampler to the target's slot, with the dimension and
//! return type the bindings say (DESIGN.md §4).
//!
//! Rule: an instruction matches the bindings row whose source-side texture and sampler are
//! its own; one without a sampler (fetch, size query) matches the first row with its
//! texture. A resource no row names gets a default row: DX `tN`/`sM` ↔ vISA `T(N+6)`/`SM` ↔
//! NVIDIA index `(M << 8) | N` (seeds/nvidia-TEX.txt: `#tsPtrIdxU13 = {#smpU05, #tidU08}`;
//! vISA's T0..T5 are predefined surfaces and IGC puts binding slot 0 in T6,
//! `TargetCaps::first_surface`),
//! with the dimension the source carries (DX declarations, the NVIDIA instruction). Where no
//! dimension is known (a vISA source) the error names the surface and prints the row to add.
//! The target's declarations (resources with dimension and return type, samplers with
//! `comparison` when a depth compare uses them) are collected here.

use super::{NoteDetail, PassContext};
use crate::error::Error;
use crate::ir::{
    Dim, Dimension, Isa, Item, ResRef, Resource, SamplerDecl, ScalarType, Span, TexInstr, TexOp,
    TypeName,
};
use crate::translate::bindings::{dim_name, Binding, Bindings, ReturnType, Slot};

/// Whether `op` reads through a sampler (a filtered or compared access).
pub fn uses_sampler(op: TexOp) -> bool {
    matches!(op, TexOp::Sample | TexOp::Gather { .. } | TexOp::QueryLod)
}

/// The source-side slot of an instruction, if its texture is a binding.
fn source_slot(t: &TexInstr) -> Option<Slot> {
    let ResRef::Binding(texture) = t.texture else {
        return None;
    };
    let sampler = match &t.sampler {
        Some(ResRef::Binding(s)) => Some(*s),
        _ => None,
    };
    Some(Slot { texture, sampler })
}

/// The default slots of a resource the source names `slot` (see the module doc); `None`
/// where the source's surface number has no binding slot (a predefined vISA surface).
fn default_slots(from: Isa, slot: Slot, with_sampler: bool) -> [Option<Slot>; 3] {
    let first = |isa| crate::mappings::targets::caps(isa).first_surface;
    let combined = crate::mappings::targets::caps(from).combined_index;
    let (texture, sampler) = match from {
        _ if combined => (Some(slot.texture & 0xff), slot.texture >> 8),
        _ => (
            slot.texture.checked_sub(first(from)),
            slot.sampler.unwrap_or(0),
        ),
    };
    let Some(texture) = texture else {
        return [None; 3];
    };
    let split = |isa| Slot {
        texture: texture + first(isa),
        sampler: with_sampler.then_some(sampler),
    };
    // The bound index has 8 bits of texture and 5 of sampler (seeds: `{#smpU05, #tidU08}`).
    let nvidia = (texture < 256 && sampler < 32).then_some(Slot {
        texture: (sampler << 8) | texture,
        sampler: None,
    });
    [Some(split(Isa::Visa)), Some(split(Isa::Dxbc)), nvidia]
}

fn return_type_of(t: &TexInstr) -> ReturnType {
    match t.result_type {
        Some(ScalarType::I32) => ReturnType::Sint,
        Some(ScalarType::U32) if t.op == TexOp::Sample || matches!(t.op, TexOp::Gather { .. }) => {
            ReturnType::Uint
        }
        Some(ScalarType::Other(TypeName::UNORM)) => ReturnType::Unorm,
        Some(ScalarType::Other(TypeName::SNORM)) => ReturnType::Snorm,
        _ => ReturnType::Float,
    }
}

/// Where an instruction was read, in words: its line, or its byte offset in a binary.
fn where_read(span: Span) -> String {
    if span.line > 0 {
        format!("line {}", span.line)
    } else {
        format!("byte offset {:#x}", span.offset)
    }
}

pub(super) fn spelled(isa: Isa, slot: Slot) -> String {
    match isa {
        Isa::Dxbc => format!("t{}", slot.texture),
        Isa::Visa => format!("T{}", slot.texture),
        Isa::Nvidia => format!("texture {:#x}", slot.texture),
    }
}

/// Runs the pass.
pub fn run(mut items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let to = ctx.target.isa;
    // Where each default row (one no bindings file gave) was made: the first instruction
    // that used its slot.
    let mut first_use: Vec<(usize, Span)> = Vec::new();
    for item in &mut items {
        let Item::Tex(t) = item else { continue };
        if crate::passes::legalize_forms::rule_ids(t, ctx.source_caps).contains(&"buffer_ops") {
            // UAV and buffer reads are refused with the rule table's reason, and their
            // `u#` slots are not textures.
            ctx.check_rule("buffer_ops", t.span)?;
            continue;
        }
        if let ResRef::Handle(_) = t.texture {
            ctx.check_rule("handle", t.span)?;
            continue;
        }
        let Some(slot) = source_slot(t) else {
            ctx.check_rule("resource_indexed", t.span)?;
            continue;
        };
        let with_sampler = uses_sampler(t.op);
        let row = match ctx.bindings.find(ctx.from, slot.texture, slot.sampler) {
            Some(r) => r,
            None => {
                let [visa, dxbc, nvidia] = default_slots(ctx.from, slot, with_sampler);
                let mut row = Binding {
                    dim: t.dim,
                    return_type: return_type_of(t),
                    visa,
                    dxbc,
                    nvidia,
                    line: 0,
                };
                if row.dim == Dimension::Deferred {
                    row.dim = crate::translate::bindings::parse_dim("2d").unwrap_or(t.dim);
                    return Err(ctx.unsupported(
                        &format!("{} {}", ctx.from.name(), spelled(ctx.from, slot)),
                        &format!(
                            "its dimension is not known (the instruction does not carry one, nor does a declaration); give --bindings with a row such as:\n{}",
                            Bindings::row_toml(&row).replace("\"2d\"", "\"2d\"  # the real dimension")
                        ),
                        t.span,
                    ));
                }
                ctx.bindings.rows.push(row);
                first_use.push((ctx.bindings.rows.len() - 1, t.span));
                ctx.bindings.rows.len() - 1
            }
        };
        let binding = ctx.bindings.rows[row].clone();
        match (t.dim, binding.dim) {
            (Dimension::Deferred, d) => t.dim = d,
            // NVIDIA has no buffer dimension: a buffer is fetched as a 1D texture (research
            // §3); the binding says which it is.
            (
                Dimension::Known {
                    dim: Dim::D1,
                    arrayed: false,
                    ..
                },
                d @ Dimension::Known {
                    dim: Dim::Buffer, ..
                },
            ) if ctx.source_caps.combined_index && t.op == TexOp::Fetch => t.dim = d,
            (a, b) if a != b => {
                let said = match first_use.iter().find(|(r, _)| *r == row) {
                    // A default row: an earlier instruction read the slot otherwise (e.g. two
                    // kernels of one listing, each with its own textures).
                    Some((_, first)) => format!(
                        "an earlier instruction ({}) reads it as {}: a translated program \
                         binds one resource per slot: translate the kernels one by one",
                        where_read(*first),
                        dim_name(b)
                    ),
                    None => format!(
                        "the bindings row at line {} says {}",
                        binding.line,
                        dim_name(b)
                    ),
                };
                return Err(ctx.unsupported(
                    &format!("{} {}", ctx.from.name(), spelled(ctx.from, slot)),
                    &format!("the instruction reads it as {} but {said}", dim_name(a)),
                    t.span,
                ));
            }
            _ => {}
        }
        let [visa, dxbc, nvidia] = default_slots(ctx.from, slot, with_sampler);
        let fallback = match to {
            Isa::Visa => visa,
            Isa::Dxbc => dxbc,
            Isa::Nvidia => nvidia,
        };
        let target = binding.slot(to).or(fallback);
        if let (None, Some(t)) = (binding.slot(to), target) {
            // The row names no target slot: the default one is used, and the row says so
            // (the Report and the semantic check read it).
            let row = &mut ctx.bindings.rows[row];
            match to {
                Isa::Visa => row.visa = Some(t),
                Isa::Dxbc => row.dxbc = Some(t),
                Isa::Nvidia => row.nvidia = Some(t),
            }
        }
        let Some(target) = target else {
            let why = if ctx.target.caps.combined_index {
                "its default NVIDIA index (sampler << 8 | texture) needs texture < 256 and sampler < 32; give --bindings"
            } else {
                "it is a predefined surface with no binding slot; give --bindings"
            };
            return Err(ctx.unsupported(
                &format!("{} {}", ctx.from.name(), spelled(ctx.from, slot)),
                why,
                t.span,
            ));
        };
        if ctx.target.caps.combined_index && target.texture >= 1 << 13 {
            return Err(ctx.unsupported(
                &format!("NVIDIA texture index {:#x}", target.texture),
                "the bound-texture index has 13 bits",
                t.span,
            ));
        }
        t.texture = ResRef::Binding(target.texture);
        t.sampler = match to {
            _ if ctx.target.caps.combined_index => None,
            _ if with_sampler => Some(ResRef::Binding(
                target
                    .sampler
                    .or(fallback.and_then(|f| f.sampler))
                    .unwrap_or(0),
            )),
            _ => None,
        };
        let detail = NoteDetail::Binding {
            from: (ctx.from, slot),
            to: (to, target),
            dim: t.dim,
            row,
        };
        ctx.note(t.span, "bind_resources", detail);
        let ret = binding.return_type;
        let return_ty = match ret {
            ReturnType::Float => ScalarType::F32,
            ReturnType::Sint => ScalarType::I32,
            ReturnType::Uint => ScalarType::U32,
            ReturnType::Unorm => ScalarType::Other(TypeName::UNORM),
            ReturnType::Snorm => ScalarType::Other(TypeName::SNORM),
        };
        ctx.resources
            .entry(target.texture)
            .or_insert_with(|| Resource {
                name: spelled(to, target),
                dim: t.dim,
                return_type: Some([return_ty; 4]),
                sample_count: None,
            });
        if let Some(ResRef::Binding(s)) = t.sampler {
            let decl = ctx.samplers.entry(s).or_insert_with(|| SamplerDecl {
                name: format!("s{s}"),
                comparison: false,
            });
            decl.comparison |= t.depth_ref.is_some();
        }
    }
    Ok(items)
}
