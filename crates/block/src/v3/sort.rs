//! `capfc_sort` of micro-architecture v3 (`rtl/v3/capfc_sort.sv`): one sort engine for two
//! output ports, every compare and every sum in a stage of its own.
//!
//! Register for register under the RTL's names (the RTL's header and
//! `docs/microarchitecture.md`, "Sort engines", have the design): per engine its pending rows
//! and round robin, the pass's phase and step, the running value, index, sums and target, the
//! word's pipeline (`x_q`, `xr_q`, `y_q` with its compares), the registered E write and its snap
//! RAM (`gen_engine[e].u_snap`: a synchronous read); per group of eight engines the
//! configuration's copy (`gcal_q`, `gcut_q`).

use super::fault::{ge, pick, pick_with, Fault};
use super::{class_width, clog2, port_width, trunc, RegSink, RegStrings, Regs, Scratch};

pub const PH_MAX: u8 = 0;
pub const PH_COPY: u8 = 1;
pub const PH_MUL: u8 = 2;
pub const PH_SRCH: u8 = 3;
pub const PH_GT: u8 = 4;
pub const PH_CNT: u8 = 5;
pub const PH_SEL: u8 = 6;

/// The unit's parameters (the RTL's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SortParams {
    pub np: usize,
    pub cw: u32,
    pub cut_f: u32,
    pub nl: u32,
}

impl SortParams {
    pub fn pw(&self) -> u32 {
        port_width(self.np)
    }
    pub fn lw(&self) -> u32 {
        class_width(self.nl)
    }
    pub fn nr(&self) -> usize {
        self.np << self.lw()
    }
    /// engines: one for two ports
    pub fn ne(&self) -> usize {
        self.np.div_ceil(2)
    }
    fn ng(&self) -> usize {
        self.ne().div_ceil(8)
    }
    fn sumw(&self) -> u32 {
        self.cw + self.pw()
    }
    fn mw(&self) -> u32 {
        self.sumw() + self.cut_f + 1
    }
    fn bw(&self) -> u32 {
        if self.cw > 1 {
            clog2(self.cw as usize)
        } else {
            1
        }
    }
    fn bstart(&self) -> u64 {
        2 * (u64::from(self.cw).div_ceil(2) - 1)
    }
    fn kw(&self) -> u32 {
        clog2((self.np + 7).max(self.cut_f as usize + 2))
    }
    fn nw(&self) -> u32 {
        self.pw() + 1
    }
    fn jw(&self) -> u32 {
        self.lw() + 1
    }
    fn nj(&self) -> usize {
        1 << self.jw()
    }
}

/// One cycle's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SortIn {
    pub rst: bool,
    pub cfg_mode_cal: bool,
    pub cfg_cut: u64,
    /// per row (port * 2^LW + class)
    pub rclr: Vec<bool>,
    pub rtrig: Vec<bool>,
    /// per port: the egress's read port's word
    pub sval: Vec<u64>,
}

/// One cycle's outputs (from registers only), per port.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SortOut {
    pub sre: Vec<bool>,
    pub srow: Vec<u64>,
    pub sidx: Vec<u64>,
    pub swr_en: Vec<bool>,
    pub swr_l: Vec<u64>,
    pub swr_i: Vec<u64>,
}

