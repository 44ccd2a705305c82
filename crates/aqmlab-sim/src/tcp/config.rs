//! TCP configuration and the named profiles of the systems the studies ran.
//!
//! A profile is a complete, documented set of defaults (`docs/models/ns2.md` §3 for ns-2,
//! `docs/models/freebsd-2.2.md` and `docs/freebsd-2.2-tcp-notes.md` for FreeBSD 2.2 and
//! 4.4BSD-Lite2 kernel sources; the RFCs for `rfc`; Linux's constants, sysctl defaults and the RFCs
//! they follow for `linux`); a scenario names one and may override any field.

use super::cc::cubic::{CubicArithmetic, CubicParams};
use super::cc::reno::RenoArithmetic;
use super::cc::{Algorithm, CcConfig};
use crate::units::{Size, Time};
use serde::ser::SerializeMap;
use serde::Serialize;

/// Loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// RFC 5681 fast retransmit and fast recovery; a partial ACK ends recovery.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole and keep recovery going.
    NewReno,
    /// RFC 2018 SACK blocks with scoreboard-and-pipe recovery (RFC 6675; ns-2 `Sack1`).
    Sack,
}

/// How RTT samples become a retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoStyle {
    /// 4.4BSD-Lite2 `tcp_xmit_timer` (docs/models/freebsd-2.2.md §2): RTT counted in slow-timer
    /// ticks starting at 1, srtt·8 and rttvar·4 in integer ticks, RTO = srtt + 4·rttvar clamped to
    /// [min, max], timers expire on the host's tick grid, backoff table ×1, 2, 4 … 64; the first
    /// backed-off timeout is four times the initial one (`tcp_newtcpcb`: 6 s, then 24 s).
    Bsd,
    /// FreeBSD 2.2 `tcp_xmit_timer` (`netinet/tcp_input.c`) and `tcp_newtcpcb` (`tcp_subr.c`): as
    /// `Bsd`, but srtt·32 and rttvar·16 (`TCP_RTT_SHIFT` 5, `TCP_RTTVAR_SHIFT` 4,
    /// `TCP_DELTA_SHIFT` 2), a timeout after a sample of at least max(min, rtt + 2 ticks), and
    /// `t_rttvar` starting so that `TCP_REXMTVAL` is the initial timeout: 3 s, then 6, 12, 24 s.
    #[serde(rename = "freebsd-2.2")]
    FreeBsd22,
    /// ns-2 before `rfc2988_` (docs/models/ns2.md §3.2): integer ticks, RTO = max(RTO·backoff,
    /// min_rto).
    Ns2Old,
    /// ns-2 with `rfc2988_` true: RTO = max(RTO, min_rto)·backoff.
    Ns2Rfc2988,
    /// RFC 6298 with clock granularity `tick`: exact arithmetic, RTO = SRTT + max(G, 4·RTTVAR).
    Rfc6298,
    /// Linux `tcp_rtt_estimator` and `tcp_set_rto` (`net/ipv4/tcp_input.c`): integer µs, srtt·8,
    /// mdev·4 (a decrease in RTT moves mdev by a gain of 1/32, not 1/4), and the timeout's
    /// variance term `rttvar` raised at once to the round trip's largest mdev, lowered by a
    /// quarter of the gap once per round trip, never below `min_rto`; RTO = srtt + rttvar rounded
    /// up to the tick (jiffies), × backoff, at most `max_rto`. Meant for per-ACK samples
    /// (timestamps), which collapse RFC 6298's RTTVAR and with it the RTO onto the SRTT.
    Linux,
}

impl RtoStyle {
    /// A BSD kernel's timer: ticks of the host's slow timer, and BSD's own fast recovery.
    pub fn is_bsd(self) -> bool {
        matches!(self, RtoStyle::Bsd | RtoStyle::FreeBsd22)
    }
}

/// When the receiver acknowledges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelAck {
    /// Every segment at once (ns-2 `TCPSink`).
    Off,
    /// Every second full segment, or `delack_time` after the first (ns-2 `DelAckSink`, RFC 5681).
    OneShot,
    /// Every second segment, or at the next tick of a host-wide `delack_time` heartbeat (BSD's
    /// 200 ms fast timer, docs/models/freebsd-2.2.md §2: 0–200 ms, ~100 ms on average).
    Heartbeat,
    /// BSD's window update (docs/freebsd-2.2-tcp-notes.md item 2). In-order data only sets a
    /// delayed-ACK flag (`TF_DELACK`: FreeBSD 2.2 `tcp_input.c` header prediction and the
    /// `TCP_REASS` macro); the application reads at once, and the read's `tcp_output` call
    /// (`soreceive` → `PRU_RCVD`, `uipc_socket.c`; `tcp_usr_rcvd`) sends an ACK when the window it
    /// can advertise has grown by at least 2·MSS bytes since this host last sent a segment, or by
    /// half the receive buffer (`tcp_output.c`: `adv >= 2*t_maxseg`, `2*adv >= sb_hiwat`): bytes,
    /// not segments. Otherwise the ACK waits for the next tick of the host-wide `delack_time`
    /// heartbeat (`tcp_fasttimo`, `tcp_timer.c`), as with `Heartbeat`. Out-of-order data and a FIN
    /// are acknowledged at once (`TF_ACKNOW`), and every segment sent carries the ACK and clears
    /// the pending state (`tcp_output.c`: `tp->t_flags &= ~(TF_ACKNOW|TF_DELACK)`).
    WindowUpdate,
    /// ns-2's `FullTcp` with its defaults (`tcp-full.cc`, `segsperack_ 1`): in-order data is
    /// acknowledged at once when the bytes received since this end last sent a segment reach one
    /// MSS (`need_send`), so a full segment is acknowledged at once and a partial one (a request,
    /// a page's tail) waits for the next tick of the agent's `delack_time` timer (`interval_`),
    /// whose ticks fall at multiples of `delack_time` from time zero. Out-of-order data and a FIN
    /// are acknowledged at once, and every segment sent carries the ACK.
    #[serde(rename = "ns2-fulltcp")]
    Ns2FullTcp,
}

