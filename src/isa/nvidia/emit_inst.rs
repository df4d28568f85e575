//! Emit: an IR [`TexInstr`] as one instruction ([`NvInst`]). (In texlate "lowering" names the IR
//! passes; IR → instruction is "emit".)
//!
//! The form comes from the instruction's [`NvidiaExtras`] when it has them (a short form
//! falls back to its long form when the IR no longer fits it), otherwise from the IR op.
//! Modifiers follow the IR (LOD kind, offsets, depth reference, ...); operands are packed
//! into Ra/Rb by [`super::packing`], which must find each vector in consecutive registers
//! (the register-alignment pass's job when translating).

use super::inst::{lod_code, NvInst, OFFSET_AOFFI, OFFSET_NONE, OFFSET_PTP, RZ};
use super::packing::{dst_layout, is_arrayed, operand_of, params, short_target, Param};
use super::table::{code_of, table, OpClass};
use super::NvidiaExtras;
use crate::error::{Error, Location, Unsupported, ValidationError};
use crate::ir::{Dim, Dimension, Isa, Lod, Offset, RegFile, ResRef, Scalar, TexInstr, TexOp};
use crate::isa::{Operand, RegGroup};

/// An emit failure: which rule, and why.
struct Refusal {
    rule: &'static str,
    detail: String,
}

fn refuse<T>(rule: &'static str, detail: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        rule,
        detail: detail.into(),
    })
}

/// The long form a short form falls back to, and the default form of each IR op.
fn long_form(op: OpClass) -> OpClass {
    match op {
        OpClass::TEXS => OpClass::TEX,
        OpClass::TLDS => OpClass::TLD,
        OpClass::TLD4S => OpClass::TLD4,
        other => other,
    }
}

fn default_form(t: &TexInstr) -> Result<OpClass, Error> {
    Ok(match t.op {
        TexOp::Sample if matches!(t.lod, Lod::Grad { .. }) => OpClass::TXD,
        TexOp::Sample => OpClass::TEX,
        TexOp::Fetch => OpClass::TLD,
        TexOp::Gather { .. } => OpClass::TLD4,
        TexOp::QueryLod => OpClass::TMML,
        TexOp::QuerySize | TexOp::QuerySamples | TexOp::QueryOther { .. } => OpClass::TXQ,
        op => {
            return Err(Error::Unsupported(Unsupported::new(
                format!("the IR operation `{op}`"),
                Isa::Nvidia,
                Isa::Nvidia,
                "Maxwell has no texture instruction for it",
            )))
        }
    })
}

/// Whether `form`'s IR op is the instruction's (a form kept from extras may no longer be).
fn form_fits_op(form: OpClass, t: &TexInstr) -> bool {
    let grad = matches!(t.lod, Lod::Grad { .. });
    match long_form(form) {
        OpClass::TEX => t.op == TexOp::Sample && !grad,
        OpClass::TXD => t.op == TexOp::Sample && grad,
        OpClass::TLD => t.op == TexOp::Fetch,
        OpClass::TLD4 => matches!(t.op, TexOp::Gather { .. }),
        OpClass::TMML => t.op == TexOp::QueryLod,
        _ => matches!(
            t.op,
            TexOp::QuerySize | TexOp::QuerySamples | TexOp::QueryOther { .. }
        ),
    }
}

/// The IR result channels an instruction's hardware channels swap: TMML returns (unclamped,
/// clamped), the IR's `QueryLod` (clamped, unclamped); `TXQ TEX_HEADER_TEXTURE_TYPE` returns
/// the sample count in z (Mesa NAK `build_txq_samples`: channel 2; Ryujinx `Txq`:
/// component 2 of `TexHeaderTextureType`), the IR's `QuerySamples` in channel 0.
pub fn hardware_channels(op: TexOp) -> Option<(usize, usize)> {
    match op {
        TexOp::QueryLod => Some((0, 1)),
        TexOp::QuerySamples => Some((0, 2)),
        _ => None,
    }
}

