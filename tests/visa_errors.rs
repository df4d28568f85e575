//! Every vISA error: text (line, column, token, what was expected), binary (byte offset),
//! rules GenX_IR does not enforce, and IR that has no vISA form. Each is a snapshot.

use texlate::error::Error;
use texlate::ir::{Item, Offset, Reg, RegFile, Scalar, TexInstr};
use texlate::isa::visa;

fn snap(name: &str, e: &Error) {
    let value = format!("{e}\n{e:#?}");
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(format!("visa_err_{name}"), value);
    });
}

/// Declarations the kernel-file cases use (lines 1..=9).
const DECLS: &str = "\
.decl DST v_type=G type=f num_elts=64 align=hword
.decl U v_type=G type=f num_elts=16 align=hword
.decl V v_type=G type=f num_elts=16 align=hword
.decl UH v_type=G type=hf num_elts=16 align=hword
.decl IU v_type=G type=d num_elts=16 align=hword
.decl HDST v_type=G type=hf num_elts=64 align=hword
.decl P1 v_type=P num_elts=16
.decl S0 v_type=S num_elts=1 v_name=S000
.decl T6 v_type=T num_elts=1 v_name=T006
";

fn text_error(src: &str) -> Error {
    visa::parse_text(src).expect_err(src)
}

fn rule(e: &Error) -> &'static str {
    match e {
        Error::Validation(v) => v.rule,
        _ => "",
    }
}

