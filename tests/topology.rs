//! Topologies: HPCC's `topology.txt` and `flow.txt` read as they are, malformed files
//! refused with the file, line and field, generated fat trees and leaf-spine fabrics written and
//! read back, the paper's fat tree with its counts and oversubscription, and no input that panics.

use capfc::net::topology::{parse_hpcc_flows, NodeKind, Topology};
use proptest::prelude::*;

const HPCC_TOPO: &str = include_str!("data/hpcc_topology.txt");
const HPCC_FLOWS: &str = include_str!("data/hpcc_flow.txt");

fn refused(text: &str) -> String {
    match Topology::parse_hpcc(text, "t.txt") {
        Ok(t) => panic!("accepted: {t:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_hpcc_topology_and_flow_file_load_as_they_are() {
    // written as HPCC's simulation/mix files are: hosts first, a line of switch ids,
    // "100Gbps 1000ns 0.000000", delays in ns, us and ms, a trailing blank line
    let t = Topology::parse_hpcc(HPCC_TOPO, "hpcc_topology.txt").unwrap();
    assert_eq!(t.hosts().count(), 8);
    assert_eq!(t.switches().count(), 4);
    assert_eq!(t.links.len(), 12);
    assert_eq!(t.links[0].rate_bps, 100_000_000_000);
    assert_eq!(t.links[8].rate_bps, 400_000_000_000);
    assert!(t.links[..8].iter().all(|l| l.delay_ns == 1000));
    // HPCC's sample flow.txt: flow_num, then the flows, then text HPCC never reads
    let (flows, rest) = parse_hpcc_flows(HPCC_FLOWS, "hpcc_flow.txt", &t).unwrap();
    assert_eq!(flows.len(), 3);
    assert_eq!(
        rest, 6,
        "the lines after flow_num's flows are counted, not read"
    );
    assert_eq!(
        (flows[0].src, flows[0].dst, flows[0].prio, flows[0].dport),
        (2, 1, 3, 100)
    );
    assert_eq!(flows[0].size, 200_000_000);
    assert_eq!(flows[0].start_ns, 2_000_000_000);
    assert_eq!(flows[2].start_ns, 2_000_001_000);
    // and back: what we write reads back equal
    assert_eq!(Topology::parse_hpcc(&t.to_hpcc(), "again").unwrap(), t);
}

#[test]
fn malformed_topologies_are_refused_with_file_line_and_field() {
    let ok = "3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n";
    Topology::parse_hpcc(ok, "t.txt").unwrap();
    for (text, says) in [
        // a link to a missing node
        (
            "3 1 2\n2\n0 2 1Gbps 1us 0\n1 7 1Gbps 1us 0\n",
            "t.txt:4: dst: node 7 does not exist",
        ),
        (
            "3 1 2\n2\n0 2 1Gbps 1us 0\n9 2 1Gbps 1us 0\n",
            "t.txt:4: src: node 9 does not exist",
        ),
        // a disconnected host: no link at all, or in another piece
        (
            "3 1 1\n2\n0 2 1Gbps 1us 0\n",
            "t.txt: node 1: host 1 has no link",
        ),
        (
            "4 2 2\n2 3\n0 2 1Gbps 1us 0\n1 3 1Gbps 1us 0\n",
            "host 1 cannot reach host 0",
        ),
        // a duplicate link, either way round
        (
            "3 1 3\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n2 0 1Gbps 1us 0\n",
            "t.txt:5: dst: a second link between nodes 2 and 0",
        ),
        // a rate of 0, or none
        (
            "3 1 2\n2\n0 2 0Gbps 1us 0\n1 2 1Gbps 1us 0\n",
            "t.txt:3: rate: '0Gbps' is not a positive rate",
        ),
        (
            "3 1 2\n2\n0 2 fast 1us 0\n1 2 1Gbps 1us 0\n",
            "t.txt:3: rate: 'fast'",
        ),
        // and the rest of the format
        (
            "3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps soon 0\n",
            "t.txt:4: delay: 'soon'",
        ),
        (
            "3 1 2\n2\n0 2 1Gbps 1us 2\n1 2 1Gbps 1us 0\n",
            "t.txt:3: error_rate",
        ),
        (
            "3 1 2\n2\n0 0 1Gbps 1us 0\n1 2 1Gbps 1us 0\n",
            "t.txt:3: dst: a link from node 0 to itself",
        ),
        (
            "3 1 3\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n",
            "link_num says 3, the file has 2",
        ),
        (
            "3 1 1\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n",
            "t.txt:4: link_num: link_num says 1, but the file goes on",
        ),
        (
            "3 2 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n",
            "t.txt:2: switch ids",
        ),
        (
            "3 2 2\n2 2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n",
            "node 2 is listed twice",
        ),
        (
            "3 1\n2\n",
            "t.txt:1: node_num switch_num link_num: expected 3 numbers",
        ),
        ("x 1 2\n", "t.txt:1: node_num: 'x'"),
        ("", "the file is empty"),
        ("3 1 2\n2\n0 2 1Gbps 1us\n", "t.txt:3: link: expected"),
    ] {
        let e = refused(text);
        assert!(e.contains(says), "{text:?}: said {e:?}, not {says:?}");
    }
}

#[test]
fn malformed_flow_files_are_refused_with_file_line_and_field() {
    let t = Topology::parse_hpcc(HPCC_TOPO, "topo").unwrap();
    for (text, says) in [
        (
            "1\n8 1 3 100 1000 0\n",
            "f.txt:2: src: node 8 is not a host",
        ),
        (
            "1\n0 99 3 100 1000 0\n",
            "f.txt:2: dst: node 99 is not a host",
        ),
        ("1\n0 0 3 100 1000 0\n", "a flow from host 0 to itself"),
        ("1\n0 1 8 100 1000 0\n", "f.txt:2: pg"),
        ("1\n0 1 3 100 0 0\n", "f.txt:2: size"),
        ("1\n0 1 3 70000 1000 0\n", "f.txt:2: dport"),
        ("1\n0 1 3 100 1000 -1\n", "f.txt:2: start_time"),
        (
            "2\n0 1 3 100 1000 2\n0 1 3 100 1000 1\n",
            "f.txt:3: start_time: flows must be in ascending",
        ),
        ("3\n0 1 3 100 1000 2\n", "flow_num says 3, the file has 1"),
        ("1 2\n", "f.txt:1: flow_num"),
    ] {
        match parse_hpcc_flows(text, "f.txt", &t) {
            Ok(f) => panic!("{text:?} accepted: {f:?}"),
            Err(e) => assert!(
                e.to_string().contains(says),
                "{text:?}: said {e}, not {says:?}"
            ),
        }
    }
}

#[test]
fn fat_trees_have_the_textbook_counts_and_read_back_equal() {
    for k in [4usize, 6, 8] {
        let t = Topology::fat_tree(k, 1_000_000_000, 1000).unwrap();
        assert_eq!(t.hosts().count(), k * k * k / 4, "k = {k}: hosts");
        assert_eq!(t.switches().count(), 5 * k * k / 4, "k = {k}: switches");
        let ports = t.ports();
        assert!(
            t.switches().all(|s| ports[s].len() == k),
            "k = {k}: every switch has k ports"
        );
        assert!(t.hosts().all(|h| ports[h].len() == 1));
        assert_eq!(Topology::parse_hpcc(&t.to_hpcc(), "w").unwrap(), t);
    }
    assert!(Topology::fat_tree(5, 1, 1).is_err());
    let ls = Topology::leaf_spine(4, 2, 8, 10_000_000_000, 40_000_000_000, 500).unwrap();
    assert_eq!(
        (ls.hosts().count(), ls.switches().count(), ls.links.len()),
        (32, 6, 40)
    );
    assert_eq!(Topology::parse_hpcc(&ls.to_hpcc(), "w").unwrap(), ls);
}

#[test]
fn the_papers_fat_tree_is_128_servers_80_switches_of_8_ports_oversubscribed_4_to_1() {
    let t = Topology::paper_fat_tree(1000);
    assert_eq!(t.hosts().count(), 128);
    assert_eq!(t.switches().count(), 80);
    let ports = t.ports();
    assert!(t.switches().all(|s| ports[s].len() == 8));
    // capacity towards the hosts against capacity towards the core, per switch tier
    let (mut down, mut up) = ([0u64; 3], [0u64; 3]);
    let tier = |n: usize| match n {
        n if t.nodes[n] == NodeKind::Host => 0,
        n if n < 128 + 32 => 1,
        n if n < 128 + 64 => 2,
        _ => 3,
    };
    for l in &t.links {
        let (lo, hi) = if tier(l.a) < tier(l.b) {
            (l.a, l.b)
        } else {
            (l.b, l.a)
        };
        // the link is "up" for the lower node and "down" for the higher
        if tier(lo) >= 1 {
            up[tier(lo) - 1] += l.rate_bps;
        }
        down[tier(hi) - 1] += l.rate_bps;
    }
    assert_eq!(down[0], 2 * up[0], "edge: 2:1");
    assert_eq!(down[1], 2 * up[1], "aggregation: 2:1");
    assert_eq!(
        t.links
            .iter()
            .filter(|l| l.rate_bps == 1_000_000_000)
            .count(),
        128
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Random bytes never panic the readers.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Topology::parse_hpcc(&text, "fuzz");
        let t = Topology::parse_hpcc(HPCC_TOPO, "t").unwrap();
        let _ = parse_hpcc_flows(&text, "fuzz", &t);
    }

    /// Random edits of valid files (a field replaced by an extreme or junk, a line dropped or
    /// repeated) are read or refused, never a panic.
    #[test]
    fn edited_files_never_panic(
        line in 0usize..20,
        field in 0usize..6,
        junk in prop::sample::select(vec![
            "", "-1", "0", "18446744073709551616", "1e308Gbps", "NaN", "inf", "0.5ms",
            "99999999999", "1Tbps", "ns", "Gbps", "1e-9s", "3", "7", "12",
        ]),
        dup in any::<bool>(),
    ) {
        for base in [HPCC_TOPO, HPCC_FLOWS] {
            let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
            let l = line % lines.len();
            let mut f: Vec<String> = lines[l].split_whitespace().map(str::to_string).collect();
            if !f.is_empty() {
                let k = field % f.len();
                f[k] = junk.to_string();
            }
            lines[l] = f.join(" ");
            if dup {
                let x = lines[l].clone();
                lines.insert(l, x);
            }
            let text = lines.join("\n");
            let t = Topology::parse_hpcc(HPCC_TOPO, "t").unwrap();
            let _ = Topology::parse_hpcc(&text, "fuzz");
            let _ = parse_hpcc_flows(&text, "fuzz", &t);
        }
    }
}

mod traffic {
    use capfc::net::topology::{parse_hpcc_flows, Topology};
    use capfc::net::traffic::{flows_to_hpcc, poisson_flows, Cdf};

    const CDF: &str = include_str!("data/cdf_websearch_like.txt");

    #[test]
    fn a_cdf_file_reads_and_its_sizes_follow_it() {
        let c = Cdf::parse(CDF, "cdf").unwrap();
        assert_eq!(c.size_at(0.0), 6000.0);
        assert_eq!(c.size_at(100.0), 20_000_000.0);
        assert_eq!(c.size_at(25.0), 16_000.0, "linear between 20 % and 30 %");
        // the drawn flows' mean size and offered load are the CDF's and the asked load's
        let t = Topology::fat_tree(4, 1_000_000_000, 1000).unwrap();
        let f = poisson_flows(&t, &c, 0.4, 2_000_000_000, 11, 3).unwrap();
        let bytes: u64 = f.iter().map(|x| x.size).sum();
        let mean = bytes as f64 / f.len() as f64;
        assert!(
            (mean / c.mean() - 1.0).abs() < 0.1,
            "mean {mean} against {}",
            c.mean()
        );
        let load = bytes as f64 * 8.0 / 2.0 / (16.0 * 1e9);
        assert!((load / 0.4 - 1.0).abs() < 0.1, "offered load {load}");
        assert!(
            f.windows(2).all(|w| w[0].start_ns <= w[1].start_ns),
            "in start order"
        );
        assert!(f.iter().all(|x| x.src != x.dst && x.src < 16 && x.dst < 16));
        // the same seed gives the same file, another seed another
        let again = flows_to_hpcc(&poisson_flows(&t, &c, 0.4, 2_000_000_000, 11, 3).unwrap());
        assert_eq!(flows_to_hpcc(&f), again);
        assert_ne!(
            flows_to_hpcc(&poisson_flows(&t, &c, 0.4, 2_000_000_000, 12, 3).unwrap()),
            again
        );
        // and what we write, HPCC's reader (ours) reads back
        let (back, rest) = parse_hpcc_flows(&again, "w", &t).unwrap();
        assert_eq!((back, rest), (f, 0));
    }

    #[test]
    fn malformed_cdf_files_are_refused_with_file_line_and_field() {
        for (text, says) in [
            ("100 0\n50 100\n", "c:2: size: 50 after 100"),
            ("100 50\n200 40\n300 100\n", "c:2: percentile: 40 after 50"),
            (
                "100 0\n200 90\n",
                "c:2: percentile: the last percentile is 90",
            ),
            ("100 0\n200 101\n", "c:2: percentile: '101'"),
            ("0 0\n200 100\n", "c:1: size: '0'"),
            ("100\n", "c:1: size percentile: expected two numbers"),
            ("# nothing\n", "c: size percentile: no point"),
        ] {
            match Cdf::parse(text, "c") {
                Ok(c) => panic!("{text:?} accepted: {c:?}"),
                Err(e) => assert!(
                    e.to_string().contains(says),
                    "{text:?}: said {e}, not {says:?}"
                ),
            }
        }
        let c = Cdf::parse(CDF, "cdf").unwrap();
        let t = Topology::fat_tree(4, 1_000_000_000, 1000).unwrap();
        assert!(poisson_flows(&t, &c, 0.0, 1000, 1, 3).is_err());
        assert!(poisson_flows(&t, &c, 1.5, 1000, 1, 3).is_err());
    }
}
