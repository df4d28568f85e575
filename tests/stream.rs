//! The streaming paths (`texlate::stream`) write exactly what the whole-program paths write:
//! `disasm` = decode then print, `disasm_hex` = `decode_hex` then print, `transcode` =
//! decode then encode; where the whole path refuses an input, the stream refuses it with the
//! same error. Checked on every corpus file (skipped plainly without `../shared/corpus`), on
//! the fixtures under `tests/cases/`, on random NVIDIA word streams, and on DXBC containers,
//! token streams and listings cut, corrupted and made of random tokens.

mod mutate;
mod support;

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use texlate::isa::dxbc::container::{self, Container};
use texlate::rng::Rng;
use texlate::stream::{self, StreamError};
use texlate::{isa::codec, Form, Isa, ReadOptions};

/// The whole-program disassembly of `bytes`, or its error.
fn whole_disasm(isa: Isa, bytes: &[u8]) -> Result<String, texlate::Error> {
    let c = codec(isa);
    c.print_text(&c.decode_binary(bytes)?)
}

fn streamed(r: Result<stream::Stats, StreamError>, out: Vec<u8>) -> Result<String, texlate::Error> {
    match r {
        Ok(_) => Ok(String::from_utf8(out).expect("text output is UTF-8")),
        Err(StreamError::Codec(e)) => Err(e),
        Err(StreamError::Io(e)) => panic!("I/O error on memory: {e}"),
    }
}

fn stream_disasm(isa: Isa, bytes: &[u8]) -> Result<String, texlate::Error> {
    let mut out = Vec::new();
    let r = stream::disasm(isa, &mut Cursor::new(bytes), &mut out);
    streamed(r, out)
}

/// Checks `disasm` on `bytes`; returns whether the whole path accepted them.
fn check_disasm(isa: Isa, name: &str, bytes: &[u8]) -> bool {
    let whole = whole_disasm(isa, bytes);
    let stream = stream_disasm(isa, bytes);
    assert_eq!(stream, whole, "{name}: disasm streamed differs from whole");
    whole.is_ok()
}

/// Checks `transcode` on `bytes` into both forms; returns how many forms the whole path wrote.
fn check_transcode(isa: Isa, name: &str, bytes: &[u8], read: ReadOptions) -> usize {
    let mut ok = 0;
    for emit in [Form::Text, Form::Binary] {
        let whole =
            texlate::decode_with(isa, bytes, read).and_then(|p| texlate::encode(isa, &p, emit));
        let mut out = Vec::new();
        let stream = match stream::transcode(isa, &mut Cursor::new(bytes), read, emit, &mut out) {
            Ok(_) => Ok(out),
            Err(StreamError::Codec(e)) => Err(e),
            Err(StreamError::Io(e)) => panic!("I/O error on memory: {e}"),
        };
        assert!(
            stream == whole,
            "{name}: transcode to {emit:?} differs from whole: {}",
            first_difference(&stream, &whole)
        );
        ok += usize::from(whole.is_ok());
    }
    ok
}

/// Where a stream's result and the whole path's differ: their errors, or the first line
/// of output that differs.
fn first_difference(
    stream: &Result<Vec<u8>, texlate::Error>,
    whole: &Result<Vec<u8>, texlate::Error>,
) -> String {
    let (Ok(s), Ok(w)) = (stream, whole) else {
        return format!("{:?} vs {:?}", stream.as_ref().err(), whole.as_ref().err());
    };
    let (s, w) = (String::from_utf8_lossy(s), String::from_utf8_lossy(w));
    match s
        .split('\n')
        .zip(w.split('\n'))
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        Some((n, (a, b))) => format!("line {}:\n{a:?}\n{b:?}", n + 1),
        None => format!("{} vs {} lines", s.lines().count(), w.lines().count()),
    }
}

/// Every file under `dir` whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The corpus inputs of each ISA: (ISA, binary?, file suffix, folder).
const CORPUS: &[(Isa, bool, &str, &str)] = &[
    (Isa::Nvidia, true, ".cubin", "nvidia/cubin"),
    (Isa::Nvidia, false, ".sass", "nvidia"),
    (Isa::Dxbc, true, ".dxbc", "dxbc/blobs"),
    (Isa::Dxbc, false, ".asm", "dxbc/asm"),
    (Isa::Visa, false, ".visaasm", "intel/dumps"),
];

#[test]
fn every_corpus_file_streams_as_the_whole_program_path() {
    let Some(root) = support::corpus("") else {
        return;
    };
    let read = ReadOptions {
        igc_compatible: true,
        ..ReadOptions::default()
    };
    for &(isa, binary, suffix, dir) in CORPUS {
        let paths = files(&root.join(dir), suffix);
        assert!(!paths.is_empty(), "no {suffix} files under {dir}");
        let (mut disasm_ok, mut transcoded) = (0, 0);
        for path in &paths {
            let bytes = fs::read(path).unwrap();
            let name = path.display().to_string();
            if binary {
                disasm_ok += usize::from(check_disasm(isa, &name, &bytes));
            }
            transcoded += check_transcode(isa, &name, &bytes, read);
        }
        // The corpus is what the vendors' tools wrote: it all reads.
        if binary {
            assert_eq!(disasm_ok, paths.len(), "{dir}: disasm");
        }
        // Every file reads and prints back; some refuse binary output (an NVIDIA listing
        // without encodings has no words for its other instructions).
        assert!(transcoded >= paths.len(), "{dir}: transcode");
    }
}

/// A word stream of whole bundles: a control word (phase `ctrl_phase` in every slot) and
/// the `words` three by three (NOP-padded).
fn bundles(words: &[u64], mut control: impl FnMut(usize) -> u64) -> Vec<u8> {
    let nop = 0x50b0_0000_0007_0f00u64;
    let mut out = Vec::new();
    for (b, chunk) in words.chunks(3).enumerate() {
        out.extend(control(b).to_le_bytes());
        for k in 0..3 {
            out.extend(chunk.get(k).copied().unwrap_or(nop).to_le_bytes());
        }
    }
    out
}

/// The control word with the same phase field in all three slots (`.P` = 2).
fn control(phase: u64) -> u64 {
    let field = 0x7e0 | (phase << 17);
    field | (field << 21) | (field << 42)
}

/// The first column of a TSV file's data rows, as words.
fn tsv_words(text: &str, column: usize) -> Vec<u64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split('\t').nth(column))
        .filter_map(|w| u64::from_str_radix(w.trim(), 16).ok())
        .collect()
}

