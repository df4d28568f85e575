//! The oracle tier for translations (opt-in, `#[ignore]`d): every texture instruction of the
//! three shared corpora, translated to each other ISA with the library, and every translation
//! that succeeds given to the target vendor's own tool (README "Oracle tier"):
//!
//! - NVIDIA target: `nvdisasm -b SM50` on the binary output prints every instruction line
//!   (address, text with its phase, word) exactly as texlate's text output does;
//! - vISA target: GenX_IR (`visa-assemble`) assembles every emitted kernel on SKL and TGLLP;
//! - DX target: Wine's D3DDisassemble (`dxbc-disasm`) and vkd3d-compiler 1.2 + spirv-val
//!   (`dxbc-to-spirv`) accept every emitted container.
//!
//! Sources: NVIDIA `tex_pairs.tsv` sm_50 words (one program per distinct word), each kernel
//! of the `.sass` listings and each `.text` section of the cubins; the 495 DXBC blobs; every
//! vISA `.visaasm` dump (read with `igc_compatible`) with a bindings file giving surface `T6`
//! the dimension and return type of the kernel's first image argument in the OpenCL source
//! (`2d`/float for the `llvm_genisa` kernels, whose GenISA sources name no image type); and
//! the hand-written snapshot cases of `tests/cases/translate/` (forms the corpora lack).
//!
//! Run: `cargo test --release --test translate_oracle -- --ignored --nocapture`. It prints
//! counts per direction; it fails when a tool rejects an emitted program for a reason not
//! listed in [`known_rejection`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use texlate::ir::{Isa, Item, Program};
use texlate::isa::nvidia::{self, NvidiaContainer};
use texlate::translate::{translate_program, Options, Translation};
use texlate::{Error, Form, ReadOptions};

mod support;

use support::translate_corpus::{self, files, listing_kernels};

/// One source program: where it comes from, its IR and the options it needs.
struct Source {
    /// Kind of source (`nvidia words`, `dxbc blobs`, ...), for the counts.
    kind: &'static str,
    name: String,
    program: Program,
    bindings: Option<(String, String)>,
    read: ReadOptions,
}

impl Source {
    fn tex(&self) -> usize {
        self.program.tex_instrs().count()
    }
}

// ---- Sources ----

/// `tex_pairs.tsv`: the distinct sm_50 words, one program each.
fn nvidia_words(dir: &Path) -> Vec<Source> {
    let tsv = std::fs::read_to_string(dir.join("tex_pairs.tsv")).unwrap();
    let mut words: Vec<&str> = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() > 1 && f[0] == "sm_50").then_some(f[1])
        })
        .collect();
    words.sort();
    words.dedup();
    words
        .into_iter()
        .map(|w| Source {
            kind: "nvidia words",
            name: format!("word_{w}"),
            program: nvidia::decode_hex(&[w]).unwrap_or_else(|e| panic!("{w}: {e}")),
            bindings: None,
            read: ReadOptions::default(),
        })
        .collect()
}

/// Each kernel of the `.sass` listings: from its `//---- .text.<kernel>` header to the next
/// header, parsed as a listing of its own.
fn nvidia_listing_kernels(dir: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    for path in files(dir, ".sass") {
        let src = std::fs::read_to_string(&path).unwrap();
        for (kernel, text) in listing_kernels(&src) {
            let program = nvidia::parse_text(&text)
                .unwrap_or_else(|e| panic!("{}: {kernel}: {e}", path.display()));
            if program.tex_instrs().count() == 0 {
                continue;
            }
            out.push(Source {
                kind: "nvidia kernels (.sass)",
                name: format!("sass_{kernel}"),
                program,
                bindings: None,
                read: ReadOptions::default(),
            });
        }
    }
    out
}

/// Each `.text` section of the cubins, as a program of its own.
fn nvidia_cubin_kernels(dir: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    for path in files(&dir.join("cubin"), ".cubin") {
        let p = nvidia::decode_binary(&std::fs::read(&path).unwrap()).unwrap();
        let Some(NvidiaContainer::Cubin { sections, .. }) = p.state.get::<NvidiaContainer>() else {
            panic!("{}: not a cubin", path.display());
        };
        for s in sections {
            let mut k = Program::new(Isa::Nvidia);
            k.items = p
                .items
                .iter()
                .filter(|i| {
                    let off = match i {
                        Item::Tex(t) => t.span.offset,
                        Item::Opaque(o) => o.span.offset,
                        Item::Alu(a) => a.span.offset,
                        Item::Comment(c) => c.span.offset,
                    };
                    (s.offset..s.offset + s.size).contains(&off)
                })
                .cloned()
                .collect();
            if k.tex_instrs().count() == 0 {
                continue;
            }
            out.push(Source {
                kind: "nvidia kernels (cubin)",
                name: format!("cubin_{}", &s.name[6..]),
                program: k,
                bindings: None,
                read: ReadOptions::default(),
            });
        }
    }
    out
}

fn dxbc_blobs(dir: &Path) -> Vec<Source> {
    files(&dir.join("blobs"), ".dxbc")
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            Source {
                kind: "dxbc blobs",
                program: texlate::decode(Isa::Dxbc, &bytes)
                    .unwrap_or_else(|e| panic!("{name}: {e}")),
                name,
                bindings: None,
                read: ReadOptions::default(),
            }
        })
        .collect()
}

