//! `capfc net`: a network of switches (the paper's fat tree by default) carrying flows from a file
//! or drawn from a flow-size CDF, in each flow-control mode, the modes side by side.

use crate::cli_util::{parse_seeds, parse_shard};
use crate::net::sim::{Deadlock, NetConfig, NetStats, Network, Routing, DEADLOCK_CHECK_CYCLES};
use crate::net::topology::{parse_delay, parse_hpcc_flows, NetFlow, Topology};
use crate::net::traffic::{poisson_flows, Cdf};
use crate::net::transport::{Ecn, TransportKind};
use crate::switch::hpcc::{dport_of_class, fct_line, pfc_lines};
use crate::switch::scenario::Scenario;
use crate::switch::{BlockKind, DutKind, FlowMode};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

// (the doc comments are clap's help text, where `[network]` and `[mix]` name a scenario file's
// TOML tables: not links)
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Args, Debug)]
pub struct NetArgs {
    /// A network scenario (built-in paper-fat-1 ... paper-fat-6, the 4:1 tree by link rates with
    /// DCTCP; paper-literal-1 ... paper-literal-6, the paper read literally: docs/paper-literal.md;
    /// or a TOML file with a [network]
    /// table): its topology, routing, transport, switch settings and [mix] traffic drawn over the
    /// hosts. Instead of --topology, --routing, --transport, --switch, --flows and --cdf.
    #[arg(long, conflicts_with_all = ["topology", "routing", "transport", "switch", "flows", "cdf"])]
    pub scenario: Option<String>,
    /// paper (the paper's 128-server fat tree, 4:1), fat-tree:K, leaf-spine:LEAVES,SPINES,HOSTS
    /// (1 Gb/s hosts, 4 Gb/s fabric), or an HPCC topology.txt file.
    #[arg(long, default_value = "paper")]
    pub topology: String,
    /// Propagation delay of every link of a generated topology.
    #[arg(long, default_value = "500ns")]
    pub delay: String,
    /// HPCC's flow.txt. Times count from the first flow's start (HPCC starts at 2 s); fct.txt
    /// writes the file's own times back.
    #[arg(long, conflicts_with = "cdf")]
    pub flows: Option<PathBuf>,
    /// Draw Poisson flows from this flow-size CDF file (`size percentile` lines, HPCC's traffic
    /// generator's format). Without --flows or --cdf: a built-in mix of 1 KB to 1 MB flows.
    #[arg(long)]
    pub cdf: Option<PathBuf>,
    /// With the drawn flows: offered load of each host's link, a fraction in (0, 1].
    #[arg(long, default_value_t = 0.3)]
    pub load: f64,
    /// With the drawn flows: how long they arrive, e.g. 2ms.
    #[arg(long, default_value = "2ms")]
    pub duration: String,
    /// Seed of the draw and of ECMP's and DeTail's hash (printed; the same seed gives the same run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A sweep over seeds (A..B, A..=B, or N for 1..=N) × modes: one line per run (one JSON object
    /// per line with --json), instead of the table.
    #[arg(long)]
    pub seeds: Option<String>,
    /// Run only shard K of N of the sweep's runs (`K/N`, K from 1: run j when j mod N = K-1), for
    /// GNU parallel or a Slurm array.
    #[arg(long)]
    pub shard: Option<String>,
    /// With the drawn flows: their priority.
    #[arg(long, default_value_t = 3)]
    pub prio: u8,
    /// all, or modes comma-separated: PFC_wdrop, PFC_wstop, CaPFC_max, CaPFC_cal; or FECN,
    /// FECN_PAUSE with an FECN scenario (scenarios/fecn-*.toml, docs/fecn.md); or PAUSE, QCN,
    /// QCN_AR with a QCN scenario (scenarios/qcn-*.toml, docs/qcn.md).
    #[arg(long, default_value = "all")]
    pub mode: String,
    /// ecmp (per-flow hash) or detail (DeTail's adaptive load balancing, 16/32 KB).
    #[arg(long, default_value = "detail")]
    pub routing: String,
    /// The hosts' transport: paper (the paper's: Linux TCP as its simulator's NSC ran it, Linux
    /// 2.6.26's defaults: CUBIC, RFC 3168 ECN, delayed ACKs, initial window 3, timeout srtt + 200
    /// ms), dctcp (a variant the paper leaves to future work: DCTCP's reaction to ECN, Reno, initial
    /// window 10, an ACK a segment, the switches' rto as timeout), or open (open-loop senders at line
    /// rate; lost bytes sent again after the switches' rto). docs/network.md lists the assumptions.
    #[arg(long, default_value = "paper")]
    pub transport: String,
    /// With paper or dctcp: the reaction to ECN echoes instead of the preset's (classic for
    /// paper, dctcp for dctcp): dctcp, classic (RFC 3168) or off; every egress queue marks CE at
    /// --ecn-threshold.
    #[arg(long)]
    pub ecn: Option<String>,
    /// With paper or dctcp: the ECN marking threshold, bytes (the paper's 20 KB).
    #[arg(long, default_value_t = 20 * 1024)]
    pub ecn_threshold: u32,
    /// Every switch's settings from this single-switch scenario (a built-in name or a TOML file):
    /// thresholds, lossless priorities, CUT, pipeline, scheduler, rto, xoff = "auto". Default: the
    /// paper's (Table II, lossless priority 3, 25 us pipeline at 1 Mpps, 10 ms retransmission).
    #[arg(long)]
    pub switch: Option<String>,
    /// The block behind the switches: model, rtl or both (lockstep-checked).
    #[arg(long, default_value = "model")]
    pub dut: String,
    /// With --dut rtl or both: only these switches (node ids, comma-separated); the rest use the
    /// model.
    #[arg(long)]
    pub dut_nodes: Option<String>,
    /// The block's micro-architecture in every switch: v3 (the block, docs/microarchitecture.md;
    /// its registers never stand still, so a switch skips idle cycles once nothing is in flight
    /// and catches up with them by a closed-form advance) or v2 (the test subject: its
    /// event-driven model stops while a switch is idle; 100 ms of paper-fat-1's four modes take
    /// it about a third of v3's time, docs/network.md; the same contract).
    #[arg(long, default_value = "v3")]
    pub block: String,
    /// Stop after this much simulated time, e.g. 100ms.
    #[arg(long, default_value = "1s")]
    pub max_time: String,
    /// Write each mode's fct.txt and pfc.txt in HPCC's formats into this directory:
    /// MODE_fct.txt, MODE_pfc.txt.
    #[arg(long)]
    pub hpcc: Option<PathBuf>,
    /// Write every frame on the chosen hosts' links (data and ACKs both ways, the PFC frames the
    /// switches send them) as pcap files into this directory: MODE_hostN.pcap, N the host's node
    /// id.
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// For each query, where its last response's time went: at the sender (before the first send,
    /// waiting for a timeout or fast recovery, sending again) and at each switch (ingress FIFO,
    /// pipeline and of it stopped, egress queue and of it paused, serialization, propagation);
    /// the parts add up to the completion time. Then per mode the median and largest share of each
    /// part over the queries. Needs a transport (paper or dctcp); not with --json or --seeds.
    #[arg(long)]
    pub stragglers: bool,
    /// With --pcap: the hosts whose links are captured, node ids comma-separated (default: every
    /// host).
    #[arg(long)]
    pub pcap_hosts: Option<String>,
    /// Draw which switch ports and host NICs are paused over time, one panel per mode (SVG).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// The report as JSON.
    #[arg(long)]
    pub json: bool,
    /// With the FECN modes: write per-flow rates, queue length and the congestion point's
    /// intervals over time as CSV into this directory.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// off: a variant outside the block's contract (docs/paper-literal.md, "Pause expiry
    /// variant"): the switches' MACs send XON, and XOFF only for classes paused anew, never the
    /// block's refreshes, so an upstream's pause runs out after its quanta while the class stays
    /// paused; a deadlock is counted and the run goes on. Default: the scenario's `pause_refresh`
    /// (on).
    #[arg(long, value_parser = ["on", "off"])]
    pub pause_refresh: Option<String>,
    /// How many runs (seed × mode) at once, each on a thread of its own (0: one per core). The
    /// report, the sweep's lines and the files are the same whatever the number: each run is
    /// written in its order once it and every run before it has ended.
    #[arg(long, short = 'j', default_value_t = 0)]
    pub jobs: usize,
}

