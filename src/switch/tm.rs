//! The traffic manager: egress queues per (output port, priority) and, per port, a transmitter that
//! starts the next frame when the link is free, strict priority (highest priority first).
//!
//! The occupancy that decides admission is the block's; these queues hold the packets themselves.
//! WDRR classes are not modelled yet: every priority is strict. A downstream receiver may pause a
//! (port, priority) for a time (`Scenario::egress_pauses`); a frame already started finishes.

use super::{Packet, FRAME_OVERHEAD};
use crate::block::NPRIO;
use std::collections::VecDeque;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Tm {
    pub queues: Vec<VecDeque<Packet>>,
    /// Bytes in each queue (kept, so the peak costs nothing per enqueue).
    bytes: Vec<u32>,
    busy_until: Vec<u64>,
    /// Per (port, priority): paused by the downstream receiver until this cycle.
    pub paused_until: Vec<u64>,
}

impl Tm {
    pub fn new(ports: usize) -> Self {
        Tm {
            queues: vec![VecDeque::new(); ports * NPRIO],
            bytes: vec![0; ports * NPRIO],
            busy_until: vec![0; ports],
            paused_until: vec![0; ports * NPRIO],
        }
    }

    /// Queue a packet; returns the queue's occupancy in bytes after it.
    pub fn enqueue(&mut self, pkt: Packet) -> u32 {
        let q = usize::from(pkt.dst) * NPRIO + usize::from(pkt.prio);
        self.queues[q].push_back(pkt);
        self.bytes[q] += u32::from(pkt.size);
        self.bytes[q]
    }

    /// Port o starts its next frame, if its link is free and a queue holds one.
    pub fn start(&mut self, o: usize, now: u64) -> Option<Packet> {
        if now < self.busy_until[o] {
            return None;
        }
        for p in (0..NPRIO).rev() {
            if self.paused_until[o * NPRIO + p] > now {
                continue;
            }
            if let Some(pkt) = self.queues[o * NPRIO + p].pop_front() {
                self.bytes[o * NPRIO + p] -= u32::from(pkt.size);
                self.busy_until[o] = now + u64::from(pkt.size) + FRAME_OVERHEAD;
                return Some(pkt);
            }
        }
        None
    }

    pub fn queued_bytes(&self) -> u64 {
        self.queues
            .iter()
            .flatten()
            .map(|p| u64::from(p.size))
            .sum()
    }
}
