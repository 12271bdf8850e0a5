//! Block-level stimulus: a seeded constrained-random generator and the directed corner cases.
//!
//! Both only remove what they put in: they learn from the block's accept outputs which packets are
//! in which queue, and departures and dequeues take the packet at a queue's head. Everything random
//! comes from one seed (ChaCha8), so a seed is a replay.

use crate::block::coverage::Point;
use crate::block::{
    BlockConfig, BlockParams, Departure, Enqueue, Inputs, Mode, Outputs, Pkt, PrioThresholds, NPRIO,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// A source of one cycle of inputs at a time.
pub trait Stimulus {
    /// Fill this cycle's inputs (`inp` comes in idle). False when the stimulus is over.
    fn next(&mut self, inp: &mut Inputs) -> bool;
    /// The block's outputs for the cycle just driven, for the accept decisions.
    fn observe(&mut self, inp: &Inputs, out: &Outputs);
}

/// Packets present per queue, learnt from the accept outputs.
#[derive(Debug, Clone)]
struct Queues {
    ing: Vec<VecDeque<u16>>,
    eg: Vec<VecDeque<u16>>,
}

impl Queues {
    fn new(p: &BlockParams) -> Self {
        Queues {
            ing: vec![VecDeque::new(); p.nq()],
            eg: vec![VecDeque::new(); p.nq()],
        }
    }
    fn clear(&mut self) {
        self.ing.iter_mut().for_each(VecDeque::clear);
        self.eg.iter_mut().for_each(VecDeque::clear);
    }
    fn observe(&mut self, np: usize, inp: &Inputs, out: &Outputs) {
        if inp.rst {
            self.clear();
            return;
        }
        for (i, a) in inp.arr.iter().enumerate() {
            if let Some(pkt) = a {
                if out.arr_accept >> i & 1 == 1 {
                    self.ing[i * NPRIO + usize::from(pkt.prio & 7)].push_back(pkt.size);
                }
            }
        }
        if let (Some(e), true) = (&inp.enq, out.enq_accept) {
            if usize::from(e.oport) < np {
                self.eg[usize::from(e.oport) * NPRIO + usize::from(e.prio & 7)].push_back(e.size);
            }
        }
    }
}

/// A random valid configuration for `mode`.
pub fn random_config(p: &BlockParams, mode: Mode, rng: &mut ChaCha8Rng) -> BlockConfig {
    let unit = 1u32 << p.cell_log2;
    let lim = p.occ_mask();
    loop {
        let mut prio = [PrioThresholds::paper(); NPRIO];
        for t in prio.iter_mut() {
            let to_units = |b: u32| (b / unit).min(lim);
            let eg_max = rng.gen_range(6_000..=40_000);
            let eg_xoff = eg_max * rng.gen_range(30..=85) / 100;
            let eg_xon = eg_xoff * rng.gen_range(30..=95) / 100;
            let eg_warn = if rng.gen_bool(0.5) {
                eg_xon
            } else {
                rng.gen_range(eg_xon..=eg_xoff)
            };
            let ing_max = rng.gen_range(6_000..=40_000);
            let ing_xoff = ing_max * rng.gen_range(40..=90) / 100;
            let ing_xon = ing_xoff * rng.gen_range(30..=95) / 100;
            *t = PrioThresholds {
                ing_max: to_units(ing_max),
                ing_xoff: to_units(ing_xoff),
                ing_xon: to_units(ing_xon),
                eg_max: to_units(eg_max),
                eg_xoff: to_units(eg_xoff),
                eg_xon: to_units(eg_xon),
                eg_warn: to_units(eg_warn),
            };
        }
        let one = 1u32 << p.cut_f;
        let cut_fixed = match rng.gen_range(0..10) {
            0 => 1,
            1 => one,
            2..=4 => rng.gen_range(1..=one),
            _ => crate::block::cfg::cut_from_fraction(rng.gen_range(0.5..0.95), p.cut_f).max(1),
        };
        let mut lossless = 0u8;
        while lossless == 0 {
            lossless = (0..rng.gen_range(1..=3)).fold(0, |m, _| m | 1 << rng.gen_range(0..8));
        }
        let cfg = BlockConfig {
            prio,
            lossless,
            mode,
            cut_fixed,
            quanta: rng.gen(),
            refresh: rng.gen_range(1..=3000),
        };
        if cfg.validate(p).is_ok() {
            return cfg;
        }
    }
}

/// Knobs of the random generator, drawn from the seed.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Offered load into ingress, in packets per cycle over all ports.
    pub load: f64,
    /// Probability that an enqueue goes to the hot output.
    pub skew: f64,
    /// Pipeline latency from departure to enqueue, cycles.
    pub latency: usize,
    /// Cycles per drain phase (the hot port's drain rate alternates low/high).
    pub phase: u64,
    /// Probability of a reset per cycle.
    pub reset_rate: f64,
    /// Probability of a configuration rewrite per cycle.
    pub reconfig_rate: f64,
    /// Probability that a port's MAC is ready for a PFC frame in a cycle (1: always).
    pub mac_ready: f64,
    /// The run starts with a reset in its first cycle.
    pub reset_first: bool,
    /// The mode register reads 0 (PFC only) until this cycle, then the run's mode.
    pub mode_off_until: u64,
    /// The code written to the mode register: 1 Stop-Max; 2, or 3 for odd seeds, Stop-Calibrate.
    pub mode_code: u32,
}

