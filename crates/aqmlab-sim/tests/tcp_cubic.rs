//! CUBIC (RFC 9438) and HyStart (Linux `tcp_cubic.c`): the controller driven by hand against the
//! RFC's formulas, then whole runs through the engine.

mod common;

use aqmlab_sim::tcp::cc::cubic::CubicParams;
use aqmlab_sim::tcp::cc::{Acked, Algorithm, CcConfig, CongestionControl};
use aqmlab_sim::units::Time;
use aqmlab_sim::Report;
use common::{floats, jain};
use serde_json::{json, Value};

const MSS: f64 = 1000.0;

fn cubic(p: CubicParams) -> CongestionControl {
    CongestionControl::new(&CcConfig {
        algorithm: Algorithm::Cubic,
        hystart: false,
        cubic: p,
        ..CcConfig::RENO
    })
}

/// A sender in congestion avoidance at a fixed `rtt`: each round trip, one ACK per segment of the
/// window at the start of the round, evenly spaced over the round. Starts at t = 0 with the
/// reduction from `w_max` segments (fast recovery ends at once); returns cwnd (segments) at the
/// start of every round and the round's time.
fn drive(
    cc: &mut CongestionControl,
    w_max: f64,
    beta: f64,
    rtt: f64,
    until: f64,
) -> Vec<(f64, f64)> {
    cc.on_congestion(w_max * MSS, MSS);
    let ssthresh = cc.reduced_segments(w_max * MSS, MSS).max(2.0) * MSS;
    assert_eq!(ssthresh, (w_max * beta).floor() * MSS);
    let mut cwnd = ssthresh;
    cc.on_recovery_exit(Time::ZERO, cwnd, MSS);
    let mut rounds = Vec::new();
    let mut t = 0.0;
    while t < until {
        rounds.push((t, cwnd / MSS));
        let acks = (cwnd / MSS).floor() as u64;
        for i in 1..=acks {
            let now = t + rtt * i as f64 / acks as f64;
            let ack = Acked {
                now: Time((now * 1e9).round() as u64),
                bytes: MSS as u64,
                srtt_s: Some(rtt),
                slow_start: false,
            };
            cc.on_ack(&mut cwnd, ssthresh, MSS, ack);
        }
        t += rtt;
    }
    rounds
}

/// RFC 9438 eq. 1 and 2: W_cubic(t) after a reduction from `w_max` to ⌊β·w_max⌋.
fn w_cubic(t: f64, w_max: f64, p: CubicParams) -> f64 {
    let k = ((w_max - (w_max * p.beta).floor()) / p.c).cbrt();
    p.c * (t - k).powi(3) + w_max
}

/// cwnd at the round nearest `t`.
fn at(rounds: &[(f64, f64)], t: f64) -> f64 {
    rounds
        .iter()
        .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
        .unwrap()
        .1
}

/// Reno's estimate (RFC 9438 §4.3) after a reduction to `w0` from `prior`, in continuous time:
/// α segments per RTT until it reaches `prior`, then one.
fn w_est(t: f64, w0: f64, prior: f64, rtt: f64, p: CubicParams) -> f64 {
    let rounds = t / rtt;
    let to_prior = (prior - w0) / p.alpha();
    if rounds <= to_prior {
        w0 + p.alpha() * rounds
    } else {
        prior + (rounds - to_prior)
    }
}

