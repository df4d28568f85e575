//! The semantic check: an independent model of what each texture instruction asks the
//! sampler, per ISA, and a comparison of a source program with its translation.
//!
//! A translation is right when the vendor tool accepts it *and* it asks the sampler the same
//! questions as its source. This module answers the second half without trusting the
//! translator: each ISA has a small interpreter ([`visa`], [`dxbc`], [`nvidia`]) that runs a
//! whole program in order over a register file. Texture instructions produce a [`Request`]
//! (op, resource, dimension, coordinates, layer, LOD, offsets, ...) and write symbolic results
//! ([`Value::Result`]) into their destination registers; the few ALU instructions a
//! translation emits around them (moves, conversions, `min`/`max`, `mul`, `rcp`) transform
//! values, symbolic ones included.
//!
//! The models are written from the seeds (`shared/seeds/`) and the research tables
//! (`shared/research/`), **not** from the translation passes or the codecs' lift/lower code
//! (they are what the check checks). They use only the codecs' instruction-level decoders:
//! NVIDIA [`crate::isa::nvidia::decode_word`] / [`crate::isa::nvidia::parse_inst`], DXBC
//! [`crate::isa::dxbc::tokens`] / [`crate::isa::dxbc::container`], vISA
//! [`crate::isa::visa::decode_instruction`] / [`crate::isa::visa::parse_text_instructions`]. Which
//! register or parameter holds what is this module's own data, each table citing its source.
//!
//! [`compare`] draws a random initial register file for the source (seeded), builds the
//! target's through the register map, runs both models, and compares the requests in order
//! and the final value of every register the source wrote. A disagreement is a
//! [`CheckReport`] with [`CheckReport::agrees`] false, naming the field and both values; an
//! `Err` means a model could not read its input.
//!
//! Canonical forms, so equal questions compare equal across ISAs: an explicit LOD of +0.0,
//! -0.0 or integer 0 is [`LodReq::Zero`]; all-zero immediate offsets are no offsets, and
//! offset components the dimension ignores are 0; layers are semantic layer numbers; cube
//! coordinates that differ only by a positive scale (ptxas's cube normalisation) are the same
//! direction (within 2 ulp after normalising). Symbolic values compare structurally, in one
//! spelling per computation: `and x, 0xffff`, `(x << 16) >> 16` and NVIDIA's 16-bit I2F
//! source are the low 16 bits (`low16`, or `sbits0+16` sign-extended), and `i32_to_f32` of a
//! 16-bit field is `u32_to_f32`.
//!
//! LOD queries in 8.8 fixed point (NVIDIA TMML, src/check/nvidia.rs): a model writes
//! `F32ToI32(FMul(lod, 256))`, and code reading that back as a float undoes it with
//! `U32ToF32(Low16(..))` (clamped) or `I32ToF32(SignedField 0+16 (..))` (unclamped), then
//! `FMul` by 1/256. [`Value::apply`] takes that round trip back to the LOD itself, which is
//! exact under the models' assumption that a LOD query's result has 8 fractional bits and
//! fits 16 bits: channel 0 (clamped) in [0, 256), channel 1 (unclamped) in [-128, 128). Only
//! those channels, each with its own signedness, are rewritten, so a missing swap, a wrong
//! signedness or a missing scale still reads differently; the rewrite assumes any result read
//! through these conversions is a LOD query's (nothing else is converted so).
//!
//! **Quads.** A program with quad operations (NVIDIA `SAM`, `RAM`, `SHFL.IDX`, `FSWZADD`, a
//! lane-masked `MOV`: the gradient emulation) is compared per quad: the source runs once per
//! lane from that lane's random registers, the NVIDIA model runs the four lanes in lock step
//! ([`nvidia::run_quad`]), and lane `l`'s requests and registers must be the source lane
//! `l`'s. Between `SAM` and `RAM` a `TEX` with implicit LOD takes the quad's coarse
//! derivatives ([`LodReq::QuadDerivatives`]), which agree with a source's gradients within
//! the rounding of the synthetic quad ([`quad_gradients_agree`]: `|t − d| ≤ ulp(|c| + |d|) +
//! ulp(t)` per coordinate; on cubes the directions within 4 ulp of 1.0).
//!
//! Limits (known, not hidden): guards and predicates are not compared (a predicated
//! instruction is evaluated as if its predicate held); the min-LOD clamp is compared as
//! given (DX/vISA float, NVIDIA `.LC` u4.8 converted to float), so a float clamp that is
//! not a multiple of 1/256 reads differently from its NVIDIA quantisation; vISA is
//! evaluated in lane 0 only; control flow is not modelled (an unknown instruction is an
//! error naming its line or offset).

pub mod dxbc;
mod mcs;
pub mod nvidia;
pub mod visa;

use std::collections::HashMap;
use std::fmt;

use indexmap::{IndexMap, IndexSet};

use crate::ir::{Dim, Dimension, Isa, Reg, RegFile};
use crate::translate::bindings::{dim_name, Bindings};
use crate::translate::regmap::{spell, RegisterMap};

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

/// A 32-bit register value: a concrete bit pattern, or something derived from a texture
/// result (which the model does not compute: it does not filter texels).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A concrete bit pattern.
    Bits(u32),
    /// Channel `channel` (0..3 = R, G, B, A; 4 = residency status) of request `request`.
    Result {
        /// The request's index (its place in [`Execution::requests`]).
        request: usize,
        /// The channel.
        channel: u8,
    },
    /// An operation applied to operands of which at least one is symbolic.
    Op {
        /// The operation.
        op: ValueOp,
        /// Its operands.
        args: Vec<Value>,
    },
}

/// The operations the models evaluate. Every ISA's ALU instruction is expressed through
/// these, so the same computation reads the same on every ISA (NVIDIA `I2I.U16.U32.SAT x`
/// is `umin(x, 0xffff)`, as DX `umin` would write it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueOp {
    /// f32 from u32 (round to nearest even).
    U32ToF32,
    /// f32 from i32.
    I32ToF32,
    /// u32 from f32, toward zero, saturating, NaN → 0 (DX `ftou`, NVIDIA `F2I.U32.TRUNC`).
    F32ToU32,
    /// i32 from f32, toward zero, saturating, NaN → 0.
    F32ToI32,
    /// f32 rounding to an integral value.
    RoundNe,
    /// f32 rounding to an integral value, toward negative infinity.
    RoundNi,
    /// f32 rounding to an integral value, toward positive infinity.
    RoundPi,
    /// f32 rounding to an integral value, toward zero.
    RoundZ,
    /// f32 minimum.
    FMin,
    /// f32 maximum.
    FMax,
    /// u32 minimum.
    UMin,
    /// u32 maximum.
    UMax,
    /// i32 minimum.
    IMin,
    /// i32 maximum.
    IMax,
    /// f32 product.
    FMul,
    /// f32 sum (NVIDIA `FSWZADD` lanes that add).
    FAdd,
    /// f32 difference `a - b` (`FSWZADD` lanes that subtract; a quad's implicit
    /// derivatives, lane 1 − lane 0 and lane 2 − lane 0).
    FSub,
    /// f32 reciprocal.
    FRcp,
    /// f32 absolute value.
    FAbs,
    /// f32 negation.
    FNeg,
    /// Clamp to [0, 1] (DX `_sat`, NVIDIA `.SAT` on float ops).
    FSat,
    /// The low 16 bits (NVIDIA reads an array layer as `a[15:0]`).
    Low16,
    /// The semantic layer of a float layer coordinate: round to nearest even, clamp to
    /// [0, 65535] (seeds/dx-sm4-sample.md "Array Resources"); NaN reads as layer 0.
    FloatLayer,
    /// The semantic layer of an integer layer coordinate: `min(u32, 65535)`.
    IntLayer,
    /// Bits `[lo, lo + width)` of the operand (NVIDIA packed words).
    Field {
        /// The lowest bit.
        lo: u8,
        /// The number of bits.
        width: u8,
    },
    // 16-bit fields (LOD queries' 8.8 fixed point; see the module documentation).
    /// Bits `[lo, lo + width)` of the operand, sign-extended (DX `ibfe`; NVIDIA `I2F.S16`
    /// reads bits 15:0 so).
    SignedField {
        /// The lowest bit.
        lo: u8,
        /// The number of bits.
        width: u8,
    },
    /// Bitwise and.
    And,
    /// Shift left by the second operand's low 5 bits.
    Shl,
    /// Logical shift right by the second operand's low 5 bits.
    Shr,
    /// Arithmetic shift right by the second operand's low 5 bits.
    Asr,
    // Programmable offsets (dyn-offsets).
    /// The second operand with bits `[lo, lo + width)` replaced by the low `width` bits of
    /// the first (DX/vISA `bfi`, NVIDIA `BFI`); `lo + width <= 32`.
    InsertField {
        /// The lowest bit.
        lo: u8,
        /// The number of bits.
        width: u8,
    },
    // The gradient approximation's LOD arithmetic (`--grad approx`).
    /// f32 `a * b + c`, fused (one rounding).
    FFma,
    /// f32 base-2 logarithm; a subnormal or zero operand gives -inf (NVIDIA `MUFU.LG2`
    /// flushes subnormals; its approximation error is inside the LOD tolerance).
    FLog2,
    /// 1.0 when `a >= b` (f32), else 0.0 (NaN compares false).
    FSetGe,
    /// `0xffffffff` when `a >= b` (f32), else 0 (DX `ge`); `and` with the bits of 1.0 reads
    /// as [`ValueOp::FSetGe`].
    FGeMask,
}

impl ValueOp {
    fn commutative(self) -> bool {
        matches!(
            self,
            ValueOp::FMin
                | ValueOp::FMax
                | ValueOp::UMin
                | ValueOp::UMax
                | ValueOp::IMin
                | ValueOp::IMax
                | ValueOp::FMul
                | ValueOp::And
                | ValueOp::FAdd
        )
    }

