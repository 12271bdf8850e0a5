//! QCN's network (seed 003): hosts and output-queued switches on 10 Gb/s links, event by event, with
//! 802.3x PAUSE always on, an 802.1Qau congestion point per switch egress queue (modes `QCN`,
//! `QCN_AR`), QCN v2.2 reaction points per flow at the hosts, and CN-snooping adaptive routing
//! (`QCN_AR`). `PAUSE` is the same network with no congestion management.
//!
//! **Clock.** One cycle is one byte time of a 10 Gb/s link, 0.8 ns; a 1500-byte frame takes 1500
//! cycles on any link (no preamble or gap is modelled) and each link adds `delay_ns` of propagation.
//! Nothing happens between events, so a run costs its frames, not its cycles.
//!
//! **Switches.** Store and forward: a frame is routed when its last byte has arrived, into the
//! output queue of the port its routing picks ([`crate::switch::qcn::CongTable::route`] under
//! adaptive routing, else the first of the preference list); the output queue's length is what the
//! congestion point sees. The buffer is partitioned per input port (`buffer_kb` each, counting that
//! input's bytes in any output queue): above `buffer − headroom` the switch sends PAUSE (on) up
//! that input's link, below that less two frames PAUSE (off); a paused transmitter finishes its
//! frame. Headroom is two frames plus twice the link's propagation in bytes, so nothing is ever
//! dropped. CNMs and PAUSE frames go out of a control queue served before data and never paused
//! (CNMs are sent on a priority that is not paused). Each CNM the congestion point asks for is a
//! real frame ([`Cnm`]: 14 + 24 bytes and [`CNM_MSDU`] bytes of the sampled frame, 106 bytes with
//! its FCS), takes its bytes' time on every link, and is kept for the capture when one is asked
//! for.
//!
//! **Routes.** Per destination host, the links that may lead to it form a directed acyclic graph:
//! by default a switch may send to any neighbour nearer in hops (minimal routes, preferred by
//! hops, then name); the scenario's `[[prefer]]` entries replace a switch's list for some
//! destinations (the non-minimal alternatives), and every destination's graph is checked for
//! loops when the file is read. Without AR a data frame takes the first port; with AR [`CongTable::route`]
//! picks; CNMs take a random port of the list under AR (so that every upstream path hears them),
//! else the first.
//!
//! **Hosts.** Per-destination queues served round robin (`host_queue_frames` each; an arrival that
//! finds it full is dropped at the host and counted apart: it never entered the network); a flow
//! with a reaction point sends its next frame no earlier than `bytes·8 / CR` after the last.
//! Receivers hold a resequencing buffer per flow: a frame ahead of the next expected sequence
//! number waits there; its occupancy (frames) is integrated over time.
//!
//! **Traffic.** Hot flows send 1500-byte frames at `hot_rate_gbps` (constant rate) from
//! `hot_start_ms` to `hot_end_ms`; uniform Bernoulli traffic (each host, each frame time, a frame
//! with probability `load` to a uniformly drawn other host) runs at `background_load` outside the
//! hotspot, or at `uniform_load` throughout when that is set.

use super::ScenarioFileError;
use crate::switch::qcn::{Cnm, CongTable, Cp, CpParams, Rp, RpParams, Sample};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap, VecDeque};

/// Bytes of the sampled frame's MSDU a CNM carries.
pub const CNM_MSDU: usize = 64;

/// The QCN network's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QcnMode {
    /// PAUSE alone (no congestion management).
    Pause,
    /// QCN congestion points and reaction points, with PAUSE.
    Qcn,
    /// QCN with CN-snooping adaptive routing, with PAUSE.
    QcnAr,
}

impl QcnMode {
    pub const ALL: [QcnMode; 3] = [QcnMode::Pause, QcnMode::Qcn, QcnMode::QcnAr];

    pub fn name(self) -> &'static str {
        match self {
            QcnMode::Pause => "PAUSE",
            QcnMode::Qcn => "QCN",
            QcnMode::QcnAr => "QCN_AR",
        }
    }

    pub fn parse(s: &str) -> Option<QcnMode> {
        QcnMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
    }

    fn cm(self) -> bool {
        self != QcnMode::Pause
    }

    fn ar(self) -> bool {
        self == QcnMode::QcnAr
    }
}

/// A preference list set by hand: at switch `at`, frames to each of `to` take `via` (neighbour
/// names, most preferred first).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prefer {
    pub at: String,
    pub to: Vec<String>,
    pub via: Vec<String>,
}

/// A QCN scenario file's `[qcn]` table (scenarios/qcn-*.toml).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnConfig {
    /// Links as pairs of node names; `H…` are hosts (one link each), `S…` switches.
    pub links: Vec<[String; 2]>,
    /// Hot flows as (source, destination) host pairs.
    #[serde(default)]
    pub hot: Vec<[String; 2]>,
    /// Output queues reported, as (switch, neighbour) pairs.
    #[serde(default)]
    pub hot_queues: Vec<[String; 2]>,
    #[serde(default = "d_hot_rate")]
    pub hot_rate_gbps: f64,
    pub duration_ms: f64,
    #[serde(default = "d_hot_start")]
    pub hot_start_ms: f64,
    #[serde(default = "d_hot_end")]
    pub hot_end_ms: f64,
    /// Where the hot flows' averages start (after the first reaction), ms.
    #[serde(default = "d_settle")]
    pub settle_ms: f64,
    #[serde(default = "d_bg")]
    pub background_load: f64,
    /// Uniform Bernoulli load throughout (0: off); with it, no hotspot.
    #[serde(default)]
    pub uniform_load: f64,
    /// Uniform runs: throughput is measured from here, ms.
    #[serde(default)]
    pub warmup_ms: f64,
    #[serde(default = "d_line")]
    pub line_gbps: f64,
    #[serde(default = "d_frame")]
    pub frame_bytes: u64,
    #[serde(default = "d_buffer")]
    pub buffer_kb: f64,
    #[serde(default = "d_delay")]
    pub delay_ns: f64,
    #[serde(default = "d_hostq")]
    pub host_queue_frames: usize,
    #[serde(default = "d_qeq")]
    pub q_eq: f64,
    #[serde(default = "d_wd")]
    pub w_d: f64,
    #[serde(default = "d_gd")]
    pub g_d: f64,
    #[serde(default = "d_sample")]
    pub sample_kb: f64,
    #[serde(default)]
    pub fb_sampling: bool,
    #[serde(default = "d_timer")]
    pub timer_ms: f64,
    #[serde(default = "d_true")]
    pub extra_fast_recovery: bool,
    #[serde(default = "d_minrate")]
    pub min_rate_kbps: f64,
    #[serde(default = "d_fr")]
    pub fast_recovery: u32,
    #[serde(default = "d_bc")]
    pub byte_count_kb: f64,
    #[serde(default = "d_ai")]
    pub active_mbps: f64,
    #[serde(default = "d_hai")]
    pub hyperactive_mbps: f64,
    #[serde(default = "d_mdf")]
    pub min_decrease: f64,
    #[serde(default = "d_ar")]
    pub ar_timer_ms: f64,
    /// Rates, queues and table entries are averaged over bins of this, ms.
    #[serde(default = "d_bin")]
    pub bin_ms: f64,
    #[serde(default = "d_seed")]
    pub seed: u64,
    #[serde(default)]
    pub prefer: Vec<Prefer>,
}

