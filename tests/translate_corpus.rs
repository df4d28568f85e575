//! Every texture instruction of the three corpora translated to each other ISA, alone (with
//! its program's declarations): translated, or refused with a typed `unsupported` error
//! naming the reason. Anything else (a validation or encoding error of texlate's own output)
//! fails the test. Translations are also taken back to their source ISA (A → B → A).
//! Counts per direction are printed (`cargo test --test translate_corpus -- --nocapture`).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use texlate::error::Error;
use texlate::ir::{Item, Program};
use texlate::translate::{translate_program, Options};
use texlate::{isa, Isa, ReadOptions};

#[derive(Default)]
struct Tally {
    instructions: usize,
    translated: usize,
    round_trips: usize,
    refused: BTreeMap<String, usize>,
    failures: Vec<String>,
}

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

/// One program per texture instruction of `p`, each with `p`'s declarations and state.
fn singles(p: &Program) -> Vec<Program> {
    p.items
        .iter()
        .filter(|i| matches!(i, Item::Tex(_)))
        .map(|i| Program {
            items: vec![i.clone()],
            ..p.clone()
        })
        .collect()
}

fn run(tally: &mut Tally, name: &str, p: Program, from: Isa, to: Isa, bindings: &Option<(String, String)>) {
    tally.instructions += 1;
    let mut o = Options::new(from, to);
    o.bindings = bindings.clone();
    o.read = ReadOptions { igc_compatible: true };
    match translate_program(p, &o) {
        Ok(t) => {
            tally.translated += 1;
            // Back to the source ISA, through the target's own reader.
            let back = texlate::decode_with(to, &t.output, o.read).and_then(|q| {
                let mut r = Options::new(to, from);
                r.read = o.read;
                if from == Isa::Visa || to == Isa::Visa {
                    // The way back needs the dimension of the vISA side too.
                    r.bindings = bindings.clone().map(|(n, text)| (n, swap_rows(&text, from, to)));
                }
                translate_program(q, &r)
            });
            match back {
                Ok(_) => tally.round_trips += 1,
                Err(Error::Unsupported(u)) => {
                    *tally.refused.entry(format!("(way back) {}", u.why)).or_default() += 1
                }
                Err(e) => tally.failures.push(format!("{name}: way back: {e}")),
            }
        }
        Err(Error::Unsupported(u)) => {
            let why: String = u.why.lines().next().unwrap_or("").chars().take(120).collect();
            *tally.refused.entry(format!("{}: {why}", u.what.chars().take(60).collect::<String>())).or_default() += 1;
        }
        Err(e) => tally.failures.push(format!("{name}: {e}")),
    }
}

/// The bindings rows of a vISA-source file, completed for the way back: each row also names
/// the other ISA's default slot, so that the target's resource finds its row.
fn swap_rows(text: &str, from: Isa, to: Isa) -> String {
    let _ = (from, to);
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some(rest) = line.strip_prefix("visa = { texture = \"T") {
            let n: u32 = rest.trim_end_matches("\" }").parse().unwrap_or(6);
            let slot = n.saturating_sub(6);
            out.push_str(&format!("dxbc = {{ texture = \"t{slot}\" }}\nnvidia = {{ texture = \"{slot:#x}\" }}\n"));
        }
    }
    out
}

fn report(from: Isa, to: Isa, t: &Tally) {
    println!(
        "{} -> {}: {} instructions, {} translated, {} back to {}",
        from.name(),
        to.name(),
        t.instructions,
        t.translated,
        t.round_trips,
        from.name()
    );
    for (why, n) in &t.refused {
        println!("    {n:5} refused: {why}");
    }
    for f in t.failures.iter().take(10) {
        println!("    FAILURE {f}");
    }
}

fn sources(from: Isa) -> Option<Vec<(String, Program, Option<(String, String)>)>> {
    let read = ReadOptions { igc_compatible: true };
    let mut out = Vec::new();
    match from {
        Isa::Dxbc => {
            let dir = support::corpus("dxbc/blobs")?;
            let mut files = Vec::new();
            walk(&dir, ".dxbc", &mut files);
            for f in files {
                let p = texlate::decode_with(from, &std::fs::read(&f).unwrap(), read).unwrap();
                for s in singles(&p) {
                    out.push((f.display().to_string(), s, None));
                }
            }
        }
        Isa::Nvidia => {
            let tsv = support::corpus("nvidia/tex_pairs.tsv")?;
            for line in std::fs::read_to_string(tsv).unwrap().lines() {
                let cols: Vec<&str> = line.split('\t').collect();
                if line.starts_with('#') || cols.len() < 3 || !matches!(cols[0], "sm_50" | "sm_52") {
                    continue;
                }
                let p = isa::codec(Isa::Nvidia).decode_hex(&[cols[1]]).unwrap();
                out.push((format!("{} {}", cols[1], cols[2]), p, None));
            }
        }
        Isa::Visa => {
            let dir = support::corpus("intel/dumps")?;
            let mut files = Vec::new();
            walk(&dir, ".visaasm", &mut files);
            for f in files {
                let p = texlate::decode_with(from, &std::fs::read(&f).unwrap(), read).unwrap();
                let bindings = support::visa_corpus_bindings(&f).map(|b| ("bindings".to_string(), b));
                for s in singles(&p) {
                    out.push((f.display().to_string(), s, bindings.clone()));
                }
            }
        }
    }
    Some(out)
}

fn direction(from: Isa) {
    let Some(list) = sources(from) else { return };
    let mut failed = Vec::new();
    for to in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
        if to == from {
            continue;
        }
        let mut tally = Tally::default();
        for (name, p, bindings) in &list {
            run(&mut tally, name, p.clone(), from, to, bindings);
        }
        report(from, to, &tally);
        failed.extend(tally.failures);
    }
    assert!(failed.is_empty(), "{} translations failed (first: {})", failed.len(), failed[0]);
}

#[test]
fn dxbc_corpus() {
    direction(Isa::Dxbc);
}

#[test]
fn nvidia_corpus() {
    direction(Isa::Nvidia);
}

#[test]
fn visa_corpus() {
    direction(Isa::Visa);
}
