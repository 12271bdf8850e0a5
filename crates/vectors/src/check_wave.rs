//! `capfc check --wave`: the reference checker ([`crate::check`]) on a waveform from any simulator.
//!
//! A map file (TOML) names the implementation's signals and says how each carries its lanes; the
//! waveform (VCD or FST, read by the `wellen` crate) is sampled just before every rising edge of
//! the clock, and each sample becomes one checker cycle. The map format is documented, key by key
//! with an example each, in `docs/design-space.md`, and shown whole in `check/capfc_v2/capfc_v2.map.toml`.

use std::collections::HashMap;

use serde::Deserialize;
use wellen::{Hierarchy, SignalRef, SignalValueRef};

use crate::block::cfg::CfgRegs;
use crate::block::{BlockConfig, BlockParams, NPRIO};
use crate::check::{Cycle, Frame, Lane, Params};

/// How the configuration reaches the implementation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case", tag = "source")]
pub enum ConfigMap {
    /// Fixed for the whole run (written before the first lane).
    Static { values: BlockConfig },
    /// Register writes in capfc's address map (docs/microarchitecture-v2.md), decoded with `ow`-bit
    /// thresholds.
    CapfcRegisters {
        we: String,
        addr: String,
        data: String,
        ow: u32,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArriveMap {
    pub valid: String,
    pub prio: String,
    pub size: String,
    pub accept: String,
    /// A lane is taken in a cycle where it is valid and this is 1 (a lane held until its slot).
    /// Absent: whenever valid.
    pub ready: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepartMap {
    pub valid: String,
    pub port: String,
    pub prio: String,
    pub size: String,
    /// A lane is taken in a cycle where it is valid and this is 1 (a lane held until its slot).
    /// Absent: whenever valid.
    pub ready: Option<String>,
    /// `ready` is per port (e.g. the ports' slot readies, `arrive.ready`'s signal): the lane is
    /// taken when the ready of the port it names is 1. Default: one ready for the lane.
    #[serde(default)]
    pub ready_per_port: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnqueueMap {
    pub valid: String,
    pub oport: String,
    pub prio: String,
    pub iport: String,
    pub size: String,
    pub accept: String,
    /// A lane is taken in a cycle where it is valid and this is 1 (a lane held until its slot).
    /// Absent: whenever valid.
    pub ready: Option<String>,
    /// `ready` is per port (e.g. the output ports' slot readies, `dequeue.ready`'s signal): the
    /// lane is taken when the ready of its output port is 1. Default: one ready for the lane.
    #[serde(default)]
    pub ready_per_port: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DequeueMap {
    pub valid: String,
    pub prio: String,
    pub size: String,
    /// A lane is taken in a cycle where it is valid and this is 1 (a lane held until its slot).
    /// Absent: whenever valid.
    pub ready: Option<String>,
}

/// Where (port, priority) sits in a packed D bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DOrder {
    /// bit `i*8 + p`
    #[default]
    PortMajor,
    /// bit `p*NP + i`
    PrioMajor,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DMap {
    pub signal: String,
    #[serde(default)]
    pub order: DOrder,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcMap {
    /// Per port: a frame is offered (with `ready`) or sent (a pulse, without it).
    pub valid: String,
    /// Per port: the MAC takes the offered frame. Absent: a frame is taken whenever valid.
    pub ready: Option<String>,
    /// Per port, 8 bits: the class-enable vector. Absent: every class.
    pub cev: Option<String>,
    /// Per port, 8 bits: 1 = pause for `quanta`, 0 = resume. Absent: a class pauses when its
    /// quanta are not 0.
    pub xoff: Option<String>,
    /// The pause time: one 16-bit signal for every port and class, or per port 8 x 16 bits
    /// (class p at bits `p*16 +: 16`).
    pub quanta: String,
}

/// The map file. Signal names are relative to `scope`; a name holding `{i}` is one signal per
/// port (`{i}` replaced by the port number), any other per-port name is a packed bus whose port
/// i field sits at bits `[i*w +: w]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Map {
    pub scope: String,
    pub clock: String,
    pub reset: Option<String>,
    #[serde(default)]
    pub reset_active_low: bool,
    #[serde(default)]
    pub reset_clears_config: bool,
    pub params: Params,
    pub config: ConfigMap,
    pub arrive: ArriveMap,
    pub depart: DepartMap,
    pub enqueue: EnqueueMap,
    pub dequeue: DequeueMap,
    pub d: DMap,
    pub pfc: PfcMap,
}

/// A map file that cannot be used: the file, and what in it is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("{path}: {source}")]
    Toml {
        path: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{path}: [params] {source}")]
    Params {
        path: String,
        #[source]
        source: crate::check::FieldError,
    },
    #[error("{path}: reset_clears_config = true with [config] source = \"static\": a static configuration is not held in the block's registers, so a reset cannot clear it (remove the key, or map the block's configuration registers)")]
    StaticReset { path: String },
    /// A static configuration's value out of the contract's orderings.
    #[error("{path}: [config.values] {}: {}", source.field, source.why)]
    Values {
        path: String,
        #[source]
        source: crate::block::ConfigError,
    },
}

/// A waveform the map cannot be applied to: the file that cannot be read, or the line of the map
/// whose name the waveform does not have (or has at another width).
#[derive(Debug, thiserror::Error)]
pub enum WaveMapError {
    #[error("{path}: {source}")]
    Open {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a readable VCD or FST: {source}")]
    Unreadable {
        path: String,
        #[source]
        source: wellen::WellenError,
    },
    #[error("{path}: not a readable VCD or FST (the reader gave up)")]
    GaveUp { path: String },
    /// The map's scope (at `map:line`): none, or several, in the waveform (`why`).
    #[error("{map}:{line}: scope = \"{scope}\": {why} in {wave}")]
    Scope {
        map: String,
        line: usize,
        scope: String,
        why: String,
        wave: String,
    },
    /// A signal of the map missing from the waveform (`path`: the signal looked for).
    #[error("{at}: no signal {path} in {}", at.wave)]
    NoSignal { at: Box<MapName>, path: String },
    #[error("{at}: not a bit vector in {}", at.wave)]
    NotVector { at: Box<MapName> },
    #[error("{at}: {got} bits in {}, the map needs {want}", at.wave)]
    Width {
        at: Box<MapName>,
        got: u32,
        want: String,
    },
    #[error("clock: not loaded")]
    ClockNotLoaded,
}

/// A name of the map: the map's file and line, the key, the name given, and the waveform it is
/// looked for in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{map}:{line}: {key} = \"{name}\"")]
pub struct MapName {
    pub map: String,
    pub line: usize,
    pub key: String,
    pub name: String,
    pub wave: String,
}

impl Map {
    pub fn parse(text: &str, path: &str) -> Result<Self, MapError> {
        let m: Map = toml::from_str(text).map_err(|source| MapError::Toml {
            path: path.to_string(),
            source,
        })?;
        m.params.validate().map_err(|source| MapError::Params {
            path: path.to_string(),
            source,
        })?;
        if let ConfigMap::Static { values } = &m.config {
            if m.reset_clears_config {
                return Err(MapError::StaticReset {
                    path: path.to_string(),
                });
            }
            // the widest occupancy the map can describe: the values are checked against the
            // contract's orderings, not against a register width the map does not give
            let bp = BlockParams {
                np: m.params.np,
                ow: 32,
                sw: 32,
                cw: m.params.cw,
                cell_log2: m.params.cell_log2,
                cut_f: m.params.cut_f,
                ..BlockParams::default()
            };
            values.validate(&bp).map_err(|source| MapError::Values {
                path: path.to_string(),
                source,
            })?;
        }
        Ok(m)
    }
}

/// One signal of the waveform, sampled before each clock edge.
struct Sig {
    r: SignalRef,
    width: u32,
}

/// A field: a whole signal, or bits of one.
#[derive(Clone, Copy)]
struct Field {
    sig: usize,
    lo: u32,
    w: u32,
}

/// The map resolved against a waveform's hierarchy.
struct Resolved {
    sigs: Vec<Sig>,
    fields: HashMap<String, Vec<Field>>,
}

/// A line of the map file that holds `value` (for error messages), or 0.
fn line_of(text: &str, value: &str) -> usize {
    let q = format!("\"{value}\"");
    text.lines()
        .position(|l| l.contains(&q))
        .map_or(0, |n| n + 1)
}

struct Resolver<'a> {
    h: &'a Hierarchy,
    map_text: &'a str,
    map_path: &'a str,
    wave_path: &'a str,
    scope: Vec<String>,
    np: usize,
    by_name: HashMap<String, usize>,
    out: Resolved,
}

impl Resolver<'_> {
    fn var(&mut self, key: &str, name: &str) -> Result<usize, WaveMapError> {
        if let Some(&s) = self.by_name.get(name) {
            return Ok(s);
        }
        let mut path = self.scope.clone();
        path.extend(name.split('.').map(String::from));
        let last = path.pop().unwrap_or_default();
        let v = self
            .h
            .lookup_var(&path, last.clone())
            .ok_or_else(|| WaveMapError::NoSignal {
                at: self.at(key, name),
                path: format!("{}.{last}", path.join(".")),
            })?;
        let var = &self.h[v];
        let width = var.length(self.h).ok_or_else(|| WaveMapError::NotVector {
            at: self.at(key, name),
        })?;
        self.out.sigs.push(Sig {
            r: var.signal_ref(),
            width,
        });
        let n = self.out.sigs.len() - 1;
        self.by_name.insert(name.to_string(), n);
        Ok(n)
    }

    /// Where the map names `name` under `key`.
    fn at(&self, key: &str, name: &str) -> Box<MapName> {
        Box::new(MapName {
            map: self.map_path.to_string(),
            line: line_of(self.map_text, name),
            key: key.to_string(),
            name: name.to_string(),
            wave: self.wave_path.to_string(),
        })
    }

    fn bad_width(&self, key: &str, name: &str, got: u32, want: String) -> WaveMapError {
        WaveMapError::Width {
            at: self.at(key, name),
            got,
            want,
        }
    }

    /// A single-lane field: the whole signal, `w` bits exactly when given.
    fn one(&mut self, key: &str, name: &str, w: Option<u32>) -> Result<(), WaveMapError> {
        let s = self.var(key, name)?;
        let width = self.out.sigs[s].width;
        if w.is_some_and(|w| w != width) || width > 64 {
            let want = w.map_or("at most 64".into(), |w| w.to_string());
            return Err(self.bad_width(key, name, width, want));
        }
        self.out.fields.insert(
            key.into(),
            vec![Field {
                sig: s,
                lo: 0,
                w: width,
            }],
        );
        Ok(())
    }

    /// A per-port field of `w` bits per port (None: whatever the width gives, at most 64). A field
    /// wider than 64 bits (the 8 x 16-bit pause times) is read only through `get`.
    fn per_port(&mut self, key: &str, name: &str, w: Option<u32>) -> Result<(), WaveMapError> {
        let np = self.np;
        let mut v = vec![];
        if name.contains("{i}") {
            for i in 0..np {
                let n = name.replace("{i}", &i.to_string());
                let s = self.var(key, &n)?;
                let width = self.out.sigs[s].width;
                if w.map_or(width > 64, |w| w != width) {
                    let want = w.map_or("at most 64".into(), |w| w.to_string());
                    return Err(self.bad_width(key, &n, width, want));
                }
                v.push(Field {
                    sig: s,
                    lo: 0,
                    w: width,
                });
            }
        } else {
            let s = self.var(key, name)?;
            let width = self.out.sigs[s].width;
            let fw = width / np as u32;
            let ok = width.is_multiple_of(np as u32) && w.map_or(fw <= 64, |w| w == fw);
            if !ok {
                let want = match w {
                    Some(w) => format!("{} ({np} ports x {w})", np as u32 * w),
                    None => format!("a multiple of {np} ports"),
                };
                return Err(self.bad_width(key, name, width, want));
            }
            for i in 0..np {
                v.push(Field {
                    sig: s,
                    lo: i as u32 * fw,
                    w: fw,
                });
            }
        }
        self.out.fields.insert(key.into(), v);
        Ok(())
    }
}

/// The scope of the map in the waveform: the path as written, or else the one scope whose path
/// ends with it (Verilator puts its `TOP` above the testbench; a logic analyser may add its own),
/// so that one map serves every simulator.
fn resolve_scope(h: &wellen::Hierarchy, scope: &str) -> Result<Vec<String>, String> {
    let want: Vec<&str> = scope.split('.').collect();
    if h.lookup_scope(&want).is_some() {
        return Ok(want.iter().map(|s| s.to_string()).collect());
    }
    let tail = format!(".{scope}");
    let found: Vec<String> = h
        .all_scopes()
        .map(|s| h[s].full_name(h))
        .filter(|n| n.ends_with(&tail))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.split('.').map(String::from).collect()),
        [] => {
            let tops: Vec<String> = h.scopes().map(|s| h[s].full_name(h)).collect();
            Err(format!(
                "no such scope (top-level scopes: {})",
                if tops.is_empty() {
                    "none".to_string()
                } else {
                    tops.join(", ")
                }
            ))
        }
        many => Err(format!("ambiguous: {}", many.join(", "))),
    }
}

/// Bits of a sampled value (LSB first, 64 per word) and whether any was X or Z.
#[derive(Clone, Default)]
struct Val {
    words: Vec<u64>,
    x: bool,
}

fn to_val(v: SignalValueRef<'_>, width: u32, out: &mut Val) {
    let n = (width as usize).div_ceil(64).max(1);
    out.words.clear();
    out.words.resize(n, 0);
    out.x = false;
    let SignalValueRef::BitVec(b) = v else {
        out.x = true;
        return;
    };
    if let Some(bytes) = b.be_bytes() {
        for (k, &byte) in bytes.iter().rev().enumerate() {
            let bit = k * 8;
            if bit / 64 < n {
                out.words[bit / 64] |= u64::from(byte) << (bit % 64);
            }
        }
    } else {
        for (k, c) in b.iter_lsb_to_msb().enumerate() {
            match c.as_ascii() {
                '0' => {}
                '1' => out.words[k / 64] |= 1 << (k % 64),
                _ => out.x = true,
            }
        }
    }
}

fn get(v: &Val, lo: u32, w: u32) -> u64 {
    let mut r = 0u64;
    for b in 0..w {
        let k = (lo + b) as usize;
        if v.words.get(k / 64).is_some_and(|x| x >> (k % 64) & 1 == 1) {
            r |= 1 << b;
        }
    }
    r
}

/// What reading the waveform found besides the cycles.
#[derive(Debug, Clone, Default)]
pub struct WaveInfo {
    /// Rising clock edges found (= cycles).
    pub edges: u64,
    /// Samples of a judged signal (valid, accept, D, reset, frame) holding X or Z after the
    /// first reset, outside reset cycles: read as 0.
    pub x_samples: u64,
    /// The first cycle of such a sample.
    pub first_x_cycle: Option<u64>,
    /// Such samples before the first reset or in a reset cycle (registers not yet reset, lanes
    /// ignored: harmless).
    pub x_before_reset: u64,
    /// The waveform's last time and the time of the last edge checked.
    pub end_time: u64,
    pub last_edge_time: u64,
    pub timescale: String,
}

/// A waveform loaded and resolved against a map: iterate its cycles with [`Wave::cycles`].
pub struct Wave {
    w: wellen::simple::Waveform,
    map: Map,
    res: Resolved,
    /// Time-table indices of the rising edges.
    edges: Vec<u32>,
    pub info: WaveInfo,
    /// The envelope's `accept_latency`: the answers of a cycle's lanes are read this many cycles
    /// later.
    accept_latency: usize,
    /// The lanes waiting for their answers, a cycle each (oldest first): per cycle, the ports of
    /// its arrivals and whether it had an enqueue, in the order the checker takes their answers.
    waiting: std::collections::VecDeque<(Vec<usize>, bool)>,
    /// The cycle being read, and whether a reset has been seen up to it.
    now: u64,
    reset_seen: bool,
    /// The cycle being read is a reset cycle (its lanes are ignored).
    in_reset: bool,
}

impl Wave {
    /// The waveform at `wave_path` read through `map` (`map_text`, from `map_path`, names the
    /// map's lines in errors).
    ///
    /// (Long: a flat list of the map's fields, each resolved against the waveform in a line.)
    pub fn load(
        wave_path: &str,
        map: Map,
        map_text: &str,
        map_path: &str,
    ) -> Result<Self, WaveMapError> {
        std::fs::File::open(wave_path).map_err(|source| WaveMapError::Open {
            path: wave_path.to_string(),
            source,
        })?;
        // A malformed file must give an error, not a panic inside the reader.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let read = std::panic::catch_unwind(|| wellen::simple::read(wave_path));
        std::panic::set_hook(hook);
        let mut w = match read {
            Ok(r) => r.map_err(|source| WaveMapError::Unreadable {
                path: wave_path.to_string(),
                source,
            })?,
            Err(_) => {
                return Err(WaveMapError::GaveUp {
                    path: wave_path.to_string(),
                })
            }
        };
        let h = w.hierarchy();
        let scope = resolve_scope(h, &map.scope).map_err(|why| WaveMapError::Scope {
            map: map_path.to_string(),
            line: line_of(map_text, &map.scope),
            scope: map.scope.clone(),
            why,
            wave: wave_path.to_string(),
        })?;
        let mut r = Resolver {
            h,
            map_text,
            map_path,
            wave_path,
            scope,
            np: map.params.np,
            by_name: HashMap::new(),
            out: Resolved {
                sigs: vec![],
                fields: HashMap::new(),
            },
        };
        let m = &map;
        r.one("clock", &m.clock, Some(1))?;
        if let Some(rst) = &m.reset {
            r.one("reset", rst, Some(1))?;
        }
        if let ConfigMap::CapfcRegisters { we, addr, data, .. } = &m.config {
            r.one("config.we", we, Some(1))?;
            r.one("config.addr", addr, None)?;
            r.one("config.data", data, None)?;
        }
        r.per_port("arrive.valid", &m.arrive.valid, Some(1))?;
        r.per_port("arrive.prio", &m.arrive.prio, Some(3))?;
        r.per_port("arrive.size", &m.arrive.size, None)?;
        r.per_port("arrive.accept", &m.arrive.accept, Some(1))?;
        if let Some(s) = &m.arrive.ready {
            r.per_port("arrive.ready", s, Some(1))?;
        }
        r.one("depart.valid", &m.depart.valid, Some(1))?;
        r.one("depart.port", &m.depart.port, None)?;
        r.one("depart.prio", &m.depart.prio, Some(3))?;
        r.one("depart.size", &m.depart.size, None)?;
        if let Some(s) = &m.depart.ready {
            if m.depart.ready_per_port {
                r.per_port("depart.ready", s, Some(1))?;
            } else {
                r.one("depart.ready", s, Some(1))?;
            }
        }
        r.one("enqueue.valid", &m.enqueue.valid, Some(1))?;
        r.one("enqueue.oport", &m.enqueue.oport, None)?;
        r.one("enqueue.prio", &m.enqueue.prio, Some(3))?;
        r.one("enqueue.iport", &m.enqueue.iport, None)?;
        r.one("enqueue.size", &m.enqueue.size, None)?;
        r.one("enqueue.accept", &m.enqueue.accept, Some(1))?;
        if let Some(s) = &m.enqueue.ready {
            if m.enqueue.ready_per_port {
                r.per_port("enqueue.ready", s, Some(1))?;
            } else {
                r.one("enqueue.ready", s, Some(1))?;
            }
        }
        r.per_port("dequeue.valid", &m.dequeue.valid, Some(1))?;
        r.per_port("dequeue.prio", &m.dequeue.prio, Some(3))?;
        r.per_port("dequeue.size", &m.dequeue.size, None)?;
        if let Some(s) = &m.dequeue.ready {
            r.per_port("dequeue.ready", s, Some(1))?;
        }
        r.per_port("d", &m.d.signal, Some(8))?;
        r.per_port("pfc.valid", &m.pfc.valid, Some(1))?;
        if let Some(s) = &m.pfc.ready {
            r.per_port("pfc.ready", s, Some(1))?;
        }
        if let Some(s) = &m.pfc.cev {
            r.per_port("pfc.cev", s, Some(8))?;
        }
        if let Some(s) = &m.pfc.xoff {
            r.per_port("pfc.xoff", s, Some(8))?;
        }
        // One shared pause time, or 8 x 16 bits per port.
        let q = &m.pfc.quanta;
        let shared = !q.contains("{i}")
            && r.var("pfc.quanta", q)
                .map(|s| r.out.sigs[s].width == 16)
                .unwrap_or(false);
        if shared {
            r.one("pfc.quanta", q, Some(16))?;
        } else {
            r.per_port("pfc.quanta", q, Some(128))?;
        }
        let res = r.out;
        let ids: Vec<SignalRef> = res.sigs.iter().map(|s| s.r).collect();
        w.load_signals_multi_threaded(&ids);
        let clock = res.fields["clock"][0].sig;
        let cs = w
            .get_signal(res.sigs[clock].r)
            .ok_or(WaveMapError::ClockNotLoaded)?;
        let mut edges = vec![];
        let mut prev = None;
        for (ti, v) in cs.iter_changes() {
            let now = match v {
                SignalValueRef::BitVec(b) => b.get_bit(0).as_ascii() == '1',
                _ => false,
            };
            if prev == Some(false) && now && ti > 0 {
                edges.push(ti);
            }
            prev = Some(now);
        }
        let tt = w.time_table();
        let info = WaveInfo {
            edges: edges.len() as u64,
            x_samples: 0,
            first_x_cycle: None,
            x_before_reset: 0,
            end_time: tt.last().copied().unwrap_or(0),
            last_edge_time: edges.last().map_or(0, |&e| tt[e as usize]),
            timescale: w
                .hierarchy()
                .timescale()
                .map_or("?".into(), |t| format!("{}{:?}", t.factor, t.unit)),
        };
        Ok(Wave {
            w,
            map,
            res,
            edges,
            info,
            accept_latency: 0,
            waiting: std::collections::VecDeque::new(),
            now: 0,
            reset_seen: false,
            in_reset: false,
        })
    }

    /// Read the accept answers of a cycle's lanes `cycles` later (the envelope's
    /// `accept_latency`), on the ports those lanes named. Default 0: in the lanes' own cycle.
    pub fn set_accept_latency(&mut self, cycles: u64) {
        self.accept_latency = cycles as usize;
    }

    /// A lane of port `i` is taken: `valid`, and `ready` when the map names one (the keys of a
    /// lane family, e.g. "arrive.valid" and "arrive.ready").
    fn taken(&mut self, vals: &[Val], valid: &str, ready: &str, i: usize) -> bool {
        self.field(vals, valid, i, true) == 1
            && (!self.has(ready) || self.field(vals, ready, i, true) == 1)
    }

    /// A shared lane (one `valid`) is taken: `valid`, and its `ready`, port `r`'s when the map
    /// makes it per port (`ready_per_port`; `r` < NP), else the lane's one.
    fn shared_taken(&mut self, vals: &[Val], valid: &str, ready: &str, r: usize) -> bool {
        self.field(vals, valid, 0, true) == 1
            && (!self.has(ready) || self.field(vals, ready, r, true) == 1)
    }

    /// The checker parameters the map declares.
    pub fn params(&self) -> Params {
        self.map.params
    }

    /// The configuration before the first cycle.
    pub fn initial_config(&self) -> BlockConfig {
        match &self.map.config {
            ConfigMap::Static { values } => values.clone(),
            ConfigMap::CapfcRegisters { .. } => BlockConfig::from_regs(&CfgRegs::default()),
        }
    }

    pub fn reset_clears_config(&self) -> bool {
        self.map.reset_clears_config
    }

    /// Call `f` with every cycle in order; stops early when it returns false.
    pub fn cycles(&mut self, mut f: impl FnMut(u64, Cycle) -> bool) {
        let np = self.map.params.np;
        let mut vals: Vec<Val> = vec![Val::default(); self.res.sigs.len()];
        let bp = match &self.map.config {
            ConfigMap::CapfcRegisters { ow, .. } => BlockParams {
                np,
                ow: *ow,
                cut_f: self.map.params.cut_f,
                ..BlockParams::default()
            },
            ConfigMap::Static { .. } => BlockParams::default(),
        };
        let mut regs = CfgRegs::default();
        self.waiting.clear();
        // (a map without a reset: every sample counts as after it)
        self.reset_seen = !self.has("reset");
        let edges = std::mem::take(&mut self.edges);
        for (n, &e) in edges.iter().enumerate() {
            for (k, s) in self.res.sigs.iter().enumerate() {
                let sig = self.w.get_signal(s.r).expect("loaded");
                match sig.get_offset(e - 1) {
                    Some(off) => to_val(sig.get_value_at(&off, 0), s.width, &mut vals[k]),
                    None => {
                        vals[k].words.clear();
                        vals[k].x = true;
                    }
                }
            }
            self.now = n as u64;
            let c = self.cycle(&vals, &bp, &mut regs);
            if !f(n as u64, c) {
                break;
            }
        }
        self.edges = edges;
    }

    fn field(&mut self, vals: &[Val], key: &str, i: usize, judged: bool) -> u64 {
        let f = self.res.fields[key][i];
        let v = &vals[f.sig];
        if judged && v.x {
            self.x_sample();
        }
        get(v, f.lo, f.w)
    }

    fn x_sample(&mut self) {
        if self.reset_seen && !self.in_reset {
            self.info.x_samples += 1;
            self.info.first_x_cycle.get_or_insert(self.now);
        } else {
            self.info.x_before_reset += 1;
        }
    }

    fn has(&self, key: &str) -> bool {
        self.res.fields.contains_key(key)
    }

    fn cycle(&mut self, vals: &[Val], bp: &BlockParams, regs: &mut CfgRegs) -> Cycle {
        let mut c = Cycle::new(self.map.params.np);
        self.reset_and_config(vals, bp, regs, &mut c);
        let arrived = self.arrive_lanes(vals, &mut c);
        self.depart_lane(vals, &mut c);
        let enqueued = self.enqueue_lane(vals, &mut c);
        self.dequeue_lanes(vals, &mut c);
        self.accepts(vals, arrived, enqueued, &mut c);
        self.read_d(vals, &mut c);
        self.pfc_frames(vals, &mut c);
        c
    }

    /// The reset, and the configuration it clears or a register write changes.
    fn reset_and_config(
        &mut self,
        vals: &[Val],
        bp: &BlockParams,
        regs: &mut CfgRegs,
        c: &mut Cycle,
    ) {
        if self.has("reset") {
            c.rst = (self.field(vals, "reset", 0, true) == 1) != self.map.reset_active_low;
        }
        self.reset_seen |= c.rst;
        self.in_reset = c.rst;
        if c.rst {
            if self.map.reset_clears_config {
                *regs = CfgRegs::default();
                if matches!(self.map.config, ConfigMap::CapfcRegisters { .. }) {
                    c.config = Some(BlockConfig::from_regs(regs));
                }
            }
        } else if self.has("config.we") && self.field(vals, "config.we", 0, true) == 1 {
            let a = self.field(vals, "config.addr", 0, false) as u8;
            let d = self.field(vals, "config.data", 0, false) as u32;
            let before = regs.clone();
            regs.write(bp, a, d, None);
            if *regs != before {
                c.config = Some(BlockConfig::from_regs(regs));
            }
        }
    }

    /// The arrivals taken this cycle, one lane per port; returns their ports.
    fn arrive_lanes(&mut self, vals: &[Val], c: &mut Cycle) -> Vec<usize> {
        let mut arrived = vec![];
        for i in 0..self.map.params.np {
            if self.taken(vals, "arrive.valid", "arrive.ready", i) {
                c.lanes.push(Lane::Arrive {
                    port: i,
                    prio: self.field(vals, "arrive.prio", i, false) as usize,
                    size: self.field(vals, "arrive.size", i, false) as u32,
                });
                arrived.push(i);
            }
        }
        arrived
    }

    /// The departure taken this cycle (one shared lane).
    fn depart_lane(&mut self, vals: &[Val], c: &mut Cycle) {
        let np = self.map.params.np;
        let port = self.field(vals, "depart.port", 0, false) as usize;
        let ri = if self.map.depart.ready_per_port {
            port
        } else {
            0
        };
        // (a lane naming a port that does not exist is not valid, and has no ready of its own)
        if port < np && self.shared_taken(vals, "depart.valid", "depart.ready", ri) {
            c.lanes.push(Lane::Depart {
                port,
                prio: self.field(vals, "depart.prio", 0, false) as usize,
                size: self.field(vals, "depart.size", 0, false) as u32,
            });
        }
    }

    /// The enqueue taken this cycle (one shared lane); true when there is one.
    fn enqueue_lane(&mut self, vals: &[Val], c: &mut Cycle) -> bool {
        let np = self.map.params.np;
        let oport = self.field(vals, "enqueue.oport", 0, false) as usize;
        let iport = self.field(vals, "enqueue.iport", 0, false) as usize;
        let ri = if self.map.enqueue.ready_per_port {
            oport
        } else {
            0
        };
        if oport < np && iport < np && self.shared_taken(vals, "enqueue.valid", "enqueue.ready", ri)
        {
            c.lanes.push(Lane::Enqueue {
                oport,
                prio: self.field(vals, "enqueue.prio", 0, false) as usize,
                iport,
                size: self.field(vals, "enqueue.size", 0, false) as u32,
            });
            return true;
        }
        false
    }

    /// The dequeues taken this cycle, one lane per output port.
    fn dequeue_lanes(&mut self, vals: &[Val], c: &mut Cycle) {
        for o in 0..self.map.params.np {
            if self.taken(vals, "dequeue.valid", "dequeue.ready", o) {
                c.lanes.push(Lane::Dequeue {
                    oport: o,
                    prio: self.field(vals, "dequeue.prio", o, false) as usize,
                    size: self.field(vals, "dequeue.size", o, false) as u32,
                });
            }
        }
    }

    /// The answers read now: those of the lanes `accept_latency` cycles ago (this cycle's
    /// when 0), arrivals in port order, then the enqueue.
    fn accepts(&mut self, vals: &[Val], arrived: Vec<usize>, enqueued: bool, c: &mut Cycle) {
        self.waiting.push_back((arrived, enqueued));
        if self.waiting.len() > self.accept_latency {
            let (ports, enq) = self.waiting.pop_front().expect("a cycle is waiting");
            for i in ports {
                let a = self.field(vals, "arrive.accept", i, true) == 1;
                c.accepts.push(a);
            }
            if enq {
                let a = self.field(vals, "enqueue.accept", 0, true) == 1;
                c.accepts.push(a);
            }
        }
    }

    /// D: one 8-bit field per port, or a packed bus in priority-major order.
    fn read_d(&mut self, vals: &[Val], c: &mut Cycle) {
        let np = self.map.params.np;
        if self.map.d.order == DOrder::PrioMajor {
            let f = self.res.fields["d"][0];
            let v = &vals[f.sig];
            if v.x {
                self.x_sample();
            }
            for i in 0..np {
                let mut b = 0u8;
                for p in 0..NPRIO {
                    b |= (get(v, (p * np + i) as u32, 1) as u8) << p;
                }
                c.d[i] = b;
            }
        } else {
            for i in 0..np {
                c.d[i] = self.field(vals, "d", i, true) as u8;
            }
        }
    }

    /// The PFC frames sent this cycle (valid and ready), and the ports' ready.
    fn pfc_frames(&mut self, vals: &[Val], c: &mut Cycle) {
        let mut ready = 0u128;
        for i in 0..self.map.params.np {
            let r = !self.has("pfc.ready") || self.field(vals, "pfc.ready", i, false) == 1;
            if r {
                ready |= 1 << i;
            }
            if !(r && self.field(vals, "pfc.valid", i, true) == 1) {
                continue;
            }
            let quanta = self.pfc_quanta(vals, i);
            c.frames.push(Frame { port: i, quanta });
        }
        c.ready = ready;
    }

    /// Port `i`'s PFC frame: per class it names (`cev`), the pause time, 0 for a resume.
    fn pfc_quanta(&mut self, vals: &[Val], i: usize) -> [Option<u16>; NPRIO] {
        let cev = if self.has("pfc.cev") {
            self.field(vals, "pfc.cev", i, true) as u8
        } else {
            0xFF
        };
        let per_class = self.res.fields["pfc.quanta"].len() > 1;
        let mut quanta = [None; NPRIO];
        for (p, q) in quanta.iter_mut().enumerate() {
            if cev >> p & 1 == 0 {
                continue;
            }
            let time = if per_class {
                let f = self.res.fields["pfc.quanta"][i];
                get(&vals[f.sig], f.lo + p as u32 * 16, 16) as u16
            } else {
                self.field(vals, "pfc.quanta", 0, false) as u16
            };
            let pause = if self.has("pfc.xoff") {
                self.field(vals, "pfc.xoff", i, true) >> p & 1 == 1
            } else {
                time != 0
            };
            *q = Some(if pause { time } else { 0 });
        }
        quanta
    }
}
