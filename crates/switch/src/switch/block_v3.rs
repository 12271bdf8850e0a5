//! The v3 block behind the switch (`capfc run --block v3`, `docs/microarchitecture.md`): its
//! model, its Verilated RTL or both in lockstep, and the environment's side of its lanes
//! ([`crate::v3::lanes`]).
//!
//! v2 answers an arrival and an enqueue in the cycle it sees them; v3 takes a lane when its
//! port's slot is ready and answers [`crate::v3::lanes::ACCEPT_LATENCY`] cycles after the take. So the switch offers
//! each event to its lane and acts on the answer when it comes:
//! - an arrival waits at its lane, then for its accept, before it enters the ingress FIFO (or is
//!   dropped); its bytes are counted as inside the switch meanwhile (`BlockV3::arrivals_bytes`);
//! - the packet at the end of the pipeline is offered once and waits there for its answer (the
//!   packets behind it wait behind it); a refusal in `PFC_wstop` offers it again the next cycle;
//! - a departure from ingress and a dequeue at egress are offered and need no answer (the block's
//!   occupancies follow a few cycles later);
//! - the PFC request (`pfc_valid`, `pfc_ready`, the frame's fields) is v2's, unchanged.
//!
//! Everything else of the switch is the same for both blocks. Its state between two cycles
//! ([`V3State`]: the registers, the events waiting at the lanes or for their answer) is what a
//! snapshot of the switch saves; its inputs, recorded (`BlockV3::new_recorded`), are a golden
//! set from the switch (`golden_v3::SourceV3::Switch`). In a network and in `capfc run` the model skips idle cycles and
//! catches up with them by a closed-form advance (`IdleSkip`).

use crate::block::{BlockConfig, BlockParams, Outputs};
use crate::switch::{DutError, DutKind, Packet, RestoreError, TraceError};
use crate::v3::lanes::{Answer, Lane, Lanes};
use crate::v3::top::{Top, TopIn, TopOut, IDLE_DRAIN};

/// What an event offered to a lane carries back with its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tag {
    /// an arrival: the packet, which enters ingress if accepted
    Arrival(Packet),
    /// the enqueue of the packet at the end of the pipeline
    Enqueue,
    /// a departure or a dequeue (no answer)
    Removal,
}

/// The block's sides: the model, the Verilated RTL, or both compared every cycle.
enum Sides {
    Model(Box<Top>),
    #[cfg(feature = "rtl")]
    Rtl {
        rtl: Box<crate::dut_v3::RtlTopV3>,
        pack: crate::cosim_v3::InputPacker,
        inw: Vec<u32>,
        outw: Vec<u32>,
    },
    #[cfg(feature = "rtl")]
    Both {
        lock: Box<crate::cosim_v3::LockstepV3>,
        pack: crate::cosim_v3::InputPacker,
        inw: Vec<u32>,
    },
}

impl Sides {
    /// The model's side (`--dut model` or `both`).
    fn model(&self) -> Option<&Top> {
        match self {
            Sides::Model(m) => Some(m),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => Some(&lock.model),
            #[cfg(feature = "rtl")]
            Sides::Rtl { .. } => None,
        }
    }

    /// [`Sides::model`], to change.
    fn model_mut(&mut self) -> Option<&mut Top> {
        match self {
            Sides::Model(m) => Some(m),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => Some(&mut lock.model),
            #[cfg(feature = "rtl")]
            Sides::Rtl { .. } => None,
        }
    }
}

/// The v3 block's registers in a snapshot.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum V3Regs {
    /// the model's (`--dut model` and `--dut both`)
    Model(Box<Top>),
    /// the RTL's every register and RAM word, in its layout's state words (`--dut rtl`)
    Rtl(Vec<u32>),
}

/// The v3 block and its lanes between two cycles: what a snapshot of a switch keeps of them.
/// (The answers of a cycle are acted on in that cycle, and the block's inputs are driven anew
/// every cycle: neither is state.)
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct V3State {
    pub regs: V3Regs,
    lanes: Lanes<Tag>,
    cycle: u64,
    enq_pending: bool,
    arrivals: u64,
}

impl V3State {
    /// The block's cycles when it was taken.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Events waiting at a lane or for their answer then.
    pub fn pending(&self) -> usize {
        self.lanes.pending()
    }
}

