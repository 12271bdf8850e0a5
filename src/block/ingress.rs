//! `capfc_ingress`: per (input port, priority) ingress occupancy and the ingress congestion state I.
//!
//! Contract (docs/microarchitecture.md, "Ingress"): the accept decision of an arrival is
//! combinational on the registered occupancy; in a cycle with both a departure and an arrival on
//! the same queue the departure is applied first (and may clear I), then the arrival (which may set
//! it). Reset: occupancies 0, I = 0.

use super::cfg::CfgRegs;
use super::{BlockParams, Departure, Pkt, NPRIO};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ingress {
    /// `occ_q[i*8+p]`: ingress occupancy in units.
    pub occ_q: Vec<u32>,
    /// `xoff_q`, one byte per port: bit p is I[i][p].
    pub xoff_q: Vec<u8>,
}

impl Ingress {
    pub fn new(p: &BlockParams) -> Self {
        Ingress {
            occ_q: vec![0; p.nq()],
            xoff_q: vec![0; p.np],
        }
    }

    /// `arr_accept[i]`: the arrival fits under ingress MAX (combinational).
    pub fn accept(&self, p: &BlockParams, cfg: &CfgRegs, port: usize, pkt: &Pkt) -> bool {
        let pr = usize::from(pkt.prio3().value());
        u64::from(self.occ_q[port * NPRIO + pr]) + u64::from(p.units(pkt.size))
            <= u64::from(cfg.ing_max_q[pr])
    }

    /// The clocked update. Returns the priorities whose I changed (bit p).
    pub fn tick(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        dep: Option<&Departure>,
        arr: &[Option<Pkt>],
        arr_accept: u128,
    ) -> u8 {
        let mask = p.occ_mask();
        let mut changed = 0u8;
        if let Some(d) = dep {
            let i = usize::from(d.port);
            if i < p.np {
                let pr = usize::from(d.prio & 7);
                let q = i * NPRIO + pr;
                let mid = self.occ_q[q].wrapping_sub(p.units(d.size)) & mask;
                self.occ_q[q] = mid;
                if mid <= cfg.ing_xon_q[pr] && self.xoff_q[i] >> pr & 1 == 1 {
                    self.xoff_q[i] &= !(1 << pr);
                    changed |= 1 << pr;
                }
            }
        }
        let mut acc = arr_accept;
        while acc != 0 {
            let i = acc.trailing_zeros() as usize;
            acc &= acc - 1;
            let Some(pkt) = &arr[i] else { continue };
            let pr = usize::from(pkt.prio3().value());
            let q = i * NPRIO + pr;
            let occ = (self.occ_q[q] + p.units(pkt.size)) & mask;
            self.occ_q[q] = occ;
            if cfg.lossless(pr) && occ > cfg.ing_xoff_q[pr] && self.xoff_q[i] >> pr & 1 == 0 {
                self.xoff_q[i] |= 1 << pr;
                changed |= 1 << pr;
            }
        }
        changed
    }
}
