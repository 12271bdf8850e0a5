//! The v3 model's idle advance (`Top::advance_idle`, `Top::jump_idle`: the counters' scrub and
//! the PFC timers moved on by arithmetic, the rest of the block found periodic) against clocking
//! every cycle: after random traffic, random configurations and counter words with stale tags,
//! a random number of idle cycles both ways must leave every register, every RAM word and the
//! last cycle's outputs equal, pauses held (D up) and their refreshes falling due in the idle
//! cycles included. Seeded (`CAPFC_SEED`, printed).

use capfc::block::{BlockParams, Mode};
use capfc::stimulus::random_config;
use capfc::v3::fault::Fault;
use capfc::v3::top::{Top, TopIn, TopOut};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;

fn seed() -> u64 {
    let s = std::env::var("CAPFC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_128);
    eprintln!("v3_idle: seed {s} (CAPFC_SEED)");
    s
}

/// What the cases showed: advances that skipped cycles, those among them over which the scrub
/// rewrote a stale counter word, those with a pause held (D up), and those across which a held
/// pause's refresh fell due (its frame sent again in the idle cycles: the advance stops before
/// it, clocks it and skips again after it), with the refreshes they crossed, and those across
/// which a PFC frame waited for its line (pending, its `pfc_ready` low: D not yet sent).
#[derive(Default, Debug)]
struct Seen {
    cases: u64,
    jumped: u64,
    scrubbed: u64,
    paused: u64,
    crossed: u64,
    refreshes: u64,
    waited: u64,
    arithmetic: u64,
}

/// A held pause's refresh falls due in the cycle `m` is about to be clocked in: D up, the D sent
/// equal to it, the timer at 0.
fn refresh_due_now(m: &Top) -> bool {
    (0..m.d_q.len()).any(|i| m.d_q[i] != 0 && m.sent_q[i] == m.d_q[i] && m.timer_q[i] == 0)
}

/// One random case: a state built in stages (configuration, traffic, stale counter words, busy
/// lines), then an idle gap advanced by `Top::advance_idle` and by clocking every cycle, the two
/// compared. (Long: the stages in order, each a few lines.)
fn case(p: &BlockParams, rng: &mut ChaCha8Rng, seen: &mut Seen) {
    let mut m = Top::new(*p);
    match rng.gen_range(0..6) {
        0 => m.set_fault(Some(Fault::ScrubOff)),
        1 => m.u_egress.fault_ram_write = true,
        _ => {}
    }
    let mut inp = TopIn::idle(p.np);
    let mut out = TopOut::default();
    inp.rst = true;
    m.cycle_into(&inp, &mut out);
    inp.rst = false;
    let mode = [Mode::PfcOnly, Mode::StopMax, Mode::StopCal][rng.gen_range(0..3)];
    let mut cfg = random_config(p, mode, rng);
    if rng.gen_bool(0.5) {
        // a short pause refresh, so that timers fall due inside an advance
        cfg.refresh = rng.gen_range(1..200);
    }
    for (a, d) in cfg.register_writes() {
        (inp.cfg_we, inp.cfg_addr, inp.cfg_wdata) = (true, a, d);
        m.cycle_into(&inp, &mut out);
    }
    inp.cfg_we = false;
    // traffic (from the counters' initialisation on, or after it), then maybe counter words with
    // stale tags (as a sort's row clear leaves them), then idle inputs with random fields
    let busy = rng.gen_range(0..2 * m.u_egress.p.na() as u64 + 300);
    // (in a third of the cases arrivals and enqueues alone: the counters climb, D rises and
    // stays up over the idle cycles, a pause held)
    let hold = rng.gen_ratio(1, 3);
    let valid = rng.gen_range(if hold { 0.5..1.0 } else { 0.0..0.6 });
    // (in half the cases the lines are busy over the last cycles of traffic and stay busy at
    // most ports: PFC frames wait for them, pending, across the idle cycles)
    let blocked = rng.gen_bool(0.5);
    for c in 0..busy {
        common::v3_random_in(p.np, rng, valid, 0.7, &mut inp);
        if hold {
            inp.dep_valid = false;
            inp.deq_valid.fill(false);
        }
        if blocked && c + 60 > busy {
            inp.pfc_ready.fill(false);
        }
        inp.cfg_we = rng.gen_ratio(1, 200);
        m.cycle_into(&inp, &mut out);
    }
    if rng.gen_bool(0.5) {
        for o in 0..p.np {
            for w in m.u_egress.port[o].mem.iter_mut() {
                if rng.gen_bool(0.3) {
                    *w ^= 1 << (p.cw + rng.gen_range(0..2));
                }
            }
        }
    }
    common::v3_random_in(p.np, rng, 0.0, 0.7, &mut inp);
    if blocked {
        for r in inp.pfc_ready.iter_mut() {
            *r = rng.gen_bool(0.2);
        }
    }
    inp.cfg_we = false;
    let n = match rng.gen_range(0..4) {
        0 => rng.gen_range(0..40),
        1 => rng.gen_range(40..400),
        _ => rng.gen_range(400..6000),
    };
    let before = m.clone();
    let (mut a, mut b) = (m.clone(), m);
    let (mut oa, mut ob) = (out.clone(), out);
    let mut refreshes = 0;
    for _ in 0..n {
        refreshes += u64::from(refresh_due_now(&a));
        a.cycle_into(&inp, &mut oa);
    }
    // (and sparse, as a network's switches run it: its idle cycles by arithmetic)
    let (mut c, mut oc) = (b.clone(), ob.clone());
    c.set_sparse(true);
    let clocked = b.advance_idle(&inp, n, &mut ob);
    assert!(clocked <= n);
    let clocked_sparse = c.advance_idle(&inp, n, &mut oc);
    if let Some(d) = common::sparse_differs(&a, &c) {
        panic!("{p:?}: {n} idle cycles, sparse ({clocked_sparse} clocked): {d}");
    }
    assert_eq!(oa, oc, "{p:?}: {n} idle cycles, sparse: the last outputs");
    if clocked_sparse < clocked {
        seen.arithmetic += 1;
    }
    if a != b {
        let (ra, rb) = (a.regs(), b.regs());
        let diff: Vec<_> = ra
            .iter()
            .zip(&rb)
            .filter(|(x, y)| x != y)
            .take(8)
            .map(|(x, y)| format!("{}: stepped {}, advanced {}", x.0, x.1, y.1))
            .collect();
        panic!("{p:?}: {n} idle cycles ({clocked} clocked): {diff:#?}");
    }
    assert_eq!(oa, ob, "{p:?}: {n} idle cycles: the last outputs");
    seen.cases += 1;
    if clocked < n {
        seen.jumped += 1;
        let mems =
            |t: &Top| -> Vec<Vec<u64>> { t.u_egress.port.iter().map(|o| o.mem.clone()).collect() };
        if mems(&before) != mems(&a) {
            seen.scrubbed += 1;
        }
        if a.d_q.iter().any(|&d| d != 0) {
            seen.paused += 1;
        }
        if (0..p.np).any(|i| !inp.pfc_ready[i] && a.d_q[i] != a.sent_q[i]) {
            seen.waited += 1;
        }
        if refreshes > 0 && before.refresh_due(&inp) < n {
            seen.crossed += 1;
            seen.refreshes += refreshes;
        }
    }
}

/// Every parameter set of the RTL's table (4 to 48 ports) and a few unusual ones (6 and 12
/// ports, one counted class, 4-bit counters, 64-byte cells).
#[test]
fn advancing_idle_cycles_equals_clocking_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed());
    let mut sets: Vec<[u32; 7]> = capfc::v3::rtl_configs::V3_RTL_CONFIGS
        .iter()
        .map(|(_, v)| *v)
        .collect();
    sets.extend([[6, 14, 20, 4, 6, 8, 1], [12, 14, 20, 16, 0, 8, 3]]);
    let mut seen = Seen::default();
    for v in &sets {
        let p = BlockParams::from_values(v);
        let cases = if p.np > 16 { 6 } else { 40 };
        for _ in 0..cases {
            case(&p, &mut rng, &mut seen);
        }
    }
    eprintln!("v3_idle: {seen:?}");
    // (the corners the advance has: cycles skipped, a stale word rewritten by the scrub's jump,
    // a pause held while skipping, its refresh falling due inside a skipping advance, a frame
    // waiting for its line while skipping)
    assert!(seen.jumped > seen.cases / 3, "{seen:?}");
    assert!(seen.scrubbed > 0, "{seen:?}");
    assert!(seen.paused > 0, "{seen:?}");
    assert!(seen.crossed > 0, "{seen:?}");
    assert!(seen.waited > 0, "{seen:?}");
    // (sparse, the idle cycles by arithmetic where clocking every register needs them clocked)
    assert!(seen.arithmetic > seen.cases / 4, "{seen:?}");
}

