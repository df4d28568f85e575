//! Cross-ISA translation: bindings, register map, the pass pipeline, the backend and the
//! Report (docs/translation.md).
//!
//! ```
//! use texlate::translate::{translate, Options};
//! use texlate::{Form, Isa};
//!
//! // A DX sample of a 2D texture, to NVIDIA: r1.xy ↔ R4, R5 and r0 ↔ R0..R3 by default.
//! let src = b"ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\nsample r0.xyzw, r1.xyxx, t0.xyzw, s0\n";
//! let t = translate(src, &Options::new(Isa::Dxbc, Isa::Nvidia))?;
//! let text = String::from_utf8(t.output.clone()).unwrap();
//! assert!(text.contains("TEX.P R0, R4, 0x0, 2D, 0xf"), "{text}");
//! assert_eq!(t.report().instructions.len(), 1);
//! # Ok::<(), texlate::Error>(())
//! ```

pub mod bindings;
pub mod regmap;
pub mod report;

pub use bindings::{Binding, Bindings, ReturnType, Slot};
pub use regmap::RegisterMap;
pub use report::Report;

use std::borrow::Cow;

use crate::error::{Error, Unsupported};
use crate::ir::{Comment, Isa, Item, Lod, Program, TexOp};
use crate::isa::{codec, EmitOptions, Stage};
use crate::passes::{self, Note, PassContext, Target};
use crate::{Form, ReadOptions};

/// What to translate, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The input's ISA.
    pub from: Isa,
    /// The output's ISA.
    pub to: Isa,
    /// Text or binary output.
    pub emit: Form,
    /// The bindings file: its name (for messages) and text.
    pub bindings: Option<(String, String)>,
    /// The register-map file: its name and text.
    pub regmap: Option<(String, String)>,
    /// SIMD width of a vISA target (8 or 16).
    pub simd: u8,
    /// DX shader stage; by default pixel when an instruction needs implicit derivatives,
    /// otherwise compute.
    pub stage: Option<Stage>,
    /// Refuse inputs with non-texture items instead of keeping them as comments.
    pub strict: bool,
    /// How the input is read.
    pub read: ReadOptions,
    /// What to do with a gradient sample the target has no native form for.
    pub grad: GradPolicy,
}

/// The approximation policy for gradient samples the target cannot express natively
/// (`--grad`; issue 8): NVIDIA `TXD` takes no 3D, cube or compare, SM5 has no compare with
/// gradients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GradPolicy {
    /// Only exact translations: a native form, or the exact emulation the target's own
    /// compiler emits (ptxas's quad emulation); otherwise refuse.
    #[default]
    Exact,
    /// Where no exact form exists, the LOD computed from the gradients and an explicit-LOD
    /// sample, with a Report warning on every such instruction.
    Approx,
    /// Only native forms: a gradient sample that needs an emulation is refused, naming the
    /// policy that would allow it.
    Error,
}

impl GradPolicy {
    /// The policy's name as `--grad` spells it.
    pub fn name(self) -> &'static str {
        match self {
            GradPolicy::Exact => "exact",
            GradPolicy::Approx => "approx",
            GradPolicy::Error => "error",
        }
    }
}

impl Options {
    /// Text output, default bindings and register map, SIMD16.
    pub fn new(from: Isa, to: Isa) -> Self {
        Options {
            from,
            to,
            emit: Form::Text,
            bindings: None,
            regmap: None,
            simd: 16,
            stage: None,
            strict: false,
            read: ReadOptions::default(),
            grad: GradPolicy::Exact,
        }
    }
}

/// A translation: the output bytes, the target program they encode, the bindings and register
/// map it used (every default filled in) and its warnings; the Report is built from it when
/// asked for ([`Translation::report`]): most callers want only the output.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The output bytes: text or binary as [`Options::emit`] asks.
    pub output: Vec<u8>,
    /// The target program the output encodes.
    pub program: Program,
    /// The bindings used, every default filled in.
    pub bindings: Bindings,
    /// The register map used, every default filled in.
    pub regmap: RegisterMap,
    /// What the translation could not keep exactly: the Report's warnings.
    pub warnings: Vec<String>,
    /// What the Report describes besides the target program.
    basis: Basis,
}

