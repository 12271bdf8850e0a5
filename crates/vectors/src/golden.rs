//! Golden vectors: the model's per-cycle stimulus and expected outputs of `capfc_v2_top` (v2, format 2,
//! whose header line names the top `capfc_top`, its name when the sets were made),
//! written as `$readmemh` files for any Verilog simulator (format: `docs/golden.md`); the block's
//! (v3, format 3) are [`crate::golden_v3`].
//!
//! [`generate`] runs a stimulus through the model and returns the set's files as text; [`write()`]
//! puts them in a directory; [`read`] parses one back with errors naming the file, line and field;
//! [`regenerate`] rebuilds a set from its manifest so stale vectors are caught.

use crate::block::pack::{pack_inputs, pack_outputs, Layout, Layouts};
use crate::block::{BlockConfig, BlockParams, CapfcTop, Fault, Inputs, Mode, Outputs};
use crate::stimulus::{directed, RandomStim, Stimulus};
use bitvec::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Version of the file format in `manifest.json`. 2: the v2 ports (`pfc_ready` in, `pfc_xoff` out,
/// one 16-bit `pfc_quanta`), `NL`, and `pfc_ready` is a level: a cycle without a `stim.hex` line
/// keeps the last line's `pfc_ready` (all ones before the first line) and drives every other input 0.
pub const FORMAT: u32 = 2;

/// A problem with a golden set, saying where.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("[golden] {file} line {line}: {why}")]
    Line {
        file: String,
        line: usize,
        why: String,
    },
    #[error("[golden] {file}: {why}")]
    File { file: String, why: String },
    /// A data line whose hex does not fit the concatenation.
    #[error("[golden] {file} line {line}: {source}")]
    Hex {
        file: String,
        line: usize,
        #[source]
        source: HexError,
    },
    /// A `config.toml` that does not parse.
    #[error("[golden] {file}: {source}")]
    Toml {
        file: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("[golden] no built-in scenario '{0}'")]
    NoScenario(String),
    #[error("[golden] scenario {scenario} has {ports} ports, the set {np}")]
    ScenarioPorts {
        scenario: String,
        ports: usize,
        np: usize,
    },
    #[error(transparent)]
    Directed(#[from] crate::stimulus::DirectedError),
    /// The switch of a set made from a scenario could not be built.
    #[error(transparent)]
    Switch(#[from] crate::switch::SwitchError),
    /// A curated set naming a parameter set that does not exist.
    #[error("[golden] set {set}: no parameter set {config}")]
    NoParams { set: String, config: String },
    /// A curated set that could not be built.
    #[error("[golden] set {set}: {source}")]
    Set {
        set: String,
        #[source]
        source: Box<GoldenError>,
    },
}

/// For the layers that still report errors as text.
impl From<GoldenError> for String {
    fn from(e: GoldenError) -> String {
        e.to_string()
    }
}

/// A data line's hex digits that are not one cycle's concatenation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    #[error("expected {want} hex digits after the cycle, got {got}")]
    Digits { want: usize, got: usize },
    /// A character that is not a hex digit, at `column` of the line (from 1).
    #[error("'{c}' is not a hex digit (column {column})")]
    NotHex { c: char, column: usize },
    #[error("bits above the {0}-bit concatenation are set")]
    HighBits(usize),
}

fn file_err(file: &Path, why: impl Into<String>) -> GoldenError {
    GoldenError::File {
        file: file.display().to_string(),
        why: why.into(),
    }
}

/// Where a set's stimulus comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// A directed corner case of `crate::stimulus`.
    Directed { case: String, mode: Mode },
    /// The constrained-random generator. `steady`: every configuration write comes first, in
    /// consecutive cycles, then [`crate::stimulus::steady_gap`] cycles with neither a write nor a
    /// lane, then the traffic, with no write and no reset after it
    /// ([`RandomStim::steady`]); the set then has a `config.toml` ([`STEADY_CONFIG`]) for a block
    /// that takes its configuration statically.
    Random {
        seed: u64,
        cycles: u64,
        mode: Mode,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        steady: bool,
    },
    /// The block's traffic as the switch model drives it: the first `cycles` switch cycles of a
    /// built-in scenario in a flow-control mode (after its configuration writes).
    Switch {
        scenario: String,
        mode: crate::switch::FlowMode,
        cycles: u64,
    },
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: u32,
    pub set: String,
    /// The parameter set's name in `rtl_configs.rs`.
    pub rtl_config: String,
    pub params: BlockParams,
    pub source: Source,
    /// The block configuration of the run's first configuration writes.
    pub config: Option<BlockConfig>,
    /// Every configuration register write: (cycle, address, data).
    pub register_writes: Vec<(u64, u8, u32)>,
    pub cycles: u64,
    pub in_bits: usize,
    pub out_bits: usize,
    pub stim_lines: usize,
    pub expect_lines: usize,
    pub model_version: String,
    pub sha256_stim: String,
    pub sha256_expect: String,
}

