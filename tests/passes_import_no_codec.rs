//! The passes never import a codec (docs/translation.md): no file under `src/passes/` names
//! a codec module or asks for a codec. They see the IR, the target's caps, the rule table and
//! the `PassContext`; what they need of a codec comes in through `Target::groups`.

use std::fs;
use std::path::Path;

const FORBIDDEN: [&str; 4] = [
    "crate::isa::visa",
    "crate::isa::dxbc",
    "crate::isa::nvidia",
    "isa::codec(",
];

#[test]
fn no_pass_names_a_codec() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "{} files in src/passes", files.len());
    let mut found = Vec::new();
    for path in &files {
        let text = fs::read_to_string(path).unwrap();
        // `use crate::isa::{visa, ...}` and `super::super::isa::dxbc` name codecs too.
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for (n, line) in text.lines().enumerate() {
            for f in FORBIDDEN {
                if line.contains(f) {
                    found.push(format!("{}:{}: {f}", path.display(), n + 1));
                }
            }
        }
        for codec in ["visa", "dxbc", "nvidia"] {
            for pattern in [
                format!("isa::{{{codec}"),
                format!(", {codec}}}"),
                format!("isa::{codec}::"),
            ] {
                if flat.contains(&pattern)
                    && !found
                        .iter()
                        .any(|f| f.starts_with(&path.display().to_string()))
                {
                    found.push(format!("{}: {pattern}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "passes naming a codec:\n{}",
        found.join("\n")
    );
}
