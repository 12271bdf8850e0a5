//! `capfc gen-sv`: write the DPI-C package and the scoreboard (`crate::dpi_sv`) for a parameter set.

use crate::block::BlockParams;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct GenSvArgs {
    /// Parameter set to start from (see `capfc cosim --list`); the flags below override its values.
    #[arg(long, default_value = "np8")]
    pub config: String,
    #[arg(long)]
    pub np: Option<usize>,
    #[arg(long)]
    pub sw: Option<u32>,
    #[arg(long)]
    pub ow: Option<u32>,
    #[arg(long)]
    pub cw: Option<u32>,
    #[arg(long)]
    pub cell_log2: Option<u32>,
    #[arg(long)]
    pub cut_f: Option<u32>,
    #[arg(long)]
    pub nl: Option<usize>,
    /// The block's micro-architecture: v2 (`capfc_top`'s ports) or v3 (`capfc_top_oc`'s).
    #[arg(long, default_value = "v2")]
    pub block: String,
    /// Directory to write capfc_dpi.sv and capfc_scoreboard.sv into (created).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: &GenSvArgs) -> Result<()> {
    let base = crate::golden::params_of(&a.config)
        .with_context(|| format!("--config '{}': no such parameter set", a.config))?;
    let p = BlockParams {
        np: a.np.unwrap_or(base.np),
        sw: a.sw.unwrap_or(base.sw),
        ow: a.ow.unwrap_or(base.ow),
        cw: a.cw.unwrap_or(base.cw),
        cell_log2: a.cell_log2.unwrap_or(base.cell_log2),
        cut_f: a.cut_f.unwrap_or(base.cut_f),
        nl: a.nl.unwrap_or(base.nl),
    };
    p.validate()
        .map_err(|e| anyhow::anyhow!("parameters: {e}"))?;
    let block = crate::block::BlockKind::parse(&a.block)
        .with_context(|| format!("--block '{}': expected v2 or v3", a.block))?;
    let package = crate::dpi_sv::package_for(&p, block).map_err(anyhow::Error::msg)?;
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    for (name, text) in [
        ("capfc_dpi.sv", package),
        ("capfc_scoreboard.sv", crate::dpi_sv::scoreboard()),
    ] {
        let path = a.out.join(name);
        std::fs::write(&path, text).with_context(|| path.display().to_string())?;
        eprintln!("gen-sv: wrote {}", path.display());
    }
    Ok(())
}
