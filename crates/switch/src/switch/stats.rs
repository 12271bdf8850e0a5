//! What a run measured: drops by reason, PFC frames, paused time, peak occupancies, and per traffic
//! class the flow completion times and goodput.

use super::scenario::{FlowSpec, Scenario};
use crate::block::NPRIO;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ClassStats {
    pub class: String,
    pub flows: usize,
    pub completed: usize,
    /// Flows that lost bytes (dropped somewhere). Without retransmission (`rto`) their FCT counts
    /// the lost bytes as done; with it, they were sent again.
    pub with_losses: usize,
    pub fct_max_us: f64,
    pub fct_p99_us: f64,
    /// Mean over the class's flows of bytes delivered × 8 / FCT.
    pub goodput_gbps: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    pub cycles: u64,
    pub sent_bytes: u64,
    /// Packets delivered to the receivers.
    pub delivered_packets: u64,
    /// Packets lost at ingress MAX: on a lossless priority, headroom was too small.
    pub ingress_drops: u64,
    /// Packets dropped at the end of the pipeline (egress MAX).
    pub egress_drops: u64,
    /// Packets dropped at the end of the pipeline because the shared pool's per-port or total cap
    /// was reached (shared-memory buffers only).
    #[serde(default)]
    pub shared_drops: u64,
    /// Cycles the pipeline stood still (PFC_wstop).
    pub stall_cycles: u64,
    /// PFC frames sent, per input port.
    pub pfc_frames: Vec<u64>,
    /// Under `pause_refresh = false`: frames of the block's whose refresh of paused classes the MAC
    /// did not put on the wire (the frame dropped, or sent with only its resumes and new pauses).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub refreshes_withheld: u64,
    /// Paused cycles per (input port, priority) at the senders.
    pub paused: Vec<u64>,
    /// Peak egress occupancy per (port, priority), bytes.
    pub peak: Vec<u32>,
    /// Completion time per flow, cycles.
    pub fct: Vec<Option<u64>>,
    pub classes: Vec<ClassStats>,
}

impl Stats {
    pub fn new(ports: usize, flows: usize) -> Self {
        Stats {
            pfc_frames: vec![0; ports],
            paused: vec![0; ports * NPRIO],
            peak: vec![0; ports * NPRIO],
            fct: vec![None; flows],
            ..Stats::default()
        }
    }

    pub fn note_peak(&mut self, q: usize, occ: u32) {
        self.peak[q] = self.peak[q].max(occ);
    }

    /// Per-class summaries, once the run is over.
    pub fn finish(&mut self, sc: &Scenario, delivered: &[u64], lost: &[u64]) {
        self.classes = class_stats(&sc.flows, &self.fct, delivered, lost, sc.cycle_ns);
    }

    pub fn class(&self, name: &str) -> Option<&ClassStats> {
        self.classes.iter().find(|c| c.class == name)
    }

    pub fn total_pfc_frames(&self) -> u64 {
        self.pfc_frames.iter().sum()
    }

    pub fn total_paused_us(&self, cycle_ns: f64) -> f64 {
        self.paused.iter().sum::<u64>() as f64 * cycle_ns / 1000.0
    }
}

/// Per traffic class of `flows` (in name order): completions, flows with losses, the maximum and
/// 99th-percentile FCT, and the mean goodput (bytes delivered × 8 / FCT).
pub fn class_stats(
    flows: &[FlowSpec],
    fct: &[Option<u64>],
    delivered: &[u64],
    lost: &[u64],
    cycle_ns: f64,
) -> Vec<ClassStats> {
    let mut names: Vec<&str> = flows.iter().map(|f| f.class.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let us = |c: u64| c as f64 * cycle_ns / 1000.0;
    names
        .into_iter()
        .map(|name| {
            let idx: Vec<usize> = (0..flows.len())
                .filter(|&f| flows[f].class == name)
                .collect();
            let mut fcts: Vec<u64> = idx.iter().filter_map(|&f| fct[f]).collect();
            fcts.sort_unstable();
            let p99 = fcts
                .get(((fcts.len() as f64 * 0.99).ceil() as usize).saturating_sub(1))
                .copied()
                .unwrap_or(0);
            let goodput: f64 = idx
                .iter()
                .map(|&f| match fct[f] {
                    Some(t) if t > 0 => delivered[f] as f64 * 8.0 / (t as f64 * cycle_ns),
                    _ => 0.0,
                })
                .sum::<f64>()
                / idx.len().max(1) as f64;
            ClassStats {
                class: name.to_string(),
                flows: idx.len(),
                completed: fcts.len(),
                with_losses: idx.iter().filter(|&&f| lost[f] > 0).count(),
                fct_max_us: us(fcts.last().copied().unwrap_or(0)),
                fct_p99_us: us(p99),
                goodput_gbps: goodput,
            }
        })
        .collect()
}
