//! map_regs: every source register to its target register (DESIGN.md §4).
//!
//! Rule: the user's `--regmap` entries first; then the defaults, one register model to the
//! other (`TargetCaps::register_model`), chosen so that the three ISAs line up:
//! DX `rN.c` ↔ NVIDIA `R(4N+c)` ↔ vISA variable `V(32+N)` at byte `c × stride`, where the
//! stride is one channel block of the target's SIMD width (each returned channel starts a
//! new GRF, seeds/visa-3D_SAMPLE.md). Registers of other files (DX inputs and outputs,
//! NVIDIA predicates) and vISA variables of a vISA source are given the next free target
//! registers after those, in order of first use: a vISA variable becomes one DX register or
//! one aligned block of four NVIDIA registers, its channel blocks the components. A vISA
//! variable that aliases another's storage is mapped as its root variable at its offset,
//! so both names of one storage land in one target register.

use std::collections::BTreeSet;

use super::PassContext;
use crate::error::Error;
use crate::ir::{AluOp, Item, Reg, RegFile, Scalar, ScalarType, TexInstr, TexOp, Variable};
use crate::mappings::targets::RegisterModel;

/// Bytes between channel blocks of a vISA operand of `simd` 32-bit lanes.
pub fn channel_stride(simd: u8, grf_bytes: u32) -> u32 {
    (u32::from(simd) * 4).max(grf_bytes)
}

/// vISA type name of a scalar type.
pub fn visa_type(ty: Option<ScalarType>) -> &'static str {
    match ty {
        Some(ScalarType::U32 | ScalarType::U16) => "ud",
        Some(ScalarType::I32 | ScalarType::I16) => "d",
        Some(ScalarType::F16) => "hf",
        _ => "f",
    }
}

/// Source registers in order of first use, each with the exec width that reads it, the type
/// it is used as and where; a register first seen without a type takes the type of its first
/// typed use.
#[derive(Default)]
struct Uses {
    order: Vec<(Reg, u32, Option<ScalarType>, crate::ir::Span)>,
    position: crate::hash::FastMap<Reg, usize>,
}

impl Uses {
    fn note(&mut self, r: Reg, stride: u32, ty: Option<ScalarType>, span: crate::ir::Span) {
        match self.position.get(&r) {
            Some(&i) => {
                let known = &mut self.order[i].2;
                if known.is_none() {
                    *known = ty;
                }
            }
            None => {
                self.position.insert(r, self.order.len());
                self.order.push((r, stride, ty, span));
            }
        }
    }
}

/// The types an ALU op reads and writes (`None`: a bit copy, any type).
fn alu_types(op: AluOp) -> (Option<ScalarType>, Option<ScalarType>) {
    use ScalarType::{F32, I32, U32};
    match op {
        AluOp::Mov => (None, None),
        AluOp::U32ToF32 => (Some(U32), Some(F32)),
        AluOp::I32ToF32 => (Some(I32), Some(F32)),
        AluOp::F32ToLayer => (Some(F32), Some(U32)),
        AluOp::U32ToLayer => (Some(U32), Some(U32)),
        AluOp::F32ToI32 => (Some(F32), Some(I32)),
        AluOp::FMul | AluOp::FMaxAbs | AluOp::FRcp | AluOp::FMaxRightAbs => (Some(F32), Some(F32)),
        AluOp::QuadAddX | AluOp::QuadAddY => (Some(F32), Some(F32)),
        AluOp::I16ToF32 => (Some(I32), Some(F32)),
        AluOp::U16ToF32 => (Some(U32), Some(F32)),
        AluOp::SetActiveMask
        | AluOp::RestoreActiveMask
        | AluOp::QuadBroadcast
        | AluOp::MovLanes => (None, None),
        AluOp::InsertField => (Some(U32), Some(U32)),
        AluOp::ExtractFieldSigned => (Some(U32), Some(I32)),
        AluOp::FFma | AluOp::FLog2 | AluOp::FSetGeAbs => (Some(F32), Some(F32)),
    }
}

/// (group, component) of a source register: a DX register and component, an NVIDIA
/// register split by four, a vISA variable and channel block.
fn group_of(model: RegisterModel, r: Reg, stride: u32) -> (u32, Option<u32>) {
    match model {
        RegisterModel::Vec4 => (r.index, Some(r.sub)),
        RegisterModel::Scalar => (r.index / 4, Some(r.index % 4)),
        RegisterModel::ByteVariables => {
            let block = r.sub / stride.max(1);
            (
                r.index,
                (r.sub % stride.max(1) == 0 && block < 4).then_some(block),
            )
        }
    }
}

