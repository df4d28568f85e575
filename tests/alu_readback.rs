//! Every codec reads back the ALU instructions its own backend emits as `Item::Alu`: a
//! program with every `AluOp`, emitted, printed (and encoded), read again, gives the same
//! ALU items (IR equality up to span and origin), and printing / encoding what was read gives
//! the same text / bytes.

use texlate::ir::{
    AluInstr, AluOp, Exec, Imm, Item, Pred, Reg, RegFile, Scalar, ScalarType, Span, Variable,
};
use texlate::isa::{codec, EmitOptions};
use texlate::{Isa, Program};

fn r(index: u32, sub: u32) -> Scalar {
    Scalar::Reg(Reg {
        file: RegFile::Temp,
        index,
        sub,
    })
}

fn imm(bits: u32, ty: ScalarType) -> Scalar {
    Scalar::Imm(Imm {
        bits: u64::from(bits),
        ty,
    })
}

fn alu(op: AluOp, dst: Scalar, srcs: Vec<Scalar>) -> AluInstr {
    AluInstr {
        op,
        dst,
        srcs,
        pred: None,
        exec: None,
        span: Span::default(),
        origin: Default::default(),
    }
}

/// The ALU items of `p`, without span and origin.
fn alus(p: &Program) -> Vec<AluInstr> {
    p.items
        .iter()
        .filter_map(|i| match i {
            Item::Alu(a) => {
                let mut a = (**a).clone();
                a.span = Span::default();
                a.origin = Default::default();
                Some(a)
            }
            _ => None,
        })
        .collect()
}

fn opaque_count(p: &Program) -> usize {
    p.items
        .iter()
        .filter(|i| matches!(i, Item::Opaque(o) if o.text.as_deref().is_none_or(|t| !t.trim().is_empty())))
        .count()
}

/// `text` with `from` replaced by `to` once reads back with one ALU item fewer: an
/// instruction that differs from the backend's in anything stays opaque.
fn near_miss(isa: Isa, text: &str, from: &str, to: &str) {
    miss(isa, text, from, to, None);
}

/// `text` with `from` replaced by `to` once reads back without an `op` item where it had
/// one: a multi-instruction form with one instruction changed is not that form (its other
/// instructions may still read as another op).
fn sequence_miss(isa: Isa, text: &str, from: &str, to: &str, op: AluOp) {
    miss(isa, text, from, to, Some(op));
}

/// `text` with `from` replaced by `to` reads back with one ALU item (of `op`, if given)
/// fewer, and prints back as it was read.
fn miss(isa: Isa, text: &str, from: &str, to: &str, op: Option<AluOp>) {
    let c = codec(isa);
    let count = |t: &str| {
        alus(&c.parse_text(t, Default::default()).unwrap())
            .iter()
            .filter(|a| op.is_none_or(|op| a.op == op))
            .count()
    };
    assert!(text.contains(from), "{from} in\n{text}");
    let changed = text.replacen(from, to, 1);
    assert_eq!(count(&changed), count(text) - 1, "{isa:?}: `{to}`");
    let read = c.parse_text(&changed, Default::default()).unwrap();
    assert_eq!(c.print_text(&read).unwrap(), changed, "{isa:?} identity");
}

/// Emits `list`, reads the text (and the binary, when `binary`) back: the same ALU items,
/// and identity round trips. Returns the program read from text.
fn read_back(isa: Isa, mut ir: Program, list: Vec<AluInstr>, binary: bool) -> Program {
    let c = codec(isa);
    ir.items = list
        .iter()
        .cloned()
        .map(|a| Item::Alu(Box::new(a)))
        .collect();
    let emitted = c.emit(&ir, &EmitOptions::default()).unwrap();
    let text = c.print_text(&emitted).unwrap();
    let read = c.parse_text(&text, Default::default()).unwrap();
    assert_eq!(alus(&read), list, "{isa:?} text:\n{text}");
    assert_eq!(c.print_text(&read).unwrap(), text, "{isa:?} text identity");
    if binary {
        let bytes = c.encode_binary(&emitted).unwrap();
        let decoded = c.decode_binary(&bytes).unwrap();
        assert_eq!(alus(&decoded), list, "{isa:?} binary");
        assert_eq!(
            c.encode_binary(&decoded).unwrap(),
            bytes,
            "{isa:?} binary identity"
        );
    }
    read
}

