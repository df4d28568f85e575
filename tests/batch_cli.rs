//! Batch mode of the command line (`translate … IN... -o OUTDIR`, `disasm … IN... -o OUTDIR`):
//! mixed good and bad inputs, directories, standard input refused, the output directory,
//! name collisions, the `--json` summary and the exit codes.

mod support;

use support::cli::{arg as s, scratch, stderr, texlate, texlate_stdin};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn write(path: &Path, bytes: &[u8]) -> String {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

/// Every file below `dir`, relative, `/`-separated.
fn tree(dir: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                let rel = p.strip_prefix(root).unwrap();
                out.insert(rel.to_str().unwrap().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

const GOOD_A: &str = "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n";
const GOOD_B: &str = "TEX R0, R4, 0x6e, 2D, 0xf\nTLD.LZ R8, R12, 0x6e, 2D, 0xf\n";
/// `9D` is no dimension: a parse error at 1:28.
const BAD_TEXT: &str = "TEXS R6, R4, R4, R5, 0x6e, 9D, RGBA\n";

/// `texlate translate --from nvidia --to dxbc ARGS`.
fn nv_to_dx(args: &[&str]) -> Output {
    texlate(&[&["translate", "--from", "nvidia", "--to", "dxbc"][..], args].concat())
}

/// The single-file run's standard output.
fn single(args: &[&str]) -> Vec<u8> {
    let o = texlate(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o.stdout
}

/// Raw SM50 stream of `text`, as `translate --emit binary` writes it.
fn nvidia_binary(dir: &Path, text: &str) -> Vec<u8> {
    let src = write(&dir.join("tmp-src.sass"), text.as_bytes());
    let out = dir.join("tmp-out.bin");
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        "--emit",
        "binary",
        &src,
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(&src).unwrap();
    bytes
}

#[test]
fn mixed_good_and_bad_files_report_the_bad_and_write_the_good_whole() {
    let dir = scratch("mixed");
    let inputs = dir.join("in");
    let a = write(&inputs.join("a.sass"), GOOD_A.as_bytes());
    let b = write(&inputs.join("b.sass"), GOOD_B.as_bytes());
    let bad = write(&inputs.join("bad.sass"), BAD_TEXT.as_bytes());
    // 12 bytes: one whole word and four left over, a decode error at byte offset 8.
    let torn = write(&inputs.join("torn.bin"), &[0xff; 12]);
    let out = dir.join("out");
    for (to, ext) in [("dxbc", "asm"), ("visa", "visaasm"), ("nvidia", "sass")] {
        let o = texlate(&[
            "translate",
            "--from",
            "nvidia",
            "--to",
            to,
            &a,
            &bad,
            &b,
            &torn,
            "-o",
            s(&out.join(to)),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "a rejected input exits 1: {err}");
        assert!(
            err.contains(&format!("--> {bad}:1:28")) && err.contains("^^"),
            "the bad text is reported with file, line and column: {err}"
        );
        assert!(
            err.contains(&format!("at byte offset 0x8 of {torn}")),
            "the bad binary is reported with its byte offset: {err}"
        );
        assert!(
            err.contains("4 files: 2 written, 2 errors"),
            "the closing summary: {err}"
        );
        assert_eq!(
            tree(&out.join(to)),
            set(&[&format!("a.{ext}"), &format!("b.{ext}")]),
            "the good files only, and no temporary file"
        );
        for (input, stem) in [(&a, "a"), (&b, "b")] {
            assert_eq!(
                std::fs::read(out.join(to).join(format!("{stem}.{ext}"))).unwrap(),
                single(&["translate", "--from", "nvidia", "--to", to, input]),
                "{stem}.{ext} is byte-identical to the single-file run"
            );
        }
    }
}

#[test]
fn binary_outputs_and_disasm_batches_match_single_runs() {
    let dir = scratch("binary");
    let a = write(&dir.join("in/a.sass"), GOOD_A.as_bytes());
    let b = write(&dir.join("in/b.sass"), GOOD_B.as_bytes());
    let out = dir.join("dx");
    let o = nv_to_dx(&["--emit", "binary", &a, &b, "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&out), set(&["a.dxbc", "b.dxbc"]), "DXBC containers");
    let single_out = dir.join("single.dxbc");
    let o = nv_to_dx(&["--emit", "binary", &b, "-o", s(&single_out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(out.join("b.dxbc")).unwrap(),
        std::fs::read(&single_out).unwrap()
    );

    // disasm: two DXBC containers, an NVIDIA-free text file among them.
    let text = write(&out.join("notes.dxbc"), b"not a container\n");
    let listings = dir.join("listings");
    let o = texlate(&["disasm", "--isa", "dxbc", s(&out), "-o", s(&listings)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("this file is text, not dxbc binary") && err.contains(&text),
        "{err}"
    );
    assert_eq!(tree(&listings), set(&["a.asm", "b.asm"]));
    for stem in ["a", "b"] {
        let input = out.join(format!("{stem}.dxbc"));
        assert_eq!(
            std::fs::read(listings.join(format!("{stem}.asm"))).unwrap(),
            single(&["disasm", "--isa", "dxbc", s(&input)]),
        );
    }

    // NVIDIA words: a raw stream in, its listing out.
    let words = nvidia_binary(&dir, GOOD_B);
    let stream = write(&dir.join("nv/k.bin"), &words);
    // One input and -o naming an existing directory: a batch of one.
    std::fs::create_dir_all(dir.join("nvout")).unwrap();
    let o = texlate(&[
        "disasm",
        "--isa",
        "nvidia",
        &stream,
        "-o",
        s(&dir.join("nvout")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.join("nvout/k.sass")).unwrap(),
        single(&["disasm", "--isa", "nvidia", &stream])
    );

    // A stream cut mid-word (streamed from its file: it holds zero bytes) fails at its byte
    // offset; the others are written.
    let mut cut = words.clone();
    cut.extend_from_slice(&[0, 0, 0]);
    let cut_path = write(&dir.join("nv/cut.bin"), &cut);
    let o = texlate(&[
        "disasm",
        "--isa",
        "nvidia",
        s(&dir.join("nv")),
        "-o",
        s(&dir.join("nvout2")),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("at byte offset {:#x} of {cut_path}", words.len())),
        "{err}"
    );
    assert_eq!(tree(&dir.join("nvout2")), set(&["k.sass"]));
}

#[test]
fn a_directory_gives_its_isas_files_and_keeps_subdirectories() {
    let dir = scratch("dir");
    let src = dir.join("src");
    write(&src.join("top.sass"), GOOD_A.as_bytes());
    write(&src.join("UPPER.SASS"), GOOD_A.as_bytes());
    write(&src.join("k1/one.sass"), GOOD_B.as_bytes());
    write(&src.join("k1/deep/two.sass"), GOOD_A.as_bytes());
    write(&src.join("k2/one.sass"), GOOD_A.as_bytes());
    write(&src.join("k2/words.bin"), &nvidia_binary(&dir, GOOD_B));
    // Not NVIDIA inputs by name: left alone.
    write(&src.join("README.txt"), b"notes\n");
    write(&src.join("k1/shader.asm"), b"ps_5_0\n");
    let out = dir.join("out");
    let o = texlate(&[
        "--json",
        "translate",
        "--from",
        "nvidia",
        "--to",
        "visa",
        s(&src),
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        tree(&out),
        set(&[
            "UPPER.visaasm",
            "top.visaasm",
            "k1/one.visaasm",
            "k1/deep/two.visaasm",
            "k2/one.visaasm",
            "k2/words.visaasm",
        ]),
        "one output per NVIDIA file, in its subdirectory; the rest left alone"
    );
    let summary: Value = serde_json::from_slice(&o.stdout).expect("the summary is JSON");
    assert_eq!(summary["files"], 6);
    // Sorted by path within the directory.
    let inputs: Vec<&str> = summary["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["input"].as_str().unwrap())
        .collect();
    let mut sorted = inputs.clone();
    sorted.sort();
    assert_eq!(inputs, sorted);
    assert_eq!(
        std::fs::read(out.join("k2/words.visaasm")).unwrap(),
        single(&[
            "translate",
            "--from",
            "nvidia",
            "--to",
            "visa",
            s(&src.join("k2/words.bin"))
        ])
    );

    // A directory without NVIDIA files: nothing to do is an error, and nothing is created.
    let empty = dir.join("empty");
    write(&empty.join("x.txt"), b"x\n");
    let o = texlate(&[
        "disasm",
        "--isa",
        "nvidia",
        s(&empty),
        "-o",
        s(&dir.join("none")),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no input files: no *.bin, *.cubin file in"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("none").exists());
}

#[test]
fn standard_input_is_refused_in_a_batch() {
    let dir = scratch("stdin");
    let a = write(&dir.join("a.sass"), GOOD_A.as_bytes());
    let out = dir.join("out");
    for args in [
        vec![
            "translate",
            "--from",
            "nvidia",
            "--to",
            "dxbc",
            &a,
            "-",
            "-o",
            s(&out),
        ],
        vec!["disasm", "--isa", "nvidia", "-", &a, "-o", s(&out)],
        // `-o` naming a directory makes a batch of a lone `-`.
        vec![
            "translate",
            "--from",
            "nvidia",
            "--to",
            "dxbc",
            "-",
            "-o",
            s(&dir),
        ],
        vec!["translate", "--from", "nvidia", "--to", "dxbc", &a, "-"],
    ] {
        let o = texlate(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: a usage error: {err}");
        assert!(
            err.contains("standard input (`-`) cannot be part of a batch")
                && err.contains("each output is named after its input file"),
            "{args:?}: {err}"
        );
        assert!(!out.exists(), "nothing written");
    }
    assert_eq!(tree(&dir), set(&["a.sass"]));
}

#[test]
fn a_batch_needs_an_output_directory() {
    let dir = scratch("no-o");
    let a = write(&dir.join("a.sass"), GOOD_A.as_bytes());
    let b = write(&dir.join("b.sass"), GOOD_A.as_bytes());
    let o = texlate(&["translate", "--from", "nvidia", "--to", "dxbc", &a, &b]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("give the output directory with -o OUTDIR"));
    assert!(o.stdout.is_empty());
}

#[test]
fn a_missing_output_directory_is_created() {
    let dir = scratch("create");
    let a = write(&dir.join("a.sass"), GOOD_A.as_bytes());
    let b = write(&dir.join("b.sass"), GOOD_B.as_bytes());
    let out = dir.join("new/nested/out");
    let o = nv_to_dx(&[&a, &b, "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&out), set(&["a.asm", "b.asm"]));
}

#[test]
fn an_output_that_is_a_file_is_an_error_and_nothing_is_written() {
    let dir = scratch("outfile");
    let a = write(&dir.join("in/a.sass"), GOOD_A.as_bytes());
    let b = write(&dir.join("in/b.sass"), GOOD_A.as_bytes());
    let target = write(&dir.join("target.txt"), b"keep me\n");
    for args in [
        vec![
            "translate",
            "--from",
            "nvidia",
            "--to",
            "dxbc",
            &a,
            &b,
            "-o",
            &target,
        ],
        vec![
            "translate",
            "--from",
            "nvidia",
            "--to",
            "dxbc",
            s(&dir.join("in")),
            "-o",
            &target,
        ],
    ] {
        let o = texlate(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "an I/O error: {err}");
        assert!(
            err.contains(&format!("the output {target} is not a directory")),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n");
        assert_eq!(
            tree(&dir),
            set(&["in/a.sass", "in/b.sass", "target.txt"]),
            "nothing written"
        );
    }
}

#[test]
fn inputs_sharing_an_output_are_both_refused() {
    let dir = scratch("collide");
    let x1 = write(&dir.join("a/x.sass"), GOOD_A.as_bytes());
    let x2 = write(&dir.join("b/x.sass"), GOOD_B.as_bytes());
    let y = write(&dir.join("a/y.sass"), GOOD_A.as_bytes());
    // The same file twice is one input.
    let out = dir.join("out");
    let o = nv_to_dx(&[&x1, &x2, &y, &y, "-o", s(&out)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{x1} and {x2} would both write")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{x2} and {x1} would both write")),
        "{err}"
    );
    assert!(err.contains("3 files: 1 written, 2 errors"), "{err}");
    assert_eq!(tree(&out), set(&["y.asm"]), "neither x is written");

    // The same stem with another extension of the same ISA collides too.
    write(&dir.join("c/k.sass"), GOOD_A.as_bytes());
    write(&dir.join("c/k.bin"), &nvidia_binary(&dir, GOOD_A));
    let o = nv_to_dx(&[s(&dir.join("c")), "-o", s(&dir.join("out2"))]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!dir.join("out2/k.asm").exists());

    // An output that would overwrite an input of the batch.
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        s(&dir.join("a")),
        "-o",
        s(&dir.join("a")),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("an input of this batch"), "{err}");
    assert_eq!(std::fs::read_to_string(&x1).unwrap(), GOOD_A);
}

/// A file reached through a symbolic link or a hard link is the file itself: taken once, and
/// an output that is a link to an input is refused like the input.
#[cfg(unix)]
#[test]
fn links_to_one_file_are_one_input() {
    let dir = scratch("links");
    let a = write(&dir.join("in/a.sass"), GOOD_A.as_bytes());
    std::os::unix::fs::symlink(&a, dir.join("sym.sass")).unwrap();
    std::fs::hard_link(&a, dir.join("hard.sass")).unwrap();
    let out = dir.join("out");
    let o = nv_to_dx(&[
        &a,
        s(&dir.join("sym.sass")),
        s(&dir.join("hard.sass")),
        "-o",
        s(&out),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("1 file: 1 written, 0 errors"), "{err}");
    assert_eq!(tree(&out), set(&["a.asm"]));

    // An output that is a hard link to an input would overwrite it.
    std::fs::create_dir_all(dir.join("out2")).unwrap();
    std::fs::hard_link(&a, dir.join("out2/a.sass")).unwrap();
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        &a,
        "-o",
        s(&dir.join("out2")),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("an input of this batch"), "{err}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), GOOD_A);
}

#[test]
fn the_json_summary_says_what_happened() {
    let dir = scratch("json");
    let a = write(&dir.join("a.sass"), GOOD_A.as_bytes());
    let b = write(&dir.join("b.sass"), GOOD_B.as_bytes());
    let bad = write(&dir.join("bad.sass"), BAD_TEXT.as_bytes());
    let out = dir.join("out");
    let o = texlate(&[
        "--json",
        "translate",
        "--from",
        "nvidia",
        "--to",
        "dxbc",
        "-j",
        "1",
        &a,
        &bad,
        &b,
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let summary: Value = serde_json::from_slice(&o.stdout).expect("the summary is one JSON object");
    assert_eq!(summary["files"], 3);
    assert_eq!(summary["written"], 2);
    assert_eq!(summary["errors"], 1);
    assert_eq!(summary["threads"], 1, "-j 1");
    // a: one instruction, b: two.
    assert_eq!(summary["instructions"], 3);
    assert_eq!(summary["texture_instructions"], 3);
    assert!(summary["seconds"].as_f64().unwrap() >= 0.0);
    let results = summary["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["input"], a.as_str());
    assert_eq!(results[0]["output"], s(&out.join("a.asm")));
    assert_eq!(results[0]["instructions"], 1);
    assert_eq!(results[0]["error"], Value::Null);
    assert_eq!(results[1]["input"], bad.as_str());
    assert_eq!(results[1]["output"], Value::Null);
    let e = &results[1]["error"];
    assert_eq!(e["kind"], "parse");
    assert_eq!(e["file"], bad.as_str());
    assert_eq!(
        (e["line"].clone(), e["column"].clone()),
        (1.into(), 28.into())
    );
    assert_eq!(results[2]["instructions"], 2);
    // Standard error holds the diagnostic as one JSON line, and nothing else.
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    let d: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(d, *e);
}

#[test]
fn exit_codes_of_a_batch() {
    let dir = scratch("exit");
    let a = write(&dir.join("a.sass"), GOOD_A.as_bytes());
    let bad = write(&dir.join("bad.sass"), BAD_TEXT.as_bytes());
    let missing = dir.join("missing.sass");
    let run = |inputs: &[&str], out: &str| {
        let mut args = vec!["translate", "--from", "nvidia", "--to", "dxbc"];
        args.extend_from_slice(inputs);
        args.extend_from_slice(&["-o", out]);
        texlate(&args)
    };
    let o = run(&[&a, &a], s(&dir.join("o0")));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[&a, &bad], s(&dir.join("o1")));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // An input that cannot be read is an I/O error (3), also beside a rejected one; the
    // good input is written all the same.
    let o = run(&[&a, s(&missing), &bad], s(&dir.join("o3")));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("reading {}", missing.display())));
    assert_eq!(tree(&dir.join("o3")), set(&["a.asm"]));

    // A single input with -o naming a directory is a batch of one.
    std::fs::create_dir_all(dir.join("o4")).unwrap();
    let o = run(&[&a], s(&dir.join("o4")));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(tree(&dir.join("o4")), set(&["a.asm"]));

    let help = String::from_utf8(texlate(&["--help"]).stdout).unwrap();
    for needle in [
        "In a batch",
        "0 when every output was written",
        "3 when any file",
    ] {
        assert!(help.contains(needle), "--help lacks `{needle}`:\n{help}");
    }
    let help = String::from_utf8(texlate(&["translate", "--help"]).stdout).unwrap();
    for needle in [
        "Batch mode",
        "*.sass *.bin *.cubin",
        "text .sass, binary .bin or .cubin",
    ] {
        assert!(
            help.contains(needle),
            "translate --help lacks `{needle}`:\n{help}"
        );
    }
    let readme = include_str!("../README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        readme.contains("In a batch")
            && readme.contains("3 when any file could not be read or written"),
        "README states the batch exit codes"
    );
}

/// README's table of batch file names is rendered from mappings/files.toml.
#[test]
fn readme_file_name_table_matches_the_mappings() {
    let readme = include_str!("../README.md");
    let begin = "<!-- files:begin -->\n";
    let start = readme
        .find(begin)
        .expect("README has the files begin marker")
        + begin.len();
    let stop = readme
        .find("<!-- files:end -->")
        .expect("README has the files end marker");
    assert_eq!(&readme[start..stop], texlate::batch::file_names_markdown());
}

/// Corpus: the 495 DXBC blobs disassembled in one batch, each output byte-identical to the
/// single-file run (sampled: every 33rd blob).
#[test]
fn the_dxbc_corpus_in_one_batch() {
    let Some(blobs) = support::corpus("dxbc/blobs") else {
        return;
    };
    let dir = scratch("corpus-dxbc");
    let o = texlate(&[
        "--json",
        "disasm",
        "--isa",
        "dxbc",
        s(&blobs),
        "-o",
        s(&dir),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let count = std::fs::read_dir(&blobs).unwrap().count();
    assert_eq!(summary["files"], count);
    assert_eq!(summary["written"], count);
    let mut names: Vec<PathBuf> = std::fs::read_dir(&blobs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for blob in names.iter().step_by(33) {
        let stem = blob.file_stem().unwrap().to_str().unwrap();
        assert_eq!(
            std::fs::read(dir.join(format!("{stem}.asm"))).unwrap(),
            single(&["disasm", "--isa", "dxbc", s(blob)]),
            "{stem}"
        );
    }
}

/// Corpus: an IGC dump directory holds `<kernel>.visaasm` and `<kernel>.isa` side by side;
/// `translate` takes the text only (no collision, no container refusals).
#[test]
fn an_igc_dump_directory_translates_its_visaasm() {
    let Some(dumps) = support::corpus("intel/dumps/skl/c01_img2d_sampler") else {
        return;
    };
    let visaasm: Vec<PathBuf> = std::fs::read_dir(&dumps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "visaasm"))
        .collect();
    let dir = scratch("corpus-visa");
    let o = texlate(&[
        "--json",
        "translate",
        "--from",
        "visa",
        "--to",
        "visa",
        s(&dumps),
        "-o",
        s(&dir),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["files"], visaasm.len());
    assert_eq!(summary["written"], visaasm.len());
}

/// Identity translations in a batch stream where single runs do (`batch::open_identity`):
/// every output (its name and bytes) and every refusal (its message and location) is what a
/// single run of the whole-program path writes, for each ISA, text and binary inputs (and a
/// binary cut short), to each form, reading strictly and IGC's way.
#[test]
fn identity_batches_write_what_whole_runs_write() {
    let dir = scratch("identity");
    let cases = [
        (
            "dxbc",
            "tests/cases/dxbc/every_op.asm",
            "asm",
            "dxbc",
            &["text", "binary", "tokens"][..],
        ),
        (
            "nvidia",
            "tests/cases/nvidia/emit_all.sm_50.nvdisasm.txt",
            "sass",
            "bin",
            &["text", "binary"][..],
        ),
        (
            "visa",
            "tests/cases/visa/all_ops.visaasm",
            "visaasm",
            "bin",
            &["text", "binary"][..],
        ),
    ];
    let (mut same_output, mut same_refusal) = (0, 0);
    for (isa, fixture, text_ext, bin_ext, emits) in cases {
        let text = std::fs::read(fixture).unwrap();
        let to_binary = [
            "translate",
            "--from",
            isa,
            "--to",
            isa,
            "--emit",
            "binary",
            "-",
        ];
        let o = texlate_stdin(&to_binary, &text);
        assert!(o.status.success(), "{isa}: {}", stderr(&o));
        let binary = o.stdout;
        let inputs = dir.join(format!("in-{isa}"));
        let cut = &binary[..binary.len() - 3];
        let files: [(String, &[u8]); 3] = [
            (format!("text.{text_ext}"), &text),
            (format!("bin.{bin_ext}"), &binary),
            (format!("cut.{bin_ext}"), cut),
        ];
        for (name, bytes) in &files {
            write(&inputs.join(name), bytes);
        }
        for emit in emits {
            for strict in [&[][..], &["--strict"][..]] {
                let args = [
                    &["translate", "--from", isa, "--to", isa, "--emit", emit][..],
                    strict,
                ]
                .concat();
                let out = dir.join(format!("out-{isa}-{emit}-{}", strict.len()));
                let batch = texlate(&[&args[..], &[s(&inputs), "-o", s(&out)][..]].concat());
                let batch_err = stderr(&batch);
                let mut written = BTreeSet::new();
                for (name, bytes) in &files {
                    let single = texlate_stdin(&[&args[..], &["-"][..]].concat(), bytes);
                    let stem = name.split('.').next().unwrap();
                    if single.status.success() {
                        let found: Vec<String> = tree(&out)
                            .into_iter()
                            .filter(|f| f.split('.').next() == Some(stem))
                            .collect();
                        assert_eq!(found.len(), 1, "{isa} {emit} {name}: {found:?} {batch_err}");
                        assert_eq!(
                            std::fs::read(out.join(&found[0])).unwrap(),
                            single.stdout,
                            "{isa} {emit} {strict:?} {name}"
                        );
                        written.insert(found[0].clone());
                        same_output += 1;
                    } else {
                        // The whole path's message, located in the file instead of <stdin>.
                        let message = stderr(&single);
                        let first = message.lines().next().unwrap();
                        let path = inputs.join(name);
                        let expected = first.replace("<stdin>", s(&path));
                        assert!(
                            batch_err.contains(&expected),
                            "{isa} {emit} {name}:\n{expected}\n{batch_err}"
                        );
                        same_refusal += 1;
                    }
                }
                assert_eq!(tree(&out), written, "{isa} {emit}: nothing else written");
            }
        }
    }
    // Every text and whole binary translates; every cut binary is refused (14 batches).
    assert_eq!((same_output, same_refusal), (28, 14));
}

/// A batch run again over the same inputs leaves each output that already holds its bytes in
/// place (the same file) with its modification time set to now, as a rewrite would; an
/// output that differs is replaced whole.
#[test]
fn unchanged_outputs_are_touched_not_rewritten() {
    use std::os::unix::fs::MetadataExt as _;
    use std::time::{Duration, SystemTime};
    let dir = scratch("unchanged");
    let a = write(&dir.join("in/a.sass"), GOOD_A.as_bytes());
    let b = write(&dir.join("in/b.sass"), GOOD_B.as_bytes());
    let out = dir.join("out");
    let run = || {
        let o = nv_to_dx(&[&a, &b, "-o", s(&out)]);
        assert!(o.status.success(), "{}", stderr(&o));
    };
    run();
    let (a_out, b_out) = (out.join("a.asm"), out.join("b.asm"));
    let expected_b = std::fs::read(&b_out).unwrap();
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    for p in [&a_out, &b_out] {
        let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
        f.set_modified(long_ago).unwrap();
    }
    // b's output edited by hand: other bytes, same length.
    let mut edited = expected_b.clone();
    edited[0] ^= 0x20;
    std::fs::write(&b_out, &edited).unwrap();
    let (a_ino, b_ino) = (
        std::fs::metadata(&a_out).unwrap().ino(),
        std::fs::metadata(&b_out).unwrap().ino(),
    );
    let before = SystemTime::now() - Duration::from_secs(60);
    run();
    let (a_meta, b_meta) = (
        std::fs::metadata(&a_out).unwrap(),
        std::fs::metadata(&b_out).unwrap(),
    );
    assert_eq!(
        a_meta.ino(),
        a_ino,
        "an unchanged output stays the same file"
    );
    assert!(a_meta.modified().unwrap() > before, "and is touched");
    assert_ne!(b_meta.ino(), b_ino, "a changed output is replaced");
    assert_eq!(std::fs::read(&b_out).unwrap(), expected_b);
    assert!(b_meta.modified().unwrap() > before);
    assert_eq!(
        tree(&out),
        set(&["a.asm", "b.asm"]),
        "no temporary file left"
    );
}