fn d_hot_rate() -> f64 {
    9.5
}
fn d_hot_start() -> f64 {
    200.0
}
fn d_hot_end() -> f64 {
    1500.0
}
fn d_settle() -> f64 {
    300.0
}
fn d_bg() -> f64 {
    0.1
}
fn d_line() -> f64 {
    10.0
}
fn d_frame() -> u64 {
    1500
}
fn d_buffer() -> f64 {
    150.0
}
fn d_delay() -> f64 {
    500.0
}
fn d_hostq() -> usize {
    1000
}
fn d_qeq() -> f64 {
    33_000.0
}
fn d_wd() -> f64 {
    2.0
}
fn d_gd() -> f64 {
    1.0 / 128.0
}
fn d_sample() -> f64 {
    150.0
}
fn d_timer() -> f64 {
    15.0
}
fn d_true() -> bool {
    true
}
fn d_minrate() -> f64 {
    100.0
}
fn d_fr() -> u32 {
    5
}
fn d_bc() -> f64 {
    150.0
}
fn d_ai() -> f64 {
    5.0
}
fn d_hai() -> f64 {
    50.0
}
fn d_mdf() -> f64 {
    0.5
}
fn d_ar() -> f64 {
    250.0
}
fn d_bin() -> f64 {
    1.0
}
fn d_seed() -> u64 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QcnFile {
    qcn: QcnConfig,
}

/// The line where `field = ...` is set, else the first `[[qcn.field]]` table's, else the `[qcn]`
/// header's, else 1.
fn line_of(text: &str, field: &str) -> usize {
    let hit = text.lines().position(|l| {
        let l = l.trim_start();
        l.strip_prefix(field)
            .is_some_and(|r| r.trim_start().starts_with('='))
    });
    let table = format!("[[qcn.{field}]]");
    match hit.or_else(|| text.lines().position(|l| l.trim() == table)) {
        Some(i) => i + 1,
        None => text
            .lines()
            .position(|l| l.trim() == "[qcn]")
            .map_or(1, |i| i + 1),
    }
}

/// A topology read from the links: node names, which are hosts, and each node's ports.
#[derive(Debug, Clone)]
pub struct Topo {
    pub names: Vec<String>,
    pub is_host: Vec<bool>,
    /// Per node, per port: (peer node, peer port).
    pub ports: Vec<Vec<(usize, usize)>>,
    /// Host index → node, and node → host index.
    pub hosts: Vec<usize>,
    pub host_of: Vec<Option<usize>>,
    /// Per switch node, per destination host: ports in preference order.
    pub routes: Vec<Vec<Vec<usize>>>,
}

impl QcnConfig {
    pub fn load(path: &str) -> Result<QcnConfig, ScenarioFileError> {
        let text = super::read_scenario(path)?;
        Self::parse(path, &text)
    }

    /// Parse and check `text`, read from `file`: the fields' rules and the topology's.
    pub fn parse(file: &str, text: &str) -> Result<QcnConfig, ScenarioFileError> {
        let f: QcnFile = super::parse_scenario(file, text)?;
        let c = f.qcn;
        let err = |(field, why): (&'static str, String)| {
            ScenarioFileError::field(file, line_of(text, field), field, why)
        };
        c.check().map_err(err)?;
        c.topo().map_err(err)?;
        Ok(c)
    }

