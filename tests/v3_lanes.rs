//! The environment's side of the v3 lanes (`crates/block/src/v3/lanes.rs`) against the v3 block's model: every
//! arrival and enqueue is answered once, in order, by the accept of its own take (a priority
//! whose MAX is 0 is refused, every other accepted), every departure and dequeue is taken, and
//! a lane waits for its slot no longer than the slot frame.

use capfc::block::BlockParams;
use capfc::v3::lanes::{Answer, Lane, Lanes, ACCEPT_LATENCY};
use capfc::v3::top::{Top, TopIn, TopOut};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `cycles` cycles of random lanes at `np` ports (seed `seed`): MAX of priority 5 is left 0 at
/// both sides, every other MAX is far above what the run can fill. (Long: one random run in
/// order: the set-up, the lanes' bookkeeping, the loop that checks every take and answer, the
/// drain.)
fn run(np: usize, seed: u64, cycles: u64) {
    let p = BlockParams::from_values(&[np as u32, 14, 20, 16, 0, 8, 2]);
    let mut top = Top::new(p);
    let mut out = TopOut::default();
    let mut inp = TopIn::idle(np);
    let mut t = 0u64;
    // reset, then the configuration (priority 5's MAX not written at either side)
    let mut cfg: Vec<(u8, u32)> = Vec::new();
    for q in 0..8u8 {
        if q != 5 {
            cfg.push((q, 1 << 19));
            cfg.push((0x18 + q, 1 << 19));
        }
        cfg.push((0x08 + q, 1 << 18));
        cfg.push((0x20 + q, 1 << 18));
    }
    for c in 0..3 + cfg.len() {
        inp.rst = c < 3;
        inp.cfg_we = c >= 3;
        if c >= 3 {
            (inp.cfg_addr, inp.cfg_wdata) = cfg[c - 3];
        }
        top.cycle_into(&inp, &mut out);
        t += 1;
    }
    inp.rst = false;
    inp.cfg_we = false;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lanes: Lanes<(u64, u64)> = Lanes::new(np);
    let mut answers = Vec::new();
    // per lane kind and port: the tags offered and answered, in order
    let mut next_tag = 0u64;
    let mut offered = std::collections::HashMap::<(u8, usize), Vec<u64>>::new();
    let mut answered = std::collections::HashMap::<(u8, usize), Vec<u64>>::new();
    let (mut acc, mut refused, mut taken, mut longest) = (0u64, 0u64, 0u64, 0u64);
    let mut offered_at = std::collections::HashMap::<u64, u64>::new();
    let key = |l: &Lane| match *l {
        Lane::Arrive { port, .. } => (0u8, port),
        Lane::Depart { .. } => (1, 0),
        Lane::Enqueue { .. } => (2, 0),
        Lane::Dequeue { oport, .. } => (3, oport),
    };
    // bytes the accepts have put in each queue and no removal offered has taken yet (removals
    // are trusted by the block: never more than a queue holds)
    let mut iocc = vec![0u32; np * 8];
    let mut eocc = vec![0u32; np * 8];
    for _ in 0..cycles {
        // new events now and then, while few wait
        if lanes.pending() < 4 * np {
            let prio = rng.gen_range(0..8usize);
            let size = 64 * rng.gen_range(1..24u32);
            let port = rng.gen_range(0..np);
            let q = port * 8 + prio;
            let lane = match rng.gen_range(0..4) {
                0 => Some(Lane::Arrive { port, prio, size }),
                1 if iocc[q] > 0 => {
                    let size = size.min(iocc[q]);
                    iocc[q] -= size;
                    Some(Lane::Depart { port, prio, size })
                }
                2 => Some(Lane::Enqueue {
                    oport: port,
                    prio,
                    iport: rng.gen_range(0..np),
                    size,
                }),
                3 if eocc[q] > 0 => {
                    let size = size.min(eocc[q]);
                    eocc[q] -= size;
                    Some(Lane::Dequeue {
                        oport: port,
                        prio,
                        size,
                    })
                }
                _ => None,
            };
            if let Some(lane) = lane {
                let tag = (next_tag, prio as u64);
                next_tag += 1;
                offered.entry(key(&lane)).or_default().push(tag.0);
                offered_at.insert(tag.0, t);
                lanes.offer(lane, tag).unwrap();
            }
        }
        lanes.drive(&mut inp);
        top.cycle_into(&inp, &mut out);
        answers.clear();
        lanes.settle(t, false, &out, &mut answers);
        for a in answers.drain(..) {
            match a {
                Answer::Accept {
                    lane,
                    tag,
                    accepted,
                } => {
                    assert_eq!(
                        accepted,
                        tag.1 != 5,
                        "cycle {t}: {lane:?} (tag {}) answered {accepted} (seed {seed}, np {np})",
                        tag.0
                    );
                    if accepted {
                        acc += 1;
                        match lane {
                            Lane::Arrive { port, prio, size } => iocc[port * 8 + prio] += size,
                            Lane::Enqueue {
                                oport, prio, size, ..
                            } => eocc[oport * 8 + prio] += size,
                            _ => unreachable!("only arrivals and enqueues are accepted"),
                        }
                    } else {
                        refused += 1;
                    }
                    answered.entry(key(&lane)).or_default().push(tag.0);
                    let waited = t - offered_at[&tag.0] - ACCEPT_LATENCY;
                    longest = longest.max(waited);
                }
                Answer::Taken { lane, tag } => {
                    taken += 1;
                    answered.entry(key(&lane)).or_default().push(tag.0);
                }
            }
        }
        t += 1;
    }
    // drain: no new events; everything offered is answered (a FIFO of at most 4 np events, each
    // waiting at most for its slot, then the accept's latency)
    for _ in 0..8 * (4 * np as u64 + 2) {
        lanes.drive(&mut inp);
        top.cycle_into(&inp, &mut out);
        lanes.settle(t, false, &out, &mut answers);
        t += 1;
    }
    for a in answers.drain(..) {
        let (lane, tag) = match a {
            Answer::Accept { lane, tag, .. } | Answer::Taken { lane, tag } => (lane, tag),
        };
        answered.entry(key(&lane)).or_default().push(tag.0);
    }
    assert_eq!(
        lanes.pending(),
        0,
        "events left unanswered (seed {seed}, np {np})"
    );
    assert_eq!(
        offered, answered,
        "each lane's events answered once, in order"
    );
    assert!(
        acc > 100 && refused > 10 && taken > 100,
        "acc {acc} refused {refused} taken {taken}"
    );
    // a lane whose port's slot just passed waits for the next: at most 7 cycles of the slot frame,
    // behind at most 4 np events of its own FIFO
    assert!(
        longest <= 8 * (4 * np as u64 + 1),
        "an arrival or enqueue waited {longest} cycles"
    );
}

