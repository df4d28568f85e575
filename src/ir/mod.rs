//! The shared texture-op IR.
//!
//! Every frontend lifts its instructions into [`TexInstr`]s; everything that is not a
//! texture instruction becomes an [`Opaque`] item that keeps its original text or bytes, so
//! a whole listing round-trips. The IR is ISA-neutral: what only one ISA has (vISA exec size,
//! NVIDIA phase, DX `_indexable` spelling, ...) lives in [`Origin`], which identity round
//! trips use and cross-ISA lowering ignores or maps.
//!
//! The fields follow `DESIGN.md` §3 and the union IR of `research/ir-and-passes.md` §1.3
//! (NIR `nir_tex_instr`, naga `SampleLevel`, NAK `TexLodMode`).

mod display;
pub mod layout;
mod parse;

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

pub use display::{display_declarations, display_program, display_program_full};
pub use parse::{parse_dimension, parse_item, parse_program};

/// An instruction set texlate reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isa {
    /// Intel vISA (IGC's virtual ISA).
    Visa,
    /// DirectX Shader Model 4/5 token stream (DXBC "TPF").
    Dxbc,
    /// NVIDIA Maxwell/Pascal SASS (SM50–SM62).
    Nvidia,
}

impl Isa {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Visa => "visa",
            Isa::Dxbc => "dxbc",
            Isa::Nvidia => "nvidia",
        }
    }
}

/// What a texture instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexOp {
    /// Filtered sample; how the LOD is chosen is [`TexInstr::lod`].
    Sample,
    /// Unfiltered texel fetch at integer coordinates (DX `ld`, vISA `load_*`, NV `TLD`).
    Fetch,
    /// Read of the multisample control surface (vISA `load_mcs`).
    FetchMcs,
    /// Four-texel gather of one channel (DX `gather4`, vISA `sample4`, NV `TLD4`).
    Gather {
        /// The channel gathered: 0 = R, 1 = G, 2 = B, 3 = A.
        component: u8,
    },
    /// LOD the sampler would use (DX `lod`, vISA `lod`, NV `TMML`). Canonical result:
    /// channel 0 = clamped LOD, channel 1 = unclamped LOD, as floats.
    QueryLod,
    /// Size and level count of a mip level (DX `resinfo`, vISA `resinfo`, NV `TXQ` dimension).
    QuerySize,
    /// Sample count of a multisample resource (DX `sampleinfo`, vISA `sampleinfo`).
    QuerySamples,
    /// Position of a sample inside the pixel (DX `samplepos`).
    SamplePos,
    /// Element count of a buffer (DX `bufinfo`).
    BufferInfo,
    /// Any other texture-header or sampler query (NV `TXQ` queries other than dimension).
    QueryOther {
        /// The ISA's query code.
        code: u8,
    },
    /// Typed surface (UAV) read (vISA `gather4_typed`, DX `ld_uav_typed`): a load, not a gather.
    LoadTyped,
    /// Raw buffer read of 32-bit words at a byte offset (DX `ld_raw`).
    LoadRaw,
    /// Structured buffer read (DX `ld_structured`).
    LoadStructured,
    /// Query of whether a residency status says all texels were mapped
    /// (DX `check_access_fully_mapped`).
    CheckAccessMapped,
}

/// The shape of the resource an instruction reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// One-dimensional.
    D1,
    /// Two-dimensional.
    D2,
    /// Three-dimensional (volume).
    D3,
    /// Cube map (six faces, a 3D direction as coordinate).
    Cube,
    /// A typed buffer (DX `buffer`, one coordinate, no mips).
    Buffer,
    /// DX raw byte-address buffer.
    RawBuffer,
    /// DX structured buffer.
    StructuredBuffer,
}

/// The dimension of a texture access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// Known from the instruction (NVIDIA) or from a declaration or binding (DX, vISA).
    Known {
        /// The shape.
        dim: Dim,
        /// Whether the resource is an array (the layer is [`TexInstr::array_index`]).
        arrayed: bool,
        /// Whether the resource is multisampled.
        multisampled: bool,
    },
    /// Not carried by the instruction and not yet known: vISA instructions without a
    /// bindings input. Never guessed: a pass that needs it asks for bindings.
    Deferred,
}

/// How the level of detail is chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Lod {
    /// From implicit derivatives.
    Implicit,
    /// Level 0.
    Zero,
    /// Implicit LOD plus a bias.
    Bias(Scalar),
    /// An explicit level.
    Level(Scalar),
    /// From explicit gradients, one entry per coordinate.
    Grad {
        /// d(coordinate)/dx, one per coordinate.
        dx: Vec<Scalar>,
        /// d(coordinate)/dy, one per coordinate.
        dy: Vec<Scalar>,
    },
}