/// The idle cycles a steady run leaves between its last configuration write and its first lane:
/// `16 + ceil(NP/8)`. A block that copies its thresholds after a write needs time before the lanes
/// may use them (our v3 block takes `8 + ceil(NP/8)` cycles for its threshold copies); this is that
/// with 8 cycles to spare.
pub fn steady_gap(np: usize) -> u64 {
    16 + np.div_ceil(8) as u64
}

/// The seeded constrained-random generator.
pub struct RandomStim {
    p: BlockParams,
    mode: Mode,
    rng: ChaCha8Rng,
    pub cfg: BlockConfig,
    pub profile: Profile,
    /// A steady run ([`RandomStim::steady`]): every write before the first lane.
    steady: bool,
    /// In a steady run, the first cycle that may carry a lane: [`steady_gap`] cycles after the
    /// last write so far.
    lanes_from: u64,
    writes: VecDeque<(u8, u32)>,
    q: Queues,
    pipe: VecDeque<(u64, Enqueue)>,
    hot: usize,
    rr: usize,
    cycle: u64,
    cycles: u64,
}

impl RandomStim {
    pub fn new(p: &BlockParams, mode: Mode, seed: u64, cycles: u64) -> Self {
        Self::build(p, mode, seed, cycles, false)
    }

    /// A run whose configuration a block may take statically: the configuration registers (the
    /// mode register with the run's code, never 0 first) are written once, in consecutive cycles
    /// from the first (the second when the run starts with a reset); then [`steady_gap`] cycles
    /// with neither a write nor a lane; then the traffic, with no write of any kind (no rewrite, no
    /// write to an address without a register) and no reset to the end of the run. The writes
    /// program exactly [`RandomStim::cfg`].
    pub fn steady(p: &BlockParams, mode: Mode, seed: u64, cycles: u64) -> Self {
        Self::build(p, mode, seed, cycles, true)
    }

