//! `capfc_v2_egress`: egress occupancy per (output port, priority), the arrival counter table C in one
//! RAM per output port, and the egress congestion signals E.
//!
//! Contract (docs/microarchitecture-v2.md, "Egress queues, counter table, E"): the enqueue's accept
//! decision is combinational on the registered occupancy; a dequeue in the same cycle is applied
//! first (its row clear and E clear included), then the enqueue (its counter increment and sort
//! request). An increment is a two-stage read-modify-write: stage 1 reads the counter word (read
//! port 0), stage 2 writes it back, forwarding the previous cycle's write of the same word. A row's
//! valid bitmap (`vld_q`, flip-flops) is zeroed by a row clear and gets the word's bit from the
//! stage-2 write; a clear wins over the write of the same cycle. Read port 1 serves the port's sort
//! engine (`sval`). The occupancy of queue (o, p) lives in one of two 8-word LUT RAMs of port o:
//! `u_deq`, written by dequeue lane o, and `u_enq`, written by the enqueue lane, so that each RAM
//! has one writer; `sel_q` names the one written last and `vq_q` says whether the queue was
//! written since reset (else its occupancy is 0). Reset: `sel_q`, `vq_q`, bitmaps, E and the
//! pipeline 0; RAM contents are not reset.

use super::cfg::CfgRegs;
use super::fault::{ge, gt, le, Fault, Injected};
use super::ram::{live_read, live_write, LutRam, Ram};
use super::{BlockParams, Enqueue, Pkt, NPRIO};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Egress {
    /// `sel_q`, one byte per port: bit p set = the occupancy of (o, p) is in `enq[o]`, else `deq[o]`.
    pub sel_q: Vec<u8>,
    /// `vq_q`, one byte per port: bit p set = queue (o, p) was written since reset.
    pub vq_q: Vec<u8>,
    /// `gen_port[o].u_deq.mem`: occupancies written by dequeue lane o, word p.
    pub deq: Vec<LutRam<u32>>,
    /// `gen_port[o].u_enq.mem`: occupancies written by the enqueue lane, word p.
    pub enq: Vec<LutRam<u32>>,
    /// `vld_q[{o,l}]`: the row's valid bitmap, bit i: word i of the row counts.
    pub vld_q: Vec<u128>,
    /// `e_q[{o,l}]`: bit i is E of input i.
    pub e_q: Vec<u128>,
    pub inc_v_q: bool,
    pub inc_o_q: u32,
    pub inc_l_q: u32,
    pub inc_i_q: u32,
    pub wr_v_q: bool,
    pub wr_o_q: u32,
    pub wr_l_q: u32,
    pub wr_i_q: u32,
    pub wr_cnt_q: u16,
    /// `gen_port[o].u_cnt`: counter words, word `{l, i}`.
    pub cnt: Vec<Ram<u16>>,
}

/// What this cycle's dequeues and enqueue do, computed from the registers before any update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EgressEvents {
    /// Per port: bit p set when queue (o,p) clears its counters (occupancy fell to WARN or below).
    pub clr_c: Vec<u8>,
    /// Per port: bit p set when queue (o,p) clears E (occupancy fell to XON or below).
    pub clr_e: Vec<u8>,
    /// Per port: bit l set when row {o,l} is cleared (`rclr` of the contract).
    pub rclr: Vec<u8>,
    /// Per port: bit l set when row {o,l} clears E (`eclr`).
    pub eclr: Vec<u8>,
    /// The ports with a bit set in `clr_c` or `clr_e`.
    pub clr_ports: Vec<usize>,
    /// Occupancies written this cycle: (queue, value, written by the enqueue lane), dequeues first.
    pub occ: Vec<(usize, u32, bool)>,
    /// The enqueue's counter increment (stage 1): (port, class, input).
    pub inc: Option<(usize, usize, usize)>,
    /// The enqueue's sort request: (port, class).
    pub trig: Option<(usize, usize)>,
    /// The increment pipeline's fields loaded this cycle (`inc_o_d`, `inc_l_d`, `inc_i_d`).
    pub inc_fields: (u32, u32, u32),
}

