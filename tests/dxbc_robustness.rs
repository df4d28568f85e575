//! DXBC inputs cut short or with one byte changed never panic, and whatever still reads
//! writes back: token streams and containers re-encode to the same bytes, listings print
//! and re-parse to the same listing. Inputs: the fixture (every prefix of every line, every
//! byte of its token stream) and a sample of the corpus blobs and listings.

mod dxbc_common;
mod mutate;

use dxbc_common::{blobs, container_of, corpus_dir, fix_checksum, listings};
use mutate::{
    binary_round_trip, byte_substitutes, cuts, lines_cut_and_corrupted, no_panic, replaced,
    split_header,
};
use texlate::ir::Isa;
use texlate::isa::dxbc;

const EVERY_OP: &str = include_str!("cases/dxbc/every_op.asm");

/// A listing that parses prints, and the printed listing parses back to the same listing
/// and the same binary.
fn text_round_trip(src: &str) -> Result<(), String> {
    let Ok(p) = dxbc::parse_text(src) else {
        return Ok(());
    };
    let printed = dxbc::print_text(&p).map_err(|e| format!("parsed but does not print: {e}"))?;
    let again = dxbc::parse_text(&printed)
        .map_err(|e| format!("its printing does not parse: {e}\n{printed}"))?;
    let reprinted = dxbc::print_text(&again).map_err(|e| e.to_string())?;
    if reprinted != printed {
        return Err(format!("prints differently the second time: {reprinted:?}"));
    }
    if let Ok(bytes) = dxbc::encode_binary(&p) {
        let twice = dxbc::encode_binary(&again).map_err(|e| e.to_string())?;
        if twice != bytes {
            return Err("its printing encodes differently".into());
        }
        binary_round_trip(Isa::Dxbc, &bytes)?;
        dxbc::decode_binary(&bytes).map_err(|e| format!("its binary does not decode: {e}"))?;
    }
    Ok(())
}

/// Hex dwords that decode re-encode to the same dwords.
fn hex_round_trip(words: &[&str]) -> Result<(), String> {
    let Ok(p) = dxbc::decode_hex(words) else {
        return Ok(());
    };
    let hex = dxbc::print_hex(&p).map_err(|e| format!("decoded but does not print: {e}"))?;
    let back: Vec<u32> = hex
        .split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).unwrap_or(0))
        .collect();
    let given: Vec<u32> = words
        .iter()
        .map(|w| u32::from_str_radix(w, 16).unwrap_or(0))
        .collect();
    // A leading version and length token are kept on the program, not printed.
    if !given.ends_with(&back) {
        return Err(format!("prints other dwords: {hex}"));
    }
    Ok(())
}

/// Replacements that turn one token into another kind: separators, brackets, digits,
/// component letters, a minus, and a non-ASCII letter.
const TEXT_SUBSTITUTES: [char; 8] = [' ', ',', '[', ')', '9', 'x', '-', 'é'];

/// The fixture as its header (through `dcl_temps`) and its instruction lines.
fn fixture_lines() -> (String, Vec<&'static str>) {
    split_header(EVERY_OP, |l| {
        !l.starts_with("dcl_") && !l.starts_with("//") && !l.starts_with("ps_")
    })
}