    fn build(p: &BlockParams, mode: Mode, seed: u64, cycles: u64, steady: bool) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let cfg = random_config(p, mode, &mut rng);
        let profile = Profile {
            load: rng.gen_range(0.2..1.6),
            skew: rng.gen_range(0.3..0.95),
            latency: rng.gen_range(1..=24),
            phase: rng.gen_range(300..=5000),
            reset_rate: if rng.gen_bool(0.5) {
                1.0 / 40_000.0
            } else {
                0.0
            },
            reconfig_rate: if rng.gen_bool(0.3) {
                1.0 / 30_000.0
            } else {
                0.0
            },
            mac_ready: if rng.gen_bool(0.3) {
                1.0
            } else {
                rng.gen_range(0.002..0.5)
            },
            reset_first: false,
            mode_off_until: 0,
            mode_code: 0,
        };
        let profile = Profile {
            reset_first: rng.gen_bool(0.5),
            mode_off_until: if rng.gen_bool(0.5) {
                rng.gen_range(100..1500)
            } else {
                0
            },
            // Mode 3 acts as 2 (docs/microarchitecture-v2.md): odd seeds drive it.
            mode_code: match mode {
                Mode::StopCal if seed % 2 == 1 => 3,
                m => u32::from(m.code().value()),
            },
            ..profile
        };
        // A steady run draws the same knobs, then drops those that write or reset under traffic.
        let profile = if steady {
            Profile {
                reset_rate: 0.0,
                reconfig_rate: 0.0,
                mode_off_until: 0,
                ..profile
            }
        } else {
            profile
        };
        let hot = rng.gen_range(0..p.np);
        let mut writes = VecDeque::new();
        let mut stim = RandomStim {
            p: *p,
            mode,
            writes: VecDeque::new(),
            cfg,
            profile,
            steady,
            lanes_from: 0,
            q: Queues::new(p),
            pipe: VecDeque::new(),
            hot,
            rr: 0,
            cycle: 0,
            cycles,
            rng,
        };
        writes.extend(stim.widened(stim.cfg.register_writes(), true));
        stim.writes = writes;
        stim
    }

    /// Configuration writes as the run drives them: the mode register gets the run's code (0 while
    /// the run starts in mode 0, when `first`), and some writes carry bits above their register's
    /// width, which the block must drop.
    fn widened(&mut self, w: Vec<(u8, u32)>, first: bool) -> Vec<(u8, u32)> {
        let p = self.p;
        w.into_iter()
            .map(|(a, d)| {
                let d = if a == crate::block::cfg::addr::MODE {
                    if first && self.profile.mode_off_until > 0 {
                        0
                    } else {
                        self.profile.mode_code
                    }
                } else {
                    d
                };
                let width = crate::block::cfg::CfgRegs::width(&p, a).unwrap_or(32);
                if width < 32 && self.rng.gen_bool(0.3) {
                    (a, d | self.rng.gen::<u32>() << width)
                } else {
                    (a, d)
                }
            })
            .collect()
    }

    fn size(&mut self) -> u16 {
        if self.rng.gen_bool(0.01) {
            return 0;
        }
        let s: u16 = match self.rng.gen_range(0..10) {
            0..=3 => self.rng.gen_range(64..=1518),
            4 | 5 => 1500,
            6 | 7 => 64,
            8 => 500 * self.rng.gen_range(1..=3),
            _ => 9000,
        };
        s.min(crate::block::mask32(self.p.sw) as u16)
    }

    fn prio(&mut self) -> u8 {
        if self.rng.gen_bool(0.75) {
            // a lossless priority
            let ll: Vec<u8> = (0..8)
                .filter(|&b| self.cfg.lossless >> b & 1 == 1)
                .collect();
            ll[self.rng.gen_range(0..ll.len())]
        } else {
            self.rng.gen_range(0..8)
        }
    }

    /// A reset this cycle (the first cycle's when the profile says so, then at random): the
    /// pipeline empties and the configuration is written again. True when there is one.
    fn reset(&mut self, now: u64, inp: &mut Inputs) -> bool {
        if (now == 0 && self.profile.reset_first)
            || (self.profile.reset_rate > 0.0 && self.rng.gen_bool(self.profile.reset_rate))
        {
            inp.rst = true;
            self.pipe.clear();
            let w = self.cfg.register_writes();
            self.writes = self.widened(w, now < self.profile.mode_off_until).into();
            return true;
        }
        false
    }

    /// This cycle's configuration write: a random new configuration now and then, the mode
    /// register's write when mode 0 ends, a stray write to no register. False when the cycle
    /// drives no lane (a steady run's writes and the gap after them).
    fn config_write(&mut self, now: u64, inp: &mut Inputs) -> bool {
        if self.profile.reconfig_rate > 0.0 && self.rng.gen_bool(self.profile.reconfig_rate) {
            self.cfg = random_config(&self.p, self.mode, &mut self.rng);
            let w = self.cfg.register_writes();
            let w = self.widened(w, now < self.profile.mode_off_until);
            self.writes.extend(w);
        }
        if now == self.profile.mode_off_until && now > 0 {
            let code = self.profile.mode_code;
            self.writes.push_back((crate::block::cfg::addr::MODE, code));
        }
        inp.cfg = self.writes.pop_front();
        if self.steady {
            // Writes first, then the gap, then lanes; only the writes of the start are queued.
            if inp.cfg.is_some() {
                self.lanes_from = now + 1 + steady_gap(self.p.np);
            }
            if inp.cfg.is_some() || now < self.lanes_from {
                return false;
            }
        }
        // Now and then a write to an address that holds no register: the block ignores it.
        if !self.steady && inp.cfg.is_none() && self.rng.gen_bool(1.0 / 300.0) {
            inp.cfg = Some((self.rng.gen_range(0x3D..=0xFF), self.rng.gen()));
        }
        true
    }

    /// MACs busy with data frames: each takes a PFC frame only when ready.
    fn mac_ready(&mut self, inp: &mut Inputs) {
        if self.profile.mac_ready < 1.0 {
            inp.pfc_ready = 0;
            for i in 0..self.p.np {
                if self.rng.gen_bool(self.profile.mac_ready) {
                    inp.pfc_ready |= 1u128 << i;
                }
            }
        }
    }

    /// Arrivals: each port at its share of the load.
    fn arrivals(&mut self, inp: &mut Inputs) {
        let np = self.p.np;
        let per_port = (self.profile.load / np as f64).min(1.0);
        for i in 0..np {
            if self.rng.gen_bool(per_port) {
                let (prio, size) = (self.prio(), self.size());
                inp.arr[i] = Some(Pkt { prio, size });
            }
        }
    }

    /// One departure into the pipeline: round robin over ports, a random non-empty priority; its
    /// enqueue comes out of the pipeline `latency` cycles later, to the hot port or a random one.
    fn departure(&mut self, now: u64, inp: &mut Inputs) {
        let np = self.p.np;
        for k in 0..np {
            let i = (self.rr + k) % np;
            let ne: Vec<usize> = (0..NPRIO)
                .filter(|&pr| !self.q.ing[i * NPRIO + pr].is_empty())
                .collect();
            if ne.is_empty() {
                continue;
            }
            let pr = ne[self.rng.gen_range(0..ne.len())];
            let size = self.q.ing[i * NPRIO + pr].pop_front().unwrap();
            inp.dep = Some(Departure {
                port: i as u8,
                prio: pr as u8,
                size,
            });
            let oport = if self.rng.gen_bool(self.profile.skew) {
                self.hot
            } else {
                self.rng.gen_range(0..np)
            };
            let mut e = Enqueue {
                oport: oport as u8,
                prio: pr as u8,
                iport: i as u8,
                size,
            };
            // Lanes naming a port that does not exist (NP not a power of two) must be ignored.
            if !np.is_power_of_two() && self.rng.gen_bool(0.01) {
                e.oport = (np + self.rng.gen_range(0..(np.next_power_of_two() - np))) as u8;
            }
            self.pipe.push_back((now + self.profile.latency as u64, e));
            self.rr = (i + 1) % np;
            break;
        }
    }

    /// Dequeues: the hot port drains slowly in one phase and fast in the next.
    fn dequeues(&mut self, now: u64, inp: &mut Inputs) {
        let slow = (now / self.profile.phase).is_multiple_of(2);
        for o in 0..self.p.np {
            let rate = if o == self.hot {
                if slow {
                    0.05
                } else {
                    0.9
                }
            } else {
                0.6
            };
            if !self.rng.gen_bool(rate) {
                continue;
            }
            let ne: Vec<usize> = (0..NPRIO)
                .filter(|&pr| !self.q.eg[o * NPRIO + pr].is_empty())
                .collect();
            if ne.is_empty() {
                continue;
            }
            let pr = if self.rng.gen_bool(0.5) {
                *ne.last().unwrap()
            } else {
                ne[self.rng.gen_range(0..ne.len())]
            };
            let size = self.q.eg[o * NPRIO + pr].pop_front().unwrap();
            inp.deq[o] = Some(Pkt {
                prio: pr as u8,
                size,
            });
        }
    }
}

