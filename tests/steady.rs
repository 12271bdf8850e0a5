//! Steady random sets (`capfc golden gen --seed N --steady`), the stimulus for a block that takes
//! its configuration statically (`docs/design-space.md`, "A static configuration"):
//!
//! - every configuration write comes before the first lane, in consecutive cycles, to addresses
//!   that hold a register; then at least `16 + ceil(NP/8)` cycles with neither a write nor a lane;
//!   then lanes and no write, no reset to the end: over many seeds, both algorithms and every
//!   parameter set, read back from the files a testbench reads (and the same reading finds the
//!   writes under traffic of a set that is not steady, so the property is not vacuous);
//! - the set's `config.toml` holds what the writes program, and its `[config]` tables pasted into
//!   a map make a map with `source = "static"` that parses, with that configuration;
//! - the static flow end to end: the second implementation (`check/capfc_v1`) replays a steady set
//!   on Icarus and checks clean through a map whose configuration is `config.toml`'s.

use capfc::block::cfg::CfgRegs;
use capfc::block::pack::{unpack_inputs, Layouts};
use capfc::block::{BlockConfig, BlockParams, Inputs, Mode};
use capfc::check::{Checker, Envelope};
use capfc::check_wave::{ConfigMap, Map, Wave};
use capfc::golden::{self, Source, SteadyConfig, StimCursor, STEADY_CONFIG};
use capfc::golden_v3::{self, SourceV3};
use capfc::stimulus::RandomStim;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

mod common;

/// A clean run that checked something: lanes and accepts by the thousand, D moving, selections
/// judged.
fn enough_checked(name: &str, s: &capfc::check::Summary) {
    assert!(
        s.lanes > 1000 && s.accepts > 1000,
        "{name}: too little checked: {s:?}"
    );
    assert!(
        s.d_changes > 0 && s.judged > 0,
        "{name}: D never changed or no selection was judged: {s:?}"
    );
}

