//! DXBC containers from listings: `encode_binary` of an fxc listing writes the whole
//! container its tables and declarations imply (signatures, program chunk, feature flags,
//! checksum), `encode_tokens` the bare token stream. Checked against the corpus blobs fxc
//! wrote for the paired listings, and against the blobs' own signatures for programs read
//! without tables (texlate's disassembly of every blob, assembled again).

mod dxbc_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dxbc_common::{blobs, corpus_dir, listings, pairs, support, without_losses, LOSSES};
use texlate::isa::dxbc::tokens::{self, Instruction};
use texlate::isa::dxbc::{self, container, signature};

/// The chunks of a container, by tag.
fn chunks(bytes: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    container::parse(bytes)
        .unwrap()
        .chunks
        .into_iter()
        .map(|c| (c.tag, c.data))
        .collect()
}

fn chunk<'a>(chunks: &'a [([u8; 4], Vec<u8>)], tag: &[u8; 4]) -> Option<&'a [u8]> {
    chunks
        .iter()
        .find(|(t, _)| t == tag)
        .map(|(_, d)| d.as_slice())
}

fn tags(chunks: &[([u8; 4], Vec<u8>)]) -> String {
    chunks
        .iter()
        .map(|(t, _)| String::from_utf8_lossy(t).into_owned())
        .collect::<Vec<_>>()
        .join(",")
}

