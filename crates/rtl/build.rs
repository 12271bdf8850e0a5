//! Verilates `rtl/` once per parameter set of `crates/block/src/block/rtl_configs.rs` and links the result behind
//! the `cxx` bridge of `src/dut.rs`.
//!
//! The `verilated` crate predates Verilator 5 and does not build against it, so this does by hand
//! what it would: run `verilator --cc` into OUT_DIR, read the generated `*_classes.mk` for the file
//! list (Verilator 5 hashes file names and needs `verilated_threads.cpp`), compile with `cc` at fixed
//! levels whatever the cargo profile (the evaluation at -O2, the run-once code at -O0:
//! [`compile_config`]), and generate the C++ that maps packed words to the model's ports
//! from `crates/block/src/block/signals.rs`. The Verilator runtime and each configuration's objects are cached in
//! OUT_DIR under a content stamp, so a rebuild that changes neither is a link only.
//! Without the `rtl` feature nothing here runs and the model builds alone.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

include!("../block/src/block/signals.rs");
include!("../block/src/block/rtl_configs.rs");
include!("../block/src/v3/rtl_configs.rs");

const PARAM_NAMES: [&str; 7] = ["NP", "SW", "OW", "CW", "CELL_LOG2", "CUT_F", "NL"];

/// The build's steps in order.
///
/// (Long: each step is a few lines in the order cargo needs them, read top to bottom: the inputs
/// cargo watches, Verilator's version and root, v2's file list and stamp, the factory headers,
/// the bridge, then the configurations' jobs and their libraries' link order.)
fn main() {
    for p in [
        "../../rtl",
        "../../check/capfc_v2",
        "cpp",
        "../../crates/block/src/block/signals.rs",
        "../../crates/block/src/block/rtl_configs.rs",
        "../../crates/block/src/v3/rtl_configs.rs",
        "src/dut.rs",
        "src/dut_v3.rs",
    ] {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rerun-if-env-changed=VERILATOR");
    println!("cargo:rerun-if-env-changed=CAPFC_RTL_CONFIGS");
    println!("cargo:rerun-if-env-changed=CAPFC_V3_CONFIGS");
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
    if std::env::var_os("CARGO_FEATURE_RTL").is_none() {
        return;
    }
    // Under clippy (cargo check's builds: nothing is linked) the Verilated libraries are not
    // needed: the Rust side of the bridge is cxx's macro. Skipping them saves `make lint` the
    // Verilator runs and C++ compiles of its own OUT_DIR (clippy's builds do not share cargo
    // build's).
    if std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy-driver")) {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let verilator = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    let version = match Command::new(&verilator).arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => panic!(
            "\n\ncapfc: `{verilator} --version` failed: Verilator is needed for the `rtl` feature.\n\
             Install it (`make deps`, or apt-get install verilator g++), or build the model alone \
             with `cargo build --no-default-features`.\n"
        ),
    };
    let root = Command::new(&verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/usr/share/verilator".into());
    let vinc = PathBuf::from(&root).join("include");

    let files = file_list("../../check/capfc_v2/files.f");
    let mut rtl_hash = DefaultHasher::new();
    version.hash(&mut rtl_hash);
    for f in &files {
        std::fs::read(f)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
            .hash(&mut rtl_hash);
    }
    for f in [
        "cpp/dut_impl.h",
        "cpp/dut.h",
        "../../crates/block/src/block/signals.rs",
    ] {
        std::fs::read(f).unwrap().hash(&mut rtl_hash);
    }
    let rtl_hash = rtl_hash.finish();

    let only = std::env::var("CAPFC_RTL_CONFIGS").ok();
    let configs: Vec<_> = RTL_CONFIGS
        .iter()
        .filter(|(n, _)| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|x| x == *n))
        })
        .collect();

    // The factory, first: the bridge refers to every configuration's constructor.
    std::fs::write(out.join("dut_factory.h"), v2_factory(&configs)).unwrap();

    let v3 = v3_configs();
    std::fs::write(out.join("dut_v3_factory.h"), v3_factory(&v3)).unwrap();

    // (the C++ includes the bridge's headers as `capfc/...`, the prefix it had at the root)
    cxx_build::CFG.include_prefix = "capfc";
    cxx_build::bridges(["src/dut.rs", "src/dut_v3.rs"])
        .file("cpp/dut_bridge.cc")
        .file("cpp/dut_v3_bridge.cc")
        .include(&out)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .compile("capfc_bridge");

    // Each configuration is a Verilator run (one core) and then compiles whose last file leaves
    // the other core waiting; two configurations at a time fill those gaps (the C++ compiles share
    // cargo's jobserver). The libraries are linked in the order below whatever order they finish
    // in: the configurations', then the runtime they all call.
    let v3_files = file_list("../../rtl/v3/files.f");
    let v3_hash = v3_hash(&version, &v3_files);
    let jobs: Vec<Job> = configs
        .iter()
        .map(|&&(name, vals)| {
            let (verilator, vinc, out, files) = (&verilator, &vinc, &out, &files);
            Box::new(move || build_config(verilator, vinc, out, files, rtl_hash, name, &vals))
                as Job
        })
        .chain(v3.iter().map(|&(name, vals)| {
            let (verilator, vinc, out, files) = (&verilator, &vinc, &out, &v3_files);
            Box::new(move || build_v3_config(verilator, vinc, out, files, v3_hash, name, &vals))
                as Job
        }))
        .chain(std::iter::once(
            Box::new(|| build_runtime(&vinc, &out, &version)) as Job,
        ))
        .collect();
    for lib in run_two_at_a_time(&jobs) {
        link(&out, &lib);
    }
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=pthread");
}

