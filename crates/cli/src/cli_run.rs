//! `capfc run`: a scenario in each flow-control mode, the modes side by side.

use crate::block::Fault;
use crate::switch::scenario::Scenario;
use crate::switch::{BlockKind, DutKind, FlowMode, Switch};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// A built-in scenario's name, or a scenario TOML file (see scenarios/).
    #[arg(long, default_value = "incast-victims")]
    pub scenario: String,
    /// all, or modes comma-separated: PFC_wdrop, PFC_wstop, CaPFC_max, CaPFC_cal; or FECN,
    /// FECN_PAUSE with an FECN scenario (scenarios/fecn-*.toml, docs/fecn.md); or PAUSE, QCN,
    /// QCN_AR with a QCN scenario (scenarios/qcn-*.toml, docs/qcn.md).
    #[arg(long, default_value = "all")]
    pub mode: String,
    /// The block behind the switch: model, rtl (the Verilated RTL) or both (lockstep-checked).
    #[arg(long, default_value = "model")]
    pub dut: String,
    /// The block's micro-architecture: v3 (docs/microarchitecture.md, the default: lanes taken on
    /// their port's slot, answered four cycles later; 125 MHz at 48 ports) or v2
    /// (docs/microarchitecture-v2.md: every lane answered in the cycle it is seen; its model is
    /// event-driven, about twice as fast in a switch: paper-1 in 1.6 s against 3.5 s).
    #[arg(long, default_value = "v3")]
    pub block: String,
    /// Also draw occupancy over time and the pause intervals, one panel per mode, into this SVG.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// The same report as JSON.
    #[arg(long)]
    pub json: bool,
    /// With the FECN modes: write per-flow rates, queue length and the congestion point's
    /// intervals over time as CSV into this directory.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// With --dut both and the v3 block: 2 runs the model's half of each lockstep cycle (its
    /// registers packed, its clock edge) on a second thread while the RTL steps, with the same
    /// checks and report; it takes two cores (docs/lockstep.md).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub lockstep_threads: u8,
    /// With --dut both: a deliberate bug in the block's model, to see the lockstep check catch
    /// it: a name of its catalogue (`capfc faults --list`: warn_off_by_one, sort_not_aborted,
    /// ...); with --block v2, of v2's (crates/block/src/block/fault.rs).
    #[arg(long)]
    pub fault: Option<String>,
    /// With --dut both, on a difference: write the model's and the RTL's waveforms this many cycles
    /// either side of it (0: none).
    #[arg(long, default_value_t = 20)]
    pub wave_window: u64,
    /// Directory for those waveforms.
    #[arg(long, default_value = ".")]
    pub wave_dir: PathBuf,
    /// Write each captured port's frames as two pcap files into this directory, one a direction:
    /// SCENARIO_MODE_portI_in.pcap (from the host into the switch) and SCENARIO_MODE_portI_out.pcap
    /// (from the switch to the host: data and the switch's PFC frames).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// With --pcap: the ports to capture, comma-separated (default: every port).
    #[arg(long)]
    pub pcap_ports: Option<String>,
    /// Write each mode's flow completion times and PFC events in HPCC's ns-3 formats into this
    /// directory: SCENARIO_MODE_fct.txt, SCENARIO_MODE_pfc.txt.
    #[arg(long)]
    pub hpcc: Option<PathBuf>,
    /// off: a variant outside the block's contract: the MAC sends XON, and XOFF only for classes
    /// paused anew, never the block's refreshes, so a sender's pause runs out after its quanta
    /// while the class stays paused (docs/paper-literal.md, "Pause expiry variant"). Default: the
    /// scenario's `pause_refresh` (on).
    #[arg(long, value_parser = ["on", "off"])]
    pub pause_refresh: Option<String>,
}

