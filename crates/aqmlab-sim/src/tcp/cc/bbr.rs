//! BBR v1 congestion control, with its delivery-rate sampler and pacing, as Linux has it.
//!
//! Sources (read, then written anew here; docs/bbr.md says what is and is not modelled):
//! - Linux `net/ipv4/tcp_bbr.c` (the state machine, the gains, cwnd and pacing rate; the
//!   function each method follows is named in its comment);
//! - Linux `net/ipv4/tcp_rate.c` (the delivery-rate sample of each ACK: `tcp_rate_skb_sent`,
//!   `tcp_rate_skb_delivered`, `tcp_rate_gen`, `tcp_rate_check_app_limited`), and
//!   `lib/win_minmax.c` (the windowed max filter);
//! - N. Cardwell, Y. Cheng, C. S. Gunn, S. Hassas Yeganeh, V. Jacobson, "BBR: Congestion-Based
//!   Congestion Control", ACM Queue 14(5), 2016;
//! - draft-cardwell-iccrg-bbr-congestion-control-00 (2017).
//!
//! Units follow Linux: the window, in-flight data and the delivered count are in packets (one
//! per data segment sent, whatever its length: `tcp_skb_pcount` without TSO), bandwidth in
//! packets per second, the pacing rate in bytes per second (bandwidth × MSS × gain × 99%,
//! `bbr_rate_bytes_per_sec`). Gains are Linux's 8-bit fixed-point values (`BBR_UNIT` = 256), so
//! that high gain is 739/256 = 2.887, not 2/ln 2 = 2.885.
//!
//! The sender (`endpoint.rs`) owns the window and the loss recovery; it tells the controller of
//! each segment sent ([`Bbr::on_send`]), of what each ACK delivers ([`RateSampler::sacked`],
//! [`RateSampler::cum_acked`]), and then hands it the ACK ([`Bbr::on_ack`], Linux's
//! `cong_control` hook `bbr_main`), which sets the window and the pacing rate. Segments go no
//! faster than the pacing rate ([`Bbr::pacing_rate`]) on the sender's pacing clock
//! (`tcp/pacing.rs`: Linux's internal pacing, `tcp_pacing_check` and
//! `tcp_update_skb_after_send`, when no fq qdisc paces for it).

use crate::rng::Rng;
use crate::units::Time;
use std::collections::VecDeque;

/// Linux's fixed-point unit for gains (`BBR_UNIT`).
const UNIT: f64 = 256.0;
/// STARTUP's pacing and cwnd gain, 2/ln 2 (`bbr_high_gain` = 256·2885/1000 + 1).
pub const HIGH_GAIN: f64 = 739.0 / UNIT;
/// DRAIN's pacing gain, its inverse (`bbr_drain_gain` = 256·1000/2885).
pub const DRAIN_GAIN: f64 = 88.0 / UNIT;
/// PROBE_BW's cwnd gain (`bbr_cwnd_gain`).
pub const CWND_GAIN: f64 = 2.0;
/// PROBE_BW's pacing-gain cycle (`bbr_pacing_gain`).
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The bandwidth filter's window, in round trips (`bbr_bw_rtts` = cycle length + 2).
pub const BW_RTTS: u64 = 10;
/// The min-RTT filter's window (`bbr_min_rtt_win_sec`).
pub const MIN_RTT_WIN: Time = Time::from_secs(10);
/// The least time in PROBE_RTT (`bbr_probe_rtt_mode_ms`).
pub const PROBE_RTT_TIME: Time = Time::from_millis(200);
/// The window in PROBE_RTT, and the least anywhere (`bbr_cwnd_min_target`), packets.
pub const CWND_MIN: u64 = 4;
/// Full pipe: the bandwidth grew by less than this over `FULL_BW_ROUNDS` rounds.
pub const FULL_BW_THRESH: f64 = 1.25;
pub const FULL_BW_ROUNDS: u32 = 3;
/// Linux's `TCP_INIT_CWND`, which `bbr_bdp` and `bbr_set_cwnd` use whatever the route's.
const INIT_CWND: u64 = 10;
/// `bbr_pacing_margin_percent`: pace 1% below the estimate.
const PACING_MARGIN: f64 = 0.01;
/// Below this pacing rate (bytes/s) the send quantum is 1 packet, else at least 2
/// (`bbr_min_tso_rate` = 1.2 Mbit/s).
const MIN_TSO_RATE: f64 = 1_200_000.0 / 8.0;
/// The largest send quantum in bytes (`GSO_MAX_SIZE - 1 - MAX_TCP_HEADER`, with
/// `MAX_TCP_HEADER` taken as 320 B).
const GSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;

/// A windowed maximum over a sliding window of "time" (here round trips), kept as the best,
/// second-best and third-best samples of the window's sub-windows (Kathleen Nichols' algorithm,
/// Linux `lib/win_minmax.c` `minmax_running_max`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowedMax {
    s: [(u64, f64); 3],
}

