//! The untimed reference: `shared/domain.md` section 3 transcribed one event at a time.
//!
//! It shares no code with the cycle model (`crate::block`) beyond the configuration types, so that
//! the property test comparing them compares two readings of the contract, not one reading twice.

use crate::block::{BlockConfig, BlockParams, Mode, NPRIO};

/// One event of section 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    /// s bytes arrive at ingress (port, prio).
    Arrive { port: usize, prio: usize, size: u16 },
    /// s bytes leave ingress (port, prio) into the pipeline.
    Depart { port: usize, prio: usize, size: u16 },
    /// A packet from `iport` asks for egress queue (oport, prio).
    Enqueue {
        oport: usize,
        prio: usize,
        iport: usize,
        size: u16,
    },
    /// A packet leaves egress queue (oport, prio).
    Dequeue {
        oport: usize,
        prio: usize,
        size: u16,
    },
}

/// The state of section 3: occupancies, I, C, E.
#[derive(Debug, Clone)]
pub struct Reference {
    np: usize,
    cell: u64,
    cnt_max: u64,
    cut_f: u32,
    cfg: BlockConfig,
    /// `B_in[i][p]`
    pub b_in: Vec<u64>,
    /// `I[i][p]`
    pub i: Vec<bool>,
    /// `B[o][p]`
    pub b: Vec<u64>,
    /// `C[o][p][i]` at index `(o*8+p)*NP + i`
    pub c: Vec<u64>,
    /// `E[o][p][i]` at index `(o*8+p)*NP + i`
    pub e: Vec<bool>,
}

impl Reference {
    pub fn new(p: &BlockParams, cfg: &BlockConfig) -> Self {
        let nq = p.np * NPRIO;
        Reference {
            np: p.np,
            cell: 1u64 << p.cell_log2,
            cnt_max: (1u64 << p.cw) - 1,
            cut_f: p.cut_f,
            cfg: cfg.clone(),
            b_in: vec![0; nq],
            i: vec![false; nq],
            b: vec![0; nq],
            c: vec![0; nq * p.np],
            e: vec![false; nq * p.np],
        }
    }

    fn size(&self, s: u16) -> u64 {
        u64::from(s).div_ceil(self.cell)
    }

    fn lossless(&self, p: usize) -> bool {
        self.cfg.lossless >> p & 1 == 1
    }

    /// Apply one event. Returns whether an arrival or an enqueue was accepted (true otherwise).
    pub fn apply(&mut self, ev: Event) -> bool {
        match ev {
            Event::Arrive { port, prio, size } => {
                let (q, s, t) = (port * NPRIO + prio, self.size(size), self.cfg.prio[prio]);
                if self.b_in[q] + s > u64::from(t.ing_max) {
                    return false;
                }
                self.b_in[q] += s;
                if self.lossless(prio) && self.b_in[q] > u64::from(t.ing_xoff) {
                    self.i[q] = true;
                }
                true
            }
            Event::Depart { port, prio, size } => {
                let (q, s, t) = (port * NPRIO + prio, self.size(size), self.cfg.prio[prio]);
                self.b_in[q] -= s;
                if self.b_in[q] <= u64::from(t.ing_xon) {
                    self.i[q] = false;
                }
                true
            }
            Event::Enqueue {
                oport,
                prio,
                iport,
                size,
            } => {
                let (q, s, t) = (oport * NPRIO + prio, self.size(size), self.cfg.prio[prio]);
                // 1. drop if it does not fit
                if self.b[q] + s > u64::from(t.eg_max) {
                    return false;
                }
                // 2. accept
                self.b[q] += s;
                if !self.lossless(prio) {
                    return true;
                }
                let row = q * self.np;
                // 3. count above WARN, saturating
                if self.b[q] >= u64::from(t.eg_warn) {
                    self.c[row + iport] = (self.c[row + iport] + 1).min(self.cnt_max);
                }
                // 4. select culprits above XOFF
                if self.cfg.mode != Mode::PfcOnly && self.b[q] > u64::from(t.eg_xoff) {
                    for i in self.select(q) {
                        self.e[row + i] = true;
                    }
                }
                true
            }
            Event::Dequeue { oport, prio, size } => {
                let (q, s, t) = (oport * NPRIO + prio, self.size(size), self.cfg.prio[prio]);
                self.b[q] -= s;
                let row = q * self.np;
                if self.b[q] <= u64::from(t.eg_warn) {
                    self.c[row..row + self.np].fill(0);
                }
                if self.b[q] <= u64::from(t.eg_xon) {
                    self.e[row..row + self.np].fill(false);
                }
                true
            }
        }
    }

