//! `capfc_sort`: the contributor sort unit, with its round-robin request arbiter.
//!
//! Contract (docs/microarchitecture.md, "Contributor sort unit"): one sort at a time. An idle unit
//! grants the first pending queue at or after the round-robin pointer, snapshots that queue's counter
//! row and its total, and then runs one argmax iteration (Stop-Max) or exactly NP iterations
//! (Stop-Calibrate, a cumulative scan against CUT that stops taking inputs once
//! `S * 2^CUT_F >= CUT * T`). On its last cycle it ORs the selection into E unless the queue fell to
//! XON or below while it ran (the result is then discarded). Such a fall also drops the queue's pending
//! request. A request for the queue being sorted stays pending and runs again. Latency from the
//! enqueue: E visible 3 cycles later (Stop-Max) or NP+2 (Stop-Calibrate). Reset: idle, nothing pending,
//! pointer 0.

use super::argmax::argmax;
use super::cfg::CfgRegs;
use super::egress::{Egress, EgressEvents};
use super::{BlockParams, NPRIO};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sort {
    /// `pend_q`, one byte per egress port: bit p is a pending request of queue (o,p).
    pub pend_q: Vec<u8>,
    pub rr_q: u32,
    pub busy_q: bool,
    pub qidx_q: u32,
    pub iter_q: u32,
    pub cancel_q: bool,
    pub cal_q: bool,
    pub vals_q: Vec<u16>,
    pub taken_q: u128,
    pub sum_q: u32,
    pub total_q: u32,
    /// Number of bits set in `pend_q` (derived, not a register; kept in snapshots so that a
    /// restored unit grants as the original would).
    npend: usize,
}

impl Sort {
    pub fn new(p: &BlockParams) -> Self {
        Sort {
            pend_q: vec![0; p.np],
            rr_q: 0,
            busy_q: false,
            qidx_q: 0,
            iter_q: 0,
            cancel_q: false,
            cal_q: false,
            vals_q: vec![0; p.np],
            taken_q: 0,
            sum_q: 0,
            total_q: 0,
            npend: 0,
        }
    }

    pub fn pending(&self, q: usize) -> bool {
        self.pend_q[q / NPRIO] >> (q % NPRIO) & 1 == 1
    }

    fn set_pending(&mut self, q: usize, v: bool) {
        let (b, m) = (q / NPRIO, 1u8 << (q % NPRIO));
        let was = self.pend_q[b] & m != 0;
        if v && !was {
            self.pend_q[b] |= m;
            self.npend += 1;
        } else if !v && was {
            self.pend_q[b] &= !m;
            self.npend -= 1;
        }
    }

    /// The round-robin grant: the first pending queue at or after `rr_q`, wrapping around.
    fn grant(&self, nq: usize) -> Option<usize> {
        if self.npend == 0 {
            return None;
        }
        let start = self.rr_q as usize % nq;
        let (b0, s0) = (start / NPRIO, start % NPRIO);
        let nb = self.pend_q.len();
        let first = self.pend_q[b0] & (0xFFu8 << s0);
        if first != 0 {
            return Some(b0 * NPRIO + first.trailing_zeros() as usize);
        }
        for k in 1..=nb {
            let b = (b0 + k) % nb;
            let v = self.pend_q[b];
            if v != 0 {
                return Some(b * NPRIO + v.trailing_zeros() as usize);
            }
        }
        None
    }

    /// The clocked update. Reads the counter table as it is before this cycle's update; returns
    /// the write into E (queue, mask) when a sort finishes and is not cancelled.
    pub(crate) fn tick(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        eg: &Egress,
        ev: &EgressEvents,
    ) -> Option<(usize, u128)> {
        let nq = p.nq();
        let mut wr = None;
        let mut granted = None;
        if !self.busy_q {
            if let Some(g) = self.grant(nq) {
                granted = Some(g);
                self.rr_q = ((g + 1) % nq) as u32;
                self.busy_q = true;
                self.qidx_q = g as u32;
                self.iter_q = 0;
                self.cal_q = cfg.mode_q.value() >> 1 & 1 == 1;
                self.taken_q = 0;
                self.sum_q = 0;
                let mut total = 0u32;
                for i in 0..p.np {
                    let v = eg.counter(p.np, g, i);
                    self.vals_q[i] = v;
                    total += u32::from(v);
                }
                self.total_q = total;
                self.cancel_q = ev.clr_e(g);
            }
        } else {
            let q = self.qidx_q as usize;
            let best = argmax(&self.vals_q, self.taken_q);
            let (last, mask) = if !self.cal_q {
                (true, best.map_or(0, |(_, i)| 1u128 << i))
            } else {
                let met = u64::from(self.sum_q) << p.cut_f
                    >= u64::from(cfg.cut_q) * u64::from(self.total_q);
                if let (false, Some((mx, i))) = (met, best) {
                    self.taken_q |= 1u128 << i;
                    self.sum_q += u32::from(mx);
                }
                let last = self.iter_q as usize == p.np - 1;
                self.iter_q = (self.iter_q + 1) & super::mask32(p.pw());
                (last, self.taken_q)
            };
            let cancel = self.cancel_q || ev.clr_e(q);
            if last {
                if !cancel {
                    wr = Some((q, mask));
                }
                self.busy_q = false;
            } else {
                self.cancel_q = cancel;
            }
        }
        for &o in &ev.clr_ports {
            let c = ev.clr_e[o];
            if c != 0 {
                for pr in 0..NPRIO {
                    if c >> pr & 1 == 1 {
                        self.set_pending(o * NPRIO + pr, false);
                    }
                }
            }
        }
        if let Some(g) = granted {
            self.set_pending(g, false);
        }
        if let Some(q) = ev.trig {
            self.set_pending(q, true);
        }
        wr
    }
}
