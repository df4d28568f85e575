//! vISA corpus round trips: IGC 1.0.12504's own dumps (shared/corpus/intel) parse and print
//! back byte-identically, go through the binary encoding and back, and encode to what IGC's
//! `.isa` files hold wherever IGC's truncating writer kept the bytes.

use std::fs;
use std::path::{Path, PathBuf};

use texlate::error::Error;
use texlate::ir::Item;
use texlate::isa::visa::{self, Checks};

mod support;

fn corpus() -> Option<PathBuf> {
    support::corpus("intel")
}

/// Every `.visaasm` (or other `ext`) file under `dir`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The instruction lines of `sampler_lines.txt` (the line after each `@` record header),
/// with the `.decl` lines of the variables they use.
fn sampler_records(dir: &Path) -> Vec<(String, Vec<String>)> {
    let text = fs::read_to_string(dir.join("sampler_lines.txt")).unwrap();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l.starts_with("@ ") {
            let inst = lines.next().unwrap().to_string();
            let mut decls = Vec::new();
            while let Some(d) = lines.peek().filter(|d| d.starts_with("    ")) {
                if let Some(decl) = d.trim().strip_prefix("decl: ") {
                    decls.push(decl.to_string());
                }
                lines.next();
            }
            out.push((inst, decls));
        }
    }
    out
}

#[test]
fn every_sampler_line_prints_back_identically() {
    let Some(dir) = corpus() else { return };
    let records = sampler_records(&dir);
    assert_eq!(records.len(), 983);
    let mut tex = 0;
    for (line, _) in &records {
        let p = visa::parse_text(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        tex += p.tex_instrs().count();
        assert_eq!(visa::print_text(&p).unwrap(), *line);
    }
    // scatter4_typed (36 lines) is a surface write, kept as an opaque line.
    assert_eq!(tex, 983 - 36);
}

#[test]
fn every_sampler_line_survives_the_binary() {
    let Some(dir) = corpus() else { return };
    for (line, _) in sampler_records(&dir) {
        let p = visa::parse_text(&line).unwrap();
        if p.tex_instrs().count() == 0 {
            continue;
        }
        let bytes = visa::encode_binary(&p).unwrap();
        let back = visa::decode_binary(&bytes).unwrap_or_else(|e| panic!("{line}: {e}"));
        // IGC's canonical spacing: the binary carries no layout.
        let canonical = visa::print_text(&back).unwrap();
        let reparsed = visa::parse_text(&canonical).unwrap();
        assert_eq!(visa::encode_binary(&reparsed).unwrap(), bytes, "{line}");
        // IGC's lines are in canonical layout already.
        assert_eq!(canonical.trim_end(), line, "{line}");
        let hex = visa::print_hex(&p).unwrap();
        let words: Vec<&str> = hex.split_whitespace().collect();
        assert_eq!(
            visa::encode_binary(&visa::decode_hex(&words).unwrap()).unwrap(),
            bytes
        );
    }
}

#[test]
fn sampler_lines_with_their_declarations() {
    let Some(dir) = corpus() else { return };
    let mut rejected = Vec::new();
    for (line, decls) in sampler_records(&dir) {
        let src = format!("{}\n{line}\n", decls.join("\n"));
        match visa::parse_text(&src) {
            Ok(p) => assert_eq!(visa::print_text(&p).unwrap(), src),
            Err(Error::Validation(v)) if v.rule == "param-type" => {
                let p = visa::parse_text_with(&src, Checks::IgcCompatible).unwrap();
                assert_eq!(visa::print_text(&p).unwrap(), src);
                rejected.push(line);
            }
            Err(e) => panic!("{line}: {e}"),
        }
    }
    // IGC's half-precision gather4 (icllp, tgllp) mixes HF and F parameters.
    assert_eq!(rejected.len(), 8, "{rejected:#?}");
    assert!(rejected.iter().all(|l| l.starts_with("sample4.R")));
}

#[test]
fn every_dump_round_trips_byte_identically() {
    let Some(dir) = corpus() else { return };
    let all = files(&dir.join("dumps"), "visaasm");
    assert_eq!(all.len(), 423);
    let mut strict_rejects = 0;
    for f in &all {
        let src = fs::read_to_string(f).unwrap();
        let p = match visa::parse_text(&src) {
            Ok(p) => p,
            Err(Error::Validation(v)) if v.rule == "param-type" => {
                strict_rejects += 1;
                visa::parse_text_with(&src, Checks::IgcCompatible)
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            }
            Err(e) => panic!("{}: {e}", f.display()),
        };
        let out = visa::print_text(&p).unwrap();
        assert!(out == src, "{} does not round-trip", f.display());
    }
    assert_eq!(strict_rejects, 2);
}

/// IGC 12504's writer drops the last operands of each instruction (research §6): the last
/// two fields of 0x6d/0x6e/0x6f (params, or numParams and dst with < 2 params), lod and dst
/// of 0x4b, dst of 0x70.
fn igc_truncation(bytes: &[u8]) -> usize {
    const RAW: usize = 6;
    match bytes[0] {
        0x6d..=0x6f => {
            // Everything up to numParams is 22 bytes (21 without 0x6e's sampler byte).
            let fixed = if bytes[0] == 0x6e { 21 } else { 22 };
            match (bytes.len() - fixed) / RAW {
                // dst and numParams, or numParams and the one param
                0 | 1 => RAW + 1,
                _ => 2 * RAW,
            }
        }
        0x4b => 2 * RAW,
        0x70 => RAW,
        other => panic!("opcode {other:#x}"),
    }
}

#[test]
fn encodings_match_igc_isa_dumps_up_to_its_truncation() {
    let Some(dir) = corpus() else { return };
    let mut compared = 0;
    for f in files(&dir.join("dumps"), "visaasm") {
        let isa = fs::read(f.with_extension("isa")).unwrap();
        let src = fs::read_to_string(&f).unwrap();
        let p = visa::parse_text_with(&src, Checks::IgcCompatible).unwrap();
        let mut from = 0;
        for item in &p.items {
            let Item::Tex(t) = item else { continue };
            let mut one = texlate::Program::new(texlate::Isa::Visa);
            one.variables = p.variables.clone();
            one.samplers = p.samplers.clone();
            one.resources = p.resources.clone();
            one.visa = p.visa.clone();
            one.items.push(Item::Tex(t.clone()));
            let full = visa::encode_binary(&one).unwrap();
            let kept = &full[..full.len() - igc_truncation(&full)];
            let at = isa[from..]
                .windows(kept.len())
                .position(|w| w == kept)
                .unwrap_or_else(|| panic!("{}: {:02x?} not in the .isa", f.display(), kept));
            from += at + kept.len();
            compared += 1;
        }
    }
    assert_eq!(compared, 983 - 36);
}
