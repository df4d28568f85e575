//! Snapshots of every DXBC texture instruction (IR, listing text, hex tokens) and of every
//! error, from small fixtures written for texlate (tests/cases/dxbc).

mod dxbc_common;

use dxbc_common::support::snap;

use dxbc_common::{container_of, fix_checksum};
use texlate::ir::display_program;
use texlate::isa::dxbc;

const EVERY_OP: &str = include_str!("cases/dxbc/every_op.asm");

#[test]
fn every_op_ir() {
    let p = dxbc::parse_text(EVERY_OP).unwrap();
    let ir: Vec<String> = p.tex_instrs().map(|t| t.to_string()).collect();
    assert_eq!(ir.len(), 40);
    snap("dxbc_every_op_ir", ir.join("\n"));
}

#[test]
fn every_op_text_and_hex() {
    let p = dxbc::parse_text(EVERY_OP).unwrap();
    assert_eq!(dxbc::print_text(&p).unwrap(), EVERY_OP);
    let hex = dxbc::print_hex(&p).unwrap();
    snap("dxbc_every_op_hex", hex.clone());
    // The hex decodes to the same listing (without the comment line).
    let words: Vec<&str> = hex.split_whitespace().collect();
    let stream = dxbc::encode_tokens(&p).unwrap();
    let decoded = dxbc::decode_binary(&stream).unwrap();
    let text = dxbc::print_text(&decoded).unwrap();
    assert_eq!(text, EVERY_OP.split_once('\n').unwrap().1);
    let from_hex = dxbc::print_text(&dxbc::decode_hex(&words).unwrap()).unwrap();
    snap("dxbc_every_op_from_hex", from_hex);
    snap("dxbc_every_op_program", display_program(&decoded));
}

