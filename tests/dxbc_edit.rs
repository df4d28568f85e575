//! Editing the IR of decoded DXBC blobs and re-encoding them, checked by texlate's own
//! decoder always, and by Wine's D3DDisassemble and vkd3d-compiler in the opt-in oracle
//! tests (`cargo test --test dxbc_edit -- --ignored`, or scripts/oracle-dxbc.sh):
//! - one hand-made edit of one `sample` (offset, coordinate swizzle, result placement);
//! - corpus-wide: every texture instruction of every corpus blob gets every edit of
//!   [`Kind`] that applies to it and that the lowerer accepts (the rest is counted as
//!   skipped, with the reason).

mod dxbc_common;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use dxbc_common::{blobs, corpus_dir};
use texlate::error::Error;
use texlate::ir::{Dim, Dimension, Item, Offset, Origin, Program, Reg, RegFile, ResRef, Scalar};
use texlate::ir::{TexInstr, TexOp};
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
        vec![reg(RegFile::Temp, 0, 0), reg(RegFile::Temp, 0, 1)]
    );
    tex.offset = Offset::Imm([1, -2, 0]);
    tex.coord = vec![reg(RegFile::Temp, 0, 1), reg(RegFile::Temp, 0, 0)];
    // Red to o0.w, green to o0.y; blue and alpha no longer written.
    tex.dst = [
        Some(reg(RegFile::Output, 0, 3)),
        Some(reg(RegFile::Output, 0, 1)),
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

/// The IR edits applied to every texture instruction of the corpus, in this order, each on
/// top of the ones before it that the lowerer accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Another immediate offset in [-8, 7] on each spatial lane (1D/2D/3D resources, ops
    /// that take `_aoffimmi`: sample*, ld*, gather4*).
    Offset,
    /// The written components of the destination register rotated among the written
    /// texture channels; with one channel, the next texture channel read into it instead.
    Result,
    /// The first two coordinate lanes swapped (the array index counts as a lane); one
    /// register lane reads the next component instead.
    Coord,
    /// Another `t#`/`u#`/`g#` declared with the same declaration (dimension, return types,
    /// stride).
    Texture,
    /// Another `s#` declared with the same mode.
    Sampler,
    /// The next gathered channel (SM5 `gather4*` only: SM4.1 gathers red).
    GatherChannel,
}

const KINDS: [Kind; 6] = [
    Kind::Offset,
    Kind::Result,
    Kind::Coord,
    Kind::Texture,
    Kind::Sampler,
    Kind::GatherChannel,
];

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Offset => "immediate offset",
            Kind::Result => "result channels",
            Kind::Coord => "coordinate lanes",
            Kind::Texture => "texture binding",
            Kind::Sampler => "sampler binding",
            Kind::GatherChannel => "gather channel",
        })
    }
}

/// A declared register (`t3`, `u0`, `s1`) and its declaration line with the register
/// replaced by `#`: registers with the same shape are interchangeable.
struct Declared {
    reg: String,
    shape: String,
}

/// `t#`, `u#`, `g#` (group-shared memory) or `s#`.
fn is_binding(token: &str) -> bool {
    let mut chars = token.chars();
    matches!(chars.next(), Some('t' | 'u' | 'g' | 's'))
        && !chars.as_str().is_empty()
        && chars.all(|c| c.is_ascii_digit())
}

/// The tokens of a listing line, each cut before its swizzle or index (`t0.xyzw` → `t0`).
fn tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split([' ', ','])
        .map(|t| t.split(['.', '[']).next().unwrap_or(""))
}

