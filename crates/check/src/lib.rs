//! capfc's checker crate: the layers over the block's models (`capfc-block`) that a team's
//! testbench links without the rest of capfc (the C ABI in `capi/`, the Python package in
//! `python/`):
//!
//! - [`check`]: the reference checker, which judges any CaPFC implementation's answers cycle by
//!   cycle against the rules of `shared/domain.md` section 3 within the timing envelope it
//!   declares;
//! - [`ports`]: the model and the checker one cycle at a time on the block's packed port words;
//! - [`dpi_sv`]: their SystemVerilog side, the DPI-C package and the scoreboard (`capfc gen-sv`);
//! - [`stimulus`]: block-level stimulus, seeded random and the directed corner cases.
//!
//! Pure computation: no I/O, no command line, no Verilator. `capfc` re-exports the four modules
//! under the same names.

// (the block crate's modules under the names the code uses: `crate::block`, `crate::v3`)
use capfc_block::{block, reference, v3};

pub mod check;
pub mod dpi_sv;
pub mod ports;
pub mod stimulus;
