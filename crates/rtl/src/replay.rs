//! The v3 units' models against their RTL from a waveform: a unit's testbench dumps every
//! register and RAM word of the unit (Verilator `--trace`, which starts every variable at 0 as
//! the models do), and the replay drives the model with the inputs sampled just before each
//! rising edge of the clock and compares, in every cycle, the outputs and every register the
//! model has with the waveform's value under the same name.
//!
//! Nothing is skipped: a register of the model missing from the waveform is an error, and so is
//! a register of the waveform (a name ending in `_q`, or a RAM word `mem[k]`) that the model does
//! not list, so that a register added to the RTL cannot go unchecked.

use std::collections::HashMap;

use wellen::{simple::Waveform, SignalRef, TimeTableIdx};

use crate::block::BlockParams;
use crate::v3::egress::{Egress, EgressIn, EgressParams};
use crate::v3::ingress::{Ingress, IngressIn, IngressParams};
use crate::v3::sort::{Sort, SortIn, SortParams};
use crate::v3::top::Top;
use crate::v3::{bits, RegStrings, Regs};

/// (decoding the block's inputs by name is the block crate's: `capfc_block::v3::inputs`)
pub use crate::v3::inputs::{top_in, top_in_into, InputError};

/// A waveform the replay cannot use: the file, and what is wrong with it or missing from it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[wave] {path}: {why}")]
pub struct WaveError {
    pub path: String,
    pub why: String,
    /// A cycle's input that could not be read (`why` names the cycle and says what it says).
    #[source]
    pub input: Option<InputError>,
}

impl WaveError {
    fn new(path: &str, why: impl Into<String>) -> Self {
        WaveError {
            path: path.into(),
            why: why.into(),
            input: None,
        }
    }
}

/// For the layers that still report errors as text.
impl From<WaveError> for String {
    fn from(e: WaveError) -> String {
        e.to_string()
    }
}

/// The outcome of a replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// rising edges replayed
    pub cycles: u64,
    /// names compared in every cycle
    pub names: usize,
    /// the first mismatches (cycle, name, waveform's value, model's value), at most `limit`
    pub mismatches: Vec<(u64, String, String, String)>,
    /// mismatches in all
    pub total_mismatches: u64,
}

struct Vcd {
    w: Waveform,
    /// the unit's variables by name relative to its instance
    vars: HashMap<String, SignalRef>,
    /// time-table indices of the clock's rising edges
    edges: Vec<TimeTableIdx>,
}

impl Vcd {
    fn load(path: &str, instance: &str) -> Result<Self, WaveError> {
        std::fs::File::open(path).map_err(|e| WaveError::new(path, e.to_string()))?;
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let read = std::panic::catch_unwind(|| wellen::simple::read(path));
        std::panic::set_hook(hook);
        let mut w = match read {
            Ok(r) => {
                r.map_err(|e| WaveError::new(path, format!("not a readable VCD or FST: {e}")))?
            }
            Err(_) => return Err(WaveError::new(path, "not a readable VCD or FST")),
        };
        let h = w.hierarchy();
        let tail = format!(".{instance}.");
        let mut vars = HashMap::new();
        let mut clk = None;
        for v in h.all_vars().map(|r| &h[r]) {
            // (a leading dot, so that an instance at the top of the hierarchy matches as well)
            let full = format!(".{}", v.full_name(h));
            if let Some(at) = full.find(&tail) {
                // (wellen names an unpacked array's element `reg.[k]`; the RTL's name is `reg[k]`)
                let rel = full[at + tail.len()..].replace(".[", "[");
                if rel == "clk" {
                    clk = Some(v.signal_ref());
                }
                vars.insert(rel, v.signal_ref());
            }
        }
        if vars.is_empty() {
            return Err(WaveError::new(
                path,
                format!("no instance {instance} (no variable under *.{instance}.*)"),
            ));
        }
        let clk = clk.ok_or_else(|| WaveError::new(path, format!("no {instance}.clk")))?;
        let ids: Vec<SignalRef> = vars.values().copied().collect();
        w.load_signals_multi_threaded(&ids);
        let cs = w
            .get_signal(clk)
            .ok_or_else(|| WaveError::new(path, format!("{instance}.clk: not loaded")))?;
        let mut edges = vec![];
        let mut prev = None;
        for (ti, v) in cs.iter_changes() {
            let now = v.to_bit_string().as_deref() == Some("1");
            if prev == Some(false) && now && ti > 0 {
                edges.push(ti);
            }
            prev = Some(now);
        }
        Ok(Vcd { w, vars, edges })
    }

