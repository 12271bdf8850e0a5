//! Scenarios: the switch, its links and its flows, as TOML. The built-in ones are the files in
//! `scenarios/`, compiled into the binary; any other file loads the same way. Every field but
//! `name`, `ports` and `flows` has a default: the paper's Table II thresholds and 1 Gb/s links.
//!
//! Times are in cycles, one cycle being one byte time of the links (8 ns at 1 Gb/s).

use crate::block::{BlockConfig, BlockParams, ConfigError, Mode, PrioThresholds, NPRIO};
use serde::{Deserialize, Serialize};

pub use super::config::FlowSpec;

/// A scenario that cannot be used: where, and why.
#[derive(Debug, thiserror::Error)]
#[error("[scenario] {origin}: {why}")]
pub struct ScenarioError {
    /// The file, or `builtin:<name>`.
    pub origin: String,
    pub why: String,
}

macro_rules! defaults {
    ($($f:ident: $t:ty = $v:expr;)*) => {
        mod dflt { $(pub fn $f() -> $t { $v })* }
    };
}
defaults! {
    cycle_ns: f64 = 8.0;
    prop_delay: u64 = 63;
    pfc_response: u64 = 64;
    pipe_interval: u64 = 125;
    pipe_latency: u64 = 3125;
    mtu: u16 = 1500;
    thresholds: crate::block::PrioThresholds = crate::block::PrioThresholds::paper();
    lossless: u8 = 1 << 3;
    cut: f64 = 0.8;
    quanta: u16 = 0xFFFF;
    refresh: u16 = 4096;
    max_cycles: u64 = 50_000_000;
    lossless_prio: u8 = 3;
    pause_refresh: bool = true;
}

fn is_true(b: &bool) -> bool {
    *b
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub ports: usize,
    /// Nanoseconds per cycle (one byte time: 8 at 1 Gb/s).
    #[serde(default = "dflt::cycle_ns")]
    pub cycle_ns: f64,
    /// Propagation delay of every link, cycles.
    #[serde(default = "dflt::prop_delay")]
    pub prop_delay: u64,
    /// From a PFC frame's arrival to the sender obeying it, cycles.
    #[serde(default = "dflt::pfc_response")]
    pub pfc_response: u64,
    /// Cycles between two packets entering the pipeline (125: 1 Mpps at 1 Gb/s).
    #[serde(default = "dflt::pipe_interval")]
    pub pipe_interval: u64,
    /// Pipeline latency, cycles (3125: 25 µs).
    #[serde(default = "dflt::pipe_latency")]
    pub pipe_latency: u64,
    #[serde(default = "dflt::mtu")]
    pub mtu: u16,
    /// Thresholds of every priority, bytes.
    #[serde(default = "dflt::thresholds")]
    pub thresholds: PrioThresholds,
    /// Bit p: priority p is lossless.
    #[serde(default = "dflt::lossless")]
    pub lossless: u8,
    /// CUT of Stop-Calibrate, a fraction in (0, 1].
    #[serde(default = "dflt::cut")]
    pub cut: f64,
    #[serde(default = "dflt::quanta")]
    pub quanta: u16,
    #[serde(default = "dflt::refresh")]
    pub refresh: u16,
    /// `pause_refresh = false`: a variant outside the block's contract. The block still hands its
    /// MAC a refresh of the paused classes every `refresh` cycles, but the MAC puts on the wire only
    /// resumes (XON) and the classes paused anew (XOFF for a class that the previous frame the MAC
    /// took from the block, for that port, did not pause); a frame left with nothing to say is taken
    /// and dropped. So an upstream's pause runs out after its `quanta` while the class stays paused.
    /// Default true: every frame the block makes goes on the wire (docs/paper-literal.md, "Pause
    /// expiry variant").
    #[serde(default = "dflt::pause_refresh", skip_serializing_if = "is_true")]
    pub pause_refresh: bool,
    #[serde(default = "dflt::max_cycles")]
    pub max_cycles: u64,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// `xoff = "auto"`: derive the ingress XOFF from the links (see [`Scenario::auto_headroom`]),
    /// replacing `thresholds.ing_xoff`.
    #[serde(default)]
    pub xoff: Option<XoffSetting>,
    /// Downstream receivers pausing switch ports: the egress port does not start frames of that
    /// priority from `start` for `cycles` cycles.
    #[serde(default)]
    pub egress_pauses: Vec<EgressPause>,
    /// Flows drawn at load time, added to `flows`.
    #[serde(default)]
    pub generate: Option<Generate>,
    /// The paper's Table I mix (long, short and query flows) drawn at load time, added to `flows`.
    #[serde(default)]
    pub mix: Option<super::mix::Mix>,
    /// Strict-priority and WDRR classes of every transmitter, the switch's egress ports and the
    /// upstream senders alike; absent, every priority is strict.
    #[serde(default)]
    pub scheduler: super::sched::SchedConfig,
    /// Shared-memory egress buffering; absent, every queue has its own `thresholds.eg_max` bytes.
    #[serde(default)]
    pub shared_memory: Option<super::config::SharedMemory>,
    /// Buffer cell size in bytes, a power of two (absent: the block counts bytes). The block then
    /// counts occupancy in cells (a packet takes its size rounded up to whole cells) and the
    /// thresholds, given in bytes here, are rounded down to whole cells.
    #[serde(default)]
    pub cell: Option<u32>,
    /// Retransmission timeout, cycles: a lost packet's bytes are sent again by its sender this long
    /// after the loss (a transport's timeout; no fast retransmit), and a flow completes when every
    /// byte is delivered. Absent: no retransmission, a lost byte counts as done.
    #[serde(default)]
    pub rto: Option<u64>,
    /// A network scenario (`capfc net --scenario`): this file's settings are every switch's, and
    /// its `[mix]` is drawn over the network's hosts, not over `ports`.
    #[serde(default)]
    pub network: Option<NetworkSection>,
}

