//! QCN's network, short slices of seed 003's figures: QCN alone holds one bottleneck's queue at
//! `Q_eq` with the hot flows summing to the link; adaptive routing gives each non-contending hot
//! flow its offered rate on T1; the CNMs on the wire read back field by field (tshark for the
//! Ethernet header); the scenario and CNM parsers refuse malformed input, naming where and which
//! field.

use capfc::net::qcn::{host_mac, run, QcnConfig, QcnMode, QcnRun};
use capfc::switch::qcn::{Cnm, CNM_ETHERTYPE};
use proptest::prelude::*;

/// Three hot flows of 9.5 Gb/s across one 10 Gb/s link, hotspot 20 to 320 ms, averages from 120 ms.
const DUMBBELL: &str = "[qcn]
links = [[\"H1\", \"S1\"], [\"H2\", \"S1\"], [\"H3\", \"S1\"], [\"S1\", \"S2\"],
         [\"S2\", \"H4\"], [\"S2\", \"H5\"], [\"S2\", \"H6\"]]
hot = [[\"H1\", \"H4\"], [\"H2\", \"H5\"], [\"H3\", \"H6\"]]
hot_queues = [[\"S1\", \"S2\"]]
duration_ms = 330
hot_start_ms = 20
hot_end_ms = 320
settle_ms = 100
seed = 3
";

/// T1 (scenarios/qcn-t1-non.toml), hotspot 20 to 420 ms, averages from 220 ms.
const T1: &str = "[qcn]
links = [[\"H1\", \"S1\"], [\"H2\", \"S2\"], [\"H3\", \"S3\"], [\"H4\", \"S4\"], [\"H5\", \"S5\"], [\"H6\", \"S6\"],
         [\"S1\", \"S7\"], [\"S2\", \"S7\"], [\"S3\", \"S7\"], [\"S1\", \"S8\"], [\"S2\", \"S8\"], [\"S3\", \"S8\"],
         [\"S4\", \"S9\"], [\"S5\", \"S9\"], [\"S6\", \"S9\"], [\"S7\", \"S9\"], [\"S8\", \"S9\"]]
hot = [[\"H1\", \"H4\"], [\"H2\", \"H5\"]]
hot_queues = [[\"S7\", \"S9\"], [\"S8\", \"S9\"]]
duration_ms = 430
hot_start_ms = 20
hot_end_ms = 420
settle_ms = 200
";

/// The QCN rule: the hot queue's mean within ±10 % of `Q_eq` and the hot flows summing to the
/// 1,250 MB/s link within 1 %.
fn holds_q_eq(r: &QcnRun) -> Result<(), String> {
    let q = r.stats.hot_queue_mean[0];
    let sum: f64 = r.stats.hot_mbytes.iter().sum();
    if (q - r.cfg.q_eq).abs() > 0.1 * r.cfg.q_eq {
        return Err(format!("hot queue mean {q:.0} B"));
    }
    if (sum - 1250.0).abs() > 12.5 {
        return Err(format!("hot flows sum to {sum:.1} MB/s"));
    }
    Ok(())
}

#[test]
fn qcn_holds_the_bottleneck_queue_at_q_eq() {
    let cfg = QcnConfig::parse("dumbbell.toml", DUMBBELL).unwrap();
    let r = run(&cfg, QcnMode::Qcn, cfg.seed, false).unwrap();
    println!("QCN, seed {}: {:?}", cfg.seed, r.stats);
    assert!(r.stats.cnms > 0, "no CNM was sent");
    holds_q_eq(&r).unwrap();
    // Each hot flow's limiter was installed and cut below the line rate.
    let last = r.bins.last().unwrap();
    assert!(last.limiter_gbps.iter().all(|&g| g < 9.0), "{last:?}");
    // The same rule fails with PAUSE alone: the queue fills its inputs' buffers.
    let p = run(&cfg, QcnMode::Pause, cfg.seed, false).unwrap();
    println!("PAUSE: {:?}", p.stats);
    assert!(holds_q_eq(&p).is_err());
    assert!(p.stats.pauses > 0 && p.stats.cnms == 0);
}

/// The AR rule: each hot flow within 1 % of 1,187.5 MB/s and the hot queues' means under a frame.
fn offered(r: &QcnRun) -> Result<(), String> {
    for (i, &x) in r.stats.hot_mbytes.iter().enumerate() {
        if (x - 1187.5).abs() > 11.875 {
            return Err(format!("hot flow {i} at {x:.1} MB/s"));
        }
    }
    for (i, &q) in r.stats.hot_queue_mean.iter().enumerate() {
        if q >= 1500.0 {
            return Err(format!("hot queue {i} at {q:.0} B"));
        }
    }
    Ok(())
}

#[test]
fn adaptive_routing_gives_each_non_contending_flow_its_offered_rate() {
    let cfg = QcnConfig::parse("t1.toml", T1).unwrap();
    let ar = run(&cfg, QcnMode::QcnAr, cfg.seed, false).unwrap();
    println!("QCN_AR, seed {}: {:?}", cfg.seed, ar.stats);
    offered(&ar).unwrap();
    // The switches snooped CNs: some table held a congested entry during the hotspot.
    assert!(ar
        .bins
        .iter()
        .any(|b| b.table_entries.iter().any(|&n| n > 0)));
    assert!(ar.stats.reseq_mean.iter().all(|&m| m < 1.0));
    // Without AR the same rule fails: the two flows share S7 -> S9.
    let q = run(&cfg, QcnMode::Qcn, cfg.seed, false).unwrap();
    println!("QCN: {:?}", q.stats);
    assert!(offered(&q).is_err());
    assert!(q
        .bins
        .iter()
        .all(|b| b.table_entries.iter().all(|&n| n == 0)));
}

#[test]
fn cnms_on_the_wire_read_back() {
    let cfg = QcnConfig::parse("dumbbell.toml", DUMBBELL).unwrap();
    let r = run(&cfg, QcnMode::Qcn, cfg.seed, true).unwrap();
    assert_eq!(r.capture.len() as u64, r.stats.cnms);
    assert!(!r.capture.is_empty());
    for (_, b) in &r.capture {
        let c = Cnm::decode(b).unwrap();
        assert!(c.fb_q >= 1 && c.fb_q <= 63);
        // Sources H1..H3 are hosts 0..2; destinations H4..H6 hosts 3..5 (the link order).
        assert!((0..3).any(|h| c.dst_mac == host_mac(h)), "{c:?}");
        assert!((3..6).any(|h| c.encap_dst == host_mac(h)), "{c:?}");
    }
    // The pcap, read by tshark when it is installed (Debian's has no 0x22E9 dissector: the
    // Ethernet fields only); the PDU's fields are checked from the file's own bytes.
    let pcap = r.pcap();
    let scratch = tempfile::Builder::new()
        .prefix("capfc-qcn-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cnm.pcap");
    std::fs::write(&path, &pcap).unwrap();
    // Records: 24-byte header, then 16-byte record headers.
    let mut at = 24;
    let mut n = 0;
    while at < pcap.len() {
        let len = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let body = &pcap[at + 16..at + 16 + len];
        let want = &r.capture[n].1;
        assert_eq!(body, &want[..want.len() - 4]);
        // The fields read by offset from 802.1Q clause 33.4's table (docs/qcn.md), not by
        // Cnm::decode: EtherType, version 0, reserved 0, QntzFb 1..63, encapsulated priority's
        // reserved bits 0, encapsulated destination one of H4..H6, MSDU length 64.
        assert_eq!(body.len(), 14 + 24 + 64);
        assert_eq!(u16::from_be_bytes([body[12], body[13]]), CNM_ETHERTYPE);
        let first = u16::from_be_bytes([body[14], body[15]]);
        assert_eq!(first >> 12, 0, "version");
        assert_eq!((first >> 6) & 0x3F, 0, "reserved");
        assert!((1..=63).contains(&(first & 0x3F)), "QntzFb");
        assert_eq!(&body[16..22], &body[6..12], "CPID: the CP port's MAC");
        assert_eq!(u16::from_be_bytes([body[28], body[29]]) & 0x1FFF, 0);
        assert!((3..6).any(|h| body[30..36] == host_mac(h)));
        assert_eq!(u16::from_be_bytes([body[36], body[37]]), 64);
        at += 16 + len;
        n += 1;
    }
    assert_eq!(n, r.capture.len());
    match std::process::Command::new("tshark")
        .args([
            "-r",
            path.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "eth.type",
            "-e",
            "eth.dst",
        ])
        .output()
    {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), r.capture.len());
            for (l, (_, b)) in lines.iter().zip(&r.capture) {
                let c = Cnm::decode(b).unwrap();
                let mac = c
                    .dst_mac
                    .iter()
                    .map(|x| format!("{x:02x}"))
                    .collect::<Vec<_>>()
                    .join(":");
                assert_eq!(*l, format!("0x22e9\t{mac}"));
            }
            println!("tshark read {} CNMs", lines.len());
        }
        other => println!("tshark not run ({other:?}): the bytes were checked above"),
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_routing_loop_is_refused_naming_prefer() {
    let text = format!(
        "{T1}
[[qcn.prefer]]
at = \"S7\"
to = [\"H4\"]
via = [\"S1\"]

[[qcn.prefer]]
at = \"S1\"
to = [\"H4\"]
via = [\"S7\"]
"
    );
    let e = QcnConfig::parse("loop.toml", &text).unwrap_err();
    // The same configuration built in code is refused by run, not panicking.
    let mut cfg = QcnConfig::parse("t1.toml", T1).unwrap();
    cfg.prefer = toml::from_str::<toml::Value>(&text).unwrap()["qcn"]["prefer"]
        .clone()
        .try_into()
        .unwrap();
    let e2 = run(&cfg, QcnMode::QcnAr, 1, false).unwrap_err();
    assert_eq!(e2.field, "prefer", "{e2}");
    assert_eq!((e.file.as_str(), e.field.as_str()), ("loop.toml", "prefer"));
    let line = text.lines().position(|l| l == "[[qcn.prefer]]").unwrap() + 1;
    assert_eq!(e.line, line, "{e}");
    assert!(e.why.contains("loop"), "{e}");
}

/// Fields of DUMBBELL and a value each refuses (wrong type or out of range).
const BAD: &[(&str, &str)] = &[
    ("duration_ms", "\"long\""),
    ("duration_ms", "-5"),
    ("hot_start_ms", "400"),
    ("settle_ms", "1000"),
    ("seed", "-1"),
    ("hot", "[[\"H1\", \"H9\"]]"),
    ("hot", "[[\"H1\", \"H1\"]]"),
    ("hot_queues", "[[\"S1\", \"H4\"]]"),
    ("links", "[[\"H1\", \"S1\"], [\"H1\", \"S2\"]]"),
    ("links", "[[\"X1\", \"S1\"]]"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A field given a bad value, or an unknown field, is refused with the file, the line it is
    /// set on and its name.
    #[test]
    fn the_scenario_parser_names_file_line_and_field(
        k in 0..BAD.len() + 1,
        extra in "[a-z]{3,8}",
    ) {
        let (text, field) = if k < BAD.len() {
            let (f, v) = BAD[k];
            let mut done = false;
            let mut out = String::new();
            for l in DUMBBELL.lines() {
                if !done && l.trim_start().starts_with(&format!("{f} =")) {
                    out += &format!("{f} = {v}\n");
                    done = true;
                    // Drop a multi-line value's continuation.
                    continue;
                }
                if f == "links" && l.trim_start().starts_with("[\"S2\"") {
                    continue;
                }
                out += l;
                out.push('\n');
            }
            if !done {
                out += &format!("{f} = {v}\n");
            }
            (out, f.to_string())
        } else {
            (format!("{DUMBBELL}{extra}_x = 1\n"), format!("{extra}_x"))
        };
        let e = QcnConfig::parse("bad.toml", &text).unwrap_err();
        let line = text.lines().position(|l| l.starts_with(&format!("{field} ="))).unwrap() + 1;
        prop_assert_eq!(e.file.as_str(), "bad.toml");
        prop_assert_eq!(e.field.as_str(), field.as_str(), "{}", e);
        prop_assert_eq!(e.line, line, "{}", e);
    }

    /// Any one byte changed in a CNM frame is refused.
    #[test]
    fn the_cnm_parser_refuses_any_changed_byte(i in 0usize..106, x in 1u8..=255, fb in 1u8..=63) {
        let c = Cnm {
            dst_mac: host_mac(1),
            src_mac: [2, 0, 1, 0, 7, 2],
            version: 0,
            fb_q: fb,
            cpid: 0x0200_0100_0702_0000,
            q_offset: 12,
            q_delta: -40,
            encap_priority: 3,
            encap_dst: host_mac(4),
            msdu: vec![0; 64],
        };
        let mut b = c.encode();
        prop_assert_eq!(Cnm::decode(&b).unwrap(), c);
        b[i] ^= x;
        prop_assert!(Cnm::decode(&b).is_err());
        prop_assert!(Cnm::decode(&b[..b.len() - 1]).is_err());
    }
}
