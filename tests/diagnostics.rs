//! Rendered diagnostics: one error per ISA and per layer (parse, decode, validation,
//! unsupported, bindings and register-map files), as a compiler prints them without and with
//! colour, and as JSON. Each is a snapshot in `snapshots/`.

use texlate::diagnostic::{Diagnostic, Input};
use texlate::error::Error;
use texlate::ir::{Item, Reg, RegFile, Scalar};
use texlate::translate::{translate, Options};
use texlate::{isa, Form, Isa};

fn snap(name: &str, d: &Diagnostic) {
    let plain = format!("{}--- json\n{}\n", d.render(false), d.to_json());
    let color = d.render(true);
    assert!(!plain.contains('\u{1b}'), "no escape codes without colour");
    assert!(color.contains('\u{1b}'), "escape codes with colour");
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(format!("diag_{name}"), plain);
        insta::assert_snapshot!(format!("diag_{name}_color"), color);
    });
}

/// The diagnostic of decoding `text` as `isa`, from a file named `name`.
fn text_error(isa: Isa, name: &str, text: &str) -> Diagnostic {
    let e = texlate::decode(isa, text.as_bytes()).expect_err("the input is rejected");
    Diagnostic::from_error(&e, &Input::text(name, text), &[])
}

/// The diagnostic of translating `input` (named `name`) with `options`.
fn translate_error(name: &str, input: &str, options: &Options) -> Diagnostic {
    let e = translate(input.as_bytes(), options).expect_err("the translation is refused");
    let config: Vec<Input<'_>> = [&options.bindings, &options.regmap]
        .into_iter()
        .flatten()
        .map(|(n, t)| Input::text(n, t))
        .collect();
    Diagnostic::from_error(
        &e,
        &Input::detect(options.from, name, input.as_bytes()),
        &config,
    )
}

fn binary_error(isa: Isa, name: &str, bytes: &[u8]) -> Diagnostic {
    let e: Error = isa::codec(isa)
        .decode_binary(bytes)
        .map(|_| ())
        .expect_err("the binary is rejected");
    Diagnostic::from_error(&e, &Input::binary(name), &[])
}

const DX_SAMPLE: &str = "ps_5_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_sampler s0, mode_default
sample r0.xyzw, r1.xyxx, t0.xyzw, s0
";

#[test]
fn parse_errors() {
    snap(
        "parse_visa",
        &text_error(
            Isa::Visa,
            "kernel.visaasm",
            "sample_lz.RGBA (M1, 16) 0x0:uw S0 T6 V0057.0 V0053.0\n    sample_lz.RGBA (M1, 12) 0x0:uw S0 T6 V0057.0 V0053.0\n",
        ),
    );
    snap(
        "parse_dxbc",
        &text_error(
            Isa::Dxbc,
            "shader.asm",
            "ps_5_0\nsample r0.xyzw, r1.xyxx, t0.xyzw, foo\n",
        ),
    );
    let d = text_error(
        Isa::Nvidia,
        "kernel.sass",
        "        /*0008*/                   TEXS R6, R4, R4, R5, 0x6e, 9D, RGBA ;\n",
    );
    assert_eq!((d.line, d.column), (Some(1), Some(63)));
    snap("parse_nvidia", &d);
}

#[test]
fn decode_errors() {
    snap(
        "decode_visa",
        &binary_error(
            Isa::Visa,
            "sampler.bin",
            &[0x6d, 0xff, 0x00, 0x04, 0, 0, 0x0f, 5, 2, 0xe3, 1, 0, 0],
        ),
    );
    let mut container = b"DXBC".to_vec();
    container.extend_from_slice(&[0; 16]);
    container.extend_from_slice(&[1, 0, 0, 0, 0x40, 0, 0, 0, 1, 0, 0, 0]);
    snap(
        "decode_dxbc",
        &binary_error(Isa::Dxbc, "shader.dxbc", &container),
    );
    snap(
        "decode_nvidia",
        &binary_error(Isa::Nvidia, "kernel.bin", &[1, 2, 3, 4, 5, 6, 7, 8, 9]),
    );
}

