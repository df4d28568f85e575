//! The vISA binary encoding of the sampler instructions (research §6; little-endian, no
//! padding), in the full layout a fixed writer produces. IGC 12504's own `.isa` writer drops
//! the last operands of every instruction (its loop counts the EXECSIZE/PRED slots); texlate
//! does not copy that bug.
//!
//! ```text
//! 0x6d  op · u16 subop (7:0 sub-op, 8 pixel_null_mask, 9 cps, 10 non-uniform sampler) · exec
//!       · u16 pred · u8 channels · aoffimmi (vector operand: 05 · type · u32, or a general
//!       variable 00 · u32 var · u8 row · u8 col · u16 region) · u8 sampler
//!       · u8 surface · dst raw (u32 var, u16 offset) · u8 numParams · numParams × raw
//! 0x6e  the same without the sampler byte
//! 0x6f  the same as 0x6d; the channel byte is the gathered channel index 0..3
//! 0x70  op · u8 subop · exec · u8 channels · u8 surface · [lod raw, resinfo only] · dst raw
//! 0x4b  op · exec · u16 pred · u8 channels · u8 surface · u raw · v raw · r raw · lod raw · dst raw
//! ```

use crate::error::{DecodeError, Error};

use super::inst::{Aoffimmi, Field, FieldPositions, Raw, Region, VisaInst};
use super::tables::{self, ChannelKind};

/// The vector-operand tag of an immediate with no modifier (class 5, research §6).
const IMMEDIATE_TAG: u8 = 5;
/// Vector operand tag of a general variable without source modifier (class 0, modifier 0).
const GENERAL_TAG: u8 = 0;

/// A bounds-checked little-endian cursor; every read past the end is a [`DecodeError`] at the
/// offset where the read starts.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub(super) fn slice(&mut self, n: usize, what: &str) -> Result<&'a [u8], Error> {
        let bytes = self.bytes;
        match self.pos.checked_add(n).and_then(|e| bytes.get(self.pos..e)) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(decode_error(
                self.pos,
                format!(
                    "{what}: the input ends after {} byte(s), {n} needed",
                    bytes.len().saturating_sub(self.pos)
                ),
            )),
        }
    }
    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Error> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.slice(N, what)?);
        Ok(out)
    }
    pub(super) fn u8(&mut self, what: &str) -> Result<u8, Error> {
        self.take::<1>(what).map(|[b]| b)
    }
    pub(super) fn u16(&mut self, what: &str) -> Result<u16, Error> {
        self.take::<2>(what).map(u16::from_le_bytes)
    }
    pub(super) fn u32(&mut self, what: &str) -> Result<u32, Error> {
        self.take::<4>(what).map(u32::from_le_bytes)
    }
    pub(super) fn raw(&mut self, what: &str) -> Result<Raw, Error> {
        Ok(Raw {
            var: self.u32(what)?,
            offset: self.u16(what)?,
        })
    }
}

pub fn decode_error(offset: usize, reason: impl Into<String>) -> Error {
    Error::Decode(DecodeError {
        offset,
        reason: reason.into(),
    })
}

/// `e` with its byte offset moved on by `by`: the error of an instruction decoded from a part
/// of the input that starts `by` bytes into it.
pub fn shift_error(e: Error, by: usize) -> Error {
    match e {
        Error::Decode(mut d) => {
            d.offset += by;
            Error::Decode(d)
        }
        Error::Validation(mut v) => {
            if let crate::error::Location::Binary { offset } = &mut v.location {
                *offset += by;
            }
            Error::Validation(v)
        }
        other => other,
    }
}

/// The most bytes one instruction takes: opcode, sub-op, exec, predicate, channels, a
/// variable aoffimmi (tag, var, row, column, region), sampler, surface, dst, numParams and
/// 255 parameters.
pub const MAX_INST_BYTES: usize = 1 + 2 + 1 + 2 + 1 + (1 + 4 + 1 + 1 + 2) + 1 + 1 + 6 + 1 + 255 * 6;

/// Decodes one instruction at `bytes[at..]`: the instruction, where its fields are, and
/// the offset after it.
pub fn decode_inst(bytes: &[u8], at: usize) -> Result<(VisaInst, FieldPositions, usize), Error> {
    let (mut inst, mut pos) = (VisaInst::default(), FieldPositions::default());
    let next = decode_inst_into(bytes, at, &mut inst, &mut pos)?;
    Ok((inst, pos, next))
}