#[test]
fn nvidia_word_streams_of_the_fixtures_stream_as_the_whole_program_path() {
    // The SM50 rows (the others need a later SM: tests/nvidia_cases.rs reads them so).
    let ops: String = fs::read_to_string("tests/cases/nvidia/ops.tsv")
        .unwrap()
        .lines()
        .filter(|l| !l.ends_with("\tSM61"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut words = tsv_words(&ops, 0);
    words.extend(tsv_words(
        &fs::read_to_string("tests/cases/nvidia/emit_words.tsv").unwrap(),
        0,
    ));
    assert!(words.len() > 150);
    for phase in [0, 1, 2] {
        let bytes = bundles(&words, |_| control(phase));
        assert!(check_disasm(Isa::Nvidia, "fixture words", &bytes));
        assert_eq!(
            check_transcode(Isa::Nvidia, "fixture words", &bytes, ReadOptions::default()),
            2
        );
    }
    // The texture words' text is what nvdisasm printed (tests/cases/nvidia/ops.tsv).
    let text = stream_disasm(Isa::Nvidia, &bundles(&words, |_| control(2))).unwrap();
    assert!(
        text.contains("TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA ;"),
        "{text}"
    );
    // A reserved phase in a control word, and a stream cut inside a word: the same errors.
    let mut bytes = bundles(&words, |b| if b == 7 { control(3) } else { control(2) });
    assert!(!check_disasm(Isa::Nvidia, "reserved phase", &bytes));
    bytes.truncate(8 * 41 + 3);
    assert!(!check_disasm(Isa::Nvidia, "cut stream", &bytes));
    assert!(check_disasm(Isa::Nvidia, "empty", &[]));
}

#[test]
fn nvidia_corpus_word_pairs_stream_as_the_whole_program_path() {
    let Some(path) = support::corpus("nvidia/tex_pairs.tsv") else {
        return;
    };
    let words = tsv_words(&fs::read_to_string(path).unwrap(), 1);
    assert!(words.len() > 1000);
    let bytes = bundles(&words, |_| control(2));
    assert!(check_disasm(Isa::Nvidia, "tex_pairs.tsv", &bytes));
    assert_eq!(
        check_transcode(Isa::Nvidia, "tex_pairs.tsv", &bytes, ReadOptions::default()),
        2
    );
}

/// Random words of every texture form (the opcode bits of a form, every other bit random):
/// the streamed text and words match the whole-program path's word for word, including
/// the words that decode but break a rule (same error).
#[test]
fn random_nvidia_words_stream_as_the_whole_program_path() {
    let forms: Vec<(u64, u64)> = texlate::isa::nvidia::table::table()
        .forms
        .iter()
        .map(|f| (f.mask, f.value))
        .collect();
    let mut rng = Rng(0x7e1a_7e5e_ed00_0001);
    let mut tally = Tally::default();
    for _ in 0..4000 {
        let (mask, value) = forms[(rng.next() % forms.len() as u64) as usize];
        let word = (rng.next() & !mask) | value;
        let phase = rng.next() % 3;
        let bytes = bundles(&[word], |_| control(phase));
        if tally.count(check_disasm(Isa::Nvidia, &format!("{word:#018x}"), &bytes)) {
            check_transcode(
                Isa::Nvidia,
                &format!("{word:#018x}"),
                &bytes,
                ReadOptions::default(),
            );
        }
        let hex = format!("{word:016x}");
        let whole = codec(Isa::Nvidia)
            .decode_hex(&[&hex])
            .and_then(|p| codec(Isa::Nvidia).print_text(&p));
        let mut out = Vec::new();
        let streamed = streamed(stream::disasm_hex(Isa::Nvidia, &[&hex], &mut out), out);
        assert_eq!(streamed, whole, "--hex {hex}");
    }
    // Both outcomes are exercised.
    assert!(tally.accepted > 1000 && tally.refused > 100, "{tally:?}");
    // Accepted words read again under other phases (a stream keeps the words it has read).
    let mut words = Vec::new();
    while words.len() < 300 {
        let (mask, value) = forms[(rng.next() % forms.len() as u64) as usize];
        let word = (rng.next() & !mask) | value;
        let phase = rng.next() % 3;
        if texlate::decode(Isa::Nvidia, &bundles(&[word], |_| control(phase))).is_ok() {
            words.push(word);
        }
    }
    let repeated: Vec<u64> = (0..20_000)
        .map(|_| words[(rng.next() % 300) as usize])
        .collect();
    let bytes = bundles(&repeated, |b| control(b as u64 % 3));
    assert!(check_disasm(Isa::Nvidia, "repeated random words", &bytes));
}

/// Accepted words read again and again (`disasm` prints a word it read before from its
/// cache, taking its phase from the bundle's control word, read once per control word)
/// under control words whose slots hold each phase, one slot of one bundle in some streams
/// the reserved phase 3: the same text, or the same error at the same control word, as
/// decoding then printing.
#[test]
fn repeated_nvidia_words_under_every_phase_disasm_as_the_whole_program_path() {
    let mut rng = Rng(0x9a5e_0000_0000_0003);
    let words = accepted_words(&mut rng, 24);
    let mut tally = Tally::default();
    for round in 0..60 {
        let repeated: Vec<u64> = (0..300).map(|_| words[rng.below(words.len())]).collect();
        // A reserved phase in one slot of one bundle, in two streams of three.
        let reserved = (round % 3 != 0).then(|| (rng.below(100), 1 + rng.below(3)));
        let bytes = bundles(&repeated, |b| {
            (1..4).fold(0, |ctrl, slot| {
                let phase = match reserved {
                    Some(at) if at == (b, slot) => 3,
                    _ => rng.next() % 3,
                };
                ctrl | (0x7e0 | phase << 17) << (21 * (slot - 1))
            })
        });
        tally.count(check_disasm(Isa::Nvidia, &format!("round {round}"), &bytes));
    }
    tally.assert_both(10);
}

#[test]
fn a_stream_refused_after_its_first_words_writes_nothing() {
    let good = 0xd830_06e0_6057_0404u64;
    let mut words = vec![good; 30];
    // An Rd vector past R254 decodes (nvdisasm prints it so; it does not lift) ...
    words.push(0xdeb8_000f_f187_10fe);
    let bytes = bundles(&words, |_| control(2));
    let printed = stream_disasm(Isa::Nvidia, &bytes).unwrap();
    assert!(
        printed.contains("TEX.B.NDV.P R254, R16, R24, 0x0, ARRAY_CUBE, 0xf ;"),
        "{printed}"
    );
    assert_eq!(Ok(printed), whole_disasm(Isa::Nvidia, &bytes));
    // ... a TEXS target code nvdisasm calls UNDECODABLE does not.
    words.push(0xd9d0_06e0_6057_0404);
    let bytes = bundles(&words, |_| control(2));
    let mut out = Vec::new();
    let r = stream::disasm(Isa::Nvidia, &mut Cursor::new(&bytes), &mut out);
    let Err(StreamError::Codec(e)) = r else {
        panic!("accepted: {r:?}");
    };
    assert_eq!(Err(e.clone()), whole_disasm(Isa::Nvidia, &bytes));
    assert!(e.to_string().contains("byte offset 0x"), "{e}");
    assert!(out.is_empty(), "{} bytes written", out.len());
}

/// Checks `transcode` of `bytes` into `emit` against decode then encode.
fn check_transcode_to(isa: Isa, name: &str, bytes: &[u8], emit: Form) -> bool {
    let read = ReadOptions::default();
    let whole = texlate::decode_with(isa, bytes, read).and_then(|p| texlate::encode(isa, &p, emit));
    let mut out = Vec::new();
    let stream = match stream::transcode(isa, &mut Cursor::new(bytes), read, emit, &mut out) {
        Ok(_) => Ok(out),
        Err(StreamError::Codec(e)) => Err(e),
        Err(StreamError::Io(e)) => panic!("I/O error on memory: {e}"),
    };
    assert!(
        stream == whole,
        "{name}: transcode to {emit:?} differs from whole:\n{:?}\n{:?}",
        stream
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
        whole
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    );
    whole.is_ok()
}

/// How many inputs of a mutation test the whole path accepted and how many it refused: the
/// test must see both outcomes.
#[derive(Debug, Default)]
struct Tally {
    accepted: usize,
    refused: usize,
}

impl Tally {
    /// Counts one outcome and passes it on.
    fn count(&mut self, accepted: bool) -> bool {
        if accepted {
            self.accepted += 1;
        } else {
            self.refused += 1;
        }
        accepted
    }

    /// Both outcomes more than `at_least` times.
    fn assert_both(&self, at_least: usize) {
        assert!(
            self.accepted > at_least && self.refused > at_least,
            "{} accepted, {} refused",
            self.accepted,
            self.refused
        );
    }
}

/// The identity transcode of an NVIDIA word stream to binary, streamed and whole (the same
/// words or the same error); where accepted, the stream counts the whole program's items and
/// texture instructions. Returns whether the whole path accepted them.
fn check_binary_transcode(name: &str, bytes: &[u8]) -> bool {
    if !check_transcode_to(Isa::Nvidia, name, bytes, Form::Binary) {
        return false;
    }
    let read = ReadOptions::default();
    let mut out = Vec::new();
    let stats = stream::transcode(
        Isa::Nvidia,
        &mut Cursor::new(bytes),
        read,
        Form::Binary,
        &mut out,
    )
    .expect("accepted whole");
    let p = texlate::decode_with(Isa::Nvidia, bytes, read).expect("accepted whole");
    assert_eq!(stats.items, p.items.len() as u64, "{name}: items");
    assert_eq!(
        stats.texture,
        p.tex_instrs().count() as u64,
        "{name}: texture"
    );
    true
}

/// A random word of a texture form (its opcode bits, every other bit random).
fn form_word(rng: &mut Rng) -> u64 {
    let forms = &texlate::isa::nvidia::table::table().forms;
    let f = &forms[(rng.next() % forms.len() as u64) as usize];
    (rng.next() & !f.mask) | f.value
}

/// `word` with its low three bytes and bits 20..27 (the register fields of most forms) set
/// to registers near RZ, where vectors stop fitting.
fn high_registers(rng: &mut Rng, word: u64) -> u64 {
    let mut w = word;
    for lo in [0, 8, 20, 28] {
        if rng.next() % 2 == 0 {
            w = (w & !(0xff << lo)) | ((248 + rng.next() % 8) << lo);
        }
    }
    w
}

/// The words of `count` words accepted alone (decoded and encoded by the whole path).
fn accepted_words(rng: &mut Rng, count: usize) -> Vec<u64> {
    accepted_words_on(rng, count, ReadOptions::default())
}

/// [`accepted_words`] read as `read` says (its SM), and written back unchanged by the whole
/// path (every word it writes back is: TXD.LC, which the IR cannot keep, is refused).
fn accepted_words_on(rng: &mut Rng, count: usize, read: ReadOptions) -> Vec<u64> {
    let mut words = Vec::new();
    while words.len() < count {
        let word = form_word(rng);
        let bytes = bundles(&[word], |_| control(rng.next() % 3));
        if texlate::decode_with(Isa::Nvidia, &bytes, read)
            .and_then(|p| texlate::encode(Isa::Nvidia, &p, Form::Binary))
            .is_ok_and(|b| b == bytes)
        {
            words.push(word);
        }
    }
    words
}

/// Streams of accepted words with some mutated (registers moved near RZ, bits flipped, the
/// word replaced by a random one of a texture form), and control words sometimes random or a
/// texture word: the identity transcode to binary gives the whole path's words or error
/// (the first decoding error of the stream, else the first word that cannot run).
#[test]
fn mutated_nvidia_streams_transcode_to_binary_as_the_whole_program_path() {
    let mut rng = Rng(0x5eed_0000_b1a5_0001);
    let pool = accepted_words(&mut rng, 40);
    let mut tally = Tally::default();
    for round in 0..600 {
        let mut words: Vec<u64> = Vec::new();
        for _ in 0..60 {
            let w = pool[(rng.next() % pool.len() as u64) as usize];
            words.push(match rng.next() % 150 {
                0 | 1 => high_registers(&mut rng, w),
                2 => w ^ (1 << (rng.next() % 64)),
                3 => form_word(&mut rng),
                _ => w,
            });
        }
        let mut bytes = bundles(&words, |_| match rng.next() % 200 {
            0 => rng.next(),
            1 => pool[(rng.next() % pool.len() as u64) as usize],
            2 => form_word(&mut rng),
            _ => control(rng.next() % 3),
        });
        if round % 50 == 0 {
            bytes.truncate(bytes.len() - 8);
        }
        tally.count(check_binary_transcode(&format!("round {round}"), &bytes));
    }
    tally.assert_both(50);
}

/// A long stream of distinct accepted words (every word a miss of the streams' word check),
/// and the same words with registers moved near RZ.
#[test]
fn distinct_nvidia_words_transcode_to_binary_as_the_whole_program_path() {
    let mut rng = Rng(0xd157_19c7_0000_0003);
    let words = accepted_words(&mut rng, 6000);
    let bytes = bundles(&words, |b| control(b as u64 % 3));
    assert!(check_binary_transcode("distinct words", &bytes));
    // Each shape seen first with low registers, then with registers near RZ.
    let mut refused = 0;
    for chunk in words.chunks(30) {
        let mut w = chunk.to_vec();
        w.extend(chunk.iter().map(|&x| high_registers(&mut rng, x)));
        refused += usize::from(!check_binary_transcode(
            "high registers",
            &bundles(&w, |_| control(2)),
        ));
    }
    assert!(refused > 10, "{refused} refused");
}

/// A control word that decodes as a texture instruction that cannot run: kept as an opaque
/// word, which encoding refuses (as the whole path does).
#[test]
fn a_control_word_that_is_a_refused_texture_word_is_refused_alike() {
    let nop = 0x50b0_0000_0007_0f00u64;
    // The Rd vector past R254 of `a_stream_refused_after_its_first_words_writes_nothing`.
    let bad = 0xdeb8_000f_f187_10feu64;
    let bytes: Vec<u8> = [control(2), nop, nop, nop, bad, nop, nop, nop]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert!(!check_binary_transcode("control word", &bytes));
}

/// A minimal ELF64 file with the sections given (name, bytes), as a cubin holds them.
fn elf(sections: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut strtab = vec![0u8];
    let mut names = Vec::new();
    for (name, _) in sections.iter().chain(&[(".shstrtab", Vec::new())]) {
        names.push(strtab.len() as u32);
        strtab.extend(name.as_bytes());
        strtab.push(0);
    }
    let mut body = vec![0u8; 64];
    let mut headers = vec![0u8; 64]; // the null section
    let mut put = |body: &mut Vec<u8>, name: u32, kind: u32, data: &[u8]| {
        while body.len() % 8 != 0 {
            body.push(0);
        }
        let offset = body.len() as u64;
        body.extend(data);
        for v in [name, kind] {
            headers.extend(v.to_le_bytes());
        }
        for v in [0u64, 0, offset, data.len() as u64] {
            headers.extend(v.to_le_bytes());
        }
        headers.extend([0u8; 8]);
        headers.extend(8u64.to_le_bytes());
        headers.extend(0u64.to_le_bytes());
    };
    for (k, (_, data)) in sections.iter().enumerate() {
        put(&mut body, names[k], 1, data);
    }
    put(&mut body, names[sections.len()], 3, &strtab);
    while body.len() % 8 != 0 {
        body.push(0);
    }
    let shoff = body.len() as u64;
    let shnum = sections.len() as u16 + 2;
    let mut h = b"\x7fELF\x02\x01\x01".to_vec();
    h.resize(16, 0);
    h.extend(2u16.to_le_bytes()); // ET_EXEC
    h.extend(190u16.to_le_bytes()); // EM_CUDA
    h.extend(1u32.to_le_bytes());
    h.extend(0u64.to_le_bytes()); // entry
    h.extend(0u64.to_le_bytes()); // phoff
    h.extend(shoff.to_le_bytes());
    h.extend(0x0032_0532u32.to_le_bytes()); // flags
    for v in [64u16, 0, 0, 64, shnum, shnum - 1] {
        h.extend(v.to_le_bytes());
    }
    body[..64].copy_from_slice(&h);
    body.extend(headers);
    body
}

/// Cubins (built here, and every corpus cubin) with words of their `.text` sections mutated:
/// the identity transcode to binary gives the whole path's file or error.
#[test]
fn mutated_cubins_transcode_to_binary_as_the_whole_program_path() {
    let mut rng = Rng(0xc0b1_0000_0000_0005);
    let pool = accepted_words(&mut rng, 30);
    let mut cubins = Vec::new();
    for _ in 0..3 {
        let mut sections = Vec::new();
        for k in 0..1 + rng.next() % 3 {
            let words: Vec<u64> = (0..3 + rng.next() % 20)
                .map(|_| pool[(rng.next() % pool.len() as u64) as usize])
                .collect();
            sections.push((format!(".text.k{k}"), bundles(&words, |_| control(2))));
        }
        sections.push((
            ".nv.info".to_string(),
            (0..40).map(|_| rng.next() as u8).collect(),
        ));
        let named: Vec<(&str, Vec<u8>)> = sections
            .iter()
            .map(|(n, d)| (n.as_str(), d.clone()))
            .collect();
        cubins.push(elf(&named));
    }
    assert!(check_binary_transcode("built cubin", &cubins[0]));
    if let Some(root) = support::corpus("nvidia/cubin") {
        cubins.extend(files(&root, ".cubin").iter().map(|p| fs::read(p).unwrap()));
    }
    let mut tally = Tally::default();
    for (n, cubin) in cubins.iter().enumerate() {
        assert!(check_binary_transcode(&format!("cubin {n}"), cubin));
        let file = object::File::parse(cubin.as_slice()).unwrap();
        let texts: Vec<(usize, usize)> = object::Object::sections(&file)
            .filter(|s| object::ObjectSection::name(s).is_ok_and(|n| n.starts_with(".text.")))
            .filter_map(|s| object::ObjectSection::file_range(&s))
            .map(|(o, l)| (o as usize, l as usize))
            .collect();
        for _ in 0..40 {
            let mut c = cubin.clone();
            for _ in 0..1 + rng.next() % 3 {
                let (o, l) = texts[(rng.next() % texts.len() as u64) as usize];
                let at = o + 8 * (rng.next() as usize % (l / 8).max(1));
                let old = u64::from_le_bytes(c[at..at + 8].try_into().unwrap());
                let new = match rng.next() % 4 {
                    0 => high_registers(&mut rng, old),
                    1 => old ^ (1 << (rng.next() % 64)),
                    2 => form_word(&mut rng),
                    _ => pool[(rng.next() % pool.len() as u64) as usize],
                };
                c[at..at + 8].copy_from_slice(&new.to_le_bytes());
            }
            tally.count(check_binary_transcode(&format!("mutated cubin {n}"), &c));
        }
    }
    tally.assert_both(10);
}

/// Where a cubin's bytes lie in memory does not change how it reads (found by the
/// `stream_transcode` fuzz target: the ELF reader refused a buffer at an odd address, the
/// streamed path, reading into a buffer of its own, did not): a cubin read from a slice at
/// every offset modulo 8 decodes, prints and transcodes as from an aligned one.
#[test]
fn cubins_read_alike_at_any_address() {
    let mut rng = Rng(0xc0b1_0000_0000_0009);
    let pool = accepted_words(&mut rng, 12);
    let words: Vec<u64> = (0..9).map(|k| pool[k % pool.len()]).collect();
    let mut cubins = vec![elf(&[(".text.k", bundles(&words, |_| control(2)))])];
    if let Some(root) = support::corpus("nvidia/cubin") {
        cubins.extend(
            files(&root, ".cubin")
                .iter()
                .take(4)
                .map(|p| fs::read(p).unwrap()),
        );
    }
    for (n, cubin) in cubins.iter().enumerate() {
        let aligned = texlate::decode(Isa::Nvidia, cubin).expect("the cubin decodes");
        let text = texlate::encode(Isa::Nvidia, &aligned, Form::Text).unwrap();
        for shift in 1..8 {
            let mut buf = vec![0u8; shift];
            buf.extend(cubin);
            let moved = &buf[shift..];
            let p = texlate::decode(Isa::Nvidia, moved)
                .unwrap_or_else(|e| panic!("cubin {n} at +{shift}: {e}"));
            assert_eq!(texlate::encode(Isa::Nvidia, &p, Form::Text).unwrap(), text);
            assert!(check_binary_transcode(
                &format!("cubin {n} at +{shift}"),
                moved
            ));
        }
    }
}

/// Checks a DXBC input on every streaming path: `disasm`, and `transcode` to text and to
/// binary; returns whether the whole path decoded it. The texture instructions the stream
/// counts (decoding them, or only walking a binary input's tokens) are the whole
/// program's, and so are the instructions of a binary input.
fn check_dxbc(name: &str, bytes: &[u8]) -> bool {
    let binary = codec(Isa::Dxbc).looks_binary(bytes);
    if binary {
        check_disasm(Isa::Dxbc, name, bytes);
    }
    let text_ok = check_transcode_to(Isa::Dxbc, name, bytes, Form::Text);
    if binary {
        check_transcode_to(Isa::Dxbc, name, bytes, Form::Binary);
    }
    if let Ok(p) = texlate::decode(Isa::Dxbc, bytes) {
        let forms: &[Form] = if binary {
            &[Form::Text, Form::Binary]
        } else {
            &[Form::Text]
        };
        for &form in forms {
            let mut out = Vec::new();
            let stats = stream::transcode(
                Isa::Dxbc,
                &mut Cursor::new(bytes),
                ReadOptions::default(),
                form,
                &mut out,
            )
            .unwrap();
            assert_eq!(
                stats.texture,
                p.tex_instrs().count() as u64,
                "{name} {form:?}"
            );
            if binary {
                assert_eq!(stats.items, p.items.len() as u64, "{name} {form:?}");
            }
        }
    }
    text_ok
}

/// The DXBC listings under `tests/cases/dxbc` (every instruction spelling fxc and Wine
/// print), each assembled whole by texlate.
fn dxbc_fixtures() -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    for path in files(Path::new("tests/cases/dxbc"), ".asm") {
        let text = fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let Ok(blob) = texlate::decode(Isa::Dxbc, text.as_bytes())
            .and_then(|p| texlate::encode(Isa::Dxbc, &p, Form::Binary))
        else {
            continue;
        };
        out.push((name, text, blob));
    }
    assert!(out.len() >= 5, "{} DXBC fixtures assemble", out.len());
    out
}

/// The program chunk of a container and the container around it.
fn program_chunk(blob: &[u8]) -> (Container, Vec<u8>) {
    let c = container::parse(blob).expect("a valid container");
    let stream = c.chunks[c.program].data.clone();
    (c, stream)
}

#[test]
fn dxbc_fixtures_stream_as_the_whole_program_path() {
    for (name, text, blob) in dxbc_fixtures() {
        assert!(check_dxbc(&name, text.as_bytes()), "{name}: listing");
        assert!(check_dxbc(&name, &blob), "{name}: container");
        let (_, tokens) = program_chunk(&blob);
        assert!(check_dxbc(&name, &tokens), "{name}: bare token stream");
        // CRLF line ends and a last line without one are kept.
        let crlf = text.replace('\n', "\r\n");
        assert!(check_dxbc(&name, crlf.as_bytes()), "{name}: CRLF");
        assert!(
            check_dxbc(&name, text.trim_end().as_bytes()),
            "{name}: unterminated"
        );
    }
}

/// Each dword of `stream` after the version and length tokens replaced by a random value,
/// by the same value with one bit flipped, and cut off there (length token fixed): every
/// variant, bare and in its container (checksum fixed), streams as the whole path decodes
/// it, output or error.
fn check_mutated_stream(
    name: &str,
    c: &Container,
    stream: &[u8],
    rng: &mut Rng,
    every: usize,
    tally: &mut Tally,
) {
    let dwords = stream.len() / 4;
    let mut tally = |accepted: bool| {
        tally.count(accepted);
    };
    for k in (2..dwords).step_by(every) {
        let at = 4 * k;
        let word = u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
        let random = rng.next() as u32;
        let flipped = word ^ (1 << (rng.next() % 32));
        for value in [random, flipped] {
            let mut v = stream.to_vec();
            v[at..at + 4].copy_from_slice(&value.to_le_bytes());
            tally(check_dxbc(&format!("{name} dword {k} = {value:#010x}"), &v));
            let wrapped = container::write_with_program(c, &v);
            tally(check_dxbc(
                &format!("{name} dword {k} = {value:#010x} in container"),
                &wrapped,
            ));
        }
        let mut cut = stream[..at].to_vec();
        cut[4..8].copy_from_slice(&(k as u32).to_le_bytes());
        tally(check_dxbc(&format!("{name} cut at dword {k}"), &cut));
        tally(check_dxbc(
            &format!("{name} cut at dword {k} in container"),
            &container::write_with_program(c, &cut),
        ));
    }
}

#[test]
fn mutated_dxbc_token_streams_stream_as_the_whole_program_path() {
    let mut rng = Rng(0xd8bc_5eed_0000_0001);
    let mut tally = Tally::default();
    for (name, _, blob) in dxbc_fixtures() {
        let (c, stream) = program_chunk(&blob);
        check_mutated_stream(&name, &c, &stream, &mut rng, 1, &mut tally);
        // The container itself: cut, and bytes replaced (checksum left stale, then fixed).
        for at in (0..blob.len()).step_by(7) {
            check_dxbc(&format!("{name} container cut at {at}"), &blob[..at]);
            for b in [0x00, 0xff, blob[at] ^ 0x10] {
                let mut bad = blob.clone();
                bad[at] = b;
                check_dxbc(&format!("{name} container byte {at} = {b:#04x}"), &bad);
                let sum = container::checksum(&bad);
                if bad.len() >= 20 {
                    bad[4..20].copy_from_slice(&sum);
                }
                check_dxbc(
                    &format!("{name} container byte {at} = {b:#04x}, checksum fixed"),
                    &bad,
                );
            }
        }
    }
    tally.assert_both(100);
}

#[test]
fn mutated_dxbc_corpus_blobs_stream_as_the_whole_program_path() {
    let Some(root) = support::corpus("dxbc/blobs") else {
        return;
    };
    let mut rng = Rng(0xd8bc_c0de_0000_0002);
    for (i, path) in files(&root, ".dxbc").iter().enumerate().step_by(25) {
        let blob = fs::read(path).unwrap();
        let (c, stream) = program_chunk(&blob);
        check_mutated_stream(
            &format!("{} #{i}", path.display()),
            &c,
            &stream,
            &mut rng,
            31,
            &mut Tally::default(),
        );
    }
}

/// Random token streams: instructions of random known and unknown opcodes, lengths,
/// extended tokens and operand tokens (each field drawn from its range), bare and in a
/// container.
#[test]
fn random_dxbc_token_streams_stream_as_the_whole_program_path() {
    let mut rng = Rng(0x70ce_5eed_0000_0003);
    let mut tally = Tally::default();
    for n in 0..3000 {
        let mut words = vec![0x50u32 | ((rng.next() % 6) as u32) << 16, 0];
        for _ in 0..1 + rng.next() % 6 {
            let opcode = (rng.next() % 220) as u32;
            let len = 1 + rng.next() % 12;
            let ext = u32::from(rng.next() % 8 == 0);
            words.push(
                opcode | ((rng.next() as u32) & 0x1fff) << 11 | (len as u32) << 24 | ext << 31,
            );
            for k in 1..len {
                let w = rng.next() as u32;
                // Mostly operand-shaped tokens: few index dimensions, defined representations.
                let operand = match rng.next() % 4 {
                    0 => w,
                    _ => {
                        (w & 0x000f_f0ff)
                            | ((rng.next() % 3) as u32) << 20
                            | (((rng.next() % 4) as u32) << 22) & !(1 << 31)
                    }
                };
                words.push(if k == 1 && ext == 1 {
                    w & 0x7fff_ffff
                } else {
                    operand
                });
            }
        }
        words[1] = words.len() as u32;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let accepted = check_dxbc(&format!("random stream {n}"), &bytes);
        let name = format!("random stream {n} in a container");
        check_dxbc(
            &name,
            &container::write(&Container {
                chunks: vec![container::Chunk {
                    tag: *b"SHEX",
                    data: bytes,
                }],
                program: 0,
            }),
        );
        tally.count(accepted);
    }
    tally.assert_both(100);
}

/// Every instruction line of the fixtures cut at every byte and with every byte replaced
/// (a small program of its own after the declarations): the listing streams to text as the
/// whole path parses and prints it, output or error (line and column).
#[test]
fn mutated_dxbc_listing_lines_stream_as_the_whole_program_path() {
    let substitutes = [
        '0', 'x', ' ', '(', ']', ',', '-', '|', '{', '}', '.', '_', '\t',
    ];
    let mut failures = Vec::new();
    for (name, text, _) in dxbc_fixtures() {
        let (header, lines) = mutate::split_header(&text, |l| {
            let t = l.trim_start();
            !t.is_empty()
                && !t.starts_with("//")
                && !t.starts_with("dcl_")
                && !codec(Isa::Dxbc).is_declaration(t)
        });
        mutate::lines_cut_and_corrupted(&mut failures, &header, &lines, &substitutes, |src| {
            check_transcode_to(Isa::Dxbc, &name, src.as_bytes(), Form::Text);
            Ok(())
        });
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A random pick of `items`.
fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

/// A random pick of `usual`, or one time in `odds` of `unusual`.
fn pick_odd<'a>(rng: &mut Rng, odds: usize, usual: &[&'a str], unusual: &[&'a str]) -> &'a str {
    if rng.below(odds) == 0 {
        pick(rng, unusual)
    } else {
        pick(rng, usual)
    }
}

/// A random DXBC operand near fxc's spelling: register files (known, Wine's, unknown),
/// indices (immediate, relative, nested, too many, too long), component letters (none,
/// one to five, not components), modifiers, immediates of one to five values of every
/// number spelling, stray spaces and tabs.
fn random_dxbc_operand(rng: &mut Rng, depth: u32) -> String {
    const FILES: &[&str] = &["r", "r", "r", "v", "o", "cb", "icb", "x", "t", "u", "g"];
    const ODD_FILES: &[&str] = &[
        "null",
        "oDepth",
        "vThreadID",
        "vPrim",
        "T",
        "CB",
        "q",
        "",
        "l",
        "d",
        "rr",
        "_",
        "s",
    ];
    const NUMBERS: &[&str] = &["1.000000", "0.500000", "-2", "0x3f800000", "0", "7"];
    const ODD_NUMBERS: &[&str] = &[
        "1.40129846e-45",
        "--0.229850411",
        "inf",
        "-nan(ind)",
        "nan",
        "4294967295",
        "4294967296",
        "-2147483649",
        "1e",
        "",
        " 3 ",
        "0x",
        "1.5f",
        "x",
    ];
    const INDICES: &[&str] = &["0", "1", "2", "7", "12", "123456789"];
    const ODD_INDICES: &[&str] = &["4294967295", "4294967296", "0000000001", "", " 3 ", "-1"];
    const COUNTS: &[usize] = &[1, 4, 4, 1, 4, 1, 2, 3, 0, 5];
    if rng.below(8) == 0 {
        let values = *[1, 4, 4, 1, 2, 5].get(rng.below(6)).unwrap_or(&1);
        let values: Vec<&str> = (0..values)
            .map(|_| pick_odd(rng, 8, NUMBERS, ODD_NUMBERS))
            .collect();
        let prefix = pick_odd(rng, 6, &["l("], &["d(", "l (", "-l(", "L(", "|l("]);
        return format!("{prefix}{})", values.join(pick(rng, &[", ", ",", " , "])));
    }
    let mut op = String::new();
    let abs = rng.below(10) == 0;
    if rng.below(10) == 0 {
        op.push('-');
    }
    if abs {
        op.push('|');
    }
    op.push_str(pick_odd(rng, 10, FILES, ODD_FILES));
    if rng.below(6) != 0 {
        op.push_str(pick_odd(rng, 12, INDICES, ODD_INDICES));
    }
    let indices = match rng.below(12) {
        0 => 3 + rng.below(2),
        1..=3 => 1 + rng.below(2),
        _ => 0,
    };
    for _ in 0..indices {
        let index = if depth < 2 && rng.below(3) == 0 {
            let inner = random_dxbc_operand(rng, depth + 1);
            let plus = pick_odd(rng, 8, INDICES, ODD_INDICES);
            match rng.below(4) {
                0 => inner,
                1 => format!("{inner}+{plus}"),
                _ => format!("{inner} + {plus}"),
            }
        } else {
            pick_odd(rng, 12, INDICES, ODD_INDICES).to_string()
        };
        op.push_str(&format!("[{index}]"));
    }
    if rng.below(5) != 0 {
        op.push('.');
        for _ in 0..COUNTS[rng.below(COUNTS.len())] {
            let letter = if rng.below(12) == 0 {
                pick(rng, &["r", "g", "b", "a", "q", "e", "_", "0"])
            } else {
                pick(rng, &["x", "y", "z", "w"])
            };
            op.push_str(letter);
        }
    }
    if abs && rng.below(8) != 0 {
        op.push('|');
    }
    if rng.below(30) == 0 {
        op.push_str(" {nonuniform}");
    }
    op
}

/// A random DXBC instruction line near fxc's spelling (mnemonics with and without
/// suffixes, declarations, texture instructions, unknown names; zero to five operands),
/// then one time in two with one byte replaced, inserted or removed.
fn random_dxbc_line(rng: &mut Rng) -> String {
    const MNEMONICS: &[&str] = &[
        "mov",
        "mul",
        "mad",
        "add",
        "dp4",
        "movc",
        "mov_sat",
        "mad_sat",
        "if_nz",
        "if_z",
        "breakc_nz",
        "ret",
        "endif",
        "else",
        "loop",
        "itof",
        "ishl",
        "sample",
        "sample_l",
        "resinfo_uint",
        "ld",
        "gather4",
        "lod",
        "bufinfo",
        "sample_b",
        "discard_nz",
        "dsx",
        "sync_g_t",
        "sync_uglobal",
        "mul_indexable",
        "texkill",
        "nop",
    ];
    const ODD_MNEMONICS: &[&str] = &[
        "ld_indexable",
        "resinfo",
        "sampleinfo_uint",
        "mul_uint",
        "mov_nz",
        "sync_q",
        "dcl_temps",
        "dcl_input_ps",
        "customdata",
        "mull",
        "m",
        "_",
        "ret_sat",
        "mul[precise]",
        "mul [precise(xy)]",
        "mul(1,0,0)",
    ];
    const SEPARATORS: &[&str] = &[", ", ", ", ", ", ",", " , ", ",  "];
    let mut line = pick_odd(rng, 10, MNEMONICS, ODD_MNEMONICS).to_string();
    let operands = rng.below(6);
    for i in 0..operands {
        line.push_str(if i == 0 {
            pick_odd(rng, 10, &[" "], &["  ", "\t", ""])
        } else {
            pick_odd(rng, 10, SEPARATORS, &[",\t", " ,", ""])
        });
        line.push_str(&random_dxbc_operand(rng, 0));
    }
    if rng.below(12) == 0 {
        line.push_str(pick(rng, &[" // comment", "  ", ",", " x", "// a, b"]));
    }
    let mut bytes = line.into_bytes();
    const BYTES: &[u8] = b"0x (],-|{}._\t+[/9lzr";
    match rng.below(6) {
        0 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            bytes[at] = BYTES[rng.below(BYTES.len())];
        }
        1 => {
            let at = rng.below(bytes.len() + 1);
            bytes.insert(at, BYTES[rng.below(BYTES.len())]);
        }
        2 if !bytes.is_empty() => {
            bytes.remove(rng.below(bytes.len()));
        }
        _ => {}
    }
    String::from_utf8(bytes).expect("ASCII")
}

/// Thousands of random instruction lines (near fxc's spelling, half with one byte
/// replaced, inserted or removed), each after the declarations of a fixture: the listing
/// transcodes to text as the whole path parses and prints it, output or error (kind, line
/// and column). Both outcomes occur often, and many accepted lines are plain instructions
/// (no texture instruction), the ones the stream copies without parsing them into tokens.
#[test]
fn random_dxbc_listing_lines_stream_as_the_whole_program_path() {
    let header = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\n\
                  dcl_sampler s0, mode_default\ndcl_temps 4\n";
    let mut rng = Rng(0xd8bc_11fe_5eed_0007);
    let mut tally = Tally::default();
    let mut plain = 0;
    for n in 0..8000 {
        let line = random_dxbc_line(&mut rng);
        let indent = pick(&mut rng, &["", "  ", "\t"]);
        let src = format!("{header}{indent}{line}\n");
        let accepted = tally.count(check_transcode_to(
            Isa::Dxbc,
            &format!("random line {n}: {line:?}"),
            src.as_bytes(),
            Form::Text,
        ));
        if accepted
            && texlate::decode(Isa::Dxbc, src.as_bytes()).is_ok_and(|p| p.tex_instrs().count() == 0)
        {
            plain += 1;
        }
    }
    tally.assert_both(1000);
    assert!(
        plain > 1000,
        "{plain} accepted lines are plain instructions"
    );
}

#[test]
fn mutated_dxbc_corpus_listings_stream_as_the_whole_program_path() {
    let Some(root) = support::corpus("dxbc/asm") else {
        return;
    };
    let mut rng = Rng(0xa5a5_5eed_0000_0004);
    let substitutes = b"0x (],-|{}._\t";
    for path in files(&root, ".asm") {
        let text = fs::read_to_string(&path).unwrap();
        for k in 0..8 {
            let at = (rng.next() % text.len().max(1) as u64) as usize;
            let c = char::from(substitutes[(rng.next() % substitutes.len() as u64) as usize]);
            if let Some(bad) = mutate::replaced(&text, at, c) {
                check_transcode_to(
                    Isa::Dxbc,
                    &format!("{} #{k}", path.display()),
                    bad.as_bytes(),
                    Form::Text,
                );
            }
        }
    }
}

// ---- vISA: `.visaasm` text → text line by line, bare instruction streams → text / binary ----

/// The vISA fixtures (`tests/cases/visa`, `examples/`) and, when present, every corpus dump.
fn visa_texts() -> Vec<(String, Vec<u8>)> {
    let mut paths = files(Path::new("tests/cases/visa"), ".visaasm");
    paths.extend(files(Path::new("examples"), ".visaasm"));
    if let Some(root) = support::corpus("intel/dumps") {
        let corpus = files(&root, ".visaasm");
        assert!(corpus.len() > 400, "{} corpus dumps", corpus.len());
        paths.extend(corpus);
    }
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), fs::read(&p).unwrap()))
        .collect()
}

