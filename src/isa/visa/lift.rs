//! vISA instruction → IR.
//!
//! Parameters are placed by the op's order in `mappings/visa.toml` (payload order, seeds):
//! `u`, `v`, `r` become `coord` in that order (vISA carries no dimension, so they are kept
//! positionally: for a 1D array `v` is the layer, for a 2D array `r`; `Dimension::Deferred`
//! until bindings say), `ai` the array index, `ref` the depth reference, `bias`/`lod`/the
//! gradients the LOD, `si`/`mcs*` the multisample operands, `offu`/`offv` per-pixel offsets.
//! A parameter the instruction omits reads as zero (seeds: "the missing parameters will have
//! the value of 0"): an omitted bias or LOD lifts as `Scalar::Zero`; omitted coordinates and
//! gradients are simply absent. `VisaExtras::num_params` remembers the count so that emit
//! writes the same parameters again.

use crate::ir::{
    Exec, Flags, Lod, Offset, Origin, Pred, Reg, RegFile, ResRef, Scalar, ScalarType, Span,
    TexInstr,
};

use super::inst::{
    cps_bit, div_s_bit, pixel_null_mask_bit, Aoffimmi, MsForm, Raw, VisaExtras, VisaInst,
};
use super::tables::{self, ChannelKind, LodKind, OpDesc, Slot, TypeDesc};

/// The scalar a raw operand stands for: `%null.0` reads as zero.
pub fn scalar(r: Raw) -> Scalar {
    if r == Raw::default() {
        Scalar::Zero
    } else {
        Scalar::Reg(Reg {
            file: RegFile::Temp,
            index: r.var,
            sub: u32::from(r.offset),
        })
    }
}

/// Bytes between the starts of two returned channels: each channel starts a new GRF
/// (seeds: "Each channel's return data start in the next GRF"), so the stride is
/// `max(exec_size × element size, GRF size)`; GATHER4_TYPED's `max(exec_size, GRF_SIZE/4)`
/// elements is the same rule for its 4-byte elements. The element size is the declared
/// destination type's, or 4 bytes when undeclared (binary input, bare snippets).
pub fn channel_stride(exec_size: u8, result_type: Option<ScalarType>) -> u32 {
    let elt = match result_type {
        Some(ScalarType::F16 | ScalarType::U16 | ScalarType::I16) => 2,
        Some(ScalarType::U8 | ScalarType::I8) => 1,
        Some(ScalarType::F64 | ScalarType::U64 | ScalarType::I64) => 8,
        _ => 4,
    };
    (u32::from(exec_size) * elt).max(tables::tables().limits.grf_bytes)
}

