//! `capfc_v2_cfg`: the configuration registers, and the user-facing [`BlockConfig`] that is validated
//! and turned into register writes.
//!
//! Contract (docs/microarchitecture-v2.md): a write in cycle t is used from cycle t+1; unknown
//! addresses are ignored; data is truncated to the register's width; every register resets to 0.

use super::fault::{Fault, Injected};
use super::{mask32, BlockParams, ConfigError, Mode, NPRIO};
use arbitrary_int::u2;
use serde::{Deserialize, Serialize};

/// Register addresses.
pub mod addr {
    pub const ING_MAX: u8 = 0x00;
    pub const ING_XOFF: u8 = 0x08;
    pub const ING_XON: u8 = 0x10;
    pub const EG_MAX: u8 = 0x18;
    pub const EG_XOFF: u8 = 0x20;
    pub const EG_XON: u8 = 0x28;
    pub const EG_WARN: u8 = 0x30;
    pub const LOSSLESS: u8 = 0x38;
    pub const MODE: u8 = 0x39;
    pub const CUT: u8 = 0x3A;
    pub const QUANTA: u8 = 0x3B;
    pub const REFRESH: u8 = 0x3C;
}

/// The configuration registers of `u_cfg`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgRegs {
    pub ing_max_q: [u32; NPRIO],
    pub ing_xoff_q: [u32; NPRIO],
    pub ing_xon_q: [u32; NPRIO],
    pub eg_max_q: [u32; NPRIO],
    pub eg_xoff_q: [u32; NPRIO],
    pub eg_xon_q: [u32; NPRIO],
    pub eg_warn_q: [u32; NPRIO],
    pub lossless_q: u8,
    pub mode_q: u2,
    pub cut_q: u32,
    pub quanta_q: u16,
    pub refresh_q: u16,
}

impl Default for CfgRegs {
    fn default() -> Self {
        CfgRegs {
            ing_max_q: [0; NPRIO],
            ing_xoff_q: [0; NPRIO],
            ing_xon_q: [0; NPRIO],
            eg_max_q: [0; NPRIO],
            eg_xoff_q: [0; NPRIO],
            eg_xon_q: [0; NPRIO],
            eg_warn_q: [0; NPRIO],
            lossless_q: 0,
            mode_q: u2::new(0),
            cut_q: 0,
            quanta_q: 0,
            refresh_q: 0,
        }
    }
}

impl CfgRegs {
    /// Apply one register write (the clocked update of `capfc_v2_cfg`).
    pub fn write(&mut self, p: &BlockParams, a: u8, data: u32, f: Option<Fault>) {
        let a = if f.is(Fault::CfgAddrAlias) {
            a & 0x3F
        } else {
            a
        };
        let ow = data & p.occ_mask();
        let idx = usize::from(a & 7);
        match a & !7 {
            addr::ING_MAX => self.ing_max_q[idx] = ow,
            addr::ING_XOFF => self.ing_xoff_q[idx] = ow,
            addr::ING_XON => self.ing_xon_q[idx] = ow,
            addr::EG_MAX => self.eg_max_q[idx] = ow,
            addr::EG_XOFF => self.eg_xoff_q[idx] = ow,
            addr::EG_XON => self.eg_xon_q[idx] = ow,
            addr::EG_WARN => self.eg_warn_q[idx] = ow,
            _ => match a {
                addr::LOSSLESS => self.lossless_q = data as u8,
                addr::MODE => self.mode_q = u2::new((data & 3) as u8),
                addr::CUT => {
                    let w = if f.is(Fault::CutNarrow) {
                        p.cut_f
                    } else {
                        p.cut_f + 1
                    };
                    self.cut_q = data & mask32(w);
                }
                addr::QUANTA => self.quanta_q = data as u16,
                addr::REFRESH => self.refresh_q = data as u16,
                _ => {}
            },
        }
    }

    pub fn lossless(&self, prio: usize) -> bool {
        self.lossless_q >> prio & 1 == 1
    }

