//! One end of a TCP connection: its sender (window growth and reduction from `cc`: RFC 5681 Reno or
//! RFC 9438 CUBIC, optionally with HyStart; Reno, NewReno RFC 6582 or SACK RFC 2018/6675 loss
//! recovery, with RFC 6937 PRR and RFC 8985 RACK-TLP (`rack.rs`) as options; pacing
//! (`pacing.rs`); RFC 3168 ECN; retransmission timer) and its receiver (reassembly, delayed ACKs, SACK
//! blocks, ECN echo), with the three-way handshake and FIN. The BSD behaviours of the `freebsd-2.2`
//! profile (window-update delayed ACKs, the FIN on the last data segment, buffers rounded to whole
//! segments, writes in 2 KB clusters under the Nagle / SWS rule, the fast-recovery exit) follow 4.4BSD-Lite2 and FreeBSD 2.2 `netinet/tcp_input.c`,
//! `tcp_output.c` and `kern/uipc_socket.c`, as read in `docs/freebsd-2.2-tcp-notes.md`.
//!
//! Timers are data: the endpoint keeps a deadline per timer ([`Timer`]) and the simulation turns
//! deadlines into events; every call takes the current time explicitly. Sequence numbers are bytes
//! from an initial sequence number of 0: the SYN is seq 0, data starts at 1, the FIN takes the seq
//! after the last data byte. Segments to transmit are appended to an output vector the caller owns.

use super::cc::bbr::{AckCtx, CaState};
use super::cc::{Acked, CongestionControl, Round};
use super::config::{
    DelAck, Halve, Handshake, LimitedTransmit, LossDetection, Pacing, PartialAckTimer,
    RecoveryCwnd, RecoveryWindow, RetryLimit, SackAfterRto, SackRecovery, TcpConfig,
    TimeoutSsthresh, Variant,
};
use super::pacing::{linux_rate, Pacer};
use super::rack::{self, Rack, SentSegment, Slot};
use super::ranges::RangeSet;
use super::rto::{nth_tick_after, RtoEstimator};
use crate::packet::{flags, SackBlock, Segment};
use crate::rng::Rng;
use crate::units::Time;
use std::collections::VecDeque;

/// The endpoint's timers ([`Timers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Retransmission timeout.
    Rto = 0,
    /// A delayed ACK is due.
    DelAck = 1,
    /// ns-2 `overhead_`: a deferred send opportunity.
    Send = 2,
    /// The connection must be open by now.
    Connect = 3,
}

impl Timer {
    pub const ALL: [Timer; 4] = [Timer::Rto, Timer::DelAck, Timer::Send, Timer::Connect];

    /// Whether the timer is set once in a connection's life (at `open`): once cleared it never
    /// runs again, so whatever was scheduled for it can be dropped.
    pub fn set_once(self) -> bool {
        self == Timer::Connect
    }
}

/// When each of an endpoint's [`Timer`]s expires, if it is running (`deadline`), and the earliest
/// pending event the simulation scheduled for it (`armed`, its bookkeeping). Each is an
/// `Option<Time>` kept in 8 bytes, [`Time::MAX`] standing for none (584 years: no run reaches
/// it), so that all eight fill one cache line: the simulation reads them for both ends of a
/// connection whenever either handles a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timers {
    deadline: [Time; 4],
    armed: [Time; 4],
}

impl Timers {
    /// No timer running, no event scheduled.
    pub const NONE: Timers = Timers {
        deadline: [Time::MAX; 4],
        armed: [Time::MAX; 4],
    };

    #[inline]
    fn get(t: Time) -> Option<Time> {
        (t != Time::MAX).then_some(t)
    }

    #[inline]
    fn put(t: Option<Time>) -> Time {
        match t {
            Some(t) => {
                assert!(t != Time::MAX, "a timer cannot be set at the end of time");
                t
            }
            None => Time::MAX,
        }
    }

    /// When `timer` expires, if it is running.
    #[inline]
    pub fn deadline(&self, timer: Timer) -> Option<Time> {
        Self::get(self.deadline[timer as usize])
    }

    #[inline]
    pub fn set_deadline(&mut self, timer: Timer, at: Option<Time>) {
        self.deadline[timer as usize] = Self::put(at);
    }

    /// Stop every timer (the events already scheduled stay armed).
    pub fn stop_all(&mut self) {
        self.deadline = [Time::MAX; 4];
    }

    /// The earliest pending event scheduled for `timer`, if any.
    #[inline]
    pub fn armed(&self, timer: Timer) -> Option<Time> {
        Self::get(self.armed[timer as usize])
    }

    #[inline]
    pub fn set_armed(&mut self, timer: Timer, at: Option<Time>) {
        self.armed[timer as usize] = Self::put(at);
    }

    /// Whether the simulation has no event to schedule or retire for these timers (see its
    /// `tcp_emit`): each deadline is at or after the event armed for it (none, [`Time::MAX`],
    /// comes after any time), and the set-once timer's deadline and event agree. The common case
    /// after a segment, tested without a branch per timer.
    #[inline]
    pub fn settled(&self) -> bool {
        Timer::ALL.iter().fold(true, |settled, &t| {
            let (d, a) = (self.deadline[t as usize], self.armed[t as usize]);
            settled & if t.set_once() { d == a } else { d >= a }
        })
    }
}

/// Where the endpoint is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Not started (an opener before `open`; a listener before the SYN arrives).
    Idle,
    SynSent,
    SynRcvd,
    Established,
    /// Gave up: could not open in time, or too many retransmissions.
    Failed,
}

/// What the window allows new data in one send attempt ([`Endpoint::send_window`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SendWindow {
    bytes: u64,
    /// Limited transmit (RFC 3042) is what lets new data go.
    limited: bool,
    /// The window without limited transmit's extra segments.
    without_limited: u64,
}

/// A segment to transmit and whether it goes out ECN-capable (ECT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out {
    pub seg: Segment,
    pub ect: bool,
}

/// What one endpoint did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub segs_sent: u64,
    pub data_segs_sent: u64,
    pub data_rexmits: u64,
    /// Retransmitted SYNs (opener) or SYN-ACKs (listener).
    pub syn_rexmits: u64,
    pub fin_rexmits: u64,
    pub timeouts: u64,
    pub fast_rexmits: u64,
    /// Window reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    /// Fast recoveries that ended with an ACK (not a timeout), and the time they took in total,
    /// from the fast retransmit to the ACK that ended them.
    pub recoveries: u64,
    pub recovery_ns: u64,
    /// Timeouts that fired un-backed-off, and the sum of their lengths: the mean is the T0 of
    /// Padhye et al.'s throughput formula (docs/models/validation.md §1.2).
    pub first_timeouts: u64,
    pub first_timeout_ns: u64,
}

/// One end of a connection.
///
/// Laid out by hand (`repr(C)`, cache-line aligned) so that what is touched per packet is
/// together: at 10,000 flows the connections do not fit in the caches, and each cache line a
/// segment touches is a likely miss (docs/performance.md, steps 3 and 5). The first
/// [`Endpoint::PER_SEGMENT_BYTES`] hold everything a sender reads per ACK and a receiver per data
/// segment (without SACK, ECN or timestamps): the timers, the state and sequence numbers, the
/// window, the RTO estimator, the counters and the scoreboard's and the reassembly queue's
/// headers. Layout only: no behaviour depends on it.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Endpoint {
    // --- Read for both ends whenever either handles a segment (the simulation's timers,
    // `Connection::update`, `finished`): first, so that the other end costs few lines. ---
    /// When each [`Timer`] expires, and the simulation's events for them.
    pub timers: Timers,
    pub state: State,
    pub opener: bool,
    /// Send a FIN (at `data_end`) once the data is out.
    close: bool,
    /// Close as soon as the peer's FIN has arrived (a receiver with nothing to say).
    close_on_peer_fin: bool,
    in_recovery: bool,
    ecn_ok: bool,
    cwr_pending: bool,
    /// After an ECN-Echo at a window of one segment, no new data until the timer expires.
    ecn_hold: bool,
    ack_now: bool,
    ece_pending: bool,
    /// The last reduction was a response to ECN-Echo (not to a loss).
    last_cut_ecn: bool,
    /// How many of `sack_recent` hold blocks. The others are zero, and all are but in the SACK
    /// variant (see `add_sack_blocks`).
    nsack_recent: u8,
    /// A paced sender's resend of the first unacknowledged segment waits for its pacing clock
    /// ([`Endpoint::resend_head`]).
    resend_held: bool,
    /// The sender paces: BBR always, at its own rate; the others with `pacing = "linux"`.
    paced: bool,
    /// The sender keeps a record of each data segment in flight ([`SentSegment`]): for the
    /// controller's per-ACK RTT samples, or RACK-TLP.
    keeps_sent: bool,
    /// After a timeout with the scoreboard kept (`sack_after_rto = "keep"`), until `recover` is
    /// acknowledged (Linux `TCP_CA_Loss`): the go-back-N skips SACKed data, which counts neither
    /// in flight nor, once cumulatively acknowledged, toward window growth.
    in_loss: bool,
    dupacks: u32,
    partial_acks: u32,
    retries: u32,
    ack_pending: u32,
    snd_una: u64,
    snd_max: u64,
    /// Seq just past the last byte the application has written (data starts at 1).
    data_end: u64,
    rcv_nxt: u64,
    // --- The rest of what a sender touches per ACK and a receiver per data segment. ---
    peer_fin: Option<u64>,
    snd_nxt: u64,
    /// Seq just past the last byte handed to TCP: `data_end`, except while a write is being passed
    /// on in `send_chunk` pieces (BSD `sosend`, one cluster per `pru_send`).
    sb_end: u64,
    /// The peer's advertised window as this sender sees it (BSD `snd_wnd`; constant but for
    /// `buffer_roundup`).
    snd_wnd: u64,
    cwnd: f64,
    ssthresh: f64,
    /// Bytes sent by limited transmit since the last new ACK.
    limited_bytes: u64,
    /// The segment being timed for an RTT sample, and when it was sent.
    timed: Option<(u64, Time)>,
    /// Seq just past the highest byte retransmitted in this recovery (RFC 6675 HighRxt).
    high_rxt: u64,
    /// `send_chunk` in bytes (0: whole writes).
    send_chunk: u64,
    /// `rcv_nxt` when this host last sent a segment (BSD `rcv_adv` less the window it advertised):
    /// the `window-update` delayed-ACK rule counts the bytes received in order since.
    rcv_adv_base: u64,
    /// When data last went out (for the restart after idle).
    last_send: Time,
    /// Phase of this host's clock (tick-based RTT measurement and BSD timers).
    phase: Time,
    rto: RtoEstimator,
    pub c: Counters,
    /// SACK scoreboard: bytes above `snd_una` the receiver reported.
    sacked: RangeSet,
    /// Out-of-order data received (the reassembly queue).
    ooo: RangeSet,
    // --- Per ACK through the controller; then what is used with SACK, with HyStart, per
    // recovery or with timestamps. ---
    /// Window growth and reduction.
    cc: CongestionControl,
    /// `snd_max` at the last window reduction: the end of the window it responded to.
    recover: u64,
    /// Data segments in flight and when they left, for per-ACK RTT samples and RACK-TLP; kept
    /// only when the controller asks for the samples (HyStart) or with RACK-TLP
    /// (`keeps_sent`).
    sent_times: VecDeque<SentSegment>,
    sack_recent: [SackBlock; 3],
    /// When the current fast recovery began.
    recovery_since: Time,
    /// With `recovery_window = "ns2"`: the part of cwnd that is fast recovery's inflation (ns-2
    /// `dupwnd_`, in bytes), taken off when recovery ends; 0 outside recovery.
    inflation: f64,
    /// With `sack_recovery = "ns2"`: ns-2 `Sack1`'s `pipe_`, segments in flight as it counts
    /// them during fast recovery (it can go below zero).
    sack_pipe: i64,
    /// With `sack_recovery = "ns2"`: a timeout came and no new ACK since (ns-2 `timeout_`):
    /// duplicate ACKs are not counted.
    after_timeout: bool,
    /// RFC 7323 TS.Recent: the peer's timestamp to echo, once one was accepted.
    ts_recent: Option<u32>,
    /// RFC 7323 Last.ACK.sent: the acknowledgment number of the last segment sent.
    last_ack_sent: u64,
    /// With `recovery_cwnd = "prr"`: the counters of the fast recovery under way.
    prr: Prr,
    /// With `recovery_cwnd = "prr"` and no SACK: the segments the duplicate ACKs since the last
    /// new ACK say have arrived (Linux's `sacked_out` on a connection without SACK:
    /// `tcp_add_reno_sack`, `tcp_remove_reno_sacks`).
    dup_delivered: u64,
    /// When a paced sender's next data segment may leave (BBR, or `pacing = "linux"`).
    pacer: Pacer,
    /// With `pacing = "linux"`: the rate Linux sets a controller that sets none
    /// ([`linux_rate`]), bytes per second (BBR keeps its own).
    pacing_rate: f64,
    /// With `loss_detection = "rack-tlp"`: RACK-TLP's state.
    rack: Rack,
    /// An ECN-Echo was answered at a window of one segment and the window has not grown past one
    /// since: the next such answer backs the timer off (`TcpConfig::ecn_backoff`).
    ecn_backoff_armed: bool,
}

/// RFC 6937's state for one fast recovery, in segments (Linux `tcp_init_cwnd_reduction`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Prr {
    /// cwnd when recovery began (RFC 6937 RecoverFS; Linux `prior_cwnd`), at least one.
    prior_cwnd: u64,
    /// Segments delivered to the receiver since (`prr_delivered`).
    delivered: u64,
    /// Segments sent since (`prr_out`).
    out: u64,
}

/// What one ACK did, for PRR: the segments it delivered (RFC 6937 DeliveredData, Linux
/// `newly_acked_sacked`) and whether it made a segment count as lost that did not before (Linux
/// `rs->losses`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Delivery {
    segments: u64,
    newly_lost: bool,
}

/// RFC 7323 timestamp clock: microseconds, modulo 2³² (the option's 32-bit field; it wraps after
/// 71 minutes, and differences are taken modulo 2³², so only RTTs above that would be wrong).
fn ts_clock(now: Time) -> u32 {
    (now.0 / 1_000) as u32
}

/// Seq-space end of a segment.
fn seg_end(seq: u64, len: u32, fin: bool) -> u64 {
    seq + u64::from(len) + u64::from(fin)
}

impl Endpoint {
    /// The leading bytes of an endpoint that handling a segment reads (see the layout above):
    /// what the simulation prefetches before a delivery.
    pub const PER_SEGMENT_BYTES: usize = std::mem::offset_of!(Endpoint, cc);

    /// A new endpoint; `opener` sends the SYN. `phase` is its host's clock phase.
    pub fn new(cfg: &TcpConfig, opener: bool, phase: Time) -> Endpoint {
        let cc = CongestionControl::new(&cfg.cc).sized(cfg.mss.bytes(), cfg.initial_window);
        Endpoint {
            paced: cfg.pacing.is_on() || cc.is_bbr(),
            keeps_sent: cc.wants_rtt_samples() || Self::rack_on(cfg),
            opener,
            state: State::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_end: 1,
            sb_end: 1,
            send_chunk: cfg.send_chunk.bytes(),
            snd_wnd: cfg.rwnd.bytes(),
            close: false,
            close_on_peer_fin: false,
            cwnd: cfg.mss.bytes() as f64,
            // "Arbitrarily high" (RFC 5681 §3.1): slow start until the first loss or the window.
            ssthresh: f64::INFINITY,
            cc,
            sent_times: VecDeque::new(),
            dupacks: 0,
            in_recovery: false,
            recovery_since: Time::ZERO,
            recover: 0,
            last_cut_ecn: false,
            partial_acks: 0,
            inflation: 0.0,
            sack_pipe: 0,
            after_timeout: false,
            timed: None,
            rto: RtoEstimator::new(cfg),
            retries: 0,
            sacked: RangeSet::default(),
            high_rxt: 0,
            ecn_ok: false,
            cwr_pending: false,
            ecn_hold: false,
            ecn_backoff_armed: false,
            limited_bytes: 0,
            rcv_nxt: 0,
            ooo: RangeSet::default(),
            sack_recent: [SackBlock::default(); 3],
            nsack_recent: 0,
            peer_fin: None,
            ack_pending: 0,
            ack_now: false,
            rcv_adv_base: 0,
            ece_pending: false,
            timers: Timers::NONE,
            phase,
            last_send: Time::ZERO,
            c: Counters::default(),
            in_loss: false,
            ts_recent: None,
            last_ack_sent: 0,
            prr: Prr::default(),
            dup_delivered: 0,
            resend_held: false,
            pacer: Pacer::default(),
            pacing_rate: 0.0,
            rack: Rack::default(),
        }
    }

    // ----- application interface -----

    /// The application writes `bytes` more bytes.
    pub fn write(&mut self, bytes: u64) {
        if self.cc.is_bbr() && self.state == State::Established {
            self.bbr_check_app_limited();
        }
        self.data_end += bytes;
        if self.send_chunk == 0 {
            self.sb_end = self.data_end;
        }
    }

    /// The application writes `bytes` more bytes at `now`, after a pause: a sender idle for at least
    /// its RTO restarts from the initial window (RFC 5681 §4.1; BSD `t_idle ≥ t_rxtcur`; ns-2
    /// `slow_start_restart_`).
    pub fn write_after_pause(&mut self, bytes: u64, now: Time, cfg: &TcpConfig) {
        let idle = self.state == State::Established && self.snd_una >= self.snd_max;
        // BBR's check of the application's gap comes first (Linux tcp_sendmsg, then the
        // CA_EVENT_TX_START of the send).
        if self.cc.is_bbr() && self.state == State::Established {
            self.bbr_check_app_limited();
        }
        if idle {
            self.cc.on_idle_restart(now, self.last_send);
            let srtt = self.rto.srtt_s().map(|s| Time((s * 1e9) as u64));
            let mss = cfg.mss.bytes();
            let cwnd = self.cwnd;
            if let Some(b) = self.cc.bbr() {
                let mut pkts = (cwnd / mss as f64).round() as u64;
                b.on_idle_restart(now, srtt, &mut pkts);
                self.cwnd = (pkts * mss) as f64;
            }
            if cfg.idle_restart && now >= self.last_send + self.rto.timeout() {
                self.cwnd = self.cwnd.min(self.initial_cwnd(cfg));
            }
        }
        self.data_end += bytes;
        if self.send_chunk == 0 {
            self.sb_end = self.data_end;
        }
    }

