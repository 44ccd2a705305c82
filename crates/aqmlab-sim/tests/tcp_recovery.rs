//! TCP scenario tests with scripted drops and marks: one behaviour each, through the whole engine
//! (dumbbell, queues, endpoints). A single transfer crosses a 10 Mbit/s bottleneck with 40 ms of
//! one-way delay (RTT ≈ 81 ms); the scripted queue is large, so only the scripted losses happen.

mod common;

use aqmlab_sim::{Column, Report};
use serde_json::{json, Value};

/// One 300 KB download (206 segments of 1460 B) whose segments `drops` are dropped (or CE-marked)
/// on their first transmission. Delayed ACKs off and a 1 MiB window, so slow start reaches a window
/// of 24 segments when segment 30 is sent (rounds of 3, 6, 12, 24 segments). Reductions halve the
/// window (as BSD and ns-2 do) rather than the flight size, so the traces are easy to check. Whole
/// writes (`send_chunk` 0), so that segment `n` starts at byte 1 + (n − 1)·MSS for every profile.
fn transfer(profile: &str, variant: &str, segments: &[u64], action: &str, ecn: bool) -> Report {
    let drops: Vec<Value> = segments
        .iter()
        .map(|s| json!({"group": "f", "segment": s, "action": action}))
        .collect();
    let v = json!({
        "duration": "30s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": {"kind": "scripted", "limit": "1000p", "drops": drops},
        "tcp": {"profile": profile, "variant": variant, "delack": "off", "rwnd": "1MiB", "ecn": ecn, "halve": "window", "send_chunk": "0"},
        "traffic": [{"kind": "ftp", "name": "f", "size": "300KB", "trace": true}]
    });
    common::run(&v, Some(1))
}

/// Connection 0's value in column `col` of the connections table, as a float.
fn conn(r: &Report, col: &str) -> f64 {
    match r.table("connections").and_then(|t| t.column(col)) {
        Some(Column::F64(v)) => v[0],
        Some(Column::I64(v)) => v[0] as f64,
        other => panic!("connections.{col}: {other:?}"),
    }
}

fn outcome(r: &Report) -> String {
    match r.table("connections").and_then(|t| t.column("outcome")) {
        Some(Column::Str(v)) => v.get(0).to_string(),
        other => panic!("connections.outcome: {other:?}"),
    }
}

fn assert_completed(r: &Report, bytes: f64) {
    assert_eq!(outcome(r), "completed");
    assert_eq!(conn(r, "bytes"), bytes);
}

#[test]
fn one_drop_every_variant_recovers_by_fast_retransmit() {
    for variant in ["reno", "newreno", "sack"] {
        let r = transfer("rfc", variant, &[30], "drop", false);
        assert_completed(&r, 300_000.0);
        assert_eq!(conn(&r, "timeouts"), 0.0, "{variant}");
        assert_eq!(conn(&r, "fast_rexmits"), 1.0, "{variant}");
        assert_eq!(conn(&r, "data_rexmits"), 1.0, "{variant}");
        // One RTT from the fast retransmit to the ACK that covers the whole window.
        let rtt = conn(&r, "srtt_s");
        assert!(conn(&r, "mean_recovery_s") < 1.3 * rtt, "{variant}");
    }
}

#[test]
fn three_drops_reno_times_out_because_the_guard_forbids_a_second_fast_retransmit() {
    // The partial ACK for segment 30 ends Reno's recovery; the duplicate ACKs for 32 that follow
    // belong to the window already reduced for, and the recover guard (ns-2 bugFix_, RFC 6582 §3.2)
    // allows no second fast retransmit, so the sender waits for its retransmission timer.
    let r = transfer("rfc", "reno", &[30, 32, 34], "drop", false);
    assert_completed(&r, 300_000.0);
    assert_eq!(conn(&r, "fast_rexmits"), 1.0);
    assert!(conn(&r, "timeouts") >= 1.0);
}

#[test]
fn three_drops_freebsd_reno_halves_twice_then_times_out() {
    // FreeBSD 2.2 has no such guard: the duplicates for 32 trigger a second fast retransmit and a
    // second halving; the window is then too small for three duplicates for 34, so a timeout
    // (on the 500 ms tick grid) ends it.
    let r = transfer("freebsd-2.2", "reno", &[30, 32, 34], "drop", false);
    assert_completed(&r, 300_000.0);
    assert_eq!(conn(&r, "fast_rexmits"), 2.0);
    assert_eq!(conn(&r, "timeouts"), 1.0);
}

