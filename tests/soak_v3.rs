//! The block's lockstep regression (`capfc cosim`, `make soak`, src/soak_v3.rs): its jobs run model and RTL in lockstep on the
//! random golden sets' traffic, a fault in the model fails a job with the command that replays
//! it, the shards divide the jobs, and the traffic reaches its corners at the soak's unusual
//! parameter sets (one counted class, 64-byte cells, 4-bit counters, stray ports) too.

use std::collections::BTreeMap;

use capfc::block::{BlockParams, Mode};
use capfc::golden_v3::{random_clocked, Clock};
use capfc::v3::rtl_configs::V3_RTL_CONFIGS;

fn params(name: &str) -> BlockParams {
    let (_, v) = V3_RTL_CONFIGS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} is not in crates/block/src/v3/rtl_configs.rs"));
    BlockParams::from_values(v)
}

/// The traffic through the model alone (the clock a golden set has).
fn model_only(p: &BlockParams, seed: u64, cycles: u64, mode: Mode) -> BTreeMap<String, u64> {
    let clock: Clock = Box::new(|inp, top, out| {
        top.cycle_into(inp, out);
        true
    });
    let np = p.np;
    let c = random_clocked(
        p,
        seed,
        cycles,
        mode,
        seed.is_multiple_of(2),
        !np.is_power_of_two(),
        clock,
    );
    assert_eq!(c.cycles, cycles);
    assert!(c.wrong.is_empty(), "{:?}", c.wrong);
    c.corners
}

/// At each of the soak's own parameter sets, Stop-Max on a contention seed and Stop-Calibrate on
/// a plain one (each 20,000 cycles, the observed burst period): pauses sent and ended (so the
/// thresholds, scaled to cells and to one class, are crossed), E set, sorts aborted by clears,
/// arrivals refused, and at 6 and 12 ports enqueues naming a port NP or above never taken.
#[test]
fn the_traffic_reaches_its_corners_at_the_soaks_parameter_sets() {
    for name in ["v3_np4_nl1", "v3_np8_cell64", "v3_np6_cw4", "v3_np12"] {
        let p = params(name);
        let mut c = model_only(&p, 2, 20_000, Mode::StopMax);
        for (k, v) in model_only(&p, 1, 20_000, Mode::StopCal) {
            *c.entry(k).or_default() += v;
        }
        let at = |k: &str| c.get(k).copied().unwrap_or(0);
        let what = format!("{name}: {c:?}");
        for k in [
            "xoff_frames",
            "xon_frames",
            "cycles_with_e",
            "sorts_aborted_by_a_clear",
            "arrivals_refused",
        ] {
            assert!(at(k) > 0, "{k} never happened: {what}");
        }
        if !p.np.is_power_of_two() {
            assert!(
                at("enqueues_naming_a_port_np_or_above_not_taken") > 0,
                "{what}"
            );
        }
    }
}

#[cfg(feature = "rtl")]
mod rtl {
    use super::params;
    use capfc::block::Mode;
    use capfc::soak_v3::{directed_jobs, jobs, run_job, shard, SoakError, Traffic};
    use capfc::v3::fault::Fault;

    /// A job at 4 ports (built by default) in both algorithms: every cycle in lockstep, no
    /// difference, and the traffic's corners counted.
    #[test]
    fn a_job_runs_model_and_rtl_in_lockstep() {
        let p = params("v3_np4");
        for j in jobs(
            &[("v3_np4".into(), p)],
            &[Mode::StopMax, Mode::StopCal],
            1..=2,
            20_000,
        ) {
            let r = run_job(&j, None, false).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.cycles, 20_000, "{}", j.label());
            assert!(r.full_compares >= 1);
            assert!(
                r.corners["xoff_frames"] > 0,
                "{}: {:?}",
                j.label(),
                r.corners
            );
            if j.contention() {
                assert!(r.corners["sorts_aborted_by_a_clear"] > 0, "{:?}", r.corners);
            }
        }
    }

    /// A fault in the model (the RTL right): the job fails at its first difference, and its
    /// report names the seed and the command that replays it.
    #[test]
    fn a_fault_in_the_model_fails_the_job_with_its_replay_command() {
        let p = params("v3_np4");
        let j = &jobs(&[("v3_np4".into(), p)], &[Mode::StopMax], 7..=7, 20_000)[0];
        match run_job(j, Some(Fault::IngLossyPause), false) {
            Err(e @ SoakError::Mismatch { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(
                        "cosim --config v3_np4 --algo max --seed 7 --cycles 20000 --directed none --fault ing_lossy_pause"
                    ),
                    "{msg}"
                );
            }
            other => panic!("the fault was not caught: {other:?}"),
        }
    }

    /// The directed jobs are the curated golden sets at the given parameter sets and algorithms,
    /// each run clean in lockstep; a fault its set catches fails it with the set in the replay
    /// command; a name that is no set is refused.
    #[test]
    fn the_golden_sets_run_in_lockstep() {
        let p = params("v3_np4");
        let cfg = [("v3_np4".to_string(), p)];
        let all = directed_jobs(&cfg, &[Mode::StopMax, Mode::StopCal], None).unwrap();
        let curated = capfc::golden_v3::curated();
        let at4 = curated.iter().filter(|c| c.params == p).count();
        assert_eq!(all.len(), at4, "every curated set at 4 ports, once");
        assert!(at4 >= 40, "{at4}");
        let max = directed_jobs(&cfg, &[Mode::StopMax], None).unwrap();
        assert!(max.iter().all(|j| j.mode == Mode::StopMax));
        assert_eq!(2 * max.len(), all.len());
        let name = "two_lanes_one_slot_cal_np4".to_string();
        let one = directed_jobs(&cfg, &[Mode::StopCal], Some(std::slice::from_ref(&name))).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].traffic, Traffic::Set(name));
        let r = run_job(&one[0], None, false).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.cycles > 500, "{}", r.cycles);
        let set = "reset_with_e_max_np4".to_string();
        let j =
            &directed_jobs(&cfg, &[Mode::StopMax], Some(std::slice::from_ref(&set))).unwrap()[0];
        match run_job(j, Some(Fault::IngLossyPause), false) {
            Err(e @ SoakError::Mismatch { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("cosim --config v3_np4 --algo max --seeds 0 --directed reset_with_e_max_np4 --fault ing_lossy_pause"),
                    "{msg}"
                );
            }
            other => panic!("the fault was not caught: {other:?}"),
        }
        assert!(matches!(
            directed_jobs(&cfg, &[Mode::StopMax], Some(&["nothing".to_string()])),
            Err(SoakError::NoSet { .. })
        ));
    }

    /// The shards of a job list take each job exactly once.
    #[test]
    fn the_shards_divide_the_jobs() {
        let p = params("v3_np4");
        let all = jobs(
            &[("v3_np4".into(), p)],
            &[Mode::StopMax, Mode::StopCal],
            1..=5,
            10,
        );
        let mut seen = vec![];
        for k in 1..=3 {
            seen.extend(shard(all.clone(), k, 3));
        }
        assert_eq!(seen.len(), all.len());
        for j in &all {
            assert_eq!(seen.iter().filter(|s| *s == j).count(), 1);
        }
    }
}
