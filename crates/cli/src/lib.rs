//! capfc's command line as a library: each `cli_*` module is one command's arguments and its run,
//! [`repl`] is `capfc step`, [`plot`] the SVG plots. The binary (`src/main.rs`) only dispatches.
//! Everything it runs lives in the crate `capfc` (and the models in `capfc-block`): this crate is
//! the only one with clap, rustyline, plotters and indicatif.

// The library's layers under their own names, so that a command reads `crate::switch` as the
// library does.
#[cfg(feature = "rtl")]
use capfc::faults;
use capfc::{block, check, check_wave, dpi_sv, golden, golden_v3, net, switch, v3};

pub mod cli_check;
#[cfg(feature = "rtl")]
pub mod cli_cosim;
#[cfg(feature = "rtl")]
pub mod cli_faults;
pub mod cli_fecn;
pub mod cli_gen_sv;
pub mod cli_golden;
pub mod cli_headroom;
pub mod cli_net;
pub mod cli_qcn;
pub mod cli_run;
pub mod cli_step;
pub mod cli_topo;
pub mod cli_util;
pub mod plot;
pub mod repl;
