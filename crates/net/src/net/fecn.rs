//! FECN's network: `flows` sources, each on its own link into one switch whose egress queue (the
//! bottleneck, capacity `C`) leads to one destination host, event by event.
//!
//! **Clock.** One cycle is one byte time of the bottleneck link: 0.8 ns at 10 Gb/s. Every host link
//! runs at `C` too, so a 1500-byte frame takes 1500 cycles on any link; a hop adds `delay_ns` of
//! propagation. Nothing happens between events, so a run costs its frames, not its cycles.
//!
//! **Sources.** A source's application makes 1500-byte packets (`arrivals`: `cbr` at the flow's
//! rate with a random phase; `bernoulli`, one packet per packet time with probability
//! rate / C; `pareto`, ON/OFF periods each Pareto of shape `pareto_shape` with mean `burst_ms`,
//! sending at twice the flow's rate while ON, so that the mean is the flow's rate) into a backlog of
//! `host_buffer_packets` (a packet that finds it full is dropped at the host, counted apart: it never
//! entered the network). The NIC sends from the backlog through a rate limiter at the rate the last
//! returned probe carried (one frame, then a gap so that the frame and gap last `bytes·8 / r`),
//! starting at `C / N_0`, and obeys 802.3x PAUSE (a frame already started finishes).
//!
//! **Probes.** Every `probe_us` each source sends a 64-byte probe frame ([`Probe`]) carrying `C`
//! (or its last rate; the congestion point lowers it) ahead of its data, not rate limited. The switch's
//! congestion point marks it on arrival at the egress queue, where it queues like any frame and
//! counts in `A_i` (`A_i` counts the frames queued: a frame dropped for want of room does not). The destination reflects it; the way back is uncongested (two hops of
//! propagation and a 64-byte frame time each) and sets the source's limiter on arrival.
//!
//! **Switch.** One output-queued egress of `buffer_packets · 1500` bytes (`L`); a frame that does not
//! fit is dropped and counted. [`CongestionPoint`] runs every `interval_us` (`T`). With PAUSE
//! (mode `FECN_PAUSE`) the queue's [`PauseCtl`] sends PAUSE/ON (quanta 0xFFFF, refreshed every half
//! of that while on) to every source when above `Q_on`, PAUSE/OFF (quanta 0) below `Q_off`; each
//! takes a 64-byte frame time and a hop to arrive.

use super::ScenarioFileError;
use crate::switch::fecn::{
    CongestionPoint, CpParams, Interval, PauseCtl, PauseSignal, Probe, QueueControl, QueueHook,
    PROBE_BYTES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use std::collections::VecDeque;

/// The FECN modes, beside the four of `capfc run` and `capfc net`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FecnMode {
    /// FECN alone: a frame that does not fit the egress buffer is dropped.
    Fecn,
    /// FECN with 802.3x PAUSE at `Q_on` / `Q_off`.
    FecnPause,
}

impl FecnMode {
    pub const ALL: [FecnMode; 2] = [FecnMode::Fecn, FecnMode::FecnPause];

    pub fn name(self) -> &'static str {
        match self {
            FecnMode::Fecn => "FECN",
            FecnMode::FecnPause => "FECN_PAUSE",
        }
    }

    pub fn parse(s: &str) -> Option<FecnMode> {
        FecnMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
    }
}

/// How sources' applications make packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    Cbr,
    Bernoulli,
    Pareto,
}

/// The queue control function's name in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlKind {
    Hyperbolic,
    Multistage,
}

/// An FECN scenario file's `[fecn]` table (scenarios/fecn-*.toml).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FecnConfig {
    pub flows: usize,
    pub flow_rate_mbps: f64,
    pub capacity_gbps: f64,
    pub arrivals: Arrivals,
    #[serde(default = "d_shape")]
    pub pareto_shape: f64,
    #[serde(default = "d_burst")]
    pub burst_ms: f64,
    #[serde(default = "d_pm")]
    pub packet_bytes: u64,
    pub duration_ms: f64,
    pub warmup_ms: f64,
    #[serde(default = "d_1000")]
    pub interval_us: f64,
    #[serde(default = "d_1000")]
    pub probe_us: f64,
    #[serde(default = "d_delay")]
    pub delay_ns: f64,
    #[serde(default = "d_l")]
    pub buffer_packets: f64,
    #[serde(default = "d_host")]
    pub host_buffer_packets: u64,
    pub n0: f64,
    pub gamma: f64,
    pub control: ControlKind,
    #[serde(default = "d_a")]
    pub a: f64,
    #[serde(default = "d_b")]
    pub b: f64,
    #[serde(default = "d_c")]
    pub c: f64,
    #[serde(default = "d_qeq")]
    pub q_eq: f64,
    #[serde(default = "d_k")]
    pub k: f64,
    #[serde(default = "d_stages")]
    pub stages: u32,
    #[serde(default = "d_qon")]
    pub q_on: f64,
    #[serde(default = "d_qoff")]
    pub q_off: f64,
    #[serde(default = "d_minrate")]
    pub min_rate_mbps: f64,
    /// The moving average's weight on the advertised rate (1: none).
    #[serde(default = "d_avg")]
    pub avg_weight: f64,
    /// Per-flow rates are sampled every this, queue length every `queue_sample_us`.
    #[serde(default = "d_1000")]
    pub sample_us: f64,
    #[serde(default = "d_qsample")]
    pub queue_sample_us: f64,
    #[serde(default = "d_seed")]
    pub seed: u64,
}

