//! The v3 block's state as a user reads it (`capfc step --block v3`): every register and RAM word
//! by its RTL name, read the same way from the model ([`View::of_model`]) or from the Verilated
//! RTL's state words ([`View::from_registers`], which `capfc::dut_v3::Layout::view` fills), and the architectural values made from those registers
//! alone: occupancies, I, E, D, the counters, the sort engines, the PFC generator and the
//! configuration (`docs/microarchitecture.md`). Since both sides go through the names, what the
//! REPL shows of the RTL is what its registers hold, not what the model thinks they hold.

use super::sort::{PH_CNT, PH_COPY, PH_GT, PH_MAX, PH_MUL, PH_SEL, PH_SRCH};
use super::top::Top;
use super::{class_width, port_width, RegSink};
use crate::block::BlockParams;
use std::collections::HashMap;

/// One register or RAM word: its width and its bits, least significant first in 64-bit words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Val {
    pub width: u32,
    pub words: Vec<u64>,
}

impl Val {
    /// Bits `lo .. lo + w` (w <= 64), 0 above the width.
    pub fn field(&self, lo: usize, w: u32) -> u64 {
        // (the bits lo .. lo + w below the width, 64 at most)
        let n = (lo + w as usize)
            .min(self.width as usize)
            .saturating_sub(lo);
        if n == 0 {
            return 0;
        }
        let word = |k: usize| self.words.get(k).copied().unwrap_or(0);
        let (q, r) = (lo / 64, lo % 64);
        let mut x = word(q) >> r;
        if r != 0 {
            x |= word(q + 1) << (64 - r);
        }
        if n < 64 {
            x &= (1u64 << n) - 1;
        }
        x
    }

    /// The value, if it fits 128 bits; else its hexadecimal digits (most significant first).
    pub fn json(&self) -> serde_json::Value {
        if self.width <= 64 {
            serde_json::json!(self.field(0, 64))
        } else if self.width <= 128 {
            let v = u128::from(self.field(0, 64)) | u128::from(self.field(64, 64)) << 64;
            serde_json::json!(v.to_string())
        } else {
            let digits: String = (0..self.width.div_ceil(4) as usize)
                .rev()
                .map(|d| char::from_digit(self.field(4 * d, 4) as u32, 16).unwrap_or('?'))
                .collect();
            serde_json::json!(format!("0x{digits}"))
        }
    }
}

/// The block's registers and RAM words by name, in the order the RTL lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    pub p: BlockParams,
    names: Vec<String>,
    vals: Vec<Val>,
    index: HashMap<String, usize>,
    /// the registers the architectural values read, found by name once
    slots: Slots,
}

/// The places in a view's values ([`View::at_slot`]) of the registers its architectural values
/// and the golden observer read, found by name once (`None`: the block has no such register, an
/// error only when it is read).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slots {
    /// `{unit}.gen_grp[g].gen_prio[p].u_occ.mem[s]`, at `(egress * NP + port) * 8 + prio`
    pub occ: Vec<Option<usize>>,
    pub wh_q: Option<usize>,
    /// per output port: `u_egress.wa_q[o]`, `u_egress.wd_q[o]`
    pub wa_q: Vec<Option<usize>>,
    pub wd_q: Vec<Option<usize>>,
    /// per row `(o << LW) | l`: `u_egress.gen_q[row]`
    pub gen_q: Vec<Option<usize>>,
    /// `u_egress.gen_port[o].u_cnt.mem[a]`, at `o << (LW + PW) | a`
    pub cnt: Vec<Option<usize>>,
    /// per threshold table k: `u_cfg.thr_v_q[k]`; `u_cfg.gen_thr[k].u_tab.mem[p]` at `8k + p`
    pub thr_v: Vec<Option<usize>>,
    pub thr: Vec<Option<usize>>,
    /// `u_sort.busy_q`, `u_sort.sl_q`, `u_sort.cal_q`
    pub sort_flags: [Option<usize>; 3],
    /// per engine: `u_sort.{n}[e]` for each n of [`ENGINE_REGS`]
    pub sort: Vec<[Option<usize>; ENGINE_REGS.len()]>,
    /// `u_sort.wv_q`; per engine `u_sort.wi_q[e]`
    pub wv_q: Option<usize>,
    pub wi_q: Vec<Option<usize>>,
}

