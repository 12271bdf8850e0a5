//! The reference checker on a second, independent CaPFC implementation: `check/capfc_v1`, the
//! block's micro-architecture before its redesign (counters in flip-flops, one sort at a time in
//! round robin over the egress queues with a single row snapshot, a PFC pulse with per-class
//! pause times and no ready). Its waveforms come from Icarus; `capfc check` reads them through
//! `check/capfc_v1/capfc_v1.map.toml` within `check/capfc_v1/capfc_v1.timing.toml`.
//!
//! - No false alarm on the clean v1 over random and directed sets in both algorithms.
//! - The kill matrix: every seeded bug (`-DCAPFC_V1_BUG_<NAME>`) changes the waveform on its set
//!   (so the corner happened) and the checker's first report is of the expected kind, on the
//!   signal that first differs from the clean run, at the cycle where it first differs (or, for a
//!   rule with a deadline, at the deadline that follows). `make kill-matrix` prints the matrix.

mod common;

use capfc::block::Mode;
use capfc::check::{Envelope, Violation};
use common::v1::{
    bugs, check_wave, first_report, need_icarus, run_ok, runs_dir, seeded_bugs, signal_of, slack,
    v1_dir, v1_envelope, v1_map, v1_rtl, Bug, Set,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

fn work_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check_v1");
    std::fs::create_dir_all(&d).expect("work dir");
    d
}

/// What one simulation of the v1 block gave: its waveform and its output trace.
struct Run {
    vcd: PathBuf,
    trace: Vec<String>,
}

/// Compile the v1 testbench for a set with a seeded bug (or none) under Icarus and run it.
fn simulate(set: &Set, bug: Option<&str>) -> Run {
    simulate_as(set, bug, false)
}

/// [`simulate`], the block behind team_pfc's names and encodings when `team`.
fn simulate_as(set: &Set, bug: Option<&str>, team: bool) -> Run {
    simulate_into(set, bug, team, &runs_dir(&work_dir()))
}

/// The clean block's run of `set`, simulated once for every test of this file that needs it (the
/// clean sets, the kill matrix's references, the map's), whichever thread asks first.
fn clean_run(set: &Set) -> Arc<Run> {
    type Cells = Mutex<HashMap<String, Arc<OnceLock<Arc<Run>>>>>;
    static CLEAN: OnceLock<Cells> = OnceLock::new();
    let cell = Arc::clone(
        CLEAN
            .get_or_init(Default::default)
            .lock()
            .expect("the clean runs' index")
            .entry(set.name())
            .or_default(),
    );
    let run = cell.get_or_init(|| {
        let out = work_dir().join("runs").join("clean");
        std::fs::create_dir_all(&out).expect("runs dir");
        Arc::new(simulate_into(set, None, false, &out))
    });
    Arc::clone(run)
}

/// [`simulate_as`] into the directory `out`.
fn simulate_into(set: &Set, bug: Option<&str>, team: bool, out: &Path) -> Run {
    let (dir, cycles) = set.make(&work_dir());
    let tag = format!(
        "{}_{}{}",
        set.name(),
        bug.unwrap_or("clean"),
        if team { "_team" } else { "" }
    );
    let vvp = out.join(format!("{tag}.vvp"));
    let vcd = out.join(format!("{tag}.vcd"));
    let trace = out.join(format!("{tag}.trace"));
    let mut files = v1_rtl();
    if team {
        files.push(v1_dir().join("team/team_pfc.sv"));
    }
    files.push(v1_dir().join("capfc_v1_tb.sv"));
    let mut c = Command::new("iverilog");
    c.args(["-g2012", "-s", "capfc_v1_tb", "-I"])
        .arg(&dir)
        .arg("-o")
        .arg(&vvp);
    if let Some(b) = bug {
        c.arg(format!("-DCAPFC_V1_BUG_{b}"));
    }
    if team {
        c.arg("-DCAPFC_V1_TEAM");
    }
    c.args(&files);
    run_ok(&mut c, &format!("iverilog {tag}"));
    let stdout = run_ok(
        Command::new("vvp")
            .arg("-n")
            .arg(&vvp)
            .arg(format!("+GOLDEN={}", dir.display()))
            .arg(format!("+CYCLES={cycles}"))
            .arg(format!("+DUMP={}", vcd.display()))
            .arg(format!("+TRACE={}", trace.display())),
        &format!("vvp {tag}"),
    );
    assert!(stdout.contains("capfc_v1_tb:"), "vvp {tag}: {stdout}");
    let trace = std::fs::read_to_string(&trace)
        .expect("trace")
        .lines()
        .map(String::from)
        .collect();
    Run { vcd, trace }
}

