//! `capfc headroom`: the flags of [`capfc::headroom::compute`], its report printed as a table or
//! as JSON.

use clap::Args;

use capfc::headroom::{compute, render, render_phys, Inputs};

/// `capfc headroom`: PFC headroom after IEEE 802.1Q-2018 Annex N, or from measured timestamps.
///
/// All delays are in bit times, frame and buffer sizes in bytes. Every default can be overridden.
#[derive(Args, Debug, Default)]
#[command(
    after_help = "Example: capfc headroom --phy 10GBASE-T --cable 100m   (the Annex N example, \
                        DV = 126024 bit times). `--list-phys` prints the PHY table and its sources."
)]
pub struct HeadroomArgs {
    /// PHY (case-insensitive): 1000BASE-T, 10GBASE-T, 10GBASE-R, 25GBASE-R, 40GBASE-R, 100GBASE-R.
    #[arg(long, value_name = "PHY")]
    pub phy: Option<String>,
    /// Port speed overriding the PHY's, e.g. 25G, 400g, 1000M.
    #[arg(long, value_name = "SPEED", allow_hyphen_values = true)]
    pub speed: Option<String>,
    /// Cable length with a unit: 100m, 10km, 0.5m.
    #[arg(long, value_name = "LENGTH", allow_hyphen_values = true)]
    pub cable: Option<String>,
    /// Medium: cat6 (5.556 ns/m) or fibre (5 ns/m). Default: cat6 for BASE-T, fibre for BASE-R.
    #[arg(long, value_name = "MEDIUM")]
    pub medium: Option<String>,
    /// Propagation delay in ns per metre, overriding the medium's.
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    pub ns_per_m: Option<String>,
    /// Maximum frame on the wire in bytes, incl. preamble, SFD and IFG [default: 2020 = 16160 bit times].
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub max_frame: Option<String>,
    /// PFC frame on the wire in bytes, incl. preamble, SFD and IFG [default: 84 = 672 bit times].
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub pfc_frame: Option<String>,
    /// Interface TX delay in bit times, both stations (TX_s1, TX_s2) [default: the PHY's].
    #[arg(long, value_name = "BITS", allow_hyphen_values = true)]
    pub tx_delay: Option<String>,
    /// Interface RX delay in bit times, both stations (RX_s1, RX_s2) [default: the PHY's].
    #[arg(long, value_name = "BITS", allow_hyphen_values = true)]
    pub rx_delay: Option<String>,
    /// The remote station's TX delay (TX_s2) if it differs [default: --tx-delay].
    #[arg(long, value_name = "BITS", allow_hyphen_values = true)]
    pub remote_tx_delay: Option<String>,
    /// The remote station's RX delay (RX_s2) if it differs [default: --rx-delay].
    #[arg(long, value_name = "BITS", allow_hyphen_values = true)]
    pub remote_rx_delay: Option<String>,
    /// The remote station's higher-layer delay HD_s2 in bit times [default: the PHY's].
    #[arg(long, value_name = "BITS", allow_hyphen_values = true)]
    pub hd: Option<String>,
    /// Adaptive variant: request sent at T1, received at T2, answered at T3, answer received at T4.
    /// Nanoseconds unless a unit (ps, ns, us, ms, s) is written.
    #[arg(
        long,
        num_args = 4,
        value_names = ["T1", "T2", "T3", "T4"],
        allow_hyphen_values = true,
        conflicts_with_all = ["cable", "medium", "ns_per_m", "tx_delay", "rx_delay",
                              "remote_tx_delay", "remote_rx_delay", "hd"]
    )]
    pub measured: Option<Vec<String>>,
    /// Fragmentation factor α ≥ 1: Headroom = DV·α [default: 1].
    #[arg(long, value_name = "ALPHA", allow_hyphen_values = true)]
    pub alpha: Option<String>,
    /// Buffer cell (chunk) size in bytes [default: 160].
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub cell: Option<String>,
    /// Buffer MAX in bytes: prints XOFF = MAX − headroom (rounded up to whole cells).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub max: Option<String>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Print the PHY and medium tables with the source of each default, and exit.
    #[arg(long)]
    pub list_phys: bool,
}

impl HeadroomArgs {
    /// The flags as the library takes them.
    fn inputs(&self) -> Inputs {
        let a = self;
        Inputs {
            phy: a.phy.clone(),
            speed: a.speed.clone(),
            cable: a.cable.clone(),
            medium: a.medium.clone(),
            ns_per_m: a.ns_per_m.clone(),
            max_frame: a.max_frame.clone(),
            pfc_frame: a.pfc_frame.clone(),
            tx_delay: a.tx_delay.clone(),
            rx_delay: a.rx_delay.clone(),
            remote_tx_delay: a.remote_tx_delay.clone(),
            remote_rx_delay: a.remote_rx_delay.clone(),
            hd: a.hd.clone(),
            measured: a.measured.clone(),
            alpha: a.alpha.clone(),
            cell: a.cell.clone(),
            max: a.max.clone(),
        }
    }
}

pub fn run(args: &HeadroomArgs) -> anyhow::Result<()> {
    if args.list_phys {
        print!("{}", render_phys());
        return Ok(());
    }
    let report = compute(&args.inputs())?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(())
}
