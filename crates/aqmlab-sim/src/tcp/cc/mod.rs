//! Congestion control: how the window grows on new ACKs and how far it falls on congestion, kept
//! apart from loss recovery (Reno, NewReno, SACK in `endpoint.rs`), so that any recovery works
//! with any controller.
//!
//! The endpoint keeps `cwnd` and `ssthresh` (bytes) and decides when each event happens; the
//! controller ([`CongestionControl`], an enum of implementations: no dynamic dispatch per packet)
//! is told of each one, with the current time:
//!
//! - [`CongestionControl::on_ack`]: new data acknowledged outside fast recovery, by an ACK without
//!   ECN-Echo: slow start or congestion avoidance (the endpoint says which);
//! - [`CongestionControl::on_rtt_sample`]: an RTT sample from an ACK of new data (HyStart);
//! - [`CongestionControl::on_congestion`] and [`CongestionControl::reduced_segments`]: a loss or
//!   an ECN-Echo (entering recovery, a timeout, or an ECN reduction): what ssthresh becomes;
//! - [`CongestionControl::on_rto`]: a retransmission timeout (after `on_congestion`, if the
//!   window was reduced);
//! - [`CongestionControl::on_recovery_exit`]: fast recovery ended (cwnd is back at ssthresh);
//! - [`CongestionControl::on_idle_restart`]: the application sends again after the connection
//!   went idle.
//!
//! `reno` is RFC 5681 (`reno.rs`), `cubic` RFC 9438 (`cubic.rs`) or Linux's arithmetic of it
//! (`cubic_linux.rs`), and HyStart (`hystart.rs`) is Linux's slow-start exit, an option for any.
//!
//! `bbr` (`bbr.rs`, Linux's BBR v1) is of another kind: it sets the window itself on every ACK
//! from a model of the path, and paces. The hooks above leave the window alone for it; the
//! sender reaches it through [`CongestionControl::bbr`] instead (`endpoint.rs`).
//! The smallest RTT seen, which Linux's CUBIC and HyStart share (`delay_min` of `tcp_cubic.c`),
//! is kept here.

pub mod bbr;
pub mod cubic;
pub mod cubic_linux;
pub mod hystart;
pub mod linux_window;
pub mod reno;

use crate::units::Time;
use bbr::Bbr;
use cubic::{Cubic, CubicArithmetic, CubicParams};
use cubic_linux::LinuxCubic;
use hystart::HyStart;
use reno::{LinuxReno, RenoArithmetic};
use serde::ser::SerializeMap;
use serde::Serialize;

/// Which window-growth rule a sender follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// RFC 5681 slow start and congestion avoidance, halving on congestion.
    Reno,
    /// CUBIC: RFC 9438's arithmetic or Linux's ([`CubicParams::arithmetic`]).
    Cubic,
    /// BBR v1 as Linux `tcp_bbr.c`, pacing its sender.
    Bbr,
}

/// The congestion-control settings of a TCP configuration (scenario keys `congestion_control`,
/// `hystart`, `cubic_c`, `cubic_beta`, `fast_convergence`, `cubic_unknown_wmax_floor`,
/// `cubic_arithmetic`, `reno_arithmetic`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcConfig {
    pub algorithm: Algorithm,
    /// Linux HyStart (ACK-train and delay-increase detection) ends slow start early.
    pub hystart: bool,
    pub cubic: CubicParams,
    /// Whose arithmetic Reno's window grows by (`reno_arithmetic`).
    pub reno: RenoArithmetic,
}

impl CcConfig {
    /// Reno without HyStart: the behaviour of every profile before CUBIC existed here.
    pub const RENO: CcConfig = CcConfig {
        algorithm: Algorithm::Reno,
        hystart: false,
        cubic: CubicParams::RFC9438,
        reno: RenoArithmetic::Rfc5681,
    };
}

/// Written flat into the TCP table (`#[serde(flatten)]`), one key per setting.
impl Serialize for CcConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("congestion_control", &self.algorithm)?;
        m.serialize_entry("hystart", &self.hystart)?;
        m.serialize_entry("cubic_c", &self.cubic.c)?;
        m.serialize_entry("cubic_beta", &self.cubic.beta)?;
        m.serialize_entry("fast_convergence", &self.cubic.fast_convergence)?;
        m.serialize_entry("cubic_unknown_wmax_floor", &self.cubic.unknown_wmax_floor)?;
        m.serialize_entry("cubic_arithmetic", &self.cubic.arithmetic)?;
        m.serialize_entry("reno_arithmetic", &self.reno)?;
        m.end()
    }
}

