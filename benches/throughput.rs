//! Instructions per second of each ISA's decode, encode and print (whole-program paths), of
//! the streaming paths (`texlate::stream`: disasm, identity binary → binary and text → text),
//! on the corpora in `../shared/corpus` (DXBC blobs also as bare token streams, their program
//! chunks) and on an NVIDIA word stream built as the vendor
//! comparison builds it (bundles of a control word and three texture words drawn from
//! `nvidia/tex_pairs.tsv`), plus one whose words are all distinct (random registers), and
//! vISA instruction streams (the sampler instructions of each corpus dump, encoded; and all
//! of them, 16 times over, as one stream), and the NVIDIA listings `disasm` prints for both
//! word streams.
//! The translation directions are in `benches/roundtrip.rs`.
//!
//! An "instruction" is an item of the decoded program: an instruction word (NVIDIA counts
//! control words too), a token-stream instruction or declaration (DXBC), a line (text).
//! `cargo bench --bench throughput [-- FILTER]`; missing inputs are reported and skipped.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use texlate::rng::Rng;
use texlate::{isa::codec, stream, Form, Isa, Program, ReadOptions};

const READ: ReadOptions = ReadOptions {
    igc_compatible: true,
    sm: texlate::isa::nvidia::Sm::SM50,
};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// Every file under `dir` whose name ends with `suffix`, sorted, read.
fn files(dir: &Path, suffix: &str) -> Vec<Vec<u8>> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
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

/// Bundles: a control word (phase `.P` in every slot) and three words each.
fn bundles(words: impl Iterator<Item = u64>, count: usize) -> Vec<u8> {
    let field = 0x7e0u64 | (2 << 17);
    let ctrl = field | (field << 21) | (field << 42);
    let mut out = Vec::with_capacity(count * 32);
    for (i, w) in words.take(count * 3).enumerate() {
        if i % 3 == 0 {
            out.extend(ctrl.to_le_bytes());
        }
        out.extend(w.to_le_bytes());
    }
    out
}

/// `bundles` bundles of texture words drawn from `nvidia/tex_pairs.tsv` (SM50 rows).
fn nvidia_pairs_stream(bundle_count: usize) -> Option<Vec<u8>> {
    let text = fs::read_to_string(corpus().join("nvidia/tex_pairs.tsv")).ok()?;
    let words: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with("sm_50"))
        .filter_map(|l| l.split('\t').nth(1))
        .filter_map(|w| u64::from_str_radix(w, 16).ok())
        .collect();
    let mut rng = Rng(1);
    let picks = std::iter::repeat_with(move || words[(rng.next() % words.len() as u64) as usize]);
    Some(bundles(picks, bundle_count))
}

/// `bundles` bundles of random texture words of every form (each accepted alone: decoded and
/// encoded), almost all distinct: what a stream costs when no word repeats.
fn nvidia_distinct_stream(bundle_count: usize) -> Vec<u8> {
    let forms: Vec<(u64, u64)> = texlate::isa::nvidia::table::table()
        .forms
        .iter()
        .map(|f| (f.mask, f.value))
        .collect();
    let mut rng = Rng(7);
    let words = std::iter::repeat_with(move || loop {
        let (mask, value) = forms[(rng.next() % forms.len() as u64) as usize];
        let word = (rng.next() & !mask) | value;
        let alone = bundles(std::iter::once(word), 1);
        if texlate::decode(Isa::Nvidia, &alone)
            .and_then(|p| texlate::encode(Isa::Nvidia, &p, Form::Binary))
            .is_ok()
        {
            return word;
        }
    });
    bundles(words, bundle_count)
}

/// The inputs of one set, decoded, with their instruction count.
struct Set {
    name: String,
    isa: Isa,
    inputs: Vec<Vec<u8>>,
    programs: Vec<Program>,
    items: u64,
}

fn set(name: &str, isa: Isa, inputs: Vec<Vec<u8>>) -> Option<Set> {
    if inputs.is_empty() {
        eprintln!("SKIPPED {name}: no inputs (../shared/corpus)");
        return None;
    }
    let programs: Vec<Program> = inputs
        .iter()
        .map(|i| texlate::decode_with(isa, i, READ).expect("the corpus decodes"))
        .collect();
    let items = programs.iter().map(|p| p.items.len() as u64).sum();
    Some(Set {
        name: name.to_string(),
        isa,
        inputs,
        programs,
        items,
    })
}