    fn name(self) -> String {
        match self {
            ValueOp::Field { lo, width } => format!("bits{lo}+{width}"),
            ValueOp::SignedField { lo, width } => format!("sbits{lo}+{width}"),
            ValueOp::InsertField { lo, width } => format!("insert{lo}+{width}"),
            other => {
                let s = format!("{other:?}");
                let mut out = String::new();
                for (i, c) in s.chars().enumerate() {
                    if c.is_ascii_uppercase() && i > 0 {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                }
                out
            }
        }
    }

    /// The operation on concrete bit patterns.
    fn eval(self, a: &[u32]) -> u32 {
        let f = |i: usize| f32::from_bits(a[i]);
        let fb = |x: f32| x.to_bits();
        match self {
            ValueOp::U32ToF32 => fb(a[0] as f32),
            ValueOp::I32ToF32 => fb(a[0] as i32 as f32),
            ValueOp::F32ToU32 => f(0) as u32,
            ValueOp::F32ToI32 => f(0) as i32 as u32,
            ValueOp::RoundNe => fb(f(0).round_ties_even()),
            ValueOp::RoundNi => fb(f(0).floor()),
            ValueOp::RoundPi => fb(f(0).ceil()),
            ValueOp::RoundZ => fb(f(0).trunc()),
            ValueOp::FMin => fb(f(0).min(f(1))),
            ValueOp::FMax => fb(f(0).max(f(1))),
            ValueOp::UMin => a[0].min(a[1]),
            ValueOp::UMax => a[0].max(a[1]),
            ValueOp::IMin => (a[0] as i32).min(a[1] as i32) as u32,
            ValueOp::IMax => (a[0] as i32).max(a[1] as i32) as u32,
            ValueOp::FMul => fb(f(0) * f(1)),
            ValueOp::FAdd => fb(f(0) + f(1)),
            ValueOp::FSub => fb(f(0) - f(1)),
            ValueOp::FRcp => fb(1.0 / f(0)),
            ValueOp::FAbs => a[0] & 0x7fff_ffff,
            ValueOp::FNeg => a[0] ^ 0x8000_0000,
            ValueOp::FSat => {
                let x = f(0);
                fb(if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) })
            }
            ValueOp::Low16 => a[0] & 0xffff,
            ValueOp::FloatLayer => {
                let x = f(0);
                if x.is_nan() {
                    0
                } else {
                    x.round_ties_even().clamp(0.0, 65535.0) as u32
                }
            }
            ValueOp::IntLayer => a[0].min(0xffff),
            ValueOp::Field { lo, width } => {
                let v = a[0] >> lo;
                if width >= 32 {
                    v
                } else {
                    v & ((1u32 << width) - 1)
                }
            }
            ValueOp::SignedField { lo, width } => {
                let v = a[0] >> lo;
                match width {
                    0 => 0,
                    w if w >= 32 => v,
                    w => sext(v, u32::from(w)) as u32,
                }
            }
            ValueOp::And => a[0] & a[1],
            ValueOp::Shl => a[0] << (a[1] & 31),
            ValueOp::Shr => a[0] >> (a[1] & 31),
            ValueOp::Asr => ((a[0] as i32) >> (a[1] & 31)) as u32,
            ValueOp::InsertField { lo, width } => {
                let mask = field_mask(lo, width);
                (a[1] & !mask) | ((a[0] << (lo & 31)) & mask)
            }
            ValueOp::FFma => fb(f(0).mul_add(f(1), f(2))),
            ValueOp::FLog2 => {
                let x = f(0);
                fb(if x.is_subnormal() {
                    f32::NEG_INFINITY
                } else {
                    x.log2()
                })
            }
            ValueOp::FSetGe => fb(if f(0) >= f(1) { 1.0 } else { 0.0 }),
            ValueOp::FGeMask => {
                if f(0) >= f(1) {
                    u32::MAX
                } else {
                    0
                }
            }
        }
    }
}

/// The bits `[lo, lo + width)` of a word as a mask (empty past bit 31).
fn field_mask(lo: u8, width: u8) -> u32 {
    let ones = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    if lo >= 32 {
        0
    } else {
        ones << lo
    }
}

/// A field read of a field write or of a narrower field read, as the bits it reads
/// (programmable offsets: the fields of a packed register built by `bfi`, or read back by
/// `ibfe`): `bits[lo, lo+w)` of `insert(ins, base)` are `ins`'s bits `[lo - l2, ..)` inside
/// the inserted field and `base`'s outside it; `bits[lo, lo+w)` of `bits[l2, l2+w2)(x)`
/// with `lo + w <= w2` are `x`'s bits `[l2 + lo, ..)`. `None` when neither applies.
fn field_of_field(outer: ValueOp, lo: u8, width: u8, x: &Value) -> Option<Value> {
    let Value::Op { op, args } = x else {
        return None;
    };
    let rebuild = |lo: u8, v: Value| {
        let op = match outer {
            ValueOp::SignedField { .. } => ValueOp::SignedField { lo, width },
            _ => ValueOp::Field { lo, width },
        };
        Value::apply(op, vec![v])
    };
    let end = u32::from(lo) + u32::from(width);
    match (*op, args.as_slice()) {
        (ValueOp::InsertField { lo: l2, width: w2 }, [ins, base]) => {
            let end2 = u32::from(l2) + u32::from(w2);
            if lo >= l2 && end <= end2 {
                Some(rebuild(lo - l2, ins.clone()))
            } else if end <= u32::from(l2) || u32::from(lo) >= end2 {
                Some(rebuild(lo, base.clone()))
            } else {
                None
            }
        }
        (
            ValueOp::Field { lo: l2, width: w2 } | ValueOp::SignedField { lo: l2, width: w2 },
            [inner],
        ) if end <= u32::from(w2) => Some(rebuild(lo + l2, inner.clone())),
        _ => None,
    }
}

/// f32 256.0 and 1/256: the scale of the 8.8 fixed point.
const F32_256: u32 = 0x4380_0000;
const F32_1_256: u32 = 0x3b80_0000;

/// The LOD-query channel `x` is `F32ToI32(FMul(result, 256))` of: the result's channel.
fn fixed_point_lod(x: &Value) -> Option<u8> {
    let Value::Op {
        op: ValueOp::F32ToI32,
        args,
    } = x
    else {
        return None;
    };
    scaled_lod(args.first()?, F32_256)
}

