//! capfc-vectors: the CaPFC block's golden vectors and the checker's waveform maps.
//! [`golden_v3`] writes and reads the block's golden sets (random, directed corners that assert
//! they happened, and recordings of the block's inputs behind the switch); [`golden`] the same for
//! v2, the previous block; [`check_wave`] reads a simulator's waveform through a map of the
//! block's signals for the reference checker (`capfc check`).

pub use capfc_block::{block, error, reference, v3};
pub use capfc_check::{check, ports, stimulus};
#[cfg(feature = "rtl")]
pub use capfc_rtl::{cosim, cosim_v3, dut, dut_v3};
pub use capfc_rtl::{replay, wave};
pub use capfc_switch::{headroom, switch};

/// This crate's modules from the lowest layer to the highest: a module's code (its tests aside)
/// names only modules before it in this list, and the crates below.
pub const LAYERS: &[&str] = &["check_wave", "golden", "golden_v3"];

pub mod check_wave;
pub mod golden;
pub mod golden_v3;
