//! The tables of `mappings/nvidia.toml`, parsed once. Every opcode, bit range, value
//! spelling, short-form target and Ra/Rb slot order the NVIDIA module uses comes from here.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// An instruction class: one mnemonic, with its bound and bindless encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[repr(u8)]
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
        Some(match s {
            "TEX" => OpClass::TEX,
            "TEXS" => OpClass::TEXS,
            "TLD" => OpClass::TLD,
            "TLDS" => OpClass::TLDS,
            "TLD4" => OpClass::TLD4,
            "TLD4S" => OpClass::TLD4S,
            "TXD" => OpClass::TXD,
            "TMML" => OpClass::TMML,
            "TXQ" => OpClass::TXQ,
            _ => return None,
        })
    }

    /// TEXS, TLDS and TLD4S: two destination registers, a 4-bit target instead of a dimension.
    pub fn is_short(self) -> bool {
        matches!(self, OpClass::TEXS | OpClass::TLDS | OpClass::TLD4S)
    }
}

/// An NVIDIA architecture, by nvdisasm's name (`-b SM50`): what a word decodes to depends on
/// it (`mappings/nvidia.toml` gates forms and fields by SM, as the field sweep measured).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, serde::Serialize,
)]
#[repr(u8)]
pub enum Sm {
    /// Maxwell GM10x (the default: what texlate has always read).
    #[default]
    SM50,
    /// Maxwell GM20x.
    SM52,
    /// Maxwell GM20B (Tegra X1).
    SM53,
    /// Pascal GP100.
    SM60,
    /// Pascal GP10x.
    SM61,
    /// Pascal GP10B (Tegra X2): every swept word decodes as on SM61 (the field sweep of
    /// session 9: 68 620 words, nvdisasm's text identical).
    SM62,
}

impl Sm {
    /// Every SM, oldest first.
    pub const ALL: [Sm; 6] = [Sm::SM50, Sm::SM52, Sm::SM53, Sm::SM60, Sm::SM61, Sm::SM62];
    /// How many there are.
    pub const COUNT: usize = Sm::ALL.len();

    /// nvdisasm's name (`SM50`).
    pub fn name(self) -> &'static str {
        match self {
            Sm::SM50 => "SM50",
            Sm::SM52 => "SM52",
            Sm::SM53 => "SM53",
            Sm::SM60 => "SM60",
            Sm::SM61 => "SM61",
            Sm::SM62 => "SM62",
        }
    }

    /// The SM a CUDA ELF file names (`EF_CUDA_SM61` = 61 in the low byte of `e_flags`, the
    /// number of a listing's `.headerflags`), if texlate reads it.
    pub fn from_number(n: u32) -> Option<Sm> {
        Sm::ALL
            .into_iter()
            .find(|sm| sm.name()[2..].parse() == Ok(n))
    }

    /// Reads nvdisasm's name, any case, `sm_61` too.
    pub fn parse(s: &str) -> Option<Sm> {
        let norm = s.to_ascii_uppercase().replace('_', "");
        Sm::ALL.into_iter().find(|sm| sm.name() == norm)
    }
}

impl std::fmt::Display for Sm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Sm {
    type Err = String;
    fn from_str(s: &str) -> Result<Sm, String> {
        Sm::parse(s).ok_or_else(|| {
            format!(
                "unknown SM `{s}`: expected one of {}",
                Sm::ALL.map(Sm::name).join(", ")
            )
        })
    }
}

/// The fields the decoder knows. Their bit ranges live in the TOML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
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
    /// `.RTZ` of the `.F16` short forms (SM60+).
    Rtz,
}

impl FieldName {
    /// How many field names there are (the size of a table indexed by `name as usize`).
    pub const COUNT: usize = FieldName::Rtz as usize + 1;
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
    /// The first SM that decodes the field (earlier SMs refuse a word where it is not absent).
    #[serde(default)]
    pub sm: Sm,
    /// The last SM that prints the field (later SMs ignore its bits).
    #[serde(default = "last_sm")]
    pub until: Sm,
}

fn last_sm() -> Sm {
    Sm::ALL[Sm::COUNT - 1]
}

