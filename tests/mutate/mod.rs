//! Shared helpers of the robustness tests: cut points, one-byte corruptions, and a check
//! that turns a panic into a failure naming its input.
#![allow(dead_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use texlate::ir::Isa;
use texlate::isa;

/// Runs `check`, recording a failure (an error it returns, or a panic) under `what`.
pub fn no_panic(
    failures: &mut Vec<String>,
    what: &str,
    check: impl FnOnce() -> Result<(), String>,
) {
    match catch_unwind(AssertUnwindSafe(check)) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => failures.push(format!("{what}: {why}")),
        Err(_) => failures.push(format!("{what}: panicked")),
    }
}

/// Char-boundary cut points of `s`: all of them, or about `most` evenly spaced.
pub fn cuts(s: &str, most: usize) -> Vec<usize> {
    let step = (s.len() / most).max(1);
    (0..=s.len())
        .step_by(step)
        .filter(|i| s.is_char_boundary(*i))
        .collect()
}

/// `s` with the character at byte `at` replaced by `c`; `None` inside a character.
pub fn replaced(s: &str, at: usize, c: char) -> Option<String> {
    let ch = s.get(at..)?.chars().next()?;
    let mut out = s.to_string();
    out.replace_range(at..at + ch.len_utf8(), c.encode_utf8(&mut [0; 4]));
    Some(out)
}

/// Byte replacements: zero and all-ones fields, a high bit, neighbouring values.
pub fn byte_substitutes(b: u8) -> [u8; 5] {
    [0x00, 0xff, 0x80, b ^ 1, b.wrapping_add(0x10)]
}

/// Bytes of `isa` that decode re-encode to the same bytes, and print as text.
pub fn binary_round_trip(isa: Isa, bytes: &[u8]) -> Result<(), String> {
    let Ok(p) = isa::codec(isa).decode_binary(bytes) else {
        return Ok(());
    };
    let out = isa::codec(isa)
        .encode_binary(&p)
        .map_err(|e| format!("decoded but does not encode: {e}"))?;
    if out != bytes {
        return Err("re-encodes differently".into());
    }
    isa::codec(isa)
        .print_text(&p)
        .map_err(|e| format!("decoded but does not print: {e}"))?;
    Ok(())
}

/// `text` split before its first line that `is_body` accepts: the header (declarations,
/// each line terminated) and the body lines, so that each body line can be cut and
/// corrupted in a small program of its own.
pub fn split_header(text: &str, is_body: impl Fn(&str) -> bool) -> (String, Vec<&str>) {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|l| is_body(l)).unwrap_or(lines.len());
    let header: String = lines[..first].iter().map(|l| format!("{l}\n")).collect();
    (header, lines[first..].to_vec())
}

/// Checks `header` followed by every prefix of each of `lines`, then by each line with
/// every byte replaced (cycling through `substitutes`), recording failures.
pub fn lines_cut_and_corrupted(
    failures: &mut Vec<String>,
    header: &str,
    lines: &[&str],
    substitutes: &[char],
    check: impl Fn(&str) -> Result<(), String>,
) {
    for (n, line) in lines.iter().enumerate() {
        for cut in cuts(line, usize::MAX) {
            let src = format!("{header}{}", &line[..cut]);
            no_panic(failures, &format!("line {n} prefix {cut}"), || check(&src));
        }
        for at in 0..line.len() {
            let c = substitutes[(at + n) % substitutes.len()];
            let Some(bad) = replaced(line, at, c) else {
                continue;
            };
            let src = format!("{header}{bad}\n");
            no_panic(failures, &format!("line {n} byte {at} -> {c:?}"), || {
                check(&src)
            });
        }
    }
}
