//! Table names hashed once for lookups on every line of a listing: short ASCII words, for
//! which SipHash (std's default) costs more than the lookup saves.

use crate::hash::FastMap;

/// Names hashed with [`crate::hash::FastHasher`], the first entry of a name kept.
#[derive(Debug)]
pub struct Names<T>(FastMap<Box<[u8]>, T>);

impl<T> Names<T> {
    /// Names longer than this are none of them.
    pub const LONGEST: usize = 32;

    /// The map of `entries`; a name given twice keeps its first value.
    pub fn new(entries: impl Iterator<Item = (String, T)>) -> Self {
        let mut map = FastMap::default();
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
