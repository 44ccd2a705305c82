//! TCP: endpoints with the handshake, Reno/NewReno/SACK loss recovery, RTO estimation with clock
//! ticks, delayed ACKs and ECN; the named profiles of the studies' systems.

pub mod config;
pub mod endpoint;
pub mod ranges;
pub mod rto;

pub use config::{TcpConfig, Variant};
pub use endpoint::{Endpoint, Out, State, Timer};
