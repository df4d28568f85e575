//! The exact ISA-level form of one texture instruction, and its 64-bit word.
//!
//! [`NvInst`] holds every field of the word by meaning (registers, modifiers, codes) plus the
//! bits nvdisasm shows no use for, so `decode_word` and `encode_word` are inverse on every
//! word that decodes. Bit ranges and value spellings come from `mappings/nvidia.toml`.

use super::table::{code_of, table, Field, FieldName, Form, OpClass, Sm};

/// `RZ`: register 255 reads as zero (research §6).
pub const RZ: u8 = 255;

/// Offset modes, as codes of the `offset_mode` table: no offsets.
pub const OFFSET_NONE: u8 = 0;
/// `.AOFFI`: immediate offsets packed in a register.
pub const OFFSET_AOFFI: u8 = 1;
/// `.PTP`: per-texel offsets (TLD4).
pub const OFFSET_PTP: u8 = 2;

/// One texture instruction, field by field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvInst {
    /// The instruction class.
    pub op: OpClass,
    /// `.B`: the handle comes from a register, not from `tid`.
    pub bindless: bool,
    /// Guard predicate field: bits 2..0 the predicate (7 = PT), bit 3 negates.
    pub guard: u8,
    /// Sparse-status predicate destination (SM52+ for nvdisasm); `sparse_none` (7) = absent.
    pub sparse: u8,
    /// Destination register (255 = RZ).
    pub rd: u8,
    /// Second destination of TEXS/TLDS/TLD4S.
    pub rd1: u8,
    /// First source register vector (255 = RZ).
    pub ra: u8,
    /// Second source register vector (255 = RZ).
    pub rb: u8,
    /// Texture/sampler index (bound forms).
    pub tid: u16,
    /// Dimension code (`dim` table); TLD4S is always 2D, TXQ has none (0).
    pub dim: u8,
    /// RGBA write mask. Short forms: the components selected by the component code.
    pub mask: u8,
    /// LOD mode as a code of the `lod` table (0 none, 1 LZ, 2 LB, 3 LL, 6 LBA, 7 LLA).
    pub lod: u8,
    /// Offset mode (`offset_mode` table: none, AOFFI, PTP).
    pub offset: u8,
    /// `.DC`: depth compare.
    pub dc: bool,
    /// `.MS`: multisample fetch.
    pub ms: bool,
    /// `.CL`: TXD's LOD clamp.
    pub cl: bool,
    /// `.LC`: LOD clamp.
    pub lc: bool,
    /// `.NDV`.
    pub ndv: bool,
    /// `.NODEP`.
    pub nodep: bool,
    /// Gather component (TLD4/TLD4S): 0 R .. 3 A.
    pub comp: u8,
    /// TXQ query code.
    pub query: u8,
    /// Phase from the bundle's control word: 0 none, 1 `.T`, 2 `.P`.
    pub phase: u8,
    /// Bits in no field, kept so the word re-encodes exactly.
    pub raw: u64,
    /// `.F16`: half-precision results, two per register (TEXS, TLDS, TLD4S; SM52+).
    pub f16: bool,
    /// `.RTZ`: the `.F16` results rounded toward zero (SM60+).
    pub rtz: bool,
    /// A short form's component code when it is one nvdisasm prints as `INVALID5`..`7`
    /// (`mask` is then 0). Printed by `disasm`, refused by lift and `asm`.
    pub invalid_comps: Option<u8>,
}

impl NvInst {
    /// An instruction of `op` with every optional part absent.
    pub fn new(op: OpClass, bindless: bool) -> NvInst {
        let t = table();
        NvInst {
            op,
            bindless,
            guard: t.guard_true,
            sparse: t.sparse_none,
            rd: RZ,
            rd1: RZ,
            ra: RZ,
            rb: RZ,
            tid: 0,
            dim: if op == OpClass::TLD4S {
                t.dim_code("2D").unwrap_or(0)
            } else {
                0
            },
            mask: if op == OpClass::TLD4S { 0xf } else { 0 },
            lod: 0,
            offset: OFFSET_NONE,
            dc: false,
            ms: false,
            cl: false,
            lc: false,
            ndv: false,
            nodep: false,
            comp: 0,
            query: 0,
            phase: 0,
            raw: 0,
            f16: false,
            rtz: false,
            invalid_comps: None,
        }
    }

