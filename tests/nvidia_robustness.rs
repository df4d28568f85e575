//! Regressions of the robustness audit of `src/isa/nvidia/`: inputs that used to corrupt an
//! encoding silently, or could panic through the public API, now round-trip or give typed
//! errors with their location.

use texlate::ir::{Isa, Item, Opaque, Program, Span};
use texlate::isa::nvidia::{
    self, control, encode_binary, parse_inst, parse_text, print_hex, print_text, NvidiaContainer,
    TextSection,
};

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, value)
    });
}

/// Three lines of `nvdisasm -hex` (tex_basic.sm_50): the listing starts at slot 2 of a bundle,
/// and the control word after them belongs to the next bundle.
const EXCERPT: &str = "        /*0010*/                   MOV R4, c[0x0][0x158] ;                           /* 0x4c98078005670004 */
        /*0018*/                   TEXS.P R6, R4, R4, R4, 0x6e, 2D, RGBA ;           /* 0xd83006e060470404 */
                                                                                     /* 0x041fc400fe4007f1 */
";

fn err_of<T: std::fmt::Debug>(r: Result<T, texlate::Error>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.to_string(),
    }
}

/// The phase of a texture line was written into the word `slot` positions before it, counted
/// from the start of the listing: here the MOV's encoding (bits 17–18) was rewritten.
#[test]
fn a_listing_excerpt_prints_back_unchanged() {
    let p = parse_text(EXCERPT).unwrap();
    assert_eq!(print_text(&p).unwrap(), EXCERPT);
    // `--hex` lists the two instructions, not the control word.
    assert_eq!(
        print_hex(&p).unwrap(),
        "4c98078005670004\nd83006e060470404\n"
    );
}

#[test]
fn errors() {
    let mut out = String::new();
    let mut add = |what: &str, e: String| out.push_str(&format!("{what}\n  -> {e}\n"));
    // A stream holds whole bundles: an excerpt from inside one does not encode.
    add(
        "encode a listing that starts at slot 2",
        err_of(encode_binary(&parse_text(EXCERPT).unwrap())),
    );
    // Opaque binary items of another size than one word were zero-filled or dropped.
    let mut p = Program::new(Isa::Nvidia);
    p.items.push(Item::Opaque(Opaque {
        text: None,
        bytes: vec![1, 2, 3, 4, 5],
        span: Span {
            offset: 0x28,
            line: 0,
            column: 0,
        },
    }));
    add("encode a 5-byte opaque item", err_of(encode_binary(&p)));
    add("hex of a 5-byte opaque item", err_of(print_hex(&p)));
    // A cubin whose section end overflows `usize` (a program built through the API).
    let mut p = Program::new(Isa::Nvidia);
    p.state = texlate::ir::Origin::new(NvidiaContainer::Cubin {
        file: vec![0; 64],
        sections: vec![TextSection {
            name: ".text.k".into(),
            offset: usize::MAX - 7,
            size: 0,
        }],
        sm: texlate::isa::nvidia::Sm::SM50,
    });
    add("cubin section past usize::MAX", err_of(encode_binary(&p)));
    // Control-word slots outside 1..=3 (a shift past 63 bits in debug builds).
    for slot in [0, 4, usize::MAX] {
        let e = control::phase_of(u64::MAX, slot).unwrap_err();
        add(&format!("phase_of slot {slot}"), e.to_string());
    }
    snapshot("nvidia_robustness_errors", &out);
}

#[test]
fn control_word_slots_outside_a_bundle_read_nothing() {
    assert_eq!(control::slot_field(u64::MAX, 70), 0);
    assert_eq!(control::with_phase(0x1234, 9, 2), 0x1234);
}

/// Columns saturate instead of overflowing (a line of 4 GiB is the only way there).
#[test]
fn error_columns_saturate() {
    let e = parse_inst("TEX R4, R4, 0x6e, 2D", 1, u32::MAX - 2).unwrap_err();
    assert_eq!(e.column, u32::MAX);
    assert!(nvidia::parse_inst("TEX R4, R4, 0x6e, 2D, 0xf", 1, u32::MAX).is_ok());
}
