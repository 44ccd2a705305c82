//! A queue's configuration: its discipline and that discipline's own config type, as the scenario
//! resolves it (`[queue]`, `[reverse_queue]`; read by `scenario/queue.rs`).

use super::red::RedConfig;
use super::ScriptedRule;
use super::{CodelConfig, FqCodelConfig, PieConfig};
use crate::units::QueueLimit;
use serde::Serialize;

/// A bottleneck queue's discipline and its parameters.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum QueueSpec {
    DropTail {
        limit: QueueLimit,
    },
    /// Drop each arrival with probability `p` (with `ecn`: mark it if it is ECN-capable), then
    /// drop-tail.
    Bernoulli {
        p: f64,
        ecn: bool,
        limit: QueueLimit,
    },
    /// Drop or mark chosen segments of chosen TCP flows, then drop-tail (for tests).
    Scripted {
        limit: QueueLimit,
        drops: Vec<FlowRule>,
    },
    /// The RED family (`red.rs`; read by `scenario/red.rs`).
    Red(Box<RedConfig>),
    /// CoDel (`codel.rs`).
    Codel(CodelConfig),
    /// PIE (`pie.rs`).
    Pie(PieConfig),
    /// FQ-CoDel (`fq_codel.rs`).
    #[serde(rename = "fq_codel")]
    FqCodel(FqCodelConfig),
}

/// A scripted rule about flow `flow` of the traffic group named `group` (`[[queue.drops]]`).
#[derive(Clone, Debug, Serialize)]
pub struct FlowRule {
    pub group: String,
    pub flow: u32,
    #[serde(flatten)]
    pub rule: ScriptedRule,
}
