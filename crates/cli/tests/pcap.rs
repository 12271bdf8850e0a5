//! Packet capture (`capfc run --pcap`, `capfc net --pcap`): the pcap files decode, with scapy as
//! the independent dissector (`scripts/pcap_dissect.py`, in the virtual environment `make venv`
//! makes), into exactly the frames the switch put on the wires: every PFC field (destination,
//! source, EtherType, opcode, class-enable vector, the eight pause times) and every data frame's
//! headers, at its time. Wireshark's TCP analysis (tshark's expert information, Debian's `tshark`
//! package, which `scripts/deps.sh` installs) finds nothing wrong with the captures of `capfc
//! run` and of a lossless `capfc net` run, and finds the losses of a lossy one.

use capfc::switch::hpcc::dport_of_class;
use capfc::switch::pcap::{
    encode, host_mac, payload_len, port_mac, write_port, Capture, Dir, FrameKind, WireFrame,
};
use capfc::switch::scenario::Scenario;
use capfc::switch::{DutKind, FlowMode, Switch};
use std::path::{Path, PathBuf};
use std::process::Command;

fn venv_python() -> PathBuf {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("build/venv/bin/python");
    assert!(
        p.exists(),
        "{} is missing: `make venv` makes it (make test does)",
        p.display()
    );
    p
}

