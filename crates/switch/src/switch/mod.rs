//! The switch around the CaPFC block (`shared/domain.md` sections 1 and 2), cycle by cycle.
//!
//! One cycle is one byte time of the links (8 ns at 1 Gb/s), so a frame of s bytes occupies a link
//! for s + 20 cycles (preamble and inter-frame gap), a pause quantum (512 bit times) is 64 cycles
//! and a PFC frame is 84 ([`PFC_FRAME_BYTES`]: 64 bytes, preamble and gap; 672 bit times). Every
//! congestion decision is the block's: ingress and egress accept, I, E, D and the PFC frames come
//! from [`crate::block::CapfcTop`], which the switch drives through the same lanes as the RTL's
//! ports.
//!
//! Units, each named after the hardware: [`sender`] (the upstream peers, obeying PFC), the ingress
//! FIFOs and the packet-processing pipeline (here, in [`Switch`]), [`tm`] (the traffic manager's
//! egress queues and per-port schedulers), and the receivers (deliveries and flow completion, in
//! [`Switch`]). The four flow-control modes of the paper are [`FlowMode`].
//!
//! **Links and PFC frames.** Port i is one full-duplex link to one peer: the peer's transmit side
//! (its [`sender`]) feeds input i, and port i's transmit line carries egress port i's data frames to
//! the peer's receive side. A PFC frame for input i travels to that same peer, so port i's MAC puts
//! it on that line, between two data frames of egress port i (IEEE 802.1Qbb: a frame being sent is
//! never pre-empted). Per port, per cycle t:
//! - `pfc_ready[i]` is high iff the line is free in t: no data or PFC frame is on it, and the
//!   transmitter does not start a data frame in t;
//! - a PFC frame the block had pending in t - 1 (`pfc_valid[i]`, not taken) has priority on a free
//!   line: the MAC keeps the line in t ([`tm::Tm::reserve`]), so the transmitter starts no data
//!   frame and `pfc_ready[i]` is high. (The block's `pfc_valid` of cycle t is known only once the
//!   block has been clocked with t's lanes, the dequeue among them; the MAC decides on what it saw
//!   pending in t - 1. A frame that becomes pending in the very cycle a data frame starts waits for
//!   that frame; a pending frame that is withdrawn in t, D having returned to what was sent, leaves
//!   the line idle for that one cycle.)
//! - when the block's frame is taken (`pfc_valid & pfc_ready`) in t, the line is busy for 84 cycles,
//!   t to t + 83, and the next data frame starts at t + 84 at the earliest;
//! - the frame reaches the sender at t + 84 + `prop_delay` (its last bit, as for data frames) and
//!   takes effect `pfc_response` cycles later (the peer's reaction time, 802.1Q Annex N's HD).
//!
//! The frame carries the block's state in t (the merged D: `pfc_cev`, and per class the pause time,
//! [`crate::block::Outputs::quanta`]); changes of D while the line is busy merge into the pending
//! frame (`docs/microarchitecture-v2.md`, "PFC frames"). The readiness depends only on when frames are
//! on the wire (`busy_until` of the traffic manager), never on which units were looked at, so
//! skipping idle units ([`Switch::exhaustive`]) changes nothing. These are also the delays 802.1Q
//! Annex N counts (a maximum frame at each end, the PFC frame, the cable both ways, the response):
//! see [`scenario::Scenario::auto_headroom`].

pub mod block_v3;
pub mod config;
pub mod error;
pub mod fecn;
pub mod hops;
pub mod hpcc;
pub mod inspect;
pub mod mix;
pub mod pcap;
pub mod qcn;
pub mod scenario;
pub mod sched;
pub mod sender;
pub mod stats;
pub mod tm;

use crate::block::{
    BlockConfig, BlockParams, CapfcTop, Departure, Enqueue, Inputs, Mode, Outputs, Pkt, NPRIO,
};
use scenario::Scenario;
use sender::Sender;
use serde::{Deserialize, Serialize};
use stats::Stats;
use std::collections::VecDeque;
use tm::Tm;

/// Preamble, start delimiter and inter-frame gap, in bytes.
pub const FRAME_OVERHEAD: u64 = 20;

/// A PFC frame on the wire, in bytes (cycles): a minimum-size frame (64 bytes) with its preamble,
/// start delimiter and inter-frame gap, 672 bit times.
pub const PFC_FRAME_BYTES: u64 = 64 + FRAME_OVERHEAD;

/// The largest cycle count a snapshot may carry (2^62): a run restored from it still has 2^62
/// cycles to go before its counters wrap.
const MAX_RESTORED_CYCLE: u64 = 1 << 62;

/// The paper's four flow-control modes (domain.md section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowMode {
    /// D = I; a packet that does not fit its egress queue is dropped.
    PfcWdrop,
    /// D = I; the pipeline stops until the packet at its end fits (no drop, HOL blocking).
    PfcWstop,
    /// CaPFC with Stop-Max; drop at egress MAX.
    CapfcMax,
    /// CaPFC with Stop-Calibrate; drop at egress MAX.
    CapfcCal,
}

impl FlowMode {
    pub const ALL: [FlowMode; 4] = [
        FlowMode::PfcWdrop,
        FlowMode::PfcWstop,
        FlowMode::CapfcMax,
        FlowMode::CapfcCal,
    ];

    pub fn block_mode(self) -> Mode {
        match self {
            FlowMode::PfcWdrop | FlowMode::PfcWstop => Mode::PfcOnly,
            FlowMode::CapfcMax => Mode::StopMax,
            FlowMode::CapfcCal => Mode::StopCal,
        }
    }

    /// The pipeline stops instead of dropping.
    pub fn stops(self) -> bool {
        self == FlowMode::PfcWstop
    }

    pub fn name(self) -> &'static str {
        match self {
            FlowMode::PfcWdrop => "PFC_wdrop",
            FlowMode::PfcWstop => "PFC_wstop",
            FlowMode::CapfcMax => "CaPFC_max",
            FlowMode::CapfcCal => "CaPFC_cal",
        }
    }

    pub fn parse(s: &str) -> Option<FlowMode> {
        FlowMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
    }
}

/// Where the switch's congestion decisions come from (`capfc run --dut`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DutKind {
    /// The Rust block model.
    Model,
    /// The Verilated RTL of the block.
    Rtl,
    /// Both, compared every cycle (outputs and every register); the first difference stops the run.
    Both,
}

impl DutKind {
    pub fn parse(s: &str) -> Option<DutKind> {
        match s {
            "model" => Some(DutKind::Model),
            "rtl" => Some(DutKind::Rtl),
            "both" => Some(DutKind::Both),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            DutKind::Model => "model",
            DutKind::Rtl => "rtl",
            DutKind::Both => "both",
        }
    }
}

/// Which micro-architecture of the block the switch has (`capfc run --block`).
pub use crate::block::BlockKind;

use error::{under, SnapshotError};
pub use error::{DutError, PokeError, RestoreError, SwitchError, TraceError};

/// The block behind the switch.
#[derive(Default)]
enum Dut {
    /// No block: only while a switch is being restored from a snapshot.
    #[default]
    Detached,
    Model(Box<CapfcTop>),
    #[cfg(feature = "rtl")]
    Rtl(Box<crate::dut::RtlBlock>, Vec<u32>),
    #[cfg(feature = "rtl")]
    Both(Box<crate::cosim::Pair>),
    /// The v3 block (model, RTL or both) and its lanes.
    V3(Box<block_v3::BlockV3>),
}

/// Why the v3 block's registers are not packed in v2's layout: they are read by name.
const V3_BY_NAME: &str =
    "the v3 block's registers are read by name (Switch::block_view_v3), not in v2's packed layout";

impl Dut {
    fn new(kind: DutKind, params: &BlockParams) -> Result<Dut, SwitchError> {
        match kind {
            DutKind::Model => Ok(Dut::Model(Box::new(CapfcTop::new(*params)?))),
            #[cfg(feature = "rtl")]
            DutKind::Rtl => {
                let r = crate::dut::RtlBlock::new(params).map_err(DutError::from)?;
                let words = vec![0; r.layouts.outputs.words];
                Ok(Dut::Rtl(Box::new(r), words))
            }
            #[cfg(feature = "rtl")]
            DutKind::Both => Ok(Dut::Both(Box::new(
                crate::cosim::Pair::new(params, None, 8).map_err(DutError::from)?,
            ))),
            #[cfg(not(feature = "rtl"))]
            _ => Err(DutError::NoRtl.into()),
        }
    }

