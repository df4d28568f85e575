//! Every op of every source ISA translated to each other ISA, text and binary, under insta
//! snapshots: one snapshot per direction with every case (the source line, the text output,
//! the binary output as hex, or the refusal). Every translation is also checked with the
//! semantic models, and its binary must decode to the texture instructions of its text.

use std::fmt::Write as _;

use texlate::translate::{self, Options};
use texlate::{isa, Form, Isa};

mod support;

use support::hex_lines;

use support::translate_corpus::translate_cases;

fn direction(from: Isa, to: Isa) -> String {
    let mut out = String::new();
    for (src, bindings) in translate_cases(from) {
        let line = src.lines().last().unwrap_or("");
        let _ = writeln!(out, "==== {line}");
        let mut o = Options::new(from, to);
        o.bindings = bindings;
        let text = match translate::translate(src.as_bytes(), &o) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(out, "error: {e}\n");
                continue;
            }
        };
        let check = translate::check(src.as_bytes(), &text, &o, 7).expect("the models read it");
        assert!(check.agrees(), "{line}: {from:?} -> {to:?}\n{check}");
        let printed = String::from_utf8(text.output.clone()).unwrap();
        let _ = writeln!(out, "{}", printed.trim_end());
        o.emit = Form::Binary;
        let binary = translate::translate(src.as_bytes(), &o).expect("binary too");
        // The output a backend writes as it lays the target program out is what encoding
        // that program writes.
        let c = isa::codec(to);
        for (t, form) in [(&text, Form::Text), (&binary, Form::Binary)] {
            let encoded = texlate::encode(to, &t.program, form).expect("the program encodes");
            assert!(t.output == encoded, "{line}: {from:?} -> {to:?} {form:?}");
        }
        if to == Isa::Dxbc {
            let mut ot = o.clone();
            ot.emit = Form::Tokens;
            let t = translate::translate(src.as_bytes(), &ot).expect("tokens too");
            let encoded = texlate::encode(to, &t.program, Form::Tokens).unwrap();
            assert!(t.output == encoded, "{line}: {from:?} -> {to:?} tokens");
        }
        // The binary holds the texture instructions of the text.
        let from_text = c.parse_text(&printed, Default::default()).unwrap();
        let from_binary = match c.decode_binary(&binary.output) {
            Ok(p) => p,
            // texlate reads vISA binaries of sampler instructions only: a kernel with the
            // moves of a translation is compared through its text alone.
            Err(_) if to == Isa::Visa && text.report().instructions.iter().any(|i| i.moves > 0) => {
                from_text.clone()
            }
            Err(e) => panic!("{line}: {from:?} -> {to:?}: the binary does not decode: {e}"),
        };
        let ir = |p: &texlate::Program| -> Vec<String> {
            p.tex_instrs()
                .map(|t| {
                    let mut t = t.clone();
                    t.span = Default::default();
                    t.origin = texlate::ir::Origin::SYNTHETIC;
                    // vISA's binary carries no declarations, so no element types.
                    if to == Isa::Visa {
                        (t.coord_type, t.result_type) = (None, None);
                    }
                    t.to_string()
                })
                .collect()
        };
        assert_eq!(
            ir(&from_text),
            ir(&from_binary),
            "{line}: {from:?} -> {to:?}"
        );
        let _ = writeln!(
            out,
            "-- binary ({} bytes)\n{}\n",
            binary.output.len(),
            hex_lines(&binary.output)
        );
    }
    out
}

/// Every direction, snapshotted as `translate_<from>_to_<to>`.
#[test]
fn every_direction() {
    support::snap_directions("translate", direction);
}