/// A set's files, as text: four, and `config.toml` for a steady random set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFiles {
    pub manifest: String,
    pub params_vh: String,
    pub stim: String,
    pub expect: String,
    /// [`STEADY_CONFIG`], for a steady random set only.
    pub config_toml: Option<String>,
}

/// The file of a steady set that configures a block statically: its `[config]` and
/// `[config.values]` tables paste into a `capfc check` map (`source = "static"`), its `[stimulus]`
/// table says from which cycle the lanes run ([`SteadyConfig`]).
pub const STEADY_CONFIG: &str = "config.toml";

/// When a steady set's writes and lanes happen (cycles of the set, cycle 0 its reset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteadyTiming {
    /// The first and the last cycle with a configuration write; every cycle between has one.
    pub first_write: u64,
    pub last_write: u64,
    /// The first cycle that may carry a lane: `last_write + 1 + gap`. No write from here on.
    pub lanes_from: u64,
    /// The cycles with neither a write nor a lane between the last write and `lanes_from`.
    pub gap: u64,
    /// The set's length in cycles.
    pub cycles: u64,
}

/// `config.toml`'s `[config]` table, as a map's `[config]` with `source = "static"` has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticConfig {
    pub source: String,
    pub values: BlockConfig,
}

/// A steady set's `config.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteadyConfig {
    pub stimulus: SteadyTiming,
    pub config: StaticConfig,
}

impl SteadyConfig {
    /// Parse a `config.toml`'s text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Self, GoldenError> {
        let c: SteadyConfig = toml::from_str(text).map_err(|source| GoldenError::Toml {
            file: path.to_string(),
            source,
        })?;
        if c.config.source != "static" {
            return Err(GoldenError::File {
                file: path.to_string(),
                why: format!(
                    "[config] source = \"{}\": a set's configuration file says \"static\"",
                    c.config.source
                ),
            });
        }
        Ok(c)
    }
}

/// The text of a steady set's `config.toml`: `cfg` is what its writes program.
pub(crate) fn steady_config_toml(
    set: &str,
    p: &BlockParams,
    t: &SteadyTiming,
    cfg: &BlockConfig,
) -> String {
    let mode = match cfg.mode {
        Mode::PfcOnly => "pfc_only",
        Mode::StopMax => "stop_max",
        Mode::StopCal => "stop_cal",
    };
    let mut s = format!(
        "# capfc golden set {set}: the configuration its register writes program, for a block that\n\
         # takes its configuration statically (docs/design-space.md, \"A static configuration\").\n\
         # Configure the block with [config.values] before cycle lanes_from; stim.hex's writes come\n\
         # before it, its lanes from it. Everything from [config] down pastes into a capfc check map.\n\
         # Thresholds are in units of 2^{} bytes (the map's cell_log2).\n\
         \n\
         [stimulus]\n\
         first_write = {}  # the first and the last cycle with a configuration write (cfg_we)\n\
         last_write = {}\n\
         lanes_from = {}  # the first cycle that may carry a lane; no write from here on\n\
         gap = {}  # cycles with neither a write nor a lane between them\n\
         cycles = {}\n\
         \n\
         [config]\n\
         source = \"static\"\n\
         \n\
         [config.values]\n\
         lossless = {}  # bit p: priority p is lossless\n\
         mode = \"{mode}\"  # pfc_only, stop_max or stop_cal\n\
         cut_fixed = {}  # CUT = cut_fixed / 2^{} = {:.4}\n\
         quanta = {}  # pause time of an XOFF frame, in quanta of 512 bit times\n\
         refresh = {}  # cycles between refresh frames while D stays up\n\
         prio = [  # priority 0 to 7\n",
        p.cell_log2,
        t.first_write,
        t.last_write,
        t.lanes_from,
        t.gap,
        t.cycles,
        cfg.lossless,
        cfg.cut_fixed,
        p.cut_f,
        cfg.cut(p),
        cfg.quanta,
        cfg.refresh,
    );
    for t in &cfg.prio {
        let _ = writeln!(
            s,
            "  {{ ing_max = {}, ing_xoff = {}, ing_xon = {}, eg_max = {}, eg_xoff = {}, eg_xon = {}, eg_warn = {} }},",
            t.ing_max, t.ing_xoff, t.ing_xon, t.eg_max, t.eg_xoff, t.eg_xon, t.eg_warn
        );
    }
    s.push_str("]\n");
    s
}