/// `--pcap-ports`: port numbers below `ports`, comma-separated, as a bit set.
pub fn parse_ports(s: &str, ports: usize) -> Result<u128> {
    let mut m = 0u128;
    for t in s.split(',').map(str::trim) {
        let i: usize = t
            .parse()
            .with_context(|| format!("--pcap-ports: '{t}' is not a port number"))?;
        if i >= ports {
            bail!(
                "--pcap-ports: port {i} does not exist (the switch has ports 0..={})",
                ports - 1
            );
        }
        m |= 1u128 << i;
    }
    Ok(m)
}

/// `--mode`: `all`, or modes comma-separated.
pub fn parse_modes(s: &str) -> Result<Vec<FlowMode>> {
    let modes: Vec<FlowMode> = if s == "all" {
        FlowMode::ALL.to_vec()
    } else {
        s.split(',')
            .map(|m| {
                FlowMode::parse(m).with_context(|| {
                    format!(
                        "--mode '{m}': expected all, PFC_wdrop, PFC_wstop, CaPFC_max or CaPFC_cal"
                    )
                })
            })
            .collect::<Result<_>>()?
    };
    if modes.is_empty() {
        bail!("--mode: no mode given");
    }
    Ok(modes)
}

/// Run `sc` in each of `modes`.
pub fn run_modes(sc: &Scenario, modes: &[FlowMode], dut: DutKind) -> Result<Vec<Switch>> {
    run_modes_traced(sc, modes, dut, None)
}

/// [`run_modes`], sampling a [`crate::switch::Trace`] every `every` cycles when given.
pub fn run_modes_traced(
    sc: &Scenario,
    modes: &[FlowMode],
    dut: DutKind,
    every: Option<u64>,
) -> Result<Vec<Switch>> {
    run_modes_with(
        sc,
        modes,
        dut,
        &RunOptions {
            every,
            ..RunOptions::default()
        },
    )
}

/// Cycles between two updates of the progress bar (its cost is a pass over the flows).
const PROGRESS_EVERY: u64 = 1 << 16;

/// A progress bar for one mode's run: flows completed out of all, and the simulated time.
fn progress_bar(sc: &Scenario, m: FlowMode) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(sc.flows.len() as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix:>9} {bar:30} {pos}/{len} flows done {elapsed} {msg}",
        )
        .unwrap(),
    );
    pb.set_prefix(m.name());
    pb
}

/// A deliberate bug in the model of the block that runs, from that block's catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFault {
    /// The block's (v3's: `capfc faults --list`).
    V3(capfc::v3::fault::Fault),
    /// v2's (`--block v2`).
    V2(Fault),
}

impl ModelFault {
    pub fn name(self) -> &'static str {
        match self {
            ModelFault::V3(f) => f.name(),
            ModelFault::V2(f) => f.name(),
        }
    }

    /// `name` in the catalogue of `block`'s model.
    pub fn parse(name: &str, block: BlockKind) -> Result<Self, capfc::error::FaultError> {
        Ok(match block {
            BlockKind::V3 => ModelFault::V3(name.parse()?),
            BlockKind::V2 => ModelFault::V2(name.parse()?),
        })
    }
}

/// Put `f` into the model of switch `s`'s block (none: nothing). A v2 fault goes only into v2's
/// model, and a v3 fault only into v3's ([`ModelFault::parse`] takes the name from the block's
/// catalogue).
fn inject(s: &mut Switch, f: Option<ModelFault>) -> Result<(), WindowError> {
    match f {
        None => Ok(()),
        Some(ModelFault::V2(f)) => Ok(s.inject_fault(Some(f))?),
        Some(ModelFault::V3(f)) => {
            if s.inject_fault_v3(Some(f)) {
                Ok(())
            } else {
                Err(WindowError::NotV3(f.name()))
            }
        }
    }
}

