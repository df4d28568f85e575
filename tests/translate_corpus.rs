//! Every texture instruction of the three corpora translated to each other ISA, alone (with
//! its program's declarations): translated, or refused with a typed `unsupported` error
//! naming the reason. Anything else (a validation or encoding error of texlate's own output)
//! fails the test. Every translation is also taken back to its source ISA (A → B → A), the
//! ALU instructions it needed included, and checked against the source.
//! Counts per direction are printed (`cargo test --test translate_corpus -- --nocapture`).

mod support;

use std::collections::BTreeMap;

use texlate::check;
use texlate::error::Error;
use texlate::translate::{self, translate, Options};
use texlate::{Isa, ReadOptions};

use support::sources;

#[derive(Default)]
struct Tally {
    instructions: usize,
    translated: usize,
    agree: usize,
    round_trips: usize,
    round_trips_agree: usize,
    /// Translations with ALU instructions (taken back like every other).
    with_alu: usize,
    refused: BTreeMap<String, usize>,
    failures: Vec<String>,
}

fn why(e: &Error) -> Option<String> {
    match e {
        Error::Unsupported(u) => {
            let why: String = u
                .why
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(110)
                .collect();
            Some(format!(
                "{}: {why}",
                u.what.chars().take(50).collect::<String>()
            ))
        }
        _ => None,
    }
}

fn run(tally: &mut Tally, src: &str, from: Isa, to: Isa, bindings: &Option<(String, String)>) {
    tally.instructions += 1;
    let name = src.lines().last().unwrap_or("").trim().to_string();
    let mut o = Options::new(from, to);
    o.bindings = bindings.clone();
    o.read = ReadOptions {
        igc_compatible: true,
        ..ReadOptions::default()
    };
    let t = match translate(src.as_bytes(), &o) {
        Ok(t) => t,
        Err(e) => {
            match why(&e) {
                Some(w) => *tally.refused.entry(w).or_default() += 1,
                None => tally.failures.push(format!("{name}: {e}")),
            }
            return;
        }
    };
    tally.translated += 1;
    match translate::check(src.as_bytes(), &t, &o, 1) {
        Ok(r) if r.agrees() => tally.agree += 1,
        Ok(r) => tally
            .failures
            .push(format!("{name}: the check disagrees:\n{r}")),
        Err(e) => tally
            .failures
            .push(format!("{name}: the check cannot read it: {e}")),
    }
    // Back to the source ISA, with the bindings the way there used. The ALU instructions the
    // way there emitted (moves, conversions) are read back as ALU instructions and translated
    // too.
    if t.report().instructions.iter().any(|i| i.moves > 0) {
        tally.with_alu += 1;
    }
    let mut r = Options::new(to, from);
    r.bindings = Some(("bindings".into(), t.bindings.to_toml()));
    let text = match texlate::isa::codec(to).print_text(&t.program) {
        Ok(text) => text,
        Err(e) => {
            return tally
                .failures
                .push(format!("{name}: output does not print: {e}"))
        }
    };
    // The output the backend wrote as it laid the program out is the program printed.
    if t.output != text.as_bytes() {
        tally.failures.push(format!(
            "{name}: the output is not the target program printed"
        ));
    }
    let back = match translate(text.as_bytes(), &r) {
        Ok(b) => b,
        Err(e) => {
            match why(&e) {
                Some(w) => *tally.refused.entry(format!("(way back) {w}")).or_default() += 1,
                None => tally
                    .failures
                    .push(format!("{name}: way back: {e}\n{text}")),
            }
            return;
        }
    };
    tally.round_trips += 1;
    let back_text = texlate::isa::codec(from).print_text(&back.program).unwrap();
    let (m1, m2) = (&t.regmap, &back.regmap);
    match check::compare_with(
        from,
        src.as_bytes(),
        from,
        back_text.as_bytes(),
        &t.bindings,
        &|reg| m1.get(&reg).and_then(|x| m2.get(&x)),
        1,
    ) {
        Ok(c) if c.agrees() => tally.round_trips_agree += 1,
        Ok(c) => tally
            .failures
            .push(format!("{name}: A -> B -> A disagrees:\n{c}")),
        Err(e) => tally
            .failures
            .push(format!("{name}: A -> B -> A unreadable: {e}")),
    }
}

fn report(from: Isa, to: Isa, t: &Tally) {
    println!(
        "{} -> {}: {} instructions, {} translated ({} agree), {} back to {} ({} agree), {} of them with ALU",
        from.name(),
        to.name(),
        t.instructions,
        t.translated,
        t.agree,
        t.round_trips,
        from.name(),
        t.round_trips_agree,
        t.with_alu,
    );
    for (why, n) in &t.refused {
        println!("    {n:5} refused: {why}");
    }
    for f in t
        .failures
        .iter()
        .take(if std::env::var("ALL_FAILURES").is_ok() {
            10_000
        } else {
            8
        })
    {
        println!("    FAILURE {f}");
    }
}

