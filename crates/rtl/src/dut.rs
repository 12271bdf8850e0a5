//! The Verilated RTL of `capfc_v2_top` (v2), driven from Rust through `cxx` (feature `rtl`); the
//! block's, `capfc_top_oc`, is [`crate::dut_v3`].
//!
//! One FFI call per cycle: the inputs go in packed (see [`crate::block::pack`]) and the outputs come
//! back packed in the same call. The architectural state is read back on demand. Every parameter set
//! of `crates/block/src/block/rtl_configs.rs` is a Verilated model of its own; [`RtlBlock::new`] picks the one that
//! matches the requested [`BlockParams`].

use crate::block::pack::{pack_inputs, Layouts};
use crate::block::{BlockParams, Inputs};

#[cxx::bridge(namespace = "capfc")]
mod ffi {
    unsafe extern "C++" {
        include!("capfc/cpp/dut_bridge.h");
        type Dut;
        fn new_dut(config: &str) -> Result<UniquePtr<Dut>>;
        fn rtl_configs() -> Vec<String>;
        fn dut_step(dut: Pin<&mut Dut>, inputs: &[u32], outputs: &mut [u32]);
        fn dut_step_writes(
            dut: Pin<&mut Dut>,
            inputs: &[u32],
            outputs: &mut [u32],
            writes: &mut [u32],
        );
        fn dut_read_state(dut: &Dut, state: &mut [u32]);
        fn dut_read_flops(dut: &Dut, flops: &mut [u32]);
        fn dut_write_state(dut: Pin<&mut Dut>, state: &[u32]);
        fn dut_run_loop(
            dut: Pin<&mut Dut>,
            stim: &[u32],
            words_per_cycle: usize,
            cycles: usize,
            out: &mut [u32],
        ) -> u64;
        fn dut_input_words(dut: &Dut) -> usize;
        fn dut_output_words(dut: &Dut) -> usize;
        fn dut_state_words(dut: &Dut) -> usize;
        fn dut_flops_words(dut: &Dut) -> usize;
        fn dut_writes_words(dut: &Dut) -> usize;
        fn dut_open_trace(dut: Pin<&mut Dut>, path: &str) -> bool;
        fn dut_close_trace(dut: Pin<&mut Dut>);
        fn dut_set_cycle(dut: Pin<&mut Dut>, cycle: u64);
    }
}

use crate::block::rtl_configs::RTL_CONFIGS;

/// Why the RTL could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RtlError {
    #[error("[rtl] no Verilated model for {0:?}; the built ones are: {1}")]
    NoConfig(BlockParams, String),
    #[error("[rtl] {0}")]
    Ffi(String),
    #[error("[rtl] the Verilated model of {name} packs {what} into {rtl} words, the Rust layout into {rust}: signals.rs and the RTL disagree")]
    Layout {
        name: String,
        what: &'static str,
        rtl: usize,
        rust: usize,
    },
    #[error("[rtl] cannot open the waveform file {0}")]
    Trace(String),
}

/// The parameter sets that have a Verilated model in this build, by name.
pub fn available() -> Vec<(String, BlockParams)> {
    let built = ffi::rtl_configs();
    RTL_CONFIGS
        .iter()
        .filter(|(n, _)| built.iter().any(|b| b == n))
        .map(|(n, v)| (n.to_string(), BlockParams::from_values(v)))
        .collect()
}

/// One instance of the Verilated block (its own `VerilatedContext`).
pub struct RtlBlock {
    dut: cxx::UniquePtr<ffi::Dut>,
    pub name: String,
    pub params: BlockParams,
    pub layouts: Layouts,
    in_buf: Vec<u32>,
}