    /// All data written so far has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.data_end
    }

    /// Has data been written that is not all acknowledged, with no timer to send it (neither a
    /// retransmission nor a deferred send)? Then only a segment from the peer can make this end
    /// send again; with none in flight and none due, the connection has stalled for good.
    pub fn waits_on_peer_alone(&self) -> bool {
        self.state == State::Established
            && self.data_end > 1
            && !self.all_acked()
            && self.timers.deadline(Timer::Rto).is_none()
            && self.timers.deadline(Timer::Send).is_none()
    }

    /// Has this end no timer running at all?
    pub fn no_timer_running(&self) -> bool {
        Timer::ALL
            .iter()
            .all(|&t| self.timers.deadline(t).is_none())
    }

    /// The application closes once its data is out.
    pub fn close_after_data(&mut self) {
        self.close = true;
    }

    /// The application closes when the peer's FIN arrives.
    pub fn close_on_peer_fin(&mut self) {
        self.close_on_peer_fin = true;
    }

    /// Its application closes only when the peer's FIN arrives (it closes second: LAST_ACK, not
    /// TIME_WAIT).
    pub fn waits_for_peer_fin(&self) -> bool {
        self.close_on_peer_fin
    }

    /// Data bytes received in order.
    pub fn bytes_delivered(&self) -> u64 {
        let fin = u64::from(self.fin_received());
        self.rcv_nxt.saturating_sub(1 + fin)
    }

    pub fn fin_received(&self) -> bool {
        self.peer_fin.is_some_and(|f| self.rcv_nxt > f)
    }

    /// Our FIN was sent and acknowledged.
    pub fn fin_acked(&self) -> bool {
        self.close && self.snd_una > self.data_end
    }

    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    pub fn srtt_s(&self) -> Option<f64> {
        self.rto.srtt_s()
    }

    pub fn rto(&self) -> Time {
        self.rto.timeout()
    }

    /// What this end leaves in its host's route cache when it closes
    /// ([`RtoEstimator::route_sample`]).
    pub fn route_sample(&self) -> Option<(u64, u64)> {
        self.rto.route_sample()
    }

    /// Start the timer from the host's cached RTT ([`RtoEstimator::start_from_route`]).
    pub fn start_from_route(&mut self, srtt: u64, rttvar: Option<u64>) {
        self.rto.start_from_route(srtt, rttvar);
    }

    pub fn ecn_ok(&self) -> bool {
        self.ecn_ok
    }

    /// The peer's advertised window this sender works with.
    pub fn peer_window(&self) -> u64 {
        self.snd_wnd
    }

    // ----- opening -----

    /// The opener starts the handshake at `now`.
    pub fn open(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        self.state = State::SynSent;
        self.timers
            .set_deadline(Timer::Connect, cfg.connect_timeout.map(|t| now + t));
        self.send_syn(now, cfg, out);
    }

    /// Start already established at `now` (no handshake, as ns-2's agents before `syn_`).
    pub fn start_established(&mut self, cfg: &TcpConfig, now: Time) {
        self.state = State::Established;
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.rcv_nxt = 1;
        self.high_rxt = 1;
        self.cwnd = self.initial_cwnd(cfg);
        self.ecn_ok = cfg.ecn;
        self.set_buffers(cfg);
        self.bbr_start(now, cfg);
    }

    /// BBR starts when the connection is established (Linux `bbr_init` from
    /// `tcp_init_transfer`), with the RTT of the handshake if measured.
    fn bbr_start(&mut self, now: Time, cfg: &TcpConfig) {
        if let Some(b) = self.cc.bbr() {
            let srtt = self.rto.srtt_s().map(|s| Time((s * 1e9) as u64));
            let cwnd = (self.cwnd / cfg.mss.bytes() as f64).round() as u64;
            b.start(now, cwnd, srtt, srtt);
        }
    }

    /// The socket buffer: `rwnd`, rounded up to whole segments with `buffer_roundup`.
    fn buffer(cfg: &TcpConfig) -> u64 {
        let (rwnd, mss) = (cfg.rwnd.bytes(), cfg.mss.bytes());
        if cfg.buffer_roundup {
            rwnd.div_ceil(mss) * mss
        } else {
            rwnd
        }
    }

    /// Connection setup with the peer's MSS known (BSD `tcp_mss()`): from here on both ends
    /// advertise their buffers rounded up to whole segments with `buffer_roundup` (the opener's
    /// SYN went out before, with `rwnd`).
    fn set_buffers(&mut self, cfg: &TcpConfig) {
        self.snd_wnd = Self::buffer(cfg);
    }

    fn initial_cwnd(&self, cfg: &TcpConfig) -> f64 {
        f64::from(cfg.initial_window) * cfg.mss.bytes() as f64
    }

    /// Send (or resend) our SYN, or SYN-ACK for a listener.
    fn send_syn(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        let resend = self.snd_max > 0;
        let mut f = flags::SYN;
        if self.opener {
            // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR.
            if cfg.ecn {
                f |= flags::ECE | flags::CWR;
            }
        } else {
            f |= flags::ACK;
            if self.ecn_ok {
                f |= flags::ECE;
            }
        }
        if resend {
            self.c.syn_rexmits += 1;
            self.timed = None;
        } else {
            self.timed = Some((0, now));
        }
        self.snd_nxt = 1;
        self.snd_max = 1;
        let mut seg = Segment {
            seq: 0,
            ack: self.rcv_nxt,
            flags: f,
            ..Segment::default()
        };
        self.stamp(&mut seg, now, cfg);
        self.c.segs_sent += 1;
        self.ack_sent();
        out.push(Out { seg, ect: false });
        self.timers
            .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
    }

    // ----- input -----

    /// A segment arrives; `ce` is true if the network marked it Congestion Experienced.
    pub fn on_segment(
        &mut self,
        seg: &Segment,
        ce: bool,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
        out: &mut Vec<Out>,
    ) {
        self.segment_arrives(seg, ce, now, cfg, rng, out);
        if Self::rack_on(cfg) {
            self.rack_rearm(now, cfg);
        }
    }

    /// What [`Self::on_segment`] does, before RACK-TLP sets its timer.
    #[inline(always)]
    fn segment_arrives(
        &mut self,
        seg: &Segment,
        ce: bool,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
        out: &mut Vec<Out>,
    ) {
        if self.state == State::Failed {
            return;
        }
        if cfg.timeout.timestamps {
            self.accept_timestamp(seg);
        }
        if seg.has(flags::SYN) {
            self.on_syn(seg, now, cfg, rng, out);
            return;
        }
        // The handshake's last steps, tested only while it lasts (not for every segment after).
        if self.state != State::Established {
            if self.state == State::SynRcvd && seg.has(flags::ACK) && seg.ack >= 1 {
                self.become_established(cfg, now);
            }
            // ns-2 `syn_`: the sink answers the data sender's SYN with a plain ACK.
            if self.state == State::SynSent
                && cfg.handshake == Handshake::Ns2Syn
                && seg.has(flags::ACK)
                && seg.ack >= 1
            {
                self.on_ack(seg, now, cfg, rng, out);
                self.rcv_nxt = 1;
                // ns-2 agents with `ecn_` set simply use ECN; there is no negotiation.
                self.ecn_ok = cfg.ecn;
                self.become_established(cfg, now);
                self.output(now, cfg, rng, out, false);
                return;
            }
            if self.state != State::Established {
                return;
            }
        }
        let acked_new = if seg.has(flags::ACK) {
            self.on_ack(seg, now, cfg, rng, out)
        } else {
            false
        };
        if seg.len > 0 || seg.has(flags::FIN) {
            self.on_data(seg, ce, now, cfg);
        }
        self.output(now, cfg, rng, out, acked_new || seg.has(flags::ACK));
    }

    fn become_established(&mut self, cfg: &TcpConfig, now: Time) {
        self.state = State::Established;
        self.cwnd = self.initial_cwnd(cfg);
        // The listener sees the opener's rounded window from the handshake ACK, the opener the
        // listener's from the SYN-ACK.
        self.set_buffers(cfg);
        self.timers.set_deadline(Timer::Connect, None);
        if cfg.syn_loss_restart && self.c.syn_rexmits > 0 {
            // RFC 5681 §3.1: one segment after a lost SYN or SYN-ACK; RFC 6298 §5.7: an RTO of at
            // least 3 s when data transmission begins.
            self.cwnd = cfg.mss.bytes() as f64;
            self.rto.reinitialize_at_least(Time::from_secs(3));
        }
        self.bbr_start(now, cfg);
        self.update_pacing_rate(cfg);
    }

    fn on_syn(
        &mut self,
        seg: &Segment,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
        out: &mut Vec<Out>,
    ) {
        match (self.opener, self.state) {
            (false, State::Idle) if cfg.handshake == Handshake::Ns2Syn => {
                self.rcv_nxt = seg.seq + 1;
                self.state = State::Established;
                self.ecn_ok = cfg.ecn;
                self.set_buffers(cfg);
                self.ack_now = true;
                self.output(now, cfg, rng, out, false);
            }
            (false, State::Idle) => {
                self.state = State::SynRcvd;
                self.rcv_nxt = seg.seq + 1;
                self.ecn_ok = cfg.ecn && seg.has(flags::ECE) && seg.has(flags::CWR);
                self.send_syn(now, cfg, out);
            }
            // Our SYN-ACK was lost or is late: answer the retransmitted SYN with another.
            (false, State::SynRcvd) => self.send_syn(now, cfg, out),
            (true, State::SynSent) if seg.has(flags::ACK) && seg.ack == 1 => {
                self.rcv_nxt = seg.seq + 1;
                self.ecn_ok = cfg.ecn && seg.has(flags::ECE);
                self.on_ack(seg, now, cfg, rng, out);
                self.become_established(cfg, now);
                self.ack_now = true;
                self.output(now, cfg, rng, out, false);
            }
            // A duplicate SYN or SYN-ACK once open: our ACK was lost; acknowledge again.
            (_, State::Established) => {
                self.ack_now = true;
                self.output(now, cfg, rng, out, false);
            }
            _ => {}
        }
    }

    /// Process the acknowledgment field. Returns true if it acknowledged new data. Inline, with
    /// the work out of line (`on_new_ack`, `on_dup_ack`): most ACK fields that arrive acknowledge
    /// nothing new (every data segment's, at a receiver), and cost only the tests.
    #[inline(always)]
    fn on_ack(
        &mut self,
        seg: &Segment,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
        out: &mut Vec<Out>,
    ) -> bool {
        let ack = seg.ack;
        if ack > self.snd_max {
            return false;
        }
        if self.cc.is_bbr() {
            return self.on_ack_bbr(seg, now, cfg, rng, out);
        }
        if cfg.pacing.is_on() || Self::rack_on(cfg) {
            return self.on_ack_option(seg, now, cfg, out);
        }
        self.on_ack_window::<false>(seg, now, cfg, out)
    }

    /// [`Self::on_ack`] with `pacing = "linux"` or RACK-TLP (out of line, so that the other
    /// senders' ACKs test for neither): RACK-TLP reads what the ACK delivered
    /// ([`Self::on_ack_window`]), and with pacing an ACK that finds data outstanding sets the
    /// pacing rate from the window it leaves (Linux `tcp_cong_control`, then
    /// `tcp_update_pacing_rate`; an old ACK or one with nothing outstanding sets none).
    #[inline(never)]
    fn on_ack_option(
        &mut self,
        seg: &Segment,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
    ) -> bool {
        let outstanding = seg.ack >= self.snd_una && self.snd_max > self.snd_una;
        let acked_new = self.on_ack_window::<true>(seg, now, cfg, out);
        if outstanding && cfg.pacing.is_on() {
            self.update_pacing_rate(cfg);
        }
        acked_new
    }

    /// With `pacing = "linux"`: the pacing rate from the window now ([`linux_rate`]).
    fn update_pacing_rate(&mut self, cfg: &TcpConfig) {
        let Pacing::Linux { ss_ratio, ca_ratio } = cfg.pacing else {
            return;
        };
        let mss = cfg.mss.bytes();
        // Whole segments, as Linux counts cwnd and ssthresh (an unbounded ssthresh saturates).
        let segments = |bytes: f64| (bytes / mss as f64) as u64;
        self.pacing_rate = linux_rate(
            mss,
            segments(self.cwnd),
            segments(self.ssthresh),
            (self.snd_max - self.snd_una).div_ceil(mss),
            self.rto.srtt_us8(),
            (ss_ratio, ca_ratio),
        );
    }

    /// [`Self::on_ack`] for BBR (Linux `tcp_ack` with a `cong_control` hook): the ACK is
    /// processed as any other, then its delivery-rate sample goes to BBR, which sets the
    /// window and the pacing rate (`bbr_main`).
    #[inline(never)]
    fn on_ack_bbr(
        &mut self,
        seg: &Segment,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
        out: &mut Vec<Out>,
    ) -> bool {
        let live = self.state == State::Established
            && seg.ack >= self.snd_una
            && self.cc.bbr().is_some_and(|b| b.rate.sent_any());
        let prior_in_flight = if live {
            let ca = self.bbr_ca_state();
            self.bbr_in_flight(ca, cfg)
        } else {
            0
        };
        let acked_new = self.on_ack_window::<true>(seg, now, cfg, out);
        if live {
            self.bbr_sample(seg, prior_in_flight, now, cfg, rng);
        }
        acked_new
    }

    // ----- RACK-TLP (`rack.rs`) -----

    /// RACK-TLP on an ACK whose SACK blocks are recorded (Linux `tcp_ack`): what it delivered moves
    /// RACK on (RFC 8985 §6.2); its probe's episode may end (§7.4.2); and on an ACK Linux calls
    /// dubious (in recovery or a timeout's aftermath, or with data SACKed: `tcp_ack_is_dubious`)
    /// that delivered something, the loss detection runs (§6.2, RACK_detect_loss;
    /// `tcp_rack_mark_lost`), asking for the reordering timer if a segment waits on the window.
    /// Whether it marked a segment newly lost.
    #[inline(never)]
    fn rack_ack(&mut self, seg: &Segment, now: Time, cfg: &TcpConfig) -> bool {
        self.rack.before = Some((self.snd_una, self.snd_max));
        let ack = seg.ack.max(self.snd_una);
        let delivered = self.rack.deliver(
            &mut self.sent_times,
            ack,
            seg.sack_blocks(),
            &self.sacked,
            now,
        );
        self.rack.newly_lost = 0;
        self.tlp_ack(seg, delivered, now, cfg);
        let recovering = (self.in_recovery || self.in_loss) && ack < self.recover;
        if !delivered || !(recovering || self.sacked.bytes_above(ack) > 0) {
            return false;
        }
        let reo_wnd = self.rack_reo_wnd(recovering, ack, cfg);
        let (newly, wait) = self.rack.detect_loss(&mut self.sent_times, reo_wnd, now);
        // Linux tcp_rack_mark_lost: the time left and TCP_TIMEOUT_MIN, in jiffies.
        self.rack.reorder_at = wait.map(|w| now + rack::round_up(w + rack::TIMEOUT_MIN, cfg.tick));
        newly > 0
    }

    /// RACK's reordering window ([`Rack::reo_wnd`]), `recovering` or not, with `snd_una` at
    /// `una`.
    fn rack_reo_wnd(&self, recovering: bool, una: u64, cfg: &TcpConfig) -> Time {
        self.rack.reo_wnd(
            recovering,
            rack::sacked_count(&self.sent_times, una),
            cfg.dupthresh,
            self.rto.srtt_us8().map(|s| Time::from_micros(s / 8)),
        )
    }

    /// RFC 8985 §7.4.2 (Linux `tcp_process_tlp_ack`): an ACK at or past the end of the probe's
    /// episode ends it if the probe was new data, or if it is a pure duplicate (the probe and
    /// its original both arrived); if it goes past that end after a retransmitted probe, the
    /// probe repaired a loss, and the window is reduced once (ssthresh, then cwnd to it: the CWR
    /// state, `tcp_init_cwnd_reduction` and `tcp_end_cwnd_reduction`). `sacked`: the ACK
    /// delivered something.
    fn tlp_ack(&mut self, seg: &Segment, sacked: bool, now: Time, cfg: &TcpConfig) {
        let Some(end) = self.rack.tlp_end.filter(|&end| seg.ack >= end) else {
            return;
        };
        let pure_dup = seg.ack == self.snd_una && !sacked && seg.len == 0;
        if !self.rack.tlp_retrans || pure_dup {
            self.rack.tlp_end = None;
        } else if seg.ack > end {
            self.rack.tlp_end = None;
            self.reduce_ssthresh(cfg);
            if !self.cc.is_bbr() {
                self.cwnd = self.ssthresh;
                self.cc
                    .on_recovery_exit(now, self.cwnd, cfg.mss.bytes() as f64);
            }
        }
    }

    /// May a loss probe be scheduled (Linux `tcp_schedule_loss_probe`: data outstanding in the
    /// Open or CWR state: not in recovery nor a timeout's aftermath, nothing SACKed)? Not while
    /// an ECN-Echo holds the sender on the same timer.
    fn probe_may_go(&self) -> bool {
        self.state == State::Established
            && self.snd_max > self.snd_una
            && !(self.in_recovery || self.in_loss || self.ecn_hold)
            && self.sacked.bytes_above(self.snd_una) == 0
    }

    /// After each event with RACK-TLP: what the one retransmission timer stands for ([`Slot`],
    /// Linux `icsk_pending`). A deadline the retransmission-timeout logic set since the last pass
    /// is the timeout's own. Then, in Linux's order: a reordering window the loss detection
    /// waits on takes the timer, at most one RTO away (`tcp_rack_mark_lost`); else an ACK of
    /// new data or new data sent (since [`Rack::before`]) schedules
    /// the loss probe where one may go, no later than the timeout would expire
    /// (`tcp_schedule_loss_probe`, [`rack::probe_timeout`]); else an ACK of new data gives the
    /// timer back to the timeout (`tcp_rearm_rto`).
    #[inline(never)]
    fn rack_rearm(&mut self, now: Time, cfg: &TcpConfig) {
        let (una, max) = self
            .rack
            .before
            .take()
            .unwrap_or((self.snd_una, self.snd_max));
        let deadline = self.timers.deadline(Timer::Rto);
        if deadline != self.rack.slot_at {
            (self.rack.slot, self.rack.rto_at) = (Slot::Rto, deadline);
        }
        let acked_new = self.snd_una > una;
        let (slot, at) = if let Some(at) = self.rack.reorder_at.take() {
            (Slot::Reorder, Some(at.min(now + self.rto.timeout())))
        } else if (acked_new || self.snd_max > max) && self.probe_may_go() {
            let pto = rack::probe_timeout(
                self.rto.srtt_us8(),
                self.sent_times.len(),
                cfg.tick,
                cfg.min_rto,
                cfg.initial_rto,
            );
            let at = match self.rack.rto_at {
                Some(rto) if rto > now => (now + pto).min(rto),
                _ => now + pto,
            };
            (Slot::Probe, Some(at))
        } else if acked_new {
            (Slot::Rto, self.rack.rto_at)
        } else {
            (self.rack.slot, deadline)
        };
        self.set_slot(slot, at);
    }

    /// The retransmission timer stands for `slot` and expires at `at`.
    fn set_slot(&mut self, slot: Slot, at: Option<Time>) {
        self.timers.set_deadline(Timer::Rto, at);
        (self.rack.slot, self.rack.slot_at) = (slot, at);
        if slot == Slot::Rto {
            self.rack.rto_at = at;
        }
    }

    /// The retransmission timeout's own deadline, when the timer goes back to it after standing
    /// for another: at least one tick away (Linux `tcp_rearm_rto`: at least one jiffy).
    fn rto_again(&self, now: Time, cfg: &TcpConfig) -> Option<Time> {
        (self.snd_max > self.snd_una).then(|| {
            self.rack.rto_at.map_or_else(
                || self.rto.deadline(now, self.phase),
                |at| at.max(now + cfg.tick),
            )
        })
    }

    /// The loss probe's timeout (RFC 8985 §7.3; Linux `tcp_send_loss_probe`): unless a probe is
    /// out already, new data goes if there is any and the receiver's window allows it (and the
    /// pacing clock, which Linux checks too), whatever cwnd says; else the last segment sent is
    /// resent. Then the retransmission timeout runs from now; with no probe sent, from its own
    /// deadline.
    fn send_probe(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        let mut probe = None;
        if self.rack.tlp_end.is_none() && self.state == State::Established {
            let fits = |&(seq, len, _): &(u64, u32, bool)| {
                seg_end(seq, len, false) <= self.snd_una + self.snd_wnd
            };
            if let Some((seq, len, fin)) = self.new_segment(cfg).filter(fits) {
                if !(self.paced && self.pacer.wait(now).is_some()) {
                    self.send(seq, len, fin, now, cfg, out);
                    probe = Some(false);
                }
            } else if let Some(last) = self.sent_times.back().filter(|s| !s.delivered) {
                let (seq, len, fin) = self.segment_at(last.start(), cfg);
                self.send(seq, len, fin, now, cfg, out);
                probe = Some(true);
            }
        }
        let rto = match probe {
            Some(retrans) => {
                (self.rack.tlp_end, self.rack.tlp_retrans) = (Some(self.snd_max), retrans);
                Some(self.rto.deadline(now, self.phase))
            }
            None => self.rto_again(now, cfg),
        };
        self.set_slot(Slot::Rto, rto);
    }

    /// The reordering window ran out (Linux `tcp_rack_reo_timeout`): the loss detection runs
    /// again (what it would wait on next is left to the next ACK); if it marked a segment lost,
    /// recovery starts where none is under way (as on an ACK that delivered one segment) and
    /// the retransmissions go. The timer then goes back to the retransmission timeout, unless a
    /// retransmission restarted it.
    fn reorder_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        let recovering = self.in_recovery || self.in_loss;
        let reo_wnd = self.rack_reo_wnd(recovering, self.snd_una, cfg);
        let (newly, _) = self.rack.detect_loss(&mut self.sent_times, reo_wnd, now);
        if newly > 0 {
            if !recovering {
                let delivery = Delivery {
                    segments: 1,
                    newly_lost: true,
                };
                self.start_recovery(now, cfg, out, delivery);
            }
            self.transmit(now, cfg, out);
        }
        if self.timers.deadline(Timer::Rto).is_none() {
            let at = self.rto_again(now, cfg);
            self.timers.set_deadline(Timer::Rto, at);
        }
    }

    /// What goes next in recovery or a timeout's aftermath with RACK-TLP (Linux
    /// `tcp_xmit_retransmit_queue`, then `tcp_write_xmit`): while what is in flight leaves cwnd
    /// room for a segment, the first segment marked lost and not resent, else new data the
    /// receiver's window allows. (RFC 6675's NextSeg rule 3, a segment not lost, is not Linux's.)
    #[inline(never)]
    fn rack_next(&self, idle: bool, cfg: &TcpConfig) -> Option<(u64, u32, bool)> {
        if self.cwnd < (self.pipe(cfg) + cfg.mss.bytes()) as f64 {
            return None;
        }
        if let Some(seq) = rack::first_lost(&self.sent_times, self.snd_una) {
            return Some(self.segment_at(seq, cfg));
        }
        self.new_segment(cfg).filter(|&seg| {
            seg_end(seg.0, seg.1, false) <= self.snd_una + self.snd_wnd
                && !self.nagle_holds(seg, idle, cfg)
        })
    }

    /// BBR's view of the loss-recovery state (Linux `icsk_ca_state`).
    fn bbr_ca_state(&mut self) -> CaState {
        let (una, recovery) = (self.snd_una, self.in_recovery);
        let loss = self.cc.bbr().is_some_and(|b| b.in_loss(una));
        if recovery {
            CaState::Recovery
        } else if loss {
            CaState::Loss
        } else {
            CaState::Open
        }
    }

    /// Packets in flight as Linux counts them (`tcp_packets_in_flight`: sent, less SACKed,
    /// less lost, plus retransmitted): in recovery RFC 6675's pipe; after a timeout what was
    /// resent since (everything outstanding then counts as lost); otherwise what is
    /// outstanding and not SACKed.
    fn bbr_in_flight(&self, ca: CaState, cfg: &TcpConfig) -> u64 {
        let una = self.snd_una;
        let bytes = match ca {
            CaState::Recovery => self.pipe(cfg),
            CaState::Loss if Self::rack_on(cfg) => self.pipe(cfg),
            CaState::Loss => {
                let nxt = self.snd_nxt.max(una);
                (nxt - una) - (self.sacked.bytes_above(una) - self.sacked.bytes_above(nxt))
            }
            CaState::Open => (self.snd_max - una).saturating_sub(self.sacked.bytes_above(una)),
        };
        bytes.div_ceil(cfg.mss.bytes())
    }

    /// Packets newly counted as lost (RFC 6675 IsLost, which marks every unSACKed segment below
    /// a point that only rises): those between the last point and the new one. With RACK-TLP,
    /// those its detection marked on this ACK.
    fn bbr_newly_lost(&mut self, cfg: &TcpConfig) -> u64 {
        if Self::rack_on(cfg) {
            return self.rack.newly_lost;
        }
        let mss = cfg.mss.bytes();
        let threshold = u64::from(cfg.dupthresh - 1) * mss;
        let Some(edge) = self.sacked.lost_edge(threshold) else {
            return 0;
        };
        let una = self.snd_una;
        let Some(b) = self.cc.bbr() else { return 0 };
        let lo = b.lost_edge.max(una);
        b.lost_edge = b.lost_edge.max(edge);
        if edge <= lo {
            return 0;
        }
        let sacked = self.sacked.bytes_above(lo) - self.sacked.bytes_above(edge);
        ((edge - lo) - sacked).div_ceil(mss)
    }

    /// The ACK's delivery-rate sample (Linux `tcp_rate_gen`) to BBR (`bbr_main`); the window
    /// it sets becomes cwnd.
    fn bbr_sample(
        &mut self,
        seg: &Segment,
        prior_in_flight: u64,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
    ) {
        let mss = cfg.mss.bytes();
        let una = self.snd_una;
        if let Some(b) = self.cc.bbr() {
            for blk in seg.sack_blocks() {
                b.rate.sacked(blk.start, blk.end, mss);
            }
            b.rate.cum_acked(una, mss);
        }
        let losses = self.bbr_newly_lost(cfg);
        let ca = self.bbr_ca_state();
        let ctx = AckCtx {
            now,
            in_flight: self.bbr_in_flight(ca, cfg),
            ca,
            srtt: self.rto.srtt_s().map(|s| Time((s * 1e9) as u64)),
            next_send: self.pacer.next_send(),
        };
        let mut cwnd = (self.cwnd / mss as f64).round() as u64;
        let Some(b) = self.cc.bbr() else { return };
        let rs = b.rate.sample(now, losses, prior_in_flight);
        b.on_ack(&rs, &ctx, &mut cwnd, rng);
        let ssthresh = b.ssthresh.take();
        self.cwnd = (cwnd * mss) as f64;
        if let Some(ss) = ssthresh {
            self.ssthresh = (ss * mss) as f64;
        }
    }

    /// Linux `tcp_rate_check_app_limited` as the application writes.
    fn bbr_check_app_limited(&mut self) {
        let unsent = self.data_end.saturating_sub(self.snd_nxt);
        let out =
            (self.snd_max - self.snd_una).saturating_sub(self.sacked.bytes_above(self.snd_una));
        let recovery = self.in_recovery;
        let cwnd = self.cwnd;
        if let Some(b) = self.cc.bbr() {
            let mss = b.mss();
            let in_flight = out.div_ceil(mss);
            let cwnd = (cwnd / mss as f64).round() as u64;
            b.rate
                .check_app_limited(unsent, mss, in_flight, cwnd, recovery);
        }
    }

    /// The acknowledgment field's effect on the window and recovery ([`Self::on_ack`]);
    /// `RACK_TLP`: the sender may have RACK-TLP (false: it has not, and is not asked).
    #[inline(always)]
    fn on_ack_window<const RACK_TLP: bool>(
        &mut self,
        seg: &Segment,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
    ) -> bool {
        let ack = seg.ack;
        let ns2_sack = cfg.ns2_sack();
        if ns2_sack && self.in_recovery {
            // Sack1: every ACK in fast recovery takes one off pipe_.
            self.sack_pipe -= 1;
        }
        let sacked_before = if ns2_sack {
            self.sacked.bytes_above(self.snd_una)
        } else {
            0
        };
        let prr_marks = (cfg.variant == Variant::Sack && self.prr_on(cfg)).then(|| self.marks(cfg));
        if cfg.variant == Variant::Sack {
            for b in seg.sack_blocks() {
                if b.end > self.snd_una.max(ack) {
                    self.sacked
                        .insert(b.start.max(self.snd_una.max(ack)), b.end);
                }
            }
        }
        let mut delivery =
            prr_marks.map_or(Delivery::default(), |m| self.sack_delivery(m, ack, cfg));
        if RACK_TLP && Self::rack_on(cfg) {
            delivery.newly_lost = self.rack_ack(seg, now, cfg);
        }
        // On a SYN-ACK, ECE is the ECN negotiation (RFC 3168 §6.1.1), not an echo.
        let ece = seg.has(flags::ECE) && self.ecn_ok && !seg.has(flags::SYN);
        if ack > self.snd_una {
            self.on_new_ack(seg, ece, now, cfg, out, delivery);
            if RACK_TLP && Self::rack_on(cfg) && !self.in_recovery && self.loss_found(cfg) {
                // RACK marks losses on any ACK (Linux `tcp_time_to_recover`: `lost_out`).
                self.start_recovery(now, cfg, out, delivery);
            }
            return true;
        }
        if ece {
            self.on_ecn_echo(now, cfg);
        }
        let is_dup = ack == self.snd_una
            && self.snd_max > self.snd_una
            && seg.len == 0
            && !seg.has(flags::FIN);
        // Sack1 counts a duplicate only if it SACKs something new (CheckUpdate), and none
        // between a timeout and the next new ACK.
        let counted = !ns2_sack
            || !(self.after_timeout || self.sacked.bytes_above(self.snd_una) == sacked_before);
        if is_dup && counted {
            self.on_dup_ack(now, cfg, out, delivery);
        }
        false
    }

    /// [`Self::on_ack`] of an ACK of new data, up to `seg.ack` (`ece`: it carries ECN-Echo;
    /// `delivery`: what it delivered, for PRR with SACK).
    fn on_new_ack(
        &mut self,
        seg: &Segment,
        ece: bool,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
        mut delivery: Delivery,
    ) {
        let ack = seg.ack;
        let mss = cfg.mss.bytes() as f64;
        let newly = ack - self.snd_una;
        let prr = self.prr_on(cfg);
        if prr && cfg.variant != Variant::Sack {
            delivery = self.dup_delivered_acked(newly, cfg);
        }
        let syn_only = self.snd_una == 0;
        if cfg.timeout.timestamps {
            // RFC 7323 RTTM: the echoed timestamp says which transmission this ACK answers,
            // a retransmission included.
            let rtt = Time::from_micros(u64::from(ts_clock(now).wrapping_sub(seg.ts_ecr)));
            let sent = Time(now.0.saturating_sub(rtt.0));
            self.rto.sample(sent, now, self.phase, ack, self.snd_max);
        } else if let Some((seq, sent)) = self.timed {
            if ack > seq {
                self.rto.sample(sent, now, self.phase, ack, self.snd_max);
                self.timed = None;
            }
        }
        // Bytes this ACK delivers: in the loss state, those SACKed before count once only.
        let delivered = if self.in_loss {
            newly - (self.sacked.bytes_above(self.snd_una) - self.sacked.bytes_above(ack))
        } else {
            newly
        };
        if self.in_loss && ack >= self.recover {
            self.in_loss = false;
        }
        self.snd_una = ack;
        self.limited_bytes = 0;
        self.snd_nxt = self.snd_nxt.max(ack);
        if self.keeps_sent {
            let sample = self.rtt_sample(ack, now);
            if let Some(rtt) = sample.filter(|_| self.cc.wants_rtt_samples()) {
                let round = Round {
                    now,
                    snd_una: ack,
                    snd_nxt: self.snd_nxt,
                    mss,
                    srtt_s: self.rto.srtt_s(),
                };
                self.cc
                    .on_rtt_sample(rtt, round, self.cwnd, &mut self.ssthresh);
            }
        }
        self.sacked.trim_below(ack);
        self.high_rxt = self.high_rxt.max(ack);
        self.retries = 0;
        self.after_timeout = false;
        let mut restart_timer = true;
        if self.in_recovery {
            if ack >= self.recover {
                // Full ACK: recovery is over; deflate to ssthresh (RFC 5681 §3.2 step 6,
                // RFC 6582 §3.2 step 3, ns-2).
                self.end_recovery(now, newly, cfg, ece);
            } else {
                match cfg.variant {
                    // Reno treats a partial ACK as the end of recovery.
                    Variant::Reno => self.end_recovery(now, newly, cfg, ece),
                    // RFC 6582 §3.2 step 5: retransmit the next hole, deflate by the amount
                    // acknowledged, add back one segment if at least one was acknowledged,
                    // and stay in recovery. ns-2 without partial_window_deflation_ drops the
                    // inflation altogether (dupwnd_ = 0).
                    Variant::NewReno => {
                        self.partial_acks += 1;
                        restart_timer = self.partial_acks == 1
                            || cfg.partial_ack_timer == PartialAckTimer::Every;
                        self.cwnd = if prr {
                            self.prr_reduce(delivery, true, cfg);
                            self.cwnd
                        } else if cfg.partial_window_deflation {
                            let back = if newly as f64 >= mss { mss } else { 0.0 };
                            // ns-2 partialnewack: the inflation goes first, one segment of it
                            // stays; the rest comes off the halved window, which keeps at
                            // least one segment (`if (cwnd_ < 1) cwnd_ = 1`, dupwnd_ apart).
                            let d = newly as f64;
                            let (base, inflation) = if self.inflation > d {
                                (self.cwnd - self.inflation, self.inflation - d + back)
                            } else {
                                (self.cwnd - d, back)
                            };
                            self.inflation = inflation;
                            match cfg.recovery_window {
                                RecoveryWindow::Ns2 => base.max(mss) + inflation,
                                RecoveryWindow::Rfc => (self.cwnd - d + back).max(mss),
                            }
                        } else {
                            let base = match cfg.recovery_window {
                                RecoveryWindow::Rfc => self.ssthresh,
                                RecoveryWindow::Ns2 => self.cwnd - self.inflation,
                            };
                            self.inflation = 0.0;
                            base
                        };
                        self.resend_head(now, cfg, out);
                    }
                    // RFC 6675: stay in recovery; the pipe decides what goes next. ns-2's
                    // Sack1 takes one more off its pipe_, restarts the timer (as here) and
                    // ends its backoff.
                    Variant::Sack => {
                        if cfg.ns2_sack() {
                            self.sack_pipe -= 1;
                            self.rto.end_backoff();
                        }
                        if prr {
                            self.prr_reduce(delivery, true, cfg);
                        }
                    }
                }
            }
        } else if (!syn_only || (cfg.handshake_ack_cwnd && !self.opener)) && !ece {
            // RFC 5681 §3.1: slow start below ssthresh, else congestion avoidance. ACKs
            // carrying ECN-Echo do not open the window (RFC 3168 §6.1.2). With
            // `handshake_ack_cwnd` the listener's handshake ACK counts too (BSD tcp_input).
            self.grow(now, delivered, self.cwnd < self.ssthresh, cfg);
        }
        self.dupacks = 0;
        if self.ecn_hold {
            // Held after an ECN-Echo at one segment: only the timer lets new data go, so it runs
            // on even with nothing outstanding, restarted by this ACK (ns-2 `newtimer` sets it
            // while cwnd_ < 1; tcp.cc).
            self.timers
                .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
        } else if self.snd_una >= self.snd_max {
            self.timers.set_deadline(Timer::Rto, None);
        } else if restart_timer {
            self.timers
                .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
        }
        if ece {
            self.on_ecn_echo(now, cfg);
        }
    }

    /// [`Self::on_ack`] of a duplicate ACK (`delivery`: what it delivered, for PRR with SACK).
    fn on_dup_ack(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>, delivery: Delivery) {
        self.dupacks += 1;
        let prr = self.prr_on(cfg);
        let delivery = if prr && cfg.variant != Variant::Sack {
            self.dup_delivered_more(cfg)
        } else {
            delivery
        };
        if self.in_recovery {
            if prr {
                self.prr_reduce(delivery, false, cfg);
            } else if cfg.variant != Variant::Sack {
                // Each further duplicate ACK means a segment left the network (RFC 5681 step 4).
                self.cwnd += cfg.mss.bytes() as f64;
                self.inflation += cfg.mss.bytes() as f64;
            }
        } else if self.loss_found(cfg) {
            self.start_recovery(now, cfg, out, delivery);
        }
    }

    /// Is a loss found, outside recovery? With RACK-TLP, a segment marked lost and not resent,
    /// outside a timeout's aftermath (Linux `tcp_time_to_recover`: `lost_out`); else `dupthresh`
    /// duplicate ACKs, or with RFC 6675 the first unacknowledged segment lost by IsLost.
    fn loss_found(&self, cfg: &TcpConfig) -> bool {
        if Self::rack_on(cfg) {
            return !self.in_loss && rack::first_lost(&self.sent_times, self.snd_una).is_some();
        }
        self.dupacks == cfg.dupthresh
            || (cfg.sack_recovery == SackRecovery::Rfc6675 && self.sack_says_lost(cfg))
    }

    /// A loss found outside recovery: fast retransmit and recovery, unless it belongs to the
    /// window already reduced for (`delivery`: what the ACK delivered, for PRR).
    fn start_recovery(
        &mut self,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
        delivery: Delivery,
    ) {
        let within_last_window = self.within_reduced_window();
        if within_last_window && !self.last_cut_ecn && cfg.recover_guard {
            // ns-2 bugFix_ / RFC 6582 §3.2 (the recover check): these duplicates belong to the
            // window we already reduced for; no second fast retransmit.
            return;
        }
        let cut = !(within_last_window && self.last_cut_ecn);
        self.enter_recovery(now, cfg, out, cut, delivery);
    }

    /// RFC 6675 §5 step 3.2: with SACK, recovery also starts once the first unacknowledged segment
    /// counts as lost, however many duplicate ACKs made it back.
    fn sack_says_lost(&self, cfg: &TcpConfig) -> bool {
        cfg.variant == Variant::Sack && {
            let (_, len, fin) = self.segment_at(self.snd_una, cfg);
            self.is_lost(self.snd_una, u64::from(len) + u64::from(fin), cfg)
        }
    }

    /// The controller grows the window on an ACK of `newly` new bytes.
    #[inline]
    fn grow(&mut self, now: Time, newly: u64, slow_start: bool, cfg: &TcpConfig) {
        let ack = Acked {
            now,
            bytes: newly,
            srtt_s: if self.cc.reads_srtt() {
                self.rto.srtt_s()
            } else {
                None
            },
            slow_start,
        };
        self.cc
            .on_ack(&mut self.cwnd, self.ssthresh, cfg.mss.bytes() as f64, ack);
    }

    /// The RTT sample of an ACK up to `ack`: from the newest segment it covers, unless it covers
    /// a retransmitted one (Karn).
    fn rtt_sample(&mut self, ack: u64, now: Time) -> Option<Time> {
        let (mut newest, mut resent) = (None, false);
        while let Some(s) = self.sent_times.front().filter(|s| s.end <= ack) {
            newest = Some(s.xmit);
            resent |= s.resent;
            self.sent_times.pop_front();
        }
        newest.filter(|_| !resent).map(|at| now - at)
    }

    /// Fast recovery ends with a new ACK of `newly` bytes (`ece`: it carries ECN-Echo).
    fn end_recovery(&mut self, now: Time, newly: u64, cfg: &TcpConfig, ece: bool) {
        self.in_recovery = false;
        // Linux tcp_reset_reno_sack when recovery ends.
        self.dup_delivered = 0;
        if self.cc.is_bbr() {
            // BBR restores its window itself (bbr_set_cwnd_to_recover_or_restore).
            self.c.recoveries += 1;
            self.c.recovery_ns += (now - self.recovery_since).0;
            return;
        }
        if cfg.ns2_sack() {
            // Sack1: `recover_ = 0` when fast recovery ends.
            self.recover = 0;
        }
        let mss = cfg.mss.bytes() as f64;
        // cwnd as recovery leaves it, and whether this ACK then opens it (Some: in slow start?).
        let open = match (cfg.recovery_window, cfg.recovery_exit_deflate_at) {
            // ns-2 (exitFastRetrans_): dupwnd_ = 0, cwnd_ stays the halved window, and the ACK
            // opens it as any new ACK does (Reno, NewReno: recv_newack_helper → opencwnd); Sack1
            // ends recovery with newack alone (tcp-sack1.cc), the window as it is.
            (RecoveryWindow::Ns2, _) => {
                self.cwnd = (self.cwnd - self.inflation).max(mss);
                (cfg.variant != Variant::Sack).then_some(self.cwnd < self.ssthresh)
            }
            (RecoveryWindow::Rfc, None) => {
                self.cwnd = self.ssthresh;
                None
            }
            // FreeBSD 2.2 / 4.4BSD-Lite2 tcp_input.c: deflate only after enough duplicates,
            // then the ordinary "open the congestion window" step on the same ACK, whose
            // slow-start branch covers cw == ssthresh (`if (cw > snd_ssthresh)` is congestion
            // avoidance).
            (RecoveryWindow::Rfc, Some(n)) => {
                if self.dupacks >= n && self.cwnd > self.ssthresh {
                    self.cwnd = self.ssthresh;
                }
                Some(self.cwnd <= self.ssthresh)
            }
        };
        self.inflation = 0.0;
        self.cc.on_recovery_exit(now, self.cwnd, mss);
        if let (Some(slow_start), false) = (open, ece) {
            self.grow(now, newly, slow_start, cfg);
        }
        self.c.recoveries += 1;
        self.c.recovery_ns += (now - self.recovery_since).0;
    }

    /// Does the cumulative ACK still lie within the window of the last reduction? ns-2 reacts again
    /// only when `highest_ack > recover_` (the ACK covers data sent after the reduction), RFC 6582
    /// when the ACK "covers more than recover".
    fn within_reduced_window(&self) -> bool {
        self.snd_una <= self.recover
    }

    /// The window in force (BSD tcp_input, ns-2 `slowdown`) or the data in flight without what
    /// limited transmit sent (RFC 5681 eq. 4 and §3.2 step 2), reduced by the controller (Reno:
    /// halved), in whole segments.
    fn reduced_window_segments(&self, cfg: &TcpConfig) -> f64 {
        self.cc
            .reduced_segments(self.window_to_halve(cfg), cfg.mss.bytes() as f64)
    }

    /// The window a reduction halves, in bytes, as the profile's `halve` says.
    fn window_to_halve(&self, cfg: &TcpConfig) -> f64 {
        match cfg.halve {
            Halve::Window => self.cwnd.min(self.snd_wnd as f64),
            Halve::FlightSize => (self.snd_max - self.snd_una - self.limited_bytes) as f64,
        }
    }

    /// The window in bytes after a halving: whole segments, or its exact half with
    /// `precise_reduce` (ns-2 `halfwin = windowd() / 2`); at least one segment.
    fn halved_window(&self, cfg: &TcpConfig) -> f64 {
        let mss = cfg.mss.bytes() as f64;
        if cfg.precise_reduce && self.cc.is_reno() {
            (self.window_to_halve(cfg) / 2.0).max(mss)
        } else {
            self.reduced_window_segments(cfg).max(1.0) * mss
        }
    }

    /// Congestion (a loss, a timeout or an ECN-Echo): the controller hears of it, and ssthresh
    /// falls to the reduced window, at least two segments.
    fn reduce_ssthresh(&mut self, cfg: &TcpConfig) {
        self.reduce_ssthresh_from(self.window_to_halve(cfg), cfg);
    }

    /// [`Self::reduce_ssthresh`] with the window to reduce given.
    fn reduce_ssthresh_from(&mut self, window: f64, cfg: &TcpConfig) {
        let mss = cfg.mss.bytes() as f64;
        let cwnd = self.cwnd;
        if let Some(b) = self.cc.bbr() {
            // bbr_ssthresh: the window is saved to restore later; ssthresh stays.
            b.save_cwnd((cwnd / mss).round() as u64);
            return;
        }
        self.cc.on_congestion(self.cwnd, mss);
        self.ssthresh = self.cc.reduced_segments(window, mss).max(2.0) * mss;
    }

    /// Fast retransmit and the start of fast recovery, on a duplicate ACK that delivered
    /// `delivery` (for PRR).
    fn enter_recovery(
        &mut self,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
        cut: bool,
        delivery: Delivery,
    ) {
        let mss = cfg.mss.bytes() as f64;
        let prior_cwnd = self.cwnd;
        let halved = (cut && cfg.precise_reduce).then(|| self.halved_window(cfg));
        if cut {
            self.reduce_ssthresh(cfg);
        }
        let base = halved.unwrap_or(self.ssthresh);
        self.recover = self.snd_max;
        self.last_cut_ecn = false;
        self.in_recovery = true;
        self.in_loss = false;
        self.recovery_since = now;
        self.partial_acks = 0;
        self.timed = None;
        // A reduction ends a loss probe's episode (Linux tcp_init_cwnd_reduction).
        self.rack.tlp_end = None;
        self.c.fast_rexmits += 1;
        // Reno / NewReno inflate by dupthresh segments at the fast retransmit: RFC 5681 §3.2,
        // and ns-2 too (`dupwnd_ = numdupacks_` in dupack_action, tcp-reno.cc, tcp-newreno.cc,
        // whatever exitFastRetrans_ says), where that inflation is dupwnd_, not cwnd_.
        let reno_like = matches!(cfg.variant, Variant::Reno | Variant::NewReno);
        self.inflation = match (reno_like, cfg.recovery_window) {
            (true, RecoveryWindow::Ns2) => f64::from(cfg.dupthresh) * mss,
            _ => 0.0,
        };
        self.high_rxt = self.snd_una;
        if self.cc.is_bbr() {
            // BBR sets the window on this ACK (packet conservation), and the retransmission
            // is paced: the send that follows the ACK takes it (RFC 6675 NextSeg rule 1).
            return;
        }
        if self.prr_on(cfg) {
            // Linux tcp_init_cwnd_reduction, then tcp_cwnd_reduction for this ACK (which lets
            // at least the fast retransmission go).
            self.prr = Prr {
                prior_cwnd: ((prior_cwnd / mss) as u64).max(1),
                delivered: 0,
                out: 0,
            };
            self.prr_reduce(delivery, false, cfg);
        } else {
            self.cwnd = if reno_like {
                base + f64::from(cfg.dupthresh) * mss
            } else {
                base
            };
        }
        self.timers.set_deadline(Timer::Rto, None);
        self.resend_head(now, cfg, out);
        if cfg.ns2_sack() {
            // Sack1 dupack_action: dupthresh segments have left the network; the fast
            // retransmission itself is not counted.
            let outstanding = (self.snd_max - self.snd_una).div_ceil(cfg.mss.bytes());
            self.sack_pipe = outstanding as i64 - i64::from(cfg.dupthresh);
        }
    }

    /// Does PRR set the window in fast recovery? Not for BBR, which sets its own (Linux: a
    /// `cong_control` hook is called instead of `tcp_cwnd_reduction`).
    #[inline]
    fn prr_on(&self, cfg: &TcpConfig) -> bool {
        *cfg.recovery_cwnd == RecoveryCwnd::Prr && !self.cc.is_bbr()
    }

    /// The bytes SACKed above `snd_una` and where RFC 6675's IsLost begins
    /// ([`RangeSet::lost_edge`]): taken before an ACK's SACK blocks are recorded, to tell what
    /// the ACK changed.
    fn marks(&self, cfg: &TcpConfig) -> (u64, Option<u64>) {
        let threshold = u64::from(cfg.dupthresh - 1) * cfg.mss.bytes();
        (
            self.sacked.bytes_above(self.snd_una),
            self.sacked.lost_edge(threshold),
        )
    }

    /// What an ACK up to `ack` whose SACK blocks are recorded delivered, given the [`Self::marks`]
    /// from before: RFC 6937's DeliveredData (the change in `snd_una` plus the change in SACKed
    /// bytes) in segments, and whether a segment not yet SACKed, above the new `snd_una`, now
    /// counts as lost (RFC 6675 IsLost) where it did not before.
    fn sack_delivery(
        &self,
        (sacked_before, edge_before): (u64, Option<u64>),
        ack: u64,
        cfg: &TcpConfig,
    ) -> Delivery {
        let mss = cfg.mss.bytes();
        let una = self.snd_una.max(ack);
        let bytes =
            (una - self.snd_una + self.sacked.bytes_above(una)).saturating_sub(sacked_before);
        let threshold = u64::from(cfg.dupthresh - 1) * mss;
        let newly_lost = self.sacked.lost_edge(threshold).is_some_and(|edge| {
            let lo = edge_before.unwrap_or(0).max(una);
            edge > lo && edge - lo > self.sacked.bytes_above(lo) - self.sacked.bytes_above(edge)
        });
        Delivery {
            segments: bytes.div_ceil(mss),
            newly_lost,
        }
    }

    /// A duplicate ACK without SACK: one more segment has arrived, at most all outstanding but
    /// one (Linux `tcp_add_reno_sack`, `tcp_limit_reno_sacked`). What it delivered.
    fn dup_delivered_more(&mut self, cfg: &TcpConfig) -> Delivery {
        let outstanding = (self.snd_max - self.snd_una).div_ceil(cfg.mss.bytes());
        let before = self.dup_delivered;
        self.dup_delivered = (before + 1).min(outstanding.saturating_sub(1));
        Delivery {
            segments: self.dup_delivered.saturating_sub(before),
            newly_lost: false,
        }
    }

    /// A cumulative ACK of `newly` bytes without SACK (Linux `tcp_remove_reno_sacks`): one of
    /// its segments filled the hole, the others were reported by duplicate ACKs already, so it
    /// delivered the segments it covers less those, at least one; and the segment now first
    /// counts as lost (`tcp_newreno_mark_lost`, read only in recovery).
    fn dup_delivered_acked(&mut self, newly: u64, cfg: &TcpConfig) -> Delivery {
        let acked = newly.div_ceil(cfg.mss.bytes());
        let segments = acked.saturating_sub(self.dup_delivered).max(1);
        self.dup_delivered = self.dup_delivered.saturating_sub(acked.saturating_sub(1));
        Delivery {
            segments,
            newly_lost: true,
        }
    }

    /// Segments in flight as Linux counts them (`tcp_packets_in_flight`): RFC 6675's pipe with
    /// SACK; without it the segments outstanding, less those the duplicate ACKs reported and
    /// less the first one while it is lost and not yet resent.
    fn prr_in_flight(&self, cfg: &TcpConfig) -> u64 {
        let mss = cfg.mss.bytes();
        if cfg.variant == Variant::Sack {
            return self.pipe(cfg).div_ceil(mss);
        }
        let outstanding = (self.snd_max - self.snd_una).div_ceil(mss);
        let lost_head = u64::from(self.high_rxt <= self.snd_una);
        outstanding.saturating_sub(self.dup_delivered + lost_head)
    }

    /// PRR on an ACK in fast recovery that delivered `delivery` (`una_advanced`: it acknowledged
    /// new data), as Linux's `tcp_cwnd_reduction` (RFC 6937 with the slow-start reduction bound):
    /// cwnd becomes the segments in flight plus `sndcnt`, the segments this ACK lets go. An ACK
    /// that delivered nothing leaves cwnd alone.
    fn prr_reduce(&mut self, delivery: Delivery, una_advanced: bool, cfg: &TcpConfig) {
        if delivery.segments == 0 {
            return;
        }
        let mss = cfg.mss.bytes();
        let in_flight = self.prr_in_flight(cfg) as i64;
        let ssthresh = (self.ssthresh / mss as f64).min(f64::from(u32::MAX)) as i64;
        self.prr.delivered += delivery.segments;
        let (delivered, sent) = (self.prr.delivered as i64, self.prr.out as i64);
        let mut sndcnt = if in_flight > ssthresh {
            // Proportional: ssthresh / RecoverFS of what was delivered, rounded up, less what
            // was sent.
            let prior = self.prr.prior_cwnd as i64;
            (ssthresh * delivered + prior - 1) / prior - sent
        } else {
            // Back up toward ssthresh: what was delivered and not yet answered (at least this
            // ACK's), one more on an ACK that advanced snd_una and marked no new loss.
            let safe = una_advanced && !delivery.newly_lost;
            ((delivered - sent).max(delivery.segments as i64) + i64::from(safe))
                .min(ssthresh - in_flight)
        };
        if sent == 0 {
            // The fast retransmission goes on the ACK that starts recovery.
            sndcnt = sndcnt.max(1);
        }
        self.cwnd = ((in_flight + sndcnt).max(1) as u64 * mss) as f64;
    }

    /// RFC 3168 §6.1.2: halve once per window of data, then set CWR on the next new segment.
    fn on_ecn_echo(&mut self, now: Time, cfg: &TcpConfig) {
        if self.in_recovery || self.within_reduced_window() {
            return;
        }
        if self.cc.is_bbr() {
            // Linux tcp_enter_cwr: ssthresh (BBR saves its window), CWR on the next segment;
            // with a cong_control hook no reduction follows: BBR v1 does not answer ECN.
            self.reduce_ssthresh(cfg);
            self.recover = self.snd_max;
            self.last_cut_ecn = true;
            self.cwr_pending = true;
            return;
        }
        let mss = cfg.mss.bytes() as f64;
        let one_segment = self.cwnd <= mss;
        // ssthresh keeps its floor of two segments, cwnd only of one (ns-2 `slowdown`).
        let halved = self.halved_window(cfg);
        self.reduce_ssthresh(cfg);
        self.cwnd = halved;
        if one_segment {
            // ns-2 `ecn`: the first answer at one segment arms `ecn_backoff_`, each later one
            // doubles the timeout (`rtt_backoff`) until the window grows past one segment.
            if cfg.ecn_backoff && std::mem::replace(&mut self.ecn_backoff_armed, true) {
                self.rto.back_off();
            }
            // RFC 3168 §6.1.2: with a window of one, reset the retransmit timer and send the next
            // new packet only when it expires.
            self.ecn_hold = true;
            self.timers
                .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
        } else {
            self.ecn_backoff_armed = false;
        }
        self.recover = self.snd_max;
        self.last_cut_ecn = true;
        self.cwr_pending = true;
        self.c.ecn_reductions += 1;
    }

    /// The receiving side: reassembly, ACK policy, ECN echo.
    fn on_data(&mut self, seg: &Segment, ce: bool, now: Time, cfg: &TcpConfig) {
        let fin = seg.has(flags::FIN);
        let (seq, end) = (seg.seq, seg_end(seg.seq, seg.len, fin));
        if fin {
            self.peer_fin = Some(seq + u64::from(seg.len));
        }
        // RFC 3168 §6.1.3: echo ECE from a CE mark until a segment with CWR arrives.
        if seg.has(flags::CWR) {
            self.ece_pending = false;
        }
        if ce {
            self.ece_pending = true;
        }
        if end <= self.rcv_nxt {
            self.ack_now = true; // a duplicate: acknowledge at once
            return;
        }
        if seq > self.rcv_nxt {
            // Out of order: keep it, acknowledge at once (RFC 5681 §4.2) with SACK blocks.
            let block = self.ooo.insert(seq, end);
            if cfg.variant == Variant::Sack {
                self.remember_sack(block);
            }
            self.ack_now = true;
            return;
        }
        let had_gap = !self.ooo.is_empty();
        self.rcv_nxt = end;
        while let Some(e) = self.ooo.pop_through(self.rcv_nxt) {
            self.rcv_nxt = self.rcv_nxt.max(e);
        }
        self.forget_sacks_below();
        if self.fin_received() {
            self.ack_now = true;
            if self.close_on_peer_fin {
                self.close = true;
            }
        } else if had_gap || cfg.delack == DelAck::Off {
            self.ack_now = true;
        } else if matches!(cfg.delack, DelAck::WindowUpdate | DelAck::Ns2FullTcp) {
            // Bytes, not segments, since this end last sent: BSD's read calls tcp_output, which
            // sends the window update once the window can grow by 2·MSS bytes or half the buffer
            // (tcp_output.c), else the fast timer's next tick does (tcp_fasttimo); ns-2's FullTcp
            // sends at one MSS (`need_send`), else at its timer's next tick, on a grid from zero.
            if self.ack_owed(cfg) {
                self.ack_now = true;
            } else {
                self.ack_pending += 1;
                if self.timers.deadline(Timer::DelAck).is_none() {
                    let phase = match cfg.delack {
                        DelAck::Ns2FullTcp => Time::ZERO,
                        _ => self.phase,
                    };
                    let at = nth_tick_after(now, 1, cfg.delack_time, phase);
                    self.timers.set_deadline(Timer::DelAck, Some(at));
                }
            }
        } else {
            self.ack_pending += 1;
            if self.ack_pending >= 2 {
                self.ack_now = true;
            } else if self.timers.deadline(Timer::DelAck).is_none() {
                let at = match cfg.delack {
                    DelAck::Heartbeat => nth_tick_after(now, 1, cfg.delack_time, self.phase),
                    _ => now + cfg.delack_time,
                };
                self.timers.set_deadline(Timer::DelAck, Some(at));
            }
        }
    }

    /// Has this end received enough since it last sent a segment to acknowledge at once, by the
    /// byte rules of `window-update` (2·MSS, or half the buffer) and `ns2-fulltcp` (one MSS)?
    fn ack_owed(&self, cfg: &TcpConfig) -> bool {
        let adv = self.rcv_nxt - self.rcv_adv_base;
        match cfg.delack {
            DelAck::Ns2FullTcp => adv >= cfg.mss.bytes(),
            _ => adv >= 2 * cfg.mss.bytes() || 2 * adv >= Self::buffer(cfg),
        }
    }

    /// RFC 2018 §4: the first block holds the latest segment, then the most recently reported.
    fn remember_sack(&mut self, (start, end): (u64, u64)) {
        let mut next = [SackBlock::default(); 3];
        next[0] = SackBlock { start, end };
        let mut n = 1;
        for b in &self.sack_recent[..usize::from(self.nsack_recent)] {
            let overlaps = b.start <= end && start <= b.end;
            if n < 3 && !overlaps && b.end > self.rcv_nxt {
                next[n] = *b;
                n += 1;
            }
        }
        self.sack_recent = next;
        self.nsack_recent = n as u8;
    }

    /// Drop the blocks `rcv_nxt` has reached; the places they leave become zero.
    fn forget_sacks_below(&mut self) {
        if self.nsack_recent == 0 {
            return;
        }
        let mut kept = [SackBlock::default(); 3];
        let mut n = 0;
        for b in &self.sack_recent[..usize::from(self.nsack_recent)] {
            if b.end > self.rcv_nxt {
                kept[n] = *b;
                n += 1;
            }
        }
        self.sack_recent = kept;
        self.nsack_recent = n as u8;
    }

    // ----- timers -----

    /// Timer `which` expired at `now`.
    pub fn on_timer(&mut self, which: Timer, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        self.timers.set_deadline(which, None);
        if Self::rack_on(cfg) {
            self.rack.before = Some((self.snd_una, self.snd_max));
        }
        match which {
            // With RACK-TLP the retransmission timer may stand for the loss probe or the end of
            // a reordering window (Linux `tcp_write_timer_handler`).
            Timer::Rto if Self::rack_on(cfg) && self.rack.slot == Slot::Probe => {
                return self.send_probe(now, cfg, out);
            }
            Timer::Rto if Self::rack_on(cfg) && self.rack.slot == Slot::Reorder => {
                self.reorder_timeout(now, cfg, out)
            }
            Timer::Rto => self.on_rto(now, cfg, out),
            Timer::DelAck => {
                if self.ack_pending > 0 {
                    // With FullTcp's Nagle rule the tick's ACK takes held data along (`foutput`:
                    // `need_send`); otherwise it goes alone.
                    self.ack_now = true;
                    if cfg.nagle {
                        self.transmit(now, cfg, out);
                    }
                    if self.ack_now {
                        self.send_ack(now, cfg, out);
                    }
                }
            }
            Timer::Send => self.transmit(now, cfg, out),
            Timer::Connect => {
                if self.state != State::Established {
                    self.fail();
                }
            }
        }
        if Self::rack_on(cfg) {
            self.rack_rearm(now, cfg);
        }
    }

    fn fail(&mut self) {
        self.state = State::Failed;
        self.timers.stop_all();
    }

    fn on_rto(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        if self.ecn_hold {
            // The wait RFC 3168 §6.1.2 imposes after an ECN-Echo at one segment is over: not a
            // loss, so no backoff and no window change, when nothing is outstanding. With data
            // still unacknowledged it is a retransmission timeout as any other (ns-2: the timer
            // that ends the wait is the retransmit timer, tcp.cc `timeout`), or that data would
            // be left with no timer at all.
            self.ecn_hold = false;
            if self.snd_una >= self.snd_max {
                self.transmit(now, cfg, out);
                return;
            }
        }
        self.c.timeouts += 1;
        let handshaking = matches!(self.state, State::SynSent | State::SynRcvd);
        if self.rto.backoff() == 1 && !handshaking {
            self.c.first_timeouts += 1;
            self.c.first_timeout_ns += self.rto.timeout().0;
        }
        self.retries += 1;
        if let RetryLimit::After(n) = cfg.max_retries {
            if self.retries > n {
                self.fail();
                return;
            }
        }
        // The loss this timeout answers timed out before: backed off since, and the data
        // outstanding at that timeout is not all acknowledged.
        let again = self.rto.backoff() > 1 && self.snd_una < self.recover;
        self.rto.back_off();
        match self.state {
            State::SynSent | State::SynRcvd => self.send_syn(now, cfg, out),
            State::Established if self.snd_una < self.snd_max => {
                // RFC 5681 §3.1 (5): ssthresh to half the window, cwnd to one segment, go back to
                // the first unacknowledged byte. ns-2: after an ECN cut within this window, only
                // cwnd drops.
                // PRR's window (validated: with `recovery_window = "rfc"`) likewise starts from
                // ssthresh, so that the timeout reduces the same window as without it.
                let prr = self.prr_on(cfg);
                if self.in_recovery && (cfg.variant != Variant::Sack || prr) && !cfg.rto.is_bsd() {
                    // ns-2 zeroes the fast-recovery inflation (dupwnd_) before halving; BSD inflates
                    // snd_cwnd itself and halves the inflated window.
                    self.cwnd = match cfg.recovery_window {
                        RecoveryWindow::Rfc => self.ssthresh,
                        RecoveryWindow::Ns2 => self.cwnd - self.inflation,
                    };
                }
                self.inflation = 0.0;
                let held = again && cfg.timeout.ssthresh == TimeoutSsthresh::Once;
                if !(held || self.within_reduced_window() && self.last_cut_ecn) {
                    let mut window = self.window_to_halve(cfg);
                    if cfg.halve == Halve::FlightSize {
                        // What the receiver has SACKed is not in flight.
                        window -= self.sacked.bytes_above(self.snd_una) as f64;
                    }
                    self.reduce_ssthresh_from(window, cfg);
                }
                self.cwnd = cfg.mss.bytes() as f64;
                self.cc.on_rto();
                let snd_max = self.snd_max;
                if let Some(b) = self.cc.bbr() {
                    b.on_rto(snd_max);
                }
                self.recover = self.snd_max;
                self.last_cut_ecn = false;
                self.in_recovery = false;
                self.dupacks = 0;
                // Linux tcp_enter_loss: tcp_reset_reno_sack.
                self.dup_delivered = 0;
                self.partial_acks = 0;
                self.after_timeout = cfg.ns2_sack();
                // ns-2 Sack1 and most stacks of the era discard the scoreboard on a timeout;
                // Linux keeps it (tcp_enter_loss) and resends only the holes.
                match cfg.timeout.sack_after_rto {
                    SackAfterRto::Discard => self.sacked.clear(),
                    SackAfterRto::Keep => self.in_loss = true,
                }
                self.high_rxt = self.snd_una;
                self.timed = None;
                if Self::rack_on(cfg) {
                    // Linux tcp_timeout_mark_lost: everything not SACKed is lost, and the
                    // retransmission queue resends it as cwnd allows (`rack_next`); the probe's
                    // episode ends.
                    rack::mark_all_lost(&mut self.sent_times);
                    self.rack.tlp_end = None;
                } else {
                    self.snd_nxt = self.snd_una;
                }
                // The go-back-N resends the first segment (paced) anyway.
                self.resend_held = false;
                self.transmit(now, cfg, out);
                // Linux tcp_retransmit_timer (out_reset_timer): the timer runs again, backed
                // off, whether or not the resend went (a paced sender may hold it).
                if self.timers.deadline(Timer::Rto).is_none() {
                    self.timers
                        .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
                }
            }
            _ => {}
        }
    }

    // ----- output -----

    /// The application has something new to send (or the connection just started): send it.
    pub fn kick(&mut self, now: Time, cfg: &TcpConfig, rng: &mut Rng, out: &mut Vec<Out>) {
        if Self::rack_on(cfg) {
            self.rack.before = Some((self.snd_una, self.snd_max));
        }
        self.output(now, cfg, rng, out, false);
        if Self::rack_on(cfg) {
            self.rack_rearm(now, cfg);
        }
    }

    /// After input: send what the window allows (now, or after the ns-2 `overhead_` delay), then a
    /// pure ACK if one is still owed. Inline: every segment ends here (`on_segment`), and as a
    /// call it cost its own prologue and the reloading of what `on_segment` had at hand.
    #[inline(always)]
    fn output(
        &mut self,
        now: Time,
        cfg: &TcpConfig,
        rng: &mut Rng,
        out: &mut Vec<Out>,
        ack_clocked: bool,
    ) {
        if self.state == State::Established {
            if cfg.overhead > Time::ZERO && ack_clocked {
                if self.timers.deadline(Timer::Send).is_none() {
                    let delay = Time((rng.uniform() * cfg.overhead.0 as f64) as u64);
                    self.timers.set_deadline(Timer::Send, Some(now + delay));
                }
            } else {
                self.transmit(now, cfg, out);
            }
        }
        if self.ack_now {
            self.send_ack(now, cfg, out);
        }
    }

    /// The segment that starts at `seq`: data up to one MSS, or the FIN. With `fin_piggyback`, the
    /// segment with the last byte of a closed connection carries the FIN too.
    fn segment_at(&self, seq: u64, cfg: &TcpConfig) -> (u64, u32, bool) {
        if seq < self.sb_end {
            let len = (self.sb_end - seq).min(cfg.mss.bytes());
            let fin = cfg.fin_piggyback && self.fin_after(seq + len, cfg);
            (seq, len as u32, fin)
        } else {
            (seq, 0, true)
        }
    }

    /// Is a FIN due right after `end` (the application has closed and `end` is its last byte)?
    fn fin_after(&self, end: u64, cfg: &TcpConfig) -> bool {
        self.close && cfg.handshake.has_fin() && end == self.data_end
    }

    /// Send while the window allows. A write still to be handed over in `send_chunk` pieces goes
    /// one piece per send attempt (BSD `sosend`: `pru_send`, hence `tcp_output`, per cluster)
    /// until a full segment is waiting at `snd_nxt`: then more pieces cannot change what is sent,
    /// and the rest is handed over at once.
    fn transmit(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        if self.state != State::Established {
            return;
        }
        if self.sb_end >= self.data_end {
            if !self.nothing_to_send(cfg) {
                self.transmit_once(now, cfg, out);
            }
            return;
        }
        loop {
            self.sb_end = (self.sb_end + self.send_chunk).min(self.data_end);
            self.transmit_once(now, cfg, out);
            if self.sb_end == self.data_end
                || self.sb_end.saturating_sub(self.snd_nxt) >= cfg.mss.bytes()
            {
                self.sb_end = self.data_end;
                return;
            }
        }
    }

    /// A quick test that a send attempt would find nothing to send (`next_to_send` would say
    /// None): no data handed over at or past `snd_nxt` (where `new_segment` looks, past SACKed
    /// data in the loss state), no FIN due (the application has not closed), no SACK recovery
    /// or loss state (which may resend below `snd_nxt`) and no resend held by pacing. A receiver's usual case, which then skips the attempt
    /// and the window arithmetic set up for it.
    #[inline]
    fn nothing_to_send(&self, cfg: &TcpConfig) -> bool {
        !(self.close
            || self.snd_nxt < self.sb_end
            || (cfg.variant == Variant::Sack && (self.in_recovery || self.in_loss))
            || self.resend_held)
    }

    /// One send attempt (BSD `tcp_output`): send while the window allows.
    fn transmit_once(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        // tcp_output.c: `idle = (tp->snd_max == tp->snd_una)`, once per call.
        let idle = self.snd_max == self.snd_una;
        // Worked out once: a send changes none of what the window depends on.
        let wnd = self.send_window(cfg);
        let paced = self.paced;
        // Only a paced sender holds a resend.
        if paced && self.resend_held && !self.release_resend(now, cfg, out) {
            return;
        }
        while let Some((seq, len, fin)) = self.next_to_send(idle, wnd, cfg) {
            if paced {
                if let Some(at) = self.pacer.wait(now) {
                    // Paced (Linux tcp_pacing_check): the send timer releases it.
                    self.timers.set_deadline(Timer::Send, Some(at));
                    break;
                }
            }
            self.send_inline(seq, len, fin, now, cfg, out);
        }
    }

    /// Resend the first segment presumed lost ([`Self::first_hole`]: a fast retransmission, a
    /// NewReno partial ACK's). A paced sender holds it until its pacing clock allows: the send
    /// timer releases it ([`Self::release_resend`]) before anything else goes, the
    /// retransmission timer running meanwhile (Linux paces retransmissions too:
    /// `tcp_xmit_retransmit_queue` stops at `tcp_pacing_check`).
    fn resend_head(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        if let Some(at) = self.paced.then(|| self.pacer.wait(now)).flatten() {
            self.resend_held = true;
            self.timers.set_deadline(Timer::Send, Some(at));
            if self.timers.deadline(Timer::Rto).is_none() {
                self.timers
                    .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
            }
            return;
        }
        let (seq, len, fin) = self.segment_at(self.first_hole(cfg), cfg);
        self.send(seq, len, fin, now, cfg, out);
    }

    /// The first segment presumed lost: with RACK-TLP the first marked lost and not resent
    /// (Linux's retransmission queue), else the first unacknowledged.
    fn first_hole(&self, cfg: &TcpConfig) -> u64 {
        let lost = Self::rack_on(cfg)
            .then(|| rack::first_lost(&self.sent_times, self.snd_una))
            .flatten();
        lost.unwrap_or(self.snd_una)
    }

    /// The held resend of [`Self::resend_head`] goes if the pacing clock allows (and the segment
    /// is still unacknowledged and not SACKed); if not, the send timer is set for it. Whether
    /// other segments may follow it now.
    #[inline(never)]
    fn release_resend(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) -> bool {
        if let Some(at) = self.pacer.wait(now) {
            self.timers.set_deadline(Timer::Send, Some(at));
            return false;
        }
        self.resend_held = false;
        let hole = self.first_hole(cfg);
        if hole < self.snd_max && !self.sacked.contains(hole) {
            let (seq, len, fin) = self.segment_at(hole, cfg);
            self.send(seq, len, fin, now, cfg, out);
        }
        true
    }

    /// The window for new data outside SACK recovery, in bytes: cwnd, plus one segment per
    /// duplicate ACK during limited transmit (RFC 3042: on the first two duplicate ACKs, one new
    /// segment each), at most the peer's window; and whether limited transmit is on. It depends
    /// only on what `send` leaves alone (cwnd, the duplicate ACKs, recovery, the peer's window).
    fn send_window(&self, cfg: &TcpConfig) -> SendWindow {
        let mut wnd = self.cwnd;
        let limited = cfg.limited_transmit.is_on()
            && !self.in_recovery
            && self.dupacks > 0
            && self.dupacks < cfg.dupthresh;
        if self.in_recovery && cfg.variant != Variant::Sack && self.prr_on(cfg) {
            // PRR's cwnd counts what is in flight, and the segments the duplicate ACKs report
            // are not: the data outstanding may exceed cwnd by them.
            wnd += (self.dup_delivered * cfg.mss.bytes()) as f64;
        }
        let extra = if limited {
            f64::from(self.dupacks) * cfg.mss.bytes() as f64
        } else {
            0.0
        };
        let rwnd = self.snd_wnd as f64;
        SendWindow {
            bytes: (wnd + extra).min(rwnd) as u64,
            limited,
            without_limited: wnd.min(rwnd) as u64,
        }
    }

    /// The sender's SWS / Nagle rule (with `send_chunk`; 4.4BSD-Lite2 / FreeBSD 2.2 tcp_output.c): hold a
    /// new segment shorter than the MSS unless the connection was idle at the start of this send
    /// attempt (a short segment always reaches the end of the data handed over), it is at least
    /// half the peer's window (`max_sndwnd / 2`), or the application has closed and it reaches
    /// the end (a pending FIN forces a send). Retransmissions are never held.
    fn nagle_holds(&self, (seq, len, _): (u64, u32, bool), idle: bool, cfg: &TcpConfig) -> bool {
        let len = u64::from(len);
        if cfg.nagle {
            return self.fulltcp_nagle_holds(seq, len, cfg);
        }
        self.send_chunk > 0
            && len > 0
            && len < cfg.mss.bytes()
            && seq >= self.snd_max
            && !idle
            && len < self.snd_wnd / 2
            && !self.fin_after(seq + len, cfg)
    }

    /// ns-2 FullTcp's Nagle rule (`nagle`; `tcp-full.cc` `foutput`): hold a new segment shorter
    /// than the MSS unless nothing is outstanding now (`quiet`: the segment, being short, ends
    /// the data written), it is at least half the peer's window, or an ACK is owed, which it
    /// carries (`need_send`). Retransmissions are never held.
    fn fulltcp_nagle_holds(&self, seq: u64, len: u64, cfg: &TcpConfig) -> bool {
        len > 0
            && len < cfg.mss.bytes()
            && seq >= self.snd_max
            && self.snd_una < self.snd_max
            && 2 * len < self.snd_wnd
            && !self.ack_now
            && !(cfg.delack == DelAck::Ns2FullTcp && self.ack_owed(cfg))
    }

    /// What may go next, if anything; `idle`: nothing was outstanding when this attempt began;
    /// `wnd`: [`Self::send_window`].
    fn next_to_send(
        &self,
        idle: bool,
        wnd: SendWindow,
        cfg: &TcpConfig,
    ) -> Option<(u64, u32, bool)> {
        let mss = cfg.mss.bytes();
        let rwnd = self.snd_wnd;
        if self.ecn_hold {
            return None;
        }
        if self.in_recovery && cfg.ns2_sack() {
            // Sack1 send_much: while pipe_ < int(cwnd_), the next unSACKed segment not yet
            // resent (GetNextRetran), else new data the receiver's window allows.
            if self.sack_pipe >= (self.cwnd / mss as f64).floor() as i64 {
                return None;
            }
            if let Some(seq) = self.next_unsacked() {
                return Some(self.segment_at(seq, cfg));
            }
            return self
                .new_segment(cfg)
                .filter(|&(seq, len, _)| seg_end(seq, len, false) <= self.snd_una + rwnd);
        }
        if Self::rack_on(cfg) && (self.in_recovery || self.in_loss) {
            return self.rack_next(idle, cfg);
        }
        if self.in_recovery && cfg.variant == Variant::Sack {
            // RFC 6675 §5 (C): send while cwnd − pipe ≥ 1 SMSS; NextSeg rules 1, 2, then 3.
            if self.cwnd < (self.pipe(cfg) + mss) as f64 {
                return None;
            }
            if let Some(seq) = self.next_lost(cfg) {
                return Some(self.segment_at(seq, cfg));
            }
            if let Some(seg) = self.new_segment(cfg) {
                if seg_end(seg.0, seg.1, false) <= self.snd_una + rwnd
                    && !self.nagle_holds(seg, idle, cfg)
                {
                    return Some(seg);
                }
            }
            return self.next_unsacked().map(|seq| self.segment_at(seq, cfg));
        }
        // Nothing new to send (a receiver, or all data sent): no window to work out.
        let (seq, len, fin) = self.new_segment(cfg)?;
        // RFC 3042: one new segment per duplicate ACK, sent only with nothing older unsent
        // (ns-2's singledup_ sends whatever is at snd_nxt). Older data unsent (a timeout's
        // go-back) goes within cwnd alone: the duplicate ACKs add nothing, and take nothing.
        let window = if wnd.limited
            && self.snd_nxt < self.snd_max
            && cfg.limited_transmit == LimitedTransmit::Rfc3042
        {
            wnd.without_limited
        } else {
            wnd.bytes
        };
        if fin && len == 0 {
            return Some((seq, len, fin));
        }
        // In the loss state SACKed data below `seq` is not in flight (Linux `tcp_packets_in_flight`).
        let sacked_below = if self.in_loss {
            self.sacked.bytes_above(self.snd_una) - self.sacked.bytes_above(seq)
        } else {
            0
        };
        let fits = seq + u64::from(len) - sacked_below <= self.snd_una + window;
        (fits && !self.nagle_holds((seq, len, fin), idle, cfg)).then_some((seq, len, fin))
    }

    /// The segment at `snd_nxt` (in the loss state, past SACKed data), if there is data or a FIN
    /// to send there.
    fn new_segment(&self, cfg: &TcpConfig) -> Option<(u64, u32, bool)> {
        let seq = match self.in_loss.then(|| self.sacked.range_of(self.snd_nxt)) {
            Some(Some((_, end))) => end,
            _ => self.snd_nxt,
        };
        let fin = self.fin_after(seq, cfg);
        if seq < self.sb_end || fin {
            Some(self.segment_at(seq, cfg))
        } else {
            None
        }
    }

    /// RFC 6675 IsLost: more than (DupThresh − 1)·SMSS bytes SACKed above the segment.
    fn is_lost(&self, seq: u64, len: u64, cfg: &TcpConfig) -> bool {
        self.sacked.bytes_above(seq + len) > u64::from(cfg.dupthresh - 1) * cfg.mss.bytes()
    }

    /// RFC 6675 SetPipe: bytes believed in flight (with RACK-TLP, by RACK's marks).
    fn pipe(&self, cfg: &TcpConfig) -> u64 {
        if Self::rack_on(cfg) {
            return rack::pipe(&self.sent_times, self.snd_una);
        }
        let mut pipe = 0;
        let mut seq = self.snd_una;
        while seq < self.snd_max {
            let (_, len, fin) = self.segment_at(seq, cfg);
            let n = u64::from(len) + u64::from(fin);
            if !self.sacked.contains(seq) {
                if !self.is_lost(seq, n, cfg) {
                    pipe += n;
                }
                if seq < self.high_rxt {
                    pipe += n;
                }
            }
            seq += n;
        }
        pipe
    }

    /// RFC 6675 NextSeg rule 1: the first unSACKed segment at or above HighRxt that is lost.
    fn next_lost(&self, cfg: &TcpConfig) -> Option<u64> {
        let top = self.sacked.end()?;
        let mut seq = self.high_rxt.max(self.snd_una);
        while seq < top.min(self.snd_max) {
            let (_, len, fin) = self.segment_at(seq, cfg);
            let n = u64::from(len) + u64::from(fin);
            match self.sacked.range_of(seq) {
                Some((_, e)) => seq = e,
                None if self.is_lost(seq, n, cfg) => return Some(seq),
                None => seq += n,
            }
        }
        None
    }

    /// RFC 6675 NextSeg rule 3: the first unSACKed segment at or above HighRxt and below the
    /// highest SACKed byte, lost or not.
    fn next_unsacked(&self) -> Option<u64> {
        let top = self.sacked.end()?.min(self.snd_max);
        let mut seq = self.high_rxt.max(self.snd_una);
        while seq < top {
            match self.sacked.range_of(seq) {
                Some((_, e)) => seq = e,
                None => return Some(seq),
            }
        }
        None
    }

    /// Put one segment on the wire: [`Self::send_inline`], out of line for the rarer callers
    /// (a fast retransmit, a partial ACK's retransmission).
    #[inline(never)]
    fn send(
        &mut self,
        seq: u64,
        len: u32,
        fin: bool,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
    ) {
        self.send_inline(seq, len, fin, now, cfg, out);
    }

    /// Put one segment on the wire. Inline in a send attempt's loop (`transmit_once`), which
    /// sends about one segment per ACK: as a call, its arguments and the loop's state went
    /// through the stack.
    #[inline(always)]
    fn send_inline(
        &mut self,
        seq: u64,
        len: u32,
        fin: bool,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Out>,
    ) {
        let rexmit = seq < self.snd_max;
        if self.in_recovery {
            // ns-2 Sack1's pipe_ counts each segment sent in fast recovery (read only with
            // `sack_recovery = "ns2"`; set when recovery starts), and so does PRR's prr_out
            // (read only with `recovery_cwnd = "prr"`).
            self.sack_pipe += 1;
            self.prr.out += 1;
        }
        let mut f = flags::ACK;
        if fin {
            f |= flags::FIN;
        }
        if self.ece_pending {
            f |= flags::ECE;
        }
        // RFC 3168 §6.1.5: retransmissions are not ECT.
        let ect = self.ecn_ok && len > 0 && !rexmit;
        if self.cwr_pending && len > 0 {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        let mut seg = Segment {
            seq,
            ack: self.rcv_nxt,
            len,
            flags: f,
            ..Segment::default()
        };
        self.add_sack_blocks(&mut seg, cfg);
        self.stamp(&mut seg, now, cfg);
        self.c.segs_sent += 1;
        if len > 0 {
            self.c.data_segs_sent += 1;
            if rexmit {
                self.c.data_rexmits += 1;
            }
        }
        // Counted by segment kind: a bare FIN sent before. A FIN riding on data counts with the
        // data (and on retransmitted data that had not been sent with its FIN, it is new anyway).
        if fin && len == 0 && seq < self.snd_max {
            self.c.fin_rexmits += 1;
        }
        if !rexmit && len > 0 && self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        let end = seg_end(seq, len, fin);
        let nothing_out = self.snd_una >= self.snd_max;
        if let Some(b) = self.cc.bbr() {
            if len > 0 {
                b.on_send(seq, end, rexmit, now, nothing_out);
            }
        }
        if self.paced {
            let rate = match self.cc.bbr() {
                Some(b) => b.pacing_rate(),
                None => self.pacing_rate,
            };
            self.pacer.paced(now, len, rate);
        }
        // A bare FIN holds a sequence number as data does: RACK-TLP marks and resends it too
        // (Linux keeps it in the retransmission queue).
        if (len > 0 || fin) && self.keeps_sent {
            self.note_sent(seq, end, rexmit, now);
        }
        if rexmit && self.timed.is_some_and(|(t, _)| (seq..end).contains(&t)) {
            // Karn: the timed segment was sent again, so its ACK no longer measures an RTT.
            self.timed = None;
        }
        if !rexmit && !self.in_recovery && self.dupacks > 0 {
            // Sent by limited transmit (RFC 3042): not part of FlightSize at the next halving.
            self.limited_bytes += u64::from(len);
        }
        if seq >= self.snd_nxt {
            self.snd_nxt = end;
        }
        if self.in_recovery && rexmit {
            self.high_rxt = self.high_rxt.max(end);
        }
        self.snd_max = self.snd_max.max(end);
        if self.timers.deadline(Timer::Rto).is_none() {
            self.timers
                .set_deadline(Timer::Rto, Some(self.rto.deadline(now, self.phase)));
        }
        self.ack_sent();
        self.last_send = now;
        out.push(Out { seg, ect });
    }

    /// Keep the send time of new data `[seq, end)`; mark resent data, in flight again from
    /// `now`.
    fn note_sent(&mut self, seq: u64, end: u64, rexmit: bool, now: Time) {
        if !rexmit {
            self.sent_times.push_back(SentSegment::new(seq, end, now));
            return;
        }
        let first = self.sent_times.partition_point(|s| s.end <= seq);
        for s in self.sent_times.range_mut(first..) {
            (s.resent, s.rexmit_out, s.xmit) = (true, true, now);
            if s.end >= end {
                break;
            }
        }
    }

    /// Does this sender detect losses with RACK-TLP?
    #[inline]
    fn rack_on(cfg: &TcpConfig) -> bool {
        *cfg.loss_detection == LossDetection::RackTlp
    }

    /// The SACK blocks to report, in the SACK variant. All three are copied as they are, the
    /// unused ones zero (`nsack_recent`): a copy of a known length, which needs no count. (The
    /// other variants have none, and their segments do not read the blocks' cache line.)
    fn add_sack_blocks(&self, seg: &mut Segment, cfg: &TcpConfig) {
        if cfg.variant == Variant::Sack {
            seg.nsack = self.nsack_recent;
            seg.sack = self.sack_recent;
        }
    }

    fn send_ack(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Out>) {
        let mut f = flags::ACK;
        if self.ece_pending {
            f |= flags::ECE;
        }
        let mut seg = Segment {
            seq: self.snd_nxt,
            ack: self.rcv_nxt,
            flags: f,
            ..Segment::default()
        };
        self.add_sack_blocks(&mut seg, cfg);
        self.stamp(&mut seg, now, cfg);
        self.c.segs_sent += 1;
        self.ack_sent();
        out.push(Out { seg, ect: false });
    }

    /// RFC 7323 §3.2, §4.3: with timestamps, a segment carries the time it is sent (TSval) and
    /// echoes TS.Recent (TSecr); its acknowledgment number becomes Last.ACK.sent.
    fn stamp(&mut self, seg: &mut Segment, now: Time, cfg: &TcpConfig) {
        if cfg.timeout.timestamps {
            seg.ts_val = ts_clock(now);
            seg.ts_ecr = self.ts_recent.unwrap_or(0);
            self.last_ack_sent = seg.ack;
        }
    }

    /// RFC 7323 §4.3 (2): TS.Recent takes a segment's TSval if the segment starts at or below
    /// Last.ACK.sent (it is the one the next ACK acknowledges first: after a delayed ACK, the
    /// earlier of two segments; after a hole, the segment that fills it) and the TSval is not
    /// older (modulo 2³²). Out-of-order segments above the hole leave it alone.
    fn accept_timestamp(&mut self, seg: &Segment) {
        let newer = self
            .ts_recent
            .is_none_or(|r| seg.ts_val.wrapping_sub(r) as i32 >= 0);
        if seg.seq <= self.last_ack_sent && newer {
            self.ts_recent = Some(seg.ts_val);
        }
    }

    /// Any segment we send acknowledges everything received so far.
    fn ack_sent(&mut self) {
        self.rcv_adv_base = self.rcv_nxt;
        self.ack_pending = 0;
        self.ack_now = false;
        self.timers.set_deadline(Timer::DelAck, None);
    }

    /// Nothing more will happen here: our data and FIN are acknowledged and the peer's FIN is in;
    /// without FINs (ns-2's one-way agents), a sender whose data is all acknowledged, or a sink.
    pub fn finished(&self, cfg: &TcpConfig) -> bool {
        if cfg.handshake.has_fin() {
            self.fin_acked() && self.fin_received()
        } else if self.data_end > 1 {
            // A sender: done once it has closed and all its data is acknowledged (never, if
            // unlimited).
            self.close && self.snd_una >= self.data_end
        } else {
            true
        }
    }
}

