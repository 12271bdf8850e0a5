use clap::{Parser, Subcommand};

/// capfc: cycle-accurate CaPFC switch model, co-simulated against its RTL.
#[derive(Parser)]
#[command(name = "capfc", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// PFC headroom after IEEE 802.1Q Annex N, and the adaptive (measured) variant.
    Headroom(capfc::headroom::HeadroomArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Headroom(args) => capfc::headroom::run_cli(&args),
    };
    if let Err(e) = result {
        eprintln!("capfc: {e:#}");
        std::process::exit(1);
    }
}
