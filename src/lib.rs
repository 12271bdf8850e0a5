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
//! Over them, each a crate that names only those below it: `capfc-rtl` (`crates/rtl`: the
//! Verilated RTL behind its bridge, the lockstep [`cosim_v3`], the waveform [`replay`], the
//! model's waveforms [`wave`]); `capfc-switch` (`crates/switch`: [`switch`], [`headroom`]);
//! `capfc-net` (`crates/net`: [`net`]); `capfc-vectors` (`crates/vectors`: the golden vectors
//! [`golden_v3`], the checker's waveform maps [`check_wave`]). All are re-exported here. This
//! crate's own modules are the verification jobs above them, each using only the crates below
//! and the modules listed before it ([`LAYERS`], which `tests/layers.rs` holds the sources to):
//! the fault matrix [`faults`] and the soak [`soak_v3`]. The command line is the crate
//! `capfc-cli` (`crates/cli`), above all of them.

pub use capfc_block::{block, error, reference, v3};
pub use capfc_check::{check, dpi_sv, ports, stimulus};
pub use capfc_net::net;
#[cfg(feature = "rtl")]
pub use capfc_rtl::{cosim, cosim_v3, dut, dut_v3};
pub use capfc_rtl::{replay, wave};
pub use capfc_switch::{headroom, switch};
pub use capfc_vectors::{check_wave, golden, golden_v3};

/// This crate's modules from the lowest layer to the highest: a module's code (its tests aside)
/// names only modules before it in this list, and the crates below.
pub const LAYERS: &[&str] = &["faults", "soak_v3"];

#[cfg(feature = "rtl")]
pub mod faults;
#[cfg(feature = "rtl")]
pub mod soak_v3;
