//! Shared by the integration tests: where the vendor corpora live, and the notice a test
//! gives when they are absent.
#![allow(dead_code)]

pub mod cli;
pub mod translate_corpus;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use texlate::{Isa, ReadOptions};

/// `../shared/corpus/<sub>` (a folder or a file; `$TEXLATE_CORPUS/<sub>` when set, to run the
/// corpus tests on other vendor output, e.g. IGC dumps of other platforms), or `None` after
/// saying plainly that the calling test is skipped.
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let root = std::env::var_os("TEXLATE_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    let path = root.join(sub);
    if path.exists() {
        Some(path)
    } else {
        skipped(&format!("{} not found", path.display()));
        None
    }
}

/// Says on the terminal that a test is skipped. libtest captures `eprintln!` of passing
/// tests, so this writes to the process's standard error directly.
pub fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {why}");
}

// ---- The vendor-tool oracles (../shared/oracles, README there) ----

/// The oracles' folder: `$TEXLATE_ORACLES`, else `../shared/oracles` next to the crate.
pub fn oracles_dir() -> PathBuf {
    std::env::var("TEXLATE_ORACLES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracles"))
}

/// `env.sh` of an installed oracle (`$ORACLE_HOME/<isa>/env.sh`, by default under
/// `~/.cache/texlate-oracles`), if it is there.
pub fn oracle_env(isa: &str) -> Option<PathBuf> {
    let home = std::env::var("ORACLE_HOME")
        .map(PathBuf::from)
        .or_else(|_| std::env::var("HOME").map(|h| PathBuf::from(h).join(".cache/texlate-oracles")))
        .ok()?;
    let env = home.join(isa).join("env.sh");
    env.exists().then_some(env)
}

/// The NVIDIA oracle's `env.sh` (it exports `NVDISASM`), or `None` after a SKIPPED notice.
pub fn nvidia_oracle() -> Option<PathBuf> {
    let env = oracle_env("nvidia").filter(|_| oracles_dir().join("nvidia/nvdisasm-words").exists());
    if env.is_none() {
        skipped("the NVIDIA oracle is not installed (run shared/oracles/nvidia/setup.sh --slim)");
    }
    env
}

