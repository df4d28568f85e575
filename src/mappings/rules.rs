//! `mappings/rules.toml`: the op × target rule table. Each row names a source form and, per
//! target, its native form or the reason the target cannot express it. The passes refuse
//! with these reasons ([`refusal`]); README's compatibility matrix is [`matrix_markdown`].

use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::Isa;

/// What one target does with a form.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    /// The target's native form, as its ISA spells it.
    Native(String),
    /// The target cannot express the form.
    Error {
        /// Why, as the refusal says it.
        error: String,
    },
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

/// Why `target` cannot express form `id`, or `None` when it has a native form.
pub fn refusal(id: &str, target: Isa) -> Option<&'static str> {
    match rule(id).outcome(target) {
        Outcome::Native(_) => None,
        Outcome::Error { error } => Some(error),
    }
}

/// The compatibility matrix (README): one row per form, one column per target.
pub fn matrix_markdown() -> String {
    let mut s =
        String::from("| source form | to vISA | to DXBC | to NVIDIA |\n|---|---|---|---|\n");
    let cell = |o: &Outcome| match o {
        Outcome::Native(n) => format!("`{n}`"),
        Outcome::Error { error } => format!("refused: {error}"),
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