/// Build `files` with Icarus (top `top`, the set in `dir` on the include path) into `dir/tb.vvp`
/// and replay the set, its ports dumped to `dir/tb.vcd`: the simulator's standard output and the
/// waveform's path.
fn icarus_replay(dir: &Path, top: &str, files: &[PathBuf]) -> (String, PathBuf) {
    let (vvp, vcd) = (dir.join("tb.vvp"), dir.join("tb.vcd"));
    let o = Command::new("iverilog")
        .args(["-g2012", "-s", top, "-I"])
        .arg(dir)
        .arg("-o")
        .arg(&vvp)
        .args(files)
        .output()
        .expect("iverilog runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new("vvp")
        .arg("-n")
        .arg(&vvp)
        .arg(format!("+GOLDEN={}", dir.display()))
        .arg(format!("+DUMP={}", vcd.display()))
        .output()
        .expect("vvp runs");
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{top}: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (out, vcd)
}

fn work(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("steady")
        .join(name);
    std::fs::create_dir_all(&d).expect("work dir");
    d
}

/// The gap the static flow promises, written out here rather than taken from the generator: a
/// change of the formula must show up in this test.
fn promised_gap(np: usize) -> u64 {
    8 + np.div_ceil(8) as u64 + 8
}

/// What the steady rule reads of a cycle's inputs: the reset, the address of a configuration
/// write, whether a lane is valid.
struct Cy {
    rst: bool,
    cfg: Option<u8>,
    lane: bool,
}

/// What a set's `stim.hex` drives, cycle by cycle, as a testbench reads it (a set of v2, format 2).
fn cycles_of(dir: &Path) -> (BlockParams, Vec<Cy>) {
    let g = golden::read(dir).expect("the set reads back");
    let p = g.manifest.params;
    let l = Layouts::new(&p);
    let mut cur = StimCursor::new(&g);
    let mut v = vec![];
    for c in 0..g.manifest.cycles {
        let mut i = Inputs::idle(p.np);
        unpack_inputs(&p, &l.inputs, cur.inputs(c), &mut i);
        v.push(Cy {
            rst: i.rst,
            cfg: i.cfg.map(|(a, _)| a),
            lane: i.arr.iter().any(Option::is_some)
                || i.dep.is_some()
                || i.enq.is_some()
                || i.deq.iter().any(Option::is_some),
        });
    }
    (p, v)
}

/// [`cycles_of`] for a set of the block (format 3): `stim.hex` read as `capfc_top_oc`'s inputs.
fn cycles_of_v3(dir: &Path) -> (BlockParams, Vec<Cy>) {
    let text = |f: &str| std::fs::read_to_string(dir.join(f)).expect("the set's files");
    let m: golden_v3::Manifest3 =
        serde_json::from_str(&text("manifest.json")).expect("a manifest of format 3");
    let p = m.params;
    let v = capfc::faults::parse_stim(&p, &text("stim.hex"), m.cycles)
        .expect("stim.hex reads")
        .into_iter()
        .map(|i| Cy {
            rst: i.rst,
            cfg: i.cfg_we.then_some(i.cfg_addr),
            lane: i.dep_valid || i.enq_valid || i.arr_valid.iter().chain(&i.deq_valid).any(|&v| v),
        })
        .collect();
    (p, v)
}

/// The steady rule on a set's cycles: Ok((last write, first lane)), or the first break of it.
fn steady_rule(p: &BlockParams, cycles: &[Cy]) -> Result<(u64, Option<u64>), String> {
    let writes: Vec<(u64, u8)> = cycles
        .iter()
        .enumerate()
        .filter_map(|(c, i)| i.cfg.map(|a| (c as u64, a)))
        .collect();
    let (first_w, last_w) = match (writes.first(), writes.last()) {
        (Some(f), Some(l)) => (f.0, l.0),
        _ => return Err("no configuration write".into()),
    };
    if let Some(k) = (1..writes.len()).find(|&k| writes[k].0 != writes[k - 1].0 + 1) {
        return Err(format!(
            "the writes are not consecutive: cycle {} after cycle {}",
            writes[k].0,
            writes[k - 1].0
        ));
    }
    if let Some(&(c, a)) = writes.iter().find(|(_, a)| CfgRegs::width(p, *a).is_none()) {
        return Err(format!(
            "cycle {c}: a write to address {a:#x}, which holds no register"
        ));
    }
    if let Some(c) = (0..cycles.len()).find(|&c| cycles[c].rst && c as u64 >= first_w) {
        return Err(format!(
            "cycle {c}: a reset after the first write (cycle {first_w})"
        ));
    }
    let first_lane = cycles.iter().position(|c| c.lane).map(|c| c as u64);
    if let Some(f) = first_lane {
        if f <= last_w {
            return Err(format!(
                "cycle {f}: a lane, before the last write (cycle {last_w})"
            ));
        }
        let gap = f - last_w - 1;
        if gap < promised_gap(p.np) {
            return Err(format!(
                "{gap} idle cycles between the last write (cycle {last_w}) and the first lane \
                 (cycle {f}), {} promised",
                promised_gap(p.np)
            ));
        }
    }
    Ok((last_w, first_lane))
}

fn build(dir: &Path, cfg: &str, seed: u64, cycles: u64, mode: Mode, steady: bool) {
    let p = golden::params_of(cfg).expect("a parameter set");
    let src = Source::Random {
        seed,
        cycles,
        mode,
        steady,
    };
    let f = golden::build("steady", &p, &src).expect("the set builds");
    golden::write(dir, &f).expect("the set writes");
}

#[test]
fn every_write_comes_before_the_gap_and_the_lanes() {
    let configs = [
        "np4",
        "np6_cw4",
        "np8",
        "np8_cell64",
        "np16",
        "np32",
        "np48",
    ];
    let (mut checked, mut with_lanes, mut broken) = (0, 0, 0);
    for cfg in configs {
        for mode in [Mode::StopMax, Mode::StopCal] {
            for seed in 1..=10u64 {
                // a few long runs: no write, no reset may come late in the run either
                let cycles = if seed <= 2 { 4000 } else { 400 };
                let dir = work("rule").join(format!("{cfg}_{}_{seed}", mode.name()));
                build(&dir, cfg, seed, cycles, mode, true);
                let (p, cy) = cycles_of(&dir);
                let what = format!("{cfg} {} seed {seed}", mode.name());
                let (last_w, first_lane) =
                    steady_rule(&p, &cy).unwrap_or_else(|e| panic!("{what}: steady set: {e}"));
                checked += 1;
                with_lanes += usize::from(first_lane.is_some());
                // the file a testbench reads says the same
                let t = std::fs::read_to_string(dir.join(STEADY_CONFIG)).expect("config.toml");
                let sc = SteadyConfig::parse(&t, "config.toml").expect("config.toml parses");
                assert_eq!(sc.stimulus.last_write, last_w, "{what}");
                assert_eq!(sc.stimulus.gap, promised_gap(p.np), "{what}");
                assert!(
                    first_lane.is_none_or(|f| f >= sc.stimulus.lanes_from),
                    "{what}: a lane in cycle {first_lane:?}, before lanes_from {}",
                    sc.stimulus.lanes_from
                );
                // the same reading on the same seed without --steady finds writes under traffic
                let dir = work("rule").join(format!("{cfg}_{}_{seed}_live", mode.name()));
                build(&dir, cfg, seed, cycles, mode, false);
                let (p, cy) = cycles_of(&dir);
                broken += usize::from(steady_rule(&p, &cy).is_err());
                assert!(
                    !dir.join(STEADY_CONFIG).exists(),
                    "{what}: a set that is not steady has no {STEADY_CONFIG}"
                );
            }
        }
    }
    assert_eq!(checked, configs.len() * 20);
    assert_eq!(with_lanes, checked, "every set reaches its traffic");
    assert_eq!(broken, checked, "every non-steady set writes under traffic");
}

/// The checked-in map of our block with its [params] set for `p`, its [config] table replaced by
/// `config.toml`'s tables from `[config]` down (pasted as they are) and `reset_clears_config`
/// false (a static configuration outlives a reset).
fn static_map(base: &str, p: &BlockParams, config_toml: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for line in base.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            skip = t == "[config]";
        }
        if skip {
            continue;
        }
        let l = match line.split('=').next().map(str::trim) {
            Some("np") => format!("np = {}", p.np),
            Some("cw") => format!("cw = {}", p.cw),
            Some("cell_log2") => format!("cell_log2 = {}", p.cell_log2),
            Some("cut_f") => format!("cut_f = {}", p.cut_f),
            Some("reset_clears_config") => "reset_clears_config = false".into(),
            _ => line.to_string(),
        };
        out.push_str(&l);
        out.push('\n');
    }
    let from = config_toml
        .find("\n[config]")
        .expect("config.toml has a [config] table");
    out.push_str(&config_toml[from..]);
    out
}

