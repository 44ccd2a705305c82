//! Random streams: one master seed, one independent stream per named component.
//!
//! Adding a flow must never change another component's draws (docs/architecture.md, "Engine
//! principles"), so every component
//! (`"traffic.web[17]"`, `"queue.forward"`) seeds its own generator from `(master seed, its name)`.
//! The generator is xoshiro256++ (Blackman & Vigna, "Scrambled linear pseudorandom number generators",
//! 2021), seeded through SplitMix64 as its authors recommend. It is written out here, a dozen lines,
//! so results stay bit-identical whatever version of a crate is installed.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// SplitMix64 step (Steele, Lea & Flood 2014): used to expand seeds, never for draws.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*state)
}

/// SplitMix64's output function: every bit of `z` moves about half the bits of the result (also a
/// cheap hash of an integer key).
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hash map keyed by an integer the engine made (a connection, link and way; a pair of hosts),
/// hashed with [`mix64`]: a dozen instructions where std's default, SipHash, spends a few hundred
/// to resist keys chosen to make buckets collide, which the engine's own keys are not.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// The hasher of a [`KeyMap`]: the key's [`mix64`].
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }

    fn finish(&self) -> u64 {
        mix64(self.0)
    }
}

/// FNV-1a, 64 bit: a stable hash of a component name (std's hasher may change between releases).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// A xoshiro256++ stream.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream of component `name` under `master` seed.
    pub fn stream(master: u64, name: &str) -> Rng {
        let mut sm = master ^ splitmix64(&mut fnv1a64(name.as_bytes()));
        Rng::from_splitmix(&mut sm)
    }

    /// A new independent stream seeded from this one's next draw (for components created on the
    /// fly, such as a user's connections).
    pub fn fork(&mut self) -> Rng {
        let mut sm = self.next_u64();
        Rng::from_splitmix(&mut sm)
    }

    fn from_splitmix(sm: &mut u64) -> Rng {
        let s = [
            splitmix64(sm),
            splitmix64(sm),
            splitmix64(sm),
            splitmix64(sm),
        ];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on [0, 1), 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on (0, 1]: safe to take the logarithm of, or a negative power.
    pub fn uniform_open0(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Uniform on [lo, hi).
    pub fn uniform_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Exponential with the given mean (ns-2's `Random::exponential`, docs/models/ns2.md §4).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open0().ln()
    }

    /// Pareto with `scale` (the minimum) and `shape`: `scale·U^(−1/shape)` as ns-2's
    /// `Random::pareto` (docs/models/ns2.md §4). Its mean is `scale·shape/(shape−1)` for shape > 1.
    pub fn pareto(&mut self, scale: f64, shape: f64) -> f64 {
        scale * self.uniform_open0().powf(-1.0 / shape)
    }

    /// Uniform integer on [lo, hi] (inclusive), by rejection so there is no modulo bias.
    pub fn uniform_u64(&mut self, lo: u64, hi: u64) -> u64 {
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        let n = span + 1;
        let zone = u64::MAX - (u64::MAX % n) - 1;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return lo + x % n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference_vector() {
        // First outputs of the reference SplitMix64 seeded with 0.
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn xoshiro_matches_reference_vector() {
        // xoshiro256++ from state {1, 2, 3, 4}: outputs of the authors' reference C code.
        let mut r = Rng { s: [1, 2, 3, 4] };
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(got, vec![41_943_041, 58_720_359, 3_588_806_011_781_223]);
    }

    #[test]
    fn streams_depend_on_seed_and_name_only() {
        let a1: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "traffic.a[0]");
                move |_| r.next_u64()
            })
            .collect();
        let mut again = Rng::stream(7, "traffic.a[0]");
        let a2: Vec<u64> = (0..4).map(|_| again.next_u64()).collect();
        assert_eq!(a1, a2);
        assert_ne!(Rng::stream(8, "traffic.a[0]").next_u64(), a1[0]);
        assert_ne!(Rng::stream(7, "traffic.a[1]").next_u64(), a1[0]);
    }

    #[test]
    fn uniform_and_exponential_have_the_right_means() {
        let mut r = Rng::stream(1, "test");
        let n = 200_000;
        let u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((u - 0.5).abs() < 0.005, "uniform mean {u}");
        let e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((e - 2.0).abs() < 0.03, "exponential mean {e}");
        // Pareto(scale 1/3, shape 1.5) has mean 1; heavy tail, so a loose bound.
        let p: f64 = (0..n).map(|_| r.pareto(1.0 / 3.0, 1.5)).sum::<f64>() / n as f64;
        assert!((p - 1.0).abs() < 0.1, "pareto mean {p}");
        for _ in 0..1000 {
            let k = r.uniform_u64(3, 5);
            assert!((3..=5).contains(&k));
        }
    }
}
