//! `--grad approx` (`approx_grad_lod`, issue 8) and the refusals around gradients and
//! compares:
//!
//! - snapshots of every approximation (DX → NVIDIA, vISA → NVIDIA: 3D, cube, cube array,
//!   offsets, gradients with compare) with the Report's warnings, and of every refusal (DX
//!   target: gradients with compare under each policy, compare with a bias or a LOD that is not
//!   the constant 0; `--grad error` on NVIDIA);
//! - the semantic check: every approximation agrees up to the LOD (never exactly), the LOD
//!   follows the isotropic rule, and a wrong coordinate, layer, compare reference, gradient,
//!   size channel or face selection disagrees (the emitted listing or the source mutated);
//! - the DX and vISA backends refuse the LOD arithmetic's ALU ops with typed errors;
//! - the command line: `--grad approx` and `--grad error`, the warnings in `--json`.

use std::fmt::Write as _;
use std::process::Command;

mod support;

use support::snap;

use texlate::ir::Isa;
use texlate::isa::codec;
use texlate::translate::{self, GradPolicy, Options, Translation};

const DX_HEAD: &str = "ps_5_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture3d (float,float,float,float) t1
dcl_resource_texturecube (float,float,float,float) t2
dcl_resource_texturecubearray (float,float,float,float) t3
dcl_resource_texture2darray (float,float,float,float) t4
dcl_sampler s0, mode_default
dcl_temps 4
";

const VISA_BINDINGS: &str = r#"
[[binding]]
dim = "2d"
visa = { texture = "T6" }
[[binding]]
dim = "cube"
visa = { texture = "T8" }
[[binding]]
dim = "3d"
visa = { texture = "T9" }
[[binding]]
dim = "cube_array"
visa = { texture = "T10" }
[[binding]]
dim = "2d_array"
visa = { texture = "T11" }
"#;

fn dx(line: &str) -> String {
    format!("{DX_HEAD}{line}\nret\n")
}

/// The gradient samples NVIDIA approximates under `--grad approx`, per source ISA.
fn approximated(from: Isa) -> Vec<String> {
    match from {
        Isa::Dxbc => [
            "sample_d r0.xyzw, r1.xyzx, t1.xyzw, s0, r2.xyzx, r3.xyzx",
            "sample_d r0.xyzw, r1.xyzx, t2.xyzw, s0, r2.xyzx, r3.xyzx",
            "sample_d r0.xy, r1.xyzw, t3.xyzw, s0, r2.xyzx, r3.xyzx",
            "sample_d_aoffimmi(1,-2,3) r0.xyzw, r1.xyzx, t1.xyzw, s0, r2.xyzx, r3.xyzx",
        ]
        .iter()
        .map(|l| dx(l))
        .collect(),
        // dst, [ref,] then per coordinate: value, d/dx, d/dy[, array index].
        _ => [
            "sample_d.RGBA (M1, 16)  0x0:uw S0 T9 V0045.0 V0040.0 V0043.0 V0047.0 V0044.0 V0048.0 V0049.0 V0050.0 V0051.0 V0052.0",
            "sample_d.RGBA (M1, 16)  0x0:uw S0 T8 V0045.0 V0040.0 V0043.0 V0047.0 V0044.0 V0048.0 V0049.0 V0050.0 V0051.0 V0052.0",
            "sample_d_c.RGBA (M1, 16)  0x0:uw S0 T6 V0045.0 V0040.0 V0043.0 V0047.0 V0044.0 V0048.0 V0049.0 V0050.0",
            "sample_d_c.R (M1, 16)  0x0:uw S0 T8 V0045.0 V0040.0 V0043.0 V0047.0 V0044.0 V0048.0 V0049.0 V0050.0 V0051.0 V0052.0 V0053.0",
            "sample_d_c.R (M1, 16)  0x0:uw S0 T11 V0045.0 V0040.0 V0043.0 V0047.0 V0044.0 V0048.0 V0049.0 V0050.0 V0057.0",
            "sample_d_c.R (M1, 16)  0x0:uw S0 T10 V0045.0 V0040.0 V0043.0 V0047.0 V0044.0 V0048.0 V0049.0 V0050.0 V0051.0 V0052.0 V0053.0 V0058.0",
        ]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect(),
    }
}

fn options(from: Isa, to: Isa, grad: GradPolicy) -> Options {
    let mut o = Options::new(from, to);
    o.grad = grad;
    if from == Isa::Visa {
        o.bindings = Some(("bindings".into(), VISA_BINDINGS.into()));
    }
    o
}

fn translate_to(
    from: Isa,
    to: Isa,
    src: &str,
    grad: GradPolicy,
) -> Result<Translation, texlate::Error> {
    translate::translate(src.as_bytes(), &options(from, to, grad))
}

