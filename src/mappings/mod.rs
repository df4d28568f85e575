//! The data tables in `mappings/`, the single source of truth for per-ISA opcodes,
//! mnemonics, parameter orders and bit fields. They are embedded at build time and parsed
//! once, on first use; `tests/mappings.rs` checks that every table parses.

use serde::de::DeserializeOwned;

/// Parses an embedded table. The tables are part of texlate, not user input: a malformed
/// one is a build defect, caught by the mappings test, so this panics with the file name.
pub(crate) fn parse_table<T: DeserializeOwned>(file: &str, text: &str) -> T {
    match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => panic!("mappings/{file} is malformed: {e}"),
    }
}

pub mod files;
pub mod rules;
pub mod targets;