/// A texel offset.
#[derive(Clone, Debug, PartialEq)]
pub enum Offset {
    /// No offset.
    None,
    /// Immediate offsets (u, v, w), each in [-8, 7] on every ISA.
    Imm([i8; 3]),
    /// Per-pixel offsets in registers, one scalar per coordinate (DX `gather4_po`,
    /// vISA `sample4_po`).
    Dynamic(Vec<Scalar>),
    /// Offsets packed into one register (NVIDIA `.AOFFI` register form; the packing is the
    /// instruction's: 4-bit fields, or 6-bit fields at an 8-bit stride for `TLD4`).
    Packed(Scalar),
    /// Four texel offsets of a gather (NVIDIA `TLD4.PTP`), packed in registers.
    PerTexel(Vec<Scalar>),
}

/// A register file, named for its role rather than for any ISA. What `index` and `sub`
/// count is the register model of the program's ISA ([`Program::isa`]): a DX register
/// component (`r1.y` = `Temp` 1, sub 1), an NVIDIA register (`R5` = `Temp` 5, sub 0), a vISA
/// variable and byte offset (`V57.64` = `Temp` 57, sub 64). Translation moves every
/// register into the target's model (the register map, `passes::map_regs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// General-purpose registers: vISA general variables (index = variable number, 0 =
    /// `%null`, 1..31 predefined), DX temporaries `r#`, NVIDIA `R#` (0..254).
    Temp,
    /// Shader inputs (DX `v#`).
    Input,
    /// Shader outputs (DX `o#`).
    Output,
    /// Indexable temporaries (DX `x#[i]`).
    IndexableTemp,
    /// Constant buffer elements (DX `cb#[i]`).
    ConstantBuffer,
    /// The immediate constant buffer (DX `icb[i]`).
    ImmConstantBuffer,
    /// Predicate registers (NVIDIA `P#`, the sparse-status destination of a texture op).
    Predicate,
    /// A temporary the translation passes created and the register allocator
    /// (`passes::assign_temps`) has not yet placed: `index` names a vector, `sub` its
    /// element. Backends never see one.
    Virtual,
    /// Any other operand type the ISA has; the value is the ISA's own type code, and the
    /// full operand is kept in the instruction's [`Origin`].
    Other(u8),
}

/// One register component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// The register file.
    pub file: RegFile,
    /// The register number in its file.
    pub index: u32,
    /// The component (DX, 0..3) or byte offset (vISA) within the register; 0 on NVIDIA.
    pub sub: u32,
}

/// An immediate value, kept as its bit pattern and the type it was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Imm {
    /// The bits, zero-extended to 64.
    pub bits: u64,
    /// The type the value was written with.
    pub ty: ScalarType,
}

/// One scalar operand: the unit every ISA's parameter lists are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// A register component.
    Reg(Reg),
    /// An immediate.
    Imm(Imm),
    /// A register that reads as zero and discards writes (`%null`, `RZ`, DX `null`).
    Zero,
}

/// Element types of coordinates and results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// 32-bit float.
    F32,
    /// 16-bit float.
    F16,
    /// 64-bit float.
    F64,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// 16-bit unsigned integer.
    U16,
    /// 16-bit signed integer.
    I16,
    /// 8-bit unsigned integer.
    U8,
    /// 8-bit signed integer.
    I8,
    /// 64-bit unsigned integer.
    U64,
    /// 64-bit signed integer.
    I64,
    /// DX `unorm`/`snorm`/`mixed` and other resource return types that have no plain
    /// scalar type; the name is the ISA's spelling.
    Other(TypeName),
}

/// The ISA's spelling of a [`ScalarType::Other`] type (`unorm`, vISA `uw`, ...), interned:
/// a 4-byte id, so a [`ScalarType`] is 8 bytes and an [`Imm`] 16 (a name held as a
/// `&'static str` made both three times larger, and every pass copies them). Each distinct
/// name is stored once for the life of the process; the DX return-type names have fixed ids.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeName(u32);

/// The names with fixed ids, in id order.
const PRESET_TYPE_NAMES: [&str; 5] = ["unorm", "snorm", "mixed", "other", "unknown"];

/// The names interned beyond the presets, in id order, and the id of each name.
#[derive(Default)]
struct TypeNames {
    names: Vec<&'static str>,
    ids: crate::hash::FastMap<&'static str, u32>,
}

static TYPE_NAMES: std::sync::Mutex<Option<TypeNames>> = std::sync::Mutex::new(None);