/// Every corpus listing assembles into a container: signature chunks, the program chunk
/// holding exactly the bare token stream, and the checksum that `decode_binary` checks. For
/// the 339 listings fxc wrote of a corpus blob, the signature chunks are the blob's, byte for
/// byte, and the program chunk has the blob's tag.
#[test]
fn corpus_listings_assemble_into_containers() {
    let Some(dir) = corpus_dir() else { return };
    let all = listings(&dir);
    let blobs = blobs(&dir);
    let (mut assembled, mut paired, mut same_sigs, mut same_tag) = (0, 0, 0, 0);
    let mut differences = Vec::new();
    for (name, text) in &all {
        let program = dxbc::parse_text(text).unwrap();
        let bytes = dxbc::encode_binary(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours = chunks(&bytes);
        let program_tag = if chunk(&ours, b"SHEX").is_some() {
            *b"SHEX"
        } else {
            *b"SHDR"
        };
        assert_eq!(
            chunk(&ours, &program_tag).unwrap(),
            dxbc::encode_tokens(&program).unwrap(),
            "{name}: the program chunk is the token stream"
        );
        // The container decodes back to the same program.
        let back = dxbc::decode_binary(&bytes).unwrap();
        assert_eq!(
            dxbc::print_hex(&back).unwrap(),
            dxbc::print_hex(&program).unwrap(),
            "{name}"
        );
        assembled += 1;
        let Some((_, blob)) = blobs.iter().find(|(b, _)| b == name) else {
            continue;
        };
        paired += 1;
        let theirs = chunks(blob);
        if chunk(&theirs, &program_tag).is_some() {
            same_tag += 1;
        }
        let sigs_equal = [b"ISGN", b"OSGN"]
            .iter()
            .all(|t| chunk(&ours, t) == chunk(&theirs, t));
        if sigs_equal {
            same_sigs += 1;
        } else {
            differences.push(format!("{name}: {} vs {}", tags(&ours), tags(&theirs)));
        }
    }
    eprintln!(
        "{assembled}/{} listings assembled; {paired} paired with their blob: signatures byte \
         for byte equal in {same_sigs}, program chunk tag equal in {same_tag}\n{}",
        all.len(),
        differences.join("\n")
    );
    assert_eq!(assembled, 438);
    assert_eq!((paired, same_sigs, same_tag), (339, 339, 339));
}

/// How many of `ours`' elements equal `theirs`' (same position), field by field.
#[derive(Default, Debug)]
struct FieldCounts {
    elements: usize,
    whole: usize,
    name: usize,
    index: usize,
    system_value: usize,
    component_type: usize,
    register: usize,
    mask: usize,
    rw_mask: usize,
}

impl FieldCounts {
    fn add(&mut self, ours: &[signature::Element], theirs: &[signature::Element]) {
        for (a, b) in ours.iter().zip(theirs) {
            self.elements += 1;
            self.whole += usize::from(a == b);
            self.name += usize::from(a.name == b.name);
            self.index += usize::from(a.index == b.index);
            self.system_value += usize::from(a.system_value == b.system_value);
            self.component_type += usize::from(a.component_type == b.component_type);
            self.register += usize::from(a.register == b.register);
            self.mask += usize::from(a.mask == b.mask);
            self.rw_mask += usize::from(a.rw_mask == b.rw_mask);
        }
    }
}

fn elements(chunks: &[([u8; 4], Vec<u8>)], tag: &[u8; 4]) -> Vec<signature::Element> {
    let (_, layout) = signature::Layout::of_tag(tag).unwrap();
    chunk(chunks, tag).map_or_else(Vec::new, |d| signature::read(d, layout).unwrap())
}

/// A listing without signature tables (texlate's own disassembly of every corpus blob)
/// assembles into a container whose signatures come from the declarations alone. Compared
/// with the blob's own: the same element count wherever every element is declared, and the
/// fields a declaration states (register, system value, components read or written) equal;
/// names, indices, types and the masks of partly read elements are what docs/dxbc.md chooses.
/// The feature flags equal the blob's `SFI0` except where they depend on a UAV's HLSL type.
#[test]
fn blobs_disassembled_and_assembled_again() {
    let Some(dir) = corpus_dir() else { return };
    let mut counts = FieldCounts::default();
    let (mut programs, mut same_count, mut same_tag, mut same_flags) = (0, 0, 0, 0);
    let mut flag_differences = Vec::new();
    for (name, blob) in blobs(&dir) {
        let text = dxbc::print_text(&dxbc::decode_binary(&blob).unwrap()).unwrap();
        let program = dxbc::parse_text(&text).unwrap();
        let bytes = dxbc::encode_binary(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (ours, theirs) = (chunks(&bytes), chunks(&blob));
        programs += 1;
        let prog = |c: &[([u8; 4], Vec<u8>)]| {
            c.iter()
                .find(|(t, _)| t == b"SHEX" || t == b"SHDR")
                .map(|(t, _)| *t)
        };
        same_tag += usize::from(prog(&ours) == prog(&theirs));
        let flags = |c: &[([u8; 4], Vec<u8>)]| {
            chunk(c, b"SFI0").map_or(0, |d| u32::from_le_bytes(d[..4].try_into().unwrap()))
        };
        if flags(&ours) == flags(&theirs) {
            same_flags += 1;
        } else {
            // Only the flag no listing can imply: typed UAV loads of more than one 32-bit
            // component (the UAV's HLSL type).
            assert_eq!(flags(&ours) ^ flags(&theirs), 0x800, "{name}");
            flag_differences.push(name.clone());
        }
        let mut all_same_count = true;
        for tag in [b"ISGN", b"OSGN", b"PCSG"] {
            let (a, b) = (elements(&ours, tag), elements(&theirs, tag));
            all_same_count &= a.len() == b.len();
            if a.len() == b.len() {
                counts.add(&a, &b);
            }
        }
        same_count += usize::from(all_same_count);
    }
    eprintln!(
        "{programs} blobs disassembled and assembled again: element counts equal in \
         {same_count}, program chunk tag in {same_tag}, SFI0 flags in {same_flags} \
         (differences: {flag_differences:?}); fields equal over {counts:?}"
    );
    assert_eq!(programs, 495);
    assert_eq!(same_tag, 495);
    assert_eq!(same_flags, 491);
    // Declared fields: always equal where the element counts are.
    assert_eq!(counts.register, counts.elements);
    assert_eq!(counts.system_value, counts.elements);
}

/// The paired listings' declarations agree with their tables: removing the tables changes
/// neither registers nor system values, only what a listing without tables cannot know.
#[test]
fn paired_listings_without_tables() {
    let Some(dir) = corpus_dir() else { return };
    let mut counts = FieldCounts::default();
    for (name, blob, text) in pairs(&dir) {
        // The code after the profile line only.
        let code: String = text
            .lines()
            .skip_while(|l| !l.starts_with("ps_") && !l.starts_with("cs_") && !l.starts_with("vs_"))
            .map(|l| format!("{l}\n"))
            .collect();
        let bytes = dxbc::encode_binary(&dxbc::parse_text(&code).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (ours, theirs) = (chunks(&bytes), chunks(&blob));
        for tag in [b"ISGN", b"OSGN"] {
            let (a, b) = (elements(&ours, tag), elements(&theirs, tag));
            if a.len() == b.len() {
                counts.add(&a, &b);
            }
        }
    }
    eprintln!("paired listings without their tables: {counts:?}");
    assert_eq!(counts.register, counts.elements);
    assert_eq!(counts.system_value, counts.elements);
}

/// One verdict line per file of an oracle's report (`<file>\t<verdict>...`), by file stem.
fn verdicts(report: &str) -> BTreeMap<String, String> {
    report
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            let file = f.next()?;
            let verdict = f.next()?;
            let stem = Path::new(file).file_stem()?.to_string_lossy().into_owned();
            Some((stem, verdict.to_string()))
        })
        .collect()
}

/// The instructions of a listing (Wine's spelling and fxc's alike) as texlate assembles it.
fn instructions(listing: &str) -> Vec<Instruction> {
    let p = dxbc::parse_text(listing).unwrap();
    let words = tokens::dwords(&dxbc::encode_tokens(&p).unwrap(), 0).unwrap();
    tokens::decode_program(&words, 0)
        .unwrap()
        .instructions
        .into_iter()
        .map(|(_, i)| i)
        .collect()
}

/// Every corpus listing assembled into a container, and each container given to Wine's
/// D3DDisassemble and to vkd3d-compiler (then spirv-val): each must accept it wherever it
/// accepts the corpus blob the listing came from (every listing without a blob: always).
/// Wine's listing of the container, read back by texlate, must say what the corpus listing
/// says, instruction by instruction (up to vkd3d-shader 1.6's spelling and what it does not
/// print: NaN payloads); for a paired listing, Wine's text of the container is compared
/// with its text of the blob, and vkd3d's SPIR-V with its SPIR-V of the blob.
#[test]
#[ignore = "needs the DXBC oracles (shared/oracles/dxbc/setup.sh)"]
fn oracles_accept_every_assembled_listing() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = std::env::temp_dir().join(format!("texlate-dxbc-container-{}", std::process::id()));
    let (ours_dir, blob_dir) = (tmp.join("ours"), tmp.join("blobs"));
    for d in [
        &ours_dir,
        &blob_dir,
        &tmp.join("spv_ours"),
        &tmp.join("spv_blobs"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    let all = listings(&dir);
    let paired: BTreeMap<String, Vec<u8>> =
        pairs(&dir).into_iter().map(|(n, b, _)| (n, b)).collect();
    let mut ours_files: Vec<PathBuf> = Vec::new();
    let mut blob_files: Vec<PathBuf> = Vec::new();
    // Paired listings whose text gives the blob's exact program (the others hold floats fxc
    // printed rounded: tests/dxbc_listing.rs).
    let mut exact_program = std::collections::BTreeSet::new();
    for (name, text) in &all {
        let program = dxbc::parse_text(text).unwrap();
        if let Some(blob) = paired.get(name) {
            let c = container::parse(blob).unwrap();
            if c.chunks[c.program].data == dxbc::encode_tokens(&program).unwrap() {
                exact_program.insert(name.clone());
            }
        }
        let bytes = dxbc::encode_binary(&program).unwrap();
        let path = ours_dir.join(format!("{name}.dxbc"));
        std::fs::write(&path, bytes).unwrap();
        ours_files.push(path);
        if let Some(blob) = paired.get(name) {
            let path = blob_dir.join(format!("{name}.dxbc"));
            std::fs::write(&path, blob).unwrap();
            blob_files.push(path);
        }
    }
    let run =
        |tool: &str, args: &[&str], files: &[PathBuf]| support::run_dxbc_oracle(tool, args, files);
    let Some(wine_ours) = run("dxbc-disasm", &[], &ours_files) else {
        return;
    };
    let Some(wine_blobs) = run("dxbc-disasm", &[], &blob_files) else {
        return;
    };
    let spv = |d: &str| tmp.join(d).to_string_lossy().into_owned();
    let (spv_ours, spv_blobs) = (spv("spv_ours"), spv("spv_blobs"));
    let Some(vkd3d_ours) = run("dxbc-to-spirv", &["-d", &spv_ours], &ours_files) else {
        return;
    };
    let Some(vkd3d_blobs) = run("dxbc-to-spirv", &["-d", &spv_blobs], &blob_files) else {
        return;
    };
    let (w_ours, w_blobs) = (
        support::wine_listings(&wine_ours),
        support::wine_listings(&wine_blobs),
    );
    let (v_ours, v_blobs) = (verdicts(&vkd3d_ours), verdicts(&vkd3d_blobs));
    let (mut wine_ok, mut wine_same_as_blob, mut wine_says_the_listing) = (0, 0, 0);
    let (mut lines, mut lines_equal) = (0, 0);
    let mut lost = [0usize; LOSSES.len()];
    let (mut vkd3d_ok, mut vkd3d_blob_ok, mut vkd3d_same_verdict, mut same_spirv) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    for (name, text) in &all {
        let is_paired = paired.contains_key(name);
        // Wine.
        let Some(wine) = w_ours.get(name) else {
            problems.push(format!("{name}: Wine printed nothing"));
            continue;
        };
        wine_ok += 1;
        if is_paired && w_blobs.get(name) == Some(wine) {
            wine_same_as_blob += 1;
        } else if exact_program.contains(name) {
            problems.push(format!(
                "{name}: Wine prints the blob and the container apart"
            ));
        }
        let (said, meant) = (instructions(wine), instructions(text));
        let mut all_equal = said.len() == meant.len();
        if !all_equal {
            problems.push(format!(
                "{name}: Wine prints {} instructions, the listing has {}",
                said.len(),
                meant.len()
            ));
        }
        for (w, m) in said.iter().zip(&meant) {
            lines += 1;
            if w == m {
                lines_equal += 1;
                continue;
            }
            if without_losses(w, None) != without_losses(m, None) {
                all_equal = false;
                problems.push(format!(
                    "{name}: Wine `{}`, listing `{}`",
                    dxbc::disasm::instruction(w),
                    dxbc::disasm::instruction(m)
                ));
                continue;
            }
            for (n, count) in lost.iter_mut().enumerate() {
                if without_losses(w, Some(n)) != without_losses(m, Some(n)) {
                    *count += 1;
                }
            }
        }
        wine_says_the_listing += usize::from(all_equal);
        // vkd3d-compiler.
        let verdict = v_ours.get(name).map(String::as_str).unwrap_or("?");
        vkd3d_ok += usize::from(verdict == "ACCEPTED");
        if is_paired {
            let blob = v_blobs.get(name).map(String::as_str).unwrap_or("?");
            vkd3d_blob_ok += usize::from(blob == "ACCEPTED");
            if verdict == blob {
                vkd3d_same_verdict += 1;
            } else {
                problems.push(format!("{name}: vkd3d {verdict}, blob {blob}"));
            }
            let read = |d: &str| std::fs::read(Path::new(d).join(format!("{name}.spv"))).ok();
            if verdict == "ACCEPTED"
                && read(&spv_ours).is_some()
                && read(&spv_ours) == read(&spv_blobs)
            {
                same_spirv += 1;
            } else if exact_program.contains(name) {
                problems.push(format!(
                    "{name}: vkd3d's SPIR-V of the blob and the container differ"
                ));
            }
        } else if verdict != "ACCEPTED" {
            problems.push(format!("{name}: vkd3d {verdict} (no corpus blob)"));
        }
    }
    let losses: Vec<String> = LOSSES
        .iter()
        .zip(lost)
        .filter(|(_, n)| *n > 0)
        .map(|((what, _), n)| format!("  {n:5} {what}"))
        .collect();
    support::print_report(&format!(
        "{} listings, {} assembled into containers.\n\
         Wine D3DDisassemble: {wine_ok} accepted; {wine_says_the_listing} print back the \
         corpus listing: {lines_equal}/{lines} instructions identical, the others up to what \
         vkd3d-shader 1.6's text does not say:\n{}\n\
         {wine_same_as_blob}/{} paired listings print exactly as Wine prints the corpus blob \
         ({} give the blob's exact program; the others hold floats fxc printed rounded).\n\
         vkd3d-compiler 1.2 + spirv-val: {vkd3d_ok} accepted; paired: {vkd3d_same_verdict}/{} \
         the blob's verdict ({vkd3d_blob_ok} blobs accepted), {same_spirv} give the blob's \
         SPIR-V byte for byte.\n{}\n",
        all.len(),
        ours_files.len(),
        losses.join("\n"),
        paired.len(),
        exact_program.len(),
        paired.len(),
        problems.join("\n")
    ));
    assert!(problems.is_empty(), "{} problems", problems.len());
    assert_eq!(wine_ok, all.len());
    assert_eq!(
        (wine_says_the_listing, vkd3d_ok, exact_program.len()),
        (438, 438, 284)
    );
    assert_eq!((wine_same_as_blob, same_spirv), (284, 284));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The hand-written fixtures of `tests/cases/dxbc/containers/` (every stage, with and
/// without tables): (name, listing).
fn fixtures() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/dxbc/containers");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "asm").then(|| {
                (
                    p.file_stem().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
        })
        .collect();
    out.sort();
    out
}

/// A container as text: its chunks in order, each signature's elements, the feature flags.
fn describe(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (tag, data) in chunks(bytes) {
        let name = String::from_utf8_lossy(&tag).into_owned();
        match signature::Layout::of_tag(&tag) {
            Some((_, layout)) => {
                out.push_str(&format!("{name}\n"));
                for e in signature::read(&data, layout).unwrap() {
                    let reg = if e.register == signature::NO_REGISTER {
                        "-".to_string()
                    } else {
                        e.register.to_string()
                    };
                    out.push_str(&format!(
                        "  {}{} sv={} type={} reg={reg} mask={:#x} rw={:#x} stream={} mp={}\n",
                        e.name,
                        e.index,
                        e.system_value,
                        e.component_type,
                        e.mask,
                        e.rw_mask,
                        e.stream,
                        e.min_precision
                    ));
                }
            }
            None if &tag == b"SFI0" => out.push_str(&format!(
                "SFI0 {:#x}\n",
                u32::from_le_bytes(data[..4].try_into().unwrap())
            )),
            None => out.push_str(&format!("{name} ({} bytes)\n", data.len())),
        }
    }
    out
}

/// Each fixture assembles into the container its tables and declarations imply (the
/// snapshot, read element by element against the fixture's comments), whose program chunk
/// is the bare token stream and which decodes back to the same program.
#[test]
fn fixtures_assemble_into_the_containers_they_imply() {
    let mut out = String::new();
    for (name, text) in fixtures() {
        let program = dxbc::parse_text(&text).unwrap();
        let bytes = dxbc::encode_binary(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = container::parse(&bytes).unwrap();
        assert_eq!(
            c.chunks[c.program].data,
            dxbc::encode_tokens(&program).unwrap(),
            "{name}"
        );
        assert_eq!(
            dxbc::print_hex(&dxbc::decode_binary(&bytes).unwrap()).unwrap(),
            dxbc::print_hex(&program).unwrap(),
            "{name}"
        );
        out.push_str(&format!("== {name}\n{}", describe(&bytes)));
    }
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("dxbc_container_fixtures", out);
    });
}

/// Wine's D3DDisassemble of each fixture's container (`wine/<name>.txt`, written by
/// `oracles_accept_the_fixture_containers` with Wine 8.0): texlate reads it back to the
/// fixture's instructions, up to what vkd3d-shader 1.6's text does not say.
#[test]
fn wine_listings_of_the_fixtures_read_back() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/dxbc/containers/wine");
    for (name, text) in fixtures() {
        let wine = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
        let (said, meant) = (instructions(&wine), instructions(&text));
        assert_eq!(said.len(), meant.len(), "{name}");
        for (w, m) in said.iter().zip(&meant) {
            assert_eq!(
                without_losses(w, None),
                without_losses(m, None),
                "{name}: Wine `{}`, listing `{}`",
                dxbc::disasm::instruction(w),
                dxbc::disasm::instruction(m)
            );
        }
    }
}

