//! The corners a v3 golden set covers, counted from the model's registers while the set is
//! written ([`Observer`]): every count is read from the block's state by its RTL names
//! ([`crate::v3::view::View`]) and from the ports of the cycle, not from what the generator meant
//! to do. `docs/golden.md` ("Format 3: the corners") defines each name.

use std::collections::{BTreeMap, VecDeque};

use crate::block::BlockParams;
use crate::v3::lanes::{Answer, Lane};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::view::{Slots, Val, View};
use crate::v3::{class_width, port_width};

use super::Pkt;

/// Threshold table indices ([`crate::v3::view::THRESHOLDS`]).
const ING_MAX: usize = 0;
const ING_XON: usize = 2;
const EG_MAX: usize = 3;
const EG_XOFF: usize = 4;
const EG_XON: usize = 5;
const WARN: usize = 6;

/// A sort engine's state as the observer follows it.
#[derive(Debug, Clone, Default)]
struct Eng {
    /// inputs written to E during the running sort
    sel: u128,
}

/// Entry `k` of a list of slots (`None` past its end).
fn slot_at(slots: &[Option<usize>], k: usize) -> Option<usize> {
    slots.get(k).copied().flatten()
}

/// The places of the registers that tell when an engine's E write meets its row's clear: the
/// egress's row events and registered writes, the engines' write row.
#[derive(Debug, Clone, Default)]
struct EvSlots {
    /// `u_egress.rclr4_q`, `u_egress.eclr4_q`, `u_egress.rclr5_q` (a bit a row)
    rclr4: Option<usize>,
    eclr4: Option<usize>,
    rclr5: Option<usize>,
    /// `u_egress.ew_v_q` (a bit a port); per port `u_egress.ew_l_q[o]`, `u_egress.ew_i_q[o]`
    ew_v: Option<usize>,
    ew_l: Vec<Option<usize>>,
    ew_i: Vec<Option<usize>>,
    /// per engine `u_sort.wl_q[e]`
    wl: Vec<Option<usize>>,
}

impl EvSlots {
    fn new(v: &View, np: usize) -> Self {
        EvSlots {
            rclr4: v.slot("u_egress.rclr4_q"),
            eclr4: v.slot("u_egress.eclr4_q"),
            rclr5: v.slot("u_egress.rclr5_q"),
            ew_v: v.slot("u_egress.ew_v_q"),
            ew_l: (0..np)
                .map(|o| v.slot(&format!("u_egress.ew_l_q[{o}]")))
                .collect(),
            ew_i: (0..np)
                .map(|o| v.slot(&format!("u_egress.ew_i_q[{o}]")))
                .collect(),
            wl: (0..np.div_ceil(2))
                .map(|e| v.slot(&format!("u_sort.wl_q[{e}]")))
                .collect(),
        }
    }
}

/// Counts the corners of a run, cycle by cycle.
pub(crate) struct Observer {
    p: BlockParams,
    prev: View,
    cur: View,
    /// the places of the registers it reads by name (the view's own table, [`View::slots`])
    slots: Slots,
    ev: EvSlots,
    pub corners: BTreeMap<String, u64>,
    eng: Vec<Eng>,
    /// per row: the cycle its generation last advanced, and whether it held a count then
    row_clear: Vec<Option<(u64, bool)>>,
    /// per row: cleared while it held a count since the reset
    cleared_with_counts: Vec<bool>,
    /// per counter word (`row * NP + input`): the generation its row had when the row was last
    /// cleared while the word held a count, until an increment writes the word
    stale_tag: Vec<Option<u64>>,
    /// per counter word: its row's generation has come round to its stale tag (and not moved
    /// on since)
    came_round: Vec<bool>,
    /// the last cycle a lane was taken
    last_take: Option<u64>,
    /// configuration writes of the last cycles: (cycle, address, seen with a take near it)
    writes: VecDeque<(u64, u8, bool)>,
    /// cycles in which only a stray enqueue (naming a port >= NP) was on the enqueue lane: its
    /// `enq_accept` (4 cycles later) must be 0
    stray_due: VecDeque<u64>,
    /// lanes taken too early after a configuration write they depend on: (take, write, address)
    pub early: Vec<(u64, u64, u8)>,
    /// what the model did that the contract forbids (a set with any is refused)
    pub wrong: Vec<String>,
    /// the configuration's lanes are open (from the end of its gap to the next reset): the
    /// queues', counters' and sorts' corners count only then (a reset and the scrub of the RAMs
    /// after it are not traffic)
    armed: bool,
}

