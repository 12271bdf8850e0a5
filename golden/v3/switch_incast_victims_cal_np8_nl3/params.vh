// capfc golden set switch_incast_victims_cal_np8_nl3: parameters for testbench/capfc_tb.sv (generated; see manifest.json)
`define CAPFC_V3 1
`define CAPFC_NP 8
`define CAPFC_SW 14
`define CAPFC_OW 20
`define CAPFC_CW 16
`define CAPFC_CELL_LOG2 0
`define CAPFC_CUT_F 8
`define CAPFC_NL 3
`define CAPFC_IN_BITS 383
`define CAPFC_OUT_BITS 241
`define CAPFC_CYCLES 40062
`define CAPFC_STIM_LINES 1715
`define CAPFC_EXPECT_LINES 40054
