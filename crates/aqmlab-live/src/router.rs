//! The router: the scenario's bottleneck, both directions, run on real packets against the real
//! clock. Packets from the servers' TUN device go forward (R1 → R2) to the clients' device, and
//! back the other way, each through what the simulator's dumbbell puts on that path
//! (`aqmlab_sim::network`):
//!
//! ```text
//! read ─ sender's access link ─ bottleneck queue ─ transmitter ─ bottleneck delay ─ receiver's access link + pair delay ─ write
//!        (delay + its own        (the scenario's    (the rate,     ─────────────── one delay line ────────────────────
//!         serialization)          discipline)         framing)
//! ```
//!
//! The queue and the transmitter are the engine's own ([`aqmlab_sim::sim::bottleneck`]): the same
//! discipline, counters, queue log and link log as a simulated run, so the summary and the `queue`
//! and `link` tables are the simulator's, with the same identities checked. The access links are
//! pure delays (their propagation delay plus the serialization of each packet at their rate, with
//! no queueing: the testbeds' access links were never the bottleneck).
//!
//! Time is the scenario's: nanoseconds since `start_ns` on `CLOCK_MONOTONIC`. Each packet is
//! stamped when read; from there, every step runs on the ideal schedule (a transmission that
//! ends at t starts the next at t, however late the router noticed), processed in time order, so
//! the disciplines see the times they would in simulation. Only the write to the receiving
//! device happens when the router gets to it: its lateness against the ideal time is the
//! router's timing error ([`crate::timing`]). Between steps the router sleeps in ppoll(2) with
//! its timer slack at 1 ns.

use crate::ip;
use crate::timing::{Lateness, LatenessSummary};
use crate::tun::Tun;
use aqmlab_sim::measure::{AtWarmup, IntervalCounts};
use aqmlab_sim::network::{host_at, Dumbbell, Link, MAX_HOSTS_A_SIDE, R1_MAC, R2_MAC};
use aqmlab_sim::packet::{Ecn, Packet, PacketId, Proto};
use aqmlab_sim::pcap::PcapWriter;
use aqmlab_sim::queue::{config::QueueSpec, Departure, DropReason, MarkReason, QueueDisc, Verdict};
use aqmlab_sim::report::{Checks, Meta, Report, Summary};
use aqmlab_sim::scenario::Scenario;
use aqmlab_sim::sim::report as measured;
use aqmlab_sim::units::Time;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use std::time::Instant;

/// A side of the dumbbell, and its device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Servers = 0,
    Clients = 1,
}

/// Room for one packet: the devices' MTU is 1500.
const SLOT: usize = 2048;
/// How often, in real time, the router asks whether to stop (Ctrl-C).
const STOP_POLL_NS: u64 = 20_000_000;

/// What the router did besides the bottleneck's own counters.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct RouterCounts {
    /// Packets read from the devices.
    pub read_pkts: u64,
    /// Packets that were not IPv4 between two hosts of the address plan: dropped, not queued.
    pub foreign_pkts: u64,
    /// Packets the receiving device could not take (its queue full): lost after the link.
    pub device_full_pkts: u64,
    /// Packets still on their way (in a delay line) when the run ended: never written.
    pub undelivered_pkts: u64,
}

/// A live run's outcome: the simulator's report of the bottleneck, and the router's own.
#[derive(Debug)]
pub struct Routed {
    pub report: Report,
    pub lateness: LatenessSummary,
    pub counts: RouterCounts,
    /// Whether the router ran under `SCHED_FIFO` (else under the normal policy, and its timing
    /// is at the mercy of the endpoints' processes).
    pub fifo: bool,
}

