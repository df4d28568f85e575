//! IGC `.isa` containers: reading never panics, and every sampler instruction found lies
//! inside the input, in order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use texlate::isa::visa;

fuzz_target!(|data: &[u8]| {
    let Ok(container) = visa::decode_isa_container(data) else {
        return;
    };
    for kernel in &container.kernels {
        let mut end = 0;
        for s in &kernel.samplers {
            assert!(s.offset >= end, "sampler instructions out of order");
            end = s.offset + s.len;
            assert!(end <= data.len(), "a sampler instruction past the input");
        }
    }
});
