//! A packet that reaches an idle link whose drop-tail queue is empty and has room for it is sent
//! without being stored and taken back (`Simulation::enqueue`, `QueueDisc::passes_idle`): the link
//! still counts it in and out, with a wait of 0, and a queue without room still drops it.

mod common;

use common::{forward_sum, ints, run};
use serde_json::{json, Value};

/// One CBR flow of 1000 B packets at `rate` through a 10 Mbit/s, 5 ms bottleneck with `queue`,
/// for 10 s measured after 1 s.
fn cbr(rate: &str, queue: Value) -> Value {
    json!({
        "duration": "11s", "warmup": "1s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "5ms"}},
        "queue": queue,
        "traffic": [{"kind": "cbr", "rate": rate, "size": "1000B"}]
    })
}

#[test]
fn a_packet_through_an_idle_queue_is_counted_in_and_out_with_no_wait() {
    // 1 Mbit/s of 1000 B packets: one every 8 ms, each on the 10 Mbit/s wire for 0.8 ms, so every
    // packet finds the bottleneck idle and its queue empty.
    let r = run(
        &cbr("1Mbps", json!({"kind": "droptail", "limit": "50p"})),
        Some(1),
    );
    let b = &r.summary.links["forward"];
    assert_eq!(b.arrivals_pkts, 1250, "10 s at 125 packets/s");
    assert_eq!((b.departures_pkts, b.drops_pkts), (b.arrivals_pkts, 0));
    assert_eq!((b.backlog_start_pkts, b.backlog_end_pkts), (0, 0));
    assert_eq!((b.mean_queue_pkts, b.mean_queue_delay_s), (0.0, 0.0));
    assert!(
        (b.throughput_bps - 1e6).abs() < 1e-6 * 1e6,
        "{}",
        b.throughput_bps
    );
    // The queue log's intervals count each packet in and out.
    assert_eq!(forward_sum(&r, "arrivals_pkts"), 1250);
    assert_eq!(forward_sum(&r, "departures_pkts"), 1250);
    // And the sink got every packet sent.
    let (sent, received) = (
        ints(&r, "flows", "sent_pkts"),
        ints(&r, "flows", "recv_pkts"),
    );
    assert!(
        sent[0] - received[0] <= 1,
        "{sent:?} sent, {received:?} received"
    );
}

/// Every packet of the light CBR flow through `queue` is dropped on arrival, for `reason`.
fn all_dropped(queue: Value, reason: &str) {
    let r = run(&cbr("1Mbps", queue), Some(1));
    let b = &r.summary.links["forward"];
    assert_eq!((b.arrivals_pkts, b.departures_pkts), (1250, 0));
    assert_eq!(b.drops_pkts_by_reason.get(reason), Some(&1250));
}

#[test]
fn an_idle_queue_without_room_for_the_packet_still_drops_it() {
    // A 500 B queue cannot hold a 1000 B packet, even empty on an idle link.
    all_dropped(json!({"kind": "droptail", "limit": "500B"}), "overflow");
}

#[test]
fn an_aqm_decides_on_a_packet_at_an_idle_link_as_on_any_other() {
    // A Bernoulli dropper with p = 1 on an idle link: no packet passes, each is dropped at arrival.
    all_dropped(
        json!({"kind": "bernoulli", "p": 1.0, "limit": "50p"}),
        "random",
    );
}

#[test]
fn a_queue_that_empties_between_bursts_integrates_only_its_backlog() {
    // Two 1 Mbit/s CBR flows of 1000 B packets from the one server, sent at the same instants:
    // every 8 ms the second packet waits 80 us behind the first on the server's 100 Mbit/s access
    // link, reaches the bottleneck 80 us after it, and waits the rest of the first's 0.8 ms on the
    // 10 Mbit/s wire: 0.72 ms. Then the link is idle and its queue empty until the next pair (the
    // queue passes packets through and goes idle without being integrated). Mean queue
    // 0.72 / 8 = 0.09 packets; mean wait (0 + 0.72) / 2 = 0.36 ms.
    let mut scenario = cbr("1Mbps", json!({"kind": "droptail", "limit": "50p"}));
    scenario["traffic"][0]["flows"] = json!(2);
    let r = run(&scenario, Some(1));
    let b = &r.summary.links["forward"];
    assert_eq!((b.arrivals_pkts, b.drops_pkts), (2500, 0));
    assert!(
        (b.mean_queue_pkts - 0.09).abs() < 1e-6,
        "{}",
        b.mean_queue_pkts
    );
    assert!(
        (b.mean_queue_delay_s - 0.00036).abs() < 1e-9,
        "{}",
        b.mean_queue_delay_s
    );
}
