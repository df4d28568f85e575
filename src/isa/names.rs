//! Table names hashed once for lookups on every line of a listing: short ASCII words, for
//! which SipHash (std's default) costs more than the lookup saves.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Names hashed with FNV-1a, the first entry of a name kept.
#[derive(Debug)]
pub struct Names<T>(HashMap<Box<[u8]>, T, BuildHasherDefault<Fnv>>);

impl<T> Names<T> {
    /// Names longer than this are none of them.
    pub const LONGEST: usize = 32;

    /// The map of `entries`; a name given twice keeps its first value.
    pub fn new(entries: impl Iterator<Item = (String, T)>) -> Self {
        let mut map = HashMap::default();
        for (name, value) in entries {
            assert!(name.len() <= Self::LONGEST, "table name `{name}` too long");
            map.entry(name.into_bytes().into_boxed_slice())
                .or_insert(value);
        }
        Names(map)
    }

    /// The value of `name`.
    pub fn get(&self, name: &[u8]) -> Option<&T> {
        if name.len() > Self::LONGEST {
            return None;
        }
        self.0.get(name)
    }
}

/// The FNV-1a hash (64-bit).
#[derive(Debug)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
