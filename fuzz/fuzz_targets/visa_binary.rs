//! vISA binary: whatever decodes must encode to exactly the input bytes, and its text form
//! must parse back to the same encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::visa;

fuzz_target!(|data: &[u8]| {
    let Ok(program) = visa::decode_binary(data) else {
        return;
    };
    let bytes = visa::encode_binary(&program).expect("a decoded program encodes");
    assert_eq!(bytes, data, "identity round trip");
    let text = visa::print_text(&program).expect("a decoded program prints");
    let parsed = visa::parse_text(&text).expect("printed text parses");
    assert_eq!(visa::encode_binary(&parsed).expect("re-encodes"), data);
});