/// A sort engine's registers of one value an engine, in [`Slots::sort`]'s order.
pub const ENGINE_REGS: [&str; 10] = [
    "pend_q", "row_q", "ph_q", "k_q", "bit_q", "v_q", "ix_q", "acc_q", "tgt_q", "rr_q",
];
const ENGINE_FLAGS: [&str; 3] = ["busy_q", "sl_q", "cal_q"];

/// The sink that keeps every register's value under its name.
struct Collect<'a>(&'a mut View);

impl RegSink for Collect<'_> {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        let n = width.div_ceil(64);
        let mut w: Vec<u64> = words.iter().take(n).copied().collect();
        w.resize(n, 0);
        self.0.push(name.to_string(), width as u32, w);
    }
}

/// The sink that writes the registers' values over a view's, in the order they were listed (the
/// names are not formatted: a refresh every cycle costs no strings).
struct Refill<'a> {
    vals: &'a mut [Val],
    k: usize,
}

impl RegSink for Refill<'_> {
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        let v = &mut self.vals[self.k];
        debug_assert_eq!(v.width as usize, width);
        for (k, w) in v.words.iter_mut().enumerate() {
            *w = words.get(k).copied().unwrap_or(0);
        }
        self.k += 1;
    }
}

/// A sort engine's registers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Engine {
    pub engine: usize,
    /// the ports whose rows it sorts (2e and 2e + 1, one with NP odd at the last)
    pub ports: Vec<usize>,
    pub busy: bool,
    /// the row being sorted (or the last one): its port and class
    pub port: usize,
    pub class: u64,
    pub stop_calibrate: bool,
    pub phase: &'static str,
    pub step: u64,
    pub bit: u64,
    pub v: u64,
    pub index: u64,
    pub acc: u64,
    pub target: u64,
    /// the rows asking for a sort: (port, class)
    pub pending: Vec<(usize, u64)>,
    /// the round-robin pointer over its rows (port slot × classes)
    pub rr: u64,
}

/// The name of a v3 sort engine's phase (`ph_q`).
pub fn phase_name(ph: u64) -> &'static str {
    match ph as u8 {
        PH_MAX => "MAX",
        PH_COPY => "COPY",
        PH_MUL => "MUL",
        PH_SRCH => "SRCH",
        PH_GT => "GT",
        PH_CNT => "CNT",
        PH_SEL => "SEL",
        _ => "?",
    }
}

/// The configuration's threshold tables, in `u_cfg.gen_thr[k]`'s order.
pub const THRESHOLDS: [&str; 7] = [
    "ingress MAX",
    "ingress XOFF",
    "ingress XON",
    "egress MAX",
    "egress XOFF",
    "egress XON",
    "egress WARN",
];

impl View {
    fn empty(p: BlockParams) -> View {
        View {
            p,
            names: vec![],
            vals: vec![],
            index: HashMap::new(),
            slots: Slots::default(),
        }
    }

