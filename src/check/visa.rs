//! The Intel vISA model: `.visaasm` text (a kernel file or bare instructions) or a stream of
//! binary sampler instructions.
//!
//! Sampler instructions are read by the codec's parsers ([`parse_text_instructions`],
//! [`decode_instruction`]) into [`VisaInst`] (raw operands, surface, sampler, channels,
//! aoffimmi, exec size); what each parameter means is this module's own table
//! ([`params`]), from the seeds: seeds/visa-3D_SAMPLE.md and seeds/visa-3D_LOAD.md
//! (parameter tables, "u, v, r, ai by surface type"), seeds/visa-GATHER4_TYPED.md, and
//! research/intel-visa.md (sample4 as 3D_SAMPLE's order; resinfo `lod`; `load_2dms_w`'s two
//! or four MCS words chosen by the sample index's type; 3D_LOAD `u v r [lod]` for
//! `ld_lz`/`ld_mcs`/`ld2dms_w`, where the seed's binary Format tables disagree and IGC's data
//! flow wins).
//!
//! vISA instructions carry no dimension: it comes from the bindings row of the surface
//! (and sampler). Without one the request has no dimension and its coordinates are the
//! parameters u, v, r as given.
//!
//! SIMD: the model evaluates lane 0 only. A raw operand `V57.64` is the element at byte 64
//! of variable 57 (aliases resolved to their root variable); a register of the model is
//! `Reg { Temp, root variable, byte offset }`, the lane-0 element the register map names.
//! Results: each enabled channel starts a new GRF (32 bytes): channel k of the enabled set
//! at `dst + k · roundup(exec · size, 32)` (seed Notes; research "Destination stride").
//! Omitted trailing parameters read as 0 (seed Notes); a `%null.0` parameter is an error
//! when the surface's dimension uses it (research: "treat them as unknown, never as 0"),
//! except `gather4_typed`'s LOD, which IGC leaves `%null` for a typed (UAV) read: the request
//! then reads level 0. `scatter4_typed` (a store) is not modelled: an error.
//!
//! ALU instructions evaluated (lane 0): `mov` (with the type conversion its operand types
//! imply), `rndne`, `rndd`, `rndu`, `rndz`, `min`, `max`, `mul`, `inv`, `and`, `shl`, `shr`,
//! `asr`, `bfe`, `bfi` (32-bit destinations; immediate width and offset), with `.sat` and the `(-)`/`(abs)` source modifiers. Declarations, directives, labels, comments, `movs`
//! (surface and sampler state, no general register) and `ret` are skipped; anything else
//! is an error. Binary input holds sampler instructions only.

use std::collections::HashMap;

use crate::check::{
    coord_count, packed_offsets, register_offsets, resource_id, Error, Execution, InitialFile,
    LodReq, Machine, ReqOp, Request, Role, Value, ValueOp,
};
use crate::ir::{Dim, Dimension, Isa, Program, Reg, RegFile};
use crate::isa::visa::{
    decode_instruction, general_variable, parse_text_instructions, variable_type, Aoffimmi, Checks,
    Raw, VisaInst,
};
use crate::translate::bindings::Bindings;

const ISA: Isa = Isa::Visa;
/// GRF size in bytes on SKL..TGLLP (research "Destination stride").
const GRF: u32 = 32;

/// What a parameter slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum P {
    /// Coordinate u.
    U,
    /// Coordinate v.
    V,
    /// Coordinate r.
    R,
    /// Array index.
    Ai,
    /// LOD bias.
    Bias,
    /// LOD.
    Lod,
    /// Depth-compare reference.
    Ref,
    /// du/dx.
    Dudx,
    /// du/dy.
    Dudy,
    /// dv/dx.
    Dvdx,
    /// dv/dy.
    Dvdy,
    /// dr/dx.
    Drdx,
    /// dr/dy.
    Drdy,
    /// Sample index.
    Si,
    /// MCS word i.
    Mcs(u8),
    /// Offset u (`sample4_po`).
    OffU,
    /// Offset v (`sample4_po`).
    OffV,
}

