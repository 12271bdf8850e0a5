//! A host's NIC under the transport ([`super::transport`]): it sends its flows' segments as their
//! windows allow and the ACKs of the flows it receives, obeys PFC per class, and picks the class
//! with the same ETS scheduler as the switches' egress ports and the open-loop senders (strict
//! priority, then WDRR). Within a class ACKs go first, then the flows whose window is open, in
//! round robin (one segment each).

use super::transport::{TcpConfig, TcpSender};
use crate::block::NPRIO;
use crate::switch::config::WireRate;
use crate::switch::sched::{Ets, EtsState, Head};
use crate::switch::sender::{Pauses, QUANTUM_CYCLES};
use crate::switch::{Packet, FRAME_OVERHEAD};
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Nic {
    rate: WireRate,
    busy_until: u64,
    pub pause: Pauses,
    ets: Ets,
    sched: EtsState,
    acks: [VecDeque<Packet>; NPRIO],
    /// Flows (global ids) whose window lets a segment go, per class.
    ready: [VecDeque<usize>; NPRIO],
    /// The first cycle at which [`Nic::tick`] can do anything.
    wake: u64,
    /// The last call that found nothing to send (its skipped calls go to the scheduler later).
    blocked_at: Option<u64>,
}

impl Nic {
    pub fn new(rate: WireRate, ets: Ets) -> Nic {
        Nic {
            rate,
            busy_until: 0,
            pause: Pauses::default(),
            ets,
            sched: EtsState::default(),
            acks: Default::default(),
            ready: Default::default(),
            wake: u64::MAX,
            blocked_at: None,
        }
    }

    #[inline]
    pub fn wake(&self) -> u64 {
        self.wake
    }

    /// A PFC frame takes effect: pause or resume the classes in `cev`.
    pub fn apply_pfc(&mut self, now: u64, cev: u8, quanta: &[u16; NPRIO]) {
        self.pause
            .apply(now, cev, quanta, self.rate.cycles(QUANTUM_CYCLES));
        self.wake = self.wake.min(now);
    }

    /// An ACK to send on class `prio`.
    pub fn push_ack(&mut self, now: u64, ack: Packet) {
        self.acks[usize::from(ack.prio)].push_back(ack);
        self.wake = self.wake.min(now);
    }

    /// Flow `f` (class `prio`) has a segment its window lets go; `listed[f]` says whether it is
    /// in a ready list already.
    pub fn make_ready(&mut self, now: u64, f: usize, prio: u8, listed: &mut [bool]) {
        if !listed[f] {
            listed[f] = true;
            self.ready[usize::from(prio)].push_back(f);
            self.wake = self.wake.min(now);
        }
    }

    /// Start the next frame if the line is free: an ACK or a segment of a ready flow.
    pub fn tick(
        &mut self,
        now: u64,
        tcp: &mut [TcpSender],
        prio_of: &[u8],
        listed: &mut [bool],
        cfg: &TcpConfig,
    ) -> Option<Packet> {
        if let Some(b) = self.blocked_at.take() {
            self.sched.skip_blocked(&self.ets, now - b - 1);
        }
        if now < self.busy_until {
            self.wake = self.busy_until;
            return None;
        }
        // Flows whose window closed since they were listed leave the lists.
        for q in &mut self.ready {
            while let Some(&f) = q.front() {
                if tcp[f].next_segment(cfg).is_some() {
                    break;
                }
                q.pop_front();
                listed[f] = false;
            }
        }
        let (acks, ready, paused) = (&self.acks, &self.ready, &self.pause.until);
        let head = |p: usize| {
            let size = match (acks[p].front(), ready[p].front()) {
                (Some(a), _) => u32::from(a.size),
                (None, Some(&f)) => tcp[f].next_segment(cfg).map_or(0, |s| s.1 as u32),
                (None, None) => return Head::Empty,
            };
            if paused[p] > now {
                Head::Blocked
            } else {
                Head::Ready(size)
            }
        };
        let Some(p) = self.sched.select(&self.ets, head) else {
            self.blocked_at = Some(now);
            self.wake = (0..NPRIO)
                .filter(|&p| !self.acks[p].is_empty() || !self.ready[p].is_empty())
                .map(|p| self.pause.until[p])
                .fold(u64::MAX, u64::min);
            return None;
        };
        let pkt = match self.acks[p].pop_front() {
            Some(a) => a,
            None => {
                let f = self.ready[p]
                    .pop_front()
                    .expect("the scheduler picks a ready class");
                let (seq, len) = tcp[f].next_segment(cfg).expect("listed flows can send");
                tcp[f].sent(now, seq, len);
                if tcp[f].next_segment(cfg).is_some() {
                    self.ready[p].push_back(f);
                } else {
                    listed[f] = false;
                }
                Packet {
                    flow: f as u32,
                    prio: prio_of[f],
                    size: len as u16,
                    seq: seq as u32,
                    ..Packet::default()
                }
            }
        };
        let empty = self.acks[p].is_empty() && self.ready[p].is_empty();
        self.sched.sent(&self.ets, p, empty);
        self.busy_until = now + self.rate.cycles(u64::from(pkt.size) + FRAME_OVERHEAD);
        self.wake = self.busy_until;
        Some(pkt)
    }
}