/// Emits one instruction.
pub fn emit(t: &TexInstr) -> Result<NvInst, Error> {
    let extras = t.origin.get::<NvidiaExtras>();
    let location = extras.map_or(Location::from_span(t.span, t.span.line > 0), |x| {
        Location::from_span(t.span, x.listing.is_some() || t.span.line > 0)
    });
    let fail = |r: Refusal| {
        Error::Validation(ValidationError {
            location,
            rule: r.rule,
            detail: r.detail,
        })
    };
    let fallback = default_form(t)?;
    let kept = extras.map(|x| x.op).filter(|op| form_fits_op(*op, t));
    match kept {
        Some(op) if op.is_short() => match emit_as(t, op, extras) {
            Ok(inst) => Ok(inst),
            // The IR no longer fits the short form: use its long form.
            Err(_) => emit_as(t, long_form(op), extras).map_err(fail),
        },
        Some(op) => emit_as(t, op, extras).map_err(fail),
        None => emit_as(t, fallback, extras).map_err(fail),
    }
}

/// The long form `t` is emitted as by the backend (TEX, TLD, TLD4, TXD, TMML or TXQ; `.B`
/// for a handle), without registers: the instruction and its Ra and Rb parameters in
/// register order.
pub fn long_form_shape(t: &TexInstr) -> Result<(NvInst, Vec<Param>, Vec<Param>), Error> {
    let location = Location::from_span(t.span, t.span.line > 0);
    shape(t, default_form(t)?, None).map_err(|r| {
        Error::Validation(ValidationError {
            location,
            rule: r.rule,
            detail: r.detail,
        })
    })
}

fn dim_code(dim: Dimension, op: OpClass) -> Result<(u8, bool), Refusal> {
    let t = table();
    match dim {
        Dimension::Deferred if op == OpClass::TXQ => Ok((0, false)),
        Dimension::Deferred => refuse(
            "dimension",
            "the dimension is not known; NVIDIA texture instructions carry it (give bindings)",
        ),
        Dimension::Known {
            dim,
            arrayed,
            multisampled,
        } => {
            let base = match dim {
                // A buffer is fetched as a 1D texture (ptxas: tex1Dfetch-style reads are
                // `TLDS.LZ ... 1D`, research/nvidia.md §3).
                Dim::D1 | Dim::Buffer => "1D",
                Dim::D2 => "2D",
                Dim::D3 => "3D",
                Dim::Cube => "CUBE",
                other => {
                    return refuse(
                        "dimension",
                        format!("{other:?} resources have no NVIDIA texture dimension"),
                    )
                }
            };
            let name = match (arrayed, base) {
                (false, base) => base,
                (true, "1D") => "ARRAY_1D",
                (true, "2D") => "ARRAY_2D",
                (true, "3D") => "ARRAY_3D",
                (true, _) => "ARRAY_CUBE",
            };
            let code = t.dim_code(name).ok_or_else(|| Refusal {
                rule: "dimension",
                detail: format!("no dimension {name}"),
            })?;
            Ok((code, multisampled))
        }
    }
}

