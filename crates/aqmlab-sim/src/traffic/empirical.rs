//! Empirical distributions from CDF tables, sampled as ns-2's `RandomVariable/Empirical` does with
//! its default `interpolation_ 0` (reference `models.md` §1.1): draw u ~ U(minCDF, maxCDF) and
//! return the first table value whose cumulative probability is ≥ u (a step function).

use crate::rng::Rng;

/// A CDF table: values ascending with their cumulative probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Empirical {
    values: Vec<f64>,
    cdf: Vec<f64>,
    /// Draws are limited to u ≤ max_cdf (ns-2 `maxCDF_`), which truncates the distribution at the
    /// value where the CDF reaches it.
    max_cdf: f64,
}

impl Empirical {
    /// Parse ns-2's format, one line per value: `value count cumulative_probability` (columns 1 and
    /// 3 are used, as ns-2's `loadCDF` does).
    pub fn parse(text: &str) -> Result<Empirical, String> {
        let mut values = Vec::new();
        let mut cdf = Vec::new();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let parse = |i: usize| cols.get(i).and_then(|c| c.parse::<f64>().ok());
            match (parse(0), parse(2)) {
                (Some(v), Some(p))
                    if cdf.last().is_none_or(|&last| p >= last) && (0.0..=1.0).contains(&p) =>
                {
                    values.push(v);
                    cdf.push(p);
                }
                _ => {
                    return Err(format!(
                        "line {}: expected `value count cumulative_probability`",
                        n + 1
                    ))
                }
            }
        }
        if values.is_empty() || (cdf[cdf.len() - 1] - 1.0).abs() > 1e-9 {
            return Err("a CDF table must end at cumulative probability 1".into());
        }
        Ok(Empirical {
            values,
            cdf,
            max_cdf: 1.0,
        })
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
        self.values[i]
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

    /// The mean of the (possibly truncated) distribution.
    pub fn mean(&self) -> f64 {
        let mut prev = 0.0;
        let mut sum = 0.0;
        for (v, p) in self.values.iter().zip(&self.cdf) {
            let p = p.min(self.max_cdf);
            sum += v * (p - prev).max(0.0);
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
    fn malformed_tables_are_refused() {
        assert!(Empirical::parse("").is_err());
        assert!(Empirical::parse("1 1 0.5\n2 1 0.4\n3 1 1\n").is_err());
        assert!(Empirical::parse("1 1 0.5\n").is_err());
        assert!(Empirical::parse("x y z\n").is_err());
    }
}
