//! Where a flow's completion time went (`capfc net --stragglers`): for the segment whose arrival
//! completed the flow, the time at its sender before the copy that arrived left (of it, the cycles
//! the flow's retransmission timer ran before it expired: from the last progress to each timeout;
//! of the rest, the cycles its class was paused at the NIC; the rest of that, the window, the
//! NIC's other traffic and fast recovery), the
//! host's serialization and propagation, and at each switch it crossed the ingress FIFO, the
//! pipeline (of it stopped), the egress queue (of it paused), serialization and propagation; and
//! the cycle of delivery. The parts add up to the flow completion time with nothing left over: a breakdown
//! that does not is an error, not a row.

use super::sim::Network;
use crate::switch::hops::Hop;

/// What made a sender send a segment again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The retransmission timer expired after running this many cycles (from the last progress).
    Timeout(u64),
    FastRetransmit,
}

/// The sender side of a traced run: per flow, each data segment put on the wire (sequence,
/// cycle, serialization, propagation of the host's link), the retransmission triggers, and the
/// segment whose arrival completed the flow (sequence, cycle).
#[derive(Debug, Clone, Default)]
pub struct SenderLog {
    pub copies: Vec<Vec<(u32, u64, u64, u64)>>,
    pub triggers: Vec<Vec<(u64, Trigger)>>,
    pub completing: Vec<Option<(u32, u64)>>,
    /// Per (host, class): each PFC frame's effect at the host's NIC, (cycle, paused until); a
    /// frame replaces the one before.
    pub host_pauses: Vec<Vec<(u64, u64)>>,
}

impl SenderLog {
    pub fn new(flows: usize, hosts: usize) -> Self {
        SenderLog {
            copies: vec![vec![]; flows],
            triggers: vec![vec![]; flows],
            completing: vec![None; flows],
            host_pauses: vec![vec![]; hosts * crate::block::NPRIO],
        }
    }

    /// The (host, class)'s paused intervals, [from, until) each.
    fn paused(&self, host: usize, prio: u8) -> Vec<(u64, u64)> {
        let ev = &self.host_pauses[host * crate::block::NPRIO + usize::from(prio)];
        ev.iter()
            .enumerate()
            .map(|(i, &(t, u))| (t, ev.get(i + 1).map_or(u, |n| u.min(n.0))))
            .filter(|(t, u)| u > t)
            .collect()
    }
}

/// One flow's completion time, part by part (cycles).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    pub flow: usize,
    pub fct: u64,
    /// From the flow's start until the copy that arrived went on the wire: the cycles in which the
    /// flow's retransmission timer ran up to an expiry (from the last progress to the timeout) ...
    pub timeout_wait: u64,
    /// ... the cycles outside those in which the flow's class was paused at its NIC ...
    pub nic_paused: u64,
    /// ... and the rest: the window, the NIC's other traffic, fast recovery.
    pub window_wait: u64,
    /// Copies of the completing segment sent before the one that arrived; the flow's timeouts
    /// and fast retransmits before that copy left.
    pub lost_copies: usize,
    pub timeouts: usize,
    pub fast_retransmits: usize,
    /// The host's link: serialization and propagation.
    pub host_serialization: u64,
    pub host_propagation: u64,
    /// Each switch crossed: its node id and the hop.
    pub hops: Vec<(usize, Hop)>,
    /// The cycle of delivery (a flow completes in the cycle after its last byte arrives).
    pub delivery: u64,
}

impl Breakdown {
    pub fn sender(&self) -> u64 {
        self.timeout_wait + self.nic_paused + self.window_wait
    }

    /// The sum of the parts (equal to `fct`, or [`breakdown`] refuses it).
    pub fn total(&self) -> u64 {
        self.sender()
            + self.host_serialization
            + self.host_propagation
            + self
                .hops
                .iter()
                .map(|(_, h)| h.far_end() - h.arrived)
                .sum::<u64>()
            + self.delivery
    }
}

/// The cycles of [from, to) covered by the intervals (each [start, end)), counted once.
fn covered(mut iv: Vec<(u64, u64)>, from: u64, to: u64) -> u64 {
    iv.sort_unstable();
    let (mut total, mut reach) = (0, from);
    for (s, e) in iv {
        let (s, e) = (s.max(reach), e.min(to));
        if e > s {
            total += e - s;
            reach = e;
        }
    }
    total
}

