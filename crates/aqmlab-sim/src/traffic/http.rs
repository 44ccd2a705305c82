//! ns-2's page-pool web agents as they behave (`web-pool` with `connections = "ns2-http"`), read
//! in ns-2.35's `tcl/webcache/http-agent.tcl` (`Http connect`, `Http/Client send-request`,
//! `next-request`), `tcl/webcache/http-server.tcl` (`gen-page`, `modify-page`,
//! `handle-request-GET`), `webcache/http.cc` (`HttpApp::add_cnc`, `lookup_cnc`) and
//! `webcache/pagepool.cc` (`PagePool/Math`, `ClientPagePool::add_page`):
//!
//! - a client connects once (`Http connect`: one FullTcp agent, which sends its SYN with the first
//!   request) and never closes; it sends a request only when none of its is unanswered;
//! - an `HttpApp` keys its connections by the peer's `id_`, its node's id, and keeps the first
//!   one made (`add_cnc` ignores a second entry): a server answers every client of one host over
//!   the connection of the first of them, so the replies to a host share one connection, in the
//!   order the requests arrived;
//! - `PagePool/Math` holds one page per server, created at its first request with a size and an
//!   age drawn from the pool's `ranvar-size` and `ranvar-age`; when the age runs out the server
//!   modifies the page (`modify-page` → `gen-page`), drawing a new size and age, and the new
//!   version replaces the old (`add_page`). A size draw is truncated to whole bytes, 0 becoming 1.
//!
//! What the simulation keeps for this ([`HttpUser`], [`HostPair`], [`ServerPage`]); the driving
//! is in `sim/apps/http.rs`.

use super::dist::Dist;
use crate::rng::Rng;
use crate::units::Time;
use std::collections::VecDeque;

/// An `ns2-http` user: its connection, its host pair, and its request in progress.
#[derive(Clone, Debug, Default)]
pub struct HttpUser {
    /// Its own connection (to its peer host), once its first request has opened it.
    pub conn: Option<u32>,
    /// Index of its (user host, server host) pair.
    pub pair: u32,
    /// Request bytes written on its connection so far: the server has the current request when
    /// it has received this many.
    pub requested: u64,
    /// Request bytes the server has answered: it answers a request once.
    pub served: u64,
    /// The request awaiting its reply: when it was written and its size.
    pub pending: Option<(Time, u64)>,
    /// Requests made so far (the `page` of the `requests` table).
    pub pages: u32,
}

/// A reply written on a pair's shared connection, not yet wholly received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The reply's last byte, counted from the connection's first reply byte.
    pub end: u64,
    pub bytes: u64,
    pub user: u32,
}

/// A (user host, server host) pair: the connection all replies to that user host travel on.
#[derive(Clone, Debug)]
pub struct HostPair {
    /// The serving host (node).
    pub server: u32,
    /// The shared connection: that of the pair's first user to request.
    pub conn: Option<u32>,
    /// Reply bytes written on it so far.
    pub written: u64,
    /// Replies in the order written, until the user host has them whole.
    pub replies: VecDeque<Reply>,
}

impl HostPair {
    pub fn new(server: u32) -> HostPair {
        HostPair {
            server,
            conn: None,
            written: 0,
            replies: VecDeque::new(),
        }
    }

    /// Queue a reply of `bytes` for `user`; returns its end.
    pub fn push_reply(&mut self, user: u32, bytes: u64) -> u64 {
        self.written += bytes;
        self.replies.push_back(Reply {
            end: self.written,
            bytes,
            user,
        });
        self.written
    }

    /// The next reply the user host now holds whole, given the reply bytes it has received.
    pub fn pop_received(&mut self, received: u64) -> Option<Reply> {
        if self.replies.front().is_some_and(|r| r.end <= received) {
            self.replies.pop_front()
        } else {
            None
        }
    }
}

/// A server's single page (`PagePool/Math`): its size and when the current version ends.
#[derive(Clone, Debug)]
pub struct ServerPage {
    size: u64,
    /// `None`: the version lasts for ever.
    until: Option<Time>,
    /// Draws the sizes and ages of the server's versions.
    rng: Rng,
}

impl ServerPage {
    /// The page of a server that has not been asked yet; `rng` draws its versions.
    pub fn unborn(rng: Rng) -> ServerPage {
        ServerPage {
            size: 0,
            until: Some(Time::ZERO),
            rng,
        }
    }

