//! Unit types: time in integer nanoseconds, rates in bit/s, sizes in bytes, queue limits.
//!
//! Every quantity parses from a string with a unit (`"79ms"`, `"10Mbps"`, `"16KiB"`, `"480p"`) and
//! prints back in the largest unit that keeps it exact, so a resolved scenario reads like the one a
//! person wrote and parses to the same value. Parsing is exact decimal arithmetic: `"1.5ms"` is
//! 1 500 000 ns, never a rounded float, and a value that is not a whole number of the base unit
//! (`"0.5ns"`, `"1.5bps"`, `"0.5B"`) is refused rather than rounded.

use serde::{Serialize, Serializer};
use std::fmt;

/// Parse `"<decimal><unit>"` into a whole number of base units, given the unit table
/// (`(suffix, base units per suffix)`, matched exactly). Returns a message describing what was wrong.
fn parse_with_units(text: &str, units: &[(&str, u128)], what: &str) -> Result<u64, String> {
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim());
    if num.is_empty() {
        return Err(format!("expected {what}, got \"{text}\" (no number)"));
    }
    let factor = match units.iter().find(|(u, _)| *u == unit) {
        Some((_, f)) => *f,
        None => {
            let names: Vec<&str> = units.iter().map(|(u, _)| *u).collect();
            let found = if unit.is_empty() {
                "no unit".to_string()
            } else {
                format!("unit \"{unit}\"")
            };
            return Err(format!(
                "expected {what}, got \"{text}\" ({found}; units: {})",
                names.join(", ")
            ));
        }
    };
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if frac_part.contains('.') || (int_part.is_empty() && frac_part.is_empty()) {
        return Err(format!(
            "expected {what}, got \"{text}\" (malformed number)"
        ));
    }
    // value = digits / 10^frac_len · factor, computed exactly.
    let digits = format!("{int_part}{frac_part}");
    let mantissa: u128 = digits
        .parse()
        .map_err(|_| format!("expected {what}, got \"{text}\" (number too large)"))?;
    let scale = 10u128
        .checked_pow(frac_part.len() as u32)
        .ok_or_else(|| format!("expected {what}, got \"{text}\" (too many decimals)"))?;
    let scaled = mantissa
        .checked_mul(factor)
        .ok_or_else(|| format!("expected {what}, got \"{text}\" (too large)"))?;
    if scaled % scale != 0 {
        return Err(format!(
            "expected {what}, got \"{text}\" (not a whole number of {})",
            units[0].0
        ));
    }
    u64::try_from(scaled / scale)
        .map_err(|_| format!("expected {what}, got \"{text}\" (too large)"))
}

/// Print `value` base units with the largest unit that divides it exactly.
fn format_with_units(
    f: &mut fmt::Formatter<'_>,
    value: u64,
    units: &[(&str, u128)],
) -> fmt::Result {
    let v = u128::from(value);
    let (name, factor) = units
        .iter()
        .rev()
        .find(|(_, factor)| v % factor == 0)
        .copied()
        .unwrap_or(units[0]);
    write!(f, "{}{}", v / factor, name)
}

macro_rules! serialize_as_display {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}

/// A point in simulated time or a span of it, in nanoseconds. No floating-point clocks
/// (docs/architecture.md, "Engine principles").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

const TIME_UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("min", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Parse a duration such as `"79ms"`, `"1.5s"` or `"90min"`.
    pub fn parse(text: &str) -> Result<Time, String> {
        parse_with_units(text, TIME_UNITS, "a duration like \"79ms\"").map(Time)
    }
}

impl std::ops::Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0 + rhs.0)
    }
}

impl std::ops::Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return write!(f, "0s");
        }
        format_with_units(f, self.0, TIME_UNITS)
    }
}
serialize_as_display!(Time);

/// A link or source rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

const RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
];

impl Rate {
    /// Parse a rate such as `"10Mbps"` or `"64kbps"` (powers of 1000).
    pub fn parse(text: &str) -> Result<Rate, String> {
        parse_with_units(text, RATE_UNITS, "a rate like \"10Mbps\"").map(Rate)
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialise `bytes` at this rate, rounded up to the next nanosecond. In 64 bits
    /// while bits × 10⁹ fits (any packet: up to about 2.3 GB), a 128-bit division (a library
    /// call several times slower, once per packet sent) only beyond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Time {
        match bytes.checked_mul(8 * 1_000_000_000) {
            Some(bits_ns) => Time(bits_ns.div_ceil(self.0)),
            None => {
                let bits_ns = u128::from(bytes) * 8 * 1_000_000_000;
                Time(bits_ns.div_ceil(u128::from(self.0)) as u64)
            }
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        format_with_units(f, self.0, RATE_UNITS)
    }
}
serialize_as_display!(Rate);

/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size(pub u64);

const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("KiB", 1_024),
    ("MB", 1_000_000),
    ("MiB", 1_048_576),
    ("GB", 1_000_000_000),
    ("GiB", 1_073_741_824),
];

