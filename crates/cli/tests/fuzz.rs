//! Every parser against random bytes and random structured edits: no panic, no hang. Each either
//! refuses its input with an error or accepts it; a snapshot that is accepted must also step.
//! Seeded (ChaCha8): a failure names the seed and the case, and the same seed replays it.

use capfc::golden;
use capfc::switch::scenario::Scenario;
use capfc::switch::{BlockKind, DutKind, FlowMode, Snapshot, Switch};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

const SEED: u64 = 11;

/// Numbers that break careless arithmetic.
const EXTREMES: &[&str] = &[
    "0",
    "1",
    "-1",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "-0.0",
    "nan",
    "\"\"",
    "[]",
    "{}",
    "null",
    "true",
];

/// 1 to 4 random byte-level edits: delete a range, insert junk, put an extreme number where a
/// number was, duplicate or drop a line, truncate.
fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut t: Vec<u8> = text.as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..=4) {
        let n = t.len().max(1);
        match rng.gen_range(0..6) {
            0 => {
                let a = rng.gen_range(0..n);
                let b = (a + rng.gen_range(1..40)).min(t.len());
                t.drain(a.min(t.len())..b);
            }
            1 => {
                let a = rng.gen_range(0..=t.len());
                const JUNK: &[u8] = b"0123456789abcdefxz_=[]{}\",.-#\n\t \xff";
                let junk: Vec<u8> = (0..rng.gen_range(1..8))
                    .map(|_| JUNK[rng.gen_range(0..JUNK.len())])
                    .collect();
                t.splice(a..a, junk);
            }
            2 => {
                // replace the digits at a random digit by an extreme
                let digits: Vec<usize> = (0..t.len()).filter(|&k| t[k].is_ascii_digit()).collect();
                if let Some(&a) = digits.get(rng.gen_range(0..digits.len().max(1))) {
                    let mut b = a;
                    while b < t.len() && t[b].is_ascii_digit() {
                        b += 1;
                    }
                    let x = EXTREMES[rng.gen_range(0..EXTREMES.len())];
                    t.splice(a..b, x.bytes());
                }
            }
            3 => {
                let s = String::from_utf8_lossy(&t).to_string();
                let mut lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let k = rng.gen_range(0..lines.len());
                    if rng.gen_bool(0.5) {
                        lines.insert(k, lines[k]);
                    } else {
                        lines.remove(k);
                    }
                }
                t = (lines.join("\n") + "\n").into_bytes();
            }
            4 => {
                let a = rng.gen_range(0..n);
                t.truncate(a);
            }
            _ => {
                let a = rng.gen_range(0..n).min(t.len().saturating_sub(1));
                if let Some(c) = t.get_mut(a) {
                    *c = rng.gen();
                }
            }
        }
    }
    String::from_utf8_lossy(&t).to_string()
}

/// A structured edit of a JSON document: a random leaf becomes an extreme value, or a random key
/// or array element goes.
fn edit_json(v: &mut serde_json::Value, rng: &mut ChaCha8Rng) {
    use serde_json::Value as J;
    let mut node = v;
    loop {
        let n = match node {
            J::Object(m) => m.len(),
            J::Array(a) => a.len(),
            _ => 0,
        };
        if n == 0 || rng.gen_bool(0.15) {
            break;
        }
        let k = rng.gen_range(0..n);
        if rng.gen_bool(0.1) {
            match node {
                J::Object(m) => {
                    let key = m.keys().nth(k).unwrap().clone();
                    m.remove(&key);
                }
                J::Array(a) => {
                    a.remove(k);
                }
                _ => {}
            }
            return;
        }
        node = match node {
            J::Object(m) => m.values_mut().nth(k).unwrap(),
            J::Array(a) => &mut a[k],
            _ => unreachable!(),
        };
    }
    *node = serde_json::from_str(EXTREMES[rng.gen_range(0..EXTREMES.len())]).unwrap_or(J::Null);
}