impl TypeName {
    /// DX `unorm`.
    pub const UNORM: TypeName = TypeName(0);
    /// DX `snorm`.
    pub const SNORM: TypeName = TypeName(1);
    /// DX `mixed`.
    pub const MIXED: TypeName = TypeName(2);
    /// A DX return type texlate has no name for.
    pub const OTHER: TypeName = TypeName(3);
    /// A DX return-type code the tables do not list.
    pub const UNKNOWN: TypeName = TypeName(4);

    /// The name spelled `name` (interned on first use).
    pub fn new(name: &str) -> TypeName {
        if let Some(k) = PRESET_TYPE_NAMES.iter().position(|k| *k == name) {
            return TypeName(k as u32);
        }
        let mut guard = TYPE_NAMES.lock().unwrap_or_else(|e| e.into_inner());
        let table = guard.get_or_insert_with(TypeNames::default);
        if let Some(&id) = table.ids.get(name) {
            return TypeName(id);
        }
        let id = (PRESET_TYPE_NAMES.len() + table.names.len()) as u32;
        let s: &'static str = Box::leak(name.to_string().into_boxed_str());
        table.names.push(s);
        table.ids.insert(s, id);
        TypeName(id)
    }

    /// The name as the ISA spells it.
    pub fn as_str(self) -> &'static str {
        let id = self.0 as usize;
        if let Some(k) = PRESET_TYPE_NAMES.get(id) {
            return k;
        }
        let guard = TYPE_NAMES.lock().unwrap_or_else(|e| e.into_inner());
        guard
            .as_ref()
            .and_then(|t| t.names.get(id - PRESET_TYPE_NAMES.len()).copied())
            .expect("a TypeName is only made by TypeName::new")
    }
}

impl fmt::Debug for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A texture or sampler reference.
#[derive(Clone, Debug, PartialEq)]
pub enum ResRef {
    /// A binding slot: DX `t#`/`s#`/`u#`, vISA surface/sampler variable index, NV texture id.
    Binding(u32),
    /// A binding range indexed at run time (SM5.1 `t0[r1.x + 2]`).
    Indexed {
        /// The number of slots in the range.
        range: u32,
        /// The first slot of the range.
        base: u32,
        /// The index added at run time, when not constant.
        dynamic: Option<Scalar>,
        /// Whether the index may differ per lane (`NonUniformResourceIndex`).
        nonuniform: bool,
    },
    /// A bindless handle in a register (NV `.B`).
    Handle(Scalar),
}

/// Predication of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pred {
    /// Predicate register number (vISA `P#`, NV `P#`; 7 = `PT` on NVIDIA).
    pub index: u16,
    /// Whether the instruction runs where the predicate is false.
    pub negate: bool,
}

/// Flags that change how a texture instruction behaves without changing its operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// Return residency information (vISA `.pixel_null_mask`; DX `*_s` status operand;
    /// NV sparse predicate).
    pub residency: bool,
    /// Coarse-pixel-shading LOD compensation (vISA `.cps`).
    pub cps: bool,
    /// The sampler may differ per lane (vISA non-uniform sampler bit).
    pub nonuniform_sampler: bool,
    /// Derivatives are not divergent-safe (NV `.NDV`).
    pub ndv: bool,
    /// No dependency on the result for scheduling (NV `.NODEP`).
    pub nodep: bool,
}

/// One texture instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct TexInstr {
    /// What the instruction asks the sampler.
    pub op: TexOp,
    /// The resource's dimension.
    pub dim: Dimension,
    /// How the level of detail is chosen.
    pub lod: Lod,
    /// Minimum-LOD clamp (DX `*_cl_s`, NV `.LC`).
    pub min_lod: Option<Scalar>,
    /// Spatial coordinates only (u, v, w); the array index is separate.
    pub coord: Vec<Scalar>,
    /// The array layer, for arrayed resources.
    pub array_index: Option<Scalar>,
    /// Depth-compare reference.
    pub depth_ref: Option<Scalar>,
    /// Texel offsets.
    pub offset: Offset,
    /// Sample index of a multisample fetch.
    pub sample_index: Option<Scalar>,
    /// Multisample control data (vISA `load_2dms_w`: two 32-bit or four 16-bit words).
    pub mcs: Vec<Scalar>,
    /// The texture read.
    pub texture: ResRef,
    /// The sampler used; `None` for fetches and queries that take none.
    pub sampler: Option<ResRef>,
    /// Result placement, one entry per RGBA channel; `None` = channel not written.
    pub dst: [Option<Scalar>; 4],
    /// Where the residency status goes, when [`Flags::residency`] is set and the ISA names it.
    pub status_dst: Option<Scalar>,
    /// The predicate the instruction runs under.
    pub pred: Option<Pred>,
    /// Modifiers that do not change the operands.
    pub flags: Flags,
    /// Element type of the coordinate parameters.
    pub coord_type: Option<ScalarType>,
    /// Element type of the result.
    pub result_type: Option<ScalarType>,
    /// SIMD lanes and mask, when the source ISA has them.
    pub exec: Option<Exec>,
    /// Where the instruction was read: line and column for text, byte offset for binaries.
    pub span: Span,
    /// Source-ISA spelling and extras needed for an exact round trip.
    pub origin: Origin,
}

