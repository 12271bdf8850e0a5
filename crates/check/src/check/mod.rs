//! The reference checker: judges what any CaPFC implementation answered, cycle by cycle, against
//! the untimed rules of `shared/domain.md` section 3, within the timing envelope
//! ([`Envelope`]) the implementation declares.
//!
//! It is pure: fed one [`Cycle`] at a time (what the implementation was given and what it
//! answered), it returns [`Violation`]s; readers of waveforms, the co-simulator and the command line
//! are layers around it. What it judges:
//!
//! - **accepts**: every arrival and enqueue answer exactly (`B + s <= MAX`); after a difference it
//!   follows the implementation's answer, so one wrong answer is reported once;
//! - **D from I**: I follows the arrivals and departures exactly; D must show a change of I inside
//!   the `ingress` window;
//! - **D from E**: every accepted enqueue that leaves a lossless queue above `XOFF_e` (modes 1 and
//!   2) opens an *obligation*: inside the `stop_max`/`stop_cal` window the implementation must apply
//!   a selection that section 3 admits for the counters of some cycle after the crossing (with
//!   `snapshot_stride` k, input j's counter as of cycle `x0 + j*k`: a sort that streams the row).
//!   A rise of D that no I and no open obligation admits is a *spurious pause* (a wrong victim, or
//!   a pause later than the window); an obligation whose admissible selections are none of them
//!   paused at its deadline is a *missing selection*. The checker then follows the implementation's
//!   choice: the inputs every consistent selection contains are E from then on, and D may not fall
//!   for them until the queue's E is cleared (a dequeue to `XON_e`, seen within `e_clear`; so may
//!   the inputs of any selection an open obligation admits, which may be applied unseen while D
//!   is up from I). A fall of the queue to `XON_e` cancels its open obligations: a selection
//!   applied before the fall may still show in D, inside its window, until the fall shows
//!   (`e_clear.max` after it). A clear of the queue's counters (a dequeue to WARN) leaves its
//!   obligations open: a selection from counters after the clear is empty, which the envelope
//!   admits. A pause that comes after its window closed is reported as *late*;
//! - **no reason, no pause**: D up with no I, no E and no window open is a *stuck pause*; a class
//!   that is not lossless is never paused;
//! - **PFC frames**: every change of D reaches a frame the MAC takes within `frame` of the cycles
//!   the MAC was ready; a frame's classes carry the D of a cycle within `frame` MAC-ready cycles
//!   before it (so a frame held in an output buffer while the MAC is busy carries the D it was
//!   made from), with the configured quanta for a pause and 0 for a resume; while the peer is
//!   paused a refresh comes within `refresh` cycles after the configured period, and that period
//!   is shorter than the pause;
//! - **occupancy**: no departure or dequeue removes more than its queue holds.
//!
//! Inside a cycle, one queue's removals (departures, dequeues) act before its additions (arrivals,
//! enqueues), or after them as the envelope's `order` declares; a configuration change acts from
//! the next cycle.
//!
//! **A verdict that can fail.** Every rule counts the decisions it judged at a deadline (a
//! selection whose window closed uncancelled, a pause from I that was due, a frame or refresh that
//! was due). [`Checker::weak`] names each rule the traffic exercised without judging it (for the
//! selections: fewer than one crossing in ten judged): no violation there means little, and
//! `capfc check` exits 3.

pub mod block;
pub mod envelope;

use std::collections::VecDeque;

pub use envelope::{Envelope, EnvelopeError, FieldError, Order, Window};

/// Why a checker cannot start: its parameters or its envelope, by field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckerError {
    #[error("{0}")]
    Params(#[source] FieldError),
    #[error("{0}")]
    Envelope(#[source] FieldError),
}

/// For the layers that still report errors as text.
impl From<CheckerError> for String {
    fn from(e: CheckerError) -> String {
        e.to_string()
    }
}

use crate::block::{BlockConfig, Mode, NPRIO};

/// The parameters of the implementation that the rules depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Ports, 2..=128.
    pub np: usize,
    /// A unit is `2^cell_log2` bytes (0: bytes).
    pub cell_log2: u32,
    /// Arrival counter width (counters saturate at `2^cw - 1`).
    pub cw: u32,
    /// Fractional bits of CUT.
    pub cut_f: u32,
}

impl Params {
    pub fn validate(&self) -> Result<(), FieldError> {
        let bad = |field, why| Err(FieldError { field, why });
        if !(2..=128).contains(&self.np) {
            return bad("np", format!("{} is not in 2..=128", self.np));
        }
        if self.cell_log2 > 16 {
            return bad("cell_log2", format!("{} is above 16", self.cell_log2));
        }
        if !(1..=32).contains(&self.cw) {
            return bad("cw", format!("{} is not in 1..=32", self.cw));
        }
        if !(1..=24).contains(&self.cut_f) {
            return bad("cut_f", format!("{} is not in 1..=24", self.cut_f));
        }
        Ok(())
    }
}

/// A lane event, as the implementation was given it (defined with the block's lanes).
pub use crate::v3::lanes::Lane;

/// A PFC frame the MAC of `port` took: per class, `Some(quanta)` when the class-enable bit is set
/// (0 = resume).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub port: usize,
    pub quanta: [Option<u16>; NPRIO],
}

/// One clock cycle as the implementation saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// A reset in this cycle: lanes and answers are ignored, the state restarts from 0.
    pub rst: bool,
    /// The configuration in force from the next cycle (None: unchanged).
    pub config: Option<BlockConfig>,
    /// The lanes valid in this cycle.
    pub lanes: Vec<Lane>,
    /// The accept answers read in this cycle: one per arrival and enqueue lane of cycle
    /// `t - accept_latency`, in their order there.
    pub accepts: Vec<bool>,
    /// D per port, bit p for priority p, as the implementation shows it in this cycle.
    pub d: Vec<u8>,
    /// The PFC frames the MACs took in this cycle.
    pub frames: Vec<Frame>,
    /// Bit i: the MAC of port i could take a frame in this cycle.
    pub ready: u128,
}

impl Cycle {
    pub fn new(np: usize) -> Self {
        Cycle {
            rst: false,
            config: None,
            lanes: vec![],
            accepts: vec![],
            d: vec![0; np],
            frames: vec![],
            ready: crate::block::mask128(np),
        }
    }
}

/// What kind of rule a violation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An arrival or enqueue answered otherwise than `B + s <= MAX`.
    Accept,
    /// D rose with nothing that admits it: a wrong victim, or a pause outside its window.
    SpuriousPause,
    /// An obligation's deadline passed with none of its admissible selections applied.
    MissingSelection,
    /// D fell while I or a followed E still holds it.
    EarlyResume,
    /// D showed a change later than its window: a pause after its selection's deadline, or a
    /// fall of I shown after the ingress window (while I has risen again).
    Late,
    /// D did not follow I inside the `ingress` window.
    MissingPause,
    /// D stays up with no reason left (an XON never sent).
    StuckPause,
    /// A class that is not lossless is paused.
    LossyPause,
    /// A change of D did not reach a frame in time (a lost or late frame).
    FrameMissing,
    /// A frame carries other than D, or the wrong quanta, or changes nothing.
    FrameContent,
    /// A refresh came late (the peer's pause may run out) or early.
    Refresh,
    /// A lane removes more than its queue holds.
    Occupancy,
    /// The input breaks the checker's own limits (a port out of range, a missing answer).
    Input,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Accept => "accept",
            Kind::SpuriousPause => "spurious pause",
            Kind::MissingSelection => "missing selection",
            Kind::EarlyResume => "early resume",
            Kind::Late => "late",
            Kind::MissingPause => "missing pause",
            Kind::StuckPause => "stuck pause",
            Kind::LossyPause => "lossy pause",
            Kind::FrameMissing => "frame missing",
            Kind::FrameContent => "frame content",
            Kind::Refresh => "refresh",
            Kind::Occupancy => "occupancy",
            Kind::Input => "input",
        }
    }
}

