//! [`Codec::constants`](crate::isa::Codec::constants) for DXBC: the temp components the
//! stream before each texture instruction set to a constant (`mov r2.x, l(0)` feeding the
//! LOD of `sample_l`), from token streams and listings alike (a listing's instruction lines
//! carry their tokens).
//!
//! `mov rN.mask, l(a, b, c, d)` (no saturate, no operand modifier) sets each written
//! component to its immediate (a scalar `l(a)` to `a`); a `mov` from temp components known
//! to hold constants copies them. Every other instruction forgets the components its
//! destination operands write (the opcode's destination count and each operand's write
//! mask, `mappings/dxbc.toml`); flow control (`flow_control_ops`) and instructions the
//! tables do not lay out forget everything; a texture instruction forgets its destinations.

use super::tables::{tables, Layout};
use super::tokens::{self, Instruction, Operand};
use crate::ir::{Item, Program, Reg, RegFile, Scalar};
use crate::isa::constants::Known;

/// Temp components: (`rN`, component 0..3).
type Temps = Known<(u32, u8)>;

/// The temp register and write mask of a destination operand (all four components when
/// the operand shows no mask).
fn dst_temp(o: &Operand) -> Option<(u32, u8)> {
    if o.ty != tables().codes.temp {
        return None;
    }
    let index = u32::try_from(o.first_index()?).ok()?;
    let mask = match o.mask() {
        0 => 0xf,
        m => m,
    };
    Some((index, mask))
}

/// The value a `mov` source gives to lane `lane`, when known.
fn source_value(known: &Temps, src: &Operand, lane: usize) -> Option<u32> {
    if src.modifier() != 0 {
        return None;
    }
    let codes = &tables().codes;
    if src.ty == codes.imm32 {
        return match src.imm.as_slice() {
            [v] => Some(*v),
            vs => vs.get(lane).copied(),
        };
    }
    if src.ty == codes.temp {
        let index = u32::try_from(src.first_index()?).ok()?;
        return known.get((index, src.component(lane)));
    }
    None
}

/// What one non-texture instruction does.
fn step(known: &mut Temps, instr: &Instruction) {
    let t = tables();
    let Some(op) = t.op(instr.opcode) else {
        known.kill_all();
        return;
    };
    if t.file
        .flow_control_ops
        .iter()
        .any(|n| t.opcode(n) == Some(instr.opcode))
    {
        known.kill_all();
        return;
    }
    match op.layout {
        Layout::Decl(_) => return,
        Layout::Raw => {
            known.kill_all();
            return;
        }
        Layout::Operands => {}
    }
    let is_move = t.opcode(&t.file.constant_move) == Some(instr.opcode);
    if is_move && !instr.saturate() && instr.operands.len() == 2 {
        if let Some((index, mask)) = dst_temp(&instr.operands[0]) {
            let src = &instr.operands[1];
            let values: Vec<(u8, Option<u32>)> = (0..4u8)
                .filter(|c| mask & (1 << c) != 0)
                .map(|c| (c, source_value(known, src, usize::from(c))))
                .collect();
            for (c, v) in values {
                match v {
                    Some(v) => known.set((index, c), v),
                    None => known.kill((index, c)),
                }
            }
            return;
        }
    }
    for o in instr.operands.iter().take(op.dst_types.len()) {
        if let Some((index, mask)) = dst_temp(o) {
            for c in (0..4u8).filter(|c| mask & (1 << c) != 0) {
                known.kill((index, c));
            }
        }
    }
}

/// For each texture instruction of `program`, the temp components holding known constants.
pub fn constants(program: &Program) -> Vec<Vec<(Reg, u32)>> {
    let mut known = Temps::default();
    let mut out = Vec::new();
    for item in &program.items {
        match item {
            Item::Tex(t) => {
                out.push(
                    known
                        .iter()
                        .map(|((index, c), v)| {
                            let reg = Reg {
                                file: RegFile::Temp,
                                index,
                                sub: u32::from(c),
                            };
                            (reg, v)
                        })
                        .collect(),
                );
                for d in t.dsts() {
                    if let Scalar::Reg(r) = d {
                        if r.file == RegFile::Temp {
                            known.kill((r.index, r.sub as u8));
                        }
                    }
                }
            }
            Item::Opaque(o) => step_opaque(&mut known, o),
            // An ALU instruction the codec read back steps as the instructions it was read
            // from.
            Item::Alu(a) => match a.source(crate::ir::Isa::Dxbc) {
                Some(items) => items.iter().for_each(|o| step_opaque(&mut known, o)),
                None => known.kill_all(),
            },
            Item::Comment(_) => known.kill_all(),
        }
    }
    out
}

/// One source item that is not a texture instruction: its token instructions, decoded (a
/// listing line without tokens changes nothing).
fn step_opaque(known: &mut Temps, o: &crate::ir::Opaque) {
    if o.bytes.is_empty() {
        return;
    }
    let decoded = tokens::dwords(&o.bytes, o.span.offset)
        .ok()
        .and_then(|w| tokens::decode_instructions(&w).ok());
    match decoded {
        Some(instrs) => instrs.iter().for_each(|(_, i)| step(known, i)),
        None => known.kill_all(),
    }
}
