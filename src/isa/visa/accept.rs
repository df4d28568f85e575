//! Accepting instructions without the whole path's work, for the identity transcodes: an
//! accepted instruction is one the whole path reads and writes back exactly as it is, so
//! the stream copies it; anything else (a refused instruction, or one the whole path would
//! change) is answered "not accepted" and goes the whole path's way, which makes its output
//! or its error, so that answer is never wrong, only slower.
//!
//! Instruction streams ([`Acceptor`]): binary → binary copies each instruction that decodes,
//! passes [`super::validate::check`] with no declared types, and lifts back unchanged
//! ([`super::lift::lifts_back_untyped`]); its work is to find exactly those.
//!
//! [`Acceptor`] holds, per opcode and per op, what each field may be, read once from
//! `mappings/visa.toml`: the layout [`super::binary::decode_inst_into`] reads, the values it
//! refuses, and the rules `validate::check` applies to an undeclared instruction. One pass
//! over the bytes with no allocation and no field positions says whether the instruction is
//! one of those and how long it is. It answers `None` for everything else, which the caller
//! then decodes and checks in full.
//! `accepts_what_the_full_path_accepts` below checks the two agree on random instructions.
//!
//! `.visaasm` lines ([`accept_line`]): a sampler line that parses, passes the checks and
//! lifts back ([`super::lift::lifts_back`]) prints back as it was read, byte for byte.

use super::inst::{cps_bit, Aoffimmi, Checks, FieldPositions, Region, VisaInst};
use super::names::Scope;
use super::tables::{self, ChannelKind};
use super::text;

/// Whether sampler line `line` (number `no`, outside a block comment) prints back exactly
/// as it is: it parses ([`text::parse_into`], into the reused `inst` and `positions`),
/// passes the checks as [`super::read_line`] applies them, and lift and emit give its
/// instruction back ([`super::lift::lifts_back`], with the declared types). The whole path
/// keeps such a line's layout (indentation, the instruction as written when that is not
/// IGC's spelling, the gap, the comment, trailing whitespace) and prints the instruction it
/// gets back in it, which puts back every byte of the line. `false` for any other line,
/// also a line of another kind.
pub(super) fn accept_line(
    line: &str,
    no: u32,
    scope: &Scope,
    checks: Checks,
    inst: &mut VisaInst,
    positions: &mut FieldPositions,
) -> bool {
    if !matches!(
        text::parse_into(line, no, scope, inst, positions),
        Ok(Some(_))
    ) {
        return false;
    }
    let checked = super::check_read(inst, positions, (no, line), scope, checks, &mut None);
    checked.is_ok() && super::lift::lifts_back(inst, &|v| scope.var_type(v))
}

/// What one opcode's instructions may hold.
struct OpcodeRule {
    subop_bytes: u8,
    pred: bool,
    aoffimmi: bool,
    sampler: bool,
    num_params: bool,
    /// Bit `c` set: exec size code `c` (bits 3:0 of the exec byte) names a size the opcode
    /// takes (decode: an index into `limits.exec_sizes`; validate: one of the opcode's).
    exec_codes: u16,
    /// Bit `v` set: channel byte `v` is accepted (a mask: 1..=15, validate refuses 0; an
    /// index: 0..=3).
    channels: u16,
    /// The op of each sub-op: an index into [`Acceptor::ops`] plus one (0: no op).
    ops: [u8; 256],
}

/// What one op's instructions may hold.
struct OpRule {
    /// The modifier bits allowed: the opcode's, without `.cps` where the op takes none.
    modifiers: u16,
    /// Raw operands before the destination of a fixed-operand opcode.
    fixed_params: usize,
    /// Whether NumParams `n` passes the `num-params` rule (the most is the op's parameter
    /// order, the 16-bit-MCS form's when more parameters than the 32-bit form's are given).
    counts: [bool; 256],
}

/// The acceptance tables.
pub(super) struct Acceptor {
    opcodes: Vec<Option<OpcodeRule>>,
    ops: Vec<OpRule>,
    /// Aoffimmi immediate type codes that are integers of at most 32 bits.
    imm_types: [bool; 256],
    /// The largest element column of a variable aoffimmi that lifts back (`col × element <
    /// GRF`) plus one.
    var_cols: u16,
    /// Raw operand offsets are multiples of this (the GRF).
    grf: u32,
    /// `grf - 1` when the GRF is a power of two (a multiple of it has none of these bits).
    grf_mask: Option<u32>,
}

/// The vector-operand tag of an immediate aoffimmi (see `binary`).
const IMMEDIATE_TAG: u8 = 5;
/// The vector-operand tag of a general-variable aoffimmi.
const GENERAL_TAG: u8 = 0;

