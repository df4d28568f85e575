//! Running the `texlate` binary: the command-line tests' runner, its output as text, scratch
//! directories.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `texlate ARGS` with nothing on standard input and `NO_COLOR` unset (colour then
/// follows the flags and the terminal only).
pub fn texlate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("texlate runs")
}

/// Runs `texlate ARGS` with `input` on standard input (read whole: the whole-program path
/// where a file would stream).
pub fn texlate_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_texlate"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("texlate runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input)
        .expect("stdin takes the input");
    child.wait_with_output().expect("texlate finishes")
}

/// Standard output as text (lossy: a binary output is compared as bytes instead).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error, which texlate writes as UTF-8.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// A fresh, empty scratch directory of this test binary and process, named `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "texlate-{}-{}-{name}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A path as the `&str` argument a command line takes.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("scratch paths are UTF-8")
}
