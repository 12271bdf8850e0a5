//! The v3 block in lockstep in one process: its Rust model ([`crate::v3::top::Top`]) and its
//! Verilated RTL ([`crate::dut_v3::RtlTopV3`]) take the same packed inputs every cycle, and every
//! output and every register and RAM word of the RTL is compared with the model's, by name.
//!
//! Nothing is skipped: the model must list exactly the RTL's registers (the layout crates/rtl/build.rs reads
//! from the Verilated headers), or the run is refused before its first cycle.

use std::collections::HashMap;
use std::sync::Arc;

use crate::block::BlockParams;
use crate::dut_v3::{RtlTopV3, RtlV3Error, VarError};
use crate::replay::{self, top_in_into, InputError, Report, WaveError};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::{RegSink, RegStrings};

/// Why model and RTL cannot be run side by side (or a run cannot go on): the two disagree on a
/// port, register or RAM (by name, and the Verilated block's name in `dut`), or the inputs or
/// state given cannot be packed for the RTL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockstepError {
    #[error(transparent)]
    Rtl(#[from] RtlV3Error),
    #[error(transparent)]
    Wave(#[from] WaveError),
    /// A waveform's input value the RTL's port cannot take.
    #[error("[lockstep] {path}: cycle {cycle}: {source}")]
    WaveInput {
        path: String,
        cycle: usize,
        #[source]
        source: VarError,
    },
    /// A register's value of the model that the RTL's variable cannot take.
    #[error("[lockstep] {dut}: {source}")]
    State {
        dut: String,
        #[source]
        source: VarError,
    },
    #[error("[lockstep] {dut}: no input port {name}")]
    NoInput { dut: String, name: String },
    #[error("[lockstep] {dut}: no output port {name}")]
    NoOutput { dut: String, name: String },
    /// A port (`what`: "input", "output") of another width in the RTL than in the model.
    #[error("[lockstep] {dut}: {what} {name} has {rtl} bits, the model's {model}")]
    PortWidth {
        dut: String,
        what: &'static str,
        name: String,
        rtl: u32,
        model: usize,
    },
    #[error(
        "[lockstep] {dut}: the model's register {name} is not a register of the Verilated RTL"
    )]
    NotInRtl { dut: String, name: String },
    /// A register of the RTL the model does not list (`count`: how many such).
    #[error("[lockstep] {dut}: register {name} of the RTL is not in the model ({count} such)")]
    NotInModel {
        dut: String,
        name: String,
        count: usize,
    },
    #[error("[lockstep] {dut}: the RTL has {rtl} registers and RAM words, the model {model}")]
    RegCount {
        dut: String,
        rtl: usize,
        model: usize,
    },
    #[error("[lockstep] {dut}: the model's RAM {ram} has no write port in the Verilated RTL")]
    NoWritePort { dut: String, ram: String },
    #[error("[lockstep] {dut}: {port} has {rtl} bits, the model's RAM {ram} {model}")]
    RamWidth {
        dut: String,
        port: String,
        rtl: u32,
        ram: String,
        model: usize,
    },
    #[error("[lockstep] the model's write log names RAM {ram}, its visit lists {rams}")]
    WriteLog { ram: u32, rams: usize },
    #[error("[lockstep] {dut}: state word {word} belongs to no register of the model")]
    Ownerless { dut: String, word: usize },
    /// A cycle's packed inputs that do not decode into the model's.
    #[error("[lockstep] {0}")]
    Input(#[from] InputError),
    /// A stimulus that is not a whole number of cycles.
    #[error(
        "[lockstep] {words} words of stimulus for {per_cycle} words a cycle: nothing to check"
    )]
    Stimulus { words: usize, per_cycle: usize },
}

/// For the layers that still report errors as text.
impl From<LockstepError> for String {
    fn from(e: LockstepError) -> String {
        e.to_string()
    }
}

/// The inputs of `instance` (e.g. `capfc_top_v3_tb.u_dut`) at every rising edge of a waveform,
/// packed for `rtl` (its layout's input words, one cycle after another).
pub fn stimulus_from_wave(
    path: &str,
    instance: &str,
    rtl: &RtlTopV3,
) -> Result<Vec<u32>, LockstepError> {
    let names: Vec<&str> = rtl.layout.inputs.iter().map(|v| v.name.as_str()).collect();
    let rows = replay::wave_inputs(path, instance, &names)?;
    let wpc = rtl.layout.input_words;
    let mut words = vec![0u32; wpc * rows.len()];
    for (c, row) in rows.iter().enumerate() {
        let w = &mut words[c * wpc..(c + 1) * wpc];
        for (v, bits) in rtl.layout.inputs.iter().zip(row) {
            v.set_bits(w, bits)
                .map_err(|source| LockstepError::WaveInput {
                    path: path.to_string(),
                    cycle: c,
                    source,
                })?;
        }
    }
    Ok(words)
}

/// Packs a [`TopIn`] into the input words of a Verilated v3 block: every input port found by
/// name in the first cycle, by its place in the visit order after that (no name is formatted
/// again).
#[derive(Debug, Default)]
pub struct InputPacker {
    /// for each input in [`TopIn::visit`] order: its index among the layout's inputs
    index: Vec<usize>,
}

impl InputPacker {
    /// `inp` into `words` (the layout's input words of `rtl`).
    pub fn pack(
        &mut self,
        rtl: &RtlTopV3,
        inp: &TopIn,
        words: &mut [u32],
    ) -> Result<(), LockstepError> {
        struct Pack<'a> {
            rtl: &'a RtlTopV3,
            index: &'a mut Vec<usize>,
            i: usize,
            words: &'a mut [u32],
            err: Option<LockstepError>,
        }
        impl RegSink for Pack<'_> {
            fn reg(&mut self, name: std::fmt::Arguments<'_>, v: &[u64], width: usize) {
                let inputs = &self.rtl.layout.inputs;
                if self.i == self.index.len() {
                    let n = name.to_string();
                    match inputs.iter().position(|x| x.name == n) {
                        Some(k) if inputs[k].width as usize == width => self.index.push(k),
                        Some(k) => {
                            self.err.get_or_insert_with(|| LockstepError::PortWidth {
                                dut: self.rtl.name.clone(),
                                what: "input",
                                name: n,
                                rtl: inputs[k].width,
                                model: width,
                            });
                            return;
                        }
                        None => {
                            self.err.get_or_insert_with(|| LockstepError::NoInput {
                                dut: self.rtl.name.clone(),
                                name: n,
                            });
                            return;
                        }
                    }
                }
                let var = &inputs[self.index[self.i]];
                self.i += 1;
                for (b, w) in self.words[var.offset..var.offset + var.value_words()]
                    .iter_mut()
                    .enumerate()
                {
                    let left = width - 32 * b;
                    let mask = if left >= 32 {
                        u32::MAX
                    } else {
                        (1 << left) - 1
                    };
                    *w = v.get(b / 2).map_or(0, |x| (x >> (32 * (b % 2))) as u32) & mask;
                }
            }
        }
        let p = &rtl.params;
        let mut s = Pack {
            rtl,
            index: &mut self.index,
            i: 0,
            words,
            err: None,
        };
        inp.visit(p.sw as usize, crate::v3::port_width(p.np) as usize, &mut s);
        match s.err {
            Some(e) => {
                self.index.clear();
                Err(e)
            }
            None => Ok(()),
        }
    }
}

