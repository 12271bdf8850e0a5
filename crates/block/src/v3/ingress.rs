//! `capfc_ingress` of micro-architecture v3 (`rtl/v3/capfc_ingress.sv`): ingress occupancy and I,
//! the arrival lanes shared in time by groups of eight ports, a five-stage pipeline per group.
//!
//! Register for register (names as in the RTL; `docs/microarchitecture.md` has the design):
//! - slot `gs_q[g]` (port g*8+s served when it is s; reset to g % 8), the cycles since reset
//!   `rc_q[g]` with the lanes' ready `rdy_q` and the scrub's enable `scr_q` registered beside it;
//! - stage A (`*1_q`): the slot's lanes; B (`*2_q`): the port's row of the eight occupancy LUT
//!   RAMs, the thresholds of the lanes' priorities, the size difference; C (`*3_q`): the two
//!   occupancies, the thresholds moved by the sizes; D (`*4_q`): the compares' results and the
//!   queues they name one-hot; E: the RAM writes, I (`xoff_q`) and `arr_accept`;
//! - the occupancy RAMs `gen_grp[g].gen_prio[p].u_occ.mem[s]` (word s: port g*8+s) and the
//!   thresholds' copies ([`ThrCopies`], instance `u_thr`).
//!
//! Reset (synchronous): the valid bits, `xoff_q`, the stage-D one-hots and the slots; the data
//! registers and the RAMs keep their contents (the scrub writes every word in cycles 4 to 11).

use super::egress::Ones;
use super::fault::{gt, le, pick, pick_with, Fault};
use super::thr_copies::ThrCopies;
use super::{signed, trunc, units, RegSink, RegStrings, Regs, Scratch};

/// The unit's parameters (the RTL's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IngressParams {
    pub np: usize,
    pub sw: u32,
    pub ow: u32,
    pub cell_log2: u32,
}

impl IngressParams {
    /// Groups of eight ports.
    pub fn ng(&self) -> usize {
        self.np.div_ceil(8)
    }
    /// The lanes are ready from this many cycles after a reset.
    pub fn rc_rdy(&self) -> u64 {
        (7 + self.ng() as u64).max(8)
    }
    pub fn rc_sat(&self) -> u64 {
        self.rc_rdy().max(12)
    }
    fn xw(&self) -> u32 {
        self.ow + 2
    }
    fn taw(&self) -> u32 {
        2 * self.ow + 1
    }
    /// The port-number width of `dep_port`.
    pub fn pw(&self) -> u32 {
        super::port_width(self.np)
    }
}

/// One cycle's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IngressIn {
    pub rst: bool,
    /// the thresholds of priority `cfg_ra` (an output: the refresh's priority)
    pub cfg_ing_max: u64,
    pub cfg_ing_xoff: u64,
    pub cfg_ing_xon: u64,
    pub cfg_lossless: u8,
    pub arr_valid: Vec<bool>,
    pub arr_prio: Vec<u8>,
    pub arr_size: Vec<u64>,
    pub dep_valid: bool,
    pub dep_port: u64,
    pub dep_prio: u8,
    pub dep_size: u64,
}

/// One cycle's outputs (combinational on the registers and the inputs).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IngressOut {
    /// the priority whose thresholds the refresh reads in this cycle
    pub cfg_ra: u8,
    /// per port, its slot's ready: an arrival of port i is taken when valid and `arr_ready[i]`,
    /// the departure lane (no ready of its own) when valid and `arr_ready[dep_port]`
    pub arr_ready: Vec<bool>,
    pub arr_accept: Vec<bool>,
}

