//! `capfc run --plot FILE.svg`: per flow-control mode, the occupancy over time of the most congested
//! egress port and of every ingress FIFO, and the pause intervals of every input port, so that the
//! difference between the modes shows at a glance. Drawn with `plotters` (SVG backend).

use crate::switch::{Switch, Trace};
use plotters::prelude::*;

fn us(cycle: u64, cycle_ns: f64) -> f64 {
    cycle as f64 * cycle_ns / 1000.0
}

/// The colour of priority p's pause bands.
fn prio_color(p: usize) -> RGBColor {
    [
        BLUE,
        RED,
        GREEN,
        MAGENTA,
        CYAN,
        RGBColor(255, 140, 0),
        RGBColor(128, 0, 128),
        BLACK,
    ][p % 8]
}

/// A plot that could not be drawn: the file, and the drawing's error.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("[plot] {}: {source}", path.display())]
    Draw {
        path: std::path::PathBuf,
        #[source]
        source: DrawingAreaErrorKind<std::io::Error>,
    },
    /// A run given without the trace a plot draws.
    #[error("[plot] {}: run without a trace", path.display())]
    NoTrace { path: std::path::PathBuf },
}

/// The error of drawing into the SVG file at `path`.
pub(crate) fn draw_err(
    path: &std::path::Path,
) -> impl Fn(DrawingAreaErrorKind<std::io::Error>) -> PlotError + '_ {
    move |source| PlotError::Draw {
        path: path.to_path_buf(),
        source,
    }
}

/// A chart's legend, framed, over a light background.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    c: &mut ChartContext<'a, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    c.configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()
}

/// Draw the runs (each with a [`Trace`]) into an SVG file.
///
/// (Long: one chart after the other, each the plotters builder's chain of settings.)
pub fn plot(path: &std::path::Path, runs: &[Switch]) -> Result<(), PlotError> {
    let err = draw_err(path);
    let rows = runs.len().max(1) as u32;
    let root = SVGBackend::new(path, (1400, 260 * rows)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let t_end = runs
        .iter()
        .filter_map(|r| r.trace.as_ref().and_then(|t| t.cycle.last().copied()))
        .max()
        .unwrap_or(1)
        .max(1);
    let cycle_ns = runs.first().map_or(8.0, |r| r.sc.cycle_ns);
    let x_max = us(t_end, cycle_ns);
    let y_max = runs
        .iter()
        .filter_map(|r| r.trace.as_ref())
        .flat_map(|t| t.egress.iter().chain(&t.ingress).flatten().copied())
        .max()
        .unwrap_or(1) as f64
        / 1024.0;
    for (row, r) in root.split_evenly((rows as usize, 1)).iter().zip(runs) {
        let tr: &Trace = r.trace.as_ref().ok_or_else(|| PlotError::NoTrace {
            path: path.to_path_buf(),
        })?;
        let (left, right) = row.split_horizontally(900);
        // Occupancies.
        let hot = (0..r.sc.ports)
            .max_by_key(|&o| tr.egress.iter().map(|v| v[o]).max().unwrap_or(0))
            .unwrap_or(0);
        let mut c = ChartBuilder::on(&left)
            .caption(
                format!(
                    "{}: egress port {hot} and ingress FIFOs (KB)",
                    r.mode.name()
                ),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(45)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max * 1.05)
            .map_err(&err)?;
        c.configure_mesh()
            .x_desc("time (us)")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .light_line_style(WHITE)
            .draw()
            .map_err(&err)?;
        let series = |f: &dyn Fn(usize) -> u64| -> Vec<(f64, f64)> {
            (0..tr.cycle.len())
                .map(|k| (us(tr.cycle[k], cycle_ns), f(k) as f64 / 1024.0))
                .collect()
        };
        c.draw_series(LineSeries::new(
            series(&|k| tr.egress[k][hot]),
            RED.stroke_width(2),
        ))
        .map_err(&err)?
        .label(format!("egress port {hot}"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], RED.stroke_width(2)));
        for i in 0..r.sc.ports {
            let color = Palette99::pick(i).to_rgba();
            c.draw_series(LineSeries::new(series(&|k| tr.ingress[k][i]), color))
                .map_err(&err)?
                .label(format!("ingress {i}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], color));
        }
        legend(&mut c).map_err(&err)?;
        // Pause intervals per input port.
        let n = r.sc.ports as f64;
        let mut g = ChartBuilder::on(&right)
            .caption(
                format!("{}: pause at the senders", r.mode.name()),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(45)
            .build_cartesian_2d(0.0..x_max, -0.5..n - 0.5)
            .map_err(&err)?;
        g.configure_mesh()
            .x_desc("time (us)")
            .y_desc("input port")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_labels(r.sc.ports)
            .y_label_formatter(&|v| format!("{v:.0}"))
            .light_line_style(WHITE)
            .draw()
            .map_err(&err)?;
        // One band per paused priority inside the port's row, a colour per priority.
        let step = us(tr.every, cycle_ns);
        let seen = tr.paused.iter().flatten().fold(0u8, |m, &p| m | p);
        let shown: Vec<usize> = (0..8).filter(|p| seen >> p & 1 == 1).collect();
        let band = 0.7 / shown.len().max(1) as f64;
        for (j, &p) in shown.iter().enumerate() {
            let color = prio_color(p);
            let mut bars = vec![];
            for (k, ports) in tr.paused.iter().enumerate() {
                let x = us(tr.cycle[k], cycle_ns);
                for (i, &m) in ports.iter().enumerate() {
                    if m >> p & 1 == 1 {
                        let y0 = i as f64 - 0.35 + j as f64 * band;
                        bars.push(Rectangle::new(
                            [(x, y0), (x + step, y0 + band)],
                            color.filled(),
                        ));
                    }
                }
            }
            g.draw_series(bars)
                .map_err(&err)?
                .label(format!("prio {p}"))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 12, y + 4)], color.filled())
                });
        }
        if !shown.is_empty() {
            legend(&mut g).map_err(&err)?;
        }
    }
    root.present().map_err(&err)?;
    Ok(())
}

