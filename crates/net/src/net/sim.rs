//! A network of switches and hosts, cycle by cycle: every switch is the single-switch model of
//! [`crate::switch`] (ingress FIFOs, pipeline, traffic manager, MACs) with its own CaPFC block,
//! every host a NIC that sends its flows and obeys PFC, and every link has its own rate and
//! propagation delay. One clock for the whole network: a cycle is one byte time of the fastest link
//! (8 ns in the paper's 1 Gb/s network); a slower link takes `num/den` cycles a byte
//! ([`WireRate`]), and a pause quantum (512 bit times) scales the same way.
//!
//! **Hop-by-hop PFC.** The PFC frames a switch's MAC sends on port i go to the far end of that link:
//! a host's NIC pauses its classes ([`Sender::apply_pfc`]); a switch pauses the classes of its
//! egress port on that link ([`crate::switch::tm::Tm::pause`]: a frame already started finishes).
//! A paused egress queue fills, its block's egress thresholds and (in the CaPFC modes) its sort
//! engines act, and the switch pauses its own upstream in turn: congestion spreads hop by hop, as
//! in the paper's fat tree. A frame takes effect `pfc_response` cycles after its last bit arrives,
//! as on a single switch.
//!
//! **Routing** is per switch, over the shortest paths to the destination host (hosts never forward):
//! [`Routing::Ecmp`] hashes the flow, [`Routing::Detail`] picks by egress occupancy per packet
//! (DeTail's adaptive load balancing). See [`Routing`].
//!
//! **Transport.** Each host's NIC sends its flows' packets at line rate when not paused (the
//! switch's open-loop [`Sender`], its ETS scheduler included). A packet dropped anywhere is sent
//! again by its source `rto` cycles later; a flow completes when every byte is delivered.
//!
//! **Cost of idleness.** A switch with nothing to do in a cycle (no frame arriving, nothing at
//! ingress, nothing leaving the pipeline, no transmitter able to start, no PFC frame pending, and
//! its block at a fixed point: [`crate::block::CapfcTop::quiescent`]) is not looked at; when no
//! switch, host or link has anything to do the clock jumps to the next event. `exhaustive` looks at
//! everything every cycle instead, and the tests require identical results both ways.

use super::nic::Nic;
use super::topology::{NetFlow, NodeKind, Topology};
use super::transport::{TcpConfig, TcpReceiver, TcpSender, TransportKind, ACK_BYTES};
use crate::block::NPRIO;
use crate::switch::config::WireRate;
use crate::switch::scenario::{FlowSpec, Scenario};
use crate::switch::sender::{Pauses, Sender, QUANTUM_CYCLES};
use crate::switch::stats::{class_stats, ClassStats};
use crate::switch::{BlockKind, DutKind, FlowMode, Packet, Switch, FRAME_OVERHEAD};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// How a switch picks among the output ports on a shortest path to a packet's destination host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routing {
    /// Per-flow ECMP: every packet of flow `f` at switch node `s` takes next hop number
    /// `splitmix64(seed ^ f · 0x9E3779B97F4A7C15 ^ s · 0xC2B2AE3D27D4EB4F) mod n` of the `n`
    /// shortest-path next hops (in port order). Hashing the switch too keeps two tiers from making
    /// the same choice (polarisation).
    Ecmp,
    /// DeTail's adaptive load balancing, per packet: among the shortest-path next hops, those whose
    /// egress queue of the packet's priority holds less than `low` bytes; if none, less than `high`;
    /// if none, all of them. One of the candidates is drawn by a per-switch counter hashed as for
    /// ECMP (deterministic; no shared random state). The paper's thresholds are 16 KB and 32 KB.
    Detail { low: u32, high: u32 },
}

impl Routing {
    /// DeTail with the paper's 16 KB / 32 KB thresholds.
    pub const DETAIL: Routing = Routing::Detail {
        low: 16 * 1024,
        high: 32 * 1024,
    };

    pub fn parse(s: &str) -> Option<Routing> {
        match s {
            "ecmp" => Some(Routing::Ecmp),
            "detail" => Some(Routing::DETAIL),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Routing::Ecmp => "ecmp",
            Routing::Detail { .. } => "detail",
        }
    }
}

/// splitmix64: the hash of ECMP and of DeTail's draw.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a network run is given besides its topology and flows.
#[derive(Debug, Clone)]
pub struct NetConfig {
    pub mode: FlowMode,
    pub routing: Routing,
    /// Every switch's settings, as for a single switch: thresholds, lossless priorities, CUT,
    /// quanta, refresh, pipeline, scheduler, MTU, `pfc_response`, `rto`, `max_cycles`, and
    /// `xoff = "auto"` (then each switch's ingress XOFF leaves Annex N headroom for its longest
    /// link). Its `ports`, `flows`, `prop_delay` and `cycle_ns` are the network's.
    pub switch: Scenario,
    /// ECMP's and DeTail's hash seed.
    pub seed: u64,
    /// The block behind the switches named in `dut_nodes` (all switches when empty); the others use
    /// the model.
    pub dut: DutKind,
    pub dut_nodes: Vec<usize>,
    /// The block's micro-architecture in every switch (`capfc net --block`). v3's registers move
    /// every cycle (its slot counters, scrub and threshold refresh), but periodically once nothing
    /// is in flight: its switches skip idle cycles and catch up by a closed-form advance
    /// (`crate::switch::block_v3`).
    pub block: BlockKind,
    /// Look at every switch and host every cycle (no skipping, no time jumps).
    pub exhaustive: bool,
    /// Check the v3 blocks' idle skipping as it goes ([`Switch::audit_idle_skip`]; tests).
    pub audit_idle_skip: bool,
    /// The hosts' transport: TCP-like with ECN ([`super::transport`]), or None for open-loop
    /// senders at line rate (lost bytes sent again `rto` cycles later).
    pub transport: Option<TcpConfig>,
}

impl NetConfig {
    /// The same with a transport ([`TransportKind`]): the paper's Linux TCP ([`TcpConfig::paper`]),
    /// DCTCP with the switches' `rto` as retransmission timeout ([`TcpConfig::dctcp`]), or open-loop
    /// senders. Segments of the switches' MTU; no fast retransmit under DeTail (its per-packet
    /// spreading reorders).
    pub fn with_transport(mut self, kind: TransportKind) -> NetConfig {
        let mut t = match kind {
            TransportKind::Open => {
                self.transport = None;
                return self;
            }
            TransportKind::Paper => TcpConfig::paper(8.0),
            TransportKind::Dctcp => TcpConfig::dctcp(self.switch.rto.unwrap_or(1_250_000)),
        };
        t.mss = u32::from(self.switch.mtu);
        if matches!(self.routing, Routing::Detail { .. }) {
            t.dupack_threshold = None;
        }
        self.transport = Some(t);
        self
    }

    /// The paper's switch settings (the single-switch defaults: Table II thresholds, lossless
    /// priority 3, 25 us pipeline, 10 ms retransmission timeout) in `mode` with `routing`, and
    /// open-loop senders ([`NetConfig::with_transport`] for another transport).
    pub fn paper(mode: FlowMode, routing: Routing) -> NetConfig {
        let mut switch = Scenario::incast_victims();
        switch.flows.clear();
        switch.name = "network".into();
        NetConfig {
            mode,
            routing,
            switch,
            seed: 1,
            dut: DutKind::Model,
            dut_nodes: vec![],
            block: BlockKind::V3,
            exhaustive: false,
            audit_idle_skip: false,
            transport: None,
        }
    }
}

/// The far end of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Host(usize),
    /// Switch index, port.
    Switch(usize, usize),
}

/// One port of a switch or a host's NIC: where its link goes, how fast and how long.
#[derive(Debug, Clone, Copy)]
struct PortLink {
    peer: End,
    rate: WireRate,
    prop: u64,
}

/// What sends a host's packets.
enum Tx {
    /// Open loop: the switch's sender, at line rate while not paused.
    Open(Box<Sender>),
    /// The transport's NIC.
    Tcp(Box<Nic>),
}

struct Host {
    node: usize,
    tx: Tx,
    link: PortLink,
    /// The last cycle its sender was looked at (a sender is looked at once a cycle at most).
    last_tick: Option<u64>,
}

struct NetSwitch {
    node: usize,
    sw: Switch,
    ports: Vec<PortLink>,
    /// Per port: its classes' pauses (as the traffic manager obeys them).
    pauses: Vec<Pauses>,
    /// DeTail's draw counter.
    draws: u64,
}

