//! `capfc_egress` of micro-architecture v3 (`rtl/v3/capfc_egress.sv`): egress occupancy, the
//! counter RAMs with generation tags, the row events, E and the sort engines' read port, the
//! dequeue lanes shared in time by groups of eight ports.
//!
//! Register for register under the RTL's names (`docs/microarchitecture.md`, "Egress", and the
//! RTL's header have the design): per group the slot, the reset count and its enables and the
//! stages A to E (`*1_q` .. `*4_q`) and F to H of the increment; per row (port, class) its
//! generation `gen_q`, E `e_q` and the row events `rclr4_q`, `eclr4_q`, `rtrig4_q` .. `rtrig6_q`,
//! `rclr5_q`; per port the scrub, the counter RAM's registered write port and read port 0, and
//! the engines' read port (`sv_*`, `sval_q`) and E write registered beside E (`ew_*_q`, made in
//! `e_q` a cycle later, seen by E's partial ORs a cycle after that); the occupancy LUT RAMs, the counter RAMs
//! (`gen_port[o].u_cnt`: synchronous reads, read before write) and the thresholds' copies.

use super::fault::{ge, gt, le, pick, Fault};
use super::thr_copies::ThrCopies;
use super::{class_width, port_width, signed, trunc, units, RegSink, RegStrings, Regs, Scratch};

/// The unit's parameters (the RTL's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EgressParams {
    pub np: usize,
    pub sw: u32,
    pub ow: u32,
    pub cw: u32,
    pub cell_log2: u32,
    pub nl: u32,
}

impl EgressParams {
    pub fn ng(&self) -> usize {
        self.np.div_ceil(8)
    }
    pub fn pw(&self) -> u32 {
        port_width(self.np)
    }
    pub fn lw(&self) -> u32 {
        class_width(self.nl)
    }
    pub fn nlp(&self) -> usize {
        1 << self.lw()
    }
    pub fn nr(&self) -> usize {
        self.np << self.lw()
    }
    fn caw(&self) -> u32 {
        self.lw() + self.pw()
    }
    /// Counter words a port (`2^(LW+PW)`): the scrub's walk.
    pub fn na(&self) -> usize {
        1 << self.caw()
    }
    fn tw(&self) -> u32 {
        self.caw() + 1
    }
    fn dw(&self) -> u32 {
        self.cw + self.tw()
    }
    fn rcw(&self) -> u32 {
        self.caw() + 2
    }
    /// The lanes are ready from this many cycles after a reset.
    pub fn rc_rdy(&self) -> u64 {
        (self.na() as u64 + 1).max(8)
    }
    pub fn rc_sat(&self) -> u64 {
        self.rc_rdy().max(12)
    }
    fn xw(&self) -> u32 {
        self.ow + 2
    }
    fn taw(&self) -> u32 {
        3 * self.ow + self.lw() + 2
    }
    fn tdw(&self) -> u32 {
        2 * self.ow + self.lw() + 1
    }
}

/// One cycle's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EgressIn {
    pub rst: bool,
    /// the thresholds of priority `cfg_ra` (an output: the refresh's priority)
    pub cfg_eg_max: u64,
    pub cfg_eg_xoff: u64,
    pub cfg_eg_xon: u64,
    pub cfg_eg_warn: u64,
    pub cfg_lossless: u8,
    pub cfg_mode: u8,
    pub enq_valid: bool,
    pub enq_oport: u64,
    pub enq_prio: u8,
    pub enq_iport: u64,
    pub enq_size: u64,
    pub deq_valid: Vec<bool>,
    pub deq_prio: Vec<u8>,
    pub deq_size: Vec<u64>,
    /// the sort engines' read port and writes, per port
    pub sre: Vec<bool>,
    pub srow: Vec<u64>,
    pub sidx: Vec<u64>,
    pub swr_en: Vec<bool>,
    pub swr_l: Vec<u64>,
    pub swr_i: Vec<u64>,
}

/// The per-port inputs of one cycle, borrowed ([`Egress::tick_lanes`]): as in [`EgressIn`].
#[derive(Debug, Clone, Copy)]
pub struct EgressLanes<'a> {
    pub deq_valid: &'a [bool],
    pub deq_prio: &'a [u8],
    pub deq_size: &'a [u64],
    pub sre: &'a [bool],
    pub srow: &'a [u64],
    pub sidx: &'a [u64],
    pub swr_en: &'a [bool],
    pub swr_l: &'a [u64],
    pub swr_i: &'a [u64],
}

/// One cycle's outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EgressOut {
    /// the priority whose thresholds the refresh reads in this cycle
    pub cfg_ra: u8,
    pub enq_accept: bool,
    pub deq_ready: Vec<bool>,
    /// per row
    pub rclr: Vec<bool>,
    pub rtrig: Vec<bool>,
    /// per port
    pub sval: Vec<u64>,
    /// per port, a bit a priority (the RTL's queue i*8+p is bit p of port i's)
    pub e_other: Vec<u8>,
}

/// A group's registers and occupancy RAMs.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Group {
    pub gs_q: u8,
    pub rc_q: u64,
    pub rdy_q: bool,
    pub scr_q: bool,
    pub cin_q: bool,
    // A -> B
    pub av1_q: bool,
    pub dv1_q: bool,
    /// both lanes taken, on one priority (compared in A)
    pub sm1_q: bool,
    pub s1_q: u8,
    pub ap1_q: u8,
    pub dp1_q: u8,
    /// `ap1_q` and `dp1_q` one-hot, registered for B's occupancy muxes
    pub aoh1_q: u8,
    pub doh1_q: u8,
    pub ai1_q: u64,
    pub au1_q: u64,
    pub du1_q: u64,
    // B -> C
    pub av2_q: bool,
    pub dv2_q: bool,
    pub ca2_q: bool,
    pub cd2_q: bool,
    pub cc2_q: bool,
    pub s2_q: u8,
    pub la2_q: u64,
    pub ld2_q: u64,
    pub ai2_q: u64,
    pub aoh2_q: u8,
    pub doh2_q: u8,
    pub occa2_q: u64,
    pub occd2_q: u64,
    pub du2_q: u64,
    pub delta2_q: u64,
    pub racc2_q: u64,
    pub rtrig2_q: u64,
    pub rinc2_q: u64,
    pub rclrc2_q: u64,
    pub rclre2_q: u64,
    // C -> D
    pub dv3_q: bool,
    pub s3_q: u8,
    pub la3_q: u64,
    pub ai3_q: u64,
    pub aoh3_q: u8,
    pub doh3_q: u8,
    pub acc3_q: bool,
    pub trig3_q: bool,
    pub inc3_q: bool,
    pub clrc3_q: bool,
    pub clre3_q: bool,
    pub new3_q: u64,
    pub mid3_q: u64,
    pub rohd3_q: u64,
    pub roha3_q: u64,
    pub gn3_q: u64,
    // D -> E
    pub acc4_q: bool,
    pub inc4_q: bool,
    pub dv4_q: bool,
    pub s4_q: u8,
    pub aoh4_q: u8,
    pub doh4_q: u8,
    pub la4_q: u64,
    pub ai4_q: u64,
    pub new4_q: u64,
    pub mid4_q: u64,
    pub gn4_q: u64,
    // E -> F -> G -> H
    pub f_l_q: u64,
    pub f_i_q: u64,
    pub g_l_q: u64,
    pub g_i_q: u64,
    pub h_l_q: u64,
    pub h_i_q: u64,
    /// `gen_prio[p].u_occ.mem[s]`
    pub occ: [[u64; 8]; 8],
}

