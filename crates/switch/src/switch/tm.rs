//! The traffic manager: egress queues per (output port, priority) and, per port, a transmitter that
//! starts the next frame when the link is free, chosen by the port's ETS scheduler ([`super::sched`]:
//! strict priority first, then WDRR).
//!
//! The port's line also carries the PFC frames the switch sends to the peer of that port (see the
//! module doc of [`super`]): the MAC sends one only between data frames, and while it is on the wire
//! ([`Tm::send_control`]) or the MAC keeps the line for one ([`Tm::reserve`]) the transmitter starts
//! nothing, exactly as while one of its own frames is on the wire.
//!
//! The occupancy that decides admission is the block's; these queues hold the packets themselves.
//! A downstream receiver may pause a (port, priority) for a time (`Scenario::egress_pauses`); a frame
//! already started finishes.
//!
//! With a shared-memory buffer ([`SharedMemory`], `shared/domain.md` section 1, the paper's Section
//! II-F) each queue owns `dedicated` bytes and takes the rest from a common pool. The per-queue
//! decision stays the block's (it is also the RTL's): the scenario sets the block's egress MAX to
//! `dedicated + per_queue`. The per-port and total caps of the pool are the traffic manager's: it
//! checks them before presenting the packet at the end of the pipeline to the block's enqueue lane
//! ([`Tm::shared_admits`]); a packet that fails is never presented and is handled exactly as one that
//! does not fit (dropped, or the pipeline stops under `PFC_wstop`).

use super::sched::{Ets, EtsState, Head};
use super::{Packet, FRAME_OVERHEAD};
use crate::block::NPRIO;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub use super::config::SharedMemory;

/// Shared-pool usage, bytes, recomputed from the queues (see [`Tm::shared_usage`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedUsage {
    pub per_queue: Vec<u64>,
    pub per_port: Vec<u64>,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tm {
    pub queues: Vec<VecDeque<Packet>>,
    /// Bytes in each queue (kept, so the peak costs nothing per enqueue).
    bytes: Vec<u32>,
    busy_until: Vec<u64>,
    /// Per (port, priority): paused by the downstream receiver until this cycle.
    pub paused_until: Vec<u64>,
    /// The ports' scheduler configuration.
    #[serde(default)]
    ets: Ets,
    /// Each port's scheduler registers.
    #[serde(default)]
    sched: Vec<EtsState>,
    /// Shared-memory buffering; None: every queue has its own memory (the block's egress MAX).
    #[serde(default)]
    shared: Option<SharedMemory>,
    /// Shared bytes held per port and in total (kept incrementally).
    #[serde(default)]
    port_shared: Vec<u64>,
    #[serde(default)]
    total_shared: u64,
    /// Per port: the first cycle at which [`Tm::start`] can do anything (earlier calls are
    /// skipped); an enqueue or a pause brings it forward.
    wake: Vec<u64>,
    /// Per port: the cycle of the last call that found nothing to send (see
    /// [`EtsState::skip_blocked`]).
    blocked_at: Vec<Option<u64>>,
    /// No port can act before this cycle (at most the least of `wake`).
    wake_min: u64,
    /// Cache of which lines are busy (bit o: `busy_until[o]` > the cycle it was computed for),
    /// valid for every cycle before `line_next`, the least `busy_until` of those lines. Not state:
    /// rebuilt from `busy_until` (a restored traffic manager has `line_next` 0, so it rebuilds).
    #[serde(skip)]
    line_busy: u128,
    #[serde(skip)]
    line_next: u64,
    /// Per port, the speed of its link against the clock (empty: every port at the clock's rate,
    /// as on a single switch).
    #[serde(default)]
    rates: Vec<super::config::WireRate>,
    /// ECN marking threshold, bytes (see [`Tm::set_ecn`]).
    #[serde(default)]
    ecn: Option<u32>,
}

impl Tm {
    /// A traffic manager with dedicated buffers and strict priority on every port.
    pub fn new(ports: usize) -> Self {
        Self::with(ports, Ets::default(), None)
    }

