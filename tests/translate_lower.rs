//! The passes, tested IR in → IR out: each case is a source program, lowered for a target;
//! the snapshot is the target-ready IR (canonical IR text) and the rules that fired.

use texlate::translate::{lower_program, Options};
use texlate::{ir, Isa};

fn lowered(from: Isa, to: Isa, src: &str) -> String {
    let program = texlate::decode(from, src.as_bytes()).expect("source parses");
    match lower_program(program, &Options::new(from, to)) {
        Ok(l) => {
            let mut s = ir::display_program(&l.ir);
            let report = l.report();
            for ins in &report.instructions {
                for r in &ins.rules {
                    s.push_str(&format!("; {r}\n"));
                }
            }
            for r in &report.register_map {
                s.push_str(&format!("; map {} -> {}\n", r.source, r.target));
            }
            s
        }
        Err(e) => format!("error: {e}"),
    }
}

const DX_HEAD: &str = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_resource_texture2darray (float,float,float,float) t1\ndcl_resource_texturecube (float,float,float,float) t2\ndcl_sampler s0, mode_default\ndcl_sampler s1, mode_comparison\n";

#[test]
fn dx_to_nvidia() {
    for (name, body) in [
        ("sample", "sample r0.xyzw, r1.xyxx, t0.xyzw, s0\n"),
        (
            "sample_offsets",
            "sample_aoffimmi(1,-2,0) r0.xyzw, r1.xyxx, t0.xyzw, s0\n",
        ),
        ("sample_array", "sample r0.xyzw, r1.xyzx, t1.xyzw, s0\n"),
        ("sample_cube", "sample r0.xyzw, r1.xyzx, t2.xyzw, s0\n"),
        (
            "sample_c_lz",
            "sample_c_lz r0.x, r1.xyxx, t0.xxxx, s1, r2.x\n",
        ),
        (
            "sample_l_zero",
            "sample_l r0.xyzw, r1.xyxx, t0.xyzw, s0, l(0.000000)\n",
        ),
        ("scattered_dst", "sample r0.yz, r1.xyxx, t0.xxyx, s0\n"),
        ("swapped_coords", "sample r0.xyzw, r1.yxyy, t0.xyzw, s0\n"),
    ] {
        let out = lowered(Isa::Dxbc, Isa::Nvidia, &format!("{DX_HEAD}{body}"));
        println!("== {name}\n{out}");
    }
}

#[test]
fn dx_to_visa_smoke() {
    let src = format!("{DX_HEAD}sample r0.xyzw, r1.xyxx, t0.xyzw, s0\nsample_l r2.xy, r1.xyzx, t1.xyzw, s0, r3.x\n");
    let program = texlate::decode(Isa::Dxbc, src.as_bytes()).unwrap();
    let t = texlate::translate::translate_program(program, &Options::new(Isa::Dxbc, Isa::Visa));
    match t {
        Ok(t) => println!("{}\n{}", String::from_utf8_lossy(&t.output), t.report()),
        Err(e) => println!("error: {e}"),
    }
}
