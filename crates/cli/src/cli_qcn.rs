//! The QCN modes of `capfc run` and `capfc net` (`--mode PAUSE,QCN,QCN_AR` with a QCN scenario,
//! scenarios/qcn-*.toml): run each mode, print the table (one column per mode, as the other modes'
//! tables), and write rates, hot queues and routing table entries over time as CSV and SVG, and
//! the CNMs as pcap.

use crate::cli_util::{run_label, scenario_stem, seed_list, want_toml_scenario, write_csvs};
use crate::net::qcn::{run, QcnConfig, QcnMode, QcnRun};
use anyhow::{Context, Result};
use std::path::Path;

/// Whether `--mode` names a QCN mode (`PAUSE` alone counts only with a QCN scenario).
pub fn wants(modes: &str, scenario: Option<&str>) -> bool {
    let named = |m: &str| {
        matches!(
            QcnMode::parse(m.trim()),
            Some(QcnMode::Qcn | QcnMode::QcnAr)
        )
    };
    modes.split(',').any(named)
        || (scenario.is_some_and(is_qcn_scenario)
            && (modes == "all" || modes.split(',').all(|m| QcnMode::parse(m.trim()).is_some())))
}

fn is_qcn_scenario(s: &str) -> bool {
    Path::new(s)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("qcn-"))
}

/// `--mode`'s QCN modes; refuses a list mixing them with the other modes.
pub fn parse_modes(modes: &str) -> Result<Vec<QcnMode>> {
    if modes == "all" {
        return Ok(QcnMode::ALL.to_vec());
    }
    modes
        .split(',')
        .map(|m| {
            QcnMode::parse(m.trim()).with_context(|| {
                format!(
                    "--mode '{m}': PAUSE, QCN and QCN_AR run on a QCN scenario and cannot be \
                     mixed with the other modes in one run"
                )
            })
        })
        .collect()
}

/// Where the QCN run's outputs go, and its seeds.
pub struct QcnOutputs<'a> {
    pub csv: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    pub pcap: Option<&'a Path>,
    pub json: bool,
    pub seeds: Option<std::ops::RangeInclusive<u64>>,
}