/// The `dcl_*` lines of a printed listing that declare a `t#`, `u#`, `g#` or `s#`.
fn declarations(listing: &str) -> Vec<Declared> {
    listing
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("dcl_"))
        .filter_map(|l| {
            let reg = tokens(l).find(|t| is_binding(t))?;
            let shape = l
                .split(' ')
                .map(|t| {
                    if t.trim_end_matches(',') == reg {
                        "#"
                    } else {
                        t
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            Some(Declared {
                reg: reg.to_string(),
                shape,
            })
        })
        .collect()
}

/// What an edit needs to know besides the instruction.
struct Context<'a> {
    /// texlate's print of the unedited instruction.
    line: &'a str,
    decls: &'a [Declared],
    /// Shader model 5.x (gather channel selection).
    sm5: bool,
}

/// Another binding declared like `current` (`t`/`u`/`g` for textures, `s` for samplers),
/// the next one after it in declaration order, wrapping around.
fn rebinding(current: &ResRef, letters: &[char], cx: &Context) -> Result<ResRef, String> {
    let ResRef::Binding(id) = current else {
        return Err("an SM5.1 range or bindless handle".into());
    };
    let reg = letters
        .iter()
        .map(|l| format!("{l}{id}"))
        .find(|r| tokens(cx.line).any(|t| t == r))
        .ok_or("the register is not in the printed instruction")?;
    let pos = cx
        .decls
        .iter()
        .position(|d| d.reg == reg)
        .ok_or("the register is not declared")?;
    let shape = &cx.decls[pos].shape;
    let after = cx.decls[pos + 1..].iter().chain(&cx.decls[..pos]);
    let other = after
        .filter(|d| d.shape == *shape && d.reg[..1] == reg[..1])
        .find_map(|d| d.reg[1..].parse().ok())
        .ok_or("no other register with the same declaration")?;
    Ok(ResRef::Binding(other))
}

/// `t` with the edit `kind` applied, or why it does not apply.
fn edit(kind: Kind, t: &TexInstr, cx: &Context) -> Result<TexInstr, String> {
    let mut t = t.clone();
    match kind {
        Kind::Offset => {
            if !matches!(t.op, TexOp::Sample | TexOp::Fetch | TexOp::Gather { .. }) {
                return Err("the operation takes no offset".into());
            }
            let old = match t.offset {
                Offset::None => [0; 3],
                Offset::Imm(o) => o,
                _ => return Err("per-pixel offsets (gather4_po)".into()),
            };
            let lanes = match t.dim {
                Dimension::Known { dim: Dim::D1, .. } => 1,
                Dimension::Known { dim: Dim::D2, .. } => 2,
                Dimension::Known { dim: Dim::D3, .. } => 3,
                Dimension::Known { dim: Dim::Cube, .. } => return Err("a cube map".into()),
                Dimension::Known { .. } => return Err("a buffer".into()),
                Dimension::Deferred => return Err("no dimension".into()),
            };
            let mut new = old;
            for (lane, v) in new.iter_mut().enumerate().take(lanes) {
                // A shift of 3, 5 or 7 modulo 16: always another value in [-8, 7].
                *v = ((i32::from(*v) + 8 + 3 + 2 * lane as i32) % 16 - 8) as i8;
            }
            t.offset = Offset::Imm(new);
        }
        Kind::Result => {
            let written: Vec<(usize, Reg)> = t
                .dst
                .iter()
                .enumerate()
                .filter_map(|(ch, d)| match d {
                    Some(Scalar::Reg(r)) => Some(Ok((ch, *r))),
                    Some(_) => Some(Err("a result that is not a register")),
                    None => None,
                })
                .collect::<Result<_, _>>()?;
            match written.as_slice() {
                [] => return Err("no result".into()),
                [(ch, r)] => {
                    t.dst[*ch] = None;
                    t.dst[(ch + 1) % 4] = Some(Scalar::Reg(*r));
                }
                _ => {
                    for (i, (ch, r)) in written.iter().enumerate() {
                        let next = written[(i + 1) % written.len()].1;
                        t.dst[*ch] = Some(Scalar::Reg(Reg {
                            sub: next.sub,
                            ..*r
                        }));
                    }
                }
            }
        }
        Kind::Coord => {
            let old = t.clone();
            match (t.coord.as_mut_slice(), t.array_index.as_mut()) {
                ([a, b, ..], _) | ([a], Some(b)) => std::mem::swap(a, b),
                ([Scalar::Reg(r)], None) => r.sub = (r.sub + 1) % 4,
                ([_], None) => return Err("one immediate coordinate".into()),
                ([], _) => return Err("no coordinates".into()),
            }
            if t == old {
                return Err("the swapped lanes are equal".into());
            }
        }
        Kind::Texture => t.texture = rebinding(&t.texture, &['t', 'u', 'g'], cx)?,
        Kind::Sampler => {
            let s = t.sampler.as_ref().ok_or("no sampler")?;
            t.sampler = Some(rebinding(s, &['s'], cx)?);
        }
        Kind::GatherChannel => match &mut t.op {
            TexOp::Gather { component } if cx.sm5 => *component = (*component + 1) % 4,
            TexOp::Gather { .. } => return Err("SM4.1 gathers red only".into()),
            _ => return Err("not a gather".into()),
        },
    }
    Ok(t)
}

/// A corpus blob with its texture instructions edited.
struct Edited {
    name: String,
    original: Vec<u8>,
    bytes: Vec<u8>,
    program: Program,
    /// Shader model 5.1 (resource ranges).
    sm51: bool,
    /// Per edited texture instruction: its position among the texture instructions and
    /// texlate's print of it.
    lines: Vec<(usize, String)>,
}

/// What one corpus run did.
#[derive(Default)]
struct Tally {
    blobs: usize,
    tex: usize,
    edited: usize,
    per_kind: BTreeMap<Kind, usize>,
    /// Edits not made, by kind and reason (not applicable, or the lowerer's `Unsupported`).
    skipped: BTreeMap<(Kind, String), usize>,
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} blobs, {} texture instructions, {} edited",
            self.blobs, self.tex, self.edited
        )?;
        for (k, n) in &self.per_kind {
            writeln!(f, "  edited  {k}: {n}")?;
        }
        for ((k, why), n) in &self.skipped {
            writeln!(f, "  skipped {k}: {n} ({why})")?;
        }
        Ok(())
    }
}