pub use crate::block::pack::concat_bits;

/// The packed [`Inputs::idle`]: every input 0 but `pfc_ready`, all ones (every MAC ready). It is
/// also the mask of the `pfc_ready` bits.
pub fn idle_words(p: &BlockParams, l: &Layout) -> Vec<u32> {
    let mut w = vec![0u32; l.words];
    pack_inputs(p, l, &Inputs::idle(p.np), &mut w);
    w
}

/// The inputs of a cycle without a `stim.hex` line, given the last line (`docs/golden.md`, "Pulses
/// and levels"): every input 0 but the level `pfc_ready`, which keeps the last line's value.
/// `held` starts as [`idle_words`] (every MAC ready before the first line).
fn hold(held: &mut [u32], line: &[u32], ready_mask: &[u32]) {
    for ((h, &w), &m) in held.iter_mut().zip(line).zip(ready_mask) {
        *h = w & m;
    }
}

/// The concatenation `{first port, ..., last port}` of a packed word buffer, as hex digits.
fn to_hex(l: &Layout, words: &[u32]) -> String {
    let n = concat_bits(l);
    let mut bits: BitVec<u32, Lsb0> = BitVec::with_capacity(n);
    for s in l.signals.iter().rev() {
        let src = &words[s.word..s.word + s.words()];
        bits.extend_from_bitslice(&src.view_bits::<Lsb0>()[..s.width as usize]);
    }
    let digits = n.div_ceil(4);
    let mut out = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let hi = (4 * d + 4).min(n);
        let v: u8 = bits[4 * d..hi].load_le();
        out.push(char::from_digit(u32::from(v), 16).unwrap());
    }
    out
}

/// The inverse of [`to_hex`].
fn from_hex(l: &Layout, hex: &str, words: &mut [u32]) -> Result<(), HexError> {
    let n = concat_bits(l);
    let digits = n.div_ceil(4);
    if hex.len() != digits {
        return Err(HexError::Digits {
            want: digits,
            got: hex.len(),
        });
    }
    let mut bits: BitVec<u32, Lsb0> = BitVec::repeat(false, digits * 4);
    for (k, c) in hex.chars().enumerate() {
        let v = c
            .to_digit(16)
            .ok_or(HexError::NotHex { c, column: k + 10 })?;
        let d = digits - 1 - k;
        bits[4 * d..4 * d + 4].store_le(v as u8);
    }
    if bits[n..].any() {
        return Err(HexError::HighBits(n));
    }
    words.fill(0);
    let mut pos = 0;
    for s in l.signals.iter().rev() {
        let w = s.width as usize;
        let dst = &mut words[s.word..s.word + s.words()];
        dst.view_bits_mut::<Lsb0>()[..w].copy_from_bitslice(&bits[pos..pos + w]);
        pos += w;
    }
    Ok(())
}

fn header(what: &str, l: &Layout, p: &BlockParams) -> String {
    let mut h = format!(
        "// capfc golden vectors of capfc_top (NP={} SW={} OW={} CW={} CELL_LOG2={} CUT_F={} NL={}), format {FORMAT} (docs/golden.md)\n\
         // {what}\n\
         // One token per line: cycle[31:0] '_' then the ports below, MSB first.\n",
        p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl
    );
    let mut hi = concat_bits(l);
    for s in &l.signals {
        let w = s.width as usize;
        let _ = writeln!(h, "//   {:<12} [{}:{}] {} bits", s.name, hi - 1, hi - w, w);
        hi -= w;
    }
    h
}

