//! `Codec::constants`: the registers the source stream sets to a constant before each
//! texture instruction (what `passes::fold_constants` folds), per ISA, on hand-written
//! programs and on the shared corpus.

use texlate::ir::{Offset, Reg, RegFile, Scalar};
use texlate::isa::codec;
use texlate::translate::{translate, Options};
use texlate::Isa;

mod support;

fn temp(index: u32, sub: u32) -> Reg {
    Reg {
        file: RegFile::Temp,
        index,
        sub,
    }
}

/// The constants before each texture instruction of `src` (text or binary of `isa`).
fn constants(isa: Isa, src: &[u8]) -> Vec<Vec<(Reg, u32)>> {
    let p = texlate::decode(isa, src).unwrap_or_else(|e| panic!("{e}"));
    codec(isa).constants(&p)
}

fn holds(c: &[(Reg, u32)], r: Reg) -> Option<u32> {
    c.iter().find(|(k, _)| *k == r).map(|(_, v)| *v)
}

// ---- NVIDIA -----------------------------------------------------------------------------

const NV_TEX: &str = "        /*0030*/                   TEX.AOFFI.P R4, R4, R6, 0x6e, 2D, 0xf ;";

fn nv(lines: &[&str]) -> Vec<Vec<(Reg, u32)>> {
    let mut src = lines.join("\n");
    src.push('\n');
    constants(Isa::Nvidia, src.as_bytes())
}

#[test]
fn nvidia_mov32i_folds() {
    let c = nv(&[
        "        /*0008*/                   MOV R1, c[0x0][0x20] ;",
        "        /*0010*/                   MOV32I R6, 0xe1 ;",
        "        /*0018*/                   MOV R4, c[0x0][0x158] ;",
        NV_TEX,
    ]);
    assert_eq!(c.len(), 1);
    assert_eq!(holds(&c[0], temp(6, 0)), Some(0xe1));
    assert_eq!(holds(&c[0], temp(4, 0)), None);
    assert_eq!(holds(&c[0], temp(1, 0)), None);
}

#[test]
fn nvidia_mov_rz_and_copies() {
    let c = nv(&[
        "        /*0010*/                   MOV R6, RZ ;",
        "        /*0018*/         {         MOV32I R9, 0xe3 ;",
        "        /*0020*/                   MOV R10, R9         }",
        NV_TEX,
    ]);
    assert_eq!(holds(&c[0], temp(6, 0)), Some(0));
    assert_eq!(holds(&c[0], temp(9, 0)), Some(0xe3));
    assert_eq!(holds(&c[0], temp(10, 0)), Some(0xe3));
}

#[test]
fn nvidia_overwritten_or_behind_control_flow_does_not_fold() {
    let cases: &[&[&str]] = &[
        // Overwritten by an ALU instruction.
        &[
            "        /*0010*/                   MOV32I R6, 0xe1 ;",
            "        /*0018*/                   IADD R6, R6, c[0x0][0x20] ;",
            NV_TEX,
        ],
        // Overwritten by a 64-bit load into R5..R6 (an instruction of no class).
        &[
            "        /*0010*/                   MOV32I R6, 0xe1 ;",
            "        /*0018*/                   LDG.E.64 R5, [R2] ;",
            NV_TEX,
        ],
        // Behind a label.
        &[
            "        /*0010*/                   MOV32I R6, 0xe1 ;",
            ".L_x_0:",
            NV_TEX,
        ],
        // Behind SSY / BRA.
        &[
            "        /*0010*/                   MOV32I R6, 0xe1 ;",
            "        /*0018*/                   SSY `(.L_x_1) ;",
            NV_TEX,
        ],
        // A predicated move may not happen.
        &[
            "        /*0010*/                   MOV32I R6, 0xe1 ;",
            "        /*0018*/                   @P0 MOV32I R6, 0x11 ;",
            NV_TEX,
        ],
        // A texture instruction overwrites its destinations.
        &[
            "        /*0010*/                   MOV32I R6, 0xe1 ;",
            "        /*0018*/                   TEX.P R4, R0, 0x6e, 2D, 0xf ;",
            NV_TEX,
        ],
    ];
    for lines in cases {
        let c = nv(lines);
        assert_eq!(holds(c.last().unwrap(), temp(6, 0)), None, "{lines:#?}");
    }
}