    /// The culprits of queue q: Stop-Max or Stop-Calibrate (section 3, step 4).
    fn select(&self, q: usize) -> Vec<usize> {
        let c = &self.c[q * self.np..(q + 1) * self.np];
        select(c, self.cfg.mode, self.cfg.cut_fixed, self.cut_f)
    }

    /// `D[i][p] = I[i][p] or E[o][p][i]` for some `o != i`.
    pub fn d(&self, i: usize, p: usize) -> bool {
        self.i[i * NPRIO + p]
            || (0..self.np).any(|o| o != i && self.e[(o * NPRIO + p) * self.np + i])
    }
}

/// Section 3, step 4: the culprits for the counters `c` of one egress queue, in the order taken.
///
/// Stop-Max: the argmax, ties to the lowest index, none when every counter is 0. Stop-Calibrate:
/// inputs by C descending (ties lowest index first) while `S * 2^cut_f < cut_fixed * T`.
/// Shared by the untimed reference and the reference checker (`crate::check`), which asks it for
/// the selections an implementation may make from counters of other cycles.
pub fn select(c: &[u64], mode: Mode, cut_fixed: u32, cut_f: u32) -> Vec<usize> {
    // Inputs by counter, descending; ties lowest index first (a stable sort keeps index order).
    let mut order: Vec<usize> = (0..c.len()).collect();
    order.sort_by(|&a, &b| c[b].cmp(&c[a]));
    match mode {
        Mode::PfcOnly => vec![],
        Mode::StopMax => {
            // argmax; a counter of 0 contributed nothing and is never a culprit.
            if c[order[0]] > 0 {
                vec![order[0]]
            } else {
                vec![]
            }
        }
        Mode::StopCal => {
            let total: u64 = c.iter().sum();
            let cut = u64::from(cut_fixed);
            let mut s = 0u64;
            let mut taken = vec![];
            for &i in &order {
                if (s << cut_f) >= cut * total {
                    break;
                }
                s += c[i];
                taken.push(i);
            }
            taken
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> (BlockParams, BlockConfig) {
        let p = BlockParams::with_ports(4);
        let mut c = BlockConfig::paper(&p, Mode::StopCal);
        c.lossless = 1;
        for t in c.prio.iter_mut() {
            *t = crate::block::PrioThresholds {
                ing_max: 600,
                ing_xoff: 500,
                ing_xon: 400,
                eg_max: 600,
                eg_xoff: 250,
                eg_xon: 200,
                eg_warn: 200,
            };
        }
        (p, c)
    }

    #[test]
    fn stop_calibrate_takes_the_shortest_prefix_over_cut() {
        let (p, mut c) = small();
        // 204/256 = 79.7 %: 205/256 would be 80.08 %, which 4/5 does not reach.
        c.cut_fixed = 204;
        let mut r = Reference::new(&p, &c);
        // Reach WARN with input 3, then counts: input 1 x3, input 2 x1, input 3 x1.
        r.apply(Event::Enqueue {
            oport: 0,
            prio: 0,
            iport: 3,
            size: 200,
        });
        for i in [1, 1, 2] {
            r.apply(Event::Enqueue {
                oport: 0,
                prio: 0,
                iport: i,
                size: 10,
            });
        }
        assert!(!r.e.iter().any(|&e| e), "below XOFF nothing is selected");
        r.apply(Event::Enqueue {
            oport: 0,
            prio: 0,
            iport: 1,
            size: 100,
        });
        // C = [0, 3, 1, 1], T = 5: prefix {1} is 3/5 < CUT, {1, 2} is 4/5 >= CUT; ties: 2 before 3.
        assert_eq!(&r.e[0..4], &[false, true, true, false]);
        assert!(r.d(1, 0) && r.d(2, 0) && !r.d(3, 0));
    }

    #[test]
    fn dequeue_to_xon_clears_e_and_warn_clears_c() {
        let (p, mut c) = small();
        c.mode = Mode::StopMax;
        let mut r = Reference::new(&p, &c);
        r.apply(Event::Enqueue {
            oport: 0,
            prio: 0,
            iport: 2,
            size: 260,
        });
        assert!(r.e[2] && r.c[2] == 1);
        r.apply(Event::Dequeue {
            oport: 0,
            prio: 0,
            size: 60,
        });
        assert!(r.c[2] == 0 && !r.e[2], "200 <= WARN = XON clears both");
    }
}
