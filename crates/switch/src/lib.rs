//! capfc-switch: the switch around the CaPFC block, cycle by cycle ([`switch`]): its ports,
//! ingress FIFOs, shared pipeline, traffic manager and PFC MACs, with the v3 block (or v2, the
//! previous one) deciding acceptance and pause, as the model, its Verilated RTL or both in
//! lockstep; its QCN congestion points and FECN rate computation; scenarios, statistics, pcap
//! capture; and [`headroom`], the PFC headroom of a port.

pub use capfc_block::{block, error, reference, v3};
#[cfg(feature = "rtl")]
pub use capfc_rtl::{cosim, cosim_v3, dut, dut_v3};
pub use capfc_rtl::{replay, wave};

/// This crate's modules from the lowest layer to the highest: a module's code (its tests aside)
/// names only modules before it in this list, and the crates below.
pub const LAYERS: &[&str] = &["headroom", "switch"];

pub mod headroom;
pub mod switch;