/// When a NewReno sender restarts its retransmission timer on partial ACKs (RFC 6582 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PartialAckTimer {
    /// Only for the first partial ACK ("impatient"; RFC 6582 step 5, ns-2 `newreno_changes1_`).
    First,
    /// For every partial ACK ("slow but steady"; ns-2 before 2003).
    Every,
}

/// What a window reduction halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Halve {
    /// min(cwnd, rwnd): 4.4BSD `tcp_input`, ns-2 `slowdown`.
    Window,
    /// The data outstanding: RFC 5681 eq. (4). At a retransmission timeout, less the data the
    /// receiver has reported holding (SACKed): after a long SACK recovery that can be several
    /// windows, none of it in the network (RFC 6675's pipe; ns-3 `BytesInFlight`).
    FlightSize,
}

/// What a retransmission timeout does to ssthresh when the loss it answers has already timed
/// out once (the timer backed off and the data outstanding then is not all acknowledged).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeoutSsthresh {
    /// Every expiry halves the window it finds (4.4BSD `tcp_timers`, ns-2 `timeout`): after the
    /// first, one segment, so ssthresh falls to two.
    Every,
    /// Held from the first expiry (RFC 5681 §3.1: "the value of ssthresh is held constant";
    /// Linux `tcp_enter_loss` in `TCP_CA_Loss`; ns-3 `ReTxTimeout`).
    Once,
}

/// What a sender does on the first duplicate ACKs, below the fast-retransmit threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitedTransmit {
    /// Nothing.
    Off,
    /// RFC 3042: one new segment per duplicate ACK, sent only if no older data is unsent (so
    /// never during the go-back-N that follows a timeout).
    Rfc3042,
    /// ns-2's `singledup_` (`TcpAgent::send_one`, tcp.cc since 2001 and in 2.35): the segment at
    /// `t_seqno_` goes if `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_` and the peer's window
    /// allows, whatever it is. After a timeout `t_seqno_` was set back to the first unacknowledged
    /// segment, so the segment sent is often a resend of data the receiver already holds.
    Ns2,
}

impl LimitedTransmit {
    /// Is it on at all?
    pub fn is_on(self) -> bool {
        self != LimitedTransmit::Off
    }
}

/// Written as `false`, `true` (RFC 3042, as before the ns-2 form existed) or `"ns2"`.
impl Serialize for LimitedTransmit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LimitedTransmit::Off => s.serialize_bool(false),
            LimitedTransmit::Rfc3042 => s.serialize_bool(true),
            LimitedTransmit::Ns2 => s.serialize_str("ns2"),
        }
    }
}

/// The window of Reno and NewReno fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryWindow {
    /// RFC 5681 §3.2 and RFC 6582: cwnd = ssthresh + dupthresh segments at the fast retransmit,
    /// one more per further duplicate ACK, and ssthresh when recovery ends.
    Rfc,
    /// ns-2 with `exitFastRetrans_` true (its default since about 2003; tcp-reno.cc,
    /// tcp-newreno.cc): the halved window is inflated (`dupwnd_`) by `dupthresh` segments at the
    /// fast retransmit (`dupack_action`) and by one per further duplicate ACK of that recovery
    /// alone, a NewReno partial ACK deflates the inflation
    /// first and then the halved window, and when recovery ends only the inflation goes: cwnd is
    /// the halved window (a fraction with `precise_reduce`), and the ending ACK opens it as any
    /// new ACK does (not in SACK recovery, which ns-2's `Sack1` ends with the window as it is).
    Ns2,
}

/// What SACK fast recovery sends, and when it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SackRecovery {
    /// RFC 6675: recovery starts at `dupthresh` duplicate ACKs or once the first unacknowledged
    /// segment counts as lost (IsLost); send while cwnd − pipe ≥ 1 SMSS, pipe worked out from the
    /// scoreboard (SetPipe), the segment chosen by NextSeg.
    Rfc6675,
    /// ns-2's `Sack1` (tcp-sack1.cc, the same since its 1996 form): recovery starts at
    /// `dupthresh` duplicate ACKs only, each counted only if it SACKs something new
    /// (`CheckUpdate`) and none after a timeout until a new ACK (`timeout_`). A counter `pipe_`
    /// starts at the segments outstanding − `dupthresh`, loses one per ACK in recovery and one
    /// more per partial ACK (`partial_ack_` false), and gains one per segment sent; while it is
    /// below int(cwnd) the next unSACKed segment not yet resent goes (`GetNextRetran`), else new
    /// data. A partial ACK restarts the timer and ends its backoff; the end of recovery forgets
    /// `recover_` (0), so the next fast retransmit is never held back by it.
    Ns2,
}

/// How the window shrinks during fast recovery, in every `variant` (BBR, which sets its window
/// itself, keeps its own: Linux's `cong_control` hook replaces `tcp_cwnd_reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryCwnd {
    /// As [`RecoveryWindow`] and [`SackRecovery`] say: the window falls at once to ssthresh
    /// (Reno and NewReno inflated by the duplicate ACKs), and nothing new is sent until the data
    /// in flight has drained below it.
    Standard,
    /// Proportional Rate Reduction (RFC 6937) as Linux does it (`net/ipv4/tcp_input.c`:
    /// `tcp_init_cwnd_reduction`, `tcp_cwnd_reduction`, `tcp_end_cwnd_reduction`), in whole
    /// segments. Recovery remembers the window it started from (`prior_cwnd`, RFC 6937's
    /// RecoverFS) and counts the segments delivered (`prr_delivered`: newly acknowledged or
    /// SACKed; without SACK one per duplicate ACK, and a cumulative ACK less the duplicates it
    /// covers, at least one, as Linux's `tcp_remove_reno_sacks`) and sent (`prr_out`). On each ACK
    /// that delivers data, cwnd = the segments in flight (RFC 6675's pipe; without SACK the data
    /// outstanding less one segment per duplicate ACK, and less a lost head not yet resent) +
    /// sndcnt: while in flight is above ssthresh, ⌈ssthresh · prr_delivered / prior_cwnd⌉ −
    /// prr_out (the proportional part); at or below it, max(prr_delivered − prr_out, delivered),
    /// one more if the ACK advanced `snd_una` and marked nothing newly lost, at most ssthresh −
    /// in flight (Linux's PRR-SSRB since 2022; without SACK a partial ACK marks the next hole lost,
    /// so it never adds the one); at least one while nothing has been sent in this recovery (the
    /// fast retransmit). Recovery ends with cwnd = ssthresh.
    Prr,
}

