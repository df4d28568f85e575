//! Every texture instruction of the vendor corpora evaluates in its own model, and a program
//! compared with itself through the identity register map agrees.

mod support;

use std::fs;

use texlate::check::{compare_identity, dxbc};
use texlate::ir::Isa;
use texlate::isa::dxbc::{container, tokens};
use texlate::translate::Bindings;

fn check(isa: Isa, program: &[u8], what: &str, failures: &mut Vec<String>) {
    match compare_identity(isa, program, &Bindings::default(), 11) {
        Ok(r) if r.agrees() && !r.pairs.is_empty() => {}
        Ok(r) => failures.push(format!("{what}: {r}")),
        Err(e) => failures.push(format!("{what}: {e}")),
    }
}

fn report(name: &str, count: usize, failures: &[String]) {
    assert!(count > 0, "{name}: no instruction found");
    assert!(
        failures.is_empty(),
        "{name}: {} of {count} failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    eprintln!("{name}: {count} texture instructions agree with themselves");
}

#[test]
fn nvidia_tex_pairs() {
    let Some(path) = support::corpus("nvidia/tex_pairs.tsv") else {
        return;
    };
    let text = fs::read_to_string(path).unwrap();
    let (mut count, mut failures) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let word = u64::from_str_radix(cols[1], 16).unwrap();
        let mut bytes = 0u64.to_le_bytes().to_vec();
        bytes.extend(word.to_le_bytes());
        check(
            Isa::Nvidia,
            &bytes,
            &format!("{} word", cols[3]),
            &mut failures,
        );
        check(
            Isa::Nvidia,
            cols[2].as_bytes(),
            &format!("{} text", cols[3]),
            &mut failures,
        );
        count += 1;
    }
    report("nvidia tex_pairs.tsv", count, &failures);
}

#[test]
fn dxbc_blobs() {
    let Some(dir) = support::corpus("dxbc/blobs") else {
        return;
    };
    let mut paths: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let (mut count, mut failures) = (0, Vec::new());
    for path in paths {
        let bytes = fs::read(&path).unwrap();
        let c = container::parse(&bytes).unwrap();
        let words = tokens::dwords(&c.chunks[c.program].data, 0).unwrap();
        let tp = tokens::decode_program(&words, 0).unwrap();
        let decls: Vec<_> = tp
            .instructions
            .iter()
            .map(|(_, i)| i)
            .filter(|i| dxbc::is_declaration(i.opcode))
            .collect();
        for (offset, i) in &tp.instructions {
            if !dxbc::is_texture(i.opcode) {
                continue;
            }
            let program = dxbc::single_instruction_program(tp.version, &decls, i).unwrap();
            let name = path.file_name().unwrap().to_string_lossy();
            check(
                Isa::Dxbc,
                &program,
                &format!("{name} @{offset:#x}"),
                &mut failures,
            );
            count += 1;
        }
    }
    report("dxbc blobs", count, &failures);
}

#[test]
fn visa_sampler_lines() {
    let Some(path) = support::corpus("intel/sampler_lines.txt") else {
        return;
    };
    let text = fs::read_to_string(path).unwrap();
    let (mut count, mut failures) = (0, Vec::new());
    let mut stores = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(header) = line.strip_prefix("@ ") else {
            continue;
        };
        let inst = lines.next().unwrap();
        if inst.trim_start().starts_with("scatter4_typed") {
            // A typed surface write: no sampler request (the model refuses stores).
            stores += 1;
            continue;
        }
        let mut decls = Vec::new();
        while let Some(l) = lines.peek() {
            if l.trim().is_empty() || l.starts_with('@') {
                break;
            }
            if let Some(d) = l.trim().strip_prefix("decl: ") {
                decls.push(d.to_string());
            }
            lines.next();
        }
        let mut program = decls.join("\n");
        program.push('\n');
        program.push_str(inst);
        program.push('\n');
        check(Isa::Visa, program.as_bytes(), header, &mut failures);
        count += 1;
    }
    eprintln!("vISA sampler_lines.txt: {stores} scatter4_typed stores skipped");
    report("vISA sampler_lines.txt", count, &failures);
}
