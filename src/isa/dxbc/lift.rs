//! DXBC texture instructions lifted into [`TexInstr`]s.
//!
//! The rules (seed dx-sm4-sample.md, research/dxbc.md §7, DESIGN.md §3):
//! - the instruction carries no dimension: it comes from the `_indexable` resource-dimension
//!   token, else from the resource's `dcl_resource`/`dcl_uav_typed` declaration; with
//!   neither it stays [`Dimension::Deferred`] and every coordinate lane is kept;
//! - the coordinate register's swizzle gives one lane per spatial coordinate of the
//!   dimension, then the array index (1D arrays: `g`, 2D arrays: `b`, cube arrays: `a`), then
//!   for `ld` on a mipmapped resource the mip level;
//! - the result placement is the destination mask read through the resource swizzle: dest
//!   component `c` (in the mask) receives texture channel `swizzle[c]`;
//! - `gather4*` gathers the channel the sampler's select-one component names (`s2.y` = G;
//!   SM4.1 `gather4` without one gathers R) at LOD 0 (naga's `gather` is level-0 only,
//!   research/ir-and-passes.md §1);
//! - `_aoffimmi(u,v,w)` is an immediate offset; `gather4_po*` reads per-pixel offsets.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::ir::{
    Dim, Dimension, Imm, Lod, Offset, Reg, RegFile, ResRef, Scalar, ScalarType, TexInstr, TexOp,
    TypeName,
};

use super::tables::{tables, LodRule, Role};
use super::tokens::{Instruction, Operand, Walked, OPERAND_IMM32, OPERAND_IMM64};
use super::DxbcExtras;

/// What the declarations say about one resource register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResourceDecl {
    /// `resource_dims` code.
    pub dim: u8,
    /// The return-type word (4 bits per component), when declared.
    pub return_types: Option<u32>,
}

/// The resource declarations of a program, by (operand type, register or range id).
#[derive(Clone, Debug, Default)]
pub struct Decls {
    pub resources: HashMap<(u8, u64), ResourceDecl>,
    /// `dcl_sampler` modes by sampler id.
    pub samplers: HashMap<u64, u32>,
}

/// The declarations [`Decls`] records: `dcl_resource` and `dcl_uav_typed` (the dimension
/// in the controls, the return types in the first word), `dcl_resource_raw` and
/// `dcl_uav_raw` (dimension code 11, raw buffer), `dcl_resource_structured` and
/// `dcl_uav_structured` (code 12), `dcl_sampler` (the mode in the controls).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DeclKind {
    Typed,
    Raw,
    Structured,
    Sampler,
}

fn decl_kind(opcode: u16) -> Option<DeclKind> {
    let k = &tables().codes;
    if opcode == k.dcl_resource || opcode == k.dcl_uav_typed {
        Some(DeclKind::Typed)
    } else if opcode == k.dcl_resource_raw || opcode == k.dcl_uav_raw {
        Some(DeclKind::Raw)
    } else if opcode == k.dcl_resource_structured || opcode == k.dcl_uav_structured {
        Some(DeclKind::Structured)
    } else if opcode == k.dcl_sampler {
        Some(DeclKind::Sampler)
    } else {
        None
    }
}

/// The `resource_dims` code spelled `name`.
fn dim_code_named(name: &str) -> u8 {
    tables().dim_named(name).map_or(0, |d| d.code)
}

impl Decls {
    /// Whether instructions with `opcode` declare something [`Decls::add`] records; any
    /// other instruction can be skipped without decoding it.
    pub fn records(opcode: u16) -> bool {
        decl_kind(opcode).is_some()
    }