    /// The width of the register at address `a`, `None` for an unknown address.
    pub fn width(p: &BlockParams, a: u8) -> Option<u32> {
        match a {
            0x00..=0x37 => Some(p.ow),
            addr::LOSSLESS => Some(8),
            addr::MODE => Some(2),
            addr::CUT => Some(p.cut_f + 1),
            addr::QUANTA | addr::REFRESH => Some(16),
            _ => None,
        }
    }

    /// `lidx(p)`: the rank of priority p among the lossless priorities (its counted class when
    /// below NL).
    pub fn lidx(&self, prio: usize) -> usize {
        lidx(self.lossless_q, prio)
    }

    /// The counted class of priority p, if p is counted (lossless and among the first NL).
    pub fn counted(&self, p: &BlockParams, prio: usize) -> Option<usize> {
        let l = self.lidx(prio);
        (self.lossless(prio) && l < p.nl).then_some(l)
    }

    /// The priority whose counted class is `l`, if any.
    pub fn prio_of_class(&self, p: &BlockParams, l: usize) -> Option<usize> {
        (0..NPRIO).find(|&pr| self.counted(p, pr) == Some(l))
    }

    /// Contributor sorts are requested (mode != 0).
    pub fn sort_enabled(&self) -> bool {
        self.mode_q.value() != 0
    }
}

/// Thresholds of one priority, in units (bytes, or cells when CELL_LOG2 > 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrioThresholds {
    pub ing_max: u32,
    pub ing_xoff: u32,
    pub ing_xon: u32,
    pub eg_max: u32,
    pub eg_xoff: u32,
    pub eg_xon: u32,
    pub eg_warn: u32,
}

impl PrioThresholds {
    /// The paper's Table II (dedicated buffers), in bytes: ingress 60/50/40 KB, egress MAX 60 KB,
    /// XOFF 25 KB, XON = WARN = 20 KB.
    pub fn paper() -> Self {
        PrioThresholds {
            ing_max: 60 * 1024,
            ing_xoff: 50 * 1024,
            ing_xon: 40 * 1024,
            eg_max: 60 * 1024,
            eg_xoff: 25 * 1024,
            eg_xon: 20 * 1024,
            eg_warn: 20 * 1024,
        }
    }
}

/// The block's run-time configuration, as a user writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockConfig {
    /// Thresholds per priority.
    pub prio: [PrioThresholds; NPRIO],
    /// Bit p: priority p is lossless (PFC-enabled).
    pub lossless: u8,
    pub mode: Mode,
    /// CUT as a fixed-point number with CUT_F fractional bits (2^CUT_F is 1.0).
    pub cut_fixed: u32,
    /// Pause time of an XOFF frame, in quanta of 512 bit times.
    pub quanta: u16,
    /// Cycles between refresh frames while D stays up.
    pub refresh: u16,
}

impl BlockConfig {
    /// The configuration the registers hold (mode codes 2 and 3 both read as Stop-Calibrate).
    pub fn from_regs(r: &CfgRegs) -> Self {
        let prio = std::array::from_fn(|k| PrioThresholds {
            ing_max: r.ing_max_q[k],
            ing_xoff: r.ing_xoff_q[k],
            ing_xon: r.ing_xon_q[k],
            eg_max: r.eg_max_q[k],
            eg_xoff: r.eg_xoff_q[k],
            eg_xon: r.eg_xon_q[k],
            eg_warn: r.eg_warn_q[k],
        });
        BlockConfig {
            prio,
            lossless: r.lossless_q,
            mode: match r.mode_q.value() {
                0 => Mode::PfcOnly,
                1 => Mode::StopMax,
                _ => Mode::StopCal,
            },
            cut_fixed: r.cut_q,
            quanta: r.quanta_q,
            refresh: r.refresh_q,
        }
    }

    /// The paper's parameters: Table II thresholds on every priority, priority 3 lossless,
    /// CUT 80 %.
    pub fn paper(p: &BlockParams, mode: Mode) -> Self {
        BlockConfig {
            prio: [PrioThresholds::paper(); NPRIO],
            lossless: 1 << 3,
            mode,
            cut_fixed: cut_from_fraction(0.8, p.cut_f),
            quanta: 0xFFFF,
            refresh: 4096,
        }
    }