/// One broken rule: where, what was expected, and why the reference expected it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    pub cycle: u64,
    pub kind: Kind,
    /// The implementation's signal, e.g. `d[3].p2`, `arr_accept[1]`, `frame[0]`.
    pub signal: String,
    /// What the reference expected, with the window it was due in.
    pub expected: String,
    /// The reference's reason: the queue that crossed, the counters, the selection.
    pub why: String,
    /// The lanes of the last cycles before this one, oldest first (`cycle: lanes`).
    pub context: Vec<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "cycle {}: {} on {}: expected {}",
            self.cycle,
            self.kind.name(),
            self.signal,
            self.expected
        )?;
        writeln!(f, "  why: {}", self.why)?;
        if !self.context.is_empty() {
            writeln!(f, "  inputs before it:")?;
            for c in &self.context {
                writeln!(f, "    {c}")?;
            }
        }
        Ok(())
    }
}

/// What a run checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub cycles: u64,
    pub lanes: u64,
    pub accepts: u64,
    /// Changes of D seen.
    pub d_changes: u64,
    /// Obligations opened (crossings of XOFF_e in a CaPFC mode).
    pub obligations: u64,
    /// ... of which judged at their deadline (the rest ended by a clear, a reset, or the run's end).
    pub judged: u64,
    /// ... of which cancelled by a fall of their queue to XON_e before their deadline.
    pub cancelled: u64,
    /// Rises of D explained by a selection (not by I).
    pub selection_rises: u64,
    pub frames: u64,
    pub violations: u64,
    /// Rises of I (lossless classes), and those still set when their pause was due (judged).
    pub i_rises: u64,
    pub i_judged: u64,
    /// Times D came to differ from what the peer was told, and those ended by a frame or a
    /// missing-frame report (judged; the rest ended by D returning first).
    pub frame_episodes: u64,
    pub frame_judged: u64,
    /// Pauses that outlasted the configured refresh period, and refreshes taken or reported late
    /// after such a period (judged).
    pub refresh_due: u64,
    pub refresh_judged: u64,
    /// Obligations still open when the run ended (not judged: their window had not closed).
    pub open_at_end: u64,
    /// Lanes of the run's last `accept_latency` cycles, whose answers come after its end (not
    /// judged).
    pub unanswered_at_end: u64,
    /// Arrivals and enqueues whose answers a reset cancelled (a reset in the `accept_latency`
    /// cycles from the lane's: not judged, as the block forgets them).
    pub cancelled_by_reset: u64,
}

/// A rule whose window was too wide for the run's traffic to tell right from wrong: the traffic
/// exercised it, but too few of its decisions reached a deadline (see [`Checker::weak`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Weakness {
    /// The envelope key of the window: `stop_max`, `stop_cal`, `ingress`, `frame`, `refresh`.
    pub window: &'static str,
    /// The window as declared.
    pub declared: Window,
    /// What the traffic exercised and how much of it was judged.
    pub why: String,
}

impl std::fmt::Display for Weakness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the `{}` window ({}) is too wide for this traffic: {}",
            self.window, self.declared, self.why
        )
    }
}

/// A crossing of XOFF_e waiting for its selection.
#[derive(Debug, Clone)]
struct Obligation {
    /// The crossing's cycle.
    t: u64,
    mode: Mode,
    /// Counters right after the crossing (for reports).
    c_at: Vec<u64>,
}

/// An egress queue (o, p).
#[derive(Debug, Clone)]
struct Queue {
    b: u64,
    c: Vec<u64>,
    /// Per input, its counter's values since the stream horizon: (from cycle, value), the first
    /// entry giving the value before the first change kept; empty while the value is `c`.
    hist: Vec<VecDeque<(u64, u64)>>,
    /// The last cycle from which any counter changed.
    changed: u64,
    /// A selection of the current counters (unchanged over a whole stream) is in `sel`.
    cur_done: bool,
    /// Selections of streamed snapshots: (first x0, the selection), distinct consecutive.
    sel: VecDeque<(u64, u128)>,
    /// The next x0 to compute.
    next_x0: u64,
    /// E bits every consistent selection contained: followed as set.
    e_def: u128,
    /// E bits some consistent selection contained, or inputs whose D rose that only a selection
    /// of this queue explains: they may be set (a fall of D reveals they are not).
    e_maybe: u128,
    obl: VecDeque<Obligation>,
    /// Obligations cancelled by a fall to XON_e in cycle `.1`: their selection may still show in
    /// D until that cycle plus `e_clear.max` (a selection applied before the clear, seen late).
    cancelled: VecDeque<(Obligation, u64)>,
    /// Obligations whose window closed with no admissible selection applied (reported as
    /// missing): a pause that comes after the window is reported as late, not as spurious.
    missed: VecDeque<(Obligation, Vec<u128>)>,
}

/// An ingress queue's I, with when it last changed.
#[derive(Debug, Clone, Copy, Default)]
struct IState {
    on: bool,
    rise: u64,
    fall: u64,
}

/// Per port, the PFC frames seen.
#[derive(Debug, Clone, Default)]
struct Port {
    /// Bit p: the peer was last told to pause p.
    sent: u8,
    last_frame: Option<u64>,
    /// Cycles the MAC was ready while D differed from `sent`.
    waiting: u64,
    since: u64,
    /// Reported a missing frame or a late refresh in this episode.
    reported: bool,
    refresh_reported: bool,
    /// (D, configured pause time, MAC ready) of past cycles, newest last, as far back as
    /// `frame.max` ready cycles reach; a run of busy cycles with one D and pause time kept once.
    hist: VecDeque<(u8, u16, bool)>,
    /// Ready cycles in `hist`.
    hist_ready: u64,
    /// Busy cycles (MAC not ready) just before this one.
    busy_run: u64,
    /// When the last frame could have been taken at the earliest: its take less the busy
    /// cycles just before it (a frame held in a buffer while the MAC was busy), or, for a frame
    /// taken right after another, that one's (frames queued in a buffer leave back to back), for
    /// at most `frame.max` frames in a row, the most a buffer within the frame window holds.
    last_free: u64,
    /// Frames taken in consecutive cycles so far, the last included.
    in_a_row: u64,
    /// D differs from what the peer was told (an episode the frame rule judges).
    episode: bool,
    /// The configured period passed since the last frame while the peer is paused.
    refresh_due: bool,
    /// D differed from what the peer was told in a cycle since the last frame: a frame that
    /// repeats what was told answers that change (undone while the MAC was busy), and is
    /// neither a refresh nor a frame for nothing.
    moved: bool,
}

/// The checker. See the module documentation.
pub struct Checker {
    p: Params,
    env: Envelope,
    cfg: BlockConfig,
    reset_clears_config: bool,
    now: u64,
    /// Cycles waiting for their accept answers (accept_latency of them).
    pending: VecDeque<Cycle>,
    b_in: Vec<u64>,
    i: Vec<IState>,
    q: Vec<Queue>,
    /// D as last seen, per port.
    d: Vec<u8>,
    /// Per (port, prio): D may stay up until this cycle for a transient reason (a fall of I, a
    /// clear of E, a reset).
    hold: Vec<u64>,
    /// Per (port, prio): a violation was reported for this episode of D (until D changes).
    quiet: Vec<bool>,
    /// Per (port, prio): the cycle D last rose.
    d_rose: Vec<u64>,
    ports: Vec<Port>,
    /// This cycle's removals: (egress, queue, units).
    removed: Vec<(bool, usize, u64)>,
    context: VecDeque<(u64, String)>,
    /// Recent cycles in which one queue had a removal and an addition (for reports).
    coincide: VecDeque<(u64, String)>,
    summary: Summary,
    /// Bit m: an obligation of mode code m was opened.
    modes_seen: u8,
    out: Vec<Violation>,
}

const CONTEXT: usize = 8;

/// The most past (D, pause time) a port keeps for its frames while its MAC stays busy: a frame
/// carries one of its last HIST_MAX changes of D at most.
const HIST_MAX: usize = 4096;

fn bit(i: usize) -> u128 {
    1u128 << i
}

fn list(m: u128) -> String {
    let v: Vec<String> = (0..128)
        .filter(|&i| m >> i & 1 == 1)
        .map(|i| i.to_string())
        .collect();
    format!("{{{}}}", v.join(", "))
}