#[test]
fn fixture_listing_truncated_and_corrupted() {
    let mut failures = Vec::new();
    for cut in cuts(EVERY_OP, 100) {
        no_panic(&mut failures, &format!("prefix {cut}"), || {
            text_round_trip(&EVERY_OP[..cut])
        });
    }
    // Every prefix of every instruction line, and every byte of it replaced (cycling
    // through the substitutes), after the declarations.
    let (header, lines) = fixture_lines();
    lines_cut_and_corrupted(
        &mut failures,
        &header,
        &lines,
        &TEXT_SUBSTITUTES,
        text_round_trip,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A bare token stream cut to `cut` bytes, its length token made to match, so that the
/// cut reaches the instruction decoder instead of failing the length check.
fn cut_stream(stream: &[u8], cut: usize) -> Vec<u8> {
    let mut b = stream[..cut].to_vec();
    if b.len() >= 8 {
        let dwords = (b.len() / 4) as u32;
        b[4..8].copy_from_slice(&dwords.to_le_bytes());
    }
    b
}

#[test]
fn fixture_binary_truncated_and_corrupted() {
    let mut failures = Vec::new();
    // Each instruction after the declarations: every cut and every byte replaced (cycling
    // through the substitutes).
    let (header, lines) = fixture_lines();
    let encode = |src: &str| dxbc::parse_text(src).and_then(|p| dxbc::encode_binary(&p));
    let decls = encode(&header).unwrap().len();
    for (n, line) in lines.iter().enumerate() {
        let stream = encode(&format!("{header}{line}\n")).unwrap();
        for cut in decls..=stream.len() {
            no_panic(&mut failures, &format!("line {n} cut {cut}"), || {
                binary_round_trip(Isa::Dxbc, &cut_stream(&stream, cut))
            });
        }
        for at in decls..stream.len() {
            let mut b = stream.clone();
            b[at] = byte_substitutes(b[at])[(at + n) % 5];
            no_panic(
                &mut failures,
                &format!("line {n} byte {at} -> {:#04x}", b[at]),
                || binary_round_trip(Isa::Dxbc, &b),
            );
        }
    }
    // The whole stream: the declarations' bytes, and in a container (corrupted with a
    // valid checksum, so the corruption reaches the chunks).
    let p = dxbc::parse_text(EVERY_OP).unwrap();
    let stream = dxbc::encode_binary(&p).unwrap();
    for at in 0..decls {
        let mut b = stream.clone();
        b[at] = byte_substitutes(b[at])[at % 5];
        no_panic(
            &mut failures,
            &format!("byte {at} -> {:#04x}", b[at]),
            || binary_round_trip(Isa::Dxbc, &b),
        );
    }
    let container = container_of(&stream);
    for at in (0..container.len()).step_by(11) {
        let mut b = container.clone();
        b[at] = byte_substitutes(b[at])[at % 5];
        fix_checksum(&mut b);
        no_panic(&mut failures, &format!("container byte {at}"), || {
            binary_round_trip(Isa::Dxbc, &b)
        });
        no_panic(&mut failures, &format!("container prefix {at}"), || {
            binary_round_trip(Isa::Dxbc, &container[..at])
        });
    }
    // Hex dwords: cut at every dword, and each dword with its top digit changed.
    let hex = dxbc::print_hex(&p).unwrap();
    let words: Vec<&str> = hex.split_whitespace().collect();
    for cut in 0..=words.len() {
        no_panic(&mut failures, &format!("hex prefix {cut}"), || {
            hex_round_trip(&words[..cut])
        });
    }
    for at in 0..words.len() {
        let bad = format!("f{}", &words[at][1..]);
        let mut w = words.clone();
        w[at] = &bad;
        no_panic(&mut failures, &format!("hex dword {at}"), || {
            hex_round_trip(&w)
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Corpus inputs above this size are left out of the sample (each check reads the whole
/// input several times; the largest listings would dominate the run).
const MAX_SAMPLE: usize = 32 * 1024;

#[test]
fn corpus_cut_and_corrupted() {
    let Some(dir) = corpus_dir() else { return };
    let mut failures = Vec::new();
    // Every 24th blob: its token stream and its container, 16 cut points and 16 corrupted
    // bytes each (the container's checksum fixed, so the corruption reaches the chunks).
    for (name, bytes) in blobs(&dir)
        .iter()
        .step_by(24)
        .filter(|(_, b)| b.len() <= MAX_SAMPLE)
    {
        let Ok(mut p) = dxbc::decode_binary(bytes) else {
            failures.push(format!("{name}: does not decode"));
            continue;
        };
        p.state.get_mut::<dxbc::DxbcModule>().unwrap().container = None;
        let stream = dxbc::encode_binary(&p).unwrap();
        for input in [&stream, bytes] {
            let step = (input.len() / 16).max(1);
            for at in (0..input.len()).step_by(step) {
                let cut = if input.starts_with(b"DXBC") {
                    input[..at].to_vec()
                } else {
                    cut_stream(input, at)
                };
                no_panic(&mut failures, &format!("{name} prefix {at}"), || {
                    binary_round_trip(Isa::Dxbc, &cut)
                });
                let mut b = input.clone();
                b[at] = byte_substitutes(b[at])[at % 5];
                if b.starts_with(b"DXBC") {
                    fix_checksum(&mut b);
                }
                no_panic(&mut failures, &format!("{name} byte {at}"), || {
                    binary_round_trip(Isa::Dxbc, &b)
                });
            }
        }
    }
    // Every 24th listing: 16 cut points and 16 corrupted bytes.
    for (name, text) in listings(&dir)
        .iter()
        .step_by(24)
        .filter(|(_, t)| t.len() <= MAX_SAMPLE)
    {
        for cut in cuts(text, 16) {
            no_panic(&mut failures, &format!("{name} prefix {cut}"), || {
                text_round_trip(&text[..cut])
            });
        }
        let step = (text.len() / 16).max(1);
        for (k, at) in (0..text.len()).step_by(step).enumerate() {
            let c = TEXT_SUBSTITUTES[k % TEXT_SUBSTITUTES.len()];
            let Some(bad) = replaced(text, at, c) else {
                continue;
            };
            no_panic(&mut failures, &format!("{name} byte {at} -> {c:?}"), || {
                text_round_trip(&bad)
            });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A stream of 20000 nested `if` tokens (one dword each) prints in linear size: listing
/// indentation stops growing at 64 levels, the deepest nesting Direct3D allows.
#[test]
fn deep_nesting_prints_in_linear_size() {
    let count = 20_000u32;
    let mut words = vec![0x50, count + 2];
    words.extend(std::iter::repeat_n(31 | 1 << 24, count as usize));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = dxbc::decode_binary(&bytes).unwrap();
    let text = dxbc::print_text(&p).unwrap();
    assert!(text.len() < 140 * count as usize, "{} bytes", text.len());
    assert!(text.lines().last().unwrap().starts_with(&" ".repeat(128)));
}
