//! `capfc step`: scripted sessions (snapshot-tested transcripts), snapshot/restore/back giving the
//! same state as plain stepping, on the model, the RTL and both, and bad input refused with where
//! and why.

mod common;
use capfc::switch::scenario::Scenario;
use capfc::switch::{BlockKind, DutKind, FlowMode, Snapshot, Switch};
use capfc_cli::repl::{run_script, Session};

fn session(dut: DutKind) -> Session {
    Session::new(
        &Scenario::incast_victims(),
        FlowMode::CapfcCal,
        dut,
        BlockKind::V2,
        10_000,
        false,
    )
    .unwrap()
}

fn transcript(dut: DutKind, script: &str) -> String {
    let mut s = session(dut);
    let mut out = vec![];
    run_script(&mut s, "test", script, &mut out).unwrap_or_else(|e| panic!("{e}"));
    String::from_utf8(out).unwrap()
}

/// A debugging session: run until the first XOFF on the default scenario, print the E matrix,
/// step back, snapshot, go on, restore.
const SESSION: &str = "\
run until xoff
print lanes
print E
print C 0 3
print ID
back 200
print summary
snapshot before
break egress 0 3 >= 28000
watch E 0 3
run
print egress 0
print sort
delete all
step 5000
print pfc
restore before
print summary
info breaks
";

#[test]
fn scripted_session_transcript() {
    insta::assert_snapshot!("session_model", transcript(DutKind::Model, SESSION));
}

/// The RTL shows the same registers, so the same session prints the same transcript: `print` reads
/// the Verilated registers, `back` and `restore` write them.
#[cfg(feature = "rtl")]
#[test]
fn the_rtl_and_both_print_the_same_session() {
    let model = transcript(DutKind::Model, SESSION);
    for dut in [DutKind::Rtl, DutKind::Both] {
        assert_eq!(
            transcript(dut, SESSION).replace(&format!("block {}", dut.name()), "block model"),
            model,
            "--dut {} differs from --dut model",
            dut.name()
        );
    }
}

/// The paths at which two JSON values differ (the first few), for failure messages.
fn json_diff(a: &serde_json::Value, b: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    use serde_json::Value as J;
    if out.len() >= 8 || a == b {
        return;
    }
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                json_diff(
                    &x.get(k).cloned().unwrap_or(J::Null),
                    &y.get(k).cloned().unwrap_or(J::Null),
                    &format!("{path}.{k}"),
                    out,
                );
            }
        }
        (J::Array(x), J::Array(y)) if x.len() == y.len() => {
            for (k, (u, v)) in x.iter().zip(y).enumerate() {
                json_diff(u, v, &format!("{path}[{k}]"), out);
            }
        }
        _ => out.push(format!("{path}: {a} vs {b}")),
    }
}

fn same(a: &Snapshot, b: &Snapshot, what: &str) {
    let (x, y) = (a.to_json_value(), b.to_json_value());
    let mut d = vec![];
    json_diff(&x, &y, "", &mut d);
    assert!(d.is_empty(), "{what}: {}", d.join("\n"));
}

fn stepped(sw: &mut Switch, n: u64) -> Snapshot {
    for _ in 0..n {
        sw.tick_cycle();
    }
    assert!(sw.mismatch.is_none(), "{:?}", sw.mismatch);
    sw.snapshot()
}

fn snapshot_restore_step(dut: DutKind) {
    let sc = Scenario::incast_victims();
    let mut a = Switch::new_v2(&sc, FlowMode::CapfcCal, dut).unwrap();
    // Into the congestion: queues, pauses, sorts and timers are all busy.
    stepped(&mut a, 14_000);
    let snap = a.snapshot();
    // Through a file's worth of serialization, into a switch that has done something else.
    let text = snap.to_json();
    let back = Snapshot::from_json(&text).unwrap();
    same(&back, &snap, "a snapshot through JSON");
    let ref_state = stepped(&mut a, 20_000);
    let mut b = Switch::new_v2(&sc, FlowMode::CapfcCal, dut).unwrap();
    stepped(&mut b, 3_333);
    b.restore(&back).unwrap();
    same(&b.snapshot(), &snap, "restore is not the state snapshotted");
    same(&stepped(&mut b, 20_000), &ref_state, dut.name());
}

#[test]
fn snapshot_restore_step_is_stepping_model() {
    snapshot_restore_step(DutKind::Model);
}

