//! The cycle model decides as the untimed reference when events are spaced further apart than the
//! block's latency (docs/microarchitecture-v2.md, "Equivalence with the reference").
//!
//! Each case: random parameters (ports, mode, CUT, cell size) and a random sequence of legal events
//! (departures and dequeues only remove packets that are there). Each event is driven in one cycle,
//! followed by `(CW + 3)(NP + 1) + 10` idle cycles (longer than a Stop-Calibrate sort); then I, E, D, C and the occupancies of the model must equal the
//! reference's, and every port whose D changed must have requested exactly one PFC frame whose
//! class-enable vector covers the change and whose quanta say pause/resume accordingly.

use capfc::block::{
    BlockConfig, BlockParams, CapfcTop, Departure, Enqueue, Inputs, Mode, Outputs, Pkt,
    PrioThresholds, NPRIO,
};
use capfc::reference::{Event, Reference};
use proptest::prelude::*;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
struct Case {
    np: usize,
    mode: Mode,
    cut_fixed: u32,
    cell_log2: u32,
    lossless: u8,
    nl: usize,
    choices: Vec<(u8, u8, u8, u8, u16)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![Just(4usize), Just(5), Just(8)],
        prop_oneof![
            Just(Mode::PfcOnly),
            Just(Mode::StopMax),
            Just(Mode::StopCal)
        ],
        prop_oneof![Just(1u32), Just(256), 1u32..=256],
        prop_oneof![Just(0u32), Just(0), Just(2)],
        1u8..=255,
        prop_oneof![Just(1usize), Just(2), Just(3), Just(8)],
        prop::collection::vec(
            (
                any::<u8>(),
                any::<u8>(),
                any::<u8>(),
                any::<u8>(),
                1u16..=700,
            ),
            1..250,
        ),
    )
        .prop_map(|(np, mode, cut_fixed, cell_log2, lossless, nl, choices)| {
            // At most NL lossless priorities: keep the lowest NL of the drawn ones.
            let mut ll = 0u8;
            for b in 0..8 {
                if lossless >> b & 1 == 1 && (ll.count_ones() as usize) < nl {
                    ll |= 1 << b;
                }
            }
            Case {
                np,
                mode,
                cut_fixed,
                cell_log2,
                lossless: ll,
                nl,
                choices,
            }
        })
}

fn thresholds() -> PrioThresholds {
    // Small buffers so that a few packets cross every threshold; WARN strictly between XON and XOFF
    // on some priorities, equal to XON (the paper's choice) on others (set per priority below).
    PrioThresholds {
        ing_max: 3000,
        ing_xoff: 2000,
        ing_xon: 1200,
        eg_max: 3000,
        eg_xoff: 1600,
        eg_xon: 800,
        eg_warn: 1000,
    }
}

