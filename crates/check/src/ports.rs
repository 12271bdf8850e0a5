//! The model and the reference checker one cycle at a time on the block's port concatenations
//! (`capfc_top_oc`'s, the block, v3, by default, with its two readies first in the outputs; the test
//! subject `capfc_v2_top`'s, v2, when asked for):
//! `{rst, cfg_we, ..., pfc_ready}` in and `{arr_accept, ..., d_state}` out (`docs/golden.md`), as
//! 32-bit words least significant first (a SystemVerilog `bit [N-1:0]` as DPI passes it). The
//! bindings (the C ABI in `capi/`, the Python package in `python/`) are thin layers over this.

use crate::block::pack::{self, Layout, Layouts};
use crate::block::{BlockKind, BlockParams, CapfcTop, Inputs, Outputs};
use crate::check::block::{envelope_of, envelope_of_v3, params_of, Adapter, AdapterV3};
use crate::check::{Checker, Envelope, Summary, Violation};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::RegSink;
use bitvec::prelude::*;

/// What the ports refuse: parameters or an envelope the block cannot take, a concatenation of
/// the wrong length, inputs that do not decode, a step after the end of the run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortsError {
    /// The block's parameters, refused by the model (its message, `[config]` or `[params]`).
    #[error("{0}")]
    Params(String),
    /// The timing envelope, refused by the checker.
    #[error("[envelope] {0}")]
    Envelope(#[source] crate::check::FieldError),
    /// The checker refused to start.
    #[error("[checker] {0}")]
    Checker(#[source] crate::check::CheckerError),
    /// Fewer words than the concatenation needs.
    #[error("[ports] {what}: {got} words, the {bits}-bit concatenation needs {want}")]
    Length {
        what: &'static str,
        got: usize,
        bits: usize,
        want: usize,
    },
    /// Inputs the v3 block's ports cannot carry.
    #[error("[ports] {0}")]
    Decode(#[from] crate::v3::inputs::InputError),
    /// A checker's step after [`CheckerPorts::finish`].
    #[error("[ports] a step after the end of the run")]
    AfterEnd,
}

/// For the bindings' layers that report errors as text.
impl From<PortsError> for String {
    fn from(e: PortsError) -> String {
        e.to_string()
    }
}

/// One port of a concatenation: its name, its lowest bit, its width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub lsb: usize,
    pub width: usize,
}

/// The ports of a concatenation, first (highest) first.
pub fn fields(l: &Layout) -> Vec<Field> {
    let mut top = pack::concat_bits(l);
    l.signals
        .iter()
        .map(|s| {
            let width = s.width as usize * s.elems;
            top -= width;
            Field {
                name: s.name.clone(),
                lsb: top,
                width,
            }
        })
        .collect()
}

/// The words and decoded values of one direction of the ports.
struct Side {
    words: Vec<u32>,
    bits: usize,
}

impl Side {
    fn new(l: &Layout) -> Side {
        Side {
            words: vec![0; l.words],
            bits: pack::concat_bits(l),
        }
    }
}

fn check_len(what: &'static str, got: usize, bits: usize) -> Result<(), PortsError> {
    let want = bits.div_ceil(32);
    if got < want {
        return Err(PortsError::Length {
            what,
            got,
            bits,
            want,
        });
    }
    Ok(())
}

/// The cycle model of the block on port concatenations: `capfc_top_oc` (v3, [`ModelPorts::new`]) or
/// `capfc_v2_top` (v2, [`ModelPorts::with_block`]).
pub struct ModelPorts(ModelImpl);

enum ModelImpl {
    V2(Box<ModelV2>),
    V3(Box<ModelV3>),
}

/// The reference checker on port concatenations: what a block was given and what it answered,
/// `capfc_v2_top`'s ports (v2) or `capfc_top_oc`'s (v3: with the lanes' readies, the accepts four
/// cycles after the take). The configuration comes from the register writes of the inputs
/// (capfc's register map); a reset clears it.
pub struct CheckerPorts(CheckerImpl);

enum CheckerImpl {
    V2(Box<CheckerV2>),
    V3(Box<CheckerV3>),
}

impl ModelPorts {
    /// The block's, `capfc_top_oc`'s (v3).
    pub fn new(p: &BlockParams) -> Result<Self, PortsError> {
        Self::with_block(p, BlockKind::V3)
    }

    /// The block of micro-architecture `block`.
    pub fn with_block(p: &BlockParams, block: BlockKind) -> Result<Self, PortsError> {
        Ok(ModelPorts(match block {
            BlockKind::V2 => ModelImpl::V2(Box::new(ModelV2::new(p)?)),
            BlockKind::V3 => ModelImpl::V3(Box::new(ModelV3::new(p)?)),
        }))
    }

    pub fn in_bits(&self) -> usize {
        match &self.0 {
            ModelImpl::V2(m) => m.inp.bits,
            ModelImpl::V3(m) => m.ports.in_bits,
        }
    }

    pub fn out_bits(&self) -> usize {
        match &self.0 {
            ModelImpl::V2(m) => m.out.bits,
            ModelImpl::V3(m) => m.ports.out_bits,
        }
    }

    /// The input ports, first (highest) first.
    pub fn in_fields(&self) -> Vec<Field> {
        match &self.0 {
            ModelImpl::V2(m) => fields(&m.lay.inputs),
            ModelImpl::V3(m) => m.ports.ins.clone(),
        }
    }

    /// The output ports, first (highest) first.
    pub fn out_fields(&self) -> Vec<Field> {
        match &self.0 {
            ModelImpl::V2(m) => fields(&m.lay.outputs),
            ModelImpl::V3(m) => m.ports.outs.clone(),
        }
    }

    /// One cycle: the inputs in, the outputs the model shows during the cycle out.
    pub fn step(&mut self, inc: &[u32], outc: &mut [u32]) -> Result<(), PortsError> {
        match &mut self.0 {
            ModelImpl::V2(m) => m.step(inc, outc),
            ModelImpl::V3(m) => m.step(inc, outc),
        }
    }
}

impl CheckerPorts {
    /// For the block's ports, `capfc_top_oc`'s (v3); `env`: the block's timing envelope (None: the
    /// block's own at these parameters).
    pub fn new(p: &BlockParams, env: Option<Envelope>) -> Result<Self, PortsError> {
        Self::with_block(p, env, BlockKind::V3)
    }

    /// For the ports of micro-architecture `block`; `env` None: that block's own envelope.
    pub fn with_block(
        p: &BlockParams,
        env: Option<Envelope>,
        block: BlockKind,
    ) -> Result<Self, PortsError> {
        Ok(CheckerPorts(match block {
            BlockKind::V2 => CheckerImpl::V2(Box::new(CheckerV2::new(p, env)?)),
            BlockKind::V3 => CheckerImpl::V3(Box::new(CheckerV3::new(p, env)?)),
        }))
    }

    fn ck(&self) -> &Checker {
        match &self.0 {
            CheckerImpl::V2(c) => &c.ck,
            CheckerImpl::V3(c) => &c.ck,
        }
    }

    pub fn in_bits(&self) -> usize {
        match &self.0 {
            CheckerImpl::V2(c) => c.inp.bits,
            CheckerImpl::V3(c) => c.ports.in_bits,
        }
    }

    pub fn out_bits(&self) -> usize {
        match &self.0 {
            CheckerImpl::V2(c) => c.out.bits,
            CheckerImpl::V3(c) => c.ports.out_bits,
        }
    }

    /// One cycle of the block under check; the violations it shows.
    pub fn step(&mut self, inc: &[u32], outc: &[u32]) -> Result<Vec<Violation>, PortsError> {
        let finished = match &self.0 {
            CheckerImpl::V2(c) => c.finished,
            CheckerImpl::V3(c) => c.finished,
        };
        if finished {
            return Err(PortsError::AfterEnd);
        }
        match &mut self.0 {
            CheckerImpl::V2(c) => c.step(inc, outc),
            CheckerImpl::V3(c) => c.step(inc, outc),
        }
    }

    /// The end of the run: the judgments that wait for it (once; steps are refused after it).
    pub fn finish(&mut self) -> Vec<Violation> {
        let (finished, ck) = match &mut self.0 {
            CheckerImpl::V2(c) => (&mut c.finished, &mut c.ck),
            CheckerImpl::V3(c) => (&mut c.finished, &mut c.ck),
        };
        if *finished {
            return vec![];
        }
        *finished = true;
        ck.finish()
    }

    pub fn summary(&self) -> &Summary {
        self.ck().summary()
    }

    /// One line of what was checked.
    pub fn summary_line(&self) -> String {
        let s = self.ck().summary();
        format!(
            "{} cycles, {} lanes, {} accepts, {} changes of D, {} selections ({} judged at their deadline), {} frames: {} violations",
            s.cycles, s.lanes, s.accepts, s.d_changes, s.obligations, s.judged, s.frames, s.violations
        )
    }
}

/// v2's model on `capfc_v2_top`'s ports.
struct ModelV2 {
    top: CapfcTop,
    lay: Layouts,
    p: BlockParams,
    inp: Side,
    out: Side,
    inputs: Inputs,
    outputs: Outputs,
}

impl ModelV2 {
    fn new(p: &BlockParams) -> Result<Self, PortsError> {
        p.validate()
            .map_err(|e| PortsError::Params(e.to_string()))?;
        let top = CapfcTop::new(*p).map_err(|e| PortsError::Params(e.to_string()))?;
        let lay = Layouts::new(p);
        Ok(ModelV2 {
            top,
            inp: Side::new(&lay.inputs),
            out: Side::new(&lay.outputs),
            lay,
            p: *p,
            inputs: Inputs::idle(p.np),
            outputs: Outputs::new(p.np),
        })
    }

    fn step(&mut self, inc: &[u32], outc: &mut [u32]) -> Result<(), PortsError> {
        check_len("inputs", inc.len(), self.inp.bits)?;
        check_len("outputs", outc.len(), self.out.bits)?;
        pack::from_concat(&self.lay.inputs, inc, &mut self.inp.words);
        pack::unpack_inputs(&self.p, &self.lay.inputs, &self.inp.words, &mut self.inputs);
        self.top.tick_cycle(&self.inputs, &mut self.outputs);
        pack::pack_outputs(&self.lay.outputs, &self.outputs, &mut self.out.words);
        pack::to_concat(&self.lay.outputs, &self.out.words, outc);
        Ok(())
    }
}

/// v2's checker on `capfc_v2_top`'s ports.
struct CheckerV2 {
    ck: Checker,
    ad: Adapter,
    lay: Layouts,
    p: BlockParams,
    inp: Side,
    out: Side,
    inputs: Inputs,
    outputs: Outputs,
    finished: bool,
}

impl CheckerV2 {
    fn new(p: &BlockParams, env: Option<Envelope>) -> Result<Self, PortsError> {
        p.validate()
            .map_err(|e| PortsError::Params(e.to_string()))?;
        let env = match env {
            Some(e) => {
                e.validate().map_err(PortsError::Envelope)?;
                e
            }
            None => envelope_of(p),
        };
        let ad = Adapter::new(p);
        let ck = Checker::new(params_of(p), ad.config(), env, true).map_err(PortsError::Checker)?;
        let lay = Layouts::new(p);
        Ok(CheckerV2 {
            ck,
            ad,
            inp: Side::new(&lay.inputs),
            out: Side::new(&lay.outputs),
            lay,
            p: *p,
            inputs: Inputs::idle(p.np),
            outputs: Outputs::new(p.np),
            finished: false,
        })
    }

    fn step(&mut self, inc: &[u32], outc: &[u32]) -> Result<Vec<Violation>, PortsError> {
        check_len("inputs", inc.len(), self.inp.bits)?;
        check_len("outputs", outc.len(), self.out.bits)?;
        pack::from_concat(&self.lay.inputs, inc, &mut self.inp.words);
        pack::unpack_inputs(&self.p, &self.lay.inputs, &self.inp.words, &mut self.inputs);
        pack::from_concat(&self.lay.outputs, outc, &mut self.out.words);
        pack::unpack_outputs(&self.lay.outputs, &self.out.words, &mut self.outputs);
        let cy = self.ad.cycle(&self.inputs, &self.outputs);
        Ok(self.ck.step(cy))
    }
}

/// The v3 block's port concatenations (`capfc_top_oc`'s ports in the order of its port list):
/// the fields, and the model's inputs and outputs of a cycle decoded from and into them.
struct PortsV3 {
    p: BlockParams,
    ins: Vec<Field>,
    outs: Vec<Field>,
    in_bits: usize,
    out_bits: usize,
    tin: TopIn,
    tout: TopOut,
}

/// The sink that lists the ports' names and widths.
#[derive(Default)]
struct Widths(Vec<(String, usize)>);

impl RegSink for Widths {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, _: &[u64], width: usize) {
        self.0.push((name.to_string(), width));
    }
}

