//! The upstream peer of an input port: sends its flows' packets at line rate, obeys PFC frames, and
//! chooses the priority with the scenario's `[scheduler]` (the same ETS as the switch's egress ports,
//! [`super::sched`]: strict priority first, then WDRR; all strict without the table), round robin
//! across a priority's flows.
//!
//! One table for both sides because in the paper's fat tree the peer of a switch port is a server's
//! NIC or another switch of the same network, configured with the same traffic classes.
//!
//! A PFC frame pauses class p for `quanta[p]` × 64 cycles (512 bit times) from the cycle it takes
//! effect, or resumes it (quanta 0). A frame already being sent is never pre-empted: the pause is
//! looked at only when the next frame would start.

use super::scenario::{FlowSpec, Scenario};
use super::sched::{Ets, EtsState, Head};
use super::{Packet, FRAME_OVERHEAD};
use crate::block::NPRIO;
use std::collections::VecDeque;

/// Cycles (byte times) of one pause quantum: 512 bit times.
pub const QUANTUM_CYCLES: u64 = 64;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Sender {
    pub port: usize,
    /// This port's flows, by start time.
    flows: Vec<usize>,
    next: usize,
    active: [VecDeque<usize>; NPRIO],
    pub pause_until: [u64; NPRIO],
    busy_until: u64,
    /// The scheduler's configuration and registers.
    #[serde(default)]
    ets: Ets,
    #[serde(default)]
    sched: EtsState,
}

impl Sender {
    /// The peer of input `port` in scenario `sc`.
    pub fn for_scenario(port: usize, sc: &Scenario) -> Self {
        Sender {
            ets: sc.scheduler.ets(sc.mtu),
            ..Self::new(port, &sc.flows)
        }
    }

    /// A peer sending its flows of `all`, every priority strict.
    pub fn new(port: usize, all: &[FlowSpec]) -> Self {
        let mut flows: Vec<usize> = (0..all.len()).filter(|&f| all[f].src == port).collect();
        flows.sort_by_key(|&f| (all[f].start, f));
        Sender {
            port,
            flows,
            next: 0,
            active: Default::default(),
            pause_until: [0; NPRIO],
            busy_until: 0,
            ets: Ets::default(),
            sched: EtsState::default(),
        }
    }

    /// Flow `f` of `all` (its start not before any this sender has already started) joins this
    /// sender: `capfc step`'s `poke packet`.
    pub fn add_flow(&mut self, f: usize, all: &[FlowSpec]) {
        let key = |g: usize| (all[g].start, g);
        let pos = self.next + self.flows[self.next..].partition_point(|&g| key(g) < key(f));
        self.flows.insert(pos, f);
    }

    /// A frame from the switch: pause or resume the classes in `cev`.
    pub fn apply_pfc(&mut self, now: u64, cev: u8, quanta: &[u16; NPRIO]) {
        for (p, (until, &q)) in self.pause_until.iter_mut().zip(quanta).enumerate() {
            if cev >> p & 1 == 1 {
                *until = now + u64::from(q) * QUANTUM_CYCLES;
            }
        }
    }

    /// Start the next frame if the link is free: the packet, or None.
    pub fn tick(
        &mut self,
        now: u64,
        all: &[FlowSpec],
        remaining: &mut [u64],
        mtu: u16,
    ) -> Option<Packet> {
        while self.next < self.flows.len() && all[self.flows[self.next]].start <= now {
            let f = self.flows[self.next];
            self.active[usize::from(all[f].prio)].push_back(f);
            self.next += 1;
        }
        if now < self.busy_until {
            return None;
        }
        let (active, paused) = (&self.active, &self.pause_until);
        let p = self.sched.select(&self.ets, |p| match active[p].front() {
            None => Head::Empty,
            Some(_) if paused[p] > now => Head::Blocked,
            Some(&f) => Head::Ready(remaining[f].min(u64::from(mtu)) as u32),
        })?;
        let f = self.active[p].pop_front().unwrap();
        let size = remaining[f].min(u64::from(mtu));
        remaining[f] -= size;
        if remaining[f] > 0 {
            self.active[p].push_back(f);
        }
        self.sched.sent(&self.ets, p, self.active[p].is_empty());
        self.busy_until = now + size + FRAME_OVERHEAD;
        let fl = &all[f];
        Some(Packet {
            flow: f as u32,
            src: fl.src as u8,
            dst: fl.dst as u8,
            prio: fl.prio,
            size: size as u16,
        })
    }

    /// Add this cycle to the paused time of each paused class.
    pub fn count_paused(&self, now: u64, paused: &mut [u64]) {
        for (count, &until) in paused.iter_mut().zip(&self.pause_until) {
            if until > now {
                *count += 1;
            }
        }
    }
}
