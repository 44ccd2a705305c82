//! `[capture]`: write a libpcap trace of chosen links (see [`crate::pcap`] for the file and
//! `crate::sim::capture` for what each frame holds).
//!
//! ```toml
//! [capture]
//! links = ["forward", "reverse"]   # the dumbbell's bottleneck, or any link direction by name
//! snaplen = 128                    # bytes kept of each frame (default 128)
//! ```
//! A capture changes no result; it is recorded in the resolved scenario only when it names a link,
//! so scenarios without one resolve (and hash) as before.

use super::reader::{integer, list, string, Fields, Result, ScenarioError};
use crate::network::Net;
use crate::pcap::MAX_SNAPLEN;
use serde::Serialize;
use serde_json::Value;

/// The snap length when none is given: every header (at most 14 + 20 + 48 = 82 bytes) and some
/// of the (zero) payload.
pub const DEFAULT_SNAPLEN: u32 = 128;

/// Which links to capture and how much of each frame to keep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Capture {
    /// Link direction names, in the order given (the dumbbell's `forward`, `reverse`,
    /// `<host>.up`, `<host>.down`).
    pub links: Vec<String>,
    /// Bytes kept of each frame (the rest is counted in the record's original length).
    pub snaplen: u32,
}

impl Default for Capture {
    fn default() -> Capture {
        Capture {
            links: Vec::new(),
            snaplen: DEFAULT_SNAPLEN,
        }
    }
}

impl Capture {
    /// True when nothing is captured (then `[capture]` is left out of the resolved scenario).
    pub fn is_off(&self) -> bool {
        self.links.is_empty()
    }
}

pub(super) fn parse_capture(v: &Value, path: &str, net: &Net) -> Result<Capture> {
    let mut f = Fields::of(v, path)?;
    let links_path = f.key_path("links");
    let links = f.or("links", Vec::new(), list(string))?;
    for (i, name) in links.iter().enumerate() {
        let at = format!("{links_path}[{i}]");
        if !net.links.iter().any(|l| &l.name == name) {
            let some: Vec<&str> = net
                .links
                .iter()
                .rev()
                .take(4)
                .map(|l| l.name.as_str())
                .collect();
            return Err(ScenarioError::new(
                at,
                format!(
                    "expected the name of one of the network's {} link directions ({}, …), got \"{}\"",
                    net.links.len(),
                    some.join(", "),
                    name.escape_debug()
                ),
            ));
        }
        if links[..i].contains(name) {
            return Err(ScenarioError::new(
                at,
                format!("\"{name}\" is listed twice"),
            ));
        }
    }
    let snaplen = f.or(
        "snaplen",
        u64::from(DEFAULT_SNAPLEN),
        integer(1, u64::from(MAX_SNAPLEN)),
    )? as u32;
    f.finish()?;
    Ok(Capture { links, snaplen })
}

#[cfg(test)]
mod tests {
    use crate::Scenario;
    use serde_json::{json, Value};

    fn with(capture: Value) -> Value {
        json!({"duration": "1s", "topology": {"servers": 2, "clients": 3,
               "bottleneck": {"rate": "10Mbps"}}, "capture": capture})
    }

    #[test]
    fn capture_names_existing_links_and_resolves_only_when_on() {
        let s =
            Scenario::from_value(&with(json!({"links": ["forward", "s1.up", "c2.down"]}))).unwrap();
        assert_eq!(s.capture.links, ["forward", "s1.up", "c2.down"]);
        let r = s.to_value();
        assert_eq!(
            r["capture"],
            json!({"links": ["forward", "s1.up", "c2.down"], "snaplen": 128})
        );
        assert_eq!(Scenario::from_value(&r).unwrap().to_value(), r);
        let off = Scenario::from_value(&with(json!({"snaplen": 64}))).unwrap();
        assert!(off.to_value().get("capture").is_none());
    }

    #[test]
    fn bad_capture_tables_name_their_keys() {
        let err = |c: Value| Scenario::from_value(&with(c)).unwrap_err();
        for bad in ["s2.up", "c3.down", "r1", "s01.up", "c.up", "forward.up"] {
            let e = err(json!({"links": [bad]}));
            assert_eq!(e.path, "capture.links[0]", "{bad}");
            assert!(
                e.message.contains("12 link directions (reverse, forward"),
                "{e}"
            );
        }
        assert_eq!(
            err(json!({"links": ["reverse", "reverse"]})).path,
            "capture.links[1]"
        );
        assert_eq!(err(json!({"links": "forward"})).path, "capture.links");
        assert_eq!(err(json!({"snaplen": 0})).path, "capture.snaplen");
        assert_eq!(err(json!({"snaplen": 300_000})).path, "capture.snaplen");
        assert_eq!(err(json!({"link": ["forward"]})).path, "capture.link");
    }
}
