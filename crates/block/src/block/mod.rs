//! v2, the previous CaPFC block (`check/capfc_v2/rtl/capfc_v2_top.sv`, a test subject of `capfc
//! check`), as a cycle model. The block is v3 ([`crate::v3`]); v2's event-driven model goes
//! behind a switch with `--block v2`.
//!
//! One module per hardware unit, named as in the RTL: [`cfg`](mod@cfg) (`capfc_v2_cfg`),
//! [`ingress`] (`capfc_v2_ingress`), [`egress`] (`capfc_v2_egress`), [`ram`] (`capfc_v2_ram`,
//! `capfc_v2_lutram`), [`sort`] (`capfc_v2_sort`), [`pfc_gen`] (`capfc_v2_pfc_gen`) and [`top`]
//! (`capfc_v2_top`). The contract they
//! implement, latency, reset values and tie-breaks included, is `docs/microarchitecture-v2.md`.
//! The model is pure: [`CapfcTop::tick_cycle`] takes one cycle's inputs and returns that cycle's
//! outputs; no I/O, no Verilator.

pub mod cfg;
pub mod coverage;
pub mod egress;
pub mod fault;
pub mod ingress;
pub mod pack;
pub mod pfc_gen;
pub mod ram;
pub mod rtl_configs;
pub mod signals;
pub mod sort;
pub mod top;

use arbitrary_int::{u2, u3};
use serde::{Deserialize, Serialize};

pub use cfg::{BlockConfig, PrioThresholds};
pub use fault::Fault;
pub use top::CapfcTop;

/// Number of priorities (802.1Qbb classes).
pub const NPRIO: usize = 8;

/// A configuration or parameter the block cannot take, with the field that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[config] {field}: {why}")]
pub struct ConfigError {
    /// The field, as named in the configuration (`prio[3].eg_warn`, `params.np`).
    pub field: String,
    /// Why it is rejected.
    pub why: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, why: impl Into<String>) -> Self {
        ConfigError {
            field: field.into(),
            why: why.into(),
        }
    }
}

/// Elaboration parameters of `capfc_v2_top` (the Verilog parameters of the same names).
///
/// The same values are passed to Verilator as `-G` options and written into golden-file headers;
/// this struct is the one place they come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockParams {
    /// NP: ports.
    pub np: usize,
    /// SW: packet size width in bits (bytes).
    pub sw: u32,
    /// OW: occupancy and threshold width in bits (units).
    pub ow: u32,
    /// CW: arrival counter width in bits.
    pub cw: u32,
    /// CELL_LOG2: a unit is 2^CELL_LOG2 bytes (0: bytes).
    pub cell_log2: u32,
    /// CUT_F: fractional bits of CUT.
    pub cut_f: u32,
    /// NL: counted classes (lossless priorities with arrival counters and E).
    pub nl: usize,
}

impl Default for BlockParams {
    /// The "np8" parameter set of `rtl_configs.rs`.
    fn default() -> Self {
        let (_, v) = rtl_configs::RTL_CONFIGS
            .iter()
            .find(|(n, _)| *n == "np8")
            .unwrap();
        Self::from_values(v)
    }
}

impl BlockParams {
    /// From `[NP, SW, OW, CW, CELL_LOG2, CUT_F, NL]`, the order of `rtl_configs.rs`.
    pub fn from_values(v: &[u32; 7]) -> Self {
        BlockParams {
            np: v[0] as usize,
            sw: v[1],
            ow: v[2],
            cw: v[3],
            cell_log2: v[4],
            cut_f: v[5],
            nl: v[6] as usize,
        }
    }

