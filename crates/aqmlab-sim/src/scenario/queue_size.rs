//! Queue sizes written as a multiple of the bandwidth-delay product (`"2bdp"`: the bottleneck's
//! rate × an RTT) or as a time at the bottleneck's rate (`"50ms"`), in a queue table's keys and in
//! its `tc` line alike (`docs/scenario.md`, "Queue sizes as a BDP or a time"). One rule resolves
//! both: the bytes, as packets of `packet` bytes, rounded up, at least one.

use super::reader::{queue_limit, Result, ScenarioError};
use crate::units::{QueueLimit, Rate, Size, Time};
use serde::Serialize;
use serde_json::Value;
use std::cell::Cell;

/// The packet a BDP or time converts to packets by, unless the queue's `packet` says otherwise: an
/// Ethernet MTU-sized IP packet.
pub const DEFAULT_PACKET: Size = Size(1500);

/// The most packets a queue size resolves to.
const MAX_PACKETS: f64 = 1e12;

/// What a resolved queue records of its BDP and time sizes: the RTT and packet they were
/// resolved with (the sizes themselves are written resolved, in their keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SizeRecord {
    pub rtt: Time,
    pub packet: Size,
}

/// What one queue's BDP and time sizes resolve with, and whether any did.
#[derive(Debug)]
pub struct SizeBasis {
    rate: Rate,
    /// The queue's `rtt`, or its site's mean base RTT (zero: no RTT is known).
    rtt: Time,
    packet: Size,
    /// Whether the queue table gave `rtt` or `packet`, or a size was resolved.
    used: Cell<bool>,
    /// The queue table's keys written as a BDP or a time, with the packets they came to.
    keys: Vec<(&'static str, u64)>,
}

impl SizeBasis {
    /// The basis of a queue on a link of `rate`: `rtt` and `packet` as the queue table gives them
    /// (`None`: the site's `mean_rtt`, and [`DEFAULT_PACKET`]).
    pub fn new(rate: Rate, rtt: Option<Time>, packet: Option<Size>, mean_rtt: Time) -> SizeBasis {
        SizeBasis {
            rate,
            rtt: rtt.unwrap_or(mean_rtt),
            packet: packet.unwrap_or(DEFAULT_PACKET),
            used: Cell::new(rtt.is_some() || packet.is_some()),
            keys: Vec::new(),
        }
    }

    /// The queue table's `key`, written as `text`, resolved as [`SizeBasis::packets`] does and
    /// kept for [`SizeBasis::resolved`].
    pub fn resolve_key(
        &mut self,
        key: &'static str,
        text: &str,
        path: &str,
    ) -> Result<Option<u64>> {
        let packets = self.packets(text, path, "")?;
        if let Some(n) = packets {
            self.keys.push((key, n));
        }
        Ok(packets)
    }

    /// The packets the queue table's `key` came to, if it was written as a BDP or a time.
    pub fn resolved(&self, key: &str) -> Option<u64> {
        self.keys.iter().find(|(k, _)| *k == key).map(|&(_, n)| n)
    }

    /// The queue table's `limit`, `v` at `path`: the packets it came to if it was written as a
    /// BDP or a time ([`SizeBasis::resolved`]), else packets or bytes as written.
    pub fn limit(&self, v: &Value, path: &str) -> Result<QueueLimit> {
        match self.resolved("limit") {
            Some(n) => Ok(QueueLimit::Packets(n)),
            None => queue_limit(v, path),
        }
    }

    /// `text` resolved as packets of `packet` bytes if it is a BDP or a time, `None` if it is
    /// neither; errors at `path`, `what` naming the field (for a tc word; empty for a key).
    pub fn packets(&self, text: &str, path: &str, what: &str) -> Result<Option<u64>> {
        let bad = |m: String| ScenarioError::new(path, format!("{what}{m}"));
        let text = text.trim();
        let bytes = if let Some(m) = text.strip_suffix("bdp") {
            let m = match m.trim().parse::<f64>() {
                Ok(m) if m.is_finite() && m > 0.0 => m,
                _ => {
                    return Err(bad(format!(
                        "expected a positive multiple of the BDP like \"2bdp\", got \"{text}\""
                    )))
                }
            };
            if self.rtt == Time::ZERO {
                return Err(bad(format!(
                    "\"{text}\" needs a round-trip time, and none is known here (the topology's mean base RTT is 0, or the queue is a [[link]]'s): give the queue's `rtt`"
                )));
            }
            m * self.rate.bps() as f64 * self.rtt.as_secs_f64() / 8.0
        } else if let Ok(t) = Time::parse(text) {
            if t == Time::ZERO {
                return Err(bad(format!(
                    "expected a queue size above zero, got \"{text}\""
                )));
            }
            self.rate.bps() as f64 * t.as_secs_f64() / 8.0
        } else {
            return Ok(None);
        };
        let packets = (bytes / self.packet.bytes() as f64).ceil().max(1.0);
        if packets > MAX_PACKETS {
            return Err(bad(format!(
                "expected a queue size below 10¹² packets, got \"{text}\""
            )));
        }
        self.used.set(true);
        Ok(Some(packets as u64))
    }

