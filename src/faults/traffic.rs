//! The fault matrix's own golden sets: traffic through the v3 block's lanes aimed at rules the
//! curated sets (`crate::golden_v3`) meet too rarely, written in format 3 (`docs/golden.md`) so
//! that the plain Verilog testbench replays them (`make replay`).
//!
//! **Aligned** traffic: packets of 1,000 bytes (and now and then 999, 1,001 or 2,000) against
//! thresholds that are multiples of 1,000, so that occupancies land exactly on every threshold
//! and one byte either side of MAX: each comparator's equality case happens. The hot output
//! port's queue goes up through XOFF_e (sorts), mostly from one favourite input, then drains
//! fast down to WARN or XON_e (row clears, E cleared), often while a sort of its row runs, and
//! again with another favourite, so that a count that survives a clear changes the sort; the
//! rows' generations wrap.

use super::{FaultsError, Stim};
use crate::block::{BlockConfig, BlockParams, Mode, PrioThresholds};
use crate::v3::lanes::{Answer, Lane, Lanes};
use crate::v3::top::{Top, TopIn, TopOut};
use crate::v3::{port_width, RegSink};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// A packet as the generator follows it.
#[derive(Debug, Clone, Copy)]
struct Pkt {
    dst: usize,
    prio: usize,
    size: u32,
}

/// The configuration: priorities 3 and 4 lossless and counted, every threshold a multiple of
/// 1,000 bytes (`CELL_LOG2` = 0).
fn config(p: &BlockParams, mode: Mode) -> BlockConfig {
    let t = PrioThresholds {
        ing_max: 10_000,
        ing_xoff: 6_000,
        ing_xon: 3_000,
        eg_max: 12_000,
        eg_xoff: 8_000,
        eg_xon: 4_000,
        eg_warn: 5_000,
    };
    BlockConfig {
        prio: [t; crate::block::NPRIO],
        lossless: (1 << 3) | (1 << 4),
        mode,
        cut_fixed: crate::block::cfg::cut_from_fraction(0.75, p.cut_f),
        quanta: 0x0400,
        refresh: 700,
    }
}

/// The inputs of a cycle as a line's hexadecimal digits (the first input most significant).
pub(super) struct Hex(pub(super) Vec<bool>);

impl RegSink for Hex {
    fn reg(&mut self, _: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        self.0.extend(
            (0..width)
                .rev()
                .map(|b| words.get(b / 64).is_some_and(|w| w >> (b % 64) & 1 == 1)),
        );
    }
}

pub(super) fn hex(bits: &[bool]) -> String {
    let n = bits.len();
    (0..n.div_ceil(4))
        .rev()
        .map(|d| {
            let v = (0..4).fold(0u32, |a, k| {
                let b = 4 * d + k;
                a | (u32::from(b < n && bits[n - 1 - b]) << k)
            });
            char::from_digit(v, 16).expect("a digit")
        })
        .collect()
}

