//! The block's lockstep regression (`capfc cosim`, and `make soak` in shards of it): traffic
//! through the block's model and its Verilated RTL in lockstep ([`LockstepV3`]: every register,
//! output and RAM write compared every cycle), over parameter sets, both algorithms, random seeds
//! and the curated golden sets' stimulus, in jobs that shards divide (`scripts/soak.sh`).
//!
//! A random job is one seed of one parameter set in one algorithm: legal random traffic
//! ([`golden_v3::random_clocked`], the generator of the random golden sets). Even seeds run the
//! contention traffic (two hot output ports on one sort engine, clears meeting sorts), odd ones
//! the plain traffic; at a port count that is not a power of two every job also drives departures
//! and enqueues naming ports NP and above. A directed job replays a curated golden set's stimulus
//! (`golden_v3::curated`: each named corner, its generator having shown that the corner
//! happened). A job fails on the first mismatch (or, random, a rule of the contract its outputs
//! break) and its report names the command that replays it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::block::{BlockParams, Mode};
use crate::cosim_v3::{InputPacker, LockstepV3};
use crate::golden_v3;
use crate::v3::fault::Fault;

/// What a job drives.
#[derive(Debug, Clone, PartialEq)]
pub enum Traffic {
    /// Random legal traffic of seed `seed`, `cycles` cycles (the reset and the configuration
    /// included).
    Random { seed: u64, cycles: u64 },
    /// The stimulus of the curated golden set of this name (`golden_v3::curated`).
    Set(String),
}

/// One job: `traffic` on parameter set `config` in `mode`.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub config: String,
    pub params: BlockParams,
    pub mode: Mode,
    pub traffic: Traffic,
}

impl Job {
    /// The traffic has contention (random, even seeds).
    pub fn contention(&self) -> bool {
        matches!(self.traffic, Traffic::Random { seed, .. } if seed.is_multiple_of(2))
    }

    /// The traffic names ports NP and above (random, a port count that is not a power of two).
    pub fn stray(&self) -> bool {
        matches!(self.traffic, Traffic::Random { .. }) && !self.params.np.is_power_of_two()
    }

    pub fn label(&self) -> String {
        match &self.traffic {
            Traffic::Random { seed, cycles } => format!(
                "{} {} seed {seed} ({cycles} cycles{}{})",
                self.config,
                self.mode.name(),
                if self.contention() {
                    ", contention"
                } else {
                    ""
                },
                if self.stray() { ", stray ports" } else { "" }
            ),
            Traffic::Set(name) => format!("{} {} golden set {name}", self.config, self.mode.name()),
        }
    }

    /// The command that runs this job alone (`fault`: the model's fault it ran with).
    pub fn replay(&self, fault: Option<Fault>) -> String {
        let what = match &self.traffic {
            Traffic::Random { seed, cycles } => {
                format!("--seed {seed} --cycles {cycles} --directed none")
            }
            Traffic::Set(name) => format!("--seeds 0 --directed {name}"),
        };
        format!(
            "CAPFC_V3_CONFIGS={c} cargo run --release -- cosim --config {c} --algo {} {what}{}",
            self.mode.name(),
            fault.map(|f| format!(" --fault {f}")).unwrap_or_default(),
            c = self.config,
        )
    }
}

/// The random jobs of `configs` × `seeds` × `modes`, in that order of nesting (each seed's modes
/// side by side, so that a shard has both algorithms).
pub fn jobs(
    configs: &[(String, BlockParams)],
    modes: &[Mode],
    seeds: std::ops::RangeInclusive<u64>,
    cycles: u64,
) -> Vec<Job> {
    let mut v = vec![];
    for (name, p) in configs {
        for seed in seeds.clone() {
            for &mode in modes {
                v.push(Job {
                    config: name.clone(),
                    params: *p,
                    mode,
                    traffic: Traffic::Random { seed, cycles },
                });
            }
        }
    }
    v
}

