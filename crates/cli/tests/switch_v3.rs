//! The v3 block behind the switch (`capfc run --block v3`, crates/switch/src/switch/block_v3.rs): its lanes
//! answered four cycles after their take, the switch waiting for them. The paper's relations on
//! the default scenario as with v2, every byte accounted for in every cycle (arrivals waiting for
//! their answer included), and the Verilated v3 RTL deciding exactly as the v3 model, register
//! for register in lockstep.

mod common;
#[cfg(feature = "rtl")]
use capfc::switch::block_v3::V3Regs;
use capfc::switch::scenario::Scenario;
use capfc::switch::stats::Stats;
use capfc::switch::{BlockKind, BlockState, DutKind, FlowMode, Snapshot, Switch};
use capfc::v3::fault::Fault as V3Fault;
use capfc_cli::cli_run::{report, run_modes_with, ModelFault, RunOptions};

fn v3() -> RunOptions {
    RunOptions {
        block: BlockKind::V3,
        ..RunOptions::default()
    }
}

#[test]
fn v3_block_shows_the_papers_relations_and_conserves_bytes() {
    let sc = Scenario::incast_victims();
    let mut r = vec![];
    for m in FlowMode::ALL {
        let mut s = Switch::with_block(&sc, m, DutKind::Model, BlockKind::V3).unwrap();
        while !s.done() && s.now < sc.max_cycles {
            s.tick_cycle();
            s.check_conservation();
        }
        s.run();
        assert!(s.done(), "{}: not every flow completed", m.name());
        r.push(s);
    }
    let (wdrop, wstop, max, cal) = (&r[0].stats, &r[1].stats, &r[2].stats, &r[3].stats);
    let victim = |s: &Stats| s.class("victim").unwrap().goodput_gbps;
    assert!(wdrop.egress_drops > 0, "PFC_wdrop dropped nothing");
    assert_eq!(wstop.egress_drops, 0);
    assert!(wstop.stall_cycles > 0);
    assert!(victim(wstop) < 0.75 * victim(wdrop));
    for (name, s) in [("CaPFC_max", max), ("CaPFC_cal", cal)] {
        assert!(s.egress_drops * 10 <= wdrop.egress_drops, "{name}");
        assert!(victim(s) > 0.95, "{name}: victim goodput {}", victim(s));
        assert!(s.total_pfc_frames() > 0, "{name}: no PFC frame");
        for port in [0, 5, 6, 7] {
            assert_eq!(s.pfc_frames[port], 0, "{name}: port {port} paused");
        }
    }
    assert_eq!(cal.egress_drops, 0);
    for s in [wdrop, wstop, max, cal] {
        assert_eq!(s.ingress_drops, 0);
    }
    // v3 decides a few cycles later than v2 (its lanes wait for their slot, its answers come
    // four cycles after): every class's tail within 5 % of v2's, in every mode
    let v2_block = RunOptions {
        block: BlockKind::V2,
        ..RunOptions::default()
    };
    let v2 = run_modes_with(&sc, &FlowMode::ALL, DutKind::Model, &v2_block).unwrap();
    for (a, b) in v2.iter().zip(&r) {
        for class in ["incast", "victim"] {
            let (x, y) = (
                a.stats.class(class).unwrap().fct_max_us,
                b.stats.class(class).unwrap().fct_max_us,
            );
            assert!(
                (x - y).abs() <= 0.05 * x,
                "{} {class}: FCT max v2 {x} us, v3 {y} us",
                a.mode.name()
            );
        }
    }
}

#[test]
fn the_report_names_the_v3_block() {
    let sc = common::incast4();
    let r = run_modes_with(&sc, &[FlowMode::CapfcCal], DutKind::Model, &v3()).unwrap();
    let text = report(&sc, &r);
    assert!(
        text.starts_with("scenario incast4 (4 ports, 3 flows), block: model (v3)\n"),
        "{text}"
    );
    // the incast is paused, nothing is lost
    assert!(r[0].stats.total_pfc_frames() > 0);
    assert_eq!(r[0].stats.egress_drops + r[0].stats.ingress_drops, 0);
}