/// A group's pipeline registers.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Group {
    pub gs_q: u8,
    pub rc_q: u8,
    pub rdy_q: bool,
    pub scr_q: bool,
    // A -> B
    pub av_q: bool,
    pub dv_q: bool,
    /// both lanes taken, on one priority (compared in A)
    pub sm1_q: bool,
    pub s1_q: u8,
    pub ap1_q: u8,
    pub dp1_q: u8,
    pub au1_q: u64,
    pub du1_q: u64,
    // B -> C
    pub av2_q: bool,
    pub dv2_q: bool,
    pub ll2_q: bool,
    pub s2_q: u8,
    pub ap2_q: u8,
    pub dp2_q: u8,
    pub row2_q: [u64; 8],
    pub apv2_q: u8,
    pub dpv2_q: u8,
    pub du2_q: u64,
    pub delta2_q: u64,
    pub k2_q: u64,
    pub max2_q: u64,
    pub xoff2_q: u64,
    pub xon2_q: u64,
    // C -> D
    pub av3_q: bool,
    pub dv3_q: bool,
    pub ll3_q: bool,
    pub s3_q: u8,
    pub ap3_q: u8,
    pub dp3_q: u8,
    pub occa3_q: u64,
    pub occd3_q: u64,
    pub du3_q: u64,
    pub delta3_q: u64,
    pub racc3_q: u64,
    pub rover3_q: u64,
    pub rxon3_q: u64,
    // D -> E
    pub acc4_q: bool,
    pub s4_q: u8,
    pub wa4_q: u8,
    pub wd4_q: u8,
    pub set4_q: u8,
    pub clr4_q: u8,
    pub soh4_q: u8,
    pub new4_q: u64,
    pub mid4_q: u64,
    /// `gen_prio[p].u_occ.mem[s]`
    pub occ: [[u64; 8]; 8],
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ingress {
    pub p: IngressParams,
    pub grp: Vec<Group>,
    /// `xoff_q`: I, bit p of port i at `[i]`
    pub xoff_q: Vec<u8>,
    pub u_thr: ThrCopies,
    /// this cycle's RAM writes (the unit's RAM in the order its `visit` lists them, address,
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
    /// Clock a group's pipeline only while a lane is in it ([`super::top::Top::set_sparse`]):
    /// not state (a restored unit clocks every group)
    pub sparse: Scratch<bool>,
}

/// No lane in group `gr`'s stages and its reset count saturated (the scrub over, the lanes
/// ready): an edge without a lane taken changes nothing of it but its slot and its data
/// registers, which no write and no change of I reads while the valid bits are clear.
fn quiet(gr: &Group, rc_sat: u64) -> bool {
    u64::from(gr.rc_q) == rc_sat
        && !(gr.av_q || gr.dv_q || gr.av2_q || gr.dv2_q || gr.av3_q || gr.dv3_q || gr.acc4_q)
        && gr.wd4_q == 0
}

/// An arrival or the departure lane is taken into group `g` at this edge (its slot's port's lane
/// valid, the group ready).
fn taken(np: usize, g: usize, gr: &Group, arr_valid: &[bool], inp: &IngressIn) -> bool {
    let i = g * 8 + usize::from(gr.gs_q);
    let port = inp.dep_port;
    gr.rdy_q
        && ((i < np && arr_valid[i])
            || (inp.dep_valid
                && port < np as u64
                && port / 8 == g as u64
                && (port & 7) as u8 == gr.gs_q))
}

impl Ingress {
    /// Every register and RAM word 0 (as Verilator starts a simulation).
    pub fn new(p: IngressParams) -> Self {
        let ng = p.ng();
        Ingress {
            p,
            grp: vec![Group::default(); ng],
            xoff_q: vec![0; p.np],
            wlog: Scratch::default(),
            fault_ram_write: false,
            fault: None,
            sparse: Scratch::default(),
            u_thr: ThrCopies::new(ng, p.taw(), p.ow),
        }
    }

    /// `i_state`: I of queue (i, p) at bit p of element i.
    pub fn i_state(&self) -> &[u8] {
        &self.xoff_q
    }

    /// The outputs of this cycle.
    pub fn outputs(&self) -> IngressOut {
        let mut out = IngressOut::default();
        self.outputs_into(&mut out);
        out
    }

    /// The outputs of this cycle into `out` (its vectors reused): from registers only, no output
    /// depends on an input.
    pub fn outputs_into(&self, out: &mut IngressOut) {
        let np = self.p.np;
        for v in [&mut out.arr_ready, &mut out.arr_accept] {
            if v.len() == np {
                v.fill(false);
            } else {
                v.clear();
                v.resize(np, false);
            }
        }
        // (a ready group's slot is its one ready port; an accept is set at the ports of the
        // slot's one-hot)
        for (g, gr) in self.grp.iter().enumerate() {
            if gr.rdy_q && gr.gs_q < 8 {
                if let Some(r) = out.arr_ready.get_mut(8 * g + usize::from(gr.gs_q)) {
                    *r = true;
                }
            }
            if gr.acc4_q {
                for s in Ones(gr.soh4_q.into()) {
                    if let Some(a) = out.arr_accept.get_mut(8 * g + s) {
                        *a = true;
                    }
                }
            }
        }
        out.cfg_ra = self.u_thr.rf_q;
    }

