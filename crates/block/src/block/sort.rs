//! `capfc_v2_sort`: one contributor sort engine per output port.
//!
//! Contract (docs/microarchitecture-v2.md, "Sort engines"): an idle engine grants the first pending
//! class of its port at or after its round-robin pointer. Stop-Max makes one pass over the live row
//! (read port 1 of the port's counter RAM) keeping the strict maximum, so ties keep the lowest index
//! and a counter of 0 never wins. Stop-Calibrate copies the live row into its snap RAM while summing
//! T, computes the target `cut * T`, finds the threshold θ bit by bit (one pass per counter bit), sums
//! the inputs above θ (G), and then takes, in index order, every input above θ and the inputs equal
//! to θ while the sum is short of the target. A row cleared while it is sorted aborts the sort.
//!
//! Why the threshold search selects what the iterative rule (take the largest remaining input, ties
//! lowest index first, while `S * 2^F < cut * T`) selects: let `A(v)` be the sum of the counters
//! `>= v` and θ the value of the last input the iterative rule takes. `A(θ) >= target` (it contains
//! every input taken), and for `v > θ`, `A(v) <= ` the sum of the inputs above θ, which the rule took
//! before reaching θ while still short, so `A(v) < target`. Hence θ is the largest v with
//! `A(v) >= target`, which the MSB-first search finds since A is non-increasing. The rule takes every
//! input above θ (it was short before each of them), then the inputs equal to θ lowest index first
//! while short: exactly the SEL pass. With T = 0 the search ends at all ones and nothing is taken;
//! an input of 0 is never taken (θ = 0 selects only inputs above 0).

use super::cfg::CfgRegs;
use super::egress::{Egress, EgressEvents};
use super::fault::{ge, gt, Fault, Injected};
use super::ram::Ram;
use super::BlockParams;

/// `ph_q` values.
pub mod phase {
    pub const MAX: u8 = 0;
    pub const COPY: u8 = 1;
    pub const MUL: u8 = 2;
    pub const SRCH: u8 = 3;
    pub const GT: u8 = 4;
    pub const SEL: u8 = 5;

    pub fn name(ph: u8) -> &'static str {
        ["MAX", "COPY", "MUL", "SRCH", "GT", "SEL", "?6", "?7"][usize::from(ph & 7)]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sort {
    /// `pend_q[o]`: bit l, a pending request of class l.
    pub pend_q: Vec<u8>,
    pub rr_q: Vec<u32>,
    /// `busy_q`: bit o.
    pub busy_q: u128,
    /// `cal_q`: bit o.
    pub cal_q: u128,
    pub ph_q: Vec<u8>,
    pub row_q: Vec<u32>,
    pub k_q: Vec<u32>,
    pub bit_q: Vec<u32>,
    pub v_q: Vec<u16>,
    pub ix_q: Vec<u32>,
    pub acc_q: Vec<u32>,
    pub tgt_q: Vec<u64>,
    /// `gen_port[o].u_snap`.
    pub snap: Vec<Ram<u16>>,
    /// Engines with a request pending (bit o): derived from `pend_q`, not a register; kept in
    /// snapshots so that a restored block continues exactly, and checked on restore.
    pending: u128,
}

/// What the engines do this cycle, for the rest of the block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SortOut {
    /// Reads of the egress RAMs' read port 1: (port, class, index).
    pub reads: Vec<(usize, usize, usize)>,
    /// E writes: (port, class, mask).
    pub swr: Vec<(usize, usize, u128)>,
}

impl SortOut {
    fn clear(&mut self) {
        self.reads.clear();
        self.swr.clear();
    }
}

impl Sort {
    pub fn new(p: &BlockParams) -> Self {
        let np = p.np;
        Sort {
            pend_q: vec![0; np],
            rr_q: vec![0; np],
            busy_q: 0,
            cal_q: 0,
            ph_q: vec![0; np],
            row_q: vec![0; np],
            k_q: vec![0; np],
            bit_q: vec![0; np],
            v_q: vec![0; np],
            ix_q: vec![0; np],
            acc_q: vec![0; np],
            tgt_q: vec![0; np],
            snap: (0..np).map(|_| Ram::new(1 << p.pw(), 1)).collect(),
            pending: 0,
        }
    }

    /// Reset: every register to 0; the snap RAMs keep their contents.
    pub fn reset(&mut self, p: &BlockParams) {
        let snap = std::mem::take(&mut self.snap);
        *self = Sort::new(p);
        self.snap = snap;
    }

