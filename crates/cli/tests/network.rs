//! A network of switches. Every switch is the single-switch model with its own CaPFC
//! block; PFC frames travel hop by hop; routing is ECMP or DeTail; idle switches are skipped.

use capfc::block::BlockKind;
use capfc::net::sim::{Deadlock, NetConfig, Network, Routing};
use capfc::net::topology::{NetFlow, NodeKind, Topology};
use capfc::net::traffic::{poisson_flows, Cdf};
use capfc::net::transport::TransportKind;
use capfc::switch::FlowMode;

fn flow(src: usize, dst: usize, size: u64, start_ns: u64) -> NetFlow {
    NetFlow {
        src,
        dst,
        prio: 3,
        dport: 100,
        size,
        start_ns,
    }
}

/// A k = 4 fat tree with Poisson flows of `small_flows` at `load` for `duration_ns` (seed `seed`),
/// and a 7-to-1 incast of `incast_bytes` a sender to host 0 starting at `incast_ns`, in start order.
fn fat_tree_with_incast(
    load: f64,
    duration_ns: u64,
    seed: u64,
    incast_ns: u64,
    incast_bytes: u64,
) -> (Topology, Vec<NetFlow>) {
    let topo = Topology::fat_tree(4, 1_000_000_000, 500).unwrap();
    let mut flows = poisson_flows(&topo, &small_flows(), load, duration_ns, seed, 3).unwrap();
    for src in [1, 2, 3, 5, 6, 7, 9] {
        flows.push(flow(src, 0, incast_bytes, incast_ns));
    }
    flows.sort_by_key(|f| f.start_ns);
    (topo, flows)
}

/// Step `net` to the end, checking byte conservation across the whole network at every step.
fn run_conserving(net: &mut Network) {
    let limit = net.cfg.switch.max_cycles;
    while !net.finished() && net.now < limit {
        let next = net.step().expect("no model/RTL difference");
        net.check_conservation();
        if next == u64::MAX {
            break;
        }
        net.now = next.min(limit);
    }
}

/// Flow sizes from 1 KB to 300 KB (mean about 60 KB): many flows in a short run.
fn small_flows() -> Cdf {
    Cdf::parse(
        "1000 0\n1000 20\n10000 50\n50000 80\n150000 95\n300000 100\n",
        "small.cdf",
    )
    .unwrap()
}

/// When a pause first takes effect at `node` (from the network's PFC log).
fn first_pause(net: &Network, node: usize) -> Option<u64> {
    net.pfc_log
        .as_ref()
        .expect("the PFC log is kept")
        .iter()
        .find(|e| e.1 == node && e.4.iter().any(|&q| q > 0))
        .map(|e| e.0)
}

/// The first pause at the spine, at leaf A and at leaf A's hosts (0 to 3) of the leaf-spine
/// network of the hop-by-hop tests.
fn first_pauses(net: &Network, spine: usize, leaf_a: usize) -> (u64, u64, u64) {
    (
        first_pause(net, spine).expect("leaf B never paused the spine"),
        first_pause(net, leaf_a).expect("the spine never paused leaf A"),
        (0..4)
            .filter_map(|h| first_pause(net, h))
            .min()
            .expect("leaf A never paused its hosts"),
    )
}

/// A k = 4 fat tree (16 hosts, 20 four-port switches) at 40 % load of web-search-like flows:
/// every byte is delivered, and conservation holds at every step.
#[test]
fn fat_tree_delivers_every_byte_and_conserves_them() {
    let topo = Topology::fat_tree(4, 1_000_000_000, 500).unwrap();
    let flows = poisson_flows(&topo, &small_flows(), 0.4, 1_000_000, 7, 3).unwrap();
    assert!(flows.len() > 20, "{} flows", flows.len());
    for (mode, routing) in [
        (FlowMode::PfcWstop, Routing::Ecmp),
        (FlowMode::CapfcCal, Routing::DETAIL),
    ] {
        let mut net = Network::new(&topo, &flows, NetConfig::paper(mode, routing)).unwrap();
        run_conserving(&mut net);
        assert!(net.finished(), "{mode:?}: not every flow finished");
        let st = net.stats();
        let bytes: u64 = flows.iter().map(|f| f.size).sum();
        assert_eq!(st.delivered_bytes, bytes, "{mode:?}");
        assert!(st.fct.iter().all(Option::is_some));
        // Nothing beats its standalone time.
        for f in 0..flows.len() {
            assert!(
                st.fct[f].unwrap() >= net.standalone_cycles(f),
                "flow {f}: {} < {}",
                st.fct[f].unwrap(),
                net.standalone_cycles(f)
            );
        }
    }
}