impl Checker {
    /// A checker for an implementation with these parameters, starting from reset with `config`.
    /// `reset_clears_config`: a reset returns the configuration to all zeros (as `capfc_v2_top` does).
    pub fn new(
        p: Params,
        config: BlockConfig,
        env: Envelope,
        reset_clears_config: bool,
    ) -> Result<Self, CheckerError> {
        p.validate().map_err(CheckerError::Params)?;
        env.validate().map_err(CheckerError::Envelope)?;
        let nq = p.np * NPRIO;
        let q = Queue {
            b: 0,
            c: vec![0; p.np],
            hist: vec![VecDeque::new(); p.np],
            changed: 0,
            cur_done: false,
            sel: VecDeque::new(),
            next_x0: 1,
            e_def: 0,
            e_maybe: 0,
            obl: VecDeque::new(),
            cancelled: VecDeque::new(),
            missed: VecDeque::new(),
        };
        let mut c = Checker {
            p,
            env,
            cfg: config,
            reset_clears_config,
            now: 0,
            pending: VecDeque::new(),
            b_in: vec![0; nq],
            i: vec![IState::default(); nq],
            q: vec![q; nq],
            d: vec![0; p.np],
            hold: vec![0; nq],
            quiet: vec![false; nq],
            d_rose: vec![0; nq],
            ports: vec![Port::default(); p.np],
            removed: vec![],
            context: VecDeque::new(),
            coincide: VecDeque::new(),
            summary: Summary::default(),
            modes_seen: 0,
            out: vec![],
        };
        c.check_refresh_beats_pause();
        Ok(c)
    }

    /// The configuration in force.
    pub fn config(&self) -> &BlockConfig {
        &self.cfg
    }

    /// What has been checked so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The rules the run exercised without judging enough of their decisions at a deadline:
    /// a verdict that could not have failed for them. A rule is weak when the traffic exercised
    /// it and none of its decisions reached its deadline (the ingress pause, the frame, the
    /// refresh), or, for the selections, when fewer than one XOFF_e crossing in ten was judged
    /// at its deadline (the rest cancelled by a fall to XON_e, a reset, or the run's end).
    pub fn weak(&self) -> Vec<Weakness> {
        let s = &self.summary;
        let mut v = vec![];
        if s.obligations > 0 && s.judged * 10 < s.obligations {
            for (mode, key, w) in [
                (Mode::StopMax, "stop_max", self.env.stop_max),
                (Mode::StopCal, "stop_cal", self.env.stop_cal),
            ] {
                if self.modes_seen >> mode.code().value() & 1 == 1 {
                    v.push(Weakness {
                        window: key,
                        declared: w,
                        why: format!(
                            "{} of {} XOFF_e crossings reached their deadline ({} cancelled by a fall to XON_e first); a late or missing selection would have gone unseen",
                            s.judged, s.obligations, s.cancelled
                        ),
                    });
                }
            }
        }
        if s.i_rises > 0 && s.i_judged == 0 {
            v.push(Weakness {
                window: "ingress",
                declared: self.env.ingress,
                why: format!(
                    "none of {} rises of I was still set when its pause was due",
                    s.i_rises
                ),
            });
        }
        if s.frame_episodes > 0 && s.frame_judged == 0 {
            v.push(Weakness {
                window: "frame",
                declared: self.env.frame,
                why: format!(
                    "none of {} changes of D lasted until a frame was due",
                    s.frame_episodes
                ),
            });
        }
        if s.refresh_due > 0 && s.refresh_judged == 0 {
            v.push(Weakness {
                window: "refresh",
                declared: self.env.refresh,
                why: format!(
                    "{} pauses outlasted the refresh period and none lasted until its refresh was due",
                    s.refresh_due
                ),
            });
        }
        v
    }

    /// Feed one cycle; returns the violations it revealed (possibly of an earlier cycle, when
    /// answers come `accept_latency` cycles late).
    pub fn step(&mut self, c: Cycle) -> Vec<Violation> {
        self.pending.push_back(c);
        if self.pending.len() as u64 > self.env.accept_latency {
            let mut cy = self.pending.pop_front().expect("a cycle is pending");
            if self.env.accept_latency > 0 {
                let answers = self.pending.back().expect("a later cycle").accepts.clone();
                cy.accepts = answers;
                // A reset in the cycles before the answer's cancels it: the block forgets the
                // lane, and so does the checker (the arrivals and enqueues of `cy` are dropped
                // with their answers; its removals stay, and the reset clears them).
                let before = (self.env.accept_latency - 1) as usize;
                if self.pending.iter().take(before).any(|c| c.rst) {
                    let n = cy.lanes.iter().filter(|l| l.answered()).count() as u64;
                    self.summary.cancelled_by_reset += n;
                    cy.lanes.retain(|l| !l.answered());
                    cy.accepts.clear();
                }
            }
            self.cycle(cy);
        }
        std::mem::take(&mut self.out)
    }

    /// End the run: the last `accept_latency` cycles, whose answers would come after the run's
    /// end, are checked without their lanes (counted in `unanswered_at_end`, not judged); open
    /// obligations are counted, not judged.
    pub fn finish(&mut self) -> Vec<Violation> {
        while let Some(mut cy) = self.pending.pop_front() {
            self.summary.unanswered_at_end +=
                cy.lanes.iter().filter(|l| l.answered()).count() as u64;
            cy.lanes.clear();
            cy.accepts.clear();
            self.cycle(cy);
        }
        self.summary.open_at_end = self.q.iter().map(|q| q.obl.len() as u64).sum();
        std::mem::take(&mut self.out)
    }

    fn lossless(&self, p: usize) -> bool {
        self.cfg.lossless >> p & 1 == 1
    }

    fn units(&self, s: u32) -> u64 {
        u64::from(s).div_ceil(1u64 << self.p.cell_log2)
    }

    fn cnt_max(&self) -> u64 {
        if self.p.cw >= 64 {
            u64::MAX
        } else {
            (1u64 << self.p.cw) - 1
        }
    }

    fn violation(
        &mut self,
        cycle: u64,
        kind: Kind,
        signal: String,
        expected: String,
        mut why: String,
    ) {
        self.summary.violations += 1;
        let context: Vec<String> = self
            .context
            .iter()
            .filter(|(t, _)| *t <= cycle)
            .map(|(t, s)| format!("{t}: {s}"))
            .collect();
        // Same-cycle events among the inputs shown: their order is the design's to declare.
        let first = self
            .context
            .iter()
            .find(|(t, _)| *t <= cycle)
            .map_or(cycle, |&(t, _)| t);
        let same: Vec<&str> = self
            .coincide
            .iter()
            .filter(|(t, _)| *t >= first && *t <= cycle)
            .map(|(_, s)| s.as_str())
            .collect();
        if !same.is_empty() {
            why.push_str(&format!(
                "; same-cycle events before it: {} (the envelope's `order` declares which applies first)",
                same.join("; ")
            ));
        }
        self.out.push(Violation {
            cycle,
            kind,
            signal,
            expected,
            why,
            context,
        });
    }

    fn check_refresh_beats_pause(&mut self) {
        // The pause lasts quanta * 512 bit times; a refresh later than that lets the peer resume.
        let pause = u64::from(self.cfg.quanta) * 512 / u64::from(self.env.link_bits_per_cycle);
        let late = u64::from(self.cfg.refresh) + self.env.refresh.max;
        if self.cfg.lossless != 0 && self.cfg.quanta != 0 && late > pause {
            let t = self.now;
            self.violation(
                t,
                Kind::Refresh,
                "config.refresh".into(),
                format!("a refresh within the pause ({pause} cycles)"),
                format!(
                    "refresh {} + up to {} cycles of the envelope is {late} cycles; quanta {} at {} bits a cycle last {pause}",
                    self.cfg.refresh, self.env.refresh.max, self.cfg.quanta, self.env.link_bits_per_cycle
                ),
            );
        }
    }

    /// One cycle with its answers attached.
    fn cycle(&mut self, cy: Cycle) {
        let t = self.now;
        self.summary.cycles += 1;
        if cy.d.len() != self.p.np {
            self.violation(
                t,
                Kind::Input,
                "d".into(),
                format!("{} ports", self.p.np),
                format!("the cycle carries D for {} ports", cy.d.len()),
            );
            self.now += 1;
            return;
        }
        if !cy.lanes.is_empty() {
            let s: Vec<String> = cy.lanes.iter().map(|l| l.to_string()).collect();
            self.context.push_back((t, s.join(" ")));
            if self.context.len() > CONTEXT {
                self.context.pop_front();
            }
        }
        // D of cycle t shows the lanes of cycles before t (every window starts at 1 or later):
        // judge it, then apply this cycle's lanes.
        self.judge_d(t, &cy.d);
        self.judge_deadlines(t, &cy.d);
        self.judge_frames(t, &cy);
        if cy.rst {
            self.reset(t);
        } else {
            self.lanes(t, &cy.lanes, &cy.accepts);
        }
        self.update_selections(t);
        if let Some(c) = cy.config {
            self.configure(t, c);
        }
        self.now += 1;
    }

