//! `capfc gen-sv`: write the DPI-C package and the scoreboard (`crate::dpi_sv`) for a parameter set.

use crate::block::BlockParams;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct GenSvArgs {
    /// Parameter set to start from: the block's (`v3_np4`, `v3_np8_nl3`, ...:
    /// crates/block/src/v3/rtl_configs.rs) or v2's (`np4`, `np8`, ...); the flags below override
    /// its values.
    #[arg(long, default_value = "v3_np8_nl3")]
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
    /// The block's micro-architecture: v3, the block (`capfc_top_oc`'s ports), or v2, the previous
    /// block (`capfc_v2_top`'s, whose lanes are answered in the cycle they are seen).
    #[arg(long, default_value = "v3")]
    pub block: String,
    /// Directory to write capfc_dpi.sv and capfc_scoreboard.sv into (created).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: &GenSvArgs) -> Result<()> {
    let base = crate::v3::rtl_configs::V3_RTL_CONFIGS
        .iter()
        .find(|(n, _)| *n == a.config)
        .map(|(_, v)| BlockParams::from_values(v))
        .or_else(|| crate::golden::params_of(&a.config))
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