/// The one walk over a [`TexInstr`]'s source operands, for [`TexInstr::for_each_source`]
/// (`iter`, shared references) and [`TexInstr::for_each_source_mut`] (`iter_mut`, `mut`), so
/// the reading and the rewriting visitors cannot drift apart.
macro_rules! visit_sources {
    ($t:ident, $f:ident, $iter:ident $(, $m:ident)?) => {{
        if let ResRef::Handle(h) = &$($m)? $t.texture {
            $f(h);
        }
        if let Some(ResRef::Handle(h)) = &$($m)? $t.sampler {
            $f(h);
        }
        $t.coord.$iter().for_each(&mut $f);
        if let Some(a) = &$($m)? $t.array_index {
            $f(a);
        }
        match &$($m)? $t.lod {
            Lod::Bias(s) | Lod::Level(s) => $f(s),
            Lod::Grad { dx, dy } => dx.$iter().chain(dy.$iter()).for_each(&mut $f),
            Lod::Implicit | Lod::Zero => {}
        }
        for s in [
            &$($m)? $t.min_lod,
            &$($m)? $t.depth_ref,
            &$($m)? $t.sample_index,
        ]
        .into_iter()
        .flatten()
        {
            $f(s);
        }
        match &$($m)? $t.offset {
            Offset::Packed(s) => $f(s),
            Offset::Dynamic(v) | Offset::PerTexel(v) => v.$iter().for_each(&mut $f),
            Offset::None | Offset::Imm(_) => {}
        }
        $t.mcs.$iter().for_each(&mut $f);
    }};
}

impl TexInstr {
    /// A new instruction with every optional part absent.
    pub fn new(op: TexOp, texture: ResRef, origin: Origin) -> Self {
        TexInstr {
            op,
            dim: Dimension::Deferred,
            lod: Lod::Implicit,
            min_lod: None,
            coord: Vec::new(),
            array_index: None,
            depth_ref: None,
            offset: Offset::None,
            sample_index: None,
            mcs: Vec::new(),
            texture,
            sampler: None,
            dst: [None; 4],
            status_dst: None,
            pred: None,
            flags: Flags::default(),
            coord_type: None,
            result_type: None,
            exec: None,
            span: Span::default(),
            origin,
        }
    }

    /// Calls `f` on every scalar the instruction reads, in a fixed order: handle, coordinates,
    /// layer, LOD/bias/gradients, min-LOD, reference, offsets, sample index, MCS.
    pub fn for_each_source_mut(&mut self, mut f: impl FnMut(&mut Scalar)) {
        visit_sources!(self, f, iter_mut, mut);
    }

    /// [`TexInstr::for_each_source_mut`] without the write access (and without a copy of
    /// the instruction: readers run on every instruction of every pass).
    pub fn for_each_source(&self, mut f: impl FnMut(&Scalar)) {
        visit_sources!(self, f, iter);
    }

    /// Calls `f` on every scalar the instruction writes: result channels, then the status.
    pub fn for_each_dst_mut(&mut self, mut f: impl FnMut(&mut Scalar)) {
        self.dst.iter_mut().flatten().for_each(&mut f);
        if let Some(s) = &mut self.status_dst {
            f(s);
        }
    }

    /// Every scalar the instruction reads (see [`TexInstr::for_each_source_mut`]).
    pub fn sources(&self) -> Vec<Scalar> {
        let mut out = Vec::with_capacity(8);
        self.for_each_source(|s| out.push(*s));
        out
    }

    /// Every scalar the instruction writes.
    pub fn dsts(&self) -> Vec<Scalar> {
        self.dst
            .iter()
            .flatten()
            .chain(&self.status_dst)
            .copied()
            .collect()
    }

    /// The RGBA write mask: bit `c` set when channel `c` is written.
    pub fn write_mask(&self) -> u8 {
        self.dst
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_some())
            .fold(0, |m, (c, _)| m | (1 << c))
    }
}

/// What only one ISA carries about an instruction or a program, kept for exact identity
/// round trips and provenance. The IR never looks inside: the codec that made it downcasts
/// it ([`Origin::get`]); every other codec and every pass ignores it, as naga keeps backend
/// knowledge out of its IR. `Origin::default()` is "built by a pass or by library code".
/// The data is shared between clones (cloning a program or an instruction copies no codec
/// data) and copied on the first write through [`Origin::get_mut`].
#[derive(Default)]
pub struct Origin(Option<Arc<dyn CodecData>>);

