//! The CLI writes DXBC containers from listings: `asm --isa dxbc` and `translate --from dxbc
//! --to dxbc --emit binary` give the whole container, `--emit tokens` the bare token stream,
//! and single instructions without a profile line are assembled as `ps_5_0` with a warning.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use texlate::isa::dxbc::{self, container};

fn texlate(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("texlate-cli-dxbc-{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}

const LISTING: &str = "ps_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_texture2d (float,float,float,float) t0
dcl_sampler s0, mode_default
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
sample_indexable(texture2d)(float,float,float,float) o0.xyzw, v1.xyxx, t0.xyzw, s0
ret
";

fn tags(bytes: &[u8]) -> Vec<String> {
    container::parse(bytes)
        .unwrap()
        .chunks
        .iter()
        .map(|c| String::from_utf8_lossy(&c.tag).into_owned())
        .collect()
}

/// `asm` and `translate --emit binary` write the container; `--emit tokens` the program
/// chunk alone, version token first.
#[test]
fn binary_is_a_container_and_tokens_the_bare_stream() {
    let dir = scratch("forms");
    let src = dir.join("shader.asm");
    fs::write(&src, LISTING).unwrap();
    let src = src.to_str().unwrap();
    let (rc, asm, err) = texlate(&["asm", "--isa", "dxbc", src]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.is_empty(), "no warning with a profile line: {err}");
    assert_eq!(tags(&asm), ["ISGN", "OSGN", "SHEX"]);
    let (rc, translated, err) = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "dxbc",
        "--emit",
        "binary",
        src,
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(translated, asm);
    // The container decodes (checksum included) to the listing's instructions.
    // (fxc prints `ret ` with a trailing space, as texlate does.)
    let back = dxbc::print_text(&dxbc::decode_binary(&asm).unwrap()).unwrap();
    let back: Vec<&str> = back.lines().map(str::trim_end).collect();
    assert_eq!(back, LISTING.lines().collect::<Vec<_>>());

    let (rc, tokens, err) = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "dxbc",
        "--emit",
        "tokens",
        src,
    ]);
    assert_eq!(rc, 0, "{err}");
    let c = container::parse(&asm).unwrap();
    assert_eq!(tokens, c.chunks[c.program].data);
    assert_eq!(tokens[..4], [0x50, 0, 0, 0], "ps_5_0 version token");
    let (rc, asm_tokens, err) = texlate(&["asm", "--isa", "dxbc", "--emit", "tokens", src]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(asm_tokens, tokens);
    // A bare stream reads back and is written back bare.
    let bare = dir.join("shader.tokens");
    fs::write(&bare, &tokens).unwrap();
    let (rc, again, err) = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "dxbc",
        "--emit",
        "binary",
        bare.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(again, tokens);
    // `--emit tokens` is DX's: another ISA refuses it, naming the file.
    let sass = dir.join("kernel.sass");
    fs::write(&sass, "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n").unwrap();
    let (rc, out, err) = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        "--emit",
        "tokens",
        sass.to_str().unwrap(),
    ]);
    assert_eq!(rc, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("kernel.sass") && err.contains("tokens"),
        "{err}"
    );
    // `--emit` and `--hex` are two answers to one question.
    let (rc, _, err) = texlate(&["asm", "--isa", "dxbc", "--hex", "--emit", "tokens", src]);
    assert_eq!(rc, 2, "{err}");
    let _ = fs::remove_dir_all(&dir);
}

/// Single instructions without a profile line are assembled as `ps_5_0`, and `asm` and
/// `translate` say so on standard error; the library returns the same sentence as data.
#[test]
fn single_instructions_assume_ps_5_0() {
    let line = "sample_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.xyxx, t0.xyzw, s0";
    let (rc, bytes, err) = texlate(&["asm", "--isa", "dxbc", line]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        err.contains("warning") && err.contains("ps_5_0") && err.contains("profile"),
        "{err}"
    );
    assert_eq!(tags(&bytes), ["ISGN", "OSGN", "SHEX"]);
    let program = dxbc::decode_binary(&bytes).unwrap();
    let text = dxbc::print_text(&program).unwrap();
    assert_eq!(text, format!("ps_5_0\n{line}\n"));
    // The library: the warning as data, for the binary forms only.
    let parsed = dxbc::parse_text(line).unwrap();
    let warnings = dxbc::encode_warnings(&parsed);
    assert_eq!(warnings.len(), 1);
    assert!(err.contains(&warnings[0]), "{err}");
    use texlate::isa::codec;
    use texlate::{Form, Isa};
    assert!(codec(Isa::Dxbc)
        .encode_warnings(&parsed, Form::Text)
        .is_empty());
    assert_eq!(
        codec(Isa::Dxbc).encode_warnings(&parsed, Form::Tokens),
        warnings
    );
    // `--hex` needs no version token: no warning.
    let (rc, hex, err) = texlate(&["asm", "--isa", "dxbc", "--hex", line]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(!hex.is_empty());
    // `translate` warns too, and its Report carries the warning.
    let dir = scratch("assume");
    let src = dir.join("one.asm");
    fs::write(&src, format!("{line}\n")).unwrap();
    let src = src.to_str().unwrap();
    let (rc, out, err) = texlate(&[
        "translate",
        "--from",
        "dxbc",
        "--to",
        "dxbc",
        "--emit",
        "tokens",
        src,
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("ps_5_0"), "{err}");
    assert_eq!(out[..4], [0x50, 0, 0, 0]);
    let (rc, report, err) = texlate(&[
        "--json",
        "translate",
        "--from",
        "dxbc",
        "--to",
        "dxbc",
        "--emit",
        "binary",
        src,
    ]);
    assert_eq!(rc, 0, "{err}");
    let report = String::from_utf8(report).unwrap();
    assert!(report.contains("assembled as `ps_5_0`"), "{report}");
    // With a profile line nothing is assumed.
    fs::write(dir.join("two.asm"), format!("cs_5_0\n{line}\n")).unwrap();
    let (rc, out, err) = texlate(&[
        "asm",
        "--isa",
        "dxbc",
        "--emit",
        "tokens",
        dir.join("two.asm").to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert_eq!(out[..4], [0x50, 0, 5, 0], "cs_5_0 version token");
    let _ = fs::remove_dir_all(&dir);
}

/// A listing whose declarations its signature table does not hold is refused with the
/// declaration's line, and nothing is written.
#[test]
fn a_declaration_outside_the_table_is_refused() {
    let dir = scratch("table");
    let src = dir.join("bad.asm");
    fs::write(
        &src,
        "// Input signature:\n//\n// Name                 Index   Mask Register SysValue  Format   Used\n\
         // -------------------- ----- ------ -------- -------- ------- ------\n\
         // TEXCOORD                 0   xy          1     NONE   float   xy\n//\nps_5_0\n\
         dcl_input_ps linear v1.xyz\nret\n",
    )
    .unwrap();
    let out = dir.join("bad.dxbc");
    let (rc, _, err) = texlate(&[
        "asm",
        "--isa",
        "dxbc",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("bad.asm:8:1") && err.contains("dxbc-signature"),
        "{err}"
    );
    assert!(!out.exists());
    let _ = fs::remove_dir_all(&dir);
}
