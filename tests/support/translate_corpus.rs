//! The corpus inputs of the translation oracle tier (`tests/translate_oracle.rs`) and the
//! translation benches (`benches/roundtrip.rs`, which includes this file by path): NVIDIA
//! listings split per kernel, and the bindings file of each vISA dump, derived from the
//! OpenCL source of its kernel.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The files of `dir` whose names end with `ext`, sorted (`""`: every entry).
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}

/// The kernels of an nvdisasm listing: each from its `//---- .text.<kernel>` header to the
/// next header, as (kernel name, text).
pub fn listing_kernels(src: &str) -> Vec<(String, String)> {
    let mut chunks: Vec<(String, String)> = Vec::new();
    for line in src.split_inclusive('\n') {
        if line.starts_with("//---------------------") {
            match line.split_whitespace().nth(1) {
                Some(h) if h.starts_with(".text.") => {
                    chunks.push((h[6..].to_string(), String::new()))
                }
                _ => {
                    if let Some((_, c)) = chunks.last() {
                        if !c.is_empty() {
                            chunks.push((String::new(), String::new()));
                        }
                    }
                }
            }
        }
        if let Some((name, c)) = chunks.last_mut() {
            if !name.is_empty() {
                c.push_str(line);
            }
        }
    }
    chunks.retain(|(n, _)| !n.is_empty());
    chunks
}

/// `#define NAME(params) body` macros of an OpenCL source expanded where they are invoked
/// at the start of a line (all the corpus needs: `c03_dims.cl`'s `BODY_F`).
pub fn expand_macros(cl: &str) -> String {
    let joined = cl.replace("\\\n", " ");
    let mut macros: Vec<(String, Vec<String>, String)> = Vec::new();
    let mut rest = String::new();
    for line in joined.lines() {
        if let Some(def) = line.trim_start().strip_prefix("#define ") {
            if let Some((head, body)) = def.split_once(')') {
                if let Some((name, params)) = head.split_once('(') {
                    let params = params.split(',').map(|p| p.trim().to_string()).collect();
                    macros.push((name.trim().to_string(), params, body.to_string()));
                    continue;
                }
            }
        }
        rest.push_str(line);
        rest.push('\n');
    }
    let mut out = String::new();
    'line: for line in rest.lines() {
        for (name, params, body) in &macros {
            let Some(args) = line
                .trim()
                .strip_prefix(name.as_str())
                .and_then(|a| a.trim().strip_prefix('('))
                .and_then(|a| a.trim_end().strip_suffix(')'))
            else {
                continue;
            };
            // Arguments split at commas outside parentheses.
            let (mut depth, mut cur, mut list) = (0, String::new(), Vec::new());
            for c in args.chars() {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ',' if depth == 0 => {
                        list.push(std::mem::take(&mut cur).trim().to_string());
                        continue;
                    }
                    _ => {}
                }
                cur.push(c);
            }
            list.push(cur.trim().to_string());
            // Identifiers that are parameters are replaced; `##` pastes.
            let body = body.replace(" ## ", "##");
            let mut expanded = String::new();
            let mut ident = String::new();
            let flush = |ident: &mut String, expanded: &mut String| {
                match params.iter().position(|p| p == ident) {
                    Some(k) => expanded.push_str(&list[k]),
                    None => expanded.push_str(ident),
                }
                ident.clear();
            };
            for c in body.chars() {
                if c.is_alphanumeric() || c == '_' {
                    ident.push(c);
                } else {
                    flush(&mut ident, &mut expanded);
                    expanded.push(c);
                }
            }
            flush(&mut ident, &mut expanded);
            out.push_str(&expanded.replace("##", ""));
            out.push('\n');
            continue 'line;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The bindings-file dimension of an OpenCL image type.
pub fn cl_dim(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "image1d_t" => "1d",
        "image1d_buffer_t" => "buffer",
        "image1d_array_t" => "1d_array",
        "image2d_t" | "image2d_depth_t" => "2d",
        "image2d_array_t" | "image2d_array_depth_t" => "2d_array",
        "image2d_msaa_t" | "image2d_msaa_depth_t" => "2d_ms",
        "image2d_array_msaa_t" | "image2d_array_msaa_depth_t" => "2d_ms_array",
        "image3d_t" => "3d",
        _ => return None,
    })
}

/// Per kernel of an OpenCL source: (dimension, return type) of its first image argument, and
/// whether another image argument has a different dimension.
pub fn cl_kernels(cl: &str) -> BTreeMap<String, (&'static str, &'static str, bool)> {
    let text = expand_macros(cl);
    let mut out = BTreeMap::new();
    let parts: Vec<&str> = text.split("__kernel").skip(1).collect();
    for part in parts {
        let Some((head, body)) = part.split_once(')') else {
            continue;
        };
        let Some((sig, params)) = head.split_once('(') else {
            continue;
        };
        let Some(name) = sig.split_whitespace().last() else {
            continue;
        };
        let dims: Vec<&'static str> = params
            .split(',')
            .filter_map(|p| p.split_whitespace().find_map(cl_dim))
            .collect();
        let Some(first) = dims.first() else { continue };
        let ret = if body.contains("read_imageui") {
            "uint"
        } else if body.contains("read_imagei") {
            "sint"
        } else {
            "float"
        };
        let mixed = dims.iter().any(|d| d != first);
        out.insert(name.to_string(), (*first, ret, mixed));
    }
    out
}

