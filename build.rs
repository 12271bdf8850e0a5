//! Verilates `rtl/` once per parameter set of `src/block/rtl_configs.rs` and links the result behind
//! the `cxx` bridge of `src/dut.rs`.
//!
//! The `verilated` crate predates Verilator 5 and does not build against it, so this does by hand
//! what it would: run `verilator --cc` into OUT_DIR, read the generated `*_classes.mk` for the file
//! list (Verilator 5 hashes file names and needs `verilated_threads.cpp`), compile with `cc` at a fixed
//! -O2 whatever the cargo profile, and generate the C++ that maps packed words to the model's ports
//! from `src/block/signals.rs`. The Verilator runtime and each configuration's objects are cached in
//! OUT_DIR under a content stamp, so a rebuild that changes neither is a link only.
//! Without the `rtl` feature nothing here runs and the model builds alone.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

include!("src/block/signals.rs");
include!("src/block/rtl_configs.rs");

const PARAM_NAMES: [&str; 7] = ["NP", "SW", "OW", "CW", "CELL_LOG2", "CUT_F", "NL"];

fn main() {
    for p in [
        "rtl",
        "cpp",
        "src/block/signals.rs",
        "src/block/rtl_configs.rs",
        "src/dut.rs",
    ] {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rerun-if-env-changed=VERILATOR");
    println!("cargo:rerun-if-env-changed=CAPFC_RTL_CONFIGS");
    if std::env::var_os("CARGO_FEATURE_RTL").is_none() {
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

    let files: Vec<String> = std::fs::read_to_string("rtl/files.f")
        .expect("rtl/files.f")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let mut rtl_hash = DefaultHasher::new();
    version.hash(&mut rtl_hash);
    for f in &files {
        std::fs::read(f)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
            .hash(&mut rtl_hash);
    }
    for f in ["cpp/dut_impl.h", "cpp/dut.h", "src/block/signals.rs"] {
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
    let mut fac = String::from("#pragma once\n#include <memory>\n#include <string>\n#include \"capfc/cpp/dut.h\"\nnamespace capfc {\n");
    for (n, _) in &configs {
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
    for (n, _) in &configs {
        writeln!(fac, "    if (n == \"{n}\") return make_dut_{n}();").unwrap();
    }
    fac.push_str("    return nullptr;\n}\n}  // namespace capfc\n");
    std::fs::write(out.join("dut_factory.h"), fac).unwrap();

    cxx_build::bridge("src/dut.rs")
        .file("cpp/dut_bridge.cc")
        .include(&out)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .compile("capfc_bridge");

    for (name, vals) in &configs {
        build_config(&verilator, &vinc, &out, &files, rtl_hash, name, vals);
    }
    build_runtime(&vinc, &out, &version);
    println!("cargo:rustc-link-lib=pthread");
}

fn stamp_ok(lib: &Path, stamp: &Path, want: &str) -> bool {
    lib.exists() && std::fs::read_to_string(stamp).is_ok_and(|s| s == want)
}

fn link(out: &Path, lib: &str) {
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static={lib}");
}

fn build_config(
    verilator: &str,
    vinc: &Path,
    out: &Path,
    files: &[String],
    rtl_hash: u64,
    name: &str,
    vals: &[u32; 7],
) {
    let prefix = format!("Vcapfc_{name}");
    let dir = out.join(format!("vl_{name}"));
    let lib = format!("vl_{name}");
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
        prefix.clone(),
        "--top-module".into(),
        "capfc_top".into(),
        "--Mdir".into(),
        dir.display().to_string(),
    ];
    for (k, v) in PARAM_NAMES.iter().zip(vals) {
        args.push(format!("-G{k}={v}"));
    }
    args.extend(files.iter().cloned());
    // The generated port mapping is part of what is built: a change to it (build.rs) rebuilds too.
    let cc = gen_ports(name, &prefix, vals[0] as usize);
    let mut h = DefaultHasher::new();
    cc.hash(&mut h);
    let want = format!("{rtl_hash:x} {:x} {}", h.finish(), args.join(" "));
    let stamp = dir.join("capfc.stamp");
    if stamp_ok(&out.join(format!("lib{lib}.a")), &stamp, &want) {
        link(out, &lib);
        return;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let st = Command::new(verilator)
        .args(&args)
        .status()
        .expect("run verilator");
    assert!(st.success(), "verilator failed for configuration {name}");

    // Generated files, from the make fragment Verilator writes.
    let mk = std::fs::read_to_string(dir.join(format!("{prefix}_classes.mk"))).unwrap();
    let mut sources = vec![];
    let mut take = false;
    for line in mk.lines() {
        let l = line.trim();
        if let Some((var, rest)) = l.split_once(" += ") {
            take = matches!(
                var.trim(),
                "VM_CLASSES_FAST" | "VM_CLASSES_SLOW" | "VM_SUPPORT_FAST" | "VM_SUPPORT_SLOW"
            );
            if take {
                sources.extend(
                    rest.split_whitespace()
                        .filter(|w| *w != "\\")
                        .map(String::from),
                );
            }
            take = take && l.ends_with('\\');
        } else if take {
            sources.extend(
                l.split_whitespace()
                    .filter(|w| *w != "\\")
                    .map(String::from),
            );
            take = l.ends_with('\\');
        } else {
            take = false;
        }
    }
    assert!(
        !sources.is_empty(),
        "no sources found in {prefix}_classes.mk"
    );

    // The word <-> port mapping of this configuration.
    let wrapper = dir.join(format!("dut_{name}.cc"));
    std::fs::write(&wrapper, cc).unwrap();

    let mut b = verilated_build(vinc);
    b.include(&dir)
        .include("cpp")
        .include(out)
        .flag("-fno-strict-aliasing")
        .file(&wrapper);
    for s in &sources {
        b.file(dir.join(format!("{s}.cpp")));
    }
    b.compile(&lib);
    std::fs::write(&stamp, want).unwrap();
}

/// The per-configuration C++: words to ports, ports to words, state registers to words.
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
        "// Generated by build.rs from src/block/signals.rs. Do not edit."
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
    // The lockstep's cheap view (docs/microarchitecture.md, "Lockstep"): the registers but the RAM
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

/// A C++ build of Verilated code: -O2 whatever the cargo profile, Verilator's include paths and the
/// model's compile-time switches (tracing on, no coverage, no SystemC).
fn verilated_build(vinc: &Path) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
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

fn build_runtime(vinc: &Path, out: &Path, version: &str) {
    let lib = "capfc_vlrt";
    let stamp = out.join("vlrt.stamp");
    if stamp_ok(&out.join(format!("lib{lib}.a")), &stamp, version) {
        link(out, lib);
        return;
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
}
