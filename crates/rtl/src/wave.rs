//! Waveforms of the model under the RTL's signal names, so that a model VCD and a Verilator VCD of
//! the same run open side by side in GTKWave or Surfer.
//!
//! The layout follows Verilator's `--trace` output for `capfc_v2_top`: scopes `capfc_v2_top` (the
//! instance) > `capfc_v2_top` (the module) > `u_cfg`, `u_ingress`, ...; ports in the module scope;
//! an element of an unpacked array named `reg[k]`; timescale 1 ps, cycle c dumped at time 2c (clock
//! low, this cycle's inputs and outputs, registers as they entered the cycle) and 2c+1 (after the
//! rising edge). Values come from the same packed words the lockstep checker compares.

use crate::block::pack::{pack_inputs, pack_outputs, pack_state, Layout, Layouts};
use crate::block::{BlockParams, CapfcTop, Inputs, Outputs};
use bitvec::prelude::*;
use std::io::Write;
use vcd::{IdCode, ReferenceIndex, TimescaleUnit, Value, VarType};

struct Var {
    id: IdCode,
    /// (buffer, word offset, width): which words this variable shows.
    buf: usize,
    word: usize,
    width: u32,
}

/// A VCD of the model's ports and architectural registers.
pub struct ModelWave<W: Write> {
    w: vcd::Writer<W>,
    p: BlockParams,
    l: Layouts,
    vars: Vec<Var>,
    clk: IdCode,
    /// Current words of inputs, outputs, state; and what was last written.
    now: [Vec<u32>; 3],
    last: [Vec<u32>; 3],
    first: bool,
}

/// Move the VCD's open scopes (`stack`) to those of `name` (its parts but the last, joined by
/// `.`): close those it does not share, open the rest. Its last part, the variable's name.
fn enter_scopes<'a, W: Write>(
    w: &mut vcd::Writer<W>,
    stack: &mut Vec<String>,
    name: &'a str,
) -> std::io::Result<&'a str> {
    let parts: Vec<&str> = name.split('.').collect();
    let (scopes, last) = parts.split_at(parts.len() - 1);
    let common = stack
        .iter()
        .zip(scopes)
        .take_while(|(a, b)| a.as_str() == **b)
        .count();
    while stack.len() > common {
        w.upscope()?;
        stack.pop();
    }
    for sc in &scopes[common..] {
        w.add_module(sc)?;
        stack.push(sc.to_string());
    }
    Ok(last[0])
}

fn range(width: u32) -> Option<ReferenceIndex> {
    (width > 1).then(|| ReferenceIndex::Range(width as i32 - 1, 0))
}

impl<W: Write> ModelWave<W> {
    /// Write the header for a block of parameters `p`.
    pub fn new(out: W, p: &BlockParams) -> std::io::Result<Self> {
        let l = Layouts::new(p);
        let mut w = vcd::Writer::new(out);
        w.comment("capfc model waveform (signal names as in Verilator's trace of capfc_v2_top)")?;
        w.timescale(1, TimescaleUnit::PS)?;
        w.add_module("capfc_v2_top")?;
        w.add_module("capfc_v2_top")?;
        let clk = w.add_wire(1, "clk")?;
        let mut vars = vec![];
        for (buf, layout) in [(0usize, &l.inputs), (1, &l.outputs)] {
            for s in &layout.signals {
                let id = w.add_var(VarType::Wire, s.width, &s.name, range(s.width))?;
                vars.push(Var {
                    id,
                    buf,
                    word: s.word,
                    width: s.width,
                });
            }
        }
        // State, one scope per instance (and per RAM instance inside a generate block, as
        // `u_egress` > `gen_port[3]` > `u_cnt`), in the order of the layout.
        let mut stack: Vec<String> = vec![];
        for s in &l.state.signals {
            let reg = enter_scopes(&mut w, &mut stack, &s.name)?;
            for k in 0..s.elems {
                let name = if s.elems > 1 {
                    format!("{reg}[{k}]")
                } else {
                    reg.to_string()
                };
                let id = w.add_var(VarType::Wire, s.width, &name, range(s.width))?;
                vars.push(Var {
                    id,
                    buf: 2,
                    word: s.word + k * s.words_per_elem(),
                    width: s.width,
                });
            }
        }
        for _ in 1..stack.len() {
            w.upscope()?;
        }
        w.upscope()?;
        w.upscope()?;
        w.upscope()?;
        w.enddefinitions()?;
        let sizes = [l.inputs.words, l.outputs.words, l.state.words];
        Ok(ModelWave {
            w,
            p: *p,
            now: sizes.map(|n| vec![0; n]),
            last: sizes.map(|n| vec![0; n]),
            l,
            vars,
            clk,
            first: true,
        })
    }

