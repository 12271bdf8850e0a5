//! The kill matrix of the v3 block's fault catalogue (`capfc faults`, `tests/faults.rs`).
//!
//! For each deliberate bug of [`crate::v3::fault`] it finds what catches it:
//! - the lockstep: the faulty model beside the unchanged Verilated RTL ([`LockstepV3`], every
//!   register and output compared every cycle), on the stimulus of the golden sets and of random
//!   traffic through the lanes;
//! - the golden sets: each set's stimulus run through the faulty model, its expected outputs
//!   written from it, and the set so made replayed on the unchanged RTL: first from Rust (the
//!   correct model beside the faulty one, to find the first differing cycle and output), then the
//!   first set that catches the fault by the plain Verilog testbench alone (`make replay`, Icarus
//!   or Verilator), which is what a team that takes our vectors into its simulator runs.
//!
//! A set's stimulus is traffic that reacts to the block's answers, so the faulty model would
//! generate different stimulus once its outputs differ; up to the first differing output both
//! stimuli are the same cycle for cycle, which is why writing the faulty model's outputs for the
//! set's stimulus catches a fault exactly where generating the whole set with it would.
//!
//! A row counts as killed only when the lockstep and a golden set replayed on the Verilog
//! testbench both catch the fault, and the fault fired (its rule's case happened, the wrong value
//! given: [`crate::v3::fault::fired`]) no later than the cycle the lockstep caught it. A fault
//! nothing catches means a rule that no test checks: [`UNKILLED`] lists each such fault with the
//! reason, and the test requires every other one killed.

pub mod traffic;
pub mod v2;

use crate::block::{BlockParams, Mode};
use crate::cosim_v3::{InputPacker, LockstepV3};
use crate::golden_v3::{self, Manifest3, SetFilesV3, SourceV3};
use crate::v3::fault::{self as vf, Fault};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::{port_width, RegSink, RegStrings};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub use v2::{verilog_replay, VerilogError, VerilogKill};

