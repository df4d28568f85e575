//! IR → vISA instruction ("emit"; in texlate "lowering" means the IR passes): the inverse of
//! [`super::lift`], working from the IR's semantic fields alone, so that an edited
//! instruction encodes what it now says and an instruction a pass built
//! (`Origin::SYNTHETIC`, `exec` set) encodes at all.
//!
//! The op is chosen from the IR (`mappings/visa.toml` `ir`, `lod` and the parameter slots
//! the IR fills: `ref`, `si`, `offu`); the parameters are written in the op's order up to the
//! last one present, or up to `VisaExtras::num_params` when the trailing ones read as zero.
//! A parameter missing in the middle of the order cannot be written (vISA parameters are
//! positional) and is an error, as is anything the op has no slot for.

use crate::ir::{
    Dim, Dimension, Exec, Lod, Offset, RegFile, ResRef, Scalar, ScalarType, TexInstr, TexOp,
};

use super::inst::{
    cps_bit, div_s_bit, pixel_null_mask_bit, Aoffimmi, Field, MsForm, Raw, Region, VisaExtras,
    VisaInst,
};
use super::lift::{aoffimmi_element_bytes, channel_stride};
use super::names::MAX_PREDICATE_ID;
use super::tables::{self, ChannelKind, LodKind, OpDesc, Slot, TypeDesc};
use super::validate::Violation;

/// Why an IR instruction has no vISA form.
#[derive(Debug)]
pub enum EmitError {
    /// The instruction breaks a vISA rule.
    Rule(Violation),
    /// vISA cannot express it: what, and why.
    Unsupported(String, String),
}

impl From<Violation> for EmitError {
    fn from(v: Violation) -> Self {
        EmitError::Rule(v)
    }
}

fn unsupported(what: impl Into<String>, why: impl Into<String>) -> EmitError {
    EmitError::Unsupported(what.into(), why.into())
}

/// How well an op's LOD kind fits the IR's LOD: `Some(0)` exactly, `Some(1)` with the LOD
/// parameter omitted (reads as zero), `None` not at all.
fn lod_fit(kind: LodKind, lod: &Lod) -> Option<u8> {
    match (kind, lod) {
        (LodKind::Implicit | LodKind::None, Lod::Implicit)
        | (LodKind::Zero, Lod::Zero)
        | (LodKind::Bias, Lod::Bias(_))
        | (LodKind::Level, Lod::Level(_))
        | (LodKind::Grad, Lod::Grad { .. }) => Some(0),
        (LodKind::Level, Lod::Zero) => Some(1),
        _ => None,
    }
}

fn ir_name(op: TexOp) -> Option<&'static str> {
    Some(match op {
        TexOp::Sample => "sample",
        TexOp::Fetch => "fetch",
        TexOp::FetchMcs => "fetch_mcs",
        TexOp::Gather { .. } => "gather",
        TexOp::QueryLod => "query_lod",
        TexOp::QuerySize => "query_size",
        TexOp::QuerySamples => "query_samples",
        TexOp::LoadTyped => "load_typed",
        _ => return None,
    })
}

/// The op that expresses `t`.
fn choose_op(t: &TexInstr) -> Result<&'static OpDesc, EmitError> {
    let name = ir_name(t.op)
        .ok_or_else(|| unsupported(t.op.to_string(), "vISA has no sampler instruction for it"))?;
    tables::tables()
        .ops
        .iter()
        .filter(|o| o.ir_name() == name)
        .filter(|o| o.has_slot(Slot::Ref) == t.depth_ref.is_some())
        .filter(|o| o.has_slot(Slot::Si) == t.sample_index.is_some())
        .filter(|o| o.has_slot(Slot::Offu) == matches!(t.offset, Offset::Dynamic(_)))
        .filter_map(|o| lod_fit(o.lod, &t.lod).map(|fit| (fit, o)))
        .min_by_key(|(fit, _)| *fit)
        .map(|(_, o)| o)
        .ok_or_else(|| {
            unsupported(
                format!("{} with this LOD / compare / multisample combination", t.op),
                "no vISA sampler sub-op takes it",
            )
        })
}

/// The raw operand of a scalar.
fn raw(s: Scalar, field: Field) -> Result<Raw, EmitError> {
    match s {
        Scalar::Zero => Ok(Raw::default()),
        Scalar::Reg(r) if r.file == RegFile::Temp => {
            let offset = u16::try_from(r.sub).map_err(|_| {
                Violation::new(
                    field,
                    "raw-offset",
                    format!("byte offset {} does not fit a raw operand (u16)", r.sub),
                )
            })?;
            Ok(Raw {
                var: r.index,
                offset,
            })
        }
        Scalar::Reg(r) => Err(unsupported(
            format!("register {r}"),
            "vISA operands are vISA general variables; map registers first",
        )),
        Scalar::Imm(i) => Err(unsupported(
            format!("immediate {i} as a sampler operand"),
            "vISA sampler parameters are variables; move the immediate into one first",
        )),
    }
}

