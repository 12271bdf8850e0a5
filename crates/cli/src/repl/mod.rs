//! `capfc step`: step the switch (and its block: model, RTL or both) interactively.
//!
//! A [`Session`] owns one [`Switch`] and runs the commands of [`parse`] on it: stepping with
//! breakpoints and watches, printing any unit, poking packets and pauses in, snapshots to memory or
//! files, and stepping back (from snapshots taken every `back_every` cycles, then forward again:
//! the switch is deterministic). Output is a human transcript or, with `--json`, one JSON object per
//! command. A terminal gets line editing and history (rustyline); anything else is read as a
//! script, which is how the tests drive it.

pub mod parse;
mod show;

use crate::block::pack::{get_field, unpack_state, Layouts};
use crate::block::sort::phase;
use crate::block::{BlockParams, CapfcTop, NPRIO};
use crate::switch::scenario::{FlowSpec, Scenario};
use crate::switch::BlockKind;
use crate::switch::{
    DutKind, FlowMode, PokeError, RestoreError, Snapshot, Switch, SwitchError, TraceError,
};
use crate::v3::view::{Val, View};
pub use parse::ParseError;
use parse::{Command, Cond, DropKind, FrameKind, Info, Poke, Side, Value};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::io::Write;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The format tag of a snapshot file.
pub const SNAPSHOT_FORMAT: &str = "capfc-snapshot-1";

/// A snapshot file: the tag, what it was taken of, and the state.
#[derive(serde::Serialize, serde::Deserialize)]
struct SnapshotFile {
    format: String,
    scenario: String,
    mode: FlowMode,
    dut: DutKind,
    snapshot: Snapshot,
}

/// What one command printed: a human transcript and the same as JSON.
#[derive(Default)]
pub struct Out {
    pub text: String,
    pub json: Map<String, Json>,
}

impl Out {
    fn line(&mut self, s: impl AsRef<str>) {
        self.text.push_str(s.as_ref());
        self.text.push('\n');
    }
    fn set(&mut self, k: &str, v: Json) {
        self.json.insert(k.to_string(), v);
    }
}

/// Whether to go on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

enum PointKind {
    Break { cond: Cond, prev: bool },
    Watch { value: Value, last: Json },
}

struct Point {
    id: u32,
    kind: PointKind,
}

/// A named snapshot and the snapshots of its past (for `back` after `restore`).
struct Named {
    snap: Rc<Snapshot>,
    past: Vec<Rc<Snapshot>>,
}

/// One `capfc step` session.
pub struct Session {
    pub sw: Switch,
    params: BlockParams,
    layouts: Layouts,
    words: Vec<u32>,
    /// The v3 block's registers by name (`--block v3`; the v2 block's are `words`).
    v3: Option<View>,
    points: Vec<Point>,
    next_id: u32,
    named: BTreeMap<String, Named>,
    next_snap: u32,
    /// Snapshots of the current state's past, by cycle: every `back_every` cycles, and after pokes.
    timeline: Vec<Rc<Snapshot>>,
    back_every: u64,
    pub json: bool,
    /// A waveform is being written.
    wave_on: bool,
    /// The files being sourced, outermost first (a file that sources itself is refused).
    sourcing: Vec<std::path::PathBuf>,
    /// Set from outside (Ctrl-C) to stop a long `run`.
    pub interrupt: Arc<AtomicBool>,
}

