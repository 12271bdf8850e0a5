//! Lockstep co-simulation of v2's Rust model against its Verilated RTL (`capfc::cosim`, run by
//! `examples/v2_cosim.rs`), and the command line of the block's lockstep, `capfc cosim` (its jobs
//! are `tests/soak_v3.rs`'s).
//!
//! v2 is a test subject here: a slice of its regression, split per parameter set so the test
//! harness runs the parts in parallel; the parts add up to about 1.7 million cycles over 4, 6, 8,
//! 16, 32 and 48 ports, both selection algorithms, a few random seeds each and every directed case,
//! and each part requires every functional coverage point to be hit. The whole regression is
//! `cargo run --release --example v2_cosim` (252 jobs), and `make soak-v2` runs 10^9 cycles. A
//! failure prints the mismatch report, whose last line is the command that replays it.
#![cfg(feature = "rtl")]

mod common;
use capfc::block::coverage::Coverage;
use capfc::block::{BlockParams, CapfcTop, Fault, Inputs, Mode, Outputs};
use capfc::cosim::{jobs, run_job, Failure, Job, JobKind, RunOpts};
use capfc::dut::available;
use capfc::stimulus::{directed, directed_config, Stimulus, DIRECTED};
use common::vcd_names;

fn config(name: &str) -> (String, BlockParams) {
    available()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("parameter set {name} is not built"))
}

/// Run every job of one parameter set; returns the cycles run.
fn regression(name: &str, seeds: std::ops::Range<u64>, cycles: u64, min_cycles: u64) {
    let all: Vec<String> = DIRECTED.iter().map(|s| s.to_string()).collect();
    let js = jobs(
        &[config(name)],
        &[Mode::StopMax, Mode::StopCal],
        seeds,
        cycles,
        &all,
    );
    let mut total = 0;
    let mut cov = Coverage::new();
    let mut failures = vec![];
    for j in &js {
        match run_job(
            j,
            &RunOpts {
                history: 8,
                coverage: true,
                ..RunOpts::default()
            },
        ) {
            Ok(p) => {
                total += p.cycles;
                cov.merge(&p.coverage);
            }
            Err(f) => failures.push(f.to_string()),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} jobs failed:\n{}",
        failures.len(),
        js.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "{name}: {} jobs, {total} cycles in lockstep, 0 mismatches",
        js.len()
    );
    assert!(
        total >= min_cycles,
        "{name}: only {total} cycles, expected {min_cycles}"
    );
    let missed: Vec<_> = cov.missed().iter().map(|p| p.name()).collect();
    assert!(
        missed.is_empty(),
        "{name}: coverage points not hit: {missed:?}\n{}",
        cov.report()
    );
}

#[test]
fn lockstep_np4() {
    regression("np4", 1..5, 30_000, 300_000);
}

#[test]
fn lockstep_np8() {
    regression("np8", 1..4, 30_000, 250_000);
}

#[test]
fn lockstep_np16() {
    regression("np16", 1..3, 20_000, 200_000);
}

#[test]
fn lockstep_np32() {
    regression("np32", 1..3, 15_000, 200_000);
}

#[test]
fn lockstep_np48() {
    regression("np48", 1..2, 10_000, 200_000);
}

#[test]
fn lockstep_cells_and_narrow_counters() {
    regression("np8_cell64", 1..3, 20_000, 200_000);
    regression("np6_cw4", 1..3, 20_000, 80_000);
}

/// The first cycle of a directed case at which `pred(model before, inputs, model after)` holds,
/// found on the fault-free model: independent of the checker.
fn first_cycle(
    p: &BlockParams,
    mode: Mode,
    case: &str,
    pred: impl Fn(&CapfcTop, &Inputs, &CapfcTop) -> bool,
) -> u64 {
    let mut s = directed(p, mode, case).unwrap();
    let mut m = CapfcTop::new(*p).unwrap();
    let mut inp = Inputs::idle(p.np);
    let mut out = Outputs::new(p.np);
    for c in 0.. {
        inp.clear();
        assert!(s.next(&mut inp), "{case}: the corner never happens");
        let before = m.clone();
        m.tick_cycle(&inp, &mut out);
        if pred(&before, &inp, &m) {
            return c;
        }
    }
    unreachable!()
}

