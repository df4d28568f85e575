//! Whole inputs: every nvdisasm `.sass` listing of the corpus parses and prints back
//! identically; every cubin decodes and re-encodes byte-identically; raw streams too.

use std::path::PathBuf;

use texlate::ir::Item;
use texlate::isa::nvidia;

mod support;

fn corpus_dir() -> Option<PathBuf> {
    support::corpus("nvidia")
}

fn files(dir: &PathBuf, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}

#[test]
fn corpus_listings_print_back_identically() {
    let Some(dir) = corpus_dir() else { return };
    let listings = files(&dir, ".sass");
    assert_eq!(listings.len(), 12);
    let mut tex = 0;
    for path in listings {
        let src = std::fs::read_to_string(&path).unwrap();
        let p = nvidia::parse_text(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        tex += p.tex_instrs().count();
        let back = nvidia::print_text(&p).unwrap();
        if back != src {
            let first = src.lines().zip(back.lines()).position(|(a, b)| a != b);
            panic!("{}: differs at line {first:?}", path.display());
        }
    }
    // Each listing's texture instructions, sm_50 (tex_pairs.tsv has 659 sm_50 rows).
    assert_eq!(tex, 659);
}

#[test]
fn corpus_cubins_reencode_byte_identically() {
    let Some(dir) = corpus_dir() else { return };
    let cubins = files(&dir.join("cubin"), ".cubin");
    assert_eq!(cubins.len(), 12);
    let mut tex = 0;
    for path in cubins {
        let bytes = std::fs::read(&path).unwrap();
        assert!(nvidia::looks_binary(&bytes));
        let p = nvidia::decode_binary(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        tex += p.tex_instrs().count();
        let back = nvidia::encode_binary(&p).unwrap();
        assert!(back == bytes, "{}", path.display());
        // The cubin's listing, printed by texlate, assembles back to the same words.
        let text = nvidia::print_text(&p).unwrap();
        let again = nvidia::parse_text(&text).unwrap();
        assert_eq!(
            nvidia::print_hex(&again).unwrap(),
            nvidia::print_hex(&p).unwrap(),
            "{}",
            path.display()
        );
    }
    assert_eq!(tex, 659);
}

#[test]
fn cubin_text_sections_are_raw_streams() {
    let Some(dir) = corpus_dir() else { return };
    let bytes = std::fs::read(dir.join("cubin/txq.sm_50.cubin")).unwrap();
    let p = nvidia::decode_binary(&bytes).unwrap();
    let stream = nvidia::encode_binary(&texlate::Program {
        state: texlate::ir::Origin::new(nvidia::NvidiaContainer::Stream {
            sm: nvidia::Sm::SM50,
        }),
        ..p.clone()
    })
    .unwrap();
    let q = nvidia::decode_binary(&stream).unwrap();
    assert_eq!(q.items.len(), p.items.len());
    assert_eq!(nvidia::encode_binary(&q).unwrap(), stream);
    assert!(q.items.iter().any(|i| matches!(i, Item::Tex(_))));
}
