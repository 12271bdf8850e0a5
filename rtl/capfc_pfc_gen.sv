// capfc_pfc_gen: per-port pending PFC frame (valid/ready) from the combined state D, in the block
// (rtl/v3/capfc_top_oc.sv, instance u_pfc)
//
// Contract (docs/microarchitecture.md, "PFC frames"; v2's is the same):
// - Per port i, with d = d_state[i*8 +: 8] and s = sent_q[i*8 +: 8] (the D carried by the last frame
//   the MAC took): pfc_valid[i] = d != s || (d != 0 && timer_q[i] == 0), combinational.
// - pfc_cev[i] = d | s (paused now, and resumed since the last frame taken); pfc_xoff[i] = d;
//   pfc_quanta = cfg_quanta (one value for every class with pfc_xoff set).
// - The MAC takes the frame when pfc_valid[i] && pfc_ready[i]: sent_q <= d, timer_q[i] <= refresh;
//   otherwise timer_q[i] counts down to 0. A refresh is pending refresh + 1 cycles after a frame was
//   taken while D stays up. Changes of D merge into the pending frame until the MAC takes it.
// - Synchronous active-high rst clears sent_q and timer_q.
// - One always_comb computes every _d (reset included) and the outputs, one always_ff copies them.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_pfc_gen #(
    // number of ports
    parameter NP = 8,
    // number of (port, priority) classes
    localparam NQ = NP*8
) (
    input  wire              clk,
    input  wire              rst,

    // configuration
    input  wire [15:0]       cfg_quanta,
    input  wire [15:0]       cfg_refresh,

    // combined state D per (input port, priority)
    input  wire [NQ-1:0]     d_state,

    // PFC frames
    input  wire [NP-1:0]     pfc_ready,
    output logic [NP-1:0]    pfc_valid,
    output logic [NQ-1:0]    pfc_cev,
    output wire [NQ-1:0]     pfc_xoff,
    output wire [15:0]       pfc_quanta
);

// parameter check
if (NP < 2 || NP > 128) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_pfc_gen: illegal parameter NP=%0d", NP);
`else
    $error("capfc_pfc_gen: illegal parameter (NP 2..128)");
`endif
end

// state
logic [NQ-1:0]    sent_q       /*verilator public_flat_rd*/;
logic [15:0]      timer_q [NP] /*verilator public_flat_rd*/;
logic [NQ-1:0]    sent_d;
logic [15:0]      timer_d [NP];

// per-port temporaries
logic [7:0]       d;
logic [7:0]       s;
logic             v;
logic             take;
logic [NP-1:0]    valid_t;
logic [NQ-1:0]    cev_t;

// Loop indices are declared in their for statements: slang then unrolls the loops and sees every
// temporary and array element of an always_comb assigned on all paths (no inferred latch).

assign pfc_xoff   = d_state;
assign pfc_quanta = cfg_quanta;

always_comb begin
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        d    = d_state[k_c*8 +: 8];
        s    = sent_q[k_c*8 +: 8];
        v    = (d != s) || (d != 8'd0 && timer_q[k_c] == 16'd0);
        take = v && pfc_ready[k_c];

        valid_t[k_c]         = v;
        cev_t[k_c*8 +: 8]    = d | s;
        sent_d[k_c*8 +: 8]   = take ? d : s;
        timer_d[k_c]         = take ? cfg_refresh :
                               (timer_q[k_c] != 16'd0) ? timer_q[k_c] - 16'd1 : 16'd0;
        if (rst) begin
            sent_d[k_c*8 +: 8] = 8'd0;
            timer_d[k_c]       = 16'd0;
        end
    end

    // written once
    pfc_valid = valid_t;
    pfc_cev   = cev_t;
end

always_ff @(posedge clk) begin
    sent_q <= sent_d;
`ifdef VERILATOR
    // Under Verilator: version 5.006 cannot schedule a non-blocking array write in a loop it does not unroll (more
    // than 64 iterations: BLKLOOPINIT); Icarus 11 and Yosys 0.23 cannot assign a whole unpacked
    // array. Both forms copy every element.
    timer_q <= timer_d;
`else
    for (int k_f = 0; k_f < NP; k_f = k_f + 1) begin
        timer_q[k_f] <= timer_d[k_f];
    end
`endif
end

endmodule

`resetall
