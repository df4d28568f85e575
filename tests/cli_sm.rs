//! `--sm` on the command line: `disasm` (one input, `--hex`, a batch), `asm`, `translate`,
//! `explain` and `check` read NVIDIA words and text for the SM it names (words and texts from
//! `tests/cases/nvidia/field_sweep.tsv`, nvdisasm 12.4's).

mod support;

use support::cli::{stderr, stdout, texlate};

/// `TEX.LC` (bit 58): nvdisasm prints it from SM52 on.
const TEX_LC: (&str, &str) = ("c43806e7a0c70804", "TEX.LC R4, R8, R12, 0x6e, 2D, 0xf");
/// `TEXS.F16` (bit 59 clear): SM52 on.
const TEXS_F16: (&str, &str) = (
    "d03006e100c70804",
    "TEXS.F16 R16, R4, R8, R12, 0x6e, 2D, RGBA",
);
/// `TEX.INVALIDBLOD4`: every SM prints it; the hardware cannot run it.
const TEX_INVALID: (&str, &str) = (
    "c23806e7a0c70804",
    "TEX.INVALIDBLOD4 R4, R8, R12, 0x6e, 2D, 0xf",
);

fn in_fixture(word: &str, text: &str, sm: &str) {
    let fixture = include_str!("cases/nvidia/field_sweep.tsv");
    assert!(
        fixture.contains(&format!("{sm}\t{word}\t{text}\n")),
        "{sm} {word} `{text}` is nvdisasm's (field_sweep.tsv)"
    );
}

#[test]
fn disasm_hex_reads_for_the_sm() {
    for (word, text) in [TEX_LC, TEXS_F16] {
        in_fixture(word, text, "SM52");
        let o = texlate(&["disasm", "--isa", "nvidia", "--sm", "SM52", "--hex", word]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), format!("{text}\n"));
        // The default is SM50, which refuses the word at its offset, naming the SM it needs.
        let o = texlate(&["disasm", "--isa", "nvidia", "--hex", TEX_INVALID.0, word]);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(e.contains("needs SM52") && e.contains("0x8"), "{e}");
    }
    // nvdisasm's names, any case; others are a usage error.
    let o = texlate(&[
        "disasm", "--isa", "nvidia", "--sm", "sm_61", "--hex", TEX_LC.0,
    ]);
    assert_eq!(stdout(&o), format!("{}\n", TEX_LC.1));
    let o = texlate(&[
        "disasm", "--isa", "nvidia", "--sm", "SM70", "--hex", TEX_LC.0,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("SM50, SM52, SM53, SM60, SM61, SM62"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn invalid_words_print_and_cannot_be_assembled_or_translated() {
    in_fixture(TEX_INVALID.0, TEX_INVALID.1, "SM50");
    let o = texlate(&["disasm", "--isa", "nvidia", "--hex", TEX_INVALID.0]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{}\n", TEX_INVALID.1));
    // asm: refused at the INVALID token.
    let o = texlate(&["asm", "--isa", "nvidia", "--hex", TEX_INVALID.1]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("INVALIDBLOD4") && e.contains("reserved"), "{e}");
    assert!(e.contains(":1:5"), "{e}");
    // translate of a word stream holding it: a validation error at its byte offset.
    let dir = std::env::temp_dir().join(format!("texlate-cli-sm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stream = dir.join("invalid.bin");
    let mut bytes = 0x0000_07e0_07e0_07e0u64.to_le_bytes().to_vec();
    bytes.extend(
        u64::from_str_radix(TEX_INVALID.0, 16)
            .unwrap()
            .to_le_bytes(),
    );
    std::fs::write(&stream, &bytes).unwrap();
    let s = stream.to_str().unwrap();
    let o = texlate(&["disasm", "--isa", "nvidia", s]);
    assert!(
        stdout(&o).contains(&format!("{} ;", TEX_INVALID.1)),
        "{}",
        stdout(&o)
    );
    for args in [
        &["translate", "--from", "nvidia", "--to", "dxbc", s][..],
        &[
            "translate",
            "--from",
            "nvidia",
            "--to",
            "nvidia",
            "--emit",
            "binary",
            s,
        ][..],
        &["explain", "--isa", "nvidia", s][..],
    ] {
        let o = texlate(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.contains("INVALIDBLOD4") && e.contains("0x8"),
            "{args:?}: {e}"
        );
    }
    // A batch disassembles it too, for the SM given.
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = texlate(&[
        "disasm",
        "--isa",
        "nvidia",
        "--sm",
        "SM61",
        s,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listing = std::fs::read_to_string(out.join("invalid.sass")).unwrap();
    assert!(listing.contains(TEX_INVALID.1), "{listing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn asm_and_translate_write_for_the_sm() {
    for (word, text) in [TEX_LC, TEXS_F16] {
        let o = texlate(&["asm", "--isa", "nvidia", "--sm", "SM53", "--hex", text]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), format!("{word}\n"));
        let o = texlate(&["asm", "--isa", "nvidia", "--hex", text]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("needs SM52"), "{}", stderr(&o));
    }
    // TLD4 .NDV is not printed past SM53: SM60 cannot write it.
    let tld4 = "TLD4.R.NDV R4, R8, R12, 0x6e, 2D, 0xf";
    let o = texlate(&["asm", "--isa", "nvidia", "--sm", "SM53", "--hex", tld4]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = texlate(&["asm", "--isa", "nvidia", "--sm", "SM60", "--hex", tld4]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("past SM53"), "{}", stderr(&o));
    // Identity translation and the check read the text for the SM too.
    let dir = std::env::temp_dir().join(format!("texlate-cli-sm-t-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("lc.sass");
    std::fs::write(&f, format!("{}\n", TEX_LC.1)).unwrap();
    let s = f.to_str().unwrap();
    let o = texlate(&[
        "translate",
        "--from",
        "nvidia",
        "--to",
        "nvidia",
        "--sm",
        "SM52",
        s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{}\n", TEX_LC.1));
    let o = texlate(&["translate", "--from", "nvidia", "--to", "nvidia", s]);
    assert_eq!(o.status.code(), Some(1));
    let o = texlate(&[
        "check", "--from", "nvidia", "--to", "nvidia", "--sm", "SM52", s,
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}