impl Acceptor {
    /// The tables, built once.
    pub(super) fn get() -> &'static Acceptor {
        static ACCEPTOR: std::sync::OnceLock<Acceptor> = std::sync::OnceLock::new();
        ACCEPTOR.get_or_init(Acceptor::new)
    }

    fn new() -> Acceptor {
        let t = tables::tables();
        let lim = &t.limits;
        let mut ops = Vec::new();
        let mut opcodes: Vec<Option<OpcodeRule>> = (0..256).map(|_| None).collect();
        for code in 0..=255u8 {
            let Some(opc) = tables::opcode(code) else {
                continue;
            };
            let mut exec_codes = 0;
            for (c, size) in lim.exec_sizes.iter().enumerate().take(16) {
                if opc.exec_sizes.contains(size) {
                    exec_codes |= 1 << c;
                }
            }
            let channels = match opc.channel {
                ChannelKind::Mask => 0xfffe,
                ChannelKind::Index => 0xf,
            };
            let mut rule = OpcodeRule {
                subop_bytes: opc.subop_bytes,
                pred: opc.pred,
                aoffimmi: opc.aoffimmi,
                sampler: opc.sampler,
                num_params: opc.num_params,
                exec_codes,
                channels,
                ops: [0; 256],
            };
            for subop in 0..=255u8 {
                let Some(op) = tables::op_by_code(code, subop) else {
                    continue;
                };
                let mut modifiers = tables::modifier_mask(code);
                if !op.cps {
                    modifiers &= !cps_bit();
                }
                let mut counts = [false; 256];
                for (n, ok) in counts.iter_mut().enumerate() {
                    // validate::check with no declared types: `ms_form` is the 16-bit form
                    // when more parameters are given than the 32-bit form has.
                    let wide = op.params_w.is_empty() || n > op.params.len();
                    let most = lim.max_params.min(op.param_order(wide).len());
                    *ok = (lim.min_params..=most).contains(&n);
                }
                ops.push(OpRule {
                    modifiers,
                    fixed_params: op.params.len(),
                    counts,
                });
                rule.ops[usize::from(subop)] = u8::try_from(ops.len()).unwrap_or(0);
            }
            opcodes[usize::from(code)] = Some(rule);
        }
        let mut imm_types = [false; 256];
        for (code, ok) in imm_types.iter_mut().enumerate() {
            *ok = tables::type_by_code(code as u8).is_some_and(|d| d.is_small_int());
        }
        let var_cols = (0..=255u8)
            .take_while(|&col| {
                super::lift::lifts_back_untyped(&VisaInst {
                    aoffimmi: Some(Aoffimmi::Var {
                        var: 0,
                        row: 0,
                        col,
                        region: Region::SCALAR,
                    }),
                    ..VisaInst::default()
                })
            })
            .count() as u16;
        Acceptor {
            opcodes,
            ops,
            imm_types,
            var_cols,
            grf: lim.grf_bytes,
            grf_mask: lim.grf_bytes.is_power_of_two().then(|| lim.grf_bytes - 1),
        }
    }

    /// The length of the instruction `bytes` starts with, when it is accepted and lifts
    /// back unchanged; `None` otherwise (decode it in full).
    pub(super) fn accept(&self, bytes: &[u8]) -> Option<usize> {
        let mut r = Bytes { bytes, pos: 0 };
        let opc = self.opcodes[usize::from(r.u8()?)].as_ref()?;
        let (subop, modifiers) = match opc.subop_bytes {
            0 => (0, 0),
            1 => (r.u8()?, 0),
            _ => {
                let v = r.u16()?;
                ((v & 0xff) as u8, v & 0xff00)
            }
        };
        let op = &self.ops[usize::from(opc.ops[usize::from(subop)]).checked_sub(1)?];
        if modifiers & !op.modifiers != 0 || opc.exec_codes >> (r.u8()? & 0xf) & 1 == 0 {
            return None;
        }
        if opc.pred {
            // Bit 12 unused, control 3 undefined, control or `!` without a predicate.
            let pred = r.u16()?;
            if pred & 0x1000 != 0 || pred >> 13 & 3 == 3 || (pred & 0xfff == 0 && pred != 0) {
                return None;
            }
        }
        let channels = r.u8()?;
        if channels > 15 || opc.channels >> channels & 1 == 0 {
            return None;
        }
        if opc.aoffimmi {
            match r.u8()? {
                IMMEDIATE_TAG => {
                    let ty = r.u8()?;
                    if !self.imm_types[usize::from(ty)] || r.u32()? > 0xfff {
                        return None;
                    }
                }
                GENERAL_TAG => {
                    r.skip(5)?;
                    let col = r.u8()?;
                    if u16::from(col) >= self.var_cols || r.u16()? != Region::SCALAR.0 {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        r.skip(usize::from(opc.sampler) + 1)?;
        let raws = if opc.num_params {
            self.raws(&mut r, 1)?;
            let n = r.u8()?;
            op.counts[usize::from(n)].then_some(usize::from(n))?
        } else {
            op.fixed_params + 1
        };
        self.raws(&mut r, raws)?;
        Some(r.pos)
    }

    /// Reads `n` raw operands (u32 variable, u16 offset) whose offsets are GRF-aligned.
    #[inline]
    fn raws(&self, r: &mut Bytes, n: usize) -> Option<()> {
        let raws = r.bytes.get(r.pos..r.pos + n * 6)?;
        r.pos += n * 6;
        let mut offsets = raws
            .chunks_exact(6)
            .map(|c| u32::from(u16::from_le_bytes([c[4], c[5]])));
        let aligned = match self.grf_mask {
            Some(mask) => offsets.fold(0, |or, o| or | o) & mask == 0,
            None => offsets.all(|o| o % self.grf == 0),
        };
        aligned.then_some(())
    }
}

/// A little-endian cursor whose reads past the end are `None`.
struct Bytes<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = self.bytes.get(self.pos..self.pos + N)?;
        self.pos += N;
        b.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn skip(&mut self, n: usize) -> Option<()> {
        self.pos += n;
        (self.pos <= self.bytes.len()).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::binary::{decode_inst_into, encode_inst};
    use super::super::inst::{Checks, FieldPositions, Raw};
    use super::super::{lift, validate};
    use super::*;

    use crate::rng::Rng;

    /// What the full path says of `bytes`: the length of its first instruction when it
    /// decodes, passes the undeclared checks and lifts back unchanged.
    fn full(bytes: &[u8]) -> Option<usize> {
        let (mut inst, mut pos) = (VisaInst::default(), FieldPositions::default());
        let next = decode_inst_into(bytes, 0, &mut inst, &mut pos).ok()?;
        validate::check(&inst, Checks::Strict, &|_| None).ok()?;
        lift::lifts_back_untyped(&inst).then_some(next)
    }

    /// A random instruction of a random op, fields mostly in range, encoded.
    fn instruction(rng: &mut Rng) -> Vec<u8> {
        let t = tables::tables();
        let op = &t.ops[rng.below(t.ops.len())];
        let opc = op.opcode_desc();
        let raw = |rng: &mut Rng| Raw {
            var: rng.below(64) as u32,
            offset: match rng.below(8) {
                0 => rng.next() as u16,
                _ => (rng.below(8) * 32) as u16,
            },
        };
        let n = match rng.below(4) {
            0 => rng.below(20),
            _ => 1 + rng.below(op.max_params().max(1)),
        };
        let inst = VisaInst {
            opcode: op.opcode,
            subop: op.subop,
            modifiers: match rng.below(2) {
                0 => 0,
                _ => (rng.below(8) as u16) << 8,
            },
            exec_size: match rng.below(2) {
                0 => opc.exec_sizes[0],
                _ => t.limits.exec_sizes[rng.below(t.limits.exec_sizes.len())],
            },
            emask: rng.below(16) as u8,
            pred: match rng.below(4) {
                0 => rng.next() as u16,
                1 => 1 + rng.below(7) as u16,
                _ => 0,
            },
            channels: match (rng.below(4), opc.channel) {
                (0, _) => rng.next() as u8,
                (_, ChannelKind::Index) => rng.below(4) as u8,
                _ => 1 + rng.below(15) as u8,
            },
            aoffimmi: opc.aoffimmi.then(|| match rng.below(3) {
                0 => Aoffimmi::Var {
                    var: 40,
                    row: rng.next() as u8,
                    col: rng.below(20) as u8,
                    region: match rng.below(3) {
                        0 => Region(rng.next() as u16),
                        _ => Region::SCALAR,
                    },
                },
                _ => Aoffimmi::Imm {
                    value: match rng.below(3) {
                        0 => rng.next() as u32,
                        _ => rng.below(0x1000) as u32,
                    },
                    ty: rng.below(12) as u8,
                },
            }),
            sampler: opc.sampler.then(|| rng.next() as u8),
            surface: rng.next() as u8,
            dst: raw(rng),
            params: (0..if opc.num_params { n } else { op.params.len() })
                .map(|_| raw(rng))
                .collect(),
        };
        let mut out = Vec::new();
        encode_inst(&inst, &mut out).expect("encodes");
        out
    }

    /// The fast answer is the full path's on random instructions, on the same with random
    /// bytes changed, and on every cut of them.
    #[test]
    fn accepts_what_the_full_path_accepts() {
        let acceptor = Acceptor::get();
        let mut rng = Rng(0x00ac_ce97);
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..100_000 {
            let mut bytes = instruction(&mut rng);
            if rng.below(3) == 0 {
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(bytes.len());
                    bytes[at] = rng.next() as u8;
                }
            }
            let want = full(&bytes);
            assert_eq!(acceptor.accept(&bytes), want, "{bytes:02x?}");
            if want.is_some() {
                accepted += 1;
            } else {
                refused += 1;
            }
            let cut = rng.below(bytes.len() + 1);
            assert_eq!(acceptor.accept(&bytes[..cut]), full(&bytes[..cut]), "cut");
        }
        assert!(accepted > 5_000 && refused > 5_000, "{accepted} {refused}");
    }
}
