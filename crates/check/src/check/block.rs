//! Our blocks seen by the reference checker: the checker's view of a parameter set, and per
//! block its envelope and its ports turned into checker cycles. The block, v3 (`capfc_top_oc`):
//! [`envelope_of_v3`] (its latencies, from `docs/microarchitecture.md`, the accept four cycles
//! after the take) and [`AdapterV3`]; the test subject v2 (`capfc_v2_top`, `check/capfc_v2`):
//! [`envelope_of`] (its exact latencies, from `docs/microarchitecture-v2.md`) and [`Adapter`].
//! Each adapter serves its block's cycle model and its RTL alike: both have these ports.

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

/// `capfc_v2_top`'s envelope: every latency exact, as the contract's latency table states it, with
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
        order: Default::default(),
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

/// A checker cycle with its reset and the configuration the register write `cfg` (address, data)
/// leaves in `regs` (capfc's register map; a reset returns it to zeros): the part both blocks'
/// adapters share.
fn config_cycle(p: &BlockParams, regs: &mut CfgRegs, rst: bool, cfg: Option<(u8, u32)>) -> Cycle {
    let mut c = Cycle::new(p.np);
    c.rst = rst;
    if rst {
        *regs = CfgRegs::default();
        c.config = Some(BlockConfig::from_regs(regs));
    } else if let Some((a, d)) = cfg {
        let before = regs.clone();
        regs.write(p, a, d, None);
        if *regs != before {
            c.config = Some(BlockConfig::from_regs(regs));
        }
    }
    c
}

/// Turns `capfc_v2_top`'s inputs and outputs of a cycle into a checker [`Cycle`]. It decodes the
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
        let mut c = config_cycle(&self.p, &mut self.regs, inp.rst, inp.cfg);
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