/// Aligned traffic (see the module's header): `cycles` cycles at `p`, seeded, in `mode`. `saw`:
/// the hot port fills and drains by its level (a sawtooth), else it drains fast and slow by
/// turns every 500 cycles (its queue mostly near MAX_e) and the favourite changes with them.
///
/// (Long: one loop a cycle, as a testbench's process: the writes, each port's arrivals and
/// drains by the pattern, the lanes, the block's cycle and its answers.)
pub fn aligned(
    p: &BlockParams,
    seed: u64,
    cycles: u64,
    mode: Mode,
    saw: bool,
) -> Result<Stim, FaultsError> {
    let np = p.np;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut top = Top::new(*p);
    let mut lanes: Lanes<Pkt> = Lanes::new(np);
    let (mut ing, mut eg) = (vec![VecDeque::new(); np], vec![VecDeque::<Pkt>::new(); np]);
    let (mut arr_out, mut deq_out, mut dep_out) = (vec![0usize; np], vec![0usize; np], 0usize);
    let mut busy = vec![0u64; np];
    let mut inputs = Vec::with_capacity(cycles as usize);
    let mut out = TopOut::default();
    let mut answers = vec![];
    let writes = config(p, mode).register_writes();
    let hot = 0usize;
    // the hot port fills to `high` bytes (its favourite input sending most), then drains fast
    // to `low`, and again with another favourite
    let (mut fav, mut drain, mut high, mut low) = (1usize % np, false, 9_000u64, 4_000u64);
    for t in 0..cycles {
        let mut inp = TopIn::idle(np);
        if t == 0 {
            inp.rst = true;
        } else if let Some(&(a, d)) = writes.get(t as usize - 1) {
            (inp.cfg_we, inp.cfg_addr, inp.cfg_wdata) = (true, a, d);
        } else if t > writes.len() as u64 + 30 {
            let level: u64 = eg[hot].iter().map(|p: &Pkt| u64::from(p.size)).sum();
            if !saw {
                if t % 500 == 0 {
                    fav = rng.gen_range(0..np);
                    drain = !drain;
                }
            } else if !drain && level >= high {
                drain = true;
                low = [0, 2_000, 4_000, 5_000][rng.gen_range(0..4)];
            } else if drain && level <= low {
                drain = false;
                fav = rng.gen_range(0..np);
                high = [8_000, 9_000, 11_000][rng.gen_range(0..3)];
            }
            for i in 0..np {
                let rate = if i == fav { 0.25 } else { 0.08 };
                if arr_out[i] == 0 && rng.gen_bool(rate) {
                    let to_hot = match (saw && drain, i == fav) {
                        (true, _) => 0.02,
                        (false, true) => 0.8,
                        (false, false) => 0.3,
                    };
                    let dst = if rng.gen_bool(to_hot) {
                        hot
                    } else {
                        rng.gen_range(0..np)
                    };
                    // (the sawtooth's hot queue is priority 3's, nearly alone)
                    let prio = if saw && dst == hot && rng.gen_bool(0.9) {
                        3
                    } else {
                        [3, 4, 3, 3, 4, 0, 6][rng.gen_range(0..7)]
                    };
                    // (priority 3 in whole thousands: its queues meet every threshold exactly)
                    let size = if prio == 3 {
                        [1000, 1000, 1000, 2000][rng.gen_range(0..4)]
                    } else {
                        [1000, 1000, 1000, 999, 1001, 2000][rng.gen_range(0..6)]
                    };
                    let pkt = Pkt { dst, prio, size };
                    let lane = Lane::Arrive {
                        port: i,
                        prio,
                        size,
                    };
                    lanes.offer(lane, pkt)?;
                    arr_out[i] += 1;
                }
                let rate = match (i == hot, drain, saw) {
                    (true, true, true) => 1.0,
                    (true, false, true) => 0.01,
                    (true, true, false) => 0.06,
                    (true, false, false) => 0.015,
                    _ => 0.2,
                };
                if deq_out[i] == 0 && rng.gen_bool(rate) {
                    if let Some(pkt) = eg[i].pop_front() {
                        let lane = Lane::Dequeue {
                            oport: i,
                            prio: pkt.prio,
                            size: pkt.size,
                        };
                        lanes.offer(lane, pkt)?;
                        deq_out[i] += 1;
                    }
                }
                if busy[i] > 0 {
                    busy[i] -= 1;
                } else if rng.gen_bool(0.003) {
                    busy[i] = rng.gen_range(20..300);
                }
            }
            if dep_out < 2 && rng.gen_bool(0.5) {
                let waiting: Vec<usize> = (0..np).filter(|&i| !ing[i].is_empty()).collect();
                if !waiting.is_empty() {
                    let i = waiting[rng.gen_range(0..waiting.len())];
                    let pkt: Pkt = ing[i].pop_front().expect("waiting");
                    let dep = Lane::Depart {
                        port: i,
                        prio: pkt.prio,
                        size: pkt.size,
                    };
                    let enq = Lane::Enqueue {
                        oport: pkt.dst,
                        prio: pkt.prio,
                        iport: i,
                        size: pkt.size,
                    };
                    lanes.offer(dep, pkt)?;
                    lanes.offer(enq, pkt)?;
                    dep_out += 1;
                }
            }
        }
        for (r, b) in inp.pfc_ready.iter_mut().zip(&busy) {
            *r = *b == 0;
        }
        lanes.drive(&mut inp);
        top.cycle_into(&inp, &mut out);
        answers.clear();
        lanes.settle(t, inp.rst, &out, &mut answers);
        for a in &answers {
            match *a {
                Answer::Accept {
                    lane: Lane::Arrive { port, .. },
                    tag,
                    accepted,
                } => {
                    arr_out[port] -= 1;
                    if accepted {
                        ing[port].push_back(tag);
                    }
                }
                Answer::Accept { tag, accepted, .. } => {
                    if accepted {
                        eg[tag.dst].push_back(tag);
                    }
                }
                Answer::Taken {
                    lane: Lane::Depart { .. },
                    ..
                } => dep_out -= 1,
                Answer::Taken {
                    lane: Lane::Dequeue { oport, .. },
                    ..
                } => deq_out[oport] -= 1,
                Answer::Taken { .. } => {}
            }
        }
        inputs.push(inp);
    }
    let kind = if saw { "sawtooth" } else { "aligned" };
    let name = format!("{kind}_{}_np{np}_seed{seed}", mode.name());
    let files = set_files(&name, p, mode, seed, &inputs, &writes)?;
    Ok(Stim {
        name,
        params: *p,
        cycles: inputs,
        files: Some(files),
    })
}

