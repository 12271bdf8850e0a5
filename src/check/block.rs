//! Our own block (`capfc_top`, micro-architecture v2) seen by the reference checker: its parameters,
//! its envelope (its exact latencies, from `docs/microarchitecture.md`), and its ports turned into
//! checker cycles. The same adapter serves the cycle model and the RTL: both have these ports.

use super::{Cycle, Envelope, Frame, Lane, Params, Window};
use crate::block::cfg::CfgRegs;
use crate::block::{BlockConfig, BlockParams, Inputs, Outputs, NPRIO};

/// The checker's view of a parameter set.
pub fn params_of(p: &BlockParams) -> Params {
    Params {
        np: p.np,
        cell_log2: p.cell_log2,
        cw: p.cw,
        cut_f: p.cut_f,
    }
}

/// `capfc_top`'s envelope: every latency exact, as the contract's latency table states it, with
/// the worst case under contention (every counted class of a port asking at once, and the row's
/// own sort already running: `(NL + 1)` sorts, plus the grant cycle).
pub fn envelope_of(p: &BlockParams) -> Envelope {
    let (np, nl, cw) = (p.np as u64, p.nl as u64, u64::from(p.cw));
    let s_max = np + 2;
    let s_cal = (cw + 3) * (np + 1) + 2;
    Envelope {
        accept_latency: 0,
        // `arr_accept`/`enq_accept` compare the occupancy of the cycle's start (the contract).
        accept_sees_removals: false,
        snapshot_stride: 1,
        ingress: Window::exact(1),
        e_clear: Window::exact(1),
        stop_max: Window {
            min: np + 3,
            max: (nl + 1) * s_max + 1,
        },
        stop_cal: Window {
            min: (cw + 2) * (np + 1) + 5,
            max: (nl + 1) * s_cal + 1,
        },
        frame: Window::exact(0),
        refresh: Window::exact(1),
        reset: 1,
        link_bits_per_cycle: 8,
    }
}

/// Turns `capfc_top`'s inputs and outputs of a cycle into a checker [`Cycle`]. It decodes the
/// configuration writes through the block's register map (a reset returns it to zeros).
#[derive(Debug, Clone)]
pub struct Adapter {
    p: BlockParams,
    regs: CfgRegs,
}

impl Adapter {
    pub fn new(p: &BlockParams) -> Self {
        Adapter {
            p: *p,
            regs: CfgRegs::default(),
        }
    }

    /// The configuration the registers hold now.
    pub fn config(&self) -> BlockConfig {
        BlockConfig::from_regs(&self.regs)
    }

    pub fn cycle(&mut self, inp: &Inputs, out: &Outputs) -> Cycle {
        let np = self.p.np;
        let mut c = Cycle::new(np);
        c.rst = inp.rst;
        if inp.rst {
            self.regs = CfgRegs::default();
            c.config = Some(self.config());
        } else if let Some((a, d)) = inp.cfg {
            let before = self.regs.clone();
            self.regs.write(&self.p, a, d, None);
            if self.regs != before {
                c.config = Some(self.config());
            }
        }
        for (i, a) in inp.arr.iter().enumerate() {
            if let Some(a) = a {
                c.lanes.push(Lane::Arrive {
                    port: i,
                    prio: usize::from(a.prio & 7),
                    size: u32::from(a.size),
                });
                c.accepts.push(out.arr_accept >> i & 1 == 1);
            }
        }
        // A lane naming a port >= NP is not valid (the contract): it is no event.
        if let Some(d) = inp.dep.filter(|d| usize::from(d.port) < np) {
            c.lanes.push(Lane::Depart {
                port: usize::from(d.port),
                prio: usize::from(d.prio & 7),
                size: u32::from(d.size),
            });
        }
        if let Some(e) = inp
            .enq
            .filter(|e| usize::from(e.oport) < np && usize::from(e.iport) < np)
        {
            c.lanes.push(Lane::Enqueue {
                oport: usize::from(e.oport),
                prio: usize::from(e.prio & 7),
                iport: usize::from(e.iport),
                size: u32::from(e.size),
            });
            c.accepts.push(out.enq_accept);
        }
        for (o, d) in inp.deq.iter().enumerate() {
            if let Some(d) = d {
                c.lanes.push(Lane::Dequeue {
                    oport: o,
                    prio: usize::from(d.prio & 7),
                    size: u32::from(d.size),
                });
            }
        }
        c.d.copy_from_slice(&out.d_state);
        c.ready = inp.pfc_ready & crate::block::mask128(np);
        for i in 0..np {
            if (out.pfc_valid & inp.pfc_ready) >> i & 1 == 1 {
                let mut quanta = [None; NPRIO];
                for (p, q) in quanta.iter_mut().enumerate() {
                    if out.pfc_cev[i] >> p & 1 == 1 {
                        *q = Some(out.quanta(i, p));
                    }
                }
                c.frames.push(Frame { port: i, quanta });
            }
        }
        c
    }
}

/// Run the cycle model (with an optional fault) on a stimulus and check it with its own envelope.
/// Returns what was checked and the violations, first ones first (at most `limit` kept).
pub fn check_model(
    p: &BlockParams,
    stim: &mut dyn crate::stimulus::Stimulus,
    fault: Option<crate::block::Fault>,
    limit: usize,
) -> Result<(super::Summary, Vec<super::Violation>), String> {
    let mut top = crate::block::CapfcTop::new(*p).map_err(|e| e.to_string())?;
    top.inject_fault(fault);
    let mut ad = Adapter::new(p);
    let mut ck = super::Checker::new(params_of(p), ad.config(), envelope_of(p), true)?;
    let mut inp = Inputs::idle(p.np);
    let mut out = Outputs::new(p.np);
    let mut found = vec![];
    loop {
        inp.clear();
        if !stim.next(&mut inp) {
            break;
        }
        top.tick_cycle(&inp, &mut out);
        stim.observe(&inp, &out);
        let c = ad.cycle(&inp, &out);
        for v in ck.step(c) {
            if found.len() < limit {
                found.push(v);
            }
        }
    }
    for v in ck.finish() {
        if found.len() < limit {
            found.push(v);
        }
    }
    Ok((ck.summary().clone(), found))
}
