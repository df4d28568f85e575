//! Shared helpers of the DXBC integration tests: the corpus location and its files.
#![allow(dead_code)]

#[path = "../support/mod.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};

/// `../shared/corpus/dxbc`, or `None` (with the SKIPPED note) when it is not there.
pub fn corpus_dir() -> Option<PathBuf> {
    support::corpus("dxbc")
}

fn files(dir: &Path, ext: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension()? == ext).then(|| {
                (
                    path.file_stem().unwrap().to_string_lossy().into_owned(),
                    path,
                )
            })
        })
        .collect();
    out.sort();
    out
}

/// Every blob of the corpus: (base name, bytes), sorted by name.
pub fn blobs(corpus: &Path) -> Vec<(String, Vec<u8>)> {
    files(&corpus.join("blobs"), "dxbc")
        .into_iter()
        .map(|(name, path)| (name, fs::read(path).unwrap()))
        .collect()
}

/// Every listing of the corpus: (base name, text), sorted by name.
pub fn listings(corpus: &Path) -> Vec<(String, String)> {
    files(&corpus.join("asm"), "asm")
        .into_iter()
        .map(|(name, path)| (name, fs::read_to_string(path).unwrap()))
        .collect()
}

/// The listings that are fxc's own listing of a corpus blob: the same base name in `blobs/`
/// and `asm/` (SOURCES.tsv: "paired with <name>.dxbc").
pub fn pairs(corpus: &Path) -> Vec<(String, Vec<u8>, String)> {
    let blobs = blobs(corpus);
    listings(corpus)
        .into_iter()
        .filter_map(|(name, text)| {
            let (_, bytes) = blobs.iter().find(|(b, _)| *b == name)?;
            Some((name, bytes.clone(), text))
        })
        .collect()
}

/// A container holding `stream` as its only (SHEX) chunk, built with texlate's writer.
pub fn container_of(stream: &[u8]) -> Vec<u8> {
    use texlate::isa::dxbc::container::{write, Chunk, Container};
    write(&Container {
        chunks: vec![Chunk {
            tag: *b"SHEX",
            data: stream.to_vec(),
        }],
        program: 0,
    })
}

/// Rewrites the checksum of a (possibly edited) container; shorter inputs have none.
pub fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= 20 {
        let sum = texlate::isa::dxbc::container::checksum(bytes);
        bytes[4..20].copy_from_slice(&sum);
    }
}