/// Skipping idle switches and jumping the clock over idle time gives exactly what looking at every
/// switch and host every cycle gives: FCTs, PFC frames where they took effect, drops.
#[test]
fn skipping_idle_switches_changes_nothing() {
    // An incast too, so that PFC frames flow.
    let (topo, flows) = fat_tree_with_incast(0.5, 120_000, 3, 40_000, 60_000);
    for (mode, tcp) in [
        (FlowMode::PfcWstop, false),
        (FlowMode::CapfcCal, false),
        (FlowMode::PfcWdrop, false),
        (FlowMode::CapfcCal, true),
    ] {
        let mut runs = vec![];
        for exhaustive in [false, true] {
            let mut cfg = NetConfig::paper(mode, Routing::DETAIL);
            if tcp {
                cfg = cfg.with_transport(TransportKind::Dctcp);
            }
            cfg.exhaustive = exhaustive;
            let mut net = Network::new(&topo, &flows, cfg).unwrap();
            net.pfc_log = Some(vec![]);
            net.run().unwrap();
            assert!(net.finished(), "{mode:?} exhaustive={exhaustive}");
            runs.push((net.stats(), net.pfc_log.take().unwrap(), net.switch_cycles));
        }
        let (a, b) = (&runs[0], &runs[1]);
        assert_eq!(a.0.fct, b.0.fct, "{mode:?}: FCTs differ");
        assert_eq!(a.1, b.1, "{mode:?}: PFC frames differ");
        assert_eq!(
            (a.0.ingress_drops, a.0.egress_drops, &a.0.pfc_frames_by_tier),
            (b.0.ingress_drops, b.0.egress_drops, &b.0.pfc_frames_by_tier)
        );
        if mode != FlowMode::PfcWdrop {
            assert!(
                !a.1.is_empty(),
                "{mode:?}: no PFC frame: the test shows nothing"
            );
        }
        assert!(
            a.2 * 2 < b.2,
            "{mode:?}: skipping saved little: {} of {} switch cycles",
            a.2,
            b.2
        );
    }
}

/// Pauses spread hop by hop. Leaf-spine, 2 leaves, 1 spine, 4 hosts a leaf, hosts at 1 Gb/s and
/// the fabric at 4 Gb/s (so the clock is 4 Gb/s and a host link takes 4 cycles a byte): the four
/// hosts of leaf A send to one host of leaf B. Leaf B's port to that host congests; B pauses the spine's port
/// towards it, the spine's queue fills and it pauses leaf A's uplink, whose queue fills and leaf A
/// pauses its hosts: in that order, with nothing lost (lossless priority, headroom by Annex N).
#[test]
fn pauses_spread_hop_by_hop_to_the_senders() {
    // Hosts 0..8 (0..4 on leaf 8, 4..8 on leaf 9), spine 10.
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 4_000_000_000, 500).unwrap();
    let (leaf_a, leaf_b, spine) = (8, 9, 10);
    assert_eq!(topo.nodes[spine], NodeKind::Switch);
    let flows: Vec<NetFlow> = (0..4).map(|s| flow(s, 4, 1_000_000, 0)).collect();
    let mut cfg = NetConfig::paper(FlowMode::PfcWstop, Routing::Ecmp);
    cfg.switch.xoff = Some(capfc::switch::scenario::XoffSetting::Auto);
    let mut net = Network::new(&topo, &flows, cfg).unwrap();
    net.pfc_log = Some(vec![]);
    net.run().unwrap();
    assert!(net.finished());
    let st = net.stats();
    assert_eq!((st.ingress_drops, st.egress_drops), (0, 0), "lossless");
    // Where a pause takes effect: at the spine (sent by leaf B), at leaf A (sent by the spine), at
    // the hosts of leaf A (sent by leaf A).
    let (at_spine, at_leaf_a, at_host) = first_pauses(&net, spine, leaf_a);
    assert!(
        at_spine < at_leaf_a && at_leaf_a < at_host,
        "pauses at spine {at_spine}, leaf A {at_leaf_a}, hosts {at_host}: not hop by hop"
    );
    assert!(
        first_pause(&net, leaf_b).is_none(),
        "nobody sends into leaf B's egress from below"
    );
    // Paused time at every tier.
    assert!(st.paused_cycles_by_tier.iter().all(|&c| c > 0), "{st:?}");
}

/// The same leaf-spine network with the v3 block in every switch (`capfc net`'s default): every
/// byte delivered and accounted for at every step (the arrivals waiting for their answer
/// included), nothing lost, and the pauses spread hop by hop, as with v2; the last flow completes
/// within 5 % of v2's time (v3 decides a few cycles later). Skipping v3's idle cycles by its
/// state's period gives exactly what clocking every switch every cycle gives.
#[test]
fn the_v3_block_in_every_switch_pauses_hop_by_hop() {
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 4_000_000_000, 500).unwrap();
    let (leaf_a, spine) = (8, 10);
    let flows: Vec<NetFlow> = (0..4).map(|s| flow(s, 4, 250_000, 0)).collect();
    let mut done = vec![];
    let mut v3_runs = vec![];
    for (block, exhaustive) in [
        (BlockKind::V2, false),
        (BlockKind::V3, false),
        (BlockKind::V3, true),
    ] {
        let mut cfg = NetConfig::paper(FlowMode::PfcWstop, Routing::Ecmp);
        cfg.switch.xoff = Some(capfc::switch::scenario::XoffSetting::Auto);
        cfg.block = block;
        cfg.exhaustive = exhaustive;
        cfg.audit_idle_skip = true;
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.pfc_log = Some(vec![]);
        let wall = std::time::Instant::now();
        run_conserving(&mut net);
        assert!(net.finished(), "{block:?}");
        if block == BlockKind::V3 {
            // v3's idle skipping (`block_v3::IdleSkip`) against clocking every switch every
            // cycle: the same FCTs and the same PFC frames, where they took effect
            let (skipped, caught_up) = net.v3_skip_counts();
            eprintln!(
                "v3, exhaustive={exhaustive}: {} switch cycles, blocks skipped {skipped} cycles and caught up with {caught_up}, {:.1} s",
                net.switch_cycles,
                wall.elapsed().as_secs_f64()
            );
            if exhaustive {
                assert_eq!(skipped, 0);
            } else {
                // (each periodic state taken without comparing 8 cycles on, compared on a copy:
                // a wrong one stops the run as a mismatch)
                assert!(
                    net.v3_idle_audits() > 100,
                    "{} audited",
                    net.v3_idle_audits()
                );
                assert!(
                    skipped > 10 * caught_up.max(1),
                    "v3 skipped {skipped}, caught up {caught_up}"
                );
            }
            v3_runs.push((net.stats().fct, net.pfc_log.clone().unwrap()));
            if exhaustive {
                continue;
            }
        }
        let st = net.stats();
        assert_eq!(
            (st.ingress_drops, st.egress_drops),
            (0, 0),
            "{block:?}: lossless"
        );
        let (at_spine, at_leaf_a, at_host) = first_pauses(&net, spine, leaf_a);
        assert!(
            at_spine < at_leaf_a && at_leaf_a < at_host,
            "{block:?}: pauses at spine {at_spine}, leaf A {at_leaf_a}, hosts {at_host}"
        );
        let last = st
            .fct
            .iter()
            .map(|f| f.expect("every flow completes"))
            .max();
        done.push((last.unwrap(), st.timeouts));
    }
    assert_eq!(
        v3_runs[0].0, v3_runs[1].0,
        "v3: skipping idle cycles changed an FCT"
    );
    assert!(!v3_runs[0].1.is_empty());
    assert!(
        v3_runs[0].1 == v3_runs[1].1,
        "v3: skipping idle cycles changed the PFC frames"
    );
    let (v2, v3) = (done[0].0 as f64, done[1].0 as f64);
    eprintln!(
        "last FCT (cycles, timeouts): v2 {:?}, v3 {:?}",
        done[0], done[1]
    );
    assert!(
        (v3 - v2).abs() <= 0.05 * v2,
        "the last flow's FCT (cycles, timeouts): v2 {:?}, v3 {:?}",
        done[0],
        done[1]
    );
}

