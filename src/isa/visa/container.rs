//! IGC 1.0.12504's `.isa` container (`CISA` magic, v4.1; research §6): the file header, each
//! kernel's body tables, and a walk over its whole instruction stream that picks out the
//! sampler instructions.
//!
//! Every instruction is walked with IGC's operand descriptors (`mappings/visa_isa.toml`).
//! 12504's writer (`BinaryCISAEmission.cpp`) loops over `min(operand count, descriptor
//! slots)`, and the slots include EXECSIZE/PRED, which consume no operand: so each
//! instruction loses its last k slots, k = its number of EXECSIZE/PRED slots (research §6;
//! fixed upstream in ee604b2c8). The walk models exactly that.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::{DecodeError, Error};

use super::binary::{self, decode_error, Reader};
use super::inst::{Raw, VisaInst};
use super::tables;

/// A whole `.isa` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsaContainer {
    /// Format version (major, minor); 12504 writes 4.1.
    pub version: (u8, u8),
    /// The kernels, in file order.
    pub kernels: Vec<IsaKernel>,
}

/// One kernel of a container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsaKernel {
    /// The kernel's name.
    pub name: String,
    /// File offset of the kernel body.
    pub body_offset: usize,
    /// File offset of the first instruction.
    pub code_offset: usize,
    /// How many instructions the walk read (of every opcode).
    pub instructions: usize,
    /// The sampler instructions (0x6d 0x6e 0x6f 0x70 0x4b), in stream order.
    pub samplers: Vec<IsaSampler>,
}

/// A sampler instruction as IGC 12504 wrote it: its fields up to the writer's cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsaSampler {
    /// File offset of the opcode byte.
    pub offset: usize,
    /// Bytes written.
    pub len: usize,
    /// The instruction as far as it was written: `params` holds only the parameters the writer
    /// kept (for 0x70/0x4b the operands before dst), and `dst` is `%null.0` when it was cut.
    pub inst: VisaInst,
    /// Whether the writer kept the destination.
    pub dst_kept: bool,
    /// NumParams (0x6d/0x6e/0x6f), `None` when the writer cut it (fewer than 2 parameters) or
    /// the opcode has no such field.
    pub num_params: Option<u8>,
    /// How many trailing operand slots the writer dropped (k).
    pub dropped: usize,
}

impl IsaSampler {
    /// The destination, `None` when the writer cut it.
    pub fn dst(&self) -> Option<Raw> {
        self.dst_kept.then_some(self.inst.dst)
    }
}

/// `mappings/visa_isa.toml`.
#[derive(Debug, Deserialize)]
pub struct IsaTable {
    pub encoding: HashMap<String, SlotEncoding>,
    pub vector_class: Vec<VectorClass>,
    pub isa_opcode: Vec<IsaOpcode>,
}

/// How the writer encodes one descriptor slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SlotEncoding {
    Exec,
    Pred,
    Raw,
    U8,
    U16,
    Vector,
    /// An operand list chosen by a sub-opcode (VA, SVM): not walked.
    Subopcode,
}

/// A vector operand class (tag bits 2:0) and its payload size.
#[derive(Debug, Deserialize)]
pub struct VectorClass {
    pub class: u8,
    pub name: String,
    pub bytes: usize,
}

/// One opcode's descriptor slots, named as in IGC's table.
#[derive(Debug, Deserialize)]
pub struct IsaOpcode {
    pub code: u8,
    pub name: String,
    pub slots: Vec<String>,
}

impl IsaTable {
    /// The descriptor of `code`.
    pub fn opcode(&self, code: u8) -> Option<&IsaOpcode> {
        self.isa_opcode.iter().find(|o| o.code == code)
    }

    /// The code of the opcode named `name` (a table defect if missing).
    fn code(&self, name: &str) -> u8 {
        self.isa_opcode
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("mappings/visa_isa.toml has no opcode {name}"))
            .code
    }

    /// The encodings of `op`'s slots (a table defect if a slot kind is missing).
    pub fn encodings(&self, op: &IsaOpcode) -> Vec<SlotEncoding> {
        op.slots
            .iter()
            .map(|s| {
                *self.encoding.get(s).unwrap_or_else(|| {
                    panic!("mappings/visa_isa.toml: {} has unknown slot {s}", op.name)
                })
            })
            .collect()
    }
}