/// A raw SM50 stream: one bundle, control word first.
fn nv_stream(words: [u64; 4]) -> Vec<Vec<(Reg, u32)>> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    constants(Isa::Nvidia, &bytes)
}

const CTRL: u64 = 0x001f_c400_fe20_07f6;
/// `MOV32I R6, 0xe1` (the backend's template with Rd = 6, imm32 = 0xe1).
const MOV32I_R6_E1: u64 = 0x0100_0000_0e17_f006;
const TEX_AOFFI: u64 = 0xc078_06e7_a067_0404;

#[test]
fn nvidia_words_fold_and_kill() {
    // MOV32I R6, 0xe1; MOV R4, c[0x0][0x158]; TEX.AOFFI.P R4, R4, R6.
    let c = nv_stream([CTRL, MOV32I_R6_E1, 0x4c98_0780_0567_0004, TEX_AOFFI]);
    assert_eq!(holds(&c[0], temp(6, 0)), Some(0xe1));
    // MOV R6, RZ.
    let c = nv_stream([
        CTRL,
        0x5c98_0780_0ff7_0006,
        0x50b0_0000_0007_0f00,
        TEX_AOFFI,
    ]);
    assert_eq!(holds(&c[0], temp(6, 0)), Some(0));
    // BRA in between.
    let c = nv_stream([CTRL, MOV32I_R6_E1, 0xe240_0fff_ff07_000f, TEX_AOFFI]);
    assert_eq!(holds(&c[0], temp(6, 0)), None);
    // A word of no class with Rd = R4 may write R4..R7.
    let c = nv_stream([CTRL, MOV32I_R6_E1, 0xeed4_2000_0007_0204, TEX_AOFFI]);
    assert_eq!(holds(&c[0], temp(6, 0)), None);
    // A predicated MOV32I (guard P0).
    let c = nv_stream([
        CTRL,
        MOV32I_R6_E1 & !0xf_0000,
        0x50b0_0000_0007_0f00,
        TEX_AOFFI,
    ]);
    assert_eq!(holds(&c[0], temp(6, 0)), None);
}

/// For every `.AOFFI` instruction of a corpus listing with a register offset: whether the
/// nearest earlier line that writes that register (first operand), in the same block, is
/// an unpredicated `MOV32I` or `MOV Rd, RZ`: found by reading the listing text directly.
fn set_by_mov32i(lines: &[&str], at: usize, reg: u32) -> bool {
    let name = format!("R{reg}");
    for line in lines[..at].iter().rev() {
        let t = line.trim();
        if t.ends_with(':') || t.starts_with('.') {
            return false;
        }
        let Some(rest) = t.strip_prefix("/*").and_then(|r| r.split_once("*/")) else {
            continue;
        };
        let body = rest.1.trim().trim_start_matches('{').trim();
        let body = body.split([';', '}']).next().unwrap_or("").trim();
        let (op, operands) = body.split_once(' ').unwrap_or((body, ""));
        let base = op.split('.').next().unwrap_or(op);
        if ["BRA", "SSY", "SYNC", "SAM", "RAM", "BRK", "PBK", "EXIT"].contains(&base) {
            return false;
        }
        let ops: Vec<&str> = operands.split(',').map(str::trim).collect();
        let first = ops[0].trim_end_matches(".CC");
        let dst_base = first.strip_prefix('R').and_then(|n| n.parse::<u32>().ok());
        let wide = [
            "TEX", "TLD", "TLD4", "TXD", "TXQ", "LDG", "TEXS", "TLDS", "TLD4S",
        ]
        .contains(&base)
            && dst_base.is_some_and(|b| (b..=b + 3).contains(&reg));
        if first == name || wide {
            return (op == "MOV32I" || op == "MOV" && ops.get(1) == Some(&"RZ")) && !wide;
        }
        if op.starts_with('@') && ops.first().is_some_and(|_| operands.contains(&name)) {
            return false;
        }
    }
    false
}