/// The `load_2dms_w` form of `inst`: 16-bit parameters mean the ICL+ four-word MCS form,
/// 32-bit ones the two-word form; undeclared, more parameters than the two-word form has
/// mean the four-word form. `None` for every other op.
pub fn ms_form(
    inst: &VisaInst,
    op: &OpDesc,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> Option<MsForm> {
    if op.params_w.is_empty() {
        return None;
    }
    Some(match inst.params.first().and_then(|p| var_type(p.var)) {
        Some(t) if t.bytes == 2 => MsForm::Word,
        Some(_) => MsForm::Dword,
        None if inst.params.len() > op.params.len() => MsForm::Word,
        None => MsForm::Dword,
    })
}

/// Lifts `inst` (whose op is `op`) into the IR. `var_type` gives declared types.
pub fn lift(
    inst: &VisaInst,
    op: &'static OpDesc,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
    mut extras: VisaExtras,
    span: Span,
) -> TexInstr {
    let opc = op.opcode_desc();
    let component = inst.channels;
    let mut t = TexInstr::new(
        op.ir_op(component),
        ResRef::Binding(u32::from(inst.surface)),
        Origin::SYNTHETIC,
    );
    t.sampler = inst.sampler.map(|s| ResRef::Binding(u32::from(s)));
    t.coord_type = inst
        .params
        .first()
        .and_then(|p| var_type(p.var))
        .map(|d| d.ir_type());
    t.result_type = var_type(inst.dst.var).map(|d| d.ir_type());

    let form = ms_form(inst, op, var_type);
    let order = op.param_order(form == Some(MsForm::Word));
    let mut bias = None;
    let mut level = None;
    let (mut dx, mut dy, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
    for (slot, raw) in order.iter().zip(&inst.params) {
        let s = scalar(*raw);
        match slot {
            Slot::U | Slot::V | Slot::R => t.coord.push(s),
            Slot::Ai => t.array_index = Some(s),
            Slot::Ref => t.depth_ref = Some(s),
            Slot::Bias => bias = Some(s),
            Slot::Lod => level = Some(s),
            Slot::Dudx | Slot::Dvdx | Slot::Drdx => dx.push(s),
            Slot::Dudy | Slot::Dvdy | Slot::Drdy => dy.push(s),
            Slot::Si => t.sample_index = Some(s),
            Slot::Offu | Slot::Offv => offsets.push(s),
            Slot::Mcsl | Slot::Mcsh | Slot::Mcs0 | Slot::Mcs1 | Slot::Mcs2 | Slot::Mcs3 => {
                t.mcs.push(s)
            }
        }
    }
    // Fixed operands (GATHER4_TYPED): unused coordinates are %null.0 (seed); trailing ones
    // are not coordinates of the access.
    if !opc.num_params {
        while t.coord.last() == Some(&Scalar::Zero) {
            t.coord.pop();
        }
    }
    t.lod = match op.lod {
        LodKind::Implicit | LodKind::None => Lod::Implicit,
        LodKind::Zero => Lod::Zero,
        LodKind::Bias => Lod::Bias(bias.unwrap_or(Scalar::Zero)),
        LodKind::Level => Lod::Level(level.unwrap_or(Scalar::Zero)),
        LodKind::Grad => Lod::Grad { dx, dy },
    };
    t.offset = match inst.aoffimmi {
        _ if op.has_slot(Slot::Offu) => {
            extras.po_aoffimmi = inst.aoffimmi;
            Offset::Dynamic(offsets)
        }
        None => Offset::None,
        Some(Aoffimmi::Imm { value, .. }) if value & 0xfff == 0 => Offset::None,
        Some(Aoffimmi::Imm { value, .. }) => Offset::Imm(unpack_aoffimmi(value)),
        Some(Aoffimmi::Var {
            var,
            row,
            col,
            region,
        }) => {
            extras.aoffimmi_region = Some(region);
            Offset::Packed(Scalar::Reg(Reg {
                file: RegFile::Temp,
                index: var,
                sub: aoffimmi_byte(row, col, var_type(var)),
            }))
        }
    };

    let (enabled, stride) = match opc.channel {
        ChannelKind::Mask => (
            inst.channels & 0xf,
            channel_stride(inst.exec_size, t.result_type),
        ),
        // A gather returns four texels, one GRF-started channel each (3D_SAMPLE4.md).
        ChannelKind::Index => (0xf, channel_stride(inst.exec_size, t.result_type)),
    };
    let at = |k: u32| -> Scalar {
        match scalar(inst.dst) {
            Scalar::Reg(r) => Scalar::Reg(Reg {
                sub: r.sub + k * stride,
                ..r
            }),
            other => other,
        }
    };
    let mut k = 0;
    for c in 0..4 {
        if enabled >> c & 1 != 0 {
            t.dst[c] = Some(at(k));
            k += 1;
        }
    }
    t.flags = Flags {
        residency: inst.modifiers & pixel_null_mask_bit() != 0,
        cps: inst.modifiers & cps_bit() != 0,
        nonuniform_sampler: inst.modifiers & div_s_bit() != 0,
        ..Flags::default()
    };
    // Seeds: with pixel_null_mask "an additional GRF is returned after the sampler data".
    if t.flags.residency {
        t.status_dst = Some(at(k));
    }
    let id = inst.pred & 0xfff;
    if id != 0 {
        t.pred = Some(Pred {
            index: id,
            negate: inst.pred & 0x8000 != 0,
        });
    }
    t.exec = Some(Exec {
        size: inst.exec_size,
        mask: inst.emask,
    });
    t.span = span;
    extras.pred_control = (inst.pred >> 13 & 3) as u8;
    if let Some(Aoffimmi::Imm { ty, .. }) = inst.aoffimmi {
        extras.aoffimmi_type = ty;
    }
    extras.num_params = opc
        .num_params
        .then(|| u8::try_from(inst.params.len()).unwrap_or(u8::MAX));
    extras.ms_form = form;
    t.origin = Origin::new(extras);
    t
}

/// Whether [`super::emit_inst::emit`] gives `inst` back from [`lift`] when no variable is
/// declared (an instruction stream): [`lifts_back`] with no declared types.
pub fn lifts_back_untyped(inst: &VisaInst) -> bool {
    lifts_back(inst, &|_| None)
}

/// Whether [`super::emit_inst::emit`] gives `inst` back from [`lift`], `inst` having passed
/// [`super::validate::check`] with the declared types `var_type`. Lift and emit carry every
/// field across unchanged (the op by its IR op, LOD kind, compare, multisample and
/// per-pixel-offset slots; parameters by slot, NumParams remembered, `load_2dms_w`'s form by
/// its parameters' types, which for a load validation allows 16 bits only as W/UW, the form
/// emit reads from them; immediate offsets by their nibbles; the destination channel by
/// channel, at the stride of its declared type), except a variable aoffimmi: the IR holds it
/// as one byte offset, `row × GRF + col × element` (the element of the variable's declared
/// type), and emit splits that again, so an element at or past the end of its GRF row comes
/// back in a later row (or overflows the row byte). `false` there, also where emit would
/// keep it (`sample4_po`'s, carried whole). Checked against lift and emit on random
/// instructions of every op, undeclared and with random declared types
/// (`tests::instructions_lift_back`).
pub fn lifts_back(inst: &VisaInst, var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>) -> bool {
    match inst.aoffimmi {
        Some(Aoffimmi::Var { var, col, .. }) => {
            u32::from(col) * aoffimmi_element_bytes(var_type(var))
                < tables::tables().limits.grf_bytes
        }
        _ => true,
    }
}

/// The size of an element of a variable aoffimmi of declared type `ty`: the declared type's,
/// or for an undeclared variable the seeds' UW (`aoffimmi_type`).
pub fn aoffimmi_element_bytes(ty: Option<&'static TypeDesc>) -> u32 {
    ty.or_else(|| tables::type_by_name(&tables::tables().limits.aoffimmi_type))
        .map_or(2, |t| u32::from(t.bytes))
}

/// The byte offset of element `col` of GRF `row` of a variable aoffimmi (32-byte GRFs).
fn aoffimmi_byte(row: u8, col: u8, ty: Option<&'static TypeDesc>) -> u32 {
    u32::from(row) * tables::tables().limits.grf_bytes + u32::from(col) * aoffimmi_element_bytes(ty)
}

/// Aoffimmi bits 11:8 = U, 7:4 = V, 3:0 = R, each 4-bit two's complement (seeds).
pub fn unpack_aoffimmi(v: u32) -> [i8; 3] {
    let field = |shift: u32| (((v >> shift) & 0xf) as i8) << 4 >> 4;
    [field(8), field(4), field(0)]
}

#[cfg(test)]
mod tests {
    use super::super::emit_inst::emit;
    use super::super::inst::{Aoffimmi, Checks, Raw, Region, VisaInst};
    use super::super::validate;
    use super::*;

    /// Field `field` of random instruction `i`: a number below `n`, the same in every run
    /// (std's `DefaultHasher::new` has fixed keys).
    fn pick(i: u64, field: u64, n: usize) -> usize {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (i, field).hash(&mut h);
        (h.finish() % n as u64) as usize
    }

    /// A raw operand: `%null.0` often, small variables and GRF offsets, sometimes anything.
    fn raw(i: u64, field: u64) -> Raw {
        let any = |k| pick(i, field * 8 + k, 1 << 32);
        match pick(i, field * 8, 4) {
            0 => Raw::default(),
            1 => Raw {
                var: any(1) as u32,
                offset: any(2) as u16,
            },
            _ => Raw {
                var: pick(i, field * 8 + 3, 40) as u32,
                offset: (pick(i, field * 8 + 4, 8) * 32) as u16,
            },
        }
    }

    /// Random instructions of every op, field by field, undeclared and with random declared
    /// types: those that pass validation and that [`lifts_back`] accepts come back from lift
    /// and emit unchanged, and the ones it refuses are exercised too.
    #[test]
    fn instructions_lift_back() {
        let t = tables::tables();
        let (mut back, mut refused) = (0, 0);
        let (mut typed_back, mut typed_refused) = (0, 0);
        for i in 0..200_000u64 {
            let f = |field, n| pick(i, field, n);
            let op = &t.ops[f(0, t.ops.len())];
            let opc = op.opcode_desc();
            let pred = match f(1, 3) {
                0 if opc.pred => (f(2, 1 << 16) as u16 & 0xefff) | 1,
                _ => 0,
            };
            let aoffimmi = opc.aoffimmi.then(|| match f(3, 3) {
                0 => Aoffimmi::Var {
                    var: f(4, 64) as u32,
                    row: f(5, 256) as u8,
                    col: f(6, 40) as u8,
                    region: Region::SCALAR,
                },
                _ => Aoffimmi::Imm {
                    value: f(7, 1 << 32) as u32 & [0xfff, 0][f(8, 2)],
                    ty: t.types[f(9, t.types.len())].code,
                },
            });
            let n = if opc.num_params {
                1 + f(10, op.max_params())
            } else {
                op.params.len()
            };
            let inst = VisaInst {
                opcode: op.opcode,
                subop: op.subop,
                modifiers: f(11, 1 << 16) as u16 & tables::modifier_mask(op.opcode),
                exec_size: opc.exec_sizes[f(12, opc.exec_sizes.len())],
                emask: f(13, 16) as u8,
                pred,
                channels: f(14, 16) as u8,
                aoffimmi,
                sampler: opc.sampler.then(|| f(15, 256) as u8),
                surface: f(16, 256) as u8,
                dst: raw(i, 17),
                params: (0..n as u64).map(|k| raw(i, 18 + k)).collect(),
            };
            // Each variable of a random type, or undeclared.
            let typed = |v: u32| t.types.get(pick(i, 100 + u64::from(v), t.types.len() + 2));
            for (var_type, back, refused) in [
                (&(|_| None) as &dyn Fn(u32) -> _, &mut back, &mut refused),
                (&typed, &mut typed_back, &mut typed_refused),
            ] {
                if validate::check(&inst, Checks::IgcCompatible, var_type).is_err() {
                    continue;
                }
                if !lifts_back(&inst, var_type) {
                    *refused += 1;
                    continue;
                }
                let lifted = lift(&inst, op, var_type, VisaExtras::default(), Span::default());
                let emitted = emit(&lifted, var_type);
                assert!(
                    matches!(&emitted, Ok(e) if *e == inst),
                    "{inst:?}\n -> {emitted:?}"
                );
                *back += 1;
            }
        }
        assert!(back > 20_000 && refused > 1_000, "{back} {refused}");
        assert!(
            typed_back > 5_000 && typed_refused > 100,
            "{typed_back} {typed_refused}"
        );
    }
}
