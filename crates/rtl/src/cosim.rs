//! The lockstep checker of v2 (`crates/cli/examples/v2_cosim.rs`; the block's, v3's, is
//! [`crate::cosim_v3`], `capfc cosim`): the Rust
//! model and the Verilated RTL get the same inputs every cycle, and
//! every output and every architectural register is compared after every cycle. The first
//! difference stops the run with the cycle, each differing signal by its RTL name, the last inputs,
//! the seed and the command that replays it.
//!
//! The RAM words are compared through their writes (docs/microarchitecture-v2.md, "Lockstep"): every
//! cycle each RAM's write port (`we`, and `wa`, `wd` when written) and every other register; the
//! words themselves after the first cycle and whenever a write differs. Words equal before a cycle
//! and written alike in it are equal after it, so this is the every-word comparison, by induction,
//! at a fraction of its cost. [`Pair::exhaustive`] compares every word every cycle instead.

use crate::block::coverage::Coverage;
use crate::block::pack::{
    diff, normalize_writes, pack_outputs, pack_state, pack_writes, FieldDiff, Layouts,
};
use crate::block::{BlockParams, CapfcTop, Fault, Inputs, Mode, Outputs};
use crate::dut::{RtlBlock, RtlError};
use crate::stimulus::{directed, RandomStim, Stimulus};
use crate::wave::ModelWave;
use std::fmt;

/// What a job drives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobKind {
    Random { seed: u64, cycles: u64 },
    Directed(String),
}

/// One co-simulation: a parameter set, a mode and a stimulus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// Name of the Verilated parameter set (`rtl_configs.rs`).
    pub config: String,
    pub params: BlockParams,
    pub mode: Mode,
    pub kind: JobKind,
}

impl Job {
    pub fn label(&self) -> String {
        match &self.kind {
            JobKind::Random { seed, cycles } => {
                format!(
                    "{} {} seed={seed} cycles={cycles}",
                    self.config,
                    self.mode.name()
                )
            }
            JobKind::Directed(n) => format!("{} {} directed={n}", self.config, self.mode.name()),
        }
    }

    /// The one command that runs exactly this job again.
    pub fn replay_command(&self, fault: Option<Fault>) -> String {
        let what = match &self.kind {
            JobKind::Random { seed, cycles } => {
                format!("--seed {seed} --cycles {cycles} --directed none")
            }
            JobKind::Directed(n) => format!("--directed {n} --seeds 0"),
        };
        let f = fault.map_or(String::new(), |f| format!(" --fault {}", f.name()));
        format!(
            "cargo run --release --example v2_cosim -- --config {} --algo {} {what}{f}",
            self.config,
            self.mode.name()
        )
    }

    pub fn stimulus(&self) -> Box<dyn Stimulus> {
        match &self.kind {
            JobKind::Random { seed, cycles } => {
                Box::new(RandomStim::new(&self.params, self.mode, *seed, *cycles))
            }
            JobKind::Directed(n) => Box::new(
                directed(&self.params, self.mode, n).expect("directed case names are checked"),
            ),
        }
    }
}

/// A snapshot of a block of other parameters than the pair's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the snapshot's block has {snapshot:?}, this one {this:?}")]
pub struct ParamsMismatch {
    pub snapshot: BlockParams,
    pub this: BlockParams,
}

/// The first difference of a run.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub job: String,
    /// The cycle whose outputs, or whose clock edge's state, differ.
    pub cycle: u64,
    /// "outputs" or "state after the clock edge".
    pub when: &'static str,
    pub diffs: Vec<FieldDiff>,
    /// The inputs of the last cycles up to and including `cycle`, oldest first (only the active
    /// lanes are shown).
    pub recent: Vec<(u64, String)>,
    pub replay: String,
    pub wave: Option<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "MISMATCH in {} at cycle {} ({}):",
            self.job, self.cycle, self.when
        )?;
        writeln!(
            f,
            "  {:<32} {:<28} {:>12} {:>12}",
            "signal (RTL name)", "", "model", "rtl"
        )?;
        for d in self.diffs.iter().take(24) {
            writeln!(
                f,
                "  {:<32} {:<28} {:>#12x} {:>#12x}",
                d.signal, d.at, d.expected, d.actual
            )?;
        }
        if self.diffs.len() > 24 {
            writeln!(
                f,
                "  ... and {} more differing fields",
                self.diffs.len() - 24
            )?;
        }
        writeln!(f, "  inputs of the last cycles:")?;
        for (c, s) in &self.recent {
            writeln!(f, "    cycle {c:>8}: {s}")?;
        }
        if let Some(w) = &self.wave {
            writeln!(f, "  waveform window: {w}")?;
        }
        write!(f, "  replay: {}", self.replay)
    }
}

