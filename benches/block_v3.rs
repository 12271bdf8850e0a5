//! The v3 block benchmark (`capfc_top_oc`, docs/microarchitecture.md): cycles per second of
//! the Rust model alone, the Verilated RTL driven from Rust (one FFI call a cycle), lockstep of
//! both (every output, register and RAM word compared every cycle, crates/rtl/src/cosim_v3.rs) on one
//! thread and on two (`lockstep2`: the model's half of each cycle on a second thread,
//! `LockstepV3::set_threads`), and the Verilated RTL driven from a plain C++ loop, side by side in
//! one run on the same recorded stimulus, at 8, 32 and 48 ports.
//!
//! The stimulus is the v3 block testbench's legal random traffic (testbench/v3/capfc_top_v3_tb.sv,
//! both algorithms, the MAC episode), taken from its port waveform
//! `build/v3/bench_np{8,32,48}.vcd`, which `make bench` writes first; the RTL's parameter sets
//! must be built (`CAPFC_V3_CONFIGS=all`, which `make bench` sets).
//!
//! The model is given the inputs decoded before the clock starts, as each cycle's changes to one
//! input struct that it keeps (`Changes`: what a switch or a testbench does to drive it, a few
//! fields a cycle; 20,000 input structs decoded whole would not stay in cache, and the model's
//! reads of them would measure the harness), the RTL the packed words, the lockstep both
//! (`LockstepV3::cycle_in`, as behind the switch). Applying the changes is timed with the model.
//! (The v2 benchmark, benches/block.rs, has the model decode packed words.)
//!
//! Each measurement starts from a block built before its clock starts (a Verilated model, the
//! lockstep's index of names).
//!
//! Run: `make bench`, or `CAPFC_V3_CONFIGS=all cargo bench --bench block_v3 -- [--cycles N]
//! [--repeat R] [--ports 8|32|48]`. A measurement is the best of R repeats; ratios are taken within the run.

use capfc::block::BlockParams;
use capfc::cosim_v3::{stimulus_from_wave, LockstepV3};
use capfc::dut_v3::RtlTopV3;
use capfc::replay::top_in;
use capfc::v3::top::{Top, TopIn, TopOut};
use std::time::Instant;

mod common;
use common::arg;

/// A run's inputs as each cycle's changes to one [`TopIn`], made before the clock starts: field
/// (0..13 the scalars, 13.. the per-port vectors), port, value.
struct Changes {
    np: usize,
    ops: Vec<(u8, u16, u64)>,
    /// per cycle, the end of its changes in `ops`
    ends: Vec<usize>,
}

impl Changes {
    const SCALARS: u8 = 13;

    fn scalars(t: &TopIn) -> [u64; 13] {
        [
            t.rst.into(),
            t.cfg_we.into(),
            t.cfg_addr.into(),
            t.cfg_wdata.into(),
            t.dep_valid.into(),
            t.dep_port,
            t.dep_prio.into(),
            t.dep_size,
            t.enq_valid.into(),
            t.enq_oport,
            t.enq_prio.into(),
            t.enq_iport,
            t.enq_size,
        ]
    }

    fn port(t: &TopIn, o: usize) -> [u64; 7] {
        [
            t.arr_valid[o].into(),
            t.arr_prio[o].into(),
            t.arr_size[o],
            t.deq_valid[o].into(),
            t.deq_prio[o].into(),
            t.deq_size[o],
            t.pfc_ready[o].into(),
        ]
    }

    fn of(np: usize, inputs: &[TopIn]) -> Changes {
        let (mut ops, mut ends) = (vec![], vec![]);
        let mut prev = TopIn::idle(np);
        for t in inputs {
            let (a, b) = (Self::scalars(&prev), Self::scalars(t));
            for k in 0..a.len() {
                if a[k] != b[k] {
                    ops.push((k as u8, 0, b[k]));
                }
            }
            for o in 0..np {
                let (a, b) = (Self::port(&prev, o), Self::port(t, o));
                for k in 0..a.len() {
                    if a[k] != b[k] {
                        ops.push((Self::SCALARS + k as u8, o as u16, b[k]));
                    }
                }
            }
            ends.push(ops.len());
            prev.clone_from(t);
        }
        Changes { np, ops, ends }
    }

    /// The inputs of each cycle in turn, in `inp` (`TopIn::idle` before the first), to `f`.
    fn replay(&self, mut f: impl FnMut(usize, &TopIn)) {
        let mut inp = TopIn::idle(self.np);
        let mut i = 0;
        for (c, &end) in self.ends.iter().enumerate() {
            for &(k, o, v) in &self.ops[i..end] {
                let o = usize::from(o);
                match k {
                    0 => inp.rst = v != 0,
                    1 => inp.cfg_we = v != 0,
                    2 => inp.cfg_addr = v as u8,
                    3 => inp.cfg_wdata = v as u32,
                    4 => inp.dep_valid = v != 0,
                    5 => inp.dep_port = v,
                    6 => inp.dep_prio = v as u8,
                    7 => inp.dep_size = v,
                    8 => inp.enq_valid = v != 0,
                    9 => inp.enq_oport = v,
                    10 => inp.enq_prio = v as u8,
                    11 => inp.enq_iport = v,
                    12 => inp.enq_size = v,
                    13 => inp.arr_valid[o] = v != 0,
                    14 => inp.arr_prio[o] = v as u8,
                    15 => inp.arr_size[o] = v,
                    16 => inp.deq_valid[o] = v != 0,
                    17 => inp.deq_prio[o] = v as u8,
                    18 => inp.deq_size[o] = v,
                    _ => inp.pfc_ready[o] = v != 0,
                }
            }
            i = end;
            f(c, &inp);
        }
    }
}

