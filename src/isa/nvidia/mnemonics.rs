//! The SASS mnemonics and modifiers nvdisasm prints (`mappings/nvidia_mnemonics.toml`, built by
//! sweeping the opcode bits through nvdisasm: `scripts/sweep-nvidia-mnemonics.py`). A listing
//! line that is an instruction but not a texture instruction must use them.

use crate::hash::FastMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::listing::lead_end;
use crate::error::ParseError;

#[derive(Debug, Deserialize)]
struct Table {
    #[allow(dead_code)]
    sm: String,
    mnemonic: Vec<Mnemonic>,
}

#[derive(Debug, Deserialize)]
struct Mnemonic {
    name: String,
    modifiers: Vec<String>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        crate::mappings::parse_table(
            "nvidia_mnemonics.toml",
            include_str!("../../../mappings/nvidia_mnemonics.toml"),
        )
    })
}

/// The mnemonics by name.
fn by_name() -> &'static FastMap<&'static str, &'static Mnemonic> {
    static MAP: OnceLock<FastMap<&'static str, &'static Mnemonic>> = OnceLock::new();
    MAP.get_or_init(|| {
        table()
            .mnemonic
            .iter()
            .map(|m| (m.name.as_str(), m))
            .collect()
    })
}

/// Texture mnemonics: the scheduling phase `.P`/`.T` (from the bundle's control word) may
/// follow their modifiers.
const PHASED: [&str; 10] = [
    "TEX", "TEXS", "TLD", "TLDS", "TLD4", "TLD4S", "TXD", "TXQ", "TMML", "TXA",
];

/// Whether nvdisasm prints the mnemonic `name`.
pub fn is_mnemonic(name: &str) -> bool {
    by_name().contains_key(name)
}

/// Checks an instruction's first token (`ISETP.NE.U32.AND`, `TXA.P`): a known mnemonic with
/// modifiers nvdisasm prints for it. `Err((byte offset in token, part, expected))`.
fn check_token(token: &str) -> Result<(), (usize, String, String)> {
    let mut parts = token.split('.');
    let base = parts.next().unwrap_or("");
    let Some(m) = by_name().get(base) else {
        let expected = crate::isa::hint::expected_with_hint(
            "an SM50 instruction mnemonic (as nvdisasm prints it)",
            base,
            table().mnemonic.iter().map(|m| m.name.as_str()),
        );
        return Err((0, base.to_string(), expected));
    };
    let mut at = base.len() + 1;
    let mut parts = parts.peekable();
    while let Some(p) = parts.next() {
        let last = parts.peek().is_none();
        let phase = last && matches!(p, "P" | "T") && PHASED.contains(&base);
        if !phase && !m.modifiers.iter().any(|k| k == p) {
            let what = if m.modifiers.is_empty() {
                format!("no modifier after {base}")
            } else {
                crate::isa::hint::expected_with_hint(
                    &format!("a modifier of {base}: .{}", m.modifiers.join(" .")),
                    p,
                    m.modifiers.iter().map(String::as_str),
                )
            };
            return Err((at, p.to_string(), what));
        }
        at += p.len() + 1;
    }
    Ok(())
}

/// Whether `w` is spelled like a SASS mnemonic: upper-case letters, digits and `_`, with
/// `.`-separated modifiers.
fn looks_like_mnemonic(w: &str) -> bool {
    let base = w.split('.').next().unwrap_or("");
    base.starts_with(|c: char| c.is_ascii_uppercase())
        && w.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '.')
}

/// Checks a listing line that is not a texture instruction. Headers, directives (`.section`,
/// `.short`), labels, comments, encoding comments and braces pass. An instruction, i.e. the
/// text after an address `/*0018*/`, or an address-less line starting with a guard `@P0` or
/// an upper-case mnemonic, must use a mnemonic and modifiers nvdisasm prints; otherwise a
/// parse error at the unknown part (with the closest known spelling as a hint).
pub fn check_other_line(line: &str, line_no: u32) -> Result<(), ParseError> {
    let lead = lead_end(line);
    let addressed = super::listing::line_address(line).is_some();
    let body = &line[lead..];
    let trimmed = body.trim();
    if trimmed.is_empty()
        || trimmed.starts_with("//")
        || trimmed.starts_with("/*")
        || trimmed.starts_with('.')
        || trimmed == "}"
        || trimmed.ends_with(':') && !trimmed.contains(char::is_whitespace)
    {
        return Ok(());
    }
    let mut at = lead + (body.len() - body.trim_start().len());
    let mut rest = &line[at..];
    let guarded = rest.starts_with('@');
    if guarded {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let after = &rest[end..];
        at += end + (after.len() - after.trim_start().len());
        rest = &line[at..];
    }
    let end = rest
        .find(|c: char| c.is_whitespace() || c == ';' || c == '}')
        .unwrap_or(rest.len());
    let word = &rest[..end];
    if !addressed && !guarded && !looks_like_mnemonic(word) {
        // Header lines (`code for sm_50`, `Function : k`, `arch = sm_50`) have no register
        // operands; a lower-case word followed by registers is a misspelled instruction.
        let registers = rest[end..]
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|t| {
                t == "RZ"
                    || t.strip_prefix('R')
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            });
        if !registers {
            return Ok(());
        }
    }
    let column = |byte: usize| u32::try_from(byte + 1).unwrap_or(u32::MAX);
    check_token(word).map_err(|(off, part, expected)| ParseError {
        line: line_no,
        column: column(at + off),
        token: part,
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert!(check_token("ISETP.NE.U32.AND").is_ok());
        assert!(check_token("TXA.P").is_ok());
        assert!(check_token("MOV.P").is_err());
        assert!(check_token("TLDD").is_err());
        let e = check_token("SHFL.IDXX").unwrap_err();
        assert_eq!((e.0, e.1.as_str()), (5, "IDXX"));
    }
}
