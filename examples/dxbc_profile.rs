//! One pass of a DXBC corpus workload, for `valgrind --tool=callgrind`:
//! `cargo build --release --example dxbc_profile` then
//! `valgrind --tool=callgrind target/release/examples/dxbc_profile binary|text [ROUNDS]`.
//! `binary` decodes and re-encodes every container in `../shared/corpus/dxbc/blobs`;
//! `text` parses and prints every listing in `../shared/corpus/dxbc/asm`.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use texlate::{isa, Isa};

/// The contents of every file in `dir` whose name ends with `suffix`, sorted by name.
fn inputs(dir: &Path, suffix: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    paths.sort();
    paths.into_iter().filter_map(|p| fs::read(p).ok()).collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("binary", String::as_str);
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(1);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dxbc");
    let (dir, suffix) = match mode {
        "binary" => ("blobs", ".dxbc"),
        "text" => ("asm", ".asm"),
        other => {
            eprintln!("unknown mode `{other}` (expected `binary` or `text`)");
            return ExitCode::FAILURE;
        }
    };
    let files = inputs(&corpus.join(dir), suffix);
    let mut out_bytes = 0;
    for _ in 0..rounds {
        for input in &files {
            let result = if mode == "binary" {
                isa::codec(Isa::Dxbc)
                    .decode_binary(input)
                    .and_then(|p| isa::codec(Isa::Dxbc).encode_binary(&p))
            } else {
                let Ok(src) = std::str::from_utf8(input) else {
                    eprintln!("a listing is not UTF-8");
                    return ExitCode::FAILURE;
                };
                isa::codec(Isa::Dxbc)
                    .parse_text(src, Default::default())
                    .and_then(|p| isa::codec(Isa::Dxbc).print_text(&p))
                    .map(String::into_bytes)
            };
            match result {
                Ok(out) => out_bytes += out.len(),
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    println!("{} files, {out_bytes} bytes out", files.len());
    ExitCode::SUCCESS
}