/// A library to build (a configuration, the runtime): its name once built.
type Job<'a> = Box<dyn Fn() -> String + Sync + 'a>;

/// Runs `jobs` on two threads, each taking the next job not yet taken; their results in the
/// jobs' order. A job's panic (a failed Verilator run) fails the build script with its message.
fn run_two_at_a_time(jobs: &[Job]) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<std::sync::OnceLock<String>> = jobs.iter().map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(k) else { break };
                let _ = done[k].set(job());
            });
        }
    });
    done.into_iter()
        .map(|d| d.into_inner().expect("every job ran"))
        .collect()
}

/// The source files a file list names, in order (`#` and `//` lines are comments).
fn file_list(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        // (the lists name files from the workspace's root; this script runs in crates/rtl)
        .map(|l| format!("../../{l}"))
        .collect()
}

fn stamp_ok(lib: &Path, stamp: &Path, want: &str) -> bool {
    lib.exists() && std::fs::read_to_string(stamp).is_ok_and(|s| s == want)
}

fn link(out: &Path, lib: &str) {
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static={lib}");
}

/// The v2 configurations' factory header: each one's constructor, their names, and `make_dut`.
fn v2_factory(configs: &[&(&str, [u32; 7])]) -> String {
    let mut fac = String::from("#pragma once\n#include <memory>\n#include <string>\n#include \"capfc/cpp/dut.h\"\nnamespace capfc {\n");
    for (n, _) in configs {
        writeln!(fac, "std::unique_ptr<Dut> make_dut_{n}();").unwrap();
    }
    let names: Vec<String> = configs.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    writeln!(
        fac,
        "static const char* const kConfigNames[] = {{{}{}}};",
        names.join(", "),
        if names.is_empty() { "nullptr" } else { "" }
    )
    .unwrap();
    fac.push_str("inline std::unique_ptr<Dut> make_dut(const std::string& n) {\n");
    for (n, _) in configs {
        writeln!(fac, "    if (n == \"{n}\") return make_dut_{n}();").unwrap();
    }
    fac.push_str("    return nullptr;\n}\n}  // namespace capfc\n");
    fac
}

/// The content stamp of the v3 configurations: Verilator's version, the RTL, the C++ around it
/// and this script (it generates the v3 wrapper after Verilator has run).
fn v3_hash(version: &str, v3_files: &[String]) -> u64 {
    let mut h = DefaultHasher::new();
    version.hash(&mut h);
    for f in v3_files.iter().map(String::as_str).chain([
        "cpp/dut_impl.h",
        "cpp/dut_v3.h",
        "cpp/dut_v3_impl.h",
        "build.rs",
    ]) {
        std::fs::read(f)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
            .hash(&mut h);
    }
    h.finish()
}

