//! align_regs: operands where the target reads them, with the fewest moves (DESIGN.md §4).
//!
//! Rule: for every register operand the target reads or writes as one unit
//! (`Codec::register_groups`: NVIDIA's Ra/Rb/Rd vectors, consecutive and aligned; DX vector
//! operands, components of one register; vISA results, channel blocks of one variable), an
//! operand already laid out so needs nothing. Otherwise its scalars go into a fresh virtual
//! vector — sources moved in before the instruction, results moved out after it — that
//! `assign_temps` places with the layout's constraint. Immediates where the target takes
//! registers (vISA parameters: "immediates must be moved into a variable first") are moved
//! into fresh scalars likewise, and so are the immediate sources of ALU instructions on a
//! target whose ALU reads registers only (NVIDIA: only `MOV32I` takes one).

use super::{expand_tex, virtual_reg, Expansion, PassContext};
use crate::error::Error;
use crate::hash::FastMap;
use crate::ir::layout::{GroupLayout, Operand, RegGroup};
use crate::ir::{
    AluOp, Imm, Item, Lod, Offset, Reg, RegFile, ResRef, Scalar, ScalarType, TexInstr, TexOp,
};
use crate::mappings::targets::RegisterModel;

/// The scalar operand `op` of `t`, if it has one.
pub fn operand_mut(t: &mut TexInstr, op: Operand) -> Option<&mut Scalar> {
    match op {
        Operand::Coord(i) => t.coord.get_mut(i as usize),
        Operand::ArrayIndex => t.array_index.as_mut(),
        Operand::ArrayOffset => match (&mut t.array_index, &mut t.offset) {
            (Some(a), Offset::None) => Some(a),
            (None, Offset::Packed(o)) => Some(o),
            _ => None,
        },
        Operand::MinLod => t.min_lod.as_mut(),
        Operand::Lod => match &mut t.lod {
            Lod::Bias(s) | Lod::Level(s) => Some(s),
            _ => None,
        },
        Operand::GradDx(i) => match &mut t.lod {
            Lod::Grad { dx, .. } => dx.get_mut(i as usize),
            _ => None,
        },
        Operand::GradDy(i) => match &mut t.lod {
            Lod::Grad { dy, .. } => dy.get_mut(i as usize),
            _ => None,
        },
        Operand::DepthRef => t.depth_ref.as_mut(),
        Operand::Offset(i) => match &mut t.offset {
            Offset::Packed(s) if i == 0 => Some(s),
            Offset::Dynamic(v) | Offset::PerTexel(v) => v.get_mut(i as usize),
            _ => None,
        },
        Operand::SampleIndex => t.sample_index.as_mut(),
        Operand::Handle => match &mut t.texture {
            ResRef::Handle(s) => Some(s),
            _ => None,
        },
        Operand::Dst(c) => t.dst.get_mut(c as usize).and_then(Option::as_mut),
    }
}

/// Whether `scalars` already lie as `layout` asks.
fn laid_out(layout: GroupLayout, scalars: &[Scalar], virtuals: &FastMap<u32, GroupLayout>) -> bool {
    let regs: Vec<Reg> = scalars
        .iter()
        .filter_map(|s| match s {
            Scalar::Reg(r) => Some(*r),
            _ => None,
        })
        .collect();
    match layout {
        GroupLayout::Consecutive { align } => {
            if scalars.iter().all(|s| *s == Scalar::Zero) {
                return true;
            }
            if regs.len() != scalars.len() {
                return false;
            }
            let first = regs[0];
            let consecutive = |key: fn(&Reg) -> u32| {
                regs.iter()
                    .enumerate()
                    .all(|(k, r)| r.file == first.file && key(r) == key(&first) + k as u32)
            };
            match first.file {
                RegFile::Temp => {
                    consecutive(|r| r.index)
                        && regs.iter().all(|r| r.sub == 0)
                        && first.index % align.max(1) == 0
                }
                // A virtual vector of this layout, its elements in order from 0.
                RegFile::Virtual => {
                    first.sub == 0
                        && regs.iter().all(|r| r.index == first.index)
                        && consecutive(|r| r.sub)
                        && virtuals.get(&first.index) == Some(&layout)
                }
                _ => false,
            }
        }
        GroupLayout::OneRegister => {
            if scalars.iter().all(|s| matches!(s, Scalar::Imm(_))) {
                return true;
            }
            regs.len() == scalars.len()
                && regs.iter().all(|r| {
                    (r.file, r.index) == (regs[0].file, regs[0].index) && r.file != RegFile::Virtual
                })
        }
        GroupLayout::ChannelBlocks { stride } => {
            regs.len() == scalars.len()
                && regs.iter().enumerate().all(|(k, r)| {
                    r.file == RegFile::Temp
                        && r.index == regs[0].index
                        && r.sub == regs[0].sub + k as u32 * stride
                })
        }
    }
}

