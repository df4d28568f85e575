//! One DXBC texture instruction emitted from a [`TexInstr`].
//!
//! [`emit`] builds any texture instruction the IR can express from the IR alone ([`build`]):
//! the opcode from the operation, LOD kind, depth compare, offsets, gather and
//! min-LOD/residency forms; the coordinate swizzle (spatial lanes, then the array layer, then
//! `ld`'s mip level, all in one register); the destination write mask with the resource
//! swizzle that places each result channel; the sampler (with the gathered channel as its
//! select-1 component); `_aoffimmi`; the `_indexable` resource-dimension and return-type
//! extended tokens fxc writes in SM5 programs.
//!
//! A decoded instruction keeps its tokens as a template ([`DxbcExtras`]): when the IR still
//! says what the template says, the template is the result (every bit kept: `precise`,
//! source modifiers, SM5.1 ranges, constant-buffer operands); when only operands changed,
//! the template is patched ([`patch`]: the operands the IR names are rebuilt, the others
//! kept); a change of operation or LOD kind, or an instruction no codec decoded, is built
//! from scratch.

use crate::error::{Error, Unsupported};
use crate::ir::{
    Dim, Dimension, Imm, Isa, Lod, Offset, RegFile, ResRef, Scalar, ScalarType, TexInstr, TexOp,
};

use super::lift::{coord_layout, file_type, lift, Decls};
use super::tables::{tables, LodRule, Role};
use super::tokens::{
    Index, Instruction, Operand, EXT_RESOURCE_DIM, EXT_RETURN_TYPE, INDEX_IMM32,
    INDEX_IMM32_RELATIVE, OPERAND_IMM32, SEL_MASK, SEL_SELECT1,
};

fn unsupported(what: impl Into<String>, why: impl Into<String>) -> Error {
    Error::Unsupported(Unsupported::new(what, Isa::Dxbc, Isa::Dxbc, why))
}

/// What emitting needs beyond the instruction: the program's declarations (resource
/// dimension and return types) and its shader model.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub decls: &'a Decls,
    /// SM5.x: texture instructions carry the `_indexable` extended tokens, as fxc writes them
    /// (every texture instruction of the 30 fxc listings of SM5 programs in the corpus except
    /// `sampleinfo` and `samplepos`, whose SM5 forms Wine prints without them).
    pub sm5: bool,
}

/// The instruction `ir` says: the template's tokens when the IR still says what they say, the
/// template patched when only operands changed, otherwise built from the IR alone.
pub fn emit(ir: &TexInstr, template: Option<&Instruction>, env: Env) -> Result<Instruction, Error> {
    if let Some(template) = template {
        if let Some(orig) = lift(template.clone(), env.decls) {
            if ir == &orig {
                return Ok(template.clone());
            }
            let same_op = std::mem::discriminant(&ir.op) == std::mem::discriminant(&orig.op);
            let same_lod = std::mem::discriminant(&ir.lod) == std::mem::discriminant(&orig.lod);
            let same_form = ir.depth_ref.is_some() == orig.depth_ref.is_some()
                && ir.min_lod.is_some() == orig.min_lod.is_some()
                && ir.flags.residency == orig.flags.residency
                && matches!(ir.offset, Offset::Dynamic(_))
                    == matches!(orig.offset, Offset::Dynamic(_));
            if same_op && same_lod && same_form {
                return patch(ir, template, env.decls);
            }
        }
    }
    build(ir, env)
}

