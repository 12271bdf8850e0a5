//! The v3 block as assembled in `rtl/v3/capfc_top_oc.sv`: the configuration registers
//! ([`Cfg`], instance `u_cfg`: v2's, the thresholds in LUT RAM), the v3 ingress, egress and sort engines, D registered (`d_q`)
//! and v2's PFC generator (`u_pfc`: `sent_q`, `timer_q`), register for register.

use super::cfg::Cfg;
use super::egress::{Egress, EgressIn, EgressParams};
use super::ingress::{Ingress, IngressIn, IngressParams};
use super::sort::{Sort, SortIn, SortParams};
use super::{Cat, RegSink, RegStrings, Regs};
use crate::block::BlockParams;

/// One cycle's inputs (`capfc_top_oc`'s ports).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopIn {
    pub rst: bool,
    pub cfg_we: bool,
    pub cfg_addr: u8,
    pub cfg_wdata: u32,
    pub arr_valid: Vec<bool>,
    pub arr_prio: Vec<u8>,
    pub arr_size: Vec<u64>,
    pub dep_valid: bool,
    pub dep_port: u64,
    pub dep_prio: u8,
    pub dep_size: u64,
    pub enq_valid: bool,
    pub enq_oport: u64,
    pub enq_prio: u8,
    pub enq_iport: u64,
    pub enq_size: u64,
    pub deq_valid: Vec<bool>,
    pub deq_prio: Vec<u8>,
    pub deq_size: Vec<u64>,
    pub pfc_ready: Vec<bool>,
}

/// One cycle's outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopOut {
    pub arr_ready: Vec<bool>,
    pub dep_ready: bool,
    pub enq_ready: bool,
    pub deq_ready: Vec<bool>,
    pub arr_accept: Vec<bool>,
    pub enq_accept: bool,
    pub pfc_valid: Vec<bool>,
    /// per port, a bit a priority
    pub pfc_cev: Vec<u8>,
    pub pfc_xoff: Vec<u8>,
    pub pfc_quanta: u16,
    pub d_state: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Top {
    pub p: BlockParams,
    pub u_cfg: Cfg,
    pub u_ingress: Ingress,
    pub u_egress: Egress,
    pub u_sort: Sort,
    /// D, registered: per input port, a bit a priority
    pub d_q: Vec<u8>,
    /// `u_pfc.sent_q`, `u_pfc.timer_q`
    pub sent_q: Vec<u8>,
    pub timer_q: Vec<u16>,
}

impl Top {
    /// Every register and RAM word 0 (as Verilator starts a simulation).
    pub fn new(p: BlockParams) -> Self {
        let np = p.np;
        Top {
            p,
            u_cfg: Cfg::default(),
            u_ingress: Ingress::new(IngressParams {
                np,
                sw: p.sw,
                ow: p.ow,
                cell_log2: p.cell_log2,
            }),
            u_egress: Egress::new(EgressParams {
                np,
                sw: p.sw,
                ow: p.ow,
                cw: p.cw,
                cell_log2: p.cell_log2,
                nl: p.nl as u32,
            }),
            u_sort: Sort::new(SortParams {
                np,
                cw: p.cw,
                cut_f: p.cut_f,
                nl: p.nl as u32,
            }),
            d_q: vec![0; np],
            sent_q: vec![0; np],
            timer_q: vec![0; np],
        }
    }

