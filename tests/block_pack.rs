//! The v2 block's packing into the Verilated model's words on random stimulus: the golden files'
//! concatenation inverts, and so does the state's packing.

use capfc::block::pack::*;
use capfc::block::{BlockParams, CapfcTop, Enqueue, Inputs, Outputs, Pkt};

/// The concatenation keeps every bit of every port, in the golden files' order: inputs of
/// random cycles and outputs of the model go through it and back unchanged, and the first port
/// (`rst`, `arr_accept`) is the top bit.
#[test]
fn from_concat_inverts_to_concat() {
    use capfc::stimulus::{RandomStim, Stimulus};
    for np in [4, 6, 32] {
        let p = BlockParams::with_ports(np);
        let l = Layouts::new(&p);
        let mut m = CapfcTop::new(p).unwrap();
        let mut s = RandomStim::new(&p, capfc::block::Mode::StopCal, 7, 3000);
        let (mut inp, mut out) = (Inputs::idle(np), Outputs::new(np));
        let (ib, ob) = (concat_bits(&l.inputs), concat_bits(&l.outputs));
        let (mut iw, mut ow) = (vec![0; l.inputs.words], vec![0; l.outputs.words]);
        let (mut ic, mut oc) = (vec![0; ib.div_ceil(32)], vec![0; ob.div_ceil(32)]);
        let (mut iw2, mut ow2) = (iw.clone(), ow.clone());
        let mut top_seen = false;
        loop {
            inp.clear();
            if !s.next(&mut inp) {
                break;
            }
            m.tick_cycle(&inp, &mut out);
            s.observe(&inp, &out);
            pack_inputs(&p, &l.inputs, &inp, &mut iw);
            pack_outputs(&l.outputs, &out, &mut ow);
            to_concat(&l.inputs, &iw, &mut ic);
            to_concat(&l.outputs, &ow, &mut oc);
            from_concat(&l.inputs, &ic, &mut iw2);
            from_concat(&l.outputs, &oc, &mut ow2);
            assert_eq!(iw, iw2);
            assert_eq!(ow, ow2);
            let top = |c: &[u32], n: usize| c[(n - 1) / 32] >> ((n - 1) % 32) & 1 == 1;
            assert_eq!(top(&ic, ib), inp.rst);
            assert_eq!(top(&oc, ob), out.arr_accept >> (np - 1) & 1 == 1);
            top_seen |= top(&oc, ob);
        }
        assert!(top_seen);
    }
}

#[test]
fn unpack_state_inverts_pack_state() {
    use capfc::stimulus::{RandomStim, Stimulus};
    for np in [4, 6] {
        let p = BlockParams {
            nl: 3,
            ..BlockParams::with_ports(np)
        };
        let l = Layouts::new(&p);
        let mut m = CapfcTop::new(p).unwrap();
        let mut stim = RandomStim::new(&p, capfc::block::Mode::StopCal, 7, 20_000);
        let (mut inp, mut out) = (Inputs::idle(np), Outputs::new(np));
        let mut seen_busy = false;
        while stim.next(&mut inp) {
            m.tick_cycle(&inp, &mut out);
            stim.observe(&inp, &out);
            inp.clear();
            seen_busy |= m.sort.busy_q != 0;
        }
        assert!(seen_busy, "the run sorted something");
        let mut a = vec![0; l.state.words];
        pack_state(&m, &l.state, &mut a);
        let back = unpack_state(&p, &l.state, &a);
        let mut b = vec![0; l.state.words];
        pack_state(&back, &l.state, &mut b);
        assert_eq!(a, b);
        assert_eq!(back.d_state(), m.d_state());
    }
}

#[test]
fn fields_land_where_the_rtl_slices_them() {
    let p = BlockParams::with_ports(4);
    let l = Layouts::new(&p);
    let mut inp = Inputs::idle(4);
    inp.arr[2] = Some(Pkt {
        prio: 5,
        size: 1500,
    });
    inp.enq = Some(Enqueue {
        oport: 3,
        prio: 1,
        iport: 2,
        size: 64,
    });
    let mut buf = vec![0; l.inputs.words];
    pack_inputs(&p, &l.inputs, &inp, &mut buf);
    let s = l.inputs.signal("arr_prio").unwrap();
    assert_eq!(get_field(s, &buf, 0, 2), 5);
    assert_eq!(buf[s.word], 5 << 6, "port 2's priority sits at bits [8:6]");
    let s = l.inputs.signal("arr_size").unwrap();
    assert_eq!(get_field(s, &buf, 0, 2), 1500);
    let s = l.inputs.signal("enq_oport").unwrap();
    assert_eq!(buf[s.word], 3);
}

#[test]
fn unpack_inverts_pack() {
    let p = BlockParams::with_ports(6);
    let l = Layouts::new(&p);
    let mut inp = Inputs::idle(6);
    inp.cfg = Some((0x3A, 205));
    inp.arr[5] = Some(Pkt {
        prio: 7,
        size: 16383,
    });
    inp.arr[0] = Some(Pkt { prio: 0, size: 1 });
    inp.dep = Some(capfc::block::Departure {
        port: 4,
        prio: 2,
        size: 999,
    });
    inp.enq = Some(Enqueue {
        oport: 5,
        prio: 6,
        iport: 1,
        size: 64,
    });
    inp.deq[3] = Some(Pkt {
        prio: 3,
        size: 1500,
    });
    let mut buf = vec![0; l.inputs.words];
    pack_inputs(&p, &l.inputs, &inp, &mut buf);
    let mut back = Inputs::idle(6);
    unpack_inputs(&p, &l.inputs, &buf, &mut back);
    assert_eq!(back, inp);
}

#[test]
fn unpack_outputs_inverts_pack() {
    let p = BlockParams::with_ports(6);
    let l = Layouts::new(&p);
    let mut o = Outputs::new(6);
    o.arr_accept = 0b101001;
    o.enq_accept = true;
    o.pfc_valid = 0b010000;
    o.pfc_cev[4] = 0x88;
    o.pfc_xoff[4] = 0x80;
    o.pfc_quanta = 0xFFFF;
    o.d_state[5] = 0x81;
    o.d_state[0] = 0x08;
    let mut buf = vec![0; l.outputs.words];
    pack_outputs(&l.outputs, &o, &mut buf);
    let mut back = Outputs::new(6);
    unpack_outputs(&l.outputs, &buf, &mut back);
    assert_eq!(back, o);
}

#[test]
fn diff_names_the_field() {
    let p = BlockParams::with_ports(4);
    let l = Layouts::new(&p);
    let mut a = Outputs::new(4);
    let mut b = Outputs::new(4);
    a.pfc_cev[3] = 0x04;
    b.pfc_cev[3] = 0x0C;
    let (mut x, mut y) = (vec![0; l.outputs.words], vec![0; l.outputs.words]);
    pack_outputs(&l.outputs, &a, &mut x);
    pack_outputs(&l.outputs, &b, &mut y);
    let d = diff(&p, &l.outputs, &x, &y);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].signal, "pfc_cev[3]");
    assert_eq!(d[0].at, "port=3");
    assert_eq!((d[0].expected, d[0].actual), (0x04, 0x0C));
}