fn expect_mismatch(job: &Job, fault: Fault) -> capfc::cosim::Mismatch {
    match run_job(
        job,
        &RunOpts {
            fault: Some(fault),
            history: 4,
            ..RunOpts::default()
        },
    ) {
        Err(Failure::Mismatch(m)) => *m,
        Err(e) => panic!("expected a mismatch, got {e}"),
        Ok(p) => panic!("the fault went unnoticed for {} cycles", p.cycles),
    }
}

#[test]
fn checker_reports_a_warn_comparator_fault_at_its_cycle_and_signal() {
    for name in ["np4", "np16"] {
        let (cfg, p) = config(name);
        let t = directed_config(&p, Mode::StopMax).prio[3];
        // The first enqueue that lands exactly on WARN: the faulty model does not count it.
        let want = first_cycle(&p, Mode::StopMax, "thresholds_exact", |_, inp, m| {
            inp.enq
                .is_some_and(|e| m.egress.occ(usize::from(e.oport) * 8 + 3) == t.eg_warn)
        });
        let job = Job {
            config: cfg,
            params: p,
            mode: Mode::StopMax,
            kind: JobKind::Directed("thresholds_exact".into()),
        };
        let m = expect_mismatch(&job, Fault::WarnOffByOne);
        assert_eq!(m.cycle, want, "{name}: {m}");
        assert_eq!(m.when, "state after the clock edge");
        let names: Vec<&str> = m.diffs.iter().map(|d| d.signal.as_str()).collect();
        // The RTL starts the increment (stage 1) that the faulty model skips.
        assert!(names.contains(&"u_egress.inc_v_q"), "{name}: {m}");
        assert!(
            m.replay.contains("--fault warn_off_by_one")
                && m.replay.contains("--directed thresholds_exact")
        );
    }
}

#[test]
fn checker_reports_an_xon_comparator_fault_at_its_cycle_and_signal() {
    let (cfg, p) = config("np8");
    let t = directed_config(&p, Mode::StopCal).prio[3];
    // The first dequeue that lands exactly on XON while E is set: the faulty model keeps E.
    let want = first_cycle(&p, Mode::StopCal, "thresholds_exact", |b, inp, m| {
        inp.deq[0].is_some() && m.egress.occ(3) == t.eg_xon && b.egress.e_q[0] != 0
    });
    let job = Job {
        config: cfg,
        params: p,
        mode: Mode::StopCal,
        kind: JobKind::Directed("thresholds_exact".into()),
    };
    let m = expect_mismatch(&job, Fault::XonOffByOne);
    assert_eq!(m.cycle, want, "{m}");
    assert!(
        m.diffs
            .iter()
            .any(|d| d.signal.starts_with("u_egress.e_q[0]")),
        "{m}"
    );
}

#[test]
fn random_faults_are_caught_and_replay_identically() {
    // Random traffic lands exactly on WARN only now and then (seeds 1 to 300: 67, 89, 123 do
    // within 20,000 cycles); this seed does so at cycle 15,652.
    let (cfg, p) = config("np4");
    let job = Job {
        config: cfg,
        params: p,
        mode: Mode::StopMax,
        kind: JobKind::Random {
            seed: 67,
            cycles: 20_000,
        },
    };
    let a = expect_mismatch(&job, Fault::WarnOffByOne);
    let b = expect_mismatch(&job, Fault::WarnOffByOne);
    assert_eq!(
        (a.cycle, a.diffs.clone()),
        (b.cycle, b.diffs.clone()),
        "the same seed replays the same mismatch"
    );
    assert!(
        a.replay.contains("--seed 67 --cycles 20000"),
        "{}",
        a.replay
    );
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let (cfg, p) = config("np4");
    let job = Job {
        config: cfg,
        params: p,
        mode: Mode::StopCal,
        kind: JobKind::Random {
            seed: 99,
            cycles: 30_000,
        },
    };
    let a = run_job(
        &job,
        &RunOpts {
            coverage: true,
            ..RunOpts::default()
        },
    )
    .map_err(|e| e.to_string())
    .unwrap();
    let b = run_job(
        &job,
        &RunOpts {
            coverage: true,
            ..RunOpts::default()
        },
    )
    .map_err(|e| e.to_string())
    .unwrap();
    assert_eq!(a.coverage, b.coverage);
    assert_eq!(a.cycles, 30_000);
}