/// Fields tiling a concatenation of `list`, the first port highest.
fn tile(list: Vec<(String, usize)>) -> (Vec<Field>, usize) {
    let bits: usize = list.iter().map(|(_, w)| w).sum();
    let mut top = bits;
    let f = list
        .into_iter()
        .map(|(name, width)| {
            top -= width;
            Field {
                name,
                lsb: top,
                width,
            }
        })
        .collect();
    (f, bits)
}

/// The sink that writes the outputs into a concatenation, each at its field (`k`: the next
/// field, the sink visited in the fields' order).
struct IntoConcat<'a> {
    fields: &'a [Field],
    k: usize,
    concat: &'a mut [u32],
}

impl RegSink for IntoConcat<'_> {
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        let f = &self.fields[self.k];
        self.k += 1;
        let dst = self.concat.view_bits_mut::<Lsb0>();
        for b in 0..width.min(f.width) {
            dst.set(
                f.lsb + b,
                words.get(b / 64).is_some_and(|w| w >> (b % 64) & 1 == 1),
            );
        }
    }
}

impl PortsV3 {
    fn new(p: &BlockParams) -> Result<Self, PortsError> {
        crate::v3::check_params(p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl as u32)
            .map_err(|e| PortsError::Params(e.to_string()))?;
        let np = p.np;
        let tin = TopIn::idle(np);
        let tout = TopOut::idle(np);
        let mut w = Widths::default();
        tin.visit(p.sw as usize, crate::v3::port_width(np) as usize, &mut w);
        let (ins, in_bits) = tile(w.0);
        let mut w = Widths::default();
        tout.visit(&mut w);
        let (outs, out_bits) = tile(w.0);
        Ok(PortsV3 {
            p: *p,
            ins,
            outs,
            in_bits,
            out_bits,
            tin,
            tout,
        })
    }

