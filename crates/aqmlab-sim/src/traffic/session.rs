//! Long-lived TCP connections whose application writes now and then: Zhang & Qiu's web sessions
//! (§IV-C Type 2: a 30 KB transfer, then a think time uniform on [1 s, 3 s] that starts when its
//! last byte is acknowledged, slow start after the idle period) and telnet (ns-2's
//! `Application/Telnet`: one write per event, the inter-arrival times drawn from the tcplib table,
//! docs/models/ns2.md §4).

use super::config::{TelnetInterval, TrafficKind};
use crate::rng::Rng;
use crate::units::Time;

const TCPLIB: &str = include_str!("../../data/tcplib_telnet_interarrival_10000_quantiles.txt");

/// The tcplib telnet inter-arrival table: 10 000 equiprobable values, sampled as
/// `table[int(U·10000)]` with no interpolation (ns-2 `tcplib-telnet.cc`).
#[derive(Clone, Debug)]
pub struct Tcplib(Vec<f64>);

impl Tcplib {
    pub fn load() -> Tcplib {
        let values = TCPLIB
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                l.trim()
                    .parse::<f64>()
                    .expect("the shipped tcplib table is numeric")
            })
            .collect();
        Tcplib(values)
    }

    pub fn sample(&self, rng: &mut Rng) -> Time {
        let i = ((rng.uniform() * self.0.len() as f64) as usize).min(self.0.len() - 1);
        Time((self.0[i] * 1e9).round() as u64)
    }
}

/// Where a session's application is; what it writes and when is its group's (`TrafficKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionApp {
    /// Write `size` bytes; when all are acknowledged, think U(think_min, think_max), repeat.
    /// `busy` is the time spent in the transfers that have ended.
    WebSession { phase: WebPhase, busy: Time },
    /// Write `size` bytes at each event; events `interval` apart.
    Telnet,
}

/// What a web session is doing: the first transfer (it began when the connection started), a
/// later transfer (it began at the write), or thinking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebPhase {
    First,
    Transfer(Time),
    Thinking,
}

impl SessionApp {
    /// A web session's time spent transferring up to `now` — each transfer from its write (the
    /// first from `started`, the connection's start) to the ACK of its last byte; `None` for
    /// telnet, whose writes are not transfers.
    ///
    /// ```
    /// use aqmlab_sim::traffic::session::{SessionApp, WebPhase};
    /// use aqmlab_sim::units::Time;
    /// let app = SessionApp::WebSession { phase: WebPhase::Transfer(Time(7)), busy: Time(5) };
    /// assert_eq!(app.transferring(Time(10), Some(Time(0))), Some(Time(8)));
    /// ```
    pub fn transferring(&self, now: Time, started: Option<Time>) -> Option<Time> {
        match *self {
            SessionApp::WebSession { phase, busy } => {
                let begun = match phase {
                    WebPhase::First => started,
                    WebPhase::Transfer(t) => Some(t),
                    WebPhase::Thinking => None,
                };
                Some(busy + begun.map_or(Time(0), |t| Time(now.0.saturating_sub(t.0))))
            }
            SessionApp::Telnet => None,
        }
    }
}

impl SessionApp {
    /// The application of a session traffic kind. Panics for other kinds.
    pub fn of(kind: &TrafficKind) -> SessionApp {
        match kind {
            TrafficKind::WebSession { .. } => SessionApp::WebSession {
                phase: WebPhase::First,
                busy: Time(0),
            },
            TrafficKind::Telnet { .. } => SessionApp::Telnet,
            _ => unreachable!("only session kinds have a session application"),
        }
    }

    /// Bytes written when the connection opens: a web session's first transfer.
    pub fn initial_write(&self, kind: &TrafficKind, rng: &mut Rng) -> u64 {
        match self {
            SessionApp::WebSession { .. } => write_size(kind, rng),
            SessionApp::Telnet => 0,
        }
    }
}

/// The bytes of one write of a session kind, drawn from its `size` (a constant draws nothing).
pub fn write_size(kind: &TrafficKind, rng: &mut Rng) -> u64 {
    match kind {
        TrafficKind::WebSession { size, .. } | TrafficKind::Telnet { size, .. } => {
            size.sample_whole(rng, 0)
        }
        _ => unreachable!("only session kinds write"),
    }
}

/// A web session's think time, whole ns (by default uniform on [think_min, think_max]).
pub fn think(kind: &TrafficKind, rng: &mut Rng) -> Time {
    match kind {
        TrafficKind::WebSession { think, .. } => Time(think.0.sample_whole(rng, 0)),
        _ => unreachable!("only web sessions think"),
    }
}

/// The gap before a telnet connection's next write.
pub fn telnet_gap(kind: &TrafficKind, tcplib: &Tcplib, rng: &mut Rng) -> Time {
    match kind {
        TrafficKind::Telnet {
            interval: TelnetInterval::Tcplib,
            ..
        } => tcplib.sample(rng),
        TrafficKind::Telnet {
            interval: TelnetInterval::Drawn(d),
            ..
        } => Time(d.sample_whole(rng, 0)),
        _ => unreachable!("only telnet sources have gaps"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcplib_table_matches_its_published_statistics() {
        // docs/models/web.md §4: 10 000 values, median 0.236 s, mean 1.092 s.
        let t = Tcplib::load();
        assert_eq!(t.0.len(), 10_000);
        let mean = t.0.iter().sum::<f64>() / 10_000.0;
        assert!((mean - 1.092).abs() < 0.005, "{mean}");
        let mut rng = Rng::stream(1, "telnet");
        let n = 100_000;
        let mut draws: Vec<u64> = (0..n).map(|_| t.sample(&mut rng).0).collect();
        draws.sort_unstable();
        let median = draws[n / 2] as f64 * 1e-9;
        assert!((median - 0.236).abs() < 0.01, "{median}");
    }
}
