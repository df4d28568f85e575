//! Lift: one decoded instruction ([`NvInst`]) into the shared IR ([`TexInstr`]).
//!
//! Ra/Rb vectors become named operands (coordinates, array index, LOD/bias, offsets,
//! depth reference, handle, sample index) by the slot orders of [`super::packing`]; the
//! destination becomes one scalar per written channel. Registers: `R#` is
//! `Scalar::Reg(NvGpr #)`; `RZ` is [`Scalar::Zero`] (a vector based at RZ reads zeros). What
//! the IR does not model goes into [`NvidiaExtras`].

use super::inst::{invalid_value, lod_spelling, FieldError, NvInst, OFFSET_AOFFI, OFFSET_PTP, RZ};
use super::packing::{
    coord_count, dim_name, dst_channels, dst_layout, is_arrayed, param_counts, params, Param,
};
use super::table::{table, FieldName, OpClass};
use super::NvidiaExtras;
use crate::ir::{
    Dim, Dimension, Flags, Lod, Offset, Origin, Pred, Reg, RegFile, ResRef, Scalar, ScalarType,
    Span, TexInstr, TexOp,
};

/// The register `R<index>` or, for RZ, zero.
pub fn gpr(index: u16) -> Scalar {
    if index >= u16::from(RZ) {
        Scalar::Zero
    } else {
        Scalar::Reg(Reg {
            file: RegFile::Temp,
            index: index.into(),
            sub: 0,
        })
    }
}

/// Register `i` of the vector based at `base`. A vector based at RZ reads zeros; one that
/// runs past R254 is an error naming the operand.
fn vector_elem(base: u8, i: u8, operand: &'static str) -> Result<Scalar, FieldError> {
    if base == RZ {
        return Ok(Scalar::Zero);
    }
    let index = u16::from(base) + u16::from(i);
    if index >= u16::from(RZ) {
        return Err(FieldError {
            field: operand,
            reason: format!("the vector R{base}.. needs R{index}, past R254"),
        });
    }
    Ok(gpr(index))
}

/// Checks that a vector of `n` registers based at `base` fits: at most 4, none past R254.
fn check_vector(base: u8, n: usize, operand: &'static str) -> Result<(), FieldError> {
    if n > 4 {
        return Err(FieldError {
            field: operand,
            reason: format!("{n} parameters do not fit one vector of at most 4 registers"),
        });
    }
    (0..n as u8).try_for_each(|i| vector_elem(base, i, operand).map(|_| ()))
}

fn vector(base: u8, n: usize, operand: &'static str) -> Result<Vec<Scalar>, FieldError> {
    check_vector(base, n, operand)?;
    (0..n as u8)
        .map(|i| vector_elem(base, i, operand))
        .collect()
}

/// Checks that `inst` lifts: its form has a slot order, and its Ra, Rb, Rd and Rd1 vectors
/// fit. [`lift`] fails exactly when this does; the streaming paths, which print and encode
/// decoded instructions without building the IR, call it alone.
///
/// It also refuses what decodes but the hardware cannot run (validation, not decoding: `disasm`
/// prints these words as nvdisasm does): a reserved value nvdisasm spells `INVALID…`
/// ([`invalid_value`]); and what the hardware runs but the IR does not model
/// ([`not_modelled`]: `.F16`, `TXD.LC`).
pub fn check(inst: &NvInst) -> Result<(), FieldError> {
    if let Some(e) = invalid_value(inst) {
        return Err(e);
    }
    if let Some(e) = not_modelled(inst) {
        return Err(e);
    }
    check_vectors(inst)
}

/// Checks that the hardware runs `inst`: [`check`] without [`not_modelled`]. What an
/// identity path (`translate --from nvidia --to nvidia`, `asm`) refuses; it keeps the
/// instructions the IR does not model as they were read.
pub fn runs(inst: &NvInst) -> Result<(), FieldError> {
    if let Some(e) = invalid_value(inst) {
        return Err(e);
    }
    check_vectors(inst)
}

