//! The v3 units' models against their RTL from a unit testbench's waveform (`make v3-lockstep`):
//!
//!     cargo run --release --example v3_lockstep -- ingress WAVE.vcd NP [SW OW CELL_LOG2]
//!     cargo run --release --example v3_lockstep -- egress WAVE.vcd NP [SW OW CW CELL_LOG2 NL]
//!     cargo run --release --example v3_lockstep -- sort WAVE.vcd NP [CW CUT_F NL]
//!     cargo run --release --example v3_lockstep -- top WAVE.vcd NP [SW OW CW CELL_LOG2 CUT_F NL]
//!     cargo run --release --example v3_lockstep -- top-rtl WAVE.vcd NP [SW OW CW CELL_LOG2 CUT_F NL]
//!
//! `top-rtl` takes only the block's inputs from the waveform and runs the block's model and its
//! Verilated RTL in this process (crates/rtl/src/cosim_v3.rs; a parameter set of crates/block/src/v3/rtl_configs.rs that
//! was built, CAPFC_V3_CONFIGS), comparing every output, register and RAM word every cycle.
//!
//! Exit 0 when every register and output agreed in every cycle, 1 on a mismatch, 2 on bad input.

use capfc::block::BlockParams;
use capfc::replay::{self, Unit};
use capfc::v3::egress::{Egress, EgressParams};
use capfc::v3::ingress::{Ingress, IngressParams};
use capfc::v3::sort::{Sort, SortParams};
use capfc::v3::top::Top;

const USAGE: &str = "usage: v3_lockstep ingress WAVE.vcd NP [SW OW CELL_LOG2] | egress WAVE.vcd NP [SW OW CW CELL_LOG2 NL] | sort WAVE.vcd NP [CW CUT_F NL] | top|top-rtl WAVE.vcd NP [SW OW CW CELL_LOG2 CUT_F NL]";

fn bad(msg: impl std::fmt::Display) -> ! {
    eprintln!("v3_lockstep: {msg} ({USAGE})");
    std::process::exit(2)
}

/// Argument `k` as a number, `default` when it is not given.
fn num(args: &[String], k: usize, name: &str, default: u32) -> u32 {
    match args.get(k) {
        None => default,
        Some(s) => s
            .parse()
            .unwrap_or_else(|_| bad(format!("{name} = {s:?}: not a number"))),
    }
}

