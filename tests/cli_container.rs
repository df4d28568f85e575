//! The CLI reads IGC's `.isa` containers: `disasm` and `explain` print each kernel and the
//! sampler instructions as far as IGC 1.0.12504's writer kept them; `translate`, `explain
//! --from/--to` and `check` refuse with what the writer cut, never naming a library function
//! as the way out.

#[path = "support/mod.rs"]
mod support;

use std::fs;
use std::process::Command;

use texlate::isa::visa;

fn texlate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn isa_containers_from_the_cli() {
    let Some(dir) = support::corpus("intel/dumps/skl/c06_mipmap") else {
        return;
    };
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "isa"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files.iter().take(6) {
        let p = path.to_str().unwrap();
        let c = visa::decode_isa_container(&fs::read(path).unwrap()).unwrap();
        let samplers: usize = c.kernels.iter().map(|k| k.samplers.len()).sum();

        let (rc, out, err) = texlate(&["disasm", "--isa", "visa", p]);
        assert_eq!(rc, 0, "{p}: {err}");
        for k in &c.kernels {
            assert!(out.contains(&format!(".kernel \"{}\"", k.name)), "{out}");
        }
        assert_eq!(out.matches("(lost the last").count(), samplers, "{out}");
        // The listing is vISA text (comments only): it parses.
        texlate::parse_text_with(texlate::Isa::Visa, &out, Default::default()).unwrap();

        let (rc, out, err) = texlate(&["explain", "--isa", "visa", p]);
        assert_eq!(rc, 0, "{p}: {err}");
        assert!(out.contains("no IR"), "{out}");

        for args in [
            vec!["translate", "--from", "visa", "--to", "nvidia", p],
            vec!["explain", "--from", "visa", "--to", "dxbc", p],
            vec!["check", "--from", "visa", "--to", "nvidia", p],
        ] {
            let (rc, _, err) = texlate(&args);
            assert_eq!(rc, 1, "{args:?}: {err}");
            if samplers > 0 {
                assert!(
                    err.contains("none whole") && err.contains("lost the last"),
                    "{err}"
                );
            } else {
                assert!(err.contains("holds no sampler instruction"), "{err}");
            }
            assert!(!err.contains("decode_isa_container"), "{err}");
        }
    }
}
