// capfc golden set counter_saturation_cal_np6_cw4: parameters for testbench/capfc_tb.sv (generated; see manifest.json)
`define CAPFC_V3 1
`define CAPFC_NP 6
`define CAPFC_SW 14
`define CAPFC_OW 20
`define CAPFC_CW 4
`define CAPFC_CELL_LOG2 0
`define CAPFC_CUT_F 8
`define CAPFC_NL 2
`define CAPFC_IN_BITS 309
`define CAPFC_OUT_BITS 185
`define CAPFC_CYCLES 810
`define CAPFC_STIM_LINES 516
`define CAPFC_EXPECT_LINES 703