/// How the sender finds lost segments (the SACK variant only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossDetection {
    /// Duplicate ACKs: fast retransmit at `dupthresh` of them, and with SACK RFC 6675's IsLost
    /// (more than `dupthresh` − 1 segments SACKed above a segment); a lost retransmission or a
    /// lost tail waits for the retransmission timeout.
    #[serde(rename = "dupack")]
    DupAck,
    /// RFC 8985 RACK-TLP as Linux has it (`net/ipv4/tcp_recovery.c`; `tcp/rack.rs`): a segment
    /// is lost once a segment sent after it has been delivered and a reordering window has
    /// passed (time, not counts: lost retransmissions too), with a timer for the window's end;
    /// a tail loss probe two round trips after the last ACK or send.
    RackTlp,
}

/// Pacing of a sender whose controller does not pace itself (`tcp/pacing.rs`). BBR always
/// paces, at the rate it sets itself (Linux: its `cong_control` hook sets `sk_pacing_rate`, and
/// `tcp_update_pacing_rate` is not called), whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Segments leave as soon as the window allows.
    Off,
    /// Linux's pacing of CUBIC and Reno with the `fq` qdisc (or TCP's internal pacing): the
    /// rate is mss · max(cwnd, segments outstanding) / SRTT times `ss_ratio` percent while
    /// cwnd < ssthresh / 2, else `ca_ratio` percent (`tcp_update_pacing_rate`; the sysctls
    /// `tcp_pacing_ss_ratio`, 200, and `tcp_pacing_ca_ratio`, 120), set on every ACK that finds
    /// data outstanding and when the connection is established; after the first 10 data
    /// segments each one, retransmissions included, leaves no earlier than its predecessor's
    /// length at that rate after it (`tcp_update_skb_after_send`, `tcp_pacing_check`).
    Linux { ss_ratio: u32, ca_ratio: u32 },
}

impl Pacing {
    /// Linux's defaults (`Documentation/networking/ip-sysctl.rst`).
    pub const LINUX: Pacing = Pacing::Linux {
        ss_ratio: 200,
        ca_ratio: 120,
    };

    /// Does a sender whose controller sets no rate pace?
    #[inline]
    pub fn is_on(self) -> bool {
        self != Pacing::Off
    }
}

/// Written flat into the TCP table: nothing when off (the profiles' resolved scenarios, hence
/// their hashes, stay as they were), else `pacing` and the two ratios.
impl Serialize for Pacing {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Pacing::Linux { ss_ratio, ca_ratio } = self {
            m.serialize_entry("pacing", "linux")?;
            m.serialize_entry("pacing_ss_ratio", ss_ratio)?;
            m.serialize_entry("pacing_ca_ratio", ca_ratio)?;
        }
        m.end()
    }
}

/// How a connection opens (and whether it closes with FINs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Handshake {
    /// SYN, SYN-ACK, ACK from the client; FINs at the end (RFC 793; BSD; ns-2 FullTcp).
    ThreeWay,
    /// ns-2's one-way agents with `syn_ true`: the data sender sends a 40-byte SYN, the sink
    /// acknowledges it; no SYN-ACK and no FIN.
    Ns2Syn,
    /// Both ends start established and never close (ns-2's agents before `syn_`).
    None,
}

impl Handshake {
    /// Do the ends exchange FINs when done?
    pub fn has_fin(self) -> bool {
        self == Handshake::ThreeWay
    }
}

/// What the scoreboard of SACKed data is worth after a retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SackAfterRto {
    /// Forget it: go back to `snd_una` and resend everything (ns-2 `Sack1`, the stacks of the
    /// 1990s). SACK blocks arriving after the timeout are recorded, but the go-back-N ignores them
    /// until the next fast recovery.
    Discard,
    /// Keep it (RFC 6675 §5.1: the sender SHOULD use the SACK information during the slow start
    /// that follows a timeout; Linux `tcp_enter_loss` keeps `TCPCB_SACKED_ACKED` unless the
    /// receiver reneged, and `tcp_timeout_mark_lost` marks only the rest lost): the go-back-N
    /// resends only the holes, SACKed data does not count against cwnd, and a cumulative ACK
    /// grows the window only by the bytes it delivers (Linux `acked_sacked`), not by the SACKed
    /// bytes it covers. Receivers here never renege.
    Keep,
}

/// RTT measurement and the timeout path: the keys `sack_after_rto`, `timestamps` and
/// `timeout_ssthresh`, added with the `linux` profile's timeout behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutConfig {
    pub sack_after_rto: SackAfterRto,
    /// RFC 7323 timestamps for RTT measurement (RTTM): every segment carries the time it was sent
    /// (TSval) and echoes TS.Recent (TSecr); every ACK that acknowledges new data, retransmitted
    /// data included, gives an RTT sample (now − TSecr), which also ends the backoff (Linux
    /// `tcp_ack_update_rtt`: `icsk_backoff = 0`). Off: Karn's rule, one timed segment per round
    /// trip, never a retransmitted one. Only the rule is modelled: the option's 12 bytes are not
    /// added to the segments (the `linux` profile counts them in `header` and `mss`).
    pub timestamps: bool,
    /// ssthresh on a repeated timeout ([`TimeoutSsthresh`]).
    pub ssthresh: TimeoutSsthresh,
}

impl TimeoutConfig {
    /// Discard the scoreboard, Karn's rule: every profile before the keys existed.
    pub const CLASSIC: TimeoutConfig = TimeoutConfig {
        sack_after_rto: SackAfterRto::Discard,
        timestamps: false,
        ssthresh: TimeoutSsthresh::Every,
    };
}

/// Written flat into the TCP table, one key per setting.
impl Serialize for TimeoutConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("sack_after_rto", &self.sack_after_rto)?;
        m.serialize_entry("timestamps", &self.timestamps)?;
        m.serialize_entry("timeout_ssthresh", &self.ssthresh)?;
        m.end()
    }
}

/// Settings whose keys came after scenarios had been stored without them, and the value those
/// scenarios meant: the resolved scenario leaves the keys out while they hold it ([`Listed`]).
pub trait Classic: PartialEq + Sized + 'static {
    const CLASSIC: Self;
}