/// The binding index of a texture or sampler reference (one byte in vISA).
fn binding(r: &ResRef, what: &str, field: Field) -> Result<u8, EmitError> {
    match r {
        ResRef::Binding(i) => u8::try_from(*i).map_err(|_| {
            EmitError::Rule(Violation::new(
                field,
                "state-index",
                format!("{what} index {i} does not fit vISA's one-byte field"),
            ))
        }),
        other => Err(unsupported(
            format!("{what} {other}"),
            "vISA 3D sampler instructions name a state variable index",
        )),
    }
}

/// Aoffimmi: U in bits 11:8, V in 7:4, R in 3:0, each in [-8, 7] (seeds).
fn pack_aoffimmi(o: [i8; 3]) -> Result<u32, Violation> {
    let mut v = 0u32;
    for (i, c) in o.iter().enumerate() {
        if !(-8..=7).contains(c) {
            return Err(Violation::new(
                Field::Aoffimmi,
                "aoffimmi-range",
                format!(
                    "offset {} = {c} is outside [-8, 7]",
                    ["u", "v", "r"].get(i).copied().unwrap_or("?")
                ),
            ));
        }
        v |= ((*c as u32) & 0xf) << (8 - 4 * i as u32);
    }
    Ok(v)
}

/// A variable aoffimmi from the packed offsets' register (a general variable and byte
/// offset): its GRF row and element by the variable's type ([`aoffimmi_element_bytes`]),
/// read with the region it was read with (`<0;1,0>` for an instruction built from IR).
fn aoffimmi_var(
    s: Scalar,
    extras: &VisaExtras,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> Result<Aoffimmi, EmitError> {
    let ty = extras.aoffimmi_type;
    let r = match s {
        Scalar::Zero => return Ok(Aoffimmi::Imm { value: 0, ty }),
        Scalar::Reg(r) if r.file == RegFile::Temp => r,
        other => {
            return Err(unsupported(
                format!("offsets packed in {other}"),
                "a vISA aoffimmi is an immediate or a general variable",
            ))
        }
    };
    let grf = tables::tables().limits.grf_bytes;
    let elem = aoffimmi_element_bytes(var_type(r.index));
    let place = |v: u32, what: &str| {
        u8::try_from(v).map_err(|_| {
            Violation::new(
                Field::Aoffimmi,
                "aoffimmi-variable",
                format!("the aoffimmi's {what} {v} does not fit a vector operand's byte"),
            )
        })
    };
    if r.sub % grf % elem != 0 {
        return Err(Violation::new(
            Field::Aoffimmi,
            "aoffimmi-variable",
            format!(
                "byte offset {} of the aoffimmi variable is not at an element ({elem} bytes)",
                r.sub
            ),
        )
        .into());
    }
    Ok(Aoffimmi::Var {
        var: r.index,
        row: place(r.sub / grf, "GRF row")?,
        col: place(r.sub % grf / elem, "element")?,
        region: extras.aoffimmi_region.unwrap_or(Region::SCALAR),
    })
}

/// Whether `t` was built by a translation rather than read from vISA (no vISA extras).
fn origin_free(t: &TexInstr) -> bool {
    t.origin.get::<VisaExtras>().is_none()
}

/// Emits `t` as one vISA instruction; `var_type` gives the declared types of variables.
pub fn emit(
    t: &TexInstr,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> Result<VisaInst, EmitError> {
    let default = VisaExtras::default();
    let extras = t.origin.get::<VisaExtras>().unwrap_or(&default);
    // A per-lane source (DX, NVIDIA) runs as SIMD16 with the first mask, IGC's usual form.
    let exec = t.exec.unwrap_or(Exec { size: 16, mask: 0 });
    if let Some(m) = t.min_lod {
        return Err(unsupported(
            format!("minimum-LOD clamp {m}"),
            "vISA sampler instructions have no min-LOD parameter",
        ));
    }
    let op = choose_op(t)?;
    let opc = op.opcode_desc();

    // load_2dms_w: 16-bit parameters or four MCS words select the ICL+ form.
    let wide = !op.params_w.is_empty()
        && (t.mcs.len() > 2
            || matches!(t.coord_type, Some(ScalarType::U16 | ScalarType::I16))
            || (t.coord_type.is_none() && extras.ms_form == Some(MsForm::Word)));
    let order = op.param_order(wide);

    let grads = match &t.lod {
        Lod::Grad { dx, dy } => (dx.as_slice(), dy.as_slice()),
        _ => (&[][..], &[][..]),
    };
    let offsets = match &t.offset {
        Offset::Dynamic(v) => v.as_slice(),
        _ => &[],
    };
    // vISA passes the layer of a 1D or 2D array positionally, after the spatial coordinates
    // (v for 1D_ARRAY, r for 2D_ARRAY); only a cube array's layer is `ai` (seeds, the
    // u/v/r/ai table). The IR keeps it apart once the dimension is known.
    let (coords, array_index) = match (t.dim, t.array_index) {
        (
            Dimension::Known {
                dim: dim @ (Dim::D1 | Dim::D2),
                arrayed: true,
                ..
            },
            Some(layer),
        ) => {
            let spatial = if dim == Dim::D1 { 1 } else { 2 };
            let mut c = t.coord.clone();
            c.resize(spatial, Scalar::Zero);
            c.push(layer);
            (c, None)
        }
        _ => (t.coord.clone(), t.array_index),
    };
    // A coordinate the dimension does not have, before a parameter that is present, is
    // `%null.0`: "the missing parameters will have the value of 0" (seeds), and vISA
    // parameters are positional (a 1D `load` still names v before its LOD).
    let mut coords = coords;
    let coord_slots = order
        .iter()
        .filter(|s| matches!(s, Slot::U | Slot::V | Slot::R))
        .count();
    if origin_free(t) {
        coords.resize(coords.len().max(coord_slots), Scalar::Zero);
    }
    let (mut n_coord, mut n_dx, mut n_dy, mut n_mcs, mut n_off) = (0, 0, 0, 0, 0);
    let take = |v: &[Scalar], n: &mut usize| {
        let s = v.get(*n).copied();
        *n += 1;
        s
    };
    let slots: Vec<Option<Scalar>> = order
        .iter()
        .map(|slot| match slot {
            Slot::U | Slot::V | Slot::R => take(&coords, &mut n_coord),
            Slot::Ai => array_index,
            Slot::Ref => t.depth_ref,
            Slot::Bias => match t.lod {
                Lod::Bias(s) => Some(s),
                _ => None,
            },
            Slot::Lod => match t.lod {
                Lod::Level(s) => Some(s),
                _ => None,
            },
            Slot::Dudx | Slot::Dvdx | Slot::Drdx => take(grads.0, &mut n_dx),
            Slot::Dudy | Slot::Dvdy | Slot::Drdy => take(grads.1, &mut n_dy),
            Slot::Si => t.sample_index,
            Slot::Offu | Slot::Offv => take(offsets, &mut n_off),
            Slot::Mcsl | Slot::Mcsh | Slot::Mcs0 | Slot::Mcs1 | Slot::Mcs2 | Slot::Mcs3 => {
                take(&t.mcs, &mut n_mcs)
            }
        })
        .collect();
    let surplus = [
        ("coordinates", coords.len(), n_coord),
        ("x gradients", grads.0.len(), n_dx),
        ("y gradients", grads.1.len(), n_dy),
        ("MCS words", t.mcs.len(), n_mcs),
        ("per-pixel offsets", offsets.len(), n_off),
    ];
    for (what, have, room) in surplus {
        if have > room {
            return Err(unsupported(
                format!("{have} {what}"),
                format!("{} takes {room}", op.mnemonic),
            ));
        }
    }
    if array_index.is_some() && !op.has_slot(Slot::Ai) {
        return Err(unsupported(
            "an array index",
            format!(
                "{} has no ai parameter; the layer is a coordinate for loads",
                op.mnemonic
            ),
        ));
    }

    let params = if opc.num_params {
        let last = slots.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        let needed = slots
            .iter()
            .rposition(|s| matches!(s, Some(v) if *v != Scalar::Zero))
            .map_or(0, |i| i + 1);
        let n = match extras.num_params {
            Some(hint) => usize::from(hint).clamp(needed, last.max(needed)),
            // Built from IR: trailing parameters that read as zero are left out.
            None if origin_free(t) => needed,
            None => last,
        };
        let mut params = Vec::with_capacity(n);
        for (i, (slot, s)) in order.iter().zip(&slots).take(n).enumerate() {
            let s = s.ok_or_else(|| {
                Violation::new(
                    Field::Param(i),
                    "params-positional",
                    format!(
                        "{} parameter {i} ({slot}) is missing but a later one is present; \
                         vISA parameters are positional",
                        op.mnemonic
                    ),
                )
            })?;
            params.push(raw(s, Field::Param(i))?);
        }
        params
    } else {
        order
            .iter()
            .zip(&slots)
            .enumerate()
            .map(|(i, (_, s))| raw(s.unwrap_or(Scalar::Zero), Field::Param(i)))
            .collect::<Result<_, _>>()?
    };

    let aoffimmi = if opc.aoffimmi {
        let ty = extras.aoffimmi_type;
        Some(match &t.offset {
            Offset::None => Aoffimmi::Imm { value: 0, ty },
            Offset::Imm(o) => Aoffimmi::Imm {
                value: pack_aoffimmi(*o)?,
                ty,
            },
            Offset::Dynamic(_) => extras.po_aoffimmi.unwrap_or(Aoffimmi::Imm { value: 0, ty }),
            Offset::Packed(s) => aoffimmi_var(*s, extras, var_type)?,
            other => {
                return Err(unsupported(
                    format!("offset {other:?}"),
                    "vISA takes immediate offsets or a variable (aoffimmi), or sample4_po's \
                     per-pixel ones",
                ))
            }
        })
    } else {
        if t.offset != Offset::None {
            return Err(unsupported(
                "a texel offset",
                format!("{} has no aoffimmi operand", op.mnemonic),
            ));
        }
        None
    };

    // Result placement: each enabled channel starts a new GRF (see lift::channel_stride).
    let (channels, written) = match (opc.channel, t.op) {
        (ChannelKind::Index, TexOp::Gather { component }) => (component, 0xf),
        _ => (t.write_mask(), t.write_mask()),
    };
    if opc.channel == ChannelKind::Index && t.write_mask() != 0xf {
        return Err(Violation::new(
            Field::Dst,
            "dst-layout",
            "a vISA gather (sample4) returns all four texels: every dst channel must be set",
        )
        .into());
    }
    if written == 0 {
        return Err(Violation::no_channel().into());
    }
    let stride = channel_stride(exec.size, t.result_type);
    let enabled: Vec<Scalar> = t.dst.iter().flatten().copied().collect();
    let dst = raw(enabled[0], Field::Dst)?;
    let expect = |k: usize| -> Scalar {
        match enabled[0] {
            Scalar::Reg(r) => Scalar::Reg(crate::ir::Reg {
                sub: r.sub + k as u32 * stride,
                ..r
            }),
            other => other,
        }
    };
    for (k, s) in enabled.iter().enumerate() {
        if *s != expect(k) {
            return Err(Violation::new(
                Field::Dst,
                "dst-layout",
                format!(
                    "returned channel {k} must be at {} (each channel starts the next GRF, \
                     {stride} bytes on), not {s}",
                    expect(k)
                ),
            )
            .into());
        }
    }
    if let (true, Some(st)) = (t.flags.residency, t.status_dst) {
        if st != expect(enabled.len()) {
            return Err(Violation::new(
                Field::Dst,
                "dst-layout",
                format!(
                    "the pixel null mask is returned in the GRF after the data, at {}, not {st}",
                    expect(enabled.len())
                ),
            )
            .into());
        }
    }

    let mut modifiers = 0u16;
    for (on, bit, name) in [
        (t.flags.residency, pixel_null_mask_bit(), "pixel_null_mask"),
        (t.flags.cps, cps_bit(), "cps"),
        (t.flags.nonuniform_sampler, div_s_bit(), "divS"),
    ] {
        if on {
            if !opc.modifiers.iter().any(|m| m == name) {
                return Err(unsupported(
                    format!(".{name}"),
                    format!("{} does not take it", op.mnemonic),
                ));
            }
            modifiers |= bit;
        }
    }
    if t.flags.ndv || t.flags.nodep {
        return Err(unsupported(
            "NVIDIA .NDV/.NODEP",
            "vISA has no such flags; a translation pass drops them",
        ));
    }

    let pred = match t.pred {
        None => 0,
        Some(_) if !opc.pred => {
            return Err(unsupported(
                "a predicate",
                format!("{} has no predicate field", op.mnemonic),
            ))
        }
        Some(p) if p.index == 0 || u32::from(p.index) > MAX_PREDICATE_ID => {
            return Err(Violation::new(
                Field::Pred,
                "predicate",
                format!("predicate index {} is outside 1..4095", p.index),
            )
            .into())
        }
        Some(p) => {
            p.index | u16::from(extras.pred_control & 3) << 13 | if p.negate { 0x8000 } else { 0 }
        }
    };

    let sampler = match (&t.sampler, opc.sampler) {
        (Some(s), true) => Some(binding(s, "sampler", Field::Sampler)?),
        (None, true) => {
            return Err(unsupported(
                format!("{} without a sampler", t.op),
                format!("{} needs one", op.mnemonic),
            ))
        }
        (Some(_), false) => {
            return Err(unsupported(
                "a sampler",
                format!("{} reads without a sampler", op.mnemonic),
            ))
        }
        (None, false) => None,
    };
    Ok(VisaInst {
        opcode: op.opcode,
        subop: op.subop,
        modifiers,
        exec_size: exec.size,
        emask: exec.mask,
        pred,
        channels,
        aoffimmi,
        sampler,
        surface: binding(&t.texture, "surface", Field::Surface)?,
        dst,
        params,
    })
}