/// How [`run_modes_with`] runs.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Sample a [`crate::switch::Trace`] every so many cycles (plots).
    pub every: Option<u64>,
    /// A progress bar per mode on stderr (the CLI asks for it when stderr is a terminal).
    pub progress: bool,
    /// A deliberate bug in the block model (with `--dut both`: the lockstep check must catch it).
    pub fault: Option<ModelFault>,
    /// On a model/RTL difference (`--dut both`), write both sides' waveforms this many cycles either
    /// side of it (0: none), into `wave_dir`.
    pub wave_window: u64,
    pub wave_dir: PathBuf,
    /// How the scenario was named on the command line (for the replay command; default its name).
    pub scenario_arg: Option<String>,
    /// Capture the frames of these ports (bit i: port i) for pcap files.
    pub capture: Option<u128>,
    /// Log every PFC frame as its sender obeys it (HPCC's pfc.txt).
    pub pfc_log: bool,
    /// The block's micro-architecture.
    pub block: BlockKind,
    /// Let the v3 model skip the cycles of its idle state's period ([`Switch::skip_idle_block`]:
    /// the same run, faster; `capfc run` sets it).
    pub skip_idle: bool,
    /// Check the v3 model's idle skipping as it goes ([`Switch::audit_idle_skip`]; tests).
    pub audit_idle: bool,
    /// Threads of the v3 lockstep (`--dut both`): 1, or 2 with its model's half on a second one.
    pub lockstep_threads: usize,
}

/// [`run_modes_traced`] with [`RunOptions`].
pub fn run_modes_with(
    sc: &Scenario,
    modes: &[FlowMode],
    dut: DutKind,
    o: &RunOptions,
) -> Result<Vec<Switch>> {
    modes
        .iter()
        .map(|&m| {
            // (as text: the error's message already says what its sources say)
            let mut s = Switch::with_block(sc, m, dut, o.block)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("scenario {}", sc.name))?;
            inject(&mut s, o.fault).map_err(|e| anyhow::anyhow!("--fault: {e}"))?;
            s.skip_idle_block = o.skip_idle;
            s.audit_idle_skip = o.audit_idle;
            if o.lockstep_threads > 1 && !s.set_lockstep_threads(o.lockstep_threads) {
                bail!("--lockstep-threads 2 needs --dut both with the v3 block (--block v3)");
            }
            s.capture = o.capture.map(crate::switch::pcap::Capture::new);
            s.pfc_log = o.pfc_log.then(Vec::new);
            if let Some(e) = o.every {
                s.trace = Some(crate::switch::Trace { every: e.max(1), ..Default::default() });
            }
            if o.progress {
                let pb = progress_bar(sc, m);
                while !s.done() && s.now < sc.max_cycles && s.mismatch.is_none() {
                    s.tick_cycle();
                    if s.now.is_multiple_of(PROGRESS_EVERY) {
                        pb.set_position(s.stats.fct.iter().filter(|f| f.is_some()).count() as u64);
                        pb.set_message(format!(
                            "{:.0} us simulated",
                            s.now as f64 * sc.cycle_ns / 1000.0
                        ));
                    }
                }
                pb.finish_and_clear();
            }
            // Finishes the run (at once after the loop above) and computes the statistics.
            s.run();
            if let Some(mm) = &s.mismatch {
                let wave = if dut == DutKind::Both && o.wave_window > 0 {
                    match write_window(sc, m, o, s.now - 1) {
                        Ok(files) => format!("\n  waveform window (model and RTL, same signal names): {}", files.join(", ")),
                        Err(e) => format!("\n  waveform window not written: {e}"),
                    }
                } else {
                    String::new()
                };
                let fault = o.fault.map_or(String::new(), |f| format!(" --fault {}", f.name()));
                // (v3 is the default block)
                let block = match o.block {
                    BlockKind::V3 => String::new(),
                    b => format!(" --block {}", b.name()),
                };
                bail!(
                    "{}{wave}\n  (in scenario {}, mode {}, switch cycle {})\n  replay: capfc run --scenario {} --mode {} --dut both{block}{fault}",
                    {
                        // The block's report has no replay of its own here (see the last line).
                        let t = mm.trim_end();
                        t.strip_suffix("replay:").unwrap_or(t).trim_end().replace("MISMATCH in  at", "MISMATCH at")
                    },
                    sc.name,
                    m.name(),
                    s.now - 1,
                    o.scenario_arg.as_deref().unwrap_or(&sc.name),
                    m.name()
                );
            }
            Ok(s)
        })
        .collect()
}

