//! `capfc_v2_pfc_gen`: a pending PFC frame per input port, handed to the MAC with valid/ready.
//!
//! Contract (docs/microarchitecture-v2.md, "PFC frames"): port i has a frame to send while its D
//! differs from the D of the last frame the MAC took, or while D is up and the refresh timer has run
//! out. The frame carries the current state: class-enable vector `d | sent`, XOFF for the classes in
//! D, resume for the others. The MAC takes it in a cycle with `pfc_ready[i]` high; then `sent = d`
//! and the timer reloads `refresh`. Changes made while the MAC is busy merge into the pending frame,
//! so none is lost. Reset: nothing sent, timers 0.

use super::cfg::CfgRegs;
use super::fault::{Fault, Injected};
use super::BlockParams;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PfcGen {
    /// `sent_q`, one byte per port: the D of the last frame taken.
    pub sent_q: Vec<u8>,
    /// The refresh timers as deadlines: `timer_q[i] = deadline[i] - now`, saturating at 0. The
    /// register counts down by one a cycle; keeping the cycle at which it reaches 0 instead gives the
    /// same value on every cycle.
    deadline: Vec<u64>,
    now: u64,
}

impl PfcGen {
    pub fn new(p: &BlockParams) -> Self {
        PfcGen {
            sent_q: vec![0; p.np],
            deadline: vec![0; p.np],
            now: 0,
        }
    }

    /// `timer_q[i]`: cycles until port i's next refresh is due.
    pub fn timer(&self, i: usize) -> u16 {
        self.deadline[i].saturating_sub(self.now) as u16
    }

    /// Set `timer_q[i]` (a restored register).
    pub fn set_timer(&mut self, i: usize, v: u16) {
        self.deadline[i] = self.now + u64::from(v);
    }

    /// `pfc_valid[i]` for D `d` of port i.
    #[inline]
    pub fn valid(&self, i: usize, d: u8) -> bool {
        d != self.sent_q[i] || (d != 0 && self.now >= self.deadline[i])
    }

    /// The combinational outputs: valid mask, and per port the class-enable and XOFF vectors.
    pub fn outputs(
        &self,
        d_state: &[u8],
        cev: &mut [u8],
        xoff: &mut [u8],
        f: Option<Fault>,
    ) -> u128 {
        let mut valid = 0u128;
        let resumed = !f.is(Fault::XonNotSent);
        for (i, &d) in d_state.iter().enumerate() {
            cev[i] = d | if resumed { self.sent_q[i] } else { 0 };
            xoff[i] = d;
            if self.valid(i, d) {
                valid |= 1u128 << i;
            }
        }
        valid
    }

    /// The clocked update: the frames taken this cycle (`taken`, bit i) carry `d_state`.
    pub fn tick(&mut self, cfg: &CfgRegs, d_state: &[u8], taken: u128, f: Option<Fault>) {
        let late = u64::from(f.is(Fault::RefreshLate));
        let now = self.now;
        self.now += 1;
        let mut t = taken;
        while t != 0 {
            let i = t.trailing_zeros() as usize;
            t &= t - 1;
            self.sent_q[i] = d_state[i];
            self.deadline[i] = now + 1 + late + u64::from(cfg.refresh_q);
        }
    }
}