#[derive(Debug, Clone, Copy)]
enum EvKind {
    /// A frame's last bit reaches a switch's input port.
    ToSwitch(usize, usize, Packet),
    /// A frame's last bit reaches a host.
    ToHost(Packet),
    /// A PFC frame takes effect at a switch's egress port: class enable vector, pause times.
    PfcSwitch(usize, usize, u8, [u16; NPRIO]),
    /// ... at a host's NIC.
    PfcHost(usize, u8, [u16; NPRIO]),
    /// A lost packet's bytes go back to its flow's sender.
    Retransmit(u32, u16),
    /// Transport: a flow starts.
    FlowStart(usize),
    /// Transport: flow f's retransmission timer was set to fire now (it may have moved since).
    Rto(usize),
    /// Transport: flow f's delayed-ACK timer.
    DelAck(usize),
}

#[derive(Debug, Clone, Copy)]
struct Ev {
    at: u64,
    seq: u64,
    kind: EvKind,
}

impl Host {
    fn pause(&self) -> &Pauses {
        match &self.tx {
            Tx::Open(s) => &s.pause,
            Tx::Tcp(n) => &n.pause,
        }
    }
}

impl PartialEq for Ev {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Ev {}
impl PartialOrd for Ev {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ev {
    /// Earliest first, then in the order scheduled (a max-heap of the reverse).
    fn cmp(&self, o: &Self) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// A PFC frame where it takes effect: (cycle, node, port of that node, class enable vector, pause
/// times). For a host the port is 0 (its NIC).
pub type NetPfcEvent = (u64, usize, usize, u8, [u16; NPRIO]);

/// A pause that held at one place: see [`Network::pause_intervals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PauseInterval {
    pub node: usize,
    pub port: usize,
    pub tier: usize,
    pub class: u8,
    pub from: u64,
    pub until: u64,
}

/// One stopped pipeline waiting on a paused class (see [`Network::deadlock`]): switch `node`
/// holds at its pipeline's end a packet for its `port`, class `class`, whose queue is full and
/// which the switch at the link's other end, `peer`, pauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Wait {
    pub node: usize,
    pub port: usize,
    pub class: u8,
    pub peer: usize,
}

/// A deadlock: a cycle of [`Wait`]s, found at `since` and still there at the next check.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Deadlock {
    /// The cycle at which the check first saw it.
    pub since: u64,
    /// The waits, each one's `peer` the next one's `node`, the last one's the first one's.
    pub waits: Vec<Wait>,
}

/// How often `run` looks for a deadlock, in cycles (1 ms at the paper's 8 ns cycle).
pub const DEADLOCK_CHECK_CYCLES: u64 = 125_000;

/// Why a network cannot be built: the topology, a switch or a flow that cannot be.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("[network] the topology has no links")]
    NoLinks,
    #[error("[network] host {host} has {links} links: a host has one NIC")]
    HostLinks { host: usize, links: usize },
    #[error("[network] host {host} is linked to host {other}: hosts link to switches")]
    HostToHost { host: usize, other: usize },
    #[error("[network] switch {switch} has {links} link(s): a switch has 2 to 128 ports")]
    FewPorts { switch: usize, links: usize },
    #[error("[network] switch {switch} has {links} links: the block takes at most 128 ports")]
    ManyPorts { switch: usize, links: usize },
    /// The automatic XOFF of a switch could not be had.
    #[error("[network] switch {switch}: xoff: {source}")]
    Xoff {
        switch: usize,
        #[source]
        source: crate::headroom::HeadroomError,
    },
    #[error("[network] switch {switch} ({ports} ports): {source}")]
    Switch {
        switch: usize,
        ports: usize,
        #[source]
        source: crate::switch::SwitchError,
    },
    #[error("[network] --dut-nodes: node {0} is not a switch")]
    DutNode(usize),
    /// A flow whose end (`what`: "src", "dst") is not a host.
    #[error("[network] flow {flow}: {what} {node} is not a host")]
    FlowEnd {
        flow: usize,
        what: &'static str,
        node: usize,
    },
    #[error("[network] flow {flow}: {size} bytes; the transport's sequence numbers take at most 2^32 - 1")]
    FlowSize { flow: usize, size: u64 },
    #[error("[network] flow {0}: needs two different hosts, a size and a priority 0..=7")]
    Flow(usize),
}

/// Why a run stopped short: a switch's block and its RTL differ (`--dut both`), or its block
/// could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("switch {node} at cycle {cycle}: {report}")]
pub struct NetRunError {
    pub node: usize,
    pub cycle: u64,
    /// The switch's report ([`Switch::mismatch`]).
    pub report: String,
}

/// For the layers that still report errors as text.
impl From<NetRunError> for String {
    fn from(e: NetRunError) -> String {
        e.to_string()
    }
}

/// What a run measured.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct NetStats {
    pub cycles: u64,
    pub cycle_ns: f64,
    pub sent_bytes: u64,
    pub delivered_bytes: u64,
    /// Packets that reached a host (data, ACKs, copies sent again).
    pub delivered_packets: u64,
    pub ingress_drops: u64,
    pub egress_drops: u64,
    /// PFC frames sent, per tier (1: switches next to hosts, 2: the next tier, ...).
    pub pfc_frames_by_tier: Vec<u64>,
    /// Paused (port, class) cycles, per tier of the paused node (0: the hosts' NICs).
    pub paused_cycles_by_tier: Vec<u64>,
    /// Cycles the switches' pipelines stood still (PFC_wstop), summed per tier.
    pub stall_cycles_by_tier: Vec<u64>,
    /// Transport: retransmission timeouts, fast retransmits and window cuts on ECN echoes, over
    /// every flow.
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_cuts: u64,
    /// Transport: ACKs the receivers sent, and of them those their delayed-ACK timers sent.
    pub acks: u64,
    pub timer_acks: u64,
    /// Completion time per flow, cycles.
    pub fct: Vec<Option<u64>>,
    pub classes: Vec<ClassStats>,
    /// The run stopped on a deadlock (PFC_wstop's stopped pipelines waiting on each other).
    pub deadlock: Option<Deadlock>,
    /// Under the switches' `pause_refresh = false` (absent otherwise): what the pauses that ran
    /// out did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_expiry: Option<PauseExpiry>,
}

/// A run under `pause_refresh = false`: refreshes the MACs withheld, pauses that ran out, and the
/// deadlocks `run` would have stopped on with refreshes (the same cycle of stopped pipelines at
/// two checks in a row), which it now lets run on.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct PauseExpiry {
    /// Frames of the blocks whose refresh of paused classes no MAC put on the wire.
    pub refreshes_withheld: u64,
    /// Pauses (port, class) that ran out by their pause time, at hosts' NICs and switch ports.
    pub expiries: u64,
    /// Deadlocks found (counted once however long each lasted), those that cleared before the
    /// run ended, and the longest one, in deadlock checks ([`DEADLOCK_CHECK_CYCLES`] apart).
    pub deadlocks: u64,
    pub deadlocks_cleared: u64,
    pub longest_deadlock_checks: u64,
}

/// The network: switches, hosts, links, flows.
pub struct Network {
    pub cfg: NetConfig,
    pub topo: Topology,
    /// The clock: nanoseconds per cycle.
    pub cycle_ns: f64,
    pub now: u64,
    /// Per node: its tier (0 for hosts, 1 for switches next to a host, ...).
    pub tier: Vec<usize>,
    switches: Vec<NetSwitch>,
    /// Per switch: it has nothing to do before this cycle (an event for it brings that forward).
    /// Set only by [`Network::wake_switch`].
    sw_wake: Vec<u64>,
    /// The switches' wake cycles as (cycle, switch), lazily: an entry whose switch's `sw_wake`
    /// is no longer its cycle is stale. A step looks only at the switches due in it, not at
    /// every switch of the network (with every switch every cycle, `exhaustive`, it passes over
    /// them all instead). Wakes in this step or the next go to `sw_soon` (a switch busy cycle
    /// after cycle, the usual case, costs no heap operation), later ones to `sw_due`.
    sw_due: BinaryHeap<std::cmp::Reverse<(u64, usize)>>,
    sw_soon: Vec<(u64, usize)>,
    /// The switches due in this step, in index order (reused)
    due: Vec<usize>,
    /// `cfg.exhaustive` as the network was built with it: every switch looked at every cycle,
    /// found by a pass over `sw_wake` (`sw_due` unused)
    scan_all: bool,
    hosts: Vec<Host>,
    /// Per node: its index among the switches or the hosts.
    index: Vec<usize>,
    /// Per switch, per destination host: the next-hop ports, `next[s][h]` a range of `hops`.
    next: Vec<Vec<(u32, u32)>>,
    hops: Vec<u8>,
    pub flows: Vec<FlowSpec>,
    /// Per flow: its destination port (HPCC's `flow.txt` field; `fct.txt` and packet captures).
    pub dports: Vec<u16>,
    remaining: Vec<u64>,
    delivered: Vec<u64>,
    lost: Vec<u64>,
    fct: Vec<Option<u64>>,
    /// The senders' side of a traced run (`capfc net --stragglers`; [`Network::trace_stragglers`]).
    pub senders: Option<super::stragglers::SenderLog>,
    done: usize,
    events: BinaryHeap<Ev>,
    seq: u64,
    /// Host wake-ups: (cycle, host), lazily (an entry whose host wakes later is stale).
    host_wake: BinaryHeap<std::cmp::Reverse<(u64, usize)>>,
    sent_bytes: u64,
    /// Transport: per flow its sender and receiver, whether it is in its NIC's ready list, and
    /// whether a timer event is pending for it.
    tcp: Vec<TcpSender>,
    rcv: Vec<TcpReceiver>,
    listed: Vec<bool>,
    rto_pending: Vec<bool>,
    /// Transport: whether flow f has a delayed-ACK event queued.
    delack_pending: Vec<bool>,
    prio_of: Vec<u8>,
    /// Bytes of every packet that reached a host (data, ACKs, copies sent again), and of every
    /// packet dropped.
    arrived_bytes: u64,
    arrived_packets: u64,
    lost_bytes: u64,
    /// Every PFC frame where it takes effect, when logging.
    pub pfc_log: Option<Vec<NetPfcEvent>>,
    /// The frames on the chosen hosts' links (links numbered by host node id), when capturing
    /// (`capfc net --pcap`): see [`Network::capture_frame`].
    pub capture: Option<crate::switch::pcap::Capture>,
    /// Cycles in which a switch was looked at (the cost that idleness saves).
    pub switch_cycles: u64,
    /// The deadlock `run` stopped on.
    pub deadlock: Option<Deadlock>,
    /// Under `pause_refresh = false`: the deadlocks `run` let run on (see [`PauseExpiry`]).
    expiry_deadlocks: PauseExpiry,
}

