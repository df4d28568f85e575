//! Shared by the integration tests: where the vendor corpora live, and the notice a test
//! gives when they are absent.
#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `../shared/corpus/<sub>` (a folder or a file), or `None` after saying plainly that the
/// calling test is skipped.
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(sub);
    if path.exists() {
        Some(path)
    } else {
        skipped(&format!("../shared/corpus/{sub} not found"));
        None
    }
}

/// Says on the terminal that a test is skipped. libtest captures `eprintln!` of passing
/// tests, so this writes to the process's standard error directly.
pub fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {why}");
}

/// A bindings file for an IGC vISA dump of the corpus (`dumps/<platform>/<source>/<kernel>…`):
/// the kernel's image arguments, in order, are surfaces T6, T7, … (IGC gives the first image
/// binding-table index 0 in T6), their dimensions read from the kernel's OpenCL signature in
/// `<source>.cl`. Kernels made by a macro (`rf_##T##_smp_f`) carry the image type in their
/// name. `None` when the source or the kernel is not found.
pub fn visa_corpus_bindings(dump: &Path) -> Option<String> {
    let kernel = dump.file_name()?.to_str()?.split('.').next()?.to_string();
    let source = dump.parent()?.file_name()?.to_str()?.to_string();
    let cl = std::fs::read_to_string(
        dump.parent()?
            .parent()?
            .parent()?
            .parent()?
            .join(format!("{source}.cl")),
    )
    .ok()?;
    let types: Vec<String> = match cl.find(&format!("void {kernel}(")) {
        Some(at) => {
            let params = &cl[at..at + cl[at..].find(')')?];
            image_types(params)
        }
        None => image_types(&kernel),
    };
    if types.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (k, ty) in types.iter().enumerate() {
        let dim = match ty.as_str() {
            "image1d_t" => "1d",
            "image1d_array_t" => "1d_array",
            "image1d_buffer_t" => "buffer",
            "image2d_t" | "image2d_depth_t" => "2d",
            "image2d_array_t" | "image2d_array_depth_t" => "2d_array",
            "image2d_msaa_t" | "image2d_msaa_depth_t" => "2d_ms",
            "image2d_array_msaa_t" | "image2d_array_msaa_depth_t" => "2d_ms_array",
            "image3d_t" => "3d",
            _ => return None,
        };
        out.push_str(&format!(
            "[[binding]]\ndim = \"{dim}\"\nvisa = {{ texture = \"T{}\" }}\n",
            6 + k
        ));
    }
    Some(out)
}

fn image_types(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("image") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let word = &tail[..end];
        // `image2d_array_t_smp_f` in a kernel name: the type ends at `_t`.
        let ty = match word
            .find("_t_")
            .or_else(|| word.ends_with("_t").then(|| word.len() - 2))
        {
            Some(t) => &word[..t + 2],
            None => word,
        };
        if ty.ends_with("_t") && ty != "image_channel_data_t" {
            out.push(ty.to_string());
        }
        rest = &tail[end..];
    }
    out
}