/// Why a live run refuses a scenario: the scenario key and what is wrong with it.
pub fn refusal(s: &Scenario) -> Option<(&'static str, String)> {
    let Some(dumbbell) = s.topology.dumbbell() else {
        return Some((
            "topology",
            "live mode runs the dumbbell (one router between servers and clients) only".into(),
        ));
    };
    for (key, q) in [("queue", &s.queue), ("reverse_queue", &s.reverse_queue)] {
        if let QueueSpec::Scripted { .. } = **q {
            return Some((
                key,
                "a scripted queue names simulated connections; live mode has real ones".into(),
            ));
        }
    }
    if let Some((i, name)) = s
        .capture
        .links
        .iter()
        .enumerate()
        .find(|(_, l)| !matches!(l.as_str(), "forward" | "reverse"))
    {
        return Some((
            "capture.links",
            format!("[{i}] \"{name}\": live mode traces the bottleneck (forward, reverse) only"),
        ));
    }
    let hosts = dumbbell.servers.max(dumbbell.clients);
    (hosts > MAX_HOSTS_A_SIDE).then(|| {
        (
            "topology",
            format!("live mode names at most {MAX_HOSTS_A_SIDE} hosts a side"),
        )
    })
}

/// The packets in the router: their bytes in slots of [`SLOT`], what the disciplines read of
/// them, and when each entered the queue; freed slots are reused (no allocation per packet).
#[derive(Default)]
struct Pool {
    bytes: Vec<u8>,
    len: Vec<u16>,
    meta: Vec<Packet>,
    enqueued_at: Vec<Time>,
    free: Vec<PacketId>,
}

impl Pool {
    fn take(&mut self) -> PacketId {
        if let Some(id) = self.free.pop() {
            return id;
        }
        let id = self.meta.len() as PacketId;
        self.bytes.resize(self.bytes.len() + SLOT, 0);
        self.len.push(0);
        self.meta.push(Packet::default());
        self.enqueued_at.push(Time::ZERO);
        id
    }
    fn slot(&mut self, id: PacketId) -> &mut [u8] {
        let at = id as usize * SLOT;
        &mut self.bytes[at..at + SLOT]
    }
    fn packet(&mut self, id: PacketId) -> &mut [u8] {
        let n = usize::from(self.len[id as usize]);
        &mut self.slot(id)[..n]
    }
    fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }
}

/// A flow's 5-tuple: TCP or not, source and destination addresses and ports.
type FiveTuple = (bool, [u8; 4], [u8; 4], u16, u16);

/// Packets on their way somewhere, each with its arrival time and a sequence number that keeps
/// packets arriving at the same time in the order they came.
type Line = BinaryHeap<Reverse<(Time, u64, PacketId)>>;

/// One direction: the packets on the sender's access link, the bottleneck, the packets on their
/// way to the receiver, and the device they are written to.
struct Way {
    link: Link,
    at_warmup: AtWarmup,
    to_queue: Line,
    to_host: Line,
    out: Side,
    /// Its packet trace, if the scenario's `[capture]` names it: each packet as its
    /// transmission starts, as a simulated run records it.
    capture: Option<PcapWriter<BufWriter<File>>>,
}

/// The router's next step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// A packet reaches the bottleneck queue of way `w`.
    Enqueue(usize),
    /// Way `w`'s transmission ends.
    TxDone(usize),
    /// Way `w`'s discipline's own timer.
    Timer(usize),
    /// A packet reaches its host (is written).
    Deliver(usize),
    Warmup,
    End,
}

struct Router<'a> {
    scenario: &'a Scenario,
    topo: Dumbbell,
    pool: Pool,
    /// Forward (servers → clients) and reverse.
    ways: [Way; 2],
    /// Each 5-tuple seen (is it TCP, addresses, ports), numbered as it first came.
    flows: HashMap<FiveTuple, u32>,
    measuring: bool,
    warmed: bool,
    seq: u64,
    lateness: Lateness,
    counts: RouterCounts,
    /// The first error writing a packet trace (that trace then stops; the run goes on).
    capture_error: Option<io::Error>,
    start: Instant,
    start_offset_ns: i128,
}

/// The router thread's real-time scheduling while it routes: its timer slack at 1 ns (wake-ups
/// within 1 ns of the asked time, where the default lets the kernel defer them by 50 µs) and,
/// where the process may (root, or `CAP_SYS_NICE`), the `SCHED_FIFO` policy at priority 50, so
/// that the endpoints' processes do not delay its wake-ups. Both are undone when it is dropped.
struct RealTime {
    /// The policy and priority to restore, if `SCHED_FIFO` was taken.
    previous: Option<(libc::c_int, libc::sched_param)>,
    fifo: bool,
}