impl Field {
    /// A field of every SM.
    pub fn bits(name: FieldName, lo: u32, width: u32) -> Field {
        Field {
            name,
            lo,
            width,
            sm: Sm::SM50,
            until: last_sm(),
        }
    }

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
    #[serde(default)]
    f16: bool,
    #[serde(default)]
    sm: Sm,
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
    /// `.F16`: results packed as half-precision pairs.
    pub f16: bool,
    /// The first SM that decodes the form.
    pub sm: Sm,
    /// The opcode bits.
    pub mask: u64,
    /// Their value in this form.
    pub value: u64,
    /// Bits that must be zero.
    pub reserved: u64,
    /// The form's fields.
    pub fields: Vec<Field>,
    /// Bits in no field, not in the opcode and not reserved (computed once).
    free: u64,
    /// The same on each SM (fields past their last SM are free there).
    free_sm: [u64; Sm::COUNT],
    /// Position in `fields` of each field name (`u8::MAX`: the form has none), so that a
    /// field is found without a search on the decode and encode paths.
    by_name: [u8; FieldName::COUNT],
}

impl Form {
    fn new(raw: &RawForm, mask: u64, value: u64, reserved: u64, fields: Vec<Field>) -> Form {
        let (op, bindless) = (raw.op, raw.bindless);
        let used = fields.iter().fold(mask | reserved, |m, f| m | f.mask());
        let free_sm = Sm::ALL.map(|sm| {
            !fields
                .iter()
                .filter(|f| sm <= f.until)
                .fold(mask | reserved, |m, f| m | f.mask())
        });
        let mut by_name = [u8::MAX; FieldName::COUNT];
        for (i, f) in fields.iter().enumerate().rev() {
            by_name[f.name as usize] = i as u8;
        }
        Form {
            op,
            bindless,
            f16: raw.f16,
            sm: raw.sm,
            mask,
            value,
            reserved,
            fields,
            free: !used,
            free_sm,
            by_name,
        }
    }

    /// The field `name`, when the form has it.
    pub fn field(&self, name: FieldName) -> Option<&Field> {
        self.fields.get(usize::from(self.by_name[name as usize]))
    }

    /// Bits in no field, not in the opcode and not reserved: carried raw.
    pub fn free_bits(&self) -> u64 {
        self.free
    }

    /// [`Form::free_bits`] on `sm`: also the bits of fields `sm` no longer prints.
    pub fn free_bits_on(&self, sm: Sm) -> u64 {
        self.free_sm[sm as usize]
    }

