//! The vISA aoffimmi operand as a variable (`V0061(0,0)<0;1,0>`), which IGC writes for
//! offsets that are not constants: read, printed and encoded exactly as IGC does (its own
//! dumps and `.isa` bytes in `tests/cases/visa/aoffimmi_var/`), validated, lifted into the
//! IR as packed offsets in a register (`Offset::Packed`), emitted back, modelled by the
//! semantic check, and translated or refused as `mappings/rules.toml` says.

use std::path::{Path, PathBuf};

use texlate::check::{self, InitialFile, Offsets, Value, ValueOp};
use texlate::ir::{Item, Offset, Reg, RegFile, Scalar};
use texlate::isa::visa::{self, Aoffimmi};
use texlate::translate::{translate, Bindings, Options};
use texlate::{Form, Isa};

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/visa/aoffimmi_var")
}

/// IGC's kernels: (file stem, text).
fn igc_kernels() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(cases())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "visaasm").then(|| {
                (
                    p.file_stem().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
        })
        .collect();
    out.sort();
    out
}

fn temp(index: u32, sub: u32) -> Scalar {
    Scalar::Reg(Reg {
        file: RegFile::Temp,
        index,
        sub,
    })
}

fn tex(p: &texlate::Program) -> Vec<&texlate::ir::TexInstr> {
    p.tex_instrs().collect()
}

/// Every IGC kernel prints back byte-identically; each sampler instruction's offsets lift
/// to the variable IGC declared `type=uw` for them (byte 0: `(0,0)`), and the instructions
/// survive text → binary → text.
#[test]
fn igc_kernels_read_print_and_encode() {
    let kernels = igc_kernels();
    assert_eq!(kernels.len(), 4);
    let mut instructions = 0;
    for (name, text) in &kernels {
        let p = visa::parse_text(text).unwrap();
        assert_eq!(&visa::print_text(&p).unwrap(), text, "{name}");
        for t in tex(&p) {
            instructions += 1;
            let Offset::Packed(Scalar::Reg(r)) = t.offset else {
                panic!("{name}: {t}");
            };
            assert_eq!((r.file, r.sub), (RegFile::Temp, 0), "{name}: {t}");
            assert_eq!(visa::variable_type(&p, r.index), Some("uw"), "{name}");
        }
        // Binary and back: the same instructions.
        let bytes = visa::encode_binary(&p).unwrap();
        let back = visa::decode_binary(&bytes).unwrap();
        assert_eq!(
            visa::print_hex(&back).unwrap(),
            visa::print_hex(&p).unwrap(),
            "{name}"
        );
    }
    assert_eq!(instructions, 8);
}

/// IGC's own `.isa` bytes of each sampler instruction are the start of texlate's encoding
/// of the same text instruction (IGC 12504's writer cuts the last operands; the aoffimmi,
/// tag 0x00 · u32 variable · row · column · region 0x0121, comes before the cut), and the
/// container reader decodes the same aoffimmi.
#[test]
fn igc_isa_bytes_are_texlates_encoding() {
    let mut compared = 0;
    for (name, text) in igc_kernels() {
        let p = visa::parse_text(&text).unwrap();
        let ours: Vec<Vec<u8>> = visa::print_hex(&p)
            .unwrap()
            .lines()
            .map(|l| {
                l.split_whitespace()
                    .map(|b| u8::from_str_radix(b, 16).unwrap())
                    .collect()
            })
            .collect();
        let isa = std::fs::read(cases().join(format!("{name}.isa"))).unwrap();
        let c = visa::decode_isa_container(&isa).unwrap();
        let samplers: Vec<_> = c.kernels.iter().flat_map(|k| &k.samplers).collect();
        assert_eq!(samplers.len(), ours.len(), "{name}");
        let parsed = visa::parse_text_instructions(&text, visa::Checks::Strict)
            .unwrap()
            .1;
        for ((s, mine), (_, inst)) in samplers.iter().zip(&ours).zip(&parsed) {
            let igc = &isa[s.offset..s.offset + s.len];
            assert_eq!(&mine[..igc.len()], igc, "{name} at {:#x}", s.offset);
            assert!(matches!(s.inst.aoffimmi, Some(Aoffimmi::Var { .. })));
            assert_eq!(s.inst.aoffimmi, inst.aoffimmi, "{name}");
            compared += 1;
        }
    }
    assert_eq!(compared, 8);
}