/// The best of `repeat` runs of `run` on what `setup` makes (the setup is not timed: building a
/// Verilated model and the lockstep's name index is not a cycle's cost).
fn best<S, F: FnMut(S)>(repeat: u64, mut setup: impl FnMut() -> S, mut run: F) -> f64 {
    (0..repeat)
        .map(|_| {
            let s = setup();
            let t = Instant::now();
            run(s);
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The table: per port count, the model, the Rust-driven RTL, the lockstep and the C++ loop on
/// the same recorded traffic, best of `--repeat`. (Long: one row's four timings and its print.)
fn main() {
    let repeat = arg("--repeat", 3);
    println!(
        "capfc v3 block benchmark: best of {repeat}, the v3 block testbench's traffic (seed 1)"
    );
    println!(
        "{:>5} {:>9} {:>14} {:>14} {:>14} {:>14} {:>14} {:>12} {:>12} {:>13} {:>14}",
        "ports",
        "cycles",
        "model c/s",
        "rtl(rust) c/s",
        "lockstep c/s",
        "lockstep2 c/s",
        "rtl(c++) c/s",
        "rust/c++",
        "model/rtl",
        "lockstep/rtl",
        "lockstep2/rtl"
    );
    let only = arg("--ports", 0) as usize;
    for (np, default_cycles) in [(8usize, 20_000u64), (32, 20_000), (48, 20_000)] {
        if only != 0 && np != only {
            continue;
        }
        let cycles = arg("--cycles", default_cycles) as usize;
        let name = format!("v3_np{np}");
        let (_, v) = capfc::v3::rtl_configs::V3_RTL_CONFIGS
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a v3 configuration of this port count");
        let p = BlockParams::from_values(v);
        let rtl = match RtlTopV3::new(&p) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("block_v3: {e}");
                std::process::exit(2);
            }
        };
        let wave = format!("build/v3/bench_np{np}.vcd");
        let mut words = match stimulus_from_wave(&wave, "capfc_top_v3_tb.u_dut", &rtl) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("block_v3: {e} (make bench writes it)");
                std::process::exit(2);
            }
        };
        let wpc = rtl.layout.input_words;
        let n = (words.len() / wpc).min(cycles);
        words.truncate(n * wpc);
        // The model is given the same inputs decoded (before the clock starts: v3's decoding goes
        // by port name, which is the replay's convenience, not the model's cost).
        let decoded: Vec<TopIn> = words
            .chunks(wpc)
            .map(|w| {
                let f =
                    |name: &str, lo: usize, width: u32| -> Result<u64, capfc::replay::InputError> {
                        Ok(rtl.input(name).expect("an input port").field(w, lo, width))
                    };
                top_in(&p, &f).expect("inputs")
            })
            .collect();
        let changes = Changes::of(np, &decoded);
        // (the replay gives back exactly the inputs decoded)
        changes.replay(|c, inp| assert_eq!(*inp, decoded[c], "cycle {c}'s inputs"));
        drop(decoded);
        let t_model = best(
            repeat,
            || (Top::new(p), TopOut::default()),
            |(mut m, mut out)| {
                changes.replay(|_, inp| {
                    m.cycle_into(inp, &mut out);
                    std::hint::black_box(&out);
                });
            },
        );
        let mut ow = vec![0u32; rtl.layout.output_words];
        drop(rtl);
        let t_rust = best(
            repeat,
            || RtlTopV3::new(&p).unwrap(),
            |mut r| {
                for c in words.chunks(wpc) {
                    r.step(c, &mut ow);
                }
                std::hint::black_box(&ow);
            },
        );
        let t_cpp = best(
            repeat,
            || RtlTopV3::new(&p).unwrap(),
            |mut r| {
                std::hint::black_box(r.run_loop(&words, n, &mut ow));
            },
        );
        // the lockstep on one thread, then with the model's half of each cycle on a second
        let lockstep = |threads: usize| {
            best(
                repeat,
                || {
                    let mut l = LockstepV3::new(&p, 10).expect("lockstep");
                    l.set_threads(threads);
                    l
                },
                |mut l| {
                    changes.replay(|c, inp| {
                        l.cycle_in(inp, &words[c * wpc..(c + 1) * wpc])
                            .expect("lockstep");
                    });
                    assert_eq!(
                        l.report.total_mismatches, 0,
                        "mismatch while benchmarking: {:?}",
                        l.report.mismatches
                    );
                },
            )
        };
        let (t_lock, t_lock2) = (lockstep(1), lockstep(2));
        let cps = |t: f64| n as f64 / t;
        println!(
            "{:>5} {:>9} {:>14.0} {:>14.0} {:>14.0} {:>14.0} {:>14.0} {:>11.1}% {:>11.1}x {:>12.1}% {:>13.1}%",
            np,
            n,
            cps(t_model),
            cps(t_rust),
            cps(t_lock),
            cps(t_lock2),
            cps(t_cpp),
            100.0 * t_cpp / t_rust,
            t_rust / t_model,
            100.0 * t_rust / t_lock,
            100.0 * t_rust / t_lock2
        );
    }
    println!("rust/c++: RTL driven from Rust as a share of the C++ loop's speed; model/rtl: how many times faster the Rust model is than the Rust-driven RTL; lockstep/rtl: lockstep as a share of the Rust-driven RTL's speed; lockstep2: the lockstep with the model's half of each cycle on a second thread (two cores)");
}