    /// Every bit any SM carries raw (what an instruction's raw bits may hold).
    pub fn free_bits_any(&self) -> u64 {
        self.free_sm.iter().fold(0, |m, f| m | f)
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
    /// `lod` as a code of the `lod` table (resolved when the table loads).
    #[serde(skip)]
    pub lod_code: u8,
    /// `dim` as a code of the `dim` table (resolved when the table loads).
    #[serde(skip)]
    pub dim_code: u8,
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

/// The head of `mappings/nvidia_fields.toml`, up to its first `[[field]]` row: what the
/// decoder reads (`sms`, `[invalid]`). The rows after it are the sweep's evidence, read by
/// the tests only, so that loading the table stays cheap.
pub fn fields_head() -> &'static str {
    let file = include_str!("../../../mappings/nvidia_fields.toml");
    file.find("\n[[field]]").map_or(file, |end| &file[..end])
}

/// The INVALID… spellings of `mappings/nvidia_fields.toml` (generated by the field sweep):
/// reserved codes nvdisasm prints rather than refuses, by the value table they extend.
#[derive(Debug, Deserialize)]
struct RawFieldsFile {
    invalid: RawInvalid,
}

#[derive(Debug, Deserialize)]
struct RawInvalid {
    lod: BTreeMap<String, String>,
    offset_mode: BTreeMap<String, String>,
    comps_quad: BTreeMap<String, String>,
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
    /// Reserved codes nvdisasm prints as `INVALID…` (`mappings/nvidia_fields.toml`): of
    /// `lod`, `offset_mode` and `comps_quad`. `disasm` prints them; `asm`, lift and
    /// translation refuse them.
    pub invalid: InvalidSpellings,
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
    /// The first form of each value of the word's top [`DISPATCH_BITS`] bits (`u8::MAX`:
    /// none), when every form's opcode mask lies within them: [`Table::form_of`] without a
    /// search.
    dispatch: Option<Vec<u8>>,
    /// The `lod` table code of each `tld_lod` code (`u8::MAX`: reserved).
    pub tld_lod_code: [u8; 4],
    /// `modifier_order`, resolved.
    pub modifier_classes: Vec<Modifier>,
    /// The component code of each RGBA mask (`u8::MAX`: none): `[0]` from `comps_pair`
    /// (Rd1 is RZ), `[1]` from `comps_quad`.
    pub comps_by_mask: [[u8; 16]; 2],
    /// The position in `forms` of each class's bound (`[0]`), bindless (`[1]`), `.F16`
    /// bound (`[2]`) and `.F16` bindless (`[3]`) form.
    form_by_op: [[u8; 4]; OpClass::ALL.len()],
    /// The value tables indexed by code, for the decode and print paths.
    pub dense: Dense,
}

/// Reserved codes nvdisasm prints with an `INVALID…` spelling, by value table.
#[derive(Debug, Default)]
pub struct InvalidSpellings {
    /// Of `lod` (`INVALIDBLOD4`).
    pub lod: ValueTable,
    /// Of `offset_mode` (`INVALIDBTOFF03`).
    pub offset_mode: ValueTable,
    /// Of `comps_quad` (`INVALID5`).
    pub comps_quad: ValueTable,
}

impl InvalidSpellings {
    /// Whether `spelling` is one of them.
    pub fn contains(&self, spelling: &str) -> bool {
        [&self.lod, &self.offset_mode, &self.comps_quad]
            .iter()
            .any(|t| t.values().any(|v| v == spelling))
    }
}

/// A code-indexed spelling table: `None` where the code is reserved.
pub type DenseNames = [Option<&'static str>; 256];

/// The value tables of [`Table`] indexed by code instead of searched (built once when the
/// table loads; the spellings live as long as the table).
#[derive(Debug)]
pub struct Dense {
    /// `lod`.
    pub lod: Box<DenseNames>,
    /// `offset_mode`.
    pub offset_mode: Box<DenseNames>,
    /// `lod`, `offset_mode` and `comps_quad` with the INVALID… spellings, as printed.
    pub printed_lod: Box<DenseNames>,
    /// `offset_mode` as printed.
    pub printed_offset_mode: Box<DenseNames>,
    /// `comps_quad` as printed.
    pub printed_comps_quad: Box<DenseNames>,
    /// `comp`.
    pub comp: Box<DenseNames>,
    /// `query`.
    pub query: Box<DenseNames>,
    /// The phase names of the control word.
    pub phase: Box<DenseNames>,
    /// `comps_pair` (`[0]`) and `comps_quad` (`[1]`).
    pub comps: [Box<DenseNames>; 2],
    /// `dim`.
    pub dim: Box<DenseNames>,
    /// Spatial coordinates of each dimension code: 1D 1, 2D 2, 3D and CUBE 3.
    pub dim_coords: Box<[u8; 256]>,
    /// Whether each dimension code is an array (`ARRAY_*`).
    pub dim_arrayed: Box<[bool; 256]>,
    /// The modifier each class always prints (`fixed`), by class.
    pub fixed: [Option<&'static str>; OpClass::ALL.len()],
}

/// A spelling that lives as long as the table (which is never dropped).
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn dense(t: &ValueTable) -> Box<DenseNames> {
    let mut d = Box::new([None; 256]);
    for (code, s) in t {
        d[usize::from(*code)] = Some(leak(s));
    }
    d
}

impl Dense {
    /// Empty tables, until [`Dense::new`] fills them from the loaded table.
    fn placeholder() -> Dense {
        Dense {
            lod: Box::new([None; 256]),
            offset_mode: Box::new([None; 256]),
            printed_lod: Box::new([None; 256]),
            printed_offset_mode: Box::new([None; 256]),
            printed_comps_quad: Box::new([None; 256]),
            comp: Box::new([None; 256]),
            query: Box::new([None; 256]),
            phase: Box::new([None; 256]),
            comps: [Box::new([None; 256]), Box::new([None; 256])],
            dim: Box::new([None; 256]),
            dim_coords: Box::new([3; 256]),
            dim_arrayed: Box::new([false; 256]),
            fixed: [None; OpClass::ALL.len()],
        }
    }

    fn new(t: &Table) -> Dense {
        let mut dim = Box::new([None; 256]);
        let mut dim_coords = Box::new([3u8; 256]);
        let mut dim_arrayed = Box::new([false; 256]);
        for (code, name) in t.dims.iter().enumerate().take(256) {
            dim[code] = Some(leak(name));
            dim_coords[code] = if name.ends_with("1D") {
                1
            } else if name.ends_with("2D") {
                2
            } else {
                3
            };
            dim_arrayed[code] = name.starts_with("ARRAY_");
        }
        let mut fixed = [None; OpClass::ALL.len()];
        for (op, s) in &t.fixed {
            fixed[*op as usize] = Some(leak(s));
        }
        let with = |valid: &ValueTable, invalid: &ValueTable| {
            let mut all = valid.clone();
            all.extend(invalid.iter().map(|(k, v)| (*k, v.clone())));
            dense(&all)
        };
        Dense {
            lod: dense(&t.lod),
            offset_mode: dense(&t.offset_mode),
            printed_lod: with(&t.lod, &t.invalid.lod),
            printed_offset_mode: with(&t.offset_mode, &t.invalid.offset_mode),
            printed_comps_quad: with(&t.comps_quad, &t.invalid.comps_quad),
            comp: dense(&t.comp),
            query: dense(&t.query),
            phase: dense(&t.control.phase_names),
            comps: [dense(&t.comps_pair), dense(&t.comps_quad)],
            dim,
            dim_coords,
            dim_arrayed,
            fixed,
        }
    }
}

/// A class of modifiers, in the order `modifier_order` prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier {
    /// The gather component of TLD4/TLD4S.
    Comp,
    /// `.B`.
    B,
    /// The LOD mode.
    Lod,
    /// The modifier a class always prints (`fixed`).
    Fixed,
    /// `.LC`.
    Lc,
    /// The offset mode.
    Offset,
    /// `.DC`.
    Dc,
    /// `.MS`.
    Ms,
    /// `.CL`.
    Cl,
    /// `.NDV`.
    Ndv,
    /// `.NODEP`.
    Nodep,
    /// The phase (`.T`, `.P`).
    Phase,
    /// `.F16`.
    F16,
    /// `.RTZ`.
    Rtz,
}

impl Modifier {
    /// The class's name in `modifier_order`.
    pub fn name(self) -> &'static str {
        match self {
            Modifier::Comp => "comp",
            Modifier::B => "B",
            Modifier::Lod => "lod",
            Modifier::Fixed => "fixed",
            Modifier::Lc => "LC",
            Modifier::Offset => "offset",
            Modifier::Dc => "DC",
            Modifier::Ms => "MS",
            Modifier::Cl => "CL",
            Modifier::Ndv => "NDV",
            Modifier::Nodep => "NODEP",
            Modifier::Phase => "phase",
            Modifier::F16 => "F16",
            Modifier::Rtz => "RTZ",
        }
    }

    const ALL: [Modifier; 14] = [
        Modifier::F16,
        Modifier::Rtz,
        Modifier::Comp,
        Modifier::B,
        Modifier::Lod,
        Modifier::Fixed,
        Modifier::Lc,
        Modifier::Offset,
        Modifier::Dc,
        Modifier::Ms,
        Modifier::Cl,
        Modifier::Ndv,
        Modifier::Nodep,
        Modifier::Phase,
    ];
}

/// The bits of a word [`Table::form_of`] dispatches on.
const DISPATCH_BITS: u32 = 13;

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
    Field::bits(FieldName::Target, lo, width)
}

