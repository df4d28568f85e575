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
        bare.dxbc.as_mut().unwrap().container = None;
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