/// The directed jobs: every curated golden set (`golden_v3::curated`, in its order) whose
/// parameters are those of one of `configs` and whose algorithm is one of `modes`; `names`
/// narrows them to those sets (each must be curated).
pub fn directed_jobs(
    configs: &[(String, BlockParams)],
    modes: &[Mode],
    names: Option<&[String]>,
) -> Result<Vec<Job>, SoakError> {
    let curated = golden_v3::curated();
    if let Some(ns) = names {
        if let Some(n) = ns.iter().find(|n| !curated.iter().any(|c| &c.name == *n)) {
            return Err(SoakError::NoSet {
                name: n.clone(),
                sets: curated.iter().map(|c| c.name.clone()).collect(),
            });
        }
    }
    let mut v = vec![];
    for c in curated {
        if names.is_some_and(|ns| !ns.contains(&c.name)) || !modes.contains(&c.source.mode()) {
            continue;
        }
        if let Some((config, params)) = configs.iter().find(|(_, p)| *p == c.params) {
            v.push(Job {
                config: config.clone(),
                params: *params,
                mode: c.source.mode(),
                traffic: Traffic::Set(c.name),
            });
        }
    }
    Ok(v)
}

/// Shard `k` of `n` (k from 1): job `j` when `j mod n = k - 1`.
pub fn shard(jobs: Vec<Job>, k: usize, n: usize) -> Vec<Job> {
    jobs.into_iter()
        .enumerate()
        .filter(|(j, _)| j % n == k - 1)
        .map(|(_, job)| job)
        .collect()
}

/// Why a job failed.
#[derive(Debug, thiserror::Error)]
pub enum SoakError {
    #[error("{label}: the RTL and the model differ from cycle {cycle} ({total} differences; first: {first}); replay: {replay}")]
    Mismatch {
        label: String,
        cycle: u64,
        total: u64,
        first: String,
        replay: String,
    },
    #[error("{label}: the block broke the contract: {what}; replay: {replay}")]
    Contract {
        label: String,
        what: String,
        replay: String,
    },
    #[error("[golden] {dir}: {what}")]
    Set { dir: String, what: String },
    #[error("[cosim] --directed {name}: no such golden set (the curated sets: {})", sets.join(", "))]
    NoSet { name: String, sets: Vec<String> },
    #[error("{label}: the golden set's stimulus could not be built: {source}")]
    Stim {
        label: String,
        #[source]
        source: Box<crate::faults::FaultsError>,
    },
    #[error("{label}: the lockstep could not run: {source}")]
    Lockstep {
        label: String,
        #[source]
        source: Box<crate::cosim_v3::LockstepError>,
    },
}

/// What replaying a set of the block on its Verilated RTL gave ([`replay_set`]).
#[derive(Debug, Clone)]
pub struct SetReplay {
    /// cycles driven
    pub cycles: u64,
    /// lines of `expect.hex` (its comments aside)
    pub lines: usize,
    /// the first line of `expect.hex` (from 1, its comments aside) the RTL's outputs do not give:
    /// (line, the set's, the RTL's); `None`: every line given
    pub first: Option<(usize, String, String)>,
}