/// Which held pauses bound an idle advance (`Top::refresh_due`): a refresh due now whose line is
/// ready is taken in the next cycle (0 cycles may pass), one whose line is busy waits, as does a
/// changed D waiting for its line (neither bounds the advance), and a timer still running bounds
/// it at its count. Under the inputs whose lines are busy the block is idle-ready with D unsent
/// (`Top::idle_ready_under`), under ready lines it is not.
#[test]
fn a_frame_waiting_for_its_line_does_not_bound_the_advance() {
    let p = BlockParams::from_values(&capfc::v3::rtl_configs::V3_RTL_CONFIGS[0].1);
    let mut m = Top::new(p);
    let mut inp = TopIn::idle(p.np);
    let mut out = TopOut::default();
    inp.rst = true;
    m.cycle_into(&inp, &mut out);
    inp.rst = false;
    for _ in 0..200 {
        m.cycle_into(&inp, &mut out);
    }
    assert!(m.idle_ready_under(&inp));
    assert_eq!(m.refresh_due(&inp), u64::MAX, "no pause held");
    inp.pfc_ready.fill(false);
    // port 0: a refresh due now (D up, sent, its timer at 0)
    (m.d_q[0], m.sent_q[0], m.timer_q[0]) = (0x08, 0x08, 0);
    inp.pfc_ready[0] = true;
    assert_eq!(m.refresh_due(&inp), 0, "taken in the next cycle");
    inp.pfc_ready[0] = false;
    assert_eq!(m.refresh_due(&inp), u64::MAX, "waits for its line");
    // port 1: a pause held, its refresh 37 cycles away
    (m.d_q[1], m.sent_q[1], m.timer_q[1]) = (0x01, 0x01, 37);
    assert_eq!(m.refresh_due(&inp), 37);
    // port 2: D changed, not yet sent
    (m.d_q[2], m.sent_q[2], m.timer_q[2]) = (0x03, 0x01, 0);
    assert_eq!(m.refresh_due(&inp), 37, "a changed D waiting for its line");
    assert!(m.idle_ready_under(&inp) && !m.idle_ready());
    inp.pfc_ready[2] = true;
    assert!(!m.idle_ready_under(&inp), "its line ready: the frame goes");
}