#[test]
fn config_toml_pastes_into_a_static_map_with_the_sets_configuration() {
    let base = std::fs::read_to_string(Path::new(ROOT).join("check/capfc_v2/capfc_v2.map.toml"))
        .expect("the map of our block");
    for (cfg, mode, seed) in [
        ("np8", Mode::StopCal, 1),
        ("np8", Mode::StopCal, 2),
        ("np4", Mode::StopMax, 3),
        ("np8_cell64", Mode::StopMax, 4),
        ("np6_cw4", Mode::StopCal, 5),
    ] {
        let what = format!("{cfg} {} seed {seed}", mode.name());
        let dir = work("paste").join(format!("{cfg}_{}_{seed}", mode.name()));
        build(&dir, cfg, seed, 300, mode, true);
        let g = golden::read(&dir).expect("the set reads back");
        let p = g.manifest.params;
        let want: BlockConfig = g
            .manifest
            .config
            .clone()
            .expect("the set has a configuration");
        assert_eq!(
            want,
            RandomStim::steady(&p, mode, seed, 300).cfg,
            "{what}: the writes program the generator's configuration"
        );
        let text = g
            .files
            .config_toml
            .clone()
            .expect("a steady set has config.toml");
        let sc = SteadyConfig::parse(&text, "config.toml").expect("config.toml parses");
        assert_eq!(sc.config.values, want, "{what}: config.toml");
        let map_text = static_map(&base, &p, &text);
        let map = Map::parse(&map_text, "static.map.toml")
            .unwrap_or_else(|e| panic!("{what}: the static map does not parse: {e}\n{map_text}"));
        match &map.config {
            ConfigMap::Static { values } => {
                assert_eq!(*values, want, "{what}: the map's initial configuration")
            }
            other => panic!("{what}: [config] is not static: {other:?}"),
        }
        assert!(!map.reset_clears_config, "{what}");
    }
}