#[cfg(test)]
mod tests {
    //! Packet traces between two endpoints wired back to back (no network): each test reads as
    //! the segments that cross.
    use super::*;
    use crate::tcp::cc::Algorithm;
    use crate::tcp::config::{Listed, RtoStyle, TcpConfig};
    use crate::units::Size;

    /// `settled` is only true where the simulation's per-timer pass (`tcp_emit`) would schedule
    /// no event and retire none: a deadline earlier than its armed event (or one with none) gets
    /// an event; the set-once timer cleared with an event armed gets it retired. Every timer over
    /// none, earlier, equal and later times on both sides.
    #[test]
    fn settled_timers_are_those_the_per_timer_pass_leaves_alone() {
        let times = [None, Some(Time(5)), Some(Time(7))];
        let needs_work = |timer: Timer, d: Option<Time>, a: Option<Time>| match d {
            Some(d) => a.is_none_or(|a| a > d),
            None => timer.set_once() && a.is_some(),
        };
        let mut settled_seen = 0;
        for timer in Timer::ALL {
            for d in times {
                for a in times {
                    let mut t = Timers::NONE;
                    t.set_deadline(timer, d);
                    t.set_armed(timer, a);
                    if t.settled() {
                        settled_seen += 1;
                        assert!(
                            !needs_work(timer, d, a),
                            "{timer:?} deadline {d:?} armed {a:?}"
                        );
                    }
                    if !needs_work(timer, d, a) && !timer.set_once() {
                        assert!(t.settled(), "{timer:?} deadline {d:?} armed {a:?}");
                    }
                }
            }
        }
        // All none; the deadline at or after the event for the three others; Connect only when equal.
        assert_eq!(settled_seen, 3 * 6 + 3);
    }