fn sha256(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a run of the model writes: the two vector files, their line counts, the register writes,
/// the cycles run and the first cycle with a lane.
struct Vectors {
    stim_txt: String,
    exp_txt: String,
    stim_lines: usize,
    expect_lines: usize,
    writes: Vec<(u64, u8, u32)>,
    cycles: u64,
    first_lane: Option<u64>,
}

/// Run `stim` through the model (after one reset cycle): a line of inputs per change from the
/// held inputs, a line of outputs per change (and cycle 0).
fn run_vectors(
    p: &BlockParams,
    l: &Layouts,
    stim: &mut dyn Stimulus,
    fault: Option<Fault>,
) -> Vectors {
    let mut model = CapfcTop::new(*p).expect("valid parameters");
    model.inject_fault(fault);
    let mut inp = Inputs::idle(p.np);
    let mut out = Outputs::new(p.np);
    let (mut iw, mut ow, mut prev) = (
        vec![0u32; l.inputs.words],
        vec![0u32; l.outputs.words],
        vec![u32::MAX; l.outputs.words],
    );
    // The inputs a cycle without a line gets: every input 0 but pfc_ready, held from the last line.
    let ready_mask = idle_words(p, &l.inputs);
    let mut held = ready_mask.clone();
    let mut v = Vectors {
        stim_txt: header(
            "Inputs. A cycle without a line drives every input 0 but pfc_ready, held from the last line.",
            &l.inputs,
            p,
        ),
        exp_txt: header(
            "Expected outputs, one line per change (and cycle 0).",
            &l.outputs,
            p,
        ),
        stim_lines: 0,
        expect_lines: 0,
        writes: vec![],
        cycles: 0,
        first_lane: None,
    };
    let mut first = true;
    loop {
        inp.clear();
        if first {
            inp.rst = true;
        } else if !stim.next(&mut inp) {
            break;
        }
        model.tick_cycle(&inp, &mut out);
        if !first {
            stim.observe(&inp, &out);
        }
        first = false;
        let cycle = v.cycles;
        if let Some((a, d)) = inp.cfg {
            v.writes.push((cycle, a, d));
        }
        let lane = inp.arr.iter().any(Option::is_some)
            || inp.dep.is_some()
            || inp.enq.is_some()
            || inp.deq.iter().any(Option::is_some);
        if lane && v.first_lane.is_none() {
            v.first_lane = Some(cycle);
        }
        pack_inputs(p, &l.inputs, &inp, &mut iw);
        if iw != held {
            let _ = writeln!(v.stim_txt, "{cycle:08x}_{}", to_hex(&l.inputs, &iw));
            v.stim_lines += 1;
            hold(&mut held, &iw, &ready_mask);
        }
        pack_outputs(&l.outputs, &out, &mut ow);
        if ow != prev {
            let _ = writeln!(v.exp_txt, "{cycle:08x}_{}", to_hex(&l.outputs, &ow));
            v.expect_lines += 1;
            prev.copy_from_slice(&ow);
        }
        v.cycles += 1;
    }
    v
}

/// The config.toml of a steady random run (its configuration and timing); None for other sets.
fn steady_config(
    set: &str,
    p: &BlockParams,
    source: &Source,
    config: &Option<BlockConfig>,
    v: &Vectors,
) -> Option<String> {
    let writes = &v.writes;
    match (source, config, writes.first(), writes.last()) {
        (Source::Random { steady: true, .. }, Some(cfg), Some(w0), Some(w1)) => {
            let gap = crate::stimulus::steady_gap(p.np);
            let t = SteadyTiming {
                first_write: w0.0,
                last_write: w1.0,
                lanes_from: w1.0 + 1 + gap,
                gap,
                cycles: v.cycles,
            };
            let first_lane = v.first_lane;
            // The generator's promise, kept here too: a set that broke it would be written wrong.
            assert!(
                w1.0 - w0.0 + 1 == writes.len() as u64
                    && first_lane.is_none_or(|f| f >= t.lanes_from),
                "set {set}: a steady run wrote after its first lane or left no gap ({:?}, first lane {first_lane:?})",
                t
            );
            Some(steady_config_toml(set, p, &t, cfg))
        }
        _ => None,
    }
}

/// The set's `params.vh`: the parameters and sizes for testbench/capfc_tb.sv.
fn params_vh(set: &str, p: &BlockParams, in_bits: usize, out_bits: usize, v: &Vectors) -> String {
    let (cycle, sl, el) = (v.cycles, v.stim_lines, v.expect_lines);
    format!(
        "// capfc golden set {set}: parameters for testbench/capfc_tb.sv (generated; see manifest.json)\n\
         `define CAPFC_NP {}\n`define CAPFC_SW {}\n`define CAPFC_OW {}\n`define CAPFC_CW {}\n\
         `define CAPFC_CELL_LOG2 {}\n`define CAPFC_CUT_F {}\n`define CAPFC_NL {}\n\
         `define CAPFC_IN_BITS {in_bits}\n`define CAPFC_OUT_BITS {out_bits}\n`define CAPFC_CYCLES {cycle}\n\
         `define CAPFC_STIM_LINES {sl}\n`define CAPFC_EXPECT_LINES {el}\n",
        p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl
    )
}

/// Run `stim` through the model (after one reset cycle) and produce the set's files. With a
/// `fault`, the model has that deliberate bug (the kill matrix of `capfc faults`).
pub fn generate(
    set: &str,
    p: &BlockParams,
    source: &Source,
    stim: &mut dyn Stimulus,
    fault: Option<Fault>,
) -> SetFiles {
    let rtl_config = p.rtl_config_name().unwrap_or("none").to_string();
    let l = Layouts::new(p);
    let v = run_vectors(p, &l, stim, fault);
    let (in_bits, out_bits) = (concat_bits(&l.inputs), concat_bits(&l.outputs));
    let config = config_from_writes(p, &v.writes);
    let config_toml = steady_config(set, p, source, &config, &v);
    let params_vh = params_vh(set, p, in_bits, out_bits, &v);
    let manifest = Manifest {
        format: FORMAT,
        set: set.to_string(),
        rtl_config,
        params: *p,
        source: source.clone(),
        config,
        register_writes: v.writes,
        cycles: v.cycles,
        in_bits,
        out_bits,
        stim_lines: v.stim_lines,
        expect_lines: v.expect_lines,
        model_version: env!("CARGO_PKG_VERSION").to_string(),
        sha256_stim: sha256(&v.stim_txt),
        sha256_expect: sha256(&v.exp_txt),
    };
    SetFiles {
        manifest: serde_json::to_string_pretty(&manifest).unwrap() + "\n",
        params_vh,
        stim: v.stim_txt,
        expect: v.exp_txt,
        config_toml,
    }
}

/// The configuration in force after a run's first configuration writes (the writes of the cycles
/// after the first cycle, up to the first cycle without one), as the registers hold it: the
/// manifest's `config` is derived from `register_writes` this way, so the two cannot disagree.
pub fn config_from_writes(p: &BlockParams, writes: &[(u64, u8, u32)]) -> Option<BlockConfig> {
    let first = writes.first()?.0;
    let mut r = crate::block::cfg::CfgRegs::default();
    for (k, &(c, a, d)) in writes.iter().enumerate() {
        if c != first + k as u64 {
            break;
        }
        r.write(p, a, d, None);
    }
    Some(BlockConfig::from_regs(&r))
}

/// One curated set: name, parameter set, source.
#[derive(Debug, Clone)]
pub struct Curated {
    pub name: String,
    pub rtl_config: &'static str,
    pub source: Source,
}

/// The checked-in collection (`golden/`): every directed corner, and random sets at 4, 8 and 16
/// ports for both selection algorithms.
pub fn curated() -> Vec<Curated> {
    let mut v = vec![];
    for &case in crate::stimulus::DIRECTED {
        // Counter saturation at 16 bits takes 65,539 cycles; the 4-bit set shows the same logic.
        let cfg = if case == "counter_saturation" {
            "np6_cw4"
        } else {
            "np4"
        };
        for mode in [Mode::StopMax, Mode::StopCal] {
            v.push(Curated {
                name: format!("{case}_{}_{cfg}", mode.name()),
                rtl_config: cfg,
                source: Source::Directed {
                    case: case.to_string(),
                    mode,
                },
            });
        }
    }
    // The default switch scenario as the switch drives the block: congestion, the contributors'
    // E, PFC frames out and the fall back to XON all happen in the first 60,000 cycles.
    v.push(Curated {
        name: "switch_incast_victims_cal_np8".into(),
        rtl_config: "np8",
        source: Source::Switch {
            scenario: "incast-victims".into(),
            mode: crate::switch::FlowMode::CapfcCal,
            cycles: 60_000,
        },
    });
    for (cfg, cycles) in [("np4", 1500u64), ("np8", 1000), ("np16", 600)] {
        for mode in [Mode::StopMax, Mode::StopCal] {
            v.push(Curated {
                name: format!("random_{}_{cfg}_seed1", mode.name()),
                rtl_config: cfg,
                source: Source::Random {
                    seed: 1,
                    cycles,
                    mode,
                    steady: false,
                },
            });
        }
    }
    v
}

pub fn params_of(rtl_config: &str) -> Option<BlockParams> {
    BlockParams::of_rtl_config(rtl_config)
}

/// Build a set's files from its name, parameters and source.
pub fn build(set: &str, p: &BlockParams, source: &Source) -> Result<SetFiles, GoldenError> {
    build_with(set, p, source, None)
}

/// [`build`] by a model with a deliberate bug (`None`: the model itself).
pub fn build_with(
    set: &str,
    p: &BlockParams,
    source: &Source,
    fault: Option<Fault>,
) -> Result<SetFiles, GoldenError> {
    match source {
        Source::Directed { case, mode } => {
            crate::stimulus::check_corners(p, *mode, case)?;
            let mut s = directed(p, *mode, case)
                .ok_or_else(|| crate::stimulus::DirectedError::NoCase(case.clone()))?;
            Ok(generate(set, p, source, &mut s, fault))
        }
        Source::Random {
            seed,
            cycles,
            mode,
            steady,
        } => {
            let mut s = if *steady {
                RandomStim::steady(p, *mode, *seed, *cycles)
            } else {
                RandomStim::new(p, *mode, *seed, *cycles)
            };
            Ok(generate(set, p, source, &mut s, fault))
        }
        Source::Switch {
            scenario,
            mode,
            cycles,
        } => {
            let sc = crate::switch::scenario::Scenario::builtin(scenario)
                .ok_or_else(|| GoldenError::NoScenario(scenario.clone()))?;
            if sc.ports != p.np {
                return Err(GoldenError::ScenarioPorts {
                    scenario: scenario.clone(),
                    ports: sc.ports,
                    np: p.np,
                });
            }
            let mut sw = crate::switch::Switch::new_recorded_v2(&sc, *mode)?;
            while sw.now < *cycles && !sw.done() {
                sw.tick_cycle();
            }
            let mut script =
                crate::stimulus::Script::new(set, sw.recorded.take().unwrap_or_default());
            Ok(generate(set, p, source, &mut script, fault))
        }
    }
}

/// Build a curated set.
pub fn build_curated(c: &Curated) -> Result<SetFiles, GoldenError> {
    let p = params_of(c.rtl_config).ok_or_else(|| GoldenError::NoParams {
        set: c.name.clone(),
        config: c.rtl_config.to_string(),
    })?;
    build(&c.name, &p, &c.source).map_err(|e| GoldenError::Set {
        set: c.name.clone(),
        source: Box::new(e),
    })
}

/// Write a set's files into `dir` (created).
pub fn write(dir: &Path, f: &SetFiles) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("manifest.json"), &f.manifest)?;
    std::fs::write(dir.join("params.vh"), &f.params_vh)?;
    std::fs::write(dir.join("stim.hex"), &f.stim)?;
    std::fs::write(dir.join("expect.hex"), &f.expect)?;
    let cfg = dir.join(STEADY_CONFIG);
    match &f.config_toml {
        Some(t) => std::fs::write(cfg, t)?,
        // a set written over a steady one must not keep its configuration file
        None if cfg.exists() => std::fs::remove_file(cfg)?,
        None => {}
    }
    Ok(())
}

