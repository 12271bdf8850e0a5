//! `capfc_v2_top`: the v2 block, wiring the units together and computing D.
//!
//! Contract: docs/microarchitecture-v2.md. `d_state[i*8+p] = I[i][p] | (p counted and OR over o != i of
//! E[o][lidx(p)][i])`, combinational from the registers. Each call of [`CapfcTop::tick_cycle`] is one
//! clock cycle: it returns the outputs as they are before the rising edge that ends the cycle, then
//! updates every register and RAM as that edge does.

use super::cfg::{addr, CfgRegs};
use super::coverage::{Coverage, Point};
use super::egress::{Egress, EgressEvents};
use super::fault::{Fault, Injected};
use super::ingress::Ingress;
use super::pfc_gen::PfcGen;
use super::sort::{phase, Sort, SortOut};
use super::{BlockParams, ConfigError, Inputs, Outputs, NPRIO};
use crate::error::SnapshotError;

/// The whole block: every register and RAM of `capfc_v2_top`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CapfcTop {
    pub params: BlockParams,
    pub cfg: CfgRegs,
    pub ingress: Ingress,
    pub egress: Egress,
    pub sort: Sort,
    pub pfc: PfcGen,
    /// D per port (combinational; cached and recomputed when I, E or the lossless mask change).
    d: Vec<u8>,
    #[serde(skip)]
    fault: Option<Fault>,
    #[serde(skip)]
    ev: EgressEvents,
    #[serde(skip)]
    so: SortOut,
    #[serde(skip)]
    cov: Option<Box<Coverage>>,
}

impl CapfcTop {
    /// The block at power-up (every register and RAM word 0, as Verilator starts it).
    pub fn new(params: BlockParams) -> Result<Self, ConfigError> {
        params.validate()?;
        let p = &params;
        Ok(CapfcTop {
            params,
            cfg: CfgRegs::default(),
            ingress: Ingress::new(p),
            egress: Egress::new(p),
            sort: Sort::new(p),
            pfc: PfcGen::new(p),
            d: vec![0; p.np],
            fault: None,
            ev: EgressEvents::new(p.np),
            so: SortOut::default(),
            cov: None,
        })
    }

    /// Inject a deliberate bug (tests of the checkers only).
    pub fn inject_fault(&mut self, f: Option<Fault>) {
        self.fault = f;
    }

    /// Check a state that came from outside (a snapshot file): every table has the size these
    /// parameters give, and the registers that index tables are in range. Serde checks types only.
    pub fn check_restored(&self) -> Result<(), SnapshotError> {
        let bad = |e: &dyn std::fmt::Display| SnapshotError::new("block", e.to_string());
        self.params.validate().map_err(|e| bad(&e))?;
        let fresh = CapfcTop::new(self.params).map_err(|e| bad(&e))?;
        let (a, b) = (
            serde_json::to_value(self).map_err(|e| bad(&e))?,
            serde_json::to_value(&fresh).map_err(|e| bad(&e))?,
        );
        super::same_shape(&a, &b, "block")?;
        let p = self.params;
        let eg = &self.egress;
        let s = &self.sort;
        let lim = |v: u32, w: u32| v <= super::mask32(w);
        let checks: [(&str, bool); 4] = [
            ("block.egress.inc_o_q", lim(eg.inc_o_q, p.pw())),
            ("block.egress.inc_i_q", lim(eg.inc_i_q, p.pw())),
            ("block.egress.wr_o_q", lim(eg.wr_o_q, p.pw())),
            ("block.egress.wr_i_q", lim(eg.wr_i_q, p.pw())),
        ];
        for (name, ok) in checks {
            if !ok {
                return Err(SnapshotError::new(name, "out of range"));
            }
        }
        if eg.inc_v_q && (eg.inc_o_q as usize >= p.np || eg.inc_l_q as usize >= p.nl) {
            return Err(SnapshotError::new(
                "block.egress.inc_o_q",
                "an increment in flight names no row",
            ));
        }
        for o in 0..p.np {
            let f = |n: &str| format!("block.sort.{n}[{o}]");
            if s.rr_q[o] as usize >= p.nl || s.row_q[o] as usize >= p.nl {
                return Err(SnapshotError::new(
                    f("rr_q/row_q"),
                    format!("out of range (0..{})", p.nl),
                ));
            }
            if s.ph_q[o] > phase::SEL {
                return Err(SnapshotError::new(
                    f("ph_q"),
                    format!("{} is not a phase", s.ph_q[o]),
                ));
            }
            if s.k_q[o] as usize > p.np {
                return Err(SnapshotError::new(
                    f("k_q"),
                    format!("{} is above NP = {}", s.k_q[o], p.np),
                ));
            }
            if s.bit_q[o] >= p.cw || s.ix_q[o] as usize >= p.np {
                return Err(SnapshotError::new(f("bit_q/ix_q"), "out of range"));
            }
            if u32::from(s.pend_q[o]) >> p.nl != 0 {
                return Err(SnapshotError::new(f("pend_q"), "names a class >= NL"));
            }
        }
        if !s.consistent() {
            return Err(SnapshotError::new(
                "block.sort.pending",
                "disagrees with pend_q",
            ));
        }
        let mut d = self.clone();
        d.recompute_d_all();
        if d.d != self.d {
            return Err(SnapshotError::new("block.d", "D disagrees with I and E"));
        }
        Ok(())
    }