fn tex(item: &Item) -> Option<&TexInstr> {
    match item {
        Item::Tex(t) => Some(t),
        _ => None,
    }
}

/// The lines of a listing's texture instructions, in order, found by texlate's parser: a
/// listing parses to one item per line, except an immediate constant buffer, whose item
/// holds all of its lines, and an ALU sequence read as one `Item::Alu`.
fn tex_lines(listing: &str) -> Result<Vec<String>, Error> {
    let parsed = dxbc::parse_text(listing)?;
    let lines: Vec<&str> = listing.lines().collect();
    let mut at = 0;
    let mut out = Vec::new();
    for item in &parsed.items {
        match item {
            Item::Tex(_) => out.push(lines[at].trim().to_string()),
            Item::Opaque(o) => at += o.text.as_deref().map_or(1, |t| t.split('\n').count()) - 1,
            // An ALU instruction read back: one line per instruction it was read from.
            Item::Alu(a) => at += a.source(texlate::Isa::Dxbc).map_or(1, |s| s.len()) - 1,
            other => panic!("a listing parses to no {other:?}"),
        }
        at += 1;
    }
    assert_eq!(at, lines.len());
    Ok(out)
}

/// Applies every edit of [`KINDS`] to every texture instruction of the blob. An edit the
/// lowerer refuses with `Unsupported` is undone and counted; any other error fails.
fn edit_blob(name: &str, bytes: &[u8], tally: &mut Tally) -> Option<Edited> {
    tally.blobs += 1;
    let mut program = dxbc::decode_binary(bytes).unwrap();
    let listing = dxbc::print_text(&program).unwrap();
    let printed = tex_lines(&listing).unwrap();
    let decls = declarations(&listing);
    let version = program
        .state
        .get::<dxbc::DxbcModule>()
        .and_then(|m| m.version)
        .unwrap_or(0);
    let at: Vec<usize> = (0..program.items.len())
        .filter(|&i| tex(&program.items[i]).is_some())
        .collect();
    assert_eq!(at.len(), printed.len(), "{name}");
    // Lowering an instruction reads only the declarations, which come before the first
    // texture instruction: each edit is tried in a program of those and the instruction.
    let mut probe = program.clone();
    probe.items.truncate(at.first().copied().unwrap_or(0));
    if let Some(m) = probe.state.get_mut::<dxbc::DxbcModule>() {
        m.container = None;
    }
    let mut edited = Vec::new();
    for (k, &i) in at.iter().enumerate() {
        let original = tex(&program.items[i]).cloned().unwrap();
        tally.tex += 1;
        let cx = Context {
            line: &printed[k],
            decls: &decls,
            sm5: version & 0xf0 >= 0x50,
        };
        let mut current = original.clone();
        for kind in KINDS {
            let next = match edit(kind, &current, &cx) {
                Ok(next) => next,
                Err(why) => {
                    *tally.skipped.entry((kind, why)).or_default() += 1;
                    continue;
                }
            };
            probe.items.push(Item::Tex(Box::new(next.clone())));
            let lowered = dxbc::encode_binary(&probe);
            probe.items.pop();
            match lowered {
                Ok(_) => {
                    *tally.per_kind.entry(kind).or_default() += 1;
                    current = next;
                }
                Err(Error::Unsupported(u)) => {
                    let why = format!("lowering: {}", u.why);
                    *tally.skipped.entry((kind, why)).or_default() += 1;
                }
                Err(e) => panic!("{name}: {kind} edit of `{}`: {e}", printed[k]),
            }
        }
        if current != original {
            program.items[i] = Item::Tex(Box::new(current));
            edited.push(k);
        }
    }
    if edited.is_empty() {
        return None;
    }
    tally.edited += edited.len();
    let out = dxbc::encode_binary(&program).unwrap();
    let printed = tex_lines(&dxbc::print_text(&program).unwrap()).unwrap();
    let lines = edited.iter().map(|&k| (k, printed[k].clone())).collect();
    Some(Edited {
        name: name.to_string(),
        original: bytes.to_vec(),
        bytes: out,
        program,
        sm51: version & 0xff == 0x51,
        lines,
    })
}