    /// Recompute the derived mask of engines with pending requests from `pend_q`.
    pub fn resync(&mut self) {
        self.pending = self
            .pend_q
            .iter()
            .enumerate()
            .fold(0u128, |m, (o, &b)| m | (u128::from(b != 0) << o));
    }

    /// The derived mask of engines with pending requests agrees with `pend_q`.
    pub fn consistent(&self) -> bool {
        self.pending
            == self
                .pend_q
                .iter()
                .enumerate()
                .fold(0u128, |m, (o, &b)| m | (u128::from(b != 0) << o))
    }

    pub fn busy(&self, o: usize) -> bool {
        self.busy_q >> o & 1 == 1
    }

    pub fn pending(&self, o: usize, l: usize) -> bool {
        self.pend_q[o] >> l & 1 == 1
    }

    /// The value an engine processes this cycle (step k >= 1): the live row through the egress
    /// RAM's read port 1 in MAX and COPY, the snap RAM's read data otherwise.
    pub fn x(&self, p: &BlockParams, eg: &Egress, o: usize) -> u16 {
        match self.ph_q[o] {
            phase::MAX | phase::COPY => eg.sval(
                p,
                o,
                self.row_q[o] as usize,
                (self.k_q[o] as usize).wrapping_sub(1) & super::mask32(p.pw()) as usize,
            ),
            _ => self.snap[o].rd_q[0],
        }
    }

    /// No engine is sorting and no request is pending.
    pub fn idle(&self) -> bool {
        self.busy_q == 0 && self.pending == 0
    }

