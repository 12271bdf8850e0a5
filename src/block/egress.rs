//! `capfc_egress`: egress occupancy per (output port, priority), the arrival counter table C and
//! the egress congestion signals E.
//!
//! Contract (docs/microarchitecture.md, "Egress queues, arrival counters and E"): the enqueue's
//! accept decision is combinational on the registered occupancy; a dequeue in the same cycle is
//! applied first (its clears of C and E included), then the enqueue (its counter increment and
//! sort request). The counters are a table per egress port; clearing a row costs one cycle because it
//! clears only the row's valid bits, and the stale words stay in the table, masked, exactly as in
//! the RTL. Counters saturate at 2^CW-1. Reset: everything 0.

use super::cfg::CfgRegs;
use super::{BlockParams, Enqueue, Pkt, NPRIO};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Egress {
    /// `occ_q[o*8+p]`: egress occupancy in units.
    pub occ_q: Vec<u32>,
    /// `cnt_q[(o*8+p)*NP + i]`: the counter table words (valid or stale).
    pub cnt_q: Vec<u16>,
    /// `cnt_vld_q[o*8+p]`: bit i says whether word i of the row is valid.
    pub cnt_vld_q: Vec<u128>,
    /// `e_q[o*8+p]`: bit i is E[o][p][i].
    pub e_q: Vec<u128>,
}

/// What this cycle's dequeues and enqueue do, computed from the registers before any update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EgressEvents {
    /// Per port: bit p set when queue (o,p) clears its counters (occupancy fell to WARN or below).
    pub clr_c: Vec<u8>,
    /// Per port: bit p set when queue (o,p) clears E (occupancy fell to XON or below).
    pub clr_e: Vec<u8>,
    /// The ports with a bit set in `clr_c` or `clr_e`.
    pub clr_ports: Vec<usize>,
    /// The enqueue's counter increment: (queue, input port).
    pub inc: Option<(usize, usize)>,
    /// The enqueue's sort request: queue.
    pub trig: Option<usize>,
}

impl EgressEvents {
    pub fn new(np: usize) -> Self {
        EgressEvents {
            clr_c: vec![0; np],
            clr_e: vec![0; np],
            clr_ports: Vec::with_capacity(np),
            inc: None,
            trig: None,
        }
    }

    pub fn clr_e(&self, q: usize) -> bool {
        self.clr_e[q / NPRIO] >> (q % NPRIO) & 1 == 1
    }

    fn reset(&mut self) {
        for &o in &self.clr_ports {
            self.clr_c[o] = 0;
            self.clr_e[o] = 0;
        }
        self.clr_ports.clear();
        self.inc = None;
        self.trig = None;
    }
}

/// Which comparator a test deliberately breaks (see [`super::Fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EgressFaults {
    pub warn_gt: bool,
    pub xon_lt: bool,
}

impl Egress {
    pub fn new(p: &BlockParams) -> Self {
        Egress {
            occ_q: vec![0; p.nq()],
            cnt_q: vec![0; p.nq() * p.np],
            cnt_vld_q: vec![0; p.nq()],
            e_q: vec![0; p.nq()],
        }
    }

    /// The architectural value of C[q][i].
    pub fn counter(&self, np: usize, q: usize, i: usize) -> u16 {
        if self.cnt_vld_q[q] >> i & 1 == 1 {
            self.cnt_q[q * np + i]
        } else {
            0
        }
    }

    /// `enq_ok`: the lane is valid and names existing ports.
    pub fn enq_ok(p: &BlockParams, e: &Enqueue) -> bool {
        usize::from(e.oport) < p.np && usize::from(e.iport) < p.np
    }

    /// `enq_accept` (combinational).
    pub fn accept(&self, p: &BlockParams, cfg: &CfgRegs, e: &Enqueue) -> bool {
        if !Self::enq_ok(p, e) {
            return false;
        }
        let pr = usize::from(e.prio & 7);
        u64::from(self.occ_q[usize::from(e.oport) * NPRIO + pr]) + u64::from(p.units(e.size))
            <= u64::from(cfg.eg_max_q[pr])
    }

    /// First half of the clocked update: occupancies, and the clears, increment and sort request
    /// this cycle causes (written into `ev`). The counter table and E are updated by
    /// [`Egress::tick_table`] once the sort unit has read them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn tick_occupancy(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        deq: &[Option<Pkt>],
        enq: Option<&Enqueue>,
        enq_accept: bool,
        faults: EgressFaults,
        ev: &mut EgressEvents,
    ) {
        if ev.clr_c.len() != p.np {
            // A scratch buffer that was not carried over (a block restored from a snapshot).
            *ev = EgressEvents::new(p.np);
        }
        ev.reset();
        let mask = p.occ_mask();
        for (o, d) in deq.iter().enumerate() {
            let Some(d) = d else { continue };
            let pr = usize::from(d.prio3().value());
            let q = o * NPRIO + pr;
            let mid = self.occ_q[q].wrapping_sub(p.units(d.size)) & mask;
            self.occ_q[q] = mid;
            let clr_c = mid <= cfg.eg_warn_q[pr];
            let clr_e = if faults.xon_lt {
                mid < cfg.eg_xon_q[pr]
            } else {
                mid <= cfg.eg_xon_q[pr]
            };
            if clr_c || clr_e {
                ev.clr_c[o] |= u8::from(clr_c) << pr;
                ev.clr_e[o] |= u8::from(clr_e) << pr;
                ev.clr_ports.push(o);
            }
        }
        if let (Some(e), true) = (enq, enq_accept) {
            let pr = usize::from(e.prio & 7);
            let q = usize::from(e.oport) * NPRIO + pr;
            let occ = (self.occ_q[q] + p.units(e.size)) & mask;
            self.occ_q[q] = occ;
            if cfg.lossless(pr) {
                let warn = cfg.eg_warn_q[pr];
                let inc = if faults.warn_gt {
                    occ > warn
                } else {
                    occ >= warn
                };
                if inc {
                    ev.inc = Some((q, usize::from(e.iport)));
                }
                if cfg.sort_enabled() && occ > cfg.eg_xoff_q[pr] {
                    ev.trig = Some(q);
                }
            }
        }
    }

    /// Second half of the clocked update: counter clears and increment, E clears and the sort
    /// unit's write. Returns the priorities whose E changed (bit p).
    pub(crate) fn tick_table(
        &mut self,
        p: &BlockParams,
        ev: &EgressEvents,
        wr: Option<(usize, u128)>,
    ) -> u8 {
        let mut changed = 0u8;
        for &o in &ev.clr_ports {
            let (c, e) = (ev.clr_c[o], ev.clr_e[o]);
            for pr in 0..NPRIO {
                let q = o * NPRIO + pr;
                if c >> pr & 1 == 1 {
                    self.cnt_vld_q[q] = 0;
                }
                if e >> pr & 1 == 1 && self.e_q[q] != 0 {
                    self.e_q[q] = 0;
                    changed |= 1 << pr;
                }
            }
        }
        if let Some((q, i)) = ev.inc {
            let w = q * p.np + i;
            let cur = if self.cnt_vld_q[q] >> i & 1 == 1 {
                self.cnt_q[w]
            } else {
                0
            };
            self.cnt_q[w] = if cur == p.cnt_max() { cur } else { cur + 1 };
            self.cnt_vld_q[q] |= 1u128 << i;
        }
        if let Some((q, m)) = wr {
            // The sort unit never writes a queue that clears E this cycle.
            if self.e_q[q] | m != self.e_q[q] {
                self.e_q[q] |= m;
                changed |= 1 << (q % NPRIO);
            }
        }
        changed
    }
}