/// The Verilated v3 RTL behind the switch decides exactly as the v3 model: the same report, and
/// in lockstep (every register, RAM word and output every cycle) nothing differs.
#[cfg(feature = "rtl")]
#[test]
fn v3_rtl_in_the_loop_gives_the_same_run() {
    let sc = common::incast4();
    let modes = [FlowMode::PfcWstop, FlowMode::CapfcCal];
    let model = run_modes_with(&sc, &modes, DutKind::Model, &v3()).unwrap();
    let rtl = run_modes_with(&sc, &modes, DutKind::Rtl, &v3()).unwrap();
    let body = |t: String| t.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(report(&sc, &model)), body(report(&sc, &rtl)));
    let both = run_modes_with(&sc, &[FlowMode::CapfcCal], DutKind::Both, &v3()).unwrap();
    assert!(both[0].mismatch.is_none());
    assert_eq!(body(report(&sc, &both)), body(report(&sc, &model[1..])));
    assert!(
        both[0].stats.total_pfc_frames() > 0,
        "no pause: nothing compared under load"
    );
    // the lockstep with the model's half on a second thread (`--lockstep-threads 2`): the same run
    let two = RunOptions {
        lockstep_threads: 2,
        ..v3()
    };
    let both2 = run_modes_with(&sc, &[FlowMode::CapfcCal], DutKind::Both, &two).unwrap();
    assert!(both2[0].mismatch.is_none());
    assert_eq!(body(report(&sc, &both2)), body(report(&sc, &both)));
    // and refused where there is no lockstep
    let e = run_modes_with(&sc, &[FlowMode::CapfcCal], DutKind::Model, &two)
        .err()
        .expect("two lockstep threads without a lockstep");
    assert!(
        e.to_string()
            .contains("--lockstep-threads 2 needs --dut both"),
        "{e}"
    );
}

/// A bug in the sort engines' snap RAM writes alone (the registers stay right) stops a
/// `--dut both` run behind the switch with the snap RAM word that differs: the lockstep compares
/// the RAMs through their writes, and random inputs start no sort (tests/v3_inprocess.rs), so
/// this is where the snap RAMs' writes are shown compared.
#[cfg(feature = "rtl")]
#[test]
fn a_snap_ram_write_bug_stops_the_v3_lockstep_behind_the_switch() {
    let sc = common::incast4();
    let mut s = Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Both, BlockKind::V3).unwrap();
    s.v3_model_mut().unwrap().u_sort.fault_ram_write = true;
    s.run();
    let m = s.mismatch.expect("the snap RAM bug went unseen");
    assert!(
        m.contains("u_sort.gen_engine[") && m.contains("u_snap.mem["),
        "{m}"
    );
}

