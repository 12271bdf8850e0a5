//! A network of hosts and switches joined by full-duplex links, each with its own rate and
//! propagation delay: read from HPCC's ns-3 `topology.txt` as it is, written back in the same
//! format, or generated (a `k`-ary fat tree, leaf-spine, the paper's fat tree).
//!
//! HPCC's `topology.txt` (`simulation/mix/` of HPCC's repository):
//!
//! ```text
//! node_num switch_num link_num
//! switch_id switch_id ...            (switch_num node ids; every other node is a host)
//! src dst rate delay error_rate      (link_num lines, e.g. "0 320 100Gbps 1000ns 0.000000")
//! ```
//!
//! Rates take `bps`, `Kbps`, `Mbps`, `Gbps` (and `Kb/s`...; decimal prefixes), delays `s`, `ms`,
//! `us`, `ns`. A topology is refused, with the file, the line and the field, when a count disagrees
//! with what follows, a link names a node that does not exist or joins a node to itself, two links
//! join the same pair, a rate or a delay is missing, zero or not a number, the error rate is not in
//! [0, 1], a node is listed twice as a switch, a host has no link, or some host cannot reach
//! another.

use std::collections::{HashSet, VecDeque};
use std::fmt;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

/// One full-duplex link.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub a: usize,
    pub b: usize,
    /// Bits per second, each way.
    pub rate_bps: u64,
    /// Propagation delay, nanoseconds.
    pub delay_ns: u64,
    /// HPCC's error rate (a probability a packet is corrupted); kept and written back, 0 in every
    /// generated topology.
    pub error_rate: f64,
}

/// Hosts, switches and links.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    pub nodes: Vec<NodeKind>,
    pub links: Vec<Link>,
}

/// A topology file that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopoError {
    pub file: String,
    /// 1-based line (0: the file as a whole).
    pub line: usize,
    pub field: String,
    pub msg: String,
}

impl fmt::Display for TopoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}: {}", self.file, self.field, self.msg)
        } else {
            write!(
                f,
                "{}:{}: {}: {}",
                self.file, self.line, self.field, self.msg
            )
        }
    }
}

impl std::error::Error for TopoError {}

/// A generated topology's shape out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("k = {0}: a fat tree takes an even k from 2 to 64")]
    FatTree(usize),
    #[error("leaf-spine of {leaves} leaves, {spines} spines, {hosts_per_leaf} hosts a leaf: each at least 1")]
    LeafSpine {
        leaves: usize,
        spines: usize,
        hosts_per_leaf: usize,
    },
}

/// `100Gbps`, `1Gb/s`, `400Mbps`, `1e9bps`, ... in bits per second.
pub fn parse_rate(s: &str) -> Option<u64> {
    let l = s.to_ascii_lowercase();
    let body = l
        .strip_suffix("bps")
        .or_else(|| l.strip_suffix("b/s"))
        .unwrap_or(&l);
    let (num, mult) = match body.chars().last()? {
        'k' => (&body[..body.len() - 1], 1e3),
        'm' => (&body[..body.len() - 1], 1e6),
        'g' => (&body[..body.len() - 1], 1e9),
        't' => (&body[..body.len() - 1], 1e12),
        _ => (body, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    let bps = v * mult;
    (bps.is_finite() && (1.0..1e15).contains(&bps)).then(|| bps.round() as u64)
}

/// `1000ns`, `0.001ms`, `1us`, `2s` in nanoseconds.
pub fn parse_delay(s: &str) -> Option<u64> {
    let l = s.to_ascii_lowercase();
    let (num, mult) = if let Some(n) = l.strip_suffix("ns") {
        (n, 1.0)
    } else if let Some(n) = l.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = l.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = l.strip_suffix('s') {
        (n, 1e9)
    } else {
        return None;
    };
    let v: f64 = num.parse().ok()?;
    let ns = v * mult;
    (ns.is_finite() && (0.0..1e15).contains(&ns)).then(|| ns.round() as u64)
}

fn fmt_rate(bps: u64) -> String {
    for (m, u) in [
        (1_000_000_000u64, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "Kbps"),
    ] {
        if bps.is_multiple_of(m) {
            return format!("{}{u}", bps / m);
        }
    }
    format!("{bps}bps")
}

/// The error of `file` at `line` (0: the file as a whole), in `field`.
pub(crate) fn error_of(file: &str) -> impl Fn(usize, &str, String) -> TopoError + '_ {
    move |line, field, msg| TopoError {
        file: file.to_string(),
        line,
        field: field.to_string(),
        msg,
    }
}

/// The non-blank lines of `text`: (1-based line number, whitespace-separated fields).
fn records(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty())
}