/// The parsed `mappings/visa_isa.toml`.
pub fn isa_table() -> &'static IsaTable {
    static TABLE: OnceLock<IsaTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        crate::mappings::parse_table(
            "visa_isa.toml",
            include_str!("../../../mappings/visa_isa.toml"),
        )
    })
}

/// The container magic.
pub const MAGIC: &[u8] = b"CISA";

/// Reads a `.isa` container and walks every kernel's instruction stream.
pub fn decode(bytes: &[u8]) -> Result<IsaContainer, Error> {
    let mut r = Reader { bytes, pos: 0 };
    if r.slice(MAGIC.len(), "magic")? != MAGIC {
        return Err(decode_error(0, "not a vISA container (no `CISA` magic)"));
    }
    let version = (r.u8("major version")?, r.u8("minor version")?);
    let nkernels = r.u16("kernel count")?;
    let mut headers = Vec::new();
    for _ in 0..nkernels {
        let len = r.u16("kernel name length")?;
        let name = String::from_utf8_lossy(r.slice(usize::from(len), "kernel name")?).into_owned();
        let body_at = r.pos;
        let body = r.u32("kernel body offset")? as usize;
        let size = r.u32("kernel body size")? as usize;
        let input_at = r.pos;
        span(
            bytes,
            input_at,
            r.u32("kernel input offset")? as usize,
            0,
            "kernel inputs",
        )?;
        r.slice(2 + 2, "reserved fields")?;
        // Gen binaries: u8 platform · u32 offset · u32 size, inside the file.
        for _ in 0..r.u8("gen binary count")? {
            r.u8("gen binary platform")?;
            let at = r.pos;
            let offset = r.u32("gen binary offset")? as usize;
            let size = r.u32("gen binary size")? as usize;
            span(bytes, at, offset, size, "gen binary")?;
        }
        let body = span(bytes, body_at, body, size, "kernel body")?;
        headers.push((name, body));
    }
    // File-scope variables (none in 12504's output) and functions (their bodies not walked):
    // u8 linkage · u16 name length · name · u32 offset · u32 size · u16 0 · u16 0.
    let at = r.pos;
    if r.u16("file-scope variable count")? != 0 {
        return Err(decode_error(
            at,
            "file-scope variables: texlate does not read them",
        ));
    }
    for _ in 0..r.u16("function count")? {
        r.u8("function linkage")?;
        let len = r.u16("function name length")?;
        r.slice(usize::from(len), "function name")?;
        let at = r.pos;
        let offset = r.u32("function body offset")? as usize;
        let size = r.u32("function body size")? as usize;
        span(bytes, at, offset, size, "function body")?;
        r.slice(2 + 2, "reserved fields")?;
    }
    let kernels = headers
        .into_iter()
        .map(|(name, body)| decode_kernel(bytes, name, body))
        .collect::<Result<_, _>>()?;
    Ok(IsaContainer { version, kernels })
}

/// `offset..offset + size` as a checked range of `bytes`; `field_at` is where the offset is.
fn span(
    bytes: &[u8],
    field_at: usize,
    start: usize,
    size: usize,
    what: &str,
) -> Result<std::ops::Range<usize>, Error> {
    match start.checked_add(size) {
        Some(end) if end <= bytes.len() => Ok(start..end),
        _ => Err(decode_error(
            field_at,
            format!(
                "{what} at {start:#x} + {size:#x} bytes lies past the end of its {}-byte range",
                bytes.len()
            ),
        )),
    }
}

/// Skips `count` attributes: u32 name (a string index) · u8 size · size bytes.
fn skip_attributes(r: &mut Reader, count: usize, strings: u32) -> Result<(), Error> {
    for _ in 0..count {
        let at = r.pos;
        let name = r.u32("attribute name")?;
        if name >= strings {
            return Err(decode_error(
                at,
                format!("attribute name index {name} is past the {strings} strings"),
            ));
        }
        let size = r.u8("attribute size")?;
        r.slice(usize::from(size), "attribute value")?;
    }
    Ok(())
}