/// Idle cycles not clocked, with the model alone, in a network's switch or under `capfc run`
/// ([`BlockV3::allow_idle_skip`]). v3's registers never stand still (the slot counters, the
/// counters' scrub and the thresholds' refresh move every cycle), but under idle inputs, once
/// nothing is in flight ([`Top::idle_ready`]), everything but the scrub and the PFC timers
/// repeats every 8 cycles. So: with the lanes empty and no PFC frame pending (the switch's
/// outputs then stay as they are, D and the pause frames' fields too), [`IDLE_DRAIN`] cycles
/// after the block became idle-ready keep its state (the anchor); 8 cycles later, if it equals
/// the anchor but the scrub and the timers ([`Top::periodic_since`]), the cycles until the next
/// event need not be clocked: an input, or the cycle a held pause's refresh falls due
/// ([`Top::refresh_due`], [`BlockV3::wake`]: the switch wakes for it). At that event the block is
/// brought to the state the skipped cycles would have given by [`Top::jump_idle`] (the scrub's
/// rounds and the timers by arithmetic, the remainder of the period, 0 to 7 cycles, clocked),
/// then clocked.
/// Two more kinds of cycle are idle to a periodic block and skipped too: the cycles a PFC
/// frame waits for its busy line (pending, its `pfc_ready` low: nothing of it moves but its
/// timer, which the arithmetic covers; its line's readiness ends the skipping), and the cycles an
/// offered event waits for its port's slot (a lane's fields are read only in its port's slot,
/// where it is taken: [`BlockV3::lanes_wait`]).
/// Exact: `tests/v3_idle.rs` compares the jump with clocking every cycle, `crates/cli/tests/network.rs` and
/// `crates/cli/tests/switch_v3.rs` whole runs.
#[derive(Default)]
struct IdleSkip {
    /// the state after the clock edge of the anchor's cycle
    anchor: Option<Box<Top>>,
    /// periodic since the clock edge of this switch cycle, at this block cycle
    periodic: Option<(u64, u64)>,
    /// while periodic: the switch cycle in which a held pause's refresh falls due (`u64::MAX`
    /// with D 0 at every port)
    wake: u64,
    /// while periodic: the ports whose PFC frame waits for its line (a bit a port); their
    /// `pfc_ready` rising ends the skipping
    waiting: u128,
    /// idle cycles clocked in a row with the block idle-ready
    run: u64,
    /// found periodic ([`Top::periodic_since`]) since the last configuration write or reset,
    /// with no fault in force: from then on, idle-ready for [`IDLE_DRAIN`] cycles is periodic
    /// (the thresholds' copies, the one part of the state that settles later, have settled, and
    /// nothing else but the scrub and the timers moves under idle inputs once idle-ready)
    verified: bool,
    /// cycles not clocked, and cycles clocked to catch up with them (`BlockV3::skip_counts`)
    skipped: u64,
    caught_up: u64,
    /// times the periodic state was taken without the anchor's comparison and then checked by
    /// it on a copy ([`BlockV3::audit_idle_skip`])
    audited: u64,
    /// while periodic, once asked for: the first switch cycle in which an event offered is taken
    /// ([`BlockV3::wake`]); forgotten when an event is offered or the periodic state ends
    lane_wake: std::cell::Cell<Option<u64>>,
}

/// The v3 block and its lanes.
pub(crate) struct BlockV3 {
    sides: Sides,
    lanes: Lanes<Tag>,
    tin: TopIn,
    tout: TopOut,
    /// the answers of the last cycle (accepts due in it, lanes taken in it)
    pub answers: Vec<Answer<Tag>>,
    /// the block's cycles so far
    cycle: u64,
    /// the enqueue of the pipeline's last packet is offered or taken, not yet answered
    pub enq_pending: bool,
    /// bytes of the arrivals offered and not yet answered
    arrivals: u64,
    /// idle cycles skipped (the model alone, `allow_idle_skip`), and the switch's cycle now
    skip: Option<IdleSkip>,
    pub now: u64,
    /// Check every periodic state taken without the anchor's comparison by that comparison, on
    /// a copy clocked 8 idle cycles further (tests: a wrong shortcut is then a mismatch)
    pub audit_idle_skip: bool,
    /// the model's waveform, while one is written ([`BlockV3::open_trace`]), and the first error
    /// writing it
    wave: Option<Box<crate::wave::TopWave<std::io::BufWriter<std::fs::File>>>>,
    wave_err: Option<std::io::Error>,
    /// every cycle's inputs since the reset, while recorded ([`BlockV3::new_recorded`]: a golden
    /// set from the switch, `golden_v3`)
    pub recorded: Option<Vec<TopIn>>,
}

impl BlockV3 {
    /// The v3 block of `p` behind a switch, on `kind`'s side(s), reset and configured with
    /// `cfg` (a reset cycle, then one cycle a register write, as the v3 golden sets do).
    pub fn new(kind: DutKind, p: &BlockParams, cfg: &BlockConfig) -> Result<BlockV3, DutError> {
        Self::build(kind, p, cfg, false)
    }

