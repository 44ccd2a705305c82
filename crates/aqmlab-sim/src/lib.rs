//! aqmlab's engine: a deterministic packet-level discrete-event simulator of networks (the dumbbell
//! by default, or any nodes and links) with queue disciplines and traffic models. No Python, no
//! global state: a [`Simulation`] is an owned value built from a validated [`Scenario`] and a
//! seed, and a run is a pure function of the two.
//!
//! ```
//! use aqmlab_sim::{Scenario, Simulation};
//! let scenario = Scenario::from_json(r#"{
//!     "duration": "2s",
//!     "topology": {"bottleneck": {"rate": "10Mbps", "delay": "5ms"}},
//!     "traffic": [{"kind": "cbr", "rate": "5Mbps"}]
//! }"#).unwrap();
//! let report = Simulation::new(&scenario, None).run().unwrap();
//! assert!((report.summary.links["forward"].utilization - 0.5).abs() < 0.01);
//! ```

pub mod cache;
pub mod event;
pub mod measure;
pub mod network;
pub mod packet;
pub mod pcap;
pub mod queue;
pub mod report;
pub mod rng;
pub mod rounding;
pub mod routing;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod tcp;
pub mod traffic;
pub mod units;

pub use report::{Column, Report, Table};
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;

/// The engine's version, recorded in every output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What this engine was built from (`build.rs`), recorded as `meta.build` in every summary.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Build {
    pub version: &'static str,
    /// The git commit of the checkout when the engine was compiled, or "unknown".
    pub commit: &'static str,
    /// Whether the engine's sources had uncommitted changes then (`None`: not known).
    pub dirty: Option<bool>,
    /// The cargo profile ("release", "debug").
    pub profile: &'static str,
    /// The Rust compiler that built it (`rustc --version`), or "unknown".
    pub rustc: &'static str,
    /// FNV-1a-64 of the engine's and the binding's sources and Cargo.lock.
    pub source_digest: &'static str,
    /// Identifies the build for the run store: a digest of (version, sources, profile).
    pub id: &'static str,
}

/// This engine's build.
pub const BUILD: Build = Build {
    version: VERSION,
    commit: env!("AQMLAB_BUILD_COMMIT"),
    dirty: match env!("AQMLAB_BUILD_DIRTY").as_bytes() {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    },
    profile: env!("AQMLAB_BUILD_PROFILE"),
    rustc: env!("AQMLAB_BUILD_RUSTC"),
    source_digest: env!("AQMLAB_SOURCE_DIGEST"),
    id: env!("AQMLAB_BUILD_ID"),
};
