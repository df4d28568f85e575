//! Cross-ISA translation: any input, in any of the six directions, to text and to binary,
//! translates or fails with an error (never a panic or a hang), and what it writes is read
//! back by the target's own decoder.
//! The first byte picks the direction and the form; the rest is the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::translate::{translate, Options};
use texlate::{Form, Isa};

const DIRECTIONS: [(Isa, Isa); 6] = [
    (Isa::Dxbc, Isa::Nvidia),
    (Isa::Nvidia, Isa::Dxbc),
    (Isa::Dxbc, Isa::Visa),
    (Isa::Visa, Isa::Dxbc),
    (Isa::Nvidia, Isa::Visa),
    (Isa::Visa, Isa::Nvidia),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let (from, to) = DIRECTIONS[usize::from(pick % 6)];
    let mut options = Options::new(from, to);
    options.emit = if pick & 8 == 0 {
        Form::Text
    } else {
        Form::Binary
    };
    options.read.igc_compatible = pick & 16 != 0;
    if let Ok(t) = translate(input, &options) {
        if let Err(e) = texlate::decode_with(to, &t.output, options.read) {
            panic!(
                "{from:?} -> {to:?} ({:?}) wrote what {to:?} does not read: {e}",
                options.emit
            );
        }
    }
});