    /// A new configuration from the next cycle. Thresholds, mode, CUT and the PFC registers may
    /// change at any time; the lossless mask only while no I, no E and no counter is set (section 3
    /// does not say what the state of a class that changes kind becomes).
    fn configure(&mut self, t: u64, c: BlockConfig) {
        if c.lossless != self.cfg.lossless {
            let busy = self.i.iter().any(|s| s.on)
                || self
                    .q
                    .iter()
                    .any(|q| q.e_def != 0 || q.e_maybe != 0 || q.c.iter().any(|&c| c != 0))
                || self.d.iter().any(|&d| d != 0);
            if busy {
                self.violation(
                    t,
                    Kind::Input,
                    "config.lossless".into(),
                    "a lossless mask rewritten only while no I, E or counter is set".into(),
                    format!(
                        "the mask changes from {:#04x} to {:#04x} while classes are paused or counted",
                        self.cfg.lossless, c.lossless
                    ),
                );
            }
        }
        self.context.push_back((
            t,
            format!(
                "config: mode {}, lossless {:#04x}, cut {}",
                c.mode.name(),
                c.lossless,
                c.cut_fixed
            ),
        ));
        if self.context.len() > CONTEXT {
            self.context.pop_front();
        }
        self.cfg = c;
        self.check_refresh_beats_pause();
    }

    fn reset(&mut self, t: u64) {
        let hold = t + self.env.reset;
        for k in 0..self.p.np * NPRIO {
            self.b_in[k] = 0;
            self.i[k] = IState::default();
            let q = &mut self.q[k];
            q.b = 0;
            q.c.iter_mut().for_each(|c| *c = 0);
            q.hist.iter_mut().for_each(VecDeque::clear);
            q.changed = t;
            q.cur_done = false;
            q.sel.clear();
            q.next_x0 = t + 1;
            q.e_def = 0;
            q.e_maybe = 0;
            q.obl.clear();
            q.cancelled.clear();
            q.missed.clear();
            self.hold[k] = self.hold[k].max(hold);
        }
        for p in &mut self.ports {
            *p = Port::default();
        }
        if self.reset_clears_config {
            self.cfg = BlockConfig {
                prio: Default::default(),
                lossless: 0,
                mode: Mode::PfcOnly,
                cut_fixed: 0,
                quanta: 0,
                refresh: 0,
            };
        }
    }

    /// The lane names ports and a priority that exist.
    fn valid(&self, l: &Lane) -> bool {
        let np = self.p.np;
        match *l {
            Lane::Arrive { port, prio, .. } | Lane::Depart { port, prio, .. } => {
                port < np && prio < NPRIO
            }
            Lane::Enqueue {
                oport, prio, iport, ..
            } => oport < np && iport < np && prio < NPRIO,
            Lane::Dequeue { oport, prio, .. } => oport < np && prio < NPRIO,
        }
    }

    fn in_range(&mut self, t: u64, l: &Lane) -> bool {
        let np = self.p.np;
        let ok = self.valid(l);
        if !ok {
            self.violation(
                t,
                Kind::Input,
                format!("{l}"),
                format!("ports below {np}, priorities below 8"),
                "a lane names a port or priority that does not exist".into(),
            );
        }
        ok
    }

    fn lanes(&mut self, t: u64, lanes: &[Lane], accepts: &[bool]) {
        let asked = lanes.iter().filter(|l| l.answered()).count();
        if asked != accepts.len() {
            self.violation(
                t,
                Kind::Input,
                "accepts".into(),
                format!("{asked} answers"),
                format!("{} answers were given", accepts.len()),
            );
            return;
        }
        self.summary.lanes += lanes.len() as u64;
        // What this cycle's removals take from each queue (at most what it held at the cycle's
        // start): an accept that sees removals compares the occupancy without them, whichever
        // order the state updates take.
        self.removed.clear();
        let mut removed = std::mem::take(&mut self.removed);
        for l in lanes.iter().filter(|l| l.removes() && self.valid(l)) {
            let (egress, k, size) = match *l {
                Lane::Depart { port, prio, size } => (false, port * NPRIO + prio, size),
                Lane::Dequeue { oport, prio, size } => (true, oport * NPRIO + prio, size),
                _ => unreachable!("only removals"),
            };
            let held = if egress { self.q[k].b } else { self.b_in[k] };
            removed.push((egress, k, self.units(size).min(held)));
        }
        self.removed = removed;
        self.note_coincidences(t, lanes);
        let removals = |me: &mut Self| {
            for l in lanes.iter().filter(|l| l.removes()) {
                if me.in_range(t, l) {
                    me.remove(t, l);
                }
            }
        };
        let additions = |me: &mut Self| {
            let mut ans = accepts.iter();
            for l in lanes.iter().filter(|l| !l.removes()) {
                let a = *ans.next().expect("counted above");
                if me.in_range(t, l) {
                    me.add(t, l, a);
                }
            }
        };
        // Each kind in lane order, the kinds in the declared order.
        match self.env.order {
            Order::RemovalsFirst => {
                removals(self);
                additions(self);
            }
            Order::AdditionsFirst => {
                additions(self);
                removals(self);
            }
        }
    }

    /// The occupancy an accept compares, given the queue's occupancy `b` now: this cycle's
    /// removals of the queue are in `b` when they are yet to apply (additions first) and not in
    /// it when they have applied (removals first); `accept_sees_removals` says which the accept
    /// compares.
    fn accept_base(&self, egress: bool, k: usize, b: u64) -> u64 {
        let r: u64 = self
            .removed
            .iter()
            .filter(|&&(e, q, _)| e == egress && q == k)
            .map(|&(_, _, s)| s)
            .sum();
        match (self.env.order, self.env.accept_sees_removals) {
            (Order::RemovalsFirst, false) => b + r,
            (Order::AdditionsFirst, true) => b.saturating_sub(r),
            _ => b,
        }
    }

    /// Queues that got a removal and an addition in this cycle, said in the reports that follow
    /// (the order of same-cycle events is the design's, declared by `order`).
    fn note_coincidences(&mut self, t: u64, lanes: &[Lane]) {
        let key = |l: &Lane| match *l {
            Lane::Arrive { port, prio, .. } | Lane::Depart { port, prio, .. } => {
                (false, port, prio)
            }
            Lane::Enqueue { oport, prio, .. } | Lane::Dequeue { oport, prio, .. } => {
                (true, oport, prio)
            }
        };
        for a in lanes.iter().filter(|l| !l.removes()) {
            for r in lanes.iter().filter(|l| l.removes()) {
                if key(a) == key(r) {
                    let (eg, port, prio) = key(a);
                    self.coincide.push_back((
                        t,
                        format!(
                            "{r} and {a} hit {} ({port}, p{prio}) in cycle {t}, applied {}",
                            if eg { "egress" } else { "ingress" },
                            self.env.order.name().replace('_', " ")
                        ),
                    ));
                }
            }
        }
        while self.coincide.len() > CONTEXT {
            self.coincide.pop_front();
        }
    }

    fn remove(&mut self, t: u64, l: &Lane) {
        match *l {
            Lane::Depart { port, prio, size } => {
                let k = port * NPRIO + prio;
                let s = self.units(size);
                if s > self.b_in[k] {
                    let b = self.b_in[k];
                    self.violation(
                        t,
                        Kind::Occupancy,
                        format!("{l}"),
                        format!("at most {b} units"),
                        format!(
                            "ingress ({port}, p{prio}) holds {b} units; the departure takes {s}"
                        ),
                    );
                }
                self.b_in[k] = self.b_in[k].saturating_sub(s);
                if self.i[k].on && self.b_in[k] <= u64::from(self.cfg.prio[prio].ing_xon) {
                    self.i[k].on = false;
                    self.i[k].fall = t;
                    self.hold[k] = self.hold[k].max(t + self.env.ingress.max);
                }
            }
            Lane::Dequeue { oport, prio, size } => {
                let k = oport * NPRIO + prio;
                let s = self.units(size);
                let b = self.q[k].b;
                if s > b {
                    self.violation(
                        t,
                        Kind::Occupancy,
                        format!("{l}"),
                        format!("at most {b} units"),
                        format!("egress ({oport}, p{prio}) holds {b} units; the dequeue takes {s}"),
                    );
                }
                let th = self.cfg.prio[prio];
                let nb = b.saturating_sub(s);
                self.q[k].b = nb;
                if nb <= u64::from(th.eg_warn) {
                    self.clear_counters(t, k);
                }
                if nb <= u64::from(th.eg_xon) {
                    self.clear_e(t, k);
                }
            }
            _ => unreachable!("only removals"),
        }
    }

