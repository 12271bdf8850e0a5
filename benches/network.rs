//! Network benchmark: simulated milliseconds per wall-clock second and packets
//! per second of the network model (every switch the cycle model with its block model, TCP with
//! DCTCP, CaPFC Stop-Calibrate, DeTail routing) on k-ary fat trees of k = 4, 6 and 8 at 1 Gb/s and
//! on the paper's fat tree (k = 8, 4:1 by its link rates), at 50 % offered load per host of flows
//! from 1 KB to 1 MB; beside it, in the same run, the single switch (the `uniform` scenario, 8
//! ports, 60 % load). Shows how the cost grows with the network's size and what idle switches
//! save (the share of switch cycles actually computed).
//!
//! Run: `cargo bench --bench network` (`make bench` runs it too). Options after `--`:
//! `--ms N` simulated milliseconds of each fat tree (default 10), `--paper-ms N` of the paper's
//! fat tree (default 100: the aim is 100 ms in under a minute on one core), `--seed S`.

use capfc::net::sim::{NetConfig, Network, Routing};
use capfc::net::topology::Topology;
use capfc::net::traffic::{poisson_flows, Cdf};
use capfc::net::transport::TransportKind;
use capfc::switch::scenario::Scenario;
use capfc::switch::{DutKind, FlowMode, Switch};
use std::time::Instant;

mod common;
use common::arg;

fn main() {
    let (ms, paper_ms, seed) = (arg("--ms", 10), arg("--paper-ms", 100), arg("--seed", 1));
    let cdf = Cdf::parse(capfc::net::traffic::DEFAULT_CDF, "built-in").unwrap();
    println!(
        "capfc network benchmark: 50 % load, TCP (DCTCP, ECN at 20 KB), CaPFC_cal, DeTail, block model, seed {seed}"
    );
    println!(
        "{:<22} {:>6} {:>9} {:>7} {:>9} {:>8} {:>9} {:>12} {:>8}",
        "network",
        "hosts",
        "switches",
        "flows",
        "sim ms",
        "wall s",
        "sim ms/s",
        "packets/s",
        "active"
    );
    let mut nets: Vec<(String, Topology, u64)> = [4usize, 6, 8]
        .iter()
        .map(|&k| {
            (
                format!("fat tree k={k}"),
                Topology::fat_tree(k, 1_000_000_000, 500).unwrap(),
                ms,
            )
        })
        .collect();
    nets.push((
        "paper fat tree (4:1)".into(),
        Topology::paper_fat_tree(500),
        paper_ms,
    ));
    for (name, topo, ms) in nets {
        let flows = poisson_flows(&topo, &cdf, 0.5, ms * 1_000_000, seed, 3).unwrap();
        let mut cfg = NetConfig::paper(FlowMode::CapfcCal, Routing::DETAIL)
            .with_transport(TransportKind::Dctcp);
        cfg.seed = seed;
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.cfg.switch.max_cycles = (ms as f64 * 1e6 / net.cycle_ns) as u64;
        let t = Instant::now();
        net.run().unwrap();
        let wall = t.elapsed().as_secs_f64();
        let st = net.stats();
        let sim_ms = net.now as f64 * net.cycle_ns / 1e6;
        let switches = topo.switches().count();
        println!(
            "{:<22} {:>6} {:>9} {:>7} {:>9.1} {:>8.2} {:>9.2} {:>12.0} {:>7.1}%",
            name,
            topo.hosts().count(),
            switches,
            flows.len(),
            sim_ms,
            wall,
            sim_ms / wall,
            st.delivered_packets as f64 / wall,
            100.0 * net.switch_cycles as f64 / (net.now.max(1) as f64 * switches as f64)
        );
    }
    // The single switch beside it.
    let sc = Scenario::builtin("uniform").unwrap();
    let mut s = Switch::new_v2(&sc, FlowMode::CapfcCal, DutKind::Model).unwrap();
    let t = Instant::now();
    s.run();
    let wall = t.elapsed().as_secs_f64();
    let sim_ms = s.now as f64 * sc.cycle_ns / 1e6;
    println!(
        "{:<22} {:>6} {:>9} {:>7} {:>9.1} {:>8.2} {:>9.2} {:>12.0} {:>8}",
        "single switch (8 port)",
        8,
        1,
        sc.flows.len(),
        sim_ms,
        wall,
        sim_ms / wall,
        s.stats.delivered_packets as f64 / wall,
        "-"
    );
}
