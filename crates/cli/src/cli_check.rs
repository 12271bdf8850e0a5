//! `capfc check`: the reference checker ([`crate::check`]) from the command line.
//!
//! - `capfc check --wave DUT.vcd|DUT.fst --map MAP.toml [--timing TIMING.toml]`: an
//!   implementation's waveform from any simulator;
//! - `capfc check --model --config v3_np8_nl3 --mode cal --seed N --cycles N [--fault F]`: the
//!   block's cycle model on random traffic through its lanes, against the block's envelope
//!   (`--set NAME`: on the traffic of one of its golden sets);
//! - `capfc check --envelope v3_np8_nl3`: print the block's envelope (the format `--timing`
//!   reads); a set of v2, the test subject (`np4`, `np8`, ...), prints v2's.
//!
//! Exit status: 0 when every rule held, 1 on a violation, 2 on bad input or a run that checked
//! nothing, 3 on a weak verdict (no violation, but a window too wide for the traffic to tell right
//! from wrong: [`crate::check::Checker::weak`]; `--allow-weak` makes it a warning).

use crate::block::BlockParams;
use crate::block::Mode;
use crate::check::block::{envelope_of, envelope_of_v3};
use crate::check::{Checker, Envelope, Summary, Violation, Weakness};
use crate::check_wave::{Map, Wave};
use clap::Args;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The implementation's waveform (VCD or FST).
    #[arg(long, requires = "map")]
    pub wave: Option<String>,
    /// How the waveform's signals carry each lane (TOML; every key in docs/design-space.md).
    #[arg(long)]
    pub map: Option<String>,
    /// The implementation's timing envelope (TOML; every key in docs/design-space.md). Default:
    /// the block's own (capfc_top_oc's, as `--envelope` prints it), for the map's parameters
    /// (its sorts' window for 8 counted classes, the widest).
    #[arg(long)]
    pub timing: Option<String>,
    /// Check the block's cycle model on random traffic instead of a waveform.
    #[arg(long, conflicts_with = "wave")]
    pub model: bool,
    /// The block's parameter set (with --model): v3_np4, v3_np8_nl3, ...
    /// (crates/block/src/v3/rtl_configs.rs).
    #[arg(long, default_value = "v3_np8_nl3")]
    pub config: String,
    /// Algorithm (with --model): max or cal.
    #[arg(long, default_value = "cal")]
    pub mode: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value_t = 100_000)]
    pub cycles: u64,
    /// With --model: the traffic of one of the block's golden sets (`capfc golden list`; its
    /// parameters and algorithm are the set's) instead of random traffic.
    #[arg(long, requires = "model", conflicts_with_all = ["config", "mode", "seed", "cycles"])]
    pub set: Option<String>,
    /// A deliberate bug in the block's model (with --model): a name of its catalogue
    /// (`capfc faults --list`, crates/block/src/v3/fault.rs; an unknown name is refused with
    /// the list).
    #[arg(long)]
    pub fault: Option<capfc::v3::fault::Fault>,
    /// Print an envelope for this parameter set and stop: the block's (capfc_top_oc's) for one of
    /// its sets (v3_np4, v3_np8_nl3, ...), the test subject capfc_v2_top's for one of v2's
    /// (np4, np8, ...).
    #[arg(long)]
    pub envelope: Option<String>,
    /// With --envelope: the set's port count replaced by N.
    #[arg(long, value_name = "N", requires = "envelope")]
    pub ports: Option<usize>,
    /// Violations printed in full (the rest are counted).
    #[arg(long, default_value_t = 10)]
    pub max_reports: usize,
    /// A weak verdict (a window too wide for the traffic to judge a rule it exercised) is a
    /// warning, exit 0, instead of exit 3.
    #[arg(long)]
    pub allow_weak: bool,
}

/// Runs the command; the process exit status.
pub fn run(a: &CheckArgs) -> i32 {
    match run_inner(a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("capfc check: {e}");
            2
        }
    }
}

/// What a run found, for [`report`].
struct Verdict<'a> {
    name: &'a str,
    summary: &'a Summary,
    shown: &'a [Violation],
    weak: &'a [Weakness],
    allow_weak: bool,
    secs: f64,
    replay: &'a str,
}