    /// The clock edge. Each group's registers are updated in place, the pipeline's stages from
    /// the last to the first (each stage reads the registers of the stage before it, which a
    /// stage later in this order has not yet written), stage B's RAM row read first (the words
    /// before this edge's writes), the slot and reset count last: no copy of the registers.
    pub fn tick(&mut self, inp: &IngressIn) {
        self.tick_lanes(inp, (&inp.arr_valid, &inp.arr_prio, &inp.arr_size));
    }

    /// [`Ingress::tick`] with the arrival lanes (valid, priority, size per port) given apart from
    /// `inp` (whose own are then not read): the block passes its inputs' without a copy.
    ///
    /// (Long: the ingress unit's processes of `rtl/v3/capfc_ingress.sv` in its order, slot and
    /// stages, so that each register's next value reads beside the RTL's.)
    pub fn tick_lanes(&mut self, inp: &IngressIn, arr: (&[bool], &[u8], &[u64])) {
        let (arr_valid, arr_prio, arr_size) = arr;
        let p = self.p;
        let (ow, xw) = (p.ow, p.xw());
        let rst = inp.rst;
        let (rc_sat, rc_rdy) = (p.rc_sat(), p.rc_rdy());
        let f = self.fault;
        let flip = u64::from(self.fault_ram_write);
        let Ingress {
            grp,
            xoff_q,
            u_thr,
            wlog,
            ..
        } = self;
        wlog.0.clear();
        let sparse = self.sparse.0 && !rst;
        for (g, gr) in grp.iter_mut().enumerate() {
            if sparse && quiet(gr, rc_sat) && !taken(p.np, g, gr, arr_valid, inp) {
                // (no lane in any stage nor taken now, the reset count saturated: the edge
                // writes no RAM word and no bit of I, and the stages' valid bits stay clear; only
                // the slot moves, and the data registers keep what they hold)
                gr.gs_q = (gr.gs_q + 1) & 7;
                continue;
            }
            // stage B's read of the port's row: the words before this edge's writes
            let s1 = usize::from(gr.s1_q & 7);
            let row: [u64; 8] = std::array::from_fn(|q| gr.occ[q][s1]);
            // stage E: the RAM writes (not gated by rst), I
            let s4 = usize::from(gr.s4_q & 7);
            // (the priorities written: every one while scrubbing, else the lanes' one-hots)
            let wam = if gr.acc4_q { gr.wa4_q } else { 0 };
            for q in Ones(if gr.scr_q {
                0xff
            } else {
                u64::from(wam | gr.wd4_q)
            }) {
                let w = if gr.scr_q {
                    0
                } else if wam >> q & 1 == 1 {
                    gr.new4_q
                } else {
                    gr.mid4_q
                } ^ flip;
                gr.occ[q][s4] = w;
                wlog.0.push(((g * 8 + q) as u32, s4 as u64, w.into()));
            }
            if gr.soh4_q != 0 && (gr.acc4_q || gr.wd4_q != 0) {
                // (a priority set if the arrival sets it, else cleared if the departure clears it)
                let set = wam & gr.set4_q;
                let clr = gr.wd4_q & gr.clr4_q & !set;
                for s in Ones(gr.soh4_q.into()) {
                    if let Some(x) = xoff_q.get_mut(g * 8 + s) {
                        *x = (*x | set) & !clr;
                    }
                }
            }
            // stage D (from C's registers)
            let occa = gr.occa3_q as i64;
            let racc = signed(gr.racc3_q, xw);
            let acc = gr.av3_q
                && gr.racc3_q >> (xw - 1) & 1 == 0
                && pick(
                    f,
                    Fault::IngMaxLoose,
                    le(f, Fault::IngMaxStrict, occa, racc),
                    occa <= racc + 1,
                );
            let over = gr.rover3_q >> (xw - 1) & 1 == 1
                || gt(f, Fault::IngXoffGe, occa, signed(gr.rover3_q, xw));
            let xon = le(
                f,
                Fault::IngXonLt,
                gr.occd3_q as i64,
                signed(gr.rxon3_q, xw),
            );
            gr.new4_q = trunc(gr.occa3_q + gr.delta3_q, ow);
            gr.mid4_q = trunc(gr.occd3_q.wrapping_sub(gr.du3_q), ow);
            gr.wa4_q = if rst { 0 } else { 1 << (gr.ap3_q & 7) };
            gr.wd4_q = if rst || !gr.dv3_q {
                0
            } else {
                1 << (gr.dp3_q & 7)
            };
            let set = pick(f, Fault::IngLossyPause, gr.ll3_q && over, over);
            gr.set4_q = if !rst && set { 0xff } else { 0 };
            gr.clr4_q = if !rst && xon { 0xff } else { 0 };
            gr.soh4_q = 1 << (gr.s3_q & 7);
            gr.acc4_q = !rst && acc;
            gr.s4_q = gr.s3_q;
            // stage C (from B's)
            let oa = Ones(gr.apv2_q.into()).fold(0, |a, q| a | gr.row2_q[q]);
            let od = Ones(gr.dpv2_q.into()).fold(0, |a, q| a | gr.row2_q[q]);
            gr.occa3_q = oa;
            gr.occd3_q = od;
            gr.racc3_q = trunc(gr.max2_q.wrapping_add(gr.k2_q), xw);
            gr.rover3_q = trunc(gr.xoff2_q.wrapping_add(gr.k2_q), xw);
            gr.rxon3_q = trunc(gr.xon2_q + gr.du2_q, xw);
            gr.av3_q = !rst && gr.av2_q;
            gr.dv3_q = !rst && gr.dv2_q;
            gr.ll3_q = gr.ll2_q;
            gr.s3_q = gr.s2_q;
            gr.ap3_q = gr.ap2_q;
            gr.dp3_q = gr.dp2_q;
            gr.du3_q = gr.du2_q;
            gr.delta3_q = gr.delta2_q;
            // stage B (from A's, the row read above)
            gr.row2_q = row;
            gr.apv2_q = 1 << (gr.ap1_q & 7);
            gr.dpv2_q = 1 << (gr.dp1_q & 7);
            let tha = u_thr.read_a(g, usize::from(gr.ap1_q));
            gr.ll2_q = tha & 1 == 1;
            gr.xoff2_q = (tha >> 1) as u64 & ((1u64 << ow) - 1);
            gr.max2_q = (tha >> (ow + 1)) as u64 & ((1u64 << ow) - 1);
            gr.xon2_q = u_thr.read_d(g, usize::from(gr.dp1_q)) as u64;
            let dsame = if gr.sm1_q { gr.du1_q } else { 0 };
            gr.delta2_q = trunc(gr.au1_q.wrapping_sub(dsame), ow);
            let dsame_k = pick(f, Fault::IngArrivalFirst, dsame, 0);
            gr.k2_q = trunc(dsame_k.wrapping_sub(gr.au1_q), xw);
            gr.av2_q = !rst && gr.av_q;
            gr.dv2_q = !rst && gr.dv_q;
            gr.s2_q = gr.s1_q;
            gr.ap2_q = gr.ap1_q;
            gr.dp2_q = gr.dp1_q;
            gr.du2_q = gr.du1_q;
            // stage A (the slot's lanes)
            let i = g * 8 + usize::from(gr.gs_q);
            let (av, ap, asz) = if i < p.np {
                (arr_valid[i], arr_prio[i] & 7, arr_size[i])
            } else {
                (false, 0, 0)
            };
            gr.av_q = !rst && av && gr.rdy_q;
            gr.ap1_q = ap;
            gr.au1_q = trunc(units(trunc(asz, p.sw), p.cell_log2), ow);
            let port = inp.dep_port;
            let slot = port < p.np as u64 && port / 8 == g as u64 && (port & 7) as u8 == gr.gs_q;
            let take = inp.dep_valid && slot && gr.rdy_q;
            gr.dv_q = !rst && take;
            // (the lane's fields loaded only by the group it is taken into: one copy a group)
            if take {
                gr.dp1_q = inp.dep_prio & 7;
                gr.du1_q = trunc(units(trunc(inp.dep_size, p.sw), p.cell_log2), ow);
            }
            gr.s1_q = gr.gs_q;
            gr.sm1_q = gr.av_q && gr.dv_q && ap == inp.dep_prio & 7;
            // the cycles since reset, the enables from rc_q, the slot
            let rc = u64::from(gr.rc_q);
            gr.rc_q = if rst {
                0
            } else if rc == rc_sat {
                gr.rc_q
            } else {
                trunc(rc + 1, 5) as u8
            };
            gr.rdy_q = !rst && rc >= rc_rdy - 1;
            gr.scr_q = !rst && (3..11).contains(&rc);
            gr.gs_q = if rst {
                (g % 8) as u8
            } else {
                (gr.gs_q + 1) & 7
            };
        }
        if rst
            && !pick_with(f, Fault::ResetKeepsI, false, || {
                xoff_q.iter().any(|&x| x != 0)
            })
        {
            xoff_q.fill(0);
        }
        // the thresholds' refresh: the words of the priority rf_q names
        self.thr_refresh(inp);
    }

