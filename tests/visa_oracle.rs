//! Opt-in: Intel's GenX_IR assembles every op form texlate prints (SKL and TGLLP).
//! Run with `cargo test --test visa_oracle -- --ignored`; needs the Intel oracle
//! (`sudo ../shared/oracles/intel/setup.sh`). See docs/visa.md.

use std::process::Command;

#[test]
#[ignore = "needs GenX_IR from ../shared/oracles/intel (setup.sh)"]
fn genx_ir_assembles_every_printed_op() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/oracle-visa.sh");
    let out = Command::new(script)
        .output()
        .expect("run scripts/oracle-visa.sh");
    let log = String::from_utf8_lossy(&out.stdout);
    eprintln!("{log}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        out.status.code(),
        Some(0),
        "GenX_IR rejected texlate's output"
    );
    assert_eq!(log.matches("ACCEPTED").count(), 2);
}