/// An engine's registers and snap RAM.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Engine {
    pub pend_q: u64,
    pub rr_q: u64,
    pub busy_q: bool,
    pub cal_q: bool,
    pub sl_q: bool,
    pub ph_q: u8,
    pub row_q: u64,
    pub k_q: u64,
    pub bit_q: u64,
    pub v_q: u64,
    pub ix_q: u64,
    pub acc_q: u64,
    pub acc2_q: u64,
    pub acc3_q: u64,
    pub tgt_q: u64,
    pub met_q: bool,
    pub met2_q: bool,
    pub met3_q: bool,
    pub cb_q: bool,
    pub need_q: u64,
    pub t_q: u64,
    pub ge_q: bool,
    pub ge2_q: bool,
    pub ge3_q: bool,
    pub gt_q: bool,
    pub eq_q: bool,
    pub nz_q: bool,
    /// the pass's windows, decoded a cycle ahead: the word in y is an input of the pass; the
    /// search pass's end
    pub yv_q: bool,
    pub se_q: bool,
    /// Stop-Max's compare from registers: the word in xr against the word in y; the maximum
    /// was loaded a cycle ago
    pub gty_q: bool,
    pub ldm_q: bool,
    pub x_q: u64,
    /// the snap RAM's read, registered beside the RAM: enable and address
    pub snre_q: bool,
    pub snra_q: u64,
    pub xr_q: u64,
    pub y_q: u64,
    pub wv_q: bool,
    pub wl_q: u64,
    pub wi_q: u64,
    /// `gen_engine[e].u_snap.mem` and its read register `rd_q`
    pub snap: Vec<u64>,
    pub snap_rd_q: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sort {
    pub p: SortParams,
    pub eng: Vec<Engine>,
    pub gcal_q: Vec<bool>,
    pub gcut_q: Vec<u64>,
    /// this cycle's RAM writes (the unit's RAM in the order its `visit` lists them, address,
    /// word): what the in-process lockstep compares with the RTL's write ports (no state)
    pub wlog: Scratch<Vec<(u32, u64, u128)>>,
    /// A deliberate bug for the lockstep's tests: the unit's RAM writes flip their word's lowest
    /// bit (the registers stay right; only the comparison of the RAMs can see it)
    #[serde(skip)]
    pub fault_ram_write: bool,
    /// A deliberate bug in one of the engines' rules ([`super::fault`]), set by
    /// [`super::top::Top::set_fault`]
    #[serde(skip)]
    pub fault: Option<Fault>,
    /// Sparse ([`super::top::Top::set_sparse`]; not state): the block's idle advance may take the
    /// engines as settled ([`Sort::engines_settled`]), and the block reuses the unit's outputs
    /// across an edge that left every engine out
    pub sparse: Scratch<bool>,
    /// Per engine, its idle edges in a row (up to [`STILL_AFTER`]) under the read port's words it
    /// saw (`sval` of its two ports): after that many, its word's pipeline and compares hold what
    /// the next idle edge would load, and the edge is left out (with no fault in force; not
    /// state: a restored unit clocks them again)
    still: Scratch<Vec<(u8, [u64; 2])>>,
    /// Idle engines' edges left unclocked so far (not state: what a test shows happened)
    pub still_edges: Scratch<u64>,
    /// Edges that left every engine out without a look at each (not state: what a test shows
    /// happened)
    pub all_still_edges: Scratch<u64>,
    /// Every engine left unclocked at the last edge (`still`), and the read port's words then
    /// (`sval` of every port): under the same words, no row triggering and no reset, the next
    /// edge leaves them all out again, without a look at each (not state)
    all_still: Scratch<(bool, Vec<u64>)>,
}

/// Idle edges in a row after which an idle engine's registers hold what the next idle edge loads
/// (under the same words of its ports): its word's pipeline is three registers deep from the snap
/// read (`x_q`, `xr_q`, `y_q`) and `gty_q` compares the last two, so it settles at the fourth
/// edge (`x_q` loads the snap read at the first, `xr_q` at the second, `y_q` at the third, and
/// `gty_q` compares them equal at the fourth); from the port's word (`xr_q` loading `sval`
/// directly) one edge sooner.
pub const STILL_AFTER: u8 = 4;

/// The engine issues a read (of the egress's port or its snap RAM) from its registers.
fn issue(p: SortParams, e: &Engine) -> bool {
    e.busy_q && e.ph_q != PH_MUL && e.ph_q != PH_CNT && e.k_q < p.np as u64
}

/// Engine `o`'s clock edge in a cycle without a reset when it is idle (not busy, nothing
/// pending, no snap read issued) and none of its rows triggers a sort: no grant, no pass, no RAM
/// access; only the word's pipeline and its compares move (as [`Sort::tick_rows`] computes them,
/// in place).
fn idle_engine(p: SortParams, o: usize, e: &mut Engine, in_sval: &[u64]) {
    let (np, cw, pw) = (p.np, p.cw, p.pw());
    let xr = e.xr_q;
    let c = |d: u64| trunc(e.v_q | (d << e.bit_q), cw + 1);
    e.ge_q = xr >= c(1);
    e.ge2_q = xr >= c(2);
    e.ge3_q = xr >= c(3);
    e.gt_q = xr > e.v_q;
    e.gty_q = xr > e.y_q;
    e.eq_q = xr == e.v_q;
    e.nz_q = xr != 0;
    e.y_q = xr;
    let so = 2 * o + e.sl_q as usize;
    e.xr_q = if e.ph_q == PH_MAX || e.ph_q == PH_COPY {
        if so < np {
            in_sval[so]
        } else {
            0
        }
    } else {
        e.x_q
    };
    e.x_q = e.snap_rd_q;
    e.yv_q = false;
    e.se_q = false;
    e.ldm_q = false;
    e.wv_q = false;
    e.snra_q = trunc(e.k_q, pw);
}