    /// The form this instruction encodes as.
    pub fn form(&self) -> Option<&'static Form> {
        table().form_f16(self.op, self.bindless, self.f16)
    }

    /// Whether the instruction has a dimension operand.
    pub fn has_dim(&self) -> bool {
        !matches!(self.op, OpClass::TXQ | OpClass::TLD4S)
    }
}

/// Why a word does not decode, or an instruction does not encode: the field and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field (or operand) at fault.
    pub field: &'static str,
    /// Why.
    pub reason: String,
}

impl FieldError {
    fn new(field: &'static str, reason: impl Into<String>) -> Self {
        FieldError {
            field,
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "field {}: {}", self.field, self.reason)
    }
}

/// The name of a field in messages.
pub fn field_label(name: FieldName) -> &'static str {
    match name {
        FieldName::Rd => "Rd",
        FieldName::Ra => "Ra",
        FieldName::Rb => "Rb",
        FieldName::Rd1 => "Rd1",
        FieldName::Guard => "guard predicate",
        FieldName::Dim => "dimension",
        FieldName::Wmask => "write mask",
        FieldName::Ndv => ".NDV",
        FieldName::Tid => "tid",
        FieldName::Nodep => ".NODEP",
        FieldName::Dc => ".DC",
        FieldName::Sparse => "sparse predicate",
        FieldName::Aoffi => ".AOFFI",
        FieldName::Lod => "LOD mode",
        FieldName::TldLod => "LOD mode",
        FieldName::Lc => ".LC",
        FieldName::Ms => ".MS",
        FieldName::Cl => ".CL",
        FieldName::OffsetMode => "offset mode",
        FieldName::Comp => "gather component",
        FieldName::Comps => "component code",
        FieldName::Target => "target",
        FieldName::Query => "query",
        FieldName::Rtz => ".RTZ",
    }
}

/// The RGBA mask a component spelling (`RGA`) stands for.
pub fn comps_mask(spelling: &str) -> u8 {
    spelling.chars().fold(0, |m, c| match c {
        'R' => m | 1,
        'G' => m | 2,
        'B' => m | 4,
        'A' => m | 8,
        _ => m,
    })
}

/// Whether a TXQ query code decodes (named, or an even code nvdisasm prints as a number).
pub fn query_valid(code: u8) -> bool {
    let t = table();
    let [lo, hi] = t.query_numeric;
    t.query.contains_key(&code) || (code % 2 == 0 && (lo..=hi).contains(&code))
}

/// Decodes one word as SM50 does ([`decode_word_on`]). `Ok(None)`: not a texture instruction.
pub fn decode_word(word: u64) -> Result<Option<NvInst>, FieldError> {
    decode_word_on(word, Sm::SM50)
}

/// Decodes one word as nvdisasm does for `sm`: every word it prints decodes, reserved values
/// it spells `INVALID…` included (lift and `asm` refuse those); a word it calls UNDECODABLE is
/// an error naming the field. `Ok(None)`: not a texture instruction.
pub fn decode_word_on(word: u64, sm: Sm) -> Result<Option<NvInst>, FieldError> {
    let Some(form) = table().form_of(word) else {
        return Ok(None);
    };
    decode_form(form, word, sm).map(Some)
}

/// The value a field holds when the instruction does not use it (the sparse predicate's
/// `none`, 0 for the others).
fn absent_value(f: &Field) -> u64 {
    match f.name {
        FieldName::Sparse => table().sparse_none.into(),
        _ => 0,
    }
}

