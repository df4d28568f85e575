//! The later-SM forms as ptxas emits them (`tests/cases/nvidia/sm_forms.sh`: ptxas 12.9,
//! nvdisasm 12.4): `TEXS.F16` / `TLDS.F16` (ptxas from sm_53 on) and the sparse-residency
//! predicate (ptxas from sm_60 on). nvdisasm already decodes all of them for SM52 (the field
//! sweep, `tests/nvidia_field_sweep.rs`): texlate reads them from `--sm SM52` on and refuses
//! them before, at their line, naming the SM they need.

use std::path::PathBuf;

use texlate::isa::nvidia::{self, Sm};
use texlate::{Error, Isa, ReadOptions};

fn case(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/nvidia")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(sm: Sm) -> ReadOptions {
    ReadOptions {
        sm,
        ..ReadOptions::default()
    }
}

const FIXTURES: [(&str, Sm, &[&str]); 2] = [
    (
        "sm53_forms.sm_53.sass",
        Sm::SM53,
        &[
            "TEXS.F16.T R4, R0, R0, R7, 0x50, 2D, RGBA",
            "TLDS.F16.LZ.P R6, R5, R5, R6, 0x50, 2D, RGBA",
        ],
    ),
    (
        "sparse.sm_60.sass",
        Sm::SM60,
        &["TEX.P P0, R4, R4, 0x50, 2D, 0xf"],
    ),
];

#[test]
fn ptxas_listings_of_later_sms_print_back_identically() {
    for (name, sm, texts) in FIXTURES {
        let src = case(name);
        for read_sm in Sm::ALL.into_iter().filter(|s| *s >= Sm::SM52) {
            let p = texlate::parse_text_with(Isa::Nvidia, &src, read(read_sm))
                .unwrap_or_else(|e| panic!("{name} on {read_sm} (ptxas: {sm}): {e}"));
            assert_eq!(nvidia::print_text(&p).unwrap(), src, "{name} on {read_sm}");
            // Every texture line is read as a texture instruction; its encoding comment is
            // the word texlate encodes.
            let encoded = nvidia::print_hex(&p).unwrap();
            for text in texts {
                let line = src.lines().find(|l| l.contains(text)).expect("the line");
                let word = line.rsplit("/* 0x").next().unwrap().trim_end_matches(" */");
                assert!(encoded.contains(word), "{name}: {word} in\n{encoded}");
                let inst = nvidia::decode_word_on(u64::from_str_radix(word, 16).unwrap(), read_sm)
                    .unwrap()
                    .unwrap();
                let plain = text.replace(".T ", " ").replace(".P ", " ");
                assert_eq!(nvidia::print_inst(&inst), plain, "{name} on {read_sm}");
            }
        }
    }
}