impl EgressEvents {
    pub fn new(np: usize) -> Self {
        EgressEvents {
            clr_c: vec![0; np],
            clr_e: vec![0; np],
            rclr: vec![0; np],
            eclr: vec![0; np],
            clr_ports: Vec::with_capacity(np),
            occ: Vec::with_capacity(np + 1),
            inc: None,
            trig: None,
            inc_fields: (0, 0, 0),
        }
    }

    pub fn clr_e(&self, q: usize) -> bool {
        self.clr_e[q / NPRIO] >> (q % NPRIO) & 1 == 1
    }

    /// Row {o,l} is cleared this cycle.
    pub fn rclr(&self, o: usize, l: usize) -> bool {
        self.rclr[o] >> l & 1 == 1
    }

    fn reset(&mut self) {
        for &o in &self.clr_ports {
            self.clr_c[o] = 0;
            self.clr_e[o] = 0;
            self.rclr[o] = 0;
            self.eclr[o] = 0;
        }
        self.clr_ports.clear();
        self.occ.clear();
        self.inc = None;
        self.trig = None;
    }
}

/// The stage-2 write of an increment: (port, class, input, counter word).
pub(crate) type Stage2 = (usize, usize, usize, u16);

impl Egress {
    pub fn new(p: &BlockParams) -> Self {
        Egress {
            sel_q: vec![0; p.np],
            vq_q: vec![0; p.np],
            deq: vec![LutRam::new(NPRIO); p.np],
            enq: vec![LutRam::new(NPRIO); p.np],
            vld_q: vec![0; p.nr()],
            e_q: vec![0; p.nr()],
            inc_v_q: false,
            inc_o_q: 0,
            inc_l_q: 0,
            inc_i_q: 0,
            wr_v_q: false,
            wr_o_q: 0,
            wr_l_q: 0,
            wr_i_q: 0,
            wr_cnt_q: 0,
            cnt: (0..p.np).map(|_| Ram::new(p.cnt_words(), 2)).collect(),
        }
    }

    /// Reset: every register to its reset value (bitmaps 0: every row reads 0); RAMs keep their
    /// contents.
    pub fn reset(&mut self, p: &BlockParams) {
        let cnt = std::mem::take(&mut self.cnt);
        let (deq, enq) = (std::mem::take(&mut self.deq), std::mem::take(&mut self.enq));
        *self = Egress::new(p);
        (self.cnt, self.deq, self.enq) = (cnt, deq, enq);
    }

    /// The egress occupancy of queue `q = o*8+p` in units.
    #[inline]
    pub fn occ(&self, q: usize) -> u32 {
        let (o, pr) = (q / NPRIO, q % NPRIO);
        live_read(self.vq_q[o], self.sel_q[o], &self.deq[o], &self.enq[o], pr)
    }

    /// Address of word `{l, i}` in a counter RAM.
    #[inline]
    pub fn word(p: &BlockParams, l: usize, i: usize) -> usize {
        (l << p.pw()) | i
    }

    /// The architectural value of `C[o][l][i]` as a reader sees it now: the RAM contents with the
    /// increment in stage 2 (if any) applied, masked by the row's valid bitmap.
    pub fn counter(&self, p: &BlockParams, o: usize, l: usize, i: usize, f: Option<Fault>) -> u16 {
        if let Some((so, sl, si, c)) = self.stage2(p, f) {
            if (so, sl, si) == (o, l, i) {
                return c;
            }
        }
        if self.vld_q[p.row(o, l)] >> i & 1 == 1 {
            self.cnt[o].mem[Self::word(p, l, i)]
        } else {
            0
        }
    }

    /// `enq_ok`: the lane is valid and names existing ports.
    pub fn enq_ok(p: &BlockParams, e: &Enqueue) -> bool {
        usize::from(e.oport) < p.np && usize::from(e.iport) < p.np
    }

    /// `enq_accept` (combinational).
    pub fn accept(&self, p: &BlockParams, cfg: &CfgRegs, e: &Enqueue, f: Option<Fault>) -> bool {
        if !Self::enq_ok(p, e) {
            return false;
        }
        let pr = usize::from(e.prio & 7);
        let b = u64::from(self.occ(usize::from(e.oport) * NPRIO + pr)) + u64::from(p.units(e.size));
        le(f, Fault::EgMaxStrict, b, u64::from(cfg.eg_max_q[pr]))
    }