    /// One cycle: the outputs, then the clock edge.
    pub fn cycle(&mut self, inp: &TopIn) -> TopOut {
        let np = self.p.np;
        let c = &self.u_cfg;
        // the thresholds of the priority each unit's refresh reads (its rf_q)
        let ti = c.ingress(self.u_ingress.u_thr.rf());
        let te = c.egress(self.u_egress.u_thr.rf());
        let ing_in = IngressIn {
            rst: inp.rst,
            cfg_ing_max: ti.max,
            cfg_ing_xoff: ti.xoff,
            cfg_ing_xon: ti.xon,
            cfg_lossless: c.lossless_q,
            arr_valid: inp.arr_valid.clone(),
            arr_prio: inp.arr_prio.clone(),
            arr_size: inp.arr_size.clone(),
            dep_valid: inp.dep_valid,
            dep_port: inp.dep_port,
            dep_prio: inp.dep_prio,
            dep_size: inp.dep_size,
        };
        let so = self.u_sort.outputs();
        let eg_in = EgressIn {
            rst: inp.rst,
            cfg_eg_max: te.max,
            cfg_eg_xoff: te.xoff,
            cfg_eg_xon: te.xon,
            cfg_eg_warn: te.warn,
            cfg_lossless: c.lossless_q,
            cfg_mode: c.mode_q,
            enq_valid: inp.enq_valid,
            enq_oport: inp.enq_oport,
            enq_prio: inp.enq_prio,
            enq_iport: inp.enq_iport,
            enq_size: inp.enq_size,
            deq_valid: inp.deq_valid.clone(),
            deq_prio: inp.deq_prio.clone(),
            deq_size: inp.deq_size.clone(),
            sre: so.sre,
            srow: so.srow,
            sidx: so.sidx,
            swr_en: so.swr_en,
            swr_l: so.swr_l,
            swr_i: so.swr_i,
        };
        let io = self.u_ingress.outputs(&ing_in);
        let eo = self.u_egress.outputs(&eg_in);
        let sort_in = SortIn {
            rst: inp.rst,
            cfg_mode_cal: c.mode_q >> 1 & 1 == 1,
            cfg_cut: c.cut_q,
            rclr: eo.rclr.clone(),
            rtrig: eo.rtrig.clone(),
            sval: eo.sval.clone(),
        };
        // D and the PFC generator
        let i_state = self.u_ingress.i_state().to_vec();
        let d_d: Vec<u8> = (0..np)
            .map(|i| {
                if inp.rst {
                    0
                } else {
                    i_state[i] | (0..8).fold(0u8, |a, q| a | (u8::from(eo.e_other[i * 8 + q]) << q))
                }
            })
            .collect();
        let mut out = TopOut {
            arr_ready: io.arr_ready,
            dep_ready: io.dep_ready,
            enq_ready: eo.enq_ready,
            deq_ready: eo.deq_ready.clone(),
            arr_accept: io.arr_accept,
            enq_accept: eo.enq_accept,
            pfc_valid: vec![false; np],
            pfc_cev: vec![0; np],
            pfc_xoff: self.d_q.clone(),
            pfc_quanta: c.quanta_q,
            d_state: self.d_q.clone(),
        };
        let refresh = c.refresh_q;
        for i in 0..np {
            let (d, s, t) = (self.d_q[i], self.sent_q[i], self.timer_q[i]);
            let v = d != s || (d != 0 && t == 0);
            let take = v && inp.pfc_ready[i];
            out.pfc_valid[i] = v;
            out.pfc_cev[i] = d | s;
            if inp.rst {
                self.sent_q[i] = 0;
                self.timer_q[i] = 0;
            } else {
                self.sent_q[i] = if take { d } else { s };
                self.timer_q[i] = if take { refresh } else { t.saturating_sub(1) };
            }
        }
        self.d_q = d_d;
        // the units' edges, then the configuration's
        self.u_ingress.tick(&ing_in);
        self.u_egress.tick(&eg_in);
        self.u_sort.tick(&sort_in);
        self.u_cfg
            .tick(&self.p, inp.rst, inp.cfg_we, inp.cfg_addr, inp.cfg_wdata);
        out
    }

    /// Every register and RAM word under its RTL name (relative to the block's instance).
    pub fn regs(&self) -> Regs {
        let mut s = RegStrings::default();
        self.visit(&mut s);
        s.0
    }

    /// Every register and RAM word, in the order of [`Top::regs`], into `s`.
    pub fn visit(&self, s: &mut dyn RegSink) {
        self.u_cfg.visit(&self.p, "u_cfg.", s);
        let mut pre = Prefixed {
            s,
            prefix: "u_ingress.",
        };
        self.u_ingress.visit(&mut pre);
        pre.prefix = "u_egress.";
        self.u_egress.visit(&mut pre);
        pre.prefix = "u_sort.";
        self.u_sort.visit(&mut pre);
        let per_port = |v: &[u8]| Cat::values(v.iter().map(|&x| x.into()), 8);
        per_port(&self.d_q).to(s, format_args!("d_q"));
        per_port(&self.sent_q).to(s, format_args!("u_pfc.sent_q"));
        for (i, t) in self.timer_q.iter().enumerate() {
            s.val(format_args!("u_pfc.timer_q[{i}]"), (*t).into(), 16);
        }
    }
}

/// A sink that puts an instance's path before every name.
struct Prefixed<'a> {
    s: &'a mut dyn RegSink,
    prefix: &'static str,
}

impl RegSink for Prefixed<'_> {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.s
            .reg(format_args!("{}{}", self.prefix, name), words, width)
    }

    fn val(&mut self, name: std::fmt::Arguments<'_>, v: u128, width: usize) {
        self.s
            .val(format_args!("{}{}", self.prefix, name), v, width)
    }

    fn ram(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.s
            .ram(format_args!("{}{}", self.prefix, name), words, width)
    }
}
