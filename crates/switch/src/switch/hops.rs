//! Where a packet's time goes inside a switch: the hop trace behind `capfc net --stragglers`.
//!
//! When a switch's [`HopTrace`] is on, every packet's times travel beside it through the switch's
//! FIFOs (each FIFO mirrored by one of times, pushed and popped where the packet is): the cycle
//! its last bit arrived, the cycle it entered the pipeline, the cycle it reached its egress queue,
//! and the paused cycles its class had accumulated on that port by then. When the transmitter
//! starts the packet, a [`Hop`] is recorded: arrival, ingress queue, pipeline, egress queue (of it
//! paused), serialization and propagation add up to the cycle its last bit reaches the far end.

use std::collections::VecDeque;

use super::NPRIO;

/// One packet's passage through one switch, in cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub flow: u32,
    pub seq: u32,
    pub ack: bool,
    pub in_port: u8,
    pub out_port: u8,
    /// The cycle its last bit arrived at the input port.
    pub arrived: u64,
    /// Cycles in the ingress FIFO (with the v3 block, from arrival to the accept's answer too).
    pub ingress: u64,
    /// Cycles from entering the pipeline to entering the egress queue; of them, beyond the
    /// pipeline's latency, the cycles it stood still (PFC_wstop, or waiting for the block's answer).
    pub pipeline: u64,
    pub stopped: u64,
    /// Cycles in the egress queue; of them, the cycles its class was paused on the port.
    pub egress: u64,
    pub paused: u64,
    pub serialization: u64,
    pub propagation: u64,
}

impl Hop {
    /// The cycle its last bit reaches the far end of the output link.
    pub fn far_end(&self) -> u64 {
        self.arrived
            + self.ingress
            + self.pipeline
            + self.egress
            + self.serialization
            + self.propagation
    }
}

/// The paused cycles of one (port, class) as a clock: `total_at(now)` for the current cycle.
#[derive(Debug, Clone, Default)]
struct PauseClock {
    /// Paused cycles of the pauses that ended before `from`.
    done: u64,
    /// The current (or last) pause: [from, until).
    from: u64,
    until: u64,
}

impl PauseClock {
    fn pause(&mut self, now: u64, until: u64) {
        if now < self.until {
            // still paused: the pause is extended, or cut short by an XON
            self.until = until.max(now);
        } else {
            self.done += self.until - self.from;
            self.from = now;
            self.until = until.max(now);
        }
    }

    fn total_at(&self, now: u64) -> u64 {
        self.done + now.clamp(self.from, self.until) - self.from
    }
}

/// The trace's state: the times beside the FIFOs, and the hops recorded.
#[derive(Debug, Clone, Default)]
pub struct HopTrace {
    /// Per input port: the arrival cycles of packets not yet in the ingress FIFO (answered by the
    /// v3 block's accept, or refused).
    pub(super) arriving: Vec<VecDeque<u64>>,
    /// Per input port, beside the ingress FIFO: arrival cycles.
    pub(super) ingress: Vec<VecDeque<u64>>,
    /// Beside the pipeline: (arrival, entry).
    pub(super) pipe: VecDeque<(u64, u64)>,
    /// Per (port, class), beside the egress queue: (arrival, pipeline entry, queue entry, paused
    /// cycles of the class by then).
    pub(super) egress: Vec<VecDeque<(u64, u64, u64, u64)>>,
    pauses: Vec<PauseClock>,
    /// The hops of data packets (not ACKs), in the order their transmission started.
    pub hops: Vec<Hop>,
}

impl HopTrace {
    pub fn new(ports: usize) -> Self {
        HopTrace {
            arriving: vec![VecDeque::new(); ports],
            ingress: vec![VecDeque::new(); ports],
            pipe: VecDeque::new(),
            egress: vec![VecDeque::new(); ports * NPRIO],
            pauses: vec![PauseClock::default(); ports * NPRIO],
            hops: vec![],
        }
    }

    /// Class `p` of output `o` is paused from `now` until `until` (an XON: `until` = `now`).
    pub fn pause(&mut self, o: usize, p: usize, now: u64, until: u64) {
        self.pauses[o * NPRIO + p].pause(now, until);
    }

    pub(super) fn paused_total(&self, q: usize, now: u64) -> u64 {
        self.pauses[q].total_at(now)
    }
}

#[cfg(test)]
mod tests {
    use super::PauseClock;

    #[test]
    fn the_pause_clock_counts_extended_cut_and_separate_pauses() {
        let mut c = PauseClock::default();
        assert_eq!(c.total_at(5), 0);
        c.pause(10, 20);
        assert_eq!((c.total_at(10), c.total_at(15), c.total_at(30)), (0, 5, 10));
        c.pause(15, 40); // extended while paused
        assert_eq!(c.total_at(30), 20);
        c.pause(32, 32); // an XON
        assert_eq!(c.total_at(50), 22);
        c.pause(60, 70);
        assert_eq!((c.total_at(65), c.total_at(80)), (27, 32));
    }
}