/// A port's registers and its counter RAM.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Port {
    /// F's valid for this port (decoded from E's slot); the scrub's read, decoded a cycle ahead
    pub fv_q: bool,
    pub sn_q: bool,
    pub g_v_q: bool,
    pub h_v_q: bool,
    pub sp_q: u64,
    pub sc_v_q: bool,
    pub sc_w_q: bool,
    pub w0_q: u64,
    pub ww_q: bool,
    pub wh_q: bool,
    pub wa_q: u64,
    pub wd_q: u64,
    pub sv_ok_q: bool,
    pub sv_fw_q: bool,
    pub sv_exp_q: u64,
    pub sv_fwv_q: u64,
    pub sv_rd_q: bool,
    pub sv_ok2_q: bool,
    pub sv_cnt_q: u64,
    pub sv_fwv2_q: u64,
    pub sv_tag_q: u64,
    pub sv_exp2_q: u64,
    pub sval_q: u64,
    /// the engines' E write, registered beside E (`ew_v_q`, `ew_l_q`, `ew_i_q`)
    pub ew_v_q: bool,
    pub ew_l_q: u64,
    pub ew_i_q: u64,
    /// `gen_port[o].u_cnt.mem`, and its read registers `rd_q` (port 0, port 1)
    pub mem: Vec<u64>,
    pub rd_q: [u64; 2],
    /// Clock edges whose scrub cycle is still to be made ([`Egress::settle_port`]): sparse
    /// ([`super::top::Top::set_sparse`]), a port with nothing but its scrub under way is left
    /// until something reads it or its rows' generations move, and its scrub then caught up by
    /// arithmetic. The scrub's registers (`sn_q` to `wd_q`, `rd_q[0]`) and the RAM's words are
    /// those of this many edges ago; every other register is current. Saved with the state.
    #[serde(default)]
    pub lag: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Egress {
    pub p: EgressParams,
    pub grp: Vec<Group>,
    pub port: Vec<Port>,
    pub cntr_q: u8,
    pub lidr_q: [u64; 8],
    /// per row r = o * NLP + l
    pub gen_q: Vec<u64>,
    pub e_q: Vec<u128>,
    pub rclr4_q: Vec<bool>,
    pub eclr4_q: Vec<bool>,
    pub rtrig4_q: Vec<bool>,
    pub rclr5_q: Vec<bool>,
    pub rtrig5_q: Vec<bool>,
    pub rtrig6_q: Vec<bool>,
    /// per group and class
    pub epart_q: Vec<u128>,
    pub u_thr: ThrCopies,
    /// buffers reused from cycle to cycle (no state)
    buf: Scratch<Bufs>,
    /// this cycle's RAM writes (the unit's RAM in the order its `visit` lists them: the groups' occupancy RAMs, then the ports' counter RAMs, address,
    /// word): what the in-process lockstep compares with the RTL's write ports (no state)
    pub wlog: Scratch<Vec<(u32, u64, u128)>>,
    /// A deliberate bug for the lockstep's tests: the unit's RAM writes flip their word's lowest
    /// bit (the registers stay right; only the comparison of the RAMs can see it)
    #[serde(skip)]
    pub fault_ram_write: bool,
    /// A deliberate bug in one of the unit's rules ([`super::fault`]), set by
    /// [`super::top::Top::set_fault`]
    #[serde(skip)]
    pub fault: Option<Fault>,
    /// Clock a group's pipeline only while a lane or an increment is in it
    /// ([`super::top::Top::set_sparse`]): not state (a restored unit clocks every group)
    pub sparse: Scratch<bool>,
    /// Edges made by `Egress::quiet_edge` so far (not state: what a test shows happened)
    pub quiet_edges: Scratch<u64>,
    /// Of those, the edges made by `Egress::still_edge` (not state: what a test shows happened)
    pub still_edges: Scratch<u64>,
    /// The last edge was a quiet edge that left every port's scrub behind, and nothing has
    /// moved a port since (`Egress::still_edge`; not state)
    all_lag: Scratch<bool>,
    /// The thresholds' refresh words per priority, made once for the inputs that stay
    thr_recs: Scratch<[Option<ThrRec>; 8]>,
}

/// No lane in group `gr`'s stages A to E and its reset count saturated (the counters
/// initialised, the occupancies' scrub over): an edge without a lane taken and without an
/// increment of its ports in F to H changes nothing of it but its slot and its data registers,
/// which no write, row event or increment reads while the valid bits are clear.
fn quiet(gr: &Group, rc_sat: u64) -> bool {
    gr.rc_q == rc_sat
        && !(gr.av1_q
            || gr.dv1_q
            || gr.av2_q
            || gr.dv2_q
            || gr.acc3_q
            || gr.dv3_q
            || gr.acc4_q
            || gr.dv4_q
            || gr.scr_q
            || gr.cin_q)
}

/// An increment of one of `ports` in F to H after this edge's port updates: it reads the
/// group's F to H address registers, which move at the group's edge.
fn increments(ports: &[Port]) -> bool {
    ports.iter().any(|n| n.fv_q || n.g_v_q || n.h_v_q)
}

/// A dequeue lane or the enqueue lane is taken into group `g` at this edge (its slot's port's
/// lane valid, the group ready).
fn taken(np: usize, g: usize, gr: &Group, deq_valid: &[bool], inp: &EgressIn) -> bool {
    let o = g * 8 + usize::from(gr.gs_q);
    gr.rdy_q
        && ((o < np && deq_valid[o])
            || (inp.enq_valid
                && inp.enq_oport < np as u64
                && inp.enq_iport < np as u64
                && inp.enq_oport / 8 == g as u64
                && (inp.enq_oport & 7) as u8 == gr.gs_q))
}

/// No sort engine reads a port's counter or writes E at this edge (`sre`, `swr_en` of the `np`
/// ports all low).
fn no_engine_access(np: usize, lanes: &EgressLanes<'_>) -> bool {
    // (ORs of bytes, no early exit: a few vector instructions)
    let none = |v: &[bool]| !v.iter().fold(false, |a, &b| a | b);
    none(&lanes.sre[..np]) && none(&lanes.swr_en[..np])
}

/// The thresholds' refresh words of one priority and the inputs they were made from
/// ([`Egress::thr_refresh`]).
#[derive(Debug, Clone, Copy)]
struct ThrRec {
    key: [u64; 6],
    wa: u128,
    wd: u128,
    cntr: u8,
    lidr: [u64; 8],
}

/// The egress's buffers for one clock edge, kept so that a cycle allocates nothing.
#[derive(Debug, Clone, Default)]
struct Bufs {
    rclr4: Vec<bool>,
    eclr4: Vec<bool>,
    rtrig4: Vec<bool>,
    /// `Some(f)` when `epart_q` holds the partial ORs of `e_q` as it is now, made under fault
    /// `f`: E has not moved since they were computed, so the next edge loads the same values
    /// (`None`, the default, after a restore: computed at the next edge)
    epart_of: Option<Option<Fault>>,
}

/// The set bits of a word, lowest first.
pub(crate) struct Ones(pub(crate) u64);

impl Iterator for Ones {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let k = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(k)
    }
}

/// No increment in port `po`'s stages (F to H), no engine's read under way: at most its scrub
/// (a read, its check, a write-back) moves.
#[inline]
fn light(po: &Port) -> bool {
    !(po.fv_q || po.g_v_q || po.h_v_q || po.wh_q || po.sv_rd_q)
}

/// The field widths a light port's cycle uses ([`light_cycle`]), from the parameters once.
#[derive(Clone, Copy)]
struct Widths {
    cw: u32,
    tw: u32,
    pw: u32,
    lw: u32,
    caw: u32,
}

impl Widths {
    fn of(p: &EgressParams) -> Self {
        Widths {
            cw: p.cw,
            tw: p.tw(),
            pw: p.pw(),
            lw: p.lw(),
            caw: p.caw(),
        }
    }
}

/// A light port's cycle ([`light`]: at most its scrub under way, no increment, no engine's read;
/// `fv` and `sn` its next `fv_q` and `sn_q`), as [`Egress::tick_lanes`] makes it: the scrub's
/// stages, its read, its write-back of a stale word. `gen`: the port's rows' generations. Returns
/// the counter RAM's write, if one is made (address, word).
#[inline(always)]
fn light_cycle(
    w: &Widths,
    fault: Option<Fault>,
    fault_ram_write: bool,
    gen: &[u64],
    n: &mut Port,
    fv: bool,
    sn: bool,
) -> Option<(u64, u64)> {
    let Widths {
        cw,
        tw,
        pw,
        lw,
        caw,
    } = *w;
    let (sn_old, scv_old, scw_old, ww_old) = (n.sn_q, n.sc_v_q, n.sc_w_q, n.ww_q);
    let (sp, wa_old, wd_old, w0_old) = (n.sp_q, n.wa_q, n.wd_q, n.w0_q);
    n.sval_q = sval_next(fault, n);
    n.fv_q = fv;
    n.sn_q = sn;
    n.sc_v_q = sn_old;
    n.sc_w_q = scv_old;
    n.w0_q = n.rd_q[0];
    n.sp_q = if scw_old { trunc(sp + 1, caw) } else { sp };
    let w_gen = gen[trunc(sp >> pw, lw) as usize];
    let tag_ok = trunc(w0_old >> cw, tw) == w_gen;
    n.ww_q = pick(fault, Fault::ScrubOff, scw_old && !tag_ok, false);
    n.wa_q = sp;
    n.wd_q = w_gen << cw;
    if sn_old {
        n.rd_q[0] = n.mem[sp as usize];
    }
    ww_old.then(|| {
        let w = wd_old ^ u64::from(fault_ram_write);
        n.mem[wa_old as usize] = w;
        (wa_old, w)
    })
}

/// Port `po`'s scrub is between two rounds ([`Egress::scrub_between`]).
#[inline]
fn between(po: &Port) -> bool {
    !(po.sc_v_q || po.sc_w_q || po.ww_q) && po.wa_q == po.sp_q
}

/// Port `po`'s scrub `k` rounds on by arithmetic ([`Egress::scrub_jump`]); `gen`: the port's
/// rows' generations. Returns the words rewritten.
fn scrub_jump_port(
    w: &Widths,
    fault: Option<Fault>,
    fault_ram_write: bool,
    gen: &[u64],
    po: &mut Port,
    k: u64,
) -> u64 {
    if k == 0 {
        return 0;
    }
    let Widths {
        cw,
        tw,
        pw,
        lw,
        caw,
    } = *w;
    let na = 1u64 << caw;
    let flip = u64::from(fault_ram_write);
    let scrub_on = !matches!(fault, Some(Fault::ScrubOff));
    let gen = |a: u64| gen[trunc(a >> pw, lw) as usize];
    let sp = po.sp_q;
    let mut rewritten = 0;
    let mut last = 0;
    // (a word rewritten is fresh: after NA rounds every word is, and later rounds change
    // nothing)
    for j in 0..k.min(na) {
        let a = trunc(sp + j, caw);
        let w = po.mem[a as usize];
        last = w;
        let g = gen(a);
        if scrub_on && trunc(w >> cw, tw) != g {
            po.mem[a as usize] = (g << cw) ^ flip;
            rewritten += 1;
        }
    }
    if k > na {
        last = po.mem[trunc(sp + k - 1, caw) as usize];
    }
    po.sp_q = trunc(sp + k, caw);
    po.wa_q = po.sp_q;
    po.wd_q = gen(po.sp_q) << cw;
    po.rd_q[0] = last;
    po.w0_q = last;
    rewritten
}