    #[test]
    fn timers_hold_an_optional_time_each_in_one_cache_line() {
        let mut t = Timers::NONE;
        assert_eq!(std::mem::size_of::<Timers>(), 64);
        assert_eq!(std::mem::offset_of!(Endpoint, timers), 0);
        assert_eq!(t.deadline(Timer::Rto), None);
        t.set_deadline(Timer::Rto, Some(Time::ZERO));
        t.set_armed(Timer::Connect, Some(ms(3)));
        assert_eq!(t.deadline(Timer::Rto), Some(Time::ZERO));
        assert_eq!(t.armed(Timer::Connect), Some(ms(3)));
        assert_eq!(
            (t.armed(Timer::Rto), t.deadline(Timer::Connect)),
            (None, None)
        );
        t.stop_all();
        assert_eq!(t.deadline(Timer::Rto), None);
        assert_eq!(t.armed(Timer::Connect), Some(ms(3)));
    }

    #[test]
    fn what_a_segment_reads_is_in_the_first_eight_cache_lines() {
        use std::mem::{offset_of, size_of};
        let end = Endpoint::PER_SEGMENT_BYTES;
        assert!(end <= 8 * 64, "{end} bytes");
        // The state and the sequence numbers, read for the other end too, in the second line.
        assert!(offset_of!(Endpoint, in_loss) < 128 && offset_of!(Endpoint, rcv_nxt) + 8 <= 128);
        for (field, offset, size) in [
            ("send_chunk", offset_of!(Endpoint, send_chunk), 8),
            ("phase", offset_of!(Endpoint, phase), 8),
            ("rto", offset_of!(Endpoint, rto), size_of::<RtoEstimator>()),
            (
                "sacked",
                offset_of!(Endpoint, sacked),
                size_of::<RangeSet>(),
            ),
            ("ooo", offset_of!(Endpoint, ooo), size_of::<RangeSet>()),
            // The counters of every segment and of every data segment; the rest are rarer.
            (
                "c.segs_sent",
                offset_of!(Endpoint, c) + offset_of!(Counters, segs_sent),
                8,
            ),
            (
                "c.data_segs_sent",
                offset_of!(Endpoint, c) + offset_of!(Counters, data_segs_sent),
                8,
            ),
        ] {
            assert!(offset + size <= end, "{field} at {offset}");
        }
        // A field never straddles two lines where it can be avoided: the counters read per
        // segment share the RTO estimator's second line.
        let segs = offset_of!(Endpoint, c) + offset_of!(Counters, segs_sent);
        assert_eq!(
            segs / 64,
            (offset_of!(Endpoint, rto) + size_of::<RtoEstimator>()) / 64
        );
        assert_eq!(segs / 64, (segs + 15) / 64);
    }