/// The instruction `t` is as `op`, without its registers: every field but Ra, Rb, Rd and
/// Rd1, and the parameters of Ra and Rb in register order.
fn shape(
    t: &TexInstr,
    op: OpClass,
    extras: Option<&NvidiaExtras>,
) -> Result<(NvInst, Vec<Param>, Vec<Param>), Refusal> {
    let table = table();
    let bindless = matches!(t.texture, ResRef::Handle(_));
    let mut inst = NvInst::new(op, bindless);
    let (dim, ms) = dim_code(t.dim, op)?;
    if op != OpClass::TXQ {
        inst.dim = dim;
    }
    // Only a fetch has a multisample form (TLD.MS); a size query of a multisample
    // texture is a plain TXQ.
    inst.ms = ms && long_form(op) == OpClass::TLD;
    if inst.ms && t.sample_index.is_none() {
        return refuse("sample index", "a multisample fetch needs a sample index");
    }
    let averaged = extras.is_some_and(|x| x.lod_averaged);
    inst.lod = match (&t.lod, op) {
        (Lod::Grad { .. }, OpClass::TXD) | (Lod::Level(_), OpClass::TXQ) => 0,
        // A gather reads level 0 (DX `gather4` lifts as `Lod::Zero`); TLD4 and TLD4S have no
        // LOD field, so level zero is the form they have.
        (Lod::Zero, OpClass::TLD4 | OpClass::TLD4S) => 0,
        (Lod::Implicit, _) => lod_code(""),
        (Lod::Zero, _) => lod_code("LZ"),
        (Lod::Bias(_), _) => lod_code(if averaged { "LBA" } else { "LB" }),
        (Lod::Level(_), _) => lod_code(if averaged { "LLA" } else { "LL" }),
        (Lod::Grad { .. }, _) => {
            return refuse("lod", format!("{} takes no gradients", op.mnemonic()))
        }
    };
    inst.offset = match &t.offset {
        Offset::None => OFFSET_NONE,
        Offset::Packed(_) => OFFSET_AOFFI,
        Offset::PerTexel(v) if v.len() == 2 => OFFSET_PTP,
        Offset::PerTexel(v) => {
            return refuse(
                "offsets",
                format!("TLD4.PTP takes its offsets in 2 registers, not {}", v.len()),
            )
        }
        Offset::Imm(_) | Offset::Dynamic(_) => {
            return refuse(
                "offsets",
                "NVIDIA takes offsets packed in one register (.AOFFI): run the offsets pass",
            )
        }
    };
    inst.dc = t.depth_ref.is_some();
    inst.lc = t.min_lod.is_some();
    if let TexOp::Gather { component } = t.op {
        inst.comp = component;
    }
    match t.op {
        TexOp::QuerySize => {
            inst.query = extras
                .map(|x| x.query)
                .filter(|q| {
                    table
                        .query
                        .get(q)
                        .is_some_and(|n| n == "TEX_HEADER_DIMENSION")
                })
                .or_else(|| code_of(&table.query, "TEX_HEADER_DIMENSION"))
                .unwrap_or(1)
        }
        TexOp::QuerySamples => {
            if t.dst.iter().skip(1).any(Option::is_some) {
                return refuse(
                    "sample-count query",
                    "TXQ TEX_HEADER_TEXTURE_TYPE returns the sample count in its z component only",
                );
            }
            inst.query = code_of(&table.query, "TEX_HEADER_TEXTURE_TYPE").unwrap_or(2)
        }
        TexOp::QueryOther { code } => inst.query = code,
        _ => {}
    }
    if let Some(p) = t.pred {
        if p.index > 7 {
            return refuse("predicate", format!("P{} does not exist", p.index));
        }
        inst.guard = p.index as u8 | if p.negate { 8 } else { 0 };
    }
    if t.flags.residency {
        match t.status_dst {
            Some(Scalar::Reg(r)) if r.file == RegFile::Predicate && r.index < 7 => {
                inst.sparse = r.index as u8
            }
            _ => return refuse("residency", "the sparse status goes to a predicate P0..P6"),
        }
    }
    inst.ndv = t.flags.ndv;
    inst.nodep = t.flags.nodep;
    if let ResRef::Binding(i) = t.texture {
        inst.tid = u16::try_from(i)
            .ok()
            .filter(|i| *i <= 0x1fff)
            .ok_or_else(|| Refusal {
                rule: "texture index",
                detail: format!("texture index {i} does not fit 13 bits"),
            })?;
    }
    if let Some(x) = extras {
        inst.cl = x.cl;
        inst.phase = x.phase;
        let same_form = x.op == op && x.bindless == bindless;
        if same_form {
            inst.raw = x.raw;
        }
    }
    // Destinations (the mask first: short forms need it to find their target).
    let mut dst = t.dst;
    if let Some((a, b)) = hardware_channels(t.op) {
        dst.swap(a, b);
    }
    inst.mask = dst
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_some())
        .fold(0, |m, (c, _)| m | (1 << c));
    if op == OpClass::TLD4S && inst.mask != 0xf {
        return refuse("write mask", "TLD4S writes all four components");
    }
    if op.is_short() && op != OpClass::TLD4S && short_target(&inst).is_none() {
        return refuse(
            "short form",
            format!("{} has no target for this shape", op.mnemonic()),
        );
    }
    let (ra_params, rb_params) = params(&inst).ok_or_else(|| Refusal {
        rule: "short form",
        detail: "no target".into(),
    })?;
    check_coords(t, &inst)?;
    Ok((inst, ra_params, rb_params))
}