/// `x` is `FMul(result.c, scale)` with c a LOD query's channel (0, 1): c.
fn scaled_lod(x: &Value, scale: u32) -> Option<u8> {
    match x {
        Value::Op {
            op: ValueOp::FMul,
            args,
        } => match args.as_slice() {
            [Value::Result { channel, .. }, Value::Bits(k)] if *k == scale && *channel < 2 => {
                Some(*channel)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The canonical form of `op(args)` (symbolic): one spelling per computation, and the
/// 8.8 fixed-point round trip of a LOD query's result taken back (module documentation).
fn rewrite(op: ValueOp, args: Vec<Value>) -> Value {
    use ValueOp as O;
    let low16 = |x: Value| Value::apply(O::Low16, vec![x]);
    if let (O::Field { lo, width } | O::SignedField { lo, width }, [x]) = (op, args.as_slice()) {
        if let Some(v) = field_of_field(op, lo, width, x) {
            return v;
        }
    }
    match (op, args.as_slice()) {
        (O::Field { lo: 0, width: 16 }, _) => return Value::apply(O::Low16, args),
        (O::And, [x, Value::Bits(0xffff)]) => return low16(x.clone()),
        (
            O::Shr | O::Asr,
            [Value::Op {
                op: O::Shl,
                args: inner,
            }, Value::Bits(n)],
        ) => {
            if let [x, Value::Bits(m)] = inner.as_slice() {
                let n = n & 31;
                if n == m & 31 && n > 0 {
                    let field = if op == O::Shr {
                        O::Field {
                            lo: 0,
                            width: 32 - n as u8,
                        }
                    } else {
                        O::SignedField {
                            lo: 0,
                            width: 32 - n as u8,
                        }
                    };
                    return Value::apply(field, vec![x.clone()]);
                }
            }
        }
        // A 16-bit field is non-negative: signed and unsigned conversions agree.
        (O::I32ToF32, [x @ Value::Op { op: O::Low16, .. }]) => {
            return Value::apply(O::U32ToF32, vec![x.clone()])
        }
        // The clamped LOD (channel 0) read as u16, the unclamped (channel 1) as s16.
        (
            O::U32ToF32,
            [Value::Op {
                op: O::Low16,
                args: a,
            }],
        )
        | (
            O::I32ToF32,
            [Value::Op {
                op: O::SignedField { lo: 0, width: 16 },
                args: a,
            }],
        ) => {
            let want = if op == O::U32ToF32 { 0 } else { 1 };
            if let [Value::Op { args: scaled, .. }] = a.as_slice() {
                if fixed_point_lod(&a[0]) == Some(want) {
                    return scaled[0].clone();
                }
            }
        }
        // A 16-bit integer converts to float exactly and lies in [0, 65535]: its float
        // layer is itself (NVIDIA's u16 layer, read as a float layer by DX and vISA).
        (
            O::FloatLayer,
            [Value::Op {
                op: O::U32ToF32,
                args: a,
            }],
        ) if matches!(a.as_slice(), [Value::Op { op: O::Low16, .. }]) => return a[0].clone(),
        // DX `ge` then `and` with 1.0 is NVIDIA's `FSET.BF`.
        (
            O::And,
            [Value::Op {
                op: O::FGeMask,
                args: a,
            }, Value::Bits(0x3f80_0000)],
        ) => return Value::apply(O::FSetGe, a.clone()),
        (O::FMul, [x, Value::Bits(F32_1_256)]) if scaled_lod(x, F32_256).is_some() => {
            if let Value::Op { args: inner, .. } = x {
                return inner[0].clone();
            }
        }
        _ => {}
    }
    Value::Op { op, args }
}

impl Value {
    /// `op(args)`: evaluated when every operand is concrete, kept symbolic otherwise.
    pub fn apply(op: ValueOp, mut args: Vec<Value>) -> Value {
        if let Some(bits) = args.iter().map(Value::bits).collect::<Option<Vec<u32>>>() {
            return Value::Bits(op.eval(&bits));
        }
        if op.commutative() {
            // Symbolic operands first, so `min(x, c)` and `min(c, x)` read the same.
            args.sort_by_key(|v| matches!(v, Value::Bits(_)));
        }
        rewrite(op, args)
    }

    /// The bit pattern, when concrete.
    pub fn bits(&self) -> Option<u32> {
        match self {
            Value::Bits(b) => Some(*b),
            _ => None,
        }
    }

    fn unary(self, op: ValueOp) -> Value {
        Value::apply(op, vec![self])
    }
}

const CHANNELS: [&str; 5] = ["r", "g", "b", "a", "status"];

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bits(b) => {
                let x = f32::from_bits(*b);
                if x.is_finite() && (x == 0.0 || (1e-6..1e9).contains(&x.abs())) {
                    write!(f, "{b:#010x} ({x:?}f)")
                } else {
                    write!(f, "{b:#010x}")
                }
            }
            Value::Result { request, channel } if *request >= AUX_REQUEST => write!(
                f,
                "size_query[{}].{}",
                request - AUX_REQUEST,
                CHANNELS.get(*channel as usize).unwrap_or(&"?")
            ),
            Value::Result { request, channel } => write!(
                f,
                "result[{request}].{}",
                CHANNELS.get(*channel as usize).unwrap_or(&"?")
            ),
            Value::Op { op, args } => {
                write!(f, "{}(", op.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/// What a texture instruction asks the sampler to do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReqOp {
    /// Filtered sample (how the LOD is chosen is [`Request::lod`]).
    Sample,
    /// Unfiltered texel fetch at integer coordinates.
    Fetch,
    /// Read of the multisample control surface (vISA `load_mcs`).
    FetchMcs,
    /// Four-texel gather of one channel (0 = R .. 3 = A).
    Gather {
        /// The channel gathered.
        channel: u8,
    },
    /// The LOD the sampler would use.
    QueryLod,
    /// Size and level count of a mip level.
    QuerySize,
    /// Sample count of a multisample resource.
    QuerySamples,
    /// Position of a sample in the pixel.
    SamplePos,
    /// Element count of a buffer.
    BufferInfo,
    /// Another header or sampler query, with the ISA's code (NVIDIA `TXQ`).
    QueryOther {
        /// The ISA's query code.
        code: u8,
    },
    /// Typed surface read (vISA `gather4_typed`, DX `ld_uav_typed`).
    LoadTyped,
    /// Raw buffer read at a byte offset (DX `ld_raw`).
    LoadRaw,
    /// Structured buffer read (DX `ld_structured`).
    LoadStructured,
    /// Residency-status query (DX `check_access_fully_mapped`).
    CheckAccessMapped,
}

/// A resource or sampler, named ISA-independently when the bindings know it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResourceId {
    /// A row of the [`Bindings`].
    Row(usize),
    /// A slot no bindings row names, in its ISA's spelling (`t3/s1`, `T6/S0`, `0x6e`, `u2`).
    Unbound(String),
    /// A bindless handle (NVIDIA `.B`): the handle's value.
    Handle(Value),
}

impl fmt::Display for ResourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceId::Row(r) => write!(f, "bindings row {r}"),
            ResourceId::Unbound(s) => write!(f, "unbound {s}"),
            ResourceId::Handle(v) => write!(f, "handle {v}"),
        }
    }
}

/// How the level of detail is chosen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LodReq {
    /// From implicit derivatives (or, for queries, none given).
    Implicit,
    /// Level 0. An explicit level whose value is +0.0, -0.0 or integer 0 reads as this.
    Zero,
    /// Implicit LOD plus this bias.
    Bias(Value),
    /// This level.
    Level(Value),
    /// Gradients, one entry per coordinate.
    Grad {
        /// d(coordinate)/dx.
        dx: Vec<Value>,
        /// d(coordinate)/dy.
        dy: Vec<Value>,
    },
    /// Implicit derivatives of a quad the program built in registers (NVIDIA `TEX.NDV`
    /// between `SAM` and `RAM`, coarse): lane 1 − lane 0 along x, lane 2 − lane 0 along y,
    /// each an f32 difference. Compared with a source's [`LodReq::Grad`] within the
    /// tolerance of [`quad_gradients_agree`].
    QuadDerivatives {
        /// Lane 1 − lane 0, per coordinate.
        dx: Vec<Value>,
        /// Lane 2 − lane 0, per coordinate.
        dy: Vec<Value>,
    },
}

impl LodReq {
    /// `Level(v)`, or `Zero` when `v` is a zero (float or integer).
    fn level(v: Value) -> LodReq {
        match v {
            Value::Bits(0) | Value::Bits(0x8000_0000) => LodReq::Zero,
            v => LodReq::Level(v),
        }
    }
}

/// Texel offsets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Offsets {
    /// None, or all zero.
    None,
    /// Immediate (or packed-register) offsets resolved to integers (u, v, w); components the
    /// dimension ignores are 0.
    Imm([i32; 3]),
    /// Per-pixel offsets from registers (DX `gather4_po`, vISA `sample4_po`).
    Dynamic(Vec<Value>),
    /// Four per-texel gather offsets (NVIDIA `TLD4.PTP`), (u, v) each.
    PerTexel([[i32; 2]; 4]),
    /// Four per-texel gather offsets packed in registers whose value is symbolic (cannot be
    /// decoded).
    Packed(Value),
    /// Offsets packed in a register whose value is symbolic: each component (u, v, w) as
    /// the bits of its field, whatever the ISA's packing (NVIDIA `.AOFFI` u in bits 3:0,
    /// vISA's aoffimmi u in bits 11:8); a component the dimension ignores is 0.
    Fields([Value; 3]),
}

/// What one texture instruction asks the sampler. Values are 32-bit patterns, compared
/// bitwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Request {
    /// What is asked.
    pub op: ReqOp,
    /// The texture read.
    pub resource: ResourceId,
    /// The sampler, for ops that use one (sample, gather, LOD query).
    pub sampler: Option<ResourceId>,
    /// `None` when neither the instruction nor a declaration or bindings row says.
    pub dim: Option<Dimension>,
    /// Spatial coordinates only (as many as the dimension has).
    pub coords: Vec<Value>,
    /// The array layer as a semantic layer number (see [`ValueOp::FloatLayer`],
    /// [`ValueOp::IntLayer`], [`ValueOp::Low16`]).
    pub layer: Option<Value>,
    /// How the level of detail is chosen.
    pub lod: LodReq,
    /// The minimum-LOD clamp.
    pub min_lod: Option<Value>,
    /// The depth-compare reference.
    pub reference: Option<Value>,
    /// Texel offsets.
    pub offsets: Offsets,
    /// The sample index of a multisample fetch.
    pub sample_index: Option<Value>,
    /// Multisample control data (vISA `load_2dms_w`).
    pub mcs: Vec<Value>,
    /// RGBA channels asked for (bit c = channel c).
    pub channels: u8,
    /// Residency status asked for.
    pub residency: bool,
}

impl Request {
    /// A request of `op` on `resource` with nothing else.
    pub fn new(op: ReqOp, resource: ResourceId) -> Self {
        Request {
            op,
            resource,
            sampler: None,
            dim: None,
            coords: Vec::new(),
            layer: None,
            lod: LodReq::Implicit,
            min_lod: None,
            reference: None,
            offsets: Offsets::None,
            sample_index: None,
            mcs: Vec::new(),
            channels: 0,
            residency: false,
        }
    }

