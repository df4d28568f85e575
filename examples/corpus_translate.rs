//! Translates every file of the shared corpora to every other ISA and tallies the outcome
//! per direction: translated, or refused (by reason). `cargo run --example corpus_translate`.

use std::collections::BTreeMap;
use std::path::Path;

use texlate::translate::{translate_program, Options};
use texlate::{Isa, ReadOptions};

fn files(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = walk(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let only = std::env::args().nth(1);
    let sources: Vec<(Isa, Vec<std::path::PathBuf>)> = vec![
        (Isa::Dxbc, files(&root.join("dxbc/blobs"), ".dxbc")),
        (Isa::Nvidia, files(&root.join("nvidia"), ".sass")),
        (Isa::Visa, files(&root.join("intel/dumps"), ".visaasm")),
    ];
    let bindings = std::env::var("TEXLATE_BINDINGS")
        .ok()
        .map(|p| (p.clone(), std::fs::read_to_string(p).unwrap()));
    for (from, list) in sources {
        for to in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
            if to == from
                || only
                    .as_deref()
                    .is_some_and(|o| o != format!("{}-{}", from.name(), to.name()))
            {
                continue;
            }
            let mut ok_files = 0;
            let mut ok_instrs = 0;
            let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
            for f in &list {
                let bytes = std::fs::read(f).unwrap();
                let read = ReadOptions {
                    igc_compatible: true,
                    ..ReadOptions::default()
                };
                let Ok(p) = texlate::decode_with(from, &bytes, read) else {
                    *reasons.entry("source does not decode".into()).or_default() += 1;
                    continue;
                };
                let n = p.tex_instrs().count();
                let mut o = Options::new(from, to);
                o.read = read;
                if from == Isa::Visa {
                    o.bindings = bindings.clone();
                }
                match translate_program(p, &o) {
                    Ok(_) => {
                        ok_files += 1;
                        ok_instrs += n;
                    }
                    Err(e) => {
                        let msg = e.to_string();
                        let key = msg
                            .split(": ")
                            .skip_while(|s| {
                                s.starts_with("line")
                                    || s.starts_with("byte")
                                    || s.starts_with("unsupported")
                                    || s.starts_with("invalid")
                            })
                            .collect::<Vec<_>>()
                            .join(": ");
                        let key: String = key.chars().take(160).collect();
                        *reasons.entry(key).or_default() += 1;
                        if std::env::var("VERBOSE").is_ok() {
                            eprintln!("{}: {msg}", f.display());
                        }
                    }
                }
            }
            println!(
                "{} -> {}: {ok_files}/{} files translated ({ok_instrs} texture instructions)",
                from.name(),
                to.name(),
                list.len()
            );
            for (r, c) in reasons {
                println!("    {c:5}  {r}");
            }
        }
    }
}
