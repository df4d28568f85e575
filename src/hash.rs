//! A fast hasher for texlate's internal maps, keyed by register numbers, virtual-register
//! elements and resource slots: the multiply-and-rotate hash of rustc's `FxHasher`
//! (rustc-hash 2), a few instructions per key where the standard library's SipHash-1-3 takes
//! ~150. Not for keys an attacker picks to collide; the maps here hold at most one entry per
//! register or instruction of the input, so a collision costs probes, never memory.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A `HashSet` hashed with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// rustc-hash 2's multiplier (an odd constant with well-spread bits).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The hasher: each word added, then multiplied by `K`; the result rotated so that the
/// well-mixed high bits of the product reach the low bits hash tables index with.
#[derive(Clone, Copy, Default)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.hash = self.hash.wrapping_add(word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            // The length keeps "a" and "a\0" apart.
            self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash(v: impl Hash) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(v)
    }

    #[test]
    fn keys_that_differ_hash_apart() {
        assert_ne!(hash((1u32, 0u32)), hash((0u32, 1u32)));
        assert_ne!(hash("a"), hash("a\0"));
        assert_ne!(hash(0u32), hash(1u32));
        assert_eq!(hash((7u32, 3u32)), hash((7u32, 3u32)));
    }

    #[test]
    fn low_bits_spread_for_strided_keys() {
        // Multiples of a large power of two: without the final rotation they would all share
        // their low bits, and so their bucket in a small table.
        let buckets: FastSet<u64> = (0..64u32).map(|k| hash(k << 20) & 63).collect();
        assert!(buckets.len() > 32, "{} buckets of 64", buckets.len());
    }
}