    /// The deliberate bug injected, if any.
    pub fn fault(&self) -> Option<Fault> {
        self.fault
    }

    /// Start counting functional coverage (see [`Coverage`]).
    pub fn enable_coverage(&mut self) {
        self.cov.get_or_insert_with(|| Box::new(Coverage::new()));
    }

    /// The coverage counted so far, if enabled.
    pub fn coverage(&self) -> Option<&Coverage> {
        self.cov.as_deref()
    }

    /// D per port, bit p for priority p.
    pub fn d_state(&self) -> &[u8] {
        &self.d
    }

    /// The architectural `C[o][l][i]` (see [`Egress::counter`]).
    pub fn counter(&self, o: usize, l: usize, i: usize) -> u16 {
        self.egress.counter(&self.params, o, l, i, self.fault)
    }

    /// Recompute D for the priorities in `prios` (bit p: I or E of priority p changed).
    fn compute_d(&mut self, prios: u8) {
        let p = self.params;
        let np = p.np;
        for pr in 0..NPRIO {
            if prios >> pr & 1 == 0 {
                continue;
            }
            let mut acc = 0u128;
            if let Some(l) = self.cfg.counted(&p, pr) {
                let own = !self.fault.is(Fault::EOwnPort);
                for o in 0..np {
                    acc |= self.egress.e_q[p.row(o, l)] & !(u128::from(own) << o);
                }
            }
            let bit = 1u8 << pr;
            for (i, d) in self.d.iter_mut().enumerate() {
                let v = if (self.ingress.xoff_q[i] & bit) != 0 || acc >> i & 1 == 1 {
                    bit
                } else {
                    0
                };
                if *d & bit != v {
                    *d ^= bit;
                }
            }
        }
    }

    /// Recompute D from scratch (after a restore or a change of the lossless mask).
    pub fn recompute_d_all(&mut self) {
        self.compute_d(0xFF);
    }

    fn reset(&mut self) {
        let p = self.params;
        self.cfg = CfgRegs::default();
        self.ingress.reset();
        self.egress.reset(&p);
        self.sort.reset(&p);
        self.pfc = PfcGen::new(&p);
        self.d.fill(0);
    }

    /// This cycle's outputs for inputs `inp`, from the registers as they are now (no update).
    pub fn outputs(&self, inp: &Inputs, out: &mut Outputs) {
        let p = self.params;
        let mut arr_accept = 0u128;
        for (i, a) in inp.arr.iter().enumerate() {
            if let Some(pkt) = a {
                if self.ingress.accept(&p, &self.cfg, i, pkt, self.fault) {
                    arr_accept |= 1u128 << i;
                }
            }
        }
        out.arr_accept = arr_accept;
        out.enq_accept = inp
            .enq
            .as_ref()
            .is_some_and(|e| self.egress.accept(&p, &self.cfg, e, self.fault));
        out.pfc_valid = self
            .pfc
            .outputs(&self.d, &mut out.pfc_cev, &mut out.pfc_xoff, self.fault);
        out.pfc_quanta = self.cfg.quanta_q;
        out.d_state.copy_from_slice(&self.d);
    }