    /// Every field as `(name, printed value)`, in a fixed order: what reports compare.
    fn fields(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("op".to_string(), format!("{:?}", self.op)),
            ("resource".to_string(), self.resource.to_string()),
            (
                "sampler".to_string(),
                self.sampler
                    .as_ref()
                    .map_or("none".to_string(), |s| s.to_string()),
            ),
            (
                "dimension".to_string(),
                self.dim
                    .map_or("unknown".to_string(), |d| dim_name(d).to_string()),
            ),
            (
                "coordinate count".to_string(),
                self.coords.len().to_string(),
            ),
        ];
        for (i, c) in self.coords.iter().enumerate() {
            out.push((
                format!("coordinate {}", ["u", "v", "w", "q"].get(i).unwrap_or(&"?")),
                c.to_string(),
            ));
        }
        let opt = |v: &Option<Value>| v.as_ref().map_or("none".to_string(), |v| v.to_string());
        out.push(("array layer".to_string(), opt(&self.layer)));
        match &self.lod {
            LodReq::Grad { dx, dy } | LodReq::QuadDerivatives { dx, dy } => {
                out.push((
                    "lod".to_string(),
                    format!("gradients ({} per axis)", dx.len()),
                ));
                for (i, (x, y)) in dx.iter().zip(dy).enumerate() {
                    out.push((format!("gradient d/dx {i}"), x.to_string()));
                    out.push((format!("gradient d/dy {i}"), y.to_string()));
                }
            }
            LodReq::Implicit => out.push(("lod".to_string(), "implicit".to_string())),
            LodReq::Zero => out.push(("lod".to_string(), "zero".to_string())),
            LodReq::Bias(v) => out.push(("lod".to_string(), format!("bias {v}"))),
            LodReq::Level(v) => out.push(("lod".to_string(), format!("level {v}"))),
        }
        out.push(("min-lod clamp".to_string(), opt(&self.min_lod)));
        out.push(("compare reference".to_string(), opt(&self.reference)));
        out.push((
            "offsets".to_string(),
            match &self.offsets {
                Offsets::None => "none".to_string(),
                Offsets::Imm(o) => format!("({}, {}, {})", o[0], o[1], o[2]),
                Offsets::Dynamic(v) => format!(
                    "per-pixel ({})",
                    v.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Offsets::PerTexel(p) => format!("per-texel {p:?}"),
                Offsets::Packed(v) => format!("packed {v}"),
                Offsets::Fields([u, v, w]) => format!("fields ({u}, {v}, {w})"),
            },
        ));
        out.push(("sample index".to_string(), opt(&self.sample_index)));
        if !self.mcs.is_empty() {
            out.push((
                "mcs".to_string(),
                self.mcs
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
        // A gather fetches four texels whatever the mask (vISA sample4 writes all four):
        // its mask asks the sampler nothing, and where each wanted channel lands is compared
        // with the registers.
        if !matches!(self.op, ReqOp::Gather { .. }) {
            out.push(("channel mask".to_string(), format!("{:#x}", self.channels)));
        }
        out.push(("residency".to_string(), self.residency.to_string()));
        out
    }
}

/// The spatial coordinate count of a dimension.
pub(crate) fn coord_count(dim: Dim) -> usize {
    match dim {
        Dim::D1 | Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer => 1,
        Dim::D2 => 2,
        Dim::D3 | Dim::Cube => 3,
    }
}

/// Keeps the offset components the dimension uses (seeds/dx-sm4-sample.md: v, w ignored for
/// 1D, w for 2D) and reads all-zero offsets as none.
pub(crate) fn imm_offsets(dim: Option<Dimension>, mut o: [i32; 3]) -> Offsets {
    if let Some(Dimension::Known { dim, .. }) = dim {
        for c in o.iter_mut().skip(coord_count(dim)) {
            *c = 0;
        }
    }
    if o == [0, 0, 0] {
        Offsets::None
    } else {
        Offsets::Imm(o)
    }
}

/// Offsets packed in `v` with component `i` in the `width` bits at `lo[i]` (sign-extended):
/// integers when `v` is known, otherwise [`Offsets::Fields`]. Components the dimension
/// ignores are 0.
pub(crate) fn packed_offsets(dim: Option<Dimension>, v: &Value, lo: [u8; 3], width: u8) -> Offsets {
    let used = match dim {
        Some(Dimension::Known { dim, .. }) => coord_count(dim),
        _ => 3,
    };
    match v {
        Value::Bits(b) => imm_offsets(
            dim,
            lo.map(|l| sext((b >> l) & ((1 << width) - 1), u32::from(width))),
        ),
        other => {
            let mut i = 0;
            field_offsets(
                dim,
                lo.map(|l| {
                    i += 1;
                    if i > used {
                        Value::Bits(0)
                    } else {
                        Value::apply(ValueOp::Field { lo: l, width }, vec![other.clone()])
                    }
                }),
                width,
            )
        }
    }
}

/// Offsets whose components are the `width`-bit fields `f` (unsigned bits, as
/// [`Offsets::Fields`] holds them): integers (sign-extended) when every field is known.
fn field_offsets(dim: Option<Dimension>, f: [Value; 3], width: u8) -> Offsets {
    match f.each_ref().map(Value::bits) {
        [Some(u), Some(v), Some(w)] => {
            imm_offsets(dim, [u, v, w].map(|b| sext(b, u32::from(width))))
        }
        _ => Offsets::Fields(f),
    }
}

/// Per-pixel offsets in registers (DX `gather4_po`, vISA `sample4_po`) as the sampler sees
/// them: the low `width` bits of each component, sign-extended ("only the bottom 6 bits of
/// each offset are honored", Microsoft's gather4_po reference), the same canonical form as
/// an NVIDIA TLD4 register of 6-bit fields ([`packed_offsets`]). Components the dimension
/// ignores are 0.
pub(crate) fn register_offsets(dim: Option<Dimension>, v: &[Value], width: u8) -> Offsets {
    let used = match dim {
        Some(Dimension::Known { dim, .. }) => coord_count(dim),
        _ => 3,
    };
    let f = [0, 1, 2].map(|i| match v.get(i) {
        Some(x) if i < used => Value::apply(ValueOp::Field { lo: 0, width }, vec![x.clone()]),
        _ => Value::Bits(0),
    });
    field_offsets(dim, f, width)
}

/// Sign-extends the low `bits` bits of `v`.
pub(crate) fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

// ---------------------------------------------------------------------------------------
// Register files
// ---------------------------------------------------------------------------------------

/// What a register read is for: how a never-written register's random initial value is
/// drawn, so every kind of operand is exercised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A float of moderate magnitude (coordinates, gradients, ALU operands).
    Float,
    /// A LOD or bias: a small float.
    Lod,
    /// A depth-compare reference in [0, 1].
    Reference,
    /// A float array layer: multiples of 0.5 (rounding ties exercised).
    FloatLayer,
    /// A small non-negative integer (fetch coordinates, integer layers and LODs, sample
    /// indices).
    SmallInt,
    /// A packed offset register of 4-bit fields (NVIDIA `.AOFFI`, vISA's aoffimmi).
    Offsets4,
    /// An NVIDIA TLD4 packed offset register: 6-bit fields at an 8-bit stride.
    Offsets6,
    /// An NVIDIA word `layer | field << 16` (`.LC` clamp, TXD offsets): layer small.
    LayerWord,
    /// Anything else: 32 random bits.
    Any,
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn reg_key(r: Reg) -> u64 {
    let file = match r.file {
        RegFile::Temp => 1,
        RegFile::Input => 2,
        RegFile::Output => 3,
        RegFile::IndexableTemp => 4,
        RegFile::ConstantBuffer => 5,
        RegFile::ImmConstantBuffer => 6,
        RegFile::Predicate => 7,
        RegFile::Virtual => 8,
        RegFile::Other(t) => 9 + u64::from(t),
    };
    (file << 56) ^ (u64::from(r.index) << 20) ^ u64::from(r.sub)
}

/// Draws a value for `role` from 64 random bits.
fn draw(role: Role, r: u64) -> u32 {
    let lo = r as u32;
    let hi = (r >> 32) as u32;
    match role {
        Role::Float => {
            // sign · 2^e · 1.m with e in [-4, 5]: magnitudes 1/16 .. 64.
            let e = (hi % 10) as i32 - 4;
            let m = 1.0 + f64::from(lo & 0xff_ffff) / f64::from(1u32 << 24);
            let sign = if hi & 0x100 != 0 { -1.0 } else { 1.0 };
            ((sign * m * 2f64.powi(e)) as f32).to_bits()
        }
        Role::Lod => ((f64::from(lo % 1600) / 100.0 - 4.0) as f32).to_bits(),
        Role::Reference => ((f64::from(lo % 10_000) / 10_000.0) as f32).to_bits(),
        Role::FloatLayer => ((f64::from(lo % 24) * 0.5) as f32).to_bits(),
        Role::SmallInt => lo % 12,
        Role::Offsets4 => lo & 0xfff,
        Role::Offsets6 => (lo & 0x3f) | ((hi & 0x3f) << 8),
        Role::LayerWord => (lo % 8) | ((hi & 0xfff) << 16),
        Role::Any => lo,
    }
}

/// An initial register file: listed values, and for every other register a random value
/// drawn (deterministically from the seed, the salt and the register) when it is first read,
/// by the role of that read. Drawn values are recorded in `values`.
#[derive(Clone, Debug)]
pub struct InitialFile {
    /// Registers with a known initial value (listed, or drawn when first read).
    pub values: IndexMap<Reg, u32>,
    /// The seed the other values are drawn from.
    pub seed: u64,
    /// Mixed into the seed (to give two runs different but repeatable values).
    pub salt: u64,
    /// Values registers take just before the k-th texture instruction runs (entry k): what
    /// instructions the check does not run had set them to (`translate::check`: the
    /// constants a translation folded, `Codec::constants`).
    pub at_texture: Vec<Vec<(Reg, u32)>>,
}

impl InitialFile {
    /// A file of random values only.
    pub fn random(seed: u64) -> Self {
        InitialFile {
            values: IndexMap::new(),
            seed,
            salt: 0,
            at_texture: Vec::new(),
        }
    }

    /// The initial value of `r`, drawn for `role` when not listed.
    pub fn get(&mut self, r: Reg, role: Role) -> u32 {
        if let Some(v) = self.values.get(&r) {
            return *v;
        }
        let v = draw(role, splitmix(self.seed ^ splitmix(reg_key(r) ^ self.salt)));
        self.values.insert(r, v);
        v
    }
}

/// The state of a running model: registers, the requests made so far, where it is.
#[derive(Debug)]
pub struct Machine {
    /// The initial register file.
    pub init: InitialFile,
    /// Current register values.
    pub regs: IndexMap<Reg, Value>,
    /// Registers written, in first-write order.
    pub written: IndexSet<Reg>,
    /// The requests made so far, in order.
    pub requests: Vec<Located>,
    /// The id of the first request and the step between ids ((0, 1); quad lane `l` of a
    /// quad run numbers its requests `l`, `l + 4`, ...).
    pub request_ids: (usize, usize),
    /// Whether writes now happen inside a `SAM`/`RAM` region (quad runs).
    pub in_quad_region: bool,
    /// Registers whose last write happened inside a `SAM`/`RAM` region.
    pub quad_region_writes: IndexSet<Reg>,
    /// How many texture instructions have started ([`Machine::begin_texture`]).
    textures: usize,
}

/// A request and where its instruction was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// What was asked.
    pub request: Request,
    /// `line 3` for text, `offset 0x18` for binaries.
    pub at: String,
}

impl Machine {
    /// A machine starting from `init`.
    pub fn new(init: InitialFile) -> Self {
        Machine {
            init,
            regs: IndexMap::new(),
            written: IndexSet::new(),
            requests: Vec::new(),
            request_ids: (0, 1),
            in_quad_region: false,
            quad_region_writes: IndexSet::new(),
            textures: 0,
        }
    }

    /// Called by each model as a texture instruction starts, before it reads its operands:
    /// the registers `init.at_texture` lists for this one take their values (not as writes:
    /// the instruction left out set them, which the comparison does not count). A register
    /// an earlier instruction wrote no longer holds that write, so it leaves the written set
    /// until a later instruction writes it again: its final value is the left-out
    /// instruction's, which neither program runs.
    pub fn begin_texture(&mut self) {
        if let Some(values) = self.init.at_texture.get(self.textures) {
            for &(r, v) in values {
                self.regs.insert(r, Value::Bits(v));
                self.written.shift_remove(&r);
                self.quad_region_writes.shift_remove(&r);
            }
        }
        self.textures += 1;
    }

    /// The value of `r`; a never-written register reads its initial value.
    pub fn read(&mut self, r: Reg, role: Role) -> Value {
        if let Some(v) = self.regs.get(&r) {
            return v.clone();
        }
        Value::Bits(self.init.get(r, role))
    }

    /// Writes `v` to `r`.
    pub fn write(&mut self, r: Reg, v: Value) {
        if self.in_quad_region {
            self.quad_region_writes.insert(r);
        } else {
            self.quad_region_writes.shift_remove(&r);
        }
        self.written.insert(r);
        self.regs.insert(r, v);
    }

    /// Records a request; its index is what its results name.
    pub fn request(&mut self, request: Request, at: String) -> usize {
        self.requests.push(Located { request, at });
        self.request_ids.0 + self.request_ids.1 * (self.requests.len() - 1)
    }

    /// The index the next request will get.
    pub fn next_request(&self) -> usize {
        self.request_ids.0 + self.request_ids.1 * self.requests.len()
    }
}

/// What a model returns: the requests in order and the final register file.
#[derive(Debug)]
pub struct Execution {
    /// The requests, in order.
    pub requests: Vec<Located>,
    /// Final values of every register read or written.
    pub regs: IndexMap<Reg, Value>,
    /// Registers written, in first-write order.
    pub written: IndexSet<Reg>,
    /// The initial register file, with every value drawn during the run.
    pub init: InitialFile,
}

impl From<Machine> for Execution {
    fn from(m: Machine) -> Self {
        Execution {
            requests: m.requests,
            regs: m.regs,
            written: m.written,
            init: m.init,
        }
    }
}

/// The bindings row of an ISA's texture (and sampler) slot, or its spelling when unbound.
pub(crate) fn resource_id(
    bindings: &Bindings,
    isa: Isa,
    texture: u32,
    sampler: Option<u32>,
    spelling: String,
) -> ResourceId {
    match bindings.find(isa, texture, sampler) {
        Some(row) => ResourceId::Row(row),
        None => ResourceId::Unbound(spelling),
    }
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// Why a model could not read its input.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The codec's decoder refused the input.
    #[error("{isa}: {source}")]
    Read {
        /// The ISA's name.
        isa: &'static str,
        /// The decoder's error.
        #[source]
        source: crate::Error,
    },
    /// An instruction the model does not know or cannot evaluate.
    #[error("{isa} {at}: {reason}")]
    Model {
        /// The ISA's name.
        isa: &'static str,
        /// Where (`line 3`, `offset 0x18`).
        at: String,
        /// What the model cannot do.
        reason: String,
    },
}

impl Error {
    pub(crate) fn model(isa: Isa, at: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Model {
            isa: isa.name(),
            at: at.into(),
            reason: reason.into(),
        }
    }
    /// The model of `isa` cannot read its input.
    pub fn read(isa: Isa, source: crate::Error) -> Self {
        Error::Read {
            isa: isa.name(),
            source,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running and comparing
// ---------------------------------------------------------------------------------------

/// Runs the model of `isa` over `program` (text or binary, as texlate reads and writes it).
pub fn run(
    isa: Isa,
    program: &[u8],
    init: InitialFile,
    bindings: &Bindings,
) -> Result<Execution, Error> {
    match isa {
        Isa::Visa => visa::run(program, init, bindings),
        Isa::Dxbc => dxbc::run(program, init, bindings),
        Isa::Nvidia => nvidia::run(program, init, bindings),
    }
}

/// One field that differs between two requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    /// The request field (`coords`, `lod`, ...).
    pub field: String,
    /// Its value in the source.
    pub source: String,
    /// Its value in the target.
    pub target: String,
}

/// One pair of texture instructions, source and target, by position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairReport {
    /// The pair's position.
    pub index: usize,
    /// The source's request (`None` when the target has more).
    pub source: Option<Located>,
    /// The target's request (`None` when the source has more).
    pub target: Option<Located>,
    /// Empty when the two agree (up to the LOD, when [`PairReport::lod`] is set).
    pub diffs: Vec<FieldDiff>,
    /// Set when the target samples at a LOD it computed from the source's gradients and a
    /// size query of its own (`--grad approx`): the LOD fields are then compared here, with
    /// the isotropic rule, and not in `diffs`.
    pub lod: Option<LodApprox>,
}

/// An approximated LOD ([`PairReport::lod`]): the target's LOD expression evaluated at
/// known texture sizes, against the isotropic LOD of the source's gradients at those sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct LodApprox {
    /// The sizes (width, height, depth) the size query was taken to return.
    pub sizes: [u32; 3],
    /// The isotropic LOD of the source's gradients (D3D11.3 §7.18.11), computed here in f64.
    pub source: f64,
    /// The target's LOD at those sizes.
    pub target: f64,
    /// Whether the two agree within [`LOD_TOLERANCE`] at every size set tried.
    pub agrees: bool,
}

impl Eq for LodApprox {}

/// A register the source wrote whose final value the target does not reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterDiff {
    /// The source register.
    pub source_reg: String,
    /// `None` when the register map has no target register for it.
    pub target_reg: Option<String>,
    /// Its final value in the source.
    pub source: String,
    /// Its final value in the target register.
    pub target: String,
}

/// The result of [`compare`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The source ISA.
    pub from: Isa,
    /// The target ISA.
    pub to: Isa,
    /// The seed of the random initial values.
    pub seed: u64,
    /// Every pair of requests, in order.
    pub pairs: Vec<PairReport>,
    /// The registers whose final values differ.
    pub registers: Vec<RegisterDiff>,
    /// How many source-written registers were compared.
    pub registers_compared: usize,
    /// What the translation drops on purpose and the check therefore does not count as a
    /// disagreement (explicit MCS data, `check::mcs`).
    pub warnings: Vec<String>,
}