#[test]
fn three_drops_newreno_recovers_in_about_three_rtts() {
    // Each partial ACK retransmits the next hole: one hole per round trip.
    let r = transfer("rfc", "newreno", &[30, 32, 34], "drop", false);
    assert_completed(&r, 300_000.0);
    assert_eq!(conn(&r, "timeouts"), 0.0);
    assert_eq!(conn(&r, "fast_rexmits"), 1.0);
    assert_eq!(conn(&r, "data_rexmits"), 3.0);
    let rtts = conn(&r, "mean_recovery_s") / 0.0812;
    assert!(
        (2.5..3.5).contains(&rtts),
        "NewReno recovery took {rtts:.2} RTTs"
    );
}

#[test]
fn three_drops_sack_retransmits_every_hole_in_one_round() {
    // RFC 6675: once the pipe falls below cwnd (half the window must drain first, ~0.9 RTT here),
    // both remaining holes go out back to back, and one RTT later the whole window is acknowledged.
    // Measured from the fast retransmit that is under 2 RTTs, against NewReno's 3.
    let sack = transfer("rfc", "sack", &[30, 32, 34], "drop", false);
    let newreno = transfer("rfc", "newreno", &[30, 32, 34], "drop", false);
    assert_completed(&sack, 300_000.0);
    assert_eq!(conn(&sack, "timeouts"), 0.0);
    assert_eq!(conn(&sack, "data_rexmits"), 3.0);
    let rtts = conn(&sack, "mean_recovery_s") / 0.0812;
    assert!(rtts < 2.0, "SACK recovery took {rtts:.2} RTTs");
    assert!(conn(&newreno, "mean_recovery_s") - conn(&sack, "mean_recovery_s") > 0.0812);
}

/// A 100-segment transfer starting at 1 s with one queue scripted: `what` is dropped.
fn lossy_handshake(profile: &str, what: &str, segment: Option<u64>) -> Report {
    let mut rule = json!({"group": "f", "what": what});
    if let Some(s) = segment {
        rule["segment"] = json!(s);
    }
    // SYNs travel client → server (the reverse queue); SYN-ACKs, data and the server's FIN travel
    // server → client (the forward queue).
    let scripted = json!({"kind": "scripted", "drops": [rule]});
    let droptail = json!({"kind": "droptail"});
    let (fwd, rev) = if what == "syn" {
        (droptail, scripted)
    } else {
        (scripted, droptail)
    };
    let v = json!({
        "duration": "40s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": fwd, "reverse_queue": rev,
        "tcp": {"profile": profile},
        "traffic": [{"kind": "ftp", "name": "f", "size": "146000B", "start": "1s"}]
    });
    common::run(&v, Some(1))
}

#[test]
fn lost_syn_opens_after_the_initial_rto() {
    // FreeBSD 2.2: the first SYN retransmission comes 3 s later (TCPTV_RTOBASE, 6 ticks) — on
    // the 500 ms slow-timer grid, so 2.5 to 3 s after the connect — then one RTT to open.
    let r = lossy_handshake("freebsd-2.2", "syn", None);
    assert_completed(&r, 146_000.0);
    assert_eq!(conn(&r, "syn_rexmits"), 1.0);
    let open = conn(&r, "established_s") - conn(&r, "start_s");
    assert!(
        (2.5 + 0.08..=3.0 + 0.082).contains(&open),
        "opened after {open} s"
    );
    // RFC 6298: 1 s exactly, then one RTT.
    let r = lossy_handshake("rfc", "syn", None);
    let open = conn(&r, "established_s") - conn(&r, "start_s");
    assert!((1.080..1.082).contains(&open), "opened after {open} s");
}

#[test]
fn lost_fin_is_retransmitted() {
    let r = lossy_handshake("rfc", "fin", None);
    assert_completed(&r, 146_000.0);
    assert_eq!(conn(&r, "fin_rexmits"), 1.0);
    assert_eq!(conn(&r, "data_rexmits"), 0.0);
}