/// What an ACK of new data tells the controller.
#[derive(Clone, Copy, Debug)]
pub struct Acked {
    pub now: Time,
    /// Bytes newly acknowledged.
    pub bytes: u64,
    /// The smoothed RTT in seconds, once measured (only where the rule reads it:
    /// [`CongestionControl::reads_srtt`]).
    pub srtt_s: Option<f64>,
    /// Grow as in slow start (the endpoint compares cwnd with ssthresh by its profile's rule).
    pub slow_start: bool,
}

/// The window-growth rule in force, with its state.
#[derive(Clone, Debug)]
enum Rule {
    Reno,
    LinuxReno(LinuxReno),
    Cubic(Cubic),
    LinuxCubic(LinuxCubic),
    Bbr(Box<Bbr>),
}

/// A sender's congestion controller.
#[derive(Clone, Debug)]
pub struct CongestionControl {
    rule: Rule,
    hystart: Option<HyStart>,
    /// The smallest RTT sample since the start or the last timeout (Linux `delay_min`), kept
    /// where a rule or HyStart reads it.
    delay_min: Option<Time>,
}

impl CongestionControl {
    pub fn new(cfg: &CcConfig) -> CongestionControl {
        CongestionControl {
            rule: match cfg.algorithm {
                Algorithm::Reno => match cfg.reno {
                    RenoArithmetic::Rfc5681 => Rule::Reno,
                    RenoArithmetic::Linux => Rule::LinuxReno(LinuxReno::default()),
                },
                Algorithm::Cubic => match cfg.cubic.arithmetic {
                    CubicArithmetic::Rfc9438 => Rule::Cubic(Cubic::new(cfg.cubic)),
                    CubicArithmetic::Linux => Rule::LinuxCubic(LinuxCubic::new(&cfg.cubic)),
                },
                Algorithm::Bbr => Rule::Bbr(Box::new(Bbr::new(1460, 10, Time::ZERO))),
            },
            // HyStart ends slow start, which BBR has not (its STARTUP ends by its own rule).
            hystart: (cfg.hystart && cfg.algorithm != Algorithm::Bbr).then(HyStart::default),
            delay_min: None,
        }
    }

    /// The controller for a sender of `mss`-byte segments with an initial window of
    /// `initial_window` segments (what BBR's rates and windows are counted in).
    pub fn sized(mut self, mss: u64, initial_window: u32) -> CongestionControl {
        if let Rule::Bbr(b) = &mut self.rule {
            **b = Bbr::new(mss, u64::from(initial_window), Time::ZERO);
        }
        self
    }

    /// BBR, if that is the controller: it sets the window and paces (`endpoint.rs`).
    #[inline]
    pub fn bbr(&mut self) -> Option<&mut Bbr> {
        match &mut self.rule {
            Rule::Bbr(b) => Some(b),
            _ => None,
        }
    }

    /// Is this BBR?
    #[inline]
    pub fn is_bbr(&self) -> bool {
        matches!(self.rule, Rule::Bbr(_))
    }

    /// Does the controller use per-ACK RTT samples ([`Self::on_rtt_sample`])?
    pub fn wants_rtt_samples(&self) -> bool {
        self.hystart.is_some() || matches!(self.rule, Rule::LinuxCubic(_))
    }

    /// Does the window's growth read the smoothed RTT ([`Acked::srtt_s`])? RFC 9438 CUBIC's does
    /// (its target), Reno's and Linux's CUBIC's (the minimum RTT) do not, and the sender then
    /// spares working it out.
    #[inline]
    pub fn reads_srtt(&self) -> bool {
        matches!(self.rule, Rule::Cubic(_))
    }