/// `n` cycles of port `po`'s scrub as [`Egress::tick_lanes`] makes them for a light port
/// ([`light_cycle`]), the cycle `j` in the port's slot when `slot(j)`: with `rdy`, the slot comes
/// once in 8 cycles, and the cycles up to the edge of the first (at most 8) are clocked, then
/// the whole rounds from there by [`scrub_jump_port`], then the rest clocked; without, no read
/// starts, and the scrub settles in the first cycles. Exact for a port that stays light, with no
/// increment, no engine's read, its group's counters initialised and its rows' generations
/// `gen` unchanged over the `n` cycles.
///
/// A round is jumped only from the edge of a slot: a moment between two rounds
/// ([`between`]) elsewhere in the round repeats 8 cycles later only once the slots have set the
/// scrub's phase (not, say, just after the counters' initialisation, when a round starts late).
#[allow(clippy::too_many_arguments)]
fn scrub_run(
    w: &Widths,
    fault: Option<Fault>,
    fault_ram_write: bool,
    gen: &[u64],
    po: &mut Port,
    rdy: bool,
    slot: impl Fn(u64) -> bool,
    n: u64,
) {
    if !rdy {
        for _ in 0..n.min(8) {
            light_cycle(w, fault, fault_ram_write, gen, po, false, false);
        }
        return;
    }
    let mut j = 0;
    while j < n && !(po.sn_q && between(po)) {
        assert!(j < 9, "a light port's slot comes once in 8 cycles");
        light_cycle(w, fault, fault_ram_write, gen, po, false, slot(j));
        j += 1;
    }
    let q = (n - j) / 8;
    scrub_jump_port(w, fault, fault_ram_write, gen, po, q);
    j += 8 * q;
    while j < n {
        light_cycle(w, fault, fault_ram_write, gen, po, false, slot(j));
        j += 1;
    }
}

/// `sval_q`'s next value: the read's count if its tag is the row's generation, or the forwarded
/// write (from port `po`'s registers).
#[inline]
fn sval_next(fault: Option<Fault>, po: &Port) -> u64 {
    let tag_ok = po.sv_tag_q == po.sv_exp2_q;
    let tag_ok = pick(fault, Fault::SvalTagIgnored, tag_ok, po.sv_ok2_q || tag_ok);
    (if po.sv_ok2_q && tag_ok {
        po.sv_cnt_q
    } else {
        0
    }) | po.sv_fwv2_q
}

impl Egress {
    /// Every register and RAM word 0 (as Verilator starts a simulation).
    pub fn new(p: EgressParams) -> Self {
        let (ng, np, nr) = (p.ng(), p.np, p.nr());
        Egress {
            p,
            grp: vec![Group::default(); ng],
            port: vec![
                Port {
                    mem: vec![0; p.na()],
                    ..Port::default()
                };
                np
            ],
            cntr_q: 0,
            lidr_q: [0; 8],
            gen_q: vec![0; nr],
            e_q: vec![0; nr],
            rclr4_q: vec![false; nr],
            eclr4_q: vec![false; nr],
            rtrig4_q: vec![false; nr],
            rclr5_q: vec![false; nr],
            rtrig5_q: vec![false; nr],
            rtrig6_q: vec![false; nr],
            epart_q: vec![0; ng * p.nlp()],
            u_thr: ThrCopies::new(ng, p.taw(), p.tdw()),
            buf: Scratch::default(),
            wlog: Scratch::default(),
            fault_ram_write: false,
            fault: None,
            sparse: Scratch::default(),
            quiet_edges: Scratch::default(),
            still_edges: Scratch::default(),
            all_lag: Scratch::default(),
            thr_recs: Scratch::default(),
        }
    }

    /// The outputs of this cycle.
    pub fn outputs(&self) -> EgressOut {
        let mut out = EgressOut::default();
        self.outputs_into(&mut out);
        out
    }

    /// E as the block's D reads it this cycle, a word a priority (bit i port i's): the OR of the
    /// groups' partial ORs of the priority's class, 0 for a priority not counted.
    pub fn e_words(&self) -> [u128; 8] {
        let nlp = self.p.nlp();
        // (a class's E word: the OR of its groups' partial ORs)
        let eacc = |l: usize| {
            let (mut a, mut k) = (0, l);
            while k < self.epart_q.len() {
                a |= self.epart_q[k];
                k += nlp;
            }
            a
        };
        // (per priority, E's word of its class if the priority is counted: nlp is a power of two)
        std::array::from_fn(|q| {
            if self.cntr_q >> q & 1 == 1 {
                eacc(self.lidr_q[q] as usize & (nlp - 1))
            } else {
                0
            }
        })
    }

    /// The outputs of this cycle into `out` (its vectors reused): from registers only, no output
    /// depends on an input.
    pub fn outputs_into(&self, out: &mut EgressOut) {
        let p = self.p;
        let np = p.np;
        // (a ready group's slot is its one ready port)
        if out.deq_ready.len() == np {
            out.deq_ready.fill(false);
        } else {
            out.deq_ready.clear();
            out.deq_ready.resize(np, false);
        }
        for (g, gr) in self.grp.iter().enumerate() {
            if gr.rdy_q && gr.gs_q < 8 {
                if let Some(r) = out.deq_ready.get_mut(8 * g + usize::from(gr.gs_q)) {
                    *r = true;
                }
            }
        }
        out.enq_accept = self.grp.iter().any(|g| g.acc4_q);
        out.sval.clear();
        out.sval.extend(self.port.iter().map(|s| s.sval_q));
        let eq = self.e_words();
        if out.e_other.len() == np {
            out.e_other.fill(0);
        } else {
            out.e_other.clear();
            out.e_other.resize(np, 0);
        }
        // (bit i of a priority's word is port i's: each set bit put in its port's byte, E sparse)
        let ports = u128::MAX >> (128 - np);
        for (q, &e) in eq.iter().enumerate() {
            let mut m = e & ports;
            while m != 0 {
                out.e_other[m.trailing_zeros() as usize] |= 1 << q;
                m &= m - 1;
            }
        }
        for (g, gr) in self.grp.iter().enumerate() {
            if !gr.rdy_q {
                for eo in out.e_other.iter_mut().skip(8 * g).take(8) {
                    let b = *eo;
                    // (0 before the lanes are ready; a bit at a time under the fault)
                    *eo = (0..8).fold(0u8, |a, q| {
                        let e = b >> q & 1 == 1;
                        a | u8::from(pick(self.fault, Fault::EOtherBeforeReady, false, e)) << q
                    });
                }
            }
        }
        out.cfg_ra = self.u_thr.rf_q;
        out.rclr.clone_from(&self.rclr5_q);
        out.rtrig.clone_from(&self.rtrig6_q);
    }

    /// The clock edge.
    pub fn tick(&mut self, inp: &EgressIn) {
        let lanes = EgressLanes {
            deq_valid: &inp.deq_valid,
            deq_prio: &inp.deq_prio,
            deq_size: &inp.deq_size,
            sre: &inp.sre,
            srow: &inp.srow,
            sidx: &inp.sidx,
            swr_en: &inp.swr_en,
            swr_l: &inp.swr_l,
            swr_i: &inp.swr_i,
        };
        self.tick_lanes(inp, &lanes);
    }

