//! The tables of `mappings/nvidia.toml`, parsed once. Every opcode, bit range, value
//! spelling, short-form target and Ra/Rb slot order the NVIDIA module uses comes from here.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// An instruction class: one mnemonic, with its bound and bindless encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
pub enum OpClass {
    /// Sample (long form).
    TEX,
    /// Sample (short form, two destination registers).
    TEXS,
    /// Texel fetch (long form).
    TLD,
    /// Texel fetch (short form).
    TLDS,
    /// Gather (long form).
    TLD4,
    /// Gather (short form).
    TLD4S,
    /// Sample with explicit gradients.
    TXD,
    /// LOD query.
    TMML,
    /// Header / sampler query.
    TXQ,
}

impl OpClass {
    /// Every class, in table order.
    pub const ALL: [OpClass; 9] = [
        OpClass::TEX,
        OpClass::TEXS,
        OpClass::TLD,
        OpClass::TLDS,
        OpClass::TLD4,
        OpClass::TLD4S,
        OpClass::TXD,
        OpClass::TMML,
        OpClass::TXQ,
    ];

    /// The mnemonic as nvdisasm prints it.
    pub fn mnemonic(self) -> &'static str {
        match self {
            OpClass::TEX => "TEX",
            OpClass::TEXS => "TEXS",
            OpClass::TLD => "TLD",
            OpClass::TLDS => "TLDS",
            OpClass::TLD4 => "TLD4",
            OpClass::TLD4S => "TLD4S",
            OpClass::TXD => "TXD",
            OpClass::TMML => "TMML",
            OpClass::TXQ => "TXQ",
        }
    }

    /// Looks a mnemonic up.
    pub fn from_mnemonic(s: &str) -> Option<OpClass> {
        OpClass::ALL.into_iter().find(|o| o.mnemonic() == s)
    }

    /// TEXS, TLDS and TLD4S: two destination registers, a 4-bit target instead of a dimension.
    pub fn is_short(self) -> bool {
        matches!(self, OpClass::TEXS | OpClass::TLDS | OpClass::TLD4S)
    }
}

/// The fields the decoder knows. Their bit ranges live in the TOML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldName {
    /// Destination register.
    Rd,
    /// First source register vector.
    Ra,
    /// Second source register vector.
    Rb,
    /// Second destination register (short forms).
    Rd1,
    /// Guard predicate.
    Guard,
    /// Dimension code.
    Dim,
    /// Write mask.
    Wmask,
    /// `.NDV` (no derivatives across divergent lanes).
    Ndv,
    /// Texture index (or sampler and texture).
    Tid,
    /// `.NODEP`.
    Nodep,
    /// `.DC` (depth compare).
    Dc,
    /// Sparse (residency) predicate destination.
    Sparse,
    /// `.AOFFI` (immediate offsets in a register).
    Aoffi,
    /// LOD mode of TEX, TLD4, TMML.
    Lod,
    /// LOD mode of TLD.
    TldLod,
    /// `.LC` (LOD clamp).
    Lc,
    /// `.MS` (multisample fetch).
    Ms,
    /// `.CL` (LOD clamp of TXD).
    Cl,
    /// Offset mode of TLD4 (`.AOFFI`, `.PTP`).
    OffsetMode,
    /// Gather channel.
    Comp,
    /// Short forms' channel selection.
    Comps,
    /// Short forms' target code (dimension, LOD, DC, offsets).
    Target,
    /// TXQ's query.
    Query,
}

/// One bit field of a form.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Field {
    /// Which field.
    pub name: FieldName,
    /// The lowest bit.
    pub lo: u32,
    /// The width in bits.
    pub width: u32,
}

impl Field {
    /// The field's bits in place.
    pub fn mask(&self) -> u64 {
        (u64::MAX >> (64 - self.width)) << self.lo
    }

    /// The field's value in `word`.
    pub fn get(&self, word: u64) -> u64 {
        (word & self.mask()) >> self.lo
    }

