//! The crate's layering (`capfc::LAYERS`): no module's code names a module of a higher layer, and
//! every module of the crate is placed in the list.

use std::collections::BTreeMap;
use std::path::Path;

/// Each top-level module's source text, its tests left out (from `#[cfg(test)]` on; `tests.rs`
/// files whole) and comment lines dropped.
fn sources() -> BTreeMap<String, String> {
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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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

#[test]
fn no_module_names_a_higher_layer() {
    let mods = sources();
    let layers = capfc::LAYERS;
    for m in mods.keys() {
        assert!(
            layers.contains(&m.as_str()),
            "src/{m}: a module that capfc::LAYERS does not place"
        );
    }
    let mut checked = 0;
    for (m, code) in &mods {
        let rank = layers.iter().position(|l| l == m).unwrap();
        for n in named(code, layers) {
            let r = layers.iter().position(|l| *l == n).unwrap();
            assert!(
                r <= rank,
                "src/{m} (layer {rank}) names crate::{n} (layer {r}), a higher layer"
            );
            checked += 1;
        }
    }
    assert!(
        checked > 20,
        "only {checked} references found: the scan is broken"
    );
}

/// The scan sees an upward reference, in both forms of path.
#[test]
fn the_scan_finds_paths_and_braces() {
    let layers = ["a", "b", "c"];
    assert_eq!(named("use crate::c::X;", &layers), ["c"]);
    assert_eq!(named("use crate::{b::Y, c};", &layers), ["b", "c"]);
    assert_eq!(named("crate::block::Z", &layers), Vec::<String>::new());
}
