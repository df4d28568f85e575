//! Wine / vkd3d-shader 1.6 disassemblies (`corpus/dxbc/oracle/wine_d3ddisasm`, Wine's
//! `D3DDisassemble` of every corpus blob): every one parses, and assembling it gives the
//! blob's own program token stream, instruction by instruction, except where Wine's text
//! does not hold the information ([`LOSSES`]).

mod dxbc_common;

use std::fs;

use dxbc_common::{blobs, corpus_dir};
use texlate::isa::dxbc::{self, container, tokens};
use tokens::{Instruction, OPERAND_IMM32, SEL_SELECT1, SEL_SWIZZLE};

/// The instructions of a token stream (version and length tokens dropped).
fn instructions(stream: &[u8]) -> Vec<Instruction> {
    let words = tokens::dwords(stream, 0).unwrap();
    tokens::decode_program(&words, 0)
        .unwrap()
        .instructions
        .into_iter()
        .map(|(_, i)| i)
        .collect()
}

/// What vkd3d-shader 1.6's text does not say, each as the part of an instruction it clears.
/// Evidence: the instructions of the corpus that differ only in that part.
/// A loss: what it is, and how to clear it from an instruction.
type Loss = (&'static str, fn(&mut Instruction));

const LOSSES: [Loss; 7] = [
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
    // `imm_atomic_alloc r0.x, u0` (a UAV token without components) prints as `u0.xyzw`.
    ("`.xyzw` on a UAV without components", |i| {
        for op in &mut i.operands {
            if op.ty == OPERAND_UAV && op.num_components == 0 {
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
];

/// SM4/SM5 declarations and `customdata`: their dwords after the operands are payload.
fn is_declaration(opcode: u16) -> bool {
    matches!(opcode, 53 | 88..=106 | 143..=162 | 206)
}

/// Operand types (operand token `[19:12]`).
const OPERAND_SAMPLER: u8 = 6;
const OPERAND_UAV: u8 = 30;

/// `instr` with the parts of every loss but `skip` cleared.
fn without_losses(instr: &Instruction, skip: Option<usize>) -> Instruction {
    let mut out = instr.clone();
    for (n, (_, clear)) in LOSSES.iter().enumerate() {
        if Some(n) != skip {
            clear(&mut out);
        }
    }
    out
}

#[test]
fn wine_listings_assemble_to_the_blob() {
    let Some(dir) = corpus_dir() else { return };
    let wine = dir.join("oracle/wine_d3ddisasm");
    let mut failures = Vec::new();
    let (mut listings, mut exact, mut instrs, mut equal) = (0, 0, 0, 0);
    let mut lost = [0usize; LOSSES.len()];
    for (name, blob) in blobs(&dir) {
        let Ok(text) = fs::read_to_string(wine.join(format!("{name}.dxbc.txt"))) else {
            continue;
        };
        listings += 1;
        let program = match dxbc::parse_text(&text) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours = instructions(&dxbc::encode_binary(&program).unwrap());
        let c = container::parse(&blob).unwrap();
        let theirs = instructions(&c.chunks[c.program].data);
        if ours.len() != theirs.len() {
            failures.push(format!(
                "{name}: {} vs {} instructions",
                ours.len(),
                theirs.len()
            ));
            continue;
        }
        let mut same = true;
        for (a, b) in ours.iter().zip(&theirs) {
            instrs += 1;
            if a == b {
                equal += 1;
                continue;
            }
            same = false;
            if without_losses(a, None) != without_losses(b, None) {
                failures.push(format!(
                    "{name}:\n  texlate {}\n  blob    {}",
                    dxbc::disasm::instruction(a),
                    dxbc::disasm::instruction(b)
                ));
                continue;
            }
            for (n, count) in lost.iter_mut().enumerate() {
                if without_losses(a, Some(n)) != without_losses(b, Some(n)) {
                    *count += 1;
                }
            }
        }
        exact += usize::from(same);
    }
    eprintln!("{listings} Wine listings: {exact} assemble to the blob's exact token stream");
    eprintln!("{instrs} instructions: {equal} identical, the others up to:");
    for ((what, _), n) in LOSSES.iter().zip(lost) {
        eprintln!("  {n:5} {what}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(listings, 495, "one Wine listing per corpus blob");
    assert_eq!((exact, instrs, equal), (202, 19288, 17404));
    assert_eq!(lost, [5, 9, 5, 5, 1804, 65, 2]);
}