fn bump(c: &mut BTreeMap<String, u64>, what: &str) {
    // (no new key, no allocation: most counts are of a corner counted before)
    match c.get_mut(what) {
        Some(n) => *n += 1,
        None => {
            c.insert(what.to_string(), 1);
        }
    }
}

impl Observer {
    pub fn new(top: &Top) -> Self {
        let v = View::of_model(top);
        Observer {
            p: top.p,
            slots: v.slots().clone(),
            ev: EvSlots::new(&v, top.p.np),
            prev: v.clone(),
            cur: v,
            corners: BTreeMap::new(),
            eng: vec![Eng::default(); top.p.np.div_ceil(2)],
            row_clear: vec![None; top.p.np << class_width(top.p.nl as u32)],
            cleared_with_counts: vec![false; top.p.np << class_width(top.p.nl as u32)],
            stale_tag: vec![None; top.p.np * (top.p.np << class_width(top.p.nl as u32))],
            came_round: vec![false; top.p.np * (top.p.np << class_width(top.p.nl as u32))],
            last_take: None,
            writes: VecDeque::new(),
            stray_due: VecDeque::new(),
            early: vec![],
            wrong: vec![],
            armed: false,
        }
    }

    fn count(&mut self, what: &str) {
        bump(&mut self.corners, what);
    }

    /// The configuration is complete and its gap over: count from now.
    pub fn arm(&mut self) {
        self.armed = true;
    }

    /// Whether no sort engine is busy and no request waits (the registers after the last
    /// cycle).
    pub fn sorts_idle(&self) -> bool {
        self.prev
            .engines()
            .iter()
            .all(|e| !e.busy && e.pending.is_empty())
    }

    /// Whether row (o, l) waits for its engine (pending, not being sorted).
    pub fn pending(&self, o: usize, l: usize) -> bool {
        self.prev.engines().iter().any(|e| {
            e.pending.contains(&(o, l as u64)) && !(e.busy && e.port == o && e.class == l as u64)
        })
    }

    /// The window after a configuration write in which a lane may still be judged with the old
    /// value: `8 + NG` cycles (`docs/microarchitecture.md`, "When a write takes effect"), one
    /// more for the lossless mask's gate of D, the mode bit and CUT.
    pub fn window(np: usize) -> u64 {
        8 + np.div_ceil(8) as u64 + 1
    }

    fn lw(&self) -> u32 {
        class_width(self.p.nl as u32)
    }

    /// The register at `slot` of view `v` (`name`: which one, if the block has none).
    fn val(v: &View, slot: Option<usize>, name: impl FnOnce() -> String) -> &Val {
        match slot {
            Some(k) => v.at_slot(k),
            None => panic!("the v3 block has no register {}", name()),
        }
    }

    /// After the block's cycle `t` (inputs `inp`, outputs `out`; `answers`: the lanes' answers
    /// due in it): the model's registers now against those before the cycle.
    pub fn cycle(&mut self, t: u64, inp: &TopIn, out: &TopOut, top: &Top, answers: &[Answer<Pkt>]) {
        self.cur.refresh_model(top);
        self.lanes(t, inp, out);
        if inp.rst {
            self.armed = false;
            self.row_clear.fill(None);
            self.cleared_with_counts.fill(false);
            self.stale_tag.fill(None);
            self.came_round.fill(false);
        }
        if self.armed {
            self.answers(answers);
            self.queues(inp);
            self.counters(t);
            self.sorts();
            self.e_writes();
        }
        std::mem::swap(&mut self.prev, &mut self.cur);
    }