impl WindowedMax {
    /// The maximum over the window.
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [(t, v); 3];
        v
    }

    /// Add sample `v` taken at `t` (non-decreasing); return the maximum over the last `win`.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let new = (t, v);
        // A new maximum, or nothing in the window any more: start afresh.
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[1] = new;
            self.s[2] = new;
        } else if v >= self.s[2].1 {
            self.s[2] = new;
        }
        // Age the sub-windows: the best leaves once older than the window; the second and
        // third are refreshed after a quarter and a half of it, so that a later, lower
        // maximum is at hand when the best one leaves.
        let age = t - self.s[0].0;
        if age > win {
            self.s = [self.s[1], self.s[2], new];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], new];
            }
        } else if self.s[1].0 == self.s[0].0 && age > win / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].0 == self.s[1].0 && age > win / 2 {
            self.s[2] = new;
        }
        self.s[0].1
    }
}

/// A data segment in flight and the delivery state when it was (last) sent (Linux `tx` of
/// `tcp_skb_cb`).
#[derive(Clone, Copy, Debug)]
struct Tx {
    start: u64,
    end: u64,
    /// When it was last sent.
    sent: Time,
    /// `first_tx_mstamp` then: the start of the send phase it belongs to.
    first_tx: Time,
    /// `delivered_mstamp` then: when the last delivery before it was acknowledged.
    delivered_at: Time,
    /// `delivered` then.
    delivered: u64,
    app_limited: bool,
    retrans: bool,
    /// Delivered already (SACKed): counted once.
    done: bool,
}

/// One ACK's delivery-rate sample (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Packets delivered over the interval, if the sample is valid.
    pub delivered: Option<u64>,
    /// The interval, max(send phase, ACK phase); `None` if invalid (no timing, or shorter than
    /// the minimum RTT).
    pub interval: Option<Time>,
    /// `delivered` when the packet the sample starts from was sent.
    pub prior_delivered: u64,
    pub is_app_limited: bool,
    /// Packets this ACK delivered (acknowledged or SACKed for the first time).
    pub acked_sacked: u64,
    /// Packets this ACK marked lost.
    pub losses: u64,
    /// The RTT of the most recently sent packet this ACK delivered, not retransmitted.
    pub rtt: Option<Time>,
    /// Packets in flight before the ACK.
    pub prior_in_flight: u64,
    /// The ACK may have been delayed by the receiver (a lone short segment).
    pub is_ack_delayed: bool,
}

/// The per-ACK delivery-rate estimator of Linux `tcp_rate.c`.
#[derive(Clone, Debug)]
pub struct RateSampler {
    /// Data segments sent and not yet cumulatively acknowledged, in sequence order.
    txs: VecDeque<Tx>,
    /// Packets delivered so far (`tp->delivered`).
    pub delivered: u64,
    /// When the last delivery was acknowledged (`tp->delivered_mstamp`).
    pub delivered_at: Time,
    /// The send time of the most recently sent packet delivered (`tp->first_tx_mstamp`).
    first_tx: Time,
    /// Application-limited until `delivered` passes this (`tp->app_limited`; 0: not limited).
    /// Linux starts limited (`~0U`, passed at the first ACK), and so does this (`Some(0)`).
    app_limited: Option<u64>,
    /// The least RTT sample ever (`tcp_min_rtt`, a 5-minute window in Linux: the whole run
    /// here).
    min_rtt: Option<Time>,
    /// The sample being gathered from the current ACK.
    cur: Gather,
}

#[derive(Clone, Copy, Debug, Default)]
struct Gather {
    prior: Option<(u64, Time)>,
    app_limited: bool,
    send_interval: Time,
    newly: u64,
    /// Send time of the newest non-retransmitted packet SACKed, and cumulatively acknowledged.
    sack_rtt_from: Option<Time>,
    ack_rtt_from: Option<Time>,
    retrans_acked: bool,
    /// The one packet delivered was shorter than a segment.
    runt: bool,
}

impl Default for RateSampler {
    fn default() -> Self {
        RateSampler {
            txs: VecDeque::new(),
            delivered: 0,
            delivered_at: Time::ZERO,
            first_tx: Time::ZERO,
            app_limited: Some(0),
            min_rtt: None,
            cur: Gather::default(),
        }
    }
}

impl RateSampler {
    /// A data segment `[start, end)` goes out at `now` (`tcp_rate_skb_sent`); `nothing_out`:
    /// no data was outstanding (`!tp->packets_out`), so a new send phase starts.
    pub fn on_send(&mut self, start: u64, end: u64, rexmit: bool, now: Time, nothing_out: bool) {
        if nothing_out {
            self.first_tx = now;
            self.delivered_at = now;
        }
        let tx = Tx {
            start,
            end,
            sent: now,
            first_tx: self.first_tx,
            delivered_at: self.delivered_at,
            delivered: self.delivered,
            app_limited: self.app_limited.is_some(),
            retrans: rexmit,
            done: false,
        };
        if !rexmit || self.txs.back().is_none_or(|t| t.end <= start) {
            self.txs.push_back(tx);
            return;
        }
        // A retransmission: the segments it covers take its send state.
        let first = self.txs.partition_point(|t| t.end <= start);
        for t in self.txs.range_mut(first..) {
            if t.start >= end {
                break;
            }
            if !t.done {
                *t = Tx {
                    start: t.start,
                    end: t.end,
                    ..tx
                };
            }
        }
    }

