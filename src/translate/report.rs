//! The Report: what a translation did, for people (`Display`, `texlate explain`) and tools
//! (`--json`, schema in README): bindings and register map used, every emitted instruction
//! with its source instruction and the rules applied, moves and temporaries, warnings.

use std::fmt;

use serde::Serialize;

use super::bindings::dim_name;
use super::regmap::spell;
use super::{Bindings, RegisterMap};
use crate::ir::{Isa, Item, Program, Span};
use crate::isa::Stage;
use crate::passes::Note;

/// The Report of one translation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The source ISA's name.
    pub from: &'static str,
    /// The target ISA's name.
    pub to: &'static str,
    /// The DX shader stage chosen (`pixel`, `compute`, `vertex`), for a DX target.
    pub stage: Option<&'static str>,
    /// Every resource binding in force.
    pub bindings: Vec<BindingReport>,
    /// Every source register and the target register that holds it.
    pub register_map: Vec<RegisterReport>,
    /// Every source texture instruction, in order.
    pub instructions: Vec<InstructionReport>,
    /// Source items that are not texture instructions: kept as comments in text output,
    /// left out of binary output.
    pub non_texture_items: usize,
    /// What the translation could not keep exactly (dropped hints, approximations).
    pub warnings: Vec<String>,
}

/// One bindings row in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BindingReport {
    /// The resource's dimension (`2d`, `cube_array`, ...).
    pub dim: &'static str,
    /// The resource's return type (`float`, `uint`, ...).
    #[serde(rename = "return")]
    pub return_type: &'static str,
    /// Its vISA texture and sampler (`T6, S0`), when known.
    pub visa: Option<String>,
    /// Its DX texture and sampler (`t0, s0`), when known.
    pub dxbc: Option<String>,
    /// Its NVIDIA texture index (`0x0`), when known.
    pub nvidia: Option<String>,
    /// Line of the bindings file, or `null` for a default row.
    pub line: Option<u32>,
}

/// One register-map entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterReport {
    /// The source register (`r1.x`, `V0057.0`, `R4`).
    pub source: String,
    /// The target register that holds it.
    pub target: String,
}

/// Where a source instruction was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SourceLocation {
    /// A text input's line and column (from 1).
    Text {
        /// Line, from 1.
        line: u32,
        /// Column, from 1.
        column: u32,
    },
    /// A binary input's byte offset.
    Binary {
        /// Offset from the start of the input.
        offset: usize,
    },
}

/// One source texture instruction and what it became.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InstructionReport {
    /// Where the instruction was read.
    pub source: SourceLocation,
    /// The source instruction in canonical IR text.
    pub ir: String,
    /// The target instructions emitted for it, in canonical IR text, in order.
    pub emitted: Vec<String>,
    /// The rules that fired: `pass: what it did`.
    pub rules: Vec<String>,
    /// ALU instructions emitted around the texture instruction.
    pub moves: usize,
}

fn location(span: Span) -> SourceLocation {
    if span.line > 0 {
        SourceLocation::Text {
            line: span.line,
            column: span.column,
        }
    } else {
        SourceLocation::Binary {
            offset: span.offset,
        }
    }
}

/// The key [`location`] compares by: line and column for text, the byte offset for binaries.
fn location_key(span: Span) -> (u32, u32, usize) {
    if span.line > 0 {
        (span.line, span.column, 0)
    } else {
        (0, 0, span.offset)
    }
}

/// `item`'s canonical IR text, in a buffer sized for a typical instruction's line: a Report
/// holds one per source and per emitted instruction, and growing each from empty cost more
/// than writing it.
fn ir_text(item: &impl fmt::Display) -> String {
    use fmt::Write as _;
    let mut s = String::with_capacity(128);
    let _ = write!(s, "{item}");
    s
}

fn bindings_report(b: &Bindings) -> Vec<BindingReport> {
    b.rows
        .iter()
        .map(|r| BindingReport {
            dim: dim_name(r.dim),
            return_type: r.return_type.name(),
            dxbc: r.dxbc.map(|s| {
                format!("t{}", s.texture)
                    + &s.sampler.map(|m| format!(", s{m}")).unwrap_or_default()
            }),
            visa: r.visa.map(|s| {
                format!("T{}", s.texture)
                    + &s.sampler.map(|m| format!(", S{m}")).unwrap_or_default()
            }),
            nvidia: r.nvidia.map(|s| format!("{:#x}", s.texture)),
            line: (r.line > 0).then_some(r.line),
        })
        .collect()
}

fn stage_name(stage: Option<Stage>) -> Option<&'static str> {
    stage.map(|s| match s {
        Stage::Pixel => "pixel",
        Stage::Compute => "compute",
        Stage::Vertex => "vertex",
    })
}

/// The Report's warnings among the rules that fired: each with the location of its source
/// instruction.
pub fn warnings(notes: &[Note]) -> Vec<String> {
    notes
        .iter()
        .filter(|n| n.warning)
        .map(|n| format!("{}: {}", describe(n.span), n.detail))
        .collect()
}

