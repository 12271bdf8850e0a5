//! `capfc faults`: the kill matrix of the fault catalogue (see [`crate::faults`]).

use crate::block::Fault;
use crate::faults::{matrix, render, Plan};
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
    /// Random seeds 1..=N per parameter set and algorithm.
    #[arg(long, default_value_t = 4)]
    pub seeds: u64,
    /// Cycles of each random job.
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

/// Runs the matrix; false when a fault went uncaught.
pub fn run(a: &FaultsArgs) -> Result<bool> {
    if a.list {
        for f in Fault::ALL {
            println!("{:<24} {:<10} {}", f.name(), f.unit(), f.rule());
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
    let mut plan = Plan::standard(a.seeds, a.cycles);
    plan.first_only = a.first;
    plan.verilog = verilog;
    std::fs::create_dir_all(&a.out)?;
    println!(
        "capfc faults: {} faults; {} directed jobs, {} random jobs (seeds 1..={}, {} cycles), {} golden sets{}",
        faults.len(),
        plan.directed.len(),
        plan.random.len(),
        a.seeds,
        a.cycles,
        plan.golden.len(),
        plan.verilog
            .as_ref()
            .map(|s| format!(", first golden catch replayed on the {s} testbench"))
            .unwrap_or_default()
    );
    let rows = matrix(&faults, &plan, &a.out, a.jobs).map_err(anyhow::Error::msg)?;
    print!("{}", render(&rows, &plan));
    Ok(rows.iter().all(|r| r.killed()))
}