impl Stimulus for RandomStim {
    fn next(&mut self, inp: &mut Inputs) -> bool {
        if self.cycle >= self.cycles {
            return false;
        }
        let now = self.cycle;
        self.cycle += 1;
        if self.reset(now, inp) || !self.config_write(now, inp) {
            return true;
        }
        self.mac_ready(inp);
        self.arrivals(inp);
        self.departure(now, inp);
        // The end of the pipeline.
        if self.pipe.front().is_some_and(|&(due, _)| due <= now) {
            inp.enq = self.pipe.pop_front().map(|(_, e)| e);
        }
        self.dequeues(now, inp);
        true
    }

    fn observe(&mut self, inp: &Inputs, out: &Outputs) {
        self.q.observe(self.p.np, inp, out);
    }
}

/// A precomputed sequence of cycles (the directed cases).
pub struct Script {
    pub name: String,
    pub cycles: Vec<Inputs>,
    pos: usize,
}

impl Script {
    /// A script of recorded cycles.
    pub fn new(name: &str, cycles: Vec<Inputs>) -> Self {
        Script {
            name: name.to_string(),
            cycles,
            pos: 0,
        }
    }
}

impl Stimulus for Script {
    fn next(&mut self, inp: &mut Inputs) -> bool {
        match self.cycles.get(self.pos) {
            Some(c) => {
                inp.clone_from(c);
                self.pos += 1;
                true
            }
            None => false,
        }
    }
    fn observe(&mut self, _: &Inputs, _: &Outputs) {}
}

/// Builds a directed case cycle by cycle, tracking occupancies in units so that a case can land
/// exactly on a threshold. Sizes are whole units (multiples of the cell).
pub struct Builder {
    p: BlockParams,
    pub cfg: BlockConfig,
    cycles: Vec<Inputs>,
    /// `pfc_ready` of the cycles added from now on (bit i: port i's MAC is ready).
    ready: u128,
    eg: Vec<VecDeque<u32>>,
    ing: Vec<VecDeque<u32>>,
}

impl Builder {
    pub fn new(p: &BlockParams, cfg: BlockConfig) -> Self {
        let mut b = Builder {
            p: *p,
            cfg,
            cycles: vec![],
            ready: crate::block::mask128(p.np),
            eg: vec![VecDeque::new(); p.nq()],
            ing: vec![VecDeque::new(); p.nq()],
        };
        b.configure();
        b
    }

    fn configure(&mut self) {
        for w in self.cfg.register_writes() {
            let mut c = Inputs::idle(self.p.np);
            c.cfg = Some(w);
            self.cycles.push(c);
        }
        self.idle(1);
    }

    fn bytes(&self, units: u32) -> u16 {
        (units << self.p.cell_log2) as u16
    }

    fn max_units(&self) -> u32 {
        u32::from(u16::MAX) >> self.p.cell_log2
            & crate::block::mask32(self.p.sw) >> self.p.cell_log2
    }

    fn cycle(&mut self) -> &mut Inputs {
        let mut c = Inputs::idle(self.p.np);
        c.pfc_ready = self.ready;
        self.cycles.push(c);
        self.cycles.last_mut().unwrap()
    }

    pub fn idle(&mut self, n: usize) -> &mut Self {
        for _ in 0..n {
            self.cycle();
        }
        self
    }

    /// Idle long enough for a request to be sorted and its E written: one Stop-Calibrate sort
    /// (`(CW+3)(NP+1)+2` cycles, docs/microarchitecture-v2.md "Latency") and a few cycles more.
    pub fn settle(&mut self) -> &mut Self {
        self.idle(sort_cycles(&self.p) + 4)
    }

    /// From the next cycle on, port i's MAC is ready for a PFC frame (`true`) or busy.
    pub fn mac(&mut self, i: usize, ready: bool) -> &mut Self {
        if ready {
            self.ready |= 1u128 << i;
        } else {
            self.ready &= !(1u128 << i);
        }
        self
    }

    pub fn occ(&self, o: usize, pr: usize) -> u32 {
        self.eg[o * NPRIO + pr].iter().sum()
    }

    pub fn ing_occ(&self, i: usize, pr: usize) -> u32 {
        self.ing[i * NPRIO + pr].iter().sum()
    }

    /// One enqueue of `units` into (o, pr) from input i; tracked when it fits.
    pub fn enq(&mut self, o: usize, pr: usize, i: usize, units: u32) -> &mut Self {
        let size = self.bytes(units);
        let fits = self.occ(o, pr) + units <= self.cfg.prio[pr].eg_max;
        self.cycle().enq = Some(Enqueue {
            oport: o as u8,
            prio: pr as u8,
            iport: i as u8,
            size,
        });
        if fits {
            self.eg[o * NPRIO + pr].push_back(units);
        }
        self
    }

    /// Enqueue and dequeue on the same queue in one cycle (the head packet leaves).
    pub fn enq_deq(&mut self, o: usize, pr: usize, i: usize, units: u32) -> &mut Self {
        let head = *self.eg[o * NPRIO + pr]
            .front()
            .expect("enq_deq on an empty queue");
        let (size, hsize) = (self.bytes(units), self.bytes(head));
        let fits = self.occ(o, pr) + units <= self.cfg.prio[pr].eg_max;
        let c = self.cycle();
        c.enq = Some(Enqueue {
            oport: o as u8,
            prio: pr as u8,
            iport: i as u8,
            size,
        });
        c.deq[o] = Some(Pkt {
            prio: pr as u8,
            size: hsize,
        });
        self.eg[o * NPRIO + pr].pop_front();
        if fits {
            self.eg[o * NPRIO + pr].push_back(units);
        }
        self
    }