    fn add(&mut self, t: u64, l: &Lane, accepted: bool) {
        self.summary.accepts += 1;
        match *l {
            Lane::Arrive { port, prio, size } => {
                let k = port * NPRIO + prio;
                let s = self.units(size);
                let max = u64::from(self.cfg.prio[prio].ing_max);
                let b = self.accept_base(false, k, self.b_in[k]);
                let fits = b + s <= max;
                if fits != accepted {
                    self.violation(
                        t + self.env.accept_latency,
                        Kind::Accept,
                        format!("arr_accept[{port}]"),
                        format!("{}", u8::from(fits)),
                        format!(
                            "ingress ({port}, p{prio}) holds {b} units, the packet is {s}, MAX is {max}: B + s {} MAX",
                            if fits { "<=" } else { ">" }
                        ),
                    );
                }
                if accepted {
                    self.b_in[k] += s;
                    let xoff = u64::from(self.cfg.prio[prio].ing_xoff);
                    if self.lossless(prio) && !self.i[k].on && self.b_in[k] > xoff {
                        self.summary.i_rises += 1;
                        self.i[k].on = true;
                        self.i[k].rise = t;
                    }
                }
            }
            Lane::Enqueue {
                oport,
                prio,
                iport,
                size,
            } => {
                let k = oport * NPRIO + prio;
                let s = self.units(size);
                let th = self.cfg.prio[prio];
                let b = self.accept_base(true, k, self.q[k].b);
                let fits = b + s <= u64::from(th.eg_max);
                if fits != accepted {
                    self.violation(
                        t + self.env.accept_latency,
                        Kind::Accept,
                        "enq_accept".into(),
                        format!("{}", u8::from(fits)),
                        format!(
                            "egress ({oport}, p{prio}) holds {b} units, the packet is {s}, MAX is {}: B + s {} MAX",
                            th.eg_max,
                            if fits { "<=" } else { ">" }
                        ),
                    );
                }
                if !accepted {
                    return;
                }
                self.q[k].b += s;
                if !self.lossless(prio) {
                    return;
                }
                let b = self.q[k].b;
                if b >= u64::from(th.eg_warn) {
                    let max = self.cnt_max();
                    let q = &mut self.q[k];
                    let v = (q.c[iport] + 1).min(max);
                    Self::set_counter(q, iport, t + 1, v);
                }
                if self.cfg.mode != Mode::PfcOnly && b > u64::from(th.eg_xoff) {
                    self.summary.obligations += 1;
                    let mode = self.cfg.mode;
                    self.modes_seen |= 1 << mode.code().value();
                    let q = &mut self.q[k];
                    let c_at = q.c.clone();
                    q.obl.push_back(Obligation { t, mode, c_at });
                }
            }
            _ => unreachable!("only additions"),
        }
    }

    /// A dequeue left queue k at or below WARN: C is 0 from the next cycle. Open obligations stay
    /// open: a snapshot taken before the clear is still a selection the reference admits (the
    /// untimed reference selected at the crossing, and a clear of C does not clear E), and one
    /// taken after it is empty, so nothing is owed any more but a late E from an earlier snapshot
    /// is explained.
    fn clear_counters(&mut self, t: u64, k: usize) {
        let q = &mut self.q[k];
        for j in 0..q.c.len() {
            Self::set_counter(q, j, t + 1, 0);
        }
    }

    /// Counter j of a queue holds `v` from cycle `from`.
    fn set_counter(q: &mut Queue, j: usize, from: u64, v: u64) {
        if q.c[j] == v {
            return;
        }
        let h = &mut q.hist[j];
        if h.is_empty() {
            h.push_back((0, q.c[j]));
        }
        h.push_back((from, v));
        q.c[j] = v;
        q.changed = from;
        q.cur_done = false;
    }

    /// A dequeue left queue k at or below XON_e: every E of the queue is clear; D may show it
    /// within `e_clear`. Open obligations are cancelled: the reference's selection at their
    /// crossing is cleared now, so an implementation that had not applied it yet drops it; one
    /// that applied it before the clear may show it in D inside the selection window until the
    /// clear shows, `e_clear.max` cycles from now (a registered D shows both one cycle late).
    fn clear_e(&mut self, t: u64, k: usize) {
        let (o, p) = (k / NPRIO, k % NPRIO);
        // An open obligation's selection may be applied already without D having shown it (D up
        // for its inputs from I then): its inputs may be held by this E until the clear shows.
        let span = (self.p.np as u64 - 1) * self.env.snapshot_stride;
        let mut applied = 0u128;
        for ob in &self.q[k].obl {
            let w = self.env.selection(ob.mode);
            match t.checked_sub(span) {
                Some(to) if t >= ob.t + w.min && to > ob.t => {
                    for m in self.admissible(k, ob.t + 1, to) {
                        applied |= m;
                    }
                }
                _ => {}
            }
        }
        let q = &mut self.q[k];
        self.summary.cancelled += q.obl.len() as u64;
        while let Some(ob) = q.obl.pop_front() {
            q.cancelled.push_back((ob, t));
        }
        q.missed.clear();
        let was = q.e_def | q.e_maybe | applied;
        q.e_def = 0;
        q.e_maybe = 0;
        let until = t + self.env.e_clear.max;
        for i in 0..self.p.np {
            if i != o && was >> i & 1 == 1 {
                let h = &mut self.hold[i * NPRIO + p];
                *h = (*h).max(until);
            }
        }
    }

    /// The counter of input j of a queue as of the start of cycle y (y within the horizon).
    fn counter_at(q: &Queue, j: usize, y: u64) -> u64 {
        let h = &q.hist[j];
        match h.iter().rposition(|&(from, _)| from <= y) {
            Some(ix) => h[ix].1,
            None => q.c[j],
        }
    }

    /// Compute the selections of the streamed snapshots that completed this cycle, for the queues
    /// with open obligations; prune counter history behind the horizon.
    fn update_selections(&mut self, t: u64) {
        let span = (self.p.np as u64 - 1) * self.env.snapshot_stride;
        let (cut, cut_f) = (self.cfg.cut_fixed, self.p.cut_f);
        let e_clear = self.env.e_clear.max;
        for k in 0..self.q.len() {
            let env = &self.env;
            let q = &mut self.q[k];
            // A cancelled obligation explains D until its clear shows or its window closes.
            q.cancelled
                .retain(|(ob, tc)| t < tc + e_clear && t < ob.t + env.selection(ob.mode).max);
            let win = |ob: &Obligation| env.selection(ob.mode).max;
            // A missed obligation explains a late pause for one more window.
            q.missed.retain(|(ob, _)| t < ob.t + 2 * win(ob));
            // Snapshot x0 needs the counters of cycles x0 ..= x0 + span: complete once t + 1 does.
            let last_x0 = (t + 1).saturating_sub(span);
            if q.obl.is_empty() && q.cancelled.is_empty() {
                q.sel.clear();
                q.cur_done = false;
                q.next_x0 = last_x0 + 1;
                Self::prune(q, last_x0 + 1);
                continue;
            }
            let oldest = q
                .obl
                .iter()
                .chain(q.cancelled.iter().map(|(ob, _)| ob))
                .map(|ob| ob.t + 1)
                .min()
                .expect("not empty");
            q.next_x0 = q.next_x0.max(oldest);
            let stride = self.env.snapshot_stride;
            while q.next_x0 <= last_x0 {
                let x0 = q.next_x0;
                q.next_x0 += 1;
                // The whole stream after the last change reads the current counters.
                let current = q.changed <= x0;
                if current && q.cur_done {
                    continue;
                }
                let snap: Vec<u64> = if current {
                    q.c.clone()
                } else {
                    (0..q.c.len())
                        .map(|j| Self::counter_at(q, j, x0 + j as u64 * stride))
                        .collect()
                };
                q.cur_done = current;
                let mode = q
                    .obl
                    .back()
                    .or(q.cancelled.back().map(|(ob, _)| ob))
                    .expect("not empty")
                    .mode;
                let m = crate::reference::select(&snap, mode, cut, cut_f)
                    .into_iter()
                    .fold(0u128, |m, i| m | bit(i));
                if q.sel.back().map(|&(_, s)| s) != Some(m) {
                    q.sel.push_back((x0, m));
                }
            }
            // Keep the selections from the oldest obligation on (and the one covering it).
            while q.sel.len() >= 2 && q.sel[1].0 <= oldest {
                q.sel.pop_front();
            }
            Self::prune(q, q.next_x0.min(oldest));
        }
    }

