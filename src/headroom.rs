//! PFC headroom (IEEE 802.1Q Annex N). Being written.
use clap::Args;

#[derive(Args, Debug)]
pub struct HeadroomArgs {}

pub fn run_cli(_args: &HeadroomArgs) -> anyhow::Result<()> {
    anyhow::bail!("headroom: not implemented yet")
}
