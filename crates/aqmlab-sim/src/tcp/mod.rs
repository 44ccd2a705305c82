//! TCP: endpoints with the handshake, Reno/NewReno/SACK loss recovery, Reno/CUBIC congestion
//! control (with HyStart), RTO estimation with clock ticks, delayed ACKs and ECN, pacing,
//! RACK-TLP; the named profiles of the studies' systems.

pub mod cc;
pub mod config;
pub mod endpoint;
pub mod pacing;
pub mod rack;
pub mod ranges;
pub mod route_cache;
pub mod rto;

pub use config::{TcpConfig, Variant};
pub use endpoint::{Endpoint, Out, State, Timer};
