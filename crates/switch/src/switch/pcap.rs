//! Packet capture of a switch's links: every frame that goes on a chosen port's wire, in either
//! direction, as pcap files (`capfc run --pcap DIR`: one a direction, since a flow from a port's
//! host back to itself crosses that link twice, and TCP analysis, which tells connections apart
//! by address and port alone, would take the second crossing for a retransmission; `capfc net
//! --pcap DIR`: one a host's link, both ways) that Wireshark, tshark or scapy opens.
//!
//! - **PFC frames** byte for byte as IEEE 802.1Qbb has them: destination `01-80-C2-00-00-01`, the
//!   switch port's source address, EtherType `0x8808` (MAC control), opcode `0x0101`, the
//!   class-enable vector (2 bytes, bit p = priority p), eight pause times (2 bytes each, big
//!   endian, in quanta of 512 bit times; 0 for a class resumed or not enabled), padded to the
//!   minimum frame. They are the frames the block handed its MAC (`pfc_cev`, and per class the
//!   quanta of [`crate::block::Outputs::quanta`]).
//! - **Data frames** with real headers (built by `etherparse`): Ethernet II with an 802.1Q priority
//!   tag (VID 0, PCP = the packet's priority), IPv4 and TCP ([`Tcp`]: addresses, ports, sequence
//!   and acknowledgement numbers, flags, ECN). A packet of `size` bytes is a frame of `size` bytes
//!   on the wire with its 4-byte FCS, so the capture holds `size - 4` bytes; its TCP payload is
//!   what the 62 bytes of headers and FCS leave ([`payload_len`]; a packet under 64 bytes, an ACK
//!   among them, is captured as a minimum frame, padded, with no payload). Each frame's sequence
//!   number advances by the payload it carries, so TCP analysis (Wireshark's) finds every segment
//!   in place.
//!   - `capfc run` ([`Capture::data`]): the switch's open-loop senders have no transport and send
//!     no ACKs, so data frames carry PSH alone (no ACK flag, acknowledgement number 0); TCP from
//!     port `10000 + flow % 50000` to the flow's HPCC destination port
//!     ([`crate::switch::hpcc::dport_of_class`]: 100, or 200 for incast and query flows), as in
//!     `fct.txt`; IPv4 from `10.0.0.(src+1)` to `10.0.1.(dst+1)`: host i sends from the first and
//!     receives at the second, since a scenario may send a port's host's flow back to itself (the
//!     victims do), which with one address would make both directions of the link one TCP
//!     conversation. The sequence number is the flow's payload already seen in that direction on
//!     that port: a packet the switch drops is not on the egress wire, and the bytes sent again
//!     for it are new bytes to the open-loop sender, so each direction's numbers run without
//!     gaps.
//!   - `capfc net` ([`Capture::segment`], built by the network): the transport's own segments and
//!     ACKs, see `crate::net::sim`.
//! - **Time**: a frame's timestamp is the cycle its first byte goes on the wire times
//!   `cycle_ns` (8 ns at 1 Gb/s), in nanoseconds (pcap's nanosecond format).
//!
//! Host `i` has MAC `02:00:00:00:00:(i+1)`, switch port `i` (or, in a network, the switch port
//! facing host `i`) has `02:00:00:00:01:(i+1)` (locally administered addresses; from host 255 on,
//! the third byte holds `(i+1) >> 8`).

use crate::block::NPRIO;
use crate::switch::Packet;
use std::path::Path;

/// Which way a frame crosses the port's link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// From the host (the sender) into the switch.
    ToSwitch,
    /// From the switch to the host (data, and PFC frames).
    ToHost,
}

/// A data frame's IPv4 and TCP headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tcp {
    pub ip_src: [u8; 4],
    pub ip_dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    /// The sequence number of the frame's first payload byte.
    pub seq: u32,
    /// The acknowledgement number, with the ACK flag; None: no ACK flag (number 0).
    pub ack: Option<u32>,
    /// Bytes of TCP payload: [`payload_len`] of a data segment, 0 for an ACK.
    pub payload: u16,
    /// PSH (set on data segments).
    pub psh: bool,
    /// ECN echo (an ACK of a segment that arrived with CE).
    pub ece: bool,
    /// The IPv4 ECN field: 0 not ECN-capable, 2 ECT(0), 3 CE.
    pub ecn: u8,
}

/// The TCP payload of a data packet of `size` bytes on the wire: what the headers and FCS
/// ([`DATA_OVERHEAD`]) leave.
pub fn payload_len(size: u16) -> u16 {
    size.saturating_sub(DATA_OVERHEAD as u16)
}

/// What a frame is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind {
    /// A packet (data or ACK) as the model has it (`size` its length on the wire), with the
    /// headers it is captured with.
    Data { pkt: Packet, tcp: Tcp },
    /// A PFC frame from the switch port: class-enable vector and the eight pause times.
    Pfc { cev: u8, quanta: [u16; NPRIO] },
}