/// `nvdisasm -b SM50 -hex FILE` (a raw word stream): its listing, or its complaint.
pub fn nvdisasm_sm50(env: &Path, stream: &Path) -> Result<String, String> {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#". "$1" && "$NVDISASM" -b SM50 -hex "$2""#)
        .arg("_")
        .arg(env)
        .arg(stream)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() && !text.is_empty() {
        Ok(text)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The instruction lines of an nvdisasm-style listing (nvdisasm's or texlate's): address,
/// instruction text without ` ;`, word.
pub fn nvidia_instruction_lines(text: &str) -> Vec<(u64, String, u64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix("/*") else {
            continue;
        };
        let Some(end) = rest.find("*/") else { continue };
        let Ok(addr) = u64::from_str_radix(&rest[..end], 16) else {
            continue;
        };
        let body = &rest[end + 2..];
        let (Some(semi), Some(hex)) = (body.find(';'), body.find("/* 0x")) else {
            continue;
        };
        let Ok(word) = u64::from_str_radix(&body[hex + 5..hex + 21], 16) else {
            continue;
        };
        out.push((addr, body[..semi].trim().to_string(), word));
    }
    out
}

/// Intel's `visa-assemble` (GenX_IR), or `None` after a SKIPPED notice.
pub fn visa_assemble() -> Option<PathBuf> {
    let script = oracles_dir().join("intel/visa-assemble");
    let genx = std::process::Command::new("sh")
        .args(["-c", "command -v GenX_IR"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !script.exists() || !genx {
        skipped(
            "GenX_IR (../shared/oracles/intel/visa-assemble) is not installed; \
             run `sudo ../shared/oracles/intel/setup.sh`",
        );
        return None;
    }
    Some(script)
}

/// Runs a DXBC oracle command (`dxbc-disasm`, `dxbc-to-spirv`) with `args` once on all `files`; the
/// caller checks its per-file lines, not its exit status. `None` (with a SKIPPED notice) when
/// the oracle is not installed (exit code 3).
pub fn run_dxbc_oracle(name: &str, args: &[&str], files: &[PathBuf]) -> Option<String> {
    let out = std::process::Command::new(oracles_dir().join("dxbc").join(name))
        .args(args)
        .args(files)
        .output()
        .ok()?;
    if out.status.code() == Some(3) {
        skipped(&format!(
            "{name} is not installed (run shared/oracles/dxbc/setup.sh as root): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `dxbc-disasm`'s report split by its `==> FILE <==` headers: file stem → listing.
pub fn wine_listings(report: &str) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut current: Option<String> = None;
    for line in report.lines() {
        if let Some(name) = line
            .strip_prefix("==> ")
            .and_then(|l| l.strip_suffix(" <=="))
        {
            current = Some(
                Path::new(name)
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            continue;
        }
        if let Some(c) = &current {
            let e: &mut String = out.entry(c.clone()).or_default();
            e.push_str(line);
            e.push('\n');
        }
    }
    out
}

/// Prints `text` on the terminal even when libtest captures the test's output.
pub fn print_report(text: &str) {
    let _ = write!(std::io::stderr().lock(), "{text}");
}

/// Equal up to vkd3d-shader 1.6's spelling: a four-letter swizzle of one component written
/// as that component (`t0.xxxx` = `t0.x`); a sampler's select component not written.
pub fn dx_fold(s: &str) -> String {
    let mut out = String::new();
    for tok in s.split_inclusive([' ', ',']) {
        let (word, sep) = tok.split_at(tok.trim_end_matches([' ', ',']).len());
        let w = match word.split_once('.') {
            Some((reg, swz))
                if swz.len() == 4
                    && swz.chars().all(|c| "xyzw".contains(c))
                    && swz.chars().all(|c| swz.starts_with(c)) =>
            {
                format!("{reg}.{}", &swz[..1])
            }
            Some((reg, swz))
                if swz.len() == 1
                    && reg.starts_with('s')
                    && reg[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                reg.to_string()
            }
            _ => word.to_string(),
        };
        out.push_str(&w);
        out.push_str(sep);
    }
    out
}

/// A DX listing line as texlate prints it, from a line of Wine's (vkd3d-shader 1.6) listing:
/// read back with texlate's parser, assembled, decoded and printed.
pub fn dx_reprinted(wine_line: &str) -> Result<String, texlate::Error> {
    use texlate::isa::dxbc;
    let p = dxbc::parse_text(wine_line)?;
    let hex = dxbc::print_hex(&p)?;
    let words: Vec<&str> = hex.split_whitespace().collect();
    Ok(dxbc::print_text(&dxbc::decode_hex(&words)?)?
        .trim()
        .to_string())
}

/// The instruction lines of a DX listing: without the version line, declarations, `//`
/// comments, blank lines and the final `ret`.
pub fn dx_instruction_lines(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with("dcl_") && *l != "ret")
        .map(str::to_string)
        .collect()
}

// ---- One program per texture instruction of each corpus (tests/translate_corpus.rs and
// the offset emulations' corpus counts, tests/translate_dyn_offsets.rs).

/// Whether a line of `isa` text declares something the program's instructions need (DX
/// profile and `dcl_*` lines, vISA `.` directives).
pub fn is_declaration(isa: Isa, line: &str) -> bool {
    let t = line.trim_start();
    match isa {
        Isa::Dxbc => {
            t.starts_with("dcl_")
                || ["ps_", "vs_", "cs_", "gs_", "hs_", "ds_"]
                    .iter()
                    .any(|p| t.starts_with(p))
        }
        Isa::Visa => t.starts_with('.'),
        Isa::Nvidia => false,
    }
}

/// One program text per texture instruction of `text`: the declarations and that line.
pub fn singles(isa: Isa, text: &str) -> Vec<String> {
    let p = texlate::parse_text_with(
        isa,
        text,
        ReadOptions {
            igc_compatible: true,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Whole items: a declaration may span lines (DX's immediate constant buffer).
    let decls: String = p
        .items
        .iter()
        .filter_map(|i| match i {
            texlate::ir::Item::Opaque(o) => o.text.as_deref(),
            _ => None,
        })
        .filter(|l| is_declaration(isa, l))
        .map(|l| format!("{l}\n"))
        .collect();
    p.tex_instrs()
        .map(|t| format!("{decls}{}\n", lines[t.span.line as usize - 1]))
        .collect()
}

/// A source program's text and the bindings file it needs (name, text).
pub type Source = (String, Option<(String, String)>);

pub fn sources(from: Isa) -> Option<Vec<Source>> {
    let mut out = Vec::new();
    match from {
        Isa::Dxbc => {
            let dir = corpus("dxbc/blobs")?;
            for f in translate_corpus::files(&dir, ".dxbc") {
                let p = texlate::decode(from, &std::fs::read(&f).unwrap()).unwrap();
                let text = texlate::isa::codec(from).print_text(&p).unwrap();
                out.extend(singles(from, &text).into_iter().map(|s| (s, None)));
            }
        }
        Isa::Nvidia => {
            let tsv = corpus("nvidia/tex_pairs.tsv")?;
            for line in std::fs::read_to_string(tsv).unwrap().lines() {
                let cols: Vec<&str> = line.split('\t').collect();
                if line.starts_with('#') || cols.len() < 3 || !matches!(cols[0], "sm_50" | "sm_52")
                {
                    continue;
                }
                out.push((format!("{}\n", cols[2]), None));
            }
        }
        Isa::Visa => {
            let intel = corpus("intel")?;
            for d in translate_corpus::visa_dumps(&intel).0 {
                let text = std::fs::read_to_string(&d.path).unwrap();
                let bindings = Some(("bindings".to_string(), d.bindings));
                out.extend(
                    singles(from, &text)
                        .into_iter()
                        .map(|s| (s, bindings.clone())),
                );
            }
        }
    }
    Some(out)
}

/// Asserts `value` against `snapshots/<name>.snap` (insta), the project's one snapshot folder.
pub fn snap(name: &str, value: String) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, value);
    });
}

/// Every translation direction between the three ISAs.
pub const DIRECTIONS: [(Isa, Isa); 6] = [
    (Isa::Dxbc, Isa::Nvidia),
    (Isa::Dxbc, Isa::Visa),
    (Isa::Nvidia, Isa::Dxbc),
    (Isa::Nvidia, Isa::Visa),
    (Isa::Visa, Isa::Dxbc),
    (Isa::Visa, Isa::Nvidia),
];

/// Snapshots `direction(from, to)` of every direction as `<prefix>_<from>_to_<to>`.
pub fn snap_directions(prefix: &str, direction: impl Fn(Isa, Isa) -> String) {
    for (from, to) in DIRECTIONS {
        snap(
            &format!("{prefix}_{}_to_{}", from.name(), to.name()),
            direction(from, to),
        );
    }
}

/// `bytes` as lowercase hex, 32 bytes a line (binary outputs in snapshots).
pub fn hex_lines(bytes: &[u8]) -> String {
    bytes
        .chunks(32)
        .map(|c| texlate::isa::hex::bytes_hex(c, ""))
        .collect::<Vec<_>>()
        .join("\n")
}
