//! The lowering passes: IR of the source rewritten, pass by pass, into IR the target can
//! express (docs/translation.md "Target-ready IR"). One file per pass, each with a doc comment
//! stating its rule and where the rule comes from. A pass sees the IR, the target's
//! capabilities ([`TargetCaps`], `mappings/targets.toml`), the rule table
//! (`mappings/rules.toml`) and this context — never a codec.
//!
//! Generic rules come first and are correct on their own (moves into fresh temporaries);
//! native forms are the higher-priority rules gated on the caps (the cranelift ISLE
//! principle). Every rule that fires is recorded as a [`Note`] for the Report.

pub mod align_regs;
pub mod approx_grad_lod;
pub mod assign_temps;
pub mod bind_resources;
pub mod canonical_coords;
pub mod coalesce_moves;
pub mod drop_hints;
pub mod drop_mcs;
pub mod emulate_grad_quad;
pub mod emulate_mcs_fetch;
pub mod emulate_ptp_gathers;
pub mod fold_constants;
pub mod legalize_forms;
pub mod lower_arrays;
pub mod lower_lod;
pub mod lower_offsets;
pub mod lower_predicates;
pub mod lower_queries;
pub mod lower_simd;
pub mod map_regs;
pub mod offsets_from_register;
pub mod offsets_to_register;
pub mod repack_offsets;

use indexmap::IndexMap;

use crate::error::{Error, Location, Unsupported};
use crate::hash::FastMap;
use crate::ir::layout::{GroupLayout, RegGroup};
use crate::ir::{
    AluInstr, AluOp, Exec, Isa, Item, Reg, RegFile, Resource, SamplerDecl, Scalar, ScalarType,
    Span, TexInstr, Variable,
};
use crate::mappings::rules;
use crate::mappings::targets::TargetCaps;
use crate::translate::{Bindings, GradPolicy, RegisterMap};

/// A rule that fired on one instruction, for the Report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The source instruction.
    pub span: Span,
    /// The pass.
    pub pass: &'static str,
    /// What it did.
    pub detail: NoteDetail,
    /// Whether the Report lists it as a warning: the translation is not exact here (something
    /// the source asked for is dropped or approximated), though it is accepted.
    pub warning: bool,
}

/// What a rule did, as the Report says it: text, or the facts the two rules that fire on
/// every instruction record (`legalize_forms`' decision, `bind_resources`' slots), put into
/// words only when a Report or a warning is made (most translations never ask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteDetail {
    /// Said as it reads.
    Text(String),
    /// Rule `id` of `mappings/rules.toml` decided `decision` (never a refusal).
    Rule {
        /// The rule.
        id: &'static str,
        /// What it decided.
        decision: rules::Decision<'static>,
    },
    /// A source resource slot bound to a target slot by row `row` (0-based) of the bindings.
    Binding {
        /// The source ISA and slot.
        from: (Isa, crate::translate::Slot),
        /// The target ISA and slot.
        to: (Isa, crate::translate::Slot),
        /// The resource's dimension.
        dim: crate::ir::Dimension,
        /// The bindings row.
        row: usize,
    },
}

impl std::fmt::Display for NoteDetail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoteDetail::Text(t) => f.write_str(t),
            NoteDetail::Rule { id, decision } => match decision {
                rules::Decision::Native(form) => write!(f, "{id} → {form}"),
                rules::Decision::Emulate { emulation, pass } => {
                    write!(f, "{id} → {emulation} ({pass})")
                }
                rules::Decision::Approximate(form) => write!(f, "{id} → approximated: {form}"),
                rules::Decision::Refuse(why) => write!(f, "{id} → refused: {why}"),
            },
            NoteDetail::Binding { from, to, dim, row } => write!(
                f,
                "{} → {} ({}, binding row {})",
                bind_resources::spelled(from.0, from.1),
                bind_resources::spelled(to.0, to.1),
                crate::translate::bindings::dim_name(*dim),
                row + 1
            ),
        }
    }
}

impl From<String> for NoteDetail {
    fn from(t: String) -> Self {
        NoteDetail::Text(t)
    }
}

impl From<&str> for NoteDetail {
    fn from(t: &str) -> Self {
        NoteDetail::Text(t.to_string())
    }
}

/// What the target can express, as the passes see it: its caps and its register vectors.
pub struct Target<'a> {
    /// The target ISA.
    pub isa: Isa,
    /// What the target can express (`mappings/targets.toml`).
    pub caps: &'static TargetCaps,
    /// The register vectors an instruction reads and writes (`Codec::register_groups`).
    pub groups: &'a dyn Fn(&TexInstr) -> Result<Vec<RegGroup>, Error>,
}

