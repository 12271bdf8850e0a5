//! The DPI-C scoreboard (`capfc gen-sv`) inside two testbenches under Verilator: our block's golden
//! replay testbench and the second implementation's (check/capfc_v1), each once clean and once with
//! a bug the scoreboard must report with its cycle and signal. The scoreboard calls the C ABI's
//! static library (`capi/`), which these tests build with cargo.

use std::path::{Path, PathBuf};
use std::process::Command;

use capfc::block::BlockKind;
use common::need_verilator;

mod common;

// (the C ABI's own tests' helper: its static library, built with cargo, a no-op when fresh)
#[path = "../capi/tests/common/mod.rs"]
mod capi_common;
use capi_common::staticlib;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn work() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dpi");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// capfc_dpi.sv and capfc_scoreboard.sv for np4, as `capfc gen-sv --config np4 --block v2|v3`
/// writes them.
fn sv(block: BlockKind) -> (PathBuf, PathBuf) {
    let p = capfc::golden::params_of("np4").unwrap();
    let d = work().join(format!("sv_{}", block.name()));
    std::fs::create_dir_all(&d).unwrap();
    let (a, b) = (d.join("capfc_dpi.sv"), d.join("capfc_scoreboard.sv"));
    std::fs::write(&a, capfc::dpi_sv::package_for(&p, block).unwrap()).unwrap();
    std::fs::write(&b, capfc::dpi_sv::scoreboard()).unwrap();
    (a, b)
}

/// Verilate and build a testbench with the scoreboard; returns the binary.
fn build(name: &str, top: &str, inc: &Path, defines: &[String], files: &[PathBuf]) -> PathBuf {
    build_for(BlockKind::V2, name, top, inc, defines, files)
}

fn build_for(
    block: BlockKind,
    name: &str,
    top: &str,
    inc: &Path,
    defines: &[String],
    files: &[PathBuf],
) -> PathBuf {
    let mdir = work().join(name);
    let _ = std::fs::remove_dir_all(&mdir);
    let (pkg, sb) = sv(block);
    let mut c = Command::new("verilator");
    c.args([
        "--binary",
        "-j",
        "2",
        // (all of it at -O0: -CFLAGS -O0 alone comes before verilated.mk's -Os and loses to it)
        "-MAKEFLAGS",
        "OPT_FAST=-O0 OPT_GLOBAL=-O0",
        "-Wno-fatal",
        "--top-module",
        top,
    ])
    .arg(format!("-I{}", inc.display()))
    .arg("--Mdir")
    .arg(&mdir)
    .args(["-o", "tb"])
    .args(defines)
    .arg(&pkg)
    .arg(&sb)
    .args(files)
    .arg(staticlib())
    .args(["-LDFLAGS", "-lpthread -ldl -lm"]);
    let o = c.output().expect("verilator runs (make deps installs it)");
    assert!(
        o.status.success(),
        "verilator {name}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    mdir.join("tb")
}

fn run(bin: &Path, args: &[String]) -> (bool, String) {
    common::run_tb(bin, args, 1000)
}

/// The first scoreboard report: "cycle C: kind on signal".
fn first_report(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.contains("%Error") && l.contains("capfc_scoreboard"))
        .and_then(|l| l.split(": cycle ").nth(1))
        .map(|r| format!("cycle {}", r.split(": expected").next().unwrap_or(r)))
}

/// Our golden testbench with two scoreboards (`-DCAPFC_SCOREBOARD`, `-DCAPFC_SCOREBOARD_TWO`) for
/// the block of `block` (its RTL `files_f`), built as `name`; the binary and the plusargs that
/// replay `set` (relative to the repository).
fn golden_tb(block: BlockKind, set: &str, files_f: &str, name: &str) -> (PathBuf, Vec<String>) {
    need_verilator();
    let r = root();
    let set = r.join(set);
    let files: Vec<PathBuf> = std::fs::read_to_string(r.join(files_f))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .map(|l| r.join(l))
        .chain([r.join("testbench/capfc_tb.sv")])
        .collect();
    let bin = build_for(
        block,
        name,
        "capfc_tb",
        &set,
        &["-DCAPFC_SCOREBOARD".into(), "-DCAPFC_SCOREBOARD_TWO".into()],
        &files,
    );
    let args = common::replay_args(&set);
    (bin, args)
}

