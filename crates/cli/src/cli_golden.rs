//! `capfc golden`: generate, check and replay golden vector sets (`docs/golden.md`).

use crate::block::{BlockParams, Mode};
use crate::golden::{self, Curated, Source};
use crate::golden_v3;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct GoldenArgs {
    #[command(subcommand)]
    pub cmd: GoldenCmd,
}

#[derive(Subcommand, Debug)]
pub enum GoldenCmd {
    /// List the curated sets.
    List,
    /// Write sets: the curated ones (all, or --set NAME), or one from --directed/--seed into --out.
    Gen(GenArgs),
    /// Regenerate every set under DIR in memory and fail on any difference (stale vectors).
    Check {
        #[arg(long, default_value = "golden")]
        dir: PathBuf,
    },
    /// Replay sets against the Verilated RTL from Rust: the block's (format 3, its RTL alone
    /// driven by stim.hex and its outputs compared with expect.hex) and v2's (format 2).
    Replay {
        /// Set directories (default: every set under golden/v3 and golden/).
        sets: Vec<PathBuf>,
    },
}

#[derive(Args, Debug)]
pub struct GenArgs {
    /// Curated set names (repeatable); default: every curated set.
    #[arg(long = "set")]
    pub sets: Vec<String>,
    /// Directory of the curated collection.
    #[arg(long, default_value = "golden")]
    pub dir: PathBuf,
    /// A directed case instead of a curated set (with --config, --algo, --out).
    #[arg(long)]
    pub directed: Option<String>,
    /// A random run instead of a curated set (with --cycles, --config, --algo, --out).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Cycles of a --seed run (the reset and the configuration included) [default: 4000 at the
    /// block's parameter sets, whose random sets must show every corner their traffic is named
    /// for; 2000 at v2's]
    #[arg(long)]
    pub cycles: Option<u64>,
    /// Parameter set: the block's (`v3_np4`, `v3_np8`, ...: crates/block/src/v3/rtl_configs.rs;
    /// its sets take NL 2), whose sets are the v3 block's (format 3), or v2's (`np4`, `np8`, ...),
    /// whose sets are the previous block's (format 2).
    #[arg(long, default_value = "v3_np8")]
    pub config: String,
    /// With --seed on the block: the contention traffic (two hot output ports on one sort engine,
    /// clears meeting sorts).
    #[arg(long)]
    pub contention: bool,
    /// max or cal.
    #[arg(long, default_value = "cal")]
    pub algo: String,
    /// With --seed: every configuration register (the mode with the run's code) is written once,
    /// in consecutive cycles from the first after the reset; then 16 + ceil(NP/8) cycles with
    /// neither a write nor a lane; then the traffic, with no write of any kind and no reset to the
    /// end. The set also gets config.toml: that configuration as a map's [config.values] and the
    /// cycle the lanes start from, for a block configured statically (docs/design-space.md).
    #[arg(long)]
    pub steady: bool,
    /// Output directory of a --directed or --seed set.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn params(name: &str) -> Result<BlockParams> {
    crate::block::rtl_configs::RTL_CONFIGS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| BlockParams::from_values(v))
        .with_context(|| format!("--config '{name}': no such parameter set"))
}

fn mode(a: &str) -> Result<Mode> {
    match a {
        "max" => Ok(Mode::StopMax),
        "cal" => Ok(Mode::StopCal),
        "pfc" => Ok(Mode::PfcOnly),
        o => bail!("--algo '{o}': expected max, cal or pfc"),
    }
}