impl NetSwitch {
    /// Switch node `s` of the network, its ports `links`, its scenario `cfg.switch`'s with the
    /// network's clock (`cycle_ns`) and transport.
    fn new(
        s: usize,
        links: Vec<PortLink>,
        cfg: &NetConfig,
        cycle_ns: f64,
    ) -> Result<NetSwitch, NetError> {
        if links.len() < 2 {
            return Err(NetError::FewPorts {
                switch: s,
                links: links.len(),
            });
        }
        if links.len() > 128 {
            return Err(NetError::ManyPorts {
                switch: s,
                links: links.len(),
            });
        }
        let mut sc = cfg.switch.clone();
        sc.name = format!("switch {s}");
        if let Some(t) = &cfg.transport {
            sc.mtu = sc.mtu.min(t.mss.min(u32::from(u16::MAX - 64)) as u16);
        }
        sc.ports = links.len();
        sc.flows.clear();
        sc.cycle_ns = cycle_ns;
        sc.prop_delay = links.iter().map(|l| l.prop).max().unwrap_or(0);
        if sc.xoff.is_some() {
            sc.apply_auto_xoff()
                .map_err(|source| NetError::Xoff { switch: s, source })?;
        }
        let dut = if cfg.dut_nodes.is_empty() || cfg.dut_nodes.contains(&s) {
            cfg.dut
        } else {
            DutKind::Model
        };
        let mut sw = Switch::with_block(&sc, cfg.mode, dut, cfg.block).map_err(|source| {
            NetError::Switch {
                switch: s,
                ports: sc.ports,
                source,
            }
        })?;
        sw.attach(
            links.iter().map(|l| l.prop).collect(),
            links.iter().map(|l| l.rate).collect(),
        );
        sw.exhaustive = cfg.exhaustive;
        sw.audit_idle_skip = cfg.audit_idle_skip;
        sw.tm
            .set_ecn(cfg.transport.as_ref().and_then(|t| t.ecn_threshold));
        Ok(NetSwitch {
            node: s,
            sw,
            pauses: vec![Pauses::default(); links.len()],
            ports: links,
            draws: 0,
        })
    }
}

/// The flows as the hosts' senders take them: host indices (`index`), start in cycles
/// (`cycles`), in the given order; a flow that is not between two hosts, or (`tcp`) is larger
/// than the transport's sequence numbers, is refused.
fn flow_specs(
    topo: &Topology,
    flows: &[NetFlow],
    index: &[usize],
    tcp: bool,
    cycles: &dyn Fn(u64) -> u64,
) -> Result<Vec<FlowSpec>, NetError> {
    let n = topo.nodes.len();
    let mut specs = Vec::with_capacity(flows.len());
    for (k, f) in flows.iter().enumerate() {
        for (what, x) in [("src", f.src), ("dst", f.dst)] {
            if x >= n || topo.nodes[x] != NodeKind::Host {
                return Err(NetError::FlowEnd {
                    flow: k,
                    what,
                    node: x,
                });
            }
        }
        if tcp && f.size > u64::from(u32::MAX) {
            return Err(NetError::FlowSize {
                flow: k,
                size: f.size,
            });
        }
        if f.src == f.dst || f.size == 0 || usize::from(f.prio) >= NPRIO {
            return Err(NetError::Flow(k));
        }
        specs.push(FlowSpec {
            src: index[f.src],
            dst: index[f.dst],
            prio: f.prio,
            bytes: f.size,
            start: cycles(f.start_ns),
            class: "flow".into(),
        });
    }
    Ok(specs)
}

impl Network {
    /// A network of `topo` carrying `flows` (host node ids, start times in nanoseconds).
    ///
    /// (Long: the network's parts in order, each a few lines (clock, ports, switches, flows,
    /// hosts, routes), then every field of the network set once.)
    pub fn new(
        topo: &Topology,
        flows: &[NetFlow],
        mut cfg: NetConfig,
    ) -> Result<Network, NetError> {
        let n = topo.nodes.len();
        let clock_bps = topo.links.iter().map(|l| l.rate_bps).max().unwrap_or(0);
        if clock_bps == 0 {
            return Err(NetError::NoLinks);
        }
        let cycle_ns = 8e9 / clock_bps as f64;
        let cycles = |ns: u64| (ns as f64 / cycle_ns).round() as u64;
        cfg.transport = cfg.transport.map(|t| t.in_cycles_of(cycle_ns));
        // Port k of a node is its k-th link.
        let mut ports: Vec<Vec<(usize, usize)>> = vec![vec![]; n]; // (link, far node)
        for (k, l) in topo.links.iter().enumerate() {
            ports[l.a].push((k, l.b));
            ports[l.b].push((k, l.a));
        }
        let mut index = vec![usize::MAX; n];
        let (mut ns, mut nh) = (0, 0);
        for (i, kind) in topo.nodes.iter().enumerate() {
            match kind {
                NodeKind::Switch => {
                    index[i] = ns;
                    ns += 1;
                }
                NodeKind::Host => {
                    if ports[i].len() != 1 {
                        return Err(NetError::HostLinks {
                            host: i,
                            links: ports[i].len(),
                        });
                    }
                    if topo.nodes[ports[i][0].1] != NodeKind::Switch {
                        return Err(NetError::HostToHost {
                            host: i,
                            other: ports[i][0].1,
                        });
                    }
                    index[i] = nh;
                    nh += 1;
                }
            }
        }
        // The port of node `far` whose link is `link`.
        let port_of = |far: usize, link: usize| {
            ports[far]
                .iter()
                .position(|&(k, _)| k == link)
                .expect("both ends list the link")
        };
        let end_of = |link: usize, far: usize| match topo.nodes[far] {
            NodeKind::Host => End::Host(index[far]),
            NodeKind::Switch => End::Switch(index[far], port_of(far, link)),
        };
        let port_link = |link: usize, far: usize| {
            let l = &topo.links[link];
            PortLink {
                peer: end_of(link, far),
                rate: WireRate::of(l.rate_bps, clock_bps),
                prop: cycles(l.delay_ns),
            }
        };
        let tier = tiers(topo);
        let mut switches = Vec::with_capacity(ns);
        for s in topo.switches() {
            let links: Vec<PortLink> = ports[s].iter().map(|&(k, f)| port_link(k, f)).collect();
            switches.push(NetSwitch::new(s, links, &cfg, cycle_ns)?);
        }
        for &d in &cfg.dut_nodes {
            if d >= n || topo.nodes[d] != NodeKind::Switch {
                return Err(NetError::DutNode(d));
            }
        }
        let specs = flow_specs(topo, flows, &index, cfg.transport.is_some(), &cycles)?;
        let hosts: Vec<Host> = topo
            .hosts()
            .map(|h| {
                let (k, far) = ports[h][0];
                let link = port_link(k, far);
                let ets = cfg.switch.scheduler.ets(cfg.switch.mtu);
                let tx = if cfg.transport.is_some() {
                    Tx::Tcp(Box::new(Nic::new(link.rate, ets)))
                } else {
                    let mut sender = Sender::with_flows(index[h], &specs, &cfg.switch);
                    sender.set_rate(link.rate);
                    Tx::Open(Box::new(sender))
                };
                Host {
                    node: h,
                    tx,
                    link,
                    last_tick: None,
                }
            })
            .collect();
        let (next, hops) = routes(topo, &index, &ports, &switches, nh);
        let nf = specs.len();
        let prio_of: Vec<u8> = specs.iter().map(|f| f.prio).collect();
        let (tcp, rcv) = match &cfg.transport {
            Some(t) => (
                specs.iter().map(|f| TcpSender::new(f.bytes, t)).collect(),
                vec![TcpReceiver::default(); nf],
            ),
            None => (vec![], vec![]),
        };
        let mut net = Network {
            tier,
            cycle_ns,
            now: 0,
            sw_wake: vec![0; switches.len()],
            sw_due: BinaryHeap::new(),
            // (every switch due in the first step)
            sw_soon: (0..switches.len()).map(|s| (0, s)).collect(),
            due: Vec::with_capacity(switches.len()),
            scan_all: cfg.exhaustive,
            switches,
            index,
            next,
            hops,
            remaining: specs.iter().map(|f| f.bytes).collect(),
            dports: flows.iter().map(|f| f.dport).collect(),
            delivered: vec![0; nf],
            lost: vec![0; nf],
            fct: vec![None; nf],
            senders: None,
            done: 0,
            flows: specs,
            events: BinaryHeap::new(),
            seq: 0,
            host_wake: BinaryHeap::new(),
            sent_bytes: 0,
            tcp,
            rcv,
            listed: vec![false; nf],
            prio_of,
            rto_pending: vec![false; nf],
            delack_pending: vec![false; nf],
            arrived_bytes: 0,
            arrived_packets: 0,
            lost_bytes: 0,
            pfc_log: None,
            capture: None,
            switch_cycles: 0,
            deadlock: None,
            expiry_deadlocks: PauseExpiry::default(),
            hosts,
            topo: topo.clone(),
            cfg,
        };
        for h in 0..net.hosts.len() {
            net.wake_host(h);
        }
        if net.cfg.transport.is_some() {
            for f in 0..nf {
                let at = net.flows[f].start;
                net.push(at, EvKind::FlowStart(f));
            }
        }
        Ok(net)
    }