impl Table {
    fn load() -> Table {
        let raw: RawTable = crate::mappings::parse_table(
            "nvidia.toml",
            include_str!("../../../mappings/nvidia.toml"),
        );
        let forms: Vec<Form> = raw
            .form
            .into_iter()
            .map(|f| {
                Form::new(
                    &f,
                    hex("form.mask", &f.mask),
                    hex("form.value", &f.value),
                    f.reserved.iter().fold(0, |m, b| m | (1u64 << b)),
                    f.fields.clone(),
                )
            })
            .collect();
        let shift = 64 - DISPATCH_BITS;
        let dispatch = forms
            .iter()
            .all(|f| f.mask & ((1u64 << shift) - 1) == 0 && forms.len() < usize::from(u8::MAX))
            .then(|| {
                (0..1u64 << DISPATCH_BITS)
                    .map(|top| {
                        let word = top << shift;
                        forms
                            .iter()
                            .position(|f| word & f.mask == f.value)
                            .map_or(u8::MAX, |i| i as u8)
                    })
                    .collect()
            });
        let v = raw.values;
        let c = raw.control;
        let lod = values("lod", v.lod);
        let tld_lod = values("tld_lod", v.tld_lod);
        let mut tld_lod_code = [u8::MAX; 4];
        for (code, spelling) in &tld_lod {
            let slot = tld_lod_code
                .get_mut(usize::from(*code))
                .unwrap_or_else(|| panic!("mappings/nvidia.toml: tld_lod code {code} past 3"));
            *slot = code_of(&lod, spelling).unwrap_or_else(|| {
                panic!("mappings/nvidia.toml: tld_lod `{spelling}` is no lod spelling")
            });
        }
        let resolve = |targets: Vec<ShortTarget>| -> Vec<ShortTarget> {
            targets
                .into_iter()
                .map(|mut s| {
                    s.lod_code = code_of(&lod, &s.lod).unwrap_or_else(|| {
                        panic!("mappings/nvidia.toml: short target lod `{}`", s.lod)
                    });
                    s.dim_code = v.dim.iter().position(|d| *d == s.dim).unwrap_or_else(|| {
                        panic!("mappings/nvidia.toml: short target dim `{}`", s.dim)
                    }) as u8;
                    s
                })
                .collect()
        };
        let texs_targets = resolve(raw.texs_target);
        let tlds_targets = resolve(raw.tlds_target);
        let modifier_classes: Vec<Modifier> = v
            .modifier_order
            .iter()
            .map(|name| {
                Modifier::ALL
                    .into_iter()
                    .find(|m| m.name() == name)
                    .unwrap_or_else(|| panic!("mappings/nvidia.toml: modifier class `{name}`"))
            })
            .collect();
        // The printers print the phase after the rest of the mnemonic (`mnemonic_text`).
        assert!(
            modifier_classes.last() == Some(&Modifier::Phase),
            "mappings/nvidia.toml: modifier_order ends with `phase`"
        );
        let comps_pair = values("comps_pair", v.comps_pair);
        let comps_quad = values("comps_quad", v.comps_quad);
        let mut comps_by_mask = [[u8::MAX; 16]; 2];
        for (k, names) in [&comps_pair, &comps_quad].into_iter().enumerate() {
            for (code, spelling) in names {
                let mask = usize::from(crate::isa::nvidia::inst::comps_mask(spelling));
                if comps_by_mask[k][mask] == u8::MAX {
                    comps_by_mask[k][mask] = *code;
                }
            }
        }
        let mut form_by_op = [[u8::MAX; 4]; OpClass::ALL.len()];
        for (i, f) in forms.iter().enumerate().rev() {
            form_by_op[f.op as usize][usize::from(f.bindless) + 2 * usize::from(f.f16)] = i as u8;
        }
        let fields_file: RawFieldsFile =
            crate::mappings::parse_table("nvidia_fields.toml", fields_head());
        let invalid = InvalidSpellings {
            lod: values("invalid.lod", fields_file.invalid.lod),
            offset_mode: values("invalid.offset_mode", fields_file.invalid.offset_mode),
            comps_quad: values("invalid.comps_quad", fields_file.invalid.comps_quad),
        };
        let mut table = Table {
            ops: raw.op,
            forms,
            dims: v.dim,
            lod,
            tld_lod,
            offset_mode: values("offset_mode", v.offset_mode),
            comp: values("comp", v.comp),
            query: values("query", v.query),
            query_numeric: v.query_numeric,
            comps_pair,
            comps_quad,
            invalid,
            sparse_none: v.sparse_none,
            guard_true: v.guard_true,
            rb_rz_printed: v.rb_rz_printed,
            vector_align: v.vector_align,
            modifier_order: v.modifier_order,
            fixed: v.fixed,
            texs_targets,
            tlds_targets,
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
            dispatch,
            tld_lod_code,
            modifier_classes,
            comps_by_mask,
            form_by_op,
            dense: Dense::placeholder(),
        };
        table.dense = Dense::new(&table);
        table
    }

