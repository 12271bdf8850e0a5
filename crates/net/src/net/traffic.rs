//! Traffic from a flow-size distribution: HPCC's CDF files (`size percentile` lines, as HPCC's
//! traffic generator reads them) and a seeded Poisson generator of flows that writes HPCC's
//! `flow.txt`.
//!
//! A CDF file has one `size percentile` pair a line (bytes, 0 to 100), sizes and percentiles
//! never decreasing, the last percentile 100; between two points the size is interpolated
//! linearly, as HPCC's generator does. Blank lines and `#` comments are skipped.
//!
//! The generator gives every host an independent Poisson stream of flows (exponential
//! inter-arrival times), each to a destination drawn uniformly among the other hosts, with a size
//! drawn from the CDF; the mean inter-arrival time is `mean size × 8 / (host link rate × load)`,
//! so each host offers `load` of its link on average. Everything comes from one ChaCha8 stream
//! seeded with `seed`: the same seed gives the same flows.

use super::topology::{NetFlow, TopoError, Topology};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The flow sizes of `capfc net` without --flows or --cdf: 1 KB to 1 MB, mean about 95 KB.
pub const DEFAULT_CDF: &str = "# capfc net's default flow sizes\n1000 0\n1000 20\n10000 50\n50000 75\n200000 90\n1000000 100\n";

/// A flow-size distribution: (bytes, cumulative percent) points.
#[derive(Debug, Clone, PartialEq)]
pub struct Cdf {
    pub points: Vec<(f64, f64)>,
}

impl Cdf {
    /// Read a CDF file; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Cdf, TopoError> {
        let err = super::topology::error_of(file);
        let mut points: Vec<(f64, f64)> = vec![];
        let mut last_line = 0;
        for (i, l) in text.lines().enumerate() {
            let ln = i + 1;
            let l = l.split('#').next().unwrap_or("");
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            if f.len() != 2 {
                return Err(err(
                    ln,
                    "size percentile",
                    format!("expected two numbers, found {}", f.len()),
                ));
            }
            let size: f64 = f[0]
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 1.0 && *s < 1e13)
                .ok_or_else(|| err(ln, "size", format!("'{}' is not a size in bytes", f[0])))?;
            let pct: f64 = f[1]
                .parse()
                .ok()
                .filter(|p: &f64| (0.0..=100.0).contains(p))
                .ok_or_else(|| {
                    err(
                        ln,
                        "percentile",
                        format!("'{}' is not a percentile 0..=100", f[1]),
                    )
                })?;
            if let Some(&(s0, p0)) = points.last() {
                if size < s0 {
                    return Err(err(
                        ln,
                        "size",
                        format!("{size} after {s0}: sizes never decrease"),
                    ));
                }
                if pct < p0 {
                    return Err(err(
                        ln,
                        "percentile",
                        format!("{pct} after {p0}: percentiles never decrease"),
                    ));
                }
            }
            points.push((size, pct));
            last_line = ln;
        }
        match points.last() {
            None => Err(err(0, "size percentile", "no point in the file".into())),
            Some(&(_, p)) if p != 100.0 => Err(err(
                last_line,
                "percentile",
                format!("the last percentile is {p}, not 100"),
            )),
            _ => Ok(Cdf { points }),
        }
    }

    /// The size at cumulative percent `u` (0..=100), linear between points.
    pub fn size_at(&self, u: f64) -> f64 {
        let p = &self.points;
        if u <= p[0].1 {
            return p[0].0;
        }
        for w in p.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            if u <= p1 {
                return if p1 > p0 {
                    s0 + (s1 - s0) * (u - p0) / (p1 - p0)
                } else {
                    s1
                };
            }
        }
        p[p.len() - 1].0
    }

    /// The mean size (the distribution is uniform between two points).
    pub fn mean(&self) -> f64 {
        let p = &self.points;
        let mut m = p[0].0 * p[0].1 / 100.0;
        for w in p.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            m += (s0 + s1) / 2.0 * (p1 - p0) / 100.0;
        }
        m
    }
}

/// Traffic that cannot be generated on a topology.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrafficError {
    #[error("load {0}: a fraction in (0, 1]")]
    Load(f64),
    #[error("the topology needs two hosts")]
    Hosts,
    #[error("more than 5*10^7 flows: shorten the duration or the load")]
    TooMany,
}

/// Poisson flows on `topo`'s hosts over `duration_ns` at `load` of each host's link, priority
/// `prio`, destination port 100 (HPCC's), seeded with `seed`; sorted by start time (HPCC's rule).
pub fn poisson_flows(
    topo: &Topology,
    cdf: &Cdf,
    load: f64,
    duration_ns: u64,
    seed: u64,
    prio: u8,
) -> Result<Vec<NetFlow>, TrafficError> {
    if !(load > 0.0 && load <= 1.0) {
        return Err(TrafficError::Load(load));
    }
    let hosts: Vec<usize> = topo.hosts().collect();
    if hosts.len() < 2 {
        return Err(TrafficError::Hosts);
    }
    let ports = topo.ports();
    let rate_of = |h: usize| {
        topo.links
            .iter()
            .find(|l| l.a == h || l.b == h)
            .map_or(0, |l| l.rate_bps)
    };
    let mean = cdf.mean();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut flows = vec![];
    for &h in &hosts {
        debug_assert!(!ports[h].is_empty());
        let gap_ns = mean * 8.0 / (rate_of(h) as f64 * load) * 1e9;
        let mut t = 0.0f64;
        loop {
            let u: f64 = rng.gen_range(f64::EPSILON..1.0);
            t += -u.ln() * gap_ns;
            if t >= duration_ns as f64 {
                break;
            }
            let d = loop {
                let d = hosts[rng.gen_range(0..hosts.len())];
                if d != h {
                    break d;
                }
            };
            let size = cdf.size_at(rng.gen_range(0.0..100.0)).round().max(1.0) as u64;
            flows.push(NetFlow {
                src: h,
                dst: d,
                prio,
                dport: 100,
                size,
                start_ns: t as u64,
            });
            if flows.len() > 50_000_000 {
                return Err(TrafficError::TooMany);
            }
        }
    }
    flows.sort_by_key(|f| (f.start_ns, f.src));
    Ok(flows)
}

/// HPCC's `flow.txt` of `flows` (start times in seconds, nine decimals: whole nanoseconds).
pub fn flows_to_hpcc(flows: &[NetFlow]) -> String {
    let mut s = format!("{}\n", flows.len());
    for f in flows {
        s += &format!(
            "{} {} {} {} {} {}.{:09}\n",
            f.src,
            f.dst,
            f.prio,
            f.dport,
            f.size,
            f.start_ns / 1_000_000_000,
            f.start_ns % 1_000_000_000
        );
    }
    s
}
