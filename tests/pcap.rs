//! Packet capture (`capfc run --pcap`): the pcap files decode, with scapy as the independent
//! dissector (`scripts/pcap_dissect.py`, in the virtual environment `make venv` makes), into
//! exactly the frames the switch put on the wires: every PFC field (destination, source,
//! EtherType, opcode, class-enable vector, the eight pause times) and every data frame's headers,
//! at its time.

use capfc::pcap::{encode, host_mac, port_mac, write_port, Capture, Dir, FrameKind, WireFrame};
use capfc::switch::scenario::Scenario;
use capfc::switch::{DutKind, FlowMode, Switch};
use std::path::{Path, PathBuf};
use std::process::Command;

fn venv_python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("build/venv/bin/python");
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pcap_dissect.py");
    let out = Command::new(venv_python())
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
    let mut s = Switch::new(&sc, mode, DutKind::Model).unwrap();
    s.capture = Some(Capture::new((1u128 << sc.ports) - 1));
    s.run();
    (sc, s)
}

#[test]
fn scapy_reads_every_frame_as_the_switch_sent_it() {
    let (sc, s) = run_captured(FlowMode::CapfcCal);
    let cap = s.capture.as_ref().unwrap();
    let dir = std::env::temp_dir().join(format!("capfc-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut pfc, mut xoff, mut xon, mut data) = (0, 0, 0, 0);
    for port in 0..sc.ports {
        let sent: Vec<&WireFrame> = cap.frames.iter().filter(|f| f.port == port).collect();
        let path = dir.join(format!("port{port}.pcap"));
        let n = write_port(&path, &cap.frames, port, sc.cycle_ns).unwrap();
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
                FrameKind::Data { pkt, seq } => {
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
                    assert_eq!(r["ip_dst"], format!("10.0.0.{}", pkt.dst + 1), "{at}");
                    assert_eq!(r["ip_len"], u64::from(pkt.size) - 18 - 4, "{at}: IP length");
                    assert_eq!(r["sport"], 10_000 + pkt.flow % 50_000, "{at}: TCP source");
                    assert_eq!(r["dport"], 5001, "{at}: TCP destination");
                    assert_eq!(r["seq"], *seq, "{at}: TCP sequence");
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
    let dir = std::env::temp_dir().join(format!("capfc-pcap-cli-{}", std::process::id()));
    let out = Command::new(bin)
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
            "incast-victims_PFC_wstop_port1.pcap",
            "incast-victims_PFC_wstop_port2.pcap"
        ]
    );
    for f in &files {
        assert!(!dissect(&dir.join(f)).is_empty(), "{f} holds frames");
    }
    std::fs::remove_dir_all(&dir).ok();
    for (ports, says) in [
        ("9", "port 9 does not exist"),
        ("x", "'x' is not a port number"),
    ] {
        let out = Command::new(bin)
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
