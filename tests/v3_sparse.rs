//! The v3 model's sparse evaluation (`Top::set_sparse`: the ingress's and the egress's groups
//! clocked only while a lane, or an increment, is in them) against clocking every group every
//! cycle: on random configurations and traffic in bursts and idle stretches, with resets and
//! configuration writes among them, the two must give the same outputs every cycle, the same RAM
//! words, I, E, generations and row events, every port's registers and every other unit's the
//! same; only the groups' data registers may differ, and the ports' scrubs, which the sparse
//! block makes when something reads a port, are compared caught up (`Top::settle`) on a copy.
//! Seeded (`CAPFC_SEED`, printed).

use capfc::block::{BlockParams, Mode};
use capfc::stimulus::random_config;
use capfc::v3::top::{Top, TopIn, TopOut};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;

fn seed() -> u64 {
    let s = std::env::var("CAPFC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_129);
    eprintln!("v3_sparse: seed {s} (CAPFC_SEED)");
    s
}

/// What the runs showed: cycles compared, cycles in which the sparse ingress's and egress's
/// groups held other data registers than the full one's (the groups it did not clock), accepts
/// of arrivals and of enqueues, cycles with a counter's increment at its write (H), changes
/// of I, cycles with a port's scrub left behind (`Port::lag`), by two rounds or more, and the
/// egress's edges with nothing but its slots, scrubs and refresh moving (`Egress::quiet_edge`),
/// and the idle engines' edges left out (their registers settled).
#[derive(Default, Debug)]
struct Seen {
    cycles: u64,
    stale: u64,
    stale_egress: u64,
    enq_accepts: u64,
    increments: u64,
    accepts: u64,
    i_changes: u64,
    lagging: u64,
    lag_rounds: u64,
    quiet_edges: u64,
    still_engine_edges: u64,
    /// the egress's quiet edges made from the last one's, every port left behind
    /// (`Egress::still_edge`), and the sort's edges that left every engine out at once
    still_egress_edges: u64,
    all_still_sort_edges: u64,
}

/// One run of `cycles` cycles of one parameter set: a reset, a random configuration, then bursts
/// of traffic and idle stretches, a reset or a configuration write now and then.
///
/// (Long: one random walk whose every step is the same three lines, model, sparse model and
/// the comparison, with the counts of the shortcuts each step took; split, its state would go
/// through a struct for no reader's gain.)
fn run(p: &BlockParams, rng: &mut ChaCha8Rng, cycles: u64, replay: &str, seen: &mut Seen) {
    let (mut full, mut sparse) = (Top::new(*p), Top::new(*p));
    let quiet_before = seen.quiet_edges;
    let still_before = seen.still_engine_edges;
    let (still_eg_before, all_still_before) = (seen.still_egress_edges, seen.all_still_sort_edges);
    sparse.set_sparse(true);
    let (mut fo, mut so) = (TopOut::default(), TopOut::default());
    let mut inp = TopIn::idle(p.np);
    let mode = [Mode::PfcOnly, Mode::StopMax, Mode::StopCal][rng.gen_range(0..3)];
    let cfg = random_config(p, mode, rng);
    // (a counted priority: the lowest lossless one is counted whatever NL)
    let counted = cfg.lossless.trailing_zeros() as u8;
    let writes = cfg.register_writes();
    let mut script: Vec<(u8, u32)> = vec![];
    let (mut left, mut valid, mut hold, mut port) = (0u64, 0.0, false, 0u64);
    for c in 0..cycles {
        inp.rst = c == 0 || rng.gen_ratio(1, 5000);
        if inp.rst {
            script = writes.clone();
            script.reverse();
        }
        if left == 0 {
            // a burst (lanes valid with probability up to 0.5) or an idle stretch
            left = rng.gen_range(1..400);
            // (a third of the bursts without departures and dequeues: the occupancies climb
            // past the warning thresholds, and the counters count)
            hold = rng.gen_ratio(1, 3);
            port = rng.gen_range(0..p.np as u64);
            valid = if rng.gen_bool(0.5) {
                rng.gen_range(0.0..0.5)
            } else {
                0.0
            };
        }
        left -= 1;
        common::v3_random_in(p.np, rng, valid, 0.8, &mut inp);
        if hold {
            // (and every enqueue into one counted queue, so that it passes its warning
            // threshold within the burst)
            inp.dep_valid = false;
            inp.deq_valid.fill(false);
            (inp.enq_valid, inp.enq_oport, inp.enq_prio) = (true, port, counted);
            inp.enq_size = rng.gen_range(1000..3000);
        }
        (inp.cfg_we, inp.cfg_addr, inp.cfg_wdata) = match script.pop() {
            Some((a, d)) if !inp.rst => (true, a, d),
            _ if rng.gen_ratio(1, 3000) => (true, writes[0].0, writes[0].1),
            _ => (false, 0, 0),
        };
        let i_before = full.u_ingress.xoff_q.clone();
        full.cycle_into(&inp, &mut fo);
        sparse.cycle_into(&inp, &mut so);
        assert_eq!(
            fo, so,
            "np {} cycle {c}: the outputs differ ({replay})",
            p.np
        );
        let (f, s) = (&full.u_ingress, &sparse.u_ingress);
        assert_eq!(
            f.xoff_q, s.xoff_q,
            "np {} cycle {c}: I differs ({replay})",
            p.np
        );
        for (g, (fg, sg)) in f.grp.iter().zip(&s.grp).enumerate() {
            assert_eq!(
                fg.occ, sg.occ,
                "np {} cycle {c}: group {g}'s occupancy RAMs ({replay})",
                p.np
            );
            assert_eq!(
                (fg.gs_q, fg.rc_q, fg.rdy_q, fg.scr_q),
                (sg.gs_q, sg.rc_q, sg.rdy_q, sg.scr_q),
                "np {} cycle {c}: group {g}'s slot ({replay})",
                p.np
            );
        }
        assert_eq!(
            f.u_thr, s.u_thr,
            "np {} cycle {c}: the thresholds' copies ({replay})",
            p.np
        );
        let (fe, se) = (&full.u_egress, &sparse.u_egress);
        // (the ports as the sparse block keeps them: scrubs left behind, `Port::lag`, caught up
        // on a copy, so that the run goes on with them behind)
        let lag = se.port.iter().map(|n| n.lag).max().unwrap_or(0);
        seen.lagging += u64::from(lag > 0);
        seen.lag_rounds += u64::from(lag >= 16);
        let mut settled = se.clone();
        settled.settle();
        for (g, (fg, sg)) in fe.grp.iter().zip(&se.grp).enumerate() {
            assert_eq!(
                (fg.occ, fg.gs_q, fg.rc_q, fg.rdy_q, fg.scr_q, fg.cin_q),
                (sg.occ, sg.gs_q, sg.rc_q, sg.rdy_q, sg.scr_q, sg.cin_q),
                "np {} cycle {c}: egress group {g}'s occupancy RAMs or slot ({replay})",
                p.np
            );
        }
        assert!(
            fe.port == settled.port
                && (&fe.gen_q, &fe.e_q, &fe.epart_q) == (&se.gen_q, &se.e_q, &se.epart_q)
                && (&fe.rclr4_q, &fe.eclr4_q, &fe.rclr5_q) == (&se.rclr4_q, &se.eclr4_q, &se.rclr5_q)
                && (&fe.rtrig4_q, &fe.rtrig5_q, &fe.rtrig6_q)
                    == (&se.rtrig4_q, &se.rtrig5_q, &se.rtrig6_q)
                && (fe.cntr_q, fe.lidr_q) == (se.cntr_q, se.lidr_q)
                && fe.u_thr == se.u_thr,
            "np {} cycle {c}: the egress's ports, E, generations, row events or copies differ ({replay})",
            p.np
        );
        assert!(
            full.u_sort == sparse.u_sort
                && full.u_cfg == sparse.u_cfg
                && (&full.d_q, &full.sent_q, &full.timer_q)
                    == (&sparse.d_q, &sparse.sent_q, &sparse.timer_q),
            "np {} cycle {c}: a unit clocked in full differs ({replay})",
            p.np
        );
        seen.cycles += 1;
        seen.quiet_edges = sparse.u_egress.quiet_edges.0 + quiet_before;
        seen.still_engine_edges = sparse.u_sort.still_edges.0 + still_before;
        seen.still_egress_edges = sparse.u_egress.still_edges.0 + still_eg_before;
        seen.all_still_sort_edges = sparse.u_sort.all_still_edges.0 + all_still_before;
        seen.stale += u64::from(f.grp != s.grp);
        seen.stale_egress += u64::from(fe.grp != se.grp);
        seen.enq_accepts += u64::from(fo.enq_accept);
        seen.increments += u64::from(full.u_egress.port.iter().any(|n| n.h_v_q));
        seen.accepts += fo.arr_accept.iter().filter(|&&a| a).count() as u64;
        seen.i_changes += u64::from(full.u_ingress.xoff_q != i_before);
    }
}

#[test]
fn the_sparse_block_gives_what_clocking_every_group_gives() {
    let seed = seed();
    let replay = format!("replay: CAPFC_SEED={seed} cargo test --release --test v3_sparse");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = Seen::default();
    // (every v3 parameter set: the model needs no Verilated build)
    for (_, v) in capfc::v3::rtl_configs::V3_RTL_CONFIGS {
        let p = BlockParams::from_values(v);
        run(&p, &mut rng, 20_000, &replay, &mut seen);
    }
    eprintln!("v3_sparse: {seen:?}");
    // the runs showed what they are about: groups left unclocked in both units (their data
    // registers stale), arrivals and enqueues accepted, counters incremented, I set and cleared
    assert!(
        seen.stale * 4 > seen.cycles && seen.stale_egress * 4 > seen.cycles,
        "{seen:?}"
    );
    assert!(
        seen.lagging * 2 > seen.cycles
            && seen.lag_rounds * 4 > seen.cycles
            && seen.quiet_edges * 4 > seen.cycles
            && seen.still_engine_edges > seen.cycles
            && seen.still_egress_edges * 10 > seen.cycles
            && seen.all_still_sort_edges * 10 > seen.cycles,
        "{seen:?}"
    );
    assert!(
        seen.accepts > 1000
            && seen.enq_accepts > 100
            && seen.increments > 100
            && seen.i_changes > 100,
        "{seen:?}"
    );
}
