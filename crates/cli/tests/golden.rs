//! Golden vectors: the checked-in sets are fresh, replay on the RTL, and bad files are refused
//! with the file, the line and what is wrong.

use capfc::block::pack::{pack_inputs, Layouts};
use capfc::block::{Inputs, Mode};
use capfc::golden::{self, GoldenError};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("golden")
}

/// A scratch copy of a checked-in set, removed when dropped.
struct SetCopy(tempfile::TempDir);

impl std::ops::Deref for SetCopy {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for SetCopy {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

fn copy_set(name: &str, tag: &str) -> SetCopy {
    let src = root().join(name);
    let dst = tempfile::Builder::new()
        .prefix(&format!("capfc-golden-{tag}-"))
        .tempdir()
        .unwrap();
    for f in ["manifest.json", "params.vh", "stim.hex", "expect.hex"] {
        std::fs::copy(src.join(f), dst.path().join(f)).unwrap();
    }
    SetCopy(dst)
}

fn edit(dir: &Path, file: &str, f: impl FnOnce(String) -> String) {
    let p = dir.join(file);
    let t = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, f(t)).unwrap();
}

/// Put the manifest's hash of `file` back in line with its (edited) contents.
fn rehash(dir: &Path, file: &str, field: &str) {
    use sha2::{Digest, Sha256};
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let h: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    edit(dir, "manifest.json", |m| {
        let mut v: serde_json::Value = serde_json::from_str(&m).unwrap();
        v[field] = serde_json::Value::String(h);
        serde_json::to_string_pretty(&v).unwrap()
    });
}

#[test]
fn checked_in_sets_are_fresh_and_complete() {
    let (passed, failures) = capfc_cli::cli_golden::check(&root());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        passed,
        golden::curated().len() + capfc::golden_v3::curated().len()
    );
}

#[test]
fn a_stale_set_is_caught() {
    let d = copy_set("argmax_tie_max_np4", "stale");
    // A plausible but wrong expectation, with consistent hashes: only regeneration can tell.
    edit(&d, "expect.hex", |t| t.replacen("_0", "_1", 1));
    rehash(&d, "expect.hex", "sha256_expect");
    let g = golden::read(&d).unwrap();
    let e = golden::regenerate(&g).unwrap_err().to_string();
    assert!(
        e.contains("expect.hex: stale") && e.contains("from line"),
        "{e}"
    );
}

