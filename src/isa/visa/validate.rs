//! The rules a vISA sampler instruction must meet. GenX_IR (IGC 12504) accepts several of
//! these broken and then emits invalid sends (research §5); texlate refuses them.

use crate::error::{Error, Location, ValidationError};

use super::inst::{cps_bit, Aoffimmi, Checks, Field, FieldPositions, Region, VisaInst};
use super::tables::{self, ChannelKind, OpDesc, ParamClass, TypeDesc};

/// A broken rule, with the operand that breaks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub field: Field,
    pub rule: &'static str,
    pub detail: String,
}

impl Violation {
    pub fn new(field: Field, rule: &'static str, detail: impl Into<String>) -> Self {
        Violation {
            field,
            rule,
            detail: detail.into(),
        }
    }

    /// Seeds: "At least one channel must be enabled (i.e., "0000" is not allowed)".
    pub fn no_channel() -> Self {
        Violation::new(
            Field::Channels,
            "channel-mask",
            "no channel enabled: at least one of R, G, B, A must be written",
        )
    }

    /// The error, located through `positions`: text columns on `line`, or binary offsets
    /// when `line` is `None`.
    pub fn locate(self, positions: &FieldPositions, line: Option<(u32, &str)>) -> Error {
        let at = positions.of(self.field);
        let location = match line {
            Some((line_no, text)) => Location::Text {
                line: line_no,
                column: super::names::column(text, at),
            },
            None => Location::Binary { offset: at },
        };
        Error::Validation(ValidationError {
            location,
            rule: self.rule,
            detail: self.detail,
        })
    }
}