/// ECMP spreads flows over the paths; DeTail spreads one flow's packets when queues build. In a
/// k = 4 fat tree, 8 flows from pod 0 to pod 1 under ECMP use more than one core switch, and
/// the same flow always the same one.
#[test]
fn ecmp_uses_every_core_and_keeps_a_flow_on_one_path() {
    let topo = Topology::fat_tree(4, 1_000_000_000, 500).unwrap();
    // Hosts 0..4 are pod 0, 4..8 pod 1; cores are the last 4 nodes.
    let n = topo.nodes.len();
    let cores: Vec<usize> = (n - 4..n).collect();
    let flows: Vec<NetFlow> = (0..16)
        .map(|k| flow(k % 4, 4 + (k / 4) % 4, 30_000, k as u64 * 1000))
        .collect();
    let mut net = Network::new(
        &topo,
        &flows,
        NetConfig::paper(FlowMode::CapfcCal, Routing::Ecmp),
    )
    .unwrap();
    net.run().unwrap();
    assert!(net.finished());
    let used: Vec<usize> = cores
        .iter()
        .copied()
        .filter(|&c| net.switch(c).unwrap().stats.sent_bytes > 0)
        .collect();
    assert!(used.len() >= 2, "ECMP used cores {used:?} only");
}

/// Malformed networks are refused with a reason: a host with two NICs, a switch with one port,
/// a flow between a host and itself.
#[test]
fn networks_that_cannot_run_are_refused() {
    let mut topo = Topology::leaf_spine(2, 1, 2, 1_000_000_000, 1_000_000_000, 500).unwrap();
    let cfg = || NetConfig::paper(FlowMode::CapfcCal, Routing::Ecmp);
    let e = Network::new(&topo, &[flow(0, 0, 100, 0)], cfg())
        .err()
        .unwrap();
    assert!(e.to_string().contains("flow 0"), "{e}");
    let e = Network::new(&topo, &[flow(0, 5, 100, 0)], cfg())
        .err()
        .unwrap();
    assert!(e.to_string().contains("not a host"), "{e}");
    topo.links.push(capfc::net::topology::Link {
        a: 0,
        b: 5,
        rate_bps: 1_000_000_000,
        delay_ns: 10,
        error_rate: 0.0,
    });
    let e = Network::new(&topo, &[flow(0, 1, 100, 0)], cfg())
        .err()
        .unwrap();
    assert!(e.to_string().contains("host 0 has 2 links"), "{e}");
}

