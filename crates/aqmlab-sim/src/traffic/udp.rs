//! UDP sources (CBR, Poisson, Pareto ON/OFF) after ns-2's traffic generators (docs/models/ns2.md
//! §4), and the sink that counts what arrives and the gaps in the sequence numbers (per-flow loss).

use super::config::TrafficKind;
use super::dist::Dist;
use crate::rng::Rng;
use crate::units::Time;

/// When a source sends next: one variant per kind, holding what its gaps need.
#[derive(Clone, Debug)]
enum Gaps {
    /// Exact CBR: packet k leaves at `start + ⌊k · bits·10⁹ / rate⌋` ns, so the long-run rate is exact.
    Cbr {
        start: Time,
        bits_ns: u128,
        rate_bps: u128,
        k: u64,
    },
    /// ns-2 CBR with `random_`: each gap is `interval · (1 + U(−0.5, 0.5))`.
    CbrJitter { interval: f64 },
    /// Exponential gaps with mean `interval`.
    Poisson { interval: f64 },
    /// ns-2 `POO_Traffic::next_interval`: `rem` packets left in the burst; when it runs out a new
    /// burst of `max(1, int(ON / interval + 0.5))` packets is drawn, ON from `burst` counted in
    /// intervals, and an OFF time drawn from `idle` is added to the gap before it. With ns-2's
    /// Pareto laws, ON / interval is `Pareto(burstlen·(shape−1)/shape, shape)`, `burstlen =
    /// burst_time_ / interval`, the very number ns-2 draws (see [`Dist::sample_per`]).
    Pareto {
        interval: f64,
        burst: Dist,
        idle: Dist,
        rem: u64,
    },
}

/// One UDP flow's sender.
#[derive(Clone, Debug)]
pub struct UdpSource {
    pub flow: u32,
    /// Packet sizes in bytes: a constant, or drawn per packet (rounded, at least 1 byte, at most
    /// 65 535, the largest IP packet).
    size: Dist,
    pub stop: Time,
    gaps: Gaps,
    rng: Rng,
    next_seq: u64,
}

/// The largest IP packet, bytes: drawn UDP sizes are capped here.
pub const MAX_PACKET: u64 = 65_535;

/// Round a non-negative gap in (fractional) ns to whole ns.
fn ns(x: f64) -> Time {
    Time(x.round() as u64)
}

impl UdpSource {
    /// The sender of flow `flow` of a UDP group of kind `kind`, starting at `start`, drawing from
    /// `rng`. Panics if `kind` is not a UDP kind (the caller dispatches on it).
    /// The gaps follow the mean packet size: `rate` is the long-run mean bit rate.
    pub fn new(flow: u32, kind: &TrafficKind, start: Time, rng: Rng) -> UdpSource {
        let p = kind.udp().expect("a UDP traffic kind");
        let bits_ns = match p.size.law {
            super::dist::Law::Constant(b) => u128::from(b) * 8 * 1_000_000_000,
            _ => {
                let mean = p
                    .size
                    .mean()
                    .expect("UDP packet sizes have a finite mean (checked)");
                (mean * 8e9).round() as u128
            }
        };
        let interval = bits_ns as f64 / p.rate.bps() as f64;
        let gaps = match *kind {
            TrafficKind::Cbr { jitter: false, .. } => Gaps::Cbr {
                start,
                bits_ns,
                rate_bps: u128::from(p.rate.bps()),
                k: 0,
            },
            TrafficKind::Cbr { jitter: true, .. } => Gaps::CbrJitter { interval },
            TrafficKind::Poisson { .. } => Gaps::Poisson { interval },
            TrafficKind::Pareto {
                ref burst,
                ref idle,
                ..
            } => Gaps::Pareto {
                interval,
                burst: burst.clone(),
                idle: idle.clone(),
                rem: 0,
            },
            TrafficKind::Ftp { .. }
            | TrafficKind::WebMah { .. }
            | TrafficKind::WebPool { .. }
            | TrafficKind::WebSession { .. }
            | TrafficKind::Telnet { .. } => {
                unreachable!("udp() returned None for TCP kinds")
            }
        };
        UdpSource {
            flow,
            size: p.size.clone(),
            stop: p.stop,
            gaps,
            rng,
            next_seq: 0,
        }
    }

    /// When the first packet leaves, given the group's start time. CBR sends at once (ns-2's
    /// `CBR_Traffic` starts with a packet); Poisson after an exponential gap; Pareto after an OFF time
    /// plus one interval, as ns-2 schedules its first packet through `next_interval`.
    pub fn first_departure(&mut self, start: Time) -> Time {
        match self.gaps {
            Gaps::Cbr { .. } | Gaps::CbrJitter { .. } => start,
            Gaps::Poisson { .. } | Gaps::Pareto { .. } => start + self.next_gap(),
        }
    }