    /// The inputs of a cycle from their concatenation into `self.tin`.
    fn decode_in(&mut self, inc: &[u32]) -> Result<(), PortsError> {
        check_len("inputs", inc.len(), self.in_bits)?;
        let bits = inc.view_bits::<Lsb0>();
        let ins = &self.ins;
        let f = |name: &str, lo: usize, w: u32| -> Result<u64, crate::v3::inputs::InputError> {
            let f = ins.iter().find(|f| f.name == name).ok_or_else(|| {
                crate::v3::inputs::InputError::NoPort {
                    within: "capfc_top_oc".to_string(),
                    name: name.to_string(),
                }
            })?;
            Ok((0..w as usize)
                .filter(|&b| lo + b < f.width && bits[f.lsb + lo + b])
                .fold(0u64, |x, b| x | 1 << b))
        };
        crate::v3::inputs::top_in_into(&self.p, &f, &mut self.tin).map_err(PortsError::Decode)
    }

    /// The outputs of a cycle from their concatenation into `self.tout`.
    fn decode_out(&mut self, outc: &[u32]) -> Result<(), PortsError> {
        check_len("outputs", outc.len(), self.out_bits)?;
        let bits = outc.view_bits::<Lsb0>();
        let get = |name: &str, lo: usize, w: usize| -> u64 {
            let f = self
                .outs
                .iter()
                .find(|f| f.name == name)
                .expect("capfc_top_oc's outputs");
            (0..w)
                .filter(|&b| bits[f.lsb + lo + b])
                .fold(0u64, |x, b| x | 1 << b)
        };
        let np = self.p.np;
        let o = &mut self.tout;
        for i in 0..np {
            o.arr_ready[i] = get("arr_ready", i, 1) == 1;
            o.deq_ready[i] = get("deq_ready", i, 1) == 1;
            o.arr_accept[i] = get("arr_accept", i, 1) == 1;
            o.pfc_valid[i] = get("pfc_valid", i, 1) == 1;
            o.pfc_cev[i] = get("pfc_cev", 8 * i, 8) as u8;
            o.pfc_xoff[i] = get("pfc_xoff", 8 * i, 8) as u8;
            o.d_state[i] = get("d_state", 8 * i, 8) as u8;
        }
        o.enq_accept = get("enq_accept", 0, 1) == 1;
        o.pfc_quanta = get("pfc_quanta", 0, 16) as u16;
        Ok(())
    }
}