/// The inputs of one cycle, active lanes only.
pub fn describe_inputs(inp: &Inputs) -> String {
    inp.describe()
}

/// Options of a lockstep run.
#[derive(Debug, Clone, Default)]
pub struct RunOpts {
    pub fault: Option<Fault>,
    /// On a mismatch, write a VCD of the RTL for this many cycles either side of it.
    pub wave_window: Option<u64>,
    /// Where the waveform goes.
    pub wave_dir: Option<std::path::PathBuf>,
    /// How many past cycles of inputs a report shows.
    pub history: usize,
    /// Count functional coverage in the model.
    pub coverage: bool,
    /// Compare every RAM word every cycle ([`Pair::exhaustive`]).
    pub exhaustive: bool,
}

/// A run that ended without a mismatch.
#[derive(Debug, Clone)]
pub struct Passed {
    pub cycles: u64,
    /// Cycles after which every RAM word was compared too ([`Pair::full_compares`]).
    pub full_compares: u64,
    pub coverage: Coverage,
}

/// Why a job did not pass.
#[derive(Debug)]
pub enum Failure {
    Mismatch(Box<Mismatch>),
    Rtl(RtlError),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Mismatch(m) => m.fmt(f),
            Failure::Rtl(e) => e.fmt(f),
        }
    }
}

/// Run one job in lockstep.
pub fn run_job(job: &Job, opts: &RunOpts) -> Result<Passed, Failure> {
    let mut stim = job.stimulus();
    lockstep(job, stim.as_mut(), opts)
}

/// Drive `stim` into the model and the RTL of `job.params` in lockstep until it ends or they
/// differ. `job` names the run in a report and gives its replay command.
pub fn lockstep(job: &Job, stim: &mut dyn Stimulus, opts: &RunOpts) -> Result<Passed, Failure> {
    let p = job.params;
    let mut pair = Pair::new(&p, opts.fault, opts.history).map_err(Failure::Rtl)?;
    pair.exhaustive = opts.exhaustive;
    if opts.coverage {
        pair.model.enable_coverage();
    }
    let mut inp = Inputs::idle(p.np);
    let mut mo = Outputs::new(p.np);
    loop {
        inp.clear();
        if !stim.next(&mut inp) {
            break;
        }
        if let Err(d) = pair.step(&inp, &mut mo) {
            let mut m = d.into_mismatch(job.label(), job.replay_command(opts.fault));
            if let Some(w) = opts.wave_window {
                m.wave = write_window(job, opts, m.cycle, w).ok();
            }
            return Err(Failure::Mismatch(Box::new(m)));
        }
        stim.observe(&inp, &mo);
    }
    Ok(Passed {
        cycles: pair.cycle,
        full_compares: pair.full_compares,
        coverage: pair.model.coverage().cloned().unwrap_or_default(),
    })
}

/// The model and the Verilated RTL of one parameter set, stepped together and compared after every
/// cycle: every output and every architectural register.
pub struct Pair {
    pub model: CapfcTop,
    pub rtl: RtlBlock,
    l: Layouts,
    /// Model and RTL: outputs, registers but RAM words, write ports, whole state.
    out: [Vec<u32>; 2],
    flops: [Vec<u32>; 2],
    writes: [Vec<u32>; 2],
    state: [Vec<u32>; 2],
    ring: Vec<Inputs>,
    /// Compare every RAM word every cycle (the reference the write-port comparison is tested
    /// against) instead of the writes.
    pub exhaustive: bool,
    /// The next cycle compares every word (the first, and the first after a restore).
    full_due: bool,
    /// Cycles whose whole state was compared (in the write-port comparison: the first, and those
    /// whose writes differed without the words then differing).
    pub full_compares: u64,
    /// Cycles stepped so far.
    pub cycle: u64,
}