impl Classic for CcConfig {
    const CLASSIC: CcConfig = CcConfig::RENO;
}

impl Classic for TimeoutConfig {
    const CLASSIC: TimeoutConfig = TimeoutConfig::CLASSIC;
}

impl Classic for RecoveryCwnd {
    const CLASSIC: RecoveryCwnd = RecoveryCwnd::Standard;
}

impl Classic for LossDetection {
    const CLASSIC: LossDetection = LossDetection::DupAck;
}

/// A group of settings as the resolved scenario writes it: its keys, flat in the TCP table, only
/// if `listed` or if they differ from [`Classic::CLASSIC`]. The profiles that predate the keys
/// leave them out, so that their resolved scenarios, hence their hashes, stay as they were; a
/// profile whose own values differ lists them, and so does a scenario that changes any of them
/// ([`Listed::set`]), so that a resolved scenario reads back the same even where it holds the
/// classic values again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Listed<T> {
    pub value: T,
    pub listed: bool,
}

impl<T: Classic> Listed<T> {
    /// Written only when it differs from [`Classic::CLASSIC`].
    pub const fn quiet(value: T) -> Listed<T> {
        Listed {
            value,
            listed: false,
        }
    }

    /// Written always.
    pub const fn always(value: T) -> Listed<T> {
        Listed {
            value,
            listed: true,
        }
    }

    /// Set by a scenario: listed from then on if it changes the value.
    pub fn set(&mut self, value: T) {
        self.listed |= value != self.value;
        self.value = value;
    }

    /// Left out of the resolved scenario: not listed, and the classic value.
    pub fn hidden(&self) -> bool {
        !self.listed && self.value == T::CLASSIC
    }
}

impl<T> std::ops::Deref for Listed<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Classic + Serialize> Serialize for Listed<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.listed || self.value != T::CLASSIC {
            self.value.serialize(s)
        } else {
            s.serialize_map(Some(0))?.end()
        }
    }
}

/// Retransmissions before a connection is given up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryLimit {
    Never,
    After(u32),
}

impl Serialize for RetryLimit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RetryLimit::Never => s.serialize_str("never"),
            RetryLimit::After(n) => s.serialize_u32(*n),
        }
    }
}