/// `capfc net --plot FILE.svg`: per mode, one row per place that was ever paused (switch egress
/// ports and host NICs, grouped by tier, the core on top), a bar per pause interval coloured by
/// tier: congestion spreading hop by hop shows as bars moving down the tiers.
///
/// (Long: one chart a run, the plotters builder's chain of settings, then its bars.)
pub fn plot_pauses(
    path: &std::path::Path,
    runs: &[crate::net::sim::Network],
) -> Result<(), PlotError> {
    let err = draw_err(path);
    let rows = runs.len().max(1) as u32;
    let root = SVGBackend::new(path, (1400, 420 * rows)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let x_max = runs
        .iter()
        .map(|n| us(n.now, n.cycle_ns))
        .fold(1.0, f64::max);
    for (area, net) in root.split_evenly((rows as usize, 1)).iter().zip(runs) {
        let iv = net.pause_intervals();
        let mut places: Vec<(usize, usize, usize)> =
            iv.iter().map(|p| (p.tier, p.node, p.port)).collect();
        places.sort_unstable();
        places.dedup();
        let row_of = |p: &crate::net::sim::PauseInterval| {
            places
                .binary_search(&(p.tier, p.node, p.port))
                .expect("listed")
        };
        let n = places.len().max(1) as f64;
        let tiers: Vec<usize> = {
            let mut t: Vec<usize> = places.iter().map(|p| p.0).collect();
            t.dedup();
            t
        };
        let mut c = ChartBuilder::on(area)
            .caption(
                format!(
                    "{}: paused places over time ({} places; tier 0 = host NICs){}",
                    net.cfg.mode.name(),
                    places.len(),
                    net.deadlock.as_ref().map_or(String::new(), |d| {
                        let sw: Vec<String> = d.waits.iter().map(|w| w.node.to_string()).collect();
                        format!(
                            "; deadlock found at {:.0} us (black line): switches {}",
                            us(d.since, net.cycle_ns),
                            sw.join(", ")
                        )
                    })
                ),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x_max, -0.5..n - 0.5)
            .map_err(&err)?;
        c.configure_mesh()
            .x_desc("time (us)")
            .y_desc("switch port / host (by tier)")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_labels(0)
            .light_line_style(WHITE)
            .draw()
            .map_err(&err)?;
        for &t in &tiers {
            let color = prio_color(t);
            let bars: Vec<_> = iv
                .iter()
                .filter(|p| p.tier == t)
                .map(|p| {
                    let y = row_of(p) as f64;
                    Rectangle::new(
                        [
                            (us(p.from, net.cycle_ns), y - 0.4),
                            (us(p.until, net.cycle_ns), y + 0.4),
                        ],
                        color.filled(),
                    )
                })
                .collect();
            let label = if t == 0 {
                "tier 0: host NICs".to_string()
            } else {
                format!("tier {t}: switch ports")
            };
            c.draw_series(bars)
                .map_err(&err)?
                .label(label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 12, y + 4)], color.filled())
                });
        }
        if let Some(d) = &net.deadlock {
            let x = us(d.since, net.cycle_ns);
            c.draw_series(LineSeries::new(
                [(x, -0.5), (x, n - 0.5)],
                BLACK.stroke_width(2),
            ))
            .map_err(&err)?;
        }
        if !tiers.is_empty() {
            legend(&mut c).map_err(&err)?;
        }
    }
    root.present().map_err(&err)?;
    Ok(())
}
