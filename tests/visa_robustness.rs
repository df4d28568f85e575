//! vISA inputs cut short or with one byte changed never panic, and whatever still reads
//! writes back exactly: text prints byte-identically, binary re-encodes to the same bytes.
//! Inputs: the fixture (every prefix, every byte position) and a sample of the corpus dumps.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use texlate::isa::visa::{self, Checks};

const ALL_OPS: &str = include_str!("cases/visa/all_ops.visaasm");

/// Runs `check` on `input`, turning a panic into a failure message naming the input.
fn no_panic(failures: &mut Vec<String>, what: &str, check: impl FnOnce() -> Result<(), String>) {
    match catch_unwind(AssertUnwindSafe(check)) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => failures.push(format!("{what}: {why}")),
        Err(_) => failures.push(format!("{what}: panicked")),
    }
}

/// Text that parses prints back byte-identically, and its binary decodes and re-encodes.
fn text_round_trip(src: &str, checks: Checks) -> Result<(), String> {
    let Ok(p) = visa::parse_text_with(src, checks) else {
        return Ok(());
    };
    let printed = visa::print_text(&p).map_err(|e| format!("parsed but does not print: {e}"))?;
    if printed != src {
        return Err(format!("prints differently: {printed:?}"));
    }
    if let Ok(bytes) = visa::encode_binary(&p) {
        binary_round_trip(&bytes)?;
        visa::decode_binary(&bytes).map_err(|e| format!("its binary does not decode: {e}"))?;
    }
    Ok(())
}

/// Bytes that decode re-encode to the same bytes, and print as text.
fn binary_round_trip(bytes: &[u8]) -> Result<(), String> {
    let Ok(p) = visa::decode_binary(bytes) else {
        return Ok(());
    };
    let out = visa::encode_binary(&p).map_err(|e| format!("decoded but does not encode: {e}"))?;
    if out != bytes {
        return Err("re-encodes differently".into());
    }
    visa::print_text(&p).map_err(|e| format!("decoded but does not print: {e}"))?;
    Ok(())
}

/// Char-boundary cut points of `s`: all of them, or about `most` evenly spaced.
fn cuts(s: &str, most: usize) -> Vec<usize> {
    let step = (s.len() / most).max(1);
    (0..=s.len())
        .step_by(step)
        .filter(|i| s.is_char_boundary(*i))
        .collect()
}

/// `s` with the byte at `at` replaced by `c` (an ASCII byte, so the text stays UTF-8).
fn replaced(s: &str, at: usize, c: char) -> Option<String> {
    let ch = s.get(at..)?.chars().next()?;
    let mut out = s.to_string();
    out.replace_range(at..at + ch.len_utf8(), c.encode_utf8(&mut [0; 4]));
    Some(out)
}

/// Replacements that turn one token into another kind: separators, digits, letters of
/// names and channels, and a non-ASCII letter.
const TEXT_SUBSTITUTES: [char; 6] = [' ', '.', '(', '9', 'R', 'é'];

/// The fixture split into its header (everything before the first sampler line) and its
/// sampler lines, so that each line is cut and corrupted in a small kernel of its own.
fn fixture_lines() -> (String, Vec<&'static str>) {
    let lines: Vec<&str> = ALL_OPS.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains("sample_3d"))
        .unwrap_or(lines.len());
    let header: String = lines[..first].iter().map(|l| format!("{l}\n")).collect();
    (header, lines[first..].to_vec())
}

