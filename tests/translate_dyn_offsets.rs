//! Programmable offsets (issue 8 item 4): offsets in registers translated between the three
//! ISAs by the emulations of `src/passes/` (`offsets_to_register`, `offsets_from_register`,
//! `repack_offsets`, `emulate_ptp_gathers`), and refused with the rule table's reason where the target cannot
//! express them.
//!
//! - Snapshots of every case of `tests/cases/dyn_offsets/` to each other ISA: the text, the
//!   binary, the rules that fired, or the refusal. Every translation is checked with the
//!   semantic models (four seeds): the offsets the target's sampler sees, field by field and
//!   sign-extended by the target's width, are the source's.
//! - Mutations of the emitted ALU (field position, width, signedness, which component goes
//!   where) make the check disagree: it evaluates the sequence, it does not trust it.
//! - Every corpus instruction with register offsets, translated to each other ISA: counts
//!   per emulation and refusal, and every translation agrees with its source.
//!
//! The vendor tools' verdicts on these cases are the oracle tier's
//! (`tests/translate_oracle.rs`, `offset_emulations_are_accepted`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use texlate::ir::Offset;
use texlate::translate::{self, Options, Translation};
use texlate::{Form, Isa};

mod support;

use support::hex_lines;

use support::translate_corpus::cases_in;

const PASSES: [&str; 4] = [
    "offsets_to_register",
    "offsets_from_register",
    "repack_offsets",
    "emulate_ptp_gathers",
];

fn options(from: Isa, to: Isa, bindings: &Option<(String, String)>) -> Options {
    let mut o = Options::new(from, to);
    o.bindings = bindings.clone();
    o
}

/// Whether the translation agrees with its source under seeds 1..=4.
fn agrees(src: &str, t: &Translation, o: &Options) -> Result<(), String> {
    for seed in 1..=4 {
        let c = translate::check(src.as_bytes(), t, o, seed).map_err(|e| e.to_string())?;
        if !c.agrees() {
            return Err(c.to_string());
        }
    }
    Ok(())
}

/// Every case of `from` translated to `to`: the source line, the rules about its offsets,
/// the text and the binary, or the refusal.
fn direction(from: Isa, to: Isa) -> String {
    let mut out = String::new();
    for (src, bindings) in cases_in("dyn_offsets", from) {
        let line = src.lines().last().unwrap_or("");
        let _ = writeln!(out, "==== {line}");
        let mut o = options(from, to, &bindings);
        let t = match translate::translate(src.as_bytes(), &o) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(out, "error: {e}\n");
                continue;
            }
        };
        if let Err(e) = agrees(&src, &t, &o) {
            panic!("{line}: {from:?} -> {to:?} disagrees:\n{e}");
        }
        for i in &t.report().instructions {
            for r in i
                .rules
                .iter()
                .filter(|r| r.contains("offset") || PASSES.iter().any(|p| r.starts_with(p)))
            {
                let _ = writeln!(out, "; {r}");
            }
        }
        let text = String::from_utf8(t.output).unwrap();
        let code: Vec<&str> = text
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                !l.starts_with("//") && !l.starts_with(".decl T") && !l.starts_with("movs")
            })
            .collect();
        let _ = writeln!(out, "{}", code.join("\n").trim_end());
        o.emit = Form::Binary;
        let binary = translate::translate(src.as_bytes(), &o).expect("binary too");
        let _ = writeln!(
            out,
            "-- binary ({} bytes)\n{}\n",
            binary.output.len(),
            hex_lines(&binary.output)
        );
    }
    out
}

/// Every direction, snapshotted as `dyn_offsets_<from>_to_<to>`.
#[test]
fn every_direction() {
    support::snap_directions("dyn_offsets", direction);
}

