//! The layering of the workspace: each crate depends only on crates below it ([`CRATES`]), and
//! within each crate of several modules (`capfc`, `capfc-rtl`, `capfc-switch`, `capfc-vectors`: their `LAYERS`) no
//! module's code names a module of a higher layer, and every module is placed in the list.

use std::collections::BTreeMap;
use std::path::Path;

/// The workspace's crates from the lowest to the highest, each with its directory.
const CRATES: &[(&str, &str)] = &[
    ("capfc-block", "crates/block"),
    ("capfc-check", "crates/check"),
    ("capfc-rtl", "crates/rtl"),
    ("capfc-switch", "crates/switch"),
    ("capfc-net", "crates/net"),
    ("capfc-vectors", "crates/vectors"),
    ("capfc", "."),
    ("capfc-cli", "crates/cli"),
    ("capfc-capi", "capi"),
    ("capfc-py", "python"),
];

/// Each top-level module's source text in crate directory `dir`, its tests left out (from
/// `#[cfg(test)]` on; `tests.rs` files whole) and comment lines dropped.
fn sources(dir: &str) -> BTreeMap<String, String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join("src");
    let mut files = vec![];
    walk(&src, &mut files);
    let mut mods: BTreeMap<String, String> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().to_string();
        if rel == "lib.rs" || rel.ends_with("/tests.rs") {
            continue;
        }
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        mods.entry(top).or_default().push_str(&code);
    }
    mods
}

/// The crate's modules a text names through `crate::` paths (`crate::x::...`, `crate::{x, y}`).
fn named(code: &str, modules: &[&str]) -> Vec<String> {
    let mut out = vec![];
    for (k, _) in code.match_indices("crate::") {
        let rest = &code[k + "crate::".len()..];
        let names: Vec<&str> = if let Some(inner) = rest.strip_prefix('{') {
            inner[..inner.find('}').unwrap_or(inner.len())]
                .split(',')
                .map(|n| n.trim().split("::").next().unwrap_or("").trim())
                .collect()
        } else {
            vec![rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")]
        };
        for n in names {
            if modules.contains(&n) {
                out.push(n.to_string());
            }
        }
    }
    out
}

/// The modules of crate directory `dir` against its `layers`; the references checked.
fn check_layers(dir: &str, layers: &[&str]) -> usize {
    let mods = sources(dir);
    for m in mods.keys() {
        assert!(
            layers.contains(&m.as_str()),
            "{dir}/src/{m}: a module that its crate's LAYERS does not place"
        );
    }
    let mut checked = 0;
    for (m, code) in &mods {
        let rank = layers.iter().position(|l| l == m).unwrap();
        for n in named(code, layers) {
            let r = layers.iter().position(|l| *l == n).unwrap();
            assert!(
                r <= rank,
                "{dir}/src/{m} (layer {rank}) names crate::{n} (layer {r}), a higher layer"
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn no_module_names_a_higher_layer() {
    let checked = check_layers(".", capfc::LAYERS)
        + check_layers("crates/rtl", capfc_rtl::LAYERS)
        + check_layers("crates/switch", capfc_switch::LAYERS)
        + check_layers("crates/vectors", capfc_vectors::LAYERS);
    assert!(
        checked > 20,
        "only {checked} references found: the scan is broken"
    );
}

/// The `capfc-*` crates a manifest's `[dependencies]` name (the build and dev sections left out).
fn manifest_deps(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut in_deps = false;
    for l in text.lines().map(str::trim) {
        if l.starts_with('[') {
            in_deps = l == "[dependencies]";
        } else if in_deps {
            let name = l.split(['=', ' ']).next().unwrap_or("");
            if name == "capfc" || name.starts_with("capfc-") {
                out.push(name.to_string());
            }
        }
    }
    out
}

#[test]
fn every_crate_depends_only_on_crates_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for (rank, (name, dir)) in CRATES.iter().enumerate() {
        let path = root.join(dir).join("Cargo.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("name = \"{name}\"")),
            "{}: not the manifest of {name}",
            path.display()
        );
        for d in manifest_deps(&text) {
            let r = CRATES.iter().position(|(n, _)| *n == d).unwrap_or_else(|| {
                panic!(
                    "{}: depends on {d}, which CRATES does not place",
                    path.display()
                )
            });
            assert!(
                r < rank,
                "{}: {name} depends on {d}, a crate above it",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "only {checked} dependencies found: the scan is broken"
    );
}

/// The manifest scan reads the dependencies' section only.
#[test]
fn the_manifest_scan_reads_dependencies() {
    let text = "[package]\nname = \"capfc-x\"\n[dependencies]\ncapfc-block = { path = \"b\" }\nserde = \"1\"\n[dev-dependencies]\ncapfc = { path = \".\" }\n";
    assert_eq!(manifest_deps(text), ["capfc-block"]);
}

/// The scan sees an upward reference, in both forms of path.
#[test]
fn the_scan_finds_paths_and_braces() {
    let layers = ["a", "b", "c"];
    assert_eq!(named("use crate::c::X;", &layers), ["c"]);
    assert_eq!(named("use crate::{b::Y, c};", &layers), ["b", "c"]);
    assert_eq!(named("crate::block::Z", &layers), Vec::<String>::new());
}
