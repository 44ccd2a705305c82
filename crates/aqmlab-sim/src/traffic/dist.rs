//! The one distribution type of the traffic generators' sizes and times ([`Dist`]): constant,
//! uniform, exponential, Pareto, lognormal, Weibull, or an empirical CDF table
//! ([`super::empirical`], ns-2's `RandomVariable/Empirical`). The scenario syntax is one table for
//! every field (`docs/scenario.md`, "Distributions"), read by `scenario/dist.rs`.
//!
//! Values are in the field's base unit ([`Unit`]): bytes for sizes, nanoseconds for times, whole
//! numbers for counts; an empirical table holds bytes, seconds or counts, as ns-2's CDF files do. The samplers are the textbook
//! inversions (Law & Kelton, *Simulation Modeling and Analysis*, ch. 8), with ns-2's forms where
//! ns-2 has one (`Random::exponential`, `Random::pareto`, docs/models/ns2.md §4):
//! - uniform: an integer on [min, max], both ends included (times and sizes are integers);
//! - exponential: `−mean·ln U`;
//! - Pareto: `scale·U^(−1/shape)`, the scale from the mean as `mean·(shape−1)/shape`;
//! - lognormal: `exp(μ + σ·Z)`, `μ = ln(mean) − σ²/2`, Z standard normal by Box–Muller (two
//!   uniforms per draw);
//! - Weibull: `scale·(−ln U)^(1/shape)`.
//!
//! A constant draws no random number, so a field left at its constant default consumes nothing from
//! its stream.

use super::empirical::Empirical;
use crate::rng::Rng;
use crate::units::{Size, Time};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::sync::Arc;

/// What a field's values measure: bytes, nanoseconds, or a number of things (objects per page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Size,
    Time,
    Count,
}

impl Unit {
    /// Base units per unit of an empirical table's values: 1 byte, 10⁹ ns per second, 1 thing.
    pub fn table_scale(self) -> f64 {
        match self {
            Unit::Size | Unit::Count => 1.0,
            Unit::Time => 1e9,
        }
    }

    /// What an empirical table's values count: bytes, seconds or things.
    pub fn table_unit(self) -> &'static str {
        match self {
            Unit::Size => "bytes",
            Unit::Time => "seconds",
            Unit::Count => "things",
        }
    }
}

/// How a field names the scale of a Pareto distribution: directly, or through its mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParetoBy {
    Mean(u64),
    Scale(u64),
}

/// A family of distributions with its parameters (quantities in the field's base unit).
#[derive(Clone, Debug, PartialEq)]
pub enum Law {
    Constant(u64),
    Uniform {
        min: u64,
        max: u64,
    },
    Exponential {
        mean: u64,
    },
    Pareto {
        shape: f64,
        by: ParetoBy,
    },
    Lognormal {
        mean: u64,
        sigma: f64,
    },
    Weibull {
        shape: f64,
        scale: u64,
    },
    /// An embedded table, with the file it was read from (a label; the table is the data).
    Empirical {
        file: String,
        table: Arc<Empirical>,
    },
}

/// What a bare value (a size or a duration instead of a table) means for a field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bare {
    /// The value itself: `size = "1000B"`.
    Constant,
    /// The mean of an exponential: `think_mean = "10ms"`.
    ExponentialMean,
    /// The mean of a Pareto of this shape: a `pareto` group's `burst = "500ms"` (ns-2's
    /// `burst_time_`, with the group's `shape`).
    ParetoMean(f64),
}

/// A field's distribution: its law, its unit, and how a bare value reads (so a distribution
/// written bare is written back bare, and existing scenarios resolve as before).
#[derive(Clone, Debug, PartialEq)]
pub struct Dist {
    pub law: Law,
    pub unit: Unit,
    pub bare: Bare,
}

impl Dist {
    /// The field's default: a bare `value`.
    pub fn bare(value: u64, unit: Unit, bare: Bare) -> Dist {
        let law = match bare {
            Bare::Constant => Law::Constant(value),
            Bare::ExponentialMean => Law::Exponential { mean: value },
            Bare::ParetoMean(shape) => Law::Pareto {
                shape,
                by: ParetoBy::Mean(value),
            },
        };
        Dist { law, unit, bare }
    }

