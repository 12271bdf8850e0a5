//! Scenarios: the switch, its links and its flows. Built in for now (TOML loading comes next).
//!
//! Times are in cycles, one cycle being one byte time of the links (8 ns at 1 Gb/s).

use crate::block::{BlockConfig, BlockParams, ConfigError, Mode, PrioThresholds, NPRIO};
use serde::{Deserialize, Serialize};

/// One flow: `bytes` from input `src` to output `dst` on priority `prio`, starting at `start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: usize,
    pub dst: usize,
    pub prio: u8,
    pub bytes: u64,
    pub start: u64,
    /// Traffic class for the statistics ("incast", "victim", ...).
    pub class: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub ports: usize,
    /// Nanoseconds per cycle (one byte time: 8 at 1 Gb/s).
    pub cycle_ns: f64,
    /// Propagation delay of every link, cycles.
    pub prop_delay: u64,
    /// From a PFC frame's arrival to the sender obeying it, cycles.
    pub pfc_response: u64,
    /// Cycles between two packets entering the pipeline (125: 1 Mpps at 1 Gb/s).
    pub pipe_interval: u64,
    /// Pipeline latency, cycles (3125: 25 µs).
    pub pipe_latency: u64,
    pub mtu: u16,
    /// Thresholds of every priority, bytes.
    pub thresholds: PrioThresholds,
    /// Bit p: priority p is lossless.
    pub lossless: u8,
    /// CUT of Stop-Calibrate, a fraction in (0, 1].
    pub cut: f64,
    pub quanta: u16,
    pub refresh: u16,
    pub max_cycles: u64,
    pub flows: Vec<FlowSpec>,
}

impl Scenario {
    /// The built-in scenarios by name.
    pub fn builtin(name: &str) -> Option<Scenario> {
        match name {
            "incast-victims" => Some(Self::incast_victims()),
            _ => None,
        }
    }

    pub const BUILTIN: &'static [&'static str] = &["incast-victims"];

    /// The default: inputs 1..=4 each send 256 KB on lossless priority 3 to output 0 (incast,
    /// 4:1), while inputs 5..=7 send 1 MB each on the same priority to outputs 5..=7, which are not
    /// congested (the victims). The paper's Table II thresholds, 1 Gb/s links, 100 m of cable,
    /// a 1 Mpps pipeline with 25 µs latency.
    pub fn incast_victims() -> Scenario {
        let mut flows = vec![];
        for i in 1..=4 {
            flows.push(FlowSpec {
                src: i,
                dst: 0,
                prio: 3,
                bytes: 256 * 1024,
                start: 0,
                class: "incast".into(),
            });
        }
        for i in 5..=7 {
            flows.push(FlowSpec {
                src: i,
                dst: i,
                prio: 3,
                bytes: 1024 * 1024,
                start: 0,
                class: "victim".into(),
            });
        }
        Scenario {
            name: "incast-victims".into(),
            ports: 8,
            cycle_ns: 8.0,
            prop_delay: 63,
            pfc_response: 64,
            pipe_interval: 125,
            pipe_latency: 3125,
            mtu: 1500,
            thresholds: PrioThresholds::paper(),
            lossless: 1 << 3,
            cut: 0.8,
            quanta: 0xFFFF,
            refresh: 4096,
            max_cycles: 50_000_000,
            flows,
        }
    }

    pub fn block_config(&self, p: &BlockParams, mode: Mode) -> BlockConfig {
        BlockConfig {
            prio: [self.thresholds; NPRIO],
            lossless: self.lossless,
            mode,
            cut_fixed: crate::block::cfg::cut_from_fraction(self.cut, p.cut_f),
            quanta: self.quanta,
            refresh: self.refresh,
        }
    }

    /// Reject what the model cannot run, naming the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |f: String, w: String| Err(ConfigError::new(f, w));
        if !(2..=128).contains(&self.ports) {
            return bad("ports".into(), format!("{} is outside 2..=128", self.ports));
        }
        if self.pipe_interval == 0 {
            return bad("pipe_interval".into(), "must be at least 1 cycle".into());
        }
        if self.mtu == 0 || u32::from(self.mtu) > crate::block::mask32(BlockParams::default().sw) {
            return bad(
                "mtu".into(),
                format!("{} does not fit the block's size lanes", self.mtu),
            );
        }
        for (k, f) in self.flows.iter().enumerate() {
            if f.src >= self.ports || f.dst >= self.ports {
                return bad(
                    format!("flows[{k}]"),
                    format!(
                        "port {} does not exist on a {}-port switch",
                        f.src.max(f.dst),
                        self.ports
                    ),
                );
            }
            if usize::from(f.prio) >= NPRIO {
                return bad(
                    format!("flows[{k}].prio"),
                    format!("{} is not a priority (0..=7)", f.prio),
                );
            }
            if f.bytes == 0 {
                return bad(
                    format!("flows[{k}].bytes"),
                    "a flow needs at least one byte".into(),
                );
            }
        }
        Ok(())
    }
}