fn no_panic<T>(what: &str, case: usize, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{what}: case {case} (seed {SEED}) panicked: {msg}")
        }
    }
}

#[test]
fn scenario_toml_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("scenarios");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    texts.sort();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..1500 {
        let src = &texts[case % texts.len()];
        let t = if case % 10 == 0 {
            (0..rng.gen_range(0..200))
                .map(|_| rng.gen::<char>())
                .collect()
        } else {
            mutate(src, &mut rng)
        };
        let r = no_panic("scenario", case, || {
            Scenario::from_toml(&t, "fuzz.toml").inspect(|s| {
                let _ = s.validate();
            })
        });
        match r {
            Ok(_) => ok += 1,
            Err(e) => {
                refused += 1;
                assert!(e.to_string().contains("fuzz.toml"), "case {case}: {e}");
            }
        }
    }
    eprintln!("scenario TOML: {ok} accepted, {refused} refused (seed {SEED})");
    assert!(ok > 50 && refused > 500, "{ok} accepted, {refused} refused");
}

/// A golden set's files written into `dir` as they were (`orig`), but one of them edited at
/// random (a manifest mostly field by field); returns which, and whether the edit changed it.
fn edit_a_set(rng: &mut ChaCha8Rng, files: &[&str], orig: &[String], dir: &Path) -> (usize, bool) {
    let k = rng.gen_range(0..files.len());
    for (f, t) in files.iter().zip(orig) {
        std::fs::write(dir.join(f), t).unwrap();
    }
    let edited = if files[k] == "manifest.json" && rng.gen_bool(0.6) {
        let mut v: serde_json::Value = serde_json::from_str(&orig[k]).unwrap();
        edit_json(&mut v, rng);
        serde_json::to_string_pretty(&v).unwrap()
    } else {
        mutate(&orig[k], rng)
    };
    let changed = edited != orig[k];
    std::fs::write(dir.join(files[k]), edited).unwrap();
    (k, changed)
}

#[test]
fn golden_files_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let src =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("golden/argmax_tie_cal_np4");
    let files = ["manifest.json", "params.vh", "stim.hex", "expect.hex"];
    let orig: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(src.join(f)).unwrap())
        .collect();
    let scratch = tempfile::Builder::new()
        .prefix("capfc-fuzz-golden-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let mut refused = 0;
    for case in 0..600 {
        edit_a_set(&mut rng, &files, &orig, &dir);
        if no_panic("golden", case, || golden::read(&dir)).is_err() {
            refused += 1;
        }
    }
    eprintln!("golden files: {refused} of 600 edited sets refused (seed {SEED})");
    assert!(refused > 300, "only {refused} of 600 edits refused");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn snapshot_json_never_panics_and_an_accepted_one_steps() {
    snapshots_never_panic(BlockKind::V2);
}

/// The v3 block's snapshot (its registers, RAM words and lanes) likewise: a restore checks shapes,
/// unit parameters, widths and lanes before it changes anything.
#[test]
fn v3_snapshot_json_never_panics_and_an_accepted_one_steps() {
    snapshots_never_panic(BlockKind::V3);
}

/// Small values (those a register's width admits) put into the v3 model's registers and RAM words
/// of a snapshot, one to three at a time: accepted (every value fits its width), the block steps
/// without a panic, whatever the registers say.
#[test]
fn v3_registers_edited_within_their_widths_still_step() {
    use serde_json::Value as J;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let sc = Scenario::incast_victims();
    let mut sw =
        Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Model, BlockKind::V3).unwrap();
    for _ in 0..31_000 {
        sw.tick_cycle();
    }
    let base = sw.snapshot().to_json_value();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..300 {
        let mut v = base.clone();
        for _ in 0..rng.gen_range(1..=3) {
            let mut node = &mut v["block"]["v3"]["regs"]["model"];
            loop {
                let n = match node {
                    J::Object(m) => m.len(),
                    J::Array(a) => a.len(),
                    _ => break,
                };
                if n == 0 {
                    break;
                }
                let k = rng.gen_range(0..n);
                node = match node {
                    J::Object(m) => m.values_mut().nth(k).unwrap(),
                    J::Array(a) => &mut a[k],
                    _ => unreachable!(),
                };
            }
            match node {
                J::Number(_) => {
                    *node = [0u64, 1, 2, 3, 5, 7, 8, 15, 31, 63, 255][rng.gen_range(0..11)].into()
                }
                J::Bool(b) => *b = !*b,
                _ => {}
            }
        }
        let Ok(snap) = Snapshot::from_json_value(v) else {
            refused += 1;
            continue;
        };
        let mut t =
            Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Model, BlockKind::V3).unwrap();
        if no_panic("v3 register restore", case, || t.restore(&snap)).is_err() {
            refused += 1;
            continue;
        }
        ok += 1;
        no_panic("v3 register step", case, || {
            for _ in 0..2_000 {
                t.tick_cycle();
            }
        });
    }
    eprintln!("v3 registers edited: {ok} accepted and stepped, {refused} refused (seed {SEED})");
    assert!(ok > 150, "{ok} accepted, {refused} refused");
}