fn read_text(path: &Path) -> Result<String, GoldenError> {
    std::fs::read_to_string(path).map_err(|e| file_err(path, e.to_string()))
}

/// A set read back: the manifest, and the stimulus and expectation lines as packed words.
#[derive(Debug)]
pub struct GoldenSet {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub files: SetFiles,
    pub stim: Vec<(u64, Vec<u32>)>,
    pub expect: Vec<(u64, Vec<u32>)>,
}

fn parse_lines(
    path: &Path,
    text: &str,
    l: &Layout,
    want: usize,
) -> Result<Vec<(u64, Vec<u32>)>, GoldenError> {
    let mut v: Vec<(u64, Vec<u32>)> = vec![];
    for (k, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |why: String| GoldenError::Line {
            file: path.display().to_string(),
            line: k + 1,
            why,
        };
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() != 1 {
            return Err(err(format!(
                "expected one token per line, got {}",
                toks.len()
            )));
        }
        let (c, rest) = toks[0]
            .split_once('_')
            .ok_or_else(|| err("expected <cycle>_<hex>, found no '_'".into()))?;
        if c.len() != 8 {
            return Err(err(format!(
                "the cycle stamp must be 8 hex digits, got '{c}'"
            )));
        }
        let cycle =
            u64::from_str_radix(c, 16).map_err(|_| err(format!("bad cycle stamp '{c}'")))?;
        if v.last().is_some_and(|(p, _)| *p >= cycle) {
            return Err(err(format!(
                "cycle {cycle} does not follow cycle {}",
                v.last().unwrap().0
            )));
        }
        let mut words = vec![0u32; l.words];
        from_hex(l, rest, &mut words).map_err(|source| GoldenError::Hex {
            file: path.display().to_string(),
            line: k + 1,
            source,
        })?;
        v.push((cycle, words));
    }
    if v.len() != want {
        return Err(file_err(
            path,
            format!(
                "{} data lines, the manifest says {want} (truncated or edited?)",
                v.len()
            ),
        ));
    }
    Ok(v)
}