    /// Drop counter history older than cycle y, keeping the entry that gives the value at y.
    fn prune(q: &mut Queue, y: u64) {
        for h in &mut q.hist {
            while h.len() >= 2 && h[1].0 <= y {
                h.pop_front();
            }
            if h.len() == 1 {
                // The only entry left is the current value.
                h.clear();
            }
        }
    }

    /// Selections a snapshot in [from, to] gives for queue k (streamed snapshots computed so far).
    fn admissible(&self, k: usize, from: u64, to: u64) -> Vec<u128> {
        let s = &self.q[k].sel;
        let last = self.q[k].next_x0.saturating_sub(1);
        let mut v = vec![];
        for (n, &(x0, m)) in s.iter().enumerate() {
            let end = s.get(n + 1).map_or(last, |&(x, _)| x - 1);
            if x0 <= to && end >= from && !v.contains(&m) {
                v.push(m);
            }
        }
        v
    }

    /// I may show in D at cycle u.
    fn i_may(&self, k: usize, u: u64) -> bool {
        let s = self.i[k];
        s.on && u >= s.rise + self.env.ingress.min
    }

    /// Per priority, the inputs that some queue (o, p), o != i, follows as E (set or maybe).
    fn held(&self) -> [u128; NPRIO] {
        let mut h = [0u128; NPRIO];
        for (k, q) in self.q.iter().enumerate() {
            h[k % NPRIO] |= (q.e_def | q.e_maybe) & !bit(k / NPRIO);
        }
        h
    }

    /// Whether obligation `ob` of queue k explains D of input i at cycle u: u is inside its
    /// window (and, for one cancelled in cycle `tc`, no later than the clear shows) and a
    /// snapshot complete before u (taken no later than `tc`) selects i.
    fn explains(&self, k: usize, ob: &Obligation, tc: Option<u64>, i: usize, u: u64) -> bool {
        let span = (self.p.np as u64 - 1) * self.env.snapshot_stride;
        let w = self.env.selection(ob.mode);
        if u < ob.t + w.min || u > ob.t + w.max {
            return false;
        }
        if tc.is_some_and(|tc| u > tc + self.env.e_clear.max) {
            return false;
        }
        // The stream must be complete by cycle u: snapshots from x0 <= u - span.
        let Some(to) = u.checked_sub(span) else {
            return false;
        };
        let to = tc.map_or(to, |tc| to.min(tc));
        to > ob.t
            && self
                .admissible(k, ob.t + 1, to)
                .iter()
                .any(|m| m >> i & 1 == 1)
    }

    /// The obligations whose window holds cycle u and that admit input i from a snapshot
    /// complete before u: (queue index, None) for an open one, (queue index, Some(the cycle its
    /// cancel shows by)) for a cancelled one.
    fn explaining(&self, i: usize, p: usize, u: u64) -> Vec<(usize, Option<u64>)> {
        let mut v = vec![];
        for o in 0..self.p.np {
            if o == i {
                continue;
            }
            let k = o * NPRIO + p;
            let q = &self.q[k];
            if q.obl.iter().any(|ob| self.explains(k, ob, None, i, u)) {
                v.push((k, None));
            } else if let Some(&(_, tc)) = q
                .cancelled
                .iter()
                .find(|(ob, tc)| self.explains(k, ob, Some(*tc), i, u))
            {
                v.push((k, Some(tc + self.env.e_clear.max)));
            }
        }
        v
    }

    fn judge_d(&mut self, u: u64, d: &[u8]) {
        let held = self.held();
        for (i, &new) in d.iter().enumerate() {
            let old = self.d[i];
            for (p, &held) in held.iter().enumerate() {
                let k = i * NPRIO + p;
                let (was, is) = (old >> p & 1 == 1, new >> p & 1 == 1);
                if was != is {
                    self.summary.d_changes += 1;
                    self.quiet[k] = false;
                }
                // I's pause is due now: D shows it, or the rule reports it missing.
                let s = self.i[k];
                if s.on && u == s.rise + self.env.ingress.max {
                    self.summary.i_judged += 1;
                }
                if is && !self.lossless(p) {
                    if !self.quiet[k] {
                        self.quiet[k] = true;
                        self.violation(
                            u,
                            Kind::LossyPause,
                            format!("d[{i}].p{p}"),
                            "0".into(),
                            format!(
                                "priority {p} is not lossless (mask {:#04x})",
                                self.cfg.lossless
                            ),
                        );
                    }
                    continue;
                }
                if !was && is {
                    self.d_rose[k] = u;
                    self.rise(u, i, p);
                } else if was && !is {
                    self.fall(u, i, p);
                } else if is {
                    if held >> i & 1 == 0 {
                        self.stays_up(u, i, p);
                    }
                } else {
                    self.stays_down(u, i, p);
                }
            }
        }
        self.d.copy_from_slice(d);
    }

    fn rise(&mut self, u: u64, i: usize, p: usize) {
        let k = i * NPRIO + p;
        if self.i_may(k, u) || u <= self.hold[k] {
            return;
        }
        let ex = self.explaining(i, p, u);
        if ex.is_empty() && self.late_selection(u, i, p) {
            return;
        }
        if ex.is_empty() {
            let why = self.no_reason(i, p, u);
            self.quiet[k] = true;
            self.violation(
                u,
                Kind::SpuriousPause,
                format!("d[{i}].p{p}"),
                "0".into(),
                why,
            );
            return;
        }
        self.summary.selection_rises += 1;
        for (qk, until) in ex {
            match until {
                // an open selection: followed as maybe-E until its queue's clear
                None => {
                    let q = &mut self.q[qk];
                    if q.e_def >> i & 1 == 0 {
                        q.e_maybe |= bit(i);
                    }
                }
                // a cancelled one: D may stay up until the cancel shows
                Some(until) => self.hold[k] = self.hold[k].max(until),
            }
        }
    }

    /// A rise of D[i][p] that a selection whose window closed unapplied explains: reported as
    /// late (its queue then follows input i as maybe-E). Whether one did.
    fn late_selection(&mut self, u: u64, i: usize, p: usize) -> bool {
        for o in (0..self.p.np).filter(|&o| o != i) {
            let qk = o * NPRIO + p;
            let Some((ob, adm)) = self.q[qk]
                .missed
                .iter()
                .find(|(_, adm)| adm.iter().any(|m| m >> i & 1 == 1))
                .cloned()
            else {
                continue;
            };
            let w = self.env.selection(ob.mode);
            let sel: Vec<String> = adm.iter().map(|&m| list(m)).collect();
            self.quiet[i * NPRIO + p] = true;
            self.q[qk].e_maybe |= bit(i);
            self.violation(
                u,
                Kind::Late,
                format!("d[{i}].p{p}"),
                format!(
                    "a pause in cycles {}..={} ({} window {w} from the crossing)",
                    ob.t + w.min,
                    ob.t + w.max,
                    ob.mode.name()
                ),
                format!(
                    "egress ({o}, p{p}) crossed XOFF_e in cycle {}: counters then {:?}, selection {}; D[{i}].p{p} rises in cycle {u}, {} cycles after the crossing, {} after the window closed",
                    ob.t,
                    ob.c_at,
                    sel.join(" or "),
                    u - ob.t,
                    u - (ob.t + w.max)
                ),
            );
            return true;
        }
        false
    }

