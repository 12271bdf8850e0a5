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

/// The format of a v3 set (v2's sets are format 2, [`crate::golden::FORMAT`]).
pub const FORMAT_V3: u32 = 3;

/// The longest random set (a golden set is read whole into the testbench's memories).
pub const MAX_CYCLES: u64 = 1 << 20;

/// Where a v3 set's stimulus comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceV3 {
    /// Random traffic through the lanes (seeded): arrivals at every port, a hot output port
    /// whose queue drains slowly, MACs busy for random stretches.
    Random { seed: u64, cycles: u64, mode: Mode },
    /// The MAC handshake: port 0's MAC held busy while D of port 0 changes at least three
    /// times (XON of priority 3, XOFF of 4, XON of 4, XOFF of 4); the frame taken when the MAC
    /// is free again carries priority 3's XON.
    MacBusy { mode: Mode },
    /// A reset while E has bits set (after random traffic), then the configuration and traffic
    /// again: D stays 0 until the lanes are ready after the reset.
    ResetWithE { mode: Mode },
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
    /// what the set covers, counted by the generator (each at least 1, or no set)
    pub corners: BTreeMap<String, u64>,
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

fn params(np: usize) -> BlockParams {
    BlockParams::from_values(&[np as u32, 14, 20, 16, 0, 8, 2])
}

