//! The v3 units' models (crates/block/src/v3) on their own; their equivalence with the RTL is `make
//! v3-lockstep` (the units' testbenches' waveforms replayed through the models).

use capfc::replay;
use capfc::v3::ingress::{Ingress, IngressIn, IngressParams};
use capfc::v3::{bits, signed, units};

fn params(np: usize) -> IngressParams {
    IngressParams {
        np,
        sw: 14,
        ow: 20,
        cell_log2: 0,
    }
}

fn idle(np: usize, rst: bool) -> IngressIn {
    let mut i = IngressIn {
        rst,
        arr_valid: vec![false; np],
        arr_prio: vec![0; np],
        arr_size: vec![0; np],
        ..IngressIn::default()
    };
    // (every priority's: the unit reads one a cycle, cfg_ra)
    i.cfg_ing_max = 1000;
    i.cfg_ing_xoff = 500;
    i.cfg_ing_xon = 200;
    i.cfg_lossless = 0xff;
    i
}

#[test]
fn helpers_wrap_and_sign_as_the_rtl() {
    assert_eq!(bits(5, 4), "0101");
    assert_eq!(bits(u128::MAX, 3), "111");
    assert_eq!(signed(0b11, 2), -1);
    assert_eq!(signed(0b01, 2), 1);
    assert_eq!(units(0, 3), 0);
    assert_eq!(units(9, 3), 2);
    assert_eq!(units(8, 3), 1);
}

#[test]
fn ingress_lanes_ready_in_their_slot_after_the_reset_and_an_arrival_answers_four_cycles_later() {
    let np = 12;
    let p = params(np);
    let mut m = Ingress::new(p);
    m.tick(&idle(np, true));
    let mut c = 0u64;
    while !m.outputs().arr_ready.iter().any(|&r| r) {
        m.tick(&idle(np, false));
        c += 1;
        assert!(c < 100, "no lane ready 100 cycles after a reset");
    }
    // ready when rc_q (0 in the cycle after the reset's edge) reaches RC_RDY, a port a group
    assert_eq!(c, p.rc_rdy());
    let o = m.outputs();
    assert_eq!(o.arr_ready.iter().filter(|&&r| r).count(), 2);
    let port = o.arr_ready.iter().position(|&r| r).unwrap();
    let mut a = idle(np, false);
    a.arr_valid[port] = true;
    a.arr_prio[port] = 3;
    a.arr_size[port] = 1000;
    m.tick(&a);
    for k in 1..=4 {
        let o = m.outputs();
        assert_eq!(o.arr_accept[port], k == 4, "cycle t+{k}");
        m.tick(&idle(np, false));
    }
    // 1000 units on a lossless queue, over XOFF (500): I set, seen from t+5
    assert_eq!(m.i_state()[port] >> 3 & 1, 1);
}

#[test]
fn the_replay_refuses_a_missing_file_and_a_waveform_without_the_unit() {
    let e = replay::ingress("no/such.vcd", "tb.dut", params(4), 10).unwrap_err();
    assert_eq!(e.path, "no/such.vcd", "{e}");
    let scratch = tempfile::Builder::new()
        .prefix("capfc_v3_replay_")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("other.vcd");
    std::fs::write(
        &f,
        "$timescale 1ps $end\n$scope module tb $end\n$var wire 1 ! clk $end\n$upscope $end\n\
         $enddefinitions $end\n#0\n0!\n#1\n1!\n",
    )
    .unwrap();
    let e = replay::ingress(f.to_str().unwrap(), "tb.dut", params(4), 10).unwrap_err();
    assert!(e.why.contains("no instance tb.dut"), "{e}");
    // the unit is there but a register of the model is not: refused by name, nothing skipped
    std::fs::write(
        &f,
        "$timescale 1ps $end\n$scope module tb $end\n$scope module dut $end\n\
         $var wire 1 ! clk $end\n$var wire 1 \" rst $end\n$upscope $end\n$upscope $end\n\
         $enddefinitions $end\n#0\n0!\n1\"\n#1\n1!\n",
    )
    .unwrap();
    let e = replay::ingress(f.to_str().unwrap(), "tb.dut", params(4), 10).unwrap_err();
    assert!(e.why.contains("is not in the waveform"), "{e}");
    std::fs::write(&f, "not a waveform\n\0\0").unwrap();
    assert!(replay::ingress(f.to_str().unwrap(), "tb.dut", params(4), 10).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn egress_an_engine_write_sets_e_and_other_ports_see_it_three_cycles_later_never_the_own_port() {
    use capfc::v3::egress::{Egress, EgressIn, EgressParams};
    let p = EgressParams {
        np: 12,
        sw: 14,
        ow: 20,
        cw: 16,
        cell_log2: 0,
        nl: 2,
    };
    let idle = |rst: bool| {
        let np = p.np;
        EgressIn {
            rst,
            cfg_lossless: 0b1010, // priorities 1 and 3: counted classes 0 and 1
            cfg_mode: 2,
            deq_valid: vec![false; np],
            deq_prio: vec![0; np],
            deq_size: vec![0; np],
            sre: vec![false; np],
            srow: vec![0; np],
            sidx: vec![0; np],
            swr_en: vec![false; np],
            swr_l: vec![0; np],
            swr_i: vec![0; np],
            ..EgressIn::default()
        }
    };
    let mut m = Egress::new(p);
    m.tick(&idle(true));
    for _ in 0..40 {
        m.tick(&idle(false));
    }
    // port 9's engine selects input port 2 on its class 1 (priority 3)
    let mut w = idle(false);
    w.swr_en[9] = true;
    w.swr_l[9] = 1;
    w.swr_i[9] = 2;
    m.tick(&w);
    // registered beside E first (E takes it a cycle later, its partial ORs a cycle after E)
    assert_eq!(m.e_q[9 * p.nlp() + 1], 0);
    let pw = &m.port[9];
    assert!(pw.ew_v_q && pw.ew_l_q == 1 && pw.ew_i_q == 2);
    assert_eq!(m.outputs().e_other[2] >> 3 & 1, 0);
    m.tick(&idle(false));
    assert_eq!(m.e_q[9 * p.nlp() + 1], 1 << 2);
    assert!(!m.port[9].ew_v_q);
    assert!(
        m.outputs().e_other[2] >> 3 & 1 == 0,
        "the partial ORs read E's register: not yet"
    );
    m.tick(&idle(false));
    // E of port 9 reaches input port 2's D through the group's registered partial OR
    let o = m.outputs();
    assert!(
        o.e_other[2] >> 3 & 1 == 1,
        "E[9][class 1] bit 2 not in e_other of port 2, priority 3"
    );
    assert_eq!(o.e_other[2] >> 1 & 1, 0, "priority 1 is class 0");
    assert_eq!(o.e_other.iter().map(|b| b.count_ones()).sum::<u32>(), 1);
}