fn emit_as(t: &TexInstr, op: OpClass, extras: Option<&NvidiaExtras>) -> Result<NvInst, Refusal> {
    let (mut inst, ra_params, rb_params) = shape(t, op, extras)?;
    let mut dst = t.dst;
    if let Some((a, b)) = hardware_channels(t.op) {
        dst.swap(a, b);
    }
    let value = |p: Param| param_value(t, &inst, p);
    let ra: Vec<Scalar> = ra_params
        .iter()
        .map(|p| value(*p))
        .collect::<Result<_, _>>()?;
    let rb: Vec<Scalar> = rb_params
        .iter()
        .map(|p| value(*p))
        .collect::<Result<_, _>>()?;
    inst.ra = base_register(&ra, "Ra")?
        .or(extras.and_then(|x| x.spare_ra))
        .unwrap_or(RZ);
    inst.rb = base_register(&rb, "Rb")?
        .or(extras.and_then(|x| x.spare_rb))
        .unwrap_or(RZ);
    let layout = dst_layout(&inst);
    let mut rd: Vec<Scalar> = Vec::new();
    let mut rd1: Vec<Scalar> = Vec::new();
    for (channel, in_rd1, _) in &layout {
        let s = dst[*channel].unwrap_or(Scalar::Zero);
        if *in_rd1 {
            rd1.push(s)
        } else {
            rd.push(s)
        }
    }
    inst.rd = base_register(&rd, "Rd")?
        .or(extras.and_then(|x| x.spare_rd))
        .unwrap_or(RZ);
    inst.rd1 = base_register(&rd1, "Rd1")?.unwrap_or(RZ);
    if op.is_short() && op != OpClass::TLD4S && !rd1.is_empty() && inst.rd1 == RZ {
        return refuse(
            "destination",
            "channels 3 and 4 of a short form cannot go to RZ",
        );
    }
    Ok(inst)
}

fn check_coords(t: &TexInstr, inst: &NvInst) -> Result<(), Refusal> {
    let want = if inst.op == OpClass::TXQ {
        0
    } else {
        super::packing::coord_count(inst.dim) as usize
    };
    if t.coord.len() != want {
        return refuse(
            "coordinates",
            format!(
                "{} {} takes {want} coordinates, the instruction has {}",
                inst.op.mnemonic(),
                super::packing::dim_name(inst.dim),
                t.coord.len()
            ),
        );
    }
    if let Lod::Grad { dx, dy } = &t.lod {
        if dx.len() != want || dy.len() != want {
            return refuse(
                "gradients",
                format!("TXD takes {want} gradients per direction"),
            );
        }
    }
    Ok(())
}

fn param_value(t: &TexInstr, inst: &NvInst, p: Param) -> Result<Scalar, Refusal> {
    let arrayed = is_arrayed(inst.dim);
    let missing = |what: &str| Refusal {
        rule: "operands",
        detail: format!("{} needs {what}", inst.op.mnemonic()),
    };
    let shared = |a: Option<Scalar>, b: Option<Scalar>, what: &str| match (a, b) {
        (Some(a), Some(b)) if a == b => Ok(a),
        (Some(_), Some(_)) => refuse(
            "packing",
            format!("{what} share one register on NVIDIA; the IR gives two"),
        ),
        (Some(a), None) | (None, Some(a)) => Ok(a),
        (None, None) => Err(missing(what)),
    };
    let packed_offset = match &t.offset {
        Offset::Packed(s) => Some(*s),
        _ => None,
    };
    match p {
        Param::Array => shared(
            t.array_index.filter(|_| arrayed),
            t.min_lod,
            "the array index and the LOD clamp",
        ),
        Param::ArrayOffset => shared(
            t.array_index.filter(|_| arrayed),
            packed_offset,
            "the array index and the offsets",
        ),
        Param::Coord(i) => t
            .coord
            .get(i as usize)
            .copied()
            .ok_or_else(|| missing("coordinates")),
        Param::Handle => match t.texture {
            ResRef::Handle(h) => Ok(h),
            _ => Err(missing("a handle")),
        },
        Param::Lod => match t.lod {
            Lod::Bias(s) | Lod::Level(s) => Ok(s),
            // The sample count reads no level: RZ (Mesa NAK passes 0).
            _ if t.op == TexOp::QuerySamples => Ok(Scalar::Zero),
            _ => Err(missing("a LOD")),
        },
        Param::Offset(k) => match &t.offset {
            Offset::Packed(s) if k == 0 => Ok(*s),
            Offset::PerTexel(v) => v.get(k as usize).copied().ok_or_else(|| missing("offsets")),
            _ => Err(missing("offsets")),
        },
        Param::DepthRef => t.depth_ref.ok_or_else(|| missing("a depth reference")),
        Param::Sample => t.sample_index.ok_or_else(|| missing("a sample index")),
        Param::GradDx(i) | Param::GradDy(i) => match &t.lod {
            Lod::Grad { dx, dy } => {
                let v = if matches!(p, Param::GradDx(_)) {
                    dx
                } else {
                    dy
                };
                v.get(i as usize)
                    .copied()
                    .ok_or_else(|| missing("gradients"))
            }
            _ => Err(missing("gradients")),
        },
    }
}

