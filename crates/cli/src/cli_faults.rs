//! `capfc faults`: the kill matrix of the block's fault catalogue (see [`crate::faults`]).

use crate::faults::{matrix, render, Plan};
use crate::v3::fault::Fault;
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FaultsArgs {
    /// Only these faults (repeatable); default: the whole catalogue.
    #[arg(long = "fault")]
    pub faults: Vec<Fault>,
    /// List the catalogue (name, unit, rule) and stop.
    #[arg(long)]
    pub list: bool,
    /// Random runs for the lockstep: seeds 2..=N+1 at 4 ports, in both algorithms.
    #[arg(long, default_value_t = 4)]
    pub seeds: u64,
    /// Cycles of each random run.
    #[arg(long, default_value_t = 3000)]
    pub cycles: u64,
    /// Stop at the first catch of each kind (faster; the counts then say 1/1).
    #[arg(long)]
    pub first: bool,
    /// The Verilog testbench that replays each fault's first catching golden set: icarus,
    /// verilator or none.
    #[arg(long, default_value = "icarus")]
    pub verilog: String,
    /// Where the faulty golden sets are written.
    #[arg(long, default_value = "build/faults")]
    pub out: PathBuf,
    /// Faults checked at once.
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
}

/// Runs the matrix; false when a fault went unkilled.
pub fn run(a: &FaultsArgs) -> Result<bool> {
    if a.list {
        for f in Fault::ALL {
            println!("{:<30} {:<15} {}", f.name(), f.unit(), f.rule());
        }
        return Ok(true);
    }
    let faults: Vec<Fault> = if a.faults.is_empty() {
        Fault::ALL.to_vec()
    } else {
        a.faults.clone()
    };
    let verilog = match a.verilog.as_str() {
        "none" => None,
        s @ ("icarus" | "verilator") => Some(s.to_string()),
        s => bail!("--verilog {s}: use icarus, verilator or none"),
    };
    let mut plan = Plan::standard(a.seeds, a.cycles).map_err(anyhow::Error::msg)?;
    plan.first_only = a.first;
    plan.verilog = verilog;
    std::fs::create_dir_all(&a.out)?;
    println!(
        "capfc faults: {} faults of the block (v3); {} lockstep runs (the golden sets' stimulus at \
         built parameters, random seeds 2..={} at 4 ports, {} cycles), {} golden sets{}",
        faults.len(),
        plan.lockstep.len(),
        a.seeds + 1,
        a.cycles,
        plan.golden.len(),
        plan.verilog
            .as_ref()
            .map(|s| format!(", first golden catch replayed on the {s} testbench"))
            .unwrap_or_default()
    );
    let rows = matrix(&faults, &plan, &a.out, a.jobs).map_err(anyhow::Error::msg)?;
    print!("{}", render(&rows, &plan));
    Ok(rows.iter().all(|r| r.killed(&plan)))
}
