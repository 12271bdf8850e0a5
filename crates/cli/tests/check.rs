//! The reference checker (`capfc::check`, `capfc check`): no false alarm on the block's model
//! within the block's envelope, and 42 of the 49 faults of its catalogue caught, each where a
//! golden set's traffic shows it; the same on v2's model, the test subject, with every fault of its
//! catalogue; a waveform from a real simulator (Icarus) checks end to end; bad maps and files are
//! refused.

use capfc::block::{Fault, Mode};
use capfc::check::block::check_model;
use capfc::golden_v3::{check_random, check_source};
use capfc::stimulus::{directed, RandomStim, DIRECTED};
use capfc::v3::fault::Fault as V3Fault;
use std::process::Command;

fn params(name: &str) -> capfc::block::BlockParams {
    capfc::golden::params_of(name).expect("a parameter set")
}

fn random(name: &str, mode: Mode, seed: u64, cycles: u64, fault: Option<Fault>) -> (u64, u64, u64) {
    let p = params(name);
    let mut s = RandomStim::new(&p, mode, seed, cycles);
    // A lossless mask rewritten with traffic in flight is outside section 3 (the checker refuses it).
    s.profile.reconfig_rate = 0.0;
    let (sum, v, _) = check_model(&p, &mut s, fault, 1).expect("runs");
    if fault.is_none() {
        assert!(
            v.is_empty(),
            "false alarm: {name} {} seed {seed}: {}replay: capfc check --model --config {name} --mode {} --seed {seed} --cycles {cycles}",
            mode.name(),
            v[0],
            mode.name()
        );
    }
    (sum.violations, sum.judged, sum.selection_rises)
}

/// The block's model on random traffic through its lanes (`capfc check --model`) and on every
/// golden set's traffic, judged within the block's envelope: no violation, and selections judged
/// at their deadline (a checker that judged nothing would pass too).
#[test]
fn the_blocks_model_raises_no_false_alarm_within_its_envelope() {
    let (mut judged, mut lanes) = (0, 0);
    for name in ["v3_np4", "v3_np6_cw4", "v3_np8_nl3", "v3_np12"] {
        for mode in [Mode::StopMax, Mode::StopCal] {
            for seed in 1..=2 {
                let r = check_random(&v3_params(name), mode, seed, 60_000, None, 1).expect("runs");
                assert!(
                    r.violations.is_empty(),
                    "false alarm: {name} {} seed {seed}: {}replay: capfc check --model --config {name} --mode {} --seed {seed} --cycles 60000",
                    mode.name(),
                    r.violations[0],
                    mode.name()
                );
                assert!(
                    r.weak.is_empty(),
                    "{name} {} seed {seed}: weak {:?} (replay: capfc check --model --config {name} --mode {} --seed {seed} --cycles 60000)",
                    mode.name(),
                    r.weak,
                    mode.name()
                );
                judged += r.summary.judged;
                lanes += r.summary.lanes;
            }
        }
    }
    assert!(
        judged > 5000 && lanes > 500_000,
        "judged {judged}, lanes {lanes}"
    );
    // every golden set's traffic (directed corners, resets among lanes in flight, the busy MAC,
    // the switch's)
    let sets = v3_sets();
    assert!(sets.len() >= 59);
    for c in &sets {
        let r = check_source(&c.params, &c.source, None, 1).expect("runs");
        assert!(
            r.violations.is_empty(),
            "false alarm on {}'s traffic: {}replay: capfc check --model --set {}",
            c.name,
            r.violations[0],
            c.name
        );
    }
}