    /// A draw in base units. See [`Dist::sample_scaled`].
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        self.sample_scaled(rng, 1.0)
    }

    /// A draw in base units × `factor` (e.g. seconds from nanoseconds with 1e-9): the parameters
    /// are scaled before drawing, so `−(mean·factor)·ln U` is the very number ns-2 draws.
    pub fn sample_scaled(&self, rng: &mut Rng, factor: f64) -> f64 {
        self.sample_converted(rng, |x| x * factor)
    }

    /// A draw counted in units of `per` base units (packets of a `pareto` burst from nanoseconds,
    /// `per` being one packet's interval): the parameters are divided before drawing, as ns-2
    /// divides `burst_time_` by the interval before it draws a burst (docs/models/ns2.md §4).
    pub fn sample_per(&self, rng: &mut Rng, per: f64) -> f64 {
        self.sample_converted(rng, |x| x / per)
    }

    /// A draw with every quantity (parameter, table value) converted by `q` before drawing.
    fn sample_converted(&self, rng: &mut Rng, q: impl Fn(f64) -> f64) -> f64 {
        let q64 = |x: u64| q(x as f64);
        match &self.law {
            Law::Constant(v) => q64(*v),
            Law::Uniform { min, max } => q64(rng.uniform_u64(*min, *max)),
            Law::Exponential { mean } => rng.exponential(q64(*mean)),
            Law::Pareto { shape, by } => {
                let scale = match *by {
                    ParetoBy::Scale(s) => q64(s),
                    ParetoBy::Mean(m) => q64(m) * (shape - 1.0) / shape,
                };
                rng.pareto(scale, *shape)
            }
            Law::Lognormal { mean, sigma } => {
                let mu = q64(*mean).ln() - sigma * sigma / 2.0;
                (mu + sigma * standard_normal(rng)).exp()
            }
            Law::Weibull { shape, scale } => {
                q64(*scale) * (-rng.uniform_open0().ln()).powf(1.0 / shape)
            }
            Law::Empirical { table, .. } => q(table.sample(rng) * self.unit.table_scale()),
        }
    }

    /// What is left of a period drawn from this law at a random instant (the stationary residual of
    /// the renewal process), × `factor`: exact for the exponential (memoryless: a full draw), the
    /// constant (uniform on [0, c]) and empirical tables (length-biased, then uniform within);
    /// for the other laws a full draw, an approximation (documented in docs/scenario.md).
    pub fn sample_residual_scaled(&self, rng: &mut Rng, factor: f64) -> f64 {
        match &self.law {
            Law::Constant(v) => rng.uniform() * *v as f64 * factor,
            Law::Empirical { table, .. } => {
                table.sample_residual(rng) * self.unit.table_scale() * factor
            }
            _ => self.sample_scaled(rng, factor),
        }
    }

    /// A draw rounded to a whole number of base units, at least `min`.
    pub fn sample_whole(&self, rng: &mut Rng, min: u64) -> u64 {
        (self.sample(rng).round() as u64).max(min)
    }

    /// The mean in base units; `None` when it is infinite (Pareto with shape ≤ 1 given by scale).
    pub fn mean(&self) -> Option<f64> {
        match &self.law {
            Law::Constant(v) => Some(*v as f64),
            Law::Uniform { min, max } => Some((*min as f64 + *max as f64) / 2.0),
            Law::Exponential { mean } | Law::Lognormal { mean, .. } => Some(*mean as f64),
            Law::Pareto {
                by: ParetoBy::Mean(m),
                ..
            } => Some(*m as f64),
            Law::Pareto {
                shape,
                by: ParetoBy::Scale(s),
            } => (*shape > 1.0).then(|| *s as f64 * shape / (shape - 1.0)),
            Law::Weibull { shape, scale } => Some(*scale as f64 * gamma(1.0 + 1.0 / shape)),
            Law::Empirical { table, .. } => Some(table.mean() * self.unit.table_scale()),
        }
    }

    /// Whether every draw is the same number.
    pub fn is_constant(&self) -> bool {
        matches!(self.law, Law::Constant(_))
    }
}

/// A standard normal draw by Box–Muller (its cosine half): `√(−2 ln U₁)·cos(2π U₂)`.
fn standard_normal(rng: &mut Rng) -> f64 {
    let r = (-2.0 * rng.uniform_open0().ln()).sqrt();
    r * (std::f64::consts::TAU * rng.uniform()).cos()
}