    fn emit(&mut self, time: u64, clk: bool) -> std::io::Result<()> {
        self.w.timestamp(time)?;
        self.w
            .change_scalar(self.clk, if clk { Value::V1 } else { Value::V0 })?;
        for v in &self.vars {
            let cur = &self.now[v.buf][v.word..v.word + (v.width as usize).div_ceil(32)];
            let old = &self.last[v.buf][v.word..v.word + (v.width as usize).div_ceil(32)];
            if !self.first && cur == old {
                continue;
            }
            let bits = &cur.view_bits::<Lsb0>()[..v.width as usize];
            if v.width == 1 {
                self.w
                    .change_scalar(v.id, if bits[0] { Value::V1 } else { Value::V0 })?;
            } else {
                self.w.change_vector(
                    v.id,
                    bits.iter()
                        .rev()
                        .map(|b| if *b { Value::V1 } else { Value::V0 }),
                )?;
            }
        }
        self.first = false;
        for k in 0..3 {
            self.last[k].copy_from_slice(&self.now[k]);
        }
        Ok(())
    }

    /// Dump cycle `c`: call with the model as it enters the cycle, the cycle's inputs and outputs;
    /// then again (via [`ModelWave::after_edge`]) once the model has ticked.
    pub fn before_edge(
        &mut self,
        c: u64,
        m: &CapfcTop,
        inp: &Inputs,
        out: &Outputs,
    ) -> std::io::Result<()> {
        pack_inputs(&self.p, &self.l.inputs, inp, &mut self.now[0]);
        pack_outputs(&self.l.outputs, out, &mut self.now[1]);
        pack_state(m, &self.l.state, &mut self.now[2]);
        self.emit(2 * c, false)
    }

    /// The registers after the rising edge that ends cycle `c`, and the outputs they produce with the
    /// cycle's inputs still applied.
    pub fn after_edge(&mut self, c: u64, m: &CapfcTop, inp: &Inputs) -> std::io::Result<()> {
        let mut out = Outputs::new(self.p.np);
        m.outputs(inp, &mut out);
        pack_outputs(&self.l.outputs, &out, &mut self.now[1]);
        pack_state(m, &self.l.state, &mut self.now[2]);
        self.emit(2 * c + 1, true)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }

    /// The layout whose names the file uses.
    pub fn state_layout(&self) -> &Layout {
        &self.l.state
    }
}

/// One signal of the block's model as a waveform shows it: its RTL name (scopes joined by `.`),
/// its width and its value, most significant bit first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sig {
    pub name: String,
    pub width: usize,
    pub bits: String,
}

/// Signals from the values a unit's `visit` gives, as binary strings (`v3::RegStrings`).
fn sigs(r: crate::v3::RegStrings) -> Vec<Sig> {
    r.0.into_iter()
        .map(|(name, bits)| Sig {
            name,
            width: bits.len(),
            bits,
        })
        .collect()
}

/// The block model's ports: its inputs `inp` and outputs `out`, under the RTL's port names.
pub fn top_ports(
    p: &BlockParams,
    inp: &crate::v3::top::TopIn,
    out: &crate::v3::top::TopOut,
) -> Vec<Sig> {
    let mut s = crate::v3::RegStrings::default();
    inp.visit(p.sw as usize, crate::v3::port_width(p.np) as usize, &mut s);
    out.visit(&mut s);
    sigs(s)
}