/// Skips one name-table entry: u32 name · `fixed` bytes · u8 nattr · attributes.
fn skip_entry(r: &mut Reader, fixed: usize, strings: u32, what: &str) -> Result<(), Error> {
    let at = r.pos;
    let name = r.u32(what)?;
    if name >= strings {
        return Err(decode_error(
            at,
            format!("{what} name index {name} is past the {strings} strings"),
        ));
    }
    r.slice(fixed, what)?;
    let n = r.u8("attribute count")?;
    skip_attributes(r, usize::from(n), strings)
}

/// Reads a kernel body's tables (research §6) and walks its instructions.
fn decode_kernel(
    bytes: &[u8],
    name: String,
    body: std::ops::Range<usize>,
) -> Result<IsaKernel, Error> {
    // Reads stay inside the body.
    let mut r = Reader {
        bytes: &bytes[..body.end],
        pos: body.start,
    };
    let strings = r.u32("string count")?;
    for _ in 0..strings {
        let rest = &r.bytes[r.pos..];
        let len = rest
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| decode_error(r.pos, "string without its NUL terminator"))?;
        r.pos += len + 1;
    }
    let at = r.pos;
    if r.u32("kernel name index")? >= strings {
        return Err(decode_error(at, "kernel name index past the string table"));
    }
    // Variables: u32 name · u8 type/align · u16 elements · u32 alias · u16 alias offset · u8 scope.
    for _ in 0..r.u32("variable count")? {
        skip_entry(&mut r, 1 + 2 + 4 + 2 + 1, strings, "variable")?;
    }
    for _ in 0..r.u16("address count")? {
        skip_entry(&mut r, 2, strings, "address")?;
    }
    for _ in 0..r.u16("predicate count")? {
        skip_entry(&mut r, 2, strings, "predicate")?;
    }
    let labels = r.u16("label count")?;
    for _ in 0..labels {
        skip_entry(&mut r, 1, strings, "label")?;
    }
    for _ in 0..r.u8("sampler count")? {
        skip_entry(&mut r, 2, strings, "sampler")?;
    }
    for _ in 0..r.u8("surface count")? {
        skip_entry(&mut r, 2, strings, "surface")?;
    }
    r.u8("vme count")?;
    // Inputs: u8 kind · u32 variable · i16 offset · u16 size.
    for _ in 0..r.u32("input count")? {
        r.slice(1 + 4 + 2 + 2, "input")?;
    }
    let size_at = r.pos;
    let code_size = r.u32("code size")? as usize;
    let entry = r.u32("code entry")? as usize;
    let n = r.u16("kernel attribute count")?;
    skip_attributes(&mut r, usize::from(n), strings)?;
    let start = body.start.saturating_add(entry);
    let code = span(&bytes[..body.end], size_at, start, code_size, "code")?;
    if entry < r.pos - body.start {
        return Err(decode_error(
            size_at + 4,
            format!("code entry {entry:#x} points into the kernel's tables"),
        ));
    }
    let (instructions, samplers) = walk(&bytes[..code.end], code.start, labels)?;
    Ok(IsaKernel {
        name,
        body_offset: body.start,
        code_offset: code.start,
        instructions,
        samplers,
    })
}

/// Walks the instructions of `code[start..]`. The declared code size counts the full layout,
/// so the stream ends before it (research §6), and what follows the last `ret` is zeros
/// (GenX_IR) or garbage (IGC dumps). So the stream ends at the last non-zero byte, or at a
/// `ret` not followed by the definition (`label`/`func`) of a label of the kernel's table
/// (`labels` entries) not defined yet.
fn walk(code: &[u8], start: usize, labels: u16) -> Result<(usize, Vec<IsaSampler>), Error> {
    let table = isa_table();
    let definitions = [table.code("LABEL"), table.code("SUBROUTINE")];
    let ret = table.code("RET");
    let mut defined = vec![false; usize::from(labels)];
    // The label a definition at `at` would define, if it is a new one of the table.
    let new_label = |at: usize, defined: &[bool]| -> Option<usize> {
        if !definitions.contains(code.get(at)?) {
            return None;
        }
        let id = usize::from(u16::from_le_bytes([*code.get(at + 1)?, *code.get(at + 2)?]));
        defined.get(id).is_some_and(|d| !d).then_some(id)
    };
    let mut r = Reader {
        bytes: code,
        pos: start,
    };
    // The last non-zero byte: an instruction never starts after it.
    let end = code.iter().rposition(|b| *b != 0).map_or(start, |p| p + 1);
    let (mut count, mut samplers) = (0, Vec::new());
    while r.pos < end {
        let at = r.pos;
        let opcode = code[at];
        if definitions.contains(&opcode) {
            let id = new_label(at, &defined).ok_or_else(|| {
                decode_error(
                    at,
                    format!("label definition: not a new label of the kernel's {labels}"),
                )
            })?;
            defined[id] = true;
        }
        if let Some(s) = walk_inst(&mut r)? {
            samplers.push(s);
        }
        count += 1;
        if opcode == ret && new_label(r.pos, &defined).is_none() {
            break;
        }
    }
    Ok((count, samplers))
}