    /// The lanes taken in cycle t, the configuration writes around them, stray ports.
    fn lanes(&mut self, t: u64, inp: &TopIn, out: &TopOut) {
        let np = self.p.np;
        let win = Self::window(np);
        // (priorities of the lanes taken: bit p)
        let mut prios = 0u8;
        for i in 0..np {
            if inp.arr_valid[i] && out.arr_ready[i] {
                prios |= 1 << inp.arr_prio[i];
                if inp.dep_valid && inp.dep_port == i as u64 && inp.dep_prio == inp.arr_prio[i] {
                    self.count("arrival_and_departure_of_one_queue_in_one_slot");
                }
            }
            if inp.deq_valid[i] && out.deq_ready[i] {
                prios |= 1 << inp.deq_prio[i];
                if inp.enq_valid
                    && inp.enq_oport == i as u64
                    && inp.enq_iport < np as u64
                    && inp.enq_prio == inp.deq_prio[i]
                {
                    self.count("enqueue_and_dequeue_of_one_queue_in_one_slot");
                }
            }
        }
        let dep_in = inp.dep_valid && inp.dep_port < np as u64;
        if dep_in && out.arr_ready[inp.dep_port as usize] {
            prios |= 1 << inp.dep_prio;
        }
        let enq_in = inp.enq_valid && inp.enq_oport < np as u64 && inp.enq_iport < np as u64;
        if enq_in && out.deq_ready[inp.enq_oport as usize] {
            prios |= 1 << inp.enq_prio;
        }
        if inp.dep_valid && !dep_in {
            self.count("departures_naming_a_port_np_or_above");
        }
        if inp.enq_valid && !enq_in {
            self.count("enqueues_naming_a_port_np_or_above");
            self.stray_due
                .push_back(t + crate::v3::lanes::ACCEPT_LATENCY);
        }
        if self.stray_due.front() == Some(&t) {
            self.stray_due.pop_front();
            if out.enq_accept {
                self.wrong.push(format!(
                    "cycle {t}: enq_accept for an enqueue naming a port >= NP"
                ));
            } else {
                self.count("enqueues_naming_a_port_np_or_above_not_taken");
            }
        }
        if inp.rst {
            self.writes.clear();
        }
        if inp.cfg_we && !inp.rst {
            let near = self.last_take.is_some_and(|l| t - l <= win);
            self.writes.push_back((t, inp.cfg_addr, near));
        }
        while self.writes.front().is_some_and(|w| t - w.0 > win) {
            let (_, _, near) = self.writes.pop_front().expect("checked");
            if near {
                self.count("configuration_writes_under_traffic");
            }
        }
        if prios != 0 {
            self.last_take = Some(t);
            for w in self.writes.iter_mut() {
                w.2 = true;
                // (a write reaches the lanes of its priority, the mask, mode and CUT every lane)
                let hits = match w.1 {
                    0x00..=0x37 => prios >> (w.1 & 7) & 1 == 1,
                    0x38..=0x3A => true,
                    _ => false,
                };
                if hits && t - w.0 < win {
                    self.early.push((t, w.0, w.1));
                }
            }
        }
        if inp.rst && !inp.cfg_we {
            let busy = (0..np).any(|i| {
                (0..8).any(|p| self.prev.occ(true, i, p) != 0 || self.prev.occ(false, i, p) != 0)
            });
            if busy {
                self.count("resets_with_packets_in_the_queues");
            }
            if (0..np).any(|i| self.prev.i_bits(i) != 0) {
                self.count("resets_with_i_set");
            }
        }
    }

    /// Refusals one unit over MAX (the occupancy the block holds now is the one the refused
    /// lane was compared with: nothing else moves that queue in a directed set).
    fn answers(&mut self, answers: &[Answer<Pkt>]) {
        for a in answers {
            if let Answer::Accept {
                lane,
                accepted: false,
                ..
            } = *a
            {
                let (eg, port, prio, size) = match lane {
                    Lane::Arrive { port, prio, size } => (false, port, prio, size),
                    Lane::Enqueue {
                        oport, prio, size, ..
                    } => (true, oport, prio, size),
                    _ => continue,
                };
                let max = self.cur.threshold(if eg { EG_MAX } else { ING_MAX }, prio);
                if self.cur.occ(eg, port, prio) + u64::from(size) == max + 1 {
                    self.count(if eg {
                        "enqueue_refused_one_unit_over_max"
                    } else {
                        "arrival_refused_one_unit_over_max"
                    });
                }
            }
        }
    }

