//! The FECN modes of `capfc run` and `capfc net` (`--mode FECN,FECN_PAUSE` with an FECN scenario,
//! scenarios/fecn-*.toml): run each mode, print the table (one column per mode, as the other
//! modes' tables), and write per-flow rates and queue length over time as CSV and SVG.

use crate::cli_util::{run_label, scenario_stem, seed_list, want_toml_scenario, write_csvs};
use crate::net::fecn::{run, FecnConfig, FecnMode, FecnRun};
use anyhow::{Context, Result};
use std::path::Path;

/// Whether `--mode` names an FECN mode.
pub fn wants(modes: &str) -> bool {
    modes
        .split(',')
        .any(|m| FecnMode::parse(m.trim()).is_some())
}

/// `--mode`'s FECN modes; refuses a list mixing them with the other modes.
pub fn parse_modes(modes: &str) -> Result<Vec<FecnMode>> {
    modes
        .split(',')
        .map(|m| {
            FecnMode::parse(m.trim()).with_context(|| {
                format!(
                    "--mode '{m}': FECN and FECN_PAUSE run on an FECN scenario and cannot be \
                     mixed with the other modes in one run"
                )
            })
        })
        .collect()
}

/// Where the FECN run's outputs go, and its seeds.
pub struct FecnOutputs<'a> {
    pub csv: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    pub json: bool,
    /// Run each mode with each of these seeds instead of the scenario's own.
    pub seeds: Option<std::ops::RangeInclusive<u64>>,
}

/// Run `scenario` in `modes`, print the table and write the outputs.
pub fn run_cli(scenario: &str, modes: &str, out: &FecnOutputs) -> Result<Vec<FecnRun>> {
    let modes = parse_modes(modes)?;
    want_toml_scenario(
        scenario,
        "FECN",
        "an FECN scenario file (scenarios/fecn-*.toml)",
    )?;
    let cfg = FecnConfig::load(scenario)?;
    let t0 = std::time::Instant::now();
    let seeds = seed_list(out.seeds.as_ref(), cfg.seed, "FECN")?;
    let runs: Vec<FecnRun> = modes
        .iter()
        .flat_map(|&m| seeds.iter().map(move |&s| (m, s)))
        .map(|(m, s)| run(&cfg, m, s))
        .collect();
    let sweep = seeds.len() > 1;
    let wall = t0.elapsed().as_secs_f64();
    let stem = scenario_stem(scenario, "fecn");
    if let Some(dir) = out.csv {
        for r in &runs {
            let files = [
                ("rates", r.rates_csv()),
                ("queue", r.queue_csv()),
                ("cp", r.ticks_csv()),
            ];
            write_csvs(
                dir,
                &stem,
                &run_label(r.mode.name(), r.stats.seed, sweep),
                &files,
            )?;
        }
    }
    if let Some(p) = out.plot {
        plot(p, &runs).map_err(anyhow::Error::msg)?;
    }
    if out.json {
        let v: Vec<_> = runs.iter().map(|r| &r.stats).collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report(scenario, &cfg, &runs, wall));
    }
    Ok(runs)
}