/// The output words of `rtl` into `out` (every output port by name).
pub fn unpack_outputs(
    rtl: &RtlTopV3,
    words: &[u32],
    out: &mut TopOut,
) -> Result<(), LockstepError> {
    let np = rtl.params.np;
    let var = |n: &str| {
        rtl.layout
            .outputs
            .iter()
            .find(|v| v.name == n)
            .ok_or_else(|| LockstepError::NoOutput {
                dut: rtl.name.clone(),
                name: n.to_string(),
            })
    };
    let flags = |n: &str, v: &mut Vec<bool>| -> Result<(), LockstepError> {
        let x = var(n)?;
        v.clear();
        v.extend((0..np).map(|i| x.field(words, i, 1) == 1));
        Ok(())
    };
    let bytes = |n: &str, v: &mut Vec<u8>| -> Result<(), LockstepError> {
        let x = var(n)?;
        v.clear();
        v.extend((0..np).map(|i| x.field(words, 8 * i, 8) as u8));
        Ok(())
    };
    flags("arr_ready", &mut out.arr_ready)?;
    flags("deq_ready", &mut out.deq_ready)?;
    flags("arr_accept", &mut out.arr_accept)?;
    out.enq_accept = var("enq_accept")?.field(words, 0, 1) == 1;
    flags("pfc_valid", &mut out.pfc_valid)?;
    bytes("pfc_cev", &mut out.pfc_cev)?;
    bytes("pfc_xoff", &mut out.pfc_xoff)?;
    out.pfc_quanta = var("pfc_quanta")?.field(words, 0, 16) as u16;
    bytes("d_state", &mut out.d_state)?;
    Ok(())
}

/// `model`'s every register and RAM word packed into `rtl`'s state words (the layout of
/// [`RtlTopV3::read_state`]), each at the place of the RTL's variable of the same name: what
/// [`RtlTopV3::write_state`] takes to put the RTL where the model is.
pub fn state_words(rtl: &RtlTopV3, model: &Top) -> Result<Vec<u32>, LockstepError> {
    let mut index = HashMap::new();
    for (vi, v) in rtl.layout.state.iter().enumerate() {
        for k in 0..v.values() {
            index.insert(v.value_name(k), (vi, k));
        }
    }
    let mut w = vec![0; rtl.layout.state_words];
    let mut seen = 0;
    for (n, bits) in model.regs() {
        let &(vi, k) = index.get(&n).ok_or_else(|| LockstepError::NotInRtl {
            dut: rtl.name.clone(),
            name: n.clone(),
        })?;
        rtl.layout.state[vi]
            .set_value(&mut w, k, &bits)
            .map_err(|source| LockstepError::State {
                dut: rtl.name.clone(),
                source,
            })?;
        seen += 1;
    }
    if seen != index.len() {
        return Err(LockstepError::RegCount {
            dut: rtl.name.clone(),
            rtl: index.len(),
            model: seen,
        });
    }
    Ok(w)
}

/// Model and RTL side by side.
pub struct LockstepV3 {
    pub rtl: RtlTopV3,
    pub model: Box<Top>,
    state: Vec<u32>,
    out: Vec<u32>,
    /// for each of the model's registers (in `Top::regs` order), its value's index among the
    /// RTL's state values
    perm: Vec<usize>,
    /// for each of the RTL's state values: (variable, value)
    values: Vec<(usize, usize)>,
    /// the inputs by name: index into the layout's inputs (a short list searched in order)
    inputs: Vec<(String, usize)>,
    /// for each of the model's outputs (in `TopOut::visit` order): its index among the layout's
    /// outputs (found by name in the first cycle, widths checked)
    out_index: Vec<usize>,
    /// the model's half of a cycle: its inputs and outputs, its registers packed (`None` only
    /// while a cycle runs it on the helper thread)
    side: Option<Box<ModelSide>>,
    /// the second thread that runs the model's half beside the RTL's step
    /// ([`LockstepV3::set_threads`])
    helper: Option<Helper>,
    pub report: Report,
    limit: usize,
    /// Compare every RAM word every cycle instead of the RAMs' writes (see [`LockstepV3::cycle`]).
    pub exhaustive: bool,
    /// for each of the model's RAMs (in the order `Top::visit` lists them): its write port's
    /// `we`, `wa`, `wd` among the layout's writes, its word width and its words' first register
    /// index (in `perm`)
    rams: Vec<RamPort>,
    /// the RTL's write ports of the last edge, the model's RAM writes
    writes: Vec<u32>,
    mwrites: Vec<(u32, u64, u128)>,
    /// per RAM: the model's write of the last edge, if any (address, word)
    mw: Vec<Option<(u64, u128)>>,
    /// the next cycle compares every RAM word (the first one, and after any difference)
    full: bool,
    /// cycles whose RAM words were compared
    pub full_cycles: u64,
    /// the state words of the registers (no RAM word), as runs `[from, to)`
    reg_runs: Arc<[(usize, usize)]>,
    /// every state word, as one run
    whole: Arc<[(usize, usize)]>,
    /// per state word: the model's register (in `Top::regs` order) it belongs to
    owner: Arc<[u32]>,
    /// the registers found different in a cycle (reused)
    differ: Vec<u32>,
    /// for each of the model's outputs (in `TopOut::visit` order): its first output word and
    /// word count; the model's outputs packed the same way; per output word, its output
    out_slots: Vec<(u32, u32)>,
    out_owner: Vec<u32>,
}

