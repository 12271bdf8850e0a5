//! `capfc step --block v3`: the REPL over a switch with the v3 block. Every value it prints is
//! read from the block's registers by their RTL names (`crates/block/src/v3/view.rs`), from the model or from
//! the Verilated RTL the same way, so one script prints one transcript on the model, the RTL and
//! both; `back`, `snapshot` and `restore` put the registers back (the RTL's through its state
//! words).

mod common;
use capfc::switch::{BlockKind, DutKind, FlowMode};
use capfc_cli::repl::{run_script, Session};

fn transcript(dut: DutKind, script: &str, json: bool) -> String {
    let mut s = Session::new(
        &common::incast4(),
        FlowMode::CapfcCal,
        dut,
        BlockKind::V3,
        1_000,
        json,
    )
    .unwrap();
    let mut out = vec![];
    run_script(&mut s, "test", script, &mut out).unwrap_or_else(|e| panic!("{dut:?}: {e}"));
    String::from_utf8(out).unwrap()
}

/// A sort under way (output 0's priority 3 over its egress XOFF, 25,600 bytes), then the first
/// XOFF the egress sends (the sort's E write), the state there, back and forth in time.
const SESSION: &str = "\
run until egress 0 3 > 25600
step 20
print sort
print C 0 3
run until xoff
print E
print C 0 3
print ID
print pfc
print cfg
print reg u_egress.e_q[6]
print reg d_q
print reg u_sort.pend_q[0]
snapshot x
break egress 0 3 >= 20000
watch D 1
run
print egress 0
print sort
delete all
back 300
print summary
step 2000
print sort
restore x
print E
";

#[test]
fn a_v3_session_reads_its_registers() {
    let t = transcript(DutKind::Model, SESSION, false);
    // what the session is about happened: a pause by E (the incast's inputs in E of output 0's
    // priority 3), counters that count them, a sort engine seen at work
    assert!(
        t.contains("PFC frame on port 1: prio 3 XOFF")
            || t.contains("PFC frame on port 2: prio 3 XOFF"),
        "{t}"
    );
    assert!(t.contains("busy on"), "no sort engine seen at work: {t}");
    assert!(t.contains("C 0 3 = [0,4,5,0]"), "{t}");
    insta::assert_snapshot!("session_v3_model", t);
}

/// The RTL's registers, read back by name, print the same session; so do model and RTL in lockstep.
#[cfg(feature = "rtl")]
#[test]
fn the_v3_rtl_and_both_print_the_same_session() {
    let model = transcript(DutKind::Model, SESSION, true);
    assert_eq!(transcript(DutKind::Rtl, SESSION, true), model, "--dut rtl");
    assert_eq!(
        transcript(DutKind::Both, SESSION, true),
        model,
        "--dut both"
    );
}

/// From the command line: `capfc step --block v3` on the default 8-port scenario (the model:
/// three counted classes), its banner naming the block; a register that does not exist is refused
/// with the names there are, and a bad `--block` with the ones there are.
#[test]
fn capfc_step_block_v3_from_the_command_line() {
    let (rc, out, err) = common::capfc(
        &["step", "--block", "v3"],
        "run until xoff\nprint C 0 3\nprint sort\nprint reg u_egress.gen_q[3]\n",
    );
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("block model (v3)"), "{out}");
    assert!(out.contains("xoff: PFC frame on port"), "{out}");
    assert!(out.contains("reg u_egress.gen_q[3] = "), "{out}");
    let (rc, _, err) = common::capfc(&["step", "--block", "v3"], "print reg u_egress.nope_q[1]\n");
    assert_ne!(rc, 0);
    assert!(
        err.contains("no register 'u_egress.nope_q'") && err.contains("u_egress.e_q[N]"),
        "{err}"
    );
    let (rc, _, err) = common::capfc(&["step", "--block", "v3"], "print reg u_egress.e_q[99]\n");
    assert_ne!(rc, 0);
    assert!(err.contains("u_egress.e_q has indices 0..="), "{err}");
    let (rc, _, err) = common::capfc(&["step", "--block", "v9"], "");
    assert_ne!(rc, 0);
    assert!(err.contains("--block 'v9': expected v2 or v3"), "{err}");
}

/// `wave FILE` with the v3 block: the model's waveform (`wave::TopWave`) with `--dut model`, the
/// Verilated RTL's trace with `--dut rtl`, both (`FILE_model.vcd`, `FILE_rtl.vcd`) with `--dut
/// both`: every signal under the RTL's names, the block's cycle c at times 2c and 2c + 1, the
/// model's at the same times as the RTL's.
#[test]
fn v3_wave_is_the_models_and_the_rtls() {
    let scratch = tempfile::Builder::new()
        .prefix("capfc_repl_v3_wave_")
        .tempdir()
        .unwrap();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("v3.vcd");
    let script = format!("step 100\nwave {}\nstep 50\nwave off\n", f.display());
    let first_time = |path: &std::path::Path| {
        let vcd =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            vcd.contains("snra_q") && vcd.contains("$scope module u_sort"),
            "{}",
            path.display()
        );
        vcd.lines()
            .find_map(|l| l.strip_prefix('#').and_then(|t| t.parse::<u64>().ok()))
            .unwrap()
    };
    let mut s = Session::new(
        &common::incast4(),
        FlowMode::CapfcCal,
        DutKind::Model,
        BlockKind::V3,
        1_000,
        false,
    )
    .unwrap();
    run_script(&mut s, "test", &script, &mut vec![]).unwrap();
    // (the first cycle dumped is the block's cycle after 100 switch cycles and its set-up)
    let model_first = first_time(&f);
    assert!(model_first >= 200 && model_first % 2 == 0, "{model_first}");
    #[cfg(feature = "rtl")]
    {
        std::fs::remove_file(&f).unwrap();
        let t = transcript(DutKind::Rtl, &script, false);
        assert!(t.contains(&f.display().to_string()), "{t}");
        assert_eq!(first_time(&f), model_first);
        let t = transcript(DutKind::Both, &script, false);
        let (m, r) = (dir.join("v3_model.vcd"), dir.join("v3_rtl.vcd"));
        assert!(
            t.contains(&m.display().to_string()) && t.contains(&r.display().to_string()),
            "{t}"
        );
        assert_eq!(first_time(&m), model_first);
        assert_eq!(first_time(&r), model_first);
        let (mn, _) = common::vcd_names(m.to_str().unwrap());
        let (rn, _) = common::vcd_names(r.to_str().unwrap());
        assert!(mn.iter().all(|n| rn.contains(n)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