#[test]
fn nvidia_corpus_offsets_set_by_mov32i_all_fold() {
    let Some(dir) = support::corpus("nvidia") else {
        return;
    };
    let (mut aoffi, mut expected, mut folded, mut cubin_folded) = (0, 0, 0, 0);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sass"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        let p = texlate::decode(Isa::Nvidia, text.as_bytes()).unwrap();
        let c = codec(Isa::Nvidia).constants(&p);
        let cubin = dir
            .join("cubin")
            .join(path.file_name().unwrap())
            .with_extension("cubin");
        let cubin = std::fs::read(&cubin).ok().map(|b| {
            let p = texlate::decode(Isa::Nvidia, &b).unwrap();
            let c = codec(Isa::Nvidia).constants(&p);
            (p, c)
        });
        for (i, t) in p.tex_instrs().enumerate() {
            let Offset::Packed(Scalar::Reg(r)) = t.offset else {
                continue;
            };
            aoffi += 1;
            let expect = set_by_mov32i(&lines, t.span.line as usize - 1, r.index);
            let got = holds(&c[i], r).is_some();
            assert_eq!(got, expect, "{}:{}", path.display(), t.span.line);
            expected += usize::from(expect);
            folded += usize::from(got);
            if let Some((cp, cc)) = &cubin {
                let ct = cp.tex_instrs().nth(i).unwrap();
                assert_eq!(ct.offset, t.offset, "{}: instruction {i}", path.display());
                cubin_folded += usize::from(holds(&cc[i], r).is_some());
            }
        }
    }
    eprintln!("corpus: {aoffi} register .AOFFI, {expected} set by MOV32I/MOV RZ, {folded} folded (listings), {cubin_folded} (cubins)");
    assert_eq!((aoffi, expected, folded, cubin_folded), (187, 79, 79, 79));
}

#[test]
fn nvidia_listing_to_dx_and_visa_folds_the_offset() {
    let src = b"        /*0008*/                   MOV32I R6, 0xe1 ;\n        /*0010*/                   TEX.AOFFI.P R4, R4, R6, 0x6e, 2D, 0xf ;\n";
    let dx = translate(src, &Options::new(Isa::Nvidia, Isa::Dxbc)).unwrap();
    let dx = String::from_utf8(dx.output).unwrap();
    // fxc's SM5 spelling puts `_indexable` between the suffix and the offsets.
    assert!(dx.contains("sample_aoffimmi_indexable(1,-2,0)"), "{dx}");
    let visa = translate(src, &Options::new(Isa::Nvidia, Isa::Visa)).unwrap();
    let visa = String::from_utf8(visa.output).unwrap();
    assert!(visa.contains("0x1e0:uw"), "{visa}");
    // Without the MOV32I the offsets stay in a register: no immediate form.
    let src = b"        /*0010*/                   TEX.AOFFI.P R4, R4, R6, 0x6e, 2D, 0xf ;\n";
    let r = translate(src, &Options::new(Isa::Nvidia, Isa::Dxbc));
    let folded = r.is_ok_and(|t| String::from_utf8(t.output).unwrap().contains("(1,-2,0)"));
    assert!(!folded);
}

// ---- DXBC -------------------------------------------------------------------------------

const DX_HEAD: &str = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\ndcl_temps 3\n";
const DX_SAMPLE_L: &str = "sample_l r0.xyzw, r1.xyxx, t0.xyzw, s0, r2.x\n";

