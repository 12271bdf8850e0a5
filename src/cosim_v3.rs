//! The v3 block in lockstep in one process: its Rust model ([`crate::v3::top::Top`]) and its
//! Verilated RTL ([`crate::dut_v3::RtlTopV3`]) take the same packed inputs every cycle, and every
//! output and every register and RAM word of the RTL is compared with the model's, by name.
//!
//! Nothing is skipped: the model must list exactly the RTL's registers (the layout build.rs reads
//! from the Verilated headers), or the run is refused before its first cycle.

use std::collections::HashMap;

use crate::block::BlockParams;
use crate::dut_v3::{Layout, RtlTopV3, RtlV3Error};
use crate::v3::replay::{self, top_in_into, Report};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::{RegSink, RegStrings};

/// The inputs of `instance` (e.g. `capfc_top_v3_tb.u_dut`) at every rising edge of a waveform,
/// packed for `rtl` (its layout's input words, one cycle after another).
pub fn stimulus_from_wave(path: &str, instance: &str, rtl: &RtlTopV3) -> Result<Vec<u32>, String> {
    let names: Vec<&str> = rtl.layout.inputs.iter().map(|v| v.name.as_str()).collect();
    let rows = replay::wave_inputs(path, instance, &names)?;
    let wpc = rtl.layout.input_words;
    let mut words = vec![0u32; wpc * rows.len()];
    for (c, row) in rows.iter().enumerate() {
        let w = &mut words[c * wpc..(c + 1) * wpc];
        for (v, bits) in rtl.layout.inputs.iter().zip(row) {
            v.set_bits(w, bits)
                .map_err(|e| format!("{path}: cycle {c}: {e}"))?;
        }
    }
    Ok(words)
}

/// Packs a [`TopIn`] into the input words of a Verilated v3 block: every input port found by
/// name in the first cycle, by its place in the visit order after that (no name is formatted
/// again).
#[derive(Debug, Default)]
pub struct InputPacker {
    /// for each input in [`TopIn::visit`] order: its index among the layout's inputs
    index: Vec<usize>,
}

impl InputPacker {
    /// `inp` into `words` (the layout's input words of `rtl`).
    pub fn pack(&mut self, rtl: &RtlTopV3, inp: &TopIn, words: &mut [u32]) -> Result<(), String> {
        struct Pack<'a> {
            rtl: &'a RtlTopV3,
            index: &'a mut Vec<usize>,
            i: usize,
            words: &'a mut [u32],
            err: Option<String>,
        }
        impl RegSink for Pack<'_> {
            fn reg(&mut self, name: std::fmt::Arguments<'_>, v: &[u64], width: usize) {
                let inputs = &self.rtl.layout.inputs;
                if self.i == self.index.len() {
                    let n = name.to_string();
                    match inputs.iter().position(|x| x.name == n) {
                        Some(k) if inputs[k].width as usize == width => self.index.push(k),
                        Some(k) => {
                            self.err.get_or_insert_with(|| {
                                format!(
                                    "{}: input {n} has {} bits, the model's {width}",
                                    self.rtl.name, inputs[k].width
                                )
                            });
                            return;
                        }
                        None => {
                            self.err.get_or_insert_with(|| {
                                format!("{}: no input port {n}", self.rtl.name)
                            });
                            return;
                        }
                    }
                }
                let var = &inputs[self.index[self.i]];
                self.i += 1;
                for (b, w) in self.words[var.offset..var.offset + var.value_words()]
                    .iter_mut()
                    .enumerate()
                {
                    let left = width - 32 * b;
                    let mask = if left >= 32 {
                        u32::MAX
                    } else {
                        (1 << left) - 1
                    };
                    *w = v.get(b / 2).map_or(0, |x| (x >> (32 * (b % 2))) as u32) & mask;
                }
            }
        }
        let p = &rtl.params;
        let mut s = Pack {
            rtl,
            index: &mut self.index,
            i: 0,
            words,
            err: None,
        };
        inp.visit(p.sw as usize, crate::v3::port_width(p.np) as usize, &mut s);
        match s.err {
            Some(e) => {
                self.index.clear();
                Err(e)
            }
            None => Ok(()),
        }
    }
}

