//! The pause expiry variant (`pause_refresh = false`, `capfc net --pause-refresh off`): the MACs
//! send XON and the XOFF of classes paused anew, never the block's refreshes, so an upstream's
//! pause runs out after its quanta while the class is still paused downstream.

use capfc::net::sim::{NetConfig, NetStats, Network, Routing};
use capfc::net::topology::{NetFlow, Topology};
use capfc::switch::pcap::{Dir, FrameKind};
use capfc::switch::FlowMode;

/// Pause time of the tests, quanta of 512 bit times (64 cycles at 1 Gb/s): 51.2 us, longer than
/// the refresh period (4096 cycles) so that refreshes keep a pause up, far shorter than the
/// incast.
const QUANTA: u16 = 100;
const QUANTUM_CYCLES: u64 = 64;

/// Leaf-spine, 2 leaves of 4 hosts, 1 spine, every link 1 Gb/s: the four hosts of leaf A send
/// 1 MB each to one host of leaf B (lossless priority 3, open-loop senders), PFC_wstop.
fn incast(pause_refresh: bool) -> Network {
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 1_000_000_000, 500).unwrap();
    let flows: Vec<NetFlow> = (0..4)
        .map(|src| NetFlow {
            src,
            dst: 4,
            prio: 3,
            dport: 100,
            size: 1_000_000,
            start_ns: 0,
        })
        .collect();
    let mut cfg = NetConfig::paper(FlowMode::PfcWstop, Routing::Ecmp);
    cfg.switch.quanta = QUANTA;
    cfg.switch.pause_refresh = pause_refresh;
    cfg.switch.max_cycles = 12_500_000;
    let mut net = Network::new(&topo, &flows, cfg).unwrap();
    net.pfc_log = Some(vec![]);
    net.capture = Some(capfc::switch::pcap::Capture::of(0..4));
    net.run().unwrap();
    net
}

/// Per (host, class): pauses that ran out while the switch still paused the class (the next frame
/// for the class, when it came, resumed it), and the data frames the host started on that class
/// between the expiry and that resume.
fn expired_while_paused(net: &Network) -> (usize, usize) {
    let log = net.pfc_log.as_ref().expect("the PFC log is kept");
    let frames = &net.capture.as_ref().expect("captured").frames;
    let (mut gaps, mut sent) = (0, 0);
    for h in 0..4 {
        let p = 3;
        let ev: Vec<_> = log
            .iter()
            .filter(|e| e.1 == h && e.3 >> p & 1 == 1)
            .collect();
        for w in ev.windows(2) {
            let (xoff, next) = (w[0], w[1]);
            let q = u64::from(xoff.4[p]);
            let expiry = xoff.0 + q * QUANTUM_CYCLES;
            if q > 0 && next.4[p] == 0 && next.0 > expiry {
                gaps += 1;
                sent += frames
                    .iter()
                    .filter(|f| f.port == h && f.dir == Dir::ToSwitch)
                    .filter(|f| (expiry..next.0).contains(&f.cycle))
                    .filter(|f| matches!(&f.kind, FrameKind::Data { pkt, .. } if usize::from(pkt.prio) == p))
                    .count();
            }
        }
    }
    (gaps, sent)
}

/// With refreshes withheld, the hosts' pauses run out while leaf A still pauses them, and the hosts
/// send in those gaps; with refreshes (the block's contract), no pause ever runs out while the
/// class is paused, and the report has no pause-expiry part.
#[test]
fn without_refresh_a_pause_runs_out_while_the_class_is_still_paused() {
    let off = incast(false);
    let st = off.stats();
    let e = st.pause_expiry.clone().expect("the variant's counts");
    assert!(e.refreshes_withheld > 0, "{e:?}");
    assert!(e.expiries > 0, "{e:?}");
    let (gaps, sent) = expired_while_paused(&off);
    assert!(gaps > 0, "no pause ran out before its resume: {e:?}");
    assert!(sent > 0, "the hosts sent nothing in {gaps} expired pauses");

    let on = incast(true);
    let st_on = on.stats();
    assert!(st_on.pause_expiry.is_none());
    assert_eq!(
        expired_while_paused(&on),
        (0, 0),
        "a refreshed pause ran out"
    );
    assert_eq!(
        (st_on.ingress_drops, st_on.egress_drops),
        (0, 0),
        "lossless with refreshes"
    );
    assert!(on.finished() && off.finished());
}

/// The same deadlock as crates/cli/tests/network.rs's leaf-spine (PFC_wstop, flows both ways through the
/// spine): with refreshes it holds and the run stops on it; without them the pauses in the cycle
/// run out, the deadlock clears and every flow completes.
#[test]
fn without_refresh_the_leaf_spine_deadlock_clears() {
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 1_000_000_000, 1000).unwrap();
    let flows: Vec<NetFlow> = [(1, 7), (2, 7), (3, 7), (4, 0), (5, 0), (6, 0)]
        .into_iter()
        .map(|(src, dst)| NetFlow {
            src,
            dst,
            prio: 3,
            dport: 100,
            size: 1_000_000,
            start_ns: 0,
        })
        .collect();
    let run = |refresh| {
        let mut cfg = NetConfig::paper(FlowMode::PfcWstop, Routing::Ecmp);
        cfg.switch.max_cycles = 62_500_000; // 500 ms
        cfg.switch.pause_refresh = refresh;
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.run().unwrap();
        net
    };
    let on = run(true);
    assert!(on.deadlock.is_some() && !on.finished());
    let off = run(false);
    let st: NetStats = off.stats();
    let e = st.pause_expiry.clone().expect("the variant's counts");
    assert!(off.deadlock.is_none());
    assert!(e.deadlocks >= 1, "the deadlock never formed: {e:?}");
    assert_eq!(e.deadlocks, e.deadlocks_cleared, "{e:?}");
    assert!(e.expiries > 0, "{e:?}");
    assert!(off.finished(), "not every flow completed: {e:?}");
}

/// `capfc net` on the leaf-spine deadlock, with v2's block in every switch: the block
/// `tests/data/pause_refresh_on.json` was recorded with.
fn capfc_net(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "net",
        "--block",
        "v2",
        "--topology",
        "leaf-spine:2,1,4",
        "--transport",
        "open",
        "--flows",
        "tests/data/pause_refresh_flows.txt",
        "--mode",
        "PFC_wstop,CaPFC_cal",
        "--max-time",
        "3ms",
        "--json",
    ];
    args.extend_from_slice(extra);
    std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(&args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap()
}

/// With refreshes (the default, and `--pause-refresh on`) `capfc net` gives, byte for byte, the
/// report `tests/data/pause_refresh_on.json` holds: made by capfc before the variant existed, on
/// the leaf-spine deadlock (PFC_wstop stops on it at 1.5 ms; CaPFC_cal pauses without stopping).
/// `--pause-refresh off` changes it, and a bad value is refused.
#[test]
fn with_refresh_the_report_is_as_before_and_bad_values_are_refused() {
    let before = std::fs::read_to_string(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/data/pause_refresh_on.json"),
    )
    .unwrap();
    for extra in [&[][..], &["--pause-refresh", "on"][..]] {
        let o = capfc_net(extra);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(String::from_utf8_lossy(&o.stdout), before, "{extra:?}");
    }
    let off = capfc_net(&["--pause-refresh", "off"]);
    assert!(off.status.success());
    let text = String::from_utf8_lossy(&off.stdout);
    assert_ne!(text, before);
    assert!(text.contains("\"pause_expiry\""), "{text}");
    let bad = capfc_net(&["--pause-refresh", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("possible values: on, off"));
}