#[cfg(feature = "rtl")]
#[test]
fn snapshot_restore_step_is_stepping_rtl_and_both() {
    // `rtl`: the snapshot holds the Verilated registers and restore writes them back; `both`: the
    // model's registers are written into the RTL, and 20,000 cycles of lockstep afterwards find no
    // difference in any register.
    snapshot_restore_step(DutKind::Rtl);
    snapshot_restore_step(DutKind::Both);
}

#[cfg(feature = "rtl")]
#[test]
fn a_model_snapshot_continues_on_the_rtl() {
    let sc = Scenario::incast_victims();
    let mut m = Switch::new_v2(&sc, FlowMode::CapfcMax, DutKind::Model).unwrap();
    stepped(&mut m, 15_000);
    let snap = m.snapshot();
    let mut r = Switch::new_v2(&sc, FlowMode::CapfcMax, DutKind::Rtl).unwrap();
    r.restore(&snap).unwrap();
    let (mut sm, mut sr) = (stepped(&mut m, 30_000), stepped(&mut r, 30_000));
    // Everything but which block it is.
    sm.switch["dut_kind"] = serde_json::Value::Null;
    sr.switch["dut_kind"] = serde_json::Value::Null;
    let mut d = vec![];
    json_diff(&sm.switch, &sr.switch, "", &mut d);
    assert!(
        d.is_empty(),
        "the switch around the RTL went elsewhere: {d:?}"
    );
    let l = capfc::block::pack::Layouts::new(&m.block_params());
    let (mut wm, mut wr) = (vec![], vec![]);
    m.block_state_words(&l, &mut wm);
    r.block_state_words(&l, &mut wr);
    assert_eq!(wm, wr, "the RTL's registers differ from the model's");
}

#[test]
fn back_n_is_the_state_n_cycles_ago() {
    let sc = Scenario::incast_victims();
    let mut plain = Switch::new_v2(&sc, FlowMode::CapfcCal, DutKind::Model).unwrap();
    let at_12345 = stepped(&mut plain, 12_345);
    let mut s = session(DutKind::Model);
    let mut out = vec![];
    run_script(&mut s, "test", "step 31000\nback 18655\n", &mut out).unwrap();
    assert_eq!(s.sw.now, 12_345);
    same(&s.sw.snapshot(), &at_12345, "back");
    // And forward again from there is forward from the plain run.
    run_script(&mut s, "test", "step 1000\n", &mut out).unwrap();
    same(
        &s.sw.snapshot(),
        &stepped(&mut plain, 1000),
        "forward after back",
    );
}

#[test]
fn poked_packet_is_delivered_and_back_undoes_it() {
    let mut s = session(DutKind::Model);
    let mut out = vec![];
    run_script(
        &mut s,
        "test",
        "step 100\npoke packet 5 0 3 3000\npoke pause 6 3 5000\nrun until done\n",
        &mut out,
    )
    .unwrap();
    let f = s.sw.sc.flows.len() - 1;
    let p = s.sw.flow_progress(f);
    assert_eq!((p.sent, p.delivered + p.lost), (3000, 3000));
    assert!(p.fct.is_some());
    s.sw.check_conservation();
    // Back before the poke: the flow is not sent on the way forward again.
    let now = s.sw.now;
    run_script(
        &mut s,
        "test",
        &format!("back {}\nstep 40000\n", now - 50),
        &mut out,
    )
    .unwrap();
    assert_eq!(s.sw.sc.flows.len(), f, "the poked flow is still there");
}