    /// The clocked update of every engine. Reads the egress registers and RAM read data as they
    /// are before this cycle's update; performs the snap RAM's reads and writes; returns the egress
    /// RAM reads and E writes in `out`. In a reset cycle only the RAM reads happen.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn tick(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        eg: &Egress,
        ev: &EgressEvents,
        rst: bool,
        f: Option<Fault>,
        out: &mut SortOut,
    ) {
        out.clear();
        let mut active = self.busy_q | self.pending;
        while active != 0 {
            let o = active.trailing_zeros() as usize;
            active &= active - 1;
            self.step(p, cfg, eg, ev, rst, f, out, o);
        }
        if rst {
            return;
        }
        // Pending requests: dropped by a clear of their row (granted ones were dropped in step),
        // set by this cycle's request.
        for &o in &ev.clr_ports {
            if f.is(Fault::PendingKeptOnClear) {
                break;
            }
            if ev.rclr[o] != 0 && self.pend_q[o] & ev.rclr[o] != 0 {
                self.pend_q[o] &= !ev.rclr[o];
                if self.pend_q[o] == 0 {
                    self.pending &= !(1u128 << o);
                }
            }
        }
        if let Some((o, l)) = ev.trig {
            self.pend_q[o] |= 1 << l;
            self.pending |= 1u128 << o;
        }
    }

    /// (Long: v2's engine of `check/capfc_v2/rtl/capfc_v2_sort.sv`, one phase of its state machine after another.)
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        eg: &Egress,
        ev: &EgressEvents,
        rst: bool,
        f: Option<Fault>,
        out: &mut SortOut,
        o: usize,
    ) {
        let np = p.np;
        let bit = 1u128 << o;
        if !self.busy(o) {
            if rst {
                return;
            }
            let avail = if f.is(Fault::PendingKeptOnClear) {
                self.pend_q[o]
            } else {
                self.pend_q[o] & !ev.rclr[o]
            };
            if avail == 0 {
                return;
            }
            let nl = p.nl;
            let rr = self.rr_q[o] as usize;
            let g = (0..nl)
                .map(|k| (rr + k) % nl)
                .find(|&l| avail >> l & 1 == 1)
                .unwrap();
            self.rr_q[o] = if g == nl - 1 || f.is(Fault::RrFixed) {
                0
            } else {
                g as u32 + 1
            };
            self.pend_q[o] &= !(1 << g);
            if self.pend_q[o] == 0 {
                self.pending &= !bit;
            }
            self.busy_q |= bit;
            self.row_q[o] = g as u32;
            let cal = if f.is(Fault::Mode3AsMax) {
                cfg.mode_q.value() == 2
            } else {
                cfg.mode_q.value() >> 1 & 1 == 1
            };
            if cal {
                self.cal_q |= bit;
            } else {
                self.cal_q &= !bit;
            }
            self.ph_q[o] = if cal { phase::COPY } else { phase::MAX };
            self.k_q[o] = 0;
            self.v_q[o] = 0;
            self.ix_q[o] = 0;
            self.acc_q[o] = 0;
            self.bit_q[o] = p.cw - 1;
            return;
        }
        let (ph, k, row) = (self.ph_q[o], self.k_q[o] as usize, self.row_q[o] as usize);
        let proc = k >= 1;
        let last = k == np;
        let x = if proc { self.x(p, eg, o) } else { 0 };
        // Reads of this cycle (addresses from the registers).
        if k < np {
            match ph {
                phase::MAX | phase::COPY => out.reads.push((o, row, k)),
                phase::SRCH | phase::GT | phase::SEL => self.snap[o].read(0, k),
                _ => {}
            }
        }
        if rst {
            return;
        }
        if ev.rclr(o, row) && !f.is(Fault::SortNotCancelled) {
            self.busy_q &= !bit;
            return;
        }
        let pwm = super::mask32(p.pw());
        let fault = f;
        let f = p.cut_f;
        let step_on = |s: &mut Self| s.k_q[o] = (k as u32 + 1) & super::mask32(p.pw() + 1);
        // the next step of this pass, or after its last step the first of phase `next`
        let step_or_enter = |s: &mut Self, next: u8| {
            if last {
                s.ph_q[o] = next;
                s.k_q[o] = 0;
            } else {
                step_on(s);
            }
        };
        match ph {
            phase::MAX => {
                let (mut v, mut ix) = (self.v_q[o], self.ix_q[o]);
                let better = if fault.is(Fault::TieLastIndex) {
                    x >= v && x != 0
                } else {
                    x > v
                };
                if proc && better {
                    v = x;
                    ix = (k as u32 - 1) & pwm;
                }
                self.v_q[o] = v;
                self.ix_q[o] = ix;
                if last {
                    if v != 0 {
                        out.swr.push((o, row, 1u128 << ix));
                    }
                    self.busy_q &= !bit;
                } else {
                    step_on(self);
                }
            }
            phase::COPY => {
                if proc {
                    self.snap[o].write(k - 1, x);
                    self.acc_q[o] += u32::from(x);
                }
                step_or_enter(self, phase::MUL);
            }
            phase::MUL => {
                self.tgt_q[o] = u64::from(cfg.cut_q) * u64::from(self.acc_q[o]);
                self.acc_q[o] = 0;
                self.v_q[o] = 0;
                self.bit_q[o] = p.cw - 1;
                self.ph_q[o] = phase::SRCH;
                self.k_q[o] = 0;
            }
            phase::SRCH => {
                let b = self.bit_q[o];
                let cand = self.v_q[o] | (1u16 << b);
                let sum = self.acc_q[o] + if proc && x >= cand { u32::from(x) } else { 0 };
                self.acc_q[o] = sum;
                if last {
                    if ge(fault, Fault::CalStopGt, u64::from(sum) << f, self.tgt_q[o]) {
                        self.v_q[o] = cand;
                    }
                    self.acc_q[o] = 0;
                    self.k_q[o] = 0;
                    if b == 0 {
                        self.ph_q[o] = phase::GT;
                    } else {
                        self.bit_q[o] = b - 1;
                    }
                } else {
                    step_on(self);
                }
            }
            phase::GT => {
                if proc && gt(fault, Fault::GtIncludesTheta, x, self.v_q[o]) {
                    self.acc_q[o] += u32::from(x);
                }
                step_or_enter(self, phase::SEL);
            }
            phase::SEL => {
                if proc {
                    let v = self.v_q[o];
                    let met = ge(
                        fault,
                        Fault::CalStopGt,
                        u64::from(self.acc_q[o]) << f,
                        self.tgt_q[o],
                    );
                    let take = x > v || (x == v && x != 0 && !met);
                    if take && x == v {
                        self.acc_q[o] += u32::from(x);
                    }
                    if take {
                        out.swr.push((o, row, 1u128 << (k - 1)));
                    }
                }
                if last {
                    self.busy_q &= !bit;
                } else {
                    step_on(self);
                }
            }
            _ => {
                // Phases 6 and 7 do not exist: the engine goes idle (a restored snapshot is
                // checked before it runs, so only a broken RTL gets here).
                self.busy_q &= !bit;
            }
        }
    }
}
