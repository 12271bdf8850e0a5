//! `capfc cosim`: the block's model and its Verilated RTL in lockstep (`capfc::soak_v3`), every
//! register, output and RAM write compared every cycle, over parameter sets, algorithms, random
//! seeds and the curated golden sets' stimulus; one shard of the jobs at a time (`make soak`
//! runs shards of it under GNU parallel, `scripts/soak.sh`).
//!
//! The parameter sets are those built (`CAPFC_V3_CONFIGS`, names from
//! crates/block/src/v3/rtl_configs.rs). Every job prints its seed or set; a failed one prints the
//! command that replays it. `--json` writes the summary `scripts/soak_summary.py` reads.
//!
//! Exit 0 when every job ran to its end with no difference, 1 when a job failed; bad input, or a
//! selection with no job, is an error.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::cli_util::{parse_seeds, parse_shard, select_configs};
use anyhow::{bail, Result};
use capfc::block::{BlockParams, Mode};
use capfc::soak_v3::{directed_jobs, jobs, run_job, shard, write_window, Job, SoakError};
use capfc::v3::fault::Fault;
use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct CosimArgs {
    /// Parameter sets (built ones, `--list`), comma-separated, or `all`.
    #[arg(long, default_value = "all")]
    pub config: String,
    /// Algorithm: max (Stop-Max), cal (Stop-Calibrate) or both.
    #[arg(long, default_value = "both")]
    pub algo: String,
    /// Seeds of the random jobs: `A..B` (B excluded), `A..=B`, a count `N` (1..=N), or 0 for none.
    #[arg(long, default_value = "4")]
    pub seeds: String,
    /// A single seed (overrides --seeds).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Cycles per random job (the reset and the configuration included).
    #[arg(long, default_value_t = 20_000)]
    pub cycles: u64,
    /// The curated golden sets whose stimulus runs in lockstep too (those at a selected parameter
    /// set in a selected algorithm): all, none, or names, comma-separated (`--list`).
    #[arg(long, default_value = "all")]
    pub directed: String,
    /// Run only shard K of N (`K/N`, K from 1): job j runs when j mod N = K-1.
    #[arg(long)]
    pub shard: Option<String>,
    /// A fault of the model's catalogue (`capfc faults --list`): the run must fail.
    #[arg(long)]
    pub fault: Option<Fault>,
    /// Compare every RAM word every cycle, not the RAMs' writes (slower; the same verdict).
    #[arg(long)]
    pub exhaustive: bool,
    /// On a mismatch, run the job again and write the RTL's waveform (Verilator's trace) and the
    /// model's (the same signal names) for this many cycles either side of it; 0: none.
    #[arg(long, default_value_t = 20)]
    pub wave_window: u64,
    /// Directory for the waveform windows.
    #[arg(long, default_value = ".")]
    pub wave_dir: std::path::PathBuf,
    /// Machine-readable summary on standard output.
    #[arg(long)]
    pub json: bool,
    /// Print the built parameter sets and the curated golden sets, and exit.
    #[arg(long)]
    pub list: bool,
}

/// Runs the regression; false when a job failed.
pub fn run(a: &CosimArgs) -> Result<bool> {
    let built = capfc::dut_v3::available();
    if a.list {
        for (n, p) in &built {
            println!(
                "{n:<14} NP={} SW={} OW={} CW={} CELL_LOG2={} CUT_F={} NL={}",
                p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl
            );
        }
        let sets: Vec<String> = capfc::golden_v3::curated()
            .into_iter()
            .map(|c| c.name)
            .collect();
        println!("directed: {}", sets.join(", "));
        return Ok(true);
    }
    let configs = select_configs(&a.config, &built, "CAPFC_V3_CONFIGS")?;
    let modes = match a.algo.as_str() {
        "max" => vec![Mode::StopMax],
        "cal" => vec![Mode::StopCal],
        "both" => vec![Mode::StopMax, Mode::StopCal],
        o => bail!("--algo '{o}': expected max, cal or both"),
    };
    let seeds = match (a.seed, a.seeds.as_str()) {
        (Some(s), _) => Some(s..=s),
        (None, "0") => None,
        (None, s) => Some(parse_seeds(s)?),
    };
    if let Some(s) = &seeds {
        if s.end() - s.start() >= 1_000_000 {
            bail!("--seeds: more than 1,000,000 seeds in one run; split the range over runs");
        }
    }
    if a.cycles == 0 {
        bail!("--cycles 0: nothing to check");
    }
    let js = select_jobs(a, &configs, &modes, seeds.as_ref(), a.fault)?;
    let t0 = Instant::now();
    let tally = run_jobs(&js, a);
    let secs = t0.elapsed().as_secs_f64();
    print_summary(a.json, js.len(), &tally, secs)?;
    Ok(tally.failed == 0 && tally.cycles > 0)
}

