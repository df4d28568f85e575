//! [`TexInstr`]s lowered back to DXBC tokens.
//!
//! Lowering starts from the instruction's decoded tokens ([`DxbcExtras`]) and lifts them
//! again: every IR field equal to the lifted one keeps its tokens exactly (so an unchanged
//! IR re-encodes byte-identically); every field that differs is rebuilt from the IR —
//! registers, swizzles, the destination mask with the resource swizzle, offsets, bindings,
//! the gather channel, the dimension. Source modifiers and precision bits of a rebuilt
//! operand are kept from its template.

use crate::error::{Error, Unsupported};
use crate::ir::{Dim, Dimension, Imm, Isa, Lod, Offset, RegFile, ResRef, Scalar, TexInstr, TexOp};

use super::lift::{coord_layout, lift, simple_file, Decls};
use super::tables::{tables, Role};
use super::tokens::{
    Index, Instruction, Operand, EXT_RESOURCE_DIM, INDEX_IMM32, INDEX_IMM32_RELATIVE,
    OPERAND_IMM32, SEL_MASK, SEL_SELECT1,
};

fn unsupported(what: impl Into<String>, why: impl Into<String>) -> Error {
    Error::Unsupported(Unsupported::new(what, Isa::Dxbc, Isa::Dxbc, why))
}

/// The DX operand type of a simple register file.
fn file_type(file: RegFile) -> Option<u8> {
    (0..3).find(|t| simple_file(*t) == Some(file))
}

/// `base` re-pointed at the register of `s` (type and index), keeping its other fields.
fn repoint(base: &Operand, s: &Scalar) -> Result<Operand, Error> {
    let Scalar::Reg(r) = s else {
        return Err(unsupported(format!("operand {s}"), "expected a register"));
    };
    let ty = file_type(r.file).ok_or_else(|| {
        unsupported(
            format!("operand {s}"),
            "only r#, v# and o# registers can be rewritten from the IR; keep this operand as decoded",
        )
    })?;
    let mut op = base.clone();
    if op.ty != ty || op.indices.len() != 1 || op.indices[0].rel.is_some() {
        op = Operand {
            extended: base.extended.clone(),
            ..Operand::new(ty, &[r.index])
        };
        op.num_components = base.num_components.max(2);
        op.selection = base.selection;
        op.comp = base.comp;
    }
    op.ty = ty;
    op.indices = vec![Index::imm(r.index)];
    Ok(op)
}

/// An operand reading `scalars` in lanes 0.., built on `base` (its modifiers kept).
fn vector(base: &Operand, scalars: &[Scalar]) -> Result<Operand, Error> {
    let first = scalars
        .first()
        .ok_or_else(|| unsupported("an empty operand", "an operand needs a value"))?;
    if scalars.iter().all(|s| matches!(s, Scalar::Imm(_))) {
        let mut op = Operand::new(OPERAND_IMM32, &[]);
        op.selection = 0;
        op.comp = 0;
        let bits = |s: &Scalar| match s {
            Scalar::Imm(Imm { bits, .. }) => *bits as u32,
            _ => 0,
        };
        if scalars.len() == 1 && base.num_components != 2 {
            op.num_components = 1;
            op.imm = vec![bits(first)];
        } else {
            op.num_components = 2;
            op.imm = (0..4)
                .map(|i| match scalars.get(i) {
                    Some(s) => bits(s),
                    None if base.ty == OPERAND_IMM32 => base.imm.get(i).copied().unwrap_or(0),
                    None => 0,
                })
                .collect();
        }
        return Ok(op);
    }
    let Scalar::Reg(r0) = first else {
        return Err(unsupported(
            format!("operand {first}"),
            "expected a register",
        ));
    };
    for s in scalars {
        match s {
            Scalar::Reg(r) if r.file == r0.file && r.index == r0.index => {}
            _ => {
                return Err(unsupported(
                    format!("operand ({})", list(scalars)),
                    "a DXBC operand reads one register; gather the values with mov first",
                ))
            }
        }
    }
    let mut op = repoint(base, first)?;
    let subs: Vec<u8> = scalars
        .iter()
        .map(|s| match s {
            Scalar::Reg(r) => (r.sub & 3) as u8,
            _ => 0,
        })
        .collect();
    if op.num_components == 2 && op.selection == SEL_SELECT1 && subs.len() == 1 {
        op.comp = subs[0];
        return Ok(op);
    }
    // Unused lanes repeat the first, as fxc writes them (`v1.xyxx`).
    let swz = [0, 1, 2, 3].map(|lane| subs.get(lane).copied().unwrap_or(subs[0]));
    op.set_swizzle(swz);
    Ok(op)
}

