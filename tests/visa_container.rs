//! IGC 12504 `.isa` containers (research §6): a small container built here walks to its
//! sampler instructions; cut short or with any byte changed it never panics, and a
//! malformed one is a decode error at a byte offset inside the input.

mod mutate;
mod support;

use std::fs;

use mutate::{byte_substitutes, no_panic};
use texlate::error::Error;
use texlate::isa::visa::{self, Raw};

/// texlate's full-layout encoding of one sampler line.
fn encode(line: &str) -> Vec<u8> {
    visa::encode_binary(&visa::parse_text(line).unwrap()).unwrap()
}

/// A one-kernel container (research §6) named `k` with `labels` labels and `code` as its
/// instruction stream; the declared code size is `code.len() + reserved` (12504 declares the
/// full layout's size but writes less).
fn container(code: &[u8], labels: u16, reserved: usize) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&2u32.to_le_bytes());
    body.extend_from_slice(b"k\0L0\0");
    body.extend_from_slice(&0u32.to_le_bytes()); // kernel name: string 0
    body.extend_from_slice(&0u32.to_le_bytes()); // variables
    body.extend_from_slice(&0u16.to_le_bytes()); // addresses
    body.extend_from_slice(&0u16.to_le_bytes()); // predicates
    body.extend_from_slice(&labels.to_le_bytes());
    for _ in 0..labels {
        body.extend_from_slice(&1u32.to_le_bytes()); // name: string 1
        body.extend_from_slice(&[0, 0]); // kind, no attributes
    }
    body.extend_from_slice(&[0, 0, 0]); // samplers, surfaces, vme
    body.extend_from_slice(&0u32.to_le_bytes()); // inputs
    let entry = body.len() + 4 + 4 + 2;
    body.extend_from_slice(&((code.len() + reserved) as u32).to_le_bytes());
    body.extend_from_slice(&(entry as u32).to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes()); // kernel attributes
    body.extend_from_slice(code);
    body.resize(body.len() + reserved, 0xa5);

    let mut file = b"CISA\x04\x01\x01\x00\x01\x00k".to_vec();
    let header_len = file.len() + 4 + 4 + 4 + 2 + 2 + 1 + 2 + 2;
    file.extend_from_slice(&(header_len as u32).to_le_bytes());
    file.extend_from_slice(&(body.len() as u32).to_le_bytes());
    file.extend_from_slice(&[0; 4 + 2 + 2 + 1 + 2 + 2]); // inputs, reserved, gen binaries, functions
    assert_eq!(file.len(), header_len);
    file.extend_from_slice(&body);
    file
}

/// `func 0` · sample_lz (3 params) · resinfo · gather4_typed · `mov` · `ret` · `label 1`
/// · `ret`, each cut as IGC 12504 cuts it, then a `label 0` (already defined) in the garbage.
fn kernel_code() -> Vec<u8> {
    let sample = encode("sample_lz.RGBA (M1, 16)  0x0:uw S0 T6 V0057.0 V0053.0 V0059.0 V0061.0");
    let resinfo = encode("resinfo.RGBA (M1_NM, 8)  T6 V0040.0 V0041.0");
    let gather = encode("gather4_typed.R (M1, 8) T6 V0042.0 %null.0 %null.0 V0043.0 V0044.0");
    let mut code = vec![0x30, 0x00, 0x00];
    code.extend_from_slice(&sample[..sample.len() - 12]);
    code.extend_from_slice(&resinfo[..resinfo.len() - 6]);
    code.extend_from_slice(&gather[..gather.len() - 12]);
    code.extend_from_slice(&[0x29, 0x03, 0x00, 0x00, 0x34, 0x31, 0x01, 0x00, 0x34]);
    code.extend_from_slice(&[0x31, 0x00, 0x00, 0xd0]);
    code
}

