//! DXBC binary round trips over the shared corpus: every blob decodes and re-encodes
//! byte-identically (container, chunks, checksum and token stream).

mod dxbc_common;

use dxbc_common::{blobs, corpus_dir};
use texlate::isa::dxbc;

#[test]
fn every_corpus_blob_reencodes_byte_identically() {
    let Some(dir) = corpus_dir() else { return };
    let blobs = blobs(&dir);
    assert_eq!(blobs.len(), 495, "the corpus holds 495 blobs");
    let mut failures = Vec::new();
    for (name, bytes) in &blobs {
        assert!(dxbc::looks_binary(bytes), "{name}: not detected as DXBC");
        match dxbc::decode_binary(bytes).and_then(|p| dxbc::encode_binary(&p)) {
            Ok(out) if &out == bytes => {}
            Ok(out) => {
                let at = out.iter().zip(bytes.iter()).position(|(a, b)| a != b);
                failures.push(format!(
                    "{name}: differs at byte {at:?} (len {} vs {})",
                    out.len(),
                    bytes.len()
                ));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} blobs fail:\n{}",
        failures.len(),
        blobs.len(),
        failures.join("\n")
    );
}

#[test]
fn bare_token_streams_reencode_and_are_detected() {
    let Some(dir) = corpus_dir() else { return };
    for (name, bytes) in blobs(&dir).iter().take(40) {
        let program = dxbc::decode_binary(bytes).unwrap();
        let mut bare = program.clone();
        bare.state.get_mut::<dxbc::DxbcModule>().unwrap().container = None;
        let stream = dxbc::encode_binary(&bare).unwrap();
        assert!(dxbc::looks_binary(&stream), "{name}");
        let again = dxbc::decode_binary(&stream).unwrap();
        assert_eq!(dxbc::encode_binary(&again).unwrap(), stream, "{name}");
    }
}

#[test]
fn a_flipped_bit_is_a_checksum_error() {
    let Some(dir) = corpus_dir() else { return };
    let (_, mut bytes) = blobs(&dir).swap_remove(0);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let err = dxbc::decode_binary(&bytes).unwrap_err().to_string();
    assert!(err.contains("checksum mismatch"), "{err}");
}

#[test]
#[ignore = "diagnostic: operand shapes of declarations"]
fn show_decl_operand_shapes() {
    use std::collections::BTreeMap;
    let Some(dir) = corpus_dir() else { return };
    let mut shapes = BTreeMap::new();
    for (_, bytes) in blobs(&dir) {
        let p = dxbc::decode_binary(&bytes).unwrap();
        for item in &p.items {
            if let texlate::ir::Item::Opaque(o) = item {
                let words: Vec<u32> = o
                    .bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                let ins = dxbc::tokens::decode_instructions(&words).unwrap();
                for (_, i) in ins {
                    for (n, op) in i.operands.iter().enumerate() {
                        if op.num_components != 2
                            || i.opcode >= 88 && i.opcode <= 106
                            || i.opcode >= 143 && i.opcode <= 162
                        {
                            *shapes
                                .entry((
                                    i.opcode,
                                    n,
                                    op.ty,
                                    op.indices.len(),
                                    op.num_components,
                                    op.selection,
                                    op.comp,
                                ))
                                .or_insert(0) += 1;
                        }
                    }
                }
            }
        }
    }
    for (k, v) in shapes {
        println!("{k:?} {v}");
    }
}