    /// Occupancies landing exactly on a threshold.
    fn queues(&mut self, inp: &TopIn) {
        if inp.rst {
            return;
        }
        for port in 0..self.p.np {
            for prio in 0..8 {
                for eg in [false, true] {
                    let (a, b) = (self.prev.occ(eg, port, prio), self.cur.occ(eg, port, prio));
                    if a == b {
                        continue;
                    }
                    let th = |k| self.cur.threshold(k, prio);
                    let mut hits = vec![];
                    if eg && b > a {
                        if b == th(EG_MAX) {
                            hits.push("enqueue_fills_egress_max_exactly");
                        }
                        if b == th(WARN) {
                            hits.push("enqueue_lands_on_warn");
                        }
                        if b == th(EG_XOFF) {
                            hits.push("enqueue_lands_on_xoff_e");
                        }
                        if b == th(EG_XOFF) + 1 {
                            hits.push("enqueue_one_unit_over_xoff_e");
                        }
                    } else if eg {
                        if b == th(WARN) {
                            hits.push("dequeue_lands_on_warn");
                        }
                        if b == th(EG_XON) {
                            hits.push("dequeue_lands_on_xon_e");
                        }
                    } else if b > a {
                        if b == th(ING_MAX) {
                            hits.push("arrival_fills_ingress_max_exactly");
                        }
                    } else if b == th(ING_XON) {
                        hits.push("departure_lands_on_xon");
                    }
                    for h in hits {
                        self.count(h);
                    }
                }
            }
        }
    }

    /// Counters: saturation, row clears, generation wraps, the scrub, a take's clear before its
    /// increment.
    fn counters(&mut self, t: u64) {
        let (np, nl, lw, pw) = (self.p.np, self.p.nl, self.lw(), port_width(self.p.np));
        let cmax = (1u64 << self.p.cw) - 1;
        let tw = lw + pw + 1;
        let traffic = self.last_take.is_some_and(|l| t - l <= 4);
        for o in 0..np {
            for l in 0..nl {
                let row = (o << lw) | l;
                let gslot = slot_at(&self.slots.gen_q, row);
                let gname = || format!("u_egress.gen_q[{row}]");
                let (g0, g1) = (
                    Self::val(&self.prev, gslot, gname).field(0, 64),
                    Self::val(&self.cur, gslot, gname).field(0, 64),
                );
                if g0 != g1 {
                    self.count("row_clears");
                    if g1 < g0 {
                        self.count("generation_wraps");
                    }
                    let held = (0..np).any(|i| self.prev.counter(o, l, i) != 0);
                    self.row_clear[row] = Some((t, held));
                    self.cleared_with_counts[row] |= held;
                    // the words that held a count keep g0 as their tag until written; a
                    // generation back at a word's tag would count its stale count again
                    for i in 0..np {
                        let w = row * np + i;
                        if self.prev.counter(o, l, i) != 0 {
                            self.stale_tag[w] = Some(g0);
                        }
                        self.came_round[w] = self.stale_tag[w] == Some(g1);
                        if self.came_round[w] {
                            self.count("stale_tags_come_round");
                        }
                    }
                }
                for i in 0..np {
                    let (c0, c1) = (self.prev.counter(o, l, i), self.cur.counter(o, l, i));
                    if c1 == cmax && c0 != cmax {
                        self.count("counters_saturated");
                    }
                }
            }
            // the increment H writes now: after its own take's clear, it counts 1
            let wh = Self::val(&self.cur, self.slots.wh_q, || "u_egress.wh_q".into());
            if wh.field(o, 1) == 1 {
                let a = Self::val(&self.cur, slot_at(&self.slots.wa_q, o), || {
                    format!("u_egress.wa_q[{o}]")
                })
                .field(0, 64) as usize;
                let wd = Self::val(&self.cur, slot_at(&self.slots.wd_q, o), || {
                    format!("u_egress.wd_q[{o}]")
                })
                .field(0, 64)
                    & cmax;
                let (l, i) = (a >> pw, a & ((1 << pw) - 1));
                if l < nl && i < np {
                    let row = (o << lw) | l;
                    self.stale_tag[row * np + i] = None;
                    self.came_round[row * np + i] = false;
                    if let Some((tc, true)) = self.row_clear[row] {
                        if t - tc <= 4 && wd == 1 {
                            self.count("increment_counts_one_after_its_takes_clear");
                        }
                    }
                    if wd == cmax && self.prev.counter(o, l, i) == cmax {
                        self.count("increments_at_saturation");
                    }
                }
            }
            // the scrub: a stale word rewritten {generation, 0}
            for a in 0..(1usize << (lw + pw)) {
                let slot = slot_at(&self.slots.cnt, o << (lw + pw) | a);
                let name = || format!("u_egress.gen_port[{o}].u_cnt.mem[{a}]");
                let (w0, w1) = (
                    Self::val(&self.prev, slot, name).field(0, 64),
                    Self::val(&self.cur, slot, name).field(0, 64),
                );
                let (l, i) = (a >> pw, a & ((1 << pw) - 1));
                if w0 == w1 || l >= nl || i >= np {
                    continue;
                }
                let row = (o << lw) | l;
                let gen = Self::val(&self.cur, slot_at(&self.slots.gen_q, row), || {
                    format!("u_egress.gen_q[{row}]")
                })
                .field(0, 64);
                let tag0 = w0 >> self.p.cw & ((1 << tw) - 1);
                if tag0 != gen && w1 == gen << self.p.cw && w0 & cmax != 0 {
                    self.count("stale_counts_scrubbed");
                    if traffic {
                        self.count("stale_counts_scrubbed_under_traffic");
                    }
                }
            }
        }
    }

