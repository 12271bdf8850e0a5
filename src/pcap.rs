//! Packet capture of a switch's links: every frame that goes on a chosen port's wire, in either
//! direction, as a pcap file (`capfc run --pcap DIR`) that Wireshark, tshark or scapy opens.
//!
//! - **PFC frames** byte for byte as IEEE 802.1Qbb has them: destination `01-80-C2-00-00-01`, the
//!   switch port's source address, EtherType `0x8808` (MAC control), opcode `0x0101`, the
//!   class-enable vector (2 bytes, bit p = priority p), eight pause times (2 bytes each, big
//!   endian, in quanta of 512 bit times; 0 for a class resumed or not enabled), padded to the
//!   minimum frame. They are the frames the block handed its MAC (`pfc_cev`, and per class the
//!   quanta of [`crate::block::Outputs::quanta`]).
//! - **Data frames** with real headers (built by `etherparse`): Ethernet II with an 802.1Q priority
//!   tag (VID 0, PCP = the packet's priority), IPv4 from host `10.0.0.(src+1)` to
//!   `10.0.0.(dst+1)`, and TCP from port `10000 + flow % 50000` to `5001`, PSH|ACK, its sequence
//!   number the flow's bytes already seen in that direction. A packet of `size` bytes is a frame of
//!   `size` bytes on the wire with its 4-byte FCS, so the capture holds `size - 4` bytes (the
//!   payload being what the 62 bytes of headers and FCS leave; a packet under 64 bytes is captured
//!   as a minimum frame, padded).
//! - **Time**: a frame's timestamp is the cycle its first byte goes on the wire times
//!   `cycle_ns` (8 ns at 1 Gb/s), in nanoseconds (pcap's nanosecond format).
//!
//! Host `i` has MAC `02:00:00:00:00:(i+1)`, switch port `i` has `02:00:00:00:01:(i+1)` (locally
//! administered addresses).

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

/// What a frame is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind {
    /// A data packet; `seq` is the flow's bytes seen before it in the same direction.
    Data { pkt: Packet, seq: u32 },
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

/// The frames of the chosen ports of a run (held by [`crate::switch::Switch::capture`]).
#[derive(Debug, Clone, Default)]
pub struct Capture {
    /// Bit i: port i is captured.
    pub ports: u128,
    pub frames: Vec<WireFrame>,
    /// Bytes of each flow seen so far, to host and to switch (TCP sequence numbers).
    seq: std::collections::HashMap<(u32, bool), u32>,
}

impl Capture {
    /// Capture the ports whose bit is set in `ports`.
    pub fn new(ports: u128) -> Self {
        Capture {
            ports,
            ..Capture::default()
        }
    }

    #[inline]
    pub fn wants(&self, port: usize) -> bool {
        self.ports >> port & 1 == 1
    }

    /// A data packet starts on port `port`'s wire in `cycle`.
    pub fn data(&mut self, cycle: u64, port: usize, dir: Dir, pkt: Packet) {
        if !self.wants(port) {
            return;
        }
        let s = self.seq.entry((pkt.flow, dir == Dir::ToHost)).or_insert(0);
        let seq = *s;
        *s = s.wrapping_add(u32::from(pkt.size));
        self.frames.push(WireFrame {
            cycle,
            port,
            dir,
            kind: FrameKind::Data { pkt, seq },
        });
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

/// The MAC address of host `i`.
pub fn host_mac(i: usize) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, (i + 1) as u8]
}

/// The MAC address of switch port `i`.
pub fn port_mac(i: usize) -> [u8; 6] {
    [0x02, 0, 0, 0, 1, (i + 1) as u8]
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
        FrameKind::Data { pkt, seq } => {
            use etherparse::{PacketBuilder, SingleVlanHeader, VlanHeader, VlanId, VlanPcp};
            let (src_mac, dst_mac) = match f.dir {
                Dir::ToSwitch => (host_mac(f.port), port_mac(f.port)),
                Dir::ToHost => (port_mac(f.port), host_mac(f.port)),
            };
            let ip = |h: u8| [10, 0, 0, h.wrapping_add(1)];
            let size = usize::from(pkt.size);
            let payload = vec![0u8; size.saturating_sub(DATA_OVERHEAD)];
            let b = PacketBuilder::ethernet2(src_mac, dst_mac)
                .vlan(VlanHeader::Single(SingleVlanHeader {
                    pcp: VlanPcp::try_new(pkt.prio & 7).expect("3 bits"),
                    drop_eligible_indicator: false,
                    vlan_id: VlanId::try_new(0).expect("VID 0"),
                    ether_type: 0.into(),
                }))
                .ipv4(ip(pkt.src), ip(pkt.dst), 64)
                .tcp((10_000 + pkt.flow % 50_000) as u16, 5001, *seq, 65_535)
                .psh()
                .ack(1);
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

/// Write `frames` of port `port` (in time order) to a pcap file at `path`, nanosecond timestamps,
/// `cycle_ns` nanoseconds a cycle.
pub fn write_port(
    path: &Path,
    frames: &[WireFrame],
    port: usize,
    cycle_ns: f64,
) -> Result<usize, String> {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    use pcap_file::{DataLink, TsResolution};
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| err(&e))?;
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        snaplen: 65_535,
        ..PcapHeader::default()
    };
    let mut w =
        PcapWriter::with_header(std::io::BufWriter::new(file), header).map_err(|e| err(&e))?;
    let mut n = 0;
    for f in frames.iter().filter(|f| f.port == port) {
        let (bytes, orig) = encode(f);
        let ns = (f.cycle as f64 * cycle_ns).round() as u64;
        let ts = std::time::Duration::from_nanos(ns);
        w.write_packet(&PcapPacket::new(ts, orig, &bytes))
            .map_err(|e| err(&e))?;
        n += 1;
    }
    let mut inner = w.into_writer();
    std::io::Write::flush(&mut inner).map_err(|e| err(&e))?;
    Ok(n)
}