    /// Inserts `value` (already checked to fit).
    pub fn put(&self, word: &mut u64, value: u64) {
        *word = (*word & !self.mask()) | ((value << self.lo) & self.mask());
    }

    /// Whether `value` fits the field.
    pub fn fits(&self, value: u64) -> bool {
        value <= u64::MAX >> (64 - self.width)
    }
}

#[derive(Debug, Deserialize)]
struct RawForm {
    op: OpClass,
    bindless: bool,
    mask: String,
    value: String,
    reserved: Vec<u32>,
    fields: Vec<Field>,
}

/// One encoding: a word is this form when `word & mask == value`.
#[derive(Clone, Debug)]
pub struct Form {
    /// The instruction class.
    pub op: OpClass,
    /// Whether the texture comes from a register (`.B`).
    pub bindless: bool,
    /// The opcode bits.
    pub mask: u64,
    /// Their value in this form.
    pub value: u64,
    /// Bits that must be zero.
    pub reserved: u64,
    /// The form's fields.
    pub fields: Vec<Field>,
}

impl Form {
    /// The field `name`, when the form has it.
    pub fn field(&self, name: FieldName) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Bits in no field, not in the opcode and not reserved: carried raw.
    pub fn free_bits(&self) -> u64 {
        let used = self
            .fields
            .iter()
            .fold(self.mask | self.reserved, |m, f| m | f.mask());
        !used
    }
}

/// A short-form target code (bits 53..56 of TEXS/TLDS).
#[derive(Clone, Debug, Deserialize)]
pub struct ShortTarget {
    /// The target code.
    pub code: u8,
    /// Its LOD mode (`LZ`, `LL`, or empty).
    pub lod: String,
    /// Its dimension (`1D`, `2D`, ...).
    pub dim: String,
    /// Whether it compares depth.
    #[serde(default)]
    pub dc: bool,
    /// Whether it takes offsets.
    #[serde(default)]
    pub aoffi: bool,
    /// Whether it fetches from a multisampled texture.
    #[serde(default)]
    pub ms: bool,
    /// Ra's slots.
    pub ra: Vec<Slot>,
    /// Rb's slots.
    pub rb: Vec<Slot>,
}

/// A parameter slot of an Ra/Rb vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    /// The array layer.
    Array,
    /// All coordinates.
    Coords,
    /// Coordinate x.
    X,
    /// Coordinate y.
    Y,
    /// Coordinate z.
    Z,
    /// A bindless texture handle.
    Handle,
    /// The LOD (bias or level).
    Lod,
    /// Packed offsets.
    Offset,
    /// The depth-compare reference.
    DepthRef,
    /// The sample index.
    Sample,
    /// The TXD word `(offsets << 16) | layer`.
    ArrayOffset,
    /// The gradients.
    Grads,
}

/// The Ra and Rb slot orders of one instruction class.
#[derive(Clone, Debug, Deserialize)]
pub struct Packing {
    /// Ra's slots.
    pub ra: Vec<Slot>,
    /// Rb's slots.
    pub rb: Vec<Slot>,
    /// The slot orders when the instruction has neither `.AOFFI`/`.PTP` nor `.DC`, when they
    /// differ (TLD4S: x in Ra, y in Rb; research §11).
    #[serde(default)]
    pub plain: Option<PackingSlots>,
}

/// Ra and Rb slot orders.
#[derive(Clone, Debug, Deserialize)]
pub struct PackingSlots {
    /// Ra's slots.
    pub ra: Vec<Slot>,
    /// Rb's slots.
    pub rb: Vec<Slot>,
}

#[derive(Debug, Deserialize)]
struct RawValues {
    dim: Vec<String>,
    lod: BTreeMap<String, String>,
    tld_lod: BTreeMap<String, String>,
    offset_mode: BTreeMap<String, String>,
    comp: BTreeMap<String, String>,
    query: BTreeMap<String, String>,
    query_numeric: [u8; 2],
    comps_pair: BTreeMap<String, String>,
    comps_quad: BTreeMap<String, String>,
    sparse_none: u8,
    guard_true: u8,
    rb_rz_printed: Vec<OpClass>,
    modifier_order: Vec<String>,
    fixed: BTreeMap<OpClass, String>,
    vector_align: Vec<u32>,
}