    /// This cycle's dequeue and enqueue effects, from the registers (no update).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn events(
        &self,
        p: &BlockParams,
        cfg: &CfgRegs,
        deq: &[Option<Pkt>],
        enq: Option<&Enqueue>,
        enq_accept: bool,
        f: Option<Fault>,
        ev: &mut EgressEvents,
    ) {
        if ev.clr_c.len() != p.np {
            // A scratch buffer that was not carried over (a block restored from a snapshot).
            *ev = EgressEvents::new(p.np);
        }
        ev.reset();
        let mask = p.occ_mask();
        let mut enq_mid = None;
        let enq_q = enq.map(|e| usize::from(e.oport) * NPRIO + usize::from(e.prio & 7));
        for (o, d) in deq.iter().enumerate() {
            let Some(d) = d else { continue };
            let pr = usize::from(d.prio3().value());
            let q = o * NPRIO + pr;
            let mid = self.occ(q).wrapping_sub(p.units(d.size)) & mask;
            ev.occ.push((q, mid, false));
            if enq_q == Some(q) && !f.is(Fault::EnqDeqNotForwarded) {
                enq_mid = Some(mid);
            }
            let clr_c = le(f, Fault::ClearBelowWarn, mid, cfg.eg_warn_q[pr]);
            let clr_e = le(f, Fault::XonOffByOne, mid, cfg.eg_xon_q[pr]);
            if clr_c || clr_e {
                ev.clr_c[o] |= u8::from(clr_c) << pr;
                ev.clr_e[o] |= u8::from(clr_e) << pr;
                if let Some(l) = cfg.counted(p, pr) {
                    ev.rclr[o] |= u8::from(clr_c) << l;
                    ev.eclr[o] |= u8::from(clr_e) << l;
                }
                ev.clr_ports.push(o);
            }
        }
        let pwm = super::mask32(p.pw());
        ev.inc_fields = match enq {
            Some(e) => (
                u32::from(e.oport) & pwm,
                cfg.lidx(usize::from(e.prio & 7)) as u32 & super::mask32(p.lw()),
                u32::from(e.iport) & pwm,
            ),
            None => (0, 0, 0),
        };
        if let (Some(e), true) = (enq, enq_accept) {
            let pr = usize::from(e.prio & 7);
            let o = usize::from(e.oport);
            let q = o * NPRIO + pr;
            let occ = (enq_mid.unwrap_or(self.occ(q)) + p.units(e.size)) & mask;
            ev.occ.push((q, occ, true));
            if let Some(l) = cfg.counted(p, pr) {
                let warn = cfg.eg_warn_q[pr];
                let inc = ge(f, Fault::WarnOffByOne, occ, warn);
                if inc {
                    ev.inc = Some((o, l, usize::from(e.iport)));
                }
                if cfg.sort_enabled() && gt(f, Fault::XoffEGe, occ, cfg.eg_xoff_q[pr]) {
                    ev.trig = Some((o, l));
                }
            }
        }
    }

    /// Stage 2 of the increment pipeline: what it writes this cycle, if anything.
    pub(crate) fn stage2(&self, p: &BlockParams, f: Option<Fault>) -> Option<Stage2> {
        if !self.inc_v_q {
            return None;
        }
        let (o, l, i) = (
            self.inc_o_q as usize,
            self.inc_l_q as usize,
            self.inc_i_q as usize,
        );
        let word = if f.is(Fault::CounterNotForwarded) {
            self.cnt[o].rd_q[0]
        } else {
            self.forward(o, l, i, self.cnt[o].rd_q[0])
        };
        let cur = self.valid_word(p, o, l, i, word);
        let new = if cur != p.cnt_max() {
            cur + 1
        } else if f.is(Fault::CounterWraps) {
            0
        } else {
            cur
        };
        Some((o, l, i, new))
    }

    /// Read data of word i of row {o,l}, with the write that ended the previous cycle forwarded.
    #[inline]
    fn forward(&self, o: usize, l: usize, i: usize, word: u16) -> u16 {
        if self.wr_v_q
            && self.wr_o_q as usize == o
            && self.wr_l_q as usize == l
            && self.wr_i_q as usize == i
        {
            self.wr_cnt_q
        } else {
            word
        }
    }

    /// `word` if its bit of row {o,l}'s bitmap is set, else 0.
    #[inline]
    fn valid_word(&self, p: &BlockParams, o: usize, l: usize, i: usize, word: u16) -> u16 {
        if self.vld_q[p.row(o, l)] >> i & 1 == 1 {
            word
        } else {
            0
        }
    }

    /// `sval[o]`: the architectural counter {o, l, i} read through read port 1 in the previous
    /// cycle (the engine passes the row and index it issued).
    pub fn sval(&self, p: &BlockParams, o: usize, l: usize, i: usize) -> u16 {
        let word = self.forward(o, l, i, self.cnt[o].rd_q[1]);
        self.valid_word(p, o, l, i, word)
    }

    /// This cycle's RAM reads (before its writes): read port 0 for the enqueue's increment, read
    /// port 1 for the sort engines (`reads`: port, class, index).
    pub(crate) fn read_ports(
        &mut self,
        p: &BlockParams,
        ev: &EgressEvents,
        reads: &[(usize, usize, usize)],
    ) {
        if let Some((o, l, i)) = ev.inc {
            self.cnt[o].read(0, Self::word(p, l, i));
        }
        for &(o, l, i) in reads {
            self.cnt[o].read(1, Self::word(p, l, i));
        }
    }

    /// The clocked update after the reads: RAM writes, occupancies, clear flags, E, the pipeline.
    /// `swr`: the sort engines' E writes (port, class, mask). Returns the priorities whose E
    /// changed (bit p).
    pub(crate) fn commit(
        &mut self,
        p: &BlockParams,
        cfg: &CfgRegs,
        ev: &EgressEvents,
        st2: Option<Stage2>,
        swr: &[(usize, usize, u128)],
        f: Option<Fault>,
    ) -> u8 {
        let mut changed = 0u8;
        for &(q, v, by_enq) in &ev.occ {
            let (o, pr) = (q / NPRIO, q % NPRIO);
            let bank = if by_enq {
                &mut self.enq[o]
            } else {
                &mut self.deq[o]
            };
            live_write(&mut self.vq_q[o], &mut self.sel_q[o], bank, by_enq, pr, v);
        }
        self.wr_v_q = false;
        if let Some((o, l, i, c)) = st2 {
            self.cnt[o].write(Self::word(p, l, i), c);
            // a clear of the row in this cycle (below) wins
            self.vld_q[p.row(o, l)] |= 1u128 << i;
            (self.wr_v_q, self.wr_o_q, self.wr_l_q, self.wr_i_q) =
                (true, o as u32, l as u32, i as u32);
            self.wr_cnt_q = c;
        }
        let st2_row = st2.map(|(o, l, i, _)| (p.row(o, l), i));
        for &o in &ev.clr_ports {
            let (rc, ec) = (ev.rclr[o], ev.eclr[o]);
            for l in 0..p.nl {
                let r = p.row(o, l);
                if rc >> l & 1 == 1 {
                    self.vld_q[r] = 0;
                    if let (true, Some((sr, si))) = (f.is(Fault::IncWinsClear), st2_row) {
                        if sr == r {
                            self.vld_q[r] = 1u128 << si;
                        }
                    }
                }
                if ec >> l & 1 == 1 && self.e_q[r] != 0 {
                    self.e_q[r] = 0;
                    if let Some(pr) = cfg.prio_of_class(p, l) {
                        changed |= 1 << pr;
                    }
                }
            }
        }
        for &(o, l, m) in swr {
            // A clear of the row wins (possible only with XON_e above WARN, which software
            // rejects: the sort aborts on every clear of C, and a fall to XON clears C too).
            if ev.eclr[o] >> l & 1 == 1 {
                continue;
            }
            let r = p.row(o, l);
            if self.e_q[r] | m != self.e_q[r] {
                self.e_q[r] |= m;
                if let Some(pr) = cfg.prio_of_class(p, l) {
                    changed |= 1 << pr;
                }
            }
        }
        self.inc_v_q = ev.inc.is_some();
        (self.inc_o_q, self.inc_l_q, self.inc_i_q) = ev.inc_fields;
        changed
    }
}