    /// CUT as a fraction.
    pub fn cut(&self, p: &BlockParams) -> f64 {
        f64::from(self.cut_fixed) / f64::from(1u32 << p.cut_f)
    }

    /// Reject any configuration outside the contract of `shared/domain.md` section 3, naming the
    /// field.
    pub fn validate(&self, p: &BlockParams) -> Result<(), ConfigError> {
        p.validate()?;
        let lim = p.occ_mask();
        for (k, t) in self.prio.iter().enumerate() {
            let f = |n: &str| format!("prio[{k}].{n}");
            for (name, v) in [
                ("ing_max", t.ing_max),
                ("ing_xoff", t.ing_xoff),
                ("ing_xon", t.ing_xon),
                ("eg_max", t.eg_max),
                ("eg_xoff", t.eg_xoff),
                ("eg_xon", t.eg_xon),
                ("eg_warn", t.eg_warn),
            ] {
                if v > lim {
                    return Err(ConfigError::new(
                        f(name),
                        format!("{v} does not fit the {}-bit occupancy (max {lim})", p.ow),
                    ));
                }
            }
            if t.ing_xon > t.ing_xoff {
                return Err(ConfigError::new(
                    f("ing_xon"),
                    format!("XON {} is above ing_xoff {}", t.ing_xon, t.ing_xoff),
                ));
            }
            if t.ing_xoff >= t.ing_max {
                return Err(ConfigError::new(
                    f("ing_xoff"),
                    format!("XOFF {} must be below ing_max {}", t.ing_xoff, t.ing_max),
                ));
            }
            if t.eg_xon > t.eg_xoff {
                return Err(ConfigError::new(
                    f("eg_xon"),
                    format!("XON {} is above eg_xoff {}", t.eg_xon, t.eg_xoff),
                ));
            }
            if t.eg_xoff >= t.eg_max {
                return Err(ConfigError::new(
                    f("eg_xoff"),
                    format!("XOFF {} must be below eg_max {}", t.eg_xoff, t.eg_max),
                ));
            }
            if t.eg_warn < t.eg_xon || t.eg_warn > t.eg_xoff {
                return Err(ConfigError::new(
                    f("eg_warn"),
                    format!(
                        "WARN {} is outside [eg_xon {}, eg_xoff {}]",
                        t.eg_warn, t.eg_xon, t.eg_xoff
                    ),
                ));
            }
        }
        let one = 1u32 << p.cut_f;
        if self.cut_fixed == 0 || self.cut_fixed > one {
            return Err(ConfigError::new(
                "cut_fixed",
                format!(
                    "CUT {}/{one} is outside (0, 1]: it must be at least 1 and at most {one}",
                    self.cut_fixed
                ),
            ));
        }
        if self.refresh == 0 {
            return Err(ConfigError::new(
                "refresh",
                "the refresh period must be at least 1 cycle",
            ));
        }
        if self.lossless.count_ones() as usize > p.nl {
            return Err(ConfigError::new(
                "lossless",
                format!(
                    "{:#04x} has {} lossless priorities; the block counts at most NL = {}",
                    self.lossless,
                    self.lossless.count_ones(),
                    p.nl
                ),
            ));
        }
        Ok(())
    }