fn build_config(
    verilator: &str,
    vinc: &Path,
    out: &Path,
    files: &[String],
    rtl_hash: u64,
    name: &str,
    vals: &[u32; 7],
) -> String {
    let prefix = format!("Vcapfc_{name}");
    let dir = out.join(format!("vl_{name}"));
    let lib = format!("vl_{name}");
    let args = verilator_args(&prefix, "capfc_v2_top", &dir, vals, files);
    // The generated port mapping is part of what is built: a change to it (build.rs) rebuilds too.
    let cc = gen_ports(name, &prefix, vals[0] as usize);
    let mut h = DefaultHasher::new();
    cc.hash(&mut h);
    let want = format!("{rtl_hash:x} {:x} {CXX_OPT} {}", h.finish(), args.join(" "));
    let stamp = dir.join("capfc.stamp");
    if stamp_ok(&out.join(format!("lib{lib}.a")), &stamp, &want) {
        return lib;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let st = Command::new(verilator)
        .args(&args)
        .status()
        .expect("run verilator");
    assert!(st.success(), "verilator failed for configuration {name}");

    // The word <-> port mapping of this configuration.
    compile_config(vinc, out, &dir, &prefix, name, &cc);
    std::fs::write(&stamp, want).unwrap();
    lib
}

/// Compile a Verilated configuration (the generated sources `classes.mk` lists) with its
/// generated word mapping `cc` into the static library `vl_{name}`. The evaluation (Verilator's
/// "fast" classes) and the mapping at -O2; the trace dump, which runs only while a waveform is
/// written, at -O1; the "slow" classes (construction, initial values, the trace's declarations),
/// which run once a model, at -O0: they are half the C++ and most of its compile time (at 48
/// ports, 86 s of one core for the whole set at -O2, 52 s so).
fn compile_config(vinc: &Path, out: &Path, dir: &Path, prefix: &str, name: &str, cc: &str) {
    let sources = classes_sources(dir, prefix);
    let wrapper = dir.join(format!("dut_{name}.cc"));
    std::fs::write(&wrapper, cc).unwrap();
    let build = |opt: u32| {
        let mut b = verilated_build(vinc);
        b.opt_level(opt)
            .include(dir)
            .include("cpp")
            .include(out)
            .flag("-fno-strict-aliasing");
        b
    };
    let group = |want: CxxUse| {
        sources
            .iter()
            .filter(move |(_, u)| *u == want)
            .map(|(s, _)| dir.join(format!("{s}.cpp")))
    };
    let mut objects = vec![];
    for (opt, want) in [(0, CxxUse::Once), (1, CxxUse::Trace)] {
        let files: Vec<_> = group(want).collect();
        if !files.is_empty() {
            objects.extend(build(opt).files(files).compile_intermediates());
        }
    }
    build(2)
        .file(&wrapper)
        .files(group(CxxUse::Eval))
        .objects(objects)
        .compile(&format!("vl_{name}"));
}

/// The optimisation levels of [`compile_config`], in each configuration's stamp: a change rebuilds.
const CXX_OPT: &str = "eval -O2, trace -O1, once -O0";

/// What a generated C++ file of a Verilated model runs for (its optimisation level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CxxUse {
    /// once a model: Verilator's "slow" classes and support files
    Once,
    /// every cycle a waveform is written: the trace dump
    Trace,
    /// every cycle: the evaluation
    Eval,
}

/// Verilator's arguments for one configuration of `top`.
fn verilator_args(
    prefix: &str,
    top: &str,
    dir: &Path,
    vals: &[u32; 7],
    files: &[String],
) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "--cc".into(),
        "--trace".into(),
        // Trace every register, the counter table (NP*8*NP entries) and the widest port included,
        // so that the model's waveform and the RTL's have the same signals.
        "--trace-max-array".into(),
        "65536".into(),
        "--trace-max-width".into(),
        "65536".into(),
        "-O3".into(),
        "--x-assign".into(),
        "fast".into(),
        "--x-initial".into(),
        "fast".into(),
        "--noassert".into(),
        "--prefix".into(),
        prefix.to_string(),
        "--top-module".into(),
        top.to_string(),
        "--Mdir".into(),
        dir.display().to_string(),
    ];
    for (k, v) in PARAM_NAMES.iter().zip(vals) {
        args.push(format!("-G{k}={v}"));
    }
    args.extend(files.iter().cloned());
    args
}