fn d_shape() -> f64 {
    1.5
}
fn d_burst() -> f64 {
    10.0
}
fn d_pm() -> u64 {
    1500
}
fn d_1000() -> f64 {
    1000.0
}
fn d_delay() -> f64 {
    500.0
}
fn d_l() -> f64 {
    100.0
}
fn d_host() -> u64 {
    1000
}
fn d_a() -> f64 {
    1.002
}
fn d_b() -> f64 {
    1.1
}
fn d_c() -> f64 {
    0.1
}
fn d_qeq() -> f64 {
    16.0
}
fn d_k() -> f64 {
    0.002
}
fn d_stages() -> u32 {
    1
}
fn d_qon() -> f64 {
    90.0
}
fn d_qoff() -> f64 {
    80.0
}
fn d_minrate() -> f64 {
    0.1
}
fn d_avg() -> f64 {
    1.0
}
fn d_qsample() -> f64 {
    10.0
}
fn d_seed() -> u64 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FecnFile {
    fecn: FecnConfig,
}

/// The line where `field = ...` is set, else the `[fecn]` header's, else 1.
fn line_of(text: &str, field: &str) -> usize {
    let hit = text.lines().position(|l| {
        let l = l.trim_start();
        l.strip_prefix(field)
            .is_some_and(|r| r.trim_start().starts_with('='))
    });
    match hit {
        Some(i) => i + 1,
        None => text
            .lines()
            .position(|l| l.trim() == "[fecn]")
            .map_or(1, |i| i + 1),
    }
}

impl FecnConfig {
    /// Read and check a scenario file.
    pub fn load(path: &str) -> Result<FecnConfig, ScenarioFileError> {
        let text = super::read_scenario(path)?;
        Self::parse(path, &text)
    }

    /// Parse and check `text`, read from `file`.
    pub fn parse(file: &str, text: &str) -> Result<FecnConfig, ScenarioFileError> {
        let f: FecnFile = super::parse_scenario(file, text)?;
        let c = f.fecn;
        c.check().map_err(|(field, why)| {
            ScenarioFileError::field(file, line_of(text, field), field, why)
        })?;
        Ok(c)
    }