    #[test]
    #[should_panic(expected = "end of time")]
    fn a_timer_at_the_end_of_time_is_refused() {
        let mut t = Timers::NONE;
        t.set_deadline(Timer::DelAck, Some(Time::MAX));
    }

    fn cfg(profile: &str) -> TcpConfig {
        TcpConfig::profile(profile).unwrap()
    }

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// Deliver each of `segs` to `to` at `now`; return what it sends back.
    fn deliver(to: &mut Endpoint, segs: &[Out], now: Time, cfg: &TcpConfig) -> Vec<Out> {
        let mut rng = Rng::stream(1, "t");
        let mut out = Vec::new();
        for o in segs {
            to.on_segment(&o.seg, false, now, cfg, &mut rng, &mut out);
        }
        out
    }

    fn describe(o: &Out) -> String {
        let s = &o.seg;
        let mut f = String::new();
        for (bit, name) in [
            (flags::SYN, "S"),
            (flags::FIN, "F"),
            (flags::ACK, "."),
            (flags::ECE, "E"),
            (flags::CWR, "W"),
        ] {
            if s.has(bit) {
                f.push_str(name);
            }
        }
        let sack: Vec<String> = s
            .sack_blocks()
            .iter()
            .map(|b| format!("{}-{}", b.start, b.end))
            .collect();
        format!(
            "{f} {}:{} ack {}{}",
            s.seq,
            s.seq + u64::from(s.len),
            s.ack,
            if sack.is_empty() {
                String::new()
            } else {
                format!(" sack {}", sack.join(","))
            }
        )
    }

    fn trace(segs: &[Out]) -> Vec<String> {
        segs.iter().map(describe).collect()
    }

    /// The trace without the ECN flags (E, W), for handshakes whether or not ECN is negotiated.
    fn plain(segs: &[Out]) -> Vec<String> {
        trace(segs)
            .iter()
            .map(|t| t.replacen('E', "", 1).replacen('W', "", 1))
            .collect()
    }

    /// A client and a server that has `bytes` to send and then closes, and the client's SYN,
    /// sent at time 0.
    fn pair(c: &TcpConfig, bytes: u64) -> (Endpoint, Endpoint, Vec<Out>) {
        let (mut client, mut server) = (
            Endpoint::new(c, true, Time::ZERO),
            Endpoint::new(c, false, Time::ZERO),
        );
        server.write(bytes);
        server.close_after_data();
        client.close_on_peer_fin();
        let mut out = Vec::new();
        client.open(Time::ZERO, c, &mut out);
        (client, server, out)
    }

    /// Open a connection between a client and a server whose server has `bytes` to send.
    fn open(c: &TcpConfig, bytes: u64) -> (Endpoint, Endpoint, Vec<Out>) {
        let (mut client, mut server, out) = pair(c, bytes);
        assert_eq!(plain(&out), ["S 0:0 ack 0"]);
        let synack = deliver(&mut server, &out, ms(10), c);
        assert_eq!(plain(&synack), ["S. 0:0 ack 1"]);
        let ack = deliver(&mut client, &synack, ms(20), c);
        assert_eq!(trace(&ack), [". 1:1 ack 1"]);
        assert_eq!(client.state, State::Established);
        let data = deliver(&mut server, &ack, ms(30), c);
        assert_eq!(server.state, State::Established);
        (client, server, data)
    }

    /// 200 KB transfers from server to client that lose a tenth of the data segments (drawn
    /// from stream `seed`), in every variant, the window falling at once or by PRR, with
    /// `limited_transmit`: `check(end, config, now)` sees both ends after every exchange
    /// (recovery, the loss state and the FIN at the end included). Each transfer must complete.
    fn lossy_transfers(
        seed: u64,
        limited_transmit: LimitedTransmit,
        mut check: impl FnMut(&Endpoint, &TcpConfig, Time),
    ) {
        let mut rng = Rng::stream(seed, "lossy-transfers");
        let variants = [Variant::Reno, Variant::NewReno, Variant::Sack];
        for (variant, recovery_cwnd) in variants
            .into_iter()
            .flat_map(|v| [(v, RecoveryCwnd::Standard), (v, RecoveryCwnd::Prr)])
        {
            let c = TcpConfig {
                variant,
                recovery_cwnd: Listed::always(recovery_cwnd),
                delack: DelAck::Off,
                limited_transmit,
                ..cfg("rfc")
            };
            let (mut client, mut server, mut data) = open(&c, 200_000);
            let mut now = ms(30);
            while !server.finished(&c) {
                if data.is_empty() {
                    // Everything in flight was lost: the retransmission timer.
                    let Some(due) = server.timers.deadline(Timer::Rto) else {
                        break;
                    };
                    now = now.max(due);
                    server.on_timer(Timer::Rto, now, &c, &mut data);
                }
                now = now + ms(10);
                let kept: Vec<Out> = data
                    .iter()
                    .copied()
                    .filter(|_| rng.uniform() > 0.1)
                    .collect();
                let acks = deliver(&mut client, &kept, now, &c);
                data = deliver(&mut server, &acks, now + ms(5), &c);
                check(&client, &c, now);
                check(&server, &c, now);
            }
            assert!(
                server.finished(&c),
                "{variant:?} {recovery_cwnd:?}: the transfer completes"
            );
        }
    }

    /// A segment takes all three of `sack_recent` (`add_sack_blocks`): those past `nsack_recent`
    /// must be zero, and all of them outside the SACK variant, which keeps none.
    #[test]
    fn the_sack_blocks_not_reported_are_zero() {
        let mut reported = 0;
        lossy_transfers(7, LimitedTransmit::Off, |end, c, _| {
            let n = usize::from(end.nsack_recent);
            assert!(
                end.sack_recent[n..]
                    .iter()
                    .all(|b| *b == SackBlock::default()),
                "{:?}: {:?} past {n}",
                c.variant,
                end.sack_recent
            );
            if c.variant == Variant::Sack {
                reported += n;
            } else {
                assert_eq!(n, 0, "{:?}", c.variant);
            }
        });
        assert!(reported > 10, "{reported} blocks reported");
    }

    /// A send attempt is skipped (`nothing_to_send`) only where it would send nothing
    /// (`next_to_send` says None, whether or not the connection was idle).
    #[test]
    fn a_send_attempt_is_skipped_only_when_it_would_send_nothing() {
        let mut skipped = 0;
        lossy_transfers(5, LimitedTransmit::Off, |end, c, _| {
            if end.nothing_to_send(c) {
                skipped += 1;
                for idle in [false, true] {
                    let wnd = end.send_window(c);
                    assert_eq!(end.next_to_send(idle, wnd, c), None, "{:?}", c.variant);
                }
            }
        });
        assert!(skipped > 60, "{skipped} attempts skipped");
    }

    /// A send attempt works out the window once (`send_window`): what it sends must leave it
    /// unchanged. Checked for a resent and a new segment from both ends, limited transmit on.
    #[test]
    fn sending_leaves_the_send_window_unchanged() {
        let mut limited = 0;
        lossy_transfers(6, LimitedTransmit::Rfc3042, |end, c, now| {
            let wnd = end.send_window(c);
            limited += usize::from(wnd.limited);
            let mut after = end.clone();
            for seq in [end.snd_una, end.snd_nxt] {
                after.send(seq, 1000, false, now, c, &mut Vec::new());
                assert_eq!(after.send_window(c), wnd, "{:?}", c.variant);
            }
        });
        assert!(limited > 0, "limited transmit was on at some step");
    }