/// The modifier or operand name of a form: `TEXS.F16`, `TEX.B`.
fn form_name(form: &Form) -> String {
    format!(
        "{}{}{}",
        form.op.mnemonic(),
        if form.f16 { ".F16" } else { "" },
        if form.bindless { ".B" } else { "" }
    )
}

/// The error for a form or field `sm` does not decode yet.
fn needs_sm(field: &'static str, what: &str, first: Sm, sm: Sm) -> FieldError {
    FieldError::new(
        field,
        format!("{what} needs {first} or later (nvdisasm -b {sm} cannot decode it; see --sm)"),
    )
}

/// [`decode_word_on`] of a word of `form` (`form.mask` bits `form.value`).
pub(super) fn decode_form(form: &Form, word: u64, sm: Sm) -> Result<NvInst, FieldError> {
    let mut inst = NvInst::new(form.op, form.bindless);
    decode_form_into(form, word, sm, &mut inst)?;
    Ok(inst)
}

/// [`decode_form`] into `inst`, which holds `NvInst::new(form.op, form.bindless)` (the
/// streams' accept path decodes in place: a returned instruction was copied twice).
pub(super) fn decode_form_into(
    form: &Form,
    word: u64,
    sm: Sm,
    inst: &mut NvInst,
) -> Result<(), FieldError> {
    let t = table();
    if sm < form.sm {
        return Err(needs_sm("opcode", &form_name(form), form.sm, sm));
    }
    if word & form.reserved != 0 {
        return Err(FieldError::new(
            "reserved",
            format!(
                "bits {:#018x} must be zero in {}",
                word & form.reserved,
                form.op.mnemonic()
            ),
        ));
    }
    inst.f16 = form.f16;
    inst.raw = word & form.free_bits_on(sm);
    let mut comps = None;
    for f in &form.fields {
        let v = f.get(word);
        // Named in errors only.
        let label = || field_label(f.name);
        if sm > f.until {
            continue;
        }
        if sm < f.sm {
            if v != absent_value(f) {
                let what = format!("{} of {}", label(), form_name(form));
                return Err(needs_sm(label(), &what, f.sm, sm));
            }
            continue;
        }
        let reserved = || FieldError::new(label(), format!("value {v} is reserved"));
        match f.name {
            FieldName::Rd => inst.rd = v as u8,
            FieldName::Ra => inst.ra = v as u8,
            FieldName::Rb => inst.rb = v as u8,
            FieldName::Rd1 => inst.rd1 = v as u8,
            FieldName::Guard => inst.guard = v as u8,
            FieldName::Dim => inst.dim = v as u8,
            FieldName::Wmask => inst.mask = v as u8,
            FieldName::Ndv => inst.ndv = v != 0,
            FieldName::Tid => inst.tid = v as u16,
            FieldName::Nodep => inst.nodep = v != 0,
            FieldName::Dc => inst.dc = v != 0,
            FieldName::Sparse => inst.sparse = v as u8,
            FieldName::Aoffi => inst.offset = if v != 0 { OFFSET_AOFFI } else { OFFSET_NONE },
            FieldName::Lod => {
                if t.dense.printed_lod[v as u8 as usize].is_none() {
                    return Err(reserved());
                }
                inst.lod = v as u8;
            }
            FieldName::TldLod => {
                inst.lod = t
                    .tld_lod_code
                    .get(v as usize)
                    .copied()
                    .filter(|c| *c != u8::MAX)
                    .ok_or_else(reserved)?
            }
            FieldName::Lc => inst.lc = v != 0,
            FieldName::Ms => inst.ms = v != 0,
            FieldName::Cl => inst.cl = v != 0,
            FieldName::OffsetMode => {
                if t.dense.printed_offset_mode[v as u8 as usize].is_none() {
                    return Err(reserved());
                }
                inst.offset = v as u8;
            }
            FieldName::Rtz => inst.rtz = v != 0,
            FieldName::Comp => inst.comp = v as u8,
            FieldName::Comps => comps = Some(v as u8),
            FieldName::Target => {
                let target = t
                    .short_targets(form.op)
                    .iter()
                    .find(|s| u64::from(s.code) == v)
                    .ok_or_else(reserved)?;
                inst.lod = target.lod_code;
                inst.dim = target.dim_code;
                inst.dc = target.dc;
                inst.ms = target.ms;
                inst.offset = if target.aoffi {
                    OFFSET_AOFFI
                } else {
                    OFFSET_NONE
                };
            }
            FieldName::Query => {
                if !query_valid(v as u8) {
                    return Err(FieldError::new(
                        label(),
                        format!("value {v:#x} is reserved"),
                    ));
                }
                inst.query = v as u8;
            }
        }
    }
    if let Some(code) = comps {
        let names = if inst.rd1 == RZ {
            &t.comps_pair
        } else {
            &t.comps_quad
        };
        match names.get(&code) {
            Some(s) => inst.mask = comps_mask(s),
            None if inst.rd1 != RZ && t.invalid.comps_quad.contains_key(&code) => {
                inst.mask = 0;
                inst.invalid_comps = Some(code);
            }
            None => {
                return Err(FieldError::new(
                    "component code",
                    format!("value {code} is reserved when Rd1 is a register"),
                ))
            }
        }
    }
    Ok(())
}