    /// The rules each field keeps: `(field, why)` for the first broken one. (Long, as a flat list
    /// of one rule a field, in the file's order.)
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let pos = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err((name, format!("{v}: must be a number above 0")))
            }
        };
        if !(1..=100_000).contains(&self.flows) {
            return Err(("flows", format!("{}: must be 1..=100000", self.flows)));
        }
        pos("flow_rate_mbps", self.flow_rate_mbps)?;
        pos("capacity_gbps", self.capacity_gbps)?;
        if self.flow_rate_mbps > self.capacity_gbps * 1000.0 {
            return Err((
                "flow_rate_mbps",
                format!(
                    "{}: above the link capacity {} Gb/s",
                    self.flow_rate_mbps, self.capacity_gbps
                ),
            ));
        }
        if !(self.pareto_shape.is_finite() && self.pareto_shape > 1.0) {
            return Err((
                "pareto_shape",
                format!("{}: must be above 1 (finite mean)", self.pareto_shape),
            ));
        }
        pos("burst_ms", self.burst_ms)?;
        if !(64..=9216).contains(&self.packet_bytes) {
            return Err((
                "packet_bytes",
                format!("{}: must be 64..=9216", self.packet_bytes),
            ));
        }
        pos("duration_ms", self.duration_ms)?;
        if !(self.warmup_ms >= 0.0 && self.warmup_ms < self.duration_ms) {
            return Err((
                "warmup_ms",
                format!(
                    "{}: must be 0 or more and below duration_ms",
                    self.warmup_ms
                ),
            ));
        }
        pos("interval_us", self.interval_us)?;
        pos("probe_us", self.probe_us)?;
        if !(self.delay_ns.is_finite() && self.delay_ns >= 0.0) {
            return Err(("delay_ns", format!("{}: must be 0 or more", self.delay_ns)));
        }
        if !(self.buffer_packets.is_finite() && self.buffer_packets >= 1.0) {
            return Err((
                "buffer_packets",
                format!("{}: must be 1 or more", self.buffer_packets),
            ));
        }
        if self.host_buffer_packets == 0 {
            return Err(("host_buffer_packets", "0: must be 1 or more".into()));
        }
        if !(self.n0.is_finite() && self.n0 >= 1.0) {
            return Err(("n0", format!("{}: must be 1 or more", self.n0)));
        }
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(("gamma", format!("{}: must be in (0, 1]", self.gamma)));
        }
        if !(self.a.is_finite() && self.a >= 1.0) {
            return Err(("a", format!("{}: must be 1 or more", self.a)));
        }
        if !(self.b.is_finite() && self.b >= 1.0) {
            return Err(("b", format!("{}: must be 1 or more", self.b)));
        }
        if !(self.c > 0.0 && self.c <= 1.0) {
            return Err(("c", format!("{}: must be in (0, 1]", self.c)));
        }
        pos("q_eq", self.q_eq)?;
        if !(self.k.is_finite() && self.k >= 0.0) {
            return Err(("k", format!("{}: must be 0 or more", self.k)));
        }
        if !(1..=64).contains(&self.stages) {
            return Err(("stages", format!("{}: must be 1..=64", self.stages)));
        }
        if !(self.q_off.is_finite() && self.q_off >= 0.0 && self.q_off < self.q_on) {
            return Err((
                "q_off",
                format!("{}: must be 0 or more and below q_on", self.q_off),
            ));
        }
        if self.q_on >= self.buffer_packets {
            return Err((
                "q_on",
                format!(
                    "{}: must be below buffer_packets {}",
                    self.q_on, self.buffer_packets
                ),
            ));
        }
        pos("min_rate_mbps", self.min_rate_mbps)?;
        if !(self.avg_weight > 0.0 && self.avg_weight <= 1.0) {
            return Err((
                "avg_weight",
                format!("{}: must be in (0, 1]", self.avg_weight),
            ));
        }
        pos("sample_us", self.sample_us)?;
        pos("queue_sample_us", self.queue_sample_us)?;
        Ok(())
    }

    /// The queue control function these settings name.
    pub fn queue_control(&self) -> QueueControl {
        match self.control {
            ControlKind::Hyperbolic => QueueControl::Hyperbolic {
                a: self.a,
                b: self.b,
                c: self.c,
                q_eq: self.q_eq,
            },
            ControlKind::Multistage => QueueControl::Multistage {
                k: self.k,
                n: self.stages,
                c: self.c,
                q_eq: self.q_eq,
            },
        }
    }

    fn capacity_bps(&self) -> f64 {
        self.capacity_gbps * 1e9
    }

    /// Cycles (byte times of the bottleneck) per second.
    pub fn clock_hz(&self) -> f64 {
        self.capacity_bps() / 8.0
    }

    fn cycles(&self, seconds: f64) -> u64 {
        (seconds * self.clock_hz()).round() as u64
    }
}

/// A frame in flight: data of flow `flow`, or a probe's bytes.
#[derive(Debug, Clone)]
struct Frame {
    flow: usize,
    bytes: u64,
    probe: Option<[u8; PROBE_BYTES]>,
}

#[derive(Debug, Clone)]
enum Ev {
    Gen(usize),
    NicTry(usize),
    ProbeTimer(usize),
    SwArrive(Frame),
    SwDepart,
    DstArrive(Frame),
    ProbeBack(usize, [u8; PROBE_BYTES]),
    Pause(usize, bool),
    PauseRefresh(u64),
    CpTick,
    Sample,
    QueueSample,
}

#[derive(Debug, Clone, Default)]
struct Source {
    backlog: u64,
    host_drops: u64,
    rate_bps: f64,
    /// The limiter's earliest start of the next data frame, cycles (fractional).
    next_ok: f64,
    /// When the last data frame started.
    last_data: u64,
    tx_until: u64,
    paused_until: u64,
    probe_pending: bool,
    probe_seq: u32,
    try_at: Option<u64>,
    /// Pareto: ON until this cycle (else OFF until it).
    on: bool,
    phase_end: u64,
}

/// One sample of the per-flow rates: `(time_us, limiter Mb/s, delivered Mb/s)` per flow.
#[derive(Debug, Clone)]
pub struct RateSample {
    pub t_us: f64,
    pub limiter_mbps: Vec<f64>,
    pub delivered_mbps: Vec<f64>,
}