/// What the hardware runs but the IR cannot hold: the `.F16` forms (half-precision results
/// packed two per register) and `TXD.LC`. Read, printed and re-encoded as they are;
/// refused by cross translation.
pub fn not_modelled(inst: &NvInst) -> Option<FieldError> {
    if inst.f16 {
        return Some(FieldError {
            field: ".F16",
            reason: format!(
                "{}.F16 writes half-precision results packed two per register, which the IR \
                 does not model (disasm and asm read it; translation refuses it)",
                inst.op.mnemonic()
            ),
        });
    }
    // TEX.LC packs its clamp into the array slot (research §4); where TXD.LC (nvdisasm
    // decodes the bit from SM52 on) reads its clamp is not known, so the IR could not keep
    // it and a re-encoding would drop the bit: the word stays as read instead.
    if inst.op == OpClass::TXD && inst.lc {
        return Some(FieldError {
            field: ".LC",
            reason: "TXD.LC clamps the LOD with a value whose place among TXD's parameter \
                     registers is not known (disasm and asm read it; translation refuses it)"
                .to_string(),
        });
    }
    None
}

/// The register vectors of `inst` fit below RZ, and its form has a slot order.
fn check_vectors(inst: &NvInst) -> Result<(), FieldError> {
    let (ra, rb) = param_counts(inst).ok_or_else(no_target)?;
    check_vector(inst.ra, ra, "Ra")?;
    check_vector(inst.rb, rb, "Rb")?;
    for (_, in_rd1, i) in dst_channels(inst) {
        let (base, operand) = if in_rd1 {
            (inst.rd1, "Rd1")
        } else {
            (inst.rd, "Rd")
        };
        vector_elem(base, i, operand)?;
    }
    Ok(())
}

/// The fields whose values decoding stores as they are and [`check`] never reads: whether a
/// word decodes and lifts does not depend on them (the streams' word check,
/// `super::shapes`, leaves them out of a word's shape; keep this in step with `check` and
/// `inst::decode_form`).
pub(super) fn unchecked_field(name: FieldName) -> bool {
    matches!(
        name,
        FieldName::Guard
            | FieldName::Tid
            | FieldName::Ndv
            | FieldName::Nodep
            | FieldName::Sparse
            | FieldName::Comp
            | FieldName::Cl
            | FieldName::Rtz
    )
}

fn no_target() -> FieldError {
    FieldError {
        field: "target",
        reason: "no short-form target for this LOD mode, dimension and flags".into(),
    }
}

/// The IR operation of an instruction.
pub fn tex_op(inst: &NvInst) -> TexOp {
    match inst.op {
        OpClass::TEX | OpClass::TEXS | OpClass::TXD => TexOp::Sample,
        OpClass::TLD | OpClass::TLDS => TexOp::Fetch,
        OpClass::TLD4 | OpClass::TLD4S => TexOp::Gather {
            component: inst.comp,
        },
        OpClass::TMML => TexOp::QueryLod,
        OpClass::TXQ
            if table().query.get(&inst.query).map(String::as_str)
                == Some("TEX_HEADER_DIMENSION") =>
        {
            TexOp::QuerySize
        }
        // The sample count alone (z), reading no LOD: see `emit_inst::hardware_channels`.
        OpClass::TXQ
            if table().query.get(&inst.query).map(String::as_str)
                == Some("TEX_HEADER_TEXTURE_TYPE")
                && inst.mask == 0x4
                && inst.ra == RZ
                && !inst.bindless =>
        {
            TexOp::QuerySamples
        }
        OpClass::TXQ => TexOp::QueryOther { code: inst.query },
    }
}

/// The IR dimension of a dimension code.
pub fn dimension(code: u8, ms: bool) -> Dimension {
    let name = dim_name(code);
    let dim = if name.ends_with("1D") {
        Dim::D1
    } else if name.ends_with("2D") {
        Dim::D2
    } else if name.ends_with("3D") {
        Dim::D3
    } else {
        Dim::Cube
    };
    Dimension::Known {
        dim,
        arrayed: is_arrayed(code),
        multisampled: ms,
    }
}

