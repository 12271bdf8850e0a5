//! Where a cycle of the v3 in-process lockstep (`LockstepV3::cycle_in`, crates/rtl/src/cosim_v3.rs) spends
//! its time, on the block benchmark's stimulus (`build/v3/bench_np{8,32,48}.vcd`, `make
//! v3-bench-stim`): the whole lockstep cycle beside its parts run alone, each the best of R runs,
//! in microseconds a cycle.
//!
//! - the Verilated RTL's step with its RAM write ports (`step_writes`) and its `read_regs`;
//! - the model's cycle (`Top::cycle_into`);
//! - the model's register visit (`Top::visit`) into a sink that only folds the values (what the
//!   visit costs before anything is stored), and into a sink that stores every value's words one
//!   after another in the visit's order (a lower bound of any packing);
//! - what is left of the lockstep's cycle: packing at the RTL's places rather than in order, the
//!   word compare, the RAM writes compared and the outputs.
//!
//! Run: `CAPFC_V3_CONFIGS=v3_np4,v3_np8,v3_np48 cargo run --release --example v3_lockstep_time --
//! --ports 8|32|48 [--repeat R] [--cycles N]`.

use capfc::block::BlockParams;
use capfc::cosim_v3::{stimulus_from_wave, LockstepV3};
use capfc::dut_v3::RtlTopV3;
use capfc::replay::top_in;
use capfc::v3::top::{Top, TopIn, TopOut};
use capfc::v3::RegSink;
use std::hint::black_box;
use std::time::Instant;

/// Folds every value into one word: the visit's own cost.
struct Fold(u64);

impl RegSink for Fold {
    #[inline(always)]
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.0 = self.0.rotate_left(7) ^ words.first().copied().unwrap_or(0) ^ width as u64;
    }
    #[inline(always)]
    fn val(&mut self, _: std::fmt::Arguments<'_>, v: u128, width: usize) {
        self.0 = self.0.rotate_left(7) ^ v as u64 ^ (v >> 64) as u64 ^ width as u64;
    }
    #[inline(always)]
    fn ram(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], _: usize) {
        self.0 ^= words.len() as u64;
    }
    #[inline(always)]
    fn ram128(&mut self, _: std::fmt::Arguments<'_>, words: &[u128], _: usize) {
        self.0 ^= words.len() as u64;
    }
    #[inline(always)]
    fn cat(&mut self, _: std::fmt::Arguments<'_>, n: usize, w: usize, get: impl Fn(usize) -> u64) {
        for k in 0..n {
            self.0 = self.0.rotate_left(w as u32) ^ get(k);
        }
    }
}

/// Stores every register's words one after another, in the visit's order (RAM words skipped),
/// into a buffer sized by a first visit.
struct InOrder<'a> {
    buf: &'a mut [u32],
    at: usize,
}

impl InOrder<'_> {
    #[inline(always)]
    fn put(&mut self, w: u32) {
        if let Some(x) = self.buf.get_mut(self.at) {
            *x = w;
        }
        self.at += 1;
    }
}

impl RegSink for InOrder<'_> {
    #[inline(always)]
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        for b in 0..width.div_ceil(32) {
            self.put(words.get(b / 2).map_or(0, |x| (x >> (32 * (b % 2))) as u32));
        }
    }
    #[inline(always)]
    fn val(&mut self, _: std::fmt::Arguments<'_>, v: u128, width: usize) {
        if width <= 32 {
            self.put(v as u32);
        } else {
            for b in 0..width.div_ceil(32).min(4) {
                self.put((v >> (32 * b)) as u32);
            }
        }
    }
    #[inline(always)]
    fn ram(&mut self, _: std::fmt::Arguments<'_>, _: &[u64], _: usize) {}
    #[inline(always)]
    fn ram128(&mut self, _: std::fmt::Arguments<'_>, _: &[u128], _: usize) {}
    #[inline(always)]
    fn cat(&mut self, _: std::fmt::Arguments<'_>, n: usize, w: usize, get: impl Fn(usize) -> u64) {
        let (mut acc, mut fill) = (0u128, 0usize);
        for k in 0..n {
            acc |= u128::from(get(k)) << fill;
            fill += w;
            while fill >= 32 {
                self.put(acc as u32);
                acc >>= 32;
                fill -= 32;
            }
        }
        if fill > 0 {
            self.put(acc as u32);
        }
    }
}

fn arg(name: &str, default: usize) -> Result<usize, String> {
    let a: Vec<String> = std::env::args().collect();
    match a.iter().position(|x| x == name) {
        None => Ok(default),
        Some(i) => a
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} takes a number")),
    }
}