fn snapshots_never_panic(block: BlockKind) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let sc = Scenario::incast_victims();
    let mut sw = Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Model, block).unwrap();
    for _ in 0..13_000 {
        sw.tick_cycle();
    }
    let base = sw.snapshot().to_json_value();
    let text = base.to_string();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..400 {
        let parsed: Result<Snapshot, _> = if case % 2 == 0 {
            let mut v = base.clone();
            for _ in 0..rng.gen_range(1..=3) {
                edit_json(&mut v, &mut rng);
            }
            Snapshot::from_json_value(v)
        } else {
            Snapshot::from_json(&mutate(&text, &mut rng))
        };
        let Ok(snap) = parsed else {
            refused += 1;
            continue;
        };
        let mut t = Switch::with_block(&sc, FlowMode::CapfcCal, DutKind::Model, block).unwrap();
        let r = no_panic("snapshot restore", case, || t.restore(&snap));
        if r.is_err() {
            refused += 1;
            continue;
        }
        ok += 1;
        no_panic("snapshot step", case, || {
            for _ in 0..300 {
                t.tick_cycle();
            }
        });
    }
    eprintln!(
        "snapshots of the {} block: {ok} accepted and stepped, {refused} refused (seed {SEED})",
        block.name()
    );
    assert!(ok > 0 && refused > 100, "{ok} accepted, {refused} refused");
}

