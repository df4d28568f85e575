//! legalize_forms: every instruction's form looked up in the op × target rule table
//! (`mappings/rules.toml`); a form the target cannot express is refused with the table's
//! reason, naming the instruction. The rules that apply are noted for the Report.

use super::lower_lod::is_zero;
use super::{NoteDetail, PassContext};
use crate::error::Error;
use crate::ir::{Dim, Dimension, Item, Lod, Offset, Reg, RegFile, ResRef, Scalar, TexInstr, TexOp};
use crate::mappings::rules;
use crate::mappings::targets::TargetCaps;

/// The rule ids of `mappings/rules.toml` that describe `t`'s form, read from a source with
/// capabilities `from`.
pub fn rule_ids(t: &TexInstr, from: &TargetCaps) -> Vec<&'static str> {
    let (dim, ms) = match t.dim {
        Dimension::Known {
            dim, multisampled, ..
        } => (Some(dim), multisampled),
        Dimension::Deferred => (None, false),
    };
    let compare = t.depth_ref.is_some();
    let mut ids = Vec::with_capacity(4);
    ids.push(match t.op {
        TexOp::Sample => match (&t.lod, compare) {
            (Lod::Grad { .. }, true) => "sample_d_c",
            (Lod::Grad { .. }, false) if matches!(dim, Some(Dim::D3 | Dim::Cube)) => {
                "sample_d_3d_cube"
            }
            (Lod::Grad { .. }, false) => "sample_d",
            (Lod::Implicit, false) => "sample",
            (Lod::Bias(_), false) => "sample_b",
            (Lod::Level(_), false) => "sample_l",
            (Lod::Zero, false) => "sample_lz",
            (Lod::Implicit, true) => "sample_c",
            (Lod::Zero, true) => "sample_c_lz",
            (Lod::Bias(_), true) => "sample_b_c",
            (Lod::Level(_), true) => "sample_l_c",
        },
        TexOp::Fetch if ms && !t.mcs.is_empty() => "fetch_ms_mcs",
        TexOp::Fetch if ms => "fetch_ms",
        TexOp::Fetch if t.lod == Lod::Zero => "fetch_lz",
        TexOp::Fetch => "fetch",
        TexOp::FetchMcs => "fetch_mcs",
        TexOp::Gather { .. } if compare => "gather_c",
        TexOp::Gather { .. } => "gather",
        TexOp::QueryLod if from.lod_query_fixed_point => "query_lod_tmml",
        TexOp::QueryLod => "query_lod",
        TexOp::QuerySize => "query_size",
        TexOp::QuerySamples => "query_samples",
        TexOp::SamplePos => "sample_pos",
        TexOp::QueryOther { .. } => "query_other",
        TexOp::BufferInfo
        | TexOp::LoadTyped
        | TexOp::LoadRaw
        | TexOp::LoadStructured
        | TexOp::CheckAccessMapped => "buffer_ops",
    });
    if from.grad_layer_shares_offsets
        && matches!(t.lod, Lod::Grad { .. })
        && t.array_index.is_some()
    {
        ids.push("txd_array_nvidia");
    }
    if t.op == TexOp::Fetch && ms && matches!(&t.lod, Lod::Level(l) if !is_zero(l)) {
        ids.push("fetch_ms_lod");
    }
    if t.op == TexOp::QuerySamples && t.write_mask() & !1 != 0 && from.sampleinfo_all_channels {
        ids.push("query_samples_channels");
    }
    if compare && dim == Some(Dim::D3) {
        ids.push("compare_3d");
    }
    if matches!(
        t.dim,
        Dimension::Known {
            dim: Dim::D3,
            arrayed: true,
            ..
        }
    ) {
        ids.push("array_3d");
    }
    if matches!(t.lod, Lod::Grad { .. })
        && t.array_index.is_some()
        && t.offset != Offset::None
        && matches!(dim, Some(Dim::D1 | Dim::D2))
    {
        ids.push("grad_array_offsets");
    }
    if t.op == TexOp::QueryLod && t.offset != Offset::None {
        ids.push("offset_lod_query");
    }
    if matches!(t.op, TexOp::Fetch | TexOp::FetchMcs) && dim == Some(Dim::Cube) {
        ids.push("fetch_cube");
    }
    if matches!(t.op, TexOp::Gather { .. }) && matches!(dim, Some(Dim::D1 | Dim::D3)) {
        ids.push("gather_1d_3d");
    }
    ids.extend(offset_rule(t, from));
    if t.min_lod.is_some() {
        ids.push("min_lod");
        if from.min_lod_packed {
            ids.push("min_lod_packed");
        }
    }
    let memory = |s: &Scalar| {
        matches!(
            s,
            Scalar::Reg(Reg {
                file: RegFile::ConstantBuffer
                    | RegFile::ImmConstantBuffer
                    | RegFile::IndexableTemp
                    | RegFile::Other(_),
                ..
            })
        )
    };
    let mut reads_memory = false;
    t.for_each_source(|s| reads_memory |= memory(s));
    if reads_memory || t.dst.iter().flatten().chain(&t.status_dst).any(memory) {
        ids.push("operand_memory");
    }
    if t.flags.residency {
        ids.push("residency");
    }
    if let ResRef::Handle(_) = t.texture {
        ids.push("handle");
    }
    ids
}

/// The rule id of `mappings/rules.toml` that describes `t`'s offsets, read from a source with
/// capabilities `from`; `None` without offsets. Register offsets of a gather have rows of
/// their own (`*_gather`): gathers have per-pixel offset forms elsewhere (DX `gather4_po`).
pub fn offset_rule(t: &TexInstr, from: &TargetCaps) -> Option<&'static str> {
    let gather = matches!(t.op, TexOp::Gather { .. });
    let cube = matches!(t.dim, Dimension::Known { dim: Dim::Cube, .. });
    Some(match &t.offset {
        Offset::None => return None,
        _ if cube => "offset_cube",
        Offset::Imm(_) => "offset_imm",
        Offset::Packed(_) if from.packed_offset.is_some_and(|p| p.u_high) => {
            if gather {
                "offset_packed_u_high_gather"
            } else {
                "offset_packed_u_high"
            }
        }
        Offset::Packed(_) if gather => "offset_packed_dynamic_gather",
        Offset::Packed(_) => "offset_packed_dynamic",
        Offset::Dynamic(_) => "offset_dynamic",
        Offset::PerTexel(_) => "offset_per_texel",
    })
}

/// Runs the pass.
pub fn run(items: &[Item], ctx: &mut PassContext) -> Result<(), Error> {
    for item in items {
        let Item::Tex(t) = item else { continue };
        if let Dimension::Known {
            dim: Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer,
            ..
        } = t.dim
        {
            if t.op != TexOp::Fetch && t.op != TexOp::QuerySize {
                return Err(ctx.unsupported(
                    &format!("`{}` on a buffer", t.op),
                    "buffers are fetched, not sampled",
                    t.span,
                ));
            }
        }
        for id in rule_ids(t, ctx.source_caps) {
            let decision = match rules::decide(id, ctx.target.isa, ctx.grad) {
                rules::Decision::Refuse(why) => {
                    return Err(ctx.unsupported(&rules::rule(id).form, &why, t.span))
                }
                decision => decision,
            };
            ctx.note(t.span, "legalize_forms", NoteDetail::Rule { id, decision });
        }
    }
    Ok(())
}