impl Report {
    /// The Report of a translation: `source` as decoded, `ir` the target-ready IR, `notes`
    /// the rules that fired, with the bindings and register map in force.
    pub fn new(
        source: &Program,
        ir: &Program,
        notes: &[Note],
        (bindings, regmap): (&Bindings, &RegisterMap),
        non_texture_items: usize,
        stage: Option<Stage>,
    ) -> Report {
        let (from, to) = (source.isa, ir.isa);
        // Notes and emitted items find their instruction by source location. One table
        // sorted by location (the first source instruction at each) answers every look-up by
        // binary search: the Report stays linear-logarithmic in the program without hashing,
        // and the sort is linear on a source, which comes in location order.
        let mut instructions: Vec<InstructionReport> = Vec::new();
        let mut index: Vec<((u32, u32, usize), usize)> = Vec::new();
        for t in source.tex_instrs() {
            index.push((location_key(t.span), instructions.len()));
            instructions.push(InstructionReport {
                source: location(t.span),
                ir: ir_text(t),
                emitted: Vec::new(),
                rules: Vec::new(),
                moves: 0,
            });
        }
        // Stable, so that of several instructions at one location the first is kept.
        index.sort_by_key(|&(key, _)| key);
        index.dedup_by_key(|&mut (key, _)| key);
        let find = |span: Span| {
            index
                .binary_search_by_key(&location_key(span), |&(key, _)| key)
                .ok()
                .map(|k| index[k].1)
        };
        for n in notes {
            if let Some(i) = find(n.span) {
                instructions[i]
                    .rules
                    .push(format!("{}: {}", n.pass, n.detail));
            }
        }
        // Every instruction at a location carries the rules that fired there.
        for (i, t) in source.tex_instrs().enumerate() {
            if let Some(first) = find(t.span).filter(|&first| first != i) {
                instructions[i].rules = instructions[first].rules.clone();
            }
        }
        for item in &ir.items {
            let (span, text, alu) = match item {
                Item::Tex(t) => (t.span, ir_text(t), false),
                Item::Alu(a) => (a.span, ir_text(a), true),
                _ => continue,
            };
            if let Some(i) = find(span) {
                let r = &mut instructions[i];
                r.emitted.push(text);
                r.moves += usize::from(alu);
            }
        }
        Report {
            from: from.name(),
            to: to.name(),
            stage: if to == Isa::Dxbc {
                stage_name(stage)
            } else {
                None
            },
            bindings: bindings_report(bindings),
            register_map: register_report(regmap, from, to),
            instructions,
            non_texture_items,
            warnings: warnings(notes),
        }
    }

    /// The Report of an identity translation (A to A): nothing changed; `warnings` are the
    /// target encoder's.
    pub fn identity(
        source: &Program,
        (bindings, regmap): (&Bindings, &RegisterMap),
        warnings: Vec<String>,
    ) -> Report {
        let isa = source.isa;
        Report {
            from: isa.name(),
            to: isa.name(),
            stage: None,
            bindings: bindings_report(bindings),
            register_map: register_report(regmap, isa, isa),
            instructions: source
                .tex_instrs()
                .map(|t| InstructionReport {
                    source: location(t.span),
                    ir: t.to_string(),
                    emitted: vec![t.to_string()],
                    rules: vec!["identity: re-encoded as read".to_string()],
                    moves: 0,
                })
                .collect(),
            non_texture_items: source.items.len() - source.tex_instrs().count(),
            warnings,
        }
    }

    /// The Report as JSON (README documents the schema).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

fn register_report(map: &RegisterMap, from: Isa, to: Isa) -> Vec<RegisterReport> {
    map.entries
        .iter()
        .map(|(s, t)| RegisterReport {
            source: spell(from, *s),
            target: spell(to, *t),
        })
        .collect()
}

fn describe(span: Span) -> String {
    match location(span) {
        SourceLocation::Text { line, column } => format!("line {line}, column {column}"),
        SourceLocation::Binary { offset } => format!("byte offset {offset:#x}"),
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "texlate: {} → {}", self.from, self.to)?;
        if let Some(stage) = self.stage {
            writeln!(f, "stage: {stage}")?;
        }
        writeln!(f, "bindings:")?;
        for b in &self.bindings {
            let names: Vec<String> = [("dxbc", &b.dxbc), ("visa", &b.visa), ("nvidia", &b.nvidia)]
                .into_iter()
                .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
                .collect();
            let origin = b
                .line
                .map_or("default".to_string(), |l| format!("line {l}"));
            writeln!(
                f,
                "  {} {}: {} ({origin})",
                b.dim,
                b.return_type,
                names.join(" | ")
            )?;
        }
        writeln!(f, "register map:")?;
        for r in &self.register_map {
            writeln!(f, "  {} → {}", r.source, r.target)?;
        }
        for (i, ins) in self.instructions.iter().enumerate() {
            let at = match ins.source {
                SourceLocation::Text { line, column } => format!("line {line}:{column}"),
                SourceLocation::Binary { offset } => format!("@{offset:#x}"),
            };
            writeln!(f, "[{}] {at}: {}", i + 1, ins.ir)?;
            for r in &ins.rules {
                writeln!(f, "    rule   {r}")?;
            }
            for e in &ins.emitted {
                writeln!(f, "    emit   {e}")?;
            }
        }
        writeln!(
            f,
            "non-texture items kept as comments: {}",
            self.non_texture_items
        )?;
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}