impl CheckReport {
    /// Whether every request and every written register agrees exactly (no approximated
    /// LOD).
    pub fn agrees(&self) -> bool {
        self.agrees_up_to_lod() && self.approximated() == 0
    }

    /// Whether every request agrees except approximated LODs that follow the isotropic rule
    /// ([`PairReport::lod`]), and every written register agrees.
    pub fn agrees_up_to_lod(&self) -> bool {
        self.pairs.iter().all(|p| p.diffs.is_empty()) && self.registers.is_empty()
    }

    /// How many pairs sample at an approximated LOD.
    pub fn approximated(&self) -> usize {
        self.pairs.iter().filter(|p| p.lod.is_some()).count()
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "semantic check {} -> {} (seed {}): {}",
            self.from.name(),
            self.to.name(),
            self.seed,
            if self.agrees() {
                "agree".to_string()
            } else if self.agrees_up_to_lod() {
                format!("agree up to the LOD ({} approximated)", self.approximated())
            } else {
                "DISAGREE".to_string()
            }
        )?;
        for p in &self.pairs {
            let at =
                |l: &Option<Located>| l.as_ref().map_or("missing".to_string(), |l| l.at.clone());
            writeln!(
                f,
                "request {}: source {} / target {}: {}",
                p.index,
                at(&p.source),
                at(&p.target),
                match (&p.lod, p.diffs.is_empty()) {
                    (_, false) => "differ".to_string(),
                    (None, true) => "agree".to_string(),
                    (Some(l), true) => format!(
                        "agree up to the LOD (isotropic {:.4}, target {:.4} at {}x{}x{})",
                        l.source, l.target, l.sizes[0], l.sizes[1], l.sizes[2]
                    ),
                }
            )?;
            for d in &p.diffs {
                writeln!(
                    f,
                    "  {}: source {} / target {}",
                    d.field, d.source, d.target
                )?;
            }
        }
        writeln!(f, "registers compared: {}", self.registers_compared)?;
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        for r in &self.registers {
            writeln!(
                f,
                "  register {} -> {}: source {} / target {}",
                r.source_reg,
                r.target_reg
                    .as_deref()
                    .unwrap_or("(not in the register map)"),
                r.source,
                r.target
            )?;
        }
        Ok(())
    }
}

/// Whether two cube coordinate triples name the same direction: equal, or equal after each
/// is divided by its largest magnitude (ptxas normalises cube coordinates before every CUBE
/// access, research/nvidia.md §3 "cube-norm"; a direction is what a cube sample reads), within
/// 2 ulp of the normalised value. Coordinates computed from an earlier sample's result are
/// compared at one point, each result replaced by the same float on both sides
/// ([`at_sample_point`]), as quad gradients are.
fn same_cube_direction(a: &[Value], b: &[Value]) -> bool {
    let conc = |v: &[Value]| -> Vec<f64> {
        v.iter()
            .map(|x| f64::from(f32::from_bits(at_sample_point(x))))
            .collect()
    };
    let (a, b) = (conc(a), conc(b));
    if a.len() != 3 || b.len() != 3 {
        return false;
    }
    let norm = |v: &[f64]| {
        let m = v.iter().fold(0f64, |m, x| m.max(x.abs()));
        v.iter().map(|x| x / m).collect::<Vec<_>>()
    };
    let (na, nb) = (norm(&a), norm(&b));
    na.iter()
        .zip(&nb)
        .all(|(x, y)| (x - y).abs() <= 2.0 * f64::from(f32::EPSILON))
}

