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
/// known), so the word is refused as `.F16` words are, naming `.LC`, where it dropped the bit
/// before (the whole path wrote the word back without it, the streamed path unchanged): its
/// listing line prints `.LC`, re-encoding and the streamed re-encoding refuse it alike, and
/// translation refuses it.
#[test]
fn txd_lod_clamp_is_refused_not_dropped() {
    let word: u64 = 0xde3c_0007_a087_0400; // TXD.LC R0, R4, R8, 0x0, 2D, 0xf
    let control: u64 = 0x001f_8000_fc00_07e0;
    let nop: u64 = 0x50b0_0000_0007_0f00;
    let stream: Vec<u8> = [control, word, nop, nop]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let p = texlate::decode_with(Isa::Nvidia, &stream, read(Sm::SM52)).unwrap();
    let text = texlate::encode(Isa::Nvidia, &p, texlate::Form::Text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("TXD.LC R0, R4, R8, 0x0, 2D, 0xf"), "{text}");
    let whole = texlate::encode(Isa::Nvidia, &p, texlate::Form::Binary);
    match &whole {
        Err(Error::Validation(v)) => {
            assert!(v.rule == ".LC" && v.detail.contains("TXD.LC"), "{v:?}")
        }
        other => panic!("{other:?}"),
    }
    let mut out = Vec::new();
    let streamed = texlate::stream::transcode(
        Isa::Nvidia,
        &mut std::io::Cursor::new(&stream),
        read(Sm::SM52),
        texlate::Form::Binary,
        &mut out,
    );
    match streamed {
        Err(texlate::stream::StreamError::Codec(e)) => assert_eq!(Err(e), whole),
        other => panic!("{other:?}"),
    }
    let mut o = texlate::translate::Options::new(Isa::Nvidia, Isa::Dxbc);
    o.read = read(Sm::SM52);
    match texlate::translate::translate(&stream, &o) {
        Err(e) => assert!(e.to_string().contains(".LC"), "{e}"),
        Ok(t) => panic!("translated: {}", String::from_utf8_lossy(&t.output)),
    }
}