/// The `[network]` table of a network scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// `paper`, `fat-tree:K`, `leaf-spine:L,S,H` or an HPCC topology.txt (see `capfc net`).
    pub topology: String,
    /// `detail` or `ecmp`.
    #[serde(default = "default_routing")]
    pub routing: String,
    /// `paper` (the paper's Linux TCP), `dctcp` or `open` (`capfc net --transport`).
    #[serde(default = "default_transport")]
    pub transport: String,
    /// Propagation delay of every link of a generated topology, nanoseconds.
    #[serde(default = "default_delay_ns")]
    pub delay_ns: u64,
}

fn default_routing() -> String {
    "detail".into()
}
fn default_transport() -> String {
    "paper".into()
}
fn default_delay_ns() -> u64 {
    500
}

/// How the ingress XOFF is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum XoffSetting {
    /// MAX minus the headroom of IEEE 802.1Q Annex N for this scenario's links.
    Auto,
}

/// Cycles from an ingress arrival crossing XOFF to the block's PFC frame request: I is registered
/// (1) and the frame request is registered (1), docs/microarchitecture-v2.md.
pub const BLOCK_PFC_LATENCY: u64 = 2;

/// A downstream receiver pauses output `port`, priority `prio`, from `start` for `cycles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EgressPause {
    pub port: usize,
    pub prio: u8,
    pub start: u64,
    pub cycles: u64,
}

/// Random flows: every input sends flows of `flow_bytes` on `prio` to uniformly chosen other
/// outputs, starting at exponentially distributed intervals so that each input offers `load`
/// (a fraction of the line rate) for `duration` cycles. Seeded: the same seed, the same flows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    pub load: f64,
    pub flow_bytes: u64,
    pub duration: u64,
    #[serde(default = "dflt::lossless_prio")]
    pub prio: u8,
    pub seed: u64,
}

impl Generate {
    /// The flows this draws for a switch of `ports` ports.
    pub fn flows(&self, ports: usize) -> Vec<FlowSpec> {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed);
        // Mean cycles between flow starts at one input: bytes on the wire / load.
        let wire = self.flow_bytes as f64 * (1.0 + 20.0 / 1500.0);
        let mean = wire / self.load;
        let mut v = vec![];
        for src in 0..ports {
            let mut t = 0.0f64;
            loop {
                t += super::mix::exp_gap(&mut rng, mean);
                if t >= self.duration as f64 {
                    break;
                }
                let dst = super::mix::other_port(&mut rng, src, ports);
                v.push(FlowSpec {
                    src,
                    dst,
                    prio: self.prio,
                    bytes: self.flow_bytes,
                    start: t as u64,
                    class: "uniform".into(),
                });
            }
        }
        v
    }
}