/// A v3 block the RTL was not built for is refused with what was built; bad `--block` values
/// and a fault of v2's catalogue only are refused by the CLI.
#[test]
fn v3_refusals_say_why() {
    #[cfg(feature = "rtl")]
    {
        // (the default switch's block is built, `v3_np8_nl3`; not with 64-byte cells)
        let mut sc = Scenario::incast_victims();
        assert!(Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Rtl, BlockKind::V3).is_ok());
        sc.cell = Some(64);
        let e = Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Rtl, BlockKind::V3)
            .err()
            .expect("no v3 RTL with 64-byte cells is built by default")
            .to_string();
        assert!(
            e.contains("np=8") && e.contains("v3_np4") && e.contains("v3_np8_nl3"),
            "{e}"
        );
    }
    // a fault of v2's catalogue is refused by the v3 block's switch, which takes its own
    let mut s = Switch::with_block(
        &Scenario::incast_victims(),
        FlowMode::CapfcCal,
        DutKind::Model,
        BlockKind::V3,
    )
    .unwrap();
    let e = s
        .inject_fault(Some(capfc::block::Fault::TieLastIndex))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tie_last_index: a fault of v2's model, and the block is v3"),
        "{e}"
    );
    assert!(s.inject_fault_v3(Some(V3Fault::MaxTieLast)));
    let capfc = env!("CARGO_BIN_EXE_capfc");
    for (args, want) in [
        (
            &["run", "--block", "v9"][..],
            "--block 'v9': expected v2 or v3",
        ),
        (
            &[
                "run",
                "--block",
                "v3",
                "--dut",
                "both",
                "--fault",
                "tie_last_index",
            ][..],
            "--fault: [fault] unknown fault 'tie_last_index' (one of: ing_max_strict,",
        ),
    ] {
        let out = std::process::Command::new(capfc)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// The snapshot of a switch with the v3 block at `at`, the one after running on to `to`, and the
/// switch at `to`; PFC frames were sent between the two.
fn v3_snapshots(dut: DutKind, at: u64, to: u64) -> (Snapshot, Snapshot, Switch) {
    let sc = common::incast4();
    let mut s = Switch::with_block(&sc, FlowMode::CapfcCal, dut, BlockKind::V3).unwrap();
    // (on to the first cycle from `at` with events waiting at the lanes or for their answer)
    let pending = |s: &Switch| match s.snapshot().block {
        BlockState::V3(st) => st.pending(),
        _ => unreachable!("a v3 switch"),
    };
    while s.now < at || pending(&s) == 0 {
        s.tick_cycle();
    }
    let a = s.snapshot();
    let frames = s.stats.total_pfc_frames();
    while s.now < to {
        s.tick_cycle();
    }
    assert!(s.mismatch.is_none(), "{:?}", s.mismatch);
    assert!(
        s.stats.total_pfc_frames() > frames,
        "{dut:?}: no PFC frame between cycles {at} and {to}"
    );
    (a, s.snapshot(), s)
}

/// Through a JSON file's text, as `snapshot FILE.json` writes it and `restore FILE.json` reads it.
fn through_json(s: &Snapshot) -> Snapshot {
    Snapshot::from_json(&s.to_json()).unwrap()
}

/// A v3 switch restored to a snapshot (through its JSON text) goes on exactly as it went the
/// first time: the same switch, the same lanes, the same registers and RAM words (the RTL's
/// read back with `--dut rtl`), in each of model, RTL and lockstep. The snapshot is taken under
/// load: events wait at the lanes and the incast is being paused.
#[test]
fn a_v3_snapshot_restored_goes_on_exactly_as_before() {
    let (at, to) = (20_000, 40_000);
    let mut duts = vec![DutKind::Model];
    if cfg!(feature = "rtl") {
        duts.extend([DutKind::Rtl, DutKind::Both]);
    }
    for dut in duts {
        let (a, b, mut s) = v3_snapshots(dut, at, to);
        let BlockState::V3(st) = &a.block else {
            panic!("{dut:?}: not a v3 snapshot")
        };
        assert!(
            st.pending() > 0,
            "{dut:?}: nothing waits at the lanes at cycle {}",
            a.cycle
        );
        s.restore(&through_json(&a)).unwrap();
        assert_eq!(s.snapshot(), a, "{dut:?}: restored, then taken again");
        while s.now < to {
            s.tick_cycle();
        }
        assert!(s.mismatch.is_none(), "{dut:?}: {:?}", s.mismatch);
        assert_eq!(s.snapshot(), b, "{dut:?}: cycle {to} after the restore");
    }
}

/// The model's registers load into the RTL (packed into its state words by name): a snapshot
/// of the model, restored into the Verilated RTL alone, gives the model's run; the RTL's state
/// words are refused by the model, a v2 snapshot by a v3 switch, and a snapshot whose registers
/// do not fit their widths by any.
#[test]
fn v3_snapshots_cross_sides_where_they_can_and_say_why_not() {
    let (a, b, mut m) = v3_snapshots(DutKind::Model, 20_000, 40_000);
    #[cfg(feature = "rtl")]
    {
        let sc = common::incast4();
        let mut r =
            Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Rtl, BlockKind::V3).unwrap();
        r.restore(&a).unwrap();
        while r.now < 40_000 {
            r.tick_cycle();
        }
        let (BlockState::V3(x), BlockState::V3(y)) = (&r.snapshot().block, &b.block) else {
            panic!("not v3 snapshots")
        };
        // (the RTL's words against the model's registers packed into them)
        let mut rtl = capfc::dut_v3::RtlTopV3::new(&r.block_params()).unwrap();
        let V3Regs::Model(t) = &y.regs else { panic!() };
        let want = capfc::cosim_v3::state_words(&rtl, t).unwrap();
        assert_eq!(
            x.regs,
            V3Regs::Rtl(want),
            "the RTL, restored from the model, went elsewhere"
        );
        rtl.write_state(match &x.regs {
            V3Regs::Rtl(w) => w,
            _ => unreachable!(),
        });
        let e = m.restore(&r.snapshot()).unwrap_err();
        assert!(
            matches!(e, capfc::switch::RestoreError::RtlRegisters { .. }),
            "{e}"
        );
        assert!(e.to_string().contains("load it with --dut rtl"), "{e}");
    }
    let v2 = Switch::new_v2(&common::incast4(), FlowMode::CapfcCal, DutKind::Model)
        .unwrap()
        .snapshot();
    let e = m.restore(&v2).unwrap_err();
    assert!(
        matches!(e, capfc::switch::RestoreError::BlockKind { block: "v2" }),
        "{e}"
    );
    assert!(e.to_string().contains("v2 block"), "{e}");
    let mut wide = a.to_json_value();
    // (E of a 4-port block has 4 bits a row)
    wide["block"]["v3"]["regs"]["model"]["u_egress"]["e_q"][1] = serde_json::json!(16);
    let wide = Snapshot::from_json_value(wide).unwrap();
    let e = m.restore(&wide).unwrap_err().to_string();
    assert!(e.contains("u_egress.e_q") && e.contains("4 bits"), "{e}");
    let mut short = a.to_json_value();
    short["block"]["v3"]["regs"]["model"]["u_egress"]["e_q"]
        .as_array_mut()
        .unwrap()
        .pop();
    let short = Snapshot::from_json_value(short).unwrap();
    let e = m.restore(&short).unwrap_err().to_string();
    assert!(e.contains("u_egress.e_q"), "{e}");
    // (refused: nothing changed)
    assert_eq!(m.snapshot(), b);
}