    /// Find the registers the architectural values read ([`Slots`]), once the view has all its
    /// names.
    fn find_slots(&mut self) {
        let (np, lw, pw) = (self.p.np, self.lw(), self.pw());
        let at = |n: String| self.index.get(&n).copied();
        let mut occ = Vec::with_capacity(2 * np * 8);
        for unit in ["u_ingress", "u_egress"] {
            for port in 0..np {
                for prio in 0..8 {
                    occ.push(at(format!(
                        "{unit}.gen_grp[{}].gen_prio[{prio}].u_occ.mem[{}]",
                        port / 8,
                        port % 8
                    )));
                }
            }
        }
        let slots = Slots {
            occ,
            wh_q: at("u_egress.wh_q".into()),
            wa_q: (0..np).map(|o| at(format!("u_egress.wa_q[{o}]"))).collect(),
            wd_q: (0..np).map(|o| at(format!("u_egress.wd_q[{o}]"))).collect(),
            gen_q: (0..np << lw)
                .map(|r| at(format!("u_egress.gen_q[{r}]")))
                .collect(),
            cnt: (0..np << (lw + pw))
                .map(|k| {
                    let (o, a) = (k >> (lw + pw), k & ((1 << (lw + pw)) - 1));
                    at(format!("u_egress.gen_port[{o}].u_cnt.mem[{a}]"))
                })
                .collect(),
            thr_v: (0..THRESHOLDS.len())
                .map(|k| at(format!("u_cfg.thr_v_q[{k}]")))
                .collect(),
            thr: (0..8 * THRESHOLDS.len())
                .map(|k| at(format!("u_cfg.gen_thr[{}].u_tab.mem[{}]", k / 8, k % 8)))
                .collect(),
            sort_flags: ENGINE_FLAGS.map(|n| at(format!("u_sort.{n}"))),
            sort: (0..np.div_ceil(2))
                .map(|e| ENGINE_REGS.map(|n| at(format!("u_sort.{n}[{e}]"))))
                .collect(),
            wv_q: at("u_sort.wv_q".into()),
            wi_q: (0..np.div_ceil(2))
                .map(|e| at(format!("u_sort.wi_q[{e}]")))
                .collect(),
        };
        self.slots = slots;
    }

    /// The register at `slot` (a missing one is a bug of this module: `name` says which).
    fn at(&self, slot: Option<usize>, name: impl FnOnce() -> String) -> &Val {
        match slot {
            Some(k) => &self.vals[k],
            None => panic!("the v3 block has no register {}", name()),
        }
    }

    fn push(&mut self, name: String, width: u32, words: Vec<u64>) {
        self.index.insert(name.clone(), self.vals.len());
        self.names.push(name);
        self.vals.push(Val { width, words });
    }

    /// The model's registers.
    pub fn of_model(t: &Top) -> View {
        let mut v = View::empty(t.p);
        t.visit(&mut Collect(&mut v));
        v.find_slots();
        v
    }

    /// The model's registers now, into a view made by [`View::of_model`] of a block with the same
    /// parameters (its names kept).
    pub fn refresh_model(&mut self, t: &Top) {
        debug_assert_eq!(self.p, t.p);
        let mut r = Refill {
            vals: &mut self.vals,
            k: 0,
        };
        t.visit(&mut r);
        debug_assert_eq!(r.k, self.names.len());
    }

    /// A view of registers listed elsewhere (a simulator's state, say): each `(name, width,
    /// words)` in the RTL's order, the words least significant first.
    pub fn from_registers(
        p: BlockParams,
        regs: impl IntoIterator<Item = (String, u32, Vec<u64>)>,
    ) -> View {
        let mut v = View::empty(p);
        for (name, width, words) in regs {
            v.push(name, width, words);
        }
        v.find_slots();
        v
    }

