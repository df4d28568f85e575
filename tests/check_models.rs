//! The semantic check's models, instruction by instruction (requests asserted field by
//! field from the seeds), and agreement across ISAs on hand-written equivalent programs.

use indexmap::IndexMap;
use texlate::check::{
    self, compare, CheckReport, InitialFile, LodReq, Offsets, ReqOp, Request, ResourceId, Value,
};
use texlate::ir::{Isa, Reg, RegFile};
use texlate::translate::{Bindings, RegisterMap};

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"), prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, value)
    });
}

fn reg(file: RegFile, index: u32, sub: u32) -> Reg {
    Reg { file, index, sub }
}
fn r_nv(n: u32) -> Reg {
    reg(RegFile::Temp, n, 0)
}
fn r_dx(n: u32, c: u32) -> Reg {
    reg(RegFile::Temp, n, c)
}
fn f(x: f32) -> u32 {
    x.to_bits()
}
fn fv(x: f32) -> Value {
    Value::Bits(x.to_bits())
}

fn init(values: &[(Reg, u32)]) -> InitialFile {
    let mut i = InitialFile::random(7);
    i.values = values.iter().copied().collect::<IndexMap<_, _>>();
    i
}

const BINDINGS: &str = r#"
[[binding]]
dim = "2d"
dxbc = { texture = "t0", sampler = "s1" }
visa = { texture = "T6", sampler = "S0" }
nvidia = { texture = "0x6e" }

[[binding]]
dim = "2d_array"
dxbc = { texture = "t1", sampler = "s0" }
visa = { texture = "T7", sampler = "S1" }
nvidia = { texture = "0x70" }
"#;

fn bindings() -> Bindings {
    Bindings::parse("bindings.toml", BINDINGS).unwrap()
}

fn one(isa: Isa, program: &str, values: &[(Reg, u32)]) -> (Request, check::Execution) {
    let e = check::run(isa, program.as_bytes(), init(values), &bindings()).unwrap();
    assert_eq!(e.requests.len(), 1, "{:?}", e.requests);
    (e.requests[0].request.clone(), e)
}

#[test]
fn nvidia_tex_ll_aoffi_dc_reads_its_slots() {
    // seeds/nvidia-TEX.txt: Ra = s, t; Rb = LOD, toff, DC (compacted).
    let (r, e) = one(
        Isa::Nvidia,
        "TEX.LL.AOFFI.DC R4, R4, R8, 0x6e, 2D, 0xf",
        &[
            (r_nv(4), f(0.25)),
            (r_nv(5), f(0.75)),
            (r_nv(8), f(2.0)),
            // u = 3, v = -2: 0xe3 (research §4 "Offset packing").
            (r_nv(9), 0xe3),
            (r_nv(10), f(0.5)),
        ],
    );
    assert_eq!(r.op, ReqOp::Sample);
    assert_eq!(r.resource, ResourceId::Row(0));
    assert_eq!(r.sampler, Some(ResourceId::Row(0)));
    assert_eq!(r.coords, vec![fv(0.25), fv(0.75)]);
    assert_eq!(r.lod, LodReq::Level(fv(2.0)));
    assert_eq!(r.offsets, Offsets::Imm([3, -2, 0]));
    assert_eq!(r.reference, Some(fv(0.5)));
    assert_eq!(r.layer, None);
    assert_eq!(r.channels, 0xf);
    // Results land contiguously from Rd.
    for c in 0..4 {
        assert_eq!(
            e.regs[&r_nv(4 + c)],
            Value::Result {
                request: 0,
                channel: c as u8
            }
        );
    }
}