#[test]
fn a_built_container_walks_to_its_sampler_instructions() {
    let file = container(&kernel_code(), 2, 40);
    let c = visa::decode_isa_container(&file).unwrap();
    assert_eq!(c.version, (4, 1));
    let [k] = &c.kernels[..] else { panic!() };
    assert_eq!(k.name, "k");
    assert_eq!(k.instructions, 8);
    let raw = |var, offset| Raw { var, offset };
    let s: Vec<_> = k.samplers.iter().collect();
    assert_eq!(s.len(), 3);
    assert_eq!(
        (s[0].inst.opcode, s[0].inst.subop, s[0].inst.exec_size),
        (0x6d, 24, 16)
    );
    assert_eq!(
        (s[0].inst.sampler, s[0].inst.surface, s[0].inst.channels),
        (Some(0), 6, 0xf)
    );
    assert_eq!(s[0].dst(), Some(raw(57, 0)));
    assert_eq!(s[0].num_params, Some(3));
    assert_eq!(s[0].inst.params, [raw(53, 0)]);
    assert_eq!(s[0].dropped, 2);
    assert_eq!(s[0].offset, k.code_offset + 3);
    assert_eq!(
        (s[1].inst.opcode, s[1].inst.subop, s[1].inst.emask),
        (0x70, 10, 8)
    );
    assert_eq!(
        (s[1].dst(), &s[1].inst.params[..]),
        (None, &[raw(40, 0)][..])
    );
    assert_eq!(s[1].dropped, 1);
    assert_eq!(
        (s[2].inst.opcode, s[2].inst.exec_size, s[2].inst.channels),
        (0x4b, 8, 1)
    );
    assert_eq!(s[2].inst.params, [raw(42, 0), raw(0, 0), raw(0, 0)]);
    assert_eq!((s[2].dst(), s[2].num_params, s[2].dropped), (None, None, 2));
    // Without label 1 in the table, the stream ends at the first `ret`.
    let k = &visa::decode_isa_container(&container(&kernel_code(), 1, 0))
        .unwrap()
        .kernels[0];
    assert_eq!(k.instructions, 6);
    // decode_binary refuses containers and names the reader.
    let e = visa::decode_binary(&file).unwrap_err().to_string();
    assert!(e.contains("decode_isa_container"), "{e}");
}

/// `bytes` decodes, or fails with a decode error at an offset inside the input.
fn typed_or_ok(bytes: &[u8]) -> Result<(), String> {
    match visa::decode_isa_container(bytes) {
        Ok(_) => Ok(()),
        Err(Error::Decode(d)) if d.offset <= bytes.len() => Ok(()),
        Err(e) => Err(format!("not a located decode error: {e:?}")),
    }
}

#[test]
fn a_container_cut_short_or_corrupted_is_a_located_error() {
    let file = container(&kernel_code(), 2, 40);
    let mut failures = Vec::new();
    for cut in 0..file.len() {
        no_panic(
            &mut failures,
            &format!("prefix {cut}"),
            || match visa::decode_isa_container(&file[..cut]) {
                Err(Error::Decode(d)) if d.offset <= cut => Ok(()),
                other => Err(format!("{other:?}")),
            },
        );
    }
    for at in 0..file.len() {
        for b in byte_substitutes(file[at]) {
            let mut bytes = file.clone();
            bytes[at] = b;
            no_panic(&mut failures, &format!("byte {at} = {b:#04x}"), || {
                typed_or_ok(&bytes)
            });
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn malformed_containers_name_the_offset() {
    let file = container(&kernel_code(), 2, 40);
    let error_at = |bytes: &[u8]| match visa::decode_isa_container(bytes) {
        Err(Error::Decode(d)) => d.offset,
        other => panic!("{other:?}"),
    };
    // The body offset field (at 11) points past the input.
    let mut far = file.clone();
    far[11..15].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(error_at(&far), 11);
    // The magic.
    assert_eq!(error_at(b"CISB\x04\x01\x00\x00"), 0);
    // A kernel count with no kernel entries: the name length read at 8.
    assert_eq!(error_at(b"CISA\x04\x01\x05\x00"), 8);
    // An unknown opcode where the first instruction starts.
    let k = &visa::decode_isa_container(&file).unwrap().kernels[0];
    let mut bad = file.clone();
    bad[k.code_offset] = 0xd0;
    assert_eq!(error_at(&bad), k.code_offset);
    // The label count cut down to 0: `func 0` defines no label of the table.
    let mut no_labels = container(&kernel_code(), 0, 40);
    assert_eq!(error_at(&no_labels), k.code_offset - 12);
    no_labels.truncate(20);
    assert!(error_at(&no_labels) <= 20);
}

#[test]
fn corpus_containers_cut_short_are_located_errors() {
    let Some(dir) = support::corpus("intel/dumps") else {
        return;
    };
    let mut failures = Vec::new();
    for platform in ["skl", "icllp", "tgllp"] {
        let path = dir.join(platform).join("c01_img2d_sampler");
        let Some(first) = fs::read_dir(&path)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "isa"))
            .min()
        else {
            panic!("no .isa in {}", path.display())
        };
        let file = fs::read(&first).unwrap();
        let step = (file.len() / 400).max(1);
        for cut in (0..file.len()).step_by(step) {
            no_panic(
                &mut failures,
                &format!("{} prefix {cut}", first.display()),
                || match visa::decode_isa_container(&file[..cut]) {
                    Err(Error::Decode(d)) if d.offset <= cut => Ok(()),
                    other => Err(format!("{other:?}")),
                },
            );
        }
        for at in (0..file.len()).step_by(step) {
            let mut bytes = file.clone();
            bytes[at] ^= 0xff;
            no_panic(
                &mut failures,
                &format!("{} byte {at}", first.display()),
                || typed_or_ok(&bytes),
            );
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