    /// Sort engines: grants, ends, aborts, pending requests dropped, contention, what a sort
    /// selected.
    fn sorts(&mut self) {
        let (np, nl, lw) = (self.p.np, self.p.nl, self.lw());
        let engines0 = self.prev.engines();
        let engines1 = self.cur.engines();
        let mut waiting = 0usize;
        for (e0, e1) in engines0.iter().zip(&engines1) {
            let k = e0.engine;
            let wv =
                Self::val(&self.cur, self.slots.wv_q, || "u_sort.wv_q".into()).field(k, 1) == 1;
            let granted = !e0.busy && e1.busy;
            if granted {
                self.eng[k].sel = 0;
                self.count("sorts_granted");
            }
            if wv {
                let wi = Self::val(&self.cur, slot_at(&self.slots.wi_q, k), || {
                    format!("u_sort.wi_q[{k}]")
                })
                .field(0, 64);
                self.eng[k].sel |= 1u128 << wi;
            }
            // pending requests that fell without their grant
            for &(port, class) in &e0.pending {
                let still = e1.pending.contains(&(port, class));
                let grant = granted && e1.port == port && e1.class == class;
                if !still && !grant {
                    self.count("pending_requests_dropped_by_a_clear");
                }
            }
            if e1.busy && e1.pending.contains(&(e1.port, e1.class)) {
                self.count("requests_for_the_row_being_sorted");
            }
            if e1.busy && !e1.pending.is_empty() {
                self.count("cycles_with_requests_waiting_for_a_busy_engine");
            }
            if e1.pending.len() + usize::from(e1.busy) >= 3 {
                self.count("cycles_with_three_rows_waiting_on_one_engine");
            }
            waiting += e1.pending.len() + usize::from(e1.busy);
            if e0.busy && !e1.busy {
                let end = (e0.phase == "MAX" || e0.phase == "SEL") && e0.step == np as u64 + 5;
                if !end {
                    self.count("sorts_aborted_by_a_clear");
                    continue;
                }
                self.sort_done(e0.port, e0.class as usize, e0.stop_calibrate, k);
            }
        }
        if waiting == np * nl.min(1 << lw) {
            self.count("cycles_with_every_row_waiting");
        }
    }

