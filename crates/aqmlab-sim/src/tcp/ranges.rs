//! A set of disjoint, sorted half-open byte ranges: the receiver's out-of-order data and the
//! sender's SACK scoreboard. Windows hold tens of segments, so a small sorted vector is the right
//! structure; its storage is reused, not reallocated, once it has grown.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
}

impl RangeSet {
    /// Add `[start, end)`, merging with overlapping or adjacent ranges. Returns the merged range that
    /// now contains it.
    pub fn insert(&mut self, start: u64, end: u64) -> (u64, u64) {
        debug_assert!(start < end);
        // The usual case, data above a hole arriving in order: the range starts in or after the
        // last one, so it can only extend that one or follow it (the others end before the last
        // one starts, with a gap).
        match self.ranges.last_mut() {
            Some(last) if start >= last.0 && start <= last.1 => {
                last.1 = last.1.max(end);
                return *last;
            }
            Some(last) if start > last.1 => {
                self.ranges.push((start, end));
                return (start, end);
            }
            None => {
                self.ranges.push((start, end));
                return (start, end);
            }
            Some(_) => {}
        }
        let (mut s, mut e) = (start, end);
        // First range that ends at or after `start` (could merge), and first that starts after `end`.
        let lo = self.ranges.partition_point(|r| r.1 < s);
        let hi = self.ranges.partition_point(|r| r.0 <= e);
        if lo < hi {
            s = s.min(self.ranges[lo].0);
            e = e.max(self.ranges[hi - 1].1);
        }
        self.ranges.splice(lo..hi, std::iter::once((s, e)));
        (s, e)
    }

    /// Forget everything below `seq`.
    pub fn trim_below(&mut self, seq: u64) {
        let n = self.ranges.partition_point(|r| r.1 <= seq);
        self.ranges.drain(..n);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(seq);
        }
    }

    /// If a range starts at or below `seq`, remove it and return its end.
    pub fn pop_through(&mut self, seq: u64) -> Option<u64> {
        match self.ranges.first() {
            Some(&(s, e)) if s <= seq => {
                self.ranges.remove(0);
                Some(e)
            }
            _ => None,
        }
    }

    pub fn contains(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        self.ranges.get(i).is_some_and(|r| r.0 <= seq)
    }

    /// The range containing `seq`, if any.
    pub fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        self.ranges.get(i).copied().filter(|r| r.0 <= seq)
    }

    /// Bytes in the set at or above `seq`.
    pub fn bytes_above(&self, seq: u64) -> u64 {
        self.ranges
            .iter()
            .map(|&(s, e)| e.saturating_sub(s.max(seq)))
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }

    /// Where RFC 6675's IsLost begins with a threshold of `threshold` bytes: the start of the
    /// highest range at and above whose start the set holds more than `threshold` bytes. An
    /// uncovered segment ending at or below it has more than `threshold` bytes above it; one
    /// ending above it does not. `None` if the set never holds that much.
    pub fn lost_edge(&self, threshold: u64) -> Option<u64> {
        let mut above = 0;
        for &(s, e) in self.ranges.iter().rev() {
            above += e - s;
            if above > threshold {
                return Some(s);
            }
        }
        None
    }

    /// Highest byte covered + 1, or `None` if empty.
    pub fn end(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_merge_overlapping_and_adjacent_ranges() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        assert_eq!(r.insert(20, 25), (10, 25));
        assert_eq!(r.insert(50, 60), (50, 60));
        assert_eq!(r.insert(24, 52), (10, 60));
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 60)]);
        r.insert(0, 5);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(0, 5), (10, 60)]);
        assert!(r.contains(10) && !r.contains(60) && !r.contains(7));
        assert_eq!(r.range_of(59), Some((10, 60)));
        assert_eq!(r.bytes_above(30), 30);
    }

    /// Random inserts (in order, with holes, and anywhere) against a byte-by-byte reference: the
    /// ranges and each returned range are those the bytes give.
    #[test]
    fn inserts_agree_with_a_set_of_bytes() {
        let mut rng = crate::rng::Rng::stream(3, "ranges");
        for round in 0..300 {
            let mut r = RangeSet::default();
            let mut bytes = [false; 200];
            let mut next = rng.uniform_u64(0, 50);
            for _ in 0..20 {
                let (start, len) = if round % 3 == 0 {
                    (rng.uniform_u64(0, 190), rng.uniform_u64(1, 10))
                } else {
                    // Mostly in order, sometimes skipping ahead or going back.
                    let start = match rng.uniform_u64(0, 4) {
                        0 => next + rng.uniform_u64(1, 6),
                        1 => next.saturating_sub(rng.uniform_u64(1, 20)),
                        _ => next,
                    };
                    (start.min(190), rng.uniform_u64(1, 10))
                };
                let end = start + len;
                next = end;
                bytes[start as usize..end as usize].fill(true);
                let (s, e) = r.insert(start, end);
                let (s, e) = (s as usize, e as usize);
                assert!(s <= start as usize && e >= end as usize);
                assert!(bytes[s..e].iter().all(|&b| b));
                assert!(s == 0 || !bytes[s - 1]);
                assert!(bytes.get(e) != Some(&true));
                let mut want = Vec::new();
                for (i, &b) in bytes.iter().enumerate() {
                    match want.last_mut() {
                        Some((_, e)) if b && *e == i as u64 => *e += 1,
                        _ if b => want.push((i as u64, i as u64 + 1)),
                        _ => {}
                    }
                }
                assert_eq!(r.iter().collect::<Vec<_>>(), want, "round {round}");
            }
        }
    }

    #[test]
    fn trimming_and_popping() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        r.trim_below(15);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(15, 20), (30, 40)]);
        assert_eq!(r.pop_through(14), None);
        assert_eq!(r.pop_through(15), Some(20));
        r.trim_below(45);
        assert!(r.is_empty());
    }
}