fn direction(from: Isa) {
    let Some(list) = sources(from) else { return };
    let mut failed = Vec::new();
    for to in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
        if to == from {
            continue;
        }
        let mut tally = Tally::default();
        for (src, bindings) in &list {
            run(&mut tally, src, from, to, bindings);
        }
        report(from, to, &tally);
        failed.extend(tally.failures);
    }
    assert!(
        failed.is_empty(),
        "{} translations failed (first: {})",
        failed.len(),
        failed[0]
    );
}

#[test]
fn dxbc_corpus() {
    direction(Isa::Dxbc);
}

#[test]
fn nvidia_corpus() {
    direction(Isa::Nvidia);
}

#[test]
fn visa_corpus() {
    direction(Isa::Visa);
}

// ---- `--grad approx` (approx_grad_lod): every corpus gradient sample NVIDIA approximates ----

/// The corpus instructions `--grad approx` approximates on the way to NVIDIA, translated.
fn approximations(from: Isa) -> Option<Vec<(String, translate::Translation, Options)>> {
    let list = sources(from)?;
    let mut out = Vec::new();
    for (src, bindings) in list {
        let mut o = Options::new(from, Isa::Nvidia);
        o.bindings = bindings;
        o.read = ReadOptions {
            igc_compatible: true,
            ..ReadOptions::default()
        };
        o.grad = translate::GradPolicy::Approx;
        // Refusals are the main corpus test's concern.
        let Ok(t) = translate(src.as_bytes(), &o) else {
            continue;
        };
        if t.warnings.iter().any(|w| w.contains("approximated")) {
            out.push((src, t, o));
        }
    }
    Some(out)
}

/// Every approximated corpus instruction agrees with its source up to the LOD, and the LOD
/// is the isotropic rule's (seeds 1..=4). Counts printed with `--nocapture`.
#[test]
fn grad_approx_corpus() {
    for from in [Isa::Dxbc, Isa::Visa] {
        let Some(list) = approximations(from) else {
            return;
        };
        let mut agree = 0;
        let mut failures = Vec::new();
        for (src, t, o) in &list {
            let ok = (1..=4).all(|seed| match translate::check(src.as_bytes(), t, o, seed) {
                Ok(r) if r.agrees_up_to_lod() && r.approximated() == 1 && !r.agrees() => true,
                Ok(r) => {
                    failures.push(format!("{}: {r}", src.lines().last().unwrap_or("")));
                    false
                }
                Err(e) => {
                    failures.push(format!("{}: {e}", src.lines().last().unwrap_or("")));
                    false
                }
            });
            agree += usize::from(ok);
        }
        println!(
            "--grad approx {} -> nvidia: {} corpus instructions approximated, {agree} agree up to the LOD",
            from.name(),
            list.len()
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// Opt-in oracle tier: nvdisasm prints every approximated corpus instruction's stream exactly
/// as texlate's listing does (address, text, word). Counts printed with `--nocapture`.
#[test]
#[ignore = "needs the NVIDIA oracle (shared/oracles/nvidia/setup.sh --slim) and the corpus"]
fn grad_approx_corpus_oracle() {
    let Some(env) = support::nvidia_oracle() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("texlate-grad-approx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = texlate::isa::codec(Isa::Nvidia);
    for from in [Isa::Dxbc, Isa::Visa] {
        let Some(list) = approximations(from) else {
            return;
        };
        let (mut accepted, mut lines) = (0, 0);
        for (k, (src, t, _)) in list.iter().enumerate() {
            let listing = c.print_text(&t.program).unwrap();
            let bin = dir.join(format!("{k}.bin"));
            std::fs::write(&bin, c.encode_binary(&t.program).unwrap()).unwrap();
            let theirs = support::nvdisasm_sm50(&env, &bin)
                .unwrap_or_else(|e| panic!("nvdisasm refused {src}: {e}"));
            let ours = support::nvidia_instruction_lines(&listing);
            assert_eq!(
                ours,
                support::nvidia_instruction_lines(&theirs),
                "{src}\n{listing}"
            );
            accepted += 1;
            lines += ours.len();
        }
        println!(
            "--grad approx {} -> nvidia: nvdisasm prints {accepted} of {} approximated corpus programs as texlate does ({lines} instructions)",
            from.name(),
            list.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
