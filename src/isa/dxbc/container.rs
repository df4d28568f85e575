//! The DXBC container: header, checksum, chunk table (research/dxbc.md §1-§2).
//!
//! ```text
//! 0x00 'DXBC'  0x04 checksum[16]  0x14 u32 1  0x18 u32 total size  0x1C u32 chunk count
//! 0x20 u32 chunk offsets[count]; each chunk: fourcc, u32 size, payload
//! ```
//! Every chunk is kept as bytes; only the program chunk (`SHDR`/`SHEX`) is decoded and
//! rewritten. Chunks are laid out back to back after the offset table, as fxc writes them
//! (all 495 corpus blobs); another layout is refused rather than silently changed.

use std::ops::Range;

use md5::block_api::compress;

use crate::error::DecodeError;

/// `DXBC`, little-endian.
pub const MAGIC: &[u8; 4] = b"DXBC";
const HEADER_LEN: usize = 32;

/// One chunk: its four-character tag and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The tag (`SHEX`, `ISGN`, ...).
    pub tag: [u8; 4],
    /// The payload.
    pub data: Vec<u8>,
}

/// A whole container; `program` is the index of the `SHDR`/`SHEX` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    /// The chunks, in file order.
    pub chunks: Vec<Chunk>,
    /// The index of the program chunk.
    pub program: usize,
}

fn u32_at(bytes: &[u8], at: usize, what: &str) -> Result<u32, DecodeError> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| DecodeError {
            offset: at,
            reason: format!("the container ends inside its {what}"),
        })
}

/// The DXBC checksum of a whole container (bytes 4..20 are skipped with the magic): MD5's
/// block function over bytes 20.. with vkd3d's non-standard final block
/// (`vkd3d_compute_dxbc_checksum`, research/dxbc.md §1).
pub fn checksum(container: &[u8]) -> [u8; 16] {
    let data = container.get(20..).unwrap_or_default();
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let whole = data.len() / 64 * 64;
    let mut block = [0u8; 64];
    for c in data[..whole].chunks_exact(64) {
        block.copy_from_slice(c);
        compress(&mut state, &[block]);
    }
    let rest = &data[whole..];
    let bits = (data.len() as u32).wrapping_mul(8);
    let bits2 = (bits >> 2) | 1;
    let mut last = [0u8; 64];
    if rest.len() < 56 {
        last[..4].copy_from_slice(&bits.to_le_bytes());
        last[4..4 + rest.len()].copy_from_slice(rest);
        last[4 + rest.len()] = 0x80;
        last[60..].copy_from_slice(&bits2.to_le_bytes());
        compress(&mut state, &[last]);
    } else {
        let mut padded = [0u8; 64];
        padded[..rest.len()].copy_from_slice(rest);
        padded[rest.len()] = 0x80;
        last[..4].copy_from_slice(&bits.to_le_bytes());
        last[60..].copy_from_slice(&bits2.to_le_bytes());
        compress(&mut state, &[padded, last]);
    }
    let mut out = [0u8; 16];
    for (i, s) in state.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&s.to_le_bytes());
    }
    out
}

/// Parses a container and checks its checksum, sizes and layout.
pub fn parse(bytes: &[u8]) -> Result<Container, DecodeError> {
    let mut chunks = Vec::new();
    let (program, _) = check(bytes, |tag, data| {
        chunks.push(Chunk {
            tag,
            data: bytes[data].to_vec(),
        })
    })?;
    Ok(Container { chunks, program })
}

/// The bytes of the program chunk's payload in a container that [`parse`] accepts (the same
/// checks and errors; nothing is copied).
pub fn program_payload(bytes: &[u8]) -> Result<Range<usize>, DecodeError> {
    check(bytes, |_, _| {}).map(|(_, payload)| payload)
}

