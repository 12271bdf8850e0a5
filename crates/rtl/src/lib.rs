//! capfc-rtl: the CaPFC block's Verilog beside its model. [`dut_v3`] is the Verilated block
//! (`rtl/v3/capfc_top_oc.sv`, one configuration per parameter set of
//! `crates/block/src/v3/rtl_configs.rs`) behind a `cxx` bridge, and [`cosim_v3`] the lockstep
//! that steps it beside the model ([`v3::top::Top`]) and compares every output and register each
//! cycle; [`dut`] and [`cosim`] are the same for v2, the previous block; [`replay`] turns a
//! simulator's waveform into the block's inputs; [`wave`] writes the model's waveforms.
//!
//! `build.rs` verilates the RTL and compiles it with the bridge; without the `rtl` feature only
//! [`replay`] and [`wave`] build.

pub use capfc_block::{block, error, reference, v3};
pub use capfc_check::{check, ports, stimulus};

/// This crate's modules from the lowest layer to the highest: a module's code (its tests aside)
/// names only modules before it in this list, and the crates below (the models, the checker).
pub const LAYERS: &[&str] = &["wave", "dut_v3", "dut", "replay", "cosim", "cosim_v3"];

#[cfg(feature = "rtl")]
pub mod cosim;
#[cfg(feature = "rtl")]
pub mod cosim_v3;
#[cfg(feature = "rtl")]
pub mod dut;
#[cfg(feature = "rtl")]
pub mod dut_v3;
pub mod replay;
pub mod wave;
