//! capfc: a cycle-accurate model of the CaPFC block (congestion-aware priority flow control) and the
//! switch around it, co-simulated in lockstep against the block's Verilog through Verilator.
//!
//! The models live in the crate `capfc-block` (`crates/block`), re-exported here and doing no I/O:
//! [`v3`] is the cycle model of the block, `rtl/v3/capfc_top_oc.sv` ([`v3::top::Top`]); [`block`]
//! that of v2, the previous block (`check/capfc_v2/rtl/capfc_v2_top.sv`), kept as a second
//! implementation and the default of `capfc net`; [`reference`](mod@reference) the untimed
//! transcription of `shared/domain.md` section 3. Over them, the crate `capfc-check`
//! (`crates/check`, pure too, and all that the C ABI and the Python package link): [`check`], the
//! reference checker; [`ports`], the model and the checker on packed port words; [`dpi_sv`], their
//! SystemVerilog side (the DPI-C package and the scoreboard); [`stimulus`].
//!
//! The modules here are layers around those, each using only the crates below and the layers
//! listed before it ([`LAYERS`], which `tests/layers.rs` holds the sources to): model waveforms,
//! the Verilator bridge and the lockstep, headroom, the switch, the network, golden vectors, the
//! fault matrix and the soak. The command line is the crate `capfc-cli` (`crates/cli`), above all
//! of them.

pub use capfc_block::{block, error, reference, v3};
pub use capfc_check::{check, dpi_sv, ports, stimulus};

/// This crate's modules from the lowest layer to the highest: a module's code (its tests aside)
/// names only modules before it in this list, and the two crates below (the models, the checker).
pub const LAYERS: &[&str] = &[
    "check_wave",
    "wave",
    "dut_v3",
    "dut",
    "replay",
    "cosim",
    "cosim_v3",
    "headroom",
    "switch",
    "net",
    "golden",
    "golden_v3",
    "faults",
    "soak_v3",
];

pub mod check_wave;
#[cfg(feature = "rtl")]
pub mod cosim;
#[cfg(feature = "rtl")]
pub mod cosim_v3;
#[cfg(feature = "rtl")]
pub mod dut;
#[cfg(feature = "rtl")]
pub mod dut_v3;
#[cfg(feature = "rtl")]
pub mod faults;
pub mod golden;
pub mod golden_v3;
pub mod headroom;
pub mod net;
pub mod replay;
#[cfg(feature = "rtl")]
pub mod soak_v3;
pub mod switch;
pub mod wave;