    /// A traffic manager for `ports` ports with the ports' scheduler `ets` and, optionally, a
    /// shared-memory buffer.
    pub fn with(ports: usize, ets: Ets, shared: Option<SharedMemory>) -> Self {
        Tm {
            queues: vec![VecDeque::new(); ports * NPRIO],
            bytes: vec![0; ports * NPRIO],
            busy_until: vec![0; ports],
            paused_until: vec![0; ports * NPRIO],
            ets,
            sched: vec![EtsState::default(); ports],
            shared,
            port_shared: vec![0; ports],
            total_shared: 0,
            wake: vec![0; ports],
            blocked_at: vec![None; ports],
            wake_min: 0,
            line_busy: 0,
            line_next: 0,
            rates: vec![],
            ecn: None,
        }
    }

    /// The traffic manager a scenario describes.
    pub fn for_scenario(sc: &super::scenario::Scenario) -> Self {
        Self::with(sc.ports, sc.scheduler.ets(sc.mtu), sc.shared_memory)
    }

    /// Whether the shared pool can take `pkt` into its queue: the port's and the switch's shared
    /// bytes stay within their caps. Always true with dedicated buffers.
    pub fn shared_admits(&self, pkt: &Packet) -> bool {
        let Some(sm) = &self.shared else { return true };
        let o = usize::from(pkt.dst);
        let occ = u64::from(self.bytes[o * NPRIO + usize::from(pkt.prio)]);
        let more = sm.shared_of(occ + u64::from(pkt.size)) - sm.shared_of(occ);
        self.port_shared[o] + more <= u64::from(sm.per_port)
            && self.total_shared + more <= u64::from(sm.pool)
    }

    /// Mark data packets CE when their egress queue holds at least `k` bytes as they arrive
    /// (DCTCP's instantaneous marking; the paper's threshold is 20 KB). None: no marking.
    pub fn set_ecn(&mut self, k: Option<u32>) {
        self.ecn = k;
    }

    /// Queue a packet; returns the queue's occupancy in bytes after it.
    pub fn enqueue(&mut self, mut pkt: Packet) -> u32 {
        let o = usize::from(pkt.dst);
        let q = o * NPRIO + usize::from(pkt.prio);
        if self.ecn.is_some_and(|k| self.bytes[q] >= k) && !pkt.is_ack() {
            pkt.flags |= Packet::CE;
        }
        self.queues[q].push_back(pkt);
        self.wake[o] = 0;
        self.wake_min = 0;
        let before = self.bytes[q];
        self.bytes[q] += u32::from(pkt.size);
        self.account_shared(o, before, self.bytes[q]);
        self.bytes[q]
    }

    /// A queue of port o went from `before` to `after` bytes: the pool's counters follow.
    fn account_shared(&mut self, o: usize, before: u32, after: u32) {
        if let Some(sm) = &self.shared {
            let (b, a) = (
                sm.shared_of(u64::from(before)),
                sm.shared_of(u64::from(after)),
            );
            self.port_shared[o] = self.port_shared[o] + a - b;
            self.total_shared = self.total_shared + a - b;
        }
    }

    /// Port o starts its next frame, if its link is free and a queue that may send holds one.
    pub fn start(&mut self, o: usize, now: u64) -> Option<Packet> {
        if let Some(b) = self.blocked_at[o].take() {
            self.sched[o].skip_blocked(&self.ets, now - b - 1);
        }
        if now < self.busy_until[o] {
            self.wake[o] = self.busy_until[o];
            return None;
        }
        let (queues, paused) = (
            &self.queues[o * NPRIO..(o + 1) * NPRIO],
            &self.paused_until[o * NPRIO..(o + 1) * NPRIO],
        );
        let Some(p) = self.sched[o].select(&self.ets, |p| match queues[p].front() {
            None => Head::Empty,
            Some(_) if paused[p] > now => Head::Blocked,
            Some(pkt) => Head::Ready(u32::from(pkt.size)),
        }) else {
            // Nothing to send until a pause ends or a packet arrives.
            self.blocked_at[o] = Some(now);
            self.wake[o] = (0..NPRIO)
                .filter(|&p| !queues[p].is_empty())
                .map(|p| paused[p])
                .fold(u64::MAX, u64::min);
            return None;
        };
        let q = o * NPRIO + p;
        let pkt = self.queues[q]
            .pop_front()
            .expect("the scheduler picks a ready class");
        let before = self.bytes[q];
        self.bytes[q] -= u32::from(pkt.size);
        self.account_shared(o, before, self.bytes[q]);
        self.sched[o].sent(&self.ets, p, self.queues[q].is_empty());
        let wire = self.wire(o, u64::from(pkt.size) + FRAME_OVERHEAD);
        self.occupy(o, now + wire);
        Some(pkt)
    }