#[test]
fn every_event_is_answered_once_in_order_by_its_own_accept() {
    for (np, seed) in [(4, 1), (4, 2), (12, 3)] {
        run(np, seed, 3_000);
    }
}

#[test]
fn a_port_outside_the_block_or_a_priority_above_7_is_refused() {
    let mut l: Lanes<()> = Lanes::new(4);
    assert!(l
        .offer(
            Lane::Arrive {
                port: 4,
                prio: 0,
                size: 64
            },
            ()
        )
        .is_err());
    assert!(l
        .offer(
            Lane::Enqueue {
                oport: 1,
                prio: 0,
                iport: 9,
                size: 64
            },
            ()
        )
        .is_err());
    assert!(l
        .offer(
            Lane::Depart {
                port: 0,
                prio: 8,
                size: 64
            },
            ()
        )
        .is_err());
    assert_eq!(l.pending(), 0);
}

#[test]
fn a_reset_drops_the_answers_not_yet_due_and_holds_the_lanes_not_yet_taken() {
    let np = 4;
    let p = BlockParams::from_values(&[np as u32, 14, 20, 16, 0, 8, 2]);
    let mut top = Top::new(p);
    let (mut inp, mut out) = (TopIn::idle(np), TopOut::default());
    let mut lanes: Lanes<usize> = Lanes::new(np);
    let mut answers = Vec::new();
    let mut t = 0u64;
    // one cycle: the lanes, the block, the takes and answers (`t` is the cycle just run after)
    macro_rules! step {
        () => {{
            lanes.drive(&mut inp);
            top.cycle_into(&inp, &mut out);
            lanes.settle(t, inp.rst, &out, &mut answers);
            t += 1;
        }};
    }
    let tags = |answers: &[Answer<usize>]| -> Vec<(usize, bool)> {
        answers
            .iter()
            .map(|a| match a {
                Answer::Accept { tag, accepted, .. } => (*tag, *accepted),
                Answer::Taken { .. } => unreachable!("only arrivals are offered"),
            })
            .collect()
    };
    // reset, every ingress MAX high, then until port 0's lane is ready
    inp.rst = true;
    step!();
    inp.rst = false;
    for q in 0..8u8 {
        (inp.cfg_we, inp.cfg_addr, inp.cfg_wdata) = (true, q, 1 << 19);
        step!();
    }
    inp.cfg_we = false;
    while !out.arr_ready[0] {
        step!();
    }
    // port 0's slot was in cycle t - 1, so the next ones are t + 7, t + 15, ...: four arrivals
    // on port 0, taken in s = t + 7, s + 8, s + 16, s + 24, due 4 cycles after each take
    for k in 0..4 {
        let a = Lane::Arrive {
            port: 0,
            prio: 1,
            size: 64,
        };
        lanes.offer(a, k).unwrap();
    }
    let s0 = t + 7;
    while t < s0 + 2 {
        step!();
    }
    // port 1's slot (s + 1) has passed: its arrival is taken in s + 9, due in s + 13
    lanes
        .offer(
            Lane::Arrive {
                port: 1,
                prio: 1,
                size: 64,
            },
            10,
        )
        .unwrap();
    while t < s0 + 12 {
        step!();
    }
    assert_eq!(
        tags(&answers),
        vec![(0, true)],
        "the first arrival answered in s + 4"
    );
    // the reset in s + 12: arrival 1 (taken in s + 8) is answered in that cycle; port 1's (taken
    // in s + 9, due in s + 13) is lost; arrivals 2 and 3 were not taken and wait
    inp.rst = true;
    step!();
    inp.rst = false;
    assert_eq!(tags(&answers), vec![(0, true), (1, true)]);
    answers.clear();
    for _ in 0..80 {
        step!();
    }
    // taken when the lanes are ready again, and refused: every MAX is 0 after the reset
    assert_eq!(tags(&answers), vec![(2, false), (3, false)]);
    assert_eq!(lanes.pending(), 0);
}