#[test]
fn set_digests() {
    let mut s = String::new();
    for c in golden::curated() {
        let f = golden::build_curated(&c).unwrap();
        let m: golden::Manifest = serde_json::from_str(&f.manifest).unwrap();
        s += &format!(
            "{:<36} {} {} {:>6} cycles\n",
            c.name,
            &m.sha256_stim[..16],
            &m.sha256_expect[..16],
            m.cycles
        );
    }
    // Inline, so that the digests live next to the test (review a change like code).
    insta::assert_snapshot!(s, @r"
    thresholds_exact_max_np4             cc0a150ebcc7a6b9 a291e8180d9530dd    585 cycles
    thresholds_exact_cal_np4             3e9c1b36e35da795 a53210bee5aeeb57    585 cycles
    counter_saturation_max_np6_cw4       1dddd93fa0d21d62 7f7dbd3a9fd1c9f7    186 cycles
    counter_saturation_cal_np6_cw4       6c7dd9765cb107c9 5e18fd6ce623747d    186 cycles
    argmax_tie_max_np4                   13c49af09c3c3c19 68cfadf02c025022    204 cycles
    argmax_tie_cal_np4                   7430ef35db0379b3 1298e86390a7ed10    204 cycles
    clear_at_warn_max_np4                775f7990e7cbe521 51256f6b8f5b2ef2    305 cycles
    clear_at_warn_cal_np4                bda422f5917622ab 9ebc9fd965a4a7a2    305 cycles
    clear_during_increment_max_np4       addc3e125d603436 f09a1c2dd4c4a1d0    212 cycles
    clear_during_increment_cal_np4       35906a07aa61f332 3f866ac9f90c0131    212 cycles
    pending_cleared_max_np4              3eebe964696d0fdc 9f6ba465be98e8be    319 cycles
    pending_cleared_cal_np4              161ca7c5fef5f6b5 4ae36ccc8e613b64    319 cycles
    cut_min_step_max_np4                 7d1de5ba7f333e38 bd5e3ac7dcb97e70    212 cycles
    cut_min_step_cal_np4                 40b160dc774c2c7b 2128050b1650429a    212 cycles
    cut_one_max_np4                      4d896ae319497022 bd5e3ac7dcb97e70    212 cycles
    cut_one_cal_np4                      1504e5f92fe41238 80a3f282df57dfdf    212 cycles
    cut_one_held_max_np4                 cfb50506b68d51b0 2e3f10a4f60dd993    406 cycles
    cut_one_held_cal_np4                 34b9a15c2bf020e2 667b74f1c9953ec9    406 cycles
    all_queues_request_max_np4           b34db0c30706a6df a6278c286d450cef    845 cycles
    all_queues_request_cal_np4           d63435e412a8fafc 31fa4742192d4eee    845 cycles
    xon_during_sort_max_np4              6696a3e35ec3fe00 39ebe930997a8f4f    326 cycles
    xon_during_sort_cal_np4              aa202d9e69dec1f3 a7ebdcd8e410c8b2    326 cycles
    refresh_expiry_max_np4               854937f59766569e 1ee26a139cf7ca33    235 cycles
    refresh_expiry_cal_np4               bbf9a7bd13bc8d29 1ee26a139cf7ca33    235 cycles
    reset_mid_traffic_max_np4            3cb6b3c4d0e00819 9e060f29bdd8d3cb    272 cycles
    reset_mid_traffic_cal_np4            38451f69ab8234f6 b0ffb91f44afbd1d    272 cycles
    mac_busy_max_np4                     42cd695777b8b5ef 2761881bc5d57d25    259 cycles
    mac_busy_cal_np4                     45ff8416071349f7 2761881bc5d57d25    259 cycles
    switch_incast_victims_cal_np8        2212961e6d9dc724 53090ba980cfbbf0  60062 cycles
    random_max_np4_seed1                 95d277ae50006ecb f8d171fb1e4e9f04   1501 cycles
    random_cal_np4_seed1                 cf2de1c7c858ed82 29eb1baefd6a28de   1501 cycles
    random_max_np8_seed1                 46afcdfccfb3ca90 a05d070d33511d0e   1001 cycles
    random_cal_np8_seed1                 7217748cb933c93a 6975a43a92069e37   1001 cycles
    random_max_np16_seed1                dbdc714b061dbc11 e712c350ea6c91d9    601 cycles
    random_cal_np16_seed1                b43a4092e6dce281 b767ee8b5bea6186    601 cycles
    ");
}

#[test]
fn pfc_ready_is_a_level_and_no_line_is_redundant() {
    // The MAC-busy set read back cycle by cycle, the way the testbench drives it, is exactly what
    // the model ran: the reset cycle, then the directed case's cycles.
    let g = golden::read(&root().join("mac_busy_cal_np4")).unwrap();
    let p = g.manifest.params;
    let l = Layouts::new(&p).inputs;
    let script = capfc::stimulus::directed(&p, Mode::StopCal, "mac_busy").unwrap();
    let mut want = vec![Inputs::idle(p.np)];
    want[0].rst = true;
    want.extend(script.cycles.iter().cloned());
    assert_eq!(want.len() as u64, g.manifest.cycles);
    let mut cur = golden::StimCursor::new(&g);
    let (mut buf, mut held_busy) = (vec![0u32; l.words], 0);
    let lines: std::collections::HashSet<u64> = g.stim.iter().map(|(c, _)| *c).collect();
    for (c, inp) in want.iter().enumerate() {
        pack_inputs(&p, &l, inp, &mut buf);
        assert_eq!(
            cur.inputs(c as u64),
            &buf[..],
            "cycle {c}: {}",
            inp.describe()
        );
        if !lines.contains(&(c as u64)) && inp.pfc_ready != capfc::block::mask128(p.np) {
            held_busy += 1;
        }
    }
    assert!(held_busy > 0, "no cycle without a line holds a MAC busy");

    // In every set, each line says something a missing line would not: a pulse input, or a change
    // of pfc_ready (all ones before the first line).
    for dir in golden::list_sets(&root()) {
        let g = golden::read(&dir).unwrap();
        let p = g.manifest.params;
        let mask = golden::idle_words(&p, &Layouts::new(&p).inputs);
        let mut held = mask.clone();
        for (c, w) in &g.stim {
            assert_ne!(*w, held, "{}: cycle {c}: a redundant line", dir.display());
            held = w.iter().zip(&mask).map(|(a, b)| a & b).collect();
        }
    }
}

fn read_err(d: &Path) -> String {
    match golden::read(d) {
        Err(
            e @ (GoldenError::Line { .. } | GoldenError::File { .. } | GoldenError::Hex { .. }),
        ) => e.to_string(),
        Err(e) => panic!("{}: refused without naming the file: {e}", d.display()),
        Ok(_) => panic!("{} was accepted", d.display()),
    }
}

#[test]
fn truncated_file_is_refused_naming_it() {
    let d = copy_set("thresholds_exact_cal_np4", "trunc");
    edit(&d, "stim.hex", |t| {
        let lines: Vec<&str> = t.lines().collect();
        lines[..lines.len() - 3].join("\n") + "\n"
    });
    let e = read_err(&d);
    assert!(
        e.contains("stim.hex") && e.contains("data lines, the manifest says"),
        "{e}"
    );
}

#[test]
fn wrong_width_and_bad_hex_name_the_line() {
    let d = copy_set("thresholds_exact_cal_np4", "width");
    // The first data line comes after the header comments.
    let first = std::fs::read_to_string(d.join("stim.hex"))
        .unwrap()
        .lines()
        .position(|l| !l.starts_with("//"))
        .unwrap()
        + 1;
    edit(&d, "stim.hex", |t| {
        let mut l: Vec<String> = t.lines().map(String::from).collect();
        l[first].pop(); // one digit short on the second data line
        l.join("\n") + "\n"
    });
    let e = read_err(&d);
    assert!(
        e.contains(&format!("stim.hex line {}: expected", first + 1)) && e.contains("hex digits"),
        "{e}"
    );

    let d = copy_set("thresholds_exact_cal_np4", "hex");
    edit(&d, "expect.hex", |t| {
        let mut l: Vec<String> = t.lines().map(String::from).collect();
        let k = l.iter().position(|x| !x.starts_with("//")).unwrap();
        l[k].replace_range(12..13, "g"); // a digit after the 8-digit stamp and the '_'
        l.join("\n") + "\n"
    });
    let e = read_err(&d);
    assert!(
        e.contains("expect.hex line") && e.contains("'g' is not a hex digit"),
        "{e}"
    );
}

#[test]
fn manifest_that_does_not_match_the_rtl_is_refused() {
    let d = copy_set("argmax_tie_cal_np4", "params");
    edit(&d, "manifest.json", |m| m.replace("\"np\": 4", "\"np\": 5"));
    let e = read_err(&d);
    assert!(
        e.contains("manifest.json") && e.contains("field in_bits"),
        "{e}"
    );

    // A v1 set: format 1, no NL.
    let d = copy_set("argmax_tie_cal_np4", "v1");
    edit(&d, "manifest.json", |m| {
        let mut v: serde_json::Value = serde_json::from_str(&m).unwrap();
        v["format"] = 1.into();
        v["params"].as_object_mut().unwrap().remove("nl");
        serde_json::to_string_pretty(&v).unwrap()
    });
    let e = read_err(&d);
    assert!(
        e.contains("manifest.json") && e.contains("format 1 is not 2"),
        "{e}"
    );

    let d = copy_set("argmax_tie_cal_np4", "json");
    edit(&d, "manifest.json", |m| {
        m.replace("\"cycles\"", "\"cycels\"")
    });
    let e = read_err(&d);
    assert!(
        e.contains("manifest.json line") && e.contains("cycels"),
        "{e}"
    );
}

#[cfg(feature = "rtl")]
#[test]
fn every_set_replays_on_the_rtl() {
    for dir in golden::list_sets(&root()) {
        let g = golden::read(&dir).unwrap();
        let r = golden::replay(&g).unwrap();
        assert_eq!(
            r.failed,
            0,
            "{}: {:?}",
            dir.display(),
            &r.mismatches[..r.mismatches.len().min(5)]
        );
        assert_eq!(r.passed, g.manifest.cycles);
    }
}

#[cfg(feature = "rtl")]
#[test]
fn a_flipped_expected_bit_is_reported_at_its_cycle_and_signal() {
    let d = copy_set("refresh_expiry_cal_np4", "flip");
    // Flip the lowest bit (d_state[0]: port 0, priority 0) of the fourth expectation line.
    let mut stamp = 0u64;
    edit(&d, "expect.hex", |t| {
        let mut l: Vec<String> = t.lines().map(String::from).collect();
        let k = l
            .iter()
            .enumerate()
            .filter(|(_, x)| !x.starts_with("//"))
            .nth(3)
            .unwrap()
            .0;
        stamp = u64::from_str_radix(&l[k][..8], 16).unwrap();
        let last = l[k].pop().unwrap().to_digit(16).unwrap() ^ 1;
        l[k].push(char::from_digit(last, 16).unwrap());
        l.join("\n") + "\n"
    });
    rehash(&d, "expect.hex", "sha256_expect");
    let g = golden::read(&d).unwrap();
    let r = golden::replay(&g).unwrap();
    assert!(r.failed > 0);
    assert!(
        r.mismatches[0].starts_with(&format!("cycle {stamp}: d_state[0] [port=0 prio=0]")),
        "{:?}",
        &r.mismatches[..2.min(r.mismatches.len())]
    );
}

/// The block's sets on its Verilated RTL alone (`capfc golden replay`, `soak_v3::replay_set`):
/// every checked-in set whose parameters are built gives every line of its expect.hex, and a
/// flipped expected bit is reported at its line.
#[cfg(feature = "rtl")]
#[test]
fn every_v3_set_replays_on_the_rtl_and_a_flipped_bit_is_reported() {
    let built = capfc::dut_v3::available();
    let mut n = 0;
    for dir in golden::list_sets(&root().join("v3")) {
        let m = capfc::golden_v3::check(&dir).unwrap();
        if !built.iter().any(|(_, p)| *p == m.params) {
            continue;
        }
        let r = capfc::soak_v3::replay_set(&dir).unwrap();
        assert_eq!(r.first, None, "{}", dir.display());
        assert_eq!(r.cycles, m.cycles);
        n += 1;
    }
    assert!(n >= 50, "{n} sets replayed");
    let d = copy_set("v3/two_lanes_one_slot_max_np4", "v3flip");
    let mut line = 0;
    edit(&d, "expect.hex", |t| {
        let mut l: Vec<String> = t.lines().map(String::from).collect();
        let body: Vec<usize> = (0..l.len()).filter(|&k| !l[k].starts_with("//")).collect();
        let k = body[body.len() / 2];
        line = body.iter().position(|&b| b == k).unwrap() + 1;
        let last = l[k].pop().unwrap().to_digit(16).unwrap() ^ 1;
        l[k].push(char::from_digit(last, 16).unwrap());
        l.join("\n") + "\n"
    });
    let r = capfc::soak_v3::replay_set(&d).unwrap();
    assert_eq!(r.first.map(|f| f.0), Some(line));
}

/// `capfc golden gen --seed` at one of the block's parameter sets writes a set of the block
/// (format 3) that `capfc golden replay` replays on the RTL, with `config.toml` under
/// `--steady`, 4000 cycles long unless told; a run too short for its corners is refused with
/// what to do, and `--steady` without `--seed`.
#[cfg(feature = "rtl")]
#[test]
fn golden_gen_writes_a_set_of_the_block() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-golden-gen-")
        .tempdir()
        .unwrap();
    let out = scratch.path().to_path_buf();
    let _ = std::fs::remove_dir_all(&out);
    let set = out.join("random_cal_v3_np4_seed9");
    let capfc = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
            .current_dir(root().join(".."))
            .args(args)
            .output()
            .unwrap()
    };
    let s = set.to_str().unwrap();
    let o = capfc(&[
        "golden", "gen", "--seed", "9", "--cycles", "3000", "--config", "v3_np4", "--out", s,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = capfc::golden_v3::check(&set).unwrap();
    assert_eq!((m.params.np, m.cycles), (4, 3000));
    let o = capfc(&["golden", "replay", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("every one given by the RTL"));
    assert!(
        !set.join("config.toml").exists(),
        "a set that is not steady"
    );
    // --steady: the same traffic, and config.toml, which `golden check` checks too; a set
    // written over it again without --steady loses the file
    let o = capfc(&[
        "golden", "gen", "--seed", "9", "--cycles", "3000", "--config", "v3_np4", "--steady",
        "--out", s,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cfg = std::fs::read_to_string(set.join("config.toml")).expect("config.toml");
    capfc::golden::SteadyConfig::parse(&cfg, "config.toml").expect("config.toml parses");
    capfc::golden_v3::check(&set).expect("a steady set checks");
    std::fs::write(set.join("config.toml"), cfg.replace("gap = ", "gap = 1")).unwrap();
    let e = capfc::golden_v3::check(&set).expect_err("an edited config.toml is stale");
    assert!(e.to_string().contains("config.toml"), "{e}");
    // a steady set without its config.toml is refused
    std::fs::remove_file(set.join("config.toml")).unwrap();
    let e = capfc::golden_v3::check(&set).expect_err("config.toml missing");
    assert!(e.to_string().contains("config.toml: missing"), "{e}");
    let o = capfc(&[
        "golden", "gen", "--seed", "9", "--cycles", "3000", "--config", "v3_np4", "--out", s,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !set.join("config.toml").exists(),
        "the set is no longer steady"
    );
    // and a config.toml beside a set that is not steady is refused
    std::fs::write(set.join("config.toml"), &cfg).unwrap();
    let e = capfc::golden_v3::check(&set).expect_err("a config.toml the set has no use for");
    assert!(e.to_string().contains("has no such file"), "{e}");
    std::fs::remove_file(set.join("config.toml")).unwrap();
    // without --cycles: the block's default length, long enough for the corners at 4 ports
    let o = capfc(&[
        "golden", "gen", "--seed", "1", "--config", "v3_np4", "--out", s,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(capfc::golden_v3::check(&set).unwrap().cycles, 4000);
    // too short for its corners: refused, with what to do
    let o = capfc(&[
        "golden", "gen", "--seed", "1", "--cycles", "300", "--config", "v3_np4", "--out", s,
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("did not happen") && e.contains("more --cycles, or another --seed"),
        "{e}"
    );
    let o = capfc(&[
        "golden",
        "gen",
        "--directed",
        "argmax_tie",
        "--config",
        "v3_np4",
        "--steady",
        "--out",
        s,
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--steady: a random set's option"));
    let _ = std::fs::remove_dir_all(&out);
}

/// Hand-made manifests that a careless reader would hang or panic on: parameters the directed
/// cases cannot be built for, zero line counts, and a configuration that disagrees with the
/// register writes.
#[test]
fn hand_made_manifests_are_refused_not_run() {
    for cell_log2 in [10, 11, 12] {
        let d = copy_set("argmax_tie_cal_np4", &format!("cell{cell_log2}"));
        edit(&d, "manifest.json", |m| {
            m.replace("\"cell_log2\": 0", &format!("\"cell_log2\": {cell_log2}"))
        });
        // The set reads (the ports do not depend on CELL_LOG2); regenerating it is refused.
        let g = golden::read(&d).unwrap();
        let e = golden::regenerate(&g).unwrap_err().to_string();
        assert!(e.contains("CELL_LOG2 <= 6"), "{e}");
    }
    let d = copy_set("argmax_tie_cal_np4", "zero");
    edit(&d, "manifest.json", |m| {
        let mut v: serde_json::Value = serde_json::from_str(&m).unwrap();
        v["expect_lines"] = 0.into();
        serde_json::to_string_pretty(&v).unwrap()
    });
    let e = read_err(&d);
    assert!(e.contains("field expect_lines is 0"), "{e}");
    let d = copy_set("cut_one_cal_np4", "config");
    edit(&d, "manifest.json", |m| {
        let mut v: serde_json::Value = serde_json::from_str(&m).unwrap();
        v["config"]["cut_fixed"] = 205.into();
        serde_json::to_string_pretty(&v).unwrap()
    });
    let e = read_err(&d);
    assert!(
        e.contains("field config disagrees with register_writes"),
        "{e}"
    );
}

/// A v3 set whose expectation was edited is refused, naming the file and its first wrong line.
#[test]
fn a_stale_v3_set_is_caught() {
    let src = root().join("v3/mac_busy_max_np4");
    let dst = std::env::temp_dir()
        .join(format!("capfc-golden-v3-stale-{}", std::process::id()))
        .join("mac_busy_max_np4");
    std::fs::create_dir_all(&dst).unwrap();
    for f in ["manifest.json", "params.vh", "stim.hex", "expect.hex"] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
    capfc::golden_v3::check(&dst).expect("the copy is fresh");
    let text = std::fs::read_to_string(dst.join("expect.hex")).unwrap();
    let line = text.lines().position(|l| l.contains("_0")).unwrap() + 1;
    edit(&dst, "expect.hex", |t| t.replacen("_0", "_1", 1));
    let e = capfc::golden_v3::check(&dst).unwrap_err().to_string();
    assert!(
        e.contains("expect.hex") && e.contains(&format!("line {line}:")),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(dst.parent().unwrap());
}

/// A v3 set is refused, not written, when the corner it is named after did not happen: here a
/// random run too short to cross any threshold.
#[test]
fn a_v3_set_without_its_corner_is_refused() {
    use capfc::golden_v3::{build, curated, SourceV3};
    let p = curated()[0].params;
    let e = build(
        "short",
        &p,
        &SourceV3::Random {
            seed: 1,
            cycles: 100,
            mode: Mode::StopMax,
            contention: false,
            stray: false,
            steady: false,
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, capfc::golden_v3::GoldenV3Error::Corner { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("did not happen"), "{e}");
}

/// Every directed v3 set's corner counter can fail: with its stimulus moved by one step where
/// the corner depends on it (`build_nudged`: a unit of occupancy, a slot, a count of clears,
/// the traffic around a write), a corner it is named after does not happen and the set is
/// refused. So a count of at least 1 in a manifest says that the corner happened.
#[test]
fn every_v3_directed_corner_counter_can_fail() {
    use capfc::golden_v3::{build_nudged, curated, SourceV3};
    let mut n = 0;
    for c in curated() {
        if !matches!(c.source, SourceV3::Directed { .. }) {
            continue;
        }
        let e = build_nudged(&c.name, &c.params, &c.source, true)
            .err()
            .unwrap_or_else(|| panic!("{}: written with its stimulus nudged", c.name))
            .to_string();
        assert!(e.contains("did not happen"), "{}: {e}", c.name);
        n += 1;
    }
    assert_eq!(n, 2 * capfc::golden_v3::DIRECTED_V3.len());
}

/// Every v3 set starts its traffic after the configuration has reached every group: its first
/// lane is offered `8 + NG + 8` cycles after the last write of each configuration, and no lane
/// is taken inside the `8 + NG + 1` cycles after a write it depends on (the generator refuses
/// such a set; here the manifests are read as a reader outside the project would).
#[test]
fn v3_traffic_starts_after_the_configuration_window() {
    for c in capfc::golden_v3::curated() {
        let dir = root().join("v3").join(&c.name);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        let np = m["params"]["np"].as_u64().unwrap();
        let writes = m["register_writes"].as_array().unwrap();
        for from in m["lanes_from"].as_array().unwrap() {
            let from = from.as_u64().unwrap();
            let last = writes
                .iter()
                .map(|w| w[0].as_u64().unwrap())
                .filter(|&t| t < from)
                .max()
                .unwrap();
            assert!(
                from >= last + 1 + 8 + np.div_ceil(8) + 8,
                "{}: lanes from cycle {from}, last write in {last}",
                c.name
            );
        }
    }
}
