//! Command-line conventions: exit codes by cause, a closed pipe, diagnostics (plain, coloured,
//! JSON), `disasm` given text, `explain --all`, shell completions and the man page.

mod support;

use support::cli::{scratch, stderr, stdout, texlate, texlate_stdin};

use std::path::Path;
use std::process::{Command, Stdio};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn exit_codes_separate_causes() {
    let dir = scratch("exit");
    let good = write(&dir, "good.sass", "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n");
    let bad = write(&dir, "bad.sass", "TEXS R6, R4, R4, R5, 0x6e, 9D, RGBA\n");
    let ok = texlate(&["translate", "--from", "nvidia", "--to", "nvidia", &good]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let rejected = texlate(&["translate", "--from", "nvidia", "--to", "nvidia", &bad]);
    assert_eq!(rejected.status.code(), Some(1));
    let usage = texlate(&["translate", "--from", "nvidia", "--frobnicate", &good]);
    assert_eq!(usage.status.code(), Some(2), "{}", stderr(&usage));
    let io = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "dxbc",
        "/nonexistent/x",
    ]);
    assert_eq!(io.status.code(), Some(3));
    let out_dir = dir.join("no/such/dir/out.asm");
    let io = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        &good,
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(io.status.code(), Some(3), "{}", stderr(&io));

    let help = stdout(&texlate(&["--help"]));
    for line in [
        "Exit status:",
        "0  success",
        "1  the input was rejected",
        "2  usage",
        "3  I/O",
    ] {
        assert!(help.contains(line), "--help lacks `{line}`:\n{help}");
    }
    let readme = include_str!("../README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        readme.contains("2 a usage error") && readme.contains("3 an I/O error"),
        "README states the exit codes"
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // More output than a pipe buffer holds, and a reader that closes at once.
    let listing = "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n".repeat(20_000);
    let dir = scratch("pipe");
    let input = write(&dir, "big.sass", &listing);
    let mut child = Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(["translate", "--from", "nvidia", "--to", "nvidia", &input])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("texlate runs");
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "exit {:?}", o.status);
    assert_eq!(stderr(&o), "", "nothing on standard error");
}

#[test]
fn diagnostics_quote_the_line_with_a_caret() {
    let dir = scratch("diag");
    let bad = write(
        &dir,
        "shader.asm",
        "ps_5_0\nsample r0.xyzw, r1.xyxx, t0.xyzw, foo\n",
    );
    let o = texlate(&["translate", "--from", "dxbc", "--to", "nvidia", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: expected a register"), "{err}");
    assert!(err.contains(&format!("--> {bad}:2:35")), "{err}");
    assert!(
        err.contains("2 | sample r0.xyzw, r1.xyxx, t0.xyzw, foo"),
        "{err}"
    );
    assert!(err.contains("^^^ expected a register"), "{err}");
    assert!(!err.contains('\u{1b}'), "no colour off a terminal: {err}");

    let coloured = texlate(&[
        "--color",
        "always",
        "translate",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &bad,
    ]);
    assert!(
        stderr(&coloured).contains("\u{1b}["),
        "{}",
        stderr(&coloured)
    );

    let json = texlate(&[
        "--json",
        "translate",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &bad,
    ]);
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(stderr(&json).trim()).expect("one JSON object");
    assert_eq!(v["kind"], "parse");
    assert_eq!(v["file"], bad.as_str());
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(2), Some(35))
    );
    assert_eq!(v["token"], "foo");

    // An I/O error as JSON too.
    let json = texlate(&["--json", "disasm", "--isa", "dxbc", "/nonexistent/x"]);
    assert_eq!(json.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_str(stderr(&json).trim()).expect("one JSON object");
    assert_eq!(v["kind"], "io");
}

#[test]
fn text_input_errors_never_speak_in_byte_offsets() {
    let dir = scratch("textpos");
    // An NVIDIA listing has no bare-token form: an error without position, and no offset.
    let listing = write(
        &dir,
        "notokens.sass",
        "        /*0008*/                   TEX R0, R4, 0x6e, 2D, 0xf ;\n",
    );
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        "--emit",
        "tokens",
        &listing,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("notokens.sass") && !err.contains("offset"),
        "{err}"
    );
    let o = texlate(&[
        "--json",
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        "--emit",
        "tokens",
        &listing,
    ]);
    assert!(!stderr(&o).contains("offset"), "{}", stderr(&o));

    // `disasm` given text points to `asm` and `translate`.
    let sass = write(&dir, "kernel.sass", "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n");
    let o = texlate(&["disasm", "--isa", "nvidia", &sass]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("is text") && err.contains("texlate asm --isa nvidia"),
        "{err}"
    );
    assert!(
        err.contains("texlate translate") && !err.contains("offset"),
        "{err}"
    );
}

#[test]
fn explain_shows_texture_instructions_unless_all() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/rf_2d_argsampler_f.visaasm"
    );
    let o = texlate(&["explain", "--isa", "visa", example]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ir = stdout(&o);
    assert!(!ir.is_empty() && !ir.contains("opaque"), "{ir}");
    assert!(ir.lines().all(|l| l.starts_with("sample")), "{ir}");
    let all = stdout(&texlate(&["explain", "--isa", "visa", "--all", example]));
    assert!(all.contains("opaque line 1"), "{all}");
    assert!(all.lines().count() > ir.lines().count());
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = texlate(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(
            script.contains("texlate") && script.contains("translate"),
            "{shell}"
        );
    }
    let o = texlate(&["man"]);
    assert!(o.status.success());
    let man = stdout(&o);
    assert!(
        man.starts_with(".ie") || man.contains(".TH texlate"),
        "{man}"
    );
    assert!(
        man.contains("translate") && man.contains("Exit status"),
        "{man}"
    );
}

#[test]
fn standard_input_is_named_in_diagnostics() {
    let o = texlate_stdin(
        &["asm", "--isa", "nvidia", "-"],
        b"TEX R0, R0, 0x0, 2D, 0x\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--> <stdin>:1:22"), "{}", stderr(&o));
}
