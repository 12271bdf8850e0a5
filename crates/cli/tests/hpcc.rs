//! `capfc run --hpcc DIR`: flow completion times and PFC events in HPCC's ns-3 output formats,
//! read back here with HPCC's column layout (`fct.txt`: `%08x %08x %u %u %lu %lu %lu %lu`,
//! `pfc.txt`: `%lu %u %u %u %u`) as HPCC's analysis scripts read them; and HPCC's flow completion
//! analysis, as its `analysis/fct_analysis.py` does it, finds our flows and computes its slowdown
//! table from `capfc run --hpcc` and `capfc net --hpcc` output.

use capfc::switch::hpcc::{fct_txt, node_ip, pfc_txt, standalone_cycles};
use capfc::switch::scenario::Scenario;
use capfc::switch::{DutKind, FlowMode, Switch};

#[test]
fn fct_and_pfc_files_parse_with_hpccs_column_layout() {
    let sc = Scenario::incast_victims();
    let mut s = Switch::new_v2(&sc, FlowMode::CapfcCal, DutKind::Model).unwrap();
    s.pfc_log = Some(vec![]);
    s.run();
    let fct = fct_txt(&sc, &s.stats.fct);
    let done: Vec<usize> = (0..sc.flows.len())
        .filter(|&f| s.stats.fct[f].is_some())
        .collect();
    assert!(!done.is_empty());
    let lines: Vec<&str> = fct.lines().collect();
    assert_eq!(lines.len(), done.len(), "one line per completed flow");
    for (line, &f) in lines.iter().zip(&done) {
        let c: Vec<&str> = line.split(' ').collect();
        assert_eq!(c.len(), 8, "{line}: eight columns");
        assert!(c[0].len() == 8 && c[1].len() == 8, "{line}: %08x addresses");
        let sip = u32::from_str_radix(c[0], 16).unwrap();
        let dip = u32::from_str_radix(c[1], 16).unwrap();
        // HPCC's scripts take the node back from the address
        assert_eq!(
            ((sip >> 8) & 0xffff) as usize,
            sc.flows[f].src,
            "{line}: source node"
        );
        assert_eq!(
            ((dip >> 8) & 0xffff) as usize,
            sc.flows[f].dst,
            "{line}: destination node"
        );
        assert_eq!(sip, node_ip(sc.flows[f].src));
        let n: Vec<u64> = c[2..].iter().map(|x| x.parse().unwrap()).collect();
        assert_eq!(n[0], 10_000 + f as u64 % 50_000, "{line}: source port");
        let want = if ["incast", "query"].contains(&sc.flows[f].class.as_str()) {
            200
        } else {
            100
        };
        assert_eq!(
            n[1], want,
            "{line}: HPCC's destination port of a {}",
            sc.flows[f].class
        );
        assert_eq!(n[2], sc.flows[f].bytes, "{line}: size");
        let ns = |c: u64| (c as f64 * sc.cycle_ns).round() as u64;
        assert_eq!(n[3], ns(sc.flows[f].start), "{line}: start");
        assert_eq!(n[4], ns(s.stats.fct[f].unwrap()), "{line}: fct");
        assert_eq!(
            n[5],
            ns(standalone_cycles(&sc, f)),
            "{line}: standalone fct"
        );
        assert!(
            n[4] >= n[5],
            "{line}: no flow beats its standalone FCT (slowdown >= 1)"
        );
    }
    let log = s.pfc_log.as_deref().unwrap();
    let pfc = pfc_txt(&sc, log);
    let expect: usize = log.iter().map(|e| e.2.count_ones() as usize).sum();
    let (mut pause, mut resume, mut last) = (0, 0, 0u64);
    for line in pfc.lines() {
        let c: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(c.len(), 5, "{line}: five columns");
        assert!(c[0] >= last, "{line}: in time order");
        last = c[0];
        assert!(
            (c[1] as usize) < sc.ports && c[2] == 0 && c[3] == 1,
            "{line}: a host's NIC"
        );
        match c[4] {
            1 => pause += 1,
            0 => resume += 1,
            x => panic!("{line}: type {x}"),
        }
    }
    assert_eq!(pause + resume, expect, "one line per class a frame enables");
    assert!(pause > 0 && resume > 0, "pauses and resumes both logged");
}