/// Everything a TCP endpoint's behaviour depends on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpConfig {
    pub profile: &'static str,
    pub variant: Variant,
    /// Window growth and reduction (`tcp/cc`): Reno or CUBIC, HyStart, CUBIC's constants.
    #[serde(flatten)]
    pub cc: Listed<CcConfig>,
    /// Payload bytes per full segment.
    pub mss: Size,
    /// Header bytes added to each data segment on the wire (40, or 0 for ns-2 before `useHeaders_`).
    /// Segments without data are always 40 bytes.
    pub header: Size,
    /// The receiver's advertised window (its socket buffer), constant (but see `buffer_roundup`).
    pub rwnd: Size,
    /// At connection setup, once the peer's MSS is known, round the socket buffers up to a
    /// multiple of the MSS (4.4BSD-Lite2 / FreeBSD 2.2 `tcp_input.c`, `tcp_mss()`:
    /// `bufsize = roundup(bufsize, mss); sbreserve(...)` for `so_snd` and `so_rcv`;
    /// docs/freebsd-2.2-tcp-notes.md item 4): 16 384 B becomes 17 520 B at MSS 1460. The opener's
    /// SYN still advertises `rwnd`; the listener's SYN-ACK and the opener's handshake ACK, and
    /// every segment after them, advertise the rounded window. (The send buffer is not modelled.)
    pub buffer_roundup: bool,
    /// Initial congestion window, in segments.
    pub initial_window: u32,
    /// The listener counts the ACK of its SYN-ACK as one acknowledged segment and opens its window
    /// by one MSS before it sends data (4.4BSD-Lite2 / FreeBSD 2.2 `tcp_input`: SYN_RECEIVED falls
    /// through to ESTABLISHED's ACK processing with `acked` = 1).
    pub handshake_ack_cwnd: bool,
    pub handshake: Handshake,
    pub rto: RtoStyle,
    /// Clock tick: RTT granularity (and the timer grid for `bsd`).
    pub tick: Time,
    pub initial_rto: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    /// Largest backoff multiplier.
    pub max_backoff: u32,
    /// FreeBSD 2.2's per-host RTT cache (`tcp/route_cache.rs`): a connection that took 16 RTT
    /// samples leaves its srtt and rttvar in its host's route to the peer when it closes, and a
    /// later connection between the two hosts starts its timer from them when the peer's SYN or
    /// SYN-ACK arrives. `Some(t)`: on, the end that closed first (TIME_WAIT) updating `t` after
    /// the connection completed (2·MSL, 60 s in FreeBSD 2.2). Only with `rto = "freebsd-2.2"`.
    /// Left out of the resolved scenario when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_cache: Option<Time>,
    pub delack: DelAck,
    pub delack_time: Time,
    /// When the application closes with data still unsent, the FIN rides on the segment that
    /// carries the last byte (4.4BSD-Lite2 / FreeBSD 2.2 `tcp_output.c`: `TH_FIN` is in
    /// `tcp_outflags[]` from FIN_WAIT_1 on and is cleared only
    /// `if (SEQ_LT(snd_nxt + len, snd_una + so_snd.sb_cc))`; docs/freebsd-2.2-tcp-notes.md item 3),
    /// and a pending FIN overrides the Nagle hold (see `send_chunk`) on that short last segment. If every byte has
    /// left by then, a separate FIN goes at once, as without the option.
    pub fin_piggyback: bool,
    /// The application's writes reach TCP this many bytes at a time, with a send attempt after
    /// each piece; zero: the whole write at once. FreeBSD 2.2 `sosend()` (`kern/uipc_socket.c`)
    /// hands a stream socket's data to `tcp_usr_send` one mbuf cluster (`MCLBYTES` = 2048) per
    /// `pru_send`, and each calls `tcp_output` (docs/freebsd-2.2-tcp-notes.md item 5). On an idle
    /// connection the first 2 KB thus leave as 1460 + 588 B. The send buffer is not modelled: a
    /// write is taken whole, piece by piece, until the window is full.
    ///
    /// A non-zero value also brings the BSD sender's silly-window / Nagle rule with it
    /// (4.4BSD-Lite2 / FreeBSD 2.2 `tcp_output.c`; notes items 3, 5): a new segment shorter than
    /// the MSS goes only if the connection was idle (`snd_max == snd_una`) when the send attempt
    /// began and it reaches the end of the data written, if it is at least half the largest
    /// window the peer offered, or if the application has closed and it ends the data (a pending
    /// FIN forces a send); otherwise it waits for an ACK. With zero, a short last segment goes
    /// whenever the window allows.
    pub send_chunk: Size,
    /// ns-2 `FullTcp`'s sender SWS (Nagle) rule (`tcp-full.cc` `foutput`, `nodelay_ false`): a new
    /// segment shorter than the MSS goes only if nothing is outstanding when it would be sent and
    /// it ends the data written (`quiet && emptying_buffer`, decided per segment, not per send
    /// attempt as BSD's), if it is at least half the peer's window, or if an ACK is owed then
    /// (`need_send`: the delayed-ACK timer's tick or a full segment's worth unacknowledged), which
    /// it carries. Pages written one after another on a busy connection thus leave as full
    /// segments. For the BSD rule use `send_chunk`; the two do not combine. Left out of the
    /// resolved scenario when off.
    #[serde(skip_serializing_if = "is_false")]
    pub nagle: bool,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupthresh: u32,
    /// What ssthresh becomes half of on a loss or an ECN-Echo.
    pub halve: Halve,
    /// A reduction sets cwnd to the exact half of the window, a fraction of a segment included,
    /// while ssthresh stays whole segments (ns-2 `precisionReduce_`, true by default since 2006;
    /// tcp.cc `slowdown`: `halfwin = windowd() / 2`, `cwnd_ = halfwin`,
    /// `ssthresh_ = (int) halfwin`). Off: both fall to whole segments. Left out of the resolved
    /// scenario when off.
    #[serde(skip_serializing_if = "is_false")]
    pub precise_reduce: bool,
    /// The window of Reno and NewReno fast recovery ([`RecoveryWindow`]). Left out of the
    /// resolved scenario when `rfc`.
    #[serde(skip_serializing_if = "is_rfc_recovery")]
    pub recovery_window: RecoveryWindow,
    /// SACK fast recovery ([`SackRecovery`]). Left out of the resolved scenario when `rfc6675`.
    #[serde(skip_serializing_if = "is_rfc_sack")]
    pub sack_recovery: SackRecovery,
    /// How the window shrinks during fast recovery ([`RecoveryCwnd`]). Left out of the resolved
    /// scenario when `standard`, unless the profile lists it.
    #[serde(skip_serializing_if = "Listed::hidden")]
    pub recovery_cwnd: Listed<RecoveryCwnd>,
    /// Pacing of CUBIC and Reno ([`Pacing`]): the keys `pacing`, `pacing_ss_ratio` and
    /// `pacing_ca_ratio`, left out of the resolved scenario when off.
    #[serde(flatten)]
    pub pacing: Pacing,
    /// How losses are found ([`LossDetection`]). Left out of the resolved scenario when
    /// `dupack`, unless the profile lists it.
    #[serde(skip_serializing_if = "Listed::hidden")]
    pub loss_detection: Listed<LossDetection>,
    /// A segment on each of the first duplicate ACKs ([`LimitedTransmit`]).
    pub limited_transmit: LimitedTransmit,
    /// No new fast retransmit until the data outstanding at the last reduction is acknowledged
    /// (ns-2 `bugFix_`, RFC 6582 §3.2). FreeBSD 2.2 had no such guard.
    pub recover_guard: bool,
    pub partial_ack_timer: PartialAckTimer,
    /// NewReno partial ACKs deflate cwnd by the data acknowledged (RFC 6582 §3.2 step 5); otherwise
    /// the window falls back to ssthresh (ns-2 `partial_window_deflation_ 0`).
    pub partial_window_deflation: bool,
    /// Leaving Reno/NewReno fast recovery on a new ACK: `None` sets cwnd to ssthresh and opens it no
    /// further on that ACK (RFC 5681 §3.2 step 6, RFC 6582, ns-2). `Some(n)`, BSD: cwnd falls to
    /// ssthresh only if at least `n` duplicate ACKs were counted and cwnd > ssthresh, then the
    /// usual increase applies to the same ACK (slow start while cwnd ≤ ssthresh, so +1 MSS after
    /// the deflation). FreeBSD 2.2 `tcp_input.c`: `if (tp->t_dupacks >= tcprexmtthresh &&
    /// tp->snd_cwnd > tp->snd_ssthresh) tp->snd_cwnd = tp->snd_ssthresh;`, so n = 3;
    /// 4.4BSD-Lite2 has `>`, n = 4 (docs/freebsd-2.2-tcp-notes.md item 6).
    #[serde(serialize_with = "count_or_always")]
    pub recovery_exit_deflate_at: Option<u32>,
    /// After a lost SYN or SYN-ACK, start with one segment (RFC 5681 §3.1) and an RTO of at least
    /// 3 s (RFC 6298 §5.7).
    pub syn_loss_restart: bool,
    /// After an idle period of at least one RTO, restart from the initial window (RFC 5681 §4.1;
    /// 4.4BSD; ns-2 `slow_start_restart_`).
    pub idle_restart: bool,
    /// RFC 3168 ECN: negotiate on SYN/SYN-ACK, send data as ECT, react to ECE once per window.
    pub ecn: bool,
    /// ns-2's `ecn_backoff_` (tcp.cc `ecn`): a second ECN-Echo answered at a window of one
    /// segment doubles the retransmit timeout the sender waits on before it sends again, and so
    /// does each further one until the window grows past one segment. RFC 3168 §6.1.2 asks for
    /// one wait of the current timeout.
    pub ecn_backoff: bool,
    /// ns-2 `overhead_`: each send opportunity waits U(0, overhead); `0s` for none.
    pub overhead: Time,
    /// A connection not open after this long fails (BSD `TCPTV_KEEP_INIT`); ns-2 never gives up.
    #[serde(serialize_with = "time_or_never")]
    pub connect_timeout: Option<Time>,
    pub max_retries: RetryLimit,
    /// The scoreboard after a timeout and RFC 7323 RTT measurement ([`TimeoutConfig`]).
    #[serde(flatten)]
    pub timeout: Listed<TimeoutConfig>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_rfc_recovery(w: &RecoveryWindow) -> bool {
    *w == RecoveryWindow::Rfc
}