/// Data a codec attaches to an [`Origin`]: any `Clone + PartialEq + Debug` type of its own.
pub trait CodecData: std::any::Any + fmt::Debug + Send + Sync {
    #[doc(hidden)]
    fn clone_box(&self) -> Box<dyn CodecData>;
    #[doc(hidden)]
    fn eq_dyn(&self, other: &dyn CodecData) -> bool;
    #[doc(hidden)]
    fn as_any(&self) -> &dyn std::any::Any;
    #[doc(hidden)]
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl<T: std::any::Any + Clone + PartialEq + fmt::Debug + Send + Sync> CodecData for T {
    fn clone_box(&self) -> Box<dyn CodecData> {
        Box::new(self.clone())
    }
    fn eq_dyn(&self, other: &dyn CodecData) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

impl Origin {
    /// Nothing ISA-specific: built by a pass or by library code, not decoded.
    pub const SYNTHETIC: Origin = Origin(None);

    /// An origin holding a codec's own data.
    pub fn new<T: CodecData>(data: T) -> Self {
        Origin(Some(Arc::new(data)))
    }

    /// The codec data, if it is a `T`.
    pub fn get<T: CodecData>(&self) -> Option<&T> {
        self.0.as_deref()?.as_any().downcast_ref()
    }

    /// The codec data, mutably, if it is a `T` (copied first when a clone shares it).
    pub fn get_mut<T: CodecData>(&mut self) -> Option<&mut T> {
        let data = self.0.as_mut()?;
        if !data.as_any().is::<T>() {
            return None;
        }
        if Arc::get_mut(data).is_none() {
            *data = Arc::from(data.clone_box());
        }
        Arc::get_mut(data)?.as_any_mut().downcast_mut()
    }

    /// Whether nothing ISA-specific is attached.
    pub fn is_synthetic(&self) -> bool {
        self.0.is_none()
    }
}

impl Clone for Origin {
    fn clone(&self) -> Self {
        Origin(self.0.clone())
    }
}

impl PartialEq for Origin {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a.eq_dyn(&**b),
            _ => false,
        }
    }
}

impl fmt::Debug for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("Synthetic"),
            Some(d) => d.fmt(f),
        }
    }
}

/// SIMD execution of an instruction on a SIMD ISA (vISA): how many lanes, and which.
/// Per-lane ISAs (DX, NVIDIA) have none; translating to them drops it with a note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Exec {
    /// Lanes: 8 or 16 (vISA `Exec_size`).
    pub size: u8,
    /// Execution mask: which group of lanes (`M1` = 0 .. `M8` = 7) and, bit 3, `_NM`
    /// (no mask: every lane runs whatever the dispatch mask).
    pub mask: u8,
}

/// A location in the input: byte offset for binaries, line and column for text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset from the start of the input (binaries).
    pub offset: usize,
    /// Line, from 1 (text); 0 for a binary.
    pub line: u32,
    /// Column, from 1 (text); 0 for a binary.
    pub column: u32,
}

/// An item of a program that is not a texture instruction, kept exactly as it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opaque {
    /// The original text (a whole line, without its line terminator) when read from text.
    pub text: Option<String>,
    /// The original bytes when read from a binary.
    pub bytes: Vec<u8>,
    /// Where the item was read.
    pub span: Span,
}

/// One item of a program, in input order.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A texture instruction.
    Tex(Box<TexInstr>),
    /// An ALU instruction a translation emits around a texture instruction (moves,
    /// conversions): built by the passes, encoded by every backend.
    Alu(Box<AluInstr>),
    /// A line of commentary: a translated program keeps its source's non-texture items this
    /// way, in the target's comment syntax (`// ...`); binary output leaves it out.
    Comment(Comment),
    /// Anything else of the input, kept as it was read (text or bytes).
    Opaque(Opaque),
}

/// A comment line of a translated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The comment's text, without the comment marker.
    pub text: String,
    /// Where the item it stands for was read.
    pub span: Span,
}