    /// Records `instr` when it declares a resource, UAV or sampler.
    pub fn add(&mut self, instr: &Instruction) {
        let Some(op) = instr.operands.first() else {
            return;
        };
        let Some(id) = op.first_index() else {
            return;
        };
        let entry = |dim: u8, ret: Option<u32>| ResourceDecl {
            dim,
            return_types: ret,
        };
        match decl_kind(instr.opcode) {
            Some(DeclKind::Typed) => {
                let d = entry((instr.controls & 0x1f) as u8, instr.words.first().copied());
                self.resources.insert((op.ty, id), d);
            }
            Some(DeclKind::Raw) => {
                self.resources
                    .insert((op.ty, id), entry(dim_code_named("raw_buffer"), None));
            }
            Some(DeclKind::Structured) => {
                self.resources.insert(
                    (op.ty, id),
                    entry(dim_code_named("structured_buffer"), None),
                );
            }
            Some(DeclKind::Sampler) => {
                self.samplers.insert(id, instr.controls & 0xf);
            }
            None => {}
        }
    }
}

/// The IR register file of a DX operand type; `None` for files a scalar cannot name
/// exactly (their scalars use [`RegFile::Other`] and the exact operand stays in the
/// instruction's extras).
pub fn simple_file(ty: u8) -> Option<RegFile> {
    let k = &tables().codes;
    if ty == k.temp {
        Some(RegFile::Temp)
    } else if ty == k.input {
        Some(RegFile::Input)
    } else if ty == k.output {
        Some(RegFile::Output)
    } else {
        None
    }
}

/// The DX operand type of a simple register file (`r`, `v`, `o`).
pub fn file_type(file: RegFile) -> Option<u8> {
    let k = &tables().codes;
    match file {
        RegFile::Temp => Some(k.temp),
        RegFile::Input => Some(k.input),
        RegFile::Output => Some(k.output),
        _ => None,
    }
}

/// The scalar lane `lane` of `op` reads (or, for a destination, component `lane`).
pub fn scalar(op: &Operand, lane: usize, ty: ScalarType) -> Scalar {
    match op.ty {
        OPERAND_IMM32 => {
            let bits = op.imm.get(lane).or(op.imm.first()).copied().unwrap_or(0);
            Scalar::Imm(Imm {
                bits: u64::from(bits),
                ty,
            })
        }
        OPERAND_IMM64 => {
            let pairs = op.imm.len() / 2;
            let at = 2 * lane.min(pairs.saturating_sub(1));
            let lo = op.imm.get(at).copied().unwrap_or(0);
            let hi = op.imm.get(at + 1).copied().unwrap_or(0);
            Scalar::Imm(Imm {
                bits: u64::from(lo) | u64::from(hi) << 32,
                ty: ScalarType::F64,
            })
        }
        ty if ty == tables().codes.null => Scalar::Zero,
        _ => {
            let simple = op.indices.len() == 1 && op.indices[0].rel.is_none() && op.modifier() == 0;
            let file = match simple_file(op.ty) {
                Some(f) if simple => f,
                _ => RegFile::Other(op.ty),
            };
            let index = op
                .indices
                .iter()
                .rev()
                .find(|i| i.rel.is_none())
                .map_or(0, |i| i.imm as u32);
            Scalar::Reg(Reg {
                file,
                index,
                sub: u32::from(op.component(lane)),
            })
        }
    }
}

/// The destination register's component `c` as a scalar.
fn dst_scalar(op: &Operand, c: usize) -> Scalar {
    let mut s = scalar(op, 0, ScalarType::U32);
    if let Scalar::Reg(r) = &mut s {
        r.sub = c as u32;
    }
    s
}

/// The binding a resource or sampler operand names: `t3`, or SM5.1 `T0[r1.x + 2]`.
pub fn res_ref(op: &Operand) -> ResRef {
    let id = op.indices.first().map_or(0, |i| i.imm as u32);
    match op.indices.get(1) {
        None => ResRef::Binding(id),
        Some(idx) => ResRef::Indexed {
            range: id,
            base: idx.imm as u32,
            dynamic: idx.rel.as_ref().map(|r| scalar(r, 0, ScalarType::U32)),
            nonuniform: op.nonuniform(),
        },
    }
}