/// Why `inst` decodes but is no instruction the hardware runs: a reserved value nvdisasm
/// spells `INVALID…`. `None` when it has none. (Register vectors past R254 and forms without
/// a parameter layout are refused by lift's own check.)
pub fn invalid_value(inst: &NvInst) -> Option<FieldError> {
    let t = table();
    let d = &t.dense;
    let printed = |names: &super::table::DenseNames, code: u8| names[usize::from(code)];
    let refuse = |field: &'static str, spelling: Option<&str>| {
        FieldError::new(
            field,
            format!(
                "{} is a reserved value: nvdisasm prints it, the hardware has no such {}",
                spelling.unwrap_or("the value"),
                field
            ),
        )
    };
    let has = |n: FieldName| inst.form().and_then(|f| f.field(n)).is_some();
    if has(FieldName::Lod) && !t.lod.contains_key(&inst.lod) {
        return Some(refuse("LOD mode", printed(&d.printed_lod, inst.lod)));
    }
    if has(FieldName::OffsetMode) && !t.offset_mode.contains_key(&inst.offset) {
        return Some(refuse(
            "offset mode",
            printed(&d.printed_offset_mode, inst.offset),
        ));
    }
    if let Some(code) = inst.invalid_comps {
        return Some(refuse(
            "component code",
            printed(&d.printed_comps_quad, code),
        ));
    }
    None
}

/// The `lod` table code of a LOD spelling (`""`, `LZ`, ...).
pub fn lod_code(spelling: &str) -> u8 {
    code_of(&table().lod, spelling).unwrap_or(0)
}

/// The spelling of a `lod` table code.
pub fn lod_spelling(code: u8) -> &'static str {
    table().dense.lod[usize::from(code)].unwrap_or("")
}

/// The component code of a short form's mask, given whether Rd1 is RZ.
pub fn comps_code(mask: u8, rd1_is_rz: bool) -> Option<u8> {
    let code = *table().comps_by_mask[usize::from(!rd1_is_rz)].get(usize::from(mask))?;
    (code != u8::MAX).then_some(code)
}

/// The short-form target code for the instruction's LOD mode, dimension and flags.
fn target_code(inst: &NvInst) -> Option<u8> {
    let t = table();
    let lod = lod_spelling(inst.lod);
    let dim = t.dims.get(inst.dim as usize)?;
    t.short_targets(inst.op)
        .iter()
        .find(|s| {
            s.lod == lod
                && &s.dim == dim
                && s.dc == inst.dc
                && s.ms == inst.ms
                && s.aoffi == (inst.offset == OFFSET_AOFFI)
        })
        .map(|s| s.code)
}

