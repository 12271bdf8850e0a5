//! What the tests that run `check/capfc_v1` (and the wrappers of `check/wrap`) on Icarus share: its
//! timing envelope and map, the golden stimulus sets that drive it, reading a waveform through the
//! checker, and the block's seeded bugs.

use capfc::block::{BlockParams, Mode};
use capfc::check::{Checker, Envelope, Kind, Summary, Violation, Window};
use capfc::check_wave::{Map, Wave};
use capfc::golden::Source;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

pub fn v1_dir() -> PathBuf {
    Path::new(ROOT).join("check/capfc_v1")
}

/// The v1 block's timing envelope at NP ports (check/capfc_v1/capfc_v1.timing.toml gives NP = 4).
pub fn v1_envelope(np: u64) -> Envelope {
    let nq = 8 * np;
    Envelope {
        accept_latency: 0,
        accept_sees_removals: false,
        order: Default::default(),
        snapshot_stride: 0,
        ingress: Window::exact(1),
        e_clear: Window::exact(1),
        stop_max: Window {
            min: 3,
            max: 3 + 2 * nq,
        },
        stop_cal: Window {
            min: np + 2,
            max: np + 2 + nq * (np + 1),
        },
        frame: Window::exact(1),
        refresh: Window::exact(1),
        reset: 1,
        link_bits_per_cycle: 8,
    }
}

/// A checked-in map's text with its [params] and register width set to a parameter set's.
pub fn map_for(text: &str, p: &BlockParams) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let l = match line.split('=').next().map(str::trim) {
            Some("np") => format!("np = {}", p.np),
            Some("cw") => format!("cw = {}", p.cw),
            Some("cell_log2") => format!("cell_log2 = {}", p.cell_log2),
            Some("cut_f") => format!("cut_f = {}", p.cut_f),
            Some("ow") => format!("ow = {}", p.ow),
            _ => line.to_string(),
        };
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The v1 map for a parameter set: the checked-in map with its [params] and register width set.
pub fn v1_map(p: &BlockParams) -> String {
    let text = std::fs::read_to_string(v1_dir().join("capfc_v1.map.toml")).expect("the v1 map");
    map_for(&text, p)
}

/// A stimulus set for the v1 block.
#[derive(Clone, Copy, Debug)]
pub enum Set {
    Directed(&'static str, &'static str, Mode),
    Random(&'static str, Mode, u64, u64),
}

impl Set {
    pub fn name(&self) -> String {
        match self {
            Set::Directed(c, cfg, m) => format!("{c}_{}_{cfg}", m.name()),
            Set::Random(cfg, m, seed, n) => format!("random_{}_{cfg}_seed{seed}_{n}", m.name()),
        }
    }

    pub fn config(&self) -> &'static str {
        match self {
            Set::Directed(_, c, _) | Set::Random(c, ..) => c,
        }
    }

    pub fn params(&self) -> BlockParams {
        capfc::golden::params_of(self.config()).expect("a parameter set")
    }

    pub fn mode(&self) -> Mode {
        match *self {
            Set::Directed(_, _, m) | Set::Random(_, m, ..) => m,
        }
    }

    /// Write the set under `root`/sets (once per test process: the tests run in parallel and
    /// share sets) and return its directory and cycle count.
    pub fn make(&self, root: &Path) -> (PathBuf, u64) {
        static MADE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        let dir = root.join("sets").join(self.name());
        let src = match *self {
            Set::Directed(c, _, m) => Source::Directed {
                case: c.into(),
                mode: m,
            },
            Set::Random(_, m, seed, cycles) => Source::Random {
                seed,
                cycles,
                mode: m,
                steady: true,
            },
        };
        if !made.contains(&dir) {
            let f = capfc::golden::build(&self.name(), &self.params(), &src).expect("builds");
            capfc::golden::write(&dir, &f).expect("writes");
            made.push(dir.clone());
        }
        (dir.clone(), set_cycles(&dir))
    }
}

/// A written set's cycle count (its params.vh's CAPFC_CYCLES).
pub fn set_cycles(dir: &Path) -> u64 {
    let vh = std::fs::read_to_string(dir.join("params.vh")).expect("params.vh");
    vh.lines()
        .find_map(|l| l.strip_prefix("`define CAPFC_CYCLES "))
        .and_then(|v| v.trim().parse().ok())
        .expect("CAPFC_CYCLES")
}

/// A directory of its own for the calling test (its thread's name) under `root`/runs: tests
/// running at once never share a file.
pub fn runs_dir(root: &Path) -> PathBuf {
    let who = std::thread::current()
        .name()
        .unwrap_or("main")
        .replace("::", "_");
    let out = root.join("runs").join(who);
    std::fs::create_dir_all(&out).expect("runs dir");
    out
}

/// The v1 block's RTL files, sorted.
pub fn v1_rtl() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(v1_dir().join("rtl"))
        .expect("rtl dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sv"))
        .collect();
    files.sort();
    files
}