/// Both ways of reading vISA text: as IGC writes it, and every rule strict.
const VISA_READS: [ReadOptions; 2] = [
    ReadOptions {
        igc_compatible: true,
        sm: texlate::isa::nvidia::Sm::SM50,
    },
    ReadOptions {
        igc_compatible: false,
        sm: texlate::isa::nvidia::Sm::SM50,
    },
];

#[test]
fn visa_text_and_its_instruction_streams_stream_as_the_whole_program_path() {
    let (mut texts, mut streams, mut instructions) = (0, 0, 0);
    for (name, bytes) in visa_texts() {
        for read in VISA_READS {
            texts += usize::from(check_transcode(Isa::Visa, &name, &bytes, read) > 0);
        }
        // The sampler instructions of the text, as a bare binary stream.
        let Ok(program) = texlate::decode_with(Isa::Visa, &bytes, VISA_READS[0]) else {
            continue;
        };
        let binary = texlate::encode(Isa::Visa, &program, Form::Binary).unwrap();
        assert!(check_disasm(Isa::Visa, &name, &binary), "{name}");
        assert_eq!(check_transcode(Isa::Visa, &name, &binary, VISA_READS[0]), 2);
        let hex = texlate::isa::hex::bytes_hex(&binary, "");
        let whole = codec(Isa::Visa)
            .decode_hex(&[&hex])
            .and_then(|p| codec(Isa::Visa).print_text(&p));
        let mut out = Vec::new();
        let streamed = streamed(stream::disasm_hex(Isa::Visa, &[&hex], &mut out), out);
        assert_eq!(streamed, whole, "{name}: --hex");
        streams += 1;
        instructions += program.tex_instrs().count();
    }
    // Every fixture and dump reads (the strict reading refuses IGC's mixed F/HF gathers).
    assert!(
        texts >= streams * 3 / 2 && streams >= 5,
        "{texts} {streams}"
    );
    assert!(instructions >= 20, "{instructions}");
}