    /// `name`'s value at time-table index `t` as a binary string (MSB first); None if absent.
    fn at(&self, name: &str, t: TimeTableIdx) -> Option<String> {
        let s = self.w.get_signal(*self.vars.get(name)?)?;
        let off = s.get_offset(t)?;
        s.get_value_at(&off, 0).to_bit_string()
    }

    /// Bits `lo .. lo + w` (w <= 64) of `name` at time-table index `t` (an error names the
    /// signal; [`run`] adds the file).
    fn field(&self, name: &str, t: TimeTableIdx, lo: usize, w: usize) -> Result<u64, InputError> {
        let b = self.at(name, t).ok_or_else(|| InputError::NoSignal {
            name: name.to_string(),
        })?;
        let n = b.len();
        let mut x = 0u64;
        for i in (lo..lo + w).rev() {
            let c = if i < n { b.as_bytes()[n - 1 - i] } else { b'0' };
            x = x << 1
                | match c {
                    b'0' => 0,
                    b'1' => 1,
                    _ => {
                        return Err(InputError::NotBinary {
                            name: name.to_string(),
                            bit: i,
                            value: c as char,
                            t: t.into(),
                        })
                    }
                };
        }
        Ok(x)
    }
}

/// A register of the waveform that a model must list: `*_q`, `*_q[k]` or a RAM word `mem[k]`.
fn is_register(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let base = last.split('[').next().unwrap_or(last);
    base.ends_with("_q") || base == "mem"
}

/// A unit's model as the replay drives it.
pub trait Unit {
    /// Every register and RAM word under its RTL name.
    fn regs(&self) -> Regs;
    /// This cycle's inputs read with `f(name, lo, width)` (bits lo .. lo + width of the port
    /// `name`); the outputs of the cycle under the ports' names; then the clock edge.
    fn cycle(
        &mut self,
        f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
    ) -> Result<Regs, InputError>;
}

fn flags(f: &[bool]) -> String {
    f.iter().rev().map(|&b| if b { '1' } else { '0' }).collect()
}

impl Unit for Ingress {
    fn regs(&self) -> Regs {
        Ingress::regs(self)
    }

    fn cycle(
        &mut self,
        f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
    ) -> Result<Regs, InputError> {
        let p = self.p;
        let mut inp = IngressIn {
            rst: f("rst", 0, 1)? == 1,
            cfg_lossless: f("cfg_lossless", 0, 8)? as u8,
            dep_valid: f("dep_valid", 0, 1)? == 1,
            dep_port: f("dep_port", 0, p.pw())?,
            dep_prio: f("dep_prio", 0, 3)? as u8,
            dep_size: f("dep_size", 0, p.sw)?,
            ..IngressIn::default()
        };
        inp.cfg_ing_max = f("cfg_ing_max", 0, p.ow)?;
        inp.cfg_ing_xoff = f("cfg_ing_xoff", 0, p.ow)?;
        inp.cfg_ing_xon = f("cfg_ing_xon", 0, p.ow)?;
        for i in 0..p.np {
            inp.arr_valid.push(f("arr_valid", i, 1)? == 1);
            inp.arr_prio.push(f("arr_prio", 3 * i, 3)? as u8);
            inp.arr_size.push(f("arr_size", p.sw as usize * i, p.sw)?);
        }
        let o = self.outputs();
        let out = vec![
            ("cfg_ra".to_string(), bits(o.cfg_ra.into(), 3)),
            ("arr_ready".to_string(), flags(&o.arr_ready)),
            ("arr_accept".to_string(), flags(&o.arr_accept)),
            (
                "i_state".to_string(),
                self.i_state()
                    .iter()
                    .rev()
                    .map(|x| bits((*x).into(), 8))
                    .collect(),
            ),
        ];
        self.tick(&inp);
        Ok(out)
    }
}

impl Unit for Egress {
    fn regs(&self) -> Regs {
        Egress::regs(self)
    }