    /// Host index and switch index of a node, by kind.
    pub fn index_of(&self, node: usize) -> usize {
        self.index[node]
    }

    /// The switch at node `node` (a switch's node id).
    pub fn switch(&self, node: usize) -> Option<&Switch> {
        match self.topo.nodes.get(node) {
            Some(NodeKind::Switch) => Some(&self.switches[self.index[node]].sw),
            _ => None,
        }
    }

    /// Every flow is done (all its bytes delivered; without `rto`, delivered or lost).
    pub fn finished(&self) -> bool {
        self.done == self.flows.len()
    }

    fn push(&mut self, at: u64, kind: EvKind) {
        self.seq += 1;
        self.events.push(Ev {
            at,
            seq: self.seq,
            kind,
        });
    }

    fn wake_host(&mut self, h: usize) {
        let w = match &self.hosts[h].tx {
            Tx::Open(s) => s.wake(),
            Tx::Tcp(n) => n.wake(),
        };
        if w != u64::MAX {
            self.host_wake.push(std::cmp::Reverse((w, h)));
        }
    }

    /// Run until every flow is done, the switch settings' `max_cycles`, or a model/RTL difference
    /// (returned). Returns the first difference of a `--dut both` switch, if any.
    ///
    /// Every [`DEADLOCK_CHECK_CYCLES`] it looks for a deadlock ([`Network::deadlock`]) and stops
    /// when the same one is there at two checks in a row (`deadlock` says which and since when).
    /// Under `pause_refresh = false` the pauses in such a cycle run out, so it does not stop: it
    /// counts the deadlock, how long it lasted and whether it cleared ([`NetStats::pause_expiry`]).
    pub fn run(&mut self) -> Result<(), NetRunError> {
        let limit = self.cfg.switch.max_cycles;
        let stop_on_deadlock = self.cfg.switch.pause_refresh;
        let mut check = self.now + DEADLOCK_CHECK_CYCLES;
        let mut seen: Option<Deadlock> = None;
        let mut lasting = 0u64; // checks the current deadlock has lasted (0: none)
        while !self.finished() && self.now < limit {
            let next = self.step()?;
            if next == u64::MAX {
                break; // nothing left that can happen (a flow can never finish)
            }
            self.now = next.min(limit);
            if self.now >= check {
                check = self.now + DEADLOCK_CHECK_CYCLES;
                let found = self.deadlock();
                match (&seen, found) {
                    (Some(d), Some(w)) if d.waits == w => {
                        if stop_on_deadlock {
                            self.deadlock = seen;
                            break;
                        }
                        let e = &mut self.expiry_deadlocks;
                        if lasting == 0 {
                            e.deadlocks += 1;
                            lasting = 1;
                        }
                        lasting += 1;
                        e.longest_deadlock_checks = e.longest_deadlock_checks.max(lasting);
                    }
                    (_, found) => {
                        if lasting > 0 {
                            self.expiry_deadlocks.deadlocks_cleared += 1;
                            lasting = 0;
                        }
                        seen = found.map(|waits| Deadlock {
                            since: self.now,
                            waits,
                        })
                    }
                }
            }
        }
        Ok(())
    }

    /// A cycle of stopped pipelines, now, each waiting on a class that the next one pauses: switch
    /// A's pipeline (PFC_wstop) holds a packet for its port o, class p, whose egress queue is full;
    /// the switch B at o's other end pauses p on that link because its ingress from A holds more
    /// than XON; B's pipeline stands still too, waiting on a class paused by C, ..., and the last
    /// one waits on A. No pipeline in the cycle moves again, so no ingress in it drains and no
    /// pause in it ends: a deadlock (pipelines that stop couple every input to every output, so
    /// the up-down routes of a tree no longer rule out a cycle of buffer dependencies). The waits
    /// from the lowest-numbered switch in the cycle; None if there is no such cycle.
    pub fn deadlock(&self) -> Option<Vec<Wait>> {
        let t = self.now;
        let wait = |s: usize| -> Option<(Wait, usize)> {
            let ns = &self.switches[s];
            if !ns.sw.stalled {
                return None;
            }
            let (_, pkt) = ns.sw.pipe.front()?;
            let (port, class) = (usize::from(pkt.dst), pkt.prio);
            if ns.pauses[port].mask(t) & (1 << class) == 0 {
                return None;
            }
            match ns.ports[port].peer {
                End::Switch(peer, _) => Some((
                    Wait {
                        node: ns.node,
                        port,
                        class,
                        peer: self.switches[peer].node,
                    },
                    peer,
                )),
                End::Host(_) => None,
            }
        };
        let n = self.switches.len();
        // each switch waits on at most one: follow the waits from each, marking the walk
        let mut walk = vec![usize::MAX; n];
        for start in 0..n {
            let mut s = start;
            let mut path = vec![];
            while walk[s] == usize::MAX {
                walk[s] = start;
                let Some((w, peer)) = wait(s) else { break };
                path.push(w);
                s = peer;
                if walk[s] == start {
                    // a cycle, from where the walk met itself
                    let from = path.iter().position(|w| w.node == self.switches[s].node)?;
                    let mut cyc = path.split_off(from);
                    let low = (0..cyc.len()).min_by_key(|&i| cyc[i].node)?;
                    cyc.rotate_left(low);
                    return Some(cyc);
                }
            }
        }
        None
    }

    /// One cycle of the whole network (cycle `self.now`); returns the next cycle at which anything
    /// can happen (`now + 1` when exhaustive), u64::MAX when nothing ever will.
    pub fn step(&mut self) -> Result<u64, NetRunError> {
        let t = self.now;
        self.deliver_events(t);
        self.hosts_send(t);
        let mut next = self.switches_tick(t)?;
        if let Some(e) = self.events.peek() {
            next = next.min(e.at);
        }
        if let Some(std::cmp::Reverse((w, _))) = self.host_wake.peek() {
            next = next.min(*w);
        }
        #[cfg(debug_assertions)]
        self.check_conservation();
        if self.cfg.exhaustive {
            return Ok(t + 1);
        }
        Ok(next.max(t + 1))
    }

