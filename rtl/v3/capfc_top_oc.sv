// capfc_top_oc: the CaPFC block (v3, docs/microarchitecture.md). Its configuration registers
// (rtl/v3/capfc_cfg.sv, the thresholds in LUT RAM), the ingress, the egress and the sort engines
// (rtl/v3), the PFC generator (rtl/capfc_pfc_gen.sv) and D registered: the ports of v2's top
// (check/capfc_v2), the lanes' readies added, the accepts 4 cycles after the take. crates/rtl/build.rs verilates it from
// rtl/v3/files.f (the model beside it: crates/block/src/v3/top.rs); make v3-check checks it whole against the
// contract, make fpga-v3 places and routes it (docs/fpga.md).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_top_oc #(
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

    // the MAC of port i takes the pending PFC frame
    input  wire [NP-1:0]     pfc_ready,

    // admission: the ports' slot readies (a per-port lane is taken when valid and ready; the
    // shared lanes when valid and their port's: the departure on arr_ready[dep_port], the enqueue
    // on deq_ready[enq_oport], no output depending on an input), the accepts 4 cycles after the
    // take
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

// class index width and number of rows {o, l}
localparam LW = (NL > 1) ? $clog2(NL) : 1;
localparam NR = NP << LW;

// parameter check
if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 32 || CW < 1 || CW > 16 ||
        CELL_LOG2 < 0 || CELL_LOG2 > 12 || CELL_LOG2 >= SW || CUT_F < 1 || CUT_F > 16 ||
        NL < 1 || NL > 8) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_top_oc: illegal parameters NP=%0d SW=%0d OW=%0d CW=%0d CELL_LOG2=%0d CUT_F=%0d NL=%0d",
        NP, SW, OW, CW, CELL_LOG2, CUT_F, NL);
`else
    $error("capfc_top_oc: illegal parameters (see the parameter table in docs/microarchitecture.md)");
`endif
end

// configuration (the thresholds: the priority each unit's refresh reads, ing_ra and eg_ra)
wire [2:0]       ing_ra;
wire [2:0]       eg_ra;
wire [OW-1:0]    cfg_ing_max;
wire [OW-1:0]    cfg_ing_xoff;
wire [OW-1:0]    cfg_ing_xon;
wire [OW-1:0]    cfg_eg_max;
wire [OW-1:0]    cfg_eg_xoff;
wire [OW-1:0]    cfg_eg_xon;
wire [OW-1:0]    cfg_eg_warn;
wire [7:0]       cfg_lossless;
wire [1:0]       cfg_mode;
wire [CUT_F:0]   cfg_cut;
wire [15:0]      cfg_quanta;
wire [15:0]      cfg_refresh;

// congestion state
wire [NQ-1:0]    i_state;
wire [NQ-1:0]    e_other;

// egress <-> sort engines
wire [NR-1:0]    rclr;
wire [NR-1:0]    rtrig;
wire [NP-1:0]    sre;
wire [NP*LW-1:0] srow;
wire [NP*PW-1:0] sidx;
wire [NP*CW-1:0] sval;
wire [NP-1:0]    swr_en;
wire [NP*LW-1:0] swr_l;
wire [NP*PW-1:0] swr_i;

capfc_cfg #(
    .OW(OW),
    .CUT_F(CUT_F)
) u_cfg (
    .clk(clk),
    .rst(rst),
    .cfg_we(cfg_we),
    .cfg_addr(cfg_addr),
    .cfg_wdata(cfg_wdata),
    .ing_ra(ing_ra),
    .eg_ra(eg_ra),
    .cfg_ing_max(cfg_ing_max),
    .cfg_ing_xoff(cfg_ing_xoff),
    .cfg_ing_xon(cfg_ing_xon),
    .cfg_eg_max(cfg_eg_max),
    .cfg_eg_xoff(cfg_eg_xoff),
    .cfg_eg_xon(cfg_eg_xon),
    .cfg_eg_warn(cfg_eg_warn),
    .cfg_lossless(cfg_lossless),
    .cfg_mode(cfg_mode),
    .cfg_cut(cfg_cut),
    .cfg_quanta(cfg_quanta),
    .cfg_refresh(cfg_refresh)
);

capfc_ingress #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CELL_LOG2(CELL_LOG2)
) u_ingress (
    .clk(clk),
    .rst(rst),
    .cfg_ra(ing_ra),
    .cfg_ing_max(cfg_ing_max),
    .cfg_ing_xoff(cfg_ing_xoff),
    .cfg_ing_xon(cfg_ing_xon),
    .cfg_lossless(cfg_lossless),
    .arr_valid(arr_valid),
    .arr_prio(arr_prio),
    .arr_size(arr_size),
    .arr_ready(arr_ready),
    .arr_accept(arr_accept),
    .dep_valid(dep_valid),
    .dep_port(dep_port),
    .dep_prio(dep_prio),
    .dep_size(dep_size),
    .i_state(i_state)
);

capfc_egress #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .NL(NL)
) u_egress (
    .clk(clk),
    .rst(rst),
    .cfg_ra(eg_ra),
    .cfg_eg_max(cfg_eg_max),
    .cfg_eg_xoff(cfg_eg_xoff),
    .cfg_eg_xon(cfg_eg_xon),
    .cfg_eg_warn(cfg_eg_warn),
    .cfg_lossless(cfg_lossless),
    .cfg_mode(cfg_mode),
    .enq_valid(enq_valid),
    .enq_oport(enq_oport),
    .enq_prio(enq_prio),
    .enq_iport(enq_iport),
    .enq_size(enq_size),
    .enq_accept(enq_accept),
    .deq_valid(deq_valid),
    .deq_prio(deq_prio),
    .deq_size(deq_size),
    .deq_ready(deq_ready),
    .rclr(rclr),
    .rtrig(rtrig),
    .sre(sre),
    .srow(srow),
    .sidx(sidx),
    .sval(sval),
    .swr_en(swr_en),
    .swr_l(swr_l),
    .swr_i(swr_i),
    .e_other(e_other)
);

capfc_sort #(
    .NP(NP),
    .CW(CW),
    .CUT_F(CUT_F),
    .NL(NL)
) u_sort (
    .clk(clk),
    .rst(rst),
    .cfg_mode_cal(cfg_mode[1]),
    .cfg_cut(cfg_cut),
    .rclr(rclr),
    .rtrig(rtrig),
    .sre(sre),
    .srow(srow),
    .sidx(sidx),
    .sval(sval),
    .swr_en(swr_en),
    .swr_l(swr_l),
    .swr_i(swr_i)
);

// combined state D, registered (v3): I, or E of the same priority from every other output port
logic [NQ-1:0] d_q, d_d;

always_comb begin
    d_d = rst ? '0 : (i_state | e_other);
end

always_ff @(posedge clk) begin
    d_q <= d_d;
end

assign d_state = d_q;

capfc_pfc_gen #(
    .NP(NP)
) u_pfc (
    .clk(clk),
    .rst(rst),
    .cfg_quanta(cfg_quanta),
    .cfg_refresh(cfg_refresh),
    .d_state(d_state),
    .pfc_ready(pfc_ready),
    .pfc_valid(pfc_valid),
    .pfc_cev(pfc_cev),
    .pfc_xoff(pfc_xoff),
    .pfc_quanta(pfc_quanta)
);

endmodule

`resetall