fn instruction_line(src: &str) -> &str {
    src.lines()
        .rev()
        .find(|l| l.starts_with("sample") || l.starts_with("TEX"))
        .unwrap_or("")
}

fn approximation_snapshot(from: Isa) -> String {
    let mut out = String::new();
    for src in approximated(from) {
        let _ = writeln!(out, "==== {}", instruction_line(&src));
        let t = translate_to(from, Isa::Nvidia, &src, GradPolicy::Approx).expect("approximated");
        let _ = writeln!(out, "{}", String::from_utf8(t.output).unwrap().trim_end());
        for w in &t.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        out.push('\n');
    }
    out
}

#[test]
fn dxbc_to_nvidia_approximation() {
    snap(
        "grad_approx_dxbc_to_nvidia",
        approximation_snapshot(Isa::Dxbc),
    );
}

#[test]
fn visa_to_nvidia_approximation() {
    snap(
        "grad_approx_visa_to_nvidia",
        approximation_snapshot(Isa::Visa),
    );
}

/// Every approximation: a size query and an explicit-LOD sample, no quad operation, one
/// warning naming the instruction; the check agrees up to the LOD (never exactly), from
/// several random states, and the LOD is the isotropic rule's.
#[test]
fn every_approximation_agrees_up_to_the_lod() {
    for from in [Isa::Dxbc, Isa::Visa] {
        for src in approximated(from) {
            let t = translate_to(from, Isa::Nvidia, &src, GradPolicy::Approx).unwrap();
            let text = String::from_utf8(t.output.clone()).unwrap();
            assert!(text.contains("TXQ"), "{text}");
            assert!(text.contains("MUFU.LG2"), "{text}");
            assert!(text.contains("TEX.LL"), "{text}");
            assert!(!text.contains("SAM"), "{text}");
            let approx: Vec<&String> = t
                .warnings
                .iter()
                .filter(|w| w.contains("approximated"))
                .collect();
            assert_eq!(approx.len(), 1, "{:?}", t.warnings);
            assert!(t
                .report()
                .to_json()
                .contains("approximated: the gradients replaced"));
            let o = options(from, Isa::Nvidia, GradPolicy::Approx);
            for seed in 1..=8 {
                let c = translate::check(src.as_bytes(), &t, &o, seed).unwrap();
                assert!(c.agrees_up_to_lod(), "{src}\n{c}");
                assert!(!c.agrees(), "an approximation never agrees exactly: {c}");
                assert_eq!(c.approximated(), 1);
                let l = c.pairs[0].lod.as_ref().unwrap();
                assert!(
                    l.agrees && (l.source - l.target).abs() <= 1.0 / 256.0,
                    "{c}"
                );
                assert!(c.to_string().contains("agree up to the LOD"), "{c}");
            }
        }
    }
}