/// The ALU operations translation emits around texture instructions: the fewest that the
/// passes need, each with one meaning on every ISA (the backends choose the encoding; the
/// semantic check evaluates it). Operands are 32-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    /// `dst = src0`, bit for bit (a register or an immediate).
    Mov,
    /// `dst = f32(src0)`, `src0` an unsigned 32-bit integer.
    U32ToF32,
    /// `dst = f32(src0)`, `src0` a signed 32-bit integer.
    I32ToF32,
    /// `dst = min(u32(round_to_nearest_even(max(src0, 0))), 0xffff)`: a float array layer
    /// to the u16 layer NVIDIA reads (DX sample: "round-to-nearest even ... clamp"; ptxas
    /// saturates the layer to 16 bits, research/nvidia.md §5.3).
    F32ToLayer,
    /// `dst = min(src0, 0xffff)` unsigned: an integer layer saturated to 16 bits (Mesa
    /// `handleTEX`, TXF).
    U32ToLayer,
    /// `dst = i32(trunc(src0))`, `src0` f32.
    F32ToI32,
    /// `dst = src0 * src1`, f32.
    FMul,
    /// `dst = max(|src0|, |src1|)`, f32.
    FMaxAbs,
    /// `dst = 1 / src0`, f32.
    FRcp,
    // LOD-query fixed point (lower_queries: NVIDIA TMML's 8.8 results, docs/nvidia.md).
    /// `dst = f32(sign_extend(src0[15:0]))`: the signed 16-bit integer in the low half of
    /// `src0` (the upper half ignored).
    I16ToF32,
    /// `dst = f32(src0[15:0])`: the unsigned 16-bit integer in the low half of `src0` (the
    /// upper half ignored).
    U16ToF32,
    /// `dst = max(src0, |src1|)`, f32: the second step of ptxas's cube normalisation
    /// (`FMNMX R, R, |R|, !PT`, research/nvidia.md §3 "cube-norm").
    FMaxRightAbs,
    // --- Quad operations (NVIDIA only; the gradient emulation `emulate_grad_quad`). Lane
    // `i` of a quad is `laneid & 3`: 0 top left, 1 top right, 2 bottom left, 3 bottom right.
    /// Every lane of the quad active, helpers included, until [`AluOp::RestoreActiveMask`]
    /// (SM50 `SAM`); no operands, `dst` is `Scalar::Zero`.
    SetActiveMask,
    /// The active mask from before [`AluOp::SetActiveMask`] (SM50 `RAM`); no operands.
    RestoreActiveMask,
    /// `dst = src0` as quad lane `src1` holds it, in every lane of the quad (SM50
    /// `SHFL.IDX PT, d, a, lane, 0x1c03`); `src1` is `Scalar::Zero` for lane 0 or an
    /// immediate lane 1..3.
    QuadBroadcast,
    /// `dst = src1 + src0` in quad lanes 1 and 3, `dst = src1` in lanes 0 and 2 (SM50
    /// `FSWZADD.NDV d, a, b, ZPPPZPPP`): a coordinate moved by its x derivative where the
    /// quad steps in x.
    QuadAddX,
    /// `dst = src1 + src0` in quad lanes 2 and 3, `dst = src1` in lanes 0 and 1 (SM50
    /// `FSWZADD.NDV d, a, b, ZPZPPPPP`): the same along y.
    QuadAddY,
    /// `dst = src0` in the quad lanes whose bit is set in the immediate `src1` (1..=0xe),
    /// unchanged elsewhere (SM50 `MOV d, b, mask`).
    MovLanes,
    // --- Programmable offsets (dyn-offsets: the register-offset emulations of
    // `passes::offsets_to_register`, `offsets_from_register`, `repack_offsets`).
    /// `dst = src1` with bits `[lo, lo + width)` replaced by the low `width` bits of `src0`;
    /// `src2` is the immediate `lo | width << 8` (NVIDIA `BFI`'s control word, ptxas's
    /// `MOV32I R3, 0x608` for a TLD4 offset v at bit 8; DX/vISA `bfi width, lo, src0, src1`).
    InsertField,
    /// `dst = sign_extend(src0[lo, lo + width))`; `src1` is the immediate `lo | width << 8`
    /// (NVIDIA `BFE`, DX `ibfe width, lo, src0`, vISA `bfe` on `d`).
    ExtractFieldSigned,
    // --- Gradient approximation (`approx_grad_lod`, `--grad approx`): the isotropic LOD
    // computed from gradients and the texture size (NVIDIA emits it; DX and vISA read it on).
    /// `dst = src0 * src1 + src2`, f32, fused (one rounding; SM50 `FFMA`).
    FFma,
    /// `dst = log2(src0)`, f32, approximate, a subnormal source read as 0 (SM50 `MUFU.LG2`,
    /// PTX `lg2.approx.ftz.f32`).
    FLog2,
    /// `dst = |src0| >= src1 ? 1.0 : 0.0`, f32 (SM50 `FSET.BF.GE.AND d, |a|, b, PT`; NaN
    /// compares false).
    FSetGeAbs,
}

