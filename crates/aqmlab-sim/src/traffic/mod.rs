//! Traffic: the sources that put packets into the network and the sinks that take them out, and
//! the TCP connections that carry applications' bytes (over [`crate::tcp`]'s endpoints).

pub mod config;
pub mod connection;
pub mod dist;
pub mod empirical;
pub mod http;
pub mod session;
pub mod udp;
pub mod web;

pub use connection::{App, ConnCounts, Connection, Outcome, WebPair};