    /// Forget the RAM writes recorded so far (`Ram::wr`, `LutRam::wr`): the next cycle records its
    /// own. The lockstep, their only reader, calls it before each cycle; the model alone does not
    /// (6·NP stores a cycle halved its speed at 128 ports), so outside the lockstep a record may be
    /// from any earlier cycle.
    pub fn clear_write_records(&mut self) {
        for o in 0..self.params.np {
            self.ingress.arr[o].wr = None;
            self.ingress.dep[o].wr = None;
            self.egress.deq[o].wr = None;
            self.egress.enq[o].wr = None;
            self.egress.cnt[o].wr = None;
            self.sort.snap[o].wr = None;
        }
    }

    /// Whether cycles of idle inputs ([`Inputs::is_idle`]) change nothing any output will ever
    /// show, and no PFC frame is pending: no sort running or pending, no increment in its pipeline
    /// (and the pipeline's fields at what an idle cycle loads), D and the D last sent 0 on every
    /// port. Every register and RAM then stays as it is but the refresh timers, which count down;
    /// with D and the D sent both 0 no output depends on them (a port's frame is pending as soon as
    /// D rises, and taking it reloads the timer), so they may stop instead. A switch of a network
    /// stops clocking such a block while its inputs stay idle (`crate::switch::Switch`); the tests
    /// compare that with clocking every cycle. Never with a fault injected or coverage counted
    /// (they see every cycle).
    pub fn quiescent(&self) -> bool {
        self.fault.is_none()
            && self.cov.is_none()
            && self.sort.idle()
            && !self.egress.inc_v_q
            && !self.egress.wr_v_q
            && (
                self.egress.inc_o_q,
                self.egress.inc_l_q,
                self.egress.inc_i_q,
            ) == (0, 0, 0)
            && self.d.iter().all(|&d| d == 0)
            && self.pfc.sent_q.iter().all(|&s| s == 0)
    }

    /// One clock cycle: writes this cycle's outputs into `out`, then updates the registers.
    pub fn tick_cycle(&mut self, inp: &Inputs, out: &mut Outputs) {
        let p = self.params;
        self.outputs(inp, out);
        let (arr_accept, enq_accept) = (out.arr_accept, out.enq_accept);

        if let Some(mut cov) = self.cov.take() {
            self.observe(&mut cov, inp, out);
            self.cov = Some(cov);
        }

        // Every unit reads the registers as they were at the start of the cycle: first what this
        // cycle does (pure), then the RAM reads (read-first), then the writes.
        let f = self.fault;
        self.egress.events(
            &p,
            &self.cfg,
            &inp.deq,
            inp.enq.as_ref(),
            enq_accept,
            f,
            &mut self.ev,
        );
        let st2 = self.egress.stage2(&p, f);
        self.sort.tick(
            &p,
            &self.cfg,
            &self.egress,
            &self.ev,
            inp.rst,
            f,
            &mut self.so,
        );
        self.egress.read_ports(&p, &self.ev, &self.so.reads);
        if inp.rst {
            self.reset();
            return;
        }
        let e_changed = self
            .egress
            .commit(&p, &self.cfg, &self.ev, st2, &self.so.swr, f);
        let taken = if f.is(Fault::ReadyIgnored) {
            out.pfc_valid
        } else {
            out.pfc_valid & inp.pfc_ready
        };
        self.pfc.tick(&self.cfg, &self.d, taken, f);
        let i_changed = self
            .ingress
            .tick(&p, &self.cfg, inp.dep.as_ref(), &inp.arr, arr_accept, f);
        let mut lossless_changed = false;
        if let Some((a, data)) = inp.cfg {
            let before = self.cfg.lossless_q;
            self.cfg.write(&p, a, data, f);
            lossless_changed = a == addr::LOSSLESS && self.cfg.lossless_q != before;
        }
        if lossless_changed {
            self.recompute_d_all();
        } else if e_changed | i_changed != 0 {
            self.compute_d(e_changed | i_changed);
        }
    }