/// Check a v1 waveform; every violation (in order) and the number of cycles checked.
fn check(set: &Set, run: &Run) -> (Vec<Violation>, u64) {
    let (v, s) = check_with(set, run, &v1_map(&set.params()));
    (v, s.cycles)
}

/// Check a waveform through a map's text; every violation (in order) and the summary.
fn check_with(set: &Set, run: &Run, map_text: &str) -> (Vec<Violation>, capfc::check::Summary) {
    let env = v1_envelope(set.params().np as u64);
    check_wave(&run.vcd, map_text, env, &set.name())
}

/// The trace's fields, in the order capfc_v1_tb writes them.
const FIELDS: [&str; 6] = [
    "arr_accept",
    "enq_accept",
    "pfc_valid",
    "pfc_cev",
    "pfc_quanta",
    "d_state",
];

/// The first cycle and output where two traces differ.
fn first_difference(a: &[String], b: &[String]) -> Option<(u64, &'static str)> {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            let xs: Vec<&str> = x.split_whitespace().collect();
            let ys: Vec<&str> = y.split_whitespace().collect();
            let cycle = xs[0].parse().expect("a cycle");
            let f = (1..xs.len()).find(|&k| xs[k] != ys[k]).expect("a field");
            return Some((cycle, FIELDS[f - 1]));
        }
    }
    None
}

/// One row of the kill matrix, and whether the bug is killed as required.
fn kill_row(b: &Bug, clean: &Run) -> (String, bool) {
    let run = simulate(&b.set, Some(b.name));
    let diff = first_difference(&clean.trace, &run.trace);
    let (v, _) = check(&b.set, &run);
    let first = v.first();
    let env = v1_envelope(b.set.params().np as u64);
    let ok = match (diff, first) {
        (Some((dc, ds)), Some(f)) => {
            b.kinds.contains(&f.kind)
                && signal_of(f) == ds
                && f.cycle >= dc
                && f.cycle <= dc + slack(ds, &env, b.set.mode())
        }
        _ => false,
    };
    let row = format!(
        "{:<17} {:<48} {:<38} {:<22} {:<26} {}",
        b.name,
        b.rule,
        b.set.name(),
        diff.map_or("no difference".into(), |(c, s)| format!("{c} {s}")),
        first_report(first),
        if ok { "killed" } else { "SURVIVED" }
    );
    (row, ok)
}

#[test]
fn the_second_implementation_checks_clean() {
    need_icarus();
    use Mode::{StopCal, StopMax};
    let mut sets = vec![];
    for m in [StopMax, StopCal] {
        for seed in 1..=3 {
            sets.push(Set::Random("np4", m, seed, 6000));
        }
        sets.push(Set::Random("np8", m, 1, 3000));
        sets.push(Set::Random("np6_cw4", m, 1, 3000));
    }
    for case in capfc::stimulus::DIRECTED {
        for m in [StopMax, StopCal] {
            if capfc::stimulus::directed(&capfc::golden::params_of("np4").unwrap(), m, case)
                .is_some()
            {
                sets.push(Set::Directed(case, "np4", m));
            }
        }
    }
    let mut total = 0;
    let mut failed = vec![];
    for s in &sets {
        let run = clean_run(s);
        let (v, cycles) = check(s, &run);
        total += cycles;
        if let Some(f) = v.first() {
            failed.push(format!("{}: {f}", s.name()));
        }
    }
    assert!(
        failed.is_empty(),
        "false alarms on the clean v1 block:\n{}",
        failed.join("\n")
    );
    eprintln!(
        "check_v1: {} sets, {total} cycles, no false alarm",
        sets.len()
    );
}

