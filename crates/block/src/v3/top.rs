//! The v3 block as assembled in `rtl/v3/capfc_top_oc.sv`: the configuration registers
//! ([`Cfg`], instance `u_cfg`: v2's, the thresholds in LUT RAM), the v3 ingress, egress and sort engines, D registered (`d_q`)
//! and v2's PFC generator (`u_pfc`: `sent_q`, `timer_q`), register for register.

use super::cfg::Cfg;
use super::egress::{Egress, EgressIn, EgressLanes, EgressOut, EgressParams};
use super::fault::{pick, Fault as V3Fault};
use super::ingress::{Ingress, IngressIn, IngressOut, IngressParams};
use super::sort::{Sort, SortIn, SortOut, SortParams};
use super::{RegSink, RegStrings, Regs, Scratch};
use crate::block::BlockParams;
use crate::error::SnapshotError;

/// Cycles the block is clocked [`Top::idle_ready`] under idle inputs before its state is taken
/// to be found periodic 8 cycles later ([`Top::advance_idle`]), or, once found so after the
/// last configuration write, taken as periodic (the network's switches). Idle-ready says no
/// write of I or E is due, but the last ones are still on their way to D: E may have moved at
/// the edge that made the block idle-ready, its partial ORs follow at the next edge and D at
/// the one after, so the third idle-ready state is the first whose D, and so the PFC frames, no
/// longer move. Groups clocked sparsely ([`Top::set_sparse`]) keep their data registers; with
/// every group clocked, a round of the slots reloads them from the idle inputs, and the search
/// of [`Top::advance_idle`] takes a second anchor when the first is too early.
pub const IDLE_DRAIN: u64 = 3;

/// The configuration's words each unit's thresholds' refresh reads, for the priorities
/// `rf` = (the ingress's `rf_q`, the egress's) names, into the units' inputs.
fn refresh_inputs(c: &Cfg, rf: (usize, usize), ii: &mut IngressIn, ei: &mut EgressIn) {
    let (ti, te) = (c.ingress(rf.0), c.egress(rf.1));
    ii.cfg_ing_max = ti.max;
    ii.cfg_ing_xoff = ti.xoff;
    ii.cfg_ing_xon = ti.xon;
    ii.cfg_lossless = c.lossless_q;
    ei.cfg_eg_max = te.max;
    ei.cfg_eg_xoff = te.xoff;
    ei.cfg_eg_xon = te.xon;
    ei.cfg_eg_warn = te.warn;
    ei.cfg_lossless = c.lossless_q;
    ei.cfg_mode = c.mode_q;
}

/// One cycle's inputs (`capfc_top_oc`'s ports).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
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

impl TopIn {
    /// Every input 0 but `pfc_ready`, all ones (every MAC ready), at `np` ports.
    pub fn idle(np: usize) -> Self {
        TopIn {
            arr_valid: vec![false; np],
            arr_prio: vec![0; np],
            arr_size: vec![0; np],
            deq_valid: vec![false; np],
            deq_prio: vec![0; np],
            deq_size: vec![0; np],
            pfc_ready: vec![true; np],
            ..TopIn::default()
        }
    }

    /// The inputs under their port names and widths (`sw` bits a size, `pw` a port index), in
    /// the order of the RTL's port list, a port's field at its index (the first least
    /// significant), into `s`.
    pub fn visit<S: RegSink + ?Sized>(&self, sw: usize, pw: usize, s: &mut S) {
        s.val(format_args!("rst"), self.rst.into(), 1);
        s.val(format_args!("cfg_we"), self.cfg_we.into(), 1);
        s.val(format_args!("cfg_addr"), self.cfg_addr.into(), 8);
        s.val(format_args!("cfg_wdata"), self.cfg_wdata.into(), 32);
        let (av, ap, asz) = (&self.arr_valid, &self.arr_prio, &self.arr_size);
        s.cat(format_args!("arr_valid"), av.len(), 1, |i| av[i].into());
        s.cat(format_args!("arr_prio"), ap.len(), 3, |i| ap[i].into());
        s.cat(format_args!("arr_size"), asz.len(), sw, |i| asz[i]);
        s.val(format_args!("dep_valid"), self.dep_valid.into(), 1);
        s.val(format_args!("dep_port"), self.dep_port.into(), pw);
        s.val(format_args!("dep_prio"), self.dep_prio.into(), 3);
        s.val(format_args!("dep_size"), self.dep_size.into(), sw);
        s.val(format_args!("enq_valid"), self.enq_valid.into(), 1);
        s.val(format_args!("enq_oport"), self.enq_oport.into(), pw);
        s.val(format_args!("enq_prio"), self.enq_prio.into(), 3);
        s.val(format_args!("enq_iport"), self.enq_iport.into(), pw);
        s.val(format_args!("enq_size"), self.enq_size.into(), sw);
        let (dv, dp, dsz) = (&self.deq_valid, &self.deq_prio, &self.deq_size);
        s.cat(format_args!("deq_valid"), dv.len(), 1, |i| dv[i].into());
        s.cat(format_args!("deq_prio"), dp.len(), 3, |i| dp[i].into());
        s.cat(format_args!("deq_size"), dsz.len(), sw, |i| dsz[i]);
        let pr = &self.pfc_ready;
        s.cat(format_args!("pfc_ready"), pr.len(), 1, |i| pr[i].into());
    }
}