#[test]
fn the_window_follows_w_cubic_after_a_loss() {
    // W_max = 100 segments, RTT 100 ms: K = ∛(30/0.4) = 4.22 s. Until about 5.7 s Reno's estimate
    // (α ≈ 0.53 segment per RTT from 70) stays below the cubic, which governs. The per-ACK update
    // chases the target W(t + RTT) with a lag of about one RTT (each of the cwnd ACKs of a round
    // closes 1/cwnd of the gap), so cwnd(t) ≈ W(t); what remains is the curvature over that RTT
    // (½·RTT²·|W''| = ½·0.01·6C|t − K| < 0.06 segment here) and one ACK's step
    // (< W'·RTT/cwnd < 0.3 segment): 0.5 segment covers both.
    let p = CubicParams::RFC9438;
    let rounds = drive(&mut cubic(p), 100.0, p.beta, 0.1, 10.0);
    for t in [0.5, 1.0, 2.0, 3.0, 4.2, 5.0, 5.5] {
        let (want, got) = (w_cubic(t, 100.0, p), at(&rounds, t));
        assert!(w_est(t, 70.0, 100.0, 0.1, p) < want - 1.0);
        assert!(
            (got - want).abs() < 0.5,
            "t {t}: cwnd {got:.2}, W_cubic {want:.2}"
        );
    }
    // Concave, then the plateau at W_max, then convex.
    assert!((at(&rounds, 4.2) - 100.0).abs() < 0.5);
    // From about 5.7 s W_est has reached cwnd_prior = 100 and grows one segment per RTT, faster
    // than the cubic's start out of its plateau: the window is max(W_cubic, W_est). The estimate
    // grows by α·⌊cwnd⌋/cwnd per round, not α, which adds up to < 0.5 segment by then: 1 segment.
    for t in [6.0, 7.0, 8.0, 9.0] {
        let want = w_cubic(t, 100.0, p).max(w_est(t, 70.0, 100.0, 0.1, p));
        let got = at(&rounds, t);
        assert!(
            (got - want).abs() < 1.0,
            "t {t}: cwnd {got:.2}, max(W_cubic, W_est) {want:.2}"
        );
    }
    assert!(at(&rounds, 8.0) > 120.0);
}

#[test]
fn other_constants_change_the_curve_as_the_formula_says() {
    let p = CubicParams {
        c: 1.0,
        beta: 0.5,
        ..CubicParams::RFC9438
    };
    // K = ∛(50/1) = 3.68 s; at t = 1 s the curve climbs 1.0·3·K² ≈ 41 segments/s, so the one-ACK
    // step is larger: within 1 segment.
    let rounds = drive(&mut cubic(p), 100.0, p.beta, 0.1, 6.0);
    for t in [1.0, 2.0, 3.0, 3.7, 5.0] {
        let (want, got) = (w_cubic(t, 100.0, p), at(&rounds, t));
        assert!(
            (got - want).abs() < 1.0,
            "t {t}: cwnd {got:.2}, W_cubic {want:.2}"
        );
    }
}

#[test]
fn fast_convergence_releases_bandwidth_after_a_loss_below_the_last_maximum() {
    // Losses at 1000, then at 800 segments (windows large enough that Reno's estimate, from 560
    // at α per 100 ms RTT, stays below the cubic). With fast convergence W_max becomes
    // 800·1.7/2 = 680, and the plateau is reached at K = ∛((680 − 560)/0.4) = 6.69 s; without,
    // it is 800, at K = ∛(240/0.4) = 8.43 s.
    let p = CubicParams::RFC9438;
    for (fc, plateau, k) in [(true, 680.0, 300f64.cbrt()), (false, 800.0, 600f64.cbrt())] {
        let mut cc = cubic(CubicParams {
            fast_convergence: fc,
            ..p
        });
        cc.on_congestion(1000.0 * MSS, MSS);
        let rounds = drive(&mut cc, 800.0, p.beta, 0.1, 9.0);
        assert!(w_est(k, 560.0, 800.0, 0.1, p) < plateau - 10.0);
        let got = at(&rounds, k);
        assert!(
            (got - plateau).abs() < 0.5,
            "fc {fc}: cwnd {got:.2} at K {k:.2}"
        );
    }
}