#[test]
fn visa_containers_are_refused_as_the_whole_program_path_refuses_them() {
    let mut paths = files(Path::new("tests/cases/visa"), ".isa");
    if let Some(root) = support::corpus("intel/dumps") {
        let corpus = files(&root, ".isa");
        assert!(
            !corpus.is_empty(),
            "no .isa containers under {}",
            root.display()
        );
        paths.extend(corpus);
    }
    assert!(paths.len() >= 4);
    for path in &paths {
        let bytes = fs::read(path).unwrap();
        let name = path.display().to_string();
        assert!(!check_disasm(Isa::Visa, &name, &bytes), "{name}");
        assert_eq!(check_transcode(Isa::Visa, &name, &bytes, VISA_READS[0]), 0);
    }
}

/// Operands, words and lines a mutation puts into vISA text.
const VISA_TOKENS: &[&str] = &[
    "V9999.0",
    "%null.3",
    "%null.0",
    "T99",
    "S1",
    "T0",
    "V32.(2*32)",
    "V32.(",
    "V0057.64x",
    "(M9, 16)",
    "(M1, 12)",
    "(M1,16)",
    "0x1000:uw",
    "0x12:f",
    "-8:w",
    "V33(0,0)<0;1,0>",
    "V33(0,0)<1;1,0>",
    "P1",
    "(!P1.any)",
    "sample_lz.RGBA",
    "sample4.RG",
    "resinfo.R",
    "sample.0000",
    "load.ABGR",
    "samplx.RGBA",
    "mov",
    "/*",
    "*/",
    "//",
    "label0:",
    ".decl",
    "\u{e9}",
    "\r",
    "",
];