impl Sort {
    /// Every register and RAM word 0 (as Verilator starts a simulation).
    pub fn new(p: SortParams) -> Self {
        Sort {
            p,
            eng: vec![
                Engine {
                    snap: vec![0; 1 << p.pw()],
                    ..Engine::default()
                };
                p.ne()
            ],
            gcal_q: vec![false; p.ng()],
            gcut_q: vec![0; p.ng()],
            wlog: Scratch::default(),
            fault_ram_write: false,
            fault: None,
            sparse: Scratch::default(),
            still: Scratch::default(),
            still_edges: Scratch::default(),
            all_still_edges: Scratch::default(),
            all_still: Scratch::default(),
        }
    }

    /// The outputs of this cycle.
    pub fn outputs(&self) -> SortOut {
        let mut o = SortOut::default();
        self.outputs_into(&mut o);
        o
    }

    /// The outputs into `o` (its vectors reused).
    pub fn outputs_into(&self, o: &mut SortOut) {
        let p = self.p;
        let np = p.np;
        // (every element of the port's vectors is written below)
        for v in [&mut o.sre, &mut o.swr_en] {
            v.resize(np, false);
        }
        for v in [&mut o.srow, &mut o.sidx, &mut o.swr_l, &mut o.swr_i] {
            v.resize(np, 0);
        }
        for (k, e) in self.eng.iter().enumerate() {
            let rd = issue(p, e) && (e.ph_q == PH_MAX || e.ph_q == PH_COPY);
            let idx = trunc(e.k_q, p.pw());
            for s in 0..2 {
                let i = 2 * k + s;
                if i >= np {
                    break;
                }
                let mine = e.sl_q == (s == 1);
                o.sre[i] = rd && mine;
                o.swr_en[i] = e.wv_q && mine;
                o.srow[i] = e.row_q;
                o.sidx[i] = idx;
                o.swr_l[i] = e.wl_q;
                o.swr_i[i] = e.wi_q;
            }
        }
    }

    /// The clock edge.
    pub fn tick(&mut self, inp: &SortIn) {
        self.tick_rows(inp, (&inp.rclr, &inp.rtrig, &inp.sval));
    }

