//! The identity translation of one file through `texlate::stream` (what `translate --from X
//! --to X` writes), for measuring time and peak memory (`/usr/bin/time -v`) and for
//! profiling (`perf record -g`) the streaming paths:
//! `cargo build --release --example stream_transcode` then
//! `target/release/examples/stream_transcode visa|dxbc|nvidia text|binary|disasm FILE [ROUNDS]`.
//! `text` and `binary` transcode into that form, `disasm` reads the file as binary and prints
//! it; the output goes to standard output, the items read (each round) to standard error.
//! FILE may be a directory: its files are read first and each round streams every one from
//! memory, in name order (a corpus as `benches/throughput.rs` runs it, but measured in CPU
//! seconds under `/usr/bin/time`).

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
    // A directory's files, read (each input is then a cursor over one); a file is opened
    // each round and streamed from it.
    let corpus: Option<Vec<Vec<u8>>> = std::fs::read_dir(path).ok().map(|dir| {
        let mut paths: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        paths.sort();
        paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
    });
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for _ in 0..rounds {
        let (mut items, mut texture) = (0, 0);
        let inputs: Vec<Box<dyn stream::Input>> = match &corpus {
            Some(files) => files
                .iter()
                .map(|f| Box::new(io::Cursor::new(f.as_slice())) as Box<dyn stream::Input>)
                .collect(),
            None => match File::open(path) {
                Ok(f) => vec![Box::new(BufReader::new(f))],
                Err(e) => {
                    eprintln!("{path}: {e}");
                    return ExitCode::FAILURE;
                }
            },
        };
        for mut input in inputs {
            let result = match mode.as_str() {
                "disasm" => stream::disasm(isa, &mut input, &mut out),
                "binary" => stream::transcode(isa, &mut input, read, Form::Binary, &mut out),
                _ => stream::transcode(isa, &mut input, read, Form::Text, &mut out),
            };
            match result {
                Ok(stats) => {
                    items += stats.items;
                    texture += stats.texture;
                }
                Err(e) => {
                    eprintln!("{path}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        eprintln!("{items} items, {texture} texture");
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}