/// `lines[i]` mutated by kind `kind`.
fn mutate_visa_line(lines: &mut Vec<String>, i: usize, kind: u64, rng: &mut Rng) {
    let pick = |rng: &mut Rng| VISA_TOKENS[(rng.next() % VISA_TOKENS.len() as u64) as usize];
    let line = lines[i].clone();
    let words: Vec<&str> = line.split(' ').collect();
    lines[i] = match kind {
        // A word replaced (an operand, the mnemonic, the exec, a declaration's attribute).
        0..=2 => {
            let mut w = words.clone();
            let k = (rng.next() % w.len() as u64) as usize;
            w[k] = pick(rng);
            w.join(" ")
        }
        // A word dropped or doubled.
        3 => {
            let mut w = words.clone();
            let k = (rng.next() % w.len() as u64) as usize;
            if rng.next() % 2 == 0 {
                w.remove(k);
            } else {
                w.insert(k, w[k]);
            }
            w.join(" ")
        }
        // Truncated.
        4 => {
            let cut = (rng.next() % (line.len() as u64 + 1)) as usize;
            let cut = (0..=cut).rev().find(|c| line.is_char_boundary(*c)).unwrap();
            line[..cut].to_string()
        }
        // One character changed.
        5 => {
            let mut chars: Vec<char> = line.chars().collect();
            if !chars.is_empty() {
                let k = (rng.next() % chars.len() as u64) as usize;
                chars[k] = b"V0.,()<>;:x%_ \t9Rz"[(rng.next() % 18) as usize] as char;
            }
            chars.into_iter().collect()
        }
        // The line repeated (a declaration twice) or moved to the start (a use before its
        // declaration).
        6 => {
            if rng.next() % 2 == 0 {
                lines.insert(i, line.clone());
            } else {
                lines.remove(i);
                lines.insert(0, line.clone());
            }
            return;
        }
        // A line of its own inserted.
        _ => {
            lines.insert(i, pick(rng).to_string());
            return;
        }
    };
}

/// `lines` joined by `\n`, then sometimes (at random) with `\r\n` everywhere or without
/// the final newline.
fn joined_with_line_ends(lines: &[String], rng: &mut Rng) -> String {
    let joined = lines.join("\n");
    match rng.next() % 6 {
        0 => joined.replace('\n', "\r\n"),
        1 => joined.trim_end_matches('\n').to_string(),
        _ => joined,
    }
}

#[test]
fn mutated_visa_text_streams_as_the_whole_program_path() {
    let texts = visa_texts();
    let mut rng = Rng(0x5eed_0f71_5a00);
    let mut tally = Tally::default();
    // Every fixture, and a spread of the corpus.
    let picked = texts
        .iter()
        .enumerate()
        .filter(|(i, (name, _))| !name.contains("shared/corpus") || i % 7 == 0);
    for (_, (name, bytes)) in picked {
        let text = String::from_utf8(bytes.clone()).unwrap();
        let original: Vec<String> = text.split('\n').map(str::to_string).collect();
        let samplers: Vec<usize> = texlate::decode_with(Isa::Visa, bytes, VISA_READS[0])
            .map(|p| p.tex_instrs().map(|t| t.span.line as usize - 1).collect())
            .unwrap_or_default();
        let decls: Vec<usize> = (0..original.len())
            .filter(|&i| original[i].trim_start().starts_with(".decl"))
            .collect();
        for _ in 0..12 {
            let mut lines = original.clone();
            // Sampler lines and declarations most often, any line sometimes.
            let i = match rng.next() % 4 {
                0 | 1 if !samplers.is_empty() => {
                    samplers[(rng.next() % samplers.len() as u64) as usize]
                }
                2 if !decls.is_empty() => decls[(rng.next() % decls.len() as u64) as usize],
                _ => (rng.next() % lines.len() as u64) as usize,
            };
            let kind = rng.next() % 8;
            mutate_visa_line(&mut lines, i, kind, &mut rng);
            let mutated = joined_with_line_ends(&lines, &mut rng);
            let what = format!("{name} line {} mutation {kind}", i + 1);
            for read in VISA_READS {
                tally.count(check_transcode(Isa::Visa, &what, mutated.as_bytes(), read) > 0);
            }
        }
    }
    tally.assert_both(50);
}

#[test]
fn visa_line_ends_and_binary_look_alikes_stream_as_the_whole_program_path() {
    let text = fs::read_to_string("tests/cases/visa/all_ops.visaasm").unwrap();
    let crlf = text.replace('\n', "\r\n");
    let mut cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\n".to_vec(),
        b"\r\n".to_vec(),
        b"\r".to_vec(),
        crlf.clone().into_bytes(),
        crlf.trim_end().as_bytes().to_vec(),
        // `\r\n` on every line but one.
        crlf.replacen("\r\n", "\n", 1).into_bytes(),
        crlf.replacen("\r\n", "\n", 1)
            .replace("\r\n", "\n")
            .into_bytes(),
        // `\r` before the last `\n` only, and a `\r` kept on an unterminated last line.
        format!("{}\r\n", text.trim_end()).into_bytes(),
        format!("{}\r", crlf.trim_end()).into_bytes(),
        // A declaration that is one only with the `\r` kept (`.decl\r`).
        format!(".decl\r\n{crlf}").into_bytes(),
        format!(".decl\r\n{text}").into_bytes(),
        // Binary after all: a zero byte, invalid UTF-8, the container magic.
        format!("{text}\0").into_bytes(),
        [text.as_bytes(), &[0xff, b'\n']].concat(),
        format!("CISA{text}").into_bytes(),
        b"CIS\nA".to_vec(),
    ];
    // Lines inside a block comment are not read as instructions.
    cases.push(format!("/*\n{text}\n*/\n").into_bytes());
    for (k, bytes) in cases.iter().enumerate() {
        for read in VISA_READS {
            check_transcode(Isa::Visa, &format!("case {k}"), bytes, read);
        }
    }
}

#[test]
fn mutated_visa_instruction_streams_stream_as_the_whole_program_path() {
    let mut streams = Vec::new();
    for (_, bytes) in visa_texts() {
        if let Ok(p) = texlate::decode_with(Isa::Visa, &bytes, VISA_READS[0]) {
            let binary = texlate::encode(Isa::Visa, &p, Form::Binary).unwrap();
            if !binary.is_empty() {
                streams.push(binary);
            }
        }
    }
    let mut rng = Rng(0x0b17_f11b);
    let mut tally = Tally::default();
    for k in 0..3000 {
        let mut bytes = streams[(rng.next() % streams.len() as u64) as usize].clone();
        for _ in 0..1 + rng.next() % 2 {
            let at = (rng.next() % bytes.len() as u64) as usize;
            match rng.next() % 4 {
                0 => bytes.truncate(at),
                1 => bytes.insert(at, rng.next() as u8),
                _ => bytes[at] = rng.next() as u8,
            }
            if bytes.is_empty() {
                break;
            }
        }
        let name = format!("mutant {k}");
        tally.count(check_disasm(Isa::Visa, &name, &bytes));
        check_transcode(Isa::Visa, &name, &bytes, VISA_READS[0]);
    }
    tally.assert_both(300);
    // A stream longer than the window the stream reads through, refused near its end.
    let mut long: Vec<u8> = streams
        .iter()
        .cycle()
        .take(4000)
        .flatten()
        .copied()
        .collect();
    assert!(long.len() > 1 << 17, "{}", long.len());
    assert!(check_disasm(Isa::Visa, "long stream", &long));
    long.truncate(long.len() - 3);
    assert!(!check_disasm(Isa::Visa, "long stream cut", &long));
    check_transcode(Isa::Visa, "long stream cut", &long, VISA_READS[0]);
}

// ---- NVIDIA listings: `.sass` text → text item by item ----

/// The NVIDIA listing fixtures (`tests/cases/nvidia`) and, when present, the corpus
/// listings, each with the SM its name gives (`.sm_60.`), SM50 when it gives none.
fn nvidia_listings() -> Vec<(String, String, ReadOptions)> {
    let mut paths = files(Path::new("tests/cases/nvidia"), ".sass");
    paths.extend(files(Path::new("tests/cases/nvidia"), ".txt"));
    if let Some(root) = support::corpus("nvidia") {
        let corpus = files(&root, ".sass");
        assert!(corpus.len() >= 12, "{} corpus listings", corpus.len());
        paths.extend(corpus);
    }
    paths
        .into_iter()
        .map(|p| {
            let name = p.display().to_string();
            let sm = name
                .split('.')
                .find_map(texlate::isa::nvidia::Sm::parse)
                .unwrap_or(texlate::isa::nvidia::Sm::SM50);
            let read = ReadOptions {
                sm,
                ..ReadOptions::default()
            };
            (name, fs::read_to_string(&p).unwrap(), read)
        })
        .collect()
}

