//! Shared helpers of the DXBC integration tests: the corpus location and its files.
#![allow(dead_code)]

#[path = "../support/mod.rs"]
pub mod support;

use std::fs;
use std::path::{Path, PathBuf};

use texlate::isa::dxbc::tokens::{
    Instruction, EXT_SAMPLE_CONTROLS, OPERAND_IMM32, SEL_MASK, SEL_SELECT1, SEL_SWIZZLE,
};

/// `../shared/corpus/dxbc`, or `None` (with the SKIPPED note) when it is not there.
pub fn corpus_dir() -> Option<PathBuf> {
    support::corpus("dxbc")
}

fn files(dir: &Path, ext: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension()? == ext).then(|| {
                (
                    path.file_stem().unwrap().to_string_lossy().into_owned(),
                    path,
                )
            })
        })
        .collect();
    out.sort();
    out
}

/// Every blob of the corpus: (base name, bytes), sorted by name.
pub fn blobs(corpus: &Path) -> Vec<(String, Vec<u8>)> {
    files(&corpus.join("blobs"), "dxbc")
        .into_iter()
        .map(|(name, path)| (name, fs::read(path).unwrap()))
        .collect()
}

/// Every listing of the corpus: (base name, text), sorted by name.
pub fn listings(corpus: &Path) -> Vec<(String, String)> {
    files(&corpus.join("asm"), "asm")
        .into_iter()
        .map(|(name, path)| (name, fs::read_to_string(path).unwrap()))
        .collect()
}

/// The listings that are fxc's own listing of a corpus blob: the same base name in `blobs/`
/// and `asm/` (SOURCES.tsv: "paired with <name>.dxbc").
pub fn pairs(corpus: &Path) -> Vec<(String, Vec<u8>, String)> {
    let blobs = blobs(corpus);
    listings(corpus)
        .into_iter()
        .filter_map(|(name, text)| {
            let (_, bytes) = blobs.iter().find(|(b, _)| *b == name)?;
            Some((name, bytes.clone(), text))
        })
        .collect()
}

/// A container holding `stream` as its only (SHEX) chunk, built with texlate's writer.
pub fn container_of(stream: &[u8]) -> Vec<u8> {
    use texlate::isa::dxbc::container::{write, Chunk, Container};
    write(&Container {
        chunks: vec![Chunk {
            tag: *b"SHEX",
            data: stream.to_vec(),
        }],
        program: 0,
    })
}

/// Rewrites the checksum of a (possibly edited) container; shorter inputs have none.
pub fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= 20 {
        let sum = texlate::isa::dxbc::container::checksum(bytes);
        bytes[4..20].copy_from_slice(&sum);
    }
}

/// What vkd3d-shader 1.6's text does not say, each as the part of an instruction it clears.
/// Evidence: the instructions of the corpus that differ only in that part.
/// A loss: what it is, and how to clear it from an instruction.
pub type Loss = (&'static str, fn(&mut Instruction));

pub const LOSSES: [Loss; 9] = [
    // `vPrim`, `vOutputControlPointID` (one-component tokens, fxc `vPrim`) print as
    // `primID.x`, like the select-1 `vThreadIDInGroupFlattened.x` of other blobs.
    (
        "`.x` on a scalar register: one component or a select-1",
        |i| {
            for op in &mut i.operands {
                if op.num_components == 1 {
                    op.num_components = 2;
                    op.selection = SEL_SELECT1;
                    op.comp = 0;
                }
            }
        },
    ),
    // The gather sampler's select component (`s0.x`, SM5 `gather4*`) is not printed.
    ("the sampler select component of gather4", |i| {
        for op in &mut i.operands {
            if op.ty == OPERAND_SAMPLER {
                op.num_components = 2;
                op.selection = SEL_SWIZZLE;
                op.comp = 0xe4;
            }
        }
    }),
    // `imm_atomic_alloc r0.x, u0` (a UAV token without components) prints as `u0.xyzw`, and
    // `dcl_stream m0` as `dcl_stream m0.xyzw`.
    ("`.xyzw` on a UAV or stream without components", |i| {
        for op in &mut i.operands {
            // (`m0.xyzw` read back in a declaration is a write mask.)
            let written = op.num_components == 2 && op.selection == SEL_MASK && op.comp == 0xf;
            if matches!(op.ty, OPERAND_UAV | OPERAND_STREAM) && (op.num_components == 0 || written)
            {
                op.num_components = 2;
                op.selection = SEL_SWIZZLE;
                op.comp = 0xe4;
            }
        }
    }),
    // vkd3d's hand-written test blobs give some instructions (`samplepos`, the `*_s`
    // feedback ops) a length one dword past their operands; the text has no place for it.
    ("dwords past an instruction's operands", |i| {
        if !is_declaration(i.opcode) {
            i.words.clear();
        }
    }),
    // `shader_dump_src_param` prints a select-1 `r0.x` and a replicated swizzle `r0.xxxx`
    // alike as `r0.x` (fxc prints them apart: `mul r0.xyz, r0.wwww, r1.xyzx`).
    ("one letter for select-1 and replicated swizzles", |i| {
        for op in &mut i.operands {
            if op.num_components == 2 && op.selection == SEL_SELECT1 {
                let c = op.comp & 3;
                op.set_swizzle([c; 4]);
            }
        }
    }),
    // Immediates of float and untyped operations print with `%.8e`; every NaN prints as
    // `nan` or `-nan(ind)` whatever its payload (`mov r0.w, l(-112)` prints `-nan(ind)`).
    ("NaN payloads of immediates", |i| {
        for op in &mut i.operands {
            if op.ty == OPERAND_IMM32 {
                for v in &mut op.imm {
                    if f32::from_bits(*v).is_nan() {
                        *v = 0x7fc0_0000 | (*v & 0x8000_0000);
                    }
                }
            }
        }
    }),
    // `dcl_input_ps_sgv constant v2.x, sampleIndex` prints as
    // `dcl_input_ps_sgv v2.x, sample_index`: no interpolation mode.
    ("the interpolation mode of dcl_input_ps_sgv", |i| {
        if i.opcode == 99 {
            i.controls = 0;
        }
    }),
    // `sample_aoffimmi(0,0,0)` (a sample-controls token holding no offset) prints as
    // `sample`: no token.
    ("a sample-controls token of offsets (0,0,0)", |i| {
        let plain =
            i.ext(EXT_SAMPLE_CONTROLS).map(|t| t & 0x7fff_ffff) == Some(EXT_SAMPLE_CONTROLS);
        if plain {
            i.set_aoffimmi(None);
        }
    }),
    // `dcl_resource_texture2dms(8)` prints as `dcl_resource_texture2dms`: no sample count
    // (dcl_resource controls [22:16], the count).
    ("the sample count of dcl_resource", |i| {
        if i.opcode == 88 {
            i.controls &= !(0x7f << 5);
        }
    }),
];

/// SM4/SM5 declarations and `customdata`: their dwords after the operands are payload.
fn is_declaration(opcode: u16) -> bool {
    matches!(opcode, 53 | 88..=106 | 143..=162 | 206)
}

/// Operand types (operand token `[19:12]`).
const OPERAND_SAMPLER: u8 = 6;
const OPERAND_UAV: u8 = 30;
const OPERAND_STREAM: u8 = 16;

/// `instr` with the parts of every loss but `skip` cleared.
pub fn without_losses(instr: &Instruction, skip: Option<usize>) -> Instruction {
    let mut out = instr.clone();
    for (n, (_, clear)) in LOSSES.iter().enumerate() {
        if Some(n) != skip {
            clear(&mut out);
        }
    }
    out
}