    /// One block cycle. `Err` describes the first difference of a `Both`.
    fn tick(&mut self, inp: &Inputs, out: &mut Outputs) -> Result<(), DutError> {
        match self {
            Dut::Detached => Err(DutError::Detached),
            Dut::Model(m) => {
                m.tick_cycle(inp, out);
                Ok(())
            }
            #[cfg(feature = "rtl")]
            Dut::Rtl(r, words) => {
                r.step(inp, words);
                crate::block::pack::unpack_outputs(&r.layouts.outputs, words, out);
                Ok(())
            }
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => pair.step(inp, out).map_err(|d| {
                DutError::Mismatch(Box::new(d.into_mismatch(String::new(), String::new())))
            }),
            Dut::V3(b) => b.tick(inp.pfc_ready, out),
        }
    }
}

/// The registers of the block behind a switch, in a [`Snapshot`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockState {
    /// The model's registers (`--dut model` and `--dut both`).
    Model(Box<CapfcTop>),
    /// The RTL's architectural registers, packed as `signals::STATE_SIGNALS` (`--dut rtl`).
    Rtl(Vec<u32>),
    /// The v3 block's registers and lanes (`--block v3`).
    V3(Box<block_v3::V3State>),
}

impl Dut {
    fn state(&self) -> BlockState {
        match self {
            Dut::Detached => unreachable!("a switch always has its block outside restore"),
            Dut::Model(m) => BlockState::Model(m.clone()),
            #[cfg(feature = "rtl")]
            Dut::Rtl(r, _) => {
                let mut w = vec![0; r.layouts.state.words];
                r.read_state(&mut w);
                BlockState::Rtl(w)
            }
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => BlockState::Model(Box::new(pair.model.clone())),
            Dut::V3(b) => BlockState::V3(Box::new(b.state())),
        }
    }

    /// Load registers saved by [`Dut::state`]; `block_cycle` is the block's cycle count then (the
    /// lockstep pair reports cycles from it).
    #[cfg_attr(not(feature = "rtl"), allow(unused_variables))]
    fn set_state(
        &mut self,
        st: &BlockState,
        block_cycle: u64,
        params: &BlockParams,
    ) -> Result<(), RestoreError> {
        match (self, st) {
            (Dut::Detached, _) => unreachable!("a switch always has its block outside restore"),
            (Dut::V3(b), BlockState::V3(st)) => {
                if st.cycle() != block_cycle {
                    return Err(RestoreError::V3Cycle {
                        v3: st.cycle(),
                        switch: block_cycle,
                    });
                }
                let p = *params;
                b.set_state(st, &p)
            }
            (Dut::V3(_), _) => Err(RestoreError::BlockKind { block: "v2" }),
            (_, BlockState::V3(_)) => Err(RestoreError::BlockKind { block: "v3" }),
            (Dut::Model(m), BlockState::Model(t)) => {
                if m.params != t.params {
                    return Err(RestoreError::Params {
                        v3: false,
                        snapshot: Box::new(t.params),
                        this: Box::new(m.params),
                    });
                }
                **m = (**t).clone();
                Ok(())
            }
            (Dut::Model(_), BlockState::Rtl(_)) => Err(RestoreError::RtlRegisters { only: false }),
            #[cfg(feature = "rtl")]
            (Dut::Rtl(r, _), st) => {
                let w = match st {
                    BlockState::Rtl(w) => w.clone(),
                    BlockState::Model(t) => {
                        let mut w = vec![0; r.layouts.state.words];
                        crate::block::pack::pack_state(t, &r.layouts.state, &mut w);
                        w
                    }
                    BlockState::V3(_) => return Err(RestoreError::BlockKind { block: "v3" }),
                };
                if w.len() != r.layouts.state.words {
                    return Err(RestoreError::StateWords {
                        v3: false,
                        got: w.len(),
                        want: r.layouts.state.words,
                    });
                }
                r.write_state(&w);
                Ok(())
            }
            #[cfg(feature = "rtl")]
            (Dut::Both(pair), BlockState::Model(t)) => {
                pair.restore(t, block_cycle)
                    .map_err(|e| RestoreError::Params {
                        v3: false,
                        snapshot: Box::new(e.snapshot),
                        this: Box::new(e.this),
                    })
            }
            #[cfg(feature = "rtl")]
            (Dut::Both(_), BlockState::Rtl(_)) => Err(RestoreError::RtlRegisters { only: true }),
        }
    }

    /// The model's [`CapfcTop::quiescent`] (both sides of a lockstep pair are at the same state);
    /// never for the RTL alone, whose registers are not read every cycle.
    fn quiescent(&self) -> bool {
        match self {
            Dut::Model(m) => m.quiescent(),
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => pair.model.quiescent(),
            _ => false,
        }
    }

    /// The architectural registers, packed in the RTL's layout, whichever side holds them.
    fn state_words(&self, layouts: &crate::block::pack::Layouts, buf: &mut Vec<u32>) {
        buf.resize(layouts.state.words, 0);
        match self {
            Dut::Detached => unreachable!("a switch always has its block outside restore"),
            Dut::Model(m) => crate::block::pack::pack_state(m, &layouts.state, buf),
            #[cfg(feature = "rtl")]
            Dut::Rtl(r, _) => r.read_state(buf),
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => crate::block::pack::pack_state(&pair.model, &layouts.state, buf),
            Dut::V3(_) => unreachable!("{V3_BY_NAME}"),
        }
    }
}

/// The whole state of a switch at a cycle boundary: `capfc step`'s `snapshot`, `restore` and `back`.
/// Restoring it and stepping gives exactly what stepping from where it was taken gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The switch's cycle when taken.
    pub cycle: u64,
    /// The block's own cycle count (configuration writes included).
    pub block_cycle: u64,
    /// Everything but the block's registers.
    pub switch: serde_json::Value,
    pub block: BlockState,
}

/// A snapshot through JSON: the form of the `snapshot` field of the files `capfc step`'s
/// `snapshot FILE.json` writes and `restore FILE.json` reads (beside the file's format tag,
/// scenario, mode and block side). (Plain functions, not serde's generic calls at each use:
/// serde's code for the whole state is then compiled once, here, not again in every crate and
/// test that reads or writes one.)
impl Snapshot {
    /// The snapshot as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a snapshot always serializes")
    }

    /// The snapshot as a JSON value (to look into or to edit).
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a snapshot always serializes")
    }

    /// A snapshot from JSON text; [`Switch::restore`] then checks it fits a switch.
    pub fn from_json(text: &str) -> Result<Snapshot, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// A snapshot from a JSON value.
    pub fn from_json_value(v: serde_json::Value) -> Result<Snapshot, serde_json::Error> {
        serde_json::from_value(v)
    }
}

/// Samples of the switch's state over time, for plots.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Trace {
    /// Sample every `every` cycles.
    pub every: u64,
    /// Cycle of each sample.
    pub cycle: Vec<u64>,
    /// Per sample, per output port: bytes queued at egress (all priorities).
    pub egress: Vec<Vec<u64>>,
    /// Per sample, per input port: bytes in the ingress FIFO.
    pub ingress: Vec<Vec<u64>>,
    /// Per sample, per input port: the priorities the sender has paused (bit p).
    pub paused: Vec<Vec<u8>>,
}

/// A packet inside the switch model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Packet {
    pub flow: u32,
    pub src: u8,
    pub dst: u8,
    pub prio: u8,
    pub size: u16,
    /// With a transport (`crate::net::transport`): a data segment's first byte, or an ACK's
    /// cumulative acknowledgement. 0 for the open-loop senders.
    #[serde(default)]
    pub seq: u32,
    /// [`Packet::ACK`], [`Packet::CE`], [`Packet::ECE`].
    #[serde(default)]
    pub flags: u8,
}

impl Packet {
    /// An acknowledgement (of flow `flow`, travelling back to its source).
    pub const ACK: u8 = 1;
    /// Congestion experienced: an egress queue held more than the ECN threshold when it arrived.
    pub const CE: u8 = 2;
    /// ECN echo: the ACK of a segment that arrived with CE.
    pub const ECE: u8 = 4;

    pub fn is_ack(&self) -> bool {
        self.flags & Self::ACK != 0
    }
}

/// A switch inside a network (`crate::net::sim`): its ports face links that the network owns.
/// Frames arrive through [`Switch::inject`]; what the switch puts on its output links (`down`),
/// the PFC frames its MACs send and the packets it drops are taken by the network after each cycle
/// ([`Switch::take_down`], [`Switch::take_pfc`], [`Switch::take_lost`]). The switch has no senders
/// or receivers of its own.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Attached {
    /// Per port: the propagation delay of its link, cycles.
    pub prop: Vec<u64>,
    /// Bytes handed to the network on the output links.
    pub handed_out: u64,
    /// Bytes this switch dropped.
    pub lost_bytes: u64,
    /// Packets dropped and not yet taken by the network: (cycle, packet).
    lost: Vec<(u64, Packet)>,
    /// The block was clocked with idle inputs last and was quiescent before and after
    /// ([`CapfcTop::quiescent`]): while its inputs stay idle, clocking it changes nothing that an
    /// output shows, and its outputs are those of the last cycle.
    block_idle: bool,
}