#[test]
fn the_cli_writes_both_files_per_mode() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-hpcc-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["run", "--mode", "CaPFC_cal,PFC_wstop", "--hpcc"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for m in ["CaPFC_cal", "PFC_wstop"] {
        for w in ["fct", "pfc"] {
            let p = dir.join(format!("incast-victims_{m}_{w}.txt"));
            let t = std::fs::read_to_string(&p).unwrap();
            assert!(!t.is_empty(), "{} is empty", p.display());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// awk's output of a number (`print` with the default OFMT): an integral value as an integer,
/// any other as C's `%.6g`.
fn awk_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let e = format!("{x:.5e}");
    let (mant, exp) = e.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let trim = |t: &str| {
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        trim(&format!("{x:.*}", (5 - exp) as usize))
    }
}

/// One row of HPCC's slowdown table: the bucket's start (a fraction of the flows), its largest
/// flow's size, and the slowdown at the median, the 95th and the 99th percentile.
#[derive(Debug)]
struct Row {
    from: f64,
    size: u64,
    p50: f64,
    p95: f64,
    p99: f64,
}

/// HPCC's flow completion analysis (`analysis/fct_analysis.py` of HPCC's repository, with its
/// awk and sort pipeline), reproduced step by step for one traffic type:
///
/// 1. keep the `fct.txt` lines whose destination port (`$4`) is `dport` (the script's `-t 0`:
///    100, normal flows; `-t 1`: 200, incast) and whose start time (`$6`, ns) is below
///    `time_limit` (`-T`, 3 s by default);
/// 2. each line's slowdown is FCT over standalone FCT (`$7/$8`), at least 1, printed by awk
///    after the size (`$5`), so with 6 significant digits;
/// 3. `sort -n`: by size, ties by the whole line's bytes (sort's last resort in the C locale);
/// 4. `output.split('\n')[:-2]`: the last line is dropped (the empty string after the final
///    newline, and with it the largest flow), leaving n flows;
/// 5. for each bucket i = 0, step, ..., 100 - step, the flows `[i*n/100, (i+step)*n/100)`
///    (Python 2's integer division): the bucket's last flow's size, and its slowdowns sorted,
///    taken at index `int(len * p)` for p = 0.5, 0.95, 0.99.
///
/// An empty bucket is where the script stops with an IndexError (`d[-1]`), as it does when no
/// line has the port it keeps; here that is an Err.
fn hpcc_fct_analysis(
    fct: &str,
    dport: u64,
    step: usize,
    time_limit: u64,
) -> Result<Vec<Row>, String> {
    let mut lines: Vec<(u64, String)> = vec![];
    for l in fct.lines() {
        let c: Vec<&str> = l.split_whitespace().collect();
        let num = |k: usize| -> f64 { c[k].parse().unwrap() };
        if num(3) as u64 == dport && (num(5) as u64) < time_limit {
            let slow = (num(6) / num(7)).max(1.0);
            let size = num(4) as u64;
            lines.push((size, format!("{size} {}", awk_num(slow))));
        }
    }
    lines.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.as_bytes().cmp(b.1.as_bytes()))
    });
    lines.pop();
    let a: Vec<(f64, u64)> = lines
        .iter()
        .map(|(size, l)| (l.split(' ').nth(1).unwrap().parse().unwrap(), *size))
        .collect();
    let n = a.len();
    let mut rows = vec![];
    for i in (0..100).step_by(step) {
        let (l, r) = (i * n / 100, (i + step) * n / 100);
        let d = &a[l..r.min(n)];
        let Some(last) = d.last() else {
            return Err(format!(
                "IndexError: bucket {i}% of {n} flows with port {dport} is empty"
            ));
        };
        let mut slow: Vec<f64> = d.iter().map(|x| x.0).collect();
        slow.sort_by(f64::total_cmp);
        let pctl = |p: f64| slow[(slow.len() as f64 * p) as usize];
        rows.push(Row {
            from: i as f64 / 100.0,
            size: last.1,
            p50: pctl(0.5),
            p95: pctl(0.95),
            p99: pctl(0.99),
        });
    }
    Ok(rows)
}

