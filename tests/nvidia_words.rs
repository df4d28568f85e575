//! Word ↔ text against NVIDIA's own tools: every row of the shared corpus's
//! `tex_pairs.tsv` (sm_50 and sm_52; research §0), with the phase taken from the bundle
//! control word recorded in `tex_pairs_ext.tsv`.

use texlate::isa::nvidia::{self, control, decode_word, encode_word, parse_inst, print_inst};

mod support;

/// The text of `../shared/corpus/nvidia/<name>`, or `None` when the corpus is absent.
fn corpus(name: &str) -> Option<String> {
    let path = support::corpus(&format!("nvidia/{name}"))?;
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').collect())
}

/// The text with its `.P`/`.T` suffix removed: the word alone does not hold the phase.
fn strip_phase(text: &str) -> String {
    let (head, tail) = text.split_once(' ').unwrap_or((text, ""));
    let head = head
        .strip_suffix(".P")
        .or_else(|| head.strip_suffix(".T"))
        .unwrap_or(head);
    // A guard comes first: strip from the mnemonic instead.
    if head.starts_with('@') {
        let (m, rest) = tail.split_once(' ').unwrap_or((tail, ""));
        let m = m
            .strip_suffix(".P")
            .or_else(|| m.strip_suffix(".T"))
            .unwrap_or(m);
        return format!("{head} {m} {rest}");
    }
    format!("{head} {tail}")
}

#[test]
fn tex_pairs_word_to_text_and_back() {
    let Some(tsv) = corpus("tex_pairs.tsv") else {
        return;
    };
    let mut n = 0;
    for r in rows(&tsv) {
        let (arch, hex, sass) = (r[0], r[1], r[2]);
        assert!(arch == "sm_50" || arch == "sm_52" || arch == "sm_53" || arch == "sm_61");
        if arch != "sm_50" && arch != "sm_52" {
            continue;
        }
        let word = u64::from_str_radix(hex, 16).unwrap();
        let inst = decode_word(word)
            .unwrap_or_else(|e| panic!("{hex}: {e}"))
            .unwrap_or_else(|| panic!("{hex}: not recognised as a texture instruction"));
        assert_eq!(print_inst(&inst), strip_phase(sass), "{hex}");
        let parsed = parse_inst(sass, 1, 1).unwrap_or_else(|e| panic!("{sass}: {e}"));
        assert_eq!(encode_word(&parsed).unwrap(), word, "{sass}");
        n += 1;
    }
    assert_eq!(n, 1318);
}

#[test]
fn tex_pairs_ext_phase_from_control_word() {
    let Some(tsv) = corpus("tex_pairs_ext.tsv") else {
        return;
    };
    let mut n = 0;
    for r in rows(&tsv) {
        let (arch, hex, sass, ctrl, slot) = (r[0], r[1], r[2], r[6], r[7]);
        if arch != "sm_50" && arch != "sm_52" {
            continue;
        }
        let word = u64::from_str_radix(hex, 16).unwrap();
        let ctrl = u64::from_str_radix(ctrl, 16).unwrap();
        let slot: usize = slot.parse().unwrap();
        let mut inst = decode_word(word).unwrap().unwrap();
        inst.phase = control::phase_of(ctrl, slot).unwrap();
        assert_eq!(
            print_inst(&inst),
            sass,
            "{hex} ctrl {ctrl:016x} slot {slot}"
        );
        let parsed = parse_inst(sass, 1, 1).unwrap();
        assert_eq!(parsed.phase, inst.phase);
        assert_eq!(control::with_phase(ctrl, slot, parsed.phase), ctrl);
        n += 1;
    }
    assert_eq!(n, 1318);
}

/// The same pairs through the IR: word → lift → lower → text, and text → lift → lower → word.
#[test]
fn tex_pairs_through_the_ir() {
    let Some(tsv) = corpus("tex_pairs.tsv") else {
        return;
    };
    let mut n = 0;
    for r in rows(&tsv) {
        let (arch, hex, sass) = (r[0], r[1], r[2]);
        if arch != "sm_50" && arch != "sm_52" {
            continue;
        }
        let p = nvidia::decode_hex(&[hex]).unwrap_or_else(|e| panic!("{hex}: {e}"));
        assert_eq!(
            nvidia::print_text(&p).unwrap(),
            format!("{}\n", strip_phase(sass))
        );
        let q = nvidia::parse_text(sass).unwrap();
        assert_eq!(nvidia::print_hex(&q).unwrap(), format!("{hex}\n"), "{sass}");
        assert_eq!(nvidia::print_text(&q).unwrap(), sass);
        n += 1;
    }
    assert_eq!(n, 1318);
}
