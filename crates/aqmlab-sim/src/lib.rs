//! aqmlab's engine: a deterministic packet-level discrete-event simulator of a dumbbell network with
//! queue disciplines and traffic models. No Python, no global state: a [`Simulation`] is an owned value
//! built from a validated [`Scenario`] and a seed, and a run is a pure function of the two.
//!
//! ```
//! use aqmlab_sim::{Scenario, Simulation};
//! let scenario = Scenario::from_json(r#"{
//!     "duration": "2s",
//!     "topology": {"bottleneck": {"rate": "10Mbps", "delay": "5ms"}},
//!     "traffic": [{"kind": "cbr", "rate": "5Mbps"}]
//! }"#).unwrap();
//! let report = Simulation::new(&scenario, None).run();
//! assert!((report.summary.bottleneck.utilization - 0.5).abs() < 0.01);
//! ```

pub mod event;
pub mod measure;
pub mod network;
pub mod packet;
pub mod queue;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod traffic;
pub mod units;

pub use report::{Column, Report, Table};
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;

/// The engine's version, recorded in every output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