/// [`decode_inst`] into `inst` and `pos`, whose vectors are reused (a stream decodes without
/// allocating per instruction). On an error they hold part of the instruction.
pub fn decode_inst_into(
    bytes: &[u8],
    at: usize,
    inst: &mut VisaInst,
    pos: &mut FieldPositions,
) -> Result<usize, Error> {
    let t = tables::tables();
    let mut r = Reader { bytes, pos: at };
    pos.start = at;
    pos.fields.clear();
    inst.params.clear();
    let params = &mut inst.params;
    let opcode = r.u8("opcode")?;
    let opc = tables::opcode(opcode).ok_or_else(|| {
        decode_error(
            at,
            format!("opcode {opcode:#04x} is not a vISA sampler instruction texlate reads (0x6d 0x6e 0x6f 0x70 0x4b)"),
        )
    })?;
    pos.fields.push((Field::SubOp, r.pos));
    pos.fields.push((Field::Modifiers, r.pos));
    let (subop, modifiers) = match opc.subop_bytes {
        0 => (0, 0),
        1 => (r.u8("sub-op")?, 0),
        _ => {
            let v = r.u16("sub-op")?;
            let allowed = tables::modifier_mask(opcode);
            let mods = v & 0xff00;
            if mods & !allowed != 0 {
                return Err(decode_error(
                    at + 1,
                    format!(
                        "sub-op field {v:#06x} sets bits {:#06x}, which {} does not define",
                        mods & !allowed,
                        opc.name
                    ),
                ));
            }
            ((v & 0xff) as u8, mods)
        }
    };
    if tables::op_by_code(opcode, subop).is_none() {
        return Err(decode_error(
            at + 1,
            format!("sub-op {subop} is not a {} operation", opc.name),
        ));
    }
    pos.fields.push((Field::Exec, r.pos));
    let exec = r.u8("exec size")?;
    let exec_size = *t
        .limits
        .exec_sizes
        .get(usize::from(exec & 0xf))
        .ok_or_else(|| {
            decode_error(
                r.pos - 1,
                format!(
                    "exec byte {exec:#04x}: size code {} is not 0..5",
                    exec & 0xf
                ),
            )
        })?;
    let emask = exec >> 4;
    let mut pred = 0;
    if opc.pred {
        pos.fields.push((Field::Pred, r.pos));
        pred = r.u16("predicate")?;
        // Bit 12 is unused, control 3 is undefined, and control or `!` need a predicate.
        if pred & 0x1000 != 0 || (pred >> 13 & 3) == 3 || (pred & 0xfff == 0 && pred != 0) {
            return Err(decode_error(
                r.pos - 2,
                format!("predicate field {pred:#06x} sets reserved bits"),
            ));
        }
    }
    pos.fields.push((Field::Channels, r.pos));
    let channels = r.u8("channels")?;
    let channel_limit = match opc.channel {
        ChannelKind::Mask => 0xf,
        ChannelKind::Index => 3,
    };
    if channels > channel_limit {
        return Err(decode_error(
            r.pos - 1,
            format!("channel byte {channels:#04x} is above {channel_limit:#x}"),
        ));
    }
    let mut aoffimmi = None;
    if opc.aoffimmi {
        pos.fields.push((Field::Aoffimmi, r.pos));
        let tag = r.u8("aoffimmi operand tag")?;
        aoffimmi = Some(match tag {
            IMMEDIATE_TAG => {
                let ty = r.u8("aoffimmi type")?;
                if !tables::type_by_code(ty).is_some_and(|d| d.is_small_int()) {
                    return Err(decode_error(
                        r.pos - 1,
                        format!(
                            "aoffimmi type {ty:#04x} is not an integer type of at most 32 bits"
                        ),
                    ));
                }
                let value = r.u32("aoffimmi value")?;
                Aoffimmi::Imm { value, ty }
            }
            GENERAL_TAG => {
                let var = r.u32("aoffimmi variable")?;
                let row = r.u8("aoffimmi row")?;
                let col = r.u8("aoffimmi column")?;
                let region = Region(r.u16("aoffimmi region")?);
                if region.values().is_none() {
                    return Err(decode_error(
                        r.pos - 2,
                        format!("aoffimmi region {:#06x} holds no region value", region.0),
                    ));
                }
                Aoffimmi::Var {
                    var,
                    row,
                    col,
                    region,
                }
            }
            _ => {
                return Err(decode_error(
                    r.pos - 1,
                    format!(
                        "aoffimmi operand tag {tag:#04x}: the aoffimmi is an immediate (tag \
                         0x05) or a general variable without source modifier (tag 0x00)"
                    ),
                ))
            }
        });
    }
    let mut sampler = None;
    if opc.sampler {
        pos.fields.push((Field::Sampler, r.pos));
        sampler = Some(r.u8("sampler")?);
    }
    pos.fields.push((Field::Surface, r.pos));
    let surface = r.u8("surface")?;
    let op_params = tables::op_by_code(opcode, subop).map_or(0, |o| o.params.len());
    let dst;
    if opc.num_params {
        pos.fields.push((Field::Dst, r.pos));
        dst = r.raw("dst")?;
        pos.fields.push((Field::NumParams, r.pos));
        let n = r.u8("numParams")?;
        // Each parameter is 6 bytes: a count pointing past the input is an error before any
        // allocation.
        let room = (bytes.len() - r.pos) / 6;
        if usize::from(n) > room {
            return Err(decode_error(
                r.pos - 1,
                format!(
                    "numParams {n} needs {} bytes, {} left",
                    usize::from(n) * 6,
                    bytes.len() - r.pos
                ),
            ));
        }
        params.reserve(usize::from(n));
        for i in 0..usize::from(n) {
            pos.fields.push((Field::Param(i), r.pos));
            params.push(r.raw("parameter")?);
        }
    } else {
        for i in 0..op_params {
            pos.fields.push((Field::Param(i), r.pos));
            params.push(r.raw("operand")?);
        }
        pos.fields.push((Field::Dst, r.pos));
        dst = r.raw("dst")?;
    }
    *inst = VisaInst {
        opcode,
        subop,
        modifiers,
        exec_size,
        emask,
        pred,
        channels,
        aoffimmi,
        sampler,
        surface,
        dst,
        params: std::mem::take(&mut inst.params),
    };
    Ok(r.pos)
}