/// The output words of `rtl` into `out` (every output port by name).
pub fn unpack_outputs(rtl: &RtlTopV3, words: &[u32], out: &mut TopOut) -> Result<(), String> {
    let np = rtl.params.np;
    let var = |n: &str| {
        rtl.layout
            .outputs
            .iter()
            .find(|v| v.name == n)
            .ok_or_else(|| format!("{}: no output port {n}", rtl.name))
    };
    let flags = |n: &str, v: &mut Vec<bool>| -> Result<(), String> {
        let x = var(n)?;
        v.clear();
        v.extend((0..np).map(|i| x.field(words, i, 1) == 1));
        Ok(())
    };
    let bytes = |n: &str, v: &mut Vec<u8>| -> Result<(), String> {
        let x = var(n)?;
        v.clear();
        v.extend((0..np).map(|i| x.field(words, 8 * i, 8) as u8));
        Ok(())
    };
    flags("arr_ready", &mut out.arr_ready)?;
    flags("deq_ready", &mut out.deq_ready)?;
    flags("arr_accept", &mut out.arr_accept)?;
    out.enq_accept = var("enq_accept")?.field(words, 0, 1) == 1;
    flags("pfc_valid", &mut out.pfc_valid)?;
    bytes("pfc_cev", &mut out.pfc_cev)?;
    bytes("pfc_xoff", &mut out.pfc_xoff)?;
    out.pfc_quanta = var("pfc_quanta")?.field(words, 0, 16) as u16;
    bytes("d_state", &mut out.d_state)?;
    Ok(())
}

/// Model and RTL side by side.
pub struct LockstepV3 {
    pub rtl: RtlTopV3,
    pub model: Top,
    state: Vec<u32>,
    out: Vec<u32>,
    /// for each of the model's registers (in `Top::regs` order), its value's index among the
    /// RTL's state values
    perm: Vec<usize>,
    /// for each of the RTL's state values: (variable, value)
    values: Vec<(usize, usize)>,
    /// for each of the model's registers (in `Top::regs` order): its RTL value's first state
    /// word and word count (the every-cycle comparison's index)
    slots: Vec<(u32, u32)>,
    /// the inputs by name: index into the layout's inputs (a short list searched in order)
    inputs: Vec<(String, usize)>,
    /// for each of the model's outputs (in `TopOut::visit` order): its index among the layout's
    /// outputs (found by name in the first cycle, widths checked)
    out_index: Vec<usize>,
    /// the model's inputs and outputs of a cycle (their vectors reused)
    min: TopIn,
    mout: TopOut,
    pub report: Report,
    limit: usize,
}

impl LockstepV3 {
    /// The Verilated block of `p` beside a fresh model; `limit`: mismatches kept in the report.
    pub fn new(p: &BlockParams, limit: usize) -> Result<Self, String> {
        let rtl = RtlTopV3::new(p).map_err(|e: RtlV3Error| e.to_string())?;
        let model = Top::new(*p);
        let mut values = vec![];
        let mut index = HashMap::new();
        for (vi, v) in rtl.layout.state.iter().enumerate() {
            for k in 0..v.values() {
                index.insert(v.value_name(k), values.len());
                values.push((vi, k));
            }
        }
        let regs = model.regs();
        let mut perm = Vec::with_capacity(regs.len());
        let mut seen = vec![false; values.len()];
        for (n, _) in &regs {
            let Some(&k) = index.get(n) else {
                return Err(format!(
                    "{}: the model's register {n} is not a register of the Verilated RTL",
                    rtl.name
                ));
            };
            seen[k] = true;
            perm.push(k);
        }
        if let Some(k) = seen.iter().position(|s| !s) {
            let (vi, e) = values[k];
            return Err(format!(
                "{}: register {} of the RTL is not in the model ({} such)",
                rtl.name,
                rtl.layout.state[vi].value_name(e),
                seen.iter().filter(|s| !**s).count()
            ));
        }
        let slots = perm
            .iter()
            .map(|&k| {
                let (vi, e) = values[k];
                let v = &rtl.layout.state[vi];
                let n = v.value_words();
                ((v.offset + e * n) as u32, n as u32)
            })
            .collect();
        // (the per-port fields first: they are asked for most often)
        let mut inputs: Vec<(String, usize)> = rtl
            .layout
            .inputs
            .iter()
            .enumerate()
            .map(|(k, v)| (v.name.clone(), k))
            .collect();
        inputs.sort_by_key(|(n, _)| {
            !(n.starts_with("arr_") || n.starts_with("deq_") || n == "pfc_ready")
        });
        Ok(LockstepV3 {
            state: vec![0; rtl.layout.state_words],
            out: vec![0; rtl.layout.output_words],
            report: Report {
                cycles: 0,
                names: regs.len(),
                mismatches: vec![],
                total_mismatches: 0,
            },
            rtl,
            model,
            perm,
            values,
            slots,
            inputs,
            out_index: vec![],
            min: TopIn::default(),
            mout: TopOut::default(),
            limit,
        })
    }

