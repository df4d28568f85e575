//! The corrections of research/nvidia.md §11 (2026-11-23), each checked against the code:
//! plain TLD4S reads y from Rb (settled by a ptxas kernel recorded in `tests/cases/nvidia/`),
//! TLD4S.AOFFI/.DC keep x, y in Ra, TEXS.LL.DC packs lod then dref, the TEXS/TLDS targets
//! beyond the §7 table, and which forms print an RZ Rb.

use std::path::PathBuf;

use texlate::ir::{Lod, Offset, Reg, RegFile, Scalar, TexInstr};
use texlate::isa::nvidia::{self, print_inst};

fn case(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/nvidia")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn r(i: u32) -> Scalar {
    Scalar::Reg(Reg {
        file: RegFile::Temp,
        index: i,
        sub: 0,
    })
}

fn one(text: &str) -> TexInstr {
    let p = nvidia::parse_text(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let t = p.tex_instrs().next().unwrap().clone();
    assert_eq!(print_inst(&nvidia::emit_inst(&t).unwrap().0), text);
    t
}

/// ptxas 12.9 (sm_50) on `tld4s_swap.ptx`: `tld4.r … {%fx, %fy}` then `tld4.g … {%fy, %fx}`,
/// with fx = p_x in R0 and fy = p_y in R13.
#[test]
fn plain_tld4s_reads_y_from_rb() {
    let src = case("tld4s_swap.sm_50.sass");
    let p = nvidia::parse_text(&src).unwrap();
    let gathers: Vec<&TexInstr> = p.tex_instrs().collect();
    assert_eq!(gathers.len(), 2);
    assert_eq!(gathers[0].coord, vec![r(0), r(13)]);
    assert_eq!(gathers[1].coord, vec![r(13), r(0)]);
    // The provenance: R0 and R13 are loaded from p_x (0x158) and p_y (0x15c).
    assert!(src.contains("MOV R0, c[0x0][0x158]") && src.contains("MOV R13, c[0x0][0x15c]"));
    // Emitted back to the same words, and the listing prints back byte for byte.
    let words: Vec<u64> = gathers
        .iter()
        .map(|t| nvidia::emit_inst(t).unwrap().1)
        .collect();
    assert_eq!(words, vec![0xdf0006e060d70004, 0xdf1006e0a0070d08]);
    assert_eq!(nvidia::print_text(&p).unwrap(), src);
}

#[test]
fn tld4s_with_offsets_or_compare_keeps_x_y_in_ra() {
    let t = one("TLD4S.R.AOFFI R6, R4, R4, R8, 0x6e");
    assert_eq!(t.coord, vec![r(4), r(5)]);
    assert_eq!(t.offset, Offset::Packed(r(8)));
    let t = one("TLD4S.G.DC R6, R4, R4, R8, 0x6e");
    assert_eq!(t.coord, vec![r(4), r(5)]);
    assert_eq!(t.depth_ref, Some(r(8)));
    let t = one("TLD4S.A.AOFFI.DC R6, R4, R4, R8, 0x6e");
    assert_eq!(t.coord, vec![r(4), r(5)]);
    assert_eq!(t.offset, Offset::Packed(r(8)));
    assert_eq!(t.depth_ref, Some(r(9)));
}

#[test]
fn texs_ll_dc_packs_lod_then_reference() {
    let t = one("TEXS.LL.DC R6, R4, R4, R8, 0x6e, 2D, RGBA");
    assert_eq!(t.coord, vec![r(4), r(5)]);
    assert_eq!(t.lod, Lod::Level(r(8)));
    assert_eq!(t.depth_ref, Some(r(9)));
}

#[test]
fn short_form_targets_beyond_the_probe_table() {
    // TEXS 0 (1D LZ), 6 (2D LZ.DC), 9 (ARRAY_2D LZ.DC); TLDS 1 (1D LL), 5 (2D LL), 12 (2D LL.AOFFI).
    for (text, target) in [
        ("TEXS.LZ RZ, R4, R4, 0x6e, 1D, R", 0),
        ("TEXS.LZ.DC R6, R4, R4, R8, 0x6e, 2D, RGBA", 6),
        ("TEXS.LZ.DC R6, R4, R4, R8, 0x6e, ARRAY_2D, RGBA", 9),
        ("TLDS.LL R6, R4, R4, R8, 0x6e, 1D, RGBA", 1),
        ("TLDS.LL R6, R4, R4, R8, 0x6e, 2D, RGBA", 5),
        ("TLDS.LL.AOFFI R6, R4, R4, R8, 0x6e, 2D, RGBA", 12),
    ] {
        let t = one(text);
        let word = nvidia::emit_inst(&t).unwrap().1;
        assert_eq!((word >> 53) & 0xf, target, "{text}: {word:#018x}");
    }
}

#[test]
fn rz_rb_printing() {
    // Omitted for TEX, TLD, TLD4, TEXS, TLDS; printed for TXD and TLD4S; a bound TMML has no Rb.
    for text in [
        "TEX R4, R4, 0x6e, 2D, 0xf",
        "TLD.LZ R4, R4, 0x6e, 2D, 0xf",
        "TLD4.R R4, R4, 0x6e, ARRAY_2D, 0xf",
        "TXD R4, R4, RZ, 0x6e, 2D, 0xf",
        "TLD4S.R R6, R4, R4, RZ, 0x6e",
        "TMML.LOD R4, R4, 0x6e, 2D, 0x3",
    ] {
        one(text);
    }
    // TLD4S reads y from Rb: RZ there is a zero y coordinate.
    assert_eq!(
        one("TLD4S.R R6, R4, R4, RZ, 0x6e").coord,
        vec![r(4), Scalar::Zero]
    );
}