/// Checks a container's checksum, sizes and layout, calling `chunk` with each chunk's tag
/// and payload, in file order; returns the index and payload of the program chunk.
fn check(
    bytes: &[u8],
    mut chunk: impl FnMut([u8; 4], Range<usize>),
) -> Result<(usize, Range<usize>), DecodeError> {
    let err = |offset: usize, reason: String| DecodeError { offset, reason };
    if bytes.len() < HEADER_LEN || &bytes[..4] != MAGIC {
        return Err(err(
            0,
            "not a DXBC container (no `DXBC` magic and 32-byte header)".into(),
        ));
    }
    let stored = &bytes[4..20];
    let computed = checksum(bytes);
    if stored != computed {
        return Err(err(
            4,
            format!(
                "checksum mismatch: stored {}, computed {}",
                hex(stored),
                hex(&computed)
            ),
        ));
    }
    let one = u32_at(bytes, 0x14, "header")?;
    if one != 1 {
        return Err(err(
            0x14,
            format!("header dword at 0x14 is {one}, expected 1"),
        ));
    }
    let total = u32_at(bytes, 0x18, "header")? as usize;
    if total != bytes.len() {
        return Err(err(
            0x18,
            format!(
                "total size field says {total} bytes, the input is {}",
                bytes.len()
            ),
        ));
    }
    let count = u32_at(bytes, 0x1c, "header")? as usize;
    let table_end = count
        .checked_mul(4)
        .and_then(|n| n.checked_add(HEADER_LEN))
        .filter(|end| *end <= bytes.len())
        .ok_or_else(|| {
            err(
                0x1c,
                format!("{count} chunk offsets do not fit the container"),
            )
        })?;
    let mut expected = table_end;
    let mut program = None;
    for i in 0..count {
        let field = HEADER_LEN + 4 * i;
        let offset = u32_at(bytes, field, "chunk offset table")? as usize;
        if offset != expected {
            return Err(err(
                field,
                format!(
                    "chunk {i} starts at {offset:#x}; texlate keeps chunks back to back and expected {expected:#x}"
                ),
            ));
        }
        let size = u32_at(bytes, offset + 4, "chunk header")? as usize;
        let data_start = offset + 8;
        let data_end = data_start
            .checked_add(size)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| {
                err(
                    offset + 4,
                    format!("chunk {i} size {size} runs past the end"),
                )
            })?;
        let tag = [
            bytes[offset],
            bytes[offset + 1],
            bytes[offset + 2],
            bytes[offset + 3],
        ];
        if (&tag == b"SHDR" || &tag == b"SHEX") && program.is_none() {
            program = Some((i, data_start..data_end));
        }
        chunk(tag, data_start..data_end);
        expected = data_end;
    }
    if expected != bytes.len() {
        return Err(err(
            expected,
            format!("{} bytes after the last chunk", bytes.len() - expected),
        ));
    }
    program.ok_or_else(|| err(0x1c, "no SHDR or SHEX chunk".into()))
}

/// Writes the container with chunks back to back and a fresh checksum.
pub fn write(container: &Container) -> Vec<u8> {
    write_with_program(container, &container.chunks[container.program].data)
}

/// Writes the container as [`write()`] does, with `program` as the payload of its program
/// chunk.
pub fn write_with_program(container: &Container, program: &[u8]) -> Vec<u8> {
    let payloads: Vec<&[u8]> = container
        .chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == container.program {
                program
            } else {
                &c.data
            }
        })
        .collect();
    let count = payloads.len();
    let table_end = HEADER_LEN + 4 * count;
    let mut out =
        Vec::with_capacity(table_end + payloads.iter().map(|p| 8 + p.len()).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(count as u32).to_le_bytes());
    let mut offset = table_end;
    for data in &payloads {
        out.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += 8 + data.len();
    }
    for (c, data) in container.chunks.iter().zip(&payloads) {
        out.extend_from_slice(&c.tag);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    let total = out.len() as u32;
    out[0x18..0x1c].copy_from_slice(&total.to_le_bytes());
    let sum = checksum(&out);
    out[4..20].copy_from_slice(&sum);
    out
}

fn hex(bytes: &[u8]) -> String {
    crate::isa::hex::bytes_hex(bytes, "")
}