use crate::net::traffic::DEFAULT_CDF;

/// `--topology`.
pub fn topology(spec: &str, delay_ns: u64) -> Result<Topology> {
    let g = 1_000_000_000;
    if spec == "paper" {
        return Ok(Topology::paper_fat_tree(delay_ns));
    }
    if let Some(k) = spec.strip_prefix("fat-tree:") {
        let k: usize = k
            .parse()
            .with_context(|| format!("--topology {spec}: K is a number"))?;
        return Topology::fat_tree(k, g, delay_ns).map_err(anyhow::Error::msg);
    }
    if let Some(v) = spec.strip_prefix("leaf-spine:") {
        let n: Vec<usize> = v
            .split(',')
            .map(|x| x.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .ok()
            .filter(|n: &Vec<usize>| n.len() == 3)
            .with_context(|| {
                format!("--topology {spec}: expected leaf-spine:LEAVES,SPINES,HOSTS")
            })?;
        return Topology::leaf_spine(n[0], n[1], n[2], g, 4 * g, delay_ns)
            .map_err(anyhow::Error::msg);
    }
    let text = std::fs::read_to_string(spec).with_context(|| {
        format!("--topology {spec}: not paper, fat-tree:K, leaf-spine:L,S,H or a readable file")
    })?;
    Ok(Topology::parse_hpcc(&text, spec)?)
}

/// The flows of a run with `seed`, their classes, and the time (ns) subtracted from the file's
/// start times.
/// Its messages go to `log`.
fn flows(
    a: &NetArgs,
    c: &Common,
    seed: u64,
    log: &mut String,
) -> Result<(Vec<NetFlow>, Vec<String>, u64)> {
    let topo = &c.topo;
    if let Some(sc) = &c.scenario {
        let mut mix = sc.mix.clone().with_context(|| {
            format!(
                "scenario {}: a network scenario draws its traffic from [mix]",
                sc.name
            )
        })?;
        mix.seed = seed;
        let hosts: Vec<usize> = topo.hosts().collect();
        mix.validate(hosts.len())
            .map_err(|(f, why)| anyhow::anyhow!("scenario {}: field {f}: {why}", sc.name))?;
        let mut specs = mix.network_flows(hosts.len());
        specs.sort_by_key(|f| f.start);
        writeln!(
            log,
            "net: scenario {} seed {seed}: {} flows over {} hosts",
            sc.name,
            specs.len(),
            hosts.len()
        )?;
        let classes = specs.iter().map(|f| f.class.clone()).collect();
        let v = specs
            .iter()
            .map(|f| NetFlow {
                src: hosts[f.src],
                dst: hosts[f.dst],
                prio: f.prio,
                dport: dport_of_class(&f.class),
                size: f.bytes,
                start_ns: (f.start as f64 * sc.cycle_ns).round() as u64,
            })
            .collect();
        return Ok((v, classes, 0));
    }
    let (v, t0) = file_or_drawn_flows(a, topo, seed, log)?;
    let classes = vec!["flow".to_string(); v.len()];
    Ok((v, classes, t0))
}

fn file_or_drawn_flows(
    a: &NetArgs,
    topo: &Topology,
    seed: u64,
    log: &mut String,
) -> Result<(Vec<NetFlow>, u64)> {
    if let Some(f) = &a.flows {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(f).with_context(|| name.clone())?;
        let (mut v, rest) = parse_hpcc_flows(&text, &name, topo)?;
        if rest > 0 {
            writeln!(log, "net: {name}: {rest} lines after the {} flows that flow_num declares were not read (HPCC reads only those)", v.len())?;
        }
        let t0 = v.first().map_or(0, |f| f.start_ns);
        for f in &mut v {
            f.start_ns -= t0;
        }
        return Ok((v, t0));
    }
    let (text, name) = match &a.cdf {
        Some(p) => (
            std::fs::read_to_string(p).with_context(|| p.display().to_string())?,
            p.display().to_string(),
        ),
        None => (DEFAULT_CDF.to_string(), "built-in".into()),
    };
    let cdf = Cdf::parse(&text, &name)?;
    let dur = parse_delay(&a.duration)
        .with_context(|| format!("--duration '{}': not a time (e.g. 2ms)", a.duration))?;
    if a.prio > 7 {
        bail!("--prio {}: a priority 0..=7", a.prio);
    }
    let v = poisson_flows(topo, &cdf, a.load, dur, seed, a.prio).map_err(anyhow::Error::msg)?;
    writeln!(
        log,
        "net: seed {}: {} flows drawn from {name} at load {} over {dur} ns",
        seed,
        v.len(),
        a.load
    )?;
    Ok((v, 0))
}

/// What every run of one `capfc net` shares.
struct Common {
    /// The network scenario, if any: every switch's settings and the traffic.
    scenario: Option<Scenario>,
    transport: TransportKind,
    /// The topology as named (`--topology`, or the scenario's `[network] topology`).
    topo_name: String,
    topo: Topology,
    routing: Routing,
    dut: DutKind,
    dut_nodes: Vec<usize>,
    block: BlockKind,
    max_ns: u64,
}

pub fn run(a: &NetArgs) -> Result<()> {
    if run_qcn_or_fecn(a)? {
        return Ok(());
    }
    let (c, modes) = common(a)?;
    let jobs = jobs(a, &modes)?;
    let sweep = a.seeds.is_some() || a.shard.is_some();
    let pcap_hosts = prepare_outputs(a, &c, sweep)?;
    let runs = run_jobs(a, &c, jobs, pcap_hosts.as_deref(), sweep)?;
    if let Some(d) = &a.hpcc {
        eprintln!("net: HPCC fct.txt and pfc.txt per run in {}", d.display());
    }
    if sweep {
        return Ok(());
    }
    print_runs(a, &c, &runs)
}

/// The QCN and FECN modes run their own simulators: hands them the run when `--mode` asks for
/// one (true: the run is done).
fn run_qcn_or_fecn(a: &NetArgs) -> Result<bool> {
    if crate::cli_qcn::wants(&a.mode, a.scenario.as_deref()) {
        let out = crate::cli_qcn::QcnOutputs {
            csv: a.csv.as_deref(),
            plot: a.plot.as_deref(),
            pcap: a.pcap.as_deref(),
            json: a.json,
            seeds: a.seeds.as_deref().map(parse_seeds).transpose()?,
        };
        let sc = a.scenario.as_deref().context(
            "--mode QCN/QCN_AR: give the QCN scenario with --scenario scenarios/qcn-*.toml",
        )?;
        crate::cli_qcn::run_cli(sc, &a.mode, &out)?;
        return Ok(true);
    }
    if crate::cli_fecn::wants(&a.mode) {
        let out = crate::cli_fecn::FecnOutputs {
            csv: a.csv.as_deref(),
            plot: a.plot.as_deref(),
            json: a.json,
            seeds: a.seeds.as_deref().map(parse_seeds).transpose()?,
        };
        let sc = a.scenario.as_deref().context(
            "--mode FECN/FECN_PAUSE: give the FECN scenario with --scenario scenarios/fecn-*.toml",
        )?;
        crate::cli_fecn::run_cli(sc, &a.mode, &out)?;
        return Ok(true);
    }
    Ok(false)
}

/// `--scenario`, when given: a network scenario (one with a [network] table).
fn network_scenario(a: &NetArgs) -> Result<Option<Scenario>> {
    let Some(s) = &a.scenario else {
        return Ok(None);
    };
    let sc = Scenario::load_settings(s)?;
    if sc.network.is_none() {
        bail!("--scenario {s}: not a network scenario (it has no [network] table; capfc run takes it)");
    }
    Ok(Some(sc))
}

/// The settings every run shares, from the flags or the scenario's [network] table, and the
/// modes of `--mode`.
fn common(a: &NetArgs) -> Result<(Common, Vec<FlowMode>)> {
    let scenario = network_scenario(a)?;
    let (topo_spec, routing_name, transport, delay) =
        match scenario.as_ref().and_then(|s| s.network.as_ref()) {
            Some(n) => (
                n.topology.clone(),
                n.routing.clone(),
                n.transport.clone(),
                n.delay_ns,
            ),
            None => (
                a.topology.clone(),
                a.routing.clone(),
                a.transport.clone(),
                parse_delay(&a.delay)
                    .with_context(|| format!("--delay '{}': not a time", a.delay))?,
            ),
        };
    let topo = topology(&topo_spec, delay)?;
    let modes = crate::cli_run::parse_modes(&a.mode)?;
    // Where a setting came from, for messages: the flag, or the scenario's [network] table.
    let from = |flag: &str| match &a.scenario {
        Some(s) => format!("scenario {s}: [network] {}", flag.trim_start_matches('-')),
        None => flag.to_string(),
    };
    let routing = Routing::parse(&routing_name).with_context(|| {
        format!(
            "{} '{routing_name}': expected ecmp or detail",
            from("--routing")
        )
    })?;
    let transport = TransportKind::parse(&transport).with_context(|| {
        format!(
            "{} '{transport}': expected {}",
            from("--transport"),
            TransportKind::NAMES
        )
    })?;
    let dut = DutKind::parse(&a.dut)
        .with_context(|| format!("--dut '{}': expected model, rtl or both", a.dut))?;
    let dut_nodes = dut_nodes(a.dut_nodes.as_deref())?;
    let block = BlockKind::parse(&a.block)
        .with_context(|| format!("--block '{}': expected v2 or v3", a.block))?;
    let max_ns = parse_delay(&a.max_time)
        .with_context(|| format!("--max-time '{}': not a time", a.max_time))?;
    let c = Common {
        scenario,
        transport,
        topo_name: topo_spec,
        topo,
        routing,
        dut,
        dut_nodes,
        block,
        max_ns,
    };
    Ok((c, modes))
}

/// `--dut-nodes`: node ids, comma-separated (None: none).
fn dut_nodes(spec: Option<&str>) -> Result<Vec<usize>> {
    let Some(s) = spec else {
        return Ok(vec![]);
    };
    s.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .with_context(|| format!("--dut-nodes: '{x}' is not a node id"))
        })
        .collect()
}