/// Encodes an instruction. Fails, naming the field, when the instruction has a part its
/// form cannot hold (e.g. `.NDV` on TLD) or a value out of range.
pub fn encode_word(inst: &NvInst) -> Result<u64, FieldError> {
    let t = table();
    let form = inst.form().ok_or_else(|| {
        FieldError::new(".B", format!("{} has no bindless form", inst.op.mnemonic()))
    })?;
    let has = |n: FieldName| form.field(n).is_some();
    let short_target = has(FieldName::Target);
    let refuse = |what: &'static str| {
        Err(FieldError::new(
            what,
            format!(
                "{}{} has no {what}",
                inst.op.mnemonic(),
                if inst.bindless { ".B" } else { "" }
            ),
        ))
    };
    // Parts the form must be able to hold.
    if inst.ndv && !has(FieldName::Ndv) {
        return refuse(".NDV");
    }
    if inst.cl && !has(FieldName::Cl) {
        return refuse(".CL");
    }
    if inst.lc && !has(FieldName::Lc) {
        return refuse(".LC");
    }
    if inst.dc && !has(FieldName::Dc) && !short_target {
        return refuse(".DC");
    }
    if inst.ms && !has(FieldName::Ms) && !short_target {
        return refuse(".MS");
    }
    if inst.offset == OFFSET_PTP && !has(FieldName::OffsetMode) {
        return refuse(".PTP");
    }
    if inst.offset == OFFSET_AOFFI
        && !has(FieldName::Aoffi)
        && !has(FieldName::OffsetMode)
        && !short_target
    {
        return refuse(".AOFFI");
    }
    if inst.lod != 0 && !has(FieldName::Lod) && !has(FieldName::TldLod) && !short_target {
        return refuse("LOD mode");
    }
    if inst.sparse != t.sparse_none && !has(FieldName::Sparse) {
        return refuse("sparse predicate");
    }
    if inst.comp != 0 && !has(FieldName::Comp) {
        return refuse("gather component");
    }
    if inst.query != 0 && !has(FieldName::Query) {
        return refuse("query");
    }
    if inst.tid != 0 && !has(FieldName::Tid) {
        return refuse("tid");
    }
    if inst.rb != RZ && !has(FieldName::Rb) {
        return refuse("Rb");
    }
    if inst.rd1 != RZ && !has(FieldName::Rd1) {
        return refuse("Rd1");
    }
    if inst.op == OpClass::TLD4S && (inst.mask != 0xf || Some(inst.dim) != t.dim_code("2D")) {
        return Err(FieldError::new(
            "write mask",
            "TLD4S always writes four components of a 2D gather",
        ));
    }
    if inst.rtz && !has(FieldName::Rtz) {
        return refuse(".RTZ");
    }
    if inst.raw & !form.free_bits_any() != 0 {
        return Err(FieldError::new(
            "raw",
            format!(
                "bits {:#018x} belong to fields of {}",
                inst.raw & !form.free_bits_any(),
                inst.op.mnemonic()
            ),
        ));
    }
    let mut word = form.value;
    for f in &form.fields {
        let label = field_label(f.name);
        let value: u64 = match f.name {
            FieldName::Rd => inst.rd.into(),
            FieldName::Ra => inst.ra.into(),
            FieldName::Rb => inst.rb.into(),
            FieldName::Rd1 => inst.rd1.into(),
            FieldName::Guard => inst.guard.into(),
            FieldName::Dim => inst.dim.into(),
            FieldName::Wmask => inst.mask.into(),
            FieldName::Ndv => inst.ndv.into(),
            FieldName::Tid => inst.tid.into(),
            FieldName::Nodep => inst.nodep.into(),
            FieldName::Dc => inst.dc.into(),
            FieldName::Sparse => inst.sparse.into(),
            FieldName::Aoffi => match inst.offset {
                OFFSET_NONE => 0,
                OFFSET_AOFFI => 1,
                _ => return refuse(".PTP"),
            },
            FieldName::Lod => {
                if t.dense.printed_lod[usize::from(inst.lod)].is_none() {
                    return Err(FieldError::new(
                        label,
                        format!("code {} is reserved", inst.lod),
                    ));
                }
                inst.lod.into()
            }
            FieldName::TldLod => code_of(&t.tld_lod, lod_spelling(inst.lod))
                .ok_or_else(|| {
                    FieldError::new(
                        label,
                        format!("TLD has no LOD mode `{}`", lod_spelling(inst.lod)),
                    )
                })?
                .into(),
            FieldName::Lc => inst.lc.into(),
            FieldName::Ms => inst.ms.into(),
            FieldName::Cl => inst.cl.into(),
            FieldName::OffsetMode => {
                if t.dense.printed_offset_mode[usize::from(inst.offset)].is_none() {
                    return Err(FieldError::new(label, "reserved offset mode"));
                }
                inst.offset.into()
            }
            FieldName::Rtz => inst.rtz.into(),
            FieldName::Comp => inst.comp.into(),
            FieldName::Comps => inst
                .invalid_comps
                .filter(|_| inst.rd1 != RZ)
                .or_else(|| comps_code(inst.mask, inst.rd1 == RZ))
                .ok_or_else(|| {
                    FieldError::new(
                        label,
                        format!(
                            "no component code for mask {:#x} with Rd1 {}",
                            inst.mask,
                            if inst.rd1 == RZ { "RZ" } else { "a register" }
                        ),
                    )
                })?
                .into(),
            FieldName::Target => target_code(inst)
                .ok_or_else(|| {
                    FieldError::new(
                        label,
                        format!(
                            "{} has no target for this LOD mode, dimension and flags",
                            inst.op.mnemonic()
                        ),
                    )
                })?
                .into(),
            FieldName::Query => {
                if !query_valid(inst.query) {
                    return Err(FieldError::new(
                        label,
                        format!("query code {:#x} is reserved", inst.query),
                    ));
                }
                inst.query.into()
            }
        };
        if !f.fits(value) {
            return Err(FieldError::new(
                label,
                format!("value {value:#x} does not fit {} bits", f.width),
            ));
        }
        f.put(&mut word, value);
    }
    Ok(word | inst.raw)
}

