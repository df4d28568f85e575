//! Backend: a whole vISA kernel built from target-ready IR (docs/translation.md).
//!
//! The kernel has the shape of IGC 1.0.12504's own dumps (corpus `dumps/*/*.visaasm`,
//! research §3.2), reduced to what GenX_IR needs to assemble it:
//!
//! ```text
//! .version 4.1
//! .kernel "<name>"
//! .decl V0032 v_type=G type=f num_elts=16 align=hword      every variable, by index
//! .decl V0033_ud v_type=G type=ud ... alias=<V0033, 0>      ALU reinterpretations
//! .decl P1 v_type=P num_elts=16                             predicates used
//! .decl S0 v_type=S num_elts=1 v_name=S000                  samplers S0..
//! .decl T6 v_type=T num_elts=1 v_name=T006                  surfaces T6..
//! .kernel_attr Target="3d"
//! .kernel_attr SimdSize=16
//! movs (M1_NM, 1) S0(0) 0x0:ud                          state variables, once
//! movs (M1_NM, 1) T6(0) 0x0:ud
//! <instructions>                                            texture, ALU, `//` comments
//! ret (M1, 1)
//! ```
//!
//! - **Indices are positions.** vISA numbers general variables from 32, samplers from 0 and
//!   surfaces from 6 in declaration order (research §6), so a variable `V<n>` of
//!   `Program::variables` must be the (n − 32)-th declaration: variables, samplers and
//!   surfaces are declared in index order, and an index the IR skips gets a filler
//!   declaration of the same shape (`V0033 type=ud num_elts=1`, `S1`, `T7`), so the printed
//!   names and the binary's indices say the same thing. Names are IGC's: `V0032`, `S0`, `T6`.
//! - **Alignment** is IGC's rule (every corpus dump): `hword` (one 32-byte GRF) when the
//!   variable is at least a GRF, else its element size (`dword` for `d num_elts=1`, `qword`
//!   for `uq`, `word` for `w`).
//! - **Header.** `.kernel_attr Target="3d"` as in every IGC dump; `SimdSize` is the widest
//!   exec size of the instructions (IGC writes the kernel's dispatch width). No `.input`
//!   (the kernel has no arguments) and no `.function` (GenX_IR accepts a kernel without one,
//!   research §3.2).
//! - **State variables.** `T<n>`/`S<n>` are variables whose value is the binding-table index
//!   or sampler index a `movs` stores (research §3.1; IGC emits `movs (M1_NM, 1) T6(0)
//!   0x<bti>:ud` before each use, the first image argument getting BTI 0 in T6). The kernel
//!   sets each declared one once, at the start: `T<n>` ← binding-table index n − 6, `S<n>` ←
//!   sampler index n.
//! - `lod` (sub-op 9) is printed as IGC prints it, although the 12504 lexer rejects that
//!   mnemonic (research §3.1): such a kernel does not assemble with GenX_IR 12504.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::error::{Error, Location, Unsupported, ValidationError};
use crate::ir::Isa;
use crate::ir::{
    Item, Lod, Offset, Opaque, Program, RegFile, ResRef, SamplerDecl, Scalar, Span, TexInstr,
    Variable,
};
use crate::isa::{EmitOptions, Form};

use super::inst::{Checks, VisaProgram};
use super::names::Scope;
use super::tables;

/// The kernel name when [`EmitOptions::name`] gives none.
pub const DEFAULT_NAME: &str = "texlate";

fn refuse(span: Span, rule: &'static str, detail: String) -> Error {
    Error::Validation(ValidationError {
        location: Location::Text {
            line: span.line,
            column: span.column,
        },
        rule,
        detail,
    })
}

/// Every scalar operand a texture instruction reads or writes.
fn tex_scalars(t: &TexInstr) -> Vec<Scalar> {
    let mut v: Vec<Scalar> = t.coord.clone();
    v.extend(t.array_index);
    v.extend(t.depth_ref);
    v.extend(t.min_lod);
    v.extend(t.sample_index);
    v.extend(t.mcs.iter().copied());
    match &t.lod {
        Lod::Bias(s) | Lod::Level(s) => v.push(*s),
        Lod::Grad { dx, dy } => v.extend(dx.iter().chain(dy).copied()),
        Lod::Implicit | Lod::Zero => {}
    }
    match &t.offset {
        Offset::Dynamic(s) | Offset::PerTexel(s) => v.extend(s.iter().copied()),
        Offset::Packed(s) => v.push(*s),
        Offset::None | Offset::Imm(_) => {}
    }
    v.extend(t.dst.iter().flatten().copied());
    v.extend(t.status_dst);
    v
}

