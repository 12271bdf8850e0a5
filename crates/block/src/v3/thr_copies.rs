//! `capfc_thr_copies` (`rtl/v3/capfc_thr_copies.sv`): the thresholds' copies per group of eight
//! ports, shared by the ingress and the egress.
//!
//! A refresh names one priority a cycle (`rf_q`: 0 after a reset, then counting); its words, given
//! by the user from the configuration in the same cycle, go down a chain of registers (`chp_q`,
//! `cha_q`, `chd_q`, a stage per group), and each group writes its stage into its two LUT RAMs
//! (`u_tha`, `u_thd`, a word a priority) every cycle. The RAMs are read asynchronously (the words
//! before this cycle's write). No register but `rf_q` is reset.

use super::{trunc, RegSink, RegStrings, Regs};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ThrCopies {
    /// groups
    pub ng: usize,
    /// the arrival side's word width (TAW) and the departure side's (TDW)
    pub taw: u32,
    pub tdw: u32,
    /// `rf_q`: the priority refreshed in this cycle
    pub rf_q: u8,
    /// `chp_q[g]`, `cha_q[g]`, `chd_q[g]`: the chain's stage g (priority, words)
    pub chp_q: Vec<u8>,
    pub cha_q: Vec<u128>,
    pub chd_q: Vec<u128>,
    /// `gen_grp[g].u_tha.mem[p]`, `gen_grp[g].u_thd.mem[p]`
    pub tha: Vec<[u128; 8]>,
    pub thd: Vec<[u128; 8]>,
    /// this cycle's RAM writes (`u_tha` of group g is RAM 2g, `u_thd` 2g + 1, in the order
    /// `visit` lists them; address, word): for the in-process lockstep (no state)
    pub wlog: super::Scratch<Vec<(u32, u64, u128)>>,
    /// A deliberate bug in the refresh ([`super::fault`]), set by [`super::top::Top::set_fault`]
    #[serde(skip)]
    pub fault: Option<super::fault::Fault>,
}

impl ThrCopies {
    pub fn new(ng: usize, taw: u32, tdw: u32) -> Self {
        ThrCopies {
            ng,
            taw,
            tdw,
            rf_q: 0,
            chp_q: vec![0; ng],
            cha_q: vec![0; ng],
            chd_q: vec![0; ng],
            tha: vec![[0; 8]; ng],
            thd: vec![[0; 8]; ng],
            wlog: Default::default(),
            fault: None,
        }
    }

    /// `rf`: the priority whose words the user gives in this cycle.
    #[inline]
    pub fn rf(&self) -> usize {
        usize::from(self.rf_q)
    }

    /// `rd_a` of group `g` at priority `p` (asynchronous: the word before this cycle's write).
    #[inline]
    pub fn read_a(&self, g: usize, p: usize) -> u128 {
        self.tha[g][p & 7]
    }

    /// `rd_d` of group `g` at priority `p`.
    #[inline]
    pub fn read_d(&self, g: usize, p: usize) -> u128 {
        self.thd[g][p & 7]
    }

    /// The clock edge: every group writes its stage, the chain moves, `rf_q` counts.
    pub fn tick(&mut self, rst: bool, wa_rec: u128, wd_rec: u128) {
        self.wlog.0.clear();
        for g in 0..self.ng {
            let p = usize::from(self.chp_q[g] & 7);
            let p = super::fault::pick(
                self.fault,
                super::fault::Fault::ThrRefreshShifted,
                p,
                (p + 1) & 7,
            );
            self.tha[g][p] = self.cha_q[g];
            self.thd[g][p] = self.chd_q[g];
            self.wlog.0.push(((2 * g) as u32, p as u64, self.cha_q[g]));
            self.wlog
                .0
                .push(((2 * g + 1) as u32, p as u64, self.chd_q[g]));
        }
        for g in (1..self.ng).rev() {
            self.chp_q[g] = self.chp_q[g - 1];
            self.cha_q[g] = self.cha_q[g - 1];
            self.chd_q[g] = self.chd_q[g - 1];
        }
        self.chp_q[0] = self.rf_q;
        self.cha_q[0] = wa_rec & mask(self.taw);
        self.chd_q[0] = wd_rec & mask(self.tdw);
        self.rf_q = if rst {
            0
        } else {
            trunc(u64::from(self.rf_q) + 1, 3) as u8
        };
    }