/// The f32 unit in the last place at magnitude `x` (normal numbers: `2^(⌊log2 x⌋ − 23)`;
/// below the normal range the subnormal spacing `2^-149`).
fn ulp32(x: f64) -> f64 {
    let x = x.abs();
    if x < f64::from(f32::MIN_POSITIVE) {
        2f64.powi(-149)
    } else {
        2f64.powi(x.log2().floor() as i32 - 23)
    }
}

/// Tolerance of a cube direction rebuilt from a quad, per component of the direction
/// normalised by its largest magnitude: 4 ulp of 1.0 (see [`quad_gradients_agree`]).
const CUBE_QUAD_TOLERANCE: f64 = 4.0 * f32::EPSILON as f64;

/// `v` evaluated with every texture result it names replaced by a fixed float of moderate
/// magnitude drawn from (request, channel): symbolic gradients (computed from an earlier
/// sample's result) are compared at that point, the same on both sides.
fn at_sample_point(v: &Value) -> u32 {
    match v {
        Value::Bits(b) => *b,
        Value::Result { request, channel } => draw(
            Role::Float,
            splitmix(0x5a3d_0000 ^ ((*request as u64) << 3) ^ u64::from(*channel)),
        ),
        Value::Op { op, args } => {
            let a: Vec<u32> = args.iter().map(at_sample_point).collect();
            op.eval(&a)
        }
    }
}

/// Whether the implicit derivatives of a quad built in registers (`t`,
/// [`LodReq::QuadDerivatives`]) are the gradients `s` asks for ([`LodReq::Grad`]).
///
/// The quad is lane 0 = `c`, lane 1 = `c ⊕ dx`, lane 2 = `c ⊕ dy` (f32 additions, ptxas's
/// `FSWZADD`), and its derivatives are f32 differences `(c ⊕ d) ⊖ c`: not `d` bit for bit.
/// Each rounds once, so per coordinate `i` they agree when
/// `|t_i − d_i| ≤ ulp(|c_i| + |d_i|) + ulp(t_i)` (each term twice the half-ulp bound of one
/// rounding; `ulp` of an f32 magnitude: `2^(⌊log2 x⌋ − 23)`). On cubes each lane's coordinates are
/// normalised by their own largest magnitude before the sample (a positive scale per lane,
/// which the cube face projection ignores): there the directions `c + d` (source, exact) and
/// `t_c + t_d` (target) must agree after normalising, within 4 ulp of 1.0 per component
/// (the addition's rounding, `MUFU.RCP`'s approximation, the
/// product's and the difference's rounding). A gradient computed from an earlier sample's
/// result is compared at one point, each result replaced by the same float on both sides.
pub fn quad_gradients_agree(s: &Request, t: &Request) -> bool {
    let (LodReq::Grad { dx: sdx, dy: sdy }, LodReq::QuadDerivatives { dx: tdx, dy: tdy }) =
        (&s.lod, &t.lod)
    else {
        return false;
    };
    let f = |v: &[Value]| -> Vec<f64> {
        v.iter()
            .map(|x| f64::from(f32::from_bits(at_sample_point(x))))
            .collect()
    };
    let (sc, tc, sdx, sdy, tdx, tdy) = (f(&s.coords), f(&t.coords), f(sdx), f(sdy), f(tdx), f(tdy));
    let n = sc.len();
    if [tc.len(), sdx.len(), sdy.len(), tdx.len(), tdy.len()] != [n; 5] {
        return false;
    }
    let cube = matches!(
        (s.dim, t.dim),
        (
            Some(Dimension::Known { dim: Dim::Cube, .. }),
            Some(Dimension::Known { dim: Dim::Cube, .. })
        )
    ) && n == 3;
    let axes = [(&sdx, &tdx), (&sdy, &tdy)];
    let agree = axes.into_iter().all(|(sd, td)| {
        if cube {
            let p: Vec<f64> = sc.iter().zip(sd.iter()).map(|(c, d)| c + d).collect();
            let q: Vec<f64> = tc.iter().zip(td.iter()).map(|(c, d)| c + d).collect();
            let norm = |v: &[f64]| {
                let m = v.iter().fold(0f64, |m, x| m.max(x.abs()));
                v.iter().map(|x| x / m).collect::<Vec<_>>()
            };
            let (np, nq) = (norm(&p), norm(&q));
            np.iter()
                .zip(&nq)
                .all(|(x, y)| (x - y).abs() <= CUBE_QUAD_TOLERANCE)
        } else {
            (0..n).all(|i| (td[i] - sd[i]).abs() <= ulp32(sc[i].abs() + sd[i].abs()) + ulp32(td[i]))
        }
    });
    agree
}

/// Request ids of the target's size queries that only feed an approximated LOD
/// (`auxiliary_queries`) are renumbered from here, apart from the paired requests.
pub const AUX_REQUEST: usize = 1 << 30;

/// The largest difference between an approximated LOD and the isotropic rule that still
/// agrees: 1/256, the LOD's resolution in the sampler (8 fractional bits, as NVIDIA TMML
/// reports it). The f32 roundings, `MUFU.RCP` and `MUFU.LG2` stay far inside it; a wrong
/// size, axis or gradient does not.
pub const LOD_TOLERANCE: f64 = 1.0 / 256.0;

/// The size sets an approximated LOD is evaluated at: every dimension different, so a size
/// read from the wrong channel shows.
const LOD_SIZES: [[u32; 3]; 2] = [[256, 64, 16], [8, 1024, 128]];

/// Whether `v` reads a result of request `id`.
fn mentions(v: &Value, id: usize) -> bool {
    let mut found = false;
    nvidia::results_of(v, &mut |r| found |= r == id);
    found
}

/// The target's size queries whose results only an explicit LOD reads: a `QuerySize` request
/// whose result some later `Level` LOD mentions, when no source LOD reads a size query
/// (the source computed no LOD of its own from sizes). These are the size queries of an
/// approximated gradient sample; they pair with nothing in the source.
fn auxiliary_queries(source: &Execution, target: &Execution) -> Vec<usize> {
    let level_reads_query = |e: &Execution, j: usize| {
        e.requests[j + 1..]
            .iter()
            .any(|r| matches!(&r.request.lod, LodReq::Level(v) if mentions(v, j)))
    };
    let queries = |e: &Execution| -> Vec<usize> {
        (0..e.requests.len())
            .filter(|&j| e.requests[j].request.op == ReqOp::QuerySize && level_reads_query(e, j))
            .collect()
    };
    if !queries(source).is_empty() {
        return Vec::new();
    }
    queries(target)
}

/// `e` without the requests `aux`: the others renumbered in order, the results of `aux`
/// moved to [`AUX_REQUEST`] + their index.
fn without_requests(e: &Execution, aux: &[usize]) -> Execution {
    let mut map = HashMap::new();
    let mut next = 0;
    for j in 0..e.requests.len() {
        if aux.contains(&j) {
            map.insert(j, AUX_REQUEST + j);
        } else {
            map.insert(j, next);
            next += 1;
        }
    }
    let requests = e
        .requests
        .iter()
        .enumerate()
        .filter(|(j, _)| !aux.contains(j))
        .map(|(_, r)| {
            let mut r = r.clone();
            nvidia::renumber_request(&mut r.request, &map);
            r
        })
        .collect();
    Execution {
        requests,
        regs: e
            .regs
            .iter()
            .map(|(k, v)| (*k, nvidia::renumbered(v.clone(), &map)))
            .collect(),
        written: e.written.clone(),
        init: e.init.clone(),
    }
}

/// The isotropic LOD of a gradient request at level-0 size `sizes` (D3D11.3 §7.18.11): each
/// gradient scaled to texels, `log2` of the longer of the x and y derivative vectors. On a
/// cube the gradients are projected onto the face of the major axis (ties to z, then y):
/// face coordinates `c_a / |c_m|` span `sizes[0]` texels over [-1, 1]. Computed in f64 from
/// the request's f32 values.
fn isotropic_lod(s: &Request, sizes: [u32; 3]) -> Option<f64> {
    let LodReq::Grad { dx, dy } = &s.lod else {
        return None;
    };
    let f = |v: &[Value]| -> Vec<f64> {
        v.iter()
            .map(|x| f64::from(f32::from_bits(at_sample_point(x))))
            .collect()
    };
    let (c, dx, dy) = (f(&s.coords), f(dx), f(dy));
    let n = c.len();
    if n == 0 || dx.len() != n || dy.len() != n {
        return None;
    }
    let cube = matches!(s.dim, Some(Dimension::Known { dim: Dim::Cube, .. }));
    let len2 = |d: &[f64]| -> f64 {
        if cube && n == 3 {
            let m = if c[2].abs() >= c[0].abs() && c[2].abs() >= c[1].abs() {
                2
            } else if c[1].abs() >= c[0].abs() {
                1
            } else {
                0
            };
            let scale = f64::from(sizes[0]) / (2.0 * c[m].abs());
            (0..3)
                .filter(|&a| a != m)
                .map(|a| ((d[a] - c[a] * d[m] / c[m]) * scale).powi(2))
                .sum()
        } else {
            d.iter()
                .zip(sizes)
                .map(|(g, w)| (g * f64::from(w)).powi(2))
                .sum()
        }
    };
    Some(0.5 * len2(&dx).max(len2(&dy)).log2())
}

