//! The passes see the IR, the target's capabilities (`mappings/targets.toml`), the rule table
//! and the `PassContext` — never a codec (docs/translation.md): no file under `src/passes/`
//! names anything of `crate::isa`. What they need of a codec comes in as data: the caps and
//! `Target::groups` (register groups described with `ir::layout`).

use std::fs;
use std::path::Path;

#[test]
fn no_pass_names_the_codecs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    assert!(files.len() >= 16, "{} files in src/passes", files.len());
    let mut found = Vec::new();
    for path in &files {
        let text = fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("crate::isa") || code.contains("super::isa") {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "passes naming crate::isa:\n{}",
        found.join("\n")
    );
}