/// A command the REPL refused: the line does not read, it names something that does not exist,
/// or the switch refused it. (Shown at the prompt as it is: no `[where]` prefix.)
#[derive(Debug, thiserror::Error)]
pub enum ReplError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("port {port} does not exist (ports 0..={})", np - 1)]
    Port { port: usize, np: usize },
    #[error("priority {0} does not exist (0..=7)")]
    Prio(u8),
    /// A register that does not exist (`known`: the registers there are; `indexed`: named with
    /// `N` for an index).
    #[error("no register '{name}'; the registers are{}: {known}", if *indexed { " (N an index)" } else { "" })]
    NoRegister {
        name: String,
        known: String,
        indexed: bool,
    },
    #[error("{name} has indices 0..={last}")]
    Index { name: String, last: usize },
    #[error("{name} is one register of {width} bits, without indices")]
    NoIndices { name: String, width: usize },
    #[error("`mismatch` needs --dut both (model and RTL in lockstep)")]
    NeedsBoth,
    #[error("cycle {cycle} is not ahead (now {now})")]
    NotAhead { cycle: u64, now: u64 },
    #[error("no breakpoint or watch {0} (info breaks lists them)")]
    NoPoint(u32),
    #[error("cannot go back before cycle {0}, the earliest state kept")]
    Earliest(u64),
    #[error("back {back}: only {now} cycles have run")]
    Back { back: u64, now: u64 },
    /// A named snapshot not taken (`taken`: those that are).
    #[error("no snapshot '{name}' (taken: {taken}; a file must end in .json)")]
    NoSnapshot { name: String, taken: String },
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// A snapshot file that does not parse.
    #[error("{file}: line {line} column {column}: {source}")]
    SnapshotJson {
        file: String,
        line: usize,
        column: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("{file}: field format: '{found}' is not a capfc snapshot ({SNAPSHOT_FORMAT})")]
    Format { file: String, found: String },
    /// A snapshot file the switch refused.
    #[error("{file}: {source}")]
    SnapshotFile {
        file: String,
        #[source]
        source: Box<RestoreError>,
    },
    /// A file sourced again inside itself, or too deep (`chain`: the files being sourced).
    #[error("{file}: {why} ({chain}); not run again")]
    Source {
        file: String,
        why: &'static str,
        chain: String,
    },
    /// A line of a script (a sourced file, standard input) that was refused.
    #[error("{origin}:{line}: {source}")]
    Script {
        origin: String,
        line: usize,
        #[source]
        source: Box<ReplError>,
    },
    #[error("no command '{0}' (help lists the commands)")]
    Help(String),
    #[error(transparent)]
    Switch(#[from] SwitchError),
    #[error(transparent)]
    Restore(#[from] RestoreError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Poke(#[from] PokeError),
}

/// Register `n[k]` of the v3 block (a RAM word or an array's element), or `n` itself when it
/// has no elements and `k` is 0.
fn v3_reg<'a>(v: &'a View, n: &str, k: usize) -> Result<&'a Val, ReplError> {
    if let Some(x) = v.get(&format!("{n}[{k}]")) {
        return Ok(x);
    }
    if let Some(x) = v.get(n) {
        return if k == 0 {
            Ok(x)
        } else {
            Err(ReplError::NoIndices {
                name: n.to_string(),
                width: x.width as usize,
            })
        };
    }
    // the names, each array once (`u_egress.gen_q[N]`)
    let mut stems: Vec<String> = vec![];
    for name in v.names() {
        let mut stem = String::new();
        let mut digits = false;
        for c in name.chars() {
            if c.is_ascii_digit() {
                if !digits {
                    stem.push('N');
                }
                digits = true;
            } else {
                digits = false;
                stem.push(c);
            }
        }
        if stems.last() != Some(&stem) && !stems.contains(&stem) {
            stems.push(stem);
        }
    }
    let has_elems = v.names().iter().any(|x| x.starts_with(&format!("{n}[")));
    if has_elems {
        let last = v
            .names()
            .iter()
            .filter_map(|x| x.strip_prefix(&format!("{n}[")))
            .filter_map(|r| r.strip_suffix(']').and_then(|i| i.parse::<usize>().ok()))
            .max()
            .unwrap_or(0);
        return Err(ReplError::Index {
            name: n.to_string(),
            last,
        });
    }
    Err(ReplError::NoRegister {
        name: n.to_string(),
        known: stems.join(", "),
        indexed: true,
    })
}

/// Files sourced inside each other at most this deep.
const MAX_SOURCE_DEPTH: usize = 16;

/// The result of evaluating the conditions after a cycle.
struct Cycle {
    egress_drops: u64,
    ingress_drops: u64,
}

impl Session {
    pub fn new(
        sc: &Scenario,
        mode: FlowMode,
        dut: DutKind,
        block: BlockKind,
        back_every: u64,
        json: bool,
    ) -> Result<Session, ReplError> {
        let sw = Switch::with_block(sc, mode, dut, block)?;
        let params = sw.block_params();
        let mut s = Session {
            layouts: Layouts::new(&params),
            params,
            words: vec![],
            v3: None,
            points: vec![],
            next_id: 1,
            named: BTreeMap::new(),
            next_snap: 1,
            timeline: vec![],
            back_every: back_every.max(1),
            json,
            wave_on: false,
            sourcing: vec![],
            interrupt: Arc::new(AtomicBool::new(false)),
            sw,
        };
        s.refresh_words();
        s.timeline.push(Rc::new(s.sw.snapshot()));
        Ok(s)
    }

    /// The first line a user sees.
    pub fn banner(&self) -> String {
        format!(
            "capfc step: scenario {} ({} ports, {} flows), mode {}, block {} ({}); cycle {}. `help` lists the commands.",
            self.sw.sc.name,
            self.sw.sc.ports,
            self.sw.sc.flows.len(),
            self.sw.mode.name(),
            self.sw.dut_kind.name(),
            self.sw.block_kind.name(),
            self.sw.now
        )
    }

    fn refresh_words(&mut self) {
        if self.sw.block_kind == BlockKind::V3 {
            self.sw.block_view_v3_into(&mut self.v3);
            return;
        }
        let mut w = std::mem::take(&mut self.words);
        self.sw.block_state_words(&self.layouts, &mut w);
        self.words = w;
    }

    /// The v3 block's registers, as of the last refresh.
    fn v3(&self) -> Option<&View> {
        self.v3.as_ref()
    }

    /// The PFC generator of port i: D of the last frame its MAC took, cycles to the refresh.
    fn pfc_gen(&self, i: usize) -> (u8, u64) {
        if let Some(v) = self.v3() {
            return v.pfc(i);
        }
        let sent = (0..NPRIO).fold(0u8, |a, p| {
            a | (u8::from(self.bit("u_pfc.sent_q", 0, i * NPRIO + p)) << p)
        });
        (sent, self.reg("u_pfc.timer_q", i, 0))
    }