/// Replaces the first line of `text` containing `find` by `edit(line)`.
fn edit_line(text: &str, find: &str, edit: impl Fn(&str) -> String) -> String {
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.contains(find) {
                done = true;
                edit(l)
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

/// Translates case `n` of `from` to `to`, then checks `mutate(output text)` against the
/// source: `true` when it agrees under every seed tried.
fn mutated_agrees(from: Isa, to: Isa, n: usize, mutate: impl Fn(&str) -> String) -> bool {
    let (src, bindings) = cases_in("dyn_offsets", from).swap_remove(n);
    let o = options(from, to, &bindings);
    let t = translate::translate(src.as_bytes(), &o).unwrap();
    let text = String::from_utf8(t.output.clone()).unwrap();
    assert!(
        agrees(&src, &t, &o).is_ok(),
        "the translation itself agrees"
    );
    let mutated = mutate(&text);
    assert_ne!(mutated, text, "the mutation changes the output");
    (1..=8u64).all(|seed| {
        texlate::check::compare(
            from,
            src.as_bytes(),
            to,
            mutated.as_bytes(),
            &t.bindings,
            &t.regmap,
            seed,
        )
        .expect("the models read it")
        .agrees()
    })
}

/// The check evaluates the emitted sequences: a wrong field position, width or signedness,
/// or the components swapped, reads as other offsets than the source's.
#[test]
fn wrong_sequences_disagree() {
    // DX gather4_po → NVIDIA: `MOV32I Rc, 0x608; BFI Rd, Rv, Rc, Ru`.
    let (dx, nv, visa) = (Isa::Dxbc, Isa::Nvidia, Isa::Visa);
    let control = |from: &str, to: &'static str| {
        let from = from.to_string();
        move |t: &str| edit_line(t, &from, |l| l.replace(&from, to))
    };
    assert!(
        !mutated_agrees(dx, nv, 0, control("0x608", "0x508")),
        "width 5"
    );
    assert!(
        !mutated_agrees(dx, nv, 0, control("0x608", "0x604")),
        "at bit 4"
    );
    assert!(
        !mutated_agrees(dx, nv, 0, control("0x608", "0x600")),
        "at bit 0"
    );
    let swap_bfi = |t: &str| {
        edit_line(t, "BFI ", |l| {
            // `BFI Rd, Rv, Rc, Ru` → `BFI Rd, Ru, Rc, Rv`: u inserted into v.
            let (head, rest) = l.split_once("BFI ").unwrap();
            let (ops, tail) = rest.split_once(" ;").unwrap();
            let o: Vec<&str> = ops.split(", ").collect();
            format!("{head}BFI {}, {}, {}, {} ;{tail}", o[0], o[3], o[2], o[1])
        })
    };
    assert!(!mutated_agrees(dx, nv, 0, swap_bfi), "components swapped");
    // ... and the unmutated sequence, re-read from its text, agrees.
    assert!(mutated_agrees(dx, nv, 0, |t: &str| format!("{t}\n")));

    // NVIDIA TLD4.AOFFI → DX gather4_po: `ibfe x, l(6), l(0), P; ibfe y, l(6), l(8), P`.
    let ibfe_y = |to: &'static str| {
        move |t: &str| edit_line(t, "l(6), l(8)", |l| l.replace("l(6), l(8)", to))
    };
    assert!(!mutated_agrees(nv, dx, 0, ibfe_y("l(4), l(8)")), "width 4");
    assert!(!mutated_agrees(nv, dx, 0, ibfe_y("l(6), l(7)")), "at bit 7");
    assert!(!mutated_agrees(nv, dx, 0, ibfe_y("l(6), l(0)")), "u as v");
    // Extracting 6 bits unsigned is the same offset: DX honours the low 6 bits.
    assert!(mutated_agrees(nv, dx, 0, |t: &str| edit_line(
        t,
        "l(6), l(8)",
        |l| l.replace("ibfe", "ubfe")
    )));

    // vISA sample4 aoffimmi variable → NVIDIA TLD4: 4-bit U[11:8] V[7:4] into 6-bit fields
    // at bits 5:0 and 13:8 — the sign extension matters there.
    let unsigned = |t: &str| edit_line(t, "BFE ", |l| l.replace("BFE ", "BFE.U32 "));
    assert!(
        !mutated_agrees(visa, nv, 2, unsigned),
        "4-bit fields zero-extended"
    );
    assert!(
        !mutated_agrees(visa, nv, 2, control("0x408", "0x400")),
        "u read from R[3:0]"
    );
    // NVIDIA TLD4.PTP → DX: four gather4_po, texel k's bytes 2k, 2k + 1; texel k from the
    // k-th. Another texel's offsets, or the texels' order, read differently.
    assert!(
        !mutated_agrees(nv, dx, 5, |t: &str| edit_line(t, "l(6), l(16)", |l| l
            .replace("l(6), l(16)", "l(6), l(0)"))),
        "texel 1 given texel 0's u"
    );
    assert!(
        !mutated_agrees(nv, dx, 5, |t: &str| edit_line(t, "l(6), l(8), r1.w", |l| l
            .replace("r1.w", "r1.z"))),
        "texel 2 given texel 0's v"
    );
    let swap_moves = |t: &str| {
        let t = t
            .replace("mov r0.x,", "@X@")
            .replace("mov r0.y,", "mov r0.x,");
        t.replace("@X@", "mov r0.y,")
    };
    assert!(
        !mutated_agrees(nv, dx, 5, swap_moves),
        "texels 0 and 1 swapped"
    );
    // vISA sample aoffimmi variable → NVIDIA TEX: U[11:8] → U[3:0].
    assert!(
        !mutated_agrees(visa, nv, 3, control("0x400", "0x408")),
        "u put at R[11:8]"
    );
}