#[test]
fn nvidia_short_forms_and_layers() {
    // Plain TLD4S: x from Ra, y from Rb (research §11).
    let (r, e) = one(
        Isa::Nvidia,
        "TLD4S.G R10, R8, R13, R0, 0x6e",
        &[(r_nv(13), f(0.5)), (r_nv(0), f(0.125))],
    );
    assert_eq!(r.op, ReqOp::Gather { channel: 1 });
    assert_eq!(r.coords, vec![fv(0.5), fv(0.125)]);
    assert_eq!(
        e.regs[&r_nv(8)],
        Value::Result {
            request: 0,
            channel: 0
        }
    );
    assert_eq!(
        e.regs[&r_nv(9)],
        Value::Result {
            request: 0,
            channel: 1
        }
    );
    assert_eq!(
        e.regs[&r_nv(10)],
        Value::Result {
            request: 0,
            channel: 2
        }
    );
    assert_eq!(
        e.regs[&r_nv(11)],
        Value::Result {
            request: 0,
            channel: 3
        }
    );
    // TEX ARRAY_2D: Ra = a (u16), s, t.
    let (r, _) = one(
        Isa::Nvidia,
        "TEX R0, R4, 0x70, ARRAY_2D, 0x3",
        &[(r_nv(4), 0x0003_0002), (r_nv(5), f(0.5)), (r_nv(6), f(1.5))],
    );
    assert_eq!(r.layer, Some(Value::Bits(2)));
    assert_eq!(r.resource, ResourceId::Row(1));
    // TLD4 offsets: 6-bit fields at an 8-bit stride.
    let (r, _) = one(
        Isa::Nvidia,
        "TLD4.R.AOFFI R4, R4, R8, 0x6e, 2D, 0xf",
        &[(r_nv(8), 0x3e03)],
    );
    assert_eq!(r.offsets, Offsets::Imm([3, -2, 0]));
    // TXD: derivatives interleaved in Rb.
    let (r, _) = one(
        Isa::Nvidia,
        "TXD R0, R4, R8, 0x6e, 2D, 0xf",
        &[
            (r_nv(8), f(1.0)),
            (r_nv(9), f(2.0)),
            (r_nv(10), f(3.0)),
            (r_nv(11), f(4.0)),
        ],
    );
    assert_eq!(
        r.lod,
        LodReq::Grad {
            dx: vec![fv(1.0), fv(3.0)],
            dy: vec![fv(2.0), fv(4.0)]
        }
    );
}

#[test]
fn nvidia_alu_and_binary_words() {
    let src = "MOV32I R9, 0xe3 ;\nI2I.U16.U32.SAT R4, R2 ;\nI2F.F32.U32 R3, R2 ;\nEXIT ;";
    let e = check::run(
        Isa::Nvidia,
        src.as_bytes(),
        init(&[(r_nv(2), 70000)]),
        &bindings(),
    )
    .unwrap();
    assert_eq!(e.regs[&r_nv(9)], Value::Bits(0xe3));
    assert_eq!(e.regs[&r_nv(4)], Value::Bits(0xffff));
    assert_eq!(e.regs[&r_nv(3)], fv(70000.0));
    // The same word as a raw stream (control word first): TEXS.P R6, R4, R4, R5, 0x6e, 2D, RGBA.
    let mut bytes = 0u64.to_le_bytes().to_vec();
    bytes.extend(0xd83006e060570404u64.to_le_bytes());
    let e = check::run(
        Isa::Nvidia,
        &bytes,
        init(&[(r_nv(4), f(0.5)), (r_nv(5), f(0.25))]),
        &bindings(),
    )
    .unwrap();
    assert_eq!(e.requests[0].request.coords, vec![fv(0.5), fv(0.25)]);
    assert_eq!(e.requests[0].at, "offset 0x8");
    // An unknown instruction is an error naming the line.
    let err = check::run(Isa::Nvidia, b"IADD R0, R1, R2 ;", init(&[]), &bindings()).unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
}

const DX_DECLS: &str = "dcl_resource_texture2d (float,float,float,float) t0\n\
                        dcl_resource_texture2darray (float,float,float,float) t1\n\
                        dcl_sampler s0, mode_default\n\
                        dcl_sampler s1, mode_default\n";

