//! capfc: a cycle-accurate model of the CaPFC block (congestion-aware priority flow control) and the
//! switch around it, co-simulated in lockstep against the block's Verilog through Verilator.
//!
//! The models live in the crate `capfc-block` (`crates/block`), re-exported here and doing no
//! I/O: [`v3`] is the cycle model of the block, `rtl/v3/capfc_top_oc.sv` ([`v3::top::Top`]);
//! [`block`] that of v2, the previous block (`rtl/capfc_top.sv`), kept as a second implementation
//! and the default of some commands (`capfc net`, `capfc cosim`, golden recording from the
//! switch); [`reference`] the untimed transcription of `shared/domain.md` section 3.
//! Co-simulation, stimulus, the checker, the switch and the network are layers around them.

pub use capfc_block::{block, reference, v3};

pub mod check;
pub mod check_wave;
#[cfg(feature = "rtl")]
pub mod cosim;
#[cfg(feature = "rtl")]
pub mod cosim_v3;
pub mod dpi_sv;
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
pub mod pcap;
pub mod ports;
pub mod replay;
#[cfg(feature = "rtl")]
pub mod soak_v3;
pub mod stimulus;
pub mod switch;
pub mod wave;
