//! `mappings/rules.toml`: the op × target rule table. Each row names a source form and, per
//! target, its native form, the emulation pass that builds it from other instructions, or
//! the reason the target cannot express it (with, for gradient rows, the approximation
//! `--grad approx` allows). [`decide`] applies the gradient policy; the passes refuse with
//! the table's reasons; README's compatibility matrix is [`matrix_markdown`].

use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::Isa;
use crate::translate::GradPolicy;

/// What one target does with a form.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    /// The target's native form, as its ISA spells it.
    Native(String),
    /// No native form: pass `pass` (a file of `src/passes/`) builds an exact equivalent
    /// from other instructions, as the target's own compiler does.
    Emulated {
        /// What the emulation emits, as the Report and the matrix say it.
        emulation: String,
        /// The pass that builds it.
        pass: String,
        /// The approximation `--grad approx` takes instead, if the row has one.
        #[serde(default)]
        approx: Option<String>,
    },
    /// The target cannot express the form exactly.
    Error {
        /// Why, as the refusal says it.
        error: String,
        /// The approximation `--grad approx` allows, if any (gradient rows only).
        #[serde(default)]
        approx: Option<String>,
    },
}

/// What a translation does with one form on one target under a gradient policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision<'a> {
    /// The target's native form.
    Native(&'a str),
    /// Pass `pass` builds the exact emulation `emulation`.
    Emulate {
        /// What the emulation emits.
        emulation: &'a str,
        /// The pass that builds it.
        pass: &'a str,
    },
    /// `--grad approx`: the approximation `form`, with a Report warning.
    Approximate(&'a str),
    /// Refused, with the reason.
    Refuse(String),
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The rule's identifier (the Report names it).
    pub id: String,
    /// The IR form the rule is about.
    pub form: String,
    /// What vISA does with it.
    pub visa: Outcome,
    /// What DX does with it.
    pub dxbc: Outcome,
    /// What NVIDIA does with it.
    pub nvidia: Outcome,
    /// Whether `--grad` governs the row's emulations and approximations (gradient samples).
    #[serde(default)]
    pub grad: bool,
}

impl Rule {
    /// What `target` does with this form.
    pub fn outcome(&self, target: Isa) -> &Outcome {
        match target {
            Isa::Visa => &self.visa,
            Isa::Dxbc => &self.dxbc,
            Isa::Nvidia => &self.nvidia,
        }
    }

    /// What `target` does with this form under gradient policy `grad`. Rows not marked
    /// `grad` take their emulations whatever the policy; on gradient rows `--grad exact`
    /// takes the exact emulation, `--grad approx` the approximation wherever there is no
    /// native form (the exact emulation where the row has no approximation), `--grad error`
    /// native forms only.
    pub fn decide(&self, target: Isa, grad: GradPolicy) -> Decision<'_> {
        let policy = if self.grad { grad } else { GradPolicy::Exact };
        match (self.outcome(target), policy) {
            (Outcome::Native(form), _) => Decision::Native(form),
            (
                Outcome::Emulated {
                    approx: Some(a), ..
                }
                | Outcome::Error {
                    approx: Some(a), ..
                },
                GradPolicy::Approx,
            ) => Decision::Approximate(a),
            (
                Outcome::Emulated {
                    emulation, pass, ..
                },
                GradPolicy::Exact | GradPolicy::Approx,
            ) => Decision::Emulate { emulation, pass },
            (Outcome::Emulated {
                emulation, approx, ..
            }, GradPolicy::Error) => Decision::Refuse(format!(
                "{} has no native form and --grad error takes native forms only (--grad exact emits {emulation}{})",
                target.name(),
                approx
                    .as_ref()
                    .map(|a| format!("; --grad approx: {a}"))
                    .unwrap_or_default()
            )),
            (Outcome::Error { error, approx }, _) => Decision::Refuse(match approx {
                Some(a) if policy != GradPolicy::Approx => {
                    format!("{error} (--grad approx allows an approximation: {a})")
                }
                _ => error.clone(),
            }),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    rule: Vec<Rule>,
}

/// Every rule, in table order.
pub fn rules() -> &'static [Rule] {
    static FILE: OnceLock<File> = OnceLock::new();
    &FILE
        .get_or_init(|| super::parse_table("rules.toml", include_str!("../../mappings/rules.toml")))
        .rule
}

/// The rule named `id`. Ids are the table's: a pass naming one that does not exist is a
/// build defect, caught by the mappings test that looks every pass id up.
pub fn rule(id: &str) -> &'static Rule {
    match rules().iter().find(|r| r.id == id) {
        Some(r) => r,
        None => panic!("mappings/rules.toml has no rule `{id}`"),
    }
}

