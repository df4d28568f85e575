//! vISA text: whatever parses must print, and the printed text must parse again to the same
//! texture instructions and print identically.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::visa;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = visa::parse_text(src) else {
        return;
    };
    let printed = visa::print_text(&program).expect("a parsed program prints");
    assert_eq!(printed, src, "identity round trip");
    let again = visa::parse_text(&printed).expect("printed text re-parses");
    assert_eq!(visa::print_text(&again).expect("prints again"), printed);
    // The binary form of what parsed decodes back to the same encoding.
    if let Ok(bytes) = visa::encode_binary(&program) {
        let decoded = visa::decode_binary(&bytes).expect("encoded bytes decode");
        assert_eq!(visa::encode_binary(&decoded).expect("re-encodes"), bytes);
    }
});