/// Replay the block's golden set in `dir` (format 3) on the Verilated RTL alone, the model not
/// involved: `stim.hex` drives it cycle by cycle, and its outputs, written as `expect.hex` is (a
/// line at cycle 0 and at every change), must be the set's, line for line.
pub fn replay_set(dir: &std::path::Path) -> Result<SetReplay, SoakError> {
    let bad = |what: String| SoakError::Set {
        dir: dir.display().to_string(),
        what,
    };
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| bad(format!("{f}: {e}")));
    let m: golden_v3::Manifest3 = serde_json::from_str(&read("manifest.json")?).map_err(|e| {
        bad(format!(
            "manifest.json: {e} (a set of format 3 is the block's)"
        ))
    })?;
    let stim = crate::faults::parse_stim(&m.params, &read("stim.hex")?, m.cycles)
        .map_err(|e| bad(e.to_string()))?;
    let want = crate::faults::body(&read("expect.hex")?);
    let mut rtl = crate::dut_v3::RtlTopV3::new(&m.params).map_err(|e| bad(e.to_string()))?;
    let mut packer = InputPacker::default();
    let mut words = vec![0u32; rtl.layout.input_words];
    let mut outw = vec![0u32; rtl.layout.output_words];
    let mut out = crate::v3::top::TopOut::default();
    let (mut got, mut prev) = (String::new(), None::<String>);
    for (c, inp) in stim.iter().enumerate() {
        words.fill(0);
        packer
            .pack(&rtl, inp, &mut words)
            .map_err(|e| bad(e.to_string()))?;
        rtl.step(&words, &mut outw);
        crate::cosim_v3::unpack_outputs(&rtl, &outw, &mut out).map_err(|e| bad(e.to_string()))?;
        let h = crate::faults::out_hex(&out);
        if prev.as_ref() != Some(&h) {
            got.push_str(&format!("{c:08x}_{h}\n"));
            prev = Some(h);
        }
    }
    let first = want
        .lines()
        .map(Some)
        .chain(std::iter::repeat(None))
        .zip(got.lines().map(Some).chain(std::iter::repeat(None)))
        .take(want.lines().count().max(got.lines().count()))
        .enumerate()
        .find(|(_, (w, g))| w != g)
        .map(|(k, (w, g))| {
            (
                k + 1,
                w.unwrap_or("(none)").to_string(),
                g.unwrap_or("(none)").to_string(),
            )
        });
    Ok(SetReplay {
        cycles: stim.len() as u64,
        lines: want.lines().count(),
        first,
    })
}

/// What a job that passed checked.
#[derive(Debug, Clone, Default)]
pub struct JobReport {
    /// cycles in lockstep
    pub cycles: u64,
    /// cycles whose RAM words were all compared (the others compare the RAMs' writes)
    pub full_compares: u64,
    /// the traffic's corners, counted (each of the set's required ones listed)
    pub corners: BTreeMap<String, u64>,
}

/// The lockstep of a job, shared with the generator's clock.
struct Side {
    l: LockstepV3,
    packer: InputPacker,
    words: Vec<u32>,
    err: Option<crate::cosim_v3::LockstepError>,
}

/// Run one job: its traffic through model and RTL in lockstep, to its end or its first mismatch.
/// `exhaustive`: compare every RAM word every cycle (slower; the same verdict).
pub fn run_job(j: &Job, fault: Option<Fault>, exhaustive: bool) -> Result<JobReport, SoakError> {
    match &j.traffic {
        Traffic::Random { seed, cycles } => run_random(j, *seed, *cycles, fault, exhaustive),
        Traffic::Set(name) => run_set(j, name, fault, exhaustive),
    }
}

/// The error of job `j`'s lockstep that could not run.
fn lockstep_error(j: &Job) -> impl Fn(crate::cosim_v3::LockstepError) -> SoakError + Copy + '_ {
    |source| SoakError::Lockstep {
        label: j.label(),
        source: Box::new(source),
    }
}

/// The stimulus of the curated golden set `name` (job `j`'s), every cycle's inputs.
fn set_stim(j: &Job, name: &str) -> Result<crate::faults::Stim, SoakError> {
    let c = golden_v3::curated()
        .into_iter()
        .find(|c| c.name == name)
        .ok_or_else(|| SoakError::NoSet {
            name: name.to_string(),
            sets: golden_v3::curated().into_iter().map(|c| c.name).collect(),
        })?;
    crate::faults::Stim::of_set(name, &c.params, &c.source).map_err(|e| SoakError::Stim {
        label: j.label(),
        source: Box::new(e),
    })
}

/// A directed job: the golden set's stimulus, cycle by cycle, in lockstep.
fn run_set(
    j: &Job,
    name: &str,
    fault: Option<Fault>,
    exhaustive: bool,
) -> Result<JobReport, SoakError> {
    let lock = lockstep_error(j);
    let stim = set_stim(j, name)?;
    let mut l = LockstepV3::new(&j.params, 4).map_err(lock)?;
    l.exhaustive = exhaustive;
    l.model.set_fault(fault);
    let mut packer = InputPacker::default();
    let mut words = vec![0u32; l.rtl.layout.input_words];
    for inp in &stim.cycles {
        words.fill(0);
        packer
            .pack(&l.rtl, inp, &mut words)
            .and_then(|()| l.cycle_in(inp, &words))
            .map_err(lock)?;
        if let Some((cycle, name, rtl, model)) = l.report.mismatches.first() {
            return Err(SoakError::Mismatch {
                label: j.label(),
                cycle: *cycle,
                total: l.report.total_mismatches,
                first: format!("{name}: RTL {rtl}, model {model}"),
                replay: j.replay(fault),
            });
        }
    }
    Ok(JobReport {
        cycles: stim.cycles.len() as u64,
        full_compares: l.full_cycles,
        corners: BTreeMap::from([("golden_sets_replayed".to_string(), 1)]),
    })
}