/// The first difference of a [`Pair`], before it is given a name and a replay command.
pub struct Divergence {
    pub cycle: u64,
    pub when: &'static str,
    pub diffs: Vec<FieldDiff>,
    pub recent: Vec<(u64, String)>,
}

impl Divergence {
    pub fn into_mismatch(self, job: String, replay: String) -> Mismatch {
        Mismatch {
            job,
            cycle: self.cycle,
            when: self.when,
            diffs: self.diffs,
            recent: self.recent,
            replay,
            wave: None,
        }
    }
}

impl Pair {
    /// `history`: cycles of inputs a report shows.
    pub fn new(p: &BlockParams, fault: Option<Fault>, history: usize) -> Result<Pair, RtlError> {
        let rtl = RtlBlock::new(p)?;
        let mut model = CapfcTop::new(*p).expect("parameters of a built configuration are valid");
        model.inject_fault(fault);
        let l = Layouts::new(p);
        let two = |n: usize| [vec![0; n], vec![0; n]];
        Ok(Pair {
            model,
            rtl,
            out: two(l.outputs.words),
            flops: two(l.flops.words),
            writes: two(l.writes.words),
            state: two(l.state.words),
            ring: vec![Inputs::idle(p.np); history.max(1)],
            l,
            exhaustive: false,
            full_due: true,
            full_compares: 0,
            cycle: 0,
        })
    }

    /// Load the model's registers `t` into both sides (the RTL's through its packed state), the
    /// pair having stepped `cycle` cycles.
    pub fn restore(&mut self, t: &CapfcTop, cycle: u64) -> Result<(), ParamsMismatch> {
        if t.params != self.model.params {
            return Err(ParamsMismatch {
                snapshot: t.params,
                this: self.model.params,
            });
        }
        let fault = self.model.fault();
        self.model = t.clone();
        self.model.inject_fault(fault);
        let st = &mut self.state[0];
        pack_state(&self.model, &self.l.state, st);
        self.rtl.write_state(st);
        self.cycle = cycle;
        self.full_due = true;
        Ok(())
    }

    /// One cycle on both; `out` gets the model's outputs (equal to the RTL's unless this fails).
    pub fn step(&mut self, inp: &Inputs, out: &mut Outputs) -> Result<(), Divergence> {
        let p = self.model.params;
        self.model.clear_write_records();
        self.model.tick_cycle(inp, out);
        pack_outputs(&self.l.outputs, out, &mut self.out[0]);
        let hist = self.ring.len() as u64;
        self.ring[(self.cycle % hist) as usize].clone_from(inp);
        let cycle = self.cycle;
        self.cycle += 1;
        let out_ok = if self.exhaustive {
            self.rtl.step(inp, &mut self.out[1]);
            self.out[0] == self.out[1]
        } else {
            let [mw, rw] = &mut self.writes;
            self.rtl.step_writes(inp, &mut self.out[1], rw);
            let out_ok = self.out[0] == self.out[1];
            normalize_writes(rw);
            pack_writes(&self.model, &self.l.writes, mw);
            let [mf, rf] = &mut self.flops;
            self.rtl.read_flops(rf);
            pack_state(&self.model, &self.l.flops, mf);
            if out_ok && mf == rf && mw == rw && !self.full_due {
                return Ok(());
            }
            out_ok
        };
        // every word: always in the exhaustive comparison, else when something differed
        self.full_due = false;
        self.full_compares += 1;
        let [ms, rs] = &mut self.state;
        self.rtl.read_state(rs);
        pack_state(&self.model, &self.l.state, ms);
        if out_ok && ms == rs {
            return Ok(());
        }
        let (when, diffs) = if !out_ok {
            (
                "outputs",
                diff(&p, &self.l.outputs, &self.out[0], &self.out[1]),
            )
        } else {
            (
                "state after the clock edge",
                diff(&p, &self.l.state, ms, rs),
            )
        };
        let first = cycle.saturating_sub(hist - 1);
        let recent = (first..=cycle)
            .map(|c| (c, describe_inputs(&self.ring[(c % hist) as usize])))
            .collect();
        Err(Divergence {
            cycle,
            when,
            diffs,
            recent,
        })
    }
}