    /// `text` resolved as the bytes of [`SizeBasis::packets`] (for a queue that counts bytes).
    pub fn bytes(&self, text: &str, path: &str, what: &str) -> Result<Option<u64>> {
        Ok(self
            .packets(text, path, what)?
            .map(|n| n * self.packet.bytes()))
    }

    /// What the resolved queue records: the RTT and packet, if they were given or used.
    pub fn record(&self) -> Option<SizeRecord> {
        self.used.get().then_some(SizeRecord {
            rtt: self.rtt,
            packet: self.packet,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 10 Mb/s with a 60 ms RTT: a BDP of 75 000 B.
    fn basis() -> SizeBasis {
        SizeBasis::new(Rate(10_000_000), None, None, Time::from_millis(60))
    }

    #[test]
    fn bdps_and_times_are_packets_rounded_up_and_recorded() {
        let b = basis();
        assert_eq!(b.record(), None);
        assert_eq!(b.packets("100p", "q.limit", "").unwrap(), None);
        assert_eq!(b.record(), None, "a size that is neither is not recorded");
        assert_eq!(b.packets("2bdp", "q.limit", "").unwrap(), Some(100));
        // 50 ms at 10 Mb/s = 62 500 B = 41.7 packets → 42; in bytes, 42 packets of 1500 B.
        assert_eq!(b.packets("50ms", "q.limit", "").unwrap(), Some(42));
        assert_eq!(b.bytes("50ms", "q.limit", "").unwrap(), Some(63_000));
        assert_eq!(
            b.record(),
            Some(SizeRecord {
                rtt: Time::from_millis(60),
                packet: Size(1500)
            })
        );
    }

    #[test]
    fn a_resolved_key_keeps_its_packets() {
        let mut b = basis();
        assert_eq!(
            b.resolve_key("min_th", "50ms", "q.min_th").unwrap(),
            Some(42)
        );
        assert_eq!(b.resolve_key("max_th", "90p", "q.max_th").unwrap(), None);
        assert_eq!(b.resolved("min_th"), Some(42));
        assert_eq!(b.resolved("max_th"), None, "packets are the key's own");
        assert_eq!(b.resolved("limit"), None);
    }

    #[test]
    fn a_limit_is_the_packets_it_resolved_to_or_as_written() {
        let mut b = basis();
        let limit = |b: &SizeBasis, v: Value| b.limit(&v, "q.limit");
        assert_eq!(limit(&b, json!("3000B")).unwrap(), QueueLimit::Bytes(3000));
        assert_eq!(limit(&b, json!("30p")).unwrap(), QueueLimit::Packets(30));
        assert_eq!(limit(&b, json!("30")).unwrap_err().path, "q.limit");
        b.resolve_key("limit", "50ms", "q.limit").unwrap();
        assert_eq!(limit(&b, json!("50ms")).unwrap(), QueueLimit::Packets(42));
    }

    #[test]
    fn bad_sizes_name_the_field() {
        let b = basis();
        let e = b.packets("-1bdp", "queue.limit", "").unwrap_err();
        assert_eq!(e.path, "queue.limit");
        assert!(e.message.contains("positive multiple"), "{e}");
        let e = b.packets("0ms", "queue.tc", "tc: limit: ").unwrap_err();
        assert!(
            e.message
                .starts_with("tc: limit: expected a queue size above zero"),
            "{e}"
        );
        let none = SizeBasis::new(Rate(10_000_000), None, None, Time::ZERO);
        let e = none.packets("2bdp", "queue.limit", "").unwrap_err();
        assert!(e.message.contains("give the queue's `rtt`"), "{e}");
        // A time needs no RTT.
        assert_eq!(none.packets("8ms", "queue.limit", "").unwrap(), Some(7));
    }
}
