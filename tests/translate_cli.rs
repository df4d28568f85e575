//! `texlate translate`, `explain` and `check` across ISAs: options, the Report, and bad
//! bindings and register maps (typed errors with line and column; nothing written).

mod support;

use support::cli::{stderr, stdout, texlate, texlate_stdin};

use std::path::{Path, PathBuf};

/// A fresh scratch directory holding `files`.
fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = support::cli::scratch(name);
    for (f, text) in files {
        std::fs::write(dir.join(f), text).expect("scratch file");
    }
    dir
}

const DX: &str = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\nsample_aoffimmi(1,-2,0) r0.xyzw, r1.xyxx, t0.xyzw, s0\n";
const VISA: &str = "sample_3d.RGBA (M1, 16)  0x0:uw S0 T6 V0040.0 V0041.0 V0042.0\n";
const VISA_BINDINGS: &str =
    "[[binding]]\ndim = \"2d\"\nvisa = { texture = \"T6\", sampler = \"S0\" }\n";

fn p(dir: &Path, f: &str) -> String {
    dir.join(f).to_str().unwrap().to_string()
}

#[test]
fn dx_to_nvidia_text_binary_json_and_check() {
    let d = scratch("dx", &[("in.asm", DX)]);
    let o = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &p(&d, "in.asm"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("MOV32I R6, 0xe1 ;"), "{text}");
    assert!(
        text.contains("TEX.AOFFI.P R0, R4, R6, 0x0, 2D, 0xf ;"),
        "{text}"
    );
    assert!(text.contains("// dcl_sampler s0, mode_default"), "{text}");
    let o = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        "--emit",
        "binary",
        &p(&d, "in.asm"),
        "-o",
        &p(&d, "out.bin"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(d.join("out.bin")).unwrap();
    assert_eq!(bytes.len() % 32, 0, "whole bundles");
    let o = texlate(&[
        "translate",
        "--json",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &p(&d, "in.asm"),
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("the Report is JSON");
    assert_eq!(json["from"], "dxbc");
    assert_eq!(json["instructions"][0]["source"]["line"], 4);
    assert_eq!(json["instructions"][0]["moves"], 1);
    assert_eq!(json["non_texture_items"], 3);
    let o = texlate(&[
        "explain",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &p(&d, "in.asm"),
    ]);
    assert!(
        stdout(&o).contains("lower_offsets: offsets (1, -2, 0) packed as 0xe1"),
        "{}",
        stdout(&o)
    );
    let o = texlate(&[
        "check",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &p(&d, "in.asm"),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(": agree"), "{}", stdout(&o));
}

#[test]
fn strict_refuses_non_texture_items() {
    let d = scratch("strict", &[("in.asm", DX)]);
    let o = texlate(&[
        "translate",
        "--strict",
        "--from",
        "dxbc",
        "--to",
        "visa",
        &p(&d, "in.asm"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("in.asm:1:1") && stderr(&o).contains("--strict"),
        "{}",
        stderr(&o)
    );
}

/// Runs a vISA → DX translation with `bindings` and `-o`, which must fail and write nothing.
fn refused(name: &str, bindings: Option<&str>, regmap: Option<&str>) -> String {
    let mut files = vec![("in.visaasm", VISA)];
    if let Some(b) = bindings {
        files.push(("b.toml", b));
    }
    if let Some(m) = regmap {
        files.push(("m.toml", m));
    }
    let d = scratch(name, &files);
    let out = d.join("out.asm");
    let (b, m) = (p(&d, "b.toml"), p(&d, "m.toml"));
    let mut args = vec![
        "translate",
        "--from",
        "visa",
        "--to",
        "dxbc",
        "--bindings",
        &b,
    ];
    if regmap.is_some() {
        args.extend(["--regmap", &m]);
    }
    let input = p(&d, "in.visaasm");
    let o_arg = out.to_str().unwrap().to_string();
    args.extend([input.as_str(), "-o", o_arg.as_str()]);
    let o = texlate(&args);
    assert!(!o.status.success(), "{name}: {}", stdout(&o));
    assert!(
        !out.exists(),
        "{name}: a refused translation writes nothing"
    );
    assert!(o.stdout.is_empty(), "{name}");
    format!("{}|{}", o.status.code().unwrap_or(-1), stderr(&o))
}

#[test]
fn bad_bindings_and_register_maps() {
    let e = refused("missing", None, None);
    assert!(
        e.starts_with("3|") && e.contains("reading") && e.contains("b.toml"),
        "{e}"
    );
    let e = refused("malformed", Some("[[binding]\ndim = \"2d\"\n"), None);
    assert!(e.starts_with("1|") && e.contains("b.toml:1:"), "{e}");
    let e = refused(
        "unknown-dim",
        Some("[[binding]]\ndim = \"4d\"\nvisa = { texture = \"T6\" }\n"),
        None,
    );
    assert!(
        e.contains("b.toml:2:7") && e.contains("unknown dim `4d`"),
        "{e}"
    );
    let e = refused(
        "bad-slot",
        Some("[[binding]]\ndim = \"2d\"\nvisa = { texture = \"t6\" }\n"),
        None,
    );
    assert!(e.contains("b.toml:3:") && e.contains("`T<n>`"), "{e}");
    let e = refused(
        "conflict",
        Some("[[binding]]\ndim = \"2d\"\nvisa = { texture = \"T6\" }\n[[binding]]\ndim = \"3d\"\nvisa = { texture = \"T6\" }\n"),
        None,
    );
    assert!(e.contains("b.toml:4:") && e.contains("conflicting"), "{e}");
    // A surface no row names: the error names it and prints the row to add.
    let e = refused(
        "unnamed",
        Some("[[binding]]\ndim = \"2d\"\nvisa = { texture = \"T7\" }\n"),
        None,
    );
    assert!(e.contains("visa T6") && e.contains("[[binding]]"), "{e}");
    let e = refused(
        "regmap",
        Some(VISA_BINDINGS),
        Some("[[map]]\nsource = \"V40.0\"\ntarget = \"r9.q\"\n"),
    );
    assert!(
        e.contains("m.toml:3:10") && e.contains("DX register"),
        "{e}"
    );
    let e = refused(
        "regmap-twice",
        Some(VISA_BINDINGS),
        Some("[[map]]\nsource = \"V40.0\"\ntarget = \"r9.x\"\n[[map]]\nsource = \"V41.0\"\ntarget = \"r9.x\"\n"),
    );
    assert!(e.contains("m.toml:4:") && e.contains("already"), "{e}");
}

#[test]
fn a_register_map_places_the_operands() {
    let d = scratch(
        "regmap-ok",
        &[
            ("in.visaasm", VISA),
            ("b.toml", VISA_BINDINGS),
            ("m.toml", "[[map]]\nsource = \"V41.0\"\ntarget = \"r7.x\"\n[[map]]\nsource = \"V42.0\"\ntarget = \"r7.y\"\n"),
        ],
    );
    let args = [
        "--from",
        "visa",
        "--to",
        "dxbc",
        "--bindings",
        &p(&d, "b.toml"),
        "--regmap",
        &p(&d, "m.toml"),
    ];
    let input = p(&d, "in.visaasm");
    let o = texlate(&[&["translate"][..], &args[..], &[input.as_str()][..]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(", r7.xyxx, t0.xyzw, s0"),
        "{}",
        stdout(&o)
    );
    let o = texlate(&[&["check"][..], &args[..], &[input.as_str()][..]].concat());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn stage_and_simd_options() {
    let nv = "TEX.LZ R0, R4, 0x6e, 2D, 0xf\n";
    let d = scratch("stage", &[("in.sass", nv)]);
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "dxbc",
        &p(&d, "in.sass"),
    ]);
    assert!(
        stdout(&o).starts_with("cs_5_0"),
        "no derivatives: compute\n{}",
        stdout(&o)
    );
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "dxbc",
        "--stage",
        "vertex",
        &p(&d, "in.sass"),
    ]);
    assert!(stdout(&o).starts_with("vs_5_0"), "{}", stdout(&o));
    let implicit = scratch("stage-ps", &[("in.sass", "TEX R0, R4, 0x6e, 2D, 0xf\n")]);
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "dxbc",
        &p(&implicit, "in.sass"),
    ]);
    assert!(
        stdout(&o).starts_with("ps_5_0"),
        "implicit LOD: pixel\n{}",
        stdout(&o)
    );
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "visa",
        "--simd",
        "8",
        &p(&d, "in.sass"),
    ]);
    assert!(
        stdout(&o).contains("sample_lz.RGBA (M1, 8)"),
        "{}",
        stdout(&o)
    );
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "visa",
        "--simd",
        "32",
        &p(&d, "in.sass"),
    ]);
    assert_eq!(o.status.code(), Some(2), "clap refuses the width");
}