/// The fxc mnemonic of the instruction that does what `ir` says, or why DX has none.
pub fn mnemonic(ir: &TexInstr) -> Result<&'static str, Error> {
    let feedback = ir.flags.residency || ir.status_dst.is_some();
    let clamp = ir.min_lod.is_some();
    let cmp = ir.depth_ref.is_some();
    let ms = matches!(
        ir.dim,
        Dimension::Known {
            multisampled: true,
            ..
        }
    );
    let none = |why: &str| Err(unsupported(format!("`{ir}`"), why.to_string()));
    let m = match ir.op {
        TexOp::Sample => match (&ir.lod, cmp, feedback || clamp) {
            (Lod::Implicit, false, false) => "sample",
            (Lod::Implicit, false, true) => "sample_cl_s",
            (Lod::Implicit, true, false) => "sample_c",
            (Lod::Implicit, true, true) => "sample_c_cl_s",
            (Lod::Zero, true, false) => "sample_c_lz",
            (Lod::Zero, true, true) if !clamp => "sample_c_lz_s",
            (Lod::Zero | Lod::Level(_), false, false) => "sample_l",
            (Lod::Zero | Lod::Level(_), false, true) if !clamp => "sample_l_s",
            (Lod::Bias(_), false, false) => "sample_b",
            (Lod::Bias(_), false, true) => "sample_b_cl_s",
            (Lod::Grad { .. }, false, false) => "sample_d",
            (Lod::Grad { .. }, false, true) => "sample_d_cl_s",
            (Lod::Zero | Lod::Level(_), _, true) => {
                return none("DX has no explicit-LOD sample with a minimum-LOD clamp")
            }
            (_, true, _) => {
                return none(
                    "DX compares depth only with an implicit LOD (sample_c) or at level 0 (sample_c_lz)",
                )
            }
        },
        TexOp::Fetch => {
            if clamp {
                return none("ld has no minimum-LOD clamp");
            }
            match (ms, feedback) {
                (true, false) => "ldms",
                (true, true) => "ldms_s",
                (false, false) => "ld",
                (false, true) => "ld_s",
            }
        }
        TexOp::Gather { .. } => {
            if clamp {
                return none("gather4 has no minimum-LOD clamp");
            }
            if !matches!(ir.lod, Lod::Zero | Lod::Implicit) {
                return none("gather4 reads level 0 only");
            }
            let po = matches!(ir.offset, Offset::Dynamic(_));
            match (po, cmp, feedback) {
                (false, false, false) => "gather4",
                (false, true, false) => "gather4_c",
                (true, false, false) => "gather4_po",
                (true, true, false) => "gather4_po_c",
                (false, false, true) => "gather4_s",
                (false, true, true) => "gather4_c_s",
                (true, false, true) => "gather4_po_s",
                (true, true, true) => "gather4_po_c_s",
            }
        }
        TexOp::QueryLod => "lod",
        TexOp::QuerySize => "resinfo",
        TexOp::QuerySamples => "sampleinfo",
        TexOp::SamplePos => "samplepos",
        TexOp::BufferInfo => "bufinfo",
        _ => return none("the DXBC backend builds no instruction for this operation"),
    };
    if feedback && !matches!(ir.op, TexOp::Sample | TexOp::Fetch | TexOp::Gather { .. }) {
        return none("DX has no residency form of this operation");
    }
    if (clamp || feedback || cmp)
        && !matches!(ir.op, TexOp::Sample | TexOp::Fetch | TexOp::Gather { .. })
    {
        return none("DX has no form of this operation with these operands");
    }
    if cmp && ir.op == TexOp::Fetch {
        return none("ld does not compare depth");
    }
    Ok(m)
}

/// A register operand (`r#`, `v#`, `o#`) of `r`'s register, as a four-component operand.
fn reg_operand(s: &Scalar) -> Result<(Operand, u8), Error> {
    let Scalar::Reg(r) = s else {
        return Err(unsupported(format!("operand {s}"), "expected a register"));
    };
    let ty = file_type(r.file).ok_or_else(|| {
        unsupported(
            format!("operand {s}"),
            "the DXBC backend writes r#, v# and o# registers",
        )
    })?;
    if r.sub > 3 {
        return Err(unsupported(
            format!("operand {s}"),
            "a DX register has components 0..3",
        ));
    }
    Ok((Operand::new(ty, &[r.index]), r.sub as u8))
}