    /// Each port's link speed against the clock (a network's links; see [`super::config::WireRate`]).
    pub fn set_rates(&mut self, rates: Vec<super::config::WireRate>) {
        self.rates = rates;
    }

    /// Cycles that `bytes` (preamble and gap included) take on port o's line.
    #[inline]
    pub fn wire(&self, o: usize, bytes: u64) -> u64 {
        self.rates.get(o).map_or(bytes, |r| r.cycles(bytes))
    }

    /// Port o's line is busy until cycle `until` (exclusive); the transmitter wakes then (also when
    /// the cycle's pass over the ports is over: a control frame is sent after it).
    fn occupy(&mut self, o: usize, until: u64) {
        self.busy_until[o] = until;
        self.wake[o] = until;
        self.wake_min = self.wake_min.min(until);
        self.line_busy |= 1u128 << o;
        self.line_next = self.line_next.min(until);
    }

    /// Account to port o's scheduler the calls of [`Tm::start`] skipped up to cycle `upto`
    /// (included) since the last one that found nothing to send, and forget that call: from here
    /// the line is busy, and calls on a busy line do not reach the scheduler.
    fn account_blocked(&mut self, o: usize, upto: u64) {
        if let Some(b) = self.blocked_at[o].take() {
            if upto > b {
                self.sched[o].skip_blocked(&self.ets, upto - b);
            }
        }
    }

    /// Whether port o's line is free in cycle `now`: no frame (data or control) is on the wire and
    /// the MAC does not keep it.
    #[inline]
    pub fn line_free(&self, o: usize, now: u64) -> bool {
        now >= self.busy_until[o]
    }

    /// The ports whose line is busy in cycle `now` (bit o), frames started in `now` included. Costs
    /// a pass over the ports only when a line has come free since the last call.
    pub fn busy_lines(&mut self, now: u64) -> u128 {
        if now >= self.line_next {
            let (mut m, mut next) = (0u128, u64::MAX);
            for (o, &b) in self.busy_until.iter().enumerate() {
                if b > now {
                    m |= 1u128 << o;
                    next = next.min(b);
                }
            }
            self.line_busy = m;
            self.line_next = next;
        }
        self.line_busy
    }

    /// Port o's MAC keeps its free line in cycle `now` for a pending control (PFC) frame: call it
    /// before the cycle's [`Tm::start`] calls, which then start no data frame on port o. Unless
    /// [`Tm::send_control`] follows in the same cycle, the line is free again at `now + 1`.
    pub fn reserve(&mut self, o: usize, now: u64) {
        debug_assert!(self.line_free(o, now));
        // The transmitter is not consulted in `now`: account its idle calls up to `now - 1`.
        if now > 0 {
            self.account_blocked(o, now - 1);
        } else {
            self.blocked_at[o] = None;
        }
        self.occupy(o, now + 1);
    }

    /// Port o's MAC puts a control frame of `bytes` bytes (preamble and gap included) on the free
    /// line from cycle `now` (after the cycle's [`Tm::start`] calls, which started nothing on port
    /// o): the next data frame starts at `now + bytes` at the earliest.
    pub fn send_control(&mut self, o: usize, now: u64, bytes: u64) {
        debug_assert!(
            self.busy_until[o] <= now + 1,
            "a frame is on port {o}'s line"
        );
        // The transmitter was consulted in `now` (or would have been, and found nothing).
        self.account_blocked(o, now);
        self.occupy(o, now + self.wire(o, bytes));
    }