impl Size {
    /// Parse a size such as `"1000B"`, `"64KB"` (1000s), `"16KiB"` (1024s) or `"2GB"`.
    pub fn parse(text: &str) -> Result<Size, String> {
        parse_with_units(text, SIZE_UNITS, "a size like \"1000B\" or \"16KiB\"").map(Size)
    }
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Packet-sized values read best in bytes ("1460B"); larger ones in the largest exact
        // unit, decimal before binary (16384 → "16KiB", 64000 → "64KB").
        let v = u128::from(self.0);
        let pick = [
            ("MB", 1_000_000u128),
            ("MiB", 1_048_576),
            ("KB", 1_000),
            ("KiB", 1_024),
        ]
        .into_iter()
        .find(|(_, k)| v >= 10_000 && v % k == 0);
        match pick {
            Some((name, k)) => write!(f, "{}{}", v / k, name),
            None => write!(f, "{v}B"),
        }
    }
}
serialize_as_display!(Size);

/// A queue's capacity: in packets (`"50p"`) or in bytes (`"64KB"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl QueueLimit {
    /// Parse `"50p"` (packets) or any size (`"64KB"`).
    pub fn parse(text: &str) -> Result<QueueLimit, String> {
        let expected = "a queue limit like \"50p\" or \"64KB\"";
        if let Some(n) = text.trim().strip_suffix('p') {
            return match n.trim().parse::<u64>() {
                Ok(v) => Ok(QueueLimit::Packets(v)),
                Err(_) => Err(format!("expected {expected}, got \"{text}\"")),
            };
        }
        Size::parse(text)
            .map(|s| QueueLimit::Bytes(s.0))
            .map_err(|_| format!("expected {expected}, got \"{text}\""))
    }

    /// Would a queue holding `pkts` packets and `bytes` bytes overflow by taking `size` more bytes?
    pub fn would_overflow(self, pkts: u64, bytes: u64, size: u64) -> bool {
        match self {
            QueueLimit::Packets(max) => pkts + 1 > max,
            QueueLimit::Bytes(max) => bytes + size > max,
        }
    }
}

impl fmt::Display for QueueLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueLimit::Packets(n) => write!(f, "{n}p"),
            QueueLimit::Bytes(b) => write!(f, "{}", Size(*b)),
        }
    }
}
serialize_as_display!(QueueLimit);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_exactly() {
        assert_eq!(Time::parse("79ms"), Ok(Time(79_000_000)));
        assert_eq!(Time::parse("1.5s"), Ok(Time(1_500_000_000)));
        assert_eq!(Time::parse("90min"), Ok(Time(5_400_000_000_000)));
        assert_eq!(Time::parse("1h"), Ok(Time::from_secs(3600)));
        assert_eq!(Time::parse("0.000001ms"), Ok(Time(1)));
        assert_eq!(Time::parse(" 3 ms "), Ok(Time(3_000_000)));
    }

    #[test]
    fn durations_refuse_bad_text() {
        for bad in [
            "",
            "ms",
            "10",
            "10 parsecs",
            "0.5ns",
            "1.2.3s",
            "-5ms",
            "1e3ms",
            ".",
        ] {
            assert!(Time::parse(bad).is_err(), "{bad:?} should not parse");
        }
        let msg = Time::parse("10").unwrap_err();
        assert!(msg.contains("no unit"), "{msg}");
    }

    #[test]
    fn units_round_trip_through_display() {
        for s in ["79ms", "90min", "1500ms", "3us", "0s", "7ns"] {
            assert_eq!(Time::parse(s).unwrap().to_string(), s);
        }
        for s in ["10Mbps", "64kbps", "1500bps", "1Gbps"] {
            assert_eq!(Rate::parse(s).unwrap().to_string(), s);
        }
        for s in ["1000B", "1460B", "64KB", "1MiB"] {
            assert_eq!(Size::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(Size::parse("16KiB").unwrap(), Size(16_384));
        assert_eq!(Size::parse("16KiB").unwrap().to_string(), "16KiB");
        assert_eq!(QueueLimit::parse("480p"), Ok(QueueLimit::Packets(480)));
        assert_eq!(QueueLimit::parse("64KB"), Ok(QueueLimit::Bytes(64_000)));
        assert_eq!(QueueLimit::parse("480p").unwrap().to_string(), "480p");
        assert!(QueueLimit::parse("fifty").is_err());
        assert!(QueueLimit::parse("-3p").is_err());
    }

    #[test]
    fn transmission_time_rounds_up_to_whole_nanoseconds() {
        let r = Rate::parse("10Mbps").unwrap();
        assert_eq!(r.tx_time(1000), Time(800_000));
        assert_eq!(Rate(3).tx_time(1), Time(2_666_666_667));
        // Beyond 64 bits of bit·ns (about 2.3 GB), the same rounded-up quotient.
        assert_eq!(
            Rate(8_000_000_000).tx_time(3_000_000_000),
            Time(3_000_000_000)
        );
        assert_eq!(
            Rate(1_000_000_007).tx_time(2_400_000_000),
            Time(19_199_999_866)
        );
    }

    #[test]
    fn queue_limits_count_packets_or_bytes() {
        assert!(!QueueLimit::Packets(2).would_overflow(1, 1500, 1500));
        assert!(QueueLimit::Packets(2).would_overflow(2, 3000, 1));
        assert!(!QueueLimit::Bytes(3000).would_overflow(2, 2000, 1000));
        assert!(QueueLimit::Bytes(3000).would_overflow(2, 2000, 1001));
    }
}
