//! Packet traces for Wireshark and tcpdump: classic libpcap files of Ethernet frames built from
//! the engine's semantic packets ([`Frame`]), one record per packet, with real, checksummed
//! headers and an all-zero payload.
//!
//! Sources (formats only; the bytes are written here from their field layouts):
//! - the libpcap file format: pcap-savefile(5) (tcpdump.org) and the IETF draft
//!   draft-ietf-opsawg-pcap: a 24-byte global header (magic, version 2.4, this zone, sigfigs 0,
//!   snaplen, link type) then per packet a 16-byte record header (seconds, sub-seconds, captured
//!   length, original length). Magic `0xa1b23c4d` says the sub-seconds are nanoseconds, which keeps
//!   the engine's integer-nanosecond times exact; all fields are written little-endian (a reader
//!   knows the byte order from the magic).
//! - `LINKTYPE_ETHERNET` = 1 (tcpdump.org link-layer header types): Ethernet II frames as a capture
//!   on an interface sees them, without preamble or frame check sequence (RFC 894 for IPv4 over
//!   Ethernet: destination MAC, source MAC, EtherType 0x0800).
//! - IPv4, RFC 791: version 4, IHL 5 (no options), the DS field's two low bits the ECN field of
//!   RFC 3168 §5 (00 Not-ECT, 10 ECT(0), 11 CE; the DSCP is 0), total length, identification 0
//!   with Don't Fragment set (an atomic datagram, RFC 6864 §4), TTL, protocol (6 TCP, 17 UDP), and
//!   the header checksum of RFC 791 §3.1 computed as RFC 1071 describes.
//! - TCP, RFC 793 §3.1: ports, sequence and acknowledgment numbers (the acknowledgment is 0 when
//!   ACK is not set), data offset, flags (FIN 0x01, SYN 0x02, ACK 0x10, and ECE 0x40, CWR 0x80 of
//!   RFC 3168 §6.1), window, checksum over the pseudo-header, the header and the payload (zeros add
//!   nothing to a ones'-complement sum, so it is exact for the whole segment even when the record
//!   is cut at the snap length), urgent pointer 0. SACK blocks as the option of RFC 2018 §3 (kind
//!   5, length 2 + 8n), preceded by two NOPs to keep the header a multiple of 4 bytes.
//! - UDP, RFC 768: ports, length, checksum over the pseudo-header (0 is sent as 0xffff).

use crate::packet::Ecn;
use crate::units::Time;
use std::io::{self, Write};

/// The nanosecond-resolution pcap magic number.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_ETHERNET`.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The largest snap length tcpdump uses (and readers accept).
pub const MAX_SNAPLEN: u32 = 262_144;
/// Ethernet II header bytes.
pub const ETHERNET_HEADER: usize = 14;
/// IPv4 header bytes (no options).
pub const IPV4_HEADER: usize = 20;
/// TCP header bytes without options.
pub const TCP_HEADER: usize = 20;
/// UDP header bytes.
pub const UDP_HEADER: usize = 8;
/// Bytes of a SACK option with `n` blocks, with its two leading NOPs.
pub const fn sack_option_bytes(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        4 + 8 * n
    }
}
/// The longest headers a frame has: Ethernet, IPv4 and TCP with three SACK blocks.
pub const MAX_HEADERS: usize = ETHERNET_HEADER + IPV4_HEADER + TCP_HEADER + sack_option_bytes(3);

/// TCP flag bits as they sit in the header (RFC 793, RFC 3168).
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// The transport header of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp {
        src_port: u16,
        dst_port: u16,
        seq: u32,
        /// Written only when `flags` has ACK.
        ack: u32,
        /// Header bits ([`tcp_flags`]).
        flags: u8,
        window: u16,
        /// SACK blocks `[left, right)` (RFC 2018), the first `nsack` of them.
        sack: [(u32, u32); 3],
        nsack: u8,
    },
    Udp {
        src_port: u16,
        dst_port: u16,
    },
}

impl Transport {
    /// Bytes of the transport header, options included.
    pub fn header_bytes(&self) -> usize {
        match self {
            Transport::Tcp { nsack, .. } => TCP_HEADER + sack_option_bytes(usize::from(*nsack)),
            Transport::Udp { .. } => UDP_HEADER,
        }
    }
}

