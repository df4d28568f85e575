//! vISA inputs cut short or with one byte changed never panic, and whatever still reads
//! writes back exactly: text prints byte-identically, binary re-encodes to the same bytes.
//! Inputs: the fixture (every prefix, every byte position) and a sample of the corpus dumps.

mod mutate;
mod support;

use std::fs;
use std::path::PathBuf;

use mutate::{
    binary_round_trip, byte_substitutes, cuts, lines_cut_and_corrupted, no_panic, replaced,
    split_header,
};
use texlate::ir::Isa;
use texlate::isa::visa::{self, Checks};

const ALL_OPS: &str = include_str!("cases/visa/all_ops.visaasm");

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
        binary_round_trip(Isa::Visa, &bytes)?;
        visa::decode_binary(&bytes).map_err(|e| format!("its binary does not decode: {e}"))?;
    }
    Ok(())
}

/// Replacements that turn one token into another kind: separators, digits, letters of
/// names and channels, and a non-ASCII letter.
const TEXT_SUBSTITUTES: [char; 6] = [' ', '.', '(', '9', 'R', 'é'];

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
    // The sampler lines start at the first sample_3d.
    let (header, lines) = split_header(ALL_OPS, |l| l.contains("sample_3d"));
    lines_cut_and_corrupted(&mut failures, &header, &lines, &TEXT_SUBSTITUTES, |src| {
        text_round_trip(src, Checks::Strict)
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixture_binary_truncated_and_corrupted() {
    let p = visa::parse_text(ALL_OPS).unwrap();
    let bytes = visa::encode_binary(&p).unwrap();
    let mut failures = Vec::new();
    for cut in 0..=bytes.len() {
        no_panic(&mut failures, &format!("prefix {cut}"), || {
            binary_round_trip(Isa::Visa, &bytes[..cut])
        });
    }
    for at in 0..bytes.len() {
        // Two of the substitutes per byte, cycling.
        let substitutes = byte_substitutes(bytes[at]);
        for k in 0..2 {
            let v = substitutes[(2 * at + k) % substitutes.len()];
            let mut b = bytes.clone();
            b[at] = v;
            no_panic(&mut failures, &format!("byte {at} -> {v:#04x}"), || {
                binary_round_trip(Isa::Visa, &b)
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
    let dir = support::corpus("intel/dumps")?;
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
                binary_round_trip(Isa::Visa, &b[..])
            });
            no_panic(&mut failures, &format!("{name} binary prefix {at}"), || {
                binary_round_trip(Isa::Visa, &bytes[..at])
            });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `visa::parse_text_relaxed` against the two readings it stands for: the program read IGC's
/// way, and the error a strict reading gives (`translate`'s warning).
fn relaxed_is_both_readings(src: &str) -> Result<(), String> {
    let (program, refusal) = visa::parse_text_relaxed(src);
    let relaxed = visa::parse_text_with(src, Checks::IgcCompatible);
    let strict = visa::parse_text(src).err();
    if format!("{program:?}") != format!("{relaxed:?}") {
        return Err(format!("program {program:?}, read IGC's way {relaxed:?}"));
    }
    if format!("{refusal:?}") != format!("{strict:?}") {
        return Err(format!(
            "strict refusal {refusal:?}, strict reading {strict:?}"
        ));
    }
    Ok(())
}

#[test]
fn relaxed_reading_is_both_readings() {
    // The fixture with a gather4 mixing F and HF parameters (IGC's own half-precision
    // output): read IGC's way, refused by a strict reading.
    let mixed = ALL_OPS.replacen("DST.0 U.0 V.0", "DST.0 U.0 VH.0", 1);
    assert!(mixed != ALL_OPS);
    let (program, refusal) = visa::parse_text_relaxed(&mixed);
    assert!(program.is_ok(), "{program:?}");
    let refusal = refusal.expect("a strict reading refuses mixed F and HF parameters");
    assert!(refusal.to_string().contains("param-type"), "{refusal}");
    let mut failures = Vec::new();
    for src in [ALL_OPS.to_string(), mixed.clone()] {
        no_panic(&mut failures, "whole", || relaxed_is_both_readings(&src));
    }
    // Every prefix and corruption of every sampler line, after the declarations and after the
    // mixed line (a relaxed line followed by one either reading refuses, or by a second
    // relaxed one).
    let (header, lines) = split_header(&mixed, |l| l.contains("sample_3d"));
    let mixed_line = lines
        .iter()
        .find(|l| l.contains("VH.0"))
        .expect("the mixed line");
    for prefix in [header.clone(), format!("{header}{mixed_line}\n")] {
        lines_cut_and_corrupted(
            &mut failures,
            &prefix,
            &lines,
            &TEXT_SUBSTITUTES,
            relaxed_is_both_readings,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_relaxed_reading_is_both_readings() {
    let Some(dumps) = corpus_dumps() else { return };
    let mut failures = Vec::new();
    for (k, path) in dumps.iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = fs::read_to_string(path).unwrap();
        no_panic(&mut failures, &name, || relaxed_is_both_readings(&src));
        // Every 8th dump also cut short at 8 points.
        if k % 8 == 0 {
            for cut in cuts(&src, 8) {
                no_panic(&mut failures, &format!("{name} prefix {cut}"), || {
                    relaxed_is_both_readings(&src[..cut])
                });
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
