//! The previous block, v2 (`docs/microarchitecture-v2.md`, `rtl/`), in lockstep with its own
//! Rust model: a regression over parameter sets, modes, seeds and directed cases, kept while v2
//! serves as a second implementation under test (`make soak-v2`, `make wave-check`). The block's
//! lockstep is `capfc cosim`.
//!
//!     cargo run --release --example v2_cosim -- [--config all|NAME,..] [--algo max|cal|both|pfc]
//!         [--seeds A..=B | --seed S] [--cycles N] [--directed all|none|NAME,..] [--shard K/N]
//!         [--fault NAME] [--wave-window N --wave-dir DIR] [--exhaustive] [--json] [--list]
//!
//! Exit 0 when every job passed, 1 when one failed, 2 on bad input or when nothing was selected.

use anyhow::{bail, Result};
use capfc::block::coverage::Coverage;
use capfc::block::{BlockParams, Fault, Mode};
use capfc::cosim::{jobs, run_job, shard, Failure, Job, RunOpts};
use capfc::stimulus::DIRECTED;
use capfc_cli::cli_util::{parse_seeds, parse_shard, select_configs};
use clap::Parser;
use std::time::Instant;

#[derive(Parser, Debug, Clone)]
#[command(about = "The v2 block's model and Verilated RTL in lockstep")]
struct CosimArgs {
    /// Parameter sets (names from `--list`), comma-separated, or `all`.
    #[arg(long, default_value = "all")]
    config: String,
    /// Contributor selection: max, cal or both.
    #[arg(long, default_value = "both")]
    algo: String,
    /// Seeds of the random jobs: `A..B` (B excluded), `A..=B`, or a count `N` (1..=N); 0 for none.
    #[arg(long, default_value = "4")]
    seeds: String,
    /// A single seed (overrides --seeds).
    #[arg(long)]
    seed: Option<u64>,
    /// Cycles per random job.
    #[arg(long, default_value_t = 20_000)]
    cycles: u64,
    /// Directed cases: all, none, or names, comma-separated.
    #[arg(long, default_value = "all")]
    directed: String,
    /// Run only shard K of N (`K/N`, K from 1): job j runs when j mod N = K-1.
    #[arg(long)]
    shard: Option<String>,
    /// Inject a deliberate fault into the model: a name of v2's catalogue (`crates/block/src/block/fault.rs`;
    /// an unknown name is refused with the list).
    #[arg(long)]
    fault: Option<Fault>,
    /// On a mismatch, write VCDs of the RTL and of the model (same signal names) for this many
    /// cycles either side of it; 0: none.
    #[arg(long, default_value_t = 20)]
    wave_window: u64,
    /// Directory for waveform windows.
    #[arg(long, default_value = ".")]
    wave_dir: std::path::PathBuf,
    /// Cycles of input history in a mismatch report.
    #[arg(long, default_value_t = 8)]
    history: usize,
    /// Print the built parameter sets and directed cases, and exit.
    #[arg(long)]
    list: bool,
    /// Machine-readable summary on standard output.
    #[arg(long)]
    json: bool,
    /// Compare every RAM word after every cycle, not the RAM writes (slower; the same verdict).
    #[arg(long)]
    exhaustive: bool,
}

/// `--seeds`: `A..B` (B excluded), `A..=B`, or a count N (seeds 1..=N); any u64, the edges
/// included. An empty range is an error, not a run of nothing.
/// Seeds in a range (up to 2^64, so u128).
fn seed_count(r: &std::ops::RangeInclusive<u64>) -> u128 {
    u128::from(r.end() - r.start()) + 1
}

/// Seeds one run may take: the jobs are listed before they run.
const MAX_SEEDS: u128 = 1_000_000;

fn main() {
    let a = CosimArgs::parse();
    match run(&a) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("v2_cosim: {e:#}");
            std::process::exit(2);
        }
    }
}

fn run(a: &CosimArgs) -> Result<bool> {
    let built = capfc::dut::available();
    if a.list {
        print_list(&built);
        return Ok(true);
    }
    let configs = select_configs(&a.config, &built, "CAPFC_RTL_CONFIGS")?;
    let modes = parse_algo(&a.algo)?;
    let seeds = match a.seed {
        Some(s) => s..=s,
        None => parse_seeds(&a.seeds)?,
    };
    let directed = parse_directed(&a.directed)?;
    let js = select_jobs(a, &configs, &modes, &seeds, &directed)?;
    let opts = RunOpts {
        fault: a.fault,
        wave_window: (a.wave_window > 0).then_some(a.wave_window),
        wave_dir: Some(a.wave_dir.clone()),
        history: a.history,
        coverage: true,
        exhaustive: a.exhaustive,
    };
    let t0 = Instant::now();
    let tally = run_jobs(&js, &opts);
    let secs = t0.elapsed().as_secs_f64();
    print_summary(a, js.len(), &tally, secs)?;
    Ok(tally.failed == 0)
}

/// `--list`: the built parameter sets and the directed cases.
fn print_list(built: &[(String, BlockParams)]) {
    for (n, p) in built {
        println!(
            "{n:<12} NP={} SW={} OW={} CW={} CELL_LOG2={} CUT_F={}",
            p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f
        );
    }
    println!("directed: {}", DIRECTED.join(", "));
}

