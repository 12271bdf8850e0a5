//! The rule assertions of check/sva/capfc_props.sv under Verilator `--assert`, in both testbenches:
//! no failed check on our block (golden sets) nor on the clean second implementation (random and
//! directed sets), and six of the second implementation's seeded bugs each failing the rule they
//! break, at the cycle where `capfc check` reports them.

use capfc::block::Mode;
use capfc::golden::Source;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::need_verilator;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn work() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sva");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 4-port set for the v1 testbench: random (steady configuration) or directed.
fn set(name: &str, src: Source) -> PathBuf {
    let d = work().join("sets").join(name);
    let p = capfc::golden::params_of("np4").unwrap();
    capfc::golden::write(&d, &capfc::golden::build(name, &p, &src).unwrap()).unwrap();
    d
}

fn random(mode: Mode, seed: u64, cycles: u64) -> PathBuf {
    set(
        &format!("random_{}_seed{seed}_{cycles}", mode.name()),
        Source::Random {
            seed,
            cycles,
            mode,
            steady: true,
        },
    )
}

fn directed(case: &str, mode: Mode) -> PathBuf {
    set(
        &format!("{case}_{}", mode.name()),
        Source::Directed {
            case: case.into(),
            mode,
        },
    )
}

fn cycles_of(set: &Path) -> String {
    std::fs::read_to_string(set.join("params.vh"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("`define CAPFC_CYCLES "))
        .unwrap()
        .trim()
        .to_string()
}

fn verilate(name: &str, top: &str, inc: &Path, defines: &[&str], files: &[PathBuf]) -> PathBuf {
    let mdir = work().join(name);
    let _ = std::fs::remove_dir_all(&mdir);
    let o = Command::new("verilator")
        .args([
            "--binary",
            "--assert",
            "-j",
            "2",
            // (all of it at -O0: the runs are a few thousand cycles; -CFLAGS -O0 alone comes
            // before verilated.mk's -Os and loses to it. The test: 87 s of CPU at -Os, 68 s so)
            "-MAKEFLAGS",
            "OPT_FAST=-O0 OPT_GLOBAL=-O0",
            "-Wno-fatal",
        ])
        .args(["--top-module", top])
        .arg(format!("-I{}", inc.display()))
        .arg("--Mdir")
        .arg(&mdir)
        .args(["-o", "tb"])
        .args(defines)
        .arg(root().join("check/sva/capfc_props.sv"))
        .args(files)
        .output()
        .expect("verilator runs (make deps installs it)");
    assert!(
        o.status.success(),
        "verilator {name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    mdir.join("tb")
}

/// Run a testbench; the "capfc_props: ..." lines it printed (failures, then the count).
fn run(bin: &Path, args: &[String]) -> Vec<String> {
    let (_, text) = common::run_tb(bin, args, 1_000_000);
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.split("capfc_props: ").nth(1).map(String::from))
        .collect();
    assert!(
        lines.iter().any(|l| l.ends_with("failed checks")),
        "{}: no summary\n{text}",
        bin.display()
    );
    lines
}

fn v1_files() -> Vec<PathBuf> {
    let mut f: Vec<PathBuf> = std::fs::read_dir(root().join("check/capfc_v1/rtl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    f.sort();
    f.push(root().join("check/capfc_v1/capfc_v1_tb.sv"));
    f
}

#[test]
fn no_failed_check_on_either_clean_implementation() {
    need_verilator();
    // the second implementation: one build serves every 4-port set (+CYCLES per set)
    let mut sets = vec![];
    for m in [Mode::StopMax, Mode::StopCal] {
        for seed in 1..=3 {
            sets.push(random(m, seed, 6000));
        }
        for case in capfc::stimulus::DIRECTED {
            let p = capfc::golden::params_of("np4").unwrap();
            if capfc::stimulus::directed(&p, m, case).is_some() {
                sets.push(directed(case, m));
            }
        }
    }
    let bin = verilate(
        "v1_clean",
        "capfc_v1_tb",
        &sets[0],
        &["-DCAPFC_V1_PROPS"],
        &v1_files(),
    );
    for s in &sets {
        let out = run(
            &bin,
            &[
                format!("+GOLDEN={}", s.display()),
                format!("+CYCLES={}", cycles_of(s)),
            ],
        );
        assert_eq!(out, vec!["0 failed checks".to_string()], "{}", s.display());
    }
    // our block on its golden 4-port sets (one shared build, as make replay makes them)
    let r = root();
    let mut files: Vec<PathBuf> = std::fs::read_to_string(r.join("check/capfc_v2/files.f"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .map(|l| r.join(l))
        .collect();
    files.push(r.join("testbench/capfc_tb.sv"));
    let golden: Vec<PathBuf> = capfc::golden::list_sets(&r.join("golden"))
        .into_iter()
        .filter(|d| {
            d.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("_np4"))
        })
        .collect();
    assert!(golden.len() > 20);
    let bin = verilate(
        "ours",
        "capfc_tb",
        &golden[0],
        &["-DCAPFC_PROPS", "+define+CAPFC_LINES_MAX=65536"],
        &files,
    );
    for g in &golden {
        let out = run(&bin, &common::replay_args(g));
        assert_eq!(out, vec!["0 failed checks".to_string()], "{}", g.display());
    }
}

#[test]
fn six_seeded_bugs_each_fail_the_rule_they_break() {
    need_verilator();
    let r3 = random(Mode::StopMax, 3, 6000);
    let c3 = random(Mode::StopCal, 3, 6000);
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        (
            "DROP_FITS",
            directed("thresholds_exact", Mode::StopMax),
            "ACCEPT_ING cycle 545 ",
        ),
        ("LOSSY_PAUSE", r3.clone(), "PAUSE_AT_XOFF cycle 90 "),
        ("XON_NEVER", r3.clone(), "FRAME_PER_CHANGE cycle 93 "),
        ("LOST_FRAME", c3, "FRAME_PER_CHANGE cycle 136 "),
        (
            "LATE_REFRESH",
            directed("refresh_expiry", Mode::StopMax),
            "REFRESH cycle 102 ",
        ),
        // the assertion, which knows no E, sees it only when no egress queue of the priority is
        // above XON_e any more: on this set, at once, the cycle the checker reports too
        ("E_STUCK", r3, "PAUSE_HAS_CAUSE cycle 1632 "),
    ];
    for (bug, s, want) in cases {
        let define = format!("-DCAPFC_V1_BUG_{bug}");
        let bin = verilate(
            &format!("v1_{bug}"),
            "capfc_v1_tb",
            &s,
            &["-DCAPFC_V1_PROPS", &define],
            &v1_files(),
        );
        let out = run(&bin, &[format!("+GOLDEN={}", s.display())]);
        assert!(
            out.first().is_some_and(|l| l.starts_with(want)),
            "{bug}: expected '{want}...' first, got {out:?}"
        );
    }
}
