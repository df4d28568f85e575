//! What the three codecs' [`Codec::constants`](super::Codec::constants) share: the set of
//! registers a stream has set to known constants, as it is read in order.
//!
//! The model is conservative: every write the codec cannot evaluate forgets what it may
//! overwrite, control flow forgets everything, and only unconditional moves of immediates
//! (or of registers already known) are remembered.

use std::collections::BTreeMap;

/// Registers (`K`) known to hold a 32-bit constant at the current point of a stream.
#[derive(Clone, Debug)]
pub struct Known<K: Ord + Copy> {
    values: BTreeMap<K, u32>,
}

impl<K: Ord + Copy> Default for Known<K> {
    fn default() -> Self {
        Known {
            values: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Copy> Known<K> {
    /// `k` now holds `v`.
    pub fn set(&mut self, k: K, v: u32) {
        self.values.insert(k, v);
    }

    /// `k` may have been overwritten.
    pub fn kill(&mut self, k: K) {
        self.values.remove(&k);
    }

    /// Every register may have been overwritten (control flow, an instruction not understood).
    pub fn kill_all(&mut self) {
        self.values.clear();
    }

    /// Forgets every register `f` says may have been written.
    pub fn kill_where(&mut self, mut f: impl FnMut(&K) -> bool) {
        self.values.retain(|k, _| !f(k));
    }

    /// The constant `k` holds, if known.
    pub fn get(&self, k: K) -> Option<u32> {
        self.values.get(&k).copied()
    }

    /// Every known register and its value, in register order.
    pub fn iter(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.values.iter().map(|(k, v)| (*k, *v))
    }
}