    /// [`Sort::tick`] with the row events and the read port's words (`rclr`, `rtrig`, `sval`)
    /// given apart from `inp` (whose own are then not read): the block passes the egress's
    /// outputs without a copy.
    ///
    /// (Long: the engines' processes of `rtl/v3/capfc_sort.sv` in its order, one phase after
    /// another, so that each register's next value reads beside the RTL's.)
    pub fn tick_rows(&mut self, inp: &SortIn, rows: (&[bool], &[bool], &[u64])) {
        let (in_rclr, in_rtrig, in_sval) = rows;
        let p = self.p;
        let (np, cw, pw, lw) = (p.np, p.cw, p.pw(), p.lw());
        let nlp = 1usize << lw;
        let cut_f = p.cut_f;
        let rst = inp.rst;
        let rclr = |r: usize| r < p.nr() && in_rclr[r];
        let rtrig = |r: usize| r < p.nr() && in_rtrig[r];
        let sval = |o: usize| if o < np { in_sval[o] } else { 0 };
        let f = self.fault;
        self.wlog.0.clear();
        // (an idle engine settled is left out whenever no fault is in force: exact, the
        // lockstep compares its registers with the RTL's every cycle)
        let still_ok = f.is_none();
        self.still.0.resize(self.eng.len(), (0, [0; 2]));
        // (no row triggers a sort in most cycles: then no engine's rows need a look)
        // (an OR of every element, no early exit: a few vector instructions)
        let any = |t: &[bool]| t.iter().fold(0u8, |a, &t| a | u8::from(t)) != 0;
        let trig_any = any(in_rtrig);
        let words = in_sval.get(..np).unwrap_or(in_sval);
        if still_ok && !rst && !trig_any && self.all_still.0 .0 && self.all_still.0 .1 == words {
            // (every engine was left out at the last edge, unchanged since: each is idle, its
            // run of idle edges at STILL_AFTER and its words the same, so the loop below would
            // leave each out again)
            self.still_edges.0 += self.eng.len() as u64;
            self.all_still_edges.0 += 1;
            self.gcal_q.fill(inp.cfg_mode_cal);
            self.gcut_q.fill(trunc(inp.cfg_cut, cut_f + 1));
            return;
        }
        let mut all_still = still_ok && !rst;
        let Sort {
            eng,
            gcal_q,
            gcut_q,
            wlog,
            fault_ram_write,
            still,
            still_edges,
            ..
        } = self;
        let flip = u64::from(*fault_ram_write);
        // each engine in place: its registers before this edge copied out (its snap RAM stays
        // where it is: read, then written, in place below)
        for (o, n) in eng.iter_mut().enumerate() {
            // (an idle engine whose rows trigger nothing: only the word's pipeline moves)
            let rows = (2 * o) << lw..((2 * o + 2) << lw).min(in_rtrig.len());
            let rows_trig = trig_any && in_rtrig.get(rows).is_some_and(any);
            if !rst && !n.busy_q && n.pend_q == 0 && !n.snre_q && !rows_trig {
                // (after STILL_AFTER idle edges under the same words of its ports, the pipeline
                // and its compares hold their next values: the edge is left out)
                let words = [sval(2 * o), sval(2 * o + 1)];
                let (run, seen) = &mut still.0[o];
                if still_ok && *run >= STILL_AFTER && *seen == words {
                    still_edges.0 += 1;
                    continue;
                }
                all_still = false;
                idle_engine(p, o, n, in_sval);
                *run = if *seen == words {
                    (*run + 1).min(STILL_AFTER)
                } else {
                    1
                };
                *seen = words;
                continue;
            }
            all_still = false;
            still.0[o].0 = 0;
            // (the widths a busy engine needs, taken only when one is)
            let (kw, sumw, mw, nw, jw, nj) = (p.kw(), p.sumw(), p.mw(), p.nw(), p.jw(), p.nj());
            let e = &Engine {
                snap: Vec::new(),
                ..*n
            };
            let snap = &mut n.snap;
            let (ph, k) = (e.ph_q, e.k_q);
            let gi = o / 8;
            let row_of = |j: usize| ((2 * o + (j >> lw)) << lw) + (j % nlp);
            // (nj <= 16: NL <= 8, check_params)
            let rowclr: [bool; 16] = std::array::from_fn(|j| j < nj && rclr(row_of(j)));
            let abort = e.busy_q && rowclr[((e.sl_q as usize) << lw) | e.row_q as usize];
            // the word's pipeline
            n.x_q = e.snap_rd_q;
            let xs = sval(2 * o + e.sl_q as usize);
            n.xr_q = if ph == PH_MAX || ph == PH_COPY {
                xs
            } else {
                e.x_q
            };
            let xr = e.xr_q;
            let yv = e.yv_q;
            n.yv_q = e.busy_q && ph != PH_MUL && ph != PH_CNT && k >= 4 && k < np as u64 + 4;
            n.se_q = e.busy_q && ph == PH_SRCH && k == np as u64 + 5;
            let yi = trunc(k.wrapping_sub(5), pw);
            n.y_q = xr;
            let c1 = trunc(e.v_q | (1 << e.bit_q), cw + 1);
            let c2 = trunc(e.v_q | (2 << e.bit_q), cw + 1);
            let c3 = trunc(e.v_q | (3 << e.bit_q), cw + 1);
            n.ge_q = xr >= c1;
            n.ge2_q = xr >= c2;
            n.ge3_q = xr >= c3;
            n.gt_q = xr > e.v_q;
            n.gty_q = xr > e.y_q;
            n.ldm_q = false;
            n.eq_q = xr == e.v_q;
            n.nz_q = xr != 0;
            // grant
            let avail: [bool; 16] =
                std::array::from_fn(|j| j < nj && e.pend_q >> j & 1 == 1 && !rowclr[j]);
            let granted = !e.busy_q && avail.iter().any(|&a| a);
            let first = (0..nj).find(|&j| avail[j]);
            let g = (0..nj)
                .find(|&j| avail[j] && j as u64 >= e.rr_q)
                .or(first)
                .unwrap_or(0) as u64;
            let g = pick(f, Fault::RrFixed, g, first.unwrap_or(0) as u64);
            let pend_end = k == np as u64 + 5;
            let take = yv && (e.gt_q || (e.eq_q && e.nz_q && e.t_q < e.need_q));
            n.wv_q = false;
            let mut snap_we = false;
            let gcut = gcut_q[gi];
            if !e.busy_q {
                if granted {
                    n.rr_q = trunc(g + 1, jw);
                    n.busy_q = true;
                    n.sl_q = g >> lw & 1 == 1;
                    n.row_q = trunc(g, lw);
                    n.cal_q = gcal_q[gi];
                    n.ph_q = if gcal_q[gi] { PH_COPY } else { PH_MAX };
                    n.k_q = 0;
                    n.v_q = 0;
                    n.ix_q = 0;
                    n.acc_q = 0;
                }
            } else {
                // (an abort drops busy and the pass's E write only, below)
                n.k_q = trunc(k + 1, kw);
                match ph {
                    PH_MAX => {
                        if pend_end {
                            n.wv_q = e.v_q != 0;
                            n.wl_q = e.row_q;
                            n.wi_q = e.ix_q;
                            n.busy_q = false;
                        }
                    }
                    PH_COPY => {
                        if yv {
                            snap_we = true;
                            n.acc_q = trunc(e.acc_q + e.y_q, sumw);
                        }
                        if pend_end {
                            n.ph_q = PH_MUL;
                            n.k_q = 0;
                            n.tgt_q = 0;
                            n.cb_q = gcut >> cut_f & 1 == 1;
                        }
                    }
                    PH_MUL => {
                        let mut cbit = false;
                        for b in 0..u64::from(cut_f) {
                            if k == u64::from(cut_f) - 1 - b {
                                cbit = gcut >> b & 1 == 1;
                            }
                        }
                        n.cb_q = cbit;
                        n.tgt_q = trunc((e.tgt_q << 1) + if e.cb_q { e.acc_q } else { 0 }, mw);
                        if k == u64::from(cut_f) {
                            n.acc_q = 0;
                            n.acc2_q = 0;
                            n.acc3_q = 0;
                            n.bit_q = p.bstart();
                            n.ph_q = PH_SRCH;
                            n.k_q = 0;
                        }
                    }
                    PH_SRCH => {
                        // (the candidates are the pass's: v_q and bit_q change at its end only)
                        let y = e.y_q;
                        if yv && pick(f, Fault::SrchDigit1Gt, e.ge_q, e.ge_q && y != c1) {
                            n.acc_q = trunc(e.acc_q + e.y_q, sumw);
                        }
                        if yv && pick(f, Fault::SrchDigit2Gt, e.ge2_q, e.ge2_q && y != c2) {
                            n.acc2_q = trunc(e.acc2_q + e.y_q, sumw);
                        }
                        if yv && pick(f, Fault::SrchDigit3Gt, e.ge3_q, e.ge3_q && y != c3) {
                            n.acc3_q = trunc(e.acc3_q + e.y_q, sumw);
                        }
                        let met =
                            |a: u64| ge(f, Fault::SrchMetStrict, trunc(a << cut_f, mw), e.tgt_q);
                        n.met_q = met(e.acc_q);
                        n.met2_q = met(e.acc2_q);
                        n.met3_q = met(e.acc3_q);
                        if e.se_q {
                            n.acc_q = 0;
                            n.acc2_q = 0;
                            n.acc3_q = 0;
                            n.k_q = 0;
                            if pick(f, Fault::SrchLastDigitSkipped, e.bit_q == 0, e.bit_q <= 2) {
                                n.ph_q = PH_GT;
                            } else {
                                n.bit_q = trunc(e.bit_q.wrapping_sub(2), p.bw());
                            }
                        }
                    }
                    PH_GT => {
                        if yv && pick(f, Fault::GtIncludesTheta, e.gt_q, e.gt_q || e.eq_q) {
                            n.acc_q = trunc(e.acc_q + e.y_q, sumw);
                        }
                        if pend_end {
                            n.ph_q = PH_CNT;
                            n.k_q = 0;
                        }
                    }
                    PH_CNT => {
                        n.acc_q = trunc(e.acc_q + e.v_q, sumw);
                        n.met_q = ge(f, Fault::CntMetStrict, trunc(e.acc_q << cut_f, mw), e.tgt_q);
                        if k != 0 && (e.met_q || k == np as u64 + 1) {
                            n.need_q =
                                pick(f, Fault::CntNeedPlusOne, trunc(k - 1, nw), trunc(k, nw));
                            n.t_q = 0;
                            n.ph_q = PH_SEL;
                            n.k_q = 0;
                        }
                    }
                    PH_SEL => {
                        let tie = e.eq_q && e.nz_q;
                        let take = pick(f, Fault::SelTakesEveryTie, take, yv && (e.gt_q || tie));
                        let take = pick_with(f, Fault::SelTieLast, take, || {
                            // (ties taken from the highest index down: this one if fewer than
                            // need lie above it)
                            let above = ((yi + 1) as usize..np)
                                .filter(|&j| snap[j] == e.v_q)
                                .count() as u64;
                            yv && (e.gt_q || tie && above < e.need_q)
                        });
                        if take {
                            n.wv_q = true;
                            n.wl_q = e.row_q;
                            n.wi_q = yi;
                            if !e.gt_q {
                                n.t_q = trunc(e.t_q + 1, nw);
                            }
                        }
                        if pend_end {
                            n.busy_q = false;
                        }
                    }
                    _ => n.busy_q = false,
                }
                // the running value (the RTL's, off the phase's case): Stop-Max's maximum,
                // theta's two bits at the search pass's end
                let load = if e.ldm_q { e.gty_q } else { e.gt_q };
                let tie = e.y_q == e.v_q && e.y_q != 0;
                if yv && ph == PH_MAX && pick(f, Fault::MaxTieLast, load, load || tie) {
                    n.v_q = e.y_q;
                    n.ix_q = yi;
                    n.ldm_q = true;
                }
                if e.se_q {
                    let (m2, m3) = (e.met2_q, e.met3_q);
                    let (m2, m3) = pick(f, Fault::SrchLowerDigit, (m2, m3), (m2, m3 && !m2));
                    n.v_q = if m3 {
                        trunc(c3, cw)
                    } else if m2 {
                        trunc(c2, cw)
                    } else if e.met_q {
                        trunc(c1, cw)
                    } else {
                        e.v_q
                    };
                }
                if pick(f, Fault::SortNotAborted, abort, false) {
                    n.busy_q = false;
                    n.wv_q = false;
                }
            }
            // pending requests
            let mut pend = 0u64;
            // (the engine's NJ rows: pend_q has NJ bits)
            for (j, &clr) in rowclr.iter().enumerate().take(nj) {
                let was = e.pend_q >> j & 1 == 1;
                let clr = pick(f, Fault::PendingKeptOnClear, clr, clr && !was);
                let keep = was && !clr && !(granted && g == j as u64);
                let req = ((j % nlp) as u32) < p.nl && 2 * o + (j >> lw) < np && rtrig(row_of(j));
                if keep || req {
                    pend |= 1 << j;
                }
            }
            n.pend_q = pend;
            if rst {
                n.pend_q = 0;
                n.rr_q = 0;
                n.busy_q = false;
                n.wv_q = false;
                n.yv_q = false;
                n.se_q = false;
                // (the snap RAM's write is not gated by the reset: a word written in a reset
                // cycle is written again by the next sort's copy pass before any read)
            }
            // the snap RAM: its read (issued from registers) before its write
            // (issued from the engine's registers, made a cycle later from its own)
            n.snre_q = issue(p, e) && (ph == PH_SRCH || ph == PH_GT || ph == PH_SEL);
            n.snra_q = trunc(k, pw);
            if e.snre_q {
                n.snap_rd_q = snap[e.snra_q as usize];
            }
            if snap_we {
                snap[yi as usize] = e.y_q ^ flip;
                wlog.0.push((o as u32, yi, snap[yi as usize].into()));
            }
        }
        gcal_q.fill(inp.cfg_mode_cal);
        gcut_q.fill(trunc(inp.cfg_cut, cut_f + 1));
        let (a, w) = &mut self.all_still.0;
        *a = all_still;
        if all_still {
            w.clear();
            w.extend_from_slice(words);
        }
    }

