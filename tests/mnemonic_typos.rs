//! A misspelled mnemonic is a parse error with line and column, never a silently kept line.
//! The typos are derived from the corpora: for each distinct mnemonic (texture and
//! non-texture) of every file of each ISA, the first line that uses it is mutated in place
//! (a letter appended, two letters swapped; NVIDIA also a modifier) and the whole file must be
//! refused at that line and column, naming the mutated word. The same typos on single lines
//! through `texlate asm --hex` exit 1 with a located message and no output.

#[path = "support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use texlate::ir::Isa;
use texlate::{Error, ReadOptions};

/// A mnemonic found in a corpus line: the file, the 0-based line, the byte range of the word.
#[derive(Clone)]
struct Site {
    file: String,
    line: usize,
    start: usize,
    end: usize,
}

/// The word of `line` that is its mnemonic, as a byte range.
fn visa_mnemonic(line: &str) -> Option<(usize, usize)> {
    let t = line.trim_start();
    let mut at = line.len() - t.len();
    if t.is_empty() || t.starts_with("//") || t.starts_with('.') || t.starts_with("/*") {
        return None;
    }
    let mut rest = t;
    if rest.starts_with('(') {
        let close = rest.find(')')? + 1;
        let after = rest[close..].trim_start();
        at += rest.len() - after.len();
        rest = after;
    }
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '.')
        .unwrap_or(rest.len());
    if rest[..end].ends_with(':') || end == 0 {
        return None;
    }
    Some((at, at + end))
}

/// The first token of an NVIDIA listing instruction line (`/*0018*/ {@P0 TEX.B.P ...`) as a
/// byte range, with the base mnemonic's end.
fn nvidia_token(line: &str) -> Option<(usize, usize, usize)> {
    let skip = |s: &str, i: usize| i + (s[i..].len() - s[i..].trim_start().len());
    let mut i = skip(line, 0);
    let rest = &line[i..];
    let addr = rest.strip_prefix("/*")?;
    let close = addr.find("*/")?;
    if close == 0 || !addr[..close].bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    i = skip(line, i + 2 + close + 2);
    if line[i..].starts_with('{') {
        i = skip(line, i + 1);
    }
    if line[i..].starts_with('@') {
        let end = line[i..].find(' ')?;
        i = skip(line, i + end);
    }
    let rest = &line[i..];
    if !rest.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let end = rest
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(rest.len());
    let base = rest.find('.').filter(|d| *d < end).unwrap_or(end);
    Some((i, i + base, i + end))
}

/// The mnemonic of a DXBC listing line.
fn dxbc_mnemonic(line: &str) -> Option<(usize, usize)> {
    let t = line.trim_start();
    let at = line.len() - t.len();
    if t.is_empty()
        || t.starts_with("//")
        || !t.starts_with(|c: char| c.is_ascii_lowercase())
        || t.starts_with("vs_")
        || t.starts_with("ps_")
        || t.starts_with("cs_")
        || t.starts_with("gs_")
        || t.starts_with("hs_")
        || t.starts_with("ds_")
    {
        return None;
    }
    let end = t
        .find(|c: char| c.is_whitespace() || c == '(')
        .unwrap_or(t.len());
    Some((at, at + end))
}

/// Misspellings of `word` that are not a known mnemonic.
fn typos(word: &str, upper: bool, known: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = vec![format!("{word}{}", if upper { 'Q' } else { 'q' })];
    let b = word.as_bytes();
    if b.len() >= 3 && b[1] != b[2] {
        let mut s = b.to_vec();
        s.swap(1, 2);
        out.push(String::from_utf8(s).unwrap());
    }
    out.retain(|t| !known(t));
    out
}

/// Replaces `start..end` of line `line` of `text` by `with`.
fn mutated(text: &str, line: usize, start: usize, end: usize, with: &str) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    lines[line].replace_range(start..end, with);
    lines.join("\n")
}