fn is_rfc_sack(r: &SackRecovery) -> bool {
    *r == SackRecovery::Rfc6675
}

fn time_or_never<S: serde::Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => t.serialize(s),
        None => s.serialize_str("never"),
    }
}

fn count_or_always<S: serde::Serializer>(n: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => s.serialize_u32(*n),
        None => s.serialize_str("always"),
    }
}

/// The names of the built-in profiles.
pub const PROFILES: [&str; 6] = [
    "freebsd-2.2",
    "linux",
    "ns2-2000",
    "ns2-2003",
    "ns2-2.35",
    "rfc",
];

impl TcpConfig {
    /// SACK loss recovery as ns-2's `Sack1` does it ([`SackRecovery::Ns2`]).
    pub fn ns2_sack(&self) -> bool {
        self.variant == Variant::Sack && self.sack_recovery == SackRecovery::Ns2
    }

    /// A named profile, or `None` if there is no such name.
    pub fn profile(name: &str) -> Option<TcpConfig> {
        let ms = Time::from_millis;
        let s = Time::from_secs;
        Some(match name {
            // FreeBSD 2.2.8 hosts of Christiansen et al. (docs/models/freebsd-2.2.md,
            // docs/freebsd-2.2-tcp-notes.md): Reno with the BSD 500 ms slow timer and FreeBSD's
            // tcp_xmit_timer, 1 s minimum RTO, 3 s first SYN timeout (TCPTV_RTOBASE), 16 KB socket
            // buffers, MSS 1460 on Ethernet, delayed ACKs on the 200 ms fast timer, initial window
            // 1 (2 for the listener once the handshake ACK is in), no ECN, no limited transmit, no
            // NewReno-style guard on fast retransmit. From docs/freebsd-2.2-tcp-notes.md items 2-6:
            // window-update delayed ACKs (tcp_output.c), the FIN on the last data segment
            // (tcp_output.c), buffers rounded up to whole segments (tcp_input.c tcp_mss()), writes
            // passed on in 2048-byte clusters (uipc_socket.c sosend(), MCLBYTES) under the sender's
            // Nagle/SWS rule (tcp_output.c), and fast recovery left with cwnd = ssthresh after >= 3
            // duplicates (tcp_input.c).
            "freebsd-2.2" => TcpConfig {
                profile: "freebsd-2.2",
                variant: Variant::Reno,
                cc: Listed::quiet(CcConfig::RENO),
                mss: Size(1460),
                header: Size(40),
                rwnd: Size(16_384),
                // tcp_mss(): roundup(16384, 1460) = 17520 after the SYN (notes item 4).
                buffer_roundup: true,
                initial_window: 1,
                handshake_ack_cwnd: true,
                handshake: Handshake::ThreeWay,
                rto: RtoStyle::FreeBsd22,
                tick: ms(500),
                initial_rto: s(3),
                min_rto: s(1),
                max_rto: s(64),
                max_backoff: 64,
                // tcp_close / tcp_mss (route_cache.rs), updated after TIME_WAIT.
                route_cache: Some(super::route_cache::TIME_WAIT),
                // tcp_output window update + tcp_fasttimo (notes item 2).
                delack: DelAck::WindowUpdate,
                delack_time: ms(200),
                // tcp_output: TH_FIN unless snd_nxt + len < snd_una + sb_cc (notes item 3).
                fin_piggyback: true,
                // sosend: one MCLBYTES cluster per pru_send (notes item 5; param.h MCLBYTES 2048),
                // with tcp_output's Nagle/SWS rule (len == t_maxseg, idle && len + off >= sb_cc…).
                send_chunk: Size(2048),
                dupthresh: 3,
                halve: Halve::Window,
                precise_reduce: false,
                nagle: false,
                recovery_window: RecoveryWindow::Rfc,
                sack_recovery: SackRecovery::Rfc6675,
                recovery_cwnd: Listed::quiet(RecoveryCwnd::Standard),
                pacing: Pacing::Off,
                loss_detection: Listed::quiet(LossDetection::DupAck),
                limited_transmit: LimitedTransmit::Off,
                recover_guard: false,
                partial_ack_timer: PartialAckTimer::Every,
                partial_window_deflation: false,
                // tcp_input: t_dupacks >= tcprexmtthresh (notes item 6; Lite2: > , i.e. 4).
                recovery_exit_deflate_at: Some(3),
                syn_loss_restart: false,
                idle_restart: true,
                ecn: false,
                ecn_backoff: false,
                overhead: Time::ZERO,
                connect_timeout: Some(s(75)),
                max_retries: RetryLimit::After(12),
                timeout: Listed::quiet(TimeoutConfig::CLASSIC),
            },
            // A current Linux (5.x/6.x) with its defaults; each value from the kernel source
            // (include/net/tcp.h, net/ipv4/tcp_cubic.c), Documentation/networking/ip-sysctl.rst,
            // or the RFC it implements, the rest as `rfc`. What is approximated or left out:
            // docs/scenario.md.
            "linux" => TcpConfig {
                profile: "linux",
                // tcp_sack = 1: SACK-based recovery (RFC 6675 here), the window reduced by PRR
                // and losses found by RACK-TLP (below).
                variant: Variant::Sack,
                // tcp_congestion_control = cubic, with hystart = 1 (tcp_cubic.c).
                cc: Listed::always(CcConfig {
                    algorithm: Algorithm::Cubic,
                    hystart: true,
                    // tcp_cubic.c: its integer arithmetic (whole-segment target, ca->cnt,
                    // tcp_cong_avoid_ai), ca->cnt at most 20 while last_max_cwnd is 0.
                    cubic: CubicParams {
                        unknown_wmax_floor: true,
                        arithmetic: CubicArithmetic::Linux,
                        ..CubicParams::RFC9438
                    },
                    // With congestion_control = "reno": tcp_reno_cong_avoid, which counts the
                    // segments acknowledged, not the ACKs (tcp_cong.c).
                    reno: RenoArithmetic::Linux,
                }),
                // 1500 B Ethernet less 20 B IP, 20 B TCP and 12 B of timestamp option
                // (tcp_timestamps = 1): 1448 B of data in 1500 B packets. The timestamps'
                // RTT rule is modelled (`timeout` below), their bytes only here: pure ACKs stay
                // 40 B.
                mss: Size(1448),
                header: Size(52),
                // tcp_rmem max 6 MiB (ip-sysctl.rst), with window scaling: never the limit here.
                rwnd: Size(6 << 20),
                // TCP_INIT_CWND 10 (include/net/tcp.h; RFC 6928).
                initial_window: 10,
                // tcp_rtt_estimator/tcp_set_rto on a 1 ms clock (HZ 1000: jiffies).
                rto: RtoStyle::Linux,
                tick: ms(1),
                // TCP_TIMEOUT_INIT 1 s (RFC 6298), TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s.
                initial_rto: s(1),
                min_rto: ms(200),
                max_rto: s(120),
                max_backoff: 1 << 16,
                // An ACK for every second full segment (__tcp_ack_snd_check), else after the
                // delayed-ACK timer, which starts at TCP_DELACK_MIN 40 ms (its growth toward
                // TCP_DELACK_MAX 200 ms and quick-ack mode are not modelled).
                delack: DelAck::OneShot,
                delack_time: ms(40),
                // tcp_send_fin: the FIN rides on the last queued segment if it is unsent.
                fin_piggyback: true,
                // tcp_reordering = 3.
                dupthresh: 3,
                // Linux paces CUBIC and Reno only under the fq qdisc (or with SO_MAX_PACING_RATE),
                // not under its default qdiscs (pfifo_fast, fq_codel): off; `pacing = "linux"`
                // is fq's (docs/scenario.md).
                pacing: Pacing::Off,
                // tcp_recovery = 1 and tcp_early_retrans = 3: RACK-TLP (RFC 8985; tcp_recovery.c,
                // tcp_schedule_loss_probe). Listed, as the profile's own value.
                loss_detection: Listed::always(LossDetection::RackTlp),
                // tcp_cwnd_reduction: PRR (RFC 6937) in every recovery, since Linux 3.2.
                recovery_cwnd: Listed::always(RecoveryCwnd::Prr),
                // bictcp_recalc_ssthresh: β times cwnd, not the flight size.
                halve: Halve::Window,
                // RFC 3042 (tcp_input.c sends new data on the first duplicate ACKs).
                limited_transmit: LimitedTransmit::Rfc3042,
                // tcp_end_cwnd_reduction: cwnd = ssthresh when recovery ends.
                recovery_exit_deflate_at: None,
                // After a SYN timeout: one segment (tcp_init_transfer) and a 3 s RTO
                // (TCP_TIMEOUT_FALLBACK, RFC 6298 §5.7).
                syn_loss_restart: true,
                // tcp_slow_start_after_idle = 1 (Linux halves cwnd per idle RTO toward the
                // initial window; here it falls to the initial window at once).
                idle_restart: true,
                // tcp_ecn = 2: ECN when the peer asks, never asked for.
                ecn: false,
                // tcp_syn_retries = 6: given up 1+2+…+64 = 127 s after the first SYN.
                connect_timeout: Some(s(127)),
                // tcp_retries2 = 15.
                max_retries: RetryLimit::After(15),
                // tcp_enter_loss keeps SACKed segments (unless the receiver reneged: never here);
                // tcp_timestamps = 1, and tcp_ack_update_rtt takes an RTT sample from the echoed
                // timestamp of every ACK of new data and resets icsk_backoff.
                // tcp_enter_loss recomputes ssthresh only outside TCP_CA_Loss or before a
                // retransmission of it (`!icsk_retransmits`).
                timeout: Listed::always(TimeoutConfig {
                    sack_after_rto: SackAfterRto::Keep,
                    timestamps: true,
                    ssthresh: TimeoutSsthresh::Once,
                }),
                ..TcpConfig::profile("rfc").expect("rfc is a profile")
            },
            // ns-2 around 2000 (docs/models/ns2.md §3.1, c. 2000): 1000-byte packets without
            // headers, window_ 20, windowInit_ 1, no SYN, tcpTick_ 0.1, minrto 0 (floor 2 ticks),
            // rtxcur_init_ 6 s, TCPSink (no delayed ACKs), no limited transmit, bugFix_ true.
            "ns2-2000" => TcpConfig {
                profile: "ns2-2000",
                variant: Variant::Reno,
                cc: Listed::quiet(CcConfig::RENO),
                mss: Size(1000),
                header: Size(0),
                rwnd: Size(20_000),
                buffer_roundup: false,
                initial_window: 1,
                handshake_ack_cwnd: false,
                handshake: Handshake::None,
                rto: RtoStyle::Ns2Old,
                tick: ms(100),
                initial_rto: s(6),
                min_rto: Time::ZERO,
                max_rto: s(100_000),
                max_backoff: 64,
                route_cache: None,
                delack: DelAck::Off,
                delack_time: ms(100),
                fin_piggyback: false,
                send_chunk: Size(0),
                dupthresh: 3,
                halve: Halve::Window,
                precise_reduce: false,
                nagle: false,
                recovery_window: RecoveryWindow::Rfc,
                sack_recovery: SackRecovery::Rfc6675,
                recovery_cwnd: Listed::quiet(RecoveryCwnd::Standard),
                pacing: Pacing::Off,
                loss_detection: Listed::quiet(LossDetection::DupAck),
                limited_transmit: LimitedTransmit::Off,
                recover_guard: true,
                partial_ack_timer: PartialAckTimer::Every,
                partial_window_deflation: false,
                recovery_exit_deflate_at: None,
                syn_loss_restart: false,
                idle_restart: true,
                ecn: false,
                ecn_backoff: true,
                overhead: Time::ZERO,
                connect_timeout: None,
                max_retries: RetryLimit::Never,
                timeout: Listed::quiet(TimeoutConfig::CLASSIC),
            },
            // ns-2.26 era, c. 2002–03 (docs/models/ns2.md §3.1): as ns2-2000 but for 40-byte
            // headers (1040 B on the wire), windowInit_ 2, syn_ true, tcpTick_ 0.01, minrto 1 s,
            // rfc2988_ true (backoff doubles until maxrto_) and singledup_ 1; newreno_changes1_ 0
            // and partial_window_deflation_ 0 as before.
            "ns2-2003" => TcpConfig {
                profile: "ns2-2003",
                header: Size(40),
                initial_window: 2,
                handshake: Handshake::Ns2Syn,
                rto: RtoStyle::Ns2Rfc2988,
                tick: ms(10),
                min_rto: s(1),
                max_backoff: 1 << 16,
                limited_transmit: LimitedTransmit::Rfc3042,
                ..TcpConfig::profile("ns2-2000").expect("ns2-2000 is a profile")
            },
            // ns-2.35, the last release, as Debian's ns2 package runs it: every default read from
            // its tcl/lib/ns-default.tcl (`Agent/TCP set …`; docs/ns2-referee.md has the list and
            // what changed since ns-2.26). As ns2-2003 but for rtxcur_init_ 3 s, minrto_ 0.2 s,
            // maxrto_ 60 s, newreno_changes1_ 1 (the timer restarts on the first partial ACK
            // only), partial_window_deflation_ 1, singledup_ as ns-2 sends it (send_one:
            // whatever t_seqno_ is, a resend after a timeout), precisionReduce_ true (a halved
            // window keeps its fraction), exitFastRetrans_ true (ns-2's recovery window) and
            // Sack1's own pipe_ (which the older profiles leave at RFC 6675 for now).
            "ns2-2.35" => TcpConfig {
                profile: "ns2-2.35",
                initial_rto: s(3),
                min_rto: ms(200),
                max_rto: s(60),
                precise_reduce: true,
                nagle: false,
                recovery_window: RecoveryWindow::Ns2,
                sack_recovery: SackRecovery::Ns2,
                limited_transmit: LimitedTransmit::Ns2,
                partial_ack_timer: PartialAckTimer::First,
                partial_window_deflation: true,
                ..TcpConfig::profile("ns2-2003").expect("ns2-2003 is a profile")
            },
            // Today's standards: SACK loss recovery (RFC 2018/6675), RFC 6298 timers (1 s initial
            // and minimum, 60 s maximum, 1 ms clock), RFC 3390 initial window (3 segments of 1460),
            // delayed ACKs every second segment or 200 ms (RFC 5681 §4.2), limited transmit
            // (RFC 3042), 64 KiB window (no window scaling).
            "rfc" => TcpConfig {
                profile: "rfc",
                variant: Variant::Sack,
                cc: Listed::quiet(CcConfig::RENO),
                mss: Size(1460),
                header: Size(40),
                rwnd: Size(65_535),
                buffer_roundup: false,
                initial_window: 3,
                handshake_ack_cwnd: false,
                handshake: Handshake::ThreeWay,
                rto: RtoStyle::Rfc6298,
                tick: ms(1),
                initial_rto: s(1),
                min_rto: s(1),
                max_rto: s(60),
                max_backoff: 64,
                route_cache: None,
                delack: DelAck::OneShot,
                delack_time: ms(200),
                fin_piggyback: false,
                send_chunk: Size(0),
                dupthresh: 3,
                halve: Halve::FlightSize,
                precise_reduce: false,
                nagle: false,
                recovery_window: RecoveryWindow::Rfc,
                sack_recovery: SackRecovery::Rfc6675,
                recovery_cwnd: Listed::quiet(RecoveryCwnd::Standard),
                pacing: Pacing::Off,
                loss_detection: Listed::quiet(LossDetection::DupAck),
                limited_transmit: LimitedTransmit::Rfc3042,
                recover_guard: true,
                partial_ack_timer: PartialAckTimer::First,
                partial_window_deflation: true,
                recovery_exit_deflate_at: None,
                syn_loss_restart: true,
                idle_restart: true,
                ecn: false,
                ecn_backoff: false,
                overhead: Time::ZERO,
                connect_timeout: Some(s(75)),
                max_retries: RetryLimit::After(12),
                // RFC 5681 §3.1: ssthresh held on a repeated timeout.
                timeout: Listed::always(TimeoutConfig {
                    ssthresh: TimeoutSsthresh::Once,
                    ..TimeoutConfig::CLASSIC
                }),
            },
            _ => return None,
        })
    }

