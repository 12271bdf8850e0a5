//! `capfc_top`: the CaPFC block, wiring the units together and computing D.
//!
//! Contract: docs/microarchitecture.md. `d_state[i*8+p] = I[i][p] | OR over o != i of E[o][p][i]`,
//! combinational from the registers. Each call of [`CapfcTop::tick_cycle`] is one clock cycle: it
//! returns the outputs as they are before the rising edge that ends the cycle, then updates every
//! register as that edge does.

use super::cfg::CfgRegs;
use super::egress::{Egress, EgressEvents, EgressFaults};
use super::ingress::Ingress;
use super::pfc_gen::PfcGen;
use super::sort::Sort;
use super::{BlockParams, ConfigError, Inputs, Outputs, NPRIO};

/// A deliberate bug, for showing that the lockstep checker and the golden replay catch one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The WARN comparator counts on `occupancy > WARN` instead of `>=`.
    WarnOffByOne,
    /// The XON comparator clears E on `occupancy < XON` instead of `<=`.
    XonOffByOne,
}

impl std::str::FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "warn_off_by_one" => Ok(Fault::WarnOffByOne),
            "xon_off_by_one" => Ok(Fault::XonOffByOne),
            _ => Err(format!(
                "unknown fault '{s}' (warn_off_by_one, xon_off_by_one)"
            )),
        }
    }
}

/// The whole block: every register of `capfc_top`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CapfcTop {
    pub params: BlockParams,
    pub cfg: CfgRegs,
    pub ingress: Ingress,
    pub egress: Egress,
    pub sort: Sort,
    pub pfc: PfcGen,
    /// D per port (combinational; cached and recomputed when I or E change).
    d: Vec<u8>,
    #[serde(skip)]
    fault: Option<Fault>,
    #[serde(skip)]
    ev: EgressEvents,
}

impl CapfcTop {
    /// The block out of reset.
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
        })
    }

    /// Inject a deliberate bug (tests of the checkers only).
    pub fn inject_fault(&mut self, f: Option<Fault>) {
        self.fault = f;
    }

    /// D per port, bit p for priority p.
    pub fn d_state(&self) -> &[u8] {
        &self.d
    }

    fn compute_d(&mut self) {
        let np = self.params.np;
        self.d.copy_from_slice(&self.ingress.xoff_q);
        for pr in 0..NPRIO {
            let mut acc = 0u128;
            for o in 0..np {
                acc |= self.egress.e_q[o * NPRIO + pr] & !(1u128 << o);
            }
            while acc != 0 {
                let i = acc.trailing_zeros() as usize;
                acc &= acc - 1;
                self.d[i] |= 1 << pr;
            }
        }
    }

    fn reset(&mut self) {
        let p = self.params;
        self.cfg = CfgRegs::default();
        self.ingress = Ingress::new(&p);
        self.egress = Egress::new(&p);
        self.sort = Sort::new(&p);
        self.pfc = PfcGen::new(&p);
        self.d.fill(0);
    }

    /// One clock cycle: writes this cycle's outputs into `out`, then updates the registers.
    pub fn tick_cycle(&mut self, inp: &Inputs, out: &mut Outputs) {
        let p = self.params;
        // Combinational outputs, from the registers and this cycle's inputs.
        let mut arr_accept = 0u128;
        for (i, a) in inp.arr.iter().enumerate() {
            if let Some(pkt) = a {
                if self.ingress.accept(&p, &self.cfg, i, pkt) {
                    arr_accept |= 1u128 << i;
                }
            }
        }
        let enq_accept = inp
            .enq
            .as_ref()
            .is_some_and(|e| self.egress.accept(&p, &self.cfg, e));
        out.arr_accept = arr_accept;
        out.enq_accept = enq_accept;
        out.pfc_valid = self.pfc.valid_q;
        out.pfc_cev.copy_from_slice(&self.pfc.cev_q);
        out.pfc_quanta.copy_from_slice(&self.pfc.quanta_q);
        out.d_state.copy_from_slice(&self.d);

        if inp.rst {
            self.reset();
            return;
        }

        // The clocked update. Every unit reads the registers as they were at the start of the cycle.
        let faults = EgressFaults {
            warn_gt: self.fault == Some(Fault::WarnOffByOne),
            xon_lt: self.fault == Some(Fault::XonOffByOne),
        };
        self.egress.tick_occupancy(
            &p,
            &self.cfg,
            &inp.deq,
            inp.enq.as_ref(),
            enq_accept,
            faults,
            &mut self.ev,
        );
        let wr = self.sort.tick(&p, &self.cfg, &self.egress, &self.ev);
        let e_changed = self.egress.tick_table(&p, &self.ev, wr);
        self.pfc.tick(&self.cfg, &self.d);
        let i_changed = self
            .ingress
            .tick(&p, &self.cfg, inp.dep.as_ref(), &inp.arr, arr_accept);
        if let Some((a, data)) = inp.cfg {
            self.cfg.write(&p, a, data);
        }
        if e_changed || i_changed {
            self.compute_d();
        }
    }
}
