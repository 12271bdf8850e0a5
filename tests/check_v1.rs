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

use capfc::block::{BlockParams, Mode};
use capfc::check::{Checker, Envelope, Kind, Violation, Window};
use capfc::check_wave::{Map, Wave};
use capfc::golden::Source;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn v1_dir() -> PathBuf {
    Path::new(ROOT).join("check/capfc_v1")
}

/// The v1 block's timing envelope at NP ports (check/capfc_v1/capfc_v1.timing.toml gives NP = 4).
fn v1_envelope(np: u64) -> Envelope {
    let nq = 8 * np;
    Envelope {
        accept_latency: 0,
        accept_sees_removals: false,
        order: Default::default(),
        snapshot_stride: 0,
        ingress: Window::exact(1),
        e_clear: Window::exact(1),
        stop_max: Window {
            min: 3,
            max: 3 + 2 * nq,
        },
        stop_cal: Window {
            min: np + 2,
            max: np + 2 + nq * (np + 1),
        },
        frame: Window::exact(1),
        refresh: Window::exact(1),
        reset: 1,
        link_bits_per_cycle: 8,
    }
}

/// The map for a parameter set: the checked-in map with its [params] and register width set.
fn v1_map(p: &BlockParams) -> String {
    let text = std::fs::read_to_string(v1_dir().join("capfc_v1.map.toml")).expect("the v1 map");
    let mut out = String::new();
    for line in text.lines() {
        let l = match line.split('=').next().map(str::trim) {
            Some("np") => format!("np = {}", p.np),
            Some("cw") => format!("cw = {}", p.cw),
            Some("cell_log2") => format!("cell_log2 = {}", p.cell_log2),
            Some("cut_f") => format!("cut_f = {}", p.cut_f),
            Some("ow") => format!("ow = {}", p.ow),
            _ => line.to_string(),
        };
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn work_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check_v1");
    std::fs::create_dir_all(&d).expect("work dir");
    d
}

/// A stimulus set for the v1 block.
#[derive(Clone, Copy, Debug)]
enum Set {
    Directed(&'static str, &'static str, Mode),
    Random(&'static str, Mode, u64, u64),
}

impl Set {
    fn name(&self) -> String {
        match self {
            Set::Directed(c, cfg, m) => format!("{c}_{}_{cfg}", m.name()),
            Set::Random(cfg, m, seed, n) => format!("random_{}_{cfg}_seed{seed}_{n}", m.name()),
        }
    }

    fn config(&self) -> &'static str {
        match self {
            Set::Directed(_, c, _) | Set::Random(c, ..) => c,
        }
    }

    fn params(&self) -> BlockParams {
        capfc::golden::params_of(self.config()).expect("a parameter set")
    }

    /// Write the set (once per test process: the tests run in parallel and share sets) and
    /// return its directory and cycle count.
    fn make(&self) -> (PathBuf, u64) {
        static MADE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        let dir = work_dir().join("sets").join(self.name());
        let src = match *self {
            Set::Directed(c, _, m) => Source::Directed {
                case: c.into(),
                mode: m,
            },
            Set::Random(_, m, seed, cycles) => Source::Random {
                seed,
                cycles,
                mode: m,
                steady: true,
            },
        };
        if !made.contains(&self.name()) {
            let f = capfc::golden::build(&self.name(), &self.params(), &src).expect("builds");
            capfc::golden::write(&dir, &f).expect("writes");
            made.push(self.name());
        }
        let vh = std::fs::read_to_string(dir.join("params.vh")).expect("params.vh");
        let cycles = vh
            .lines()
            .find_map(|l| l.strip_prefix("`define CAPFC_CYCLES "))
            .and_then(|v| v.trim().parse().ok())
            .expect("CAPFC_CYCLES");
        (dir, cycles)
    }
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
    let (dir, cycles) = set.make();
    let tag = format!(
        "{}_{}{}",
        set.name(),
        bug.unwrap_or("clean"),
        if team { "_team" } else { "" }
    );
    // one directory per test (its thread's name): tests running at once never share a file
    let who = std::thread::current()
        .name()
        .unwrap_or("main")
        .replace("::", "_");
    let out = work_dir().join("runs").join(who);
    std::fs::create_dir_all(&out).expect("runs dir");
    let vvp = out.join(format!("{tag}.vvp"));
    let vcd = out.join(format!("{tag}.vcd"));
    let trace = out.join(format!("{tag}.trace"));
    let rtl = v1_dir().join("rtl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&rtl)
        .expect("rtl dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sv"))
        .collect();
    files.sort();
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
    let o = c.output().expect("iverilog runs (make deps installs it)");
    assert!(
        o.status.success(),
        "iverilog {tag}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new("vvp")
        .arg("-n")
        .arg(&vvp)
        .arg(format!("+GOLDEN={}", dir.display()))
        .arg(format!("+CYCLES={cycles}"))
        .arg(format!("+DUMP={}", vcd.display()))
        .arg(format!("+TRACE={}", trace.display()))
        .output()
        .expect("vvp runs");
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("capfc_v1_tb:"),
        "vvp {tag}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
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
    let p = set.params();
    let map = Map::parse(map_text, "map.toml").expect("the map parses");
    let mut w = Wave::load(&run.vcd.to_string_lossy(), map, map_text, "map.toml")
        .expect("the waveform loads");
    let mut ck = Checker::new(
        w.params(),
        w.initial_config(),
        v1_envelope(p.np as u64),
        w.reset_clears_config(),
    )
    .expect("a checker");
    let mut v = vec![];
    w.cycles(|_, c| {
        v.extend(ck.step(c));
        true
    });
    v.extend(ck.finish());
    let s = ck.summary().clone();
    assert!(s.lanes > 0, "{}: nothing checked", set.name());
    (v, s)
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

/// The waveform signal a checker report names (its `signal`).
fn signal_of(v: &Violation) -> &'static str {
    let s = v.signal.as_str();
    if s.starts_with("d[") {
        "d_state"
    } else if s.starts_with("arr_accept") {
        "arr_accept"
    } else if s.starts_with("enq_accept") {
        "enq_accept"
    } else if s.starts_with("frame[") {
        "pfc_valid"
    } else {
        "other"
    }
}

/// A seeded bug of the v1 block, the rule it breaks, the set that exposes it and what the checker
/// must say.
struct Bug {
    name: &'static str,
    rule: &'static str,
    set: Set,
    /// The kinds of first report that kill it: a wrong selection shows either as a pause the
    /// reference cannot explain (at once) or as the right victim missing (at the window's end).
    kinds: &'static [Kind],
}

fn bugs() -> Vec<Bug> {
    use Mode::{StopCal, StopMax};
    vec![
        Bug {
            name: "WRONG_VICTIM",
            rule: "Stop-Max pauses the largest contributor",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::SpuriousPause, Kind::MissingSelection],
        },
        Bug {
            name: "XON_NEVER",
            rule: "a frame for every change of D (resume: quanta 0)",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::FrameMissing],
        },
        Bug {
            name: "LATE_PAUSE",
            rule: "E within the declared Stop-Max window",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::MissingSelection],
        },
        Bug {
            name: "DROP_FITS",
            rule: "accept when occupancy + size <= MAX",
            set: Set::Directed("thresholds_exact", "np4", StopMax),
            kinds: &[Kind::Accept],
        },
        Bug {
            name: "LOST_FRAME",
            rule: "no frame lost when several ports change at once",
            set: Set::Random("np4", StopCal, 3, 6000),
            kinds: &[Kind::FrameMissing],
        },
        Bug {
            name: "LATE_REFRESH",
            rule: "refresh at the configured period",
            set: Set::Directed("refresh_expiry", "np4", StopMax),
            kinds: &[Kind::Refresh],
        },
        Bug {
            name: "TIE_HIGH",
            rule: "argmax ties go to the lowest index",
            set: Set::Directed("argmax_tie", "np4", StopMax),
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "CUT_OFF_BY_ONE",
            rule: "Stop-Calibrate stops at S >= CUT * T",
            // the tie case in Stop-Calibrate lands S * 2^CUT_F on CUT * T exactly
            set: Set::Directed("argmax_tie", "np4", StopCal),
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "COUNTER_WRAP",
            rule: "C saturates at 2^CW - 1",
            set: Set::Directed("counter_saturation", "np6_cw4", StopMax),
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "CLEAR_BELOW_WARN",
            rule: "C is cleared at WARN_e, not below it",
            set: Set::Directed("clear_at_warn", "np4", StopMax),
            kinds: &[Kind::SpuriousPause, Kind::MissingSelection],
        },
        Bug {
            name: "E_STUCK",
            rule: "E clears when the queue falls to XON_e",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::StuckPause],
        },
        Bug {
            name: "LOSSY_PAUSE",
            rule: "I for the lossless classes, and only them",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::LossyPause, Kind::MissingPause],
        },
    ]
}

