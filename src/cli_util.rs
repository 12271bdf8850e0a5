//! Command-line values shared by several commands: seed ranges and shards.

use anyhow::{bail, Context, Result};

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