fn scalar_type(t: u8) -> ScalarType {
    match t {
        b'i' => ScalarType::I32,
        b'u' => ScalarType::U32,
        b'd' => ScalarType::F64,
        _ => ScalarType::F32,
    }
}

fn return_type(code: u32) -> ScalarType {
    match code {
        3 => ScalarType::I32,
        4 => ScalarType::U32,
        5 => ScalarType::F32,
        7 => ScalarType::F64,
        other => {
            let name = tables().return_type(other as u8).unwrap_or("unknown");
            ScalarType::Other(match name {
                "unorm" => TypeName::UNORM,
                "snorm" => TypeName::SNORM,
                "mixed" => TypeName::MIXED,
                _ => TypeName::OTHER,
            })
        }
    }
}

/// Spatial coordinate count of a dimension.
fn coord_count(dim: Dim) -> usize {
    match dim {
        Dim::D1 | Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer => 1,
        Dim::D2 => 2,
        Dim::D3 | Dim::Cube => 3,
    }
}

/// The layout of a texture instruction's operands under a dimension: how many lanes of the
/// coordinate are spatial, whether one more is the array index, and whether the one after
/// is `ld`'s mip level.
#[derive(Clone, Copy, Debug)]
pub struct CoordLayout {
    pub spatial: usize,
    pub arrayed: bool,
    pub mip: bool,
}

/// The coordinate layout of `dim` for a fetch with `rule`.
pub fn coord_layout(dim: Dimension, rule: LodRule, lanes: usize) -> CoordLayout {
    match dim {
        Dimension::Known {
            dim,
            arrayed,
            multisampled,
        } => CoordLayout {
            spatial: coord_count(dim),
            arrayed,
            mip: rule == LodRule::Coord && !multisampled && dim != Dim::Buffer,
        },
        Dimension::Deferred => CoordLayout {
            spatial: lanes,
            arrayed: false,
            mip: false,
        },
    }
}

/// The address lane `ld` reads its mip level from: `.w` (`srcAddress.a`), whatever the
/// dimension (ld (sm4 - asm): "srcAddress.a (POS-swizzle) always provides the unsigned
/// integer mipmap level"; vkd3d reads it the same way).
pub const MIP_LANE: usize = 3;

/// The address lanes of an `ld`: the coordinates and layer in lanes 0.., then the mip level
/// in [`MIP_LANE`]; the lanes between repeat the first, as fxc writes unused lanes.
pub fn with_mip(mut lanes: Vec<Scalar>, mip: Scalar) -> Vec<Scalar> {
    let first = lanes.first().copied().unwrap_or(mip);
    lanes.resize(MIP_LANE, first);
    lanes.push(mip);
    lanes
}

/// The dimension of the resource `res` of `instr`.
pub fn dimension(instr: &Instruction, res: &Operand, decls: &Decls) -> Dimension {
    let code = match instr.resource_dim() {
        Some((code, _)) => Some(code),
        None => res
            .first_index()
            .and_then(|id| decls.resources.get(&(res.ty, id)))
            .map(|d| d.dim),
    };
    match code.and_then(|c| tables().dim(c)) {
        Some(d) => Dimension::Known {
            dim: d.dim,
            arrayed: d.arrayed,
            multisampled: d.ms,
        },
        None => Dimension::Deferred,
    }
}

/// Lanes an operand has (1 for scalars and single immediates, 4 otherwise).
fn lanes(op: &Operand) -> usize {
    if op.num_components == 2 && op.selection != super::tokens::SEL_SELECT1 {
        4
    } else {
        1
    }
}

/// Whether [`lift`] makes a texture instruction of `instr`, whatever the declarations: a
/// texture opcode with one operand per role of its table row, the roles its LOD rule reads
/// among them, and not a size or sample query of a UAV (`resinfo u0` stays an opaque item:
/// its `u#` slot is not a texture's `t#`).
pub fn lifts(instr: &Instruction) -> bool {
    lifts_shape(instr.opcode, instr.operands.len(), |i| instr.operands[i].ty)
}