#[test]
fn nvidia_alu_immediates_go_through_mov32i() {
    // fxc's `mul` with an immediate is translated too (texlate reads the ALU it can write):
    // NVIDIA's FMUL reads registers, so the constant is moved first.
    let src = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\nmul r1.x, r2.x, l(0.250000)\nsample r0.xyzw, r1.xyxx, t0.xyzw, s0\n";
    let d = scratch("fmul-imm", &[("in.asm", src)]);
    let o = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &p(&d, "in.asm"),
    ]);
    let text = stdout(&o);
    assert!(text.contains("MOV32I R6, 0x3e800000 ;"), "{text}");
    assert!(text.contains("FMUL R4, R8, R6 ;"), "{text}");
    let o = texlate(&[
        "check",
        "--from",
        "dxbc",
        "--to",
        "nvidia",
        &p(&d, "in.asm"),
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// `check` between programs of one ISA: the identity translation re-encodes as read, so every
/// register is itself (the register map, empty here, is not consulted) and the checked
/// fixtures of each ISA agree with themselves, every texture instruction compared.
#[test]
fn check_of_an_identity_translation_agrees() {
    let root = env!("CARGO_MANIFEST_DIR");
    for (isa, file) in [
        ("dxbc", "tests/cases/dxbc/every_op.asm"),
        ("visa", "tests/cases/visa/all_ops.visaasm"),
        ("nvidia", "tests/cases/translate/nvidia.txt"),
    ] {
        let path = format!("{root}/{file}");
        let o = texlate(&["check", "--from", isa, "--to", isa, &path]);
        let out = stdout(&o);
        assert!(o.status.success(), "{isa}: {}{}", out, stderr(&o));
        assert!(!out.contains("disagree"), "{isa}: {out}");
        let agree = out.lines().filter(|l| l.ends_with(": agree")).count();
        assert!(agree > 10, "{isa}: only {agree} requests compared:\n{out}");
        let compared: usize = out
            .lines()
            .find_map(|l| l.strip_prefix("registers compared: "))
            .and_then(|n| n.trim().parse().ok())
            .expect("a register count");
        assert!(compared > 0, "{isa}: no register compared");
    }
}

/// The Report's warnings (what a translation could not keep exactly) are shown on stderr
/// with the output: the first five, then how many more; `--json` lists every one.
#[test]
fn report_warnings_are_shown_with_the_output() {
    let input: String = (0..7)
        .map(|k| format!("sample_3d.RGBA (M5, 16)  0x0:uw S0 T6 V004{k}.0 V0041.0 V0042.0\n"))
        .collect();
    let dir = scratch(
        "warnings",
        &[("in.visaasm", &input), ("b.toml", VISA_BINDINGS)],
    );
    let args = ["translate", "--from", "visa", "--to", "dxbc", "--bindings"];
    let (bindings, input) = (p(&dir, "b.toml"), p(&dir, "in.visaasm"));
    let o = texlate(&[&args[..], &[bindings.as_str(), input.as_str()][..]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let dropped: Vec<&str> = err.lines().filter(|l| l.contains("SIMD16")).collect();
    assert_eq!(dropped.len(), 5, "{err}");
    assert!(
        dropped[0].starts_with("texlate: warning: line 1, column 1:"),
        "{err}"
    );
    assert!(err.contains("2 more warning(s)"), "{err}");
    assert!(stdout(&o).contains("sample"), "the output is written");
    let json = texlate(
        &[
            &args[..],
            &[bindings.as_str(), "--json", input.as_str()][..],
        ]
        .concat(),
    );
    let out = stdout(&json);
    let listed = out
        .lines()
        .filter(|l| l.contains(", column 1: SIMD16 (mask M5) dropped"))
        .count();
    assert_eq!(listed, 7, "{out}");
}

/// An NVIDIA identity translation of a word stream to binary streams (word by word, flat
/// memory): the same words out, and a malformed stream refused at its byte offset with
/// nothing written.
#[test]
fn nvidia_identity_binary_streams_the_words() {
    // Two bundles: a control word and three texture words each.
    let words: [u64; 8] = [
        0x001f_c800_fe20_07f6,
        0xc03c_06e7_9067_0404,
        0xdc38_06ef_9067_0404,
        0xd830_06e0_6057_0404,
        0x001f_c800_fe20_07f6,
        0xc03c_06e7_9067_0404,
        0xdc38_06ef_9067_0404,
        0xd830_06e0_6057_0404,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let dir = scratch("nv-identity", &[]);
    std::fs::write(dir.join("in.bin"), &bytes).unwrap();
    let (input, out) = (p(&dir, "in.bin"), p(&dir, "out.bin"));
    let args = [
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        "--emit",
        "binary",
    ];
    let o = texlate(&[&args[..], &[input.as_str(), "-o", out.as_str()][..]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
    // The same as the whole-program path (standard input is read whole).
    let whole = texlate_stdin(&[&args[..], &["-"][..]].concat(), &bytes);
    assert!(whole.status.success(), "{}", stderr(&whole));
    assert_eq!(whole.stdout, bytes);
    // 4 bytes short of a word: refused at the offset, no output file.
    std::fs::write(dir.join("bad.bin"), &bytes[..60]).unwrap();
    let (bad, bad_out) = (p(&dir, "bad.bin"), p(&dir, "bad.out"));
    let o = texlate(&[&args[..], &[bad.as_str(), "-o", bad_out.as_str()][..]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("byte offset 0x38"), "{}", stderr(&o));
    assert!(!dir.join("bad.out").exists());
}

/// A DXBC or NVIDIA identity translation to text, and a vISA one read strictly, stream from
/// the file (line by line, no Program) and write what the whole-program path writes
/// (standard input is read whole); a bad line is refused at the same line and column,
/// nothing written.
#[test]
fn identity_text_streams_as_the_whole_path() {
    let cases = [
        ("dxbc", "tests/cases/dxbc/every_op.asm", &[][..]),
        (
            "nvidia",
            "tests/cases/nvidia/txq_dual_issue.sm_50.sass",
            &[][..],
        ),
        (
            "visa",
            "tests/cases/visa/all_ops.visaasm",
            &["--strict"][..],
        ),
    ];
    for (isa, fixture, extra) in cases {
        let text = std::fs::read_to_string(fixture).unwrap();
        let bad_line = match isa {
            "dxbc" => "frobnicate r0.x\n",
            "nvidia" => "FROBNICATE R0, R1 ;\n",
            _ => "frobnicate (M1, 16) V32(0,0)<1> 0x0:ud\n",
        };
        // The bad line goes before the last line (`ret`), as line `n`.
        let mut lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        lines.insert(n - 1, bad_line.trim_end());
        let bad = lines.join("\n") + "\n";
        let dir = scratch(
            &format!("identity-{isa}"),
            &[("in.txt", &text), ("bad.txt", &bad)],
        );
        let args = [&["translate", "--from", isa, "--to", isa][..], extra].concat();
        let run_file = |name: &str, out: &str| {
            let (input, output) = (p(&dir, name), p(&dir, out));
            texlate(&[&args[..], &[input.as_str(), "-o", output.as_str()][..]].concat())
        };
        let run_stdin = |name: &str| {
            let input = std::fs::read(dir.join(name)).unwrap();
            texlate_stdin(&[&args[..], &["-"][..]].concat(), &input)
        };
        let o = run_file("in.txt", "out.txt");
        assert!(o.status.success(), "{isa}: {}", stderr(&o));
        let whole = run_stdin("in.txt");
        assert!(whole.status.success(), "{isa}: {}", stderr(&whole));
        assert_eq!(
            std::fs::read(dir.join("out.txt")).unwrap(),
            whole.stdout,
            "{isa}"
        );
        assert!(
            stderr(&o).is_empty() && stderr(&whole).is_empty(),
            "{isa}: no notes"
        );

        let o = run_file("bad.txt", "bad.out");
        let whole = run_stdin("bad.txt");
        assert_eq!(o.status.code(), Some(1), "{isa}: {}", stderr(&o));
        assert_eq!(whole.status.code(), Some(1), "{isa}");
        let at = format!(":{n}:1");
        assert!(
            stderr(&o).contains(&format!("bad.txt{at}")),
            "{isa}: {}",
            stderr(&o)
        );
        assert!(
            stderr(&whole).contains(&format!("<stdin>{at}")),
            "{isa}: {}",
            stderr(&whole)
        );
        assert_eq!(
            stderr(&o).replace(&p(&dir, "bad.txt"), "<stdin>"),
            stderr(&whole),
            "{isa}: the same diagnostic"
        );
        assert!(!dir.join("bad.out").exists(), "{isa}: nothing written");
    }
}
