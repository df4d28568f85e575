//! The NVIDIA field sweep (`scripts/sweep-nvidia-fields.py`): every field value of every form,
//! bound and `.B`, `.F16` included, put through nvdisasm 12.4 for SM50, SM52, SM53, SM60 and
//! SM61. texlate's `disasm` must print every word nvdisasm prints exactly as nvdisasm prints it
//! (reserved values it spells `INVALID…`, register vectors past R254 and TXD on 3D/cube targets
//! included) and refuse, with its byte offset, exactly the words nvdisasm calls UNDECODABLE.
//!
//! `tests/cases/nvidia/field_sweep.tsv` is a sample of the sweep with nvdisasm's text, checked
//! without the oracle. The ignored `full_sweep_matches_nvdisasm` checks every swept word
//! (`scripts/sweep-nvidia-fields.py --check` runs the oracle, then this test).

use std::io::Cursor;
use std::path::PathBuf;

use texlate::isa::nvidia::table::OpClass;
use texlate::isa::nvidia::Sm;
use texlate::stream::{self, StreamError};
use texlate::{Error, Isa, ReadOptions};

fn read(sm: Sm) -> ReadOptions {
    ReadOptions {
        sm,
        ..ReadOptions::default()
    }
}

/// `disasm --hex WORDS --sm SM`: the text, or the error.
fn disasm_hex(words: &[&str], sm: Sm) -> Result<String, Error> {
    let mut out = Vec::new();
    match stream::disasm_hex_with(Isa::Nvidia, words, read(sm), &mut out) {
        Ok(_) => Ok(String::from_utf8(out).expect("text output is UTF-8")),
        Err(StreamError::Codec(e)) => Err(e),
        Err(StreamError::Io(e)) => panic!("I/O error on memory: {e}"),
    }
}

/// Whether nvdisasm's `text` is a texture instruction (the forms texlate reads).
fn is_texture(text: &str) -> bool {
    let mut toks = text.split_whitespace();
    let mut first = toks.next().unwrap_or("");
    if first.starts_with('@') {
        first = toks.next().unwrap_or("");
    }
    OpClass::from_mnemonic(first.split('.').next().unwrap_or("")).is_some()
}

#[derive(Default, Debug)]
struct Counts {
    identical: usize,
    undecodable: usize,
    other: usize,
    mismatches: Vec<String>,
}

impl Counts {
    /// Checks one swept word: `text` is nvdisasm's (`UNDECODABLE` for a refusal). A word that
    /// nvdisasm prints as another instruction (a flipped opcode bit) is not a texture
    /// instruction: texlate's `--hex` refuses it as such.
    fn check(&mut self, sm: Sm, word: &str, text: &str) {
        // Every word that decodes encodes back to itself (INVALID… values, raw bits included).
        let w = u64::from_str_radix(word, 16).expect("a hex word");
        if let Ok(Some(inst)) = texlate::isa::nvidia::decode_word_on(w, sm) {
            if texlate::isa::nvidia::encode_word(&inst) != Ok(w) {
                self.mismatches
                    .push(format!("{sm} {word}: does not encode back ({inst:?})"));
            }
        }
        let got = disasm_hex(&[word], sm);
        let ok = match (text, &got) {
            ("UNDECODABLE", Err(Error::Decode(d))) => {
                self.undecodable += 1;
                d.offset == 0
            }
            (t, Ok(g)) if is_texture(t) => {
                self.identical += usize::from(*g == format!("{t}\n"));
                *g == format!("{t}\n")
            }
            (t, Err(Error::Decode(d))) if !is_texture(t) && t != "UNDECODABLE" => {
                self.other += 1;
                d.reason.contains("is not a texture instruction")
            }
            _ => false,
        };
        if !ok {
            self.mismatches
                .push(format!("{sm} {word}: nvdisasm `{text}`, texlate {got:?}"));
        }
    }