    /// [`Egress::tick`] with the dequeue lanes and the sort engines' port given apart from `inp`
    /// (whose own are then not read): the block passes its inputs' and the engines' outputs
    /// without a copy.
    ///
    /// (Long: the egress unit's processes of `rtl/v3/capfc_egress.sv` in its order, slot, stages A
    /// to E, the counter RAMs and E, so that each register's next value reads beside the RTL's.)
    pub fn tick_lanes(&mut self, inp: &EgressIn, lanes: &EgressLanes<'_>) {
        if self.all_lag.0 && self.still_edge_ready(inp, lanes) {
            self.still_edge(inp, lanes);
            return;
        }
        self.all_lag.0 = false;
        if self.quiet_edge_ready(inp, lanes) {
            self.quiet_edge(inp, lanes);
            return;
        }
        let p = self.p;
        let (np, nlp, nr) = (p.np, p.nlp(), p.nr());
        let (ow, xw, cw, tw, pw, lw, caw) = (p.ow, p.xw(), p.cw, p.tw(), p.pw(), p.lw(), p.caw());
        let rst = inp.rst;
        // (as p.na(), p.rc_rdy(), p.rc_sat(), p.rcw(), from caw once)
        let na = 1u64 << caw;
        let rc_rdy = (na + 1).max(8);
        let (rc_sat, rcw) = (rc_rdy.max(12), caw + 2);
        self.wlog.0.clear();
        // (a group's row one-hots: 8 * NLP bits)
        let row_mask = u64::MAX >> (64 - 8 * nlp);
        // (the groups' registers before this edge that the ports and E read below, and the ones
        // the ports read after it: the groups are updated in place after the ports)
        let ng = self.grp.len();
        let mut cin_old = [false; 16];
        let mut rdy_d = [false; 16];
        let mut gs_d = [0u8; 16];
        for (g, gr) in self.grp.iter().enumerate() {
            cin_old[g] = gr.cin_q;
            rdy_d[g] = !rst && gr.rc_q >= rc_rdy - 1;
            gs_d[g] = if rst {
                (g & 7) as u8
            } else {
                (gr.gs_q + 1) & 7
            };
        }
        let fresh = |v: &mut Vec<bool>| {
            let mut v = std::mem::take(v);
            if v.len() == nr {
                // (a few vector stores, where a resize calls memset)
                v.fill(false);
            } else {
                v.clear();
                v.resize(nr, false);
            }
            v
        };
        let mut rclr4_d = fresh(&mut self.buf.0.rclr4);
        let mut eclr4_d = fresh(&mut self.buf.0.eclr4);
        let mut rtrig4_d = fresh(&mut self.buf.0.rtrig4);
        // (the generations move at the end of the edge, from the registers before it: gen_q
        // and the groups' gn4_q, saved here)
        // (ORs of bytes, no early exit: a few vector instructions)
        let rclr_any = self.rclr4_q.iter().fold(0u8, |a, &b| a | u8::from(b)) != 0;
        let eclr_any = self.eclr4_q.iter().fold(0u8, |a, &b| a | u8::from(b)) != 0;
        let mut gn4_old = [0u64; 16];
        for (g, gr) in self.grp.iter().enumerate() {
            gn4_old[g] = gr.gn4_q;
        }

        // per port, in place: its registers before this edge copied out (the counter RAM stays
        // where it is: its words are read, then written, in place below)
        if (rst || !self.sparse.0) && self.lagging() {
            self.settle();
        }
        let lazy = self.sparse.0 && !rst && self.fault.is_none() && !self.fault_ram_write;
        for o in 0..np {
            let g = o / 8;
            let gr = &self.grp[g];
            let fv = !rst && gr.acc4_q && gr.inc4_q && gr.s4_q == (o % 8) as u8;
            let sn = rdy_d[g] && gs_d[g] == ((o % 8 + 1) & 7) as u8;
            if lazy {
                // (sparse: a port with its scrub alone under way is left behind, or caught up
                // before anything else moves it)
                if !fv && !lanes.sre[o] && self.port_may_lag(o, rdy_d[g] && !gr.cin_q, rclr_any) {
                    self.port[o].lag += 1;
                    continue;
                }
            }
            if self.port[o].lag != 0 {
                self.settle_port(o);
            }
            let gr = &self.grp[g];
            let n = &mut self.port[o];
            if !rst && !gr.cin_q && !lanes.sre[o] && light(n) {
                // (at most the scrub under way, no increment, no engine's read: as below with
                // those stages' flags clear)
                let gen = &self.gen_q[o << lw..(o + 1) << lw];
                let widths = Widths {
                    cw,
                    tw,
                    pw,
                    lw,
                    caw,
                };
                if let Some((wa, w)) =
                    light_cycle(&widths, self.fault, self.fault_ram_write, gen, n, fv, sn)
                {
                    let k = self.grp.len() * 8 + o;
                    self.wlog.0.push((k as u32, wa, w.into()));
                }
                continue;
            }
            let po = &Port {
                mem: Vec::new(),
                ..*n
            };
            let mem = &mut n.mem;
            let g_v = po.fv_q;
            let sc_v = po.sn_q;
            n.fv_q = fv;
            n.sn_q = sn;
            // (the read enable is not gated by the reset)
            let re0 = g_v || sc_v;
            let ra0 = if g_v {
                (gr.f_l_q << pw) | gr.f_i_q
            } else {
                po.sp_q
            };
            n.g_v_q = !rst && g_v;
            n.sc_v_q = !rst && sc_v;
            n.w0_q = po.rd_q[0];
            n.h_v_q = !rst && po.g_v_q;
            n.sc_w_q = !rst && po.sc_v_q;
            n.sp_q = if rst {
                0
            } else if po.sc_w_q || gr.cin_q {
                trunc(po.sp_q + 1, caw)
            } else {
                po.sp_q
            };
            let wl = if po.h_v_q { gr.h_l_q } else { po.sp_q >> pw };
            let w_gen = self.gen_q[(o << lw) | trunc(wl, lw) as usize];
            let tag_ok = trunc(po.w0_q >> cw, tw) == w_gen;
            let w_cnt = trunc(po.w0_q, cw);
            let counts = pick(self.fault, Fault::IncTagIgnored, tag_ok, tag_ok || po.h_v_q);
            let new_cnt = if !counts {
                1
            } else if w_cnt == (1 << cw) - 1 {
                pick(
                    self.fault,
                    Fault::CounterWraps,
                    w_cnt,
                    w_cnt * u64::from(!po.h_v_q),
                )
            } else {
                w_cnt + 1
            };
            let scrub = po.sc_w_q && !tag_ok;
            n.ww_q = gr.cin_q || po.h_v_q || pick(self.fault, Fault::ScrubOff, scrub, false);
            n.wh_q = po.h_v_q;
            n.wa_q = if po.h_v_q {
                (gr.h_l_q << pw) | gr.h_i_q
            } else {
                po.sp_q
            };
            n.wd_q = (w_gen << cw) | if po.h_v_q { new_cnt } else { 0 };
            let a_l = trunc(lanes.srow[o], lw);
            let a_i = trunc(lanes.sidx[o], pw);
            let sre = lanes.sre[o];
            let a_set = po.wh_q && po.wa_q == (a_l << pw | a_i);
            let a_set = pick(self.fault, Fault::SvalNotForwarded, a_set, a_set && !sre);
            n.sv_ok_q = !rst && if sre { gr.rdy_q } else { po.sv_ok_q };
            n.sv_exp_q = if !sre {
                po.sv_exp_q
            } else if self.rclr4_q[o * nlp + a_l as usize] {
                gr.gn4_q
            } else {
                self.gen_q[(o << lw) | a_l as usize]
            };
            n.sv_fw_q = !rst && if sre { a_set } else { po.sv_fw_q };
            n.sv_fwv_q = if sre { trunc(po.wd_q, cw) } else { po.sv_fwv_q };
            n.sv_rd_q = !rst && sre;
            if po.sv_rd_q {
                n.sv_cnt_q = trunc(po.rd_q[1], cw);
                n.sv_tag_q = trunc(po.rd_q[1] >> cw, tw);
                n.sv_exp2_q = po.sv_exp_q;
                n.sv_ok2_q = po.sv_ok_q && !po.sv_fw_q;
                n.sv_fwv2_q = if po.sv_fw_q { po.sv_fwv_q } else { 0 };
            }
            if rst {
                n.sv_ok2_q = false;
                n.sv_fwv2_q = 0;
            }
            n.sval_q = sval_next(self.fault, po);
            // the counter RAM: reads before the write
            if re0 {
                n.rd_q[0] = mem[ra0 as usize];
            }
            if sre {
                n.rd_q[1] = mem[(a_l << pw | a_i) as usize];
            }
            if po.ww_q {
                mem[po.wa_q as usize] = po.wd_q ^ u64::from(self.fault_ram_write);
                let k = self.grp.len() * 8 + o;
                self.wlog
                    .0
                    .push((k as u32, po.wa_q, mem[po.wa_q as usize].into()));
            }
        }

        let (rclr_t, eclr_t) = (&self.rclr4_q, &self.eclr4_q);
        // each group in place, its stages from the last to the first (each reads the registers
        // of the stage before it, not yet written), B's RAM reads first (the words before this
        // edge's writes), the slot and reset count last
        let fault = self.fault;
        let sparse = self.sparse.0 && !rst;
        for (g, gr) in self.grp.iter_mut().enumerate() {
            if sparse
                && quiet(gr, rc_sat)
                && !increments(&self.port[8 * g..(8 * g + 8).min(np)])
                && !taken(np, g, gr, lanes.deq_valid, inp)
            {
                // (no lane in any stage nor taken now, no increment of its ports in F to H, the
                // reset count saturated: the edge writes no RAM word, sets no row event and
                // starts no increment, and the stages' valid bits stay clear; only the slot
                // moves, and the data registers keep what they hold)
                gr.gs_q = (gr.gs_q + 1) & 7;
                continue;
            }
            // B's reads of the port's row (the muxes' selects one-hot: 0 before the first
            // cycle, and the words then 0)
            let s1 = usize::from(gr.s1_q & 7);
            let sel = |oh: u8| Ones(oh.into()).fold(0, |w, q| w | gr.occ[q][s1]);
            let (occa, occd) = (sel(gr.aoh1_q), sel(gr.doh1_q));
            // E
            let s4 = usize::from(gr.s4_q & 7);
            // (the priorities written: every one while scrubbing, else the lanes' one-hots)
            let wam = if gr.acc4_q { gr.aoh4_q } else { 0 };
            let wdm = if gr.dv4_q { gr.doh4_q } else { 0 };
            for q in Ones(if gr.scr_q { 0xff } else { u64::from(wam | wdm) }) {
                gr.occ[q][s4] = if gr.scr_q {
                    0
                } else if wam >> q & 1 == 1 {
                    gr.new4_q
                } else {
                    gr.mid4_q
                };
                self.wlog
                    .0
                    .push(((g * 8 + q) as u32, s4 as u64, gr.occ[q][s4].into()));
            }
            gr.h_l_q = gr.g_l_q;
            gr.h_i_q = gr.g_i_q;
            gr.g_l_q = gr.f_l_q;
            gr.g_i_q = gr.f_i_q;
            gr.f_l_q = gr.la4_q;
            gr.f_i_q = gr.ai4_q;
            // D
            // (the row one-hots' bits k = s * NLP + l of the group's rows inside the block; the
            // vectors are all clear before)
            if !rst {
                let base = g * 8 * nlp;
                let set = |v: &mut [bool], m: u64| {
                    for k in Ones(m & row_mask) {
                        if base + k < nr {
                            v[base + k] = true;
                        }
                    }
                };
                if gr.clrc3_q {
                    set(&mut rclr4_d, gr.rohd3_q);
                }
                if gr.clre3_q {
                    set(&mut eclr4_d, gr.rohd3_q);
                }
                if gr.acc3_q && gr.trig3_q {
                    set(&mut rtrig4_d, gr.roha3_q);
                }
            }
            gr.acc4_q = !rst && gr.acc3_q;
            gr.inc4_q = gr.inc3_q;
            gr.dv4_q = !rst && gr.dv3_q;
            gr.new4_q = gr.new3_q;
            gr.gn4_q = trunc(gr.gn3_q + 1, tw);
            gr.mid4_q = gr.mid3_q;
            gr.aoh4_q = gr.aoh3_q;
            gr.doh4_q = gr.doh3_q;
            gr.s4_q = gr.s3_q;
            gr.la4_q = gr.la3_q;
            gr.ai4_q = gr.ai3_q;
            // C
            let oa = gr.occa2_q as i64;
            let od = gr.occd2_q as i64;
            let neg = |x: u64| x >> (xw - 1) & 1 == 1;
            let f = fault;
            let racc = signed(gr.racc2_q, xw);
            gr.acc3_q = !rst
                && gr.av2_q
                && !neg(gr.racc2_q)
                && pick(
                    f,
                    Fault::EgMaxLoose,
                    le(f, Fault::EgMaxStrict, oa, racc),
                    oa <= racc + 1,
                );
            gr.trig3_q = gr.ca2_q
                && (neg(gr.rtrig2_q) || gt(f, Fault::XoffEGe, oa, signed(gr.rtrig2_q, xw)));
            let over_warn =
                neg(gr.rinc2_q) || ge(f, Fault::WarnOffByOne, oa, signed(gr.rinc2_q, xw));
            gr.inc3_q = pick(
                f,
                Fault::IncUncounted,
                gr.cc2_q && over_warn,
                over_warn && (gr.cc2_q || gr.av2_q),
            );
            gr.clrc3_q = !rst
                && gr.dv2_q
                && gr.cd2_q
                && le(f, Fault::ClearBelowWarn, od, signed(gr.rclrc2_q, xw));
            gr.clre3_q = !rst
                && gr.dv2_q
                && gr.cd2_q
                && le(f, Fault::XonOffByOne, od, signed(gr.rclre2_q, xw));
            gr.new3_q = trunc(gr.occa2_q + gr.delta2_q, ow);
            gr.mid3_q = trunc(gr.occd2_q.wrapping_sub(gr.du2_q), ow);
            gr.aoh3_q = gr.aoh2_q;
            let rw = 8 * nlp as u32;
            let oh = |s: u8, l: u64| {
                let k = (u64::from(s) << lw) | trunc(l, lw);
                if k < u64::from(rw) {
                    1u64 << k
                } else {
                    0
                }
            };
            gr.rohd3_q = oh(gr.s2_q, gr.ld2_q);
            let mut gsel = 0;
            for k in Ones(gr.rohd3_q & row_mask) {
                if let Some(gn) = self.gen_q.get(g * 8 * nlp + k) {
                    gsel |= gn;
                }
            }
            gr.gn3_q = gsel;
            gr.roha3_q = oh(gr.s2_q, gr.la2_q);
            gr.doh3_q = if gr.dv2_q { gr.doh2_q } else { 0 };
            gr.dv3_q = !rst && gr.dv2_q;
            gr.s3_q = gr.s2_q;
            gr.la3_q = gr.la2_q;
            gr.ai3_q = gr.ai2_q;
            // B
            gr.occa2_q = occa;
            gr.occd2_q = occd;
            gr.aoh2_q = gr.aoh1_q;
            gr.doh2_q = gr.doh1_q;
            let tha = self.u_thr.read_a(g, usize::from(gr.ap1_q));
            let thd = self.u_thr.read_d(g, usize::from(gr.dp1_q));
            let f = |w: u128, lo: u32, n: u32| (w >> lo) as u64 & ((1u64 << n) - 1);
            gr.cc2_q = tha & 1 == 1;
            gr.ca2_q = tha >> 1 & 1 == 1;
            gr.la2_q = f(tha, 2, lw);
            let warna = f(tha, lw + 2, ow);
            let xoff = f(tha, ow + lw + 2, ow);
            let max = f(tha, 2 * ow + lw + 2, ow);
            gr.cd2_q = thd & 1 == 1;
            gr.ld2_q = f(thd, 1, lw);
            let xon = f(thd, lw + 1, ow);
            let warnd = f(thd, ow + lw + 1, ow);
            let dsame = if gr.sm1_q { gr.du1_q } else { 0 };
            gr.delta2_q = trunc(gr.au1_q.wrapping_sub(dsame), ow);
            let au1 = gr.au1_q;
            let dsame_k = pick(fault, Fault::EgEnqueueFirst, dsame, 0);
            let add3m = |a: u64| trunc(a.wrapping_add(dsame_k).wrapping_sub(au1), xw);
            gr.racc2_q = add3m(max);
            gr.rtrig2_q = add3m(xoff);
            gr.rinc2_q = add3m(warna);
            gr.rclrc2_q = trunc(warnd + gr.du1_q, xw);
            gr.rclre2_q = trunc(xon + gr.du1_q, xw);
            gr.av2_q = !rst && gr.av1_q;
            gr.dv2_q = !rst && gr.dv1_q;
            gr.s2_q = gr.s1_q;
            gr.ai2_q = gr.ai1_q;
            gr.du2_q = gr.du1_q;
            // A
            let o = g * 8 + usize::from(gr.gs_q);
            let (dv, dp, dsz) = if o < np {
                (lanes.deq_valid[o], lanes.deq_prio[o] & 7, lanes.deq_size[o])
            } else {
                (false, 0, 0)
            };
            gr.dv1_q = !rst && dv && gr.rdy_q;
            gr.dp1_q = dp;
            gr.du1_q = trunc(units(trunc(dsz, p.sw), p.cell_log2), ow);
            let slot = inp.enq_oport < np as u64
                && inp.enq_iport < np as u64
                && inp.enq_oport / 8 == g as u64
                && (inp.enq_oport & 7) as u8 == gr.gs_q;
            let take = inp.enq_valid && slot && gr.rdy_q;
            gr.av1_q = !rst && take;
            // (the lane's fields loaded only by the group it is taken into: one copy a group)
            if take {
                gr.ap1_q = inp.enq_prio & 7;
                gr.ai1_q = trunc(inp.enq_iport, pw);
                gr.au1_q = trunc(units(trunc(inp.enq_size, p.sw), p.cell_log2), ow);
            }
            gr.s1_q = gr.gs_q;
            gr.sm1_q = gr.av1_q && gr.dv1_q && inp.enq_prio & 7 == dp;
            gr.aoh1_q = 1 << (gr.ap1_q & 7);
            gr.doh1_q = 1 << (gr.dp1_q & 7);
            // the slot, the cycles since reset and their enables
            let rc = gr.rc_q;
            gr.rc_q = if rst {
                0
            } else if rc == rc_sat {
                rc
            } else {
                trunc(rc + 1, rcw)
            };
            gr.rdy_q = !rst && rc >= rc_rdy - 1;
            gr.scr_q = !rst && (3..11).contains(&rc);
            gr.cin_q = rst || rc < na - 1;
            gr.gs_q = if rst {
                (g & 7) as u8
            } else {
                (gr.gs_q + 1) & 7
            };
        }

        // E's partial ORs per group and class, from E's register (the registered writes reach
        // them through E, a cycle later)
        // (into the register at once: nothing below reads its old value)
        if self.buf.0.epart_of == Some(self.fault) {
            // (E the same as at the last edge, whose ORs epart_q holds: they are reloaded)
        } else if self.fault == Some(Fault::EOwnPort) {
            for g in 0..ng {
                for l in 0..nlp {
                    let mut e = 0;
                    for s in 0..8 {
                        let o = g * 8 + s;
                        if o < np {
                            let r = o * nlp + l;
                            let er = self.e_q[r];
                            e |= pick(self.fault, Fault::EOwnPort, er & !(1u128 << o), er);
                        }
                    }
                    self.epart_q[g * nlp + l] = e;
                }
            }
        } else {
            // (a port's own bit left out of its rows; each class's OR in a register: an array
            // on the stack, written a half at a time and read whole, stalls every step)
            for (g, part) in self.epart_q.chunks_exact_mut(nlp).enumerate() {
                for (l, e) in part.iter_mut().enumerate() {
                    let mut a = 0;
                    for o in 8 * g..(8 * g + 8).min(np) {
                        a |= self.e_q[o * nlp + l] & !(1u128 << o);
                    }
                    *e = a;
                }
            }
        }
        // (E moves below only by a clear, a registered write or its initialisation)
        // E takes last cycle's registered writes; a clear wins (in place: nothing below reads
        // E's old value)
        // (a row's registered write is its port's: one a row at most)
        // (E moves only by a clear, a registered write or its initialisation: noted for the
        // partial ORs)
        let mut e_moved = eclr_any;
        if eclr_any {
            for (e, &c) in self.e_q.iter_mut().zip(eclr_t) {
                if c {
                    *e = 0;
                }
            }
        }
        for (o, po) in self.port.iter().enumerate() {
            if po.ew_v_q {
                e_moved = true;
                let i = trunc(po.ew_i_q, pw);
                let r = o * nlp + trunc(po.ew_l_q, lw) as usize;
                let ewb = if i < np as u64 { 1u128 << i } else { 0 };
                if eclr_t[r] {
                    self.e_q[r] = pick(self.fault, Fault::EClearLoses, 0, ewb);
                } else {
                    self.e_q[r] |= ewb;
                }
            }
        }
        // this cycle's writes, registered unless their row clears now or cleared last cycle
        let fault = self.fault;
        let (swr_l, swr_i, swr_en) = (&lanes.swr_l[..np], &lanes.swr_i[..np], &lanes.swr_en[..np]);
        for (o, n) in self.port.iter_mut().enumerate() {
            let l = trunc(swr_l[o], lw);
            let r = o * nlp + l as usize;
            n.ew_l_q = l;
            n.ew_i_q = trunc(swr_i[o], pw);
            let en = swr_en[o];
            // (a write not enabled is not registered whatever its row does: the rows' events
            // read only for an enabled one, or under a fault, which counts where it differs)
            n.ew_v_q = (en || fault.is_some()) && {
                let (now, late) = (eclr_t[r] || rclr_t[r], self.rclr5_q[r]);
                let now = pick(fault, Fault::EWriteNotCancelled, now, now && !en);
                let late = pick(fault, Fault::EWriteNotCancelledLate, late, late && !en);
                en && !cin_old[o / 8] && !now && !late
            };
        }
        // E is cleared while its row's group initialises its counters (cin_q: from the cycle
        // after a reset, NA cycles), not by the reset itself: no net from the reset to E's
        // NR x NP flip-flops, which would cross the die and limit the clock
        for (g, &c) in cin_old.iter().enumerate().take(ng) {
            if c {
                e_moved = true;
                let rows = g * 8 * nlp..((g + 1) * 8 * nlp).min(nr);
                self.e_q[rows].fill(0);
            }
        }
        // (under the fault on E's own port the ORs are made every edge: it counts each cycle
        // it changes one)
        self.buf.0.epart_of = if e_moved || self.fault == Some(Fault::EOwnPort) {
            None
        } else {
            Some(self.fault)
        };

        // the thresholds' refresh
        self.thr_refresh(inp);

        // the generations: a row's moves on with its clear (from the registers before the edge)
        if rst {
            self.gen_q.fill(0);
        } else if rclr_any {
            let top = (1 << tw) - 1;
            for (r, gq) in self.gen_q.iter_mut().enumerate() {
                if self.rclr4_q[r] {
                    let gn = pick(
                        self.fault,
                        Fault::GenNotAdvanced,
                        gn4_old[r >> (lw + 3)],
                        *gq,
                    );
                    *gq = pick(
                        self.fault,
                        Fault::GenNoWrap,
                        gn,
                        if *gq == top { top } else { gn },
                    );
                }
            }
        }

        // the row events' later registers (from this cycle's, before they move)
        // (buffers rotated: rclr5 <- rclr4 <- rclr4_d, rtrig6 <- rtrig5 <- rtrig4 <- rtrig4_d)
        std::mem::swap(&mut self.rclr5_q, &mut self.rclr4_q);
        std::mem::swap(&mut self.rclr4_q, &mut rclr4_d);
        std::mem::swap(&mut self.eclr4_q, &mut eclr4_d);
        std::mem::swap(&mut self.rtrig6_q, &mut self.rtrig5_q);
        std::mem::swap(&mut self.rtrig5_q, &mut self.rtrig4_q);
        std::mem::swap(&mut self.rtrig4_q, &mut rtrig4_d);
        if rst {
            for v in [
                &mut self.rclr4_q,
                &mut self.rclr5_q,
                &mut self.eclr4_q,
                &mut self.rtrig4_q,
                &mut self.rtrig5_q,
                &mut self.rtrig6_q,
            ] {
                v.fill(false);
            }
        }
        self.buf.0.rclr4 = rclr4_d;
        self.buf.0.eclr4 = eclr4_d;
        self.buf.0.rtrig4 = rtrig4_d;
    }