/// Every `.visaasm` dump, with a bindings file for its surface `T6` (see the module doc).
fn visa_dumps(dir: &Path) -> (Vec<Source>, Vec<String>) {
    let read = ReadOptions {
        igc_compatible: true,
        ..ReadOptions::default()
    };
    let (dumps, defaulted, mixed) = translate_corpus::visa_dumps(dir);
    let out = dumps
        .into_iter()
        .map(|d| {
            let text = std::fs::read_to_string(&d.path).unwrap();
            Source {
                kind: "visa dumps",
                program: texlate::parse_text_with(Isa::Visa, &text, read)
                    .unwrap_or_else(|e| panic!("{}: {e}", d.path.display())),
                name: d.name,
                bindings: Some(("bindings.toml".into(), d.bindings)),
                read,
            }
        })
        .collect();
    let notes = vec![format!(
        "vISA sources: {defaulted} dumps with no OpenCL kernel (llvm_genisa) bound as 2d/float \
         (2d_ms for gi_ldms, gi_ldmcs, gi_sampleinfo); {mixed} kernels with image arguments of \
         more than one dimension bound as their first"
    )];
    (out, notes)
}

/// The hand-written translation cases (`tests/cases/translate/<isa>.txt`, the snapshot
/// cases: forms the corpora lack, such as DX `lod` and NVIDIA `TMML`), one program each.
fn translate_cases(isa: Isa) -> Vec<Source> {
    translate_corpus::translate_cases(isa)
        .into_iter()
        .map(|(text, bindings)| Source {
            kind: "translate cases",
            name: text.lines().last().unwrap_or("").trim().to_string(),
            program: texlate::parse_text_with(isa, &text, ReadOptions::default())
                .unwrap_or_else(|e| panic!("{text}: {e}")),
            bindings,
            read: ReadOptions::default(),
        })
        .collect()
}

// ---- Translation and counts ----

/// A refusal's reason, with numbers and quoted names folded so that like refusals count
/// together.
fn reason(e: &Error) -> String {
    let raw = match e {
        Error::Unsupported(u) => format!("unsupported: {}", u.why.lines().next().unwrap_or("")),
        Error::Validation(v) => format!("invalid: {} ({})", v.rule, v.detail),
        other => other.to_string(),
    };
    let mut out = String::new();
    let mut in_tick = false;
    for c in raw.chars() {
        match c {
            '`' => {
                in_tick = !in_tick;
                out.push_str(if in_tick { "`…" } else { "`" });
            }
            _ if in_tick => {}
            '0'..='9' => {
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            _ => out.push(c),
        }
    }
    out.chars().take(160).collect()
}

/// A rejection the vendor tool is known to make of valid input (its own limitation, not
/// texlate's), by tool, emitted program text and diagnostic.
fn known_rejection(tool: &str, program: &str, diagnostic: &str) -> Option<&'static str> {
    let dx_uses = |what: &str| program.lines().any(|l| l.contains(what));
    if tool.starts_with("vkd3d") {
        // vkd3d-compiler 1.2: cube-array sampling fails spirv-val, as the corpus's own fxc
        // blob vkd3d_d3d12_ps_cube_array_code_L14498 does (research/dxbc.md §10).
        if diagnostic.contains("Vector access is out of bounds") && dx_uses("texturecubearray") {
            return Some(
                "vkd3d 1.2 cube-array SPIR-V bug (spirv-val: vector access out of bounds)",
            );
        }
        // vkd3d-compiler 1.2 stores OpImageQueryLod's 2-vector into the 4-vector register.
        if diagnostic.contains("OpStore Pointer") && dx_uses("lod_indexable(") {
            return Some("vkd3d 1.2 `lod`: stores a v2float result into a v4float register");
        }
    }
    // GenX_IR 1.0.12504's lexer does not know the `lod` IGC itself prints (oracles README,
    // `examples/lod_not_accepted.visaasm`).
    if tool.starts_with("GenX_IR")
        && diagnostic.contains("syntax error")
        && program.lines().any(|l| {
            // A predicated instruction starts with its guard: `(P3) lod.RGA ...`.
            let l = l.trim_start();
            let l = match l.strip_prefix('(') {
                Some(rest) => rest.split_once(')').map_or(l, |(_, i)| i.trim_start()),
                None => l,
            };
            l.starts_with("lod.")
        })
    {
        return Some("IGC 12504's lexer rejects `lod`");
    }
    // Wine prints a float immediate whose bits are a NaN as `-nan(ind)`, losing the payload
    // (session 1 counted 65 such lines in the corpus listings): the bits texlate wrote are not
    // in Wine's text to compare.
    if tool.starts_with("Wine") && diagnostic.contains("nan(") && nan_immediate(diagnostic) {
        return Some("Wine prints a NaN immediate's payload as -nan(ind)");
    }
    None
}

/// Whether texlate's side of a Wine line difference (`texlate `...``) has an integer
/// immediate whose 32 bits are a float NaN.
fn nan_immediate(diagnostic: &str) -> bool {
    let ours = diagnostic
        .split("texlate `")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .unwrap_or("");
    ours.split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter_map(|w| w.parse::<i64>().ok())
        .any(|v| {
            let bits = v as u32;
            bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0
        })
}