fn imm_bits(s: &Scalar) -> Option<u32> {
    match s {
        Scalar::Imm(Imm { bits, .. }) => Some(*bits as u32),
        Scalar::Zero => Some(0),
        Scalar::Reg(_) => None,
    }
}

/// A source operand reading `scalars` in lanes 0..: all immediates (`l(a, b, c, d)`), or all
/// components of one register with the swizzle built from them; lanes past the scalars
/// repeat the first, as fxc writes them (`v1.xyxx`, `r1.xyzx`).
fn src_vector(scalars: &[Scalar], what: &str) -> Result<Operand, Error> {
    let first = scalars
        .first()
        .ok_or_else(|| unsupported(format!("an empty {what}"), "an operand needs a value"))?;
    if let Some(bits) = scalars.iter().map(imm_bits).collect::<Option<Vec<u32>>>() {
        let mut op = Operand::new(OPERAND_IMM32, &[]);
        op.selection = 0;
        op.comp = 0;
        op.num_components = 2;
        op.imm = (0..4)
            .map(|i| bits.get(i).copied().unwrap_or(bits[0]))
            .collect();
        return Ok(op);
    }
    let (mut op, _) = reg_operand(first)?;
    let mut subs = Vec::with_capacity(scalars.len());
    for s in scalars {
        match (s, first) {
            (Scalar::Reg(r), Scalar::Reg(r0)) if r.file == r0.file && r.index == r0.index => {
                subs.push((r.sub & 3) as u8)
            }
            _ => {
                return Err(unsupported(
                    format!("the {what} ({})", list(scalars)),
                    "a DX operand reads the components of one register (or immediates only); \
                     the passes gather the values with mov first",
                ))
            }
        }
    }
    let swz = [0, 1, 2, 3].map(|lane| subs.get(lane).copied().unwrap_or(subs[0]));
    op.set_swizzle(swz);
    Ok(op)
}

/// A scalar source operand: one component of a register (select-1, `r2.w`) or a
/// one-component immediate (`l(0.000000)`), as fxc writes LOD, bias, reference, clamp and
/// sample-index operands.
fn src_scalar(s: &Scalar) -> Result<Operand, Error> {
    if let Some(bits) = imm_bits(s) {
        let mut op = Operand::new(OPERAND_IMM32, &[]);
        op.num_components = 1;
        op.selection = 0;
        op.comp = 0;
        op.imm = vec![bits];
        return Ok(op);
    }
    let (mut op, sub) = reg_operand(s)?;
    op.selection = SEL_SELECT1;
    op.comp = sub;
    Ok(op)
}

/// A destination operand writing the components `mask` of `s`'s register.
fn dst_operand(s: &Scalar, mask: u8) -> Result<Operand, Error> {
    let (mut op, _) = reg_operand(s)?;
    op.selection = SEL_MASK;
    op.comp = mask;
    Ok(op)
}

/// The `null` destination (a residency status nobody reads).
fn null_operand() -> Operand {
    let mut op = Operand::new(tables().codes.null, &[]);
    op.num_components = 0;
    op.selection = 0;
    op.comp = 0;
    op
}