    /// The thresholds' refresh at this edge: the words of the priority `rf_q` names into the
    /// copies' chain, and the counted priorities' registers (`cntr_q`, `lidr_q`).
    pub fn thr_refresh(&mut self, inp: &EgressIn) {
        let rf = self.u_thr.rf();
        let key = [
            inp.cfg_lossless.into(),
            inp.cfg_eg_max,
            inp.cfg_eg_xoff,
            inp.cfg_eg_warn,
            inp.cfg_eg_xon,
            inp.cfg_mode.into(),
        ];
        // (the words of the last edge this priority was refreshed at, if its inputs are the same)
        if let Some(r) = self.thr_recs.0[rf].filter(|r| r.key == key) {
            self.u_thr.tick(inp.rst, r.wa, r.wd);
            self.cntr_q = r.cntr;
            self.lidr_q = r.lidr;
            return;
        }
        let p = self.p;
        let (ow, lw) = (p.ow, p.lw());
        // (`capfc_pkg::lidx` of each priority, its rank among the lossless priorities: those
        // below it, counted up)
        let mut lid = [0u64; 8];
        for q in 1..8 {
            lid[q] = lid[q - 1] + u64::from(inp.cfg_lossless >> (q - 1) & 1);
        }
        let cnt: [bool; 8] =
            std::array::from_fn(|q| inp.cfg_lossless >> q & 1 == 1 && lid[q] < u64::from(p.nl));
        let rf = self.u_thr.rf();
        let w = |x: u64| u128::from(trunc(x, ow));
        let wa_rec = (w(inp.cfg_eg_max) << (2 * ow + lw + 2))
            | (w(inp.cfg_eg_xoff) << (ow + lw + 2))
            | (w(inp.cfg_eg_warn) << (lw + 2))
            | (u128::from(trunc(lid[rf], lw)) << 2)
            | (u128::from(cnt[rf] && inp.cfg_mode & 3 != 0) << 1)
            | u128::from(cnt[rf]);
        let wd_rec = (w(inp.cfg_eg_warn) << (ow + lw + 1))
            | (w(inp.cfg_eg_xon) << (lw + 1))
            | (u128::from(trunc(lid[rf], lw)) << 1)
            | u128::from(cnt[rf]);
        self.u_thr.tick(inp.rst, wa_rec, wd_rec);
        self.cntr_q = (0..8).fold(0u8, |a, q| a | (u8::from(cnt[q]) << q));
        for (r, l) in self.lidr_q.iter_mut().zip(&lid) {
            *r = trunc(*l, lw);
        }
        self.thr_recs.0[rf] = Some(ThrRec {
            key,
            wa: wa_rec,
            wd: wd_rec,
            cntr: self.cntr_q,
            lidr: self.lidr_q,
        });
    }