const DECLS: &str = ".decl S0 v_type=S num_elts=1 v_name=S000
.decl T6 v_type=T num_elts=1 v_name=T006
.decl DST v_type=G type=f num_elts=64 align=hword
.decl U v_type=G type=f num_elts=16 align=hword
.decl V v_type=G type=f num_elts=16 align=hword
.decl IU v_type=G type=d num_elts=16 align=hword
.decl IV v_type=G type=d num_elts=16 align=hword
.decl OFFU v_type=G type=d num_elts=16 align=hword
.decl OFFV v_type=G type=d num_elts=16 align=hword
.decl OFF v_type=G type=uw num_elts=32 align=hword
.decl OFFD v_type=G type=ud num_elts=8 align=hword
.decl OFFF v_type=G type=f num_elts=8 align=hword
";

/// The forms hand-written for texlate's tests (GenX_IR assembles each:
/// `oracle_assembles_every_form`): an element past the first of the first and second GRF,
/// a `ud` variable, every opcode with an aoffimmi (3D_SAMPLE, 3D_LOAD, 3D_SAMPLE4 and
/// sample4_po's own aoffimmi beside its per-pixel offsets).
const FORMS: &str = "sample_lz.RGBA (M1, 16)  OFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0
sample_lz.RGBA (M1, 16)  OFF(0,3)<0;1,0> S0 T6 DST.0 U.0 V.0
sample_lz.RGBA (M1, 16)  OFF(1,2)<0;1,0> S0 T6 DST.0 U.0 V.0
sample_lz.RGBA (M1, 16)  OFFD(0,1)<0;1,0> S0 T6 DST.0 U.0 V.0
load_lz.RGBA (M1, 16)  OFF(0,5)<0;1,0> T6 DST.0 IU.0 IV.0
sample4.G (M1, 16) OFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0
sample4_po.R (M1, 16) OFF(0,1)<0;1,0> S0 T6 DST.0 U.0 V.0 OFFU.0 OFFV.0
";

fn kernel(body: &str) -> String {
    format!(".version 4.1\n.kernel \"k\"\n{DECLS}.function \"k_0\"\nk_0:\n{body}    ret (M1, 1)\n")
}

fn indented(lines: &str) -> String {
    lines.lines().map(|l| format!("    {l}\n")).collect()
}

