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

use super::config::WireRate;
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
    /// The classes' pauses.
    #[serde(flatten)]
    pub pause: Pauses,
    busy_until: u64,
    /// The scheduler's configuration and registers.
    #[serde(default)]
    ets: Ets,
    #[serde(default)]
    sched: EtsState,
    /// The first cycle at which [`Sender::tick`] can do anything: calls before it are skipped
    /// (idle senders cost nothing). Any outside change (a PFC frame, a new flow) brings it forward.
    wake: u64,
    /// The cycle of the last call that found nothing to send; the calls skipped since then are
    /// accounted to the scheduler at the next one ([`EtsState::skip_blocked`]).
    blocked_at: Option<u64>,
    /// The speed of this sender's link against the clock (a network's slower links; 1/1 on a
    /// single switch): a frame's wire time and a pause quantum scale with it.
    #[serde(default)]
    rate: WireRate,
}

impl Sender {
    /// The peer of input `port` in scenario `sc`.
    pub fn for_scenario(port: usize, sc: &Scenario) -> Self {
        Self::with_flows(port, &sc.flows, sc)
    }

    /// A sender of its flows among `all` (those whose `src` is `port`) with the scheduler of `sc`
    /// (a host of a network: `all` are the network's flows).
    pub fn with_flows(port: usize, all: &[FlowSpec], sc: &Scenario) -> Self {
        Sender {
            ets: sc.scheduler.ets(sc.mtu),
            ..Self::new(port, all)
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
            pause: Pauses::default(),
            busy_until: 0,
            ets: Ets::default(),
            sched: EtsState::default(),
            wake: 0,
            blocked_at: None,
            rate: WireRate::CLOCK,
        }
    }

    /// This sender's link runs at `rate` against the clock.
    pub fn set_rate(&mut self, rate: WireRate) {
        self.rate = rate;
    }

    /// Flow `f` of `all` (its start not before any this sender has already started) joins this
    /// sender: `capfc step`'s `poke packet`.
    pub fn add_flow(&mut self, f: usize, all: &[FlowSpec]) {
        let key = |g: usize| (all[g].start, g);
        let pos = self.next + self.flows[self.next..].partition_point(|&g| key(g) < key(f));
        self.flows.insert(pos, f);
        self.wake = self.wake.min(all[f].start);
    }

    /// Flow `f`, which had sent all its bytes (`remaining` was 0), has lost bytes to send again.
    pub fn reactivate(&mut self, f: usize, prio: u8, now: u64) {
        self.active[usize::from(prio)].push_back(f);
        self.wake = self.wake.min(now);
    }

    /// The first cycle at which [`Sender::tick`] may start a frame or take in a flow.
    #[inline]
    pub fn wake(&self) -> u64 {
        self.wake
    }

    /// A frame from the switch: pause or resume the classes in `cev`.
    pub fn apply_pfc(&mut self, now: u64, cev: u8, quanta: &[u16; NPRIO]) {
        self.pause
            .apply(now, cev, quanta, self.rate.cycles(QUANTUM_CYCLES));
        self.wake = self.wake.min(now);
    }

    /// Start the next frame if the link is free: the packet, or None.
    pub fn tick(
        &mut self,
        now: u64,
        all: &[FlowSpec],
        remaining: &mut [u64],
        mtu: u16,
    ) -> Option<Packet> {
        if let Some(b) = self.blocked_at.take() {
            self.sched.skip_blocked(&self.ets, now - b - 1);
        }
        while self.next < self.flows.len() && all[self.flows[self.next]].start <= now {
            let f = self.flows[self.next];
            self.active[usize::from(all[f].prio)].push_back(f);
            self.next += 1;
        }
        let next_start = self
            .flows
            .get(self.next)
            .map_or(u64::MAX, |&f| all[f].start);
        if now < self.busy_until {
            self.wake = self.busy_until.min(next_start);
            return None;
        }
        let (active, paused) = (&self.active, &self.pause.until);
        let Some(p) = self.sched.select(&self.ets, |p| match active[p].front() {
            None => Head::Empty,
            Some(_) if paused[p] > now => Head::Blocked,
            Some(&f) => Head::Ready(remaining[f].min(u64::from(mtu)) as u32),
        }) else {
            // Nothing can go until a pause ends or a flow starts.
            self.blocked_at = Some(now);
            self.wake = (0..NPRIO)
                .filter(|&p| !self.active[p].is_empty())
                .map(|p| self.pause.until[p])
                .fold(next_start, u64::min);
            return None;
        };
        let f = self.active[p].pop_front().unwrap();
        let size = remaining[f].min(u64::from(mtu));
        remaining[f] -= size;
        if remaining[f] > 0 {
            self.active[p].push_back(f);
        }
        self.sched.sent(&self.ets, p, self.active[p].is_empty());
        self.busy_until = now + self.rate.cycles(size + FRAME_OVERHEAD);
        self.wake = self.busy_until.min(next_start);
        let fl = &all[f];
        Some(Packet {
            flow: f as u32,
            src: fl.src as u8,
            dst: fl.dst as u8,
            prio: fl.prio,
            size: size as u16,
            ..Packet::default()
        })
    }