    /// Sparse, an edge at which nothing of the unit but its slots, its ports' scrubs and the
    /// thresholds' refresh can move: every group quiet and taking no lane, every port light with
    /// no E write registered, the engines neither reading nor writing, no row event in any
    /// stage, E as its partial ORs were made from, no fault. Every other register keeps its
    /// value or is loaded with the one it holds (the row events' stages, E's partial ORs,
    /// the generations), and the E write registers load the engines' (disabled) fields.
    fn quiet_edge_ready(&self, inp: &EgressIn, lanes: &EgressLanes<'_>) -> bool {
        let p = self.p;
        let (np, rc_sat) = (p.np, p.rc_sat());
        // (the cheap per-group and per-port tests first: in a busy cycle they fail before the
        // scan of the row events)
        !inp.rst
            && self
                .grp
                .iter()
                .enumerate()
                .all(|(g, gr)| quiet(gr, rc_sat) && !taken(np, g, gr, lanes.deq_valid, inp))
            && self.port.iter().all(|po| light(po) && !po.ew_v_q)
            && no_engine_access(np, lanes)
            && self.still_sparse()
    }

    /// Sparse with no fault, E as its partial ORs were made from, no row event in any stage:
    /// the unit-wide conditions of [`Egress::quiet_edge_ready`] and [`Egress::idle_jump_ready`].
    fn still_sparse(&self) -> bool {
        self.sparse.0
            && self.fault.is_none()
            && !self.fault_ram_write
            && self.buf.0.epart_of == Some(None)
            && self.no_row_event()
    }

    /// No row event in any stage (`rclr4_q` to `rtrig6_q`).
    fn no_row_event(&self) -> bool {
        [
            &self.rclr4_q,
            &self.eclr4_q,
            &self.rtrig4_q,
            &self.rclr5_q,
            &self.rtrig5_q,
            &self.rtrig6_q,
        ]
        .iter()
        .all(|v| !v.iter().fold(false, |a, &b| a | b))
    }

    /// Sparse, with no lane taken and the engines idle, whether the next edges make nothing but
    /// turn the slots, leave the ports' scrubs behind and move the thresholds' refresh (the
    /// block's idle cycles by arithmetic, [`super::top::Top::jump_idle`]): every group quiet,
    /// every port light, with no E write registered and its `sval_q` settled, no row event, E
    /// as its partial ORs were made from, no fault.
    pub fn idle_jump_ready(&self) -> bool {
        let rc_sat = self.p.rc_sat();
        // (the row events' scan last, as in `quiet_edge_ready`)
        self.grp.iter().all(|gr| quiet(gr, rc_sat))
            && (0..self.port.len())
                .all(|o| !self.port[o].ew_v_q && self.port_may_lag(o, true, false))
            && self.still_sparse()
    }