/// What one run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FecnStats {
    pub mode: String,
    pub seed: u64,
    /// Data delivered over `[warmup, duration]`, Mb/s.
    pub throughput_mbps: f64,
    pub per_flow_mean_mbps: f64,
    pub per_flow_min_mbps: f64,
    pub per_flow_max_mbps: f64,
    /// Jain's fairness index of the flows' delivered rates over the window.
    pub jain: f64,
    /// The queue's time average over the window (sampled), packets.
    pub queue_mean_pkts: f64,
    pub queue_max_pkts: f64,
    /// The advertised rate at the end, Mb/s.
    pub advertised_mbps: f64,
    pub network_drops: u64,
    pub host_drops: u64,
    pub probes: u64,
    pub pauses: u64,
    /// Mean PAUSE/ON to PAUSE/OFF time at the switch, us (0 with none).
    pub pause_mean_us: f64,
    pub pause_max_us: f64,
    pub events: u64,
}

/// One FECN run, its record kept for the CSVs.
pub struct FecnRun {
    pub cfg: FecnConfig,
    pub mode: FecnMode,
    pub stats: FecnStats,
    pub rates: Vec<RateSample>,
    /// `(time_us, packets)`.
    pub queue: Vec<(f64, f64)>,
    /// `(time_us, interval)` at each tick of the congestion point.
    pub ticks: Vec<(f64, Interval)>,
    /// PAUSE intervals at the switch, `(on_us, off_us)`.
    pub pauses: Vec<(f64, f64)>,
}

struct Sim<'a> {
    cfg: &'a FecnConfig,
    pause_on: bool,
    rng: ChaCha8Rng,
    events_q: super::Events<Ev>,
    now: u64,
    end: u64,
    warm: u64,
    pm: u64,
    delay: u64,
    src: Vec<Source>,
    queue: VecDeque<Frame>,
    q_bytes: u64,
    cap_bytes: u64,
    egress_busy: bool,
    cp: CongestionPoint,
    pause: PauseCtl,
    pause_gen: u64,
    pause_started: u64,
    delivered_win: Vec<u64>,
    delivered_sample: Vec<u64>,
    last_sample: u64,
    net_drops: u64,
    probes: u64,
    events: u64,
    q_sum: f64,
    q_n: u64,
    q_max: f64,
    out: FecnRun,
}

impl<'a> Sim<'a> {
    fn at(&mut self, t: u64, ev: Ev) {
        self.events_q.at(t, ev);
    }

    fn us(&self, t: u64) -> f64 {
        t as f64 / self.cfg.clock_hz() * 1e6
    }

    /// Wake source `s`'s NIC at `t` unless a wake at or before `t` is pending.
    fn kick(&mut self, s: usize, t: u64) {
        if let Some(w) = self.src[s].try_at {
            if w >= self.now && w <= t {
                return;
            }
        }
        self.src[s].try_at = Some(t);
        self.at(t, Ev::NicTry(s));
    }

    fn pareto(&mut self, mean_s: f64) -> u64 {
        let a = self.cfg.pareto_shape;
        let xm = mean_s * (a - 1.0) / a;
        let u: f64 = 1.0 - self.rng.gen::<f64>(); // (0, 1]
        self.cfg.cycles(xm / u.powf(1.0 / a)).max(1)
    }

    /// The next application packet of source `s` after `t`.
    fn next_gen(&mut self, s: usize, t: u64) -> u64 {
        let c = self.cfg;
        let period = c
            .cycles(self.pm as f64 * 8.0 / (c.flow_rate_mbps * 1e6))
            .max(1);
        match c.arrivals {
            Arrivals::Cbr => t + period,
            Arrivals::Bernoulli => {
                let p = c.flow_rate_mbps * 1e6 / c.capacity_bps();
                let u: f64 = 1.0 - self.rng.gen::<f64>();
                let slots = if p >= 1.0 {
                    1
                } else {
                    ((u.ln() / (1.0 - p).ln()).floor() as u64) + 1
                };
                t + slots * self.pm
            }
            Arrivals::Pareto => {
                let on_period = (period / 2).max(1);
                let mut t = t;
                loop {
                    let src = &self.src[s];
                    if src.on && t + on_period <= src.phase_end {
                        return t + on_period;
                    }
                    let (on, end) = (src.on, src.phase_end);
                    let next_len = self.pareto(c.burst_ms * 1e-3);
                    let src = &mut self.src[s];
                    src.on = !on;
                    t = t.max(end);
                    src.phase_end = end.max(t) + next_len;
                    if src.on {
                        return t;
                    }
                }
            }
        }
    }