impl AluOp {
    /// Whether the op exists only on NVIDIA (the quad operations of the gradient emulation):
    /// the DX and vISA backends refuse it.
    pub fn nvidia_only(self) -> bool {
        matches!(
            self,
            AluOp::SetActiveMask
                | AluOp::RestoreActiveMask
                | AluOp::QuadBroadcast
                | AluOp::QuadAddX
                | AluOp::QuadAddY
                | AluOp::MovLanes
        )
    }
}

impl AluOp {
    /// The source that selects quad lanes rather than holding a value (`QuadBroadcast`'s
    /// lane, `MovLanes`' mask): an immediate the instruction encodes, never moved into a
    /// register. (A bit-field control, [`AluOp::field_operand`], is a value: NVIDIA reads it
    /// from a register, as ptxas writes it.)
    pub fn lane_operand(self) -> Option<usize> {
        matches!(self, AluOp::QuadBroadcast | AluOp::MovLanes).then_some(1)
    }
}

impl AluOp {
    /// The source of a bit-field op that holds its control word `lo | width << 8`
    /// ([`AluOp::InsertField`], [`AluOp::ExtractFieldSigned`]).
    pub fn field_operand(self) -> Option<usize> {
        match self {
            AluOp::InsertField => Some(2),
            AluOp::ExtractFieldSigned => Some(1),
            _ => None,
        }
    }
}

/// A bit field's control word, `lo | width << 8` ([`AluOp::field_operand`]): (lo, width),
/// when it is an immediate naming a field inside 32 bits.
pub fn field_control(s: &Scalar) -> Option<(u8, u8)> {
    let Scalar::Imm(i) = s else { return None };
    let (lo, width) = ((i.bits & 0xff) as u8, ((i.bits >> 8) & 0xff) as u8);
    (i.bits >> 16 == 0 && width >= 1 && u32::from(lo) + u32::from(width) <= 32)
        .then_some((lo, width))
}

/// The control word of the field `[lo, lo + width)`, as an immediate.
pub fn field_imm(lo: u8, width: u8) -> Scalar {
    Scalar::Imm(Imm {
        bits: u64::from(lo) | u64::from(width) << 8,
        ty: ScalarType::U32,
    })
}

/// One ALU instruction: `dst = op(srcs)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AluInstr {
    /// The operation.
    pub op: AluOp,
    /// The destination.
    pub dst: Scalar,
    /// The sources, as many as the operation takes.
    pub srcs: Vec<Scalar>,
    /// The predicate the instruction runs under.
    pub pred: Option<Pred>,
    /// SIMD lanes and mask on SIMD targets (vISA).
    pub exec: Option<Exec>,
    /// The source instruction it was emitted for, or where it was read.
    pub span: Span,
    /// What the codec that read it keeps ([`AluSource`]: the instructions it was read from);
    /// `Origin::SYNTHETIC` when a pass built it.
    pub origin: Origin,
}

/// The instructions of its own ISA an `Item::Alu` was read from (a codec's decoder lifts the
/// ALU instructions texlate's backends emit): printing or encoding the program in the same
/// ISA writes these back unchanged, for exact identity round trips.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AluSource {
    /// The ISA the instructions are in.
    pub isa: Isa,
    /// The original items, in order (one per instruction of the sequence).
    pub items: Vec<Opaque>,
}

impl AluInstr {
    /// The instructions of `isa` this item was read from, if it was read from `isa`.
    pub fn source(&self, isa: Isa) -> Option<&[Opaque]> {
        self.origin
            .get::<AluSource>()
            .filter(|s| s.isa == isa)
            .map(|s| s.items.as_slice())
    }
}

/// Lifts runs of consecutive opaque items to `Item::Alu`: `lift` sees the opaque items from
/// one position on and answers the ALU instruction the first `n` of them are, or `None`.
/// The lifted item keeps those items ([`AluSource`]) and the first one's span.
///
/// Linear in the program: each run of opaque items is gathered once, the lifts are decided
/// on borrowed items, and then every item is moved (not copied) into place.
pub fn lift_alu(
    isa: Isa,
    items: &mut Vec<Item>,
    mut lift: impl FnMut(&[&Opaque]) -> Option<(AluInstr, usize)>,
) {
    let old = std::mem::take(items);
    // The lifts, in order: (index of the first item, instruction, item count).
    let mut lifts: Vec<(usize, AluInstr, usize)> = Vec::new();
    let mut i = 0;
    while i < old.len() {
        let run: Vec<&Opaque> = old[i..]
            .iter()
            .map_while(|it| match it {
                Item::Opaque(o) => Some(o),
                _ => None,
            })
            .collect();
        let mut j = 0;
        while j < run.len() {
            match lift(&run[j..]) {
                Some((a, n)) if n > 0 && n <= run.len() - j => {
                    lifts.push((i + j, a, n));
                    j += n;
                }
                _ => j += 1,
            }
        }
        i += run.len().max(1);
    }
    items.reserve(old.len());
    let mut lifts = lifts.into_iter().peekable();
    let mut old = old.into_iter().enumerate();
    while let Some((k, item)) = old.next() {
        let Some((_, mut a, n)) = lifts.next_if(|(first, _, _)| *first == k) else {
            items.push(item);
            continue;
        };
        let sources: Vec<Opaque> = std::iter::once(item)
            .chain(old.by_ref().take(n - 1).map(|(_, item)| item))
            .filter_map(|item| match item {
                Item::Opaque(o) => Some(o),
                _ => None,
            })
            .collect();
        if let Some(first) = sources.first() {
            a.span = first.span;
        }
        a.origin = Origin::new(AluSource {
            isa,
            items: sources,
        });
        items.push(Item::Alu(Box::new(a)));
    }
}