/// Every corpus blob with its edits, and the counts.
fn edit_corpus(corpus: &Path) -> (Vec<Edited>, Tally) {
    let mut tally = Tally::default();
    let edited = blobs(corpus)
        .iter()
        .filter_map(|(name, bytes)| edit_blob(name, bytes, &mut tally))
        .collect();
    (edited, tally)
}

/// The IR fields of a texture instruction, without the tokens it was decoded from and where
/// (an edit may change the instruction's length, so the offsets of later ones).
fn ir_fields(t: &TexInstr) -> TexInstr {
    TexInstr {
        origin: Origin::SYNTHETIC,
        span: Default::default(),
        ..t.clone()
    }
}

#[test]
fn every_corpus_edit_redecodes_to_the_edited_ir() {
    let Some(dir) = corpus_dir() else { return };
    let (edited, tally) = edit_corpus(&dir);
    eprintln!("{tally}");
    for e in &edited {
        let again = dxbc::decode_binary(&e.bytes).unwrap();
        let ours: Vec<TexInstr> = e
            .program
            .items
            .iter()
            .filter_map(tex)
            .map(ir_fields)
            .collect();
        let back: Vec<TexInstr> = again.items.iter().filter_map(tex).map(ir_fields).collect();
        assert_eq!(ours.len(), back.len(), "{}", e.name);
        for (k, text) in &e.lines {
            assert_eq!(
                back[*k], ours[*k],
                "{}: `{text}` re-decodes to other IR",
                e.name
            );
        }
        assert_eq!(
            dxbc::print_text(&again).unwrap(),
            dxbc::print_text(&e.program).unwrap(),
            "{}",
            e.name
        );
        assert_eq!(dxbc::encode_binary(&again).unwrap(), e.bytes, "{}", e.name);
    }
    assert_eq!(tally.blobs, 495);
    assert!(
        tally.per_kind.len() == KINDS.len(),
        "some kind of edit was never made:\n{tally}"
    );
}