/// Record `k` of the `n` that the field `count` announced, which must have the fields of
/// `layout` (`what` names one record in the message).
fn record<'a>(
    lines: &mut impl Iterator<Item = (usize, Vec<&'a str>)>,
    err: &impl Fn(usize, &str, String) -> TopoError,
    (count, n, k): (&str, usize, usize),
    what: &str,
    layout: &str,
) -> Result<(usize, Vec<&'a str>), TopoError> {
    let (ln, f) = lines.next().ok_or_else(|| {
        err(
            0,
            count,
            format!("{count} says {n}, the file has {k} {what}s"),
        )
    })?;
    let want = layout.split(' ').count();
    if f.len() != want {
        return Err(err(
            ln,
            what,
            format!("expected '{layout}', found {} fields", f.len()),
        ));
    }
    Ok((ln, f))
}

/// A field of a count or a node id: a non-negative integer.
fn hpcc_num(
    err: &impl Fn(usize, &str, String) -> TopoError,
    ln: usize,
    field: &str,
    s: &str,
) -> Result<usize, TopoError> {
    s.parse::<usize>()
        .map_err(|_| err(ln, field, format!("'{s}' is not a non-negative integer")))
}

/// The first line of `topology.txt`: (node_num, switch_num, link_num).
fn hpcc_header<'a>(
    lines: &mut impl Iterator<Item = (usize, Vec<&'a str>)>,
    err: &impl Fn(usize, &str, String) -> TopoError,
) -> Result<(usize, usize, usize), TopoError> {
    let (ln, head) = lines.next().ok_or_else(|| {
        err(
            0,
            "node_num switch_num link_num",
            "the file is empty".into(),
        )
    })?;
    if head.len() != 3 {
        return Err(err(
            ln,
            "node_num switch_num link_num",
            format!("expected 3 numbers, found {}", head.len()),
        ));
    }
    let n = hpcc_num(err, ln, "node_num", head[0])?;
    let ns = hpcc_num(err, ln, "switch_num", head[1])?;
    let nl = hpcc_num(err, ln, "link_num", head[2])?;
    if n == 0 || n > 1_000_000 {
        return Err(err(ln, "node_num", format!("{n} nodes (1 to 10^6)")));
    }
    if ns > n {
        return Err(err(
            ln,
            "switch_num",
            format!("{ns} switches among {n} nodes"),
        ));
    }
    Ok((n, ns, nl))
}

/// The line of the `ns` switch ids: marks those nodes switches.
fn hpcc_switch_ids<'a>(
    lines: &mut impl Iterator<Item = (usize, Vec<&'a str>)>,
    err: &impl Fn(usize, &str, String) -> TopoError,
    ns: usize,
    nodes: &mut [NodeKind],
) -> Result<(), TopoError> {
    let n = nodes.len();
    let (ln, ids) = lines.next().ok_or_else(|| {
        err(
            0,
            "switch ids",
            format!("the line of {ns} switch ids is missing"),
        )
    })?;
    if ids.len() != ns {
        return Err(err(
            ln,
            "switch ids",
            format!("switch_num says {ns}, the line lists {}", ids.len()),
        ));
    }
    for s in ids {
        let id = hpcc_num(err, ln, "switch id", s)?;
        if id >= n {
            return Err(err(
                ln,
                "switch id",
                format!("node {id} does not exist (nodes 0..={})", n - 1),
            ));
        }
        if nodes[id] == NodeKind::Switch {
            return Err(err(ln, "switch id", format!("node {id} is listed twice")));
        }
        nodes[id] = NodeKind::Switch;
    }
    Ok(())
}