#[test]
fn dxbc_sample_l_reads_its_operands() {
    let src = format!("{DX_DECLS}sample_l_aoffimmi(-1,2,0) r0.xyzw, r1.xyzx, t0.yxzw, s1, r2.w\n");
    let (r, e) = one(
        Isa::Dxbc,
        &src,
        &[
            (r_dx(1, 0), f(0.25)),
            (r_dx(1, 1), f(0.75)),
            (r_dx(2, 3), f(3.0)),
        ],
    );
    assert_eq!(r.op, ReqOp::Sample);
    assert_eq!(r.resource, ResourceId::Row(0));
    assert_eq!(r.coords, vec![fv(0.25), fv(0.75)]);
    assert_eq!(r.lod, LodReq::Level(fv(3.0)));
    assert_eq!(r.offsets, Offsets::Imm([-1, 2, 0]));
    // The resource swizzle .yxzw: r0.x gets G, r0.y gets R.
    assert_eq!(
        e.regs[&r_dx(0, 0)],
        Value::Result {
            request: 0,
            channel: 1
        }
    );
    assert_eq!(
        e.regs[&r_dx(0, 1)],
        Value::Result {
            request: 0,
            channel: 0
        }
    );
    assert_eq!(r.channels, 0xf);
}

#[test]
fn dxbc_layers_ld_and_conversions() {
    // Texture2DArray: the layer is .z, rounded to nearest even.
    let src = format!("{DX_DECLS}sample r0.xy, r1.xyzx, t1.xyzw, s0\n");
    let (r, _) = one(Isa::Dxbc, &src, &[(r_dx(1, 2), f(2.5))]);
    assert_eq!(r.layer, Some(Value::Bits(2)));
    // ld: the mip level is .w.
    let src = format!("{DX_DECLS}ld r0.xyzw, r1.xyzw, t0.xyzw\n");
    let (r, _) = one(Isa::Dxbc, &src, &[(r_dx(1, 3), 2)]);
    assert_eq!(r.op, ReqOp::Fetch);
    assert_eq!(r.lod, LodReq::Level(Value::Bits(2)));
    assert_eq!(r.sampler, None);
    // ALU around it: utof of a result stays symbolic with the conversion recorded.
    let src = format!("{DX_DECLS}resinfo_uint r0.xy, l(0), t0.xyzw\nutof r1.x, r0.x\n");
    let (r, e) = one(Isa::Dxbc, &src, &[]);
    assert_eq!(r.op, ReqOp::QuerySize);
    assert_eq!(r.lod, LodReq::Zero);
    assert_eq!(e.regs[&r_dx(1, 0)].to_string(), "u32_to_f32(result[0].r)");
}

#[test]
fn visa_sample_b_reads_its_parameters() {
    let src = "sample_b.RGBA (M1, 16) 0x0:uw S0 T6 V40.0 V41.0 V42.0 V43.0\n";
    let v = |n: u32| reg(RegFile::Temp, n, 0);
    let (r, e) = one(
        Isa::Visa,
        src,
        &[(v(41), f(1.5)), (v(42), f(0.25)), (v(43), f(0.75))],
    );
    assert_eq!(r.op, ReqOp::Sample);
    assert_eq!(r.resource, ResourceId::Row(0));
    assert_eq!(r.lod, LodReq::Bias(fv(1.5)));
    assert_eq!(r.coords, vec![fv(0.25), fv(0.75)]);
    assert_eq!(r.offsets, Offsets::None);
    // SIMD16 f results: one 64-byte block per channel.
    for c in 0..4u32 {
        assert_eq!(
            e.regs[&reg(RegFile::Temp, 40, 64 * c)],
            Value::Result {
                request: 0,
                channel: c as u8
            }
        );
    }
    // aoffimmi U 11:8, V 7:4, R 3:0.
    let (r, _) = one(
        Isa::Visa,
        "sample4.A (M1, 16) 0xf20:uw S0 T6 V40.0 V41.0 V42.0\n",
        &[],
    );
    assert_eq!(r.op, ReqOp::Gather { channel: 3 });
    assert_eq!(r.offsets, Offsets::Imm([-1, 2, 0]));
}