/// The index of a variable named `V<n>` (any number of digits).
fn var_index(name: &str) -> Option<u32> {
    let digits = name.strip_prefix('V')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// IGC's alignment name for a variable of `num_elts` elements of `bytes` bytes.
fn align_name(bytes: u8, num_elts: u32) -> &'static str {
    let grf = tables::tables().limits.grf_bytes;
    if u32::from(bytes) * num_elts >= grf {
        return "hword";
    }
    match bytes {
        1 => "byte",
        2 => "word",
        8 => "qword",
        _ => "dword",
    }
}

fn line(text: String) -> Item {
    Item::Opaque(Opaque {
        text: Some(text),
        bytes: Vec::new(),
        span: Span::default(),
    })
}

/// The aliases a translated sampler instruction's parameters are read through: a parameter
/// whose variable has a type the op does not take (`validate::param_retypes`). An instruction
/// the emitter refuses needs none here: it is refused, naming itself, when it is emitted.
fn tex_aliases_needed(t: &TexInstr, scope: &Scope) -> Vec<(u32, &'static str)> {
    let var_type = |v| scope.var_type(v);
    match super::emit_inst::emit(t, &var_type) {
        Ok(inst) => super::validate::param_retypes(&inst, &var_type)
            .into_iter()
            .map(|(i, ty)| (inst.params[i].var, ty))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Builds a whole kernel from target-ready IR ([`Codec::emit`](crate::isa::Codec::emit)),
/// borrowed or owned (an owned IR's items move into the kernel
/// rather than being copied: peak memory one program fewer), and, when `form` asks for
/// text, the kernel's text: written as each instruction is emitted for its check, byte for
/// byte what [`super::print_text`] writes of the kernel, without emitting it a second time
/// (`None` for another form, or when an ALU item of the IR was read from vISA text and so
/// prints as read).
pub fn emit_output(
    ir: Cow<'_, Program>,
    options: &EmitOptions,
    form: Option<Form>,
) -> Result<(Program, Option<Vec<u8>>), Error> {
    let limits = &tables::tables().limits;
    let name = options.name.as_deref().unwrap_or(DEFAULT_NAME);
    if name.is_empty() || name.contains(['"', '\n', '\r']) {
        return Err(Error::Unsupported(Unsupported::new(
            format!("the kernel name {name:?}"),
            ir.isa,
            crate::ir::Isa::Visa,
            "a vISA kernel name is a non-empty string without quotes or line breaks",
        )));
    }

    // Variables by index.
    let mut vars: BTreeMap<u32, (&str, &Variable, &'static tables::TypeDesc)> = BTreeMap::new();
    for (vname, v) in &ir.variables {
        let at = Span::default();
        let index = var_index(vname)
            .filter(|i| *i >= limits.first_user_variable)
            .ok_or_else(|| {
                refuse(
                    at,
                    "variable-name",
                    format!(
                        "variable `{vname}`: target-ready vISA variables are named V<index> with \
                         index ≥ {}",
                        limits.first_user_variable
                    ),
                )
            })?;
        let ty = tables::type_by_name(&v.ty).ok_or_else(|| {
            refuse(
                at,
                "variable-type",
                format!("variable `{vname}` has type `{}`, not a vISA type", v.ty),
            )
        })?;
        if v.num_elts == 0 {
            return Err(refuse(
                at,
                "variable-size",
                format!("variable `{vname}` has no elements (GenX_IR rejects num_elts=0)"),
            ));
        }
        if let Some((other, ..)) = vars.insert(index, (vname, v, ty)) {
            return Err(refuse(
                at,
                "duplicate-declaration",
                format!("`{other}` and `{vname}` are both variable {index}"),
            ));
        }
    }

    // Items: registers declared, bindings declared, predicates collected, SIMD width.
    let mut preds = 0u16;
    let mut simd = 0u8;
    let check_reg = |s: Scalar, span: Span, what: &str| -> Result<(), Error> {
        let Scalar::Reg(r) = s else { return Ok(()) };
        if r.file != RegFile::Temp || r.index < limits.first_user_variable {
            return Ok(()); // other files are refused by the instruction emitters
        }
        match vars.get(&r.index) {
            None => Err(refuse(
                span,
                "undeclared",
                format!(
                    "{what} uses {r}, but Program::variables declares no V{}",
                    r.index
                ),
            )),
            Some((vname, v, ty)) if r.sub >= v.num_elts * u32::from(ty.bytes) => Err(refuse(
                span,
                "raw-offset",
                format!(
                    "{what} uses byte {} of `{vname}`, which has {} bytes",
                    r.sub,
                    v.num_elts * u32::from(ty.bytes)
                ),
            )),
            Some(_) => Ok(()),
        }
    };
    for item in &ir.items {
        match item {
            Item::Tex(t) => {
                let what = format!("{}", t.op);
                for s in tex_scalars(t) {
                    check_reg(s, t.span, &what)?;
                }
                let bound = |r: &ResRef, decl: bool, kind: &str| match r {
                    ResRef::Binding(n) if !decl => Err(refuse(
                        t.span,
                        "undeclared",
                        format!("{what} uses {kind} {n}, which the program does not declare"),
                    )),
                    _ => Ok(()),
                };
                if let ResRef::Binding(n) = &t.texture {
                    bound(&t.texture, ir.resources.contains_key(n), "texture")?;
                }
                if let Some(s @ ResRef::Binding(n)) = &t.sampler {
                    bound(s, ir.samplers.contains_key(n), "sampler")?;
                }
                if let Some(p) = t.pred {
                    preds = preds.max(p.index);
                }
                let size = t.exec.map_or(16, |e| e.size);
                // The sampler's widths (seeds: 3D_SAMPLE/3D_LOAD Exec_size "8 or 16");
                // GenX_IR accepts 32 and emits SIMD32 sends no hardware has (research §5).
                if ![8, 16].contains(&size) {
                    return Err(refuse(
                        t.span,
                        "exec-size",
                        format!(
                            "{what} at exec size {size}: vISA sampler messages are SIMD8 or SIMD16"
                        ),
                    ));
                }
                simd = simd.max(size);
            }
            Item::Alu(a) => {
                let what = format!("{}", a.op);
                for s in std::iter::once(a.dst).chain(a.srcs.iter().copied()) {
                    check_reg(s, a.span, &what)?;
                }
                if let Some(p) = a.pred {
                    preds = preds.max(p.index);
                }
                simd = simd.max(a.exec.map_or(16, |e| e.size));
            }
            Item::Comment(_) => {}
            Item::Opaque(o) => {
                return Err(Error::Unsupported(Unsupported::new(
                    format!(
                        "an opaque item ({})",
                        o.text.as_deref().unwrap_or("binary bytes")
                    ),
                    ir.isa,
                    crate::ir::Isa::Visa,
                    "target-ready IR holds texture, ALU and comment items only; the passes \
                     turn the source's other items into comments",
                )))
            }
        }
    }
    // Slots the source's bindings give but vISA cannot name: refusals of the translation
    // (no instruction to point at), not errors of an instruction.
    let no_slot = |what: String, why: String| {
        Err(Error::Unsupported(Unsupported::new(
            what,
            crate::ir::Isa::Visa,
            crate::ir::Isa::Visa,
            why,
        )))
    };
    for (&n, _) in &ir.resources {
        if n < limits.first_user_surface || n > u32::from(u8::MAX) {
            return no_slot(
                format!("texture T{n}"),
                format!(
                    "vISA user surfaces are T{}..T255 (T0..T5 are predefined)",
                    limits.first_user_surface
                ),
            );
        }
    }
    for (&n, _) in &ir.samplers {
        if n >= limits.predefined_sampler {
            return no_slot(
                format!("sampler S{n}"),
                format!(
                    "vISA user samplers are S0..S{} (S{} is predefined: GenX_IR refuses its \
                     declaration)",
                    limits.predefined_sampler - 1,
                    limits.predefined_sampler
                ),
            );
        }
    }

    // The program's tables, in index order with fillers.
    let mut out = Program::new(crate::ir::Isa::Visa);
    let mut decls: Vec<String> = Vec::new();
    if let Some(&last) = vars.keys().next_back() {
        for index in limits.first_user_variable..=last {
            let vname = format!("V{index:04}");
            let (ty, num_elts) = match vars.get(&index) {
                Some((_, v, ty)) => (*ty, v.num_elts),
                None => (tables::type_by_name("ud").expect("ud"), 1),
            };
            decls.push(format!(
                ".decl {vname} v_type=G type={} num_elts={num_elts} align={}",
                ty.name,
                align_name(ty.bytes, num_elts)
            ));
            out.variables.insert(
                vname.clone(),
                Variable {
                    name: vname,
                    ty: ty.name.clone(),
                    num_elts,
                },
            );
        }
    }
    // Aliases the ALU instructions need, after every variable.
    let mut aliases: Vec<(u32, &'static str)> = Vec::new();
    {
        let scope = Scope::new(&out);
        for item in &ir.items {
            let needs = match item {
                Item::Alu(a) => super::alu::aliases_needed(a, &scope)?,
                Item::Tex(t) => tex_aliases_needed(t, &scope),
                _ => Vec::new(),
            };
            for need in needs {
                if !aliases.contains(&need) {
                    aliases.push(need);
                }
            }
        }
    }
    for (index, ty) in aliases {
        let base = format!("V{index:04}");
        let (num_elts, bytes) = out
            .variables
            .get(&base)
            .map(|v| {
                let b = tables::type_by_name(&v.ty).map_or(4, |t| u32::from(t.bytes));
                (v.num_elts, b)
            })
            .unwrap_or((1, 4));
        let t = tables::type_by_name(ty).expect("alias type");
        let n = (num_elts * bytes) / u32::from(t.bytes).max(1);
        let alias = super::alu::alias_name(&base, ty);
        decls.push(format!(
            ".decl {alias} v_type=G type={ty} num_elts={n} align={} alias=<{base}, 0>",
            align_name(t.bytes, n)
        ));
        out.variables.insert(
            alias.clone(),
            Variable {
                name: alias,
                ty: ty.to_string(),
                num_elts: n,
            },
        );
    }
    let simd = if simd == 0 { 16 } else { simd };
    let mut visa = VisaProgram {
        final_newline: true,
        declared: true,
        checks: Checks::Strict,
        ..VisaProgram::default()
    };
    for p in 1..=preds {
        let pname = format!("P{p}");
        decls.push(format!(".decl {pname} v_type=P num_elts={simd}"));
        visa.predicates.push(pname);
    }
    let mut movs = Vec::new();
    // The tables are in first-use order: declare up to the highest index.
    if let Some(&last) = ir.samplers.keys().max() {
        for n in 0..=last {
            decls.push(format!(".decl S{n} v_type=S num_elts=1 v_name=S{n:03}"));
            let decl = ir.samplers.get(&n);
            if decl.is_some() {
                movs.push(format!("movs (M1_NM, 1) S{n}(0) {n:#x}:ud"));
            }
            out.samplers.insert(
                n,
                SamplerDecl {
                    name: format!("S{n}"),
                    comparison: decl.is_some_and(|d| d.comparison),
                },
            );
        }
    }
    if let Some(&last) = ir.resources.keys().max() {
        for n in limits.first_user_surface..=last {
            decls.push(format!(".decl T{n} v_type=T num_elts=1 v_name=T{n:03}"));
            let decl = ir.resources.get(&n);
            if decl.is_some() {
                let bti = n - limits.first_user_surface;
                movs.push(format!("movs (M1_NM, 1) T{n}(0) {bti:#x}:ud"));
            }
            let mut r = decl.cloned().unwrap_or(crate::ir::Resource {
                name: String::new(),
                dim: crate::ir::Dimension::Deferred,
                return_type: None,
                sample_count: None,
            });
            r.name = format!("T{n}");
            out.resources.insert(n, r);
        }
    }
    out.state = crate::ir::Origin::new(visa);

    out.items.push(line(".version 4.1".into()));
    out.items.push(line(format!(".kernel \"{name}\"")));
    out.items.extend(decls.into_iter().map(line));
    out.items.push(line(".kernel_attr Target=\"3d\"".into()));
    out.items
        .push(line(format!(".kernel_attr SimdSize={simd}")));
    out.items.extend(movs.into_iter().map(line));

    // The text as `print_text` writes the kernel: the lines above, the instructions, `ret`.
    const RET: &str = "ret (M1, 1)";
    let read_alu = ir
        .items
        .iter()
        .any(|i| matches!(i, Item::Alu(a) if a.source(Isa::Visa).is_some()));
    let mut text = (form == Some(Form::Text) && !read_alu).then(|| {
        let mut text = super::TextOut::new(out.items.len() + ir.items.len() + 1, "\n");
        for item in &out.items {
            if let Item::Opaque(Opaque { text: Some(l), .. }) = item {
                text.line(l);
            }
        }
        text
    });
    // The instructions, each checked now so a refusal names the IR instruction (and written
    // once checked; the IR holds no opaque item, refused above).
    {
        let scope = Scope::new(&out);
        let checks = Checks::Strict;
        let at = |t: &TexInstr| Location::Text {
            line: t.span.line,
            column: t.span.column,
        };
        for item in &ir.items {
            match (&mut text, item) {
                (Some(text), _) => text.item(item, ir.isa, &scope, checks, at)?,
                (None, Item::Tex(t)) => {
                    super::emit_checked(t, ir.isa, &scope, checks, at(t))?;
                }
                (None, Item::Alu(a)) => {
                    super::alu::emit(a, &scope)?;
                }
                (None, _) => {}
            }
        }
    }
    if let Some(text) = &mut text {
        text.line(RET);
    }
    out.items.extend(Program::items_of(ir).map(Cow::into_owned));
    out.items.push(line(RET.into()));
    Ok((out, text.map(|t| t.finish(true).into_bytes())))
}