/// v3's model on `capfc_top_oc`'s ports.
struct ModelV3 {
    top: Top,
    ports: PortsV3,
}

impl ModelV3 {
    fn new(p: &BlockParams) -> Result<Self, PortsError> {
        let ports = PortsV3::new(p)?;
        Ok(ModelV3 {
            top: Top::new(*p),
            ports,
        })
    }

    fn step(&mut self, inc: &[u32], outc: &mut [u32]) -> Result<(), PortsError> {
        check_len("outputs", outc.len(), self.ports.out_bits)?;
        self.ports.decode_in(inc)?;
        let pt = &mut self.ports;
        self.top.cycle_into(&pt.tin, &mut pt.tout);
        outc.fill(0);
        pt.tout.visit(&mut IntoConcat {
            fields: &pt.outs,
            k: 0,
            concat: outc,
        });
        Ok(())
    }
}

/// v3's checker on `capfc_top_oc`'s ports.
struct CheckerV3 {
    ck: Checker,
    ad: AdapterV3,
    ports: PortsV3,
    finished: bool,
}

impl CheckerV3 {
    fn new(p: &BlockParams, env: Option<Envelope>) -> Result<Self, PortsError> {
        let ports = PortsV3::new(p)?;
        let env = match env {
            Some(e) => {
                e.validate().map_err(PortsError::Envelope)?;
                e
            }
            None => envelope_of_v3(p),
        };
        let ad = AdapterV3::new(p);
        let ck = Checker::new(params_of(p), ad.config(), env, true).map_err(PortsError::Checker)?;
        Ok(CheckerV3 {
            ck,
            ad,
            ports,
            finished: false,
        })
    }