/// Parses `text` and checks it is refused at `line` (0-based) and `start` (byte), naming
/// `token`.
fn expect_refused(
    isa: Isa,
    text: &str,
    site: &Site,
    start: usize,
    token: &str,
) -> Result<(), String> {
    // An NVIDIA listing of a later SM (`x.sm_60.sass`) is read for that SM.
    let sm = site
        .file
        .split('.')
        .find_map(texlate::isa::nvidia::Sm::parse)
        .unwrap_or_default();
    let read = ReadOptions {
        igc_compatible: true,
        sm,
    };
    match texlate::parse_text_with(isa, text, read) {
        Err(Error::Parse(p)) => {
            let line_text = text.split('\n').nth(site.line).unwrap_or("");
            let column = line_text[..start].chars().count() as u32 + 1;
            if p.line as usize == site.line + 1 && p.column == column && p.token == token {
                Ok(())
            } else {
                Err(format!(
                    "{} line {}: `{token}` refused at line {} column {} (token `{}`), expected column {column}",
                    site.file,
                    site.line + 1,
                    p.line,
                    p.column,
                    p.token
                ))
            }
        }
        Err(e) => Err(format!(
            "{} line {}: `{token}` refused with a non-parse error: {e}",
            site.file,
            site.line + 1
        )),
        Ok(_) => Err(format!(
            "{} line {}: `{token}` was accepted",
            site.file,
            site.line + 1
        )),
    }
}

/// The files of `dir` (recursively) ending in one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, exts, out);
        } else if exts.iter().any(|e| p.to_string_lossy().ends_with(e)) {
            out.push(p);
        }
    }
}