#[test]
fn at_a_small_window_and_rtt_the_reno_friendly_region_governs() {
    // W_max = 10 segments, RTT 10 ms: the cubic needs K = ∛(3/0.4) = 1.96 s to climb back 3
    // segments, while Reno's estimate gains α = 3·0.3/1.7 segment per RTT until it reaches
    // cwnd_prior = 10, then 1 per RTT. With one ACK per segment W_est grows per round by α·acked/
    // cwnd = α (exactly, as cwnd is held at W_est, the acked count is ⌊cwnd⌋: α·⌊w⌋/w per round).
    let p = CubicParams::RFC9438;
    let rounds = drive(&mut cubic(p), 10.0, p.beta, 0.01, 1.0);
    // Hand-computed W_est, round by round, with the same ⌊w⌋ ACKs per round.
    let alpha = p.alpha();
    let mut w_est = 7.0_f64;
    for (t, got) in &rounds {
        assert!(
            (got - w_est).abs() < 1e-6 * w_est,
            "t {t}: cwnd {got}, W_est {w_est}"
        );
        assert!(*got >= w_cubic(*t, 10.0, p), "t {t}");
        let acks = w_est.floor();
        for _ in 0..acks as u64 {
            let a = if w_est >= 10.0 { 1.0 } else { alpha };
            w_est += a / w_est;
        }
    }
    // After 1 s, far above where the cubic alone would be (9.65 segments).
    let last = rounds.last().unwrap().1;
    assert!(last > 90.0, "{last}");
    assert!(w_cubic(1.0, 10.0, p) < 10.0);
}

// ----- whole runs -----

/// One transfer of `size` over 10 Mbit/s with 40 ms one way (RTT ≈ 81 ms, 67 packets of 1500 B in
/// flight fill the pipe) and a large queue; the `linux` profile with `tcp` overrides.
fn transfer(size: &str, tcp: Value, drops: &[u64]) -> Report {
    let mut t = json!({"profile": "linux"});
    t.as_object_mut()
        .unwrap()
        .extend(tcp.as_object().unwrap().clone());
    let drops: Vec<Value> = drops
        .iter()
        .map(|s| json!({"group": "f", "segment": s, "action": "drop"}))
        .collect();
    let v = json!({
        "duration": "30s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
        "queue": {"kind": "scripted", "limit": "1000p", "drops": drops},
        "tcp": t,
        "traffic": [{"kind": "ftp", "name": "f", "size": size, "trace": true}]
    });
    common::run(&v, Some(1))
}

fn conn(r: &Report, col: &str) -> f64 {
    match r.table("connections").and_then(|t| t.column(col)) {
        Some(aqmlab_sim::Column::F64(v)) => v[0],
        Some(aqmlab_sim::Column::I64(v)) => v[0] as f64,
        other => panic!("connections.{col}: {other:?}"),
    }
}