/// The first register of a vector: consecutive NVIDIA registers, or all zero (RZ).
/// `None` for an empty vector.
fn base_register(vals: &[Scalar], operand: &str) -> Result<Option<u8>, Refusal> {
    let Some(first) = vals.first() else {
        return Ok(None);
    };
    if vals.iter().all(|s| *s == Scalar::Zero) {
        return Ok(Some(RZ));
    }
    let base = match first {
        Scalar::Reg(r) if r.file == RegFile::Temp && r.index < u32::from(RZ) && r.sub == 0 => {
            r.index
        }
        other => {
            return refuse(
                "registers",
                format!("{operand} must be NVIDIA registers R0..R254, found `{other}`"),
            )
        }
    };
    for (i, s) in vals.iter().enumerate() {
        let ok = matches!(s, Scalar::Reg(r) if r.file == RegFile::Temp
            && r.sub == 0 && r.index == base + i as u32 && r.index < u32::from(RZ));
        if !ok {
            let list: Vec<String> = vals.iter().map(ToString::to_string).collect();
            return refuse(
                "register alignment",
                format!(
                    "{operand} must be consecutive registers from R{base}; found {}",
                    list.join(", ")
                ),
            );
        }
    }
    Ok(Some(base as u8))
}

/// The register vectors the long form of `t` reads and writes ([`crate::isa::Codec::register_groups`]):
/// Ra and Rb with their parameters in slot order (`mappings/nvidia.toml` `[packing.*]`), and Rd
/// with the written channels in hardware order, each with its alignment (`vector_align`).
/// Empty vectors are left out.
pub fn register_groups(t: &TexInstr) -> Result<Vec<RegGroup>, Error> {
    let (inst, ra, rb) = long_form_shape(t)?;
    let arrayed = is_arrayed(inst.dim);
    let mut rd: Vec<Operand> = dst_layout(&inst)
        .into_iter()
        .map(|(c, _, _)| Operand::Dst(c as u8))
        .collect();
    if let Some((a, b)) = hardware_channels(t.op) {
        // Hardware channel a is the IR's channel b (and back): see `emit_as`.
        for o in &mut rd {
            match o {
                Operand::Dst(c) if usize::from(*c) == a => *c = b as u8,
                Operand::Dst(c) if usize::from(*c) == b => *c = a as u8,
                _ => {}
            }
        }
    }
    // A sample-count query reads RZ as its level: no register vector.
    let ra = if t.op == TexOp::QuerySamples {
        Vec::new()
    } else {
        ra
    };
    let groups = [
        ("Ra", ra.iter().map(|p| operand_of(*p, arrayed)).collect()),
        ("Rb", rb.iter().map(|p| operand_of(*p, arrayed)).collect()),
        ("Rd", rd),
    ];
    let mut out = Vec::new();
    for (name, operands) in groups {
        let operands: Vec<Operand> = operands;
        if operands.is_empty() {
            continue;
        }
        let align = table().vector_align(operands.len()).ok_or_else(|| {
            Error::Unsupported(Unsupported::new(
                format!(
                    "{} {} with {} registers in {name}",
                    inst.op.mnemonic(),
                    super::packing::dim_name(inst.dim),
                    operands.len()
                ),
                Isa::Nvidia,
                Isa::Nvidia,
                "a register vector holds at most 4 registers",
            ))
        })?;
        out.push(RegGroup {
            name,
            operands,
            layout: crate::isa::GroupLayout::Consecutive { align },
        });
    }
    Ok(out)
}