    /// The next packet's size in bytes (a constant draws nothing).
    pub fn next_size(&mut self) -> u32 {
        match self.size.law {
            super::dist::Law::Constant(b) => b as u32,
            _ => self.size.sample_whole(&mut self.rng, 1).min(MAX_PACKET) as u32,
        }
    }

    /// Take the next sequence number (one per packet sent).
    pub fn take_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// After sending at `now`, when does the next packet leave?
    pub fn next_departure(&mut self, now: Time) -> Time {
        if let Gaps::Cbr {
            start,
            bits_ns,
            rate_bps,
            ref mut k,
        } = self.gaps
        {
            *k += 1;
            return start + Time((u128::from(*k) * bits_ns / rate_bps) as u64);
        }
        now + self.next_gap()
    }

    fn next_gap(&mut self) -> Time {
        let rng = &mut self.rng;
        match &mut self.gaps {
            Gaps::Cbr { .. } => unreachable!("exact CBR computes departures, not gaps"),
            Gaps::CbrJitter { interval } => ns(*interval * rng.uniform_in(0.5, 1.5)),
            Gaps::Poisson { interval } => ns(rng.exponential(*interval)),
            Gaps::Pareto {
                interval,
                burst,
                idle,
                rem,
            } => {
                let mut gap = *interval;
                if *rem == 0 {
                    *rem = ((burst.sample_per(rng, *interval) + 0.5) as u64).max(1);
                    gap += idle.sample(rng);
                }
                *rem -= 1;
                ns(gap)
            }
        }
    }
}

/// Per-flow counters, cumulative from time 0 (a copy is a snapshot).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounters {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub recv_pkts: u64,
    pub recv_bytes: u64,
    /// Sequence numbers the sink saw skipped: losses as the receiver can tell them.
    pub lost_pkts: u64,
    /// Packets of this flow dropped anywhere in the network.
    pub dropped_pkts: u64,
    /// Sum of the one-way delays of received packets, in ns.
    pub delay_ns: u128,
}

impl FlowCounters {
    pub fn minus(&self, earlier: &FlowCounters) -> FlowCounters {
        FlowCounters {
            sent_pkts: self.sent_pkts - earlier.sent_pkts,
            sent_bytes: self.sent_bytes - earlier.sent_bytes,
            recv_pkts: self.recv_pkts - earlier.recv_pkts,
            recv_bytes: self.recv_bytes - earlier.recv_bytes,
            lost_pkts: self.lost_pkts - earlier.lost_pkts,
            dropped_pkts: self.dropped_pkts - earlier.dropped_pkts,
            delay_ns: self.delay_ns - earlier.delay_ns,
        }
    }
}

/// The receiving end of a UDP flow: counts packets and the sequence gaps before them.
#[derive(Clone, Copy, Debug, Default)]
pub struct UdpSink {
    expected: u64,
}