fn texlate_asm(isa: &str, line: &str) -> (i32, String, Vec<u8>) {
    use std::io::Write as _;
    use std::process::Stdio;
    // Standard input: a single word on the command line is read as a path.
    let mut child = Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(["asm", "--isa", isa, "--hex", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.stdout,
    )
}

/// Finds a line's first word: (start, end of the base mnemonic, end of the word).
type Finder = dyn Fn(&str) -> Option<(usize, usize, usize)>;

/// Runs the whole check for one ISA; returns (files, distinct words, typos refused, the
/// single-line typos for the CLI).
fn check_isa(
    isa: Isa,
    paths: &[std::path::PathBuf],
    find: &Finder,
    known: &dyn Fn(&str) -> bool,
    upper: bool,
    failures: &mut Vec<String>,
) -> (usize, usize, Vec<String>) {
    // First site of each distinct token (the whole first word; its base is mutated, and for
    // NVIDIA also its last modifier).
    let mut sites: BTreeMap<String, (Site, usize, String)> = BTreeMap::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for p in paths {
        let text = fs::read_to_string(p).unwrap();
        let name = p.to_string_lossy().into_owned();
        let mut used = false;
        // fxc's listing of a DX9-level shader embeds its SM2 program ("Level9 shader
        // bytecode") before the SM4 one; texlate keeps that part as comments of the listing.
        let mut level9 = false;
        for (i, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if isa == Isa::Dxbc {
                let t = line.trim();
                if t.contains("Level9 shader bytecode") {
                    level9 = true;
                } else if level9
                    && t.len() == 6
                    && t.as_bytes()[2] == b'_'
                    && t.as_bytes()[3] >= b'4'
                {
                    level9 = false;
                }
                if level9 {
                    continue;
                }
            }
            let Some((start, base_end, end)) = find(line) else {
                continue;
            };
            let token = line[start..end].to_string();
            if sites.contains_key(&token) {
                continue;
            }
            used = true;
            let site = Site {
                file: name.clone(),
                line: i,
                start,
                end: base_end,
            };
            sites.insert(token.clone(), (site, end, line.to_string()));
        }
        if used {
            texts.insert(name, text);
        }
    }
    let mut refused = 0;
    let mut singles = Vec::new();
    for (token, (site, end, line)) in &sites {
        let whole = &texts[&site.file];
        // NVIDIA listings are megabytes and their lines independent: a window of the listing
        // around the line (excerpts parse, tests/nvidia_robustness.rs) keeps the test fast.
        let (text, site) = if isa == Isa::Nvidia {
            let first = site.line.saturating_sub(40);
            let window: Vec<&str> = whole
                .split('\n')
                .skip(first)
                .take(site.line - first + 8)
                .collect();
            (
                window.join("\n"),
                Site {
                    line: site.line - first,
                    ..site.clone()
                },
            )
        } else {
            (whole.clone(), site.clone())
        };
        let (text, site) = (&text, &site);
        let base = &line[site.start..site.end];
        for typo in typos(base, upper, known) {
            let m = mutated(text, site.line, site.start, site.end, &typo);
            match expect_refused(isa, &m, site, site.start, &typo) {
                Ok(()) => refused += 1,
                Err(e) => failures.push(e),
            }
            if singles.len() < 12 {
                let mut one = line.clone();
                one.replace_range(site.start..site.end, &typo);
                singles.push(one);
            }
        }
        // A misspelled modifier (NVIDIA): the last `.X` of the token becomes `.XQ`.
        if upper && *end > site.end {
            let dot = site.start + token.rfind('.').unwrap();
            let modifier = &line[dot + 1..*end];
            let typo = format!("{modifier}Q");
            let m = mutated(text, site.line, dot + 1, *end, &typo);
            let msite = Site {
                start: dot + 1,
                ..site.clone()
            };
            match expect_refused(isa, &m, &msite, dot + 1, &typo) {
                Ok(()) => refused += 1,
                Err(e) => failures.push(e),
            }
        }
    }
    (texts.len(), refused, singles)
}

#[test]
fn misspelled_mnemonics_are_refused() {
    let Some(intel) = support::corpus("intel/dumps") else {
        return;
    };
    let (Some(nvidia), Some(dxbc)) = (support::corpus("nvidia"), support::corpus("dxbc/asm"))
    else {
        return;
    };
    let mut failures = Vec::new();
    let mut report = Vec::new();

    let mut paths = Vec::new();
    files(&intel, &[".visaasm"], &mut paths);
    paths.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/visa/all_ops.visaasm"));
    let (n, refused, singles) = check_isa(
        Isa::Visa,
        &paths,
        &|l| visa_mnemonic(l).map(|(s, e)| (s, e, e)),
        &texlate::isa::visa::is_mnemonic,
        false,
        &mut failures,
    );
    report.push(format!("visa: {refused} typos refused in {n} files"));
    let visa_singles = singles;

    let mut paths = Vec::new();
    files(&nvidia, &[".sass"], &mut paths);
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/nvidia"),
        &[".sass", ".cuobjdump.txt", ".nvdisasm.txt"],
        &mut paths,
    );
    let (n, refused, singles) = check_isa(
        Isa::Nvidia,
        &paths,
        &nvidia_token,
        &texlate::isa::nvidia::mnemonics::is_mnemonic,
        true,
        &mut failures,
    );
    report.push(format!("nvidia: {refused} typos refused in {n} files"));
    let nvidia_singles = singles;

    let mut paths = Vec::new();
    files(&dxbc, &[".asm"], &mut paths);
    let (n, refused, singles) = check_isa(
        Isa::Dxbc,
        &paths,
        &|l| dxbc_mnemonic(l).map(|(s, e)| (s, e, e)),
        &|_| false,
        false,
        &mut failures,
    );
    report.push(format!("dxbc: {refused} typos refused in {n} files"));
    let dxbc_singles = singles;

    // Single lines through the CLI: exit 1, a located message, nothing on stdout.
    let mut cli = 0;
    for (isa, singles) in [
        ("visa", &visa_singles),
        ("nvidia", &nvidia_singles),
        ("dxbc", &dxbc_singles),
    ] {
        for line in singles {
            // NVIDIA listing lines: keep the instruction text only.
            let text = match isa {
                "nvidia" => {
                    let (s, _, _) = nvidia_token(line).unwrap();
                    let body = &line[s..];
                    let body = body[..body.find(';').unwrap_or(body.len())].trim_end();
                    let guard = line[..s]
                        .rfind('@')
                        .map(|g| line[g..s].to_string())
                        .unwrap_or_default();
                    format!("{guard}{body}")
                }
                _ => line.trim().to_string(),
            };
            let (rc, err, out) = texlate_asm(isa, &text);
            if rc == 1 && err.contains("<stdin>:1:") && out.is_empty() {
                cli += 1;
            } else {
                failures.push(format!("asm --isa {isa} --hex `{text}`: rc {rc}, {err}"));
            }
        }
    }
    report.push(format!("cli: {cli} single-line typos refused by asm --hex"));
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