/// The set's four files (`golden_v3`'s format 3): the stimulus a line per cycle with a pulse or
/// a change of `pfc_ready`, the correct model's outputs a line per change.
fn set_files(
    name: &str,
    p: &BlockParams,
    mode: Mode,
    seed: u64,
    inputs: &[TopIn],
    writes: &[(u8, u32)],
) -> Result<crate::golden_v3::SetFilesV3, FaultsError> {
    let (np, sw, pw) = (p.np, p.sw as usize, port_width(p.np) as usize);
    let (mut stim, mut held, mut stim_lines) = (String::new(), vec![true; np], 0usize);
    let mut in_bits = 0;
    for (t, i) in inputs.iter().enumerate() {
        let pulse = i.rst
            || i.cfg_we
            || i.dep_valid
            || i.enq_valid
            || i.arr_valid.iter().chain(&i.deq_valid).any(|&v| v);
        let mut h = Hex(vec![]);
        i.visit(sw, pw, &mut h);
        in_bits = h.0.len();
        if pulse || i.pfc_ready != held {
            let _ = writeln!(stim, "{t:08x}_{}", hex(&h.0));
            stim_lines += 1;
            held.clone_from(&i.pfc_ready);
        }
    }
    let mut top = Top::new(*p);
    let mut out_bits = 0;
    let expect = super::expect_lines(&mut top, inputs, |_, o| {
        let mut h = Hex(vec![]);
        o.visit(&mut h);
        out_bits = h.0.len();
    });
    let expect_lines = expect.lines().count();
    let head = |what: &str, bits: usize| {
        format!(
            "// capfc golden set {name} (format 3, capfc_top_oc): {what}\n\
             // each line: cycle[31:0] _ {{...}} ({bits} bits), written by capfc faults (src/faults/traffic.rs)\n"
        )
    };
    let stim = head(
        "inputs. A cycle without a line drives every input 0 but pfc_ready, held from the last line.",
        in_bits,
    ) + &stim;
    let expect = head(
        "expected outputs, one line per change (and cycle 0).",
        out_bits,
    ) + &expect;
    let cycles = inputs.len();
    let manifest = serde_json::json!({
        "format": 3,
        "set": name,
        "top": "capfc_top_oc",
        "params": p,
        "source": { "kind": format!("fault_matrix_{}", name.split('_').next().unwrap_or("")), "seed": seed, "cycles": cycles, "mode": mode },
        "register_writes": writes.iter().enumerate().map(|(k, (a, d))| (k + 1, a, d)).collect::<Vec<_>>(),
        "cycles": cycles,
        "in_bits": in_bits,
        "out_bits": out_bits,
        "stim_lines": stim_lines,
        "expect_lines": expect_lines,
    });
    let params_vh = format!(
        "// capfc golden set {name}: parameters for testbench/capfc_tb.sv (generated by capfc faults)\n\
         `define CAPFC_V3 1\n\
         `define CAPFC_NP {}\n`define CAPFC_SW {}\n`define CAPFC_OW {}\n`define CAPFC_CW {}\n\
         `define CAPFC_CELL_LOG2 {}\n`define CAPFC_CUT_F {}\n`define CAPFC_NL {}\n\
         `define CAPFC_IN_BITS {in_bits}\n`define CAPFC_OUT_BITS {out_bits}\n`define CAPFC_CYCLES {cycles}\n\
         `define CAPFC_STIM_LINES {stim_lines}\n`define CAPFC_EXPECT_LINES {expect_lines}\n",
        p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl,
    );
    Ok(crate::golden_v3::SetFilesV3 {
        manifest: serde_json::to_string_pretty(&manifest)? + "\n",
        params_vh,
        stim,
        expect,
        config_toml: None,
    })
}