type ModelWaveFile = crate::wave::ModelWave<std::io::BufWriter<std::fs::File>>;

/// The block of a switch for `sc`: the parameter set of `sc.ports` ports
/// ([`BlockParams::with_ports`]: its NL too), with the scenario's cell size.
pub fn block_params(sc: &Scenario) -> BlockParams {
    BlockParams {
        cell_log2: sc.cell.map_or(0, u32::trailing_zeros),
        ..BlockParams::with_ports(sc.ports)
    }
}

/// The switch, its peers and the links between them.
///
/// Serializable but for its block, whose registers a [`Snapshot`] carries separately (they may be
/// the RTL's).
#[derive(Serialize, Deserialize)]
pub struct Switch {
    pub sc: Scenario,
    pub mode: FlowMode,
    pub dut_kind: DutKind,
    /// The block's micro-architecture.
    #[serde(default)]
    pub block_kind: BlockKind,
    #[serde(skip)]
    block: Dut,
    /// The first model/RTL difference of a `--dut both` run; the run stops there.
    pub mismatch: Option<String>,
    /// Every cycle's block inputs, configuration writes included, when recording (golden sets).
    #[serde(skip)]
    pub recorded: Option<Vec<Inputs>>,
    /// Occupancies and pauses sampled every so many cycles, when tracing (plots).
    #[serde(skip)]
    pub trace: Option<Trace>,
    /// Every PFC frame as its sender obeys it, when logging (`capfc run --hpcc`: `pfc.txt`).
    #[serde(skip)]
    pub pfc_log: Option<Vec<hpcc::PfcEvent>>,
    /// The frames on the chosen ports' wires, when capturing (`capfc run --pcap`).
    #[serde(skip)]
    pub capture: Option<crate::switch::pcap::Capture>,
    /// The model's waveform, while one is being written ([`Switch::start_wave`]).
    #[serde(skip)]
    wave: Option<Box<ModelWaveFile>>,
    inp: Inputs,
    out: Outputs,
    /// Cycles the block has been clocked, the configuration writes included.
    pub block_cycle: u64,
    pub now: u64,
    senders: Vec<Sender>,
    /// Frames on the links into the switch: (arrival cycle, packet), per port.
    up: Vec<VecDeque<(u64, Packet)>>,
    /// The ingress FIFO of each input port, in arrival order.
    pub ingress: Vec<VecDeque<Packet>>,
    /// The packet-processing pipeline: (cycle it reaches the end, packet).
    pub pipe: VecDeque<(u64, Packet)>,
    next_admit: u64,
    rr: usize,
    /// PFC_wstop: the packet at the end of the pipeline did not fit last cycle.
    pub stalled: bool,
    pub tm: Tm,
    /// Frames on the links out of the switch, per port.
    down: Vec<VecDeque<(u64, Packet)>>,
    /// PFC frames on their way back to the senders, taken by port i's MAC: (cycle the sender obeys
    /// it, port, cev, quanta).
    pfc: VecDeque<(u64, usize, u8, [u16; NPRIO])>,
    /// Under `pause_refresh = false` (empty otherwise): per port, the classes the last frame the
    /// MAC took from the block paused (its XOFF), against which a class is paused anew.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    announced: Vec<u8>,
    remaining: Vec<u64>,
    delivered: Vec<u64>,
    lost: Vec<u64>,
    /// Bit i: the ingress FIFO of port i holds a packet.
    ingress_busy: u128,
    /// No sender can act before this cycle (the least of their wake cycles).
    sender_wake: u64,
    /// Lost packets waiting for their retransmission timeout: (cycle, flow, bytes), in time order.
    retx: VecDeque<(u64, u32, u16)>,
    /// Bytes handed back to each flow's sender for retransmission.
    resent: Vec<u64>,
    /// Flows completed (every byte delivered or lost).
    flows_done: usize,
    /// The earliest frame arrival on the links into the switch, and out of it (u64::MAX: none).
    up_next: u64,
    down_next: u64,
    /// Look at every sender, transmitter and link every cycle instead of only when they can act
    /// (the tests' check that skipping idle ports changes nothing).
    #[serde(skip)]
    pub exhaustive: bool,
    /// Let the v3 model skip idle cycles (`block_v3::IdleSkip`; always
    /// in a network, unless `exhaustive`). Its registers then show the last cycle it clocked
    /// while it skips, so nothing that reads them (a snapshot, the REPL's views) sets this:
    /// `capfc run` does.
    #[serde(skip)]
    pub skip_idle_block: bool,
    /// With v3's idle skipping: check each periodic state the block takes without comparing it
    /// with a state 8 cycles on (once its state has been found periodic since the last
    /// configuration write) by that comparison on a copy, a wrong one stopping the run as a
    /// mismatch (tests; `Switch::v3_idle_audits` counts them)
    pub audit_idle_skip: bool,
    /// Scratch: this cycle's arrivals (input port, packet).
    #[serde(skip)]
    arrived: Vec<(usize, Packet)>,
    pub stats: Stats,
    /// Inside a network: the links are the network's (see [`Attached`]).
    #[serde(default)]
    pub attached: Option<Attached>,
    /// Where each packet's time goes inside the switch (`capfc net --stragglers`); None: not
    /// traced.
    #[serde(skip)]
    pub hop_trace: Option<Box<hops::HopTrace>>,
}

impl Switch {
    /// A switch for `sc` in `mode` with the block (v3), configured (its block's registers
    /// written) and at cycle 0.
    pub fn new(sc: &Scenario, mode: FlowMode, dut: DutKind) -> Result<Self, SwitchError> {
        Self::build(sc, mode, dut, BlockKind::V3, false)
    }

    /// Like [`Switch::new`] with the previous block, v2, the test subject
    /// (`docs/microarchitecture-v2.md`).
    pub fn new_v2(sc: &Scenario, mode: FlowMode, dut: DutKind) -> Result<Self, SwitchError> {
        Self::build(sc, mode, dut, BlockKind::V2, false)
    }

    /// Like [`Switch::new`], with the block of micro-architecture `block`.
    pub fn with_block(
        sc: &Scenario,
        mode: FlowMode,
        dut: DutKind,
        block: BlockKind,
    ) -> Result<Self, SwitchError> {
        Self::build(sc, mode, dut, block, false)
    }

    /// Like [`Switch::new_v2`] with the model, recording every cycle's block inputs in `recorded`.
    pub fn new_recorded_v2(sc: &Scenario, mode: FlowMode) -> Result<Self, SwitchError> {
        Self::build(sc, mode, DutKind::Model, BlockKind::V2, true)
    }

    /// The switch with the block (v3) model, every cycle of the block clocked and its inputs
    /// recorded from its reset on ([`Switch::recorded_v3`]): a golden set from the switch.
    pub fn new_recorded_v3(sc: &Scenario, mode: FlowMode) -> Result<Self, SwitchError> {
        Self::build(sc, mode, DutKind::Model, BlockKind::V3, true)
    }

    /// The v3 block's inputs, every cycle from its reset, recorded so far (taken).
    pub fn recorded_v3(&mut self) -> Option<Vec<crate::v3::top::TopIn>> {
        match &mut self.block {
            Dut::V3(b) => b.recorded.take(),
            _ => None,
        }
    }

    fn build(
        sc: &Scenario,
        mode: FlowMode,
        dut: DutKind,
        kind: BlockKind,
        record: bool,
    ) -> Result<Self, SwitchError> {
        sc.validate()?;
        let params = block_params(sc);
        let cfg = sc.block_config(&params, mode.block_mode());
        cfg.validate(&params)?;
        if kind == BlockKind::V3 {
            // (v3 resets and configures itself: a reset cycle, then the writes)
            let b = if record {
                block_v3::BlockV3::new_recorded(dut, &params, &cfg)?
            } else {
                block_v3::BlockV3::new(dut, &params, &cfg)?
            };
            let writes = b.cycles();
            return Ok(Self::assemble(
                sc,
                mode,
                dut,
                kind,
                Dut::V3(Box::new(b)),
                None,
                writes,
            ));
        }
        let mut block = Dut::new(dut, &params)?;
        // Configuration writes happen before traffic (they take one cycle each in hardware; the
        // switch's clock starts after them).
        let (mut inp, mut out) = (Inputs::idle(sc.ports), Outputs::new(sc.ports));
        let mut recorded = record.then(Vec::new);
        let mut writes = 0;
        for (a, d) in BlockConfig::register_writes(&cfg) {
            writes += 1;
            inp.clear();
            inp.cfg = Some((a, d));
            block.tick(&inp, &mut out)?;
            if let Some(r) = recorded.as_mut() {
                r.push(inp.clone());
            }
        }
        Ok(Self::assemble(sc, mode, dut, kind, block, recorded, writes))
    }

