//! vISA corpus round trips: IGC 1.0.12504's own dumps (shared/corpus/intel) parse and print
//! back byte-identically, go through the binary encoding and back, and the instruction walk
//! of IGC's `.isa` files finds each kernel's sampler instructions with the fields texlate
//! encodes, wherever IGC's truncating writer kept them.

use std::fs;
use std::path::{Path, PathBuf};

use texlate::error::Error;
use texlate::ir::Item;
use texlate::isa::visa::{self, Checks, Raw, VisaInst};

mod support;

fn corpus() -> Option<PathBuf> {
    support::corpus("intel")
}

/// Every `.visaasm` (or other `ext`) file under `dir`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The instruction lines of `sampler_lines.txt` (the line after each `@` record header),
/// with the `.decl` lines of the variables they use.
fn sampler_records(dir: &Path) -> Vec<(String, Vec<String>)> {
    let text = fs::read_to_string(dir.join("sampler_lines.txt")).unwrap();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l.starts_with("@ ") {
            let inst = lines.next().unwrap().to_string();
            let mut decls = Vec::new();
            while let Some(d) = lines.peek().filter(|d| d.starts_with("    ")) {
                if let Some(decl) = d.trim().strip_prefix("decl: ") {
                    decls.push(decl.to_string());
                }
                lines.next();
            }
            out.push((inst, decls));
        }
    }
    out
}