/// HPCC's files run as they are: the example topology (100 and 400 Gb/s links, so a 400 Gb/s clock
/// and 4 cycles a byte on the host links), a flow.txt in HPCC's layout starting at 2 s, and one
/// written by our generator with HPCC's conventions; `fct.txt` comes back in HPCC's column layout
/// with the file's own start times and node addresses.
#[test]
fn hpcc_topology_and_flow_files_run_and_fct_txt_reads_back() {
    use capfc::net::topology::parse_hpcc_flows;
    let topo = Topology::parse_hpcc(
        include_str!("../../../tests/data/hpcc_topology.txt"),
        "hpcc_topology.txt",
    )
    .unwrap();
    let (flows, rest) = parse_hpcc_flows(
        include_str!("../../../tests/data/hpcc_flow_small.txt"),
        "hpcc_flow_small.txt",
        &topo,
    )
    .unwrap();
    assert_eq!(
        (flows.len(), rest),
        (3, 2),
        "HPCC reads flow_num flows only"
    );
    let generated = capfc::net::traffic::flows_to_hpcc(
        &poisson_flows(&topo, &small_flows(), 0.3, 20_000, 5, 3).unwrap(),
    );
    let (gen_flows, _) = parse_hpcc_flows(&generated, "generated", &topo).unwrap();
    assert!(gen_flows.len() > 5);
    for (name, mut fl) in [("example", flows), ("generated", gen_flows)] {
        let t0 = fl[0].start_ns;
        for f in &mut fl {
            f.start_ns -= t0;
        }
        let mut net = Network::new(
            &topo,
            &fl,
            NetConfig::paper(FlowMode::CapfcCal, Routing::Ecmp),
        )
        .unwrap();
        assert!((net.cycle_ns - 0.02).abs() < 1e-12, "400 Gb/s clock");
        net.cfg.switch.max_cycles = 1 << 40;
        run_conserving(&mut net);
        assert!(net.finished(), "{name}: not every flow finished");
        let fct = capfc_cli::cli_net::fct_txt(&net, t0);
        assert_eq!(fct.lines().count(), fl.len(), "{name}");
        for (line, f) in fct.lines().zip(&fl) {
            let c: Vec<&str> = line.split(' ').collect();
            assert_eq!(c.len(), 8, "{line}");
            let sip = u32::from_str_radix(c[0], 16).unwrap();
            let dip = u32::from_str_radix(c[1], 16).unwrap();
            assert_eq!(((sip >> 8) & 0xffff) as usize, f.src, "{line}");
            assert_eq!(((dip >> 8) & 0xffff) as usize, f.dst, "{line}");
            let n: Vec<u64> = c[2..].iter().map(|x| x.parse().unwrap()).collect();
            assert_eq!(n[2], f.size, "{line}: size");
            assert_eq!(n[3], f.start_ns + t0, "{line}: the file's own start time");
            assert!(n[4] >= n[5] && n[5] > 0, "{line}: slowdown >= 1");
        }
    }
}

/// Headroom in a network: with `xoff = "auto"` (Annex N for each switch's longest link, in byte
/// times of the clock, the fastest link) an incast through two tiers under PFC_wstop loses nothing
/// anywhere; with 20 % less headroom some ingress overflows. Hosts at 1 Gb/s, the fabric at 4 Gb/s
/// (the clock) and 10 us cables (5,000 cycles): leaf B's input from the spine fills at 4 Gb/s while
/// its stopped pipeline drains nothing, so what is in flight when it pauses lands in the headroom.
#[test]
fn network_headroom_suffices_and_20_percent_less_overflows() {
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 4_000_000_000, 10_000).unwrap();
    let flows: Vec<NetFlow> = (0..4)
        .map(|s| flow(s, 4, 400_000, 0))
        .chain((5..8).map(|s| flow(s, 4, 400_000, 0)))
        .collect();
    let run = |shrink: Option<f64>| {
        let mut cfg = NetConfig::paper(FlowMode::PfcWstop, Routing::Ecmp);
        cfg.switch.xoff = Some(capfc::switch::scenario::XoffSetting::Auto);
        if let Some(k) = shrink {
            // The same headroom less 20 %: XOFF raised by a fifth of MAX - XOFF.
            let mut sc = cfg.switch.clone();
            sc.prop_delay = 5000;
            sc.apply_auto_xoff().unwrap();
            let h = f64::from(sc.thresholds.ing_max - sc.thresholds.ing_xoff);
            cfg.switch.xoff = None;
            cfg.switch.thresholds.ing_xoff = sc.thresholds.ing_max - (h * k) as u32;
        }
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.run().unwrap();
        assert!(net.finished());
        net.stats()
    };
    let ok = run(None);
    assert_eq!(ok.ingress_drops, 0, "overflow with Annex N headroom");
    assert!(
        ok.pfc_frames_by_tier.iter().sum::<u64>() > 0,
        "no PFC: nothing tested"
    );
    assert!(
        ok.stall_cycles_by_tier[1] > 0,
        "leaf B's pipeline never stopped under PFC_wstop: {ok:?}"
    );
    let short = run(Some(0.8));
    assert!(
        short.ingress_drops > 0,
        "20 % less headroom did not overflow"
    );
}

/// One switch of the network on the Verilated RTL, lockstep-checked against the model every cycle
/// (`--dut both` for one node): the run sees no difference and gives the model's results.
#[cfg(feature = "rtl")]
#[test]
fn one_switch_on_the_rtl_in_lockstep_gives_the_models_results() {
    let topo = Topology::fat_tree(4, 1_000_000_000, 500).unwrap();
    let mut flows: Vec<NetFlow> = (1..8).map(|s| flow(s, 0, 60_000, 0)).collect();
    flows.push(flow(9, 2, 100_000, 1000));
    let edge0 = 16; // the edge switch of hosts 0 and 1
    let mut runs = vec![];
    for dut in [capfc::switch::DutKind::Model, capfc::switch::DutKind::Both] {
        let mut cfg = NetConfig::paper(FlowMode::CapfcCal, Routing::DETAIL);
        cfg.dut = dut;
        cfg.dut_nodes = vec![edge0];
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.pfc_log = Some(vec![]);
        net.run().expect("model and RTL agree");
        assert!(net.finished());
        assert!(
            net.switch(edge0).unwrap().stats.total_pfc_frames() > 0,
            "the RTL switch sent no PFC frame: little was compared"
        );
        runs.push((net.stats().fct, net.pfc_log.take().unwrap()));
    }
    assert_eq!(runs[0], runs[1]);
}