    /// [`BlockV3::new`], recording every cycle's inputs from the reset on (`recorded`).
    pub fn new_recorded(
        kind: DutKind,
        p: &BlockParams,
        cfg: &BlockConfig,
    ) -> Result<BlockV3, DutError> {
        Self::build(kind, p, cfg, true)
    }

    fn build(
        kind: DutKind,
        p: &BlockParams,
        cfg: &BlockConfig,
        record: bool,
    ) -> Result<BlockV3, DutError> {
        let sides = match kind {
            DutKind::Model => Sides::Model(Box::new(Top::new(*p))),
            #[cfg(feature = "rtl")]
            DutKind::Rtl => {
                let rtl = crate::dut_v3::RtlTopV3::new(p)?;
                let (inw, outw) = (
                    vec![0; rtl.layout.input_words],
                    vec![0; rtl.layout.output_words],
                );
                Sides::Rtl {
                    rtl: Box::new(rtl),
                    pack: Default::default(),
                    inw,
                    outw,
                }
            }
            #[cfg(feature = "rtl")]
            DutKind::Both => {
                let lock = crate::cosim_v3::LockstepV3::new(p, 4)?;
                let inw = vec![0; lock.rtl.layout.input_words];
                Sides::Both {
                    lock: Box::new(lock),
                    pack: Default::default(),
                    inw,
                }
            }
            #[cfg(not(feature = "rtl"))]
            _ => return Err(DutError::NoRtl),
        };
        let mut b = BlockV3 {
            sides,
            lanes: Lanes::new(p.np),
            tin: TopIn::idle(p.np),
            tout: TopOut::default(),
            answers: vec![],
            cycle: 0,
            enq_pending: false,
            arrivals: 0,
            skip: None,
            now: 0,
            audit_idle_skip: false,
            wave: None,
            wave_err: None,
            recorded: record.then(Vec::new),
        };
        b.tin.rst = true;
        b.clock()?;
        b.tin.rst = false;
        for (a, d) in BlockConfig::register_writes(cfg) {
            (b.tin.cfg_we, b.tin.cfg_addr, b.tin.cfg_wdata) = (true, a, d);
            b.clock()?;
        }
        (b.tin.cfg_we, b.tin.cfg_addr, b.tin.cfg_wdata) = (false, 0, 0);
        Ok(b)
    }

    /// Skip idle cycles from now on ([`IdleSkip`]), and clock a unit's group only while a lane is
    /// in it ([`Top::set_sparse`]): with the model alone (the RTL, and the lockstep, see every
    /// cycle), in a network's switch or under `capfc run`, whose snapshots, views and waveforms
    /// nobody asks for (they would show the state of the last cycle clocked, and idle groups'
    /// data registers as their last lane left them).
    pub fn allow_idle_skip(&mut self) {
        if let (None, Sides::Model(m)) = (&self.skip, &mut self.sides) {
            self.skip = Some(IdleSkip::default());
            // (the same runs: the groups no lane is in are not clocked either)
            m.set_sparse(true);
        }
    }

    /// With the model and the RTL in lockstep (`--dut both`): run the model's half of each cycle
    /// on a second thread (`threads` 2) or on this one (1); see
    /// [`crate::cosim_v3::LockstepV3::set_threads`]. False, and nothing changed, on one side alone.
    pub fn set_lockstep_threads(&mut self, threads: usize) -> bool {
        match &mut self.sides {
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => {
                lock.set_threads(threads);
                true
            }
            _ => {
                let _ = threads;
                false
            }
        }
    }

    /// The state is periodic under idle inputs and nothing waits at the lanes: while the inputs
    /// stay idle, a cycle changes nothing the switch sees.
    pub fn periodic(&self) -> bool {
        self.skip.as_ref().is_some_and(|k| k.periodic.is_some())
    }