    fn send_probe(&mut self, s: usize, t: u64) {
        let sr = &mut self.src[s];
        sr.probe_seq = sr.probe_seq.wrapping_add(1);
        let p = Probe {
            dst_mac: [2, 0, 0, 0xFF, 0xFF, 0xFF],
            src_mac: mac(s),
            reflected: false,
            flow: s as u32,
            seq: sr.probe_seq,
            rate_kbps: (self.cfg.capacity_bps() / 1e3) as u32,
            sent_ps: (self.us(t) * 1e6) as u64,
        };
        self.probes += 1;
        let bytes = PROBE_BYTES as u64;
        self.src[s].tx_until = t + bytes;
        self.at(
            t + bytes + self.delay,
            Ev::SwArrive(Frame {
                flow: s,
                bytes,
                probe: Some(p.encode()),
            }),
        );
    }

    fn nic_try(&mut self, s: usize) {
        let t = self.now;
        if self.src[s].try_at == Some(t) {
            self.src[s].try_at = None;
        }
        let sr = &self.src[s];
        if sr.paused_until > t {
            let w = sr.paused_until;
            self.kick(s, w);
            return;
        }
        if sr.tx_until > t {
            let w = sr.tx_until;
            self.kick(s, w);
            return;
        }
        if sr.probe_pending {
            self.src[s].probe_pending = false;
            self.send_probe(s, t);
            self.kick(s, t + PROBE_BYTES as u64);
            return;
        }
        if sr.backlog == 0 {
            return;
        }
        if sr.next_ok > t as f64 {
            let w = sr.next_ok.ceil() as u64;
            self.kick(s, w);
            return;
        }
        let pm = self.pm;
        let gap = pm as f64 * 8.0 / sr.rate_bps * self.cfg.clock_hz();
        let sr = &mut self.src[s];
        sr.backlog -= 1;
        sr.last_data = t;
        sr.tx_until = t + pm;
        sr.next_ok = t as f64 + gap;
        let w = sr.tx_until;
        self.at(
            t + pm + self.delay,
            Ev::SwArrive(Frame {
                flow: s,
                bytes: pm,
                probe: None,
            }),
        );
        self.kick(s, w);
    }

    fn pause_check(&mut self) {
        if !self.pause_on {
            return;
        }
        match self.pause.check(self.q_bytes) {
            Some(PauseSignal::On) => {
                self.pause_gen += 1;
                self.pause_started = self.now;
                self.send_pause(true);
            }
            Some(PauseSignal::Off) => {
                self.pause_gen += 1;
                let on = self.us(self.pause_started);
                let off = self.us(self.now);
                self.out.pauses.push((on, off));
                self.send_pause(false);
            }
            None => {}
        }
    }

    fn send_pause(&mut self, on: bool) {
        let arr = self.now + PROBE_BYTES as u64 + self.delay;
        for s in 0..self.src.len() {
            self.at(arr, Ev::Pause(s, on));
        }
        if on {
            let g = self.pause_gen;
            self.at(self.now + QUANTA_CYCLES / 2, Ev::PauseRefresh(g));
        }
    }

    fn start_egress(&mut self) {
        if self.egress_busy {
            return;
        }
        if let Some(f) = self.queue.front() {
            self.egress_busy = true;
            let t = self.now + f.bytes;
            self.at(t, Ev::SwDepart);
        }
    }

    fn sw_arrive(&mut self, mut f: Frame) {
        if self.q_bytes + f.bytes > self.cap_bytes {
            self.net_drops += 1;
            return;
        }
        if let Some(b) = &mut f.probe {
            // A real frame: read it, lower its rate, write it back.
            let mut p = Probe::decode(b).expect("the simulator writes valid probes");
            let r = self.cp.mark(f64::from(p.rate_kbps) * 1e3);
            p.rate_kbps = (r / 1e3) as u32;
            *b = p.encode();
        }
        self.q_bytes += f.bytes;
        self.cp.on_arrival(f.bytes, self.q_bytes);
        self.queue.push_back(f);
        self.pause_check();
        self.start_egress();
    }

    fn dst_arrive(&mut self, f: Frame) {
        let t = self.now;
        match f.probe {
            Some(b) => {
                let mut p = Probe::decode(&b).expect("the simulator writes valid probes");
                p.reflected = true;
                std::mem::swap(&mut p.src_mac, &mut p.dst_mac);
                let back = 2 * (PROBE_BYTES as u64 + self.delay);
                self.at(t + back, Ev::ProbeBack(f.flow, p.encode()));
            }
            None => {
                if t >= self.warm {
                    self.delivered_win[f.flow] += f.bytes;
                }
                self.delivered_sample[f.flow] += f.bytes;
            }
        }
    }

