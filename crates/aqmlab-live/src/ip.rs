//! The IPv4 header fields the router reads and the one it writes (RFC 791; the ECN field: RFC
//! 3168 §5; the header checksum: RFC 1071). Hosts are named by the engine's address plan
//! ([`aqmlab_sim::network::host_address`]).

use aqmlab_sim::packet::{Ecn, Proto};
/// The Internet checksum (RFC 1071), as the engine's packet traces compute it.
pub use aqmlab_sim::pcap::checksum;

/// What the router reads of an IPv4 packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The packet's size: the header's total length.
    pub total_len: u16,
    /// TCP, or anything else (queued as UDP is: the disciplines tell only TCP apart).
    pub proto: Proto,
    pub ecn: Ecn,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// The transport's source and destination ports (TCP and UDP; 0 for others).
    pub ports: (u16, u16),
}

/// The header of `packet`, if it is an IPv4 packet whose header fits in it.
pub fn parse(packet: &[u8]) -> Option<Header> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    let ihl = usize::from(packet[0] & 0x0f) * 4;
    if ihl < 20 || packet.len() < ihl {
        return None;
    }
    let ecn = match packet[1] & 0b11 {
        0 => Ecn::NotEct,
        3 => Ecn::Ce,
        _ => Ecn::Ect,
    };
    let protocol = packet[9];
    let ports = match (protocol, packet.get(ihl..ihl + 4)) {
        (6 | 17, Some(p)) => (
            u16::from_be_bytes([p[0], p[1]]),
            u16::from_be_bytes([p[2], p[3]]),
        ),
        _ => (0, 0),
    };
    Some(Header {
        total_len: u16::from_be_bytes([packet[2], packet[3]]),
        proto: if protocol == 6 {
            Proto::Tcp
        } else {
            Proto::Udp
        },
        ecn,
        src: packet[12..16].try_into().expect("4 bytes"),
        dst: packet[16..20].try_into().expect("4 bytes"),
        ports,
    })
}

/// Set the ECN field of `packet` (an IPv4 packet [`parse`] accepted) to Congestion Experienced
/// and recompute its header checksum.
pub fn set_ce(packet: &mut [u8]) {
    packet[1] |= 0b11;
    let ihl = usize::from(packet[0] & 0x0f) * 4;
    packet[10..12].copy_from_slice(&[0, 0]);
    let sum = checksum(&packet[..ihl]);
    packet[10..12].copy_from_slice(&sum.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TCP/IPv4 header from 10.1.0.1:5001 to 10.2.0.1:80, ECT(0), total length 1500, with its
    /// checksum.
    fn tcp_packet() -> Vec<u8> {
        let mut p = vec![0u8; 40];
        p[0] = 0x45;
        p[1] = 0b10;
        p[2..4].copy_from_slice(&1500u16.to_be_bytes());
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&[10, 1, 0, 1]);
        p[16..20].copy_from_slice(&[10, 2, 0, 1]);
        let sum = checksum(&p[..20]);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
        p[20..22].copy_from_slice(&5001u16.to_be_bytes());
        p[22..24].copy_from_slice(&80u16.to_be_bytes());
        p
    }

    #[test]
    fn a_valid_header_sums_to_zero() {
        // RFC 1071: the checksum over a header holding its own checksum is 0.
        assert_eq!(checksum(&tcp_packet()[..20]), 0);
    }

    #[test]
    fn reads_the_fields_the_queues_need() {
        let h = parse(&tcp_packet()).unwrap();
        assert_eq!(h.total_len, 1500);
        assert_eq!((h.proto, h.ecn), (Proto::Tcp, Ecn::Ect));
        assert_eq!((h.src, h.dst), ([10, 1, 0, 1], [10, 2, 0, 1]));
        assert_eq!(h.ports, (5001, 80));
    }

    #[test]
    fn marking_sets_ce_and_keeps_the_checksum_valid() {
        let mut p = tcp_packet();
        set_ce(&mut p);
        assert_eq!(parse(&p).unwrap().ecn, Ecn::Ce);
        assert_eq!(checksum(&p[..20]), 0);
    }

    #[test]
    fn refuses_what_is_not_ipv4() {
        assert_eq!(parse(&[0x60; 40]), None, "IPv6");
        assert_eq!(parse(&[0x45; 10]), None, "truncated");
        assert_eq!(parse(&[0x43; 40]), None, "header length below 20");
    }
}