/// Every register and RAM word of the block's model, under the RTL's names.
pub fn top_regs(top: &crate::v3::top::Top) -> Vec<Sig> {
    let mut s = crate::v3::RegStrings::default();
    top.visit(&mut s);
    sigs(s)
}

/// A VCD of the block's model (`v3::top::Top`, `capfc_top_oc`): its ports and every register and
/// RAM word under the RTL's names, one scope per instance (`capfc_top_oc` > `capfc_top_oc` >
/// `u_ingress`, ...), cycle c at time 2c (the cycle's inputs and outputs, the registers as they entered it) and
/// 2c + 1 (the registers after its rising edge), as Verilator's trace of the RTL dumps them.
pub struct TopWave<W: Write> {
    w: vcd::Writer<W>,
    clk: IdCode,
    /// each signal's id, in the order of [`top_ports`] then [`top_regs`]
    ids: Vec<IdCode>,
    ports: usize,
    last: Vec<Option<String>>,
}

impl<W: Write> TopWave<W> {
    /// The header, for the signals `ports` and `regs` (a cycle's [`top_ports`] and [`top_regs`]).
    pub fn new(out: W, ports: &[Sig], regs: &[Sig]) -> std::io::Result<Self> {
        let mut w = vcd::Writer::new(out);
        w.comment("capfc model waveform (signal names as in Verilator's trace of capfc_top_oc)")?;
        w.timescale(1, TimescaleUnit::PS)?;
        // (the instance, then the module, as Verilator's trace nests them)
        w.add_module("capfc_top_oc")?;
        w.add_module("capfc_top_oc")?;
        let clk = w.add_wire(1, "clk")?;
        let mut ids = vec![];
        for s in ports {
            ids.push(w.add_var(
                VarType::Wire,
                s.width as u32,
                &s.name,
                range(s.width as u32),
            )?);
        }
        // (a register's scopes opened in the order the model lists them; a scope met again after
        // another is opened again, which a VCD reader merges)
        let mut stack: Vec<String> = vec![];
        for s in regs {
            let reg = enter_scopes(&mut w, &mut stack, &s.name)?;
            ids.push(w.add_var(VarType::Reg, s.width as u32, reg, range(s.width as u32))?);
        }
        for _ in 0..stack.len() + 2 {
            w.upscope()?;
        }
        w.enddefinitions()?;
        let n = ids.len();
        Ok(TopWave {
            w,
            clk,
            ids,
            ports: ports.len(),
            last: vec![None; n],
        })
    }

    fn put(&mut self, k: usize, s: &Sig) -> std::io::Result<()> {
        if self.last[k].as_deref() == Some(s.bits.as_str()) {
            return Ok(());
        }
        let id = self.ids[k];
        if s.width == 1 {
            let v = if s.bits == "1" { Value::V1 } else { Value::V0 };
            self.w.change_scalar(id, v)?;
        } else {
            let v: Vec<Value> = s
                .bits
                .chars()
                .map(|c| if c == '1' { Value::V1 } else { Value::V0 })
                .collect();
            self.w.change_vector(id, v)?;
        }
        self.last[k] = Some(s.bits.clone());
        Ok(())
    }

    /// Cycle `c`: its ports and the registers as they entered it (time 2c, clock low), then the
    /// registers after its edge (time 2c + 1, clock high).
    pub fn cycle(
        &mut self,
        c: u64,
        ports: &[Sig],
        before: &[Sig],
        after: &[Sig],
    ) -> std::io::Result<()> {
        self.w.timestamp(2 * c)?;
        self.w.change_scalar(self.clk, Value::V0)?;
        for (k, s) in ports.iter().enumerate().take(self.ports) {
            self.put(k, s)?;
        }
        for (k, s) in before.iter().enumerate() {
            self.put(self.ports + k, s)?;
        }
        self.w.timestamp(2 * c + 1)?;
        self.w.change_scalar(self.clk, Value::V1)?;
        for (k, s) in after.iter().enumerate() {
            self.put(self.ports + k, s)?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}