impl UdpSink {
    /// Account packet `seq` of `size` bytes. Packets of one flow follow one FIFO path, so they
    /// arrive in order and a gap is a loss.
    pub fn receive(&mut self, seq: u64, size: u32, c: &mut FlowCounters) {
        c.recv_pkts += 1;
        c.recv_bytes += u64::from(size);
        if seq > self.expected {
            c.lost_pkts += seq - self.expected;
        }
        self.expected = self.expected.max(seq + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::dist::{Bare, Unit};
    use crate::units::{Rate, Size};

    const SIZE: Size = Size(1000);
    const STOP: Time = Time::from_secs(100);

    fn source(kind: TrafficKind, seed: u64) -> UdpSource {
        UdpSource::new(0, &kind, Time::from_secs(1), Rng::stream(seed, "a"))
    }

    /// Mean gap over many packets, in ns.
    fn mean_gap(src: &mut UdpSource, n: u64) -> f64 {
        let first = src.first_departure(Time::from_secs(1));
        let mut t = first;
        for _ in 0..n {
            t = src.next_departure(t);
        }
        (t - first).0 as f64 / n as f64
    }

    #[test]
    fn cbr_is_exact_over_the_long_run() {
        // 1000 B at 3 Mbps: 2 666 666.67 ns per packet; 3 packets take exactly 8 ms.
        let mut s = source(
            TrafficKind::Cbr {
                size: Dist::bare(SIZE.bytes(), Unit::Size, Bare::Constant),
                rate: Rate(3_000_000),
                stop: STOP,
                jitter: false,
            },
            1,
        );
        assert_eq!(s.first_departure(Time::from_secs(1)), Time::from_secs(1));
        let t1 = s.next_departure(Time::from_secs(1));
        let t2 = s.next_departure(t1);
        let t3 = s.next_departure(t2);
        assert_eq!(t1, Time(1_002_666_666));
        assert_eq!(t3, Time(1_008_000_000));
    }

    #[test]
    fn random_sources_keep_their_mean_rate() {
        let interval = 8_000_000.0; // 1000 B at 1 Mbps
        let rate = Rate(1_000_000);
        for (kind, tol) in [
            (
                TrafficKind::Cbr {
                    size: Dist::bare(SIZE.bytes(), Unit::Size, Bare::Constant),
                    rate,
                    stop: STOP,
                    jitter: true,
                },
                0.01,
            ),
            (
                TrafficKind::Poisson {
                    size: Dist::bare(SIZE.bytes(), Unit::Size, Bare::Constant),
                    rate,
                    stop: STOP,
                },
                0.02,
            ),
        ] {
            let mut s = source(kind.clone(), 3);
            let g = mean_gap(&mut s, 20_000);
            assert!((g / interval - 1.0).abs() < tol, "{kind:?}: mean gap {g}");
        }
    }

    #[test]
    fn pareto_alternates_bursts_and_idle_times_with_the_right_means() {
        // Peak 1 Mbps, 1000 B → interval 8 ms; burst 80 ms → 10 packets per burst on average;
        // idle 200 ms. Mean cycle: 10 packets · 8 ms + 200 ms; long-run rate 10/280 ms.
        let kind = pareto_kind(
            pareto_time(Time::from_millis(80), 1.9),
            pareto_time(Time::from_millis(200), 1.9),
        );
        let mut s = source(kind, 5);
        let g = mean_gap(&mut s, 400_000);
        let expected = 280e6 / 10.0;
        assert!(
            (g / expected - 1.0).abs() < 0.05,
            "mean gap {g} vs {expected}"
        );
    }

    fn pareto_kind(burst: Dist, idle: Dist) -> TrafficKind {
        TrafficKind::Pareto {
            size: Dist::bare(SIZE.bytes(), Unit::Size, Bare::Constant),
            rate: Rate(1_000_000),
            stop: STOP,
            burst,
            idle,
            shape: 1.9,
        }
    }

    /// A bare `burst`/`idle`: the mean of a Pareto of `shape`.
    fn pareto_time(mean: Time, shape: f64) -> Dist {
        Dist::bare(mean.0, Unit::Time, Bare::ParetoMean(shape))
    }

    #[test]
    fn pareto_draws_are_ns2s_numbers() {
        // ns-2 pareto.cc: p1 = burstlen·(shape−1)/shape with burstlen = burst_time/interval,
        // p2 = idle_time·(shape−1)/shape; rem = int(pareto(p1) + 0.5) (at least 1), then the OFF
        // time pareto(p2) is added to the first gap.
        let (burst, idle, shape) = (Time::from_millis(80), Time::from_millis(200), 1.9);
        let mut s = source(
            pareto_kind(pareto_time(burst, shape), pareto_time(idle, shape)),
            5,
        );
        let mut rng = s.rng.clone();
        let interval = 8e6;
        let p1 = burst.0 as f64 / interval * (shape - 1.0) / shape;
        let p2 = idle.0 as f64 * (shape - 1.0) / shape;
        let mut rem = 0u64;
        for _ in 0..10_000 {
            let mut gap = interval;
            if rem == 0 {
                rem = ((rng.pareto(p1, shape) + 0.5) as u64).max(1);
                gap += rng.pareto(p2, shape);
            }
            rem -= 1;
            assert_eq!(s.next_gap(), ns(gap));
        }
    }

    #[test]
    fn pareto_bursts_and_idle_times_take_any_distribution() {
        // ON 80 ms = 10 packets of 8 ms each burst, OFF 200 ms: a burst's first gap is 208 ms.
        let constant = |t: Time| Dist::bare(t.0, Unit::Time, Bare::Constant);
        let mut s = source(
            pareto_kind(
                constant(Time::from_millis(80)),
                constant(Time::from_millis(200)),
            ),
            5,
        );
        for _ in 0..3 {
            assert_eq!(s.next_gap(), Time::from_millis(208));
            for _ in 1..10 {
                assert_eq!(s.next_gap(), Time::from_millis(8));
            }
        }
    }

    #[test]
    fn sink_counts_gaps_as_losses() {
        let (mut sink, mut c) = (UdpSink::default(), FlowCounters::default());
        for seq in [0, 1, 3, 4, 7] {
            sink.receive(seq, 100, &mut c);
        }
        assert_eq!((c.recv_pkts, c.recv_bytes, c.lost_pkts), (5, 500, 3));
    }
}
