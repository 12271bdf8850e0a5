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
    /// `timer_q[i]`: cycles until the next refresh is due.
    pub timer_q: Vec<u16>,
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
            timer_q: vec![0; p.np],
            valid_q: 0,
            cev_q: vec![0; p.np],
            quanta_q: vec![0; p.nq()],
        }
    }

    /// The clocked update from this cycle's D (`d_state`, one byte per port).
    pub fn tick(&mut self, cfg: &CfgRegs, d_state: &[u8]) {
        let mut valid = 0u128;
        for (i, &d) in d_state.iter().enumerate() {
            let prev = self.prev_q[i];
            let t = self.timer_q[i];
            let was_valid = self.valid_q >> i & 1 == 1;
            if d == 0 && prev == 0 && t == 0 && !was_valid {
                // Idle port: every register keeps its value (all zero).
                continue;
            }
            let change = d != prev;
            let emit = change || (d != 0 && t == 0);
            if emit {
                valid |= 1u128 << i;
                self.cev_q[i] = d | prev;
                for p in 0..NPRIO {
                    self.quanta_q[i * NPRIO + p] = if d >> p & 1 == 1 { cfg.quanta_q } else { 0 };
                }
                self.timer_q[i] = cfg.refresh_q;
            } else {
                if was_valid {
                    self.cev_q[i] = 0;
                    self.quanta_q[i * NPRIO..(i + 1) * NPRIO].fill(0);
                }
                self.timer_q[i] = t.saturating_sub(1);
            }
            self.prev_q[i] = d;
        }
        self.valid_q = valid;
    }
}