#[derive(Debug, Deserialize)]
struct RawControl {
    slot_width: u32,
    phase: [u32; 2],
    phase_names: BTreeMap<String, String>,
    default_field: String,
    nop: String,
    stall: [u32; 2],
    #[serde(rename = "yield")]
    yield_: [u32; 2],
    write_barrier: [u32; 2],
    read_barrier: [u32; 2],
    wait: [u32; 2],
    no_barrier: u8,
}

/// A row of the README table.
#[derive(Clone, Debug, Deserialize)]
pub struct OpRow {
    /// The SASS mnemonic.
    pub mnemonic: String,
    /// The IR op it reads as.
    pub ir_op: String,
    /// Its operands as nvdisasm prints them.
    pub operands: String,
}

#[derive(Debug, Deserialize)]
struct RawTable {
    op: Vec<OpRow>,
    form: Vec<RawForm>,
    values: RawValues,
    texs_target: Vec<ShortTarget>,
    tlds_target: Vec<ShortTarget>,
    packing: BTreeMap<OpClass, Packing>,
    control: RawControl,
}

/// A code → spelling table; codes missing from it are reserved.
pub type ValueTable = BTreeMap<u8, String>;

/// The scheduling control word layout.
#[derive(Clone, Debug)]
pub struct Control {
    /// Bits per instruction slot.
    pub slot_width: u32,
    /// The phase field.
    pub phase: Field,
    /// The phase's names.
    pub phase_names: ValueTable,
    /// A slot's default control bits.
    pub default_field: u64,
    /// The NOP word that pads a bundle.
    pub nop: u64,
    /// Stall cycles.
    pub stall: Field,
    /// Yield hint.
    pub yield_: Field,
    /// Write-barrier number.
    pub write_barrier: Field,
    /// Read-barrier number.
    pub read_barrier: Field,
    /// The barriers waited on (mask).
    pub wait: Field,
    /// The barrier number that means "none".
    pub no_barrier: u8,
}

/// All of `mappings/nvidia.toml`, checked and indexed.
#[derive(Debug)]
pub struct Table {
    /// The README table's rows.
    pub ops: Vec<OpRow>,
    /// Every encoding.
    pub forms: Vec<Form>,
    /// Dimension spellings by code.
    pub dims: Vec<String>,
    /// LOD spellings by code (TEX, TLD4, TMML).
    pub lod: ValueTable,
    /// LOD spellings by code (TLD).
    pub tld_lod: ValueTable,
    /// Offset-mode spellings by code.
    pub offset_mode: ValueTable,
    /// Gather channel spellings by code.
    pub comp: ValueTable,
    /// TXQ query spellings by code.
    pub query: ValueTable,
    /// The query codes printed as numbers.
    pub query_numeric: [u8; 2],
    /// Short-form channel selections with two channels.
    pub comps_pair: ValueTable,
    /// Short-form channel selections with more.
    pub comps_quad: ValueTable,
    /// The sparse-predicate value meaning none.
    pub sparse_none: u8,
    /// The guard value meaning always (`PT`).
    pub guard_true: u8,
    /// Instructions that print an RZ Rb (the others leave it out).
    pub rb_rz_printed: Vec<OpClass>,
    /// Alignment of a register vector by its length 1.. (index = length - 1).
    pub vector_align: Vec<u32>,
    /// The order modifiers print in.
    pub modifier_order: Vec<String>,
    /// Modifiers each class always prints.
    pub fixed: BTreeMap<OpClass, String>,
    /// TEXS's target codes.
    pub texs_targets: Vec<ShortTarget>,
    /// TLDS's target codes.
    pub tlds_targets: Vec<ShortTarget>,
    /// Ra/Rb slot orders by class.
    pub packing: BTreeMap<OpClass, Packing>,
    /// The control word's layout.
    pub control: Control,
}