    /// The last edge left every engine out (unchanged: [`Sort::outputs_into`] gives what it gave
    /// before that edge).
    pub fn last_edge_still(&self) -> bool {
        self.all_still.0 .0
    }

    /// Sparse, every engine settled: idle for [`STILL_AFTER`] edges in a row under the words
    /// `sval` gives its ports now, so its word's pipeline and compares hold what the next idle
    /// edge would load (a restored unit's engines are not, until clocked again).
    pub fn engines_settled(&self, sval: impl Fn(usize) -> u64) -> bool {
        self.sparse.0
            && self.still.0.len() == self.eng.len()
            && self.still.0.iter().enumerate().all(|(o, (run, seen))| {
                *run >= STILL_AFTER && *seen == [sval(2 * o), sval(2 * o + 1)]
            })
    }

    /// Every engine idle (a condition of the block's idle advance,
    /// [`super::top::Top::advance_idle`]): not busy, nothing pending, no write, read or pass
    /// window in flight.
    pub fn idle_ready(&self) -> bool {
        self.eng
            .iter()
            .all(|e| !(e.busy_q || e.wv_q || e.snre_q || e.yv_q || e.se_q) && e.pend_q == 0)
    }

    /// Every register and RAM word under its RTL name (relative to the unit's instance).
    pub fn regs(&self) -> Regs {
        let mut s = RegStrings::default();
        self.visit(&mut s);
        s.0
    }