/// The model's half of a lockstep cycle, owned by the thread that runs it: the model (swapped
/// with [`LockstepV3::model`] for the cycle), its inputs, its outputs, and its registers entering
/// the cycle packed at the RTL's places.
struct ModelSide {
    model: Box<Top>,
    inp: TopIn,
    mout: TopOut,
    /// the model's registers (and, in a cycle that compares them, RAM words) packed into the
    /// RTL's state words, each at its RTL variable's place ([`Pack`])
    mstate: Vec<u32>,
    /// for each of the model's registers (in `Top::regs` order): its RTL value's first state
    /// word and word count (the every-cycle comparison's index)
    slots: Arc<[(u32, u32)]>,
    /// pack the registers this cycle (not in the first, compared as strings); `full`: the RAM
    /// words too
    pack: bool,
    full: bool,
    /// a register the model holds wider than the RTL's (its index among the registers and its
    /// value before the edge)
    stray: Option<(usize, String)>,
    /// the model's outputs packed at the RTL's output words (`out_slots` as
    /// [`LockstepV3::index_outputs`] finds them in the first cycle), and the first output the
    /// model holds wider than the RTL's
    out_slots: Arc<[(u32, u32)]>,
    mout_words: Vec<u32>,
    out_stray: Option<usize>,
    /// the next run only copies the model and the buffers the helper thread writes
    rehome: bool,
    /// `compare`: the run also finds the state words where `rtl_state` (the RTL's registers
    /// entering the cycle, handed over by the caller) and the packed registers differ, and
    /// `differ` gets their registers ([`differing`]): the registers' words, or every word in a
    /// cycle that compares the RAM words (`full`); `owner` as [`LockstepV3::owner`]
    compare: bool,
    rtl_state: Vec<u32>,
    reg_runs: Arc<[(usize, usize)]>,
    whole: Arc<[(usize, usize)]>,
    owner: Arc<[u32]>,
    differ: Vec<u32>,
    /// the run also packs the cycle's outputs after its edge ([`ModelSide::pack_outputs`]) and
    /// lists its RAM writes into `mwrites` ([`Top::ram_writes`])
    post: bool,
    mwrites: Vec<(u32, u64, u128)>,
}

impl ModelSide {
    /// The registers entering the cycle packed, then the model's clock edge under `inp` (else
    /// under the half's own copy, `self.inp`); or, once, `rehome`.
    fn run(&mut self, inp: Option<&TopIn>) {
        if std::mem::take(&mut self.rehome) {
            // (copies made by the thread that runs the half: its own allocator's arena, so that
            // none of the half's words shares a cache line with the caller's)
            #[allow(clippy::replace_box)] // (a new box is the point: allocated by this thread)
            {
                self.model = Box::new((*self.model).clone());
            }
            self.inp = self.inp.clone();
            self.mout = self.mout.clone();
            self.mstate = self.mstate.clone();
            self.rtl_state = self.rtl_state.clone();
            self.mout_words = self.mout_words.clone();
            return;
        }
        self.stray = None;
        if self.pack {
            let mut pack = Pack {
                slots: &self.slots,
                buf: &mut self.mstate,
                i: 0,
                rams: self.full,
                stray: None,
            };
            self.model.visit(&mut pack);
            debug_assert_eq!(pack.i, self.slots.len());
            if let Some(i) = pack.stray {
                let regs = self.model.regs();
                self.stray = Some((i, regs.get(i).map_or_else(String::new, |r| r.1.clone())));
            }
        }
        self.model
            .cycle_into(inp.unwrap_or(&self.inp), &mut self.mout);
        if self.compare {
            let runs = if self.full {
                &self.whole
            } else {
                &self.reg_runs
            };
            differing(
                &self.rtl_state,
                &self.mstate,
                runs,
                &self.owner,
                &mut self.differ,
            );
        }
        if self.post {
            self.pack_outputs();
            self.model.ram_writes(&mut self.mwrites);
        }
    }

    /// The cycle's outputs packed at the RTL's output words.
    fn pack_outputs(&mut self) {
        let mut pack = Pack {
            slots: &self.out_slots,
            buf: &mut self.mout_words,
            i: 0,
            rams: true,
            stray: None,
        };
        self.mout.visit(&mut pack);
        self.out_stray = pack.stray;
    }
}

/// The registers (`owner`'s indexes, ascending, once each) with a word in `runs` where `rtl` and
/// `model` differ, into `differ`: the comparison of a cycle's registers, which
/// [`LockstepV3::compare_words`] then reports.
fn differing(
    rtl: &[u32],
    model: &[u32],
    runs: &[(usize, usize)],
    owner: &[u32],
    differ: &mut Vec<u32>,
) {
    differ.clear();
    for &(a, b) in runs {
        let (r, m) = (&rtl[a..b], &model[a..b]);
        if r != m {
            differ.extend((a..b).filter(|&w| rtl[w] != model[w]).map(|w| owner[w]));
        }
    }
    differ.sort_unstable();
    differ.dedup();
}

/// The second thread of a lockstep on two ([`LockstepV3::set_threads`]): it runs the model's
/// half of each cycle, handed to it by ownership (a box through a mutex, so that no state is
/// shared while it runs), while the calling thread steps the RTL. Between cycles it spins for a
/// while, then sleeps until the next.
struct Helper {
    shared: Arc<HelperShared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct HelperShared {
    /// a job handed over and not yet done
    busy: std::sync::atomic::AtomicBool,
    /// the helper is asleep (or about to be): the next job wakes it
    sleeping: std::sync::atomic::AtomicBool,
    exit: std::sync::atomic::AtomicBool,
    job: std::sync::Mutex<Option<Box<ModelSide>>>,
    /// a panic of the model's half, passed on to the calling thread
    panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

/// Spins of a waiting thread before it yields (the caller) or sleeps (the helper): a few tens of
/// microseconds, longer than a cycle of the largest block.
const SPINS: u32 = 20_000;

impl Helper {
    fn new() -> Helper {
        let shared = Arc::new(HelperShared::default());
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("capfc-lockstep-model".into())
            .spawn(move || Helper::serve(&s))
            .expect("a thread for the lockstep's model");
        Helper {
            shared,
            thread: Some(thread),
        }
    }

    /// The helper thread: each job handed over run, and handed back.
    fn serve(s: &HelperShared) {
        use std::sync::atomic::Ordering::{Acquire, Release, SeqCst};
        loop {
            let mut spins = 0u32;
            while !s.busy.load(Acquire) {
                if s.exit.load(Acquire) {
                    return;
                }
                if spins < SPINS {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    s.sleeping.store(true, SeqCst);
                    if !s.busy.load(SeqCst) && !s.exit.load(SeqCst) {
                        std::thread::park_timeout(std::time::Duration::from_millis(50));
                    }
                    s.sleeping.store(false, SeqCst);
                }
            }
            let mut side = s
                .job
                .lock()
                .expect("the job's lock")
                .take()
                .expect("a job handed over");
            if side.rehome {
                // (the half's own box too, from this thread's arena: see `ModelSide::run`)
                side = Box::new(*side);
            }
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| side.run(None)));
            *s.job.lock().expect("the job's lock") = Some(side);
            if let Err(p) = ran {
                *s.panic.lock().expect("the panic's lock") = Some(p);
            }
            s.busy.store(false, Release);
        }
    }