    fn cycle(
        &mut self,
        f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
    ) -> Result<Regs, InputError> {
        let p = self.p;
        let (pw, lw, sw) = (p.pw(), p.lw(), p.sw);
        let mut inp = EgressIn {
            rst: f("rst", 0, 1)? == 1,
            cfg_lossless: f("cfg_lossless", 0, 8)? as u8,
            cfg_mode: f("cfg_mode", 0, 2)? as u8,
            enq_valid: f("enq_valid", 0, 1)? == 1,
            enq_oport: f("enq_oport", 0, pw)?,
            enq_prio: f("enq_prio", 0, 3)? as u8,
            enq_iport: f("enq_iport", 0, pw)?,
            enq_size: f("enq_size", 0, sw)?,
            ..EgressIn::default()
        };
        inp.cfg_eg_max = f("cfg_eg_max", 0, p.ow)?;
        inp.cfg_eg_xoff = f("cfg_eg_xoff", 0, p.ow)?;
        inp.cfg_eg_xon = f("cfg_eg_xon", 0, p.ow)?;
        inp.cfg_eg_warn = f("cfg_eg_warn", 0, p.ow)?;
        for o in 0..p.np {
            inp.deq_valid.push(f("deq_valid", o, 1)? == 1);
            inp.deq_prio.push(f("deq_prio", 3 * o, 3)? as u8);
            inp.deq_size.push(f("deq_size", sw as usize * o, sw)?);
            inp.sre.push(f("sre", o, 1)? == 1);
            inp.srow.push(f("srow", lw as usize * o, lw)?);
            inp.sidx.push(f("sidx", pw as usize * o, pw)?);
            inp.swr_en.push(f("swr_en", o, 1)? == 1);
            inp.swr_l.push(f("swr_l", lw as usize * o, lw)?);
            inp.swr_i.push(f("swr_i", pw as usize * o, pw)?);
        }
        let o = self.outputs();
        let out = vec![
            ("cfg_ra".to_string(), bits(o.cfg_ra.into(), 3)),
            ("enq_accept".to_string(), flags(&[o.enq_accept])),
            ("deq_ready".to_string(), flags(&o.deq_ready)),
            ("rclr".to_string(), flags(&o.rclr)),
            ("rtrig".to_string(), flags(&o.rtrig)),
            (
                "sval".to_string(),
                o.sval
                    .iter()
                    .rev()
                    .map(|x| bits((*x).into(), p.cw as usize))
                    .collect(),
            ),
            (
                "e_other".to_string(),
                flags(
                    &(0..8 * o.e_other.len())
                        .map(|k| o.e_other[k / 8] >> (k % 8) & 1 == 1)
                        .collect::<Vec<_>>(),
                ),
            ),
        ];
        self.tick(&inp);
        Ok(out)
    }
}

impl Unit for Sort {
    fn regs(&self) -> Regs {
        Sort::regs(self)
    }

    fn cycle(
        &mut self,
        f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
    ) -> Result<Regs, InputError> {
        let p = self.p;
        let (np, nr, lw, pw, cw) = (p.np, p.nr(), p.lw(), p.pw(), p.cw);
        let mut inp = SortIn {
            rst: f("rst", 0, 1)? == 1,
            cfg_mode_cal: f("cfg_mode_cal", 0, 1)? == 1,
            cfg_cut: f("cfg_cut", 0, p.cut_f + 1)?,
            ..SortIn::default()
        };
        for r in 0..nr {
            inp.rclr.push(f("rclr", r, 1)? == 1);
            inp.rtrig.push(f("rtrig", r, 1)? == 1);
        }
        for o in 0..np {
            inp.sval.push(f("sval", cw as usize * o, cw)?);
        }
        let o = self.outputs();
        let vals = |v: &[u64], w: u32| -> String {
            v.iter()
                .rev()
                .map(|x| bits((*x).into(), w as usize))
                .collect()
        };
        let out = vec![
            ("sre".to_string(), flags(&o.sre)),
            ("srow".to_string(), vals(&o.srow, lw)),
            ("sidx".to_string(), vals(&o.sidx, pw)),
            ("swr_en".to_string(), flags(&o.swr_en)),
            ("swr_l".to_string(), vals(&o.swr_l, lw)),
            ("swr_i".to_string(), vals(&o.swr_i, pw)),
        ];
        self.tick(&inp);
        Ok(out)
    }
}

impl Unit for Top {
    fn regs(&self) -> Regs {
        Top::regs(self)
    }

    fn cycle(
        &mut self,
        f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
    ) -> Result<Regs, InputError> {
        let inp = top_in(&self.p, f)?;
        let o = Top::cycle(self, &inp);
        let mut s = RegStrings::default();
        o.visit(&mut s);
        Ok(s.0)
    }
}