#[test]
fn every_seeded_bug_of_the_second_implementation_is_caught_where_it_shows() {
    need_icarus();
    let bugs = bugs();
    assert!(bugs.len() >= 10);
    // every bug seeded in the RTL is in the matrix, and every one in the matrix is in the RTL
    let seeded = seeded_bugs();
    let listed: std::collections::BTreeSet<String> =
        bugs.iter().map(|b| b.name.to_string()).collect();
    assert_eq!(
        seeded, listed,
        "the seeded bugs of the RTL and the matrix differ"
    );
    let mut rows = vec![format!(
        "{:<17} {:<48} {:<38} {:<22} {:<26} verdict",
        "bug", "rule", "set", "first difference", "first report"
    )];
    let mut survivors = vec![];
    let mut cleans: HashMap<String, Arc<Run>> = Default::default();
    for b in &bugs {
        let key = b.set.name();
        if !cleans.contains_key(&key) {
            let run = clean_run(&b.set);
            let (v, _) = check(&b.set, &run);
            assert!(v.is_empty(), "{key}: the clean v1 has a report: {}", v[0]);
            cleans.insert(key.clone(), run);
        }
        let (row, ok) = kill_row(b, &cleans[&key]);
        if !ok {
            survivors.push(b.name);
        }
        rows.push(row);
    }
    println!("{}", rows.join("\n"));
    assert!(
        survivors.is_empty(),
        "seeded bugs not caught as required: {survivors:?}\n{}",
        rows.join("\n")
    );
}

#[test]
fn the_checked_in_envelope_is_the_formula_at_four_ports() {
    let path = v1_dir().join("capfc_v1.timing.toml");
    let text = std::fs::read_to_string(&path).expect("the envelope");
    let e = Envelope::parse(&text, &path.to_string_lossy()).expect("parses");
    assert_eq!(e, v1_envelope(4));
}

/// A map written from the README alone for the same block behind other names and encodings
/// (check/capfc_v1/team: one signal per port, active-low reset, D priority-major, an XOFF vector)
/// reads the same cycles, lanes, changes and frames, and reports a seeded bug identically.
#[test]
fn a_map_of_other_names_and_encodings_reads_the_same_block() {
    need_icarus();
    let team_map =
        std::fs::read_to_string(v1_dir().join("team/team_pfc.map.toml")).expect("the team map");
    let set = Set::Random("np4", Mode::StopMax, 3, 6000);
    let ours = clean_run(&set);
    let theirs = simulate_as(&set, None, true);
    let (v_ours, s_ours) = check_with(&set, &ours, &v1_map(&set.params()));
    let (v_theirs, s_theirs) = check_with(&set, &theirs, &team_map);
    assert!(v_ours.is_empty() && v_theirs.is_empty());
    let key = |s: &capfc::check::Summary| {
        (
            s.cycles,
            s.lanes,
            s.accepts,
            s.d_changes,
            s.obligations,
            s.frames,
        )
    };
    assert_eq!(key(&s_ours), key(&s_theirs));
    assert!(s_ours.d_changes > 100 && s_ours.frames > 100);
    for bug in ["XON_NEVER", "WRONG_VICTIM"] {
        let (a, _) = check_with(&set, &simulate(&set, Some(bug)), &v1_map(&set.params()));
        let (b, _) = check_with(&set, &simulate_as(&set, Some(bug), true), &team_map);
        let first = |v: &[Violation]| v.first().map(|f| (f.cycle, f.kind, f.signal.clone()));
        assert!(first(&a).is_some(), "{bug}: not caught");
        assert_eq!(first(&a), first(&b), "{bug}: the two maps disagree");
    }
}