/// `v` evaluated with the size queries' results replaced by `sizes` (channel = dimension)
/// and every other result by its sample point ([`at_sample_point`]).
fn at_sizes(v: &Value, sizes: [u32; 3]) -> u32 {
    match v {
        Value::Result { request, channel } if *request >= AUX_REQUEST => {
            sizes.get(*channel as usize).copied().unwrap_or(0)
        }
        Value::Op { op, args } => {
            let a: Vec<u32> = args.iter().map(|x| at_sizes(x, sizes)).collect();
            op.eval(&a)
        }
        other => at_sample_point(other),
    }
}

/// The approximated LOD of a pair: the source asks for gradients, the target for an explicit
/// LOD computed from a size query of its own ([`AUX_REQUEST`] results).
fn approximated_lod(s: &Request, t: &Request) -> Option<LodApprox> {
    let (LodReq::Grad { .. }, LodReq::Level(v)) = (&s.lod, &t.lod) else {
        return None;
    };
    let mut aux = false;
    nvidia::results_of(v, &mut |r| aux |= r >= AUX_REQUEST);
    if !aux {
        return None;
    }
    let mut first = None;
    let mut agrees = true;
    for sizes in LOD_SIZES {
        let source = isotropic_lod(s, sizes)?;
        let target = f64::from(f32::from_bits(at_sizes(v, sizes)));
        agrees &= source == target || (source - target).abs() <= LOD_TOLERANCE;
        first.get_or_insert(LodApprox {
            sizes,
            source,
            target,
            agrees: false,
        });
    }
    first.map(|l| LodApprox { agrees, ..l })
}

fn diff_requests(s: &Request, t: &Request, approx: bool) -> Vec<FieldDiff> {
    let quad_ok = quad_gradients_agree(s, t) || quad_gradients_agree(t, s);
    let cube = matches!(
        (s.dim, t.dim),
        (
            Some(Dimension::Known { dim: Dim::Cube, .. }),
            Some(Dimension::Known { dim: Dim::Cube, .. })
        )
    ) && s.coords != t.coords
        && same_cube_direction(&s.coords, &t.coords);
    let (sf, tf) = (s.fields(), t.fields());
    let tmap: HashMap<&str, &str> = tf.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let smap: HashMap<&str, &str> = sf.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut out = Vec::new();
    for (k, v) in &sf {
        if cube && k.starts_with("coordinate ") {
            continue;
        }
        if (quad_ok || approx) && (k == "lod" || k.starts_with("gradient ")) {
            continue;
        }
        let other = tmap.get(k.as_str()).copied().unwrap_or("absent");
        if other != v {
            out.push(FieldDiff {
                field: k.clone(),
                source: v.clone(),
                target: other.to_string(),
            });
        }
    }
    for (k, v) in &tf {
        if !smap.contains_key(k.as_str()) {
            out.push(FieldDiff {
                field: k.clone(),
                source: "absent".to_string(),
                target: v.clone(),
            });
        }
    }
    out
}

/// Compares two executions: requests in order, then every register the source wrote,
/// looked up in the target through `map`. Multisample control data is compared as
/// `check::mcs` says: an MCS read feeding a fetch of the same texel is part of that fetch,
/// and MCS data the target drops is a warning.
pub fn compare_executions(
    from: Isa,
    source: &Execution,
    to: Isa,
    target: &Execution,
    map: &dyn Fn(Reg) -> Option<Reg>,
    seed: u64,
) -> CheckReport {
    if !mcs::has_mcs(source) && !mcs::has_mcs(target) {
        return compare_requests(from, source, to, target, map, seed);
    }
    let t = mcs::fold(target, false);
    let target_reads = t
        .execution
        .requests
        .iter()
        .any(|l| l.request.op == ReqOp::FetchMcs);
    let s = mcs::fold(source, !target_reads);
    let mut warnings: Vec<String> = s
        .dropped
        .iter()
        .map(|at| format!("the source's MCS read at {at} is dropped: the target reads no MCS"))
        .collect();
    // Source registers left holding MCS: a target that does not reproduce them dropped MCS
    // data, which is a warning.
    let src = s.execution;
    let held: Vec<String> = src
        .written
        .iter()
        .filter(|r| {
            src.regs
                .get(*r)
                .is_some_and(|v| mcs::names_request(v, &s.removed))
        })
        .map(|r| spell(from, *r))
        .collect();
    let mut report = compare_requests(from, &src, to, &t.execution, map, seed);
    let (dropped, registers): (Vec<RegisterDiff>, Vec<RegisterDiff>) =
        std::mem::take(&mut report.registers)
            .into_iter()
            .partition(|r| held.contains(&r.source_reg));
    report.registers = registers;
    for r in dropped {
        warnings.push(format!(
            "source register {} holds MCS data ({}) the translation drops",
            r.source_reg, r.source
        ));
    }
    for p in &mut report.pairs {
        let (mcs, rest): (Vec<FieldDiff>, Vec<FieldDiff>) = std::mem::take(&mut p.diffs)
            .into_iter()
            .partition(|d| d.field == "mcs" && d.target == "absent");
        p.diffs = rest;
        for d in mcs {
            let at = p.source.as_ref().map_or(String::new(), |l| l.at.clone());
            warnings.push(format!(
                "request {} ({at}): the source's explicit MCS words ({}) are dropped: the target reads the surface's own",
                p.index, d.source
            ));
        }
    }
    report.warnings = warnings;
    report
}

/// [`compare_executions`] without the MCS rules.
fn compare_requests(
    from: Isa,
    source: &Execution,
    to: Isa,
    target: &Execution,
    map: &dyn Fn(Reg) -> Option<Reg>,
    seed: u64,
) -> CheckReport {
    let aux = auxiliary_queries(source, target);
    let stripped;
    let target = if aux.is_empty() {
        target
    } else {
        stripped = without_requests(target, &aux);
        &stripped
    };
    let n = source.requests.len().max(target.requests.len());
    let mut pairs = Vec::with_capacity(n);
    for i in 0..n {
        let (s, t) = (source.requests.get(i), target.requests.get(i));
        let lod = s
            .zip(t)
            .and_then(|(s, t)| approximated_lod(&s.request, &t.request));
        let mut diffs = match (s, t) {
            (Some(s), Some(t)) => diff_requests(&s.request, &t.request, lod.is_some()),
            (Some(_), None) => vec![FieldDiff {
                field: "instruction".into(),
                source: "present".into(),
                target: "missing".into(),
            }],
            (None, _) => vec![FieldDiff {
                field: "instruction".into(),
                source: "missing".into(),
                target: "present".into(),
            }],
        };
        if let Some(l) = lod.as_ref().filter(|l| !l.agrees) {
            diffs.push(FieldDiff {
                field: "lod (approximated)".into(),
                source: format!("isotropic {:.4} at {:?}", l.source, l.sizes),
                target: format!("{:.4}", l.target),
            });
        }
        pairs.push(PairReport {
            index: i,
            source: s.cloned(),
            target: t.cloned(),
            diffs,
            lod,
        });
    }
    let mut registers = Vec::new();
    for r in &source.written {
        let sv = source.regs.get(r).cloned().unwrap_or(Value::Bits(0));
        let Some(tr) = map(*r) else {
            registers.push(RegisterDiff {
                source_reg: spell(from, *r),
                target_reg: None,
                source: sv.to_string(),
                target: "-".into(),
            });
            continue;
        };
        let tv = match target.regs.get(&tr) {
            Some(v) => v.to_string(),
            None => target
                .init
                .values
                .get(&tr)
                .map_or("(never read or written)".to_string(), |b| {
                    Value::Bits(*b).to_string()
                }),
        };
        if tv != sv.to_string() {
            registers.push(RegisterDiff {
                source_reg: spell(from, *r),
                target_reg: Some(spell(to, tr)),
                source: sv.to_string(),
                target: tv,
            });
        }
    }
    CheckReport {
        from,
        to,
        seed,
        pairs,
        registers,
        registers_compared: source.written.len(),
        warnings: Vec::new(),
    }
}

/// Runs `source` (of `from`) and `target` (of `to`) from one random initial state and compares
/// what they ask the sampler and what they leave in the source's registers (see the module
/// documentation). `seed` makes the draw reproducible. Between programs of one ISA (an
/// identity translation re-encodes as read) every register is itself and `regmap` is not
/// read.
pub fn compare(
    from: Isa,
    source: &[u8],
    to: Isa,
    target: &[u8],
    bindings: &Bindings,
    regmap: &RegisterMap,
    seed: u64,
) -> Result<CheckReport, Error> {
    let map = |r: Reg| if from == to { Some(r) } else { regmap.get(&r) };
    compare_with(from, source, to, target, bindings, &map, seed)
}

/// [`compare`] with the register map as a function.
pub fn compare_with(
    from: Isa,
    source: &[u8],
    to: Isa,
    target: &[u8],
    bindings: &Bindings,
    map: &dyn Fn(Reg) -> Option<Reg>,
    seed: u64,
) -> Result<CheckReport, Error> {
    compare_preset(from, source, to, target, bindings, map, seed, &[])
}

/// [`compare_with`], the source's registers listed in `preset[k]` taking those values just
/// before its k-th texture instruction: what the source's instructions the check does not run
/// had set them to (`translate::check`: the constants a translation folded).
#[allow(clippy::too_many_arguments)]
pub fn compare_preset(
    from: Isa,
    source: &[u8],
    to: Isa,
    target: &[u8],
    bindings: &Bindings,
    map: &dyn Fn(Reg) -> Option<Reg>,
    seed: u64,
    preset: &[Vec<(Reg, u32)>],
) -> Result<CheckReport, Error> {
    let quad = |isa: Isa, p: &[u8]| -> Result<bool, Error> {
        Ok(isa == Isa::Nvidia && nvidia::uses_quad(p)?)
    };
    if quad(from, source)? || quad(to, target)? {
        return compare_quad(from, source, to, target, bindings, map, seed, preset);
    }
    let mut init = InitialFile::random(seed);
    init.at_texture = preset.to_vec();
    let src = run(from, source, init, bindings)?;
    let mut tinit = InitialFile {
        values: IndexMap::new(),
        seed,
        salt: 0x7a26_e7d1_5eed_0001,
        at_texture: Vec::new(),
    };
    for (r, v) in &src.init.values {
        if let Some(t) = map(*r) {
            tinit.values.entry(t).or_insert(*v);
        }
    }
    let tgt = run(to, target, tinit, bindings)?;
    Ok(compare_executions(from, &src, to, &tgt, map, seed))
}