/// The runs to make, (seed, mode) in order: `--seed` or `--seeds` × `modes`, then `--shard`'s
/// share of them; none is an error.
fn jobs(a: &NetArgs, modes: &[FlowMode]) -> Result<Vec<(u64, FlowMode)>> {
    let seeds = match &a.seeds {
        Some(s) => parse_seeds(s)?,
        None => a.seed..=a.seed,
    };
    if seeds.end() - seeds.start() >= 100_000 {
        bail!("--seeds: more than 100000 seeds in one run; split the range over runs");
    }
    let mut jobs: Vec<(u64, FlowMode)> = seeds
        .flat_map(|s| modes.iter().map(move |&m| (s, m)))
        .collect();
    let total = jobs.len();
    if let Some(sh) = &a.shard {
        let (k, n) = parse_shard(sh)?;
        jobs = jobs
            .into_iter()
            .enumerate()
            .filter(|(j, _)| j % n == k - 1)
            .map(|(_, job)| job)
            .collect();
    }
    if jobs.is_empty() {
        bail!(
            "no run selected: shard {} of {total} runs",
            a.shard.as_deref().unwrap_or("-")
        );
    }
    Ok(jobs)
}

/// Checks the output options against each other and makes their directories: `--hpcc`,
/// `--stragglers`, `--pcap` and `--pcap-hosts`. The hosts whose links are captured, with `--pcap`.
fn prepare_outputs(a: &NetArgs, c: &Common, sweep: bool) -> Result<Option<Vec<usize>>> {
    if let Some(d) = &a.hpcc {
        std::fs::create_dir_all(d).with_context(|| format!("--hpcc {}", d.display()))?;
    }
    if a.stragglers && (sweep || a.json) {
        bail!("--stragglers: one run's report, not with --seeds, --shard or --json");
    }
    if a.stragglers && c.transport == TransportKind::Open {
        bail!("--stragglers: needs a transport (paper or dctcp), not open-loop senders");
    }
    Ok(match (&a.pcap, &a.pcap_hosts) {
        (None, Some(_)) => bail!("--pcap-hosts needs --pcap DIR"),
        (None, None) => None,
        (Some(_), _) if sweep => bail!("--pcap takes one run: not with --seeds or --shard"),
        (Some(d), h) => {
            std::fs::create_dir_all(d).with_context(|| format!("--pcap {}", d.display()))?;
            Some(pcap_hosts(h.as_deref(), &c.topo)?)
        }
    })
}