    /// The switch around `block`, configured in `writes` cycles, at cycle 0.
    fn assemble(
        sc: &Scenario,
        mode: FlowMode,
        dut: DutKind,
        kind: BlockKind,
        block: Dut,
        recorded: Option<Vec<Inputs>>,
        writes: u64,
    ) -> Switch {
        let nf = sc.flows.len();
        let senders = (0..sc.ports).map(|i| Sender::for_scenario(i, sc)).collect();
        Switch {
            sc: sc.clone(),
            mode,
            dut_kind: dut,
            block_kind: kind,
            block,
            mismatch: None,
            recorded,
            trace: None,
            wave: None,
            capture: None,
            pfc_log: None,
            inp: Inputs::idle(sc.ports),
            out: Outputs::new(sc.ports),
            block_cycle: writes,
            now: 0,
            senders,
            up: vec![VecDeque::new(); sc.ports],
            ingress: vec![VecDeque::new(); sc.ports],
            pipe: VecDeque::new(),
            next_admit: 0,
            rr: 0,
            stalled: false,
            tm: Tm::for_scenario(sc),
            down: vec![VecDeque::new(); sc.ports],
            pfc: VecDeque::new(),
            announced: if sc.pause_refresh {
                vec![]
            } else {
                vec![0; sc.ports]
            },
            remaining: sc.flows.iter().map(|f| f.bytes).collect(),
            delivered: vec![0; nf],
            lost: vec![0; nf],
            flows_done: 0,
            retx: VecDeque::new(),
            resent: vec![0; nf],
            ingress_busy: 0,
            sender_wake: 0,
            up_next: u64::MAX,
            down_next: u64::MAX,
            arrived: Vec::with_capacity(sc.ports),
            exhaustive: false,
            skip_idle_block: false,
            audit_idle_skip: false,
            stats: Stats::new(sc.ports, nf),
            attached: None,
            hop_trace: None,
        }
    }

    /// Every flow has all its bytes delivered or lost.
    pub fn done(&self) -> bool {
        self.flows_done == self.sc.flows.len()
    }

    /// Run until every flow is done or the scenario's cycle limit.
    pub fn run(&mut self) {
        while !self.done() && self.now < self.sc.max_cycles && self.mismatch.is_none() {
            self.tick_cycle();
        }
        self.stats.cycles = self.now;
        self.sync_paused();
        self.stats.finish(&self.sc, &self.delivered, &self.lost);
    }

    /// One cycle of the whole switch.
    /// One cycle of the whole switch, unit by unit in the order the hardware sees them: the links
    /// and the senders before the block is clocked (its lanes), the block, then what its outputs
    /// decide (admission of arrivals, enqueue, PFC frames taken), then the receivers.
    pub fn tick_cycle(&mut self) {
        let t = self.now;
        self.inp.clear();
        let mut arrived = std::mem::take(&mut self.arrived);
        arrived.clear();
        self.links_in(t, &mut arrived);
        self.retransmit(t);
        self.pfc_at_senders(t);
        self.senders_send(t);
        self.admit(t);
        let (end, pool_full) = self.pipeline_end(t);
        self.egress_pauses(t);
        let reserved = self.macs_reserve(t);
        self.transmitters(t);
        // A MAC takes a PFC frame only on a free line: not while a frame is on it, nor in the cycle
        // its transmitter starts one.
        self.inp.pfc_ready &= !self.tm.busy_lines(t) | reserved;
        self.offer_v3(&mut arrived);
        self.clock_block();
        self.ingress_accept(t, &arrived);
        self.arrived = arrived;
        self.pipeline_enqueue(t, end, pool_full);
        self.macs_send(t);
        self.receivers(t);
        self.sample_trace(t);
        #[cfg(debug_assertions)]
        self.check_conservation();
        self.now += 1;
    }

    fn links_in(&mut self, t: u64, arrived: &mut Vec<(usize, Packet)>) {
        // Frames completing their arrival on the ingress links (the links are looked at only on a
        // cycle one of them has a frame arriving).
        if self.up_next <= t || self.exhaustive {
            self.up_next = u64::MAX;
            for (i, link) in self.up.iter_mut().enumerate() {
                if let Some(&(a, pkt)) = link.front() {
                    if a <= t {
                        link.pop_front();
                        self.inp.arr[i] = Some(Pkt {
                            prio: pkt.prio,
                            size: pkt.size,
                        });
                        arrived.push((i, pkt));
                        if let Some(tr) = &mut self.hop_trace {
                            tr.arriving[i].push_back(a);
                        }
                    }
                }
                if let Some(&(a, _)) = link.front() {
                    self.up_next = self.up_next.min(a);
                }
            }
        }
    }

    fn retransmit(&mut self, t: u64) {
        // Retransmission timeouts: the lost bytes go back to their sender.
        while self.retx.front().is_some_and(|r| r.0 <= t) {
            let (_, f, size) = self.retx.pop_front().unwrap();
            let f = f as usize;
            let fl = &self.sc.flows[f];
            if self.remaining[f] == 0 {
                self.senders[fl.src].reactivate(f, fl.prio, t);
                self.sender_wake = self.sender_wake.min(t);
            }
            self.remaining[f] += u64::from(size);
            self.resent[f] += u64::from(size);
        }
    }

    fn pfc_at_senders(&mut self, t: u64) {
        // PFC frames taking effect at the senders.
        while self.pfc.front().is_some_and(|f| f.0 <= t) {
            let (_, i, cev, q) = self.pfc.pop_front().unwrap();
            self.senders[i].apply_pfc(t, cev, &q);
            if let Some(log) = &mut self.pfc_log {
                log.push((t, i, cev, q));
            }
            self.sender_wake = self.sender_wake.min(self.senders[i].wake());
        }
    }

    fn senders_send(&mut self, t: u64) {
        let (np, prop) = (self.sc.ports, self.sc.prop_delay);
        // The senders start frames (only those awake; none are looked at before the first wakes).
        if t >= self.sender_wake || self.exhaustive {
            let mut next = u64::MAX;
            for i in 0..np {
                if t >= self.senders[i].wake() || self.exhaustive {
                    let r =
                        self.senders[i].tick(t, &self.sc.flows, &mut self.remaining, self.sc.mtu);
                    if let Some(pkt) = r {
                        let wire = u64::from(pkt.size) + FRAME_OVERHEAD;
                        self.up[i].push_back((t + wire + prop, pkt));
                        if let Some(c) = &mut self.capture {
                            let class = &self.sc.flows[pkt.flow as usize].class;
                            let dport = hpcc::dport_of_class(class);
                            c.data(t, i, crate::switch::pcap::Dir::ToSwitch, pkt, dport);
                        }
                        self.up_next = self.up_next.min(t + wire + prop);
                        self.stats.sent_bytes += u64::from(pkt.size);
                    }
                }
                next = next.min(self.senders[i].wake());
            }
            self.sender_wake = next;
        }
    }

    fn admit(&mut self, t: u64) {
        let (np, latency, interval) = (self.sc.ports, self.sc.pipe_latency, self.sc.pipe_interval);
        // Admission into the pipeline: round robin over input ports, one packet per interval.
        // The first non-empty FIFO at or after the pointer, from the mask of non-empty ones.
        if !self.stalled && t >= self.next_admit && self.ingress_busy != 0 {
            let m = self.ingress_busy;
            let at_or_after = m & (u128::MAX << self.rr);
            let i = if at_or_after != 0 { at_or_after } else { m }.trailing_zeros() as usize;
            let pkt = self.ingress[i]
                .pop_front()
                .expect("the mask says non-empty");
            if self.ingress[i].is_empty() {
                self.ingress_busy &= !(1u128 << i);
            }
            self.inp.dep = Some(Departure {
                port: i as u8,
                prio: pkt.prio,
                size: pkt.size,
            });
            self.pipe.push_back((t + latency, pkt));
            if let Some(tr) = &mut self.hop_trace {
                let a = tr.ingress[i].pop_front().expect("traced ingress");
                tr.pipe.push_back((a, t));
            }
            self.next_admit = t + interval;
            self.rr = (i + 1) % np;
        }
    }

    fn pipeline_end(&mut self, t: u64) -> (Option<Packet>, bool) {
        // The end of the pipeline asks for its egress queue.
        let end = self.pipe.front().filter(|(e, _)| *e <= t).map(|&(_, p)| p);
        // A shared-memory buffer's port and pool caps are checked first (tm.rs): a packet they
        // refuse is not presented, so it does not fit.
        let pool_full = end.is_some_and(|p| !self.tm.shared_admits(&p));
        if let Some(pkt) = end.filter(|_| !pool_full) {
            self.inp.enq = Some(Enqueue {
                oport: pkt.dst,
                prio: pkt.prio,
                iport: pkt.src,
                size: pkt.size,
            });
        }
        (end, pool_full)
    }

    fn egress_pauses(&mut self, t: u64) {
        // Downstream receivers pause egress ports.
        for e in &self.sc.egress_pauses {
            if e.start == t {
                self.tm.pause(e.port, usize::from(e.prio), t + e.cycles);
            }
        }
    }