/// NVIDIA R(4N+c) for DX rN.c (the default register map).
fn dx_to_nv() -> RegisterMap {
    let mut m = RegisterMap::default();
    for n in 0..4 {
        for c in 0..4 {
            m.entries.insert(r_dx(n, c), r_nv(4 * n + c));
        }
    }
    m
}

fn dx_vs_nv(nv: &str) -> CheckReport {
    let dx = format!("{DX_DECLS}sample r0.xyzw, r1.xyxx, t0.xyzw, s1\n");
    compare(
        Isa::Dxbc,
        dx.as_bytes(),
        Isa::Nvidia,
        nv.as_bytes(),
        &bindings(),
        &dx_to_nv(),
        42,
    )
    .unwrap()
}

#[test]
fn dx_sample_agrees_with_nvidia_tex() {
    let report = dx_vs_nv("TEX R0, R4, 0x6e, 2D, 0xf");
    assert!(report.agrees(), "{report}");
    assert_eq!(report.registers_compared, 4);
    // The short form reads the same.
    let report = dx_vs_nv("TEXS R2, R0, R4, R5, 0x6e, 2D, RGBA");
    assert!(report.agrees(), "{report}");
}

#[test]
fn swapped_coordinates_disagree_naming_the_coordinate() {
    let report = dx_vs_nv("MOV R8, R4 ;\nMOV R9, R5 ;\nTEX R0, R8, 0x6e, 2D, 0xf ;");
    assert!(report.agrees(), "{report}");
    let report = dx_vs_nv("MOV R8, R5 ;\nMOV R9, R4 ;\nTEX R0, R8, 0x6e, 2D, 0xf ;");
    assert!(!report.agrees());
    let fields: Vec<&str> = report.pairs[0]
        .diffs
        .iter()
        .map(|d| d.field.as_str())
        .collect();
    assert_eq!(fields, ["coordinate u", "coordinate v"]);
    // The scratch registers R8, R9 are not source registers: they are not compared.
    snapshot(
        "check_disagreement_swapped_coordinates",
        &report.to_string(),
    );
}

#[test]
fn dropped_result_channel_and_wrong_texture_disagree() {
    let report = dx_vs_nv("TEX R0, R4, 0x70, 2D, 0x7");
    assert!(!report.agrees());
    snapshot("check_disagreement_texture_and_mask", &report.to_string());
}

#[test]
fn dx_array_layer_agrees_with_nvidia_after_conversion() {
    // DX Texture2DArray sample; NVIDIA gets the layer through I2I of an F2I.RNE, as a
    // translation would emit around the texture instruction.
    let dx = format!("{DX_DECLS}sample r0.xyzw, r1.xyzx, t1.xyzw, s0\n");
    let nv = "F2I.U32.ROUND R12, R6 ;\nI2I.U16.U32.SAT R12, R12 ;\nMOV R13, R4 ;\nMOV R14, R5 ;\nTEX R0, R12, 0x70, ARRAY_2D, 0xf ;";
    let report = compare(
        Isa::Dxbc,
        dx.as_bytes(),
        Isa::Nvidia,
        nv.as_bytes(),
        &bindings(),
        &dx_to_nv(),
        3,
    )
    .unwrap();
    assert!(report.agrees(), "{report}");
}