/// An op's request op and parameter order, by opcode and sub-op (seeds' parameter tables).
pub fn params(opcode: u8, subop: u8, wide_ms: bool) -> Option<(ReqOp, Vec<P>)> {
    use P::*;
    let uvra = vec![U, V, R, Ai];
    let grads = vec![U, Dudx, Dudy, V, Dvdx, Dvdy, R, Drdx, Drdy, Ai];
    let with = |first: &[P], rest: Vec<P>| first.iter().copied().chain(rest).collect::<Vec<_>>();
    Some(match (opcode, subop) {
        (0x6d, 0 | 24) => (ReqOp::Sample, uvra),
        (0x6d, 1) => (ReqOp::Sample, with(&[Bias], uvra)),
        (0x6d, 2) => (ReqOp::Sample, with(&[Lod], uvra)),
        (0x6d, 3 | 25) => (ReqOp::Sample, with(&[Ref], uvra)),
        (0x6d, 4) => (ReqOp::Sample, grads),
        (0x6d, 5) => (ReqOp::Sample, with(&[Ref, Bias], uvra)),
        (0x6d, 6) => (ReqOp::Sample, with(&[Ref, Lod], uvra)),
        (0x6d, 9) => (ReqOp::QueryLod, uvra),
        (0x6d, 20) => (ReqOp::Sample, with(&[Ref], grads)),
        (0x6e, 7) => (ReqOp::Fetch, vec![U, V, Lod, R]),
        (0x6e, 26) => (ReqOp::Fetch, vec![U, V, R]),
        (0x6e, 28) if wide_ms => (
            ReqOp::Fetch,
            vec![Si, Mcs(0), Mcs(1), Mcs(2), Mcs(3), U, V, R, Lod],
        ),
        (0x6e, 28) => (ReqOp::Fetch, vec![Si, Mcs(0), Mcs(1), U, V, R, Lod]),
        (0x6e, 29) => (ReqOp::FetchMcs, vec![U, V, R, Lod]),
        (0x6f, 8) => (ReqOp::Gather { channel: 0 }, uvra),
        (0x6f, 16) => (ReqOp::Gather { channel: 0 }, with(&[Ref], uvra)),
        (0x6f, 17) => (ReqOp::Gather { channel: 0 }, vec![U, V, OffU, OffV, R]),
        (0x6f, 18) => (ReqOp::Gather { channel: 0 }, vec![Ref, U, V, OffU, OffV, R]),
        (0x70, 10) => (ReqOp::QuerySize, vec![Lod]),
        (0x70, 11) => (ReqOp::QuerySamples, vec![]),
        (0x4b, _) => (ReqOp::LoadTyped, vec![U, V, R, Lod]),
        _ => return None,
    })
}

/// Declarations the model needs: element types and aliases of general variables.
#[derive(Default)]
struct Vars {
    /// Variable index → (type name, alias root index and byte offset).
    types: HashMap<u32, &'static str>,
    alias: HashMap<u32, (u32, u32)>,
}

impl Vars {
    /// The root variable and byte offset of `(var, offset)`.
    fn root(&self, mut var: u32, mut offset: u32) -> (u32, u32) {
        for _ in 0..16 {
            match self.alias.get(&var) {
                Some((v, o)) => {
                    offset += o;
                    var = *v;
                }
                None => break,
            }
        }
        (var, offset)
    }

    fn reg(&self, var: u32, offset: u32) -> Reg {
        let (var, offset) = self.root(var, offset);
        Reg {
            file: RegFile::Temp,
            index: var,
            sub: offset,
        }
    }

    fn size(&self, var: u32) -> u32 {
        match self.types.get(&var).copied() {
            Some("uw" | "w" | "hf" | "bf") => 2,
            Some("ub" | "b") => 1,
            Some("uq" | "q" | "df") => 8,
            _ => 4,
        }
    }
}

fn read_vars(program: &Program, text: &str) -> Vars {
    let mut vars = Vars::default();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix(".decl ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(name) = words.next() else { continue };
        let Some(index) = general_variable(program, name) else {
            continue;
        };
        if let Some(t) = variable_type(program, index) {
            vars.types.insert(index, t);
        }
        if let Some(a) = rest.find("alias=<") {
            let inner = &rest[a + 7..];
            if let Some((target, off)) = inner.split_once(',') {
                let off = off.trim().trim_end_matches('>').trim();
                if let (Some(t), Ok(o)) =
                    (general_variable(program, target.trim()), off.parse::<u32>())
                {
                    vars.alias.insert(index, (t, o));
                }
            }
        }
    }
    vars
}