/// The best of `repeat` runs of `run` (which returns its own time, in seconds).
fn best(repeat: usize, mut run: impl FnMut() -> f64) -> f64 {
    (0..repeat).map(|_| run()).fold(f64::INFINITY, f64::min)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("v3_lockstep_time: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let (np, repeat, cycles) = (
        arg("--ports", 8)?,
        arg("--repeat", 3)?.max(1),
        arg("--cycles", 20_000)?,
    );
    let name = format!("v3_np{np}");
    let (_, v) = capfc::v3::rtl_configs::V3_RTL_CONFIGS
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| format!("no v3 configuration {name}"))?;
    let p = BlockParams::from_values(v);
    let rtl = RtlTopV3::new(&p).map_err(|e| e.to_string())?;
    let wave = format!("build/v3/bench_np{np}.vcd");
    let words = stimulus_from_wave(&wave, "capfc_top_v3_tb.u_dut", &rtl)
        .map_err(|e| format!("{e} (make v3-bench-stim writes it)"))?;
    let wpc = rtl.layout.input_words;
    let n = (words.len() / wpc).min(cycles);
    let stim: Vec<&[u32]> = words.chunks(wpc).take(n).collect();
    let decoded = stim
        .iter()
        .map(|w| {
            top_in(&p, &|nm: &str, lo, width| {
                Ok(rtl.input(nm).unwrap().field(w, lo, width))
            })
        })
        .collect::<Result<Vec<TopIn>, _>>()
        .map_err(|e| e.to_string())?;
    let lock = time_lockstep(&p, repeat, &stim, &decoded);
    let (read, step) = time_rtl(&p, repeat, &stim)?;
    let model = time_model(&p, repeat, &decoded);
    let (fold, in_order) = (
        time_visit(&p, repeat, &decoded, false),
        time_visit(&p, repeat, &decoded, true),
    );
    let us = |t: f64| 1e6 * t / n as f64;
    println!("v3 lockstep at {np} ports, {n} cycles, best of {repeat}, microseconds a cycle:");
    println!("  lockstep cycle                         {:8.2}", us(lock));
    println!("  RTL step_writes                        {:8.2}", us(step));
    println!("  RTL read_regs                          {:8.2}", us(read));
    println!("  model cycle                            {:8.2}", us(model));
    println!("  model visit, values folded (no store)  {:8.2}", us(fold));
    println!(
        "  model visit, words stored in order     {:8.2}",
        us(in_order)
    );
    println!(
        "  the rest (packing at the RTL's places beyond in order, compare, RAM writes, outputs) {:.2}",
        us(lock - step - read - model - in_order)
    );
    Ok(())
}

/// The whole lockstep cycle, best of `repeat` runs, seconds.
fn time_lockstep(p: &BlockParams, repeat: usize, stim: &[&[u32]], decoded: &[TopIn]) -> f64 {
    best(repeat, || {
        let mut l = LockstepV3::new(p, 10).expect("lockstep");
        let t = Instant::now();
        for (w, inp) in stim.iter().zip(decoded) {
            l.cycle_in(inp, w).expect("lockstep");
        }
        let t = t.elapsed().as_secs_f64();
        assert_eq!(l.report.total_mismatches, 0, "{:?}", l.report.mismatches);
        t
    })
}

/// The Verilated RTL alone: (`read_regs`, `step_writes`), each the best of `repeat` runs, seconds.
fn time_rtl(p: &BlockParams, repeat: usize, stim: &[&[u32]]) -> Result<(f64, f64), String> {
    let (mut read, mut step) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..repeat {
        let mut r = RtlTopV3::new(p).map_err(|e| e.to_string())?;
        let mut state = vec![0u32; r.layout.state_words];
        let mut out = vec![0u32; r.layout.output_words];
        let mut writes = vec![0u32; r.layout.write_words];
        let (mut tr, mut ts) = (0.0, 0.0);
        for w in stim {
            let t = Instant::now();
            r.read_regs(&mut state);
            let t2 = Instant::now();
            r.step_writes(w, &mut out, &mut writes);
            ts += t2.elapsed().as_secs_f64();
            tr += (t2 - t).as_secs_f64();
        }
        (read, step) = (read.min(tr), step.min(ts));
    }
    Ok((read, step))
}

/// The model's cycle alone, best of `repeat` runs, seconds.
fn time_model(p: &BlockParams, repeat: usize, decoded: &[TopIn]) -> f64 {
    best(repeat, || {
        let (mut m, mut out) = (Top::new(*p), TopOut::default());
        let t = Instant::now();
        for inp in decoded {
            m.cycle_into(inp, &mut out);
            black_box(&out);
        }
        t.elapsed().as_secs_f64()
    })
}

/// The model's register visit beside its cycle, timed alone (the model's state as in the
/// lockstep): into `InOrder` when `store`, else into `Fold`. Best of `repeat` runs, seconds.
fn time_visit(p: &BlockParams, repeat: usize, decoded: &[TopIn], store: bool) -> f64 {
    best(repeat, || {
        let (mut m, mut out) = (Top::new(*p), TopOut::default());
        let mut fold = Fold(0);
        let mut size = InOrder {
            buf: &mut [],
            at: 0,
        };
        m.visit(&mut size);
        let mut buf = vec![0u32; size.at];
        let mut t = 0.0;
        for inp in decoded {
            let t0 = Instant::now();
            if store {
                m.visit(&mut InOrder {
                    buf: &mut buf,
                    at: 0,
                });
                black_box(&buf);
            } else {
                m.visit(&mut fold);
            }
            t += t0.elapsed().as_secs_f64();
            m.cycle_into(inp, &mut out);
        }
        black_box(fold.0);
        t
    })
}