    /// While [`BlockV3::periodic`]: the first switch cycle the block must be clocked in even under
    /// idle inputs, the one a held pause's refresh falls due in (a PFC frame pending again) or,
    /// if earlier, the first after this one in which an event offered is taken (its port's
    /// slot up); `u64::MAX` otherwise, or with D 0 at every port and no event offered.
    pub fn wake(&self) -> u64 {
        let Some((k, (t0, _))) = self.skip.as_ref().and_then(|k| k.periodic.map(|p| (k, p))) else {
            return u64::MAX;
        };
        // (and the first cycle after the last clocked or skipped in which an event offered is
        // taken: its port's slot up. The model holds the state at the start of switch cycle
        // t0 + 1; nothing changes that cycle until the block is clocked or offered an event)
        let lanes = k.lane_wake.get().unwrap_or_else(|| {
            let mut wake = u64::MAX;
            if let Some(m) = Sides::model(&self.sides) {
                let k0 = self.now.saturating_sub(t0);
                self.lanes.fronts(|ingress, o| {
                    if let Some(k) = m.slot_up_from(ingress, o, k0) {
                        wake = wake.min(t0 + 1 + k);
                    }
                });
            }
            k.lane_wake.set(Some(wake));
            wake
        });
        k.wake.min(lanes)
    }

    /// While [`BlockV3::periodic`] with events offered: none of them is taken in switch cycle
    /// `self.now` (their ports' slots are not up then, and nothing waits for its answer), so the
    /// cycle changes nothing but what the periodic state's arithmetic covers. A lane's fields
    /// are read only in its port's slot (the slot's lane registers load from that port alone, an
    /// enqueue's and a departure's only when taken), and an offered lane is taken in the first
    /// slot of its port: the cycles before it are idle cycles to the block.
    fn lanes_wait(&self) -> bool {
        let Some((t0, _)) = self.skip.as_ref().and_then(|k| k.periodic) else {
            return false;
        };
        let Some(m) = Sides::model(&self.sides) else {
            return false;
        };
        // (the model holds the state at the start of switch cycle t0 + 1)
        let k = self.now - t0 - 1;
        m.fault.is_none()
            && self
                .lanes
                .take_none(|ingress, o| m.slot_up_after(ingress, o, k))
    }

    /// The state is periodic and no event taken waits for its answer: up to [`BlockV3::wake`]
    /// (a held pause's refresh, or the slot of an event offered and waiting for it), while no
    /// other event is offered, a cycle changes nothing the switch sees, nor the lanes.
    pub fn still(&self) -> bool {
        self.periodic() && self.lanes.in_flight() == 0
    }

    /// (cycles not clocked, cycles clocked to catch up with them) so far.
    pub fn skip_counts(&self) -> (u64, u64) {
        self.skip
            .as_ref()
            .map_or((0, 0), |k| (k.skipped, k.caught_up))
    }

    /// Periodic states taken without the anchor's comparison and checked by it
    /// ([`BlockV3::audit_idle_skip`]).
    pub fn idle_audits(&self) -> u64 {
        self.skip.as_ref().map_or(0, |k| k.audited)
    }

    /// Bring a periodic block to switch cycle `self.now`'s start: the idle cycles since the edge
    /// it was found periodic at, by [`Top::jump_idle_before_edge`] (the cycle that called it is
    /// clocked next).
    fn catch_up(&mut self) -> Result<(), DutError> {
        let Some(k) = self.skip.as_mut() else {
            return Ok(());
        };
        let Some((t, cycle)) = k.periodic.take() else {
            return Ok(());
        };
        k.lane_wake.set(None);
        k.anchor = None;
        k.run = 0;
        let gap = self.now - 1 - t;
        // (the inputs as the periodic cycles had them: `self.tin` is still the last cycle's, its
        // valid lanes events that wait for their slots, taken in none of these cycles (no
        // slot of theirs up in any: `lanes_wait` in the cycles the switch looked at, `wake` for
        // those it slept through), the other lanes invalid with their
        // fields as they were, which registers load whether valid or not; events offered since
        // are driven from the cycle that ends the skipping, after these. `pfc_ready` is read
        // only with a frame due, and none is while skipping)
        // (a single pattern without the `rtl` feature)
        #[allow(clippy::infallible_destructuring_match)]
        let m = match &mut self.sides {
            Sides::Model(m) => m,
            #[cfg(feature = "rtl")]
            _ => unreachable!("only the model alone skips"),
        };
        // (the skipped cycles' lines were not ready at the ports whose frame waited; the others'
        // readiness is not read, no frame being pending there)
        let waiting = std::mem::take(&mut k.waiting);
        for (i, r) in self.tin.pfc_ready.iter_mut().enumerate() {
            *r &= waiting >> i & 1 == 0;
        }
        // (the cycle that ends the skipping is clocked right after: none of these cycles'
        // outputs is read)
        let clocked = m.jump_idle_before_edge(&self.tin, gap, &mut self.tout);
        k.skipped += gap - clocked;
        k.caught_up += clocked;
        self.cycle = cycle + gap;
        Ok(())
    }