    /// The configuration's thresholds in units, one table a priority, in
    /// [`crate::v3::view::THRESHOLDS`]'s order.
    fn thresholds(&self) -> Vec<[u64; NPRIO]> {
        const V2: [&str; 7] = [
            "u_cfg.ing_max_q",
            "u_cfg.ing_xoff_q",
            "u_cfg.ing_xon_q",
            "u_cfg.eg_max_q",
            "u_cfg.eg_xoff_q",
            "u_cfg.eg_xon_q",
            "u_cfg.eg_warn_q",
        ];
        (0..V2.len())
            .map(|k| {
                std::array::from_fn(|p| match self.v3() {
                    Some(v) => v.threshold(k, p),
                    None => self.reg(V2[k], p, 0),
                })
            })
            .collect()
    }

    /// A configuration register (`lossless_q`, `mode_q`, `cut_q`, `quanta_q`, `refresh_q`).
    fn cfg_reg(&self, name: &str) -> u64 {
        match self.v3() {
            Some(v) => v.cfg(name),
            None if name == "lossless_q" => (0..NPRIO).fold(0, |a, p| {
                a | (u64::from(self.bit("u_cfg.lossless_q", 0, p)) << p)
            }),
            None => self.reg(&format!("u_cfg.{name}"), 0, 0),
        }
    }

    /// A register field from the current state words.
    fn reg(&self, name: &str, elem: usize, field: usize) -> u64 {
        let s = self
            .layouts
            .state
            .signal(name)
            .unwrap_or_else(|| panic!("no register {name}"));
        get_field(s, &self.words, elem, field)
    }

    fn bit(&self, name: &str, elem: usize, field: usize) -> bool {
        self.reg(name, elem, field) != 0
    }

    fn check_port(&self, p: usize) -> Result<(), ReplError> {
        if p < self.params.np {
            Ok(())
        } else {
            Err(ReplError::Port {
                port: p,
                np: self.params.np,
            })
        }
    }

    fn check_queue(&self, p: usize, q: u8) -> Result<(), ReplError> {
        self.check_port(p)?;
        if usize::from(q) < NPRIO {
            Ok(())
        } else {
            Err(ReplError::Prio(q))
        }
    }

    /// Bytes of an occupancy register.
    fn occ(&self, side: Side, port: usize, prio: u8) -> u64 {
        if let Some(v) = self.v3() {
            return v.occ(side == Side::Egress, port, prio.into()) << self.params.cell_log2;
        }
        let q = port * NPRIO + usize::from(prio);
        crate::block::pack::occupancy(&self.layouts.state, &self.words, side == Side::Egress, q)
            << self.params.cell_log2
    }

    /// Bytes of an occupancy register, read from the block itself (for conditions checked every
    /// cycle, without packing the whole state).
    fn occ_now(&self, side: Side, port: usize, prio: u8) -> u64 {
        u64::from(
            self.sw
                .block_occupancy(side == Side::Egress, port * NPRIO + usize::from(prio)),
        ) << self.params.cell_log2
    }

    /// I of port i: bit p.
    fn i_bits(&self, i: usize) -> u8 {
        if let Some(v) = self.v3() {
            return v.i_bits(i);
        }
        (0..NPRIO).fold(0, |acc, p| {
            acc | (u8::from(self.bit("u_ingress.xoff_q", 0, i * NPRIO + p)) << p)
        })
    }

    /// The block as its registers and RAMs are now (the model's, or the Verilated RTL's read
    /// back), so that counters, E and D are computed one way for both.
    fn view(&self) -> CapfcTop {
        unpack_state(&self.params, &self.layouts.state, &self.words)
    }

    /// E of egress queue (o, p): bit i (none unless p is a counted class).
    fn e_bits(&self, o: usize, p: usize) -> u128 {
        if let Some(v) = self.v3() {
            return v.e_bits(o, p);
        }
        let v = self.view();
        v.cfg
            .counted(&self.params, p)
            .map_or(0, |l| v.egress.e_q[self.params.row(o, l)])
    }

    /// D of port i, from the registers: I, or E of any other port's queue of that priority (v3:
    /// its register `d_q`, which the block outputs).
    fn d_bits(&self, i: usize) -> u8 {
        if let Some(v) = self.v3() {
            return v.d_bits(i);
        }
        self.view().d_state()[i]
    }

    /// The architectural counters of egress queue (o, p): 0 unless p is a counted class.
    fn counters(&self, o: usize, p: usize) -> Vec<u64> {
        if let Some(v) = self.v3() {
            return v.counters(o, p);
        }
        let v = self.view();
        let np = self.params.np;
        match v.cfg.counted(&self.params, p) {
            Some(l) => (0..np).map(|i| u64::from(v.counter(o, l, i))).collect(),
            None => vec![0; np],
        }
    }

    /// Check a value names something that exists.
    fn check_value(&self, v: &Value) -> Result<(), ReplError> {
        match v {
            Value::Cycle | Value::Sort => Ok(()),
            Value::Occ(_, o, p) | Value::E(o, p) | Value::C(o, p) | Value::Queue(o, p) => {
                self.check_queue(*o, *p)
            }
            Value::D(i) | Value::I(i) | Value::Paused(i) | Value::Fifo(i) => self.check_port(*i),
            Value::Reg(n, k) => {
                if let Some(v) = self.v3() {
                    return v3_reg(v, n, *k).map(|_| ());
                }
                let Some(s) = self.layouts.state.signal(n) else {
                    let names: Vec<&str> = self
                        .layouts
                        .state
                        .signals
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect();
                    return Err(ReplError::NoRegister {
                        name: n.clone(),
                        known: names.join(", "),
                        indexed: false,
                    });
                };
                let n_idx = if s.elems > 1 {
                    s.elems
                } else {
                    (s.width / s.field) as usize
                };
                if *k >= n_idx {
                    return Err(ReplError::Index {
                        name: n.clone(),
                        last: n_idx - 1,
                    });
                }
                Ok(())
            }
        }
    }

