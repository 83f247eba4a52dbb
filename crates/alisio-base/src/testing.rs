//! The one random-number generator of the tests (the unit tests of every crate through
//! `alisio_base::testing`, the end-to-end suites through `tests/common`, which includes this
//! file): xorshift64*, tiny and deterministic, so a failing randomized test is reproducible from
//! its seed. Public but hidden: a test-only helper, not part of the API.

/// xorshift64* over a non-zero state (a zero seed is replaced by a fixed odd constant).
pub struct Rng(pub u64);

impl Rng {
    // Not an `Iterator`: it never ends, and the suites call it by this name.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        if self.0 == 0 {
            self.0 = 0x9E37_79B9_7F4A_7C15;
        }
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// An element of `xs` (used by the end-to-end suites).
    #[allow(dead_code)]
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}
