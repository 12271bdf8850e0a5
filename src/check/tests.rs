use super::block::check_model;
use crate::block::Mode;
use crate::stimulus::RandomStim;

fn run(
    np_name: &str,
    mode: Mode,
    seed: u64,
    cycles: u64,
) -> (super::Summary, Vec<super::Violation>) {
    let p = crate::golden::params_of(np_name).expect("a parameter set");
    let mut s = RandomStim::new(&p, mode, seed, cycles);
    // A lossless mask rewritten with traffic in flight is outside section 3 (the checker says so).
    s.profile.reconfig_rate = 0.0;
    check_model(&p, &mut s, None, 5).expect("runs")
}

#[test]
fn our_block_passes_its_own_envelope() {
    for (name, mode, seed) in [
        ("np4", Mode::StopMax, 1),
        ("np4", Mode::StopCal, 2),
        ("np8", Mode::StopCal, 3),
    ] {
        let (s, v) = run(name, mode, seed, 20_000);
        assert!(
            v.is_empty(),
            "{name} {mode:?} seed {seed}: {s:?}\n{}",
            v.iter().map(|v| v.to_string()).collect::<String>()
        );
    }
}