#[test]
fn dx_sample_agrees_with_visa_sample() {
    let dx = format!("{DX_DECLS}sample_b r0.xyzw, r1.xyxx, t0.xyzw, s1, r2.x\n");
    let visa = "sample_b.RGBA (M1, 16) 0x0:uw S0 T6 V40.0 V41.0 V42.0 V43.0\n";
    let mut m = RegisterMap::default();
    m.entries.insert(r_dx(1, 0), reg(RegFile::Temp, 42, 0));
    m.entries.insert(r_dx(1, 1), reg(RegFile::Temp, 43, 0));
    m.entries.insert(r_dx(2, 0), reg(RegFile::Temp, 41, 0));
    for c in 0..4 {
        m.entries.insert(r_dx(0, c), reg(RegFile::Temp, 40, 64 * c));
    }
    let report = compare(
        Isa::Dxbc,
        dx.as_bytes(),
        Isa::Visa,
        visa.as_bytes(),
        &bindings(),
        &m,
        9,
    )
    .unwrap();
    assert!(report.agrees(), "{report}");
}

/// Translates `src` from `from` to `to` and asserts the semantic check agrees; the
/// translation, for further assertions.
fn translate_checked(src: &str, from: Isa, to: Isa) -> texlate::translate::Translation {
    use texlate::translate::{check, translate, Options};
    let o = Options::new(from, to);
    let t = translate(src.as_bytes(), &o).unwrap_or_else(|e| panic!("to {to:?}: {e}"));
    let r = check(src.as_bytes(), &t, &o, 1).unwrap();
    assert!(r.agrees(), "{from:?} -> {to:?}:\n{r}\n{src}");
    t
}

/// fxc loads with a constant mip level set by an ALU instruction the translation keeps as a
/// comment (`mov r0.zw, l(0,0,0,0)` before `ld`): the translation folds the constant (a
/// zero-LOD load), and the check's source, which runs only texture and ALU instructions the
/// translation translates, takes the constant the left-out instruction set just before the
/// texture instruction. Found by the `translate` fuzz target: the check disagreed on correct
/// translations of such shaders.
#[test]
fn check_sees_the_constants_a_translation_folded() {
    // A texture instruction writes the register first (`resinfo` into r0), then the `mov`
    // sets the constant: the source takes it just before the `ld`, not at its start.
    let resinfo = "ps_4_0\ndcl_resource_texture2d (sint,sint,sint,sint) t0\ndcl_input_ps linear v1.xy\ndcl_output o0.xyzw\ndcl_temps 1\nresinfo_uint r0.xyzw, l(0), t0.xyzw\nutof r0.xy, r0.xyxx\nmul r0.xy, r0.xyxx, v1.xyxx\nftoi r0.xy, r0.xyxx\nmov r0.zw, l(0,0,0,0)\nld r0.xyzw, r0.xyzw, t0.xyzw\nmov o0.x, r0.x\nret\n";
    // The `ld` writes elsewhere: r0.zw end holding the left-out `mov`'s zeros in the source
    // and `resinfo`'s results in the translation, which keeps the `mov` as a comment. Neither
    // program's check runs the `mov`, so those final values are not compared (fxc's
    // `ld o0.xyzw, r0.xyzw`, corpus blob `CLK`, found by the `translate` fuzz target).
    let into_output = resinfo.replace(
        "ld r0.xyzw, r0.xyzw, t0.xyzw\nmov o0.x, r0.x\n",
        "ld o0.xyzw, r0.xyzw, t0.xyzw\n",
    );
    assert_ne!(into_output, resinfo);
    for src in [resinfo, &into_output] {
        for to in [Isa::Nvidia, Isa::Visa] {
            translate_checked(src, Isa::Dxbc, to);
        }
    }
    for level in [0, 1] {
        let src = format!(
            "ps_4_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.x\ndcl_temps 1\nftoi r0.xy, v0.xyxx\nmov r0.zw, l(0,0,0,{level})\nld r0.xyzw, r0.xyzw, t0.xyzw\nmov o0.x, r0.x\nret\n"
        );
        for to in [Isa::Nvidia, Isa::Visa] {
            translate_checked(&src, Isa::Dxbc, to);
        }
    }
    // The preset is what the source reads: an `ld` without the `mov`, against one whose
    // level is set to 0, agrees in its LOD with level 0 preset and not with level 1.
    let ld = "ps_4_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\nld r0.xyzw, r0.xyzw, t0.xyzw\n";
    let zero = "ps_4_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\nmov r0.w, l(0)\nld r0.xyzw, r0.xyzw, t0.xyzw\n";
    let same = |r: Reg| Some(r);
    for (level, agrees) in [(0u32, true), (1, false)] {
        let preset = vec![vec![(r_dx(0, 3), level)]];
        let r = check::compare_preset(
            Isa::Dxbc,
            ld.as_bytes(),
            Isa::Dxbc,
            zero.as_bytes(),
            &bindings(),
            &same,
            1,
            &preset,
        )
        .unwrap();
        let lod_agrees = r.to_string().lines().all(|l| !l.contains("lod:"));
        assert_eq!(lod_agrees, agrees, "level {level}:\n{r}");
    }
}

