//! `include/texlate.h` is what cbindgen generates from `capi/src/lib.rs` (with
//! `capi/cbindgen.toml`). `TEXLATE_BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn the_committed_header_is_up_to_date() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the C API")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("../include/texlate.h");
    if std::env::var_os("TEXLATE_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("include/texlate.h is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/texlate.h is stale: run `TEXLATE_BLESS=1 cargo test -p texlate-capi --test header`"
    );
}