#[test]
fn fixture_text_truncated_and_corrupted() {
    let mut failures = Vec::new();
    for cut in cuts(ALL_OPS, 200) {
        let src = &ALL_OPS[..cut];
        no_panic(&mut failures, &format!("prefix {cut}"), || {
            text_round_trip(src, Checks::Strict)
        });
    }
    // Every prefix of every sampler line, and every byte of it replaced (cycling through
    // the substitutes), after the declarations.
    let (header, lines) = fixture_lines();
    for (n, line) in lines.iter().enumerate() {
        for cut in cuts(line, usize::MAX) {
            let src = format!("{header}{}", &line[..cut]);
            no_panic(&mut failures, &format!("line {n} prefix {cut}"), || {
                text_round_trip(&src, Checks::Strict)
            });
        }
        for at in 0..line.len() {
            let c = TEXT_SUBSTITUTES[(at + n) % TEXT_SUBSTITUTES.len()];
            let Some(bad) = replaced(line, at, c) else {
                continue;
            };
            let src = format!("{header}{bad}\n");
            no_panic(
                &mut failures,
                &format!("line {n} byte {at} -> {c:?}"),
                || text_round_trip(&src, Checks::Strict),
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixture_binary_truncated_and_corrupted() {
    let p = visa::parse_text(ALL_OPS).unwrap();
    let bytes = visa::encode_binary(&p).unwrap();
    let mut failures = Vec::new();
    for cut in 0..=bytes.len() {
        no_panic(&mut failures, &format!("prefix {cut}"), || {
            binary_round_trip(&bytes[..cut])
        });
    }
    for at in 0..bytes.len() {
        // Two of the substitutes per byte, cycling: a zero or all-ones field, a high bit,
        // and neighbouring values.
        let substitutes = [
            0x00,
            0xff,
            0x80,
            bytes[at] ^ 1,
            bytes[at].wrapping_add(0x10),
        ];
        for k in 0..2 {
            let v = substitutes[(2 * at + k) % substitutes.len()];
            let mut b = bytes.clone();
            b[at] = v;
            no_panic(&mut failures, &format!("byte {at} -> {v:#04x}"), || {
                binary_round_trip(&b)
            });
        }
    }
    let hex = visa::print_hex(&p).unwrap();
    for cut in cuts(&hex, 400) {
        let words: Vec<&str> = hex[..cut].split_whitespace().collect();
        no_panic(
            &mut failures,
            &format!("hex prefix {cut}"),
            || match visa::decode_hex(&words) {
                Ok(p) => visa::encode_binary(&p)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Err(_) => Ok(()),
            },
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn corpus_dumps() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/intel/dumps");
    if !dir.is_dir() {
        eprintln!("SKIPPED: ../shared/corpus/intel not found");
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "visaasm") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}

#[test]
fn corpus_text_and_binary_cut_and_corrupted() {
    let Some(dumps) = corpus_dumps() else { return };
    let mut failures = Vec::new();
    // Every 16th dump, 24 cut points and 24 corrupted bytes each.
    for path in dumps.iter().step_by(16) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = fs::read_to_string(path).unwrap();
        for cut in cuts(&src, 24) {
            no_panic(&mut failures, &format!("{name} prefix {cut}"), || {
                text_round_trip(&src[..cut], Checks::IgcCompatible)
            });
        }
        let step = (src.len() / 24).max(1);
        for (k, at) in (0..src.len()).step_by(step).enumerate() {
            let c = TEXT_SUBSTITUTES[k % TEXT_SUBSTITUTES.len()];
            let Some(bad) = replaced(&src, at, c) else {
                continue;
            };
            no_panic(&mut failures, &format!("{name} byte {at} -> {c:?}"), || {
                text_round_trip(&bad, Checks::IgcCompatible)
            });
        }
        let Ok(bytes) = visa::parse_text_with(&src, Checks::IgcCompatible)
            .and_then(|p| visa::encode_binary(&p))
        else {
            continue;
        };
        let step = (bytes.len() / 24).max(1);
        for at in (0..bytes.len()).step_by(step) {
            let mut b = bytes.clone();
            b[at] ^= 0xa5;
            no_panic(&mut failures, &format!("{name} binary byte {at}"), || {
                binary_round_trip(&b[..])
            });
            no_panic(&mut failures, &format!("{name} binary prefix {at}"), || {
                binary_round_trip(&bytes[..at])
            });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