    /// The model's outputs of the last cycle (equal to the RTL's unless the report has a
    /// mismatch).
    pub fn model_out(&self) -> &TopOut {
        &self.mout
    }

    fn note(&mut self, n: &str, rtl: String, model: String) {
        self.report.total_mismatches += 1;
        if self.report.mismatches.len() < self.limit {
            self.report
                .mismatches
                .push((self.report.cycles, n.to_string(), rtl, model));
        }
    }

    /// One cycle of packed inputs: the registers entering the cycle compared, both sides
    /// stepped, the cycle's outputs compared. (The first cycle compares the registers as
    /// strings, which checks each one's width as well; the following cycles compare the words.)
    pub fn cycle(&mut self, inputs: &[u32]) -> Result<(), String> {
        self.cycle_given(inputs, None)
    }

    /// [`LockstepV3::cycle`] with the model's inputs given as well (`inputs` must be `inp`
    /// packed, [`InputPacker`]): the model is not given the RTL's words decoded back.
    pub fn cycle_in(&mut self, inp: &TopIn, inputs: &[u32]) -> Result<(), String> {
        self.cycle_given(inputs, Some(inp))
    }

    fn cycle_given(&mut self, inputs: &[u32], given: Option<&TopIn>) -> Result<(), String> {
        self.rtl.read_state(&mut self.state);
        if self.report.cycles == 0 {
            let regs = self.model.regs();
            for (i, (n, want)) in regs.iter().enumerate() {
                let (vi, k) = self.values[self.perm[i]];
                let got = self.rtl.layout.state[vi].bits(&self.state, k);
                if got != *want {
                    self.note(n, got, want.clone());
                }
            }
        } else {
            let mut cmp = Compare {
                layout: &self.rtl.layout,
                state: &self.state,
                values: &self.values,
                perm: &self.perm,
                slots: &self.slots,
                i: 0,
                bad: vec![],
            };
            self.model.visit(&mut cmp);
            debug_assert_eq!(cmp.i, self.perm.len());
            for (n, got, want) in std::mem::take(&mut cmp.bad) {
                self.note(&n, got, want);
            }
        }
        match given {
            Some(inp) => self.model.cycle_into(inp, &mut self.mout),
            None => {
                let (rtl, ins) = (&self.rtl, &self.inputs);
                let f = |name: &str, lo: usize, w: u32| -> Result<u64, String> {
                    ins.iter()
                        .find(|(n, _)| n == name)
                        .map(|&(_, k)| rtl.layout.inputs[k].field(inputs, lo, w))
                        .ok_or_else(|| format!("{}: no input port {name}", rtl.name))
                };
                top_in_into(&self.model.p, &f, &mut self.min)?;
                self.model.cycle_into(&self.min, &mut self.mout);
            }
        }
        self.rtl.step(inputs, &mut self.out);
        if self.report.cycles == 0 {
            // the outputs by name, once; their widths must be the RTL's
            let mut names = RegStrings::default();
            self.mout.visit(&mut names);
            for (n, bits) in &names.0 {
                let k = self
                    .rtl
                    .layout
                    .outputs
                    .iter()
                    .position(|v| v.name == *n)
                    .ok_or_else(|| format!("{}: no output port {n}", self.rtl.name))?;
                let w = self.rtl.layout.outputs[k].width as usize;
                if w != bits.len() {
                    return Err(format!(
                        "{}: output {n} has {w} bits, the model's {}",
                        self.rtl.name,
                        bits.len()
                    ));
                }
                self.out_index.push(k);
            }
            self.report.names += self.out_index.len();
        }
        let mut cmp = OutCompare {
            layout: &self.rtl.layout,
            out: &self.out,
            index: &self.out_index,
            i: 0,
            bad: vec![],
        };
        self.mout.visit(&mut cmp);
        for (n, got, want) in std::mem::take(&mut cmp.bad) {
            self.note(&n, got, want);
        }
        self.report.cycles += 1;
        Ok(())
    }
}