/// The generated C++ files to compile, from the make fragment Verilator writes, each with what
/// it runs for.
fn classes_sources(dir: &Path, prefix: &str) -> Vec<(String, CxxUse)> {
    let mk = std::fs::read_to_string(dir.join(format!("{prefix}_classes.mk"))).unwrap();
    let mut sources = vec![];
    let mut take = None;
    for line in mk.lines() {
        let l = line.trim();
        let words = if let Some((var, rest)) = l.split_once(" += ") {
            take = match var.trim() {
                "VM_CLASSES_FAST" | "VM_SUPPORT_FAST" => Some(false),
                "VM_CLASSES_SLOW" | "VM_SUPPORT_SLOW" => Some(true),
                _ => None,
            };
            rest
        } else if take.is_some() {
            l
        } else {
            continue;
        };
        if let Some(slow) = take {
            for w in words.split_whitespace().filter(|w| *w != "\\") {
                let u = if slow {
                    CxxUse::Once
                } else if w.contains("__Trace__") {
                    CxxUse::Trace
                } else {
                    CxxUse::Eval
                };
                sources.push((w.to_string(), u));
            }
        }
        if !l.ends_with('\\') {
            take = None;
        }
    }
    assert!(
        !sources.is_empty(),
        "no sources found in {prefix}_classes.mk"
    );
    sources
}

/// The per-configuration C++: words to ports, ports to words, state registers to words. (Long:
/// the generated file's text, one function of it after another.)
fn gen_ports(name: &str, prefix: &str, np: usize) -> String {
    // The state registers, per-port instances expanded: C++ member names in packing order.
    let members: Vec<String> = STATE_SIGNALS
        .iter()
        .flat_map(|(inst, reg)| {
            let ports = if reg.contains("{o}") { np } else { 1 };
            (0..ports).map(move |o| verilated_member(inst, &expand_port(reg, o)))
        })
        .collect();
    let mut cc = String::new();
    let w = &mut cc;
    writeln!(
        w,
        "// Generated by build.rs from crates/block/src/block/signals.rs. Do not edit."
    )
    .unwrap();
    writeln!(
        w,
        "#include \"{prefix}.h\"\n#include \"{prefix}___024root.h\"\n#include \"{prefix}__Syms.h\"\n#include \"dut_impl.h\"\n"
    )
    .unwrap();
    writeln!(
        w,
        "namespace capfc {{\nnamespace {{\nstruct Ports_{name} {{"
    )
    .unwrap();
    writeln!(
        w,
        "    static void set_inputs({prefix}* t, const uint32_t* w) {{"
    )
    .unwrap();
    for p in INPUT_PORTS {
        writeln!(w, "        unpack(w, t->{p});").unwrap();
    }
    writeln!(
        w,
        "    }}\n    static void get_outputs({prefix}* t, uint32_t* w) {{"
    )
    .unwrap();
    for p in OUTPUT_PORTS {
        writeln!(w, "        pack(w, t->{p});").unwrap();
    }
    writeln!(
        w,
        "    }}\n    static void read_state(const {prefix}* t, uint32_t* w) {{"
    )
    .unwrap();
    writeln!(w, "        const auto* r = t->rootp;").unwrap();
    for m in &members {
        writeln!(w, "        pack(w, r->{m});").unwrap();
    }
    writeln!(
        w,
        "    }}\n    static void write_state({prefix}* t, const uint32_t* w) {{"
    )
    .unwrap();
    writeln!(w, "        auto* r = t->rootp;").unwrap();
    for m in &members {
        writeln!(w, "        unpack(w, r->{m});").unwrap();
    }
    writeln!(w, "    }}").unwrap();
    // The lockstep's cheap view (docs/microarchitecture-v2.md, "Lockstep"): the registers but the RAM
    // words, and each RAM's write port (we, wa, wd) as it stands before the clock edge.
    writeln!(
        w,
        "    static void read_flops(const {prefix}* t, uint32_t* w) {{\n        const auto* r = t->rootp;"
    )
    .unwrap();
    for m in members.iter().filter(|m| !m.ends_with("__DOT__mem")) {
        writeln!(w, "        pack(w, r->{m});").unwrap();
    }
    writeln!(
        w,
        "    }}\n    static void read_writes(const {prefix}* t, uint32_t* w) {{\n        const auto* r = t->rootp;"
    )
    .unwrap();
    for m in members.iter().filter(|m| m.ends_with("__DOT__mem")) {
        let ram = m.strip_suffix("mem").unwrap();
        for port in ["we", "wa", "wd"] {
            writeln!(w, "        pack(w, r->{ram}{port});").unwrap();
        }
    }
    writeln!(w, "    }}").unwrap();
    let count = |w: &mut String, what: &str, f: &dyn Fn(&mut String)| {
        writeln!(w, "    static size_t {what}() {{\n        size_t n = 0;").unwrap();
        f(w);
        writeln!(w, "        return n;\n    }}").unwrap();
    };
    count(w, "input_words", &|w| {
        for p in INPUT_PORTS {
            writeln!(w, "        n += words_of<std::remove_reference_t<decltype(std::declval<{prefix}&>().{p})>>();").unwrap();
        }
    });
    count(w, "output_words", &|w| {
        for p in OUTPUT_PORTS {
            writeln!(w, "        n += words_of<std::remove_reference_t<decltype(std::declval<{prefix}&>().{p})>>();").unwrap();
        }
    });
    count(w, "state_words", &|w| {
        for m in &members {
            writeln!(
                w,
                "        n += words_of<decltype({prefix}___024root::{m})>();"
            )
            .unwrap();
        }
    });
    count(w, "flops_words", &|w| {
        for m in members.iter().filter(|m| !m.ends_with("__DOT__mem")) {
            writeln!(
                w,
                "        n += words_of<decltype({prefix}___024root::{m})>();"
            )
            .unwrap();
        }
    });
    count(w, "writes_words", &|w| {
        for m in members.iter().filter(|m| m.ends_with("__DOT__mem")) {
            let ram = m.strip_suffix("mem").unwrap();
            for port in ["we", "wa", "wd"] {
                writeln!(
                    w,
                    "        n += words_of<decltype({prefix}___024root::{ram}{port})>();"
                )
                .unwrap();
            }
        }
    });
    writeln!(w, "}};\n}}  // namespace\n").unwrap();
    writeln!(w, "std::unique_ptr<Dut> make_dut_{name}() {{\n    return std::unique_ptr<Dut>(new DutImpl<{prefix}, Ports_{name}>());\n}}").unwrap();
    writeln!(w, "}}  // namespace capfc").unwrap();
    cc
}