/// What a [`Translation`]'s Report is built from.
#[derive(Clone, Debug)]
enum Basis {
    /// An identity translation: the program is the source, re-encoded.
    Identity,
    /// A cross translation.
    Lowered(Box<LoweredBasis>),
}

/// A cross translation's source, its target-ready IR and the rules that fired.
#[derive(Clone, Debug)]
struct LoweredBasis {
    source: Program,
    ir: Program,
    notes: Vec<Note>,
    non_texture_items: usize,
    stage: Option<Stage>,
}

impl Translation {
    /// The Report: what each instruction became, and why.
    pub fn report(&self) -> Report {
        let files = (&self.bindings, &self.regmap);
        match &self.basis {
            Basis::Identity => Report::identity(&self.program, files, self.warnings.clone()),
            Basis::Lowered(b) => Report::new(
                &b.source,
                &b.ir,
                &b.notes,
                files,
                b.non_texture_items,
                b.stage,
            ),
        }
    }
}

/// Whether `program` needs implicit derivatives (a pixel shader).
fn needs_derivatives(program: &Program) -> bool {
    program.tex_instrs().any(|t| {
        matches!(
            (t.op, &t.lod),
            (TexOp::Sample, Lod::Implicit | Lod::Bias(_)) | (TexOp::QueryLod, _)
        )
    })
}

/// Translates `input` (text or binary of `options.from`) into `options.to`.
pub fn translate(input: &[u8], options: &Options) -> Result<Translation, Error> {
    let source = crate::decode_with(options.from, input, options.read)?;
    translate_program(source, options)
}

/// A source program lowered to target-ready IR (docs/translation.md), before the backend; the
/// Report is built from it when asked for ([`Lowered::report`]).
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The source program.
    pub source: Program,
    /// The target-ready IR.
    pub ir: Program,
    /// The DX stage the target gets.
    pub stage: Option<Stage>,
    /// The rules that fired, per source instruction.
    pub notes: Vec<Note>,
    /// How many source items are not texture or ALU instructions (kept as comments).
    pub non_texture_items: usize,
    /// The bindings in force, defaults included.
    pub bindings: Bindings,
    /// The register map in force, defaults included.
    pub regmap: RegisterMap,
}

impl Lowered {
    /// The Report: what each instruction became, and why.
    pub fn report(&self) -> Report {
        Report::new(
            &self.source,
            &self.ir,
            &self.notes,
            (&self.bindings, &self.regmap),
            self.non_texture_items,
            self.stage,
        )
    }
}

/// Translates a decoded program.
pub fn translate_program(source: Program, options: &Options) -> Result<Translation, Error> {
    let (t, basis) = translate_parts(source, options, true)?;
    Ok(Translation {
        output: t.output,
        program: t.program,
        bindings: t.bindings,
        regmap: t.regmap,
        warnings: t.warnings,
        basis: basis.expect("a kept translation has its Report's basis"),
    })
}

/// A translation without its Report ([`translate_program_output`]): the output bytes, the
/// target program they encode and the warnings.
#[derive(Clone, Debug)]
pub struct Translated {
    /// The output bytes: text or binary as [`Options::emit`] asks.
    pub output: Vec<u8>,
    /// The target program the output encodes.
    pub program: Program,
    /// What the translation could not keep exactly: the Report's warnings.
    pub warnings: Vec<String>,
}

impl From<Translation> for Translated {
    fn from(t: Translation) -> Self {
        Translated {
            output: t.output,
            program: t.program,
            warnings: t.warnings,
        }
    }
}

