//! `docs/design-space.md`: every TOML example on the page parses with the checker's own readers,
//! and together the examples show every key of the timing envelope, every key of the map and
//! every field of a static configuration's `[config.values]`.
//!
//! An example's first line says what it is: `# envelope` or `# map`, a whole file, parsed as it
//! is; `# envelope (part)` or `# map (part)`, keys and tables that replace those of the page's
//! first whole envelope or map, parsed merged into it.

use capfc::block::BlockConfig;
use capfc::check::Envelope;
use capfc::check_wave::Map;
use std::collections::BTreeSet;
use toml::{Table, Value};

const PAGE: &str = "docs/design-space.md";

fn page() -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE))
        .expect("the page")
}

/// Every ```toml block of a markdown text: (line of its first line, text).
fn toml_blocks(md: &str) -> Vec<(usize, String)> {
    let mut out = vec![];
    let mut cur: Option<(usize, String)> = None;
    for (n, line) in md.lines().enumerate() {
        let t = line.trim();
        match &mut cur {
            None if t == "```toml" => cur = Some((n + 2, String::new())),
            Some(_) if t == "```" => out.push(cur.take().expect("open block")),
            Some((_, s)) => {
                s.push_str(line);
                s.push('\n');
            }
            None => {}
        }
    }
    assert!(cur.is_none(), "{PAGE}: a ```toml block is not closed");
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Envelope,
    Map,
}

/// The keys of a table as dotted paths (`pfc.ready`); arrays of tables add their tables' keys
/// under the array's name (`config.values.prio.eg_xoff`).
fn keys(prefix: &str, t: &Table, out: &mut BTreeSet<String>) {
    for (k, v) in t {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Table(sub) => keys(&path, sub, out),
            Value::Array(a) => {
                for x in a {
                    if let Value::Table(sub) = x {
                        keys(&path, sub, out);
                    }
                }
            }
            _ => {}
        }
        out.insert(path);
    }
}

/// Parse every example; the keys the examples themselves show, per kind.
fn parse_all(md: &str) -> (BTreeSet<String>, BTreeSet<String>, usize) {
    let blocks = toml_blocks(md);
    let mut base: [Option<Table>; 2] = [None, None];
    let (mut env_keys, mut map_keys) = (BTreeSet::new(), BTreeSet::new());
    let mut errors = vec![];
    for (line, text) in &blocks {
        let first = text.lines().next().unwrap_or("").trim();
        let (kind, part) = match first {
            "# envelope" => (Kind::Envelope, false),
            "# map" => (Kind::Map, false),
            "# envelope (part)" => (Kind::Envelope, true),
            "# map (part)" => (Kind::Map, true),
            other => panic!(
                "{PAGE}:{line}: a toml example must start with `# envelope`, `# map`, \
                 `# envelope (part)` or `# map (part)`, not `{other}`"
            ),
        };
        let where_ = format!("{PAGE}:{line}");
        let own: Table = match toml::from_str(text) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("{where_}: not TOML: {e}"));
                continue;
            }
        };
        let slot = &mut base[kind as usize];
        let whole = if part {
            let Some(b) = slot.clone() else {
                panic!("{where_}: a part before the page's whole {kind:?}");
            };
            let mut merged = b;
            for (k, v) in &own {
                merged.insert(k.clone(), v.clone());
            }
            toml::to_string(&merged).expect("a table serialises")
        } else {
            if slot.is_none() {
                *slot = Some(own.clone());
            }
            text.clone()
        };
        let parsed = match kind {
            Kind::Envelope => Envelope::parse(&whole, &where_)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Kind::Map => Map::parse(&whole, &where_)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        };
        match parsed {
            Ok(()) => keys(
                "",
                &own,
                match kind {
                    Kind::Envelope => &mut env_keys,
                    Kind::Map => &mut map_keys,
                },
            ),
            Err(e) => errors.push(e),
        }
    }
    assert!(
        errors.is_empty(),
        "examples of {PAGE} that do not parse:\n{}",
        errors.join("\n")
    );
    (env_keys, map_keys, blocks.len())
}

#[test]
fn every_example_parses_and_every_key_has_one() {
    let (env_keys, map_keys, n) = parse_all(&page());
    assert!(n >= 10, "{PAGE}: {n} toml examples");
    // every key of the envelope, as the checker writes one
    let env = capfc::check::block::envelope_of(&capfc::golden::params_of("np4").unwrap());
    let mut want = BTreeSet::new();
    keys(
        "",
        &toml::from_str(&env.to_toml()).expect("an envelope is TOML"),
        &mut want,
    );
    let missing: Vec<&String> = want.difference(&env_keys).collect();
    assert!(
        missing.is_empty(),
        "envelope keys with no example in {PAGE}: {missing:?}"
    );
    // every field of a static configuration, as the model writes one
    let cfg = BlockConfig::paper(
        &capfc::golden::params_of("np4").unwrap(),
        capfc::block::Mode::StopCal,
    );
    let mut t = Table::new();
    t.insert(
        "values".into(),
        Value::try_from(&cfg).expect("a configuration serialises"),
    );
    let mut want = BTreeSet::new();
    keys("config", &t, &mut want);
    // and every key of the map
    for k in [
        "scope",
        "clock",
        "reset",
        "reset_active_low",
        "reset_clears_config",
        "params.np",
        "params.cell_log2",
        "params.cw",
        "params.cut_f",
        "config.source",
        "config.we",
        "config.addr",
        "config.data",
        "config.ow",
        "arrive.valid",
        "arrive.prio",
        "arrive.size",
        "arrive.accept",
        "arrive.ready",
        "depart.valid",
        "depart.port",
        "depart.prio",
        "depart.size",
        "depart.ready",
        "depart.ready_per_port",
        "enqueue.valid",
        "enqueue.oport",
        "enqueue.prio",
        "enqueue.iport",
        "enqueue.size",
        "enqueue.accept",
        "enqueue.ready",
        "enqueue.ready_per_port",
        "dequeue.valid",
        "dequeue.prio",
        "dequeue.size",
        "dequeue.ready",
        "d.signal",
        "d.order",
        "pfc.valid",
        "pfc.ready",
        "pfc.cev",
        "pfc.xoff",
        "pfc.quanta",
    ] {
        want.insert(k.to_string());
    }
    let missing: Vec<&String> = want.difference(&map_keys).collect();
    assert!(
        missing.is_empty(),
        "map keys with no example in {PAGE}: {missing:?}"
    );
}

#[test]
fn the_reading_refuses_what_it_should() {
    // an example that does not parse, one without its marker, and a missing key are each caught
    let bad = "```toml\n# envelope\naccept_latency = 0\n```\n";
    assert!(std::panic::catch_unwind(|| parse_all(bad)).is_err());
    let unmarked = "```toml\naccept_latency = 0\n```\n";
    assert!(std::panic::catch_unwind(|| parse_all(unmarked)).is_err());
    let page = page();
    let (env_keys, _, _) = parse_all(&page);
    assert!(env_keys.contains("link_bits_per_cycle"));
    let without = page.replace("link_bits_per_cycle = ", "# link_bits_per_cycle = ");
    let (env_keys, _, _) = parse_all(&without);
    assert!(!env_keys.contains("link_bits_per_cycle"));
}