    fn fall(&mut self, u: u64, i: usize, p: usize) {
        let k = i * NPRIO + p;
        let s = self.i[k];
        let w = self.env.ingress;
        if s.on && u >= s.rise + w.max && s.fall > self.d_rose[k] && s.fall < s.rise {
            // D has been up since before I's last fall: this fall shows that one, late.
            if u <= s.fall + (2 * w.max).max(w.max + 8) {
                self.violation(
                    u,
                    Kind::Late,
                    format!("d[{i}].p{p}"),
                    format!(
                        "the fall of I in cycle {} shown in cycles {}..={} (ingress window {w})",
                        s.fall,
                        s.fall + w.min,
                        s.fall + w.max
                    ),
                    format!(
                        "I[{i}][{p}] fell in cycle {} and rose again in cycle {}; D falls in cycle {u}, {} cycles after the fall: a D path slower than the declared window",
                        s.fall,
                        s.rise,
                        u - s.fall
                    ),
                );
                return;
            }
        }
        if s.on && u >= s.rise + w.max {
            self.violation(
                u,
                Kind::EarlyResume,
                format!("d[{i}].p{p}"),
                "1".into(),
                format!(
                    "I[{i}][{p}] is set since cycle {} (ingress holds {} units > XOFF {}) and not cleared",
                    s.rise,
                    self.b_in[k],
                    self.cfg.prio[p].ing_xoff
                ),
            );
            return;
        }
        for o in 0..self.p.np {
            if o == i {
                continue;
            }
            let qk = o * NPRIO + p;
            if self.q[qk].e_def >> i & 1 == 1 {
                let q = &self.q[qk];
                let why = format!(
                    "E[{o}][{p}][{i}] is set: every selection the reference admits for egress ({o}, p{p}) took input {i}, and the queue ({} units) has not fallen to XON_e {} since",
                    q.b, self.cfg.prio[p].eg_xon
                );
                self.violation(
                    u,
                    Kind::EarlyResume,
                    format!("d[{i}].p{p}"),
                    "1".into(),
                    why,
                );
                self.q[qk].e_def &= !bit(i);
                return;
            }
        }
        // A maybe-E of input i is revealed not set.
        for o in 0..self.p.np {
            if o != i {
                self.q[o * NPRIO + p].e_maybe &= !bit(i);
            }
        }
    }

    fn stays_up(&mut self, u: u64, i: usize, p: usize) {
        let k = i * NPRIO + p;
        if self.quiet[k] || self.i[k].on || u <= self.hold[k] {
            return;
        }
        // An open obligation may have raised it (a rise explained by I, then I fell).
        if !self.explaining(i, p, u).is_empty() {
            return;
        }
        let why = self.no_reason(i, p, u);
        self.quiet[k] = true;
        self.violation(u, Kind::StuckPause, format!("d[{i}].p{p}"), "0".into(), why);
    }

    fn stays_down(&mut self, u: u64, i: usize, p: usize) {
        let k = i * NPRIO + p;
        let s = self.i[k];
        if self.quiet[k] || !s.on || u < s.rise + self.env.ingress.max {
            return;
        }
        self.quiet[k] = true;
        self.violation(
            u,
            Kind::MissingPause,
            format!("d[{i}].p{p}"),
            format!("1 from cycle {}", s.rise + self.env.ingress.max),
            format!(
                "I[{i}][{p}] set in cycle {}: ingress holds {} units > XOFF {} (window {})",
                s.rise, self.b_in[k], self.cfg.prio[p].ing_xoff, self.env.ingress
            ),
        );
    }

    /// Why the reference sees no reason for D[i][p] at cycle u.
    fn no_reason(&self, i: usize, p: usize, u: u64) -> String {
        let k = i * NPRIO + p;
        let s = self.i[k];
        let mut why = vec![if s.on {
            format!(
                "I[{i}][{p}] set in cycle {}, not visible before {}",
                s.rise,
                s.rise + self.env.ingress.min
            )
        } else {
            format!(
                "I[{i}][{p}] = 0 (ingress {} units <= XOFF {}; last fall in cycle {})",
                self.b_in[k], self.cfg.prio[p].ing_xoff, s.fall
            )
        }];
        let span = (self.p.np as u64 - 1) * self.env.snapshot_stride;
        for o in 0..self.p.np {
            if o == i {
                continue;
            }
            let qk = o * NPRIO + p;
            for ob in &self.q[qk].obl {
                let w = self.env.selection(ob.mode);
                let adm = self.admissible(qk, ob.t + 1, u.saturating_sub(span));
                let adm: Vec<String> = adm.iter().map(|&m| list(m)).collect();
                why.push(format!(
                    "egress ({o}, p{p}) crossed XOFF_e in cycle {} ({}, window {}..={}): counters then {:?}, admissible selections {}",
                    ob.t,
                    ob.mode.name(),
                    ob.t + w.min,
                    ob.t + w.max,
                    ob.c_at,
                    if adm.is_empty() { "none yet".into() } else { adm.join(" or ") }
                ));
            }
            for (ob, tc) in &self.q[qk].cancelled {
                let w = self.env.selection(ob.mode);
                why.push(format!(
                    "egress ({o}, p{p}) crossed XOFF_e in cycle {} ({}, window {}..={}), cancelled by its fall to XON_e in cycle {tc} (shown by cycle {})",
                    ob.t,
                    ob.mode.name(),
                    ob.t + w.min,
                    ob.t + w.max,
                    tc + self.env.e_clear.max
                ));
            }
        }
        if why.len() == 1 {
            why.push(format!(
                "no egress queue of priority {p} has an open selection"
            ));
        }
        why.join("; ")
    }

    /// Judge the obligations whose window closes this cycle.
    fn judge_deadlines(&mut self, u: u64, d: &[u8]) {
        for k in 0..self.q.len() {
            while let Some(ob) = self.q[k].obl.front() {
                let w = self.env.selection(ob.mode);
                if u < ob.t + w.max {
                    break;
                }
                let ob = self.q[k].obl.pop_front().expect("front exists");
                self.judge(k, ob, u, d);
            }
        }
    }

    fn judge(&mut self, k: usize, ob: Obligation, u: u64, d: &[u8]) {
        self.summary.judged += 1;
        let (o, p) = (k / NPRIO, k % NPRIO);
        let up: u128 = (0..self.p.np)
            .filter(|&i| d[i] >> p & 1 == 1)
            .fold(0, |m, i| m | bit(i));
        let own = bit(o);
        let adm = self.admissible(k, ob.t + 1, u);
        let ok: Vec<u128> = adm
            .iter()
            .copied()
            .filter(|&m| m & !own & !up == 0)
            .collect();
        let q = &mut self.q[k];
        if ok.is_empty() {
            q.missed.push_back((ob.clone(), adm.clone()));
            let adm_s: Vec<String> = adm.iter().map(|&m| list(m)).collect();
            let w = self.env.selection(ob.mode);
            let why = format!(
                "egress ({o}, p{p}) crossed XOFF_e in cycle {} ({}): counters then {:?}; the reference admits {} (own port {o} excluded from D); D[·].p{p} up: {}",
                ob.t,
                ob.mode.name(),
                ob.c_at,
                if adm_s.is_empty() { "nothing computed".into() } else { adm_s.join(" or ") },
                list(up)
            );
            self.violation(
                u,
                Kind::MissingSelection,
                format!("d[·].p{p}"),
                format!(
                    "a selection applied in cycles {}..={}",
                    ob.t + w.min,
                    ob.t + w.max
                ),
                why,
            );
            return;
        }
        let all = ok.iter().fold(u128::MAX, |a, &m| a & m) & !own;
        let any = ok.iter().fold(0u128, |a, &m| a | m) & !own;
        q.e_def |= all;
        q.e_maybe = (q.e_maybe | any) & !q.e_def;
    }

