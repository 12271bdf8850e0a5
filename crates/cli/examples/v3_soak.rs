//! The v3 block's soak (`make soak`, scripts/soak.sh): random legal traffic through the block's
//! model and its Verilated RTL in lockstep over parameter sets, algorithms and seeds
//! (`capfc::soak_v3`), one shard of the jobs at a time.
//!
//!     cargo run --release --example v3_soak -- [--config all|NAME,..] [--algo max|cal|both]
//!         [--seeds A..=B | --seed S] [--cycles N] [--shard K/N] [--fault NAME] [--exhaustive]
//!         [--json] [--list]
//!
//! The parameter sets are those built (`CAPFC_V3_CONFIGS`, names from crates/block/src/v3/rtl_configs.rs).
//! Every job prints its seed; a failed one prints the command that replays it. `--json` writes
//! the summary `scripts/soak_summary.py` reads.
//!
//! Exit 0 when every job ran to its end with no difference, 1 when a job failed, 2 on bad input
//! or when nothing was selected.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{bail, Result};
use capfc::block::{BlockParams, Mode};
use capfc::soak_v3::{jobs, run_job, shard, Job};
use capfc::v3::fault::Fault;
use capfc_cli::cli_util::{parse_seeds, parse_shard, select_configs};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(about = "The v3 block's model and Verilated RTL in lockstep on random traffic")]
struct Args {
    /// Parameter sets (built ones, `--list`), comma-separated, or `all`.
    #[arg(long, default_value = "all")]
    config: String,
    /// Algorithm: max (Stop-Max), cal (Stop-Calibrate) or both.
    #[arg(long, default_value = "both")]
    algo: String,
    /// Seeds: `A..B` (B excluded), `A..=B`, or a count `N` (1..=N).
    #[arg(long, default_value = "4")]
    seeds: String,
    /// A single seed (overrides --seeds).
    #[arg(long)]
    seed: Option<u64>,
    /// Cycles per job (the reset and the configuration included).
    #[arg(long, default_value_t = 100_000)]
    cycles: u64,
    /// Run only shard K of N (`K/N`, K from 1): job j runs when j mod N = K-1.
    #[arg(long)]
    shard: Option<String>,
    /// A fault of the v3 model's catalogue (`capfc faults --list`): the soak must fail.
    #[arg(long)]
    fault: Option<String>,
    /// Compare every RAM word every cycle, not the RAMs' writes (slower; the same verdict).
    #[arg(long)]
    exhaustive: bool,
    /// Machine-readable summary on standard output.
    #[arg(long)]
    json: bool,
    /// Print the built parameter sets and exit.
    #[arg(long)]
    list: bool,
}

fn main() {
    let a = Args::parse();
    match run(&a) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("v3_soak: {e:#}");
            std::process::exit(2);
        }
    }
}

fn run(a: &Args) -> Result<bool> {
    let built = capfc::dut_v3::available();
    if a.list {
        for (n, p) in &built {
            println!(
                "{n:<14} NP={} SW={} OW={} CW={} CELL_LOG2={} CUT_F={} NL={}",
                p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl
            );
        }
        return Ok(true);
    }
    let configs = select_configs(&a.config, &built, "CAPFC_V3_CONFIGS")?;
    let modes = match a.algo.as_str() {
        "max" => vec![Mode::StopMax],
        "cal" => vec![Mode::StopCal],
        "both" => vec![Mode::StopMax, Mode::StopCal],
        o => bail!("--algo '{o}': expected max, cal or both"),
    };
    let seeds = match a.seed {
        Some(s) => s..=s,
        None => parse_seeds(&a.seeds)?,
    };
    if seeds.end() - seeds.start() >= 1_000_000 {
        bail!("--seeds: more than 1,000,000 seeds in one run; split the range over runs");
    }
    if a.cycles == 0 {
        bail!("--cycles 0: nothing to check");
    }
    let fault: Option<Fault> = a
        .fault
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let js = select_jobs(a, &configs, &modes, &seeds, fault)?;
    let t0 = Instant::now();
    let tally = run_jobs(&js, fault, a.exhaustive);
    let secs = t0.elapsed().as_secs_f64();
    print_summary(a.json, js.len(), &tally, secs)?;
    Ok(tally.failed == 0 && tally.cycles > 0)
}

/// The jobs of this run: every configuration × seed × mode, then `--shard`'s share of them; none
/// is an error. Says on stderr what runs.
fn select_jobs(
    a: &Args,
    configs: &[(String, BlockParams)],
    modes: &[Mode],
    seeds: &std::ops::RangeInclusive<u64>,
    fault: Option<Fault>,
) -> Result<Vec<Job>> {
    let mut js = jobs(configs, modes, seeds.clone(), a.cycles);
    let total = js.len();
    if let Some(sh) = &a.shard {
        let (k, n) = parse_shard(sh)?;
        js = shard(js, k, n);
    }
    if js.is_empty() {
        // a soak that checks nothing must not pass
        bail!(
            "no job selected: {} config(s), {} seed(s), {}{} give 0 of {total} jobs",
            configs.len(),
            seeds.end() - seeds.start() + 1,
            a.algo,
            a.shard
                .as_ref()
                .map(|s| format!(", shard {s}"))
                .unwrap_or_default()
        );
    }
    eprintln!(
        "v3_soak: {} of {total} jobs; configs {}; algo {}; seeds {}..={} x {} cycles{}{}",
        js.len(),
        configs
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(","),
        a.algo,
        seeds.start(),
        seeds.end(),
        a.cycles,
        a.shard
            .as_ref()
            .map(|s| format!("; shard {s}"))
            .unwrap_or_default(),
        fault.map(|f| format!("; fault {f}")).unwrap_or_default()
    );
    Ok(js)
}

/// What the jobs of a soak gave.
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
fn run_jobs(js: &[Job], fault: Option<Fault>, exhaustive: bool) -> Tally {
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
        match run_job(j, fault, exhaustive) {
            Ok(r) => {
                t.passed += 1;
                t.cycles += r.cycles;
                t.full += r.full_compares;
                for (k, v) in r.corners {
                    *t.cov.entry(k).or_default() += v;
                }
                eprintln!(
                    "v3_soak: {}: {} cycles, no difference ({:.1} s)",
                    j.label(),
                    r.cycles,
                    start.elapsed().as_secs_f64()
                );
            }
            Err(e) => {
                t.failed += 1;
                eprintln!("v3_soak: FAIL {e}");
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
            "v3_soak: {cycles} cycles in lockstep in {secs:.1} s ({:.0} cycles/s); {passed} passed, {failed} failed",
            cycles as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}