    fn step(&mut self, inc: &[u32], outc: &[u32]) -> Result<Vec<Violation>, PortsError> {
        self.ports.decode_in(inc)?;
        self.ports.decode_out(outc)?;
        let cy = self.ad.cycle(&self.ports.tin, &self.ports.tout);
        Ok(self.ck.step(cy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_tile_the_concatenation_first_port_highest() {
        let p = BlockParams::with_ports(4);
        for block in [BlockKind::V3, BlockKind::V2] {
            let m = ModelPorts::with_block(&p, block).unwrap();
            for (f, bits) in [(m.in_fields(), m.in_bits()), (m.out_fields(), m.out_bits())] {
                assert_eq!(f[0].lsb + f[0].width, bits, "{block:?}");
                for w in f.windows(2) {
                    assert_eq!(w[1].lsb + w[1].width, w[0].lsb, "{block:?}");
                }
                assert_eq!(f.last().unwrap().lsb, 0, "{block:?}");
            }
            assert_eq!(m.in_fields()[0].name, "rst", "{block:?}");
            assert_eq!(m.out_fields().last().unwrap().name, "d_state", "{block:?}");
        }
        // (the block's own by default: its readies first among the outputs)
        let m = ModelPorts::new(&p).unwrap();
        assert_eq!(m.out_fields()[0].name, "arr_ready");
    }

    #[test]
    fn short_buffers_and_a_step_after_the_end_are_refused() {
        let p = BlockParams::with_ports(4);
        for block in [BlockKind::V3, BlockKind::V2] {
            let mut c = CheckerPorts::with_block(&p, None, block).unwrap();
            let e = c.step(&[0; 2], &[0; 8]).unwrap_err();
            assert!(
                matches!(
                    e,
                    PortsError::Length {
                        what: "inputs",
                        got: 2,
                        ..
                    }
                ),
                "{block:?}: {e}"
            );
            c.finish();
            assert_eq!(c.step(&[0; 8], &[0; 8]), Err(PortsError::AfterEnd));
        }
    }
}