fn mac(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// scapy's reading of a pcap file, one JSON object a frame.
fn dissect(path: &Path) -> Vec<serde_json::Value> {
    let script =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("scripts/pcap_dissect.py");
    let out = Command::new(venv_python())
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .arg(&script)
        .arg(path)
        .output()
        .expect("run the dissector");
    assert!(
        out.status.success(),
        "pcap_dissect.py {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

fn run_captured(mode: FlowMode) -> (Scenario, Switch) {
    let sc = Scenario::incast_victims();
    let mut s = Switch::new_v2(&sc, mode, DutKind::Model).unwrap();
    s.capture = Some(Capture::new((1u128 << sc.ports) - 1));
    s.run();
    (sc, s)
}

#[test]
fn scapy_reads_every_frame_as_the_switch_sent_it() {
    let (sc, s) = run_captured(FlowMode::CapfcCal);
    let cap = s.capture.as_ref().unwrap();
    let scratch = tempfile::Builder::new()
        .prefix("capfc-pcap-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let (mut pfc, mut xoff, mut xon, mut data) = (0, 0, 0, 0);
    let mut seq_next = std::collections::HashMap::new();
    for port in 0..sc.ports {
        let sent: Vec<&WireFrame> = cap.frames.iter().filter(|f| f.port == port).collect();
        let path = dir.join(format!("port{port}.pcap"));
        let n = write_port(&path, &cap.frames, (port, None), sc.cycle_ns).unwrap();
        assert_eq!(n, sent.len());
        let read = dissect(&path);
        assert_eq!(read.len(), sent.len(), "port {port}: frames in the file");
        for (k, (f, r)) in sent.iter().zip(&read).enumerate() {
            let at = format!("port {port} frame {k} (cycle {}): scapy read {r}", f.cycle);
            let ns = (f.cycle as f64 * sc.cycle_ns).round() as u64;
            assert_eq!(r["ns"], ns, "{at}: time");
            let (bytes, orig) = encode(f);
            assert_eq!(r["caplen"], bytes.len(), "{at}: captured length");
            assert_eq!(r["wirelen"], orig, "{at}: length on the wire");
            match &f.kind {
                FrameKind::Pfc { cev, quanta } => {
                    pfc += 1;
                    assert_eq!(r["dst"], "01:80:c2:00:00:01", "{at}: destination");
                    assert_eq!(r["src"], mac(port_mac(port)), "{at}: source");
                    assert_eq!(r["type"], 0x8808, "{at}: EtherType");
                    assert_eq!(r["opcode"], 0x0101, "{at}: opcode");
                    assert_eq!(r["cev"], *cev, "{at}: class-enable vector");
                    let q: Vec<u64> = r["quanta"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_u64().unwrap())
                        .collect();
                    assert_eq!(q, quanta.map(u64::from), "{at}: pause times");
                    for (p, q) in quanta.iter().enumerate() {
                        if cev >> p & 1 == 1 {
                            if *q > 0 {
                                xoff += 1;
                            } else {
                                xon += 1;
                            }
                        }
                    }
                }
                FrameKind::Data { pkt, tcp } => {
                    data += 1;
                    let (src, dst) = match f.dir {
                        Dir::ToSwitch => (host_mac(port), port_mac(port)),
                        Dir::ToHost => (port_mac(port), host_mac(port)),
                    };
                    assert_eq!(r["src"], mac(src), "{at}: source");
                    assert_eq!(r["dst"], mac(dst), "{at}: destination");
                    assert_eq!(r["type"], 0x8100, "{at}: 802.1Q tag");
                    assert_eq!(r["prio"], pkt.prio, "{at}: priority");
                    assert_eq!(r["vlan"], 0, "{at}: VID");
                    assert_eq!(r["ip_src"], format!("10.0.0.{}", pkt.src + 1), "{at}");
                    assert_eq!(r["ip_dst"], format!("10.0.1.{}", pkt.dst + 1), "{at}");
                    assert_eq!(r["ip_len"], u64::from(pkt.size) - 18 - 4, "{at}: IP length");
                    assert_eq!(r["sport"], 10_000 + pkt.flow % 50_000, "{at}: TCP source");
                    let class = &sc.flows[pkt.flow as usize].class;
                    assert_eq!(r["dport"], dport_of_class(class), "{at}: TCP destination");
                    assert_eq!(r["seq"], tcp.seq, "{at}: TCP sequence");
                    assert_eq!(r["flags"], "P", "{at}: PSH alone (no transport, no ACKs)");
                    // the sequence number advances by the payload each frame carries
                    let next = seq_next
                        .entry((pkt.flow, f.dir == Dir::ToHost))
                        .or_insert(0);
                    assert_eq!(tcp.seq, *next, "{at}: no gap, no overlap");
                    assert_eq!(r["tcp_len"], u64::from(payload_len(pkt.size)), "{at}");
                    *next += u32::from(payload_len(pkt.size));
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("{data} data frames and {pfc} PFC frames ({xoff} pauses, {xon} resumes) decoded");
    // the corners: pauses and resumes both travelled, and data both ways
    assert!(
        pfc > 0 && xoff > 0 && xon > 0,
        "pauses and resumes were captured"
    );
    assert!(
        cap.frames.iter().any(|f| f.dir == Dir::ToSwitch)
            && cap
                .frames
                .iter()
                .any(|f| matches!(f.kind, FrameKind::Data { .. }) && f.dir == Dir::ToHost),
        "data both ways"
    );
    // every PFC frame the switch sent is in the capture
    let sent: u64 = s.stats.pfc_frames.iter().sum();
    assert_eq!(pfc, sent, "PFC frames captured and sent");
}

#[test]
fn the_cli_writes_one_file_a_chosen_port_and_refuses_a_port_that_does_not_exist() {
    let bin = env!("CARGO_BIN_EXE_capfc");
    let scratch = tempfile::Builder::new()
        .prefix("capfc-pcap-cli-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let out = Command::new(bin)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["run", "--mode", "PFC_wstop", "--pcap"])
        .arg(&dir)
        .args(["--pcap-ports", "1,2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "incast-victims_PFC_wstop_port1_in.pcap",
            "incast-victims_PFC_wstop_port1_out.pcap",
            "incast-victims_PFC_wstop_port2_in.pcap",
            "incast-victims_PFC_wstop_port2_out.pcap"
        ]
    );
    for f in &files {
        let frames = dissect(&dir.join(f));
        assert!(!frames.is_empty(), "{f} holds frames");
        // one direction a file: the host's MAC is the source of every frame in "in" only
        let host = mac(host_mac(if f.contains("port1") { 1 } else { 2 }));
        let inbound = f.ends_with("_in.pcap");
        for r in &frames {
            assert_eq!(r["src"] == host.as_str(), inbound, "{f}: {r}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    for (ports, says) in [
        ("9", "port 9 does not exist"),
        ("x", "'x' is not a port number"),
    ] {
        let out = Command::new(bin)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .args(["run", "--mode", "PFC_wstop", "--pcap"])
            .arg(&dir)
            .args(["--pcap-ports", ports])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "--pcap-ports {ports}: {err}"
        );
    }
}

/// tshark, which the analysis tests need (not skipped when absent: they fail, saying so).
fn tshark() -> &'static str {
    let ok = Command::new("tshark")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "tshark is missing: `make deps-test` (scripts/deps.sh tshark) installs Debian's tshark package"
    );
    "tshark"
}

/// The fields of [`analyse`]'s rows.
const FIELDS: [&str; 6] = [
    "tcp.stream",
    "tcp.seq_raw",
    "tcp.len",
    "tcp.flags",
    "tcp.ack_raw",
    "macc.opcode",
];

/// One tshark pass over `path`: per frame the [`FIELDS`] (empty where the frame has none), and
/// tshark's expert information at `level` and above (`-z expert,LEVEL`): its summary lines
/// ("Warns (N)", then one line per kind), empty when it found nothing.
fn analyse(path: &Path, level: &str) -> (Vec<Vec<String>>, Vec<String>) {
    let mut c = Command::new(tshark());
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    c.arg("-r").arg(path).args(["-T", "fields"]);
    for f in FIELDS {
        c.args(["-e", f]);
    }
    let out = c.args(["-z", &format!("expert,{level}")]).output().unwrap();
    assert!(
        out.status.success(),
        "tshark -r {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // the frames' rows, then (after an empty line) the expert information, if any
    let (rows, info) = text.split_once("\n\n").unwrap_or((&text, ""));
    let rows = rows
        .lines()
        .map(|l| l.split('\t').map(String::from).collect())
        .collect();
    let info = info
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('='))
        .map(String::from)
        .collect();
    (rows, info)
}

fn pcap_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
        .collect();
    v.sort();
    v
}

/// Per TCP connection of `rows`, each segment starts where the one before ended (what tshark's
/// sequence analysis checks, here on the raw numbers). Returns the TCP frames.
fn segments_in_place(path: &Path, rows: &[Vec<String>]) -> usize {
    let mut next = std::collections::HashMap::new();
    let mut n = 0;
    for r in rows.iter().filter(|r| !r[0].is_empty()) {
        let (seq, len): (u64, u64) = (r[1].parse().unwrap(), r[2].parse().unwrap());
        if let Some(x) = next.insert(r[0].clone(), seq + len) {
            assert_eq!(seq, x, "{}: {r:?}", path.display());
        }
        n += 1;
    }
    n
}

/// `capfc run --pcap` on the default scenario, every mode, every port: tshark's expert
/// information has nothing (no warning or error, not even a note) in any file; every TCP frame
/// carries PSH alone (no transport, no ACKs) and starts where its connection's last one ended.
#[test]
fn tshark_finds_nothing_wrong_in_the_default_scenarios_captures() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-pcap-tshark-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let out = Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["run", "--pcap"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = pcap_files(&dir);
    assert_eq!(
        files.len(),
        4 * 8 * 2,
        "four modes, eight ports, two directions"
    );
    let (mut tcp, mut pfc) = (0, 0);
    for f in &files {
        let (rows, info) = analyse(f, "note");
        assert!(
            info.is_empty(),
            "{}: tshark's expert information: {info:?}",
            f.display()
        );
        for r in rows.iter().filter(|r| !r[0].is_empty()) {
            assert_eq!(r[3], "0x0008", "{}: PSH alone: {r:?}", f.display());
        }
        tcp += segments_in_place(f, &rows);
        pfc += rows.iter().filter(|r| r[5] == "0x0101").count();
    }
    std::fs::remove_dir_all(&dir).ok();
    println!(
        "tshark: {tcp} TCP frames and {pfc} PFC frames in {} files, no expert information",
        files.len()
    );
    assert!(
        tcp > 10_000 && pfc > 0,
        "{tcp} TCP frames, {pfc} PFC frames"
    );
}

/// A small `capfc net --pcap` run (a leaf-spine of 8 hosts, ECMP so that no flow's packets
/// overtake each other, 2 ms of the built-in flow sizes at load 0.5, the dctcp transport, whose
/// initial window of 10 segments makes PFC_wdrop lose packets in 2 ms where the paper's Linux TCP,
/// starting from 3, loses none): in the lossless
/// CaPFC_cal, tshark's expert information has no warning or error on any host's link, its TCP
/// analysis pairs data and ACKs (ACK frames acknowledging data, never beyond what was sent), and
/// the captures hold data, ACKs and the flows' destination port 100. In PFC_wdrop the same flows
/// lose packets, and tshark says so (a warning on some link): the check can fail.
#[test]
fn tshark_finds_no_warning_in_a_lossless_network_capture_and_the_losses_of_a_lossy_one() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-pcap-net-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    let out = Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args([
            "net",
            "--topology",
            "leaf-spine:2,2,4",
            "--routing",
            "ecmp",
            "--duration",
            "2ms",
            "--load",
            "0.5",
            "--mode",
            "CaPFC_cal,PFC_wdrop",
            "--transport",
            "dctcp",
            "--pcap",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = pcap_files(&dir);
    assert_eq!(files.len(), 2 * 8, "two modes, eight hosts");
    let (mut data, mut acks, mut lossy_warns) = (0, 0, vec![]);
    for f in &files {
        let (rows, info) = analyse(f, "warn");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("PFC_wdrop") {
            lossy_warns.extend(info);
            continue;
        }
        assert!(
            info.is_empty(),
            "{name}: tshark's expert information: {info:?}"
        );
        for r in rows.iter().filter(|r| !r[0].is_empty()) {
            match (r[3].as_str(), r[2].as_str()) {
                ("0x0018", _) => data += 1,              // PSH|ACK, data
                ("0x0010" | "0x0050", "0") => acks += 1, // ACK (with ECE)
                _ => panic!("{name}: unexpected TCP frame {r:?}"),
            }
        }
    }
    let ports = Command::new(tshark())
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .arg("-r")
        .arg(dir.join("CaPFC_cal_host0.pcap"))
        .args(["-Y", "tcp.len > 0", "-T", "fields", "-e", "tcp.dstport"])
        .output()
        .unwrap();
    let ports = String::from_utf8(ports.stdout).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    println!("tshark: CaPFC_cal: {data} data and {acks} ACK frames, no warning; PFC_wdrop: {lossy_warns:?}");
    assert!(data > 100 && acks > 100, "{data} data, {acks} ACK frames");
    assert!(
        !ports.is_empty() && ports.lines().all(|p| p == "100"),
        "host 0's data goes to port 100: {ports}"
    );
    assert!(
        lossy_warns.iter().any(|l| l.starts_with("Warns")),
        "PFC_wdrop's losses are visible to tshark"
    );
}
