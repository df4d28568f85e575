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
