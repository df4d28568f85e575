//! Throughput of each ISA's decode and encode on the real corpora in `../shared/corpus`, and
//! of translation in each of the six cross directions (`translate_<from>_to_<to>`, texture
//! instructions per second, to text and to binary).
//! `cargo bench` (criterion); inputs that are missing are reported and skipped.

use std::fs;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use texlate::translate::{translate, Options};
use texlate::{isa, Form, Isa, ReadOptions};

#[path = "../tests/support/translate_corpus.rs"]
mod translate_corpus;

const IGC_COMPATIBLE: ReadOptions = ReadOptions {
    igc_compatible: true,
    sm: texlate::isa::nvidia::Sm::SM50,
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

/// One translation input: its bytes and the options it needs (bindings).
struct Input {
    bytes: Vec<u8>,
    options: Options,
}

/// The corpus inputs of each source ISA: NVIDIA `.sass` listings split per kernel (a whole
/// listing binds one texture slot to several dimensions), the DXBC blobs, the vISA dumps with
/// the bindings file of each (tests/support/translate_corpus.rs).
fn translation_inputs(from: Isa, to: Isa) -> Vec<Input> {
    let root = corpus();
    let options = |bindings: Option<String>| {
        let mut o = Options::new(from, to);
        o.bindings = bindings.map(|b| ("bindings.toml".to_string(), b));
        o.read = IGC_COMPATIBLE;
        o
    };
    let mut out = Vec::new();
    match from {
        Isa::Nvidia => {
            for path in translate_corpus::files(&root.join("nvidia"), ".sass") {
                let Ok(src) = fs::read_to_string(&path) else {
                    continue;
                };
                for (_, text) in translate_corpus::listing_kernels(&src) {
                    out.push(Input {
                        bytes: text.into_bytes(),
                        options: options(None),
                    });
                }
            }
        }
        Isa::Dxbc => {
            for bytes in files(&root.join("dxbc/blobs"), ".dxbc") {
                out.push(Input {
                    bytes,
                    options: options(None),
                });
            }
        }
        Isa::Visa => {
            let intel = root.join("intel");
            if intel.exists() {
                for d in translate_corpus::visa_dumps(&intel).0 {
                    if let Ok(bytes) = fs::read(&d.path) {
                        out.push(Input {
                            bytes,
                            options: options(Some(d.bindings)),
                        });
                    }
                }
            }
        }
    }
    out
}

fn translations(c: &mut Criterion) {
    for from in [Isa::Nvidia, Isa::Dxbc, Isa::Visa] {
        for to in [Isa::Nvidia, Isa::Dxbc, Isa::Visa] {
            if from == to {
                continue;
            }
            let name = format!("translate_{}_to_{}", from.name(), to.name());
            // Only the inputs with a texture instruction that translate without refusal (to
            // text and to binary).
            let mut tex = 0;
            let inputs: Vec<Input> = translation_inputs(from, to)
                .into_iter()
                .filter(|i| match translate(&i.bytes, &i.options) {
                    Ok(t)
                        if !t.report().instructions.is_empty()
                            && texlate::encode(to, &t.program, Form::Binary).is_ok() =>
                    {
                        tex += t.report().instructions.len();
                        true
                    }
                    _ => false,
                })
                .collect();
            eprintln!(
                "{name}: {} inputs, {tex} texture instructions translate",
                inputs.len()
            );
            if inputs.is_empty() {
                eprintln!("SKIPPED {name}: no corpus inputs translate");
                continue;
            }
            let mut group = c.benchmark_group(&name);
            group.throughput(Throughput::Elements(tex as u64));
            for (form, label) in [(Form::Text, "text"), (Form::Binary, "binary")] {
                let inputs: Vec<Input> = inputs
                    .iter()
                    .map(|i| Input {
                        bytes: i.bytes.clone(),
                        options: Options {
                            emit: form,
                            ..i.options.clone()
                        },
                    })
                    .collect();
                group.bench_function(BenchmarkId::new(label, inputs.len()), |b| {
                    b.iter(|| {
                        for i in &inputs {
                            translate(&i.bytes, &i.options).expect("translated before");
                        }
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = roundtrips, translations
}
criterion_main!(benches);