/// Read and check a set: manifest fields, hashes, every line.
pub fn read(dir: &Path) -> Result<GoldenSet, GoldenError> {
    let mpath = dir.join("manifest.json");
    let mtext = read_text(&mpath)?;
    let json_err = |e: serde_json::Error| GoldenError::Line {
        file: mpath.display().to_string(),
        line: e.line(),
        why: e.to_string(),
    };
    // The format first: an older set's manifest lacks newer fields, and "regenerate" is the answer.
    let value: serde_json::Value = serde_json::from_str(&mtext).map_err(json_err)?;
    if let Some(f) = value.get("format").and_then(serde_json::Value::as_u64) {
        if f != u64::from(FORMAT) {
            return Err(file_err(
                &mpath,
                format!("format {f} is not {FORMAT} (regenerate with `capfc golden gen`)"),
            ));
        }
    }
    let manifest: Manifest = serde_json::from_str(&mtext).map_err(json_err)?;
    let p = manifest.params;
    p.validate().map_err(|e| file_err(&mpath, e.to_string()))?;
    let l = Layouts::new(&p);
    for (field, got, want) in [
        ("in_bits", manifest.in_bits, concat_bits(&l.inputs)),
        ("out_bits", manifest.out_bits, concat_bits(&l.outputs)),
    ] {
        if got != want {
            return Err(file_err(
                &mpath,
                format!("field {field} is {got}, but capfc_v2_top with these params has {want}"),
            ));
        }
    }
    for (field, v) in [
        ("cycles", manifest.cycles as usize),
        ("stim_lines", manifest.stim_lines),
        ("expect_lines", manifest.expect_lines),
    ] {
        if v == 0 {
            return Err(file_err(
                &mpath,
                format!("field {field} is 0: a set has at least its reset cycle"),
            ));
        }
    }
    if manifest.config != config_from_writes(&p, &manifest.register_writes) {
        return Err(file_err(
            &mpath,
            "field config disagrees with register_writes (config is what the first writes program; \
             regenerate the set, or correct one of the two)",
        ));
    }
    let spath = dir.join("stim.hex");
    let epath = dir.join("expect.hex");
    let files = SetFiles {
        manifest: mtext,
        params_vh: read_text(&dir.join("params.vh"))?,
        stim: read_text(&spath)?,
        expect: read_text(&epath)?,
        config_toml: {
            let c = dir.join(STEADY_CONFIG);
            if c.exists() {
                Some(read_text(&c)?)
            } else {
                None
            }
        },
    };
    let stim = parse_lines(&spath, &files.stim, &l.inputs, manifest.stim_lines)?;
    let expect = parse_lines(&epath, &files.expect, &l.outputs, manifest.expect_lines)?;
    for (path, text, want) in [
        (&spath, &files.stim, &manifest.sha256_stim),
        (&epath, &files.expect, &manifest.sha256_expect),
    ] {
        if sha256(text) != *want {
            return Err(file_err(
                path,
                "contents do not match the manifest's sha256",
            ));
        }
    }
    if let Some((c, _)) = stim.last().or(expect.last()) {
        if *c >= manifest.cycles {
            return Err(file_err(
                &spath,
                format!("line for cycle {c} beyond the {} cycles", manifest.cycles),
            ));
        }
    }
    Ok(GoldenSet {
        dir: dir.to_path_buf(),
        manifest,
        files,
        stim,
        expect,
    })
}