/// One Ethernet frame as the capture sees it: every header field; the payload is zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub ttl: u8,
    pub ecn: Ecn,
    /// The IPv4 total length (headers and payload); at least the headers' length.
    pub ip_len: u16,
    pub transport: Transport,
}

/// Sum 16-bit big-endian words of `bytes` into `sum` (an odd last byte is padded with zero).
fn add_words(mut sum: u32, bytes: &[u8]) -> u32 {
    let mut words = bytes.chunks_exact(2);
    for w in &mut words {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u32::from(*last) << 8;
    }
    sum
}

/// The ones' complement of the ones'-complement sum (RFC 1071).
fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The internet checksum of `bytes` (RFC 1071): 0 over a header that holds its own checksum.
pub fn checksum(bytes: &[u8]) -> u16 {
    fold(add_words(0, bytes))
}

impl Frame {
    /// Bytes of the headers written before the zero payload.
    pub fn header_bytes(&self) -> usize {
        ETHERNET_HEADER + IPV4_HEADER + self.transport.header_bytes()
    }

    /// The frame's length on the capture (Ethernet header and IP packet; no FCS).
    pub fn frame_len(&self) -> u32 {
        ETHERNET_HEADER as u32 + u32::from(self.ip_len)
    }

    /// Write the headers into `buf`, returning their length.
    pub fn write_headers(&self, buf: &mut [u8; MAX_HEADERS]) -> usize {
        let n = self.header_bytes();
        let buf = &mut buf[..n];
        buf.fill(0);
        // Ethernet II.
        buf[0..6].copy_from_slice(&self.dst_mac);
        buf[6..12].copy_from_slice(&self.src_mac);
        buf[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        // IPv4.
        let (ip, transport) = buf[ETHERNET_HEADER..].split_at_mut(IPV4_HEADER);
        ip[0] = 0x45;
        ip[1] = match self.ecn {
            Ecn::NotEct => 0b00,
            Ecn::Ect => 0b10,
            Ecn::Ce => 0b11,
        };
        ip[2..4].copy_from_slice(&self.ip_len.to_be_bytes());
        ip[6] = 0x40; // Don't Fragment; identification 0, fragment offset 0
        ip[8] = self.ttl;
        ip[9] = match self.transport {
            Transport::Tcp { .. } => 6,
            Transport::Udp { .. } => 17,
        };
        ip[12..16].copy_from_slice(&self.src_ip);
        ip[16..20].copy_from_slice(&self.dst_ip);
        let ip_sum = checksum(ip);
        ip[10..12].copy_from_slice(&ip_sum.to_be_bytes());
        // The transport header; its checksum covers the pseudo-header and the (zero) payload.
        let segment_len = self.ip_len - IPV4_HEADER as u16;
        let mut pseudo = [0u8; 12];
        pseudo[0..4].copy_from_slice(&self.src_ip);
        pseudo[4..8].copy_from_slice(&self.dst_ip);
        pseudo[9] = ip[9];
        pseudo[10..12].copy_from_slice(&segment_len.to_be_bytes());
        let sum_at = match self.transport {
            Transport::Tcp {
                src_port,
                dst_port,
                seq,
                ack,
                flags,
                window,
                sack,
                nsack,
            } => {
                transport[0..2].copy_from_slice(&src_port.to_be_bytes());
                transport[2..4].copy_from_slice(&dst_port.to_be_bytes());
                transport[4..8].copy_from_slice(&seq.to_be_bytes());
                if flags & tcp_flags::ACK != 0 {
                    transport[8..12].copy_from_slice(&ack.to_be_bytes());
                }
                transport[12] = ((transport.len() / 4) as u8) << 4;
                transport[13] = flags;
                transport[14..16].copy_from_slice(&window.to_be_bytes());
                if nsack > 0 {
                    let opt = &mut transport[TCP_HEADER..];
                    opt[0] = 1; // NOP
                    opt[1] = 1;
                    opt[2] = 5; // SACK
                    opt[3] = 2 + 8 * nsack;
                    for (i, (left, right)) in sack[..usize::from(nsack)].iter().enumerate() {
                        let at = 4 + 8 * i;
                        opt[at..at + 4].copy_from_slice(&left.to_be_bytes());
                        opt[at + 4..at + 8].copy_from_slice(&right.to_be_bytes());
                    }
                }
                16
            }
            Transport::Udp { src_port, dst_port } => {
                transport[0..2].copy_from_slice(&src_port.to_be_bytes());
                transport[2..4].copy_from_slice(&dst_port.to_be_bytes());
                transport[4..6].copy_from_slice(&segment_len.to_be_bytes());
                6
            }
        };
        let mut sum = fold(add_words(add_words(0, &pseudo), transport));
        if sum == 0 && matches!(self.transport, Transport::Udp { .. }) {
            sum = 0xffff; // RFC 768: a computed zero is sent as all ones
        }
        transport[sum_at..sum_at + 2].copy_from_slice(&sum.to_be_bytes());
        n
    }
}

/// Zeros for payloads, written in pieces of this size.
static ZEROS: [u8; 4096] = [0; 4096];

/// A libpcap file being written: the global header on creation, then one record per frame, each
/// built in one reused buffer (no allocation per packet).
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    headers: [u8; MAX_HEADERS],
}

