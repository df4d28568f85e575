//! The properties every fuzz target checks, one ISA and one input form at a time.
//! Nothing a user feeds in may panic; what decodes must encode, and re-decoding what texlate
//! wrote must give back the same output (a fixed point after one round).

use texlate::{isa, Isa};

/// Text: parse; if that succeeds, printing must succeed and be a fixed point of
/// parse-then-print.
pub fn text_round_trip(isa: Isa, data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = isa::parse_text(isa, src) else {
        return;
    };
    let printed = isa::print_text(isa, &program).expect("a parsed program must print");
    let reparsed = isa::parse_text(isa, &printed).expect("printed text must parse again");
    let reprinted = isa::print_text(isa, &reparsed).expect("a parsed program must print");
    assert_eq!(printed, reprinted, "print(parse(print(parse(x)))) != print(parse(x))");
}

/// Binary: decode; if that succeeds, encoding must succeed and be a fixed point of
/// decode-then-encode.
pub fn binary_round_trip(isa: Isa, data: &[u8]) {
    let Ok(program) = isa::decode_binary(isa, data) else {
        return;
    };
    let encoded = isa::encode_binary(isa, &program).expect("a decoded program must encode");
    let redecoded = isa::decode_binary(isa, &encoded).expect("encoded bytes must decode again");
    let reencoded = isa::encode_binary(isa, &redecoded).expect("a decoded program must encode");
    assert_eq!(encoded, reencoded, "encode(decode(encode(decode(x)))) != encode(decode(x))");
}