/// The transport: every flow completes with every byte in order at its receiver, conservation
/// holds, and where packets are dropped (PFC_wdrop at egress MAX, ECMP so no reordering) TCP finds
/// the holes and sends them again (fast retransmits).
#[test]
fn tcp_delivers_every_byte_through_drops() {
    // A 7-to-1 incast of 200 KB each: drops under PFC_wdrop.
    let (topo, flows) = fat_tree_with_incast(0.3, 500_000, 11, 50_000, 200_000);
    for mode in [FlowMode::PfcWdrop, FlowMode::CapfcCal] {
        let cfg = NetConfig::paper(mode, Routing::Ecmp).with_transport(TransportKind::Dctcp);
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        run_conserving(&mut net);
        assert!(net.finished(), "{mode:?}");
        let st = net.stats();
        if mode == FlowMode::PfcWdrop {
            assert!(st.egress_drops > 0, "no drop: nothing recovered");
            assert!(st.fast_retransmits > 0, "{st:?}");
        } else {
            assert_eq!(
                st.egress_drops + st.ingress_drops,
                0,
                "CaPFC is lossless here"
            );
        }
        for f in 0..flows.len() {
            assert!(st.fct[f].unwrap() >= net.standalone_cycles(f), "flow {f}");
        }
    }
}

/// ECN at 20 KB: under DCTCP's reaction the incast's senders cut their windows on echoed marks,
/// and the bottleneck queue stays lower than with the reaction off (so fewer drops under
/// PFC_wdrop).
#[test]
fn ecn_marks_make_dctcp_senders_back_off() {
    use capfc::net::transport::Ecn;
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 4_000_000_000, 500).unwrap();
    let flows: Vec<NetFlow> = (0..4)
        .map(|s| flow(s, 4, 500_000, 0))
        .chain((5..8).map(|s| flow(s, 4, 500_000, 0)))
        .collect();
    let run = |ecn: Ecn| {
        let mut cfg = NetConfig::paper(FlowMode::PfcWdrop, Routing::Ecmp)
            .with_transport(TransportKind::Dctcp);
        cfg.transport.as_mut().unwrap().ecn = ecn;
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.run().unwrap();
        assert!(net.finished(), "{ecn:?}");
        net.stats()
    };
    let (dctcp, off) = (run(Ecn::Dctcp), run(Ecn::Off));
    assert!(dctcp.ecn_cuts > 0, "no window cut on an echoed mark");
    assert_eq!(off.ecn_cuts, 0);
    assert!(
        dctcp.egress_drops < off.egress_drops,
        "drops with DCTCP {} not below {} without",
        dctcp.egress_drops,
        off.egress_drops
    );
}

/// The paper's transport (Linux TCP as NSC ran it) on an incast: with ECN marked at 20 KB, windows
/// cut on echoes and no loss; without marking, drops recovered by timeouts of at least Linux's
/// 200 ms, and ACKs the 40 ms delayed-ACK timer sent. Both deliver every byte with about one ACK
/// for two segments.
#[test]
fn the_papers_linux_transport_delivers_every_byte_with_delayed_acks() {
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 4_000_000_000, 500).unwrap();
    let flows: Vec<NetFlow> = (0..4)
        .map(|s| flow(s, 4, 300_001, 0))
        .chain((5..8).map(|s| flow(s, 4, 300_001, 0)))
        .collect();
    let run = |marking: bool| {
        let mut cfg = NetConfig::paper(FlowMode::PfcWdrop, Routing::Ecmp)
            .with_transport(TransportKind::Paper);
        let t = cfg.transport.as_mut().unwrap();
        if !marking {
            t.ecn_threshold = None;
        }
        let mss = t.mss;
        // room for timeouts of 200 ms and their backoff (2 ns cycles)
        cfg.switch.max_cycles = 2_000_000_000;
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.run().unwrap();
        assert!(net.finished(), "{:?}", net.stats());
        let st = net.stats();
        assert_eq!(st.delivered_bytes, 7 * 300_001);
        let segments = 7 * 300_001u64.div_ceil(u64::from(mss));
        assert!(
            st.acks < segments * 3 / 4,
            "{} ACKs for {segments} segments: not delayed",
            st.acks
        );
        st
    };
    let ecn = run(true);
    assert!(ecn.ecn_cuts > 0 && ecn.egress_drops == 0, "{ecn:?}");
    let drop = run(false);
    assert!(drop.egress_drops > 0 && drop.timeouts > 0, "{drop:?}");
    assert!(
        drop.timer_acks > 0,
        "no ACK went on the delayed-ACK timer: {drop:?}"
    );
    let slowest = drop.fct.iter().map(|f| f.unwrap()).max().unwrap();
    assert!(
        slowest as f64 * drop.cycle_ns > 200e6,
        "a flow that timed out took at least Linux's minimum timeout"
    );
}