    /// Hand the model's half over.
    fn start(&self, side: Box<ModelSide>) {
        use std::sync::atomic::Ordering::SeqCst;
        *self.shared.job.lock().expect("the job's lock") = Some(side);
        self.shared.busy.store(true, SeqCst);
        if self.shared.sleeping.load(SeqCst) {
            if let Some(t) = &self.thread {
                t.thread().unpark();
            }
        }
    }

    /// Wait for the model's half and take it back (a panic in it goes on here).
    fn finish(&self) -> Box<ModelSide> {
        use std::sync::atomic::Ordering::Acquire;
        let mut spins = 0u32;
        while self.shared.busy.load(Acquire) {
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                assert!(
                    !self.thread.as_ref().is_some_and(|t| t.is_finished()),
                    "the lockstep's model thread ended"
                );
                std::thread::yield_now();
            }
        }
        if let Some(p) = self.shared.panic.lock().expect("the panic's lock").take() {
            std::panic::resume_unwind(p);
        }
        self.shared
            .job
            .lock()
            .expect("the job's lock")
            .take()
            .expect("the job handed back")
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.shared
            .exit
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            // (a job under way is finished first; a panic of the helper was passed on already)
            let _ = t.join();
        }
    }
}

/// A RAM of the model and its write port in the RTL.
#[derive(Debug, Clone)]
struct RamPort {
    we: usize,
    wa: usize,
    wd: usize,
    width: usize,
}

/// The RTL's state values (variable, element) in the layout's order, and for each register of the
/// model its index among them.
type RegisterOrder = (Vec<(usize, usize)>, Vec<usize>);

/// The [`RegisterOrder`] of the model's registers `regs` (in their order): every register of
/// either side must be the other's.
fn register_order(
    rtl: &RtlTopV3,
    regs: &[(String, String)],
) -> Result<RegisterOrder, LockstepError> {
    let mut values = vec![];
    let mut index = HashMap::new();
    for (vi, v) in rtl.layout.state.iter().enumerate() {
        for k in 0..v.values() {
            index.insert(v.value_name(k), values.len());
            values.push((vi, k));
        }
    }
    let mut perm = Vec::with_capacity(regs.len());
    let mut seen = vec![false; values.len()];
    for (n, _) in regs {
        let Some(&k) = index.get(n) else {
            return Err(LockstepError::NotInRtl {
                dut: rtl.name.clone(),
                name: n.clone(),
            });
        };
        seen[k] = true;
        perm.push(k);
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        let (vi, e) = values[k];
        return Err(LockstepError::NotInModel {
            dut: rtl.name.clone(),
            name: rtl.layout.state[vi].value_name(e),
            count: seen.iter().filter(|s| !**s).count(),
        });
    }
    Ok((values, perm))
}

/// The model's RAMs, each with its write port in the RTL (by name: `x.mem` writes through `x.we`,
/// `x.wa`, `x.wd`), in the model's visit order (that of its write log).
fn ram_ports(rtl: &RtlTopV3, model: &Top) -> Result<Vec<RamPort>, LockstepError> {
    let mut names = RamNames::default();
    model.visit(&mut names);
    let port = |n: &str| rtl.layout.writes.iter().position(|v| v.name == n);
    let mut rams = Vec::with_capacity(names.0.len());
    for (n, width) in &names.0 {
        let inst = n.strip_suffix("mem").unwrap_or(n);
        let (Some(we), Some(wa), Some(wd)) = (
            port(&format!("{inst}we")),
            port(&format!("{inst}wa")),
            port(&format!("{inst}wd")),
        ) else {
            return Err(LockstepError::NoWritePort {
                dut: rtl.name.clone(),
                ram: n.clone(),
            });
        };
        if rtl.layout.writes[wd].width as usize != *width {
            return Err(LockstepError::RamWidth {
                dut: rtl.name.clone(),
                port: format!("{inst}wd"),
                rtl: rtl.layout.writes[wd].width,
                ram: n.clone(),
                model: *width,
            });
        }
        rams.push(RamPort {
            we,
            wa,
            wd,
            width: *width,
        });
    }
    let mut probe = model.clone();
    probe.cycle(&TopIn::idle(model.p.np));
    let mut w = vec![];
    probe.ram_writes(&mut w);
    if let Some(&(k, ..)) = w.iter().find(|(k, ..)| *k as usize >= rams.len()) {
        return Err(LockstepError::WriteLog {
            ram: k,
            rams: rams.len(),
        });
    }
    Ok(rams)
}

impl LockstepV3 {
    /// The Verilated block of `p` beside a fresh model; `limit`: mismatches kept in the report.
    ///
    /// (Long: the comparison's indexes built once, each beside the check that the two sides
    /// agree on it: the registers' order and places, the RAMs' write ports, the outputs.)
    pub fn new(p: &BlockParams, limit: usize) -> Result<Self, LockstepError> {
        let rtl = RtlTopV3::new(p)?;
        let model = Top::new(*p);
        let regs = model.regs();
        let (values, perm) = register_order(&rtl, &regs)?;
        let slots: Vec<(u32, u32)> = perm
            .iter()
            .map(|&k| {
                let (vi, e) = values[k];
                let v = &rtl.layout.state[vi];
                let n = v.value_words();
                ((v.offset + e * n) as u32, n as u32)
            })
            .collect();
        // (the per-port fields first: they are asked for most often)
        let mut inputs: Vec<(String, usize)> = rtl
            .layout
            .inputs
            .iter()
            .enumerate()
            .map(|(k, v)| (v.name.clone(), k))
            .collect();
        inputs.sort_by_key(|(n, _)| {
            !(n.starts_with("arr_") || n.starts_with("deq_") || n == "pfc_ready")
        });
        let rams = ram_ports(&rtl, &model)?;
        let writes = vec![0; rtl.layout.write_words];
        let mw = vec![None; rams.len()];
        // which register each state word belongs to, and the runs of words that are registers
        // (the RAMs' words are those of the model's `ram` and `ram128` lists, in visit order)
        let mut owner = vec![u32::MAX; rtl.layout.state_words];
        let mut is_ram = vec![false; rtl.layout.state_words];
        let mut kinds = RamWords(vec![]);
        model.visit(&mut kinds);
        for (i, &(at, n)) in slots.iter().enumerate() {
            for w in at..at + n {
                owner[w as usize] = i as u32;
                is_ram[w as usize] = kinds.0[i];
            }
        }
        if let Some(w) = owner.iter().position(|&o| o == u32::MAX) {
            return Err(LockstepError::Ownerless {
                dut: rtl.name.clone(),
                word: w,
            });
        }
        let mut reg_runs: Vec<(usize, usize)> = vec![];
        for (w, ram) in is_ram.iter().enumerate() {
            match reg_runs.last_mut() {
                _ if *ram => {}
                Some(r) if r.1 == w => r.1 = w + 1,
                _ => reg_runs.push((w, w + 1)),
            }
        }
        let slots: Arc<[(u32, u32)]> = slots.into();
        let reg_runs: Arc<[(usize, usize)]> = reg_runs.into();
        let whole: Arc<[(usize, usize)]> = Arc::new([(0, rtl.layout.state_words)]);
        let owner: Arc<[u32]> = owner.into();
        let side = Box::new(ModelSide {
            model: Box::new(Top::new(*p)),
            inp: TopIn::default(),
            mout: TopOut::default(),
            mstate: vec![0; rtl.layout.state_words],
            slots: slots.clone(),
            pack: false,
            full: true,
            stray: None,
            out_slots: Arc::new([]),
            mout_words: vec![0; rtl.layout.output_words],
            out_stray: None,
            rehome: false,
            compare: false,
            rtl_state: vec![0; rtl.layout.state_words],
            reg_runs: reg_runs.clone(),
            whole: whole.clone(),
            owner: owner.clone(),
            differ: vec![],
            post: false,
            mwrites: vec![],
        });
        Ok(LockstepV3 {
            state: vec![0; rtl.layout.state_words],
            out: vec![0; rtl.layout.output_words],
            report: Report {
                cycles: 0,
                names: regs.len(),
                mismatches: vec![],
                total_mismatches: 0,
            },
            rtl,
            model: Box::new(model),
            perm,
            values,
            inputs,
            out_index: vec![],
            side: Some(side),
            helper: None,
            limit,
            exhaustive: false,
            rams,
            writes,
            mwrites: vec![],
            mw,
            full: true,
            full_cycles: 0,
            reg_runs,
            whole,
            owner,
            differ: vec![],
            out_slots: vec![],
            out_owner: vec![],
        })
    }

