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
    pub register_model: RegisterModel,
    pub simd: bool,
    pub simd_widths: Vec<u8>,
    pub offsets: OffsetForm,
    pub sample_layer: LayerForm,
    pub fetch_layer: LayerForm,
    pub uniform_param_type: bool,
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
