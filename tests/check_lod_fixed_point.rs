//! The semantic check on LOD queries across NVIDIA TMML's 8.8 fixed point (docs/nvidia.md
//! "TMML"): hand-written NVIDIA code that converts TMML's results as Mesa does agrees with DX
//! `lod`; the same code with the swap missing, a wrong signedness or the 1/256 scale missing
//! disagrees; and DX code that brings a float LOD into NVIDIA's fixed point agrees with TMML.

use texlate::check::{self, compare, CheckReport, Value, ValueOp};
use texlate::ir::{Isa, Reg, RegFile};
use texlate::translate::{Bindings, RegisterMap};

const BINDINGS: &str = r#"
[[binding]]
dim = "2d"
dxbc = { texture = "t0", sampler = "s1" }
visa = { texture = "T6", sampler = "S0" }
nvidia = { texture = "0x6e" }
"#;

const DX_DECLS: &str = "dcl_resource_texture2d (float,float,float,float) t0\n\
                        dcl_sampler s1, mode_default\n";

fn reg(index: u32, sub: u32) -> Reg {
    Reg {
        file: RegFile::Temp,
        index,
        sub,
    }
}

/// DX rN.c ↔ NVIDIA R(4N+c) for r0 (the LOD) and r1 (the coordinates), either way.
fn map(dx_to_nv: bool) -> RegisterMap {
    let mut m = RegisterMap::default();
    for n in 0..2 {
        for c in 0..4 {
            let (dx, nv) = (reg(n, c), reg(4 * n + c, 0));
            let (from, to) = if dx_to_nv { (dx, nv) } else { (nv, dx) };
            m.entries.insert(from, to);
        }
    }
    m
}

fn bindings() -> Bindings {
    Bindings::parse("bindings.toml", BINDINGS).unwrap()
}

/// DX `lod` (dst mask `mask`) against an NVIDIA program, DX as the source.
fn dx_vs_nv(mask: &str, nv: &str) -> CheckReport {
    let dx = format!("{DX_DECLS}lod r0.{mask}, r1.xyxx, t0.xyzw, s1\n");
    compare(
        Isa::Dxbc,
        dx.as_bytes(),
        Isa::Nvidia,
        nv.as_bytes(),
        &bindings(),
        &map(true),
        11,
    )
    .unwrap()
}

/// TMML into R8 (R8 = unclamped, R9 = clamped), then each channel converted into R0 (x,
/// clamped) and R1 (y, unclamped): `x` and `y` are the two conversions, `scale` what
/// multiplies them.
fn tmml_then(x: &str, y: &str, scale: &str) -> String {
    format!(
        "TMML.LOD R8, R4, 0x6e, 2D, 0x3 ;\nMOV32I R10, {scale} ;\n{x} ;\nFMUL R0, R0, R10 ;\n\
         {y} ;\nFMUL R1, R1, R10 ;\n"
    )
}

const SCALE: &str = "0x3b800000";

#[test]
fn tmml_converted_as_mesa_does_agrees_with_dx_lod() {
    let nv = tmml_then("I2F.F32.U16 R0, R9", "I2F.F32.S16 R1, R8", SCALE);
    let report = dx_vs_nv("xy", &nv);
    assert!(report.agrees(), "{report}");
    assert_eq!(report.registers_compared, 2);
    // One channel at a time: TMML's mask names hardware channels (0 = unclamped).
    let clamped = "TMML.LOD R9, R4, 0x6e, 2D, 0x2 ;\nI2F.F32.U16 R0, R9 ;\n\
                   MOV32I R10, 0x3b800000 ;\nFMUL R0, R0, R10 ;\n";
    let report = dx_vs_nv("x", clamped);
    assert!(report.agrees(), "{report}");
    let unclamped = "TMML.LOD R9, R4, 0x6e, 2D, 0x1 ;\nI2F.F32.S16 R1, R9 ;\n\
                     MOV32I R10, 0x3b800000 ;\nFMUL R1, R1, R10 ;\n";
    let report = dx_vs_nv("y", unclamped);
    assert!(report.agrees(), "{report}");
    // The other hardware channel is the other LOD: the request's channel mask differs.
    let report = dx_vs_nv("y", &clamped.replace("R0", "R1"));
    assert!(!report.agrees());
    assert!(report.pairs[0]
        .diffs
        .iter()
        .any(|d| d.field == "channel mask"));
}

/// The registers that disagree.
fn bad_registers(report: &CheckReport) -> Vec<&str> {
    assert!(!report.agrees());
    assert!(report.pairs.iter().all(|p| p.diffs.is_empty()), "{report}");
    report
        .registers
        .iter()
        .map(|r| r.source_reg.as_str())
        .collect()
}

