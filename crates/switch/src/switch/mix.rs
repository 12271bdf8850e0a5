//! The paper's Table I traffic mix, drawn at load time: the scenario's `[mix]` table.
//!
//! Three classes, each optional, each on its own priority (the scheduler says whether that priority
//! is strict or WDRR):
//! - `long`: background flows (1 MB in the paper); every input port starts them at exponentially
//!   distributed intervals of mean `mean_gap` cycles, each to a uniformly chosen other output;
//! - `short`: messages (64 KB or 16 KB), drawn the same way;
//! - `query`: incast. Queries start at exponentially distributed intervals of mean `mean_gap` cycles
//!   (switch-wide); each picks an aggregator output (uniformly, or the fixed `aggregator`) and
//!   `responses` flows of `bytes` start at once towards it, dealt round robin over the other ports.
//!
//! **Scaling the paper's network to one switch.** The paper runs a fat tree of 8-port switches with
//! 128 servers; a query is answered by 40 randomly chosen servers at once, so 40 × 16 KB converge on
//! the aggregator's 1 Gb/s link. On one 8-port switch every port stands for a group of servers: the
//! 40 responses come from the 7 other ports (5 ports carry 6 of them, 2 carry 5, each port's sender
//! interleaving its responses round robin), so the aggregator's link receives the same 640 KB burst
//! at the same line rate, and the responses meet in one egress queue as in the paper's last hop.
//! Long and short flows go from every port to uniformly chosen other ports, as the paper picks
//! end-nodes uniformly.
//!
//! Each class draws from its own stream of the seeded ChaCha8 generator, so changing one class (the
//! short flows' size in scenario 2, say) leaves the others' flows exactly as they were.

use super::config::FlowSpec;
use crate::block::NPRIO;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Long or short flows: from every input, `bytes` each, mean `mean_gap` cycles apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Background {
    pub prio: u8,
    pub bytes: u64,
    pub mean_gap: u64,
}

/// Query (incast) traffic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    pub prio: u8,
    /// Bytes of each response.
    pub bytes: u64,
    /// Mean cycles between two queries, switch-wide.
    pub mean_gap: u64,
    /// Responses per query (the paper's 40 senders).
    #[serde(default = "default_responses")]
    pub responses: u32,
    /// Always this output; left out, a uniformly drawn one per query.
    #[serde(default)]
    pub aggregator: Option<usize>,
}

fn default_responses() -> u32 {
    40
}

/// The `[mix]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mix {
    pub seed: u64,
    /// Flows start in [0, duration) cycles.
    pub duration: u64,
    #[serde(default)]
    pub long: Option<Background>,
    #[serde(default)]
    pub short: Option<Background>,
    #[serde(default)]
    pub query: Option<Query>,
}

/// The most flows a class may be expected to draw: a bound on memory and run time, far above any
/// run that finishes in minutes.
const MAX_FLOWS: u64 = 1_000_000;

/// Exponentially distributed gap of mean `mean`.
/// An exponentially distributed gap of mean `mean` (inverse transform).
pub(crate) fn exp_gap(rng: &mut ChaCha8Rng, mean: f64) -> f64 {
    -mean * (1.0 - rng.gen::<f64>()).ln()
}

/// A port other than `src`, uniformly among the `ports - 1` others.
pub(crate) fn other_port(rng: &mut ChaCha8Rng, src: usize, ports: usize) -> usize {
    let dst = rng.gen_range(0..ports - 1);
    if dst >= src {
        dst + 1
    } else {
        dst
    }
}

