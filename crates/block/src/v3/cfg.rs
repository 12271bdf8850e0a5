//! `capfc_cfg` of v3 (`rtl/v3/capfc_cfg.sv`): v2's configuration registers (address map, write
//! port, reset to 0), with the seven threshold arrays in LUT RAM (`gen_thr[k].u_tab`, 8 words
//! each), read at the priority each unit's refresh asks for, and a valid bit per word
//! (`thr_v_q[k]`) that makes a word not written since the reset read as 0.

use super::Scratch;
use super::{RegSink, RegStrings, Regs};
use crate::block::cfg::addr;
use crate::block::{mask32, BlockParams};

/// The threshold tables, table k at address 8k + p: ing_max, ing_xoff, ing_xon, eg_max, eg_xoff,
/// eg_xon, eg_warn. The first three are read at the ingress's priority, the others at the
/// egress's.
pub const NT: usize = 7;

#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Cfg {
    /// `gen_thr[k].u_tab.mem[p]`
    pub tab: [[u64; 8]; NT],
    /// `thr_v_q[k]`: bit p, word p written since the reset
    pub thr_v_q: [u8; NT],
    pub lossless_q: u8,
    pub mode_q: u8,
    pub cut_q: u64,
    pub quanta_q: u16,
    pub refresh_q: u16,
    /// this cycle's RAM writes (the unit's RAM in the order its `visit` lists them, address,
    /// word): what the in-process lockstep compares with the RTL's write ports (no state)
    pub wlog: Scratch<Vec<(u32, u64, u128)>>,
}

/// The thresholds one unit reads in a cycle (its priority's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Thr {
    pub max: u64,
    pub xoff: u64,
    pub xon: u64,
    pub warn: u64,
}

impl Cfg {
    /// Table `k`'s word at priority `p` as the unit sees it (0 unless written since the reset).
    #[inline]
    pub fn thr(&self, k: usize, p: usize) -> u64 {
        if self.thr_v_q[k] >> (p & 7) & 1 == 1 {
            self.tab[k][p & 7]
        } else {
            0
        }
    }

    /// The ingress's thresholds at priority `ra` (`cfg_ing_*`; no warning threshold).
    pub fn ingress(&self, ra: usize) -> Thr {
        Thr {
            max: self.thr(0, ra),
            xoff: self.thr(1, ra),
            xon: self.thr(2, ra),
            warn: 0,
        }
    }

    /// The egress's thresholds at priority `ra` (`cfg_eg_*`).
    pub fn egress(&self, ra: usize) -> Thr {
        Thr {
            max: self.thr(3, ra),
            xoff: self.thr(4, ra),
            xon: self.thr(5, ra),
            warn: self.thr(6, ra),
        }
    }

    /// The clock edge: a write (`we`, address `a`, data `data`), then the reset.
    pub fn tick(&mut self, p: &BlockParams, rst: bool, we: bool, a: u8, data: u32) {
        self.wlog.0.clear();
        if we {
            let k = usize::from(a >> 3);
            let idx = usize::from(a & 7);
            if k < NT {
                // the table is written whatever the reset; its valid bit is not
                self.tab[k][idx] = u64::from(data & p.occ_mask());
                self.wlog
                    .0
                    .push((k as u32, idx as u64, self.tab[k][idx].into()));
                self.thr_v_q[k] |= 1 << idx;
            }
            match a {
                addr::LOSSLESS => self.lossless_q = data as u8,
                addr::MODE => self.mode_q = (data & 3) as u8,
                addr::CUT => self.cut_q = u64::from(data & mask32(p.cut_f + 1)),
                addr::QUANTA => self.quanta_q = data as u16,
                addr::REFRESH => self.refresh_q = data as u16,
                _ => {}
            }
        }
        if rst {
            let tab = self.tab;
            *self = Cfg {
                tab,
                ..Cfg::default()
            };
        }
    }

    /// The registers and RAM words under their RTL names, prefixed by the instance's path.
    pub fn regs(&self, p: &BlockParams, prefix: &str) -> Regs {
        let mut s = RegStrings::default();
        self.visit(p, prefix, &mut s);
        s.0
    }

    /// The registers and RAM words, in the order of [`Cfg::regs`], into `s`.
    pub fn visit<S: RegSink + ?Sized>(&self, p: &BlockParams, prefix: &str, s: &mut S) {
        for k in 0..NT {
            s.val(
                format_args!("{prefix}thr_v_q[{k}]"),
                self.thr_v_q[k].into(),
                8,
            );
        }
        s.val(
            format_args!("{prefix}lossless_q"),
            self.lossless_q.into(),
            8,
        );
        s.val(format_args!("{prefix}mode_q"), self.mode_q.into(), 2);
        s.val(
            format_args!("{prefix}cut_q"),
            self.cut_q.into(),
            p.cut_f as usize + 1,
        );
        s.val(format_args!("{prefix}quanta_q"), self.quanta_q.into(), 16);
        s.val(format_args!("{prefix}refresh_q"), self.refresh_q.into(), 16);
        for k in 0..NT {
            s.ram(
                format_args!("{prefix}gen_thr[{k}].u_tab.mem"),
                &self.tab[k],
                p.ow as usize,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> BlockParams {
        BlockParams::from_values(&[4, 14, 20, 16, 0, 8, 2])
    }

    #[test]
    fn a_word_reads_zero_until_written_after_a_reset() {
        let p = p();
        let mut c = Cfg::default();
        c.tick(&p, false, true, addr::EG_XOFF + 5, 1234);
        assert_eq!(c.egress(5).xoff, 1234);
        assert_eq!(c.egress(4).xoff, 0);
        c.tick(&p, true, false, 0, 0);
        assert_eq!(c.egress(5).xoff, 0, "a reset hides the word");
        assert_eq!(c.tab[4][5], 1234, "but the RAM keeps it");
        // a write in a reset cycle is lost (its valid bit is cleared), as v2's register is
        c.tick(&p, true, true, addr::ING_MAX + 2, 77);
        assert_eq!(c.ingress(2).max, 0);
        c.tick(&p, false, true, addr::ING_MAX + 2, 1 << 21);
        assert_eq!(c.ingress(2).max, 0, "truncated to OW = 20 bits");
        c.tick(&p, false, true, addr::ING_MAX + 2, (1 << 20) - 1);
        assert_eq!(c.ingress(2).max, (1 << 20) - 1);
    }

    #[test]
    fn unknown_addresses_are_ignored() {
        let p = p();
        let mut c = Cfg::default();
        for a in [0x3D, 0x3F, 0x40, 0x78, 0xFF] {
            c.tick(&p, false, true, a, u32::MAX);
        }
        assert_eq!(c, Cfg::default());
    }
}