/// Every listing, also with `\r\n` line ends, without its final newline, and the listing
/// `disasm` prints for the fixture words (a texture instruction in every slot): the stream
/// writes what parsing and printing write.
#[test]
fn nvidia_listings_stream_as_the_whole_program_path() {
    let mut texts = nvidia_listings();
    let words = tsv_words(
        &fs::read_to_string("tests/cases/nvidia/emit_words.tsv").unwrap(),
        0,
    );
    let disasm = stream_disasm(Isa::Nvidia, &bundles(&words, |_| control(1))).unwrap();
    texts.push((
        "disasm of emit_words.tsv".into(),
        disasm,
        ReadOptions::default(),
    ));
    for (name, text, read) in &texts {
        let variants = [
            text.clone(),
            text.replace('\n', "\r\n"),
            text.trim_end_matches('\n').to_string(),
            text.trim_end_matches('\n').replace('\n', "\r\n"),
        ];
        for (k, v) in variants.iter().enumerate() {
            assert_eq!(
                check_transcode(
                    Isa::Nvidia,
                    &format!("{name} variant {k}"),
                    v.as_bytes(),
                    *read
                ),
                2 - usize::from(!name.contains("disasm") && !has_every_word(v)),
                "{name} variant {k}"
            );
        }
    }
}

/// Inputs the first reading tells apart: a UTF-8 character cut by the 64 KiB reading
/// chunks (text), one cut by the input's end, a zero byte and an ELF header in text (binary:
/// refused as word streams and cubins are).
#[test]
fn nvidia_text_and_binary_look_alikes_stream_as_the_whole_program_path() {
    let listing = fs::read_to_string("tests/cases/nvidia/tex_predicated.sm_50.sass").unwrap();
    for at in [(1 << 16) - 1, 1 << 16, (1 << 17) - 2] {
        // A comment line whose `é` starts `at` bytes into the input.
        let pad = "x".repeat(at - 3);
        let text = format!("// {pad}\u{e9}\n{listing}");
        assert_eq!(&text.as_bytes()[at..at + 2], "\u{e9}".as_bytes());
        assert_eq!(
            check_transcode(
                Isa::Nvidia,
                "split é",
                text.as_bytes(),
                ReadOptions::default()
            ),
            2
        );
        let mut cut = text.clone().into_bytes();
        cut.truncate(at + 1);
        check_transcode(Isa::Nvidia, "cut é", &cut, ReadOptions::default());
    }
    for prefix in [&b"\x7fELF"[..], b"\0"] {
        let bytes = [prefix, listing.as_bytes()].concat();
        assert_eq!(
            check_transcode(
                Isa::Nvidia,
                "binary look-alike",
                &bytes,
                ReadOptions::default()
            ),
            0
        );
    }
}

/// Whether a listing shows every word it needs for binary output (its other instructions'
/// encodings): a listing without them transcodes to text only.
fn has_every_word(text: &str) -> bool {
    texlate::decode(Isa::Nvidia, text.as_bytes())
        .and_then(|p| texlate::encode(Isa::Nvidia, &p, Form::Binary))
        .is_ok()
}