    /// The model's RAM writes of the last edge are the RTL's: the same RAMs written, at the same
    /// addresses, with the same words.
    fn same_writes(&mut self) -> bool {
        let mut same = true;
        for &(k, a, d) in &self.mwrites {
            let slot = &mut self.mw[k as usize];
            same &= slot.is_none();
            *slot = Some((a, d));
        }
        let l = &self.rtl.layout.writes;
        for (k, r) in self.rams.iter().enumerate() {
            // (`we` is one bit, alone in its word)
            let rtl_we = self.writes[l[r.we].offset] & 1 == 1;
            match (rtl_we, self.mw[k].take()) {
                (false, None) => {}
                (true, Some((a, d))) => {
                    let wa = l[r.wa].field(&self.writes, 0, l[r.wa].width);
                    let v = &l[r.wd];
                    let lo = v.field(&self.writes, 0, v.width.min(64)) as u128;
                    let wd = if v.width > 64 {
                        lo | (v.field(&self.writes, 64, v.width - 64) as u128) << 64
                    } else {
                        lo
                    };
                    same &= wa == a && (wd ^ d) & mask128(r.width) == 0;
                }
                _ => same = false,
            }
        }
        same
    }

    /// Both sides to `model`'s state (a snapshot restored), as after `cycle` cycles: the RTL's
    /// registers and RAM words packed from the model's, the next cycle compares every RAM word,
    /// and the mismatches of before are forgotten (the state they were found in is gone).
    pub fn restore(&mut self, model: &Top, cycle: u64) -> Result<(), LockstepError> {
        let w = state_words(&self.rtl, model)?;
        self.rtl.write_state(&w);
        self.rtl.set_cycle(cycle);
        *self.model = model.clone();
        self.rehome();
        self.full = true;
        self.report.cycles = cycle;
        self.report.mismatches.clear();
        self.report.total_mismatches = 0;
        Ok(())
    }

    /// The model's outputs of the last cycle (equal to the RTL's unless the report has a
    /// mismatch).
    pub fn model_out(&self) -> &TopOut {
        &self.side().mout
    }

    /// The model's half, back from the helper thread after every cycle.
    fn side(&self) -> &ModelSide {
        self.side
            .as_deref()
            .expect("the model's half is back after every cycle")
    }

    /// Run the model's half of each cycle (its registers packed, its clock edge) on a second
    /// thread beside the RTL's step (`threads` 2), or both on the calling thread (1, the
    /// default). The same comparisons either way, in the same order, with the same report; two
    /// threads take two cores while the lockstep runs.
    pub fn set_threads(&mut self, threads: usize) {
        match threads {
            0 | 1 => self.helper = None,
            _ => {
                if self.helper.is_none() {
                    self.helper = Some(Helper::new());
                    self.rehome();
                }
            }
        }
    }

    /// The model and the half's buffers copied by the helper thread itself, if there is one.
    fn rehome(&mut self) {
        let Some(h) = self.helper.take() else {
            return;
        };
        let mut side = self
            .side
            .take()
            .expect("the model's half is back after every cycle");
        std::mem::swap(&mut side.model, &mut self.model);
        side.rehome = true;
        h.start(side);
        let mut side = h.finish();
        std::mem::swap(&mut side.model, &mut self.model);
        self.side = Some(side);
        self.helper = Some(h);
    }

    fn note(&mut self, n: &str, rtl: String, model: String) {
        self.report.total_mismatches += 1;
        if self.report.mismatches.len() < self.limit {
            self.report
                .mismatches
                .push((self.report.cycles, n.to_string(), rtl, model));
        }
    }

    /// One cycle of packed inputs: the registers entering the cycle compared, both sides
    /// stepped, the cycle's outputs compared. (The first cycle compares the registers as
    /// strings, which checks each one's width as well; the following cycles compare the words.)
    pub fn cycle(&mut self, inputs: &[u32]) -> Result<(), LockstepError> {
        self.cycle_given(inputs, None)
    }

    /// [`LockstepV3::cycle`] with the model's inputs given as well (`inputs` must be `inp`
    /// packed, [`InputPacker`]): the model is not given the RTL's words decoded back.
    pub fn cycle_in(&mut self, inp: &TopIn, inputs: &[u32]) -> Result<(), LockstepError> {
        self.cycle_given(inputs, Some(inp))
    }

    /// The registers entering the cycle, the RTL's (in `self.state`) against the model's: in the
    /// first cycle as strings (which checks each one's width as well), from the model itself
    /// before its edge.
    fn compare_strings(&mut self) {
        let regs = self.model.regs();
        for (i, (n, want)) in regs.iter().enumerate() {
            let (vi, k) = self.values[self.perm[i]];
            let got = self.rtl.layout.state[vi].bits(&self.state, k);
            if got != *want {
                self.note(n, got, want.clone());
            }
        }
    }