    /// The parameter set of `rtl_configs.rs` named `name` (e.g. `np8`), if there is one.
    pub fn of_rtl_config(name: &str) -> Option<Self> {
        rtl_configs::RTL_CONFIGS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| Self::from_values(v))
    }

    /// The name of the Verilated parameter set with exactly these values, if one is built in.
    pub fn rtl_config_name(&self) -> Option<&'static str> {
        rtl_configs::RTL_CONFIGS
            .iter()
            .find(|(_, v)| Self::from_values(v) == *self)
            .map(|(n, _)| *n)
    }

    /// The parameter set `np{np}` of `rtl_configs.rs` when there is one (so its RTL is built),
    /// else the default parameters with `np` ports.
    pub fn with_ports(np: usize) -> Self {
        let name = format!("np{np}");
        match rtl_configs::RTL_CONFIGS.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Self::from_values(v),
            None => BlockParams {
                np,
                ..Self::default()
            },
        }
    }

    /// Reject parameters the RTL cannot elaborate.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(2..=128).contains(&self.np) {
            return Err(ConfigError::new(
                "params.np",
                format!("{} ports is not supported (2..=128)", self.np),
            ));
        }
        if !(1..=16).contains(&self.cw) {
            return Err(ConfigError::new(
                "params.cw",
                format!("{} is outside 1..=16", self.cw),
            ));
        }
        if !(1..=32).contains(&self.ow) {
            return Err(ConfigError::new(
                "params.ow",
                format!("{} is outside 1..=32", self.ow),
            ));
        }
        if self.sw == 0 || self.sw > self.ow {
            return Err(ConfigError::new(
                "params.sw",
                format!("{} is outside 1..=OW ({})", self.sw, self.ow),
            ));
        }
        if self.cell_log2 >= self.sw {
            return Err(ConfigError::new(
                "params.cell_log2",
                format!(
                    "{} must be below SW ({}): the rounding constant 2^CELL_LOG2-1 is computed in SW+1 bits",
                    self.cell_log2, self.sw
                ),
            ));
        }
        if self.cell_log2 > 12 {
            return Err(ConfigError::new(
                "params.cell_log2",
                format!("{} is outside 0..=12", self.cell_log2),
            ));
        }
        if !(1..=16).contains(&self.cut_f) {
            return Err(ConfigError::new(
                "params.cut_f",
                format!("{} is outside 1..=16", self.cut_f),
            ));
        }
        if !(1..=NPRIO).contains(&self.nl) {
            return Err(ConfigError::new(
                "params.nl",
                format!("{} is outside 1..=8", self.nl),
            ));
        }
        Ok(())
    }

    /// NQ: queues per side (ports × priorities).
    pub fn nq(&self) -> usize {
        self.np * NPRIO
    }

    /// PW: port index width.
    pub fn pw(&self) -> u32 {
        clog2(self.np as u64).max(1)
    }

    /// QIW: queue index width.
    pub fn qiw(&self) -> u32 {
        self.pw() + 3
    }

    /// SUMW: width of the sort unit's sums.
    pub fn sumw(&self) -> u32 {
        self.cw + self.pw()
    }

    /// LW: counted-class index width.
    pub fn lw(&self) -> u32 {
        clog2(self.nl as u64).max(1)
    }

    /// NR: counter rows `{o, l}` (`NP << LW`; rows with `l >= NL` are never written).
    pub fn nr(&self) -> usize {
        self.np << self.lw()
    }

    /// Row index `{o, l}`.
    pub fn row(&self, o: usize, l: usize) -> usize {
        (o << self.lw()) | l
    }

    /// MW: width of the Stop-Calibrate target `cut * T`.
    pub fn mw(&self) -> u32 {
        self.sumw() + self.cut_f + 1
    }

    /// BW: width of the Stop-Calibrate bit index.
    pub fn bw(&self) -> u32 {
        clog2(u64::from(self.cw)).max(1)
    }

    /// Words of a counter RAM (`2^(LW+PW)`).
    pub fn cnt_words(&self) -> usize {
        1 << (self.lw() + self.pw())
    }

    /// Mask of an occupancy (OW bits).
    pub fn occ_mask(&self) -> u32 {
        mask32(self.ow)
    }

    /// Largest counter value (saturation point).
    pub fn cnt_max(&self) -> u16 {
        mask32(self.cw) as u16
    }

    /// Units a packet of `size` bytes takes: `ceil(size / 2^CELL_LOG2)`.
    pub fn units(&self, size: u16) -> u32 {
        let s = u32::from(size) & mask32(self.sw);
        (s + (1u32 << self.cell_log2) - 1) >> self.cell_log2
    }

    /// The Verilator/Icarus parameter overrides for these values.
    pub fn verilog_overrides(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("NP", self.np as u64),
            ("SW", self.sw as u64),
            ("OW", self.ow as u64),
            ("CW", self.cw as u64),
            ("CELL_LOG2", self.cell_log2 as u64),
            ("CUT_F", self.cut_f as u64),
            ("NL", self.nl as u64),
        ]
    }
}