/// Everything a pass may read and update besides the items.
pub struct PassContext<'a> {
    /// The source ISA.
    pub from: Isa,
    /// What the source ISA can express (its row of `mappings/targets.toml`).
    pub source_caps: &'static TargetCaps,
    /// The target.
    pub target: Target<'a>,
    /// The bindings in force; `bind_resources` adds default rows for resources the user's
    /// file does not name.
    pub bindings: Bindings,
    /// Source register → target register; `map_regs` fills in the defaults.
    pub regmap: RegisterMap,
    /// Source registers the source stream sets to a constant before each texture
    /// instruction (`fold_constants`): texture-instruction number → (register, bits).
    pub constants: Vec<Vec<(Reg, u32)>>,
    /// SIMD width for SIMD targets (`--simd`).
    pub simd: u8,
    /// The gradient approximation policy (`--grad`).
    pub grad: GradPolicy,
    /// Whether the input was text (errors then speak in lines and columns).
    pub text_input: bool,
    /// The rules that fired, per instruction, for the Report.
    pub notes: Vec<Note>,
    /// The target's resource and sampler declarations (`bind_resources`).
    pub resources: IndexMap<u32, Resource>,
    /// The target's sampler declarations (`bind_resources`).
    pub samplers: IndexMap<u32, SamplerDecl>,
    /// Variables the target program declares (vISA), by name.
    pub variables: IndexMap<String, Variable>,
    /// Source variables that alias another's storage: variable → (root, byte offset)
    /// (`Codec::aliases`); `map_regs` maps every register through its root.
    pub source_aliases: FastMap<u32, (u32, u32)>,
    /// The layout each virtual vector must get (`align_regs`); scalars have none.
    pub virtual_layouts: FastMap<u32, GroupLayout>,
    /// The element type of virtual registers, for targets whose registers are typed (vISA).
    pub virtual_types: FastMap<(u32, u32), ScalarType>,
    next_virtual: u32,
}

impl<'a> PassContext<'a> {
    /// A context for translating from `from` to `target` with these bindings and register map.
    pub fn new(from: Isa, target: Target<'a>, bindings: Bindings, regmap: RegisterMap) -> Self {
        PassContext {
            from,
            source_caps: crate::mappings::targets::caps(from),
            target,
            bindings,
            regmap,
            constants: Vec::new(),
            simd: 16,
            grad: GradPolicy::Exact,
            text_input: false,
            notes: Vec::new(),
            resources: IndexMap::new(),
            samplers: IndexMap::new(),
            variables: IndexMap::new(),
            source_aliases: FastMap::default(),
            virtual_layouts: FastMap::default(),
            virtual_types: FastMap::default(),
            next_virtual: 0,
        }
    }

    /// Records that `pass` did `detail` to the instruction read at `span`.
    pub fn note(&mut self, span: Span, pass: &'static str, detail: impl Into<NoteDetail>) {
        self.notes.push(Note {
            span,
            pass,
            detail: detail.into(),
            warning: false,
        });
    }

    /// Records that `pass` did `detail` to the instruction read at `span`, losing or
    /// approximating something the source asked for: the Report lists it as a warning.
    pub fn warn(&mut self, span: Span, pass: &'static str, detail: impl Into<NoteDetail>) {
        self.notes.push(Note {
            span,
            pass,
            detail: detail.into(),
            warning: true,
        });
    }

    /// Where an instruction read at `span` is, as errors say it.
    pub fn location(&self, span: Span) -> Location {
        Location::from_span(span, self.text_input)
    }