/// A link line's fields `src dst rate delay error_rate`, between two of the `n` nodes and not
/// a second link between them (`pairs`: the node pairs linked so far).
fn hpcc_link(
    err: &impl Fn(usize, &str, String) -> TopoError,
    ln: usize,
    f: &[&str],
    n: usize,
    pairs: &mut HashSet<(usize, usize)>,
) -> Result<Link, TopoError> {
    let a = hpcc_num(err, ln, "src", f[0])?;
    let b = hpcc_num(err, ln, "dst", f[1])?;
    for (field, x) in [("src", a), ("dst", b)] {
        if x >= n {
            return Err(err(
                ln,
                field,
                format!("node {x} does not exist (nodes 0..={})", n - 1),
            ));
        }
    }
    if a == b {
        return Err(err(ln, "dst", format!("a link from node {a} to itself")));
    }
    if !pairs.insert((a.min(b), a.max(b))) {
        return Err(err(
            ln,
            "dst",
            format!("a second link between nodes {a} and {b}"),
        ));
    }
    let rate_bps = parse_rate(f[2]).ok_or_else(|| {
        err(
            ln,
            "rate",
            format!("'{}' is not a positive rate (e.g. 1Gbps, 400Mbps)", f[2]),
        )
    })?;
    let delay_ns = parse_delay(f[3]).ok_or_else(|| {
        err(
            ln,
            "delay",
            format!("'{}' is not a delay (e.g. 1000ns, 0.001ms, 1us)", f[3]),
        )
    })?;
    let error_rate: f64 = f[4]
        .parse()
        .ok()
        .filter(|e: &f64| (0.0..=1.0).contains(e))
        .ok_or_else(|| {
            err(
                ln,
                "error_rate",
                format!("'{}' is not a probability in [0, 1]", f[4]),
            )
        })?;
    Ok(Link {
        a,
        b,
        rate_bps,
        delay_ns,
        error_rate,
    })
}

impl Topology {
    pub fn hosts(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(|&i| self.nodes[i] == NodeKind::Host)
    }

    pub fn switches(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(|&i| self.nodes[i] == NodeKind::Switch)
    }

    /// Per node, its links' far ends in link order (port k of a node is its k-th link).
    pub fn ports(&self) -> Vec<Vec<usize>> {
        let mut p = vec![vec![]; self.nodes.len()];
        for l in &self.links {
            p[l.a].push(l.b);
            p[l.b].push(l.a);
        }
        p
    }

    /// Read HPCC's `topology.txt`; `file` names it in errors.
    pub fn parse_hpcc(text: &str, file: &str) -> Result<Topology, TopoError> {
        let err = error_of(file);
        let mut lines = records(text);
        let (n, ns, nl) = hpcc_header(&mut lines, &err)?;
        let mut nodes = vec![NodeKind::Host; n];
        if ns > 0 {
            hpcc_switch_ids(&mut lines, &err, ns, &mut nodes)?;
        }
        // the count is the file's word: room grows with the lines actually there
        let mut links = Vec::with_capacity(nl.min(1 << 16));
        let mut pairs = HashSet::new();
        for k in 0..nl {
            let (ln, f) = record(
                &mut lines,
                &err,
                ("link_num", nl, k),
                "link",
                "src dst rate delay error_rate",
            )?;
            links.push(hpcc_link(&err, ln, &f, n, &mut pairs)?);
        }
        if let Some((ln, _)) = lines.next() {
            return Err(err(
                ln,
                "link_num",
                format!("link_num says {nl}, but the file goes on"),
            ));
        }
        let t = Topology { nodes, links };
        t.check_connected()
            .map_err(|(field, msg)| err(0, &field, msg))?;
        Ok(t)
    }

    /// Every host has a link and reaches every other host.
    pub fn check_connected(&self) -> Result<(), (String, String)> {
        let ports = self.ports();
        let Some(first) = self.hosts().next() else {
            return Err(("hosts".into(), "the topology has no host".into()));
        };
        if let Some(h) = self.hosts().find(|&h| ports[h].is_empty()) {
            return Err((
                format!("node {h}"),
                format!("host {h} has no link (no link line names node {h})"),
            ));
        }
        let mut seen = vec![false; self.nodes.len()];
        let mut q = VecDeque::from([first]);
        seen[first] = true;
        while let Some(x) = q.pop_front() {
            for &y in &ports[x] {
                if !seen[y] {
                    seen[y] = true;
                    q.push_back(y);
                }
            }
        }
        if let Some(h) = self.hosts().find(|&h| !seen[h]) {
            return Err((
                format!("node {h}"),
                format!("host {h} cannot reach host {first}: the network is in pieces"),
            ));
        }
        Ok(())
    }