/// Γ(x) for x > 0 by the Lanczos approximation (g = 7, 9 coefficients; relative error ~1e-15),
/// for the Weibull mean `scale·Γ(1 + 1/shape)`.
pub fn gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)·Γ(1−x) = π / sin(πx).
        return std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x));
    }
    let x = x - 1.0;
    let t = x + G + 0.5;
    let sum = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |s, (i, c)| s + c / (x + i as f64 + 1.0));
    (std::f64::consts::TAU).sqrt() * t.powf(x + 0.5) * (-t).exp() * sum
}

/// A quantity in the field's unit, as the scenario writes it (`"12KB"`, `"10ms"`, `3`).
struct Quantity(u64, Unit);

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.1 {
            Unit::Size => Size(self.0).serialize(s),
            Unit::Time => Time(self.0).serialize(s),
            Unit::Count => self.0.serialize(s),
        }
    }
}

impl Serialize for Dist {
    /// Bare when the law is what a bare value means for the field; otherwise the table as written
    /// (`{ dist = "lognormal", mean = "12KB", sigma = 1.2 }`), an empirical table with its rows.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let q = |x: u64| Quantity(x, self.unit);
        match (&self.law, self.bare) {
            (Law::Constant(v), Bare::Constant)
            | (Law::Exponential { mean: v }, Bare::ExponentialMean) => return q(*v).serialize(s),
            (
                Law::Pareto {
                    shape,
                    by: ParetoBy::Mean(v),
                },
                Bare::ParetoMean(bare_shape),
            ) if *shape == bare_shape => return q(*v).serialize(s),
            _ => {}
        }
        let mut m = s.serialize_map(None)?;
        match &self.law {
            Law::Constant(v) => {
                m.serialize_entry("dist", "constant")?;
                m.serialize_entry("value", &q(*v))?;
            }
            Law::Uniform { min, max } => {
                m.serialize_entry("dist", "uniform")?;
                m.serialize_entry("min", &q(*min))?;
                m.serialize_entry("max", &q(*max))?;
            }
            Law::Exponential { mean } => {
                m.serialize_entry("dist", "exponential")?;
                m.serialize_entry("mean", &q(*mean))?;
            }
            Law::Pareto { shape, by } => {
                m.serialize_entry("dist", "pareto")?;
                m.serialize_entry("shape", shape)?;
                match by {
                    ParetoBy::Mean(v) => m.serialize_entry("mean", &q(*v))?,
                    ParetoBy::Scale(v) => m.serialize_entry("scale", &q(*v))?,
                }
            }
            Law::Lognormal { mean, sigma } => {
                m.serialize_entry("dist", "lognormal")?;
                m.serialize_entry("mean", &q(*mean))?;
                m.serialize_entry("sigma", sigma)?;
            }
            Law::Weibull { shape, scale } => {
                m.serialize_entry("dist", "weibull")?;
                m.serialize_entry("shape", shape)?;
                m.serialize_entry("scale", &q(*scale))?;
            }
            Law::Empirical { file, table } => {
                m.serialize_entry("dist", "empirical")?;
                m.serialize_entry("file", file)?;
                m.serialize_entry("interpolation", &table.interpolation())?;
                let rows: Vec<[f64; 2]> = table.rows().map(|(v, p)| [v, p]).collect();
                m.serialize_entry("table", &rows)?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::empirical::Interpolation;
    use super::*;
    use std::f64::consts::PI;

    const N: usize = 200_000;

    fn draws(d: &Dist, seed: u64) -> Vec<f64> {
        let mut rng = Rng::stream(seed, "dist");
        (0..N).map(|_| d.sample(&mut rng)).collect()
    }

    fn size(law: Law) -> Dist {
        Dist {
            law,
            unit: Unit::Size,
            bare: Bare::Constant,
        }
    }

    /// The sample mean is within 5 standard errors (√(var/n)) of the theoretical mean, and the
    /// sample variance within 5 of its own standard errors, √((μ₄ − σ⁴)/n), of the theoretical one.
    fn check_moments(d: &Dist, mean: f64, var: f64, kurtosis: f64, seed: u64) {
        let x = draws(d, seed);
        let n = N as f64;
        let m = x.iter().sum::<f64>() / n;
        let v = x.iter().map(|a| (a - m).powi(2)).sum::<f64>() / (n - 1.0);
        assert!(
            (m - mean).abs() < 5.0 * (var / n).sqrt(),
            "{d:?}: mean {m} vs {mean}"
        );
        let var_se = ((kurtosis - 1.0) * var * var / n).sqrt();
        assert!(
            (v - var).abs() < 5.0 * var_se,
            "{d:?}: variance {v} vs {var}"
        );
        assert!((d.mean().unwrap() - mean).abs() < 1e-9 * mean.max(1.0));
    }

    #[test]
    fn sample_moments_match_theory() {
        // Kurtosis μ₄/σ⁴ of each law, for the variance's standard error.
        let (a, b) = (1000.0f64, 3000.0f64);
        check_moments(
            &size(Law::Uniform {
                min: 1000,
                max: 3000,
            }),
            2000.0,
            ((b - a + 1.0).powi(2) - 1.0) / 12.0,
            1.8,
            1,
        );
        check_moments(
            &size(Law::Exponential { mean: 500 }),
            500.0,
            250_000.0,
            9.0,
            2,
        );
        // Pareto shape 6 (finite fourth moment): var = xm²·k/((k−1)²(k−2)).
        let (k, mean) = (6.0f64, 1200.0f64);
        let xm = mean * (k - 1.0) / k;
        let var = xm * xm * k / ((k - 1.0).powi(2) * (k - 2.0));
        let m4 = |j: f64| k * xm.powf(j) / (k - j); // E[X^j]
        let mu4 = m4(4.0) - 4.0 * mean * m4(3.0) + 6.0 * mean * mean * m4(2.0) - 3.0 * mean.powi(4);
        check_moments(
            &size(Law::Pareto {
                shape: k,
                by: ParetoBy::Mean(1200),
            }),
            mean,
            var,
            mu4 / (var * var),
            3,
        );
        // Lognormal σ = 0.5: var = (e^{σ²} − 1)·mean², kurtosis e^{4σ²} + 2e^{3σ²} + 3e^{2σ²} − 3.
        let s2 = 0.25f64;
        check_moments(
            &size(Law::Lognormal {
                mean: 12_000,
                sigma: 0.5,
            }),
            12_000.0,
            (s2.exp() - 1.0) * 144e6,
            (4.0 * s2).exp() + 2.0 * (3.0 * s2).exp() + 3.0 * (2.0 * s2).exp() - 3.0,
            4,
        );
        // Weibull shape 2, scale 1000: mean λ·√π/2, var λ²(1 − π/4); kurtosis ≈ 3.245.
        let pi = std::f64::consts::PI;
        check_moments(
            &size(Law::Weibull {
                shape: 2.0,
                scale: 1000,
            }),
            1000.0 * pi.sqrt() / 2.0,
            1e6 * (1.0 - pi / 4.0),
            (32.0 - 3.0 * pi * pi) / ((4.0 - pi) * (4.0 - pi)),
            5,
        );
    }

    #[test]
    fn quantiles_match_theory() {
        // P(X ≤ median) = 1/2 within 5 binomial standard errors, for each continuous law.
        let cases = [
            (size(Law::Exponential { mean: 1000 }), 1000.0 * 2f64.ln()),
            (
                size(Law::Weibull {
                    shape: 0.7,
                    scale: 400,
                }),
                400.0 * 2f64.ln().powf(1.0 / 0.7),
            ),
            (
                size(Law::Pareto {
                    shape: 1.2,
                    by: ParetoBy::Scale(100),
                }),
                100.0 * 2f64.powf(1.0 / 1.2),
            ),
            (
                size(Law::Lognormal {
                    mean: 5000,
                    sigma: 1.2,
                }),
                (5000f64.ln() - 0.72).exp(),
            ),
        ];
        for (i, (d, median)) in cases.iter().enumerate() {
            let x = draws(d, 10 + i as u64);
            let below = x.iter().filter(|a| **a <= *median).count() as f64 / N as f64;
            assert!(
                (below - 0.5).abs() < 5.0 * (0.25 / N as f64).sqrt(),
                "{d:?}: {below}"
            );
        }
    }

    #[test]
    fn constants_draw_nothing_and_time_tables_are_seconds() {
        let mut rng = Rng::stream(1, "dist");
        let mut same = rng.clone();
        assert_eq!(size(Law::Constant(1500)).sample(&mut rng), 1500.0);
        assert_eq!(rng.next_u64(), same.next_u64());
        let table = Empirical::parse("0.5 1\n").unwrap();
        let d = Dist {
            law: Law::Empirical {
                file: "t.cdf".into(),
                table: Arc::new(table),
            },
            unit: Unit::Time,
            bare: Bare::ExponentialMean,
        };
        assert_eq!(d.sample(&mut rng), 5e8);
        assert_eq!(d.mean(), Some(5e8));
    }

    #[test]
    fn exponential_in_seconds_is_the_ns2_draw() {
        let d = Dist::bare(10_000_000, Unit::Time, Bare::ExponentialMean);
        let (mut a, mut b) = (Rng::stream(5, "x"), Rng::stream(5, "x"));
        for _ in 0..100 {
            assert_eq!(
                d.sample_scaled(&mut a, 1e-9),
                b.exponential(Time(10_000_000).as_secs_f64())
            );
        }
    }

    #[test]
    fn draws_per_unit_divide_the_parameters_first() {
        // ns-2's burst: Pareto with scale (burst/interval)·(k−1)/k, not burst·(k−1)/k/interval.
        let d = Dist::bare(500_000_000, Unit::Time, Bare::ParetoMean(1.5));
        let (mut a, mut b) = (Rng::stream(2, "p"), Rng::stream(2, "p"));
        let interval = 2_304_000.0;
        let scale = 500_000_000.0 / interval * (1.5 - 1.0) / 1.5;
        for _ in 0..100 {
            assert_eq!(d.sample_per(&mut a, interval), b.pareto(scale, 1.5));
        }
        // The mean of a draw per unit is the mean divided by the unit (5 standard errors).
        let w = size(Law::Weibull {
            shape: 2.0,
            scale: 1000,
        });
        let mut rng = Rng::stream(3, "p");
        let m = (0..N).map(|_| w.sample_per(&mut rng, 10.0)).sum::<f64>() / N as f64;
        let (mean, sd) = (w.mean().unwrap() / 10.0, 100.0 * (1.0 - PI / 4.0).sqrt());
        assert!(
            (m - mean).abs() < 5.0 * sd / (N as f64).sqrt(),
            "{m} vs {mean}"
        );
    }

    #[test]
    fn bare_pareto_means_and_counts_are_written_back_as_read() {
        let j = |d: &Dist| serde_json::to_string(d).unwrap();
        let bare = Dist::bare(500_000_000, Unit::Time, Bare::ParetoMean(1.5));
        assert_eq!(j(&bare), "\"500ms\"");
        // The same law with another shape than the field's is a table.
        let other = Dist {
            law: Law::Pareto {
                shape: 2.5,
                by: ParetoBy::Mean(500_000_000),
            },
            ..bare
        };
        assert_eq!(j(&other), r#"{"dist":"pareto","shape":2.5,"mean":"500ms"}"#);
        assert_eq!(j(&Dist::bare(3, Unit::Count, Bare::Constant)), "3");
        let uniform = Dist {
            law: Law::Uniform { min: 1, max: 4 },
            unit: Unit::Count,
            bare: Bare::Constant,
        };
        assert_eq!(j(&uniform), r#"{"dist":"uniform","min":1,"max":4}"#);
    }

    #[test]
    fn gamma_matches_known_values() {
        for (x, g) in [
            (1.0, 1.0),
            (5.0, 24.0),
            (0.5, std::f64::consts::PI.sqrt()),
            (1.5, 0.886_226_925_452_758),
        ] {
            assert!((gamma(x) / g - 1.0).abs() < 1e-12, "Γ({x}) = {}", gamma(x));
        }
    }

    #[test]
    fn written_back_as_read() {
        let j = |d: &Dist| serde_json::to_string(d).unwrap();
        assert_eq!(
            j(&Dist::bare(1000, Unit::Size, Bare::Constant)),
            "\"1000B\""
        );
        assert_eq!(
            j(&Dist::bare(10_000_000, Unit::Time, Bare::ExponentialMean)),
            "\"10ms\""
        );
        let exp_size = size(Law::Exponential { mean: 1000 });
        assert_eq!(j(&exp_size), r#"{"dist":"exponential","mean":"1000B"}"#);
        let table = Empirical::parse("1 0.5\n3 1\n")
            .unwrap()
            .with_interpolation(Interpolation::Linear);
        let e = size(Law::Empirical {
            file: "a.cdf".into(),
            table: Arc::new(table),
        });
        assert_eq!(
            j(&e),
            r#"{"dist":"empirical","file":"a.cdf","interpolation":"linear","table":[[1.0,0.5],[3.0,1.0]]}"#
        );
    }
}