    fn macs_reserve(&mut self, t: u64) -> u128 {
        // The MACs: a PFC frame pending since the last cycle keeps a free line for itself (see the
        // module doc), so the transmitter starts no data frame there this cycle.
        let mut reserved = 0u128;
        let mut v = self.out.pfc_valid;
        while v != 0 {
            let i = v.trailing_zeros() as usize;
            v &= v - 1;
            if self.tm.line_free(i, t) {
                self.tm.reserve(i, t);
                reserved |= 1u128 << i;
            }
        }
        reserved
    }

    fn transmitters(&mut self, t: u64) {
        let (np, prop) = (self.sc.ports, self.sc.prop_delay);
        // Egress ports start frames.
        let tm_awake = t >= self.tm.wake_min() || self.exhaustive;
        let mut next = u64::MAX;
        for o in 0..np {
            if !tm_awake {
                break;
            }
            if t < self.tm.wake(o) && !self.exhaustive {
                next = next.min(self.tm.wake(o));
                continue;
            }
            let started = self.tm.start(o, t);
            next = next.min(self.tm.wake(o));
            if let Some(pkt) = started {
                self.inp.deq[o] = Some(Pkt {
                    prio: pkt.prio,
                    size: pkt.size,
                });
                let wire = self.tm.wire(o, u64::from(pkt.size) + FRAME_OVERHEAD);
                let prop = self.attached.as_ref().map_or(prop, |a| a.prop[o]);
                if let Some(tr) = &mut self.hop_trace {
                    let q = o * NPRIO + usize::from(pkt.prio);
                    let (a, adm, enq, p0) = tr.egress[q].pop_front().expect("traced egress");
                    if !pkt.is_ack() {
                        let paused = tr.paused_total(q, t) - p0;
                        tr.hops.push(hops::Hop {
                            flow: pkt.flow,
                            seq: pkt.seq,
                            ack: false,
                            in_port: pkt.src,
                            out_port: o as u8,
                            arrived: a,
                            ingress: adm - a,
                            pipeline: enq - adm,
                            stopped: (enq - adm).saturating_sub(self.sc.pipe_latency),
                            egress: t - enq,
                            paused,
                            serialization: wire,
                            propagation: prop,
                        });
                    }
                }
                self.down[o].push_back((t + wire + prop, pkt));
                if let Some(c) = &mut self.capture {
                    // (a switch in a network has no flows of its own: the network captures)
                    let dport = self
                        .sc
                        .flows
                        .get(pkt.flow as usize)
                        .map_or(hpcc::DPORT_NORMAL, |f| hpcc::dport_of_class(&f.class));
                    c.data(t, o, crate::switch::pcap::Dir::ToHost, pkt, dport);
                }
                self.down_next = self.down_next.min(t + wire + prop);
            }
        }
        if tm_awake {
            self.tm.set_wake_min(next);
        }
    }

    fn clock_block(&mut self) {
        let idle_in = self.attached.is_some() && !self.exhaustive && self.inp.is_idle();
        if idle_in
            && self.attached.as_ref().is_some_and(|a| a.block_idle)
            && self.block_wake() > self.now
            && self.inp.pfc_ready & self.out.pfc_valid == 0
        {
            // A fixed point under idle inputs: the cycle would change nothing (the outputs too are
            // those of the last, idle, cycle; with v3, a PFC frame may wait for its line, and the
            // line's readiness then ends the fixed point). With v3 it answers nothing: the
            // answers of the last cycle clocked (an accept may end the cycle before a fixed
            // point) were acted on in it.
            if let Dut::V3(b) = &mut self.block {
                b.answers.clear();
            }
            return;
        }
        // Quiescent before this cycle too: its outputs are then the fixed point's (a cycle that
        // takes a frame may end quiescent, but its outputs still show the frame).
        let was_quiescent = idle_in && self.block.quiescent();
        if let Dut::V3(b) = &mut self.block {
            // (v3's state is periodic, not still, under idle inputs: the block skips idle
            // cycles itself, `block_v3::IdleSkip`)
            b.now = self.now;
            // (not while its waveform is written: that needs every cycle clocked)
            if (self.attached.is_some() || self.skip_idle_block) && !self.exhaustive && !b.tracing()
            {
                b.allow_idle_skip();
                b.audit_idle_skip = self.audit_idle_skip;
            }
        }
        if self.wave.is_some() {
            self.wave_edge(true);
        }
        if let Err(m) = self.block.tick(&self.inp, &mut self.out) {
            self.mismatch = Some(m.to_string());
        }
        if self.wave.is_some() {
            self.wave_edge(false);
        }
        self.block_cycle += 1;
        if let Some(r) = self.recorded.as_mut() {
            r.push(self.inp.clone());
        }
        if self.attached.is_some() {
            let q = match &self.block {
                Dut::V3(b) => b.still(),
                _ => was_quiescent && self.block.quiescent(),
            };
            if let Some(a) = &mut self.attached {
                a.block_idle = q;
            }
        }
    }

    /// With the v3 block: this cycle's events offered to its lanes (the arrivals leave
    /// `arrived`: they are answered later); the enqueue only if the last one is answered.
    fn offer_v3(&mut self, arrived: &mut Vec<(usize, Packet)>) {
        let Dut::V3(b) = &mut self.block else {
            return;
        };
        use crate::v3::lanes::Lane;
        use block_v3::Tag;
        let mut r = Ok(());
        for (i, pkt) in arrived.drain(..) {
            let lane = Lane::Arrive {
                port: i,
                prio: pkt.prio.into(),
                size: pkt.size.into(),
            };
            r = r.and(b.offer(lane, Tag::Arrival(pkt)));
        }
        if let Some(d) = self.inp.dep {
            let lane = Lane::Depart {
                port: d.port.into(),
                prio: d.prio.into(),
                size: d.size.into(),
            };
            r = r.and(b.offer(lane, Tag::Removal));
        }
        if let Some(e) = self.inp.enq.filter(|_| !b.enq_pending) {
            let lane = Lane::Enqueue {
                oport: e.oport.into(),
                prio: e.prio.into(),
                iport: e.iport.into(),
                size: e.size.into(),
            };
            r = r.and(b.offer(lane, Tag::Enqueue));
        }
        for (o, d) in self.inp.deq.iter().enumerate() {
            if let Some(d) = d {
                let lane = Lane::Dequeue {
                    oport: o,
                    prio: d.prio.into(),
                    size: d.size.into(),
                };
                r = r.and(b.offer(lane, Tag::Removal));
            }
        }
        if let Err(e) = r {
            self.mismatch
                .get_or_insert(format!("[switch] v3 lanes: {e}"));
        }
    }

    fn ingress_accept(&mut self, t: u64, arrived: &[(usize, Packet)]) {
        if let Dut::V3(b) = &mut self.block {
            // the arrivals answered in this cycle (taken four cycles ago)
            let answers = std::mem::take(&mut b.answers);
            for a in &answers {
                if let crate::v3::lanes::Answer::Accept {
                    lane: crate::v3::lanes::Lane::Arrive { port, .. },
                    tag: block_v3::Tag::Arrival(pkt),
                    accepted,
                } = *a
                {
                    if let Some(tr) = &mut self.hop_trace {
                        let a = tr.arriving[port].pop_front().expect("traced arrival");
                        if accepted {
                            tr.ingress[port].push_back(a);
                        }
                    }
                    if accepted {
                        self.ingress[port].push_back(pkt);
                        self.ingress_busy |= 1u128 << port;
                    } else {
                        self.stats.ingress_drops += 1;
                        self.lose(t, pkt);
                    }
                }
            }
            if let Dut::V3(b) = &mut self.block {
                b.answers = answers;
            }
            return;
        }
        for &(i, pkt) in arrived {
            if let Some(tr) = &mut self.hop_trace {
                let a = tr.arriving[i].pop_front().expect("traced arrival");
                if self.out.arr_accept >> i & 1 == 1 {
                    tr.ingress[i].push_back(a);
                }
            }
            if self.out.arr_accept >> i & 1 == 1 {
                self.ingress[i].push_back(pkt);
                self.ingress_busy |= 1u128 << i;
            } else {
                self.stats.ingress_drops += 1;
                self.lose(t, pkt);
            }
        }
    }

