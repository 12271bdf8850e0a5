//! Command-line values shared by several commands: seed ranges and shards.

use anyhow::{bail, Context, Result};

/// `--config`: `all` of the `built` parameter sets, or names of them, comma-separated; a name not
/// built is refused with the built ones and `env`, the variable that builds more.
pub fn select_configs(
    spec: &str,
    built: &[(String, capfc::block::BlockParams)],
    env: &str,
) -> Result<Vec<(String, capfc::block::BlockParams)>> {
    if spec == "all" {
        return Ok(built.to_vec());
    }
    spec.split(',')
        .map(|n| {
            built
                .iter()
                .find(|(b, _)| b == n)
                .cloned()
                .with_context(|| {
                    let names: Vec<&str> = built.iter().map(|(n, _)| n.as_str()).collect();
                    format!(
                        "--config '{n}': not built (built: {}; more with {env})",
                        names.join(", ")
                    )
                })
        })
        .collect()
}

/// `--seeds`: `A..B`, `A..=B` or a count N (seeds 1..=N).
pub fn parse_seeds(s: &str) -> Result<std::ops::RangeInclusive<u64>> {
    let bad = || format!("--seeds '{s}': expected A..B, A..=B or a count N (u64 seeds)");
    let empty = || anyhow::anyhow!("--seeds '{s}': the range selects no seed");
    if let Some((a, b)) = s.split_once("..=") {
        let (a, b): (u64, u64) = (a.parse().with_context(bad)?, b.parse().with_context(bad)?);
        return if a <= b { Ok(a..=b) } else { Err(empty()) };
    }
    if let Some((a, b)) = s.split_once("..") {
        let (a, b): (u64, u64) = (a.parse().with_context(bad)?, b.parse().with_context(bad)?);
        return if a < b { Ok(a..=b - 1) } else { Err(empty()) };
    }
    let n: u64 = s.parse().with_context(bad)?;
    if n == 0 {
        return Err(empty());
    }
    Ok(1..=n)
}

/// `--shard K/N`: (K, N) with 1 <= K <= N; job j of a list runs when j mod N = K - 1.
pub fn parse_shard(sh: &str) -> Result<(usize, usize)> {
    let bad = || format!("--shard '{sh}': expected K/N with 1 <= K <= N");
    let (k, n) = sh.split_once('/').with_context(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().with_context(bad)?,
        n.trim().parse().with_context(bad)?,
    );
    if k == 0 || n == 0 || k > n {
        bail!(bad());
    }
    Ok((k, n))
}

/// `--scenario` of an event-driven mode family (FECN, QCN) must be a TOML scenario file.
pub fn want_toml_scenario(scenario: &str, family: &str, files: &str) -> Result<()> {
    if !scenario.ends_with(".toml") {
        bail!("--scenario '{scenario}': the {family} modes take {files}");
    }
    Ok(())
}

/// The seeds of a run: `--seeds` if given, else the scenario's own; at most 1,000.
pub fn seed_list(
    seeds: Option<&std::ops::RangeInclusive<u64>>,
    scenario_seed: u64,
    family: &str,
) -> Result<Vec<u64>> {
    let v: Vec<u64> = seeds.map_or_else(|| vec![scenario_seed], |r| r.clone().collect());
    if v.len() > 1000 {
        bail!("--seeds: more than 1000 seeds in one {family} run");
    }
    Ok(v)
}

/// A run's name in output file names: its mode, and its seed in a sweep of several seeds.
pub fn run_label(mode: &str, seed: u64, sweep: bool) -> String {
    if sweep {
        format!("{mode}_seed{seed}")
    } else {
        mode.to_string()
    }
}

/// The file stem of a scenario path (`scenarios/qcn-t1-non.toml` gives `qcn-t1-non`).
pub fn scenario_stem(scenario: &str, default: &str) -> String {
    std::path::Path::new(scenario)
        .file_stem()
        .map_or(default.into(), |s| s.to_string_lossy().into_owned())
}

/// Write `{stem}_{label}_{kind}.csv` into `dir` for each (kind, text).
pub fn write_csvs(
    dir: &std::path::Path,
    stem: &str,
    label: &str,
    files: &[(&str, String)],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("--csv {}", dir.display()))?;
    for (kind, text) in files {
        let p = dir.join(format!("{stem}_{label}_{kind}.csv"));
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}