    /// Bytes on the wire of a segment with `payload` bytes.
    pub fn wire_size(&self, payload: u32) -> u32 {
        if payload == 0 {
            40
        } else {
            payload + self.header.bytes() as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_profile_exists_and_knows_its_name() {
        for name in PROFILES {
            let p = TcpConfig::profile(name).unwrap();
            assert_eq!(p.profile, name);
            assert!(p.min_rto <= p.max_rto && p.initial_rto <= p.max_rto);
        }
        assert!(TcpConfig::profile("windows-95").is_none());
    }

    #[test]
    fn listed_keys_are_written_unless_classic_and_never_changed() {
        let keys =
            |l: &Listed<CcConfig>| serde_json::to_value(l).unwrap().as_object().unwrap().len();
        let mut cc = Listed::quiet(CcConfig::RENO);
        assert_eq!(keys(&cc), 0);
        cc.set(CcConfig::RENO);
        assert_eq!(keys(&cc), 0, "the classic value set again lists nothing");
        let cubic = CcConfig {
            algorithm: Algorithm::Cubic,
            ..CcConfig::RENO
        };
        assert_eq!(keys(&Listed::quiet(cubic)), 8);
        cc.set(cubic);
        cc.set(CcConfig::RENO);
        assert_eq!(keys(&cc), 8, "once changed, the keys stay written");
        assert_eq!(keys(&Listed::always(CcConfig::RENO)), 8);
        let timeout = serde_json::to_value(Listed::quiet(TimeoutConfig::CLASSIC)).unwrap();
        assert_eq!(timeout, serde_json::json!({}));
    }

    #[test]
    fn wire_sizes_follow_the_header_setting() {
        let ns = TcpConfig::profile("ns2-2000").unwrap();
        assert_eq!((ns.wire_size(1000), ns.wire_size(0)), (1000, 40));
        let bsd = TcpConfig::profile("freebsd-2.2").unwrap();
        assert_eq!(bsd.wire_size(1460), 1500);
    }
}