    /// Every register's words, in the order of the names, to be overwritten in place (a refresh
    /// of a view made by [`View::from_registers`] without a string).
    pub fn words_mut(&mut self) -> impl Iterator<Item = &mut [u64]> + '_ {
        self.vals.iter_mut().map(|v| v.words.as_mut_slice())
    }

    /// The places of the registers read by name often ([`Slots`]).
    pub fn slots(&self) -> &Slots {
        &self.slots
    }

    /// Every register's name, in the RTL's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// A register or RAM word by its name (`u_egress.e_q[3]`, `d_q`).
    pub fn get(&self, name: &str) -> Option<&Val> {
        self.index.get(name).map(|&k| &self.vals[k])
    }

    /// Where register `name` is among the view's values (the same place in every view of a block
    /// of the same parameters): [`View::at_slot`] reads it without looking the name up.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The register at a place [`View::slot`] gave.
    pub fn at_slot(&self, k: usize) -> &Val {
        &self.vals[k]
    }

    /// Bits `lo .. lo + w` of a register the block has by construction (a missing one is a bug
    /// of this module, not of the user's input).
    fn f(&self, name: &str, lo: usize, w: u32) -> u64 {
        self.get(name)
            .unwrap_or_else(|| panic!("the v3 block has no register {name}"))
            .field(lo, w)
    }

    fn reg(&self, name: &str) -> u64 {
        self.f(name, 0, 64)
    }

    fn pw(&self) -> u32 {
        port_width(self.p.np)
    }

    fn lw(&self) -> u32 {
        class_width(self.p.nl as u32)
    }

    /// An occupancy register in units: ingress or egress queue (port, prio), its group's LUT RAM
    /// word.
    pub fn occ(&self, egress: bool, port: usize, prio: usize) -> u64 {
        let unit = if egress { "u_egress" } else { "u_ingress" };
        let name = || {
            format!(
                "{unit}.gen_grp[{}].gen_prio[{prio}].u_occ.mem[{}]",
                port / 8,
                port % 8
            )
        };
        let k = (usize::from(egress) * self.p.np + port) * 8 + prio;
        let slot = if port < self.p.np && prio < 8 {
            self.slots.occ.get(k).copied().flatten()
        } else {
            None
        };
        self.at(slot, name).field(0, 64)
    }

    /// I of input port i: bit p.
    pub fn i_bits(&self, i: usize) -> u8 {
        self.f("u_ingress.xoff_q", i * 8, 8) as u8
    }

    /// D of input port i as the block outputs it (`d_q`): bit p.
    pub fn d_bits(&self, i: usize) -> u8 {
        self.f("d_q", i * 8, 8) as u8
    }

    /// The counted class of priority `prio` (the lossless ones in order, the first NL), if any.
    pub fn counted(&self, prio: usize) -> Option<usize> {
        let lossless = self.reg("u_cfg.lossless_q") as u8;
        let l = (lossless & ((1u16 << prio) - 1) as u8).count_ones() as usize;
        (lossless >> prio & 1 == 1 && l < self.p.nl).then_some(l)
    }

    /// The priority whose counted class is `l`.
    pub fn prio_of_class(&self, l: usize) -> Option<usize> {
        (0..8).find(|&p| self.counted(p) == Some(l))
    }

    fn row(&self, o: usize, l: usize) -> usize {
        (o << self.lw()) | l
    }

    /// E of egress queue (o, prio): bit i (none unless prio is a counted class).
    pub fn e_bits(&self, o: usize, prio: usize) -> u128 {
        self.counted(prio).map_or(0, |l| {
            let v = self
                .get(&format!("u_egress.e_q[{}]", self.row(o, l)))
                .expect("E has a row per port and class");
            u128::from(v.field(0, 64)) | u128::from(v.field(64, 64)) << 64
        })
    }

    /// Counter C(o, l, i) as a sort engine's read would see it now: the word of port o's counter
    /// RAM at `{l, i}`, its count if its tag is the row's generation (else 0: cleared since it
    /// was written), or the increment H writes to it in this cycle.
    pub fn counter(&self, o: usize, l: usize, i: usize) -> u64 {
        let (cw, lw, pw) = (self.p.cw, self.lw(), self.pw());
        let tw = lw + pw + 1;
        let a = (l << pw) | i;
        let s = &self.slots;
        let per_port = |v: &Vec<Option<usize>>| v.get(o).copied().flatten();
        let wh = self.at(s.wh_q, || "u_egress.wh_q".into());
        if wh.field(o, 1) == 1
            && self
                .at(per_port(&s.wa_q), || format!("u_egress.wa_q[{o}]"))
                .field(0, 64)
                == a as u64
        {
            return self
                .at(per_port(&s.wd_q), || format!("u_egress.wd_q[{o}]"))
                .field(0, cw);
        }
        let row = self.row(o, l);
        let in_ram = o < self.p.np && a < 1 << (lw + pw);
        let word = self.at(
            in_ram
                .then(|| s.cnt.get(o << (lw + pw) | a).copied().flatten())
                .flatten(),
            || format!("u_egress.gen_port[{o}].u_cnt.mem[{a}]"),
        );
        let gen = self
            .at(s.gen_q.get(row).copied().flatten(), || {
                format!("u_egress.gen_q[{row}]")
            })
            .field(0, 64);
        if word.field(cw as usize, tw) == gen {
            word.field(0, cw)
        } else {
            0
        }
    }

    /// The counters of egress queue (o, prio), one per input port (0 unless prio is counted).
    pub fn counters(&self, o: usize, prio: usize) -> Vec<u64> {
        let np = self.p.np;
        match self.counted(prio) {
            Some(l) => (0..np).map(|i| self.counter(o, l, i)).collect(),
            None => vec![0; np],
        }
    }

    /// Every sort engine's registers.
    pub fn engines(&self) -> Vec<Engine> {
        let (np, lw) = (self.p.np, self.lw());
        let nj = 2usize << lw;
        (0..np.div_ceil(2))
            .map(|e| {
                let s = &self.slots;
                let r = |n: &str| {
                    let j = ENGINE_REGS.iter().position(|x| *x == n).expect("listed");
                    let slot = s.sort.get(e).and_then(|x| x[j]);
                    self.at(slot, || format!("u_sort.{n}[{e}]")).field(0, 64)
                };
                let flag = |n: &str| {
                    let j = ENGINE_FLAGS.iter().position(|x| *x == n).expect("listed");
                    self.at(s.sort_flags[j], || format!("u_sort.{n}"))
                        .field(e, 1)
                        == 1
                };
                let ports: Vec<usize> =
                    [2 * e, 2 * e + 1].into_iter().filter(|&o| o < np).collect();
                let pend = r("pend_q");
                Engine {
                    engine: e,
                    busy: flag("busy_q"),
                    port: 2 * e + usize::from(flag("sl_q")),
                    class: r("row_q"),
                    stop_calibrate: flag("cal_q"),
                    phase: phase_name(r("ph_q")),
                    step: r("k_q"),
                    bit: r("bit_q"),
                    v: r("v_q"),
                    index: r("ix_q"),
                    acc: r("acc_q"),
                    target: r("tgt_q"),
                    pending: (0..nj)
                        .filter(|&j| pend >> j & 1 == 1)
                        .map(|j| (2 * e + (j >> lw), (j % (1 << lw)) as u64))
                        .collect(),
                    rr: r("rr_q"),
                    ports,
                }
            })
            .collect()
    }

    /// The PFC generator of port i: D of the last frame its MAC took, cycles to the refresh.
    pub fn pfc(&self, i: usize) -> (u8, u64) {
        (
            self.f("u_pfc.sent_q", i * 8, 8) as u8,
            self.reg(&format!("u_pfc.timer_q[{i}]")),
        )
    }

    /// Threshold table k ([`THRESHOLDS`]) of priority `prio`, in units: 0 until written since the
    /// reset (its valid bit).
    pub fn threshold(&self, k: usize, prio: usize) -> u64 {
        let s = &self.slots;
        let v = self.at(s.thr_v.get(k).copied().flatten(), || {
            format!("u_cfg.thr_v_q[{k}]")
        });
        if v.field(prio, 1) == 1 {
            let slot = (prio < 8).then(|| s.thr.get(8 * k + prio).copied().flatten());
            self.at(slot.flatten(), || {
                format!("u_cfg.gen_thr[{k}].u_tab.mem[{prio}]")
            })
            .field(0, 64)
        } else {
            0
        }
    }

    /// A configuration register (`u_cfg.<name>`): lossless_q, mode_q, cut_q, quanta_q, refresh_q.
    pub fn cfg(&self, name: &str) -> u64 {
        self.reg(&format!("u_cfg.{name}"))
    }
}
