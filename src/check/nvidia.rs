//! The NVIDIA Maxwell model: nvdisasm text (whole listings or single lines) or binary (raw
//! word streams, bundles of four with the control word first, or cubins).
//!
//! Texture instructions are read with the codec's vendor-verified decoders
//! ([`decode_word`], [`parse_inst`]) into [`NvInst`] (fields by meaning); which register of
//! Ra/Rb holds what is this module's own table ([`slots`]), written from
//! seeds/nvidia-TEX.txt ("Texture parameter packing in Ra and Rb": Ra = [array|LC word],
//! s, t, r; Rb = \[handle\], LOD, offsets, DC, compacted upwards) and research/nvidia.md §4
//! and §11 (TLD, TLD4, TXD, TXQ, TMML and the short forms TEXS/TLDS/TLD4S, as ptxas packs
//! them). Where they differ the tool wins: plain TLD4S reads x from Ra and y from **Rb**
//! (§11, settled with ptxas), not from Ra+1.
//!
//! TMML (research §11 left its results open; Mesa nouveau `NVC0LoweringPass::handleTXLQ` and
//! NAK `nak_nir_lower_tex.c`, two compilers that run on the hardware, agree; docs/nvidia.md):
//! hardware channel 0 is the unclamped LOD, channel 1 the clamped, each 8.8 fixed point in
//! bits 15:0. The model's definition: the request names channels in DX's order (0 = clamped,
//! 1 = unclamped: the instruction's mask bits 0 and 1 swapped), and the register of hardware
//! channel 0 / 1 receives `F32ToI32(FMul(lod, 256))` of the unclamped / clamped LOD, i.e.
//! `i32(trunc(lod × 256))` (the hardware's upper 16 bits and its rounding are unverified;
//! code reading the value through `I2F.S16`/`I2F.U16` does not depend on them). Channels 2
//! and 3 are undefined on every ISA and read as the result's channels.
//!
//! TXQ `TEX_HEADER_TEXTURE_TYPE` (code 2): component z is the sample count, an integer (Mesa
//! NAK `build_txq_samples` reads channel 2 of the query; Ryujinx's `Txq` translates component
//! 2 of `TexHeaderTextureType` as the texture's sample count: two independent readers of the
//! hardware's result; ptxas compiles `txq.num_samples` to a descriptor-table load and never
//! emits it). Such a TXQ with only z enabled and no LOD register is a sample-count request
//! whose channel 0 lands in Rd; components x and y are not modelled (other masks stay
//! `QueryOther`).
//!
//! Unverified, and said so: the short-form targets ptxas never produced (TEXS `LZ.DC ARRAY_2D`, TLDS
//! `LL 1D`, `LL 2D`, `LL.AOFFI 2D`) follow the observed split rule; `.PTP` offsets are read
//! as 6-bit fields per byte, byte `2i + c` = texel i component c (Mesa NAK's packing), and a
//! `.PTP` gather as four gathers, texel (result channel) i from the i-th, each at its own
//! offsets: one request per written channel; the
//! `.LC` clamp is the u4.8 value of bits 27:16 of Ra+0 (seed), reported as an f32.
//!
//! Destinations: TEX, TLD, TLD4, TXD, TMML and TXQ write the enabled channels contiguously
//! from Rd (research §4 "Destinations"); TEXS, TLDS and TLD4S write the first two selected
//! channels to Rd0, Rd0+1 and the next two to Rd1, Rd1+1. A guarded instruction (`@P0`) is
//! evaluated as if its guard held.
//!
//! ALU instructions evaluated: `MOV` (register, constant bank, immediate), `MOV32I`, `I2F`
//! (32-bit sources, and `.S16`/`.U16`: bits 15:0 of the register, as ptxas uses them),
//! `F2I`, `I2I`, `FMUL`, `FMNMX`, `MUFU.RCP`, and the quad operations of ptxas's gradient
//! emulation (research §5.1): `SAM`, `RAM`, `SHFL.IDX` within a quad (c = 0x1c03),
//! `FSWZADD` (lane codes as nvdisasm prints them: `PP` a + b, `NP` b − a, `PN` a − b, `ZP` b,
//! lane 0 first), `MOV` with a lane mask; the gradient approximation's `FFMA`, `MUFU.LG2`
//! and `FSET.BF.GE.AND d, |a|, b, PT` (ptxas's fma.rn, lg2.approx.ftz, set.ge of an abs);
//! `BFI` and `BFE`/`BFE.U32` with a known control (PTX `bfi`/`bfe`: position 7:0, width
//! 15:8). A program with quad operations runs per quad
//! ([`run_quad`]). `NOP`, `EXIT` and `RET` are skipped; listing directives, labels and
//! comments too. Binary ALU words are decoded for the encodings the corpus listings show
//! next to their text and the ones texlate emits (MOV, MOV32I, I2I, I2F, FMUL, FMNMX, MUFU,
//! NOP, EXIT, SAM, RAM, SHFL, FSWZADD, FFMA, FSET, BFI, BFE); any other word is an error.

use crate::check::{
    imm_offsets, resource_id, sext, Error, Execution, InitialFile, Located, LodReq, Machine,
    Offsets, ReqOp, Request, ResourceId, Role, Value, ValueOp,
};
use crate::ir::{Dim, Dimension, Isa, Reg, RegFile};
use crate::isa::nvidia::table::OpClass;
use crate::isa::nvidia::{decode_word, parse_inst, NvInst, RZ};
use crate::translate::bindings::Bindings;

const ISA: Isa = Isa::Nvidia;

/// What one register of an Ra/Rb vector holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The bindless handle (`.B`).
    Handle,
    /// The array layer, `a[15:0]` (u16).
    Layer,
    /// Ra+0 with `.LC`: `LodClamp[27:16] | array[15:0]`.
    LcLayer,
    /// Coordinate i.
    Coord(u8),
    /// LOD or bias (f32; TLD: s32).
    Lod,
    /// Packed offsets (`.AOFFI`), or the first of two `.PTP` registers.
    Offsets,
    /// The second `.PTP` register.
    Offsets2,
    /// Depth-compare reference.
    Ref,
    /// Multisample index.
    Sample,
    /// TXD's `(offsets << 16) | layer`.
    TxdLayerOffsets,
    /// Gradient of coordinate i along x / y.
    Dx(u8),
    /// Gradient of coordinate i along y.
    Dy(u8),
}

fn lod_has_reg(lod: u8) -> bool {
    // `lod` table codes (research §7): 2 LB, 3 LL, 6 LBA, 7 LLA carry a register.
    matches!(lod, 2 | 3 | 6 | 7)
}

/// (dimension, arrayed) of a dimension code (research §7: 0 1D, 1 A1D, 2 2D, 3 A2D, 4 3D,
/// 5 A3D, 6 CUBE, 7 ACUBE).
fn dim_of(code: u8) -> Option<(Dim, bool)> {
    Some(match code {
        0 => (Dim::D1, false),
        1 => (Dim::D1, true),
        2 => (Dim::D2, false),
        3 => (Dim::D2, true),
        4 => (Dim::D3, false),
        6 => (Dim::Cube, false),
        7 => (Dim::Cube, true),
        _ => return None,
    })
}

/// Whether `inst` asks the sample count alone: `TXQ TEX_HEADER_TEXTURE_TYPE` (code 2) with
/// only its z component and no LOD register (module documentation).
fn samples_query(inst: &NvInst) -> bool {
    inst.op == OpClass::TXQ
        && inst.query == 2
        && inst.mask == 0x4
        && inst.ra == RZ
        && !inst.bindless
}

