//! NVIDIA word decoder: any 8 bytes either fail to decode with an error or decode to an
//! instruction that encodes back to the same word; whole inputs (streams, cubins) never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::nvidia::{decode_binary, decode_word, encode_binary, encode_word};

fuzz_target!(|data: &[u8]| {
    for chunk in data.chunks_exact(8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap());
        if let Ok(Some(inst)) = decode_word(word) {
            assert_eq!(encode_word(&inst), Ok(word), "{inst:?}");
        }
    }
    if let Ok(program) = decode_binary(data) {
        let bytes = encode_binary(&program).expect("a decoded stream re-encodes");
        assert_eq!(bytes, data);
    }
});
