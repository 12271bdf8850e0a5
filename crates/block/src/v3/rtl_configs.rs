// The v3 block parameter sets that crates/rtl/build.rs verilates (capfc_top_oc, rtl/v3/files.f), one
// Verilated model each: (name, [NP, SW, OW, CW, CELL_LOG2, CUT_F, NL]), the parameters of
// `make v3-check` (mk/v3.mk). crates/rtl/build.rs includes this file. "v3_np4" (the tests' 4-port switch),
// "v3_np8_nl3" (the default switch's block: `make run`) and "v3_np6_cw4" (the fault matrix's
// lockstep at saturation, `tests/faults.rs`) are built unless CAPFC_V3_CONFIGS names
// others (a comma-separated list, or "all"): `make bench` builds the first five for the block
// benchmark at 8, 32 and 48 ports (V3_BENCH_CONFIGS), `make soak` all of them.

pub const V3_RTL_CONFIGS: &[(&str, [u32; 7])] = &[
    ("v3_np4", [4, 14, 20, 16, 0, 8, 2]),
    ("v3_np8", [8, 14, 20, 16, 0, 8, 2]),
    // the default switch's block (`capfc run --dut rtl|both`: v2's "np8", three
    // counted lossless classes)
    ("v3_np8_nl3", [8, 14, 20, 16, 0, 8, 3]),
    ("v3_np32", [32, 14, 20, 16, 0, 8, 2]),
    ("v3_np48", [48, 14, 20, 16, 0, 8, 2]),
    // the soak's corners (`make soak`; the first also by default): non-power-of-two port counts
    // (6 ports with 4-bit counters, saturated in a few packets; 12 ports), one counted class,
    // 64-byte cells
    ("v3_np6_cw4", [6, 14, 20, 4, 0, 8, 2]),
    ("v3_np4_nl1", [4, 14, 20, 16, 0, 8, 1]),
    ("v3_np12", [12, 14, 20, 16, 0, 8, 2]),
    ("v3_np8_cell64", [8, 14, 20, 16, 6, 8, 2]),
];

/// The configurations built when CAPFC_V3_CONFIGS is not set.
pub const V3_RTL_DEFAULT: &str = "v3_np4,v3_np8_nl3,v3_np6_cw4";
