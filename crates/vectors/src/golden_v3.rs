//! Golden vectors of the v3 block (`capfc_top_oc`, format 3): the per-cycle stimulus and expected
//! outputs written by the v3 model ([`crate::v3::top::Top`]) and replayed, without Rust, by
//! `testbench/capfc_tb.sv` on Verilator and Icarus (`docs/golden.md`, "Format 3").
//!
//! A set's stimulus is traffic through the block's lanes ([`crate::v3::lanes::Lanes`]): every
//! event is held on its lane until the block takes it, and a packet leaves a queue only after
//! the block has answered its arrival or enqueue (so the occupancies the block keeps are those
//! of a switch). Each set is named after what it covers and counts it while it is generated
//! ([`Manifest3::corners`]): a set whose corner did not happen is refused, not written.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::block::{BlockConfig, BlockParams, Mode, PrioThresholds};
use crate::v3::lanes::{Answer, Lane, Lanes};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::{port_width, RegSink};

mod directed;
mod observe;

use observe::Observer;

pub use directed::DIRECTED_V3;

/// Why a v3 set cannot be built, or a set on disk is not what the model writes: the set or file
/// it is about, and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum GoldenV3Error {
    #[error("[golden v3] set {set}: the v3 sets are generated at 4 to 128 ports with SW 14, OW 20, CW 4 to 16, CELL_LOG2 0, CUT_F 8, NL 2; not {params:?}")]
    Unsupported {
        set: String,
        params: Box<BlockParams>,
    },
    #[error("[golden v3] set {set}: {cycles} cycles, more than a set may have ({max})")]
    TooLong { set: String, cycles: u64, max: u64 },
    /// The stimulus of a directed set could not be driven to its end.
    #[error("[golden v3] set {set}: {source}")]
    Run {
        set: String,
        #[source]
        source: RunError,
    },
    /// The model broke the block's contract (the observer's first complaint).
    #[error("[golden v3] set {set}: the model breaks the contract: {what}")]
    Contract { set: String, what: String },
    /// A lane taken too soon after a configuration write it depends on.
    #[error("[golden v3] set {set}: a lane taken in cycle {taken} depends on the write of address {addr:#04x} in cycle {written}, inside the {window} cycles the contract gives a write to reach every group")]
    Early {
        set: String,
        taken: u64,
        written: u64,
        addr: u8,
        window: u64,
    },
    /// A corner the set is named after did not happen (`counted`: the corners that did).
    #[error("[golden v3] set {set}: corner {corner} did not happen (counted: {counted})")]
    Corner {
        set: String,
        corner: String,
        counted: String,
    },
    #[error("[golden v3] {file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("[golden v3] {file}: {source}")]
    Json {
        file: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("[golden v3] {file}: format {found:?}, not {FORMAT_V3} (regenerate with `capfc golden gen`)")]
    Format { file: String, found: Option<u64> },
    #[error("[golden v3] {file}: params: {source}")]
    Params {
        file: String,
        #[source]
        source: crate::block::ConfigError,
    },
    #[error("[golden v3] {file}: set {set:?}, but the directory is {dir:?}")]
    Name {
        file: String,
        set: String,
        dir: String,
    },
    /// The set of a directory could not be built again from its manifest.
    #[error("[golden v3] {dir}: {source}")]
    Rebuild {
        dir: String,
        #[source]
        source: Box<GoldenV3Error>,
    },
    /// A file that differs from what the model writes, from `line` (from 1).
    #[error("[golden v3] {file}: line {line}: not what the model writes (regenerate with `capfc golden gen` and review the diff)")]
    Stale { file: String, line: usize },
    /// A steady set's run that breaks the promise of its `config.toml`.
    #[error("[golden v3] set {set}: not steady: {what}")]
    NotSteady { set: String, what: String },
    /// `config.toml` where the set's source has none, or none where it has one.
    #[error("[golden v3] {file}: {why}")]
    SteadyFile { file: String, why: &'static str },
}

/// Why the stimulus of a directed v3 set could not be driven to its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Not done by cycle `limit` (`what`: "the case", "the directed steps").
    #[error("{what} did not end by cycle {limit}")]
    Timeout { what: &'static str, limit: u64 },
    /// A dequeue or departure (`what`) from a queue the stimulus holds empty.
    #[error("a {what} from the empty queue ({port}, {prio})")]
    Empty {
        what: &'static str,
        port: usize,
        prio: usize,
    },
    #[error("queue ({port}, {prio}) refused an enqueue below {target}")]
    Refused {
        port: usize,
        prio: usize,
        target: u32,
    },
    #[error("no directed case {case:?} (the v3 cases: {known})")]
    NoCase { case: String, known: String },
    #[error("directed case {0}: not written for v3")]
    NotV3(String),
    #[error("E was never set in 4,000 cycles")]
    ENeverSet,
    #[error("no built-in scenario {0:?}")]
    NoScenario(String),
    #[error("scenario {scenario}: its switch's block has {got:?}, not the set's parameters")]
    ScenarioParams {
        scenario: String,
        got: Box<BlockParams>,
    },
    #[error("scenario {scenario}: {what}")]
    Switch { scenario: String, what: String },
    #[error("no frame pending at port 0 at the end of the busy stretch")]
    NoFramePending,
    #[error("D of port 0 changed {changes} times while its MAC was busy, and {xon} XON frames followed (at least 3, and 1)")]
    MacBusy { changes: u64, xon: u64 },
}

/// For the layers that still report errors as text.
impl From<GoldenV3Error> for String {
    fn from(e: GoldenV3Error) -> String {
        e.to_string()
    }
}

/// The format of a v3 set (v2's sets are format 2, [`crate::golden::FORMAT`]).
pub const FORMAT_V3: u32 = 3;

/// The longest random set (a golden set is read whole into the testbench's memories).
pub const MAX_CYCLES: u64 = 1 << 20;

/// Where a v3 set's stimulus comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceV3 {
    /// Random traffic through the lanes (seeded): arrivals at every port, a hot output port
    /// whose queue drains slowly, MACs busy for random stretches. `contention`: two hot output
    /// ports on one sort engine, lower egress thresholds and bursty drains, so that sorts wait
    /// for each other and clears meet running sorts. `stray`: now and then a departure or an
    /// enqueue naming a port `NP` or above (which the port field can carry), never taken.
    /// `steady`: the set also has `config.toml` (`crate::golden::STEADY_CONFIG`), for a block
    /// that takes its configuration statically: the traffic is the same (every random set writes
    /// its configuration once, in consecutive cycles after the reset, then leaves
    /// [`config_gap`] cycles with neither a write nor a lane, then has lanes and no write and
    /// no reset to its end), and the file says so.
    Random {
        seed: u64,
        cycles: u64,
        mode: Mode,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        contention: bool,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stray: bool,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        steady: bool,
    },
    /// The MAC handshake: port 0's MAC held busy while D of port 0 changes at least three
    /// times (XON of priority 3, XOFF of 4, XON of 4, XOFF of 4); the frame taken when the MAC
    /// is free again carries priority 3's XON.
    MacBusy { mode: Mode },
    /// A reset while E has bits set (after random traffic), then the configuration and traffic
    /// again: D stays 0 until the lanes are ready after the reset.
    ResetWithE { mode: Mode },
    /// A directed corner ([`DIRECTED_V3`]).
    Directed { case: String, mode: Mode },
    /// The block's traffic as the switch model drives it (`capfc run`'s switch with the block):
    /// the reset and the configuration the switch writes, then the lanes of the first `cycles`
    /// switch cycles of a built-in scenario in a flow-control mode.
    Switch {
        scenario: String,
        mode: crate::switch::FlowMode,
        cycles: u64,
    },
}

impl SourceV3 {
    /// The algorithm the set's block runs.
    pub fn mode(&self) -> Mode {
        match self {
            SourceV3::Random { mode, .. }
            | SourceV3::MacBusy { mode }
            | SourceV3::ResetWithE { mode }
            | SourceV3::Directed { mode, .. } => *mode,
            SourceV3::Switch { mode, .. } => mode.block_mode(),
        }
    }
}