fn report(r: &Verdict) -> i32 {
    let (name, s, v, replay) = (r.name, r.summary, r.shown, r.replay);
    let more = s.violations.saturating_sub(v.len() as u64);
    for x in v {
        print!("{x}");
        println!("  replay: {replay}");
    }
    if more > 0 {
        println!("... and {more} more violations");
    }
    println!(
        "{name}: {} cycles, {} lanes, {} accepts, {} changes of D, {} selections ({} judged at their deadline, {} open at the end), {} rises from a selection, {} frames: {} violations ({:.2} s, {:.0} cycles/s)",
        s.cycles,
        s.lanes,
        s.accepts,
        s.d_changes,
        s.obligations,
        s.judged,
        s.open_at_end,
        s.selection_rises,
        s.frames,
        s.violations,
        r.secs,
        s.cycles as f64 / r.secs.max(1e-9)
    );
    println!(
        "judged at a deadline: {} of {} selections ({} cancelled by XON_e), {} of {} pauses from I, {} of {} frames due, {} of {} refreshes due",
        s.judged,
        s.obligations,
        s.cancelled,
        s.i_judged,
        s.i_rises,
        s.frame_judged,
        s.frame_episodes,
        s.refresh_judged,
        s.refresh_due
    );
    if s.unanswered_at_end > 0 {
        println!(
            "note: {} lanes of the last cycles were not judged: their answers come after the run's end (accept_latency)",
            s.unanswered_at_end
        );
    }
    if s.cancelled_by_reset > 0 {
        println!(
            "note: {} arrivals and enqueues were not judged: a reset came before their answers (the block forgets them)",
            s.cancelled_by_reset
        );
    }
    if s.violations > 0 {
        return 1;
    }
    if s.cycles == 0 || s.lanes == 0 {
        eprintln!("capfc check: {name}: nothing was checked (no cycle with a valid lane)");
        return 2;
    }
    if !r.weak.is_empty() {
        let what = if r.allow_weak {
            "warning"
        } else {
            "weak verdict"
        };
        for w in r.weak {
            eprintln!("capfc check: {what}: {w}");
        }
        if !r.allow_weak {
            eprintln!(
                "capfc check: {name}: no violation, but the rules above could not have failed on this traffic: narrow the window to what the design guarantees, or run traffic that reaches its deadlines (exit 3; --allow-weak accepts it)"
            );
            return 3;
        }
    }
    0
}