/// One random change to the lines of an NVIDIA listing around line `i`: what breaks a
/// texture line (registers, modifiers, phase, operands), what moves a bundle's lines apart
/// or together (lines inserted between a control word and its instructions, lines dropped
/// or repeated), and what makes a control word's encoding comment differ.
fn mutate_nvidia_line(lines: &mut Vec<String>, i: usize, kind: u64, rng: &mut Rng) {
    let pick =
        |rng: &mut Rng, from: &[&'static str]| from[(rng.next() % from.len() as u64) as usize];
    match kind {
        // A token of the line replaced.
        0 => {
            let line = &lines[i];
            let tokens: Vec<(usize, &str)> = line
                .match_indices(|c: char| !c.is_whitespace() && c != ',')
                .collect();
            if tokens.is_empty() {
                return;
            }
            let (at, _) = tokens[(rng.next() % tokens.len() as u64) as usize];
            let end = line[at..]
                .find(|c: char| c.is_whitespace() || c == ',')
                .map_or(line.len(), |e| at + e);
            let new = pick(
                rng,
                &[
                    "R254",
                    "RZ",
                    "R0",
                    "0x6e",
                    "0x1fff",
                    "0x2000",
                    "2D",
                    "RGBA",
                    "TEX",
                    "TEXS.P",
                    "TLD.LZ.T",
                    "TXQ",
                    "P0",
                    "@P1",
                    "@!PT",
                    ".B",
                    "",
                    ";",
                    "}",
                    "{",
                    "/*0000*/",
                    "/* 0x001fc000fe4007f6 */",
                    "INVALID5",
                    "ARRAY_2D",
                    "0xf",
                    "R",
                    "TEXS.T.P",
                ],
            );
            lines[i].replace_range(at..end, new);
        }
        // The phase modifier changed or dropped.
        1 => {
            let line = lines[i].clone();
            let new = pick(rng, &[".P ", ".T ", " ", ".P.T "]);
            lines[i] = line.replacen(".P ", new, 1).replacen(".T ", new, 1);
        }
        // Lines between a control word and the instructions of its bundle.
        2 => {
            let n = 1 + rng.next() % 3;
            for _ in 0..n {
                let l = pick(
                    rng,
                    &["", "        // a comment", ".L_x_1:", "\t.align 4", "   "],
                );
                lines.insert(i, l.to_string());
            }
        }
        // A line dropped, or repeated.
        3 => {
            if rng.next() % 2 == 0 {
                lines.remove(i);
            } else {
                lines.insert(i, lines[i].clone());
            }
        }
        // A hex digit of an encoding comment changed (uppercase too).
        4 => {
            if let Some(col) = lines[i].find("/* 0x") {
                let at = col + 5 + (rng.next() % 16) as usize;
                let c = pick(rng, &["0", "f", "F", "8", "A", "g"]);
                lines[i].replace_range(at..at + 1, c);
            }
        }
        // The address changed or dropped (slots come from addresses).
        5 => {
            let new = pick(
                rng,
                &["/*0000*/", "/*0008*/", "/*0010*/", "/*0018*/", "", "/*zz*/"],
            );
            if let Some(col) = lines[i].find("/*0") {
                if let Some(end) = lines[i][col..].find("*/") {
                    lines[i].replace_range(col..col + end + 2, new);
                }
            }
        }
        // A `;` made a `}` with the encoding comment on the next line, or the reverse.
        6 => {
            let line = lines[i].clone();
            if let (Some(semi), Some(col)) = (line.find(" ;"), line.find("/* 0x")) {
                lines[i] = format!("{} }}", &line[..semi]);
                lines.insert(i + 1, format!("{}{}", " ".repeat(col), &line[col..]));
            } else if let Some(b) = line.rfind('}') {
                lines[i].replace_range(b..b + 1, ";");
            }
        }
        // A byte that makes the input binary or not UTF-8, or a `\r`.
        _ => {
            let at = (rng.next() % (lines[i].len() as u64 + 1)) as usize;
            if lines[i].is_char_boundary(at) {
                let c = pick(rng, &["\0", "\r", "\u{e9}"]);
                lines[i].insert_str(at, c);
            }
        }
    }
}

#[test]
fn mutated_nvidia_listings_stream_as_the_whole_program_path() {
    let mut rng = Rng(0x5a55_11e7_0000_0009);
    let mut tally = Tally::default();
    for (name, text, read) in nvidia_listings() {
        let original: Vec<String> = text.split('\n').map(str::to_string).collect();
        // Texture lines and control words most often, any line sometimes.
        let hot: Vec<usize> = (0..original.len())
            .filter(|&i| {
                let l = &original[i];
                ["TEX", "TLD", "TXQ", "TMML", "TXD"]
                    .iter()
                    .any(|m| l.contains(m))
                    || l.trim_start().starts_with("/* 0x")
            })
            .collect();
        let rounds = if name.contains("shared/corpus") {
            40
        } else {
            60
        };
        for _ in 0..rounds {
            let mut lines = original.clone();
            let i = match rng.next() % 4 {
                0..=2 if !hot.is_empty() => hot[(rng.next() % hot.len() as u64) as usize],
                _ => (rng.next() % lines.len() as u64) as usize,
            };
            let kind = rng.next() % 8;
            mutate_nvidia_line(&mut lines, i, kind, &mut rng);
            let mutated = joined_with_line_ends(&lines, &mut rng);
            let what = format!("{name} line {} mutation {kind}", i + 1);
            tally.count(check_transcode(Isa::Nvidia, &what, mutated.as_bytes(), read) > 0);
        }
    }
    tally.assert_both(50);
}

/// The listing `disasm` prints for `words` (bundles of three, phases `.T`, `.P` and none in
/// turn) read as `read` says.
fn disasm_listing(words: &[u64], read: ReadOptions) -> String {
    let bytes = bundles(words, |b| control(b as u64 % 3));
    let mut out = Vec::new();
    let r = stream::disasm_with(Isa::Nvidia, &mut Cursor::new(&bytes), read, &mut out);
    streamed(r, out).expect("disasm prints every word that decodes")
}

/// Listings as `disasm` prints streams of distinct random words, for every SM (texture
/// lines the stream takes without parsing their text: it prints the words' text): whole
/// listings of words accepted alone, and short ones of any words that decode (some of which
/// lift refuses: the same error at the same line).
#[test]
fn listings_of_distinct_random_words_stream_as_the_whole_program_path() {
    let mut rng = Rng(0x1157_0000_d157_0001);
    let mut tally = Tally::default();
    for sm in texlate::isa::nvidia::Sm::ALL {
        let read = ReadOptions {
            sm,
            ..ReadOptions::default()
        };
        let words = accepted_words_on(&mut rng, 900, read);
        let listing = disasm_listing(&words, read);
        assert_eq!(
            check_transcode(Isa::Nvidia, &format!("{sm}"), listing.as_bytes(), read),
            2,
            "{sm}"
        );
        // Words that decode (`disasm` prints them), which the whole path refuses or writes
        // back unchanged; eight a listing, so that both outcomes are common.
        let decodes = |w: &u64| {
            let bytes = bundles(&[*w], |_| control(2));
            texlate::decode_with(Isa::Nvidia, &bytes, read).is_ok_and(|p| {
                texlate::encode(Isa::Nvidia, &p, Form::Binary).map_or(true, |b| b == bytes)
            })
        };
        for round in 0..40 {
            let words: Vec<u64> = std::iter::repeat_with(|| form_word(&mut rng))
                .filter(decodes)
                .take(8)
                .collect();
            let listing = disasm_listing(&words, read);
            let name = format!("{sm} round {round}");
            tally.count(check_transcode(Isa::Nvidia, &name, listing.as_bytes(), read) > 0);
        }
    }
    tally.assert_both(20);
}

/// One random change to the instruction text of a texture line as `disasm` prints it
/// (`        /*0008*/                   TEXS.P R6, … ;   /* 0x… */`), its encoding comment
/// kept: a register, a number, the phase, a modifier, white space, the case, the guard, or
/// another line's text. `None` for a line without such a text.
fn mutate_tex_text(line: &str, other: &str, rng: &mut Rng) -> Option<String> {
    let text_of = |l: &str| {
        let start = l.find("*/")? + 2;
        let start = start + l[start..].find(|c: char| c != ' ')?;
        Some((start, start + l[start..].find(" ;")?))
    };
    let (start, end) = text_of(line)?;
    let text = &line[start..end];
    let pick = |rng: &mut Rng, from: &[&'static str]| from[rng.below(from.len())];
    // A token's span in `text`.
    let tokens: Vec<(usize, &str)> = text
        .match_indices(|c: char| c.is_ascii_alphanumeric())
        .collect();
    let new = match rng.next() % 9 {
        0 | 1 => {
            // A register or number one more, one less, RZ, or spelled otherwise.
            let words: Vec<(usize, &str)> = text
                .split(", ")
                .scan(0, |at, w| {
                    let here = *at;
                    *at += w.len() + 2;
                    Some((here, w))
                })
                .collect();
            let (at, w) = words[rng.below(words.len())];
            let w = w.rsplit(' ').next().unwrap_or(w);
            let at = at + text[at..].find(w).unwrap_or(0);
            let new = match (w.strip_prefix('R'), w.strip_prefix("0x")) {
                (Some(n), _) => match n.parse::<u32>() {
                    Ok(n) => pick(rng, &["R{}", "R0{}", "RZ", "r{}"])
                        .replace("{}", &(n + rng.next() as u32 % 3).to_string()),
                    Err(_) => pick(rng, &["R0", "R254", "R255"]).to_string(),
                },
                (_, Some(h)) => pick(rng, &["0x{}", "0X{}", "0x0{}", "0x{}0", "{}"])
                    .replace("{}", &h.to_uppercase()),
                _ => pick(rng, &["2D", "3D", "RGBA", "R", "ARRAY_2D", "CUBE", "0xf"]).to_string(),
            };
            format!("{}{new}{}", &text[..at], &text[at + w.len()..])
        }
        2 => {
            let new = pick(rng, &[".P ", ".T ", " ", ".P.P ", ".T.P "]);
            let cut = text.find(' ').unwrap_or(text.len());
            let (head, tail) = text.split_at(cut);
            let head = head
                .strip_suffix(".P")
                .or_else(|| head.strip_suffix(".T"))
                .unwrap_or(head);
            format!("{head}{}{}", new.trim_end(), tail)
        }
        3 => {
            // A modifier inserted after the mnemonic's first part, or one dropped.
            let dots: Vec<usize> = text.match_indices('.').map(|(i, _)| i).collect();
            if !dots.is_empty() && rng.next() % 2 == 0 {
                let at = dots[rng.below(dots.len())];
                let end = text[at + 1..]
                    .find(['.', ' '])
                    .map_or(text.len(), |e| at + 1 + e);
                format!("{}{}", &text[..at], &text[end..])
            } else {
                let m = pick(
                    rng,
                    &[".B", ".LZ", ".NODEP", ".NDV", ".DC", ".AOFFI", ".LL", ".R"],
                );
                let at = text.find(['.', ' ']).unwrap_or(text.len());
                format!("{}{m}{}", &text[..at], &text[at..])
            }
        }
        4 => {
            // White space the parser reads past (an extra space, a tab) or not (none).
            let spaces: Vec<usize> = text.match_indices(' ').map(|(i, _)| i).collect();
            let at = spaces[rng.below(spaces.len())];
            let ws = pick(rng, &["  ", "\t", " \t", ""]);
            format!("{}{ws}{}", &text[..at], &text[at + 1..])
        }
        5 => text_of(other).map_or(text.to_string(), |(s, e)| other[s..e].to_string()),
        6 => {
            let (at, t) = tokens[rng.below(tokens.len())];
            format!(
                "{}{}{}",
                &text[..at],
                t.to_lowercase(),
                &text[at + t.len()..]
            )
        }
        7 => {
            let guard = pick(rng, &["@PT ", "@!PT ", "@P0 ", "@!P6 ", "@P7 ", "@ "]);
            match text.strip_prefix('@') {
                Some(rest) => format!("{guard}{}", rest.split_once(' ')?.1),
                None => format!("{guard}{text}"),
            }
        }
        _ => {
            // Blank after the text (the gap before ` ;`), or text after it.
            let tail = pick(rng, &[" ", "\t", ", R0", " R0", ","]);
            format!("{text}{tail}")
        }
    };
    Some(format!("{}{new}{}", &line[..start], &line[end..]))
}

/// Listings of random accepted words with the instruction text of some texture lines
/// changed and their encoding comments kept (the stream's comparison with the printed text
/// fails, and the line is parsed): the stream writes what parsing and printing write, or
/// refuses alike.
#[test]
fn listings_with_texts_unlike_their_words_stream_as_the_whole_program_path() {
    let mut rng = Rng(0x7e47_0000_0000_0002);
    let read = ReadOptions::default();
    let words = accepted_words(&mut rng, 1800);
    let mut tally = Tally::default();
    let mut changed = 0;
    for (round, words) in words.chunks(30).enumerate() {
        let listing = disasm_listing(words, read);
        let mut lines: Vec<String> = listing.split('\n').map(str::to_string).collect();
        for _ in 0..1 + rng.below(3) {
            let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
            if let Some(new) = mutate_tex_text(&lines[i], &lines[j].clone(), &mut rng) {
                changed += usize::from(new != lines[i]);
                lines[i] = new;
            }
        }
        let mutated = lines.join("\n");
        let name = format!("round {round}");
        tally.count(check_transcode(Isa::Nvidia, &name, mutated.as_bytes(), read) > 0);
    }
    tally.assert_both(10);
    assert!(changed > 60, "{changed} lines changed");
}

/// One random change to the layout of a listing line as `disasm` prints it, its instruction
/// text kept: the white space before or after the address, the address itself, the gap
/// before the `;`, the padding before the encoding comment (spaces, tabs, other ASCII and
/// Unicode white space, or none), the comment's digits, what follows it, the terminator.
fn mutate_layout(line: &str, rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, from: &[&'static str]| from[rng.below(from.len())];
    let Some(col) = line.rfind("/* 0x") else {
        return line.to_string();
    };
    let (head, comment) = line.split_at(col);
    let blanks = [
        "", " ", "  ", "\t", " \t ", "\u{b}", "\u{c}", "\r", "\u{a0}", "\u{3000}", "\u{85}", "x",
    ];
    match rng.below(7) {
        // The padding before the comment.
        0 => format!("{}{}{comment}", head.trim_end(), pick(rng, &blanks)),
        // White space before the address or the instruction.
        1 => match head.find("*/") {
            Some(end) => {
                let (lead, rest) = head.split_at(end + 2);
                let (ws, rest) = (pick(rng, &blanks), rest.trim_start());
                let lead = lead.trim_start();
                format!("{}{lead}{ws}{rest}{comment}", pick(rng, &blanks))
            }
            None => format!("{}{}", pick(rng, &blanks), line.trim_start()),
        },
        // The address: longer, empty, not hex, unclosed, a dual-issue `{`, or closed on
        // the comment's `/`.
        2 => {
            let new = pick(
                rng,
                &[
                    "/*00000000000000008*/",
                    "/*0000000000000008*/",
                    "/**/",
                    "/*0x08*/",
                    "/*0008*",
                    "/*0008*/ {",
                    "/*0008*/{",
                    "{ /*0008*/",
                ],
            );
            if rng.below(8) == 0 {
                return format!("        /*0008*{comment}");
            }
            match (head.find("/*"), head.find("*/")) {
                (Some(a), Some(b)) if a < b => {
                    format!("{}{new}{}{comment}", &head[..a], &head[b + 2..])
                }
                _ => line.to_string(),
            }
        }
        // The gap before the `;`, or the `;` itself.
        3 => match head.rfind(" ;") {
            Some(semi) => {
                let gap = pick(rng, &["", "  ", "\t", "\u{a0}", "\u{3000}", ";", " }", ""]);
                let term = pick(rng, &[";", ";", "", ";;", "}"]);
                format!("{}{gap}{term}{}{comment}", &head[..semi], &head[semi + 2..])
            }
            None => line.to_string(),
        },
        // The comment's digits in upper case (some or all), or one not a digit.
        4 => {
            let digits = &comment[5..21];
            let new = match rng.below(3) {
                0 => digits.to_uppercase(),
                1 => format!("{}{}", &digits[..8], digits[8..].to_uppercase()),
                _ => format!("{}g{}", &digits[..3], &digits[4..]),
            };
            format!("{head}/* 0x{new}{}", &comment[21..])
        }
        // Something after the comment.
        5 => format!("{line}{}", pick(rng, &blanks)),
        // The line cut inside its comment.
        _ => line[..line.len() - 1 - rng.below(4)].to_string(),
    }
}

/// Listings of random accepted words (longer than the stream's read chunk, so that lines
/// straddle chunks), with some lines laid out unlike `disasm`'s (white space, addresses,
/// terminators, encoding comments: [`mutate_layout`]) and random line ends: the stream,
/// which takes `disasm`'s lines by their bytes, writes what parsing and printing write, or
/// refuses alike.
#[test]
fn listings_laid_out_oddly_stream_as_the_whole_program_path() {
    let mut rng = Rng(0x1a70_0000_0dd0_0001);
    let read = ReadOptions::default();
    let words = accepted_words(&mut rng, 2400);
    let mut tally = Tally::default();
    let mut changed = 0;
    for (round, words) in words.chunks(800).enumerate() {
        let listing = disasm_listing(words, read);
        assert!(listing.len() > 1 << 16, "{} bytes", listing.len());
        for _ in 0..16 {
            let mut lines: Vec<String> = listing.split('\n').map(str::to_string).collect();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(lines.len());
                let new = mutate_layout(&lines[i], &mut rng);
                changed += usize::from(new != lines[i]);
                lines[i] = new;
            }
            let mutated = joined_with_line_ends(&lines, &mut rng);
            let name = format!("round {round}");
            tally.count(check_transcode(Isa::Nvidia, &name, mutated.as_bytes(), read) > 0);
            // Read a few bytes at a time, the stream writes the same.
            let trickled = |at_most: usize| {
                let mut input = Trickle {
                    inner: Cursor::new(mutated.as_bytes()),
                    at_most,
                };
                let mut out = Vec::new();
                let r = stream::transcode(Isa::Nvidia, &mut input, read, Form::Text, &mut out);
                streamed(r, out)
            };
            assert_eq!(trickled(1 + rng.below(200)), trickled(usize::MAX), "{name}");
        }
    }
    tally.assert_both(5);
    assert!(changed > 60, "{changed} lines changed");
}

/// An input whose reads give at most `at_most` bytes.
struct Trickle<R> {
    inner: R,
    at_most: usize,
}

impl<R: std::io::Read> std::io::Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.at_most);
        self.inner.read(&mut buf[..n])
    }
}

impl<R: std::io::Seek> std::io::Seek for Trickle<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// A bundle whose control word and texture instructions are far apart (more output than
/// the stream holds back: it reads ahead to settle the control word, then reads on), with
/// the listing accepted, refused after the gap, and refused inside it.
#[test]
fn nvidia_listing_with_a_bundle_split_by_many_lines_streams_as_the_whole_program_path() {
    let text = fs::read_to_string("tests/cases/nvidia/tex_predicated.sm_50.sass").unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The control word of the first texture instruction's bundle.
    let tex = lines.iter().position(|l| l.contains("TEXS")).unwrap();
    let ctrl = lines[..tex]
        .iter()
        .rposition(|l| l.trim_start().starts_with("/* 0x"))
        .expect("a control word");
    let gap: String = (0..40_000)
        .map(|k| format!("        // {k:0>60}\n"))
        .collect();
    let split = |after_gap: &str| {
        let mut s = String::new();
        for (k, l) in lines.iter().enumerate() {
            s.push_str(l);
            s.push('\n');
            if k == ctrl {
                s.push_str(&gap);
                s.push_str(after_gap);
            }
        }
        s
    };
    let accepted = split("");
    assert!(accepted.len() > 2 << 20);
    let before_gap = texlate::decode(Isa::Nvidia, accepted.as_bytes()).unwrap();
    assert!(before_gap.tex_instrs().count() > 0);
    assert!(check_transcode_to(
        Isa::Nvidia,
        "split bundle",
        accepted.as_bytes(),
        Form::Text
    ));
    // The phases written into the control word across the gap: a texture line's phase
    // changed shows in the control comment before the gap.
    let flipped = accepted.replacen("TEXS.P", "TEXS.T", 1);
    assert!(check_transcode_to(
        Isa::Nvidia,
        "split bundle, phase",
        flipped.as_bytes(),
        Form::Text
    ));
    let bad = split("        /*0008*/                   TEXS.Q R6, R4, R4, R5, 0x6e, 2D, RGBA ;\n");
    assert!(!check_transcode_to(
        Isa::Nvidia,
        "refused after the gap",
        bad.as_bytes(),
        Form::Text
    ));
    let mut inside = accepted.clone();
    let middle = inside.len() / 2;
    let at = middle + inside[middle..].find('\n').unwrap() + 1;
    inside.insert_str(at, "    BOGUS.X R1, R2 ;\n");
    assert!(!check_transcode_to(
        Isa::Nvidia,
        "refused in the gap",
        inside.as_bytes(),
        Form::Text
    ));
}