/// Snapshot files made from `text` (a snapshot file) that do not read: truncated, another format,
/// none at all; each with what its refusal must say.
fn unreadable_snapshots(dir: &std::path::Path, text: &str) -> [(String, &'static str); 3] {
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let other = dir.join("other.json");
    std::fs::write(&other, text.replacen("capfc-snapshot-1", "vcd", 1)).unwrap();
    [
        (cut.display().to_string(), "line 1 column"),
        (
            other.display().to_string(),
            "field format: 'vcd' is not a capfc snapshot",
        ),
        (dir.join("none.json").display().to_string(), "No such file"),
    ]
}

/// Snapshot files made from `text` (a snapshot file) by hand edits that leave valid JSON that
/// does not fit a switch: wrong shapes, then right shapes with broken invariants; each with what
/// its refusal must say.
fn tampered_snapshots(dir: &std::path::Path, text: &str) -> [(String, &'static str); 7] {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let tamper = |f: &dyn Fn(&mut serde_json::Value), name: &str| {
        let mut t = v.clone();
        f(&mut t);
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_string(&t).unwrap()).unwrap();
        path.display().to_string()
    };
    [
        (
            tamper(
                &|t| {
                    t["snapshot"]["switch"]["senders"]
                        .as_array_mut()
                        .unwrap()
                        .pop();
                },
                "senders.json",
            ),
            "senders: 7 entries, expected 8",
        ),
        (
            tamper(
                &|t| t["snapshot"]["block"]["model"]["sort"]["k_q"][0] = 9999.into(),
                "k.json",
            ),
            "block.sort.k_q[0]: 9999 is above NP = 8",
        ),
        (
            tamper(
                &|t| {
                    t["snapshot"]["block"]["model"]["egress"]["e_q"]
                        .as_array_mut()
                        .unwrap()
                        .pop();
                },
                "eq.json",
            ),
            "block.egress.e_q: 31 entries, expected 32",
        ),
        (
            tamper(
                &|t| {
                    let q = t["snapshot"]["switch"]["pipe"].as_array_mut().unwrap();
                    q[0][1]["dst"] = 99.into();
                },
                "pipe.json",
            ),
            "names a flow, port or priority that does not exist",
        ),
        // Shapes right, invariants broken.
        (
            tamper(
                &|t| {
                    let b = &mut t["snapshot"]["switch"]["ingress_busy"];
                    *b = (b.as_u64().unwrap() ^ 1).into();
                },
                "busy.json",
            ),
            "ingress_busy: port 0 is marked",
        ),
        (
            tamper(
                &|t| {
                    let b = &mut t["snapshot"]["switch"]["tm"]["bytes"][3];
                    *b = (b.as_u64().unwrap() + 1).into();
                },
                "bytes.json",
            ),
            "tm.bytes[3] (port 0 prio 3)",
        ),
        (
            tamper(
                &|t| {
                    let b = &mut t["snapshot"]["block"]["model"]["sort"]["pending"];
                    *b = (b.as_u64().unwrap() ^ 1).into();
                },
                "pending.json",
            ),
            "block.sort.pending: disagrees with pend_q",
        ),
    ]
}

#[test]
fn snapshot_files_round_trip_and_bad_ones_are_refused() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-repl-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.json");
    let f = file.display().to_string();
    let mut s = session(DutKind::Model);
    let mut out = vec![];
    run_script(
        &mut s,
        "t",
        &format!("step 13000\nsnapshot {f}\n"),
        &mut out,
    )
    .unwrap();
    let at = s.sw.snapshot();
    run_script(&mut s, "t", &format!("step 777\nrestore {f}\n"), &mut out).unwrap();
    same(&s.sw.snapshot(), &at, "restore from a file");
    // Truncated, not JSON, another format: each refused with the file and where.
    let text = std::fs::read_to_string(&file).unwrap();
    for (path, why) in unreadable_snapshots(&dir, &text) {
        let e = run_script(
            &mut s,
            "script.cmds",
            &format!("restore {path}\n"),
            &mut out,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("script.cmds:1: "), "{e}");
        assert!(e.contains(&path) && e.contains(why), "{e}");
    }
    // Valid JSON that does not fit a switch (hand-edited): refused by name, not a panic later.
    for (path, why) in tampered_snapshots(&dir, &text) {
        let e = run_script(&mut s, "t", &format!("restore {path}\n"), &mut out)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&path) && e.contains(why), "{e}");
    }
    // The state is untouched by the refused restores.
    same(&s.sw.snapshot(), &at, "after refused restores");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_script_json_and_errors() {
    // --json: one object per command, machine-readable.
    let (code, out, _) = common::capfc(
        &["step", "--json"],
        "run until xoff port 1 prio 3\nprint E 3\nwatch egress 0 3\nstep 2000\n",
    );
    assert_eq!(code, 0);
    let v: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v.len(), 4);
    assert_eq!(v[0]["cmd"], "run until xoff port 1 prio 3");
    assert_eq!(v[0]["hits"][0]["until"], "xoff port 1 prio 3");
    let rows = v[1]["e"][0]["rows"][0].as_array().unwrap();
    assert!(
        !rows.is_empty(),
        "E[0][3] empty at the first XOFF: {}",
        v[1]
    );
    assert!(!v[3]["watch"].as_array().unwrap().is_empty());
    // The first refused command stops the script, names its line and fails the exit status; what
    // ran before it was printed.
    let (code, out, err) = common::capfc(&["step"], "step 3\nprint C 9 3\nstep 1\n");
    assert_eq!(code, 1);
    assert!(out.contains("cycle 3"), "{out}");
    assert!(!out.contains("cycle 4"), "ran past the error: {out}");
    assert!(err.contains("<stdin>:2: port 9 does not exist"), "{err}");
    // A bad option is refused before anything runs.
    let (code, _, err) = common::capfc(&["step", "--mode", "PFC_fast"], "");
    assert_eq!(code, 1);
    assert!(err.contains("--mode 'PFC_fast'"), "{err}");
    let (code, _, err) = common::capfc(&["step", "--scenario", "nope"], "");
    assert_eq!(code, 1);
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn help_covers_every_command_with_an_example() {
    let (code, out, _) = common::capfc(&["step"], "help\nhelp print\nhelp poke\n");
    assert_eq!(code, 0);
    for (name, _, _, _) in capfc_cli::repl::parse::HELP {
        assert!(out.contains(&format!("  {name}")), "help misses {name}");
    }
    assert!(out.contains("example: poke packet 5 0 3 1500"));
    assert!(out.contains("E [PRIO]"));
}

