//! The directed corners of the v3 sets: v2's catalogue (`crate::stimulus::DIRECTED`) driven
//! through the v3 block's lanes, and the v3 block's own corners. Each case offers its events
//! on the lanes ([`Dir`]), waits for the block's answers where a case needs to know them, and
//! names the corners it must show ([`required`]); the observer counts them from the model's
//! registers ([`super::observe::Observer`]).

use std::collections::VecDeque;

use crate::block::{BlockConfig, BlockParams, Mode, PrioThresholds, NPRIO};
use crate::v3::lanes::{Answer, Lane};
use crate::v3::{class_width, port_width};

use super::{config_gap, Pkt, Run, RunError};

/// The directed cases of the v3 sets: v2's, then the v3 block's own.
pub const DIRECTED_V3: &[&str] = &[
    "thresholds_exact",
    "counter_saturation",
    "argmax_tie",
    "clear_at_warn",
    "clear_during_increment",
    "pending_cleared",
    "cut_min_step",
    "cut_one",
    "cut_one_held",
    "all_queues_request",
    "xon_during_sort",
    "refresh_expiry",
    "reset_mid_traffic",
    "two_lanes_one_slot",
    "config_under_traffic",
    "generation_wrap",
    "scrub_under_load",
    "sort_aborted_by_clear",
    "stale_tag_comes_round",
    "e_write_meets_clear",
    "e_write_after_clear",
    "e_write_before_e_clear",
];

/// The priority the cases count on (lossless, counted class 0), and a second one (class 1).
const PR: usize = 3;
const PR2: usize = 5;

/// The corners directed case `case` is named after, under `mode`.
pub fn required(case: &str, mode: Mode) -> Vec<&'static str> {
    let cal = mode == Mode::StopCal;
    let sorted = if cal {
        "stop_calibrate_sorts"
    } else {
        "stop_max_sorts"
    };
    match case {
        "thresholds_exact" => vec![
            "enqueue_lands_on_warn",
            "enqueue_lands_on_xoff_e",
            "enqueue_one_unit_over_xoff_e",
            "enqueue_fills_egress_max_exactly",
            "enqueue_refused_one_unit_over_max",
            "dequeue_lands_on_warn",
            "dequeue_lands_on_xon_e",
            "arrival_fills_ingress_max_exactly",
            "arrival_refused_one_unit_over_max",
            "departure_lands_on_xon",
        ],
        "counter_saturation" => vec![
            "counters_saturated",
            "increments_at_saturation",
            "saturated_counters_selected",
        ],
        "argmax_tie" if cal => vec!["stop_calibrate_meets_its_target_exactly"],
        "argmax_tie" => vec!["stop_max_ties_to_the_lowest_index"],
        "clear_at_warn" => vec![
            "dequeue_lands_on_warn",
            "sorts_of_a_row_cleared_with_counts",
        ],
        "clear_during_increment" => vec![
            "enqueue_and_dequeue_of_one_queue_in_one_slot",
            "increment_counts_one_after_its_takes_clear",
            sorted,
        ],
        "pending_cleared" => vec!["pending_requests_dropped_by_a_clear"],
        "cut_min_step" if cal => vec!["smallest_cut_selects_one_input"],
        "cut_one" | "cut_one_held" if cal => vec!["cut_one_selects_every_counted_input"],
        "cut_min_step" | "cut_one" | "cut_one_held" => {
            vec!["stop_max_selects_one_of_several_counted_inputs"]
        }
        "all_queues_request" => vec![
            "cycles_with_every_row_waiting",
            "cycles_with_three_rows_waiting_on_one_engine",
        ],
        "xon_during_sort" => vec!["sorts_aborted_by_a_clear", "dequeue_lands_below_xon_e"],
        "refresh_expiry" => vec!["refresh_frames"],
        "reset_mid_traffic" => vec![
            "resets_with_packets_in_the_queues",
            "resets_with_i_set",
            sorted,
        ],
        "two_lanes_one_slot" => vec![
            "arrival_and_departure_of_one_queue_in_one_slot",
            "enqueue_and_dequeue_of_one_queue_in_one_slot",
            "arrivals_fitting_only_after_their_slots_departure",
            "enqueues_fitting_only_after_their_slots_dequeue",
        ],
        "config_under_traffic" => vec![
            "configuration_writes_under_traffic",
            "arrivals_refused_by_a_threshold_written_under_traffic",
        ],
        "generation_wrap" => vec![
            "generation_wraps",
            "stale_counts_scrubbed",
            "sorts_of_a_row_cleared_with_counts",
        ],
        "scrub_under_load" => vec!["stale_counts_scrubbed_under_traffic"],
        "sort_aborted_by_clear" => vec!["sorts_aborted_by_a_clear", "dequeue_lands_on_warn"],
        "stale_tag_comes_round" => vec![
            "stale_tags_come_round",
            "sorts_reading_0_where_a_stale_tag_came_round",
        ],
        "e_write_meets_clear" => vec!["e_writes_cancelled_by_their_rows_clear"],
        "e_write_after_clear" => vec!["e_writes_cancelled_the_cycle_after_their_rows_clear"],
        "e_write_before_e_clear" => vec!["e_writes_lost_to_their_rows_e_clear"],
        _ => vec![],
    }
}

