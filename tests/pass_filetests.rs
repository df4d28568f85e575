//! Pass filetests, as cranelift's `filetests`: each `tests/passes/*.irtest` names a pass (or
//! `all`), the source and target ISAs and the options, gives input IR in the canonical text
//! (`texlate::ir::parse_program`) and the expected IR after that pass, or the expected error.
//! `TEXLATE_BLESS=1 cargo test --test pass_filetests` rewrites the expectations.
//!
//! ```text
//! ; what the case shows (`;` lines are comments anywhere before the expectation)
//! test lower_offsets            ; a pass of passes::PASSES, or `all`
//! from dxbc
//! to nvidia
//! simd 16                       ; --simd (default 16)
//! grad exact                    ; --grad exact|approx|error (default exact)
//! bindings [[binding]]          ; lines of an inline --bindings file
//! bindings dim = "2d"
//! regmap [[map]]                ; lines of an inline --regmap file
//! constant 0 r9.0 0xe1          ; texture instruction 0 reads r9.0 = 0xe1 (fold_constants)
//! layout %3 consecutive 4       ; or `one_register`, `channel_blocks 64` (align_regs' output)
//! vtype %3.0 u32                ; the type of a virtual element
//! input:
//! sample 2d tex=#0 smp=#0 coord=(r1.0, r1.1) offset=(1, -2, 0) -> r=r0.0
//! output:                       ; or `error: <the error's text>`
//! ...
//! ```
//!
//! An expected error ending in `...` matches every error that starts with its text. A case
//! with an `xfail <why>` line records a known bug of the pass: its expectation is what the
//! pass should do; the runner reports it as XFAIL while the pass still does otherwise, fails
//! once the pass is fixed (remove the line then), and blessing leaves it alone.
//!
//! The output is the items after the pass (`display_program_full`: with the declarations the
//! passes collected and the exec widths), then what the pass added to the context: bindings
//! rows, register-map entries, virtual layouts and types, and the notes it recorded. Errors
//! speak in lines of the `.irtest` file.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use texlate::ir::{display_program_full, parse_item, parse_program, Isa, Item, Program, Scalar};
use texlate::isa::{codec, GroupLayout};
use texlate::passes::{self, PassContext, Target, PASSES};
use texlate::translate::{Bindings, RegisterMap};

struct Case {
    path: PathBuf,
    text: String,
    pass: String,
    from: Isa,
    to: Isa,
    simd: u8,
    grad: texlate::translate::GradPolicy,
    bindings: String,
    regmap: String,
    constants: Vec<(usize, texlate::ir::Reg, u32)>,
    layouts: Vec<(u32, GroupLayout)>,
    vtypes: Vec<((u32, u32), texlate::ir::ScalarType)>,
    /// A known bug of the pass: the expectation is what the pass should do, and it does not.
    xfail: Option<String>,
    /// The file with every line but the input's blanked, so parse errors name file lines.
    input: String,
    /// Byte offset of the `output:` or `error:` line.
    expect_at: usize,
}

fn isa(name: &str) -> Result<Isa, String> {
    match name {
        "visa" => Ok(Isa::Visa),
        "dxbc" => Ok(Isa::Dxbc),
        "nvidia" => Ok(Isa::Nvidia),
        _ => Err(format!("unknown ISA `{name}`")),
    }
}

