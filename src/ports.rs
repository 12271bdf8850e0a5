//! The model and the reference checker one cycle at a time on `capfc_top`'s port concatenations:
//! `{rst, cfg_we, ..., pfc_ready}` in and `{arr_accept, ..., d_state}` out (`docs/golden.md`), as
//! 32-bit words least significant first (a SystemVerilog `bit [N-1:0]` as DPI passes it). The
//! bindings (the C ABI in `capi/`, the Python package in `python/`) are thin layers over this.

use crate::block::pack::{self, Layout, Layouts};
use crate::block::{BlockParams, CapfcTop, Inputs, Outputs};
use crate::check::block::{envelope_of, params_of, Adapter};
use crate::check::{Checker, Envelope, Summary, Violation};

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

fn check_len(what: &str, got: usize, bits: usize) -> Result<(), String> {
    let want = bits.div_ceil(32);
    if got < want {
        return Err(format!(
            "{what}: {got} words, the {bits}-bit concatenation needs {want}"
        ));
    }
    Ok(())
}

/// The cycle model of `capfc_top` on port concatenations.
pub struct ModelPorts {
    top: CapfcTop,
    lay: Layouts,
    p: BlockParams,
    inp: Side,
    out: Side,
    inputs: Inputs,
    outputs: Outputs,
}

impl ModelPorts {
    pub fn new(p: &BlockParams) -> Result<Self, String> {
        p.validate().map_err(|e| format!("params: {e}"))?;
        let top = CapfcTop::new(*p).map_err(|e| e.to_string())?;
        let lay = Layouts::new(p);
        Ok(ModelPorts {
            top,
            inp: Side::new(&lay.inputs),
            out: Side::new(&lay.outputs),
            lay,
            p: *p,
            inputs: Inputs::idle(p.np),
            outputs: Outputs::new(p.np),
        })
    }

    pub fn in_bits(&self) -> usize {
        self.inp.bits
    }

    pub fn out_bits(&self) -> usize {
        self.out.bits
    }

    pub fn in_fields(&self) -> Vec<Field> {
        fields(&self.lay.inputs)
    }

    pub fn out_fields(&self) -> Vec<Field> {
        fields(&self.lay.outputs)
    }

    /// One cycle: the inputs in, the outputs the model shows during the cycle out.
    pub fn step(&mut self, inc: &[u32], outc: &mut [u32]) -> Result<(), String> {
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

/// The reference checker on port concatenations: what a block was given and what it answered.
/// The configuration comes from the register writes of the inputs (capfc's register map); a
/// reset clears it.
pub struct CheckerPorts {
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

impl CheckerPorts {
    /// `env`: the block's timing envelope (None: capfc_top's own at these parameters).
    pub fn new(p: &BlockParams, env: Option<Envelope>) -> Result<Self, String> {
        p.validate().map_err(|e| format!("params: {e}"))?;
        let env = match env {
            Some(e) => {
                e.validate().map_err(|m| format!("envelope: {m}"))?;
                e
            }
            None => envelope_of(p),
        };
        let ad = Adapter::new(p);
        let ck = Checker::new(params_of(p), ad.config(), env, true)?;
        let lay = Layouts::new(p);
        Ok(CheckerPorts {
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

    pub fn in_bits(&self) -> usize {
        self.inp.bits
    }

    pub fn out_bits(&self) -> usize {
        self.out.bits
    }

    /// One cycle of the block under check; the violations it shows.
    pub fn step(&mut self, inc: &[u32], outc: &[u32]) -> Result<Vec<Violation>, String> {
        if self.finished {
            return Err("a step after the end of the run".into());
        }
        check_len("inputs", inc.len(), self.inp.bits)?;
        check_len("outputs", outc.len(), self.out.bits)?;
        pack::from_concat(&self.lay.inputs, inc, &mut self.inp.words);
        pack::unpack_inputs(&self.p, &self.lay.inputs, &self.inp.words, &mut self.inputs);
        pack::from_concat(&self.lay.outputs, outc, &mut self.out.words);
        pack::unpack_outputs(&self.lay.outputs, &self.out.words, &mut self.outputs);
        let cy = self.ad.cycle(&self.inputs, &self.outputs);
        Ok(self.ck.step(cy))
    }

    /// The end of the run: the judgments that wait for it (once; steps are refused after it).
    pub fn finish(&mut self) -> Vec<Violation> {
        if self.finished {
            return vec![];
        }
        self.finished = true;
        self.ck.finish()
    }

    pub fn summary(&self) -> &Summary {
        self.ck.summary()
    }

    /// One line of what was checked.
    pub fn summary_line(&self) -> String {
        let s = self.ck.summary();
        format!(
            "{} cycles, {} lanes, {} accepts, {} changes of D, {} selections ({} judged at their deadline), {} frames: {} violations",
            s.cycles, s.lanes, s.accepts, s.d_changes, s.obligations, s.judged, s.frames, s.violations
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_tile_the_concatenation_first_port_highest() {
        let p = BlockParams::with_ports(4);
        let m = ModelPorts::new(&p).unwrap();
        for (f, bits) in [(m.in_fields(), m.in_bits()), (m.out_fields(), m.out_bits())] {
            assert_eq!(f[0].lsb + f[0].width, bits);
            for w in f.windows(2) {
                assert_eq!(w[1].lsb + w[1].width, w[0].lsb);
            }
            assert_eq!(f.last().unwrap().lsb, 0);
        }
        assert_eq!(m.in_fields()[0].name, "rst");
        assert_eq!(m.out_fields().last().unwrap().name, "d_state");
    }

    #[test]
    fn short_buffers_and_a_step_after_the_end_are_refused() {
        let p = BlockParams::with_ports(4);
        let mut c = CheckerPorts::new(&p, None).unwrap();
        let e = c.step(&[0; 2], &[0; 8]).unwrap_err();
        assert!(e.contains("inputs"), "{e}");
        c.finish();
        assert!(c.step(&[0; 8], &[0; 8]).is_err());
    }
}