    fn pipeline_enqueue(&mut self, t: u64, end: Option<Packet>, pool_full: bool) {
        // v2 answers the enqueue now; v3 when its answer comes (a packet the shared pool refuses
        // is not offered: refused now, as in v2)
        let mut accept = self.out.enq_accept;
        let mut pool_full = pool_full;
        if let Dut::V3(b) = &self.block {
            let answer = b.answers.iter().find_map(|a| match *a {
                crate::v3::lanes::Answer::Accept {
                    lane: crate::v3::lanes::Lane::Enqueue { .. },
                    accepted,
                    ..
                } => Some(accepted),
                _ => None,
            });
            match answer {
                Some(a) => (accept, pool_full) = (a, false),
                None if pool_full && !b.enq_pending => accept = false,
                None => {
                    // waiting for the answer; in PFC_wstop, after a refusal, the pipeline stands
                    // still meanwhile as it does while refused
                    if self.stalled {
                        self.stats.stall_cycles += 1;
                        for e in self.pipe.iter_mut() {
                            e.0 += 1;
                        }
                    }
                    return;
                }
            }
        }
        if let Some(pkt) = end {
            if accept {
                self.pipe.pop_front();
                let q = usize::from(pkt.dst) * NPRIO + usize::from(pkt.prio);
                if let Some(tr) = &mut self.hop_trace {
                    let (a, adm) = tr.pipe.pop_front().expect("traced pipeline");
                    let paused = tr.paused_total(q, t);
                    tr.egress[q].push_back((a, adm, t, paused));
                }
                let occ = self.tm.enqueue(pkt);
                self.stats.note_peak(q, occ);
                self.stalled = false;
            } else if self.mode.stops() {
                // Nothing moves: the packets behind it wait as long as it does.
                self.stalled = true;
                self.stats.stall_cycles += 1;
                for e in self.pipe.iter_mut() {
                    e.0 += 1;
                }
            } else {
                self.pipe.pop_front();
                if let Some(tr) = &mut self.hop_trace {
                    tr.pipe.pop_front();
                }
                if pool_full {
                    self.stats.shared_drops += 1;
                } else {
                    self.stats.egress_drops += 1;
                }
                self.lose(t, pkt);
            }
        }
    }

    fn macs_send(&mut self, t: u64) {
        let (prop, response) = (self.sc.prop_delay, self.sc.pfc_response);
        // The PFC frames the MACs took: on port i's line for 84 cycles, at the sender when their
        // last bit arrives, obeyed `response` cycles later.
        let mut v = self.out.pfc_valid & self.inp.pfc_ready;
        while v != 0 {
            let i = v.trailing_zeros() as usize;
            v &= v - 1;
            let mut cev = self.out.pfc_cev[i];
            if let Some(last) = self.announced.get_mut(i) {
                // No refresh: resumes, and XOFF only for the classes paused anew.
                let d = self.out.pfc_xoff[i];
                let anew = d & !*last;
                *last = d;
                if d & !anew != 0 {
                    self.stats.refreshes_withheld += 1;
                }
                cev = (cev & !d) | anew;
                if cev == 0 {
                    continue; // a refresh alone: taken from the block and dropped
                }
            }
            self.tm.send_control(i, t, PFC_FRAME_BYTES);
            let prop = self.attached.as_ref().map_or(prop, |a| a.prop[i]);
            let q: [u16; NPRIO] = std::array::from_fn(|p| {
                if cev >> p & 1 == 1 {
                    self.out.quanta(i, p)
                } else {
                    0
                }
            });
            if let Some(c) = &mut self.capture {
                c.pfc(t, i, cev, q);
            }
            self.pfc.push_back((
                t + self.tm.wire(i, PFC_FRAME_BYTES) + prop + response,
                i,
                cev,
                q,
            ));
            self.stats.pfc_frames[i] += 1;
        }
    }

    fn receivers(&mut self, t: u64) {
        let np = self.sc.ports;
        // Deliveries at the receivers (inside a network, the network takes the frames).
        if self.attached.is_none() && (self.down_next <= t || self.exhaustive) {
            self.down_next = u64::MAX;
            for o in 0..np {
                while self.down[o].front().is_some_and(|d| d.0 <= t) {
                    let (_, pkt) = self.down[o].pop_front().unwrap();
                    let f = pkt.flow as usize;
                    self.delivered[f] += u64::from(pkt.size);
                    self.stats.delivered_packets += 1;
                    if self.settled(f) {
                        self.complete(f, t);
                    }
                }
                if let Some(&(d, _)) = self.down[o].front() {
                    self.down_next = self.down_next.min(d);
                }
            }
        }
    }

    fn sample_trace(&mut self, t: u64) {
        let np = self.sc.ports;
        if let Some(tr) = self.trace.as_mut() {
            if t.is_multiple_of(tr.every) {
                let bytes = |q: &VecDeque<Packet>| q.iter().map(|p| u64::from(p.size)).sum::<u64>();
                tr.cycle.push(t);
                tr.egress.push(
                    (0..np)
                        .map(|o| {
                            (0..NPRIO)
                                .map(|p| bytes(&self.tm.queues[o * NPRIO + p]))
                                .sum()
                        })
                        .collect(),
                );
                tr.ingress.push(self.ingress.iter().map(bytes).collect());
                tr.paused
                    .push(self.senders.iter().map(|s| s.pause.mask(t)).collect());
            }
        }
    }