/// Opt-in oracle: nvdisasm prints every approximation's word stream exactly as texlate's
/// listing does (address, text, word), control words and all.
#[test]
#[ignore = "needs the NVIDIA oracle (shared/oracles/nvidia/setup.sh --slim)"]
fn approximation_oracle() {
    let Some(env) = support::nvidia_oracle() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("texlate-approx-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = codec(Isa::Nvidia);
    let (mut programs, mut lines) = (0, 0);
    for from in [Isa::Dxbc, Isa::Visa] {
        for (k, src) in approximated(from).into_iter().enumerate() {
            let t = translate_to(from, Isa::Nvidia, &src, GradPolicy::Approx).unwrap();
            let bin = dir.join(format!("{}_{k}.bin", from.name()));
            std::fs::write(&bin, c.encode_binary(&t.program).unwrap()).unwrap();
            let theirs = support::nvdisasm_sm50(&env, &bin)
                .unwrap_or_else(|e| panic!("nvdisasm refused {src}: {e}"));
            let ours = support::nvidia_instruction_lines(&String::from_utf8(t.output).unwrap());
            assert_eq!(ours, support::nvidia_instruction_lines(&theirs), "{src}");
            programs += 1;
            lines += ours.len();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("nvdisasm prints {programs} approximations as texlate does ({lines} instructions)");
}

/// The check on `listing` (the translation's text, perhaps mutated) against `src`, seeds 1..=6:
/// whether every seed agrees up to the LOD.
fn agrees_up_to_lod(from: Isa, src: &str, t: &Translation, listing: &str) -> bool {
    (1..=6u64).all(|seed| {
        texlate::check::compare(
            from,
            src.as_bytes(),
            Isa::Nvidia,
            listing.as_bytes(),
            &t.bindings,
            &t.regmap,
            seed,
        )
        .expect("the models read it")
        .agrees_up_to_lod()
    })
}

/// `text` with the first line containing `needle` rewritten by `f`.
fn edit_first(text: &str, needle: &str, f: impl Fn(&str) -> String) -> String {
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.contains(needle) {
                done = true;
                f(l)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Register `Rn` of the first operand list after `mnemonic` in `line`, at position `k`.
fn operand(line: &str, mnemonic: &str, k: usize) -> String {
    let start = line.find(mnemonic).unwrap() + mnemonic.len();
    let ops = &line[start..line[start..].find(';').unwrap() + start];
    ops.split(',').nth(k).unwrap().trim().to_string()
}

/// A register of the listing the given `line` neither reads nor writes.
fn other_reg(line: &str, avoid: &[&str]) -> String {
    (0..40)
        .map(|i| format!("R{i}"))
        .find(|r| !avoid.contains(&r.as_str()) && !line.contains(&format!("{r},")))
        .unwrap()
}

#[test]
fn the_check_catches_a_wrong_approximation() {
    let mut lod_mutations = 0;
    for (from, src) in [
        (Isa::Dxbc, approximated(Isa::Dxbc)[0].clone()),
        (Isa::Dxbc, approximated(Isa::Dxbc)[1].clone()),
        (Isa::Dxbc, approximated(Isa::Dxbc)[2].clone()),
        (Isa::Visa, approximated(Isa::Visa)[3].clone()),
    ] {
        let t = translate_to(from, Isa::Nvidia, &src, GradPolicy::Approx).unwrap();
        let text = String::from_utf8(t.output.clone()).unwrap();
        assert!(agrees_up_to_lod(from, &src, &t, &text), "{src}");
        // The size query's width read for the height (3D: sizes 256, 64, 16 differ).
        let i2f = text.lines().find(|l| l.contains("I2F.F32.U32")).unwrap();
        let width = operand(i2f, "I2F.F32.U32", 1);
        let n = width[1..].parse::<u32>().unwrap();
        if text.contains(", 3D,") {
            let wrong = edit_first(&text, "I2F.F32.U32", |l| {
                l.replacen(&format!("{width} ;"), &format!("R{} ;", n + 1), 1)
            });
            assert!(
                !agrees_up_to_lod(from, &src, &t, &wrong),
                "size channel: {src}"
            );
        }
        // Cubes: the face chosen by |y| where the rule compares |z|.
        if text.contains("FSET.BF.GE.AND") {
            let fset = text.lines().find(|l| l.contains("FSET")).unwrap();
            let z = operand(fset, "FSET.BF.GE.AND", 1);
            let fset2 = text.lines().filter(|l| l.contains("FSET")).nth(1).unwrap();
            let y = operand(fset2, "FSET.BF.GE.AND", 1);
            let wrong = edit_first(&text, "FSET.BF.GE.AND", |l| l.replacen(&z, &y, 1));
            assert!(!agrees_up_to_lod(from, &src, &t, &wrong), "face: {src}");
        }
        // The LOD itself: log2 of the maximum not halved (the FMUL by 0.5 skipped: the
        // sample reads the MUFU.LG2 result).
        let lg2 = text.lines().find(|l| l.contains("MUFU.LG2")).unwrap();
        let log = operand(lg2, "MUFU.LG2", 0);
        let tex = text.lines().find(|l| l.contains("TEX.LL")).unwrap();
        let lod = operand(tex, ".P", 2);
        let wrong = edit_first(&text, "TEX.LL", |l| {
            l.replacen(&format!(", {lod},"), &format!(", {log},"), 1)
        });
        if lod != log {
            lod_mutations += 1;
            assert!(!agrees_up_to_lod(from, &src, &t, &wrong), "LOD: {src}");
        }
        // The coordinates read from another register vector.
        let ra = operand(tex, ".P", 1);
        let other = other_reg(tex, &[&ra]);
        let wrong = edit_first(&text, "TEX.LL", |l| {
            l.replacen(&format!(", {ra},"), &format!(", {other},"), 1)
        });
        assert!(
            !agrees_up_to_lod(from, &src, &t, &wrong),
            "coordinates: {src}"
        );
    }
    assert!(
        lod_mutations >= 3,
        "the LOD mutation ran {lod_mutations} times"
    );
}

/// What is changed, the source text it changes and what it becomes.
type Mutation = (&'static str, &'static str, &'static str);

/// The translation checked against a source that differs in one operand: a wrong
/// coordinate, array layer, compare reference or gradient in the emitted sequence reads as a
/// disagreement (the LOD fields aside, everything is compared; the gradients through the LOD).
#[test]
fn the_check_tells_each_operand_apart() {
    let cases: Vec<(Isa, String, Vec<Mutation>)> = vec![
        (
            Isa::Dxbc,
            approximated(Isa::Dxbc)[0].clone(),
            vec![
                ("coordinate", "r1.xyzx, t1", "r1.xzyx, t1"),
                ("gradient", "s0, r2.xyzx", "s0, r2.xyxx"),
            ],
        ),
        (
            Isa::Dxbc,
            approximated(Isa::Dxbc)[2].clone(),
            vec![
                ("layer", "r1.xyzw, t3", "r1.xyzx, t3"),
                ("cube gradient", "r3.xyzx\nret", "r3.xzyx\nret"),
            ],
        ),
        (
            Isa::Visa,
            approximated(Isa::Visa)[4].clone(),
            vec![
                ("reference", "V0045.0 V0040.0", "V0045.0 V0041.0"),
                ("layer", "V0057.0", "V0058.0"),
            ],
        ),
    ];
    for (from, src, mutations) in cases {
        let t = translate_to(from, Isa::Nvidia, &src, GradPolicy::Approx).unwrap();
        let text = String::from_utf8(t.output.clone()).unwrap();
        assert!(agrees_up_to_lod(from, &src, &t, &text));
        for (what, a, b) in mutations {
            let other = src.replacen(a, b, 1);
            assert_ne!(other, src, "{what}");
            assert!(
                !agrees_up_to_lod(from, &other, &t, &text),
                "{what} not told apart: {other}"
            );
        }
    }
}

/// The refusals: DX has no compare with gradients under any policy (and says why `--grad
/// approx` cannot help), no compare with a bias or a LOD other than the constant 0 (which
/// becomes sample_c_lz); `--grad error` refuses NVIDIA's emulations and approximations alike.
#[test]
fn refusals() {
    let mut out = String::new();
    let visa = approximated(Isa::Visa);
    for grad in [GradPolicy::Exact, GradPolicy::Approx, GradPolicy::Error] {
        for src in [&visa[2], &visa[3]] {
            let e = translate_to(Isa::Visa, Isa::Dxbc, src, grad)
                .expect_err("DX has no compare with gradients");
            let text = e.to_string();
            assert!(text.contains("SampleCmpGrad"), "{text}");
            assert!(text.contains("--grad approx cannot help"), "{text}");
            let _ = writeln!(
                out,
                "==== vISA -> DX, --grad {}: {}\nerror: {text}\n",
                grad.name(),
                instruction_line(src)
            );
        }
    }
    for from in [Isa::Dxbc, Isa::Visa] {
        for src in approximated(from) {
            let e = translate_to(from, Isa::Nvidia, &src, GradPolicy::Error)
                .expect_err("--grad error takes native forms only");
            let text = e.to_string();
            assert!(text.contains("--grad error"), "{text}");
            let _ = writeln!(
                out,
                "==== {} -> NVIDIA, --grad error: {}\nerror: {text}\n",
                from.name(),
                instruction_line(&src)
            );
        }
    }
    // Compare with a bias or an explicit LOD into DX.
    let compare_lod = [
        (Isa::Nvidia, "TEX.LB.DC R0, R4, R6, 0x6e, 2D, 0x1 ;\n"),
        (Isa::Nvidia, "TEX.LL.DC R0, R4, R6, 0x6e, 2D, 0x1 ;\n"),
        (
            Isa::Nvidia,
            "MOV32I R6, 0x3f800000 ;\nTEX.LL.DC R0, R4, R6, 0x6e, 2D, 0x1 ;\n",
        ),
        (
            Isa::Visa,
            "sample_b_c.R (M1, 16)  0x0:uw S0 T6 V0040.0 V0045.0 V0046.0 V0043.0 V0044.0\n",
        ),
        (
            Isa::Visa,
            "sample_l_c.R (M1, 16)  0x0:uw S0 T6 V0040.0 V0045.0 V0046.0 V0043.0 V0044.0\n",
        ),
    ];
    for (from, src) in compare_lod {
        for grad in [GradPolicy::Exact, GradPolicy::Approx] {
            let e = translate_to(from, Isa::Dxbc, src, grad).expect_err("no SM5 form");
            let text = e.to_string();
            assert!(
                text.contains("SampleCmpBias") || text.contains("SampleCmpLevel"),
                "{text}"
            );
            if grad == GradPolicy::Exact {
                let _ = writeln!(
                    out,
                    "==== {} -> DX: {}\nerror: {text}\n",
                    from.name(),
                    src.trim_end().replace('\n', " / ")
                );
            }
        }
    }
    snap("grad_approx_refusals", out);
}

/// A compare at the constant LOD 0 (NVIDIA `RZ`, `MOV32I 0x0`, `-0.0`) is DX's sample_c_lz,
/// and the check agrees with it.
#[test]
fn compare_at_constant_lod_zero_is_sample_c_lz() {
    // Listing lines with their encodings (ptxas's form: the moves are read back as ALU
    // instructions, which `Codec::constants` steps through).
    let tex = "        /*0010*/                   TEX.LL.DC R0, R4, R6, 0x6e, 2D, 0x1 ;  /* 0xc1bc06e000670400 */\n";
    let line = |text: &str, word: u64| {
        format!("        /*0008*/                   {text} ;  /* {word:#018x} */\n{tex}")
    };
    for src in [
        "TEX.LL.DC R0, R4, RZ, 0x6e, 2D, 0x1 ;\n".to_string(),
        line("MOV32I R6, 0x0", 0x0100_0000_0007_f006),
        line("MOV32I R6, 0x80000000", 0x0108_0000_0007_f006),
        line("MOV R6, RZ", 0x5c98_0780_0ff7_0006),
    ] {
        let o = options(Isa::Nvidia, Isa::Dxbc, GradPolicy::Exact);
        let t = translate::translate(src.as_bytes(), &o).unwrap_or_else(|e| panic!("{src}: {e}"));
        let text = String::from_utf8(t.output.clone()).unwrap();
        assert!(text.contains("sample_c_lz"), "{text}");
        let c = translate::check(src.as_bytes(), &t, &o, 3).unwrap();
        assert!(c.agrees(), "{c}");
    }
    // Any other constant is a LOD SM5 cannot compare at.
    let one = line("MOV32I R6, 0x3f800000", 0x0103_f800_0007_f006);
    let e = translate::translate(
        one.as_bytes(),
        &options(Isa::Nvidia, Isa::Dxbc, GradPolicy::Exact),
    )
    .expect_err("LOD 1.0");
    assert!(e.to_string().contains("SampleCmpLevel"), "{e}");
}

/// vISA: a LOD variable the kernel set to 0.0 (`mov (M1, 16) V(0,0)<1> 0x0:f`, as IGC passes a
/// constant LOD) folds, so sample_l_c at LOD 0 is DX's sample_c_lz; 1.0, a narrower move or
/// a later write to the variable leave a LOD register, which DX cannot compare at.
#[test]
fn visa_compare_at_constant_lod_zero_is_sample_c_lz() {
    let kernel = |mov: &str, between: &str| {
        let mut k = String::new();
        for v in [40, 43, 44, 45, 46] {
            k.push_str(&format!(
                ".decl V{v:04} v_type=G type=f num_elts=16 align=hword\n"
            ));
        }
        k.push_str(".decl T6 v_type=T num_elts=1\n.decl S0 v_type=S num_elts=1\n");
        k.push_str(mov);
        k.push_str(between);
        k.push_str("sample_l_c.R (M1, 16)  0x0:uw S0 T6 V0040.0 V0045.0 V0046.0 V0043.0 V0044.0\n");
        k
    };
    let o = options(Isa::Visa, Isa::Dxbc, GradPolicy::Exact);
    for zero in ["0x0:f", "0x80000000:f"] {
        let src = kernel(&format!("mov (M1, 16) V0046(0,0)<1> {zero}\n"), "");
        let t = translate::translate(src.as_bytes(), &o).unwrap_or_else(|e| panic!("{src}: {e}"));
        let text = String::from_utf8(t.output.clone()).unwrap();
        assert!(text.contains("sample_c_lz"), "{text}");
        for seed in 1..=3 {
            let c = translate::check(src.as_bytes(), &t, &o, seed).unwrap();
            assert!(c.agrees(), "{c}");
        }
    }
    for (mov, between) in [
        ("mov (M1, 16) V0046(0,0)<1> 0x3f800000:f\n", ""),
        ("mov (M1, 8) V0046(0,0)<1> 0x0:f\n", ""),
        (
            "mov (M1, 16) V0046(0,0)<1> 0x0:f\n",
            "mov (M1, 16) V0046(0,0)<1> V0043(0,0)<1;1,0>\n",
        ),
    ] {
        let src = kernel(mov, between);
        let e = translate::translate(src.as_bytes(), &o).expect_err("not LOD 0");
        assert!(e.to_string().contains("SampleCmpLevel"), "{src}: {e}");
    }
}

/// An approximated NVIDIA kernel translated onwards to `to`.
fn onwards(
    from: Isa,
    src: &str,
    to: Isa,
) -> (String, Result<Translation, texlate::Error>, Options) {
    let t = translate_to(from, Isa::Nvidia, src, GradPolicy::Approx).unwrap();
    let listing = String::from_utf8(t.output.clone()).unwrap();
    let mut o = Options::new(Isa::Nvidia, to);
    o.bindings = Some(("bindings".into(), t.bindings.to_toml()));
    let r = translate::translate(listing.as_bytes(), &o);
    (listing, r, o)
}

/// An approximated NVIDIA kernel translated onwards: its size query, LOD arithmetic and
/// explicit-LOD sample are instructions of the target's own (DX `mad`, `log`, `ge` + `and`;
/// vISA `mad`, `log`, `cmp.ge` + `and`), and the check agrees exactly (the NVIDIA source
/// computes the LOD itself). A compare at that LOD has no SM5 form and is refused by DX;
/// vISA has `sample_l_c`.
#[test]
fn an_approximation_translates_onwards() {
    for (to, ops) in [
        (Isa::Dxbc, ["resinfo", "mad ", "log ", "sample_l"]),
        (Isa::Visa, ["resinfo", "mad ", "log ", "sample_l"]),
    ] {
        let (mut translated, mut refused) = (0, 0);
        for from in [Isa::Dxbc, Isa::Visa] {
            for src in approximated(from) {
                let (listing, r, o) = onwards(from, &src, to);
                match r {
                    Ok(t) => {
                        let text = String::from_utf8(t.output.clone()).unwrap();
                        for op in ops {
                            assert!(text.contains(op), "{op}: {text}");
                        }
                        if listing.contains("FSET") {
                            let cmp = if to == Isa::Dxbc { "ge " } else { "cmp.ge " };
                            assert!(text.contains(cmp), "{text}");
                        }
                        // NVIDIA's `TXQ …, RZ` becomes vISA `resinfo` with its LOD moved
                        // into a variable holding 0 (not `%null`, which the sampler would
                        // read as undefined): the check reads it as level 0 and agrees.
                        for seed in 1..=4 {
                            let c = translate::check(listing.as_bytes(), &t, &o, seed)
                                .unwrap_or_else(|e| panic!("{src}: {e}"));
                            assert!(c.agrees(), "{src}\n{c}");
                        }
                        let resinfo = text.lines().filter(|l| l.starts_with("resinfo"));
                        assert!(resinfo.clone().count() > 0 || to == Isa::Dxbc, "{text}");
                        assert!(resinfo.clone().all(|l| !l.contains("%null")), "{text}");
                        translated += 1;
                    }
                    Err(e) => {
                        assert_eq!(to, Isa::Dxbc, "{src}: {e}");
                        assert!(listing.contains("TEX.LL.DC"), "{src}: {e}");
                        assert!(e.to_string().contains("SampleCmpLevel"), "{e}");
                        refused += 1;
                    }
                }
            }
        }
        let want = if to == Isa::Dxbc { (6, 4) } else { (10, 0) };
        assert_eq!((translated, refused), want, "{to:?}");
    }
}

/// Opt-in: GenX_IR assembles every approximated NVIDIA kernel translated onwards to vISA
/// (`mad`, `log`, `cmp.ge`, `and` around `resinfo` and `sample_l[_c]`) on SKL and TGLLP.
#[test]
#[ignore = "needs GenX_IR (shared/oracles/intel/setup.sh)"]
fn onwards_to_visa_oracle() {
    let Some(assemble) = support::visa_assemble() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("texlate-approx-visa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut accepted = 0;
    for from in [Isa::Dxbc, Isa::Visa] {
        for (k, src) in approximated(from).into_iter().enumerate() {
            let (_, r, _) = onwards(from, &src, Isa::Visa);
            let t = r.unwrap();
            let file = dir.join(format!("{}_{k}.visaasm", from.name()));
            std::fs::write(&file, &t.output).unwrap();
            for platform in ["SKL", "TGLLP"] {
                let run = Command::new(&assemble)
                    .arg(&file)
                    .arg(platform)
                    .output()
                    .unwrap();
                assert!(
                    run.status.success(),
                    "{platform}: {src}\n{}",
                    String::from_utf8_lossy(&run.stdout)
                );
                accepted += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("GenX_IR accepts {accepted} approximations translated onwards to vISA (SKL, TGLLP)");
}

/// Opt-in: Wine's D3DDisassemble and vkd3d-compiler + spirv-val accept every approximated
/// NVIDIA kernel translated onwards to DX (`mad`, `log`, `ge` + `and` around `resinfo` and
/// `sample_l`), and Wine's listing reads back to texlate's instructions.
#[test]
#[ignore = "needs the DXBC oracle (shared/oracles/dxbc/setup.sh)"]
fn onwards_to_dx_oracle() {
    let dir = std::env::temp_dir().join(format!("texlate-approx-dx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    let mut texts = Vec::new();
    for from in [Isa::Dxbc, Isa::Visa] {
        for (k, src) in approximated(from).into_iter().enumerate() {
            let t = translate_to(from, Isa::Nvidia, &src, GradPolicy::Approx).unwrap();
            let mut o = Options::new(Isa::Nvidia, Isa::Dxbc);
            o.bindings = Some(("bindings".into(), t.bindings.to_toml()));
            o.emit = texlate::Form::Binary;
            let Ok(dx) = translate::translate(&t.output, &o) else {
                continue;
            };
            let _ = src;
            let f = dir.join(format!("{}_{k}.dxbc", from.name()));
            std::fs::write(&f, &dx.output).unwrap();
            files.push(f);
            texts.push(texlate::encode(Isa::Dxbc, &dx.program, texlate::Form::Text).unwrap());
        }
    }
    let out = dir.join("wine");
    let Some(wine) =
        support::run_dxbc_oracle("dxbc-disasm", &["-o", out.to_str().unwrap()], &files)
    else {
        return;
    };
    let Some(vkd3d) = support::run_dxbc_oracle("dxbc-to-spirv", &[], &files) else {
        return;
    };
    for (report, ok) in [(&wine, "OK"), (&vkd3d, "ACCEPTED")] {
        let verdicts: Vec<&str> = report
            .lines()
            .filter_map(|l| l.split('\t').nth(1))
            .collect();
        assert_eq!(verdicts.len(), files.len(), "{report}");
        assert!(verdicts.iter().all(|v| *v == ok), "{report}");
    }
    let mut lines = 0;
    for (f, ours) in files.iter().zip(&texts) {
        let name = f.file_name().unwrap().to_string_lossy();
        let theirs = std::fs::read_to_string(out.join(format!("{name}.txt"))).unwrap();
        let ours = support::dx_instruction_lines(std::str::from_utf8(ours).unwrap());
        let theirs = support::dx_instruction_lines(&theirs);
        assert_eq!(ours.len(), theirs.len(), "{name}");
        for (o, w) in ours.iter().zip(&theirs) {
            let back = support::dx_reprinted(w).unwrap();
            assert_eq!(
                support::dx_fold(&back),
                support::dx_fold(o),
                "{name}: Wine `{w}`"
            );
        }
        lines += ours.len();
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "Wine and vkd3d accept {} approximations translated onwards to DX ({lines} instructions read back)",
        files.len()
    );
}

// ---- Command line ----

fn texlate(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn cli_grad_approx_and_error() {
    let src = format!(
        "{DX_HEAD}sample_d r0.xyzw, r1.xyzx, t2.xyzw, s0, r2.xyzx, r3.xyzx\n\
         sample_d r1.xyzw, r1.xyxx, t0.xyzw, s0, r2.xyxx, r3.xyxx\n\
         sample_d r2.xyzw, r1.xyzx, t1.xyzw, s0, r2.xyzx, r3.xyzx\nret\n"
    );
    let base = ["--from", "dxbc", "--to", "nvidia"];
    let args = |cmd: &str, extra: &[&'static str]| -> Vec<String> {
        std::iter::once(cmd.to_string())
            .chain(base.iter().map(|s| s.to_string()))
            .chain(extra.iter().map(|s| s.to_string()))
            .chain(["-".to_string()])
            .collect()
    };
    let run = |a: Vec<String>| {
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        texlate(&refs, &src)
    };
    // approx: two approximated instructions (cube, 3D), the 2D one native (TXD).
    let o = run(args("translate", &["--grad", "approx"]));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.matches("TEX.LL").count(), 2, "{text}");
    assert_eq!(text.matches("TXD").count(), 1, "{text}");
    // The Report's warnings on standard error, one per approximated instruction.
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(stderr.matches("approximated").count(), 2, "{stderr}");
    // explain: the warnings after the instructions.
    let o = run(args("explain", &["--grad", "approx"]));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.matches("warning: line ").count(), 2, "{text}");
    assert!(
        text.contains("rule   approx_grad_lod: approximated"),
        "{text}"
    );
    // The Report in --json: one warning per approximated instruction, with its line.
    let o = run(args("translate", &["--grad", "approx", "--json"]));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let warnings: Vec<&str> = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("line 9, column 1: approximated"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with("line 11, column 1: approximated"),
        "{warnings:?}"
    );
    let rules = json["instructions"][0]["rules"].to_string();
    assert!(rules.contains("approx_grad_lod"), "{rules}");
    // check: agrees up to the LOD, exit 0 under approx.
    let o = run(args("check", &["--grad", "approx"]));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("agree up to the LOD (2 approximated)"),
        "{out}"
    );
    // error: refused, naming the instruction's line and the policy.
    let o = run(args("translate", &["--grad", "error"]));
    assert!(!o.status.success());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("--grad error takes native forms only"),
        "{err}"
    );
    assert!(err.contains("<stdin>:9:1") || err.contains(":9:1"), "{err}");
    let o = run(args("translate", &["--grad", "error", "--json"]));
    assert!(!o.status.success());
    let diag: serde_json::Value = serde_json::from_slice(&o.stderr)
        .or_else(|_| serde_json::from_slice(&o.stdout))
        .unwrap();
    assert!(diag.to_string().contains("--grad error"), "{diag}");
    // exact (the default): the quad emulation, no warning about approximations.
    let o = run(args("translate", &[]));
    assert!(o.status.success());
    assert!(String::from_utf8(o.stdout).unwrap().contains("SAM"));
    assert!(!String::from_utf8(o.stderr)
        .unwrap()
        .contains("approximated"));
}

// ---- vISA target: sample_d natively ----

/// Gradient samples the vISA target takes natively: DX sample_d (2D, 2D array, 3D, cube, cube
/// array) and NVIDIA TXD.
fn visa_native() -> Vec<(Isa, String)> {
    let mut v: Vec<(Isa, String)> = [
        "sample_d r0.xyzw, r1.xyxx, t0.xyzw, s0, r2.xyxx, r3.xyxx",
        "sample_d r0.xyzw, r1.xyzx, t4.xyzw, s0, r2.xyxx, r3.xyxx",
        "sample_d r0.xyzw, r1.xyzx, t1.xyzw, s0, r2.xyzx, r3.xyzx",
        "sample_d r0.xyzw, r1.xyzx, t2.xyzw, s0, r2.xyzx, r3.xyzx",
        "sample_d r0.xy, r1.xyzw, t3.xyzw, s0, r2.xyzx, r3.xyzx",
    ]
    .iter()
    .map(|l| (Isa::Dxbc, dx(l)))
    .collect();
    v.push((Isa::Nvidia, "TXD R0, R4, R8, 0x6e, 2D, 0xf ;\n".into()));
    v
}

fn to_visa(from: Isa, src: &str, simd: u8, grad: GradPolicy) -> (Translation, Options) {
    let mut o = options(from, Isa::Visa, grad);
    o.simd = simd;
    let t = translate::translate(src.as_bytes(), &o).unwrap_or_else(|e| panic!("{src}: {e}"));
    (t, o)
}

/// sample_d at the `--simd` width, under every policy (a native form), agreeing exactly.
/// (GenX_IR splits a SIMD16 sample_d into two SIMD8 sends itself: the opt-in test below.)
#[test]
fn visa_target_takes_sample_d_natively() {
    for (from, src) in visa_native() {
        for simd in [8, 16] {
            for grad in [GradPolicy::Exact, GradPolicy::Approx, GradPolicy::Error] {
                let (t, o) = to_visa(from, &src, simd, grad);
                let text = String::from_utf8(t.output.clone()).unwrap();
                let line = text.lines().find(|l| l.starts_with("sample_d.")).unwrap();
                assert!(line.contains(&format!(" (M1, {simd}) ")), "{text}");
                assert!(!t.warnings.iter().any(|w| w.contains("approximated")));
                for seed in 1..=3 {
                    let c = translate::check(src.as_bytes(), &t, &o, seed).unwrap();
                    assert!(c.agrees(), "{src}\n{c}");
                }
            }
        }
    }
}

/// Opt-in: GenX_IR assembles every vISA sample_d texlate emits on SKL and TGLLP, and its Gen
/// assembly shows the split the platform needs: a SIMD16 sample_d is two SIMD8 "sample
/// gradient" sends (`M0`, `M8`), a SIMD8 one is one (research/intel-visa.md "SIMD").
#[test]
#[ignore = "needs GenX_IR (shared/oracles/intel/setup.sh)"]
fn visa_sample_d_oracle() {
    let Some(assemble) = support::visa_assemble() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("texlate-visa-grad-{}", std::process::id()));
    let (mut accepted, mut sends) = (0, 0);
    for (k, (from, src)) in visa_native().into_iter().enumerate() {
        for simd in [8u8, 16] {
            let (t, _) = to_visa(from, &src, simd, GradPolicy::Exact);
            for platform in ["SKL", "TGLLP"] {
                let out = dir.join(format!("{k}_{simd}_{platform}"));
                std::fs::create_dir_all(&out).unwrap();
                let file = out.join("k.visaasm");
                std::fs::write(&file, &t.output).unwrap();
                let run = Command::new(&assemble)
                    .arg("-o")
                    .arg(&out)
                    .arg("--asm")
                    .arg(&file)
                    .arg(platform)
                    .output()
                    .unwrap();
                let log = String::from_utf8_lossy(&run.stdout);
                assert!(run.status.success(), "{platform}: {src}\n{log}");
                let asm = std::fs::read_to_string(out.join("k.asm")).unwrap();
                let n = asm.matches("simd8 sample gradient").count();
                assert_eq!(n, usize::from(simd / 8), "{platform} SIMD{simd}: {asm}");
                accepted += 1;
                sends += n;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("GenX_IR accepted {accepted} vISA sample_d kernels (SKL, TGLLP), {sends} SIMD8 sends");
}