/// Every variable of a VCD file by full name: its value (bits, most significant first, leading zeros
/// dropped) after each timestamp; and the first and last timestamps.
#[cfg(feature = "rtl")]
type Waves = (
    std::collections::BTreeMap<String, Vec<(u64, String)>>,
    u64,
    u64,
);

#[cfg(feature = "rtl")]
fn vcd_values(path: &str) -> Waves {
    use std::collections::{BTreeMap, HashMap};
    use vcd::{Command, IdCode};
    let (vars, p) = common::vcd_vars(path);
    let mut by_code: HashMap<IdCode, Vec<String>> = HashMap::new();
    for (c, n) in vars {
        by_code.entry(c).or_default().push(n);
    }
    let norm = |s: String| {
        let t = s.trim_start_matches('0');
        if t.is_empty() {
            "0".to_string()
        } else {
            t.to_string()
        }
    };
    let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let (mut t, mut first) = (0, None);
    for c in p {
        let (code, v) = match c.unwrap() {
            Command::Timestamp(x) => {
                t = x;
                first.get_or_insert(x);
                continue;
            }
            Command::ChangeScalar(code, v) => (code, v.to_string()),
            Command::ChangeVector(code, v) => (code, v.iter().map(|b| b.to_string()).collect()),
            _ => continue,
        };
        for n in by_code.get(&code).into_iter().flatten() {
            let e = out.entry(n.clone()).or_default();
            let v = norm(v.clone());
            if e.last().is_some_and(|(lt, _)| *lt == t) {
                e.pop();
            }
            if e.last().is_none_or(|(_, lv)| *lv != v) {
                e.push((t, v));
            }
        }
    }
    (out, first.unwrap_or(0), t)
}

/// `wave` with `--dut both` in the middle of a session (after `back`, so the RTL's registers were
/// written from the model's): two files under the same names and times, with the same values.
#[cfg(feature = "rtl")]
#[test]
fn wave_writes_model_and_rtl_side_by_side() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-repl-wave-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let stem = dir.join("w").display().to_string();
    let out = transcript(
        DutKind::Both,
        &format!("run until xoff\nback 30\nwave {stem}.vcd\nstep 60\nwave off\n"),
    );
    assert!(out.contains("w_model.vcd and "), "{out}");
    let (model, m0, m1) = vcd_values(&format!("{stem}_model.vcd"));
    let (rtl, r0, r1) = vcd_values(&format!("{stem}_rtl.vcd"));
    assert_eq!((m0, m1), (r0, r1), "the two files cover different times");
    assert!(m1 - m0 >= 119, "{m0}..{m1}");
    let mut compared = 0;
    for (name, mv) in &model {
        let rv = rtl
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not in the RTL's trace"));
        assert_eq!(
            mv, rv,
            "{name} differs between the model's and the RTL's waveform"
        );
        compared += 1;
    }
    // The counter RAMs included (crates/rtl/build.rs raises Verilator's --trace-max-array for them).
    assert!(model.contains_key("capfc_v2_top.capfc_v2_top.u_egress.gen_port[7].u_cnt.mem[15]"));
    assert!(compared > 100, "only {compared} signals compared");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The words of random command lines: the language's words, registers (some out of range), numbers
