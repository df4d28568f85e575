//! DXBC containers and bare token streams: decoding never panics, and whatever decodes
//! re-encodes to the same bytes (every field of every token is kept).
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::dxbc;

fuzz_target!(|data: &[u8]| {
    if let Ok(program) = dxbc::decode_binary(data) {
        let out = dxbc::encode_binary(&program).expect("a decoded program re-encodes");
        assert_eq!(out, data, "re-encoding changed the input");
        let _ = dxbc::print_text(&program);
        let _ = dxbc::print_hex(&program);
    }
});
