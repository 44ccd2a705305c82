//! BBR v1 in simulation: one flow's utilization and queue, and its pacing read from a packet
//! capture of the sender's link (docs/bbr.md has the numbers these tests measured).

mod common;

use aqmlab_sim::{Scenario, Simulation};
use common::run;
use serde_json::{json, Value};

/// One long flow of the `linux` profile with `congestion_control = cc` through a 10 Mbit/s
/// drop-tail bottleneck of 100 packets, 40 ms base RTT (20 ms one way on the bottleneck,
/// 1 Gbit/s access links without delay), `duration` seconds after a second of warm-up.
fn one_flow(cc: &str, duration: u64) -> Value {
    json!({
        "duration": format!("{}s", duration + 1), "warmup": "1s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                     "access": {"rate": "1Gbps", "queue": "1000p"}},
        "queue": {"kind": "droptail", "limit": "100p"},
        "tcp": {"profile": "linux", "congestion_control": cc},
        "traffic": [{"kind": "ftp", "name": "bulk"}]
    })
}

/// BBR fills the link and keeps the queue short. The BDP is 10 Mbit/s × 40 ms = 34.5 packets of
/// 1448 B (1500 B on the wire). In PROBE_BW BBR paces at its bandwidth estimate, so the queue
/// stays near empty except in the 1.25 phase, which adds a quarter BDP (~9 packets) over one
/// min RTT and the 0.75 phase drains again; its cwnd, 2 × BDP + three send quanta (+2 while
/// probing), caps what can be queued at about one BDP + 8 ≈ 42 packets, far below the 100 of
/// the buffer, whatever the estimate. STARTUP's queue (up to 1.89 BDP) lasts about a round and
/// DRAIN empties it. So the time-averaged queue is below 40 packets (CUBIC, which fills the
/// buffer until a loss, averages 80 on this path); PROBE_RTT's 200 ms at 4 packets every 10 s
/// and the 0.75 phase cost a few percent of the link, hence utilization above 0.9.
#[test]
fn one_bbr_flow_fills_the_link_with_a_short_queue() {
    let r = run(&one_flow("bbr", 20), Some(1));
    let f = &r.summary.links["forward"];
    assert!(f.utilization > 0.9, "utilization {}", f.utilization);
    assert!(f.mean_queue_pkts < 40.0, "mean queue {}", f.mean_queue_pkts);
    assert_eq!(f.drops_pkts, 0);
    // CUBIC on the same path, for scale: the buffer full most of the time.
    let cubic = run(&one_flow("cubic", 20), Some(1));
    assert!(cubic.summary.links["forward"].mean_queue_pkts > 2.0 * f.mean_queue_pkts);
}

/// The data segments a run's sender put on its access link (`s0.up`): (send time in ns, TCP
/// payload bytes as the frame says), read from the libpcap capture.
fn data_segments(v: &Value, dir: &std::path::Path) -> Vec<(u64, u64)> {
    let mut v = v.clone();
    v["capture"] = json!({"links": ["s0.up"]});
    let scenario = Scenario::from_value(&v).unwrap();
    let mut sim = Simulation::new(&scenario, Some(1));
    sim.capture_to(dir).unwrap();
    let end = scenario.duration;
    sim.run_until(end, &mut || false).unwrap();
    sim.finish_capture().unwrap();
    let bytes = std::fs::read(dir.join("s0.up.pcap")).unwrap();
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let mut at = 24;
    let mut segs = Vec::new();
    while at + 16 <= bytes.len() {
        let t = u64::from(u32_at(at)) * 1_000_000_000 + u64::from(u32_at(at + 4));
        let len = u32_at(at + 8) as usize;
        let frame = &bytes[at + 16..at + 16 + len];
        let ip_len = u16::from_be_bytes([frame[16], frame[17]]) as u64;
        let ihl = u64::from(frame[14] & 0x0f) * 4;
        let tcp = 14 + ihl as usize;
        let doff = u64::from(frame[tcp + 12] >> 4) * 4;
        let payload = ip_len - ihl - doff;
        if payload > 0 {
            segs.push((t, payload));
        }
        at += 16 + len;
    }
    segs
}

/// Pacing spaces the sender's segments: none leaves before the previous one's length at the
/// pacing rate has passed. The capture does not carry the rate, so the test bounds it from the
/// model: pacing rate = gain × max bandwidth × 99%, and one flow's delivery rate is at most the
/// bottleneck's (833 segments/s of 1448 B in 1500-B packets at 10 Mbit/s; 2% allowed for
/// sampling). After the first ten segments (which Linux does not pace) the gaps are at least
/// len / (2.887 × that), 0.42 ms; in PROBE_BW (after STARTUP and DRAIN, from 2 s) at least
/// len / (1.25 × that), 0.97 ms. CUBIC on the same path sends back to back, one access-link
/// transmission (12 µs) apart.
#[test]
fn pacing_spaces_a_senders_segments_by_their_length_at_the_pacing_rate() {
    let dir = std::env::temp_dir().join(format!("aqmlab-bbr-pacing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v = one_flow("bbr", 5);
    let segs = data_segments(&v, &dir);
    let bw = 10e6 * 1448.0 / 1500.0 / 8.0 * 1.02; // bytes/s, the most a sample can say
    let gap = |gain: f64, len: u64| len as f64 / (gain * bw * 0.99);
    let mut probe_bw_min = f64::INFINITY;
    for (i, w) in segs.windows(2).enumerate().skip(10) {
        let ((t0, len), (t1, _)) = (w[0], w[1]);
        let dt = (t1 - t0) as f64 / 1e9;
        assert!(
            dt >= gap(739.0 / 256.0, len),
            "segment {i}: {dt} s after the last"
        );
        if t0 >= 2_000_000_000 {
            probe_bw_min = probe_bw_min.min(dt);
            assert!(dt >= gap(1.25, len), "segment {i} at {t0} ns: {dt} s");
        }
    }
    assert!(
        probe_bw_min.is_finite() && segs.len() > 2000,
        "{} segments",
        segs.len()
    );
    let cubic = data_segments(&one_flow("cubic", 5), &dir);
    let back_to_back = cubic
        .windows(2)
        .filter(|w| w[1].0 - w[0].0 < 20_000)
        .count();
    assert!(
        back_to_back > cubic.len() / 4,
        "{back_to_back} of {}",
        cubic.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}