/// The type a vISA variable holding operand `op` of `t` is declared with.
fn operand_type(t: &TexInstr, op: Operand) -> ScalarType {
    match op {
        Operand::Dst(_) => t.result_type.unwrap_or(ScalarType::F32),
        Operand::SampleIndex | Operand::Offset(_) | Operand::Handle | Operand::ArrayOffset => {
            ScalarType::U32
        }
        _ if matches!(t.op, TexOp::Fetch | TexOp::FetchMcs | TexOp::QuerySize) => ScalarType::U32,
        _ => t.coord_type.unwrap_or(ScalarType::F32),
    }
}

/// The value a parameter of a target whose parameters are variables (vISA) must be moved in
/// from: an immediate itself, a zero register as 0 of the parameter's type `ty`.
fn immediate_value(s: Scalar, ty: ScalarType) -> Option<Scalar> {
    match s {
        Scalar::Imm(_) => Some(s),
        Scalar::Zero => Some(Scalar::Imm(Imm { bits: 0, ty })),
        Scalar::Reg(_) => None,
    }
}

/// Moves the immediate sources of ALU instructions other than moves into registers, for a
/// target whose ALU reads registers only (`TargetCaps::alu_immediates`).
fn alu_immediates(items: Vec<Item>, ctx: &mut PassContext) -> Vec<Item> {
    if ctx.target.caps.alu_immediates {
        return items;
    }
    let mut out = Vec::with_capacity(items.len());
    for mut item in items {
        if let Item::Alu(a) = &mut item {
            if a.op != AluOp::Mov {
                let lanes = a.op.lane_operand();
                for (i, s) in a.srcs.iter_mut().enumerate() {
                    if lanes == Some(i) {
                        continue;
                    }
                    if let Scalar::Imm(imm) = *s {
                        let tmp = ctx.new_virtual_scalar(imm.ty);
                        out.push(ctx.alu(AluOp::Mov, tmp, vec![*s], a.span));
                        *s = tmp;
                    }
                }
            }
        }
        out.push(item);
    }
    out
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    let items = alu_immediates(items, ctx);
    let byte_vars = ctx.target.caps.register_model == RegisterModel::ByteVariables;
    expand_tex(items, |mut t| {
        let mut before = Vec::new();
        let mut after = Vec::new();
        let groups: Vec<RegGroup> = (ctx.target.groups)(&t)?;
        for g in &groups {
            let mut scalars = Vec::with_capacity(g.operands.len());
            for op in &g.operands {
                match operand_mut(&mut t, *op) {
                    Some(s) => scalars.push(*s),
                    // A result channel the target writes although the source does not
                    // want it (a vISA gather returns all four): written to a temporary
                    // nobody reads.
                    None if matches!(op, Operand::Dst(_)) => scalars.push(Scalar::Zero),
                    None => {
                        return Err(ctx.unsupported(
                            &format!("operand {op:?} of `{}`", t.op),
                            &format!(
                                "the target's {} operand needs it and the IR has none",
                                g.name
                            ),
                            t.span,
                        ))
                    }
                }
            }
            if laid_out(g.layout, &scalars, &ctx.virtual_layouts) {
                continue;
            }
            let v = ctx.new_virtual();
            ctx.virtual_layouts.insert(v, g.layout);
            let mut moved = 0;
            for (k, op) in g.operands.iter().enumerate() {
                let tmp = virtual_reg(v, k as u32);
                ctx.virtual_types
                    .insert((v, k as u32), operand_type(&t, *op));
                let original = scalars[k];
                match (operand_mut(&mut t, *op), op) {
                    (Some(s), _) => *s = tmp,
                    (None, Operand::Dst(c)) => t.dst[*c as usize] = Some(tmp),
                    (None, _) => {}
                }
                if matches!(op, Operand::Dst(_)) {
                    if original != Scalar::Zero {
                        after.push(ctx.alu_after(&t, AluOp::Mov, original, vec![tmp]));
                        moved += 1;
                    }
                } else {
                    before.push(ctx.alu(AluOp::Mov, tmp, vec![original], t.span));
                    moved += 1;
                }
            }
            ctx.note(
                t.span,
                "align_regs",
                format!("{} laid out with {moved} move(s)", g.name),
            );
        }
        if byte_vars {
            // Immediate per-pixel offsets (`sample4_po`'s offu/offv, D or UD: an integer
            // type of their own, whatever the coordinates' type) into an integer variable.
            let ty = operand_type(&t, Operand::Offset(0));
            if let Offset::Dynamic(v) = &mut t.offset {
                if v.iter().any(|s| immediate_value(*s, ty).is_some()) {
                    let var = ctx.new_virtual();
                    let Offset::Dynamic(v) = &mut t.offset else {
                        unreachable!("matched above")
                    };
                    let mut k = 0;
                    for s in v.iter_mut() {
                        let Some(value) = immediate_value(*s, ty) else {
                            continue;
                        };
                        let dst = virtual_reg(var, k);
                        ctx.virtual_types.insert((var, k), ty);
                        before.push(ctx.alu(AluOp::Mov, dst, vec![value], t.span));
                        *s = dst;
                        k += 1;
                    }
                    ctx.virtual_layouts
                        .insert(var, GroupLayout::Consecutive { align: 1 });
                }
            }
            // Every other parameter is its own raw operand: immediates into variables, and
            // so is a zero register (NVIDIA `RZ`) the sampler reads: vISA's `%null` in a
            // parameter the surface uses is undefined, not 0 (research: "treat them as
            // unknown, never as 0"), so the 0 is moved into a variable of the parameter's type.
            let ty = operand_type(&t, Operand::Coord(0));
            let mut count = 0;
            t.for_each_source(|s| count += usize::from(immediate_value(*s, ty).is_some()));
            if count > 0 {
                let mut k = 0;
                let v = ctx.new_virtual();
                let mut moves = Vec::new();
                t.for_each_source_mut(|s| {
                    if let Some(value) = immediate_value(*s, ty) {
                        moves.push((virtual_reg(v, k), value));
                        *s = virtual_reg(v, k);
                        k += 1;
                    }
                });
                for (k, (dst, src)) in moves.into_iter().enumerate() {
                    ctx.virtual_types.insert((v, k as u32), ty);
                    before.push(ctx.alu(AluOp::Mov, dst, vec![src], t.span));
                }
                ctx.virtual_layouts
                    .insert(v, GroupLayout::Consecutive { align: 1 });
                ctx.note(
                    t.span,
                    "align_regs",
                    format!("{k} immediate parameter(s) moved into variables"),
                );
            }
        }
        if before.is_empty() && after.is_empty() {
            return Ok(Expansion::Keep(t));
        }
        before.push(Item::Tex(t));
        before.extend(after);
        Ok(before.into())
    })
}
