//! The fault catalogue against the checks (`capfc faults`): every deliberate bug of the model is
//! caught by the lockstep and by a golden set replayed on the plain Verilog testbench (Icarus, no
//! Rust), so a check or a golden set that stops testing its rule fails the build. And every
//! directed case reaches the corners it is named after, at every built parameter set.
#![cfg(feature = "rtl")]

use capfc::block::rtl_configs::RTL_CONFIGS;
use capfc::block::{BlockParams, Fault, Mode};
use capfc::faults::{matrix, render, Plan};
use capfc::stimulus::{check_corners, DIRECTED};

#[test]
fn every_fault_is_caught_by_the_lockstep_and_by_a_golden_set_on_the_verilog_testbench() {
    let mut plan = Plan::standard(2, 3000);
    plan.first_only = true;
    plan.verilog = Some("icarus".into());
    let root = std::path::Path::new("target/faults-test");
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root).unwrap();
    let rows = matrix(Fault::ALL, &plan, root, 2).unwrap();
    assert!(
        Fault::ALL.len() >= 20,
        "the catalogue has {} faults",
        Fault::ALL.len()
    );
    assert_eq!(rows.len(), Fault::ALL.len());
    let report = render(&rows, &plan);
    let missed: Vec<&str> = rows
        .iter()
        .filter(|r| !r.killed())
        .map(|r| r.fault.name())
        .collect();
    assert!(missed.is_empty(), "not caught: {missed:?}\n{report}");
    for r in &rows {
        match &r.verilog {
            Some(Ok(v)) => assert!(v.first.starts_with("cycle "), "{report}"),
            other => panic!(
                "{}: no Verilog-only catch: {other:?}\n{report}",
                r.fault.name()
            ),
        }
    }
    eprintln!("{report}");
}

/// The three rule changes that once passed every golden set are each caught by one now.
#[test]
fn the_rule_changes_that_once_passed_every_golden_set_are_caught_by_one() {
    let mut plan = Plan::standard(0, 0);
    plan.first_only = true;
    plan.directed.clear();
    let root = std::path::Path::new("target/faults-test-named");
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root).unwrap();
    let named = [Fault::CalStopGt, Fault::CounterWraps, Fault::ClearBelowWarn];
    for r in matrix(&named, &plan, root, 1).unwrap() {
        assert!(
            r.golden.is_some(),
            "{}: no golden set catches it",
            r.fault.name()
        );
    }
}

#[test]
fn every_directed_case_reaches_its_corners_at_every_parameter_set() {
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