#[test]
fn sm50_refuses_them_at_their_line() {
    for (name, _, texts) in FIXTURES {
        let src = case(name);
        let first = texts[0];
        let line = 1 + src.lines().position(|l| l.contains(first)).unwrap() as u32;
        match texlate::parse_text_with(Isa::Nvidia, &src, read(Sm::SM50)) {
            Err(Error::Parse(e)) => {
                assert_eq!(e.line, line, "{name}: {e:?}");
                assert!(e.expected.contains("needs SM52 or later"), "{name}: {e:?}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn translation_refuses_f16_results_naming_them() {
    let src = case("sm53_forms.sm_53.sass");
    let mut o = texlate::translate::Options::new(Isa::Nvidia, Isa::Dxbc);
    o.read = read(Sm::SM53);
    match texlate::translate::translate(src.as_bytes(), &o) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(".F16") && msg.contains("half-precision"),
                "{msg}"
            );
        }
        Ok(t) => panic!("translated: {}", String::from_utf8_lossy(&t.output)),
    }
}

/// `TXD.LC` (SM52 on): the IR has no place for TXD's LOD clamp (where TXD reads it is not
/// known), so the word is not lifted (it dropped the bit when it was: the whole path wrote
/// the word back without it) but kept as read, as `.F16` words are: its listing line prints
/// `.LC`, re-encoding (whole and streamed) gives the word back with its bit, and
/// translation refuses it naming `.LC`.
#[test]
fn txd_lod_clamp_is_kept_as_read_and_refused_by_translation() {
    let word: u64 = 0xde3c_0007_a087_0400; // TXD.LC R0, R4, R8, 0x0, 2D, 0xf
    let control: u64 = 0x001f_8000_fc00_07e0;
    let nop: u64 = 0x50b0_0000_0007_0f00;
    let stream: Vec<u8> = [control, word, nop, nop]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let p = texlate::decode_with(Isa::Nvidia, &stream, read(Sm::SM52)).unwrap();
    assert_eq!(p.tex_instrs().count(), 0, "TXD.LC is not lifted");
    let text = texlate::encode(Isa::Nvidia, &p, texlate::Form::Text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("TXD.LC R0, R4, R8, 0x0, 2D, 0xf"), "{text}");
    let whole = texlate::encode(Isa::Nvidia, &p, texlate::Form::Binary).unwrap();
    assert_eq!(whole, stream);
    let mut out = Vec::new();
    texlate::stream::transcode(
        Isa::Nvidia,
        &mut std::io::Cursor::new(&stream),
        read(Sm::SM52),
        texlate::Form::Binary,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, stream);
    let mut o = texlate::translate::Options::new(Isa::Nvidia, Isa::Dxbc);
    o.read = read(Sm::SM52);
    match texlate::translate::translate(&stream, &o) {
        Err(e) => assert!(e.to_string().contains(".LC"), "{e}"),
        Ok(t) => panic!("translated: {}", String::from_utf8_lossy(&t.output)),
    }
}

fn case_bytes(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/nvidia")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The streamed identity of `input` read as `read` says, to `emit`: its output or error.
fn streamed(input: &[u8], read: ReadOptions, emit: texlate::Form) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    match texlate::stream::transcode(
        Isa::Nvidia,
        &mut std::io::Cursor::new(input),
        read,
        emit,
        &mut out,
    ) {
        Ok(_) => Ok(out),
        Err(texlate::stream::StreamError::Codec(e)) => Err(e),
        Err(e) => panic!("{e}"),
    }
}

/// The whole path's identity of `input`: its output or error.
fn whole(input: &[u8], read: ReadOptions, emit: texlate::Form) -> Result<Vec<u8>, Error> {
    texlate::decode_with(Isa::Nvidia, input, read)
        .and_then(|p| texlate::encode(Isa::Nvidia, &p, emit))
}

/// A cubin is read for the SM its ELF flags name (`EF_CUDA_SM60`: the low byte of
/// `e_flags`), as nvdisasm reads a cubin, whatever `--sm` says (it is for inputs that name
/// none): ptxas's sm_53 and sm_60 cubins decode without options, every path alike; a cubin
/// for an SM texlate does not read (Volta's 128-bit encoding) is refused at `e_flags`.
#[test]
fn cubins_are_read_for_the_sm_their_elf_flags_name() {
    for (name, sm) in [
        ("sm53_forms.sm_53.cubin", Sm::SM53),
        ("sparse.sm_60.cubin", Sm::SM60),
    ] {
        let bytes = case_bytes(name);
        for given in [Sm::SM50, sm, Sm::SM62] {
            let p = texlate::decode_with(Isa::Nvidia, &bytes, read(given)).unwrap();
            let text = texlate::encode(Isa::Nvidia, &p, texlate::Form::Text).unwrap();
            let listing = String::from_utf8(text).unwrap();
            assert!(
                listing.contains(".F16") || listing.contains("TEX.P P0"),
                "{listing}"
            );
            for emit in [texlate::Form::Text, texlate::Form::Binary] {
                let w = whole(&bytes, read(given), emit).unwrap();
                assert_eq!(streamed(&bytes, read(given), emit), Ok(w.clone()), "{name}");
                if emit == texlate::Form::Binary {
                    assert_eq!(w, bytes, "{name}: the identity gives the cubin back");
                }
            }
        }
        // Volta and later: refused where the flags are.
        let mut volta = bytes.clone();
        volta[0x30] = 75;
        for emit in [texlate::Form::Text, texlate::Form::Binary] {
            let e = whole(&volta, read(sm), emit).unwrap_err();
            assert!(e.to_string().contains("SM75"), "{e}");
            assert!(e.to_string().contains("0x30"), "{e}");
            assert_eq!(streamed(&volta, read(sm), emit), Err(e));
        }
    }
}

/// `.headerflags @"... EF_CUDA_SM60 ..."` (nvdisasm and cuobjdump print it ahead of each
/// cubin's or function's code) sets the SM of the lines after it; every path reads it alike.
#[test]
fn listings_are_read_for_the_sm_their_headerflags_name() {
    let flags = |sm: &str| {
        format!(
            "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_{sm} \
             EF_CUDA_VIRTUAL_SM(EF_CUDA_SM50)\"\n"
        )
    };
    for (name, sm, _) in FIXTURES {
        let body = case(name);
        let named = format!("{}{body}", flags(sm.name()));
        let src = named.as_bytes();
        let w = whole(src, read(Sm::SM50), texlate::Form::Text).unwrap();
        assert_eq!(w, src, "{name}: the identity gives the listing back");
        assert_eq!(streamed(src, read(Sm::SM50), texlate::Form::Text), Ok(w));
        // An SM50 cubin's code after this one's: its SM is read from its own flags, and the
        // later-SM forms are refused there, at their line.
        let two = format!("{named}{}{body}", flags("SM50"));
        let e = whole(two.as_bytes(), read(sm), texlate::Form::Text).unwrap_err();
        match &e {
            Error::Parse(p) => {
                assert!(p.line as usize > named.lines().count(), "{e:?}");
                assert!(p.expected.contains("needs SM52 or later"), "{e:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            streamed(two.as_bytes(), read(sm), texlate::Form::Text),
            Err(e)
        );
        // Code of an SM texlate does not read is refused at its flags.
        let volta = format!("// a listing\n{}{body}", flags("SM75"));
        let e = whole(volta.as_bytes(), read(sm), texlate::Form::Text).unwrap_err();
        match &e {
            Error::Parse(p) => assert_eq!((p.line, p.column), (2, 2), "{e:?}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            streamed(volta.as_bytes(), read(sm), texlate::Form::Text),
            Err(e)
        );
    }
}