/// [`encode_word`] for `sm`: also refuses what nvdisasm `-b sm` cannot decode (a form or a
/// field value of a later SM) or no longer prints (TLD4 `.NDV` past SM53), naming the field.
pub fn encode_word_on(inst: &NvInst, sm: Sm) -> Result<u64, FieldError> {
    let word = encode_word(inst)?;
    check_word_on(inst, word, sm)?;
    Ok(word)
}

/// What [`encode_word_on`] checks past [`encode_word`], given `word`, the instruction's
/// word: its form and fields exist on `sm`.
pub(super) fn check_word_on(inst: &NvInst, word: u64, sm: Sm) -> Result<(), FieldError> {
    let Some(form) = inst.form() else {
        return Ok(());
    };
    if sm < form.sm {
        return Err(needs_sm("opcode", &form_name(form), form.sm, sm));
    }
    for f in &form.fields {
        let label = field_label(f.name);
        let v = f.get(word);
        if sm < f.sm && v != absent_value(f) {
            let what = format!("{label} of {}", form_name(form));
            return Err(needs_sm(label, &what, f.sm, sm));
        }
        if sm > f.until && v != absent_value(f) && inst.raw & f.mask() == 0 {
            return Err(FieldError::new(
                label,
                format!(
                    "{label} of {} is not decoded past {} (nvdisasm -b {sm} ignores it)",
                    form_name(form),
                    f.until
                ),
            ));
        }
    }
    Ok(())
}
