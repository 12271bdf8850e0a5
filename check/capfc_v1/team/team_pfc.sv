// team_pfc: the v1 block as another team would have named and encoded it, at 4 ports. It is a
// wrapper only (the logic is capfc_v1_top), so that a map written from the README alone can be
// tried on ports that share nothing with ours but their meaning:
// - an active-low reset, a register port named csr_*;
// - one signal per port instead of packed buses (rx0_valid .. rx3_valid, tx0_pop ..);
// - D as one bus in priority-major order (pause_tc[p*4 + i]);
// - the PFC request per port: a pulse p<i>_pfc_req with a class-enable vector p<i>_pfc_en, an XOFF
//   vector p<i>_pfc_xoff (1 = pause) and 8 x 16-bit pause times p<i>_pfc_time.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module team_pfc #(
    parameter SW = 14,
    parameter OW = 20,
    parameter CW = 16,
    parameter CELL_LOG2 = 0,
    parameter CUT_F = 8
) (
    input  wire          clk_core,
    input  wire          rst_core_n,
    input  wire          csr_wr,
    input  wire [7:0]    csr_addr,
    input  wire [31:0]   csr_wdata,
    // arrivals
    input  wire          rx0_valid, rx1_valid, rx2_valid, rx3_valid,
    input  wire [2:0]    rx0_tc, rx1_tc, rx2_tc, rx3_tc,
    input  wire [SW-1:0] rx0_len, rx1_len, rx2_len, rx3_len,
    output wire          rx0_admit, rx1_admit, rx2_admit, rx3_admit,
    // departures into the pipeline
    input  wire          ing_free_valid,
    input  wire [1:0]    ing_free_port,
    input  wire [2:0]    ing_free_tc,
    input  wire [SW-1:0] ing_free_len,
    // enqueues at the egress
    input  wire          eg_push_valid,
    input  wire [1:0]    eg_push_out,
    input  wire [1:0]    eg_push_in,
    input  wire [2:0]    eg_push_tc,
    input  wire [SW-1:0] eg_push_len,
    output wire          eg_push_admit,
    // dequeues
    input  wire          tx0_pop, tx1_pop, tx2_pop, tx3_pop,
    input  wire [2:0]    tx0_tc, tx1_tc, tx2_tc, tx3_tc,
    input  wire [SW-1:0] tx0_len, tx1_len, tx2_len, tx3_len,
    // D, priority-major
    output wire [31:0]   pause_tc,
    // PFC requests
    output wire          p0_pfc_req, p1_pfc_req, p2_pfc_req, p3_pfc_req,
    output wire [7:0]    p0_pfc_en, p1_pfc_en, p2_pfc_en, p3_pfc_en,
    output wire [7:0]    p0_pfc_xoff, p1_pfc_xoff, p2_pfc_xoff, p3_pfc_xoff,
    output wire [127:0]  p0_pfc_time, p1_pfc_time, p2_pfc_time, p3_pfc_time
);

localparam NP = 4;

wire [NP-1:0]      arr_accept;
wire               enq_accept;
wire [NP-1:0]      pfc_valid;
wire [NP*8-1:0]    pfc_cev;
wire [NP*128-1:0]  pfc_quanta;
wire [NP*8-1:0]    d_state;
logic [NP*8-1:0]   xoff;

capfc_v1_top #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F)
) u_core (
    .clk(clk_core),
    .rst(!rst_core_n),
    .cfg_we(csr_wr),
    .cfg_addr(csr_addr),
    .cfg_wdata(csr_wdata),
    .arr_valid({rx3_valid, rx2_valid, rx1_valid, rx0_valid}),
    .arr_prio({rx3_tc, rx2_tc, rx1_tc, rx0_tc}),
    .arr_size({rx3_len, rx2_len, rx1_len, rx0_len}),
    .dep_valid(ing_free_valid),
    .dep_port(ing_free_port),
    .dep_prio(ing_free_tc),
    .dep_size(ing_free_len),
    .enq_valid(eg_push_valid),
    .enq_oport(eg_push_out),
    .enq_prio(eg_push_tc),
    .enq_iport(eg_push_in),
    .enq_size(eg_push_len),
    .deq_valid({tx3_pop, tx2_pop, tx1_pop, tx0_pop}),
    .deq_prio({tx3_tc, tx2_tc, tx1_tc, tx0_tc}),
    .deq_size({tx3_len, tx2_len, tx1_len, tx0_len}),
    .arr_accept(arr_accept),
    .enq_accept(enq_accept),
    .pfc_valid(pfc_valid),
    .pfc_cev(pfc_cev),
    .pfc_quanta(pfc_quanta),
    .d_state(d_state)
);

assign {rx3_admit, rx2_admit, rx1_admit, rx0_admit} = arr_accept;
assign eg_push_admit = enq_accept;
assign {p3_pfc_req, p2_pfc_req, p1_pfc_req, p0_pfc_req} = pfc_valid;
assign {p3_pfc_en, p2_pfc_en, p1_pfc_en, p0_pfc_en} = pfc_cev;
assign {p3_pfc_time, p2_pfc_time, p1_pfc_time, p0_pfc_time} = pfc_quanta;
assign {p3_pfc_xoff, p2_pfc_xoff, p1_pfc_xoff, p0_pfc_xoff} = xoff;

// XOFF vector: a class with a non-zero pause time pauses
always_comb begin
    for (int q = 0; q < NP*8; q = q + 1) begin
        xoff[q] = pfc_quanta[q*16 +: 16] != 16'd0;
    end
end

// D regrouped priority-major: bit p*NP + i is port i's priority p
for (genvar i = 0; i < NP; i = i + 1) begin : gen_port
    for (genvar p = 0; p < 8; p = p + 1) begin : gen_prio
        assign pause_tc[p*NP + i] = d_state[i*8 + p];
    end
end

endmodule

`resetall