    /// `tcp_rate_skb_delivered`: the sample starts from the most recently sent packet delivered
    /// (the highest `delivered` at its send).
    fn deliver(&mut self, t: Tx, mss: u64) {
        self.delivered += 1;
        let g = &mut self.cur;
        g.newly += 1;
        g.runt = g.newly == 1 && t.end - t.start < mss;
        if g.prior.is_none_or(|(d, _)| t.delivered > d) {
            g.prior = Some((t.delivered, t.delivered_at));
            g.app_limited = t.app_limited;
            self.first_tx = t.sent;
            g.send_interval = t.sent - t.first_tx;
        }
    }

    /// The ACK SACKs `[start, end)`: the segments wholly inside it are delivered, once.
    pub fn sacked(&mut self, start: u64, end: u64, mss: u64) {
        let first = self.txs.partition_point(|t| t.start < start);
        for i in first..self.txs.len() {
            let t = self.txs[i];
            if t.end > end {
                break;
            }
            if !t.done {
                self.txs[i].done = true;
                if !t.retrans {
                    self.cur.sack_rtt_from =
                        Some(self.cur.sack_rtt_from.map_or(t.sent, |s| s.max(t.sent)));
                }
                self.deliver(t, mss);
            }
        }
    }

    /// The ACK acknowledges everything below `ack`: the segments below it not SACKed before are
    /// delivered.
    pub fn cum_acked(&mut self, ack: u64, mss: u64) {
        while let Some(t) = self.txs.front().copied().filter(|t| t.end <= ack) {
            self.txs.pop_front();
            if !t.done {
                if t.retrans {
                    self.cur.retrans_acked = true;
                } else {
                    self.cur.ack_rtt_from =
                        Some(self.cur.ack_rtt_from.map_or(t.sent, |s| s.max(t.sent)));
                }
                self.deliver(t, mss);
            }
        }
    }

    /// `tcp_rate_gen`: the sample of the ACK just processed at `now`, which marked `losses`
    /// packets lost, with `prior_in_flight` packets in flight before it.
    pub fn sample(&mut self, now: Time, losses: u64, prior_in_flight: u64) -> RateSample {
        let g = std::mem::take(&mut self.cur);
        if self.app_limited.is_some_and(|a| self.delivered > a) {
            self.app_limited = None;
        }
        if g.newly > 0 {
            self.delivered_at = now;
        }
        // tcp_clean_rtx_queue / tcp_sacktag: the RTT of the newest packet delivered, SACK's
        // first; none from a cumulative ACK that covers a retransmission (Karn).
        let rtt_from = g
            .sack_rtt_from
            .or(g.ack_rtt_from.filter(|_| !g.retrans_acked));
        let rtt = rtt_from.map(|s| (now - s).max(Time(1)));
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let mut rs = RateSample {
            acked_sacked: g.newly,
            losses,
            rtt,
            prior_in_flight,
            is_ack_delayed: g.runt && prior_in_flight <= 1,
            ..RateSample::default()
        };
        let Some((prior_delivered, prior_at)) = g.prior else {
            return rs;
        };
        rs.prior_delivered = prior_delivered;
        rs.is_app_limited = g.app_limited;
        rs.delivered = Some(self.delivered - prior_delivered);
        // The longer of the send and the ACK phase (ACK compression can shorten the latter).
        let interval = g.send_interval.max(now - prior_at);
        rs.interval =
            Some(interval).filter(|&i| self.min_rtt.is_none_or(|m| i >= m) && i > Time::ZERO);
        rs
    }

    /// `tcp_rate_check_app_limited`, when the application writes: with less than a segment
    /// unsent, the window not full and no lost data awaiting retransmission, the samples until
    /// what is in flight now is delivered are application-limited.
    pub fn check_app_limited(
        &mut self,
        unsent: u64,
        mss: u64,
        in_flight: u64,
        cwnd: u64,
        lost_unsent: bool,
    ) {
        if unsent < mss && in_flight < cwnd && !lost_unsent {
            self.app_limited = Some((self.delivered + in_flight).max(1));
        }
    }

    /// Marked application-limited whatever the window (`bbr_update_min_rtt` in PROBE_RTT).
    fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = Some((self.delivered + in_flight).max(1));
    }

    /// Is the connection application-limited now?
    pub fn app_limited(&self) -> bool {
        self.app_limited.is_some()
    }

    /// Was any data segment ever sent?
    pub fn sent_any(&self) -> bool {
        self.delivered > 0 || !self.txs.is_empty()
    }
}

/// BBR's modes (`enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The sender's loss-recovery state, as BBR reads Linux's `icsk_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// What BBR reads of the sender on an ACK, besides the rate sample.
#[derive(Clone, Copy, Debug)]
pub struct AckCtx {
    pub now: Time,
    /// Packets in flight after the ACK (`tcp_packets_in_flight`).
    pub in_flight: u64,
    pub ca: CaState,
    /// The smoothed RTT, once measured.
    pub srtt: Option<Time>,
    /// The earliest time the next segment may leave (the pacing clock's `tcp_wstamp_ns`).
    pub next_send: Time,
}

