//! NVIDIA word decoder: on every SM, any 8 bytes either fail to decode with an error or decode
//! to an instruction that encodes back to the same word; whole inputs (streams, cubins) never
//! panic, and re-encode to themselves unless a word cannot run (a validation error).
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::nvidia::{decode_binary_on, decode_word_on, encode_binary, encode_word, Sm};

fuzz_target!(|data: &[u8]| {
    for sm in Sm::ALL {
        for chunk in data.chunks_exact(8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap());
            if let Ok(Some(inst)) = decode_word_on(word, sm) {
                assert_eq!(encode_word(&inst), Ok(word), "{inst:?}");
            }
        }
        if let Ok(program) = decode_binary_on(data, sm) {
            match encode_binary(&program) {
                Ok(bytes) => assert_eq!(bytes, data),
                Err(texlate::Error::Validation(_)) => {}
                Err(e) => panic!("a decoded stream re-encodes or is invalid: {e}"),
            }
        }
    }
});
