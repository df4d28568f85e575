//! `examples/c/translate.c` compiled with the system C compiler (`$CC`, else `cc`) against
//! `include/texlate.h` and the cdylib this package builds, then run: a translation with its
//! Report, and a rejected instruction (an error code and a compiler-style message).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding `libtexlate_capi`: the test binary's `deps/` or its parent, whichever
/// holds the newer build (`cargo build` copies the library up to the profile directory,
/// `cargo test` does not, so that copy can be stale).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("deps/");
    let file = format!(
        "{}texlate_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let found = [deps, deps.parent().expect("the profile directory")]
        .into_iter()
        .filter_map(|d| Some((d.join(&file).metadata().ok()?.modified().ok()?, d)))
        .max_by_key(|(modified, _)| *modified)
        .unwrap_or_else(|| panic!("{file} is built beside {}", deps.display()))
        .1
        .to_path_buf();
    found
}

/// The example, run with the library of [`library_dir`]: the loader's search path (which
/// `cargo test` sets to both directories, before the rpath) names that directory only.
fn example(exe: &Path) -> Command {
    let mut c = Command::new(exe);
    let lib = library_dir();
    c.env("LD_LIBRARY_PATH", &lib)
        .env("DYLD_LIBRARY_PATH", &lib);
    c
}

fn build_example() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = library_dir();
    let out = std::env::temp_dir().join(format!("texlate-c-example-{}", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&cc)
        .arg("-std=c99")
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(root.join("examples/c/translate.c"))
        .arg("-I")
        .arg(root.join("include"))
        .arg("-L")
        .arg(&lib)
        .arg("-ltexlate_capi")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("the C compiler `{cc}` runs (set CC): {e}"));
    assert!(
        o.status.success(),
        "{cc} fails on examples/c/translate.c:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

#[test]
fn the_c_example_translates_and_reports_errors() {
    let exe = build_example();

    let o = example(&exe).output().expect("the example runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("== dxbc -> nvidia"), "{out}");
    assert!(out.contains("TEX.P R0, R4, 0x0, 2D, 0xf"), "{out}");
    let report = out.split("== Report\n").nth(1).expect("a Report");
    let json: serde_json::Value = serde_json::from_str(report.trim()).expect("the Report is JSON");
    assert!(json.is_object(), "{report}");

    let o = example(&exe)
        .args(["nvidia", "dxbc", "TEXS R6, R4, R4, R5, 0x6e, 9D, RGBA"])
        .output()
        .expect("the example runs");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("status 1 (parse)"), "{err}");
    assert!(err.contains("--> <argument>:1:28"), "{err}");
    assert!(err.contains("^^ expected a dimension"), "{err}");
    assert!(err.contains(r#""kind":"parse""#), "{err}");

    let o = example(&exe)
        .args(["nvidia", "klingon", "TEXS"])
        .output()
        .expect("the example runs");
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_file(exe);
}