    fn probe_back(&mut self, s: usize, b: [u8; PROBE_BYTES]) {
        let t = self.now;
        let p = Probe::decode(&b).expect("the simulator writes valid probes");
        debug_assert!(p.reflected);
        let r = (f64::from(p.rate_kbps) * 1e3).max(self.cfg.min_rate_mbps * 1e6);
        self.src[s].rate_bps = r;
        // A limiter waiting at the old rate is re-timed from its last data frame's start.
        let sr = &mut self.src[s];
        if sr.next_ok > t as f64 {
            sr.next_ok = sr.last_data as f64 + self.pm as f64 * 8.0 / r * self.cfg.clock_hz();
        }
        self.kick(s, t);
    }

    fn sample(&mut self) {
        let t = self.now;
        let dt = (t - self.last_sample) as f64 / self.cfg.clock_hz();
        let s = RateSample {
            t_us: self.us(t),
            limiter_mbps: self.src.iter().map(|s| s.rate_bps / 1e6).collect(),
            delivered_mbps: self
                .delivered_sample
                .iter()
                .map(|&b| b as f64 * 8.0 / dt / 1e6)
                .collect(),
        };
        self.out.rates.push(s);
        self.delivered_sample.iter_mut().for_each(|b| *b = 0);
        self.last_sample = t;
        let p = self.cfg.cycles(self.cfg.sample_us * 1e-6).max(1);
        self.at(t + p, Ev::Sample);
    }

    fn step(&mut self, ev: Ev) {
        let t = self.now;
        match ev {
            Ev::Gen(s) => {
                let sr = &mut self.src[s];
                if sr.backlog < self.cfg.host_buffer_packets {
                    sr.backlog += 1;
                } else {
                    sr.host_drops += 1;
                }
                let n = self.next_gen(s, t);
                self.at(n, Ev::Gen(s));
                self.kick(s, t);
            }
            Ev::NicTry(s) => self.nic_try(s),
            Ev::ProbeTimer(s) => {
                self.src[s].probe_pending = true;
                self.kick(s, t);
                let p = self.cfg.cycles(self.cfg.probe_us * 1e-6).max(1);
                self.at(t + p, Ev::ProbeTimer(s));
            }
            Ev::SwArrive(f) => self.sw_arrive(f),
            Ev::SwDepart => {
                let f = self.queue.pop_front().expect("a departure has a frame");
                self.q_bytes -= f.bytes;
                self.cp.on_departure(f.bytes, self.q_bytes);
                self.egress_busy = false;
                self.pause_check();
                self.at(t + self.delay, Ev::DstArrive(f));
                self.start_egress();
            }
            Ev::DstArrive(f) => self.dst_arrive(f),
            Ev::ProbeBack(s, b) => self.probe_back(s, b),
            Ev::Pause(s, on) => {
                self.src[s].paused_until = if on { t + QUANTA_CYCLES } else { t };
                if !on {
                    self.kick(s, t);
                }
            }
            Ev::PauseRefresh(g) => {
                if g == self.pause_gen && self.pause.on {
                    self.send_pause(true);
                }
            }
            Ev::CpTick => {
                self.cp.on_tick(self.q_bytes);
                if let Some(iv) = self.cp.last {
                    let tu = self.us(t);
                    self.out.ticks.push((tu, iv));
                }
                let p = self.cfg.cycles(self.cfg.interval_us * 1e-6).max(1);
                self.at(t + p, Ev::CpTick);
            }
            Ev::Sample => self.sample(),
            Ev::QueueSample => {
                let q = self.q_bytes as f64 / self.pm as f64;
                let tu = self.us(t);
                self.out.queue.push((tu, q));
                if t >= self.warm {
                    self.q_sum += q;
                    self.q_n += 1;
                }
                self.q_max = self.q_max.max(q);
                let p = self.cfg.cycles(self.cfg.queue_sample_us * 1e-6).max(1);
                self.at(t + p, Ev::QueueSample);
            }
        }
    }
}

/// 802.3x PAUSE quanta 0xFFFF in cycles (a quantum is 512 bit times, 64 byte times).
pub const QUANTA_CYCLES: u64 = 0xFFFF * 64;

fn mac(s: usize) -> [u8; 6] {
    let b = (s as u32).to_be_bytes();
    [2, 0, b[0], b[1], b[2], b[3]]
}

