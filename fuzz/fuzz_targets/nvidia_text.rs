//! NVIDIA text parser: whatever parses prints, and the printed text parses to the same
//! program text again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::nvidia::{parse_text, print_text};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(program) = parse_text(src) else { return };
    let printed = print_text(&program).expect("a parsed listing prints");
    let again = parse_text(&printed).expect("printed text parses");
    assert_eq!(print_text(&again).expect("prints again"), printed);
});
