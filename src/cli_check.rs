//! `capfc check`: the reference checker ([`crate::check`]) from the command line.
//!
//! - `capfc check --wave DUT.vcd|DUT.fst --map MAP.toml [--timing TIMING.toml]`: an
//!   implementation's waveform from any simulator;
//! - `capfc check --model --config np8 --mode cal --seed N --cycles N [--fault F]`: our own
//!   cycle model on random stimulus, against its own envelope;
//! - `capfc check --envelope np8`: print our block's envelope (the format `--timing` reads).
//!
//! Exit status: 0 when every rule held, 1 on a violation, 2 on bad input or a run that checked
//! nothing.

use crate::block::BlockParams;
use crate::block::{Fault, Mode};
use crate::check::block::{check_model, envelope_of};
use crate::check::{Checker, Envelope, Summary, Violation};
use crate::check_wave::{Map, Wave};
use clap::Args;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The implementation's waveform (VCD or FST).
    #[arg(long, requires = "map")]
    pub wave: Option<String>,
    /// How the waveform's signals carry each lane (TOML; see the README, "Verify your own block").
    #[arg(long)]
    pub map: Option<String>,
    /// The implementation's timing envelope (TOML). Default: capfc_top's own, for the map's
    /// parameters.
    #[arg(long)]
    pub timing: Option<String>,
    /// Check our own cycle model on random stimulus instead of a waveform.
    #[arg(long, conflicts_with = "wave")]
    pub model: bool,
    /// Parameter set (with --model, --envelope): np4, np8, ...
    #[arg(long, default_value = "np8")]
    pub config: String,
    /// Algorithm (with --model): max or cal.
    #[arg(long, default_value = "cal")]
    pub mode: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value_t = 100_000)]
    pub cycles: u64,
    /// A deliberate bug in the model (with --model): see `capfc faults --list`.
    #[arg(long)]
    pub fault: Option<Fault>,
    /// Print our block's envelope for this parameter set and stop: capfc_top's for a v2 set
    /// (np4, np8, ...), capfc_top_oc's for a v3 set (v3_np4, v3_np8_nl3, ...).
    #[arg(long)]
    pub envelope: Option<String>,
    /// With --envelope: the set's port count replaced by N.
    #[arg(long, value_name = "N", requires = "envelope")]
    pub ports: Option<usize>,
    /// Violations printed in full (the rest are counted).
    #[arg(long, default_value_t = 10)]
    pub max_reports: usize,
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

fn report(name: &str, s: &Summary, v: &[Violation], more: u64, secs: f64, replay: &str) -> i32 {
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
        secs,
        s.cycles as f64 / secs.max(1e-9)
    );
    if s.violations > 0 {
        1
    } else if s.cycles == 0 || s.lanes == 0 {
        eprintln!("capfc check: {name}: nothing was checked (no cycle with a valid lane)");
        2
    } else {
        0
    }
}

fn run_inner(a: &CheckArgs) -> Result<i32, String> {
    if let Some(set) = &a.envelope {
        let v3 = crate::v3::rtl_configs::V3_RTL_CONFIGS
            .iter()
            .find(|(n, _)| n == set)
            .map(|(_, v)| BlockParams::from_values(v));
        let mut p = v3
            .or_else(|| crate::golden::params_of(set))
            .ok_or(format!("--envelope {set}: no such parameter set"))?;
        if let Some(np) = a.ports {
            p.np = np;
        }
        let env = if v3.is_some() {
            crate::v3::check_params(p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl as u32)
                .map_err(|e| format!("--envelope {set}: {e}"))?;
            crate::check::block::envelope_of_v3(&p)
        } else {
            p.validate().map_err(|e| format!("--envelope {set}: {e}"))?;
            envelope_of(&p)
        };
        print!("{}", env.to_toml());
        return Ok(0);
    }
    if a.model {
        let p = crate::golden::params_of(&a.config)
            .ok_or(format!("--config {}: no such parameter set", a.config))?;
        let mode = match a.mode.as_str() {
            "max" => Mode::StopMax,
            "cal" => Mode::StopCal,
            m => return Err(format!("--mode {m}: use max or cal")),
        };
        let mut stim = crate::stimulus::RandomStim::new(&p, mode, a.seed, a.cycles);
        stim.profile.reconfig_rate = 0.0;
        let t0 = Instant::now();
        let (s, v) = check_model(&p, &mut stim, a.fault, a.max_reports)?;
        let more = s.violations.saturating_sub(v.len() as u64);
        let replay = format!(
            "capfc check --model --config {} --mode {} --seed {} --cycles {}{}",
            a.config,
            a.mode,
            a.seed,
            a.cycles,
            a.fault
                .map_or(String::new(), |f| format!(" --fault {}", f.name()))
        );
        println!("seed {}", a.seed);
        return Ok(report(
            &format!("model {} {}", a.config, a.mode),
            &s,
            &v,
            more,
            t0.elapsed().as_secs_f64(),
            &replay,
        ));
    }
    let (Some(wave), Some(map_path)) = (&a.wave, &a.map) else {
        return Err("give --wave FILE --map MAP.toml, or --model, or --envelope SET".into());
    };
    let map_text = std::fs::read_to_string(map_path).map_err(|e| format!("{map_path}: {e}"))?;
    let map = Map::parse(&map_text, map_path)?;
    let t0 = Instant::now();
    let mut w = Wave::load(wave, map, &map_text, map_path)?;
    let env = match &a.timing {
        Some(t) => {
            let text = std::fs::read_to_string(t).map_err(|e| format!("{t}: {e}"))?;
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
            envelope_of(&bp)
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
    if info.x_samples > 0 {
        println!(
            "warning: {} samples of valid, accept, reset, D or frame signals held X or Z (read as 0)",
            info.x_samples
        );
    }
    let s = ck.summary().clone();
    let more = s.violations.saturating_sub(shown.len() as u64);
    let replay = format!(
        "capfc check --wave {wave} --map {map_path}{}",
        a.timing
            .as_ref()
            .map_or(String::new(), |t| format!(" --timing {t}"))
    );
    Ok(report(wave, &s, &shown, more, secs, &replay))
}