/// A declared resource (texture, buffer or UAV) a program reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// The name as declared (`t0`, `T6`, ...).
    pub name: String,
    /// The resource's dimension.
    pub dim: Dimension,
    /// Per-component return type, when declared.
    pub return_type: Option<[ScalarType; 4]>,
    /// Sample count of a multisampled resource, when declared.
    pub sample_count: Option<u32>,
}

/// A declared sampler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerDecl {
    /// The name as declared (`s0`, `S0`, ...).
    pub name: String,
    /// DX `mode_comparison`.
    pub comparison: bool,
}

/// A declared variable or register range (vISA `.decl`, DX `dcl_temps` ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The name as declared (`V0057`, `r`).
    pub name: String,
    /// The element type as the ISA spells it (`f`, `ud`, ...).
    pub ty: String,
    /// Number of elements.
    pub num_elts: u32,
}

/// A whole decoded input: texture instructions, opaque items and the tables they refer to.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The ISA the program is in.
    pub isa: Isa,
    /// The items, in input order.
    pub items: Vec<Item>,
    /// Resources by binding index, in declaration order.
    pub resources: IndexMap<u32, Resource>,
    /// Samplers by binding index, in declaration order.
    pub samplers: IndexMap<u32, SamplerDecl>,
    /// Variables by name, in declaration order.
    pub variables: IndexMap<String, Variable>,
    /// What the source ISA keeps about the whole program (line endings, container, version
    /// token ...): opaque to the IR, read back by the codec that made it.
    pub state: Origin,
}

impl Program {
    /// An empty program of `isa`.
    pub fn new(isa: Isa) -> Self {
        Program {
            isa,
            items: Vec::new(),
            resources: IndexMap::new(),
            samplers: IndexMap::new(),
            variables: IndexMap::new(),
            state: Origin::SYNTHETIC,
        }
    }

    /// The program with every `Item::Alu` read from its own ISA back as the opaque items it
    /// was read from (what the codecs print, encode and analyse).
    pub fn alu_as_read(&self) -> std::borrow::Cow<'_, Program> {
        let read = |i: &Item| matches!(i, Item::Alu(a) if a.source(self.isa).is_some());
        if !self.items.iter().any(read) {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut p = Program {
            isa: self.isa,
            items: Vec::with_capacity(self.items.len()),
            resources: self.resources.clone(),
            samplers: self.samplers.clone(),
            variables: self.variables.clone(),
            state: self.state.clone(),
        };
        for item in &self.items {
            match item {
                Item::Alu(a) if a.source(self.isa).is_some() => p.items.extend(
                    a.source(self.isa)
                        .unwrap()
                        .iter()
                        .cloned()
                        .map(Item::Opaque),
                ),
                other => p.items.push(other.clone()),
            }
        }
        std::borrow::Cow::Owned(p)
    }

    /// The items of `program` in order: borrowed from a borrowed program, moved out of an
    /// owned one, so a backend that consumes them frees each as it goes (peak memory: the
    /// IR and the program built from it are not both held whole).
    pub fn items_of<'a>(
        program: std::borrow::Cow<'a, Program>,
    ) -> Box<dyn Iterator<Item = std::borrow::Cow<'a, Item>> + 'a> {
        use std::borrow::Cow;
        match program {
            Cow::Borrowed(p) => Box::new(p.items.iter().map(Cow::Borrowed)),
            Cow::Owned(p) => Box::new(p.items.into_iter().map(Cow::Owned)),
        }
    }

    /// The texture instructions, in order.
    pub fn tex_instrs(&self) -> impl Iterator<Item = &TexInstr> {
        self.items.iter().filter_map(|i| match i {
            Item::Tex(t) => Some(&**t),
            _ => None,
        })
    }
}
