//! aqmlab's live mode, its Rust half: a userspace router that runs a scenario's bottleneck — the
//! engine's own queue disciplines, transmitter and measurement — on real packets, in real time,
//! between two network namespaces whose hosts are real Linux TCP/IP stacks (`docs/live.md`). The
//! Python half (`aqmlab.live`) makes the namespaces and devices, runs the endpoints and tears
//! everything down.
//!
//! Rooms: [`ip`] (the header fields read and written, and the address plan), [`tun`] (the
//! devices), [`router`] (the loop), [`timing`] (its timing error).

pub mod ip;
pub mod router;
pub mod timing;
pub mod tun;