/// in and out of range, junk.
const LINE_WORDS: &[&str] = &[
    "step",
    "run",
    "until",
    "for",
    "break",
    "watch",
    "delete",
    "all",
    "info",
    "breaks",
    "snapshots",
    "scenario",
    "print",
    "poke",
    "packet",
    "pause",
    "snapshot",
    "restore",
    "back",
    "help",
    "summary",
    "ingress",
    "egress",
    "E",
    "C",
    "ID",
    "pipe",
    "sort",
    "pfc",
    "flows",
    "stats",
    "cfg",
    "cycle",
    "D",
    "I",
    "paused",
    "fifo",
    "queue",
    "reg",
    "u_egress.e_q[3]",
    "u_sort.v_q[99]",
    "u_egress.gen_port[3].u_cnt.mem[5]",
    "nosuch[0]",
    "xoff",
    "xon",
    "drop",
    "mismatch",
    "done",
    "port",
    "prio",
    ">",
    ">=",
    "<",
    "<=",
    "=",
    "0",
    "1",
    "3",
    "7",
    "8",
    "255",
    "-1",
    "x",
    "#",
    "18446744073709551615",
    "4294967296",
    "s1",
    "",
];

/// A random command line: a command word (mostly), then 0 to 5 arguments of the same vocabulary,
/// biased to numbers.
fn random_line(rng: &mut rand_chacha::ChaCha8Rng) -> String {
    use rand::Rng;
    const NUMS: &[&str] = &["0", "1", "3", "7", "8", "255", "-1", "18446744073709551615"];
    const CMDS: &[&str] = &[
        "step", "break", "watch", "delete", "info", "print", "poke", "snapshot", "restore", "back",
        "help", "b", "p", "w",
    ];
    let mut line: Vec<&str> = vec![if rng.gen_bool(0.9) {
        CMDS[rng.gen_range(0..CMDS.len())]
    } else {
        LINE_WORDS[rng.gen_range(0..LINE_WORDS.len())]
    }];
    for _ in 0..rng.gen_range(0..6) {
        line.push(if rng.gen_bool(0.5) {
            NUMS[rng.gen_range(0..NUMS.len())]
        } else {
            LINE_WORDS[rng.gen_range(0..LINE_WORDS.len())]
        });
    }
    line.join(" ")
}

/// Random command lines (words of the language, numbers in and out of range, junk) are either run
/// or refused with a reason; none panics. Seeded: the same seed, the same lines.
#[test]
fn random_command_lines_never_panic() {
    use rand::SeedableRng;
    let seed = 7;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = session(DutKind::Model);
    let mut out = vec![];
    let mut refused = 0;
    let mut ran = 0;
    for k in 0..5000 {
        let line = random_line(&mut rng);
        // Keep the test short: no huge step counts, no unbounded runs.
        let first = line.split_whitespace().next().unwrap_or("");
        if matches!(first, "step" | "run")
            && (line.contains("18446744073709551615")
                || line.contains("4294967296")
                || first == "run")
        {
            continue;
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.exec(&line, &mut out)));
        match r {
            Ok(Ok(_)) => ran += 1,
            Ok(Err(e)) => {
                assert!(
                    !e.to_string().is_empty(),
                    "line {k} '{line}': refused without a reason"
                );
                refused += 1;
            }
            Err(_) => panic!("line {k} '{line}' panicked (seed {seed})"),
        }
        out.clear();
    }
    assert!(
        refused > 100,
        "only {refused} refused: the generator is too tame"
    );
    assert!(ran > 100, "only {ran} ran: the generator is too wild");
}

/// A file that sources itself, directly or through another, is refused with the chain, and the
/// session goes on (following the chain would overflow the stack).
#[test]
fn a_file_that_sources_itself_is_refused() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc-source-")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.cmds"), dir.join("b.cmds"));
    std::fs::write(&a, format!("step 1\nsource {}\n", b.display())).unwrap();
    std::fs::write(&b, format!("step 1\nsource {}\n", a.display())).unwrap();
    let mut s = session(DutKind::Model);
    let mut out = vec![];
    let e = run_script(
        &mut s,
        "test",
        &format!("source {}\n", a.display()),
        &mut out,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sourced again while it runs"), "{e}");
    assert!(e.contains("a.cmds -> ") && e.contains("b.cmds -> "), "{e}");
    // Both files ran their first line once: the session stands at cycle 2 and still works.
    let mut out = vec![];
    run_script(&mut s, "test", "step 1\nprint summary\n", &mut out).unwrap();
    assert_eq!(s.sw.now, 3);
    let _ = std::fs::remove_dir_all(&dir);
}