impl RtlBlock {
    /// The Verilated model of exactly these parameters.
    pub fn new(params: &BlockParams) -> Result<Self, RtlError> {
        let all = available();
        let Some((name, _)) = all.iter().find(|(_, p)| p == params) else {
            let names: Vec<String> = all
                .iter()
                .map(|(n, p)| {
                    format!(
                        "{n} (np={}, cw={}, cell_log2={}, nl={})",
                        p.np, p.cw, p.cell_log2, p.nl
                    )
                })
                .collect();
            return Err(RtlError::NoConfig(*params, names.join(", ")));
        };
        let dut = ffi::new_dut(name).map_err(|e| RtlError::Ffi(e.to_string()))?;
        let layouts = Layouts::new(params);
        for (what, rtl, rust) in [
            ("inputs", ffi::dut_input_words(&dut), layouts.inputs.words),
            (
                "outputs",
                ffi::dut_output_words(&dut),
                layouts.outputs.words,
            ),
            ("state", ffi::dut_state_words(&dut), layouts.state.words),
            ("flops", ffi::dut_flops_words(&dut), layouts.flops.words),
            ("writes", ffi::dut_writes_words(&dut), layouts.writes.words),
        ] {
            if rtl != rust {
                return Err(RtlError::Layout {
                    name: name.clone(),
                    what,
                    rtl,
                    rust,
                });
            }
        }
        Ok(RtlBlock {
            dut,
            name: name.clone(),
            params: *params,
            in_buf: vec![0; layouts.inputs.words],
            layouts,
        })
    }

    /// One cycle from already packed inputs; the packed outputs land in `out`.
    #[inline]
    pub fn step_words(&mut self, inputs: &[u32], out: &mut [u32]) {
        ffi::dut_step(self.dut.pin_mut(), inputs, out);
    }

    /// One cycle: pack the inputs, step, outputs packed into `out`.
    pub fn step(&mut self, inp: &Inputs, out: &mut [u32]) {
        pack_inputs(&self.params, &self.layouts.inputs, inp, &mut self.in_buf);
        ffi::dut_step(self.dut.pin_mut(), &self.in_buf, out);
    }

    /// One cycle as [`RtlBlock::step`]; `writes` gets every RAM's write port as it stood before
    /// the clock edge (the layout `Layouts::writes`).
    pub fn step_writes(&mut self, inp: &Inputs, out: &mut [u32], writes: &mut [u32]) {
        pack_inputs(&self.params, &self.layouts.inputs, inp, &mut self.in_buf);
        ffi::dut_step_writes(self.dut.pin_mut(), &self.in_buf, out, writes);
    }

    /// The architectural state registers, packed.
    pub fn read_state(&self, state: &mut [u32]) {
        ffi::dut_read_state(&self.dut, state);
    }

    /// The architectural state registers but the RAM words (the layout `Layouts::flops`).
    pub fn read_flops(&self, flops: &mut [u32]) {
        ffi::dut_read_flops(&self.dut, flops);
    }

    /// Overwrite the architectural state registers (the layout of [`RtlBlock::read_state`], e.g.
    /// the model's state from [`crate::block::pack::pack_state`]) and settle the logic behind them.
    pub fn write_state(&mut self, state: &[u32]) {
        assert_eq!(state.len(), self.layouts.state.words, "state words");
        ffi::dut_write_state(self.dut.pin_mut(), state);
    }

    /// The benchmark's lower bound: `cycles` cycles of pre-packed stimulus in a C++ loop.
    pub fn run_loop(&mut self, stim: &[u32], cycles: usize, out: &mut [u32]) -> u64 {
        let wpc = self.layouts.inputs.words;
        assert!(stim.len() >= wpc * cycles);
        ffi::dut_run_loop(self.dut.pin_mut(), stim, wpc, cycles, out)
    }

    /// Write every following cycle to a VCD file (RTL signal names, two time steps a cycle).
    pub fn open_trace(&mut self, path: &str) -> Result<(), RtlError> {
        if ffi::dut_open_trace(self.dut.pin_mut(), path) {
            Ok(())
        } else {
            Err(RtlError::Trace(path.to_string()))
        }
    }

    pub fn close_trace(&mut self) {
        ffi::dut_close_trace(self.dut.pin_mut());
    }

    /// Number the following cycles from `cycle` in the waveform (cycle c at times 2c and 2c+1).
    pub fn set_cycle(&mut self, cycle: u64) {
        ffi::dut_set_cycle(self.dut.pin_mut(), cycle);
    }
}