/// The configuration of the directed cases: round thresholds in bytes, lossless priority 3.
fn directed_config(p: &BlockParams, mode: Mode) -> BlockConfig {
    let t = PrioThresholds {
        ing_max: 24_000,
        ing_xoff: 16_000,
        ing_xon: 8_000,
        eg_max: 24_000,
        eg_xoff: 12_000,
        eg_xon: 6_000,
        eg_warn: 8_000,
    };
    BlockConfig {
        prio: [t; NPRIO],
        lossless: 1 << PR,
        mode,
        cut_fixed: crate::block::cfg::cut_from_fraction(0.8, p.cut_f),
        quanta: 0x0400,
        refresh: 500,
    }
}

/// The longest a sort may take from its crossing to its E write under the contract's envelope
/// (`envelope_of_v3`): a set that must show a sort did not happen waits this long.
fn longest_sort(p: &BlockParams, mode: Mode) -> u64 {
    let env = crate::check::block::envelope_of_v3(p);
    if mode == Mode::StopCal {
        env.stop_cal.max
    } else {
        env.stop_max.max
    }
}

/// A directed run: the lanes offered by the case, the packets the block accepted per queue.
struct Dir {
    r: Run,
    np: usize,
    /// accepted packets' sizes per egress queue `o*8 + prio` and ingress queue `i*8 + prio`
    eg: Vec<VecDeque<u32>>,
    ing: Vec<VecDeque<u32>>,
    offered: u64,
    limit: u64,
}

type Res = Result<(), RunError>;

impl Dir {
    fn new(p: &BlockParams, cfg: &BlockConfig) -> Self {
        let mut r = Run::new(*p);
        r.reset_and_configure(cfg);
        Dir {
            r,
            np: p.np,
            eg: vec![VecDeque::new(); p.np * 8],
            ing: vec![VecDeque::new(); p.np * 8],
            offered: 0,
            limit: 40_000,
        }
    }

    fn t(&self) -> u64 {
        self.r.w.t
    }