/// A run that has ended: the network, its messages and its flows' time shift (`flows`).
type Ended = Result<(Network, String, u64)>;

/// Runs `jobs`, `--jobs` of them at a time, and writes each run's pcap and HPCC files and
/// messages in the order of `jobs` whatever order they end in. A sweep prints each run's line and
/// keeps none; otherwise the runs, for the report. The first run that fails stops the others
/// from starting; the runs before it are written first.
fn run_jobs(
    a: &NetArgs,
    c: &Common,
    jobs: Vec<(u64, FlowMode)>,
    pcap_hosts: Option<&[usize]>,
    sweep: bool,
) -> Result<Vec<Network>> {
    let threads = match a.jobs {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
    .min(jobs.len());
    // A job: draws its seed's flows unless `drawn` has them (a thread runs a seed's modes in
    // turn), then runs.
    let job = |j: usize, drawn: &mut Option<(u64, Vec<NetFlow>, Vec<String>, u64)>| -> Ended {
        let (seed, mode) = jobs[j];
        let mut log = String::new();
        if drawn.as_ref().is_none_or(|d| d.0 != seed) {
            let mut drew = String::new();
            let (f, classes, t0) = flows(a, c, seed, &mut drew)?;
            if f.is_empty() {
                bail!("seed {seed}: no flows to run");
            }
            *drawn = Some((seed, f, classes, t0));
            // The draw is said once, with the seed's first run, however many threads drew it.
            if jobs.iter().position(|x| x.0 == seed) == Some(j) {
                log = drew;
            }
        }
        let (_, fl, classes, t0) = drawn.as_ref().expect("drawn");
        let net = run_one(a, c, fl, classes, (seed, mode), pcap_hosts, &mut log)?;
        Ok((net, log, *t0))
    };
    let mut out = InOrder {
        written: 0,
        ended: Default::default(),
        runs: vec![],
    };
    let write = |j: usize, (net, log, t0): (Network, String, u64)| -> Result<Option<Network>> {
        let (seed, mode) = jobs[j];
        eprint!("{log}");
        write_run(a, c, &net, (seed, mode, t0), pcap_hosts, sweep)?;
        Ok((!sweep).then_some(net))
    };
    // The RTL in the loop is a Verilated model per switch, which stays on the thread that made
    // it: those runs go one after the other on this thread.
    if threads <= 1 || c.dut != DutKind::Model {
        let mut drawn = None;
        for j in 0..jobs.len() {
            out.end(j, job(j, &mut drawn), &write)?;
        }
        return Ok(out.runs);
    }
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let (next, stop, n) = (AtomicUsize::new(0), AtomicBool::new(false), jobs.len());
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<ModelNet>)>();
        for _ in 0..threads {
            let (tx, job, next, stop) = (tx.clone(), &job, &next, &stop);
            scope.spawn(move || {
                let mut drawn = None;
                while !stop.load(Ordering::Relaxed) {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    if j >= n {
                        break;
                    }
                    let r = job(j, &mut drawn).map(ModelNet);
                    stop.fetch_or(r.is_err(), Ordering::Relaxed);
                    if tx.send((j, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (j, r) in rx {
            if let Err(e) = out.end(j, r.map(|m| m.0), &write) {
                stop.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })?;
    Ok(out.runs)
}

/// A network whose switches all run the block's model (`DutKind::Model`), sent from the thread
/// that ran it to the one that writes it.
struct ModelNet((Network, String, u64));

// SAFETY: a network is not `Send` only because a switch may hold a Verilated model (`--dut rtl`
// or `both`), a C++ object used from the thread that made it. `run_jobs` runs such networks on
// its own thread and sends only those whose every switch runs the Rust model, which holds no
// thread-bound state.
unsafe impl Send for ModelNet {}

/// Runs that have ended, written in the order of the jobs: a run waits here until every run
/// before it has been written.
struct InOrder {
    written: usize,
    ended: std::collections::BTreeMap<usize, Ended>,
    runs: Vec<Network>,
}

impl InOrder {
    /// Job `j` has ended with `r`: writes it and the runs after it that have ended, in order,
    /// with `write`; the first failure is returned once the runs before it are written.
    fn end(
        &mut self,
        j: usize,
        r: Ended,
        write: &impl Fn(usize, (Network, String, u64)) -> Result<Option<Network>>,
    ) -> Result<()> {
        self.ended.insert(j, r);
        while let Some(r) = self.ended.remove(&self.written) {
            let net = write(self.written, r?)?;
            self.runs.extend(net);
            self.written += 1;
        }
        Ok(())
    }
}

/// One run's files (`--pcap`, `--hpcc`) and, in a sweep, its line.
fn write_run(
    a: &NetArgs,
    c: &Common,
    net: &Network,
    (seed, mode, t0): (u64, FlowMode, u64),
    pcap_hosts: Option<&[usize]>,
    sweep: bool,
) -> Result<()> {
    if let (Some(d), Some(hosts)) = (&a.pcap, pcap_hosts) {
        write_pcaps(d, hosts, mode, net)?;
    }
    if let Some(d) = &a.hpcc {
        let base = if sweep {
            format!("{}_seed{seed}", mode.name())
        } else {
            mode.name().to_string()
        };
        write_hpcc(d, &base, net, t0)?;
    }
    if sweep {
        print_sweep_line(a, c, seed, mode, net);
    }
    Ok(())
}

/// `--pcap`: the frames on each of `hosts`' links in a file of its own, MODE_hostN.pcap in `d`.
fn write_pcaps(d: &Path, hosts: &[usize], mode: FlowMode, net: &Network) -> Result<()> {
    let cap = net.capture.as_ref().expect("captured");
    let mut frames = cap.frames.clone();
    frames.sort_by_key(|f| f.cycle); // stable: in the order put on the wire
    let mut n = 0;
    for &h in hosts {
        let path = d.join(format!("{}_host{h}.pcap", mode.name()));
        n += crate::switch::pcap::write_port(&path, &frames, (h, None), net.cycle_ns)
            .map_err(anyhow::Error::msg)?;
    }
    eprintln!(
        "net: {}: {n} frames in {} pcap files in {}",
        mode.name(),
        hosts.len(),
        d.display()
    );
    Ok(())
}

/// `--hpcc`: a run's fct.txt and pfc.txt in `d`, `base`_fct.txt and `base`_pfc.txt, times shifted
/// back by `t0` ns.
fn write_hpcc(d: &Path, base: &str, net: &Network, t0: u64) -> Result<()> {
    for (what, text) in [("fct", fct_txt(net, t0)), ("pfc", pfc_txt(net, t0))] {
        let path = d.join(format!("{base}_{what}.txt"));
        std::fs::write(&path, text).with_context(|| format!("--hpcc {}", path.display()))?;
    }
    Ok(())
}

/// A sweep's run on standard output: one line, or one JSON object with `--json`.
fn print_sweep_line(a: &NetArgs, c: &Common, seed: u64, mode: FlowMode, net: &Network) {
    let st = net.stats();
    if a.json {
        println!(
            "{}",
            serde_json::json!({ "topology": c.topo_name, "routing": c.routing.name(),
                "seed": seed, "mode": mode.name(), "stats": st })
        );
    } else {
        println!("{}", sweep_line(seed, mode, &st));
    }
}

/// One run per mode, side by side: the pause plot (`--plot`), then the table (or JSON with
/// `--json`) and, with `--stragglers`, each mode's stragglers.
fn print_runs(a: &NetArgs, c: &Common, runs: &[Network]) -> Result<()> {
    if let Some(p) = &a.plot {
        crate::plot::plot_pauses(p, runs).map_err(anyhow::Error::msg)?;
        eprintln!("net: pause spreading drawn in {}", p.display());
    }
    let stats: Vec<NetStats> = runs.iter().map(Network::stats).collect();
    if a.json {
        let v: Vec<_> = runs
            .iter()
            .zip(&stats)
            .map(|(n, s)| serde_json::json!({ "mode": n.cfg.mode.name(), "stats": s }))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "topology": c.topo_name, "routing": c.routing.name(), "seed": a.seed, "runs": v
            }))?
        );
        return Ok(());
    }
    print!("{}", report(&c.topo_name, &c.topo, c.routing, runs, &stats));
    if a.stragglers {
        for net in runs {
            print!("{}", stragglers_report(net)?);
        }
    }
    Ok(())
}

/// The queries of a run: the flows of class "query" grouped by (aggregator, start), in start order.
fn queries(net: &Network) -> Vec<Vec<usize>> {
    let mut groups: std::collections::BTreeMap<(u64, usize), Vec<usize>> = Default::default();
    for (f, fl) in net.flows.iter().enumerate() {
        if fl.class == "query" {
            groups.entry((fl.start, fl.dst)).or_default().push(f);
        }
    }
    groups.into_values().collect()
}

/// `--stragglers`: each query's last response, part by part (microseconds), and per part the
/// median and largest share of the completion time over the queries.
fn stragglers_report(net: &Network) -> Result<String> {
    use crate::net::stragglers::{breakdown, Breakdown};
    use std::fmt::Write as _;
    let mode = net.cfg.mode.name();
    let mut out = String::new();
    let mut parts: Vec<Breakdown> = vec![];
    let qs = queries(net);
    writeln!(
        out,
        "\nstragglers, {mode}: each query's last response (us; the parts add up to its FCT)"
    )?;
    writeln!(
        out,
        "  query  start(us)  FCT(us) = sender [timeouts, NIC paused, window] (lost copies, timeouts, fast retransmits) + host link [ser, prop] + hops (node: ingress, pipeline (stopped), egress (paused), ser, prop) + delivery"
    )?;
    for (k, q) in qs.iter().enumerate() {
        let Some(&f) = q
            .iter()
            .filter(|&&f| net.stats_fct(f).is_some())
            .max_by_key(|&&f| (net.stats_fct(f).unwrap_or(0), std::cmp::Reverse(f)))
        else {
            writeln!(out, "  {k:5}  no response completed")?;
            continue;
        };
        if q.iter().any(|&f| net.stats_fct(f).is_none()) {
            writeln!(out, "  {k:5}  not every response completed")?;
            continue;
        }
        let b = breakdown(net, f).map_err(anyhow::Error::msg)?;
        writeln!(out, "{}", straggler_line(net, k, f, &b))?;
        parts.push(b);
    }
    if parts.is_empty() {
        writeln!(out, "  no query completed")?;
        return Ok(out);
    }
    write_shares(&mut out, &parts)?;
    Ok(out)
}

/// Query `k`'s last response, flow `f`, broken down as `b`: one line of the stragglers' table
/// (microseconds).
fn straggler_line(
    net: &Network,
    k: usize,
    f: usize,
    b: &crate::net::stragglers::Breakdown,
) -> String {
    let us = |c: u64| c as f64 * net.cycle_ns / 1000.0;
    let hops: Vec<String> = b
        .hops
        .iter()
        .map(|(n, h)| {
            format!(
                "({n}: {:.1}, {:.1} ({:.1}), {:.1} ({:.1}), {:.1}, {:.1})",
                us(h.ingress),
                us(h.pipeline),
                us(h.stopped),
                us(h.egress),
                us(h.paused),
                us(h.serialization),
                us(h.propagation)
            )
        })
        .collect();
    format!(
        "  {k:5} {:10.1} {:8.1} = {:.1} [{:.1}, {:.1}, {:.1}] ({}, {}, {}) + [{:.1}, {:.1}] + {} + {:.3}",
        us(net.flows[f].start),
        us(b.fct),
        us(b.sender()),
        us(b.timeout_wait),
        us(b.nic_paused),
        us(b.window_wait),
        b.lost_copies,
        b.timeouts,
        b.fast_retransmits,
        us(b.host_serialization),
        us(b.host_propagation),
        hops.join(" "),
        us(b.delivery)
    )
}

/// Per part of the completion time, its median and largest share over the queries `parts`
/// (at least one).
fn write_shares(out: &mut String, parts: &[crate::net::stragglers::Breakdown]) -> Result<()> {
    use crate::net::stragglers::Breakdown;
    use std::fmt::Write as _;
    let sum = |b: &Breakdown, g: fn(&crate::switch::hops::Hop) -> u64| -> u64 {
        b.hops.iter().map(|(_, h)| g(h)).sum()
    };
    type Part = Box<dyn Fn(&Breakdown) -> u64>;
    let rows: [(&str, Part); 9] = [
        (
            "sender: waiting for a timeout",
            Box::new(|b| b.timeout_wait),
        ),
        ("sender: paused at the NIC", Box::new(|b| b.nic_paused)),
        (
            "sender: window, NIC queue, fast recovery",
            Box::new(|b| b.window_wait),
        ),
        (
            "hops: ingress FIFO",
            Box::new(move |b| sum(b, |h| h.ingress)),
        ),
        (
            "hops: pipeline, moving",
            Box::new(move |b| sum(b, |h| h.pipeline - h.stopped)),
        ),
        (
            "hops: pipeline, stopped",
            Box::new(move |b| sum(b, |h| h.stopped)),
        ),
        (
            "hops: egress queue, not paused",
            Box::new(move |b| sum(b, |h| h.egress - h.paused)),
        ),
        (
            "hops: egress queue, paused",
            Box::new(move |b| sum(b, |h| h.paused)),
        ),
        (
            "links: serialization, propagation, delivery",
            Box::new(move |b| {
                b.host_serialization
                    + b.host_propagation
                    + sum(b, |h| h.serialization + h.propagation)
                    + b.delivery
            }),
        ),
    ];
    writeln!(
        out,
        "  share of the FCT over {} queries:      median     max",
        parts.len()
    )?;
    for (name, g) in &rows {
        let mut v: Vec<f64> = parts.iter().map(|b| g(b) as f64 / b.fct as f64).collect();
        v.sort_by(f64::total_cmp);
        writeln!(
            out,
            "  {name:42} {:6.1} % {:6.1} %",
            100.0 * v[v.len() / 2],
            100.0 * v[v.len() - 1]
        )?;
    }
    Ok(())
}

/// One run of a sweep in one line.
fn sweep_line(seed: u64, mode: FlowMode, st: &NetStats) -> String {
    let done = st.fct.iter().filter(|f| f.is_some()).count();
    let mut s = format!(
        "seed {seed} {}: {done}/{} flows, {:.0} us simulated, drops {} egress {} ingress, PFC frames {}",
        mode.name(),
        st.fct.len(),
        st.cycles as f64 * st.cycle_ns / 1000.0,
        st.egress_drops,
        st.ingress_drops,
        st.pfc_frames_by_tier.iter().sum::<u64>()
    );
    for c in &st.classes {
        s += &format!(
            ", {} FCT p99 {:.0} us max {:.0} us",
            c.class, c.fct_p99_us, c.fct_max_us
        );
    }
    s
}

/// `--pcap-hosts`: host node ids, comma-separated (None: every host), in order, each once.
fn pcap_hosts(spec: Option<&str>, topo: &Topology) -> Result<Vec<usize>> {
    let Some(spec) = spec else {
        return Ok(topo.hosts().collect());
    };
    let mut v = vec![];
    for t in spec.split(',') {
        let t = t.trim();
        let h: usize = t
            .parse()
            .with_context(|| format!("--pcap-hosts: '{t}' is not a node id"))?;
        if !topo.hosts().any(|x| x == h) {
            bail!("--pcap-hosts: node {h} is not a host of the topology");
        }
        v.push(h);
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// One network run: `mode`, flows `fl`, hash seed `seed`; capturing the links of `pcap` hosts.
fn run_one(
    a: &NetArgs,
    c: &Common,
    fl: &[NetFlow],
    classes: &[String],
    (seed, mode): (u64, FlowMode),
    pcap: Option<&[usize]>,
    log: &mut String,
) -> Result<Network> {
    let mut cfg = NetConfig::paper(mode, c.routing);
    if let Some(sc) = &c.scenario {
        cfg.switch = sc.clone();
        cfg.switch.flows.clear();
        cfg.switch.mix = None;
    } else if let Some(s) = &a.switch {
        let mut sc = Scenario::load_settings(s)?;
        sc.flows.clear();
        cfg.switch = sc;
    }
    if let Some(r) = &a.pause_refresh {
        cfg.switch.pause_refresh = r == "on";
    }
    cfg.seed = seed;
    cfg = cfg.with_transport(c.transport);
    if let Some(t) = cfg.transport.as_mut() {
        if let Some(e) = &a.ecn {
            t.ecn = Ecn::parse(e)
                .with_context(|| format!("--ecn '{e}': expected dctcp, classic or off"))?;
        }
        t.ecn_threshold = Some(a.ecn_threshold);
    }
    cfg.dut = c.dut;
    cfg.dut_nodes = c.dut_nodes.clone();
    cfg.block = c.block;
    let mut net = Network::new(&c.topo, fl, cfg).map_err(anyhow::Error::msg)?;
    for (f, class) in net.flows.iter_mut().zip(classes) {
        f.class = class.clone();
    }
    net.cfg.switch.max_cycles = (c.max_ns as f64 / net.cycle_ns).ceil() as u64;
    net.pfc_log = Some(vec![]);
    net.capture = pcap.map(|h| crate::switch::pcap::Capture::of(h.iter().copied()));
    if a.stragglers {
        net.trace_stragglers();
    }
    let wall = std::time::Instant::now();
    net.run().map_err(anyhow::Error::msg)?;
    let secs = wall.elapsed().as_secs_f64();
    let sim_ms = net.now as f64 * net.cycle_ns / 1e6;
    let all = net.now.max(1) as f64 * c.topo.switches().count() as f64;
    // (v3's blocks: the share of the switches' cycles they did not clock, their idle skipping)
    let v3 = match c.block {
        BlockKind::V3 => {
            let (skipped, caught_up) = net.v3_skip_counts();
            format!(
                ", v3 blocks skipped {:.1} % of their cycles (caught up {:.1} %)",
                100.0 * skipped as f64 / all,
                100.0 * caught_up as f64 / all
            )
        }
        BlockKind::V2 => String::new(),
    };
    writeln!(
        log,
        "net: {} {} seed {seed}: {sim_ms:.3} ms simulated in {secs:.1} s ({:.2} ms/s; switches active {:.1} % of their cycles{v3}), {} of {} flows done",
        c.topo_name,
        mode.name(),
        sim_ms / secs.max(1e-9),
        100.0 * net.switch_cycles as f64 / all,
        net.stats().fct.iter().filter(|f| f.is_some()).count(),
        fl.len()
    )?;
    if let Some(d) = &net.deadlock {
        writeln!(
            log,
            "net: {} {} seed {seed}: {}",
            c.topo_name,
            mode.name(),
            deadlock_text(d, net.cycle_ns)
        )?;
    }
    Ok(net)
}

/// `fct.txt` of a network run: one line per completed flow, node ids as in the topology, times
/// shifted back by `t0` ns.
pub fn fct_txt(net: &Network, t0: u64) -> String {
    let ns = |c: u64| (c as f64 * net.cycle_ns).round() as u64;
    let st = net.stats();
    let mut s = String::new();
    for (f, t) in st.fct.iter().enumerate() {
        let Some(t) = t else { continue };
        let fl = &net.flows[f];
        s += &fct_line(
            (net.host_node(fl.src), net.host_node(fl.dst)),
            f,
            net.dports[f],
            fl.bytes,
            [t0 + ns(fl.start), ns(*t), ns(net.standalone_cycles(f))],
        );
    }
    s
}

/// `pfc.txt` of a network run: where each frame took effect (node, type, interface = port + 1).
pub fn pfc_txt(net: &Network, t0: u64) -> String {
    let mut s = String::new();
    for &(t, node, port, cev, q) in net.pfc_log.as_deref().unwrap_or_default() {
        let ty = u8::from(net.switch(node).is_some());
        let ns = t0 + (t as f64 * net.cycle_ns).round() as u64;
        pfc_lines(&mut s, ns, (node, ty, port + 1), cev, &q);
    }
    s
}

/// The human table being built: a label, then one column per run's statistics.
struct Table<'a> {
    s: String,
    stats: &'a [NetStats],
}

impl Table<'_> {
    /// One row: `label`, then `f` of each run's statistics.
    fn row(&mut self, label: &str, f: &dyn Fn(&NetStats) -> String) {
        self.s += &format!("{label:<36}");
        for st in self.stats {
            self.s += &format!("{:>12}", f(st));
        }
        self.s += "\n";
    }
}

/// The human table: one column per mode.
pub fn report(
    name: &str,
    topo: &Topology,
    routing: Routing,
    runs: &[Network],
    stats: &[NetStats],
) -> String {
    let mut s = format!(
        "network {name} ({} hosts, {} switches, {} links), routing {}, {} flows\n",
        topo.hosts().count(),
        topo.switches().count(),
        topo.links.len(),
        routing.name(),
        runs.first().map_or(0, |n| n.flows.len())
    );
    s += &format!("{:<36}", "");
    for r in runs {
        s += &format!("{:>12}", r.cfg.mode.name());
    }
    s += "\n";
    let mut t = Table { s, stats };
    loss_rows(&mut t, runs);
    pfc_rows(&mut t, runs);
    class_rows(&mut t);
    if stats.iter().any(|st| st.pause_expiry.is_some()) {
        pause_expiry_rows(&mut t);
    }
    let mut s = t.s;
    for (r, st) in runs.iter().zip(stats) {
        if let Some(d) = &st.deadlock {
            s += &format!("{}: {}\n", r.cfg.mode.name(), deadlock_text(d, st.cycle_ns));
        }
    }
    s
}

/// The table's first rows: simulated time, drops, and the transport's reactions when there is one.
fn loss_rows(t: &mut Table, runs: &[Network]) {
    t.row("simulated time (us)", &|st| {
        format!("{:.0}", st.cycles as f64 * st.cycle_ns / 1000.0)
    });
    t.row("egress drops (packets)", &|st| st.egress_drops.to_string());
    if runs.first().is_some_and(|n| n.cfg.transport.is_some()) {
        t.row("TCP timeouts", &|st| st.timeouts.to_string());
        t.row("TCP fast retransmits", &|st| {
            st.fast_retransmits.to_string()
        });
        t.row("TCP window cuts on ECN", &|st| st.ecn_cuts.to_string());
    }
    t.row("ingress overflow (packets)", &|st| {
        st.ingress_drops.to_string()
    });
}

/// PFC frames per tier, and in the modes that stop a pipeline its stalls and a deadlock; then the
/// paused time per tier.
fn pfc_rows(t: &mut Table, runs: &[Network]) {
    let tiers = t.stats.first().map_or(0, |st| st.pfc_frames_by_tier.len());
    for k in 1..tiers {
        t.row(&format!("PFC frames sent, tier {k}"), &|st| {
            st.pfc_frames_by_tier[k].to_string()
        });
    }
    if runs.iter().any(|n| n.cfg.mode.stops()) {
        for k in 1..tiers {
            t.row(&format!("pipelines stalled, tier {k} (us)"), &|st| {
                format!(
                    "{:.0}",
                    st.stall_cycles_by_tier[k] as f64 * st.cycle_ns / 1000.0
                )
            });
        }
    }
    if runs.iter().any(|n| n.cfg.mode.stops()) {
        t.row("deadlock found at (us)", &|st| {
            st.deadlock.as_ref().map_or("-".into(), |d| {
                format!("{:.0}", d.since as f64 * st.cycle_ns / 1000.0)
            })
        });
    }
    for k in 0..tiers {
        let who = if k == 0 { "hosts" } else { "switches" };
        t.row(&format!("paused, tier {k} {who} (port-us)"), &|st| {
            format!(
                "{:.0}",
                st.paused_cycles_by_tier[k] as f64 * st.cycle_ns / 1000.0
            )
        });
    }
}

/// Per class of flows (the first run's): completed flows and completion times.
fn class_rows(t: &mut Table) {
    let stats = t.stats;
    for c in stats.first().map_or(&[][..], |st| &st.classes[..]) {
        let n = c.class.clone();
        let class = |st: &NetStats| st.classes.iter().find(|k| k.class == n).cloned();
        t.row(&format!("{n}: completed / flows"), &|st| {
            class(st).map_or("-".into(), |k| format!("{}/{}", k.completed, k.flows))
        });
        t.row(&format!("{n}: FCT p99 (us)"), &|st| {
            class(st).map_or("-".into(), |k| format!("{:.0}", k.fct_p99_us))
        });
        t.row(&format!("{n}: FCT max (us)"), &|st| {
            class(st).map_or("-".into(), |k| format!("{:.0}", k.fct_max_us))
        });
    }
}

/// With pause refresh off: the refreshes withheld, the pauses that ran out and the deadlocks.
fn pause_expiry_rows(t: &mut Table) {
    let e = |st: &NetStats, f: fn(&crate::net::sim::PauseExpiry) -> u64| {
        st.pause_expiry
            .as_ref()
            .map_or("-".into(), |e| f(e).to_string())
    };
    t.s += "pause refresh off (a variant): pauses run out after their quanta\n";
    t.row("pause refreshes withheld", &|st| {
        e(st, |e| e.refreshes_withheld)
    });
    t.row("pauses expired", &|st| e(st, |e| e.expiries));
    t.row("deadlocks found", &|st| e(st, |e| e.deadlocks));
    t.row("deadlocks cleared", &|st| e(st, |e| e.deadlocks_cleared));
    t.row("longest deadlock (ms)", &|st| {
        st.pause_expiry.as_ref().map_or("-".into(), |e| {
            let cycles = e.longest_deadlock_checks * crate::net::sim::DEADLOCK_CHECK_CYCLES;
            format!("{:.0}", cycles as f64 * st.cycle_ns / 1e6)
        })
    });
}

/// A deadlock in words: when the run found it, and each stopped pipeline's wait.
pub fn deadlock_text(d: &Deadlock, cycle_ns: f64) -> String {
    let waits: Vec<String> = d
        .waits
        .iter()
        .map(|w| {
            format!(
                "switch {} waits on its port {} class {}, paused by switch {}",
                w.node, w.port, w.class, w.peer
            )
        })
        .collect();
    format!(
        "deadlock found at {:.3} ms (the run stopped at the next check, {:.0} us later, where it was still there): {} pipelines stand still, each waiting on the next: {}",
        d.since as f64 * cycle_ns / 1e6,
        DEADLOCK_CHECK_CYCLES as f64 * cycle_ns / 1e3,
        d.waits.len(),
        waits.join("; ")
    )
}
