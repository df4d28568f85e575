//! The exact ISA-level form of a vISA sampler instruction, and what the IR keeps of vISA.

use super::tables::{self, OpDesc, OpcodeDesc};
use crate::isa::text_out::{push_decimal, push_hex_width, TextOut};

/// A raw operand: a general variable and a byte offset into it (`V0057.64`, `%null.0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Raw {
    /// Variable index: 0 = `%null`, 1..31 predefined, user variables from 32.
    pub var: u32,
    /// Byte offset into the variable.
    pub offset: u16,
}

/// The `aoffimmi` operand (seeds: a scalar UW, U in bits 11:8, V 7:4, R 3:0): an immediate,
/// or a general variable read as a scalar, which IGC writes for offsets that are not
/// constants (`sample_l.RGBA (M1, 16)  V0061(0,0)<0;1,0> S0 T6 ...`, IGC 1.0.12504 on
/// `GenISA.sampleLptr` with a variable offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aoffimmi {
    /// `0x1e3:uw`: the value's bits and its vISA type code.
    Imm {
        /// The value's bits.
        value: u32,
        /// The vISA type code.
        ty: u8,
    },
    /// `V0061(0,0)<0;1,0>`: a general variable at GRF `row`, element `col`, with a source
    /// region in the binary's encoding ([`Region`]).
    Var {
        /// Variable index (user variables from 32).
        var: u32,
        /// GRF row.
        row: u8,
        /// Element in the row.
        col: u8,
        /// The region, as the binary stores it.
        region: Region,
    },
}

impl Aoffimmi {
    /// The immediate's value, when the operand is one.
    pub fn value(&self) -> Option<u32> {
        match self {
            Aoffimmi::Imm { value, .. } => Some(*value),
            Aoffimmi::Var { .. } => None,
        }
    }
}

/// A source region `<vstride;width,hstride>` as the binary stores it: each value's index in
/// `region_values` plus one, vstride in bits 3:0, width 7:4, hstride 11:8 (research §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region(pub u16);

impl Region {
    /// `<0;1,0>`: one element for every lane (a scalar), as IGC reads its aoffimmi variable.
    pub const SCALAR: Region = Region(0x0121);

    /// The region `<vstride;width,hstride>`, when every value is a region value.
    pub fn new(vstride: u32, width: u32, hstride: u32) -> Option<Region> {
        let values = &tables::tables().limits.region_values;
        let code = |v: u32| {
            values
                .iter()
                .position(|x| u32::from(*x) == v)
                .map(|i| i as u16 + 1)
        };
        Some(Region(
            code(vstride)? | code(width)? << 4 | code(hstride)? << 8,
        ))
    }

    /// The three values, when every field holds a region value.
    pub fn values(self) -> Option<[u8; 3]> {
        let values = &tables::tables().limits.region_values;
        let field = |shift: u16| {
            let code = usize::from(self.0 >> shift & 0xf);
            code.checked_sub(1).and_then(|i| values.get(i)).copied()
        };
        if self.0 >> 12 != 0 {
            return None;
        }
        Some([field(0)?, field(4)?, field(8)?])
    }
}

impl Region {
    /// [`Region`]'s `Display`, appended to `out`.
    pub fn push_text(self, out: &mut (impl TextOut + ?Sized)) {
        match self.values() {
            Some([v, w, h]) => {
                out.push_ascii(b'<');
                push_decimal(out, u64::from(v));
                out.push_ascii(b';');
                push_decimal(out, u64::from(w));
                out.push_ascii(b',');
                push_decimal(out, u64::from(h));
                out.push_ascii(b'>');
            }
            None => {
                out.push_text("<region ");
                push_hex_width(out, u64::from(self.0), 4);
                out.push_ascii(b'>');
            }
        }
    }
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::new();
        self.push_text(&mut s);
        f.write_str(&s)
    }
}

/// One vISA sampler instruction, field for field as the binary stores it (research §6). The
/// default (all zero, opcode 0 is no sampler op) is a place to decode into.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VisaInst {
    /// The vISA opcode (`0x6d` 3D_SAMPLE, ...).
    pub opcode: u8,
    /// Sub-op code (bits 7:0 of the sub-op field); 0 for `gather4_typed`.
    pub subop: u8,
    /// The modifier bits of the sub-op field (bit 8 `.pixel_null_mask`, 9 `.cps`, 10 `.divS`).
    pub modifiers: u16,
    /// SIMD width (1, 2, 4, 8, 16 or 32).
    pub exec_size: u8,
    /// Execution mask index: 0..7 = `M1`..`M8`, 8..15 = `M1_NM`..`M8_NM`.
    pub emask: u8,
    /// Predicate field: bits 11:0 id (0 = none), 14:13 control, 15 negate.
    pub pred: u16,
    /// RGBA write mask, or the gathered channel index for `sample4*`.
    pub channels: u8,
    /// The `aoffimmi` operand (sample and load ops).
    pub aoffimmi: Option<Aoffimmi>,
    /// The sampler index, for ops that take one.
    pub sampler: Option<u8>,
    /// The surface index.
    pub surface: u8,
    /// The destination.
    pub dst: Raw,
    /// The parameters after the destination, in the op's order; for `resinfo` the LOD, for
    /// `gather4_typed` u, v, r, lod (text prints those before dst).
    pub params: Vec<Raw>,
}

impl VisaInst {
    /// The op of this instruction.
    pub fn op(&self) -> Option<&'static OpDesc> {
        tables::op_by_code(self.opcode, self.subop)
    }

    /// The opcode of this instruction.
    pub fn opcode_desc(&self) -> Option<&'static OpcodeDesc> {
        tables::opcode(self.opcode)
    }

    /// Whether the modifier bit `bit` is set.
    pub fn has_modifier(&self, bit: u8) -> bool {
        bit < 16 && self.modifiers & (1 << bit) != 0
    }
}

