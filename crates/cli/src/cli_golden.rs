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
    /// Replay sets against the Verilated RTL from Rust.
    Replay {
        /// Set directories (default: every set under golden/).
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
    #[arg(long, default_value_t = 2000)]
    pub cycles: u64,
    /// Parameter set (see `capfc cosim --list`).
    #[arg(long, default_value = "np8")]
    pub config: String,
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

fn gen(a: &GenArgs) -> Result<()> {
    if a.directed.is_some() || a.seed.is_some() {
        let out = a
            .out
            .as_ref()
            .context("--out DIR is needed with --directed or --seed")?;
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
                cycles: a.cycles,
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
    let sets = if sets.is_empty() {
        golden::list_sets(Path::new("golden"))
    } else {
        sets.to_vec()
    };
    if sets.is_empty() {
        bail!("no golden sets given and none under golden/");
    }
    let mut ok = true;
    for s in &sets {
        let g = golden::read(s).map_err(anyhow::Error::msg)?;
        let r = golden::replay(&g)?;
        for m in r.mismatches.iter().take(50) {
            eprintln!("{}: {m}", s.display());
        }
        println!("{}: {} passed, {} failed", s.display(), r.passed, r.failed);
        ok &= r.failed == 0;
    }
    Ok(ok)
}

#[cfg(not(feature = "rtl"))]
fn replay(_: &[PathBuf]) -> Result<bool> {
    bail!("golden replay needs the Verilated RTL: build with the `rtl` feature")
}