/// [`translate_program`] for a caller that will not ask for the Report: the same output,
/// target program, warnings and errors, but nothing is kept for the Report — the source's
/// instructions move into the passes instead of being copied, and the target-ready IR is
/// freed once the backend has emitted the target program (peak memory: one program fewer).
pub fn translate_program_output(source: Program, options: &Options) -> Result<Translated, Error> {
    translate_parts(source, options, false).map(|(t, _)| Translated {
        output: t.output,
        program: t.program,
        warnings: t.warnings,
    })
}

/// What [`translate_parts`] gives besides the Report's basis.
struct Parts {
    output: Vec<u8>,
    program: Program,
    bindings: Bindings,
    regmap: RegisterMap,
    warnings: Vec<String>,
}

/// The translation of `source`, and what its Report is built from when `keep` asks for it.
fn translate_parts(
    source: Program,
    options: &Options,
    keep: bool,
) -> Result<(Parts, Option<Basis>), Error> {
    if options.from == options.to {
        // Translating refuses what `disasm` prints but the hardware cannot run, in any form.
        let c = codec(options.from);
        if let Some(e) = source.items.iter().find_map(|i| match i {
            Item::Opaque(o) => c.opaque_refusal(&source, o),
            _ => None,
        }) {
            return Err(e);
        }
        let output = crate::encode(options.to, &source, options.emit)?;
        let (bindings, regmap) = parse_files(options)?;
        let warnings = codec(options.to).encode_warnings(&source, options.emit);
        let parts = Parts {
            output,
            program: source,
            bindings,
            regmap,
            warnings,
        };
        return Ok((parts, Some(Basis::Identity)));
    }
    let lowered = lower(source, options, keep)?;
    let emit = EmitOptions {
        stage: lowered.stage,
        name: None,
    };
    let warnings = report::warnings(&lowered.notes);
    let target = codec(options.to);
    // Without a Report to keep it for, the target-ready IR moves into the backend, which
    // frees it once the target program is built.
    let (program, output, basis) = match lowered.source {
        Some(source) => {
            let (program, output) = target
                .emit_output(Cow::Borrowed(&lowered.ir), &emit, options.emit)
                .map_err(|e| e.from_source(options.from))?;
            let basis = Basis::Lowered(Box::new(LoweredBasis {
                source,
                ir: lowered.ir,
                notes: lowered.notes,
                non_texture_items: lowered.non_texture_items,
                stage: lowered.stage,
            }));
            (program, output, Some(basis))
        }
        None => {
            let (program, output) = target
                .emit_output(Cow::Owned(lowered.ir), &emit, options.emit)
                .map_err(|e| e.from_source(options.from))?;
            (program, output, None)
        }
    };
    let output = match output {
        Some(output) => output,
        None => crate::encode(options.to, &program, options.emit)
            .map_err(|e| e.from_source(options.from))?,
    };
    let parts = Parts {
        output,
        program,
        bindings: lowered.bindings,
        regmap: lowered.regmap,
        warnings,
    };
    Ok((parts, basis))
}

fn parse_files(options: &Options) -> Result<(Bindings, RegisterMap), Error> {
    let bindings = match &options.bindings {
        Some((name, text)) => Bindings::parse(name, text)?,
        None => Bindings::default(),
    };
    let regmap = match &options.regmap {
        Some((name, text)) => RegisterMap::parse(name, text, options.from, options.to)?,
        None => RegisterMap::default(),
    };
    Ok((bindings, regmap))
}

/// Runs the passes: `source` lowered to target-ready IR for `options.to`, with what the
/// Report is built from.
pub fn lower_program(source: Program, options: &Options) -> Result<Lowered, Error> {
    let l = lower(source, options, true)?;
    Ok(Lowered {
        source: l.source.expect("a kept lowering has its source"),
        ir: l.ir,
        stage: l.stage,
        notes: l.notes,
        non_texture_items: l.non_texture_items,
        bindings: l.bindings,
        regmap: l.regmap,
    })
}

/// [`lower`]'s result: a [`Lowered`] whose source is kept only when asked for.
struct Lowering {
    source: Option<Program>,
    ir: Program,
    stage: Option<Stage>,
    notes: Vec<Note>,
    non_texture_items: usize,
    bindings: Bindings,
    regmap: RegisterMap,
}