    /// Check a traffic manager that came from a snapshot: every table has its size for `np` ports.
    pub fn check_restored(&self, np: usize) -> Result<(), super::error::SnapshotError> {
        use super::error::{under, SnapshotError};
        let nq = np * NPRIO;
        for (what, got, want) in [
            ("tm.queues", self.queues.len(), nq),
            ("tm.bytes", self.bytes.len(), nq),
            ("tm.busy_until", self.busy_until.len(), np),
            ("tm.paused_until", self.paused_until.len(), nq),
            ("tm.sched", self.sched.len(), np),
            ("tm.port_shared", self.port_shared.len(), np),
            ("tm.wake", self.wake.len(), np),
            ("tm.blocked_at", self.blocked_at.len(), np),
            (
                "tm.rates",
                self.rates.len(),
                if self.rates.is_empty() { 0 } else { np },
            ),
        ] {
            if got != want {
                return Err(SnapshotError::new(
                    what,
                    format!("{got} entries, expected {want}"),
                ));
            }
        }
        for r in &self.rates {
            r.check().map_err(|e| under("tm.rates", e))?;
        }
        // Each queue's byte count is what it holds.
        for (q, (pkts, &b)) in self.queues.iter().zip(&self.bytes).enumerate() {
            let held: u64 = pkts.iter().map(|p| u64::from(p.size)).sum();
            if held != u64::from(b) {
                return Err(SnapshotError::new(
                    format!("tm.bytes[{q}] (port {} prio {})", q / NPRIO, q % NPRIO),
                    format!("{b}, but its queue holds {held} bytes"),
                ));
            }
        }
        self.sched
            .iter()
            .try_for_each(|s| s.check_restored(&self.ets))
            .map_err(|e| under("tm.sched", e))
    }

    /// No port's transmitter can act before this cycle.
    #[inline]
    pub fn wake_min(&self) -> u64 {
        self.wake_min
    }

    /// After a pass over the ports: the least of their wake cycles.
    pub fn set_wake_min(&mut self, w: u64) {
        self.wake_min = w;
    }

    /// The first cycle at which port o's transmitter may start a frame.
    #[inline]
    pub fn wake(&self, o: usize) -> u64 {
        self.wake[o]
    }

    /// Account to the schedulers the calls skipped since the last one that found nothing to send,
    /// as if every cycle before `now` had been looked at.
    pub fn settle(&mut self, now: u64) {
        for o in 0..self.wake.len() {
            if let Some(b) = self.blocked_at[o] {
                if now > b + 1 {
                    self.sched[o].skip_blocked(&self.ets, now - 1 - b);
                    self.blocked_at[o] = Some(now - 1);
                }
            }
        }
    }

    /// The receiver behind output o pauses priority p until cycle `until`.
    pub fn pause(&mut self, o: usize, p: usize, until: u64) {
        self.paused_until[o * NPRIO + p] = until;
        self.wake[o] = 0;
        self.wake_min = 0;
    }

    pub fn queued_bytes(&self) -> u64 {
        self.queues
            .iter()
            .flatten()
            .map(|p| u64::from(p.size))
            .sum()
    }

    /// Bytes in queue `q` = port × 8 + priority.
    pub fn queue_bytes(&self, q: usize) -> u32 {
        self.bytes[q]
    }

    /// The shared-memory configuration, if any.
    pub fn shared_memory(&self) -> Option<&SharedMemory> {
        self.shared.as_ref()
    }