/// A network's switch takes its sparse block as periodic as soon as the block is settled
/// (`Top::settled_under`: D as it will stay, E's partial ORs and every sort engine's compares
/// made), which is often before `IDLE_DRAIN` idle-ready cycles. From every such state, skipping
/// idle cycles by `Top::jump_idle` and then running more traffic gives, cycle for cycle, the
/// outputs that clocking every cycle gives, and at the end the same state. Sorts run in the
/// traffic (CaPFC's modes), so an engine whose compares had not settled is carried into the next
/// sort: taking its state early fails here. Half the skips are made as a switch ends its
/// skipping (`Top::jump_idle_before_edge`: no cycle clocked, the next one clocked by the caller).
#[test]
fn a_settled_state_skips_as_clocking_does() {
    use capfc::v3::top::IDLE_DRAIN;
    let mut rng = ChaCha8Rng::seed_from_u64(seed());
    let sets = [
        [4, 14, 20, 16, 0, 8, 2],
        [8, 14, 20, 16, 0, 8, 3],
        [6, 14, 20, 4, 6, 8, 1],
        [12, 14, 20, 16, 0, 8, 3],
    ];
    let (mut cases, mut early, mut silent) = (0u64, 0u64, 0u64);
    for v in &sets {
        let p = BlockParams::from_values(v);
        for _ in 0..30 {
            let mut m = Top::new(p);
            m.set_sparse(true);
            let mut inp = TopIn::idle(p.np);
            let mut out = TopOut::default();
            inp.rst = true;
            m.cycle_into(&inp, &mut out);
            inp.rst = false;
            let mode = [Mode::StopMax, Mode::StopCal][rng.gen_range(0..2)];
            for (a, d) in random_config(&p, mode, &mut rng).register_writes() {
                (inp.cfg_we, inp.cfg_addr, inp.cfg_wdata) = (true, a, d);
                m.cycle_into(&inp, &mut out);
            }
            inp.cfg_we = false;
            // (the thresholds' copies settle, then traffic, then idle inputs)
            for _ in 0..64 {
                m.cycle_into(&inp, &mut out);
            }
            let traffic = |rng: &mut ChaCha8Rng, inp: &mut TopIn| {
                common::v3_random_in(p.np, rng, 0.3, 0.9, inp);
            };
            for _ in 0..rng.gen_range(20..300) {
                traffic(&mut rng, &mut inp);
                m.cycle_into(&inp, &mut out);
            }
            common::v3_random_in(p.np, &mut rng, 0.0, 1.0, &mut inp);
            let mut run = 0;
            for _ in 0..64 {
                m.cycle_into(&inp, &mut out);
                run = if m.idle_ready_under(&inp) { run + 1 } else { 0 };
                if !m.settled_under(&inp) {
                    continue;
                }
                cases += 1;
                early += u64::from(run < IDLE_DRAIN);
                let n = rng.gen_range(1..100);
                let (mut a, mut b) = (m.clone(), m.clone());
                let (mut oa, mut ob) = (out.clone(), out.clone());
                // (or as a switch ends its skipping: every cycle by arithmetic, their outputs
                // not made, the next cycle clocked)
                let before_edge = rng.gen_bool(0.5);
                if before_edge {
                    silent += u64::from(a.jump_idle_before_edge(&inp, n, &mut oa) == 0);
                } else {
                    a.jump_idle(&inp, n, &mut oa);
                }
                for _ in 0..n {
                    b.cycle_into(&inp, &mut ob);
                }
                if !before_edge {
                    assert_eq!(
                        oa, ob,
                        "{p:?}: {n} idle cycles skipped from a settled state"
                    );
                }
                let mut after = inp.clone();
                for c in 0..300 {
                    traffic(&mut rng, &mut after);
                    a.cycle_into(&after, &mut oa);
                    b.cycle_into(&after, &mut ob);
                    assert_eq!(
                        oa, ob,
                        "{p:?}: cycle {c} of the traffic after {n} idle cycles skipped"
                    );
                }
                // (both sparse: the clocked one's scrubs caught up too)
                b.settle();
                if let Some(d) = common::sparse_differs(&b, &a) {
                    panic!("{p:?}: after {n} idle cycles skipped and traffic: {d}");
                }
                break;
            }
        }
    }
    eprintln!(
        "v3_idle: {cases} settled states, {early} before {IDLE_DRAIN} idle-ready cycles, \
         {silent} skipped with no cycle clocked"
    );
    assert!(cases > 80, "{cases} settled states");
    assert!(early > cases / 4, "{early} of {cases} settled early");
    assert!(
        silent > cases / 4,
        "{silent} of {cases} skipped with no cycle clocked"
    );
}