#[test]
fn nvidia_reads_back_every_alu_op() {
    use ScalarType::{F32, U32};
    let mut pred = alu(AluOp::Mov, r(9, 0), vec![r(2, 0)]);
    pred.pred = Some(Pred {
        index: 0,
        negate: true,
    });
    let list = vec![
        alu(AluOp::Mov, r(1, 0), vec![r(2, 0)]),
        alu(AluOp::Mov, r(3, 0), vec![Scalar::Zero]),
        alu(AluOp::Mov, r(4, 0), vec![imm(0x3e03, U32)]),
        alu(AluOp::U32ToF32, r(5, 0), vec![r(6, 0)]),
        alu(AluOp::I32ToF32, r(7, 0), vec![r(8, 0)]),
        alu(AluOp::F32ToLayer, r(10, 0), vec![r(11, 0)]),
        alu(AluOp::U32ToLayer, r(12, 0), vec![r(13, 0)]),
        alu(AluOp::F32ToI32, r(14, 0), vec![r(15, 0)]),
        alu(AluOp::FMul, r(16, 0), vec![r(17, 0), r(18, 0)]),
        alu(AluOp::FMaxAbs, r(19, 0), vec![r(20, 0), r(21, 0)]),
        alu(AluOp::FMaxRightAbs, r(24, 0), vec![r(19, 0), r(21, 0)]),
        alu(AluOp::FRcp, r(22, 0), vec![r(23, 0)]),
        // The quad operations of the gradient emulation.
        alu(AluOp::SetActiveMask, Scalar::Zero, vec![]),
        alu(AluOp::QuadBroadcast, r(25, 0), vec![r(26, 0), Scalar::Zero]),
        alu(AluOp::QuadBroadcast, r(27, 0), vec![r(26, 0), imm(3, U32)]),
        alu(AluOp::QuadAddX, r(28, 0), vec![r(25, 0), r(27, 0)]),
        alu(AluOp::QuadAddY, r(28, 0), vec![r(25, 0), r(28, 0)]),
        alu(AluOp::RestoreActiveMask, Scalar::Zero, vec![]),
        alu(AluOp::MovLanes, r(29, 0), vec![r(28, 0), imm(0x4, U32)]),
        pred,
        // TMML's fixed point.
        alu(AluOp::I16ToF32, r(24, 0), vec![r(25, 0)]),
        alu(AluOp::U16ToF32, r(26, 0), vec![r(27, 0)]),
        // The gradient approximation's LOD arithmetic.
        alu(AluOp::FFma, r(30, 0), vec![r(31, 0), r(32, 0), r(33, 0)]),
        alu(AluOp::FSetGeAbs, r(34, 0), vec![r(35, 0), r(30, 0)]),
        alu(AluOp::FLog2, r(36, 0), vec![r(34, 0)]),
    ];
    let _ = F32;
    let read = read_back(Isa::Nvidia, Program::new(Isa::Nvidia), list, true);
    let text = codec(Isa::Nvidia).print_text(&read).unwrap();
    near_miss(Isa::Nvidia, &text, "I2F.F32.U16 R26", "I2F.F32.S16 R26");
    // Another modifier in the text than the word's, another guard.
    near_miss(Isa::Nvidia, &text, "FMUL R16", "FMUL.FTZ R16");
    near_miss(Isa::Nvidia, &text, "@!P0 MOV", "@P0 MOV");
    near_miss(Isa::Nvidia, &text, "FFMA R30", "FFMA.FTZ R30");
    near_miss(
        Isa::Nvidia,
        &text,
        "FSET.BF.GE.AND R34",
        "FSET.BF.GT.AND R34",
    );
    near_miss(Isa::Nvidia, &text, "MUFU.LG2 R36", "MUFU.EX2 R36");
}

