//! The v3 block on port concatenations (`crates/check/src/ports.rs`, what the C ABI, the DPI scoreboard and the
//! Python package use): the model's `capfc_top_oc` answers every golden v3 set's inputs with the
//! set's expected outputs, so the concatenations are the RTL testbench's, field for field; the
//! checker on those ports judges the set's run clean and reports a flipped D at the cycle of the
//! flip.

use capfc::block::{BlockKind, BlockParams};
use capfc::ports::{CheckerPorts, ModelPorts};
use std::path::Path;

mod common;

fn lines(path: &Path) -> Vec<(u64, Vec<u32>)> {
    common::hex_lines(&std::fs::read_to_string(path).unwrap())
}

/// The set's inputs of every cycle.
fn stimulus(dir: &Path, np: usize) -> Vec<Vec<u32>> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    common::every_cycle(
        &lines(&dir.join("stim.hex")),
        m["cycles"].as_u64().unwrap(),
        np,
    )
}

fn params(dir: &Path) -> BlockParams {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    serde_json::from_value(m["params"].clone()).unwrap()
}

#[test]
fn the_v3_model_on_ports_answers_every_golden_set() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/v3");
    let mut sets = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let dir = e.unwrap().path();
        let p = params(&dir);
        let mut m = ModelPorts::with_block(&p, BlockKind::V3).unwrap();
        assert_eq!(m.in_fields()[0].name, "rst");
        assert_eq!(m.out_fields()[0].name, "arr_ready");
        let stim = stimulus(&dir, p.np);
        let expect = lines(&dir.join("expect.hex"));
        let mut out = vec![0u32; m.out_bits().div_ceil(32)];
        let (mut k, mut want) = (0, vec![]);
        for (c, inp) in stim.iter().enumerate() {
            m.step(inp, &mut out).unwrap();
            if k < expect.len() && expect[k].0 == c as u64 {
                want = expect[k].1.clone();
                k += 1;
            }
            assert_eq!(out, want, "{}: cycle {c}", dir.display());
        }
        assert_eq!(k, expect.len(), "{}", dir.display());
        sets += 1;
    }
    assert!(sets >= 8, "{sets} sets");
}

/// The checker on the v3 ports, fed a set's inputs and the model's outputs: every lane judged
/// and nothing wrong; the same run with D[1].p3 (a lossless class the run pauses) flipped from
/// cycle 1,500 on is reported there.
#[test]
fn the_v3_checker_on_ports_judges_a_run_and_reports_a_flip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/v3/random_cal_np4_seed1");
    let p = params(&dir);
    let stim = stimulus(&dir, p.np);
    for flip in [None, Some(1_500usize)] {
        let mut m = ModelPorts::with_block(&p, BlockKind::V3).unwrap();
        let mut c = CheckerPorts::with_block(&p, None, BlockKind::V3).unwrap();
        let d = m
            .out_fields()
            .into_iter()
            .find(|f| f.name == "d_state")
            .unwrap();
        let mut out = vec![0u32; m.out_bits().div_ceil(32)];
        let mut found = vec![];
        for (t, inp) in stim.iter().enumerate() {
            m.step(inp, &mut out).unwrap();
            if flip.is_some_and(|f| t >= f) {
                let b = d.lsb + 8 + 3;
                out[b / 32] ^= 1 << (b % 32);
            }
            found.extend(c.step(inp, &out).unwrap());
        }
        found.extend(c.finish());
        let s = c.summary().clone();
        assert!(
            s.lanes > 1_000 && s.accepts > 500 && s.obligations > 0,
            "{s:?}"
        );
        match flip {
            None => assert!(found.is_empty(), "{:?}", found.first()),
            Some(f) => {
                let v = found.first().expect("the flip went unseen");
                assert_eq!(v.cycle, f as u64, "{v:?}");
            }
        }
    }
}