    /// The registers entering the cycle, the RTL's (in `self.state`) against the model's packed
    /// by its half of the cycle ([`ModelSide::run`]) where the RTL's are, word for word (`full`:
    /// the RAMs' words too): every register every cycle. (`found`: the half found the registers
    /// that differ, [`ModelSide::compare`]; they are reported here, in the same order.)
    fn compare_words(&mut self, side: &ModelSide, full: bool, found: bool) {
        let mstate = &side.mstate;
        if let Some((i, want)) = &side.stray {
            // (the model's value, its bits above the RTL's width included, is the report)
            let (vi, e) = self.values[self.perm[*i]];
            let v = &self.rtl.layout.state[vi];
            let n = v.value_name(e);
            let got = v.bits(&self.state, e);
            self.note(
                &format!("{n} (model wider than {} bits)", v.width),
                got,
                want.clone(),
            );
        }
        if !found {
            let runs = if full { &self.whole } else { &self.reg_runs };
            differing(&self.state, mstate, runs, &self.owner, &mut self.differ);
        }
        let n = if found {
            side.differ.len()
        } else {
            self.differ.len()
        };
        for k in 0..n {
            let i = if found {
                side.differ[k]
            } else {
                self.differ[k]
            } as usize;
            let (vi, e) = self.values[self.perm[i]];
            let v = &self.rtl.layout.state[vi];
            // (bits above a register's width are not compared)
            let (got, want) = (v.bits(&self.state, e), v.bits(mstate, e));
            if got != want {
                let n = v.value_name(e);
                self.note(&n, got, want);
            }
        }
    }

    /// The first cycle's outputs by name, once: each of the model's outputs is an output port of
    /// the RTL of the same width, and the words it packs into.
    fn index_outputs(&mut self, mout: &TopOut) -> Result<(), LockstepError> {
        // the outputs by name, once; their widths must be the RTL's
        let mut names = RegStrings::default();
        mout.visit(&mut names);
        for (n, bits) in &names.0 {
            let k = self
                .rtl
                .layout
                .outputs
                .iter()
                .position(|v| v.name == *n)
                .ok_or_else(|| LockstepError::NoOutput {
                    dut: self.rtl.name.clone(),
                    name: n.clone(),
                })?;
            let w = self.rtl.layout.outputs[k].width;
            if w as usize != bits.len() {
                return Err(LockstepError::PortWidth {
                    dut: self.rtl.name.clone(),
                    what: "output",
                    name: n.clone(),
                    rtl: w,
                    model: bits.len(),
                });
            }
            self.out_index.push(k);
        }
        self.report.names += self.out_index.len();
        let l = &self.rtl.layout.outputs;
        self.out_slots = self
            .out_index
            .iter()
            .map(|&k| (l[k].offset as u32, l[k].value_words() as u32))
            .collect();
        self.out_owner = vec![u32::MAX; self.out.len()];
        for (i, &(at, n)) in self.out_slots.iter().enumerate() {
            for w in at..at + n {
                self.out_owner[w as usize] = i as u32;
            }
        }
        Ok(())
    }

    /// The RTL's edge, with its RAMs' write ports unless every word is compared.
    fn step_rtl(&mut self, inputs: &[u32]) {
        if self.exhaustive {
            self.rtl.step(inputs, &mut self.out);
        } else {
            self.rtl
                .step_writes(inputs, &mut self.out, &mut self.writes);
        }
    }

    /// One lockstep cycle on the RTL's packed `inputs`, the model on `given` (else on the inputs
    /// decoded from them): the RTL's registers read, the model's half (its registers packed, its
    /// edge) here or on the helper thread while the RTL steps, the registers compared, the RAM
    /// writes compared, the outputs packed and compared.
    ///
    /// (Long: one cycle's steps in the order the two sides' halves need them, kept in one place so
    /// that the two-thread handoff sits between the RTL's read and its step.)
    fn cycle_given(&mut self, inputs: &[u32], given: Option<&TopIn>) -> Result<(), LockstepError> {
        let full = self.exhaustive || self.full;
        let first = self.report.cycles == 0;
        let mut side = self
            .side
            .take()
            .expect("the model's half is back after every cycle");
        // (the inputs given are copied only for the helper thread; on this one the model reads
        // them where they are)
        match given {
            Some(inp) if self.helper.is_some() => side.inp.clone_from(inp),
            Some(_) => {}
            None => {
                let (rtl, ins) = (&self.rtl, &self.inputs);
                let f = |name: &str, lo: usize, w: u32| -> Result<u64, InputError> {
                    ins.iter()
                        .find(|(n, _)| n == name)
                        .map(|&(_, k)| rtl.layout.inputs[k].field(inputs, lo, w))
                        .ok_or_else(|| InputError::NoPort {
                            within: rtl.name.clone(),
                            name: name.to_string(),
                        })
                };
                let decoded = top_in_into(&self.model.p, &f, &mut side.inp);
                if let Err(e) = decoded {
                    self.side = Some(side);
                    return Err(e.into());
                }
            }
        }
        // the RTL's registers entering the cycle
        if full {
            self.rtl.read_state(&mut self.state);
            self.full_cycles += 1;
        } else {
            self.rtl.read_regs(&mut self.state);
        }
        let before = self.report.total_mismatches;
        if first {
            self.compare_strings();
        }
        // the model's half (its registers packed, its edge), here or on the helper thread while
        // the RTL steps here; on two threads, with the comparison of the registers and the
        // packing of the outputs (after the first cycle): the words the half writes are then
        // read by no other thread, where a comparison here would move every line of them
        // between the cores each cycle (at 32 ports that doubled the half's time)
        std::mem::swap(&mut side.model, &mut self.model);
        side.pack = !first;
        side.full = full;
        let on_helper = self.helper.is_some() && !first;
        side.compare = on_helper;
        side.post = on_helper && !side.out_slots.is_empty();
        if on_helper {
            std::mem::swap(&mut side.rtl_state, &mut self.state);
        }
        let side = match self.helper.take() {
            Some(h) => {
                h.start(side);
                self.step_rtl(inputs);
                let side = h.finish();
                self.helper = Some(h);
                side
            }
            None => {
                side.run(given);
                self.step_rtl(inputs);
                side
            }
        };
        let mut side = side;
        std::mem::swap(&mut side.model, &mut self.model);
        if on_helper {
            std::mem::swap(&mut side.rtl_state, &mut self.state);
        }
        if !first {
            self.compare_words(&side, full, on_helper);
        }
        // the RAM words after this edge are the RTL's iff they were equal before it (compared,
        // or equal by the same argument a cycle earlier) and both sides wrote the same words:
        // otherwise the next cycle compares every word (and reports those that differ)
        self.full = self.report.total_mismatches != before
            || (!self.exhaustive && {
                // (the half listed its RAM writes if it packed the outputs)
                if side.post {
                    std::mem::swap(&mut self.mwrites, &mut side.mwrites);
                } else {
                    self.model.ram_writes(&mut self.mwrites);
                }
                !self.same_writes()
            });
        if first {
            if let Err(e) = self.index_outputs(&side.mout) {
                self.side = Some(side);
                return Err(e);
            }
            side.out_slots = self.out_slots.clone().into();
        }
        // (here unless the model's half packed them)
        if !side.post {
            side.pack_outputs();
        }
        if let Some(i) = side.out_stray {
            let v = &self.rtl.layout.outputs[self.out_index[i]];
            let n = format!("{} (model wider than {} bits)", v.name, v.width);
            let got = v.bits(&self.out, 0);
            self.note(&n, got, format!("{:?}", side.mout));
        }
        let mout_words = &side.mout_words;
        if self.out != *mout_words {
            self.differ.clear();
            self.differ.extend(
                (0..self.out.len())
                    .filter(|&w| self.out[w] != mout_words[w] && self.out_owner[w] != u32::MAX)
                    .map(|w| self.out_owner[w]),
            );
            self.differ.sort_unstable();
            self.differ.dedup();
            for k in 0..self.differ.len() {
                let v = &self.rtl.layout.outputs[self.out_index[self.differ[k] as usize]];
                let (got, want) = (v.bits(&self.out, 0), v.bits(mout_words, 0));
                if got != want {
                    let n = v.name.clone();
                    self.note(&n, got, want);
                }
            }
        }
        self.side = Some(side);
        self.report.cycles += 1;
        Ok(())
    }
}