    /// Account to the scheduler the calls skipped since the last one that found nothing to send, as
    /// if every cycle before `now` had been looked at.
    pub fn settle(&mut self, now: u64) {
        if let Some(b) = self.blocked_at {
            if now > b + 1 {
                self.sched.skip_blocked(&self.ets, now - 1 - b);
                self.blocked_at = Some(now - 1);
            }
        }
    }

    /// Check a sender that came from a snapshot: it is port `port`'s and names only flows that exist.
    pub fn check_restored(
        &self,
        port: usize,
        flows: usize,
    ) -> Result<(), super::error::SnapshotError> {
        use super::error::SnapshotError;
        self.rate.check()?;
        if self.port != port {
            return Err(SnapshotError::new(
                "port",
                format!("{} in the slot of port {port}", self.port),
            ));
        }
        if self.next > self.flows.len() {
            return Err(SnapshotError::new(
                "next",
                format!("{} beyond its {} flows", self.next, self.flows.len()),
            ));
        }
        if let Some(f) = self
            .flows
            .iter()
            .chain(self.active.iter().flatten())
            .find(|&&f| f >= flows)
        {
            return Err(SnapshotError::new(
                "flows",
                format!("flow {f} does not exist"),
            ));
        }
        self.sched.check_restored(&self.ets)
    }

    /// Cycles each class has been paused in cycles `0..upto`.
    pub fn paused_cycles(&self, upto: u64) -> [u64; NPRIO] {
        self.pause.paused_cycles(upto)
    }
}

/// The pauses of one transmitter's classes (a sender's, a host NIC's, a switch egress port's):
/// until when each class is paused, and the paused time counted per interval, not per cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pauses {
    #[serde(rename = "pause_until")]
    pub until: [u64; NPRIO],
    /// Paused cycles per class up to `from`, and the cycle from which `until` holds.
    #[serde(rename = "paused_acc")]
    acc: [u64; NPRIO],
    #[serde(rename = "paused_from")]
    from: [u64; NPRIO],
    /// Pauses that ran out by their pause time (no frame ended or renewed them first), up to
    /// `from`: a count for reports, not state (a snapshot leaves it out, so its format is the
    /// same with or without pause refreshes).
    #[serde(skip)]
    expired: u64,
}

impl Pauses {
    /// A PFC frame takes effect in cycle `now`: each class in `cev` is paused for its pause time
    /// in quanta of `quantum` cycles (512 bit times at the link's rate), or resumed (0).
    pub fn apply(&mut self, now: u64, cev: u8, quanta: &[u16; NPRIO], quantum: u64) {
        for (p, &q) in quanta.iter().enumerate() {
            if cev >> p & 1 == 1 {
                self.set(now, p, now + u64::from(q) * quantum);
            }
        }
    }

    /// Class p is paused from `now` until `until` (a resume when `until` is `now`).
    pub fn set(&mut self, now: u64, p: usize, until: u64) {
        if self.until[p] > self.from[p] && self.until[p] <= now {
            self.expired += 1;
        }
        self.acc[p] += self.until[p].min(now).saturating_sub(self.from[p]);
        self.from[p] = now;
        self.until[p] = until;
    }

    /// The classes paused in cycle `now` (bit p).
    pub fn mask(&self, now: u64) -> u8 {
        (0..NPRIO).fold(0u8, |m, p| m | (u8::from(self.until[p] > now) << p))
    }

    /// Pauses that ran out by their pause time in cycles `0..=upto`: not ended by a resume nor
    /// renewed before they expired.
    pub fn expiries(&self, upto: u64) -> u64 {
        self.expired
            + (0..NPRIO)
                .filter(|&p| self.until[p] > self.from[p] && self.until[p] <= upto)
                .count() as u64
    }

    /// Cycles each class has been paused in cycles `0..upto`.
    pub fn paused_cycles(&self, upto: u64) -> [u64; NPRIO] {
        std::array::from_fn(|p| self.acc[p] + self.until[p].min(upto).saturating_sub(self.from[p]))
    }
}