/// The salt of quad lane `l`'s source registers (lane 0 draws what a one-lane check draws).
fn lane_salt(l: usize) -> u64 {
    if l == 0 {
        0
    } else {
        splitmix(0x9ad_0000 + l as u64)
    }
}

/// Runs `isa`'s model over `program` once per quad lane (NVIDIA programs with quad
/// operations: across the quad, [`nvidia::run_quad`]).
fn run_lanes(
    isa: Isa,
    program: &[u8],
    inits: [InitialFile; 4],
    bindings: &Bindings,
) -> Result<[Execution; 4], Error> {
    if isa == Isa::Nvidia && nvidia::uses_quad(program)? {
        return nvidia::run_quad(program, inits, bindings);
    }
    let [a, b, c, d] = inits;
    Ok([
        run(isa, program, a, bindings)?,
        run(isa, program, b, bindings)?,
        run(isa, program, c, bindings)?,
        run(isa, program, d, bindings)?,
    ])
}

/// [`compare_with`] for programs with quad operations: four lanes, each from its own random
/// source registers; the target's lane `l` must ask for each of its requests what the
/// source asks in lane `l`, and leave lane `l`'s values in the source's registers.
#[allow(clippy::too_many_arguments)]
fn compare_quad(
    from: Isa,
    source: &[u8],
    to: Isa,
    target: &[u8],
    bindings: &Bindings,
    map: &dyn Fn(Reg) -> Option<Reg>,
    seed: u64,
    preset: &[Vec<(Reg, u32)>],
) -> Result<CheckReport, Error> {
    let sinits = [0, 1, 2, 3].map(|l| InitialFile {
        values: IndexMap::new(),
        seed,
        salt: lane_salt(l),
        at_texture: preset.to_vec(),
    });
    let src = run_lanes(from, source, sinits, bindings)?;
    let tinits = [0, 1, 2, 3].map(|l| {
        let mut t = InitialFile {
            values: IndexMap::new(),
            seed,
            salt: 0x7a26_e7d1_5eed_0001 ^ lane_salt(l),
            at_texture: Vec::new(),
        };
        for (r, v) in &src[l].init.values {
            if let Some(tr) = map(*r) {
                t.values.entry(tr).or_insert(*v);
            }
        }
        t
    });
    let tgt = run_lanes(to, target, tinits, bindings)?;
    let mut report = CheckReport {
        from,
        to,
        seed,
        pairs: Vec::new(),
        registers: Vec::new(),
        registers_compared: 0,
        warnings: Vec::new(),
    };
    for (l, (s, t)) in src.iter().zip(&tgt).enumerate() {
        let lane = compare_executions(from, s, to, t, map, seed);
        for mut p in lane.pairs {
            p.index = report.pairs.len();
            for loc in [&mut p.source, &mut p.target].into_iter().flatten() {
                if !loc.at.contains("quad lane") {
                    loc.at = format!("{} (lane {l})", loc.at);
                }
            }
            report.pairs.push(p);
        }
        for mut r in lane.registers {
            r.source_reg = format!("{} (lane {l})", r.source_reg);
            report.registers.push(r);
        }
        report.registers_compared += lane.registers_compared;
        report.warnings.extend(lane.warnings);
    }
    Ok(report)
}

/// Compares a program with itself through the identity register map (every model must agree
/// with itself: what the corpus tests check).
pub fn compare_identity(
    isa: Isa,
    program: &[u8],
    bindings: &Bindings,
    seed: u64,
) -> Result<CheckReport, Error> {
    compare_with(isa, program, isa, program, bindings, &|r| Some(r), seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> Value {
        Value::Bits(x.to_bits())
    }

    fn grad(dim: Dim, c: &[f32], dx: &[f32], dy: &[f32]) -> Request {
        let mut r = Request::new(ReqOp::Sample, ResourceId::Row(0));
        r.dim = Some(Dimension::Known {
            dim,
            arrayed: false,
            multisampled: false,
        });
        r.coords = c.iter().map(|x| f(*x)).collect();
        r.lod = LodReq::Grad {
            dx: dx.iter().map(|x| f(*x)).collect(),
            dy: dy.iter().map(|x| f(*x)).collect(),
        };
        r
    }

    /// The isotropic rule on values worked by hand (D3D11.3 §7.18.11).
    #[test]
    fn isotropic_lod_by_hand() {
        // One texel per pixel on a 256-wide 2D texture: LOD 0; four texels along y of a
        // 64-high one: LOD 2 (the longer vector wins).
        let r = grad(
            Dim::D2,
            &[0.5, 0.5],
            &[1.0 / 256.0, 0.0],
            &[0.0, 4.0 / 64.0],
        );
        assert_eq!(isotropic_lod(&r, [256, 64, 16]), Some(2.0));
        // 3D: the x vector (3, 4, 0) texels is 5 long: log2 5.
        let r = grad(
            Dim::D3,
            &[0.0; 3],
            &[3.0 / 256.0, 4.0 / 64.0, 0.0],
            &[0.0, 0.0, 1.0 / 16.0],
        );
        let lod = isotropic_lod(&r, [256, 64, 16]).unwrap();
        assert!((lod - 5f64.log2()).abs() < 1e-12, "{lod}");
        // Cube, +z face centre (major axis z, |c_z| = 2): the face coordinate x/2 spans
        // [-1, 1] over 128 texels, so d(x)/dx = 0.25 is 0.25 / 2 · 128 / 2 = 8 texels: LOD 3.
        // The z gradient moves along the major axis and adds nothing at the centre.
        let r = grad(
            Dim::Cube,
            &[0.0, 0.0, 2.0],
            &[0.25, 0.0, 5.0],
            &[0.0, 0.0, 1.0],
        );
        let lod = isotropic_lod(&r, [128, 0, 0]).unwrap();
        assert!((lod - 3.0).abs() < 1e-12, "{lod}");
        // Off centre the quotient rule applies: at (1, 0, 2) a z step of 1 moves the face
        // coordinate x/z by -1/4: 0.25 · 64 = 16 texels along y's vector: LOD 4.
        let r = grad(Dim::Cube, &[1.0, 0.0, 2.0], &[0.0; 3], &[0.0, 0.0, 1.0]);
        let lod = isotropic_lod(&r, [128, 0, 0]).unwrap();
        assert!((lod - 4.0).abs() < 1e-12, "{lod}");
        // Ties go to z: at (2, 1, 2) an x step of 0.25 is 0.25 / 2 · 64 = 8 texels on the z
        // face (LOD 3); on the x face it would be |(0, -1/8, -1/4)| / 2 · 64 ≈ 8.94.
        let r = grad(Dim::Cube, &[2.0, 1.0, 2.0], &[0.25, 0.0, 0.0], &[0.0; 3]);
        let lod = isotropic_lod(&r, [128, 0, 0]).unwrap();
        assert!((lod - 3.0).abs() < 1e-12, "{lod}");
    }

    /// A size query set aside: the pair compares everything but the LOD, and the LOD with the
    /// rule; a target LOD off by more than 1/256 is a difference.
    #[test]
    fn approximated_lod_is_compared_with_the_rule() {
        let s = grad(
            Dim::D2,
            &[0.5, 0.5],
            &[1.0 / 256.0, 0.0],
            &[0.0, 4.0 / 64.0],
        );
        // The size query's unsigned results, converted to float.
        let size = |c: u8| {
            Value::apply(
                ValueOp::U32ToF32,
                vec![Value::Result {
                    request: AUX_REQUEST,
                    channel: c,
                }],
            )
        };
        // 0.5 · log2(max((dx0 · w)², (dy1 · h)²)), as the target computes it.
        let texels = |g: f32, c: u8| Value::apply(ValueOp::FMul, vec![f(g), size(c)]);
        let sq = |v: Value| Value::apply(ValueOp::FMul, vec![v.clone(), v]);
        let m = Value::apply(
            ValueOp::FMax,
            vec![sq(texels(1.0 / 256.0, 0)), sq(texels(4.0 / 64.0, 1))],
        );
        let lod = Value::apply(
            ValueOp::FMul,
            vec![Value::apply(ValueOp::FLog2, vec![m]), f(0.5)],
        );
        let mut t = s.clone();
        t.lod = LodReq::Level(lod.clone());
        let l = approximated_lod(&s, &t).unwrap();
        assert!(l.agrees, "{l:?}");
        assert!(diff_requests(&s, &t, true).is_empty());
        // The width read for the height.
        let wrong = Value::apply(
            ValueOp::FMul,
            vec![
                Value::apply(
                    ValueOp::FLog2,
                    vec![Value::apply(
                        ValueOp::FMax,
                        vec![sq(texels(1.0 / 256.0, 0)), sq(texels(4.0 / 64.0, 0))],
                    )],
                ),
                f(0.5),
            ],
        );
        t.lod = LodReq::Level(wrong);
        assert!(!approximated_lod(&s, &t).unwrap().agrees);
        // A plain explicit LOD (no size query) is not an approximation.
        t.lod = LodReq::Level(f(2.0));
        assert!(approximated_lod(&s, &t).is_none());
    }
}
