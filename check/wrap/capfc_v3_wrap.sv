// capfc_v3_wrap: the v3 block (rtl/v3/capfc_top_oc.sv) with its D retimed by STAGES register
// stages and its PFC frames passed to the MACs through STAGES pipeline stages per port, each a skid
// buffer with back-pressure, as an FPGA team registers a block's outputs on their way to the MACs:
// a legal design that differs from capfc_top_oc in its latencies, for capfc check's matrix test
// (tests/check_matrix.rs).
//
// Contract:
// - The ports are capfc_top_oc's, with the same names and meaning, so that its map
//   (check/v3/capfc_top_v3.map.toml) reads this block with its scope changed.
// - The lanes, their readies and accepts: capfc_top_oc's, unchanged.
// - d_state: capfc_top_oc's of STAGES cycles before (STAGES = 0: a wire).
// - PFC frames: per port, capfc_top_oc's frame (pfc_cev, pfc_xoff and the pause time pfc_quanta)
//   is taken into a chain of STAGES capfc_wrap_skid stages when the chain's first stage is ready
//   (that is capfc_top_oc's pfc_ready) and offered to the MAC from the last stage: a frame is
//   never lost, duplicated or reordered; it reaches the MAC STAGES cycles after the block let it
//   go at the earliest, and a chain holds up to 2 * STAGES frames while its MAC is busy. A frame
//   waiting in a chain carries the D of the cycle the block let it go; changes of D after that go
//   into later frames (the block's own frame merges them while the chain is full).
// - pfc_quanta is one value for every port, as capfc_top_oc's: the pause time the lowest-indexed
//   port with a frame offered carries (frames of different ports carry different pause times
//   only when the pause time was rewritten while frames waited).
// - STAGES = 0: every output is capfc_top_oc's, wires.
// - Timing envelope: see tests/check_matrix.rs (the v3 envelope with its D windows STAGES cycles
//   later and the frame window widened for the frames a chain holds).
// - Synchronous active-high rst resets capfc_top_oc, the D stages and every chain (frames waiting
//   are dropped: the peer's state restarts with the block's).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v3_wrap #(
    // number of ports (2..128)
    parameter NP = 8,
    // packet size width in bytes (1..OW)
    parameter SW = 14,
    // occupancy and threshold width in units (SW..32)
    parameter OW = 20,
    // arrival counter width (1..16)
    parameter CW = 16,
    // a unit is 2^CELL_LOG2 bytes (0..12 and < SW, 0: bytes)
    parameter CELL_LOG2 = 0,
    // fractional bits of CUT (1..16)
    parameter CUT_F = 8,
    // counted classes: lossless priorities with counters and E (1..8)
    parameter NL = 2,
    // register stages on D and pipeline stages on each port's PFC frames (0: none)
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

    // the MAC of port i takes the offered PFC frame
    input  wire [NP-1:0]     pfc_ready,

    // admission (capfc_top_oc's)
    output wire [NP-1:0]     arr_ready,
    output wire [NP-1:0]     deq_ready,
    output wire [NP-1:0]     arr_accept,
    output wire              enq_accept,

    // PFC frames
    output wire [NP-1:0]     pfc_valid,
    output wire [NQ-1:0]     pfc_cev,
    output wire [NQ-1:0]     pfc_xoff,
    output wire [15:0]       pfc_quanta,

    // combined state D per (input port, priority)
    output wire [NQ-1:0]     d_state
);

// a frame in a chain: class enables, pause bits, pause time
localparam FW = 8 + 8 + 16;

if (STAGES < 0) begin : gen_param_check
`ifdef __ICARUS__
    initial $fatal(1, "capfc_v3_wrap: illegal parameter STAGES=%0d", STAGES);
`else
    $error("capfc_v3_wrap: illegal parameter (STAGES >= 0)");
`endif
end

// the block's PFC side and D before the wrapper
wire [NP-1:0]     blk_pfc_ready;
wire [NP-1:0]     blk_pfc_valid;
wire [NQ-1:0]     blk_pfc_cev;
wire [NQ-1:0]     blk_pfc_xoff;
wire [15:0]       blk_pfc_quanta;
wire [NQ-1:0]     blk_d_state;

capfc_top_oc #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F),
    .NL(NL)
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
    .pfc_ready(blk_pfc_ready),
    .arr_ready(arr_ready),
    .deq_ready(deq_ready),
    .arr_accept(arr_accept),
    .enq_accept(enq_accept),
    .pfc_valid(blk_pfc_valid),
    .pfc_cev(blk_pfc_cev),
    .pfc_xoff(blk_pfc_xoff),
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

if (STAGES == 0) begin : gen_pfc_wires
    assign blk_pfc_ready = pfc_ready;
    assign pfc_valid     = blk_pfc_valid;
    assign pfc_cev       = blk_pfc_cev;
    assign pfc_xoff      = blk_pfc_xoff;
    assign pfc_quanta    = blk_pfc_quanta;
end else begin : gen_pfc_chains
    // the last stage's frame of each port
    wire [FW-1:0] out_frame [NP];
    logic [15:0]  quanta_t;

    for (genvar i = 0; i < NP; i = i + 1) begin : gen_port
        // stage k's input is link k, its output link k + 1
        wire          link_valid [STAGES+1];
        wire          link_ready [STAGES+1];
        wire [FW-1:0] link_data  [STAGES+1];

        assign link_valid[0]    = blk_pfc_valid[i];
        assign link_data[0]     = {blk_pfc_cev[i*8 +: 8], blk_pfc_xoff[i*8 +: 8], blk_pfc_quanta};
        assign blk_pfc_ready[i] = link_ready[0];

        for (genvar k = 0; k < STAGES; k = k + 1) begin : gen_stage
            capfc_wrap_skid #(
                .W(FW)
            ) u_skid (
                .clk(clk),
                .rst(rst),
                .s_valid(link_valid[k]),
                .s_ready(link_ready[k]),
                .s_data(link_data[k]),
                .m_valid(link_valid[k+1]),
                .m_ready(link_ready[k+1]),
                .m_data(link_data[k+1])
            );
        end

        assign link_ready[STAGES]  = pfc_ready[i];
        assign pfc_valid[i]        = link_valid[STAGES];
        assign pfc_cev[i*8 +: 8]   = link_data[STAGES][FW-1 -: 8];
        assign pfc_xoff[i*8 +: 8]  = link_data[STAGES][FW-9 -: 8];
        assign out_frame[i]        = link_data[STAGES];
    end

    // the pause time of the lowest-indexed port with a frame offered
    always_comb begin
        quanta_t = '0;
        for (int k_q = NP - 1; k_q >= 0; k_q = k_q - 1) begin
            if (pfc_valid[k_q]) begin
                quanta_t = out_frame[k_q][15:0];
            end
        end
    end
    assign pfc_quanta = quanta_t;
end

endmodule

`resetall
