//! `mappings/rules.toml`: the op × target rule table.
