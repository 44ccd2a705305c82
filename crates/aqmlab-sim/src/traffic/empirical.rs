//! Empirical distributions from CDF tables, sampled as ns-2's `RandomVariable/Empirical`
//! (ns-2 `tools/ranvar.cc`, docs/models/ns2.md §4): draw u ~ U(0, maxCDF) and find the first
//! table row whose cumulative probability is ≥ u. With `interpolation_ 0` (ns-2's default,
//! [`Interpolation::Step`]) that row's value is the draw; with `interpolation_ 1`
//! ([`Interpolation::Linear`]) the draw is interpolated linearly between the previous row and that
//! one (the first row's value is returned as is, as ns-2 does).
//!
//! A table may be given a Pareto tail ([`Empirical::with_pareto_tail`]): above a quantile q the
//! table's rows are replaced by a Pareto distribution that starts at the table's value there, x_q,
//! so P(X > x) = (1 − q)·(x_q / x)^α for x ≥ x_q. A table of a few thousand samples stops at its
//! largest one; the tail carries on where a heavy-tailed measurement would (Crovella and Bestavros,
//! "Self-similarity in World Wide Web traffic", IEEE/ACM ToN 1997, §4; docs/models/web.md §2.1 for
//! Mah's replies). Draws stay the inversion of one uniform: u ≤ q reads the table, u > q gives
//! x_q·((1 − q)/(1 − u))^(1/α).

use crate::rng::Rng;
use serde::Serialize;

/// ns-2's `interpolation_`: 0 = step (discrete), 1 = linear (continuous).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    Step,
    Linear,
}

/// A field of a CDF file as an error shows it: at most 16 characters, escaped, quoted.
fn excerpt(field: &str) -> String {
    let shown: String = field.chars().take(16).collect();
    let more = if field.chars().count() > 16 {
        "…"
    } else {
        ""
    };
    format!("\"{}{more}\"", shown.escape_debug())
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
    tail: Option<ParetoTail>,
    /// Per row, the running total of the rows' length-biased weights (value × probability) up to
    /// `rows_end`, for [`Empirical::sample_residual`]; kept up to date by every builder.
    residual_weights: Vec<f64>,
}

/// A Pareto tail above the table's quantile `from`: P(X > x) = (1 − from)·(start / x)^shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParetoTail {
    /// The cumulative probability where the tail takes over from the table.
    pub from: f64,
    /// The table's value at `from` (the smallest value whose cumulative probability reaches it).
    pub start: f64,
    /// The tail index α (above 1: a finite mean).
    pub shape: f64,
}

impl ParetoTail {
    /// The value at cumulative probability `u` in (from, 1).
    fn quantile(&self, u: f64) -> f64 {
        self.start * ((1.0 - self.from) / (1.0 - u)).powf(1.0 / self.shape)
    }

    /// The cumulative probability at `x` ≥ start.
    fn cdf(&self, x: f64) -> f64 {
        1.0 - (1.0 - self.from) * (self.start / x).powf(self.shape)
    }

    /// ∫ x dF over [start, upto]: the tail's share of the mean (with `upto` = ∞ untruncated).
    fn first_moment(&self, upto: f64) -> f64 {
        let a = self.shape;
        let cut = if upto.is_finite() {
            1.0 - (self.start / upto).powf(a - 1.0)
        } else {
            1.0
        };
        (1.0 - self.from) * a / (a - 1.0) * self.start * cut
    }

