//! Which parameter sits in which register of the Ra and Rb vectors (research §4, the seed's
//! "Texture parameter packing" table). The slot orders come from `mappings/nvidia.toml`
//! (`[packing.*]` and the short-form targets); absent parameters compact the rest upward.

use super::inst::{lod_spelling, NvInst, OFFSET_AOFFI, OFFSET_NONE, OFFSET_PTP};
use super::table::{table, OpClass, ShortTarget, Slot};

/// One scalar parameter of a texture instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// The array index; with `.LC` (TEX) the same register carries LodClamp\[27:16\].
    Array,
    /// Coordinate `i`.
    Coord(u8),
    /// A bindless texture handle.
    Handle,
    /// LOD or bias; TXQ's level.
    Lod,
    /// Offset register `k` (AOFFI: one; PTP: two).
    Offset(u8),
    /// The depth-compare reference.
    DepthRef,
    /// The sample index.
    Sample,
    /// TXD: `(offset << 16) | array`.
    ArrayOffset,
    /// Gradient d/dx of coordinate `i`.
    GradDx(u8),
    /// Gradient d/dy of coordinate `i`.
    GradDy(u8),
}

/// The dimension spelling of a code (`ARRAY_2D`).
pub fn dim_name(code: u8) -> &'static str {
    table().dims.get(code as usize).map_or("", String::as_str)
}

/// Whether the dimension is an array.
pub fn is_arrayed(code: u8) -> bool {
    dim_name(code).starts_with("ARRAY_")
}

/// Spatial coordinates of a dimension: 1D 1, 2D 2, 3D and CUBE 3.
pub fn coord_count(code: u8) -> u8 {
    let d = dim_name(code);
    if d.ends_with("1D") {
        1
    } else if d.ends_with("2D") {
        2
    } else {
        3
    }
}

/// Whether the LOD mode reads a register (LB, LL, LBA, LLA).
pub fn lod_has_register(lod: u8) -> bool {
    !matches!(lod_spelling(lod), "" | "LZ")
}

/// The short-form target entry of a TEXS/TLDS instruction.
pub fn short_target(inst: &NvInst) -> Option<&'static ShortTarget> {
    let t = table();
    let lod = lod_spelling(inst.lod);
    let dim = dim_name(inst.dim);
    t.short_targets(inst.op).iter().find(|s| {
        s.lod == lod
            && s.dim == dim
            && s.dc == inst.dc
            && s.ms == inst.ms
            && s.aoffi == (inst.offset == OFFSET_AOFFI)
    })
}

/// Calls `f` on each parameter `slots` hold for `inst`, in register order.
fn expand_each(inst: &NvInst, slots: &[Slot], mut f: impl FnMut(Param)) {
    let arrayed = is_arrayed(inst.dim);
    let coords = coord_count(inst.dim);
    for slot in slots {
        match slot {
            Slot::Array if arrayed || inst.lc => f(Param::Array),
            Slot::Coords => (0..coords).map(Param::Coord).for_each(&mut f),
            Slot::X => f(Param::Coord(0)),
            Slot::Y => f(Param::Coord(1)),
            Slot::Z => f(Param::Coord(2)),
            Slot::Handle if inst.bindless => f(Param::Handle),
            Slot::Lod if inst.op == OpClass::TXQ || lod_has_register(inst.lod) => f(Param::Lod),
            Slot::Offset if inst.offset == OFFSET_AOFFI => f(Param::Offset(0)),
            Slot::Offset if inst.offset == OFFSET_PTP => {
                f(Param::Offset(0));
                f(Param::Offset(1));
            }
            Slot::DepthRef if inst.dc => f(Param::DepthRef),
            Slot::Sample if inst.ms => f(Param::Sample),
            Slot::ArrayOffset if arrayed || inst.offset == OFFSET_AOFFI => f(Param::ArrayOffset),
            Slot::Grads => {
                for i in 0..coords {
                    f(Param::GradDx(i));
                    f(Param::GradDy(i));
                }
            }
            _ => {}
        }
    }
}

/// The slot orders of Ra and Rb. `None`: a short form whose LOD mode, dimension and flags
/// name no target.
fn slot_orders(inst: &NvInst) -> Option<(&'static [Slot], &'static [Slot])> {
    match inst.op {
        OpClass::TEXS | OpClass::TLDS => {
            let target = short_target(inst)?;
            Some((&target.ra, &target.rb))
        }
        op => {
            let packing = table().packing.get(&op)?;
            match &packing.plain {
                Some(plain) if inst.offset == OFFSET_NONE && !inst.dc => {
                    Some((&plain.ra, &plain.rb))
                }
                _ => Some((&packing.ra, &packing.rb)),
            }
        }
    }
}

/// The parameters of Ra and of Rb, in register order. `None`: a short form whose LOD mode,
/// dimension and flags name no target.
pub fn params(inst: &NvInst) -> Option<(Vec<Param>, Vec<Param>)> {
    let (ra, rb) = slot_orders(inst)?;
    let expand = |slots| {
        let mut out = Vec::new();
        expand_each(inst, slots, |p| out.push(p));
        out
    };
    Some((expand(ra), expand(rb)))
}

/// How many parameters Ra and Rb hold ([`params`] without building them).
pub fn param_counts(inst: &NvInst) -> Option<(usize, usize)> {
    let (ra, rb) = slot_orders(inst)?;
    let count = |slots| {
        let mut n = 0;
        expand_each(inst, slots, |_| n += 1);
        n
    };
    Some((count(ra), count(rb)))
}

/// The destination registers of each written channel, in hardware channel order: TEX, TLD,
/// TLD4, TXD, TMML and TXQ write the enabled channels contiguously from Rd; TEXS, TLDS and
/// TLD4S write the first two to Rd0, Rd0+1 and the others to Rd1, Rd1+1 (research §4).
///
/// Each entry: (channel, whether the register is in the Rd1 vector, index in its vector).
pub fn dst_layout(inst: &NvInst) -> Vec<(usize, bool, u8)> {
    dst_channels(inst).collect()
}

/// [`dst_layout`] as an iterator.
pub fn dst_channels(inst: &NvInst) -> impl Iterator<Item = (usize, bool, u8)> {
    let (mask, short) = (inst.mask, inst.op.is_short());
    (0..4usize)
        .filter(move |c| mask & (1 << c) != 0)
        .enumerate()
        .map(move |(i, c)| {
            if short && i >= 2 {
                (c, true, (i - 2) as u8)
            } else {
                (c, false, i as u8)
            }
        })
}

/// The IR operand a parameter holds ([`crate::isa::Operand`]), for the register groups the
/// register-alignment pass places. `arrayed`: the dimension is an array (otherwise the
/// `array` slot holds the `.LC` clamp alone).
pub fn operand_of(p: Param, arrayed: bool) -> crate::isa::Operand {
    use crate::isa::Operand;
    match p {
        Param::Array if arrayed => Operand::ArrayIndex,
        Param::Array => Operand::MinLod,
        Param::Coord(i) => Operand::Coord(i),
        Param::Handle => Operand::Handle,
        Param::Lod => Operand::Lod,
        Param::Offset(k) => Operand::Offset(k),
        Param::DepthRef => Operand::DepthRef,
        Param::Sample => Operand::SampleIndex,
        // TXD: `(offset << 16) | layer`, also without a layer (`offset << 16`).
        Param::ArrayOffset => Operand::ArrayOffset,
        Param::GradDx(i) => Operand::GradDx(i),
        Param::GradDy(i) => Operand::GradDy(i),
    }
}
