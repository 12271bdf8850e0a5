//! The reference checker on the test subject v2 (`check/capfc_v2`, the previous block, every
//! module `capfc_v2_*`): a CaPFC implementation with other timing than the block's (every lane
//! answered in the cycle it is seen, a streaming sort engine per egress port), replayed by the
//! plain Verilog testbench (`testbench/capfc_tb.sv`) under Icarus on its golden sets (`golden/`)
//! and read by `capfc check` through `check/capfc_v2/capfc_v2.map.toml` within v2's envelope
//! (`capfc check --envelope np4`).
//!
//! - No false alarm on the clean v2 over its directed and random sets.
//! - The kill matrix: every seeded bug (`-DCAPFC_V2_BUG_<NAME>`, check/capfc_v2/README.md)
//!   changes the outputs on its set (the testbench's comparison with the set's `expect.hex` names
//!   the first cycle and ports that differ: the corner happened), and the checker's first report
//!   is of the expected kind, on a signal that differs in that cycle, at that cycle or, for a rule
//!   judged at a deadline, by the end of its window. `make kill-matrix` prints the matrix.

mod common;

use capfc::block::{BlockParams, Mode};
use capfc::check::{Kind, Violation};
use common::v1::{check_wave, first_report, map_for, need_icarus, run_ok, signal_of, slack, ROOT};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A seeded bug of v2, the rule it breaks, the golden set that exposes it and the kinds of first
/// report that kill it.
struct Bug {
    name: &'static str,
    rule: &'static str,
    set: &'static str,
    kinds: &'static [Kind],
}

fn bugs() -> Vec<Bug> {
    vec![
        Bug {
            name: "DROP_FITS",
            rule: "accept when B + s <= MAX (`<` drops a packet that fits exactly)",
            set: "thresholds_exact_max_np4",
            kinds: &[Kind::Accept],
        },
        Bug {
            name: "XOFF_AT",
            rule: "I is set above XOFF_i (`>=` sets it at XOFF_i)",
            set: "thresholds_exact_max_np4",
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "XON_BELOW",
            rule: "I is cleared at XON_i (`<` only below it)",
            set: "thresholds_exact_max_np4",
            kinds: &[Kind::StuckPause],
        },
        Bug {
            name: "CLEAR_BELOW_WARN",
            rule: "C's row is cleared at WARN_e (`<` only below it)",
            set: "clear_at_warn_max_np4",
            kinds: &[Kind::MissingSelection, Kind::SpuriousPause],
        },
        Bug {
            name: "COUNTER_WRAP",
            rule: "C saturates at 2^CW - 1 (it wraps to 0)",
            set: "counter_saturation_max_np6_cw4",
            kinds: &[Kind::SpuriousPause, Kind::MissingSelection],
        },
        Bug {
            name: "TIE_HIGH",
            rule: "Stop-Max ties go to the lowest input (`>=` gives the highest)",
            set: "argmax_tie_max_np4",
            kinds: &[Kind::SpuriousPause, Kind::MissingSelection],
        },
        Bug {
            name: "XON_NEVER",
            rule: "a frame enables the classes it resumes (d | sent)",
            set: "xon_during_sort_max_np4",
            kinds: &[Kind::FrameMissing, Kind::FrameContent],
        },
        Bug {
            name: "LATE_REFRESH",
            rule: "a held pause is sent again every refresh period (8 cycles late)",
            set: "refresh_expiry_max_np4",
            kinds: &[Kind::Refresh],
        },
    ]
}

fn work_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check_v2");
    std::fs::create_dir_all(&d).expect("work dir");
    d
}

/// v2's RTL files in compile order (check/capfc_v2/files.f).
fn v2_files() -> Vec<PathBuf> {
    std::fs::read_to_string(Path::new(ROOT).join("check/capfc_v2/files.f"))
        .expect("check/capfc_v2/files.f")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .map(|l| Path::new(ROOT).join(l))
        .collect()
}

