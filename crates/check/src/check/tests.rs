use super::block::check_model;
use crate::block::Mode;
use crate::stimulus::RandomStim;

fn run(
    np_name: &str,
    mode: Mode,
    seed: u64,
    cycles: u64,
) -> (super::Summary, Vec<super::Violation>) {
    let p = crate::block::BlockParams::of_rtl_config(np_name).expect("a parameter set");
    let mut s = RandomStim::new(&p, mode, seed, cycles);
    // A lossless mask rewritten with traffic in flight is outside section 3 (the checker says so).
    s.profile.reconfig_rate = 0.0;
    let (s, v, _) = check_model(&p, &mut s, None, 5).expect("runs");
    (s, v)
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

/// A selection applied while D of its input was already up from I shows nothing; when I falls D
/// stays up from E, and when the queue falls to XON_e D may stay up for `e_clear` more. The
/// checker once forgot that E when the clear ended the open obligation and reported a stuck
/// pause (found by the v3 block's MAC episode, `make v3-check` at 4 ports, seed 1).
#[test]
fn an_e_hidden_by_i_is_held_until_its_clear_shows() {
    use super::Window;
    let (_, _, env) = small();
    let env = super::Envelope {
        stop_max: Window { min: 2, max: 20 },
        stop_cal: Window { min: 2, max: 20 },
        ..env
    };
    let lanes = |t| match t {
        1 => vec![arr(150), enq(90)],
        2 => vec![enq(20)],
        8 => vec![dep(150)],
        10 => vec![deq(110)],
        _ => vec![],
    };
    // D[0].p1 as the implementation shows it: from I (cycles 2..=8), then from E (applied in
    // cycle 5, unseen) until the XON_e dequeue of cycle 10 shows, in cycle 12 at the latest
    // (e_clear = 2): D up in cycles 2 to d_until - 1; the MACs busy (no frame rule applies)
    let run = |d_until: u64| {
        run_small(
            &env,
            30,
            lanes,
            |t| if (2..d_until).contains(&t) { 0b10 } else { 0 },
            |_| 0,
            |_| vec![],
        )
    };
    let v = run(13);
    assert!(v.is_empty(), "{}", shown(&v));
    // held one cycle longer than the clear allows: a stuck pause
    let v = run(14);
    assert!(v.iter().any(|v| v.kind == super::Kind::StuckPause), "{v:?}");
}

/// The thresholds, configuration, envelope and parameters of this file's synthetic cases: two
/// ports, priority 1 lossless, every threshold of both sides at 100 (XOFF), 50 (XON), 80 (WARN).
fn small() -> (super::Params, crate::block::BlockConfig, super::Envelope) {
    use super::{Envelope, Params, Window};
    use crate::block::{BlockConfig, PrioThresholds};
    let th = PrioThresholds {
        ing_max: 1000,
        ing_xoff: 100,
        ing_xon: 50,
        eg_max: 1000,
        eg_xoff: 100,
        eg_xon: 50,
        eg_warn: 80,
    };
    let cfg = BlockConfig {
        prio: [th; 8],
        lossless: 0b10,
        mode: Mode::StopMax,
        cut_fixed: 128,
        quanta: 100,
        refresh: 1000,
    };
    let w = |min, max| Window { min, max };
    let env = Envelope {
        accept_latency: 0,
        accept_sees_removals: false,
        order: Default::default(),
        snapshot_stride: 1,
        ingress: w(1, 1),
        e_clear: w(2, 2),
        stop_max: w(3, 20),
        stop_cal: w(3, 20),
        frame: w(0, 2),
        refresh: w(0, 100),
        reset: 1,
        link_bits_per_cycle: 8,
    };
    let p = Params {
        np: 2,
        cell_log2: 0,
        cw: 16,
        cut_f: 8,
    };
    (p, cfg, env)
}

/// The lanes of the synthetic cases: an arrival and a departure at ingress (0, p1), an enqueue
/// from input 0 and a dequeue at egress (1, p1).
fn arr(size: u32) -> super::Lane {
    super::Lane::Arrive {
        port: 0,
        prio: 1,
        size,
    }
}

fn dep(size: u32) -> super::Lane {
    super::Lane::Depart {
        port: 0,
        prio: 1,
        size,
    }
}

fn enq(size: u32) -> super::Lane {
    super::Lane::Enqueue {
        oport: 1,
        prio: 1,
        iport: 0,
        size,
    }
}

fn deq(size: u32) -> super::Lane {
    super::Lane::Dequeue {
        oport: 1,
        prio: 1,
        size,
    }
}

/// Runs cycles 0..n of a synthetic case: `lanes(t)` gives a cycle's lanes (every arrival and
/// enqueue accepted), `d0(t)` D of port 0, `ready(t)` the MACs' ready, `frames(t)` the frames
/// taken. Returns every violation.
fn run_small(
    env: &super::Envelope,
    n: u64,
    lanes: impl Fn(u64) -> Vec<super::Lane>,
    d0: impl Fn(u64) -> u8,
    ready: impl Fn(u64) -> u128,
    frames: impl Fn(u64) -> Vec<super::Frame>,
) -> Vec<super::Violation> {
    let (p, cfg, _) = small();
    let mut ck = super::Checker::new(p, cfg, env.clone(), true).unwrap();
    let mut v = vec![];
    for t in 0..n {
        let mut c = super::Cycle::new(p.np);
        c.lanes = lanes(t);
        c.accepts = c
            .lanes
            .iter()
            .filter(|l| l.answered())
            .map(|_| true)
            .collect();
        c.d[0] = d0(t);
        c.ready = ready(t);
        c.frames = frames(t);
        v.extend(ck.step(c));
    }
    v.extend(ck.finish());
    v
}

fn shown(v: &[super::Violation]) -> String {
    v.iter().map(|v| v.to_string()).collect()
}

/// A selection applied before its queue falls to XON_e, seen in a registered D after the fall:
/// D may show it until the fall shows (`e_clear.max` after it), inside the selection's window.
/// Egress 1 priority 1 crosses XOFF_e in cycle 2 with input 0 its only contributor; the dequeue
/// of cycle 4 empties it. The window opens in cycle 5 (stop_max min 3), the fall shows by 6.
#[test]
fn a_selection_cancelled_by_xon_may_show_until_the_cancel_shows() {
    use super::Kind;
    let (_, _, env) = small();
    let lanes = |t| match t {
        1 => vec![enq(90)],
        2 => vec![enq(20)],
        4 => vec![deq(110)],
        _ => vec![],
    };
    let case = |from: u64, to: u64| {
        run_small(
            &env,
            30,
            lanes,
            |t| if (from..to).contains(&t) { 0b10 } else { 0 },
            |_| 0,
            |_| vec![],
        )
    };
    // up in cycles 5 and 6: the selection, then the cancel shown at the last allowed cycle
    let v = case(5, 7);
    assert!(v.is_empty(), "{}", shown(&v));
    // up one cycle longer than the cancel allows
    let v = case(5, 8);
    assert!(
        v.iter().any(|v| v.kind == Kind::StuckPause),
        "{}",
        shown(&v)
    );
    // a rise after the cancel showed is not the selection's any more
    let v = case(7, 8);
    assert!(
        v.iter().any(|v| v.kind == Kind::SpuriousPause),
        "{}",
        shown(&v)
    );
    // before its window opens
    let v = case(4, 6);
    assert!(
        v.iter().any(|v| v.kind == Kind::SpuriousPause),
        "{}",
        shown(&v)
    );
}

/// The order of one cycle's events of one queue. Ingress (0, p1) holds exactly XOFF (100); in
/// cycle 3 an arrival and a departure of 30 bytes each. Removals first: 70, then 100: I stays
/// 0. Additions first: 130 > XOFF sets I, then 100 > XON keeps it: D must rise in cycle 4.
#[test]
fn the_declared_order_of_same_cycle_events_decides_i() {
    use super::{Kind, Order};
    let (_, _, env) = small();
    let lanes = |t| match t {
        1 => vec![arr(100)],
        3 => vec![arr(30), dep(30)],
        _ => vec![],
    };
    let additions_first_d = |t: u64| if t >= 4 { 0b10 } else { 0 };
    let add_env = super::Envelope {
        order: Order::AdditionsFirst,
        ..env.clone()
    };
    let v = run_small(&add_env, 20, lanes, additions_first_d, |_| 0, |_| vec![]);
    assert!(v.is_empty(), "{}", shown(&v));
    // the same D under the default order: a pause with no reason, and the report says which
    // events coincided
    let v = run_small(&env, 20, lanes, additions_first_d, |_| 0, |_| vec![]);
    let f = v.first().expect("reported");
    assert_eq!(f.kind, Kind::SpuriousPause, "{}", shown(&v));
    assert!(
        f.why.contains("same-cycle events") && f.why.contains("removals first"),
        "{f}"
    );
    // and a removals-first block under the additions-first declaration misses the pause
    let v = run_small(&add_env, 20, lanes, |_| 0, |_| 0, |_| vec![]);
    assert!(
        v.iter().any(|v| v.kind == Kind::MissingPause),
        "{}",
        shown(&v)
    );
}

/// A PFC frame held in an output buffer while its MAC is busy carries the D of when it was made:
/// the frame window counts MAC-ready cycles. D of port 0 rises in cycle 2 (I) and falls in cycle
/// 6; the MAC is busy until cycle 10, takes the pause then and the resume in cycle 11.
#[test]
fn a_frame_held_while_the_mac_is_busy_carries_the_d_it_was_made_from() {
    use super::{Frame, Kind};
    let (_, _, env) = small();
    let lanes = |t| match t {
        1 => vec![arr(150)],
        5 => vec![dep(150)],
        _ => vec![],
    };
    let d0 = |t: u64| if (2..6).contains(&t) { 0b10 } else { 0 };
    let frame = |q| Frame {
        port: 0,
        quanta: [None, Some(q), None, None, None, None, None, None],
    };
    let ready = |t: u64| if t >= 10 { 0b11 } else { 0 };
    let v = run_small(&env, 30, lanes, d0, ready, |t| match t {
        10 => vec![frame(100)],
        11 => vec![frame(0)],
        _ => vec![],
    });
    assert!(v.is_empty(), "{}", shown(&v));
    // the resume never follows: missing once the window's ready cycles pass
    let v = run_small(&env, 30, lanes, d0, ready, |t| match t {
        10 => vec![frame(100)],
        _ => vec![],
    });
    assert!(
        v.iter().any(|v| v.kind == Kind::FrameMissing),
        "{}",
        shown(&v)
    );
    // a frame of a D older than the window's ready cycles: the MAC was ready in cycles 10 to
    // 13 and the frame of cycle 14 carries the pause of cycles 2..6
    let v = run_small(&env, 30, lanes, d0, ready, |t| match t {
        14 => vec![frame(100)],
        _ => vec![],
    });
    assert!(
        v.iter().any(|v| v.kind == Kind::FrameContent),
        "{}",
        shown(&v)
    );
}

/// A pause later than its selection's window is reported as missing at the deadline and, when
/// it comes, as late (not as a pause with no reason).
#[test]
fn a_pause_after_its_window_is_reported_late() {
    use super::Kind;
    let (_, _, env) = small();
    let lanes = |t| match t {
        1 => vec![enq(90)],
        2 => vec![enq(20)],
        _ => vec![],
    };
    // the window is 5..=22: D rises in cycle 25
    let v = run_small(
        &env,
        40,
        lanes,
        |t| if t >= 25 { 0b10 } else { 0 },
        |_| 0,
        |_| vec![],
    );
    let kinds: Vec<Kind> = v.iter().map(|v| v.kind).collect();
    assert_eq!(
        kinds,
        vec![Kind::MissingSelection, Kind::Late],
        "{}",
        shown(&v)
    );
    assert!(v[1].expected.contains("5..=22"), "{}", v[1]);
}

/// A late fall of D that shows I's fall after I rose again is reported as late.
#[test]
fn a_d_slower_than_its_window_is_reported_late() {
    use super::Kind;
    let (_, _, env) = small();
    // I: up in cycle 1, down in cycle 5, up again in cycle 6; a D one cycle slower than the
    // declared ingress window (1): up from 3, down in 7, up again from 8
    let lanes = |t| match t {
        1 => vec![arr(150)],
        5 => vec![dep(150)],
        6 => vec![arr(150)],
        _ => vec![],
    };
    let d0 = |t: u64| {
        if (3..7).contains(&t) || t >= 8 {
            0b10
        } else {
            0
        }
    };
    let v = run_small(&env, 20, lanes, d0, |_| 0, |_| vec![]);
    assert!(v.iter().any(|v| v.kind == Kind::Late), "{}", shown(&v));
    assert!(
        !v.iter().any(|v| v.kind == Kind::EarlyResume),
        "{}",
        shown(&v)
    );
}

/// A frame that repeats what the peer was told answers a change of D undone while the MAC was
/// busy: legal (a pause that came and went sends its XON again). A frame with no change of D
/// behind it still changes nothing and is reported.
#[test]
fn a_frame_for_a_change_undone_while_the_mac_was_busy_is_legal() {
    use super::{Frame, Kind};
    let (_, _, env) = small();
    let frame = |q| Frame {
        port: 0,
        quanta: [None, Some(q), None, None, None, None, None, None],
    };
    // I of (0, p1) up in cycle 1, down in cycle 2: D up in cycle 2 only; the MAC busy until 10
    let lanes = |t| match t {
        1 => vec![arr(150)],
        2 => vec![dep(150)],
        _ => vec![],
    };
    let ready = |t: u64| if t >= 10 { 0b11 } else { 0 };
    let v = run_small(
        &env,
        20,
        lanes,
        |t| if t == 2 { 0b10 } else { 0 },
        ready,
        |t| if t == 10 { vec![frame(0)] } else { vec![] },
    );
    assert!(v.is_empty(), "{}", shown(&v));
    // the same frame with D never up
    let v = run_small(
        &env,
        20,
        |_| vec![],
        |_| 0,
        ready,
        |t| if t == 10 { vec![frame(0)] } else { vec![] },
    );
    assert!(
        v.iter().any(|v| v.kind == Kind::FrameContent),
        "{}",
        shown(&v)
    );
}

/// Frames queued in an output buffer while the MAC is busy leave back to back: a refresh queued
/// behind the pause it repeats is not early, for as many frames in a row as the frame window's
/// ready cycles allow. D of port 0 is up from cycle 2; the MAC is busy until cycle 2,600, when
/// it takes the pause and the two refreshes the block made during the wait (period 1,000).
#[test]
fn refreshes_queued_behind_their_pause_leave_back_to_back() {
    use super::{Frame, Kind, Window};
    let (_, _, env) = small();
    let pause = Frame {
        port: 0,
        quanta: [None, Some(100), None, None, None, None, None, None],
    };
    let lanes = |t| match t {
        1 => vec![arr(150)],
        _ => vec![],
    };
    let ready = |t: u64| if t >= 2600 { 0b11 } else { 0 };
    let frames = |t: u64| {
        if (2600..2603).contains(&t) {
            vec![pause]
        } else {
            vec![]
        }
    };
    let buffered = super::Envelope {
        frame: Window { min: 0, max: 6 },
        ..env.clone()
    };
    let v = run_small(
        &buffered,
        2700,
        lanes,
        |t| if t >= 2 { 0b10 } else { 0 },
        ready,
        frames,
    );
    assert!(v.is_empty(), "{}", shown(&v));
    // a block that declares no buffer (a frame within one ready cycle) refreshes early
    let unbuffered = super::Envelope {
        frame: Window { min: 0, max: 1 },
        ..env.clone()
    };
    let v = run_small(
        &unbuffered,
        2700,
        lanes,
        |t| if t >= 2 { 0b10 } else { 0 },
        ready,
        frames,
    );
    assert!(v.iter().any(|v| v.kind == Kind::Refresh), "{}", shown(&v));
}

/// With answers 4 cycles late, a reset in the lane's cycle or the 3 after it cancels the answer
/// (docs/microarchitecture.md, "Lanes": the block forgets the lane): an arrival of cycle 2 whose
/// answer, read in cycle 6, is 0 is not judged after a reset in cycle 4, and is reported as a
/// wrong accept after a reset in cycle 6, the answer's own cycle, which does not cancel it.
#[test]
fn a_reset_before_the_answer_cancels_it() {
    use super::Kind;
    let (p, cfg, mut env) = small();
    env.accept_latency = 4;
    let run = |reset: u64| {
        let mut ck = super::Checker::new(p, cfg.clone(), env.clone(), false).unwrap();
        let mut v = vec![];
        for t in 0..12 {
            let mut c = super::Cycle::new(p.np);
            c.rst = t == reset;
            if t == 2 {
                c.lanes = vec![arr(10)];
            }
            if t == 6 {
                // the answer of cycle 2's arrival: 0
                c.accepts = vec![false];
            }
            v.extend(ck.step(c));
        }
        v.extend(ck.finish());
        (v, ck.summary().cancelled_by_reset)
    };
    let (v, cancelled) = run(4);
    assert!(v.is_empty(), "{}", shown(&v));
    assert_eq!(cancelled, 1);
    let (v, cancelled) = run(6);
    assert_eq!(cancelled, 0);
    assert!(
        v.first()
            .is_some_and(|v| v.kind == Kind::Accept && v.cycle == 6),
        "{}",
        shown(&v)
    );
}
