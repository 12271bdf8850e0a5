//! Every RTL module's elaboration-time parameter check fires on an illegal set, under Verilator
//! (`$error`, which 5.006 reports as %Warning-USERERROR) and under Icarus (`$fatal` at time 0, as
//! Icarus 11 has no elaboration-time `$error`), and stays quiet on a legal one. A broken check
//! would otherwise go unseen: nothing else elaborates illegal parameters. The block's modules
//! (rtl/v3/files.f) and those of the test subject v2 (check/capfc_v2/files.f).

use std::process::Command;

fn rtl_files(files_f: &str) -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{root}/{files_f}"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .map(|l| format!("{root}/{l}"))
        .collect()
}

const BLOCK: &str = "rtl/v3/files.f";
const V2: &str = "check/capfc_v2/files.f";

/// (file list, module, parameter, an illegal value, a legal value)
const CASES: &[(&str, &str, &str, i64, i64)] = &[
    (BLOCK, "capfc_top_oc", "CUT_F", 17, 8),
    (BLOCK, "capfc_top_oc", "NP", 129, 4),
    (BLOCK, "capfc_cfg", "CUT_F", 0, 8),
    (BLOCK, "capfc_ingress", "CELL_LOG2", 13, 0),
    (BLOCK, "capfc_egress", "NL", 9, 2),
    (BLOCK, "capfc_sort", "CW", 17, 16),
    (BLOCK, "capfc_pfc_gen", "NP", 1, 4),
    (BLOCK, "capfc_ram", "RP", 3, 2),
    (BLOCK, "capfc_lutram", "AW", 9, 3),
    (V2, "capfc_v2_top", "CUT_F", 17, 8),
    (V2, "capfc_v2_top", "NP", 129, 4),
    (V2, "capfc_v2_cfg", "CUT_F", 0, 8),
    (V2, "capfc_v2_ingress", "CELL_LOG2", 13, 0),
    (V2, "capfc_v2_egress", "NL", 9, 2),
    (V2, "capfc_v2_sort", "CW", 17, 16),
    (V2, "capfc_v2_pfc_gen", "NP", 1, 4),
    (V2, "capfc_v2_ram", "RP", 3, 2),
    (V2, "capfc_v2_lutram", "AW", 9, 3),
];

fn verilator(files_f: &str, module: &str, param: &str, v: i64) -> String {
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", module])
        .arg(format!("-G{param}={v}"))
        .args(rtl_files(files_f))
        .output()
        .expect("verilator runs");
    String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout)
}

fn icarus(files_f: &str, module: &str, param: &str, v: i64) -> (bool, String) {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-params-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let vvp = dir.join(format!("{module}_{param}_{v}.vvp"));
    let c = Command::new("iverilog")
        .args(["-g2012", "-s", module])
        .arg(format!("-P{module}.{param}={v}"))
        .arg("-o")
        .arg(&vvp)
        .args(rtl_files(files_f))
        .output()
        .expect("iverilog runs");
    assert!(
        c.status.success(),
        "iverilog {module} {param}={v}: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    let r = Command::new("vvp").arg("-n").arg(&vvp).output().unwrap();
    let text = String::from_utf8_lossy(&r.stdout).to_string() + &String::from_utf8_lossy(&r.stderr);
    (r.status.success(), text)
}

#[test]
fn every_parameter_check_fires_on_an_illegal_set_and_only_then() {
    for &(f, m, param, bad, good) in CASES {
        let want = format!("{m}: illegal parameter");
        let v = verilator(f, m, param, bad);
        assert!(
            v.contains("USERERROR") && v.contains(&want),
            "verilator {m} {param}={bad}: no parameter error:\n{v}"
        );
        let v = verilator(f, m, param, good);
        assert!(!v.contains(&want), "verilator {m} {param}={good}: {v}");
        let (ok, text) = icarus(f, m, param, bad);
        assert!(
            !ok && text.contains("FATAL") && text.contains(&want),
            "icarus {m} {param}={bad}: {text}"
        );
        let (ok, text) = icarus(f, m, param, good);
        assert!(
            ok && !text.contains(&want),
            "icarus {m} {param}={good}: {text}"
        );
    }
}