#[test]
fn dxbc_reads_back_every_alu_op() {
    use ScalarType::{F32, I32, U32};
    let list = vec![
        alu(AluOp::Mov, r(1, 1), vec![r(2, 3)]),
        alu(AluOp::Mov, r(1, 0), vec![imm(7, U32)]),
        alu(AluOp::U32ToF32, r(3, 2), vec![r(0, 0)]),
        alu(AluOp::I32ToF32, r(3, 1), vec![r(0, 1)]),
        alu(AluOp::F32ToLayer, r(4, 2), vec![r(0, 2)]),
        alu(AluOp::U32ToLayer, r(4, 3), vec![r(0, 3)]),
        alu(AluOp::F32ToI32, r(5, 0), vec![r(1, 2)]),
        alu(AluOp::FMul, r(5, 1), vec![r(1, 3), imm(0x3f00_0000, F32)]),
        alu(AluOp::FMaxAbs, r(5, 2), vec![r(2, 0), r(2, 1)]),
        alu(AluOp::FMaxRightAbs, r(6, 0), vec![r(5, 2), r(2, 3)]),
        alu(AluOp::FRcp, r(5, 3), vec![r(2, 2)]),
        // TMML's fixed point.
        alu(AluOp::I16ToF32, r(6, 0), vec![r(1, 0)]),
        alu(AluOp::U16ToF32, r(6, 1), vec![r(1, 3)]),
        // The gradient approximation's LOD arithmetic.
        alu(AluOp::FFma, r(7, 0), vec![r(1, 0), r(2, 1), r(3, 2)]),
        alu(AluOp::FLog2, r(7, 1), vec![r(7, 0)]),
        alu(AluOp::FSetGeAbs, r(7, 2), vec![r(2, 3), r(7, 1)]),
    ];
    let _ = I32;
    let read = read_back(Isa::Dxbc, Program::new(Isa::Dxbc), list, true);
    // Only the declarations and `ret` stay opaque.
    assert!(opaque_count(&read) > 0);
    let text = codec(Isa::Dxbc).print_text(&read).unwrap();
    near_miss(Isa::Dxbc, &text, "rcp r5.w", "rcp_sat r5.w");
    near_miss(Isa::Dxbc, &text, "mad r7.x", "mad_sat r7.x");
    near_miss(Isa::Dxbc, &text, "log r7.y, r7.x", "log r7.y, -r7.x");
    sequence_miss(
        Isa::Dxbc,
        &text,
        "ge r7.z, |r2.w|, r7.y",
        "ge r7.z, r2.w, r7.y",
        AluOp::FSetGeAbs,
    );
    sequence_miss(
        Isa::Dxbc,
        &text,
        "and r7.z, r7.z, l(0x3f800000)",
        "and r7.z, r7.z, l(0x3f800001)",
        AluOp::FSetGeAbs,
    );
    near_miss(Isa::Dxbc, &text, "mov r1.y, r2.w", "mov r1.y, -r2.w");
    near_miss(
        Isa::Dxbc,
        &text,
        "max r5.z, |r2.x|, |r2.y|",
        "max r5.z, |r2.x|, r2.y",
    );
    sequence_miss(
        Isa::Dxbc,
        &text,
        "ibfe r6.x, l(16), l(0), r1.x",
        "ibfe r6.x, l(15), l(0), r1.x",
        AluOp::I16ToF32,
    );
    sequence_miss(
        Isa::Dxbc,
        &text,
        "utof r6.y, r6.y",
        "itof r6.y, r6.y",
        AluOp::U16ToF32,
    );
}

