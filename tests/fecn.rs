//! FECN's network converges to the fair share on the bottleneck; its scenario parser and probe
//! parser refuse malformed input, naming where and which field.

use capfc::net::fecn::{run, FecnConfig, FecnMode, FecnRun};
use capfc::switch::fecn::{Probe, ProbeError, PROBE_BYTES};
use proptest::prelude::*;

/// 100 CBR flows of 200 Mb/s into 10 Gb/s, limiters starting at C/10 = 1 Gb/s (ten times the fair
/// share), 100 ms.
const CONVERGE: &str = "[fecn]
flows = 100
flow_rate_mbps = 200.0
capacity_gbps = 10.0
arrivals = \"cbr\"
duration_ms = 100.0
warmup_ms = 50.0
n0 = 10.0
gamma = 0.99
control = \"hyperbolic\"
seed = 7
";

/// The fair-share rule over the run's second half: every flow's rate limiter, averaged over the
/// 1 ms samples, within 5 % of C/N = 100 Mb/s (the advertised rate moves around it as the queue
/// control acts), every flow's delivered rate within 5 % of it, and the link at least 95 % busy.
/// `Err` says what broke.
fn fair_share(r: &FecnRun) -> Result<(), String> {
    let fair = r.cfg.capacity_gbps * 1000.0 / r.cfg.flows as f64;
    let late: Vec<_> = r
        .rates
        .iter()
        .filter(|s| s.t_us > r.cfg.warmup_ms * 1000.0)
        .collect();
    for f in 0..r.cfg.flows {
        let mean = late.iter().map(|s| s.limiter_mbps[f]).sum::<f64>() / late.len() as f64;
        if (mean - fair).abs() > 0.05 * fair {
            return Err(format!("flow {f}'s limiter averages {mean:.2} Mb/s"));
        }
    }
    let st = &r.stats;
    if st.per_flow_min_mbps < 0.95 * fair || st.per_flow_max_mbps > 1.05 * fair {
        return Err(format!(
            "delivered {:.2}..{:.2} Mb/s",
            st.per_flow_min_mbps, st.per_flow_max_mbps
        ));
    }
    if st.throughput_mbps < 0.95 * r.cfg.capacity_gbps * 1000.0 {
        return Err(format!("throughput {:.2} Mb/s", st.throughput_mbps));
    }
    Ok(())
}

#[test]
fn converges_to_the_fair_share() {
    let cfg = FecnConfig::parse("converge.toml", CONVERGE).unwrap();
    for mode in FecnMode::ALL {
        let r = run(&cfg, mode, cfg.seed);
        println!("{mode:?}, seed {}: {:?}", cfg.seed, r.stats);
        // It started ten times above the fair share: the first interval's advertised rate fell.
        let first = r.ticks.first().unwrap().1;
        assert!(
            first.rho > 1.5,
            "the first interval was overloaded: {first:?}"
        );
        fair_share(&r).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!(r.stats.probes, 100 * 100, "one probe a flow a millisecond");
    }
}

/// The rule can fail: with the probes never returning (their interval longer than the run), the
/// limiters stay at 1 Gb/s and the same check refuses the run.
#[test]
fn without_probes_the_rule_fails() {
    let text = CONVERGE.replace("seed = 7", "seed = 7\nprobe_us = 1e9");
    let cfg = FecnConfig::parse("noprobe.toml", &text).unwrap();
    // The first probe is drawn in [0, probe_us): seed 7 draws none inside 100 ms.
    let r = run(&cfg, FecnMode::Fecn, cfg.seed);
    assert!(r.stats.probes <= 1, "probes: {}", r.stats.probes);
    let e = fair_share(&r).expect_err("no control, no fair share");
    assert!(e.contains("limiter"), "{e}");
}

const NUMERIC: [&str; 6] = [
    "flows",
    "flow_rate_mbps",
    "capacity_gbps",
    "duration_ms",
    "n0",
    "gamma",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any numeric field given a non-number, or dropped, is refused with the file, the line of the
    /// field (or of the table) and the field's name; nothing panics.
    #[test]
    fn scenario_refusals_name_file_line_field(i in 0usize..NUMERIC.len(), junk in "[a-z]{1,6}|\"[a-z]{0,4}\"|\\[[0-9]{0,2}\\]", drop in any::<bool>()) {
        let field = NUMERIC[i];
        let line_no = CONVERGE.lines().position(|l| l.starts_with(&format!("{field} ="))).unwrap() + 1;
        let text: String = CONVERGE
            .lines()
            .filter_map(|l| {
                if l.starts_with(&format!("{field} =")) {
                    if drop { None } else { Some(format!("{field} = {junk}\n")) }
                } else {
                    Some(format!("{l}\n"))
                }
            })
            .collect();
        let e = FecnConfig::parse("p.toml", &text).unwrap_err();
        prop_assert_eq!(&e.file, "p.toml");
        prop_assert!(e.to_string().starts_with("p.toml:"), "{}", e);
        prop_assert_eq!(&e.field, field, "{}", e);
        if !drop {
            prop_assert_eq!(e.line, line_no, "{}", e);
        }
    }

    /// Out-of-range values are refused at their own line and field.
    #[test]
    fn scenario_ranges(g in prop_oneof![-5.0f64..=0.0, 1.0001f64..10.0]) {
        let text = CONVERGE.replace("gamma = 0.99", &format!("gamma = {g:?}"));
        let e = FecnConfig::parse("r.toml", &text).unwrap_err();
        prop_assert_eq!((e.line, e.field.as_str()), (9, "gamma"), "{}", e);
    }

    /// Probes round-trip, any changed byte is refused, and arbitrary bytes never panic.
    #[test]
    fn probe_frames(flow in any::<u32>(), seq in any::<u32>(), rate in any::<u32>(), t in any::<u64>(),
                    refl in any::<bool>(), at in 0usize..PROBE_BYTES, flip in 1u8..=255,
                    junk in proptest::collection::vec(any::<u8>(), 0..80)) {
        let p = Probe { dst_mac: [2, 0, 0, 0, 0, 1], src_mac: [2, 0, 0, 0, 0, 2], reflected: refl,
                        flow, seq, rate_kbps: rate, sent_ps: t };
        let b = p.encode();
        prop_assert_eq!(Probe::decode(&b), Ok(p));
        let mut x = b;
        x[at] ^= flip;
        let fcs_refused = matches!(Probe::decode(&x), Err(ProbeError::Field { field: "fcs", .. }));
        prop_assert!(fcs_refused, "byte {} flipped by {:#04x}", at, flip);
        let _ = Probe::decode(&junk);
    }
}