fn dx(body: &str) -> Vec<Vec<(Reg, u32)>> {
    let text = format!("{DX_HEAD}{body}{DX_SAMPLE_L}ret\n");
    let from_text = constants(Isa::Dxbc, text.as_bytes());
    // The same program as a token stream gives the same constants.
    let p = texlate::decode(Isa::Dxbc, text.as_bytes()).unwrap();
    let binary = texlate::encode(Isa::Dxbc, &p, texlate::Form::Binary).unwrap();
    assert_eq!(constants(Isa::Dxbc, &binary), from_text, "{text}");
    from_text
}

#[test]
fn dxbc_mov_immediates_fold() {
    let c = dx("mov r2.x, l(0)\nmov r2.yz, l(0, 3, 4, 0)\nmov r1.w, r2.z\n");
    assert_eq!(holds(&c[0], temp(2, 0)), Some(0));
    assert_eq!(holds(&c[0], temp(2, 1)), Some(3));
    assert_eq!(holds(&c[0], temp(2, 2)), Some(4));
    assert_eq!(holds(&c[0], temp(2, 3)), None);
    assert_eq!(holds(&c[0], temp(1, 3)), Some(4));
    let c = dx("mov r2.xyzw, l(1.000000)\n");
    assert_eq!(holds(&c[0], temp(2, 0)), Some(0x3f80_0000));
    assert_eq!(holds(&c[0], temp(2, 3)), Some(0x3f80_0000));
}

#[test]
fn dxbc_overwritten_or_behind_flow_control_does_not_fold() {
    for body in [
        "mov r2.x, l(0)\nadd r2.x, r2.x, l(1.000000)\n",
        "mov r2.x, l(0)\nmov_sat r2.x, l(2.000000)\n",
        "mov r2.x, l(0)\nmov r2.x, r1.y\n",
        "mov r2.x, l(0)\nsincos r2.x, null, r1.x\n",
        "mov r2.x, l(0)\nsample r2.xyzw, r1.xyxx, t0.xyzw, s0\n",
        "mov r2.x, l(0)\nif_nz r1.x\nendif\n",
        "mov r2.x, l(0)\nloop\nbreak\nendloop\n",
    ] {
        let c = dx(body);
        assert_eq!(holds(c.last().unwrap(), temp(2, 0)), None, "{body}");
    }
    // Writing other components keeps r2.x.
    let c = dx("mov r2.x, l(0)\nadd r2.yzw, r1.xxyz, l(1.0, 1.0, 1.0, 0)\n");
    assert_eq!(holds(&c[0], temp(2, 0)), Some(0));
}

#[test]
fn dxbc_constant_lod_folds_in_translation() {
    let text = format!("{DX_HEAD}mov r2.x, l(0)\n{DX_SAMPLE_L}ret\n");
    let t = translate(text.as_bytes(), &Options::new(Isa::Dxbc, Isa::Nvidia)).unwrap();
    let out = String::from_utf8(t.output).unwrap();
    assert!(out.contains(".LZ"), "{out}");
}

#[test]
fn dxbc_corpus_constant_lods() {
    let Some(dir) = support::corpus("dxbc/asm") else {
        return;
    };
    let (mut level_regs, mut folded) = (0, 0);
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let Ok(p) = texlate::decode(Isa::Dxbc, &std::fs::read(&path).unwrap()) else {
            continue;
        };
        let c = codec(Isa::Dxbc).constants(&p);
        assert_eq!(c.len(), p.tex_instrs().count());
        for (i, t) in p.tex_instrs().enumerate() {
            if let texlate::ir::Lod::Level(Scalar::Reg(r)) = t.lod {
                level_regs += 1;
                folded += usize::from(holds(&c[i], r).is_some());
            }
        }
    }
    eprintln!("dxbc corpus: {level_regs} register LODs, {folded} set by mov of an immediate");
    assert_eq!((level_regs, folded), (182, 126));
}