    /// The fields' rules: `(field, why)` for the first broken one. (Long, as a flat list of one
    /// rule a field, in the file's order.)
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let pos = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err((name, format!("{v}: must be a number above 0")))
            }
        };
        let frac = |name: &'static str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err((name, format!("{v}: must be in [0, 1]")))
            }
        };
        pos("line_gbps", self.line_gbps)?;
        pos("hot_rate_gbps", self.hot_rate_gbps)?;
        if self.hot_rate_gbps > self.line_gbps {
            return Err((
                "hot_rate_gbps",
                format!("{}: above the line rate", self.hot_rate_gbps),
            ));
        }
        pos("duration_ms", self.duration_ms)?;
        if !(self.hot_start_ms >= 0.0 && self.hot_start_ms <= self.hot_end_ms) {
            return Err((
                "hot_start_ms",
                format!(
                    "{}: must be 0 or more and not after hot_end_ms {}",
                    self.hot_start_ms, self.hot_end_ms
                ),
            ));
        }
        if self.hot_end_ms > self.duration_ms {
            return Err((
                "hot_end_ms",
                format!(
                    "{}: after duration_ms {}",
                    self.hot_end_ms, self.duration_ms
                ),
            ));
        }
        let settle_ok =
            self.settle_ms >= 0.0 && self.hot_start_ms + self.settle_ms < self.hot_end_ms;
        if !self.hot.is_empty() && !settle_ok {
            return Err((
                "settle_ms",
                format!("{}: must leave part of the hotspot", self.settle_ms),
            ));
        }
        frac("background_load", self.background_load)?;
        frac("uniform_load", self.uniform_load)?;
        if !(self.warmup_ms >= 0.0 && self.warmup_ms < self.duration_ms) {
            return Err((
                "warmup_ms",
                format!(
                    "{}: must be 0 or more and below duration_ms",
                    self.warmup_ms
                ),
            ));
        }
        if !(64..=9216).contains(&self.frame_bytes) {
            return Err((
                "frame_bytes",
                format!("{}: must be 64..=9216", self.frame_bytes),
            ));
        }
        pos("buffer_kb", self.buffer_kb)?;
        if !(self.delay_ns.is_finite() && self.delay_ns >= 0.0) {
            return Err(("delay_ns", format!("{}: must be 0 or more", self.delay_ns)));
        }
        if self.buffer_kb * 1000.0 < self.headroom() + 3.0 * self.frame_bytes as f64 {
            return Err((
                "buffer_kb",
                format!(
                    "{}: less than the PAUSE headroom ({:.0} B) and three frames",
                    self.buffer_kb,
                    self.headroom()
                ),
            ));
        }
        if self.host_queue_frames == 0 {
            return Err(("host_queue_frames", "0: must be 1 or more".into()));
        }
        pos("q_eq", self.q_eq)?;
        if !(self.w_d.is_finite() && self.w_d >= 0.0) {
            return Err(("w_d", format!("{}: must be 0 or more", self.w_d)));
        }
        if !(self.g_d > 0.0 && self.g_d * 63.0 < 1.0) {
            return Err(("g_d", format!("{}: must be in (0, 1/63)", self.g_d)));
        }
        pos("sample_kb", self.sample_kb)?;
        pos("timer_ms", self.timer_ms)?;
        pos("min_rate_kbps", self.min_rate_kbps)?;
        if !(1..=1000).contains(&self.fast_recovery) {
            return Err((
                "fast_recovery",
                format!("{}: must be 1..=1000", self.fast_recovery),
            ));
        }
        pos("byte_count_kb", self.byte_count_kb)?;
        pos("active_mbps", self.active_mbps)?;
        pos("hyperactive_mbps", self.hyperactive_mbps)?;
        if !(self.min_decrease > 0.0 && self.min_decrease < 1.0) {
            return Err((
                "min_decrease",
                format!("{}: must be in (0, 1)", self.min_decrease),
            ));
        }
        pos("ar_timer_ms", self.ar_timer_ms)?;
        pos("bin_ms", self.bin_ms)?;
        if self.duration_ms / self.bin_ms > 1e6 {
            return Err(("bin_ms", format!("{}: more than 10^6 bins", self.bin_ms)));
        }
        Ok(())
    }

    /// PAUSE headroom per input, bytes: two frames and the link's round trip.
    pub fn headroom(&self) -> f64 {
        2.0 * self.frame_bytes as f64 + 2.0 * self.delay_ns * 1e-9 * self.clock_hz() + 64.0
    }

    /// Cycles (byte times of a link) per second.
    pub fn clock_hz(&self) -> f64 {
        self.line_gbps * 1e9 / 8.0
    }

    fn cycles(&self, ms: f64) -> u64 {
        (ms * 1e-3 * self.clock_hz()).round() as u64
    }

    /// The topology and routes the links and `[[prefer]]` entries make.
    pub fn topo(&self) -> Result<Topo, (&'static str, String)> {
        let LinkGraph { idx, names, ports } = self.link_graph()?;
        let n = names.len();
        let is_host: Vec<bool> = names.iter().map(|s| s.starts_with('H')).collect();
        check_host_links(&names, &is_host, &ports)?;
        let hosts: Vec<usize> = (0..n).filter(|&v| is_host[v]).collect();
        if hosts.len() < 2 {
            return Err(("links", "fewer than two hosts".into()));
        }
        let mut host_of = vec![None; n];
        for (h, &v) in hosts.iter().enumerate() {
            host_of[v] = Some(h);
        }
        let mut topo = Topo {
            names,
            is_host,
            ports,
            hosts,
            host_of,
            routes: Vec::new(),
        };
        self.check_hot(&topo, &idx)?;
        topo.routes = default_routes(&topo)?;
        self.apply_prefer(&mut topo, &idx)?;
        check_acyclic(
            &topo.names,
            &topo.is_host,
            &topo.ports,
            &topo.hosts,
            &topo.routes,
        )?;
        Ok(topo)
    }

    /// The nodes the links name, in the order the links first name them, and their ports.
    fn link_graph(&self) -> Result<LinkGraph, (&'static str, String)> {
        let mut idx: HashMap<String, usize> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut ports: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut node = |n: &str,
                        names: &mut Vec<String>,
                        ports: &mut Vec<Vec<(usize, usize)>>|
         -> Result<usize, (&'static str, String)> {
            if !(n.starts_with('H') || n.starts_with('S')) || n.len() < 2 {
                return Err((
                    "links",
                    format!("node '{n}': names are H… (hosts) or S… (switches)"),
                ));
            }
            Ok(*idx.entry(n.to_string()).or_insert_with(|| {
                names.push(n.to_string());
                ports.push(Vec::new());
                names.len() - 1
            }))
        };
        if self.links.is_empty() {
            return Err(("links", "no link".into()));
        }
        for [a, b] in &self.links {
            let x = node(a, &mut names, &mut ports)?;
            let y = node(b, &mut names, &mut ports)?;
            if x == y {
                return Err(("links", format!("'{a}' linked to itself")));
            }
            if ports[x].iter().any(|&(p, _)| p == y) {
                return Err(("links", format!("'{a}'–'{b}' given twice")));
            }
            let (px, py) = (ports[x].len(), ports[y].len());
            ports[x].push((y, py));
            ports[y].push((x, px));
        }
        Ok(LinkGraph { idx, names, ports })
    }

    /// `hot` names pairs of different hosts, `hot_queues` a switch's port to a neighbour.
    fn check_hot(
        &self,
        topo: &Topo,
        idx: &HashMap<String, usize>,
    ) -> Result<(), (&'static str, String)> {
        let (is_host, ports) = (&topo.is_host, &topo.ports);
        for [a, b] in &self.hot {
            let (x, y) = (node_named(idx, a, "hot")?, node_named(idx, b, "hot")?);
            if !is_host[x] || !is_host[y] || x == y {
                return Err(("hot", format!("'{a}' → '{b}': must be two different hosts")));
            }
        }
        for [a, b] in &self.hot_queues {
            let (x, y) = (
                node_named(idx, a, "hot_queues")?,
                node_named(idx, b, "hot_queues")?,
            );
            if is_host[x] || !ports[x].iter().any(|&(p, _)| p == y) {
                return Err((
                    "hot_queues",
                    format!("'{a}' → '{b}': not a switch's port to a neighbour"),
                ));
            }
        }
        Ok(())
    }

    /// Replaces the default routes with each `[[prefer]]` entry's ports, at its switch, to its hosts.
    fn apply_prefer(
        &self,
        topo: &mut Topo,
        idx: &HashMap<String, usize>,
    ) -> Result<(), (&'static str, String)> {
        for pr in &self.prefer {
            let u = node_named(idx, &pr.at, "prefer")?;
            if topo.is_host[u] {
                return Err(("prefer", format!("at '{}': not a switch", pr.at)));
            }
            let mut l = Vec::new();
            for v in &pr.via {
                let vn = node_named(idx, v, "prefer")?;
                let p = topo.ports[u].iter().position(|&(x, _)| x == vn).ok_or((
                    "prefer",
                    format!("at '{}': via '{v}' is not a neighbour", pr.at),
                ))?;
                l.push(p);
            }
            if l.is_empty() {
                return Err(("prefer", format!("at '{}': via is empty", pr.at)));
            }
            for t in &pr.to {
                let d = node_named(idx, t, "prefer")?;
                let h = topo.host_of[d].ok_or(("prefer", format!("to '{t}': not a host")))?;
                for &p in &l {
                    let v = topo.ports[u][p].0;
                    if topo.is_host[v] && v != d {
                        return Err((
                            "prefer",
                            format!("at '{}': via host '{}' for '{t}'", pr.at, topo.names[v]),
                        ));
                    }
                }
                topo.routes[u][h] = l.clone();
            }
        }
        Ok(())
    }

    fn cp_params(&self) -> CpParams {
        CpParams {
            q_eq: self.q_eq,
            w_d: self.w_d,
            sample_bytes: self.sample_kb * 1000.0,
            fb_sampling: self.fb_sampling,
        }
    }

    fn rp_params(&self) -> RpParams {
        RpParams {
            line_bps: self.line_gbps * 1e9,
            g_d: self.g_d,
            min_rate_bps: self.min_rate_kbps * 1e3,
            min_decrease: self.min_decrease,
            byte_count: self.byte_count_kb * 1000.0,
            timer_s: self.timer_ms * 1e-3,
            fast_recovery: self.fast_recovery,
            active_bps: self.active_mbps * 1e6,
            hyper_bps: self.hyperactive_mbps * 1e6,
            extra_fast: self.extra_fast_recovery,
        }
    }
}

