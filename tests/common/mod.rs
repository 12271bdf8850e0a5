//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)] // each test crate compiles this module and uses only part of it

/// The lines of a golden set's `stim.hex` or `expect.hex` text: (cycle, the concatenation as
/// 32-bit words, least significant first).
pub fn hex_lines(text: &str) -> Vec<(u64, Vec<u32>)> {
    text.lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .map(|l| {
            let (c, hex) = l.split_once('_').expect("cycle_hex");
            let hex = hex.trim();
            let words = (0..hex.len().div_ceil(8))
                .map(|k| {
                    let hi = hex.len() - 8 * k;
                    u32::from_str_radix(&hex[hi.saturating_sub(8)..hi], 16).expect("hex")
                })
                .collect();
            (u64::from_str_radix(c, 16).expect("a hex cycle"), words)
        })
        .collect()
}

/// Every cycle's input concatenation of a golden set's stimulus lines over `cycles` cycles (a
/// cycle without a line drives every input 0 but `pfc_ready`, the last field's low `np` bits,
/// held from the last line).
pub fn every_cycle(stim: &[(u64, Vec<u32>)], cycles: u64, np: usize) -> Vec<Vec<u32>> {
    let mut out = vec![];
    let mut k = 0;
    let mut held = vec![0u32; stim.first().map_or(1, |s| s.1.len())];
    for c in 0..cycles {
        if k < stim.len() && stim[k].0 == c {
            held.fill(0);
            held[0] = stim[k].1[0] & ((1u32 << np) - 1);
            out.push(stim[k].1.clone());
            k += 1;
        } else {
            out.push(held.clone());
        }
    }
    out
}

pub mod v1;

/// Random inputs of the v3 block at `np` ports, into `inp`: each lane valid with probability
/// `valid`, every field random (ports up to one past the block's, as the port fields can carry),
/// each MAC ready with probability `ready`.
pub fn v3_random_in(
    np: usize,
    rng: &mut rand_chacha::ChaCha8Rng,
    valid: f64,
    ready: f64,
    inp: &mut capfc::v3::top::TopIn,
) {
    use rand::Rng;
    let size = |rng: &mut rand_chacha::ChaCha8Rng| rng.gen_range(0..3000u64);
    for i in 0..np {
        inp.arr_valid[i] = rng.gen_bool(valid);
        inp.arr_prio[i] = rng.gen_range(0..8);
        inp.arr_size[i] = size(rng);
        inp.deq_valid[i] = rng.gen_bool(valid);
        inp.deq_prio[i] = rng.gen_range(0..8);
        inp.deq_size[i] = size(rng);
        inp.pfc_ready[i] = rng.gen_bool(ready);
    }
    inp.dep_valid = rng.gen_bool(valid);
    inp.dep_port = rng.gen_range(0..=np as u64);
    inp.dep_prio = rng.gen_range(0..8);
    inp.dep_size = size(rng);
    inp.enq_valid = rng.gen_bool(valid);
    inp.enq_oport = rng.gen_range(0..=np as u64);
    inp.enq_iport = rng.gen_range(0..np as u64);
    inp.enq_prio = rng.gen_range(0..8);
    inp.enq_size = size(rng);
}

/// `sparse` (a block clocked sparsely, `Top::set_sparse`) against `full` (every register
/// clocked): the same but for what a sparse block may hold otherwise, the idle groups' data
/// registers; its ports' scrubs are compared caught up, on a copy (`Top::settle`). `None` if
/// so, else what differs first.
#[allow(dead_code)]
pub fn sparse_differs(full: &capfc::v3::top::Top, sparse: &capfc::v3::top::Top) -> Option<String> {
    let mut s = sparse.clone();
    s.settle();
    let (fi, si) = (&full.u_ingress, &s.u_ingress);
    if fi.xoff_q != si.xoff_q {
        return Some("I (xoff_q)".into());
    }
    for (g, (a, b)) in fi.grp.iter().zip(&si.grp).enumerate() {
        if (a.occ, a.gs_q, a.rc_q, a.rdy_q, a.scr_q) != (b.occ, b.gs_q, b.rc_q, b.rdy_q, b.scr_q) {
            return Some(format!("ingress group {g}: occupancies or slot"));
        }
    }
    if fi.u_thr != si.u_thr {
        return Some("the ingress's thresholds' copies".into());
    }
    let (fe, se) = (&full.u_egress, &s.u_egress);
    for (g, (a, b)) in fe.grp.iter().zip(&se.grp).enumerate() {
        if (a.occ, a.gs_q, a.rc_q, a.rdy_q, a.scr_q, a.cin_q)
            != (b.occ, b.gs_q, b.rc_q, b.rdy_q, b.scr_q, b.cin_q)
        {
            return Some(format!("egress group {g}: occupancies or slot"));
        }
    }
    for (o, (a, b)) in fe.port.iter().zip(&se.port).enumerate() {
        if a != b {
            return Some(format!("egress port {o}: {a:?} against {b:?}"));
        }
    }
    if (&fe.gen_q, &fe.e_q, &fe.epart_q) != (&se.gen_q, &se.e_q, &se.epart_q)
        || (&fe.rclr4_q, &fe.eclr4_q, &fe.rclr5_q) != (&se.rclr4_q, &se.eclr4_q, &se.rclr5_q)
        || (&fe.rtrig4_q, &fe.rtrig5_q, &fe.rtrig6_q) != (&se.rtrig4_q, &se.rtrig5_q, &se.rtrig6_q)
        || (fe.cntr_q, fe.lidr_q) != (se.cntr_q, se.lidr_q)
        || fe.u_thr != se.u_thr
    {
        return Some("E, the generations, the row events or the egress's copies".into());
    }
    if full.u_sort != s.u_sort || full.u_cfg != s.u_cfg {
        return Some("the sort or the configuration".into());
    }
    if (&full.d_q, &full.sent_q, &full.timer_q) != (&s.d_q, &s.sent_q, &s.timer_q) {
        return Some("D or the PFC generator".into());
    }
    None
}

/// Fail with how to get Verilator when it is missing.
pub fn need_verilator() {
    assert!(
        std::process::Command::new("verilator")
            .arg("--version")
            .output()
            .is_ok(),
        "verilator is missing: `make deps` installs it"
    );
}

/// Run a Verilated testbench `bin` with `args`, at most `errors` errors before it stops
/// (`+verilator+error+limit`): whether it exited with 0, and what it printed (stdout, then stderr).
pub fn run_tb(bin: &std::path::Path, args: &[String], errors: u32) -> (bool, String) {
    let o = std::process::Command::new(bin)
        .args(args)
        .arg(format!("+verilator+error+limit+{errors}"))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), text)
}

/// The plusargs that replay the golden set in `set` through `testbench/capfc_tb.sv`: the set,
/// and its cycle and line counts from its `params.vh`.
pub fn replay_args(set: &std::path::Path) -> Vec<String> {
    let vh = std::fs::read_to_string(set.join("params.vh"))
        .unwrap_or_else(|e| panic!("{}/params.vh: {e}", set.display()));
    let def = |k: &str| {
        vh.lines()
            .find_map(|l| l.strip_prefix(&format!("`define CAPFC_{k} ")))
            .unwrap_or_else(|| panic!("{}/params.vh: no CAPFC_{k}", set.display()))
            .trim()
            .to_string()
    };
    vec![
        format!("+GOLDEN={}", set.display()),
        format!("+CYCLES={}", def("CYCLES")),
        format!("+STIM_LINES={}", def("STIM_LINES")),
        format!("+EXPECT_LINES={}", def("EXPECT_LINES")),
    ]
}
