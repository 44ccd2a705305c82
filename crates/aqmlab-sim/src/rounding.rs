//! `floor`, `ceil` and `round` of an `f64` without a call into the C library. x86-64's baseline
//! instruction set (SSE2, what aqmlab is built for) has no rounding instruction, so `f64::floor`
//! and its kin are calls into libm; the RTO estimator ([`crate::tcp::rto`]) rounds on every ACK.
//! These give bit for bit what `std` gives, for every `f64` (±0 keep their sign, NaN and ±∞ pass
//! through; tested against `std` on edge cases and random bit patterns).

/// 2^52: from here on every `f64` is an integer (and so are NaN and ±∞ for our purpose: returned
/// as they are).
const INTEGRAL: f64 = 4_503_599_627_370_496.0;

/// `x` rounded toward zero, if it may have a fraction (|x| < 2^52); None if it is integral already.
#[inline(always)]
fn truncated(x: f64) -> Option<f64> {
    // Exact below 2^52: it fits an i64, and the conversion truncates (beyond, it saturates and
    // is not used).
    (x.abs() < INTEGRAL).then_some((x as i64) as f64)
}

/// A result of 0 takes the sign of `x` (as `std` does: `floor(-0.0)`, `ceil(-0.5)`, `round(-0.3)`
/// are −0).
#[inline(always)]
fn signed(r: f64, x: f64) -> f64 {
    if r == 0.0 {
        r.copysign(x)
    } else {
        r
    }
}

/// The largest integer not above `x` (`f64::floor`).
///
/// ```
/// use aqmlab_sim::rounding::floor;
/// assert_eq!((floor(2.5), floor(-2.5), floor(-0.0).is_sign_negative()), (2.0, -3.0, true));
/// ```
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    match truncated(x) {
        Some(t) => signed(if t > x { t - 1.0 } else { t }, x),
        None => x,
    }
}

/// The smallest integer not below `x` (`f64::ceil`).
///
/// ```
/// use aqmlab_sim::rounding::ceil;
/// assert_eq!((ceil(2.5), ceil(-2.5), ceil(-0.5).is_sign_negative()), (3.0, -2.0, true));
/// ```
#[inline(always)]
pub fn ceil(x: f64) -> f64 {
    match truncated(x) {
        Some(t) => signed(if t < x { t + 1.0 } else { t }, x),
        None => x,
    }
}

/// The nearest integer to `x`, halves away from zero (`f64::round`).
///
/// ```
/// use aqmlab_sim::rounding::round;
/// assert_eq!((round(2.5), round(-2.5), round(0.49999999999999994)), (3.0, -3.0, 0.0));
/// ```
#[inline(always)]
pub fn round(x: f64) -> f64 {
    match truncated(x) {
        Some(t) => {
            // Exact: `t` is `x` without its fraction.
            let fraction = x - t;
            let r = if fraction >= 0.5 {
                t + 1.0
            } else if fraction <= -0.5 {
                t - 1.0
            } else {
                t
            };
            signed(r, x)
        }
        None => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 (Steele, Lea & Flood 2014): bit patterns for the test, without the simulation's
    /// random streams (a layer above this module).
    fn bits(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn same(ours: f64, std: f64) -> bool {
        ours.to_bits() == std.to_bits() || (ours.is_nan() && std.is_nan())
    }

    fn check(x: f64) {
        assert!(
            same(floor(x), x.floor()),
            "floor({x:e}): {} vs {}",
            floor(x),
            x.floor()
        );
        assert!(
            same(ceil(x), x.ceil()),
            "ceil({x:e}): {} vs {}",
            ceil(x),
            x.ceil()
        );
        assert!(
            same(round(x), x.round()),
            "round({x:e}): {} vs {}",
            round(x),
            x.round()
        );
    }

    #[test]
    fn edge_cases_round_as_std_does() {
        let halfway_below = 0.5 - f64::EPSILON / 4.0; // 0.49999999999999994
        let edges = [
            0.0,
            0.5,
            1.0,
            1.5,
            2.5,
            halfway_below,
            1.0 - f64::EPSILON / 2.0,
            INTEGRAL - 0.5,
            INTEGRAL,
            INTEGRAL + 1.0,
            2.0 * INTEGRAL - 1.0,
            f64::MIN_POSITIVE,
            5e-324,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
        ];
        for x in edges {
            check(x);
            check(-x);
        }
    }

    #[test]
    fn random_values_round_as_std_does() {
        let mut state = 7;
        for i in 0..200_000u32 {
            // Every exponent (any bit pattern), and values near the integers the estimator uses.
            let any = f64::from_bits(bits(&mut state));
            let unit = (bits(&mut state) >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
            let near = (unit - 0.5) * 2f64.powi((i % 60) as i32);
            check(any);
            check(near);
            check(near.trunc() + 0.5);
        }
    }
}