/// Reads one slot.
fn read_slot(r: &mut Reader, enc: SlotEncoding) -> Result<(), Error> {
    match enc {
        SlotEncoding::Exec | SlotEncoding::U8 => r.u8("operand").map(drop),
        SlotEncoding::Pred | SlotEncoding::U16 => r.u16("operand").map(drop),
        SlotEncoding::Raw => r.raw("raw operand").map(drop),
        SlotEncoding::Vector => read_vector(r),
        SlotEncoding::Subopcode => Err(decode_error(r.pos, "sub-opcode operand")),
    }
}

/// Reads a vector operand: tag (bits 2:0 class) · the class's payload; an immediate is a type
/// byte then 8 bytes for 8-byte types, else 4 (research §6).
fn read_vector(r: &mut Reader) -> Result<(), Error> {
    let at = r.pos;
    let tag = r.u8("vector operand tag")?;
    let class = isa_table()
        .vector_class
        .iter()
        .find(|c| c.class == tag & 7)
        .ok_or_else(|| {
            decode_error(
                at,
                format!(
                    "vector operand tag {tag:#04x}: class {} is undefined",
                    tag & 7
                ),
            )
        })?;
    if class.name != "immediate" {
        return r.slice(class.bytes, "vector operand").map(drop);
    }
    let ty_at = r.pos;
    let ty = r.u8("immediate type")? & 0xf;
    let width = tables::type_by_code(ty)
        .map(|t| if t.bytes == 8 { 8 } else { 4 })
        .ok_or_else(|| decode_error(ty_at, format!("immediate type code {ty} is undefined")))?;
    r.slice(width, "immediate value").map(drop)
}

/// Walks one instruction; a sampler instruction comes back decoded.
fn walk_inst(r: &mut Reader) -> Result<Option<IsaSampler>, Error> {
    let table = isa_table();
    let at = r.pos;
    let opcode = r.u8("opcode")?;
    let desc = table.opcode(opcode).ok_or_else(|| {
        decode_error(
            at,
            format!("opcode {opcode:#04x} has no operand descriptor in IGC 12504's table"),
        )
    })?;
    if desc.name.starts_with("RESERVED") {
        return Err(decode_error(
            at,
            format!("opcode {opcode:#04x} is reserved"),
        ));
    }
    let mut slots = table.encodings(desc);
    if slots.contains(&SlotEncoding::Subopcode) {
        return Err(decode_error(
            at,
            format!("opcode {opcode:#04x} ({}) has sub-opcode-dependent operands, which texlate does not walk", desc.name),
        ));
    }
    let k = slots
        .iter()
        .filter(|s| matches!(s, SlotEncoding::Exec | SlotEncoding::Pred))
        .count();
    let Some(opc) = tables::opcode(opcode) else {
        for enc in &slots[..slots.len().saturating_sub(k)] {
            read_slot(r, *enc)?;
        }
        return Ok(None);
    };
    if opc.num_params {
        // dst · numParams · n × raw: n is known only when numParams survived the cut.
        let fixed = slots.len() - 1;
        for enc in &slots[..fixed] {
            read_slot(r, *enc)?;
        }
        let max = tables::tables().limits.max_params;
        let n = match r.bytes.get(r.pos) {
            Some(&b) if usize::from(b) >= k && usize::from(b) <= max => usize::from(b),
            // NumParams < k was cut with the first parameters; NumParams >= 1 makes it k - 1.
            _ => k - 1,
        };
        slots.extend(std::iter::repeat_n(SlotEncoding::Raw, n));
        for enc in &slots[fixed..slots.len() - k] {
            read_slot(r, *enc)?;
        }
        return sampler_fields(r, at, &slots, k, Some(n)).map(Some);
    }
    // 0x70/0x4b: the op's parameters then dst; INFO_3D lists a LOD that only resinfo has.
    let subop = if opc.subop_bytes == 0 {
        0
    } else {
        *r.bytes
            .get(r.pos)
            .ok_or_else(|| decode_error(r.pos, "sub-op: the input ends"))?
    };
    let op = tables::op_by_code(opcode, subop).ok_or_else(|| {
        decode_error(
            r.pos,
            format!("sub-op {subop} is not a {} operation", opc.name),
        )
    })?;
    let raws = slots.iter().filter(|s| **s == SlotEncoding::Raw).count();
    let first_raw = slots
        .iter()
        .position(|s| *s == SlotEncoding::Raw)
        .unwrap_or(slots.len());
    let extra = raws.saturating_sub(op.params.len() + 1);
    slots.drain(first_raw..first_raw + extra);
    for enc in &slots[..slots.len().saturating_sub(k)] {
        read_slot(r, *enc)?;
    }
    sampler_fields(r, at, &slots, k, None).map(Some)
}

