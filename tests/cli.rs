//! The `texlate` command line: verbs, exit codes, standard input and output files.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::cli::{stderr, stdout, texlate, texlate_stdin};

const SAMPLE_LZ: &str = "sample_lz.RGBA (M1, 16) 0x1e3:uw S0 T6 V0057.0 V0053.0 V0059.0";
const TEXS_WORD: &str = "d83006e060570404";

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/rf_2d_argsampler_f.visaasm")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("texlate-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[test]
fn translate_identity_reproduces_the_bundled_example() {
    let o = texlate(&[
        "translate",
        "--from",
        "visa",
        "--to",
        "visa",
        example().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, std::fs::read(example()).unwrap());
}

#[test]
fn asm_hex_then_disasm_hex_is_the_identity() {
    let o = texlate(&["asm", "--isa", "visa", "--hex", SAMPLE_LZ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let hex = stdout(&o);
    assert!(
        hex.starts_with("6d 18 00 04 00 00 0f 05 02 e3 01 00 00"),
        "{hex}"
    );
    let bytes: Vec<&str> = hex.split_whitespace().collect();
    let mut args = vec!["disasm", "--isa", "visa", "--hex"];
    args.extend(bytes);
    let o = texlate(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "sample_lz.RGBA (M1, 16)  0x1e3:uw S0 T6 V0057.0 V0053.0 V0059.0\n"
    );
}

#[test]
fn nvidia_and_dxbc_hex_verbs() {
    let o = texlate(&["disasm", "--isa", "nvidia", "--hex", TEXS_WORD]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n");
    let o = texlate(&[
        "asm",
        "--isa",
        "nvidia",
        "--hex",
        "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), TEXS_WORD);

    let line = "sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0";
    let o = texlate(&["asm", "--isa", "dxbc", "--hex", line]);
    assert!(o.status.success(), "{}", stderr(&o));
    let words: Vec<String> = stdout(&o).split_whitespace().map(str::to_string).collect();
    let mut args = vec!["disasm", "--isa", "dxbc", "--hex"];
    args.extend(words.iter().map(String::as_str));
    let o = texlate(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim_end(), line);
}

#[test]
fn standard_input_and_output_file() {
    let dir = scratch("stdin");
    let out = dir.join("out.bin");
    let src = std::fs::read(example()).unwrap();
    let o = texlate_stdin(
        &[
            "translate",
            "--from",
            "visa",
            "--to",
            "visa",
            "--emit",
            "binary",
            "-",
            "-o",
            out.to_str().unwrap(),
        ],
        &src,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("non-texture lines"),
        "the dropped lines are reported: {}",
        stderr(&o)
    );
    let o = texlate(&["disasm", "--isa", "visa", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0 V0059.0\n\
         sample_lz.RGBA (M5, 16)  0x0:uw S0 T6 V0058.0 V0054.0 V0060.0\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("texlate-tmp"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary files left behind: {leftovers:?}"
    );
}

#[test]
fn rejected_input_exits_1_with_its_location_and_keeps_the_old_output() {
    let dir = scratch("reject");
    let out = dir.join("out.txt");
    std::fs::write(&out, "previous output\n").unwrap();
    let bad = dir.join("bad.visaasm");
    std::fs::write(&bad, "sample_lz.RGBA (M1, 16) 0x0:uw S0 T6 V0057.0 V0053.0\nsample_lz.RGBA (M1, 12) 0x0:uw S0 T6 V0057.0 V0053.0\n").unwrap();
    let o = texlate(&[
        "translate",
        "--from",
        "visa",
        "--to",
        "visa",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("bad.visaasm:2:"), "{err}");
    assert!(err.contains("exec"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous output\n");
}

#[test]
fn missing_input_exits_3() {
    let o = texlate(&[
        "explain",
        "--isa",
        "visa",
        "/nonexistent/texlate/input.visaasm",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("/nonexistent/texlate/input.visaasm"),
        "{}",
        stderr(&o)
    );
    // `asm` takes a file or the text itself; a single word that names no file is a path.
    let o = texlate(&["asm", "--isa", "nvidia", "kernel.sass"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("kernel.sass: no such file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_visa_source_without_bindings_asks_for_the_dimension() {
    let dir = scratch("no-bindings");
    let out = dir.join("out.sass");
    let o = texlate(&[
        "translate",
        "--from",
        "visa",
        "--to",
        "nvidia",
        example().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("from visa to nvidia"), "{err}");
    assert!(err.contains("rf_2d_argsampler_f.visaasm:110:5"), "{err}");
    assert!(
        err.contains("[[binding]]") && err.contains("visa = { texture = \"T6\""),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    assert!(!out.exists(), "a refused translation writes nothing");
}

#[test]
fn explain_prints_the_ir() {
    let o = texlate_stdin(
        &["explain", "--isa", "nvidia", "-"],
        b"TEX.LL.AOFFI.DC R4, R4, R8, 0x6e, 2D, 0xf\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ir = stdout(&o);
    assert!(ir.starts_with("sample 2d lod=r8.0 tex=#110"), "{ir}");
    assert!(
        ir.contains("offset=packed(r9.0)") && ir.contains("ref=r10.0"),
        "{ir}"
    );
}

#[test]
fn igcs_mixed_type_gather_is_read_with_a_warning_and_refused_by_strict() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/intel/dumps/tgllp/llvm_genisa");
    let Ok(entries) = std::fs::read_dir(&file) else {
        support::skipped("../shared/corpus/intel/dumps/tgllp/llvm_genisa not found");
        return;
    };
    let gather = entries
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.to_string_lossy().contains("gi_gather4_half")
                && p.extension().is_some_and(|e| e == "visaasm")
        })
        .expect("the corpus has IGC's half-precision gather4 dump");
    let path = gather.to_str().unwrap();
    // Default: IGC's own text is read, with a warning naming the rule it breaks.
    let read = texlate(&["translate", "--from", "visa", "--to", "visa", path]);
    assert!(read.status.success(), "{}", stderr(&read));
    assert_eq!(read.stdout, std::fs::read(&gather).unwrap());
    assert!(
        stderr(&read).contains("warning") && stderr(&read).contains("param-type"),
        "{}",
        stderr(&read)
    );
    for args in [
        vec![
            "translate",
            "--from",
            "visa",
            "--to",
            "visa",
            "--strict",
            path,
        ],
        vec!["explain", "--isa", "visa", "--strict", path],
    ] {
        let strict = texlate(&args);
        assert_eq!(strict.status.code(), Some(1), "{args:?}: --strict refuses");
        assert!(
            stderr(&strict).contains("param-type"),
            "{}",
            stderr(&strict)
        );
    }
    let explain = texlate(&["explain", "--isa", "visa", path]);
    assert!(explain.status.success(), "{}", stderr(&explain));
    assert!(stderr(&explain).contains("warning"), "{}", stderr(&explain));
    // The old flag is still accepted.
    let compat = texlate(&[
        "translate",
        "--from",
        "visa",
        "--to",
        "visa",
        "--igc-compat",
        path,
    ]);
    assert!(compat.status.success(), "{}", stderr(&compat));
}

#[test]
fn visa_offset_expressions_are_read_and_kept() {
    let line = "sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 V40.(64) V41.(2*32)\n";
    let p = texlate::parse_text_with(texlate::Isa::Visa, line, Default::default()).unwrap();
    let plain = texlate::parse_text_with(
        texlate::Isa::Visa,
        "sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 V40.64 V41.64\n",
        Default::default(),
    )
    .unwrap();
    let hex = |p: &texlate::Program| {
        texlate::isa::codec(texlate::Isa::Visa)
            .print_hex(p)
            .unwrap()
    };
    assert_eq!(hex(&p), hex(&plain));
    let text = texlate::isa::codec(texlate::Isa::Visa)
        .print_text(&p)
        .unwrap();
    assert_eq!(text, line);
}

/// An output that is not a regular file (a FIFO here; `/dev/null` alike) is written in place:
/// the temporary-file-and-rename writer must not replace it with a file (it once replaced
/// `/dev/null`, run as root).
#[cfg(unix)]
#[test]
fn an_output_that_is_a_fifo_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = std::env::temp_dir().join(format!("texlate-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("out");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    let o = texlate(&[
        "disasm",
        "--isa",
        "nvidia",
        "--hex",
        TEXS_WORD,
        "-o",
        fifo.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(text.contains("TEXS"), "{text}");
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the output FIFO was replaced: {kind:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-o -` is standard output for every verb that writes one file (as `-` is standard input),
/// not a file named `-`.
#[test]
fn dash_output_is_standard_output() {
    let dir = scratch("dash-output");
    let example = example();
    let example = example.to_str().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_texlate"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("texlate runs")
    };
    let cases: [&[&str]; 3] = [
        &["translate", "--from", "visa", "--to", "visa", example],
        &["disasm", "--isa", "nvidia", "--hex", TEXS_WORD],
        &["asm", "--isa", "visa", "--hex", SAMPLE_LZ],
    ];
    for args in cases {
        let default = run(args);
        assert!(default.status.success(), "{}", stderr(&default));
        let dashed = run(&[args, &["-o", "-"]].concat());
        assert!(dashed.status.success(), "{args:?}: {}", stderr(&dashed));
        assert!(!default.stdout.is_empty());
        assert_eq!(dashed.stdout, default.stdout, "{args:?}");
        assert!(!dir.join("-").exists(), "{args:?} wrote a file named -");
    }
}
