//! Throughput of each ISA's decode and encode on the real corpora in `../shared/corpus`.
//! `cargo bench` (criterion); inputs that are missing are reported and skipped.

use std::fs;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use texlate::{isa, Isa, ReadOptions};

const IGC_COMPATIBLE: ReadOptions = ReadOptions {
    igc_compatible: true,
};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// Every file under `dir` whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<Vec<u8>> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths.into_iter().filter_map(|p| fs::read(p).ok()).collect()
}

fn bench_set(c: &mut Criterion, name: &str, isa: Isa, inputs: &[Vec<u8>], text: bool) {
    if inputs.is_empty() {
        eprintln!("SKIPPED {name}: no corpus inputs");
        return;
    }
    let bytes: usize = inputs.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(BenchmarkId::new("decode+encode", inputs.len()), |b| {
        b.iter(|| {
            for input in inputs {
                if text {
                    let src = std::str::from_utf8(input).expect("corpus text is UTF-8");
                    // IGC's own dumps break one vISA rule (mixed F/HF sample4 parameters).
                    let p =
                        texlate::parse_text_with(isa, src, IGC_COMPATIBLE).expect("corpus parses");
                    isa::codec(isa).print_text(&p).expect("prints");
                } else {
                    let p = isa::codec(isa)
                        .decode_binary(input)
                        .expect("corpus decodes");
                    isa::codec(isa).encode_binary(&p).expect("encodes");
                }
            }
        })
    });
    group.finish();
}

fn roundtrips(c: &mut Criterion) {
    let root = corpus();
    bench_set(
        c,
        "visa_text",
        Isa::Visa,
        &files(&root.join("intel/dumps"), ".visaasm"),
        true,
    );
    bench_set(
        c,
        "dxbc_container",
        Isa::Dxbc,
        &files(&root.join("dxbc/blobs"), ".dxbc"),
        false,
    );
    bench_set(
        c,
        "dxbc_text",
        Isa::Dxbc,
        &files(&root.join("dxbc/asm"), ".asm"),
        true,
    );
    bench_set(
        c,
        "nvidia_sass",
        Isa::Nvidia,
        &files(&root.join("nvidia"), ".sass"),
        true,
    );
    bench_set(
        c,
        "nvidia_cubin",
        Isa::Nvidia,
        &files(&root.join("nvidia/cubin"), ".cubin"),
        false,
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = roundtrips
}
criterion_main!(benches);
