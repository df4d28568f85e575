//! xorshift64* (Marsaglia's xorshift with Vigna's multiplier): reproducible pseudo-random
//! numbers for texlate's own tests, benchmarks and examples (random instruction words,
//! mutated inputs) without a dependency. The same seed gives the same sequence on every
//! machine; nothing here is fit for anything that must not be predicted.

/// The generator; its state is the seed, then the last state (a zero seed gives zeros).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    #[allow(clippy::should_implement_trait)] // an endless generator, not an `Iterator`
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (> 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