/// Byte offsets: row × 32 + column × the variable's element size (`uw` 2, `ud` 4); an
/// undeclared `V<n>` is read as the seeds' UW. sample4_po keeps its aoffimmi beside the
/// per-pixel offsets. Each form prints, encodes and decodes back as written.
#[test]
fn forms_lift_print_and_encode() {
    let src = kernel(&indented(FORMS));
    let p = visa::parse_text(&src).unwrap();
    assert_eq!(visa::print_text(&p).unwrap(), src);
    let (off, offd) = (
        visa::general_variable(&p, "OFF").unwrap(),
        visa::general_variable(&p, "OFFD").unwrap(),
    );
    let offsets: Vec<Offset> = tex(&p).iter().map(|t| t.offset.clone()).collect();
    assert_eq!(
        offsets[..6],
        [
            Offset::Packed(temp(off, 0)),
            Offset::Packed(temp(off, 6)),
            Offset::Packed(temp(off, 36)),
            Offset::Packed(temp(offd, 4)),
            Offset::Packed(temp(off, 10)),
            Offset::Packed(temp(off, 0)),
        ]
    );
    assert!(matches!(offsets[6], Offset::Dynamic(ref v) if v.len() == 2));
    let bytes = visa::encode_binary(&p).unwrap();
    // Undeclared names (IGC's own `V<n>` spelling) decode and print back.
    let back = visa::decode_binary(&bytes).unwrap();
    let text = visa::print_text(&back).unwrap();
    let names = ["OFFD", "OFFU", "OFFV", "OFF", "DST", "IU", "IV", "U", "V"];
    let expected: Vec<String> = FORMS
        .lines()
        .map(|l| {
            let mut l = l.to_string();
            for name in names {
                let n = visa::general_variable(&p, name).unwrap();
                l = l.replace(&format!(" {name}("), &format!(" V{n:04}("));
                l = l.replace(&format!(" {name}."), &format!(" V{n:04}."));
            }
            l
        })
        .collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    // Without declarations a variable aoffimmi is a UW: (0,3) is byte 6.
    let t = tex(&back)[1].offset.clone();
    assert_eq!(t, Offset::Packed(temp(off, 6)));
    // The ud variable decodes as a UW when undeclared: (0,1) is byte 2 then.
    assert_eq!(tex(&back)[3].offset, Offset::Packed(temp(offd, 2)));
}