fn list(scalars: &[Scalar]) -> String {
    scalars
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sets a resource or sampler operand's binding.
fn rebind(op: &mut Operand, r: &ResRef) -> Result<(), Error> {
    match r {
        ResRef::Binding(i) if op.indices.len() <= 1 => op.indices = vec![Index::imm(*i)],
        ResRef::Indexed {
            range,
            base,
            dynamic,
            ..
        } => {
            let rel = match dynamic {
                Some(d) => Some(Box::new(vector(&Operand::new(0, &[0]), &[*d])?)),
                None => None,
            };
            let repr = if rel.is_some() {
                INDEX_IMM32_RELATIVE
            } else {
                INDEX_IMM32
            };
            op.indices = vec![
                Index::imm(*range),
                Index {
                    repr,
                    imm: u64::from(*base),
                    rel: rel.map(|mut r| {
                        r.selection = SEL_SELECT1;
                        r.comp &= 3;
                        r
                    }),
                },
            ];
        }
        other => {
            return Err(unsupported(
                format!("binding {other}"),
                "DXBC resources are t#/s#/u# slots or SM5.1 ranges",
            ))
        }
    }
    Ok(())
}

/// The `resource_dims` code of an IR dimension.
fn dim_code(dim: Dimension) -> Option<u8> {
    let Dimension::Known {
        dim,
        arrayed,
        multisampled,
    } = dim
    else {
        return None;
    };
    tables()
        .dims
        .iter()
        .find(|d| d.dim == dim && d.arrayed == arrayed && d.ms == multisampled)
        .map(|d| d.code)
}

/// Lowers `ir` to tokens, starting from `template` (its decoded instruction).
pub fn lower(ir: &TexInstr, template: &Instruction, decls: &Decls) -> Result<Instruction, Error> {
    let orig = lift(template, decls).ok_or_else(|| {
        unsupported(
            "this instruction",
            "its template is not a DXBC texture instruction",
        )
    })?;
    if ir == &orig {
        return Ok(template.clone());
    }
    let t = tables();
    let tex = t
        .op(template.opcode)
        .and_then(|o| o.tex.as_ref())
        .ok_or_else(|| unsupported("this instruction", "not a texture opcode"))?;
    let same_kind = |a: &TexOp, b: &TexOp| std::mem::discriminant(a) == std::mem::discriminant(b);
    if !same_kind(&ir.op, &orig.op)
        || std::mem::discriminant(&ir.lod) != std::mem::discriminant(&orig.lod)
    {
        return Err(unsupported(
            format!("changing `{}` into `{ir}`", orig),
            "the operation or LOD kind changed; DXBC needs another opcode (a lowering pass)",
        ));
    }
    let mut out = template.clone();
    let at = |r: Role| tex.roles.iter().position(|x| *x == r);
    let set = |r: Role, op: Operand, out: &mut Instruction| {
        if let Some(i) = at(r) {
            out.operands[i] = op;
        }
    };
    let base = |r: Role| at(r).map(|i| template.operands[i].clone());
    // Dimension.
    if ir.dim != orig.dim {
        let code = dim_code(ir.dim)
            .ok_or_else(|| unsupported("a deferred dimension", "DXBC needs one"))?;
        match template.resource_dim() {
            Some((_, stride)) => out.set_ext(
                EXT_RESOURCE_DIM,
                Some(EXT_RESOURCE_DIM | u32::from(code) << 6 | stride << 11),
            ),
            None => return Err(unsupported(
                "changing the dimension",
                "this instruction takes its dimension from dcl_resource; change the declaration",
            )),
        }
    }
    // Coordinates: spatial lanes, array index, `ld`'s mip level.
    let coord_changed = ir.coord != orig.coord
        || ir.array_index != orig.array_index
        || (tex.lod == super::tables::LodRule::Coord && ir.lod != orig.lod)
        || ir.dim != orig.dim;
    if coord_changed {
        match ir.op {
            TexOp::LoadRaw | TexOp::LoadStructured => {
                let roles: &[Role] = if ir.op == TexOp::LoadRaw {
                    &[Role::ByteOffset]
                } else {
                    &[Role::Index, Role::ByteOffset]
                };
                for (r, s) in roles.iter().zip(&ir.coord) {
                    if let Some(b) = base(*r) {
                        set(*r, vector(&b, &[*s])?, &mut out);
                    }
                }
            }
            _ => {
                if let Some(b) = base(Role::Coord) {
                    let mut lanes = ir.coord.clone();
                    lanes.extend(ir.array_index);
                    let layout = coord_layout(ir.dim, tex.lod, lanes.len());
                    if layout.mip {
                        if let Lod::Level(l) = &ir.lod {
                            lanes.push(*l);
                        }
                    }
                    set(Role::Coord, vector(&b, &lanes)?, &mut out);
                }
            }
        }
    }
    // Scalar operands.
    let scalars = [
        (Role::Ref, ir.depth_ref, orig.depth_ref),
        (Role::Clamp, ir.min_lod, orig.min_lod),
        (Role::Sample, ir.sample_index, orig.sample_index),
    ];
    for (r, new, old) in scalars {
        if new != old {
            let s = new.ok_or_else(|| {
                unsupported(format!("removing the {r:?} operand"), "the opcode needs it")
            })?;
            if let Some(b) = base(r) {
                set(r, vector(&b, &[s])?, &mut out);
            }
        }
    }
    if ir.lod != orig.lod && tex.lod != super::tables::LodRule::Coord {
        match &ir.lod {
            Lod::Level(s) | Lod::Bias(s) => {
                let r = [Role::Lod, Role::Bias, Role::Mip]
                    .into_iter()
                    .find(|r| at(*r).is_some())
                    .ok_or_else(|| unsupported("this LOD", "the opcode has no LOD operand"))?;
                if let Some(b) = base(r) {
                    set(r, vector(&b, &[*s])?, &mut out);
                }
            }
            Lod::Grad { dx, dy } => {
                for (r, v) in [(Role::Ddx, dx), (Role::Ddy, dy)] {
                    if let Some(b) = base(r) {
                        set(r, vector(&b, v)?, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    // Offsets.
    if ir.offset != orig.offset {
        match &ir.offset {
            Offset::None => out.set_aoffimmi(None),
            Offset::Imm(o) => {
                if o.iter().any(|v| !(-8..=7).contains(v)) {
                    return Err(unsupported(
                        format!("offset {o:?}"),
                        "DXBC offsets are 4-bit: [-8, 7]",
                    ));
                }
                if matches!(ir.dim, Dimension::Known { dim: Dim::Cube, .. }) {
                    return Err(unsupported(
                        "an offset on a cube map",
                        "_aoffimmi is undefined for TextureCube (seed)",
                    ));
                }
                out.set_aoffimmi(Some(*o));
            }
            Offset::Dynamic(v) => match base(Role::Offset) {
                Some(b) => set(Role::Offset, vector(&b, v)?, &mut out),
                None => {
                    return Err(unsupported(
                        "per-pixel offsets",
                        "only gather4_po* takes them",
                    ))
                }
            },
            other => {
                return Err(unsupported(
                    format!("offset {other:?}"),
                    "DXBC has no such offset form",
                ))
            }
        }
    }
    // Bindings and the gather channel.
    if ir.texture != orig.texture {
        if let Some(i) = at(Role::Resource) {
            rebind(&mut out.operands[i], &ir.texture)?;
        }
    }
    if ir.sampler != orig.sampler || ir.op != orig.op {
        if let (Some(i), Some(s)) = (at(Role::Sampler), &ir.sampler) {
            rebind(&mut out.operands[i], s)?;
            if let TexOp::Gather { component } = ir.op {
                let op = &mut out.operands[i];
                op.num_components = 2;
                op.selection = SEL_SELECT1;
                op.comp = component & 3;
            }
        }
    }
    // Result placement.
    if ir.dst != orig.dst {
        place_result(ir, &orig, template, &tex.roles, &mut out)?;
    }
    if ir.status_dst != orig.status_dst {
        if let (Some(i), Some(Scalar::Reg(r))) = (at(Role::Status), &ir.status_dst) {
            let mut op = repoint(&template.operands[i], &Scalar::Reg(*r))?;
            op.num_components = 2;
            op.selection = SEL_MASK;
            op.comp = 1 << (r.sub & 3);
            out.operands[i] = op;
        }
    }
    Ok(out)
}

/// Rebuilds the destination mask and the resource swizzle from `ir.dst`: texture channel
/// `ch` written to component `c` sets mask bit `c` and `swizzle[c] = ch`. Components of the
/// template that repeat a channel whose placement the edit left alone stay.
fn place_result(
    ir: &TexInstr,
    orig: &TexInstr,
    template: &Instruction,
    roles: &[Role],
    out: &mut Instruction,
) -> Result<(), Error> {
    let di = roles.iter().position(|r| *r == Role::Dst).unwrap_or(0);
    let ri = roles.iter().position(|r| *r == Role::Resource).unwrap_or(0);
    let tdst = &template.operands[di];
    let tres = &template.operands[ri];
    let written: Vec<(usize, Scalar)> = ir
        .dst
        .iter()
        .enumerate()
        .filter_map(|(ch, d)| d.map(|d| (ch, d)))
        .collect();
    let Some((_, first)) = written.first() else {
        return Err(unsupported(
            "a texture instruction without results",
            "DXBC writes at least one component",
        ));
    };
    let mut dst = repoint(tdst, first)?;
    let mut mask = 0u8;
    let mut swz = tres.swizzle();
    for (ch, s) in &written {
        let Scalar::Reg(r) = s else {
            return Err(unsupported(
                format!("result {s}"),
                "results go to registers",
            ));
        };
        if Scalar::Reg(*r)
            != Scalar::Reg(crate::ir::Reg {
                sub: r.sub,
                ..first_reg(first)
            })
        {
            return Err(unsupported(
                format!("results to {first} and {s}"),
                "a DXBC instruction writes one register; copy the others with mov",
            ));
        }
        let c = (r.sub & 3) as usize;
        if mask & (1 << c) != 0 {
            return Err(unsupported(
                format!("two channels to {s}"),
                "one component takes one channel",
            ));
        }
        mask |= 1 << c;
        swz[c] = *ch as u8;
    }
    for (c, slot) in swz.iter_mut().enumerate() {
        let ch = tres.component(c) as usize;
        let unchanged = ir.dst.get(ch) == orig.dst.get(ch);
        if tdst.mask() & (1 << c) != 0
            && mask & (1 << c) == 0
            && unchanged
            && tdst.first_index() == dst.first_index()
            && tdst.ty == dst.ty
        {
            mask |= 1 << c;
            *slot = ch as u8;
        }
    }
    dst.num_components = 2;
    dst.selection = SEL_MASK;
    dst.comp = mask;
    out.operands[di] = dst;
    let res = &mut out.operands[ri];
    let single = (0..4)
        .filter(|c| mask & (1 << c) != 0)
        .map(|c| swz[c])
        .collect::<Vec<_>>();
    if res.num_components == 2
        && res.selection == SEL_SELECT1
        && single.windows(2).all(|w| w[0] == w[1])
    {
        res.comp = single.first().copied().unwrap_or(0);
    } else {
        res.set_swizzle(swz);
    }
    Ok(())
}

fn first_reg(s: &Scalar) -> crate::ir::Reg {
    match s {
        Scalar::Reg(r) => *r,
        _ => crate::ir::Reg {
            file: RegFile::Temp,
            index: 0,
            sub: 0,
        },
    }
}
