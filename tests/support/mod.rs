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