/// The checked-in v3 sets (`golden/v3`).
pub fn curated() -> Vec<CuratedV3> {
    let mut v = vec![];
    for mode in [Mode::StopMax, Mode::StopCal] {
        v.push(CuratedV3 {
            name: format!("mac_busy_{}_np4", mode.name()),
            params: params(4),
            source: SourceV3::MacBusy { mode },
        });
    }
    for mode in [Mode::StopMax, Mode::StopCal] {
        v.push(CuratedV3 {
            name: format!("reset_with_e_{}_np4", mode.name()),
            params: params(4),
            source: SourceV3::ResetWithE { mode },
        });
    }
    for (np, cycles) in [(4usize, 3000u64), (8, 2400)] {
        for mode in [Mode::StopMax, Mode::StopCal] {
            v.push(CuratedV3 {
                name: format!("random_{}_np{np}_seed1", mode.name()),
                params: params(np),
                source: SourceV3::Random {
                    seed: 1,
                    cycles,
                    mode,
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
        *self.corners.entry(what.to_string()).or_default() += 1;
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

/// The configuration of the sets: priorities 3 and 4 lossless and counted, thresholds a few
/// frames deep so that a short run crosses them (bytes: `CELL_LOG2` = 0).
fn config(p: &BlockParams, mode: Mode) -> BlockConfig {
    let t = PrioThresholds {
        ing_max: 10_000,
        ing_xoff: 6_000,
        ing_xon: 3_000,
        eg_max: 24_000,
        eg_xoff: 8_000,
        eg_xon: 4_000,
        eg_warn: 5_000,
    };
    BlockConfig {
        prio: [t; crate::block::NPRIO],
        lossless: (1 << 3) | (1 << 4),
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
}

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

    /// The block's cycle with `self.inp`, its lines written.
    fn cycle(&mut self) {
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

    /// A reset cycle, then the configuration's register writes.
    fn reset_and_configure(&mut self, cfg: &BlockConfig) {
        self.clear();
        self.inp.rst = true;
        self.cycle();
        for (a, d) in cfg.register_writes() {
            self.clear();
            (self.inp.cfg_we, self.inp.cfg_addr, self.inp.cfg_wdata) = (true, a, d);
            self.cycle();
        }
        self.clear();
    }
}

/// PFC frames taken in the cycle just run, counted: XOFF frames, and XONs (a priority sent
/// paused before and resumed in this frame). `sent`: per port, the classes last sent paused.
fn count_frames(w: &Writer, tr: &mut Traffic, sent: &mut [u8]) {
    for (i, s) in sent.iter_mut().enumerate() {
        if w.out.pfc_valid[i] && w.inp.pfc_ready[i] {
            let x = w.out.pfc_xoff[i];
            if x != 0 {
                tr.count("xoff_frames");
            }
            if *s & !x != 0 {
                tr.count("xon_frames");
            }
            *s = x;
        }
    }
}

/// The random traffic's state: its generator, and per port the MAC's busy cycles left and the
/// classes last sent paused.
struct RandomRun {
    rng: ChaCha8Rng,
    busy: Vec<u64>,
    sent: Vec<u8>,
    /// the burst period's quarter: arrivals on in even quarters, nearly off in odd ones
    cycles: u64,
}

impl RandomRun {
    fn new(np: usize, seed: u64, cycles: u64) -> Self {
        RandomRun {
            rng: ChaCha8Rng::seed_from_u64(seed),
            busy: vec![0; np],
            sent: vec![0; np],
            cycles,
        }
    }

    /// One cycle of random traffic through the lanes, and the block's.
    fn cycle(&mut self, w: &mut Writer, tr: &mut Traffic) {
        let np = self.busy.len();
        let rng = &mut self.rng;
        let hot = 0usize;
        for (i, b) in self.busy.iter_mut().enumerate() {
            // arrivals: lossless priorities mostly, half of them to the hot port
            // (in bursts: a quarter of the run on, a quarter nearly off, so that queues fill
            // past XOFF and drain under XON)
            let rate = if (w.t * 4 / self.cycles).is_multiple_of(2) {
                0.2
            } else {
                0.01
            };
            if tr.arr_out[i] == 0 && rng.gen_bool(rate) {
                let prio = [3, 4, 3, 4, 0, 6][rng.gen_range(0..6)];
                let dst = if rng.gen_bool(0.5) {
                    hot
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
            // the output ports drain, the hot one slowly
            let rate = if i == hot { 0.01 } else { 0.3 };
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
        if tr.dep_out < 2 && rng.gen_bool(0.5) {
            let waiting: Vec<usize> = (0..np).filter(|&i| !tr.ing[i].is_empty()).collect();
            if !waiting.is_empty() {
                tr.depart(waiting[rng.gen_range(0..waiting.len())], None);
            }
        }
        tr.lanes.drive(&mut w.inp);
        w.cycle();
        count_frames(w, tr, &mut self.sent);
        if (0..np).any(|i| w.out.pfc_valid[i] && !w.inp.pfc_ready[i]) {
            tr.count("frames_waiting_for_a_busy_mac");
        }
        if w.top.u_egress.e_q.iter().any(|&r| r != 0) {
            tr.count("cycles_with_e");
        }
        tr.settle(w.t - 1, false, &w.out);
        w.clear();
    }
}

/// The random traffic of [`SourceV3::Random`] as a golden set writes it, without the corners a
/// set must show: the inputs' and the expected outputs' lines (`stim.hex`'s and `expect.hex`'s
/// bodies, a line per change), for tests that judge the v3 model on many seeds.
pub fn random_lines(p: &BlockParams, seed: u64, cycles: u64, mode: Mode) -> (String, String) {
    let (w, _) = random(p, seed, cycles, mode);
    (w.stim, w.expect)
}

fn random(p: &BlockParams, seed: u64, cycles: u64, mode: Mode) -> (Writer, Traffic) {
    let mut w = Writer::new(*p);
    let mut tr = Traffic::new(p.np);
    w.reset_and_configure(&config(p, mode));
    let mut run = RandomRun::new(p.np, seed, cycles);
    while w.t < cycles {
        run.cycle(&mut w, &mut tr);
    }
    (w, tr)
}

/// A reset while E is set: random traffic (seed 1) until E has bits set (and at least 500
/// cycles), a reset and the configuration again, then 400 cycles of traffic. E and its partial
/// ORs are not reset (cin_q clears them), so D must not show them: D is 0 until the lanes are
/// ready again.
fn reset_with_e(p: &BlockParams, mode: Mode) -> Result<(Writer, Traffic), String> {
    let mut w = Writer::new(*p);
    let mut tr = Traffic::new(p.np);
    w.reset_and_configure(&config(p, mode));
    let mut run = RandomRun::new(p.np, 1, 2000);
    while w.t < 500 || !w.top.u_egress.e_q.iter().any(|&r| r != 0) {
        if w.t >= 4000 {
            return Err("E was never set in 4,000 cycles".into());
        }
        run.cycle(&mut w, &mut tr);
    }
    let bits: u32 = w.top.u_egress.e_q.iter().map(|r| r.count_ones()).sum();
    // (the block forgets every lane it took; the environment starts again too)
    let corners = std::mem::take(&mut tr.corners);
    tr = Traffic::new(p.np);
    tr.corners = corners;
    tr.corners.insert("e_bits_at_the_reset".into(), bits.into());
    run.sent.fill(0);
    w.reset_and_configure(&config(p, mode));
    let end = w.t + 400;
    while w.t < end {
        run.cycle(&mut w, &mut tr);
    }
    Ok((w, tr))
}

fn mac_busy(p: &BlockParams, mode: Mode) -> Result<(Writer, Traffic), String> {
    let np = p.np;
    let mut w = Writer::new(*p);
    let mut tr = Traffic::new(np);
    w.reset_and_configure(&config(p, mode));
    let mut sent = vec![0u8; np];
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
    let limit = w.t + 4000;
    let (mut changes, mut last_d) = (0u64, 0u8);
    for (k, (want, events)) in steps.iter().enumerate() {
        for &(arrive, prio) in events.iter() {
            if arrive {
                tr.arrive(pkt(prio));
            } else {
                // (departures wait for the arrivals they take to be accepted)
                while !tr.depart(0, Some(prio)) {
                    step(&mut w, &mut tr, &mut sent, limit)?;
                }
            }
        }
        // (the frame of step 0 is taken before the MAC goes busy)
        while w.out.d_state[0] != *want || (k == 0 && sent[0] != *want) {
            step(&mut w, &mut tr, &mut sent, limit)?;
        }
        if k == 0 {
            w.inp.pfc_ready[0] = false;
        } else if w.out.d_state[0] != last_d {
            changes += 1;
        }
        last_d = w.out.d_state[0];
        // (dequeue everything enqueued: the egress stays empty)
        while tr.dequeue(1) {}
    }
    for _ in 0..300 {
        step(&mut w, &mut tr, &mut sent, limit)?;
    }
    if !w.out.pfc_valid[0] {
        return Err("no frame pending at port 0 at the end of the busy stretch".into());
    }
    tr.corners
        .insert("d_changes_while_the_mac_is_busy".into(), changes);
    let xon_before = tr.corners.get("xon_frames").copied().unwrap_or(0);
    w.inp.pfc_ready[0] = true;
    while sent[0] != 1 << 4 {
        step(&mut w, &mut tr, &mut sent, limit)?;
    }
    let xon = tr.corners.get("xon_frames").copied().unwrap_or(0) - xon_before;
    if changes < 3 || xon != 1 {
        return Err(format!(
            "D of port 0 changed {changes} times while its MAC was busy, and {xon} XON frames \
             followed (at least 3, and 1)"
        ));
    }
    tr.corners.insert("xon_after_the_busy_mac".into(), xon);
    for _ in 0..100 {
        step(&mut w, &mut tr, &mut sent, limit)?;
    }
    Ok((w, tr))
}

/// One cycle of the directed sets.
fn step(w: &mut Writer, tr: &mut Traffic, sent: &mut [u8], limit: u64) -> Result<(), String> {
    if w.t >= limit {
        return Err(format!("the directed steps did not end by cycle {limit}"));
    }
    tr.lanes.drive(&mut w.inp);
    w.cycle();
    count_frames(w, tr, sent);
    tr.settle(w.t - 1, false, &w.out);
    w.clear();
    Ok(())
}

/// The set's four files, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFilesV3 {
    pub manifest: String,
    pub params_vh: String,
    pub stim: String,
    pub expect: String,
}

/// The corners a set must show: each counted at least once.
fn required(source: &SourceV3) -> &'static [&'static str] {
    match source {
        SourceV3::Random { .. } => &[
            "arrivals_refused",
            "enqueues_refused",
            "xoff_frames",
            "xon_frames",
            "frames_waiting_for_a_busy_mac",
            "cycles_with_e",
        ],
        SourceV3::MacBusy { .. } => &["d_changes_while_the_mac_is_busy", "xon_after_the_busy_mac"],
        SourceV3::ResetWithE { .. } => &["e_bits_at_the_reset"],
    }
}

/// Build a set from its name, parameters and source; refused if a corner it covers did not
/// happen.
pub fn build(set: &str, p: &BlockParams, source: &SourceV3) -> Result<SetFilesV3, String> {
    if !(2..=128).contains(&p.np) || *p != params(p.np) {
        return Err(format!(
            "set {set}: the v3 sets are generated at 2 to 128 ports with SW 14, OW 20, CW 16, \
             CELL_LOG2 0, CUT_F 8, NL 2; not {p:?}"
        ));
    }
    if let SourceV3::Random { cycles, .. } = source {
        if *cycles > MAX_CYCLES {
            return Err(format!(
                "set {set}: {cycles} cycles, more than a set may have ({MAX_CYCLES})"
            ));
        }
    }
    let (w, tr) = match *source {
        SourceV3::Random { seed, cycles, mode } => random(p, seed, cycles, mode),
        SourceV3::MacBusy { mode } => mac_busy(p, mode)?,
        SourceV3::ResetWithE { mode } => reset_with_e(p, mode)?,
    };
    for c in required(source) {
        if tr.corners.get(*c).copied().unwrap_or(0) == 0 {
            return Err(format!(
                "set {set}: corner {c} did not happen (counted: {:?})",
                tr.corners
            ));
        }
    }
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
        corners: tr.corners.clone(),
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
    Ok(SetFilesV3 {
        manifest: serde_json::to_string_pretty(&m).expect("a manifest serializes") + "\n",
        params_vh,
        stim,
        expect,
    })
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
    Ok(())
}

/// Check the set in `dir`: its manifest is read (format 3), the set is built again from the
/// manifest's source and parameters, and every file must be the same, byte for byte. The error
/// names the file and its first differing line.
pub fn check(dir: &Path) -> Result<Manifest3, String> {
    let mpath = dir.join("manifest.json");
    let text = std::fs::read_to_string(&mpath).map_err(|e| format!("{}: {e}", mpath.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", mpath.display()))?;
    match value.get("format").and_then(serde_json::Value::as_u64) {
        Some(f) if f == u64::from(FORMAT_V3) => {}
        f => {
            return Err(format!(
                "{}: format {f:?}, not {FORMAT_V3} (regenerate with `capfc golden gen`)",
                mpath.display()
            ))
        }
    }
    let m: Manifest3 =
        serde_json::from_value(value).map_err(|e| format!("{}: {e}", mpath.display()))?;
    m.params
        .validate()
        .map_err(|e| format!("{}: params: {e}", mpath.display()))?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if m.set != name {
        return Err(format!(
            "{}: set {:?}, but the directory is {name:?}",
            mpath.display(),
            m.set
        ));
    }
    let f = build(&m.set, &m.params, &m.source).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, want) in FILES.iter().zip(f.texts()) {
        let path = dir.join(file);
        let got = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
            return Err(format!(
                "{}: line {}: not what the model writes (regenerate with `capfc golden gen` and \
                 review the diff)",
                path.display(),
                line + 1
            ));
        }
    }
    Ok(m)
}
