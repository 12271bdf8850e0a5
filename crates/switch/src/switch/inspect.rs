//! Looking into a running switch and changing it from outside, for `capfc step`: per-flow progress,
//! the senders' pause state, the frames on the links, and injecting a flow or a downstream pause.

use super::scenario::FlowSpec;
use super::sender::Sender;
use super::{PokeError, Switch};
use crate::block::NPRIO;

/// How far one flow has got.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FlowProgress {
    pub flow: usize,
    /// Bytes the sender has put on the wire.
    pub sent: u64,
    pub delivered: u64,
    pub lost: u64,
    /// Completion time in cycles, once every byte is delivered or lost.
    pub fct: Option<u64>,
}

impl Switch {
    /// Progress of flow `f`.
    pub fn flow_progress(&self, f: usize) -> FlowProgress {
        FlowProgress {
            flow: f,
            sent: self.sc.flows[f].bytes - self.remaining[f] + self.resent[f],
            delivered: self.delivered[f],
            lost: self.lost[f],
            fct: self.stats.fct[f],
        }
    }

    /// The upstream peers, one per input port.
    pub fn senders(&self) -> &[Sender] {
        &self.senders
    }

    /// PFC frames on their way back to the senders: (cycle they take effect, port, class-enable
    /// vector, quanta).
    pub fn pfc_in_flight(&self) -> Vec<(u64, usize, u8, [u16; NPRIO])> {
        self.pfc.iter().copied().collect()
    }

    /// A new flow starting now (its `start` is replaced by the current cycle): `poke packet`.
    /// Returns its index.
    pub fn inject_flow(&mut self, mut spec: FlowSpec) -> Result<usize, PokeError> {
        let np = self.sc.ports;
        if spec.src >= np || spec.dst >= np {
            return Err(PokeError::Port {
                port: spec.src.max(spec.dst),
                ports: np,
            });
        }
        if usize::from(spec.prio) >= NPRIO {
            return Err(PokeError::Prio(spec.prio));
        }
        if spec.bytes == 0 {
            return Err(PokeError::NoBytes);
        }
        spec.start = self.now;
        let f = self.sc.flows.len();
        self.remaining.push(spec.bytes);
        self.delivered.push(0);
        self.lost.push(0);
        self.resent.push(0);
        self.stats.fct.push(None);
        let src = spec.src;
        self.sc.flows.push(spec);
        self.senders[src].add_flow(f, &self.sc.flows);
        self.sender_wake = self.sender_wake.min(self.senders[src].wake());
        Ok(f)
    }

    /// The downstream receiver of output `port` pauses `prio` for `cycles` from now: `poke pause`.
    pub fn inject_egress_pause(
        &mut self,
        port: usize,
        prio: u8,
        cycles: u64,
    ) -> Result<(), PokeError> {
        if port >= self.sc.ports {
            return Err(PokeError::Port {
                port,
                ports: self.sc.ports,
            });
        }
        if usize::from(prio) >= NPRIO {
            return Err(PokeError::Prio(prio));
        }
        if cycles > 1 << 40 {
            return Err(PokeError::Cycles {
                cycles,
                limit: 1 << 40,
            });
        }
        self.tm.pause(port, usize::from(prio), self.now + cycles);
        Ok(())
    }
}

impl Switch {
    /// The statistics as they stand now, per-class summaries included (what [`Switch::run`] reports
    /// at its end).
    pub fn stats_so_far(&self) -> super::stats::Stats {
        let mut st = self.stats.clone();
        st.cycles = self.now;
        for s in &self.senders {
            let pc = s.paused_cycles(self.now);
            st.paused[s.port * NPRIO..(s.port + 1) * NPRIO].copy_from_slice(&pc);
        }
        st.finish(&self.sc, &self.delivered, &self.lost);
        st
    }
}