    #[test]
    fn handshake_data_and_close() {
        let c = TcpConfig {
            delack: DelAck::Off,
            ..cfg("rfc")
        };
        let (mut client, mut server, data) = open(&c, 2000);
        // Initial window 3 segments, but only 2000 bytes: 1460 + 540, then the FIN.
        assert_eq!(
            trace(&data),
            [". 1:1461 ack 1", ". 1461:2001 ack 1", "F. 2001:2001 ack 1"]
        );
        let acks = deliver(&mut client, &data, ms(40), &c);
        // The FIN makes the client close too: its FIN carries the ACK of the server's.
        assert_eq!(
            trace(&acks),
            [". 1:1 ack 1461", ". 1:1 ack 2001", "F. 1:1 ack 2002"]
        );
        assert_eq!(client.bytes_delivered(), 2000);
        let last = deliver(&mut server, &acks, ms(50), &c);
        assert_eq!(trace(&last), [". 2002:2002 ack 2"]);
        deliver(&mut client, &last, ms(60), &c);
        assert!(client.finished(&c) && server.finished(&c));
        assert_eq!(server.timers.deadline(Timer::Rto), None);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_the_timer() {
        let c = TcpConfig {
            delack: DelAck::OneShot,
            ..cfg("rfc")
        };
        let (mut client, _server, data) = open(&c, 100_000);
        assert_eq!(data.len(), 3);
        let acks = deliver(&mut client, &data[..1], ms(40), &c);
        assert!(acks.is_empty());
        assert_eq!(client.timers.deadline(Timer::DelAck), Some(ms(240)));
        let acks = deliver(&mut client, &data[1..2], ms(41), &c);
        assert_eq!(trace(&acks), [". 1:1 ack 2921"]);
        deliver(&mut client, &data[2..], ms(42), &c);
        let mut out = Vec::new();
        client.on_timer(Timer::DelAck, ms(242), &c, &mut out);
        assert_eq!(trace(&out), [". 1:1 ack 4381"]);
    }

    #[test]
    fn bsd_delayed_acks_wait_for_the_fast_timer_tick() {
        let c = cfg("freebsd-2.2");
        let (mut client, _server, data) = open(&c, 100_000);
        deliver(&mut client, &data[..1], ms(130), &c);
        // Host clock phase 0: the 200 ms heartbeat ticks at 200, 400, … ms.
        assert_eq!(client.timers.deadline(Timer::DelAck), Some(ms(200)));
    }

    #[test]
    fn out_of_order_data_is_acked_at_once_with_sack_blocks() {
        let c = TcpConfig {
            delack: DelAck::OneShot,
            ..cfg("rfc")
        };
        let (mut client, _server, data) = open(&c, 100_000);
        // Segment 1 lost; 2 and 3 arrive.
        let acks = deliver(&mut client, &data[1..], ms(40), &c);
        assert_eq!(
            trace(&acks),
            [". 1:1 ack 1 sack 1461-2921", ". 1:1 ack 1 sack 1461-4381"]
        );
        // The hole fills: acknowledged at once (RFC 5681 §4.2), no blocks left.
        let acks = deliver(&mut client, &data[..1], ms(50), &c);
        assert_eq!(trace(&acks), [". 1:1 ack 4381"]);
    }

    #[test]
    fn ecn_is_negotiated_and_a_mark_is_echoed_until_cwr() {
        let c = TcpConfig {
            delack: DelAck::Off,
            ecn: true,
            ..cfg("rfc")
        };
        let (mut client, mut server) = (
            Endpoint::new(&c, true, Time::ZERO),
            Endpoint::new(&c, false, Time::ZERO),
        );
        server.write(100_000);
        let mut out = Vec::new();
        client.open(Time::ZERO, &c, &mut out);
        assert_eq!(trace(&out), ["SEW 0:0 ack 0"]);
        let synack = deliver(&mut server, &out, ms(10), &c);
        assert_eq!(trace(&synack), ["S.E 0:0 ack 1"]);
        let ack = deliver(&mut client, &synack, ms(20), &c);
        assert!(client.ecn_ok());
        let data = deliver(&mut server, &ack, ms(30), &c);
        assert!(data.iter().all(|o| o.ect));
        assert_eq!(data.len(), 3);
        // The first data segment arrives CE-marked: every ACK carries ECE until CWR arrives.
        let mut rng = Rng::stream(1, "t");
        let mut acks = Vec::new();
        for (i, d) in data.iter().enumerate() {
            client.on_segment(&d.seg, i == 0, ms(40), &c, &mut rng, &mut acks);
        }
        assert_eq!(
            trace(&acks),
            [".E 1:1 ack 1461", ".E 1:1 ack 2921", ".E 1:1 ack 4381"]
        );
        // The sender halves once for all three: the flight of 2 segments at the first ACK halves to
        // one segment (RFC 5681 eq. 4; cwnd may fall to one segment, ssthresh not below two), and
        // its next new segment carries CWR.
        let more = deliver(&mut server, &acks, ms(50), &c);
        assert_eq!(server.c.ecn_reductions, 1);
        assert_eq!((server.cwnd(), server.ssthresh()), (1460.0, 2920.0));
        assert_eq!(trace(&more), [".W 4381:5841 ack 1"]);
        // CWR stops the echo.
        let acks = deliver(&mut client, &more, ms(60), &c);
        assert!(!acks[0].seg.has(flags::ECE));
    }

    #[test]
    fn an_ecn_echo_at_one_segment_holds_new_data_until_the_timer() {
        // RFC 3168 §6.1.2: with cwnd at one segment the sender resets its timer and sends the next
        // new packet only when it expires (no backoff: it is not a loss).
        let c = TcpConfig {
            delack: DelAck::Off,
            ecn: true,
            initial_window: 1,
            ..cfg("rfc")
        };
        let (mut client, mut server, data) = open(&c, 100_000);
        assert_eq!(data.len(), 1);
        let mut rng = Rng::stream(1, "t");
        let mut acks = Vec::new();
        client.on_segment(&data[0].seg, true, ms(40), &c, &mut rng, &mut acks);
        let more = deliver(&mut server, &acks, ms(50), &c);
        assert!(more.is_empty());
        let rto = server.timers.deadline(Timer::Rto).expect("timer reset");
        let mut out = Vec::new();
        server.on_timer(Timer::Rto, rto, &c, &mut out);
        assert_eq!(trace(&out), [".W 1461:2921 ack 1"]);
        assert_eq!(server.c.timeouts, 0);
    }

    #[test]
    fn a_held_sender_keeps_its_timer_when_everything_is_acknowledged() {
        // Two segments out and the window down to one (as after a timeout with the old window
        // still in flight): the ECN-Echo on the first ACK holds new data until the timer; the
        // ACK of the second covers everything outstanding, and the timer must run on, or the
        // connection never sends again.
        let c = TcpConfig {
            delack: DelAck::Off,
            ecn: true,
            initial_window: 2,
            ..cfg("rfc")
        };
        let (mut client, mut server, data) = open(&c, 100_000);
        assert_eq!(data.len(), 2);
        server.cwnd = 1460.0;
        let mut rng = Rng::stream(1, "t");
        let mut acks = Vec::new();
        client.on_segment(&data[0].seg, true, ms(40), &c, &mut rng, &mut acks);
        client.on_segment(&data[1].seg, false, ms(41), &c, &mut rng, &mut acks);
        assert_eq!(acks.len(), 2);
        assert!(acks[0].seg.has(flags::ECE));
        assert!(deliver(&mut server, &acks[..1], ms(50), &c).is_empty());
        assert!(deliver(&mut server, &acks[1..], ms(51), &c).is_empty());
        assert!(server.all_acked() || server.snd_una == server.snd_max);
        let rto = server
            .timers
            .deadline(Timer::Rto)
            .expect("the held sender's timer runs on");
        assert!(!server.waits_on_peer_alone());
        let mut out = Vec::new();
        server.on_timer(Timer::Rto, rto, &c, &mut out);
        assert_eq!(trace(&out), [".W 2921:4381 ack 1"]);
        assert_eq!(server.c.timeouts, 0);
    }

    #[test]
    fn ns2_doubles_the_wait_on_each_further_echo_at_one_segment() {
        // ns-2 tcp.cc `ecn`: an ECN-Echo at a window of one segment holds the sender until its
        // timer; the first such answer only arms ecn_backoff_, the second doubles the timeout.
        let wait = |c: &TcpConfig| {
            let (mut client, mut server, mut data) = open(c, 100_000);
            assert_eq!(data.len(), 1);
            let mut rng = Rng::stream(1, "t");
            let mut waits = Vec::new();
            let mut now = ms(40);
            for _ in 0..2 {
                let mut acks = Vec::new();
                client.on_segment(&data[0].seg, true, now, c, &mut rng, &mut acks);
                now = now + ms(10);
                assert!(deliver(&mut server, &acks, now, c).is_empty(), "held");
                let until = server
                    .timers
                    .deadline(Timer::Rto)
                    .expect("the wait's timer");
                waits.push((until.0 - now.0) as f64 / 1e9);
                let mut out = Vec::new();
                server.on_timer(Timer::Rto, until, c, &mut out);
                assert_eq!(out.len(), 1, "one new segment when the wait is over");
                assert_eq!(server.c.timeouts, 0);
                data = out;
                now = until + ms(10);
            }
            waits
        };
        let ns2 = TcpConfig {
            ecn: true,
            delack: DelAck::Off,
            handshake: Handshake::ThreeWay,
            initial_window: 1,
            ..cfg("ns2-2003")
        };
        let [first, second] = wait(&ns2)[..] else {
            panic!("two waits")
        };
        assert!((second / first - 2.0).abs() < 0.05, "{first} then {second}");
        let rfc = wait(&TcpConfig {
            ecn_backoff: false,
            ..ns2
        });
        assert!((rfc[1] / rfc[0] - 1.0).abs() < 0.05, "{rfc:?}");
    }

    #[test]
    fn bsd_handshake_ack_opens_the_listeners_window_to_two_segments() {
        // 4.4BSD-Lite2 / FreeBSD 2.2 tcp_input: the ACK of the SYN-ACK is one acknowledged
        // "byte" in SYN_RECEIVED, and the window opens by t_maxseg before the reply starts; the
        // opener's SYN-ACK skips that step, so the client stays at one segment.
        let c = cfg("freebsd-2.2");
        assert!(c.handshake_ack_cwnd);
        let (client, server, data) = open(&c, 100_000);
        assert_eq!((server.cwnd(), client.cwnd()), (2920.0, 1460.0));
        // Two segments' worth of window; the first 2 KB cluster fills 1460 + 588 of it (sosend,
        // see bsd_a_write_reaches_tcp_in_2k_clusters).
        assert_eq!(trace(&data), [". 1:1461 ack 1", ". 1461:2049 ack 1"]);
        let without = TcpConfig {
            handshake_ack_cwnd: false,
            ..c
        };
        let (_, server, data) = open(&without, 100_000);
        assert_eq!(server.cwnd(), 1460.0);
        assert_eq!(trace(&data), [". 1:1461 ack 1"]);
    }

    /// A FreeBSD 2.2 connection opened to the point where both ends are established, nothing
    /// written yet.
    fn established(c: &TcpConfig) -> (Endpoint, Endpoint) {
        let (mut client, mut server) = (
            Endpoint::new(c, true, Time::ZERO),
            Endpoint::new(c, false, Time::ZERO),
        );
        client.close_on_peer_fin();
        let mut out = Vec::new();
        client.open(Time::ZERO, c, &mut out);
        let synack = deliver(&mut server, &out, ms(10), c);
        let ack = deliver(&mut client, &synack, ms(20), c);
        assert!(deliver(&mut server, &ack, ms(30), c).is_empty());
        (client, server)
    }

    /// The server writes `bytes` and closes at `now` (a web server's reply).
    fn reply(server: &mut Endpoint, bytes: u64, now: Time, c: &TcpConfig) -> Vec<Out> {
        server.write(bytes);
        server.close_after_data();
        let mut out = Vec::new();
        server.kick(now, c, &mut Rng::stream(1, "t"), &mut out);
        out
    }

    #[test]
    fn bsd_window_update_acks_after_two_segments_of_bytes_or_on_the_fast_timer() {
        // tcp_output's window update (notes item 2): the reading application opens the window by
        // what it read; an ACK goes once that is ≥ 2·MSS bytes, else on the 200 ms tick.
        let c = TcpConfig {
            send_chunk: Size(0),
            initial_window: 3,
            ..cfg("freebsd-2.2")
        };
        assert_eq!(c.delack, DelAck::WindowUpdate);
        let (mut client, mut server) = established(&c);
        let data = reply(&mut server, 100_000, ms(30), &c);
        assert_eq!(
            trace(&data),
            [
                ". 1:1461 ack 1",
                ". 1461:2921 ack 1",
                ". 2921:4381 ack 1",
                ". 4381:5841 ack 1"
            ]
        );
        // 1460 B read: not yet.
        assert!(deliver(&mut client, &data[..1], ms(40), &c).is_empty());
        assert_eq!(client.timers.deadline(Timer::DelAck), Some(ms(200)));
        // 2920 B read since the last segment the client sent: the window update goes.
        let ack = deliver(&mut client, &data[1..2], ms(41), &c);
        assert_eq!(trace(&ack), [". 1:1 ack 2921"]);
        assert_eq!(client.timers.deadline(Timer::DelAck), None);
        // The third segment waits for the heartbeat's next tick.
        assert!(deliver(&mut client, &data[2..3], ms(42), &c).is_empty());
        let mut out = Vec::new();
        client.on_timer(Timer::DelAck, ms(200), &c, &mut out);
        assert_eq!(trace(&out), [". 1:1 ack 4381"]);
        // Counted in bytes, not segments: after the tick a short 500 B segment and a full one
        // make 1960 B < 2920 B: still no ACK (`heartbeat` would have sent one).
        let (mut client, mut server) = established(&c);
        server.write(500);
        let mut short = Vec::new();
        server.kick(ms(30), &c, &mut Rng::stream(1, "t"), &mut short);
        assert_eq!(trace(&short), [". 1:501 ack 1"]);
        assert!(deliver(&mut client, &short, ms(40), &c).is_empty());
        let full = reply(&mut server, 1460, ms(41), &c);
        assert_eq!(trace(&full), ["F. 501:1961 ack 1"]);
        // …but that one carries the FIN, which is acknowledged at once (and the client closes).
        assert_eq!(
            trace(&deliver(&mut client, &full, ms(50), &c)),
            ["F. 1:1 ack 1962"]
        );
        // Out-of-order data is acknowledged at once.
        let (mut client, mut server) = established(&c);
        let data = reply(&mut server, 100_000, ms(30), &c);
        let dup = deliver(&mut client, &data[1..2], ms(40), &c);
        assert_eq!(trace(&dup), [". 1:1 ack 1"]);
        let heartbeat = TcpConfig {
            delack: DelAck::Heartbeat,
            ..c.clone()
        };
        let (mut client, mut server) = established(&heartbeat);
        server.write(500);
        let mut short = Vec::new();
        server.kick(ms(30), &heartbeat, &mut Rng::stream(1, "t"), &mut short);
        assert!(deliver(&mut client, &short, ms(40), &heartbeat).is_empty());
        server.write(1460);
        let mut full = Vec::new();
        server.kick(ms(41), &heartbeat, &mut Rng::stream(1, "t"), &mut full);
        assert_eq!(
            trace(&deliver(&mut client, &full, ms(50), &heartbeat)),
            [". 1:1 ack 1961"]
        );
    }

    #[test]
    fn ns2_fulltcp_acks_a_full_segment_at_once_and_a_partial_one_at_the_next_tick() {
        // tcp-full.cc: need_send() at one MSS of bytes unacknowledged; otherwise the delayed-ACK
        // timer, whose ticks fall at multiples of interval_ from zero (not the host's phase).
        let c = TcpConfig {
            send_chunk: Size(0),
            initial_window: 4,
            delack: DelAck::Ns2FullTcp,
            delack_time: ms(100),
            ..cfg("freebsd-2.2")
        };
        let (mut client, mut server) = established(&c);
        server.write(2000);
        let mut data = Vec::new();
        server.kick(ms(30), &c, &mut Rng::stream(1, "t"), &mut data);
        assert_eq!(trace(&data), [". 1:1461 ack 1", ". 1461:2001 ack 1"]);
        assert_eq!(
            trace(&deliver(&mut client, &data[..1], ms(40), &c)),
            [". 1:1 ack 1461"]
        );
        assert!(deliver(&mut client, &data[1..], ms(41), &c).is_empty());
        assert_eq!(client.timers.deadline(Timer::DelAck), Some(ms(100)));
        let mut out = Vec::new();
        client.on_timer(Timer::DelAck, ms(100), &c, &mut out);
        assert_eq!(trace(&out), [". 1:1 ack 2001"]);
    }

    #[test]
    fn ns2_fulltcp_nagle_holds_a_short_segment_while_data_is_out_unless_an_ack_is_owed() {
        let c = TcpConfig {
            send_chunk: Size(0),
            initial_window: 4,
            nagle: true,
            delack: DelAck::Ns2FullTcp,
            delack_time: ms(100),
            ..cfg("freebsd-2.2")
        };
        let mut rng = Rng::stream(1, "t");
        let (mut client, mut server) = established(&c);
        // Idle: a page of 2000 B leaves its full segment, then holds the 540 B tail (no longer
        // quiet, per segment; BSD would send it, the attempt having begun idle).
        server.write(2000);
        let mut first = Vec::new();
        server.kick(ms(30), &c, &mut rng, &mut first);
        assert_eq!(trace(&first), [". 1:1461 ack 1"]);
        // A second page joins it: full segments go as the window allows, the tail waits.
        server.write(1000);
        let mut more = Vec::new();
        server.kick(ms(31), &c, &mut rng, &mut more);
        assert_eq!(trace(&more), [". 1461:2921 ack 1"]);
        // A request arrives: 43 B owe no ACK yet, so nothing more goes.
        client.write(43);
        let mut req = Vec::new();
        client.kick(ms(32), &c, &mut rng, &mut req);
        assert!(deliver(&mut server, &req, ms(40), &c).is_empty());
        // The delayed-ACK tick owes the request's ACK: it takes the held tail along.
        let mut tick = Vec::new();
        server.on_timer(Timer::DelAck, ms(100), &c, &mut tick);
        assert_eq!(trace(&tick), [". 2921:3001 ack 44"]);
        // The full segments are acknowledged at once, the tail at the client's tick; with 80 B
        // still unacknowledged a short page waits, and goes once the connection is quiet.
        let acks = deliver(&mut client, &[first, more, tick].concat(), ms(110), &c);
        assert_eq!(trace(&acks), [". 44:44 ack 1461", ". 44:44 ack 2921"]);
        assert!(deliver(&mut server, &acks, ms(120), &c).is_empty());
        server.write(300);
        let mut held = Vec::new();
        server.kick(ms(130), &c, &mut rng, &mut held);
        assert!(held.is_empty());
        let mut tail_ack = Vec::new();
        client.on_timer(Timer::DelAck, ms(200), &c, &mut tail_ack);
        assert_eq!(trace(&tail_ack), [". 44:44 ack 3001"]);
        assert_eq!(
            trace(&deliver(&mut server, &tail_ack, ms(210), &c)),
            [". 3001:3301 ack 44"]
        );
    }

    #[test]
    fn bsd_fin_rides_on_the_last_data_segment_if_it_is_still_unsent_at_close() {
        // tcp_output (notes item 3): TH_FIN stays on a segment that reaches the end of the send
        // buffer. Window of two segments, 5000 B: the tail is still queued at close.
        let c = TcpConfig {
            send_chunk: Size(0),
            ..cfg("freebsd-2.2")
        };
        assert!(c.fin_piggyback);
        let (mut client, mut server) = established(&c);
        let data = reply(&mut server, 5000, ms(30), &c);
        assert_eq!(trace(&data), [". 1:1461 ack 1", ". 1461:2921 ack 1"]);
        let ack = deliver(&mut client, &data, ms(40), &c);
        assert_eq!(trace(&ack), [". 1:1 ack 2921"]);
        // cwnd 3 segments: 1460, then the 620 B tail with the FIN (seq 5001), whatever Nagle says.
        let rest = deliver(&mut server, &ack, ms(50), &c);
        assert_eq!(trace(&rest), [". 2921:4381 ack 1", "F. 4381:5001 ack 1"]);
        let acks = deliver(&mut client, &rest, ms(60), &c);
        assert_eq!(trace(&acks), ["F. 1:1 ack 5002"]);
        assert_eq!(client.bytes_delivered(), 5000);
        let last = deliver(&mut server, &acks, ms(70), &c);
        assert_eq!(trace(&last), [". 5002:5002 ack 2"]);
        deliver(&mut client, &last, ms(80), &c);
        assert!(client.finished(&c) && server.finished(&c));
        assert_eq!((server.c.segs_sent, server.c.data_segs_sent), (6, 4));
        // Everything already sent when the application closes: a separate FIN, at once.
        let (_, mut server) = established(&c);
        server.write(1000);
        let mut out = Vec::new();
        server.kick(ms(30), &c, &mut Rng::stream(1, "t"), &mut out);
        assert_eq!(trace(&out), [". 1:1001 ack 1"]);
        let fin = reply(&mut server, 0, ms(31), &c);
        assert_eq!(trace(&fin), ["F. 1001:1001 ack 1"]);
        // Without the option the FIN always follows the data on its own.
        let apart = TcpConfig {
            fin_piggyback: false,
            ..c.clone()
        };
        let (mut client, mut server) = established(&apart);
        let data = reply(&mut server, 5000, ms(30), &apart);
        let ack = deliver(&mut client, &data, ms(40), &apart);
        assert_eq!(
            trace(&deliver(&mut server, &ack, ms(50), &apart)),
            [
                ". 2921:4381 ack 1",
                ". 4381:5001 ack 1",
                "F. 5001:5001 ack 1"
            ]
        );
    }

    #[test]
    fn bsd_nagle_holds_a_short_tail_until_an_ack_unless_idle_or_closing() {
        // tcp_output's sender SWS rule, which comes with send_chunk > 0: a short segment goes
        // only when nothing is outstanding (or the FIN is due after it).
        let c = TcpConfig {
            delack: DelAck::Off,
            ..cfg("freebsd-2.2")
        };
        let (mut client, mut server) = established(&c);
        let mut rng = Rng::stream(1, "t");
        let mut out = Vec::new();
        server.write(100);
        server.kick(ms(30), &c, &mut rng, &mut out);
        assert_eq!(trace(&out), [". 1:101 ack 1"]); // idle: it goes
        let first = std::mem::take(&mut out);
        server.write(100);
        server.kick(ms(31), &c, &mut rng, &mut out);
        assert!(out.is_empty()); // 100 B outstanding: held
        let ack = deliver(&mut client, &first, ms(40), &c);
        assert_eq!(
            trace(&deliver(&mut server, &ack, ms(50), &c)),
            [". 101:201 ack 1"]
        );
        // Held again, until the application closes: the FIN forces it out, riding on it.
        out.clear();
        server.write(100);
        server.kick(ms(51), &c, &mut rng, &mut out);
        assert!(out.is_empty());
        server.close_after_data();
        server.kick(ms(52), &c, &mut rng, &mut out);
        assert_eq!(trace(&out), ["F. 201:301 ack 1"]);
        // Whole writes (send_chunk 0), no rule: the second 100 B go at once.
        let without = TcpConfig {
            send_chunk: Size(0),
            ..c.clone()
        };
        let (_, mut server) = established(&without);
        out.clear();
        server.write(100);
        server.kick(ms(30), &without, &mut rng, &mut out);
        server.write(100);
        server.kick(ms(31), &without, &mut rng, &mut out);
        assert_eq!(trace(&out), [". 1:101 ack 1", ". 101:201 ack 1"]);
    }

    #[test]
    fn bsd_buffers_round_up_to_whole_segments_after_the_syn() {
        // tcp_mss() (notes item 4): roundup(16384, 1460) = 17520, twelve segments. The opener's
        // SYN advertised 16384 (the listener sees that until the handshake ACK); the SYN-ACK and
        // all later segments advertise 17520.
        let c = TcpConfig {
            send_chunk: Size(0),
            initial_window: 20,
            ..cfg("freebsd-2.2")
        };
        assert!(c.buffer_roundup);
        let (mut client, mut server) = (
            Endpoint::new(&c, true, Time::ZERO),
            Endpoint::new(&c, false, Time::ZERO),
        );
        let mut syn = Vec::new();
        client.open(Time::ZERO, &c, &mut syn);
        let synack = deliver(&mut server, &syn, ms(10), &c);
        assert_eq!(server.peer_window(), 16_384);
        let ack = deliver(&mut client, &synack, ms(20), &c);
        assert_eq!(client.peer_window(), 17_520);
        deliver(&mut server, &ack, ms(30), &c);
        assert_eq!(server.peer_window(), 17_520);
        let data = reply(&mut server, 100_000, ms(30), &c);
        assert_eq!(data.len(), 12);
        assert_eq!(describe(&data[11]), ". 16061:17521 ack 1");
        // Unrounded, the 16 384 B window holds 11 segments.
        let plain = TcpConfig {
            buffer_roundup: false,
            ..c.clone()
        };
        let (_, mut server) = established(&plain);
        assert_eq!(server.peer_window(), 16_384);
        assert_eq!(reply(&mut server, 100_000, ms(30), &plain).len(), 11);
    }

    #[test]
    fn bsd_a_write_reaches_tcp_in_2k_clusters() {
        // sosend() hands a 10 240 B write to TCP in five 2048 B clusters, tcp_output after each
        // (notes item 5; MCLBYTES 2048). MSS 1460, no timestamps; the server's cwnd is 2 segments
        // after the handshake ACK.
        let c = cfg("freebsd-2.2");
        assert_eq!(c.send_chunk, Size(2048));
        let (mut client, mut server) = established(&c);
        assert_eq!(server.cwnd(), 2920.0);
        // Cluster 1 on an idle connection: 1460, then the 588 B rest, which reaches the end of the
        // buffer while `idle` is still true. Clusters 2-5: not idle, 872 B of window left, held.
        let data = reply(&mut server, 10_240, ms(30), &c);
        assert_eq!(trace(&data), [". 1:1461 ack 1", ". 1461:2049 ack 1"]);
        // 2048 B < 2·1460: no window update; the ACK waits for the 200 ms tick.
        assert!(deliver(&mut client, &data, ms(40), &c).is_empty());
        assert_eq!(client.timers.deadline(Timer::DelAck), Some(ms(200)));
        let mut ack = Vec::new();
        client.on_timer(Timer::DelAck, ms(200), &c, &mut ack);
        assert_eq!(trace(&ack), [". 1:1 ack 2049"]);
        // cwnd 3 segments, idle again: three full segments.
        let flight = deliver(&mut server, &ack, ms(210), &c);
        assert_eq!(server.cwnd(), 4380.0);
        assert_eq!(
            trace(&flight),
            [
                ". 2049:3509 ack 1",
                ". 3509:4969 ack 1",
                ". 4969:6429 ack 1"
            ]
        );
        // The client acknowledges the second at once (2920 B), the third waits for the tick.
        let acks = deliver(&mut client, &flight, ms(220), &c);
        assert_eq!(trace(&acks), [". 1:1 ack 4969"]);
        assert_eq!(client.timers.deadline(Timer::DelAck), Some(ms(400)));
        // cwnd 4 segments: two full ones and the 892 B tail, which goes because it carries the FIN.
        let last = deliver(&mut server, &acks, ms(230), &c);
        assert_eq!(
            trace(&last),
            [
                ". 6429:7889 ack 1",
                ". 7889:9349 ack 1",
                "F. 9349:10241 ack 1"
            ]
        );
        // 6429:7889 completes 2920 B since the client's ACK; the FIN is acknowledged at once, by
        // the client's own FIN.
        let acks = deliver(&mut client, &last, ms(240), &c);
        assert_eq!(trace(&acks), [". 1:1 ack 7889", "F. 1:1 ack 10242"]);
        assert_eq!(client.bytes_delivered(), 10_240);
        let end = deliver(&mut server, &acks, ms(250), &c);
        assert_eq!(trace(&end), [". 10242:10242 ack 2"]);
        deliver(&mut client, &end, ms(260), &c);
        assert!(client.finished(&c) && server.finished(&c));
        // Whole writes: 1460 + 1460 at once.
        let whole = TcpConfig {
            send_chunk: Size(0),
            ..c.clone()
        };
        let (_, mut server) = established(&whole);
        assert_eq!(
            trace(&reply(&mut server, 10_240, ms(30), &whole)),
            [". 1:1461 ack 1", ". 1461:2921 ack 1"]
        );
    }

    /// A Reno sender with 10 segments out loses the first; `dups` duplicate ACKs, then the ACK of
    /// the retransmission. Returns the server's cwnd at the end of recovery, its ssthresh, and
    /// what it sent on that ACK.
    fn reno_recovery(c: &TcpConfig, dups: usize) -> (f64, f64, Vec<String>) {
        let (mut client, mut server) = established(c);
        let data = reply(&mut server, 100_000, ms(30), c);
        assert_eq!(data.len(), 10);
        let dupacks = deliver(&mut client, &data[1..], ms(40), c);
        assert_eq!(dupacks.len(), 9);
        let rexmit = deliver(&mut server, &dupacks[..dups], ms(50), c);
        assert_eq!(describe(&rexmit[0]), ". 1:1461 ack 1");
        // min(cwnd 14600, window 17520) / 2 = 5 segments.
        assert_eq!(server.ssthresh(), 7300.0);
        let ack = deliver(&mut client, &rexmit[..1], ms(60), c);
        assert_eq!(trace(&ack), [". 1:1 ack 14601"]);
        let after = deliver(&mut server, &ack, ms(70), c);
        (server.cwnd(), server.ssthresh(), trace(&after))
    }

    #[test]
    fn bsd_recovery_exit_deflates_after_enough_duplicates_then_opens_by_one_segment() {
        // tcp_input (notes item 6): FreeBSD 2.2 deflates to ssthresh after ≥ 3 duplicates,
        // 4.4BSD-Lite2 only after > 3; then the same ACK opens the window (slow start at
        // cwnd == ssthresh: +1 MSS).
        let c = TcpConfig {
            send_chunk: Size(0),
            delack: DelAck::Off,
            initial_window: 9,
            ..cfg("freebsd-2.2")
        };
        assert_eq!(c.recovery_exit_deflate_at, Some(3));
        let (cwnd, _, sent) = reno_recovery(&c, 3);
        assert_eq!(cwnd, 7300.0 + 1460.0);
        assert_eq!(sent.len(), 6);
        assert_eq!(sent[0], ". 14601:16061 ack 1");
        let lite2 = TcpConfig {
            recovery_exit_deflate_at: Some(4),
            ..c.clone()
        };
        // Three duplicates: no deflation; the inflated 11680 B grows by MSS²/cwnd, a burst of 8.
        let (cwnd, _, sent) = reno_recovery(&lite2, 3);
        assert_eq!(cwnd, 11_680.0 + 1460.0 * 1460.0 / 11_680.0);
        assert_eq!(sent.len(), 8);
        // Four: deflated (12 · 1460 inflated → 7300), then + 1460.
        let (cwnd, _, _) = reno_recovery(&lite2, 4);
        assert_eq!(cwnd, 8760.0);
        // RFC 5681 / ns-2 ("always"): cwnd = ssthresh and nothing more on that ACK.
        let rfc = TcpConfig {
            recovery_exit_deflate_at: None,
            ..c.clone()
        };
        let (cwnd, ssthresh, sent) = reno_recovery(&rfc, 3);
        assert_eq!((cwnd, ssthresh), (7300.0, 7300.0));
        assert_eq!(sent.len(), 5);
    }

    /// Opens a client whose SYN is never answered and fires its retransmission timer until 75 s;
    /// returns the client and the instants the timer fired.
    fn unanswered_syn(c: &TcpConfig) -> (Endpoint, Vec<Time>) {
        let mut client = Endpoint::new(c, true, Time::ZERO);
        let mut out = Vec::new();
        client.open(Time::ZERO, c, &mut out);
        let mut times = Vec::new();
        while let Some(t) = client.timers.deadline(Timer::Rto) {
            if t > Time::from_secs(75) {
                break;
            }
            times.push(t);
            client.on_timer(Timer::Rto, t, c, &mut out);
        }
        (client, times)
    }

    #[test]
    fn an_unanswered_syn_fails_after_the_connect_timeout() {
        let c = cfg("freebsd-2.2");
        // FreeBSD 2.2: retransmissions 3 s, then 6, 12 and 24 s apart (TCPTV_RTOBASE and the
        // backoff table), on the 500 ms grid; given up at 75 s (TCPTV_KEEP_INIT).
        let (mut client, times) = unanswered_syn(&c);
        assert_eq!(times, [3, 9, 21, 45].map(Time::from_secs));
        client.on_timer(Timer::Connect, Time::from_secs(75), &c, &mut Vec::new());
        assert_eq!(client.state, State::Failed);
        assert_eq!(client.c.syn_rexmits, 4);
        // 4.4BSD-Lite2's arithmetic: 6 s, then 24 s later (docs/models/freebsd-2.2.md §2).
        let lite2 = TcpConfig {
            rto: RtoStyle::Bsd,
            initial_rto: Time::from_secs(6),
            ..c
        };
        let (_, times) = unanswered_syn(&lite2);
        assert_eq!(times, [6, 30].map(Time::from_secs));
    }

    /// The `linux` profile with an ACK for every segment, so that traces stay short.
    /// The `linux` profile without delayed ACKs, finding losses by duplicate ACKs and RFC 6675
    /// with the window that falls at once: the scoreboard and timer rules these tests read.
    fn linux(sack_after_rto: SackAfterRto, timestamps: bool) -> TcpConfig {
        let mut c = TcpConfig {
            delack: DelAck::Off,
            loss_detection: Listed::always(LossDetection::DupAck),
            recovery_cwnd: Listed::always(RecoveryCwnd::Standard),
            ..cfg("linux")
        };
        c.timeout.value.sack_after_rto = sack_after_rto;
        c.timeout.value.timestamps = timestamps;
        c
    }

    /// Ten segments of 1448 B leave at 30 ms; the first and third are lost. The eight that
    /// arrive are SACKed; limited transmit and SACK recovery send two new segments, the two holes
    /// and three more new ones at 50 ms, and all of those are lost, so the timer expires. Returns
    /// what the server sends on the timeout and on the ACKs of that (two rounds), and the server.
    fn timeout_with_sacked_data(c: &TcpConfig) -> (Vec<Vec<String>>, Endpoint) {
        let (mut client, mut server) = established(c);
        let data = reply(&mut server, 100 * 1448, ms(30), c);
        assert_eq!(data.len(), 10);
        let arrived: Vec<Out> = data
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 0 && i != 2)
            .map(|(_, o)| *o)
            .collect();
        let dupacks = deliver(&mut client, &arrived, ms(40), c);
        assert_eq!(
            describe(&dupacks[7]),
            ". 1:1 ack 1 sack 4345-14481,1449-2897"
        );
        let lost = deliver(&mut server, &dupacks, ms(50), c);
        assert_eq!(
            trace(&lost),
            [
                ". 14481:15929 ack 1",
                ". 15929:17377 ack 1",
                ". 1:1449 ack 1",
                ". 2897:4345 ack 1",
                ". 17377:18825 ack 1",
                ". 18825:20273 ack 1",
                ". 20273:21721 ack 1"
            ]
        );
        let rto = server.timers.deadline(Timer::Rto).unwrap();
        let mut out = Vec::new();
        server.on_timer(Timer::Rto, rto, c, &mut out);
        let mut sent = vec![trace(&out)];
        for step in 1..=2 {
            let acks = deliver(&mut client, &out, rto + ms(10 * step), c);
            out = deliver(&mut server, &acks, rto + ms(10 * step + 5), c);
            sent.push(trace(&out));
        }
        (sent, server)
    }

