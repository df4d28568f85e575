//! Bindings: which texture (and sampler) each ISA calls one resource, with its dimension and
//! return type (`--bindings FILE`, DESIGN.md §4). One file serves every direction.
//!
//! ```toml
//! [[binding]]
//! dim = "2d"         # 1d 2d 3d cube 1d_array 2d_array cube_array 2d_ms 2d_ms_array buffer
//! return = "float"   # optional (default float): float unorm snorm sint uint
//! dxbc = { texture = "t0", sampler = "s0" }
//! visa = { texture = "T6", sampler = "S0" }
//! nvidia = { texture = "0x6e" }
//! ```

use crate::ir::{Dim, Dimension, Isa};

/// The return type of a resource (what DX declares; what a sample converts to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnType {
    Float,
    Unorm,
    Snorm,
    Sint,
    Uint,
}

impl ReturnType {
    /// The spelling in a bindings file.
    pub fn name(self) -> &'static str {
        match self {
            ReturnType::Float => "float",
            ReturnType::Unorm => "unorm",
            ReturnType::Snorm => "snorm",
            ReturnType::Sint => "sint",
            ReturnType::Uint => "uint",
        }
    }
}

/// What one ISA calls a resource: its texture slot and, where it has one, its sampler.
/// NVIDIA names both in one index (`(sampler << 8) | texture`, seeds/nvidia-TEX.txt
/// `#tsPtrIdxU13 = {#smpU05, #tidU08}`), so its `sampler` is always `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    pub texture: u32,
    pub sampler: Option<u32>,
}

/// One `[[binding]]` row: a texture (+ sampler) combination as every ISA names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub dim: Dimension,
    pub return_type: ReturnType,
    pub visa: Option<Slot>,
    pub dxbc: Option<Slot>,
    pub nvidia: Option<Slot>,
    /// Where the row starts in the bindings file (1-based line), 0 for a default row.
    pub line: u32,
}

impl Binding {
    /// The slot `isa` gives this row.
    pub fn slot(&self, isa: Isa) -> Option<Slot> {
        match isa {
            Isa::Visa => self.visa,
            Isa::Dxbc => self.dxbc,
            Isa::Nvidia => self.nvidia,
        }
    }
}

/// Every binding a translation uses, in order: rows of the bindings file, then default rows
/// texlate added for resources the file does not name. The Report prints it; the semantic
/// check names resources by row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    pub rows: Vec<Binding>,
}

/// The spelling of a dimension in a bindings file.
pub fn dim_name(dim: Dimension) -> &'static str {
    match dim {
        Dimension::Known {
            dim,
            arrayed,
            multisampled,
        } => match (dim, arrayed, multisampled) {
            (Dim::D1, false, _) => "1d",
            (Dim::D1, true, _) => "1d_array",
            (Dim::D2, false, false) => "2d",
            (Dim::D2, true, false) => "2d_array",
            (Dim::D2, false, true) => "2d_ms",
            (Dim::D2, true, true) => "2d_ms_array",
            (Dim::D3, ..) => "3d",
            (Dim::Cube, false, _) => "cube",
            (Dim::Cube, true, _) => "cube_array",
            (Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer, ..) => "buffer",
        },
        Dimension::Deferred => "deferred",
    }
}