#[test]
fn mismatch_window_writes_both_sides_under_the_same_names() {
    let (cfg, p) = config("np4");
    let job = Job {
        config: cfg,
        params: p,
        mode: Mode::StopMax,
        kind: JobKind::Directed("thresholds_exact".into()),
    };
    let scratch = tempfile::Builder::new()
        .prefix("capfc-wave-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let opts = RunOpts {
        fault: Some(Fault::WarnOffByOne),
        wave_window: Some(6),
        wave_dir: Some(dir.clone()),
        history: 2,
        ..RunOpts::default()
    };
    let m = match run_job(&job, &opts) {
        Err(Failure::Mismatch(m)) => m,
        _ => panic!("expected a mismatch"),
    };
    let w = m.wave.as_deref().expect("a waveform window");
    let files: Vec<&str> = w
        .split(", ")
        .map(|s| s.split(' ').next().unwrap())
        .collect();
    let (rtl, rtl_end) = vcd_names(files[0]);
    let (model, model_end) = vcd_names(files[1]);
    // Every model signal exists under the same name in the RTL's trace, the counter RAMs included
    // (crates/rtl/build.rs raises Verilator's --trace-max-array for them).
    let missing: Vec<_> = model.iter().filter(|n| !rtl.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "model signals absent from the RTL trace: {missing:?}"
    );
    assert!(
        model.contains("capfc_v2_top.capfc_v2_top.u_egress.gen_port[3].u_cnt.mem[1]"),
        "{model:?}"
    );
    assert!(model.len() > 100);
    // Both windows reach 6 cycles past the mismatch.
    assert_eq!(model_end, 2 * (m.cycle + 6) + 1);
    assert_eq!(rtl_end, model_end);
}