impl<'a> Sim<'a> {
    fn new(cfg: &'a FecnConfig, mode: FecnMode, seed: u64) -> Sim<'a> {
        let cp = CongestionPoint::new(
            CpParams {
                capacity_bps: cfg.capacity_bps(),
                packet_bytes: cfg.packet_bytes,
                n0: cfg.n0,
                gamma: cfg.gamma,
                min_rate_bps: cfg.min_rate_mbps * 1e6,
                avg_weight: cfg.avg_weight,
                control: cfg.queue_control(),
            },
            cfg.interval_us * 1e-6,
        );
        let r0 = cp.rate_bps();
        let n = cfg.flows;
        Sim {
            cfg,
            pause_on: mode == FecnMode::FecnPause,
            rng: ChaCha8Rng::seed_from_u64(seed),
            events_q: super::Events::default(),
            now: 0,
            end: cfg.cycles(cfg.duration_ms * 1e-3),
            warm: cfg.cycles(cfg.warmup_ms * 1e-3),
            pm: cfg.packet_bytes,
            delay: cfg.cycles(cfg.delay_ns * 1e-9),
            src: vec![
                Source {
                    rate_bps: r0,
                    ..Source::default()
                };
                n
            ],
            queue: VecDeque::new(),
            q_bytes: 0,
            cap_bytes: (cfg.buffer_packets * cfg.packet_bytes as f64) as u64,
            egress_busy: false,
            cp,
            pause: PauseCtl::new(cfg.q_on, cfg.q_off, cfg.packet_bytes),
            pause_gen: 0,
            pause_started: 0,
            delivered_win: vec![0; n],
            delivered_sample: vec![0; n],
            last_sample: 0,
            net_drops: 0,
            probes: 0,
            events: 0,
            q_sum: 0.0,
            q_n: 0,
            q_max: 0.0,
            out: FecnRun {
                cfg: cfg.clone(),
                mode,
                stats: empty_stats(mode, seed),
                rates: Vec::new(),
                queue: Vec::new(),
                ticks: Vec::new(),
                pauses: Vec::new(),
            },
        }
    }

    /// The first events: each source's application and probe clock at random phases, the
    /// congestion point's tick and the samplers.
    fn schedule_start(&mut self) {
        let period = self
            .cfg
            .cycles(self.cfg.packet_bytes as f64 * 8.0 / (self.cfg.flow_rate_mbps * 1e6))
            .max(1);
        let probe = self.cfg.cycles(self.cfg.probe_us * 1e-6).max(1);
        for s in 0..self.src.len() {
            let phase = self.rng.gen_range(0..period);
            if self.cfg.arrivals == Arrivals::Pareto {
                // Start in a random phase: ON or OFF with equal odds, a fresh period.
                let on = self.rng.gen_bool(0.5);
                let len = self.pareto(self.cfg.burst_ms * 1e-3);
                let t0 = if on {
                    self.src[s].phase_end = len;
                    phase.min(len)
                } else {
                    // OFF for `len`, then an ON period from there.
                    self.src[s].phase_end = len + self.pareto(self.cfg.burst_ms * 1e-3);
                    len
                };
                self.src[s].on = true;
                self.at(t0, Ev::Gen(s));
            } else {
                self.at(phase, Ev::Gen(s));
            }
            let pp = self.rng.gen_range(0..probe);
            self.at(pp, Ev::ProbeTimer(s));
        }
        let tick = self.cfg.cycles(self.cfg.interval_us * 1e-6).max(1);
        self.at(tick, Ev::CpTick);
        let sample = self.cfg.cycles(self.cfg.sample_us * 1e-6).max(1);
        self.at(sample, Ev::Sample);
        self.at(0, Ev::QueueSample);
    }

    /// The run's statistics and record.
    fn finish(self) -> FecnRun {
        let window = (self.end - self.warm) as f64 / self.cfg.clock_hz();
        let rates: Vec<f64> = self
            .delivered_win
            .iter()
            .map(|&b| b as f64 * 8.0 / window / 1e6)
            .collect();
        let total: f64 = rates.iter().sum();
        let sq: f64 = rates.iter().map(|r| r * r).sum();
        let pauses = &self.out.pauses;
        let durs: Vec<f64> = pauses.iter().map(|(a, b)| b - a).collect();
        let stats = FecnStats {
            mode: self.out.mode.name().into(),
            seed: self.out.stats.seed,
            throughput_mbps: total,
            per_flow_mean_mbps: total / self.src.len() as f64,
            per_flow_min_mbps: rates.iter().copied().fold(f64::INFINITY, f64::min),
            per_flow_max_mbps: rates.iter().copied().fold(0.0, f64::max),
            jain: if sq > 0.0 {
                total * total / (self.src.len() as f64 * sq)
            } else {
                0.0
            },
            queue_mean_pkts: if self.q_n > 0 {
                self.q_sum / self.q_n as f64
            } else {
                0.0
            },
            queue_max_pkts: self.q_max,
            advertised_mbps: self.cp.rate_bps() / 1e6,
            network_drops: self.net_drops,
            host_drops: self.src.iter().map(|s| s.host_drops).sum(),
            probes: self.probes,
            pauses: durs.len() as u64,
            pause_mean_us: if durs.is_empty() {
                0.0
            } else {
                durs.iter().sum::<f64>() / durs.len() as f64
            },
            pause_max_us: durs.iter().copied().fold(0.0, f64::max),
            events: self.events,
        };
        let mut out = self.out;
        out.stats = stats;
        out
    }
}

/// Run `cfg` in `mode` with `seed`.
pub fn run(cfg: &FecnConfig, mode: FecnMode, seed: u64) -> FecnRun {
    let mut sim = Sim::new(cfg, mode, seed);
    sim.schedule_start();
    while let Some((t, ev)) = sim.events_q.pop() {
        if t > sim.end {
            break;
        }
        sim.now = t;
        sim.events += 1;
        sim.step(ev);
    }
    sim.finish()
}

fn empty_stats(mode: FecnMode, seed: u64) -> FecnStats {
    FecnStats {
        mode: mode.name().into(),
        seed,
        throughput_mbps: 0.0,
        per_flow_mean_mbps: 0.0,
        per_flow_min_mbps: 0.0,
        per_flow_max_mbps: 0.0,
        jain: 0.0,
        queue_mean_pkts: 0.0,
        queue_max_pkts: 0.0,
        advertised_mbps: 0.0,
        network_drops: 0,
        host_drops: 0,
        probes: 0,
        pauses: 0,
        pause_mean_us: 0.0,
        pause_max_us: 0.0,
        events: 0,
    }
}

impl FecnRun {
    /// Per-flow rates over time: `t_us,flow,limiter_mbps,delivered_mbps`.
    pub fn rates_csv(&self) -> String {
        let mut s = String::from("t_us,flow,limiter_mbps,delivered_mbps\n");
        for r in &self.rates {
            for (f, (l, d)) in r.limiter_mbps.iter().zip(&r.delivered_mbps).enumerate() {
                s += &format!("{:.1},{f},{l:.3},{d:.3}\n", r.t_us);
            }
        }
        s
    }