#[derive(Default)]
struct Counts {
    programs: usize,
    tex: usize,
    translated: usize,
    translated_tex: usize,
    refused: BTreeMap<String, usize>,
    /// Distinct programs the tool ran on, where fewer than the translations.
    distinct: Option<usize>,
    /// Instruction lines compared with the tool's listing.
    lines: usize,
    /// Tool → verdicts.
    tools: BTreeMap<&'static str, Verdicts>,
}

#[derive(Default)]
struct Verdicts {
    accepted: usize,
    known: BTreeMap<&'static str, usize>,
    rejected: usize,
    first: Vec<String>,
}

impl Counts {
    fn tool(
        &mut self,
        tool: &'static str,
        name: &str,
        program: &[u8],
        verdict: Result<(), String>,
    ) {
        let e = self.tools.entry(tool).or_default();
        match verdict {
            Ok(()) => e.accepted += 1,
            Err(why) => {
                let program = String::from_utf8_lossy(program);
                if let Some(k) = known_rejection(tool, &program, &why) {
                    *e.known.entry(k).or_default() += 1;
                    return;
                }
                e.rejected += 1;
                if e.first.len() < 4 {
                    e.first.push(format!("{name}: {}", why.trim()));
                }
            }
        }
    }

    fn print(&self, title: &str) -> String {
        let mut s = format!(
            "{title}: {} of {} programs translated ({} of {} texture instructions)\n",
            self.translated, self.programs, self.translated_tex, self.tex
        );
        let mut refused: Vec<_> = self.refused.iter().collect();
        refused.sort_by(|a, b| b.1.cmp(a.1));
        for (why, n) in refused {
            s.push_str(&format!("    refused {n:4}: {why}\n"));
        }
        if self.lines > 0 {
            s.push_str(&format!(
                "    ({} instruction lines compared with the tool's listing)\n",
                self.lines
            ));
        }
        if let Some(d) = self.distinct {
            s.push_str(&format!(
                "    ({d} distinct programs once `//` comments are removed)\n"
            ));
        }
        for (tool, v) in &self.tools {
            s.push_str(&format!(
                "    {tool}: {} accepted, {} rejected",
                v.accepted, v.rejected
            ));
            for (k, n) in &v.known {
                s.push_str(&format!(", {n} rejected as known ({k})"));
            }
            s.push('\n');
            for d in &v.first {
                let d: String = d.chars().take(400).collect();
                s.push_str(&format!("        {}\n", d.replace('\n', "\n        ")));
            }
        }
        s
    }
}

/// Translates every source to `to`: the translations by name, and the counts.
fn translate_all(
    sources: &[Source],
    to: Isa,
    emit: Form,
) -> (Vec<(String, Translation)>, BTreeMap<&'static str, Counts>) {
    let mut counts: BTreeMap<&'static str, Counts> = BTreeMap::new();
    let mut out = Vec::new();
    for s in sources {
        let c = counts.entry(s.kind).or_default();
        c.programs += 1;
        c.tex += s.tex();
        let mut options = Options::new(s.program.isa, to);
        options.emit = emit;
        options.bindings = s.bindings.clone();
        options.read = s.read;
        match translate_program(s.program.clone(), &options) {
            Ok(t) => {
                c.translated += 1;
                c.translated_tex += s.tex();
                out.push((
                    format!("{}__{}", s.kind.split(' ').next().unwrap(), s.name),
                    t,
                ));
            }
            Err(e) => {
                if std::env::var_os("TEXLATE_ORACLE_VERBOSE").is_some() {
                    support::print_report(&format!(
                        "refused {} → {}: {}: {e}\n",
                        s.program.isa.name(),
                        to.name(),
                        s.name
                    ));
                }
                *c.refused.entry(reason(&e)).or_default() += 1
            }
        }
    }
    (out, counts)
}

fn tmp_dir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texlate-oracle-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A file name from a program name (`/` and odd characters replaced), unique by index.
fn file_name(k: usize, name: &str, ext: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    format!("{k:05}_{clean}.{ext}")
}

/// The sources of each ISA, and notes on how they were bound.
struct Corpora {
    nvidia: Vec<Source>,
    dxbc: Vec<Source>,
    visa: Vec<Source>,
    notes: Vec<String>,
}

fn all_sources() -> Option<Corpora> {
    let nv = support::corpus("nvidia")?;
    let dx = support::corpus("dxbc")?;
    let intel = support::corpus("intel")?;
    let mut nvidia = nvidia_words(&nv);
    nvidia.extend(nvidia_listing_kernels(&nv));
    nvidia.extend(nvidia_cubin_kernels(&nv));
    nvidia.extend(translate_cases(Isa::Nvidia));
    let (mut visa, notes) = visa_dumps(&intel);
    visa.extend(translate_cases(Isa::Visa));
    let mut dxbc = dxbc_blobs(&dx);
    dxbc.extend(translate_cases(Isa::Dxbc));
    Some(Corpora {
        nvidia,
        dxbc,
        visa,
        notes,
    })
}

// ---- Checks per target ----