/// `--stragglers`: for every flow of an incast, the sender's and each hop's parts add up to its
/// completion time exactly, in a run with drops and timeouts (PFC_wdrop, no ECN), one with
/// stopped pipelines (PFC_wstop) and one with pauses (CaPFC_cal); and the parts that make those
/// runs what they are show up: time waiting for a timeout, pipelines stopped, egress queues and
/// NICs paused.
#[test]
fn stragglers_add_up_to_the_completion_time() {
    use capfc::net::stragglers::breakdown;
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 4_000_000_000, 500).unwrap();
    let flows: Vec<NetFlow> = (0..4)
        .map(|s| flow(s, 4, 200_001, 0))
        .chain((5..8).map(|s| flow(s, 4, 200_001, 1000)))
        .collect();
    for mode in [FlowMode::PfcWdrop, FlowMode::PfcWstop, FlowMode::CapfcCal] {
        let mut cfg = NetConfig::paper(mode, Routing::Ecmp).with_transport(TransportKind::Paper);
        cfg.transport.as_mut().unwrap().ecn_threshold = None;
        cfg.switch.max_cycles = 2_000_000_000;
        let mut net = Network::new(&topo, &flows, cfg).unwrap();
        net.trace_stragglers();
        net.run().unwrap();
        assert!(net.finished(), "{mode:?}");
        let parts: Vec<_> = (0..flows.len())
            .map(|f| breakdown(&net, f).unwrap_or_else(|e| panic!("{mode:?}: {e}")))
            .collect();
        for b in &parts {
            assert_eq!(b.total(), b.fct);
            // leaf, spine, leaf from the other leaf's hosts; one leaf from the same leaf's
            assert_eq!(b.hops.len(), if b.flow < 4 { 3 } else { 1 }, "{b:?}");
        }
        let hop = |g: fn(&capfc::switch::hops::Hop) -> u64| {
            parts
                .iter()
                .flat_map(|b| &b.hops)
                .map(|(_, h)| g(h))
                .sum::<u64>()
        };
        match mode {
            FlowMode::PfcWdrop => {
                assert!(
                    parts.iter().any(|b| b.timeout_wait > 0 && b.timeouts > 0),
                    "{parts:?}"
                )
            }
            FlowMode::PfcWstop => {
                assert!(hop(|h| h.stopped) > 0, "{parts:?}");
                assert_eq!(net.stats().egress_drops, 0);
            }
            _ => {
                assert!(hop(|h| h.paused) > 0, "{parts:?}");
                assert!(parts.iter().any(|b| b.nic_paused > 0), "{parts:?}");
                assert_eq!(net.stats().egress_drops, 0);
            }
        }
    }
}

fn capfc(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap()
}

/// The options every `capfc net` test below starts from: a small leaf-spine, 4 ms of drawn flows at
/// half load.
const NET_BASE: [&str; 7] = [
    "net",
    "--topology",
    "leaf-spine:2,1,4",
    "--duration",
    "4ms",
    "--load",
    "0.5",
];