    /// What the target does with rule `id` of `mappings/rules.toml` under the gradient
    /// policy in force, or the refusal for the instruction at `span`.
    pub fn check_rule(&self, id: &str, span: Span) -> Result<rules::Decision<'static>, Error> {
        match rules::decide(id, self.target.isa, self.grad) {
            rules::Decision::Refuse(why) => {
                Err(self.unsupported(&rules::rule(id).form, &why, span))
            }
            decision => Ok(decision),
        }
    }

    /// An `unsupported` error about the whole translation (no one instruction).
    pub fn unsupported_program(&self, what: &str, why: &str) -> Error {
        Error::Unsupported(Unsupported::new(what, self.from, self.target.isa, why))
    }

    /// An `unsupported` error about the instruction at `span`.
    pub fn unsupported(&self, what: &str, why: &str, span: Span) -> Error {
        Error::Unsupported(
            Unsupported::new(what, self.from, self.target.isa, why).at(self.location(span)),
        )
    }

    /// A fresh virtual register vector; `assign_temps` gives it target registers.
    pub fn new_virtual(&mut self) -> u32 {
        self.next_virtual += 1;
        self.next_virtual - 1
    }

    /// A fresh virtual scalar of type `ty`.
    pub fn new_virtual_scalar(&mut self, ty: ScalarType) -> Scalar {
        let v = self.new_virtual();
        self.virtual_types.insert((v, 0), ty);
        virtual_reg(v, 0)
    }

    /// The exec of ALU instructions the passes emit (the target's SIMD width, if any).
    pub fn exec(&self) -> Option<Exec> {
        self.target.caps.simd.then_some(Exec {
            size: self.simd,
            mask: 0,
        })
    }

    /// An ALU instruction for the instruction at `span`.
    pub fn alu(&self, op: AluOp, dst: Scalar, srcs: Vec<Scalar>, span: Span) -> Item {
        Item::Alu(Box::new(AluInstr {
            op,
            dst,
            srcs,
            pred: None,
            exec: self.exec(),
            span,
            origin: crate::ir::Origin::SYNTHETIC,
        }))
    }

    /// An ALU instruction that moves or converts the results of `t` after it: it runs under
    /// `t`'s guard, so that where the guard does not hold the destination keeps its value as
    /// it does when the source's instruction does not run.
    pub fn alu_after(&self, t: &TexInstr, op: AluOp, dst: Scalar, srcs: Vec<Scalar>) -> Item {
        let mut item = self.alu(op, dst, srcs, t.span);
        if let Item::Alu(a) = &mut item {
            a.pred = t.pred;
        }
        item
    }
}

/// Element `sub` of virtual vector `index`.
pub fn virtual_reg(index: u32, sub: u32) -> Scalar {
    Scalar::Reg(Reg {
        file: RegFile::Virtual,
        index,
        sub,
    })
}

/// The passes, in the order [`run`] runs them.
pub const PASSES: [&str; 23] = [
    "bind_resources",
    "canonical_coords",
    "fold_constants",
    "lower_lod",
    "legalize_forms",
    "drop_mcs",
    "drop_hints",
    "lower_predicates",
    "map_regs",
    "lower_offsets",
    "offsets_to_register",
    "offsets_from_register",
    "repack_offsets",
    "emulate_ptp_gathers",
    "lower_arrays",
    "emulate_grad_quad",
    "approx_grad_lod",
    "emulate_mcs_fetch",
    "lower_queries",
    "lower_simd",
    "align_regs",
    "coalesce_moves",
    "assign_temps",
];

/// Runs every pass, in order, on the items of a source program. The result is target-ready
/// IR (docs/translation.md).
pub fn run(mut items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    for name in PASSES {
        items = match run_pass(name, std::mem::take(&mut items), ctx) {
            Some(result) => result?,
            None => unreachable!("PASSES names `{name}`, which run_pass does not know"),
        };
    }
    Ok(items)
}

/// Runs the one pass named `name` (see [`PASSES`]) on `items`, as [`run`] would at its turn:
/// for tests of one pass's rule (`tests/passes/*.irtest`). `None` when no pass has the name.
pub fn run_pass(
    name: &str,
    mut items: Vec<Item>,
    ctx: &mut PassContext,
) -> Option<Result<Vec<Item>, Error>> {
    let in_place = |r: Result<(), Error>, items: Vec<Item>| r.map(|()| items);
    Some(match name {
        "bind_resources" => bind_resources::run(items, ctx),
        "canonical_coords" => in_place(canonical_coords::run(&mut items, ctx), items),
        "fold_constants" => in_place(fold_constants::run(&mut items, ctx), items),
        "lower_lod" => in_place(lower_lod::run(&mut items, ctx), items),
        "legalize_forms" => in_place(legalize_forms::run(&items, ctx), items),
        "drop_mcs" => drop_mcs::run(items, ctx),
        "drop_hints" => in_place(drop_hints::run(&mut items, ctx), items),
        "lower_predicates" => in_place(lower_predicates::run(&mut items, ctx), items),
        "map_regs" => in_place(map_regs::run(&mut items, ctx), items),
        "lower_offsets" => lower_offsets::run(items, ctx),
        "offsets_to_register" => offsets_to_register::run(items, ctx),
        "offsets_from_register" => offsets_from_register::run(items, ctx),
        "repack_offsets" => repack_offsets::run(items, ctx),
        "emulate_ptp_gathers" => emulate_ptp_gathers::run(items, ctx),
        "lower_arrays" => lower_arrays::run(items, ctx),
        "emulate_grad_quad" => emulate_grad_quad::run(items, ctx),
        "approx_grad_lod" => approx_grad_lod::run(items, ctx),
        "emulate_mcs_fetch" => emulate_mcs_fetch::run(items, ctx),
        "lower_queries" => lower_queries::run(items, ctx),
        "lower_simd" => lower_simd::run(items, ctx),
        "align_regs" => align_regs::run(items, ctx),
        "coalesce_moves" => coalesce_moves::run(items, ctx),
        "assign_temps" => assign_temps::run(items, ctx),
        _ => return None,
    })
}