    /// Nine segments of 1000 B leave at 30 ms and the first is lost; the eight duplicate ACKs
    /// arrive, then the ACK of the retransmission. Returns cwnd in segments after the third
    /// duplicate ACK, after the eighth, and after the ACK that ends recovery; and ssthresh.
    fn recovery_windows(c: &TcpConfig) -> [f64; 4] {
        let (mut client, mut server) = established(c);
        let data = reply(&mut server, 100 * 1000, ms(30), c);
        assert_eq!(data.len(), 9);
        let dupacks = deliver(&mut client, &data[1..], ms(40), c);
        let rexmit = deliver(&mut server, &dupacks[..3], ms(50), c);
        assert_eq!(trace(&rexmit)[0], ". 1:1001 ack 1");
        let at_fast_retransmit = server.cwnd() / 1000.0;
        deliver(&mut server, &dupacks[3..], ms(51), c);
        let inflated = server.cwnd() / 1000.0;
        let full = deliver(&mut client, &rexmit[..1], ms(60), c);
        assert_eq!(trace(&full), [". 1:1 ack 9001"]);
        deliver(&mut server, &full, ms(70), c);
        [
            at_fast_retransmit,
            inflated,
            server.cwnd() / 1000.0,
            server.ssthresh / 1000.0,
        ]
    }

    #[test]
    fn ns2_sack_recovery_sends_by_its_own_pipe_count() {
        // ns-2 Sack1: 9 segments out, the first lost, 8 duplicate ACKs with SACK blocks.
        let c = TcpConfig {
            handshake: Handshake::ThreeWay,
            initial_window: 9,
            variant: Variant::Sack,
            limited_transmit: LimitedTransmit::Off,
            ..cfg("ns2-2.35")
        };
        assert_eq!(c.sack_recovery, SackRecovery::Ns2);
        let (mut client, mut server) = established(&c);
        let data = reply(&mut server, 100 * 1000, ms(30), &c);
        assert_eq!(data.len(), 9);
        let dupacks = deliver(&mut client, &data[1..], ms(40), &c);
        // The third: the fast retransmission alone; pipe_ = 9 outstanding - 3 = 6, cwnd_ = 4.5.
        let sent = deliver(&mut server, &dupacks[..3], ms(50), &c);
        assert_eq!(plain(&sent), [". 1:1001 ack 1"]);
        // Each further one takes one off pipe_: 5, 4 send nothing; at 3 < int(4.5) a segment
        // goes (no hole left to resend: new data) and pipe_ is 4 again.
        let mut new = Vec::new();
        for (k, dup) in dupacks[3..].iter().enumerate() {
            let sent = deliver(
                &mut server,
                std::slice::from_ref(dup),
                ms(51 + k as u64),
                &c,
            );
            new.push(plain(&sent).join(" "));
        }
        assert_eq!(
            new,
            [
                "",
                "",
                ". 9001:10001 ack 1",
                ". 10001:11001 ack 1",
                ". 11001:12001 ack 1"
            ]
        );
        // (RFC 6675's scoreboard pipe comes to the same here; they part with partial ACKs,
        // which take one more off pipe_, and with duplicates that SACK nothing new.)
    }

    #[test]
    fn ns2_recovery_keeps_the_exact_half_and_inflates_by_dupwnd() {
        let ns2 = TcpConfig {
            handshake: Handshake::ThreeWay,
            initial_window: 9,
            variant: Variant::NewReno,
            limited_transmit: LimitedTransmit::Off,
            ..cfg("ns2-2.35")
        };
        // ns-2.35 slowdown: halfwin = 9 / 2 = 4.5, ssthresh_ = 4; dupack_action sets dupwnd_ =
        // numdupacks_ = 3, and the 4th to 8th duplicate ACKs add one each; the full ACK ends
        // recovery with cwnd_ = 4.5, and opencwnd adds 1/4.5 (congestion avoidance, 4.5 >= 4).
        let [fr, inflated, exit, ssthresh] = recovery_windows(&ns2);
        assert_eq!((fr, inflated, ssthresh), (7.5, 12.5, 4.0));
        assert!((exit - (4.5 + 1.0 / 4.5)).abs() < 1e-9, "{exit}");
        // RFC 5681 / 6582: ssthresh + 3 = 7 at the fast retransmit, + 5, then ssthresh.
        let rfc = TcpConfig {
            precise_reduce: false,
            recovery_window: RecoveryWindow::Rfc,
            ..ns2.clone()
        };
        assert_eq!(recovery_windows(&rfc), [7.0, 12.0, 4.0, 4.0]);
        // Each option alone: the exact half with the RFC's inflation, or whole segments kept.
        let precise_only = TcpConfig {
            recovery_window: RecoveryWindow::Rfc,
            ..ns2.clone()
        };
        assert_eq!(recovery_windows(&precise_only), [7.5, 12.5, 4.0, 4.0]);
        let window_only = TcpConfig {
            precise_reduce: false,
            ..ns2
        };
        let [fr, inflated, exit, _] = recovery_windows(&window_only);
        assert_eq!((fr, inflated), (7.0, 12.0));
        assert!((exit - 4.25).abs() < 1e-9, "{exit}");
    }

    /// Four segments of 1000 B leave at 30 ms; the first two are lost. The timer expires before
    /// the two duplicate ACKs of the others arrive: the timeout resends 1:1001 and goes back to
    /// 1001. Returns what the server sends on each duplicate ACK.
    fn late_dupacks_after_a_timeout(limited_transmit: LimitedTransmit) -> Vec<Vec<String>> {
        let c = TcpConfig {
            variant: Variant::NewReno,
            handshake: Handshake::ThreeWay,
            initial_window: 4,
            limited_transmit,
            ..cfg("ns2-2003")
        };
        let (mut client, mut server) = established(&c);
        let data = reply(&mut server, 100 * 1000, ms(30), &c);
        assert_eq!(data.len(), 4);
        let dupacks = deliver(&mut client, &data[2..], ms(40), &c);
        assert_eq!(trace(&dupacks), [". 1:1 ack 1", ". 1:1 ack 1"]);
        let rto = server.timers.deadline(Timer::Rto).unwrap();
        let mut out = Vec::new();
        server.on_timer(Timer::Rto, rto, &c, &mut out);
        assert_eq!(trace(&out), [". 1:1001 ack 1"]);
        dupacks
            .iter()
            .map(|d| trace(&deliver(&mut server, &[*d], rto + ms(1), &c)))
            .collect()
    }

    #[test]
    fn ns2_singledup_resends_what_the_go_back_reached_and_rfc3042_waits() {
        // ns-2 send_one: t_seqno_ (1001 after the timeout) goes when it is within
        // highest_ack_ + cwnd_ + dupacks_: 1001:2001 on the first, 2001:3001 (which the receiver
        // holds) on the second duplicate ACK.
        assert_eq!(
            late_dupacks_after_a_timeout(LimitedTransmit::Ns2),
            [vec![". 1001:2001 ack 1"], vec![". 2001:3001 ack 1"]]
        );
        // RFC 3042 sends only new data, and data up to 4001 was sent: nothing.
        let empty: Vec<Vec<String>> = vec![vec![], vec![]];
        assert_eq!(
            late_dupacks_after_a_timeout(LimitedTransmit::Rfc3042),
            empty
        );
        assert_eq!(late_dupacks_after_a_timeout(LimitedTransmit::Off), empty);
    }

    #[test]
    fn after_a_timeout_a_kept_scoreboard_resends_only_the_holes() {
        // RFC 6675 §5.1, Linux tcp_enter_loss: 1449-2897 and 4345-14481 stay SACKed. The timeout
        // resends the first hole; its ACK (ack 2897) delivers one segment (1449-2897 was
        // delivered before), so cwnd is 2: the second hole, then past the SACKed block to the
        // first segment lost in recovery. Each of their ACKs delivers one segment: four more.
        let (keep, server) = timeout_with_sacked_data(&linux(SackAfterRto::Keep, false));
        assert_eq!(
            keep,
            [
                vec![". 1:1449 ack 1"],
                vec![". 2897:4345 ack 1", ". 14481:15929 ack 1"],
                vec![
                    ". 15929:17377 ack 1",
                    ". 17377:18825 ack 1",
                    ". 18825:20273 ack 1",
                    ". 20273:21721 ack 1"
                ]
            ]
        );
        assert_eq!(server.cwnd(), 4.0 * 1448.0);
        assert!(server.in_loss, "recover (21721) is not acknowledged yet");
        // ns-2 Sack1: the scoreboard is gone, the go-back-N resends 4345-7241, which the receiver
        // holds, and slow start counts the SACKed 1449-2897 as newly acknowledged (cwnd 3).
        let (discard, server) = timeout_with_sacked_data(&linux(SackAfterRto::Discard, false));
        assert_eq!(
            discard[1],
            [
                ". 2897:4345 ack 1",
                ". 4345:5793 ack 1",
                ". 5793:7241 ack 1"
            ]
        );
        assert!(!server.in_loss);
    }

    #[test]
    fn with_timestamps_an_acknowledged_retransmission_ends_the_backoff() {
        for timestamps in [true, false] {
            let c = linux(SackAfterRto::Keep, timestamps);
            let (mut client, mut server) = established(&c);
            // One segment, lost. The handshake measured 20 ms (SYN-ACK at 10 ms, ACK at 30 ms):
            // Linux's RTO is srtt + rttvar, rttvar at least RTO_MIN, so 220 ms from 30 ms.
            let first = reply(&mut server, 1448, ms(30), &c);
            assert_eq!(trace(&first), ["F. 1:1449 ack 1"]);
            let rto = server.timers.deadline(Timer::Rto).unwrap();
            assert_eq!(rto, ms(250));
            let mut resent = Vec::new();
            server.on_timer(Timer::Rto, rto, &c, &mut resent);
            assert_eq!(trace(&resent), ["F. 1:1449 ack 1"]);
            assert_eq!(server.rto.backoff(), 2);
            let ack = deliver(&mut client, &resent, ms(265), &c);
            assert_eq!(trace(&ack), ["F. 1:1 ack 1450"]);
            deliver(&mut server, &ack, ms(280), &c);
            if timestamps {
                // RFC 7323: the ACK echoes the retransmission's TSval (250 ms), so it measures
                // 30 ms, a valid sample, and Linux's tcp_ack_update_rtt clears icsk_backoff:
                // srtt 21.25 ms, rttvar still RTO_MIN, 221.25 ms rounded up to the jiffy.
                assert_eq!(
                    (resent[0].seg.ts_val, ack[0].seg.ts_ecr),
                    (250_000, 250_000)
                );
                assert_eq!(server.rto.backoff(), 1);
                assert_eq!(server.rto.timeout(), ms(222));
            } else {
                // Karn: a retransmission is never timed, so the backoff stays.
                assert_eq!((resent[0].seg.ts_val, ack[0].seg.ts_ecr), (0, 0));
                assert_eq!(server.rto.backoff(), 2);
                assert_eq!(server.rto.timeout(), ms(440));
            }
        }
    }

    #[test]
    fn the_receiver_echoes_the_segment_that_fills_a_hole_not_the_later_ones() {
        // RFC 7323 §4.3: TS.Recent changes only for a segment at or below Last.ACK.sent.
        let c = linux(SackAfterRto::Keep, true);
        let (mut client, mut server) = established(&c);
        let data = reply(&mut server, 3 * 1448, ms(30), &c);
        let late = deliver(&mut client, &data[1..], ms(40), &c);
        // Segments above the hole are SACKed; the echo stays at the last segment accepted, the
        // SYN-ACK (sent at 10 ms).
        assert_eq!(trace(&late)[1], ". 1:1 ack 1 sack 1449-4346");
        assert!(late.iter().all(|a| a.seg.ts_ecr == 10_000));
        let mut hole = data[0];
        hole.seg.ts_val = 35_000;
        let fill = deliver(&mut client, &[hole], ms(45), &c);
        assert_eq!(trace(&fill), ["F. 1:1 ack 4346"]);
        assert_eq!(fill[0].seg.ts_ecr, 35_000);
    }

    /// The `rfc` profile with `variant` and `recovery_cwnd`: 1000 B segments, an initial window
    /// of 20, an ACK for every segment, no limited transmit, a window that does not limit, and
    /// ssthresh half of cwnd, so that a recovery's numbers are easy to follow.
    fn window_of_20(variant: Variant, recovery_cwnd: RecoveryCwnd) -> TcpConfig {
        TcpConfig {
            variant,
            recovery_cwnd: Listed::always(recovery_cwnd),
            mss: Size(1000),
            initial_window: 20,
            rwnd: Size(1 << 20),
            delack: DelAck::Off,
            limited_transmit: LimitedTransmit::Off,
            halve: Halve::Window,
            ..cfg("rfc")
        }
    }

    /// One ACK of a recovery as the sender saw it: the ACK, the segments it delivered (ACKed or
    /// SACKed for the first time), what the sender sent on it and its cwnd after, in segments.
    #[derive(Debug)]
    struct Step {
        ack: String,
        delivered: u64,
        sent: Vec<String>,
        cwnd: f64,
    }

    /// 20 segments of 1000 B leave at 30 ms and those numbered in `lost` (from 1) are dropped;
    /// after that nothing is lost. Each round trip the receiver's ACKs reach the sender one by
    /// one. Returns every step from the first duplicate ACK until recovery ends (the ACK that
    /// ends it included), and the sender then.
    fn recovery_steps(c: &TcpConfig, lost: &[usize]) -> (Vec<Step>, Endpoint) {
        let (mut client, mut server) = established(c);
        let data = reply(&mut server, 100 * 1000, ms(30), c);
        assert_eq!(data.len(), 20);
        let mut flight: Vec<Out> = data
            .iter()
            .enumerate()
            .filter(|&(i, _)| !lost.contains(&(i + 1)))
            .map(|(_, o)| *o)
            .collect();
        let mut steps = Vec::new();
        let mut now = ms(40);
        let mut was_in_recovery = false;
        while !flight.is_empty() && (steps.is_empty() || server.in_recovery || !was_in_recovery) {
            let acks = deliver(&mut client, &flight, now, c);
            flight.clear();
            for ack in &acks {
                let before = server.snd_una + server.sacked.bytes_above(server.snd_una);
                let sent = deliver(&mut server, std::slice::from_ref(ack), now + ms(5), c);
                let after = server.snd_una + server.sacked.bytes_above(server.snd_una);
                was_in_recovery |= server.in_recovery;
                steps.push(Step {
                    ack: describe(ack),
                    delivered: (after - before) / 1000,
                    sent: trace(&sent),
                    cwnd: server.cwnd() / 1000.0,
                });
                flight.extend(sent);
                if was_in_recovery && !server.in_recovery {
                    return (steps, server);
                }
            }
            now = now + ms(20);
        }
        panic!("recovery did not end: {steps:#?}");
    }