/// Rebuild a set from its manifest; `Err` names the first file and line that differ.
pub fn regenerate(g: &GoldenSet) -> Result<(), GoldenError> {
    let m = &g.manifest;
    let fresh = build(&m.set, &m.params, &m.source)?;
    match (&g.files.config_toml, &fresh.config_toml) {
        (Some(_), None) => {
            return Err(file_err(
                &g.dir.join(STEADY_CONFIG),
                "a set of this source has no such file (remove it, or regenerate the set)",
            ))
        }
        (None, Some(_)) => {
            return Err(file_err(
                &g.dir.join(STEADY_CONFIG),
                "missing (regenerate with `capfc golden gen`)",
            ))
        }
        _ => {}
    }
    for (name, old, new) in [
        ("stim.hex", &g.files.stim, &fresh.stim),
        ("expect.hex", &g.files.expect, &fresh.expect),
        ("params.vh", &g.files.params_vh, &fresh.params_vh),
        ("manifest.json", &g.files.manifest, &fresh.manifest),
        (
            STEADY_CONFIG,
            g.files.config_toml.as_ref().unwrap_or(&g.files.stim),
            fresh.config_toml.as_ref().unwrap_or(&fresh.stim),
        ),
    ] {
        if old != new {
            let line = old
                .lines()
                .zip(new.lines())
                .position(|(a, b)| a != b)
                .map_or_else(
                    || old.lines().count().min(new.lines().count()) + 1,
                    |k| k + 1,
                );
            return Err(file_err(
                &g.dir.join(name),
                format!(
                    "stale: differs from the model's output from line {line} (regenerate with `capfc golden gen --set {}`)",
                    m.set
                ),
            ));
        }
    }
    Ok(())
}