impl<W: Write> PcapWriter<W> {
    /// Start a file on `out` (give it a `BufWriter`): frames are cut to `snaplen` bytes.
    pub fn new(mut out: W, snaplen: u32) -> io::Result<PcapWriter<W>> {
        let mut global = [0u8; 24];
        global[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        global[4..6].copy_from_slice(&2u16.to_le_bytes());
        global[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone 0 and sigfigs 0 (bytes 8..16)
        global[16..20].copy_from_slice(&snaplen.to_le_bytes());
        global[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&global)?;
        Ok(PcapWriter {
            out,
            snaplen,
            headers: [0; MAX_HEADERS],
        })
    }

    /// Record `frame` at time `t`.
    pub fn write(&mut self, t: Time, frame: &Frame) -> io::Result<()> {
        let n = frame.write_headers(&mut self.headers);
        let caplen = self.record_header(t, frame.frame_len())?;
        self.out.write_all(&self.headers[..n.min(caplen)])?;
        let mut zeros = caplen.saturating_sub(n);
        while zeros > 0 {
            let piece = zeros.min(ZEROS.len());
            self.out.write_all(&ZEROS[..piece])?;
            zeros -= piece;
        }
        Ok(())
    }

    /// Record a real IPv4 packet `ip` (all its bytes: live mode's) at time `t`, in an Ethernet
    /// frame from `src_mac` to `dst_mac`.
    pub fn write_packet(
        &mut self,
        t: Time,
        src_mac: [u8; 6],
        dst_mac: [u8; 6],
        ip: &[u8],
    ) -> io::Result<()> {
        let mut ethernet = [0u8; ETHERNET_HEADER];
        ethernet[0..6].copy_from_slice(&dst_mac);
        ethernet[6..12].copy_from_slice(&src_mac);
        ethernet[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let caplen = self.record_header(t, (ETHERNET_HEADER + ip.len()) as u32)?;
        self.out
            .write_all(&ethernet[..ETHERNET_HEADER.min(caplen)])?;
        self.out
            .write_all(&ip[..caplen.saturating_sub(ETHERNET_HEADER)])
    }

    /// Write a record's header for a frame of `len` bytes at `t`; returns the bytes to capture.
    fn record_header(&mut self, t: Time, len: u32) -> io::Result<usize> {
        let caplen = len.min(self.snaplen);
        let mut record = [0u8; 16];
        record[0..4].copy_from_slice(&((t.0 / 1_000_000_000) as u32).to_le_bytes());
        record[4..8].copy_from_slice(&((t.0 % 1_000_000_000) as u32).to_le_bytes());
        record[8..12].copy_from_slice(&caplen.to_le_bytes());
        record[12..16].copy_from_slice(&len.to_le_bytes());
        self.out.write_all(&record)?;
        Ok(caplen as usize)
    }

    /// Flush and return the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syn_ack() -> Frame {
        Frame {
            dst_mac: [0x02, 0, 0, 0, 0, 0x02],
            src_mac: [0x02, 0, 0, 0, 0, 0x01],
            src_ip: [10, 1, 0, 1],
            dst_ip: [10, 2, 0, 1],
            ttl: 63,
            ecn: Ecn::NotEct,
            ip_len: 40,
            transport: Transport::Tcp {
                src_port: 80,
                dst_port: 49152,
                seq: 0x0000_1000,
                ack: 0x0000_2001,
                flags: tcp_flags::SYN | tcp_flags::ACK | tcp_flags::ECE,
                window: 16_384,
                sack: [(0, 0); 3],
                nsack: 0,
            },
        }
    }

    #[test]
    fn headers_match_a_hand_computed_example() {
        let mut buf = [0u8; MAX_HEADERS];
        let n = syn_ack().write_headers(&mut buf);
        assert_eq!(n, 54);
        // IP checksum by hand: 4500 + 0028 + 0000 + 4000 + 3f06 + 0a01 + 0001 + 0a02 + 0001
        // = 0xd833 → !0xd833 = 0x27cc.
        // TCP by hand: pseudo-header 0a01 + 0001 + 0a02 + 0001 + 0006 + 0014 = 0x141f; header
        // 0050 + c000 + 0000 + 1000 + 0000 + 2001 + 5052 + 4000 (+ checksum 0, urgent 0)
        // = 0x180a3, folded 0x80a4; 0x141f + 0x80a4 = 0x94c3 → !0x94c3 = 0x6b3c.
        let expected: [u8; 54] = [
            0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00, // Ethernet
            0x45, 0x00, 0x00, 0x28, 0x00, 0x00, 0x40, 0x00, 0x3f, 0x06, 0x27, 0xcc, 10, 1, 0, 1,
            10, 2, 0, 1, // IPv4
            0x00, 0x50, 0xc0, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x01, 0x50, 0x52,
            0x40, 0x00, 0x6b, 0x3c, 0x00, 0x00, // TCP
        ];
        assert_eq!(buf[..n], expected);
        // Both checksums verify: the sum over a header holding its checksum is zero.
        assert_eq!(checksum(&buf[14..34]), 0);
    }

    #[test]
    fn ecn_sack_and_udp_fields() {
        let mut f = syn_ack();
        f.ecn = Ecn::Ce;
        f.ip_len = 40 + 20;
        f.transport = Transport::Tcp {
            src_port: 1,
            dst_port: 2,
            seq: 7,
            ack: 9,
            flags: tcp_flags::ACK,
            window: 1,
            sack: [(100, 200), (300, 400), (0, 0)],
            nsack: 2,
        };
        let mut buf = [0u8; MAX_HEADERS];
        let n = f.write_headers(&mut buf);
        assert_eq!(n, 14 + 20 + 20 + 20);
        assert_eq!(buf[15] & 0b11, 0b11, "CE");
        assert_eq!(buf[34 + 12] >> 4, 10, "data offset in words");
        assert_eq!(buf[54..58], [1, 1, 5, 18]);
        assert_eq!(buf[58..62], 100u32.to_be_bytes());
        assert_eq!(buf[70..74], 400u32.to_be_bytes());
        f.ecn = Ecn::Ect;
        f.ip_len = 20 + 8 + 100;
        f.transport = Transport::Udp {
            src_port: 5,
            dst_port: 9,
        };
        let n = f.write_headers(&mut buf);
        assert_eq!(n, 42);
        assert_eq!(buf[15], 0b10, "ECT(0)");
        assert_eq!(buf[23], 17);
        assert_eq!(buf[38..40], 108u16.to_be_bytes());
    }

    #[test]
    fn records_are_cut_at_the_snap_length() {
        let mut w = PcapWriter::new(Vec::new(), 60).unwrap();
        let mut f = syn_ack();
        f.ip_len = 1500;
        w.write(Time(3_000_000_123), &f).unwrap();
        f.ip_len = 40;
        w.write(Time(3_000_000_124), &f).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes[0..4], [0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(bytes[20..24], 1u32.to_le_bytes());
        let rec = &bytes[24..];
        assert_eq!(rec[0..4], 3u32.to_le_bytes());
        assert_eq!(rec[4..8], 123u32.to_le_bytes());
        assert_eq!(rec[8..12], 60u32.to_le_bytes());
        assert_eq!(rec[12..16], 1514u32.to_le_bytes());
        assert!(rec[16 + 54..16 + 60].iter().all(|&b| b == 0));
        let rec = &rec[16 + 60..];
        assert_eq!(rec[8..16], [54, 0, 0, 0, 54, 0, 0, 0]);
        assert_eq!(rec.len(), 16 + 54);
    }
}