    /// Shared-pool usage recomputed from the packets in the queues (not from the kept counters), and
    /// the kept counters (per port, total) to compare it with. None with dedicated buffers.
    pub fn shared_usage(&self) -> Option<(SharedUsage, Vec<u64>, u64)> {
        let sm = self.shared.as_ref()?;
        let per_queue: Vec<u64> = self
            .queues
            .iter()
            .map(|q| sm.shared_of(q.iter().map(|p| u64::from(p.size)).sum()))
            .collect();
        let per_port: Vec<u64> = per_queue.chunks(NPRIO).map(|c| c.iter().sum()).collect();
        let total = per_port.iter().sum();
        Some((
            SharedUsage {
                per_queue,
                per_port,
                total,
            },
            self.port_shared.clone(),
            self.total_shared,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::switch::sched::{SchedConfig, WdrrClass};

    fn pkt(dst: u8, prio: u8, size: u16) -> Packet {
        Packet {
            flow: 0,
            src: 1,
            dst,
            prio,
            size,
            ..Packet::default()
        }
    }

    /// Bytes each priority of port 0 sent over `cycles` with every listed queue kept backlogged.
    fn egress_shares(cfg: &SchedConfig, load: &[(u8, u16)], cycles: u64) -> [u64; NPRIO] {
        let mut tm = Tm::with(2, cfg.ets(1500), None);
        let mut sent = [0u64; NPRIO];
        for t in 0..cycles {
            for &(p, s) in load {
                if tm.queues[usize::from(p)].len() < 4 {
                    tm.enqueue(pkt(0, p, s));
                }
            }
            if let Some(x) = tm.start(0, t) {
                sent[usize::from(x.prio)] += u64::from(x.size);
            }
        }
        sent
    }

    #[test]
    fn wdrr_weights_one_to_three_at_an_egress_port() {
        let cfg = SchedConfig {
            sp: Some(vec![7]),
            wdrr: vec![
                WdrrClass { prio: 1, weight: 1 },
                WdrrClass { prio: 3, weight: 3 },
            ],
        };
        let sent = egress_shares(&cfg, &[(1, 1500), (3, 1000)], 2_000_000);
        let ratio = sent[3] as f64 / sent[1] as f64;
        assert!(
            (ratio / 3.0 - 1.0).abs() < 0.03,
            "byte ratio {ratio}: {sent:?}"
        );
        // The link stays busy: all but a frame's worth of the time is frames and their gaps.
        let wire: u64 = sent[1] / 1500 * 1520 + sent[3] / 1000 * 1020;
        assert!(wire + 1520 >= 2_000_000, "link idle: {wire} of 2000000");
        // A backlogged strict class takes the whole link.
        let sent = egress_shares(&cfg, &[(1, 1500), (3, 1000), (7, 1500)], 200_000);
        assert_eq!(sent[1] + sent[3], 0, "{sent:?}");
        // Without a [scheduler], priority 3 is strict above 1.
        let sent = egress_shares(&SchedConfig::default(), &[(1, 1500), (3, 1000)], 200_000);
        assert_eq!(sent[1], 0, "{sent:?}");
    }

    #[test]
    fn shared_pool_counts_only_above_the_dedicated_memory() {
        let sm = SharedMemory {
            dedicated: 1000,
            pool: 5000,
            per_queue: 4000,
            per_port: 3000,
        };
        let mut tm = Tm::with(2, Ets::default(), Some(sm));
        // 1000 bytes fit the dedicated memory of queue (0, 1): no shared bytes.
        tm.enqueue(pkt(0, 1, 1000));
        assert_eq!(tm.shared_usage().unwrap().0.total, 0);
        // 2500 more into (0, 2): 1500 shared.
        tm.enqueue(pkt(0, 2, 1000));
        tm.enqueue(pkt(0, 2, 1500));
        // Port 0 holds 1500 shared; 1500 more into (0, 3) is 500 shared: fits; 2000 more in (0, 2)
        // does not (3500 > 3000).
        assert!(tm.shared_admits(&pkt(0, 3, 1500)));
        assert!(!tm.shared_admits(&pkt(0, 2, 1501)));
        assert!(tm.shared_admits(&pkt(0, 2, 1500)));
        // Port 1 has its own cap but shares the pool.
        for _ in 0..3 {
            tm.enqueue(pkt(1, 0, 1000));
        }
        let (u, port, total) = tm.shared_usage().unwrap();
        assert_eq!(u.per_port, vec![1500, 2000]);
        assert_eq!((port, total), (u.per_port.clone(), u.total));
        // The pool holds 3500: port 0 may add 1500 shared bytes (its cap and the pool's).
        assert!(tm.shared_admits(&pkt(0, 4, 1500 + 1000)));
        assert!(!tm.shared_admits(&pkt(0, 4, 1501 + 1000)));
        tm.enqueue(pkt(1, 6, 1000));
        tm.enqueue(pkt(1, 6, 1000));
        // Pool at 4500 now: port 0 may add 500 more shared bytes only.
        assert!(tm.shared_admits(&pkt(0, 4, 1500)));
        assert!(!tm.shared_admits(&pkt(0, 4, 1501)));
        // Dequeues give the bytes back, down to the dedicated memory.
        let mut t = 0;
        while tm.queued_bytes() > 0 {
            tm.start(0, t);
            tm.start(1, t);
            t += 1;
            let (u, port, total) = tm.shared_usage().unwrap();
            assert_eq!((port, total), (u.per_port, u.total), "cycle {t}");
        }
        assert_eq!(tm.shared_usage().unwrap().2, 0);
    }
}