/// One frame on a port's wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireFrame {
    /// The cycle its first byte goes on the wire.
    pub cycle: u64,
    pub port: usize,
    pub dir: Dir,
    pub kind: FrameKind,
}

/// The frames of the chosen links of a run (held by [`crate::switch::Switch::capture`]: switch
/// ports; by `crate::net::sim::Network::capture`: hosts' links).
#[derive(Debug, Clone, Default)]
pub struct Capture {
    /// Per link (switch port, or host): captured.
    want: Vec<bool>,
    pub frames: Vec<WireFrame>,
    /// Payload bytes of each flow seen so far, to host and to switch (TCP sequence numbers of
    /// [`Capture::data`]).
    seq: std::collections::HashMap<(u32, bool), u32>,
}

impl Capture {
    /// Capture the ports whose bit is set in `ports`.
    pub fn new(ports: u128) -> Self {
        Capture::of((0..128).filter(|i| ports >> i & 1 == 1))
    }

    /// Capture these links (switch ports, or hosts).
    pub fn of(links: impl IntoIterator<Item = usize>) -> Self {
        let mut want = vec![];
        for i in links {
            if want.len() <= i {
                want.resize(i + 1, false);
            }
            want[i] = true;
        }
        Capture {
            want,
            ..Capture::default()
        }
    }

    #[inline]
    pub fn wants(&self, port: usize) -> bool {
        self.want.get(port).copied().unwrap_or(false)
    }

    /// A data packet of the open-loop senders (`capfc run`) starts on port `port`'s wire in
    /// `cycle`: from host `pkt.src` to host `pkt.dst`, TCP destination port `dport`. Its sequence
    /// number is the flow's payload seen before it in the same direction on this port.
    pub fn data(&mut self, cycle: u64, port: usize, dir: Dir, pkt: Packet, dport: u16) {
        if !self.wants(port) {
            return;
        }
        let tcp = Tcp {
            ip_src: [10, 0, 0, pkt.src.wrapping_add(1)],
            ip_dst: [10, 0, 1, pkt.dst.wrapping_add(1)],
            sport: sport(pkt.flow as usize),
            dport,
            seq: 0,
            ack: None,
            payload: payload_len(pkt.size),
            psh: true,
            ece: false,
            ecn: 0,
        };
        self.counted(cycle, port, dir, pkt, tcp);
    }

    /// A data packet of an open-loop sender with headers `tcp` starts on link `link`'s wire in
    /// `cycle`; its sequence number is the flow's payload seen before it in the same direction on
    /// this link (the sender has no transport: no ACKs, and bytes sent again for a lost packet are
    /// new bytes to it).
    pub fn counted(&mut self, cycle: u64, link: usize, dir: Dir, pkt: Packet, mut tcp: Tcp) {
        if !self.wants(link) {
            return;
        }
        let s = self.seq.entry((pkt.flow, dir == Dir::ToHost)).or_insert(0);
        tcp.seq = *s;
        *s = s.wrapping_add(u32::from(tcp.payload));
        self.segment(cycle, link, dir, pkt, tcp);
    }

    /// A packet with its headers (the network's transport) starts on link `link`'s wire in
    /// `cycle`.
    pub fn segment(&mut self, cycle: u64, link: usize, dir: Dir, pkt: Packet, tcp: Tcp) {
        if self.wants(link) {
            self.frames.push(WireFrame {
                cycle,
                port: link,
                dir,
                kind: FrameKind::Data { pkt, tcp },
            });
        }
    }

    /// Switch port `port`'s MAC puts a PFC frame on the wire in `cycle`.
    pub fn pfc(&mut self, cycle: u64, port: usize, cev: u8, quanta: [u16; NPRIO]) {
        if self.wants(port) {
            self.frames.push(WireFrame {
                cycle,
                port,
                dir: Dir::ToHost,
                kind: FrameKind::Pfc { cev, quanta },
            });
        }
    }
}

/// The TCP source port of flow `f` (also `fct.txt`'s).
pub fn sport(f: usize) -> u16 {
    (10_000 + f % 50_000) as u16
}

/// The MAC address of host `i`.
pub fn host_mac(i: usize) -> [u8; 6] {
    [0x02, 0, ((i + 1) >> 8) as u8, 0, 0, (i + 1) as u8]
}

/// The MAC address of switch port `i` (in a network: the port facing host `i`).
pub fn port_mac(i: usize) -> [u8; 6] {
    [0x02, 0, ((i + 1) >> 8) as u8, 0, 1, (i + 1) as u8]
}