    /// After a cycle clocked: look for the periodic state (see [`IdleSkip`]). `quiet`: no event
    /// was taken in it and none waits for its answer. Events offered and not taken (their port's
    /// slot not up) do not end the search: to the block they are idle inputs until their slot
    /// comes ([`BlockV3::lanes_wait`]), and the periodic state is taken with them waiting.
    fn watch_idle(&mut self, quiet: bool, out: &Outputs) -> Result<(), DutError> {
        let Some(k) = self.skip.as_mut() else {
            return Ok(());
        };
        // (only the model alone skips: `allow_idle_skip`)
        let Some(m) = Sides::model(&self.sides) else {
            return Ok(());
        };
        if self.tin.cfg_we || self.tin.rst || m.fault.is_some() {
            k.verified = false;
        }
        // (a PFC frame may wait for its line: the outputs of the cycles skipped are those of
        // this one, its pending frames those the registers give for the next; the cheap tests
        // first)
        let pending = if quiet { m.pfc_pending() } else { 0 };
        if !quiet || out.pfc_valid != pending || !m.idle_ready_under(&self.tin) {
            k.anchor = None;
            k.run = 0;
            return Ok(());
        }
        k.run += 1;
        if k.verified && (k.run == IDLE_DRAIN || (k.run < IDLE_DRAIN && m.settled_under(&self.tin)))
        {
            if self.audit_idle_skip {
                let (mut a, mut later) = (Box::new(m.clone()), m.clone());
                let mut o = TopOut::default();
                // (the 8 cycles on with no event offered: one offered now would be taken in
                // them, its slot coming up)
                let mut idle_in = self.tin.clone();
                idle_in.arr_valid.fill(false);
                idle_in.deq_valid.fill(false);
                (idle_in.dep_valid, idle_in.enq_valid) = (false, false);
                for _ in 0..8 {
                    later.cycle_into(&idle_in, &mut o);
                }
                if !later.periodic_since(&mut a) {
                    return Err(DutError::IdleSkip { cycle: self.cycle });
                }
                k.audited += 1;
            }
            k.periodic = Some((self.now, self.cycle));
            k.lane_wake.set(None);
            k.wake = self
                .now
                .saturating_add(1)
                .saturating_add(m.refresh_due(&self.tin));
            k.waiting = pending;
            return Ok(());
        }
        if k.run == IDLE_DRAIN + 8 {
            let m = self
                .sides
                .model_mut()
                .expect("the model's side, found above");
            if let Some(a) = k.anchor.as_mut() {
                if m.periodic_since(a) {
                    k.verified = true;
                    k.periodic = Some((self.now, self.cycle));
                    k.lane_wake.set(None);
                    // (the cycles after this one's edge before the refresh's)
                    k.wake = self
                        .now
                        .saturating_add(1)
                        .saturating_add(m.refresh_due(&self.tin));
                    k.waiting = pending;
                    k.anchor = None;
                    return Ok(());
                }
            }
            k.run = IDLE_DRAIN;
            k.anchor = None;
        }
        if k.run == IDLE_DRAIN {
            let m = Sides::model(&self.sides).expect("the model's side, found above");
            k.anchor = Some(Box::new(m.clone()));
        }
        Ok(())
    }

    /// The model's side (`--dut model` or `both`), to put a deliberate bug in (tests).
    pub fn model_mut(&mut self) -> Option<&mut Top> {
        self.sides.model_mut()
    }

    /// The block's cycles so far (the reset and the configuration writes included).
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// The state between two cycles (see [`V3State`]).
    pub fn state(&self) -> V3State {
        let regs = match &self.sides {
            Sides::Model(m) => V3Regs::Model(m.clone()),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => V3Regs::Model(lock.model.clone()),
            #[cfg(feature = "rtl")]
            Sides::Rtl { rtl, .. } => {
                let mut w = vec![0; rtl.layout.state_words];
                rtl.read_state(&mut w);
                V3Regs::Rtl(w)
            }
        };
        V3State {
            regs,
            lanes: self.lanes.clone(),
            cycle: self.cycle,
            enq_pending: self.enq_pending,
            arrivals: self.arrivals,
        }
    }