    /// Queue length over time: `t_us,queue_pkts`.
    pub fn queue_csv(&self) -> String {
        let mut s = String::from("t_us,queue_pkts\n");
        for (t, q) in &self.queue {
            s += &format!("{t:.2},{q:.3}\n");
        }
        s
    }

    /// The congestion point's intervals: `t_us,arrival_mbps,q_pkts,f,rho,advertised_mbps`.
    pub fn ticks_csv(&self) -> String {
        let mut s = String::from("t_us,arrival_mbps,q_pkts,f,rho,advertised_mbps\n");
        for (t, i) in &self.ticks {
            s += &format!(
                "{t:.1},{:.3},{:.3},{:.6},{:.6},{:.3}\n",
                i.arrival_bps / 1e6,
                i.q,
                i.f,
                i.rho,
                i.rate_bps / 1e6
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "[fecn]\nflows = 4\nflow_rate_mbps = 200.0\ncapacity_gbps = 10.0\n\
        arrivals = \"cbr\"\nduration_ms = 2.0\nwarmup_ms = 1.0\nn0 = 4.0\ngamma = 0.99\n\
        control = \"hyperbolic\"\n";

    #[test]
    fn parses_good() {
        let c = FecnConfig::parse("x.toml", GOOD).unwrap();
        assert_eq!(c.flows, 4);
        assert_eq!(c.q_eq, 16.0);
    }

    #[test]
    fn refuses_with_file_line_field() {
        let bad = GOOD.replace("gamma = 0.99", "gamma = 1.5");
        let e = FecnConfig::parse("x.toml", &bad).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.field.as_str()),
            ("x.toml", 9, "gamma")
        );
        let bad = GOOD.replace("flows = 4", "flows = \"four\"");
        let e = FecnConfig::parse("x.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "flows"), "{e}");
        let bad = GOOD.replace("n0 = 4.0", "n0 = 4.0\nbogus = 1");
        let e = FecnConfig::parse("x.toml", &bad).unwrap_err();
        assert_eq!(e.field, "bogus", "{e}");
        assert_eq!(e.line, 9, "{e}");
        let bad = GOOD.replace("duration_ms = 2.0\n", "");
        let e = FecnConfig::parse("x.toml", &bad).unwrap_err();
        assert_eq!(e.field, "duration_ms", "{e}");
        let bad = GOOD.replace("arrivals = \"cbr\"", "arrivals = \"poisson\"");
        let e = FecnConfig::parse("x.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (5, "arrivals"), "{e}");
        let bad = GOOD.replace("warmup_ms = 1.0", "warmup_ms = 3.0");
        let e = FecnConfig::parse("x.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (7, "warmup_ms"), "{e}");
    }
}