    /// One cycle, the answers into the queues.
    fn step(&mut self) -> Res {
        if self.t() >= self.limit {
            return Err(RunError::Timeout {
                what: "the case",
                limit: self.limit,
            });
        }
        self.r.cycle(true);
        for a in &self.r.tr.answers {
            if let Answer::Accept {
                lane,
                accepted: true,
                ..
            } = *a
            {
                match lane {
                    Lane::Arrive { port, prio, size } => self.ing[port * 8 + prio].push_back(size),
                    Lane::Enqueue {
                        oport, prio, size, ..
                    } => self.eg[oport * 8 + prio].push_back(size),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn idle(&mut self, n: u64) -> Res {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    /// Until every lane offered is taken and answered.
    fn sync(&mut self) -> Res {
        while self.r.tr.lanes.pending() > 0 {
            self.step()?;
        }
        Ok(())
    }

    /// Until every lane offered is taken (answers may still be due).
    fn taken(&mut self) -> Res {
        while self.r.takes < self.offered {
            self.step()?;
        }
        Ok(())
    }

    /// Until no sort runs or waits, and a few cycles for E and D.
    fn sorts(&mut self) -> Res {
        self.sync()?;
        self.idle(4)?;
        while !self.r.ob.sorts_idle() {
            self.step()?;
        }
        self.idle(8)
    }

    fn occ(&self, o: usize, pr: usize) -> u32 {
        self.eg[o * 8 + pr].iter().sum()
    }

    fn ing_occ(&self, i: usize, pr: usize) -> u32 {
        self.ing[i * 8 + pr].iter().sum()
    }

    fn offer(&mut self, lane: Lane, pkt: Pkt) {
        self.r
            .tr
            .lanes
            .offer(lane, pkt)
            .expect("a port of the block");
        self.offered += 1;
    }

    fn enq_(&mut self, o: usize, pr: usize, i: usize, size: u32) {
        let lane = Lane::Enqueue {
            oport: o,
            prio: pr,
            iport: i,
            size,
        };
        self.offer(
            lane,
            Pkt {
                src: i,
                dst: o,
                prio: pr,
                size,
            },
        );
    }

    fn enq(&mut self, o: usize, pr: usize, i: usize, size: u32) -> Res {
        self.enq_(o, pr, i, size);
        self.sync()
    }

    /// The dequeue of the head packet of egress queue (o, pr), offered.
    fn deq_(&mut self, o: usize, pr: usize) -> Res {
        let size = self.eg[o * 8 + pr].pop_front().ok_or(RunError::Empty {
            what: "dequeue",
            port: o,
            prio: pr,
        })?;
        self.r.tr.deq_out[o] += 1;
        let pkt = Pkt {
            src: o,
            dst: o,
            prio: pr,
            size,
        };
        self.offer(
            Lane::Dequeue {
                oport: o,
                prio: pr,
                size,
            },
            pkt,
        );
        Ok(())
    }

    fn deq(&mut self, o: usize, pr: usize) -> Res {
        self.deq_(o, pr)?;
        self.sync()
    }

    fn arr_(&mut self, i: usize, pr: usize, size: u32) {
        self.r.tr.arrive(Pkt {
            src: i,
            dst: i,
            prio: pr,
            size,
        });
        self.offered += 1;
    }

    fn arr(&mut self, i: usize, pr: usize, size: u32) -> Res {
        self.arr_(i, pr, size);
        self.sync()
    }

    /// The departure of the head packet of ingress queue (i, pr), offered (no enqueue: the
    /// cases that use it look at the ingress only).
    fn dep_(&mut self, i: usize, pr: usize) -> Res {
        let size = self.ing[i * 8 + pr].pop_front().ok_or(RunError::Empty {
            what: "departure",
            port: i,
            prio: pr,
        })?;
        self.r.tr.dep_out += 1;
        let pkt = Pkt {
            src: i,
            dst: i,
            prio: pr,
            size,
        };
        self.offer(
            Lane::Depart {
                port: i,
                prio: pr,
                size,
            },
            pkt,
        );
        Ok(())
    }

    fn dep(&mut self, i: usize, pr: usize) -> Res {
        self.dep_(i, pr)?;
        self.sync()
    }

    /// Enqueues from input i until egress queue (o, pr) holds exactly `target` bytes.
    fn fill_to(&mut self, o: usize, pr: usize, i: usize, target: u32) -> Res {
        while self.occ(o, pr) < target {
            let before = self.occ(o, pr);
            self.enq(o, pr, i, (target - before).min(1500))?;
            if self.occ(o, pr) == before {
                return Err(RunError::Refused {
                    port: o,
                    prio: pr,
                    target,
                });
            }
        }
        Ok(())
    }

    fn drain_to(&mut self, o: usize, pr: usize, target: u32) -> Res {
        while self.occ(o, pr) > target {
            self.deq(o, pr)?;
        }
        Ok(())
    }

    fn count(&mut self, what: &str) {
        self.r.tr.count(what);
    }

    /// A configuration write in the next cycle, with the lanes as they are.
    fn write(&mut self, a: u8, d: u32) -> Res {
        let i = &mut self.r.w.inp;
        (i.cfg_we, i.cfg_addr, i.cfg_wdata) = (true, a, d);
        self.step()
    }

    /// A reset and the configuration again: the block forgets its queues, so do we.
    fn reset(&mut self, cfg: &BlockConfig) {
        self.r.reset_and_configure(cfg);
        self.eg.iter_mut().for_each(VecDeque::clear);
        self.ing.iter_mut().for_each(VecDeque::clear);
        self.offered = self.r.takes;
    }

    fn finish(mut self) -> Result<Run, RunError> {
        self.sorts()?;
        self.idle(2 * self.np as u64 + 16)?;
        Ok(self.r)
    }
}

/// Run directed case `case`; with `nudge`, its stimulus moved by one step where its corner
/// depends on it (the corner must then not happen).
///
/// (Long: one arm a directed case, each its stimulus and the corner's nudge.)
pub(super) fn run(p: &BlockParams, case: &str, mode: Mode, nudge: bool) -> Result<Run, RunError> {
    if !DIRECTED_V3.contains(&case) {
        return Err(RunError::NoCase {
            case: case.to_string(),
            known: DIRECTED_V3.join(", "),
        });
    }
    let np = p.np;
    let mut cfg = directed_config(p, mode);
    let t = cfg.prio[PR];
    match case {
        "thresholds_exact" => {
            // (nudged: every threshold written one unit higher than the stimulus aims at)
            if nudge {
                for th in cfg.prio.iter_mut() {
                    th.ing_max += 1;
                    th.ing_xon += 1;
                    th.eg_max += 1;
                    th.eg_xoff += 1;
                    th.eg_xon += 1;
                    th.eg_warn += 1;
                }
            }
            let mut d = Dir::new(p, &cfg);
            // Egress: exactly WARN, exactly XOFF_e, one unit above, exactly MAX, one more
            // (refused).
            d.fill_to(0, PR, 1, t.eg_warn)?;
            d.fill_to(0, PR, 2, t.eg_xoff)?;
            d.sorts()?;
            d.enq(0, PR, 3, 1)?;
            d.sorts()?;
            d.fill_to(0, PR, 1, t.eg_max)?;
            d.enq(0, PR, 2, 1)?;
            d.drain_to(0, PR, 0)?;
            // Drain exactly onto WARN, then XON_e: a packet of XOFF+1-WARN, one of WARN-XON,
            // then the rest up to XOFF + 1 (the sort sets E).
            d.enq(0, PR, 1, t.eg_xoff + 1 - t.eg_warn)?;
            d.enq(0, PR, 2, t.eg_warn - t.eg_xon)?;
            d.fill_to(0, PR, 1, t.eg_xoff + 1)?;
            d.sorts()?;
            d.deq(0, PR)?;
            d.deq(0, PR)?;
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            // Ingress: exactly MAX in 1,000-byte packets, one more refused, down to exactly XON.
            while d.ing_occ(1, PR) < t.ing_max {
                let n = (t.ing_max - d.ing_occ(1, PR)).min(1000);
                d.arr(1, PR, n)?;
            }
            d.arr(1, PR, 1)?;
            while d.ing_occ(1, PR) > t.ing_xon {
                d.dep(1, PR)?;
            }
            d.finish()
        }
        "counter_saturation" => {
            // Packets of 1,000 bytes up to WARN + 2,000, then each enqueue followed by a
            // dequeue of the head: the queue stays above WARN, so every enqueue counts. Input 1
            // counts 10, input 2 past saturation (2^CW + 3; nudged: 2^CW - 2, never
            // saturated); then input 3 crosses XOFF_e and the sort reads the row: input 2,
            // saturated, is the largest (wrapped, it would be the smallest).
            let mut d = Dir::new(p, &cfg);
            let s = 1000;
            while d.occ(0, PR) <= t.eg_warn + s {
                d.enq(0, PR, 1, s)?;
            }
            for _ in 0..7 {
                d.enq(0, PR, 1, s)?;
                d.deq(0, PR)?;
            }
            let cmax = (1u64 << p.cw) - 1;
            let n = if nudge { cmax - 1 } else { cmax + 4 };
            for _ in 0..n {
                d.enq(0, PR, 2, s)?;
                d.deq(0, PR)?;
            }
            d.fill_to(0, PR, 3, t.eg_xoff + 1)?;
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "argmax_tie" => {
            // An exact tie when the sort reads the row: WARN = XOFF_e - 2, the queue at
            // WARN - 1, then one byte from input 1, input 2, input 1, input 2: both count 2, the
            // last crosses XOFF_e. Stop-Max takes input 1 (the lowest index). CUT = 0.5:
            // Stop-Calibrate meets the target exactly with input 1 (S * 2^F == CUT * T) and
            // stops there. (Nudged: the last byte from input 1: 3 against 1, no tie.)
            for th in cfg.prio.iter_mut() {
                th.eg_warn = t.eg_xoff - 2;
            }
            cfg.cut_fixed = 1 << (p.cut_f - 1);
            let mut d = Dir::new(p, &cfg);
            d.fill_to(0, PR, 3, t.eg_xoff - 3)?;
            d.enq(0, PR, 1, 1)?;
            d.enq(0, PR, 2, 1)?;
            d.enq(0, PR, 1, 1)?;
            d.enq(0, PR, if nudge { 1 } else { 2 }, 1)?;
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "cut_min_step" | "cut_one" | "cut_one_held" => {
            cfg.cut_fixed = if case == "cut_min_step" {
                1
            } else {
                1 << p.cut_f
            };
            let mut d = Dir::new(p, &cfg);
            // Counters 3 (input 1), 2 (input 2) and 4 (the last input, which crosses): CUT = 1
            // takes every counted input, the smallest CUT only the largest; Stop-Max one.
            // (Nudged: inputs 1 and 2 never count: one counted input.)
            d.fill_to(0, PR, 1, t.eg_warn - 2)?;
            if !nudge {
                for _ in 0..3 {
                    d.enq(0, PR, 2, 1)?;
                    d.enq(0, PR, 1, 1)?;
                }
            }
            d.fill_to(0, PR, np - 1, t.eg_xoff)?;
            d.enq(0, PR, np - 1, 1)?;
            d.sorts()?;
            if case == "cut_one_held" {
                // The queue stays above WARN for as long as the envelope's Stop-Calibrate
                // maximum (every row of the engine waiting): a checker can then tell a
                // selection that never came from one a clear made empty.
                let s_cal = sort_cycles(p);
                let hold = 12 + (2 * p.nl as u64 + 1) * (s_cal + 1);
                let mut paused = 0;
                for _ in 0..hold {
                    d.step()?;
                    if (0..np).any(|i| d.r.w.out.d_state[i] >> PR & 1 == 1) {
                        paused += 1;
                    }
                }
                d.r.tr
                    .corners
                    .insert("cycles_paused_by_e_while_held".into(), paused);
            }
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "clear_at_warn" => {
            // Input 1 builds its counter and a sort takes it; a dequeue lands exactly on WARN
            // (the row cleared, E kept: WARN is above XON_e); then input 2 alone crosses XOFF_e
            // again, and the sort sees only input 2's counts. (Nudged: the dequeue lands one
            // byte above WARN.)
            let mut d = Dir::new(p, &cfg);
            let head = t.eg_xoff + 1 - t.eg_warn - u32::from(nudge);
            d.enq(0, PR, 1, head)?;
            d.fill_to(0, PR, 1, t.eg_xoff + 1)?;
            d.sorts()?;
            d.deq(0, PR)?;
            d.idle(4)?;
            let chunk = (t.eg_xoff - t.eg_warn) / 3;
            for _ in 0..4 {
                d.enq(0, PR, 2, chunk)?;
            }
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "clear_during_increment" => {
            // Input 1 counts above WARN; then in one slot of port 0 its big head packet leaves
            // (the queue to WARN or below: the row cleared) and input 2 enqueues as much (the
            // queue back above WARN: an increment): the clear comes first, the increment counts
            // 1 in the cleared row. Then input 2 crosses XOFF_e and the sort sees input 2 only.
            // (Nudged: the dequeue and the enqueue in two slots.)
            let mut d = Dir::new(p, &cfg);
            let head = 3000;
            d.enq(0, PR, 1, head)?;
            d.fill_to(0, PR, 1, t.eg_warn)?;
            for _ in 0..3 {
                d.enq(0, PR, 1, 1)?;
            }
            d.deq_(0, PR)?;
            if nudge {
                d.sync()?;
            }
            d.enq_(0, PR, 2, head);
            d.sync()?;
            let chunk = (t.eg_xoff + 1 - d.occ(0, PR)).div_ceil(5);
            for _ in 0..5 {
                d.enq(0, PR, 2, chunk)?;
            }
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "pending_cleared" => {
            // Two counted classes (3 and 5) on ports 0 and 1, one engine: the four rows cross
            // XOFF_e (port 1's first), so that port 0's class 5 waits behind the others; while
            // it waits, its big head packet leaves (to XON_e or below): the clear drops the
            // request. In the same slot an enqueue from input 3, the only input that row would
            // pause, takes the queue back to WARN, under XOFF_e: it counts 1 in the cleared row,
            // so that a request the clear left pending would sort the row and pause input 3
            // (visible in D). (Nudged: the head leaves after every sort.)
            cfg.lossless = 1 << PR | 1 << PR2;
            let mut d = Dir::new(p, &cfg);
            let big = t.eg_xoff - t.eg_xon + 2;
            for o in [0, 1] {
                let i = if o == 0 { 3 } else { 2 };
                d.fill_to(o, PR, 1, t.eg_xoff)?;
                d.enq(o, PR2, i, big)?;
                d.fill_to(o, PR2, i, t.eg_xoff)?;
            }
            // (the crossing packets from inputs other than 3, which no other row's sort may
            // select: Stop-Calibrate takes the small counts too)
            for (o, pr) in [(1, PR), (1, PR2), (0, PR), (0, PR2)] {
                d.enq_(o, pr, if o == 1 { 0 } else { 2 }, 1);
            }
            d.taken()?;
            if nudge {
                d.sorts()?;
            } else {
                while !d.r.ob.pending(0, 1) {
                    d.step()?;
                }
            }
            d.deq_(0, PR2)?;
            // (the queue after the dequeue, which the model of the queues has already taken)
            let back = t.eg_warn - d.occ(0, PR2);
            d.enq_(0, PR2, 3, back);
            d.sync()?;
            d.sorts()?;
            // (as long as the envelope lets a sort of the row take: a request left pending
            // would have paused input 3 by then)
            d.idle(longest_sort(p, mode))?;
            for (o, pr) in [(0, PR), (0, PR2), (1, PR), (1, PR2)] {
                d.drain_to(o, pr, 0)?;
            }
            d.finish()
        }
        "all_queues_request" => {
            // Two counted classes (3 and 5) on every port: every queue at XOFF_e, then every
            // queue crosses it, three times over, with no wait: every row asks while the
            // others are pending or sorted. (Nudged: ports 0 and 1 only.)
            cfg.lossless = 1 << PR | 1 << PR2;
            let mut d = Dir::new(p, &cfg);
            for o in 0..np {
                d.fill_to(o, PR, (o + 1) % np, t.eg_xoff)?;
                d.fill_to(o, PR2, (o + 3) % np, t.eg_xoff)?;
            }
            let ports = if nudge { 2 } else { np };
            // (class by class: the enqueue lane is one FIFO, and a port takes one a slot)
            for _ in 0..3 {
                for pr in [PR, PR2] {
                    for o in 0..ports {
                        d.enq_(o, pr, (o + 2) % np, 1);
                    }
                }
            }
            d.sorts()?;
            for o in 0..np {
                d.drain_to(o, PR, 0)?;
                d.drain_to(o, PR2, 0)?;
            }
            d.finish()
        }
        "xon_during_sort" | "sort_aborted_by_clear" => {
            // The queue at XOFF_e, its head packet big enough that when it leaves the queue
            // falls below XON_e (xon_during_sort: E cleared too) or exactly onto WARN
            // (sort_aborted_by_clear: the counters only, E kept); one byte crosses XOFF_e, and
            // the head leaves in port 0's next slot, while the sort runs: the clear aborts it.
            // (Nudged: the head leaves after the sort.)
            let mut d = Dir::new(p, &cfg);
            let head = if case == "xon_during_sort" {
                t.eg_xoff - t.eg_xon + 2
            } else {
                t.eg_xoff + 1 - t.eg_warn
            };
            d.enq(0, PR, 1, head)?;
            d.fill_to(0, PR, 2, t.eg_xoff)?;
            d.enq_(0, PR, 1, 1);
            d.taken()?;
            if nudge {
                d.sorts()?;
            }
            d.deq(0, PR)?;
            if d.occ(0, PR) < t.eg_xon {
                d.count("dequeue_lands_below_xon_e");
            }
            d.sorts()?;
            // (then as long as the contract lets the aborted sort take to write E, before the
            // drain's dequeues clear E: a block that does not abort shows D rising in this time,
            // at the ports)
            d.idle(longest_sort(p, mode))?;
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "refresh_expiry" => {
            // I of input 2 set for 100 cycles with a refresh time of 20: the PFC generator sends
            // the XOFF again every 21 cycles, then the XON. (Nudged: a refresh time longer than
            // the run.)
            cfg.refresh = if nudge { 60_000 } else { 20 };
            let mut d = Dir::new(p, &cfg);
            while d.ing_occ(2, PR) <= t.ing_xoff {
                d.arr(2, PR, 1000)?;
            }
            d.idle(100)?;
            while d.ing_occ(2, PR) > t.ing_xon {
                d.dep(2, PR)?;
            }
            d.idle(30)?;
            d.finish()
        }
        "reset_mid_traffic" => {
            // A reset while the egress queue of port 0 is above XOFF_e, its sort asked for, input
            // 1 above XOFF_i (I set) and an arrival in flight; then the configuration and the
            // same again, to the sort. (Nudged: the queues drained before the reset.)
            let mut d = Dir::new(p, &cfg);
            d.fill_to(0, PR, 1, t.eg_xoff)?;
            while d.ing_occ(1, PR) <= t.ing_xoff {
                d.arr(1, PR, 1000)?;
            }
            d.enq_(0, PR, 2, 1);
            d.arr_(1, PR, 1000);
            d.taken()?;
            d.step()?;
            if nudge {
                d.sync()?;
                d.drain_to(0, PR, 0)?;
                while d.ing_occ(1, PR) > 0 {
                    d.dep(1, PR)?;
                }
                d.idle(8)?;
            }
            d.reset(&cfg);
            d.fill_to(0, PR, 1, t.eg_xoff)?;
            d.enq(0, PR, 2, 1)?;
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            d.finish()
        }
        "two_lanes_one_slot" => {
            // Both lanes of one port in one slot on one queue: the removal first, so that an
            // arrival (enqueue) that fits only after its slot's departure (dequeue) is taken.
            // Ingress: input 1 at MAX - 500, a 1,000-byte departure and a 1,500-byte arrival:
            // MAX exactly. Egress: port 0 at MAX - 500, its 1,500-byte head dequeued and 2,000
            // bytes enqueued. (Nudged: the arrival and the enqueue a slot before the removal:
            // refused.)
            let mut d = Dir::new(p, &cfg);
            while d.ing_occ(1, PR) < t.ing_max - 500 {
                let n = (t.ing_max - 500 - d.ing_occ(1, PR)).min(1000);
                d.arr(1, PR, n)?;
            }
            if nudge {
                d.arr(1, PR, 1500)?;
            }
            d.dep_(1, PR)?;
            if !nudge {
                d.arr_(1, PR, 1500);
            }
            d.sync()?;
            if d.ing_occ(1, PR) == t.ing_max {
                d.count("arrivals_fitting_only_after_their_slots_departure");
            }
            d.fill_to(0, PR, 1, t.eg_max - 500)?;
            if nudge {
                d.enq(0, PR, 2, 2000)?;
            }
            d.deq_(0, PR)?;
            if !nudge {
                d.enq_(0, PR, 2, 2000);
            }
            d.sync()?;
            if d.occ(0, PR) == t.eg_max {
                d.count("enqueues_fitting_only_after_their_slots_dequeue");
            }
            d.sorts()?;
            d.drain_to(0, PR, 0)?;
            while d.ing_occ(1, PR) > 0 {
                d.dep(1, PR)?;
            }
            d.finish()
        }
        "config_under_traffic" => config_under_traffic(p, cfg, nudge),
        "generation_wrap" => {
            // Input 1 counts 10 in row (0, class 0); the row is cleared, and cleared again
            // 2^TW times (a small packet enqueued below WARN and dequeued), so that its
            // generation comes round to the tag of input 1's stale word: the scrub has
            // rewritten it meanwhile. Then input 2 alone crosses XOFF_e: the sort sees input 2
            // only (the stale 10 would win). (Nudged: half as many clears, no wrap.)
            // (one clear, then one per 100-byte packet: 1 + 2^TW, or 1 + 2^(TW-1) nudged)
            let tw = class_width(p.nl as u32) + port_width(np) + 1;
            let clears = if nudge { 1 << (tw - 1) } else { 1u32 << tw };
            stale_word_then_sort(Dir::new(p, &cfg), &cfg, false, 1 + clears)
        }
        "scrub_under_load" => {
            // Input 1 counts 10 in row (0, class 0), one dequeue clears the row (its words
            // stale), and port 0's class 1 takes an enqueue and a dequeue in every slot above
            // WARN (an increment each) while the scrub rewrites the stale words, four cycles
            // after each slot. (Nudged: the traffic starts after the scrub has visited every
            // word.)
            cfg.lossless = 1 << PR | 1 << PR2;
            let mut d = Dir::new(p, &cfg);
            d.enq(0, PR, 3, t.eg_warn - 1)?;
            for _ in 0..10 {
                d.enq(0, PR, 1, 1)?;
            }
            d.fill_to(0, PR2, 2, t.eg_warn + 2000)?;
            d.deq(0, PR)?;
            if nudge {
                let na = 1u64 << (class_width(p.nl as u32) + port_width(np));
                d.idle(8 * na + 16)?;
            }
            for k in 0..24 {
                d.enq_(0, PR2, 2 + k % 2, 1500);
                d.deq_(0, PR2)?;
                d.taken()?;
            }
            d.sync()?;
            d.finish()
        }
        "stale_tag_comes_round" => {
            // Input 1 counts 10 in row (0, class 0) under generation g; the row is then
            // cleared exactly 2^TW times (a small packet enqueued below WARN and dequeued)
            // without a write of input 1's word, so that its generation comes round to g, the
            // tag of that word: the scrub has rewritten it {generation, 0} meanwhile. Then input
            // 2 alone crosses XOFF_e: the sort reads input 1's word as 0 and selects input 2 (a
            // block that does not scrub counts the stale 10 again and pauses input 1). (Nudged:
            // one clear fewer, the generation one short of the tag.)
            let tw = class_width(p.nl as u32) + port_width(np) + 1;
            let clears = (1u32 << tw) - u32::from(nudge);
            stale_word_then_sort(Dir::new(p, &cfg), &cfg, true, clears)
        }
        "e_write_meets_clear" | "e_write_after_clear" | "e_write_before_e_clear" => {
            cfg.lossless = 1 << PR | 1 << PR2;
            let m = meet(case, mode).expect("an E-write case");
            e_write_meets_clear(Dir::new(p, &cfg), &cfg, &m, nudge)
        }
        _ => Err(RunError::NotV3(case.to_string())),
    }
}

/// Input 1 counts 10 in row (0, class 0) over input 3's packet below WARN (one packet, or
/// `fill`ed to it); the row is cleared `clears` times (the dequeue of that packet, then a
/// 100-byte packet of input 3 enqueued and dequeued for each further clear) without a write of
/// input 1's word; then input 3 fills to below WARN again and input 2 alone crosses XOFF_e, the
/// sort runs and the queue drains. The stale-word cases, `generation_wrap` and
/// `stale_tag_comes_round`, differ in the first packet and the number of clears.
fn stale_word_then_sort(
    mut d: Dir,
    cfg: &BlockConfig,
    fill: bool,
    clears: u32,
) -> Result<Run, RunError> {
    let t = cfg.prio[PR];
    if fill {
        d.fill_to(0, PR, 3, t.eg_warn - 1)?;
    } else {
        d.enq(0, PR, 3, t.eg_warn - 1)?;
    }
    for _ in 0..10 {
        d.enq(0, PR, 1, 1)?;
    }
    d.deq(0, PR)?;
    for _ in 1..clears {
        d.enq(0, PR, 3, 100)?;
        d.deq(0, PR)?;
    }
    d.fill_to(0, PR, 3, t.eg_warn - 1)?;
    let chunk = (t.eg_xoff + 2 - d.occ(0, PR)).div_ceil(3);
    for _ in 0..3 {
        d.enq(0, PR, 2, chunk)?;
    }
    d.sorts()?;
    d.drain_to(0, PR, 0)?;
    d.finish()
}

/// When the sort of row (port 0, class 0) and its row's clear meet: the rows of engine 0 whose
/// sorts delay that row's grant, and when its head packet leaves.
#[derive(Debug, Clone, Copy)]
struct Meet<'a> {
    /// rows (port, priority) crossing XOFF_e before row (0, class 0), in this order
    before: &'a [(usize, usize)],
    /// the inputs row (0, class 0) counts, the first crossing XOFF_e (Stop-Calibrate writes E
    /// for each in its own cycle, in index order)
    inputs: &'a [usize],
    /// cycles from row (0, class 0)'s crossing taken to its head's dequeue offered
    wait: u64,
    /// the dequeue lands exactly on WARN: the row's counters cleared, E kept (else at XON_e or
    /// below: E cleared too)
    e_kept: bool,
}

/// The timings of the E-write cases at 4 ports (found by running the model over the rows ahead
/// and the dequeue's slot; the sort's length, and so where its E write falls against the slot
/// of 8, depends on the algorithm): in `e_write_meets_clear` an engine's E write leaves in the
/// cycle of its row's clear (a counter clear alone, E kept: the cancel of the row clear, not
/// of the E clear, is what removes it), in `e_write_after_clear` the cycle after, in
/// `e_write_before_e_clear` the cycle before (registered beside E, it reaches E with the clear).
/// Stop-Calibrate counts inputs 1 and 2 in row (0, class 0) and writes E for each in its own
/// cycle.
fn meet(case: &str, mode: Mode) -> Option<Meet<'static>> {
    let cal = mode == Mode::StopCal;
    let inputs: &[usize] = if cal { &[1, 2] } else { &[1] };
    let (before, wait): (&[(usize, usize)], u64) = match (case, cal) {
        ("e_write_meets_clear", false) => (&[(1, PR), (1, PR2), (0, PR2)], 16),
        ("e_write_meets_clear", true) => (&[(1, PR2)], 248),
        ("e_write_after_clear", false) => (&[(0, PR2)], 8),
        ("e_write_after_clear", true) => (&[(0, PR2), (1, PR)], 376),
        ("e_write_before_e_clear", false) => (&[(0, PR2), (1, PR), (1, PR2)], 24),
        ("e_write_before_e_clear", true) => (&[(0, PR2)], 248),
        _ => return None,
    };
    Some(Meet {
        before,
        inputs,
        wait,
        e_kept: case == "e_write_meets_clear",
    })
}

/// Row (0, class 0) at XOFF_e, `m.inputs` its counted inputs, its head packet (input 3's, not
/// counted) big enough that its dequeue takes the queue exactly to WARN (`m.e_kept`: the row's
/// counters cleared) or to XON_e or below (its counters and E cleared). The rows of `m.before` cross XOFF_e (input 2 counted), then row (0, class
/// 0): its sort waits for theirs; its head leaves `m.wait` cycles after its crossing was taken,
/// so that the clear meets the sort's E write. Cancelled (or lost to the clear), the write
/// leaves E without the input; a block that lets it through pauses it (D, at the ports) until
/// the queues are drained at the end. (Nudged: the head leaves a slot later.)
fn e_write_meets_clear(
    mut d: Dir,
    cfg: &BlockConfig,
    m: &Meet,
    nudge: bool,
) -> Result<Run, RunError> {
    let t = cfg.prio[PR];
    let head = if m.e_kept {
        t.eg_xoff + 1 - t.eg_warn
    } else {
        t.eg_xoff - t.eg_xon + 2
    };
    d.enq(0, PR, 3, head)?;
    d.fill_to(0, PR, m.inputs[0], t.eg_warn - 1)?;
    for &i in m.inputs.iter().cycle() {
        let n = (t.eg_xoff - d.occ(0, PR)).min(1000);
        if n == 0 {
            break;
        }
        d.enq(0, PR, i, n)?;
    }
    for &(o, pr) in m.before {
        d.fill_to(o, pr, 2, t.eg_xoff)?;
    }
    for &(o, pr) in m.before {
        d.enq_(o, pr, 2, 1);
    }
    d.enq_(0, PR, m.inputs[0], 1);
    d.taken()?;
    d.idle(m.wait + if nudge { 8 } else { 0 })?;
    d.deq(0, PR)?;
    d.sorts()?;
    d.idle(16)?;
    for &(o, pr) in m.before.iter().chain(&[(0, PR)]) {
        d.drain_to(o, pr, 0)?;
    }
    d.finish()
}

/// Cycles of one Stop-Calibrate sort of the v3 engine (`docs/microarchitecture.md`, "Timing"),
/// with `need` at its most.
fn sort_cycles(p: &BlockParams) -> u64 {
    let np = p.np as u64;
    (np + 6)
        + (u64::from(p.cut_f) + 1)
        + u64::from(p.cw).div_ceil(2) * (np + 7)
        + (np + 6)
        + (np + 2)
        + (np + 6)
}

/// Traffic on priority 3 (arrivals, departures, enqueues, dequeues, never waiting) while
/// priority 4's thresholds, the quanta and the refresh time are written; no lane of priority 4
/// is taken until the window after the writes is over. Then priority 4's new ingress MAX
/// (2,000 bytes, was 24,000) refuses its second 1,500-byte arrival. (Nudged: the writes while
/// no lane flows.)
fn config_under_traffic(
    p: &BlockParams,
    mut cfg: BlockConfig,
    nudge: bool,
) -> Result<Run, RunError> {
    const P4: usize = 4;
    cfg.lossless = 1 << PR | 1 << P4;
    let t = cfg.prio[PR];
    let mut d = Dir::new(p, &cfg);
    let new = PrioThresholds {
        ing_max: 2_000,
        ing_xoff: 1_500,
        ing_xon: 1_000,
        eg_max: 4_000,
        eg_xoff: 3_000,
        eg_xon: 1_000,
        eg_warn: 2_000,
    };
    use crate::block::cfg::addr;
    let writes = [
        (addr::ING_MAX + P4 as u8, new.ing_max),
        (addr::ING_XOFF + P4 as u8, new.ing_xoff),
        (addr::ING_XON + P4 as u8, new.ing_xon),
        (addr::EG_MAX + P4 as u8, new.eg_max),
        (addr::EG_XOFF + P4 as u8, new.eg_xoff),
        (addr::EG_XON + P4 as u8, new.eg_xon),
        (addr::EG_WARN + P4 as u8, new.eg_warn),
        (addr::QUANTA, 0x0200),
        (addr::REFRESH, 300),
    ];
    let mut k = 0usize;
    let np = p.np;
    let start = d.t();
    let mut wrote = false;
    while d.t() < start + 400 {
        // (at most two lanes waiting at a time: arrivals at input 1, their departures and
        // enqueues to port 2, dequeues of port 2)
        if d.offered - d.r.takes < 2 {
            match k % 4 {
                0 if d.ing_occ(1, PR) < t.ing_xoff => d.arr_(1, PR, 1200),
                1 if !d.ing[8 + PR].is_empty() => {
                    let size = *d.ing[8 + PR].front().expect("checked");
                    d.dep_(1, PR)?;
                    d.enq_(2 % np, PR, 1, size);
                }
                3 if !d.eg[(2 % np) * 8 + PR].is_empty() => d.deq_(2 % np, PR)?,
                _ => {}
            }
            k += 1;
        }
        if !wrote && d.t() >= start + 100 {
            if nudge {
                d.sync()?;
                d.idle(config_gap(np))?;
            }
            for &(a, v) in &writes {
                d.write(a, v)?;
            }
            wrote = true;
            if nudge {
                d.idle(config_gap(np))?;
            }
        } else {
            d.step()?;
        }
    }
    d.sync()?;
    d.idle(config_gap(np))?;
    d.arr(0, P4, 1500)?;
    d.arr(0, P4, 1500)?;
    if d.ing_occ(0, P4) == 1500 {
        d.count("arrivals_refused_by_a_threshold_written_under_traffic");
    }
    d.dep(0, P4)?;
    d.drain_to(2 % np, PR, 0)?;
    while d.ing_occ(1, PR) > 0 {
        d.dep(1, PR)?;
    }
    d.finish()
}
