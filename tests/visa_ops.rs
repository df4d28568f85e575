//! Every vISA sampler op, from the fixture `tests/cases/visa/all_ops.visaasm` (no corpus
//! needed): it round-trips byte-identically, through the binary too, and each op's IR text,
//! printed text and encoding are snapshots.

mod support;

use support::snap;

use std::collections::BTreeMap;

use texlate::ir::{Item, Lod, Offset, Origin, Reg, RegFile, ResRef, Scalar, TexInstr, TexOp};
use texlate::isa::visa;
use texlate::{Isa, Program};

const ALL_OPS: &str = include_str!("cases/visa/all_ops.visaasm");

/// `p` with only the texture instruction `t` (same declarations).
fn single(p: &Program, t: &TexInstr) -> Program {
    let mut one = p.clone();
    one.items = vec![Item::Tex(Box::new(t.clone()))];
    one
}

/// The mnemonic of a printed instruction line.
fn mnemonic(line: &str) -> String {
    let s = line.trim_start();
    let s = match s.strip_prefix('(') {
        Some(rest) => rest.split_once(") ").map_or(rest, |(_, r)| r),
        None => s,
    };
    s.split('.').next().unwrap().to_string()
}

#[test]
fn fixture_round_trips_byte_identically() {
    let p = visa::parse_text(ALL_OPS).unwrap();
    assert_eq!(visa::print_text(&p).unwrap(), ALL_OPS);
    assert_eq!(p.tex_instrs().count(), 29);
}

#[test]
fn every_op_is_covered_and_snapshotted() {
    let p = visa::parse_text(ALL_OPS).unwrap();
    let mut by_op: BTreeMap<String, String> = BTreeMap::new();
    for t in p.tex_instrs() {
        let one = single(&p, t);
        let line = visa::print_text(&one).unwrap();
        let text = line.trim();
        let text = text.split(" ///").next().unwrap().trim_end();
        let hex = visa::print_hex(&one).unwrap();
        // text -> binary -> text, names aside (the binary carries indices only)
        let back = visa::decode_hex(&[hex.trim()]).unwrap();
        assert_eq!(visa::print_hex(&back).unwrap(), hex);
        let entry = by_op.entry(mnemonic(text)).or_default();
        entry.push_str(&format!("text: {text}\nir:   {t}\nhex:  {hex}\n"));
    }
    let expected = [
        "gather4_typed",
        "load_2dms_w",
        "load_3d",
        "load_lz",
        "load_mcs",
        "lod",
        "resinfo",
        "sample4",
        "sample4_c",
        "sample4_po",
        "sample4_po_c",
        "sample_3d",
        "sample_b",
        "sample_b_c",
        "sample_c",
        "sample_c_lz",
        "sample_d",
        "sample_d_c",
        "sample_l",
        "sample_l_c",
        "sample_lz",
        "sampleinfo",
    ];
    assert_eq!(by_op.keys().collect::<Vec<_>>(), expected);
    for (op, text) in by_op {
        snap(&format!("visa_op_{op}"), text);
    }
}

#[test]
fn binary_decodes_to_igc_names() {
    let p = visa::parse_text(ALL_OPS).unwrap();
    let bytes = visa::encode_binary(&p).unwrap();
    let back = visa::decode_binary(&bytes).unwrap();
    let text = visa::print_text(&back).unwrap();
    // Without declarations, variables print as V<index:04> (IGC's own names).
    snap("visa_all_ops_from_binary", text.clone());
    let again = visa::parse_text(&text).unwrap();
    assert_eq!(visa::encode_binary(&again).unwrap(), bytes);
}

fn reg(index: u32, sub: u32) -> Scalar {
    Scalar::Reg(Reg {
        file: RegFile::Temp,
        index,
        sub,
    })
}

#[test]
fn an_edited_instruction_prints_canonically_in_its_line() {
    let mut p = visa::parse_text(ALL_OPS).unwrap();
    let Some(Item::Tex(t)) = p.items.iter_mut().find(|i| matches!(i, Item::Tex(_))) else {
        panic!("no instruction")
    };
    // sample_3d.RGBA ... DST.0 U.0 V.0 -> give it a texel offset and a third coordinate
    t.offset = Offset::Imm([1, -2, 3]);
    t.coord.push(reg(37, 0));
    let out = visa::print_text(&p).unwrap();
    let line = out.lines().find(|l| l.contains("$3")).unwrap();
    assert_eq!(
        line,
        "    sample_3d.RGBA (M1, 16)  0x1e3:uw S0 T6 DST.0 U.0 V.0 R.0                    /// $3"
    );
}

#[test]
fn a_built_instruction_prints_in_igc_layout() {
    let mut t = TexInstr::new(TexOp::Sample, ResRef::Binding(6), Origin::SYNTHETIC);
    t.sampler = Some(ResRef::Binding(0));
    t.lod = Lod::Level(reg(60, 0));
    t.coord = vec![reg(58, 0), reg(58, 64)];
    t.dst = [Some(reg(57, 0)), Some(reg(57, 64)), None, None];
    let mut p = Program::new(Isa::Visa);
    p.items.push(Item::Tex(Box::new(t)));
    assert_eq!(
        visa::print_text(&p).unwrap(),
        "sample_l.RG (M1, 16)  0x0:uw S0 T6 V0057.0 V0060.0 V0058.0 V0058.64\n"
    );
}

#[test]
fn hex_accepts_bytes_or_one_string_per_instruction() {
    let one = "6d 18 00 04 00 00 0f 05 02 00 00 00 00 00 06 39 00 00 00 00 00 01 35 00 00 00 00 00";
    let words: Vec<&str> = one.split(' ').collect();
    let joined = one.replace(' ', "");
    let a = visa::decode_hex(&words).unwrap();
    let b = visa::decode_hex(&[joined.as_str(), joined.as_str()]).unwrap();
    assert_eq!(a.tex_instrs().count(), 1);
    assert_eq!(b.tex_instrs().count(), 2);
    assert_eq!(
        visa::print_text(&a).unwrap(),
        "sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0\n"
    );
    assert_eq!(visa::print_hex(&a).unwrap(), format!("{one}\n"));
}

#[test]
fn seed_spellings_are_accepted_and_kept() {
    let src = "SAMPLE_3d.RGBA (M1, 16) 0x0:uw S0 T6 V0057.0 V0053.0 V0054.0\n\
               LOAD_LZ.R (M1, 16) 0x0:uw T6 V0057.0 V0053.0\n\
               GATHER4_TYPED.RGBA (M1, 8) T6 V0051.0 V0055.0 %null.0 %null.0 V0056.0\n\
               ld.R (M1, 16) 0x0:uw T6 V0057.0 V0053.0 V0054.0 V0055.0\n";
    let p = visa::parse_text(src).unwrap();
    assert_eq!(visa::print_text(&p).unwrap(), src);
    let canonical =
        visa::print_text(&visa::decode_binary(&visa::encode_binary(&p).unwrap()).unwrap()).unwrap();
    snap("visa_seed_spellings_canonical", canonical);
}

#[test]
fn crlf_and_missing_final_newline_survive() {
    for src in [
        "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0\r\nret (M1, 1)\r\n",
        "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0\nret (M1, 1)",
        "",
        "\n\n",
    ] {
        let p = visa::parse_text(src).unwrap();
        assert_eq!(visa::print_text(&p).unwrap(), src);
    }
}

#[test]
fn docs_table_is_the_mappings_table() {
    let docs = include_str!("../docs/visa.md");
    assert!(
        docs.contains(&visa::readme_table()),
        "{}",
        visa::readme_table()
    );
}