    /// HPCC's `topology.txt` of this topology (what [`Topology::parse_hpcc`] reads back equal).
    pub fn to_hpcc(&self) -> String {
        let sw: Vec<String> = self.switches().map(|s| s.to_string()).collect();
        let mut s = format!("{} {} {}\n", self.nodes.len(), sw.len(), self.links.len());
        s += &sw.join(" ");
        s.push('\n');
        for l in &self.links {
            s += &format!(
                "{} {} {} {}ns {:.6}\n",
                l.a,
                l.b,
                fmt_rate(l.rate_bps),
                l.delay_ns,
                l.error_rate
            );
        }
        s
    }

    /// A `k`-ary fat tree (k even): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core
    /// switches, k^3/4 hosts, every link `rate_bps` and `delay_ns`. Nodes: hosts first (host h
    /// under edge switch h / (k/2)), then edge, aggregation and core switches. Edge switch j of a
    /// pod links to every aggregation switch of its pod; aggregation switch j of every pod links to
    /// core switches j*k/2 .. (j+1)*k/2 - 1.
    pub fn fat_tree(k: usize, rate_bps: u64, delay_ns: u64) -> Result<Topology, ShapeError> {
        if k < 2 || !k.is_multiple_of(2) || k > 64 {
            return Err(ShapeError::FatTree(k));
        }
        let h = k / 2;
        let hosts = k * h * h;
        let (edge0, agg0, core0) = (hosts, hosts + k * h, hosts + 2 * k * h);
        let n = core0 + h * h;
        let mut nodes = vec![NodeKind::Switch; n];
        nodes[..hosts].fill(NodeKind::Host);
        let link = |a, b| Link {
            a,
            b,
            rate_bps,
            delay_ns,
            error_rate: 0.0,
        };
        let mut links = vec![];
        for x in 0..hosts {
            links.push(link(x, edge0 + x / h));
        }
        for p in 0..k {
            for e in 0..h {
                for a in 0..h {
                    links.push(link(edge0 + p * h + e, agg0 + p * h + a));
                }
            }
        }
        for p in 0..k {
            for a in 0..h {
                for c in 0..h {
                    links.push(link(agg0 + p * h + a, core0 + a * h + c));
                }
            }
        }
        Ok(Topology { nodes, links })
    }

    /// Leaf-spine: `leaves` leaf switches of `hosts_per_leaf` hosts each, every leaf linked to every
    /// one of `spines` spine switches. Hosts first, then leaves, then spines.
    pub fn leaf_spine(
        leaves: usize,
        spines: usize,
        hosts_per_leaf: usize,
        host_rate_bps: u64,
        fabric_rate_bps: u64,
        delay_ns: u64,
    ) -> Result<Topology, ShapeError> {
        if leaves == 0 || spines == 0 || hosts_per_leaf == 0 || leaves * hosts_per_leaf > 100_000 {
            return Err(ShapeError::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
            });
        }
        let hosts = leaves * hosts_per_leaf;
        let (leaf0, spine0) = (hosts, hosts + leaves);
        let mut nodes = vec![NodeKind::Switch; spine0 + spines];
        nodes[..hosts].fill(NodeKind::Host);
        let mut links = vec![];
        for x in 0..hosts {
            links.push(Link {
                a: x,
                b: leaf0 + x / hosts_per_leaf,
                rate_bps: host_rate_bps,
                delay_ns,
                error_rate: 0.0,
            });
        }
        for l in 0..leaves {
            for s in 0..spines {
                links.push(Link {
                    a: leaf0 + l,
                    b: spine0 + s,
                    rate_bps: fabric_rate_bps,
                    delay_ns,
                    error_rate: 0.0,
                });
            }
        }
        Ok(Topology { nodes, links })
    }

    /// The paper's network (Section IV: "a Fat-Tree topology with 8-port 128 servers and 80
    /// switches", 1 Gb/s, "total subscription ratio is 4, two from ToR to aggregate and two from
    /// aggregate to core"). 128 servers and 80 switches of 8 ports are exactly the k = 8 fat tree,
    /// which is not oversubscribed when every link runs at the same rate; with 8-port switches and
    /// 1 Gb/s host links the stated ratios then come from the rates of the switch-to-switch links:
    /// edge to aggregation at 1/2 Gb/s (4 Gb/s down, 2 Gb/s up: 2:1), aggregation to core at
    /// 1/4 Gb/s (2 Gb/s down, 1 Gb/s up: 2:1), 4:1 from a host to the core. Wiring and path
    /// diversity stay the fat tree's; `delay_ns` on every link.
    pub fn paper_fat_tree(delay_ns: u64) -> Topology {
        let mut t = Topology::fat_tree(8, 1_000_000_000, delay_ns).expect("k = 8 is a fat tree");
        let hosts = 128;
        let core0 = hosts + 2 * 32;
        for l in &mut t.links {
            if l.a >= hosts {
                l.rate_bps = if l.b >= core0 {
                    250_000_000
                } else {
                    500_000_000
                };
            }
        }
        t
    }
}