/// BBR v1's state (Linux `struct bbr`) with its rate sampler.
#[derive(Clone, Debug)]
pub struct Bbr {
    pub rate: RateSampler,
    mss: u64,
    mode: Mode,
    bw: WindowedMax,
    /// Packet-timed round trips so far, and the `delivered` that ends the current one.
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prev_ca: CaState,
    idle_restart: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw_reached: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    cycle_idx: usize,
    cycle_stamp: Time,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    /// Bytes per second (`sk_pacing_rate`).
    pacing_rate: f64,
    /// After a timeout, the Loss state lasts until this is acknowledged (`high_seq`).
    loss_until: Option<u64>,
    /// The highest sequence number below which every unSACKed segment counts as lost.
    pub lost_edge: u64,
    /// ssthresh as BBR sets it on leaving STARTUP (packets), for the sender to show.
    pub ssthresh: Option<u64>,
    /// An idle restart ended PROBE_RTT: the mode is reset at the next ACK.
    reset_pending: bool,
}

impl Bbr {
    /// `bbr_init` for a sender of segments of `mss` bytes whose window is `cwnd` packets.
    pub fn new(mss: u64, cwnd: u64, now: Time) -> Bbr {
        let mut b = Bbr {
            rate: RateSampler::default(),
            mss,
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: now,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prev_ca: CaState::Open,
            idle_restart: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            has_seen_rtt: false,
            prior_cwnd: 0,
            pacing_rate: 0.0,
            loss_until: None,
            lost_edge: 0,
            ssthresh: None,
            reset_pending: false,
        };
        b.init_pacing_rate(None, cwnd);
        b
    }

    /// The connection is established at `now` with `cwnd` packets and the smoothed RTT
    /// `srtt`, if measured (`bbr_init` runs then in Linux: `tcp_init_transfer`).
    pub fn start(&mut self, now: Time, cwnd: u64, srtt: Option<Time>, min_rtt: Option<Time>) {
        self.min_rtt = min_rtt;
        self.min_rtt_stamp = now;
        self.init_pacing_rate(srtt, cwnd);
    }

