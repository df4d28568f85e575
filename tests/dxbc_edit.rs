//! Editing the IR of a decoded DXBC blob: an offset, a coordinate register swizzle and the
//! result mask are changed in the IR, re-encoded, and checked — by texlate's own decoder
//! always, and by Wine's D3DDisassemble and vkd3d-compiler in the opt-in oracle test
//! (`cargo test --test dxbc_edit -- --ignored`, or scripts/oracle-dxbc.sh).

mod dxbc_common;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use dxbc_common::corpus_dir;
use texlate::ir::{Item, Offset, Reg, RegFile, Scalar};
use texlate::isa::dxbc;

const BLOB: &str = "blobs/vkd3d_d3d12_ps_sample_code_L13082.dxbc";
const EDITED: &str = "sample_aoffimmi_indexable(1,-2,0)(texture2d)(float,float,float,float) o0.yw, r0.yxyy, t0.xyzx, s0";

fn reg(file: RegFile, index: u32, sub: u32) -> Scalar {
    Scalar::Reg(Reg { file, index, sub })
}

/// The corpus blob with its `sample` edited in the IR, re-encoded.
fn edited_blob(corpus: &Path) -> Vec<u8> {
    let bytes = std::fs::read(corpus.join(BLOB)).unwrap();
    let mut program = dxbc::decode_binary(&bytes).unwrap();
    let tex = program
        .items
        .iter_mut()
        .find_map(|i| match i {
            Item::Tex(t) => Some(t),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        tex.coord,
        vec![reg(RegFile::DxTemp, 0, 0), reg(RegFile::DxTemp, 0, 1)]
    );
    tex.offset = Offset::Imm([1, -2, 0]);
    tex.coord = vec![reg(RegFile::DxTemp, 0, 1), reg(RegFile::DxTemp, 0, 0)];
    // Red to o0.w, green to o0.y; blue and alpha no longer written.
    tex.dst = [
        Some(reg(RegFile::DxOutput, 0, 3)),
        Some(reg(RegFile::DxOutput, 0, 1)),
        None,
        None,
    ];
    let out = dxbc::encode_binary(&program).unwrap();
    assert_ne!(out, bytes);
    out
}

#[test]
fn an_edited_ir_reencodes_to_what_it_says() {
    let Some(dir) = corpus_dir() else { return };
    let out = edited_blob(&dir);
    let again = dxbc::decode_binary(&out).unwrap();
    let text = dxbc::print_text(&again).unwrap();
    assert!(text.lines().any(|l| l == EDITED), "{text}");
    // The re-encoded blob is a valid container: decoding checked its checksum and sizes.
    assert_eq!(dxbc::encode_binary(&again).unwrap(), out);
}

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/oracles/dxbc")
        .join(name)
}

/// Wine's D3DDisassemble and vkd3d-compiler accept the edited blob, and Wine's text for the
/// edited instruction, read back by texlate's parser (which accepts Wine's spelling),
/// prints as texlate's line.
#[test]
#[ignore = "needs the DXBC oracles (shared/oracles/dxbc/setup.sh)"]
fn oracles_accept_the_edited_blob() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = std::env::temp_dir().join(format!("texlate-dxbc-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let path = tmp.join("edited.dxbc");
    std::fs::write(&path, edited_blob(&dir)).unwrap();

    let disasm = Command::new(oracle("dxbc-disasm"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        disasm.status.success(),
        "D3DDisassemble rejected the blob: {}",
        String::from_utf8_lossy(&disasm.stderr)
    );
    let wine = String::from_utf8(disasm.stdout).unwrap();
    eprintln!("Wine D3DDisassemble:\n{wine}");
    let line = wine
        .lines()
        .find(|l| l.starts_with("sample"))
        .expect("a sample line");
    let ours = dxbc::parse_text(line)
        .and_then(|p| dxbc::print_text(&p))
        .unwrap();
    assert_eq!(ours.trim_end(), EDITED, "Wine printed `{line}`");

    let spirv = Command::new(oracle("dxbc-to-spirv"))
        .arg(&path)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&spirv.stdout);
    eprintln!("vkd3d-compiler: {report}");
    assert!(
        spirv.status.success() && report.contains("ACCEPTED"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