/// The nodes of a scenario's links: index by name, names, and per node its ports as (peer node,
/// peer port).
struct LinkGraph {
    idx: HashMap<String, usize>,
    names: Vec<String>,
    ports: Vec<Vec<(usize, usize)>>,
}

/// The node named `s`, which `field` names.
fn node_named(
    idx: &HashMap<String, usize>,
    s: &str,
    field: &'static str,
) -> Result<usize, (&'static str, String)> {
    idx.get(s)
        .copied()
        .ok_or((field, format!("'{s}': no such node in links")))
}

/// Every host has exactly one link, and to a switch.
fn check_host_links(
    names: &[String],
    is_host: &[bool],
    ports: &[Vec<(usize, usize)>],
) -> Result<(), (&'static str, String)> {
    for v in 0..names.len() {
        if is_host[v] && ports[v].len() != 1 {
            return Err((
                "links",
                format!("host '{}' has {} links, not 1", names[v], ports[v].len()),
            ));
        }
        if is_host[v] && is_host[ports[v][0].0] {
            return Err(("links", format!("host '{}' linked to a host", names[v])));
        }
    }
    Ok(())
}

/// Hop distances from every node to host node `d`; the search does not pass through hosts.
fn hops_to(topo: &Topo, d: usize) -> Vec<usize> {
    let mut dist = vec![usize::MAX; topo.names.len()];
    dist[d] = 0;
    let mut q = VecDeque::from([d]);
    while let Some(u) = q.pop_front() {
        for &(v, _) in &topo.ports[u] {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                if !topo.is_host[v] {
                    q.push_back(v);
                }
            }
        }
    }
    dist
}

/// The default routes: per switch, per destination host, the ports one hop nearer to it, nearest
/// first and then by the neighbour's name.
fn default_routes(topo: &Topo) -> Result<Vec<Vec<Vec<usize>>>, (&'static str, String)> {
    let (names, is_host, ports) = (&topo.names, &topo.is_host, &topo.ports);
    let n = names.len();
    let mut routes = vec![vec![Vec::new(); topo.hosts.len()]; n];
    for (h, &d) in topo.hosts.iter().enumerate() {
        let dist = hops_to(topo, d);
        for u in 0..n {
            if is_host[u] {
                continue;
            }
            if dist[u] == usize::MAX {
                return Err((
                    "links",
                    format!("switch '{}' cannot reach '{}'", names[u], names[d]),
                ));
            }
            let key = |v: usize| (dist[v], names[v].as_str());
            let mut l: Vec<usize> = (0..ports[u].len())
                .filter(|&p| {
                    let v = ports[u][p].0;
                    (!is_host[v] || v == d) && dist[v] < dist[u]
                })
                .collect();
            l.sort_by(|&a, &b| key(ports[u][a].0).cmp(&key(ports[u][b].0)));
            routes[u][h] = l;
        }
    }
    Ok(routes)
}