/// [`lifts`] of an instruction a token-stream walk checked without decoding it.
pub fn lifts_walked(w: &Walked) -> bool {
    w.texture && lifts_shape(w.opcode, w.operands, |i| w.types[i])
}

/// [`lifts`] of an instruction with `opcode` and `operands` operands, `ty(i)` the register
/// file of operand `i` (asked only for an operand it has, of a texture instruction): by
/// [`LiftRules`], one look-up per instruction.
#[inline]
fn lifts_shape(opcode: u16, operands: usize, ty: impl Fn(usize) -> u8) -> bool {
    let rules = lift_rules();
    let Some(Some(rule)) = rules.opcodes.get(usize::from(opcode)) else {
        return false;
    };
    operands == usize::from(rule.operands)
        && rule
            .queried
            .is_none_or(|res| !rules.uav[usize::from(ty(usize::from(res)))])
}

/// What [`lifts`] asks of an instruction whose opcode can lift, from its texture row.
#[derive(Clone, Copy, Debug)]
struct LiftRule {
    /// The operands it must have: one per role.
    operands: u8,
    /// For a size or sample query, its resource operand, which must not be a UAV.
    queried: Option<u8>,
}

/// [`LiftRule`] of every opcode of the tables (`None`: its instructions never lift), and
/// which register files are UAVs (`u#`).
struct LiftRules {
    opcodes: Vec<Option<LiftRule>>,
    uav: [bool; 256],
}

/// [`LiftRules`], built from the tables once.
fn lift_rules() -> &'static LiftRules {
    static RULES: OnceLock<LiftRules> = OnceLock::new();
    RULES.get_or_init(|| {
        let t = tables();
        let opcodes = (0..t.ops.len())
            .map(|op| u16::try_from(op).ok().and_then(lift_rule))
            .collect();
        let uav = std::array::from_fn(|code| {
            u8::try_from(code)
                .ok()
                .and_then(|code| t.register_type(code))
                .is_some_and(|r| r.1 == "u")
        });
        LiftRules { opcodes, uav }
    })
}

/// The [`LiftRule`] of `opcode`: a texture row with a destination and a resource role and
/// the roles its LOD rule reads; `None` otherwise.
fn lift_rule(opcode: u16) -> Option<LiftRule> {
    let tex = tables().op(opcode)?.tex.as_ref()?;
    let at = |r: Role| tex.roles.iter().position(|x| *x == r);
    let lod_roles = match tex.lod {
        LodRule::Level => at(Role::Lod).is_some(),
        LodRule::Bias => at(Role::Bias).is_some(),
        LodRule::Mip => at(Role::Mip).is_some(),
        LodRule::Grad => at(Role::Ddx).is_some() && at(Role::Ddy).is_some(),
        LodRule::Implicit | LodRule::Zero | LodRule::Coord | LodRule::None => true,
    };
    let (Some(res), Some(_)) = (at(Role::Resource), at(Role::Dst)) else {
        return None;
    };
    let query = matches!(
        tex.op,
        TexOp::QuerySize | TexOp::QuerySamples | TexOp::BufferInfo
    );
    lod_roles.then_some(LiftRule {
        operands: u8::try_from(tex.roles.len()).ok()?,
        queried: query.then(|| u8::try_from(res)).transpose().ok()?,
    })
}

/// The result placement of a texture instruction: each destination component `c` in the
/// write mask, with the texture channel it receives, `swizzle[c]` of the resource operand
/// (sample (sm4 - asm): "the swizzle on srcResource determines how to swizzle the 4-vector
/// coming back from the texture sample/filter"), in component order.
fn placement<'a>(dst: &'a Operand, res: &'a Operand) -> impl Iterator<Item = (usize, usize)> + 'a {
    (0..4)
        .filter(move |c| dst.mask() & (1 << c) != 0 && dst.num_components == 2)
        .map(move |c| (c, res.component(c) as usize))
}