    /// Each step as a line of trace: the ACK, then what went out on it.
    fn lines(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|s| format!("{} -> {}", s.ack, s.sent.join(", ")))
            .collect()
    }

    #[test]
    fn prr_sends_one_segment_per_two_delivered_where_the_window_falls_at_once() {
        // One loss in a window of 20 (ssthresh 10, RecoverFS 20). The third duplicate ACK
        // starts recovery. Standard: cwnd = ssthresh = 10 while 17 segments are in the pipe, so
        // after the fast retransmission nothing goes until the pipe has drained below 10, seven
        // ACKs later. PRR (Linux): 16 in flight (20 less 3 SACKed and the lost one) and
        // ⌈10 · 1 / 20⌉ = 1 segment, the fast retransmission; then one new segment for every
        // second segment delivered.
        let (standard, _) =
            recovery_steps(&window_of_20(Variant::Sack, RecoveryCwnd::Standard), &[1]);
        let (prr, server) = recovery_steps(&window_of_20(Variant::Sack, RecoveryCwnd::Prr), &[1]);
        assert_eq!(
            lines(&prr[2..7]),
            [
                ". 1:1 ack 1 sack 1001-4001 -> . 1:1001 ack 1",
                ". 1:1 ack 1 sack 1001-5001 -> ",
                ". 1:1 ack 1 sack 1001-6001 -> . 20001:21001 ack 1",
                ". 1:1 ack 1 sack 1001-7001 -> ",
                ". 1:1 ack 1 sack 1001-8001 -> . 21001:22001 ack 1",
            ]
        );
        assert_eq!(prr[2].cwnd, 17.0);
        assert_eq!(
            lines(&standard[2..5]),
            [
                ". 1:1 ack 1 sack 1001-4001 -> . 1:1001 ack 1",
                ". 1:1 ack 1 sack 1001-5001 -> ",
                ". 1:1 ack 1 sack 1001-6001 -> ",
            ]
        );
        // Over the first eight segments delivered in recovery, half as many sent: four with
        // PRR, and only the fast retransmission with the window cut at once.
        let sent = |steps: &[Step]| -> usize { steps[2..10].iter().map(|s| s.sent.len()).sum() };
        assert_eq!(prr[2..10].iter().map(|s| s.delivered).sum::<u64>(), 8);
        assert_eq!((sent(&prr), sent(&standard)), (4, 1));
        // Once in flight is down to ssthresh, one segment per segment delivered; recovery
        // ends with cwnd = ssthresh (Linux tcp_end_cwnd_reduction), as without PRR.
        assert!(prr[prr.len() - 5..].iter().all(|s| s.sent.len() == 1));
        assert_eq!((server.cwnd(), server.ssthresh()), (10_000.0, 10_000.0));
    }

    #[test]
    fn prr_without_sack_counts_a_segment_per_duplicate_ack() {
        // NewReno has no scoreboard: in flight is what is outstanding less a segment per
        // duplicate ACK and less the lost head until it is resent (Linux's tcp_packets_in_flight
        // with tcp_add_reno_sack). One loss in 20 then goes as with SACK: one new segment per two
        // duplicate ACKs, where RFC 5681's inflated window sends nothing until the eleventh.
        let sack = recovery_steps(&window_of_20(Variant::Sack, RecoveryCwnd::Prr), &[1]).0;
        let (prr, server) =
            recovery_steps(&window_of_20(Variant::NewReno, RecoveryCwnd::Prr), &[1]);
        let (standard, _) = recovery_steps(
            &window_of_20(Variant::NewReno, RecoveryCwnd::Standard),
            &[1],
        );
        let counts = |steps: &[Step]| steps.iter().map(|s| s.sent.len()).collect::<Vec<_>>();
        assert_eq!(counts(&prr), counts(&sack));
        assert_eq!(
            lines(&prr[2..5]),
            [
                ". 1:1 ack 1 -> . 1:1001 ack 1",
                ". 1:1 ack 1 -> ",
                ". 1:1 ack 1 -> . 20001:21001 ack 1",
            ]
        );
        assert_eq!(
            prr.iter().map(|s| s.cwnd).collect::<Vec<_>>()[2..5],
            [17.0, 16.0, 16.0]
        );
        assert!(standard[3..10].iter().all(|s| s.sent.is_empty()));
        assert_eq!(standard[10].sent.len(), 1);
        assert_eq!((server.cwnd(), server.ssthresh()), (10_000.0, 10_000.0));
    }

    #[test]
    fn prr_below_ssthresh_grows_by_at_most_one_segment_more_than_delivered() {
        // Twelve of 20 lost: at the third duplicate ACK the eight that arrived make the twelve
        // count as lost (RFC 6675 IsLost), so 5 are in flight, below ssthresh (10). Standard:
        // cwnd = 10 at once, a burst of the fast retransmission and four more. PRR-SSRB
        // (Linux): on a duplicate ACK as many as were delivered (the fast retransmission
        // alone on the first); on an ACK that advances snd_una and marks no new loss one more,
        // so in flight climbs back to ssthresh by one segment per ACK, without a burst.
        let (standard, _) = recovery_steps(
            &window_of_20(Variant::Sack, RecoveryCwnd::Standard),
            &(1..=12).collect::<Vec<_>>(),
        );
        assert_eq!(standard[2].sent.len(), 5);
        let (prr, server) = recovery_steps(
            &window_of_20(Variant::Sack, RecoveryCwnd::Prr),
            &(1..=12).collect::<Vec<_>>(),
        );
        assert_eq!(
            lines(&prr[2..4]),
            [
                ". 1:1 ack 1 sack 12001-15001 -> . 1:1001 ack 1",
                ". 1:1 ack 1 sack 12001-16001 -> . 1001:2001 ack 1",
            ]
        );
        assert_eq!(prr[2].cwnd, 6.0);
        let recovery = &prr[2..];
        for s in recovery {
            let advanced = !s.ack.starts_with(". 1:1 ack 1 ");
            assert!(
                s.sent.len() as u64 <= s.delivered + u64::from(advanced),
                "{s:?}"
            );
        }
        // The partial ACKs: two segments each (one delivered, one more) until cwnd is 10.
        let partial: Vec<&Step> = recovery.iter().filter(|s| s.ack.contains("sack")).collect();
        let partial = &partial[partial
            .iter()
            .position(|s| !s.ack.contains("ack 1 "))
            .unwrap()..];
        assert_eq!(
            partial
                .iter()
                .map(|s| (s.sent.len(), s.cwnd))
                .collect::<Vec<_>>()[..5],
            [(2, 7.0), (2, 8.0), (2, 9.0), (2, 10.0), (1, 10.0)]
        );
        assert_eq!((server.cwnd(), server.ssthresh()), (10_000.0, 10_000.0));
    }

    /// What made an end send: a segment arriving, or one of its timers.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Cause {
        Segment,
        Timer(Timer),
    }

    /// One call into the server on a [`Wire`]: why, what it sent, and its state before and after.
    #[derive(Clone, Debug)]
    struct Call {
        at: Time,
        cause: Cause,
        sent: Vec<Out>,
        snd_una_before: u64,
        snd_max_before: u64,
        snd_una: u64,
        cwnd: f64,
        ssthresh: f64,
        srtt_us8: Option<u64>,
    }

    /// A client and a server joined by a path of `delay` each way without a queue, every timer
    /// honoured: the server sends `bytes` and closes. `fate(i, seg)` decides what becomes of the
    /// server's `i`-th data segment (from 0, retransmissions included): `Some(extra)` arrives
    /// `delay + extra` after it left, `None` is lost. Everything else arrives after `delay`.
    struct Wire {
        c: TcpConfig,
        client: Endpoint,
        server: Endpoint,
        delay: Time,
        now: Time,
        /// Segments on the way: when they arrive, and whether at the client.
        flight: Vec<(Time, bool, Out)>,
        data_sent: usize,
        calls: Vec<Call>,
        /// Every segment either end sent, as a line of trace: when (ms), who, the segment, what
        /// became of it if not delivered on time, and which of the server's timers sent it.
        log: Vec<String>,
    }

    impl Wire {
        fn new(c: &TcpConfig, bytes: u64, delay: Time) -> Wire {
            let (client, server, syn) = pair(c, bytes);
            let flight = syn.into_iter().map(|o| (delay, false, o)).collect();
            Wire {
                c: c.clone(),
                client,
                server,
                delay,
                now: Time::ZERO,
                flight,
                data_sent: 0,
                calls: Vec::new(),
                log: Vec::new(),
            }
        }

        /// Run until both ends have finished, or `end`.
        fn run(&mut self, end: Time, mut fate: impl FnMut(usize, &Out) -> Option<Time>) {
            let mut rng = Rng::stream(1, "wire");
            while !(self.server.finished(&self.c) && self.client.finished(&self.c)) {
                let arrival = (0..self.flight.len()).min_by_key(|&i| self.flight[i].0);
                let timer = |e: &Endpoint| {
                    Timer::ALL
                        .iter()
                        .filter_map(|&t| e.timers.deadline(t).map(|d| (d, t)))
                        .min_by_key(|&(d, _)| d)
                };
                let (server_timer, client_timer) = (timer(&self.server), timer(&self.client));
                let next = [
                    arrival.map(|i| self.flight[i].0),
                    server_timer.map(|(d, _)| d),
                    client_timer.map(|(d, _)| d),
                ];
                let Some(at) = next.iter().flatten().min().copied() else {
                    break;
                };
                if at > end {
                    break;
                }
                self.now = at;
                let mut out = Vec::new();
                let before = (self.server.snd_una, self.server.snd_max);
                let slot = self.server.rack.slot;
                let (to_server, cause) = if next[0] == Some(at) {
                    let (_, to_client, o) = self.flight.remove(arrival.unwrap());
                    let e = if to_client {
                        &mut self.client
                    } else {
                        &mut self.server
                    };
                    e.on_segment(&o.seg, false, at, &self.c, &mut rng, &mut out);
                    (!to_client, Cause::Segment)
                } else if next[1] == Some(at) {
                    let t = server_timer.unwrap().1;
                    self.server.on_timer(t, at, &self.c, &mut out);
                    (true, Cause::Timer(t))
                } else {
                    let t = client_timer.unwrap().1;
                    self.client.on_timer(t, at, &self.c, &mut out);
                    (false, Cause::Timer(t))
                };
                let ms = at.0 as f64 / 1e6;
                if !to_server {
                    for o in &out {
                        self.log.push(format!("{ms:.1} client {}", describe(o)));
                    }
                    self.flight
                        .extend(out.into_iter().map(|o| (at + self.delay, false, o)));
                    continue;
                }
                let why = match (cause, slot) {
                    (Cause::Timer(Timer::Rto), Slot::Probe) => " [probe timeout]",
                    (Cause::Timer(Timer::Rto), Slot::Reorder) => " [reordering timeout]",
                    (Cause::Timer(Timer::Rto), Slot::Rto) => " [retransmission timeout]",
                    (Cause::Timer(_), _) => " [timer]",
                    (Cause::Segment, _) => "",
                };
                for o in &out {
                    let extra = if o.seg.len > 0 {
                        self.data_sent += 1;
                        fate(self.data_sent - 1, o)
                    } else {
                        Some(Time::ZERO)
                    };
                    let became = match extra {
                        None => " (lost)".to_string(),
                        Some(Time::ZERO) => String::new(),
                        Some(late) => format!(" (+{} ms)", late.0 / 1_000_000),
                    };
                    self.log
                        .push(format!("{ms:.1} server {}{became}{why}", describe(o)));
                    if let Some(extra) = extra {
                        self.flight.push((at + self.delay + extra, true, *o));
                    }
                }
                self.calls.push(Call {
                    at,
                    cause,
                    sent: out,
                    snd_una_before: before.0,
                    snd_max_before: before.1,
                    snd_una: self.server.snd_una,
                    cwnd: self.server.cwnd,
                    ssthresh: self.server.ssthresh,
                    srtt_us8: self.server.rto.srtt_us8(),
                });
            }
        }
    }

    /// The data segments the server sent on a [`Wire`], each with the call that sent it.
    fn data_departures(w: &Wire) -> Vec<(&Call, Out)> {
        w.calls
            .iter()
            .flat_map(|c| {
                c.sent
                    .iter()
                    .filter(|o| o.seg.len > 0)
                    .map(move |o| (c, *o))
            })
            .collect()
    }

    /// The `linux` profile with `congestion_control` and `pacing`, a 100-segment ssthresh from
    /// the start, over 50 ms each way: 400 segments of 1448 B, the data segment numbered `lost`
    /// (from 0) lost.
    fn paced_transfer(algorithm: Algorithm, pacing: Pacing, lost: Option<usize>) -> Wire {
        let mut c = cfg("linux");
        c.cc.value.algorithm = algorithm;
        c.pacing = pacing;
        let mut w = Wire::new(&c, 400 * 1448, ms(50));
        w.server.ssthresh = 100.0 * 1448.0;
        w.run(Time::from_secs(30), |i, _| {
            (Some(i) != lost).then_some(Time::ZERO)
        });
        assert!(
            w.server.finished(&c),
            "{algorithm:?}: the transfer completes"
        );
        w
    }

    #[test]
    fn a_paced_sender_spaces_its_segments_by_their_length_at_linux_rate() {
        // Linux with fq (tcp_update_pacing_rate, tcp_update_skb_after_send): on each ACK that
        // finds data outstanding the rate becomes mss · max(cwnd, outstanding) / srtt, ×2 while
        // cwnd < ssthresh / 2, ×1.2 after; after the first 10 data segments, each holds the next
        // its length at that rate. Worked out here in Linux's integers, packet by packet: a
        // segment the pacing timer released left exactly that long after the one before, and
        // none left sooner: the fast retransmission after a loss neither, held for the timer
        // when the clock is ahead (a loss in slow start, where the pacer holds new data) or
        // sent at once when it is not (in congestion avoidance, where the window does).
        for (algorithm, lost) in [
            (Algorithm::Cubic, None),
            (Algorithm::Reno, None),
            (Algorithm::Cubic, Some(40)),
            (Algorithm::Reno, Some(250)),
        ] {
            let w = paced_transfer(algorithm, Pacing::LINUX, lost);
            assert_eq!(w.server.c.data_rexmits, u64::from(lost.is_some()));
            if let Some(lost) = lost {
                let resend = w
                    .calls
                    .iter()
                    .find(|c| {
                        c.sent
                            .iter()
                            .any(|o| o.seg.len > 0 && o.seg.seq < c.snd_max_before)
                    })
                    .unwrap();
                let held = resend.cause == Cause::Timer(Timer::Send);
                assert_eq!(held, lost == 40, "{algorithm:?}: {resend:?}");
            }
            let mut rate = 0u64;
            let mut ratio_seen = [0, 0];
            let (mut k, mut last): (usize, Option<(Time, u64)>) = (0, None);
            for call in &w.calls {
                if call.cause == Cause::Segment && call.snd_max_before > call.snd_una_before {
                    let (cwnd, ssthresh) = (call.cwnd as u64 / 1448, call.ssthresh as u64 / 1448);
                    let outstanding = (call.snd_max_before - call.snd_una).div_ceil(1448);
                    let ratio = if cwnd < ssthresh / 2 { 200 } else { 120 };
                    rate = 1448 * 80_000 * ratio * cwnd.max(outstanding) / call.srtt_us8.unwrap();
                }
                for o in call.sent.iter().filter(|o| o.seg.len > 0) {
                    if let Some((prev, gap)) = last {
                        let after = call.at - prev;
                        assert!(
                            after >= Time(gap),
                            "{algorithm:?}: {} left {after:?} after the one before, under {gap} ns",
                            describe(o)
                        );
                        if call.cause == Cause::Timer(Timer::Send) {
                            assert_eq!(after, Time(gap), "{algorithm:?}: {}", describe(o));
                            ratio_seen[usize::from(call.cwnd < call.ssthresh / 2.0)] += 1;
                        }
                    }
                    // From the 11th on, each holds the next its length at the rate.
                    if k >= 10 {
                        let gap = (u64::from(o.seg.len) * 1_000_000_000).div_ceil(rate);
                        last = Some((call.at, gap));
                    }
                    k += 1;
                }
            }
            // Both rates paced segments: slow start's (cwnd < ssthresh / 2 = 50) and 120% after.
            assert!(
                ratio_seen.iter().all(|&n| n >= 20),
                "{algorithm:?}: segments released by the pacing timer at 120%, 200%: {ratio_seen:?}"
            );
        }
    }

    #[test]
    fn an_unpaced_sender_sends_what_the_window_allows_at_once() {
        // The same transfer without pacing: an ACK in slow start sends two segments back to back.
        let w = paced_transfer(Algorithm::Cubic, Pacing::Off, None);
        let departures = data_departures(&w);
        let together = departures
            .windows(2)
            .skip(10)
            .filter(|p| p[0].0.at == p[1].0.at)
            .count();
        assert!(
            together > 20,
            "{together} segments left with the one before"
        );
        assert!(w.calls.iter().all(|c| c.cause != Cause::Timer(Timer::Send)));
    }

    /// The `linux` profile with `loss_detection`, over 50 ms each way: `segments` of 1448 B from
    /// the server, the data segments numbered in `lost` (from 0) lost and those in `late`
    /// delivered that much late.
    fn rack_transfer(
        loss_detection: LossDetection,
        segments: f64,
        lost: &[usize],
        late: &[(usize, Time)],
    ) -> Wire {
        let c = TcpConfig {
            loss_detection: Listed::always(loss_detection),
            ..cfg("linux")
        };
        let mut w = Wire::new(&c, (segments * 1448.0) as u64, ms(50));
        w.run(Time::from_secs(30), |i, _| {
            let delay = late
                .iter()
                .find(|&&(k, _)| k == i)
                .map_or(Time::ZERO, |l| l.1);
            (!lost.contains(&i)).then_some(delay)
        });
        assert!(
            w.server.finished(&c),
            "the transfer completes: {:#?}",
            w.log
        );
        w
    }

    /// The trace from the server's first data segment on.
    fn from_data(w: &Wire) -> Vec<&str> {
        let first = w
            .log
            .iter()
            .position(|l| l.contains("server . 1:"))
            .unwrap();
        w.log[first..].iter().map(String::as_str).collect()
    }

    #[test]
    fn a_tail_loss_is_repaired_by_the_loss_probe_without_a_timeout() {
        // RFC 8985 §7 (Linux tcp_schedule_loss_probe, tcp_send_loss_probe): the last two of ten
        // segments are lost, so no duplicate ACK ever comes. With RACK-TLP the ACK at 250 ms
        // schedules a probe 2·SRTT + 2 ms later (SRTT 100 ms, two segments out: under the RTO);
        // with no new data the probe resends the last segment; its SACK makes RACK mark the
        // segment before it lost at once (it left 402 ms earlier, far beyond RACK.rtt plus the
        // window), and recovery resends it. With duplicate ACKs alone, the timeout.
        let rack = rack_transfer(LossDetection::RackTlp, 10.0, &[8, 9], &[]);
        assert_eq!(
            from_data(&rack)[9..],
            [
                "150.0 server F. 13033:14481 ack 1 (lost)",
                "200.0 client . 1:1 ack 2897",
                "200.0 client . 1:1 ack 5793",
                "200.0 client . 1:1 ack 8689",
                "200.0 client . 1:1 ack 11585",
                "452.0 server F. 13033:14481 ack 1 [probe timeout]",
                "502.0 client . 1:1 ack 11585 sack 13033-14482",
                "552.0 server . 11585:13033 ack 1",
                "602.0 client F. 1:1 ack 14482",
                "652.0 server . 14482:14482 ack 2",
            ]
        );
        assert_eq!((rack.server.c.timeouts, rack.server.c.fast_rexmits), (0, 1));
        let dupack = rack_transfer(LossDetection::DupAck, 10.0, &[8, 9], &[]);
        assert_eq!(
            from_data(&dupack)[14],
            "550.0 server . 11585:13033 ack 1 [retransmission timeout]"
        );
        assert_eq!(dupack.server.c.timeouts, 1);
    }

    #[test]
    fn rack_marks_a_loss_once_the_reordering_window_has_passed_with_two_duplicate_acks() {
        // RFC 8985 §6.2: the first of three segments is lost; the two after it are SACKed at
        // 250 ms, two duplicate ACKs, fewer than dupthresh. RACK: the segment was sent before the
        // one delivered, so it is lost once RACK.rtt (100 ms) and the reordering window (the
        // least RTT / 4 = 25 ms: fewer than 3 SACKed) have passed since it left, at 275 ms; the
        // reordering timer fires 2 ms after that (TCP_TIMEOUT_MIN) and recovery resends it.
        // Duplicate ACKs alone wait for the timeout.
        let rack = rack_transfer(LossDetection::RackTlp, 2.4, &[0], &[]);
        assert_eq!(
            from_data(&rack),
            [
                "150.0 server . 1:1449 ack 1 (lost)",
                "150.0 server . 1449:2897 ack 1",
                "150.0 server F. 2897:3476 ack 1",
                "200.0 client . 1:1 ack 1 sack 1449-2897",
                "200.0 client . 1:1 ack 1 sack 1449-3477",
                "277.0 server . 1:1449 ack 1 [reordering timeout]",
                "327.0 client F. 1:1 ack 3477",
                "377.0 server . 3477:3477 ack 2",
            ]
        );
        assert_eq!((rack.server.c.timeouts, rack.server.c.fast_rexmits), (0, 1));
        let dupack = rack_transfer(LossDetection::DupAck, 2.4, &[0], &[]);
        assert_eq!(
            from_data(&dupack)[5],
            "450.0 server . 1:1449 ack 1 [retransmission timeout]"
        );
    }

    #[test]
    fn reordering_within_the_window_resends_nothing() {
        // The first of three segments arrives 10 ms late, after the two behind it: the SACKs at
        // 250 ms start the reordering timer for 277 ms, and the ACK of everything at 260 ms
        // comes first. Nothing is resent. 40 ms late, past the window, the timer resends it
        // before its ACK arrives (a spurious retransmission, as Linux's without DSACK's undo).
        let within = rack_transfer(LossDetection::RackTlp, 2.4, &[], &[(0, ms(10))]);
        assert_eq!(
            from_data(&within),
            [
                "150.0 server . 1:1449 ack 1 (+10 ms)",
                "150.0 server . 1449:2897 ack 1",
                "150.0 server F. 2897:3476 ack 1",
                "200.0 client . 1:1 ack 1 sack 1449-2897",
                "200.0 client . 1:1 ack 1 sack 1449-3477",
                "210.0 client F. 1:1 ack 3477",
                "260.0 server . 3477:3477 ack 2",
            ]
        );
        assert_eq!(within.server.c.data_rexmits, 0);
        let beyond = rack_transfer(LossDetection::RackTlp, 2.4, &[], &[(0, ms(40))]);
        assert_eq!(
            from_data(&beyond)[5..7],
            [
                "240.0 client F. 1:1 ack 3477",
                "277.0 server . 1:1449 ack 1 [reordering timeout]",
            ]
        );
        assert_eq!(beyond.server.c.data_rexmits, 1);
    }

    #[test]
    fn transfers_complete_through_heavy_loss_in_every_combination() {
        // 300 segments over 50 ms each way losing a tenth of the data segments (retransmissions
        // and probes too), for each loss detection, controller, window reduction and pacing:
        // each completes. A paced sender's resend after a timeout may wait for its pacing clock
        // while duplicate ACKs arrive: the timer must run on.
        for (loss_detection, stream) in [
            (LossDetection::DupAck, "dupack-loss"),
            (LossDetection::RackTlp, "rack-loss"),
        ] {
            let mut rng = Rng::stream(3, stream);
            for algorithm in [Algorithm::Cubic, Algorithm::Reno, Algorithm::Bbr] {
                for recovery_cwnd in [RecoveryCwnd::Standard, RecoveryCwnd::Prr] {
                    for pacing in [Pacing::Off, Pacing::LINUX] {
                        let mut c = TcpConfig {
                            loss_detection: Listed::always(loss_detection),
                            recovery_cwnd: Listed::always(recovery_cwnd),
                            pacing,
                            ..cfg("linux")
                        };
                        c.cc.value.algorithm = algorithm;
                        let mut w = Wire::new(&c, 300 * 1448, ms(50));
                        let (mut sent, mut first_losses) = (std::collections::HashSet::new(), 0);
                        w.run(Time::from_secs(600), |_, o| {
                            let lost = rng.uniform() <= 0.1;
                            first_losses += usize::from(sent.insert(o.seg.seq) && lost);
                            (!lost).then_some(Time::ZERO)
                        });
                        let what = format!(
                            "{loss_detection:?} {algorithm:?} {recovery_cwnd:?} {pacing:?}"
                        );
                        assert!(
                            w.server.finished(&c),
                            "{what}: {:#?}",
                            &w.log[w.log.len() - 40..]
                        );
                        assert!(first_losses >= 15, "{what}: {first_losses} losses");
                        assert!(
                            w.server.c.data_rexmits >= first_losses as u64,
                            "{what}: every segment lost is resent"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_timeout_resend_held_by_pacing_goes_when_duplicate_acks_arrive_meanwhile() {
        // BBR paces (the linux profile, losses found by duplicate ACKs), 300 segments over 50 ms each
        // way losing a tenth of the data segments: a loss pattern in which a timeout's resend
        // waits for the pacing clock, and duplicate ACKs of the old flight arrive before it
        // goes. The go-back's resend is old data within cwnd: limited transmit's rule for new
        // data (nothing older unsent) must not hold it, and the timer runs on, backed off, as
        // Linux's tcp_retransmit_timer restarts it whether or not the resend went.
        let mut c = TcpConfig {
            loss_detection: Listed::always(LossDetection::DupAck),
            ..cfg("linux")
        };
        c.cc.value.algorithm = Algorithm::Bbr;
        let mut rng = Rng::stream(231, "probe");
        let mut w = Wire::new(&c, 300 * 1448, ms(50));
        w.run(Time::from_secs(600), |_, _| {
            (rng.uniform() > 0.1).then_some(Time::ZERO)
        });
        let held = w.calls.iter().any(|k| {
            k.cause == Cause::Timer(Timer::Rto) && k.sent.is_empty() && k.snd_una < k.snd_max_before
        });
        assert!(held, "a timeout's resend waited for the pacing clock");
        assert!(
            w.server.finished(&c),
            "the transfer completes: {:#?}",
            &w.log[w.log.len() - 30..]
        );
    }

    #[test]
    fn a_lost_retransmission_is_found_a_round_trip_later_without_a_timeout() {
        // The 13th of 40 segments is lost, and so is its fast retransmission at 350 ms (PRR).
        // RACK: the segments sent just after the retransmission are SACKed at 450 ms; it was
        // sent before them, RACK.rtt (100 ms) has passed since, and in recovery the window is
        // nothing: lost again, resent. RFC 6675's HighRxt never resends a segment twice in one
        // recovery: the timeout does, 200 ms later.
        let resends = |loss_detection| {
            let c = TcpConfig {
                loss_detection: Listed::always(loss_detection),
                recovery_cwnd: Listed::always(RecoveryCwnd::Prr),
                ..cfg("linux")
            };
            let mut w = Wire::new(&c, 40 * 1448, ms(50));
            let mut drops = 0;
            w.run(Time::from_secs(30), |_, o| {
                let drop = o.seg.seq == 1 + 12 * 1448 && drops < 2;
                drops += u32::from(drop);
                (!drop).then_some(Time::ZERO)
            });
            assert!(w.server.finished(&c));
            let lines = w.log.iter().filter(|l| l.contains("server . 17377:18825"));
            (lines.cloned().collect::<Vec<_>>(), w.server.c.timeouts)
        };
        assert_eq!(
            resends(LossDetection::RackTlp),
            (
                vec![
                    "250.0 server . 17377:18825 ack 1 (lost)".to_string(),
                    "350.0 server . 17377:18825 ack 1 (lost)".to_string(),
                    "450.0 server . 17377:18825 ack 1".to_string(),
                ],
                0
            )
        );
        let (dupack, timeouts) = resends(LossDetection::DupAck);
        assert_eq!(
            (dupack[2].as_str(), timeouts),
            (
                "650.0 server . 17377:18825 ack 1 [retransmission timeout]",
                1
            )
        );
    }

    #[test]
    fn a_whole_flight_lost_is_found_by_a_probe_of_new_data() {
        // In congestion avoidance (ssthresh 10 segments) the second flight, ten segments, is lost
        // whole: no ACK comes back. The probe, 2·SRTT + 2 ms after the last ACK, sends the next
        // new segment though cwnd is full (RFC 8985 §7.3); its SACK makes RACK mark the ten lost,
        // and recovery resends them, seven at once (cwnd = ssthresh = 7, none in flight).
        // Duplicate ACKs alone: the timeout.
        let lost_flight = |loss_detection| {
            let c = TcpConfig {
                loss_detection: Listed::always(loss_detection),
                recovery_cwnd: Listed::always(RecoveryCwnd::Standard),
                ..cfg("linux")
            };
            let mut w = Wire::new(&c, 40 * 1448, ms(50));
            w.server.ssthresh = 10.0 * 1448.0;
            w.run(Time::from_secs(30), |i, _| {
                (!(10..20).contains(&i)).then_some(Time::ZERO)
            });
            assert!(w.server.finished(&c));
            w
        };
        let rack = lost_flight(LossDetection::RackTlp);
        let after = from_data(&rack);
        assert_eq!(
            after[24..28],
            [
                "250.0 server . 27513:28961 ack 1 (lost)",
                "452.0 server . 28961:30409 ack 1 [probe timeout]",
                "502.0 client . 1:1 ack 14481 sack 28961-30409",
                "552.0 server . 14481:15929 ack 1",
            ]
        );
        assert!(after[28..34]
            .iter()
            .all(|l| l.starts_with("552.0 server . ")));
        assert_eq!(rack.server.c.timeouts, 0);
        let dupack = lost_flight(LossDetection::DupAck);
        assert_eq!(
            from_data(&dupack)[24..26],
            [
                "250.0 server . 27513:28961 ack 1 (lost)",
                "550.0 server . 14481:15929 ack 1 [retransmission timeout]",
            ]
        );
    }

    #[test]
    fn an_ack_past_a_resent_probe_reduces_the_window_once() {
        // RFC 8985 §7.4.2 (Linux tcp_process_tlp_ack): the last of ten segments is lost and
        // the probe resends it; the ACK of everything is the end of the probe's episode, which
        // stays open, the window as it was. An ACK past it says the probe repaired a loss:
        // ssthresh = β·cwnd and cwnd to it, once. An ACK past the end of a probe of new data,
        // or a pure duplicate, ends the episode and changes nothing.
        let mut w = rack_transfer(LossDetection::RackTlp, 10.0, &[9], &[]);
        assert_eq!(
            (w.server.rack.tlp_end, w.server.rack.tlp_retrans),
            (Some(14482), true)
        );
        assert_eq!((w.server.c.timeouts, w.server.c.fast_rexmits), (0, 0));
        let c = TcpConfig {
            loss_detection: Listed::always(LossDetection::RackTlp),
            ..cfg("linux")
        };
        let ack = |n: u64| Segment {
            seq: 2,
            ack: n,
            flags: flags::ACK,
            ..Segment::default()
        };
        let e = &mut w.server;
        let cwnd = e.cwnd;
        assert_eq!(e.ssthresh, f64::INFINITY);
        e.tlp_ack(&ack(20000), true, ms(700), &c);
        let reduced = (0.7 * cwnd / 1448.0).floor() * 1448.0;
        assert_eq!(
            (e.rack.tlp_end, e.cwnd, e.ssthresh),
            (None, reduced, reduced)
        );
        e.tlp_ack(&ack(30000), true, ms(800), &c);
        assert_eq!((e.cwnd, e.ssthresh), (reduced, reduced));
        for (retrans, a) in [(false, ack(30000)), (true, ack(e.snd_una))] {
            (e.rack.tlp_end, e.rack.tlp_retrans) = (Some(e.snd_una), retrans);
            e.tlp_ack(&a, false, ms(900), &c);
            assert_eq!((e.rack.tlp_end, e.cwnd), (None, reduced));
        }
    }
}