    /// Enqueue packets from input i until (o, pr) holds exactly `target` units.
    pub fn fill_to(&mut self, o: usize, pr: usize, i: usize, target: u32) -> &mut Self {
        let chunk = self.max_units().min(1500 >> self.p.cell_log2).max(1);
        while self.occ(o, pr) < target {
            let u = (target - self.occ(o, pr)).min(chunk);
            self.enq(o, pr, i, u);
        }
        self
    }

    /// Dequeue the head packet of (o, pr).
    pub fn deq(&mut self, o: usize, pr: usize) -> &mut Self {
        let u = self.eg[o * NPRIO + pr]
            .pop_front()
            .expect("deq from an empty queue");
        let size = self.bytes(u);
        self.cycle().deq[o] = Some(Pkt {
            prio: pr as u8,
            size,
        });
        self
    }

    /// Dequeue until (o, pr) holds at most `target` units.
    pub fn drain_to(&mut self, o: usize, pr: usize, target: u32) -> &mut Self {
        while self.occ(o, pr) > target {
            self.deq(o, pr);
        }
        self
    }

    /// One arrival at ingress (i, pr).
    pub fn arr(&mut self, i: usize, pr: usize, units: u32) -> &mut Self {
        let size = self.bytes(units);
        let fits = self.ing_occ(i, pr) + units <= self.cfg.prio[pr].ing_max;
        self.cycle().arr[i] = Some(Pkt {
            prio: pr as u8,
            size,
        });
        if fits {
            self.ing[i * NPRIO + pr].push_back(units);
        }
        self
    }

    /// One departure from ingress (i, pr) of its head packet.
    pub fn dep(&mut self, i: usize, pr: usize) -> &mut Self {
        let u = self.ing[i * NPRIO + pr]
            .pop_front()
            .expect("dep from an empty queue");
        let size = self.bytes(u);
        self.cycle().dep = Some(Departure {
            port: i as u8,
            prio: pr as u8,
            size,
        });
        self
    }

    /// Reset, then write the configuration again.
    pub fn reset(&mut self) -> &mut Self {
        self.cycle().rst = true;
        self.eg.iter_mut().for_each(VecDeque::clear);
        self.ing.iter_mut().for_each(VecDeque::clear);
        self.configure();
        self
    }

    pub fn finish(&mut self, name: &str) -> Script {
        self.idle(2 * self.p.np + 8);
        Script {
            name: name.to_string(),
            cycles: std::mem::take(&mut self.cycles),
            pos: 0,
        }
    }
}

/// Cycles a sort engine is busy with one Stop-Calibrate sort, load included.
pub fn sort_cycles(p: &BlockParams) -> usize {
    (p.cw as usize + 3) * (p.np + 1) + 2
}

/// The directed corner cases, by name.
pub const DIRECTED: &[&str] = &[
    "thresholds_exact",
    "counter_saturation",
    "argmax_tie",
    "clear_at_warn",
    "clear_during_increment",
    "pending_cleared",
    "cut_min_step",
    "cut_one",
    "cut_one_held",
    "all_queues_request",
    "xon_during_sort",
    "refresh_expiry",
    "reset_mid_traffic",
    "mac_busy",
];

/// The corners a directed case is named after: every one must happen when the case runs through
/// the model ([`check_corners`]; `capfc golden gen` refuses a case that misses one).
pub fn directed_corners(name: &str, mode: Mode) -> Vec<Point> {
    use Point::*;
    let sorted = if mode == Mode::StopCal {
        SortCalDone
    } else {
        SortMaxDone
    };
    match name {
        "thresholds_exact" => vec![
            EgAtWarn,
            EgAtXoff,
            EgFitExact,
            EgReject,
            EgDeqAtWarn,
            EgDeqAtXon,
            IngFitExact,
            IngReject,
            IngDepAtXon,
        ],
        "counter_saturation" => vec![CntSaturated, SatReadBySort, sorted],
        "argmax_tie" if mode == Mode::StopCal => vec![CalExactTarget, SortCalDone],
        "argmax_tie" => vec![TieBroken, SortMaxDone],
        "clear_at_warn" => vec![EgDeqAtWarn, sorted],
        "clear_during_increment" => vec![ClearDuringWrite, sorted],
        "pending_cleared" => vec![PendingDropped, sorted],
        "cut_min_step" if mode == Mode::StopCal => vec![CutMinStep],
        "cut_one" if mode == Mode::StopCal => vec![CutOne],
        "cut_one_held" if mode == Mode::StopCal => vec![CutOne, SortCalDone],
        "all_queues_request" => vec![PendingAllLossless, PendingMany, sorted],
        "xon_during_sort" => vec![SortCancelled],
        "refresh_expiry" => vec![FrameRefresh],
        "reset_mid_traffic" => vec![ResetWithTraffic],
        "mac_busy" => vec![MacBusy, FrameMerged],
        _ => vec![],
    }
}