#[test]
fn visa_reads_back_every_alu_op() {
    use ScalarType::{F32, U32};
    let mut ir = Program::new(Isa::Visa);
    for (i, ty) in [(32, "f"), (33, "ud"), (34, "d"), (35, "f"), (36, "f")] {
        let name = format!("V{i}");
        ir.variables.insert(
            name.clone(),
            Variable {
                name,
                ty: ty.into(),
                num_elts: 32,
            },
        );
    }
    let simd = |mut a: AluInstr, size: u8, mask: u8| {
        a.exec = Some(Exec { size, mask });
        a
    };
    let list = vec![
        simd(alu(AluOp::Mov, r(32, 0), vec![r(35, 0)]), 16, 0),
        simd(alu(AluOp::Mov, r(33, 0), vec![r(32, 64)]), 16, 0),
        simd(alu(AluOp::Mov, r(33, 0), vec![imm(7, U32)]), 8, 1),
        simd(alu(AluOp::Mov, r(32, 4), vec![imm(0x3f80_0000, F32)]), 1, 0),
        simd(alu(AluOp::U32ToF32, r(32, 64), vec![r(33, 0)]), 16, 0),
        simd(alu(AluOp::I32ToF32, r(36, 0), vec![r(34, 0)]), 16, 0),
        simd(alu(AluOp::F32ToLayer, r(33, 64), vec![r(32, 0)]), 16, 0),
        simd(alu(AluOp::U32ToLayer, r(33, 0), vec![r(33, 64)]), 8, 0),
        simd(alu(AluOp::F32ToI32, r(34, 0), vec![r(32, 0)]), 16, 0),
        simd(alu(AluOp::FMul, r(32, 0), vec![r(35, 0), r(36, 0)]), 16, 0),
        simd(
            alu(AluOp::FMaxAbs, r(35, 0), vec![r(32, 0), r(36, 0)]),
            16,
            0,
        ),
        simd(
            alu(AluOp::FMaxRightAbs, r(35, 0), vec![r(35, 0), r(36, 0)]),
            16,
            0,
        ),
        simd(alu(AluOp::FRcp, r(36, 0), vec![r(35, 0)]), 16, 0),
        // TMML's fixed point.
        simd(alu(AluOp::I16ToF32, r(32, 0), vec![r(34, 0)]), 16, 0),
        simd(alu(AluOp::U16ToF32, r(35, 64), vec![r(33, 0)]), 8, 0),
        // The gradient approximation's LOD arithmetic.
        simd(
            alu(AluOp::FFma, r(32, 0), vec![r(35, 0), r(36, 0), r(32, 0)]),
            16,
            0,
        ),
        simd(alu(AluOp::FLog2, r(36, 0), vec![r(32, 0)]), 16, 0),
        simd(
            alu(AluOp::FSetGeAbs, r(35, 0), vec![r(32, 0), r(36, 0)]),
            16,
            0,
        ),
    ];
    let read = read_back(Isa::Visa, ir, list, false);
    let text = codec(Isa::Visa).print_text(&read).unwrap();
    sequence_miss(
        Isa::Visa,
        &text,
        "asr (M1, 16) V0032_d(0,0)<1> V0032_d(0,0)<1;1,0> 0x10:d",
        "asr (M1, 16) V0032_d(0,0)<1> V0032_d(0,0)<1;1,0> 0xf:d",
        AluOp::I16ToF32,
    );
    sequence_miss(
        Isa::Visa,
        &text,
        "and (M1, 8) V0035_ud(2,0)<1> V0033(0,0)<1;1,0> 0xffff:ud",
        "and (M1, 8) V0035_ud(2,0)<1> V0033(0,0)<1;1,0> 0xfff:ud",
        AluOp::U16ToF32,
    );
    near_miss(Isa::Visa, &text, "inv (M1, 16)", "inv.sat (M1, 16)");
    near_miss(Isa::Visa, &text, "mad (M1, 16)", "mad.sat (M1, 16)");
    near_miss(Isa::Visa, &text, "log (M1, 16)", "log.sat (M1, 16)");
    sequence_miss(
        Isa::Visa,
        &text,
        "cmp.ge (M1, 16) V0035_ud(0,0)<1> (abs)V0032(0,0)<1;1,0>",
        "cmp.ge (M1, 16) V0035_ud(0,0)<1> V0032(0,0)<1;1,0>",
        AluOp::FSetGeAbs,
    );
    sequence_miss(
        Isa::Visa,
        &text,
        "0x3f800000:ud",
        "0x3f800001:ud",
        AluOp::FSetGeAbs,
    );
    near_miss(Isa::Visa, &text, "mul (M1, 16)", "mul.sat (M1, 16)");
    near_miss(Isa::Visa, &text, "(abs)", "(-)");
}