/// The destination components of `instr` that receive a texture channel an earlier
/// component already receives (`sample r0.zw, v0.xyxx, t0.wwww, s0`: `r0.z` and `r0.w`
/// both get alpha), each as (that component, the first one): the IR places each channel
/// once ([`TexInstr::dst`]), so a translation copies the channel to the others after the
/// instruction (`Codec::result_copies`).
pub fn result_copies(instr: &Instruction) -> Vec<(Scalar, Scalar)> {
    let Some(tex) = tables().op(instr.opcode).and_then(|i| i.tex.as_ref()) else {
        return Vec::new();
    };
    let role = |r: Role| {
        let i = tex.roles.iter().position(|x| *x == r)?;
        instr.operands.get(i)
    };
    let (Some(dst), Some(res)) = (role(Role::Dst), role(Role::Resource)) else {
        return Vec::new();
    };
    let mut first: [Option<Scalar>; 4] = [None; 4];
    let mut copies = Vec::new();
    for (c, channel) in placement(dst, res) {
        match first[channel] {
            Some(placed) => copies.push((dst_scalar(dst, c), placed)),
            None => first[channel] = Some(dst_scalar(dst, c)),
        }
    }
    copies
}

/// Lifts `instr` when it is a texture instruction whose operands match its roles. The
/// instruction is taken, not borrowed: it becomes the lifted instruction's [`DxbcExtras`]
/// without a copy of its operands (the callers decode it for this and drop it otherwise).
pub fn lift(instr: Instruction, decls: &Decls) -> Option<TexInstr> {
    let mut ir = lift_fields(&instr, decls)?;
    ir.origin = crate::ir::Origin::new(DxbcExtras { instr, text: None });
    Some(ir)
}

/// Whether `opcode` is a texture instruction's: the only instructions [`lift`] lifts.
pub fn is_texture_op(opcode: u16) -> bool {
    tables().op(opcode).is_some_and(|info| info.tex.is_some())
}

