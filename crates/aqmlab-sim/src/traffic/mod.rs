//! Traffic: the sources that put packets into the network and the sinks that take them out.

pub mod empirical;
pub mod session;
pub mod udp;
pub mod web;