    /// Every register and RAM word, in the order of [`Sort::regs`], into `s`.
    pub fn visit<S: RegSink + ?Sized>(&self, s: &mut S) {
        let p = self.p;
        let (cw, pw, lw, kw) = (
            p.cw as usize,
            p.pw() as usize,
            p.lw() as usize,
            p.kw() as usize,
        );
        let (sumw, mw, nw, jw, bw) = (
            p.sumw() as usize,
            p.mw() as usize,
            p.nw() as usize,
            p.jw() as usize,
            p.bw() as usize,
        );
        let eng = &self.eng;
        cat_flags!(
            s, eng, busy_q, cal_q, sl_q, met_q, met2_q, met3_q, cb_q, ge_q, ge2_q, ge3_q, gt_q,
            eq_q, nz_q, yv_q, se_q, gty_q, ldm_q, wv_q, snre_q
        );
        s.cat(format_args!("snra_q"), eng.len(), pw, |k| eng[k].snra_q);
        let gcal = &self.gcal_q;
        s.cat(format_args!("gcal_q"), gcal.len(), 1, |k| gcal[k].into());
        for (gi, c) in self.gcut_q.iter().enumerate() {
            s.val(
                format_args!("gcut_q[{gi}]"),
                (*c).into(),
                p.cut_f as usize + 1,
            );
        }
        for (o, e) in self.eng.iter().enumerate() {
            let mut reg = |name: &str, v: u64, w: usize| {
                s.val(format_args!("{name}[{o}]"), v.into(), w);
            };
            reg("pend_q", e.pend_q, p.nj());
            reg("rr_q", e.rr_q, jw);
            reg("ph_q", e.ph_q.into(), 3);
            reg("row_q", e.row_q, lw);
            reg("k_q", e.k_q, kw);
            reg("bit_q", e.bit_q, bw);
            reg("v_q", e.v_q, cw);
            reg("ix_q", e.ix_q, pw);
            reg("acc_q", e.acc_q, sumw);
            reg("acc2_q", e.acc2_q, sumw);
            reg("acc3_q", e.acc3_q, sumw);
            reg("tgt_q", e.tgt_q, mw);
            reg("need_q", e.need_q, nw);
            reg("t_q", e.t_q, nw);
            reg("x_q", e.x_q, cw);
            reg("xr_q", e.xr_q, cw);
            reg("y_q", e.y_q, cw);
            reg("wl_q", e.wl_q, lw);
            reg("wi_q", e.wi_q, pw);
            s.ram(format_args!("gen_engine[{o}].u_snap.mem"), &e.snap, cw);
            s.val(
                format_args!("gen_engine[{o}].u_snap.rd_q"),
                e.snap_rd_q.into(),
                cw,
            );
        }
    }
}