/// `--algo`: max, cal, both or pfc.
fn parse_algo(algo: &str) -> Result<Vec<Mode>> {
    Ok(match algo {
        "max" => vec![Mode::StopMax],
        "cal" => vec![Mode::StopCal],
        "both" => vec![Mode::StopMax, Mode::StopCal],
        "pfc" => vec![Mode::PfcOnly],
        o => bail!("--algo '{o}': expected max, cal, both or pfc"),
    })
}

/// `--directed`: all, none, or case names, comma-separated.
fn parse_directed(spec: &str) -> Result<Vec<String>> {
    Ok(match spec {
        "all" => DIRECTED.iter().map(|s| s.to_string()).collect(),
        "none" => vec![],
        list => list
            .split(',')
            .map(|n| {
                if DIRECTED.contains(&n) {
                    Ok(n.to_string())
                } else {
                    bail!(
                        "--directed '{n}': no such case (cases: {})",
                        DIRECTED.join(", ")
                    )
                }
            })
            .collect::<Result<_>>()?,
    })
}

/// The jobs of this run: every configuration × mode × seed and the directed cases, then
/// `--shard`'s share of them; none is an error. Says on stderr what runs.
fn select_jobs(
    a: &CosimArgs,
    configs: &[(String, BlockParams)],
    modes: &[Mode],
    seeds: &std::ops::RangeInclusive<u64>,
    directed: &[String],
) -> Result<Vec<Job>> {
    if seed_count(seeds) > MAX_SEEDS {
        bail!(
            "--seeds {}..={}: {} seeds, more than the {MAX_SEEDS} one run takes; split the range over runs",
            seeds.start(),
            seeds.end(),
            seed_count(seeds)
        );
    }
    let mut js = jobs(configs, modes, seeds.clone(), a.cycles, directed);
    let total_jobs = js.len();
    if let Some(sh) = &a.shard {
        let (k, n) = parse_shard(sh)?;
        js = shard(js, k, n);
    }
    let names = || {
        configs
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    if js.is_empty() {
        // a regression that runs nothing must not pass
        bail!(
            "no job selected: configs {}, algo {}, {} seed(s), directed '{}'{} give 0 of {total_jobs} jobs",
            names(),
            a.algo,
            seed_count(seeds),
            a.directed,
            a.shard.as_ref().map(|s| format!(", shard {s}")).unwrap_or_default()
        );
    }
    eprintln!(
        "cosim: {} of {total_jobs} jobs; configs {}; algo {}; seeds {}..={} x {} cycles; directed {}{}",
        js.len(),
        names(),
        a.algo,
        seeds.start(),
        seeds.end(),
        a.cycles,
        a.directed,
        a.shard.as_ref().map(|s| format!("; shard {s}")).unwrap_or_default()
    );
    Ok(js)
}

/// What the jobs of a run gave.
struct Tally {
    passed: u64,
    failed: u64,
    /// Cycles run in lockstep (a failed job's up to its mismatch).
    cycles: u64,
    /// Cycles after which every RAM word was compared.
    full: u64,
    cov: Coverage,
    failures: Vec<String>,
}

/// Runs `js` in order under a progress bar, each failure on stderr as it comes.
fn run_jobs(js: &[Job], opts: &RunOpts) -> Tally {
    let pb = indicatif::ProgressBar::new(js.len() as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} jobs {elapsed} {msg}")
            .unwrap(),
    );
    let mut t = Tally {
        passed: 0,
        failed: 0,
        cycles: 0,
        full: 0,
        cov: Coverage::new(),
        failures: vec![],
    };
    for j in js {
        pb.set_message(j.label());
        match run_job(j, opts) {
            Ok(r) => {
                t.passed += 1;
                t.cycles += r.cycles;
                t.full += r.full_compares;
                t.cov.merge(&r.coverage);
            }
            Err(f) => {
                t.failed += 1;
                pb.suspend(|| eprintln!("{f}"));
                if let Failure::Mismatch(m) = &f {
                    t.cycles += m.cycle + 1;
                }
                t.failures.push(f.to_string());
            }
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    t
}

/// The summary on standard output: coverage and counts, or JSON with `--json`.
fn print_summary(a: &CosimArgs, jobs: usize, t: &Tally, secs: f64) -> Result<()> {
    let (passed, failed, cycles, full) = (t.passed, t.failed, t.cycles, t.full);
    if a.json {
        let v = serde_json::json!({
            "jobs": jobs, "passed": passed, "failed": failed, "cycles": cycles,
            "full_compares": full, "seconds": secs, "coverage": t.cov.to_json(), "failures": t.failures,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", t.cov.report());
        println!(
            "cosim: {cycles} cycles in lockstep in {secs:.1} s ({:.0} cycles/s)",
            cycles as f64 / secs.max(1e-9)
        );
        println!(
            "cosim: every RAM word compared after {full} of them (the first of each job, and \
             those whose RAM writes differed), the writes after every one"
        );
        println!("cosim: {passed} passed, {failed} failed");
    }
    Ok(())
}