/// The destination mask and resource swizzle that place each result channel: channel `ch`
/// written to component `c` sets mask bit `c` and `swizzle[c] = ch`. Lanes outside the mask
/// repeat the first written lane's channel, as fxc writes them (Wine's listing of the fxc
/// blobs: `ld_structured_indexable ... r0.xzw, ..., t12.xxyz`, `r0.xyz, ..., t12.xyzx`,
/// `r0.zw, ..., g0.xxxy`; `sample_c r8.x, ..., t3.xxxx`).
fn result_placement(ir: &TexInstr) -> Result<(Operand, [u8; 4]), Error> {
    let written: Vec<(u8, Scalar)> = ir
        .dst
        .iter()
        .enumerate()
        .filter_map(|(ch, d)| d.map(|d| (ch as u8, d)))
        .collect();
    let Some((_, first)) = written.first().copied() else {
        return Err(unsupported(
            format!("`{ir}`"),
            "a DX texture instruction writes at least one component",
        ));
    };
    let Scalar::Reg(r0) = first else {
        return Err(unsupported(
            format!("result {first}"),
            "results go to registers",
        ));
    };
    let mut mask = 0u8;
    let mut swz = [None; 4];
    for (ch, s) in &written {
        match s {
            Scalar::Reg(r) if r.file == r0.file && r.index == r0.index && r.sub <= 3 => {
                let c = r.sub as usize;
                if mask & (1 << c) != 0 {
                    return Err(unsupported(
                        format!("two result channels to {s}"),
                        "one component takes one channel",
                    ));
                }
                mask |= 1 << c;
                swz[c] = Some(*ch);
            }
            _ => {
                return Err(unsupported(
                    format!("results to {first} and {s}"),
                    "a DX instruction writes one register; the passes copy the others with mov",
                ))
            }
        }
    }
    let fill = (0..4).find_map(|c| swz[c]).unwrap_or(0);
    let swz = swz.map(|s| s.unwrap_or(fill));
    Ok((dst_operand(&first, mask)?, swz))
}

/// A resource (`t#`) or sampler (`s#`) operand.
fn binding_operand(r: &ResRef, ty: u8, components: u8) -> Result<Operand, Error> {
    let mut op = Operand::new(ty, &[0]);
    op.num_components = components;
    if components == 0 {
        op.selection = 0;
        op.comp = 0;
    }
    rebind(&mut op, r)?;
    Ok(op)
}

/// The return-type word (4 bits per component) of the resource `r` as declared.
fn declared_return(r: &ResRef, decls: &Decls) -> Option<u32> {
    let ResRef::Binding(id) = r else { return None };
    decls
        .resources
        .get(&(tables().codes.resource, u64::from(*id)))
        .and_then(|d| d.return_types)
}

/// Spatial coordinates of a dimension (`TexInstr::coord`'s length).
fn spatial(dim: Dim) -> usize {
    match dim {
        Dim::D1 | Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer => 1,
        Dim::D2 => 2,
        Dim::D3 | Dim::Cube => 3,
    }
}