/// The destination of every PFC frame (802.1Qbb, MAC control).
pub const PFC_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// MAC control EtherType.
pub const PFC_ETHERTYPE: u16 = 0x8808;
/// The PFC opcode.
pub const PFC_OPCODE: u16 = 0x0101;
/// Headers (Ethernet 14, 802.1Q 4, IPv4 20, TCP 20) and FCS (4) of a data frame.
pub const DATA_OVERHEAD: usize = 14 + 4 + 20 + 20 + 4;
/// A minimum Ethernet frame without its FCS.
const MIN_FRAME: usize = 60;

/// The bytes of a frame as captured (no preamble, no FCS), and its length on the wire without
/// FCS (`orig_len`).
pub fn encode(f: &WireFrame) -> (Vec<u8>, u32) {
    match &f.kind {
        FrameKind::Pfc { cev, quanta } => {
            let mut b = Vec::with_capacity(MIN_FRAME);
            b.extend_from_slice(&PFC_DST);
            b.extend_from_slice(&port_mac(f.port));
            b.extend_from_slice(&PFC_ETHERTYPE.to_be_bytes());
            b.extend_from_slice(&PFC_OPCODE.to_be_bytes());
            b.extend_from_slice(&u16::from(*cev).to_be_bytes());
            for q in quanta {
                b.extend_from_slice(&q.to_be_bytes());
            }
            b.resize(MIN_FRAME, 0);
            (b, MIN_FRAME as u32)
        }
        FrameKind::Data { pkt, tcp } => {
            use etherparse::{
                IpHeaders, IpNumber, Ipv4Ecn, Ipv4Header, PacketBuilder, SingleVlanHeader,
                VlanHeader, VlanId, VlanPcp,
            };
            let (src_mac, dst_mac) = match f.dir {
                Dir::ToSwitch => (host_mac(f.port), port_mac(f.port)),
                Dir::ToHost => (port_mac(f.port), host_mac(f.port)),
            };
            let size = usize::from(pkt.size);
            let payload = vec![0u8; usize::from(tcp.payload)];
            let mut ip = Ipv4Header::new(0, 64, IpNumber::TCP, tcp.ip_src, tcp.ip_dst)
                .expect("an empty payload fits");
            ip.ecn = Ipv4Ecn::try_new(tcp.ecn & 3).expect("2 bits");
            let mut b = PacketBuilder::ethernet2(src_mac, dst_mac)
                .vlan(VlanHeader::Single(SingleVlanHeader {
                    pcp: VlanPcp::try_new(pkt.prio & 7).expect("3 bits"),
                    drop_eligible_indicator: false,
                    vlan_id: VlanId::try_new(0).expect("VID 0"),
                    ether_type: 0.into(),
                }))
                .ip(IpHeaders::Ipv4(ip, Default::default()))
                .tcp(tcp.sport, tcp.dport, tcp.seq, 65_535);
            if tcp.psh {
                b = b.psh();
            }
            if let Some(a) = tcp.ack {
                b = b.ack(a);
            }
            if tcp.ece {
                b = b.ece();
            }
            let mut v = Vec::with_capacity(b.size(payload.len()).max(MIN_FRAME));
            b.write(&mut v, &payload)
                .expect("a frame of at most 64 KB is always written");
            if v.len() < MIN_FRAME {
                v.resize(MIN_FRAME, 0);
            }
            let orig = v.len().max(size.saturating_sub(4)) as u32;
            (v, orig)
        }
    }
}

/// A pcap file that could not be written: the file, and the error of the file system or of the
/// pcap writer.
#[derive(Debug, thiserror::Error)]
pub enum PcapWriteError {
    #[error("[pcap] {}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("[pcap] {}: {source}", path.display())]
    Pcap {
        path: std::path::PathBuf,
        #[source]
        source: pcap_file::PcapError,
    },
}

/// Write `frames` of port `port` (in time order; only those going `dir`, if given) to a pcap file
/// at `path`, nanosecond timestamps, `cycle_ns` nanoseconds a cycle.
pub fn write_port(
    path: &Path,
    frames: &[WireFrame],
    (port, dir): (usize, Option<Dir>),
    cycle_ns: f64,
) -> Result<usize, PcapWriteError> {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    use pcap_file::{DataLink, TsResolution};
    let io = |source| PcapWriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let pcap = |source| PcapWriteError::Pcap {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::create(path).map_err(io)?;
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        snaplen: 65_535,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(std::io::BufWriter::new(file), header).map_err(pcap)?;
    let mut n = 0;
    for f in frames
        .iter()
        .filter(|f| f.port == port && dir.is_none_or(|d| f.dir == d))
    {
        let (bytes, orig) = encode(f);
        let ns = (f.cycle as f64 * cycle_ns).round() as u64;
        let ts = std::time::Duration::from_nanos(ns);
        w.write_packet(&PcapPacket::new(ts, orig, &bytes))
            .map_err(pcap)?;
        n += 1;
    }
    let mut inner = w.into_writer();
    std::io::Write::flush(&mut inner).map_err(io)?;
    Ok(n)
}