/// The faults of the block's catalogue the checker catches, each with the golden set whose
/// traffic (its script driving the faulty model, `golden_v3::check_source`) shows it and the kind
/// of the first report: (fault, set, kind). The 7 others (`clear_below_warn`, `inc_tag_ignored`,
/// `e_write_not_cancelled`, `srch_met_strict`, `srch_digit1_gt`, `srch_digit3_gt`,
/// `srch_prefers_lower_digit`) are caught by no set's traffic: the selection they change is one
/// the reference also admits, or what they change is not read before the state is cleared. Only a
/// lockstep against our RTL sees those (`capfc faults`).
const V3_CAUGHT: &[(&str, &str, &str)] = &[
    ("ing_max_strict", "two_lanes_one_slot_max_np4", "accept"),
    ("ing_max_loose", "thresholds_exact_max_np4", "accept"),
    ("ing_xoff_ge", "thresholds_exact_max_np4", "spurious pause"),
    ("ing_xon_lt", "thresholds_exact_max_np4", "stuck pause"),
    ("ing_lossy_pause", "random_max_np4_seed1", "lossy pause"),
    (
        "ing_arrival_before_departure",
        "two_lanes_one_slot_max_np4",
        "accept",
    ),
    ("reset_keeps_i", "reset_mid_traffic_max_np4", "lossy pause"),
    (
        "thr_refresh_shifted",
        "thresholds_exact_max_np4",
        "missing pause",
    ),
    ("arr_accept_late", "random_max_np4_seed1", "accept"),
    ("eg_max_strict", "two_lanes_one_slot_max_np4", "accept"),
    ("eg_max_loose", "thresholds_exact_max_np4", "accept"),
    ("xoff_e_ge", "thresholds_exact_max_np4", "spurious pause"),
    ("warn_off_by_one", "argmax_tie_max_np4", "spurious pause"),
    ("xon_off_by_one", "thresholds_exact_max_np4", "stuck pause"),
    (
        "eg_enqueue_before_dequeue",
        "pending_cleared_max_np4",
        "spurious pause",
    ),
    ("inc_uncounted", "random_max_np4_seed1", "spurious pause"),
    ("enq_accept_late", "config_under_traffic_max_np4", "accept"),
    (
        "counter_wraps",
        "counter_saturation_max_np6_cw4",
        "spurious pause",
    ),
    (
        "gen_not_advanced",
        "generation_wrap_max_np4",
        "spurious pause",
    ),
    ("gen_no_wrap", "contention_max_np4_seed1", "spurious pause"),
    (
        "sval_tag_ignored",
        "clear_during_increment_cal_np4",
        "spurious pause",
    ),
    (
        "scrub_off",
        "stale_tag_comes_round_max_np4",
        "spurious pause",
    ),
    (
        "sval_not_forwarded",
        "pending_cleared_cal_np4",
        "missing selection",
    ),
    (
        "e_write_not_cancelled_late",
        "e_write_after_clear_max_np4",
        "spurious pause",
    ),
    (
        "e_clear_loses",
        "e_write_before_e_clear_max_np4",
        "spurious pause",
    ),
    ("e_own_port", "pending_cleared_max_np4", "spurious pause"),
    (
        "e_other_before_ready",
        "reset_with_e_max_np4",
        "lossy pause",
    ),
    ("max_tie_last", "argmax_tie_max_np4", "spurious pause"),
    ("cnt_met_strict", "argmax_tie_cal_np4", "spurious pause"),
    ("srch_digit2_gt", "argmax_tie_cal_np4", "spurious pause"),
    (
        "srch_last_digit_skipped",
        "thresholds_exact_cal_np4",
        "spurious pause",
    ),
    (
        "gt_includes_theta",
        "pending_cleared_cal_np4",
        "missing selection",
    ),
    ("cnt_need_plus_one", "argmax_tie_cal_np4", "spurious pause"),
    (
        "sel_takes_every_tie",
        "argmax_tie_cal_np4",
        "spurious pause",
    ),
    ("sel_tie_last", "argmax_tie_cal_np4", "spurious pause"),
    (
        "rr_fixed",
        "all_queues_request_max_np4",
        "missing selection",
    ),
    (
        "sort_not_aborted",
        "xon_during_sort_max_np4",
        "spurious pause",
    ),
    (
        "pending_kept_on_clear",
        "pending_cleared_max_np4",
        "spurious pause",
    ),
    ("d_in_reset", "reset_mid_traffic_max_np4", "lossy pause"),
    ("ready_ignored", "random_max_np4_seed1", "frame missing"),
    ("xon_not_sent", "thresholds_exact_max_np4", "frame missing"),
    ("refresh_late", "cut_one_held_max_np4", "refresh"),
];