/// Run `scenario` in `modes`, print the table and write the outputs.
pub fn run_cli(scenario: &str, modes: &str, out: &QcnOutputs) -> Result<Vec<QcnRun>> {
    let modes = parse_modes(modes)?;
    want_toml_scenario(
        scenario,
        "QCN",
        "a QCN scenario file (scenarios/qcn-*.toml)",
    )?;
    let cfg = QcnConfig::load(scenario)?;
    let t0 = std::time::Instant::now();
    let seeds = seed_list(out.seeds.as_ref(), cfg.seed, "QCN")?;
    let runs = modes
        .iter()
        .flat_map(|&m| seeds.iter().map(move |&s| (m, s)))
        .map(|(m, s)| run(&cfg, m, s, out.pcap.is_some()))
        .collect::<Result<Vec<QcnRun>, _>>()?;
    let wall = t0.elapsed().as_secs_f64();
    let stem = scenario_stem(scenario, "qcn");
    let sweep = seeds.len() > 1;
    let name = |r: &QcnRun| run_label(r.mode.name(), r.stats.seed, sweep);
    if let Some(dir) = out.csv {
        for r in &runs {
            let files = [
                ("rates", r.rates_csv()),
                ("queue", r.queue_csv()),
                ("table", r.table_csv()),
            ];
            write_csvs(dir, &stem, &name(r), &files)?;
        }
    }
    if let Some(dir) = out.pcap {
        std::fs::create_dir_all(dir).with_context(|| format!("--pcap {}", dir.display()))?;
        for r in &runs {
            let p = dir.join(format!("{stem}_{}_cnm.pcap", name(r)));
            std::fs::write(&p, r.pcap()).with_context(|| format!("writing {}", p.display()))?;
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

fn list(v: &[f64], prec: usize) -> String {
    v.iter()
        .map(|x| format!("{x:.prec$}"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The table: one column per mode.
pub fn report(scenario: &str, cfg: &QcnConfig, runs: &[QcnRun], wall_s: f64) -> String {
    let mut s = format!(
        "scenario {scenario}: {} links, hot flows {:?} at {} Gb/s from {} to {} ms (window from {} ms), \
         uniform load {}, {} ms, scenario seed {}; one cycle = one byte time at {} Gb/s ({:.3} ns); {wall_s:.1} s wall\n",
        cfg.links.len(),
        cfg.hot,
        cfg.hot_rate_gbps,
        cfg.hot_start_ms,
        cfg.hot_end_ms,
        if cfg.hot.is_empty() || cfg.uniform_load > 0.0 {
            cfg.warmup_ms
        } else {
            cfg.hot_start_ms + cfg.settle_ms
        },
        cfg.uniform_load,
        cfg.duration_ms,
        cfg.seed,
        cfg.line_gbps,
        1e9 / cfg.clock_hz()
    );
    s += &format!("{:<30}", "");
    for r in runs {
        if runs.iter().any(|o| o.stats.seed != r.stats.seed) {
            s += &format!("{:>24}", format!("{}/s{}", r.mode.name(), r.stats.seed));
        } else {
            s += &format!("{:>24}", r.mode.name());
        }
    }
    s += "\n";
    type Row = (&'static str, fn(&QcnRun) -> String);
    let rows: [Row; 12] = [
        ("hot flows (MB/s)", |r| list(&r.stats.hot_mbytes, 1)),
        ("hot flows sum (MB/s)", |r| {
            format!("{:.1}", r.stats.hot_mbytes.iter().sum::<f64>())
        }),
        ("hot queues mean (KB)", |r| {
            let v: Vec<f64> = r.stats.hot_queue_mean.iter().map(|x| x / 1e3).collect();
            list(&v, 1)
        }),
        ("hot queues max (KB)", |r| {
            let v: Vec<f64> = r
                .stats
                .hot_queue_max
                .iter()
                .map(|&x| x as f64 / 1e3)
                .collect();
            list(&v, 1)
        }),
        ("throughput (of line)", |r| {
            format!("{:.4}", r.stats.throughput)
        }),
        ("latency mean (us)", |r| {
            format!("{:.1}", r.stats.latency_us)
        }),
        ("reseq hot mean (frames)", |r| list(&r.stats.reseq_mean, 2)),
        ("reseq hot max (frames)", |r| {
            let v: Vec<f64> = r.stats.reseq_max.iter().map(|&x| x as f64).collect();
            list(&v, 0)
        }),
        ("reseq all flows mean", |r| {
            format!("{:.3}", r.stats.reseq_all_mean)
        }),
        ("CNMs", |r| r.stats.cnms.to_string()),
        ("PAUSE (on) sent", |r| r.stats.pauses.to_string()),
        ("drops at hosts", |r| r.stats.host_drops.to_string()),
    ];
    for (name, f) in rows {
        s += &format!("{name:<30}");
        for r in runs {
            s += &format!("{:>24}", f(r));
        }
        s += "\n";
    }
    s += &format!("{:<30}", "events / wall (s)");
    for r in runs {
        s += &format!(
            "{:>24}",
            format!("{} / {:.1}", r.stats.events, r.stats.wall_s)
        );
    }
    s += "\n";
    s
}

/// Per mode, one row: the hot sources' sending rates, the hot queues, and each switch's congested
/// table entries, over time (SVG).
pub fn plot(path: &Path, runs: &[QcnRun]) -> Result<(), crate::plot::PlotError> {
    use plotters::prelude::*;
    let err = crate::plot::draw_err(path);
    let rows = runs.len().max(1);
    let root = SVGBackend::new(path, (1800, 300 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    for (area, r) in root.split_evenly((rows, 3)).chunks(3).zip(runs) {
        let t_end = r.cfg.duration_ms;
        let name = r.mode.name();
        let mut c = ChartBuilder::on(&area[0])
            .caption(format!("{name}: hot sources (Gb/s)"), ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..t_end, 0.0..r.cfg.line_gbps * 1.05)
            .map_err(&err)?;
        c.configure_mesh().x_desc("ms").draw().map_err(&err)?;
        let mut sources: Vec<usize> = Vec::new();
        for [a, _] in &r.cfg.hot {
            if let Some(h) = r.host_names.iter().position(|n| n == a) {
                if !sources.contains(&h) {
                    sources.push(h);
                }
            }
        }
        if sources.is_empty() {
            sources = (0..r.host_names.len()).collect();
        }
        for (k, &h) in sources.iter().enumerate() {
            c.draw_series(LineSeries::new(
                r.bins.iter().map(|b| (b.t_ms, b.host_gbps[h])),
                colors[k % colors.len()],
            ))
            .map_err(&err)?
            .label(r.host_names[h].clone());
        }
        let qmax = r
            .bins
            .iter()
            .flat_map(|b| b.queue_bytes.iter().copied())
            .fold(1.0, f64::max)
            / 1e3
            * 1.1;
        let mut c = ChartBuilder::on(&area[1])
            .caption(format!("{name}: hot queues (KB)"), ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..t_end, 0.0..qmax)
            .map_err(&err)?;
        c.configure_mesh().x_desc("ms").draw().map_err(&err)?;
        for k in 0..r.cfg.hot_queues.len() {
            c.draw_series(LineSeries::new(
                r.bins.iter().map(|b| (b.t_ms, b.queue_bytes[k] / 1e3)),
                colors[k % colors.len()],
            ))
            .map_err(&err)?;
        }
        let emax = r
            .bins
            .iter()
            .flat_map(|b| b.table_entries.iter().copied())
            .max()
            .unwrap_or(0)
            .max(1) as f64
            * 1.1;
        let mut c = ChartBuilder::on(&area[2])
            .caption(
                format!("{name}: congested table entries per switch"),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..t_end, 0.0..emax)
            .map_err(&err)?;
        c.configure_mesh().x_desc("ms").draw().map_err(&err)?;
        for k in 0..r.switch_names.len() {
            c.draw_series(LineSeries::new(
                r.bins.iter().map(|b| (b.t_ms, b.table_entries[k] as f64)),
                colors[k % colors.len()],
            ))
            .map_err(&err)?;
        }
    }
    root.present().map_err(&err)
}