/// Why `capfc check` could not judge: the arguments, or the files they name.
#[derive(Debug, thiserror::Error)]
pub enum CheckCmdError {
    /// A parameter set's name (given with `flag`) that is not one.
    #[error("{flag} {set}: no such parameter set")]
    NoSet { flag: &'static str, set: String },
    #[error("--envelope {set}: {source}")]
    V3Params {
        set: String,
        #[source]
        source: capfc::error::ParamsError,
    },
    #[error("--envelope {set}: {source}")]
    Params {
        set: String,
        #[source]
        source: crate::block::ConfigError,
    },
    /// A name given with `flag` that is none of the block's parameter sets or golden sets.
    #[error("{flag} {set}: not one of the block's ({known})")]
    NoBlockSet {
        flag: &'static str,
        set: String,
        known: String,
    },
    #[error("--mode {0}: use max or cal")]
    Mode(String),
    #[error("give --wave FILE --map MAP.toml, or --model, or --envelope SET")]
    Usage,
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Map(#[from] crate::check_wave::MapError),
    #[error(transparent)]
    Wave(#[from] crate::check_wave::WaveMapError),
    #[error(transparent)]
    Envelope(#[from] crate::check::EnvelopeError),
    #[error(transparent)]
    Checker(#[from] crate::check::CheckerError),
    #[error(transparent)]
    Run(#[from] capfc::golden_v3::CheckRunError),
}

/// The block's parameter sets' names, for an error.
fn block_sets() -> String {
    crate::v3::rtl_configs::V3_RTL_CONFIGS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
        + "; crates/block/src/v3/rtl_configs.rs"
}

fn run_inner(a: &CheckArgs) -> Result<i32, CheckCmdError> {
    if let Some(set) = &a.envelope {
        return print_envelope(a, set);
    }
    if a.model {
        return check_the_model(a);
    }
    let (Some(wave), Some(map_path)) = (&a.wave, &a.map) else {
        return Err(CheckCmdError::Usage);
    };
    check_a_waveform(a, wave, map_path)
}

/// `--envelope SET`: the envelope of a parameter set, as TOML on standard output.
fn print_envelope(a: &CheckArgs, set: &str) -> Result<i32, CheckCmdError> {
    let v3 = crate::v3::rtl_configs::V3_RTL_CONFIGS
        .iter()
        .find(|(n, _)| *n == set)
        .map(|(_, v)| BlockParams::from_values(v));
    let mut p = v3
        .or_else(|| crate::golden::params_of(set))
        .ok_or_else(|| CheckCmdError::NoSet {
            flag: "--envelope",
            set: set.to_string(),
        })?;
    if let Some(np) = a.ports {
        p.np = np;
    }
    let env = if v3.is_some() {
        crate::v3::check_params(p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl as u32)
            .map_err(|source| CheckCmdError::V3Params {
                set: set.to_string(),
                source,
            })?;
        crate::check::block::envelope_of_v3(&p)
    } else {
        p.validate().map_err(|source| CheckCmdError::Params {
            set: set.to_string(),
            source,
        })?;
        envelope_of(&p)
    };
    print!("{}", env.to_toml());
    Ok(0)
}

/// `--model`: the block's cycle model on random traffic through its lanes, or on a golden set's
/// traffic (`--set`), checked within the block's envelope.
fn check_the_model(a: &CheckArgs) -> Result<i32, CheckCmdError> {
    let fault = a
        .fault
        .map_or(String::new(), |f| format!(" --fault {}", f.name()));
    let (name, p, source, replay) = match &a.set {
        Some(set) => {
            let c = capfc::golden_v3::curated()
                .into_iter()
                .find(|c| c.name == *set)
                .ok_or_else(|| CheckCmdError::NoBlockSet {
                    flag: "--set",
                    set: set.clone(),
                    known: capfc::golden_v3::curated()
                        .iter()
                        .map(|c| c.name.clone())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            let replay = format!("capfc check --model --set {set}{fault}");
            (format!("model on {set}"), c.params, c.source, replay)
        }
        None => {
            let p = crate::v3::rtl_configs::V3_RTL_CONFIGS
                .iter()
                .find(|(n, _)| *n == a.config)
                .map(|(_, v)| BlockParams::from_values(v))
                .ok_or_else(|| CheckCmdError::NoBlockSet {
                    flag: "--config",
                    set: a.config.clone(),
                    known: block_sets(),
                })?;
            let mode = match a.mode.as_str() {
                "max" => Mode::StopMax,
                "cal" => Mode::StopCal,
                m => return Err(CheckCmdError::Mode(m.to_string())),
            };
            let source = capfc::golden_v3::SourceV3::Random {
                seed: a.seed,
                cycles: a.cycles,
                mode,
                contention: false,
                stray: false,
                steady: false,
            };
            let replay = format!(
                "capfc check --model --config {} --mode {} --seed {} --cycles {}{fault}",
                a.config, a.mode, a.seed, a.cycles
            );
            println!("seed {}", a.seed);
            (format!("model {} {}", a.config, a.mode), p, source, replay)
        }
    };
    let t0 = Instant::now();
    let r = capfc::golden_v3::check_source(&p, &source, a.fault, a.max_reports)?;
    if let Some(f) = a.fault {
        println!(
            "fault {} ({}): its wrong value taken {} times",
            f.name(),
            f.rule(),
            r.fired
        );
    }
    Ok(report(&Verdict {
        name: &name,
        summary: &r.summary,
        shown: &r.violations,
        weak: &r.weak,
        allow_weak: a.allow_weak,
        secs: t0.elapsed().as_secs_f64(),
        replay: &replay,
    }))
}

/// `--wave FILE --map MAP.toml`: a waveform, read through its map, checked.
fn check_a_waveform(a: &CheckArgs, wave: &str, map_path: &str) -> Result<i32, CheckCmdError> {
    let io = |file: &str| {
        let file = file.to_string();
        move |source| CheckCmdError::Io { file, source }
    };
    let map_text = std::fs::read_to_string(map_path).map_err(io(map_path))?;
    let map = Map::parse(&map_text, map_path)?;
    let t0 = Instant::now();
    let mut w = Wave::load(wave, map, &map_text, map_path)?;
    let env = match &a.timing {
        Some(t) => {
            let text = std::fs::read_to_string(t).map_err(io(t))?;
            Envelope::parse(&text, t)?
        }
        None => {
            let p = w.params();
            let bp = crate::block::BlockParams {
                np: p.np,
                cw: p.cw,
                cell_log2: p.cell_log2,
                cut_f: p.cut_f,
                nl: 8,
                ..crate::block::BlockParams::default()
            };
            envelope_of_v3(&bp)
        }
    };
    w.set_accept_latency(env.accept_latency);
    let load_secs = t0.elapsed().as_secs_f64();
    let mut ck = Checker::new(w.params(), w.initial_config(), env, w.reset_clears_config())?;
    let mut shown = vec![];
    let t1 = Instant::now();
    w.cycles(|_, c| {
        for v in ck.step(c) {
            if shown.len() < a.max_reports {
                shown.push(v);
            }
        }
        true
    });
    for v in ck.finish() {
        if shown.len() < a.max_reports {
            shown.push(v);
        }
    }
    let secs = t1.elapsed().as_secs_f64();
    let info = &w.info;
    println!(
        "{wave}: {} rising edges of the clock: checked up to the last one, at time {}; the waveform ends at {} (timescale {}); read in {load_secs:.2} s",
        info.edges, info.last_edge_time, info.end_time, info.timescale
    );
    if info.x_before_reset > 0 {
        println!(
            "note: {} samples of valid, accept, reset, D or frame signals held X or Z before the first reset or in a reset cycle (read as 0; harmless: lanes are ignored there)",
            info.x_before_reset
        );
    }
    if info.x_samples > 0 {
        println!(
            "warning: {} samples of valid, accept, reset, D or frame signals held X or Z after the first reset, the first in cycle {} (read as 0)",
            info.x_samples,
            info.first_x_cycle.unwrap_or(0)
        );
    }
    let s = ck.summary().clone();
    let weak = ck.weak();
    let replay = format!(
        "capfc check --wave {wave} --map {map_path}{}",
        a.timing
            .as_ref()
            .map_or(String::new(), |t| format!(" --timing {t}"))
    );
    Ok(report(&Verdict {
        name: wave,
        summary: &s,
        shown: &shown,
        weak: &weak,
        allow_weak: a.allow_weak,
        secs,
        replay: &replay,
    }))
}