    /// The value now, as JSON (its human form is the compact JSON text).
    fn value(&self, v: &Value) -> Json {
        let prios = |b: u8| -> Json { (0..NPRIO).filter(|p| b >> p & 1 == 1).collect() };
        let inputs =
            |m: u128| -> Json { (0..self.params.np).filter(|i| m >> i & 1 == 1).collect() };
        match v {
            Value::Cycle => json!(self.sw.now),
            Value::Occ(s, o, p) => json!(self.occ(*s, *o, *p)),
            Value::D(i) => prios(self.d_bits(*i)),
            Value::I(i) => prios(self.i_bits(*i)),
            Value::E(o, p) => inputs(self.e_bits(*o, usize::from(*p))),
            Value::C(o, p) => json!(self.counters(*o, usize::from(*p))),
            Value::Paused(i) => {
                let s = &self.sw.senders()[*i];
                prios(s.pause.mask(self.sw.now))
            }
            Value::Fifo(i) => json!(self.sw.ingress[*i]
                .iter()
                .map(|p| u64::from(p.size))
                .sum::<u64>()),
            Value::Queue(o, p) => json!(self.sw.tm.queues[o * NPRIO + usize::from(*p)]
                .iter()
                .map(|p| u64::from(p.size))
                .sum::<u64>()),
            Value::Sort => self.sort_json(),
            Value::Reg(n, k) => {
                if let Some(v) = self.v3() {
                    return v3_reg(v, n, *k).map_or(Json::Null, |x| x.json());
                }
                let s = self.layouts.state.signal(n).expect("checked");
                let v = if s.elems > 1 {
                    get_field(s, &self.words, *k, 0)
                } else {
                    get_field(s, &self.words, 0, *k)
                };
                json!(v)
            }
        }
    }

    fn sort_json(&self) -> Json {
        if let Some(v) = self.v3() {
            let engines: Vec<Json> = v
                .engines()
                .into_iter()
                .filter(|e| e.busy || !e.pending.is_empty())
                .map(|e| {
                    let prio = v.prio_of_class(e.class as usize);
                    let mut j = serde_json::to_value(&e).expect("an engine serializes");
                    j["prio"] = json!(prio);
                    j
                })
                .collect();
            return json!({ "engines": engines });
        }
        let v = self.view();
        let (p, so) = (&self.params, &v.sort);
        let engines: Vec<Json> = (0..p.np)
            .filter(|&o| so.busy(o) || so.pend_q[o] != 0)
            .map(|o| {
                let prio = v.cfg.prio_of_class(p, so.row_q[o] as usize);
                json!({
                    "port": o,
                    "busy": so.busy(o),
                    "class": so.row_q[o],
                    "prio": prio,
                    "stop_calibrate": so.cal_q >> o & 1 == 1,
                    "phase": phase::name(so.ph_q[o]),
                    "step": so.k_q[o],
                    "bit": so.bit_q[o],
                    "v": so.v_q[o],
                    "index": so.ix_q[o],
                    "acc": so.acc_q[o],
                    "target": so.tgt_q[o],
                    "pending_classes": (0..p.nl).filter(|&l| so.pending(o, l)).collect::<Vec<_>>(),
                    "rr": so.rr_q[o],
                })
            })
            .collect();
        json!({ "engines": engines })
    }

    /// Does `c` hold after the cycle just run? `prev`: its value after the cycle before (only
    /// crossings use it). Returns the description of the hit.
    fn holds(&self, c: &Cond, prev: &mut bool, cy: &Cycle) -> Option<String> {
        let out = self.sw.block_outputs();
        match c {
            Cond::Cycle(n) => (self.sw.now == *n).then(|| format!("cycle {n}")),
            Cond::Pfc { kind, port, prio } => {
                for i in 0..self.params.np {
                    if out.pfc_valid >> i & 1 == 0 || port.is_some_and(|p| p != i) {
                        continue;
                    }
                    for p in 0..NPRIO {
                        if out.pfc_cev[i] >> p & 1 == 0 || prio.is_some_and(|q| usize::from(q) != p)
                        {
                            continue;
                        }
                        let quanta = out.quanta(i, p);
                        let ok = match kind {
                            FrameKind::Any => true,
                            FrameKind::Xoff => quanta > 0,
                            FrameKind::Xon => quanta == 0,
                        };
                        if ok {
                            let what = if quanta > 0 { "XOFF" } else { "XON" };
                            return Some(format!(
                                "PFC frame on port {i}: prio {p} {what} (quanta {quanta})"
                            ));
                        }
                    }
                }
                None
            }
            Cond::Drop(k) => {
                let e = self.sw.stats.egress_drops > cy.egress_drops;
                let i = self.sw.stats.ingress_drops > cy.ingress_drops;
                match k {
                    None | Some(DropKind::Egress) if e => {
                        Some("packet dropped at egress (queue at MAX)".into())
                    }
                    None | Some(DropKind::Ingress) if i => {
                        Some("packet dropped at ingress (over MAX: headroom too small)".into())
                    }
                    _ => None,
                }
            }
            Cond::Mismatch => self
                .sw
                .mismatch
                .as_ref()
                .map(|_| "the model and the RTL differ".into()),
            Cond::Occ {
                side, port, prio, ..
            } => {
                let (now, v) = self.occ_test(c).expect("an occupancy condition");
                let was = std::mem::replace(prev, now);
                (now && !was)
                    .then(|| format!("{} occupancy {port} {prio} = {v} bytes", side.name()))
            }
            Cond::Done => self.sw.done().then(|| "every flow has completed".into()),
        }
    }