#[test]
fn missing_swap_is_caught() {
    // Rd+0 read as the clamped LOD: both registers wrong.
    let nv = tmml_then("I2F.F32.U16 R0, R8", "I2F.F32.S16 R1, R9", SCALE);
    assert_eq!(bad_registers(&dx_vs_nv("xy", &nv)), ["r0.x", "r0.y"]);
}

#[test]
fn wrong_signedness_is_caught() {
    // The clamped LOD read as s16: channel 0 only.
    let nv = tmml_then("I2F.F32.S16 R0, R9", "I2F.F32.S16 R1, R8", SCALE);
    assert_eq!(bad_registers(&dx_vs_nv("xy", &nv)), ["r0.x"]);
    // The unclamped LOD read as u16 (a negative LOD would read 256 too high).
    let nv = tmml_then("I2F.F32.U16 R0, R9", "I2F.F32.U16 R1, R8", SCALE);
    assert_eq!(bad_registers(&dx_vs_nv("xy", &nv)), ["r0.y"]);
    // Or as a 32-bit integer, relying on the upper bits nothing settles.
    let nv = tmml_then("I2F.F32.U16 R0, R9", "I2F.F32.S32 R1, R8", SCALE);
    assert_eq!(bad_registers(&dx_vs_nv("xy", &nv)), ["r0.y"]);
}

#[test]
fn missing_scale_is_caught() {
    let nv = tmml_then("I2F.F32.U16 R0, R9", "I2F.F32.S16 R1, R8", "0x3f800000");
    assert_eq!(bad_registers(&dx_vs_nv("xy", &nv)), ["r0.x", "r0.y"]);
    // Scaled by 256 instead of 1/256.
    let nv = tmml_then("I2F.F32.U16 R0, R9", "I2F.F32.S16 R1, R8", "0x43800000");
    assert_eq!(bad_registers(&dx_vs_nv("xy", &nv)), ["r0.x", "r0.y"]);
}

#[test]
fn dx_lod_brought_into_fixed_point_agrees_with_tmml() {
    // NVIDIA as the source: what TMML leaves in R0 (unclamped) and R1 (clamped) is
    // i32(trunc(lod × 256)).
    let nv = "TMML.LOD R0, R4, 0x6e, 2D, 0x3 ;\n";
    let fixed = |x: &str, y: &str| {
        format!(
            "{DX_DECLS}lod r2.xy, r1.xyxx, t0.xyzw, s1\nmul r0.x, r2.{x}, l(256.000000)\n\
             ftoi r0.x, r0.x\nmul r0.y, r2.{y}, l(256.000000)\nftoi r0.y, r0.y\n"
        )
    };
    let run = |dx: &str| {
        check::compare(
            Isa::Nvidia,
            nv.as_bytes(),
            Isa::Dxbc,
            dx.as_bytes(),
            &bindings(),
            &map(false),
            5,
        )
        .unwrap()
    };
    let report = run(&fixed("y", "x"));
    assert!(report.agrees(), "{report}");
    // Without the swap, or rounding to nearest instead of toward zero, it disagrees.
    assert!(!run(&fixed("x", "y")).agrees());
    let rounded =
        fixed("y", "x").replace("ftoi r0.x, r0.x", "round_ne r0.x, r0.x\nftoi r0.x, r0.x");
    assert!(!run(&rounded).agrees());
}

#[test]
fn the_fixed_point_round_trip_is_taken_back_for_lod_channels_only() {
    let result = |channel| Value::Result {
        request: 0,
        channel,
    };
    let fixed = |v: Value| {
        Value::apply(
            ValueOp::F32ToI32,
            vec![Value::apply(
                ValueOp::FMul,
                vec![Value::Bits(0x4380_0000), v],
            )],
        )
    };
    let back = |v: Value, signed: bool| {
        let field = if signed {
            ValueOp::SignedField { lo: 0, width: 16 }
        } else {
            ValueOp::Low16
        };
        let conv = if signed {
            ValueOp::I32ToF32
        } else {
            ValueOp::U32ToF32
        };
        let f = Value::apply(conv, vec![Value::apply(field, vec![v])]);
        Value::apply(ValueOp::FMul, vec![f, Value::Bits(0x3b80_0000)])
    };
    assert_eq!(back(fixed(result(0)), false), result(0));
    assert_eq!(back(fixed(result(1)), true), result(1));
    assert_ne!(back(fixed(result(0)), true), result(0));
    assert_ne!(back(fixed(result(1)), false), result(1));
    assert_ne!(back(fixed(result(2)), false), result(2));
    // `and 0xffff`, `(x << 16) >> 16` are the same fields.
    let x = result(3);
    assert_eq!(
        Value::apply(ValueOp::And, vec![Value::Bits(0xffff), x.clone()]),
        Value::apply(ValueOp::Low16, vec![x.clone()])
    );
    let shl = Value::apply(ValueOp::Shl, vec![x.clone(), Value::Bits(16)]);
    assert_eq!(
        Value::apply(ValueOp::Asr, vec![shl.clone(), Value::Bits(16)]),
        Value::apply(ValueOp::SignedField { lo: 0, width: 16 }, vec![x.clone()])
    );
    assert_eq!(
        Value::apply(ValueOp::Shr, vec![shl, Value::Bits(16)]),
        Value::apply(ValueOp::Low16, vec![x])
    );
    // Concrete values are computed: -1.5 in s8.8 is 0xfe80, read back.
    let s16 = Value::apply(
        ValueOp::SignedField { lo: 0, width: 16 },
        vec![Value::Bits(0x1234_fe80)],
    );
    let f = Value::apply(ValueOp::I32ToF32, vec![s16]);
    assert_eq!(
        Value::apply(ValueOp::FMul, vec![f, Value::Bits(0x3b80_0000)]),
        Value::Bits((-1.5f32).to_bits())
    );
}