    /// `n` edges under [`Egress::idle_jump_ready`] but the thresholds' refresh (the caller's,
    /// an edge at a time: [`Egress::thr_refresh`]): the slots turned, the ports' scrubs left
    /// `n` edges further behind, the E write registers loaded with the engines' fields
    /// (`swr_l`, `swr_i`), which idle engines hold.
    pub fn idle_jump(&mut self, n: u64, swr_l: &[u64], swr_i: &[u64]) {
        let (pw, lw) = (self.p.pw(), self.p.lw());
        for gr in self.grp.iter_mut() {
            gr.gs_q = ((u64::from(gr.gs_q) + n) & 7) as u8;
        }
        for (o, po) in self.port.iter_mut().enumerate() {
            po.lag += n;
            po.ew_l_q = trunc(swr_l[o], lw);
            po.ew_i_q = trunc(swr_i[o], pw);
        }
    }

    /// The edge [`Egress::quiet_edge_ready`] allows, as [`Egress::tick_lanes`] makes it: the
    /// slots turn, each port's scrub is left behind ([`Port::lag`]) or made, the E write
    /// registers load, the thresholds' refresh moves.
    fn quiet_edge(&mut self, inp: &EgressIn, lanes: &EgressLanes<'_>) {
        let p = self.p;
        let (np, pw, lw) = (p.np, p.pw(), p.lw());
        self.wlog.0.clear();
        self.quiet_edges.0 += 1;
        let w = Widths::of(&p);
        let mut all_lag = true;
        for o in 0..np {
            let g = o / 8;
            // (the group's slot before this edge; ready, its reset count saturated)
            let sn = (self.grp[g].gs_q + 1) & 7 == ((o % 8 + 1) & 7) as u8;
            if self.port_may_lag(o, true, false) {
                self.port[o].lag += 1;
            } else {
                all_lag = false;
                if self.port[o].lag != 0 {
                    self.settle_port(o);
                }
                let gen = &self.gen_q[o << lw..(o + 1) << lw];
                let ram_write = light_cycle(&w, None, false, gen, &mut self.port[o], false, sn);
                if let Some((wa, wd)) = ram_write {
                    let k = self.grp.len() * 8 + o;
                    self.wlog.0.push((k as u32, wa, wd.into()));
                }
            }
            let n = &mut self.port[o];
            n.ew_l_q = trunc(lanes.swr_l[o], lw);
            n.ew_i_q = trunc(lanes.swr_i[o], pw);
            n.ew_v_q = false;
        }
        for gr in self.grp.iter_mut() {
            gr.gs_q = (gr.gs_q + 1) & 7;
        }
        self.thr_refresh(inp);
        self.all_lag.0 = all_lag;
    }

    /// After a quiet edge that left every port behind ([`Egress::quiet_edge`]), whether the
    /// next is such an edge again: no reset, no lane taken at this edge, no engine reading or
    /// writing, sparse with no fault. What else [`Egress::quiet_edge_ready`] asks holds still: a
    /// quiet edge moves only the slots, the E write registers (`ew_v_q` low) and the refresh,
    /// none of which it reads, and a port left behind keeps the registers that let it lag.
    fn still_edge_ready(&self, inp: &EgressIn, lanes: &EgressLanes<'_>) -> bool {
        let np = self.p.np;
        !inp.rst
            && self.sparse.0
            && self.fault.is_none()
            && !self.fault_ram_write
            && no_engine_access(np, lanes)
            && !self
                .grp
                .iter()
                .enumerate()
                .any(|(g, gr)| taken(np, g, gr, lanes.deq_valid, inp))
    }

    /// The quiet edge [`Egress::still_edge_ready`] allows, as [`Egress::quiet_edge`] makes it
    /// with every port left behind: the slots turn, every port's lag grows by one, the E write
    /// registers load, the thresholds' refresh moves.
    fn still_edge(&mut self, inp: &EgressIn, lanes: &EgressLanes<'_>) {
        let (pw, lw) = (self.p.pw(), self.p.lw());
        self.wlog.0.clear();
        self.quiet_edges.0 += 1;
        self.still_edges.0 += 1;
        for (n, (&l, &i)) in self
            .port
            .iter_mut()
            .zip(lanes.swr_l.iter().zip(lanes.swr_i))
        {
            n.lag += 1;
            n.ew_l_q = trunc(l, lw);
            n.ew_i_q = trunc(i, pw);
        }
        for gr in self.grp.iter_mut() {
            gr.gs_q = (gr.gs_q + 1) & 7;
        }
        self.thr_refresh(inp);
    }

    /// Nothing of the unit's own is in flight (a condition of the block's idle advance,
    /// [`super::top::Top::advance_idle`]): the reset count saturated (the counters initialised,
    /// the occupancies' scrub over), no lane in any stage, no row event, no increment of a counter
    /// (F to H, nor the mark of its write, `wh_q`, which an engine's read compares with), no read
    /// by an engine, no E write registered.
    pub fn idle_ready(&self) -> bool {
        let sat = self.p.rc_sat();
        self.grp.iter().all(|g| {
            g.rc_q == sat
                && !(g.cin_q
                    || g.av1_q
                    || g.dv1_q
                    || g.av2_q
                    || g.dv2_q
                    || g.dv3_q
                    || g.acc3_q
                    || g.clrc3_q
                    || g.clre3_q
                    || g.acc4_q
                    || g.dv4_q)
        }) && self
            .port
            .iter()
            .all(|o| !(o.fv_q || o.g_v_q || o.h_v_q || o.wh_q || o.sv_rd_q || o.ew_v_q))
            && self.no_row_event()
    }

    /// Port `o`'s scrub is between two rounds: its last read's word written back if stale, the
    /// next read not yet made (it may be issued in this cycle, `sn_q`: it reads the word at the
    /// pointer at this cycle's edge); `sc_v_q`, `sc_w_q` and `ww_q` clear and `wa_q` at the
    /// pointer (the cycle after a word's write decision is not such a moment). Of the port as
    /// it is kept: [`Egress::settle_port`] first.
    pub fn scrub_between(&self, o: usize) -> bool {
        between(&self.port[o])
    }

    /// Port `o`'s scrub `k` rounds on (each 8 cycles: a read of the word at the pointer, its
    /// write-back with the row's generation and a count of 0 if its tag is stale, the pointer
    /// moved on), done by arithmetic: the stale words of the `k` words from the pointer rewritten,
    /// the pointer and the write port's address moved by `k`, the read registers holding the
    /// last word read, as it was when read. Exact only from a moment [`Egress::scrub_between`]
    /// holds for the port, with the unit idle ([`Egress::idle_ready`]) and the other registers
    /// periodic: the block's idle advance checks that. Returns the words rewritten.
    pub fn scrub_jump(&mut self, o: usize, k: u64) -> u64 {
        self.all_lag.0 = false;
        let (w, fault, flip) = (Widths::of(&self.p), self.fault, self.fault_ram_write);
        let gen = &self.gen_q[o << w.lw..(o + 1) << w.lw];
        scrub_jump_port(&w, fault, flip, gen, &mut self.port[o], k)
    }

    /// Whether [`Egress::scrub_jump_any`] can move port `o`'s scrub on now.
    pub fn scrub_jump_any_ready(&self, o: usize) -> bool {
        let gr = &self.grp[o / 8];
        light(&self.port[o]) && !gr.acc4_q && !gr.cin_q
    }

    /// Whether port `o`'s next cycle may be left to its [`Port::lag`] (sparse, no fault; the
    /// caller knows no increment starts and no engine reads in it): the port light, its group's
    /// counters initialised and its slot ready, its rows' generations not moving at this edge, and `sval_q` already what a
    /// light cycle loads (the one scrub register read every cycle, by the sort).
    #[inline]
    fn may_lag(&self, o: usize, rclr_any: bool) -> bool {
        self.sparse.0 && self.fault.is_none() && !self.fault_ram_write && {
            let gr = &self.grp[o / 8];
            self.port_may_lag(o, gr.rc_q >= self.p.rc_rdy() - 1 && !gr.cin_q, rclr_any)
        }
    }

    /// [`Egress::may_lag`] but the unit's conditions (sparse, no fault) and the group's (`ready`:
    /// its counters initialised, its slot ready).
    #[inline(always)]
    fn port_may_lag(&self, o: usize, ready: bool, rclr_any: bool) -> bool {
        let po = &self.port[o];
        let nlp = self.p.nlp();
        ready
            && light(po)
            && po.sval_q == sval_next(None, po)
            && !(rclr_any && self.rclr4_q[o * nlp..(o + 1) * nlp].contains(&true))
    }