/// Runs an oracle command once on all `files`; its exit status is not checked (a rejected
/// file only sets it), its per-file lines are.
fn run_oracle(name: &str, args: &[&str], files: &[PathBuf]) -> String {
    let out = Command::new(oracle(name))
        .args(args)
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("{name}: {e} (run shared/oracles/dxbc/setup.sh)"));
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 4)),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// One line of Wine's listing read by texlate's parser and printed as fxc text.
fn read_back(line: &str) -> Result<String, Error> {
    let text = dxbc::print_text(&dxbc::parse_text(line)?)?;
    Ok(text.trim().to_string())
}

/// Wine's line in the spelling texlate's parser reads where vkd3d-shader 1.6 has its own:
/// the precise marker (`ld_raw [precise(xy)]_indexable`: texlate's text does not carry
/// precise bits, docs/dxbc.md) is dropped, and in SM5.1 the register ranges `t0[r0.y + 2]
/// {nonuniform}` are written as fxc does, `T0[r0.y + 2]`.
fn fxc_spelling(line: &str, sm51: bool) -> String {
    let mut line = line.to_string();
    if let (Some(a), Some(b)) = (line.find(" [precise"), line.find(']')) {
        line.replace_range(a..=b, "");
    }
    if !sm51 {
        return line;
    }
    let line = line.replace(" {nonuniform}", "");
    let mut out = String::with_capacity(line.len());
    let mut rest = line.as_str();
    while !rest.is_empty() {
        let prefix = ["cb", "t", "u", "s"]
            .into_iter()
            .find(|p| rest.starts_with(p) && is_range(&rest[p.len()..]));
        let starts = out.is_empty() || out.ends_with([' ', ',', '(']);
        let take = match prefix {
            Some(p) if starts => {
                out.push_str(&p.to_ascii_uppercase());
                p.len()
            }
            _ => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                c.len_utf8()
            }
        };
        rest = &rest[take..];
    }
    out
}

/// `<digits>[`: the rest of a range register after its prefix.
fn is_range(rest: &str) -> bool {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with('[')
}

/// The instructions of Wine's listing, one per program item: the lines after the profile
/// line, an immediate constant buffer's lines joined until its braces balance.
fn wine_instructions(listing: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = 0i64;
    for line in listing.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        match out.last_mut() {
            Some(last) if open > 0 => {
                last.push('\n');
                last.push_str(line);
            }
            _ => out.push(line.trim().to_string()),
        }
        open += line.matches('{').count() as i64 - line.matches('}').count() as i64;
    }
    out
}

/// Equal up to vkd3d-shader 1.6's spelling (shared/oracles/README.md, DXBC): a four-letter
/// swizzle of one component is written as that component (`v1.xxxx` = `v1.x`), and a
/// sampler's select component (the gathered channel, `s0.y`) is not written at all.
fn same_up_to_wine_spelling(a: &str, b: &str) -> bool {
    fn fold(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(dot) = rest.find('.') {
            let (head, tail) = rest.split_at(dot + 1);
            let swz: Vec<char> = tail.chars().take(5).collect();
            let ends = |i: usize| swz.get(i).is_none_or(|c| !c.is_ascii_alphanumeric());
            let component = swz.first().is_some_and(|c| "xyzw".contains(*c));
            let register = head[..dot].rsplit([' ', ',']).next().unwrap_or("");
            if component && ends(1) && register.starts_with('s') && is_binding(register) {
                out.push_str(&head[..dot]);
                rest = &tail[1..];
                continue;
            }
            out.push_str(head);
            let repeated = component && swz.len() >= 4 && swz[1..4].iter().all(|c| *c == swz[0]);
            rest = if repeated && ends(4) {
                &tail[3..]
            } else {
                tail
            };
        }
        out.push_str(rest);
        out
    }
    fold(a) == fold(b)
}

/// The `<file>\t<verdict>` lines of an oracle, by file.
fn verdicts(report: &str) -> BTreeMap<PathBuf, String> {
    report
        .lines()
        .filter_map(|l| {
            let mut fields = l.split('\t');
            Some((PathBuf::from(fields.next()?), fields.next()?.to_string()))
        })
        .collect()
}

