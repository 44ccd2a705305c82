mod common;
use serde_json::{json, Value};
use aqmlab_sim::Column;
fn show(r: &aqmlab_sim::Report, cols: &[&str]) -> String {
    let t = r.table("connections").unwrap();
    cols.iter().map(|c| match t.column(c).unwrap() { Column::F64(v) => format!("{c}={:.4}", v[0]), Column::I64(v) => format!("{c}={}", v[0]), Column::Str(v) => format!("{c}={}", v[0]) }).collect::<Vec<_>>().join(" ")
}
#[test]
fn scratch() {
    let cols = ["outcome","end_s","established_s","data_rexmits","timeouts","fast_rexmits","recoveries","mean_recovery_s","srtt_s","syn_rexmits","fin_rexmits","ecn_reductions","bytes"];
    for (profile, variant, drops) in [("rfc","reno", vec![30]),("rfc","newreno", vec![30]),("rfc","sack", vec![30]),("rfc","reno", vec![30,32,34]),("rfc","newreno", vec![30,32,34]),("rfc","sack", vec![30,32,34]),("freebsd-2.2","reno", vec![30,32,34]),("ns2-2000","reno", vec![30,32,34])] {
        let d: Vec<Value> = drops.iter().map(|s| json!({"group": "f", "segment": s})).collect();
        let v = json!({"duration": "30s",
            "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
            "queue": {"kind": "scripted", "limit": "1000p", "drops": d},
            "tcp": {"profile": profile, "variant": variant, "delack": "off", "rwnd": "1MiB"},
            "traffic": [{"kind": "ftp", "name": "f", "size": "300KB"}]});
        let r = common::run(&v, Some(1));
        eprintln!("{profile} {variant} {drops:?}: {}", show(&r, &cols));
    }
    for (profile, q) in [("freebsd-2.2", "syn"), ("rfc", "syn"), ("rfc", "synack"), ("rfc", "fin")] {
        let rule = json!([{"group": "f", "what": q}]);
        let (fq, rq) = if q == "syn" { (json!({"kind":"droptail"}), json!({"kind":"scripted","drops":rule})) } else { (json!({"kind":"scripted","drops":rule}), json!({"kind":"droptail"})) };
        let v = json!({"duration": "30s", "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
            "queue": fq, "reverse_queue": rq, "tcp": {"profile": profile},
            "traffic": [{"kind": "ftp", "name": "f", "size": "146000B", "start": "1s"}]});
        let r = common::run(&v, Some(1));
        eprintln!("{profile} lost {q}: {}", show(&r, &cols));
    }
    let v = json!({"duration": "30s", "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
            "queue": {"kind":"scripted","drops":[{"group":"f","segment":100}]}, "tcp": {"profile": "rfc"},
            "traffic": [{"kind": "ftp", "name": "f", "size": "146000B"}]});
    eprintln!("lost last: {}", show(&common::run(&v, Some(1)), &cols));
    for segs in [vec![30, 31], vec![30, 150]] {
        let d: Vec<Value> = segs.iter().map(|s| json!({"group": "f", "segment": s, "action": "mark"})).collect();
        let v = json!({"duration": "30s", "topology": {"bottleneck": {"rate": "10Mbps", "delay": "40ms"}},
            "queue": {"kind":"scripted","limit":"1000p","drops":d}, "tcp": {"profile": "rfc", "ecn": true, "delack": "off", "rwnd": "1MiB"},
            "traffic": [{"kind": "ftp", "name": "f", "size": "300KB", "trace": true}]});
        let r = common::run(&v, Some(1));
        eprintln!("mark {segs:?}: marks {} drops {} {}", r.summary.bottleneck.marks_pkts, r.summary.bottleneck.drops_pkts, show(&r, &cols));
    }
}
