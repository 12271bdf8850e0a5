//! Helpers shared by the command line's integration tests (each test file uses some of them).
#![allow(dead_code)] // each test crate compiles this module and uses only part of it

use std::collections::BTreeSet;
use std::io::BufReader;

/// The workspace's root, where the commands run and the project's files are.
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

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

/// The value of `name` at time `t` in the VCD at `path` (its last change at or before `t`), most
/// significant bit first.
pub fn vcd_value_at(path: &str, name: &str, t: u64) -> Option<String> {
    let (vars, p) = vcd_vars(path);
    let code = vars.iter().find(|(_, n)| n == name)?.0;
    let (mut now, mut v) = (0, None);
    for c in p {
        match c.unwrap() {
            vcd::Command::Timestamp(x) => {
                now = x;
                if now > t {
                    break;
                }
            }
            vcd::Command::ChangeScalar(id, x) if id == code => v = Some(x.to_string()),
            vcd::Command::ChangeVector(id, x) if id == code => {
                v = Some(x.iter().map(|b| b.to_string()).collect())
            }
            _ => {}
        }
    }
    let _ = now;
    v
}

/// A 4-port incast (inputs 1 and 2 to output 0 on lossless priority 3) and a victim (input 3 to
/// output 2): the v3 parameter set built by default (`v3_np4`) is the 4-port switch's block.
pub fn incast4() -> capfc::switch::scenario::Scenario {
    capfc::switch::scenario::Scenario::from_toml(
        r#"
name = "incast4"
ports = 4
rto = 1250000
[[flows]]
src = 1
dst = 0
prio = 3
bytes = 131072
class = "incast"
[[flows]]
src = 2
dst = 0
prio = 3
bytes = 131072
class = "incast"
[[flows]]
src = 3
dst = 2
prio = 3
bytes = 262144
class = "victim"
"#,
        "incast4.toml",
    )
    .unwrap()
}

/// `capfc ARGS` with `stdin` on its standard input: (exit status, stdout, stderr).
pub fn capfc(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_capfc"))
        .current_dir(ROOT)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}