    /// The segment size rates and windows are counted in, bytes.
    pub fn mss(&self) -> u64 {
        self.mss
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    /// The pacing rate, bytes per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }

    /// The windowed maximum bandwidth, packets per second (`bbr_max_bw`).
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    pub fn round_count(&self) -> u64 {
        self.rtt_cnt
    }

    // ----- rates, windows and quanta -----

    /// `bbr_rate_bytes_per_sec`: a bandwidth (packets/s) with a gain, in bytes/s, less the
    /// pacing margin.
    fn rate_bytes(&self, bw: f64, gain: f64) -> f64 {
        bw * self.mss as f64 * gain * (1.0 - PACING_MARGIN)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high gain × cwnd / RTT, with 1 ms before any sample.
    fn init_pacing_rate(&mut self, srtt: Option<Time>, cwnd: u64) {
        let rtt = match srtt {
            Some(r) => {
                self.has_seen_rtt = true;
                r.as_secs_f64().max(1e-6)
            }
            None => 1e-3,
        };
        self.pacing_rate = self.rate_bytes(cwnd as f64 / rtt, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: until the pipe is full, the rate only grows.
    fn set_pacing_rate(&mut self, bw: f64, gain: f64, srtt: Option<Time>, cwnd: u64) {
        let rate = self.rate_bytes(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(srtt, cwnd);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_goal`: the send quantum, packets: about 1 ms at the pacing rate
    /// (`sk_pacing_shift` 10), at least 1 packet below 1.2 Mbit/s and 2 above, at most 64 KB.
    /// (Segments still leave one at a time here: TSO is not modelled, only this allowance.)
    pub fn send_quantum(&self) -> u64 {
        let bytes = (self.pacing_rate / 1024.0).floor().min(GSO_MAX_BYTES);
        let min = if self.pacing_rate < MIN_TSO_RATE {
            1
        } else {
            2
        };
        ((bytes as u64) / self.mss).max(min).min(0x7f)
    }

    /// `bbr_bdp`: ⌈bw × min RTT × gain⌉ packets; `TCP_INIT_CWND` before any RTT sample.
    pub fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => INIT_CWND,
            Some(m) => (bw * m.as_secs_f64() * gain).ceil() as u64,
        }
    }

    /// `bbr_quantization_budget`: three send quanta more, rounded up to even, and two packets
    /// more in PROBE_BW's probing phase.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.send_quantum();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`: the in-flight target for a bandwidth and gain.
    pub fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: in flight when the next segment may leave, less what the
    /// path delivers until then.
    fn in_net_at_edt(&self, a: &AckCtx, in_flight: u64) -> u64 {
        let wait = a.next_send.max(a.now) - a.now;
        let delivered = (self.bw.get() * wait.as_secs_f64()) as u64;
        let mut at_edt = in_flight;
        if self.pacing_gain > 1.0 {
            at_edt += self.send_quantum();
        }
        at_edt.saturating_sub(delivered)
    }

    /// `bbr_save_cwnd`: the last good window, to restore after recovery or PROBE_RTT.
    pub fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_ca < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    // ----- events from the sender -----

    /// A data segment `[start, end)` of `len` bytes goes out at `now`.
    pub fn on_send(&mut self, start: u64, end: u64, rexmit: bool, now: Time, nothing_out: bool) {
        self.rate.on_send(start, end, rexmit, now, nothing_out);
    }

    /// A retransmission timeout, with `snd_max` the highest sequence sent (`bbr_set_state`
    /// with `TCP_CA_Loss`; the window is cut to one packet by the sender).
    pub fn on_rto(&mut self, snd_max: u64) {
        self.prev_ca = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        self.loss_until = Some(snd_max);
    }

    /// Is the sender in the Loss state (after a timeout, until what was outstanding then is
    /// acknowledged)?
    pub fn in_loss(&mut self, snd_una: u64) -> bool {
        match self.loss_until {
            Some(r) if snd_una < r => true,
            Some(_) => {
                self.loss_until = None;
                false
            }
            None => false,
        }
    }

    /// The application sends again after the connection went idle (`bbr_cwnd_event` with
    /// `CA_EVENT_TX_START`).
    /// (A PROBE_RTT that this ends leaves its mode at the next ACK, which draws the gain
    /// cycle's phase from the connection's stream.)
    pub fn on_idle_restart(&mut self, now: Time, srtt: Option<Time>, cwnd: &mut u64) {
        if !self.rate.app_limited() {
            return;
        }
        self.idle_restart = true;
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate(self.bw.get(), 1.0, srtt, *cwnd);
        } else if self.mode == Mode::ProbeRtt && self.check_probe_rtt_done(now, cwnd) {
            self.reset_pending = true;
        }
    }

    /// `bbr_main`: the model is updated from the ACK's rate sample, then the pacing rate and
    /// the window (`cwnd`, packets) are set.
    pub fn on_ack(&mut self, rs: &RateSample, a: &AckCtx, cwnd: &mut u64, rng: &mut Rng) {
        if std::mem::take(&mut self.reset_pending) {
            self.reset_mode(rng);
        }
        self.update_bw(rs);
        self.update_cycle_phase(rs, a);
        self.check_full_bw_reached(rs);
        self.check_drain(a, rng);
        self.update_min_rtt(rs, a, cwnd, rng);
        self.update_gains();
        let bw = self.bw.get();
        self.set_pacing_rate(bw, self.pacing_gain, a.srtt, *cwnd);
        self.set_cwnd(rs, a, bw, cwnd);
    }

    /// `bbr_update_bw`: count round trips, and take the sample into the max filter unless it
    /// is application-limited and below the maximum.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.rate.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = delivered as f64 / interval.as_secs_f64();
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_is_next_cycle_phase` / `bbr_advance_cycle_phase`: a phase lasts a min RTT; the
    /// probing phase longer, until the in-flight target or a loss; the draining phase shorter,
    /// once in flight falls to the BDP.
    fn update_cycle_phase(&mut self, rs: &RateSample, a: &AckCtx) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self
            .min_rtt
            .is_some_and(|m| self.rate.delivered_at - self.cycle_stamp > m);
        let next = if self.pacing_gain == 1.0 {
            full_length
        } else {
            let inflight = self.in_net_at_edt(a, rs.prior_in_flight);
            let bw = self.bw.get();
            if self.pacing_gain > 1.0 {
                full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain))
            } else {
                full_length || inflight <= self.inflight(bw, 1.0)
            }
        };
        if next {
            self.advance_cycle_phase();
        }
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = self.rate.delivered_at;
    }

    /// `bbr_reset_probe_bw_mode`: start the cycle at a random phase other than the draining one
    /// (drawn from the connection's own stream).
    fn reset_probe_bw_mode(&mut self, rng: &mut Rng) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE.len() - 1 - rng.uniform_u64(0, 6) as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self, rng: &mut Rng) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(rng);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: the pipe is full once three rounds (not
    /// application-limited) have not grown the bandwidth by 25%.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let max = self.bw.get();
        if max >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = max;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_ROUNDS;
    }

    /// `bbr_check_drain`: a full pipe ends STARTUP; DRAIN ends once what will be in the network
    /// is down to the BDP's in-flight target.
    fn check_drain(&mut self, a: &AckCtx, rng: &mut Rng) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = Some(self.inflight(self.bw.get(), 1.0));
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(a, a.in_flight) <= self.inflight(self.bw.get(), 1.0)
        {
            self.reset_probe_bw_mode(rng);
        }
    }

    /// `bbr_check_probe_rtt_done`: after its time and a round, PROBE_RTT ends with the window
    /// restored.
    fn check_probe_rtt_done(&mut self, now: Time, cwnd: &mut u64) -> bool {
        if self.probe_rtt_done.is_none_or(|d| now <= d) {
            return false;
        }
        self.min_rtt_stamp = now;
        *cwnd = (*cwnd).max(self.prior_cwnd);
        true
    }

    /// `bbr_update_min_rtt`: the min-RTT filter, and PROBE_RTT when it has expired.
    fn update_min_rtt(&mut self, rs: &RateSample, a: &AckCtx, cwnd: &mut u64, rng: &mut Rng) {
        let expired = a.now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || (expired && !rs.is_ack_delayed) {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = a.now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(*cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples in PROBE_RTT are low by design: application-limited.
            self.rate.mark_app_limited(a.in_flight);
            if self.probe_rtt_done.is_none() && a.in_flight <= CWND_MIN {
                self.probe_rtt_done = Some(a.now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.rate.delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && self.check_probe_rtt_done(a.now, cwnd) {
                    self.reset_mode(rng);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (CYCLE[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: losses come off the window; the first round of
    /// recovery conserves packets (in flight + acked); leaving recovery restores the window
    /// saved on entering it. Returns true while conserving packets.
    fn recover_or_restore(&mut self, rs: &RateSample, a: &AckCtx, cwnd: &mut u64) -> bool {
        let mut w = *cwnd;
        if rs.losses > 0 {
            w = w.saturating_sub(rs.losses).max(1);
        }
        let (prev, state) = (self.prev_ca, a.ca);
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = self.rate.delivered;
            w = a.in_flight + rs.acked_sacked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            w = w.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca = state;
        if self.packet_conservation {
            *cwnd = w.max(a.in_flight + rs.acked_sacked);
            return true;
        }
        *cwnd = w;
        false
    }

    /// `bbr_set_cwnd`: toward cwnd gain × BDP plus the quantization budget, growing by what is
    /// acknowledged (slow start) and, once the pipe is full, cut to the target at once; 4
    /// packets at least, and at most in PROBE_RTT.
    fn set_cwnd(&mut self, rs: &RateSample, a: &AckCtx, bw: f64, cwnd: &mut u64) {
        let acked = rs.acked_sacked;
        if acked > 0 && !self.recover_or_restore(rs, a, cwnd) {
            let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain));
            if self.full_bw_reached {
                *cwnd = (*cwnd + acked).min(target);
            } else if *cwnd < target || self.rate.delivered < INIT_CWND {
                *cwnd += acked;
            }
            *cwnd = (*cwnd).max(CWND_MIN);
        }
        if self.mode == Mode::ProbeRtt {
            *cwnd = (*cwnd).min(CWND_MIN);
        }
    }
}

#[cfg(test)]
mod tests {
    //! BBR driven by hand: a sender that sends `in_flight` packets of 1000 B per round trip and
    //! whose every ACK delivers what the test says. Each test reads as the ACKs of a trace.
    use super::*;

    const MSS: u64 = 1000;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// A BBR sender with its model, window and clock, and the packets in flight with the time
    /// each one's ACK comes back.
    struct Path {
        bbr: Bbr,
        cwnd: u64,
        now: Time,
        seq: u64,
        pending: VecDeque<(u64, Time)>,
        rng: Rng,
    }

    impl Path {
        fn new() -> Path {
            let mut bbr = Bbr::new(MSS, 10, Time::ZERO);
            bbr.start(Time::ZERO, 10, Some(ms(40)), Some(ms(40)));
            Path {
                bbr,
                cwnd: 10,
                now: Time::ZERO,
                seq: 1,
                pending: VecDeque::new(),
                rng: Rng::stream(1, "bbr-test"),
            }
        }

        /// One round trip: `n` packets sent evenly over the next `rtt`, each acknowledged `rtt`
        /// after it left; the ACKs of the previous round come back in between (so the path
        /// delivers `n` packets per `rtt`). Every ACK leaves `in_flight` packets in flight.
        fn round(&mut self, n: u64, rtt: Time, in_flight: u64) {
            let t0 = self.now;
            let step = Time(rtt.0 / n);
            let mut k = 0;
            loop {
                let send_at = (k < n).then(|| t0 + Time(step.0 * k));
                let ack = self
                    .pending
                    .front()
                    .copied()
                    .filter(|&(_, at)| at < t0 + rtt);
                match (ack, send_at) {
                    (Some((end, at)), s) if s.is_none_or(|s| at <= s) => {
                        self.pending.pop_front();
                        self.now = at;
                        self.bbr.rate.cum_acked(end, MSS);
                        let rs = self.bbr.rate.sample(at, 0, in_flight + 1);
                        let a = AckCtx {
                            now: at,
                            in_flight,
                            ca: CaState::Open,
                            srtt: Some(rtt),
                            next_send: Time::ZERO,
                        };
                        self.bbr.on_ack(&rs, &a, &mut self.cwnd, &mut self.rng);
                    }
                    (_, Some(at)) => {
                        let nothing_out = self.pending.is_empty();
                        self.bbr
                            .on_send(self.seq, self.seq + MSS, false, at, nothing_out);
                        self.seq += MSS;
                        self.pending.push_back((self.seq, at + rtt));
                        k += 1;
                    }
                    _ => break,
                }
            }
            self.now = t0 + rtt;
        }
    }

    #[test]
    fn the_max_filter_keeps_the_best_of_the_last_ten_rounds() {
        let mut f = WindowedMax::default();
        assert_eq!(f.update(10, 0, 100.0), 100.0);
        // Lower samples do not displace it while it is in the window...
        for t in 1..=10 {
            assert_eq!(f.update(10, t, 50.0 + t as f64), 100.0, "round {t}");
        }
        // ...and once it is older than ten rounds, the best of the later ones takes over.
        assert_eq!(f.update(10, 11, 40.0), 60.0);
        // A higher sample takes over at once.
        assert_eq!(f.update(10, 12, 200.0), 200.0);
        // After a silence longer than the window, the newest sample is all there is.
        assert_eq!(f.update(10, 30, 10.0), 10.0);
    }

    #[test]
    fn a_delivery_rate_sample_is_packets_over_the_longer_of_send_and_ack_phases() {
        let mut r = RateSampler::default();
        // Four packets sent 1 ms apart from idle, acknowledged together 40 ms after the last.
        for k in 0..4 {
            r.on_send(1 + k * MSS, 1 + (k + 1) * MSS, false, ms(k), k == 0);
        }
        r.cum_acked(1 + 4 * MSS, MSS);
        let rs = r.sample(ms(43), 0, 4);
        // The sample starts from the newest packet (delivered 0 when sent, at time 0).
        assert_eq!(rs.delivered, Some(4));
        assert_eq!(rs.acked_sacked, 4);
        assert_eq!(rs.interval, Some(ms(43)));
        assert_eq!(rs.rtt, Some(ms(40)));
        // Sent before any ACK: application-limited, as Linux starts.
        assert!(rs.is_app_limited);
        // The next packet, sent now, measures from this ACK: 1 packet over its own RTT.
        r.on_send(1 + 4 * MSS, 1 + 5 * MSS, false, ms(43), true);
        r.sacked(1 + 4 * MSS, 1 + 5 * MSS, MSS);
        let rs = r.sample(ms(83), 0, 1);
        assert_eq!((rs.delivered, rs.interval), (Some(1), Some(ms(40))));
        assert!(!rs.is_app_limited);
        // Once SACKed, its cumulative ACK delivers nothing more.
        r.cum_acked(1 + 5 * MSS, MSS);
        assert_eq!(r.sample(ms(84), 0, 0).acked_sacked, 0);
        assert_eq!(r.delivered, 5);
    }

    /// Rounds of `n(r)` packets until STARTUP ends (at most `limit`): how many, and the
    /// count of rounds judged without growth after each (the path's ACKs come back in the round
    /// after, and a round is judged at the next round's start).
    fn startup_rounds(n: impl Fn(u32) -> u64, limit: u32) -> (Option<u32>, Vec<u32>) {
        let mut p = Path::new();
        let mut flat = Vec::new();
        for r in 0..limit {
            p.round(n(r), ms(40), 2 * n(r));
            flat.push(p.bbr.full_bw_cnt);
            if p.bbr.full_bw_reached() {
                return (Some(r), flat);
            }
            assert_eq!(p.bbr.mode(), Mode::Startup);
        }
        (None, flat)
    }

    #[test]
    fn startup_leaves_after_three_rounds_without_a_quarter_more_bandwidth() {
        // Doubling to 40 packets a round, then flat: the full pipe is found at the third round
        // judged flat, not before.
        let (end, flat) = startup_rounds(|r| [10, 20, 40][r.min(2) as usize], 20);
        assert_eq!(flat[flat.len() - 4..], [0, 1, 2, 3], "{flat:?}");
        assert_eq!(end, Some(7));
        // The growth is judged over three rounds together: 7% a round (22.5% over three) ends
        // STARTUP though the path keeps growing...
        let (end, flat) = startup_rounds(|r| (100.0 * 1.07f64.powi(r as i32)) as u64, 30);
        assert_eq!(flat[flat.len() - 3..], [1, 2, 3], "{flat:?}");
        assert!(end.is_some());
        // ...8% a round (26% over three) does not.
        let (end, flat) = startup_rounds(|r| (100.0 * 1.08f64.powi(r as i32)) as u64, 30);
        assert_eq!(end, None, "{flat:?}");
    }

    /// A sender that has just left STARTUP at 40 packets per 40-ms round, in DRAIN.
    fn draining() -> Path {
        let mut p = Path::new();
        for n in [10, 20, 40, 40, 40, 40, 40, 40] {
            p.round(n, ms(40), 80);
        }
        assert_eq!(p.bbr.mode(), Mode::Drain);
        assert_eq!(
            (p.bbr.pacing_gain(), p.bbr.cwnd_gain()),
            (DRAIN_GAIN, HIGH_GAIN)
        );
        p
    }

    #[test]
    fn drain_ends_when_in_flight_is_down_to_the_bdp() {
        let mut p = draining();
        // BDP 40 packets, plus three send quanta of 2 packets (above 1.2 Mbit/s).
        let target = p.bbr.inflight(p.bbr.max_bw(), 1.0);
        assert_eq!(target, 46);
        // One more in flight: DRAIN goes on; at the target: PROBE_BW, in a phase other than 0.75.
        p.round(40, ms(40), target + 1);
        assert_eq!(p.bbr.mode(), Mode::Drain);
        p.round(40, ms(40), target);
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        assert_ne!(p.bbr.pacing_gain(), 0.75);
        assert_eq!(p.bbr.cwnd_gain(), CWND_GAIN);
    }

    /// A sender in PROBE_BW at 40 packets per 40-ms round, in flight at the BDP.
    fn probing() -> Path {
        let mut p = draining();
        p.round(40, ms(40), 40);
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        p
    }

    #[test]
    fn the_probe_bw_gain_cycle_advances_once_per_min_rtt() {
        let mut p = probing();
        // In flight at the probing phase's target (BDP × 1.25 + quanta), so that 1.25 ends by
        // time alone; and at the BDP for 0.75 (which would end early below it).
        let mut phases = vec![p.bbr.cycle_idx()];
        for _ in 0..16 {
            let in_flight = if p.bbr.pacing_gain() > 1.0 { 60 } else { 46 };
            p.round(40, ms(40), in_flight);
            phases.push(p.bbr.cycle_idx());
        }
        // One phase per 40-ms round: each step moves the index by one, modulo 8.
        for w in phases.windows(2) {
            assert_eq!(w[1], (w[0] + 1) % 8, "{phases:?}");
        }
        // The whole cycle's gains over two cycles: 1.25 and 0.75 twice, 1 twelve times.
        let gains: Vec<f64> = phases[1..].iter().map(|&i| CYCLE[i]).collect();
        assert_eq!(gains.iter().filter(|&&g| g == 1.25).count(), 2);
        assert_eq!(gains.iter().filter(|&&g| g == 0.75).count(), 2);
    }

    #[test]
    fn the_first_phase_is_drawn_from_the_connection_stream_and_never_the_draining_one() {
        let mut seen = [0; 8];
        for seed in 0..700 {
            let phase = |seed| {
                let mut b = Bbr::new(MSS, 10, Time::ZERO);
                b.reset_probe_bw_mode(&mut Rng::stream(seed, "conn"));
                assert_eq!(b.mode(), Mode::ProbeBw);
                b.cycle_idx()
            };
            // The same stream gives the same phase.
            assert_eq!(phase(seed), phase(seed));
            seen[phase(seed)] += 1;
        }
        // Linux: CYCLE_LEN − 1 − random(7), then one step: every phase but 0.75 (index 1),
        // each about a seventh of the time.
        assert_eq!(seen[1], 0);
        for (i, &n) in seen.iter().enumerate().filter(|&(i, _)| i != 1) {
            assert!((70..130).contains(&n), "phase {i}: {n} of 700");
        }
    }

    #[test]
    fn probe_rtt_comes_after_ten_seconds_without_a_new_min_rtt_at_four_packets() {
        let mut p = probing();
        let before = p.cwnd;
        // Ten seconds of rounds whose RTT (41 ms) never matches the 40-ms minimum (the ACKs of
        // the first of them still measure 40 ms).
        let last_min = p.now + ms(40);
        loop {
            p.round(40, ms(41), 46);
            if p.now > last_min + MIN_RTT_WIN {
                break;
            }
            assert_eq!(p.bbr.mode(), Mode::ProbeBw, "at {}", p.now);
        }
        // In the round that crosses ten seconds since the last 40-ms sample: PROBE_RTT.
        assert_eq!(p.bbr.mode(), Mode::ProbeRtt);
        assert_eq!(p.cwnd, CWND_MIN);
        assert_eq!((p.bbr.pacing_gain(), p.bbr.cwnd_gain()), (1.0, 1.0));
        // Once 4 packets are in flight, it stays there for 200 ms and at least a round...
        let entered = p.now;
        while p.bbr.mode() == Mode::ProbeRtt {
            assert_eq!(p.cwnd, CWND_MIN, "at {}", p.now);
            p.round(4, ms(40), 4);
        }
        assert!(p.now >= entered + PROBE_RTT_TIME, "left at {}", p.now);
        assert!(
            p.now <= entered + PROBE_RTT_TIME + ms(80),
            "left at {}",
            p.now
        );
        // ...then returns to PROBE_BW with its window restored, the new min RTT 40 ms.
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        assert!(p.cwnd >= before, "{} < {before}", p.cwnd);
        assert_eq!(p.bbr.min_rtt(), Some(ms(40)));
    }

    #[test]
    fn recovery_conserves_packets_then_restores_the_window() {
        let mut p = probing();
        let mut rs = RateSample {
            acked_sacked: 1,
            losses: 3,
            ..RateSample::default()
        };
        let good = p.cwnd;
        p.bbr.save_cwnd(good);
        let ack = |p: &mut Path, rs: &RateSample, ca: CaState, in_flight: u64| {
            let a = AckCtx {
                now: p.now,
                in_flight,
                ca,
                srtt: Some(ms(40)),
                next_send: Time::ZERO,
            };
            p.bbr.on_ack(rs, &a, &mut p.cwnd, &mut p.rng);
        };
        // Entering recovery with 30 packets in flight: cwnd = in flight + acked.
        ack(&mut p, &rs, CaState::Recovery, 30);
        assert_eq!(p.cwnd, 31);
        // In the first round, no more than what is acknowledged leaves.
        rs.losses = 0;
        ack(&mut p, &rs, CaState::Recovery, 29);
        assert_eq!(p.cwnd, 31);
        // Recovery over: the window saved at its start is back.
        ack(&mut p, &rs, CaState::Open, 29);
        assert_eq!(p.cwnd, good);
    }

    #[test]
    fn the_first_pacing_rate_is_high_gain_times_the_initial_window_per_rtt() {
        let mut b = Bbr::new(MSS, 10, Time::ZERO);
        b.start(Time::ZERO, 10, Some(ms(10)), Some(ms(10)));
        // 10 packets per 10 ms, ×2.887, less 1%: 2.858 MB/s.
        let rate = b.pacing_rate();
        assert!((rate - 1000.0 * 1000.0 * HIGH_GAIN * 0.99).abs() < 1e-6);
    }
}
