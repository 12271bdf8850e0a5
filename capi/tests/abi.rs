//! The C ABI: from C (capi/examples/smoke.c against the static library and the generated header),
//! and from Rust through the same extern functions: the model's own outputs check clean over random
//! stimulus, a changed output is reported, two instances side by side do not interfere, and bad
//! input is refused with a reason.

use capfc_block::block::pack::{self, Layouts};
use capfc_block::block::{BlockParams, Inputs, Mode};
use capfc_capi::*;
use capfc_check::stimulus::{RandomStim, Stimulus};
use std::ffi::{CStr, CString};
use std::path::Path;
use std::process::Command;

mod common;
use common::staticlib;

/// v2's parameters (`capfc_v2_top`'s ports: the stimulus below drives them).
fn params_toml(p: &BlockParams) -> CString {
    CString::new(format!(
        "np = {}\nsw = {}\now = {}\ncw = {}\ncell_log2 = {}\ncut_f = {}\nnl = {}\nblock = \"v2\"\n",
        p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl
    ))
    .unwrap()
}

/// A model and a checker run over one random stimulus: the model's outputs (with `corrupt` applied
/// to the output words of each cycle) are checked. Returns (cycles, violations, first report).
struct Pair {
    m: *mut CapfcModel,
    c: *mut CapfcChecker,
    p: BlockParams,
    lay: Layouts,
    stim: RandomStim,
    inw: Vec<u32>,
    inc: Vec<u32>,
    outc: Vec<u32>,
    first: Option<String>,
}

impl Pair {
    fn new(config: &str, mode: Mode, seed: u64, cycles: u64) -> Pair {
        let p = capfc_block::block::BlockParams::of_rtl_config(config).unwrap();
        let t = params_toml(&p);
        let mut err = [0i8; 256];
        let m = unsafe { capfc_model_new(t.as_ptr(), err.as_mut_ptr(), 256) };
        let c = unsafe { capfc_checker_new(t.as_ptr(), std::ptr::null(), err.as_mut_ptr(), 256) };
        assert!(!m.is_null() && !c.is_null());
        let lay = Layouts::new(&p);
        let mut stim = RandomStim::new(&p, mode, seed, cycles);
        stim.profile.reconfig_rate = 0.0;
        let in_bits = unsafe { capfc_model_in_bits(m) } as usize;
        let out_bits = unsafe { capfc_model_out_bits(m) } as usize;
        assert_eq!(in_bits, pack::concat_bits(&lay.inputs));
        assert_eq!(out_bits, unsafe { capfc_checker_out_bits(c) } as usize);
        Pair {
            m,
            c,
            inw: vec![0; lay.inputs.words],
            inc: vec![0; in_bits.div_ceil(32)],
            outc: vec![0; out_bits.div_ceil(32)],
            p,
            lay,
            stim,
            first: None,
        }
    }

    /// One cycle; false at the stimulus' end.
    fn step(&mut self, corrupt: &dyn Fn(u64, &mut [u32])) -> bool {
        let mut inp = Inputs::idle(self.p.np);
        inp.clear();
        if !self.stim.next(&mut inp) {
            return false;
        }
        pack::pack_inputs(&self.p, &self.lay.inputs, &inp, &mut self.inw);
        pack::to_concat(&self.lay.inputs, &self.inw, &mut self.inc);
        unsafe {
            assert_eq!(
                capfc_model_step(self.m, self.inc.as_ptr(), self.outc.as_mut_ptr()),
                0
            );
        }
        // the stimulus reacts to the block's answers (what it accepted)
        let mut outw = vec![0u32; self.lay.outputs.words];
        pack::from_concat(&self.lay.outputs, &self.outc, &mut outw);
        let mut out = capfc_block::block::Outputs::new(self.p.np);
        pack::unpack_outputs(&self.lay.outputs, &outw, &mut out);
        self.stim.observe(&inp, &out);
        let cyc = unsafe { capfc_checker_cycles(self.c) };
        corrupt(cyc, &mut self.outc);
        let n = unsafe { capfc_checker_step(self.c, self.inc.as_ptr(), self.outc.as_ptr()) };
        assert!(n >= 0);
        if n > 0 && self.first.is_none() {
            let r = unsafe { CStr::from_ptr(capfc_checker_report(self.c)) };
            self.first = Some(r.to_string_lossy().into_owned());
        }
        true
    }

    fn finish(&mut self) -> (u64, u64) {
        unsafe {
            assert!(capfc_checker_finish(self.c) >= 0);
            (
                capfc_checker_cycles(self.c),
                capfc_checker_violations(self.c),
            )
        }
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        unsafe {
            capfc_checker_free(self.c);
            capfc_model_free(self.m);
        }
    }
}