/// The v1 block's envelope at 4 ports (its checked-in one).
fn v1_envelope() -> Envelope {
    let t = std::fs::read_to_string(Path::new(ROOT).join("check/capfc_v1/capfc_v1.timing.toml"))
        .expect("the v1 envelope");
    Envelope::parse(&t, "capfc_v1.timing.toml").expect("it parses")
}

#[test]
fn a_steady_set_checks_clean_through_a_static_map() {
    assert!(
        Command::new("iverilog").arg("-V").output().is_ok(),
        "iverilog is missing: `make deps` installs it"
    );
    let v1 = Path::new(ROOT).join("check/capfc_v1");
    let base = std::fs::read_to_string(v1.join("capfc_v1.map.toml")).expect("the v1 map");
    let mut files: Vec<PathBuf> = std::fs::read_dir(v1.join("rtl"))
        .expect("rtl dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sv"))
        .collect();
    files.sort();
    files.push(v1.join("capfc_v1_tb.sv"));
    for (mode, seed) in [(Mode::StopMax, 3), (Mode::StopCal, 4)] {
        let name = format!("{}_{seed}", mode.name());
        let dir = work("v1").join(&name);
        build(&dir, "np4", seed, 6000, mode, true);
        let p = golden::params_of("np4").expect("np4");
        let (_, vcd) = icarus_replay(&dir, "capfc_v1_tb", &files);
        let text = std::fs::read_to_string(dir.join(STEADY_CONFIG)).expect("config.toml");
        let map_text = static_map(&base, &p, &text);
        let map = Map::parse(&map_text, "static.map.toml").expect("the static map parses");
        let mut w = Wave::load(&vcd.to_string_lossy(), map, &map_text, "static.map.toml")
            .expect("the waveform loads");
        let mut ck = Checker::new(
            w.params(),
            w.initial_config(),
            v1_envelope(),
            w.reset_clears_config(),
        )
        .expect("a checker");
        let mut v = vec![];
        w.cycles(|_, c| {
            v.extend(ck.step(c));
            true
        });
        v.extend(ck.finish());
        let s = ck.summary().clone();
        enough_checked(&name, &s);
        let weak = ck.weak();
        assert!(weak.is_empty(), "{name}: a weak verdict: {weak:?}");
        assert!(
            v.is_empty(),
            "{name}: the static flow reports on a clean block:\n{}",
            v.iter().take(5).map(|x| x.to_string()).collect::<String>()
        );
    }
}

/// `text` with the first `eg_warn` set one above the first `eg_xoff` (priority 0's table).
fn warn_above_xoff(text: &str) -> String {
    let value = |key: &str| -> u64 {
        let at = text.find(key).expect("a threshold") + key.len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().expect("a number")
    };
    let (xoff, warn) = (value("eg_xoff = "), value("eg_warn = "));
    text.replacen(
        &format!("eg_warn = {warn}"),
        &format!("eg_warn = {}", xoff + 1),
        1,
    )
}

/// A static map is refused, with the reason and the field, when a reset is said to clear its
/// configuration (it is not in the block's registers) or when its values break section 3's
/// orderings.
#[test]
fn a_static_map_that_cannot_hold_is_refused() {
    let base = std::fs::read_to_string(Path::new(ROOT).join("check/capfc_v2/capfc_v2.map.toml"))
        .expect("the map of our block");
    let dir = work("refuse").join("np4_max_1");
    build(&dir, "np4", 1, 300, Mode::StopMax, true);
    let g = golden::read(&dir).expect("the set reads back");
    let text = g.files.config_toml.clone().expect("config.toml");
    let good = static_map(&base, &g.manifest.params, &text);
    Map::parse(&good, "static.map.toml").expect("the map as pasted parses");
    let cases: [(String, &str); 2] = [
        (
            good.replace("reset_clears_config = false", "reset_clears_config = true"),
            "static.map.toml: reset_clears_config = true with [config] source = \"static\"",
        ),
        (
            // priority 0's thresholds come first: its WARN above its XOFF_e
            warn_above_xoff(&good),
            "static.map.toml: [config.values] prio[0].eg_warn:",
        ),
    ];
    for (text, want) in cases {
        assert_ne!(text, good);
        let e = Map::parse(&text, "static.map.toml")
            .expect_err("refused")
            .to_string();
        assert!(e.starts_with(want), "expected {want:?}, got {e:?}");
    }
}