/// One case: v2's block and the untimed reference set up alike, then driven by the same steps and
/// compared after each. (Long: the set-up, then one loop over the steps with its checks.)
fn run(c: &Case) -> Result<(), TestCaseError> {
    let p = BlockParams {
        np: c.np,
        cell_log2: c.cell_log2,
        nl: c.nl,
        ..BlockParams::default()
    };
    let mut cfg = BlockConfig::paper(&p, c.mode);
    for (k, t) in cfg.prio.iter_mut().enumerate() {
        *t = thresholds();
        if k % 2 == 1 {
            t.eg_warn = t.eg_xon;
        }
        if c.cell_log2 > 0 {
            for v in [
                &mut t.ing_max,
                &mut t.ing_xoff,
                &mut t.ing_xon,
                &mut t.eg_max,
                &mut t.eg_xoff,
                &mut t.eg_xon,
                &mut t.eg_warn,
            ] {
                *v >>= c.cell_log2;
            }
        }
    }
    cfg.lossless = c.lossless;
    cfg.cut_fixed = c.cut_fixed;
    cfg.refresh = u16::MAX;
    cfg.quanta = 0x1234;
    cfg.validate(&p)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;

    let mut m = CapfcTop::new(p).unwrap();
    let mut r = Reference::new(&p, &cfg);
    let mut out = Outputs::new(p.np);
    let mut inp = Inputs::idle(p.np);
    for (a, d) in cfg.register_writes() {
        inp.clear();
        inp.cfg = Some((a, d));
        m.tick_cycle(&inp, &mut out);
    }
    inp.clear();
    m.tick_cycle(&inp, &mut out);

    // Packets present, per queue, so that departures and dequeues are legal.
    let nq = p.nq();
    let mut ing: Vec<VecDeque<u16>> = vec![VecDeque::new(); nq];
    let mut eg: Vec<VecDeque<u16>> = vec![VecDeque::new(); nq];
    let gap = (p.cw as usize + 3) * (p.np + 1) + 10;
    let mut d_before: Vec<u8> = vec![0; p.np];

    for (step, &(kind, a, b, x, size)) in c.choices.iter().enumerate() {
        let port = usize::from(a) % p.np;
        // Concentrate traffic on two priorities so thresholds are crossed.
        let prio = [3usize, 5, usize::from(b) % NPRIO, 3][usize::from(b) % 4];
        let other = usize::from(x) % p.np;
        let q = port * NPRIO + prio;
        inp.clear();
        let ev = match kind % 8 {
            0 | 1 => {
                inp.arr[port] = Some(Pkt {
                    prio: prio as u8,
                    size,
                });
                Event::Arrive { port, prio, size }
            }
            2 => match ing[q].front() {
                Some(&s) => {
                    inp.dep = Some(Departure {
                        port: port as u8,
                        prio: prio as u8,
                        size: s,
                    });
                    Event::Depart {
                        port,
                        prio,
                        size: s,
                    }
                }
                None => continue,
            },
            3..=5 => {
                // Hot spot: most enqueues go to output 0 from several inputs.
                let oport = if kind % 8 == 5 { port } else { 0 };
                inp.enq = Some(Enqueue {
                    oport: oport as u8,
                    prio: prio as u8,
                    iport: other as u8,
                    size,
                });
                Event::Enqueue {
                    oport,
                    prio,
                    iport: other,
                    size,
                }
            }
            _ => {
                let oport = if kind % 8 == 6 { 0 } else { port };
                let qq = oport * NPRIO + prio;
                match eg[qq].front() {
                    Some(&s) => {
                        inp.deq[oport] = Some(Pkt {
                            prio: prio as u8,
                            size: s,
                        });
                        Event::Dequeue {
                            oport,
                            prio,
                            size: s,
                        }
                    }
                    None => continue,
                }
            }
        };
        m.tick_cycle(&inp, &mut out);
        let accepted_model = match ev {
            Event::Arrive { port, .. } => out.arr_accept >> port & 1 == 1,
            Event::Enqueue { .. } => out.enq_accept,
            _ => true,
        };
        let accepted_ref = r.apply(ev);
        prop_assert_eq!(
            accepted_model,
            accepted_ref,
            "step {} {:?}: accept",
            step,
            ev
        );
        match ev {
            Event::Arrive { port, prio, size } if accepted_ref => {
                ing[port * NPRIO + prio].push_back(size)
            }
            Event::Depart { port, prio, .. } => {
                ing[port * NPRIO + prio].pop_front();
            }
            Event::Enqueue {
                oport, prio, size, ..
            } if accepted_ref => eg[oport * NPRIO + prio].push_back(size),
            Event::Dequeue { oport, prio, .. } => {
                eg[oport * NPRIO + prio].pop_front();
            }
            _ => {}
        }
        // Let the block settle, collecting the frames it requests.
        let mut frames: Vec<Vec<(u8, Vec<u16>)>> = vec![vec![]; p.np];
        inp.clear();
        for _ in 0..gap {
            m.tick_cycle(&inp, &mut out);
            for (i, f) in frames.iter_mut().enumerate() {
                if out.pfc_valid >> i & 1 == 1 {
                    f.push((
                        out.pfc_cev[i],
                        (0..NPRIO).map(|pr| out.quanta(i, pr)).collect::<Vec<u16>>(),
                    ));
                }
            }
        }
        // Compare the decisions.
        for i in 0..p.np {
            for pr in 0..NPRIO {
                let qq = i * NPRIO + pr;
                prop_assert_eq!(
                    m.ingress.xoff_q[i] >> pr & 1 == 1,
                    r.i[qq],
                    "step {} {:?}: I[{}][{}]",
                    step,
                    ev,
                    i,
                    pr
                );
                prop_assert_eq!(
                    u64::from(m.ingress.occ(qq)),
                    r.b_in[qq],
                    "B_in[{}][{}]",
                    i,
                    pr
                );
                prop_assert_eq!(u64::from(m.egress.occ(qq)), r.b[qq], "B[{}][{}]", i, pr);
                prop_assert_eq!(
                    m.d_state()[i] >> pr & 1 == 1,
                    r.d(i, pr),
                    "step {} {:?}: D[{}][{}]",
                    step,
                    ev,
                    i,
                    pr
                );
                let l = m.cfg.counted(&p, pr);
                for j in 0..p.np {
                    prop_assert_eq!(
                        l.is_some_and(|l| m.egress.e_q[p.row(i, l)] >> j & 1 == 1),
                        r.e[qq * p.np + j],
                        "step {} {:?}: E[{}][{}][{}]",
                        step,
                        ev,
                        i,
                        pr,
                        j
                    );
                    prop_assert_eq!(
                        u64::from(l.map_or(0, |l| m.counter(i, l, j))),
                        r.c[qq * p.np + j],
                        "step {} {:?}: C[{}][{}][{}]",
                        step,
                        ev,
                        i,
                        pr,
                        j
                    );
                }
            }
            // One frame per change of D, saying exactly what changed.
            let d = m.d_state()[i];
            let before = d_before[i];
            if d != before {
                prop_assert_eq!(frames[i].len(), 1, "step {}: port {} frames", step, i);
                let (cev, quanta) = &frames[i][0];
                prop_assert_eq!(*cev, d | before, "step {}: port {} cev", step, i);
                for (pr, &q) in quanta.iter().enumerate() {
                    let want = if d >> pr & 1 == 1 { 0x1234 } else { 0 };
                    prop_assert_eq!(q, want, "port {} class {} quanta", i, pr);
                }
            } else {
                prop_assert!(
                    frames[i].is_empty(),
                    "step {}: port {} frame without a change",
                    step,
                    i
                );
            }
            d_before[i] = d;
        }
        prop_assert!(m.sort.busy_q == 0, "the sort engines settled");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn cycle_model_decides_as_the_reference(c in case()) {
        run(&c)?;
    }
}