    /// The form of `op` (bound or bindless).
    pub fn form(&self, op: OpClass, bindless: bool) -> Option<&Form> {
        self.form_f16(op, bindless, false)
    }

    /// The form of `op` (bound or bindless, `.F16` or not).
    pub fn form_f16(&self, op: OpClass, bindless: bool, f16: bool) -> Option<&Form> {
        self.forms.get(usize::from(
            self.form_by_op[op as usize][usize::from(bindless) + 2 * usize::from(f16)],
        ))
    }

    /// The form `word` is, if any.
    pub fn form_of(&self, word: u64) -> Option<&Form> {
        self.forms.get(self.form_index_of(word)?)
    }

    /// The position in `forms` of the form `word` is, if any.
    pub fn form_index_of(&self, word: u64) -> Option<usize> {
        match &self.dispatch {
            Some(d) => Some(usize::from(d[(word >> (64 - DISPATCH_BITS)) as usize]))
                .filter(|&i| i < self.forms.len()),
            None => self.forms.iter().position(|f| word & f.mask == f.value),
        }
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

#[cfg(test)]
mod tests {
    use super::OpClass;

    /// `from_mnemonic` reads back every spelling `mnemonic` prints, and nothing else.
    #[test]
    fn mnemonics_read_back() {
        for op in OpClass::ALL {
            assert_eq!(OpClass::from_mnemonic(op.mnemonic()), Some(op));
            assert_eq!(OpClass::from_mnemonic(&op.mnemonic().to_lowercase()), None);
        }
        assert_eq!(OpClass::from_mnemonic("TEX4"), None);
    }
}