/// The Ra and Rb slot lists of an instruction (module documentation for the sources).
pub fn slots(inst: &NvInst) -> Option<(Vec<Slot>, Vec<Slot>)> {
    let coords = |n: usize| (0..n as u8).map(Slot::Coord).collect::<Vec<_>>();
    if inst.op == OpClass::TXQ {
        return Some(if inst.bindless {
            (vec![Slot::Handle, Slot::Lod], vec![])
        } else {
            (vec![Slot::Lod], vec![])
        });
    }
    let (dim, arrayed) = dim_of(inst.dim)?;
    let n = super::coord_count(dim);
    let aoffi = inst.offset == 1;
    let ptp = inst.offset == 2;
    let split = |list: Vec<Slot>| -> (Vec<Slot>, Vec<Slot>) {
        // research §4 short forms: one slot each when there are two, otherwise two in Ra.
        let k = if list.len() == 2 {
            1
        } else {
            list.len().min(2)
        };
        (list[..k].to_vec(), list[k..].to_vec())
    };
    let mut rb = Vec::new();
    if inst.bindless {
        rb.push(Slot::Handle);
    }
    Some(match inst.op {
        OpClass::TEX => {
            let mut ra = Vec::new();
            if inst.lc {
                ra.push(Slot::LcLayer);
            } else if arrayed {
                ra.push(Slot::Layer);
            }
            ra.extend(coords(n));
            if lod_has_reg(inst.lod) {
                rb.push(Slot::Lod);
            }
            if aoffi {
                rb.push(Slot::Offsets);
            }
            if inst.dc {
                rb.push(Slot::Ref);
            }
            (ra, rb)
        }
        OpClass::TLD => {
            let mut ra = if arrayed { vec![Slot::Layer] } else { vec![] };
            ra.extend(coords(n));
            if lod_has_reg(inst.lod) {
                rb.push(Slot::Lod);
            }
            if aoffi {
                rb.push(Slot::Offsets);
            }
            if inst.ms {
                rb.push(Slot::Sample);
            }
            (ra, rb)
        }
        OpClass::TLD4 => {
            let mut ra = if arrayed { vec![Slot::Layer] } else { vec![] };
            ra.extend(coords(n));
            if aoffi {
                rb.push(Slot::Offsets);
            }
            if ptp {
                rb.extend([Slot::Offsets, Slot::Offsets2]);
            }
            if inst.dc {
                rb.push(Slot::Ref);
            }
            (ra, rb)
        }
        OpClass::TXD => {
            let mut ra = if inst.bindless {
                vec![Slot::Handle]
            } else {
                vec![]
            };
            ra.extend(coords(n));
            if arrayed || aoffi {
                ra.push(Slot::TxdLayerOffsets);
            }
            let rb = (0..n as u8)
                .flat_map(|i| [Slot::Dx(i), Slot::Dy(i)])
                .collect();
            (ra, rb)
        }
        OpClass::TMML => {
            let mut ra = if arrayed { vec![Slot::Layer] } else { vec![] };
            ra.extend(coords(n));
            (ra, rb)
        }
        OpClass::TEXS => {
            let mut list = if arrayed { vec![Slot::Layer] } else { vec![] };
            list.extend(coords(n));
            if lod_has_reg(inst.lod) {
                list.push(Slot::Lod);
            }
            if inst.dc {
                list.push(Slot::Ref);
            }
            split(list)
        }
        OpClass::TLDS => {
            if arrayed {
                // research §4: `TLDS.LZ ARRAY_2D | A | x, y`.
                let mut rb = coords(n);
                if lod_has_reg(inst.lod) {
                    rb.push(Slot::Lod);
                }
                return Some((vec![Slot::Layer], rb));
            }
            let mut list = coords(n);
            if lod_has_reg(inst.lod) {
                list.push(Slot::Lod);
            }
            if aoffi {
                list.push(Slot::Offsets);
            }
            if inst.ms {
                list.push(Slot::Sample);
            }
            split(list)
        }
        OpClass::TLD4S => {
            let mut list = coords(2);
            if aoffi {
                list.push(Slot::Offsets);
            }
            if inst.dc {
                list.push(Slot::Ref);
            }
            split(list)
        }
        OpClass::TXQ => unreachable!(),
    })
}

fn gpr(n: u32) -> Reg {
    Reg {
        file: RegFile::Temp,
        index: n,
        sub: 0,
    }
}

fn is_fetch(op: OpClass) -> bool {
    matches!(op, OpClass::TLD | OpClass::TLDS)
}

fn role_of(slot: Slot, inst: &NvInst) -> Role {
    let tld4 = matches!(inst.op, OpClass::TLD4 | OpClass::TLD4S);
    match slot {
        Slot::Handle => Role::Any,
        Slot::Layer => Role::SmallInt,
        Slot::LcLayer | Slot::TxdLayerOffsets => Role::LayerWord,
        Slot::Coord(_) if is_fetch(inst.op) => Role::SmallInt,
        Slot::Coord(_) | Slot::Dx(_) | Slot::Dy(_) => Role::Float,
        Slot::Lod if is_fetch(inst.op) || inst.op == OpClass::TXQ => Role::SmallInt,
        Slot::Lod => Role::Lod,
        Slot::Offsets | Slot::Offsets2 if tld4 => Role::Offsets6,
        Slot::Offsets | Slot::Offsets2 => Role::Offsets4,
        Slot::Ref => Role::Reference,
        Slot::Sample => Role::SmallInt,
    }
}

/// Reads the slots of one vector starting at `base` (RZ: every slot reads zero).
fn read_vector(
    m: &mut Machine,
    base: u8,
    list: &[Slot],
    inst: &NvInst,
    at: &str,
    out: &mut Vec<(Slot, Value)>,
) -> Result<(), Error> {
    for (i, s) in list.iter().enumerate() {
        let v = if base == RZ {
            Value::Bits(0)
        } else {
            let n = u32::from(base) + i as u32;
            if n >= u32::from(RZ) {
                return Err(Error::model(
                    ISA,
                    at,
                    format!("register vector from R{base} runs past R254"),
                ));
            }
            m.read(gpr(n), role_of(*s, inst))
        };
        out.push((*s, v));
    }
    Ok(())
}

/// The u4.8 value of a 12-bit field as an f32 pattern.
fn fixed_4_8(v: Value) -> Value {
    match v {
        Value::Bits(b) => Value::Bits((b as f32 / 256.0).to_bits()),
        other => other,
    }
}

/// Decodes packed offsets: 4-bit fields (u, v, w), or TLD4's 6-bit fields at an 8-bit
/// stride (u, v); research §4 "Offset packing".
fn packed_offsets(v: &Value, tld4: bool, dim: Option<Dimension>) -> Offsets {
    if !tld4 {
        return crate::check::packed_offsets(dim, v, [0, 4, 8], 4);
    }
    // TLD4 packs u and v only.
    match crate::check::packed_offsets(dim, v, [0, 8, 16], 6) {
        Offsets::Imm([u, v, _]) => imm_offsets(dim, [u, v, 0]),
        Offsets::Fields([u, v, _]) => Offsets::Fields([u, v, Value::Bits(0)]),
        other => other,
    }
}