/// A virtual register `%N.S` (or `%N`) as the IR text spells it.
fn virtual_reg(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{s}` is not a virtual register `%N.S`");
    let rest = s.strip_prefix('%').ok_or_else(bad)?;
    let (i, sub) = rest.split_once('.').unwrap_or((rest, "0"));
    Ok((
        i.parse().map_err(|_| bad())?,
        sub.parse().map_err(|_| bad())?,
    ))
}

/// Any scalar of the IR text, read through an ALU line.
fn scalar(s: &str) -> Result<Scalar, String> {
    match parse_item(&format!("alu mov {s} <-")) {
        Ok(Item::Alu(a)) => Ok(a.dst),
        Ok(_) => Err(format!("`{s}` is not a scalar")),
        Err(e) => Err(format!("`{s}`: {e}")),
    }
}

fn parse_case(path: &Path) -> Result<Case, String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut case = Case {
        path: path.to_path_buf(),
        text: text.clone(),
        pass: String::new(),
        from: Isa::Dxbc,
        to: Isa::Nvidia,
        simd: 16,
        grad: texlate::translate::GradPolicy::Exact,
        bindings: String::new(),
        regmap: String::new(),
        constants: Vec::new(),
        layouts: Vec::new(),
        vtypes: Vec::new(),
        xfail: None,
        input: String::new(),
        expect_at: text.len(),
    };
    let (mut from, mut to) = (None, None);
    let mut in_input = false;
    let mut offset = 0;
    let mut found_expect = false;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let at = offset;
        offset += line.len();
        let body = line.trim_end();
        let err = |m: String| format!("line {}: {m}", n + 1);
        if body == "output:" || body.starts_with("error:") {
            case.expect_at = at;
            found_expect = true;
            break;
        }
        if in_input {
            if body.trim_start().starts_with(';') {
                case.input.push('\n');
            } else {
                case.input.push_str(body);
                case.input.push('\n');
            }
            continue;
        }
        case.input.push('\n');
        let body = body.split(" ;").next().unwrap_or("").trim();
        if body.is_empty() || body.starts_with(';') {
            continue;
        }
        if body == "input:" {
            in_input = true;
            continue;
        }
        let (key, value) = body.split_once(' ').unwrap_or((body, ""));
        let words: Vec<&str> = value.split_whitespace().collect();
        match key {
            "test" => case.pass = value.trim().to_string(),
            "xfail" => case.xfail = Some(value.trim().to_string()),
            "from" => from = Some(isa(value.trim()).map_err(err)?),
            "to" => to = Some(isa(value.trim()).map_err(err)?),
            "simd" => case.simd = value.trim().parse().map_err(|e| err(format!("{e}")))?,
            "grad" => {
                use texlate::translate::GradPolicy;
                case.grad = match value.trim() {
                    "exact" => GradPolicy::Exact,
                    "approx" => GradPolicy::Approx,
                    "error" => GradPolicy::Error,
                    other => return Err(err(format!("unknown gradient policy `{other}`"))),
                };
            }
            "bindings" => {
                case.bindings.push_str(value);
                case.bindings.push('\n');
            }
            "regmap" => {
                case.regmap.push_str(value);
                case.regmap.push('\n');
            }
            "constant" => {
                let [k, reg, bits] = words[..] else {
                    return Err(err("expected `constant <n> <reg> <bits>`".into()));
                };
                let Scalar::Reg(reg) = scalar(reg).map_err(err)? else {
                    return Err(err("a constant is held by a register".into()));
                };
                let bits = u32::from_str_radix(bits.trim_start_matches("0x"), 16)
                    .map_err(|e| err(format!("{e}")))?;
                case.constants
                    .push((k.parse().map_err(|e| err(format!("{e}")))?, reg, bits));
            }
            "layout" => {
                let (v, _) = virtual_reg(words.first().copied().unwrap_or("")).map_err(err)?;
                let number = |i: usize| -> Result<u32, String> {
                    words
                        .get(i)
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| err("expected a number".into()))
                };
                let layout = match words.get(1).copied() {
                    Some("consecutive") => GroupLayout::Consecutive { align: number(2)? },
                    Some("one_register") => GroupLayout::OneRegister,
                    Some("channel_blocks") => GroupLayout::ChannelBlocks { stride: number(2)? },
                    _ => return Err(err("expected a layout".into())),
                };
                case.layouts.push((v, layout));
            }
            "vtype" => {
                let [reg, ty] = words[..] else {
                    return Err(err("expected `vtype %N.S <type>`".into()));
                };
                let Scalar::Imm(imm) = scalar(&format!("0x0:{ty}")).map_err(err)? else {
                    return Err(err(format!("`{ty}` is not a type")));
                };
                case.vtypes.push((virtual_reg(reg).map_err(err)?, imm.ty));
            }
            _ => return Err(err(format!("unknown header directive `{key}`"))),
        }
    }
    if !found_expect {
        return Err("no `output:` or `error:` line".into());
    }
    case.from = from.ok_or("no `from` line")?;
    case.to = to.ok_or("no `to` line")?;
    if case.pass != "all" && !PASSES.contains(&case.pass.as_str()) {
        return Err(format!("`test {}` names no pass", case.pass));
    }
    Ok(case)
}

fn layout_text(l: GroupLayout) -> String {
    match l {
        GroupLayout::Consecutive { align } => format!("consecutive {align}"),
        GroupLayout::OneRegister => "one_register".into(),
        GroupLayout::ChannelBlocks { stride } => format!("channel_blocks {stride}"),
    }
}

/// What the case produces: `output:` and the IR and context, or `error: ...`.
fn run_case(case: &Case) -> Result<String, String> {
    let program = match parse_program(case.from, &case.input) {
        Ok(p) => p,
        Err(e) => return Ok(format!("error: parse error: {e}\n")),
    };
    let bindings = Bindings::parse("bindings", &case.bindings).map_err(|e| e.to_string())?;
    let regmap = RegisterMap::parse("regmap", &case.regmap, case.from, case.to)
        .map_err(|e| e.to_string())?;
    let target_codec = codec(case.to);
    let groups = |t: &texlate::ir::TexInstr| target_codec.register_groups(t);
    let target = Target {
        isa: case.to,
        caps: target_codec.caps(),
        groups: &groups,
    };
    let mut ctx = PassContext::new(case.from, target, bindings.clone(), regmap.clone());
    ctx.simd = case.simd;
    ctx.grad = case.grad;
    ctx.text_input = true;
    for &(k, reg, bits) in &case.constants {
        if ctx.constants.len() <= k {
            ctx.constants.resize(k + 1, Vec::new());
        }
        ctx.constants[k].push((reg, bits));
    }
    ctx.virtual_layouts.extend(case.layouts.iter().copied());
    ctx.virtual_types.extend(case.vtypes.iter().copied());
    passes::reserve_virtuals(&program.items, &mut ctx);
    let result = if case.pass == "all" {
        passes::run(program.items, &mut ctx)
    } else {
        passes::run_pass(&case.pass, program.items, &mut ctx).expect("checked in parse_case")
    };
    let items = match result {
        Ok(items) => items,
        Err(e) => return Ok(format!("error: {e}\n")),
    };
    let mut out = Program::new(case.to);
    out.items = items;
    out.resources = ctx.resources.clone();
    out.samplers = ctx.samplers.clone();
    out.variables = ctx.variables.clone();
    let mut s = String::from("output:\n");
    s.push_str(&display_program_full(&out));
    for (i, row) in ctx
        .bindings
        .rows
        .iter()
        .enumerate()
        .skip(bindings.rows.len())
    {
        let toml = Bindings::row_toml(row);
        let fields: Vec<&str> = toml
            .lines()
            .filter(|l| !l.trim().is_empty() && *l != "[[binding]]")
            .collect();
        let _ = writeln!(s, "; binding row {}: {}", i + 1, fields.join("; "));
    }
    for (src, dst) in &ctx.regmap.entries {
        if regmap.get(src).is_none() {
            let _ = writeln!(s, "; map {src} -> {dst}");
        }
    }
    let mut layouts: Vec<_> = ctx
        .virtual_layouts
        .iter()
        .filter(|(v, _)| !case.layouts.iter().any(|(w, _)| w == *v))
        .collect();
    layouts.sort_by_key(|(v, _)| **v);
    for (v, l) in layouts {
        let _ = writeln!(s, "; layout %{v} {}", layout_text(*l));
    }
    let mut vtypes: Vec<_> = ctx
        .virtual_types
        .iter()
        .filter(|(v, _)| !case.vtypes.iter().any(|(w, _)| w == *v))
        .collect();
    vtypes.sort_by_key(|(v, _)| **v);
    for ((v, e), ty) in vtypes {
        let _ = writeln!(s, "; vtype %{v}.{e} {ty}");
    }
    for n in &ctx.notes {
        let kind = if n.warning { "warning" } else { "note" };
        let _ = writeln!(s, "; {kind} {} line {}: {}", n.pass, n.span.line, n.detail);
    }
    Ok(s)
}

/// Whether `actual` is what `expected` says: the same text, or, for an expectation
/// `error: <start>...`, an error whose text starts so.
fn matches(expected: &str, actual: &str) -> bool {
    let (expected, actual) = (normalized(expected), normalized(actual));
    match expected.strip_suffix("...") {
        Some(start) if start.starts_with("error:") && !start.contains('\n') => {
            actual.starts_with(start)
        }
        _ => expected == actual,
    }
}

fn normalized(s: &str) -> String {
    let lines: Vec<&str> = s.lines().map(str::trim_end).collect();
    let mut s = lines.join("\n");
    while s.ends_with('\n') {
        s.pop();
    }
    s
}

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "irtest"))
        .collect();
    files.sort();
    files
}

#[test]
fn pass_filetests() {
    let bless = std::env::var_os("TEXLATE_BLESS").is_some_and(|v| v == "1");
    let only = std::env::var("TEXLATE_FILETEST").ok();
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut xfails = Vec::new();
    for path in cases() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        ran += 1;
        let case = match parse_case(&path) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let actual = match run_case(&case) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let expected = &case.text[case.expect_at..];
        let ok = matches(expected, &actual);
        if let Some(why) = &case.xfail {
            // Known bugs stay listed until the pass is fixed; bless leaves them alone.
            if ok {
                failures.push(format!("{name}: passes now: remove its `xfail` line"));
            } else {
                let _ = writeln!(std::io::stderr(), "XFAIL {name}: {why}");
                xfails.push(name);
            }
            continue;
        }
        if ok {
            continue;
        }
        if bless {
            let text = format!("{}{actual}", &case.text[..case.expect_at]);
            fs::write(&case.path, text).unwrap();
        } else {
            failures.push(format!(
                "{name}: expected\n{}\n--- got\n{}",
                normalized(expected),
                normalized(&actual)
            ));
        }
    }
    assert!(ran > 0, "no filetests ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} filetests fail (TEXLATE_BLESS=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Every pass has a filetest of its own.
#[test]
fn every_pass_has_a_filetest() {
    let mut missing: Vec<&str> = PASSES.to_vec();
    for path in cases() {
        let case = parse_case(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        missing.retain(|p| *p != case.pass);
    }
    assert!(missing.is_empty(), "passes without a filetest: {missing:?}");
}