    /// The register writes that load this configuration, in address order.
    pub fn register_writes(&self) -> Vec<(u8, u32)> {
        let mut w = Vec::with_capacity(NPRIO * 7 + 5);
        for (base, get) in [
            (
                addr::ING_MAX,
                (|t: &PrioThresholds| t.ing_max) as fn(&PrioThresholds) -> u32,
            ),
            (addr::ING_XOFF, |t| t.ing_xoff),
            (addr::ING_XON, |t| t.ing_xon),
            (addr::EG_MAX, |t| t.eg_max),
            (addr::EG_XOFF, |t| t.eg_xoff),
            (addr::EG_XON, |t| t.eg_xon),
            (addr::EG_WARN, |t| t.eg_warn),
        ] {
            for (k, t) in self.prio.iter().enumerate() {
                w.push((base + k as u8, get(t)));
            }
        }
        w.push((addr::LOSSLESS, u32::from(self.lossless)));
        w.push((addr::MODE, u32::from(self.mode.code().value())));
        w.push((addr::CUT, self.cut_fixed));
        w.push((addr::QUANTA, u32::from(self.quanta)));
        w.push((addr::REFRESH, u32::from(self.refresh)));
        w
    }
}

/// `capfc_pkg::lidx`: the number of lossless priorities below `prio`.
pub fn lidx(lossless: u8, prio: usize) -> usize {
    (u32::from(lossless) & ((1u32 << prio) - 1)).count_ones() as usize
}

/// CUT fraction to fixed point, rounded to nearest.
pub fn cut_from_fraction(cut: f64, cut_f: u32) -> u32 {
    (cut * f64::from(1u32 << cut_f)).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> (BlockParams, BlockConfig) {
        let p = BlockParams::default();
        let c = BlockConfig::paper(&p, Mode::StopCal);
        (p, c)
    }

    #[test]
    fn paper_config_is_valid() {
        let (p, c) = cfg();
        assert_eq!(c.validate(&p), Ok(()));
    }

    #[test]
    fn xon_above_xoff_names_the_field() {
        let (p, mut c) = cfg();
        c.prio[2].ing_xon = c.prio[2].ing_xoff + 1;
        let e = c.validate(&p).unwrap_err();
        assert_eq!(e.field, "prio[2].ing_xon");
        let (p, mut c) = cfg();
        c.prio[5].eg_xon = c.prio[5].eg_xoff + 1;
        assert_eq!(c.validate(&p).unwrap_err().field, "prio[5].eg_xon");
    }

    #[test]
    fn warn_outside_xon_xoff_is_rejected() {
        let (p, mut c) = cfg();
        c.prio[0].eg_warn = c.prio[0].eg_xoff + 1;
        assert_eq!(c.validate(&p).unwrap_err().field, "prio[0].eg_warn");
        c.prio[0].eg_warn = c.prio[0].eg_xon - 1;
        assert_eq!(c.validate(&p).unwrap_err().field, "prio[0].eg_warn");
    }

    #[test]
    fn cut_zero_and_above_one_are_rejected() {
        let (p, mut c) = cfg();
        c.cut_fixed = 0;
        let e = c.validate(&p).unwrap_err();
        assert_eq!(e.field, "cut_fixed");
        assert!(e.to_string().contains("(0, 1]"), "{e}");
        c.cut_fixed = 257;
        assert_eq!(c.validate(&p).unwrap_err().field, "cut_fixed");
        c.cut_fixed = 256;
        assert_eq!(c.validate(&p), Ok(()));
    }

    #[test]
    fn unsupported_port_count_is_rejected() {
        let (_, c) = cfg();
        for np in [0, 1, 129, 1000] {
            let p = BlockParams::with_ports(np);
            assert_eq!(c.validate(&p).unwrap_err().field, "params.np", "np={np}");
        }
    }

    #[test]
    fn xoff_at_max_is_rejected() {
        let (p, mut c) = cfg();
        c.prio[7].eg_xoff = c.prio[7].eg_max;
        assert_eq!(c.validate(&p).unwrap_err().field, "prio[7].eg_xoff");
    }

    #[test]
    fn register_writes_round_trip() {
        let (p, c) = cfg();
        let mut r = CfgRegs::default();
        for (a, d) in c.register_writes() {
            r.write(&p, a, d, None);
        }
        assert_eq!(r.eg_warn_q, [20 * 1024; 8]);
        assert_eq!(r.lossless_q, 8);
        assert_eq!(r.mode_q.value(), 2);
        assert_eq!(r.cut_q, 205);
        assert_eq!(r.refresh_q, 4096);
    }
}