/// Runs the passes on `source`; keeps the source (for the Report) when `keep_source` says
/// so, otherwise moves its instructions into the passes.
fn lower(mut source: Program, options: &Options, keep_source: bool) -> Result<Lowering, Error> {
    let (from, to) = (options.from, options.to);
    let (bindings, regmap) = parse_files(options)?;
    let text_input = source.tex_instrs().any(|t| t.span.line > 0)
        || source.items.iter().any(|i| match i {
            Item::Opaque(o) => o.text.is_some(),
            _ => false,
        });
    let source_codec = codec(from);
    let target_codec = codec(to);
    // What the passes learn from the whole source, read before its items move.
    let constants = source_codec.constants(&source);
    let source_aliases = source_codec
        .aliases(&source)
        .into_iter()
        .map(|(v, root, offset)| (v, (root, offset)))
        .collect();
    // The source's non-texture items become comments, in order. A kept source stays whole
    // for the Report (the passes get copies of its instructions); otherwise its items move.
    let source_items: Box<dyn Iterator<Item = Cow<'_, Item>>> = if keep_source {
        Box::new(source.items.iter().map(Cow::Borrowed))
    } else {
        Box::new(
            std::mem::take(&mut source.items)
                .into_iter()
                .map(Cow::Owned),
        )
    };
    let mut items = Vec::with_capacity(source_items.size_hint().0);
    let mut non_texture = 0;
    for item in source_items {
        if let Item::Opaque(o) = &*item {
            // A texture instruction the source decodes but the hardware cannot run
            // (NVIDIA: a reserved INVALID… value, a vector past R254) or the IR does not
            // model (`.F16`) is refused, not carried as a comment.
            if let Some(e) = source_codec.opaque_untranslatable(&source, o) {
                return Err(e);
            }
            non_texture += 1;
            let text = match &o.text {
                Some(t) => t.trim_end().to_string(),
                None => crate::isa::hex::bytes_hex(&o.bytes, " "),
            };
            if options.strict {
                return Err(Error::Unsupported(
                    Unsupported::new(
                        format!("the non-texture item `{}`", text.trim()),
                        from,
                        to,
                        "--strict refuses inputs with items texlate does not translate",
                    )
                    .at(crate::error::Location::from_span(o.span, o.text.is_some())),
                ));
            }
            if !text.trim().is_empty() {
                items.push(Item::Comment(Comment { text, span: o.span }));
            }
            continue;
        }
        let mut item = item.into_owned();
        // An ALU instruction read from the source is the IR's own: what the source's codec
        // kept of it describes the source, not the target.
        if let Item::Alu(a) = &mut item {
            a.origin = crate::ir::Origin::SYNTHETIC;
        }
        // A result channel the source writes to several destinations is placed once in the
        // IR and copied to the others after the instruction, under its guard.
        let copies = match &item {
            Item::Tex(t) => source_codec
                .result_copies(t)
                .into_iter()
                .map(|(dst, placed)| {
                    Item::Alu(Box::new(crate::ir::AluInstr {
                        op: crate::ir::AluOp::Mov,
                        dst,
                        srcs: vec![placed],
                        pred: t.pred,
                        exec: None,
                        span: t.span,
                        origin: crate::ir::Origin::SYNTHETIC,
                    }))
                })
                .collect(),
            _ => Vec::new(),
        };
        // Past this point what the source's codec kept of a texture instruction (its tokens,
        // listing layout ...) is read by nothing: the passes ignore an Origin and a backend
        // reads only its own ISA's. Dropped here rather than carried to the end.
        if let (Item::Tex(t), true) = (&mut item, from != to) {
            t.origin = crate::ir::Origin::SYNTHETIC;
        }
        items.push(item);
        items.extend(copies);
    }
    let groups = |t: &crate::ir::TexInstr| target_codec.register_groups(t);
    let target = Target {
        isa: to,
        caps: target_codec.caps(),
        groups: &groups,
    };
    let mut ctx = PassContext::new(from, target, bindings, regmap);
    ctx.simd = options.simd;
    ctx.grad = options.grad;
    ctx.text_input = text_input;
    ctx.constants = constants;
    ctx.source_aliases = source_aliases;
    let items = passes::run(items, &mut ctx)?;
    let mut ir = Program::new(to);
    ir.items = items;
    ir.resources = std::mem::take(&mut ctx.resources);
    ir.samplers = std::mem::take(&mut ctx.samplers);
    ir.variables = std::mem::take(&mut ctx.variables);
    let stage = options.stage.or(Some(if needs_derivatives(&ir) {
        Stage::Pixel
    } else {
        Stage::Compute
    }));
    Ok(Lowering {
        source: keep_source.then_some(source),
        ir,
        stage,
        notes: ctx.notes,
        non_texture_items: non_texture,
        bindings: ctx.bindings,
        regmap: ctx.regmap,
    })
}