/// Every corpus instruction with register offsets (DX `gather4_po*`, NVIDIA `.AOFFI`
/// registers and `.PTP`, vISA `sample4_po*` and aoffimmi variables), alone with its
/// declarations, translated to each other ISA: each translation agrees with its source;
/// counts per emulation (the pass the Report names) and per refusal are printed
/// (`-- --nocapture`).
#[test]
fn corpus_register_offsets() {
    let mut report = String::new();
    let mut emulated = 0;
    for from in [Isa::Dxbc, Isa::Nvidia, Isa::Visa] {
        let Some(list) = support::sources(from) else {
            return;
        };
        let list: Vec<_> = list
            .into_iter()
            .filter(|(src, _)| {
                texlate::parse_text_with(
                    from,
                    src,
                    texlate::ReadOptions {
                        igc_compatible: true,
                        ..texlate::ReadOptions::default()
                    },
                )
                .is_ok_and(|p| {
                    p.tex_instrs().any(|t| {
                        matches!(
                            t.offset,
                            Offset::Dynamic(_) | Offset::Packed(_) | Offset::PerTexel(_)
                        )
                    })
                })
            })
            .collect();
        for to in [Isa::Dxbc, Isa::Nvidia, Isa::Visa] {
            if to == from {
                continue;
            }
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for (src, bindings) in &list {
                let mut o = options(from, to, bindings);
                o.read.igc_compatible = true;
                let key = match translate::translate(src.as_bytes(), &o) {
                    Ok(t) => {
                        if let Err(e) = agrees(src, &t, &o) {
                            panic!("{src}: {from:?} -> {to:?} disagrees:\n{e}");
                        }
                        let pass = t.report().instructions.iter().find_map(|i| {
                            PASSES
                                .iter()
                                .find(|p| i.rules.iter().any(|r| r.starts_with(**p)))
                        });
                        match pass {
                            Some(p) => {
                                emulated += 1;
                                format!("agree, emulated by {p}")
                            }
                            None => "agree, native or folded to immediates".to_string(),
                        }
                    }
                    Err(texlate::Error::Unsupported(u)) => {
                        format!("refused: {}", u.why.chars().take(90).collect::<String>())
                    }
                    Err(e) => panic!("{src}: {from:?} -> {to:?}: {e}"),
                };
                *counts.entry(key).or_default() += 1;
            }
            let _ = writeln!(
                report,
                "{} -> {}: {} instructions with register offsets",
                from.name(),
                to.name(),
                list.len()
            );
            for (k, n) in counts {
                let _ = writeln!(report, "    {n:5} {k}");
            }
        }
    }
    support::print_report(&report);
    assert!(
        emulated > 0,
        "the corpora have emulated register offsets\n{report}"
    );
}