/// `manifest.json` of a v3 set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest3 {
    pub format: u32,
    pub set: String,
    /// the RTL module the set is for
    pub top: String,
    pub params: BlockParams,
    pub source: SourceV3,
    /// every configuration register write: (cycle, address, data)
    pub register_writes: Vec<(u64, u8, u32)>,
    /// the first cycle a lane is offered after each configuration (reset, then writes): at
    /// least `8 + NG + 1` cycles after its last write
    pub lanes_from: Vec<u64>,
    /// what the set covers, counted by the generator (each required one at least 1, or no set)
    pub corners: BTreeMap<String, u64>,
    /// the corners this set is named after (each in `corners` with a count of at least 1)
    pub required: Vec<String>,
    pub cycles: u64,
    pub in_bits: usize,
    pub out_bits: usize,
    pub stim_lines: usize,
    pub expect_lines: usize,
    pub model_version: String,
    pub sha256_stim: String,
    pub sha256_expect: String,
}

/// One curated v3 set.
#[derive(Debug, Clone)]
pub struct CuratedV3 {
    pub name: String,
    pub params: BlockParams,
    pub source: SourceV3,
}

/// Switch cycles of the curated set from the switch.
pub const SWITCH_SET_CYCLES: u64 = 40000;

/// The parameters of the v3 sets: `np` ports, `cw`-bit counters, the rest the default.
fn params_cw(np: usize, cw: u32) -> BlockParams {
    BlockParams::from_values(&[np as u32, 14, 20, cw, 0, 8, 2])
}

fn params(np: usize) -> BlockParams {
    params_cw(np, 16)
}

/// The checked-in v3 sets (`golden/v3`).
pub fn curated() -> Vec<CuratedV3> {
    let mut v = vec![];
    let modes = [Mode::StopMax, Mode::StopCal];
    for mode in modes {
        for &case in DIRECTED_V3 {
            // (counter saturation with 4-bit counters at 6 ports, as v2's)
            let (p, tail) = if case == "counter_saturation" {
                (params_cw(6, 4), "np6_cw4".to_string())
            } else {
                (params(4), "np4".to_string())
            };
            v.push(CuratedV3 {
                name: format!("{case}_{}_{tail}", mode.name()),
                params: p,
                source: SourceV3::Directed {
                    case: case.to_string(),
                    mode,
                },
            });
        }
        v.push(CuratedV3 {
            name: format!("mac_busy_{}_np4", mode.name()),
            params: params(4),
            source: SourceV3::MacBusy { mode },
        });
        v.push(CuratedV3 {
            name: format!("reset_with_e_{}_np4", mode.name()),
            params: params(4),
            source: SourceV3::ResetWithE { mode },
        });
    }
    // The default switch scenario as the switch drives the block (its 8 ports, three counted
    // classes): congestion, the contributors' E, PFC frames out and the fall back to XON.
    let sc = crate::switch::scenario::Scenario::incast_victims();
    v.push(CuratedV3 {
        name: "switch_incast_victims_cal_np8_nl3".into(),
        params: crate::switch::block_params(&sc),
        source: SourceV3::Switch {
            scenario: "incast-victims".into(),
            mode: crate::switch::FlowMode::CapfcCal,
            cycles: SWITCH_SET_CYCLES,
        },
    });
    // random traffic: plain at 4 and 8 ports, with contention at 4, and at the non-power-of-two
    // port counts 6 (4-bit counters) and 12 with stray ports on the shared lanes
    let randoms: [(&str, BlockParams, u64, bool, bool); 5] = [
        ("random_{m}_np4_seed1", params(4), 3000, false, false),
        ("random_{m}_np8_seed1", params(8), 2400, false, false),
        ("contention_{m}_np4_seed1", params(4), 3000, true, false),
        (
            "random_{m}_np6_cw4_seed1",
            params_cw(6, 4),
            2400,
            false,
            true,
        ),
        ("random_{m}_np12_seed1", params(12), 2400, false, true),
    ];
    for (name, p, cycles, contention, stray) in randoms {
        for mode in modes {
            v.push(CuratedV3 {
                name: name.replace("{m}", mode.name()),
                params: p,
                source: SourceV3::Random {
                    seed: 1,
                    cycles,
                    mode,
                    contention,
                    stray,
                    steady: false,
                },
            });
        }
    }
    v
}

/// The inputs or outputs of a cycle as one concatenation, the first port most significant.
#[derive(Default)]
struct Concat {
    /// (words, width) in port order
    parts: Vec<(Vec<u64>, usize)>,
}

impl RegSink for Concat {
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.parts.push((words.to_vec(), width));
    }
}

