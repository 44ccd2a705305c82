//! Packet traces of the links `[capture]` names: each packet is recorded, as an Ethernet frame
//! built by [`crate::pcap`], at the instant its transmission starts on the link — what tcpdump on
//! the sending interface (a router's egress for the bottleneck) would see. Packets a queue drops
//! never reach the transmitter and are not recorded; a packet marked CE by the link's own queue
//! is recorded marked. The whole run is captured, warm-up included.
//!
//! What the frames say, beyond the packet's own fields (every choice is stable for a scenario and
//! seed):
//! - MAC addresses (locally administered): server `i` `02:00:00:01:hh:ll`, client `i`
//!   `02:00:00:02:hh:ll` (`hhll` = `i`; servers and clients of a named topology), any other host
//!   `02:00:00:03:hh:ll` (`hhll` its node id), router `k` (counted after the hosts)
//!   `02:00:00:00:hh:ll` (`hhll` = `k + 1`: the dumbbell's R1 `…:00:01`, R2 `…:00:02`); a frame
//!   goes from the link's sending node to its receiving node.
//! - IPv4 addresses: server `i` is `10.1.0.0 + i + 1`, client `i` `10.2.0.0 + i + 1`, any other
//!   host `10.3.0.0 + node + 1`. TTL 64 as sent, less one per router passed on the packet's path:
//!   on the dumbbell 64 on a host's uplink, 63 on the bottleneck, 62 on a router's downlink to a
//!   host.
//! - The IP total length is the packet's size (what queues and throughput count), raised to 40
//!   (TCP) or 28 (UDP) bytes for a packet smaller than its headers (ns-2 profiles whose `header` is
//!   0 B), plus the SACK option's bytes, which the engine does not count in a size. With a
//!   `header` of 0 B a data segment's TCP payload is 40 bytes shorter than the sequence space it
//!   covers (the size includes the headers), which Wireshark's sequence analysis will notice.
//! - TCP: the client end (the opener) uses port `49152 + (connection slot mod 16384)`, the server
//!   end a port by traffic kind: 80 for web (`web-mah`, `web-pool`, `web-session`), 20 (ftp-data)
//!   for `ftp`, 23 for `telnet`. Each end's initial sequence number (RFC 793 §3.3 leaves it to the
//!   implementation) is a hash of the connection slot, the end and the time the connection opened
//!   (SplitMix64, low 32 bits), so connections that reuse a slot get new numbers. The engine's
//!   sequence and acknowledgment numbers (relative, SYN at 0) are added to them, modulo 2^32. The
//!   window is the sending end's `rwnd`, at most 65535 (no window scaling is modelled). Flags are
//!   those the engine models: SYN, ACK, FIN, ECE, CWR (no PSH, RST or URG). SACK blocks as the
//!   engine carries them. No options on SYNs (MSS, SACK-permitted: not modelled).
//! - UDP: source port `49152 + (flow mod 16384)`, destination port 9 (discard).

use crate::network::{router_mac, Link, Topo};
use crate::packet::{flags, Packet, Proto};
use crate::pcap::{tcp_flags, Frame, PcapWriter, Transport};
use crate::routing::Routes;
use crate::scenario::Scenario;
use crate::tcp::TcpConfig;
use crate::traffic::config::TrafficKind;
use crate::traffic::Connection;
use crate::units::Time;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

/// The first ephemeral port (RFC 6335 §6), and how many there are.
const EPHEMERAL: u16 = 49152;
const EPHEMERAL_PORTS: u32 = 16384;
/// The UDP destination port (discard, RFC 863).
const UDP_PORT: u16 = 9;
/// TTL as a host sends a packet.
const TTL: u8 = 64;

/// One captured link: its file and what every frame on it shares.
struct LinkCapture {
    writer: PcapWriter<BufWriter<File>>,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
}

/// The open captures of a run.
pub(crate) struct Captures {
    /// Per link id: its index in `open`, if captured.
    by_link: Vec<Option<usize>>,
    open: Vec<LinkCapture>,
    /// Per traffic group: its server port.
    server_port: Vec<u16>,
    /// Per host: its IPv4 address.
    addresses: Vec<[u8; 4]>,
    /// The first write error; writing stops at it and `finish` returns it.
    failed: Option<io::Error>,
}

/// A connection end's initial sequence number: SplitMix64 of (slot, end, opening time).
fn isn(conn: u32, side: usize, opened: Time) -> u32 {
    let mut z = (u64::from(conn) << 1 | side as u64) ^ opened.0.rotate_left(32);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) as u32
}

fn ip_len(size: u32, headers: usize, options: usize) -> u16 {
    (size.max(headers as u32) + options as u32).min(u32::from(u16::MAX)) as u16
}