#[test]
fn with_rack_tlp_a_lost_bare_fin_is_resent_too() {
    // RACK-TLP resends what it has marked lost or probes with the last segment sent: a bare
    // FIN (sent on its own, `fin_piggyback = false`) holds a sequence number as data does, and
    // Linux keeps it in the retransmission queue, so it goes again, once, without a timeout.
    let v = json!({
        "duration": "40s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": {"kind": "scripted", "drops": [{"group": "f", "what": "fin"}]},
        "tcp": {"profile": "linux", "fin_piggyback": false},
        "traffic": [{"kind": "ftp", "name": "f", "size": "146000B", "start": "1s"}]
    });
    let r = common::run(&v, Some(1));
    assert_completed(&r, 146_000.0);
    assert_eq!(conn(&r, "fin_rexmits"), 1.0);
    assert_eq!(conn(&r, "timeouts"), 0.0);
}

#[test]
fn lost_last_data_segment_is_recovered_by_timeout() {
    // Only the FIN follows the last segment: one duplicate ACK, too few for a fast retransmit.
    let r = lossy_handshake("rfc", "data", Some(100));
    assert_completed(&r, 146_000.0);
    assert_eq!(conn(&r, "fast_rexmits"), 0.0);
    assert_eq!(conn(&r, "timeouts"), 1.0);
    assert_eq!(conn(&r, "data_rexmits"), 1.0);
}

/// (cwnd, ssthresh) of the data sender in the trace rows just before and at the first reduction.
fn first_reduction(r: &Report) -> ((f64, f64), (f64, f64)) {
    let cwnd = common::floats(r, "tcp_trace", "cwnd_bytes");
    let ssthresh = common::floats(r, "tcp_trace", "ssthresh_bytes");
    let k = ssthresh
        .iter()
        .position(|s| *s < 1e17)
        .expect("a reduction");
    ((cwnd[k - 1], ssthresh[k - 1]), (cwnd[k], ssthresh[k]))
}

#[test]
fn ce_marks_halve_cwnd_once_per_window_and_nothing_is_retransmitted() {
    let r = transfer("rfc", "sack", &[30, 31], "mark", true);
    assert_completed(&r, 300_000.0);
    assert_eq!(r.summary.links["forward"].marks_pkts, 2);
    assert_eq!(r.summary.links["forward"].drops_pkts, 0);
    assert_eq!(conn(&r, "ecn_reductions"), 1.0);
    assert_eq!(conn(&r, "data_rexmits"), 0.0);
    let ((before, _), (after, ssthresh)) = first_reduction(&r);
    assert_eq!(after, ssthresh);
    assert_eq!(
        ssthresh,
        (before / 2.0 / 1460.0).floor() * 1460.0,
        "cwnd {before} → {after}"
    );
    // Marks in two different windows: two reductions.
    let r = transfer("rfc", "sack", &[30, 150], "mark", true);
    assert_eq!(conn(&r, "ecn_reductions"), 2.0);
    assert_eq!(conn(&r, "data_rexmits"), 0.0);
}

#[test]
fn a_mark_on_a_connection_without_ecn_is_a_drop() {
    let r = transfer("rfc", "sack", &[30], "mark", false);
    assert_eq!(r.summary.links["forward"].marks_pkts, 0);
    assert_eq!(r.summary.links["forward"].drops_pkts, 1);
    assert_eq!(conn(&r, "data_rexmits"), 1.0);
}

#[test]
fn a_connection_that_cannot_open_is_reported_failed() {
    // Every SYN is lost: FreeBSD 2.2 retransmits at 3, 9, 21 and 45 s and gives up at 75 s
    // (TCPTV_KEEP_INIT); the connection is in the table as failed, never silently missing.
    let drops: Vec<Value> = (1..=5)
        .map(|n| json!({"group": "f", "what": "syn", "occurrence": n}))
        .collect();
    let v = json!({
        "duration": "100s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "reverse_queue": {"kind": "scripted", "drops": drops},
        "tcp": {"profile": "freebsd-2.2"},
        "traffic": [{"kind": "ftp", "name": "f", "size": "10KB", "start": "1s"}]
    });
    let r = common::run(&v, Some(1));
    assert_eq!(outcome(&r), "failed");
    assert_eq!(conn(&r, "end_s"), 76.0);
    assert_eq!(conn(&r, "syn_rexmits"), 4.0);
    assert!(conn(&r, "established_s").is_nan());
    assert_eq!(
        r.summary.links["reverse"].drops_pkts_by_reason["scripted"],
        5
    );
}