/// A vISA move read back as an ALU instruction whose source is an alias of another
/// variable's storage: `map_regs` maps it through its root as it maps texture operands, so
/// the check's source (which reads aliases through their roots) and the translation start
/// from one value. Found by the `translate` fuzz target: the ALU operand kept the alias's own
/// name, got a register of its own, and the check disagreed.
#[test]
fn alu_moves_of_aliased_variables_map_through_their_root() {
    let src = ".version 4.1\n.kernel \"k\"\n.decl V0082 v_type=G type=d num_elts=16 align=hword\n.decl V0084 v_type=G type=d num_elts=16 align=hword alias=<V0082, 0>\n.decl V0110 v_type=G type=d num_elts=64 align=hword\n.kernel_attr Target=\"3d\"\n.kernel_attr SimdSize=16\n    mov (M1, 16) V0110(6,0)<1> V0084(0,0)<1;1,0>\n";
    for to in [Isa::Dxbc, Isa::Nvidia] {
        let t = translate_checked(src, Isa::Visa, to);
        // The alias and its root are one source register of the map.
        assert_eq!(t.regmap.entries.len(), 2, "{:?}", t.regmap.entries);
    }
}

/// A resource swizzle that names one texture channel for two destination components
/// (`sample r0.zw, …, t0.wwww`: both get alpha) is translated whole: the IR places each
/// channel once, and the translation copies it to the other component after the
/// instruction. The second component was left unwritten (found by the random-field oracle
/// tier, `translate_oracle random_field_values_translate_and_check`).
#[test]
fn replicated_resource_swizzles_write_every_component() {
    let decl = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\ndcl_input_ps linear v0.xy\ndcl_temps 2\n";
    for body in [
        "sample r0.zw, v0.xyxx, t0.wwww, s0\n",
        "sample r1.xyzw, v0.xyxx, t0.xxyx, s0\n",
        "ld r0.xzw, r1.zyxz, t0.wzwx\n",
    ] {
        let src = format!("{decl}{body}ret\n");
        for to in [Isa::Nvidia, Isa::Visa] {
            translate_checked(&src, Isa::Dxbc, to);
        }
    }
}

/// DX `sampleinfo` computes (count, 0, 0, 0) and its swizzle may read the zeros; vISA's
/// `sampleinfo` returns other data in G, B and A (the sample position palette index in A)
/// and NVIDIA's TXQ the count alone, so the translation writes the zeros with moves (it
/// wrote vISA's channels into them, and NVIDIA refused). Found by the random-field tier.
#[test]
fn sample_count_channels_past_the_count_are_zeros() {
    let decl = "ps_5_0\ndcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_temps 2\n";
    for body in [
        "sampleinfo_uint r1.xzw, t0.zxxy\n",
        "sampleinfo r1.y, t0.w\n",
        "sampleinfo r1.xyzw, t0.xyzw\n",
    ] {
        let src = format!("{decl}{body}ret\n");
        for to in [Isa::Nvidia, Isa::Visa] {
            translate_checked(&src, Isa::Dxbc, to);
        }
    }
}