impl Captures {
    /// Open `<dir>/<link>.pcap` for every link of `topo` (`links`) that `scenario`'s `[capture]`
    /// names. A frame goes from the link's sending node's Ethernet address to its receiving
    /// node's ([`crate::network::Net::host_addresses`], [`router_mac`]).
    pub(crate) fn open(
        scenario: &Scenario,
        topo: &Topo,
        links: &[Link],
        dir: &Path,
    ) -> io::Result<Captures> {
        let net = &topo.net;
        let (addresses, macs): (Vec<[u8; 4]>, Vec<[u8; 6]>) =
            net.host_addresses().into_iter().unzip();
        let mac = |node: u32| match node.checked_sub(net.hosts) {
            Some(router) => router_mac(router),
            None => macs[node as usize],
        };
        let mut by_link = vec![None; links.len()];
        let mut open = Vec::new();
        for name in &scenario.capture.links {
            let l = links
                .iter()
                .position(|link| &link.name == name)
                .expect("validated: a captured link exists");
            let file = BufWriter::new(File::create(dir.join(format!("{name}.pcap")))?);
            by_link[l] = Some(open.len());
            open.push(LinkCapture {
                writer: PcapWriter::new(file, scenario.capture.snaplen)?,
                src_mac: mac(net.links[l].from),
                dst_mac: mac(net.links[l].to),
            });
        }
        let server_port = scenario
            .traffic
            .iter()
            .map(|t| match t.kind {
                TrafficKind::Ftp { .. } => 20,
                TrafficKind::Telnet { .. } => 23,
                _ => 80,
            })
            .collect();
        Ok(Captures {
            by_link,
            open,
            server_port,
            addresses,
            failed: None,
        })
    }

    /// Record packet `p` starting its transmission on link `l` at `now`, if `l` is captured. Its
    /// TTL is 64 less the routers it crossed on its way (`routes`).
    pub(crate) fn record(
        &mut self,
        l: u32,
        now: Time,
        p: &Packet,
        routes: &Routes,
        conns: &[Connection],
        cfgs: &[TcpConfig],
    ) {
        let Some(i) = self.by_link[l as usize] else {
            return;
        };
        if self.failed.is_some() {
            return;
        }
        let transport = match p.proto {
            Proto::Udp => Transport::Udp {
                src_port: EPHEMERAL + (p.flow % EPHEMERAL_PORTS) as u16,
                dst_port: UDP_PORT,
            },
            Proto::Tcp => self.tcp(p, &conns[p.flow as usize], cfgs),
        };
        let headers = if p.proto == Proto::Tcp { 40 } else { 28 };
        let options = transport.header_bytes() - if p.proto == Proto::Tcp { 20 } else { 8 };
        let link = &mut self.open[i];
        let frame = Frame {
            dst_mac: link.dst_mac,
            src_mac: link.src_mac,
            src_ip: self.addresses[p.src as usize],
            dst_ip: self.addresses[p.dst as usize],
            ttl: TTL - routes.hops_before(p.src, p.dst, l).unwrap_or(0).min(63) as u8,
            ecn: p.ecn,
            ip_len: ip_len(p.size, headers, options),
            transport,
        };
        if let Err(e) = link.writer.write(now, &frame) {
            self.failed = Some(e);
        }
    }

    fn tcp(&self, p: &Packet, conn: &Connection, cfgs: &[TcpConfig]) -> Transport {
        let side = usize::from(!p.from_opener);
        let opened = conn.started.unwrap_or(Time::ZERO);
        let (own, peer) = (isn(p.flow, side, opened), isn(p.flow, 1 - side, opened));
        let client_port = EPHEMERAL + (p.flow % EPHEMERAL_PORTS) as u16;
        let server_port = self.server_port[conn.group as usize];
        let (src_port, dst_port) = if side == 0 {
            (client_port, server_port)
        } else {
            (server_port, client_port)
        };
        let seg = &p.seg;
        let mut bits = 0;
        for (engine, wire) in [
            (flags::SYN, tcp_flags::SYN),
            (flags::ACK, tcp_flags::ACK),
            (flags::FIN, tcp_flags::FIN),
            (flags::ECE, tcp_flags::ECE),
            (flags::CWR, tcp_flags::CWR),
        ] {
            if seg.has(engine) {
                bits |= wire;
            }
        }
        let mut sack = [(0, 0); 3];
        for (out, b) in sack.iter_mut().zip(seg.sack_blocks()) {
            *out = (
                peer.wrapping_add(b.start as u32),
                peer.wrapping_add(b.end as u32),
            );
        }
        let rwnd = cfgs[conn.end_cfgs[side] as usize].rwnd.bytes();
        Transport::Tcp {
            src_port,
            dst_port,
            seq: own.wrapping_add(seg.seq as u32),
            ack: peer.wrapping_add(seg.ack as u32),
            flags: bits,
            window: rwnd.min(u64::from(u16::MAX)) as u16,
            sack,
            nsack: seg.nsack,
        }
    }

    /// Flush every file; the first error met while writing, if any.
    pub(crate) fn finish(self) -> io::Result<()> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        for link in self.open {
            link.writer.finish()?;
        }
        Ok(())
    }
}