#[test]
fn the_models_own_outputs_check_clean_and_a_changed_output_is_reported() {
    for config in ["np4", "np8"] {
        for mode in [Mode::StopMax, Mode::StopCal] {
            let mut a = Pair::new(config, mode, 1, 20_000);
            while a.step(&|_, _| {}) {}
            let (cycles, v) = a.finish();
            assert!(cycles > 19_000);
            assert!(unsafe { capfc_checker_lanes(a.c) } > 10_000);
            assert_eq!(v, 0, "{config} {}: {:?}", mode.name(), a.first);
        }
    }
    // d_state is the low NP*8 bits of the outputs: raise D[0].p5 (never lossless in a random
    // config? not guaranteed: any unexplained D is a violation either way) from cycle 5000 on.
    let mut b = Pair::new("np4", Mode::StopMax, 2, 8_000);
    while b.step(&|cyc, w: &mut [u32]| {
        if cyc >= 5_000 {
            w[0] |= 1 << 5;
        }
    }) {}
    let (_, v) = b.finish();
    let first = b.first.clone().unwrap_or_default();
    assert!(v > 0, "a D raised from nothing was not reported");
    assert!(
        first.starts_with("cycle 5000:") || first.starts_with("cycle 5001:"),
        "{first}"
    );
    assert!(first.contains("d[0].p5"), "{first}");
}

#[test]
fn two_instances_side_by_side_do_not_interfere() {
    let alone = |seed| {
        let mut x = Pair::new("np4", Mode::StopCal, seed, 6_000);
        while x.step(&|c, w: &mut [u32]| {
            if c == 3_000 {
                w[0] ^= 1 << 11;
            }
        }) {}
        (x.finish(), x.first.clone())
    };
    let (ra, rb) = (alone(3), alone(4));
    let mut a = Pair::new("np4", Mode::StopCal, 3, 6_000);
    let mut b = Pair::new("np4", Mode::StopCal, 4, 6_000);
    let flip = |c, w: &mut [u32]| {
        if c == 3_000 {
            w[0] ^= 1 << 11;
        }
    };
    loop {
        let x = a.step(&flip);
        let y = b.step(&flip);
        if !x && !y {
            break;
        }
    }
    assert_eq!((a.finish(), a.first.clone()), ra);
    assert_eq!((b.finish(), b.first.clone()), rb);
    assert!(ra.0 .1 > 0 && rb.0 .1 > 0);
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    // a fresh checker has checked nothing: the count a scoreboard fails on
    {
        let p = params_toml(&capfc_block::block::BlockParams::of_rtl_config("np4").unwrap());
        let mut e = [0i8; 64];
        let c = unsafe { capfc_checker_new(p.as_ptr(), std::ptr::null(), e.as_mut_ptr(), 64) };
        assert_eq!(unsafe { capfc_checker_lanes(c) }, 0);
        unsafe { capfc_checker_free(c) };
    }
    let mut err = [0i8; 512];
    let text = |e: &[i8]| unsafe { CStr::from_ptr(e.as_ptr()).to_string_lossy().into_owned() };
    for (params, want) in [
        ("np = 4", "params"),
        (
            "np = 0\nsw = 14\now = 20\ncw = 16\ncell_log2 = 0\ncut_f = 8\nnl = 2",
            "params",
        ),
        ("junk", "params"),
        (
            "np = 4\nsw = 14\now = 20\ncw = 16\ncell_log2 = 0\ncut_f = 8\nnl = 2\nblock = \"v9\"",
            "block = \"v9\": expected \"v2\" or \"v3\"",
        ),
        // (v3 takes at most 16 cut bits)
        (
            "np = 4\nsw = 14\now = 20\ncw = 16\ncell_log2 = 0\ncut_f = 20\nnl = 2\nblock = \"v3\"",
            "params",
        ),
    ] {
        let t = CString::new(params).unwrap();
        let m = unsafe { capfc_model_new(t.as_ptr(), err.as_mut_ptr(), 512) };
        assert!(m.is_null(), "{params}");
        assert!(text(&err).contains(want), "{params}: {}", text(&err));
    }
    let p = params_toml(&capfc_block::block::BlockParams::of_rtl_config("np4").unwrap());
    let env = CString::new("accept_latency = 0").unwrap();
    let c = unsafe { capfc_checker_new(p.as_ptr(), env.as_ptr(), err.as_mut_ptr(), 512) };
    assert!(c.is_null());
    assert!(text(&err).contains("envelope"), "{}", text(&err));
    // NULL handles and buffers: an error, never a crash
    unsafe {
        assert_eq!(
            capfc_model_step(std::ptr::null_mut(), std::ptr::null(), std::ptr::null_mut()),
            -1
        );
        assert_eq!(
            capfc_checker_step(std::ptr::null_mut(), std::ptr::null(), std::ptr::null()),
            -1
        );
        assert_eq!(
            CStr::from_ptr(capfc_checker_report(std::ptr::null_mut())).to_bytes(),
            b""
        );
        let c = capfc_checker_new(p.as_ptr(), std::ptr::null(), err.as_mut_ptr(), 512);
        assert_eq!(
            capfc_checker_step(c, std::ptr::null(), std::ptr::null()),
            -1
        );
        let n = capfc_checker_error(c, err.as_mut_ptr(), 512);
        assert!(n > 0 && text(&err).contains("NULL"), "{}", text(&err));
        capfc_checker_free(c);
        // a step after finish is refused
        let c = capfc_checker_new(p.as_ptr(), std::ptr::null(), err.as_mut_ptr(), 512);
        assert_eq!(capfc_checker_finish(c), 0);
        let w = [0u32; 16];
        assert_eq!(capfc_checker_step(c, w.as_ptr(), w.as_ptr()), -1);
        capfc_checker_free(c);
    }
}

