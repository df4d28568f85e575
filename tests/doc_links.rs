//! README and docs/ link only to what a clone holds: every relative Markdown link resolves
//! inside the repository, none points beside it (`../shared`).

use std::path::Path;

fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

#[test]
fn relative_links_resolve_inside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            files.push(entry.path());
        }
    }
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") || link.starts_with('#')
            {
                continue;
            }
            let target = link.split('#').next().unwrap();
            let resolved = file.parent().unwrap().join(target);
            let inside = resolved
                .canonicalize()
                .is_ok_and(|p| p.starts_with(root.canonicalize().unwrap()));
            if link.contains("../shared") || !inside {
                bad.push(format!("{}: {link}", file.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "links that do not resolve in a clone: {bad:#?}"
    );
}