    /// The priority whose words stage `g` of the chain holds `ahead` edges from now (the refresh
    /// pointer moving on by one an edge): the one the pointer named `g + 1` edges before then.
    fn chain_prio(&self, g: usize, ahead: u64) -> usize {
        (i64::from(self.rf_q) - 1 - g as i64 + ahead as i64).rem_euclid(8) as usize
    }

    /// The chain as a settled refresh leaves it: each stage holds the priority the refresh read
    /// `g + 1` edges ago and that priority's words as its tables hold them (so each edge
    /// rewrites every table word it writes with the word it holds).
    pub fn settled(&self) -> bool {
        (0..self.ng).all(|g| {
            let p = self.chain_prio(g, 0);
            usize::from(self.chp_q[g]) == p
                && self.cha_q[g] == self.tha[g][p]
                && self.chd_q[g] == self.thd[g][p]
        })
    }

    /// `k` refresh edges of a periodic block ([`ThrCopies::settled`], with the thresholds and
    /// the lossless priorities unchanged, no reset, no fault) by arithmetic: the pointer moves
    /// on by `k`, each chain stage holds the priority `g + 1` behind it with the tables' words
    /// for it, the tables keep theirs (every word rewritten with itself), and the write log is
    /// the last edge's.
    pub fn advance_settled(&mut self, k: u64) {
        if k == 0 {
            return;
        }
        // (the last edge's writes: the chain one edge before the end)
        self.wlog.0.clear();
        for g in 0..self.ng {
            let p = self.chain_prio(g, k - 1);
            self.wlog.0.push(((2 * g) as u32, p as u64, self.tha[g][p]));
            self.wlog
                .0
                .push(((2 * g + 1) as u32, p as u64, self.thd[g][p]));
        }
        self.rf_q = ((u64::from(self.rf_q) + k) & 7) as u8;
        for g in 0..self.ng {
            let p = self.chain_prio(g, 0);
            self.chp_q[g] = p as u8;
            self.cha_q[g] = self.tha[g][p];
            self.chd_q[g] = self.thd[g][p];
        }
    }

    /// The registers and RAM words under their RTL names, prefixed by the instance's path.
    pub fn regs(&self, prefix: &str, out: &mut Regs) {
        let mut s = RegStrings::default();
        self.visit(prefix, &mut s);
        out.extend(s.0);
    }

    /// The registers and RAM words, in the order of [`ThrCopies::regs`], into `s`.
    pub fn visit<S: RegSink + ?Sized>(&self, prefix: &str, s: &mut S) {
        s.val(format_args!("{prefix}rf_q"), self.rf_q.into(), 3);
        for g in 0..self.ng {
            s.val(format_args!("{prefix}chp_q[{g}]"), self.chp_q[g].into(), 3);
            s.val(
                format_args!("{prefix}cha_q[{g}]"),
                self.cha_q[g],
                self.taw as usize,
            );
            s.val(
                format_args!("{prefix}chd_q[{g}]"),
                self.chd_q[g],
                self.tdw as usize,
            );
            s.ram128(
                format_args!("{prefix}gen_grp[{g}].u_tha.mem"),
                &self.tha[g],
                self.taw as usize,
            );
            s.ram128(
                format_args!("{prefix}gen_grp[{g}].u_thd.mem"),
                &self.thd[g],
                self.tdw as usize,
            );
        }
    }
}

/// The low `w` bits set (w <= 128).
#[inline]
pub fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}