fn mask128(width: usize) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// The model's RAMs (`ram` and `ram128`), in visit order: name, word width.
#[derive(Default)]
struct RamNames(Vec<(String, usize)>);

impl RegSink for RamNames {
    fn reg(&mut self, _: std::fmt::Arguments<'_>, _: &[u64], _: usize) {}

    fn ram(&mut self, name: std::fmt::Arguments<'_>, _: &[u64], width: usize) {
        self.0.push((name.to_string(), width));
    }

    fn ram128(&mut self, name: std::fmt::Arguments<'_>, _: &[u128], width: usize) {
        self.0.push((name.to_string(), width));
    }
}

/// Per register of the model (in visit order): whether it is a RAM's word.
struct RamWords(Vec<bool>);

impl RegSink for RamWords {
    fn reg(&mut self, _: std::fmt::Arguments<'_>, _: &[u64], _: usize) {
        self.0.push(false);
    }

    fn ram(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], _: usize) {
        self.0.extend(words.iter().map(|_| true));
    }

    fn ram128(&mut self, _: std::fmt::Arguments<'_>, words: &[u128], _: usize) {
        self.0.extend(words.iter().map(|_| true));
    }
}

/// Packs values, in a visit's order, into 32-bit words at given places: value `i` into
/// `buf[slots[i].0 ..][.. slots[i].1]`, its bits above its width cleared. (The model's registers
/// into the RTL's state words, the model's outputs into the RTL's output words.)
struct Pack<'a> {
    slots: &'a [(u32, u32)],
    buf: &'a mut [u32],
    i: usize,
    /// pack the RAMs' words too (else skip them)
    rams: bool,
    /// the first value (its index) with a bit set above its width: a register the model holds
    /// wider than the RTL's, which packing would hide
    stray: Option<usize>,
}

/// Whether a value of `width` bits, least significant word first, has a bit set above it.
#[inline(always)]
fn above_width(words: &[u64], width: usize) -> bool {
    words.iter().enumerate().any(|(k, &w)| {
        let lo = 64 * k;
        if lo >= width {
            w != 0
        } else {
            width - lo < 64 && w >> (width - lo) != 0
        }
    })
}

/// Word `b` (32 bits) of a value of `width` bits, the bits above the width cleared.
#[inline]
fn word_of(words: &[u64], b: usize, width: usize) -> u32 {
    let left = width.saturating_sub(32 * b);
    let mask = if left >= 32 {
        u32::MAX
    } else {
        (1u32 << left) - 1
    };
    words.get(b / 2).map_or(0, |w| (w >> (32 * (b % 2))) as u32) & mask
}

impl Pack<'_> {
    /// A value wider than 64 bits (or of more words than two) into its `n` words at `at`.
    #[inline(never)]
    fn val_wide(&mut self, v: u128, width: usize, at: usize, n: usize) {
        if self.stray.is_none() && width < 128 && v >> width != 0 {
            self.stray = Some(self.i - 1);
        }
        let v = if width < 128 {
            v & ((1u128 << width) - 1)
        } else {
            v
        };
        for (b, w) in self.buf[at..at + n].iter_mut().enumerate() {
            *w = if b < 4 { (v >> (32 * b)) as u32 } else { 0 };
        }
    }

    #[inline(always)]
    fn next(&mut self) -> (usize, usize) {
        let (at, n) = self.slots[self.i];
        self.i += 1;
        (at as usize, n as usize)
    }
}