/// Every destination's graph of routes must reach it from every switch without a loop.
fn check_acyclic(
    names: &[String],
    is_host: &[bool],
    ports: &[Vec<(usize, usize)>],
    hosts: &[usize],
    routes: &[Vec<Vec<usize>>],
) -> Result<(), (&'static str, String)> {
    let n = names.len();
    for (h, &d) in hosts.iter().enumerate() {
        // 0 unvisited, 1 on the stack, 2 done.
        let mut mark = vec![0u8; n];
        fn visit(
            u: usize,
            d: usize,
            h: usize,
            ports: &[Vec<(usize, usize)>],
            routes: &[Vec<Vec<usize>>],
            mark: &mut [u8],
        ) -> Result<(), usize> {
            if u == d || mark[u] == 2 {
                return Ok(());
            }
            if mark[u] == 1 {
                return Err(u);
            }
            mark[u] = 1;
            for &p in &routes[u][h] {
                visit(ports[u][p].0, d, h, ports, routes, mark)?;
            }
            mark[u] = 2;
            Ok(())
        }
        for u in 0..n {
            if is_host[u] {
                continue;
            }
            if routes[u][h].is_empty() {
                return Err((
                    "prefer",
                    format!("switch '{}' has no route to '{}'", names[u], names[d]),
                ));
            }
            visit(u, d, h, ports, routes, &mut mark).map_err(|at| {
                (
                    "prefer",
                    format!("routes to '{}' loop through '{}'", names[d], names[at]),
                )
            })?;
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Kind {
    Data,
    Cnm { fb_q: u8, encap_dst: usize },
    Pause(bool),
}

#[derive(Debug, Clone)]
struct Frame {
    /// Host indices.
    src: usize,
    dst: usize,
    bytes: u64,
    seq: u64,
    born: u64,
    kind: Kind,
    /// At a switch: the input port it came in on.
    in_port: usize,
}

#[derive(Debug)]
enum Ev {
    Arrive(usize, usize, Frame),
    TxDone(usize, usize),
    Gen(usize),
    Hot(usize),
    Wake(usize),
    Sample,
}

#[derive(Debug, Default)]
struct Port {
    busy: bool,
    paused: bool,
    ctrl: VecDeque<Frame>,
    data: VecDeque<Frame>,
    q_bytes: u64,
    cp: Option<Cp>,
    /// Time integral of `q_bytes` (byte·cycles) and when it last changed.
    q_area: f64,
    q_at: u64,
    q_max: u64,
}

impl Port {
    fn set_q(&mut self, now: u64, q: u64) {
        self.q_area += self.q_bytes as f64 * (now - self.q_at) as f64;
        self.q_at = now;
        self.q_bytes = q;
        self.q_max = self.q_max.max(q);
    }
}

#[derive(Debug, Default)]
struct Flow {
    q: VecDeque<u64>,
    rp: Option<Rp>,
    next_ok: f64,
    seq: u64,
}

/// A receiver's resequencing buffer for one flow.
#[derive(Debug, Default, Clone)]
struct Reseq {
    next: u64,
    held: BTreeSet<u64>,
    area: f64,
    at: u64,
    max: usize,
}

impl Reseq {
    fn arrive(&mut self, now: u64, seq: u64) {
        self.area += self.held.len() as f64 * (now - self.at) as f64;
        self.at = now;
        if seq == self.next {
            self.next += 1;
            while self.held.remove(&self.next) {
                self.next += 1;
            }
        } else if seq > self.next {
            self.held.insert(seq);
        }
        self.max = self.max.max(self.held.len());
    }

    fn mean(&self, now: u64, from: u64) -> f64 {
        let area = self.area + self.held.len() as f64 * (now - self.at) as f64;
        area / (now - from).max(1) as f64
    }
}

#[derive(Debug, Default)]
struct Host {
    flows: Vec<Flow>,
    rr: usize,
    wake_at: Option<u64>,
    recv: Vec<Reseq>,
    sent_bin: u64,
    delivered: u64,
    delivered_win: u64,
    host_drops: u64,
    latency_sum: f64,
    latency_n: u64,
}

#[derive(Debug)]
struct Switch {
    occ: Vec<u64>,
    xoff: Vec<bool>,
    table: CongTable,
}

/// One bin of the time series.
#[derive(Debug, Clone)]
pub struct Bin {
    pub t_ms: f64,
    /// Per host, bytes sent in the bin as Gb/s.
    pub host_gbps: Vec<f64>,
    /// Per hot queue, its mean length over the bin, bytes.
    pub queue_bytes: Vec<f64>,
    /// Per switch, congestion table entries flagged congested at the bin's end.
    pub table_entries: Vec<usize>,
    /// Per hot flow, its limiter's rate (line rate when none), Gb/s.
    pub limiter_gbps: Vec<f64>,
}

/// What one run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct QcnStats {
    pub mode: String,
    pub seed: u64,
    /// Per hot flow, delivered rate over `[hot_start + settle, hot_end]`, MB/s.
    pub hot_mbytes: Vec<f64>,
    /// Per hot queue, mean length over the same window, bytes.
    pub hot_queue_mean: Vec<f64>,
    pub hot_queue_max: Vec<u64>,
    /// Uniform: bytes delivered over `[warmup, duration]` against all hosts' line rate.
    pub throughput: f64,
    /// Mean delivered-frame latency, µs.
    pub latency_us: f64,
    /// Per hot flow, the receiver's mean and peak resequencing occupancy over the window, frames.
    pub reseq_mean: Vec<f64>,
    pub reseq_max: Vec<usize>,
    /// Over all flows, the time-average resequencing occupancy per flow that saw traffic.
    pub reseq_all_mean: f64,
    pub cnms: u64,
    pub pauses: u64,
    pub host_drops: u64,
    pub events: u64,
    pub wall_s: f64,
}

/// A run's results.
#[derive(Debug, Clone)]
pub struct QcnRun {
    pub cfg: QcnConfig,
    pub mode: QcnMode,
    pub stats: QcnStats,
    pub bins: Vec<Bin>,
    pub host_names: Vec<String>,
    pub switch_names: Vec<String>,
    /// The CNM frames sent, `(cycle, bytes)`, when a capture was asked for.
    pub capture: Vec<(u64, Vec<u8>)>,
}

struct Sim<'a> {
    cfg: &'a QcnConfig,
    mode: QcnMode,
    topo: Topo,
    now: u64,
    events_q: super::Events<Ev>,
    rng: ChaCha8Rng,
    ports: Vec<Vec<Port>>,
    hosts: Vec<Host>,
    switches: Vec<Option<Switch>>,
    hot: Vec<(usize, usize)>,
    hot_q: Vec<(usize, usize)>,
    delay: u64,
    xoff_at: u64,
    xon_at: u64,
    bin: u64,
    bins: Vec<Bin>,
    bin_q_area: Vec<f64>,
    win: (u64, u64),
    win_reseq_area: Vec<f64>,
    hot_delivered: Vec<u64>,
    hot_made: Vec<u64>,
    capture: Option<Vec<(u64, Vec<u8>)>>,
    cnms: u64,
    pauses: u64,
    events: u64,
}

/// A host's MAC address (locally administered).
pub fn host_mac(h: usize) -> [u8; 6] {
    [0x02, 0, 0, 0, (h >> 8) as u8, h as u8]
}

/// A switch port's MAC address.
pub fn port_mac(node: usize, port: usize) -> [u8; 6] {
    [0x02, 0, 1, (node >> 8) as u8, node as u8, port as u8]
}

impl<'a> Sim<'a> {
    fn new(cfg: &'a QcnConfig, topo: Topo, mode: QcnMode, seed: u64, capture: bool) -> Sim<'a> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = topo.names.len();
        let nh = topo.hosts.len();
        let mut ports = Vec::with_capacity(n);
        let mut switches = Vec::with_capacity(n);
        for v in 0..n {
            let ps: Vec<Port> = (0..topo.ports[v].len())
                .map(|_| Port {
                    cp: (mode.cm() && !topo.is_host[v]).then(|| Cp::new(cfg.cp_params(), &mut rng)),
                    ..Port::default()
                })
                .collect();
            switches.push((!topo.is_host[v]).then(|| Switch {
                occ: vec![0; ps.len()],
                xoff: vec![false; ps.len()],
                table: CongTable::new(cfg.ar_timer_ms * 1e-3),
            }));
            ports.push(ps);
        }
        let hosts = (0..nh)
            .map(|_| Host {
                flows: (0..nh).map(|_| Flow::default()).collect(),
                recv: vec![Reseq::default(); nh],
                ..Host::default()
            })
            .collect();
        let id = |s: &String| topo.names.iter().position(|x| x == s).expect("checked");
        let hot: Vec<(usize, usize)> = cfg
            .hot
            .iter()
            .map(|[a, b]| {
                (
                    topo.host_of[id(a)].expect("host"),
                    topo.host_of[id(b)].expect("host"),
                )
            })
            .collect();
        let hot_q: Vec<(usize, usize)> = cfg
            .hot_queues
            .iter()
            .map(|[a, b]| {
                let u = id(a);
                let v = id(b);
                (
                    u,
                    topo.ports[u]
                        .iter()
                        .position(|&(x, _)| x == v)
                        .expect("checked"),
                )
            })
            .collect();
        let buf = (cfg.buffer_kb * 1000.0) as u64;
        let xoff_at = buf - cfg.headroom() as u64;
        let win = if cfg.uniform_load > 0.0 || cfg.hot.is_empty() {
            (cfg.cycles(cfg.warmup_ms), cfg.cycles(cfg.duration_ms))
        } else {
            (
                cfg.cycles(cfg.hot_start_ms + cfg.settle_ms),
                cfg.cycles(cfg.hot_end_ms),
            )
        };
        Sim {
            cfg,
            mode,
            now: 0,
            events_q: super::Events::default(),
            rng,
            ports,
            hosts,
            switches,
            bin_q_area: vec![0.0; hot_q.len()],
            hot_delivered: vec![0; hot.len()],
            hot_made: vec![0; hot.len()],
            win_reseq_area: vec![0.0; hot.len()],
            hot,
            hot_q,
            delay: (cfg.delay_ns * 1e-9 * cfg.clock_hz()).round() as u64,
            xoff_at,
            xon_at: xoff_at - 2 * cfg.frame_bytes,
            bin: cfg.cycles(cfg.bin_ms).max(1),
            bins: Vec::new(),
            win,
            capture: capture.then(Vec::new),
            cnms: 0,
            pauses: 0,
            events: 0,
            topo,
        }
    }

    fn at(&mut self, t: u64, ev: Ev) {
        self.events_q.at(t, ev);
    }

    fn now_s(&self) -> f64 {
        self.now as f64 / self.cfg.clock_hz()
    }

    fn load_at(&self, t: u64) -> f64 {
        if self.cfg.uniform_load > 0.0 {
            return self.cfg.uniform_load;
        }
        let (a, b) = (
            self.cfg.cycles(self.cfg.hot_start_ms),
            self.cfg.cycles(self.cfg.hot_end_ms),
        );
        if self.hot.is_empty() || t < a || t >= b {
            self.cfg.background_load
        } else {
            0.0
        }
    }

    /// The next Bernoulli arrival at or after `t` for load `p`: a geometric number of frame times.
    fn gap(&mut self, p: f64) -> u64 {
        let fb = self.cfg.frame_bytes;
        if p >= 1.0 {
            return fb;
        }
        let u: f64 = self.rng.gen_range(f64::MIN_POSITIVE..1.0);
        let k = (u.ln() / (1.0 - p).ln()).floor() as u64 + 1;
        k * fb
    }

    fn start(&mut self) {
        let nh = self.topo.hosts.len();
        for h in 0..nh {
            self.at(0, Ev::Gen(h));
        }
        let t0 = self.cfg.cycles(self.cfg.hot_start_ms);
        if self.cfg.uniform_load == 0.0 {
            for i in 0..self.hot.len() {
                self.at(t0, Ev::Hot(i));
            }
        }
        self.at(self.bin, Ev::Sample);
    }

    fn enqueue_host(&mut self, h: usize, dst: usize) {
        let cap = self.cfg.host_queue_frames;
        let f = &mut self.hosts[h].flows[dst];
        if f.q.len() >= cap {
            self.hosts[h].host_drops += 1;
            return;
        }
        f.q.push_back(self.now);
        self.host_try(h);
    }

    fn step(&mut self, ev: Ev) {
        match ev {
            Ev::Gen(h) => {
                let p = self.load_at(self.now);
                if p > 0.0 {
                    let nh = self.topo.hosts.len();
                    let mut d = self.rng.gen_range(0..nh - 1);
                    if d >= h {
                        d += 1;
                    }
                    self.enqueue_host(h, d);
                }
                // While the load is 0 (the hotspot), look again at the hotspot's end.
                let next = if p > 0.0 {
                    self.now + self.gap(p)
                } else {
                    self.cfg.cycles(self.cfg.hot_end_ms).max(self.now + 1)
                };
                self.at(next, Ev::Gen(h));
            }
            Ev::Hot(i) => {
                let (s, d) = self.hot[i];
                if self.now < self.cfg.cycles(self.cfg.hot_end_ms) {
                    self.enqueue_host(s, d);
                    let period =
                        self.cfg.frame_bytes as f64 * self.cfg.line_gbps / self.cfg.hot_rate_gbps;
                    // No drift: the k-th frame at t0 + k·period.
                    self.hot_made[i] += 1;
                    let k = self.hot_made[i];
                    let t0 = self.cfg.cycles(self.cfg.hot_start_ms);
                    let next = t0 + ((k as f64) * period).round() as u64;
                    self.at(next.max(self.now + 1), Ev::Hot(i));
                }
            }
            Ev::Wake(h) => {
                if self.hosts[h].wake_at == Some(self.now) {
                    self.hosts[h].wake_at = None;
                }
                self.host_try(h);
            }
            Ev::TxDone(v, p) => {
                self.ports[v][p].busy = false;
                match self.topo.host_of[v] {
                    Some(h) => self.host_try(h),
                    None => self.switch_try(v, p),
                }
            }
            Ev::Arrive(v, p, f) => match self.topo.host_of[v] {
                Some(h) => self.host_arrive(h, f),
                None => self.switch_arrive(v, p, f),
            },
            Ev::Sample => self.sample(),
        }
    }

    fn transmit(&mut self, v: usize, p: usize, f: Frame) {
        let (pv, pp) = self.topo.ports[v][p];
        self.ports[v][p].busy = true;
        let end = self.now + f.bytes;
        self.at(end, Ev::TxDone(v, p));
        self.at(end + self.delay, Ev::Arrive(pv, pp, f));
    }

    fn host_try(&mut self, h: usize) {
        let v = self.topo.hosts[h];
        if self.ports[v][0].busy {
            return;
        }
        if let Some(f) = self.ports[v][0].ctrl.pop_front() {
            self.transmit(v, 0, f);
            return;
        }
        if self.ports[v][0].paused {
            return;
        }
        let nh = self.topo.hosts.len();
        let now = self.now;
        let now_s = self.now_s();
        let mut wake = f64::INFINITY;
        let start = self.hosts[h].rr;
        for k in 0..nh {
            let d = (start + k) % nh;
            let fl = &mut self.hosts[h].flows[d];
            if fl.q.is_empty() {
                continue;
            }
            if let Some(rp) = fl.rp.as_mut() {
                rp.on_time(now_s);
                if rp.done() {
                    fl.rp = None;
                }
            }
            if fl.next_ok > now as f64 {
                wake = wake.min(fl.next_ok);
                continue;
            }
            let born = fl.q.pop_front().expect("non-empty");
            let bytes = self.cfg.frame_bytes;
            let seq = fl.seq;
            fl.seq += 1;
            if let Some(rp) = fl.rp.as_mut() {
                fl.next_ok = now as f64 + bytes as f64 * rp.p.line_bps / rp.cr;
                rp.on_sent(bytes);
                if rp.done() {
                    fl.rp = None;
                }
            }
            self.hosts[h].rr = d + 1;
            self.hosts[h].sent_bin += bytes;
            let f = Frame {
                src: h,
                dst: d,
                bytes,
                seq,
                born,
                kind: Kind::Data,
                in_port: 0,
            };
            self.transmit(v, 0, f);
            return;
        }
        if wake.is_finite() {
            let t = (wake.ceil() as u64).max(now + 1);
            if self.hosts[h].wake_at.is_none_or(|w| w > t || w < now) {
                self.hosts[h].wake_at = Some(t);
                self.at(t, Ev::Wake(h));
            }
        }
    }

    fn host_arrive(&mut self, h: usize, f: Frame) {
        let v = self.topo.hosts[h];
        match f.kind {
            Kind::Pause(on) => {
                self.ports[v][0].paused = on;
                if !on {
                    self.host_try(h);
                }
            }
            Kind::Cnm {
                fb_q, encap_dst, ..
            } => {
                let now_s = self.now_s();
                let rpp = self.cfg.rp_params();
                let fl = &mut self.hosts[h].flows[encap_dst];
                match fl.rp.as_mut() {
                    Some(rp) => rp.on_cnm(fb_q, now_s),
                    None => fl.rp = Some(Rp::install(rpp, fb_q, now_s)),
                }
            }
            Kind::Data => {
                let now = self.now;
                let host = &mut self.hosts[h];
                host.delivered += f.bytes;
                if now >= self.win.0 && now < self.win.1 {
                    host.delivered_win += f.bytes;
                    host.latency_sum += (now - f.born) as f64;
                    host.latency_n += 1;
                    if let Some(i) = self.hot.iter().position(|&x| x == (f.src, h)) {
                        self.hot_delivered[i] += f.bytes;
                    }
                }
                host.recv[f.src].arrive(now, f.seq);
            }
        }
    }

    /// The port for a data frame to host `d` at switch `v`.
    fn route_data(&self, v: usize, d: usize) -> usize {
        let prefs = &self.topo.routes[v][d];
        if self.mode.ar() {
            self.switches[v]
                .as_ref()
                .expect("switch")
                .table
                .route(d, prefs)
        } else {
            prefs[0]
        }
    }

    /// The port for a CNM to host `d` at switch `v`: random among the list under AR.
    fn route_cnm(&mut self, v: usize, d: usize) -> usize {
        let n = self.topo.routes[v][d].len();
        if self.mode.ar() && n > 1 {
            let i = self.rng.gen_range(0..n);
            self.topo.routes[v][d][i]
        } else {
            self.topo.routes[v][d][0]
        }
    }

    fn switch_arrive(&mut self, v: usize, i: usize, mut f: Frame) {
        let now_s = self.now_s();
        match f.kind {
            Kind::Pause(on) => {
                self.ports[v][i].paused = on;
                if !on {
                    self.switch_try(v, i);
                }
            }
            Kind::Cnm {
                fb_q, encap_dst, ..
            } => {
                if self.mode.ar() {
                    let sw = self.switches[v].as_mut().expect("switch");
                    sw.table.note(encap_dst, i, fb_q, false, now_s);
                }
                let p = self.route_cnm(v, f.dst);
                self.ports[v][p].ctrl.push_back(f);
                self.switch_try(v, p);
            }
            Kind::Data => {
                let p = self.route_data(v, f.dst);
                f.in_port = i;
                let (src, dst, bytes) = (f.src, f.dst, f.bytes);
                let port = &mut self.ports[v][p];
                let q = port.q_bytes + bytes;
                port.set_q(self.now, q);
                port.data.push_back(f);
                let sample = match port.cp.as_mut() {
                    Some(cp) => cp.on_arrival(bytes, q, &mut self.rng),
                    None => None,
                };
                if let Some(s) = sample {
                    self.send_cnm(v, p, src, dst, s);
                }
                let sw = self.switches[v].as_mut().expect("switch");
                sw.occ[i] += bytes;
                if sw.occ[i] > self.xoff_at && !sw.xoff[i] {
                    sw.xoff[i] = true;
                    self.send_pause(v, i, true);
                }
                self.switch_try(v, p);
            }
        }
    }

    /// The CP of switch `v`'s port `p` sampled a frame from host `src` to `dst`: note it (AR) and
    /// send the CNM back toward `src`.
    fn send_cnm(&mut self, v: usize, p: usize, src: usize, dst: usize, s: Sample) {
        let now_s = self.now_s();
        self.cnms += 1;
        if self.mode.ar() {
            let sw = self.switches[v].as_mut().expect("switch");
            sw.table.note(dst, p, s.fb_q, true, now_s);
        }
        let cnm = Cnm {
            dst_mac: host_mac(src),
            src_mac: port_mac(v, p),
            version: 0,
            fb_q: s.fb_q,
            cpid: u64::from_be_bytes({
                let m = port_mac(v, p);
                [m[0], m[1], m[2], m[3], m[4], m[5], 0, 0]
            }),
            q_offset: (s.q_off / 64).clamp(-32768, 32767) as i16,
            q_delta: (s.q_delta / 64).clamp(-32768, 32767) as i16,
            encap_priority: 3,
            encap_dst: host_mac(dst),
            msdu: vec![0; CNM_MSDU],
        };
        let wire = cnm.encode();
        let wire_len = wire.len() as u64;
        if let Some(c) = self.capture.as_mut() {
            c.push((self.now, wire));
        }
        let fr = Frame {
            src: dst,
            dst: src,
            bytes: wire_len,
            seq: 0,
            born: self.now,
            kind: Kind::Cnm {
                fb_q: s.fb_q,
                encap_dst: dst,
            },
            in_port: 0,
        };
        let cp = self.route_cnm(v, src);
        self.ports[v][cp].ctrl.push_back(fr);
        self.switch_try(v, cp);
    }

    fn send_pause(&mut self, v: usize, i: usize, on: bool) {
        self.pauses += u64::from(on);
        let f = Frame {
            src: 0,
            dst: 0,
            bytes: 64,
            seq: 0,
            born: self.now,
            kind: Kind::Pause(on),
            in_port: 0,
        };
        self.ports[v][i].ctrl.push_back(f);
        self.switch_try(v, i);
    }

    fn switch_try(&mut self, v: usize, p: usize) {
        if self.ports[v][p].busy {
            return;
        }
        if let Some(f) = self.ports[v][p].ctrl.pop_front() {
            self.transmit(v, p, f);
            return;
        }
        if self.ports[v][p].paused {
            return;
        }
        let Some(f) = self.ports[v][p].data.pop_front() else {
            return;
        };
        let port = &mut self.ports[v][p];
        let q = port.q_bytes - f.bytes;
        port.set_q(self.now, q);
        let (i, bytes) = (f.in_port, f.bytes);
        self.transmit(v, p, f);
        let sw = self.switches[v].as_mut().expect("switch");
        if self.mode.ar() && (q as f64) < self.cfg.q_eq / 2.0 {
            sw.table.clear_local(p);
        }
        sw.occ[i] -= bytes;
        if sw.occ[i] < self.xon_at && sw.xoff[i] {
            sw.xoff[i] = false;
            self.send_pause(v, i, false);
        }
    }

    fn sample(&mut self) {
        let now = self.now;
        let now_s = self.now_s();
        let secs = self.bin as f64 / self.cfg.clock_hz();
        let host_gbps = self
            .hosts
            .iter_mut()
            .map(|h| std::mem::take(&mut h.sent_bin) as f64 * 8.0 / secs / 1e9)
            .collect();
        let mut queue_bytes = Vec::new();
        for (k, &(v, p)) in self.hot_q.iter().enumerate() {
            let port = &mut self.ports[v][p];
            let q = port.q_bytes;
            port.set_q(now, q);
            let area = port.q_area;
            queue_bytes.push((area - self.bin_q_area[k]) / self.bin as f64);
            self.bin_q_area[k] = area;
        }
        let mut table_entries = Vec::new();
        for sw in self.switches.iter_mut().flatten() {
            sw.table.expire(now_s);
            table_entries.push(sw.table.congested_count());
        }
        let limiter_gbps = self
            .hot
            .iter()
            .map(|&(s, d)| {
                self.hosts[s].flows[d]
                    .rp
                    .as_ref()
                    .map_or(self.cfg.line_gbps, |rp| rp.cr / 1e9)
            })
            .collect();
        self.bins.push(Bin {
            t_ms: now_s * 1e3,
            host_gbps,
            queue_bytes,
            table_entries,
            limiter_gbps,
        });
        // The hot flows' resequencing integral at the window's edges.
        // (The window starts on a bin's edge when its start is a whole number of bins.)
        if now < self.win.0 + self.bin {
            for (k, &(s, d)) in self.hot.iter().enumerate() {
                let r = &mut self.hosts[d].recv[s];
                r.arrive_none(now);
                self.win_reseq_area[k] = r.area;
            }
        }
        if now + self.bin <= self.cfg.cycles(self.cfg.duration_ms) {
            self.at(now + self.bin, Ev::Sample);
        }
    }

    fn finish(mut self, wall_s: f64) -> QcnRun {
        let now = self.now.max(self.win.1);
        let (a, b) = self.win;
        let secs = (b - a) as f64 / self.cfg.clock_hz();
        let hot_mbytes = self
            .hot_delivered
            .iter()
            .map(|&x| x as f64 / secs / 1e6)
            .collect();
        let mut hot_queue_mean = Vec::new();
        let mut hot_queue_max = Vec::new();
        for (k, &(v, p)) in self.hot_q.iter().enumerate() {
            let bins: Vec<f64> = self
                .bins
                .iter()
                .filter(|x| {
                    let t = self.cfg.cycles(x.t_ms);
                    t > a && t <= b
                })
                .map(|x| x.queue_bytes[k])
                .collect();
            hot_queue_mean.push(bins.iter().sum::<f64>() / bins.len().max(1) as f64);
            hot_queue_max.push(self.ports[v][p].q_max);
        }
        let delivered: u64 = self.hosts.iter().map(|h| h.delivered_win).sum();
        let nh = self.topo.hosts.len() as f64;
        let throughput = delivered as f64 * 8.0 / secs / (nh * self.cfg.line_gbps * 1e9);
        let (ls, ln) = self.hosts.iter().fold((0.0, 0u64), |(s, n), h| {
            (s + h.latency_sum, n + h.latency_n)
        });
        let latency_us = ls / ln.max(1) as f64 / self.cfg.clock_hz() * 1e6;
        let mut reseq_mean = Vec::new();
        let mut reseq_max = Vec::new();
        for (k, &(s, d)) in self.hot.iter().enumerate() {
            let r = &mut self.hosts[d].recv[s];
            r.arrive_none(b.min(now));
            reseq_mean.push((r.area - self.win_reseq_area[k]) / (b - a).max(1) as f64);
            reseq_max.push(r.max);
        }
        let mut all = Vec::new();
        for h in &self.hosts {
            for r in &h.recv {
                if r.next > 0 {
                    all.push(r.mean(now, 0));
                }
            }
        }
        let reseq_all_mean = all.iter().sum::<f64>() / all.len().max(1) as f64;
        let stats = QcnStats {
            mode: self.mode.name().into(),
            seed: 0,
            hot_mbytes,
            hot_queue_mean,
            hot_queue_max,
            throughput,
            latency_us,
            reseq_mean,
            reseq_max,
            reseq_all_mean,
            cnms: self.cnms,
            pauses: self.pauses,
            host_drops: self.hosts.iter().map(|h| h.host_drops).sum(),
            events: self.events,
            wall_s,
        };
        let host_names = self
            .topo
            .hosts
            .iter()
            .map(|&v| self.topo.names[v].clone())
            .collect();
        let switch_names = (0..self.topo.names.len())
            .filter(|&v| !self.topo.is_host[v])
            .map(|v| self.topo.names[v].clone())
            .collect();
        QcnRun {
            cfg: self.cfg.clone(),
            mode: self.mode,
            stats,
            bins: self.bins,
            host_names,
            switch_names,
            capture: self.capture.unwrap_or_default(),
        }
    }
}

impl Reseq {
    /// Bring the integral up to `now` with no arrival.
    fn arrive_none(&mut self, now: u64) {
        if now > self.at {
            self.area += self.held.len() as f64 * (now - self.at) as f64;
            self.at = now;
        }
    }
}

/// Run `cfg` in `mode` with `seed`; `capture` keeps every CNM's bytes. A configuration that
/// [`QcnConfig::parse`] would refuse is refused here too (`file` and `line` then say so).
pub fn run(
    cfg: &QcnConfig,
    mode: QcnMode,
    seed: u64,
    capture: bool,
) -> Result<QcnRun, ScenarioFileError> {
    let refuse = |(field, why): (&'static str, String)| {
        ScenarioFileError::field("(configuration)", 0, field, why)
    };
    cfg.check().map_err(refuse)?;
    let topo = cfg.topo().map_err(refuse)?;
    let t0 = std::time::Instant::now();
    let mut sim = Sim::new(cfg, topo, mode, seed, capture);
    sim.start();
    let end = cfg.cycles(cfg.duration_ms);
    while let Some((t, ev)) = sim.events_q.pop() {
        if t > end {
            break;
        }
        sim.now = t;
        sim.events += 1;
        sim.step(ev);
    }
    let mut r = sim.finish(t0.elapsed().as_secs_f64());
    r.stats.seed = seed;
    Ok(r)
}

impl QcnRun {
    /// Per bin: time, each host's sending rate (Gb/s), each hot flow's limiter (Gb/s).
    pub fn rates_csv(&self) -> String {
        let mut s = String::from("t_ms");
        for h in &self.host_names {
            s += &format!(",{h}_gbps");
        }
        for [a, b] in &self.cfg.hot {
            s += &format!(",limiter_{a}_{b}_gbps");
        }
        s.push('\n');
        for b in &self.bins {
            s += &format!("{:.3}", b.t_ms);
            for x in b.host_gbps.iter().chain(&b.limiter_gbps) {
                s += &format!(",{x:.4}");
            }
            s.push('\n');
        }
        s
    }

    /// Per bin: each hot queue's mean length, bytes.
    pub fn queue_csv(&self) -> String {
        let mut s = String::from("t_ms");
        for [a, b] in &self.cfg.hot_queues {
            s += &format!(",{a}_to_{b}_bytes");
        }
        s.push('\n');
        for b in &self.bins {
            s += &format!("{:.3}", b.t_ms);
            for x in &b.queue_bytes {
                s += &format!(",{x:.0}");
            }
            s.push('\n');
        }
        s
    }

    /// Per bin: each switch's congestion table entries flagged congested.
    pub fn table_csv(&self) -> String {
        let mut s = String::from("t_ms");
        for n in &self.switch_names {
            s += &format!(",{n}");
        }
        s.push('\n');
        for b in &self.bins {
            s += &format!("{:.3}", b.t_ms);
            for x in &b.table_entries {
                s += &format!(",{x}");
            }
            s.push('\n');
        }
        s
    }

    /// The CNMs as a pcap file (Ethernet, microsecond stamps; the FCS is left off, as captures do).
    pub fn pcap(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        out.extend_from_slice(&2u16.to_le_bytes());
        out.extend_from_slice(&4u16.to_le_bytes());
        out.extend_from_slice(&0i32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&65535u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        let hz = self.cfg.clock_hz();
        for (t, b) in &self.capture {
            let us = (*t as f64 / hz * 1e6) as u64;
            let body = &b[..b.len() - 4];
            out.extend_from_slice(&((us / 1_000_000) as u32).to_le_bytes());
            out.extend_from_slice(&((us % 1_000_000) as u32).to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(body);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reseq_holds_frames_ahead_of_the_next_expected() {
        let mut r = Reseq::default();
        r.arrive(0, 0);
        assert_eq!((r.next, r.held.len()), (1, 0));
        r.arrive(10, 2); // 1 missing: 2 held
        r.arrive(20, 3);
        assert_eq!((r.next, r.held.len()), (1, 2));
        r.arrive(30, 1); // 1 arrives: 1, 2, 3 delivered
        assert_eq!((r.next, r.held.len(), r.max), (4, 0, 2));
        // Occupancy: 1 frame for 10 cycles, 2 for 10: area 30 over 40 cycles.
        assert_eq!(r.mean(40, 0), 30.0 / 40.0);
    }
}