/// Why the matrix (or a stimulus of it) could not be had: what could not be read, built, run or
/// written, and where.
#[derive(Debug, thiserror::Error)]
pub enum FaultsError {
    /// A line of a set's `stim.hex` that does not read back (`line`: among the data lines,
    /// from 1).
    #[error("[faults] stim.hex line {line}: {source}")]
    Stim {
        line: usize,
        #[source]
        source: StimError,
    },
    /// The stimulus is longer than the set.
    #[error("[faults] stim.hex line {line}: after the set's {cycles} cycles")]
    AfterEnd { line: usize, cycles: u64 },
    #[error(transparent)]
    Golden(#[from] golden_v3::GoldenV3Error),
    #[error(transparent)]
    GoldenV2(#[from] crate::golden::GoldenError),
    /// A set's manifest that does not (de)serialize.
    #[error("[faults] manifest: {0}")]
    Manifest(#[from] serde_json::Error),
    #[error(transparent)]
    Lockstep(#[from] crate::cosim_v3::LockstepError),
    #[error(transparent)]
    Rtl(#[from] crate::dut::RtlError),
    /// A lane the matrix's own traffic offered that the block would never take.
    #[error(transparent)]
    Lane(#[from] capfc_block::error::LaneError),
    #[error("[faults] {set}: not a golden set")]
    NotGolden { set: String },
    /// The correct model's outputs over a set's stimulus are not the set's.
    #[error("[faults] {set}: the model's outputs over the set's stimulus are not its expect.hex (the stimulus read back wrong?)")]
    ReadBack { set: String },
    /// The RTL's replay of a faulty v2 set failed without naming a cycle.
    #[error("[faults] {set}: {failed} cycles failed but none was reported")]
    Unreported { set: String, failed: u64 },
    /// A faulty set's directory could not be written.
    #[error("[faults] {dir}: {source}")]
    Write {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    /// The row of a fault could not be had.
    #[error("{fault}: {source}")]
    Fault {
        fault: &'static str,
        #[source]
        source: Box<FaultsError>,
    },
}

/// What is wrong with a line of a set's `stim.hex`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StimError {
    #[error("no '_'")]
    NoUnderscore,
    #[error("cycle: {0}")]
    Cycle(#[source] std::num::ParseIntError),
    #[error("not a digit {0:?}")]
    NotDigit(char),
    #[error("cycle {0} out of order")]
    OutOfOrder(u64),
    #[error(transparent)]
    Input(#[from] crate::replay::InputError),
}

/// For the layers that still report errors as text.
impl From<FaultsError> for String {
    fn from(e: FaultsError) -> String {
        e.to_string()
    }
}

/// The faults no current stimulus catches on both sides, each with the reason. The matrix shows
/// them NOT CAUGHT; the test requires every fault not listed here killed, and each listed one not
/// killed (so that the list follows the sets).
pub const UNKILLED: &[(Fault, &str)] = &[];

/// What caught a fault: the run or set, its first difference, and when the fault first fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kill {
    /// The stimulus (a golden set's name, or a random run's).
    pub by: String,
    pub cycle: u64,
    /// The first differing register or output (RTL name) and its values.
    pub signal: String,
    /// The cycle the fault first gave a wrong value in this run, and how often it did.
    pub fired_at: Option<u64>,
    pub fired: u64,
}

/// One row of the matrix.
#[derive(Debug, Clone)]
pub struct Row {
    pub fault: Fault,
    /// The first lockstep run that catches it, and how many of the runs do.
    pub lockstep: Option<Kill>,
    pub lockstep_kills: usize,
    /// The times the fault fired over the runs made (all of them when none caught it).
    pub fired: u64,
    /// The first golden set that catches it (from Rust), and how many do.
    pub golden: Option<Kill>,
    pub golden_kills: usize,
    /// `Some(Ok)`: the Verilog testbench failed on the first catching set as it must;
    /// `Some(Err)`: it did not (or could not run); `None`: not asked for, or no set catches it.
    pub verilog: Option<Result<VerilogKill, VerilogError>>,
}

impl Row {
    /// Caught by the lockstep after the fault fired, and by a golden set (on the Verilog
    /// testbench when that was asked for).
    pub fn killed(&self, plan: &Plan) -> bool {
        let fired = |k: &Kill| k.fired_at.is_some_and(|c| c <= k.cycle);
        self.lockstep.as_ref().is_some_and(fired)
            && self.golden.as_ref().is_some_and(fired)
            && match (&plan.verilog, &self.verilog) {
                (None, _) => true,
                (Some(_), v) => matches!(v, Some(Ok(_))),
            }
    }
}

/// A stimulus: every cycle's inputs, and the golden set's files when it is one.
#[derive(Debug, Clone)]
pub struct Stim {
    pub name: String,
    pub params: BlockParams,
    pub cycles: Vec<TopIn>,
    /// The set's files (`None`: a random run for the lockstep only).
    pub files: Option<SetFilesV3>,
}

/// The inputs' fields as `TopIn::visit` lists them (name, width): the order of a stimulus line's
/// concatenation, the first field most significant.
struct Fields(Vec<(String, usize)>);

impl RegSink for Fields {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, _: &[u64], width: usize) {
        self.0.push((name.to_string(), width));
    }
}

/// A set's `stim.hex` as every cycle's inputs (`cycles` of them): a cycle without a line drives
/// every input 0 but `pfc_ready`, held from the last line (all ones before the first).
pub fn parse_stim(p: &BlockParams, text: &str, cycles: u64) -> Result<Vec<TopIn>, FaultsError> {
    let np = p.np;
    let mut fields = Fields(vec![]);
    TopIn::idle(np).visit(p.sw as usize, port_width(np) as usize, &mut fields);
    let total: usize = fields.0.iter().map(|f| f.1).sum();
    // each field's lowest bit in the concatenation (the last field is least significant)
    let mut lo = vec![0; fields.0.len()];
    let mut at = 0;
    for (k, f) in fields.0.iter().enumerate().rev() {
        lo[k] = at;
        at += f.1;
    }
    let mut out = Vec::with_capacity(cycles as usize);
    let mut ready = vec![true; np];
    let mut bits = vec![false; total];
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .enumerate()
        .peekable();
    for c in 0..cycles {
        let mut inp = TopIn::idle(np);
        inp.pfc_ready.clone_from(&ready);
        if let Some((n, l)) = lines.peek().copied() {
            let bad = |source| FaultsError::Stim {
                line: n + 1,
                source,
            };
            let (cy, hex) = l.split_once('_').ok_or(bad(StimError::NoUnderscore))?;
            let cy = u64::from_str_radix(cy, 16).map_err(|e| bad(StimError::Cycle(e)))?;
            if cy == c {
                lines.next();
                let digits: Vec<u32> = hex
                    .trim()
                    .chars()
                    .rev()
                    .map(|d| d.to_digit(16).ok_or(d))
                    .collect::<Result<_, _>>()
                    .map_err(|d| bad(StimError::NotDigit(d)))?;
                for (b, bit) in bits.iter_mut().enumerate() {
                    *bit = digits.get(b / 4).is_some_and(|d| d >> (b % 4) & 1 == 1);
                }
                let get =
                    |name: &str, off: usize, w: u32| -> Result<u64, crate::replay::InputError> {
                        let k = fields.0.iter().position(|f| f.0 == name).ok_or_else(|| {
                            crate::replay::InputError::NoPort {
                                within: "stim.hex".to_string(),
                                name: name.to_string(),
                            }
                        })?;
                        Ok((0..w as usize)
                            .fold(0u64, |a, b| a | u64::from(bits[lo[k] + off + b]) << b))
                    };
                crate::replay::top_in_into(p, &get, &mut inp)
                    .map_err(|e| bad(StimError::Input(e)))?;
                ready.clone_from(&inp.pfc_ready);
            } else if cy < c {
                return Err(bad(StimError::OutOfOrder(cy)));
            }
        }
        out.push(inp);
    }
    if let Some((n, _)) = lines.next() {
        return Err(FaultsError::AfterEnd {
            line: n + 1,
            cycles,
        });
    }
    Ok(out)
}

impl Stim {
    /// A golden set's stimulus, with its files.
    pub fn of_set(name: &str, p: &BlockParams, source: &SourceV3) -> Result<Stim, FaultsError> {
        let files = golden_v3::build(name, p, source)?;
        let m: Manifest3 = serde_json::from_str(&files.manifest)?;
        Ok(Stim {
            name: name.to_string(),
            params: *p,
            cycles: parse_stim(p, &files.stim, m.cycles)?,
            files: Some(files),
        })
    }

    /// Random traffic through the lanes (`golden_v3::random_lines`), for the lockstep only.
    pub fn random(
        p: &BlockParams,
        seed: u64,
        cycles: u64,
        mode: Mode,
    ) -> Result<Stim, FaultsError> {
        let (stim, _) = golden_v3::random_lines(p, seed, cycles, mode);
        Ok(Stim {
            name: format!("random_{}_np{}_seed{seed}_{cycles}", mode.name(), p.np),
            params: *p,
            cycles: parse_stim(p, &stim, cycles)?,
            files: None,
        })
    }
}

/// Cycles of each of the matrix's own aligned sets ([`traffic::aligned`]).
pub const ALIGNED_CYCLES: u64 = 8000;

/// What the matrix runs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The lockstep's stimuli (at parameter sets whose RTL is built).
    pub lockstep: Vec<Stim>,
    /// The golden sets.
    pub golden: Vec<Stim>,
    /// Stop at the first catch of each kind (the test); else count every catch (the report).
    pub first_only: bool,
    /// Confirm the first golden catch on this simulator's Verilog testbench (`icarus`,
    /// `verilator`).
    pub verilog: Option<String>,
}

fn np_params(np: usize) -> BlockParams {
    BlockParams::from_values(&[np as u32, 14, 20, 16, 0, 8, 2])
}

impl Plan {
    /// Every curated golden set (`golden_v3::curated`) and the matrix's own aligned sets
    /// ([`traffic::aligned`] at 4 ports in both algorithms: seeds 1 and 2 of the steady kind, 1 to 4
    /// of the sawtooth) for both sides (the lockstep runs those
    /// whose parameters are built), and random traffic at 4 ports, seeds `2..=seeds + 1` (seed 1
    /// is a curated set's) in both algorithms, `cycles` cycles each, for the lockstep.
    pub fn standard(seeds: u64, cycles: u64) -> Result<Plan, FaultsError> {
        let built: Vec<BlockParams> = crate::dut_v3::available()
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        let mut golden = vec![];
        for c in golden_v3::curated() {
            golden.push(Stim::of_set(&c.name, &c.params, &c.source)?);
        }
        for (saw, seeds) in [(false, 2), (true, 4)] {
            for seed in 1..=seeds {
                for mode in [Mode::StopMax, Mode::StopCal] {
                    golden.push(traffic::aligned(
                        &np_params(4),
                        seed,
                        ALIGNED_CYCLES,
                        mode,
                        saw,
                    )?);
                }
            }
        }
        let mut lockstep: Vec<Stim> = golden
            .iter()
            .filter(|s| built.contains(&s.params))
            .cloned()
            .collect();
        let p4 = np_params(4);
        if seeds > 0 && built.contains(&p4) {
            for seed in 2..=seeds + 1 {
                for mode in [Mode::StopMax, Mode::StopCal] {
                    lockstep.push(Stim::random(&p4, seed, cycles, mode)?);
                }
            }
        }
        Ok(Plan {
            lockstep,
            golden,
            first_only: false,
            verilog: None,
        })
    }
}

/// The faulty model beside the RTL over `s`: the first mismatch, if any, and the times the fault
/// fired.
fn lockstep_run(f: Fault, s: &Stim) -> Result<(Option<Kill>, u64), FaultsError> {
    let mut l = LockstepV3::new(&s.params, 4)?;
    l.model.set_fault(Some(f));
    let mut packer = InputPacker::default();
    let mut words = vec![0u32; l.rtl.layout.input_words];
    vf::reset_fired();
    let mut fired_at = None;
    for (c, inp) in s.cycles.iter().enumerate() {
        words.fill(0);
        packer.pack(&l.rtl, inp, &mut words)?;
        l.cycle_in(inp, &words)?;
        if fired_at.is_none() && vf::fired() > 0 {
            fired_at = Some(c as u64);
        }
        if let Some((cycle, name, rtl, model)) = l.report.mismatches.first() {
            let k = Kill {
                by: s.name.clone(),
                cycle: *cycle,
                signal: format!("{name}: RTL {rtl}, model {model}"),
                fired_at,
                fired: vf::fired(),
            };
            return Ok((Some(k), vf::fired()));
        }
    }
    Ok((None, vf::fired()))
}

/// The outputs of a cycle as a line of `expect.hex` (`golden_v3`'s format: the concatenation in
/// hexadecimal, the first output most significant).
pub(crate) fn out_hex(out: &TopOut) -> String {
    let mut h = traffic::Hex(vec![]);
    out.visit(&mut h);
    traffic::hex(&h.0)
}

/// The expected outputs' lines of `cycles` through `top` (one line per change, and cycle 0).
pub(crate) fn expect_lines(
    top: &mut Top,
    cycles: &[TopIn],
    mut each: impl FnMut(u64, &TopOut),
) -> String {
    let (mut text, mut prev) = (String::new(), None::<String>);
    let mut out = TopOut::default();
    for (c, inp) in cycles.iter().enumerate() {
        top.cycle_into(inp, &mut out);
        each(c as u64, &out);
        let h = out_hex(&out);
        if prev.as_ref() != Some(&h) {
            let _ = writeln!(text, "{c:08x}_{h}");
            prev = Some(h);
        }
    }
    text
}

/// The body of a set file (its lines but the leading comments).
pub(crate) fn body(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with("//"))
        .fold(String::new(), |mut s, l| {
            s.push_str(l);
            s.push('\n');
            s
        })
}

/// Where the faulty version of set `set` goes (a name of its own, so that its testbench build
/// does not overwrite the real set's).
pub fn faulty_dir(root: &Path, f: Fault, set: &str) -> PathBuf {
    root.join(format!("{set}__{}", f.name()))
}

/// Set `s` with its expected outputs written by the faulty model, under `root`, and its first
/// difference from the right outputs (the RTL's: the set's own expected outputs, which the
/// correct model writes again here and must match). `None`: the set does not catch the fault.
fn golden_run(f: Fault, s: &Stim, root: &Path) -> Result<Option<Kill>, FaultsError> {
    let files = s.files.as_ref().ok_or_else(|| FaultsError::NotGolden {
        set: s.name.clone(),
    })?;
    let mut right = Top::new(s.params);
    let mut right_outs = Vec::with_capacity(s.cycles.len());
    let want = expect_lines(&mut right, &s.cycles, |_, o| right_outs.push(o.clone()));
    if want != body(&files.expect) {
        return Err(FaultsError::ReadBack {
            set: s.name.clone(),
        });
    }
    let mut bad = Top::new(s.params);
    bad.set_fault(Some(f));
    vf::reset_fired();
    let (mut first, mut fired_at) = (None, None);
    let got = expect_lines(&mut bad, &s.cycles, |c, o| {
        if fired_at.is_none() && vf::fired() > 0 {
            fired_at = Some(c);
        }
        if first.is_none() && *o != right_outs[c as usize] {
            let (mut a, mut b) = (RegStrings::default(), RegStrings::default());
            right_outs[c as usize].visit(&mut a);
            o.visit(&mut b);
            let d = a.0.iter().zip(&b.0).find(|(x, y)| x != y);
            first = Some((
                c,
                d.map_or_else(String::new, |(x, y)| {
                    format!("{}: RTL {}, faulty model {}", x.0, x.1, y.1)
                }),
            ));
        }
    });
    let fired = vf::fired();
    let Some((cycle, signal)) = first else {
        return Ok(None);
    };
    let head: String = files
        .expect
        .lines()
        .take_while(|l| l.starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let expect = head + &got;
    let lines = got.lines().count();
    let dir = faulty_dir(root, f, &s.name);
    let set = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().to_string());
    // (the manifest as the set has it, its name and expected outputs' lines and hash replaced)
    let mut m: serde_json::Value = serde_json::from_str(&files.manifest)?;
    m["set"] = set.into();
    m["expect_lines"] = lines.into();
    m["sha256_expect"] = sha256(&expect).into();
    let params_vh: String = files
        .params_vh
        .lines()
        .map(|l| {
            if l.starts_with("`define CAPFC_EXPECT_LINES ") {
                format!("`define CAPFC_EXPECT_LINES {lines}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let faulty = SetFilesV3 {
        manifest: serde_json::to_string_pretty(&m)? + "\n",
        params_vh,
        stim: files.stim.clone(),
        expect,
        config_toml: files.config_toml.clone(),
    };
    golden_v3::write(&dir, &faulty).map_err(|source| FaultsError::Write {
        dir: dir.display().to_string(),
        source,
    })?;
    Ok(Some(Kill {
        by: s.name.clone(),
        cycle,
        signal,
        fired_at,
        fired,
    }))
}

fn sha256(s: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The row of one fault. `root`: where faulty golden sets are written.
pub fn row(f: Fault, plan: &Plan, root: &Path) -> Result<Row, FaultsError> {
    let (mut lockstep, mut lockstep_kills, mut fired) = (None, 0, 0);
    for s in &plan.lockstep {
        let (k, n) = lockstep_run(f, s)?;
        fired += n;
        if let Some(k) = k {
            lockstep_kills += 1;
            lockstep.get_or_insert(k);
            if plan.first_only {
                break;
            }
        }
    }
    let (mut golden, mut golden_kills) = (None::<Kill>, 0);
    for s in &plan.golden {
        if let Some(k) = golden_run(f, s, root)? {
            golden_kills += 1;
            // (the first set whose catch follows the fault's firing)
            if golden
                .as_ref()
                .is_none_or(|g| g.fired_at.is_none_or(|c| c > g.cycle))
            {
                golden = Some(k);
            }
            if plan.first_only {
                break;
            }
        }
    }
    let verilog = match (&plan.verilog, &golden) {
        (Some(sim), Some(k)) => Some(verilog_replay(sim, &faulty_dir(root, f, &k.by))),
        _ => None,
    };
    Ok(Row {
        fault: f,
        lockstep,
        lockstep_kills,
        fired,
        golden,
        golden_kills,
        verilog,
    })
}

/// Every fault's row, on `workers` threads (in catalogue order).
pub fn matrix(
    faults: &[Fault],
    plan: &Plan,
    root: &Path,
    workers: usize,
) -> Result<Vec<Row>, FaultsError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let rows = std::sync::Mutex::new(vec![None; faults.len()]);
    let err = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&f) = faults.get(k) else { break };
                match row(f, plan, root) {
                    Ok(r) => rows.lock().expect("no panic")[k] = Some(r),
                    Err(e) => {
                        *err.lock().expect("no panic") = Some(FaultsError::Fault {
                            fault: f.name(),
                            source: Box::new(e),
                        })
                    }
                }
            });
        }
    });
    if let Some(e) = err.into_inner().expect("no panic") {
        return Err(e);
    }
    Ok(rows
        .into_inner()
        .expect("no panic")
        .into_iter()
        .flatten()
        .collect())
}

/// The reason a fault is listed as not killed ([`UNKILLED`]).
pub fn unkilled_reason(f: Fault) -> Option<&'static str> {
    UNKILLED.iter().find(|(g, _)| *g == f).map(|(_, r)| *r)
}

