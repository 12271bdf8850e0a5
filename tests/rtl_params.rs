//! Every RTL module's elaboration-time parameter check fires on an illegal set, under Verilator
//! (`$error`, which 5.006 reports as %Warning-USERERROR) and under Icarus (`$fatal` at time 0, as
//! Icarus 11 has no elaboration-time `$error`), and stays quiet on a legal one. A broken check
//! would otherwise go unseen: nothing else elaborates illegal parameters.

use std::process::Command;

fn rtl_files() -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{root}/rtl/files.f"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .map(|l| format!("{root}/{l}"))
        .collect()
}

/// (module, parameter, an illegal value, a legal value)
const CASES: &[(&str, &str, i64, i64)] = &[
    ("capfc_top", "CUT_F", 17, 8),
    ("capfc_top", "NP", 129, 4),
    ("capfc_cfg", "CUT_F", 0, 8),
    ("capfc_ingress", "CELL_LOG2", 13, 0),
    ("capfc_egress", "NL", 9, 2),
    ("capfc_sort", "CW", 17, 16),
    ("capfc_pfc_gen", "NP", 1, 4),
    ("capfc_ram", "RP", 3, 2),
    ("capfc_lutram", "AW", 9, 3),
];

fn verilator(module: &str, param: &str, v: i64) -> String {
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", module])
        .arg(format!("-G{param}={v}"))
        .args(rtl_files())
        .output()
        .expect("verilator runs");
    String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout)
}

fn icarus(module: &str, param: &str, v: i64) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("capfc-params-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vvp = dir.join(format!("{module}_{param}_{v}.vvp"));
    let c = Command::new("iverilog")
        .args(["-g2012", "-s", module])
        .arg(format!("-P{module}.{param}={v}"))
        .arg("-o")
        .arg(&vvp)
        .args(rtl_files())
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
    for &(m, param, bad, good) in CASES {
        let want = format!("{m}: illegal parameter");
        let v = verilator(m, param, bad);
        assert!(
            v.contains("USERERROR") && v.contains(&want),
            "verilator {m} {param}={bad}: no parameter error:\n{v}"
        );
        let v = verilator(m, param, good);
        assert!(!v.contains(&want), "verilator {m} {param}={good}: {v}");
        let (ok, text) = icarus(m, param, bad);
        assert!(
            !ok && text.contains("FATAL") && text.contains(&want),
            "icarus {m} {param}={bad}: {text}"
        );
        let (ok, text) = icarus(m, param, good);
        assert!(
            ok && !text.contains(&want),
            "icarus {m} {param}={good}: {text}"
        );
    }
}