/// One cycle's outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TopOut {
    pub arr_ready: Vec<bool>,
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

impl TopOut {
    /// Every output 0, at `np` ports.
    pub fn idle(np: usize) -> Self {
        TopOut {
            arr_ready: vec![false; np],
            deq_ready: vec![false; np],
            arr_accept: vec![false; np],
            enq_accept: false,
            pfc_valid: vec![false; np],
            pfc_cev: vec![0; np],
            pfc_xoff: vec![0; np],
            pfc_quanta: 0,
            d_state: vec![0; np],
        }
    }

    /// The outputs under their port names, as the RTL packs them (a port's bit or byte at its
    /// index, the first least significant), into `s`.
    pub fn visit<S: RegSink + ?Sized>(&self, s: &mut S) {
        for (n, v) in [
            ("arr_ready", &self.arr_ready),
            ("deq_ready", &self.deq_ready),
            ("arr_accept", &self.arr_accept),
        ] {
            s.cat(format_args!("{n}"), v.len(), 1, |i| v[i].into());
        }
        s.val(format_args!("enq_accept"), self.enq_accept.into(), 1);
        let pv = &self.pfc_valid;
        s.cat(format_args!("pfc_valid"), pv.len(), 1, |i| pv[i].into());
        for (n, v) in [("pfc_cev", &self.pfc_cev), ("pfc_xoff", &self.pfc_xoff)] {
            s.cat(format_args!("{n}"), v.len(), 8, |i| v[i].into());
        }
        s.val(format_args!("pfc_quanta"), self.pfc_quanta.into(), 16);
        let d = &self.d_state;
        s.cat(format_args!("d_state"), d.len(), 8, |i| d[i].into());
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// the units' inputs and outputs, reused from cycle to cycle (no state)
    buf: Scratch<Bufs>,
    /// The deliberate bug in force ([`super::fault`], [`Top::set_fault`]): D's and the PFC
    /// generator's, and the accepts' latency, are tested here; the units keep their own copy
    #[serde(skip)]
    pub fault: Option<V3Fault>,
}

/// The units' inputs and outputs of one cycle, kept so that a cycle allocates nothing.
#[derive(Debug, Clone, Default)]
struct Bufs {
    ing_in: IngressIn,
    eg_in: EgressIn,
    sort_in: SortIn,
    io: IngressOut,
    eo: EgressOut,
    so: SortOut,
    d_d: Vec<u8>,
    /// the accepts of the cycle before (a fault's: an accept a cycle late)
    late: (Vec<bool>, bool),
    /// `so` is the sort's outputs from its registers as they are (sparse: an edge that left
    /// every engine out changes none of them, [`Sort::last_edge_still`])
    so_now: bool,
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
            buf: Scratch::default(),
            fault: None,
        }
    }

    /// Put fault `f` of v3's catalogue ([`super::fault::Fault`]) into the model (`None` takes it
    /// out): every unit gets it and tests its own. The RTL has none.
    pub fn set_fault(&mut self, f: Option<V3Fault>) {
        self.fault = f;
        self.buf.0.so_now = false;
        self.u_ingress.fault = f;
        self.u_ingress.u_thr.fault = f;
        self.u_egress.fault = f;
        self.u_sort.fault = f;
    }

    /// Clock a unit's group only while a lane is in it, and an egress port only while more than
    /// its scrub moves (`true`), or everything every cycle (`false`, the default and a restored
    /// block's). Sparse, the outputs, I, E and the occupancies are the same cycle for cycle, but
    /// an idle group's data registers keep what they held when its last lane left (the RTL's
    /// follow the idle inputs), and a port's scrub is made when something reads the port
    /// ([`super::egress::Port::lag`], [`Top::settle`]): for runs whose registers nobody views
    /// or compares (a network's switches and `capfc run` with the model alone, which skip idle
    /// cycles too).
    pub fn set_sparse(&mut self, on: bool) {
        if !on {
            self.settle();
        }
        self.buf.0.so_now = false;
        self.u_ingress.sparse.0 = on;
        self.u_sort.sparse.0 = on;
        self.u_egress.sparse.0 = on;
    }

    /// Every register and RAM word as clocking every cycle leaves them: the egress's ports'
    /// scrubs, which a sparse block leaves behind while nothing else moves a port
    /// ([`super::egress::Port::lag`]), caught up. The outputs and every other register are
    /// current without it; a view, a comparison or a snapshot of the registers needs it.
    pub fn settle(&mut self) {
        self.u_egress.settle();
    }

    /// Some port's scrub is behind ([`Top::settle`]).
    pub fn lagging(&self) -> bool {
        self.u_egress.lagging()
    }

    /// No lane is valid, no reset, no configuration write: the inputs under which
    /// [`Top::advance_idle`] may skip cycles.
    pub fn idle_input(inp: &TopIn) -> bool {
        !(inp.rst
            || inp.cfg_we
            || inp.dep_valid
            || inp.enq_valid
            || inp.arr_valid.iter().any(|&v| v)
            || inp.deq_valid.iter().any(|&v| v))
    }

    /// Nothing in flight in any unit ([`Ingress::idle_ready`], [`Egress::idle_ready`],
    /// [`Sort::idle_ready`]) and no PFC frame due (D equal to what was sent, at every port).
    /// Under idle inputs only the slots, the thresholds' refresh, the counters' scrub and the PFC
    /// timers then move.
    pub fn idle_ready(&self) -> bool {
        self.d_q == self.sent_q && self.units_idle()
    }

    /// [`Top::idle_ready`], but a port may also have D unsent if its line is not ready in `inp`
    /// (`pfc_ready` low): its frame then waits, and under `inp` nothing of it moves but its timer,
    /// which counts down to 0 and stays there. Under idle inputs only the slots, the thresholds'
    /// refresh, the counters' scrub and the PFC timers then move.
    pub fn idle_ready_under(&self, inp: &TopIn) -> bool {
        self.units_idle()
            && (0..self.p.np).all(|i| self.d_q[i] == self.sent_q[i] || !inp.pfc_ready[i])
    }

    /// [`Top::idle_ready_under`] `inp`, and D as it will stay: every egress group quiet and E's
    /// partial ORs made from E as it is ([`Egress::idle_jump_ready`]), every sort engine's word
    /// pipeline and compares settled ([`Sort::engines_settled`]), no fault, every lane ready,
    /// and D equal to what it loads next (I, or E of the other ports). Under idle inputs
    /// the block then changes nothing but what [`Top::jump_idle`] makes by arithmetic, as it
    /// does [`IDLE_DRAIN`] idle-ready cycles on: an earlier test of the same state (the
    /// network's switches, once the thresholds' copies are found settled).
    pub fn settled_under(&self, inp: &TopIn) -> bool {
        if !(self.fault.is_none()
            && self.idle_ready_under(inp)
            && self.u_egress.idle_jump_ready()
            && self.u_egress.grp.iter().all(|g| g.rdy_q)
            && self
                .u_sort
                .engines_settled(|o| self.u_egress.port.get(o).map_or(0, |po| po.sval_q)))
        {
            return false;
        }
        let e = self.u_egress.e_words();
        let xoff = self.u_ingress.i_state();
        (0..self.p.np).all(|i| {
            let eo = (0..8).fold(0u8, |a, q| a | ((e[q] >> i & 1) as u8) << q);
            self.d_q[i] == xoff[i] | eo
        })
    }

    fn units_idle(&self) -> bool {
        // (the cheapest first)
        self.u_sort.idle_ready() && self.u_ingress.idle_ready() && self.u_egress.idle_ready()
    }

    /// From a state [`Top::idle_ready_under`] idle inputs (the reset count saturated, nothing in
    /// flight), whether port `o`'s slot is up `k` idle cycles on: its `arr_ready` (`ingress`) or
    /// its `deq_ready`. The slots turn once a cycle; nothing else moves the readies.
    pub fn slot_up_after(&self, ingress: bool, o: usize, k: u64) -> bool {
        let (gs, rdy) = self.slot_of(ingress, o);
        rdy && (u64::from(gs) + k) & 7 == (o & 7) as u64
    }

    /// Port `o`'s group's slot and whether its lanes are ready: the ingress's (`ingress`) or
    /// the egress's.
    fn slot_of(&self, ingress: bool, o: usize) -> (u8, bool) {
        if ingress {
            let g = &self.u_ingress.grp[o / 8];
            (g.gs_q, g.rdy_q)
        } else {
            let g = &self.u_egress.grp[o / 8];
            (g.gs_q, g.rdy_q)
        }
    }

    /// From a state [`Top::idle_ready_under`] idle inputs, the first `k >= k0` for which
    /// [`Top::slot_up_after`] holds: the idle cycles before port `o`'s slot comes up (`None`
    /// while its group is not ready: it never comes up under idle inputs).
    pub fn slot_up_from(&self, ingress: bool, o: usize, k0: u64) -> Option<u64> {
        let (gs, rdy) = self.slot_of(ingress, o);
        let at = (u64::from(gs) + k0) & 7;
        rdy.then(|| k0 + (((o & 7) as u64).wrapping_sub(at) & 7))
    }

    /// The ports whose PFC frame is pending in the next cycle (its `pfc_valid`, from the
    /// registers alone): D unsent, or D up and its timer at 0 (a refresh), a bit a port.
    pub fn pfc_pending(&self) -> u128 {
        (0..self.p.np).fold(0, |m, i| m | u128::from(self.pfc_pending_at(i)) << i)
    }

    fn pfc_pending_at(&self, i: usize) -> bool {
        let (d, s, t) = (self.d_q[i], self.sent_q[i], self.timer_q[i]);
        d != s || (d != 0 && t == 0)
    }

    /// A pending frame that waits under `inp`: its line not ready, so it is not taken and
    /// nothing of it moves but its timer (down to 0).
    fn pfc_waits(&self, i: usize, inp: &TopIn) -> bool {
        self.pfc_pending_at(i) && !inp.pfc_ready[i]
    }

    /// With the block [`Top::idle_ready`] now and in each of the 8 cycles since `anchor` was
    /// taken, all under the same idle inputs: every register and RAM word equals `anchor`'s but
    /// the counters' scrub (each port's pointer, its read and write registers, its counter RAM)
    /// and the PFC timers. Those others evolve from themselves alone (the scrub and the timers
    /// read them, nothing reads the scrub back while idle, and a timer only at a port with D up
    /// once it reaches 0: [`Top::refresh_due`]), so they are periodic with period 8 from here
    /// on, up to a refresh falling due: what [`Top::jump_idle`] needs. `anchor` is overwritten.
    pub fn periodic_since(&mut self, anchor: &mut Top) -> bool {
        // (each port's scrub as it is now, not as last made: `Port::lag`)
        self.settle();
        anchor.settle();
        for (a, o) in anchor.u_egress.port.iter_mut().zip(&self.u_egress.port) {
            a.sp_q = o.sp_q;
            a.rd_q[0] = o.rd_q[0];
            a.w0_q = o.w0_q;
            a.ww_q = o.ww_q;
            a.wa_q = o.wa_q;
            a.wd_q = o.wd_q;
            a.mem.clone_from(&o.mem);
        }
        anchor.timer_q.clone_from(&self.timer_q);
        *anchor == *self
    }

    /// Idle cycles `inp` that may pass before the one in which a held pause's refresh falls due
    /// (D up, sent, and its timer at 0 at a port: a PFC frame pending again), from a state with
    /// [`Top::idle_ready_under`] `inp`; `u64::MAX` with no D up and sent. A frame that waits for
    /// its line ([`Top::idle_ready_under`]) goes on waiting: it is not counted. Nothing else the
    /// switch sees moves in those cycles under idle inputs once the state is periodic
    /// ([`Top::periodic_since`]).
    pub fn refresh_due(&self, inp: &TopIn) -> u64 {
        (0..self.p.np)
            .filter(|&i| {
                self.d_q[i] != 0 && self.d_q[i] == self.sent_q[i] && !self.pfc_waits(i, inp)
            })
            .map(|i| u64::from(self.timer_q[i]))
            .min()
            .unwrap_or(u64::MAX)
    }

    /// `n` cycles of the idle inputs `inp` (see [`Top::idle_input`]) from a state found periodic
    /// by [`Top::periodic_since`] under the same inputs, without clocking most of them: the PFC
    /// timers counted down by arithmetic, each port's scrub moved on by whole rounds from where
    /// it is ([`Egress::scrub_jump_any`]), everything else equal to itself 8 cycles on; then the
    /// remainder of the period clocked: `n mod 8` cycles (all `n` if fewer than 16, or if a PFC
    /// refresh falls due in them). `out` gets the last clocked cycle's outputs (with none
    /// clocked, it keeps those of the cycle a whole number of periods earlier, the same).
    /// Returns the cycles clocked.
    pub fn jump_idle(&mut self, inp: &TopIn, n: u64, out: &mut TopOut) -> u64 {
        let due = self.refresh_due(inp) < n;
        // (sparse: all but the last cycle by arithmetic, the last clocked for its outputs)
        if !due && n > 0 && self.idle_cycles(n - 1) {
            self.cycle_into(inp, out);
            return 1;
        }
        if n < 16 || due {
            for _ in 0..n {
                self.cycle_into(inp, out);
            }
            return n;
        }
        // (every port's scrub from where it is: the remainder of the period alone clocked)
        let q = n / 8;
        if (0..self.p.np).all(|o| self.u_egress.scrub_jump_any_ready(o)) {
            for t in self.timer_q.iter_mut() {
                *t = u64::from(*t).saturating_sub(8 * q) as u16;
            }
            for o in 0..self.p.np {
                let jumped = self.u_egress.scrub_jump_any(o, q);
                debug_assert!(jumped);
            }
            for _ in 0..n - 8 * q {
                self.cycle_into(inp, out);
            }
            return n - 8 * q;
        }
        let q = (n - 3) / 8;
        self.settle();
        for t in self.timer_q.iter_mut() {
            *t = u64::from(*t).saturating_sub(8 * q) as u16;
        }
        let mut left: u128 = u128::MAX >> (128 - self.p.np);
        let mut clocked = 0;
        loop {
            for o in 0..self.p.np {
                if left >> o & 1 == 1 && self.u_egress.scrub_between(o) {
                    self.u_egress.scrub_jump(o, q);
                    left &= !(1 << o);
                }
            }
            if left == 0 {
                break;
            }
            assert!(
                clocked < 3,
                "every port's scrub is between two rounds once in 4 idle cycles"
            );
            self.cycle_into(inp, out);
            clocked += 1;
        }
        for _ in clocked..n - 8 * q {
            self.cycle_into(inp, out);
        }
        n - 8 * q
    }

    /// [`Top::jump_idle`] for a caller that clocks the next cycle itself and so reads none of the
    /// `n` cycles' outputs (`out` is then stale): sparse, with no PFC refresh falling due in
    /// them, every one of them by arithmetic, none clocked; otherwise as [`Top::jump_idle`].
    /// Returns the cycles clocked.
    pub fn jump_idle_before_edge(&mut self, inp: &TopIn, n: u64, out: &mut TopOut) -> u64 {
        if self.refresh_due(inp) >= n && self.idle_cycles(n) {
            return 0;
        }
        self.jump_idle(inp, n, out)
    }

    /// Sparse ([`Top::set_sparse`]), `n` cycles of a state found periodic under idle inputs
    /// ([`Top::periodic_since`]), none taking a lane and no PFC refresh falling due in them, by
    /// arithmetic: with every group quiet and every port's scrub able to stay behind
    /// ([`Egress::idle_jump_ready`]), the idle engines settled and D as it is sent or waiting,
    /// such a cycle turns the slots, leaves the scrubs behind, counts the PFC timers down and
    /// moves the thresholds' refresh, and nothing else (the idle groups keep their data
    /// registers, the engines and D hold); the refresh, periodic like the rest, is made for
    /// `n mod 8` cycles. `false`, nothing changed, if the state is not such.
    fn idle_cycles(&mut self, n: u64) -> bool {
        if n == 0 {
            return true;
        }
        if !(self.fault.is_none()
            && self.u_ingress.sparse.0
            && self.u_sort.idle_ready()
            && self.u_ingress.idle_ready()
            && self.u_egress.idle_jump_ready())
        {
            return false;
        }
        let b = &mut self.buf.0;
        self.u_sort.outputs_into(&mut b.so);
        (b.ing_in.rst, b.eg_in.rst) = (false, false);
        if self.u_ingress.u_thr.settled() && self.u_egress.u_thr.settled() {
            // (the copies settled, as a periodic state has them: the refresh's edges by
            // arithmetic; the priorities counted, `cntr_q` and `lidr_q`, hold already what they
            // load)
            self.u_ingress.u_thr.advance_settled(n % 8);
            self.u_egress.u_thr.advance_settled(n % 8);
        } else {
            for _ in 0..n % 8 {
                let rf = (self.u_ingress.u_thr.rf(), self.u_egress.u_thr.rf());
                refresh_inputs(&self.u_cfg, rf, &mut b.ing_in, &mut b.eg_in);
                self.u_ingress.thr_refresh(&b.ing_in);
                self.u_egress.thr_refresh(&b.eg_in);
            }
        }
        for gr in self.u_ingress.grp.iter_mut() {
            gr.gs_q = ((u64::from(gr.gs_q) + n) & 7) as u8;
        }
        self.u_egress.idle_jump(n, &b.so.swr_l, &b.so.swr_i);
        for t in self.timer_q.iter_mut() {
            *t = u64::from(*t).saturating_sub(n) as u16;
        }
        true
    }

    /// `n` cycles of the inputs `inp`, exactly as `n` calls of [`Top::cycle_into`] would leave
    /// the registers, the RAMs and `out` (the last cycle's outputs; untouched if `n` is 0), but
    /// without clocking most of them when the inputs are idle ([`Top::idle_input`]): clocked
    /// until the block is [`Top::idle_ready_under`] `inp` for [`IDLE_DRAIN`] cycles, 8 more to find it
    /// periodic ([`Top::periodic_since`]; again if not), then [`Top::jump_idle`], up to the cycle
    /// a held pause's refresh falls due ([`Top::refresh_due`]; that cycle clocked, and the search
    /// started again after it). Returns the cycles clocked.
    pub fn advance_idle(&mut self, inp: &TopIn, n: u64, out: &mut TopOut) -> u64 {
        if !Top::idle_input(inp) {
            for _ in 0..n {
                self.cycle_into(inp, out);
            }
            return n;
        }
        let (mut left, mut run) = (n, 0u64);
        let mut anchor: Option<Box<Top>> = None;
        let mut clocked = 0;
        while left > 0 {
            if run == IDLE_DRAIN + 8 {
                if let Some(a) = anchor.as_mut() {
                    if self.periodic_since(a) {
                        // (up to the cycle a held pause's refresh falls due, if one does: that
                        // cycle clocked, the state found periodic again after it)
                        let due = self.refresh_due(inp);
                        if due >= left {
                            return clocked + self.jump_idle(inp, left, out);
                        }
                        clocked += self.jump_idle(inp, due, out);
                        left -= due;
                        run = 0;
                        anchor = None;
                        continue;
                    }
                }
                run = IDLE_DRAIN;
                anchor = None;
            }
            if run == IDLE_DRAIN && anchor.is_none() {
                anchor = Some(Box::new(self.clone()));
            }
            self.cycle_into(inp, out);
            clocked += 1;
            left -= 1;
            if self.idle_ready_under(inp) {
                run += 1;
            } else {
                run = 0;
                anchor = None;
            }
        }
        clocked
    }

    /// One cycle: the outputs, then the clock edge.
    pub fn cycle(&mut self, inp: &TopIn) -> TopOut {
        let mut out = TopOut::default();
        self.cycle_into(inp, &mut out);
        out
    }

    /// One cycle into `out` (its vectors reused: a cycle allocates nothing once they have
    /// their lengths).
    ///
    /// (Long: the top's wiring of `rtl/v3/capfc_top_oc.sv` between its units, in the order the RTL
    /// evaluates them.)
    pub fn cycle_into(&mut self, inp: &TopIn, out: &mut TopOut) {
        let np = self.p.np;
        let b = &mut self.buf.0;
        let c = &self.u_cfg;
        // the thresholds of the priority each unit's refresh reads (its rf_q)
        let rf = (self.u_ingress.u_thr.rf(), self.u_egress.u_thr.rf());
        refresh_inputs(c, rf, &mut b.ing_in, &mut b.eg_in);
        let ii = &mut b.ing_in;
        ii.rst = inp.rst;
        ii.dep_valid = inp.dep_valid;
        ii.dep_port = inp.dep_port;
        ii.dep_prio = inp.dep_prio;
        ii.dep_size = inp.dep_size;
        if !(b.so_now && self.u_sort.sparse.0) {
            self.u_sort.outputs_into(&mut b.so);
        }
        let ei = &mut b.eg_in;
        ei.rst = inp.rst;
        ei.enq_valid = inp.enq_valid;
        ei.enq_oport = inp.enq_oport;
        ei.enq_prio = inp.enq_prio;
        ei.enq_iport = inp.enq_iport;
        ei.enq_size = inp.enq_size;
        self.u_ingress.outputs_into(&mut b.io);
        self.u_egress.outputs_into(&mut b.eo);
        let eo = &b.eo;
        let si = &mut b.sort_in;
        si.rst = inp.rst;
        si.cfg_mode_cal = c.mode_q >> 1 & 1 == 1;
        si.cfg_cut = c.cut_q;
        // D and the PFC generator
        let i_state = self.u_ingress.i_state();
        b.d_d.clear();
        let f = self.fault;
        b.d_d.extend((0..np).map(|i| {
            let d = i_state[i] | eo.e_other[i];
            if inp.rst {
                pick(f, V3Fault::DInReset, 0, d)
            } else {
                d
            }
        }));
        out.enq_accept = eo.enq_accept;
        // (the units' outputs move into the block's: the units' buffers are refilled next cycle)
        std::mem::swap(&mut out.arr_ready, &mut b.io.arr_ready);
        std::mem::swap(&mut out.deq_ready, &mut b.eo.deq_ready);
        std::mem::swap(&mut out.arr_accept, &mut b.io.arr_accept);
        if matches!(f, Some(V3Fault::IngAcceptLate | V3Fault::EgAcceptLate)) {
            // (the accepts of the cycle before)
            let (arr, enq) = &mut b.late;
            arr.resize(np, false);
            for (a, l) in out.arr_accept.iter_mut().zip(arr.iter_mut()) {
                let now = *a;
                *a = pick(f, V3Fault::IngAcceptLate, now, *l);
                *l = now;
            }
            let now = out.enq_accept;
            out.enq_accept = pick(f, V3Fault::EgAcceptLate, now, *enq);
            *enq = now;
        }
        // (every element is written below)
        out.pfc_valid.resize(np, false);
        out.pfc_cev.resize(np, 0);
        out.pfc_xoff.clone_from(&self.d_q);
        out.pfc_quanta = c.quanta_q;
        out.d_state.clone_from(&self.d_q);
        let refresh = c.refresh_q;
        // (every vector cut to the ports: one bounds check each, not one an element)
        let (d_q, sent_q, timer_q) = (
            &self.d_q[..np],
            &mut self.sent_q[..np],
            &mut self.timer_q[..np],
        );
        let (pfc_valid, pfc_cev) = (&mut out.pfc_valid[..np], &mut out.pfc_cev[..np]);
        let pfc_ready = &inp.pfc_ready[..np];
        for i in 0..np {
            let (d, s, t) = (d_q[i], sent_q[i], timer_q[i]);
            let v = d != s || (d != 0 && t == 0);
            let take = pick(f, V3Fault::ReadyIgnored, v && pfc_ready[i], v);
            pfc_valid[i] = v;
            pfc_cev[i] = pick(f, V3Fault::XonNotSent, d | s, d);
            if inp.rst {
                sent_q[i] = 0;
                timer_q[i] = 0;
            } else {
                sent_q[i] = if take { d } else { s };
                timer_q[i] = if take {
                    pick(f, V3Fault::RefreshLate, refresh, refresh.saturating_add(1))
                } else {
                    t.saturating_sub(1)
                };
            }
        }
        std::mem::swap(&mut self.d_q, &mut b.d_d);
        // the units' edges, then the configuration's
        // (the lanes straight from the inputs, the units' ports from each other's outputs)
        self.u_ingress
            .tick_lanes(&b.ing_in, (&inp.arr_valid, &inp.arr_prio, &inp.arr_size));
        let so = &b.so;
        self.u_egress.tick_lanes(
            &b.eg_in,
            &EgressLanes {
                deq_valid: &inp.deq_valid,
                deq_prio: &inp.deq_prio,
                deq_size: &inp.deq_size,
                sre: &so.sre,
                srow: &so.srow,
                sidx: &so.sidx,
                swr_en: &so.swr_en,
                swr_l: &so.swr_l,
                swr_i: &so.swr_i,
            },
        );
        let eo = &b.eo;
        self.u_sort
            .tick_rows(&b.sort_in, (&eo.rclr, &eo.rtrig, &eo.sval));
        b.so_now = self.u_sort.last_edge_still();
        self.u_cfg
            .tick(&self.p, inp.rst, inp.cfg_we, inp.cfg_addr, inp.cfg_wdata);
    }

    /// The RAM writes of the last cycle, each `(RAM, address, word)`, the RAM numbered in the
    /// order [`Top::visit`] lists the RAMs (its `ram` and `ram128` calls): what the in-process
    /// lockstep compares with the RTL's write ports instead of every RAM word.
    pub fn ram_writes(&self, out: &mut Vec<(u32, u64, u128)>) {
        out.clear();
        let mut base = 0u32;
        let mut add = |log: &[(u32, u64, u128)], rams: usize| {
            out.extend(log.iter().map(|&(k, a, d)| (base + k, a, d)));
            base += rams as u32;
        };
        let (i, e) = (&self.u_ingress, &self.u_egress);
        add(&self.u_cfg.wlog.0, super::cfg::NT);
        add(&i.wlog.0, i.grp.len() * 8);
        add(&i.u_thr.wlog.0, 2 * i.u_thr.ng);
        add(&e.wlog.0, e.grp.len() * 8 + e.port.len());
        add(&e.u_thr.wlog.0, 2 * e.u_thr.ng);
        add(&self.u_sort.wlog.0, self.u_sort.eng.len());
    }

    /// A block restored from a snapshot (maybe a file) is one this model could be in: the
    /// parameters legal, every vector of the size [`Top::new`] gives it, every register's and
    /// RAM word's value within its RTL width. (It does not prove the state reachable.)
    pub fn check_restored(&self) -> Result<(), SnapshotError> {
        let p = self.p;
        super::check_params(p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl as u32)
            .map_err(|e| SnapshotError::new("block.p", e.0))?;
        let fresh = Top::new(p);
        let json =
            |v| serde_json::to_value(v).map_err(|e| SnapshotError::new("block", e.to_string()));
        let (a, b) = (json(self)?, json(&fresh)?);
        crate::block::same_shape(&a, &b, "block")?;
        let units = [
            (
                "u_ingress",
                a["u_ingress"]["p"].clone(),
                b["u_ingress"]["p"].clone(),
            ),
            (
                "u_egress",
                a["u_egress"]["p"].clone(),
                b["u_egress"]["p"].clone(),
            ),
            ("u_sort", a["u_sort"]["p"].clone(), b["u_sort"]["p"].clone()),
        ];
        for (u, x, y) in units {
            if x != y {
                return Err(SnapshotError::new(
                    format!("block.{u}.p"),
                    format!("{x}, the block's parameters give {y}"),
                ));
            }
        }
        for (u, t, f) in [
            ("u_ingress", &self.u_ingress.u_thr, &fresh.u_ingress.u_thr),
            ("u_egress", &self.u_egress.u_thr, &fresh.u_egress.u_thr),
        ] {
            if (t.ng, t.taw, t.tdw) != (f.ng, f.taw, f.tdw) {
                return Err(SnapshotError::new(
                    format!("block.{u}.u_thr"),
                    format!(
                        "ng, taw, tdw {:?}, the block's parameters give {:?}",
                        (t.ng, t.taw, t.tdw),
                        (f.ng, f.taw, f.tdw)
                    ),
                ));
            }
        }
        let mut w = Widths(Ok(()));
        self.visit(&mut w);
        w.0
    }

    /// Every register and RAM word under its RTL name (relative to the block's instance).
    pub fn regs(&self) -> Regs {
        let mut s = RegStrings::default();
        self.visit(&mut s);
        s.0
    }

    /// Every register and RAM word, in the order of [`Top::regs`], into `s`: as clocking every
    /// cycle leaves them (of a settled copy if a port's scrub is behind: [`Top::settle`]).
    pub fn visit<S: RegSink + ?Sized>(&self, s: &mut S) {
        if self.lagging() {
            let mut t = self.clone();
            t.settle();
            return t.visit(s);
        }
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
        for (n, v) in [("d_q", &self.d_q), ("u_pfc.sent_q", &self.sent_q)] {
            s.cat(format_args!("{n}"), v.len(), 8, |i| v[i].into());
        }
        for (i, t) in self.timer_q.iter().enumerate() {
            s.val(format_args!("u_pfc.timer_q[{i}]"), (*t).into(), 16);
        }
    }
}