/// Replay `unit` from the waveform at `path`, instance `instance` (e.g.
/// `capfc_ingress_v3_tb.dut`), from its first rising edge, and report the first `limit`
/// mismatches.
pub fn run(
    path: &str,
    instance: &str,
    unit: &mut dyn Unit,
    limit: usize,
) -> Result<Report, WaveError> {
    let v = Vcd::load(path, instance)?;
    let names: Vec<String> = unit.regs().into_iter().map(|(n, _)| n).collect();
    for n in &names {
        if !v.vars.contains_key(n) {
            let base = n.split('[').next().unwrap_or(n);
            let mut like: Vec<&String> = v.vars.keys().filter(|k| k.contains(base)).collect();
            like.sort();
            like.truncate(4);
            return Err(WaveError::new(
                path,
                format!(
                    "the model's register {n} is not in the waveform under {instance} (there: {})",
                    like.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    let mut unlisted: Vec<&String> = v
        .vars
        .keys()
        .filter(|k| is_register(k) && !names.contains(k))
        .collect();
    unlisted.sort();
    if let Some(k) = unlisted.first() {
        return Err(WaveError::new(
            path,
            format!(
                "register {k} of {instance} is not in the model ({} such)",
                unlisted.len()
            ),
        ));
    }
    if v.edges.is_empty() {
        return Err(WaveError::new(
            path,
            format!("no rising edge of {instance}.clk: nothing checked"),
        ));
    }
    let mut rep = Report {
        cycles: 0,
        names: names.len(),
        mismatches: vec![],
        total_mismatches: 0,
    };
    let note = |rep: &mut Report, c: u64, n: &str, got: String, want: String| {
        rep.total_mismatches += 1;
        if rep.mismatches.len() < limit {
            rep.mismatches.push((c, n.to_string(), got, want));
        }
    };
    for (c, &e) in v.edges.iter().enumerate() {
        let c = c as u64;
        // the registers entering the cycle and the cycle's inputs and outputs: just before the edge
        let t = e - 1;
        for (n, want) in unit.regs() {
            let got = v.at(&n, t).unwrap_or_default();
            if got != want {
                note(&mut rep, c, &n, got, want);
            }
        }
        let f = |name: &str, lo: usize, w: u32| v.field(name, t, lo, w as usize);
        let outs = unit.cycle(&f).map_err(|e| WaveError {
            input: Some(e.clone()),
            ..WaveError::new(path, format!("cycle {c}: {e}"))
        })?;
        if c == 0 {
            rep.names += outs.len();
        }
        for (n, want) in outs {
            let got = v
                .at(&n, t)
                .ok_or_else(|| WaveError::new(path, format!("no output {n} under {instance}")))?;
            if got != want {
                note(&mut rep, c, &n, got, want);
            }
        }
        rep.cycles += 1;
    }
    Ok(rep)
}

/// The values of the ports `names` of `instance` at every rising edge of its clock (sampled just
/// before the edge, as [`run`] drives a model), each a binary string, most significant bit first.
pub fn wave_inputs(
    path: &str,
    instance: &str,
    names: &[&str],
) -> Result<Vec<Vec<String>>, WaveError> {
    let v = Vcd::load(path, instance)?;
    for n in names {
        if !v.vars.contains_key(*n) {
            return Err(WaveError::new(
                path,
                format!("no port {n} under {instance}"),
            ));
        }
    }
    if v.edges.is_empty() {
        return Err(WaveError::new(
            path,
            format!("no rising edge of {instance}.clk"),
        ));
    }
    v.edges
        .iter()
        .map(|&e| {
            names
                .iter()
                .map(|n| {
                    v.at(n, e - 1).ok_or_else(|| {
                        WaveError::new(path, format!("{n} has no value at time index {}", e - 1))
                    })
                })
                .collect()
        })
        .collect()
}

/// Replay `capfc_ingress` (v3); see [`run`].
pub fn ingress(
    path: &str,
    instance: &str,
    p: IngressParams,
    limit: usize,
) -> Result<Report, WaveError> {
    run(path, instance, &mut Ingress::new(p), limit)
}

/// Replay `capfc_egress` (v3); see [`run`].
pub fn egress(
    path: &str,
    instance: &str,
    p: EgressParams,
    limit: usize,
) -> Result<Report, WaveError> {
    run(path, instance, &mut Egress::new(p), limit)
}

/// Replay `capfc_sort` (v3); see [`run`].
pub fn sort(path: &str, instance: &str, p: SortParams, limit: usize) -> Result<Report, WaveError> {
    run(path, instance, &mut Sort::new(p), limit)
}

/// Replay the assembled v3 block (`capfc_top_oc`); see [`run`].
pub fn top(path: &str, instance: &str, p: BlockParams, limit: usize) -> Result<Report, WaveError> {
    run(path, instance, &mut Top::new(p), limit)
}