    /// New data acknowledged outside recovery, without ECN-Echo: grow `cwnd` (bytes).
    #[inline]
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: f64, mss: f64, ack: Acked) {
        match &mut self.rule {
            Rule::Reno => reno::grow(cwnd, mss, ack.slow_start),
            Rule::LinuxReno(r) => r.on_ack(cwnd, ssthresh, mss, ack.bytes, ack.slow_start),
            Rule::Cubic(c) => c.on_ack(cwnd, ssthresh, mss, ack),
            Rule::LinuxCubic(c) => c.on_ack(cwnd, ssthresh, mss, ack, self.delay_min),
            Rule::Bbr(_) => {}
        }
    }

    /// An RTT sample `rtt` from an ACK of new data that moved `snd_una`, with `snd_nxt` the next
    /// sequence number to send: the minimum RTT, and HyStart may end slow start (ssthresh =
    /// cwnd).
    pub fn on_rtt_sample(&mut self, rtt: Time, window: Round, cwnd: f64, ssthresh: &mut f64) {
        // Linux cubictcp_acked: no samples within a second of a congestion epoch's start.
        let young = match &self.rule {
            Rule::Reno | Rule::LinuxReno(_) | Rule::Bbr(_) => false,
            Rule::Cubic(c) => c.epoch_younger_than(window.now, Time::from_secs(1)),
            Rule::LinuxCubic(c) => c.epoch_under_a_second_old(window.now),
        };
        if young {
            return;
        }
        let rtt = rtt.max(Time(1));
        let delay_min = self.delay_min.map_or(rtt, |d| d.min(rtt));
        self.delay_min = Some(delay_min);
        if let Some(h) = &mut self.hystart {
            h.on_sample(rtt, delay_min, window, cwnd, ssthresh);
        }
    }

    /// Is this Reno's rule (the one ns-2's `precisionReduce_` applies to)?
    #[inline]
    pub fn is_reno(&self) -> bool {
        matches!(self.rule, Rule::Reno)
    }

    /// How many whole segments the window `window` (bytes: cwnd or the flight size, as the
    /// profile says) falls to on congestion, before the floor of two segments (one for cwnd
    /// after an ECN-Echo).
    #[inline]
    pub fn reduced_segments(&self, window: f64, mss: f64) -> f64 {
        match &self.rule {
            Rule::Reno | Rule::LinuxReno(_) | Rule::Bbr(_) => reno::reduced_segments(window, mss),
            Rule::Cubic(c) => c.reduced_segments(window, mss),
            Rule::LinuxCubic(c) => c.reduced_segments(window, mss),
        }
    }

    /// A loss or ECN-Echo reduces the window; `cwnd` is the window before the reduction.
    pub fn on_congestion(&mut self, cwnd: f64, mss: f64) {
        match &mut self.rule {
            Rule::Reno | Rule::Bbr(_) => {}
            Rule::LinuxReno(r) => r.restart_count(),
            Rule::Cubic(c) => c.on_congestion(cwnd, mss),
            Rule::LinuxCubic(c) => c.on_congestion(cwnd, mss),
        }
    }

    /// A retransmission timeout (the window is back to one segment).
    pub fn on_rto(&mut self) {
        // Linux: entering the Loss state resets CUBIC, its minimum RTT and HyStart
        // (cubictcp_state).
        match &mut self.rule {
            Rule::Reno | Rule::Bbr(_) => {}
            Rule::LinuxReno(r) => r.restart_count(),
            Rule::Cubic(c) => c.on_rto(),
            Rule::LinuxCubic(c) => c.on_rto(),
        }
        self.delay_min = None;
        if let Some(h) = &mut self.hystart {
            *h = HyStart::default();
        }
    }

    /// Fast recovery ended at `now` with `cwnd` (bytes). (Linux's CUBIC begins its epoch at the
    /// next ACK in congestion avoidance instead.)
    pub fn on_recovery_exit(&mut self, now: Time, cwnd: f64, mss: f64) {
        if let Rule::Cubic(c) = &mut self.rule {
            c.start_epoch(now, cwnd / mss);
        }
    }

    /// The application sends again at `now`, nothing having been in flight since `idle_since`.
    pub fn on_idle_restart(&mut self, now: Time, idle_since: Time) {
        match &mut self.rule {
            Rule::Reno | Rule::LinuxReno(_) | Rule::Bbr(_) => {}
            Rule::Cubic(c) => c.on_idle(now, idle_since),
            Rule::LinuxCubic(c) => c.on_idle(now, idle_since),
        }
    }
}

/// Where the sender is in its sequence space when an RTT sample arrives.
#[derive(Clone, Copy, Debug)]
pub struct Round {
    pub now: Time,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub mss: f64,
    /// The smoothed RTT in seconds, once measured (HyStart's ACK-train allowance).
    pub srtt_s: Option<f64>,
}