/// A sink that finds the first register whose value has a bit set above its width.
struct Widths(Result<(), SnapshotError>);

impl RegSink for Widths {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        if self.0.is_err() {
            return;
        }
        let stray = words.iter().enumerate().any(|(k, &w)| {
            let lo = k * 64;
            if lo >= width {
                w != 0
            } else {
                width - lo < 64 && w >> (width - lo) != 0
            }
        });
        if stray {
            self.0 = Err(SnapshotError::new(
                format!("block.{name}"),
                format!("a value wider than its {width} bits"),
            ));
        }
    }
}

/// A sink that puts an instance's path before every name.
struct Prefixed<'a, S: RegSink + ?Sized> {
    s: &'a mut S,
    prefix: &'static str,
}

impl<S: RegSink + ?Sized> RegSink for Prefixed<'_, S> {
    #[inline(always)]
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.s
            .reg(format_args!("{}{}", self.prefix, name), words, width)
    }

    #[inline(always)]
    fn val(&mut self, name: std::fmt::Arguments<'_>, v: u128, width: usize) {
        self.s
            .val(format_args!("{}{}", self.prefix, name), v, width)
    }

    #[inline(always)]
    fn ram(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.s
            .ram(format_args!("{}{}", self.prefix, name), words, width)
    }

    #[inline(always)]
    fn ram128(&mut self, name: std::fmt::Arguments<'_>, words: &[u128], width: usize) {
        self.s
            .ram128(format_args!("{}{}", self.prefix, name), words, width)
    }

    #[inline(always)]
    fn cat(
        &mut self,
        name: std::fmt::Arguments<'_>,
        n: usize,
        width: usize,
        get: impl Fn(usize) -> u64,
    ) {
        self.s
            .cat(format_args!("{}{}", self.prefix, name), n, width, get)
    }
}
