#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texlate_fuzz::binary_round_trip(texlate::Isa::Nvidia, data);
});
