//! Driving session connections (web sessions, telnet): the application writes when its think
//! time or inter-arrival gap ends.

use super::{Apps, Below};
use crate::event::{Event, EventQueue};
use crate::sim::tcp::TcpTraffic;
use crate::tcp::State;
use crate::traffic::session::{telnet_gap, think, write_size, SessionApp, WebPhase};
use crate::traffic::App;
use crate::units::Time;

impl Apps {
    /// Connection `c` (of `tcp`) just opened at `now`: a telnet source schedules its first
    /// keystroke.
    pub(in crate::sim) fn session_opened(
        &mut self,
        c: u32,
        now: Time,
        events: &mut EventQueue,
        tcp: &mut TcpTraffic,
    ) {
        let conn = &mut tcp.conns.all[c as usize];
        if let App::Session(SessionApp::Telnet) = conn.app {
            let table = self
                .tcplib
                .as_ref()
                .expect("loaded when a telnet group exists");
            let kind = &self.kinds[conn.group as usize];
            let gap = telnet_gap(kind, table, &mut conn.rng);
            events.schedule(now + gap, Event::AppWake { conn: c });
        }
    }

    /// After a segment reached side `side` of connection `c` at `now`: a web session whose
    /// transfer is all acknowledged adds the transfer's time to its total and starts thinking.
    pub(super) fn session_progress(
        &mut self,
        c: u32,
        side: usize,
        now: Time,
        events: &mut EventQueue,
        tcp: &mut TcpTraffic,
    ) {
        let conn = &mut tcp.conns.all[c as usize];
        let sender = conn.data_sender;
        if let App::Session(app @ SessionApp::WebSession { phase, .. }) = conn.app {
            let e = &conn.ends[sender];
            if phase != WebPhase::Thinking
                && side == sender
                && e.state == State::Established
                && e.all_acked()
            {
                let busy = app
                    .transferring(now, conn.started)
                    .expect("a web session counts its transfers");
                let kind = &self.kinds[conn.group as usize];
                let pause = think(kind, &mut conn.rng);
                conn.app = App::Session(SessionApp::WebSession {
                    phase: WebPhase::Thinking,
                    busy,
                });
                events.schedule(now + pause, Event::AppWake { conn: c });
            }
        }
    }

    /// The application of connection `c` writes again, at `now`.
    pub(in crate::sim) fn app_wakes(&mut self, c: u32, now: Time, b: &mut Below) {
        let tcp = &mut *b.tcp;
        let conn = &mut tcp.conns.all[c as usize];
        let sender = conn.data_sender;
        let App::Session(app) = conn.app else { return };
        let kind = &self.kinds[conn.group as usize];
        if let SessionApp::Telnet = app {
            let table = self
                .tcplib
                .as_ref()
                .expect("loaded when a telnet group exists");
            let gap = telnet_gap(kind, table, &mut conn.rng);
            b.events.schedule(now + gap, Event::AppWake { conn: c });
        } else if let SessionApp::WebSession { busy, .. } = app {
            conn.app = App::Session(SessionApp::WebSession {
                phase: WebPhase::Transfer(now),
                busy,
            });
        }
        let size = write_size(kind, &mut conn.rng);
        let cfg = &tcp.conns.cfgs[conn.end_cfgs[sender] as usize];
        conn.ends[sender].write_after_pause(size, now, cfg);
        conn.ends[sender].kick(now, cfg, &mut conn.rng, &mut tcp.outbox);
        tcp.emit(c, sender, now, b.events, b.network);
    }
}