// --- Programmable offsets (dyn-offsets): the bit-field ops of the offset emulations.

/// `InsertField` and `ExtractFieldSigned` read back on every codec (NVIDIA `BFI`/`BFE`
/// register forms, DX `bfi`/`ibfe`, vISA `bfi`/`bfe`), with their control word.
#[test]
fn every_codec_reads_back_the_bit_field_ops() {
    use texlate::ir::field_imm;
    use ScalarType::U32;
    let list = vec![
        alu(AluOp::Mov, r(3, 0), vec![imm(0x608, U32)]),
        alu(AluOp::InsertField, r(1, 0), vec![r(2, 0), r(4, 0), r(3, 0)]),
        alu(
            AluOp::InsertField,
            r(5, 0),
            vec![r(2, 0), Scalar::Zero, r(3, 0)],
        ),
        alu(AluOp::ExtractFieldSigned, r(6, 0), vec![r(1, 0), r(3, 0)]),
    ];
    let read = read_back(Isa::Nvidia, Program::new(Isa::Nvidia), list, true);
    let text = codec(Isa::Nvidia).print_text(&read).unwrap();
    assert!(text.contains("BFI R1, R2, R3, R4"), "{text}");
    assert!(text.contains("BFI R5, R2, R3, RZ"), "{text}");
    near_miss(Isa::Nvidia, &text, "BFE R6", "BFE.U32 R6");

    let list = vec![
        alu(
            AluOp::InsertField,
            r(7, 0),
            vec![r(1, 1), r(1, 0), field_imm(8, 6)],
        ),
        alu(
            AluOp::InsertField,
            r(7, 2),
            vec![r(1, 1), imm(0, U32), field_imm(4, 4)],
        ),
        alu(
            AluOp::ExtractFieldSigned,
            r(7, 1),
            vec![r(2, 3), field_imm(8, 4)],
        ),
    ];
    let read = read_back(Isa::Dxbc, Program::new(Isa::Dxbc), list, true);
    let text = codec(Isa::Dxbc).print_text(&read).unwrap();
    assert!(text.contains("bfi r7.x, l(6), l(8), r1.y, r1.x"), "{text}");
    assert!(text.contains("ibfe r7.y, l(4), l(8), r2.w"), "{text}");
    near_miss(Isa::Dxbc, &text, "ibfe r7.y", "ubfe r7.y");

    let mut ir = Program::new(Isa::Visa);
    for (i, ty) in [(32, "ud"), (33, "d")] {
        let name = format!("V{i}");
        ir.variables.insert(
            name.clone(),
            Variable {
                name,
                ty: ty.into(),
                num_elts: 32,
            },
        );
    }
    let simd = |mut a: AluInstr| {
        a.exec = Some(Exec { size: 16, mask: 0 });
        a
    };
    let list = vec![
        simd(alu(
            AluOp::ExtractFieldSigned,
            r(33, 0),
            vec![r(32, 0), field_imm(8, 4)],
        )),
        simd(alu(
            AluOp::InsertField,
            r(32, 64),
            vec![r(33, 0), imm(0, U32), field_imm(0, 6)],
        )),
        simd(alu(
            AluOp::InsertField,
            r(32, 0),
            vec![r(33, 64), r(32, 64), field_imm(8, 6)],
        )),
    ];
    let read = read_back(Isa::Visa, ir, list, false);
    let text = codec(Isa::Visa).print_text(&read).unwrap();
    assert!(
        text.contains("bfe (M1, 16) V0033(0,0)<1> 0x4:ud 0x8:ud V0032_d(0,0)<1;1,0>"),
        "{text}"
    );
    near_miss(Isa::Visa, &text, "bfe (M1, 16)", "bfe.sat (M1, 16)");
    near_miss(Isa::Visa, &text, "0x6:ud 0x8:ud", "0x6:d 0x8:ud");
}
