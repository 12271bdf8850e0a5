//! The v3 block's model and its Verilated RTL in one process (crates/rtl/src/cosim_v3.rs), at 4 ports (the
//! parameter set built by default, crates/block/src/v3/rtl_configs.rs). The block testbench's legal traffic is
//! `make v3-check` (`v3_lockstep top-rtl`); here the inputs are random bits, contract or not (any
//! configuration written at any time, lanes valid whatever the readies, departures and dequeues
//! of bytes that never arrived), which the model must follow register for register as well.

#![cfg(feature = "rtl")]

use capfc::block::BlockParams;
use capfc::cosim_v3::{lockstep, LockstepV3};
use capfc::dut_v3::RtlTopV3;
use capfc::v3::rtl_configs::V3_RTL_CONFIGS;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn np4() -> BlockParams {
    let (_, v) = V3_RTL_CONFIGS.iter().find(|(n, _)| *n == "v3_np4").unwrap();
    BlockParams::from_values(v)
}

/// `cycles` cycles of random inputs: reset in the first two, a configuration write in one cycle
/// of `cfg_every`, every other input bit random (a valid with probability `valid` per lane).
///
/// `coarse`: sizes multiples of 64 or one more (up to 961 bytes), configuration words multiples
/// of 64 (up to 4,032) or, one in three, 8 bits (the mode and the lossless mask), so that an occupancy meets a threshold, or passes it by one, often enough
/// for the comparators' equality cases to happen.
fn random_stim(
    rtl: &RtlTopV3,
    seed: u64,
    cycles: usize,
    cfg_every: u32,
    valid: f64,
    coarse: bool,
) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let wpc = rtl.layout.input_words;
    let mut words = vec![0u32; wpc * cycles];
    for c in 0..cycles {
        let w = &mut words[c * wpc..(c + 1) * wpc];
        // (coarse: a configuration word is a small field's, the mode or the lossless mask, in
        // one cycle of three)
        let small = rng.gen_ratio(1, 3);
        for v in &rtl.layout.inputs {
            let bits: String = (0..v.width)
                .map(|b| {
                    let one = match v.name.as_str() {
                        "rst" => c < 2,
                        "cfg_we" => rng.gen_ratio(1, cfg_every),
                        // the lanes' valids
                        n if n.ends_with("_valid") => rng.gen_bool(valid),
                        n if coarse && n.ends_with("_size") => {
                            ((6..10).contains(&(b % 14)) || b % 14 == 0) && rng.gen_bool(0.5)
                        }
                        "cfg_wdata" if coarse && small => b < 8 && rng.gen_bool(0.5),
                        "cfg_wdata" if coarse => (6..12).contains(&b) && rng.gen_bool(0.5),
                        // sizes: below 2^11 mostly, so that thresholds are crossed both ways
                        n if n.ends_with("_size") => (b % 14) < 11 && rng.gen_bool(0.5),
                        _ => rng.gen_bool(0.5),
                    };
                    if one {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect::<String>()
                .chars()
                .rev()
                .collect();
            v.set_bits(w, &bits).unwrap();
        }
    }
    words
}

#[test]
fn random_inputs_agree_register_for_register() {
    let p = np4();
    let rtl = RtlTopV3::new(&p).expect("the v3_np4 RTL is built by default");
    for (seed, cfg_every, valid) in [(1u64, 20, 0.5), (2, 200, 0.2), (3, 1000, 0.8)] {
        println!("v3_inprocess: seed {seed}, a configuration write in 1 of {cfg_every} cycles, valid {valid}");
        let stim = random_stim(&rtl, seed, 3000, cfg_every, valid, false);
        let r = lockstep(&p, &stim, 5).unwrap();
        assert_eq!(r.cycles, 3000);
        assert!(r.names > 500, "{} names compared", r.names);
        assert!(
            r.total_mismatches == 0,
            "seed {seed}: {} mismatches, first {:?} (replay: cargo test --test v3_inprocess)",
            r.total_mismatches,
            r.mismatches
        );
    }
}

#[test]
fn a_register_that_differs_is_reported_in_the_next_cycle() {
    let p = np4();
    let rtl = RtlTopV3::new(&p).unwrap();
    let stim = random_stim(&rtl, 7, 400, 50, 0.5, false);
    let wpc = rtl.layout.input_words;
    drop(rtl);
    let mut l = LockstepV3::new(&p, 10).unwrap();
    // (the RAM words poked below change without a write, which no RAM does: only the
    // every-word comparison sees them at once; the comparison through the writes is tested below)
    l.exhaustive = true;
    for c in stim.chunks(wpc).take(300) {
        l.cycle(c).unwrap();
    }
    assert_eq!(l.report.total_mismatches, 0);
    // one bit in each way the registers are compared: a vector of per-port fields (the PFC
    // generator's last frame's classes of port 2), a register (E's row 1), a RAM word (port 3's
    // counter word 5) and a word of a sort engine's snap RAM; and D of port 1, a register whose
    // value is an output in the same cycle (`d_state`, `pfc_xoff`: the outputs' comparison)
    l.model.sent_q[2] ^= 0x10;
    l.model.d_q[1] ^= 0x2;
    l.model.u_egress.e_q[1] ^= 0x4;
    l.model.u_egress.port[3].mem[5] ^= 0x100;
    l.model.u_sort.eng[1].snap[2] ^= 0x1;
    l.cycle(&stim[300 * wpc..301 * wpc]).unwrap();
    let names: Vec<&str> = l.report.mismatches.iter().map(|m| m.1.as_str()).collect();
    assert!(
        l.report.mismatches.iter().all(|m| m.0 == 300),
        "{:?}",
        l.report.mismatches
    );
    for n in [
        "u_pfc.sent_q",
        "u_egress.e_q[1]",
        "u_egress.gen_port[3].u_cnt.mem[5]",
        "u_sort.gen_engine[1].u_snap.mem[2]",
        "d_q",
        "d_state",
        "pfc_xoff",
    ] {
        assert!(names.contains(&n), "{n} not reported: {names:?}");
    }
}

/// A model register holding bits above the RTL's width (which packing the model's state into the
/// RTL's words would drop) is reported in the next cycle, by the comparison through the writes as
/// by the exhaustive one: an engine's pending requests with a row it does not have (a field packed
/// with the other engines' into one register), and an E row naming a port the block does not have
/// (a register packed from one value).
#[test]
fn a_model_register_wider_than_the_rtls_is_reported() {
    let p = np4();
    let rtl = RtlTopV3::new(&p).unwrap();
    let stim = random_stim(&rtl, 11, 400, 50, 0.5, false);
    let wpc = rtl.layout.input_words;
    drop(rtl);
    type Poke = fn(&mut capfc::v3::top::Top);
    let pokes: [(&str, Poke); 2] = [
        // (NL = 2 at v3_np4: an engine has 2 * 2 rows, pend_q 4 bits)
        ("u_sort.pend_q", |m| m.u_sort.eng[1].pend_q |= 1 << 9),
        // (4 ports: e_q[r] has 4 bits)
        ("u_egress.e_q[0]", |m| m.u_egress.e_q[0] |= 1 << 9),
    ];
    for (name, poke) in pokes {
        for exhaustive in [false, true] {
            let mut l = LockstepV3::new(&p, 10).unwrap();
            l.exhaustive = exhaustive;
            for c in stim.chunks(wpc).take(300) {
                l.cycle(c).unwrap();
            }
            assert_eq!(l.report.total_mismatches, 0);
            poke(&mut l.model);
            l.cycle(&stim[300 * wpc..301 * wpc]).unwrap();
            let m = &l.report.mismatches;
            assert!(
                m.iter()
                    .any(|m| m.0 == 300 && m.1.starts_with(name) && m.1.contains("wider")),
                "{name}, exhaustive {exhaustive}: {m:?}"
            );
        }
    }
}

/// A register the RTL alone changes (poked into the Verilated block's state, the model left as it
/// is) is reported in the cycle that follows, by the default comparison as by the exhaustive one,
/// with the same names and values: which registers are compared is not decided by what the model
/// changed.
#[test]
fn a_register_the_rtl_alone_changes_is_reported_in_the_next_cycle() {
    let p = np4();
    let rtl = RtlTopV3::new(&p).unwrap();
    let stim = random_stim(&rtl, 8, 400, 50, 0.5, false);
    let wpc = rtl.layout.input_words;
    drop(rtl);
    let run = |exhaustive: bool| {
        let mut l = LockstepV3::new(&p, 10).unwrap();
        l.exhaustive = exhaustive;
        for c in stim.chunks(wpc).take(300) {
            l.cycle(c).unwrap();
        }
        assert_eq!(l.report.total_mismatches, 0);
        let mut st = vec![0u32; l.rtl.layout.state_words];
        l.rtl.read_state(&mut st);
        // (a register the model holds still while idle: the PFC timer of port 3; a bit of E)
        for (name, k, bit) in [("u_pfc.timer_q", 3, 9), ("u_egress.e_q", 1, 2)] {
            let v = l
                .rtl
                .layout
                .state
                .iter()
                .find(|v| v.name == name)
                .unwrap_or_else(|| panic!("no RTL register {name}"));
            let mut bits: Vec<u8> = v.bits(&st, k).into_bytes();
            let at = bits.len() - 1 - bit;
            bits[at] ^= 1;
            v.set_value(&mut st, k, std::str::from_utf8(&bits).unwrap())
                .unwrap();
        }
        l.rtl.write_state(&st);
        l.cycle(&stim[300 * wpc..301 * wpc]).unwrap();
        l.report
    };
    let (every, fast) = (run(true), run(false));
    let names: Vec<&str> = fast.mismatches.iter().map(|m| m.1.as_str()).collect();
    for n in ["u_pfc.timer_q[3]", "u_egress.e_q[1]"] {
        assert!(names.contains(&n), "{n} not reported: {names:?}");
    }
    assert!(fast.mismatches.iter().all(|m| m.0 == 300), "{fast:?}");
    assert_eq!(
        (&fast.mismatches, fast.total_mismatches),
        (&every.mismatches, every.total_mismatches)
    );
}

#[test]
fn a_configuration_that_is_not_built_is_refused_with_the_built_ones() {
    let mut p = np4();
    p.np = 5;
    let e = RtlTopV3::new(&p).err().expect("no v3 RTL at 5 ports");
    assert!(e.to_string().contains("v3_np4"), "{e}");
}

/// Comparing the RAMs' writes instead of their words (the default) reports exactly what
/// comparing every word every cycle reports: the same mismatches, cycles and values, for a
/// register poked in the model (a counter RAM's write data and address, a snap RAM's, an
/// ingress occupancy's, a thresholds' copy's) and for a bug in the model's RAM writes alone
/// (`fault_ram_write` of the egress and the ingress: the registers stay right, only the words
/// differ), which the comparison must then report as RAM words. On random inputs without either
/// the writes always agree, so only the first cycle compares the words. The lockstep with the
/// model's half of each cycle on a second thread (`set_threads(2)`) reports the same. (Random inputs start no
/// sort, so the sort engines' `fault_ram_write` is tried behind the switch: crates/cli/tests/switch_v3.rs.)
#[test]
fn comparing_ram_writes_reports_what_comparing_every_word_reports() {
    let p = np4();
    let rtl = RtlTopV3::new(&p).unwrap();
    let wpc = rtl.layout.input_words;
    type Poke = fn(&mut capfc::v3::top::Top);
    let pokes: [(&str, Poke); 8] = [
        ("none", |_| {}),
        ("egress counter RAM data", |m| {
            m.u_egress.port[1].wd_q ^= 0x40
        }),
        ("egress counter RAM address", |m| {
            m.u_egress.port[2].wa_q ^= 1
        }),
        ("snap RAM data", |m| m.u_sort.eng[0].y_q ^= 0x8),
        ("ingress occupancy data", |m| {
            m.u_ingress.grp[0].new4_q ^= 0x10
        }),
        ("thresholds' copy data", |m| {
            m.u_egress.u_thr.cha_q[0] ^= 0x2
        }),
        ("fault: egress RAM writes", |m| {
            m.u_egress.fault_ram_write = true
        }),
        ("fault: ingress RAM writes", |m| {
            m.u_ingress.fault_ram_write = true
        }),
    ];
    for seed in [11u64, 12] {
        let stim = random_stim(&rtl, seed, 1200, 40, 0.6, false);
        for (what, poke) in pokes {
            let run = |exhaustive: bool, threads: usize| {
                let mut l = LockstepV3::new(&p, 20).unwrap();
                l.exhaustive = exhaustive;
                l.set_threads(threads);
                // (a register at cycle 500; a fault from the start, where the scrub after the
                // reset writes every counter and occupancy word)
                let at = if what.starts_with("fault") { 0 } else { 500 };
                for (c, w) in stim.chunks(wpc).enumerate() {
                    if c == at {
                        poke(&mut l.model);
                    }
                    l.cycle(w).unwrap();
                }
                (l.report, l.full_cycles)
            };
            let ((every, _), (writes, full)) = (run(true, 1), run(false, 1));
            assert_eq!(
                (&writes.mismatches, writes.total_mismatches),
                (&every.mismatches, every.total_mismatches),
                "seed {seed}, {what}: the two comparisons differ (replay: cargo test --test v3_inprocess)"
            );
            // the model's half on a second thread: the same report, the same RAM comparisons
            let (two, full2) = run(false, 2);
            assert_eq!(
                (&two.mismatches, two.total_mismatches, full2),
                (&writes.mismatches, writes.total_mismatches, full),
                "seed {seed}, {what}: the lockstep on two threads reports otherwise (replay: cargo test --test v3_inprocess)"
            );
            if what == "none" {
                assert_eq!(every.total_mismatches, 0);
                assert_eq!(full, 1, "seed {seed}: RAM words compared in {full} cycles");
            } else {
                assert!(
                    every.total_mismatches > 0,
                    "seed {seed}, {what}: nothing differed"
                );
            }
            if what.starts_with("fault") {
                let first = &every.mismatches[0];
                assert!(
                    first.1.contains(".mem["),
                    "seed {seed}, {what}: the first difference is {first:?}, not a RAM word"
                );
            }
        }
    }
}

/// The faults of the ingress's and the egress's comparators that random inputs meet (each with
/// its equality case moved; `ing_max_loose` and `xoff_e_ge` are left to the golden sets: 64 seeds
/// of these inputs never meet their cases) are caught by the lockstep with the unchanged RTL, in
/// the stage register the comparator writes, and the clean model on the same inputs stays silent
/// (the first test). `capfc run --dut both --fault NAME` uses the same injection; `capfc faults`
/// runs the whole catalogue.
#[test]
fn every_v3_model_fault_is_caught_by_the_lockstep() {
    use capfc::v3::fault::Fault;
    const COMPARATORS: [Fault; 7] = [
        Fault::IngMaxStrict,
        Fault::IngXoffGe,
        Fault::IngXonLt,
        Fault::EgMaxStrict,
        Fault::WarnOffByOne,
        Fault::ClearBelowWarn,
        Fault::XonOffByOne,
    ];
    let p = np4();
    let rtl = RtlTopV3::new(&p).unwrap();
    let wpc = rtl.layout.input_words;
    let stims: Vec<Vec<u32>> = (1..=64u64)
        .map(|seed| {
            (
                seed,
                [20, 200, 1000][seed as usize % 3],
                [0.5, 0.2, 0.8][seed as usize % 3],
            )
        })
        .collect::<Vec<_>>()
        .iter()
        .map(|&(seed, cfg_every, valid)| random_stim(&rtl, seed, 3000, cfg_every, valid, true))
        .collect();
    drop(rtl);
    for f in COMPARATORS {
        let unit = f.unit();
        let mut caught = None;
        for (k, stim) in stims.iter().enumerate() {
            let mut l = LockstepV3::new(&p, 4).unwrap();
            l.model.set_fault(Some(f));
            for c in stim.chunks(wpc) {
                l.cycle(c).unwrap();
                if l.report.total_mismatches > 0 {
                    break;
                }
            }
            if let Some(m) = l.report.mismatches.first() {
                caught = Some((k + 1, m.0, m.1.clone()));
                break;
            }
        }
        let (seed, cycle, name) = caught.unwrap_or_else(|| {
            panic!(
                "fault {} not caught in 64 x 3000 random cycles (replay: cargo test --release --test v3_inprocess every_v3_model_fault)",
                f.name()
            )
        });
        println!(
            "v3 fault {}: caught at seed {seed} cycle {cycle} on {name}",
            f.name()
        );
        assert!(
            name.starts_with(unit),
            "fault {} first seen on {name}, not in {unit}",
            f.name()
        );
    }
}

/// A panic in the model's half of a cycle run on the helper thread (here: inputs with one port's
/// `pfc_ready` missing, which the model slices out of range) reaches the caller as that panic,
/// neither hanging nor lost, and the lockstep is then dropped without waiting on its thread.
#[test]
fn a_panic_in_the_model_on_the_helper_thread_reaches_the_caller() {
    let p = np4();
    let mut l = LockstepV3::new(&p, 4).unwrap();
    l.set_threads(2);
    let words = vec![0u32; l.rtl.layout.input_words];
    let mut inp = capfc::v3::top::TopIn::idle(p.np);
    l.cycle_in(&inp, &words).unwrap();
    inp.pfc_ready.pop();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| l.cycle_in(&inp, &words)));
    let e = r.expect_err("the model's panic, passed on");
    let msg = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("out of range"), "{msg}");
    drop(l);
}