/// The set directories under `root` (those with a manifest), sorted.
pub fn list_sets(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("manifest.json").exists())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// A set's inputs cycle by cycle, as the testbench drives them: the `stim.hex` line stamped with
/// the cycle, else every input 0 but `pfc_ready`, held from the last line (all ones before it).
pub struct StimCursor<'a> {
    g: &'a GoldenSet,
    next: usize,
    ready_mask: Vec<u32>,
    held: Vec<u32>,
}

impl<'a> StimCursor<'a> {
    pub fn new(g: &'a GoldenSet) -> Self {
        let p = g.manifest.params;
        let ready_mask = idle_words(&p, &Layouts::new(&p).inputs);
        StimCursor {
            g,
            next: 0,
            held: ready_mask.clone(),
            ready_mask,
        }
    }

    /// The packed inputs of cycle `c`; call for c = 0, 1, 2, ... in order.
    pub fn inputs(&mut self, c: u64) -> &[u32] {
        match self.g.stim.get(self.next) {
            Some((sc, w)) if *sc == c => {
                self.next += 1;
                hold(&mut self.held, w, &self.ready_mask);
                w
            }
            _ => &self.held,
        }
    }
}

/// The result of replaying a set against the Verilated RTL.
#[cfg(feature = "rtl")]
#[derive(Debug, Clone, Default)]
pub struct Replay {
    pub passed: u64,
    pub failed: u64,
    /// `cycle C: <signal> [<where>] expected <hex> got <hex>`, in order.
    pub mismatches: Vec<String>,
    /// The first differing cycle and field, if any.
    pub first: Option<(u64, crate::block::pack::FieldDiff)>,
}

/// Replay a set against the Verilated RTL from Rust, comparing every output every cycle.
#[cfg(feature = "rtl")]
pub fn replay(g: &GoldenSet) -> Result<Replay, crate::dut::RtlError> {
    let p = g.manifest.params;
    let mut rtl = crate::dut::RtlBlock::new(&p)?;
    let l = Layouts::new(&p);
    let mut stim = StimCursor::new(g);
    let mut out = vec![0u32; l.outputs.words];
    let mut e = 0usize;
    let mut r = Replay::default();
    for c in 0..g.manifest.cycles {
        rtl.step_words(stim.inputs(c), &mut out);
        while g.expect.get(e + 1).is_some_and(|(ec, _)| *ec <= c) {
            e += 1;
        }
        let want = &g.expect[e].1;
        if *want == out {
            r.passed += 1;
        } else {
            r.failed += 1;
            for d in crate::block::pack::diff(&p, &l.outputs, want, &out) {
                r.mismatches.push(format!(
                    "cycle {c}: {} [{}] expected {:#x} got {:#x}",
                    d.signal, d.at, d.expected, d.actual
                ));
                r.first.get_or_insert((c, d));
            }
        }
    }
    Ok(r)
}