/// [`lift`] without the origin (`Origin::default()`), which the caller sets.
fn lift_fields(instr: &Instruction, decls: &Decls) -> Option<TexInstr> {
    if !lifts(instr) {
        return None;
    }
    let t = tables();
    let info = t.op(instr.opcode)?;
    let tex = info.tex.as_ref()?;
    let role = |r: Role| {
        tex.roles
            .iter()
            .position(|x| *x == r)
            .map(|i| &instr.operands[i])
    };
    let src_type = |r: Role| {
        let i = tex.roles.iter().position(|x| *x == r)?;
        let types: Vec<u8> = info
            .dst_types
            .iter()
            .chain(&info.src_types)
            .copied()
            .collect();
        types.get(i).map(|c| scalar_type(*c))
    };
    let res = role(Role::Resource)?;
    let dst = role(Role::Dst)?;
    let mut op = tex.op;
    if let TexOp::Gather { .. } = op {
        let component = role(Role::Sampler).map_or(0, |s| {
            if s.num_components == 2 && s.selection == super::tokens::SEL_SELECT1 {
                s.comp & 3
            } else {
                0
            }
        });
        op = TexOp::Gather { component };
    }
    let mut ir = TexInstr::new(op, res_ref(res), crate::ir::Origin::default());
    ir.dim = dimension(instr, res, decls);
    ir.sampler = role(Role::Sampler).map(res_ref);
    let one = |r: Role| role(r).map(|o| scalar(o, 0, src_type(r).unwrap_or(ScalarType::F32)));
    // Coordinates.
    let coord_ty = src_type(Role::Coord).unwrap_or(ScalarType::F32);
    ir.coord_type = [Role::Coord, Role::ByteOffset]
        .into_iter()
        .find_map(|r| role(r).and(src_type(r)));
    let layout = role(Role::Coord).map(|c| coord_layout(ir.dim, tex.lod, lanes(c)));
    if let (Some(c), Some(l)) = (role(Role::Coord), layout) {
        ir.coord = (0..l.spatial).map(|i| scalar(c, i, coord_ty)).collect();
        if l.arrayed {
            ir.array_index = Some(scalar(c, l.spatial, coord_ty));
        }
    }
    match tex.op {
        TexOp::LoadRaw => ir.coord = one(Role::ByteOffset).into_iter().collect(),
        TexOp::LoadStructured => {
            ir.coord = [one(Role::Index), one(Role::ByteOffset)]
                .into_iter()
                .flatten()
                .collect()
        }
        _ => {}
    }
    // Level of detail.
    ir.lod = match tex.lod {
        LodRule::Implicit => Lod::Implicit,
        LodRule::Zero | LodRule::None => Lod::Zero,
        LodRule::Level => Lod::Level(one(Role::Lod)?),
        LodRule::Bias => Lod::Bias(one(Role::Bias)?),
        LodRule::Mip => Lod::Level(one(Role::Mip)?),
        LodRule::Grad => {
            let n = layout.map_or(1, |l| l.spatial);
            let lanes =
                |r: Role| role(r).map(|o| (0..n).map(|i| scalar(o, i, ScalarType::F32)).collect());
            Lod::Grad {
                dx: lanes(Role::Ddx)?,
                dy: lanes(Role::Ddy)?,
            }
        }
        LodRule::Coord => match (role(Role::Coord), layout) {
            // "srcAddress.a (POS-swizzle) always provides the unsigned integer mipmap
            // level" (ld (sm4 - asm)), whatever the dimension.
            (Some(c), Some(l)) if l.mip => Lod::Level(scalar(c, MIP_LANE, coord_ty)),
            _ => Lod::Zero,
        },
    };
    ir.depth_ref = one(Role::Ref);
    ir.min_lod = one(Role::Clamp);
    ir.sample_index = one(Role::Sample);
    ir.offset = match (instr.aoffimmi(), role(Role::Offset)) {
        (_, Some(o)) => {
            let n = layout.map_or(2, |l| l.spatial);
            Offset::Dynamic((0..n).map(|i| scalar(o, i, ScalarType::I32)).collect())
        }
        (Some(imm), None) => Offset::Imm(imm),
        (None, None) => Offset::None,
    };
    // Result placement: dest component c receives texture channel swizzle[c]; a channel
    // the swizzle names twice is placed at its first component (`result_copies`).
    for (c, channel) in placement(dst, res) {
        if ir.dst[channel].is_none() {
            ir.dst[channel] = Some(dst_scalar(dst, c));
        }
    }
    if let Some(status) = role(Role::Status) {
        ir.flags.residency = true;
        let c = (0..4).find(|c| status.mask() & (1 << c) != 0).unwrap_or(0);
        ir.status_dst = Some(dst_scalar(status, c));
    }
    let k = &t.codes;
    ir.result_type = match instr.opcode {
        // resinfo `_uint` (controls 2; `_rcpfloat` = 1 is a float) and sampleinfo `_uint`
        // (controls 1).
        op if op == k.resinfo || op == k.sampleinfo => Some(
            if instr.controls & 3 != 0 && (op == k.sampleinfo || instr.controls & 3 == 2) {
                ScalarType::U32
            } else {
                ScalarType::F32
            },
        ),
        _ => {
            let word = instr
                .return_types()
                .map(|r| {
                    r.iter()
                        .enumerate()
                        .fold(0, |w, (i, c)| w | u32::from(*c) << (4 * i))
                })
                .or_else(|| {
                    res.first_index()
                        .and_then(|id| decls.resources.get(&(res.ty, id)))
                        .and_then(|d| d.return_types)
                });
            match word {
                Some(w) if (0..4).all(|i| (w >> (4 * i)) & 0xf == w & 0xf) => {
                    Some(return_type(w & 0xf))
                }
                Some(_) => Some(ScalarType::Other(TypeName::MIXED)),
                None => info.dst_types.first().map(|c| scalar_type(*c)),
            }
        }
    };
    Some(ir)
}
