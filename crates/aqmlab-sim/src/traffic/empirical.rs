//! Empirical distributions from CDF tables, sampled as ns-2's `RandomVariable/Empirical`
//! (ns-2 `tools/ranvar.cc`, reference `models.md` §1.1): draw u ~ U(0, maxCDF) and find the first
//! table row whose cumulative probability is ≥ u. With `interpolation_ 0` (ns-2's default,
//! [`Interpolation::Step`]) that row's value is the draw; with `interpolation_ 1`
//! ([`Interpolation::Linear`]) the draw is interpolated linearly between the previous row and that
//! one (the first row's value is returned as is, as ns-2 does).

use crate::rng::Rng;
use serde::Serialize;

/// ns-2's `interpolation_`: 0 = step (discrete), 1 = linear (continuous).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    Step,
    Linear,
}

/// A CDF table: values ascending with their cumulative probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Empirical {
    values: Vec<f64>,
    cdf: Vec<f64>,
    interpolation: Interpolation,
    /// Draws are limited to u ≤ max_cdf (ns-2 `maxCDF_`), which truncates the distribution at the
    /// value where the CDF reaches it.
    max_cdf: f64,
}

impl Empirical {
    /// Parse ns-2's format, one line per value: `value count cumulative_probability` (columns 1 and
    /// 3 are used, as ns-2's `loadCDF` does) or `value cumulative_probability`; blank lines and
    /// lines starting with `#` are skipped. Sampled as a step function.
    pub fn parse(text: &str) -> Result<Empirical, String> {
        let mut rows = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let cols: Vec<&str> = line.split_whitespace().collect();
            let parse = |i: usize| cols[i].parse::<f64>().ok();
            let row = match cols.len() {
                2 => parse(0).zip(parse(1)),
                3 => parse(0).zip(parse(2)),
                _ => None,
            };
            let Some(row) = row else {
                return Err(format!(
                    "line {}: expected `value cumulative_probability` or `value count cumulative_probability`, got \"{line}\"",
                    n + 1
                ));
            };
            rows.push(row);
        }
        Empirical::from_rows(&rows, Interpolation::Step)
    }

    /// A table from `(value, cumulative probability)` rows, checked: finite values, ascending;
    /// probabilities in [0, 1], non-decreasing, the last one 1.
    pub fn from_rows(
        rows: &[(f64, f64)],
        interpolation: Interpolation,
    ) -> Result<Empirical, String> {
        for (i, w) in rows.iter().enumerate() {
            let (v, p) = *w;
            let row = i + 1;
            if !v.is_finite() || !(0.0..=1.0).contains(&p) {
                return Err(format!(
                    "row {row}: expected a finite value and a cumulative probability in [0, 1], got {v} {p}"
                ));
            }
            if let Some(&(pv, pp)) = i.checked_sub(1).map(|j| &rows[j]) {
                if p < pp || v < pv {
                    return Err(format!(
                        "row {row}: expected values and cumulative probabilities non-decreasing, got {v} {p} after {pv} {pp}"
                    ));
                }
            }
        }
        match rows.last() {
            Some(&(_, p)) if (p - 1.0).abs() <= 1e-9 => {}
            _ => return Err("expected the last row at cumulative probability 1".into()),
        }
        Ok(Empirical {
            values: rows.iter().map(|r| r.0).collect(),
            cdf: rows.iter().map(|r| r.1).collect(),
            interpolation,
            max_cdf: 1.0,
        })
    }

    /// The same table, sampled with `interpolation`.
    pub fn with_interpolation(mut self, interpolation: Interpolation) -> Empirical {
        self.interpolation = interpolation;
        self
    }

    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// The `(value, cumulative probability)` rows.
    pub fn rows(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.values.iter().copied().zip(self.cdf.iter().copied())
    }

    /// The same table, truncated: no draw above `max` (the conditional distribution given
    /// X ≤ max, as ns-2's `maxCDF_` set to F(max)).
    pub fn truncated_at(mut self, max: f64) -> Empirical {
        let k = self.values.partition_point(|v| *v <= max);
        self.max_cdf = if k == 0 { self.cdf[0] } else { self.cdf[k - 1] };
        self
    }

    pub fn sample(&self, rng: &mut Rng) -> f64 {
        let u = rng.uniform() * self.max_cdf;
        let i = self
            .cdf
            .partition_point(|p| *p < u)
            .min(self.values.len() - 1);
        match self.interpolation {
            Interpolation::Linear if i > 0 && self.cdf[i] > self.cdf[i - 1] => {
                let (p0, p1) = (self.cdf[i - 1], self.cdf[i]);
                let (v0, v1) = (self.values[i - 1], self.values[i]);
                v0 + (v1 - v0) * (u - p0) / (p1 - p0)
            }
            _ => self.values[i],
        }
    }

    /// The time left in a period drawn from this distribution, seen at a random instant: the
    /// stationary residual of a renewal process. A period containing a random instant is
    /// length-biased (value x drawn with weight x·p(x)), and the instant is uniform within it.
    pub fn sample_residual(&self, rng: &mut Rng) -> f64 {
        let mut total = 0.0;
        let mut prev = 0.0;
        let weights: Vec<f64> = self
            .values
            .iter()
            .zip(&self.cdf)
            .map(|(v, p)| {
                let p = p.min(self.max_cdf);
                let w = v * (p - prev).max(0.0);
                prev = prev.max(p);
                total += w;
                total
            })
            .collect();
        let u = rng.uniform() * total;
        let i = weights
            .partition_point(|c| *c < u)
            .min(self.values.len() - 1);
        rng.uniform() * self.values[i]
    }

    /// The mean of the (possibly truncated) distribution: with linear interpolation each step's
    /// mass sits uniformly between the previous value and its own.
    pub fn mean(&self) -> f64 {
        let mut prev = 0.0;
        let mut sum = 0.0;
        for (i, (v, p)) in self.values.iter().zip(&self.cdf).enumerate() {
            let p = p.min(self.max_cdf);
            let at = match self.interpolation {
                Interpolation::Linear if i > 0 => (self.values[i - 1] + v) / 2.0,
                _ => *v,
            };
            sum += at * (p - prev).max(0.0);
            prev = prev.max(p);
        }
        sum / self.max_cdf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "1 5 0.5\n2 3 0.8\n10 2 1.0\n";

    #[test]
    fn step_function_sampling_matches_the_table() {
        let e = Empirical::parse(TABLE).unwrap();
        let mut rng = Rng::stream(1, "emp");
        let n = 100_000;
        let draws: Vec<f64> = (0..n).map(|_| e.sample(&mut rng)).collect();
        let share = |v: f64| draws.iter().filter(|d| **d == v).count() as f64 / n as f64;
        assert!(
            (share(1.0) - 0.5).abs() < 0.01
                && (share(2.0) - 0.3).abs() < 0.01
                && (share(10.0) - 0.2).abs() < 0.01
        );
        assert!((e.mean() - (0.5 + 0.6 + 2.0)).abs() < 1e-12);
    }

    #[test]
    fn truncation_conditions_on_the_bound() {
        let e = Empirical::parse(TABLE).unwrap().truncated_at(5.0);
        let mut rng = Rng::stream(2, "emp");
        assert!((0..10_000).all(|_| e.sample(&mut rng) <= 2.0));
        // E[X | X ≤ 5] = (0.5·1 + 0.3·2) / 0.8.
        assert!((e.mean() - 1.1 / 0.8).abs() < 1e-12);
    }

    #[test]
    fn residuals_are_length_biased() {
        // E[residual] = E[X²] / (2·E[X]) = (0.5 + 1.2 + 20) / (2 · 3.1).
        let e = Empirical::parse(TABLE).unwrap();
        let mut rng = Rng::stream(3, "emp");
        let n = 200_000;
        let mean = (0..n).map(|_| e.sample_residual(&mut rng)).sum::<f64>() / n as f64;
        let expected = 21.7 / 6.2;
        assert!((mean / expected - 1.0).abs() < 0.02, "{mean} vs {expected}");
    }

    #[test]
    fn two_columns_read_as_three() {
        let two = Empirical::parse("# size cdf\n1 0.5\n2 0.8\n\n10 1.0\n").unwrap();
        assert_eq!(two, Empirical::parse(TABLE).unwrap());
    }

    #[test]
    fn step_and_linear_interpolation_on_a_hand_made_table() {
        // 100 with probability 0.25; between 100 and 300 with probability 0.75.
        let step = Empirical::parse("100 0.25\n300 1\n").unwrap();
        let linear = step.clone().with_interpolation(Interpolation::Linear);
        let n = 200_000;
        let (mut rs, mut rl) = (Rng::stream(4, "emp"), Rng::stream(4, "emp"));
        let s: Vec<f64> = (0..n).map(|_| step.sample(&mut rs)).collect();
        let l: Vec<f64> = (0..n).map(|_| linear.sample(&mut rl)).collect();
        assert!(s.iter().all(|x| *x == 100.0 || *x == 300.0));
        // Linear: the same uniform u maps to 100 + 200·(u − 0.25)/0.75 above the first row.
        let below_200 = l.iter().filter(|x| **x < 200.0).count() as f64 / n as f64;
        // P(X < 200) = 0.25 + 0.75 · 0.5; binomial standard error √(p(1−p)/n), 5 of them.
        let p = 0.625;
        assert!(
            (below_200 - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(),
            "{below_200}"
        );
        assert!(l.iter().all(|x| (100.0..=300.0).contains(x)));
        assert!((step.mean() - 250.0).abs() < 1e-12);
        assert!((linear.mean() - (25.0 + 0.75 * 200.0)).abs() < 1e-12);
        // Both read the same u, so a linear draw never exceeds the step draw.
        assert!(s.iter().zip(&l).all(|(a, b)| b <= a));
    }

    #[test]
    fn malformed_tables_are_refused() {
        assert!(Empirical::parse("1 0.5 0.2 0.1\n").is_err());
        assert!(
            Empirical::parse("2 0.5\n1 1\n").is_err(),
            "values must ascend"
        );
        assert!(Empirical::parse("1 1.5\n").is_err());
        assert!(Empirical::parse("nan 1\n").is_err());
        assert!(Empirical::parse("").is_err());
        assert!(Empirical::parse("1 1 0.5\n2 1 0.4\n3 1 1\n").is_err());
        assert!(Empirical::parse("1 1 0.5\n").is_err());
        assert!(Empirical::parse("x y z\n").is_err());
    }
}
