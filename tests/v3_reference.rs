//! The v3 block's model judged by the reference checker (the untimed reference semantics of
//! shared/domain.md within the v3 envelope, `capfc::check::block::envelope_of_v3`) on random
//! traffic: many seeds, port counts and both algorithms, each run clean, every kind of judgement
//! exercised. The v3 counterpart of `tests/reference_equivalence.rs`, which holds v2's model to the
//! untimed reference event by event; v3 answers four cycles after a take and its sorts take
//! longer, so it is held to the same rules through the checker's windows instead.
//!
//! Seeded (ChaCha8, through the golden generator's random traffic): a failure prints the seed, the
//! ports and the mode, and `random_lines` with them replays it.

mod common;
use capfc::block::{BlockKind, BlockParams, Mode};
use capfc::check::Summary;
use capfc::ports::{CheckerPorts, ModelPorts};

/// One run: the model's answers to the random traffic (the golden generator's expectation, which
/// is the model's) fed with the traffic to the checker, then eight idle cycles; what it judged,
/// and its first report.
fn judge(p: &BlockParams, seed: u64, cycles: u64, mode: Mode) -> (Summary, Option<String>) {
    let (stim, expect) = capfc::golden_v3::random_lines(p, seed, cycles, mode);
    // (then idle cycles, so that the last lanes' answers are read: the checker reports a run
    // that ends before them)
    let stim = common::every_cycle(&common::hex_lines(&stim), cycles + 8, p.np);
    let expect = common::hex_lines(&expect);
    let mut m = ModelPorts::with_block(p, BlockKind::V3).unwrap();
    let mut c = CheckerPorts::with_block(p, None, BlockKind::V3).unwrap();
    let mut out = vec![0u32; m.out_bits().div_ceil(32)];
    let mut first = None;
    let mut k = 0;
    for (t, inp) in stim.iter().enumerate() {
        m.step(inp, &mut out).unwrap();
        // (the generator's expectation is the same model's: the two agree, or this test's
        // plumbing is wrong)
        if k < expect.len() && expect[k].0 == t as u64 {
            assert_eq!(out, expect[k].1, "seed {seed}: cycle {t}");
            k += 1;
        }
        for v in c.step(inp, &out).unwrap() {
            first.get_or_insert(v.to_string());
        }
    }
    for v in c.finish() {
        first.get_or_insert(v.to_string());
    }
    (c.summary().clone(), first)
}

#[test]
fn the_v3_model_keeps_the_rules_on_random_traffic() {
    let mut total = Summary::default();
    let mut runs = 0;
    for np in [4usize, 6, 8, 16] {
        let p = BlockParams::from_values(&[np as u32, 14, 20, 16, 0, 8, 2]);
        for mode in [Mode::StopMax, Mode::StopCal] {
            for seed in 1..=6u64 {
                let (s, first) = judge(&p, seed, 3_000, mode);
                if let Some(r) = first {
                    panic!(
                        "np {np}, {}, seed {seed}: {r}\n  replay: capfc::golden_v3::random_lines(&params, {seed}, 3000, Mode::{mode:?})",
                        mode.name()
                    );
                }
                assert!(s.lanes > 0, "np {np}, seed {seed}: nothing checked");
                total.lanes += s.lanes;
                total.accepts += s.accepts;
                total.d_changes += s.d_changes;
                total.obligations += s.obligations;
                total.judged += s.judged;
                total.frames += s.frames;
                runs += 1;
            }
        }
    }
    eprintln!(
        "{runs} runs: {} lanes, {} accepts, {} changes of D, {} selections ({} judged at their deadline), {} frames: 0 violations",
        total.lanes, total.accepts, total.d_changes, total.obligations, total.judged, total.frames
    );
    // every kind of judgement happened
    assert!(
        total.accepts > 0
            && total.d_changes > 0
            && total.obligations > 0
            && total.judged > 0
            && total.frames > 0,
        "{total:?}"
    );
}