/// On two threads, a snapshot of the model restored into both sides goes on exactly as before:
/// the cycles after it agree again, and report what one thread reports.
#[test]
fn a_restored_lockstep_on_two_threads_goes_on_as_on_one() {
    let p = np4();
    let rtl = RtlTopV3::new(&p).unwrap();
    let stim = random_stim(&rtl, 5, 600, 50, 0.5, false);
    let wpc = rtl.layout.input_words;
    drop(rtl);
    let run = |threads: usize| {
        let mut l = LockstepV3::new(&p, 10).unwrap();
        l.set_threads(threads);
        let mut snap = None;
        for (c, w) in stim.chunks(wpc).enumerate() {
            if c == 300 {
                snap = Some((*l.model).clone());
            }
            l.cycle(w).unwrap();
        }
        l.restore(snap.as_ref().unwrap(), 300).unwrap();
        for w in stim.chunks(wpc).skip(300) {
            l.cycle(w).unwrap();
        }
        let out = l.model_out().clone();
        (l.report, out)
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.0.total_mismatches, 0, "{:?}", one.0.mismatches);
    assert_eq!(one.0.cycles, 600);
    assert_eq!(
        (&two.0.mismatches, two.0.total_mismatches, two.0.cycles),
        (&one.0.mismatches, one.0.total_mismatches, one.0.cycles)
    );
    assert_eq!(two.1, one.1);
}