    /// Port `o`'s scrub `k` rounds (`8 k` idle cycles) on, from any moment of its round: the
    /// cycles up to its next moment between two rounds ([`Egress::scrub_between`], at most 3)
    /// and, from there, those that complete the `8 k` as [`Egress::tick_lanes`] makes them for a
    /// light port (`light_cycle`, the slot turning once a cycle), the rounds between by
    /// [`Egress::scrub_jump`]; sparse, added to its [`Port::lag`] instead. Exact under the
    /// conditions of [`Egress::scrub_jump`], which the block's idle advance checks; `false`,
    /// nothing changed, if the port is not light, its group's E stage accepts or its group
    /// initialises its counters (none of which an idle periodic state has).
    pub fn scrub_jump_any(&mut self, o: usize, k: u64) -> bool {
        if k == 0 || !self.scrub_jump_any_ready(o) {
            return false;
        }
        if self.may_lag(o, true) {
            self.port[o].lag += 8 * k;
            return true;
        }
        self.settle_port(o);
        // (as tick_lanes: the slot's readiness from the reset count, saturated here)
        let gr = &self.grp[o / 8];
        let (gs, rdy) = (u64::from(gr.gs_q), gr.rc_q >= self.p.rc_rdy() - 1);
        let (w, fault, flip) = (Widths::of(&self.p), self.fault, self.fault_ram_write);
        let gen = &self.gen_q[o << w.lw..(o + 1) << w.lw];
        let slot = |j: u64| (gs + j) & 7 == (o & 7) as u64;
        scrub_run(&w, fault, flip, gen, &mut self.port[o], rdy, slot, 8 * k);
        true
    }

    /// Port `o`'s scrub brought up to date: the cycles of its [`Port::lag`] made, each as
    /// a light port's cycle of [`Egress::tick_lanes`] would have made it at its edge (the slot then `lag` cycles behind the
    /// group's), the whole rounds among them by arithmetic.
    pub fn settle_port(&mut self, o: usize) {
        self.all_lag.0 = false;
        let n = std::mem::take(&mut self.port[o].lag);
        if n == 0 {
            return;
        }
        let gs0 = (u64::from(self.grp[o / 8].gs_q) + 8 - n % 8) & 7;
        let w = Widths::of(&self.p);
        let gen = &self.gen_q[o << w.lw..(o + 1) << w.lw];
        let slot = |j: u64| (gs0 + j) & 7 == (o & 7) as u64;
        scrub_run(&w, None, false, gen, &mut self.port[o], true, slot, n);
    }

    /// Every port's scrub brought up to date ([`Egress::settle_port`]).
    pub fn settle(&mut self) {
        for o in 0..self.port.len() {
            self.settle_port(o);
        }
    }

    /// Some port's scrub is behind ([`Port::lag`]).
    pub fn lagging(&self) -> bool {
        self.port.iter().any(|po| po.lag != 0)
    }

    /// Every register and RAM word under its RTL name (relative to the unit's instance).
    pub fn regs(&self) -> Regs {
        let mut s = RegStrings::default();
        self.visit(&mut s);
        s.0
    }

    /// Every register and RAM word, in the order of [`Egress::regs`], into `s`.
    ///
    /// (Long: one line a register, in the RTL's declaration order.)
    pub fn visit<S: RegSink + ?Sized>(&self, s: &mut S) {
        let p = self.p;
        let (ow, xw, cw, tw, pw, lw) = (
            p.ow as usize,
            p.xw() as usize,
            p.cw as usize,
            p.tw() as usize,
            p.pw() as usize,
            p.lw() as usize,
        );
        let (caw, dw, nlp) = (p.caw() as usize, p.dw() as usize, p.nlp());
        let (grp, port) = (&self.grp, &self.port);
        cat_flags!(
            s, grp, rdy_q, scr_q, cin_q, av1_q, dv1_q, sm1_q, av2_q, dv2_q, ca2_q, cd2_q, cc2_q,
            dv3_q, acc3_q, trig3_q, inc3_q, clrc3_q, clre3_q, acc4_q, inc4_q, dv4_q
        );
        cat_flags!(
            s, port, fv_q, sn_q, g_v_q, h_v_q, sc_v_q, sc_w_q, ww_q, wh_q, sv_ok_q, sv_fw_q,
            sv_rd_q, sv_ok2_q, ew_v_q
        );
        for (n, v) in [
            ("rclr4_q", &self.rclr4_q),
            ("eclr4_q", &self.eclr4_q),
            ("rtrig4_q", &self.rtrig4_q),
            ("rclr5_q", &self.rclr5_q),
            ("rtrig5_q", &self.rtrig5_q),
            ("rtrig6_q", &self.rtrig6_q),
        ] {
            s.cat(format_args!("{n}"), v.len(), 1, |r| v[r].into());
        }
        s.val(format_args!("cntr_q"), self.cntr_q.into(), 8);
        s.cat(format_args!("sval_q"), port.len(), cw, |o| port[o].sval_q);
        for q in 0..8 {
            s.val(format_args!("lidr_q[{q}]"), self.lidr_q[q].into(), lw);
        }
        for (g, gr) in self.grp.iter().enumerate() {
            let mut reg = |name: &str, v: u64, w: usize| {
                s.val(format_args!("{name}[{g}]"), v.into(), w);
            };
            reg("gs_q", gr.gs_q.into(), 3);
            reg("rc_q", gr.rc_q, p.rcw() as usize);
            reg("s1_q", gr.s1_q.into(), 3);
            reg("ap1_q", gr.ap1_q.into(), 3);
            reg("dp1_q", gr.dp1_q.into(), 3);
            reg("aoh1_q", gr.aoh1_q.into(), 8);
            reg("doh1_q", gr.doh1_q.into(), 8);
            reg("ai1_q", gr.ai1_q, pw);
            reg("au1_q", gr.au1_q, ow);
            reg("du1_q", gr.du1_q, ow);
            reg("s2_q", gr.s2_q.into(), 3);
            reg("la2_q", gr.la2_q, lw);
            reg("ld2_q", gr.ld2_q, lw);
            reg("ai2_q", gr.ai2_q, pw);
            reg("aoh2_q", gr.aoh2_q.into(), 8);
            reg("doh2_q", gr.doh2_q.into(), 8);
            reg("occa2_q", gr.occa2_q, ow);
            reg("occd2_q", gr.occd2_q, ow);
            reg("du2_q", gr.du2_q, ow);
            reg("delta2_q", gr.delta2_q, ow);
            reg("racc2_q", gr.racc2_q, xw);
            reg("rtrig2_q", gr.rtrig2_q, xw);
            reg("rinc2_q", gr.rinc2_q, xw);
            reg("rclrc2_q", gr.rclrc2_q, xw);
            reg("rclre2_q", gr.rclre2_q, xw);
            reg("s3_q", gr.s3_q.into(), 3);
            reg("la3_q", gr.la3_q, lw);
            reg("ai3_q", gr.ai3_q, pw);
            reg("aoh3_q", gr.aoh3_q.into(), 8);
            reg("doh3_q", gr.doh3_q.into(), 8);
            reg("new3_q", gr.new3_q, ow);
            reg("mid3_q", gr.mid3_q, ow);
            reg("rohd3_q", gr.rohd3_q, 8 * nlp);
            reg("roha3_q", gr.roha3_q, 8 * nlp);
            reg("gn3_q", gr.gn3_q, tw);
            reg("s4_q", gr.s4_q.into(), 3);
            reg("aoh4_q", gr.aoh4_q.into(), 8);
            reg("doh4_q", gr.doh4_q.into(), 8);
            reg("la4_q", gr.la4_q, lw);
            reg("ai4_q", gr.ai4_q, pw);
            reg("new4_q", gr.new4_q, ow);
            reg("mid4_q", gr.mid4_q, ow);
            reg("gn4_q", gr.gn4_q, tw);
            reg("f_l_q", gr.f_l_q, lw);
            reg("f_i_q", gr.f_i_q, pw);
            reg("g_l_q", gr.g_l_q, lw);
            reg("g_i_q", gr.g_i_q, pw);
            reg("h_l_q", gr.h_l_q, lw);
            reg("h_i_q", gr.h_i_q, pw);
            for q in 0..8 {
                s.ram(
                    format_args!("gen_grp[{g}].gen_prio[{q}].u_occ.mem"),
                    &gr.occ[q],
                    ow,
                );
            }
        }
        for (o, po) in self.port.iter().enumerate() {
            let mut reg = |name: &str, v: u64, w: usize| {
                s.val(format_args!("{name}[{o}]"), v.into(), w);
            };
            reg("sp_q", po.sp_q, caw);
            reg("w0_q", po.w0_q, dw);
            reg("wa_q", po.wa_q, caw);
            reg("wd_q", po.wd_q, dw);
            reg("sv_exp_q", po.sv_exp_q, tw);
            reg("sv_fwv_q", po.sv_fwv_q, cw);
            reg("sv_cnt_q", po.sv_cnt_q, cw);
            reg("sv_fwv2_q", po.sv_fwv2_q, cw);
            reg("sv_tag_q", po.sv_tag_q, tw);
            reg("sv_exp2_q", po.sv_exp2_q, tw);
            reg("ew_l_q", po.ew_l_q, lw);
            reg("ew_i_q", po.ew_i_q, pw);
            s.ram(format_args!("gen_port[{o}].u_cnt.mem"), &po.mem, dw);
            s.cat(format_args!("gen_port[{o}].u_cnt.rd_q"), 2, dw, |k| {
                po.rd_q[k]
            });
        }
        for r in 0..p.nr() {
            s.val(format_args!("gen_q[{r}]"), self.gen_q[r].into(), tw);
            s.val(format_args!("e_q[{r}]"), self.e_q[r], p.np);
        }
        for (k, e) in self.epart_q.iter().enumerate() {
            s.val(format_args!("epart_q[{k}]"), *e, p.np);
        }
        self.u_thr.visit("u_thr.", s);
    }
}