#[test]
fn hystart_leaves_slow_start_when_the_queue_delay_rises() {
    // Delayed ACKs (every second segment) come 2.4 ms apart off the 1.2 ms-per-packet bottleneck:
    // no ACK train. Once the window passes the pipe (67 packets), the queue grows by one packet per
    // ACK; HyStart's delay test fires in the first round whose smallest RTT exceeds the minimum
    // (81 ms) by η = clamp(81/8, 4, 16) = 10.1 ms, i.e. a standing queue of ≥ 9 packets.
    let r = transfer("3MB", json!({}), &[]);
    assert_eq!(r.summary.links["forward"].drops_pkts, 0);
    let cwnd = floats(&r, "tcp_trace", "cwnd_bytes");
    let ssthresh = floats(&r, "tcp_trace", "ssthresh_bytes");
    let t = floats(&r, "tcp_trace", "t_s");
    let k = ssthresh
        .iter()
        .position(|s| *s < 1e17)
        .expect("slow start ended");
    // Exactly ssthresh = cwnd, at that ACK (HyStart), far below the 6 MiB window slow start would
    // otherwise have run into. A round's samples time the segments sent during the round before
    // it (round r ends when the ACKs pass the snd_nxt of its start), so its smallest RTT is that of
    // the first segment sent in round r − 1: the test fires in the first round r whose predecessor
    // began with a standing queue of more than η / 1.2 ms ≈ 8.4 packets, i.e. a window above
    // 67.5 + 8.4 ≈ 76 segments, while round r − 2 began at most there. Slow start doubles the
    // window over a round (cwnd grows by the flight acknowledged; ± 2 for ACKs of two segments):
    // round r begins with more than 2·76 − 2 = 150 and at most 4·76 + 4 = 308 segments, and the test
    // decides by the round's ninth sample, 9 ACKs of two segments on: < 330.
    assert_eq!(ssthresh[k], cwnd[k - 1]);
    let segs = ssthresh[k] / 1448.0;
    assert!(
        (150.0..330.0).contains(&segs),
        "slow start ended at {segs} segments"
    );
    // The rise was in delay: the RTT of the newest segment then was more than 10 ms above the base.
    assert!(t[k] < 1.5, "at {} s", t[k]);
    // No loss, no reduction: the window only grows afterwards.
    assert_eq!(conn(&r, "fast_rexmits") + conn(&r, "timeouts"), 0.0);
    assert!(cwnd[k..].windows(2).all(|w| w[1] >= w[0]));
    // Without HyStart slow start goes on (ssthresh stays unbounded) for the whole transfer.
    let r = transfer("3MB", json!({"hystart": false}), &[]);
    assert!(floats(&r, "tcp_trace", "ssthresh_bytes")
        .iter()
        .all(|s| *s > 1e17));
}

#[test]
fn cubic_recovers_with_every_loss_recovery() {
    // Three losses in one window of slow start (segments 30, 32, 34), each recovery with CUBIC:
    // one reduction to ⌊0.7 · cwnd⌋ segments, and the transfer completes.
    for variant in ["reno", "newreno", "sack"] {
        let r = transfer(
            "300KB",
            json!({"variant": variant, "hystart": false, "initial_window": 3, "delack": "off"}),
            &[30, 32, 34],
        );
        assert_eq!(
            common::strings(&r, "connections", "outcome"),
            ["completed"],
            "{variant}"
        );
        assert_eq!(conn(&r, "bytes"), 300_000.0);
        assert_eq!(conn(&r, "fast_rexmits"), 1.0, "{variant}");
        if variant == "reno" {
            // As with Reno's window growth (tcp_recovery.rs): the partial ACK ends recovery and
            // the recover guard leaves the rest to the retransmission timer.
            assert!(conn(&r, "timeouts") >= 1.0);
        } else {
            assert_eq!(conn(&r, "timeouts"), 0.0, "{variant}");
            assert_eq!(conn(&r, "data_rexmits"), 3.0, "{variant}");
        }
        let cwnd = floats(&r, "tcp_trace", "cwnd_bytes");
        let ssthresh = floats(&r, "tcp_trace", "ssthresh_bytes");
        let k = ssthresh.iter().position(|s| *s < 1e17).unwrap();
        assert_eq!(
            ssthresh[k],
            (0.7 * cwnd[k - 1] / 1448.0).floor() * 1448.0,
            "{variant}: cwnd {} → ssthresh {}",
            cwnd[k - 1],
            ssthresh[k]
        );
    }
}

#[test]
fn ten_cubic_flows_share_a_bottleneck_fairly() {
    let v = json!({
        "duration": "120s", "warmup": "20s",
        "topology": {"servers": 10, "clients": 10, "bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "queue": {"kind": "droptail", "limit": "100p"},
        "tcp": {"profile": "linux"},
        "traffic": [{"kind": "ftp", "name": "bulk", "flows": 10, "start": {"dist": "uniform", "min": "0s", "max": "1s"}}]
    });
    let r = common::run(&v, Some(1));
    assert!(r.summary.links["forward"].utilization > 0.97);
    let goodput = floats(&r, "connections", "goodput_bps");
    assert_eq!(goodput.len(), 10);
    let j = jain(&goodput);
    assert!(j > 0.95, "Jain {j:.3}: {goodput:?}");
}