/// What `target` does with form `id` under gradient policy `grad` ([`Rule::decide`]).
pub fn decide(id: &str, target: Isa, grad: GradPolicy) -> Decision<'static> {
    rule(id).decide(target, grad)
}

/// Why `target` cannot express form `id` under the default policy (`--grad exact`), or
/// `None` when it has a native form or an emulation.
pub fn refusal(id: &str, target: Isa) -> Option<String> {
    match decide(id, target, GradPolicy::Exact) {
        Decision::Refuse(why) => Some(why),
        _ => None,
    }
}

/// The compatibility matrix (README): one row per form, one column per target.
pub fn matrix_markdown() -> String {
    let mut s =
        String::from("| source form | to vISA | to DXBC | to NVIDIA |\n|---|---|---|---|\n");
    let cell = |o: &Outcome| {
        let (main, approx) = match o {
            Outcome::Native(n) => (format!("`{n}`"), None),
            Outcome::Emulated {
                emulation, approx, ..
            } => (format!("emulated: {emulation}"), approx.as_ref()),
            Outcome::Error { error, approx } => (format!("refused: {error}"), approx.as_ref()),
        };
        match approx {
            Some(a) => format!("{main}; `--grad approx`: {a}"),
            None => main,
        }
    };
    for r in rules() {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.form,
            cell(&r.visa),
            cell(&r.dxbc),
            cell(&r.nvidia)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(grad: bool, nvidia: Outcome) -> Rule {
        Rule {
            id: "r".into(),
            form: "f".into(),
            visa: Outcome::Native("v".into()),
            dxbc: Outcome::Error {
                error: "no".into(),
                approx: None,
            },
            nvidia,
            grad,
        }
    }

    fn emulated(approx: Option<&str>) -> Outcome {
        Outcome::Emulated {
            emulation: "quad".into(),
            pass: "p".into(),
            approx: approx.map(Into::into),
        }
    }

    #[test]
    fn native_forms_win_under_every_policy() {
        let r = row(true, emulated(Some("lod")));
        for g in [GradPolicy::Exact, GradPolicy::Approx, GradPolicy::Error] {
            assert_eq!(r.decide(Isa::Visa, g), Decision::Native("v"));
        }
    }

    #[test]
    fn gradient_rows_follow_the_policy() {
        let r = row(true, emulated(Some("lod")));
        let exact = Decision::Emulate {
            emulation: "quad",
            pass: "p",
        };
        assert_eq!(r.decide(Isa::Nvidia, GradPolicy::Exact), exact);
        assert_eq!(
            r.decide(Isa::Nvidia, GradPolicy::Approx),
            Decision::Approximate("lod")
        );
        let Decision::Refuse(why) = r.decide(Isa::Nvidia, GradPolicy::Error) else {
            panic!("--grad error refuses an emulation");
        };
        assert!(
            why.contains("--grad exact emits quad; --grad approx: lod)"),
            "{why}"
        );
        // No approximation: approx takes the exact emulation.
        let r = row(true, emulated(None));
        assert_eq!(r.decide(Isa::Nvidia, GradPolicy::Approx), exact);
        // Refused exactly, approximated under approx, and the refusal says so.
        let r = row(
            true,
            Outcome::Error {
                error: "none".into(),
                approx: Some("lod".into()),
            },
        );
        assert_eq!(
            r.decide(Isa::Nvidia, GradPolicy::Approx),
            Decision::Approximate("lod")
        );
        let Decision::Refuse(why) = r.decide(Isa::Nvidia, GradPolicy::Exact) else {
            panic!("exact refuses");
        };
        assert!(why.starts_with("none (--grad approx allows"), "{why}");
    }

    #[test]
    fn other_rows_ignore_the_policy() {
        let r = row(false, emulated(Some("lod")));
        for g in [GradPolicy::Exact, GradPolicy::Approx, GradPolicy::Error] {
            assert!(matches!(r.decide(Isa::Nvidia, g), Decision::Emulate { .. }));
        }
    }

    #[test]
    fn every_emulation_names_a_pass_that_exists() {
        for r in rules() {
            for isa in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
                if let Outcome::Emulated { pass, .. } = r.outcome(isa) {
                    assert!(
                        crate::passes::PASSES.contains(&pass.as_str()),
                        "rule {} names pass {pass}, which passes::PASSES does not run",
                        r.id
                    );
                }
            }
        }
    }
}