    fn deliver_events(&mut self, t: u64) {
        while self.events.peek().is_some_and(|e| e.at <= t) {
            let e = self.events.pop().expect("peeked");
            match e.kind {
                EvKind::ToSwitch(s, port, pkt) => {
                    let mut pkt = pkt;
                    pkt.src = port as u8;
                    pkt.dst = self.route(s, &pkt) as u8;
                    self.switches[s].sw.inject(t, port, pkt);
                    self.wake_switch(s, t);
                }
                EvKind::ToHost(pkt) => {
                    self.arrived_bytes += u64::from(pkt.size);
                    self.arrived_packets += 1;
                    if self.cfg.transport.is_some() {
                        self.transport_arrival(t, pkt);
                    } else {
                        let f = pkt.flow as usize;
                        self.delivered[f] += u64::from(pkt.size);
                        self.settle(f, t);
                    }
                }
                EvKind::PfcSwitch(s, port, cev, q) => {
                    let ns = &mut self.switches[s];
                    let quantum = ns.ports[port].rate.cycles(QUANTUM_CYCLES);
                    let pause = &mut ns.pauses[port];
                    pause.apply(t, cev, &q, quantum);
                    for p in (0..NPRIO).filter(|p| cev >> p & 1 == 1) {
                        ns.sw.tm.pause(port, p, pause.until[p]);
                        if let Some(tr) = &mut ns.sw.hop_trace {
                            tr.pause(port, p, t, pause.until[p]);
                        }
                    }
                    let node = ns.node;
                    self.wake_switch(s, t);
                    if let Some(log) = &mut self.pfc_log {
                        log.push((t, node, port, cev, q));
                    }
                }
                EvKind::PfcHost(h, cev, q) => {
                    match &mut self.hosts[h].tx {
                        Tx::Open(s) => s.apply_pfc(t, cev, &q),
                        Tx::Tcp(n) => n.apply_pfc(t, cev, &q),
                    }
                    if let Some(log) = &mut self.senders {
                        let until = &self.hosts[h].pause().until;
                        for p in (0..NPRIO).filter(|p| cev >> p & 1 == 1) {
                            log.host_pauses[h * NPRIO + p].push((t, until[p]));
                        }
                    }
                    if let Some(log) = &mut self.pfc_log {
                        log.push((t, self.hosts[h].node, 0, cev, q));
                    }
                    self.wake_host(h);
                }
                EvKind::Retransmit(f, size) => {
                    let f = f as usize;
                    let h = self.flows[f].src;
                    if self.remaining[f] == 0 {
                        if let Tx::Open(s) = &mut self.hosts[h].tx {
                            s.reactivate(f, self.flows[f].prio, t);
                        }
                        self.wake_host(h);
                    }
                    self.remaining[f] += u64::from(size);
                }
                EvKind::FlowStart(f) => self.tcp_ready(t, f),
                EvKind::Rto(f) => {
                    self.rto_pending[f] = false;
                    let cfg = self.cfg.transport.expect("transport");
                    if self.tcp[f].rto_at.is_some_and(|x| x <= t) {
                        if let Some(log) = &mut self.senders {
                            let ran = t - self.tcp[f].rto_armed;
                            log.triggers[f].push((t, super::stragglers::Trigger::Timeout(ran)));
                        }
                        self.tcp[f].on_timeout(t, &cfg);
                        self.tcp_ready(t, f);
                    }
                    self.arm_rto(f);
                }
                EvKind::DelAck(f) => {
                    self.delack_pending[f] = false;
                    let cfg = self.cfg.transport.expect("transport");
                    let d = cfg
                        .delayed_ack
                        .expect("a delayed-ACK timer without delayed ACKs");
                    if let Some((ack, ece)) = self.rcv[f].on_delack_timer(t, &d) {
                        self.send_ack(t, f, ack, ece);
                    }
                    self.arm_delack(f);
                }
            }
        }
    }

    /// ECMP's pick for flow `f` at switch `s` among `n` next hops.
    fn ecmp_choice(&self, s: usize, f: usize, n: usize) -> usize {
        (self.hash(s, f as u64) % n as u64) as usize
    }

    /// The routing hash of `x` at switch `s` (see [`Routing::Ecmp`]).
    fn hash(&self, s: usize, x: u64) -> u64 {
        splitmix64(
            self.cfg.seed
                ^ x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (self.switches[s].node as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F),
        )
    }

    /// The output port of switch `s` for `pkt` (its flow's destination host).
    fn route(&mut self, s: usize, pkt: &Packet) -> usize {
        let f = pkt.flow as usize;
        let to = if pkt.is_ack() {
            self.flows[f].src
        } else {
            self.flows[f].dst
        };
        let (a, b) = self.next[s][to];
        let (a, b) = (a as usize, b as usize);
        if b - a == 1 {
            return usize::from(self.hops[a]);
        }
        match self.cfg.routing {
            Routing::Ecmp => usize::from(self.hops[a + self.ecmp_choice(s, f, b - a)]),
            Routing::Detail { low, high } => {
                let ns = &self.switches[s];
                let occ = |o: u8| {
                    ns.sw
                        .tm
                        .queue_bytes(usize::from(o) * NPRIO + usize::from(pkt.prio))
                };
                let cands = &self.hops[a..b];
                // The candidates under `low`; if none, under `high`; if none, all.
                let (mut below_low, mut below_high) = (0u128, 0u128);
                for (k, &o) in cands.iter().enumerate() {
                    let q = occ(o);
                    below_low |= u128::from(q < low) << k;
                    below_high |= u128::from(q < high) << k;
                }
                let all = (1u128 << cands.len()) - 1;
                let set = [below_low, below_high, all]
                    .into_iter()
                    .find(|&m| m != 0)
                    .expect("all is not empty");
                let draws = self.switches[s].draws + 1;
                self.switches[s].draws = draws;
                let mut r = (self.hash(s, draws ^ (1 << 63)) % u64::from(set.count_ones())) as u32;
                let mut m = set;
                while r > 0 {
                    m &= m - 1;
                    r -= 1;
                }
                usize::from(cands[m.trailing_zeros() as usize])
            }
        }
    }

    fn hosts_send(&mut self, t: u64) {
        let mtu = self.cfg.switch.mtu;
        while let Some(&std::cmp::Reverse((w, h))) = self.host_wake.peek() {
            if w > t {
                break;
            }
            self.host_wake.pop();
            let host = &mut self.hosts[h];
            let wake = match &host.tx {
                Tx::Open(sd) => sd.wake(),
                Tx::Tcp(n) => n.wake(),
            };
            if host.last_tick == Some(t) || wake > t {
                continue; // looked at already, or a stale entry (a later one exists)
            }
            host.last_tick = Some(t);
            let r = match &mut host.tx {
                Tx::Open(sd) => sd.tick(t, &self.flows, &mut self.remaining, mtu),
                Tx::Tcp(nic) => {
                    let cfg = self.cfg.transport.as_ref().expect("transport");
                    nic.tick(t, &mut self.tcp, &self.prio_of, &mut self.listed, cfg)
                }
            };
            let (link, node) = (host.link, host.node);
            if let Some(pkt) = r {
                if self.capture.is_some() {
                    self.capture_frame(t, node, crate::switch::pcap::Dir::ToSwitch, pkt);
                }
                let wire = link.rate.cycles(u64::from(pkt.size) + FRAME_OVERHEAD);
                self.sent_bytes += u64::from(pkt.size);
                let End::Switch(s, port) = link.peer else {
                    unreachable!("hosts link to switches")
                };
                self.push(t + wire + link.prop, EvKind::ToSwitch(s, port, pkt));
                if let (Some(log), false) = (&mut self.senders, pkt.is_ack()) {
                    log.copies[pkt.flow as usize].push((pkt.seq, t, wire, link.prop));
                }
                if self.cfg.transport.is_some() && !pkt.is_ack() {
                    self.arm_rto(pkt.flow as usize);
                }
            }
            self.wake_host(h);
        }
    }

    /// Switch `s` has nothing to do before cycle `w`.
    fn wake_switch(&mut self, s: usize, w: u64) {
        self.sw_wake[s] = w;
        if self.scan_all || w == u64::MAX {
            return;
        }
        if w <= self.now + 1 {
            self.sw_soon.push((w, s));
        } else {
            self.sw_due.push(std::cmp::Reverse((w, s)));
        }
    }

    /// The switches due in step `t` (their wake cycle reached) into `self.due`, in index order.
    fn due_switches(&mut self, t: u64) {
        self.due.clear();
        if self.scan_all {
            let w = &self.sw_wake;
            self.due.extend((0..w.len()).filter(|&s| w[s] <= t));
            return;
        }
        // (every entry of `sw_soon` is for this step: the last one ran at t - 1 or, with none
        // of them, earlier; stale ones, whose switch's wake moved since, are left out)
        for &(w, s) in &self.sw_soon {
            debug_assert!(w <= t);
            if self.sw_wake[s] == w {
                self.due.push(s);
            }
        }
        self.sw_soon.clear();
        while let Some(&std::cmp::Reverse((w, s))) = self.sw_due.peek() {
            if w > t {
                break;
            }
            self.sw_due.pop();
            if self.sw_wake[s] == w {
                self.due.push(s);
            }
        }
        // (the order the switches are ticked in: an event two of them push for the same cycle
        // keeps the order of a pass over every switch)
        self.due.sort_unstable();
        self.due.dedup();
    }