/// A set of the block (v3) from --directed or --seed, into `out`.
fn gen_v3(a: &GenArgs, p: &BlockParams, out: &Path) -> Result<()> {
    let m = match a.algo.as_str() {
        "max" => Mode::StopMax,
        "cal" => Mode::StopCal,
        o => bail!("--algo '{o}': expected max or cal"),
    };
    let src = match (&a.directed, a.seed) {
        (Some(_), Some(_)) => bail!("--directed and --seed: choose one"),
        (Some(d), None) => {
            if !golden_v3::DIRECTED_V3.contains(&d.as_str()) {
                bail!(
                    "--directed '{d}': not a directed case of the block (cases: {})",
                    golden_v3::DIRECTED_V3.join(", ")
                );
            }
            golden_v3::SourceV3::Directed {
                case: d.clone(),
                mode: m,
            }
        }
        (None, Some(s)) => golden_v3::SourceV3::Random {
            seed: s,
            cycles: a.cycles.unwrap_or(4000),
            mode: m,
            contention: a.contention,
            stray: !p.np.is_power_of_two(),
            steady: a.steady,
        },
        (None, None) => bail!("--directed or --seed"),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let f = match golden_v3::build(&name, p, &src) {
        Err(e @ golden_v3::GoldenV3Error::Corner { .. }) if a.seed.is_some() => bail!(
            "{e}\n(a random set is written only if its traffic showed every corner it must: \
             give it more --cycles, or another --seed)"
        ),
        r => r.map_err(anyhow::Error::msg)?,
    };
    golden_v3::write(out, &f).with_context(|| out.display().to_string())?;
    eprintln!("golden: wrote {} (the block's, format 3)", out.display());
    Ok(())
}

fn gen(a: &GenArgs) -> Result<()> {
    if a.steady && a.seed.is_none() {
        bail!("--steady: a random set's option (with --seed N)");
    }
    if a.directed.is_some() || a.seed.is_some() {
        let out = a
            .out
            .as_ref()
            .context("--out DIR is needed with --directed or --seed")?;
        if let Some(p) = crate::v3::rtl_configs::V3_RTL_CONFIGS
            .iter()
            .find(|(n, _)| *n == a.config)
            .map(|(_, v)| BlockParams::from_values(v))
        {
            return gen_v3(a, &p, out);
        }
        if a.contention {
            bail!("--contention: a set of the block's parameter sets only (v3_np4, v3_np8, ...)");
        }
        let p = params(&a.config)?;
        let m = mode(&a.algo)?;
        let src = match (&a.directed, a.seed) {
            (Some(_), Some(_)) => bail!("--directed and --seed: choose one"),
            (Some(d), None) => Source::Directed {
                case: d.clone(),
                mode: m,
            },
            (None, Some(s)) => Source::Random {
                seed: s,
                cycles: a.cycles.unwrap_or(2000),
                mode: m,
                steady: a.steady,
            },
            (None, None) => unreachable!(),
        };
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let f = golden::build(&name, &p, &src).map_err(anyhow::Error::msg)?;
        golden::write(out, &f).with_context(|| out.display().to_string())?;
        eprintln!("golden: wrote {}", out.display());
        return Ok(());
    }
    let all = golden::curated();
    let all_v3 = golden_v3::curated();
    let v3_name = |c: &golden_v3::CuratedV3| format!("v3/{}", c.name);
    for n in &a.sets {
        if !all.iter().any(|c| &c.name == n) && !all_v3.iter().any(|c| &v3_name(c) == n) {
            bail!("--set '{n}': not a curated set (see `capfc golden list`)");
        }
    }
    let chosen: Vec<&Curated> = all
        .iter()
        .filter(|c| a.sets.is_empty() || a.sets.contains(&c.name))
        .collect();
    for c in all_v3
        .iter()
        .filter(|c| a.sets.is_empty() || a.sets.contains(&v3_name(c)))
    {
        let f = golden_v3::build(&c.name, &c.params, &c.source).map_err(anyhow::Error::msg)?;
        let dir = a.dir.join("v3").join(&c.name);
        golden_v3::write(&dir, &f).with_context(|| dir.display().to_string())?;
        eprintln!(
            "golden: wrote {} ({} KiB)",
            dir.display(),
            (f.stim.len() + f.expect.len()) / 1024
        );
    }
    let pb = indicatif::ProgressBar::new(chosen.len() as u64);
    for c in chosen {
        pb.set_message(c.name.clone());
        let f = golden::build_curated(c).map_err(anyhow::Error::msg)?;
        let dir = a.dir.join(&c.name);
        golden::write(&dir, &f).with_context(|| dir.display().to_string())?;
        pb.suspend(|| {
            eprintln!(
                "golden: wrote {} ({} KiB)",
                dir.display(),
                (f.stim.len() + f.expect.len()) / 1024
            )
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(())
}

/// A failure for each curated set (`names`) that `sets`, the sets found under `dir`, lack.
fn missing<'a>(
    dir: &Path,
    sets: &[PathBuf],
    names: impl Iterator<Item = &'a String>,
    failures: &mut Vec<String>,
) {
    for name in names {
        if !sets
            .iter()
            .any(|s| s.file_name().is_some_and(|n| n == name.as_str()))
        {
            failures.push(format!(
                "{}: curated set missing (run `capfc golden gen`)",
                dir.join(name).display()
            ));
        }
    }
}

/// Check every set under `dir`: each parses, matches its hashes and regenerates identically, and
/// every curated set is present. Returns (passed, failed).
pub fn check(dir: &Path) -> (usize, Vec<String>) {
    let mut failures = vec![];
    let mut passed = 0;
    let sets = golden::list_sets(dir);
    missing(
        dir,
        &sets,
        golden::curated().iter().map(|c| &c.name),
        &mut failures,
    );
    for s in &sets {
        match golden::read(s)
            .and_then(|g| golden::regenerate(&g))
            .map_err(|e| e.to_string())
        {
            Ok(()) => passed += 1,
            Err(e) => failures.push(e),
        }
    }
    // the v3 block's sets (format 3), under DIR/v3
    let v3 = dir.join("v3");
    let sets = golden::list_sets(&v3);
    missing(
        &v3,
        &sets,
        golden_v3::curated().iter().map(|c| &c.name),
        &mut failures,
    );
    for s in &sets {
        match golden_v3::check(s) {
            Ok(_) => passed += 1,
            Err(e) => failures.push(e.to_string()),
        }
    }
    (passed, failures)
}

pub fn run(a: &GoldenArgs) -> Result<bool> {
    match &a.cmd {
        GoldenCmd::List => {
            for c in golden::curated() {
                println!("{:<36} {:<10} {:?}", c.name, c.rtl_config, c.source);
            }
            for c in golden_v3::curated() {
                let name = format!("v3/{}", c.name);
                println!("{name:<36} np{:<8} {:?}", c.params.np, c.source);
            }
            Ok(true)
        }
        GoldenCmd::Gen(g) => gen(g).map(|_| true),
        GoldenCmd::Check { dir } => {
            let (passed, failures) = check(dir);
            for f in &failures {
                eprintln!("{f}");
            }
            println!("golden check: {passed} passed, {} failed", failures.len());
            Ok(failures.is_empty())
        }
        GoldenCmd::Replay { sets } => replay(sets),
    }
}

#[cfg(feature = "rtl")]
fn replay(sets: &[PathBuf]) -> Result<bool> {
    // (every set by default: those whose parameters have no Verilated block are named and left
    // out; a set named on the command line must replay)
    let all = sets.is_empty();
    let sets = if all {
        let mut v = golden::list_sets(Path::new("golden/v3"));
        v.extend(golden::list_sets(Path::new("golden")));
        v
    } else {
        sets.to_vec()
    };
    let built = capfc::dut_v3::available();
    let (mut replayed, mut left_out) = (0, vec![]);
    if sets.is_empty() {
        bail!("no golden sets given and none under golden/");
    }
    let mut ok = true;
    for s in &sets {
        let format = std::fs::read_to_string(s.join("manifest.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("format").and_then(serde_json::Value::as_u64));
        if format == Some(3) {
            if all {
                let m = capfc::golden_v3::check(s).map_err(anyhow::Error::msg)?;
                if !built.iter().any(|(_, p)| *p == m.params) {
                    left_out.push(s.display().to_string());
                    continue;
                }
            }
            let r = capfc::soak_v3::replay_set(s)?;
            replayed += 1;
            match &r.first {
                None => println!(
                    "{}: {} cycles, {} lines of expect.hex, every one given by the RTL",
                    s.display(),
                    r.cycles,
                    r.lines
                ),
                Some((line, want, got)) => {
                    ok = false;
                    println!(
                        "{}: FAILED at line {line} of expect.hex: the set has {want}, the RTL gives {got}",
                        s.display()
                    );
                }
            }
            continue;
        }
        let g = golden::read(s).map_err(anyhow::Error::msg)?;
        let r = golden::replay(&g)?;
        replayed += 1;
        for m in r.mismatches.iter().take(50) {
            eprintln!("{}: {m}", s.display());
        }
        println!("{}: {} passed, {} failed", s.display(), r.passed, r.failed);
        ok &= r.failed == 0;
    }
    if !left_out.is_empty() {
        eprintln!(
            "golden replay: {} set(s) left out, their parameters' block not built (CAPFC_V3_CONFIGS=all cargo build): {}",
            left_out.len(),
            left_out.join(", ")
        );
    }
    if replayed == 0 {
        bail!("no set replayed");
    }
    println!("golden replay: {replayed} set(s) replayed");
    Ok(ok)
}

#[cfg(not(feature = "rtl"))]
fn replay(_: &[PathBuf]) -> Result<bool> {
    bail!("golden replay needs the Verilated RTL: build with the `rtl` feature")
}