/// FreeBSD 2.2's route cache: a 1 MB transfer (some 60 RTT samples) from 0 s, then a short one
/// between the same two hosts from `start`, whose SYN-ACK `drop_synack` is lost.
fn after_a_long_transfer(start: &str, route_cache: bool) -> Report {
    let v = json!({
        "duration": "120s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": {"kind": "scripted", "drops": [{"group": "short", "what": "synack"}]},
        "tcp": {"profile": "freebsd-2.2", "route_cache": route_cache},
        "traffic": [{"kind": "ftp", "name": "long", "size": "1MB"},
                    {"kind": "ftp", "name": "short", "size": "146000B", "start": start}]
    });
    common::run(&v, Some(1))
}

/// Connection `k`'s value in float column `col`.
fn conn_k(r: &Report, col: &str, k: usize) -> f64 {
    match r.table("connections").and_then(|t| t.column(col)) {
        Some(Column::F64(v)) => v[k],
        other => panic!("connections.{col}: {other:?}"),
    }
}

#[test]
fn a_lost_syn_ack_is_resent_on_the_timeout_the_host_cached() {
    // The long transfer ends at 5.2 s with srtt 0.125 s (8 units of 1/32 tick) after ~60
    // samples: the client caches it at once, the server (which closed first) after TIME_WAIT,
    // 60 s later. At 80 s the server starts the short connection's SYN-ACK timer from its cache:
    // ((srtt >> 2) + rttvar) >> 1 = 4 ticks, so the lost SYN-ACK goes again 1.5–2 s later on
    // the 500 ms grid, where the 3 s default waits 2.5–3 s. One way is 40 ms; the client is open
    // when the second SYN-ACK arrives.
    let opened = |start: &str, cache: bool| {
        let r = after_a_long_transfer(start, cache);
        assert_eq!(conn_k(&r, "srtt_s", 0), 0.125);
        assert!(conn_k(&r, "end_s", 0) < 6.0);
        conn_k(&r, "established_s", 1) - conn_k(&r, "start_s", 1)
    };
    let cached = opened("80s", true);
    assert!((1.5 + 0.08..=2.0 + 0.082).contains(&cached), "{cached} s");
    let default = opened("80s", false);
    assert!((2.5 + 0.08..=3.0 + 0.082).contains(&default), "{default} s");
    // At 30 s the server is still in TIME_WAIT: nothing cached yet on its side.
    assert!((opened("30s", true) - default).abs() < 1e-9);
}

/// The 300 KB download of [`transfer`] on the `rfc` profile (`tcp` keys over it), whose segment
/// 30 is lost on each of its first `losses` transmissions; ssthresh at the end (no loss after).
fn ssthresh_after_timeouts(tcp: Value, losses: u32) -> (f64, f64) {
    let drops: Vec<Value> = (1..=losses)
        .map(|n| json!({"group": "f", "segment": 30, "occurrence": n}))
        .collect();
    let mut t = json!({"profile": "rfc", "delack": "off", "rwnd": "1MiB", "send_chunk": "0"});
    for (k, v) in tcp.as_object().expect("a table") {
        t[k] = v.clone();
    }
    let v = json!({
        "duration": "60s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": {"kind": "scripted", "limit": "1000p", "drops": drops},
        "tcp": t,
        "traffic": [{"kind": "ftp", "name": "f", "size": "300KB", "trace": true}]
    });
    let r = common::run(&v, Some(1));
    assert_completed(&r, 300_000.0);
    let ssthresh = match r
        .table("tcp_trace")
        .and_then(|t| t.column("ssthresh_bytes"))
    {
        Some(Column::F64(v)) => *v.last().expect("traced"),
        other => panic!("{other:?}"),
    };
    (ssthresh, conn(&r, "timeouts"))
}

#[test]
fn a_repeated_timeout_holds_ssthresh_where_rfc_5681_says() {
    // Segment 30 lost three times: its fast retransmit and the first timeout's resend too, so
    // the timer expires twice for it. The window at the first timeout is about 24 segments.
    let once = json!({"variant": "newreno", "halve": "window"});
    let (held, timeouts) = ssthresh_after_timeouts(once.clone(), 3);
    assert_eq!(timeouts, 2.0);
    assert!(held >= 4.0 * 1460.0, "{held}");
    // One timeout only: the same ssthresh.
    assert_eq!(ssthresh_after_timeouts(once, 2).0, held);
    // 4.4BSD and ns-2 halve again the one-segment window the first timeout left: two segments.
    let every = json!({"variant": "newreno", "halve": "window", "timeout_ssthresh": "every"});
    assert_eq!(ssthresh_after_timeouts(every, 3).0, 2.0 * 1460.0);
}

