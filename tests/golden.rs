//! Golden vectors: the checked-in sets are fresh, replay on the RTL, and bad files are refused
//! with the file, the line and what is wrong.

use capfc::golden::{self, GoldenError};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

/// A scratch copy of a checked-in set.
fn copy_set(name: &str, tag: &str) -> PathBuf {
    let src = root().join(name);
    let dst = std::env::temp_dir().join(format!("capfc-golden-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    for f in ["manifest.json", "params.vh", "stim.hex", "expect.hex"] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
    dst
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
    let (passed, failures) = capfc::cli_golden::check(&root());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed, golden::curated().len());
}

#[test]
fn a_stale_set_is_caught() {
    let d = copy_set("argmax_tie_max_np4", "stale");
    // A plausible but wrong expectation, with consistent hashes: only regeneration can tell.
    edit(&d, "expect.hex", |t| t.replacen("_0", "_1", 1));
    rehash(&d, "expect.hex", "sha256_expect");
    let g = golden::read(&d).unwrap();
    let e = golden::regenerate(&g).unwrap_err();
    assert!(
        e.contains("expect.hex: stale") && e.contains("from line"),
        "{e}"
    );
}

#[test]
fn set_digests() {
    let mut s = String::new();
    for c in golden::curated() {
        let f = golden::build_curated(&c);
        let m: golden::Manifest = serde_json::from_str(&f.manifest).unwrap();
        s += &format!(
            "{:<36} {} {} {:>6} cycles\n",
            c.name,
            &m.sha256_stim[..16],
            &m.sha256_expect[..16],
            m.cycles
        );
    }
    insta::assert_snapshot!(s);
}

fn read_err(d: &Path) -> String {
    match golden::read(d) {
        Err(e @ (GoldenError::Line { .. } | GoldenError::File { .. })) => e.to_string(),
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
