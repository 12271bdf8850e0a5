//! The v3 units' models against their RTL from a unit testbench's waveform (`make v3-lockstep`):
//!
//!     cargo run --release --example v3_lockstep -- ingress WAVE.vcd NP [SW OW CELL_LOG2]
//!
//! Exit 0 when every register and output agreed in every cycle, 1 on a mismatch, 2 on bad input.

use capfc::v3::ingress::IngressParams;
use capfc::v3::replay;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: v3_lockstep ingress WAVE.vcd NP [SW OW CELL_LOG2]";
    if args.len() < 3 || args[0] != "ingress" {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let num = |k: usize, name: &str, default: u32| -> u32 {
        match args.get(k) {
            None => default,
            Some(s) => s.parse().unwrap_or_else(|_| {
                eprintln!("v3_lockstep: {name} = {s:?}: not a number ({usage})");
                std::process::exit(2)
            }),
        }
    };
    let p = IngressParams {
        np: num(2, "NP", 0) as usize,
        sw: num(3, "SW", 14),
        ow: num(4, "OW", 20),
        cell_log2: num(5, "CELL_LOG2", 0),
    };
    if p.np < 2 || p.np > 128 || p.sw < 1 || p.sw > p.ow || p.ow > 30 || p.cell_log2 >= p.sw {
        eprintln!(
            "v3_lockstep: illegal parameters {p:?} (NP 2..128, SW 1..OW, OW ..30, CELL_LOG2 < SW)"
        );
        std::process::exit(2);
    }
    let wave = &args[1];
    let t0 = std::time::Instant::now();
    match replay::ingress(wave, "capfc_ingress_v3_tb.dut", p, 10) {
        Err(e) => {
            eprintln!("v3_lockstep: {e}");
            std::process::exit(2);
        }
        Ok(r) => {
            for (c, n, got, want) in &r.mismatches {
                println!("v3_lockstep: cycle {c}: {n}: RTL {got}, model {want}");
            }
            println!(
                "v3_lockstep: capfc_ingress NP={} from {wave}: {} cycles, {} registers and outputs compared every cycle: {} mismatches ({:.1} s)",
                p.np,
                r.cycles,
                r.names,
                r.total_mismatches,
                t0.elapsed().as_secs_f64()
            );
            if r.total_mismatches > 0 {
                std::process::exit(1);
            }
        }
    }
}