/// `capfc cosim` (the block's lockstep) that would check nothing exits non-zero and says why;
/// seeds at the edge of u64 run; a fault in the model fails a directed job (a golden set's
/// stimulus) with the command that replays it, and that command fails the same way.
///
/// (Long: one command's failure modes, each a run and its assertions, in the order a user meets
/// them.)
#[test]
fn a_regression_that_selects_no_job_fails() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let capfc = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
            .current_dir(root)
            .args(args)
            .output()
            .expect("run capfc")
    };
    let cosim = |args: &[&str]| {
        let mut a = vec!["cosim", "--config", "v3_np4", "--cycles", "100"];
        a.extend_from_slice(args);
        capfc(&a)
    };
    for (args, why) in [
        (
            &["--seeds", "5..5", "--directed", "none"][..],
            "selects no seed",
        ),
        (
            &["--seeds", "0", "--directed", "none"][..],
            "no job selected",
        ),
        (
            &["--seeds", "9..=3", "--directed", "none"][..],
            "selects no seed",
        ),
        (
            &["--seeds", "0..=18446744073709551615", "--directed", "none"][..],
            "more than 1,000,000 seeds",
        ),
        (
            &[
                "--seed",
                "3",
                "--algo",
                "max",
                "--directed",
                "none",
                "--shard",
                "2/2",
            ][..],
            "no job selected",
        ),
        (
            &["--seeds", "0", "--directed", "no_such_set"][..],
            "no such golden set",
        ),
    ] {
        let out = cosim(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} exited 0: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    // u64::MAX is a seed like any other (a range end computed as seed + 1 would wrap to an empty
    // range and pass with 0 jobs)
    let out = cosim(&[
        "--seed",
        "18446744073709551615",
        "--algo",
        "max",
        "--directed",
        "none",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("; 1 passed, 0 failed"));
    // a fault the set catches: exit 1, and the replay command it prints fails alike
    let out = cosim(&[
        "--seeds",
        "0",
        "--directed",
        "reset_with_e_max_np4",
        "--fault",
        "ing_lossy_pause",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let replay = err
        .lines()
        .find_map(|l| l.split_once("replay: ").map(|(_, r)| r.to_string()))
        .unwrap_or_else(|| panic!("no replay command: {err}"));
    assert!(
        replay.ends_with(
            "cosim --config v3_np4 --algo max --seeds 0 --directed reset_with_e_max_np4 --fault ing_lossy_pause"
        ),
        "{replay}"
    );
    let args: Vec<&str> = replay
        .split_once("-- ")
        .map(|(_, a)| a.split(' ').collect())
        .expect("the replay runs capfc");
    let again = capfc(&args);
    assert_eq!(again.status.code(), Some(1));
    let fail = |e: &str| e.lines().find(|l| l.contains("FAIL")).map(str::to_string);
    assert!(fail(&err).is_some());
    assert_eq!(fail(&String::from_utf8_lossy(&again.stderr)), fail(&err));
}

/// The lockstep compares RAM writes, not RAM words, after every cycle (the words only when a write
/// differs). For every fault of the catalogue, on every directed case and random stimulus at 4 and
/// 6 ports (4-bit counters), both algorithms, it reports exactly what the every-word comparison
/// reports: the same first cycle, the same signals and values, or the same clean pass.
#[test]
fn comparing_ram_writes_reports_what_comparing_every_word_reports() {
    let all: Vec<String> = DIRECTED.iter().map(|s| s.to_string()).collect();
    let js = jobs(
        &[config("np4"), config("np6_cw4")],
        &[Mode::StopMax, Mode::StopCal],
        1..2,
        3_000,
        &all,
    );
    let verdict = |job: &Job, fault: Option<Fault>, exhaustive: bool| {
        let opts = RunOpts {
            fault,
            history: 0,
            exhaustive,
            ..RunOpts::default()
        };
        match run_job(job, &opts) {
            Ok(p) => format!("passed {} cycles", p.cycles),
            Err(Failure::Mismatch(m)) => format!("cycle {} {}: {:?}", m.cycle, m.when, m.diffs),
            Err(e) => panic!("{e}"),
        }
    };
    let (mut caught, mut runs) = (0, 0);
    let mut missed: Vec<Fault> = Fault::ALL.to_vec();
    for fault in std::iter::once(None).chain(Fault::ALL.iter().copied().map(Some)) {
        for job in &js {
            let fast = verdict(job, fault, false);
            let full = verdict(job, fault, true);
            assert_eq!(
                fast,
                full,
                "{} with fault {fault:?}: the write comparison and the every-word comparison disagree",
                job.label()
            );
            runs += 1;
            if fast.starts_with("cycle") {
                caught += 1;
                missed.retain(|f| Some(*f) != fault);
            }
        }
    }
    println!("{runs} runs agree, {caught} of them caught a fault");
    // so that the agreement is not that of two comparisons that see nothing
    assert!(missed.is_empty(), "never caught here: {missed:?}");
}

/// The block's lockstep writes a waveform window on a mismatch: the RTL's (Verilator's trace) and
/// the model's, every model signal under a name the RTL's trace has, both to `cycle + w`; at the
/// mismatch the differing register holds the two values the report gives.
#[test]
fn the_blocks_mismatch_window_has_both_sides_under_the_same_names() {
    use capfc::soak_v3::{directed_jobs, run_job, write_window, SoakError};
    let p = capfc::dut_v3::available()
        .into_iter()
        .find(|(n, _)| n == "v3_np4")
        .expect("v3_np4 is built by default")
        .1;
    let set = "reset_with_e_max_np4".to_string();
    let j = &directed_jobs(
        &[("v3_np4".into(), p)],
        &[Mode::StopMax],
        Some(std::slice::from_ref(&set)),
    )
    .unwrap()[0];
    let fault = Some(capfc::v3::fault::Fault::IngLossyPause);
    let (cycle, first) = match run_job(j, fault, false) {
        Err(SoakError::Mismatch { cycle, first, .. }) => (cycle, first),
        other => panic!("the fault was not caught: {other:?}"),
    };
    let scratch = tempfile::Builder::new()
        .prefix("capfc-wave-v3-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let w = write_window(j, fault, cycle, 6, &dir).unwrap();
    let (rtl, rtl_end) = common::vcd_names(&w.rtl);
    let (model, model_end) = common::vcd_names(&w.model);
    let missing: Vec<_> = model.iter().filter(|n| !rtl.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "model signals absent from the RTL trace: {missing:?}"
    );
    assert!(model.len() > 200, "{}", model.len());
    assert_eq!(model_end, 2 * (cycle + 6) + 1);
    assert_eq!(rtl_end, model_end);
    // "u_ingress.set4_q[0]: RTL 00000000, model 11111111"
    let (reg, vals) = first.split_once(": ").unwrap();
    let (r, m) = vals.split_once(", ").unwrap();
    let name = format!("capfc_top_oc.capfc_top_oc.{reg}");
    // (a register's difference in cycle c is in the registers as they entered it: time 2c)
    let t = 2 * cycle;
    assert_eq!(
        common::vcd_value_at(&w.rtl, &name, t).as_deref(),
        r.strip_prefix("RTL ")
    );
    assert_eq!(
        common::vcd_value_at(&w.model, &name, t).as_deref(),
        m.strip_prefix("model ")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