/// A fresh directory of this test process, named `name`.
fn test_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("capfc-net-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `capfc net`: the table, HPCC's files and the pause plot.
#[test]
fn the_cli_writes_its_table_hpcc_files_and_pause_plot() {
    let dir = test_dir("table");
    let svg = dir.join("pauses.svg");
    let mut args = NET_BASE.to_vec();
    let (h, p) = (dir.display().to_string(), svg.display().to_string());
    args.extend(["--mode", "PFC_wstop,CaPFC_cal", "--hpcc", &h, "--plot", &p]);
    let o = capfc(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("CaPFC_cal") && table.contains("FCT p99"),
        "{table}"
    );
    for m in ["PFC_wstop", "CaPFC_cal"] {
        let fct = std::fs::read_to_string(dir.join(format!("{m}_fct.txt"))).unwrap();
        assert!(fct.lines().count() > 5, "{m}: {fct}");
        assert!(dir.join(format!("{m}_pfc.txt")).exists());
    }
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `capfc net --seeds`: a sweep's shards together give the whole sweep, line for line (the same
/// seed gives the same run).
#[test]
fn the_cli_sweeps_in_shards_that_make_up_the_whole_sweep() {
    let sweep = |extra: &[&str]| {
        let mut a = NET_BASE.to_vec();
        a.extend(["--seeds", "1..=3", "--mode", "CaPFC_max,CaPFC_cal"]);
        a.extend(extra);
        let o = capfc(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut v: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    let all = sweep(&[]);
    assert_eq!(all.len(), 6, "{all:?}");
    let mut parts = sweep(&["--shard", "1/2"]);
    parts.extend(sweep(&["--shard", "2/2"]));
    parts.sort();
    assert_eq!(parts, all);
}

/// `capfc net --jobs`: runs on several threads write the same bytes as one after the other: the
/// sweep's lines in the order of its runs (not the order they end in), the table, and every
/// HPCC file.
#[test]
fn the_cli_writes_the_same_bytes_whatever_its_jobs() {
    let run = |extra: &[&str], name: &str| {
        let dir = test_dir(name);
        let h = dir.display().to_string();
        let mut a = NET_BASE.to_vec();
        a.extend(["--hpcc", &h]);
        a.extend(extra);
        let o = capfc(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().to_string();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect();
        files.sort();
        std::fs::remove_dir_all(&dir).ok();
        (o.stdout, files)
    };
    let sweep = ["--seeds", "1..=3", "--mode", "PFC_wdrop,CaPFC_cal"];
    let one = run(&[&sweep[..], &["--jobs", "1"]].concat(), "jobs1");
    let three = run(&[&sweep[..], &["--jobs", "3"]].concat(), "jobs3");
    assert_eq!(String::from_utf8_lossy(&one.0).lines().count(), 6);
    assert_eq!(one.1.len(), 12, "two HPCC files a run");
    assert_eq!(
        String::from_utf8_lossy(&one.0),
        String::from_utf8_lossy(&three.0)
    );
    assert!(one.1 == three.1, "the HPCC files differ with --jobs 3");
    let table = |j: &str| run(&["--mode", "all", "--jobs", j], &format!("table{j}"));
    let (t1, t2) = (table("1"), table("2"));
    assert_eq!(
        String::from_utf8_lossy(&t1.0),
        String::from_utf8_lossy(&t2.0)
    );
    assert!(t1.1 == t2.1, "the HPCC files differ with --jobs 2");
}

/// `capfc net`: a topology file and a flow file that do not fit are refused with the file and line.
#[test]
fn the_cli_refuses_bad_topology_and_flow_files() {
    let dir = test_dir("files");
    let bad_topo = dir.join("t.txt");
    std::fs::write(&bad_topo, "3 1 2\n2\n0 2 1Gbps 1us 0\n1 7 1Gbps 1us 0\n").unwrap();
    let o = capfc(&["net", "--topology", &bad_topo.display().to_string()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("t.txt:4: dst"), "{err}");
    let good_topo = dir.join("good.txt");
    std::fs::write(&good_topo, "3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n").unwrap();
    let bad_flows = dir.join("f.txt");
    std::fs::write(&bad_flows, "1\n0 2 3 100 1000 2\n").unwrap();
    let o = capfc(&[
        "net",
        "--topology",
        &good_topo.display().to_string(),
        "--flows",
        &bad_flows.display().to_string(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("f.txt:2: dst: node 2 is not a host"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `capfc net`: bad option values exit non-zero naming the option; "tcp" is refused naming the
/// transports it could mean, which the help tells apart.
#[test]
fn the_cli_refuses_bad_options_by_name() {
    for (flag, v) in [
        ("--routing", "spray"),
        ("--transport", "udp"),
        ("--ecn", "maybe"),
        ("--shard", "3/2"),
        ("--seeds", "5..5"),
    ] {
        let mut a = NET_BASE.to_vec();
        a.extend([flag, v]);
        let o = capfc(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(flag),
            "{flag} {v}: {err}"
        );
    }
    // "tcp" named no transport in particular: refused, naming the paper's preset and DCTCP; the
    // help tells the two apart.
    let mut a = NET_BASE.to_vec();
    a.extend(["--transport", "tcp"]);
    let o = capfc(&a);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("paper (Linux TCP") && err.contains("dctcp"),
        "{err}"
    );
    let help = String::from_utf8_lossy(&capfc(&["net", "--help"]).stdout).to_string();
    assert!(
        help.contains("paper (the paper's: Linux TCP") && help.contains("dctcp (a variant"),
        "{help}"
    );
}

/// `capfc net --scenario`: a network scenario's own settings are checked as well, and named by
/// their table; a single switch's scenario is refused.
#[test]
fn the_cli_refuses_bad_network_scenarios() {
    let dir = test_dir("scenario");
    let sc = dir.join("s.toml");
    std::fs::write(
        &sc,
        "name = \"s\"\nports = 8\n[network]\ntopology = \"fat-tree:4\"\nrouting = \"spray\"\n[mix]\nseed = 1\nduration = 1000\n[mix.short]\nprio = 3\nbytes = 1000\nmean_gap = 100\n",
    )
    .unwrap();
    let o = capfc(&["net", "--scenario", &sc.display().to_string()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("[network] routing 'spray'"),
        "{err}"
    );
    let o = capfc(&["net", "--scenario", "paper-1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("not a network scenario"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The leaf-spine that PFC_wstop deadlocks: two leaves of four hosts and one spine, every link at
/// 1 Gb/s; leaf A's hosts 1 to 3 send 1 MB each to leaf B's host 7, leaf B's hosts 4 to 6 send
/// 1 MB each to leaf A's host 0.
fn deadlocking_leaf_spine() -> (Topology, Vec<NetFlow>) {
    let topo = Topology::leaf_spine(2, 1, 4, 1_000_000_000, 1_000_000_000, 1000).unwrap();
    let flows: Vec<NetFlow> = [(1, 7), (2, 7), (3, 7), (4, 0), (5, 0), (6, 0)]
        .into_iter()
        .map(|(s, d)| flow(s, d, 1_000_000, 0))
        .collect();
    (topo, flows)
}

/// `flows` on `topo` in `mode` with open-loop senders and ECMP, run for up to 100 ms.
fn run_open_loop(topo: &Topology, flows: &[NetFlow], mode: FlowMode) -> Network {
    let mut cfg = NetConfig::paper(mode, Routing::Ecmp);
    cfg.switch.max_cycles = 12_500_000; // 100 ms
    let mut net = Network::new(topo, flows, cfg).unwrap();
    net.run().unwrap();
    net
}

/// The deadlock `d` that run `stop` found is a cycle of waits, each checked against the switches
/// themselves: each stopped with the waited-on packet at its pipeline's end, paused on that port
/// and class, and linked to the next; the spine among them.
fn assert_waits_form_a_cycle(stop: &Network, d: &Deadlock, topo: &Topology) {
    assert!(d.waits.len() >= 2, "{d:?}");
    let paused = stop.paused_now();
    for (i, w) in d.waits.iter().enumerate() {
        let next = d.waits[(i + 1) % d.waits.len()];
        assert_eq!(w.peer, next.node, "not a cycle: {d:?}");
        let sw = stop.switch(w.node).expect("a switch");
        assert!(sw.stalled, "switch {} is not stopped: {d:?}", w.node);
        let (_, head) = sw.pipe.front().expect("a packet at the pipeline's end");
        assert_eq!(
            (usize::from(head.dst), head.prio),
            (w.port, w.class),
            "switch {}'s pipeline waits on another class",
            w.node
        );
        assert!(
            paused
                .iter()
                .any(|&(n, p, m)| n == w.node && p == w.port && m & (1 << w.class) != 0),
            "switch {} port {} class {} is not paused: {paused:?}",
            w.node,
            w.port,
            w.class
        );
        assert!(
            topo.links
                .iter()
                .any(|l| (l.a, l.b) == (w.node, w.peer) || (l.b, l.a) == (w.node, w.peer)),
            "switches {} and {} are not linked",
            w.node,
            w.peer
        );
    }
    // (leaf_spine numbers the hosts, then the leaves, then the spines: the one spine is last)
    let spine = topo.nodes.len() - 1;
    assert!(
        d.waits.iter().any(|w| w.node == spine),
        "the spine {spine} is not in the cycle: {d:?}"
    );
}

/// The pause plot of run `stop` names its deadlock `d`: when, and the switches in it.
fn assert_plot_names_the_deadlock(stop: &Network, d: &Deadlock) {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-deadlock-")
        .tempdir()
        .unwrap();
    let svg = scratch.path().join("capfc-deadlock.svg");
    capfc_cli::plot::plot_pauses(&svg, std::slice::from_ref(stop)).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_file(&svg);
    let names: Vec<String> = d.waits.iter().map(|w| w.node.to_string()).collect();
    let want = format!(
        "deadlock found at {:.0} us (black line): switches {}",
        d.since as f64 * stop.cycle_ns / 1000.0,
        names.join(", ")
    );
    assert!(text.contains(&want), "the plot does not say '{want}'");
}

/// The deadlock `d` lasts: 10 ms more of `stop`, stepped without the check, change nothing in the
/// cycle (the same packet at the end of each pipeline; its cycle there moves on while it waits).
fn assert_deadlock_lasts_10ms(mut stop: Network, d: &Deadlock) {
    let heads: Vec<_> = d
        .waits
        .iter()
        .map(|w| stop.switch(w.node).unwrap().pipe.front().unwrap().1)
        .collect();
    let until = stop.now + 1_250_000;
    while stop.now < until {
        let next = stop.step().unwrap();
        stop.now = next.min(until);
    }
    assert_eq!(stop.deadlock(), Some(d.waits.clone()), "the deadlock ended");
    for (w, h) in d.waits.iter().zip(&heads) {
        assert_eq!(
            stop.switch(w.node).unwrap().pipe.front().map(|e| &e.1),
            Some(h),
            "switch {}'s pipeline moved",
            w.node
        );
    }
}

/// PFC_wstop can deadlock a network that has no routing loop: a stopped pipeline couples every
/// input of a switch to every output. Leaf-spine, every link at 1 Gb/s, open-loop senders: leaf A's
/// hosts 1 to 3 send 1 MB each to leaf B's host 7, leaf B's hosts 4 to 6 send 1 MB each to leaf A's
/// host 0. A leaf's uplink fills, its pipeline stops, its input from the spine fills and pauses
/// the spine; the spine's queue to that leaf fills, the spine's pipeline stops, its input from the
/// leaf fills and pauses the leaf's uplink: each waits for the other. The run stops on it and says
/// which pipelines wait on which; each wait is checked here against the switches themselves, and
/// the cycle still holds 10 ms later.
#[test]
fn pfc_wstop_deadlocks_a_leaf_spine() {
    let (topo, flows) = deadlocking_leaf_spine();
    let stop = run_open_loop(&topo, &flows, FlowMode::PfcWstop);
    let d = stop
        .deadlock
        .clone()
        .expect("PFC_wstop did not deadlock the leaf-spine");
    assert!(!stop.finished(), "a deadlocked run finished its flows");
    assert!(
        stop.now <= d.since + 2 * capfc::net::sim::DEADLOCK_CHECK_CYCLES,
        "the run went on {} cycles after the deadlock was found at {}",
        stop.now,
        d.since
    );
    assert_waits_form_a_cycle(&stop, &d, &topo);
    assert_eq!(stop.stats().deadlock, Some(d.clone()));
    assert_plot_names_the_deadlock(&stop, &d);
    assert_deadlock_lasts_10ms(stop, &d);
}

/// On the leaf-spine PFC_wstop deadlocks with open-loop senders, under TCP with DCTCP four of the
/// flows (three up, one down) stop PFC_wstop's pipelines, but no cycle forms, and none is reported.
#[test]
fn pfc_wstop_under_dctcp_stops_pipelines_without_a_deadlock() {
    let (topo, flows) = deadlocking_leaf_spine();
    let mut cfg =
        NetConfig::paper(FlowMode::PfcWstop, Routing::Ecmp).with_transport(TransportKind::Dctcp);
    cfg.switch.max_cycles = 12_500_000;
    let mut tcp = Network::new(&topo, &flows[..4], cfg).unwrap();
    tcp.run().unwrap();
    assert!(tcp.finished() && tcp.deadlock.is_none());
    assert!(tcp.stats().stall_cycles_by_tier.iter().sum::<u64>() > 0);
}

/// On the leaf-spine PFC_wstop deadlocks, CaPFC_cal, which never stops a pipeline, completes the
/// six flows with no drop.
#[test]
fn capfc_cal_does_not_deadlock_the_leaf_spine() {
    let (topo, flows) = deadlocking_leaf_spine();
    let cal = run_open_loop(&topo, &flows, FlowMode::CapfcCal);
    assert!(cal.deadlock.is_none());
    assert!(cal.finished(), "CaPFC_cal did not complete the flows");
    assert_eq!(cal.stats().egress_drops, 0);
}