/// Builds the instruction `ir` says from the IR alone.
pub fn build(ir: &TexInstr, env: Env) -> Result<Instruction, Error> {
    let t = tables();
    let name = mnemonic(ir)?;
    let opcode = t
        .opcode(name)
        .ok_or_else(|| unsupported(name, "mappings/dxbc.toml has no such opcode"))?;
    let tex = t
        .op(opcode)
        .and_then(|o| o.tex.as_ref())
        .ok_or_else(|| unsupported(name, "mappings/dxbc.toml lists no operand roles for it"))?;
    let Dimension::Known {
        dim,
        arrayed,
        multisampled,
    } = ir.dim
    else {
        return Err(unsupported(
            format!("`{ir}`"),
            "DX declares every resource's dimension; bind it first (--bindings)",
        ));
    };
    let has = |r: Role| tex.roles.contains(&r);
    let refuse =
        |what: &str, why: &str| Err(unsupported(format!("{what} of `{ir}`"), why.to_string()));
    // Every operand the IR has must have a place in the opcode.
    if ir.sample_index.is_some() && !has(Role::Sample) {
        return refuse("the sample index", "only ldms and samplepos read one");
    }
    if ir.depth_ref.is_some() && !has(Role::Ref) {
        return refuse("the depth reference", "this opcode does not compare");
    }
    if !ir.mcs.is_empty() {
        return refuse("the MCS operands", "DX reads no multisample control data");
    }
    if ir.pred.is_some() {
        return refuse(
            "the predicate",
            "DX texture instructions are not predicated",
        );
    }
    // `ld2dms[_aoffimmi(u,v)]` (ld2dms (sm4.1 - asm)) takes offsets as `ld` does.
    let offsets_ok = matches!(ir.op, TexOp::Sample | TexOp::Fetch | TexOp::Gather { .. })
        && !matches!(
            dim,
            Dim::Cube | Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer
        )
        && (!multisampled || ir.op == TexOp::Fetch);
    let mut aoffimmi = None;
    match &ir.offset {
        Offset::None => {}
        Offset::Imm(o) => {
            if !offsets_ok {
                return refuse(
                    "the immediate offset",
                    "_aoffimmi applies to sample, ld, ld2dms and gather4 on 1D/2D/3D textures \
                     (seeds/dx-sm4-sample.md; ld2dms (sm4.1 - asm))",
                );
            }
            if o.iter().any(|v| !(-8..=7).contains(v)) {
                return refuse("the offset", "DXBC offsets are 4-bit: [-8, 7]");
            }
            aoffimmi = Some(*o);
        }
        Offset::Dynamic(_) if has(Role::Offset) => {}
        other => {
            return refuse(
                &format!("offset {other:?}"),
                "DX has immediate offsets (_aoffimmi) and gather4_po's per-pixel offsets only",
            )
        }
    }
    let coord_role = has(Role::Coord);
    if coord_role {
        if ir.coord.len() != spatial(dim) {
            return refuse(
                "the coordinate",
                &format!(
                    "a {dim:?} resource reads {} spatial coordinates",
                    spatial(dim)
                ),
            );
        }
        if ir.array_index.is_some() != arrayed {
            return refuse(
                "the array layer",
                "an arrayed resource reads one, any other none",
            );
        }
    } else if !ir.coord.is_empty() || ir.array_index.is_some() {
        return refuse("the coordinate", "this opcode reads none");
    }
    let (dst, res_swz) = result_placement(ir)?;
    let mut out = Instruction::new(opcode);
    let layout = coord_layout(ir.dim, tex.lod, ir.coord.len() + usize::from(arrayed));
    let scalar_or = |s: &Option<Scalar>, what: &str| -> Result<Operand, Error> {
        match s {
            Some(s) => src_scalar(s),
            None => Err(unsupported(
                format!("`{ir}`"),
                format!("{name} needs a {what}"),
            )),
        }
    };
    let zero = Scalar::Imm(Imm {
        bits: 0,
        ty: ScalarType::F32,
    });
    for role in &tex.roles {
        let op = match role {
            Role::Dst => dst.clone(),
            Role::Status => match &ir.status_dst {
                Some(s) => {
                    let Scalar::Reg(r) = s else {
                        return refuse("the status", "it goes to a register");
                    };
                    dst_operand(s, 1 << (r.sub & 3))?
                }
                None => null_operand(),
            },
            Role::Coord => {
                let mut lanes = ir.coord.clone();
                lanes.extend(ir.array_index);
                if layout.mip {
                    let mip = match &ir.lod {
                        Lod::Level(l) => *l,
                        Lod::Zero | Lod::Implicit => Scalar::Imm(Imm {
                            bits: 0,
                            ty: ScalarType::I32,
                        }),
                        _ => return refuse("the LOD", "ld reads an explicit level"),
                    };
                    lanes = super::lift::with_mip(lanes, mip);
                } else if ir.op == TexOp::Fetch && matches!(ir.lod, Lod::Level(_)) {
                    return refuse("the LOD", "this resource has no mip levels");
                }
                src_vector(&lanes, "coordinate")?
            }
            Role::Offset => match &ir.offset {
                Offset::Dynamic(v) => src_vector(v, "offset")?,
                _ => return refuse("the offsets", "gather4_po reads per-pixel offsets"),
            },
            Role::Resource => {
                let mut op = binding_operand(&ir.texture, t.codes.resource, 2)?;
                op.set_swizzle(res_swz);
                op
            }
            Role::Sampler => {
                let s = ir.sampler.as_ref().ok_or_else(|| {
                    unsupported(format!("`{ir}`"), format!("{name} needs a sampler"))
                })?;
                match ir.op {
                    // SM5 gathers the channel the sampler's select-1 component names; SM4.1
                    // `gather4` gathers red and has no select.
                    TexOp::Gather { component } if env.sm5 => {
                        let mut op = binding_operand(s, t.codes.sampler, 2)?;
                        op.selection = SEL_SELECT1;
                        op.comp = component & 3;
                        op
                    }
                    TexOp::Gather { component } if component != 0 => {
                        return refuse("the gathered channel", "SM4.1 gather4 gathers red only")
                    }
                    _ => binding_operand(s, t.codes.sampler, 0)?,
                }
            }
            Role::Ref => scalar_or(&ir.depth_ref, "depth reference")?,
            Role::Clamp => src_scalar(ir.min_lod.as_ref().unwrap_or(&zero))?,
            Role::Sample => scalar_or(&ir.sample_index, "sample index")?,
            Role::Lod => match &ir.lod {
                Lod::Level(l) => src_scalar(l)?,
                _ => src_scalar(&zero)?,
            },
            Role::Bias => match &ir.lod {
                Lod::Bias(b) => src_scalar(b)?,
                _ => return refuse("the LOD", "expected a bias"),
            },
            Role::Mip => match &ir.lod {
                Lod::Level(l) => src_scalar(l)?,
                Lod::Zero | Lod::Implicit => src_scalar(&Scalar::Imm(Imm {
                    bits: 0,
                    ty: ScalarType::U32,
                }))?,
                _ => return refuse("the LOD", "resinfo reads a mip level"),
            },
            Role::Ddx | Role::Ddy => match &ir.lod {
                Lod::Grad { dx, dy } => {
                    let v = if *role == Role::Ddx { dx } else { dy };
                    if v.len() != ir.coord.len() {
                        return refuse("the gradients", "one per spatial coordinate");
                    }
                    src_vector(v, "gradient")?
                }
                _ => return refuse("the LOD", "expected gradients"),
            },
            Role::Index | Role::ByteOffset => {
                return refuse(
                    "the buffer load",
                    "the DXBC backend builds no raw or structured loads",
                )
            }
        };
        out.operands.push(op);
    }
    if tex.lod == LodRule::Implicit && !matches!(ir.lod, Lod::Implicit) {
        return refuse("the LOD", "this opcode chooses the LOD from derivatives");
    }
    // Controls: resinfo `_uint` (2) and sampleinfo `_uint` (1) when the result is integer.
    let uint = ir.result_type == Some(ScalarType::U32);
    if opcode == t.codes.resinfo && uint {
        out.controls = 2;
    } else if opcode == t.codes.sampleinfo && uint {
        out.controls = 1;
    }
    // Extended tokens: sample controls, then (SM5) resource dimension and return type.
    if let Some(o) = aoffimmi {
        out.set_aoffimmi(Some(o));
    }
    let indexable =
        env.sm5 && opcode != t.codes.sampleinfo && Some(opcode) != t.opcode("samplepos");
    if indexable {
        let code = dim_code(ir.dim)
            .ok_or_else(|| unsupported(format!("`{ir}`"), "no DX resource dimension"))?;
        out.set_ext(
            EXT_RESOURCE_DIM,
            Some(EXT_RESOURCE_DIM | u32::from(code) << 6),
        );
        let word = declared_return(&ir.texture, env.decls).unwrap_or(0x5555);
        out.set_ext(
            EXT_RETURN_TYPE,
            Some(EXT_RETURN_TYPE | (word & 0xffff) << 6),
        );
    }
    Ok(out)
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

/// `ir` as an edit of `template` (its decoded instruction): every field equal to the lifted
/// one keeps its tokens; the others are rebuilt. The operation and LOD kind must be the
/// template's ([`emit`] builds other instructions from scratch).
fn patch(ir: &TexInstr, template: &Instruction, decls: &Decls) -> Result<Instruction, Error> {
    let orig = lift(template.clone(), decls).ok_or_else(|| {
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
                            lanes = super::lift::with_mip(lanes, *l);
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