    /// The thresholds' refresh at this edge: the words of the priority `rf_q` names into the
    /// copies' chain.
    pub fn thr_refresh(&mut self, inp: &IngressIn) {
        let ow = self.p.ow;
        let rf = self.u_thr.rf();
        let wa_rec = (u128::from(trunc(inp.cfg_ing_max, ow)) << (ow + 1))
            | (u128::from(trunc(inp.cfg_ing_xoff, ow)) << 1)
            | u128::from(inp.cfg_lossless >> rf & 1);
        let wd_rec = u128::from(trunc(inp.cfg_ing_xon, ow));
        self.u_thr.tick(inp.rst, wa_rec, wd_rec);
    }

    /// Nothing of the unit's own is in flight (a condition of the block's idle advance,
    /// [`super::top::Top::advance_idle`]): the reset count saturated (the scrub over), no lane in
    /// any stage, no RAM write or change of I due.
    pub fn idle_ready(&self) -> bool {
        let sat = self.p.rc_sat();
        self.grp.iter().all(|g| quiet(g, sat))
    }

    /// Every register and RAM word under its RTL name (relative to the unit's instance).
    pub fn regs(&self) -> Regs {
        let mut s = RegStrings::default();
        self.visit(&mut s);
        s.0
    }

    /// Every register and RAM word, in the order of [`Ingress::regs`], into `s`.
    pub fn visit<S: RegSink + ?Sized>(&self, s: &mut S) {
        let (ow, xw) = (self.p.ow as usize, self.p.xw() as usize);
        let (xoff, grp) = (&self.xoff_q, &self.grp);
        s.cat(format_args!("xoff_q"), xoff.len(), 8, |i| xoff[i].into());
        cat_flags!(
            s, grp, rdy_q, scr_q, av_q, dv_q, sm1_q, av2_q, dv2_q, ll2_q, av3_q, dv3_q, ll3_q,
            acc4_q
        );
        for (g, gr) in self.grp.iter().enumerate() {
            let mut reg = |name: &str, v: u64, w: usize| {
                s.val(format_args!("{name}[{g}]"), v.into(), w);
            };
            reg("gs_q", gr.gs_q.into(), 3);
            reg("rc_q", gr.rc_q.into(), 5);
            reg("s1_q", gr.s1_q.into(), 3);
            reg("ap1_q", gr.ap1_q.into(), 3);
            reg("dp1_q", gr.dp1_q.into(), 3);
            reg("au1_q", gr.au1_q, ow);
            reg("du1_q", gr.du1_q, ow);
            reg("s2_q", gr.s2_q.into(), 3);
            reg("ap2_q", gr.ap2_q.into(), 3);
            reg("dp2_q", gr.dp2_q.into(), 3);
            reg("apv2_q", gr.apv2_q.into(), 8);
            reg("dpv2_q", gr.dpv2_q.into(), 8);
            reg("du2_q", gr.du2_q, ow);
            reg("delta2_q", gr.delta2_q, ow);
            reg("k2_q", gr.k2_q, xw);
            reg("max2_q", gr.max2_q, ow);
            reg("xoff2_q", gr.xoff2_q, ow);
            reg("xon2_q", gr.xon2_q, ow);
            reg("s3_q", gr.s3_q.into(), 3);
            reg("ap3_q", gr.ap3_q.into(), 3);
            reg("dp3_q", gr.dp3_q.into(), 3);
            reg("occa3_q", gr.occa3_q, ow);
            reg("occd3_q", gr.occd3_q, ow);
            reg("du3_q", gr.du3_q, ow);
            reg("delta3_q", gr.delta3_q, ow);
            reg("racc3_q", gr.racc3_q, xw);
            reg("rover3_q", gr.rover3_q, xw);
            reg("rxon3_q", gr.rxon3_q, xw);
            reg("s4_q", gr.s4_q.into(), 3);
            reg("wa4_q", gr.wa4_q.into(), 8);
            reg("wd4_q", gr.wd4_q.into(), 8);
            reg("set4_q", gr.set4_q.into(), 8);
            reg("clr4_q", gr.clr4_q.into(), 8);
            reg("soh4_q", gr.soh4_q.into(), 8);
            reg("new4_q", gr.new4_q, ow);
            reg("mid4_q", gr.mid4_q, ow);
            s.cat(format_args!("row2_q[{g}]"), 8, ow, |q| gr.row2_q[q]);
            for q in 0..8 {
                s.ram(
                    format_args!("gen_grp[{g}].gen_prio[{q}].u_occ.mem"),
                    &gr.occ[q],
                    ow,
                );
            }
        }
        self.u_thr.visit("u_thr.", s);
    }
}