/// A steady set of the block (format 3) at `np` ports and `cw`-bit counters, built into `dir`.
fn build_v3(dir: &Path, np: usize, cw: u32, seed: u64, cycles: u64, mode: Mode, steady: bool) {
    let p = BlockParams::from_values(&[np as u32, 14, 20, cw, 0, 8, 2]);
    let src = SourceV3::Random {
        seed,
        cycles,
        mode,
        contention: false,
        stray: !np.is_power_of_two(),
        steady,
    };
    let f = golden_v3::build("steady", &p, &src).expect("the set builds");
    golden_v3::write(dir, &f).expect("the set writes");
}

/// The block's steady sets keep the same rule, read back from `stim.hex` as the block's
/// testbench reads it, and their `config.toml` says what the writes program; the rule finds the
/// write under traffic and the reset mid-traffic of the block's directed sets that have them, so
/// it is not vacuous on the block's stimulus either.
#[test]
fn the_blocks_steady_sets_keep_the_rule_and_say_so() {
    let mut checked = 0;
    // (seeds whose traffic shows every corner a random set of the block must show: the
    // generator refuses a set that misses one, and at 6, 12 and 48 ports the stray ports' rare
    // enqueues miss in some seeds)
    let sets: [(usize, u32, &[u64]); 5] = [
        (4, 16, &[1, 2, 4]),
        (6, 4, &[1, 4]),
        (8, 16, &[1, 2, 4]),
        (12, 16, &[1, 4]),
        (48, 16, &[1]),
    ];
    for (np, cw, seeds) in sets {
        for mode in [Mode::StopMax, Mode::StopCal] {
            for &seed in seeds {
                let what = format!("v3 np{np} cw{cw} {} seed {seed}", mode.name());
                let dir = work("rule_v3").join(format!("np{np}_cw{cw}_{}_{seed}", mode.name()));
                build_v3(&dir, np, cw, seed, 4000, mode, true);
                let (p, cy) = cycles_of_v3(&dir);
                let (last_w, first_lane) =
                    steady_rule(&p, &cy).unwrap_or_else(|e| panic!("{what}: steady set: {e}"));
                let first_lane = first_lane.unwrap_or_else(|| panic!("{what}: no lane"));
                let t = std::fs::read_to_string(dir.join(STEADY_CONFIG)).expect("config.toml");
                let sc = SteadyConfig::parse(&t, "config.toml").expect("config.toml parses");
                assert_eq!(sc.stimulus.last_write, last_w, "{what}");
                assert_eq!(sc.stimulus.gap, promised_gap(p.np), "{what}");
                assert!(first_lane >= sc.stimulus.lanes_from, "{what}");
                // the values are what the writes program, register by register
                let m: golden_v3::Manifest3 = serde_json::from_str(
                    &std::fs::read_to_string(dir.join("manifest.json")).unwrap(),
                )
                .unwrap();
                let mut regs = CfgRegs::default();
                for &(_, a, d) in &m.register_writes {
                    regs.write(&p, a, d, None);
                }
                assert_eq!(
                    sc.config.values,
                    BlockConfig::from_regs(&regs),
                    "{what}: config.toml's values"
                );
                assert_eq!(m.lanes_from, vec![sc.stimulus.lanes_from], "{what}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 22);
    // the rule's other breaks, each made in one steady set's cycles
    let dir = work("rule_v3").join("np4_cw16_max_1");
    let (p, cy) = cycles_of_v3(&dir);
    let (last_w, first_lane) = steady_rule(&p, &cy).expect("the set is steady");
    let first_lane = first_lane.expect("a lane") as usize;
    let broken = |at: usize, f: fn(&mut Cy)| {
        let (_, mut c) = cycles_of_v3(&dir);
        f(&mut c[at]);
        steady_rule(&p, &c).expect_err("a break")
    };
    let e = broken(first_lane + 10, |c| c.rst = true);
    assert!(e.contains("a reset after the first write"), "{e}");
    let e = broken(last_w as usize + 2, |c| c.lane = true);
    assert!(e.contains("idle cycles between the last write"), "{e}");
    let e = broken(first_lane + 10, |c| c.cfg = Some(0));
    assert!(e.contains("not consecutive"), "{e}");
    // and the block's directed sets that write under traffic
    let p = BlockParams::from_values(&[4, 14, 20, 16, 0, 8, 2]);
    for (case, want) in [
        ("config_under_traffic", "the writes are not consecutive"),
        ("reset_mid_traffic", "the writes are not consecutive"),
    ] {
        let dir = work("rule_v3").join(case);
        let src = SourceV3::Directed {
            case: case.into(),
            mode: Mode::StopMax,
        };
        let f = golden_v3::build(case, &p, &src).expect("the directed set builds");
        assert!(
            f.config_toml.is_none(),
            "{case}: a directed set has no config.toml"
        );
        golden_v3::write(&dir, &f).expect("the set writes");
        let (p, cy) = cycles_of_v3(&dir);
        let e = steady_rule(&p, &cy).expect_err(case);
        assert!(e.contains(want), "{case}: {e}");
    }
}

/// The static flow end to end on the block: a steady set of the block replayed on its RTL
/// (`testbench/capfc_tb.sv` on Icarus, every output as the set expects), its ports' waveform
/// judged through the block's map with `config.toml`'s configuration in place of the register
/// writes, within the block's envelope: clean, with the selections judged. (Our block takes the
/// writes anyway; a block configured statically would ignore them.)
#[test]
fn a_steady_set_of_the_block_checks_clean_through_a_static_map() {
    assert!(
        Command::new("iverilog").arg("-V").output().is_ok(),
        "iverilog is missing: `make deps` installs it"
    );
    let base = std::fs::read_to_string(Path::new(ROOT).join("check/v3/capfc_top_v3.map.toml"))
        .expect("the block's map")
        .replace(
            "scope = \"capfc_top_v3_tb.u_dut\"",
            "scope = \"capfc_tb.u_dut\"",
        );
    assert!(
        base.contains("scope = \"capfc_tb.u_dut\""),
        "the map's scope"
    );
    let files_f = std::fs::read_to_string(Path::new(ROOT).join("rtl/v3/files.f")).unwrap();
    let mut files: Vec<PathBuf> = files_f
        .lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || l.starts_with('#') || l.starts_with("//")))
        .map(|l| Path::new(ROOT).join(l))
        .collect();
    files.push(Path::new(ROOT).join("testbench/capfc_tb.sv"));
    for (mode, seed) in [(Mode::StopMax, 3), (Mode::StopCal, 4)] {
        let name = format!("{}_{seed}", mode.name());
        let dir = work("v3").join(&name);
        build_v3(&dir, 4, 16, seed, 3000, mode, true);
        let p = BlockParams::from_values(&[4, 14, 20, 16, 0, 8, 2]);
        let (out, vcd) = icarus_replay(&dir, "capfc_tb", &files);
        assert!(
            out.contains("3000 passed, 0 failed"),
            "{name}: the replay: {out}"
        );
        let text = std::fs::read_to_string(dir.join(STEADY_CONFIG)).expect("config.toml");
        // (the block's envelope: its accepts are read four cycles after the take, as `capfc
        // check` reads them)
        let check = |text: &str| {
            let map_text = static_map(&base, &p, text);
            let env = capfc::check::block::envelope_of_v3(&p);
            common::v1::check_wave(&vcd, &map_text, env, &name)
        };
        // a configuration the writes did not program is reported: the file is what is judged
        let lossless = text
            .lines()
            .find(|l| l.starts_with("lossless = "))
            .expect("the lossless mask")
            .to_string();
        let (wrong, _) = check(&text.replacen(&lossless, "lossless = 0", 1));
        assert!(
            !wrong.is_empty(),
            "{name}: no report with no priority lossless in the map"
        );
        let (v, s) = check(&text);
        assert!(
            v.is_empty(),
            "{name}: the static flow reports on the block:\n{}",
            v.iter().take(5).map(|x| x.to_string()).collect::<String>()
        );
        enough_checked(&name, &s);
    }
}