    fn check_cond(&self, c: &Cond) -> Result<(), ReplError> {
        match c {
            Cond::Pfc { port, prio, .. } => {
                if let Some(p) = port {
                    self.check_port(*p)?;
                }
                if let Some(q) = prio {
                    self.check_queue(0, *q)?;
                }
                Ok(())
            }
            Cond::Occ { port, prio, .. } => self.check_queue(*port, *prio),
            Cond::Mismatch if self.sw.dut_kind != DutKind::Both => Err(ReplError::NeedsBoth),
            _ => Ok(()),
        }
    }

    /// The value a crossing condition has now (so that it fires on the next crossing only).
    fn initial(&self, c: &Cond) -> bool {
        self.occ_test(c).is_some_and(|(now, _)| now)
    }

    /// An occupancy condition's comparison now, and the occupancy; None for other conditions.
    fn occ_test(&self, c: &Cond) -> Option<(bool, u64)> {
        let Cond::Occ {
            side,
            port,
            prio,
            op,
            bytes,
        } = c
        else {
            return None;
        };
        let v = self.occ_now(*side, *port, *prio);
        Some((op.test(v, *bytes), v))
    }

    /// Keep a snapshot every `back_every` cycles, for `back`.
    fn keep_timeline(&mut self) {
        let now = self.sw.now;
        if now.is_multiple_of(self.back_every) && self.timeline.last().is_none_or(|s| s.cycle < now)
        {
            self.timeline.push(Rc::new(self.sw.snapshot()));
        }
    }

    /// Step up to `limit` cycles (no limit: `run`), stopping at breakpoints and `until`. `quiet`:
    /// no watches or breakpoints (`back` replaying).
    fn advance(&mut self, limit: Option<u64>, until: Option<Cond>, quiet: bool, o: &mut Out) {
        let start = self.sw.now;
        let mut until = until.map(|c| {
            let p = self.initial(&c);
            (c, p)
        });
        self.interrupt.store(false, Ordering::Relaxed);
        let needs_state = self.needs_state(until.as_ref().map(|(c, _)| c));
        let mut stop: Option<String> = None;
        let mut hits: Vec<Json> = vec![];
        let mut changes: Vec<Json> = vec![];
        let mut n = 0u64;
        loop {
            if limit.is_some_and(|l| n >= l) {
                break;
            }
            stop = self.stop_reason(limit.is_none());
            if stop.is_some() {
                break;
            }
            self.keep_timeline();
            let cy = Cycle {
                egress_drops: self.sw.stats.egress_drops,
                ingress_drops: self.sw.stats.ingress_drops,
            };
            self.sw.tick_cycle();
            n += 1;
            if quiet {
                continue;
            }
            if needs_state {
                self.refresh_words();
            }
            self.check_points(&cy, &mut hits, &mut changes, o);
            if let Some((c, prev)) = until.as_mut() {
                let c = c.clone();
                if let Some(d) = self.holds(&c, prev, &cy) {
                    hits.push(json!({"until": c.to_string(), "what": d}));
                    o.line(format!("cycle {}: {c}: {d}", self.sw.now));
                }
            }
            if !hits.is_empty() {
                break;
            }
        }
        self.refresh_words();
        if let Some(s) = &stop {
            o.line(format!("cycle {}: stopped: {s}", self.sw.now));
        } else if hits.is_empty() && !quiet {
            o.line(format!("cycle {}", self.sw.now));
        }
        if !quiet {
            let ev = show::events(self);
            for e in &ev.1 {
                o.line(format!("  {e}"));
            }
            o.set("events", ev.0);
        }
        o.set("stepped", json!(self.sw.now - start));
        o.set("hits", Json::Array(hits));
        o.set("watch", Json::Array(changes));
        o.set("stopped", stop.map_or(Json::Null, Json::String));
    }

    /// Whether a breakpoint, a watch or `until` looks at the block's registers. Reading them every
    /// cycle costs more than the cycle: only then.
    fn needs_state(&self, until: Option<&Cond>) -> bool {
        self.points.iter().any(|p| match &p.kind {
            PointKind::Break { cond, .. } => cond_reads_state(cond),
            PointKind::Watch { value, .. } => value_reads_state(value),
        }) || until.is_some_and(cond_reads_state)
    }