    /// The first cycle a switch is due in after a step (`u64::MAX`: none).
    fn next_switch_wake(&mut self) -> u64 {
        if self.scan_all {
            return self.sw_wake.iter().copied().min().unwrap_or(u64::MAX);
        }
        let soon = self
            .sw_soon
            .iter()
            .filter(|&&(w, s)| self.sw_wake[s] == w)
            .map(|&(w, _)| w)
            .min()
            .unwrap_or(u64::MAX);
        while let Some(&std::cmp::Reverse((w, s))) = self.sw_due.peek() {
            if self.sw_wake[s] == w {
                return w.min(soon);
            }
            self.sw_due.pop();
        }
        soon
    }

    fn switches_tick(&mut self, t: u64) -> Result<u64, NetRunError> {
        let mut out: Vec<(u64, EvKind)> = vec![];
        self.due_switches(t);
        let due = std::mem::take(&mut self.due);
        let r = self.tick_due(t, &due, &mut out);
        self.due = due;
        r?;
        Ok(self.next_switch_wake())
    }

    /// Tick the switches `due` in step `t`, each unless idle.
    fn tick_due(
        &mut self,
        t: u64,
        due: &[usize],
        out: &mut Vec<(u64, EvKind)>,
    ) -> Result<(), NetRunError> {
        for &s in due {
            // Not while idle.
            let ns = &mut self.switches[s];
            if ns.sw.idle(t) {
                let w = ns.sw.next_activity();
                self.wake_switch(s, w);
                continue;
            }
            self.switch_cycles += 1;
            ns.sw.skip_to(t);
            ns.sw.tick_cycle();
            if let Some(m) = ns.sw.mismatch.take() {
                return Err(NetRunError {
                    node: ns.node,
                    cycle: t,
                    report: m,
                });
            }
            let ports = &ns.ports;
            ns.sw.take_down(|o, at, pkt| {
                let kind = match ports[o].peer {
                    End::Host(_) => EvKind::ToHost(pkt),
                    End::Switch(s2, p2) => EvKind::ToSwitch(s2, p2, pkt),
                };
                out.push((at, kind));
            });
            ns.sw.take_pfc(|at, i, cev, q| {
                let kind = match ports[i].peer {
                    End::Host(h) => EvKind::PfcHost(h, cev, q),
                    End::Switch(s2, p2) => EvKind::PfcSwitch(s2, p2, cev, q),
                };
                out.push((at, kind));
            });
            let rto = self.cfg.switch.rto;
            let mut lost = vec![];
            ns.sw.take_lost(|at, pkt| lost.push((at, pkt)));
            let w = if ns.sw.idle(t + 1) {
                ns.sw.next_activity()
            } else {
                t + 1
            };
            self.wake_switch(s, w);
            for (at, kind) in out.drain(..) {
                if self.capture.is_some() {
                    self.capture_to_host(at, kind);
                }
                self.push(at, kind);
            }
            for (at, pkt) in lost {
                let f = pkt.flow as usize;
                if !pkt.is_ack() {
                    self.lost[f] += u64::from(pkt.size);
                }
                self.lost_bytes += u64::from(pkt.size);
                if self.cfg.transport.is_some() {
                    continue; // the transport finds out and sends it again
                }
                match rto {
                    Some(r) => self.push(at + r, EvKind::Retransmit(pkt.flow, pkt.size)),
                    None => self.settle(f, at),
                }
            }
        }
        Ok(())
    }

    /// Capturing: a frame a switch put on a host's link, arriving (or taking effect, for a PFC
    /// frame) at `at`; captured at the cycle its first byte left the switch.
    fn capture_to_host(&mut self, at: u64, kind: EvKind) {
        use crate::switch::pcap::Dir;
        match kind {
            EvKind::ToHost(pkt) => {
                let fl = &self.flows[pkt.flow as usize];
                let h = if pkt.is_ack() { fl.src } else { fl.dst };
                let (link, node) = (self.hosts[h].link, self.hosts[h].node);
                let wire = link.rate.cycles(u64::from(pkt.size) + FRAME_OVERHEAD);
                self.capture_frame(at - link.prop - wire, node, Dir::ToHost, pkt);
            }
            EvKind::PfcHost(h, cev, q) => {
                let (link, node) = (self.hosts[h].link, self.hosts[h].node);
                let wire = link.rate.cycles(crate::switch::PFC_FRAME_BYTES);
                let first = at - self.cfg.switch.pfc_response - link.prop - wire;
                if let Some(c) = &mut self.capture {
                    c.pfc(first, node, cev, q);
                }
            }
            _ => {}
        }
    }

    /// Capturing: packet `pkt` starts on host node `node`'s link in cycle `t`, with its headers:
    /// IPv4 from the source host's HPCC address to the destination's
    /// ([`crate::switch::hpcc::node_ip`], as in `fct.txt`), TCP from port `10000 + flow % 50000`
    /// to the flow's destination port (`fct.txt`'s), an ACK the other way round.
    ///
    /// With the transport, a segment's sequence number is the TCP payload ahead of it in the
    /// flow: the transport counts a segment of `len` bytes as `len` bytes of the flow, on the wire
    /// a frame of `len` bytes whose payload is `len - 62` ([`crate::switch::pcap::payload_len`]), and
    /// segments start at multiples of `mss`, so byte offset `x` of the transport is payload offset
    /// `(x / mss) * payload_len(mss) + payload_len(x % mss)`. Data segments carry PSH|ACK
    /// (acknowledgement number 0: the receiver sends no data) and ECT(0), or CE where a queue
    /// marked them; an ACK frame (no payload) has sequence number 0, the cumulative
    /// acknowledgement mapped the same way, and ECE when it echoes CE. Open-loop senders
    /// (`--transport open`) send no ACKs: their data carries PSH alone, its sequence number the
    /// flow's payload already seen in that direction on that link (as for `capfc run`).
    pub fn capture_frame(
        &mut self,
        t: u64,
        node: usize,
        dir: crate::switch::pcap::Dir,
        pkt: Packet,
    ) {
        use crate::switch::pcap::{payload_len, sport, Tcp};
        let Some(c) = &mut self.capture else { return };
        if !c.wants(node) {
            return;
        }
        let f = pkt.flow as usize;
        let fl = &self.flows[f];
        let ip = |h: usize| crate::switch::hpcc::node_ip(self.hosts[h].node).to_be_bytes();
        let (mut tcp, (src, dst)) = (
            Tcp {
                ip_src: ip(fl.src),
                ip_dst: ip(fl.dst),
                sport: sport(f),
                dport: self.dports[f],
                seq: 0,
                ack: None,
                payload: payload_len(pkt.size),
                psh: true,
                ece: false,
                ecn: 0,
            },
            (fl.src, fl.dst),
        );
        let Some(cfg) = &self.cfg.transport else {
            c.counted(t, node, dir, pkt, tcp);
            return;
        };
        let mss = u64::from(cfg.mss.max(1));
        let pay = |n: u64| u64::from(payload_len(n.min(u64::from(u16::MAX)) as u16));
        let offset = |x: u64| ((x / mss) * pay(mss) + pay(x % mss)) as u32;
        if pkt.is_ack() {
            tcp = Tcp {
                ip_src: ip(dst),
                ip_dst: ip(src),
                sport: tcp.dport,
                dport: tcp.sport,
                seq: 0,
                ack: Some(offset(u64::from(pkt.seq))),
                payload: 0,
                psh: false,
                ece: pkt.flags & Packet::ECE != 0,
                ecn: 0,
            };
        } else {
            tcp.seq = offset(u64::from(pkt.seq));
            tcp.ack = Some(0);
            let ect = cfg.ecn_threshold.is_some();
            tcp.ecn = if pkt.flags & Packet::CE != 0 {
                3
            } else {
                2 * u8::from(ect)
            };
        }
        c.segment(t, node, dir, pkt, tcp);
    }

