//! The CaPFC block (congestion-aware priority flow control) as pure computation: its cycle
//! models and the untimed reference. No I/O, no command line, no Verilator; the co-simulation,
//! the vectors, the checker, the switch and the CLI are layers around it (crate `capfc`).
//!
//! - [`v3`]: the block, register for register beside `rtl/v3/` (top `capfc_top_oc`, [`v3::top::Top`]);
//! - [`block`]: v2, the previous block (`rtl/capfc_top.sv`), kept as a second implementation;
//! - [`reference`]: the untimed transcription of the reference semantics (`shared/domain.md`
//!   section 3).

pub mod block;
pub mod error;
pub mod reference;
pub mod v3;