    /// Why stepping stops before the next cycle, if it does: the model and the RTL differ, an
    /// interrupt; and when stepping without a limit (`unlimited`), every flow done or the
    /// scenario's cycle limit.
    fn stop_reason(&self, unlimited: bool) -> Option<String> {
        if let Some(m) = &self.sw.mismatch {
            return Some(format!("the model and the RTL differ:\n{m}"));
        }
        if unlimited {
            if self.sw.done() {
                return Some("every flow has completed".into());
            }
            if self.sw.now >= self.sw.sc.max_cycles {
                return Some(format!(
                    "the scenario's cycle limit ({})",
                    self.sw.sc.max_cycles
                ));
            }
        }
        if self.interrupt.load(Ordering::Relaxed) {
            return Some("interrupted".into());
        }
        None
    }

    /// After a cycle (`cy`: the drop counts before it): each watch whose value changed, into
    /// `changes`, and each breakpoint that holds, into `hits`; both said on `o`.
    fn check_points(
        &mut self,
        cy: &Cycle,
        hits: &mut Vec<Json>,
        changes: &mut Vec<Json>,
        o: &mut Out,
    ) {
        let mut points = std::mem::take(&mut self.points);
        for p in points.iter_mut() {
            match &mut p.kind {
                PointKind::Watch { value, last } => {
                    let v = self.value(value);
                    if v != *last {
                        changes.push(json!({"id": p.id, "cycle": self.sw.now, "value": value.to_string(), "old": last.clone(), "new": v.clone()}));
                        o.line(format!(
                            "cycle {}: watch {} {value}: {} -> {}",
                            self.sw.now, p.id, last, v
                        ));
                        *last = v;
                    }
                }
                PointKind::Break { cond, prev } => {
                    if let Some(d) = self.holds(cond, prev, cy) {
                        hits.push(json!({"id": p.id, "cond": cond.to_string(), "what": d}));
                        o.line(format!(
                            "cycle {}: breakpoint {} ({cond}): {d}",
                            self.sw.now, p.id
                        ));
                    }
                }
            }
        }
        self.points = points;
    }

    /// Go back to cycle `target` (≤ now) through the timeline.
    fn go_back(&mut self, target: u64) -> Result<(), ReplError> {
        let Some(k) = self.timeline.iter().rposition(|s| s.cycle <= target) else {
            let first = self.timeline.first().map_or(0, |s| s.cycle);
            return Err(ReplError::Earliest(first));
        };
        self.timeline.truncate(k + 1);
        let snap = self.timeline[k].clone();
        self.sw.restore(&snap)?;
        let mut o = Out::default();
        self.advance(Some(target - snap.cycle), None, true, &mut o);
        self.refresh_words();
        self.reset_points();
        Ok(())
    }

    /// After a jump in time: watches start from the values now, crossings from where they are.
    fn reset_points(&mut self) {
        let mut points = std::mem::take(&mut self.points);
        for p in points.iter_mut() {
            match &mut p.kind {
                PointKind::Watch { value, last } => *last = self.value(value),
                PointKind::Break { cond, prev } => *prev = self.initial(cond),
            }
        }
        self.points = points;
    }

    /// After `back` or `restore`: a waveform being written has been closed by the jump.
    fn wave_note(&mut self, o: &mut Out) {
        if std::mem::take(&mut self.wave_on) {
            o.line("(the waveform was closed: time jumped; `wave FILE` starts a new one)");
        }
    }

    fn restore_snapshot(
        &mut self,
        snap: Rc<Snapshot>,
        past: Vec<Rc<Snapshot>>,
    ) -> Result<(), RestoreError> {
        self.sw.restore(&snap)?;
        self.timeline = past;
        self.timeline.push(snap);
        self.refresh_words();
        self.reset_points();
        Ok(())
    }

    fn is_file(name: &str) -> bool {
        name.ends_with(".json") || name.contains('/')
    }

