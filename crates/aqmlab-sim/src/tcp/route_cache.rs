//! FreeBSD 2.2's per-host RTT cache: the routing entry of each destination host keeps an RTT and
//! its variance (`rmx_rtt`, `rmx_rttvar`, in µs, `RTM_RTTUNIT`) that connections leave and later
//! connections start from (docs/freebsd-2.2-tcp-notes.md item 7).
//!
//! - **Filled** when a connection closes (`tcp_subr.c` `tcp_close`), by each end in its own host's
//!   route to the peer, if that end took at least 16 RTT samples (`t_rttupdated >= 16`): the
//!   first value is stored as it is, each later one averaged half and half with the stored one
//!   (`(rmx_rtt + i) / 2`). The end that closed second (LAST_ACK) closes when the connection
//!   completes; the one that closed first waits in TIME_WAIT (2·MSL, 60 s) before it does.
//! - **Read** when a SYN or SYN-ACK arrives (`tcp_input.c` `tcp_dooptions` → `tcp_mss`) at an end
//!   with no RTT estimate yet ([`crate::tcp::rto::RtoEstimator::start_from_route`]): the server's
//!   SYN-ACK timer, and the client's estimate (its SYN's sample then smooths into it). The
//!   client's SYN goes out before (`tcp_output` calls only `tcp_mssopt`), on the 3 s default.
//! - **Never aged** here: a cloned host route expires only after an hour without a reference
//!   (`in_rmx.c`, `rtq_reallyold` 3600 s), longer than the runs it serves. The cached ssthresh
//!   (`rmx_ssthresh`) is never filled without a configured pipe size, and is not modelled.
//!
//! Units: `i = t_srtt · (RTM_RTTUNIT / (PR_SLOWHZ · TCP_RTT_SCALE))` µs on the way in, and
//! `t_srtt = rmx_rtt / (…)` on the way out (integer divisions; 15 625 µs per unit of `t_srtt`
//! and 31 250 per unit of `t_rttvar` with the 500 ms slow timer).

use crate::rng::KeyMap;
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// FreeBSD 2.2's TIME_WAIT: 2·MSL, `TCPTV_MSL` being 30 s (`tcp_timer.h`).
pub const TIME_WAIT: Time = Time::from_secs(60);

/// One route's cached values, µs (`rmx_rtt`, `rmx_rttvar`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteRtt {
    pub rtt_us: u64,
    pub rttvar_us: u64,
}

/// The cache of every host's routes to its peers, keyed (host, peer) ([`RouteCache::key`]).
#[derive(Default)]
pub struct RouteCache {
    routes: KeyMap<RouteRtt>,
    /// Updates of ends in TIME_WAIT, applied when it ends, earliest first.
    waiting: BinaryHeap<Reverse<Waiting>>,
    made: u64,
}

/// An end's update waiting for its TIME_WAIT to end (ordered by `at`, then by when it was made).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Waiting {
    at: Time,
    made: u64,
    host: u32,
    peer: u32,
    /// `t_srtt` (ticks ×32) and `t_rttvar` (ticks ×16) at `tick`.
    estimate: (u64, u64),
    tick: Time,
}

/// µs per unit of `t_srtt` (`scale` 32) or `t_rttvar` (`scale` 16) with slow-timer tick `tick`:
/// `RTM_RTTUNIT / (PR_SLOWHZ · scale)`.
fn us_per_unit(tick: Time, scale: u64) -> u64 {
    let slowhz = (1_000_000_000 / tick.0).max(1);
    (1_000_000 / (slowhz * scale)).max(1)
}

impl RouteCache {
    /// (host, peer) as one integer.
    fn key(host: u32, peer: u32) -> u64 {
        u64::from(host) << 32 | u64::from(peer)
    }

    /// `host`'s cached values for its route to `peer` at `now` (after the TIME_WAITs ended by
    /// then), as `t_srtt` (ticks ×32) and `t_rttvar` (ticks ×16; `None` if none cached); `None`
    /// without a cached RTT.
    pub fn lookup(
        &mut self,
        now: Time,
        host: u32,
        peer: u32,
        tick: Time,
    ) -> Option<(u64, Option<u64>)> {
        self.settle(now);
        let r = self
            .routes
            .get(&Self::key(host, peer))
            .filter(|r| r.rtt_us != 0)?;
        let rttvar = (r.rttvar_us != 0).then(|| r.rttvar_us / us_per_unit(tick, 16));
        Some((r.rtt_us / us_per_unit(tick, 32), rttvar))
    }

    /// An end of `host` with an estimate (`t_srtt`, `t_rttvar` at `tick`) closes its connection
    /// to `peer` at `at` (`now`, or later after TIME_WAIT).
    pub fn close(
        &mut self,
        now: Time,
        at: Time,
        host: u32,
        peer: u32,
        est: (u64, u64),
        tick: Time,
    ) {
        self.settle(now);
        if at <= now {
            self.store(host, peer, est, tick);
        } else {
            self.made += 1;
            self.waiting.push(Reverse(Waiting {
                at,
                made: self.made,
                host,
                peer,
                estimate: est,
                tick,
            }));
        }
    }

    /// Apply the updates whose TIME_WAIT has ended by `now`, in time order.
    fn settle(&mut self, now: Time) {
        while let Some(&Reverse(w)) = self.waiting.peek() {
            if w.at > now {
                break;
            }
            self.waiting.pop();
            self.store(w.host, w.peer, w.estimate, w.tick);
        }
    }

    /// `tcp_close`'s update: each value stored as it is, or averaged with a stored one.
    fn store(&mut self, host: u32, peer: u32, (srtt, rttvar): (u64, u64), tick: Time) {
        let route = self.routes.entry(Self::key(host, peer)).or_default();
        let blend = |old: u64, new: u64| {
            if old != 0 && new != 0 {
                (old + new) / 2
            } else {
                new
            }
        };
        route.rtt_us = blend(route.rtt_us, srtt * us_per_unit(tick, 32));
        route.rttvar_us = blend(route.rttvar_us, rttvar * us_per_unit(tick, 16));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Time = Time(500_000_000);

    #[test]
    fn units_are_freebsds_for_the_500_ms_slow_timer() {
        assert_eq!(us_per_unit(TICK, 32), 15_625);
        assert_eq!(us_per_unit(TICK, 16), 31_250);
    }

    #[test]
    fn a_route_keeps_the_first_value_then_averages_half_and_half() {
        let mut cache = RouteCache::default();
        assert_eq!(cache.lookup(Time(0), 1, 2, TICK), None);
        // srtt 10 (0.156 s), rttvar 3: stored as 156 250 µs and 93 750 µs.
        cache.close(Time(0), Time(0), 1, 2, (10, 3), TICK);
        assert_eq!(cache.lookup(Time(0), 1, 2, TICK), Some((10, Some(3))));
        cache.close(Time(0), Time(0), 1, 2, (20, 5), TICK);
        assert_eq!(cache.lookup(Time(0), 1, 2, TICK), Some((15, Some(4))));
        // Only that host's route to that peer.
        assert_eq!(cache.lookup(Time(0), 2, 1, TICK), None);
    }

    #[test]
    fn an_end_in_time_wait_updates_when_it_ends() {
        let mut cache = RouteCache::default();
        let s = |secs: u64| Time(secs * 1_000_000_000);
        cache.close(s(5), s(65), 1, 2, (10, 3), TICK);
        assert_eq!(cache.lookup(s(64), 1, 2, TICK), None);
        assert_eq!(cache.lookup(s(65), 1, 2, TICK), Some((10, Some(3))));
    }
}
