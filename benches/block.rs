//! Block benchmark: cycles per second of the Rust model alone, the Verilated RTL driven from Rust
//! (one FFI call per cycle), lockstep of both (every output and register compared every cycle), and
//! the Verilated RTL driven from a plain C++ loop (the lower bound), side by side in one run on the
//! same recorded stimulus, at 8, 32 and 48 ports.
//!
//! Run: `cargo bench --bench block` (or `make bench`). Options after `--`: `--cycles N`,
//! `--seed S`, `--repeat R`. A measurement is the best of R repeats; ratios are taken within the run.

use capfc::block::pack::{pack_inputs, unpack_inputs, Layouts};
use capfc::block::{BlockParams, CapfcTop, Inputs, Mode, Outputs};
use capfc::cosim::{lockstep, Job, JobKind, RunOpts};
use capfc::dut::RtlBlock;
use capfc::stimulus::{RandomStim, Script, Stimulus};
use std::time::Instant;

mod common;
use common::arg;

/// Record `cycles` cycles of the random generator, closing its feedback loop with the model.
fn record(p: &BlockParams, seed: u64, cycles: u64) -> Vec<Inputs> {
    let mut stim = RandomStim::new(p, Mode::StopCal, seed, cycles);
    let mut m = CapfcTop::new(*p).unwrap();
    let mut out = Outputs::new(p.np);
    let mut v = Vec::with_capacity(cycles as usize);
    let mut inp = Inputs::idle(p.np);
    while {
        inp.clear();
        stim.next(&mut inp)
    } {
        m.tick_cycle(&inp, &mut out);
        stim.observe(&inp, &out);
        v.push(inp.clone());
    }
    v
}

fn best<F: FnMut()>(repeat: u64, mut f: F) -> f64 {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let seed = arg("--seed", 1);
    let repeat = arg("--repeat", 3);
    println!("capfc block benchmark: seed {seed}, best of {repeat}, Stop-Calibrate random traffic");
    println!(
        "{:>5} {:>9} {:>14} {:>14} {:>14} {:>14} {:>12} {:>12} {:>13}",
        "ports",
        "cycles",
        "model c/s",
        "rtl(rust) c/s",
        "lockstep c/s",
        "rtl(c++) c/s",
        "rust/c++",
        "model/rtl",
        "lockstep/rtl"
    );
    for (np, default_cycles) in [(8usize, 200_000u64), (32, 50_000), (48, 30_000)] {
        let cycles = arg("--cycles", default_cycles);
        let p = BlockParams::with_ports(np);
        let stim = record(&p, seed, cycles);
        let n = stim.len();
        let l = Layouts::new(&p);
        let mut words = vec![0u32; l.inputs.words * n];
        for (k, inp) in stim.iter().enumerate() {
            pack_inputs(
                &p,
                &l.inputs,
                inp,
                &mut words[k * l.inputs.words..(k + 1) * l.inputs.words],
            );
        }
        let mut out = Outputs::new(np);
        // The model decodes the same packed words the RTL is given, every cycle.
        let mut inp = Inputs::idle(np);
        let t_model = best(repeat, || {
            let mut m = CapfcTop::new(p).unwrap();
            for k in 0..n {
                unpack_inputs(
                    &p,
                    &l.inputs,
                    &words[k * l.inputs.words..(k + 1) * l.inputs.words],
                    &mut inp,
                );
                m.tick_cycle(&inp, &mut out);
            }
            std::hint::black_box(&m);
        });
        let mut ow = vec![0u32; l.outputs.words];
        let t_rust = best(repeat, || {
            let mut r = RtlBlock::new(&p).unwrap();
            for k in 0..n {
                r.step_words(
                    &words[k * l.inputs.words..(k + 1) * l.inputs.words],
                    &mut ow,
                );
            }
            std::hint::black_box(&ow);
        });
        let t_cpp = best(repeat, || {
            let mut r = RtlBlock::new(&p).unwrap();
            std::hint::black_box(r.run_loop(&words, n, &mut ow));
        });
        let job = Job {
            config: p.rtl_config_name().unwrap().to_string(),
            params: p,
            mode: Mode::StopCal,
            kind: JobKind::Random { seed, cycles },
        };
        // the stimulus copies are made before the clock starts: cloning 10^5 cycles of inputs is
        // no part of a lockstep
        let mut scripts: Vec<Script> = (0..repeat)
            .map(|_| Script::new("bench", stim.clone()))
            .collect();
        let t_lock = best(repeat, || {
            let mut s = scripts.pop().expect("one script a repeat");
            let r = lockstep(&job, &mut s, &RunOpts::default());
            assert!(r.is_ok(), "mismatch while benchmarking");
        });
        let cps = |t: f64| n as f64 / t;
        println!(
            "{:>5} {:>9} {:>14.0} {:>14.0} {:>14.0} {:>14.0} {:>11.1}% {:>11.1}x {:>12.1}%",
            np,
            n,
            cps(t_model),
            cps(t_rust),
            cps(t_lock),
            cps(t_cpp),
            100.0 * t_cpp / t_rust,
            t_rust / t_model,
            100.0 * t_rust / t_lock
        );
    }
    println!("rust/c++: RTL driven from Rust as a share of the C++ loop's speed; model/rtl: how many times faster the Rust model is than the Rust-driven RTL; lockstep/rtl: lockstep as a share of the Rust-driven RTL's speed");
}
