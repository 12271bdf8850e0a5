// The block parameter sets that build.rs verilates, one Verilated model each: (name, [NP, SW, OW,
// CW, CELL_LOG2, CUT_F]). build.rs includes this file, so these values are the ones passed to
// Verilator as -G options and the ones `BlockParams` uses for the same name: one place.
// "np8" is also `BlockParams::default()`.

pub const RTL_CONFIGS: &[(&str, [u32; 6])] = &[
    ("np4", [4, 14, 20, 16, 0, 8]),
    ("np8", [8, 14, 20, 16, 0, 8]),
    ("np16", [16, 14, 20, 16, 0, 8]),
    ("np32", [32, 14, 20, 16, 0, 8]),
    // 64-byte cells: occupancies and thresholds in cells.
    ("np8_cell64", [8, 14, 20, 16, 6, 8]),
    // 4-bit counters, so that saturation is reached in a few packets; a non-power-of-two port count.
    ("np6_cw4", [6, 14, 16, 4, 0, 8]),
];