impl Concat {
    fn bits(&self) -> usize {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// The concatenation as `ceil(bits / 4)` hexadecimal digits.
    fn hex(&self) -> String {
        let n = self.bits();
        let mut bits = Vec::with_capacity(n);
        for (words, width) in self.parts.iter().rev() {
            for b in 0..*width {
                bits.push(words.get(b / 64).is_some_and(|w| w >> (b % 64) & 1 == 1));
            }
        }
        let digits = n.div_ceil(4);
        (0..digits)
            .rev()
            .map(|d| {
                let v = (0..4).fold(0u32, |a, k| {
                    a | (u32::from(bits.get(4 * d + k).copied().unwrap_or(false)) << k)
                });
                char::from_digit(v, 16).expect("a digit")
            })
            .collect()
    }
}

fn sha256(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A packet as the generator follows it.
#[derive(Debug, Clone, Copy)]
struct Pkt {
    src: usize,
    dst: usize,
    prio: usize,
    size: u32,
}

/// The generator's switch: queues of packets the block has accepted, and the lanes.
struct Traffic {
    lanes: Lanes<Pkt>,
    /// accepted arrivals per input port, in order, not yet offered as departures
    ing: Vec<VecDeque<Pkt>>,
    /// accepted enqueues per output port, not yet offered as dequeues
    eg: Vec<VecDeque<Pkt>>,
    /// events offered and not yet answered or taken: arrivals per port, the departure lane,
    /// dequeues per port
    arr_out: Vec<usize>,
    dep_out: usize,
    deq_out: Vec<usize>,
    /// the answers of the last cycle
    answers: Vec<Answer<Pkt>>,
    corners: BTreeMap<String, u64>,
}

impl Traffic {
    fn new(np: usize) -> Self {
        Traffic {
            lanes: Lanes::new(np),
            ing: vec![VecDeque::new(); np],
            eg: vec![VecDeque::new(); np],
            arr_out: vec![0; np],
            dep_out: 0,
            deq_out: vec![0; np],
            answers: vec![],
            corners: BTreeMap::new(),
        }
    }

    fn count(&mut self, what: &str) {
        // (no new key, no allocation: most counts are of a corner counted before)
        match self.corners.get_mut(what) {
            Some(n) => *n += 1,
            None => {
                self.corners.insert(what.to_string(), 1);
            }
        }
    }

    fn arrive(&mut self, pkt: Pkt) {
        let lane = Lane::Arrive {
            port: pkt.src,
            prio: pkt.prio,
            size: pkt.size,
        };
        self.lanes.offer(lane, pkt).expect("a port of the block");
        self.arr_out[pkt.src] += 1;
    }

    /// The oldest accepted packet of input port `i` (of priority `prio`, if given) leaves the
    /// ingress: its departure, and its enqueue at its output port.
    fn depart(&mut self, i: usize, prio: Option<usize>) -> bool {
        let Some(k) = self.ing[i]
            .iter()
            .position(|p| prio.is_none_or(|q| p.prio == q))
        else {
            return false;
        };
        let pkt = self.ing[i].remove(k).expect("found");
        let dep = Lane::Depart {
            port: i,
            prio: pkt.prio,
            size: pkt.size,
        };
        let enq = Lane::Enqueue {
            oport: pkt.dst,
            prio: pkt.prio,
            iport: i,
            size: pkt.size,
        };
        self.lanes.offer(dep, pkt).expect("a port of the block");
        self.lanes.offer(enq, pkt).expect("a port of the block");
        self.dep_out += 1;
        true
    }

    fn dequeue(&mut self, o: usize) -> bool {
        let Some(pkt) = self.eg[o].pop_front() else {
            return false;
        };
        let lane = Lane::Dequeue {
            oport: o,
            prio: pkt.prio,
            size: pkt.size,
        };
        self.lanes.offer(lane, pkt).expect("a port of the block");
        self.deq_out[o] += 1;
        true
    }

    /// After the block's cycle `t`: the answers and takes, into the queues.
    fn settle(&mut self, t: u64, rst: bool, out: &TopOut) {
        let mut answers = std::mem::take(&mut self.answers);
        answers.clear();
        self.lanes.settle(t, rst, out, &mut answers);
        for a in &answers {
            match *a {
                Answer::Accept {
                    lane: Lane::Arrive { port, .. },
                    tag,
                    accepted,
                } => {
                    self.arr_out[port] -= 1;
                    if accepted {
                        self.ing[port].push_back(tag);
                    } else {
                        self.count("arrivals_refused");
                    }
                }
                Answer::Accept { tag, accepted, .. } => {
                    if accepted {
                        self.eg[tag.dst].push_back(tag);
                    } else {
                        self.count("enqueues_refused");
                    }
                }
                Answer::Taken {
                    lane: Lane::Depart { .. },
                    ..
                } => self.dep_out -= 1,
                Answer::Taken {
                    lane: Lane::Dequeue { oport, .. },
                    ..
                } => self.deq_out[oport] -= 1,
                Answer::Taken { .. } => {}
            }
        }
        self.answers = answers;
    }
}

/// The configuration of the random sets: priorities 3 and 4 lossless and counted (3 alone with
/// `NL` = 1: the block refuses a mask of more classes than it counts), thresholds a few frames
/// deep so that a short run crosses them (in bytes, in units of `2^CELL_LOG2` bytes when
/// `CELL_LOG2` > 0). With `contention`, the egress thresholds are lower (sorts asked for often)
/// and WARN sits above XON_e by a frame (clears that keep E).
fn config(p: &BlockParams, mode: Mode, contention: bool) -> BlockConfig {
    let t = if contention {
        PrioThresholds {
            ing_max: 10_000,
            ing_xoff: 6_000,
            ing_xon: 3_000,
            eg_max: 16_000,
            eg_xoff: 3_200,
            eg_xon: 1_500,
            eg_warn: 3_000,
        }
    } else {
        PrioThresholds {
            ing_max: 10_000,
            ing_xoff: 6_000,
            ing_xon: 3_000,
            eg_max: 24_000,
            eg_xoff: 8_000,
            eg_xon: 4_000,
            eg_warn: 5_000,
        }
    };
    let u = |b: u32| b >> p.cell_log2;
    let t = PrioThresholds {
        ing_max: u(t.ing_max),
        ing_xoff: u(t.ing_xoff),
        ing_xon: u(t.ing_xon),
        eg_max: u(t.eg_max),
        eg_xoff: u(t.eg_xoff),
        eg_xon: u(t.eg_xon),
        eg_warn: u(t.eg_warn),
    };
    BlockConfig {
        prio: [t; crate::block::NPRIO],
        lossless: if p.nl >= 2 {
            (1 << 3) | (1 << 4)
        } else {
            1 << 3
        },
        mode,
        cut_fixed: crate::block::cfg::cut_from_fraction(0.8, p.cut_f),
        quanta: 0x0400,
        refresh: 1500,
    }
}

/// Runs the model cycle by cycle and writes the set's lines.
struct Writer {
    p: BlockParams,
    top: Top,
    inp: TopIn,
    out: TopOut,
    t: u64,
    stim: String,
    expect: String,
    stim_lines: usize,
    expect_lines: usize,
    /// `pfc_ready` of the last stimulus line (a level; all ones before the first)
    held_ready: Vec<bool>,
    prev_out: Option<String>,
    writes: Vec<(u64, u8, u32)>,
    in_bits: usize,
    out_bits: usize,
    /// what clocks the block instead of `top.cycle_into` (then no line is written)
    clock: Option<Clock>,
    /// the clock said stop
    stopped: bool,
    /// the first cycle with a lane valid, and the first write or reset in it or after it (what
    /// a steady set's `config.toml` promises none of)
    first_lane: Option<u64>,
    late: Option<(u64, &'static str)>,
}

/// What clocks the block in a run that writes no set ([`random_clocked`]): one cycle of the
/// generator's model `top` with the inputs, its outputs into `out`. It must leave `top` as the
/// model's cycle does (a lockstep that steps this model beside the RTL); false stops the run.
pub type Clock = Box<dyn FnMut(&TopIn, &mut Top, &mut TopOut) -> bool>;

impl Writer {
    fn new(p: BlockParams) -> Self {
        let np = p.np;
        let mut w = Writer {
            p,
            top: Top::new(p),
            inp: TopIn::idle(np),
            out: TopOut::default(),
            t: 0,
            stim: String::new(),
            expect: String::new(),
            stim_lines: 0,
            expect_lines: 0,
            held_ready: vec![true; np],
            prev_out: None,
            writes: vec![],
            in_bits: 0,
            out_bits: 0,
            clock: None,
            stopped: false,
            first_lane: None,
            late: None,
        };
        // (the widths of the two concatenations: the inputs' from their ports now, the
        // outputs' from the first cycle's)
        let mut ci = Concat::default();
        w.inp.visit(p.sw as usize, port_width(np) as usize, &mut ci);
        w.in_bits = ci.bits();
        w
    }

    /// Clear the pulses of the next cycle's inputs (`pfc_ready` is kept).
    fn clear(&mut self) {
        let i = &mut self.inp;
        (i.rst, i.cfg_we, i.cfg_addr, i.cfg_wdata) = (false, false, 0, 0);
        for k in 0..self.p.np {
            (i.arr_valid[k], i.arr_prio[k], i.arr_size[k]) = (false, 0, 0);
            (i.deq_valid[k], i.deq_prio[k], i.deq_size[k]) = (false, 0, 0);
        }
        (i.dep_valid, i.dep_port, i.dep_prio, i.dep_size) = (false, 0, 0, 0);
        (
            i.enq_valid,
            i.enq_oport,
            i.enq_prio,
            i.enq_iport,
            i.enq_size,
        ) = (false, 0, 0, 0, 0);
    }

    /// The block's cycle with `self.inp`, its lines written (by the clock, if there is one: no
    /// line).
    fn cycle(&mut self) {
        let i = &self.inp;
        let lane = i.dep_valid || i.enq_valid || i.arr_valid.iter().chain(&i.deq_valid).any(|&v| v);
        if lane && self.first_lane.is_none() {
            self.first_lane = Some(self.t);
        }
        if self.first_lane.is_some() && self.late.is_none() && (i.cfg_we || i.rst) {
            self.late = Some((self.t, if i.rst { "a reset" } else { "a write" }));
        }
        if let Some(clock) = &mut self.clock {
            if !clock(&self.inp, &mut self.top, &mut self.out) {
                self.stopped = true;
            }
            self.t += 1;
            return;
        }
        let i = &self.inp;
        let pulse = i.rst
            || i.cfg_we
            || i.dep_valid
            || i.enq_valid
            || i.arr_valid.iter().chain(&i.deq_valid).any(|&v| v);
        if pulse || i.pfc_ready != self.held_ready {
            let mut c = Concat::default();
            i.visit(self.p.sw as usize, port_width(self.p.np) as usize, &mut c);
            let _ = writeln!(self.stim, "{:08x}_{}", self.t, c.hex());
            self.stim_lines += 1;
            self.held_ready.clone_from(&i.pfc_ready);
        }
        if i.cfg_we {
            self.writes.push((self.t, i.cfg_addr, i.cfg_wdata));
        }
        self.top.cycle_into(&self.inp, &mut self.out);
        let mut c = Concat::default();
        self.out.visit(&mut c);
        self.out_bits = c.bits();
        let h = c.hex();
        if self.prev_out.as_ref() != Some(&h) {
            let _ = writeln!(self.expect, "{:08x}_{h}", self.t);
            self.expect_lines += 1;
            self.prev_out = Some(h);
        }
        self.t += 1;
    }
}

/// Cycles with neither a write nor a lane after a configuration's last write: `8 + NG + 8`, as
/// the block's own testbench waits. The contract's window is `8 + NG` cycles (a threshold, the
/// lossless mask's class and counted bits, `mode != 0`) and one more (the mask's gate of D,
/// Stop-Calibrate's mode bit, CUT); a lane is offered only after this gap, so the first take
/// is at least `8 + NG + 8` cycles after the write.
pub fn config_gap(np: usize) -> u64 {
    8 + np.div_ceil(8) as u64 + 8
}

/// A run: the model and its lines, the lanes and their traffic, the corners counted.
struct Run {
    w: Writer,
    tr: Traffic,
    ob: Observer,
    /// per port, the classes last sent paused (frames taken)
    sent: Vec<u8>,
    /// the first cycle lanes are offered after each configuration
    lanes_from: Vec<u64>,
    /// lanes taken so far (of ports below NP)
    takes: u64,
    /// the cycles before this one are observed (corners counted and the contract's rules
    /// checked by its observer, `golden_v3::observe`); all of a set's
    observe: u64,
}

thread_local! {
    /// The clock the next [`Run`] made on this thread takes ([`check_source`]): a directed case
    /// makes its run deep inside its script.
    static NEXT_CLOCK: std::cell::RefCell<Option<Clock>> = const { std::cell::RefCell::new(None) };
}

impl Run {
    fn new(p: BlockParams) -> Self {
        let mut w = Writer::new(p);
        w.clock = NEXT_CLOCK.with(|c| c.borrow_mut().take());
        let ob = Observer::new(&w.top);
        Run {
            tr: Traffic::new(p.np),
            ob,
            sent: vec![0; p.np],
            lanes_from: vec![],
            takes: 0,
            observe: u64::MAX,
            w,
        }
    }

    /// One cycle: the lanes driven (if `drive`), the block's cycle, the frames, answers and
    /// corners of the cycle.
    fn cycle(&mut self, drive: bool) {
        if drive {
            self.tr.lanes.drive(&mut self.w.inp);
        }
        self.w.cycle();
        let t = self.w.t - 1;
        let (i, o, np) = (&self.w.inp, &self.w.out, self.w.p.np);
        if !i.rst {
            let arr = (0..np)
                .filter(|&k| i.arr_valid[k] && o.arr_ready[k])
                .count();
            let deq = (0..np)
                .filter(|&k| i.deq_valid[k] && o.deq_ready[k])
                .count();
            let dep = i.dep_valid && i.dep_port < np as u64 && o.arr_ready[i.dep_port as usize];
            let enq = i.enq_valid
                && i.enq_oport < np as u64
                && i.enq_iport < np as u64
                && o.deq_ready[i.enq_oport as usize];
            self.takes += (arr + deq + usize::from(dep) + usize::from(enq)) as u64;
        }
        self.count_frames();
        self.tr.settle(t, self.w.inp.rst, &self.w.out);
        if t < self.observe {
            self.ob
                .cycle(t, &self.w.inp, &self.w.out, &self.w.top, &self.tr.answers);
        }
        self.w.clear();
    }

    /// A reset cycle, the configuration's register writes, then [`config_gap`] cycles with no
    /// lane; the environment forgets every event of before the reset (the block does).
    fn reset_and_configure(&mut self, cfg: &BlockConfig) {
        let corners = std::mem::take(&mut self.tr.corners);
        self.tr = Traffic::new(self.w.p.np);
        self.tr.corners = corners;
        self.sent.fill(0);
        self.w.clear();
        self.w.inp.rst = true;
        self.cycle(false);
        for (a, d) in cfg.register_writes() {
            (self.w.inp.cfg_we, self.w.inp.cfg_addr, self.w.inp.cfg_wdata) = (true, a, d);
            self.cycle(false);
        }
        for _ in 0..config_gap(self.w.p.np) {
            self.cycle(false);
        }
        self.lanes_from.push(self.w.t);
        self.ob.arm();
    }

    /// PFC frames taken in the cycle just run, counted: XOFF frames, XONs (a priority sent
    /// paused before and resumed in this frame) and refreshes (the same classes paused again).
    fn count_frames(&mut self) {
        let (w, tr) = (&self.w, &mut self.tr);
        for (i, s) in self.sent.iter_mut().enumerate() {
            if w.out.pfc_valid[i] && w.inp.pfc_ready[i] {
                let x = w.out.pfc_xoff[i];
                if x != 0 {
                    tr.count("xoff_frames");
                }
                if *s & !x != 0 {
                    tr.count("xon_frames");
                }
                if x != 0 && *s == x {
                    tr.count("refresh_frames");
                }
                *s = x;
            }
        }
        if (0..w.p.np).any(|i| w.out.pfc_valid[i] && !w.inp.pfc_ready[i]) {
            tr.count("frames_waiting_for_a_busy_mac");
        }
    }

    /// Every corner counted: the environment's and the model's.
    fn corners(&self) -> BTreeMap<String, u64> {
        let mut c = self.tr.corners.clone();
        for (k, v) in &self.ob.corners {
            *c.entry(k.clone()).or_default() += v;
        }
        c
    }
}

/// The random traffic's state: its generator, and per port the MAC's busy cycles left.
struct RandomRun {
    rng: ChaCha8Rng,
    busy: Vec<u64>,
    /// the burst period's quarter: arrivals on in even quarters, nearly off in odd ones
    cycles: u64,
    contention: bool,
    stray: bool,
}

impl RandomRun {
    fn new(np: usize, seed: u64, cycles: u64, contention: bool, stray: bool) -> Self {
        RandomRun {
            rng: ChaCha8Rng::seed_from_u64(seed),
            busy: vec![0; np],
            cycles,
            contention,
            stray,
        }
    }

    /// One cycle of random traffic through the lanes, and the block's.
    fn cycle(&mut self, r: &mut Run) {
        let (w, tr) = (&mut r.w, &mut r.tr);
        let np = self.busy.len();
        let rng = &mut self.rng;
        // the hot output ports (with contention: two on one sort engine)
        let hot = |o: usize| o == 0 || (self.contention && o == 1);
        for (i, b) in self.busy.iter_mut().enumerate() {
            // arrivals: lossless priorities mostly, half of them to a hot port
            // (in bursts: a quarter of the run on, a quarter nearly off, so that queues fill
            // past XOFF and drain under XON)
            let on = (w.t * 4 / self.cycles).is_multiple_of(2);
            let rate = if !on {
                0.01
            } else if self.contention {
                0.15
            } else {
                0.2
            };
            if tr.arr_out[i] == 0 && rng.gen_bool(rate) {
                let prio = [3, 4, 3, 4, 0, 6][rng.gen_range(0..6)];
                let dst = if rng.gen_bool(0.5) {
                    if self.contention {
                        rng.gen_range(0..2)
                    } else {
                        0
                    }
                } else {
                    rng.gen_range(0..np)
                };
                let size = rng.gen_range(64..=1500);
                tr.arrive(Pkt {
                    src: i,
                    dst,
                    prio,
                    size,
                });
            }
            // the output ports drain, the hot ones slowly (with contention: in bursts, so that
            // a burst of dequeues meets the sorts its enqueues asked for)
            let rate = match (hot(i), self.contention) {
                (false, _) => 0.3,
                (true, false) => 0.01,
                (true, true) if (w.t / 100).is_multiple_of(2) => 1.0,
                (true, true) => 0.002,
            };
            if tr.deq_out[i] == 0 && rng.gen_bool(rate) {
                tr.dequeue(i);
            }
            // MACs busy now and then, for a data frame or a long stretch
            if *b > 0 {
                *b -= 1;
            } else if rng.gen_bool(0.005) {
                *b = rng.gen_range(20..400);
            }
            w.inp.pfc_ready[i] = *b == 0;
        }
        // (with stray ports, no new departure for 16 cycles in 512: the enqueue lane empties,
        // and stray enqueues find it free)
        let quiet = self.stray && w.t % 512 < 16;
        if tr.dep_out < 2 && !quiet && rng.gen_bool(0.5) {
            // (one of the ports with a packet waiting, at random: counted, then the k-th found,
            // so that a cycle allocates nothing)
            let waiting = |i: &usize| !tr.ing[*i].is_empty();
            let n = (0..np).filter(waiting).count();
            if n > 0 {
                let k = rng.gen_range(0..n);
                let i = (0..np).filter(waiting).nth(k).expect("k < n");
                tr.depart(i, None);
            }
        }
        tr.lanes.drive(&mut w.inp);
        if self.stray {
            // a departure or an enqueue naming a port NP or above, on its lane when the lanes
            // offer nothing there in this cycle (for one cycle: it is never taken)
            let top = 1u64 << port_width(np);
            let (sw, i) = (&mut w.inp, rng.gen_range(0..np as u64));
            if !sw.dep_valid && rng.gen_bool(0.05) {
                (sw.dep_valid, sw.dep_port) = (true, rng.gen_range(np as u64..top));
                (sw.dep_prio, sw.dep_size) = (3, rng.gen_range(64..=1500));
            }
            if !sw.enq_valid && rng.gen_bool(0.2) {
                let (o, k) = if rng.gen_bool(0.5) {
                    (rng.gen_range(np as u64..top), i)
                } else {
                    (i, rng.gen_range(np as u64..top))
                };
                (sw.enq_valid, sw.enq_oport, sw.enq_iport) = (true, o, k);
                (sw.enq_prio, sw.enq_size) = (3, rng.gen_range(64..=1500));
            }
        }
        r.cycle(false);
        if r.w.top.u_egress.e_q.iter().any(|&row| row != 0) {
            r.tr.count("cycles_with_e");
        }
    }
}

/// The random traffic of [`SourceV3::Random`] as a golden set writes it, without the corners a
/// set must show: the inputs' and the expected outputs' lines (`stim.hex`'s and `expect.hex`'s
/// bodies, a line per change), for tests that judge the v3 model on many seeds.
pub fn random_lines(p: &BlockParams, seed: u64, cycles: u64, mode: Mode) -> (String, String) {
    let r = random(p, seed, cycles, mode, false, false);
    (r.w.stim, r.w.expect)
}

fn random(
    p: &BlockParams,
    seed: u64,
    cycles: u64,
    mode: Mode,
    contention: bool,
    stray: bool,
) -> Run {
    let mut r = Run::new(*p);
    r.reset_and_configure(&config(p, mode, contention));
    let mut run = RandomRun::new(p.np, seed, cycles, contention, stray);
    while r.w.t < cycles {
        run.cycle(&mut r);
    }
    r
}

/// The burst period of [`random_clocked`]'s traffic: arrivals on for a quarter of it, nearly
/// off for the next (a golden set's period is its length).
pub const CLOCKED_PERIOD: u64 = 20_000;

/// The cycles of a [`random_clocked`] run its observer (`golden_v3::observe`) follows, its first
/// burst period: the model's corners (sorts, clears, scrubs, threshold landings) are counted and
/// the contract's rules checked in these cycles only (observed, a cycle takes about five times as
/// long); the environment's corners (frames, refusals, E) in every cycle.
pub const CLOCKED_OBSERVED: u64 = CLOCKED_PERIOD;

/// What a run of [`random_clocked`] saw.
#[derive(Debug, Clone, Default)]
pub struct Clocked {
    /// cycles clocked (the reset and the configuration included)
    pub cycles: u64,
    /// the corners counted (the model's over the first [`CLOCKED_OBSERVED`] cycles), each of
    /// [`required`]'s listed (0 if it never happened)
    pub corners: BTreeMap<String, u64>,
    /// the contract's rules the block's outputs broke in the observed cycles (an accept of a
    /// port NP or above, a write inside a lane's window)
    pub wrong: Vec<String>,
}

/// The random traffic of [`SourceV3::Random`] for `cycles` cycles (its bursts every
/// [`CLOCKED_PERIOD`] cycles), clocked by `clock`, not written: the soak's lockstep. The lanes
/// answer to the outputs the clock gives. Any parameters `crate::v3::check_params` takes; `stray`
/// needs a port count that is not a power of two (ports NP and above fit the port field).
pub fn random_clocked(
    p: &BlockParams,
    seed: u64,
    cycles: u64,
    mode: Mode,
    contention: bool,
    stray: bool,
    clock: Clock,
) -> Clocked {
    let mut r = Run::new(*p);
    r.w.clock = Some(clock);
    r.observe = CLOCKED_OBSERVED;
    r.reset_and_configure(&config(p, mode, contention));
    let mut run = RandomRun::new(p.np, seed, cycles.min(CLOCKED_PERIOD), contention, stray);
    while r.w.t < cycles && !r.w.stopped {
        run.cycle(&mut r);
    }
    let mut corners = r.corners();
    for c in required(&SourceV3::Random {
        seed,
        cycles,
        mode,
        contention,
        stray,
        steady: false,
    }) {
        corners.entry(c.to_string()).or_default();
    }
    let mut wrong = r.ob.wrong.clone();
    wrong.extend(r.ob.early.iter().map(|(t, tw, a)| {
        format!("a lane taken in cycle {t} depends on the write of address {a:#04x} in cycle {tw}")
    }));
    Clocked {
        cycles: r.w.t,
        corners,
        wrong,
    }
}

/// What [`check_source`] found: the checker's count of what it judged, its first violations
/// (first ones first), the rules it could not judge for want of traffic, and how often the
/// fault's wrong value differed from the right one (0 without a fault: a fault that never fired
/// could not have been caught).
#[derive(Debug, Clone)]
pub struct CheckedRun {
    pub summary: crate::check::Summary,
    pub violations: Vec<crate::check::Violation>,
    pub weak: Vec<crate::check::Weakness>,
    pub fired: u64,
}

/// Why [`check_source`] could not judge a run.
#[derive(Debug, thiserror::Error)]
pub enum CheckRunError {
    #[error(transparent)]
    Checker(#[from] crate::check::CheckerError),
    /// The run's script did not finish (with a fault in force, a directed case may wait for a
    /// state the faulty block never reaches).
    #[error("{set}: {source}")]
    Run {
        set: String,
        #[source]
        source: RunError,
    },
}

/// The block's model on random traffic through its lanes ([`random_clocked`]'s: no contention,
/// no stray port), judged by [`check_source`]: what `capfc check --model` runs.
pub fn check_random(
    p: &BlockParams,
    mode: Mode,
    seed: u64,
    cycles: u64,
    fault: Option<crate::v3::fault::Fault>,
    limit: usize,
) -> Result<CheckedRun, CheckRunError> {
    let source = SourceV3::Random {
        seed,
        cycles,
        mode,
        contention: false,
        stray: false,
        steady: false,
    };
    check_source(p, &source, fault, limit)
}

/// The block's model, with an optional fault of its catalogue, on the traffic of a golden set's
/// source (random, directed, the busy MAC, the reset with E set: its lanes answering to the model's
/// outputs, so a fault's model is driven as the set's script drives the right one; the switch's:
/// its recorded lanes played as they were), judged cycle by
/// cycle by the reference checker within the block's own envelope
/// ([`crate::check::block::envelope_of_v3`]): the lanes read from the block's ports as
/// `check/v3/capfc_top_v3.map.toml` reads a waveform's ([`crate::check::block::AdapterV3`]). At
/// most `limit` violations are kept.
pub fn check_source(
    p: &BlockParams,
    source: &SourceV3,
    fault: Option<crate::v3::fault::Fault>,
    limit: usize,
) -> Result<CheckedRun, CheckRunError> {
    use crate::check::block::{envelope_of_v3, params_of, AdapterV3};
    use std::cell::RefCell;
    use std::rc::Rc;
    struct Judge {
        ad: AdapterV3,
        ck: crate::check::Checker,
        found: Vec<crate::check::Violation>,
    }
    let ad = AdapterV3::new(p);
    let ck = crate::check::Checker::new(params_of(p), ad.config(), envelope_of_v3(p), true)?;
    let judge = Rc::new(RefCell::new(Judge {
        ad,
        ck,
        found: vec![],
    }));
    let j = Rc::clone(&judge);
    let mut first = true;
    let clock: Clock = Box::new(move |inp: &TopIn, top: &mut Top, out: &mut TopOut| {
        if first {
            top.set_fault(fault);
            first = false;
        }
        top.cycle_into(inp, out);
        let j = &mut *j.borrow_mut();
        let c = j.ad.cycle(inp, out);
        for v in j.ck.step(c) {
            if j.found.len() < limit {
                j.found.push(v);
            }
        }
        true
    });
    crate::v3::fault::reset_fired();
    let set = format!("{source:?}");
    let ran = match source {
        SourceV3::Random {
            seed,
            cycles,
            mode,
            contention,
            stray,
            ..
        } => {
            random_clocked(p, *seed, *cycles, *mode, *contention, *stray, clock);
            Ok(())
        }
        _ => {
            NEXT_CLOCK.with(|c| *c.borrow_mut() = Some(clock));
            let r = run_of(p, source, false).map(drop);
            // (a script that made no run leaves its clock behind: not for the next caller)
            NEXT_CLOCK.with(|c| c.borrow_mut().take());
            r
        }
    };
    let fired = crate::v3::fault::fired();
    ran.map_err(|source| CheckRunError::Run { set, source })?;
    let mut j = Rc::try_unwrap(judge)
        .ok()
        .expect("the clock is dropped with its run")
        .into_inner();
    for v in j.ck.finish() {
        if j.found.len() < limit {
            j.found.push(v);
        }
    }
    Ok(CheckedRun {
        summary: j.ck.summary().clone(),
        violations: j.found,
        weak: j.ck.weak(),
        fired,
    })
}

/// A reset while E is set: random traffic (seed 1) until E has bits set (and at least 500
/// cycles), a reset and the configuration again, then 400 cycles of traffic. E and its partial
/// ORs are not reset (cin_q clears them), so D must not show them: D is 0 until the lanes are
/// ready again.
fn reset_with_e(p: &BlockParams, mode: Mode) -> Result<Run, RunError> {
    let mut r = Run::new(*p);
    r.reset_and_configure(&config(p, mode, false));
    let mut run = RandomRun::new(p.np, 1, 2000, false, false);
    let e_set = |r: &Run| r.w.top.u_egress.e_q.iter().any(|&row| row != 0);
    while r.w.t < 500 || !e_set(&r) {
        if r.w.t >= 4000 {
            return Err(RunError::ENeverSet);
        }
        run.cycle(&mut r);
    }
    let bits: u32 =
        r.w.top
            .u_egress
            .e_q
            .iter()
            .map(|row| row.count_ones())
            .sum();
    r.tr.corners
        .insert("e_bits_at_the_reset".into(), bits.into());
    r.reset_and_configure(&config(p, mode, false));
    let end = r.w.t + 400;
    while r.w.t < end {
        run.cycle(&mut r);
    }
    Ok(r)
}

/// [`SourceV3::Switch`]: the switch of built-in scenario `scenario` in `mode` with the block's
/// model, run `cycles` switch cycles (or to its end), its block's inputs from the reset on
/// replayed through the set's writer and observer.
fn from_switch(
    p: &BlockParams,
    scenario: &str,
    mode: crate::switch::FlowMode,
    cycles: u64,
) -> Result<Run, RunError> {
    let sc = crate::switch::scenario::Scenario::builtin(scenario)
        .ok_or_else(|| RunError::NoScenario(scenario.to_string()))?;
    let bad = |e: &dyn std::fmt::Display| RunError::Switch {
        scenario: scenario.to_string(),
        what: e.to_string(),
    };
    let mut sw = crate::switch::Switch::new_recorded_v3(&sc, mode).map_err(|e| bad(&e))?;
    if sw.block_params() != *p {
        return Err(RunError::ScenarioParams {
            scenario: scenario.to_string(),
            got: Box::new(sw.block_params()),
        });
    }
    while sw.now < cycles && !sw.done() {
        sw.tick_cycle();
        if let Some(m) = &sw.mismatch {
            return Err(bad(m));
        }
    }
    let rec = sw.recorded_v3().unwrap_or_default();
    let mut r = Run::new(*p);
    let mut configured = false;
    for inp in &rec {
        let lane = inp.dep_valid
            || inp.enq_valid
            || inp.arr_valid.iter().chain(&inp.deq_valid).any(|&v| v);
        if !configured && !inp.rst && !inp.cfg_we {
            // (the switch's writes are done: the observer judges the lanes from here)
            configured = true;
            r.ob.arm();
        }
        if configured && lane && r.lanes_from.is_empty() {
            r.lanes_from.push(r.w.t);
        }
        r.w.inp.clone_from(inp);
        r.cycle(false);
    }
    Ok(r)
}

fn mac_busy(p: &BlockParams, mode: Mode) -> Result<Run, RunError> {
    let mut r = Run::new(*p);
    r.reset_and_configure(&config(p, mode, false));
    let pkt = |prio| Pkt {
        src: 0,
        dst: 1,
        prio,
        size: 1500,
    };
    // the steps, each waiting for D of port 0 to reach its value: (D, the step's events)
    let steps: [(u8, &[(bool, usize)]); 5] = [
        // XOFF of priority 3 (five 1,500-byte frames: 7,500 bytes over XOFF 6,000), sent
        (1 << 3, &[(true, 3); 5]),
        // the MAC busy from here: XON of 3 (four leave: 1,500 bytes, under XON 3,000)
        (0, &[(false, 3); 4]),
        // XOFF of 4
        (1 << 4, &[(true, 4); 5]),
        // XON of 4
        (0, &[(false, 4); 4]),
        // XOFF of 4 again
        (1 << 4, &[(true, 4); 4]),
    ];
    let limit = r.w.t + 4000;
    let (mut changes, mut last_d) = (0u64, 0u8);
    for (k, (want, events)) in steps.iter().enumerate() {
        for &(arrive, prio) in events.iter() {
            if arrive {
                r.tr.arrive(pkt(prio));
            } else {
                // (departures wait for the arrivals they take to be accepted)
                while !r.tr.depart(0, Some(prio)) {
                    step(&mut r, limit)?;
                }
            }
        }
        // (the frame of step 0 is taken before the MAC goes busy)
        while r.w.out.d_state[0] != *want || (k == 0 && r.sent[0] != *want) {
            step(&mut r, limit)?;
        }
        if k == 0 {
            r.w.inp.pfc_ready[0] = false;
        } else if r.w.out.d_state[0] != last_d {
            changes += 1;
        }
        last_d = r.w.out.d_state[0];
        // (dequeue everything enqueued: the egress stays empty)
        while r.tr.dequeue(1) {}
    }
    for _ in 0..300 {
        step(&mut r, limit)?;
    }
    if !r.w.out.pfc_valid[0] {
        return Err(RunError::NoFramePending);
    }
    r.tr.corners
        .insert("d_changes_while_the_mac_is_busy".into(), changes);
    let xon_before = r.tr.corners.get("xon_frames").copied().unwrap_or(0);
    r.w.inp.pfc_ready[0] = true;
    while r.sent[0] != 1 << 4 {
        step(&mut r, limit)?;
    }
    let xon = r.tr.corners.get("xon_frames").copied().unwrap_or(0) - xon_before;
    if changes < 3 || xon != 1 {
        return Err(RunError::MacBusy { changes, xon });
    }
    r.tr.corners.insert("xon_after_the_busy_mac".into(), xon);
    for _ in 0..100 {
        step(&mut r, limit)?;
    }
    Ok(r)
}

/// One cycle of the directed sets.
fn step(r: &mut Run, limit: u64) -> Result<(), RunError> {
    if r.w.t >= limit {
        return Err(RunError::Timeout {
            what: "the directed steps",
            limit,
        });
    }
    r.cycle(true);
    Ok(())
}

/// The run of a set's source (`nudge`: [`build_nudged`]'s). A run made with a clock pending
/// ([`check_source`]) is clocked by it.
fn run_of(p: &BlockParams, source: &SourceV3, nudge: bool) -> Result<Run, RunError> {
    match source {
        SourceV3::Random {
            seed,
            cycles,
            mode,
            contention,
            stray,
            ..
        } => Ok(random(p, *seed, *cycles, *mode, *contention, *stray)),
        SourceV3::MacBusy { mode } => mac_busy(p, *mode),
        SourceV3::ResetWithE { mode } => reset_with_e(p, *mode),
        SourceV3::Directed { case, mode } => directed::run(p, case, *mode, nudge),
        // (the switch's lanes recorded from its run, then played to the block)
        SourceV3::Switch {
            scenario,
            mode,
            cycles,
        } => from_switch(p, scenario, *mode, *cycles),
    }
}

/// The set's four files, as text, and `config.toml` for a steady random set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFilesV3 {
    pub manifest: String,
    pub params_vh: String,
    pub stim: String,
    pub expect: String,
    /// `crate::golden::STEADY_CONFIG`, for a steady random set only ([`SourceV3::Random`])
    pub config_toml: Option<String>,
}

/// The corners a set must show: each counted at least once.
pub fn required(source: &SourceV3) -> Vec<&'static str> {
    match source {
        SourceV3::Random {
            contention, stray, ..
        } => {
            let mut v = vec!["arrivals_refused"];
            if !*contention && !*stray {
                // (with contention or stray ports the hot egress drains fast and is rarely
                // full)
                v.push("enqueues_refused");
            }
            v.push("xoff_frames");
            if !*stray {
                // (at 12 ports E holds D up longer than a short run: its XONs come later)
                v.push("xon_frames");
            }
            v.extend(["frames_waiting_for_a_busy_mac", "cycles_with_e"]);
            if *contention {
                v.extend([
                    "cycles_with_requests_waiting_for_a_busy_engine",
                    "cycles_with_three_rows_waiting_on_one_engine",
                    "sorts_aborted_by_a_clear",
                    "pending_requests_dropped_by_a_clear",
                ]);
            }
            if *stray {
                v.extend([
                    "departures_naming_a_port_np_or_above",
                    "enqueues_naming_a_port_np_or_above",
                    "enqueues_naming_a_port_np_or_above_not_taken",
                ]);
            }
            v
        }
        SourceV3::MacBusy { .. } => {
            vec!["d_changes_while_the_mac_is_busy", "xon_after_the_busy_mac"]
        }
        SourceV3::ResetWithE { .. } => vec!["e_bits_at_the_reset"],
        SourceV3::Directed { case, mode } => directed::required(case, *mode),
        // (congestion at the switch: its sorts, XOFF frames out, their refreshes and the fall
        // back to XON)
        SourceV3::Switch { mode, .. } => vec![
            if mode.block_mode() == Mode::StopMax {
                "stop_max_sorts"
            } else {
                "stop_calibrate_sorts"
            },
            "xoff_frames",
            "refresh_frames",
            "xon_frames",
        ],
    }
}

/// The parameters the v3 sets are generated at (the corners' stimulus is written for them).
fn supported(p: &BlockParams) -> bool {
    (4..=128).contains(&p.np) && (4..=16).contains(&p.cw) && *p == params_cw(p.np, p.cw)
}

/// Build a set from its name, parameters and source; refused if a corner it covers did not
/// happen.
pub fn build(set: &str, p: &BlockParams, source: &SourceV3) -> Result<SetFilesV3, GoldenV3Error> {
    build_nudged(set, p, source, false)
}

/// The corners counted over run `r` of set `set`, once the run is shown to keep the block's
/// contract, to take no lane inside a write's window, and to reach every corner the set is
/// named after.
fn judge(
    set: &str,
    p: &BlockParams,
    source: &SourceV3,
    r: &Run,
) -> Result<BTreeMap<String, u64>, GoldenV3Error> {
    if let Some(e) = r.ob.wrong.first() {
        return Err(GoldenV3Error::Contract {
            set: set.to_string(),
            what: e.clone(),
        });
    }
    if let Some(&(taken, written, addr)) = r.ob.early.first() {
        return Err(GoldenV3Error::Early {
            set: set.to_string(),
            taken,
            written,
            addr,
            window: Observer::window(p.np),
        });
    }
    let corners = r.corners();
    for c in &required(source) {
        if corners.get(*c).copied().unwrap_or(0) == 0 {
            return Err(GoldenV3Error::Corner {
                set: set.to_string(),
                corner: c.to_string(),
                counted: format!("{corners:?}"),
            });
        }
    }
    Ok(corners)
}

/// [`build`], or with `nudge` the set's stimulus moved by one step at the point its corner
/// depends on (a unit of occupancy, a slot, a cycle count): the corner must then not happen and
/// the set is refused. The tests use it to show that every corner counter can fail.
///
/// (Long: after the run, the set's files written out field by field.)
pub fn build_nudged(
    set: &str,
    p: &BlockParams,
    source: &SourceV3,
    nudge: bool,
) -> Result<SetFilesV3, GoldenV3Error> {
    // (a set from the switch has the parameters of its scenario's block, checked by its run)
    if !supported(p) && !matches!(source, SourceV3::Switch { .. }) {
        return Err(GoldenV3Error::Unsupported {
            set: set.to_string(),
            params: Box::new(*p),
        });
    }
    if let SourceV3::Random { cycles, .. } = source {
        if *cycles > MAX_CYCLES {
            return Err(GoldenV3Error::TooLong {
                set: set.to_string(),
                cycles: *cycles,
                max: MAX_CYCLES,
            });
        }
    }
    let run_err = |source| GoldenV3Error::Run {
        set: set.to_string(),
        source,
    };
    let r = run_of(p, source, nudge).map_err(run_err)?;
    let corners = judge(set, p, source, &r)?;
    let req = required(source);
    let w = &r.w;
    let head = |what: &str, bits: usize, cols: &str| {
        format!(
            "// capfc golden set {set} (format {FORMAT_V3}, capfc_top_oc): {what}\n\
             // each line: cycle[31:0] _ {{{cols}}} ({bits} bits)\n"
        )
    };
    let stim = head(
        "inputs. A cycle without a line drives every input 0 but pfc_ready, held from the last line.",
        w.in_bits,
        "rst, cfg_we, cfg_addr, cfg_wdata, arr_valid, arr_prio, arr_size, dep_valid, dep_port, \
         dep_prio, dep_size, enq_valid, enq_oport, enq_prio, enq_iport, enq_size, deq_valid, \
         deq_prio, deq_size, pfc_ready",
    ) + &w.stim;
    let expect = head(
        "expected outputs, one line per change (and cycle 0).",
        w.out_bits,
        "arr_ready, deq_ready, arr_accept, enq_accept, pfc_valid, pfc_cev, pfc_xoff, pfc_quanta, \
         d_state",
    ) + &w.expect;
    let m = Manifest3 {
        format: FORMAT_V3,
        set: set.to_string(),
        top: "capfc_top_oc".into(),
        params: *p,
        source: source.clone(),
        register_writes: w.writes.clone(),
        lanes_from: r.lanes_from.clone(),
        corners,
        required: req.iter().map(|c| c.to_string()).collect(),
        cycles: w.t,
        in_bits: w.in_bits,
        out_bits: w.out_bits,
        stim_lines: w.stim_lines,
        expect_lines: w.expect_lines,
        model_version: env!("CARGO_PKG_VERSION").to_string(),
        sha256_stim: sha256(&stim),
        sha256_expect: sha256(&expect),
    };
    let params_vh = format!(
        "// capfc golden set {set}: parameters for testbench/capfc_tb.sv (generated; see manifest.json)\n\
         `define CAPFC_V3 1\n\
         `define CAPFC_NP {}\n`define CAPFC_SW {}\n`define CAPFC_OW {}\n`define CAPFC_CW {}\n\
         `define CAPFC_CELL_LOG2 {}\n`define CAPFC_CUT_F {}\n`define CAPFC_NL {}\n\
         `define CAPFC_IN_BITS {}\n`define CAPFC_OUT_BITS {}\n`define CAPFC_CYCLES {}\n\
         `define CAPFC_STIM_LINES {}\n`define CAPFC_EXPECT_LINES {}\n",
        p.np,
        p.sw,
        p.ow,
        p.cw,
        p.cell_log2,
        p.cut_f,
        p.nl,
        w.in_bits,
        w.out_bits,
        w.t,
        w.stim_lines,
        w.expect_lines
    );
    let config_toml = match source {
        SourceV3::Random {
            mode,
            contention,
            steady: true,
            ..
        } => Some(steady_config(set, p, w, &config(p, *mode, *contention))?),
        _ => None,
    };
    Ok(SetFilesV3 {
        manifest: serde_json::to_string_pretty(&m).expect("a manifest serializes") + "\n",
        params_vh,
        stim,
        expect,
        config_toml,
    })
}

/// The `config.toml` of a steady random set written by `w`, whose writes program `cfg`: its
/// timing read from the writes and the first lane the run drove, and refused if the run broke
/// the promise (a write after the first lane, writes not in consecutive cycles, a gap shorter
/// than [`config_gap`]).
fn steady_config(
    set: &str,
    p: &BlockParams,
    w: &Writer,
    cfg: &BlockConfig,
) -> Result<String, GoldenV3Error> {
    let broken = |what: String| GoldenV3Error::NotSteady {
        set: set.to_string(),
        what,
    };
    let (Some(first), Some(last)) = (w.writes.first(), w.writes.last()) else {
        return Err(broken("no configuration write".into()));
    };
    if last.0 - first.0 + 1 != w.writes.len() as u64 {
        return Err(broken(format!(
            "{} writes from cycle {} to {}: not in consecutive cycles",
            w.writes.len(),
            first.0,
            last.0
        )));
    }
    let gap = config_gap(p.np);
    let t = crate::golden::SteadyTiming {
        first_write: first.0,
        last_write: last.0,
        lanes_from: last.0 + 1 + gap,
        gap,
        cycles: w.t,
    };
    if let Some((c, what)) = w.late {
        return Err(broken(format!("{what} in cycle {c}, after the first lane")));
    }
    match w.first_lane {
        Some(f) if f < t.lanes_from => Err(broken(format!(
            "a lane in cycle {f}, before cycle {} ({gap} cycles after the last write)",
            t.lanes_from
        ))),
        _ => Ok(crate::golden::steady_config_toml(set, p, &t, cfg)),
    }
}

const FILES: [&str; 4] = ["manifest.json", "params.vh", "stim.hex", "expect.hex"];

impl SetFilesV3 {
    fn texts(&self) -> [&str; 4] {
        [&self.manifest, &self.params_vh, &self.stim, &self.expect]
    }
}

/// Write a set's files into `dir` (created).
pub fn write(dir: &Path, f: &SetFilesV3) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in FILES.iter().zip(f.texts()) {
        std::fs::write(dir.join(name), text)?;
    }
    let cfg = dir.join(crate::golden::STEADY_CONFIG);
    match &f.config_toml {
        Some(t) => std::fs::write(cfg, t)?,
        // (a set written over a steady one must not keep its configuration file)
        None if cfg.exists() => std::fs::remove_file(cfg)?,
        None => {}
    }
    Ok(())
}

/// Check the set in `dir`: its manifest is read (format 3), the set is built again from the
/// manifest's source and parameters, and every file must be the same, byte for byte. The error
/// names the file and its first differing line.
pub fn check(dir: &Path) -> Result<Manifest3, GoldenV3Error> {
    let mpath = dir.join("manifest.json");
    let file = mpath.display().to_string();
    let io = |file: &Path| {
        let file = file.display().to_string();
        move |source| GoldenV3Error::Io { file, source }
    };
    let json = |source| GoldenV3Error::Json {
        file: file.clone(),
        source,
    };
    let text = std::fs::read_to_string(&mpath).map_err(io(&mpath))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(json)?;
    match value.get("format").and_then(serde_json::Value::as_u64) {
        Some(f) if f == u64::from(FORMAT_V3) => {}
        found => {
            return Err(GoldenV3Error::Format {
                file: file.clone(),
                found,
            })
        }
    }
    let m: Manifest3 = serde_json::from_value(value).map_err(json)?;
    m.params
        .validate()
        .map_err(|source| GoldenV3Error::Params {
            file: file.clone(),
            source,
        })?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if m.set != name {
        return Err(GoldenV3Error::Name {
            file,
            set: m.set.clone(),
            dir: name.to_string(),
        });
    }
    let f = build(&m.set, &m.params, &m.source).map_err(|e| GoldenV3Error::Rebuild {
        dir: dir.display().to_string(),
        source: Box::new(e),
    })?;
    let cfg = dir.join(crate::golden::STEADY_CONFIG);
    let steady_file = |why| GoldenV3Error::SteadyFile {
        file: cfg.display().to_string(),
        why,
    };
    let cfg_text = match (&f.config_toml, cfg.exists()) {
        (Some(t), true) => Some(t.as_str()),
        (None, false) => None,
        (Some(_), false) => {
            return Err(steady_file("missing (regenerate with `capfc golden gen`)"))
        }
        (None, true) => {
            return Err(steady_file(
                "a set of this source has no such file (remove it, or regenerate the set)",
            ))
        }
    };
    let files = FILES
        .iter()
        .zip(f.texts())
        .chain(cfg_text.map(|t| (&crate::golden::STEADY_CONFIG, t)));
    for (file, want) in files {
        let path = dir.join(file);
        let got = std::fs::read_to_string(&path).map_err(io(&path))?;
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
            return Err(GoldenV3Error::Stale {
                file: path.display().to_string(),
                line: line + 1,
            });
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lane taken inside the window of a write it depends on is seen (the generator refuses
    /// such a set); the same lane offered after [`config_gap`] is not.
    #[test]
    fn a_lane_inside_a_writes_window_is_seen() {
        let p = params(4);
        let cfg = config(&p, Mode::StopMax, false);
        for gap in [0, config_gap(p.np)] {
            let mut r = Run::new(p);
            r.w.inp.rst = true;
            r.cycle(false);
            for (a, d) in cfg.register_writes() {
                (r.w.inp.cfg_we, r.w.inp.cfg_addr, r.w.inp.cfg_wdata) = (true, a, d);
                r.cycle(false);
            }
            for _ in 0..gap {
                r.cycle(false);
            }
            r.ob.arm();
            r.tr.arrive(Pkt {
                src: 0,
                dst: 1,
                prio: 3,
                size: 100,
            });
            for _ in 0..20 {
                r.cycle(true);
            }
            assert_eq!(r.takes, 1, "gap {gap}: the arrival is taken");
            assert_eq!(
                r.ob.early.is_empty(),
                gap > 0,
                "gap {gap}: {:?}",
                r.ob.early
            );
        }
    }
}