/// `capfc check`'s map and timing envelope: random edits of the checked-in files are accepted or
/// refused with the file's name, never a panic.
#[test]
fn check_map_and_envelope_never_panic() {
    use capfc::check::Envelope;
    use capfc::check_wave::Map;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let maps: Vec<String> = [
        "check/capfc_v2/capfc_v2.map.toml",
        "check/capfc_v1/capfc_v1.map.toml",
        "check/capfc_v1/team/team_pfc.map.toml",
        "check/v3/capfc_top_v3.map.toml",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(root.join(f)).unwrap())
    .collect();
    let envs = [
        std::fs::read_to_string(root.join("check/capfc_v1/capfc_v1.timing.toml")).unwrap(),
        capfc::check::block::envelope_of(&golden::params_of("np8").unwrap()).to_toml(),
    ];
    let (mut ok, mut refused) = (0, 0);
    for case in 0..2000 {
        let r = if case % 2 == 0 {
            let t = mutate(&maps[case / 2 % maps.len()], &mut rng);
            no_panic("map", case, || {
                Map::parse(&t, "fuzz.map.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        } else {
            let t = mutate(&envs[case / 2 % envs.len()], &mut rng);
            no_panic("envelope", case, || {
                Envelope::parse(&t, "fuzz.timing.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        };
        match r {
            Ok(()) => ok += 1,
            Err(e) => {
                refused += 1;
                assert!(e.contains("fuzz."), "case {case}: {e}");
            }
        }
    }
    eprintln!("check map and envelope: {ok} accepted, {refused} refused (seed {SEED})");
    assert!(
        ok > 100 && refused > 500,
        "{ok} accepted, {refused} refused"
    );
}

/// A waveform cut short, with bytes deleted, junk inserted or values changed: loaded and checked
/// up to where it is readable, or refused with its name, never a panic. The waveform is the second
/// implementation's (check/capfc_v1) on a short random set, written by Icarus.
#[test]
fn check_waveforms_never_panic() {
    use capfc::check::Checker;
    use capfc::check_wave::{Map, Wave};
    use std::process::Command;
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_wave");
    let set = dir.join("set");
    let p = golden::params_of("np4").unwrap();
    let src = golden::Source::Random {
        seed: 5,
        cycles: 400,
        mode: capfc::block::Mode::StopMax,
        steady: true,
    };
    golden::write(&set, &golden::build("fuzz", &p, &src).unwrap()).unwrap();
    let v1 = root.join("check/capfc_v1");
    let mut files: Vec<_> = std::fs::read_dir(v1.join("rtl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.push(v1.join("capfc_v1_tb.sv"));
    let vvp = dir.join("v1.vvp");
    let vcd = dir.join("v1.vcd");
    let st = Command::new("iverilog")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["-g2012", "-s", "capfc_v1_tb", "-I"])
        .arg(&set)
        .arg("-o")
        .arg(&vvp)
        .args(&files)
        .status()
        .expect("iverilog (make deps installs it)");
    assert!(st.success());
    let st = Command::new("vvp")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .arg("-n")
        .arg(&vvp)
        .arg(format!("+GOLDEN={}", set.display()))
        .arg(format!("+DUMP={}", vcd.display()))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let orig = std::fs::read_to_string(&vcd).unwrap();
    let map_text = std::fs::read_to_string(v1.join("capfc_v1.map.toml")).unwrap();
    let env_text = std::fs::read_to_string(v1.join("capfc_v1.timing.toml")).unwrap();
    let env = capfc::check::Envelope::parse(&env_text, "timing").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let bad = dir.join("bad.vcd");
    let (mut loaded, mut refused) = (0, 0);
    for case in 0..300 {
        let t = if case % 3 == 0 {
            // cut anywhere
            let cut = rng.gen_range(0..orig.len());
            orig[..orig.floor_char_boundary(cut)].to_string()
        } else {
            mutate(&orig, &mut rng)
        };
        std::fs::write(&bad, &t).unwrap();
        let map = Map::parse(&map_text, "map").unwrap();
        let r = no_panic("waveform", case, || {
            Wave::load(&bad.to_string_lossy(), map, &map_text, "map")
                .map(|mut w| {
                    let mut ck =
                        Checker::new(w.params(), w.initial_config(), env.clone(), true).unwrap();
                    w.cycles(|_, c| {
                        ck.step(c);
                        true
                    });
                    ck.finish();
                })
                .map_err(|e| e.to_string())
        });
        match r {
            Ok(()) => loaded += 1,
            Err(e) => {
                refused += 1;
                assert!(
                    e.contains("bad.vcd") || e.contains("map"),
                    "case {case}: {e}"
                );
            }
        }
    }
    eprintln!("waveforms: {loaded} loaded and checked, {refused} refused (seed {SEED})");
    assert!(
        loaded > 50 && refused > 20,
        "{loaded} loaded, {refused} refused"
    );
}

/// Units put after the extreme numbers of [`cli_value`].
const CLI_UNITS: &[&str] = &[
    "", "m", "km", "ns", "G", "g", "M", "ps", "s", "bits", "%", "e9",
];

/// Words [`cli_value`] gives: empty, dashes, names right and wrong, junk.
const CLI_WORDS: &[&str] = &[
    "",
    "-",
    "--",
    "np4",
    "np128",
    "10GBASE-T",
    "cat6",
    "fibre",
    "x",
    "é",
    "0x10",
];

/// A random option value: an extreme number with a unit, a word, or up to 5 printable characters.
fn cli_value(rng: &mut ChaCha8Rng) -> String {
    match rng.gen_range(0..3) {
        0 => format!(
            "{}{}",
            EXTREMES[rng.gen_range(0..EXTREMES.len())],
            CLI_UNITS[rng.gen_range(0..CLI_UNITS.len())]
        ),
        1 => CLI_WORDS[rng.gen_range(0..CLI_WORDS.len())].to_string(),
        _ => (0..rng.gen_range(0..6))
            .map(|_| rng.gen_range(b' '..=b'~') as char)
            .collect(),
    }
}

/// `capfc net` on a short run (200 us of flows, 2 ms simulated: the options shape the network and
/// its handling, not how long it runs) with 0 to 2 of its network options at random values; on a
/// small leaf-spine unless `--topology` is one of them.
fn net_args(rng: &mut ChaCha8Rng) -> Vec<String> {
    const NET: &[&str] = &[
        "--topology",
        "--routing",
        "--transport",
        "--ecn",
        "--ecn-threshold",
        "--shard",
        "--delay",
        "--load",
        "--prio",
    ];
    let net_value = |rng: &mut ChaCha8Rng| -> String {
        match rng.gen_range(0..4) {
            0 => format!("fat-tree:{}", cli_value(rng)),
            1 => format!(
                "leaf-spine:{},{},{}",
                cli_value(rng),
                cli_value(rng),
                cli_value(rng)
            ),
            _ => cli_value(rng),
        }
    };
    let mut args: Vec<String> = [
        "net",
        "--duration",
        "200us",
        "--max-time",
        "2ms",
        "--mode",
        "CaPFC_cal",
    ]
    .map(String::from)
    .to_vec();
    let mut used = vec![];
    for _ in 0..rng.gen_range(0..3) {
        let o = NET[rng.gen_range(0..NET.len())];
        if used.contains(&o) {
            continue;
        }
        used.push(o);
        args.push(o.into());
        args.push(net_value(rng));
    }
    if !used.contains(&"--topology") {
        args.extend(["--topology".into(), "leaf-spine:2,1,2".into()]);
    }
    args
}

/// A valid `capfc headroom` command line, then 0 to 2 of its options with random values, and
/// sometimes `--measured` with four random values.
fn headroom_args(rng: &mut ChaCha8Rng) -> Vec<String> {
    const HEADROOM: &[&str] = &[
        "--phy",
        "--speed",
        "--cable",
        "--medium",
        "--ns-per-m",
        "--max-frame",
        "--pfc-frame",
        "--tx-delay",
        "--rx-delay",
        "--hd",
        "--alpha",
        "--cell",
        "--max",
    ];
    let mut args: Vec<String> = ["headroom", "--phy", "10GBASE-T", "--cable", "100m"]
        .map(String::from)
        .to_vec();
    for _ in 0..rng.gen_range(0..3) {
        args.push(HEADROOM[rng.gen_range(0..HEADROOM.len())].into());
        args.push(cli_value(rng));
    }
    if rng.gen_bool(0.15) {
        args.push("--measured".into());
        for _ in 0..4 {
            args.push(cli_value(rng));
        }
    }
    args
}

/// `capfc gen-sv` for np4 with 0 to 2 of its parameter options at random values, writing into `out`.
fn gen_sv_args(rng: &mut ChaCha8Rng, out: &Path) -> Vec<String> {
    const GEN_SV: &[&str] = &[
        "--config",
        "--np",
        "--sw",
        "--ow",
        "--cw",
        "--cell-log2",
        "--cut-f",
        "--nl",
    ];
    let mut args: Vec<String> = ["gen-sv", "--config", "np4"].map(String::from).to_vec();
    for _ in 0..rng.gen_range(0..3) {
        args.push(GEN_SV[rng.gen_range(0..GEN_SV.len())].into());
        args.push(cli_value(rng));
    }
    args.push("--out".into());
    args.push(out.to_string_lossy().into_owned());
    args
}

/// `capfc check --envelope` with a parameter set's name or a random value.
fn check_args(rng: &mut ChaCha8Rng) -> Vec<String> {
    let set = if rng.gen_bool(0.4) {
        ["np4", "np8", "np6_cw4"][rng.gen_range(0..3)].to_string()
    } else {
        cli_value(rng)
    };
    vec!["check".into(), "--envelope".into(), set]
}

/// Runs `capfc args` from the repository's root, killed and failed after 20 s: its exit code and
/// standard error.
fn run_within_20s(case: usize, args: &[String]) -> (Option<i32>, String) {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("case {case} (seed {SEED}) hangs: capfc {}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    (status.code(), err)
}

/// Command-line values: random extremes and junk for the options of the commands that parse
/// numbers, units and names (`headroom`, `gen-sv`, `check --envelope`, and `capfc net`'s network
/// options on a short run). Every run ends within 20 s with 0, or 1 or 2 and a message on stderr;
/// none panics.
#[test]
fn cli_values_never_panic() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_cli");
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let (mut ok, mut refused) = (0, 0);
    for case in 0..300 {
        let args = match case % 4 {
            3 => net_args(&mut rng),
            0 => headroom_args(&mut rng),
            1 => gen_sv_args(&mut rng, &out.join(format!("c{case}"))),
            _ => check_args(&mut rng),
        };
        let (code, err) = run_within_20s(case, &args);
        assert!(
            !err.contains("panicked") && matches!(code, Some(0..=2)),
            "case {case} (seed {SEED}): capfc {} exited {code:?}: {err}",
            args.join(" ")
        );
        if code == Some(0) {
            ok += 1;
        } else {
            assert!(
                !err.trim().is_empty(),
                "case {case}: capfc {} failed silently",
                args.join(" ")
            );
            refused += 1;
        }
    }
    eprintln!("cli values: {ok} accepted, {refused} refused (seed {SEED})");
    assert!(ok > 50 && refused > 50, "{ok} accepted, {refused} refused");
}

/// A v3 golden set (format 3): random edits of its four files are refused with the file's name,
/// or accepted only when the set still builds to the same bytes; never a panic.
#[test]
fn golden_v3_files_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let name = "mac_busy_max_np4";
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("golden/v3")
        .join(name);
    let files = ["manifest.json", "params.vh", "stim.hex", "expect.hex"];
    let orig: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(src.join(f)).unwrap())
        .collect();
    let dir = std::env::temp_dir()
        .join(format!("capfc-fuzz-golden-v3-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut refused, mut named) = (0, 0);
    for case in 0..300 {
        let (k, changed) = edit_a_set(&mut rng, &files, &orig, &dir);
        match no_panic("golden v3", case, || {
            capfc::golden_v3::check(&dir).map_err(|e| e.to_string())
        }) {
            Err(e) => {
                refused += 1;
                named += usize::from(e.contains(&dir.display().to_string()));
            }
            Ok(_) => assert!(
                !changed || files[k] == "manifest.json",
                "case {case}: an edited {} was accepted (seed {SEED})",
                files[k]
            ),
        }
    }
    eprintln!("golden v3 files: {refused} of 300 edited sets refused (seed {SEED})");
    assert!(refused > 200, "only {refused} of 300 edits refused");
    assert_eq!(named, refused, "every refusal names the set's directory");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