/// A random job: the generator's traffic, answering to the outputs, in lockstep.
fn run_random(
    j: &Job,
    seed: u64,
    cycles: u64,
    fault: Option<Fault>,
    exhaustive: bool,
) -> Result<JobReport, SoakError> {
    let lock = lockstep_error(j);
    let mut l = LockstepV3::new(&j.params, 4).map_err(lock)?;
    l.exhaustive = exhaustive;
    let words = vec![0u32; l.rtl.layout.input_words];
    let side = Rc::new(RefCell::new(Side {
        l,
        packer: InputPacker::default(),
        words,
        err: None,
    }));
    let s2 = Rc::clone(&side);
    let mut first = true;
    // (the generator's model is the lockstep's: swapped in for the cycle, so that the model runs
    // once and the traffic answers to the outputs the RTL is compared with)
    let clock: golden_v3::Clock = Box::new(move |inp, top, out| {
        let s = &mut *s2.borrow_mut();
        if first {
            top.set_fault(fault);
            first = false;
        }
        std::mem::swap(top, &mut s.l.model);
        s.words.fill(0);
        let r = s
            .packer
            .pack(&s.l.rtl, inp, &mut s.words)
            .and_then(|()| s.l.cycle_in(inp, &s.words));
        std::mem::swap(top, &mut s.l.model);
        out.clone_from(s.l.model_out());
        if let Err(e) = r {
            s.err = Some(e);
        }
        s.err.is_none() && s.l.report.total_mismatches == 0
    });
    let c = golden_v3::random_clocked(
        &j.params,
        seed,
        cycles,
        j.mode,
        j.contention(),
        j.stray(),
        clock,
    );
    let s = side.borrow();
    if let Some(e) = &s.err {
        return Err(lock(e.clone()));
    }
    let rep = &s.l.report;
    if let Some((cycle, name, rtl, model)) = rep.mismatches.first() {
        return Err(SoakError::Mismatch {
            label: j.label(),
            cycle: *cycle,
            total: rep.total_mismatches,
            first: format!("{name}: RTL {rtl}, model {model}"),
            replay: j.replay(fault),
        });
    }
    if let Some(w) = c.wrong.first() {
        return Err(SoakError::Contract {
            label: j.label(),
            what: w.clone(),
            replay: j.replay(fault),
        });
    }
    Ok(JobReport {
        cycles: c.cycles,
        full_compares: s.l.full_cycles,
        corners: c.corners,
    })
}

/// The two waveforms of a mismatch's window ([`write_window`]).
#[derive(Debug, Clone)]
pub struct Window {
    /// the RTL's VCD (Verilator's trace)
    pub rtl: String,
    /// the model's VCD (`wave::TopWave`, the RTL's signal names)
    pub model: String,
}

/// One cycle of a window's run: the model (with its fault) and the RTL side by side, each
/// dumping its waveform inside the window.
struct WindowRun {
    p: BlockParams,
    rtl: crate::dut_v3::RtlTopV3,
    packer: InputPacker,
    words: Vec<u32>,
    outw: Vec<u32>,
    paths: Window,
    wave: Option<crate::wave::TopWave<std::io::BufWriter<std::fs::File>>>,
    start: u64,
    end: u64,
    c: u64,
    err: Option<String>,
}