    /// The page's size at `now`: the first request creates it; each version whose age has run
    /// out by `now` is followed by another, with a new size and age, as ns-2's timed
    /// modifications would have done by then. Ages are drawn in seconds, as ns-2 draws them.
    pub fn size_at(&mut self, now: Time, size: &Dist, age: Option<&Dist>) -> u64 {
        if self.size == 0 {
            self.new_version(now, size, age);
        }
        while let Some(until) = self.until.filter(|&u| u <= now) {
            self.new_version(until, size, age);
        }
        self.size
    }

    /// A version made at `at`: `gen-page` draws its size, then its age.
    fn new_version(&mut self, at: Time, size: &Dist, age: Option<&Dist>) {
        self.size = (size.sample(&mut self.rng) as u64).max(1);
        self.until = age.map(|a| {
            let ns = (a.sample_scaled(&mut self.rng, 1e-9) * 1e9).round() as u64;
            at + Time(ns.max(1))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::dist::{Bare, Unit};

    fn exp_size(mean: u64) -> Dist {
        Dist::bare(mean, Unit::Size, Bare::ExponentialMean)
    }

    #[test]
    fn a_page_keeps_its_size_until_its_version_ends() {
        let size = exp_size(1024);
        let age = Dist::bare(5_000_000_000, Unit::Time, Bare::Constant);
        let mut page = ServerPage::unborn(Rng::stream(1, "page"));
        let first = page.size_at(Time::from_secs(1), &size, Some(&age));
        for ms in [1000, 2000, 5999] {
            assert_eq!(
                page.size_at(Time::from_millis(ms), &size, Some(&age)),
                first
            );
        }
        // Modified at 6 s, then at 11 s: each version draws anew (by chance never twice the same).
        let second = page.size_at(Time::from_secs(6), &size, Some(&age));
        assert_ne!(second, first);
        assert_eq!(
            page.size_at(Time::from_millis(10_999), &size, Some(&age)),
            second
        );
        let third = page.size_at(Time::from_secs(11), &size, Some(&age));
        assert_ne!(third, second);
        // A request long after goes through every version in between: the draws are the same
        // whenever the page is next asked.
        let mut a = ServerPage::unborn(Rng::stream(2, "page"));
        let mut b = ServerPage::unborn(Rng::stream(2, "page"));
        a.size_at(Time::from_secs(1), &size, Some(&age));
        b.size_at(Time::from_secs(1), &size, Some(&age));
        a.size_at(Time::from_secs(7), &size, Some(&age));
        assert_eq!(
            a.size_at(Time::from_secs(30), &size, Some(&age)),
            b.size_at(Time::from_secs(30), &size, Some(&age))
        );
    }

    #[test]
    fn a_page_of_no_age_never_changes_and_sizes_are_truncated_to_at_least_one_byte() {
        let mut page = ServerPage::unborn(Rng::stream(3, "page"));
        let size = Dist::bare(1024, Unit::Size, Bare::Constant);
        assert_eq!(page.size_at(Time::ZERO, &size, None), 1024);
        assert_eq!(page.size_at(Time::from_secs(10_000), &size, None), 1024);
        let tiny = Dist::bare(1, Unit::Size, Bare::ExponentialMean);
        let mut rng_page = ServerPage::unborn(Rng::stream(4, "page"));
        let mut ones = 0;
        let age = Dist::bare(1_000_000_000, Unit::Time, Bare::Constant);
        for s in 0..200 {
            let b = rng_page.size_at(Time::from_secs(s), &tiny, Some(&age));
            assert!(b >= 1);
            ones += u32::from(b == 1);
        }
        // int(Exp(1)) is 0 with probability 1 − 1/e, then 1: so at least that share are 1.
        assert!(ones > 100, "{ones}");
    }

    #[test]
    fn replies_complete_in_the_order_written() {
        let mut pair = HostPair::new(0);
        assert_eq!(pair.push_reply(7, 1000), 1000);
        assert_eq!(pair.push_reply(3, 500), 1500);
        assert_eq!(pair.pop_received(999), None);
        assert_eq!(
            pair.pop_received(1499),
            Some(Reply {
                end: 1000,
                bytes: 1000,
                user: 7
            })
        );
        assert_eq!(pair.pop_received(1499), None);
        assert_eq!(
            pair.pop_received(1500),
            Some(Reply {
                end: 1500,
                bytes: 500,
                user: 3
            })
        );
        assert_eq!(pair.pop_received(1500), None);
    }
}