fn hex(file_field: &str, s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16)
        .unwrap_or_else(|e| panic!("mappings/nvidia.toml: {file_field} `{s}` is not hex: {e}"))
}

fn values(name: &str, raw: BTreeMap<String, String>) -> ValueTable {
    raw.into_iter()
        .map(|(k, v)| {
            let code = k
                .parse::<u8>()
                .unwrap_or_else(|e| panic!("mappings/nvidia.toml: {name} key `{k}`: {e}"));
            (code, v)
        })
        .collect()
}

/// A field of a control-word slot, `[lowest bit, width]`.
fn control_field([lo, width]: [u32; 2]) -> Field {
    Field {
        name: FieldName::Target,
        lo,
        width,
    }
}

impl Table {
    fn load() -> Table {
        let raw: RawTable = crate::mappings::parse_table(
            "nvidia.toml",
            include_str!("../../../mappings/nvidia.toml"),
        );
        let forms = raw
            .form
            .into_iter()
            .map(|f| Form {
                op: f.op,
                bindless: f.bindless,
                mask: hex("form.mask", &f.mask),
                value: hex("form.value", &f.value),
                reserved: f.reserved.iter().fold(0, |m, b| m | (1u64 << b)),
                fields: f.fields,
            })
            .collect();
        let v = raw.values;
        let c = raw.control;
        Table {
            ops: raw.op,
            forms,
            dims: v.dim,
            lod: values("lod", v.lod),
            tld_lod: values("tld_lod", v.tld_lod),
            offset_mode: values("offset_mode", v.offset_mode),
            comp: values("comp", v.comp),
            query: values("query", v.query),
            query_numeric: v.query_numeric,
            comps_pair: values("comps_pair", v.comps_pair),
            comps_quad: values("comps_quad", v.comps_quad),
            sparse_none: v.sparse_none,
            guard_true: v.guard_true,
            rb_rz_printed: v.rb_rz_printed,
            vector_align: v.vector_align,
            modifier_order: v.modifier_order,
            fixed: v.fixed,
            texs_targets: raw.texs_target,
            tlds_targets: raw.tlds_target,
            packing: raw.packing,
            control: Control {
                slot_width: c.slot_width,
                phase: control_field(c.phase),
                phase_names: values("phase_names", c.phase_names),
                default_field: hex("control.default_field", &c.default_field),
                nop: hex("control.nop", &c.nop),
                stall: control_field(c.stall),
                yield_: control_field(c.yield_),
                write_barrier: control_field(c.write_barrier),
                read_barrier: control_field(c.read_barrier),
                wait: control_field(c.wait),
                no_barrier: c.no_barrier,
            },
        }
    }

    /// The form of `op` (bound or bindless).
    pub fn form(&self, op: OpClass, bindless: bool) -> Option<&Form> {
        self.forms
            .iter()
            .find(|f| f.op == op && f.bindless == bindless)
    }

    /// The form `word` is, if any.
    pub fn form_of(&self, word: u64) -> Option<&Form> {
        self.forms.iter().find(|f| word & f.mask == f.value)
    }

    /// The short-form target table of `op` (TEXS or TLDS).
    pub fn short_targets(&self, op: OpClass) -> &[ShortTarget] {
        match op {
            OpClass::TLDS => &self.tlds_targets,
            _ => &self.texs_targets,
        }
    }

    /// The alignment of a register vector of `len` registers; `None` past the longest
    /// vector an instruction reads or writes.
    pub fn vector_align(&self, len: usize) -> Option<u32> {
        match len {
            0 => Some(1),
            n => self.vector_align.get(n - 1).copied(),
        }
    }

    /// The code of a dimension spelling.
    pub fn dim_code(&self, s: &str) -> Option<u8> {
        self.dims.iter().position(|d| d == s).map(|p| p as u8)
    }
}

/// The table, parsed on first use.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::load)
}

/// Looks a spelling up in a value table.
pub fn code_of(t: &ValueTable, spelling: &str) -> Option<u8> {
    t.iter().find(|(_, v)| *v == spelling).map(|(k, _)| *k)
}