fn error(input: &str) -> String {
    match dxbc::parse_text(input) {
        Ok(p) => match dxbc::encode_binary(&p) {
            Ok(_) => panic!("`{input}` was accepted"),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

#[test]
fn text_errors() {
    let cases = [
        "ps_5_0\nfoo r0.x, r1.x",
        "ps_5_0\nsample r0.xyzw, v1.xy, t0.xyzw, s0",
        "ps_5_0\nsample_indexable(texture9d) r0.xyzw, v1.xyxx, t0.xyzw, s0",
        "ps_5_0\nsample_aoffimmi(9,0,0) r0.xyzw, v1.xyxx, t0.xyzw, s0",
        "ps_5_0\nmov r0.x, l(1, 2)",
        "ps_5_0\nmov r0.x, l(abc)",
        "ps_5_0\nmov r0.x r1.x",
        "ps_5_0\nmov r0.x, q1.x",
        "ps_5_0\nadd_nz r0.x, r1.x, r2.x",
        "ps_5_0\nresinfo_indexable(texture2d)(float,float,float,float)_uint r0.xyzw, l(0",
        "ps_5_0\ndcl_sampler s0, mode_fancy",
        "ps_5_0\ndcl_resource_texture2d (float,float,float,banana) t0",
    ];
    let out: Vec<String> = cases
        .iter()
        .map(|c| format!("{c:?}\n  -> {}", error(c)))
        .collect();
    snap("dxbc_text_errors", out.join("\n"));
}

/// Values that do not fit their token field, and operands with more indices than an
/// operand token holds: errors, never a panic or a silently cut field.
#[test]
fn text_errors_field_widths() {
    let cases = [
        "hs_5_0\ndcl_inputprimitive patch4294967295",
        "hs_5_0\ndcl_inputprimitive patch33",
        "hs_5_0\ndcl_input_control_point_count 100",
        "ps_5_0\ndcl_resource_texture2dms(200) (float,float,float,float) t0",
        "ps_5_0\ndcl_constantbuffer cb0[1][2][3][4][5], immediateIndexed",
        "ps_5_1\ndcl_constantbuffer CB0[0:0][1][2][3][4][5][6][7][8][9][10][11], immediateIndexed",
        "ps_5_1\ndcl_constantbuffer CB0[0:0][r0.x], immediateIndexed",
        "ps_5_1\ndcl_input CB0[0:1][2]",
    ];
    let out: Vec<String> = cases
        .iter()
        .map(|c| format!("{c:?}\n  -> {}", error(c)))
        .collect();
    snap("dxbc_text_errors_field_widths", out.join("\n"));
    // The largest values that fit still round-trip through the binary.
    for src in [
        "hs_5_0\ndcl_inputprimitive patch32\n",
        "hs_5_0\ndcl_input_control_point_count 63\n",
        "ps_5_0\ndcl_resource_texture2dms(127) (float,float,float,float) t0\n",
        "ps_5_1\ndcl_constantbuffer CB0[0:0][16], immediateIndexed, space=0\n",
    ] {
        let bytes = dxbc::encode_binary(&dxbc::parse_text(src).unwrap()).unwrap();
        let back = dxbc::print_text(&dxbc::decode_binary(&bytes).unwrap()).unwrap();
        assert_eq!(back, src);
    }
}

fn decode_error(bytes: &[u8]) -> String {
    match dxbc::decode_binary(bytes) {
        Ok(_) => "ACCEPTED".to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn binary_errors() {
    let p = dxbc::parse_text(EVERY_OP).unwrap();
    let stream = dxbc::encode_tokens(&p).unwrap();
    let mut cases = Vec::new();
    // Bare token streams.
    cases.push(("empty", decode_error(&[])));
    cases.push(("odd length", decode_error(&stream[..stream.len() - 1])));
    let mut bad_len = stream.clone();
    bad_len[4] = bad_len[4].wrapping_add(1);
    cases.push(("length token", decode_error(&bad_len)));
    let mut bad_version = stream.clone();
    bad_version[0] = 0x90;
    cases.push(("version", decode_error(&bad_version)));
    let mut zero_len = stream.clone();
    zero_len[8 + 3] = 0; // first instruction's length field
    cases.push(("zero instruction length", decode_error(&zero_len)));
    let mut long = stream.clone();
    long[8 + 3] = 0x7f;
    cases.push(("dcl_sampler swallowing the stream", decode_error(&long)));
    // An undefined index representation (7, operand token bits 22-24) in the first
    // operand of dcl_sampler.
    let mut repr = stream.clone();
    repr[12 + 2] |= 0xc0;
    repr[12 + 3] |= 0x01;
    cases.push(("index representation", decode_error(&repr)));
    // Containers.
    let container = container_of(&stream);
    cases.push((
        "container ok",
        format!(
            "{} items",
            dxbc::decode_binary(&container).unwrap().items.len()
        ),
    ));
    let mut flipped = container.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    cases.push(("checksum", decode_error(&flipped)));
    cases.push(("short header", decode_error(b"DXBC\0\0\0\0")));
    let mut count = container.clone();
    count[0x1c] = 0xff;
    count[0x1d] = 0xff;
    fix_checksum(&mut count);
    cases.push(("chunk count", decode_error(&count)));
    let mut size = container.clone();
    size[0x18] ^= 4;
    fix_checksum(&mut size);
    cases.push(("total size", decode_error(&size)));
    let mut chunk = container.clone();
    let at = u32::from_le_bytes(chunk[0x20..0x24].try_into().unwrap()) as usize + 4;
    chunk[at + 3] = 0x40;
    fix_checksum(&mut chunk);
    cases.push(("chunk size", decode_error(&chunk)));
    let hex = dxbc::decode_hex(&["zz"]).unwrap_err().to_string();
    cases.push(("hex", hex));
    assert!(cases
        .iter()
        .all(|(n, e)| *n == "container ok" || e != "ACCEPTED"));
    let out: Vec<String> = cases.iter().map(|(n, e)| format!("{n}: {e}")).collect();
    snap("dxbc_binary_errors", out.join("\n"));
}

#[test]
fn edit_errors() {
    use texlate::ir::{Item, Offset, Reg, RegFile, Scalar};
    let mut p = dxbc::parse_text(EVERY_OP).unwrap();
    let mut out = Vec::new();
    let mut edit =
        |f: &dyn Fn(&mut texlate::ir::TexInstr), what: &str, p: &mut texlate::Program| {
            let mut q = p.clone();
            if let Some(Item::Tex(t)) = q.items.iter_mut().find(|i| matches!(i, Item::Tex(_))) {
                f(t);
            }
            out.push(format!("{what}: {}", dxbc::encode_binary(&q).unwrap_err()));
        };
    let r = |file, index, sub| Scalar::Reg(Reg { file, index, sub });
    edit(
        &|t| t.offset = Offset::Imm([8, 0, 0]),
        "offset out of range",
        &mut p,
    );
    edit(
        &|t| t.coord = vec![r(RegFile::Temp, 0, 0), r(RegFile::Temp, 1, 1)],
        "coordinates from two registers",
        &mut p,
    );
    edit(
        &|t| {
            t.dst = [
                Some(r(RegFile::Temp, 0, 0)),
                Some(r(RegFile::Temp, 1, 1)),
                None,
                None,
            ]
        },
        "results to two registers",
        &mut p,
    );
    edit(&|t| t.dst = [None; 4], "no result", &mut p);
    edit(
        &|t| {
            t.lod = texlate::ir::Lod::Level(r(RegFile::Temp, 0, 3));
            t.depth_ref = Some(r(RegFile::Temp, 0, 2));
        },
        "depth compare at an explicit level (no DX opcode)",
        &mut p,
    );
    edit(
        &|t| t.coord = vec![r(RegFile::Other(8), 0, 0), r(RegFile::Other(8), 0, 1)],
        "constant-buffer coordinates",
        &mut p,
    );
    // Built from the IR alone: a change of LOD kind (another opcode), and an instruction
    // that no codec decoded, both print what the IR says.
    let mut built = p.clone();
    if let Some(Item::Tex(t)) = built.items.iter_mut().find(|i| matches!(i, Item::Tex(_))) {
        t.lod = texlate::ir::Lod::Zero;
    }
    let mut synthetic = p.clone();
    if let Some(Item::Tex(t)) = synthetic
        .items
        .iter_mut()
        .find(|i| matches!(i, Item::Tex(_)))
    {
        t.origin = texlate::ir::Origin::SYNTHETIC;
    }
    for (what, q) in [("lod kind change", built), ("synthetic", synthetic)] {
        let text = dxbc::print_text(&q).unwrap();
        let line = text.lines().find(|l| l.starts_with("sample")).unwrap();
        out.push(format!("{what}: built `{line}`"));
        dxbc::encode_binary(&q).unwrap();
    }
    snap("dxbc_edit_errors", out.join("\n"));
}

/// A listing in Wine / vkd3d-shader 1.6 spelling (written for texlate): it assembles, and
/// the assembled tokens print back in fxc spelling.
const WINE_SPELLING: &str = include_str!("cases/dxbc/wine_spelling.txt");

#[test]
fn wine_spelling_reads_as_fxc() {
    let p = dxbc::parse_text(WINE_SPELLING).unwrap();
    let stream = dxbc::encode_binary(&p).unwrap();
    let decoded = dxbc::decode_binary(&stream).unwrap();
    let text = dxbc::print_text(&decoded).unwrap();
    snap(
        "dxbc_wine_spelling",
        format!("{text}\n{}", dxbc::print_hex(&decoded).unwrap()),
    );
}
