//! A run's flow completion times and PFC events in HPCC's ns-3 output formats (`fct.txt`,
//! `pfc.txt`), so that analysis scripts written for HPCC run on ours (`capfc run --hpcc DIR`).
//!
//! Nodes are numbered as HPCC numbers them, hosts first: host i is the peer on port i (its sender
//! and its receiver), node `ports` is the switch. A node's IPv4 address is HPCC's,
//! `0x0b000001 + (id / 256) * 0x10000 + (id % 256) * 0x100` (11.0.id.1), so HPCC's scripts get the
//! node back as `(ip >> 8) & 0xffff`.
//!
//! - `fct.txt`, one line per completed flow, HPCC's `%08x %08x %u %u %lu %lu %lu %lu`: source IP,
//!   destination IP, source port (`10000 + flow % 50000`, as in packet captures), destination port
//!   (HPCC's: 100 for a normal flow, 200 for an incast one, [`dport_of_class`]; as in packet
//!   captures), size in bytes, start time (ns), FCT (ns), and the FCT the flow would have alone
//!   (`standalone_fct`, ns): its frames back to back at line rate (each packet of at most `mtu`
//!   bytes with its 20 bytes of preamble and gap), plus both links' propagation and the pipeline
//!   latency. Flows that never completed are not written (HPCC writes a line when a flow ends).
//! - `pfc.txt`, HPCC's `%lu %u %u %u %u`: time (ns), node, node type (0 host, 1 switch), interface
//!   index (1: a host's only NIC, as in ns-3 where 0 is the loopback), and 1 for a pause or 0 for
//!   a resume, logged where the frame takes effect (at the paused sender, `pfc_response` cycles
//!   after its last bit arrives). HPCC sends one frame per priority; our frames carry the class
//!   vector, so a frame gives one line per class it enables (pause when its time is not 0).

use super::scenario::Scenario;
use super::{FRAME_OVERHEAD, NPRIO};

/// A PFC frame as the paused sender obeys it: (cycle, port, class-enable vector, pause times).
pub type PfcEvent = (u64, usize, u8, [u16; NPRIO]);

/// HPCC's destination port of a normal flow: its analysis scripts (`fct_analysis.py`) keep the
/// `fct.txt` lines with this port as normal traffic.
pub const DPORT_NORMAL: u16 = 100;
/// HPCC's destination port of an incast flow (the scripts' second traffic type).
pub const DPORT_INCAST: u16 = 200;

/// The destination port of a flow of traffic class `class`: [`DPORT_INCAST`] for "incast" and
/// "query" (a query's responses are an incast: many senders to one aggregator), [`DPORT_NORMAL`]
/// for every other class.
pub fn dport_of_class(class: &str) -> u16 {
    match class {
        "incast" | "query" => DPORT_INCAST,
        _ => DPORT_NORMAL,
    }
}

/// HPCC's IPv4 address of node `id`.
pub fn node_ip(id: usize) -> u32 {
    0x0b00_0001 + ((id / 256) as u32) * 0x1_0000 + ((id % 256) as u32) * 0x100
}

/// The FCT of flow `f` alone, in cycles.
pub fn standalone_cycles(sc: &Scenario, f: usize) -> u64 {
    let bytes = sc.flows[f].bytes;
    let mtu = u64::from(sc.mtu.max(1));
    let packets = bytes.div_ceil(mtu);
    bytes + packets * FRAME_OVERHEAD + 2 * sc.prop_delay + sc.pipe_latency
}

/// One `fct.txt` line: source and destination node, the flow's index (its source port is
/// `10000 + f % 50000`), its destination port, size, start, FCT and standalone FCT in
/// nanoseconds.
pub fn fct_line(
    (src, dst): (usize, usize),
    f: usize,
    dport: u16,
    bytes: u64,
    ns: [u64; 3],
) -> String {
    format!(
        "{:08x} {:08x} {} {} {} {} {} {}\n",
        node_ip(src),
        node_ip(dst),
        crate::switch::pcap::sport(f),
        dport,
        bytes,
        ns[0],
        ns[1],
        ns[2]
    )
}

/// The `pfc.txt` lines of one PFC frame taking effect at `time_ns` on `node` (type 0 host, 1
/// switch), interface `intf`: one per class the frame enables, 1 for a pause, 0 for a resume.
pub fn pfc_lines(
    s: &mut String,
    time_ns: u64,
    (node, node_type, intf): (usize, u8, usize),
    cev: u8,
    quanta: &[u16; NPRIO],
) {
    for (p, q) in quanta.iter().enumerate() {
        if cev >> p & 1 == 1 {
            *s += &format!("{time_ns} {node} {node_type} {intf} {}\n", u8::from(*q > 0));
        }
    }
}

/// `fct.txt`: one line per completed flow, in flow order.
pub fn fct_txt(sc: &Scenario, fct: &[Option<u64>]) -> String {
    let ns = |c: u64| (c as f64 * sc.cycle_ns).round() as u64;
    let mut s = String::new();
    for (f, t) in fct.iter().enumerate() {
        let Some(t) = t else { continue };
        let fl = &sc.flows[f];
        s += &fct_line(
            (fl.src, fl.dst),
            f,
            dport_of_class(&fl.class),
            fl.bytes,
            [ns(fl.start), ns(*t), ns(standalone_cycles(sc, f))],
        );
    }
    s
}

/// `pfc.txt`: one line per class each PFC frame enables, in time order.
pub fn pfc_txt(sc: &Scenario, events: &[PfcEvent]) -> String {
    let mut s = String::new();
    for &(t, port, cev, quanta) in events {
        let ns = (t as f64 * sc.cycle_ns).round() as u64;
        pfc_lines(&mut s, ns, (port, 0, 1), cev, &quanta);
    }
    s
}