/// Decodes the sampler fields of the instruction at `at` (its `slots` read up to the cut) with
/// [`binary::decode_inst`]: the dropped slots are filled in (zero raws; NumParams = `n`) so
/// it can check every field, and then dropped again.
fn sampler_fields(
    r: &Reader,
    at: usize,
    slots: &[SlotEncoding],
    k: usize,
    n: Option<usize>,
) -> Result<IsaSampler, Error> {
    let kept = slots.len() - k;
    let mut full = r.bytes[at..r.pos].to_vec();
    for enc in &slots[kept..] {
        match enc {
            SlotEncoding::Raw => full.extend_from_slice(&[0; 6]),
            _ => full.push(n.unwrap_or(0) as u8),
        }
    }
    let (mut inst, _, _) = binary::decode_inst(&full, 0).map_err(|e| match e {
        Error::Decode(d) => Error::Decode(DecodeError {
            offset: at + d.offset.min(r.pos - at),
            reason: d.reason,
        }),
        other => other,
    })?;
    let kept_raws = slots[..kept]
        .iter()
        .filter(|s| **s == SlotEncoding::Raw)
        .count();
    let (dst_kept, params_kept, num_params) = match n {
        // dst · numParams · params
        Some(n) => {
            let num_params = (slots.len() - 1 - n < kept).then_some(n as u8);
            (kept_raws >= 1, kept_raws.saturating_sub(1), num_params)
        }
        // params · dst
        None => (
            kept_raws > inst.params.len(),
            kept_raws.min(inst.params.len()),
            None,
        ),
    };
    inst.params.truncate(params_kept);
    if !dst_kept {
        inst.dst = Raw::default();
    }
    Ok(IsaSampler {
        offset: at,
        len: r.pos - at,
        inst,
        dst_kept,
        num_params,
        dropped: k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mappings/visa_isa.toml` loads, every slot kind has an encoding, and its sampler
    /// opcodes agree with `mappings/visa.toml` on the predicate and the RET/LABEL names exist.
    #[test]
    fn isa_table_is_consistent() {
        let t = isa_table();
        for op in &t.isa_opcode {
            assert_eq!(t.encodings(op).len(), op.slots.len());
        }
        for opc in &tables::tables().opcodes {
            let desc = t.opcode(opc.code).expect("sampler opcode descriptor");
            let has_pred = t.encodings(desc).contains(&SlotEncoding::Pred);
            assert_eq!(has_pred, opc.pred, "{}", opc.name);
        }
        for name in ["RET", "LABEL", "SUBROUTINE"] {
            t.code(name);
        }
        assert!(t.vector_class.iter().any(|c| c.name == "immediate"));
    }
}