    fn assert_clean(&self, what: &str) {
        eprintln!(
            "{what}: {} identical, {} UNDECODABLE refused, {} other instructions, {} mismatches",
            self.identical,
            self.undecodable,
            self.other,
            self.mismatches.len()
        );
        assert!(
            self.mismatches.is_empty(),
            "{what}: {} mismatches, first:\n{}",
            self.mismatches.len(),
            self.mismatches[..self.mismatches.len().min(20)].join("\n")
        );
    }
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `(sm, word, text)` rows of the fixture.
fn fixture() -> Vec<(Sm, String, String)> {
    let path = manifest().join("tests/cases/nvidia/field_sweep.tsv");
    let text = std::fs::read_to_string(&path).expect("the field-sweep fixture");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let sm = f.next().and_then(Sm::parse).expect("an SM");
            (
                sm,
                f.next().unwrap().to_string(),
                f.next().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn fixture_matches_nvdisasm() {
    let rows = fixture();
    let mut counts = Counts::default();
    for (sm, word, text) in &rows {
        counts.check(*sm, word, text);
    }
    counts.assert_clean("tests/cases/nvidia/field_sweep.tsv");
    // The sample holds every kind of word, on every SM.
    for sm in Sm::ALL {
        let of = |pred: &dyn Fn(&str) -> bool| {
            rows.iter().filter(|(s, _, t)| *s == sm && pred(t)).count()
        };
        assert!(of(&|t| t == "UNDECODABLE") > 0, "{sm}: no UNDECODABLE word");
        assert!(
            of(&|t| t.contains("INVALID") && is_texture(t)) > 0,
            "{sm}: no INVALID word"
        );
        assert!(of(&|t| is_texture(t)) > 500, "{sm}: few printed words");
    }
    assert!(counts.identical > 2500 && counts.undecodable > 100);
}

/// Every word of the full sweep (`DIR/sweep.<SM>.tsv`, written by the script).
#[test]
#[ignore = "needs the full sweep: scripts/sweep-nvidia-fields.py --check (runs the NVIDIA oracle)"]
fn full_sweep_matches_nvdisasm() {
    let dir = std::env::var_os("TEXLATE_SWEEP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/nvidia-sweep"));
    let mut total = Counts::default();
    let mut files = 0;
    for sm in Sm::ALL {
        let path = dir.join(format!("sweep.{sm}.tsv"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!(
                "{}: missing (run scripts/sweep-nvidia-fields.py)",
                path.display()
            );
            continue;
        };
        files += 1;
        let mut counts = Counts::default();
        for line in text.lines() {
            let (word, t) = line.split_once('\t').expect("word<TAB>text");
            counts.check(sm, word, t);
        }
        counts.assert_clean(&format!("{sm} ({} words)", text.lines().count()));
        total.identical += counts.identical;
        total.undecodable += counts.undecodable;
        total.other += counts.other;
    }
    assert_eq!(
        files,
        Sm::ALL.len(),
        "the sweep of every SM, in {}",
        dir.display()
    );
    total.assert_clean("all SMs");
}

/// A word nvdisasm prints, from the fixture, whose text satisfies `pred`.
fn fixture_word(sm: Sm, pred: impl Fn(&str) -> bool) -> (String, String) {
    fixture()
        .into_iter()
        .find(|(s, _, t)| *s == sm && pred(t))
        .map(|(_, w, t)| (w, t))
        .expect("a fixture word")
}

fn word_bytes(words: &[&str]) -> Vec<u8> {
    // A raw stream: one bundle, the control word first.
    let mut bytes = 0x0000_07e0_07e0_07e0u64.to_le_bytes().to_vec();
    for w in words {
        bytes.extend(u64::from_str_radix(w, 16).unwrap().to_le_bytes());
    }
    bytes
}

#[test]
fn invalid_values_print_in_disasm_and_are_refused_by_translate_and_asm() {
    for (spelling, expected_field) in [
        ("INVALIDBLOD4", "LOD mode"),
        ("INVALIDBTOFF03", "offset mode"),
        ("INVALID6", "component code"),
    ] {
        let (word, text) = fixture_word(Sm::SM50, |t| t.contains(spelling) && is_texture(t));
        // disasm: printed as nvdisasm prints it, from --hex and from a word stream.
        assert_eq!(disasm_hex(&[&word], Sm::SM50).unwrap(), format!("{text}\n"));
        let bytes = word_bytes(&[&word]);
        let mut out = Vec::new();
        stream::disasm_with(
            Isa::Nvidia,
            &mut Cursor::new(&bytes),
            read(Sm::SM50),
            &mut out,
        )
        .unwrap();
        let listing = String::from_utf8(out).unwrap();
        assert!(listing.contains(&format!("{text} ;")), "{listing}");
        // The whole-program path prints the same.
        let p = texlate::decode_with(Isa::Nvidia, &bytes, read(Sm::SM50)).unwrap();
        let c = texlate::isa::codec(Isa::Nvidia);
        assert_eq!(c.print_text(&p).unwrap(), listing);
        // translate: refused, naming the instruction and the field, at the word's offset.
        let mut o = texlate::translate::Options::new(Isa::Nvidia, Isa::Dxbc);
        o.read = read(Sm::SM50);
        match texlate::translate::translate(&bytes, &o) {
            Err(Error::Validation(v)) => {
                assert_eq!(v.location, texlate::error::Location::Binary { offset: 8 });
                assert_eq!(v.rule, expected_field);
                assert!(
                    v.detail.contains(&text) && v.detail.contains(spelling),
                    "{v:?}"
                );
            }
            other => panic!("{spelling}: translate gave {other:?}"),
        }
        // asm: the printed text is refused at the INVALID token, with its line and column.
        let src = format!("\n  {text}\n");
        match texlate::parse_text_with(Isa::Nvidia, &src, read(Sm::SM50)) {
            Err(Error::Parse(e)) => {
                assert_eq!((e.line, e.token.as_str()), (2, spelling), "{e:?}");
                assert_eq!(e.column as usize, 3 + text.find(spelling).unwrap(), "{e:?}");
                assert!(e.expected.contains("reserved"), "{e:?}");
            }
            other => panic!("{spelling}: asm gave {other:?}"),
        }
        // Binary re-encoding refuses it too.
        assert!(matches!(
            texlate::encode(Isa::Nvidia, &p, texlate::Form::Binary),
            Err(Error::Validation(_))
        ));
    }
}

#[test]
fn undecodable_words_are_refused_with_their_offset() {
    let (bad, _) = fixture_word(Sm::SM50, |t| t == "UNDECODABLE");
    let (good, good_text) = fixture_word(Sm::SM50, |t| is_texture(t) && !t.contains("INVALID"));
    match disasm_hex(&[&good, &bad], Sm::SM50) {
        Err(Error::Decode(d)) => assert_eq!(d.offset, 8, "{d:?}"),
        other => panic!("{other:?}"),
    }
    // In a stream: the bundle's control word first, so the bad word is at byte 16.
    let bytes = word_bytes(&[&good, &bad]);
    let mut out = Vec::new();
    match stream::disasm_with(
        Isa::Nvidia,
        &mut Cursor::new(&bytes),
        read(Sm::SM50),
        &mut out,
    ) {
        Err(StreamError::Codec(Error::Decode(d))) => assert_eq!(d.offset, 16, "{d:?}"),
        other => panic!("{other:?}"),
    }
    assert!(out.is_empty(), "nothing is written when a word is refused");
    assert_eq!(
        disasm_hex(&[&good], Sm::SM50).unwrap(),
        format!("{good_text}\n")
    );
}

#[test]
fn sm_decides_what_decodes() {
    // The sparse predicate and .LC: SM52 on; .F16: SM52 on; .RTZ: SM60 on; TLD4 .NDV up to SM53.
    for (needle, first) in [
        ("TEX.LC ", Sm::SM52),
        ("TEX.B.LC ", Sm::SM52),
        ("TXD.LC ", Sm::SM52),
        ("TEXS.F16 ", Sm::SM52),
        ("TLDS.F16", Sm::SM52),
        ("TLD4S.F16", Sm::SM52),
        ("F16.RTZ", Sm::SM60),
    ] {
        let (word, text) = fixture_word(Sm::SM61, |t| {
            t.contains(needle) && (needle.contains("RTZ") || !t.contains("RTZ"))
        });
        for sm in Sm::ALL {
            let got = disasm_hex(&[&word], sm);
            if sm >= first {
                assert_eq!(got.unwrap(), format!("{text}\n"), "{sm} {word}");
            } else {
                let e = got.unwrap_err().to_string();
                // The first gate the SM misses: the .F16 form's (SM52), then the field's.
                let gate = if needle.contains("F16") && sm < Sm::SM52 {
                    Sm::SM52
                } else {
                    first
                };
                assert!(e.contains(&format!("needs {gate}")), "{sm} {word}: {e}");
            }
        }
    }
    let (word, text) = fixture_word(Sm::SM53, |t| t.starts_with("TLD4.R.NDV "));
    assert_eq!(disasm_hex(&[&word], Sm::SM53).unwrap(), format!("{text}\n"));
    assert_eq!(
        disasm_hex(&[&word], Sm::SM60).unwrap(),
        format!("{}\n", text.replace(".NDV", ""))
    );
}

#[test]
fn asm_encodes_by_sm() {
    for (text, first) in [
        ("TEX.LC R4, R8, R12, 0x6e, 2D, 0xf", Sm::SM52),
        ("TEX P3, R4, R8, R12, 0x6e, 2D, 0xf", Sm::SM52),
        ("TEXS.F16 R16, R4, R8, R12, 0x6e, 2D, RGBA", Sm::SM52),
        ("TLD4S.F16.RTZ.G R16, R4, R8, R12, 0x6e", Sm::SM60),
    ] {
        for sm in Sm::ALL {
            let got = texlate::parse_text_with(Isa::Nvidia, text, read(sm));
            if sm < first {
                match got {
                    Err(Error::Parse(e)) => {
                        assert_eq!((e.line, e.column), (1, 1), "{e:?}");
                        // The first gate the SM misses: the form's (.F16: SM52), then the field's.
                        let gate = if sm < Sm::SM52 { Sm::SM52 } else { first };
                        assert!(e.expected.contains(&format!("needs {gate}")), "{e:?}");
                    }
                    other => panic!("{sm} `{text}`: {other:?}"),
                }
                continue;
            }
            let inst = texlate::isa::nvidia::parse_inst(text, 1, 1).unwrap();
            let word = texlate::isa::nvidia::encode_word_on(&inst, sm).unwrap();
            // The word disassembles back to the text on that SM.
            let hex = format!("{word:016x}");
            assert_eq!(
                disasm_hex(&[&hex], sm).unwrap(),
                format!("{text}\n"),
                "{sm}"
            );
        }
    }
}

#[test]
fn the_generated_table_matches_the_decoder_tables() {
    // mappings/nvidia_fields.toml is what the sweep saw; mappings/nvidia.toml's SM gates
    // must say the same: a field gated to SM52 is UNDECODABLE (when set) on SM50 only.
    let text = std::fs::read_to_string(manifest().join("mappings/nvidia_fields.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    let table = texlate::isa::nvidia::table::table();
    let mut checked = 0;
    for row in doc["field"].as_array().unwrap() {
        let form_name = row["form"].as_str().unwrap();
        let field = row["field"].as_str().unwrap();
        let sms: Vec<Sm> = row["sm"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| Sm::parse(s.as_str().unwrap()).unwrap())
            .collect();
        let form = table
            .forms
            .iter()
            .find(|f| {
                let name = format!(
                    "{}{}{}",
                    f.op.mnemonic(),
                    if f.f16 { ".F16" } else { "" },
                    if f.bindless { ".B" } else { "" }
                );
                name == form_name
            })
            .unwrap_or_else(|| panic!("form {form_name}"));
        let f = form
            .fields
            .iter()
            .find(|f| format!("{:?}", f.name).to_lowercase() == field.replace('_', ""))
            .unwrap_or_else(|| panic!("{form_name} field {field}"));
        let bits = row["bits"].as_array().unwrap();
        assert_eq!(
            (bits[0].as_integer(), bits[1].as_integer()),
            (Some(i64::from(f.lo)), Some(i64::from(f.width))),
            "{form_name} {field}"
        );
        // A one-bit flag prints on the SMs that decode it, and nothing past its last SM.
        if let (1, Some(values)) = (f.width, row.get("values")) {
            let set = values["1"].as_str().unwrap();
            for &sm in &sms {
                if sm > f.until {
                    assert_eq!(set, "=", "{form_name} {field} on {sm}: past {}", f.until);
                } else if sm >= f.sm.max(form.sm) {
                    assert!(
                        set != "=" && set != "UNDECODABLE",
                        "{form_name} {field} on {sm}"
                    );
                }
            }
        }
        let Some(undecodable) = row.get("undecodable").and_then(|u| u.as_array()) else {
            continue;
        };
        for sm in sms {
            // Gated fields: every value but the absent one is UNDECODABLE before their SM.
            if sm < f.sm.max(form.sm) {
                assert!(
                    undecodable.len() >= (1usize << f.width) - 1,
                    "{form_name} {field} on {sm}: gated, but nvdisasm decodes {undecodable:?}"
                );
            } else if !matches!(
                f.name,
                texlate::isa::nvidia::table::FieldName::Target
                    | texlate::isa::nvidia::table::FieldName::Query
            ) {
                assert!(
                    undecodable.is_empty(),
                    "{form_name} {field} on {sm}: nvdisasm refuses {undecodable:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 200, "{checked}");
    // The decoder reads the file's head only: it holds the whole [invalid] table.
    let head: toml::Value = toml::from_str(texlate::isa::nvidia::table::fields_head()).unwrap();
    assert_eq!(head["invalid"], doc["invalid"]);
    assert!(head.get("field").is_none());
    let invalid = &table.invalid;
    for (name, t) in [
        ("lod", &invalid.lod),
        ("offset_mode", &invalid.offset_mode),
        ("comps_quad", &invalid.comps_quad),
    ] {
        let from_file = doc["invalid"][name].as_table().unwrap();
        assert_eq!(from_file.len(), t.len(), "{name}");
        assert!(!t.is_empty(), "{name}");
        for (code, spelling) in t {
            assert_eq!(
                from_file[&code.to_string()].as_str(),
                Some(spelling.as_str())
            );
        }
    }
}