/// ceil(log2(n)) for n >= 1.
pub fn clog2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// The low `w` bits set (w <= 32).
pub fn mask32(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}

/// The low `w` bits set (w <= 128).
pub fn mask128(w: usize) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// Congestion-handling mode of the block (register `mode_q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Plain PFC: D = I.
    PfcOnly,
    /// CaPFC with Stop-Max contributor selection.
    StopMax,
    /// CaPFC with Stop-Calibrate contributor selection.
    StopCal,
}

impl Mode {
    pub fn code(self) -> u2 {
        match self {
            Mode::PfcOnly => u2::new(0),
            Mode::StopMax => u2::new(1),
            Mode::StopCal => u2::new(2),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::PfcOnly => "pfc",
            Mode::StopMax => "max",
            Mode::StopCal => "cal",
        }
    }
}

/// A packet lane: priority and size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Pkt {
    pub prio: u8,
    pub size: u16,
}

impl Pkt {
    pub fn prio3(&self) -> u3 {
        u3::new(self.prio & 7)
    }
}

/// A packet leaving ingress into the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Departure {
    pub port: u8,
    pub prio: u8,
    pub size: u16,
}

/// A packet at the end of the pipeline asking for an egress queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enqueue {
    pub oport: u8,
    pub prio: u8,
    pub iport: u8,
    pub size: u16,
}

fn all_ready() -> u128 {
    u128::MAX
}

/// One cycle's inputs of `capfc_v2_top`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    pub rst: bool,
    /// A configuration write: (address, data).
    pub cfg: Option<(u8, u32)>,
    /// Ingress arrival lane per port.
    pub arr: Vec<Option<Pkt>>,
    pub dep: Option<Departure>,
    pub enq: Option<Enqueue>,
    /// Egress dequeue lane per port.
    pub deq: Vec<Option<Pkt>>,
    /// Bit i: the MAC of port i takes a pending PFC frame this cycle. An idle cycle has every
    /// MAC ready.
    #[serde(default = "all_ready")]
    pub pfc_ready: u128,
}

impl Inputs {
    /// An idle cycle for `np` ports.
    pub fn idle(np: usize) -> Self {
        Inputs {
            rst: false,
            cfg: None,
            arr: vec![None; np],
            dep: None,
            enq: None,
            deq: vec![None; np],
            pfc_ready: mask128(np),
        }
    }

    /// Make this an idle cycle again without reallocating.
    pub fn clear(&mut self) {
        self.rst = false;
        self.cfg = None;
        self.arr.iter_mut().for_each(|a| *a = None);
        self.dep = None;
        self.enq = None;
        self.deq.iter_mut().for_each(|d| *d = None);
        self.pfc_ready = mask128(self.deq.len());
    }

    /// One line naming every valid lane, e.g. `arr3(p2 1500B) enq(o0 p3 i3 1024B)`, or `idle`.
    pub fn describe(&self) -> String {
        let inp = self;
        let mut s = vec![];
        if inp.rst {
            s.push("rst".to_string());
        }
        if let Some((a, d)) = inp.cfg {
            s.push(format!("cfg[{a:#04x}]={d:#x}"));
        }
        for (i, a) in inp.arr.iter().enumerate() {
            if let Some(p) = a {
                s.push(format!("arr{i}(p{} {}B)", p.prio, p.size));
            }
        }
        if let Some(d) = inp.dep {
            s.push(format!("dep(port{} p{} {}B)", d.port, d.prio, d.size));
        }
        if let Some(e) = inp.enq {
            s.push(format!(
                "enq(o{} p{} i{} {}B)",
                e.oport, e.prio, e.iport, e.size
            ));
        }
        for (o, d) in inp.deq.iter().enumerate() {
            if let Some(p) = d {
                s.push(format!("deq{o}(p{} {}B)", p.prio, p.size));
            }
        }
        if inp.pfc_ready != mask128(inp.deq.len()) {
            s.push(format!("pfc_ready={:#x}", inp.pfc_ready));
        }
        if s.is_empty() {
            "idle".into()
        } else {
            s.join(" ")
        }
    }