fn sets() -> Vec<(Set, bool)> {
    let root = corpus();
    let mut out = Vec::new();
    let mut add = |name: &str, isa: Isa, inputs: Vec<Vec<u8>>, binary: bool| {
        if let Some(s) = set(name, isa, inputs) {
            out.push((s, binary));
        }
    };
    if let Some(stream) = nvidia_pairs_stream(1 << 14) {
        add("nvidia_words_pairs", Isa::Nvidia, vec![stream], true);
    }
    add(
        "nvidia_words_distinct",
        Isa::Nvidia,
        vec![nvidia_distinct_stream(1 << 14)],
        true,
    );
    add(
        "nvidia_cubin",
        Isa::Nvidia,
        files(&root.join("nvidia/cubin"), ".cubin"),
        true,
    );
    add(
        "nvidia_sass",
        Isa::Nvidia,
        files(&root.join("nvidia"), ".sass"),
        false,
    );
    // Listings as `disasm` prints word streams (a texture instruction in every slot): the
    // texture lines' share of the corpus listings (mostly headers) is ~0.2 %.
    let listing = |words: &[u8]| {
        let mut text = Vec::new();
        stream::disasm(Isa::Nvidia, &mut Cursor::new(words), &mut text).expect("disasm");
        text
    };
    if let Some(stream) = nvidia_pairs_stream(1 << 14) {
        add(
            "nvidia_listing_pairs",
            Isa::Nvidia,
            vec![listing(&stream)],
            false,
        );
    }
    add(
        "nvidia_listing_distinct",
        Isa::Nvidia,
        vec![listing(&nvidia_distinct_stream(1 << 14))],
        false,
    );
    add(
        "dxbc_container",
        Isa::Dxbc,
        files(&root.join("dxbc/blobs"), ".dxbc"),
        true,
    );
    // The same programs without their containers (no checksum to check): what decoding
    // and printing the token stream alone cost.
    let tokens: Vec<Vec<u8>> = files(&root.join("dxbc/blobs"), ".dxbc")
        .iter()
        .filter_map(|b| texlate::isa::dxbc::container::parse(b).ok())
        .map(|c| c.chunks[c.program].data.clone())
        .collect();
    add("dxbc_tokens", Isa::Dxbc, tokens, true);
    add(
        "dxbc_text",
        Isa::Dxbc,
        files(&root.join("dxbc/asm"), ".asm"),
        false,
    );
    let visa_text = files(&root.join("intel/dumps"), ".visaasm");
    let visa_binary = visa_streams(&visa_text);
    // The corpus's streams are short (two instructions on average): the same instructions
    // 16 times over as one stream, without the cost of starting one.
    let long = visa_binary.iter().cycle().take(visa_binary.len() * 16);
    let long: Vec<u8> = long.flatten().copied().collect();
    add("visa_binary", Isa::Visa, visa_binary, true);
    if !long.is_empty() {
        add("visa_binary_long", Isa::Visa, vec![long], true);
    }
    add("visa_text", Isa::Visa, visa_text, false);
    out
}

/// The sampler instructions of each `.visaasm` dump as a bare vISA instruction stream (what
/// `texlate::decode` reads as vISA binary; IGC's own `.isa` containers hold no whole
/// instruction). Dumps without one are left out.
fn visa_streams(texts: &[Vec<u8>]) -> Vec<Vec<u8>> {
    texts
        .iter()
        .map(|t| {
            let p = texlate::decode_with(Isa::Visa, t, READ).expect("the corpus decodes");
            texlate::encode(Isa::Visa, &p, Form::Binary).expect("the corpus encodes")
        })
        .filter(|b| !b.is_empty())
        .collect()
}

fn codecs(c: &mut Criterion) {
    for (s, binary) in sets() {
        let mut group = c.benchmark_group(&s.name);
        group.throughput(Throughput::Elements(s.items));
        let isa = s.isa;
        group.bench_function("decode", |b| {
            b.iter(|| {
                for i in &s.inputs {
                    texlate::decode_with(isa, i, READ).expect("decodes");
                }
            })
        });
        group.bench_function("print", |b| {
            b.iter(|| {
                for p in &s.programs {
                    codec(isa).print_text(p).expect("prints");
                }
            })
        });
        if binary {
            group.bench_function("encode", |b| {
                b.iter(|| {
                    for p in &s.programs {
                        codec(isa).encode_binary(p).expect("encodes");
                    }
                })
            });
            group.bench_function("stream_disasm", |b| {
                b.iter(|| {
                    for i in &s.inputs {
                        let mut out = Vec::new();
                        stream::disasm(isa, &mut Cursor::new(i), &mut out).expect("streams");
                    }
                })
            });
        }
        let emit = if binary { Form::Binary } else { Form::Text };
        // The whole-program path the stream must equal (what a codec without a streaming
        // implementation runs): decode, then encode.
        group.bench_function(format!("whole_transcode_{emit:?}").to_lowercase(), |b| {
            b.iter(|| {
                for i in &s.inputs {
                    let p = texlate::decode_with(isa, i, READ).expect("decodes");
                    texlate::encode(isa, &p, emit).expect("encodes");
                }
            })
        });
        group.bench_function(format!("stream_transcode_{emit:?}").to_lowercase(), |b| {
            b.iter(|| {
                for i in &s.inputs {
                    let mut out = Vec::new();
                    stream::transcode(isa, &mut Cursor::new(i), READ, emit, &mut out)
                        .expect("streams");
                }
            })
        });
        group.finish();
    }
}

/// The DXBC container checksum alone (MD5's block function over the whole container, every
/// binary input of a container pays it), in bytes per second over the corpus blobs.
fn dxbc_checksum(c: &mut Criterion) {
    let blobs = files(&corpus().join("dxbc/blobs"), ".dxbc");
    if blobs.is_empty() {
        eprintln!("SKIPPED dxbc_checksum: no inputs (../shared/corpus)");
        return;
    }
    let mut group = c.benchmark_group("dxbc_checksum");
    group.throughput(Throughput::Bytes(
        blobs.iter().map(|b| b.len() as u64).sum(),
    ));
    group.bench_function("checksum", |b| {
        b.iter(|| {
            for blob in &blobs {
                std::hint::black_box(texlate::isa::dxbc::container::checksum(blob));
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = codecs, dxbc_checksum
}
criterion_main!(benches);
