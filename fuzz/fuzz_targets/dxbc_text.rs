//! fxc listings: parsing never panics, and whatever parses prints to text that parses to the
//! same texture instructions and prints the same again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::dxbc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = dxbc::parse_text(text) else {
        return;
    };
    let printed = dxbc::print_text(&program).expect("a parsed listing prints");
    let again = dxbc::parse_text(&printed).expect("a printed listing parses");
    let first: Vec<_> = program.tex_instrs().map(|t| t.to_string()).collect();
    let second: Vec<_> = again.tex_instrs().map(|t| t.to_string()).collect();
    assert_eq!(first, second, "the texture instructions changed");
    assert_eq!(dxbc::print_text(&again).expect("prints"), printed);
    let _ = dxbc::encode_binary(&program);
});