    fn judge_frames(&mut self, u: u64, cy: &Cycle) {
        let np = self.p.np;
        let mut took = 0u128;
        for f in &cy.frames {
            if f.port >= np {
                self.violation(
                    u,
                    Kind::Input,
                    format!("frame[{}]", f.port),
                    format!("a port below {np}"),
                    "a frame names a port that does not exist".into(),
                );
                continue;
            }
            self.summary.frames += 1;
            took |= bit(f.port);
            self.frame(u, f);
        }
        let (quanta, fmax) = (self.cfg.quanta, self.env.frame.max);
        for i in 0..np {
            let d = cy.d[i];
            let ready = cy.ready >> i & 1 == 1;
            let taken = took >> i & 1 == 1;
            let pt = &mut self.ports[i];
            if pt.hist.back() != Some(&(d, quanta, false)) || ready {
                pt.hist.push_back((d, quanta, ready));
                pt.hist_ready += u64::from(ready);
            }
            while let Some(&(_, _, r)) = pt.hist.front() {
                // (a MAC busy for ever keeps every change of D: at most HIST_MAX of them)
                if pt.hist_ready - u64::from(r) <= fmax && pt.hist.len() <= HIST_MAX {
                    break;
                }
                pt.hist.pop_front();
                pt.hist_ready -= u64::from(r);
            }
            pt.busy_run = if ready { 0 } else { pt.busy_run + 1 };
            pt.moved |= d != pt.sent;
            if d != pt.sent && !taken {
                if !pt.episode {
                    pt.episode = true;
                    self.summary.frame_episodes += 1;
                }
                if pt.waiting == 0 {
                    pt.since = u;
                }
                if ready {
                    pt.waiting += 1;
                }
                if pt.waiting > fmax && !pt.reported {
                    pt.reported = true;
                    self.summary.frame_judged += 1;
                    let (sent, since, waiting) = (pt.sent, pt.since, pt.waiting);
                    self.violation(
                        u,
                        Kind::FrameMissing,
                        format!("frame[{i}]"),
                        format!("a frame taken within {fmax} cycles of the MAC being ready"),
                        format!(
                            "D[{i}] = {d:#04x} since cycle {since}, the peer was last told {sent:#04x}; the MAC was ready in {waiting} cycles since"
                        ),
                    );
                }
            } else {
                if pt.episode && taken && !pt.reported {
                    self.summary.frame_judged += 1;
                }
                pt.episode = false;
                pt.waiting = 0;
                pt.reported = false;
            }
            // Refresh: while the peer is paused, a frame within the configured period.
            let pt = &mut self.ports[i];
            let (Some(last), true) = (pt.last_frame, pt.sent != 0) else {
                continue;
            };
            if !taken && !pt.refresh_due && u >= last + u64::from(self.cfg.refresh) {
                pt.refresh_due = true;
                self.summary.refresh_due += 1;
            }
            if !taken && ready {
                let due = last + u64::from(self.cfg.refresh) + self.env.refresh.max;
                if u >= due && !pt.refresh_reported {
                    pt.refresh_reported = true;
                    self.summary.refresh_judged += 1;
                    let sent = pt.sent;
                    self.violation(
                        u,
                        Kind::Refresh,
                        format!("frame[{i}]"),
                        format!("a refresh by cycle {due}"),
                        format!(
                            "the peer is paused ({sent:#04x}) since the frame of cycle {last}; refresh period {} + envelope {}",
                            self.cfg.refresh, self.env.refresh
                        ),
                    );
                }
            }
        }
    }

    /// The (D, pause time) a frame of port i taken in this cycle u may carry: those of the
    /// cycles c whose count of MAC-ready cycles in [c, u) is inside the frame window (c = u
    /// counts 0), nearest first.
    fn frame_sources(&self, i: usize) -> Vec<(u8, u16)> {
        let w = self.env.frame;
        let mut v = vec![];
        if w.min == 0 {
            v.push((self.d[i], self.cfg.quanta));
        }
        let mut r = 0u64;
        for &(d, q, ready) in self.ports[i].hist.iter().rev() {
            r += u64::from(ready);
            if r > w.max {
                break;
            }
            if r >= w.min && !v.contains(&(d, q)) {
                v.push((d, q));
            }
        }
        v
    }

    fn frame(&mut self, u: u64, f: &Frame) {
        let i = f.port;
        let mut cev = 0u8;
        for (p, q) in f.quanta.iter().enumerate() {
            if q.is_some() {
                cev |= 1 << p;
            }
        }
        let xoff = match self.consistent_xoff(i, f, cev) {
            (Some(x), _) => x,
            (None, quanta_ok) => self.inconsistent_frame(u, f, cev, quanta_ok),
        };
        let moved = self.ports[i].moved || self.d[i] != self.ports[i].sent;
        let pt = &self.ports[i];
        let new = (pt.sent & !cev) | (xoff & cev);
        let refresh = new == pt.sent && !moved;
        if refresh {
            self.judge_refresh(u, i, new);
        }
        self.record_frame(u, i, new);
    }

    /// The frame carries D and the configured pause time of one cycle before it, within the
    /// frame window counted in MAC-ready cycles (`frame_sources`). With a pause time of 0
    /// configured a pause reads as a resume on the wire: its pause bits cannot be told, and
    /// the peer is taken to hold what D said. Returns the pause bits of the first source the
    /// frame agrees with (None when none), and whether some source's pause time matches.
    fn consistent_xoff(&self, i: usize, f: &Frame, cev: u8) -> (Option<u8>, bool) {
        let mut quanta_ok = false;
        for (d, qc) in self.frame_sources(i) {
            let mut xoff = 0u8;
            let mut times = true;
            for (p, q) in f.quanta.iter().enumerate() {
                if let Some(q) = *q {
                    if q != 0 {
                        xoff |= 1 << p;
                        times &= q == qc;
                    }
                }
            }
            quanta_ok |= times;
            if qc == 0 {
                xoff = d & cev;
            }
            if times && d & cev == xoff {
                return (Some(xoff), quanta_ok);
            }
        }
        (None, quanta_ok)
    }

    /// A frame no source explains: reports its wrong pause times (when no source's matches) or
    /// its pause bits (when the times do), and returns the pause bits it carries.
    fn inconsistent_frame(&mut self, u: u64, f: &Frame, cev: u8, quanta_ok: bool) -> u8 {
        let i = f.port;
        let mut xoff = 0u8;
        for (p, q) in f.quanta.iter().enumerate() {
            if let Some(q) = *q {
                if q != 0 {
                    xoff |= 1 << p;
                    if !quanta_ok && q != self.cfg.quanta {
                        let quanta = self.cfg.quanta;
                        self.violation(
                            u,
                            Kind::FrameContent,
                            format!("frame[{i}].p{p}"),
                            format!("quanta {quanta}"),
                            format!("the configured pause time is {quanta}; the frame says {q}"),
                        );
                    }
                }
            }
        }
        if quanta_ok {
            let d = self.d[i];
            self.violation(
                u,
                Kind::FrameContent,
                format!("frame[{i}]"),
                format!("pause bits {:#04x} for classes {cev:#04x}", d & cev),
                format!("the frame pauses {xoff:#04x} of {cev:#04x}; D[{i}] = {d:#04x}"),
            );
        }
        xoff
    }

    /// A frame of port i that repeats what the peer holds (`new`): it must pause something, and
    /// come no sooner than the refresh period (plus the envelope) after the last frame.
    fn judge_refresh(&mut self, u: u64, i: usize, new: u8) {
        let pt = &mut self.ports[i];
        if new == 0 {
            self.violation(
                u,
                Kind::FrameContent,
                format!("frame[{i}]"),
                "no frame".into(),
                "the frame changes nothing and nothing is paused".into(),
            );
        } else if let Some(last) = pt.last_frame {
            if pt.refresh_due {
                self.summary.refresh_judged += 1;
            }
            // From when the last frame could have been taken: a frame held while the MAC
            // was busy is followed by its refresh sooner.
            let early = pt.last_free + u64::from(self.cfg.refresh) + self.env.refresh.min;
            if u < early {
                self.violation(
                    u,
                    Kind::Refresh,
                    format!("frame[{i}]"),
                    format!("no refresh before cycle {early}"),
                    format!(
                        "a refresh of {new:#04x} {} cycles after the frame of cycle {last}; period {} + envelope {}",
                        u - last,
                        self.cfg.refresh,
                        self.env.refresh
                    ),
                );
            }
        }
    }

    /// Port i's state after its frame of cycle u: what the peer holds (`new`), frames in a row,
    /// when the last could have been taken.
    fn record_frame(&mut self, u: u64, i: usize, new: u8) {
        let pt = &mut self.ports[i];
        pt.sent = new;
        let queued = pt.last_frame == Some(u.wrapping_sub(1)) && pt.in_a_row < self.env.frame.max;
        if queued {
            pt.in_a_row += 1;
        } else {
            pt.in_a_row = 1;
            pt.last_free = u - pt.busy_run;
        }
        pt.last_frame = Some(u);
        pt.refresh_due = false;
        pt.refresh_reported = false;
        pt.moved = false;
    }
}

#[cfg(test)]
mod tests;