/// The default scenario with 1024-byte packets: the egress occupancy lands exactly on WARN.
#[cfg(feature = "rtl")]
fn incast_victims_1024() -> Scenario {
    let text = std::fs::read_to_string(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("scenarios/incast-victims.toml"),
    )
    .unwrap()
    .replace("ports = 8", "ports = 8\nmtu = 1024");
    Scenario::from_toml(&text, "test").unwrap()
}

/// A fault of the block's own catalogue that v2's has not got (`max_tie_last`: Stop-Max breaks a
/// tie towards the highest index) behind the default switch: the lockstep stops in the sort
/// engines, with its replay command.
#[cfg(feature = "rtl")]
#[test]
fn a_fault_of_the_blocks_own_catalogue_stops_the_lockstep() {
    let sc = incast_victims_1024();
    let o = RunOptions {
        fault: Some(ModelFault::V3(V3Fault::MaxTieLast)),
        wave_window: 0,
        scenario_arg: Some("my.toml".into()),
        ..v3()
    };
    let e = run_modes_with(&sc, &[FlowMode::CapfcMax], DutKind::Both, &o)
        .err()
        .expect("the v3 lockstep missed the fault")
        .to_string();
    assert!(
        e.contains("MISMATCH at block cycle") && e.contains("u_sort."),
        "{e}"
    );
    assert!(
        e.contains(
            "replay: capfc run --scenario my.toml --mode CaPFC_max --dut both --fault max_tie_last"
        ),
        "{e}"
    );
}