/// A cube sample whose direction is an earlier sample's result: ptxas's normalisation (each
/// coordinate times the reciprocal of the largest magnitude, which the DX → NVIDIA
/// translation writes as FMNMX/MUFU.RCP/FMUL) names the same direction, compared at one
/// point with the results replaced alike on both sides. Before, only concrete directions were
/// compared so: symbolic ones disagreed (corpus blob, found by the `translate` fuzz target).
/// Swapped coordinates still disagree.
#[test]
fn cube_directions_from_earlier_results_agree_after_normalisation() {
    let src = |coords: &str| {
        format!("ps_4_0\ndcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_resource_texturecube (float,float,float,float) t1\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ndcl_temps 1\nsample r0.xyzw, v0.xyxx, t0.xyzw, s0\nsample o0.xyzw, r0.{coords}, t1.xyzw, s0\nret\n")
    };
    let t = translate_checked(&src("xyzx"), Isa::Dxbc, Isa::Nvidia);
    let text = String::from_utf8(t.output).unwrap();
    assert!(text.contains("MUFU.RCP"), "{text}");
    let r = compare(
        Isa::Dxbc,
        src("xyzx").as_bytes(),
        Isa::Dxbc,
        src("yxzy").as_bytes(),
        &Bindings::default(),
        &RegisterMap::default(),
        1,
    )
    .unwrap();
    assert!(!r.agrees(), "{r}");
}

/// NVIDIA TXD reads its offsets above the layer, `(offsets << 16) | layer` (research/nvidia.md
/// §4: ptxas packs {3, -2} as 0xe30000): a gradient sample with offsets into TXD packs them at
/// bit 16, and reading TXD back unpacks them there; the quad emulation of 3D gradients
/// samples with TEX.AOFFI.NDV, whose offsets sit at bit 0. The translations packed TXD's at
/// bit 0 (the hardware saw no offsets). Found by the random-field tier.
#[test]
fn gradient_offsets_are_packed_where_each_nvidia_sample_reads_them() {
    let sd = "ps_5_0\ndcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_input_ps linear v0.xy\ndcl_temps 3\nsample_d_aoffimmi(1,-2,0) r0.xyzw, v0.xyxx, t0.xyzw, s0, r1.xyxx, r2.xyxx\nret\n";
    let t = translate_checked(sd, Isa::Dxbc, Isa::Nvidia);
    let text = String::from_utf8(t.output).unwrap();
    assert!(text.contains("MOV32I R18, 0xe10000"), "{text}");
    // Back to DX: the offsets unpacked from bit 16.
    let back = texlate::translate::translate(
        text.as_bytes(),
        &texlate::translate::Options::new(Isa::Nvidia, Isa::Dxbc),
    )
    .unwrap();
    let dx = String::from_utf8(back.output).unwrap();
    assert!(dx.contains("sample_d_aoffimmi_indexable(1,-2,0)"), "{dx}");
    // 3D: the quad emulation's TEX.AOFFI.NDV.
    let sd3 = "ps_5_0\ndcl_sampler s0, mode_default\ndcl_resource_texture3d (float,float,float,float) t0\ndcl_input_ps linear v0.xyz\ndcl_temps 3\nsample_d_aoffimmi(1,-2,3) r0.xyzw, v0.xyzx, t0.xyzw, s0, r1.xyzx, r2.xyzx\nret\n";
    let t = translate_checked(sd3, Isa::Dxbc, Isa::Nvidia);
    let text = String::from_utf8(t.output).unwrap();
    assert!(text.contains("TEX.AOFFI.NDV"), "{text}");
    // A 2D array would need the layer and the offsets in one register: refused.
    let sda = sd
        .replace("texture2d ", "texture2darray ")
        .replace("v0.xy\n", "v0.xyz\n")
        .replace("v0.xyxx, t0", "v0.xyzx, t0");
    let e = texlate::translate::translate(
        sda.as_bytes(),
        &texlate::translate::Options::new(Isa::Dxbc, Isa::Nvidia),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("(offsets << 16) | layer"), "{e}");
}