    /// The whole state, now (between two cycles).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            cycle: self.now,
            block_cycle: self.block_cycle,
            switch: serde_json::to_value(self).expect("a switch always serializes"),
            block: self.block.state(),
        }
    }

    /// Go back (or forward) to `snap`, keeping this switch's block (model, RTL or both) and its
    /// waveform and recording settings. The snapshot may come from another switch, even one of
    /// another scenario, as long as its block has the same parameters.
    pub fn restore(&mut self, snap: &Snapshot) -> Result<(), RestoreError> {
        // Time jumps: a waveform cannot follow (VCD time only goes forward).
        self.stop_wave()?;
        let mut sw: Switch =
            serde_json::from_value(snap.switch.clone()).map_err(RestoreError::Json)?;
        sw.sc.validate().map_err(RestoreError::Scenario)?;
        sw.check_restored().map_err(RestoreError::Switch)?;
        if snap.cycle != sw.now || snap.block_cycle != sw.block_cycle {
            return Err(RestoreError::Cycles {
                cycle: snap.cycle,
                block_cycle: snap.block_cycle,
                now: sw.now,
                switch_block_cycle: sw.block_cycle,
            });
        }
        if let BlockState::Model(t) = &snap.block {
            t.check_restored().map_err(RestoreError::Block)?;
        }
        if sw.sc.ports != self.sc.ports {
            return Err(RestoreError::Ports {
                snapshot: sw.sc.ports,
                this: self.sc.ports,
            });
        }
        if block_params(&sw.sc) != self.block_params() {
            return Err(RestoreError::Params {
                v3: false,
                snapshot: Box::new(block_params(&sw.sc)),
                this: Box::new(self.block_params()),
            });
        }
        sw.block = std::mem::take(&mut self.block);
        let r = sw
            .block
            .set_state(&snap.block, snap.block_cycle, &self.block_params());
        if let Err(e) = r {
            self.block = std::mem::take(&mut sw.block);
            return Err(e);
        }
        sw.dut_kind = self.dut_kind;
        sw.recorded = self.recorded.take();
        sw.trace = self.trace.take();

        *self = sw;
        Ok(())
    }

    /// Write the block's waveform from now on, under the RTL's signal names, cycle c of the block
    /// at times 2c and 2c+1: the model's signals (`crate::wave`) with `--dut model`, Verilator's
    /// trace with `--dut rtl`, both with `--dut both` (`<path>` without `.vcd`, then `_model.vcd`
    /// and `_rtl.vcd`). Returns the files.
    pub fn start_wave(&mut self, path: &str) -> Result<Vec<String>, TraceError> {
        self.stop_wave()?;
        let model_file = |p: &BlockParams, f: &str| -> Result<Box<ModelWaveFile>, TraceError> {
            let create = |source| TraceError::Create {
                path: f.to_string(),
                source,
            };
            let file = std::fs::File::create(f).map_err(create)?;
            crate::wave::ModelWave::new(std::io::BufWriter::new(file), p)
                .map(Box::new)
                .map_err(create)
        };
        let p = self.block_params();
        match &mut self.block {
            Dut::Detached => unreachable!("a switch always has its block outside restore"),
            Dut::V3(b) => b.open_trace(path),
            Dut::Model(_) => {
                self.wave = Some(model_file(&p, path)?);
                Ok(vec![path.to_string()])
            }
            #[cfg(feature = "rtl")]
            Dut::Rtl(r, _) => {
                r.set_cycle(self.block_cycle);
                r.open_trace(path).map_err(DutError::from)?;
                Ok(vec![path.to_string()])
            }
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => {
                let stem = path.strip_suffix(".vcd").unwrap_or(path);
                let (m, r) = (format!("{stem}_model.vcd"), format!("{stem}_rtl.vcd"));
                pair.rtl.set_cycle(self.block_cycle);
                pair.rtl.open_trace(&r).map_err(DutError::from)?;
                self.wave = Some(model_file(&p, &m)?);
                Ok(vec![m, r])
            }
        }
    }

    /// Finish the waveform files, if any are being written.
    pub fn stop_wave(&mut self) -> Result<(), TraceError> {
        match &mut self.block {
            #[cfg(feature = "rtl")]
            Dut::Rtl(r, _) => r.close_trace(),
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => pair.rtl.close_trace(),
            Dut::V3(b) => b.close_trace()?,
            _ => {}
        }
        if let Some(mut w) = self.wave.take() {
            w.flush().map_err(TraceError::Write)?;
        }
        Ok(())
    }

    /// One half of a cycle of the model's waveform: before the block's edge, or after it.
    fn wave_edge(&mut self, before: bool) {
        let m: &CapfcTop = match &self.block {
            Dut::Model(m) => m,
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => &pair.model,
            _ => return,
        };
        let Some(w) = self.wave.as_mut() else { return };
        let c = self.block_cycle;
        let r = if before {
            let mut mo = Outputs::new(self.sc.ports);
            m.outputs(&self.inp, &mut mo);
            w.before_edge(c, m, &self.inp, &mo)
        } else {
            w.after_edge(c, m, &self.inp)
        };
        if let Err(e) = r {
            self.wave = None;
            self.mismatch
                .get_or_insert(format!("[wave] writing the waveform failed: {e}"));
        }
    }

    /// The block's architectural registers in the RTL's packed layout (see
    /// [`crate::block::pack::Layouts`]), from whichever side holds them.
    pub fn block_state_words(&self, layouts: &crate::block::pack::Layouts, buf: &mut Vec<u32>) {
        self.block.state_words(layouts, buf);
    }

    /// One occupancy register of the block (units: bytes, or cells), ingress or egress queue
    /// `q` = port × 8 + priority, read without packing the whole state (the model's directly).
    pub fn block_occupancy(&self, egress: bool, q: usize) -> u32 {
        let from_model = |m: &CapfcTop| {
            if egress {
                m.egress.occ(q)
            } else {
                m.ingress.occ(q)
            }
        };
        match &self.block {
            Dut::Detached => unreachable!("a switch always has its block outside restore"),
            Dut::V3(b) => b.occupancy(egress, q) as u32,
            Dut::Model(m) => from_model(m),
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => from_model(&pair.model),
            #[cfg(feature = "rtl")]
            Dut::Rtl(r, _) => {
                let l = &r.layouts.state;
                let mut w = vec![0; l.words];
                r.read_state(&mut w);
                crate::block::pack::occupancy(l, &w, egress, q) as u32
            }
        }
    }

    /// The v3 block's registers by name (`None` with the v2 block).
    pub fn block_view_v3(&self) -> Option<crate::v3::view::View> {
        match &self.block {
            Dut::V3(b) => Some(b.view()),
            _ => None,
        }
    }

    /// [`Switch::block_view_v3`] into `v`, refreshing a view it made before in place (`None`
    /// with the v2 block).
    pub fn block_view_v3_into(&self, v: &mut Option<crate::v3::view::View>) {
        match &self.block {
            Dut::V3(b) => b.view_into(v),
            _ => *v = None,
        }
    }

    /// The block's outputs of the last cycle (D per port, the PFC frames, the accepts).
    pub fn block_outputs(&self) -> &Outputs {
        &self.out
    }

    /// The block's inputs of the last cycle.
    pub fn block_inputs(&self) -> &Inputs {
        &self.inp
    }

    /// The block's parameters.
    pub fn block_params(&self) -> BlockParams {
        block_params(&self.sc)
    }

    /// A packet is lost; a flow whose last bytes are lost completes then.
    fn lose(&mut self, t: u64, pkt: Packet) {
        if let Some(a) = &mut self.attached {
            a.lost_bytes += u64::from(pkt.size);
            a.lost.push((t, pkt));
            return;
        }
        let f = pkt.flow as usize;
        self.lost[f] += u64::from(pkt.size);
        if let Some(rto) = self.sc.rto {
            self.retx.push_back((t + rto, pkt.flow, pkt.size));
        } else if self.delivered[f] + self.lost[f] == self.sc.flows[f].bytes {
            self.complete(f, t);
        }
    }

    /// Every byte of flow f is accounted for: delivered, or (without retransmission) lost.
    fn settled(&self, f: usize) -> bool {
        let done = self.delivered[f]
            + if self.sc.rto.is_some() {
                0
            } else {
                self.lost[f]
            };
        done == self.sc.flows[f].bytes
    }

    /// Flow f's last byte is delivered or lost in cycle t.
    fn complete(&mut self, f: usize, t: u64) {
        self.stats.fct[f] = Some(t + 1 - self.sc.flows[f].start);
        self.flows_done += 1;
    }

    /// Check a switch that came from outside (a snapshot file): its scenario is valid, every
    /// per-port and per-flow table has its size, and every packet, frame and index names a port, a
    /// priority and a flow that exist. Serde checks types only; stepping a switch that fails this
    /// would index out of bounds.
    ///
    /// (Long, as a flat list of one check a table of the switch.)
    fn check_restored(&self) -> Result<(), SnapshotError> {
        let (np, nf) = (self.sc.ports, self.sc.flows.len());
        let size = |what: &str, got: usize, want: usize| {
            if got == want {
                Ok(())
            } else {
                Err(SnapshotError::new(
                    what,
                    format!("{got} entries, expected {want}"),
                ))
            }
        };
        // A count this large could not advance through a long run without wrapping.
        for (what, c) in [("now", self.now), ("block_cycle", self.block_cycle)] {
            if c > MAX_RESTORED_CYCLE {
                return Err(SnapshotError::new(
                    what,
                    format!("{c} is over {MAX_RESTORED_CYCLE}"),
                ));
            }
        }
        size("senders", self.senders.len(), np)?;
        size("up", self.up.len(), np)?;
        size("down", self.down.len(), np)?;
        size("ingress", self.ingress.len(), np)?;
        if self.sc.pause_refresh != self.announced.is_empty() {
            return Err(SnapshotError::new(
                "announced",
                format!(
                    "{} entries under pause_refresh = {} (0 with refreshes, one a port without)",
                    self.announced.len(),
                    self.sc.pause_refresh
                ),
            ));
        }
        if !self.announced.is_empty() {
            size("announced", self.announced.len(), np)?;
        }
        for (what, v) in [
            ("remaining", &self.remaining),
            ("delivered", &self.delivered),
            ("lost", &self.lost),
            ("resent", &self.resent),
        ] {
            size(what, v.len(), nf)?;
        }
        size("stats.fct", self.stats.fct.len(), nf)?;
        size("stats.pfc_frames", self.stats.pfc_frames.len(), np)?;
        size("stats.paused", self.stats.paused.len(), np * NPRIO)?;
        size("stats.peak", self.stats.peak.len(), np * NPRIO)?;
        size("inp.arr", self.inp.arr.len(), np)?;
        size("inp.deq", self.inp.deq.len(), np)?;
        self.tm.check_restored(np)?;
        for (i, s) in self.senders.iter().enumerate() {
            s.check_restored(i, nf)
                .map_err(|e| under(format!("senders[{i}]"), e))?;
        }
        let pkt_ok = |where_: &str, p: &Packet| {
            if (p.flow as usize) < nf
                && usize::from(p.src) < np
                && usize::from(p.dst) < np
                && usize::from(p.prio) < NPRIO
            {
                Ok(())
            } else {
                Err(SnapshotError::new(
                    where_,
                    format!("packet {p:?} names a flow, port or priority that does not exist"),
                ))
            }
        };
        for (what, links) in [("up", &self.up), ("down", &self.down)] {
            for l in links.iter() {
                l.iter().try_for_each(|(_, p)| pkt_ok(what, p))?;
            }
        }
        for q in &self.ingress {
            q.iter().try_for_each(|p| pkt_ok("ingress", p))?;
        }
        self.pipe.iter().try_for_each(|(_, p)| pkt_ok("pipe", p))?;
        for q in &self.tm.queues {
            q.iter().try_for_each(|p| pkt_ok("tm.queues", p))?;
        }
        if let Some((_, i, _, _)) = self.pfc.iter().find(|f| f.1 >= np) {
            return Err(SnapshotError::new(
                "pfc",
                format!("a frame to port {i}, which does not exist"),
            ));
        }
        if let Some((_, f, _)) = self.retx.iter().find(|r| r.1 as usize >= nf) {
            return Err(SnapshotError::new(
                "retx",
                format!("flow {f} does not exist"),
            ));
        }
        if self.rr >= np {
            return Err(SnapshotError::new(
                "rr",
                format!("{} is not a port", self.rr),
            ));
        }
        // The mask of non-empty ingress FIFOs says what the FIFOs hold.
        for (i, q) in self.ingress.iter().enumerate() {
            if (self.ingress_busy >> i & 1 == 1) == q.is_empty() {
                return Err(SnapshotError::new(
                    "ingress_busy",
                    format!(
                        "port {i} is marked {} but its FIFO holds {} packets",
                        if q.is_empty() { "busy" } else { "idle" },
                        q.len()
                    ),
                ));
            }
        }
        if np < 128 && self.ingress_busy >> np != 0 {
            return Err(SnapshotError::new(
                "ingress_busy",
                format!("{:#x} marks a port >= {np}", self.ingress_busy),
            ));
        }
        if let Some((i, _)) = self.arrived.iter().find(|a| a.0 >= np) {
            return Err(SnapshotError::new(
                "arrived",
                format!("port {i} does not exist"),
            ));
        }
        Ok(())
    }

    /// Put this switch inside a network: port i's link has propagation delay `prop[i]` and speed
    /// `rates[i]` against the clock; from now on the network brings and takes the frames.
    pub fn attach(&mut self, prop: Vec<u64>, rates: Vec<config::WireRate>) {
        assert_eq!(prop.len(), self.sc.ports, "one delay per port");
        assert_eq!(rates.len(), self.sc.ports, "one rate per port");
        self.tm.set_rates(rates);
        self.attached = Some(Attached {
            prop,
            ..Attached::default()
        });
    }

    /// A frame from the network whose last bit reaches input `port` in cycle `at` (not before the
    /// switch's current cycle); `pkt.src` is `port` and `pkt.dst` the output port it is routed to.
    pub fn inject(&mut self, at: u64, port: usize, pkt: Packet) {
        debug_assert!(at >= self.now && usize::from(pkt.src) == port);
        self.up[port].push_back((at, pkt));
        self.up_next = self.up_next.min(at);
        self.stats.sent_bytes += u64::from(pkt.size);
    }

    /// The frames put on the output links since the last call: `f(port, arrival cycle at the far
    /// end, packet)`.
    pub fn take_down(&mut self, mut f: impl FnMut(usize, u64, Packet)) {
        if self.down_next == u64::MAX {
            return;
        }
        let a = self
            .attached
            .as_mut()
            .expect("take_down is for a switch in a network");
        for (o, link) in self.down.iter_mut().enumerate() {
            for (at, pkt) in link.drain(..) {
                a.handed_out += u64::from(pkt.size);
                f(o, at, pkt);
            }
        }
        self.down_next = u64::MAX;
    }

    /// The PFC frames the MACs sent since the last call: (cycle the peer obeys it, port, class
    /// enable vector, pause times).
    pub fn take_pfc(&mut self, mut f: impl FnMut(u64, usize, u8, [u16; NPRIO])) {
        for (at, i, cev, q) in self.pfc.drain(..) {
            f(at, i, cev, q);
        }
    }

    /// The packets dropped since the last call: (cycle, packet).
    pub fn take_lost(&mut self, mut f: impl FnMut(u64, Packet)) {
        if let Some(a) = &mut self.attached {
            for (t, p) in a.lost.drain(..) {
                f(t, p);
            }
        }
    }

    /// Nothing can happen in cycle `t` (the network skips the switch's cycle): no frame arrives,
    /// no packet waits at ingress or in the pipeline, no transmitter can start, no PFC frame is
    /// pending, and the block sits at its fixed point (or, with v3, its periodic state, no held
    /// pause's refresh falling due in `t`).
    pub fn idle(&self, t: u64) -> bool {
        self.up_next > t
            && self.ingress_busy == 0
            && !self.stalled
            && self.pipe.front().is_none_or(|&(e, _)| e > t)
            && self.tm.wake_min() > t
            && self.out.pfc_valid == 0
            && self.pfc.is_empty()
            && self.attached.as_ref().is_some_and(|a| a.block_idle)
            && self.block_wake() > t
            && !self.exhaustive
    }

    /// The first cycle the block must be clocked in under idle inputs while it sits at its fixed
    /// point or periodic state: with v3, a held pause's refresh falling due
    /// ([`block_v3::BlockV3::wake`]); `u64::MAX` otherwise.
    fn block_wake(&self) -> u64 {
        match &self.block {
            Dut::V3(b) => b.wake(),
            _ => u64::MAX,
        }
    }

    /// The first cycle at which an idle switch ([`Switch::idle`]) has something to do: a frame
    /// arrives, a packet reaches the end of the pipeline, a transmitter can start (a pause ends),
    /// or the block's held pause falls due for its refresh.
    pub fn next_activity(&self) -> u64 {
        let pipe = self.pipe.front().map_or(u64::MAX, |&(e, _)| e);
        self.up_next
            .min(self.tm.wake_min())
            .min(pipe)
            .min(self.block_wake())
    }

    /// Move an idle switch's clock to `t` (the cycles it skipped changed nothing).
    pub fn skip_to(&mut self, t: u64) {
        debug_assert!(t >= self.now);
        self.now = t;
    }

    /// With the v3 block in a network: (cycles it did not clock, cycles clocked to catch up with
    /// them) (`block_v3::IdleSkip`).
    pub fn v3_skip_counts(&self) -> (u64, u64) {
        match &self.block {
            Dut::V3(b) => b.skip_counts(),
            _ => (0, 0),
        }
    }

    /// Idle skips checked by [`Switch::audit_idle_skip`] so far.
    pub fn v3_idle_audits(&self) -> u64 {
        match &self.block {
            Dut::V3(b) => b.idle_audits(),
            _ => 0,
        }
    }

    /// The v3 block's model (`--block v3`, `--dut model` or `both`), to put a deliberate bug in
    /// (its units' `fault_ram_write`): the tests of the lockstep behind the switch.
    pub fn v3_model_mut(&mut self) -> Option<&mut crate::v3::top::Top> {
        match &mut self.block {
            Dut::V3(b) => b.model_mut(),
            _ => None,
        }
    }

    /// Inject a deliberate bug of v2's catalogue into v2's model (`--dut model` or `both`), to
    /// show the lockstep check catching it. The RTL has none. Refused for the v3 block, whose
    /// faults are its own catalogue's ([`Switch::inject_fault_v3`]).
    pub fn inject_fault(
        &mut self,
        f: Option<crate::block::Fault>,
    ) -> Result<(), capfc_block::error::FaultError> {
        match &mut self.block {
            Dut::Model(m) => m.inject_fault(f),
            #[cfg(feature = "rtl")]
            Dut::Both(pair) => pair.model.inject_fault(f),
            Dut::V3(_) => {
                if let Some(f) = f {
                    return Err(capfc_block::error::FaultError::V2FaultForV3 { name: f.name() });
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Put fault `f` of the v3 block's catalogue (`capfc_block::v3::fault`, `None` takes it out)
    /// into its model. False, and nothing changed, when the switch's block is not v3 or has no
    /// model (the RTL alone).
    pub fn inject_fault_v3(&mut self, f: Option<capfc_block::v3::fault::Fault>) -> bool {
        match &mut self.block {
            Dut::V3(b) => match b.model_mut() {
                Some(m) => {
                    m.set_fault(f);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }

    /// With the v3 block in lockstep (`--dut both`): its model's half of each cycle on a second
    /// thread (`threads` 2) or on this one (1). False, and nothing changed, with any other block.
    pub fn set_lockstep_threads(&mut self, threads: usize) -> bool {
        match &mut self.block {
            Dut::V3(b) => b.set_lockstep_threads(threads),
            _ => false,
        }
    }

    /// Bring the schedulers of idle senders and transmitters up to now (they are told of the cycles
    /// they skipped only when they next act): the state is then the one of looking at every unit
    /// every cycle.
    pub fn settle_idle(&mut self) {
        for s in &mut self.senders {
            s.settle(self.now);
        }
        self.tm.settle(self.now);
    }

    /// The paused time per (port, priority) into the statistics (the senders count it per interval).
    fn sync_paused(&mut self) {
        for s in &self.senders {
            let pc = s.paused_cycles(self.now);
            self.stats.paused[s.port * NPRIO..(s.port + 1) * NPRIO].copy_from_slice(&pc);
        }
    }

    /// Every byte sent is delivered, lost, or somewhere in between (checked every cycle in debug
    /// builds; tests call it directly).
    pub fn check_conservation(&self) {
        let sum = |q: &VecDeque<Packet>| q.iter().map(|p| u64::from(p.size)).sum::<u64>();
        let on_links: u64 = self
            .up
            .iter()
            .chain(&self.down)
            .flatten()
            .map(|(_, p)| u64::from(p.size))
            .sum();
        let inside = self.ingress.iter().map(sum).sum::<u64>()
            + self
                .pipe
                .iter()
                .map(|(_, p)| u64::from(p.size))
                .sum::<u64>()
            + self.tm.queued_bytes()
            + match &self.block {
                Dut::V3(b) => b.arrivals_bytes(),
                _ => 0,
            };
        let done: u64 = match &self.attached {
            Some(a) => a.handed_out + a.lost_bytes,
            None => self.delivered.iter().sum::<u64>() + self.lost.iter().sum::<u64>(),
        };
        assert_eq!(
            self.stats.sent_bytes,
            done + on_links + inside,
            "conservation broken at cycle {}",
            self.now
        );
    }
}