/// An IR edit: another register for the packed offsets names that variable (its row and
/// element from its type), immediates go back to an immediate, and a byte offset inside an
/// element is refused.
#[test]
fn edits_emit_what_the_ir_says() {
    let src = kernel(&indented(
        "sample_lz.RGBA (M1, 16)  OFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0\n",
    ));
    let p = visa::parse_text(&src).unwrap();
    let off = visa::general_variable(&p, "OFF").unwrap();
    let offd = visa::general_variable(&p, "OFFD").unwrap();
    let edit = |offset: Offset| {
        let mut q = p.clone();
        for item in &mut q.items {
            if let Item::Tex(t) = item {
                t.offset = offset.clone();
            }
        }
        visa::print_text(&q).map(|text| {
            text.lines()
                .find(|l| l.contains("sample_lz"))
                .unwrap()
                .trim()
                .split("  ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_string()
        })
    };
    assert_eq!(
        edit(Offset::Packed(temp(off, 34))).unwrap(),
        "OFF(1,1)<0;1,0>"
    );
    assert_eq!(
        edit(Offset::Packed(temp(offd, 8))).unwrap(),
        "OFFD(0,2)<0;1,0>"
    );
    assert_eq!(edit(Offset::Imm([1, -2, 3])).unwrap(), "0x1e3:uw");
    assert_eq!(edit(Offset::None).unwrap(), "0x0:uw");
    let e = edit(Offset::Packed(temp(off, 3))).unwrap_err().to_string();
    assert!(
        e.contains("aoffimmi-variable") && e.contains("element"),
        "{e}"
    );
    let e = edit(Offset::Packed(temp(offd, 0)));
    assert!(e.is_ok());
}

fn parse_error(line: &str) -> String {
    visa::parse_text(&kernel(&format!("    {line}\n")))
        .map(|_| "ACCEPTED".to_string())
        .unwrap_or_else(|e| e.to_string())
}

/// What texlate refuses, each located: a region other than `<0;1,0>` or a variable that is
/// not an integer of at most 32 bits (seeds: a scalar UW; GenX_IR assembles both), a source
/// modifier, a region value that does not exist, a state variable, and in binary a tag
/// other than immediate or plain general variable.
#[test]
fn refusals() {
    let cases = [
        "sample_lz.RGBA (M1, 16)  OFF(0,0)<1;1,0> S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  OFFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  (abs)OFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  -OFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  OFF(0,0) S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  OFF(0,0)<3;1,0> S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  T6(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0",
        "sample_lz.RGBA (M1, 16)  NOPE(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0",
    ];
    let out: Vec<String> = cases.iter().map(|c| parse_error(c)).collect();
    let expect = [
        "aoffimmi-variable",
        "aoffimmi-variable",
        "general variable",
        "general variable",
        "region",
        "region",
        "operand-class",
        "undeclared",
    ];
    for ((c, e), want) in cases.iter().zip(&out).zip(expect) {
        assert!(e.contains(want) && e.contains("line 17"), "{c}\n  -> {e}");
    }
    // Binary: `(abs)` (tag 0x08) and an indirect operand (tag 0x03) are refused at the tag;
    // a region nibble that is no region value at the region.
    let p = visa::parse_text(&kernel(&indented(
        "sample_lz.RGBA (M1, 16)  OFF(0,0)<0;1,0> S0 T6 DST.0 U.0 V.0\n",
    )))
    .unwrap();
    let bytes = visa::encode_binary(&p).unwrap();
    assert_eq!(
        bytes[7], 0x00,
        "general tag after opcode, sub-op, exec, pred, channels"
    );
    for (at, value, want) in [
        (7, 0x08, "byte offset 0x7"),
        (7, 0x03, "byte offset 0x7"),
        (14, 0x29, "byte offset 0xe"),
    ] {
        let mut b = bytes.clone();
        b[at] = value;
        let e = visa::decode_binary(&b).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
}

const BINDINGS: &str = r#"
[[binding]]
dim = "2d"
dxbc = { texture = "t0", sampler = "s0" }
visa = { texture = "T6", sampler = "S0" }
nvidia = { texture = "0x6e" }
"#;

/// vISA → vISA keeps the variable; to NVIDIA (whose `.AOFFI` register packs the fields the
/// other way round) the fields are repacked (`passes::repack_offsets`) and the semantic check
/// agrees; to DX (immediates only) the translation is refused with `mappings/rules.toml`'s
/// reason, naming the instruction.
#[test]
fn translations_follow_the_rule_table() {
    let src = kernel(&indented(
        "sample_lz.RGBA (M1, 16)  OFF(0,1)<0;1,0> S0 T6 DST.0 U.0 V.0\n",
    ));
    let mut o = Options::new(Isa::Visa, Isa::Visa);
    o.bindings = Some(("b.toml".into(), BINDINGS.into()));
    let t = translate(src.as_bytes(), &o).unwrap();
    assert_eq!(String::from_utf8(t.output).unwrap(), src);
    o.emit = Form::Binary;
    translate(src.as_bytes(), &o).unwrap();
    let mut o = Options::new(Isa::Visa, Isa::Nvidia);
    o.bindings = Some(("b.toml".into(), BINDINGS.into()));
    let t = translate(src.as_bytes(), &o).unwrap();
    let text = String::from_utf8(t.output.clone()).unwrap();
    assert!(
        text.contains("BFI") && text.contains("TEX.LZ.AOFFI"),
        "{text}"
    );
    let c = texlate::translate::check(src.as_bytes(), &t, &o, 5).unwrap();
    assert!(c.agrees(), "{c}");
    let mut o = Options::new(Isa::Visa, Isa::Dxbc);
    o.bindings = Some(("b.toml".into(), BINDINGS.into()));
    let e = translate(src.as_bytes(), &o).unwrap_err().to_string();
    assert!(
        e.contains("immediate offsets only") && e.contains("line 17"),
        "{e}"
    );
}

fn request(src: &str, values: &[(Reg, u32)]) -> check::Request {
    let mut init = InitialFile::random(3);
    init.values = values.iter().copied().collect();
    let b = Bindings::parse("b.toml", BINDINGS).unwrap();
    let e = check::run(Isa::Visa, src.as_bytes(), init, &b).unwrap();
    assert_eq!(e.requests.len(), 1);
    e.requests[0].request.clone()
}

/// The semantic model reads a variable aoffimmi as the lane-0 element of its declared type
/// and decodes U[11:8] V[7:4] R[3:0] (the same request as the immediate); an offset the
/// model cannot evaluate is compared field by field, whatever the ISA's packing.
#[test]
fn the_check_model_reads_the_variable() {
    let src = kernel(&indented(
        "sample_lz.RGBA (M1, 16)  OFF(0,1)<0;1,0> S0 T6 DST.0 U.0 V.0\n",
    ));
    let p = visa::parse_text(&src).unwrap();
    let off = visa::general_variable(&p, "OFF").unwrap();
    let r = Reg {
        file: RegFile::Temp,
        index: off,
        sub: 2,
    };
    // U = 1, V = -2 (R is not read by a 2D texture).
    let with_var = request(&src, &[(r, 0x1e3)]);
    assert_eq!(with_var.offsets, Offsets::Imm([1, -2, 0]));
    let imm = request(
        &kernel(&indented(
            "sample_lz.RGBA (M1, 16)  0x1e3:uw S0 T6 DST.0 U.0 V.0\n",
        )),
        &[],
    );
    assert_eq!(with_var, imm);
    // Only the UW is read: bits above 15 of the register do not count.
    assert_eq!(
        request(&src, &[(r, 0xabcd_01e3)]).offsets,
        Offsets::Imm([1, -2, 0])
    );
    // A value the model cannot evaluate (a sampled texel, read through a `uw` alias of the
    // result) is compared field by field: U bits 11:8, V 7:4 of the UW.
    let src = kernel(&indented(
        "sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 DST.0 U.0 V.0\n\
         sample_lz.RGBA (M1, 16)  DSTUW(0,0)<0;1,0> S0 T6 DST.256 U.0 V.0\n",
    ))
    .replace(
        ".function",
        ".decl DSTUW v_type=G type=uw num_elts=128 align=hword alias=<DST, 0>\n.function",
    );
    let mut init = InitialFile::random(3);
    init.values = Default::default();
    let b = Bindings::parse("b.toml", BINDINGS).unwrap();
    let e = check::run(Isa::Visa, src.as_bytes(), init, &b).unwrap();
    let texel = Value::Result {
        request: 0,
        channel: 0,
    };
    let uw = Value::apply(ValueOp::Field { lo: 0, width: 16 }, vec![texel]);
    let field = |lo| Value::apply(ValueOp::Field { lo, width: 4 }, vec![uw.clone()]);
    assert_eq!(
        e.requests[1].request.offsets,
        Offsets::Fields([field(8), field(4), Value::Bits(0)])
    );
}

/// GenX_IR (IGC 1.0.12504's vISA assembler) assembles every form texlate prints, on SKL and
/// TGLLP, and IGC's own kernels as texlate prints them back.
#[test]
#[ignore = "needs GenX_IR (shared/oracles/intel/setup.sh)"]
fn oracle_assembles_every_form() {
    #[path = "support/mod.rs"]
    mod support;
    let Some(script) = support::visa_assemble() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("texlate-aoffimmi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    // Each form alone, as texlate prints it.
    for (i, line) in FORMS.lines().enumerate() {
        let p = visa::parse_text(&kernel(&format!("    {line}\n"))).unwrap();
        let path = dir.join(format!("form{i}.visaasm"));
        std::fs::write(&path, visa::print_text(&p).unwrap()).unwrap();
        files.push(path);
    }
    for (name, text) in igc_kernels() {
        let p = visa::parse_text(&text).unwrap();
        let path = dir.join(format!("{name}.visaasm"));
        std::fs::write(&path, visa::print_text(&p).unwrap()).unwrap();
        files.push(path);
    }
    let mut accepted = 0;
    for platform in ["SKL", "TGLLP"] {
        for f in &files {
            let out = std::process::Command::new(&script)
                .arg(f)
                .arg(platform)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{} on {platform}: {text}",
                f.display()
            );
            accepted += 1;
        }
    }
    eprintln!(
        "GenX_IR accepted {accepted}/{} kernels ({} forms and {} IGC kernels, SKL and TGLLP)",
        2 * files.len(),
        FORMS.lines().count(),
        igc_kernels().len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