/// The matrix as text: one block per fault, with the commands that replay its catches.
pub fn render(rows: &[Row], plan: &Plan) -> String {
    let mut s = String::new();
    let of = |n: usize| if plan.first_only { 1 } else { n };
    let kill = |k: &Option<Kill>, n: usize, of: usize| match k {
        Some(k) => format!(
            "{n}/{of}; first {} at cycle {}: {} (fault fired {} times, first at cycle {})",
            k.by,
            k.cycle,
            k.signal,
            k.fired,
            k.fired_at.map_or_else(|| "never".into(), |c| c.to_string())
        ),
        None => format!("0/{of}: NOT CAUGHT"),
    };
    let kill_l = |r: &Row| match &r.lockstep {
        None => format!(
            "{} (the fault fired {} times in these runs)",
            kill(&None, 0, of(plan.lockstep.len())),
            r.fired
        ),
        k => kill(k, r.lockstep_kills, of(plan.lockstep.len())),
    };
    for r in rows {
        let _ = writeln!(
            s,
            "{:<30} {:<15} {}",
            r.fault.name(),
            r.fault.unit(),
            r.fault.rule()
        );
        let _ = writeln!(s, "    lockstep {}", kill_l(r));
        let _ = writeln!(
            s,
            "    golden   {}",
            kill(&r.golden, r.golden_kills, of(plan.golden.len()))
        );
        match &r.verilog {
            Some(Ok(v)) => {
                let _ = writeln!(s, "    verilog  {} on {}: {}", v.sim, v.set, v.first);
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "    verilog  FAILED TO CATCH: {e}");
            }
            None => {}
        }
        let _ = writeln!(s, "    replay   capfc faults --fault {}", r.fault.name());
        if let Some(Ok(v)) = &r.verilog {
            let _ = writeln!(s, "    replay   {}", v.replay);
        }
        if !r.killed(plan) {
            let _ = writeln!(
                s,
                "    NOT KILLED{}",
                unkilled_reason(r.fault).map_or_else(String::new, |w| format!(" (listed: {w})"))
            );
        }
    }
    let caught = rows.iter().filter(|r| r.killed(plan)).count();
    let _ = writeln!(
        s,
        "{caught} of {} faults killed by the lockstep and by a golden set{}",
        rows.len(),
        plan.verilog
            .as_ref()
            .map(|v| format!(" on the {v} testbench"))
            .unwrap_or_default()
    );
    s
}