/// `ld2dms[_aoffimmi(u,v)]` (ld2dms (sm4.1 - asm)) takes immediate offsets as `ld` does: a
/// multisample fetch with offsets translates into DX (`TLD.LZ.AOFFI.MS`, vISA `load_2dms_w`
/// with aoffimmi) instead of being refused; Wine and vkd3d accept it (random-field tier).
#[test]
fn multisample_fetches_keep_their_offsets_into_dx() {
    let src = "ps_5_0\ndcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_temps 2\nldms_aoffimmi(1,-2,0) r0.xyzw, r1.xyzw, t0.xyzw, r1.w\nret\n";
    let t = translate_checked(src, Isa::Dxbc, Isa::Nvidia);
    let nv = String::from_utf8(t.output).unwrap();
    assert!(nv.contains("TLD.LZ.AOFFI.MS"), "{nv}");
    let back = translate_checked(&nv, Isa::Nvidia, Isa::Dxbc);
    let dx = String::from_utf8(back.output).unwrap();
    assert!(dx.contains("ldms_aoffimmi_indexable(1,-2,0)"), "{dx}");
}

/// NVIDIA reads an array layer as the low 16 bits of its register (`Ra+0 array[15:0]`,
/// seeds/nvidia-TEX.txt): a translation to a float layer converts that half only
/// (`U16ToF32`), not the whole register, whose upper half would clamp to another layer.
/// Found by the `translate` fuzz target with a layer that an earlier sample wrote (the
/// check's random layers are small, so only a symbolic layer showed it).
#[test]
fn nvidia_layers_convert_their_low_half_only() {
    let src = "TEX R4, R0, 0x6e, 2D, 0xf ;\nTEX R8, R4, 0x70, ARRAY_2D, 0xf ;\n";
    for to in [Isa::Dxbc, Isa::Visa] {
        translate_checked(src, Isa::Nvidia, to);
    }
}

/// vISA operand types come from declarations: in a kernel without them, `mov V52, 0x2:d` may
/// be a copy or a conversion, and it is not read back as an ALU instruction (the translation
/// wrote `I2F`, the check's model copied the bits). Found by the `translate` fuzz target.
#[test]
fn visa_moves_without_declarations_are_not_read_back() {
    let src = ".version 4.1\n.kernel \"k\"\n.kernel_attr Target=\"3d\"\n.kernel_attr SimdSize=16\n    mov (M1, 16) V0052(0,0)<1> 0x2:d\n";
    for to in [Isa::Nvidia, Isa::Dxbc] {
        let t = translate_checked(src, Isa::Visa, to);
        let out = String::from_utf8(t.output).unwrap();
        assert!(
            out.contains("// ") && out.contains("mov (M1, 16) V0052"),
            "{out}"
        );
    }
}

/// A user variable declared without `type=` (the translate fuzz target's finding: a `.decl`
/// line cut short) leaves a `mov` into it a copy or a conversion: it is not read back either,
/// while the kernel's other declarations are read (the translation wrote I2F where the
/// check's model copied the bits).
#[test]
fn visa_moves_into_untyped_variables_are_not_read_back() {
    let src = ".version 4.1\n.kernel \"k\"\n.decl V0055 v_type=G num_elts=16\n\
               .kernel_attr Target=\"3d\"\n.kernel_attr SimdSize=16\n\
               \x20   mov (M1, 16) V0055(0,0)<1> 0x3:d\n";
    for to in [Isa::Nvidia, Isa::Dxbc] {
        let t = translate_checked(src, Isa::Visa, to);
        let out = String::from_utf8(t.output).unwrap();
        assert!(
            out.contains("// ") && out.contains("mov (M1, 16) V0055"),
            "{out}"
        );
    }
}