/// The golden sets of the block, whose traffic is judged here.
fn v3_sets() -> Vec<capfc::golden_v3::CuratedV3> {
    capfc::golden_v3::curated()
}

/// Each fault of [`V3_CAUGHT`] fires in its set's traffic (its case happened) and is reported
/// there, first, as its kind; without the fault every set is clean
/// ([`the_blocks_model_raises_no_false_alarm_within_its_envelope`]).
#[test]
fn the_checker_catches_the_blocks_faults_where_the_sets_show_them() {
    let sets = v3_sets();
    let mut wrong = vec![];
    for &(name, set, kind) in V3_CAUGHT {
        let f: V3Fault = name.parse().expect("a fault of the catalogue");
        let c = sets
            .iter()
            .find(|c| c.name == set)
            .expect("a curated set of the block");
        let r = check_source(&c.params, &c.source, Some(f), 1).expect("runs");
        let first = r.violations.first().map(|v| v.kind.name());
        if r.fired == 0 || first != Some(kind) {
            wrong.push(format!(
                "{name} on {set}: fired {} times, first report {first:?}, expected {kind:?} (replay: capfc check --model --set {set} --fault {name})",
                r.fired
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let mut names: Vec<&str> = V3_CAUGHT.iter().map(|r| r.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), V3_CAUGHT.len(), "a fault listed twice");
    assert!(V3_CAUGHT.len() >= 42);
}

fn v3_params(name: &str) -> capfc::block::BlockParams {
    capfc::v3::rtl_configs::V3_RTL_CONFIGS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| capfc::block::BlockParams::from_values(v))
        .expect("a parameter set of the block")
}

/// v2's model (the test subject) on random and directed traffic within v2's envelope.
#[test]
fn v2s_model_raises_no_false_alarm_within_its_own_envelope() {
    let (mut judged, mut rises) = (0, 0);
    for name in ["np4", "np6_cw4", "np8", "np8_cell64", "np16"] {
        for mode in [Mode::StopMax, Mode::StopCal] {
            for seed in 1..=3 {
                let (_, j, r) = random(name, mode, seed, 20_000, None);
                judged += j;
                rises += r;
            }
            let p = params(name);
            for &d in DIRECTED {
                if let Some(mut s) = directed(&p, mode, d) {
                    let (_, v, _) = check_model(&p, &mut s, None, 1).expect("runs");
                    assert!(
                        v.is_empty(),
                        "false alarm: {name} {} {d}: {}",
                        mode.name(),
                        v[0]
                    );
                }
            }
        }
    }
    // The runs judged selections at their deadline and attributed pauses to them: a checker that
    // judged nothing would pass the loop above too.
    assert!(
        judged > 1000 && rises > 100,
        "judged {judged}, rises {rises}"
    );
}

/// Every fault of v2's catalogue is caught on some set of v2's.
#[test]
fn the_checker_catches_every_fault_of_v2s_model() {
    let mut missed = vec![];
    for &f in Fault::ALL {
        let mut caught = None;
        'search: for name in ["np4", "np6_cw4", "np8"] {
            let p = params(name);
            for mode in [Mode::StopMax, Mode::StopCal] {
                for &d in DIRECTED {
                    if let Some(mut s) = directed(&p, mode, d) {
                        let (_, v, _) = check_model(&p, &mut s, Some(f), 1).expect("runs");
                        if let Some(v) = v.first() {
                            caught = Some(format!("{name} {} {d}: {}", mode.name(), v.kind.name()));
                            break 'search;
                        }
                    }
                }
                for seed in 1..=3 {
                    if random(name, mode, seed, 20_000, Some(f)).0 > 0 {
                        caught = Some(format!("{name} {} seed {seed}", mode.name()));
                        break 'search;
                    }
                }
            }
        }
        if caught.is_none() {
            missed.push(f.name());
        }
    }
    assert!(missed.is_empty(), "the checker missed {missed:?}");
    assert!(Fault::ALL.len() >= 28);
}

fn capfc(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .expect("capfc runs");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// The np4 map: check/capfc_v2/capfc_v2.map.toml with the np4 set's port count.
fn np4_map(dir: &std::path::Path, edit: impl Fn(String) -> String) -> String {
    let m = std::fs::read_to_string(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("check/capfc_v2/capfc_v2.map.toml"),
    )
    .expect("the shipped map");
    let m = edit(m.replace("np = 8", "np = 4"));
    let path = dir.join("map.toml");
    std::fs::write(&path, m).unwrap();
    path.to_string_lossy().into()
}

/// A work directory of its own for a test, the Icarus waveform of our block replaying golden set
/// `set` in it, and the block's envelope at 4 ports: (directory, waveform, envelope file).
fn icarus_wave(tag: &str, set: &str) -> (std::path::PathBuf, String, String) {
    // (one replay at a time: mk/replay.mk builds a set's testbench in one place under build/)
    static REPLAY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = REPLAY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("capfc-check-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("np4.vcd");
    let st = Command::new("make")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args([
            "-s",
            "-f",
            "mk/replay.mk",
            "replay",
            "SIM=icarus",
            &format!("GOLDEN=golden/{set}"),
            &format!("SIMARGS=+DUMP={}", vcd.display()),
        ])
        .status()
        .expect("make runs");
    assert!(st.success(), "the Icarus replay with a dump failed");
    let timing = dir.join("np4.timing.toml");
    let (code, env) = capfc(&["check", "--envelope", "np4"]);
    assert_eq!(code, 0);
    std::fs::write(&timing, env).unwrap();
    (
        dir.clone(),
        vcd.to_string_lossy().to_string(),
        timing.to_string_lossy().to_string(),
    )
}

/// The verdict can fail: the same traffic judged within our block's own envelope exits 0, and
/// within one whose selection windows are too wide for it (a selection is owed within 10^6
/// cycles, so nearly every crossing is cancelled by XON_e before its deadline) exits 3, naming
/// the window; `--allow-weak` makes that a warning.
#[test]
fn an_envelope_too_wide_for_the_traffic_is_a_weak_verdict() {
    for (set, key) in [
        ("random_cal_np4_seed1", "stop_cal"),
        ("random_max_np4_seed1", "stop_max"),
    ] {
        let (dir, vcd, timing) = icarus_wave("weak", set);
        let map = np4_map(&dir, |m| m);
        let (code, out) = capfc(&["check", "--wave", &vcd, "--map", &map, "--timing", &timing]);
        assert_eq!(code, 0, "{set}, tight envelope: {out}");
        let tight = std::fs::read_to_string(&timing).unwrap();
        let mut env = capfc::check::Envelope::parse(&tight, &timing).expect("parses");
        env.stop_max.max = 1_000_000;
        env.stop_cal.max = 1_000_000;
        let wide = env.to_toml();
        let wide_path = dir.join("wide.timing.toml").to_string_lossy().to_string();
        std::fs::write(&wide_path, wide).unwrap();
        let (code, out) = capfc(&[
            "check", "--wave", &vcd, "--map", &map, "--timing", &wide_path,
        ]);
        assert_eq!(code, 3, "{set}, over-wide envelope: {out}");
        assert!(
            out.contains(&format!("weak verdict: the `{key}` window"))
                && out.contains(" 0 violations"),
            "{out}"
        );
        let (code, out) = capfc(&[
            "check",
            "--wave",
            &vcd,
            "--map",
            &map,
            "--timing",
            &wide_path,
            "--allow-weak",
        ]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains(&format!("warning: the `{key}` window")),
            "{out}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn an_icarus_waveform_of_our_block_checks_clean_and_bad_maps_are_refused() {
    let (dir, vcd, timing) = icarus_wave("maps", "random_cal_np4_seed1");
    let map = np4_map(&dir, |m| m);
    let (code, out) = capfc(&["check", "--wave", &vcd, "--map", &map, "--timing", &timing]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" 0 violations"), "{out}");

    // A signal the waveform lacks, a width that disagrees, a malformed map, a file that is no
    // waveform: each refused with exit status 2 and the place.
    type Edit = Box<dyn Fn(String) -> String>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|m: String| m.replace("\"d_state\"", "\"d_stat\"")),
            "no signal capfc_tb.u_dut.d_stat",
        ),
        (
            Box::new(|m: String| m.replace("np = 4", "np = 8")),
            "the map needs 8",
        ),
        (
            Box::new(|m: String| m.replace("valid = \"arr_valid\"", "valid = 3")),
            "line 28",
        ),
        (
            Box::new(|m: String| m.replace("cw = 16", "cw = 0")),
            "cw: 0",
        ),
    ];
    for (edit, want) in cases {
        let map = np4_map(&dir, edit);
        let (code, out) = capfc(&["check", "--wave", &vcd, "--map", &map]);
        assert_eq!(code, 2, "{out}");
        assert!(out.contains(want), "expected {want:?} in {out}");
        assert!(!out.contains("panicked"), "{out}");
    }
    let map = np4_map(&dir, |m| m);
    let junk = dir.join("junk.vcd");
    std::fs::write(&junk, "not a waveform\n").unwrap();
    for f in [
        junk.to_string_lossy().to_string(),
        dir.join("absent.vcd").to_string_lossy().to_string(),
    ] {
        let (code, out) = capfc(&["check", "--wave", &f, "--map", &map]);
        assert_eq!(code, 2, "{out}");
        assert!(out.contains(&f) && !out.contains("panicked"), "{out}");
    }
    // A waveform cut short is checked up to its last complete edge.
    let text = std::fs::read(&vcd).unwrap();
    let cut = dir.join("cut.vcd");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let (code, out) = capfc(&[
        "check",
        "--wave",
        &cut.to_string_lossy(),
        "--map",
        &map,
        "--timing",
        &timing,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked up to the last one"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_run_that_checks_nothing_fails() {
    let (code, out) = capfc(&["check", "--model", "--config", "v3_np4", "--cycles", "0"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("nothing was checked"), "{out}");
    let (code, out) = capfc(&[
        "check",
        "--model",
        "--config",
        "v3_np6_cw4",
        "--mode",
        "cal",
        "--seed",
        "1",
        "--cycles",
        "20000",
        "--fault",
        "rr_fixed",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("replay: capfc check --model --config v3_np6_cw4 --mode cal --seed 1 --cycles 20000 --fault rr_fixed"), "{out}");
    assert!(out.contains("fault rr_fixed ("), "{out}");
    // v2's sets are not the block's; a fault outside the block's catalogue is refused
    let (code, out) = capfc(&["check", "--model", "--config", "np4"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--config np4: not one of the block's (v3_np4"),
        "{out}"
    );
    // a golden set's traffic, with the fault its corner shows
    let (code, out) = capfc(&[
        "check",
        "--model",
        "--set",
        "pending_cleared_max_np4",
        "--fault",
        "pending_kept_on_clear",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("replay: capfc check --model --set pending_cleared_max_np4 --fault pending_kept_on_clear"),
        "{out}"
    );
    let (code, out) = capfc(&["check", "--model", "--set", "no_such_set"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--set no_such_set: not one of the block's (thresholds_exact_max_np4"),
        "{out}"
    );
    let (code, out) = capfc(&["check", "--model", "--fault", "tie_last_index"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("unknown fault 'tie_last_index'") && out.contains("rr_fixed"),
        "{out}"
    );
}

/// A waveform written by hand for the v3 map (check/v3/capfc_top_v3.map.toml at 2 ports): one
/// cycle per entry of `cycles`, each a list of (signal, value) set for that cycle only (every
/// other signal 0, the reset high in cycle 0).
fn v3_wave(path: &std::path::Path, cycles: &[&[(&str, u64)]]) {
    let sigs: [(&str, u32); 28] = [
        ("clk", 1),
        ("rst", 1),
        ("cfg_we", 1),
        ("cfg_addr", 8),
        ("cfg_wdata", 32),
        ("arr_valid", 2),
        ("arr_prio", 6),
        ("arr_size", 28),
        ("arr_accept", 2),
        ("arr_ready", 2),
        ("dep_valid", 1),
        ("dep_port", 1),
        ("dep_prio", 3),
        ("dep_size", 14),
        ("dep_ready", 1),
        ("enq_valid", 1),
        ("enq_oport", 1),
        ("enq_prio", 3),
        ("enq_iport", 1),
        ("enq_size", 14),
        ("enq_accept", 1),
        ("enq_ready", 1),
        ("deq_valid", 2),
        ("deq_prio", 6),
        ("deq_size", 28),
        ("deq_ready", 2),
        ("d_state", 16),
        ("pfc_valid", 2),
    ];
    let extra: [(&str, u32); 4] = [
        ("pfc_ready", 2),
        ("pfc_cev", 16),
        ("pfc_xoff", 16),
        ("pfc_quanta", 16),
    ];
    let all: Vec<(&str, u32)> = sigs.iter().chain(extra.iter()).copied().collect();
    let id = |k: usize| format!("s{k}");
    let mut v = String::from("$timescale 1ns $end\n$scope module capfc_top_v3_tb $end\n");
    v += "$scope module u_dut $end\n";
    for (k, (n, w)) in all.iter().enumerate() {
        v += &format!("$var wire {w} {} {n} $end\n", id(k));
    }
    v += "$upscope $end\n$upscope $end\n$enddefinitions $end\n";
    let val = |w: u32, x: u64, k: usize| {
        if w == 1 {
            format!("{}{}\n", x & 1, id(k))
        } else {
            format!("b{:b} {}\n", x, id(k))
        }
    };
    for (c, set) in cycles.iter().enumerate() {
        // inputs change at the falling edge (time 10c), the rising edge at 10c + 5
        v += &format!("#{}\n", 10 * c);
        for (k, (n, w)) in all.iter().enumerate() {
            let x = match *n {
                "clk" => 0,
                "rst" => u64::from(c == 0),
                _ => set.iter().find(|(s, _)| s == n).map_or(0, |&(_, x)| x),
            };
            v += &val(*w, x, k);
        }
        v += &format!("#{}\n1{}\n", 10 * c + 5, id(0));
    }
    v += &format!("#{}\n0{}\n", 10 * cycles.len(), id(0));
    std::fs::write(path, v).unwrap();
}

/// The lanes' readies and a late accept (the v3 block's interface): a lane counts only in a cycle
/// where it is valid and ready, and its answer is read `accept_latency` cycles after it. With
/// every threshold 0 (the configuration after a reset) every arrival must be refused.
#[test]
fn lanes_are_taken_when_ready_and_answered_accept_latency_cycles_later() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-check-v3-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let map_text = std::fs::read_to_string(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("check/v3/capfc_top_v3.map.toml"),
    )
    .unwrap()
    .replace("np = 4", "np = 2");
    let map = dir.join("map.toml");
    std::fs::write(&map, &map_text).unwrap();
    let no_ready = dir.join("no_ready.map.toml");
    std::fs::write(
        &no_ready,
        map_text
            .lines()
            .filter(|l| !l.starts_with("ready = \"arr_ready\""))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let timing = |lat: u64| {
        let p = dir.join(format!("lat{lat}.timing.toml"));
        let (code, env) = capfc(&["check", "--envelope", "np4"]);
        assert_eq!(code, 0);
        let env = env
            .lines()
            .map(|l| {
                if l.starts_with("accept_latency") {
                    format!("accept_latency = {lat}")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&p, env).unwrap();
        p.to_string_lossy().to_string()
    };
    // Cycle 2: port 0's arrival waits (not ready); cycle 3: taken, answered (0) in cycle 7. The
    // accept line is 1 in cycles 3 and 6, where a reader that ignored the latency or the ready
    // would look for an answer.
    let arr = [("arr_valid", 1), ("arr_prio", 1), ("arr_size", 100)];
    let c2: Vec<(&str, u64)> = arr.to_vec();
    let mut c3: Vec<(&str, u64)> = arr.to_vec();
    c3.extend([("arr_ready", 1), ("arr_accept", 1)]);
    let c6 = [("arr_accept", 1)];
    let cycles: Vec<&[(&str, u64)]> = vec![&[], &[], &c2, &c3, &[], &[], &c6, &[], &[], &[]];
    let vcd = dir.join("v3.vcd");
    v3_wave(&vcd, &cycles);
    let vcd = vcd.to_string_lossy().to_string();
    let m = map.to_string_lossy().to_string();
    let run = |map: &str, lat: u64| {
        let t = timing(lat);
        capfc(&["check", "--wave", &vcd, "--map", map, "--timing", &t])
    };
    let (code, out) = run(&m, 4);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(" 1 lanes, 1 accepts") && out.contains(" 0 violations"),
        "{out}"
    );
    // The answer read in the lane's own cycle (1): a wrong accept.
    let (code, out) = run(&m, 0);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("accept on arr_accept[0]"), "{out}");
    // Without the ready, the waiting cycle is a lane too, answered in cycle 6 (1): wrong.
    let (code, out) = run(&no_ready.to_string_lossy(), 4);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(" 2 lanes"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A shared lane without a ready of its own (`ready_per_port = true`: our v3 block's departure
/// and enqueue lanes): it counts only in a cycle where the ready of the port it names is 1, not
/// another port's.
#[test]
fn a_shared_lane_is_taken_on_its_ports_ready() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-check-v3-port-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let map_text = std::fs::read_to_string(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("check/v3/capfc_top_v3.map.toml"),
    )
    .unwrap()
    .replace("np = 4", "np = 2");
    assert!(map_text.contains("ready_per_port = true"), "{map_text}");
    let map = dir.join("map.toml");
    std::fs::write(&map, &map_text).unwrap();
    // the departure's ready left out: the lane counts whenever valid
    let no_ready = dir.join("no_ready.map.toml");
    let mut in_depart = false;
    let text: Vec<&str> = map_text
        .lines()
        .filter(|l| {
            if l.starts_with('[') {
                in_depart = *l == "[depart]";
            }
            !(in_depart && l.starts_with("ready"))
        })
        .collect();
    std::fs::write(&no_ready, text.join("\n")).unwrap();
    let (code, env) = capfc(&["check", "--envelope", "np4"]);
    assert_eq!(code, 0);
    let timing = dir.join("t.timing.toml");
    let env: Vec<String> = env
        .lines()
        .map(|l| {
            if l.starts_with("accept_latency") {
                "accept_latency = 4".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&timing, env.join("\n")).unwrap();
    // A departure of port 1 offered in cycles 2 and 3: port 0's slot is ready in cycle 2, port
    // 1's in cycle 3, so it is taken in cycle 3 only. (Its 0 bytes leave an empty queue as it
    // was.)
    let dep = [("dep_valid", 1), ("dep_port", 1), ("dep_prio", 1)];
    let mut c2: Vec<(&str, u64)> = dep.to_vec();
    c2.push(("arr_ready", 0b01));
    let mut c3: Vec<(&str, u64)> = dep.to_vec();
    c3.push(("arr_ready", 0b10));
    let cycles: Vec<&[(&str, u64)]> = vec![&[], &[], &c2, &c3, &[], &[], &[], &[]];
    let vcd = dir.join("v3.vcd");
    v3_wave(&vcd, &cycles);
    let vcd = vcd.to_string_lossy().to_string();
    let t = timing.to_string_lossy().to_string();
    let (code, out) = capfc(&[
        "check",
        "--wave",
        &vcd,
        "--map",
        &map.to_string_lossy(),
        "--timing",
        &t,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" 1 lanes"), "{out}");
    let (code, out) = capfc(&[
        "check",
        "--wave",
        &vcd,
        "--map",
        &no_ready.to_string_lossy(),
        "--timing",
        &t,
    ]);
    assert!(out.contains(" 2 lanes"), "{code} {out}");
    std::fs::remove_dir_all(&dir).ok();
}