/// A directed case that cannot be built or does not do what it is named after.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectedError {
    /// Parameters the directed cases are not written for (`need`: the parameter's bound and why,
    /// `got`: its value).
    #[error("[directed] the directed cases need {need}, not {got}")]
    Params { need: &'static str, got: u64 },
    #[error("[directed] no directed case '{0}'")]
    NoCase(String),
    #[error(transparent)]
    Config(#[from] crate::block::ConfigError),
    /// The case ran but missed corners it is named after.
    #[error("[directed] directed case {name} ({mode}, {np} ports) does not reach the corners it is named after: {}", missed.join(", "))]
    Corners {
        name: String,
        mode: &'static str,
        np: usize,
        missed: Vec<&'static str>,
    },
}

/// For the layers that still report errors as text.
impl From<DirectedError> for String {
    fn from(e: DirectedError) -> String {
        e.to_string()
    }
}

/// Run directed case `name` through the model and check that every corner of
/// [`directed_corners`] happened.
pub fn check_corners(p: &BlockParams, mode: Mode, name: &str) -> Result<(), DirectedError> {
    directed_supported(p)?;
    let mut s = directed(p, mode, name).ok_or_else(|| DirectedError::NoCase(name.to_string()))?;
    let mut m = crate::block::CapfcTop::new(*p)?;
    m.enable_coverage();
    let (mut inp, mut out) = (Inputs::idle(p.np), Outputs::new(p.np));
    loop {
        inp.clear();
        if !s.next(&mut inp) {
            break;
        }
        m.tick_cycle(&inp, &mut out);
        s.observe(&inp, &out);
    }
    let cov = m.coverage().expect("enabled");
    let missed: Vec<&'static str> = directed_corners(name, mode)
        .into_iter()
        .filter(|&pt| cov.hits[pt as usize] == 0)
        .map(Point::name)
        .collect();
    if missed.is_empty() {
        Ok(())
    } else {
        Err(DirectedError::Corners {
            name: name.to_string(),
            mode: mode.name(),
            np: p.np,
            missed,
        })
    }
}

/// A configuration with round thresholds (in units) for the directed cases: lossless priority 3.
pub fn directed_config(p: &BlockParams, mode: Mode) -> BlockConfig {
    let mut c = BlockConfig::paper(p, mode);
    let u = |b: u32| b >> p.cell_log2;
    for t in c.prio.iter_mut() {
        *t = PrioThresholds {
            ing_max: u(24_000),
            ing_xoff: u(16_000),
            ing_xon: u(8_000),
            eg_max: u(24_000),
            eg_xoff: u(12_000),
            eg_xon: u(6_000),
            eg_warn: u(8_000),
        };
    }
    c.lossless = 1 << 3;
    c.refresh = 500;
    c
}

/// The directed cases are written for thresholds of thousands of bytes in units of at most 64 bytes
/// (they land on thresholds exactly and need room between them): other parameter sets are refused
/// here, with the reason, rather than built wrong.
pub fn directed_supported(p: &BlockParams) -> Result<(), DirectedError> {
    for (ok, need, got) in [
        (
            p.cell_log2 <= 6,
            "CELL_LOG2 <= 6 (cells of at most 64 bytes)",
            u64::from(p.cell_log2),
        ),
        (p.np >= 4, "at least 4 ports", p.np as u64),
        (p.ow >= 16, "OW >= 16 (24,000-byte MAX)", u64::from(p.ow)),
        (
            p.sw >= 13,
            "SW >= 13 (packets of up to 6,002 bytes)",
            u64::from(p.sw),
        ),
        (p.cut_f >= 2, "CUT_F >= 2", u64::from(p.cut_f)),
    ] {
        if !ok {
            return Err(DirectedError::Params { need, got });
        }
    }
    Ok(())
}

/// Build directed case `name` for these parameters and mode (`None`: no such case, or parameters
/// [`directed_supported`] refuses).
///
/// (Long: one arm a directed case, each a script of a few lines.)
pub fn directed(p: &BlockParams, mode: Mode, name: &str) -> Option<Script> {
    const PR: usize = 3;
    directed_supported(p).ok()?;
    let np = p.np;
    let mut cfg = directed_config(p, mode);
    let t = cfg.prio[PR];
    let script = match name {
        "thresholds_exact" => {
            let mut b = Builder::new(p, cfg);
            // Egress: exactly WARN, exactly XOFF, one unit above, exactly MAX, one more (dropped).
            b.fill_to(0, PR, 1, t.eg_warn)
                .fill_to(0, PR, 2, t.eg_xoff)
                .settle();
            b.enq(0, PR, 3 % np, 1).settle();
            b.fill_to(0, PR, 1, t.eg_max).enq(0, PR, 2, 1).idle(2);
            b.drain_to(0, PR, 0).idle(2);
            // Drain exactly onto WARN, then XON: the queue is built from its suffix sums, a
            // packet of XOFF+1-WARN, one of WARN-XON, then XON in packets; the sort sets E.
            b.enq(0, PR, 1, t.eg_xoff + 1 - t.eg_warn)
                .enq(0, PR, 2, t.eg_warn - t.eg_xon);
            b.fill_to(0, PR, 1, t.eg_xoff + 1).settle();
            b.deq(0, PR).idle(2).deq(0, PR).settle();
            b.drain_to(0, PR, 0);
            // Ingress: exactly MAX, one more lost, down to exactly XON (a first packet of
            // (MAX - XON) mod chunk units makes the departures of whole chunks land on XON).
            let chunk = 1000 >> p.cell_log2;
            let head = (t.ing_max - t.ing_xon) % chunk;
            if head > 0 {
                b.arr(1, PR, head);
            }
            while b.ing_occ(1, PR) + chunk <= t.ing_max {
                b.arr(1, PR, chunk);
            }
            let rest = t.ing_max - b.ing_occ(1, PR);
            if rest > 0 {
                b.arr(1, PR, rest);
            }
            b.arr(1, PR, 1).idle(3);
            while b.ing_occ(1, PR) > t.ing_xon {
                b.dep(1, PR);
            }
            b.idle(3);
            b.finish(name)
        }
        "counter_saturation" => {
            let mut b = Builder::new(p, cfg);
            // Packets of one size S up to WARN+S+1, then each cycle one leaves and one arrives:
            // the occupancy stays above WARN (also after the dequeue), so every enqueue counts.
            // Input 1 counts to 8 (or half the range), input 2 past saturation; then one unit
            // from input 3 at a time crosses XOFF and the sort reads the row: input 2 saturated
            // is the largest (wrapped, it would be the smallest).
            let s = (1000 >> p.cell_log2).max(1);
            while b.occ(0, PR) <= t.eg_warn + s {
                b.enq(0, PR, 1, s);
            }
            for _ in 0..(u64::from(p.cnt_max()) / 2).min(8) {
                b.enq_deq(0, PR, 1, s);
            }
            for _ in 0..(u64::from(p.cnt_max()) + 4) {
                b.enq_deq(0, PR, 2, s);
            }
            let big = (t.eg_xoff + 1)
                .saturating_sub(b.occ(0, PR))
                .min(b.max_units());
            if big > 0 {
                b.enq(0, PR, 3 % np, big);
            }
            b.fill_to(0, PR, 3 % np, t.eg_xoff + 1).settle();
            b.drain_to(0, PR, 0).finish(name)
        }
        "argmax_tie" => {
            // An exact tie when the sort reads the row: WARN = XOFF - 2, the queue at WARN - 1,
            // then one unit from input 1, input 2, input 1, input 2: both count 2, the last one
            // crosses XOFF. Stop-Max takes input 1 (lowest index). CUT = 0.5: Stop-Calibrate
            // reaches the target exactly with input 1 (S*2^F == CUT*T) and stops there.
            cfg.prio[PR].eg_warn = t.eg_xoff - 2;
            cfg.cut_fixed = 1 << (p.cut_f - 1);
            let mut b = Builder::new(p, cfg);
            b.fill_to(0, PR, 3 % np, t.eg_xoff - 3);
            for _ in 0..2 {
                b.enq(0, PR, 1, 1).enq(0, PR, 2 % np, 1);
            }
            b.settle();
            b.drain_to(0, PR, 0).finish(name)
        }
        "cut_min_step" | "cut_one" | "cut_one_held" => {
            if name == "cut_min_step" {
                cfg.cut_fixed = 1;
            } else {
                cfg.cut_fixed = 1 << p.cut_f;
            }
            let mut b = Builder::new(p, cfg);
            // Counters 3 (input 1), 2 (input 2) and 4 + the crossing packets (the last input):
            // CUT = 1 takes every non-zero input, the smallest CUT only the largest.
            b.fill_to(0, PR, 1, t.eg_warn - 2);
            for _ in 0..3 {
                b.enq(0, PR, 2 % np, 1).enq(0, PR, 1, 1);
            }
            b.fill_to(0, PR, np - 1, t.eg_xoff)
                .enq(0, PR, np - 1, 1)
                .settle();
            if name == "cut_one_held" {
                // The queue stays above WARN for as long as a sort may take with every counted
                // class of every port waiting ((NL + 1) sorts, our envelope's Stop-Calibrate
                // window): a checker can then tell a selection that never came from one that a
                // clear made empty (the cut_narrow fault: CUT = 1.0 read as 0 selects nothing).
                b.idle(p.nl * sort_cycles(p));
            }
            b.drain_to(0, PR, 0).finish(name)
        }
        "clear_at_warn" => {
            // Input 1 builds a large counter and a sort takes it; a dequeue lands exactly on WARN
            // (C cleared, E kept: WARN is above XON); then input 2 alone crosses XOFF again, and
            // the sort must see only input 2's counts.
            let mut b = Builder::new(p, cfg);
            let head = t.eg_xoff + 1 - t.eg_warn;
            b.enq(0, PR, 1, head);
            b.fill_to(0, PR, 1, t.eg_xoff + 1).settle();
            assert_eq!(
                b.occ(0, PR) - head,
                t.eg_warn,
                "{name}: the dequeue lands on WARN"
            );
            b.deq(0, PR).idle(2);
            let chunk = (t.eg_xoff - t.eg_warn) / 3;
            b.enq(0, PR, 2 % np, chunk)
                .enq(0, PR, 2 % np, chunk)
                .enq(0, PR, 2 % np, chunk)
                .enq(0, PR, 2 % np, chunk)
                .settle();
            b.drain_to(0, PR, 0).finish(name)
        }
        "clear_during_increment" => {
            // Input 1 counts to 8; its ninth increment is in stage 2 when a dequeue takes the
            // queue below WARN: the clear wins, the row reads 0. Then input 2 counts 4 and
            // crosses XOFF: the sort must pick input 2 (a kept bit would make it input 1).
            let mut b = Builder::new(p, cfg);
            let head = t.eg_warn - t.eg_xon / 2;
            b.enq(0, PR, 1, head).fill_to(0, PR, 1, t.eg_warn);
            for _ in 0..7 {
                b.enq(0, PR, 1, 1);
            }
            b.enq(0, PR, 1, 1).deq(0, PR);
            let chunk = (t.eg_xoff + 1 - b.occ(0, PR)).div_ceil(5);
            for _ in 0..5 {
                b.enq(0, PR, 2 % np, chunk);
            }
            b.settle();
            b.drain_to(0, PR, 0).finish(name)
        }
        "pending_cleared" => {
            // Two counted classes on port 0. Class 3 crosses XOFF (its sort starts), class 5
            // crosses one cycle later (pending), and the next cycle its big head packet leaves:
            // the clear drops the pending request. Input 3 then counts on class 5 below XOFF:
            // no sort may run for it.
            const PR2: usize = 5;
            cfg.lossless = 1 << PR | 1 << PR2;
            let mut b = Builder::new(p, cfg);
            let big = (t.eg_xoff - t.eg_xon + 2).min(b.max_units());
            b.fill_to(0, PR, 1, t.eg_xoff);
            b.enq(0, PR2, 2 % np, big)
                .fill_to(0, PR2, 2 % np, t.eg_xoff);
            b.enq(0, PR, 1, 1).enq(0, PR2, 2 % np, 1).deq(0, PR2);
            b.fill_to(0, PR2, 3 % np, t.eg_warn + 4 * (t.eg_xoff - t.eg_warn) / 5);
            b.settle().settle();
            b.drain_to(0, PR, 0).drain_to(0, PR2, 0).finish(name)
        }
        "all_queues_request" => {
            // Two counted classes (3 and 5) on every port: every row asks while the other is
            // pending or sorted, then asks again.
            const PR2: usize = 5;
            cfg.lossless = 1 << PR | 1 << PR2;
            let mut b = Builder::new(p, cfg);
            for o in 0..np {
                b.fill_to(o, PR, (o + 1) % np, t.eg_xoff);
                b.fill_to(o, PR2, (o + 3) % np, t.eg_xoff);
            }
            // Every queue crosses XOFF, one per cycle, three times over: requests pile up.
            for _ in 0..3 {
                for o in 0..np {
                    b.enq(o, PR, (o + 2) % np, 1).enq(o, PR2, (o + 2) % np, 1);
                }
            }
            // Per-port engines: each port sorts its two rows up to three times each.
            b.idle(6 * sort_cycles(p) + 8);
            for o in 0..np {
                b.drain_to(o, PR, 0).drain_to(o, PR2, 0);
            }
            b.finish(name)
        }
        "xon_during_sort" => {
            let mut b = Builder::new(p, cfg);
            // Queue 0: one big packet that takes it from above XOFF to below XON when it leaves.
            let big = (t.eg_xoff - t.eg_xon + 2).min(b.max_units());
            b.enq(0, PR, 1, big).fill_to(0, PR, 2, t.eg_xoff);
            // Cross XOFF, then the big packet leaves while the sort runs.
            b.enq(0, PR, 1, 1).idle(1).deq(0, PR).settle();
            // Pending, not yet granted: another queue's sort runs first.
            b.drain_to(0, PR, 0);
            b.enq(0, PR, 1, big).fill_to(0, PR, 2, t.eg_xoff);
            b.fill_to(1 % np, PR, 2, t.eg_xoff + 1);
            b.enq(1 % np, PR, 3 % np, 1)
                .enq(0, PR, 1, 1)
                .deq(0, PR)
                .settle();
            b.drain_to(0, PR, 0).drain_to(1 % np, PR, 0).finish(name)
        }
        "refresh_expiry" => {
            cfg.refresh = 20;
            let mut b = Builder::new(p, cfg);
            let chunk = 1000 >> p.cell_log2;
            while b.ing_occ(2, PR) <= t.ing_xoff {
                b.arr(2, PR, chunk);
            }
            b.idle(100);
            while b.ing_occ(2, PR) > t.ing_xon {
                b.dep(2, PR);
            }
            b.idle(30).finish(name)
        }
        "reset_mid_traffic" => {
            let mut b = Builder::new(p, cfg);
            b.fill_to(0, PR, 1, t.eg_xoff).enq(0, PR, 2, 1);
            b.arr(1, PR, 1000 >> p.cell_log2).idle(1);
            b.reset();
            b.fill_to(0, PR, 1, t.eg_xoff).enq(0, PR, 2, 1).settle();
            b.drain_to(0, PR, 0).finish(name)
        }
        "mac_busy" => {
            // Port 2's MAC takes an XOFF for priority 3, then stays busy (a long data frame) while
            // D changes four times: XOFF 5, XON 3, XOFF 3, XON 3. When it is ready again it takes
            // one frame with the state now: 3 resumed, 5 paused. No change is lost.
            const PR2: usize = 5;
            cfg.lossless = 1 << PR | 1 << PR2;
            let t2 = cfg.prio[PR2];
            let mut b = Builder::new(p, cfg);
            let chunk = 1000 >> p.cell_log2;
            let xoff = |b: &mut Builder, pr: usize, lim: u32| {
                while b.ing_occ(2, pr) <= lim {
                    b.arr(2, pr, chunk);
                }
                b.idle(5);
            };
            let xon = |b: &mut Builder, pr: usize, lim: u32| {
                while b.ing_occ(2, pr) > lim {
                    b.dep(2, pr);
                }
                b.idle(5);
            };
            xoff(&mut b, PR, t.ing_xoff);
            b.mac(2, false);
            xoff(&mut b, PR2, t2.ing_xoff);
            xon(&mut b, PR, t.ing_xon);
            xoff(&mut b, PR, t.ing_xoff);
            xon(&mut b, PR, t.ing_xon);
            b.idle(40).mac(2, true).idle(30);
            xon(&mut b, PR2, t2.ing_xon);
            b.idle(10).finish(name)
        }
        _ => return None,
    };
    Some(script)
}
