use clap::{Parser, Subcommand};

/// capfc: cycle-accurate CaPFC switch model, co-simulated against its RTL.
#[derive(Parser)]
#[command(name = "capfc", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
enum Cmd {
    /// Co-simulate the Rust model and the Verilated RTL in lockstep over a regression.
    #[cfg(feature = "rtl")]
    Cosim(capfc_cli::cli_cosim::CosimArgs),
    /// The block's fault catalogue and its kill matrix: which lockstep run and which golden set
    /// (also on the plain Verilog testbench alone) catch each deliberate bug of the v3 model.
    #[cfg(feature = "rtl")]
    Faults(capfc_cli::cli_faults::FaultsArgs),
    /// The reference checker: judge an implementation's waveform (any simulator) against the
    /// paper's rules within its declared timing envelope.
    ///
    /// Exit status: 0 every rule held; 1 a violation; 2 bad input (map, envelope, waveform) or
    /// nothing checked; 3 a weak verdict, no violation but a window too wide for the traffic to
    /// judge a rule it exercised (named on standard error; --allow-weak makes it a warning).
    /// Every map and envelope key: docs/design-space.md.
    Check(capfc_cli::cli_check::CheckArgs),
    /// SystemVerilog for your testbench: the DPI-C package over capfc's C library and a scoreboard
    /// that checks your block every cycle, for a parameter set.
    GenSv(capfc_cli::cli_gen_sv::GenSvArgs),
    /// Run a switch scenario in each flow-control mode and compare them.
    Run(capfc_cli::cli_run::RunArgs),
    /// Step a switch scenario interactively (a REPL; a script on standard input without a terminal).
    Step(capfc_cli::cli_step::StepArgs),
    /// Golden vectors: generate, check (stale?), replay against the RTL.
    Golden(capfc_cli::cli_golden::GoldenArgs),
    /// PFC headroom after IEEE 802.1Q Annex N, and the adaptive (measured) variant.
    Headroom(capfc_cli::cli_headroom::HeadroomArgs),
    /// Network topologies in HPCC's topology.txt format: generate (fat tree, leaf-spine, the
    /// paper's) or check one, with its flow.txt.
    Topo(capfc_cli::cli_topo::TopoArgs),
    /// A network of switches (the paper's fat tree by default), each with its own CaPFC block,
    /// PFC hop by hop, ECMP or DeTail routing; flows from HPCC's flow.txt or a size CDF.
    Net(capfc_cli::cli_net::NetArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Headroom(args) => capfc_cli::cli_headroom::run(&args),
        Cmd::Check(args) => std::process::exit(capfc_cli::cli_check::run(&args)),
        Cmd::GenSv(args) => capfc_cli::cli_gen_sv::run(&args),
        Cmd::Run(args) => capfc_cli::cli_run::run(&args),
        Cmd::Topo(args) => capfc_cli::cli_topo::run(&args),
        Cmd::Net(args) => capfc_cli::cli_net::run(&args),
        Cmd::Step(args) => capfc_cli::cli_step::run(&args),
        Cmd::Golden(args) => match capfc_cli::cli_golden::run(&args) {
            Ok(true) => Ok(()),
            Ok(false) => std::process::exit(1),
            Err(e) => Err(e),
        },
        #[cfg(feature = "rtl")]
        Cmd::Cosim(args) => match capfc_cli::cli_cosim::run(&args) {
            Ok(true) => Ok(()),
            Ok(false) => std::process::exit(1),
            Err(e) => Err(e),
        },
        #[cfg(feature = "rtl")]
        Cmd::Faults(args) => match capfc_cli::cli_faults::run(&args) {
            Ok(true) => Ok(()),
            Ok(false) => std::process::exit(1),
            Err(e) => Err(e),
        },
    };
    if let Err(e) = result {
        eprintln!("capfc: {e:#}");
        std::process::exit(1);
    }
}