    /// Go to `st` (from [`BlockV3::state`], maybe of a file): checked first, nothing changed if
    /// it is refused. The model's registers load into any side (the RTL's packed from them); the
    /// RTL's state words only into the RTL alone.
    pub fn set_state(&mut self, st: &V3State, p: &BlockParams) -> Result<(), RestoreError> {
        st.lanes.check(p.np).map_err(RestoreError::Block)?;
        if let V3Regs::Model(t) = &st.regs {
            if t.p != *p {
                return Err(RestoreError::Params {
                    v3: true,
                    snapshot: Box::new(t.p),
                    this: Box::new(*p),
                });
            }
            t.check_restored().map_err(RestoreError::Block)?;
        }
        let taken_by_rtl = RestoreError::RtlRegisters { only: false };
        match (&mut self.sides, &st.regs) {
            (Sides::Model(m), V3Regs::Model(t)) => **m = (**t).clone(),
            (Sides::Model(_), V3Regs::Rtl(_)) => return Err(taken_by_rtl),
            #[cfg(feature = "rtl")]
            (Sides::Both { lock, .. }, V3Regs::Model(t)) => lock
                .restore(t, st.cycle)
                .map_err(|e| RestoreError::Dut(e.into()))?,
            #[cfg(feature = "rtl")]
            (Sides::Both { .. }, V3Regs::Rtl(_)) => return Err(taken_by_rtl),
            #[cfg(feature = "rtl")]
            (Sides::Rtl { rtl, .. }, regs) => {
                let w = match regs {
                    V3Regs::Rtl(w) => w.clone(),
                    V3Regs::Model(t) => crate::cosim_v3::state_words(rtl, t)
                        .map_err(|e| RestoreError::Dut(e.into()))?,
                };
                if w.len() != rtl.layout.state_words {
                    return Err(RestoreError::StateWords {
                        v3: true,
                        got: w.len(),
                        want: rtl.layout.state_words,
                    });
                }
                rtl.write_state(&w);
                rtl.set_cycle(st.cycle);
            }
        }
        self.lanes = st.lanes.clone();
        self.cycle = st.cycle;
        self.enq_pending = st.enq_pending;
        self.arrivals = st.arrivals;
        self.answers.clear();
        if let Some(k) = self.skip.as_mut() {
            // (the state found periodic, and the anchor, are gone)
            (k.periodic, k.anchor, k.run) = (None, None, 0);
            k.lane_wake.set(None);
        }
        Ok(())
    }

    /// The block's registers by name, from whichever side holds them (the model's with
    /// `--dut both`: the lockstep keeps the RTL's equal to them).
    pub fn view(&self) -> crate::v3::view::View {
        use crate::v3::view::View;
        match &self.sides {
            Sides::Model(m) => View::of_model(m),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => View::of_model(&lock.model),
            #[cfg(feature = "rtl")]
            Sides::Rtl { rtl, .. } => {
                let mut w = vec![0; rtl.layout.state_words];
                rtl.read_state(&mut w);
                rtl.layout.view(rtl.params, &w)
            }
        }
    }

    /// [`BlockV3::view`] into `v`: its values refreshed in place when it is this block's view
    /// already (a refresh every cycle formats no names), else made anew.
    pub fn view_into(&self, v: &mut Option<crate::v3::view::View>) {
        let Some(view) = v.as_mut().filter(|x| x.p == self.params()) else {
            *v = Some(self.view());
            return;
        };
        match &self.sides {
            Sides::Model(m) => view.refresh_model(m),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => view.refresh_model(&lock.model),
            #[cfg(feature = "rtl")]
            Sides::Rtl { rtl, .. } => {
                let mut w = vec![0; rtl.layout.state_words];
                rtl.read_state(&mut w);
                rtl.layout.refresh_view(view, &w);
            }
        }
    }

    /// The block's parameters.
    fn params(&self) -> BlockParams {
        match &self.sides {
            Sides::Model(m) => m.p,
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => lock.model.p,
            #[cfg(feature = "rtl")]
            Sides::Rtl { rtl, .. } => rtl.params,
        }
    }

    /// One occupancy register (units), ingress or egress queue `q` = port × 8 + priority: the
    /// model's directly, the RTL's through its state words.
    pub fn occupancy(&self, egress: bool, q: usize) -> u64 {
        let (port, prio) = (q / 8, q % 8);
        let of_model = |m: &Top| {
            if egress {
                m.u_egress.grp[port / 8].occ[prio][port % 8]
            } else {
                m.u_ingress.grp[port / 8].occ[prio][port % 8]
            }
        };
        match &self.sides {
            Sides::Model(m) => of_model(m),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => of_model(&lock.model),
            #[cfg(feature = "rtl")]
            Sides::Rtl { rtl, .. } => {
                // (the one RAM word, found by its name in the layout: no view of every register)
                let unit = if egress { "u_egress" } else { "u_ingress" };
                let name = format!("{unit}.gen_grp[{}].gen_prio[{prio}].u_occ.mem", port / 8);
                let var = rtl
                    .layout
                    .state
                    .iter()
                    .find(|v| v.name == name)
                    .expect("every group has an occupancy RAM a priority");
                let mut w = vec![0; rtl.layout.state_words];
                rtl.read_state(&mut w);
                let at = var.offset + (port % 8) * var.value_words();
                let lo = u64::from(w[at]);
                let hi = if var.value_words() > 1 {
                    u64::from(w[at + 1])
                } else {
                    0
                };
                (lo | hi << 32) & crate::v3::thr_copies::mask(var.width) as u64
            }
        }
    }