/// The default block (v3) behind the switch with `--fault warn_off_by_one` in its model: with
/// 1024-byte packets the egress occupancy lands exactly on WARN, and the lockstep with the
/// Verilated `v3_np8_nl3` (built by default) stops at the stage register of that comparator,
/// with a replay command that needs no `--block`.
#[cfg(feature = "rtl")]
#[test]
fn a_v3_model_fault_stops_the_lockstep_behind_the_default_switch() {
    let sc = incast_victims_1024();
    let o = RunOptions {
        fault: Some(ModelFault::V3(V3Fault::WarnOffByOne)),
        wave_window: 0,
        scenario_arg: Some("my.toml".into()),
        ..v3()
    };
    let e = run_modes_with(&sc, &[FlowMode::CapfcCal], DutKind::Both, &o)
        .err()
        .expect("the v3 lockstep missed the fault")
        .to_string();
    assert!(e.contains("u_egress.inc3_q: RTL 1, model 0"), "{e}");
    assert!(
        e.contains("replay: capfc run --scenario my.toml --mode CaPFC_cal --dut both --fault warn_off_by_one"),
        "{e}"
    );
    // with a waveform window: both sides' files, the model's signals under the RTL's names, and
    // at the report's block cycle c (the registers as they entered it: time 2c) the register
    // holds in each file the value the report gives
    let scratch = tempfile::Builder::new()
        .prefix("capfc-v3-switch-wave-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let o = RunOptions {
        wave_window: 8,
        wave_dir: dir.clone(),
        ..o
    };
    let e = run_modes_with(&sc, &[FlowMode::CapfcCal], DutKind::Both, &o)
        .err()
        .expect("the v3 lockstep missed the fault")
        .to_string();
    let files: Vec<String> = e
        .lines()
        .find_map(|l| {
            l.split_once("same signal names): ")
                .map(|(_, f)| f.to_string())
        })
        .unwrap_or_else(|| panic!("no waveform window: {e}"))
        .split(", ")
        .map(str::to_string)
        .collect();
    let (model, rtl) = (&files[0], &files[1]);
    assert!(
        model.ends_with("_model.vcd") && rtl.ends_with("_rtl.vcd"),
        "{files:?}"
    );
    let (mnames, _) = common::vcd_names(model);
    let (rnames, _) = common::vcd_names(rtl);
    let missing: Vec<_> = mnames.iter().filter(|n| !rnames.contains(*n)).collect();
    assert!(missing.is_empty(), "{missing:?}");
    assert!(mnames.len() > 200);
    let c: u64 = e
        .split_once("block cycle ")
        .and_then(|(_, r)| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{e}"));
    let name = "capfc_top_oc.capfc_top_oc.u_egress.inc3_q";
    assert_eq!(common::vcd_value_at(rtl, name, 2 * c).as_deref(), Some("1"));
    assert_eq!(
        common::vcd_value_at(model, name, 2 * c).as_deref(),
        Some("0")
    );
    let _ = std::fs::remove_dir_all(&dir);
    // and without the fault, the same run is clean (`v3_rtl_in_the_loop_gives_the_same_run`
    // shows it on the 4-port switch; here the 8-port one, until the fault's cycle and past it)
    let mut s = Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Both, BlockKind::V3).unwrap();
    while s.now < 20_000 && s.mismatch.is_none() {
        s.tick_cycle();
    }
    assert!(s.mismatch.is_none(), "{:?}", s.mismatch);
}

/// `capfc run` lets the v3 model skip idle cycles and catch up with them by its closed-form
/// advance (`block_v3::IdleSkip`): the same run as clocking every cycle, every statistic and
/// every PFC frame, on the 4-port incast in the four modes, while most cycles are skipped.
#[test]
fn skipping_the_v3_models_idle_period_changes_nothing() {
    let cases = [(common::incast4(), FlowMode::ALL.to_vec())];
    for (sc, modes) in cases {
        let mut runs = vec![];
        for skip_idle in [true, false] {
            let o = RunOptions {
                skip_idle,
                audit_idle: skip_idle,
                pfc_log: true,
                ..v3()
            };
            runs.push(run_modes_with(&sc, &modes, DutKind::Model, &o).unwrap());
        }
        for (a, b) in runs[0].iter().zip(&runs[1]) {
            let json = |s: &Switch| serde_json::to_string(&s.stats).unwrap();
            assert_eq!(
                json(a),
                json(b),
                "{} {:?}: skipping changed the run",
                sc.name,
                a.mode
            );
            assert_eq!(a.pfc_log, b.pfc_log, "{} {:?}", sc.name, a.mode);
            assert_eq!(b.v3_skip_counts(), (0, 0));
        }
        let skipped: u64 = runs[0].iter().map(|s| s.v3_skip_counts().0).sum();
        // (the periodic states taken without comparing 8 cycles on, each compared on a copy
        // here: a wrong one is a mismatch, which run_modes_with returns as an error)
        let audits: u64 = runs[0].iter().map(|s| s.v3_idle_audits()).sum();
        assert!(audits > 100, "{}: {audits} idle skips audited", sc.name);
        let cycles: u64 = runs[0].iter().map(|s| s.now).sum();
        eprintln!(
            "{}: the v3 model skipped {skipped} of {cycles} cycles",
            sc.name
        );
        assert!(
            skipped > cycles / 10,
            "{}: skipped {skipped} of {cycles}",
            sc.name
        );
    }
}