    /// An engine's E write meeting its row's clear (the registers of the cycle, `prev`, and
    /// after it, `cur`): a write leaving the engine in the clear's cycle, or the cycle after,
    /// not registered beside E; a write registered beside E reaching E in the cycle of its
    /// row's E clear, E's bit 0 after it.
    fn e_writes(&mut self) {
        let (np, lw) = (self.p.np, self.lw());
        let ev = &self.ev;
        let bit = |v: &View, slot: Option<usize>, k: usize, name: &str| {
            Self::val(v, slot, || name.into()).field(k, 1) == 1
        };
        let word = |v: &View, slot: Option<usize>, name: &str| {
            Self::val(v, slot, || name.into()).field(0, 64) as usize
        };
        let mut hits = vec![];
        for e in 0..np.div_ceil(2) {
            if !bit(&self.prev, self.slots.wv_q, e, "u_sort.wv_q") {
                continue;
            }
            let sl = bit(&self.prev, self.slots.sort_flags[1], e, "u_sort.sl_q");
            let o = 2 * e + usize::from(sl);
            if o >= np {
                continue;
            }
            let row = (o << lw) | word(&self.prev, slot_at(&ev.wl, e), "u_sort.wl_q");
            let now = bit(&self.prev, ev.rclr4, row, "u_egress.rclr4_q")
                || bit(&self.prev, ev.eclr4, row, "u_egress.eclr4_q");
            let late = bit(&self.prev, ev.rclr5, row, "u_egress.rclr5_q");
            if bit(&self.cur, ev.ew_v, o, "u_egress.ew_v_q") {
                continue;
            }
            if now {
                hits.push("e_writes_cancelled_by_their_rows_clear");
            } else if late {
                hits.push("e_writes_cancelled_the_cycle_after_their_rows_clear");
            }
        }
        for o in 0..np {
            if !bit(&self.prev, ev.ew_v, o, "u_egress.ew_v_q") {
                continue;
            }
            let l = word(&self.prev, slot_at(&ev.ew_l, o), "u_egress.ew_l_q");
            let row = (o << lw) | l;
            if !bit(&self.prev, ev.eclr4, row, "u_egress.eclr4_q") {
                continue;
            }
            let i = word(&self.prev, slot_at(&ev.ew_i, o), "u_egress.ew_i_q");
            let e = self
                .cur
                .get(&format!("u_egress.e_q[{row}]"))
                .expect("E has a row per port and class");
            if i < np && e.field(i, 1) == 0 {
                hits.push("e_writes_lost_to_their_rows_e_clear");
            }
        }
        for h in hits {
            self.count(h);
        }
    }

    /// A sort of row (o, l) ended: what it selected, against the counters it read.
    fn sort_done(&mut self, o: usize, l: usize, cal: bool, k: usize) {
        let np = self.p.np;
        let c: Vec<u64> = (0..np).map(|i| self.cur.counter(o, l, i)).collect();
        let sel = self.eng[k].sel;
        let nz = c.iter().filter(|&&x| x != 0).count();
        let cmax = (1u64 << self.p.cw) - 1;
        let row = (o << self.lw()) | l;
        if self.cleared_with_counts[row] {
            self.count("sorts_of_a_row_cleared_with_counts");
        }
        if (0..np).any(|i| self.came_round[row * np + i] && c[i] == 0) {
            self.count("sorts_reading_0_where_a_stale_tag_came_round");
        }
        if !cal {
            self.count("stop_max_sorts");
            if sel.count_ones() == 1 && nz >= 2 {
                self.count("stop_max_selects_one_of_several_counted_inputs");
            }
            if sel.count_ones() == 1 {
                let i = sel.trailing_zeros() as usize;
                if i < np && c[i] == *c.iter().max().expect("np > 0") {
                    if c[i + 1..].contains(&c[i]) {
                        self.count("stop_max_ties_to_the_lowest_index");
                    }
                    if c[i] == cmax {
                        self.count("saturated_counters_selected");
                    }
                }
            }
            return;
        }
        self.count("stop_calibrate_sorts");
        let total: u64 = c.iter().sum();
        let taken: u64 = (0..np).filter(|&i| sel >> i & 1 == 1).map(|i| c[i]).sum();
        let cut = self.cur.cfg("cut_q");
        let f = self.p.cut_f;
        if sel != 0 && u128::from(taken) << f == u128::from(cut) * u128::from(total) {
            self.count("stop_calibrate_meets_its_target_exactly");
        }
        let every: u128 = (0..np).filter(|&i| c[i] != 0).map(|i| 1u128 << i).sum();
        if cut == 1 << f && nz >= 2 && sel == every {
            self.count("cut_one_selects_every_counted_input");
        }
        if cut == 1 && nz >= 2 && sel.count_ones() == 1 {
            self.count("smallest_cut_selects_one_input");
        }
        if (0..np).any(|i| sel >> i & 1 == 1 && c[i] == cmax) {
            self.count("saturated_counters_selected");
        }
    }
}