/// Checks `inst` against every rule. `var_type` gives declared variable types; rules on
/// types apply only to declared variables.
pub fn check(
    inst: &VisaInst,
    checks: Checks,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> Result<(), Violation> {
    let t = tables::tables();
    let (Some(op), Some(opc)) = (inst.op(), inst.opcode_desc()) else {
        return Err(Violation::new(
            Field::SubOp,
            "opcode",
            format!(
                "no vISA sampler instruction has opcode {:#04x} sub-op {}",
                inst.opcode, inst.subop
            ),
        ));
    };
    // Seeds: "0b011: 8 elements, 0b100: 16 elements"; GATHER4_TYPED lists 8 only; INFO_3D as
    // IGC emits it (8, 16; 32 on PVC).
    if !opc.exec_sizes.contains(&inst.exec_size) {
        return Err(Violation::new(
            Field::Exec,
            "exec-size",
            format!(
                "{} takes exec size {}, not {}",
                op.mnemonic,
                list(&opc.exec_sizes),
                inst.exec_size
            ),
        ));
    }
    match opc.channel {
        // Seeds: "At least one channel must be enabled (i.e., "0000" is not allowed)".
        ChannelKind::Mask if inst.channels & 0xf == 0 => return Err(Violation::no_channel()),
        // 3D_SAMPLE4.md: Src_channel bits 1..0 select R, G, B or A.
        ChannelKind::Index if inst.channels > 3 => {
            return Err(Violation::new(
                Field::Channels,
                "sample4-channel",
                format!("{} gathers exactly one channel", op.mnemonic),
            ))
        }
        _ => {}
    }
    match inst.aoffimmi {
        // Seeds: aoffimmi bits 15:12 "reserved. Must be zero".
        Some(Aoffimmi::Imm { value, .. }) if value > 0xfff => {
            return Err(Violation::new(
                Field::Aoffimmi,
                "aoffimmi-reserved",
                format!(
                    "aoffimmi {value:#x} sets bits above 11 (bits 15:12 are reserved; bit 15 \
                     selects IGC's sampler-index >= 16 path)"
                ),
            ));
        }
        // Seeds: "Aoffimmi(scalar): A UW": a variable is read as one integer for every lane.
        Some(Aoffimmi::Var { var, region, .. }) => {
            if region != Region::SCALAR {
                return Err(Violation::new(
                    Field::Aoffimmi,
                    "aoffimmi-variable",
                    format!(
                        "the aoffimmi is a scalar: a variable is read with region <0;1,0>, \
                         not {region}"
                    ),
                ));
            }
            if let Some(ty) = var_type(var).filter(|t| !t.is_small_int()) {
                return Err(Violation::new(
                    Field::Aoffimmi,
                    "aoffimmi-variable",
                    format!(
                        "the aoffimmi variable is declared {}; the aoffimmi is an integer \
                         (seeds: a UW)",
                        ty.name
                    ),
                ));
            }
        }
        _ => {}
    }
    // Seeds: ".cps ... Only available for sample, sample_b, sample_bc, sample_c, and LOD".
    if inst.modifiers & cps_bit() != 0 && !op.cps {
        return Err(Violation::new(
            Field::Modifiers,
            "cps",
            format!("{} does not take .cps", op.mnemonic),
        ));
    }
    if opc.num_params {
        let n = inst.params.len();
        let lim = &t.limits;
        let wide = super::lift::ms_form(inst, op, var_type) != Some(super::inst::MsForm::Dword);
        let most = lim.max_params.min(op.param_order(wide).len());
        // Seeds: NumParams "Valid values are [1-15]"; and no more than the op's order names.
        if n < lim.min_params || n > most {
            let field = if n == 0 {
                Field::NumParams
            } else {
                Field::Param(n.min(most))
            };
            return Err(Violation::new(
                field,
                "num-params",
                format!(
                    "{} takes {} to {most} parameters, not {n}",
                    op.mnemonic, lim.min_params
                ),
            ));
        }
    } else if inst.params.len() != op.params.len() {
        return Err(Violation::new(
            Field::Dst,
            "operand-count",
            format!(
                "{} takes {} operands before dst, not {}",
                op.mnemonic,
                op.params.len(),
                inst.params.len()
            ),
        ));
    }
    let grf = t.limits.grf_bytes;
    let raws = std::iter::once((Field::Dst, inst.dst)).chain(
        inst.params
            .iter()
            .enumerate()
            .map(|(i, r)| (Field::Param(i), *r)),
    );
    for (field, raw) in raws {
        // Research §3.1: raw operands must be GRF-aligned (GenX_IR's own message).
        if u32::from(raw.offset) % grf != 0 {
            return Err(Violation::new(
                field,
                "raw-offset-alignment",
                format!(
                    "raw operand offset {} is not a multiple of the {grf}-byte GRF",
                    raw.offset
                ),
            ));
        }
    }
    check_types(inst, checks, op, var_type)
}

/// The type rules (seeds): 0x6d/0x6f parameters all F or all HF, except sample4_po's
/// offsets, which are D (3D_SAMPLE4.md); 0x6e parameters all D/UD or all W/UW; the
/// destination one of the opcode's types.
fn check_types(
    inst: &VisaInst,
    checks: Checks,
    op: &OpDesc,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> Result<(), Violation> {
    let opc = op.opcode_desc();
    let mnemonic = &op.mnemonic;
    if let Some(dt) = var_type(inst.dst.var) {
        if !opc.dst_types.contains(&dt.name) {
            return Err(Violation::new(
                Field::Dst,
                "dst-type",
                format!(
                    "the destination of {mnemonic} must have type {}, not {}",
                    opc.dst_types.join(", "),
                    dt.name
                ),
            ));
        }
    }
    let mut first: Option<&TypeDesc> = None;
    for (i, class, offset_slot) in param_classes(inst, op, var_type) {
        let Some(pt) = var_type(inst.params[i].var) else {
            continue;
        };
        let expected = match class {
            _ if offset_slot => "D",
            ParamClass::Float => "F or HF",
            _ => "D/UD or W/UW",
        };
        let allowed = type_allowed(class, offset_slot, &pt.name);
        if !allowed {
            return Err(Violation::new(
                Field::Param(i),
                "param-type",
                format!(
                    "parameter {i} of {mnemonic} must be {expected}, not {}",
                    pt.name
                ),
            ));
        }
        if offset_slot {
            continue;
        }
        match first {
            None => first = Some(pt),
            Some(f) if f.bytes != pt.bytes => {
                if class == ParamClass::Float && checks == Checks::IgcCompatible {
                    continue;
                }
                return Err(Violation::new(
                    Field::Param(i),
                    "param-type",
                    format!(
                        "all parameters of {mnemonic} must have one type: the first is {}, \
                         parameter {i} is {}",
                        f.name, pt.name
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The parameters of `inst` the type rule constrains: (index, class, whether the slot is a
/// `sample4_po` offset, which is D whatever the op's class).
fn param_classes<'a>(
    inst: &'a VisaInst,
    op: &'a OpDesc,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> impl Iterator<Item = (usize, ParamClass, bool)> + 'a {
    let wide = super::lift::ms_form(inst, op, var_type) == Some(super::inst::MsForm::Word);
    let slots = op.param_order(wide);
    (0..inst.params.len()).filter_map(|i| {
        let offset_slot = slots.get(i).is_some_and(|s| s.is_offset());
        match op.opcode_desc().param_class {
            _ if offset_slot => Some((i, ParamClass::Int, true)),
            ParamClass::Any => None,
            class => Some((i, class, false)),
        }
    })
}

/// Whether a variable of type `ty` may be a parameter of `class` (seeds: F or HF; D/UD or
/// W/UW; an offset slot D or UD).
fn type_allowed(class: ParamClass, offset_slot: bool, ty: &str) -> bool {
    match class {
        _ if offset_slot => ["d", "ud"].contains(&ty),
        ParamClass::Float => ["f", "hf"].contains(&ty),
        _ => ["d", "ud", "w", "uw"].contains(&ty),
    }
}

/// The parameters of `inst` whose variable's type the type rule does not allow, with the
/// type to read them as instead (`f`; `ud`; an offset `d`): a translation meets these when
/// one source register holds values of two types (an NVIDIA register written by `TXQ` and
/// later read as a gradient), and reads such a parameter through an alias of that type.
pub fn param_retypes(
    inst: &VisaInst,
    var_type: &dyn Fn(u32) -> Option<&'static TypeDesc>,
) -> Vec<(usize, &'static str)> {
    let Some(op) = inst.op() else {
        return Vec::new();
    };
    param_classes(inst, op, var_type)
        .filter_map(|(i, class, offset_slot)| {
            let pt = var_type(inst.params[i].var)?;
            let wanted = match class {
                _ if offset_slot => "d",
                ParamClass::Float => "f",
                _ => "ud",
            };
            (!type_allowed(class, offset_slot, &pt.name)).then_some((i, wanted))
        })
        .collect()
}

fn list(v: &[u8]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" or ")
}