    /// Write the block's waveform from now on, its times from the block's cycle (cycle c at 2c
    /// and 2c + 1): the RTL's (Verilator's trace of every signal) at `path` with `--dut rtl`; the
    /// model's (`wave::TopWave`, the RTL's names) at `path` with `--dut model`; both, at
    /// `STEM_model.vcd` and `STEM_rtl.vcd`, with `--dut both`. The files written, the model's
    /// first. A model that skips idle cycles (`allow_idle_skip`) has no waveform: its cycles are
    /// not all clocked.
    pub fn open_trace(&mut self, path: &str) -> Result<Vec<String>, TraceError> {
        self.close_trace()?;
        #[cfg(feature = "rtl")]
        let stem = path.strip_suffix(".vcd").unwrap_or(path);
        let model_path = match &self.sides {
            Sides::Model(_) => Some(path.to_string()),
            #[cfg(feature = "rtl")]
            Sides::Both { .. } => Some(format!("{stem}_model.vcd")),
            #[cfg(feature = "rtl")]
            Sides::Rtl { .. } => None,
        };
        let mut files = vec![];
        if let Some(mp) = model_path {
            if self.skip.is_some() {
                return Err(TraceError::SkippedCycles);
            }
            let m = self.sides.model().expect("a model side");
            let create = |source| TraceError::Create {
                path: mp.clone(),
                source,
            };
            let f = std::fs::File::create(&mp).map_err(create)?;
            let ports = crate::wave::top_ports(&m.p, &self.tin, &self.tout);
            let regs = crate::wave::top_regs(m);
            let w = crate::wave::TopWave::new(std::io::BufWriter::new(f), &ports, &regs)
                .map_err(create)?;
            self.wave = Some(Box::new(w));
            files.push(mp);
        }
        #[cfg(feature = "rtl")]
        {
            let cycle = self.cycle;
            let rtl = match &mut self.sides {
                Sides::Model(_) => None,
                Sides::Rtl { rtl, .. } => Some((&mut **rtl, path.to_string())),
                Sides::Both { lock, .. } => Some((&mut lock.rtl, format!("{stem}_rtl.vcd"))),
            };
            if let Some((rtl, rp)) = rtl {
                rtl.set_cycle(cycle);
                rtl.open_trace(&rp).map_err(DutError::from)?;
                files.push(rp);
            }
        }
        Ok(files)
    }

    /// Finish the block's waveforms, if any are being written.
    pub fn close_trace(&mut self) -> Result<(), TraceError> {
        match &mut self.sides {
            Sides::Model(_) => {}
            #[cfg(feature = "rtl")]
            Sides::Rtl { rtl, .. } => rtl.close_trace(),
            #[cfg(feature = "rtl")]
            Sides::Both { lock, .. } => lock.rtl.close_trace(),
        }
        if let Some(mut w) = self.wave.take() {
            w.flush().map_err(TraceError::Write)?;
        }
        if let Some(e) = self.wave_err.take() {
            return Err(TraceError::Write(e));
        }
        Ok(())
    }

    /// A waveform is being written.
    pub fn tracing(&self) -> bool {
        self.wave.is_some()
    }

    /// Offer `lane` behind the events already waiting for it.
    pub fn offer(&mut self, lane: Lane, tag: Tag) -> Result<(), capfc_block::error::LaneError> {
        if let (Lane::Arrive { size, .. }, Tag::Arrival(_)) = (lane, tag) {
            self.arrivals += u64::from(size);
        }
        if let Lane::Enqueue { .. } = lane {
            debug_assert!(!self.enq_pending, "one enqueue at a time");
            self.enq_pending = true;
        }
        if let Some(k) = &self.skip {
            k.lane_wake.set(None);
        }
        self.lanes.offer(lane, tag)
    }

    /// Bytes of the arrivals offered and not yet answered (inside the switch, for its byte
    /// conservation).
    pub fn arrivals_bytes(&self) -> u64 {
        self.arrivals
    }