/// Our golden testbench replaying `set` with both scoreboards: the set passes (`passed`) and
/// nothing is reported; with D[0].p5 (not lossless in these sets) seen flipped from the first
/// scoreboard's cycle 1000 on, that scoreboard reports it at cycle 1000 and the second one, on the
/// unflipped outputs of the same simulation, stays quiet.
fn clean_and_flipped(block: BlockKind, set: &str, files_f: &str, name: &str, passed: &str) {
    let (bin, args) = golden_tb(block, set, files_f, name);
    let (ok, text) = run(&bin, &args);
    assert!(ok && text.contains(passed), "{text}");
    assert!(text.contains("frames: 0 violations"), "{text}");
    assert!(first_report(&text).is_none(), "{text}");
    let mut flip = args.clone();
    flip.push("+SB_FLIP=1000".into());
    let (_, text) = run(&bin, &flip);
    assert_eq!(
        first_report(&text).as_deref(),
        Some("cycle 1000: lossy pause on d[0].p5"),
        "{text}"
    );
    // the second scoreboard of the same simulation, on the unflipped outputs, found nothing
    let summaries: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("capfc_scoreboard") && l.contains(" cycles, "))
        .collect();
    assert_eq!(summaries.len(), 2, "{text}");
    assert!(
        summaries
            .iter()
            .any(|l| l.contains("u_scoreboard_2:") && l.ends_with("frames: 0 violations")),
        "{text}"
    );
    assert!(
        summaries
            .iter()
            .any(|l| l.contains("u_scoreboard:") && !l.ends_with(": 0 violations")),
        "{text}"
    );
}

#[test]
fn the_scoreboard_in_our_golden_testbench() {
    clean_and_flipped(
        BlockKind::V2,
        "golden/random_max_np4_seed1",
        "check/capfc_v2/files.f",
        "ours",
        "1501 passed, 0 failed",
    );
}

/// The v3 block's scoreboard (`capfc gen-sv --block v3`: `capfc_top_oc`'s ports, the checker
/// with the v3 envelope) in the same golden testbench, replaying a v3 set against the v3 RTL.
#[test]
fn the_v3_scoreboard_in_our_golden_testbench() {
    clean_and_flipped(
        BlockKind::V3,
        "golden/v3/random_cal_np4_seed1",
        "rtl/v3/files.f",
        "ours_v3",
        "3000 passed, 0 failed",
    );
}

#[test]
fn the_scoreboard_in_the_second_implementations_testbench() {
    need_verilator();
    let r = root();
    let p = capfc::golden::params_of("np4").unwrap();
    let set = work().join("set_cal_seed3");
    let src = capfc::golden::Source::Random {
        seed: 3,
        cycles: 6000,
        mode: capfc::block::Mode::StopCal,
        steady: true,
    };
    capfc::golden::write(&set, &capfc::golden::build("v1", &p, &src).unwrap()).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(r.join("check/capfc_v1/rtl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.push(r.join("check/capfc_v1/capfc_v1_tb.sv"));
    let env = format!(
        "+define+CAPFC_V1_ENVELOPE=\"{}\"",
        r.join("check/capfc_v1/capfc_v1.timing.toml").display()
    );
    let args = vec![format!("+GOLDEN={}", set.display())];
    let clean = build(
        "v1_clean",
        "capfc_v1_tb",
        &set,
        &["-DCAPFC_V1_SCOREBOARD".into(), env.clone()],
        &files,
    );
    let (ok, text) = run(&clean, &args);
    assert!(ok && text.contains("frames: 0 violations"), "{text}");
    // LOST_FRAME: the kill matrix's row for this set (tests/check_v1.rs): cycle 136, frame[2]
    let bug = build(
        "v1_lost_frame",
        "capfc_v1_tb",
        &set,
        &[
            "-DCAPFC_V1_SCOREBOARD".into(),
            env,
            "-DCAPFC_V1_BUG_LOST_FRAME".into(),
        ],
        &files,
    );
    let (_, text) = run(&bug, &args);
    assert_eq!(
        first_report(&text).as_deref(),
        Some("cycle 136: frame missing on frame[2]"),
        "{text}"
    );
}
