//! The v2 block's model on directed and random stimulus: a busy MAC loses no change of D, and a
//! snapshot restores into an identical continuation.

use capfc::block::{BlockParams, CapfcTop, Inputs, Outputs};
use capfc::stimulus::{directed, RandomStim, Stimulus};

/// The MAC of port 2 takes XOFF 3, then is busy while D changes four times (XOFF 5, XON 3,
/// XOFF 3, XON 3): no frame goes out meanwhile, and the frame it takes when ready resumes 3
/// and pauses 5. Nothing is lost.
#[test]
fn a_busy_mac_loses_no_change_of_d() {
    for mode in [capfc::block::Mode::StopMax, capfc::block::Mode::StopCal] {
        let p = BlockParams::with_ports(4);
        let mut s = directed(&p, mode, "mac_busy").unwrap();
        let mut m = CapfcTop::new(p).unwrap();
        let (mut inp, mut out) = (Inputs::idle(4), Outputs::new(4));
        let (mut changes_while_busy, mut last_d, mut frames) = (0, 0u8, vec![]);
        while s.next(&mut inp) {
            m.tick_cycle(&inp, &mut out);
            let busy = inp.pfc_ready >> 2 & 1 == 0;
            if busy && out.d_state[2] != last_d {
                changes_while_busy += 1;
            }
            last_d = out.d_state[2];
            if out.pfc_valid >> 2 & 1 == 1 && !busy {
                frames.push((out.pfc_cev[2], out.quanta(2, 3), out.quanta(2, 5)));
            }
            inp.clear();
        }
        assert!(changes_while_busy >= 4, "{changes_while_busy} changes of D");
        let q = m.cfg.quanta_q;
        assert_eq!(
            frames,
            vec![(1 << 3, q, 0), (1 << 3 | 1 << 5, 0, q), (1 << 5, 0, 0)],
            "XOFF 3; then, once ready, XON 3 with XOFF 5; then XON 5"
        );
    }
}

/// A snapshot taken in the middle of traffic, restored, continues exactly as the original.
#[test]
fn snapshot_restore_continues_identically() {
    let p = BlockParams::with_ports(8);
    let mut stim = RandomStim::new(&p, capfc::block::Mode::StopCal, 3, 6000);
    let mut a = CapfcTop::new(p).unwrap();
    let (mut inp, mut out) = (Inputs::idle(8), Outputs::new(8));
    let mut rest = vec![];
    let mut snap = None;
    for _ in 0..6000 {
        inp.clear();
        assert!(stim.next(&mut inp));
        // Snapshot the first time sort requests are waiting: the hardest state to carry over.
        if snap.is_none() && a.sort.busy_q != 0 && a.sort.pend_q.iter().any(|&b| b != 0) {
            snap = Some(serde_json::to_string(&a).unwrap());
        }
        a.tick_cycle(&inp, &mut out);
        stim.observe(&inp, &out);
        if snap.is_some() {
            rest.push((inp.clone(), out.clone()));
        }
    }
    assert!(
        rest.len() > 1000,
        "the run reached a pending sort early enough"
    );
    let mut b: CapfcTop = serde_json::from_str(&snap.unwrap()).unwrap();
    let mut o = Outputs::new(8);
    for (k, (i, want)) in rest.iter().enumerate() {
        b.tick_cycle(i, &mut o);
        assert_eq!(&o, want, "cycle {} after the restore", k);
    }
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}
