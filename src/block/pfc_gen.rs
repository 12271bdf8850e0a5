//! `capfc_pfc_gen`: PFC frame requests per input port.
//!
//! Contract (docs/microarchitecture.md, "Combined state and PFC frame generation"): per port, a
//! frame is requested in the cycle after D changes (XOFF with the configured quanta for every class
//! now paused, quanta 0 for the classes that resumed), and while D stays up, `refresh + 1` cycles
//! after the previous frame. The frame request outputs are registered. Reset: nothing signalled,
//! timers 0, no request.

use super::cfg::CfgRegs;
use super::{BlockParams, NPRIO};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PfcGen {
    /// `prev_q`, one byte per port: the D last signalled.
    pub prev_q: Vec<u8>,
    /// The refresh timers as deadlines: `timer_q[i] = deadline[i] - now`, saturating at 0. The
    /// register counts down by one a cycle; keeping the cycle at which it reaches 0 instead gives the
    /// same value on every cycle and lets a cycle with nothing to do skip every port.
    deadline: Vec<u64>,
    now: u64,
    /// The earliest deadline of a port whose D is up: the next possible refresh.
    next_refresh: u64,
    /// `valid_q` (output `pfc_valid`).
    pub valid_q: u128,
    /// `cev_q`, one byte per port (output `pfc_cev`).
    pub cev_q: Vec<u8>,
    /// `quanta_q[i*8+p]` (output `pfc_quanta`).
    pub quanta_q: Vec<u16>,
}

impl PfcGen {
    pub fn new(p: &BlockParams) -> Self {
        PfcGen {
            prev_q: vec![0; p.np],
            deadline: vec![0; p.np],
            now: 0,
            next_refresh: u64::MAX,
            valid_q: 0,
            cev_q: vec![0; p.np],
            quanta_q: vec![0; p.nq()],
        }
    }

    /// `timer_q[i]`: cycles until port i's next refresh is due.
    pub fn timer(&self, i: usize) -> u16 {
        self.deadline[i].saturating_sub(self.now) as u16
    }

    /// The clocked update from this cycle's D (`d_state`, one byte per port); `d_changed` says
    /// whether D may differ from what was last signalled.
    pub fn tick(&mut self, cfg: &CfgRegs, d_state: &[u8], d_changed: bool) {
        let now = self.now;
        self.now += 1;
        if !d_changed && self.valid_q == 0 && now < self.next_refresh {
            return;
        }
        let mut v = self.valid_q;
        while v != 0 {
            let i = v.trailing_zeros() as usize;
            v &= v - 1;
            self.cev_q[i] = 0;
            self.quanta_q[i * NPRIO..(i + 1) * NPRIO].fill(0);
        }
        let mut valid = 0u128;
        let mut next = u64::MAX;
        for (i, &d) in d_state.iter().enumerate() {
            let prev = self.prev_q[i];
            let change = d != prev;
            if change || (d != 0 && now >= self.deadline[i]) {
                valid |= 1u128 << i;
                self.cev_q[i] = d | prev;
                for p in 0..NPRIO {
                    self.quanta_q[i * NPRIO + p] = if d >> p & 1 == 1 { cfg.quanta_q } else { 0 };
                }
                self.deadline[i] = now + 1 + u64::from(cfg.refresh_q);
            }
            self.prev_q[i] = d;
            if d != 0 {
                next = next.min(self.deadline[i]);
            }
        }
        self.valid_q = valid;
        self.next_refresh = next;
    }
}
