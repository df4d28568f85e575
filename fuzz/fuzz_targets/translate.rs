//! Cross-ISA translation: any input, in any of the six directions, to text and to binary,
//! translates or fails with an error (never a panic or a hang); what it writes is read back by
//! the target's own decoder, and the semantic check (`translate::check`, the independent model
//! of what each instruction asks the sampler) finds the source and its translation agreeing.
//! The first byte picks the direction and the form; the rest is the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::translate::{check, translate, Options};
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
    let Ok(t) = translate(input, &options) else {
        return;
    };
    if let Err(e) = texlate::decode_with(to, &t.output, options.read) {
        panic!(
            "{from:?} -> {to:?} ({:?}) wrote what {to:?} does not read: {e}",
            options.emit
        );
    }
    match check(input, &t, &options, 1) {
        Ok(report) => assert!(
            report.agrees(),
            "{from:?} -> {to:?}: the semantic check disagrees:\n{report}"
        ),
        Err(e) => panic!("{from:?} -> {to:?}: the semantic check cannot read the programs: {e}"),
    }
});
