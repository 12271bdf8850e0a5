//! `capfc_v2_ingress`: per (input port, priority) ingress occupancy and the ingress congestion state I.
//!
//! Contract (docs/microarchitecture-v2.md, "Ingress"): the accept decision of an arrival is
//! combinational on the registered occupancy; in a cycle with both a departure and an arrival on
//! the same queue the departure is applied first (and may clear I), then the arrival (which may set
//! it). The occupancy of queue (i, p) lives in one of two 8-word LUT RAMs of port i: `u_arr`,
//! written by arrival lane i, and `u_dep`, written by the departure lane, so that each RAM has one
//! writer; `sel_q` names the one written last and `vq_q` says whether the queue was written since
//! reset (else its occupancy is 0). Reset: `sel_q`, `vq_q` and I = 0; the RAMs keep their contents.

use super::cfg::CfgRegs;
use super::fault::{gt, le, Fault, Injected};
use super::ram::{live_read, live_write, LutRam};
use super::{BlockParams, Departure, Pkt, NPRIO};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ingress {
    /// `xoff_q`, one byte per port: bit p is `I[i][p]`.
    pub xoff_q: Vec<u8>,
    /// `sel_q`, one byte per port: bit p set = the occupancy of (i, p) is in `dep[i]`, else `arr[i]`.
    pub sel_q: Vec<u8>,
    /// `vq_q`, one byte per port: bit p set = queue (i, p) was written since reset.
    pub vq_q: Vec<u8>,
    /// `gen_port[i].u_arr.mem`: occupancies written by arrival lane i, word p.
    pub arr: Vec<LutRam<u32>>,
    /// `gen_port[i].u_dep.mem`: occupancies written by the departure lane, word p.
    pub dep: Vec<LutRam<u32>>,
}

impl Ingress {
    pub fn new(p: &BlockParams) -> Self {
        Ingress {
            xoff_q: vec![0; p.np],
            sel_q: vec![0; p.np],
            vq_q: vec![0; p.np],
            arr: vec![LutRam::new(NPRIO); p.np],
            dep: vec![LutRam::new(NPRIO); p.np],
        }
    }

    /// Reset: every register to 0 (every occupancy reads 0); the RAMs keep their contents.
    pub fn reset(&mut self) {
        self.xoff_q.fill(0);
        self.sel_q.fill(0);
        self.vq_q.fill(0);
    }

    /// The ingress occupancy of queue `q = i*8+p` in units.
    #[inline]
    pub fn occ(&self, q: usize) -> u32 {
        let (i, pr) = (q / NPRIO, q % NPRIO);
        live_read(self.vq_q[i], self.sel_q[i], &self.arr[i], &self.dep[i], pr)
    }

    /// `arr_accept[i]`: the arrival fits under ingress MAX (combinational).
    pub fn accept(
        &self,
        p: &BlockParams,
        cfg: &CfgRegs,
        port: usize,
        pkt: &Pkt,
        f: Option<Fault>,
    ) -> bool {
        let pr = usize::from(pkt.prio3().value());
        let b = u64::from(self.occ(port * NPRIO + pr)) + u64::from(p.units(pkt.size));
        let max = u64::from(cfg.ing_max_q[pr]) + u64::from(f.is(Fault::IngMaxLoose));
        le(f, Fault::IngMaxStrict, b, max)
    }

    /// The clocked update. Returns the priorities whose I changed (bit p).
    pub fn tick(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        dep: Option<&Departure>,
        arr: &[Option<Pkt>],
        arr_accept: u128,
        f: Option<Fault>,
    ) -> u8 {
        let mask = p.occ_mask();
        let mut changed = 0u8;
        // (fault ing_dep_not_forwarded: an arrival sees its queue as before the departure)
        let before = dep
            .filter(|d| f.is(Fault::IngDepNotForwarded) && usize::from(d.port) < p.np)
            .map(|d| usize::from(d.port) * NPRIO + usize::from(d.prio & 7))
            .map(|q| (q, self.occ(q)));
        if let Some(d) = dep {
            let i = usize::from(d.port);
            if i < p.np {
                let pr = usize::from(d.prio & 7);
                let q = i * NPRIO + pr;
                let mid = self.occ(q).wrapping_sub(p.units(d.size)) & mask;
                live_write(
                    &mut self.vq_q[i],
                    &mut self.sel_q[i],
                    &mut self.dep[i],
                    true,
                    pr,
                    mid,
                );
                if le(f, Fault::IngXonLt, mid, cfg.ing_xon_q[pr]) && self.xoff_q[i] >> pr & 1 == 1 {
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
            let base = match before {
                Some((bq, b)) if bq == q => b,
                _ => self.occ(q),
            };
            let occ = (base + p.units(pkt.size)) & mask;
            live_write(
                &mut self.vq_q[i],
                &mut self.sel_q[i],
                &mut self.arr[i],
                false,
                pr,
                occ,
            );
            let lossless = cfg.lossless(pr) || f.is(Fault::IngLossyPause);
            let over = gt(f, Fault::IngXoffGe, occ, cfg.ing_xoff_q[pr]);
            if lossless && over && self.xoff_q[i] >> pr & 1 == 0 {
                self.xoff_q[i] |= 1 << pr;
                changed |= 1 << pr;
            }
        }
        changed
    }
}