/// NVIDIA target: the streams of all programs in one file, disassembled once by
/// `nvdisasm -b SM50`; each program's lines (address, text, word) compared with its listing.
/// Where nvdisasm refuses the whole stream (an undecodable word), each program runs alone.
fn check_nvidia(env: &Path, translations: &[(String, Translation)], counts: &mut Counts) {
    let dir = tmp_dir("nvidia");
    let mut stream = Vec::new();
    let mut ranges = Vec::new();
    for (_, t) in translations {
        let bin = texlate::encode(Isa::Nvidia, &t.program, Form::Binary).unwrap();
        ranges.push((stream.len() as u64, bin.len() as u64));
        stream.extend(bin);
    }
    let whole = dir.join("all.bin");
    std::fs::write(&whole, &stream).unwrap();
    let theirs_all = support::nvdisasm_sm50(env, &whole)
        .ok()
        .map(|t| support::nvidia_instruction_lines(&t));
    for (k, ((name, t), (start, len))) in translations.iter().zip(&ranges).enumerate() {
        let ours = support::nvidia_instruction_lines(std::str::from_utf8(&t.output).unwrap());
        counts.lines += ours.len();
        let theirs = match &theirs_all {
            Some(all) => Ok(all
                .iter()
                .filter(|(a, ..)| (*start..start + len).contains(a))
                .map(|(a, text, w)| (a - start, rebase_branch(text, *start), *w))
                .collect::<Vec<_>>()),
            None => {
                let one = dir.join(file_name(k, name, "bin"));
                std::fs::write(&one, &stream[*start as usize..(start + len) as usize]).unwrap();
                support::nvdisasm_sm50(env, &one).map(|t| support::nvidia_instruction_lines(&t))
            }
        };
        let verdict = match theirs {
            Err(e) => Err(format!("nvdisasm refused the stream: {e}")),
            Ok(theirs) if theirs == ours => Ok(()),
            Ok(theirs) => {
                let diff = ours
                    .iter()
                    .zip(&theirs)
                    .find(|(a, b)| a != b)
                    .map(|(a, b)| {
                        format!(
                            "/*{:04x}*/ texlate `{}` {:016x}, nvdisasm `{}` {:016x}",
                            a.0, a.1, a.2, b.1, b.2
                        )
                    })
                    .unwrap_or_else(|| {
                        format!("{} lines vs nvdisasm's {}", ours.len(), theirs.len())
                    });
                Err(diff)
            }
        };
        counts.tool("nvdisasm -b SM50 (same text)", name, &t.output, verdict);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `BRA <address>` as nvdisasm prints it at `start` of the concatenated stream, with its
/// target made relative to the program's first word (as texlate's listing prints it).
fn rebase_branch(text: &str, start: u64) -> String {
    let target = text
        .strip_prefix("BRA 0x")
        .and_then(|t| u64::from_str_radix(t, 16).ok());
    match target {
        Some(t) if t >= start => format!("BRA {:#x}", t - start),
        _ => text.to_string(),
    }
}

/// DX target: every container through Wine's D3DDisassemble and vkd3d-compiler + spirv-val,
/// one batch each.
fn check_dxbc(translations: &[(String, Translation)], counts: &mut Counts) -> Option<()> {
    let dir = tmp_dir("dxbc");
    let mut files = Vec::new();
    let mut names = BTreeMap::new();
    for (k, (name, t)) in translations.iter().enumerate() {
        let f = dir.join(file_name(k, name, "dxbc"));
        std::fs::write(&f, &t.output).unwrap();
        names.insert(
            f.file_name().unwrap().to_string_lossy().into_owned(),
            (k, name),
        );
        files.push(f);
    }
    let out = dir.join("wine");
    let wine = support::run_dxbc_oracle("dxbc-disasm", &["-o", out.to_str().unwrap()], &files)?;
    let vkd3d = support::run_dxbc_oracle("dxbc-to-spirv", &[], &files)?;
    for (tool, report, ok) in [
        ("Wine D3DDisassemble", &wine, "OK"),
        ("vkd3d-compiler + spirv-val", &vkd3d, "ACCEPTED"),
    ] {
        let mut seen = 0;
        for line in report.lines() {
            let mut f = line.splitn(3, '\t');
            let (Some(file), Some(verdict)) = (f.next(), f.next()) else {
                continue;
            };
            let base = Path::new(file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let Some(&(k, name)) = names.get(&base) else {
                continue;
            };
            seen += 1;
            let v = if verdict == ok {
                Ok(())
            } else {
                Err(format!("{verdict} {}", f.next().unwrap_or("")))
            };
            let text = texlate::encode(Isa::Dxbc, &translations[k].1.program, Form::Text).unwrap();
            counts.tool(tool, name, &text, v);
        }
        assert_eq!(
            seen,
            files.len(),
            "{tool} reported on {seen} of {} files",
            files.len()
        );
    }
    // Wine's listing of each accepted container, instruction by instruction, read back by
    // texlate and printed as texlate prints it, equals texlate's own text (up to
    // vkd3d-shader 1.6's spelling of one-component swizzles and sampler selects).
    for (k, (name, t)) in translations.iter().enumerate() {
        let file = out.join(format!("{}.txt", file_name(k, name, "dxbc")));
        let Ok(wine) = std::fs::read_to_string(&file) else {
            continue;
        };
        let ours = texlate::encode(Isa::Dxbc, &t.program, Form::Text).unwrap();
        let ours = support::dx_instruction_lines(std::str::from_utf8(&ours).unwrap());
        let theirs = support::dx_instruction_lines(&wine);
        counts.lines += ours.len();
        let verdict = if ours.len() != theirs.len() {
            Err(format!(
                "{} instruction lines, Wine printed {}",
                ours.len(),
                theirs.len()
            ))
        } else {
            ours.iter()
                .zip(&theirs)
                .find_map(|(o, w)| match support::dx_reprinted(w) {
                    Ok(back) if support::dx_fold(&back) == support::dx_fold(o) => None,
                    Ok(back) => Some(format!("texlate `{o}`, Wine `{w}` (read back `{back}`)")),
                    Err(e) => Some(format!("Wine `{w}` does not read back: {e}")),
                })
                .map_or(Ok(()), Err)
        };
        counts.tool(
            "Wine D3DDisassemble (same instructions)",
            name,
            &[],
            verdict,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Some(())
}

/// vISA target: each kernel assembled by GenX_IR on SKL and TGLLP, the jobs shared by as
/// many threads as there are cores.
fn check_visa(assemble: &Path, translations: &[(String, Translation)], counts: &mut Counts) {
    let dir = tmp_dir("visa");
    // Kernels equal but for their `//` comments (the source's non-texture lines) are
    // assembled once.
    let mut distinct: BTreeMap<String, usize> = BTreeMap::new();
    let mut kernel_of = Vec::new();
    let mut jobs = Vec::new();
    for (k, (name, t)) in translations.iter().enumerate() {
        let text = std::str::from_utf8(&t.output).unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        let next = distinct.len();
        let id = *distinct.entry(code).or_insert(next);
        kernel_of.push(id);
        if id == next {
            let f = dir.join(file_name(k, name, "visaasm"));
            std::fs::write(&f, text).unwrap();
            for plat in ["SKL", "TGLLP"] {
                jobs.push((id, plat, f.clone()));
            }
        }
    }
    counts.distinct = Some(distinct.len());
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let j = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some((k, plat, f)) = jobs.get(j) else {
                    break;
                };
                let out = std::process::Command::new(assemble)
                    .arg(f)
                    .arg(plat)
                    .output()
                    .unwrap();
                let log = String::from_utf8_lossy(&out.stdout).into_owned();
                let v = if out.status.code() == Some(0) {
                    Ok(())
                } else {
                    Err(log.lines().take(4).collect::<Vec<_>>().join(" | "))
                };
                results.lock().unwrap().push((*k, *plat, v));
            });
        }
    });
    let verdicts: BTreeMap<(usize, &str), Result<(), String>> = results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|(id, plat, v)| ((id, plat), v))
        .collect();
    for (k, (name, t)) in translations.iter().enumerate() {
        for (plat, tool) in [("SKL", "GenX_IR SKL"), ("TGLLP", "GenX_IR TGLLP")] {
            let v = verdicts[&(kernel_of[k], plat)].clone();
            counts.tool(tool, name, &t.output, v);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs the three oracles (shared/oracles/*/setup.sh) and the shared corpus"]
fn vendor_tools_accept_every_translation() {
    if let Some(corpora) = all_sources() {
        run_tier(corpora);
    }
}

/// The sources with offsets in registers (issue 8, programmable offsets): the cases of
/// `tests/cases/dyn_offsets/` and every corpus instruction with register offsets, alone
/// with its declarations (the emulations of `offsets_to_register`, `offsets_from_register`,
/// `repack_offsets`, and the refusals).
fn offset_sources() -> Option<Corpora> {
    let mut per_isa = BTreeMap::new();
    for isa in [Isa::Nvidia, Isa::Dxbc, Isa::Visa] {
        let read = ReadOptions {
            igc_compatible: true,
            ..ReadOptions::default()
        };
        let parse = |text: &str| texlate::parse_text_with(isa, text, read);
        let mut list = Vec::new();
        for (kind, programs) in [
            (
                "dyn-offsets cases",
                translate_corpus::cases_in("dyn_offsets", isa),
            ),
            ("corpus register offsets", support::sources(isa)?),
        ] {
            for (text, bindings) in programs {
                let Ok(program) = parse(&text) else { continue };
                let registers = program.tex_instrs().any(|t| {
                    matches!(
                        t.offset,
                        texlate::ir::Offset::Dynamic(_)
                            | texlate::ir::Offset::Packed(_)
                            | texlate::ir::Offset::PerTexel(_)
                    )
                });
                if registers {
                    list.push(Source {
                        kind,
                        name: text.lines().last().unwrap_or("").trim().to_string(),
                        program,
                        bindings,
                        read,
                    });
                }
            }
        }
        per_isa.insert(isa, list);
    }
    Some(Corpora {
        nvidia: per_isa.remove(&Isa::Nvidia)?,
        dxbc: per_isa.remove(&Isa::Dxbc)?,
        visa: per_isa.remove(&Isa::Visa)?,
        notes: Vec::new(),
    })
}

/// The vendor tools on every emulated register-offset sequence (and every other translation
/// of an instruction with register offsets): `cargo test --release --test translate_oracle
/// offset -- --ignored --nocapture`.
#[test]
#[ignore = "needs the three oracles (shared/oracles/*/setup.sh) and the shared corpus"]
fn offset_emulations_are_accepted() {
    if let Some(corpora) = offset_sources() {
        run_tier(corpora);
    }
}

/// Translates every source to each other ISA and gives each translation to the target's
/// vendor tool; prints the counts and fails on a rejection not known.
/// One tier runs at a time: the tests of this file share the vendor tools (Wine's prefix and
/// server, the tools' scratch files), which do not take two batches at once.
static TOOLS: Mutex<()> = Mutex::new(());

fn run_tier(corpora: Corpora) {
    let _tools = TOOLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Corpora {
        nvidia,
        dxbc,
        visa,
        notes,
    } = corpora;
    let Some(nv_env) = support::nvidia_oracle() else {
        return;
    };
    let Some(assemble) = support::visa_assemble() else {
        return;
    };
    let mut report = notes.join("\n") + "\n";
    let mut rejected = Vec::new();
    for (sources, from) in [
        (&nvidia, Isa::Nvidia),
        (&dxbc, Isa::Dxbc),
        (&visa, Isa::Visa),
    ] {
        for to in [Isa::Nvidia, Isa::Dxbc, Isa::Visa] {
            if to == from {
                continue;
            }
            let started = Instant::now();
            let emit = if to == Isa::Dxbc {
                Form::Binary
            } else {
                Form::Text
            };
            let (translations, by_kind) = translate_all(sources, to, emit);
            // The tool verdicts of each kind of source.
            let mut all = Counts::default();
            for c in by_kind.values() {
                all.programs += c.programs;
                all.tex += c.tex;
                all.translated += c.translated;
                all.translated_tex += c.translated_tex;
            }
            match to {
                Isa::Nvidia => check_nvidia(&nv_env, &translations, &mut all),
                Isa::Dxbc => {
                    if check_dxbc(&translations, &mut all).is_none() {
                        return;
                    }
                }
                Isa::Visa => check_visa(&assemble, &translations, &mut all),
            }
            let mut title = format!("{} → {}", from.name(), to.name());
            for (kind, c) in &by_kind {
                report.push_str(&c.print(&format!("{title} [{kind}]")));
            }
            title.push_str(&format!(" ({:.1} s)", started.elapsed().as_secs_f64()));
            report.push_str(&all.print(&format!("{title} all")));
            for (tool, v) in &all.tools {
                if v.rejected > 0 {
                    rejected.push(format!(
                        "{} → {}: {tool}: {} rejected, first: {:?}",
                        from.name(),
                        to.name(),
                        v.rejected,
                        v.first
                    ));
                }
            }
            support::print_report(&format!("{title} checked\n"));
        }
    }
    support::print_report(&report);
    assert!(rejected.is_empty(), "{}", rejected.join("\n"));
}

// ---- Random field values ----

/// DX swizzle letters.
const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// `text` (a DX program: declarations and one texture instruction, from the corpus) with the
/// texture instruction's fields drawn at random, as `mutate_dx_line` says.
fn mutate_dx(text: &str, rng: &mut texlate::rng::Rng) -> String {
    let temps = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("dcl_temps "))
        .and_then(|n| n.trim().parse::<usize>().ok());
    let three_d = text.contains("texture3d");
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        let texture = ["sample", "gather4", "ld", "resinfo", "lod"]
            .iter()
            .any(|m| t.starts_with(m))
            && !t.starts_with("ld_structured")
            && !t.starts_with("ld_raw");
        if texture {
            out.push_str(&mutate_dx_line(line, temps, three_d, rng));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// One DX texture instruction with random field values, every one of which fxc can emit: its
/// temporaries `rN` (below `dcl_temps`), every swizzle of a source (`.xyzw` or one letter),
/// the destination's write mask (any non-empty set, in order), the resource's return swizzle
/// `tN.xyzw`, and the immediate offsets `aoffimmi(u,v,w)` in [-8, 7] (`w` on 3D textures
/// only). Input registers keep their numbers (their declarations say what they hold).
fn mutate_dx_line(
    line: &str,
    temps: Option<usize>,
    three_d: bool,
    rng: &mut texlate::rng::Rng,
) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    // Past the mnemonic (and its `(...)` suffixes) the operands start.
    let operands = line.find(' ').unwrap_or(line.len());
    let mut first_operand = true;
    let letter = |rng: &mut texlate::rng::Rng| XYZW[rng.below(4)];
    while i < b.len() {
        let c = b[i] as char;
        if line[i..].starts_with("aoffimmi(") {
            let end = i + line[i..].find(')').unwrap();
            let old: Vec<&str> = line[i + 9..end].split(',').collect();
            let mut v = [0i64; 3];
            for (k, slot) in v.iter_mut().enumerate() {
                *slot = if k < 2 || three_d {
                    rng.below(16) as i64 - 8
                } else {
                    old.get(k).and_then(|s| s.parse().ok()).unwrap_or(0)
                };
            }
            out.push_str(&format!("aoffimmi({},{},{})", v[0], v[1], v[2]));
            i = end + 1;
            continue;
        }
        let starts_word = i == 0 || !(b[i - 1] as char).is_ascii_alphanumeric() && b[i - 1] != b'_';
        if i > operands && starts_word && matches!(c, 'r' | 'v' | 't') {
            let digits = line[i + 1..].bytes().take_while(u8::is_ascii_digit).count();
            let dot = i + 1 + digits;
            if digits > 0 && b.get(dot) == Some(&b'.') {
                let letters = line[dot + 1..]
                    .bytes()
                    .take_while(|x| b"xyzw".contains(x))
                    .count();
                let end = dot + 1 + letters;
                let whole = end == b.len() || !(b[end] as char).is_ascii_alphanumeric();
                if letters > 0 && whole {
                    let index = match (c, temps) {
                        ('r', Some(n)) if n > 0 => rng.below(n).to_string(),
                        _ => line[i + 1..dot].to_string(),
                    };
                    let swizzle: String = if c == 'r' && first_operand {
                        // The write mask: a non-empty set of channels, in order.
                        let mask = 1 + rng.below(15);
                        (0..4)
                            .filter(|k| mask >> k & 1 == 1)
                            .map(|k| XYZW[k])
                            .collect()
                    } else if letters == 1 {
                        letter(rng).to_string()
                    } else {
                        (0..4).map(|_| letter(rng)).collect()
                    };
                    if c != 't' {
                        first_operand = false;
                    }
                    out.push(c);
                    out.push_str(&index);
                    out.push('.');
                    out.push_str(&swizzle);
                    i = end;
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Two NVIDIA words of one instruction form, mixed: each bit where they differ taken from
/// either at random (the field sweep changes one field of a base word at a time, so mixing
/// two of its words combines their fields).
fn mix_words(a: u64, b: u64, rng: &mut texlate::rng::Rng) -> u64 {
    a ^ (rng.next() & (a ^ b))
}

/// The random-field sources: `n` DX programs (corpus texture instructions with their fields
/// drawn at random, `mutate_dx`) and `n` NVIDIA words (pairs of sm_50 field-sweep words of
/// one mnemonic mixed, `mix_words`, kept where texlate decodes them as a texture
/// instruction that can run: texlate's decoder reads every swept word exactly as nvdisasm).
fn random_sources(seed: u64, n: usize) -> Option<Corpora> {
    let mut rng = texlate::rng::Rng(seed);
    // Texture-sampler instructions only: buffer reads are refused by every target.
    let dx_seeds: Vec<_> = support::sources(Isa::Dxbc)?
        .into_iter()
        .filter(|(text, _)| {
            let last = text.lines().last().unwrap_or("").trim_start();
            !["ld_structured", "ld_raw", "ld_uav_typed", "bufinfo"]
                .iter()
                .any(|b| last.starts_with(b))
        })
        .collect();
    let mut dxbc = Vec::new();
    let mut tries = 0;
    while dxbc.len() < n && tries < 20 * n {
        tries += 1;
        let (text, _) = &dx_seeds[rng.below(dx_seeds.len())];
        let text = mutate_dx(text, &mut rng);
        let Ok(program) = texlate::parse_text_with(Isa::Dxbc, &text, ReadOptions::default()) else {
            continue;
        };
        if program.tex_instrs().count() == 0 {
            continue;
        }
        dxbc.push(Source {
            kind: "random dx fields",
            name: text.lines().last().unwrap_or("").trim().to_string(),
            program,
            bindings: None,
            read: ReadOptions::default(),
        });
    }
    let sweep = include_str!("cases/nvidia/field_sweep.tsv");
    // Words of one mnemonic on one SM (the sweep covers SM50, SM52, SM53, SM60, SM61, SM62).
    let mut forms: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    for line in sweep.lines().filter(|l| l.starts_with("SM")) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 || cols[2].starts_with("UNDECODABLE") {
            continue;
        }
        let mnemonic = cols[2]
            .split_whitespace()
            .find(|w| !w.starts_with('@'))
            .unwrap_or("")
            .split('.')
            .next()
            .unwrap_or("")
            .to_string();
        let word = u64::from_str_radix(cols[1], 16).ok()?;
        forms
            .entry((cols[0].to_string(), mnemonic))
            .or_default()
            .push(word);
    }
    let forms: Vec<((String, String), Vec<u64>)> = forms.into_iter().collect();
    let mut nvidia = Vec::new();
    let mut tries = 0;
    while nvidia.len() < n && tries < 50 * n {
        tries += 1;
        let ((sm, _), words) = &forms[rng.below(forms.len())];
        let sm: nvidia::Sm = sm.parse().ok()?;
        let a = words[rng.below(words.len())];
        let b = words[rng.below(words.len())];
        let word = format!("{:016x}", mix_words(a, b, &mut rng));
        let Ok(program) = nvidia::decode_hex_on(&[&word], sm) else {
            continue;
        };
        let codec = texlate::isa::codec(Isa::Nvidia);
        let runs = program.items.iter().all(|i| match i {
            Item::Opaque(o) => codec.opaque_untranslatable(&program, o).is_none(),
            _ => true,
        });
        if !runs || program.tex_instrs().count() == 0 {
            continue;
        }
        nvidia.push(Source {
            kind: "random nvidia fields",
            name: format!("{}_word_{word}", sm.name()),
            program,
            bindings: None,
            read: ReadOptions {
                sm,
                ..ReadOptions::default()
            },
        });
    }
    let read = ReadOptions {
        igc_compatible: true,
        ..ReadOptions::default()
    };
    let visa_seeds = support::sources(Isa::Visa)?;
    let mut visa = Vec::new();
    let mut tries = 0;
    while visa.len() < n && tries < 20 * n {
        tries += 1;
        let (text, bindings) = &visa_seeds[rng.below(visa_seeds.len())];
        let text = mutate_visa(text, &mut rng);
        let Ok(program) = texlate::parse_text_with(Isa::Visa, &text, read) else {
            continue;
        };
        if program.tex_instrs().count() == 0 {
            continue;
        }
        visa.push(Source {
            kind: "random visa fields",
            name: text.lines().last().unwrap_or("").trim().to_string(),
            program,
            bindings: bindings.clone(),
            read,
        });
    }
    Some(Corpora {
        nvidia,
        dxbc,
        visa,
        notes: Vec::new(),
    })
}

/// `text` (a vISA kernel: declarations and one sampler instruction, from the corpus) with
/// the instruction's fields drawn at random: its channel mask (any non-empty set of R, G,
/// B, A in order; one channel for a gather, `sample4*`) and its immediate `aoffimmi`
/// (`0xNNN:uw`, three 4-bit fields U[11:8] V[7:4] R[3:0]).
fn mutate_visa(text: &str, rng: &mut texlate::rng::Rng) -> String {
    let sampler_ops = ["sample", "load", "lod", "resinfo", "sampleinfo"];
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        // A predicated instruction starts with its guard, `(P1) `.
        let body = match trimmed.strip_prefix('(') {
            Some(rest) => rest.split_once(") ").map_or(trimmed, |(_, b)| b),
            None => trimmed,
        };
        let op = body.split_whitespace().next().unwrap_or("");
        let Some((name, _mask)) = op.split_once('.') else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        if !sampler_ops.iter().any(|o| name.starts_with(o)) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mask: String = if name.starts_with("sample4") {
            "RGBA"[rng.below(4)..][..1].to_string()
        } else {
            let m = 1 + rng.below(15);
            (0..4)
                .filter(|k| m >> k & 1 == 1)
                .map(|k| ['R', 'G', 'B', 'A'][k])
                .collect()
        };
        let head = &line[..line.len() - body.len()];
        let rest = &body[op.len()..];
        // The aoffimmi immediate is the first operand after the execution size.
        let rest = match rest.split_once(") ") {
            Some((exec, after)) => {
                let after = after.trim_start();
                let token = after.split_whitespace().next().unwrap_or("");
                if token.starts_with("0x") && token.ends_with(":uw") {
                    format!(
                        "{exec}) 0x{:x}:uw{}",
                        rng.below(0x1000),
                        &after[token.len()..]
                    )
                } else {
                    rest.to_string()
                }
            }
            None => rest.to_string(),
        };
        out.push_str(&format!("{head}{name}.{mask}{rest}\n"));
    }
    out
}

/// Random field values (`random_sources`: 600 DX instructions, 600 NVIDIA words and 600 vISA
/// instructions; seed `TEXLATE_RANDOM_SEED`, default 1): every translation the semantic models check (each
/// must agree with its source on four register files) and every one the target's vendor
/// tool accepts: `cargo test --release --test translate_oracle random -- --ignored
/// --nocapture`.
#[test]
#[ignore = "needs the three oracles (shared/oracles/*/setup.sh) and the shared corpus"]
fn random_field_values_translate_and_check() {
    let seed = std::env::var("TEXLATE_RANDOM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let Some(corpora) = random_sources(seed, 600) else {
        return;
    };
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for (sources, from) in [
        (&corpora.nvidia, Isa::Nvidia),
        (&corpora.dxbc, Isa::Dxbc),
        (&corpora.visa, Isa::Visa),
    ] {
        for to in [Isa::Nvidia, Isa::Dxbc, Isa::Visa] {
            if to == from {
                continue;
            }
            for s in sources.iter() {
                let mut options = Options::new(from, to);
                options.read = s.read;
                options.bindings = s.bindings.clone();
                let Ok(t) = translate_program(s.program.clone(), &options) else {
                    continue;
                };
                let input = texlate::encode(from, &s.program, Form::Text).unwrap();
                checked += 1;
                for seed in 1..=4 {
                    match texlate::translate::check(&input, &t, &options, seed) {
                        Ok(r) if r.agrees() => {}
                        Ok(r) => {
                            disagreements.push(format!(
                                "{} → {}: {}:\n{r}",
                                from.name(),
                                to.name(),
                                s.name
                            ));
                            break;
                        }
                        Err(e) => {
                            disagreements.push(format!(
                                "{} → {}: {}: check failed: {e}",
                                from.name(),
                                to.name(),
                                s.name
                            ));
                            break;
                        }
                    }
                }
            }
        }
    }
    support::print_report(&format!(
        "random fields (seed {seed}): {} NVIDIA words, {} DX instructions, {} vISA \
         instructions; {checked} translations checked, {} disagree\n",
        corpora.nvidia.len(),
        corpora.dxbc.len(),
        corpora.visa.len(),
        disagreements.len()
    ));
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    run_tier(corpora);
}