/// The modifier bit of `.pixel_null_mask` (residency).
pub fn pixel_null_mask_bit() -> u16 {
    modifier_bits()[0]
}

/// The modifier bit of `.cps`.
pub fn cps_bit() -> u16 {
    modifier_bits()[1]
}

/// The modifier bit of `.divS` (non-uniform sampler).
pub fn div_s_bit() -> u16 {
    modifier_bits()[2]
}

/// The bits of `.pixel_null_mask`, `.cps` and `.divS`, looked up once.
fn modifier_bits() -> &'static [u16; 3] {
    static BITS: std::sync::OnceLock<[u16; 3]> = std::sync::OnceLock::new();
    BITS.get_or_init(|| {
        ["pixel_null_mask", "cps", "divS"]
            .map(|name| tables::modifier_by_name(name).map_or(0, |m| 1 << m.bit))
    })
}

/// The operand of an instruction a diagnostic points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    SubOp,
    /// The first sub-op modifier (`.pixel_null_mask`, `.cps`, `.divS`).
    Modifiers,
    Exec,
    Pred,
    Channels,
    Aoffimmi,
    Sampler,
    Surface,
    Dst,
    NumParams,
    Param(usize),
}

/// Where each field of one decoded or parsed instruction starts (text: column; binary: byte
/// offset), so a rule violation can say where it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPositions {
    pub start: usize,
    pub fields: Vec<(Field, usize)>,
}

impl FieldPositions {
    /// The position of `field`, or of the instruction when the field was not read.
    pub fn of(&self, field: Field) -> usize {
        self.fields
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(self.start, |(_, p)| *p)
    }
}

/// How IGC separates an instruction from its `/// $N` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gap {
    /// IGC's rule: pad `<indent><instruction>` to the comment column, then one space.
    Aligned,
    /// Any other spacing, kept as written.
    Exact(String),
}

/// The layout of one text line around its instruction, kept so a listing prints back
/// byte-identically. A line whose instruction is edited keeps its indent and comment and
/// gets IGC's canonical spacing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The whitespace before the instruction.
    pub indent: String,
    /// The instruction as written, when that differs from IGC's canonical printing, with the
    /// instruction it denotes: printed verbatim while the instruction is unchanged.
    pub written: Option<(String, VisaInst)>,
    /// The whitespace between the instruction and a trailing comment.
    pub gap: Gap,
    /// A trailing comment (`/// $24`, `// ...`), without the gap before it.
    pub comment: Option<String>,
    /// Whitespace after everything else.
    pub trailing: String,
}

/// The form of `load_2dms_w`'s MCS parameters: 2 × 32-bit (SKL) or 4 × 16-bit (ICL+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsForm {
    /// `si mcsl mcsh u v r lod`, D/UD parameters.
    Dword,
    /// `si mcs0 mcs1 mcs2 mcs3 u v r lod`, W/UW parameters.
    Word,
}

/// What an IR instruction keeps of vISA that the IR itself does not carry
/// (`Origin::Visa`).
#[derive(Clone, Debug, PartialEq)]
pub struct VisaExtras {
    /// Predicate control: 0 none, 1 `.any`, 2 `.all`.
    pub pred_control: u8,
    /// vISA type code of the aoffimmi immediate (`uw` in every IGC dump).
    pub aoffimmi_type: u8,
    /// The aoffimmi of `sample4_po*`, whose IR offset is the per-pixel one.
    pub po_aoffimmi: Option<Aoffimmi>,
    /// The region a variable aoffimmi was read with (IGC writes `<0;1,0>`).
    pub aoffimmi_region: Option<Region>,
    /// NumParams as read: trailing parameters that read as zero (`%null.0`, or omitted) are
    /// emitted up to this count.
    pub num_params: Option<u8>,
    /// The `load_2dms_w` form as read.
    pub ms_form: Option<MsForm>,
    /// Text layout, when read from text.
    pub layout: Option<Layout>,
}

impl Default for VisaExtras {
    /// The extras of a freshly built instruction: a `:uw` aoffimmi.
    fn default() -> Self {
        VisaExtras {
            pred_control: 0,
            aoffimmi_type: tables::type_by_name("uw").map_or(2, |t| t.code),
            po_aoffimmi: None,
            aoffimmi_region: None,
            num_params: None,
            ms_form: None,
            layout: None,
        }
    }
}

/// How strictly instructions are checked (see `docs/visa.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checks {
    /// Every rule of the seeds and of research §5/§7.
    #[default]
    Strict,
    /// Accept what IGC 1.0.12504 itself emits: the parameters of 0x6d/0x6f may mix F and HF
    /// (IGC's half-precision gather4 output does; its finalizer then sends a 16-bit payload
    /// holding a 32-bit parameter, which is invalid code). Every other rule still applies.
    IgcCompatible,
}

/// Program-level vISA state (`Program::visa`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisaProgram {
    /// Lines end in `\r\n`.
    pub crlf: bool,
    /// The last line ends with a line terminator.
    pub final_newline: bool,
    /// Declared predicate names; index = first_user_predicate + position.
    pub predicates: Vec<String>,
    /// The input had `.decl` lines: names resolve through them (otherwise IGC's own names
    /// `V<n>`, `S<n>`, `T<n>`, `P<n>` stand for index n).
    pub declared: bool,
    /// The checks the program was read under; printing and encoding apply the same.
    pub checks: Checks,
}