/// The sampler ops of `mappings/visa.toml` (opcode, sub-op, how many parameters) and the
/// code of type `uw` (IGC's aoffimmi type).
fn visa_ops() -> (Vec<(u8, u8, usize)>, u8) {
    let text = fs::read_to_string("mappings/visa.toml").unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let field = |o: &toml::Value, k: &str| o[k].as_integer().unwrap() as u8;
    let ops = table["op"].as_array().unwrap().iter().map(|o| {
        let params = o["params"].as_array().unwrap().len();
        (field(o, "opcode"), field(o, "subop"), params)
    });
    let types = table["type"].as_array().unwrap();
    let uw = types
        .iter()
        .find(|t| t["name"].as_str() == Some("uw"))
        .unwrap();
    (ops.collect(), field(uw, "code"))
}

/// A random vISA sampler instruction of one of `ops`, laid out as `binary` encodes it
/// (research §6), each field now and then out of range: a sub-op no op has, NumParams (or
/// 0x70's operands) more or fewer than the op takes, reserved bits, a variable aoffimmi at an
/// element that does not lift back, an unaligned offset.
fn random_visa_instruction(rng: &mut Rng, (ops, uw): &(Vec<(u8, u8, usize)>, u8)) -> Vec<u8> {
    let (opcode, subop, params) = ops[below(rng, ops.len() as u64) as usize];
    let odd = |rng: &mut Rng| below(rng, 20) == 0;
    let mut b = vec![opcode];
    let subop = if odd(rng) {
        below(rng, 256) as u8
    } else {
        subop
    };
    let modifiers = if odd(rng) { below(rng, 8) << 8 } else { 0 };
    match opcode {
        0x4b => {}
        0x70 => b.push(subop),
        _ => b.extend((modifiers as u16 | u16::from(subop)).to_le_bytes()),
    }
    let exec = if odd(rng) {
        below(rng, 256)
    } else {
        3 + (below(rng, 16) << 4)
    };
    b.push(exec as u8);
    if opcode != 0x70 {
        let pred = match below(rng, 8) {
            0 => below(rng, 1 << 16),
            1 | 2 => 1 + below(rng, 8) + (below(rng, 3) << 13),
            _ => 0,
        };
        b.extend((pred as u16).to_le_bytes());
    }
    let channels = match opcode {
        _ if odd(rng) => below(rng, 256),
        0x6f => below(rng, 4),
        _ => 1 + below(rng, 15),
    };
    b.push(channels as u8);
    if matches!(opcode, 0x6d..=0x6f) {
        if below(rng, 3) == 0 {
            b.push(0);
            b.extend((32 + below(rng, 8) as u32).to_le_bytes());
            b.push(below(rng, 4) as u8);
            b.push(below(rng, 20) as u8);
            let region = if odd(rng) {
                below(rng, 1 << 16)
            } else {
                0x0121
            };
            b.extend((region as u16).to_le_bytes());
        } else {
            b.push(if odd(rng) { below(rng, 256) as u8 } else { 5 });
            b.push(if odd(rng) { below(rng, 16) as u8 } else { *uw });
            let value = if odd(rng) {
                below(rng, 1 << 32)
            } else {
                below(rng, 0x1000)
            };
            b.extend((value as u32).to_le_bytes());
        }
    }
    if matches!(opcode, 0x6d | 0x6f) {
        b.push(below(rng, 4) as u8);
    }
    b.push(6 + below(rng, 4) as u8);
    let raw = |rng: &mut Rng, b: &mut Vec<u8>| {
        b.extend((below(rng, 64) as u32).to_le_bytes());
        let offset = if odd(rng) {
            below(rng, 1 << 16)
        } else {
            below(rng, 8) * 32
        };
        b.extend((offset as u16).to_le_bytes());
    };
    let count = match opcode {
        _ if odd(rng) => below(rng, 20) as usize,
        0x6d..=0x6f => 1 + below(rng, params as u64) as usize,
        _ => params,
    };
    if matches!(opcode, 0x6d..=0x6f) {
        raw(rng, &mut b);
        b.push(count as u8);
    }
    for _ in 0..count {
        raw(rng, &mut b);
    }
    if !matches!(opcode, 0x6d..=0x6f) {
        raw(rng, &mut b);
    }
    b
}

/// A random number below `n`.
fn below(rng: &mut Rng, n: u64) -> u64 {
    rng.next() % n
}

/// Streams of random instructions (some refused: the error of the first refused one and its
/// offset; some that lift back changed: re-encoded between copied runs) transcode to binary
/// and disassemble as the whole program does; and so does a stream of several windows of
/// accepted instructions with one refused near its end.
#[test]
fn random_visa_instruction_streams_stream_as_the_whole_program_path() {
    let ops = visa_ops();
    let mut rng = Rng(0x715a_57e4);
    let mut tally = Tally::default();
    let mut accepted = Vec::new();
    for k in 0..3000 {
        let count = 1 + rng.next() % 4;
        let parts: Vec<Vec<u8>> = (0..count)
            .map(|_| random_visa_instruction(&mut rng, &ops))
            .collect();
        let bytes = parts.concat();
        let name = format!("random stream {k}");
        tally.count(check_transcode_to(Isa::Visa, &name, &bytes, Form::Binary));
        check_disasm(Isa::Visa, &name, &bytes);
        // The instructions accepted alone, for the long stream.
        for p in parts {
            if texlate::decode(Isa::Visa, &p).is_ok() {
                accepted.push(p);
            }
        }
    }
    tally.assert_both(300);
    let mut long: Vec<u8> = accepted
        .iter()
        .cycle()
        .take(20_000)
        .flatten()
        .copied()
        .collect();
    assert!(long.len() > 1 << 18, "{}", long.len());
    assert!(check_transcode_to(Isa::Visa, "long", &long, Form::Binary));
    let refused = (0..200)
        .map(|_| random_visa_instruction(&mut rng, &ops))
        .find(|p| texlate::decode(Isa::Visa, p).is_err())
        .expect("a refused instruction");
    let at = long.len() - accepted[0].len();
    long.splice(at..at, refused);
    assert!(!check_transcode_to(
        Isa::Visa,
        "long, refused near its end",
        &long,
        Form::Binary
    ));
}

/// The type names of `mappings/visa.toml`.
fn visa_type_names() -> Vec<String> {
    let text = fs::read_to_string("mappings/visa.toml").unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let types = table["type"].as_array().unwrap();
    types
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// A sampler line: a random instruction (one `random_visa_instruction` the whole path
/// decodes) as the whole path prints it, then respelled at random the ways IGC's assembler
/// also reads (indentation, spacing, case, offset expressions, hex case, a `//` comment in
/// IGC's column or not, trailing whitespace, a non-ASCII space), and now and then broken by
/// [`mutate_visa_line`].
fn random_visa_sampler_line(rng: &mut Rng, ops: &(Vec<(u8, u8, usize)>, u8)) -> Vec<String> {
    let mut line = loop {
        let bytes = random_visa_instruction(rng, ops);
        if let Ok(p) = texlate::decode(Isa::Visa, &bytes) {
            let text = codec(Isa::Visa).print_text(&p).unwrap();
            break text.trim_end().to_string();
        }
    };
    let spaces = ["  ", "\t", " \t", "\u{a0}", "   "];
    let pick = |rng: &mut Rng, n: usize| below(rng, n as u64) as usize;
    for _ in 0..below(rng, 4) {
        line = match below(rng, 9) {
            0 => format!("{}{line}", ["    ", "\t", "  ", "\u{2003}"][pick(rng, 4)]),
            1 => {
                let gaps: Vec<usize> = line.match_indices(' ').map(|(i, _)| i).collect();
                let at = gaps[pick(rng, gaps.len())];
                format!("{}{}{}", &line[..at], spaces[pick(rng, 5)], &line[at + 1..])
            }
            2 => match line.split_once('.') {
                Some((m, rest)) => format!("{}.{rest}", m.to_ascii_uppercase()),
                None => line,
            },
            3 => line
                .replacen(".64", ".(2*32)", 1)
                .replacen(".32", ".(32)", 1),
            4 => line.replacen("0x", "0X", 1).replacen(":uw", ":UW", 1),
            5 => {
                // IGC's comment column (80): padded there, or one space, or a tab.
                let pad = 80usize.saturating_sub(line.chars().count()) + 1;
                let gap = [" ".repeat(pad), " ".into(), "\t".into()][pick(rng, 3)].clone();
                format!("{line}{gap}/// ${}", below(rng, 99))
            }
            6 => format!("{line}{}", [" ", "\t", "  \t"][pick(rng, 3)]),
            7 => {
                let mut lines = vec![line];
                mutate_visa_line(&mut lines, 0, below(rng, 8), rng);
                return lines;
            }
            _ => line.to_ascii_lowercase(),
        };
    }
    vec![line]
}

/// Programs of random sampler lines, with declarations of random types for the names the
/// lines use (and sometimes none: IGC's own names), streamed text → text as the whole path
/// reads and prints them: the same bytes, or the same error. Lines the stream copies
/// (`accept_line`: they print back as read) and lines it lifts and prints (a typed
/// `load_2dms_w` form, a variable aoffimmi past its row, a non-canonical spelling) and
/// refused lines all occur.
#[test]
fn random_visa_sampler_lines_stream_as_the_whole_program_path() {
    let ops = visa_ops();
    let types = visa_type_names();
    let mut rng = Rng(0x5a4b_1e57);
    let mut tally = Tally::default();
    for k in 0..1500 {
        let mut lines = vec![".version 4.1".to_string(), ".kernel \"k\"".to_string()];
        if below(&mut rng, 5) != 0 {
            // Declared in index order: `V0040` is variable 40, `S2` sampler 2, `T7`
            // surface 7, `P3` predicate 3, as IGC's own names are.
            for v in 32..64 {
                let ty = match below(&mut rng, types.len() as u64 + 3) as usize {
                    i if i < types.len() => format!(" type={}", types[i]),
                    _ => String::new(),
                };
                lines.push(format!(
                    ".decl V{v:04} v_type=G{ty} num_elts=64 align=hword"
                ));
            }
            lines.extend((0..4).map(|s| format!(".decl S{s} v_type=S num_elts=1")));
            lines.extend((6..10).map(|t| format!(".decl T{t} v_type=T num_elts=1")));
            lines.extend((1..9).map(|p| format!(".decl P{p} v_type=P num_elts=16")));
        }
        for _ in 0..1 + below(&mut rng, 4) {
            lines.extend(random_visa_sampler_line(&mut rng, &ops));
        }
        let text = joined_with_line_ends(&lines, &mut rng);
        let name = format!("random sampler lines {k}:\n{text}");
        for read in VISA_READS {
            tally.count(check_transcode(Isa::Visa, &name, text.as_bytes(), read) > 0);
        }
    }
    tally.assert_both(300);
}