/// One vISA dump: its name (`<platform>_<group>_<kernel>`), path and bindings file.
pub struct VisaDump {
    pub name: String,
    pub path: PathBuf,
    pub bindings: String,
}

/// Every `.visaasm` dump under `intel/dumps`, with a bindings file giving surface `T6` the
/// dimension and return type of the kernel's first image argument in its OpenCL source
/// (`intel/<group>.cl`). A GenISA kernel (`llvm_genisa`) names no image type: `2d`, or `2d_ms`
/// for the ops that exist for multisampled surfaces only. Also returns how many dumps got
/// such a default, and how many kernels have image arguments of more than one dimension.
pub fn visa_dumps(intel: &Path) -> (Vec<VisaDump>, usize, usize) {
    let mut out = Vec::new();
    let (mut defaulted, mut mixed) = (0, 0);
    for plat in files(&intel.join("dumps"), "") {
        for group in files(&plat, "") {
            let group_name = group.file_name().unwrap().to_string_lossy().into_owned();
            let kernels = std::fs::read_to_string(intel.join(format!("{group_name}.cl")))
                .map(|s| cl_kernels(&s))
                .unwrap_or_default();
            for path in files(&group, ".visaasm") {
                let file = path.file_name().unwrap().to_string_lossy().into_owned();
                let kernel = file.split('.').next().unwrap().to_string();
                let (dim, ret) = match kernels.get(&kernel) {
                    Some(&(d, r, m)) => {
                        mixed += usize::from(m);
                        (d, r)
                    }
                    None if ["gi_ldms", "gi_ldmcs", "gi_sampleinfo"].contains(&kernel.as_str()) => {
                        defaulted += 1;
                        ("2d_ms", "float")
                    }
                    None => {
                        defaulted += 1;
                        ("2d", "float")
                    }
                };
                out.push(VisaDump {
                    name: format!(
                        "{}_{group_name}_{kernel}",
                        plat.file_name().unwrap().to_string_lossy()
                    ),
                    path,
                    bindings: format!(
                        "[[binding]]\ndim = \"{dim}\"\nreturn = \"{ret}\"\nvisa = {{ texture = \"T6\" }}\n"
                    ),
                });
            }
        }
    }
    (out, defaulted, mixed)
}

/// The declarations every DX case of `tests/cases/translate/dxbc.txt` is given.
pub const CASES_DX_HEAD: &str = "ps_5_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2darray (float,float,float,float) t1
dcl_resource_texturecube (float,float,float,float) t2
dcl_resource_texture3d (float,float,float,float) t3
dcl_resource_texture2dms(4) (float,float,float,float) t4
dcl_sampler s0, mode_default
dcl_sampler s1, mode_comparison
";

/// The bindings of the vISA cases (`tests/cases/translate/visa.txt`): vISA names no
/// dimension.
pub const CASES_VISA_BINDINGS: &str = r#"
[[binding]]
dim = "2d"
visa = { texture = "T6" }
[[binding]]
dim = "2d"
visa = { texture = "T7" }
[[binding]]
dim = "cube"
visa = { texture = "T8" }
[[binding]]
dim = "2d_array"
visa = { texture = "T9" }
"#;

/// The hand-written translation cases of `isa` (`tests/cases/translate/<isa>.txt`, one
/// instruction a line): each as a whole source program, with the bindings file it needs.
pub fn translate_cases(isa: texlate::Isa) -> Vec<(String, Option<(String, String)>)> {
    cases_in("translate", isa)
}

/// The cases of `tests/cases/<dir>/<isa>.txt` (one instruction a line), each as a whole
/// source program with the bindings file it needs (as [`translate_cases`]).
pub fn cases_in(dir: &str, isa: texlate::Isa) -> Vec<(String, Option<(String, String)>)> {
    let name = match isa {
        texlate::Isa::Dxbc => "dxbc",
        texlate::Isa::Nvidia => "nvidia",
        texlate::Isa::Visa => "visa",
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases")
        .join(dir)
        .join(format!("{name}.txt"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| match isa {
            texlate::Isa::Dxbc => (format!("{CASES_DX_HEAD}{l}\n"), None),
            texlate::Isa::Visa => (
                format!("{l}\n"),
                Some(("bindings".to_string(), CASES_VISA_BINDINGS.to_string())),
            ),
            texlate::Isa::Nvidia => (format!("{l}\n"), None),
        })
        .collect()
}
