//! Wine / vkd3d-shader 1.6 disassemblies (`corpus/dxbc/oracle/wine_d3ddisasm`, Wine's
//! `D3DDisassemble` of every corpus blob): every one parses, and assembling it gives the
//! blob's own program token stream, instruction by instruction, except where Wine's text
//! does not hold the information ([`LOSSES`]).

mod dxbc_common;

use std::fs;

use dxbc_common::{blobs, corpus_dir, without_losses, LOSSES};
use texlate::isa::dxbc::{self, container, tokens};
use tokens::Instruction;

/// The instructions of a token stream (version and length tokens dropped).
fn instructions(stream: &[u8]) -> Vec<Instruction> {
    let words = tokens::dwords(stream, 0).unwrap();
    tokens::decode_program(&words, 0)
        .unwrap()
        .instructions
        .into_iter()
        .map(|(_, i)| i)
        .collect()
}

#[test]
fn wine_listings_assemble_to_the_blob() {
    let Some(dir) = corpus_dir() else { return };
    let wine = dir.join("oracle/wine_d3ddisasm");
    let mut failures = Vec::new();
    let (mut listings, mut exact, mut instrs, mut equal) = (0, 0, 0, 0);
    let mut lost = [0usize; LOSSES.len()];
    for (name, blob) in blobs(&dir) {
        let Ok(text) = fs::read_to_string(wine.join(format!("{name}.dxbc.txt"))) else {
            continue;
        };
        listings += 1;
        let program = match dxbc::parse_text(&text) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours = instructions(&dxbc::encode_tokens(&program).unwrap());
        let c = container::parse(&blob).unwrap();
        let theirs = instructions(&c.chunks[c.program].data);
        if ours.len() != theirs.len() {
            failures.push(format!(
                "{name}: {} vs {} instructions",
                ours.len(),
                theirs.len()
            ));
            continue;
        }
        let mut same = true;
        for (a, b) in ours.iter().zip(&theirs) {
            instrs += 1;
            if a == b {
                equal += 1;
                continue;
            }
            same = false;
            if without_losses(a, None) != without_losses(b, None) {
                failures.push(format!(
                    "{name}:\n  texlate {}\n  blob    {}",
                    dxbc::disasm::instruction(a),
                    dxbc::disasm::instruction(b)
                ));
                continue;
            }
            for (n, count) in lost.iter_mut().enumerate() {
                if without_losses(a, Some(n)) != without_losses(b, Some(n)) {
                    *count += 1;
                }
            }
        }
        exact += usize::from(same);
    }
    eprintln!("{listings} Wine listings: {exact} assemble to the blob's exact token stream");
    eprintln!("{instrs} instructions: {equal} identical, the others up to:");
    for ((what, _), n) in LOSSES.iter().zip(lost) {
        eprintln!("  {n:5} {what}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(listings, 495, "one Wine listing per corpus blob");
    assert_eq!((exact, instrs, equal), (202, 19288, 17404));
    assert_eq!(lost, [5, 9, 5, 5, 1804, 65, 2, 0, 0]);
}