#[test]
fn a_timeout_after_sack_recovery_halves_what_is_in_flight() {
    // SACK: segment 30 and its fast retransmit lost. When the timer expires the receiver has
    // SACKed everything above 30, so the flight left in the network is the one segment: ssthresh
    // falls to its floor of two segments, not to half of all the data above snd_una.
    let (ssthresh, timeouts) = ssthresh_after_timeouts(json!({"variant": "sack"}), 2);
    assert_eq!(timeouts, 1.0);
    assert_eq!(ssthresh, 2.0 * 1460.0);
}

/// The 300 KB download of [`transfer`] on the `rfc` profile, traced, with the `tcp` keys over
/// its settings, whose segment 30 is dropped once, in slow start.
fn one_loss(tcp: Value) -> Report {
    let mut t = json!({"profile": "rfc", "delack": "off", "rwnd": "1MiB", "halve": "window",
                       "send_chunk": "0"});
    for (k, v) in tcp.as_object().expect("a table") {
        t[k] = v.clone();
    }
    let v = json!({
        "duration": "30s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": {"kind": "scripted", "limit": "1000p",
                  "drops": [{"group": "f", "segment": 30}]},
        "tcp": t,
        "traffic": [{"kind": "ftp", "name": "f", "size": "300KB", "trace": true}]
    });
    let r = common::run(&v, Some(1));
    assert_completed(&r, 300_000.0);
    assert_eq!(conn(&r, "timeouts"), 0.0, "{tcp}");
    assert_eq!(conn(&r, "fast_rexmits"), 1.0, "{tcp}");
    assert_eq!(conn(&r, "data_rexmits"), 1.0, "{tcp}");
    r
}

#[test]
fn prr_steps_the_window_down_to_ssthresh_over_a_round_trip() {
    // RFC 6937: where the window falls at once to ssthresh on the fast retransmit, PRR takes
    // it down on each ACK in proportion to what was delivered (ssthresh / RecoverFS of it: a
    // half for Reno, 0.7 for CUBIC), so it reaches ssthresh about when the ACKs of the window
    // that saw the loss are in: one round trip later. It never falls more than one segment on
    // one ACK, nor below ssthresh, and recovery ends there.
    for (variant, cc, beta) in [
        ("sack", "reno", 0.5),
        ("newreno", "reno", 0.5),
        ("sack", "cubic", 0.7),
    ] {
        let keys = json!({"variant": variant, "congestion_control": cc});
        let standard = one_loss(keys.clone());
        let ((_, _), (cut, ssthresh)) = first_reduction(&standard);
        // (Inflated by the three duplicate ACKs without SACK: RFC 5681 §3.2.)
        let inflation = if variant == "sack" { 0.0 } else { 3.0 * 1460.0 };
        assert_eq!(
            cut,
            ssthresh + inflation,
            "{keys}: the window falls at once"
        );
        let mut prr_keys = keys.clone();
        prr_keys["recovery_cwnd"] = json!("prr");
        let r = one_loss(prr_keys);
        let cwnd = common::floats(&r, "tcp_trace", "cwnd_bytes");
        let ss = common::floats(&r, "tcp_trace", "ssthresh_bytes");
        let t = common::floats(&r, "tcp_trace", "t_s");
        let k = ss.iter().position(|s| *s < 1e17).expect("a reduction");
        let (before, ssthresh) = (cwnd[k - 1], ss[k]);
        assert!(
            (ssthresh - beta * before).abs() <= 1460.0,
            "{keys}: ssthresh {ssthresh} from {before}"
        );
        assert!(cwnd[k] > ssthresh + 5.0 * 1460.0, "{keys}: {}", cwnd[k]);
        let m = k + cwnd[k..]
            .iter()
            .position(|c| *c == ssthresh)
            .expect("down to ssthresh");
        for i in k..m {
            assert!(cwnd[i] > ssthresh, "{keys}: row {i}");
            assert!(cwnd[i] - cwnd[i + 1] <= 1460.0, "{keys}: row {i}");
        }
        let rtt = conn(&r, "srtt_s");
        let took = t[m] - t[k];
        assert!(
            (0.5 * rtt..1.2 * rtt).contains(&took),
            "{keys}: ssthresh reached after {took} s (RTT {rtt} s)"
        );
        assert!(
            conn(&r, "mean_recovery_s") < 1.3 * rtt,
            "{keys}: one RTT of recovery"
        );
    }
}