#[test]
fn translations_check_from_their_binary_too() {
    // The NVIDIA model decodes I2F.F32.S16/U16 words as it reads their text.
    for mask in ["xy", "x", "y"] {
        let dx = format!("ps_5_0\n{DX_DECLS}lod r0.{mask}, r1.xyxx, t0.xyzw, s1\n");
        let mut o = texlate::translate::Options::new(Isa::Dxbc, Isa::Nvidia);
        o.emit = texlate::Form::Binary;
        let t = texlate::translate::translate(dx.as_bytes(), &o).unwrap();
        assert!(t.output.len() % 32 == 0 && !t.output.is_empty());
        let report = compare(
            Isa::Dxbc,
            dx.as_bytes(),
            Isa::Nvidia,
            &t.output,
            &t.bindings,
            &t.regmap,
            3,
        )
        .unwrap();
        assert!(report.agrees(), "{mask}: {report}");
        assert_eq!(report.registers_compared, mask.len());
    }
}

/// `src` translated from `from` to `to` and back (the way there's ALU instructions read back
/// and translated too): the way back agrees with `src`. DX comes back as a container: fxc's
/// listing prints float immediates as `%f`, which does not hold 1/256 (`l(0.003906)`).
fn round_trip(from: Isa, to: Isa, src: &str, bindings: Option<&str>) {
    use texlate::translate::{translate, Options};
    let mut o = Options::new(from, to);
    o.bindings = bindings.map(|b| ("bindings".to_string(), b.to_string()));
    let there = translate(src.as_bytes(), &o).unwrap();
    let text = texlate::isa::codec(to).print_text(&there.program).unwrap();
    let mut r = Options::new(to, from);
    r.bindings = Some(("bindings".into(), there.bindings.to_toml()));
    if from == Isa::Dxbc {
        r.emit = texlate::Form::Binary;
    }
    let back = translate(text.as_bytes(), &r).unwrap();
    let back_text = back.output.clone();
    let (m1, m2) = (&there.regmap, &back.regmap);
    let report = check::compare_with(
        from,
        src.as_bytes(),
        from,
        &back_text,
        &there.bindings,
        &|reg| m1.get(&reg).and_then(|x| m2.get(&x)),
        1,
    )
    .unwrap();
    assert!(report.agrees(), "{src}\n{text}\n{report}");
    // The way there's conversions came back as ALU instructions, not as comments.
    let alus = |p: &texlate::Program| {
        p.items
            .iter()
            .filter(|i| matches!(i, texlate::ir::Item::Alu(_)))
            .count()
    };
    let there_read = texlate::isa::codec(to)
        .parse_text(&text, Default::default())
        .unwrap();
    let c = texlate::isa::codec(from);
    let back_read = if from == Isa::Dxbc {
        c.decode_binary(&back_text).unwrap()
    } else {
        c.parse_text(std::str::from_utf8(&back_text).unwrap(), Default::default())
            .unwrap()
    };
    assert!(alus(&there_read) > 0, "{text}");
    assert!(alus(&back_read) >= alus(&there_read), "{text}");
}

#[test]
fn lod_queries_go_there_and_back() {
    for mask in ["xy", "x", "y"] {
        let dx = format!("ps_5_0\n{DX_DECLS}lod r0.{mask}, r1.xyxx, t0.xyzw, s1\n");
        round_trip(Isa::Dxbc, Isa::Nvidia, &dx, None);
    }
    for mask in ["0x3", "0x1", "0x2"] {
        let nv = format!("TMML.LOD R0, R4, 0x6e, 2D, {mask}\n");
        round_trip(Isa::Nvidia, Isa::Dxbc, &nv, Some(BINDINGS));
        round_trip(Isa::Nvidia, Isa::Visa, &nv, Some(BINDINGS));
    }
    for channels in ["RG", "R", "G", "RGBA"] {
        let visa = format!("lod.{channels} (M1, 16)  0x0:uw S0 T6 V0040.0 V0043.0 V0044.0\n");
        round_trip(Isa::Visa, Isa::Nvidia, &visa, Some(BINDINGS));
    }
}