/// Run a command that must succeed; its stdout.
pub fn run_ok(c: &mut Command, what: &str) -> String {
    let o = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        o.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Check a waveform through a map's text within an envelope; every violation (in order) and the
/// summary. `what` names the run in a failure.
pub fn check_wave(
    vcd: &Path,
    map_text: &str,
    env: Envelope,
    what: &str,
) -> (Vec<Violation>, Summary) {
    let map = Map::parse(map_text, "map.toml").expect("the map parses");
    let mut w =
        Wave::load(&vcd.to_string_lossy(), map, map_text, "map.toml").expect("the waveform loads");
    w.set_accept_latency(env.accept_latency);
    let mut ck = Checker::new(w.params(), w.initial_config(), env, w.reset_clears_config())
        .expect("a checker");
    let mut v = vec![];
    w.cycles(|_, c| {
        v.extend(ck.step(c));
        true
    });
    v.extend(ck.finish());
    let s = ck.summary().clone();
    assert!(s.lanes > 0, "{what}: nothing checked");
    (v, s)
}

/// A seeded bug of the v1 block, the rule it breaks, the set that exposes it and what the checker
/// must say.
pub struct Bug {
    pub name: &'static str,
    pub rule: &'static str,
    pub set: Set,
    /// The kinds of first report that kill it: a wrong selection shows either as a pause the
    /// reference cannot explain (at once) or as the right victim missing (at the window's end).
    pub kinds: &'static [Kind],
}

pub fn bugs() -> Vec<Bug> {
    use Mode::{StopCal, StopMax};
    vec![
        Bug {
            name: "WRONG_VICTIM",
            rule: "Stop-Max pauses the largest contributor",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::SpuriousPause, Kind::MissingSelection],
        },
        Bug {
            name: "XON_NEVER",
            rule: "a frame for every change of D (resume: quanta 0)",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::FrameMissing],
        },
        Bug {
            name: "LATE_PAUSE",
            rule: "E within the declared Stop-Max window",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::MissingSelection],
        },
        Bug {
            name: "DROP_FITS",
            rule: "accept when occupancy + size <= MAX",
            set: Set::Directed("thresholds_exact", "np4", StopMax),
            kinds: &[Kind::Accept],
        },
        Bug {
            name: "LOST_FRAME",
            rule: "no frame lost when several ports change at once",
            set: Set::Random("np4", StopCal, 3, 6000),
            kinds: &[Kind::FrameMissing],
        },
        Bug {
            name: "LATE_REFRESH",
            rule: "refresh at the configured period",
            set: Set::Directed("refresh_expiry", "np4", StopMax),
            kinds: &[Kind::Refresh],
        },
        Bug {
            name: "TIE_HIGH",
            rule: "argmax ties go to the lowest index",
            set: Set::Directed("argmax_tie", "np4", StopMax),
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "CUT_OFF_BY_ONE",
            rule: "Stop-Calibrate stops at S >= CUT * T",
            // the tie case in Stop-Calibrate lands S * 2^CUT_F on CUT * T exactly
            set: Set::Directed("argmax_tie", "np4", StopCal),
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "COUNTER_WRAP",
            rule: "C saturates at 2^CW - 1",
            set: Set::Directed("counter_saturation", "np6_cw4", StopMax),
            kinds: &[Kind::SpuriousPause],
        },
        Bug {
            name: "CLEAR_BELOW_WARN",
            rule: "C is cleared at WARN_e, not below it",
            set: Set::Directed("clear_at_warn", "np4", StopMax),
            kinds: &[Kind::SpuriousPause, Kind::MissingSelection],
        },
        Bug {
            name: "E_STUCK",
            rule: "E clears when the queue falls to XON_e",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::StuckPause],
        },
        Bug {
            name: "LOSSY_PAUSE",
            rule: "I for the lossless classes, and only them",
            set: Set::Random("np4", StopMax, 3, 6000),
            kinds: &[Kind::LossyPause, Kind::MissingPause],
        },
    ]
}

/// The `CAPFC_V1_BUG_` defines of the v1 RTL (each `ifdef or `elsif of one).
pub fn seeded_bugs() -> std::collections::BTreeSet<String> {
    let mut seeded = std::collections::BTreeSet::new();
    for f in v1_rtl() {
        let text = std::fs::read_to_string(f).expect("rtl file");
        for tag in ["`ifdef CAPFC_V1_BUG_", "`elsif CAPFC_V1_BUG_"] {
            for (k, _) in text.match_indices(tag) {
                let name: String = text[k + tag.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect();
                seeded.insert(name);
            }
        }
    }
    seeded
}

pub fn need_icarus() {
    let ok = Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "iverilog is missing: `make deps` installs it");
}

/// The waveform signal a checker report names (its `signal`).
pub fn signal_of(v: &Violation) -> &'static str {
    let s = v.signal.as_str();
    if s.starts_with("d[") {
        "d_state"
    } else if s.starts_with("arr_accept") {
        "arr_accept"
    } else if s.starts_with("enq_accept") {
        "enq_accept"
    } else if s.starts_with("frame[") {
        "pfc_valid"
    } else {
        "other"
    }
}

/// The latest cycle after the first difference at which the report may come, by the signal that
/// differs: an accept is judged in its cycle; a change of D that did not happen can be judged only
/// when the selection window closes; a frame that did not come, when the frame window closes.
pub fn slack(signal: &str, env: &Envelope, mode: Mode) -> u64 {
    match signal {
        "d_state" => env.selection(mode).max,
        "pfc_valid" | "pfc_cev" | "pfc_quanta" => env.frame.max + 1,
        _ => 0,
    }
}

/// A kill matrix's cell for the checker's first report: its cycle, kind and signal, or "nothing".
pub fn first_report(first: Option<&Violation>) -> String {
    first.map_or("nothing".into(), |f| {
        format!("{} {} {}", f.cycle, f.kind.name(), f.signal)
    })
}
