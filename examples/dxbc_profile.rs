//! One pass of a DXBC corpus workload, for `valgrind --tool=callgrind`:
//! `cargo build --release --example dxbc_profile` then
//! `valgrind --tool=callgrind target/release/examples/dxbc_profile MODE [ROUNDS]`.
//! `binary` decodes and re-encodes every container in `../shared/corpus/dxbc/blobs`;
//! `text` parses and prints every listing in `../shared/corpus/dxbc/asm`; `containers`
//! and `tokens` stream every container, or its bare token stream, binary → binary
//! (`stream::transcode`, as `benches/throughput.rs` does).

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use texlate::{isa, stream, Form, Isa};

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
        "binary" | "containers" | "tokens" => ("blobs", ".dxbc"),
        "text" => ("asm", ".asm"),
        other => {
            eprintln!(
                "unknown mode `{other}` (expected `binary`, `text`, `containers` or `tokens`)"
            );
            return ExitCode::FAILURE;
        }
    };
    let mut files = inputs(&corpus.join(dir), suffix);
    if mode == "tokens" {
        files = files
            .iter()
            .filter_map(|b| isa::dxbc::container::parse(b).ok())
            .map(|c| c.chunks[c.program].data.clone())
            .collect();
    }
    let mut out_bytes = 0;
    for _ in 0..rounds {
        for input in &files {
            let result = if mode == "containers" || mode == "tokens" {
                let mut out = Vec::new();
                let mut input = std::io::Cursor::new(input);
                let read = Default::default();
                stream::transcode(Isa::Dxbc, &mut input, read, Form::Binary, &mut out)
                    .map(|_| out)
                    .map_err(|e| e.to_string())
            } else if mode == "binary" {
                isa::codec(Isa::Dxbc)
                    .decode_binary(input)
                    .and_then(|p| isa::codec(Isa::Dxbc).encode_binary(&p))
                    .map_err(|e| e.to_string())
            } else {
                let Ok(src) = std::str::from_utf8(input) else {
                    eprintln!("a listing is not UTF-8");
                    return ExitCode::FAILURE;
                };
                isa::codec(Isa::Dxbc)
                    .parse_text(src, Default::default())
                    .and_then(|p| isa::codec(Isa::Dxbc).print_text(&p))
                    .map(String::into_bytes)
                    .map_err(|e| e.to_string())
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