impl Mix {
    /// Reject a table that cannot be drawn for `ports` ports: (field, why).
    ///
    /// (Long, as a flat list of one rule a field, in the file's order.)
    pub fn validate(&self, ports: usize) -> Result<(), (String, String)> {
        let bad = |f: &str, w: String| Err((format!("mix.{f}"), w));
        if ports < 2 {
            return Err((
                "ports".into(),
                format!("{ports}: a [mix] needs at least 2 ports (flows go to other ports)"),
            ));
        }
        if self.duration == 0 {
            return bad("duration", "must be at least 1 cycle".into());
        }
        let classes = [
            (
                "long",
                self.long.as_ref().map(|b| (b.prio, b.bytes, b.mean_gap)),
            ),
            (
                "short",
                self.short.as_ref().map(|b| (b.prio, b.bytes, b.mean_gap)),
            ),
            (
                "query",
                self.query.as_ref().map(|q| (q.prio, q.bytes, q.mean_gap)),
            ),
        ];
        if classes.iter().all(|c| c.1.is_none()) {
            return bad("", "names no class (long, short or query)".into());
        }
        for (name, c) in classes {
            let Some((prio, bytes, gap)) = c else {
                continue;
            };
            if usize::from(prio) >= NPRIO {
                return bad(
                    &format!("{name}.prio"),
                    format!("{prio} is not a priority (0..=7)"),
                );
            }
            if bytes == 0 {
                return bad(
                    &format!("{name}.bytes"),
                    "a flow needs at least one byte".into(),
                );
            }
            if gap == 0 {
                return bad(
                    &format!("{name}.mean_gap"),
                    "must be at least 1 cycle".into(),
                );
            }
            // Flows expected: per port for long and short, per query times its responses.
            let per = match (name, &self.query) {
                ("query", Some(q)) => u64::from(q.responses),
                _ => ports as u64,
            };
            let expected = (self.duration / gap).saturating_mul(per);
            if expected > MAX_FLOWS {
                return bad(
                    &format!("{name}.mean_gap"),
                    format!(
                        "{gap} cycles over a duration of {} draws about {expected} flows, more \
                         than the {MAX_FLOWS} a run can hold",
                        self.duration
                    ),
                );
            }
        }
        if let Some(q) = &self.query {
            if q.responses == 0 {
                return bad(
                    "query.responses",
                    "a query needs at least one response".into(),
                );
            }
            if let Some(a) = q.aggregator {
                if a >= ports {
                    return bad(
                        "query.aggregator",
                        format!("port {a} does not exist on a {ports}-port switch"),
                    );
                }
            }
        }
        let (long, short) = (self.long.as_ref(), self.short.as_ref());
        let prios = [
            ("long", long.map(|b| b.prio)),
            ("short", short.map(|b| b.prio)),
            ("query", self.query.as_ref().map(|q| q.prio)),
        ];
        for (k, (a, pa)) in prios.iter().enumerate() {
            for (b, pb) in &prios[k + 1..] {
                if pa.is_some() && pa == pb {
                    return bad(
                        &format!("{b}.prio"),
                        format!(
                            "priority {} is also {a}'s: each class needs its own priority, or \
                             their statistics and scheduling mix",
                            pa.unwrap()
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// The flows this draws for a switch of `ports` ports, classes "long", "short" and "query".
    pub fn flows(&self, ports: usize) -> Vec<FlowSpec> {
        self.draw(ports, false)
    }

    /// The flows this draws over a network's `hosts` hosts (`src`, `dst` host indices): as
    /// [`Mix::flows`], but a query's responders are `responses` distinct hosts drawn uniformly
    /// among the others (as the paper's 40 randomly chosen servers), not dealt round robin.
    pub fn network_flows(&self, hosts: usize) -> Vec<FlowSpec> {
        self.draw(hosts, true)
    }

    fn draw(&self, ports: usize, random_responders: bool) -> Vec<FlowSpec> {
        let mut v = vec![];
        let rng = |stream: u64| {
            let mut r = ChaCha8Rng::seed_from_u64(self.seed);
            r.set_stream(stream);
            r
        };
        let dur = self.duration as f64;
        for (stream, name, bg) in [(1, "long", &self.long), (2, "short", &self.short)] {
            let Some(bg) = bg else { continue };
            let mut r = rng(stream);
            for src in 0..ports {
                let mut t = exp_gap(&mut r, bg.mean_gap as f64);
                while t < dur {
                    let dst = other_port(&mut r, src, ports);
                    v.push(FlowSpec {
                        src,
                        dst,
                        prio: bg.prio,
                        bytes: bg.bytes,
                        start: t as u64,
                        class: name.into(),
                    });
                    t += exp_gap(&mut r, bg.mean_gap as f64);
                }
            }
        }
        if let Some(q) = &self.query {
            let mut r = rng(3);
            let mut t = exp_gap(&mut r, q.mean_gap as f64);
            while t < dur {
                let agg = match q.aggregator {
                    Some(a) => a,
                    None => r.gen_range(0..ports),
                };
                let responders: Vec<usize> = if random_responders {
                    let others: Vec<usize> = (0..ports).filter(|&h| h != agg).collect();
                    rand::seq::index::sample(
                        &mut r,
                        others.len(),
                        (q.responses as usize).min(others.len()),
                    )
                    .into_iter()
                    .map(|i| others[i])
                    .collect()
                } else {
                    (0..q.responses as usize)
                        .map(|k| (agg + 1 + k % (ports - 1)) % ports)
                        .collect()
                };
                for src in responders {
                    v.push(FlowSpec {
                        src,
                        dst: agg,
                        prio: q.prio,
                        bytes: q.bytes,
                        start: t as u64,
                        class: "query".into(),
                    });
                }
                t += exp_gap(&mut r, q.mean_gap as f64);
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix() -> Mix {
        Mix {
            seed: 7,
            duration: 20_000_000,
            long: Some(Background {
                prio: 1,
                bytes: 1 << 20,
                mean_gap: 1_000_000,
            }),
            short: Some(Background {
                prio: 5,
                bytes: 65536,
                mean_gap: 100_000,
            }),
            query: Some(Query {
                prio: 3,
                bytes: 16384,
                mean_gap: 200_000,
                responses: 40,
                aggregator: None,
            }),
        }
    }

    #[test]
    fn classes_have_their_shape() {
        let m = mix();
        let f = m.flows(8);
        assert_eq!(f, m.flows(8), "not deterministic");
        let of = |c: &str| f.iter().filter(|x| x.class == c).collect::<Vec<_>>();
        let (long, short, query) = (of("long"), of("short"), of("query"));
        for x in &f {
            assert_ne!(x.src, x.dst, "{x:?}");
            assert!(x.start < 20_000_000);
        }
        // Mean gaps: 20 per input for long, 200 for short, 100 queries of 40 responses.
        let near = |n: usize, want: f64| (n as f64 - want).abs() < 0.3 * want;
        assert!(near(long.len(), 160.0), "{} long", long.len());
        assert!(near(short.len(), 1600.0), "{} short", short.len());
        assert_eq!(query.len() % 40, 0);
        assert!(
            near(query.len() / 40, 100.0),
            "{} queries",
            query.len() / 40
        );
        // A query: 40 responses at one instant to one aggregator, from all 7 other ports, 5 or 6
        // each.
        for q in query.chunks(40) {
            assert!(q.iter().all(|x| x.start == q[0].start && x.dst == q[0].dst));
            let mut per = [0; 8];
            for x in q {
                per[x.src] += 1;
            }
            per.sort_unstable();
            assert_eq!(per, [0, 5, 5, 6, 6, 6, 6, 6]);
        }
        // Every output is an aggregator at some point.
        let mut aggs: Vec<usize> = query.iter().map(|x| x.dst).collect();
        aggs.dedup();
        aggs.sort_unstable();
        aggs.dedup();
        assert_eq!(aggs.len(), 8, "aggregators {aggs:?}");
    }

    #[test]
    fn one_class_changed_leaves_the_others_alone() {
        let a = mix();
        let mut b = mix();
        b.short.as_mut().unwrap().bytes = 16384;
        let (fa, fb) = (a.flows(8), b.flows(8));
        let not_short = |f: &[FlowSpec]| {
            f.iter()
                .filter(|x| x.class != "short")
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(not_short(&fa), not_short(&fb));
        let starts = |f: &[FlowSpec]| {
            f.iter()
                .filter(|x| x.class == "short")
                .map(|x| (x.src, x.dst, x.start))
                .collect::<Vec<_>>()
        };
        assert_eq!(starts(&fa), starts(&fb));
        let mut c = mix();
        c.seed = 8;
        assert_ne!(c.flows(8), fa, "the seed changes nothing");
    }

    #[test]
    fn bad_tables_name_the_field() {
        let e = |m: Mix| m.validate(8).unwrap_err();
        let mut m = mix();
        m.short.as_mut().unwrap().prio = 3;
        let (f, w) = e(m);
        assert_eq!(f, "mix.query.prio", "{w}");
        let mut m = mix();
        m.long.as_mut().unwrap().mean_gap = 0;
        assert_eq!(e(m).0, "mix.long.mean_gap");
        let mut m = mix();
        m.query.as_mut().unwrap().aggregator = Some(8);
        assert_eq!(e(m).0, "mix.query.aggregator");
        let mut m = mix();
        m.query.as_mut().unwrap().responses = 0;
        assert_eq!(e(m).0, "mix.query.responses");
        let mut m = mix();
        m.short.as_mut().unwrap().mean_gap = 1;
        let (f, w) = e(m);
        assert!(
            f == "mix.short.mean_gap" && w.contains("160000000 flows"),
            "{f}: {w}"
        );
        assert_eq!(mix().validate(1).unwrap_err().0, "ports");
        assert!(mix().validate(8).is_ok());
    }
}