/// The latest cycle after the first difference at which the report may come, by the signal that
/// differs: an accept is judged in its cycle; a change of D that did not happen can be judged only
/// when the selection window closes; a frame that did not come, when the frame window closes.
fn slack(signal: &str, env: &Envelope, mode: Mode) -> u64 {
    match signal {
        "d_state" => env.selection(mode).max,
        "pfc_valid" | "pfc_cev" | "pfc_quanta" => env.frame.max + 1,
        _ => 0,
    }
}

fn mode_of(s: &Set) -> Mode {
    match *s {
        Set::Directed(_, _, m) | Set::Random(_, m, ..) => m,
    }
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
                && f.cycle <= dc + slack(ds, &env, mode_of(&b.set))
        }
        _ => false,
    };
    let row = format!(
        "{:<17} {:<48} {:<38} {:<22} {:<26} {}",
        b.name,
        b.rule,
        b.set.name(),
        diff.map_or("no difference".into(), |(c, s)| format!("{c} {s}")),
        first.map_or("nothing".into(), |f| format!(
            "{} {} {}",
            f.cycle,
            f.kind.name(),
            f.signal
        )),
        if ok { "killed" } else { "SURVIVED" }
    );
    (row, ok)
}

fn need_icarus() {
    let ok = Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "iverilog is missing: `make deps` installs it");
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
        let run = simulate(s, None);
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
    let mut seeded = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(v1_dir().join("rtl")).expect("rtl dir") {
        let text = std::fs::read_to_string(e.expect("entry").path()).expect("rtl file");
        for (k, _) in text.match_indices("`ifdef CAPFC_V1_BUG_") {
            let name: String = text[k + "`ifdef CAPFC_V1_BUG_".len()..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect();
            seeded.insert(name);
        }
        for (k, _) in text.match_indices("`elsif CAPFC_V1_BUG_") {
            let name: String = text[k + "`elsif CAPFC_V1_BUG_".len()..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect();
            seeded.insert(name);
        }
    }
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
    let mut cleans: std::collections::HashMap<String, Run> = Default::default();
    for b in &bugs {
        let key = b.set.name();
        if !cleans.contains_key(&key) {
            let run = simulate(&b.set, None);
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
    let ours = simulate(&set, None);
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