impl WindowRun {
    /// Cycle `self.c` of `top` with `inp` (its outputs into `out`); false once the window is
    /// written or something failed.
    fn cycle(
        &mut self,
        top: &mut crate::v3::top::Top,
        inp: &crate::v3::top::TopIn,
        out: &mut crate::v3::top::TopOut,
    ) -> bool {
        let inside = self.c >= self.start;
        if self.c == self.start {
            if let Err(e) = self.rtl.open_trace(&self.paths.rtl) {
                self.err = Some(e.to_string());
                return false;
            }
        }
        let before = inside.then(|| crate::wave::top_regs(top));
        top.cycle_into(inp, out);
        self.words.fill(0);
        if let Err(e) = self.packer.pack(&self.rtl, inp, &mut self.words) {
            self.err = Some(e.to_string());
            return false;
        }
        self.rtl.step(&self.words, &mut self.outw);
        if let Some(before) = before {
            let ports = crate::wave::top_ports(&self.p, inp, out);
            let after = crate::wave::top_regs(top);
            let r = (|| -> std::io::Result<()> {
                if self.wave.is_none() {
                    let f = std::fs::File::create(&self.paths.model)?;
                    self.wave = Some(crate::wave::TopWave::new(
                        std::io::BufWriter::new(f),
                        &ports,
                        &after,
                    )?);
                }
                if let Some(w) = self.wave.as_mut() {
                    w.cycle(self.c, &ports, &before, &after)?;
                }
                Ok(())
            })();
            if let Err(e) = r {
                self.err = Some(format!("{}: {e}", self.paths.model));
                return false;
            }
        }
        self.c += 1;
        self.c <= self.end
    }
}

/// Run job `j` again from its start, the model with `fault`, and write the RTL's waveform
/// (Verilator's trace) and the model's (the same signal names) from cycle `cycle - w` to
/// `cycle + w` into `dir`, named after the job.
pub fn write_window(
    j: &Job,
    fault: Option<Fault>,
    cycle: u64,
    w: u64,
    dir: &std::path::Path,
) -> Result<Window, SoakError> {
    let bad = |what: String| SoakError::Set {
        dir: dir.display().to_string(),
        what,
    };
    std::fs::create_dir_all(dir).map_err(|e| bad(e.to_string()))?;
    let name: String = j
        .label()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = |side: &str| {
        dir.join(format!("mismatch_{name}_{side}.vcd"))
            .display()
            .to_string()
    };
    let rtl = crate::dut_v3::RtlTopV3::new(&j.params).map_err(|e| bad(e.to_string()))?;
    let run = WindowRun {
        p: j.params,
        packer: InputPacker::default(),
        words: vec![0u32; rtl.layout.input_words],
        outw: vec![0u32; rtl.layout.output_words],
        rtl,
        paths: Window {
            rtl: path("rtl"),
            model: path("model"),
        },
        wave: None,
        start: cycle.saturating_sub(w),
        end: cycle + w,
        c: 0,
        err: None,
    };
    let run = Rc::new(RefCell::new(run));
    match &j.traffic {
        Traffic::Set(name) => {
            let stim = set_stim(j, name)?;
            let mut top = crate::v3::top::Top::new(j.params);
            top.set_fault(fault);
            let mut out = crate::v3::top::TopOut::default();
            let mut r = run.borrow_mut();
            for inp in &stim.cycles {
                if !r.cycle(&mut top, inp, &mut out) {
                    break;
                }
            }
        }
        Traffic::Random { seed, cycles } => {
            let r2 = Rc::clone(&run);
            let mut first = true;
            let clock: golden_v3::Clock = Box::new(move |inp, top, out| {
                if first {
                    top.set_fault(fault);
                    first = false;
                }
                r2.borrow_mut().cycle(top, inp, out)
            });
            golden_v3::random_clocked(
                &j.params,
                *seed,
                *cycles,
                j.mode,
                j.contention(),
                j.stray(),
                clock,
            );
        }
    }
    let mut r = run.borrow_mut();
    r.rtl.close_trace();
    if let Some(w) = r.wave.as_mut() {
        w.flush().map_err(|e| bad(e.to_string()))?;
    }
    if let Some(e) = r.err.take() {
        return Err(bad(e));
    }
    if r.wave.is_none() {
        return Err(bad(format!("the job ended before cycle {}", r.start)));
    }
    Ok(r.paths.clone())
}