/// The model's registers, as `Top::visit` lists them, against the RTL's state words.
struct Compare<'a> {
    layout: &'a Layout,
    state: &'a [u32],
    values: &'a [(usize, usize)],
    perm: &'a [usize],
    slots: &'a [(u32, u32)],
    /// the model's register now visited
    i: usize,
    /// (name, RTL, model) of each that differed
    bad: Vec<(String, String, String)>,
}

impl Compare<'_> {
    /// The next register's RTL value (up to 128 bits) and its index.
    #[inline]
    fn rtl_u128(&mut self) -> (usize, u128) {
        let i = self.i;
        self.i += 1;
        let (at, n) = self.slots[i];
        let (at, n) = (at as usize, (n as usize).min(4));
        let mut x = 0u128;
        for (b, w) in self.state[at..at + n].iter().enumerate() {
            x |= u128::from(*w) << (32 * b);
        }
        (i, x)
    }

    /// Register `i` (in the model's order) differed: note its name and both values.
    fn differs(&mut self, name: std::fmt::Arguments<'_>, i: usize, model: &[u64], width: usize) {
        let (vi, k) = self.values[self.perm[i]];
        let mut m = RegStrings::default();
        m.reg(name, model, width);
        let (n, want) = m.0.pop().unwrap();
        self.bad
            .push((n, self.layout.state[vi].bits(self.state, k), want));
    }
}

fn mask128(width: usize) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

impl RegSink for Compare<'_> {
    // (the common cases without the word loop: a value of at most 128 bits, a RAM's words)
    fn val(&mut self, name: std::fmt::Arguments<'_>, v: u128, width: usize) {
        if width > 128 {
            return self.reg(name, &[v as u64, (v >> 64) as u64], width);
        }
        let (i, rtl) = self.rtl_u128();
        if (rtl ^ v) & mask128(width) != 0 {
            self.differs(name, i, &[v as u64, (v >> 64) as u64], width);
        }
    }

    fn ram(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        debug_assert!(width <= 64, "a RAM word of {width} bits");
        let m = mask128(width.min(64));
        for (k, &w) in words.iter().enumerate() {
            let (i, rtl) = self.rtl_u128();
            if (rtl ^ u128::from(w)) & m != 0 {
                self.differs(format_args!("{name}[{k}]"), i, &[w], width);
            }
        }
    }

    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        let i = self.i;
        self.i += 1;
        let (at, n) = self.slots[i];
        for b in 0..n as usize {
            let left = width.saturating_sub(32 * b);
            let mask = if left >= 32 {
                u32::MAX
            } else {
                (1u32 << left) - 1
            };
            let model = words.get(b / 2).map_or(0, |w| (w >> (32 * (b % 2))) as u32);
            if (self.state[at as usize + b] ^ model) & mask != 0 {
                self.differs(name, i, words, width);
                return;
            }
        }
    }
}

/// The model's outputs, as `TopOut::visit` lists them, against the RTL's output words.
struct OutCompare<'a> {
    layout: &'a Layout,
    out: &'a [u32],
    /// for each output in the model's order, the layout's
    index: &'a [usize],
    i: usize,
    /// (name, RTL, model) of each that differed
    bad: Vec<(String, String, String)>,
}

impl RegSink for OutCompare<'_> {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        let v = &self.layout.outputs[self.index[self.i]];
        self.i += 1;
        for b in 0..width.div_ceil(32) {
            let left = width - 32 * b;
            let mask = if left >= 32 {
                u32::MAX
            } else {
                (1u32 << left) - 1
            };
            let model = words.get(b / 2).map_or(0, |w| (w >> (32 * (b % 2))) as u32);
            if (self.out[v.offset + b] ^ model) & mask != 0 {
                let mut m = RegStrings::default();
                m.reg(name, words, width);
                let (n, want) = m.0.pop().expect("one");
                self.bad.push((n, v.bits(self.out, 0), want));
                return;
            }
        }
    }
}

/// Every cycle of `stim` (packed inputs, one cycle after another) through model and RTL.
pub fn lockstep(p: &BlockParams, stim: &[u32], limit: usize) -> Result<Report, String> {
    let mut l = LockstepV3::new(p, limit)?;
    let wpc = l.rtl.layout.input_words;
    if stim.is_empty() || !stim.len().is_multiple_of(wpc) {
        return Err(format!(
            "{} words of stimulus for {wpc} words a cycle: nothing to check",
            stim.len()
        ));
    }
    for c in stim.chunks(wpc) {
        l.cycle(c)?;
    }
    Ok(l.report)
}