    /// Transport: a packet reached its host in cycle `t`. A segment goes to the flow's receiver,
    /// which answers with an ACK (echoing CE) from its host's NIC; an ACK goes to the flow's sender.
    fn transport_arrival(&mut self, t: u64, pkt: Packet) {
        let f = pkt.flow as usize;
        let cfg = self.cfg.transport.expect("transport");
        if pkt.is_ack() {
            let fast = self.tcp[f].fast_retransmits;
            self.tcp[f].on_ack(t, u64::from(pkt.seq), pkt.flags & Packet::ECE != 0, &cfg);
            if let (Some(log), true) = (&mut self.senders, self.tcp[f].fast_retransmits > fast) {
                log.triggers[f].push((t, super::stragglers::Trigger::FastRetransmit));
            }
            self.tcp_ready(t, f);
            self.arm_rto(f);
            return;
        }
        let ce = pkt.flags & Packet::CE != 0;
        let now_ack = self.rcv[f].on_segment(
            t,
            u64::from(pkt.seq),
            u64::from(pkt.size),
            ce,
            cfg.delayed_ack.as_ref(),
        );
        let got = self.rcv[f].rcv_nxt;
        self.delivered[f] = got;
        if got >= self.flows[f].bytes && self.fct[f].is_none() {
            self.fct[f] = Some(t + 1 - self.flows[f].start);
            self.done += 1;
            if let Some(log) = &mut self.senders {
                log.completing[f] = Some((pkt.seq, t));
            }
        }
        match now_ack {
            Some((ack, ece)) => self.send_ack(t, f, ack, ece),
            None => self.arm_delack(f),
        }
    }

    /// Transport: flow f's receiver sends the cumulative ACK `ack` (echoing CE if `ece`) from its
    /// host's NIC in cycle `t`.
    fn send_ack(&mut self, t: u64, f: usize, ack: u64, ece: bool) {
        let h = self.flows[f].dst;
        if let Tx::Tcp(nic) = &mut self.hosts[h].tx {
            nic.push_ack(
                t,
                Packet {
                    flow: f as u32,
                    prio: self.flows[f].prio,
                    size: ACK_BYTES,
                    seq: ack as u32,
                    flags: Packet::ACK | if ece { Packet::ECE } else { 0 },
                    ..Packet::default()
                },
            );
        }
        self.wake_host(h);
    }

    /// Transport: one delayed-ACK event per flow at most, when its receiver's oldest
    /// unacknowledged segment is due (lazily, as [`Network::arm_rto`]).
    fn arm_delack(&mut self, f: usize) {
        let Some(d) = self.cfg.transport.and_then(|t| t.delayed_ack) else {
            return;
        };
        if let (Some(at), false) = (self.rcv[f].first_unacked, self.delack_pending[f]) {
            self.delack_pending[f] = true;
            self.push(at + d.timeout, EvKind::DelAck(f));
        }
    }

    /// Transport: flow f's window may have opened (it started, an ACK came, its timer fired).
    fn tcp_ready(&mut self, t: u64, f: usize) {
        let cfg = self.cfg.transport.expect("transport");
        if self.tcp[f].next_segment(&cfg).is_none() {
            return;
        }
        let h = self.flows[f].src;
        if let Tx::Tcp(nic) = &mut self.hosts[h].tx {
            nic.make_ready(t, f, self.flows[f].prio, &mut self.listed);
        }
        self.wake_host(h);
    }

    /// Transport: one timer event per flow at most, at its retransmission timer (lazily: when it
    /// fires early because the timer moved, it is set again).
    fn arm_rto(&mut self, f: usize) {
        if let (Some(at), false) = (self.tcp[f].rto_at, self.rto_pending[f]) {
            if !self.tcp[f].done() {
                self.rto_pending[f] = true;
                self.push(at, EvKind::Rto(f));
            }
        }
    }

    /// Flow f is complete when every byte is delivered (without `rto`, delivered or lost).
    fn settle(&mut self, f: usize, t: u64) {
        if self.fct[f].is_some() {
            return;
        }
        let lost = if self.cfg.switch.rto.is_some() {
            0
        } else {
            self.lost[f]
        };
        if self.delivered[f] + lost >= self.flows[f].bytes && self.remaining[f] == 0 {
            self.fct[f] = Some(t + 1 - self.flows[f].start);
            self.done += 1;
        }
    }

    /// Every byte the hosts sent is delivered, lost, on a link or inside a switch; and each switch
    /// holds what it was given less what it passed on or dropped. Called every cycle in debug
    /// builds; tests call it directly.
    pub fn check_conservation(&self) {
        let mut in_flight = 0u64;
        for e in &self.events {
            if let EvKind::ToSwitch(_, _, p) | EvKind::ToHost(p) = e.kind {
                in_flight += u64::from(p.size);
            }
        }
        let mut inside = 0u64;
        for ns in &self.switches {
            ns.sw.check_conservation();
            let a = ns.sw.attached.as_ref().expect("attached");
            inside += ns.sw.stats.sent_bytes - a.handed_out - a.lost_bytes;
        }
        let (delivered, lost) = (self.arrived_bytes, self.lost_bytes);
        assert_eq!(
            self.sent_bytes,
            delivered + lost + in_flight + inside,
            "network conservation broken at cycle {}: sent {} delivered {delivered} lost {lost} on links {in_flight} in switches {inside}",
            self.now,
            self.sent_bytes
        );
    }

    /// The run's measurements so far.
    /// With the v3 block: (cycles its switches' blocks did not clock, cycles clocked to catch up
    /// with them), summed over the switches (`crate::switch::block_v3`'s idle skipping).
    pub fn v3_skip_counts(&self) -> (u64, u64) {
        self.switches.iter().fold((0, 0), |(a, b), s| {
            let (x, y) = s.sw.v3_skip_counts();
            (a + x, b + y)
        })
    }

    /// The v3 blocks' idle skips checked so far ([`NetConfig::audit_idle_skip`]).
    pub fn v3_idle_audits(&self) -> u64 {
        self.switches.iter().map(|s| s.sw.v3_idle_audits()).sum()
    }

    /// Trace where every flow's time goes (before the run): each switch's hops
    /// ([`crate::switch::hops`]) and the senders' copies and retransmission triggers; then
    /// [`super::stragglers::breakdown`] gives a flow's completion time part by part.
    pub fn trace_stragglers(&mut self) {
        for ns in &mut self.switches {
            ns.sw.hop_trace = Some(Box::new(crate::switch::hops::HopTrace::new(ns.ports.len())));
        }
        self.senders = Some(super::stragglers::SenderLog::new(
            self.flows.len(),
            self.hosts.len(),
        ));
    }

    /// Each switch's node id and its traced hops (none if not traced).
    pub fn traced_hops(&self) -> impl Iterator<Item = (usize, &[crate::switch::hops::Hop])> {
        self.switches.iter().filter_map(|ns| {
            ns.sw
                .hop_trace
                .as_ref()
                .map(|t| (ns.node, t.hops.as_slice()))
        })
    }

    /// Flow f's completion time, cycles.
    pub fn stats_fct(&self, f: usize) -> Option<u64> {
        self.fct.get(f).copied().flatten()
    }

    pub fn stats(&self) -> NetStats {
        let tiers = self.tier.iter().copied().max().unwrap_or(0) + 1;
        let mut st = NetStats {
            cycles: self.now,
            cycle_ns: self.cycle_ns,
            sent_bytes: self.sent_bytes,
            delivered_bytes: self.delivered.iter().sum(),
            delivered_packets: self.arrived_packets,
            pfc_frames_by_tier: vec![0; tiers],
            paused_cycles_by_tier: vec![0; tiers],
            stall_cycles_by_tier: vec![0; tiers],
            fct: self.fct.clone(),
            deadlock: self.deadlock.clone(),
            ..NetStats::default()
        };
        for ns in &self.switches {
            let s = &ns.sw.stats;
            st.ingress_drops += s.ingress_drops;
            st.egress_drops += s.egress_drops + s.shared_drops;
            st.pfc_frames_by_tier[self.tier[ns.node]] += s.total_pfc_frames();
            st.stall_cycles_by_tier[self.tier[ns.node]] += s.stall_cycles;
            for pause in &ns.pauses {
                st.paused_cycles_by_tier[self.tier[ns.node]] +=
                    pause.paused_cycles(self.now).iter().sum::<u64>();
            }
        }
        for t in &self.tcp {
            st.timeouts += u64::from(t.timeouts);
            st.fast_retransmits += u64::from(t.fast_retransmits);
            st.ecn_cuts += u64::from(t.ecn_cuts);
        }
        for r in &self.rcv {
            st.acks += u64::from(r.acks);
            st.timer_acks += u64::from(r.timer_acks);
        }
        for h in &self.hosts {
            st.paused_cycles_by_tier[0] += h.pause().paused_cycles(self.now).iter().sum::<u64>();
        }
        if !self.cfg.switch.pause_refresh {
            let mut e = self.expiry_deadlocks.clone();
            for ns in &self.switches {
                e.refreshes_withheld += ns.sw.stats.refreshes_withheld;
                e.expiries += ns.pauses.iter().map(|p| p.expiries(self.now)).sum::<u64>();
            }
            e.expiries += self
                .hosts
                .iter()
                .map(|h| h.pause().expiries(self.now))
                .sum::<u64>();
            st.pause_expiry = Some(e);
        }
        st.classes = class_stats(
            &self.flows,
            &self.fct,
            &self.delivered,
            &self.lost,
            self.cycle_ns,
        );
        st
    }