/// Evaluates one texture instruction.
pub fn texture(m: &mut Machine, inst: &NvInst, bindings: &Bindings, at: &str) -> Result<(), Error> {
    m.begin_texture();
    let (ra, rb) = slots(inst).ok_or_else(|| {
        Error::model(
            ISA,
            at,
            format!("dimension code {} is reserved (ARRAY_3D)", inst.dim),
        )
    })?;
    let mut vals = Vec::new();
    read_vector(m, inst.ra, &ra, inst, at, &mut vals)?;
    read_vector(m, inst.rb, &rb, inst, at, &mut vals)?;
    let get = |s: Slot| vals.iter().find(|(k, _)| *k == s).map(|(_, v)| v.clone());
    let op = match inst.op {
        OpClass::TEX | OpClass::TEXS | OpClass::TXD => ReqOp::Sample,
        OpClass::TLD | OpClass::TLDS => ReqOp::Fetch,
        OpClass::TLD4 | OpClass::TLD4S => ReqOp::Gather { channel: inst.comp },
        OpClass::TMML => ReqOp::QueryLod,
        OpClass::TXQ if inst.query == 1 => ReqOp::QuerySize,
        OpClass::TXQ if samples_query(inst) => ReqOp::QuerySamples,
        OpClass::TXQ => ReqOp::QueryOther { code: inst.query },
    };
    let resource = match get(Slot::Handle) {
        Some(h) => ResourceId::Handle(h),
        None => resource_id(
            bindings,
            ISA,
            u32::from(inst.tid),
            None,
            format!("{:#x}", inst.tid),
        ),
    };
    let mut r = Request::new(op, resource.clone());
    if matches!(r.op, ReqOp::Sample | ReqOp::Gather { .. } | ReqOp::QueryLod) {
        r.sampler = Some(resource.clone());
    }
    r.dim = if inst.op == OpClass::TXQ {
        match &resource {
            ResourceId::Row(row) => bindings.rows.get(*row).map(|b| b.dim),
            _ => None,
        }
    } else {
        let row_dim = match &resource {
            ResourceId::Row(row) => bindings.rows.get(*row).map(|b| b.dim),
            _ => None,
        };
        dim_of(inst.dim).map(|(dim, arrayed)| match row_dim {
            // Maxwell has no buffer dimension: a buffer is fetched as a 1D texture
            // (research §3, tex1Dfetch-style reads are `TLDS.LZ ... 1D`); its binding says
            // which it is.
            Some(
                d @ Dimension::Known {
                    dim: Dim::Buffer, ..
                },
            ) if dim == Dim::D1 && !arrayed && matches!(inst.op, OpClass::TLD | OpClass::TLDS) => d,
            _ => Dimension::Known {
                dim,
                arrayed,
                multisampled: inst.ms,
            },
        })
    };
    let arrayed = matches!(r.dim, Some(Dimension::Known { arrayed: true, .. }));
    r.coords = vals
        .iter()
        .filter(|(s, _)| matches!(s, Slot::Coord(_)))
        .map(|(_, v)| v.clone())
        .collect();
    if let Some(l) = get(Slot::Layer) {
        r.layer = Some(l.unary(ValueOp::Low16));
    }
    if let Some(w) = get(Slot::LcLayer) {
        if arrayed {
            r.layer = Some(w.clone().unary(ValueOp::Low16));
        }
        r.min_lod = Some(fixed_4_8(Value::apply(
            ValueOp::Field { lo: 16, width: 12 },
            vec![w],
        )));
    }
    let tld4 = matches!(inst.op, OpClass::TLD4 | OpClass::TLD4S);
    let mut per_texel: Option<[Value; 2]> = None;
    if let Some(w) = get(Slot::TxdLayerOffsets) {
        if arrayed {
            r.layer = Some(w.clone().unary(ValueOp::Low16));
        }
        if inst.offset == 1 {
            let field = Value::apply(ValueOp::Field { lo: 16, width: 12 }, vec![w]);
            r.offsets = packed_offsets(&field, false, r.dim);
        }
    } else if let (Some(a), Some(b)) = (get(Slot::Offsets), get(Slot::Offsets2)) {
        // `.PTP`: texel t's (u, v) in bytes 2t and 2t + 1 of the register pair, 6-bit two's
        // complement: a gather of four texels each at its own offset, which the model reads
        // as four gathers, texel t (result channel t) from the t-th (docs/translation.md
        // "Programmable offsets").
        per_texel = Some([a, b]);
    } else if let Some(o) = get(Slot::Offsets) {
        r.offsets = packed_offsets(&o, tld4, r.dim);
    }
    r.lod = match inst.op {
        OpClass::TXD => {
            let n = r.coords.len() as u8;
            LodReq::Grad {
                dx: (0..n).filter_map(|i| get(Slot::Dx(i))).collect(),
                dy: (0..n).filter_map(|i| get(Slot::Dy(i))).collect(),
            }
        }
        OpClass::TXQ if samples_query(inst) => LodReq::Implicit,
        OpClass::TXQ => LodReq::level(get(Slot::Lod).unwrap_or(Value::Bits(0))),
        OpClass::TLD4 | OpClass::TLD4S | OpClass::TMML => LodReq::Implicit,
        _ => match inst.lod {
            1 => LodReq::Zero,
            2 | 6 => LodReq::Bias(get(Slot::Lod).unwrap_or(Value::Bits(0))),
            3 | 7 => LodReq::level(get(Slot::Lod).unwrap_or(Value::Bits(0))),
            _ if is_fetch(inst.op) => LodReq::Zero,
            _ => LodReq::Implicit,
        },
    };
    r.reference = get(Slot::Ref);
    r.sample_index = get(Slot::Sample);
    // TMML: hardware channels 0 and 1 are the IR's 1 and 0 (module documentation).
    let tmml = inst.op == OpClass::TMML;
    let samples = samples_query(inst);
    let semantic = |c: u8| match c {
        0 | 1 if tmml => 1 - c,
        2 if samples => 0,
        _ => c,
    };
    r.channels = (0..4u8)
        .filter(|c| inst.mask & (1 << c) != 0)
        .fold(0, |acc, c| acc | 1 << semantic(c));
    r.residency = inst.sparse != 7 && !inst.op.is_short();
    let request_of: [usize; 4] = match per_texel {
        None => [m.request(r, at.to_string()); 4],
        Some(regs) => {
            let mut ids = [0; 4];
            for t in 0..4u8 {
                if r.channels & (1 << t) == 0 {
                    continue;
                }
                let lo = 16 * (t % 2);
                let mut one = r.clone();
                one.offsets = crate::check::packed_offsets(
                    one.dim,
                    &regs[usize::from(t / 2)],
                    [lo, lo + 8, 0],
                    6,
                );
                ids[usize::from(t)] = m.request(one, at.to_string());
            }
            ids
        }
    };
    let k = request_of[0];
    // Destinations.
    let channels: Vec<u8> = (0..4).filter(|c| inst.mask & (1 << c) != 0).collect();
    let dst = |m: &mut Machine, base: u8, i: usize, c: u8| -> Result<(), Error> {
        if base == RZ {
            return Ok(());
        }
        let n = u32::from(base) + i as u32;
        if n >= u32::from(RZ) {
            return Err(Error::model(
                ISA,
                at,
                format!("destination from R{base} runs past R254"),
            ));
        }
        let result = Value::Result {
            request: request_of[usize::from(c & 3)],
            channel: semantic(c),
        };
        m.write(
            gpr(n),
            if tmml && c < 2 {
                // 8.8 fixed point: i32(trunc(lod × 256)).
                Value::apply(
                    ValueOp::F32ToI32,
                    vec![Value::apply(
                        ValueOp::FMul,
                        vec![result, Value::Bits(256f32.to_bits())],
                    )],
                )
            } else {
                result
            },
        );
        Ok(())
    };
    if inst.op.is_short() {
        for (i, c) in channels.iter().enumerate() {
            let (base, j) = if i < 2 {
                (inst.rd, i)
            } else {
                (inst.rd1, i - 2)
            };
            dst(m, base, j, *c)?;
        }
    } else {
        for (i, c) in channels.iter().enumerate() {
            dst(m, inst.rd, i, *c)?;
        }
        if inst.sparse != 7 {
            m.write(
                Reg {
                    file: RegFile::Predicate,
                    index: u32::from(inst.sparse),
                    sub: 0,
                },
                Value::Result {
                    request: k,
                    channel: 4,
                },
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// ALU
// ---------------------------------------------------------------------------------------

/// A source operand of an ALU instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    Reg(u8),
    /// Constant bank `c[bank][offset]`.
    Const(u32, u32),
    Imm(u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Operand {
    src: Src,
    abs: bool,
    neg: bool,
}

/// One ALU instruction by meaning.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Alu {
    rd: u8,
    /// How the result is computed from the operands (read as `role`).
    kind: AluKind,
    srcs: Vec<Operand>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum AluKind {
    Mov,
    /// I2F: source signed? `src16`: a 16-bit source, bits 15:0 of the register (`.S16`,
    /// `.U16`).
    I2F {
        signed: bool,
        src16: bool,
    },
    /// F2I: destination signed, rounding (0 RNE, 1 floor, 2 ceil, 3 trunc); `dst16`: a
    /// 16-bit destination, saturated (`F2I.U16.F32`).
    F2I {
        signed: bool,
        round: u8,
        dst16: bool,
    },
    /// I2I to a 16- or 32-bit unsigned/signed destination, saturating or not.
    I2I {
        dst16: bool,
        dst_signed: bool,
        src_signed: bool,
        sat: bool,
    },
    FMul,
    /// FMNMX: min when the predicate operand is true (PT), max when false (!PT).
    FMnmx {
        min: bool,
    },
    Rcp,
    /// `SAM`: every quad lane active (helpers included) until `RAM`.
    Sam,
    /// `RAM`: the active mask restored.
    Ram,
    /// `SHFL.IDX PT, d, a, lane, 0x1c03`: `a` of quad lane `lane & 3`.
    Shfl,
    /// `FSWZADD d, a, b, ops`: per quad lane (0 first) the 2-bit code 0 `a + b` (PP),
    /// 1 `b - a` (NP), 2 `a - b` (PN), 3 `b` (ZP).
    Fswz {
        ops: [u8; 4],
    },
    /// `MOV d, b, mask`: a move in the quad lanes whose bit is set in `mask`.
    MovLanes {
        mask: u8,
    },
    // Programmable offsets (dyn-offsets).
    /// `BFI d, a, b, c`: `c` with the field of control `b` (position 7:0, width 15:8)
    /// replaced by the low bits of `a` (PTX `bfi`: the field cut at bit 31; width 0 or
    /// position 32 and up gives `c`).
    Bfi,
    /// `BFE d, a, b` (signed) / `BFE.U32`: the field of control `b` of `a`, sign- or
    /// zero-extended (PTX `bfe`: width 0 gives 0; the field cut at bit 31).
    Bfe {
        signed: bool,
    },
    // The gradient approximation's LOD arithmetic.
    /// `FFMA d, a, b, c`: `a * b + c`, fused.
    FFma,
    /// `MUFU.LG2 d, a`: log2(a).
    Lg2,
    /// `FSET.BF.GE.AND d, a, b, PT`: 1.0 when `a >= b`, else 0.0.
    FSetGe,
}

impl AluKind {
    /// Whether it works across the lanes of a quad (the program is then run per quad).
    fn is_quad(self) -> bool {
        matches!(
            self,
            AluKind::Sam
                | AluKind::Ram
                | AluKind::Shfl
                | AluKind::Fswz { .. }
                | AluKind::MovLanes { .. }
        )
    }
}

/// The letters nvidia prints for a 2-bit `FSWZADD` code (lane 0 first): the factors of a
/// and b.
const FSWZ_CODES: [&str; 4] = ["PP", "NP", "PN", "ZP"];

fn read_src(m: &mut Machine, o: &Operand, role: Role, float: bool) -> Value {
    let v = match o.src {
        Src::Reg(RZ) => Value::Bits(0),
        Src::Reg(r) => m.read(gpr(u32::from(r)), role),
        Src::Const(bank, off) => m.read(
            Reg {
                file: RegFile::ConstantBuffer,
                index: bank,
                sub: off,
            },
            role,
        ),
        Src::Imm(b) => Value::Bits(b),
    };
    let v = if o.abs && float {
        v.unary(ValueOp::FAbs)
    } else {
        v
    };
    if o.neg && float {
        v.unary(ValueOp::FNeg)
    } else {
        v
    }
}

fn alu(m: &mut Machine, a: &Alu, at: &str) -> Result<(), Error> {
    use ValueOp as O;
    let v = match a.kind {
        AluKind::Mov => read_src(m, &a.srcs[0], Role::Float, false),
        AluKind::I2F { signed, src16 } => {
            let x = read_src(m, &a.srcs[0], Role::SmallInt, false);
            let x = match (src16, signed) {
                (false, _) => x,
                (true, false) => x.unary(O::Low16),
                (true, true) => x.unary(O::SignedField { lo: 0, width: 16 }),
            };
            x.unary(if signed { O::I32ToF32 } else { O::U32ToF32 })
        }
        AluKind::F2I {
            signed,
            round,
            dst16,
        } => {
            let x = read_src(m, &a.srcs[0], Role::Float, true);
            let x = match round {
                0 => x.unary(O::RoundNe),
                1 => x.unary(O::RoundNi),
                2 => x.unary(O::RoundPi),
                _ => x,
            };
            if dst16 && !signed {
                // An unsigned 16-bit destination saturates to [0, 65535], NaN to 0: the
                // semantic layer of a float (ptxas's cvt.rni.u16.f32 is this one F2I).
                x.unary(O::FloatLayer)
            } else {
                x.unary(if signed { O::F32ToI32 } else { O::F32ToU32 })
            }
        }
        AluKind::I2I {
            dst16,
            dst_signed,
            src_signed,
            sat,
        } => {
            let x = read_src(m, &a.srcs[0], Role::SmallInt, false);
            match (dst16, sat, dst_signed, src_signed) {
                (false, _, _, _) => x,
                (true, false, _, _) => x.unary(O::Low16),
                (true, true, false, false) => Value::apply(O::UMin, vec![x, Value::Bits(0xffff)]),
                (true, true, false, true) => Value::apply(
                    O::UMin,
                    vec![
                        Value::apply(O::IMax, vec![x, Value::Bits(0)]),
                        Value::Bits(0xffff),
                    ],
                ),
                (true, true, true, _) => Value::apply(
                    O::IMin,
                    vec![
                        Value::apply(O::IMax, vec![x, Value::Bits((-32768i32) as u32)]),
                        Value::Bits(32767),
                    ],
                ),
            }
        }
        AluKind::FMul => {
            let x = read_src(m, &a.srcs[0], Role::Float, true);
            let y = read_src(m, &a.srcs[1], Role::Float, true);
            Value::apply(O::FMul, vec![x, y])
        }
        AluKind::FMnmx { min } => {
            let x = read_src(m, &a.srcs[0], Role::Float, true);
            let y = read_src(m, &a.srcs[1], Role::Float, true);
            Value::apply(if min { O::FMin } else { O::FMax }, vec![x, y])
        }
        AluKind::Rcp => read_src(m, &a.srcs[0], Role::Float, true).unary(O::FRcp),
        // Lane-independent meaning in a one-lane run (`run` only sees these in programs that
        // use no quad operation; `run_quad` evaluates them across the quad).
        AluKind::Sam | AluKind::Ram => return Ok(()),
        AluKind::Shfl | AluKind::MovLanes { .. } => read_src(m, &a.srcs[0], Role::Float, false),
        AluKind::Fswz { ops } => fswz(m, a, ops[0]),
        AluKind::Bfi | AluKind::Bfe { .. } => {
            bit_field(m, a).map_err(|why| Error::model(ISA, at, why))?
        }
        AluKind::FFma => {
            let args = (0..3)
                .map(|i| read_src(m, &a.srcs[i], Role::Float, true))
                .collect();
            Value::apply(O::FFma, args)
        }
        AluKind::Lg2 => read_src(m, &a.srcs[0], Role::Float, true).unary(O::FLog2),
        AluKind::FSetGe => {
            let x = read_src(m, &a.srcs[0], Role::Float, true);
            let y = read_src(m, &a.srcs[1], Role::Float, true);
            Value::apply(O::FSetGe, vec![x, y])
        }
    };
    if a.rd != RZ {
        m.write(gpr(u32::from(a.rd)), v);
    }
    Ok(())
}

/// A `BFI` or `BFE` result; its control must be known (PTX `bfi`/`bfe` semantics: the
/// position and width are bits 7:0 and 15:8, the field cut at bit 31).
fn bit_field(m: &mut Machine, a: &Alu) -> Result<Value, String> {
    use ValueOp as O;
    let x = read_src(m, &a.srcs[0], Role::SmallInt, false);
    let control = read_src(m, &a.srcs[1], Role::Any, false)
        .bits()
        .ok_or("a BFI/BFE control that is not a known constant is not modelled")?;
    let (lo, width) = (control & 0xff, (control >> 8) & 0xff);
    let cut = |lo: u32, width: u32| (lo as u8, width.min(32 - lo) as u8);
    Ok(match a.kind {
        AluKind::Bfi => {
            let base = read_src(m, &a.srcs[2], Role::SmallInt, false);
            if width == 0 || lo >= 32 {
                base
            } else {
                let (lo, width) = cut(lo, width);
                Value::apply(O::InsertField { lo, width }, vec![x, base])
            }
        }
        AluKind::Bfe { signed } => {
            if width == 0 {
                Value::Bits(0)
            } else if lo >= 32 {
                return Err(format!("a BFE at position {lo} is not modelled"));
            } else {
                let (lo, width) = cut(lo, width);
                Value::apply(
                    if signed {
                        O::SignedField { lo, width }
                    } else {
                        O::Field { lo, width }
                    },
                    vec![x],
                )
            }
        }
        _ => unreachable!("bit_field is called for BFI and BFE"),
    })
}

/// `SAM` (`set`) or `RAM`.
fn mask_change(set: bool) -> Alu {
    Alu {
        rd: RZ,
        kind: if set { AluKind::Sam } else { AluKind::Ram },
        srcs: vec![],
    }
}

/// One lane's `FSWZADD` result for 2-bit code `code`.
fn fswz(m: &mut Machine, a: &Alu, code: u8) -> Value {
    let x = read_src(m, &a.srcs[0], Role::Float, true);
    let y = read_src(m, &a.srcs[1], Role::Float, true);
    match code & 3 {
        0 => Value::apply(ValueOp::FAdd, vec![x, y]),
        1 => Value::apply(ValueOp::FSub, vec![y, x]),
        2 => Value::apply(ValueOp::FSub, vec![x, y]),
        _ => y,
    }
}

fn parse_operand(s: &str, float: bool) -> Option<Operand> {
    let mut s = s.trim();
    let mut o = Operand {
        src: Src::Imm(0),
        abs: false,
        neg: false,
    };
    if let Some(rest) = s.strip_prefix('-') {
        if rest.starts_with(['R', 'c', '|']) {
            o.neg = true;
            s = rest;
        }
    }
    if let Some(inner) = s.strip_prefix('|').and_then(|x| x.strip_suffix('|')) {
        o.abs = true;
        s = inner;
    }
    let s = s.strip_suffix(".reuse").unwrap_or(s);
    if let Some(r) = crate::isa::nvidia::text::parse_reg(s) {
        o.src = Src::Reg(r);
        return Some(o);
    }
    if let Some(rest) = s.strip_prefix("c[") {
        let compact: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
        let (bank, rest) = compact.split_once("][")?;
        let off = rest.strip_suffix(']')?;
        let num = |x: &str| u32::from_str_radix(x.strip_prefix("0x")?, 16).ok();
        o.src = Src::Const(num(bank)?, num(off)?);
        return Some(o);
    }
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("-0x")) {
        let v = u32::from_str_radix(h, 16).ok()?;
        o.src = Src::Imm(if s.starts_with('-') {
            v.wrapping_neg()
        } else {
            v
        });
        return Some(o);
    }
    let bits = match s {
        "+INF" | "INF" => f32::INFINITY.to_bits(),
        "-INF" => f32::NEG_INFINITY.to_bits(),
        "+QNAN" | "QNAN" => f32::NAN.to_bits(),
        _ if float => s.parse::<f32>().ok()?.to_bits(),
        _ => s.parse::<i64>().ok()? as u32,
    };
    o.src = Src::Imm(bits);
    Some(o)
}

/// Parses an ALU instruction's text. `Ok(None)`: a mnemonic that cannot touch registers.
fn parse_alu(text: &str) -> Result<Option<Alu>, String> {
    let text = text.trim();
    let (mnemonic, operands) = text
        .split_once(char::is_whitespace)
        .map_or((text, ""), |(a, b)| (a, b.trim()));
    let mut parts = mnemonic.split('.');
    let base = parts.next().unwrap_or("");
    let mods: Vec<&str> = parts.collect();
    if matches!(base, "NOP" | "EXIT" | "RET") && operands.is_empty() {
        return Ok(None);
    }
    if matches!(base, "SAM" | "RAM") && operands.is_empty() && mods.is_empty() {
        return Ok(Some(mask_change(base == "SAM")));
    }
    let ops: Vec<&str> = if operands.is_empty() {
        vec![]
    } else {
        operands.split(',').map(str::trim).collect()
    };
    // SHFL writes a predicate first (`SHFL.IDX PT, R8, …`): only PT is modelled.
    let ops: Vec<&str> = if base == "SHFL" {
        match ops.split_first() {
            Some((&"PT", rest)) => rest.to_vec(),
            _ => {
                return Err(format!(
                    "`{text}`: a SHFL predicate other than PT is not modelled"
                ))
            }
        }
    } else {
        ops
    };
    let float = matches!(
        base,
        "FMUL" | "FMNMX" | "MUFU" | "F2I" | "FSWZADD" | "FFMA" | "FSET"
    );
    let bad = || format!("cannot read `{text}`");
    let rd = ops
        .first()
        .and_then(|r| crate::isa::nvidia::text::parse_reg(r.strip_suffix(".reuse").unwrap_or(r)))
        .ok_or_else(bad)?;
    let src = |i: usize| -> Result<Operand, String> {
        ops.get(i)
            .and_then(|s| parse_operand(s, float))
            .ok_or_else(bad)
    };
    let known_mods = |allowed: &[&str]| -> Result<(), String> {
        match mods.iter().find(|m| !allowed.contains(m)) {
            Some(m) => Err(format!("modifier .{m} of {base} is not modelled")),
            None => Ok(()),
        }
    };
    let (kind, srcs) = match base {
        "MOV" if ops.len() == 3 => {
            known_mods(&[])?;
            let mask = ops[2]
                .strip_prefix("0x")
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .filter(|m| *m <= 0xf)
                .ok_or_else(bad)?;
            if mask == 0xf {
                (AluKind::Mov, vec![src(1)?])
            } else {
                (AluKind::MovLanes { mask }, vec![src(1)?])
            }
        }
        "MOV" | "MOV32I" => {
            known_mods(&[])?;
            (AluKind::Mov, vec![src(1)?])
        }
        "SHFL" => {
            known_mods(&["IDX"])?;
            if mods != ["IDX"] || ops.get(3).copied() != Some("0x1c03") {
                return Err(format!(
                    "`{text}`: only SHFL.IDX within a quad (c = 0x1c03) is modelled"
                ));
            }
            (AluKind::Shfl, vec![src(1)?, src(2)?])
        }
        "FSWZADD" => {
            known_mods(&["NDV"])?;
            let letters = ops.get(3).copied().unwrap_or("");
            let mut codes = [0u8; 4];
            if letters.len() != 8 {
                return Err(bad());
            }
            for (l, code) in codes.iter_mut().enumerate() {
                let pair = &letters[2 * l..2 * l + 2];
                *code = FSWZ_CODES.iter().position(|c| *c == pair).ok_or_else(bad)? as u8;
            }
            (AluKind::Fswz { ops: codes }, vec![src(1)?, src(2)?])
        }
        "I2F" => {
            known_mods(&["F32", "S32", "U32", "S16", "U16", "RN", "FTZ"])?;
            (
                AluKind::I2F {
                    signed: !mods.contains(&"U32") && !mods.contains(&"U16"),
                    src16: mods.contains(&"S16") || mods.contains(&"U16"),
                },
                vec![src(1)?],
            )
        }
        "F2I" => {
            known_mods(&[
                "F32", "S32", "U32", "U16", "TRUNC", "FLOOR", "CEIL", "ROUND", "FTZ",
            ])?;
            let round = if mods.contains(&"TRUNC") {
                3
            } else if mods.contains(&"FLOOR") {
                1
            } else if mods.contains(&"CEIL") {
                2
            } else {
                0
            };
            (
                AluKind::F2I {
                    signed: !mods.contains(&"U32") && !mods.contains(&"U16"),
                    round,
                    dst16: mods.contains(&"U16"),
                },
                vec![src(1)?],
            )
        }
        "I2I" => {
            known_mods(&["U16", "S16", "U32", "S32", "SAT"])?;
            // Types print destination first: I2I.U16.U32 (research §3).
            let types: Vec<&&str> = mods.iter().filter(|m| **m != "SAT").collect();
            let (d, s) = match types.as_slice() {
                [d, s] => (**d, **s),
                [d] => (**d, "S32"),
                [] => ("S32", "S32"),
                _ => return Err(bad()),
            };
            (
                AluKind::I2I {
                    dst16: d.ends_with("16"),
                    dst_signed: d.starts_with('S'),
                    src_signed: s.starts_with('S'),
                    sat: mods.contains(&"SAT"),
                },
                vec![src(1)?],
            )
        }
        "FMUL" => {
            known_mods(&["FTZ"])?;
            (AluKind::FMul, vec![src(1)?, src(2)?])
        }
        "FMNMX" => {
            known_mods(&["FTZ"])?;
            let min = match ops.get(3).copied() {
                Some("PT") => true,
                Some("!PT") => false,
                _ => {
                    return Err(format!(
                        "`{text}`: FMNMX with a predicate other than PT/!PT is not modelled"
                    ))
                }
            };
            (AluKind::FMnmx { min }, vec![src(1)?, src(2)?])
        }
        "MUFU" if mods == ["RCP"] => (AluKind::Rcp, vec![src(1)?]),
        "BFI" => {
            known_mods(&[])?;
            (AluKind::Bfi, vec![src(1)?, src(2)?, src(3)?])
        }
        "BFE" => {
            known_mods(&["U32"])?;
            (
                AluKind::Bfe {
                    signed: !mods.contains(&"U32"),
                },
                vec![src(1)?, src(2)?],
            )
        }
        "MUFU" if mods == ["LG2"] => (AluKind::Lg2, vec![src(1)?]),
        "FFMA" => {
            known_mods(&[])?;
            (AluKind::FFma, vec![src(1)?, src(2)?, src(3)?])
        }
        "FSET" => {
            if mods != ["BF", "GE", "AND"] || ops.get(3).copied() != Some("PT") {
                return Err(format!("`{text}`: only FSET.BF.GE.AND with PT is modelled"));
            }
            (AluKind::FSetGe, vec![src(1)?, src(2)?])
        }
        _ => return Err(format!("instruction `{text}` is not modelled")),
    };
    Ok(Some(Alu { rd, kind, srcs }))
}

/// The 20-bit signed immediate of an integer ALU word: bits 38..20, the sign at 56.
fn imm20(w: u64) -> u32 {
    let v = ((w >> 20) & 0x7_ffff) as u32 | (((w >> 56) & 1) as u32) << 19;
    sext(v, 20) as u32
}

/// Rd (0..7), Ra (8..15), the guard (16..19) and Rb (20..27) of an ALU word.
const REG_FIELDS: u64 = 0x0fff_ffff;

/// Decodes an ALU word of the encodings the corpus listings show (module documentation).
/// `Ok(None)`: NOP or EXIT.
fn decode_alu(w: u64) -> Result<Option<Alu>, String> {
    let top = (w >> 48) as u16 & 0xfff8;
    let rd = (w & 0xff) as u8;
    let ra = ((w >> 8) & 0xff) as u8;
    let rb = ((w >> 20) & 0xff) as u8;
    let cbuf = Src::Const(((w >> 34) & 0x1f) as u32, (((w >> 20) & 0x3fff) * 4) as u32);
    let op = |src| Operand {
        src,
        abs: false,
        neg: false,
    };
    let second = |is_const: bool| if is_const { cbuf } else { Src::Reg(rb) };
    let fail = || {
        Err(format!(
            "word {w:#018x} is not an instruction the model decodes"
        ))
    };
    if (w >> 52) == 0x010 {
        return Ok(Some(Alu {
            rd,
            kind: AluKind::Mov,
            srcs: vec![op(Src::Imm((w >> 20) as u32))],
        }));
    }
    let kind_src = match top {
        0x50b0 | 0xe300 => return Ok(None),
        0xe370 | 0xe380 => return Ok(Some(mask_change(top == 0xe370))),
        0x5c98 | 0x4c98 => {
            let mask = ((w >> 39) & 0xf) as u8;
            let kind = if mask == 0xf {
                AluKind::Mov
            } else {
                AluKind::MovLanes { mask }
            };
            (kind, vec![op(second(top == 0x4c98))])
        }
        0xef10 if (w >> 48) & 0xf == 0x7 => {
            // SHFL (PT destination): mode 31:30 = IDX, b immediate when bit 28, c immediate
            // when bit 29 (34..47).
            if (w >> 30) & 3 != 0 || (w >> 29) & 1 != 1 || (w >> 34) & 0x1fff != 0x1c03 {
                return Err(format!(
                    "word {w:#018x}: only SHFL.IDX within a quad (c = 0x1c03) is modelled"
                ));
            }
            let lane = if (w >> 28) & 1 == 1 {
                Src::Imm(((w >> 20) & 0x1f) as u32)
            } else {
                Src::Reg(rb)
            };
            (AluKind::Shfl, vec![op(Src::Reg(ra)), op(lane)])
        }
        0x50f8 => {
            // FSWZADD: codes 35:28 (lane 0 in 35:34), rounding 40:39, FTZ 44, NDV 38.
            if (w >> 39) & 3 != 0 || (w >> 44) & 1 != 0 {
                return fail();
            }
            let all = ((w >> 28) & 0xff) as u8;
            let ops = [0, 1, 2, 3].map(|l| (all >> (6 - 2 * l)) & 3);
            (
                AluKind::Fswz { ops },
                vec![op(Src::Reg(ra)), op(Src::Reg(rb))],
            )
        }
        0x5ce0 | 0x4ce0 => {
            let (dsz, ssz) = ((w >> 8) & 3, (w >> 10) & 3);
            if ssz != 2 || !(dsz == 1 || dsz == 2) {
                return fail();
            }
            (
                AluKind::I2I {
                    dst16: dsz == 1,
                    dst_signed: (w >> 12) & 1 == 1,
                    src_signed: (w >> 13) & 1 == 1,
                    sat: (w >> 50) & 1 == 1,
                },
                vec![op(second(top == 0x4ce0))],
            )
        }
        0x5cb8 | 0x4cb8 => {
            // Destination size (bits 8-9) 32; source size (bits 10-11) 16 or 32.
            // A part select (bits 41-42: `.H1`, `.B1`...), `-` (45) or `|x|` (49) is not
            // modelled (nvdisasm, bit flips of `I2F.F32.S16 R0, R5`).
            let ssz = (w >> 10) & 3;
            if (w >> 8) & 3 != 2 || !(ssz == 1 || ssz == 2) || (w >> 41) & 3 != 0 {
                return fail();
            }
            if (w >> 45) & 1 != 0 || (w >> 49) & 1 != 0 {
                return fail();
            }
            (
                AluKind::I2F {
                    signed: (w >> 13) & 1 == 1,
                    src16: ssz == 1,
                },
                vec![op(second(top == 0x4cb8))],
            )
        }
        0x5c68 | 0x4c68 => {
            if (w >> 48) & 1 != 0 {
                return fail();
            }
            (
                AluKind::FMul,
                vec![op(Src::Reg(ra)), op(second(top == 0x4c68))],
            )
        }
        0x5c60 | 0x4c60 => {
            if (w >> 45) & 1 != 0 || (w >> 48) & 1 != 0 {
                return fail();
            }
            let pred = (w >> 39) & 0xf;
            let min = match pred {
                0x7 => true,
                0xf => false,
                _ => return fail(),
            };
            (
                AluKind::FMnmx { min },
                vec![
                    Operand {
                        src: Src::Reg(ra),
                        abs: (w >> 46) & 1 == 1,
                        neg: false,
                    },
                    Operand {
                        src: second(top == 0x4c60),
                        abs: (w >> 49) & 1 == 1,
                        neg: false,
                    },
                ],
            )
        }
        0x5080 if (w >> 20) & 0xf == 3 => {
            // MUFU.LG2: sub-op 3 (ptxas, lg2.approx.ftz.f32); |a| (46), -a (48) as for RCP.
            (
                AluKind::Lg2,
                vec![Operand {
                    src: Src::Reg(ra),
                    abs: (w >> 46) & 1 == 1,
                    neg: (w >> 48) & 1 == 1,
                }],
            )
        }
        0x5980 => {
            // FFMA Rd, Ra, Rb, Rc (ptxas, fma.rn.f32): every bit outside the register and
            // guard fields as in 0x5980000000070000 (other roundings, .FTZ, .SAT and the
            // negations are not modelled).
            if w & !(REG_FIELDS | 0xff << 39) != 0x5980_0000_0000_0000 {
                return fail();
            }
            let rc = ((w >> 39) & 0xff) as u8;
            (
                AluKind::FFma,
                vec![op(Src::Reg(ra)), op(Src::Reg(rb)), op(Src::Reg(rc))],
            )
        }
        0x5850 if (w >> 48) & 0xf == 0x6 => {
            // FSET.BF.GE.AND Rd, |Ra|, Rb, PT (ptxas, abs + set.ge.f32.f32): the word with
            // every operand field 0 is 0x5856038000070000; other compares, combiners,
            // predicates and modifiers are not modelled.
            if w & !REG_FIELDS != 0x5856_0380_0000_0000 {
                return fail();
            }
            (
                AluKind::FSetGe,
                vec![
                    Operand {
                        src: Src::Reg(ra),
                        abs: true,
                        neg: false,
                    },
                    op(Src::Reg(rb)),
                ],
            )
        }
        0x5080 => {
            if (w >> 20) & 0xf != 4 {
                return fail();
            }
            (
                AluKind::Rcp,
                vec![Operand {
                    src: Src::Reg(ra),
                    abs: (w >> 46) & 1 == 1,
                    neg: (w >> 48) & 1 == 1,
                }],
            )
        }
        // BFI (nvdisasm): 0x5bf0 `BFI d, a, Rb, Rc` (Rc at 39), 0x36f0 with an immediate
        // control (20 bits: 38..20 and the sign at 56), 0x53f0 `BFI d, a, Rb, c[][]` (Rb at
        // 39, ptxas's form); bit 47 is `.CC` (not modelled).
        0x5bf0 | 0x36f0 | 0x53f0 => {
            if (w >> 47) & 1 != 0 {
                return fail();
            }
            let r39 = Src::Reg(((w >> 39) & 0xff) as u8);
            let (control, base) = match top {
                0x5bf0 => (Src::Reg(rb), r39),
                0x36f0 => (Src::Imm(imm20(w)), r39),
                _ => (r39, cbuf),
            };
            (AluKind::Bfi, vec![op(Src::Reg(ra)), op(control), op(base)])
        }
        // BFE: 0x5c00 register, 0x3800 immediate, 0x4c00 constant control; bit 48 signed
        // (`BFE` vs `BFE.U32`), bit 40 `.BREV` and 47 `.CC` are not modelled (nvdisasm).
        0x5c00 | 0x3800 | 0x4c00 => {
            if (w >> 40) & 1 != 0 || (w >> 47) & 1 != 0 {
                return fail();
            }
            let control = match top {
                0x5c00 => Src::Reg(rb),
                0x3800 => Src::Imm(imm20(w)),
                _ => cbuf,
            };
            (
                AluKind::Bfe {
                    signed: (w >> 48) & 1 == 1,
                },
                vec![op(Src::Reg(ra)), op(control)],
            )
        }
        _ => return fail(),
    };
    Ok(Some(Alu {
        rd,
        kind: kind_src.0,
        srcs: kind_src.1,
    }))
}

// ---------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------

/// One instruction of a program, as the model reads it.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    Texture(NvInst),
    Alu(Alu),
}

/// The instruction text of a listing line with its decoration removed (address, braces,
/// terminator, encoding comment), or `None` when the line holds no instruction.
fn instruction_text(line: &str) -> Option<&str> {
    let mut s = line.trim();
    if let Some(i) = s.find("/* 0x") {
        s = s[..i].trim_end();
    }
    if s.starts_with("/*") {
        let end = s.find("*/")?;
        let inner = &s[2..end];
        if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_hexdigit()) {
            s = s[end + 2..].trim_start();
        } else {
            return None;
        }
    }
    s = s.strip_prefix('{').unwrap_or(s).trim();
    s = s.strip_suffix('}').unwrap_or(s).trim();
    s = s.strip_suffix(';').unwrap_or(s).trim();
    let first = s.split_whitespace().next()?;
    let mnemonic_like = |w: &str| {
        w.split('.').next().is_some_and(|b| {
            !b.is_empty()
                && b.bytes()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
    };
    if first.starts_with('@') || (mnemonic_like(first) && first.as_bytes()[0].is_ascii_uppercase())
    {
        Some(s)
    } else {
        None
    }
}

/// Reads a program into steps with their locations.
pub(crate) fn read(program: &[u8]) -> Result<Vec<(String, Step)>, Error> {
    let mut steps = Vec::new();
    if crate::isa::nvidia::looks_binary(program) {
        for (offset, word) in words(program)? {
            let at = format!("offset {offset:#x}");
            // An unconditional EXIT ends the program: what follows (ptxas's closing BRA to
            // itself) is never reached.
            if word >> 52 == 0xe30 && (word >> 16) & 0xf == 7 {
                break;
            }
            match decode_word(word) {
                Ok(Some(inst)) => steps.push((at, Step::Texture(inst))),
                Err(e) => return Err(Error::model(ISA, at, format!("word {word:#018x}: {e}"))),
                Ok(None) => {
                    if let Some(a) = decode_alu(word).map_err(|e| Error::model(ISA, &at, e))? {
                        steps.push((at, Step::Alu(a)));
                    }
                }
            }
        }
        return Ok(steps);
    }
    let text = std::str::from_utf8(program)
        .map_err(|e| Error::model(ISA, "input", format!("not UTF-8: {e}")))?;
    for (i, line) in text.lines().enumerate() {
        let at = format!("line {}", i + 1);
        let Some(inst) = instruction_text(line) else {
            continue;
        };
        let column = (line.len() - line.trim_start().len()) as u32 + 1;
        if crate::isa::nvidia::text::is_texture_text(inst) {
            let parsed = parse_inst(inst, i as u32 + 1, column)
                .map_err(|e| Error::read(ISA, crate::Error::Parse(e)))?;
            steps.push((at, Step::Texture(parsed)));
            continue;
        }
        let body = match inst.strip_prefix('@') {
            Some(rest) => rest.split_once(char::is_whitespace).map_or("", |x| x.1),
            None => inst,
        };
        if inst.trim() == "EXIT" {
            // An unconditional EXIT ends the program (see above).
            break;
        }
        if let Some(a) = parse_alu(body).map_err(|e| Error::model(ISA, &at, e))? {
            steps.push((at, Step::Alu(a)));
        }
    }
    Ok(steps)
}

/// The instruction words of a raw stream or a cubin's `.text.*` sections, with their byte
/// offsets; control words (every fourth, first of a bundle) are left out.
fn words(bytes: &[u8]) -> Result<Vec<(usize, u64)>, Error> {
    let mut out = Vec::new();
    let mut stream = |data: &[u8], base: usize| -> Result<(), Error> {
        if data.len() % 8 != 0 {
            return Err(Error::model(
                ISA,
                format!("offset {base:#x}"),
                "a stream holds whole 8-byte words",
            ));
        }
        for (i, c) in data.chunks_exact(8).enumerate() {
            if i % 4 == 0 {
                continue;
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            out.push((base + 8 * i, u64::from_le_bytes(b)));
        }
        Ok(())
    };
    if !bytes.starts_with(b"\x7fELF") {
        stream(bytes, 0)?;
        return Ok(out);
    }
    use object::{Object, ObjectSection};
    let elf =
        |e: object::Error| Error::model(ISA, "offset 0x0", format!("not a readable ELF file: {e}"));
    let file = object::File::parse(bytes).map_err(elf)?;
    for section in file.sections() {
        if !section.name().map_err(elf)?.starts_with(".text.") {
            continue;
        }
        let base = section.file_range().map_or(0, |(o, _)| o as usize);
        stream(section.data().map_err(elf)?, base)?;
    }
    Ok(out)
}

/// Runs steps over `m`.
pub(crate) fn execute(
    m: &mut Machine,
    steps: &[(String, Step)],
    bindings: &Bindings,
) -> Result<(), Error> {
    for (at, step) in steps {
        match step {
            Step::Texture(inst) => texture(m, inst, bindings, at)?,
            Step::Alu(a) => alu(m, a, at)?,
        }
    }
    Ok(())
}

/// Whether the program uses quad operations (`SAM`, `RAM`, `SHFL`, `FSWZADD`, a lane-masked
/// `MOV`): its semantics then need the four lanes of a quad ([`run_quad`]).
pub fn uses_quad(program: &[u8]) -> Result<bool, Error> {
    Ok(read(program)?
        .iter()
        .any(|(_, s)| matches!(s, Step::Alu(a) if a.kind.is_quad())))
}

/// Runs the model over the four lanes of a quad, lane `l` from `inits[l]` (see the module
/// documentation of [`crate::check`], "Quads"). Lanes run in lock step; `SHFL.IDX` reads the
/// lane it names, `FSWZADD` applies each lane's code, a lane-masked `MOV` writes its lanes
/// only. A texture instruction between `SAM` and `RAM` with implicit LOD takes the quad's
/// coarse implicit derivatives: lane 1 − lane 0 along x, lane 2 − lane 0 along y
/// ([`LodReq::QuadDerivatives`]).
///
/// Each lane's [`Execution`] lists the requests that lane made outside `SAM`/`RAM`, and the
/// requests whose results its registers written last outside `SAM`/`RAM` hold at the end (a
/// helper lane's sample that no lane keeps is no request of any lane), in the order they
/// were made.
pub fn run_quad(
    program: &[u8],
    inits: [InitialFile; 4],
    bindings: &Bindings,
) -> Result<[Execution; 4], Error> {
    let steps = read(program)?;
    let mut lanes: Vec<Machine> = inits
        .into_iter()
        .enumerate()
        .map(|(l, init)| {
            let mut m = Machine::new(init);
            m.request_ids = (l, 4);
            m
        })
        .collect();
    let mut depth = 0usize;
    let mut helper: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for (at, step) in &steps {
        for m in lanes.iter_mut() {
            m.in_quad_region = depth > 0;
        }
        match step {
            Step::Texture(inst) => {
                let first = lanes[0].next_request();
                for m in lanes.iter_mut() {
                    texture(m, inst, bindings, at)?;
                }
                if depth > 0 {
                    helper.extend(first..first + 4);
                    let coords: Vec<Vec<Value>> = lanes
                        .iter()
                        .map(|m| {
                            m.requests
                                .last()
                                .map_or(Vec::new(), |r| r.request.coords.clone())
                        })
                        .collect();
                    let diff = |a: usize, b: usize| -> Vec<Value> {
                        coords[a]
                            .iter()
                            .zip(&coords[b])
                            .map(|(x, y)| Value::apply(ValueOp::FSub, vec![x.clone(), y.clone()]))
                            .collect()
                    };
                    let (dx, dy) = (diff(1, 0), diff(2, 0));
                    for m in lanes.iter_mut() {
                        if let Some(r) = m.requests.last_mut() {
                            if r.request.lod == LodReq::Implicit {
                                r.request.lod = LodReq::QuadDerivatives {
                                    dx: dx.clone(),
                                    dy: dy.clone(),
                                };
                            }
                        }
                    }
                }
            }
            Step::Alu(a) => match a.kind {
                AluKind::Sam => depth += 1,
                AluKind::Ram => {
                    depth = depth
                        .checked_sub(1)
                        .ok_or_else(|| Error::model(ISA, at, "RAM without a SAM before it"))?
                }
                AluKind::Shfl => {
                    let vals: Vec<Value> = lanes
                        .iter_mut()
                        .map(|m| read_src(m, &a.srcs[0], Role::Float, false))
                        .collect();
                    for m in lanes.iter_mut() {
                        let lane = match read_src(m, &a.srcs[1], Role::SmallInt, false) {
                            Value::Bits(b) => (b & 3) as usize,
                            other => {
                                return Err(Error::model(
                                    ISA,
                                    at,
                                    format!("SHFL lane {other} is not a known number"),
                                ))
                            }
                        };
                        if a.rd != RZ {
                            m.write(gpr(u32::from(a.rd)), vals[lane].clone());
                        }
                    }
                }
                AluKind::Fswz { ops } => {
                    for (l, m) in lanes.iter_mut().enumerate() {
                        let v = fswz(m, a, ops[l]);
                        if a.rd != RZ {
                            m.write(gpr(u32::from(a.rd)), v);
                        }
                    }
                }
                AluKind::MovLanes { mask } => {
                    for (l, m) in lanes.iter_mut().enumerate() {
                        if mask & (1 << l) != 0 {
                            alu(
                                m,
                                &Alu {
                                    rd: a.rd,
                                    kind: AluKind::Mov,
                                    srcs: a.srcs.clone(),
                                },
                                at,
                            )?;
                        }
                    }
                }
                _ => {
                    for m in lanes.iter_mut() {
                        alu(m, a, at)?;
                    }
                }
            },
        }
    }
    let all: Vec<Vec<Located>> = lanes.iter().map(|m| m.requests.clone()).collect();
    let get = |id: usize| &all[id % 4][id / 4];
    let mut out = Vec::with_capacity(4);
    for (l, m) in lanes.into_iter().enumerate() {
        let mut ids: std::collections::BTreeSet<(usize, usize)> = (0..m.requests.len())
            .map(|i| l + 4 * i)
            .filter(|id| !helper.contains(id))
            .map(|id| (id / 4, id % 4))
            .collect();
        let kept = m
            .regs
            .iter()
            .filter(|(r, _)| !m.quad_region_writes.contains(*r));
        for (_, v) in kept {
            results_of(v, &mut |id| {
                ids.insert((id / 4, id % 4));
            });
        }
        let order: Vec<usize> = ids.into_iter().map(|(i, l)| 4 * i + l).collect();
        let renumber: std::collections::HashMap<usize, usize> =
            order.iter().enumerate().map(|(k, id)| (*id, k)).collect();
        let requests = order
            .iter()
            .map(|id| {
                let mut r = get(*id).clone();
                r.at = format!("{} (quad lane {})", r.at, id % 4);
                renumber_request(&mut r.request, &renumber);
                r
            })
            .collect();
        let regs = m
            .regs
            .into_iter()
            .map(|(k, v)| (k, renumbered(v, &renumber)))
            .collect();
        out.push(Execution {
            requests,
            regs,
            written: m.written,
            init: m.init,
        });
    }
    out.try_into()
        .map_err(|_| Error::model(ISA, "input", "a quad has four lanes"))
}

/// Calls `f` on the request id of every result `v` holds.
pub(crate) fn results_of(v: &Value, f: &mut impl FnMut(usize)) {
    match v {
        Value::Bits(_) => {}
        Value::Result { request, .. } => f(*request),
        Value::Op { args, .. } => args.iter().for_each(|a| results_of(a, f)),
    }
}

/// `v` with its result ids renumbered (ids not in `map` unchanged).
pub(crate) fn renumbered(v: Value, map: &std::collections::HashMap<usize, usize>) -> Value {
    match v {
        Value::Result { request, channel } => Value::Result {
            request: map.get(&request).copied().unwrap_or(request),
            channel,
        },
        Value::Op { op, args } => Value::Op {
            op,
            args: args.into_iter().map(|a| renumbered(a, map)).collect(),
        },
        b => b,
    }
}

pub(crate) fn renumber_request(r: &mut Request, map: &std::collections::HashMap<usize, usize>) {
    let f = |v: &mut Value| *v = renumbered(v.clone(), map);
    r.coords.iter_mut().for_each(f);
    for v in [
        &mut r.layer,
        &mut r.min_lod,
        &mut r.reference,
        &mut r.sample_index,
    ]
    .into_iter()
    .flatten()
    {
        f(v);
    }
    match &mut r.lod {
        LodReq::Bias(v) | LodReq::Level(v) => f(v),
        LodReq::Grad { dx, dy } | LodReq::QuadDerivatives { dx, dy } => {
            dx.iter_mut().chain(dy.iter_mut()).for_each(f)
        }
        LodReq::Implicit | LodReq::Zero => {}
    }
    match &mut r.offsets {
        Offsets::Dynamic(v) => v.iter_mut().for_each(f),
        Offsets::Fields(v) => v.iter_mut().for_each(f),
        Offsets::Packed(v) => f(v),
        Offsets::None | Offsets::Imm(_) | Offsets::PerTexel(_) => {}
    }
    r.mcs.iter_mut().for_each(f);
    if let ResourceId::Handle(h) = &mut r.resource {
        f(h);
    }
}

/// Runs the model over a whole program.
pub fn run(program: &[u8], init: InitialFile, bindings: &Bindings) -> Result<Execution, Error> {
    let steps = read(program)?;
    let mut m = Machine::new(init);
    execute(&mut m, &steps, bindings)?;
    Ok(m.into())
}