/// A C++ build of Verilated code: -O2 (unless the caller says otherwise) whatever the cargo
/// profile, Verilator's include paths and the
/// model's compile-time switches (tracing on, no coverage, no SystemC). It prints no link
/// directive: the build script links the libraries itself, in a fixed order ([`link`]).
fn verilated_build(vinc: &Path) -> cc::Build {
    let mut b = cc::Build::new();
    b.cargo_metadata(false)
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .include(vinc)
        .include(vinc.join("vltstd"))
        .define("VM_TRACE", "1")
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0");
    b
}

fn build_runtime(vinc: &Path, out: &Path, version: &str) -> String {
    let lib = "capfc_vlrt";
    let stamp = out.join("vlrt.stamp");
    if stamp_ok(&out.join(format!("lib{lib}.a")), &stamp, version) {
        return lib.into();
    }
    let mut b = verilated_build(vinc);
    for f in [
        "verilated.cpp",
        "verilated_threads.cpp",
        "verilated_vcd_c.cpp",
    ] {
        b.file(vinc.join(f));
    }
    b.compile(lib);
    std::fs::write(&stamp, version).unwrap();
    lib.into()
}

/// The v3 configurations to build: CAPFC_V3_CONFIGS (names, comma-separated, or "all"), else
/// V3_RTL_DEFAULT.
fn v3_configs() -> Vec<(&'static str, [u32; 7])> {
    let want = std::env::var("CAPFC_V3_CONFIGS").unwrap_or_else(|_| V3_RTL_DEFAULT.into());
    let names: Vec<&str> = want
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    for n in &names {
        assert!(
            *n == "all" || V3_RTL_CONFIGS.iter().any(|(c, _)| c == n),
            "CAPFC_V3_CONFIGS: no v3 configuration named {n:?} (crates/block/src/v3/rtl_configs.rs has {})",
            V3_RTL_CONFIGS
                .iter()
                .map(|(c, _)| *c)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    V3_RTL_CONFIGS
        .iter()
        .filter(|(c, _)| names.iter().any(|n| *n == "all" || n == c))
        .copied()
        .collect()
}

fn v3_factory(configs: &[(&str, [u32; 7])]) -> String {
    let mut fac = String::from("#pragma once\n#include <memory>\n#include <string>\n#include \"capfc/cpp/dut_v3.h\"\nnamespace capfc {\n");
    for (n, _) in configs {
        writeln!(fac, "std::unique_ptr<DutV3> make_dut_{n}();").unwrap();
    }
    let mut names: Vec<String> = configs.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    names.push("nullptr".into());
    writeln!(
        fac,
        "static const char* const kV3ConfigNames[] = {{{}}};",
        names.join(", ")
    )
    .unwrap();
    fac.push_str("inline std::unique_ptr<DutV3> make_dut_v3(const std::string& n) {\n");
    for (n, _) in configs {
        writeln!(fac, "    if (n == \"{n}\") return make_dut_{n}();").unwrap();
    }
    fac.push_str("    return nullptr;\n}\n}  // namespace capfc\n");
    fac
}

/// One v3 configuration: Verilate capfc_top_oc, generate its word mapping from the Verilated
/// headers (`gen_v3_ports`), compile.
fn build_v3_config(
    verilator: &str,
    vinc: &Path,
    out: &Path,
    files: &[String],
    v3_hash: u64,
    name: &str,
    vals: &[u32; 7],
) -> String {
    let prefix = format!("Vcapfc_{name}");
    let dir = out.join(format!("vl_{name}"));
    let lib = format!("vl_{name}");
    let args = verilator_args(&prefix, "capfc_top_oc", &dir, vals, files);
    let want = format!("{v3_hash:x} {CXX_OPT} {}", args.join(" "));
    let stamp = dir.join("capfc.stamp");
    if stamp_ok(&out.join(format!("lib{lib}.a")), &stamp, &want) {
        return lib;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let st = Command::new(verilator)
        .args(&args)
        .status()
        .expect("run verilator");
    assert!(st.success(), "verilator failed for v3 configuration {name}");
    let top_h = std::fs::read_to_string(dir.join(format!("{prefix}.h"))).unwrap();
    let root_h = std::fs::read_to_string(dir.join(format!("{prefix}___024root.h"))).unwrap();
    let cc = gen_v3_ports(name, &prefix, &top_h, &root_h);
    compile_config(vinc, out, &dir, &prefix, name, &cc);
    std::fs::write(&stamp, want).unwrap();
    lib
}

/// A Verilator member type: a packed value of `width` bits, in unpacked arrays of `dims`
/// (outermost first).
fn v3_member_type(t: &str) -> Option<(u32, Vec<usize>)> {
    let t = t.trim();
    if let Some(inner) = t.strip_prefix("VlUnpacked<") {
        let inner = inner.strip_suffix('>')?;
        let (elem, n) = inner.rsplit_once(',')?;
        let (w, mut dims) = v3_member_type(elem)?;
        dims.insert(0, n.trim().parse().ok()?);
        return Some((w, dims));
    }
    // CData/*7:0*/, SData, IData, QData, VlWide<5>/*159:0*/
    let (_, range) = t.split_once("/*")?;
    let range = range.strip_suffix("*/")?;
    let (msb, lsb) = range.split_once(':')?;
    let (msb, lsb): (u32, u32) = (msb.parse().ok()?, lsb.parse().ok()?);
    Some((msb - lsb + 1, vec![]))
}

/// The v3 configuration's C++, generated from the Verilated headers: every port but clk (in the
/// header's order) and every register (a name ending in `_q`) and RAM word array (`mem`) of the
/// block, with the layout string that names them (cpp/dut_v3.h). (Long: the headers' reading,
/// then the generated file's text, one function of it after another.)
fn gen_v3_ports(name: &str, prefix: &str, top_h: &str, root_h: &str) -> String {
    let mut ins = vec![];
    let mut outs = vec![];
    for l in top_h.lines() {
        let l = l.trim();
        let Some((kind, rest)) = l.split_once("(&") else {
            continue;
        };
        let dir_in = kind.starts_with("VL_IN");
        if !dir_in && !kind.starts_with("VL_OUT") {
            continue;
        }
        let f: Vec<&str> = rest.trim_end_matches(");").split(',').collect();
        let msb: u32 = f[1].parse().expect("port msb");
        let lsb: u32 = f[2].parse().expect("port lsb");
        assert_eq!(lsb, 0, "{prefix}.h: port {} has lsb {lsb}", f[0]);
        if f[0] == "clk" {
            continue;
        }
        let v = (f[0].to_string(), msb + 1);
        if dir_in {
            ins.push(v);
        } else {
            outs.push(v);
        }
    }
    assert!(
        !ins.is_empty() && !outs.is_empty(),
        "{prefix}.h: no ports found"
    );
    let mut regs = vec![];
    // every RAM's write port (`we`, `wa`, `wd`, public in capfc_ram and capfc_lutram), by the
    // path of its instance
    let mut ports: std::collections::HashMap<String, Vec<(String, String, u32)>> =
        Default::default();
    const ROOT: &str = "capfc_top_oc__DOT__";
    for l in root_h.lines() {
        let l = l.trim();
        let Some(decl) = l.strip_suffix(';') else {
            continue;
        };
        let Some((ty, member)) = decl.rsplit_once(' ') else {
            continue;
        };
        let Some(path) = member.strip_prefix(ROOT) else {
            continue;
        };
        let last = path.rsplit("__DOT__").next().unwrap();
        if matches!(last, "we" | "wa" | "wd") {
            let (w, dims) = v3_member_type(ty).unwrap_or_else(|| {
                panic!("{prefix}___024root.h: cannot read the type of {member}: {ty}")
            });
            assert!(
                dims.is_empty(),
                "{prefix}___024root.h: {member} is an array"
            );
            let inst = path.strip_suffix(last).unwrap().to_string();
            let dotted = path
                .replace("__BRA__", "[")
                .replace("__KET__", "]")
                .replace("__DOT__", ".");
            ports
                .entry(inst)
                .or_default()
                .push((member.to_string(), dotted, w));
            continue;
        }
        if last.starts_with("__V") || !(last.ends_with("_q") || last == "mem") {
            continue;
        }
        let (w, dims) = v3_member_type(ty).unwrap_or_else(|| {
            panic!("{prefix}___024root.h: cannot read the type of {member}: {ty}")
        });
        let dotted = path
            .replace("__BRA__", "[")
            .replace("__KET__", "]")
            .replace("__DOT__", ".");
        regs.push((member.to_string(), dotted, w, dims));
    }
    assert!(!regs.is_empty(), "{prefix}___024root.h: no registers found");
    // the write ports of the RAMs, in the order of their words in the state (we, wa, wd each)
    let mut writes = vec![];
    for (m, d, ..) in &regs {
        if let Some(inst) = m.strip_suffix("mem") {
            let p = ports
                .get(inst.strip_prefix(ROOT).unwrap())
                .unwrap_or_else(|| {
                    panic!("{prefix}___024root.h: the RAM {d} has no public write port")
                });
            for want in ["we", "wa", "wd"] {
                let port = p
                    .iter()
                    .find(|(pm, ..)| pm.ends_with(&format!("__DOT__{want}")))
                    .unwrap_or_else(|| panic!("{prefix}___024root.h: the RAM {d} has no {want}"));
                writes.push(port.clone());
            }
        }
    }

    let mut cc = String::new();
    let w = &mut cc;
    writeln!(
        w,
        "// Generated by build.rs from the Verilated headers. Do not edit."
    )
    .unwrap();
    writeln!(
        w,
        "#include \"{prefix}.h\"\n#include \"{prefix}___024root.h\"\n#include \"{prefix}__Syms.h\"\n#include \"dut_v3_impl.h\"\n"
    )
    .unwrap();
    writeln!(
        w,
        "namespace capfc {{\nnamespace {{\nstruct Ports_{name} {{"
    )
    .unwrap();
    writeln!(
        w,
        "    static void set_inputs({prefix}* t, const uint32_t* w) {{"
    )
    .unwrap();
    for (p, _) in &ins {
        writeln!(w, "        unpack(w, t->{p});").unwrap();
    }
    writeln!(
        w,
        "    }}\n    static void get_outputs({prefix}* t, uint32_t* w) {{"
    )
    .unwrap();
    for (p, _) in &outs {
        writeln!(w, "        pack(w, t->{p});").unwrap();
    }
    writeln!(w, "    }}").unwrap();
    // read_state: every register and RAM word; read_regs: the registers only (a RAM's words are
    // skipped, left as they are in `w`); read_writes: every RAM's write port
    let mems = |m: &str| m.ends_with("__DOT__mem");
    let reads: [(&str, Vec<(&String, bool)>); 3] = [
        (
            "read_state",
            regs.iter().map(|(m, ..)| (m, false)).collect(),
        ),
        (
            "read_regs",
            regs.iter().map(|(m, ..)| (m, mems(m))).collect(),
        ),
        (
            "read_writes",
            writes.iter().map(|(m, ..)| (m, false)).collect(),
        ),
    ];
    for (fun, members) in reads {
        writeln!(
            w,
            "    static void {fun}(const {prefix}* t, uint32_t* w) {{\n        const auto* r = t->rootp;"
        )
        .unwrap();
        for (m, skip) in members {
            if skip {
                writeln!(
                    w,
                    "        w += words_of<decltype({prefix}___024root::{m})>();"
                )
                .unwrap();
            } else {
                writeln!(w, "        pack(w, r->{m});").unwrap();
            }
        }
        writeln!(w, "    }}").unwrap();
    }
    // write_state: read_state's words back into the registers and RAM words
    writeln!(
        w,
        "    static void write_state({prefix}* t, const uint32_t* w) {{\n        auto* r = t->rootp;"
    )
    .unwrap();
    for (m, ..) in &regs {
        writeln!(w, "        unpack(w, r->{m});").unwrap();
    }
    writeln!(w, "    }}").unwrap();
    let count = |w: &mut String, what: &str, items: &[String]| {
        writeln!(w, "    static size_t {what}() {{\n        size_t n = 0;").unwrap();
        for i in items {
            writeln!(w, "        n += words_of<{i}>();").unwrap();
        }
        writeln!(w, "        return n;\n    }}").unwrap();
    };
    let port_ty =
        |p: &str| format!("std::remove_reference_t<decltype(std::declval<{prefix}&>().{p})>");
    count(
        w,
        "input_words",
        &ins.iter().map(|(p, _)| port_ty(p)).collect::<Vec<_>>(),
    );
    count(
        w,
        "output_words",
        &outs.iter().map(|(p, _)| port_ty(p)).collect::<Vec<_>>(),
    );
    count(
        w,
        "write_words",
        &writes
            .iter()
            .map(|(m, ..)| format!("decltype({prefix}___024root::{m})"))
            .collect::<Vec<_>>(),
    );
    count(
        w,
        "state_words",
        &regs
            .iter()
            .map(|(m, ..)| format!("decltype({prefix}___024root::{m})"))
            .collect::<Vec<_>>(),
    );
    let mut layout = String::new();
    for (p, wd) in &ins {
        writeln!(layout, "i {p} {wd}").unwrap();
    }
    for (p, wd) in &outs {
        writeln!(layout, "o {p} {wd}").unwrap();
    }
    for (_, d, wd, dims) in &regs {
        let dims: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
        writeln!(layout, "s {d} {wd} {}", dims.join(" ")).unwrap();
    }
    for (_, d, wd) in &writes {
        writeln!(layout, "w {d} {wd}").unwrap();
    }
    writeln!(
        w,
        "    static const char* layout() {{\n        return R\"capfc({layout})capfc\";\n    }}"
    )
    .unwrap();
    writeln!(w, "}};\n}}  // namespace\n").unwrap();
    writeln!(w, "std::unique_ptr<DutV3> make_dut_{name}() {{\n    return std::unique_ptr<DutV3>(new DutV3Impl<{prefix}, Ports_{name}>());\n}}").unwrap();
    writeln!(w, "}}  // namespace capfc").unwrap();
    cc
}