    /// A draw from the tail weighted by length (density ∝ x·f(x) ∝ x^−α on [start, upto]):
    /// a Pareto of shape α − 1, inverted within [start, upto].
    fn length_biased(&self, upto: f64, rng: &mut Rng) -> f64 {
        let b = self.shape - 1.0;
        let reach = if upto.is_finite() {
            1.0 - (self.start / upto).powf(b)
        } else {
            1.0
        };
        self.start * (1.0 - rng.uniform() * reach).powf(-1.0 / b)
    }
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
            let expected =
                "expected `value cumulative_probability` or `value count cumulative_probability`";
            if !(2..=3).contains(&cols.len()) {
                return Err(format!(
                    "line {}: {expected}, got {} fields",
                    n + 1,
                    cols.len()
                ));
            }
            // The file may be anything readable: only the offending field is shown, cut short
            // and escaped, never the line.
            let number = |i: usize| {
                cols[i].parse::<f64>().map_err(|_| {
                    format!(
                        "line {}: {expected}, got the field {}",
                        n + 1,
                        excerpt(cols[i])
                    )
                })
            };
            let row = (number(0)?, number(cols.len() - 1)?);
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
            tail: None,
            residual_weights: Vec::new(),
        }
        .weighed())
    }

    /// The table with its [`Self::residual_weights`] worked out for its rows, tail and bound.
    fn weighed(mut self) -> Empirical {
        let end = self.rows_end();
        let mut total = 0.0;
        let mut prev = 0.0;
        self.residual_weights = (self.values.iter().zip(&self.cdf))
            .map(|(v, p)| {
                let p = p.min(end);
                total += v * (p - prev).max(0.0);
                prev = prev.max(p);
                total
            })
            .collect();
        self
    }

    /// The same table with a Pareto tail of index `shape` above the quantile `from` (see the
    /// module's notes); `from` in (0, 1), `shape` above 1 (a finite mean).
    pub fn with_pareto_tail(mut self, from: f64, shape: f64) -> Empirical {
        assert!(
            from > 0.0 && from < 1.0 && shape > 1.0,
            "checked by the scenario reader"
        );
        let i = self
            .cdf
            .partition_point(|p| *p < from)
            .min(self.values.len() - 1);
        self.tail = Some(ParetoTail {
            from,
            start: self.values[i],
            shape,
        });
        self.max_cdf = 1.0;
        self.weighed()
    }

    /// The Pareto tail, if the table has one.
    pub fn tail(&self) -> Option<ParetoTail> {
        self.tail
    }

    /// The largest value a draw can take (∞ for an untruncated tail).
    fn upper(&self) -> f64 {
        match self.tail {
            Some(t) if self.max_cdf < 1.0 && self.max_cdf > t.from => t.quantile(self.max_cdf),
            _ => f64::INFINITY,
        }
    }

    /// The table's cumulative probability where its rows end (where the tail, if any, begins).
    fn rows_end(&self) -> f64 {
        self.tail.map_or(self.max_cdf, |t| t.from.min(self.max_cdf))
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
        if let Some(t) = self.tail.filter(|t| max > t.start) {
            self.max_cdf = t.cdf(max);
            return self.weighed();
        }
        let k = self.values.partition_point(|v| *v <= max);
        self.max_cdf = if k == 0 { self.cdf[0] } else { self.cdf[k - 1] };
        if let Some(t) = self.tail {
            self.max_cdf = self.max_cdf.min(t.from);
        }
        self.weighed()
    }

    pub fn sample(&self, rng: &mut Rng) -> f64 {
        let u = rng.uniform() * self.max_cdf;
        if let Some(t) = self.tail.filter(|t| u > t.from) {
            return t.quantile(u);
        }
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
        let weights = &self.residual_weights;
        let total = weights.last().copied().unwrap_or(0.0);
        let tail = self.tail.filter(|t| self.max_cdf > t.from);
        let tail_weight = tail.map_or(0.0, |t| t.first_moment(self.upper()));
        let u = rng.uniform() * (total + tail_weight);
        if let Some(t) = tail.filter(|_| u >= total) {
            return rng.uniform() * t.length_biased(self.upper(), rng);
        }
        let i = weights
            .partition_point(|c| *c < u)
            .min(self.values.len() - 1);
        rng.uniform() * self.values[i]
    }

    /// The mean of the (possibly truncated) distribution: with linear interpolation each step's
    /// mass sits uniformly between the previous value and its own.
    pub fn mean(&self) -> f64 {
        let end = self.rows_end();
        let mut prev = 0.0;
        let mut sum = 0.0;
        if let Some(t) = self.tail.filter(|t| self.max_cdf > t.from) {
            sum += t.first_moment(self.upper());
        }
        for (i, (v, p)) in self.values.iter().zip(&self.cdf).enumerate() {
            let p = p.min(end);
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

    #[test]
    fn a_bad_file_shows_its_offending_field_only_cut_and_escaped() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/nologin\n";
        let e = Empirical::parse(passwd).unwrap_err();
        assert!(
            e.starts_with("line 1: expected `value cumulative_probability`"),
            "{e}"
        );
        assert!(e.ends_with("got 1 fields"), "{e}");
        let e = Empirical::parse("secret\x1b[2Jtoken-and-more-text 1.0\n").unwrap_err();
        assert!(
            e.ends_with("got the field \"secret\\u{1b}[2Jtoken-…\""),
            "{e}"
        );
        assert!(!e.contains("more-text"), "{e}");
    }

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

    const TAILED: &str = "100 0.5\n200 0.9\n400 1\n";

    #[test]
    fn a_pareto_tail_replaces_the_rows_above_its_quantile() {
        let e = Empirical::parse(TAILED).unwrap().with_pareto_tail(0.9, 2.0);
        // Body 0.5·100 + 0.4·200; tail (1 − 0.9)·2/(2 − 1)·200.
        assert!((e.mean() - 170.0).abs() < 1e-9, "{}", e.mean());
        let mut rng = Rng::stream(5, "emp");
        let n = 400_000;
        let draws: Vec<f64> = (0..n).map(|_| e.sample(&mut rng)).collect();
        assert!(
            !draws.contains(&400.0),
            "the row above the quantile is gone"
        );
        // P(X > 800) = 0.1·(200/800)² = 1/160; P(100) = 0.5.
        for (share, p) in [
            (draws.iter().filter(|x| **x > 800.0).count(), 1.0 / 160.0),
            (draws.iter().filter(|x| **x == 100.0).count(), 0.5),
            (draws.iter().filter(|x| **x == 200.0).count(), 0.4),
        ] {
            let share = share as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((share - p).abs() < 5.0 * se, "{share} vs {p}");
        }
        assert!(draws.iter().all(|x| *x == 100.0 || *x >= 200.0));
    }

    #[test]
    fn a_truncated_tail_stops_at_its_bound_and_its_mean_follows() {
        let e = Empirical::parse(TAILED)
            .unwrap()
            .with_pareto_tail(0.9, 2.0)
            .truncated_at(800.0);
        let mut rng = Rng::stream(6, "emp");
        let n = 400_000;
        let draws: Vec<f64> = (0..n).map(|_| e.sample(&mut rng)).collect();
        assert!(draws.iter().all(|x| *x <= 800.0));
        // F(800) = 1 − 1/160; tail moment 0.1·2·200·(1 − 200/800) = 30; mean (130 + 30) / F(800).
        let expected = 160.0 / (1.0 - 1.0 / 160.0);
        assert!((e.mean() - expected).abs() < 1e-9, "{}", e.mean());
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean / expected - 1.0).abs() < 0.01, "{mean} vs {expected}");
        // Below the tail's start a bound truncates the rows as before.
        let low = Empirical::parse(TAILED)
            .unwrap()
            .with_pareto_tail(0.9, 2.0)
            .truncated_at(150.0);
        assert!((low.mean() - 100.0).abs() < 1e-9);
    }

    #[test]
    fn residuals_of_a_tailed_table_are_length_biased_too() {
        // Truncated at 800, E[X²] = 0.5·100² + 0.4·200² + 0.1·2·200²·ln 4 (the tail's x²·f(x)
        // integrates to 2·0.1·200²·ln(800/200)), over F(800); E[residual] = E[X²] / (2·E[X]).
        let e = Empirical::parse(TAILED)
            .unwrap()
            .with_pareto_tail(0.9, 2.0)
            .truncated_at(800.0);
        let f = 1.0 - 1.0 / 160.0;
        let second = (5_000.0 + 16_000.0 + 8_000.0 * 4f64.ln()) / f;
        let expected = second / (2.0 * e.mean());
        let mut rng = Rng::stream(7, "emp");
        let n = 400_000;
        let mean = (0..n).map(|_| e.sample_residual(&mut rng)).sum::<f64>() / n as f64;
        assert!((mean / expected - 1.0).abs() < 0.02, "{mean} vs {expected}");
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