#[test]
fn every_sampler_line_prints_back_identically() {
    let Some(dir) = corpus() else { return };
    let records = sampler_records(&dir);
    assert_eq!(records.len(), 983);
    let mut tex = 0;
    for (line, _) in &records {
        let p = visa::parse_text(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        tex += p.tex_instrs().count();
        assert_eq!(visa::print_text(&p).unwrap(), *line);
    }
    // scatter4_typed (36 lines) is a surface write, kept as an opaque line.
    assert_eq!(tex, 983 - 36);
}

#[test]
fn every_sampler_line_survives_the_binary() {
    let Some(dir) = corpus() else { return };
    for (line, _) in sampler_records(&dir) {
        let p = visa::parse_text(&line).unwrap();
        if p.tex_instrs().count() == 0 {
            continue;
        }
        let bytes = visa::encode_binary(&p).unwrap();
        let back = visa::decode_binary(&bytes).unwrap_or_else(|e| panic!("{line}: {e}"));
        // IGC's canonical spacing: the binary carries no layout.
        let canonical = visa::print_text(&back).unwrap();
        let reparsed = visa::parse_text(&canonical).unwrap();
        assert_eq!(visa::encode_binary(&reparsed).unwrap(), bytes, "{line}");
        // IGC's lines are in canonical layout already.
        assert_eq!(canonical.trim_end(), line, "{line}");
        let hex = visa::print_hex(&p).unwrap();
        let words: Vec<&str> = hex.split_whitespace().collect();
        assert_eq!(
            visa::encode_binary(&visa::decode_hex(&words).unwrap()).unwrap(),
            bytes
        );
    }
}

#[test]
fn sampler_lines_with_their_declarations() {
    let Some(dir) = corpus() else { return };
    let mut rejected = Vec::new();
    for (line, decls) in sampler_records(&dir) {
        let src = format!("{}\n{line}\n", decls.join("\n"));
        match visa::parse_text(&src) {
            Ok(p) => assert_eq!(visa::print_text(&p).unwrap(), src),
            Err(Error::Validation(v)) if v.rule == "param-type" => {
                let p = visa::parse_text_with(&src, Checks::IgcCompatible).unwrap();
                assert_eq!(visa::print_text(&p).unwrap(), src);
                rejected.push(line);
            }
            Err(e) => panic!("{line}: {e}"),
        }
    }
    // IGC's half-precision gather4 (icllp, tgllp) mixes HF and F parameters.
    assert_eq!(rejected.len(), 8, "{rejected:#?}");
    assert!(rejected.iter().all(|l| l.starts_with("sample4.R")));
}

#[test]
fn every_dump_round_trips_byte_identically() {
    let Some(dir) = corpus() else { return };
    let all = files(&dir.join("dumps"), "visaasm");
    assert_eq!(all.len(), 423);
    let mut strict_rejects = 0;
    for f in &all {
        let src = fs::read_to_string(f).unwrap();
        let p = match visa::parse_text(&src) {
            Ok(p) => p,
            Err(Error::Validation(v)) if v.rule == "param-type" => {
                strict_rejects += 1;
                visa::parse_text_with(&src, Checks::IgcCompatible)
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            }
            Err(e) => panic!("{}: {e}", f.display()),
        };
        let out = visa::print_text(&p).unwrap();
        assert!(out == src, "{} does not round-trip", f.display());
    }
    assert_eq!(strict_rejects, 2);
}

/// What IGC 12504's writer keeps of `full` (texlate's full-layout decode of the `.visaasm`
/// line), independently of texlate's tables (research §6): 0x6d/0x6e/0x6f lose their last two
/// fields (the last two params, or numParams and the one param), 0x4b lose lod and dst,
/// 0x70 loses dst. Returns the instruction as written (a cut dst reads `%null.0`), whether dst
/// was kept, numParams and k.
fn igc_kept(full: &VisaInst) -> (VisaInst, bool, Option<u8>, usize) {
    let n = full.params.len();
    let (dst_kept, num_params, params_kept, k) = match full.opcode {
        0x6d..=0x6f if n >= 2 => (true, Some(n as u8), n - 2, 2),
        0x6d..=0x6f => (true, None, 0, 2),
        0x4b => (false, None, n - 1, 2),
        0x70 => (false, None, n, 1),
        other => panic!("opcode {other:#x}"),
    };
    let kept = VisaInst {
        dst: if dst_kept { full.dst } else { Raw::default() },
        params: full.params[..params_kept].to_vec(),
        ..full.clone()
    };
    (kept, dst_kept, num_params, k)
}

/// Walks every instruction of every kernel of IGC's `.isa` dumps (SKL, ICLLP, TGLLP): as
/// many instructions as the `.visaasm` printed in the same run, and the sampler instructions found are exactly those of the `.visaasm` printed in the same run, in
/// order, and each one's fields equal texlate's encoding of the line, as far as IGC kept them.
#[test]
fn igc_isa_containers_walk_to_the_visaasm_sampler_instructions() {
    let Some(dir) = corpus() else { return };
    let (mut files_seen, mut compared, mut walked, mut with_num_params) = (0, 0, 0, 0);
    for f in files(&dir.join("dumps"), "visaasm") {
        let isa = fs::read(f.with_extension("isa")).unwrap();
        let container =
            visa::decode_isa_container(&isa).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(container.version, (4, 1));
        let [kernel] = &container.kernels[..] else {
            panic!("{}: {} kernels", f.display(), container.kernels.len())
        };
        let src = fs::read_to_string(&f).unwrap();
        let name = src
            .lines()
            .find_map(|l| l.strip_prefix(".kernel \""))
            .and_then(|l| l.strip_suffix('"'))
            .unwrap();
        assert_eq!(kernel.name, name, "{}", f.display());
        let p = visa::parse_text_with(&src, Checks::IgcCompatible).unwrap();
        let texts: Vec<&texlate::ir::TexInstr> = p.tex_instrs().collect();
        assert_eq!(kernel.samplers.len(), texts.len(), "{}", f.display());
        for (found, t) in kernel.samplers.iter().zip(texts) {
            let mut one = texlate::Program::new(texlate::Isa::Visa);
            one.variables = p.variables.clone();
            one.samplers = p.samplers.clone();
            one.resources = p.resources.clone();
            one.state = p.state.clone();
            one.items.push(Item::Tex(Box::new(t.clone())));
            let bytes = visa::encode_binary(&one).unwrap();
            let (full, end) = visa::decode_instruction(&bytes, 0).unwrap();
            assert_eq!(end, bytes.len());
            let at = format!("{} at {:#x}", f.display(), found.offset);
            let (kept, dst_kept, num_params, k) = igc_kept(&full);
            assert_eq!(found.inst, kept, "{at}");
            assert_eq!(found.dst_kept, dst_kept, "{at}");
            assert_eq!(found.num_params, num_params, "{at}");
            assert_eq!(found.dropped, k, "{at}");
            // The bytes IGC wrote are texlate's encoding up to the cut.
            assert_eq!(isa[found.offset..][..found.len], bytes[..found.len], "{at}");
            with_num_params += usize::from(num_params.is_some());
            compared += 1;
        }
        // Every instruction line carries IGC's `/// $N` comment; each label line is a
        // `label`/`func` instruction: the walk read them all, and nothing after them.
        let lines = src
            .lines()
            .filter(|l| l.contains("/// $") || l.ends_with(':'))
            .count();
        assert_eq!(kernel.instructions, lines, "{}", f.display());
        walked += kernel.instructions;
        files_seen += 1;
    }
    assert_eq!(files_seen, 423);
    assert_eq!(compared, 983 - 36);
    assert_eq!(with_num_params, 851);
    assert_eq!(walked, 19527);
}
