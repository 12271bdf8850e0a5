// capfc_v1_wrap: check/capfc_v1's block (capfc_v1_top) with its D and its PFC pulse retimed by
// STAGES register stages, as an FPGA team registers a block's outputs towards the MACs: a legal
// design that differs from capfc_v1_top only in its latencies, for capfc check's matrix test
// (tests/check_matrix.rs).
//
// Contract:
// - The ports are capfc_v1_top's, with the same names and meaning, so that its map
//   (check/capfc_v1/capfc_v1.map.toml) reads this block with its scope changed.
// - arr_accept, enq_accept: capfc_v1_top's, unchanged (combinational in the lane's cycle).
// - d_state, pfc_valid, pfc_cev, pfc_quanta: capfc_v1_top's of STAGES cycles before (STAGES = 0:
//   wires). D and the pulse are delayed alike, so a frame still carries D of the cycle before it.
// - Timing envelope: capfc_v1_top's with the ingress, e_clear, stop_max and stop_cal windows
//   STAGES cycles later; frame, refresh, accepts and reset unchanged.
// - Synchronous active-high rst resets capfc_v1_top and every delay stage (D and the pulse are 0
//   from the cycle after a reset, as capfc_v1_top's).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_wrap #(
    // number of ports (2..128)
    parameter NP = 8,
    // packet size width in bytes (1..OW)
    parameter SW = 14,
    // occupancy and threshold width in units (SW..32)
    parameter OW = 20,
    // arrival counter width (1..16)
    parameter CW = 16,
    // a unit is 2^CELL_LOG2 bytes (0..12, 0: bytes)
    parameter CELL_LOG2 = 0,
    // fractional bits of CUT (1..16)
    parameter CUT_F = 8,
    // register stages on D and the PFC pulse (0: none)
    parameter STAGES = 1,
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // number of (port, priority) queues
    localparam NQ = NP*8
) (
    input  wire              clk,
    input  wire              rst,

    // configuration write port
    input  wire              cfg_we,
    input  wire [7:0]        cfg_addr,
    input  wire [31:0]       cfg_wdata,

    // ingress arrival lanes, one per input port
    input  wire [NP-1:0]     arr_valid,
    input  wire [NP*3-1:0]   arr_prio,
    input  wire [NP*SW-1:0]  arr_size,

    // ingress departure lane (into the pipeline)
    input  wire              dep_valid,
    input  wire [PW-1:0]     dep_port,
    input  wire [2:0]        dep_prio,
    input  wire [SW-1:0]     dep_size,

    // egress enqueue lane (end of the pipeline)
    input  wire              enq_valid,
    input  wire [PW-1:0]     enq_oport,
    input  wire [2:0]        enq_prio,
    input  wire [PW-1:0]     enq_iport,
    input  wire [SW-1:0]     enq_size,

    // egress dequeue lanes, one per output port
    input  wire [NP-1:0]     deq_valid,
    input  wire [NP*3-1:0]   deq_prio,
    input  wire [NP*SW-1:0]  deq_size,

    // admission
    output wire [NP-1:0]     arr_accept,
    output wire              enq_accept,

    // PFC frame requests (a one-cycle pulse per port)
    output wire [NP-1:0]     pfc_valid,
    output wire [NQ-1:0]     pfc_cev,
    output wire [NQ*16-1:0]  pfc_quanta,

    // combined state D per (input port, priority)
    output wire [NQ-1:0]     d_state
);

if (STAGES < 0) begin : gen_param_check
`ifdef __ICARUS__
    initial $fatal(1, "capfc_v1_wrap: illegal parameter STAGES=%0d", STAGES);
`else
    $error("capfc_v1_wrap: illegal parameter (STAGES >= 0)");
`endif
end

// the block's outputs before the delay
wire [NP-1:0]     blk_pfc_valid;
wire [NQ-1:0]     blk_pfc_cev;
wire [NQ*16-1:0]  blk_pfc_quanta;
wire [NQ-1:0]     blk_d_state;

capfc_v1_top #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F)
) u_blk (
    .clk(clk),
    .rst(rst),
    .cfg_we(cfg_we),
    .cfg_addr(cfg_addr),
    .cfg_wdata(cfg_wdata),
    .arr_valid(arr_valid),
    .arr_prio(arr_prio),
    .arr_size(arr_size),
    .dep_valid(dep_valid),
    .dep_port(dep_port),
    .dep_prio(dep_prio),
    .dep_size(dep_size),
    .enq_valid(enq_valid),
    .enq_oport(enq_oport),
    .enq_prio(enq_prio),
    .enq_iport(enq_iport),
    .enq_size(enq_size),
    .deq_valid(deq_valid),
    .deq_prio(deq_prio),
    .deq_size(deq_size),
    .arr_accept(arr_accept),
    .enq_accept(enq_accept),
    .pfc_valid(blk_pfc_valid),
    .pfc_cev(blk_pfc_cev),
    .pfc_quanta(blk_pfc_quanta),
    .d_state(blk_d_state)
);

capfc_wrap_delay #(
    .W(NQ),
    .STAGES(STAGES)
) u_d_delay (
    .clk(clk),
    .rst(rst),
    .d(blk_d_state),
    .q(d_state)
);

// the pulse: its valid bits and its fields alike
capfc_wrap_delay #(
    .W(NP + NQ + NQ*16),
    .STAGES(STAGES)
) u_pfc_delay (
    .clk(clk),
    .rst(rst),
    .d({blk_pfc_valid, blk_pfc_cev, blk_pfc_quanta}),
    .q({pfc_valid, pfc_cev, pfc_quanta})
);

endmodule

`resetall