impl RealTime {
    fn enter() -> RealTime {
        // SAFETY: prctl(2) and sched_{get,set}scheduler(2) on this thread only (tid 0), with
        // parameters we own.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64);
            let policy = libc::sched_getscheduler(0);
            let mut param: libc::sched_param = std::mem::zeroed();
            libc::sched_getparam(0, &mut param);
            let fifo = libc::sched_param { sched_priority: 50 };
            let ok = libc::sched_setscheduler(0, libc::SCHED_FIFO, &fifo) == 0;
            RealTime {
                previous: ok.then_some((policy, param)),
                fifo: ok,
            }
        }
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        // SAFETY: as in `enter`: this thread's own timer slack (back to the default 50 µs) and
        // scheduling policy.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 50_000u64, 0u64, 0u64, 0u64);
            if let Some((policy, param)) = self.previous {
                libc::sched_setscheduler(0, policy, &param);
            }
        }
    }
}

/// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`, as Python's `time.monotonic_ns`).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime(2) fills the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Router<'_> {
    /// The scenario's time now (0 before its start).
    fn now(&self) -> Time {
        let ns = self.start.elapsed().as_nanos() as i128 + self.start_offset_ns;
        Time(ns.max(0) as u64)
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The earliest step due, with its time.
    fn next_step(&self) -> (Time, Step) {
        let mut best = (self.scenario.duration, Step::End);
        if !self.warmed {
            best = best.min((self.scenario.warmup, Step::Warmup));
        }
        for (w, way) in self.ways.iter().enumerate() {
            if let Some(Reverse((t, _, _))) = way.to_queue.peek() {
                best = best.min((*t, Step::Enqueue(w)));
            }
            if way.link.in_tx.is_some() {
                best = best.min((way.link.tx_ends, Step::TxDone(w)));
            }
            if let Some(t) = way.link.qdisc.next_timer() {
                best = best.min((t, Step::Timer(w)));
            }
            if let Some(Reverse((t, _, _))) = way.to_host.peek() {
                best = best.min((*t, Step::Deliver(w)));
            }
        }
        best
    }

    /// The time a packet of `size` IP bytes spends on an access link (delay and serialization).
    fn access(&self, size: u32) -> Time {
        let a = &self
            .scenario
            .topology
            .dumbbell()
            .expect("refused unless a dumbbell")
            .access;
        a.delay + a.rate.tx_time(a.framing.wire_bytes(size))
    }

    /// Read every packet waiting on `tun` (packets from `side`), stamped `now`.
    fn read_all(&mut self, tun: &Tun, from: Side, now: Time) -> io::Result<()> {
        loop {
            let id = self.pool.take();
            let Some(n) = tun.read(self.pool.slot(id))? else {
                self.pool.free(id);
                return Ok(());
            };
            self.counts.read_pkts += 1;
            self.pool.len[id as usize] = n as u16;
            match self.admit(id, from) {
                Some(size) => {
                    let w = usize::from(from == Side::Clients);
                    let at = now + self.access(size);
                    let seq = self.next_seq();
                    self.ways[w].to_queue.push(Reverse((at, seq, id)));
                }
                None => {
                    self.counts.foreign_pkts += 1;
                    self.pool.free(id);
                }
            }
        }
    }

    /// Fill in what the disciplines read of packet `id`, read from `from`'s device: its size, or
    /// `None` if it is not IPv4 from a host of `from` to a host of the other side.
    fn admit(&mut self, id: PacketId, from: Side) -> Option<u32> {
        let h = ip::parse(self.pool.packet(id))?;
        let servers = self.topo.servers;
        let (src, dst) = (host_at(servers, h.src)?, host_at(servers, h.dst)?);
        let hosts = self.topo.hosts();
        let from_servers = from == Side::Servers;
        if src >= hosts
            || dst >= hosts
            || (src < servers) != from_servers
            || (dst < servers) == from_servers
        {
            return None;
        }
        let next = self.flows.len() as u32;
        let flow = *self
            .flows
            .entry((h.proto == Proto::Tcp, h.src, h.dst, h.ports.0, h.ports.1))
            .or_insert(next);
        let size = u32::from(h.total_len).min(self.pool.len[id as usize].into());
        self.pool.meta[id as usize] = Packet {
            flow,
            size,
            src,
            dst,
            proto: h.proto,
            ecn: h.ecn,
            ..Packet::default()
        };
        Some(size)
    }

    fn run_step(&mut self, t: Time, step: Step, tuns: &[Tun; 2]) -> io::Result<bool> {
        match step {
            Step::Enqueue(w) => {
                let Reverse((_, _, id)) = self.ways[w].to_queue.pop().expect("peeked");
                self.enqueue(w, id, t);
            }
            Step::TxDone(w) => {
                let measuring = self.measuring;
                let way = &mut self.ways[w];
                let id = way.link.in_tx.expect("a transmission under way");
                way.link.end_tx(measuring);
                let p = self.pool.meta[id as usize];
                let at =
                    t + way.link.delay + self.access(p.size) + self.topo.pair_delay(p.src, p.dst);
                let seq = self.next_seq();
                self.ways[w].to_host.push(Reverse((at, seq, id)));
                self.start_tx(w, t);
            }
            Step::Timer(w) => {
                let link = &mut self.ways[w].link;
                link.before_change(t);
                link.qdisc.on_timer(t);
            }
            Step::Deliver(w) => {
                let Reverse((_, _, id)) = self.ways[w].to_host.pop().expect("peeked");
                let tun = &tuns[self.ways[w].out as usize];
                if !tun.write(self.pool.packet(id))? {
                    self.counts.device_full_pkts += 1;
                }
                let late = self.now().0.saturating_sub(t.0);
                self.lateness.record(late);
                self.pool.free(id);
            }
            Step::Warmup => {
                for way in &mut self.ways {
                    let in_tx = way.link.in_tx.map(|id| self.pool.meta[id as usize].size);
                    way.at_warmup = way.link.at_warmup(t, in_tx);
                }
                self.warmed = true;
                self.measuring = true;
            }
            Step::End => {
                for way in &mut self.ways {
                    way.link.close(t);
                    self.counts.undelivered_pkts += (way.to_queue.len() + way.to_host.len()) as u64;
                }
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Offer packet `id` to way `w`'s queue at `t`; start transmitting if the link is idle (the
    /// simulator's `enqueue`, without its shortcut for a packet passing an idle queue).
    fn enqueue(&mut self, w: usize, id: PacketId, t: Time) {
        let measuring = self.measuring;
        let link = &mut self.ways[w].link;
        link.counters.arrivals += 1;
        link.before_change(t);
        let verdict = link
            .qdisc
            .enqueue(id, &self.pool.meta[id as usize], t, &mut link.rng);
        link.count_interval(measuring, t, IntervalCounts::count_arrival);
        match verdict {
            Verdict::Dropped(reason) => return self.count_drop(w, id, reason, false, t),
            Verdict::Enqueued => {}
            Verdict::Marked(why) => self.count_mark(w, id, why, t),
            Verdict::DroppedFront { victim, reason } => self.count_drop(w, victim, reason, true, t),
        }
        self.ways[w].link.counters.enqueued += 1;
        self.pool.enqueued_at[id as usize] = t;
        if self.ways[w].link.in_tx.is_none() {
            self.start_tx(w, t);
        }
    }

    /// The transmitter of way `w` is free at `t`: take the next packet, if any, and send it.
    fn start_tx(&mut self, w: usize, t: Time) {
        let measuring = self.measuring;
        let link = &mut self.ways[w].link;
        if !link.needs_dequeue(t) {
            return;
        }
        let next = link.qdisc.dequeue(t, &mut link.dequeue_drops);
        let mut dropped = std::mem::take(&mut link.dequeue_drops);
        for &(id, reason) in &dropped {
            self.count_drop(w, id, reason, true, t);
        }
        dropped.clear();
        self.ways[w].link.dequeue_drops = dropped;
        let Some(Departure { id, size, mark }) = next else {
            return self.ways[w].link.qdisc.link_idle(t);
        };
        if let Some(why) = mark {
            self.count_mark(w, id, why, t);
        }
        let wait = t - self.pool.enqueued_at[id as usize];
        let link = &mut self.ways[w].link;
        link.count_interval(measuring, t, |c| c.count_departure(wait));
        link.counters.departures += 1;
        link.counters.wait_ns += u128::from(wait.0);
        link.in_tx = Some(id);
        link.tx_size = size;
        link.tx_started = t;
        link.tx_ends = t + link.tx.time(size);
        let way = &mut self.ways[w];
        if let Some(pcap) = way.capture.as_mut() {
            let (src, dst) = match way.out {
                Side::Clients => (R1_MAC, R2_MAC),
                Side::Servers => (R2_MAC, R1_MAC),
            };
            let at = id as usize * SLOT;
            let bytes = &self.pool.bytes[at..at + usize::from(self.pool.len[id as usize])];
            if let Err(e) = pcap.write_packet(t, src, dst, bytes) {
                self.capture_error.get_or_insert(e);
                way.capture = None;
            }
        }
    }

    fn count_drop(
        &mut self,
        w: usize,
        id: PacketId,
        reason: DropReason,
        from_queue: bool,
        t: Time,
    ) {
        let size = u64::from(self.pool.meta[id as usize].size);
        let link = &mut self.ways[w].link;
        link.counters.drops[reason.index()] += 1;
        link.counters.drop_bytes[reason.index()] += size;
        if from_queue {
            link.counters.front_drops += 1;
        }
        link.count_interval(self.measuring, t, |c| c.count_drop(size, reason));
        self.pool.free(id);
    }

    fn count_mark(&mut self, w: usize, id: PacketId, why: MarkReason, t: Time) {
        let size = u64::from(self.pool.meta[id as usize].size);
        self.pool.meta[id as usize].ecn = Ecn::Ce;
        ip::set_ce(self.pool.packet(id));
        let link = &mut self.ways[w].link;
        link.counters.marks[why.index()] += 1;
        link.counters.mark_bytes[why.index()] += size;
        link.count_interval(self.measuring, t, |c| c.count_mark(size));
    }

    fn report(&self, wall_s: f64) -> Report {
        let s = self.scenario;
        let measured = s.duration - s.warmup;
        let [fwd, rev] = &self.ways;
        let forward = measured::direction(&fwd.link, &fwd.at_warmup, measured);
        let reverse = measured::direction(&rev.link, &rev.at_warmup, measured);
        let mut violations = Vec::new();
        for (way, d) in [(fwd, &forward), (rev, &reverse)] {
            measured::link_identities(&mut violations, &way.link, &way.at_warmup);
            measured::direction_identities(
                &mut violations,
                &way.link,
                &way.at_warmup,
                d,
                s.duration,
            );
        }
        let links = [(&fwd.link, "forward"), (&rev.link, "reverse")];
        Report {
            summary: Summary {
                meta: Meta {
                    version: aqmlab_sim::VERSION,
                    build: aqmlab_sim::BUILD,
                    seed: s.seed,
                    scenario: s.to_value(),
                    scenario_hash: None,
                    wall_s,
                    events: self.counts.read_pkts,
                    duration_s: s.duration.as_secs_f64(),
                    measured_s: measured.as_secs_f64(),
                    peak_pkts: self.pool.meta.len() as u64,
                    peak_connections: self.flows.len() as u64,
                    provenance: None,
                },
                warnings: s.warnings.clone(),
                checks: Checks {
                    counter_identities: violations.is_empty(),
                    violations,
                },
                links: [("forward".into(), forward), ("reverse".into(), reverse)].into(),
                requests: measured::request_summary(&[]),
                // The router forwards packets; what the kernel's applications received is not
                // seen here.
                groups: Default::default(),
            },
            tables: vec![
                measured::queue_table(&links),
                measured::link_table(&links, s.duration),
            ],
        }
    }
}

/// Route between the servers' device and the clients' device for the scenario's duration, its
/// time 0 at `start_ns` on the monotonic clock ([`monotonic_ns`]); `seed` seeds the disciplines'
/// random streams as a simulated run's. The bottleneck directions the scenario's `[capture]`
/// names (`forward`, `reverse`) are traced into `capture_dir` (`<name>.pcap`, the packets' real
/// bytes in Ethernet frames from R1 to R2 or back), if given. `stop()` is asked every 20 ms of real time; when it says
/// so, the run ends with `ErrorKind::Interrupted`.
pub fn route(
    scenario: &Scenario,
    seed: u64,
    start_ns: u64,
    tuns: [Tun; 2],
    capture_dir: Option<&Path>,
    stop: &mut dyn FnMut() -> bool,
) -> io::Result<Routed> {
    if let Some((key, why)) = refusal(scenario) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{key}: {why}"),
        ));
    }
    let realtime = RealTime::enter();
    let topo = Dumbbell::new(
        scenario
            .topology
            .dumbbell()
            .expect("refused unless a dumbbell"),
        seed,
    );
    let way = |name: &str, out: Side| -> io::Result<Way> {
        let capture = match capture_dir {
            Some(dir) if scenario.capture.links.iter().any(|l| l == name) => {
                let file = File::create(dir.join(format!("{name}.pcap")))?;
                Some(PcapWriter::new(
                    BufWriter::new(file),
                    scenario.capture.snaplen,
                )?)
            }
            _ => None,
        };
        Ok(Way {
            link: aqmlab_sim::sim::bottleneck(scenario, name, seed, &[]),
            at_warmup: AtWarmup::default(),
            to_queue: Line::new(),
            to_host: Line::new(),
            out,
            capture,
        })
    };
    let ways = [
        way("forward", Side::Clients)?,
        way("reverse", Side::Servers)?,
    ];
    let start = Instant::now();
    let mut router = Router {
        scenario,
        topo,
        pool: Pool::default(),
        ways,
        flows: HashMap::new(),
        measuring: false,
        warmed: scenario.warmup == Time::ZERO,
        seq: 0,
        lateness: Lateness::default(),
        counts: RouterCounts::default(),
        capture_error: None,
        start,
        start_offset_ns: i128::from(monotonic_ns()) - i128::from(start_ns),
    };
    if router.warmed {
        router.measuring = true;
    }
    let sides = [Side::Servers, Side::Clients];
    let mut next_stop_poll = 0;
    loop {
        let now = router.now();
        for (tun, &side) in tuns.iter().zip(&sides) {
            router.read_all(tun, side, now)?;
        }
        loop {
            let (t, step) = router.next_step();
            if t > router.now() {
                break;
            }
            if !router.run_step(t, step, &tuns)? {
                for way in &mut router.ways {
                    if let Some(pcap) = way.capture.take() {
                        pcap.finish()?;
                    }
                }
                if let Some(e) = router.capture_error.take() {
                    return Err(e);
                }
                let wall_s = start.elapsed().as_secs_f64();
                return Ok(Routed {
                    report: router.report(wall_s),
                    lateness: router.lateness.summary(),
                    counts: router.counts,
                    fifo: realtime.fifo,
                });
            }
        }
        let now = router.now();
        if now.0 >= next_stop_poll {
            if stop() {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
            }
            next_stop_poll = now.0 + STOP_POLL_NS;
        }
        let (t, _) = router.next_step();
        let wait = t.0.saturating_sub(router.now().0).min(STOP_POLL_NS);
        let mut fds = tuns.each_ref().map(|tun| libc::pollfd {
            fd: tun.raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        let timeout = libc::timespec {
            tv_sec: (wait / 1_000_000_000) as libc::time_t,
            tv_nsec: (wait % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: ppoll(2) on two descriptors we own, with a timeout we own and no signal mask.
        unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &timeout, std::ptr::null()) };
    }
}