    /// True when no lane is valid and there is no reset or configuration write (`pfc_ready` does
    /// not count: it changes nothing while no frame is pending).
    pub fn is_idle(&self) -> bool {
        !self.rst
            && self.cfg.is_none()
            && self.dep.is_none()
            && self.enq.is_none()
            && self.arr.iter().all(Option::is_none)
            && self.deq.iter().all(Option::is_none)
    }
}

/// One cycle's outputs of `capfc_v2_top` (sampled before the clock edge that ends the cycle).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outputs {
    /// Bit i: port i's arrival fits (combinational).
    pub arr_accept: u128,
    /// The enqueue fits (combinational).
    pub enq_accept: bool,
    /// Bit i: port i has a PFC frame to send (combinational from registers).
    pub pfc_valid: u128,
    /// Per port: class-enable vector of the pending frame.
    pub pfc_cev: Vec<u8>,
    /// Per port: bit p set = class p pauses for `pfc_quanta`, clear = resumes (quanta 0).
    pub pfc_xoff: Vec<u8>,
    /// The configured pause time.
    pub pfc_quanta: u16,
    /// Per port: D, bit p for priority p.
    pub d_state: Vec<u8>,
}

impl Outputs {
    /// The pause time of class p in port i's pending frame (0 = resume).
    pub fn quanta(&self, i: usize, p: usize) -> u16 {
        if self.pfc_xoff[i] >> p & 1 == 1 {
            self.pfc_quanta
        } else {
            0
        }
    }

    pub fn new(np: usize) -> Self {
        Outputs {
            arr_accept: 0,
            enq_accept: false,
            pfc_valid: 0,
            pfc_cev: vec![0; np],
            pfc_xoff: vec![0; np],
            pfc_quanta: 0,
            d_state: vec![0; np],
        }
    }
}

/// `a` (a state read back from a snapshot) has the shape of `b` (the same state built fresh):
/// every array as long, every object's fields present, all the way down; `path` names the place
/// of the first difference.
pub fn same_shape(
    a: &serde_json::Value,
    b: &serde_json::Value,
    path: &str,
) -> Result<(), crate::error::SnapshotError> {
    use serde_json::Value as J;
    match (a, b) {
        (J::Array(x), J::Array(y)) => {
            if x.len() != y.len() {
                return Err(crate::error::SnapshotError::new(
                    path,
                    format!("{} entries, expected {}", x.len(), y.len()),
                ));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .try_for_each(|(k, (u, v))| same_shape(u, v, &format!("{path}[{k}]")))
        }
        (J::Object(x), J::Object(y)) => y.iter().try_for_each(|(k, v)| {
            same_shape(x.get(k).unwrap_or(&J::Null), v, &format!("{path}.{k}"))
        }),
        _ => Ok(()),
    }
}

/// Which micro-architecture of the block: the switch's (`capfc run --block`), the ports' of the
/// bindings (`crate::ports`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// v2 (`docs/microarchitecture-v2.md`), the test subject: every lane answered in the cycle
    /// it is seen.
    V2,
    /// v3 (`docs/microarchitecture.md`), the block: lanes taken on their port's slot, arrivals
    /// and enqueues answered four cycles after the take (`crate::v3`).
    #[default]
    V3,
}

impl BlockKind {
    pub fn parse(s: &str) -> Option<BlockKind> {
        match s {
            "v2" => Some(BlockKind::V2),
            "v3" => Some(BlockKind::V3),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::V2 => "v2",
            BlockKind::V3 => "v3",
        }
    }
}
