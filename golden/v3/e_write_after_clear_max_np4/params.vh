// capfc golden set e_write_after_clear_max_np4: parameters for testbench/capfc_tb.sv (generated; see manifest.json)
`define CAPFC_V3 1
`define CAPFC_NP 4
`define CAPFC_SW 14
`define CAPFC_OW 20
`define CAPFC_CW 16
`define CAPFC_CELL_LOG2 0
`define CAPFC_CUT_F 8
`define CAPFC_NL 2
`define CAPFC_IN_BITS 232
`define CAPFC_OUT_BITS 129
`define CAPFC_CYCLES 430
`define CAPFC_STIM_LINES 277
`define CAPFC_EXPECT_LINES 287