fn role_of(p: P, fetch: bool) -> Role {
    match p {
        P::U | P::V | P::R | P::Ai if fetch => Role::SmallInt,
        P::U | P::V | P::Dudx | P::Dudy | P::Dvdx | P::Dvdy | P::Drdx | P::Drdy => Role::Float,
        P::R | P::Ai => Role::FloatLayer,
        P::Bias => Role::Lod,
        P::Lod if fetch => Role::SmallInt,
        P::Lod => Role::Lod,
        P::Ref => Role::Reference,
        P::Si => Role::SmallInt,
        // Any 32 bits: the low 6 are the offset (sign and ignored bits exercised).
        P::OffU | P::OffV => Role::Any,
        P::Mcs(_) => Role::Any,
    }
}

/// Evaluates one sampler instruction.
fn texture(
    m: &mut Machine,
    inst: &VisaInst,
    vars: &Vars,
    bindings: &Bindings,
    at: &str,
) -> Result<(), Error> {
    m.begin_texture();
    let wide = inst.opcode == 0x6e
        && inst.subop == 28
        && inst.params.first().is_some_and(|p| vars.size(p.var) == 2);
    let (op, order) = params(inst.opcode, inst.subop, wide).ok_or_else(|| {
        Error::model(
            ISA,
            at,
            format!(
                "opcode {:#x} sub-op {} is not modelled",
                inst.opcode, inst.subop
            ),
        )
    })?;
    let fetch = matches!(op, ReqOp::Fetch | ReqOp::FetchMcs | ReqOp::LoadTyped);
    let resource = resource_id(
        bindings,
        ISA,
        u32::from(inst.surface),
        inst.sampler.map(u32::from),
        match inst.sampler {
            Some(s) => format!("T{}/S{s}", inst.surface),
            None => format!("T{}", inst.surface),
        },
    );
    let dim = match &resource {
        crate::check::ResourceId::Row(r) => bindings.rows.get(*r).map(|b| b.dim),
        _ => None,
    };
    // Which slots the dimension reads: spatial coordinates and the layer slot.
    let (coords, layer): (Vec<P>, Option<P>) = match dim {
        Some(Dimension::Known { dim, arrayed, .. }) => {
            let c = [P::U, P::V, P::R][..coord_count(dim).min(3)].to_vec();
            let l = match (dim, arrayed) {
                (Dim::D1, true) => Some(P::V),
                (Dim::D2, true) => Some(P::R),
                (Dim::Cube, true) => Some(P::Ai),
                _ => None,
            };
            (c, l)
        }
        _ => (vec![P::U, P::V, P::R], None),
    };
    let mut values: Vec<(P, Option<Value>)> = Vec::new();
    for (i, p) in order.iter().enumerate() {
        let v = match inst.params.get(i) {
            None => Some(Value::Bits(0)),
            Some(Raw { var: 0, .. }) => None,
            Some(raw) => {
                let r = vars.reg(raw.var, u32::from(raw.offset));
                Some(m.read(r, role_of(*p, fetch)))
            }
        };
        values.push((*p, v));
    }
    let get = |p: P| -> Result<Value, Error> {
        match values.iter().find(|(k, _)| *k == p) {
            Some((_, Some(v))) => Ok(v.clone()),
            Some((_, None)) => Err(Error::model(
                ISA,
                at,
                format!("parameter {p:?} is %null but the surface reads it"),
            )),
            None => Ok(Value::Bits(0)),
        }
    };
    let has = |p: P| order.contains(&p);
    let mut r = Request::new(op.clone(), resource.clone());
    if inst.sampler.is_some() {
        r.sampler = Some(resource.clone());
    }
    r.dim = dim;
    if !matches!(op, ReqOp::QuerySize | ReqOp::QuerySamples) {
        for p in &coords {
            if dim.is_none() && values.iter().any(|(k, v)| k == p && v.is_none()) {
                continue;
            }
            r.coords.push(get(*p)?);
        }
        if let Some(l) = layer {
            r.layer = Some(get(l)?.unary(if fetch {
                ValueOp::IntLayer
            } else {
                ValueOp::FloatLayer
            }));
        }
    }
    r.lod = match (inst.opcode, inst.subop) {
        (0x6d, 24 | 25) | (0x6e, 26) => LodReq::Zero,
        (0x6d, 1 | 5) => LodReq::Bias(get(P::Bias)?),
        (0x6d, 4 | 20) => {
            let n = coords.len();
            let dx = [P::Dudx, P::Dvdx, P::Drdx][..n]
                .iter()
                .map(|p| get(*p))
                .collect::<Result<_, _>>()?;
            let dy = [P::Dudy, P::Dvdy, P::Drdy][..n]
                .iter()
                .map(|p| get(*p))
                .collect::<Result<_, _>>()?;
            LodReq::Grad { dx, dy }
        }
        // A typed surface read's `%null` LOD: a UAV view has one level.
        (0x4b, _) if values.iter().any(|(k, v)| *k == P::Lod && v.is_none()) => LodReq::Zero,
        _ if has(P::Lod) => LodReq::level(get(P::Lod)?),
        _ => LodReq::Implicit,
    };
    if has(P::Ref) {
        r.reference = Some(get(P::Ref)?);
    }
    if has(P::Si) {
        r.sample_index = Some(get(P::Si)?);
        r.mcs = values
            .iter()
            .filter(|(k, _)| matches!(k, P::Mcs(_)))
            .map(|(_, v)| v.clone().unwrap_or(Value::Bits(0)))
            .collect();
    }
    if has(P::OffU) {
        // 6-bit two's complement, as DX's gather4_po that the message implements (the
        // seeds give no width; docs/visa.md "Programmable offsets").
        r.offsets = register_offsets(r.dim, &[get(P::OffU)?, get(P::OffV)?], 6);
    } else if let Some(a) = inst.aoffimmi {
        // Aoffimmi: U bits 11:8, V 7:4, R 3:0 (seed 3D_SAMPLE "Aoffimmi"), an immediate or a
        // variable read as a scalar (lane 0) of its declared type, a UW when undeclared.
        let v = match a {
            Aoffimmi::Imm { value, .. } => Value::Bits(value),
            Aoffimmi::Var { var, row, col, .. } => {
                let ty = vars.types.get(&var).copied().unwrap_or("uw");
                let offset = u32::from(row) * GRF + u32::from(col) * type_size(ty);
                let v = m.read(vars.reg(var, offset), Role::Offsets4);
                if type_size(ty) < 4 {
                    let width = 8 * type_size(ty) as u8;
                    Value::apply(ValueOp::Field { lo: 0, width }, vec![v])
                } else {
                    v
                }
            }
        };
        r.offsets = packed_offsets(dim, &v, [8, 4, 0], 4);
    }
    let gather = inst.opcode == 0x6f;
    if gather {
        r.op = ReqOp::Gather {
            channel: inst.channels,
        };
        r.channels = 0xf;
    } else {
        r.channels = inst.channels & 0xf;
    }
    let pnm = 1u16 << 8;
    r.residency = inst.modifiers & pnm != 0;
    let k = m.request(r.clone(), at.to_string());
    // Results: enabled channels in RGBA order, each from a new GRF.
    let size = vars.size(inst.dst.var);
    let stride = (u32::from(inst.exec_size) * size).div_ceil(GRF).max(1) * GRF;
    let mut slot = 0;
    if inst.dst.var != 0 {
        for c in 0..4u8 {
            if r.channels & (1 << c) == 0 {
                continue;
            }
            let reg = vars.reg(inst.dst.var, u32::from(inst.dst.offset) + slot * stride);
            m.write(
                reg,
                Value::Result {
                    request: k,
                    channel: c,
                },
            );
            slot += 1;
        }
        if r.residency {
            let reg = vars.reg(inst.dst.var, u32::from(inst.dst.offset) + slot * stride);
            m.write(
                reg,
                Value::Result {
                    request: k,
                    channel: 4,
                },
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// ALU
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Opnd {
    Reg {
        reg: Reg,
        ty: &'static str,
        abs: bool,
        neg: bool,
    },
    Imm {
        bits: u32,
        ty: String,
    },
}

fn type_size(ty: &str) -> u32 {
    match ty {
        "uw" | "w" | "hf" | "bf" => 2,
        "ub" | "b" => 1,
        "uq" | "q" | "df" => 8,
        _ => 4,
    }
}

/// Parses a general operand `NAME(row,col)<...>` with an optional `(-)`/`(abs)` modifier,
/// or an immediate `value:type`.
fn parse_opnd(s: &str, program: &Program, vars: &Vars) -> Option<Opnd> {
    let (mut abs, mut neg) = (false, false);
    let mut s = s;
    for (m, a, n) in [
        ("(-abs)", true, true),
        ("(abs)", true, false),
        ("(-)", false, true),
    ] {
        if let Some(rest) = s.strip_prefix(m) {
            abs = a;
            neg = n;
            s = rest;
        }
    }
    if let Some((value, ty)) = s.rsplit_once(':') {
        if !value.contains('(') {
            let ty = ty.to_ascii_lowercase();
            let bits = if let Some(h) = value
                .strip_prefix("0x")
                .or_else(|| value.strip_prefix("0X"))
            {
                u32::from_str_radix(h, 16).ok()?
            } else if ty == "f" {
                value.parse::<f32>().ok()?.to_bits()
            } else {
                value.parse::<i64>().ok()? as u32
            };
            return Some(Opnd::Imm { bits, ty });
        }
    }
    let open = s.find('(')?;
    let name = &s[..open];
    let close = s[open..].find(')')? + open;
    let (row, col) = s[open + 1..close].split_once(',')?;
    let (row, col): (u32, u32) = (row.trim().parse().ok()?, col.trim().parse().ok()?);
    let var = general_variable(program, name)?;
    let ty = vars.types.get(&var).copied().unwrap_or("ud");
    let offset = row * GRF + col * type_size(ty);
    Some(Opnd::Reg {
        reg: vars.reg(var, offset),
        ty,
        abs,
        neg,
    })
}

fn is_float(ty: &str) -> bool {
    matches!(ty, "f")
}

fn is_signed(ty: &str) -> bool {
    matches!(ty, "d" | "w" | "b" | "q")
}

fn read_opnd(m: &mut Machine, o: &Opnd, role: Role) -> Result<(Value, String), String> {
    match o {
        Opnd::Imm { bits, ty } => Ok((Value::Bits(*bits), ty.clone())),
        Opnd::Reg { reg, ty, abs, neg } => {
            if matches!(*ty, "hf" | "bf" | "df" | "q" | "uq") {
                return Err(format!("operands of type {ty} are not modelled"));
            }
            let mut v = m.read(*reg, if is_float(ty) { Role::Float } else { role });
            if type_size(ty) == 2 {
                v = Value::apply(ValueOp::Field { lo: 0, width: 16 }, vec![v]);
            }
            if *abs || *neg {
                if !is_float(ty) {
                    return Err("a source modifier on an integer operand is not modelled".into());
                }
                if *abs {
                    v = v.unary(ValueOp::FAbs);
                }
                if *neg {
                    v = v.unary(ValueOp::FNeg);
                }
            }
            Ok((v, ty.to_string()))
        }
    }
}

/// Evaluates one ALU line; `Ok(false)` when the mnemonic is not an ALU op of the model.
fn alu(m: &mut Machine, line: &str, program: &Program, vars: &Vars) -> Result<bool, String> {
    let mut s = line.trim();
    if s.starts_with('(') {
        // A predicate `(P1)` / `(!P1)`: evaluated as if it held.
        s = s[s.find(')').ok_or("unclosed predicate")? + 1..].trim_start();
    }
    let (mnemonic, rest) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
    let (base, sat) = match mnemonic.strip_suffix(".sat") {
        Some(b) => (b, true),
        None => (mnemonic, false),
    };
    if !matches!(
        base,
        "mov"
            | "rnde"
            | "rndne"
            | "rndd"
            | "rndu"
            | "rndz"
            | "min"
            | "max"
            | "mul"
            | "inv"
            | "and"
            | "shl"
            | "shr"
            | "asr"
            | "bfe"
            | "bfi"
            | "mad"
            | "log"
            | "cmp.ge"
    ) {
        return Ok(false);
    }
    let rest = rest.trim_start();
    let exec_end = rest.find(')').ok_or("missing exec size")?;
    let ops: Vec<&str> = rest[exec_end + 1..].split_whitespace().collect();
    let parse =
        |t: &str| parse_opnd(t, program, vars).ok_or_else(|| format!("cannot read operand `{t}`"));
    let dst = parse(ops.first().ok_or("missing destination")?)?;
    let Opnd::Reg {
        reg: dreg, ty: dty, ..
    } = dst
    else {
        return Err("the destination is not a variable".into());
    };
    let srcs = ops[1..]
        .iter()
        .map(|t| parse(t))
        .collect::<Result<Vec<_>, _>>()?;
    let nsrc = match base {
        "min" | "max" | "mul" | "and" | "shl" | "shr" | "asr" | "cmp.ge" => 2,
        "bfe" | "mad" => 3,
        "bfi" => 4,
        _ => 1,
    };
    if srcs.len() != nsrc {
        return Err(format!("{base} takes {nsrc} source operands"));
    }
    let role = Role::SmallInt;
    let (a, aty) = read_opnd(m, &srcs[0], role)?;
    use ValueOp as O;
    let v = match base {
        "mov" => match (is_float(dty), is_float(&aty)) {
            (true, true) | (false, false) => {
                if type_size(dty) == 2 {
                    a.unary(O::Low16)
                } else {
                    a
                }
            }
            (true, false) => a.unary(if is_signed(&aty) {
                O::I32ToF32
            } else {
                O::U32ToF32
            }),
            (false, true) => a.unary(if is_signed(dty) {
                O::F32ToI32
            } else {
                O::F32ToU32
            }),
        },
        // `rnde` is the mnemonic GenX_IR accepts (and texlate's backend emits).
        "rnde" | "rndne" => a.unary(O::RoundNe),
        "rndd" => a.unary(O::RoundNi),
        "rndu" => a.unary(O::RoundPi),
        "rndz" => a.unary(O::RoundZ),
        "inv" => a.unary(O::FRcp),
        // `bfe`/`bfi width offset src [base]` (vISA BFE 0x46 / BFI 0x47, the Gen
        // instructions): width and offset `& 31`, the field cut at bit 31; `bfe` of width 0
        // is 0, sign-extended on a signed destination; `bfi` of width 0 is `base`.
        "bfe" | "bfi" => {
            if type_size(dty) != 4 || sat {
                return Err(format!("{base} to type {dty} is not modelled"));
            }
            let (o, _) = read_opnd(m, &srcs[1], role)?;
            let (w, o) = match (a.bits(), o.bits()) {
                (Some(w), Some(o)) => (w & 31, o & 31),
                _ => {
                    return Err(format!(
                        "{base} with a register width or offset is not modelled"
                    ))
                }
            };
            let (x, _) = read_opnd(m, &srcs[2], role)?;
            let field = |lo: u32, width: u32| (lo as u8, width.min(32 - lo) as u8);
            if base == "bfe" {
                let (lo, width) = field(o, w);
                match w {
                    0 => Value::Bits(0),
                    _ if is_signed(dty) => Value::apply(O::SignedField { lo, width }, vec![x]),
                    _ => Value::apply(O::Field { lo, width }, vec![x]),
                }
            } else {
                let (b, _) = read_opnd(m, &srcs[3], role)?;
                let (lo, width) = field(o, w);
                match w {
                    0 => b,
                    _ => Value::apply(O::InsertField { lo, width }, vec![x, b]),
                }
            }
        }
        // The gradient approximation's LOD arithmetic: `log` is base 2; `mad` is modelled
        // fused, as NVIDIA's FFMA; `cmp.ge` to a general 32-bit destination writes all ones
        // or 0 per lane.
        "log" => a.unary(O::FLog2),
        "mad" => {
            let (b, _) = read_opnd(m, &srcs[1], role)?;
            let (c, _) = read_opnd(m, &srcs[2], role)?;
            Value::apply(O::FFma, vec![a, b, c])
        }
        "cmp.ge" => {
            if is_float(dty) || type_size(dty) != 4 || !is_float(&aty) {
                return Err(format!("cmp.ge to type {dty} is not modelled"));
            }
            let (b, _) = read_opnd(m, &srcs[1], role)?;
            Value::apply(O::FGeMask, vec![a, b])
        }
        _ => {
            let (b, _) = read_opnd(m, &srcs[1], role)?;
            let op = match (base, is_float(dty), is_signed(dty)) {
                ("mul", true, _) => O::FMul,
                ("min", true, _) => O::FMin,
                ("max", true, _) => O::FMax,
                ("min", false, false) => O::UMin,
                ("max", false, false) => O::UMax,
                ("min", false, true) => O::IMin,
                ("max", false, true) => O::IMax,
                ("and" | "shl" | "shr" | "asr", false, _) if type_size(dty) != 4 => {
                    return Err(format!("{base} to type {dty} is not modelled"))
                }
                ("and", false, _) => O::And,
                ("shl", false, _) => O::Shl,
                ("shr", false, _) => O::Shr,
                ("asr", false, _) => O::Asr,
                _ => return Err(format!("{base} on type {dty} is not modelled")),
            };
            Value::apply(op, vec![a, b])
        }
    };
    if matches!(
        base,
        "rnde" | "rndne" | "rndd" | "rndu" | "rndz" | "inv" | "log" | "mad"
    ) && !is_float(dty)
    {
        return Err(format!("{base} to type {dty} is not modelled"));
    }
    let v = if sat {
        if !is_float(dty) {
            // A float-to-integer `mov.sat` clamps to the destination's range, as the model's
            // conversion already does (NaN → 0).
            if base == "mov" && is_float(&aty) {
                v
            } else {
                return Err(".sat on an integer destination is not modelled".into());
            }
        } else {
            v.unary(O::FSat)
        }
    } else {
        v
    };
    m.write(dreg, v);
    Ok(true)
}

/// Whether a text line cannot touch general registers (declarations, directives, labels,
/// comments, `movs`, `ret`).
fn skipped(line: &str) -> bool {
    let s = line.trim();
    s.is_empty()
        || s.starts_with("//")
        || s.starts_with('.')
        || (s.ends_with(':') && !s.contains(char::is_whitespace))
        || s.starts_with("movs ")
        || s.starts_with("ret ")
        || s == "ret"
}

/// Runs the model over a whole program.
pub fn run(program: &[u8], init: InitialFile, bindings: &Bindings) -> Result<Execution, Error> {
    let mut m = Machine::new(init);
    if crate::isa::visa::looks_binary(program) {
        if program.starts_with(b"CISA") {
            return Err(Error::model(
                ISA,
                "offset 0x0",
                "a .isa container (IGC 12504 truncated every instruction); give the .visaasm text",
            ));
        }
        let vars = Vars::default();
        let mut at = 0;
        while at < program.len() {
            let (inst, next) = decode_instruction(program, at).map_err(|e| Error::read(ISA, e))?;
            texture(&mut m, &inst, &vars, bindings, &format!("offset {at:#x}"))?;
            at = next;
        }
        return Ok(m.into());
    }
    let text = std::str::from_utf8(program)
        .map_err(|e| Error::model(ISA, "input", format!("not UTF-8: {e}")))?;
    let (prog, insts) =
        parse_text_instructions(text, Checks::IgcCompatible).map_err(|e| Error::read(ISA, e))?;
    let vars = read_vars(&prog, text);
    let by_line: HashMap<u32, &VisaInst> = insts.iter().map(|(l, i)| (*l, i)).collect();
    for (i, line) in text.lines().enumerate() {
        let no = i as u32 + 1;
        let at = format!("line {no}");
        if let Some(inst) = by_line.get(&no) {
            texture(&mut m, inst, &vars, bindings, &at)?;
            continue;
        }
        let code = line.split("//").next().unwrap_or("");
        if skipped(code) {
            continue;
        }
        match alu(&mut m, code, &prog, &vars) {
            Ok(true) => {}
            Ok(false) => {
                return Err(Error::model(
                    ISA,
                    at,
                    format!("instruction `{}` is not modelled", code.trim()),
                ))
            }
            Err(e) => return Err(Error::model(ISA, at, format!("`{}`: {e}", code.trim()))),
        }
    }
    Ok(m.into())
}