/// The v3 block through the C ABI (`block = "v3"` in the parameters): its model's answers, fed
/// back through the checker with the v3 envelope, check clean over a golden v3 set's inputs, and
/// the ports are `capfc_top_oc`'s (two more outputs than `capfc_v2_top`'s); without a `block` key
/// the model is the v3 block's.
#[test]
fn the_v3_block_through_the_c_abi() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/v3/random_max_np4_seed1");
    let p = CString::new(
        "np = 4\nsw = 14\now = 20\ncw = 16\ncell_log2 = 0\ncut_f = 8\nnl = 2\nblock = \"v3\"\n",
    )
    .unwrap();
    let v2 = params_toml(&capfc_block::block::BlockParams::of_rtl_config("np4").unwrap());
    let mut err = [0i8; 512];
    unsafe {
        let m = capfc_model_new(p.as_ptr(), err.as_mut_ptr(), 512);
        let c = capfc_checker_new(p.as_ptr(), std::ptr::null(), err.as_mut_ptr(), 512);
        let m2 = capfc_model_new(v2.as_ptr(), err.as_mut_ptr(), 512);
        let plain =
            CString::new("np = 4\nsw = 14\now = 20\ncw = 16\ncell_log2 = 0\ncut_f = 8\nnl = 2\n")
                .unwrap();
        let m0 = capfc_model_new(plain.as_ptr(), err.as_mut_ptr(), 512);
        assert!(!m.is_null() && !c.is_null() && !m2.is_null() && !m0.is_null());
        assert_eq!(capfc_model_out_bits(m), capfc_model_out_bits(m2) + 8);
        assert_eq!(capfc_model_out_bits(m0), capfc_model_out_bits(m));
        capfc_model_free(m0);
        assert_eq!(capfc_model_in_bits(m), capfc_model_in_bits(m2));
        let (ib, ob) = (
            capfc_model_in_bits(m) as usize,
            capfc_model_out_bits(m) as usize,
        );
        let text = std::fs::read_to_string(dir.join("stim.hex")).unwrap();
        let cycles: u64 = std::fs::read_to_string(dir.join("params.vh"))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("`define CAPFC_CYCLES "))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let mut stim = text
            .lines()
            .filter(|l| !l.starts_with("//") && !l.is_empty())
            .map(|l| {
                let (c, hex) = l.split_once('_').unwrap();
                let w: Vec<u32> = (0..ib.div_ceil(32))
                    .map(|k| {
                        let hi = hex.len().saturating_sub(8 * k);
                        u32::from_str_radix(&hex[hi.saturating_sub(8)..hi], 16).unwrap_or(0)
                    })
                    .collect();
                (u64::from_str_radix(c, 16).unwrap(), w)
            })
            .peekable();
        let mut inc = vec![0u32; ib.div_ceil(32)];
        let mut outc = vec![0u32; ob.div_ceil(32)];
        let mut violations = 0;
        for t in 0..cycles {
            match stim.peek() {
                Some((c, w)) if *c == t => {
                    inc.clone_from(w);
                    stim.next();
                }
                // (a cycle without a line: every input 0 but pfc_ready, its last field)
                _ => {
                    let ready = inc[0] & 0xF;
                    inc.fill(0);
                    inc[0] = ready;
                }
            }
            assert_eq!(capfc_model_step(m, inc.as_ptr(), outc.as_mut_ptr()), 0);
            let n = capfc_checker_step(c, inc.as_ptr(), outc.as_ptr());
            assert!(n >= 0);
            violations += n;
        }
        violations += capfc_checker_finish(c);
        assert_eq!(
            violations,
            0,
            "{:?}",
            CStr::from_ptr(capfc_checker_report(c))
        );
        assert!(capfc_checker_lanes(c) > 1_000);
        capfc_model_free(m);
        capfc_model_free(m2);
        capfc_checker_free(c);
    }
}

/// capi/examples/smoke.c compiles against include/capfc.h (C, -Wall -Wextra -Werror), links
/// against the static library, and passes.
#[test]
fn the_c_example_builds_and_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = staticlib();
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("capfc_smoke");
    let st = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root.join("include"))
        .arg(root.join("examples/smoke.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .expect("cc runs");
    assert!(st.success());
    let o = Command::new(&exe).output().unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