    /// Run one line; its output goes to `w`. `Err` is the reason the command was refused.
    ///
    /// (Long: one arm a command of the REPL, each a few lines.)
    pub fn exec(&mut self, line: &str, w: &mut dyn Write) -> Result<Flow, ReplError> {
        let cmd = parse::parse(line)?;
        if cmd == Command::Nothing {
            return Ok(Flow::Continue);
        }
        let mut o = Out::default();
        let mut flow = Flow::Continue;
        match cmd {
            Command::Nothing => {}
            Command::Step(n) => self.advance(Some(n), None, false, &mut o),
            Command::Run(until) => {
                if let Some(c) = &until {
                    self.check_cond(c)?;
                    if let Cond::Cycle(n) = c {
                        if *n <= self.sw.now {
                            return Err(ReplError::NotAhead {
                                cycle: *n,
                                now: self.sw.now,
                            });
                        }
                    }
                }
                self.advance(None, until, false, &mut o)
            }
            Command::Break(c) => {
                self.check_cond(&c)?;
                let id = self.next_id;
                self.next_id += 1;
                o.line(format!("breakpoint {id}: {c}"));
                o.set("id", json!(id));
                let prev = self.initial(&c);
                self.points.push(Point {
                    id,
                    kind: PointKind::Break { cond: c, prev },
                });
            }
            Command::Watch(v) => {
                self.check_value(&v)?;
                let id = self.next_id;
                self.next_id += 1;
                let last = self.value(&v);
                o.line(format!("watch {id}: {v} = {last}"));
                o.set("id", json!(id));
                o.set("value", last.clone());
                self.points.push(Point {
                    id,
                    kind: PointKind::Watch { value: v, last },
                });
            }
            Command::Delete(None) => {
                o.line(format!(
                    "deleted {} breakpoints and watches",
                    self.points.len()
                ));
                self.points.clear();
            }
            Command::Delete(Some(id)) => {
                let n = self.points.len();
                self.points.retain(|p| p.id != id);
                if self.points.len() == n {
                    return Err(ReplError::NoPoint(id));
                }
                o.line(format!("deleted {id}"));
            }
            Command::Info(Info::Breaks) => {
                let mut list = vec![];
                if self.points.is_empty() {
                    o.line("no breakpoints or watches");
                }
                for p in &self.points {
                    let (kind, what) = match &p.kind {
                        PointKind::Break { cond, .. } => ("break", cond.to_string()),
                        PointKind::Watch { value, last } => {
                            ("watch", format!("{value} (now {last})"))
                        }
                    };
                    o.line(format!("{:>3}  {kind:<5}  {what}", p.id));
                    list.push(json!({"id": p.id, "kind": kind, "what": what}));
                }
                o.set("points", Json::Array(list));
            }
            Command::Info(Info::Snapshots) => {
                let mut list = vec![];
                for (n, s) in &self.named {
                    o.line(format!("{n:<16} cycle {}", s.snap.cycle));
                    list.push(json!({"name": n, "cycle": s.snap.cycle}));
                }
                let first = self.timeline.first().map_or(0, |s| s.cycle);
                o.line(format!(
                    "back can reach cycle {first} and later (a snapshot every {} cycles, {} kept)",
                    self.back_every,
                    self.timeline.len()
                ));
                o.set("named", Json::Array(list));
                o.set("back_reaches", json!(first));
            }
            Command::Info(Info::Scenario) => show::scenario(self, &mut o),
            Command::Print(s) => show::print(self, &s, &mut o)?,
            Command::Poke(Poke::Packet {
                src,
                dst,
                prio,
                bytes,
            }) => {
                let f = self.sw.inject_flow(FlowSpec {
                    src,
                    dst,
                    prio,
                    bytes,
                    start: 0,
                    class: "poked".into(),
                })?;
                self.after_poke();
                o.line(format!(
                    "flow {f}: {bytes} bytes from input {src} to output {dst} on priority {prio}, starting at cycle {}",
                    self.sw.now
                ));
                o.set("flow", json!(f));
            }
            Command::Poke(Poke::Pause { port, prio, cycles }) => {
                self.sw.inject_egress_pause(port, prio, cycles)?;
                self.after_poke();
                o.line(format!(
                    "output {port} priority {prio} paused by its receiver until cycle {}",
                    self.sw.now + cycles
                ));
            }
            Command::Snapshot(name) => {
                let snap = Rc::new(self.sw.snapshot());
                let name = name.unwrap_or_else(|| {
                    let n = format!("s{}", self.next_snap);
                    self.next_snap += 1;
                    n
                });
                if Self::is_file(&name) {
                    let f = SnapshotFile {
                        format: SNAPSHOT_FORMAT.into(),
                        scenario: self.sw.sc.name.clone(),
                        mode: self.sw.mode,
                        dut: self.sw.dut_kind,
                        snapshot: (*snap).clone(),
                    };
                    let text = serde_json::to_string(&f)?;
                    std::fs::write(&name, text).map_err(|source| ReplError::Io {
                        file: name.clone(),
                        source,
                    })?;
                    o.line(format!("cycle {}: state written to {name}", snap.cycle));
                } else {
                    let past = self
                        .timeline
                        .iter()
                        .filter(|s| s.cycle < snap.cycle)
                        .cloned()
                        .collect();
                    o.line(format!("cycle {}: snapshot {name}", snap.cycle));
                    self.named.insert(name.clone(), Named { snap, past });
                }
                o.set("name", json!(name));
            }
            Command::Restore(name) => {
                if let Some(n) = self.named.get(&name) {
                    let (snap, past) = (n.snap.clone(), n.past.clone());
                    self.restore_snapshot(snap, past)?;
                } else if Self::is_file(&name) {
                    let text = std::fs::read_to_string(&name).map_err(|source| ReplError::Io {
                        file: name.clone(),
                        source,
                    })?;
                    let f: SnapshotFile =
                        serde_json::from_str(&text).map_err(|source| ReplError::SnapshotJson {
                            file: name.clone(),
                            line: source.line(),
                            column: source.column(),
                            source,
                        })?;
                    if f.format != SNAPSHOT_FORMAT {
                        return Err(ReplError::Format {
                            file: name,
                            found: f.format,
                        });
                    }
                    self.restore_snapshot(Rc::new(f.snapshot), vec![])
                        .map_err(|source| ReplError::SnapshotFile {
                            file: name.clone(),
                            source: Box::new(source),
                        })?;
                } else {
                    let names: Vec<&str> = self.named.keys().map(String::as_str).collect();
                    return Err(ReplError::NoSnapshot {
                        taken: if names.is_empty() {
                            "none".into()
                        } else {
                            names.join(", ")
                        },
                        name,
                    });
                }
                o.line(format!("cycle {}: restored {name}", self.sw.now));
                self.wave_note(&mut o);
            }
            Command::Back(n) => {
                if n > self.sw.now {
                    return Err(ReplError::Back {
                        back: n,
                        now: self.sw.now,
                    });
                }
                self.go_back(self.sw.now - n)?;
                o.line(format!("cycle {}", self.sw.now));
                self.wave_note(&mut o);
            }
            Command::Source(file) => {
                let io = |source| ReplError::Io {
                    file: file.clone(),
                    source,
                };
                let text = std::fs::read_to_string(&file).map_err(io)?;
                let id = std::fs::canonicalize(&file).map_err(io)?;
                if self.sourcing.contains(&id) || self.sourcing.len() >= MAX_SOURCE_DEPTH {
                    let chain: Vec<String> = self
                        .sourcing
                        .iter()
                        .chain(std::iter::once(&id))
                        .map(|p| p.display().to_string())
                        .collect();
                    let why = if self.sourcing.contains(&id) {
                        "sourced again while it runs"
                    } else {
                        "sources nested deeper than 16 files"
                    };
                    return Err(ReplError::Source {
                        file,
                        why,
                        chain: chain.join(" -> "),
                    });
                }
                self.sourcing.push(id);
                let mut result = Ok(Flow::Continue);
                for (k, l) in text.lines().enumerate() {
                    match self.exec_echo(l, w) {
                        Ok(Flow::Quit) => {
                            result = Ok(Flow::Quit);
                            break;
                        }
                        Ok(_) => {}
                        Err(e) => {
                            result = Err(ReplError::Script {
                                origin: file.clone(),
                                line: k + 1,
                                source: Box::new(e),
                            });
                            break;
                        }
                    }
                }
                self.sourcing.pop();
                return result;
            }
            Command::Wave(Some(f)) => {
                let files = self.sw.start_wave(&f)?;
                self.wave_on = true;
                o.line(format!(
                    "cycle {}: writing the block's waveform to {}",
                    self.sw.now,
                    files.join(" and ")
                ));
                o.set("files", json!(files));
            }
            Command::Wave(None) => {
                self.sw.stop_wave()?;
                self.wave_on = false;
                o.line(format!("cycle {}: waveform closed", self.sw.now));
            }
            Command::Help(topic) => show::help(topic.as_deref(), &mut o)?,
            Command::Quit => flow = Flow::Quit,
        }
        self.emit(line, o, w);
        Ok(flow)
    }

