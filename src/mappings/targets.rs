//! `mappings/targets.toml`: what each ISA can express as a translation target.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::Isa;

/// How a register names storage in an ISA (see [`crate::ir::RegFile`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterModel {
    /// `index` a variable, `sub` a byte offset into it (vISA).
    ByteVariables,
    /// `index` a 4-component register, `sub` the component (DX).
    Vec4,
    /// `index` a 32-bit register, `sub` always 0 (NVIDIA).
    Scalar,
}

/// How texel offsets are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetForm {
    /// Immediate fields of the instruction (DX `_aoffimmi`, vISA `Aoffimmi`).
    Immediate,
    /// Packed into a register (NVIDIA `.AOFFI`).
    PackedRegister,
}

/// What an array layer operand holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerForm {
    /// A float, rounded to the nearest layer by the sampler.
    Float,
    /// A 32-bit integer.
    Integer,
    /// An unsigned 16-bit integer (NVIDIA).
    U16,
}

/// One ISA's row of `mappings/targets.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetCaps {
    /// How registers are named and addressed.
    pub register_model: RegisterModel,
    /// ALU instructions other than a move take immediate sources.
    pub alu_immediates: bool,
    /// The first register (vISA: variable) a translation may name.
    pub first_register: u32,
    /// How many registers there are from 0.
    pub register_count: u32,
    /// Scheduling and divergence hints only this ISA has fields for (`ndv`, `nodep`, `cps`,
    /// `nonuniform_sampler`): other targets drop them.
    pub hints: Vec<String>,
    /// A sample-count query writes four channels the other ISAs do not have.
    pub sampleinfo_all_channels: bool,
    /// One index names texture and sampler (`(sampler << 8) | texture`), and buffers are
    /// fetched as 1D textures.
    pub combined_index: bool,
    /// Cube coordinates must come divided by their largest magnitude.
    pub normalized_cube_coords: bool,
    /// The LOD query returns fixed point.
    pub lod_query_fixed_point: bool,
    /// A gradient sample's array layer shares its register with the offsets.
    pub grad_layer_shares_offsets: bool,
    /// The minimum-LOD clamp is read packed with the layer, a fixed-point field of a
    /// register (NVIDIA `.LC`: u4.8 in bits 27:16 of Ra+0), not as a float.
    #[serde(default)]
    pub min_lod_packed: bool,
    /// The surface number of binding slot 0 (vISA T6).
    pub first_surface: u32,
    /// Whether texture instructions run over SIMD lanes (vISA).
    pub simd: bool,
    /// The first and last predicate register an instruction may be guarded by; empty when
    /// texture instructions take no predicate.
    pub predicates: Vec<u16>,
    /// The SIMD widths texture instructions take (vISA 8 and 16); empty elsewhere.
    pub simd_widths: Vec<u8>,
    /// How texel offsets are given.
    pub offsets: OffsetForm,
    /// Where a sample's array layer goes.
    pub sample_layer: LayerForm,
    /// Where a fetch's array layer goes.
    pub fetch_layer: LayerForm,
    /// A fetch reads its mip level as a component of the address (DX `ld`): the level-zero
    /// form still names a level.
    pub fetch_lod_in_address: bool,
    /// All parameters of one instruction share one element type (vISA).
    pub uniform_param_type: bool,
    /// Bytes in one register of a byte-addressed file (vISA GRF); 0 elsewhere.
    pub grf_bytes: u32,
    /// Coordinates are passed positionally, the layer among them (vISA).
    pub positional_coords: bool,
    /// A size query can return floats (DX `resinfo`), not only integers.
    pub size_query_float: bool,
    /// Layout of offsets packed in a register (`offsets = "packed_register"`).
    pub packed_offset: Option<PackedOffset>,
    /// The same for gathers.
    pub packed_offset_gather: Option<PackedOffset>,
    /// The same for gradient samples, where they differ (NVIDIA TXD: the fields above the
    /// layer, from bit 16); `packed_offset` otherwise.
    #[serde(default)]
    pub packed_offset_grad: Option<PackedOffset>,
}

/// Offsets packed into one register: component `i` (u, v, w) in `bits` bits at bit
/// `base + i * stride`, or with `u_high` at bit `base + (2 - i) * stride` (u in the highest
/// field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackedOffset {
    /// Bits per component.
    pub bits: u32,
    /// Bits between components.
    pub stride: u32,
    /// U in the highest of the three fields, W in the lowest (vISA's aoffimmi).
    #[serde(default)]
    pub u_high: bool,
    /// The instruction reads the fields only: the bits between and above them are ignored,
    /// so the component in the lowest field may be moved in whole, as ptxas packs TLD4's
    /// register offsets (`BFI` of v into u, research: `ptx-to-sass` of `tld4 ... {%r1, %r2}`).
    #[serde(default)]
    pub fields_only: bool,
    /// The lowest bit of the lowest field (NVIDIA TXD: 16, the layer below it).
    #[serde(default)]
    pub base: u32,
}

impl PackedOffset {
    /// Component `i`'s field: (lowest bit, width).
    pub fn field(self, i: u32) -> (u8, u8) {
        (self.shift(i) as u8, self.bits as u8)
    }

    /// The lowest bit of component `i`.
    fn shift(self, i: u32) -> u32 {
        self.base
            + if self.u_high {
                (2 - i) * self.stride
            } else {
                i * self.stride
            }
    }

    /// The register value holding `offsets` (each field two's complement, masked to `bits`).
    pub fn pack(self, offsets: [i8; 3]) -> u32 {
        let mask = (1u32 << self.bits) - 1;
        offsets.iter().enumerate().fold(0, |v, (i, &o)| {
            v | ((o as i32 as u32) & mask) << self.shift(i as u32)
        })
    }

    /// The offsets a register value holds (fields sign-extended).
    pub fn unpack(self, value: u32) -> [i8; 3] {
        let field = |i: u32| {
            let raw = (value >> self.shift(i)) & ((1 << self.bits) - 1);
            ((raw << (32 - self.bits)) as i32 >> (32 - self.bits)) as i8
        };
        [field(0), field(1), field(2)]
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    visa: TargetCaps,
    dxbc: TargetCaps,
    nvidia: TargetCaps,
}

fn file() -> &'static File {
    static FILE: OnceLock<File> = OnceLock::new();
    FILE.get_or_init(|| {
        super::parse_table("targets.toml", include_str!("../../mappings/targets.toml"))
    })
}

/// The capabilities of `isa` as a target.
pub fn caps(isa: Isa) -> &'static TargetCaps {
    let f = file();
    match isa {
        Isa::Visa => &f.visa,
        Isa::Dxbc => &f.dxbc,
        Isa::Nvidia => &f.nvidia,
    }
}