/// The `CAPFC_V2_BUG_` defines of v2's RTL.
fn seeded_bugs() -> std::collections::BTreeSet<String> {
    let mut seeded = std::collections::BTreeSet::new();
    for f in v2_files() {
        let text = std::fs::read_to_string(&f).expect("rtl file");
        let tag = "`ifdef CAPFC_V2_BUG_";
        for (k, _) in text.match_indices(tag) {
            seeded.insert(
                text[k + tag.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect(),
            );
        }
    }
    seeded
}

fn set_dir(set: &str) -> PathBuf {
    Path::new(ROOT).join("golden").join(set)
}

/// A golden set's parameters, from its params.vh.
fn params(set: &str) -> BlockParams {
    let text = std::fs::read_to_string(set_dir(set).join("params.vh")).expect("params.vh");
    let def = |n: &str| -> u32 {
        let key = format!("`define CAPFC_{n} ");
        text.lines()
            .find_map(|l| l.strip_prefix(&key))
            .unwrap_or_else(|| panic!("{set}: params.vh has no CAPFC_{n}"))
            .trim()
            .parse()
            .expect("a number")
    };
    BlockParams::from_values(&[
        def("NP"),
        def("SW"),
        def("OW"),
        def("CW"),
        def("CELL_LOG2"),
        def("CUT_F"),
        def("NL"),
    ])
}

fn mode(set: &str) -> Mode {
    if set.contains("_cal_") {
        Mode::StopCal
    } else {
        Mode::StopMax
    }
}

/// One replay of v2 on a set under Icarus: its waveform, and the first cycle whose outputs
/// differ from the set's expect.hex with the ports that differ in it.
struct Run {
    vcd: PathBuf,
    first: Option<(u64, Vec<String>)>,
    failed: u64,
}

fn simulate(set: &str, bug: Option<&str>) -> Run {
    let tag = format!("{set}_{}", bug.unwrap_or("clean"));
    let (vvp, vcd) = (
        work_dir().join(format!("{tag}.vvp")),
        work_dir().join(format!("{tag}.vcd")),
    );
    let mut c = Command::new("iverilog");
    c.args(["-g2012", "-s", "capfc_tb", "-I"])
        .arg(set_dir(set))
        .arg("-o")
        .arg(&vvp);
    if let Some(b) = bug {
        c.arg(format!("-DCAPFC_V2_BUG_{b}"));
    }
    c.args(v2_files())
        .arg(Path::new(ROOT).join("testbench/capfc_tb.sv"));
    run_ok(&mut c, &format!("iverilog {tag}"));
    // (the testbench exits non-zero on a mismatch: its lines are the point here)
    let o = Command::new("vvp")
        .arg("-n")
        .arg(&vvp)
        .arg(format!("+GOLDEN={}", set_dir(set).display()))
        .arg(format!("+DUMP={}", vcd.display()))
        .output()
        .expect("vvp runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let failed = out
        .lines()
        .find_map(|l| {
            let (p, f) = l.split_once(" passed, ")?;
            p.parse::<u64>().ok()?;
            f.strip_suffix(" failed")?.parse().ok()
        })
        .unwrap_or_else(|| panic!("vvp {tag}: no verdict line:\n{out}"));
    let mut first: Option<(u64, Vec<String>)> = None;
    for l in out.lines() {
        let Some(rest) = l.strip_prefix("cycle ") else {
            continue;
        };
        let Some((c, tail)) = rest.split_once(": ") else {
            continue;
        };
        let (Ok(c), Some(port)) = (c.parse::<u64>(), tail.split_whitespace().next()) else {
            continue;
        };
        match &mut first {
            None => first = Some((c, vec![port.to_string()])),
            Some((fc, ports)) if *fc == c => ports.push(port.to_string()),
            Some(_) => break,
        }
    }
    Run { vcd, first, failed }
}

fn check(set: &str, run: &Run) -> Vec<Violation> {
    let p = params(set);
    let text = std::fs::read_to_string(Path::new(ROOT).join("check/capfc_v2/capfc_v2.map.toml"))
        .expect("the v2 map");
    check_wave(
        &run.vcd,
        &map_for(&text, &p),
        capfc::check::block::envelope_of(&p),
        set,
    )
    .0
}

#[test]
fn the_test_subject_v2_checks_clean() {
    need_icarus();
    let mut sets: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("golden"))
        .expect("golden/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| set_dir(n).join("params.vh").is_file())
        // (the set recorded from the switch: 60,000 cycles, `make replay-all` replays it)
        .filter(|n| !n.starts_with("switch_"))
        .collect();
    sets.sort();
    assert!(sets.len() >= 30, "v2's golden sets: {sets:?}");
    let mut failed = vec![];
    for s in &sets {
        let run = simulate(s, None);
        assert_eq!(run.failed, 0, "{s}: the clean v2 differs from its set");
        if let Some(v) = check(s, &run).first() {
            failed.push(format!("{s}: {v}"));
        }
    }
    assert!(
        failed.is_empty(),
        "false alarms on the clean v2:\n{}",
        failed.join("\n")
    );
}

#[test]
fn every_seeded_bug_of_v2_is_caught_where_it_shows() {
    need_icarus();
    let bugs = bugs();
    let listed: std::collections::BTreeSet<String> =
        bugs.iter().map(|b| b.name.to_string()).collect();
    assert_eq!(
        seeded_bugs(),
        listed,
        "the seeded bugs of v2's RTL and the matrix differ"
    );
    let mut rows = vec![format!(
        "{:<17} {:<64} {:<31} {:<18} {:<40} verdict",
        "bug", "rule", "set", "first difference", "first report"
    )];
    let mut survivors = vec![];
    for b in &bugs {
        let run = simulate(b.set, Some(b.name));
        let v = check(b.set, &run);
        let first = v.first();
        let env = capfc::check::block::envelope_of(&params(b.set));
        let ok = match (&run.first, first) {
            (Some((dc, ports)), Some(f)) => {
                // (a frame's report is on any of its fields: valid, the classes, XOFF, quanta)
                let port = signal_of(f);
                b.kinds.contains(&f.kind)
                    && ports
                        .iter()
                        .any(|p| p == port || (port == "pfc_valid" && p.starts_with("pfc_")))
                    && f.cycle >= *dc
                    && f.cycle <= dc + slack(port, &env, mode(b.set))
            }
            _ => false,
        };
        if !ok {
            survivors.push(b.name);
        }
        rows.push(format!(
            "{:<17} {:<64} {:<31} {:<18} {:<40} {}",
            b.name,
            b.rule,
            b.set,
            run.first
                .as_ref()
                .map_or("no difference".into(), |(c, p)| format!(
                    "{c} {}",
                    p.join(",")
                )),
            first_report(first),
            if ok { "killed" } else { "SURVIVED" }
        ));
    }
    println!("{}", rows.join("\n"));
    assert!(
        survivors.is_empty(),
        "seeded bugs of v2 not caught as required: {survivors:?}\n{}",
        rows.join("\n")
    );
}