    /// Count the corners this cycle hits, from the registers and the inputs (before the update).
    ///
    /// (Long: one test a coverage point, each a few lines.)
    fn observe(&self, cov: &mut Coverage, inp: &Inputs, out: &Outputs) {
        let p = &self.params;
        let c = &self.cfg;
        let (arr_accept, enq_accept) = (out.arr_accept, out.enq_accept);
        if inp.rst {
            if (0..p.nq()).any(|q| self.egress.occ(q) != 0 || self.ingress.occ(q) != 0) {
                cov.hit(Point::ResetWithTraffic);
            }
            return;
        }
        if let Some((a, d)) = inp.cfg {
            match super::cfg::CfgRegs::width(p, a) {
                None => cov.hit(Point::CfgUnknownAddr),
                Some(w) if w < 32 && d >> w != 0 => cov.hit(Point::CfgOverwide),
                Some(_) => {}
            }
        }
        for (i, a) in inp.arr.iter().enumerate() {
            let Some(pkt) = a else { continue };
            let pr = usize::from(pkt.prio & 7);
            let q = i * NPRIO + pr;
            if arr_accept >> i & 1 == 0 {
                cov.hit(Point::IngReject);
                continue;
            }
            if pkt.size == 0 {
                cov.hit(Point::SizeZero);
            }
            if self.ingress.occ(q) + p.units(pkt.size) == c.ing_max_q[pr] {
                cov.hit(Point::IngFitExact);
            }
            if inp
                .dep
                .is_some_and(|d| usize::from(d.port) == i && usize::from(d.prio & 7) == pr)
            {
                cov.hit(Point::IngDepArrSameQueue);
            }
            if c.lossless(pr) && self.ingress.xoff_q[i] >> pr & 1 == 0 {
                let mid = match inp.dep {
                    Some(d) if usize::from(d.port) == i && usize::from(d.prio & 7) == pr => {
                        self.ingress.occ(q).wrapping_sub(p.units(d.size))
                    }
                    _ => self.ingress.occ(q),
                };
                if mid.wrapping_add(p.units(pkt.size)) & p.occ_mask() > c.ing_xoff_q[pr] {
                    cov.hit(Point::IngXoffSet);
                }
            }
        }
        if let Some(d) = inp.dep {
            let pr = usize::from(d.prio & 7);
            if usize::from(d.port) < p.np {
                let q = usize::from(d.port) * NPRIO + pr;
                if self.ingress.occ(q).wrapping_sub(p.units(d.size)) & p.occ_mask()
                    == c.ing_xon_q[pr]
                {
                    cov.hit(Point::IngDepAtXon);
                }
            }
        }
        let deq_mid = |o: usize, pr: usize| -> Option<u32> {
            inp.deq[o]
                .filter(|d| usize::from(d.prio & 7) == pr)
                .map(|d| {
                    self.egress
                        .occ(o * NPRIO + pr)
                        .wrapping_sub(p.units(d.size))
                        & p.occ_mask()
                })
        };
        // Rows cleared this cycle: (port, class).
        let mut cleared: Vec<(usize, usize)> = vec![];
        for (o, d) in inp.deq.iter().enumerate() {
            let Some(d) = d else { continue };
            let pr = usize::from(d.prio & 7);
            let mid = deq_mid(o, pr).unwrap();
            if mid == c.eg_warn_q[pr] {
                cov.hit(Point::EgDeqAtWarn);
            }
            if mid == c.eg_xon_q[pr] {
                cov.hit(Point::EgDeqAtXon);
            }
            if let (true, Some(l)) = (mid <= c.eg_warn_q[pr], c.counted(p, pr)) {
                cleared.push((o, l));
                if self.sort.pending(o, l) {
                    cov.hit(Point::PendingDropped);
                }
                if self.sort.busy(o) && self.sort.row_q[o] as usize == l {
                    cov.hit(Point::SortCancelled);
                }
                let eg = &self.egress;
                if eg.inc_v_q && eg.inc_o_q as usize == o && eg.inc_l_q as usize == l {
                    cov.hit(Point::ClearDuringWrite);
                }
            }
        }
        let mut trig = None;
        if let Some(e) = &inp.enq {
            if Egress::enq_ok(p, e) {
                let pr = usize::from(e.prio & 7);
                let o = usize::from(e.oport);
                let q = o * NPRIO + pr;
                let u = p.units(e.size);
                if !enq_accept {
                    cov.hit(Point::EgReject);
                } else {
                    if self.egress.occ(q) + u == c.eg_max_q[pr] {
                        cov.hit(Point::EgFitExact);
                    }
                    if deq_mid(o, pr).is_some() {
                        cov.hit(Point::EgDeqEnqSameQueue);
                    }
                    let mid = deq_mid(o, pr).unwrap_or(self.egress.occ(q));
                    let occ = (mid + u) & p.occ_mask();
                    if let Some(l) = c.counted(p, pr) {
                        if occ == c.eg_warn_q[pr] {
                            cov.hit(Point::EgAtWarn);
                        }
                        if occ == c.eg_xoff_q[pr] {
                            cov.hit(Point::EgAtXoff);
                        }
                        if occ >= c.eg_warn_q[pr] {
                            let i = usize::from(e.iport);
                            if cleared.contains(&(o, l)) {
                                cov.hit(Point::ClearAndIncSameCycle);
                            } else if self.counter(o, l, i) == p.cnt_max() {
                                cov.hit(Point::CntSaturated);
                            }
                            let eg = &self.egress;
                            if eg.inc_v_q && eg.inc_o_q as usize == o && eg.inc_l_q as usize == l {
                                if eg.inc_i_q as usize == i {
                                    cov.hit(Point::FwdCounter);
                                } else {
                                    cov.hit(Point::RowBackToBack);
                                }
                            }
                        }
                        if c.sort_enabled() && occ > c.eg_xoff_q[pr] {
                            cov.hit(Point::EgOverXoff);
                            trig = Some((o, l));
                        }
                        if !c.sort_enabled() && occ > c.eg_xoff_q[pr] {
                            cov.hit(Point::ModeOffOverXoff);
                        }
                    }
                }
            }
        }
        let s = &self.sort;
        if s.busy_q.count_ones() >= 2 {
            cov.hit(Point::EnginesMany);
        }
        let nll = (c.lossless_q.count_ones() as usize).min(p.nl);
        for o in 0..p.np {
            let n = s.pend_q[o].count_ones() as usize;
            if n >= 2 {
                cov.hit(Point::PendingMany);
            }
            if nll > 1 && n == nll {
                cov.hit(Point::PendingAllLossless);
            }
            if !s.busy(o) {
                if n > 0 && c.mode_q.value() == 3 {
                    cov.hit(Point::Mode3Sort);
                }
                continue;
            }
            let (k, row, ph) = (s.k_q[o] as usize, s.row_q[o] as usize, s.ph_q[o]);
            if trig == Some((o, row)) {
                cov.hit(Point::TrigDuringOwnSort);
            }
            if cleared.contains(&(o, row)) {
                continue;
            }
            let eg = &self.egress;
            if k >= 1
                && (ph == phase::MAX || ph == phase::COPY)
                && eg.wr_v_q
                && eg.wr_o_q as usize == o
                && eg.wr_l_q as usize == row
                && eg.wr_i_q as usize == k - 1
            {
                cov.hit(Point::SortReadFwd);
            }
            let x = if k >= 1 { s.x(p, eg, o) } else { 0 };
            let v = s.v_q[o];
            if k >= 1 && (ph == phase::MAX || ph == phase::COPY) && x == p.cnt_max() {
                cov.hit(Point::SatReadBySort);
            }
            if k >= 1
                && ph == phase::SEL
                && s.tgt_q[o] != 0
                && u64::from(s.acc_q[o]) << p.cut_f == s.tgt_q[o]
            {
                cov.hit(Point::CalExactTarget);
            }
            if k >= 1 && x != 0 && x == v {
                if ph == phase::MAX {
                    cov.hit(Point::TieBroken);
                }
                if ph == phase::SEL && u64::from(s.acc_q[o]) << p.cut_f >= s.tgt_q[o] {
                    cov.hit(Point::TieBroken);
                }
            }
            if k == p.np {
                if ph == phase::MAX {
                    cov.hit(Point::SortMaxDone);
                } else if ph == phase::SEL {
                    cov.hit(Point::SortCalDone);
                    if c.cut_q == 1 {
                        cov.hit(Point::CutMinStep);
                    }
                    if c.cut_q == 1 << p.cut_f {
                        cov.hit(Point::CutOne);
                    }
                }
            }
        }
        let taken = out.pfc_valid & inp.pfc_ready;
        for (i, &d) in self.d.iter().enumerate() {
            let sent = self.pfc.sent_q[i];
            let valid = out.pfc_valid >> i & 1 == 1;
            if valid && inp.pfc_ready >> i & 1 == 0 {
                cov.hit(Point::MacBusy);
            }
            if taken >> i & 1 == 0 {
                continue;
            }
            if d & !sent != 0 {
                cov.hit(Point::FrameXoff);
            }
            if sent & !d != 0 {
                cov.hit(Point::FrameXon);
            }
            if d == sent && d != 0 {
                cov.hit(Point::FrameRefresh);
            }
            if d & !sent != 0 && sent & !d != 0 {
                cov.hit(Point::FrameMerged);
            }
        }
    }
}
