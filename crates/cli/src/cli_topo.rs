//! `capfc topo`: generate a topology in HPCC's `topology.txt` format, or check one (and a
//! `flow.txt` against it).

use crate::net::topology::{parse_delay, parse_hpcc_flows, parse_rate, NodeKind, Topology};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TopoArgs {
    #[command(subcommand)]
    pub cmd: TopoCmd,
}

#[derive(Subcommand, Debug)]
pub enum TopoCmd {
    /// Write a generated topology in HPCC's topology.txt format (standard output, or --out).
    Gen(GenArgs),
    /// Read a topology.txt (and a flow.txt against it) and summarise it, or say what is wrong.
    Check(CheckArgs),
    /// Draw Poisson flows from a flow-size CDF file onto a topology's hosts: HPCC's flow.txt.
    Flows(FlowsArgs),
}

#[derive(Args, Debug)]
pub struct FlowsArgs {
    /// HPCC's topology.txt whose hosts send and receive.
    #[arg(long)]
    pub topology: PathBuf,
    /// Flow sizes: a CDF file of `size percentile` lines (HPCC's traffic generator's format).
    #[arg(long)]
    pub cdf: PathBuf,
    /// Offered load of each host's link, a fraction in (0, 1].
    #[arg(long, default_value_t = 0.5)]
    pub load: f64,
    /// How long the flows arrive, e.g. 10ms, 100us.
    #[arg(long, default_value = "10ms")]
    pub duration: String,
    /// Seed of the draw (printed; the same seed gives the same file).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Priority (HPCC's pg) of every flow.
    #[arg(long, default_value_t = 3)]
    pub prio: u8,
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct GenArgs {
    /// fat-tree (a k-ary fat tree), leaf-spine, or paper (the paper's 128-server fat tree, 4:1).
    pub kind: String,
    /// fat-tree: the switches' port count (even, 2..=64).
    #[arg(long, default_value_t = 8)]
    pub k: usize,
    /// leaf-spine: leaves, spines and hosts per leaf.
    #[arg(long, default_value_t = 4)]
    pub leaves: usize,
    #[arg(long, default_value_t = 2)]
    pub spines: usize,
    #[arg(long, default_value_t = 8)]
    pub hosts_per_leaf: usize,
    /// Link rate (host links; every link of a fat tree).
    #[arg(long, default_value = "1Gbps")]
    pub rate: String,
    /// leaf-spine: rate of the leaf-spine links (default: --rate).
    #[arg(long)]
    pub fabric_rate: Option<String>,
    /// Propagation delay of every link.
    #[arg(long, default_value = "1000ns")]
    pub delay: String,
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// HPCC's topology.txt.
    pub topology: PathBuf,
    /// HPCC's flow.txt, checked against the topology.
    #[arg(long)]
    pub flows: Option<PathBuf>,
}

pub fn run(a: &TopoArgs) -> Result<()> {
    match &a.cmd {
        TopoCmd::Gen(g) => gen(g),
        TopoCmd::Check(c) => check(c),
        TopoCmd::Flows(f) => flows(f),
    }
}

fn flows(a: &FlowsArgs) -> Result<()> {
    use crate::net::traffic::{flows_to_hpcc, poisson_flows, Cdf};
    let tname = a.topology.display().to_string();
    let t = Topology::parse_hpcc(
        &std::fs::read_to_string(&a.topology).with_context(|| tname.clone())?,
        &tname,
    )?;
    let cname = a.cdf.display().to_string();
    let cdf = Cdf::parse(
        &std::fs::read_to_string(&a.cdf).with_context(|| cname.clone())?,
        &cname,
    )?;
    let dur = parse_delay(&a.duration)
        .with_context(|| format!("--duration '{}': not a time (e.g. 10ms)", a.duration))?;
    if a.prio > 7 {
        bail!("--prio {}: a priority 0..=7", a.prio);
    }
    let f = poisson_flows(&t, &cdf, a.load, dur, a.seed, a.prio).map_err(anyhow::Error::msg)?;
    eprintln!(
        "topo flows: seed {}, {} flows, mean size {:.0} B (the CDF's {:.0} B), load {} over {} ns",
        a.seed,
        f.len(),
        f.iter().map(|x| x.size as f64).sum::<f64>() / f.len().max(1) as f64,
        cdf.mean(),
        a.load,
        dur
    );
    let text = flows_to_hpcc(&f);
    match &a.out {
        Some(p) => std::fs::write(p, text).with_context(|| format!("--out {}", p.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

fn gen(g: &GenArgs) -> Result<()> {
    let rate = parse_rate(&g.rate).with_context(|| format!("--rate '{}': not a rate", g.rate))?;
    let delay =
        parse_delay(&g.delay).with_context(|| format!("--delay '{}': not a delay", g.delay))?;
    let t = match g.kind.as_str() {
        "fat-tree" => Topology::fat_tree(g.k, rate, delay).map_err(anyhow::Error::msg)?,
        "leaf-spine" => {
            let fabric = match &g.fabric_rate {
                Some(f) => {
                    parse_rate(f).with_context(|| format!("--fabric-rate '{f}': not a rate"))?
                }
                None => rate,
            };
            Topology::leaf_spine(g.leaves, g.spines, g.hosts_per_leaf, rate, fabric, delay)
                .map_err(anyhow::Error::msg)?
        }
        "paper" => Topology::paper_fat_tree(delay),
        k => bail!("'{k}': expected fat-tree, leaf-spine or paper"),
    };
    let text = t.to_hpcc();
    match &g.out {
        Some(p) => std::fs::write(p, text).with_context(|| format!("--out {}", p.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

fn check(c: &CheckArgs) -> Result<()> {
    let name = c.topology.display().to_string();
    let text = std::fs::read_to_string(&c.topology).with_context(|| name.clone())?;
    let t = Topology::parse_hpcc(&text, &name)?;
    let ports = t.ports();
    let radix = t.switches().map(|s| ports[s].len()).max().unwrap_or(0);
    let mut rates: Vec<u64> = t.links.iter().map(|l| l.rate_bps).collect();
    rates.sort_unstable();
    rates.dedup();
    println!(
        "{name}: {} hosts, {} switches (up to {radix} ports), {} links; rates {} bps",
        t.hosts().count(),
        t.switches().count(),
        t.links.len(),
        rates
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let multi = t
        .hosts()
        .filter(|&h| ports[h].iter().any(|&p| t.nodes[p] == NodeKind::Host) || ports[h].len() > 1)
        .count();
    if multi > 0 {
        println!("{name}: note: {multi} hosts have more than one link or a link to a host");
    }
    if let Some(f) = &c.flows {
        let fname = f.display().to_string();
        let ftext = std::fs::read_to_string(f).with_context(|| fname.clone())?;
        let (flows, rest) = parse_hpcc_flows(&ftext, &fname, &t)?;
        let bytes: u64 = flows.iter().map(|f| f.size).sum();
        println!(
            "{fname}: {} flows, {bytes} bytes, starting {} ns to {} ns",
            flows.len(),
            flows.first().map_or(0, |f| f.start_ns),
            flows.last().map_or(0, |f| f.start_ns)
        );
        if rest > 0 {
            println!("{fname}: {rest} lines after the {} flows flow_num declares were not read (HPCC reads only those)", flows.len());
        }
    }
    Ok(())
}