/// Lifts `inst`. `extras` carries what the caller already knows (listing layout, span).
pub fn lift(inst: &NvInst, mut extras: NvidiaExtras, span: Span) -> Result<TexInstr, FieldError> {
    let t = table();
    check(inst)?;
    let (ra_params, rb_params) = params(inst).ok_or_else(no_target)?;
    let ra = vector(inst.ra, ra_params.len(), "Ra")?;
    let rb = vector(inst.rb, rb_params.len(), "Rb")?;
    extras.spare_ra = (ra_params.is_empty() && inst.ra != RZ).then_some(inst.ra);
    extras.spare_rb = (rb_params.is_empty() && inst.rb != RZ).then_some(inst.rb);
    let value = |p: Param| {
        ra_params
            .iter()
            .zip(&ra)
            .chain(rb_params.iter().zip(&rb))
            .find(|(q, _)| **q == p)
            .map(|(_, s)| *s)
    };
    let texture = match value(Param::Handle) {
        Some(h) => ResRef::Handle(h),
        None => ResRef::Binding(inst.tid.into()),
    };
    let mut ti = TexInstr::new(tex_op(inst), texture, Origin::SYNTHETIC);
    ti.dim = if inst.op == OpClass::TXQ {
        Dimension::Deferred
    } else {
        dimension(inst.dim, inst.ms)
    };
    let arrayed = is_arrayed(inst.dim);
    let lod_reg = value(Param::Lod).unwrap_or(Scalar::Zero);
    ti.lod = match (inst.op, lod_spelling(inst.lod)) {
        (OpClass::TXD, _) => {
            let n = coord_count(inst.dim);
            let grads = |f: fn(u8) -> Param| (0..n).filter_map(|i| value(f(i))).collect();
            Lod::Grad {
                dx: grads(Param::GradDx),
                dy: grads(Param::GradDy),
            }
        }
        (OpClass::TXQ, _) if ti.op == TexOp::QuerySamples => Lod::Implicit,
        (OpClass::TXQ, _) => Lod::Level(lod_reg),
        (_, "LZ") => Lod::Zero,
        (_, "LB" | "LBA") => Lod::Bias(lod_reg),
        (_, "LL" | "LLA") => Lod::Level(lod_reg),
        _ => Lod::Implicit,
    };
    extras.lod_averaged = matches!(lod_spelling(inst.lod), "LBA" | "LLA");
    ti.coord = (0..3).filter_map(|i| value(Param::Coord(i))).collect();
    let array_reg = value(Param::Array).or(value(Param::ArrayOffset));
    if arrayed {
        ti.array_index = array_reg;
    }
    if inst.lc {
        ti.min_lod = value(Param::Array);
    }
    ti.depth_ref = value(Param::DepthRef);
    ti.sample_index = value(Param::Sample);
    ti.offset = match inst.offset {
        OFFSET_AOFFI => Offset::Packed(
            value(Param::Offset(0))
                .or(value(Param::ArrayOffset))
                .unwrap_or(Scalar::Zero),
        ),
        OFFSET_PTP => Offset::PerTexel(
            [Param::Offset(0), Param::Offset(1)]
                .into_iter()
                .filter_map(value)
                .collect(),
        ),
        _ => Offset::None,
    };
    // Destinations.
    for (channel, in_rd1, i) in dst_layout(inst) {
        let (base, operand) = if in_rd1 {
            (inst.rd1, "Rd1")
        } else {
            (inst.rd, "Rd")
        };
        ti.dst[channel] = Some(vector_elem(base, i, operand)?);
    }
    // TMML returns (unclamped, clamped), the IR's QueryLod is (clamped, unclamped); TXQ
    // returns the sample count in z.
    if let Some((a, b)) = super::emit_inst::hardware_channels(ti.op) {
        ti.dst.swap(a, b);
    }
    extras.spare_rd = (inst.mask == 0 && inst.rd != RZ).then_some(inst.rd);
    if inst.sparse != t.sparse_none {
        ti.flags.residency = true;
        ti.status_dst = Some(Scalar::Reg(Reg {
            file: RegFile::Predicate,
            index: inst.sparse.into(),
            sub: 0,
        }));
    }
    if inst.guard != t.guard_true {
        ti.pred = Some(Pred {
            index: u16::from(inst.guard & 7),
            negate: inst.guard & 8 != 0,
        });
    }
    ti.flags = Flags {
        ndv: inst.ndv,
        nodep: inst.nodep,
        ..ti.flags
    };
    ti.coord_type = Some(match ti.op {
        TexOp::Fetch | TexOp::QuerySize | TexOp::QuerySamples | TexOp::QueryOther { .. } => {
            ScalarType::I32
        }
        _ => ScalarType::F32,
    });
    extras.op = inst.op;
    extras.bindless = inst.bindless;
    extras.cl = inst.cl;
    extras.query = inst.query;
    extras.phase = inst.phase;
    extras.raw = inst.raw;
    ti.span = span;
    ti.origin = Origin::new(extras);
    Ok(ti)
}
