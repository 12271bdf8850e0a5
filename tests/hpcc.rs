//! `capfc run --hpcc DIR`: flow completion times and PFC events in HPCC's ns-3 output formats,
//! read back here with HPCC's column layout (`fct.txt`: `%08x %08x %u %u %lu %lu %lu %lu`,
//! `pfc.txt`: `%lu %u %u %u %u`) as HPCC's analysis scripts read them.

use capfc::switch::hpcc::{fct_txt, node_ip, pfc_txt, standalone_cycles};
use capfc::switch::scenario::Scenario;
use capfc::switch::{DutKind, FlowMode, Switch};

#[test]
fn fct_and_pfc_files_parse_with_hpccs_column_layout() {
    let sc = Scenario::incast_victims();
    let mut s = Switch::new(&sc, FlowMode::CapfcCal, DutKind::Model).unwrap();
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
    let dir = std::env::temp_dir().join(format!("capfc-hpcc-{}", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
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