/// Why the model could not be checked: its parameters, or the checker's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckModelError {
    #[error(transparent)]
    Config(#[from] crate::block::ConfigError),
    #[error(transparent)]
    Checker(#[from] super::CheckerError),
}

/// For the layers that still report errors as text.
impl From<CheckModelError> for String {
    fn from(e: CheckModelError) -> String {
        e.to_string()
    }
}

/// Run the cycle model (with an optional fault) on a stimulus and check it with its own envelope.
/// Returns what was checked, the violations, first ones first (at most `limit` kept), and the
/// rules the traffic could not judge ([`super::Checker::weak`]).
pub fn check_model(
    p: &BlockParams,
    stim: &mut dyn crate::stimulus::Stimulus,
    fault: Option<crate::block::Fault>,
    limit: usize,
) -> Result<(super::Summary, Vec<super::Violation>, Vec<super::Weakness>), CheckModelError> {
    let mut top = crate::block::CapfcTop::new(*p)?;
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
    Ok((ck.summary().clone(), found, ck.weak()))
}

/// The v3 block's envelope (`capfc_top_oc`, `docs/microarchitecture.md`; the same as
/// `make v3-check` writes, mk/v3.mk): a lane taken in t is answered in t+4 (the occupancy then
/// counts the removals taken before it), D follows I and E's clear in t+6, and a sort requested
/// in t+6 is granted in t+7 and shows in D 12 cycles after the request's take plus the sort:
/// Stop-Max's pass, or Stop-Calibrate's COPY, MUL, SRCH and GT before SEL's first E write, at
/// worst after every other row of its engine (2 NL - 1 of them) and its own previous sort, each
/// with a grant cycle.
pub fn envelope_of_v3(p: &BlockParams) -> Envelope {
    let (np, nl, cw, cut_f) = (
        p.np as u64,
        p.nl as u64,
        u64::from(p.cw),
        u64::from(p.cut_f),
    );
    let s_max = np + 6;
    let s_cal = (np + 6) + (cut_f + 1) + cw.div_ceil(2) * (np + 7) + (np + 6);
    let s_more = (np + 2) + (np + 6);
    Envelope {
        accept_latency: 4,
        accept_sees_removals: true,
        order: Default::default(),
        snapshot_stride: 1,
        ingress: Window::exact(6),
        e_clear: Window::exact(6),
        stop_max: Window {
            min: 12 + s_max,
            max: 12 + (2 * nl + 1) * (s_max + 1),
        },
        stop_cal: Window {
            min: 12 + s_cal,
            max: 12 + (2 * nl + 1) * (s_cal + s_more + 1),
        },
        frame: Window::exact(0),
        refresh: Window::exact(1),
        reset: 1,
        link_bits_per_cycle: 8,
    }
}

/// Turns the v3 block's ports of a cycle (`capfc_top_oc`: v2's with the lanes' readies) into a
/// checker [`Cycle`], as `capfc check` reads them from a waveform with
/// `check/v3/capfc_top_v3.map.toml`: a lane is an event when it is valid and ready (an arrival or
/// a dequeue on its port's ready, the departure lane on `arr_ready[dep_port]`, the enqueue lane on
/// `deq_ready[enq_oport]`), and its accept is read [`envelope_of_v3`]'s `accept_latency` cycles
/// later, on its port.
#[derive(Debug, Clone)]
pub struct AdapterV3 {
    p: BlockParams,
    regs: CfgRegs,
    /// per cycle not yet answered: the arrivals' ports and whether an enqueue was taken
    waiting: std::collections::VecDeque<(Vec<usize>, bool)>,
    latency: usize,
}

impl AdapterV3 {
    pub fn new(p: &BlockParams) -> Self {
        AdapterV3 {
            p: *p,
            regs: CfgRegs::default(),
            waiting: Default::default(),
            latency: envelope_of_v3(p).accept_latency as usize,
        }
    }

    /// The configuration the registers hold now.
    pub fn config(&self) -> BlockConfig {
        BlockConfig::from_regs(&self.regs)
    }

    pub fn cycle(&mut self, inp: &crate::v3::top::TopIn, out: &crate::v3::top::TopOut) -> Cycle {
        let np = self.p.np;
        let cfg = inp.cfg_we.then_some((inp.cfg_addr, inp.cfg_wdata));
        let mut c = config_cycle(&self.p, &mut self.regs, inp.rst, cfg);
        let mut arrived = vec![];
        for i in 0..np {
            if inp.arr_valid[i] && out.arr_ready[i] {
                c.lanes.push(Lane::Arrive {
                    port: i,
                    prio: usize::from(inp.arr_prio[i] & 7),
                    size: inp.arr_size[i] as u32,
                });
                arrived.push(i);
            }
        }
        let dp = inp.dep_port as usize;
        if inp.dep_valid && dp < np && out.arr_ready[dp] {
            c.lanes.push(Lane::Depart {
                port: dp,
                prio: usize::from(inp.dep_prio & 7),
                size: inp.dep_size as u32,
            });
        }
        let (op, ip) = (inp.enq_oport as usize, inp.enq_iport as usize);
        let enqueued = inp.enq_valid && op < np && ip < np && out.deq_ready[op];
        if enqueued {
            c.lanes.push(Lane::Enqueue {
                oport: op,
                prio: usize::from(inp.enq_prio & 7),
                iport: ip,
                size: inp.enq_size as u32,
            });
        }
        for o in 0..np {
            if inp.deq_valid[o] && out.deq_ready[o] {
                c.lanes.push(Lane::Dequeue {
                    oport: o,
                    prio: usize::from(inp.deq_prio[o] & 7),
                    size: inp.deq_size[o] as u32,
                });
            }
        }
        // the answers read now: those of the lanes `latency` cycles ago, arrivals in port order,
        // then the enqueue
        self.waiting.push_back((arrived, enqueued));
        if self.waiting.len() > self.latency {
            let (ports, enq) = self.waiting.pop_front().expect("a cycle is waiting");
            c.accepts.extend(ports.iter().map(|&i| out.arr_accept[i]));
            if enq {
                c.accepts.push(out.enq_accept);
            }
        }
        c.d.copy_from_slice(&out.d_state);
        let mut ready = 0u128;
        for i in 0..np {
            if inp.pfc_ready[i] {
                ready |= 1 << i;
            }
            if !(inp.pfc_ready[i] && out.pfc_valid[i]) {
                continue;
            }
            let mut quanta = [None; NPRIO];
            for (p, q) in quanta.iter_mut().enumerate() {
                if out.pfc_cev[i] >> p & 1 == 1 {
                    *q = Some(if out.pfc_xoff[i] >> p & 1 == 1 {
                        out.pfc_quanta
                    } else {
                        0
                    });
                }
            }
            c.frames.push(Frame { port: i, quanta });
        }
        c.ready = ready;
        c
    }
}