/// The fixtures' containers given to Wine's D3DDisassemble and to vkd3d-compiler (then
/// spirv-val): both accept every one. With `TEXLATE_BLESS=1` Wine's listings are written to
/// `tests/cases/dxbc/containers/wine/`.
#[test]
#[ignore = "needs the DXBC oracles (shared/oracles/dxbc/setup.sh)"]
fn oracles_accept_the_fixture_containers() {
    let tmp = std::env::temp_dir().join(format!("texlate-dxbc-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut files = Vec::new();
    for (name, text) in fixtures() {
        let path = tmp.join(format!("{name}.dxbc"));
        std::fs::write(
            &path,
            dxbc::encode_binary(&dxbc::parse_text(&text).unwrap()).unwrap(),
        )
        .unwrap();
        files.push(path);
    }
    let Some(wine) = support::run_dxbc_oracle("dxbc-disasm", &[], &files) else {
        return;
    };
    let Some(vkd3d) = support::run_dxbc_oracle("dxbc-to-spirv", &[], &files) else {
        return;
    };
    let listings = support::wine_listings(&wine);
    assert_eq!(listings.len(), files.len(), "{wine}");
    if std::env::var_os("TEXLATE_BLESS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/dxbc/containers/wine");
        for (name, text) in &listings {
            std::fs::write(dir.join(format!("{name}.txt")), text).unwrap();
        }
    }
    let v = verdicts(&vkd3d);
    assert_eq!(v.len(), files.len(), "{vkd3d}");
    assert!(v.values().all(|x| x == "ACCEPTED"), "{vkd3d}");
    eprintln!(
        "{} fixtures: Wine disassembled {}, vkd3d-compiler accepted {}",
        files.len(),
        listings.len(),
        v.len()
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
