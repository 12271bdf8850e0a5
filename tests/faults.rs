//! The block's fault catalogue against the checks (`capfc faults`, src/faults): every deliberate
//! bug of the v3 model (crates/block/src/v3/fault.rs) fires in the run that catches it, and is caught by the
//! lockstep (faulty model beside the unchanged Verilated RTL) and by a golden set replayed on the
//! plain Verilog testbench (Icarus, no Rust), unless `faults::UNKILLED` lists it with its reason;
//! so a check or a golden set that stops testing its rule fails the build.
//!
//! `make test` runs the slice: every fault through the lockstep and the golden sets from Rust
//! (the first catch of each), and a few through the Verilog testbench. `make faults` runs the
//! whole matrix (every catch counted, every fault's first catching set on Icarus): the ignored
//! test below.
#![cfg(feature = "rtl")]

use capfc::block::rtl_configs::RTL_CONFIGS;
use capfc::block::{BlockParams, Mode};
use capfc::faults::{matrix, render, unkilled_reason, Plan, Row, UNKILLED};
use capfc::stimulus::{check_corners, DIRECTED};
use capfc::v3::fault::Fault;

/// Every fault not listed in `UNKILLED` is killed, and every listed one is not (the list follows
/// the sets); the report on failure.
fn assert_matrix(rows: &[Row], plan: &Plan) {
    let report = render(rows, plan);
    let missed: Vec<&str> = rows
        .iter()
        .filter(|r| !r.killed(plan) && unkilled_reason(r.fault).is_none())
        .map(|r| r.fault.name())
        .collect();
    assert!(missed.is_empty(), "not killed: {missed:?}\n{report}");
    let stale: Vec<&str> = rows
        .iter()
        .filter(|r| r.killed(plan) && unkilled_reason(r.fault).is_some())
        .map(|r| r.fault.name())
        .collect();
    assert!(
        stale.is_empty(),
        "killed, but listed in UNKILLED: {stale:?}\n{report}"
    );
    for r in rows.iter().filter(|r| r.killed(plan)) {
        for k in [&r.lockstep, &r.golden].into_iter().flatten() {
            let at = k.fired_at.expect("killed after firing");
            assert!(at <= k.cycle, "{}: {report}", r.fault.name());
        }
    }
    eprintln!("{report}");
}

fn root(name: &str) -> std::path::PathBuf {
    let root = std::path::Path::new("target").join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

#[test]
fn the_catalogue_covers_every_unit_with_at_least_30_faults() {
    assert!(Fault::ALL.len() >= 30, "{} faults", Fault::ALL.len());
    for unit in ["u_ingress", "u_egress", "u_sort", "u_pfc", "u_top"] {
        assert!(
            Fault::ALL.iter().any(|f| f.unit().starts_with(unit)),
            "no fault in {unit}"
        );
    }
    for (f, why) in UNKILLED {
        assert!(why.len() > 20, "{}: give the reason", f.name());
    }
}

/// The slice of `make test`: every fault through the lockstep and the golden sets from Rust, the
/// first catch of each; and one fault of each unit through the Icarus testbench alone.
#[test]
fn every_fault_is_killed_by_the_lockstep_and_a_golden_set() {
    let mut plan = Plan::standard(1, 3000).unwrap();
    plan.first_only = true;
    let root = root("faults-test");
    let rows = matrix(Fault::ALL, &plan, &root, 2).unwrap();
    assert_eq!(rows.len(), Fault::ALL.len());
    assert_matrix(&rows, &plan);
    plan.verilog = Some("icarus".into());
    let few = [
        Fault::IngXoffGe,
        Fault::WarnOffByOne,
        Fault::SelTakesEveryTie,
        Fault::XonNotSent,
    ];
    let rows = matrix(&few, &plan, &root, 2).unwrap();
    assert_matrix(&rows, &plan);
    for r in &rows {
        let v = r.verilog.as_ref().expect("replayed").as_ref().unwrap();
        assert!(v.first.starts_with("cycle "), "{v:?}");
    }
}

/// The whole matrix (`make faults`): every catch counted, each fault's first catching golden set
/// replayed on the Icarus testbench alone.
#[test]
#[ignore = "the full fault matrix: make faults"]
fn the_full_matrix_on_the_verilog_testbench() {
    let mut plan = Plan::standard(4, 3000).unwrap();
    plan.verilog = Some("icarus".into());
    let root = root("faults-full");
    let t = std::time::Instant::now();
    let rows = matrix(Fault::ALL, &plan, &root, 2).unwrap();
    assert_matrix(&rows, &plan);
    eprintln!(
        "the full fault matrix: {} faults in {:.0} s",
        rows.len(),
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn every_directed_case_of_v2_reaches_its_corners_at_every_parameter_set() {
    for (name, v) in RTL_CONFIGS {
        let p = BlockParams::from_values(v);
        for mode in [Mode::StopMax, Mode::StopCal] {
            for case in DIRECTED {
                if let Err(e) = check_corners(&p, mode, case) {
                    panic!("{name}: {e}");
                }
            }
        }
    }
}