/// The table: one column per mode.
pub fn report(scenario: &str, cfg: &FecnConfig, runs: &[FecnRun], wall_s: f64) -> String {
    let mut s = format!(
        "scenario {scenario}: {} flows of {} Mb/s ({:?}) into one {} Gb/s egress, {} ms \
         (window from {} ms), scenario seed {}; one cycle = one byte time at {} Gb/s ({:.3} ns); {wall_s:.1} s wall\n",
        cfg.flows,
        cfg.flow_rate_mbps,
        cfg.arrivals,
        cfg.capacity_gbps,
        cfg.duration_ms,
        cfg.warmup_ms,
        cfg.seed,
        cfg.capacity_gbps,
        1e9 / cfg.clock_hz()
    );
    s += &format!("{:<28}", "");
    for r in runs {
        if runs.iter().any(|o| o.stats.seed != r.stats.seed) {
            s += &format!("{:>14}", format!("{}/s{}", r.mode.name(), r.stats.seed));
        } else {
            s += &format!("{:>14}", r.mode.name());
        }
    }
    s += "\n";
    type Row = (&'static str, fn(&FecnRun) -> String);
    let rows: [Row; 14] = [
        ("throughput (Mb/s)", |r| {
            format!("{:.2}", r.stats.throughput_mbps)
        }),
        ("per flow mean (Mb/s)", |r| {
            format!("{:.2}", r.stats.per_flow_mean_mbps)
        }),
        ("per flow min (Mb/s)", |r| {
            format!("{:.2}", r.stats.per_flow_min_mbps)
        }),
        ("per flow max (Mb/s)", |r| {
            format!("{:.2}", r.stats.per_flow_max_mbps)
        }),
        ("Jain fairness", |r| format!("{:.4}", r.stats.jain)),
        ("queue mean (pkts)", |r| {
            format!("{:.2}", r.stats.queue_mean_pkts)
        }),
        ("queue max (pkts)", |r| {
            format!("{:.2}", r.stats.queue_max_pkts)
        }),
        ("advertised (Mb/s)", |r| {
            format!("{:.2}", r.stats.advertised_mbps)
        }),
        ("drops in network", |r| r.stats.network_drops.to_string()),
        ("drops at hosts", |r| r.stats.host_drops.to_string()),
        ("probes", |r| r.stats.probes.to_string()),
        ("PAUSE intervals", |r| r.stats.pauses.to_string()),
        ("PAUSE mean (us)", |r| {
            format!("{:.2}", r.stats.pause_mean_us)
        }),
        ("PAUSE max (us)", |r| format!("{:.2}", r.stats.pause_max_us)),
    ];
    for (name, f) in rows {
        s += &format!("{name:<28}");
        for r in runs {
            s += &format!("{:>14}", f(r));
        }
        s += "\n";
    }
    s
}

/// Per mode: the queue over time, and the rate limiters of the first flows over time (SVG).
pub fn plot(path: &Path, runs: &[FecnRun]) -> Result<(), crate::plot::PlotError> {
    use plotters::prelude::*;
    let err = crate::plot::draw_err(path);
    let rows = runs.len().max(1) as u32;
    let root = SVGBackend::new(path, (1400, 300 * rows)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    for (area, r) in root
        .split_evenly((runs.len().max(1), 2))
        .chunks(2)
        .zip(runs)
    {
        let t_end = r.cfg.duration_ms * 1000.0;
        let qmax = r.queue.iter().map(|q| q.1).fold(1.0, f64::max) * 1.1;
        let mut c = ChartBuilder::on(&area[0])
            .caption(
                format!("{}: queue (packets)", r.mode.name()),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..t_end, 0.0..qmax)
            .map_err(&err)?;
        c.configure_mesh().x_desc("us").draw().map_err(&err)?;
        c.draw_series(LineSeries::new(r.queue.iter().copied(), &BLUE))
            .map_err(&err)?;
        let rmax = r
            .rates
            .iter()
            .flat_map(|s| s.limiter_mbps.iter().copied())
            .fold(1.0, f64::max)
            .min(r.cfg.capacity_gbps * 1000.0)
            * 1.1;
        let mut c = ChartBuilder::on(&area[1])
            .caption(
                format!("{}: rate limiters, flows 0..5 (Mb/s)", r.mode.name()),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..t_end, 0.0..rmax)
            .map_err(&err)?;
        c.configure_mesh().x_desc("us").draw().map_err(&err)?;
        let colors = [BLUE, RED, GREEN, MAGENTA, CYAN];
        for (f, col) in colors.iter().enumerate() {
            c.draw_series(LineSeries::new(
                r.rates
                    .iter()
                    .filter_map(|s| s.limiter_mbps.get(f).map(|&v| (s.t_us, v))),
                col,
            ))
            .map_err(&err)?;
        }
    }
    root.present().map_err(&err)
}