impl RegSink for Pack<'_> {
    #[inline(always)]
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        if self.stray.is_none() && above_width(words, width) {
            self.stray = Some(self.i);
        }
        let (at, n) = self.next();
        for (b, w) in self.buf[at..at + n].iter_mut().enumerate() {
            *w = word_of(words, b, width);
        }
    }

    /// (a value of at most 128 bits, the visits' usual register: one or two words straight
    /// from its low 64 bits when it fits in them, in 64-bit arithmetic)
    #[inline(always)]
    fn val(&mut self, _: std::fmt::Arguments<'_>, v: u128, width: usize) {
        let (at, n) = self.next();
        if (1..=64).contains(&width) && n <= 2 {
            let (lo, hi) = (v as u64, (v >> 64) as u64);
            let m = u64::MAX >> (64 - width);
            if hi | (lo & !m) != 0 && self.stray.is_none() {
                self.stray = Some(self.i - 1);
            }
            let x = lo & m;
            self.buf[at] = x as u32;
            if n == 2 {
                self.buf[at + 1] = (x >> 32) as u32;
            }
        } else {
            self.val_wide(v, width, at, n);
        }
    }

    fn ram(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        if !self.rams {
            self.i += words.len();
            return;
        }
        for w in words {
            self.reg(name, &[*w], width);
        }
    }

    fn ram128(&mut self, name: std::fmt::Arguments<'_>, words: &[u128], width: usize) {
        if !self.rams {
            self.i += words.len();
            return;
        }
        for w in words {
            self.val(name, *w, width);
        }
    }

    /// (the values streamed into the words in order, each word written once: no clearing
    /// first, no read-modify-write)
    #[inline(always)]
    fn cat(
        &mut self,
        _: std::fmt::Arguments<'_>,
        n: usize,
        width: usize,
        get: impl Fn(usize) -> u64,
    ) {
        let (at, nw) = self.next();
        let out = &mut self.buf[at..at + nw];
        let mask = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        // `acc` holds the `fill` (< 32) bits not yet written, then the next value above them
        // (in 64 bits for values of at most 32, the flags and most fields: one word out at most
        // a value; else in 128)
        let (mut wi, mut stray) = (0usize, false);
        if width <= 32 {
            let (mut acc, mut fill) = (0u64, 0usize);
            for k in 0..n {
                let v = get(k);
                stray |= v & !mask != 0;
                acc |= (v & mask) << fill;
                fill += width;
                if fill >= 32 {
                    if let Some(w) = out.get_mut(wi) {
                        *w = acc as u32;
                    }
                    wi += 1;
                    acc >>= 32;
                    fill -= 32;
                }
            }
            if fill > 0 {
                if let Some(w) = out.get_mut(wi) {
                    *w = acc as u32;
                }
                wi += 1;
            }
        } else {
            cat_wide(out, n, width, mask, &get, &mut wi, &mut stray);
        }
        if wi < nw {
            out[wi..].fill(0);
        }
        if stray && self.stray.is_none() {
            self.stray = Some(self.i - 1);
        }
    }
}

/// [`Pack::cat`] for values of 33 to 64 bits: the values streamed into `out` from word `*wi` on,
/// through a 128-bit accumulator; `*stray` set if one has a bit above `mask`.
#[inline(never)]
fn cat_wide(
    out: &mut [u32],
    n: usize,
    width: usize,
    mask: u64,
    get: &dyn Fn(usize) -> u64,
    wi: &mut usize,
    stray: &mut bool,
) {
    let (mut acc, mut fill) = (0u128, 0usize);
    for k in 0..n {
        let v = get(k);
        *stray |= v & !mask != 0;
        acc |= u128::from(v & mask) << fill;
        fill += width;
        while fill >= 32 {
            if let Some(w) = out.get_mut(*wi) {
                *w = acc as u32;
            }
            *wi += 1;
            acc >>= 32;
            fill -= 32;
        }
    }
    if fill > 0 {
        if let Some(w) = out.get_mut(*wi) {
            *w = acc as u32;
        }
        *wi += 1;
    }
}

/// Every cycle of `stim` (packed inputs, one cycle after another) through model and RTL.
pub fn lockstep(p: &BlockParams, stim: &[u32], limit: usize) -> Result<Report, LockstepError> {
    let mut l = LockstepV3::new(p, limit)?;
    let wpc = l.rtl.layout.input_words;
    if stim.is_empty() || !stim.len().is_multiple_of(wpc) {
        return Err(LockstepError::Stimulus {
            words: stim.len(),
            per_cycle: wpc,
        });
    }
    for c in stim.chunks(wpc) {
        l.cycle(c)?;
    }
    Ok(l.report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One value of a visit: a register (`val`) or a concatenation (`cat`) of values of one
    /// width.
    #[derive(Debug, Clone)]
    enum Item {
        Val(u128, usize),
        Cat(Vec<u64>, usize),
    }

    /// The words an RTL value of `width` bits takes.
    fn words(width: usize) -> usize {
        width.div_ceil(32).max(1)
    }

    /// The reference: bit by bit, each value's bits above its width dropped; and whether one
    /// had a bit there.
    fn reference(items: &[Item]) -> (Vec<u32>, Option<usize>) {
        let mut out = vec![];
        let mut stray = None;
        for (i, it) in items.iter().enumerate() {
            let (bits, width): (Vec<bool>, usize) = match it {
                Item::Val(v, w) => ((0..128).map(|b| v >> b & 1 == 1).collect(), *w),
                Item::Cat(vs, w) => {
                    let mut bits = vec![];
                    for v in vs {
                        bits.extend((0..*w).map(|b| b < 64 && v >> b & 1 == 1));
                        if *w < 64 && v >> w != 0 {
                            stray = stray.or(Some(i));
                        }
                    }
                    (bits, vs.len() * w)
                }
            };
            if let Item::Val(v, w) = it {
                if *w < 128 && v >> w != 0 {
                    stray = stray.or(Some(i));
                }
            }
            let mut ws = vec![0u32; words(width)];
            for (b, &bit) in bits.iter().take(width).enumerate() {
                ws[b / 32] |= u32::from(bit) << (b % 32);
            }
            out.extend(ws);
        }
        (out, stray)
    }

    fn item() -> impl Strategy<Value = Item> {
        prop_oneof![
            (1usize..=128, any::<u128>(), any::<bool>()).prop_map(|(w, v, fits)| {
                let v = if fits && w < 128 {
                    v & ((1 << w) - 1)
                } else {
                    v
                };
                Item::Val(v, w)
            }),
            (
                1usize..=64,
                proptest::collection::vec(any::<u64>(), 0..20),
                any::<bool>()
            )
                .prop_map(|(w, vs, fits)| {
                    let m = if w == 64 { u64::MAX } else { (1 << w) - 1 };
                    Item::Cat(
                        vs.iter().map(|v| if fits { v & m } else { *v }).collect(),
                        w,
                    )
                }),
        ]
    }

    proptest! {
        /// `Pack` (its 64-bit fast paths and its wide ones) packs every value as the bit-by-bit
        /// reference does, and finds the first value with a bit above its width.
        #[test]
        fn pack_is_the_bitwise_packing(items in proptest::collection::vec(item(), 1..12)) {
            let (want, want_stray) = reference(&items);
            let mut slots = vec![];
            let mut at = 0u32;
            for it in &items {
                let w = match it {
                    Item::Val(_, w) => *w,
                    Item::Cat(vs, w) => vs.len() * w,
                };
                let n = words(w) as u32;
                slots.push((at, n));
                at += n;
            }
            // (stale words first: every word must be written)
            let mut buf = vec![0xdead_beef; at as usize];
            let mut p = Pack { slots: &slots, buf: &mut buf, i: 0, rams: false, stray: None };
            for it in &items {
                match it {
                    Item::Val(v, w) => p.val(format_args!("v"), *v, *w),
                    Item::Cat(vs, w) => p.cat(format_args!("c"), vs.len(), *w, |k| vs[k]),
                }
            }
            let stray = p.stray;
            prop_assert_eq!(buf, want);
            prop_assert_eq!(stray, want_stray);
        }
    }
}