/// What the analysis must give on a run's `fct.txt`: `flows` lines with port `dport` (one fewer
/// after the line the script drops), a table of 100/step rows, sizes that grow from bucket to
/// bucket, and slowdowns of at least 1 in percentile order. Prints the table as the script does.
fn check_table(what: &str, fct: &str, dport: u64, step: usize, flows: usize) {
    let rows = hpcc_fct_analysis(fct, dport, step, 3_000_000_000)
        .unwrap_or_else(|e| panic!("{what}, port {dport}: {e}"));
    assert_eq!(rows.len(), 100 / step, "{what}: one row a bucket");
    println!("{what}, port {dport}: {flows} flows");
    let mut last = 0;
    for r in &rows {
        println!(
            "{:.3} {}\t{:.3} {:.3} {:.3}",
            r.from, r.size, r.p50, r.p95, r.p99
        );
        assert!(r.size >= last, "{what}: sizes grow: {r:?}");
        last = r.size;
        assert!(
            1.0 <= r.p50 && r.p50 <= r.p95 && r.p95 <= r.p99,
            "{what}: {r:?}"
        );
    }
}

fn count_port(fct: &str, port: &str) -> usize {
    fct.lines()
        .filter(|l| l.split(' ').nth(3) == Some(port))
        .count()
}

#[test]
fn awk_prints_numbers_as_hpccs_pipeline_sees_them() {
    for (x, s) in [
        (1.0, "1"),
        (1.5, "1.5"),
        (2.0 / 3.0, "0.666667"),
        (123.456789, "123.457"),
        (1234567.5, "1.23457e+06"),
        (0.00001234, "1.234e-05"),
    ] {
        assert_eq!(awk_num(x), s, "{x}");
    }
}

/// HPCC's analysis on `capfc run --hpcc` output: paper-1 (long and short flows, port 100, and
/// queries, port 200) in CaPFC_cal; and on output whose ports are not HPCC's it fails as the
/// script does.
#[test]
fn hpccs_fct_analysis_finds_the_flows_of_capfc_run() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-hpcc-analysis-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args([
            "run",
            "--scenario",
            "paper-1",
            "--mode",
            "CaPFC_cal",
            "--block",
            "v2",
            "--hpcc",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fct = std::fs::read_to_string(dir.join("paper-1_CaPFC_cal_fct.txt")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let (normal, incast) = (count_port(&fct, "100"), count_port(&fct, "200"));
    assert_eq!(
        normal + incast,
        fct.lines().count(),
        "every flow is normal or incast"
    );
    check_table("capfc run paper-1 CaPFC_cal", &fct, 100, 5, normal);
    check_table("capfc run paper-1 CaPFC_cal", &fct, 200, 5, incast);
    // the same lines with any other destination port: no flow, the script's IndexError
    let other = fct.replace(" 100 ", " 5001 ").replace(" 200 ", " 5001 ");
    assert!(hpcc_fct_analysis(&other, 100, 5, 3_000_000_000).is_err());
}

/// HPCC's analysis on `capfc net --hpcc` output from an HPCC `flow.txt` (8 hosts of a
/// leaf-spine): 40 normal flows to port 100 and 24 incast flows, three from each other host to
/// host 0, to port 200, start at HPCC's 2 s; `fct.txt` keeps each flow's port and the table is
/// computed for both.
#[test]
fn hpccs_fct_analysis_finds_the_flows_of_capfc_net_from_a_flow_txt() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-hpcc-net-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let mut flows = vec![];
    for k in 0..40u64 {
        let (src, dst) = (k % 8, (k * 3 + 1) % 8);
        let dst = if dst == src { (dst + 1) % 8 } else { dst };
        flows.push(format!(
            "{src} {dst} 3 100 {} 2.{:09}",
            2_000 + k * 7_919 % 60_000,
            k * 20_000
        ));
    }
    for k in 0..24u64 {
        flows.push(format!(
            "{} 0 3 200 20000 2.{:09}",
            1 + k % 7,
            1_000_000 + k / 7 * 100_000
        ));
    }
    flows.sort_by_key(|l| l.split(' ').nth(5).unwrap().to_string());
    let path = dir.join("flow.txt");
    std::fs::write(&path, format!("{}\n{}\n", flows.len(), flows.join("\n"))).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args([
            "net",
            "--topology",
            "leaf-spine:2,2,4",
            "--routing",
            "ecmp",
            "--mode",
            "CaPFC_cal",
            "--flows",
        ])
        .arg(&path)
        .arg("--hpcc")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fct = std::fs::read_to_string(dir.join("CaPFC_cal_fct.txt")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        count_port(&fct, "100"),
        40,
        "every normal flow completed, port 100\n{fct}"
    );
    assert_eq!(
        count_port(&fct, "200"),
        24,
        "every incast flow completed, port 200\n{fct}"
    );
    check_table("capfc net flow.txt CaPFC_cal", &fct, 100, 5, 40);
    check_table("capfc net flow.txt CaPFC_cal", &fct, 200, 5, 24);
}
