//! Switch benchmark: simulated cycles per second and delivered packets per second of the switch
//! model (block model behind it, CaPFC Stop-Calibrate) at 8, 32 and 128 ports, under the same
//! per-port load (the `uniform` scenario: 60 % of line rate per input, the pipeline's packet rate
//! scaled with the port count). Shows how the cost grows with the port count. Run: `cargo bench --bench switch` (`make bench` runs it too).

use capfc::switch::scenario::Scenario;
use capfc::switch::{DutKind, FlowMode, Switch};
use std::time::Instant;

fn main() {
    println!(
        "capfc switch benchmark: uniform scenario, 60 % load per port, CaPFC_cal, block model"
    );
    println!(
        "{:>6} {:>8} {:>10} {:>10} {:>12} {:>12} {:>14} {:>9}",
        "ports", "flows", "cycles", "packets", "cycles/s", "packets/s", "every-unit c/s", "speedup"
    );
    for ports in [8usize, 32, 128] {
        // The pipeline scales with the switch (1 Mpps per 8 ports), so that only the port count
        // changes what each port sees.
        let text = include_str!("../scenarios/uniform.toml").replace(
            "ports = 8",
            &format!("ports = {ports}\npipe_interval = {}", 125 * 8 / ports),
        );
        let sc = Scenario::from_toml(&text, "uniform").unwrap();
        // Best of 3, skipping idle units (the default) and looking at every unit every cycle
        // (`Switch::exhaustive`), interleaved so that both see the same machine.
        let (mut best, mut best_every) = (f64::INFINITY, f64::INFINITY);
        let mut last = None;
        for _ in 0..3 {
            for exhaustive in [false, true] {
                let mut s = Switch::new_v2(&sc, FlowMode::CapfcCal, DutKind::Model).unwrap();
                s.exhaustive = exhaustive;
                let t = Instant::now();
                s.run();
                let e = t.elapsed().as_secs_f64();
                if exhaustive {
                    best_every = best_every.min(e);
                } else {
                    best = best.min(e);
                    last = Some(s);
                }
            }
        }
        let s = last.unwrap();
        println!(
            "{:>6} {:>8} {:>10} {:>10} {:>12.0} {:>12.0} {:>14.0} {:>8.1}x",
            ports,
            sc.flows.len(),
            s.now,
            s.stats.delivered_packets,
            s.now as f64 / best,
            s.stats.delivered_packets as f64 / best,
            s.now as f64 / best_every,
            best_every / best
        );
    }
}