    /// A poke changes the future: the timeline's state at this cycle is the poked one.
    fn after_poke(&mut self) {
        let now = self.sw.now;
        self.timeline.retain(|s| s.cycle < now);
        self.timeline.push(Rc::new(self.sw.snapshot()));
    }

    /// Run one line of a script, echoing it first in the human transcript.
    pub fn exec_echo(&mut self, line: &str, w: &mut dyn Write) -> Result<Flow, ReplError> {
        if !self.json && !line.trim().is_empty() {
            let _ = writeln!(w, "(capfc) {line}");
        }
        self.exec(line, w)
    }

    fn emit(&self, line: &str, mut o: Out, w: &mut dyn Write) {
        if self.json {
            o.json.insert("cmd".into(), json!(line.trim()));
            o.json.insert("cycle".into(), json!(self.sw.now));
            let _ = writeln!(w, "{}", Json::Object(o.json));
        } else {
            let _ = write!(w, "{}", o.text);
        }
    }

    /// An error as the output shows it.
    pub fn emit_error(&self, line: &str, e: &ReplError, w: &mut dyn Write) {
        let e = e.to_string();
        if self.json {
            let _ = writeln!(
                w,
                "{}",
                json!({"cmd": line.trim(), "cycle": self.sw.now, "error": e})
            );
        } else {
            let _ = writeln!(w, "error: {e}");
        }
    }
}

/// Whether evaluating `c` reads the block's registers.
fn cond_reads_state(_: &Cond) -> bool {
    // Occupancy crossings read the one register they need (`Switch::block_occupancy`).
    false
}

/// Whether evaluating `v` reads the block's registers.
fn value_reads_state(v: &Value) -> bool {
    !matches!(
        v,
        Value::Cycle | Value::Paused(_) | Value::Fifo(_) | Value::Queue(..)
    )
}

impl Drop for Session {
    fn drop(&mut self) {
        // Waveform files end complete however the session ends.
        let _ = self.sw.stop_wave();
    }
}

/// Run a whole script (one command a line) on a session; the first refused command stops it with
/// `Err("ORIGIN:LINE: why")`.
pub fn run_script(
    s: &mut Session,
    origin: &str,
    text: &str,
    w: &mut dyn Write,
) -> Result<(), ReplError> {
    for (k, line) in text.lines().enumerate() {
        match s.exec_echo(line, w) {
            Ok(Flow::Quit) => break,
            Ok(Flow::Continue) => {}
            Err(e) => {
                s.emit_error(line, &e, w);
                return Err(ReplError::Script {
                    origin: origin.to_string(),
                    line: k + 1,
                    source: Box::new(e),
                });
            }
        }
    }
    Ok(())
}