/// Makes [`PassContext::new_virtual`] hand out numbers past every virtual register `items`
/// already name (IR written by hand or by earlier passes run separately).
pub fn reserve_virtuals(items: &[Item], ctx: &mut PassContext) {
    let mut probe = items.to_vec();
    for item in &mut probe {
        let mut see = |s: &mut Scalar| {
            if let Scalar::Reg(r) = s {
                if r.file == RegFile::Virtual {
                    ctx.next_virtual = ctx.next_virtual.max(r.index.saturating_add(1));
                }
            }
        };
        match item {
            Item::Tex(t) => {
                t.for_each_source_mut(&mut see);
                t.for_each_dst_mut(&mut see);
            }
            Item::Alu(a) => {
                see(&mut a.dst);
                a.srcs.iter_mut().for_each(see);
            }
            Item::Comment(_) | Item::Opaque(_) => {}
        }
    }
}

/// Gives each virtual vector of `vectors` the layout of the register group of `tex` whose
/// operands are exactly its elements 0, 1, ... in order (a consecutive group), so that
/// `align_regs` places the vector where the instruction reads or writes it instead of moving
/// it (the emulations build their vectors for one instruction).
pub(crate) fn claim_layouts(
    ctx: &mut PassContext,
    tex: &TexInstr,
    vectors: &[u32],
) -> Result<(), Error> {
    for g in (ctx.target.groups)(tex)? {
        for v in vectors {
            let mut probe = tex.clone();
            let all_v = g.operands.iter().enumerate().all(|(j, op)| {
                align_regs::operand_mut(&mut probe, *op)
                    .is_some_and(|s| *s == virtual_reg(*v, j as u32))
            });
            if all_v && matches!(g.layout, GroupLayout::Consecutive { .. }) {
                ctx.virtual_layouts.insert(*v, g.layout);
            }
        }
    }
    Ok(())
}

/// Calls `f` on every texture instruction, with its item index.
pub fn for_each_tex(
    items: &mut [Item],
    mut f: impl FnMut(usize, &mut TexInstr) -> Result<(), Error>,
) -> Result<(), Error> {
    for (i, item) in items.iter_mut().enumerate() {
        if let Item::Tex(t) = item {
            f(i, t)?;
        }
    }
    Ok(())
}

/// What replaces one texture instruction in [`expand_tex`]: the instruction itself (most
/// instructions, most passes: no list to allocate), or items around it.
pub enum Expansion {
    /// The instruction, unchanged in place.
    Keep(Box<TexInstr>),
    /// What replaces it.
    Items(Vec<Item>),
}

impl From<Box<TexInstr>> for Expansion {
    fn from(t: Box<TexInstr>) -> Self {
        Expansion::Keep(t)
    }
}

impl From<Vec<Item>> for Expansion {
    fn from(items: Vec<Item>) -> Self {
        Expansion::Items(items)
    }
}

/// Rebuilds the item list: `f` returns what replaces each texture instruction (the
/// instruction itself, with ALU items around it); other items stay.
pub fn expand_tex(
    items: Vec<Item>,
    mut f: impl FnMut(Box<TexInstr>) -> Result<Expansion, Error>,
) -> Result<Vec<Item>, Error> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Tex(t) => match f(t)? {
                Expansion::Keep(t) => out.push(Item::Tex(t)),
                Expansion::Items(items) => out.extend(items),
            },
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Whether `mappings/rules.toml` sends `t` to emulation pass `pass` for the target and
/// gradient policy in force (one of `t`'s rule ids decides `Emulate { pass, .. }`).
pub fn routed_to(t: &TexInstr, ctx: &PassContext, pass: &str) -> bool {
    legalize_forms::rule_ids(t, ctx.source_caps)
        .into_iter()
        .any(|id| {
            matches!(
                rules::decide(id, ctx.target.isa, ctx.grad),
                rules::Decision::Emulate { pass: p, .. } if p == pass
            )
        })
}