#[test]
fn text_syntax_errors() {
    let cases = [
        (
            "no_channel_mask",
            "sample_lz (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        (
            "channel_order",
            "sample_lz.GR (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        (
            "channel_letter",
            "sample_lz.RX (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        (
            "unknown_modifier",
            "sample_lz.foo.R (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        (
            "modifier_order",
            "sample_3d.cps.pixel_null_mask.R (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        (
            "load_modifier",
            "load_lz.cps.R (M1, 16)  0x0:uw T6 V0057.0 V0053.0",
        ),
        (
            "emask",
            "sample_lz.R (M9, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        (
            "exec_size_token",
            "sample_lz.R (M1, 12)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        ("exec_missing", "sample_lz.R 0x0:uw S0 T6 V0057.0 V0053.0"),
        (
            "aoffimmi_missing",
            "sample_lz.R (M1, 16)  S0 T6 V0057.0 V0053.0",
        ),
        (
            "aoffimmi_float",
            "sample_lz.R (M1, 16)  0x0:f S0 T6 V0057.0 V0053.0",
        ),
        (
            "raw_without_offset",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057 V0053.0",
        ),
        (
            "raw_offset_range",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.65536 V0053.0",
        ),
        ("missing_dst", "sample_lz.R (M1, 16)  0x0:uw S0 T6"),
        (
            "gather4_typed_extra",
            "gather4_typed.R (M1, 8) T6 V1.0 V2.0 V3.0 V4.0 V5.0 V6.0",
        ),
        (
            "resinfo_predicate",
            "(P1) resinfo.R (M1, 8)  T6 V0052.0 V0054.0",
        ),
        (
            "predicate_control",
            "(P1.some) sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0",
        ),
        ("decl_without_v_type", ".decl X type=f num_elts=16"),
    ];
    for (name, src) in cases {
        let e = text_error(src);
        assert!(matches!(e, Error::Parse(_)), "{name}: {e}");
        snap(name, &e);
    }
}

#[test]
fn text_rule_violations() {
    let kernel = |line: &str| format!("{DECLS}    {line}\n");
    let cases = [
        (
            "channel_mask_empty",
            "channel-mask",
            "sample_lz.0000 (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0".to_string(),
        ),
        (
            "aoffimmi_reserved",
            "aoffimmi-reserved",
            "sample_lz.R (M1, 16)  0x1000:uw S0 T6 V0057.0 V0053.0".into(),
        ),
        (
            "aoffimmi_negative",
            "aoffimmi-reserved",
            "sample_lz.R (M1, 16)  -9:d S0 T6 V0057.0 V0053.0".into(),
        ),
        (
            "num_params_zero",
            "num-params",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.0".into(),
        ),
        (
            "num_params_over_op",
            "num-params",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.0 V1.0 V2.0 V3.0 V4.0 V5.0".into(),
        ),
        (
            "num_params_over_15",
            "num-params",
            format!(
                "sample_d_c.R (M1, 16)  0x0:uw S0 T6 V0057.0{}",
                " V0060.0".repeat(16)
            ),
        ),
        (
            "exec_size_32",
            "exec-size",
            "sample_lz.R (M1, 32)  0x0:uw S0 T6 V0057.0 V0053.0".into(),
        ),
        (
            "exec_size_gather4_typed",
            "exec-size",
            "gather4_typed.R (M1, 16) T6 V1.0 V2.0 %null.0 %null.0 V3.0".into(),
        ),
        (
            "sample4_two_channels",
            "sample4-channel",
            "sample4.RG (M1, 16) 0x0:uw S0 T6 V0057.0 V0053.0".into(),
        ),
        (
            "cps_on_sample_l",
            "cps",
            "sample_l.cps.R (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0".into(),
        ),
        (
            "raw_offset_alignment",
            "raw-offset-alignment",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 V0057.16 V0053.0".into(),
        ),
        (
            "surface_sampler_swapped",
            "state-class",
            "sample_lz.R (M1, 16)  0x0:uw T6 S0 V0057.0 V0053.0".into(),
        ),
        (
            "raw_names_sampler",
            "operand-class",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 S0.0 V0053.0".into(),
        ),
        (
            "undeclared_snippet",
            "undeclared",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 DST.0 V0053.0".into(),
        ),
    ];
    for (name, want, src) in &cases {
        let e = text_error(src);
        assert_eq!(rule(&e), *want, "{name}: {e}");
        snap(name, &e);
    }
    let declared = [
        (
            "undeclared_variable",
            "undeclared",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 DST.0 V0099.0",
        ),
        (
            "undeclared_sampler",
            "undeclared",
            "sample_lz.R (M1, 16)  0x0:uw S9 T6 DST.0 U.0",
        ),
        (
            "mixed_f_hf",
            "param-type",
            "sample_l.R (M1, 16)  0x0:uw S0 T6 DST.0 UH.0 U.0",
        ),
        (
            "float_load_params",
            "param-type",
            "load_lz.R (M1, 16)  0x0:uw T6 DST.0 U.0 V.0",
        ),
        (
            "int_sample_params",
            "param-type",
            "sample_lz.R (M1, 16)  0x0:uw S0 T6 DST.0 IU.0",
        ),
        (
            "po_offsets_not_d",
            "param-type",
            "sample4_po.R (M1, 16) 0x0:uw S0 T6 DST.0 U.0 V.0 U.0 V.0",
        ),
        (
            "resinfo_dst_type",
            "dst-type",
            "resinfo.R (M1_NM, 8)  T6 IU.0 HDST.0",
        ),
        (
            "load_2dms_w_dword_over",
            "num-params",
            "load_2dms_w.R (M1, 16)  0x0:uw T6 DST.0 IU.0 IU.0 IU.0 IU.0 IU.0 IU.0 IU.0 IU.0",
        ),
    ];
    for (name, want, line) in declared {
        let e = text_error(&kernel(line));
        assert_eq!(rule(&e), want, "{name}: {e}");
        snap(name, &e);
    }
    let dup = format!("{DECLS}.decl U v_type=G type=f num_elts=16\n");
    let e = text_error(&dup);
    assert_eq!(rule(&e), "duplicate-declaration");
    snap("duplicate_declaration", &e);
}

/// Predicate ids are 12 bits: a 4096th declared predicate would spill into the control
/// bits (and lift as no predicate at all), so its declaration is an error.
#[test]
fn too_many_predicates() {
    let mut src: String = (1..=4096)
        .map(|i| format!(".decl F{i} v_type=P num_elts=16\n"))
        .collect();
    src.push_str(".decl S0 v_type=S num_elts=1\n.decl T6 v_type=T num_elts=1\n");
    src.push_str("(F4096) sample_lz.R (M1, 16)  0x0:uw S0 T6 %null.0 %null.0\n");
    let e = text_error(&src);
    assert!(matches!(&e, Error::Parse(p) if p.line == 4096), "{e}");
    snap("too_many_predicates", &e);
    // One fewer fits: the last id is 4095.
    let fits: String = src
        .lines()
        .filter(|l| !l.starts_with(".decl F4096 ") && !l.starts_with("(F4096)"))
        .map(|l| format!("{l}\n"))
        .collect();
    let fits = fits
        + ".decl D v_type=G type=f num_elts=16\n"
        + "(F4095) sample_lz.R (M1, 16)  0x0:uw S0 T6 D.0 D.0\n";
    let p = visa::parse_text(&fits).unwrap();
    let pred = p.tex_instrs().next().and_then(|t| t.pred).map(|p| p.index);
    assert_eq!(pred, Some(4095));
}

#[test]
fn igc_compatible_accepts_only_the_mixed_float_types() {
    let src = format!("{DECLS}    sample_l.R (M1, 16)  0x0:uw S0 T6 DST.0 UH.0 U.0\n");
    let p = visa::parse_text_with(&src, visa::Checks::IgcCompatible).unwrap();
    assert_eq!(visa::print_text(&p).unwrap(), src);
    let int = format!("{DECLS}    sample_lz.R (M1, 16)  0x0:uw S0 T6 DST.0 IU.0\n");
    assert!(visa::parse_text_with(&int, visa::Checks::IgcCompatible).is_err());
}

fn hex_error(hex: &str) -> Error {
    let words: Vec<&str> = hex.split_whitespace().collect();
    visa::decode_hex(&words).expect_err(hex)
}

/// `sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0`
const GOOD: &str =
    "6d 18 00 04 00 00 0f 05 02 00 00 00 00 00 06 39 00 00 00 00 00 01 35 00 00 00 00 00";

#[test]
fn binary_errors() {
    assert!(visa::decode_hex(&[GOOD]).is_ok());
    let cases = [
        (
            "bin_truncated",
            GOOD.rsplit_once(' ').unwrap().0.to_string(),
        ),
        ("bin_unknown_opcode", "42 00".to_string()),
        ("bin_unknown_subop", GOOD.replacen("6d 18", "6d 07", 1)),
        (
            "bin_reserved_subop_bits",
            GOOD.replacen("6d 18 00", "6d 18 80", 1),
        ),
        (
            "bin_load_cps",
            "6e 1a 02 04 00 00 0f 05 02 00 00 00 00 06 39 00 00 00 00 00 01 35 00 00 00 00 00"
                .to_string(),
        ),
        (
            "bin_exec_code",
            GOOD.replacen("00 04 00 00 0f", "00 07 00 00 0f", 1),
        ),
        (
            "bin_pred_reserved",
            GOOD.replacen("04 00 00 0f", "04 00 10 0f", 1),
        ),
        // found by fuzzing: a predicate control without a predicate did not re-encode
        (
            "bin_pred_control_without_id",
            GOOD.replacen("04 00 00 0f", "04 00 40 0f", 1),
        ),
        (
            "bin_channel_byte",
            GOOD.replacen("00 00 0f 05", "00 00 1f 05", 1),
        ),
        (
            "bin_aoffimmi_not_immediate",
            GOOD.replacen("0f 05 02", "0f 03 02", 1),
        ),
        (
            "bin_aoffimmi_type",
            GOOD.replacen("0f 05 02", "0f 05 07", 1),
        ),
        (
            "bin_num_params_past_end",
            GOOD.replacen("00 01 35", "00 ff 35", 1),
        ),
        (
            "bin_channel_mask_zero",
            GOOD.replacen("00 00 0f 05", "00 00 00 05", 1),
        ),
        (
            "bin_num_params_zero",
            GOOD.replacen(" 01 35 00 00 00 00 00", " 00", 1),
        ),
        (
            "bin_exec_size_4",
            GOOD.replacen("00 04 00 00 0f", "00 02 00 00 0f", 1),
        ),
        (
            "bin_sample4_channel",
            "6f 08 00 04 00 00 04 05 02 00 00 00 00 00 06 39 00 00 00 00 00 01 35 00 00 00 00 00"
                .to_string(),
        ),
        ("hex_odd_digits", "6d 1".to_string()),
    ];
    for (name, hex) in cases {
        let e = hex_error(&hex);
        assert!(
            matches!(e, Error::Decode(_) | Error::Validation(_)),
            "{name}: {e}"
        );
        snap(name, &e);
    }
    let e = visa::decode_binary(b"CISA\x04\x01\x01\x00").unwrap_err();
    snap("bin_container", &e);
}

fn first_tex(p: &mut texlate::Program) -> &mut TexInstr {
    p.items
        .iter_mut()
        .find_map(|i| match i {
            Item::Tex(t) => Some(&mut **t),
            _ => None,
        })
        .unwrap()
}

#[test]
fn ir_without_a_visa_form() {
    let line = "sample_d.RGBA (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0 V0060.0 V0061.0 V0054.0\n";
    type Edit = fn(&mut TexInstr);
    let cases: [(&str, Edit); 7] = [
        ("ir_offset_range", |t| t.offset = Offset::Imm([8, 0, 0])),
        ("ir_dst_layout", |t| t.dst[1] = t.dst[2]),
        ("ir_params_positional", |t| {
            if let texlate::ir::Lod::Grad { dy, .. } = &mut t.lod {
                dy.clear();
            }
        }),
        ("ir_min_lod", |t| t.min_lod = Some(Scalar::Zero)),
        ("ir_predicate_register", |t| {
            t.coord[0] = Scalar::Reg(Reg {
                file: RegFile::Predicate,
                index: 4,
                sub: 0,
            })
        }),
        ("ir_no_channels", |t| t.dst = [None; 4]),
        ("ir_too_many_coords", |t| t.coord = vec![Scalar::Zero; 4]),
    ];
    for (name, edit) in cases {
        let mut p = visa::parse_text(line).unwrap();
        edit(first_tex(&mut p));
        let e = visa::print_text(&p).expect_err(name);
        snap(name, &e);
        assert!(visa::encode_binary(&p).is_err(), "{name}");
    }
}