impl Scenario {
    /// The built-in scenarios: (name, TOML).
    pub const BUILTIN_FILES: &'static [(&'static str, &'static str)] = &[
        (
            "incast-victims",
            include_str!("../../../../scenarios/incast-victims.toml"),
        ),
        (
            "uniform",
            include_str!("../../../../scenarios/uniform.toml"),
        ),
        (
            "paper-1",
            include_str!("../../../../scenarios/paper-1.toml"),
        ),
        (
            "paper-2",
            include_str!("../../../../scenarios/paper-2.toml"),
        ),
        (
            "paper-3",
            include_str!("../../../../scenarios/paper-3.toml"),
        ),
        (
            "paper-4",
            include_str!("../../../../scenarios/paper-4.toml"),
        ),
        (
            "paper-5",
            include_str!("../../../../scenarios/paper-5.toml"),
        ),
        (
            "paper-6",
            include_str!("../../../../scenarios/paper-6.toml"),
        ),
        (
            "paper-fat-1",
            include_str!("../../../../scenarios/paper-fat-1.toml"),
        ),
        (
            "paper-fat-2",
            include_str!("../../../../scenarios/paper-fat-2.toml"),
        ),
        (
            "paper-fat-3",
            include_str!("../../../../scenarios/paper-fat-3.toml"),
        ),
        (
            "paper-fat-4",
            include_str!("../../../../scenarios/paper-fat-4.toml"),
        ),
        (
            "paper-fat-5",
            include_str!("../../../../scenarios/paper-fat-5.toml"),
        ),
        (
            "paper-fat-6",
            include_str!("../../../../scenarios/paper-fat-6.toml"),
        ),
        (
            "paper-literal-1",
            include_str!("../../../../scenarios/paper-literal-1.toml"),
        ),
        (
            "paper-literal-2",
            include_str!("../../../../scenarios/paper-literal-2.toml"),
        ),
        (
            "paper-literal-3",
            include_str!("../../../../scenarios/paper-literal-3.toml"),
        ),
        (
            "paper-literal-4",
            include_str!("../../../../scenarios/paper-literal-4.toml"),
        ),
        (
            "paper-literal-5",
            include_str!("../../../../scenarios/paper-literal-5.toml"),
        ),
        (
            "paper-literal-6",
            include_str!("../../../../scenarios/paper-literal-6.toml"),
        ),
        (
            "shared-memory",
            include_str!("../../../../scenarios/shared-memory.toml"),
        ),
        (
            "paused-egress",
            include_str!("../../../../scenarios/paused-egress.toml"),
        ),
        (
            "shared-victims",
            include_str!("../../../../scenarios/shared-victims.toml"),
        ),
    ];

    /// The names of the built-in scenarios.
    pub fn builtin_names() -> Vec<&'static str> {
        Self::BUILTIN_FILES.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in scenario by name.
    pub fn builtin(name: &str) -> Option<Scenario> {
        Self::BUILTIN_FILES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, t)| {
                Self::from_toml(t, &format!("builtin:{n}")).expect("built-in scenarios are valid")
            })
    }

    /// The default scenario (see `scenarios/incast-victims.toml`).
    pub fn incast_victims() -> Scenario {
        Self::builtin("incast-victims").unwrap()
    }

    /// A built-in scenario's name, or a TOML file's path.
    pub fn load(name_or_file: &str) -> Result<Scenario, ScenarioError> {
        Self::load_with(name_or_file, true)
    }

    /// [`Scenario::load`] for the settings alone (every switch of a network takes them): the file
    /// may have no flows.
    pub fn load_settings(name_or_file: &str) -> Result<Scenario, ScenarioError> {
        Self::load_with(name_or_file, false)
    }

    fn load_with(name_or_file: &str, need_flows: bool) -> Result<Scenario, ScenarioError> {
        if let Some(s) = Self::builtin(name_or_file) {
            return Ok(s);
        }
        let text = std::fs::read_to_string(name_or_file).map_err(|e| ScenarioError {
            origin: name_or_file.to_string(),
            why: format!(
                "{e} (and it is not a built-in scenario: {})",
                Self::builtin_names().join(", ")
            ),
        })?;
        Self::parse(&text, name_or_file, need_flows)
    }

    /// Parse and check a scenario; `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, origin, true)
    }

    fn parse(text: &str, origin: &str, need_flows: bool) -> Result<Scenario, ScenarioError> {
        let err = |why: String| ScenarioError {
            origin: origin.to_string(),
            why,
        };
        let mut sc: Scenario =
            toml::from_str(text).map_err(|e| err(e.to_string().trim_end().to_string()))?;
        if !(2..=128).contains(&sc.ports) {
            return Err(err(format!("field ports: {} is outside 2..=128", sc.ports)));
        }
        if let Some(g) = &sc.generate {
            if !(g.load > 0.0 && g.load <= 1.0) {
                return Err(err(format!(
                    "field generate.load: {} is outside (0, 1]",
                    g.load
                )));
            }
            if g.flow_bytes == 0 || usize::from(g.prio) >= NPRIO {
                return Err(err(
                    "field generate: flow_bytes must be > 0 and prio 0..=7".into()
                ));
            }
            // The expected number of flows, before drawing them (memory).
            let expect = sc.ports as f64 * g.duration as f64 * g.load
                / (g.flow_bytes as f64 * (1.0 + 20.0 / 1500.0));
            if expect > 1e6 {
                return Err(err(format!(
                    "field generate: would draw about {expect:.0} flows (at most 1000000): shorten duration or raise flow_bytes"
                )));
            }
            let extra = g.flows(sc.ports);
            sc.flows.extend(extra);
        }
        if let (Some(m), None) = (&sc.mix, &sc.network) {
            m.validate(sc.ports)
                .map_err(|(f, why)| err(format!("field {f}: {why}")))?;
            let extra = m.flows(sc.ports);
            sc.flows.extend(extra);
        }
        let need_flows = need_flows && sc.network.is_none();
        if sc.xoff == Some(XoffSetting::Auto) {
            sc.apply_auto_xoff()
                .map_err(|e| err(format!("field xoff: {e}")))?;
        }
        if need_flows && sc.flows.is_empty() {
            return Err(err("field flows: the scenario has no flows".into()));
        }
        sc.validate()
            .map_err(|e| err(format!("field {}: {}", e.field, e.why)))?;
        let p = super::block_params(&sc);
        sc.block_config(&p, Mode::StopCal)
            .validate(&p)
            .map_err(|e| {
                err(format!(
                    "field {}: {}",
                    e.field
                        .replace("prio[0].", "thresholds.")
                        .replace("cut_fixed", "cut"),
                    e.why
                ))
            })?;
        Ok(sc)
    }

    /// `xoff = "auto"`: ingress XOFF at ingress MAX less the Annex N headroom of this scenario's
    /// links ([`Scenario::auto_headroom`]).
    pub fn apply_auto_xoff(&mut self) -> Result<(), crate::headroom::HeadroomError> {
        let h = self.auto_headroom()?;
        let x = crate::headroom::xoff(u64::from(self.thresholds.ing_max), &h)?;
        self.thresholds.ing_xoff = x as u32;
        Ok(())
    }

    /// The headroom of IEEE 802.1Q Annex N for this scenario's links, with the same code as
    /// `capfc headroom`. One cycle is one byte time, so every delay in cycles is 8 bit times:
    /// MaxFrame is the MTU with preamble and gap, the cable is `prop_delay`, the remote's
    /// higher-layer delay is `pfc_response`, the local transmit delay is the block's
    /// arrival-to-frame latency, and the PHY delays are 0 (the model has none).
    pub fn auto_headroom(
        &self,
    ) -> Result<crate::headroom::Headroom, crate::headroom::HeadroomError> {
        let link = crate::headroom::LinkParams {
            max_frame_bits: (u64::from(self.mtu) + super::FRAME_OVERHEAD) * 8,
            pfc_frame_bits: super::PFC_FRAME_BYTES * 8,
            cable_delay_bits: self.prop_delay * 8,
            tx_s1_bits: BLOCK_PFC_LATENCY * 8,
            rx_s1_bits: 0,
            tx_s2_bits: 0,
            rx_s2_bits: 0,
            hd_s2_bits: self.pfc_response * 8,
        };
        let dv = crate::headroom::annex_n(&link)?;
        crate::headroom::headroom(dv.dv_bits, crate::headroom::Alpha::ONE, 1)
    }

    pub fn block_config(&self, p: &BlockParams, mode: Mode) -> BlockConfig {
        let t = self.thresholds;
        let c = |v: u32| v >> p.cell_log2;
        let cells = PrioThresholds {
            ing_max: c(t.ing_max),
            ing_xoff: c(t.ing_xoff),
            ing_xon: c(t.ing_xon),
            eg_max: c(t.eg_max),
            eg_xoff: c(t.eg_xoff),
            eg_xon: c(t.eg_xon),
            eg_warn: c(t.eg_warn),
        };
        BlockConfig {
            prio: [cells; NPRIO],
            lossless: self.lossless,
            mode,
            cut_fixed: crate::block::cfg::cut_from_fraction(self.cut, p.cut_f),
            quanta: self.quanta,
            refresh: self.refresh,
        }
    }

    /// Reject what the model cannot run, naming the field.
    ///
    /// (Long, as a flat list of one rule a field, in the file's order.)
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |f: String, w: String| Err(ConfigError::new(f, w));
        if !(2..=128).contains(&self.ports) {
            return bad("ports".into(), format!("{} is outside 2..=128", self.ports));
        }
        if self.pipe_interval == 0 {
            return bad("pipe_interval".into(), "must be at least 1 cycle".into());
        }
        if !(self.cycle_ns.is_finite() && self.cycle_ns > 0.0) {
            return bad(
                "cycle_ns".into(),
                format!("{} is not a positive number of nanoseconds", self.cycle_ns),
            );
        }
        if self.max_cycles == 0 {
            return bad("max_cycles".into(), "must be at least 1 cycle".into());
        }
        // Times are added to the cycle count: keep them far from overflowing it.
        const LONGEST: u64 = 1 << 40;
        let times = [
            ("prop_delay", Some(self.prop_delay)),
            ("pfc_response", Some(self.pfc_response)),
            ("pipe_latency", Some(self.pipe_latency)),
            ("pipe_interval", Some(self.pipe_interval)),
            ("rto", self.rto),
        ];
        for (f, v) in times {
            if let Some(v) = v.filter(|&v| v > LONGEST) {
                return bad(
                    f.into(),
                    format!("{v} cycles is more than the limit of {LONGEST}"),
                );
            }
        }
        for (k, e) in self.egress_pauses.iter().enumerate() {
            if e.cycles > LONGEST || e.start > LONGEST {
                return bad(
                    format!("egress_pauses[{k}]"),
                    format!("start and cycles are at most {LONGEST}"),
                );
            }
        }
        if self.rto == Some(0) {
            return bad(
                "rto".into(),
                "a retransmission timeout is at least 1 cycle".into(),
            );
        }
        if let Some(c) = self.cell {
            if !c.is_power_of_two() || !(2..=4096).contains(&c) {
                return bad(
                    "cell".into(),
                    format!("{c} bytes: a cell is a power of two from 2 to 4096 bytes"),
                );
            }
        }
        if self.mtu == 0 || u32::from(self.mtu) > crate::block::mask32(BlockParams::default().sw) {
            return bad(
                "mtu".into(),
                format!("{} does not fit the block's size lanes", self.mtu),
            );
        }
        for (k, e) in self.egress_pauses.iter().enumerate() {
            if e.port >= self.ports || usize::from(e.prio) >= NPRIO {
                return bad(
                    format!("egress_pauses[{k}]"),
                    format!(
                        "port {} prio {} does not exist on a {}-port switch",
                        e.port, e.prio, self.ports
                    ),
                );
            }
        }
        self.scheduler.validate()?;
        if let Some(sm) = &self.shared_memory {
            self.validate_shared(sm)?;
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
            if !self.scheduler.covers(f.prio) {
                return bad(
                    format!("flows[{k}].prio"),
                    format!(
                        "priority {} is in neither scheduler.sp nor scheduler.wdrr",
                        f.prio
                    ),
                );
            }
        }
        Ok(())
    }

    /// The caps of `[shared_memory]` must nest, and the block's egress MAX must be the per-queue cap
    /// (the block takes the per-queue decision, `tm.rs`).
    fn validate_shared(&self, sm: &super::config::SharedMemory) -> Result<(), ConfigError> {
        let bad = |f: &str, w: String| Err(ConfigError::new(format!("shared_memory.{f}"), w));
        if sm.per_queue == 0 {
            return bad("per_queue", "must be at least 1 byte".into());
        }
        if sm.per_port < sm.per_queue {
            return bad(
                "per_port",
                format!(
                    "{} is below per_queue {}: a port could never hold what one of its queues may",
                    sm.per_port, sm.per_queue
                ),
            );
        }
        if sm.pool < sm.per_port {
            return bad(
                "pool",
                format!("{} is below per_port {}", sm.pool, sm.per_port),
            );
        }
        let max = u64::from(sm.dedicated) + u64::from(sm.per_queue);
        if u64::from(self.thresholds.eg_max) != max {
            return Err(ConfigError::new(
                "thresholds.eg_max",
                format!(
                    "{} must be shared_memory.dedicated + shared_memory.per_queue = {max}: the \
                     block's egress MAX is the per-queue cap of a shared-memory buffer",
                    self.thresholds.eg_max
                ),
            ));
        }
        Ok(())
    }
}