/// Run the job again from the start and write the RTL's VCD (Verilator's trace) and the model's
/// (the same signal names, `crate::wave`) from `cycle - w` to `cycle + w`.
fn write_window(job: &Job, opts: &RunOpts, cycle: u64, w: u64) -> Result<String, RtlError> {
    let p = job.params;
    let dir = opts.wave_dir.clone().unwrap_or_else(|| ".".into());
    let _ = std::fs::create_dir_all(&dir);
    let name = job.label().replace([' ', '='], "_");
    let rtl_path = dir
        .join(format!("mismatch_{name}_rtl.vcd"))
        .display()
        .to_string();
    let model_path = dir
        .join(format!("mismatch_{name}_model.vcd"))
        .display()
        .to_string();
    let trace_err = |_| RtlError::Trace(model_path.clone());
    let mut rtl = RtlBlock::new(&p)?;
    let mut model = CapfcTop::new(p).expect("valid");
    model.inject_fault(opts.fault);
    let l = Layouts::new(&p);
    let mut stim = job.stimulus();
    let mut inp = Inputs::idle(p.np);
    let mut mo = Outputs::new(p.np);
    let mut rw = vec![0u32; l.outputs.words];
    let start = cycle.saturating_sub(w);
    let mut wave: Option<ModelWave<std::io::BufWriter<std::fs::File>>> = None;
    for c in 0..=cycle + w {
        if c == start {
            rtl.open_trace(&rtl_path)?;
            let f = std::fs::File::create(&model_path).map_err(trace_err)?;
            wave = Some(ModelWave::new(std::io::BufWriter::new(f), &p).map_err(trace_err)?);
        }
        inp.clear();
        if !stim.next(&mut inp) {
            break;
        }
        if let Some(wv) = wave.as_mut() {
            model.outputs(&inp, &mut mo);
            wv.before_edge(c, &model, &inp, &mo).map_err(trace_err)?;
        }
        model.tick_cycle(&inp, &mut mo);
        if let Some(wv) = wave.as_mut() {
            wv.after_edge(c, &model, &inp).map_err(trace_err)?;
        }
        rtl.step(&inp, &mut rw);
        stim.observe(&inp, &mo);
    }
    rtl.close_trace();
    if let Some(mut wv) = wave {
        wv.flush().map_err(trace_err)?;
    }
    Ok(format!("{rtl_path} (RTL), {model_path} (model)"))
}

/// The jobs of a regression: every configuration × mode × seed, then the directed cases.
pub fn jobs(
    configs: &[(String, BlockParams)],
    modes: &[Mode],
    seeds: impl Iterator<Item = u64> + Clone,
    cycles: u64,
    directed_cases: &[String],
) -> Vec<Job> {
    let mut v = vec![];
    for (name, params) in configs {
        for &mode in modes {
            for seed in seeds.clone() {
                v.push(Job {
                    config: name.clone(),
                    params: *params,
                    mode,
                    kind: JobKind::Random { seed, cycles },
                });
            }
            for d in directed_cases {
                v.push(Job {
                    config: name.clone(),
                    params: *params,
                    mode,
                    kind: JobKind::Directed(d.clone()),
                });
            }
        }
    }
    v
}

/// Keep job j when `j % n == k - 1` (`--shard k/n`, k from 1).
pub fn shard(jobs: Vec<Job>, k: usize, n: usize) -> Vec<Job> {
    jobs.into_iter()
        .enumerate()
        .filter(|(j, _)| j % n == k - 1)
        .map(|(_, job)| job)
        .collect()
}