/// Why a mismatch's waveform window could not be written.
#[derive(Debug, thiserror::Error)]
enum WindowError {
    #[error(transparent)]
    Switch(#[from] crate::switch::SwitchError),
    #[error(transparent)]
    Fault(#[from] capfc::error::FaultError),
    /// A fault of v3's catalogue for a switch whose block is not v3's model.
    #[error("[fault] {0}: a fault of the v3 block's model, and this switch's block is not one")]
    NotV3(&'static str),
    #[error("{dir}: {source}")]
    Dir {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Trace(#[from] crate::switch::TraceError),
}

/// Run mode `m` again from the start (the switch is deterministic) and write both sides' waveforms
/// from `o.wave_window` cycles before switch cycle `at` to as many after it.
fn write_window(
    sc: &Scenario,
    m: FlowMode,
    o: &RunOptions,
    at: u64,
) -> Result<Vec<String>, WindowError> {
    let mut s = Switch::with_block(sc, m, DutKind::Both, o.block)?;
    inject(&mut s, o.fault)?;
    let from = at.saturating_sub(o.wave_window);
    while s.now < from {
        s.tick_cycle();
    }
    std::fs::create_dir_all(&o.wave_dir).map_err(|source| WindowError::Dir {
        dir: o.wave_dir.display().to_string(),
        source,
    })?;
    let path = o
        .wave_dir
        .join(format!("mismatch_{}_{}.vcd", sc.name, m.name()))
        .display()
        .to_string();
    let files = s.start_wave(&path)?;
    while s.now <= at + o.wave_window {
        s.tick_cycle();
    }
    s.stop_wave()?;
    Ok(files)
}

pub fn run(a: &RunArgs) -> Result<()> {
    if run_qcn_or_fecn(a)? {
        return Ok(());
    }
    let sc = switch_scenario(a)?;
    let modes = parse_modes(&a.mode)?;
    let dut = DutKind::parse(&a.dut)
        .with_context(|| format!("--dut '{}': expected model, rtl or both", a.dut))?;
    let opts = run_options(a, &sc, dut)?;
    let runs = run_modes_with(&sc, &modes, dut, &opts)?;
    if let Some(d) = &a.hpcc {
        write_hpcc(d, &sc, &runs)?;
    }
    if let (Some(d), Some(ports)) = (&a.pcap, opts.capture) {
        write_pcaps(d, ports, &sc, &runs)?;
    }
    if let Some(p) = &a.plot {
        crate::plot::plot(p, &runs).map_err(anyhow::Error::msg)?;
        eprintln!("run: plot written to {}", p.display());
    }
    if a.json {
        let v: Vec<_> = runs
            .iter()
            .map(|s| serde_json::json!({ "mode": s.mode.name(), "stats": s.stats }))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "scenario": sc.name, "runs": v }))?
        );
        return Ok(());
    }
    print!("{}", report(&sc, &runs));
    Ok(())
}

/// The QCN and FECN modes run their own simulators: hands them the run when `--mode` asks for
/// one (true: the run is done).
fn run_qcn_or_fecn(a: &RunArgs) -> Result<bool> {
    if crate::cli_qcn::wants(&a.mode, Some(&a.scenario)) {
        let out = crate::cli_qcn::QcnOutputs {
            csv: a.csv.as_deref(),
            plot: a.plot.as_deref(),
            pcap: a.pcap.as_deref(),
            json: a.json,
            seeds: None,
        };
        crate::cli_qcn::run_cli(&a.scenario, &a.mode, &out)?;
        return Ok(true);
    }
    if crate::cli_fecn::wants(&a.mode) {
        let out = crate::cli_fecn::FecnOutputs {
            csv: a.csv.as_deref(),
            plot: a.plot.as_deref(),
            json: a.json,
            seeds: None,
        };
        crate::cli_fecn::run_cli(&a.scenario, &a.mode, &out)?;
        return Ok(true);
    }
    Ok(false)
}

/// `--scenario` with `--pause-refresh`: a single switch's scenario (a network scenario is refused).
fn switch_scenario(a: &RunArgs) -> Result<Scenario> {
    let mut sc = Scenario::load(&a.scenario)?;
    if let Some(r) = &a.pause_refresh {
        sc.pause_refresh = r == "on";
    }
    if sc.network.is_some() {
        bail!(
            "--scenario {}: a network scenario (it has a [network] table): capfc net --scenario {} runs it",
            a.scenario,
            a.scenario
        );
    }
    Ok(sc)
}

/// How `capfc run` runs each mode: checks `--fault`, `--block` and the ports of `--pcap-ports`,
/// and makes the directories of `--pcap` and `--hpcc`.
fn run_options(a: &RunArgs, sc: &Scenario, dut: DutKind) -> Result<RunOptions> {
    // About 600 samples over the default scenario's run.
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    if a.fault.is_some() && dut != DutKind::Both {
        bail!("--fault needs --dut both: it is there to show the lockstep check catching a bug in the model");
    }
    let block = BlockKind::parse(&a.block)
        .with_context(|| format!("--block '{}': expected v2 or v3", a.block))?;
    if a.lockstep_threads > 1 && (dut != DutKind::Both || block != BlockKind::V3) {
        bail!("--lockstep-threads 2 needs --dut both with the v3 block (--block v3): it runs the model's half of each lockstep cycle on a second thread");
    }
    let capture = match (&a.pcap, &a.pcap_ports) {
        (None, Some(_)) => bail!("--pcap-ports needs --pcap DIR"),
        (None, None) => None,
        (Some(_), Some(p)) => Some(parse_ports(p, sc.ports)?),
        (Some(_), None) => Some(if sc.ports >= 128 {
            u128::MAX
        } else {
            (1u128 << sc.ports) - 1
        }),
    };
    for (flag, d) in [("--pcap", &a.pcap), ("--hpcc", &a.hpcc)] {
        if let Some(d) = d {
            std::fs::create_dir_all(d).with_context(|| format!("{flag} {}", d.display()))?;
        }
    }
    let fault = a
        .fault
        .as_deref()
        .map(|f| ModelFault::parse(f, block))
        .transpose()
        .context("--fault")?;
    Ok(RunOptions {
        every: a.plot.as_ref().map(|_| 2000),
        progress,
        fault,
        wave_window: a.wave_window,
        wave_dir: a.wave_dir.clone(),
        scenario_arg: Some(a.scenario.clone()),
        capture,
        pfc_log: a.hpcc.is_some(),
        block,
        skip_idle: true,
        audit_idle: false,
        lockstep_threads: a.lockstep_threads.into(),
    })
}

/// `--hpcc`: each mode's fct.txt and pfc.txt in `d`, SCENARIO_MODE_fct.txt and SCENARIO_MODE_pfc.txt.
fn write_hpcc(d: &Path, sc: &Scenario, runs: &[Switch]) -> Result<()> {
    use crate::switch::hpcc::{fct_txt, pfc_txt};
    for s in runs {
        let base = format!("{}_{}", sc.name, s.mode.name());
        let log = s.pfc_log.as_deref().unwrap_or_default();
        for (what, text) in [
            ("fct", fct_txt(sc, &s.stats.fct)),
            ("pfc", pfc_txt(sc, log)),
        ] {
            let path = d.join(format!("{base}_{what}.txt"));
            std::fs::write(&path, text).with_context(|| format!("--hpcc {}", path.display()))?;
        }
        eprintln!("run: {base}: HPCC fct.txt and pfc.txt in {}", d.display());
    }
    Ok(())
}

/// `--pcap`: each mode's frames on each captured port (bit i of `ports`: port i), one file a
/// direction, in `d`.
fn write_pcaps(d: &Path, ports: u128, sc: &Scenario, runs: &[Switch]) -> Result<()> {
    use crate::switch::pcap::Dir;
    for s in runs {
        let c = s.capture.as_ref().expect("captured");
        let (mut files, mut frames) = (0, 0);
        for i in (0..sc.ports).filter(|&i| ports >> i & 1 == 1) {
            for (way, dir) in [("in", Dir::ToSwitch), ("out", Dir::ToHost)] {
                let name = format!("{}_{}_port{i}_{way}.pcap", sc.name, s.mode.name());
                let path = d.join(name);
                frames +=
                    crate::switch::pcap::write_port(&path, &c.frames, (i, Some(dir)), sc.cycle_ns)
                        .map_err(anyhow::Error::msg)?;
                files += 1;
            }
        }
        eprintln!(
            "run: {} {}: {frames} frames in {files} pcap files in {}",
            sc.name,
            s.mode.name(),
            d.display()
        );
    }
    Ok(())
}

/// The human table: one column per mode.
pub fn report(sc: &Scenario, runs: &[Switch]) -> String {
    let dut = runs.first().map_or("model", |r| r.dut_kind.name());
    let arch = runs
        .first()
        .map_or(String::new(), |r| format!(" ({})", r.block_kind.name()));
    let mut s = format!(
        "scenario {} ({} ports, {} flows), block: {dut}{arch}\n",
        sc.name,
        sc.ports,
        sc.flows.len()
    );
    s += &format!("{:<34}", "");
    for r in runs {
        s += &format!("{:>12}", r.mode.name());
    }
    s += "\n";
    let row = |s: &mut String, name: &str, f: &dyn Fn(&Switch) -> String| {
        *s += &format!("{name:<34}");
        for r in runs {
            *s += &format!("{:>12}", f(r));
        }
        *s += "\n";
    };
    row(&mut s, "simulated time (us)", &|r| {
        format!("{:.0}", r.stats.cycles as f64 * sc.cycle_ns / 1000.0)
    });
    row(&mut s, "egress drops (packets)", &|r| {
        r.stats.egress_drops.to_string()
    });
    if sc.shared_memory.is_some() {
        row(&mut s, "shared-pool drops (packets)", &|r| {
            r.stats.shared_drops.to_string()
        });
    }
    row(&mut s, "ingress overflow (packets)", &|r| {
        r.stats.ingress_drops.to_string()
    });
    row(&mut s, "pipeline stalled (us)", &|r| {
        format!("{:.0}", r.stats.stall_cycles as f64 * sc.cycle_ns / 1000.0)
    });
    row(&mut s, "PFC frames", &|r| {
        r.stats.total_pfc_frames().to_string()
    });
    row(&mut s, "paused time, all ports (us)", &|r| {
        format!("{:.0}", r.stats.total_paused_us(sc.cycle_ns))
    });
    let cal = runs.iter().find(|r| r.mode == FlowMode::CapfcCal);
    for c in &runs[0].stats.classes {
        let n = c.class.clone();
        row(&mut s, &format!("{n}: completed / flows"), &|r| {
            let k = r.stats.class(&n).unwrap();
            format!("{}/{}", k.completed, k.flows)
        });
        row(&mut s, &format!("{n}: flows with losses"), &|r| {
            r.stats.class(&n).unwrap().with_losses.to_string()
        });
        row(&mut s, &format!("{n}: goodput per flow (Gb/s)"), &|r| {
            format!("{:.3}", r.stats.class(&n).unwrap().goodput_gbps)
        });
        row(&mut s, &format!("{n}: FCT max (us)"), &|r| {
            format!("{:.0}", r.stats.class(&n).unwrap().fct_max_us)
        });
        row(&mut s, &format!("{n}: FCT p99 (us)"), &|r| {
            format!("{:.0}", r.stats.class(&n).unwrap().fct_p99_us)
        });
        if let Some(cal) = cal {
            let base = cal.stats.class(&n).unwrap().fct_max_us;
            row(&mut s, &format!("{n}: FCT max / CaPFC_cal"), &|r| {
                if base > 0.0 {
                    format!("{:.2}", r.stats.class(&n).unwrap().fct_max_us / base)
                } else {
                    "-".into()
                }
            });
        }
    }
    s
}