/// Every corpus edit, checked in one batch per oracle: Wine's D3DDisassemble prints each
/// edited instruction as texlate does (its line, read back by texlate's parser, prints as
/// texlate's line), and vkd3d-compiler accepts every edited blob whose original it accepts.
#[test]
#[ignore = "needs the DXBC oracles (shared/oracles/dxbc/setup.sh)"]
fn oracles_accept_every_corpus_edit() {
    let Some(dir) = corpus_dir() else { return };
    let (edited, tally) = edit_corpus(&dir);
    let tmp = std::env::temp_dir().join(format!("texlate-dxbc-edits-{}", std::process::id()));
    let folder = |name: &str| {
        let d = tmp.join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let (originals, edits, wine) = (folder("original"), folder("edited"), folder("wine"));
    let mut original_files = Vec::new();
    let mut edited_files = Vec::new();
    for e in &edited {
        let file = format!("{}.dxbc", e.name);
        std::fs::write(originals.join(&file), &e.original).unwrap();
        std::fs::write(edits.join(&file), &e.bytes).unwrap();
        original_files.push(originals.join(&file));
        edited_files.push(edits.join(&file));
    }
    let mut failures = Vec::new();

    // (a) Wine's D3DDisassemble.
    let listed = verdicts(&run_oracle(
        "dxbc-disasm",
        &["-o", wine.to_str().unwrap()],
        &edited_files,
    ));
    let mut wine_matched = 0;
    for (e, file) in edited.iter().zip(&edited_files) {
        if listed.get(file).map(String::as_str) != Some("OK") {
            failures.push(format!("{}: D3DDisassemble failed", e.name));
            continue;
        }
        let text = std::fs::read_to_string(wine.join(format!("{}.dxbc.txt", e.name))).unwrap();
        let wine_lines = wine_instructions(&text);
        if wine_lines.len() != e.program.items.len() {
            failures.push(format!(
                "{}: Wine's listing has {} instructions, texlate's program {} items",
                e.name,
                wine_lines.len(),
                e.program.items.len()
            ));
            continue;
        }
        let at: Vec<usize> = (0..e.program.items.len())
            .filter(|&i| tex(&e.program.items[i]).is_some())
            .collect();
        for (k, ours) in &e.lines {
            let line = &wine_lines[at[*k]];
            match read_back(&fxc_spelling(line, e.sm51)) {
                Ok(theirs) if same_up_to_wine_spelling(&theirs, ours) => wine_matched += 1,
                Ok(theirs) => failures.push(format!(
                    "{}: Wine `{line}` reads as `{theirs}`, texlate printed `{ours}`",
                    e.name
                )),
                Err(err) => failures.push(format!("{}: Wine `{line}`: {err}", e.name)),
            }
        }
    }

    // (b) vkd3d-compiler, originals and edits in one call.
    let all: Vec<PathBuf> = original_files
        .iter()
        .chain(&edited_files)
        .cloned()
        .collect();
    let spirv = verdicts(&run_oracle("dxbc-to-spirv", &[], &all));
    let (mut accepted, mut expected, mut already_rejected) = (0, 0, 0);
    for ((e, before), after) in edited.iter().zip(&original_files).zip(&edited_files) {
        let before = spirv.get(before).map_or("missing", String::as_str);
        let after = spirv.get(after).map_or("missing", String::as_str);
        if before != "ACCEPTED" {
            already_rejected += 1;
        } else {
            expected += 1;
            if after == "ACCEPTED" {
                accepted += 1;
            } else {
                failures.push(format!("{}: vkd3d-compiler: {after}", e.name));
            }
        }
    }

    eprintln!("{tally}");
    eprintln!(
        "{} edited blobs; Wine D3DDisassemble matched {wine_matched}/{} edited instructions; \
         vkd3d-compiler accepted {accepted}/{expected} edited blobs \
         ({already_rejected} more whose original it already rejects)",
        edited.len(),
        tally.edited
    );
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}