/// Encodes one instruction in the full layout.
pub fn encode_inst(inst: &VisaInst, out: &mut Vec<u8>) -> Result<(), String> {
    let t = tables::tables();
    let opc = tables::opcode(inst.opcode).ok_or("unknown opcode")?;
    let size_code = t
        .limits
        .exec_sizes
        .iter()
        .position(|s| *s == inst.exec_size)
        .ok_or_else(|| format!("exec size {} has no encoding", inst.exec_size))?;
    out.push(inst.opcode);
    match opc.subop_bytes {
        0 => {}
        1 => out.push(inst.subop),
        _ => out.extend_from_slice(&(u16::from(inst.subop) | inst.modifiers).to_le_bytes()),
    }
    out.push(size_code as u8 | (inst.emask & 0xf) << 4);
    if opc.pred {
        out.extend_from_slice(&inst.pred.to_le_bytes());
    }
    out.push(inst.channels);
    if opc.aoffimmi {
        match inst.aoffimmi.ok_or("missing aoffimmi")? {
            Aoffimmi::Imm { value, ty } => {
                out.push(IMMEDIATE_TAG);
                out.push(ty);
                out.extend_from_slice(&value.to_le_bytes());
            }
            Aoffimmi::Var {
                var,
                row,
                col,
                region,
            } => {
                out.push(GENERAL_TAG);
                out.extend_from_slice(&var.to_le_bytes());
                out.push(row);
                out.push(col);
                out.extend_from_slice(&region.0.to_le_bytes());
            }
        }
    }
    if opc.sampler {
        out.push(inst.sampler.ok_or("missing sampler")?);
    }
    out.push(inst.surface);
    let raw = |out: &mut Vec<u8>, r: &Raw| {
        out.extend_from_slice(&r.var.to_le_bytes());
        out.extend_from_slice(&r.offset.to_le_bytes());
    };
    if opc.num_params {
        raw(out, &inst.dst);
        out.push(u8::try_from(inst.params.len()).map_err(|_| "more than 255 parameters")?);
        inst.params.iter().for_each(|p| raw(out, p));
    } else {
        inst.params.iter().for_each(|p| raw(out, p));
        raw(out, &inst.dst);
    }
    Ok(())
}
