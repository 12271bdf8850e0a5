// capfc_egress_sort_oc: a measurement wrapper, not a unit of the block. The v3 egress with
// the sort engines (v3's) beside it, as they sit in the block, so that the flow measures the egress with
// its counter read port and E writes inside (engine to RAM to engine), not through the harness's
// registers: make fpga PORTS=48 NL=2 FPGA_TOP=capfc_egress_sort_oc FPGA_FILES="$(V3_EGSORT)" (mk/v3.mk).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_egress_sort_oc #(
    parameter NP = 8,
    parameter SW = 14,
    parameter OW = 20,
    parameter CW = 16,
    parameter CELL_LOG2 = 0,
    parameter CUT_F = 8,
    parameter NL = 2,
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    localparam LW = (NL > 1) ? $clog2(NL) : 1,
    localparam NQ = NP*8,
    localparam NR = NP << LW
) (
    input  wire              clk,
    input  wire              rst,

    output logic [2:0]       cfg_ra,
    input  wire [OW-1:0]     cfg_eg_max,
    input  wire [OW-1:0]     cfg_eg_xoff,
    input  wire [OW-1:0]     cfg_eg_xon,
    input  wire [OW-1:0]     cfg_eg_warn,
    input  wire [7:0]        cfg_lossless,
    input  wire [1:0]        cfg_mode,
    input  wire [CUT_F:0]    cfg_cut,

    input  wire              enq_valid,
    input  wire [PW-1:0]     enq_oport,
    input  wire [2:0]        enq_prio,
    input  wire [PW-1:0]     enq_iport,
    input  wire [SW-1:0]     enq_size,
    output logic             enq_accept,

    input  wire [NP-1:0]     deq_valid,
    input  wire [NP*3-1:0]   deq_prio,
    input  wire [NP*SW-1:0]  deq_size,
    output logic [NP-1:0]    deq_ready,

    output logic [NQ-1:0]    e_other
);

logic [NR-1:0]    rclr, rtrig;
logic [NP-1:0]    sre, swr_en;
logic [NP*LW-1:0] srow, swr_l;
logic [NP*PW-1:0] sidx, swr_i;
logic [NP*CW-1:0] sval;

capfc_egress #(
    .NP(NP), .SW(SW), .OW(OW), .CW(CW), .CELL_LOG2(CELL_LOG2), .NL(NL)
) u_egress (
    .clk(clk), .rst(rst),
    .cfg_ra(cfg_ra), .cfg_eg_max(cfg_eg_max), .cfg_eg_xoff(cfg_eg_xoff), .cfg_eg_xon(cfg_eg_xon),
    .cfg_eg_warn(cfg_eg_warn), .cfg_lossless(cfg_lossless), .cfg_mode(cfg_mode),
    .enq_valid(enq_valid), .enq_oport(enq_oport), .enq_prio(enq_prio), .enq_iport(enq_iport),
    .enq_size(enq_size), .enq_accept(enq_accept),
    .deq_valid(deq_valid), .deq_prio(deq_prio), .deq_size(deq_size), .deq_ready(deq_ready),
    .rclr(rclr), .rtrig(rtrig),
    .sre(sre), .srow(srow), .sidx(sidx), .sval(sval),
    .swr_en(swr_en), .swr_l(swr_l), .swr_i(swr_i),
    .e_other(e_other)
);

capfc_sort #(
    .NP(NP), .CW(CW), .CUT_F(CUT_F), .NL(NL)
) u_sort (
    .clk(clk), .rst(rst),
    .cfg_mode_cal(cfg_mode[1]), .cfg_cut(cfg_cut),
    .rclr(rclr), .rtrig(rtrig),
    .sre(sre), .srow(srow), .sidx(sidx), .sval(sval),
    .swr_en(swr_en), .swr_l(swr_l), .swr_i(swr_i)
);

endmodule

`resetall