/// Checks a translation with the semantic models (`crate::check`): the source `input` and
/// the translation's text, run from one random register file (`seed`) through the
/// translation's register map and bindings, must ask the sampler the same and leave the same
/// values in the source's registers.
///
/// The source's non-texture instructions other than the ALU instructions its codec reads back
/// are not translated (they become comments), so the check runs the source without them too:
/// its texture and ALU instructions and declarations.
pub fn check(
    input: &[u8],
    translation: &Translation,
    options: &Options,
    seed: u64,
) -> Result<crate::check::CheckReport, crate::check::Error> {
    let read = |isa: Isa, e: Error| crate::check::Error::read(isa, e);
    let text = codec(options.to)
        .print_text(&translation.program)
        .map_err(|e| read(options.to, e))?;
    let (source, preset) = texture_part(input, options).map_err(|e| read(options.from, e))?;
    // An identity translation re-encodes as read: every register is itself.
    let identity = options.from == options.to;
    let map = |r: crate::ir::Reg| {
        if identity {
            Some(r)
        } else {
            translation.regmap.get(&r)
        }
    };
    crate::check::compare_preset(
        options.from,
        source.as_bytes(),
        options.to,
        text.as_bytes(),
        &translation.bindings,
        &map,
        seed,
        &preset,
    )
}

/// Per texture instruction, the registers the stream sets to a constant before it
/// (`Codec::constants`).
type Constants = Vec<Vec<(crate::ir::Reg, u32)>>;

/// The source as text, with only its texture and ALU instructions and declarations; and, per
/// texture instruction, the constants the instructions left out set registers to before it
/// (`Codec::constants`, what `fold_constants` folds: fxc's `mov r1.zw, l(0,0,0,0)` before an
/// `ld`), which the check's source takes just before that instruction.
fn texture_part(input: &[u8], options: &Options) -> Result<(String, Constants), Error> {
    let c = codec(options.from);
    let program = crate::decode_with(options.from, input, options.read)?;
    let preset = c.constants(&program);
    let text = c.print_text(&program)?;
    let printed = c.parse_text(&text, options.read)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut keep = vec![false; lines.len()];
    let mut mark = |line: u32, count: usize| {
        let first = (line as usize).saturating_sub(1);
        for k in first..(first + count).min(keep.len()) {
            keep[k] = true;
        }
    };
    for item in &printed.items {
        match item {
            Item::Tex(t) => mark(t.span.line, 1),
            // ALU instructions read as `Item::Alu` are translated: the check runs them too.
            Item::Alu(a) => mark(a.span.line, a.source(options.from).map_or(1, |s| s.len())),
            // A declaration may span lines (DX's immediate constant buffer).
            Item::Opaque(o) => {
                if let Some(t) = o.text.as_deref().filter(|t| c.is_declaration(t)) {
                    mark(o.span.line, t.lines().count().max(1));
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    for (k, line) in lines.iter().enumerate() {
        if keep[k] {
            out.push_str(line);
        }
        out.push('\n');
    }
    Ok((out, preset))
}