/// The jobs of this run: every configuration × seed × mode, then `--shard`'s share of them; none
/// is an error. Says on stderr what runs.
fn select_jobs(
    a: &CosimArgs,
    configs: &[(String, BlockParams)],
    modes: &[Mode],
    seeds: Option<&std::ops::RangeInclusive<u64>>,
    fault: Option<Fault>,
) -> Result<Vec<Job>> {
    let mut js = seeds.map_or_else(Vec::new, |s| jobs(configs, modes, s.clone(), a.cycles));
    let names: Option<Vec<String>> = match a.directed.as_str() {
        "all" => None,
        "none" => Some(vec![]),
        l => Some(l.split(',').map(str::to_string).collect()),
    };
    js.extend(directed_jobs(configs, modes, names.as_deref())?);
    let total = js.len();
    if let Some(sh) = &a.shard {
        let (k, n) = parse_shard(sh)?;
        js = shard(js, k, n);
    }
    if js.is_empty() {
        // a regression that checks nothing must not pass
        bail!(
            "no job selected: {} config(s), {} seed(s), {}, directed '{}'{} give 0 of {total} jobs",
            configs.len(),
            seeds.map_or(0, |s| s.end() - s.start() + 1),
            a.algo,
            a.directed,
            a.shard
                .as_ref()
                .map(|s| format!(", shard {s}"))
                .unwrap_or_default()
        );
    }
    eprintln!(
        "cosim: {} of {total} jobs; configs {}; algo {}; seeds {} x {} cycles; directed {}{}{}",
        js.len(),
        configs
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(","),
        a.algo,
        seeds.map_or_else(|| "none".into(), |s| format!("{}..={}", s.start(), s.end())),
        a.cycles,
        a.directed,
        a.shard
            .as_ref()
            .map(|s| format!("; shard {s}"))
            .unwrap_or_default(),
        fault.map(|f| format!("; fault {f}")).unwrap_or_default()
    );
    Ok(js)
}

/// What the jobs of a run gave.
struct Tally {
    passed: u64,
    failed: u64,
    /// Cycles run in lockstep by the jobs that passed.
    cycles: u64,
    /// Cycles after which every RAM word was compared.
    full: u64,
    /// Hits of each coverage point, over the jobs that passed.
    cov: BTreeMap<String, u64>,
    failures: Vec<String>,
}

/// Runs `js` in order, each job's verdict on stderr as it ends.
fn run_jobs(js: &[Job], a: &CosimArgs) -> Tally {
    let mut t = Tally {
        passed: 0,
        failed: 0,
        cycles: 0,
        full: 0,
        cov: BTreeMap::new(),
        failures: vec![],
    };
    for j in js {
        let start = Instant::now();
        match run_job(j, a.fault, a.exhaustive) {
            Ok(r) => {
                t.passed += 1;
                t.cycles += r.cycles;
                t.full += r.full_compares;
                for (k, v) in r.corners {
                    *t.cov.entry(k).or_default() += v;
                }
                eprintln!(
                    "cosim: {}: {} cycles, no difference ({:.1} s)",
                    j.label(),
                    r.cycles,
                    start.elapsed().as_secs_f64()
                );
            }
            Err(e) => {
                t.failed += 1;
                eprintln!("cosim: FAIL {e}");
                if let (SoakError::Mismatch { cycle, .. }, w @ 1..) = (&e, a.wave_window) {
                    match write_window(j, a.fault, *cycle, w, &a.wave_dir) {
                        Ok(w) => eprintln!(
                            "cosim: waveform window: {} (RTL), {} (model)",
                            w.rtl, w.model
                        ),
                        Err(e) => eprintln!("cosim: no waveform window: {e}"),
                    }
                }
                t.failures.push(e.to_string());
            }
        }
    }
    t
}

/// The summary on standard output: coverage and counts, or JSON (`json`).
fn print_summary(json: bool, jobs: usize, t: &Tally, secs: f64) -> Result<()> {
    let (passed, failed, cycles, full) = (t.passed, t.failed, t.cycles, t.full);
    if json {
        let coverage: Vec<_> = t
            .cov
            .iter()
            .map(|(k, v)| serde_json::json!({"point": k, "hits": v}))
            .collect();
        let v = serde_json::json!({
            "jobs": jobs, "passed": passed, "failed": failed, "cycles": cycles,
            "full_compares": full, "seconds": secs, "coverage": coverage, "failures": t.failures,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for (k, v) in &t.cov {
            println!("  {v:>14}  {k}");
        }
        println!(
            "cosim: {cycles} cycles in lockstep in {secs:.1} s ({:.0} cycles/s); {passed} passed, {failed} failed",
            cycles as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}
