//! The identity translation of one file through `texlate::stream` (what `translate --from X
//! --to X` writes), for measuring time and peak memory (`/usr/bin/time -v`) and for
//! profiling (`perf record -g`) the streaming paths:
//! `cargo build --release --example stream_transcode` then
//! `target/release/examples/stream_transcode visa|dxbc|nvidia text|binary|disasm FILE [ROUNDS]`.
//! `text` and `binary` transcode into that form, `disasm` reads the file as binary and prints
//! it; the output goes to standard output, the items read to standard error.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::process::ExitCode;

use texlate::{stream, Form, Isa, ReadOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(isa), Some(mode), Some(path)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("usage: stream_transcode visa|dxbc|nvidia text|binary|disasm FILE [ROUNDS]");
        return ExitCode::FAILURE;
    };
    let isa = match isa.as_str() {
        "visa" => Isa::Visa,
        "dxbc" => Isa::Dxbc,
        _ => Isa::Nvidia,
    };
    let rounds: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(1);
    let read = ReadOptions {
        igc_compatible: true,
        ..ReadOptions::default()
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for _ in 0..rounds {
        let mut input = match File::open(path) {
            Ok(f) => BufReader::new(f),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let result = match mode.as_str() {
            "disasm" => stream::disasm(isa, &mut input, &mut out),
            "binary" => stream::transcode(isa, &mut input, read, Form::Binary, &mut out),
            _ => stream::transcode(isa, &mut input, read, Form::Text, &mut out),
        };
        match result {
            Ok(stats) => eprintln!("{} items, {} texture", stats.items, stats.texture),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}
