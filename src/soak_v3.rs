//! The soak of the v3 block (`make soak`): random legal traffic ([`golden_v3::random_clocked`],
//! the generator of the random golden sets) through the block's model and its Verilated RTL in
//! lockstep ([`LockstepV3`]: every register, output and RAM write compared every cycle), over
//! parameter sets, both algorithms and seeds, in jobs that shards divide
//! (`crates/cli/examples/v3_soak.rs`, `scripts/soak.sh`).
//!
//! A job is one seed of one parameter set in one algorithm. Even seeds run the contention
//! traffic (two hot output ports on one sort engine, clears meeting sorts), odd ones the plain
//! traffic; at a port count that is not a power of two every job also drives departures and
//! enqueues naming ports NP and above. A job fails on the first mismatch (or a rule of the
//! contract its outputs break) and its report names the command that replays it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::block::{BlockParams, Mode};
use crate::cosim_v3::{InputPacker, LockstepV3};
use crate::golden_v3;
use crate::v3::fault::Fault;

/// One job: `cycles` cycles of seed `seed` on parameter set `config` in `mode`.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub config: String,
    pub params: BlockParams,
    pub mode: Mode,
    pub seed: u64,
    pub cycles: u64,
}

impl Job {
    /// The traffic has contention (even seeds).
    pub fn contention(&self) -> bool {
        self.seed.is_multiple_of(2)
    }

    /// The traffic names ports NP and above (a port count that is not a power of two).
    pub fn stray(&self) -> bool {
        !self.params.np.is_power_of_two()
    }

    pub fn label(&self) -> String {
        format!(
            "{} {} seed {} ({} cycles{}{})",
            self.config,
            self.mode.name(),
            self.seed,
            self.cycles,
            if self.contention() {
                ", contention"
            } else {
                ""
            },
            if self.stray() { ", stray ports" } else { "" }
        )
    }

    /// The command that runs this job alone (`fault`: the model's fault it ran with).
    pub fn replay(&self, fault: Option<Fault>) -> String {
        format!(
            "CAPFC_V3_CONFIGS={c} cargo run --release --example v3_soak -- --config {c} --algo {} --seed {} --cycles {}{}",
            self.mode.name(),
            self.seed,
            self.cycles,
            fault.map(|f| format!(" --fault {f}")).unwrap_or_default(),
            c = self.config,
        )
    }
}

/// The jobs of `configs` × `seeds` × `modes`, in that order of nesting (each seed's modes side
/// by side, so that a shard has both algorithms).
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
                    seed,
                    cycles,
                });
            }
        }
    }
    v
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
    #[error("{label}: the lockstep could not run: {source}")]
    Lockstep {
        label: String,
        #[source]
        source: Box<crate::cosim_v3::LockstepError>,
    },
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
    let lock = |source| SoakError::Lockstep {
        label: j.label(),
        source: Box::new(source),
    };
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
        j.seed,
        j.cycles,
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