/// What of a flow's completion could not be traced (the flow, the segment, the cycle).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BreakdownError {
    #[error("the run was not traced (Network::trace_stragglers)")]
    NotTraced,
    #[error("flow {0} did not complete")]
    Incomplete(usize),
    #[error("flow {0}: no completing segment logged")]
    NoCompleting(usize),
    #[error("flow {flow} seq {seq}: two copies reach a switch's far end in cycle {at}")]
    TwoCopies { flow: usize, seq: u32, at: u64 },
    #[error("flow {flow} seq {seq}: no switch hop ends in cycle {at}")]
    NoHop { flow: usize, seq: u32, at: u64 },
    #[error("flow {flow} seq {seq}: no copy left its host to arrive in cycle {at}")]
    NoCopy { flow: usize, seq: u32, at: u64 },
    /// The parts do not add up to the completion time (`parts`: the breakdown).
    #[error(
        "flow {flow}: the parts add up to {total} cycles, the completion time is {fct}: {parts}"
    )]
    Sum {
        flow: usize,
        total: u64,
        fct: u64,
        parts: String,
    },
}

/// The breakdown of flow `f`'s completion time; an error names what could not be traced.
pub fn breakdown(net: &Network, f: usize) -> Result<Breakdown, BreakdownError> {
    let log = net.senders.as_ref().ok_or(BreakdownError::NotTraced)?;
    let fct = net.stats_fct(f).ok_or(BreakdownError::Incomplete(f))?;
    let (seq, done) = log.completing[f].ok_or(BreakdownError::NoCompleting(f))?;
    let start = net.flows[f].start;
    // back from the receiver: the hop whose far end is the delivery cycle, then the hop before it
    let mut hops = vec![];
    let mut at = done;
    loop {
        let found: Vec<(usize, Hop)> = net
            .traced_hops()
            .flat_map(|(node, hs)| hs.iter().map(move |h| (node, *h)))
            .filter(|(_, h)| h.flow == f as u32 && h.seq == seq && h.far_end() == at)
            .collect();
        match found.as_slice() {
            [] => break,
            [one] => {
                at = one.1.arrived;
                hops.push(*one);
            }
            _ => return Err(BreakdownError::TwoCopies { flow: f, seq, at }),
        }
    }
    hops.reverse();
    if hops.is_empty() {
        return Err(BreakdownError::NoHop {
            flow: f,
            seq,
            at: done,
        });
    }
    let copies: Vec<&(u32, u64, u64, u64)> = log.copies[f].iter().filter(|c| c.0 == seq).collect();
    let k = copies
        .iter()
        .position(|c| c.1 + c.2 + c.3 == at)
        .ok_or(BreakdownError::NoCopy { flow: f, seq, at })?;
    let sent = copies[k].1;
    let before = |t: u64| t <= sent;
    let timers: Vec<(u64, u64)> = log.triggers[f]
        .iter()
        .filter_map(|&(t, g)| match g {
            Trigger::Timeout(ran) if before(t) => Some((t - ran, t)),
            _ => None,
        })
        .collect();
    let timeouts = timers.len();
    let timeout_wait = covered(timers.clone(), start, sent);
    let mut either = timers;
    either.extend(log.paused(net.flows[f].src, net.flows[f].prio));
    let nic_paused = covered(either, start, sent) - timeout_wait;
    let b = Breakdown {
        flow: f,
        fct,
        timeout_wait,
        nic_paused,
        window_wait: sent - start - timeout_wait - nic_paused,
        lost_copies: k,
        timeouts,
        fast_retransmits: log.triggers[f]
            .iter()
            .filter(|&&(t, g)| g == Trigger::FastRetransmit && before(t))
            .count(),
        host_serialization: copies[k].2,
        host_propagation: copies[k].3,
        hops,
        delivery: 1,
    };
    if b.total() != fct {
        return Err(BreakdownError::Sum {
            flow: f,
            total: b.total(),
            fct,
            parts: format!("{b:?}"),
        });
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn overlapping_timer_intervals_count_once_within_the_window() {
        assert_eq!(super::covered(vec![(5, 15), (10, 20), (30, 40)], 0, 35), 20);
        assert_eq!(super::covered(vec![(0, 100)], 10, 20), 10);
        assert_eq!(super::covered(vec![], 0, 10), 0);
    }
}
