//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)] // each test crate compiles this module and uses only part of it

use std::collections::BTreeSet;
use std::io::BufReader;

pub type VcdParser = vcd::Parser<BufReader<std::fs::File>>;

/// A VCD file's variables, (code, full name with Verilator's generate scopes left out, except the
/// per-port RAM instances under `gen_port[o]`), and the parser positioned after the header.
pub fn vcd_vars(path: &str) -> (Vec<(vcd::IdCode, String)>, VcdParser) {
    fn walk(items: &[vcd::ScopeItem], path: &str, out: &mut Vec<(vcd::IdCode, String)>) {
        for it in items {
            match it {
                vcd::ScopeItem::Scope(s) => {
                    let id = s.identifier.as_str();
                    let p = if id.starts_with("gen_") && !id.starts_with("gen_port") {
                        path.to_string()
                    } else {
                        format!("{path}{id}.")
                    };
                    walk(&s.items, &p, out);
                }
                vcd::ScopeItem::Var(v) => out.push((v.code, format!("{path}{}", v.reference))),
                _ => {}
            }
        }
    }
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut p = vcd::Parser::new(BufReader::new(f));
    let h = p.parse_header().unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut vars = vec![];
    walk(&h.items, "", &mut vars);
    (vars, p)
}

/// A VCD file's signal names and its last timestamp.
pub fn vcd_names(path: &str) -> (BTreeSet<String>, u64) {
    let (vars, p) = vcd_vars(path);
    let mut last = 0;
    for c in p {
        if let vcd::Command::Timestamp(t) = c.unwrap() {
            last = t;
        }
    }
    (vars.into_iter().map(|(_, n)| n).collect(), last)
}