    /// Which (node, port) egress classes are paused now: per switch node, per port, the bit mask of
    /// paused classes (hosts: port 0, their NIC).
    pub fn paused_now(&self) -> Vec<(usize, usize, u8)> {
        let t = self.now;
        let mut v = vec![];
        for ns in &self.switches {
            for port in 0..ns.ports.len() {
                let m = ns.pauses[port].mask(t);
                if m != 0 {
                    v.push((ns.node, port, m));
                }
            }
        }
        for h in &self.hosts {
            let m = h.pause().mask(t);
            if m != 0 {
                v.push((h.node, 0, m));
            }
        }
        v.sort_unstable();
        v
    }

    /// Every pause as an interval: where it held (node, port; a host's NIC is port 0), its tier,
    /// the class, and the cycles [from, until). A frame with pause time 0 (or a later frame) ends
    /// the interval a previous frame opened; one still open at the end runs to its expiry.
    pub fn pause_intervals(&self) -> Vec<PauseInterval> {
        let mut open: std::collections::HashMap<(usize, usize, usize), (u64, u64)> =
            std::collections::HashMap::new();
        let mut v = vec![];
        let interval = |(node, port, p): (usize, usize, usize), from, until| PauseInterval {
            node,
            port,
            tier: self.tier[node],
            class: p as u8,
            from,
            until,
        };
        for &(t, node, port, cev, q) in self.pfc_log.as_deref().unwrap_or_default() {
            let rate = match self.topo.nodes[node] {
                NodeKind::Switch => self.switches[self.index[node]].ports[port].rate,
                NodeKind::Host => self.hosts[self.index[node]].link.rate,
            };
            let quantum = rate.cycles(QUANTUM_CYCLES);
            for (p, &qp) in q.iter().enumerate() {
                if cev >> p & 1 == 0 {
                    continue;
                }
                if let Some((from, until)) = open.remove(&(node, port, p)) {
                    if until.min(t) > from {
                        v.push(interval((node, port, p), from, until.min(t)));
                    }
                }
                if qp > 0 {
                    open.insert((node, port, p), (t, t + u64::from(qp) * quantum));
                }
            }
        }
        let mut rest: Vec<_> = open.into_iter().collect();
        rest.sort_unstable();
        for (place, (from, until)) in rest {
            v.push(interval(place, from, until));
        }
        v
    }

    /// Host `h`'s node id.
    pub fn host_node(&self, h: usize) -> usize {
        self.hosts[h].node
    }

    /// The FCT flow `f` would have alone, in cycles (a lower bound of any run's): its bytes (each
    /// packet with its preamble and gap) at the flow's bottleneck bandwidth, plus the first packet's
    /// wire time on every link before the bottleneck and the last packet's on every link after it
    /// (store and forward), every link's propagation
    /// delay and every switch's pipeline latency. Under ECMP the path is the one the flow's hash
    /// takes and the bottleneck its slowest link; under DeTail packets spread over every shortest
    /// path, so the bottleneck is the least, over the hops, of the summed rates of all shortest-path
    /// links at that hop (the path for the other terms: the first next hop at each switch).
    pub fn standalone_cycles(&self, f: usize) -> u64 {
        let fl = &self.flows[f];
        let mtu = u64::from(self.cfg.switch.mtu.max(1));
        let packets = fl.bytes.div_ceil(mtu);
        let wire_all = fl.bytes + packets * FRAME_OVERHEAD;
        let first = fl.bytes.min(mtu) + FRAME_OVERHEAD;
        let bpc = |r: WireRate| r.den as f64 / r.num as f64; // bytes per cycle
        let mut links = vec![self.hosts[fl.src].link];
        let mut at = self.hosts[fl.src].link.peer;
        let mut switches = 0;
        // DeTail: the switches each hop can reach, and the least summed rate over the hops.
        let mut stage = vec![];
        let mut cut = bpc(links[0].rate);
        while let End::Switch(s, _) = at {
            switches += 1;
            let (a, b) = self.next[s][fl.dst];
            let k = match self.cfg.routing {
                Routing::Ecmp => self.ecmp_choice(s, f, (b - a) as usize),
                Routing::Detail { .. } => 0,
            };
            let l = self.switches[s].ports[usize::from(self.hops[a as usize + k])];
            if stage.is_empty() {
                stage.push(s);
            }
            let mut bw = 0.0;
            let mut next_stage = vec![];
            for &x in &stage {
                let (a, b) = self.next[x][fl.dst];
                for &o in &self.hops[a as usize..b as usize] {
                    let pl = self.switches[x].ports[usize::from(o)];
                    bw += bpc(pl.rate);
                    if let End::Switch(y, _) = pl.peer {
                        if !next_stage.contains(&y) {
                            next_stage.push(y);
                        }
                    }
                }
            }
            cut = cut.min(bw);
            stage = next_stage;
            links.push(l);
            at = l.peer;
        }
        // The first slowest link is the bottleneck: packets before it go one by one at their first
        // packet's pace, after it at their last's.
        let ib = (0..links.len())
            .max_by(|&x, &y| {
                let (a, b) = (links[x].rate, links[y].rate);
                (a.num * b.den).cmp(&(b.num * a.den)).then(y.cmp(&x))
            })
            .expect("a path has links");
        let last = fl.bytes - (packets - 1) * mtu + FRAME_OVERHEAD;
        let bulk = match self.cfg.routing {
            Routing::Ecmp => links[ib].rate.cycles(wire_all),
            Routing::Detail { .. } => (wire_all as f64 / cut).ceil() as u64,
        };
        let before: u64 = links[..ib].iter().map(|l| l.rate.cycles(first)).sum();
        let after: u64 = links[ib + 1..].iter().map(|l| l.rate.cycles(last)).sum();
        bulk + before
            + after
            + links.iter().map(|l| l.prop).sum::<u64>()
            + switches * self.cfg.switch.pipe_latency
    }

    /// The PFC frames a switch sent so far, and its drops: (node, frames, ingress drops, egress
    /// drops), per switch.
    pub fn switch_counts(&self) -> Vec<(usize, u64, u64, u64)> {
        self.switches
            .iter()
            .map(|ns| {
                let s = &ns.sw.stats;
                (
                    ns.node,
                    s.total_pfc_frames(),
                    s.ingress_drops,
                    s.egress_drops + s.shared_drops,
                )
            })
            .collect()
    }
}

/// Per node, its distance in links from the nearest host (hosts 0).
fn tiers(topo: &Topology) -> Vec<usize> {
    let n = topo.nodes.len();
    let adj = topo.ports();
    let mut d = vec![usize::MAX; n];
    let mut q = VecDeque::new();
    for h in topo.hosts() {
        d[h] = 0;
        q.push_back(h);
    }
    while let Some(x) = q.pop_front() {
        for &y in &adj[x] {
            if d[y] == usize::MAX {
                d[y] = d[x] + 1;
                q.push_back(y);
            }
        }
    }
    d.iter()
        .map(|&x| if x == usize::MAX { 0 } else { x })
        .collect()
}

/// Per switch, per destination host, the ports on a shortest path (hosts do not forward).
fn routes(
    topo: &Topology,
    index: &[usize],
    ports: &[Vec<(usize, usize)>],
    switches: &[NetSwitch],
    nh: usize,
) -> (Vec<Vec<(u32, u32)>>, Vec<u8>) {
    let n = topo.nodes.len();
    let mut next = vec![vec![(0u32, 0u32); nh]; switches.len()];
    let mut hops: Vec<u8> = vec![];
    let mut dist = vec![usize::MAX; n];
    let mut q = VecDeque::new();
    for h in topo.hosts() {
        dist.iter_mut().for_each(|d| *d = usize::MAX);
        dist[h] = 0;
        q.clear();
        q.push_back(h);
        while let Some(x) = q.pop_front() {
            if x != h && topo.nodes[x] == NodeKind::Host {
                continue;
            }
            for &(_, y) in &ports[x] {
                if dist[y] == usize::MAX {
                    dist[y] = dist[x] + 1;
                    q.push_back(y);
                }
            }
        }
        for (si, ns) in switches.iter().enumerate() {
            let s = ns.node;
            let a = hops.len() as u32;
            if dist[s] != usize::MAX {
                for (o, &(_, y)) in ports[s].iter().enumerate() {
                    let via_ok = y == h || topo.nodes[y] == NodeKind::Switch;
                    if via_ok && dist[y] != usize::MAX && dist[y] + 1 == dist[s] {
                        hops.push(o as u8);
                    }
                }
            }
            next[si][index[h]] = (a, hops.len() as u32);
        }
    }
    (next, hops)
}
