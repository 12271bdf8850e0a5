// The block parameter sets that crates/rtl/build.rs verilates, one Verilated model each: (name, [NP, SW, OW,
// CW, CELL_LOG2, CUT_F, NL]). crates/rtl/build.rs includes this file, so these values are the ones passed to
// Verilator as -G options and the ones `BlockParams` uses for the same name: one place.
// "np8" is also `BlockParams::default()`, the switch's block (`capfc run`): it counts three lossless
// classes because the paper's scenarios (scenarios/paper-*.toml) make three priorities lossless.

pub const RTL_CONFIGS: &[(&str, [u32; 7])] = &[
    ("np4", [4, 14, 20, 16, 0, 8, 2]),
    ("np8", [8, 14, 20, 16, 0, 8, 3]),
    ("np16", [16, 14, 20, 16, 0, 8, 2]),
    ("np32", [32, 14, 20, 16, 0, 8, 2]),
    // The paper's commodity switch: 48 ports, two lossless classes.
    ("np48", [48, 14, 20, 16, 0, 8, 2]),
    // 64-byte cells: occupancies and thresholds in cells (the switch's block with `cell = 64`).
    ("np8_cell64", [8, 14, 20, 16, 6, 8, 3]),
    // 4-bit counters, so that saturation is reached in a few packets; a non-power-of-two port
    // count; three counted classes (a non-power-of-two NL).
    ("np6_cw4", [6, 14, 16, 4, 0, 8, 3]),
];