#[test]
fn validation_errors() {
    snap(
        "validation_visa",
        &text_error(
            Isa::Visa,
            "kernel.visaasm",
            "sample_lz.R (M1, 16)  0x1000:uw S0 T6 V0057.0 V0053.0\n",
        ),
    );
    // A declaration the listing's signature table does not hold: the container would not
    // say what the program reads. The error points at the declaration.
    let mut options = Options::new(Isa::Dxbc, Isa::Dxbc);
    options.emit = Form::Binary;
    let d = translate_error(
        "shader.asm",
        "// Input signature:\n//\n// Name                 Index   Mask Register SysValue  Format   Used\n\
         // -------------------- ----- ------ -------- -------- ------- ------\n\
         // TEXCOORD                 0   xy          1     NONE   float   xy\n//\nps_5_0\n\
         dcl_input_ps linear v1.xy\ndcl_input_ps linear v2.xy\nret\n",
        &options,
    );
    snap("validation_dxbc", &d);
    // An error without a position in a text input names the file, never a byte offset.
    let mut options = Options::new(Isa::Nvidia, Isa::Nvidia);
    options.emit = Form::Tokens;
    let d = translate_error(
        "kernel.sass",
        "        /*0008*/                   TEX R0, R4, 0x6e, 2D, 0xf ;\n",
        &options,
    );
    assert_eq!(d.offset, None);
    let text = d.render(false);
    assert!(
        text.contains("kernel.sass") && !text.contains("offset"),
        "{text}"
    );
    // An NVIDIA listing whose instruction, edited in the IR, no longer encodes: the error
    // points at the listing's line.
    let listing = "        /*0008*/                   TEX R0, R4, 0x6e, 2D, 0xf ;\n";
    let mut program = texlate::decode(Isa::Nvidia, listing.as_bytes()).unwrap();
    for item in &mut program.items {
        if let Item::Tex(t) = item {
            for (k, c) in t.coord.iter_mut().enumerate() {
                *c = Scalar::Reg(Reg {
                    file: RegFile::Temp,
                    index: 255 + k as u32,
                    sub: 0,
                });
            }
        }
    }
    let e = texlate::encode(Isa::Nvidia, &program, Form::Binary).expect_err("misaligned Ra");
    snap(
        "validation_nvidia",
        &Diagnostic::from_error(&e, &Input::text("kernel.sass", listing), &[]),
    );
}

#[test]
fn unsupported_errors() {
    let big = DX_SAMPLE.replace("t0", "t9000");
    snap(
        "unsupported_dxbc",
        &translate_error("shader.asm", &big, &Options::new(Isa::Dxbc, Isa::Nvidia)),
    );
    let example = include_str!("../examples/rf_2d_argsampler_f.visaasm");
    snap(
        "unsupported_visa",
        &translate_error(
            "rf_2d_argsampler_f.visaasm",
            example,
            &Options::new(Isa::Visa, Isa::Nvidia),
        ),
    );
    let mut strict = Options::new(Isa::Nvidia, Isa::Dxbc);
    strict.strict = true;
    snap(
        "unsupported_nvidia",
        &translate_error(
            "kernel.sass",
            "        /*0008*/                   MOV R1, c[0x0][0x20] ;\n        /*0010*/                   TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA ;\n",
            &strict,
        ),
    );
}

#[test]
fn bindings_and_regmap_errors() {
    let mut options = Options::new(Isa::Dxbc, Isa::Nvidia);
    options.bindings = Some((
        "bindings.toml".into(),
        "[[binding]]\ndim = \"5d\"\ndxbc = { texture = \"t0\", sampler = \"s0\" }\n".into(),
    ));
    snap(
        "bindings",
        &translate_error("shader.asm", DX_SAMPLE, &options),
    );
    let mut options = Options::new(Isa::Dxbc, Isa::Nvidia);
    options.regmap = Some((
        "regmap.toml".into(),
        "[[map]]\nsource = \"r1.x\"\ntarget = \"Q4\"\n".into(),
    ));
    snap(
        "regmap",
        &translate_error("shader.asm", DX_SAMPLE, &options),
    );
}

#[test]
fn a_text_input_never_gets_a_byte_offset() {
    let e = Error::Decode(texlate::error::DecodeError {
        offset: 0x40,
        reason: "a token the container cannot hold".into(),
    });
    let text = Diagnostic::from_error(&e, &Input::text("shader.asm", "ps_5_0\n"), &[]);
    assert_eq!(text.offset, None);
    assert!(
        !text.render(false).contains("offset"),
        "{}",
        text.render(false)
    );
    assert!(text.render(false).contains("in shader.asm"));
    let binary = Diagnostic::from_error(&e, &Input::binary("shader.dxbc"), &[]);
    assert!(binary
        .render(false)
        .contains("at byte offset 0x40 of shader.dxbc"));
}
