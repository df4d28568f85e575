//! How a target lays out the operands of a texture instruction: which operands it reads or
//! writes as one register unit, and how they must lie there. Codecs describe their ISA with
//! these (`Codec::register_groups`); the passes (`passes::align_regs`) meet them without
//! knowing which ISA asked.

/// Operands of one texture instruction that the target reads or writes as one register
/// operand, and how they must lie in it. Operands are named by [`Operand`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegGroup {
    /// The operand's name in messages (`Ra`, `Rb`, `Rd`, `address`, `dst`).
    pub name: &'static str,
    /// The operands, in register order.
    pub operands: Vec<Operand>,
    /// How they must lie.
    pub layout: GroupLayout,
}

/// How the operands of a [`RegGroup`] must lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupLayout {
    /// Consecutive registers, the first a multiple of `align` (NVIDIA Ra, Rb and Rd:
    /// research/nvidia.md §4, seeds/nvidia-TEX.txt "alignment restrictions").
    Consecutive {
        /// The first register's number is a multiple of this.
        align: u32,
    },
    /// Components of one register, in any order (DX vector operands: the swizzle or write
    /// mask picks them); immediates all, or registers all.
    OneRegister,
    /// One variable, operand `k` at byte `k × stride` (vISA results: each returned channel
    /// starts a new GRF).
    ChannelBlocks {
        /// Bytes between consecutive operands.
        stride: u32,
    },
}

/// One operand of a texture instruction, by role: what a [`RegGroup`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Coordinate `i` (0 = u, 1 = v, 2 = w).
    Coord(u8),
    /// The array layer.
    ArrayIndex,
    /// The array index with the packed offsets in its upper 16 bits (NVIDIA TXD).
    ArrayOffset,
    /// The minimum-LOD clamp.
    MinLod,
    /// The LOD, bias or level.
    Lod,
    /// Gradient d/dx of coordinate `i`.
    GradDx(u8),
    /// Gradient d/dy of coordinate `i`.
    GradDy(u8),
    /// The depth-compare reference.
    DepthRef,
    /// A packed-offset register (NVIDIA `.AOFFI`), or register `i` of per-texel offsets.
    Offset(u8),
    /// The sample index of a multisample fetch.
    SampleIndex,
    /// A bindless texture handle (NVIDIA `.B`).
    Handle,
    /// Result channel `c` (0 = R .. 3 = A).
    Dst(u8),
}