/// A unit's model, the RTL instance it is compared with, and its parameters as printed.
type Chosen = (Box<dyn Unit>, &'static str, String);

fn ingress(args: &[String], np: usize) -> Chosen {
    let p = IngressParams {
        np,
        sw: num(args, 3, "SW", 14),
        ow: num(args, 4, "OW", 20),
        cell_log2: num(args, 5, "CELL_LOG2", 0),
    };
    capfc::v3::check_params(np, p.sw, p.ow, 16, p.cell_log2, 8, 2).unwrap_or_else(|e| bad(e));
    (
        Box::new(Ingress::new(p)),
        "capfc_ingress_v3_tb.dut",
        format!("{p:?}"),
    )
}

fn egress(args: &[String], np: usize) -> Chosen {
    let p = EgressParams {
        np,
        sw: num(args, 3, "SW", 14),
        ow: num(args, 4, "OW", 20),
        cw: num(args, 5, "CW", 16),
        cell_log2: num(args, 6, "CELL_LOG2", 0),
        nl: num(args, 7, "NL", 2),
    };
    capfc::v3::check_params(np, p.sw, p.ow, p.cw, p.cell_log2, 8, p.nl).unwrap_or_else(|e| bad(e));
    (
        Box::new(Egress::new(p)),
        "capfc_egress_v3_tb.dut",
        format!("{p:?}"),
    )
}

fn sort(args: &[String], np: usize) -> Chosen {
    let p = SortParams {
        np,
        cw: num(args, 3, "CW", 16),
        cut_f: num(args, 4, "CUT_F", 8),
        nl: num(args, 5, "NL", 2),
    };
    capfc::v3::check_params(np, 14, 20, p.cw, 0, p.cut_f, p.nl).unwrap_or_else(|e| bad(e));
    (
        Box::new(Sort::new(p)),
        "capfc_sort_v3_tb.dut",
        format!("{p:?}"),
    )
}

/// The whole block; `top-rtl` runs it against its Verilated RTL in this process and exits.
fn top(args: &[String], np: usize) -> Chosen {
    let p = BlockParams {
        np,
        sw: num(args, 3, "SW", 14),
        ow: num(args, 4, "OW", 20),
        cw: num(args, 5, "CW", 16),
        cell_log2: num(args, 6, "CELL_LOG2", 0),
        cut_f: num(args, 7, "CUT_F", 8),
        nl: num(args, 8, "NL", 2) as usize,
    };
    capfc::v3::check_params(np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl as u32)
        .unwrap_or_else(|e| bad(e));
    if args[0] == "top-rtl" {
        in_process(&args[1], &p);
    }
    (
        Box::new(Top::new(p)),
        "capfc_top_v3_tb.u_dut",
        format!("{p:?}"),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        bad("too few arguments");
    }
    let np = num(&args, 2, "NP", 0) as usize;
    let (mut unit, instance, desc) = match args[0].as_str() {
        "ingress" => ingress(&args, np),
        "egress" => egress(&args, np),
        "sort" => sort(&args, np),
        "top" | "top-rtl" => top(&args, np),
        u => bad(format!("unit {u:?}: ingress, egress, sort, top or top-rtl")),
    };
    replay_unit(&args[0], &args[1], instance, unit.as_mut(), &desc);
}

/// Replays the waveform's inputs into the unit's model and compares; exits 1 on a mismatch, 2
/// when the waveform cannot be read.
fn replay_unit(name: &str, wave: &str, instance: &str, unit: &mut dyn Unit, desc: &str) {
    let t0 = std::time::Instant::now();
    match replay::run(wave, instance, unit, 10) {
        Err(e) => {
            eprintln!("v3_lockstep: {e}");
            std::process::exit(2);
        }
        Ok(r) => {
            for (c, n, got, want) in &r.mismatches {
                println!("v3_lockstep: cycle {c}: {n}: RTL {got}, model {want}");
            }
            println!(
                "v3_lockstep: capfc_{} {desc} from {wave}: {} cycles, {} registers and outputs compared every cycle: {} mismatches ({:.1} s)",
                name,
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

/// The block's model and its Verilated RTL in one process on the waveform's inputs; exits.
fn in_process(wave: &str, p: &BlockParams) -> ! {
    use capfc::cosim_v3::{lockstep, stimulus_from_wave};
    use capfc::dut_v3::RtlTopV3;
    let t0 = std::time::Instant::now();
    let rtl = RtlTopV3::new(p).unwrap_or_else(|e| bad(e.to_string()));
    let stim = stimulus_from_wave(wave, "capfc_top_v3_tb.u_dut", &rtl).unwrap_or_else(|e| {
        eprintln!("v3_lockstep: {e}");
        std::process::exit(2)
    });
    drop(rtl);
    let t1 = std::time::Instant::now();
    match lockstep(p, &stim, 10) {
        Err(e) => {
            eprintln!("v3_lockstep: {e}");
            std::process::exit(2);
        }
        Ok(r) => {
            for (c, n, got, want) in &r.mismatches {
                println!("v3_lockstep: cycle {c}: {n}: RTL {got}, model {want}");
            }
            println!(
                "v3_lockstep: capfc_top_oc (Verilated in process) and its model, np={}, on the inputs of {wave}: {} cycles, {} registers, RAM words and outputs compared (every cycle; a RAM's words through its writes): {} mismatches ({:.1} s reading the inputs, {:.1} s in lockstep)",
                p.np,
                r.cycles,
                r.names,
                r.total_mismatches,
                (t1 - t0).as_secs_f64(),
                t1.elapsed().as_secs_f64()
            );
            std::process::exit(if r.total_mismatches > 0 { 1 } else { 0 });
        }
    }
}
