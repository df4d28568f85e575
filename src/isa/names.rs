//! Table names looked up on every line of a listing (mnemonics, register files): short
//! ASCII words, packed into four words and found in an open-addressed table by their
//! [`FastHasher`] hash, then compared as words (a `HashMap` of byte strings compares keys
//! with `memcmp`, which costs more than the lookup saves).

use std::hash::Hasher;

use crate::hash::FastHasher;

/// A name packed for [`Names`]: its bytes as four little-endian words, zero-padded, and
/// its length (so that padding never matches a NUL byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed([u64; 4], usize);

impl Packed {
    /// `name` packed; `None` when it is longer than [`Names::LONGEST`].
    fn new(name: &[u8]) -> Option<Packed> {
        if name.len() > Names::<()>::LONGEST {
            return None;
        }
        let mut words = [0u64; 4];
        for (word, chunk) in words.iter_mut().zip(name.chunks(8)) {
            *word = chunk.iter().rev().fold(0, |w, b| w << 8 | u64::from(*b));
        }
        Some(Packed(words, name.len()))
    }

    /// The slot the name starts probing at, in a table of `1 << bits` slots: the hash of
    /// its length and of the words its bytes reach.
    fn slot(&self, bits: u32) -> usize {
        let mut hasher = FastHasher::default();
        hasher.write_usize(self.1);
        for word in &self.0[..self.1.div_ceil(8)] {
            hasher.write_u64(*word);
        }
        hasher.finish() as usize & ((1 << bits) - 1)
    }
}

/// Names mapped to values, the first entry of a name kept.
#[derive(Debug)]
pub struct Names<T> {
    entries: Vec<(Packed, T)>,
    /// Open addressing with linear probing: an index into `entries` plus one, 0 = empty;
    /// at most a quarter full.
    slots: Box<[u32]>,
    bits: u32,
}

impl<T> Names<T> {
    /// Names longer than this are none of them.
    pub const LONGEST: usize = 32;

    /// The map of `entries`; a name given twice keeps its first value.
    pub fn new(entries: impl Iterator<Item = (String, T)>) -> Self {
        let mut names = Names {
            entries: Vec::new(),
            slots: Box::new([]),
            bits: 0,
        };
        for (name, value) in entries {
            let packed = Packed::new(name.as_bytes())
                .unwrap_or_else(|| panic!("table name `{name}` too long"));
            if !names.entries.iter().any(|(p, _)| *p == packed) {
                names.entries.push((packed, value));
            }
        }
        names.bits = (4 * names.entries.len())
            .next_power_of_two()
            .max(16)
            .trailing_zeros();
        let mut slots = vec![0u32; 1 << names.bits];
        for (i, (packed, _)) in names.entries.iter().enumerate() {
            let mut at = packed.slot(names.bits);
            while slots[at] != 0 {
                at = (at + 1) & (slots.len() - 1);
            }
            slots[at] = i as u32 + 1;
        }
        names.slots = slots.into_boxed_slice();
        names
    }

    /// The value of `name`.
    pub fn get(&self, name: &[u8]) -> Option<&T> {
        let packed = Packed::new(name)?;
        let mut at = packed.slot(self.bits);
        loop {
            let entry = self
                .entries
                .get((*self.slots.get(at)? as usize).checked_sub(1)?)?;
            if entry.0 == packed {
                return Some(&entry.1);
            }
            at = (at + 1) & (self.slots.len() - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name finds its first value (a name given twice keeps the first); other names
    /// (prefixes, extensions, a NUL byte where padding is, names too long) find none.
    #[test]
    fn names_find_exactly_their_entries() {
        let words: Vec<String> = (0..300)
            .map(|i| format!("{}{}", "abcdefgh_xyz".repeat(i % 3), i))
            .collect();
        let names = Names::new(
            words
                .iter()
                .enumerate()
                .map(|(i, w)| (w.clone(), i))
                .chain([(words[7].clone(), 999)]),
        );
        for (i, w) in words.iter().enumerate() {
            assert_eq!(names.get(w.as_bytes()), Some(&i), "{w}");
            let mut longer = w.clone().into_bytes();
            longer.push(b'_');
            assert_eq!(names.get(&longer), None);
            assert_eq!(
                names.get(&w.as_bytes()[..w.len() - 1]).is_some(),
                words.contains(&w[..w.len() - 1].to_string())
            );
            longer.pop();
            longer.push(0);
            assert_eq!(names.get(&longer), None);
        }
        assert_eq!(names.get(b""), None);
        assert_eq!(names.get(&[b'a'; 40]), None);
    }
}