/// Runs the pass.
pub fn run(items: &mut [Item], ctx: &mut PassContext) -> Result<(), Error> {
    let from = ctx.source_caps.register_model;
    let to = ctx.target.caps.register_model;
    if !ctx.source_aliases.is_empty() {
        let aliases = ctx.source_aliases.clone();
        let root = |s: &mut Scalar| {
            if let Scalar::Reg(r) = s {
                for _ in 0..16 {
                    match (r.file, aliases.get(&r.index)) {
                        (RegFile::Temp, Some(&(v, off))) => {
                            r.index = v;
                            r.sub += off;
                        }
                        _ => break,
                    }
                }
            }
        };
        // ALU instructions read back from the source too: both names of one storage are
        // one register whoever reads them.
        for item in items.iter_mut() {
            match item {
                Item::Tex(t) => {
                    t.for_each_source_mut(root);
                    t.for_each_dst_mut(root);
                }
                Item::Alu(a) => a.srcs.iter_mut().chain([&mut a.dst]).for_each(root),
                Item::Comment(_) | Item::Opaque(_) => {}
            }
        }
    }
    let target_stride = channel_stride(ctx.simd, ctx.target.caps.grf_bytes);
    // Source registers in order of first use, with the exec width that reads them and the
    // type they are used as.
    let mut uses = Uses::default();
    for item in items.iter() {
        // ALU instructions a source carries (a translation read back) are mapped like the
        // texture instructions' operands.
        // Each operand has the type its op reads or writes; a `Mov` copies bits and says
        // nothing: a later use decides (F32 if none does).
        if let Item::Alu(a) = item {
            let stride = channel_stride(a.exec.map_or(16, |e| e.size), ctx.source_caps.grf_bytes);
            let (src_ty, dst_ty) = alu_types(a.op);
            for (s, ty) in a.srcs.iter().map(|s| (s, src_ty)).chain([(&a.dst, dst_ty)]) {
                if let Scalar::Reg(r) = s {
                    if r.file != RegFile::Virtual {
                        uses.note(*r, stride, ty, a.span);
                    }
                }
            }
            continue;
        }
        let Item::Tex(t) = item else { continue };
        let stride = channel_stride(t.exec.map_or(16, |e| e.size), ctx.source_caps.grf_bytes);
        let src_ty = if matches!(t.op, TexOp::Fetch | TexOp::QuerySize) {
            Some(ScalarType::U32)
        } else {
            t.coord_type.or(Some(ScalarType::F32))
        };
        // Register offsets are integers whatever the coordinates are (vISA `sample4_po`'s
        // offu/offv are D, seeds/visa-3D_SAMPLE.md; NVIDIA and vISA packed offsets).
        let offsets: &[Scalar] = match &t.offset {
            crate::ir::Offset::Dynamic(v) | crate::ir::Offset::PerTexel(v) => v,
            crate::ir::Offset::Packed(p) => std::slice::from_ref(p),
            crate::ir::Offset::None | crate::ir::Offset::Imm(_) => &[],
        };
        t.for_each_source(|s| {
            let ty = if offsets.contains(s) {
                Some(ScalarType::I32)
            } else {
                src_ty
            };
            if let Scalar::Reg(r) = s {
                uses.note(*r, stride, ty.or(Some(ScalarType::F32)), t.span);
            }
        });
        for s in t.dst.iter().flatten().chain(&t.status_dst) {
            if let Scalar::Reg(r) = s {
                uses.note(*r, stride, t.result_type.or(Some(ScalarType::F32)), t.span);
            }
        }
    }
    let order = uses.order;

    // Target registers already taken: the user's map.
    let mut taken: BTreeSet<(u32, u32)> = ctx
        .regmap
        .entries
        .values()
        .map(|r| (r.index, r.sub))
        .collect();
    let mut groups: crate::hash::FastMap<(RegFile, u32), u32> = Default::default();
    // vISA variables made for registers of no known type yet (see below).
    let mut untyped: crate::hash::FastSet<u32> = Default::default();
    // Default group numbers: source temporaries keep their number (so DX r3 ↔ NVIDIA R12..15
    // ↔ vISA V35); everything else after the highest.
    let mut next_group = order
        .iter()
        .filter(|(r, ..)| r.file == RegFile::Temp && from != RegisterModel::ByteVariables)
        .map(|(r, s, ..)| group_of(from, *r, *s).0.saturating_add(1))
        .max()
        .unwrap_or(0);
    for (r, stride, ty, span) in order {
        if ctx.regmap.get(&r).is_some() {
            continue;
        }
        let (group, comp) = group_of(from, r, stride);
        // A register number no target register can hold is refused before any arithmetic
        // on it (DX `r4294967295` is valid text).
        let past = |g: u32| {
            target_index(to, ctx.target.caps.first_register, g, 0)
                .is_none_or(|i| i >= ctx.target.caps.register_count)
        };
        let keeps_number = r.file == RegFile::Temp && from != RegisterModel::ByteVariables;
        if keeps_number && past(group) {
            return Err(ctx.unsupported(
                &format!("source register {r}"),
                &format!(
                    "it has no default target register (the target has {}); give --regmap",
                    ctx.target.caps.register_count
                ),
                span,
            ));
        }
        let keep_number = r.file == RegFile::Temp && from != RegisterModel::ByteVariables;
        let key = (r.file, group);
        let g = match groups.get(&key) {
            Some(g) => *g,
            None => {
                let g = if keep_number {
                    group
                } else {
                    next_group = next_group.saturating_add(1);
                    next_group.saturating_sub(1)
                };
                groups.insert(key, g);
                g
            }
        };
        // The component inside the group: the source's own, or the next free one; a full
        // group (a user map took its components) spills into a fresh group.
        let first = ctx.target.caps.first_register;
        let free = |g: u32, c: u32| !taken_in(&taken, to, first, (g, c), target_stride);
        let (g, comp) = match comp {
            Some(c) if free(g, c) => (g, c),
            _ => match (0..4).find(|&c| free(g, c)) {
                Some(c) => (g, c),
                None => {
                    next_group = next_group.saturating_add(1);
                    groups.insert(key, next_group.saturating_sub(1));
                    (next_group.saturating_sub(1), 0)
                }
            },
        };
        // vISA: a register whose type differs from its group's variable (both known) gets
        // a variable of its own; a variable made for untyped registers (bit copies) takes
        // the first known type of a register put in it.
        let (g, comp) = match (to, ty) {
            (RegisterModel::ByteVariables, Some(t)) if !untyped.contains(&g) => {
                let name = format!("V{}", ctx.target.caps.first_register + g);
                match ctx.variables.get(&name) {
                    Some(v) if v.ty != visa_type(Some(t)) => {
                        next_group = next_group.saturating_add(1);
                        (next_group.saturating_sub(1), comp)
                    }
                    _ => (g, comp),
                }
            }
            _ => (g, comp),
        };
        let target = match to {
            RegisterModel::Vec4 => Reg {
                file: RegFile::Temp,
                index: g,
                sub: comp,
            },
            RegisterModel::Scalar => Reg {
                file: RegFile::Temp,
                index: target_index(to, 0, g, comp).unwrap_or(u32::MAX),
                sub: 0,
            },
            RegisterModel::ByteVariables => {
                let index = ctx.target.caps.first_register + g;
                let name = format!("V{index}");
                let elts = 4 * target_stride / 4;
                match ctx.variables.get_mut(&name) {
                    Some(v) => {
                        if ty.is_some() && untyped.remove(&g) {
                            v.ty = visa_type(ty).to_string();
                        }
                    }
                    None => {
                        if ty.is_none() {
                            untyped.insert(g);
                        }
                        ctx.variables.insert(
                            name.clone(),
                            Variable {
                                name,
                                ty: visa_type(ty).to_string(),
                                num_elts: elts,
                            },
                        );
                    }
                }
                Reg {
                    file: RegFile::Temp,
                    index,
                    sub: comp * target_stride,
                }
            }
        };
        if target.index >= ctx.target.caps.register_count {
            return Err(ctx.unsupported(
                &format!("source register {r}"),
                &format!(
                    "its default target register {} is past the last ({}); give --regmap",
                    target.index,
                    ctx.target.caps.register_count - 1
                ),
                span,
            ));
        }
        taken.insert((target.index, target.sub));
        ctx.regmap.entries.insert(r, target);
    }
    let map: crate::hash::FastMap<Reg, Reg> =
        ctx.regmap.entries.iter().map(|(s, t)| (*s, *t)).collect();
    for item in items.iter_mut() {
        match item {
            Item::Tex(t) => rewrite(t, &map),
            Item::Alu(a) => {
                for s in a.srcs.iter_mut().chain([&mut a.dst]) {
                    if let Scalar::Reg(r) = s {
                        if let Some(m) = map.get(r) {
                            *r = *m;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The target register index of component `comp` of register group `group`, groups
/// numbered from the target's first register; `None` past `u32`.
fn target_index(model: RegisterModel, first: u32, group: u32, comp: u32) -> Option<u32> {
    match model {
        RegisterModel::Vec4 | RegisterModel::ByteVariables => first.checked_add(group),
        RegisterModel::Scalar => group.checked_mul(4)?.checked_add(comp)?.checked_add(first),
    }
}

/// Whether component `comp` of register group `group` is taken (or has no register).
fn taken_in(
    taken: &BTreeSet<(u32, u32)>,
    model: RegisterModel,
    first: u32,
    (group, comp): (u32, u32),
    stride: u32,
) -> bool {
    let Some(index) = target_index(model, first, group, comp) else {
        return true;
    };
    match model {
        RegisterModel::Vec4 => taken.contains(&(index, comp)),
        RegisterModel::Scalar => taken.contains(&(index, 0)),
        RegisterModel::ByteVariables => taken.contains(&(index, comp.saturating_mul(stride))),
    }
}

/// Rewrites every register of `t` through `map`.
pub fn rewrite<S: std::hash::BuildHasher>(
    t: &mut TexInstr,
    map: &std::collections::HashMap<Reg, Reg, S>,
) {
    let f = |s: &mut Scalar| {
        if let Scalar::Reg(r) = s {
            if let Some(m) = map.get(r) {
                *r = *m;
            }
        }
    };
    t.for_each_source_mut(f);
    t.for_each_dst_mut(f);
}