    /// One cycle: the lanes into the block's inputs (with `pfc_ready`, bit i for port i), the
    /// block's cycle, then this cycle's answers into [`BlockV3::answers`] and the PFC request's
    /// outputs into `out` (v2's, which the switch's MACs read). `Err`: the RTL and the model
    /// differ (`--dut both`), or the RTL could not be driven.
    pub fn tick(&mut self, pfc_ready: u128, out: &mut Outputs) -> Result<(), DutError> {
        let idle = self.lanes.pending() == 0;
        if self.periodic() {
            let waits = self.skip.as_ref().map_or(0, |k| k.waiting);
            if self.now < self.wake() && pfc_ready & waits == 0 && (idle || self.lanes_wait()) {
                // (a cycle of the periodic state: the outputs stay those of the last clocked)
                self.answers.clear();
                return Ok(());
            }
            self.catch_up()?;
        }
        // (a constant shift a port: a u128 shifted by a variable costs several instructions)
        let mut m = pfc_ready;
        for r in self.tin.pfc_ready.iter_mut() {
            *r = m & 1 == 1;
            m >>= 1;
        }
        self.lanes.drive(&mut self.tin);
        self.clock()?;
        self.answers.clear();
        let t = self.cycle - 1;
        self.lanes.settle(t, false, &self.tout, &mut self.answers);
        for a in &self.answers {
            match *a {
                Answer::Accept {
                    lane: Lane::Arrive { size, .. },
                    ..
                } => self.arrivals -= u64::from(size),
                Answer::Accept {
                    lane: Lane::Enqueue { .. },
                    ..
                } => self.enq_pending = false,
                _ => {}
            }
        }
        let o = &self.tout;
        out.pfc_valid = o
            .pfc_valid
            .iter()
            .rev()
            .fold(0, |m, &v| m << 1 | u128::from(v));
        out.pfc_cev.clone_from(&o.pfc_cev);
        out.pfc_xoff.clone_from(&o.pfc_xoff);
        out.pfc_quanta = o.pfc_quanta;
        out.d_state.clone_from(&o.d_state);
        // (the accepts of v2's same-cycle answer have no meaning here: the switch reads the
        // answers instead)
        out.arr_accept = 0;
        out.enq_accept = false;
        // (quiet: nothing taken in this cycle nor waiting for its answer; events offered at
        // ports whose slot was not up are idle inputs to the block. An accept in this cycle
        // does not end quiet: its event has left the lanes, and the switch acts on it now)
        let quiet = self.lanes.in_flight() == 0
            && !self
                .answers
                .iter()
                .any(|a| matches!(a, Answer::Taken { .. }));
        self.watch_idle(quiet, out)
    }

    /// The block's cycle on `self.tin`, its outputs into `self.tout` (and into the model's
    /// waveform, if one is written).
    fn clock(&mut self) -> Result<(), DutError> {
        let before = match (&self.wave, self.sides.model()) {
            (Some(_), Some(m)) => Some(crate::wave::top_regs(m)),
            _ => None,
        };
        if let Some(r) = self.recorded.as_mut() {
            r.push(self.tin.clone());
        }
        self.clock_sides()?;
        if let (Some(before), Some(m), Some(w)) = (before, self.sides.model(), self.wave.as_mut()) {
            let ports = crate::wave::top_ports(&m.p, &self.tin, &self.tout);
            let after = crate::wave::top_regs(m);
            if let Err(e) = w.cycle(self.cycle - 1, &ports, &before, &after) {
                self.wave = None;
                self.wave_err.get_or_insert(e);
            }
        }
        Ok(())
    }

    fn clock_sides(&mut self) -> Result<(), DutError> {
        match &mut self.sides {
            Sides::Model(m) => m.cycle_into(&self.tin, &mut self.tout),
            #[cfg(feature = "rtl")]
            Sides::Rtl {
                rtl,
                pack,
                inw,
                outw,
            } => {
                pack.pack(rtl, &self.tin, inw)?;
                rtl.step(inw, outw);
                crate::cosim_v3::unpack_outputs(rtl, outw, &mut self.tout)?;
            }
            #[cfg(feature = "rtl")]
            Sides::Both { lock, pack, inw } => {
                pack.pack(&lock.rtl, &self.tin, inw)?;
                lock.cycle_in(&self.tin, inw)?;
                if let Some((c, n, rtl, model)) = lock.report.mismatches.first() {
                    return Err(DutError::MismatchV3 {
                        cycle: *c,
                        total: lock.report.total_mismatches,
                        name: n.clone(),
                        rtl: rtl.clone(),
                        model: model.clone(),
                    });
                }
                self.tout.clone_from(lock.model_out());
            }
        }
        self.cycle += 1;
        Ok(())
    }
}