/// One flow of HPCC's `flow.txt`.
#[derive(Debug, Clone, PartialEq)]
pub struct NetFlow {
    pub src: usize,
    pub dst: usize,
    /// Priority group (HPCC's `pg`): the 802.1p priority, 0..=7.
    pub prio: u8,
    pub dport: u16,
    /// Bytes.
    pub size: u64,
    /// Start time, nanoseconds.
    pub start_ns: u64,
}

/// Read HPCC's `flow.txt` (`flow_num`, then `src dst pg dport size start_time` lines, the start
/// in seconds, in ascending order) against `topo`. As HPCC does, only the first `flow_num` flows
/// are read; the number of lines left unread is returned so that the caller can say so.
pub fn parse_hpcc_flows(
    text: &str,
    file: &str,
    topo: &Topology,
) -> Result<(Vec<NetFlow>, usize), TopoError> {
    let err = error_of(file);
    let mut lines = records(text);
    let (ln, head) = lines
        .next()
        .ok_or_else(|| err(0, "flow_num", "the file is empty".into()))?;
    let n: usize = match head.as_slice() {
        [x] => x
            .parse()
            .map_err(|_| err(ln, "flow_num", format!("'{x}' is not a count")))?,
        _ => {
            return Err(err(
                ln,
                "flow_num",
                "the first line is the number of flows alone".into(),
            ))
        }
    };
    let mut flows = Vec::with_capacity(n.min(1 << 16));
    let mut last = 0u64;
    for k in 0..n {
        let (ln, f) = record(
            &mut lines,
            &err,
            ("flow_num", n, k),
            "flow",
            "src dst pg dport size start_time",
        )?;
        let host = |field: &str, s: &str| -> Result<usize, TopoError> {
            let x: usize = s
                .parse()
                .map_err(|_| err(ln, field, format!("'{s}' is not a node id")))?;
            if x >= topo.nodes.len() || topo.nodes[x] != NodeKind::Host {
                return Err(err(ln, field, format!("node {x} is not a host")));
            }
            Ok(x)
        };
        let src = host("src", f[0])?;
        let dst = host("dst", f[1])?;
        if src == dst {
            return Err(err(ln, "dst", format!("a flow from host {src} to itself")));
        }
        let prio: u8 = f[2]
            .parse()
            .ok()
            .filter(|p| *p < 8)
            .ok_or_else(|| err(ln, "pg", format!("'{}' is not a priority 0..=7", f[2])))?;
        let dport: u16 = f[3]
            .parse()
            .map_err(|_| err(ln, "dport", format!("'{}' is not a port 0..=65535", f[3])))?;
        let size: u64 = f[4].parse().ok().filter(|s| *s > 0).ok_or_else(|| {
            err(
                ln,
                "size",
                format!("'{}' is not a positive byte count", f[4]),
            )
        })?;
        let secs: f64 = f[5]
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && (0.0..1e6).contains(s))
            .ok_or_else(|| {
                err(
                    ln,
                    "start_time",
                    format!("'{}' is not a time in seconds", f[5]),
                )
            })?;
        let start_ns = (secs * 1e9).round() as u64;
        if start_ns < last {
            return Err(err(
                ln,
                "start_time",
                "flows must be in ascending start time (HPCC's rule)".into(),
            ));
        }
        last = start_ns;
        flows.push(NetFlow {
            src,
            dst,
            prio,
            dport,
            size,
            start_ns,
        });
    }
    Ok((flows, lines.count()))
}
