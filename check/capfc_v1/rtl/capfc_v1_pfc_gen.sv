// capfc_v1_pfc_gen: per-port PFC frame requests (XOFF, XON and refresh) from the combined state D
//
// Contract (docs/microarchitecture-v2.md, "Combined state and PFC frame generation"):
// - Per port i, with d = d_state[i*8 +: 8] and prev = prev_q[i*8 +: 8]: a frame is requested when D
//   changes (change) or, while D != 0 stays unchanged, when timer_q[i] has run down to 0 (refresh).
// - Outputs are registered: a D change visible in cycle u gives pfc_valid[i] high for exactly one
//   cycle, u+1, with class-enable vector d | prev and quanta cfg_quanta for every class set in d
//   (0 = resume for the others). There is no ready: the MAC takes the latest request.
// - timer_q[i] reloads cfg_refresh on every frame and counts down to 0 otherwise, so a refresh goes
//   out cfg_refresh + 1 cycles after the previous frame while D stays up.
// - Synchronous active-high rst clears every register (and so every output) to 0.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_pfc_gen #(
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

    // PFC frame requests
    output wire [NP-1:0]     pfc_valid,
    output wire [NQ-1:0]     pfc_cev,
    output wire [NQ*16-1:0]  pfc_quanta
);

// parameter check
if (NP < 2 || NP > 128) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v1_pfc_gen: illegal parameter NP=%0d", NP);
`else
    $error("capfc_v1_pfc_gen: illegal parameter (NP 2..128)");
`endif
end

// state
logic [NQ-1:0]    prev_q  /*verilator public_flat_rd*/;
logic [15:0]      timer_q [NP] /*verilator public_flat_rd*/;
logic [NP-1:0]    valid_q;
logic [NQ-1:0]    cev_q;
logic [NQ*16-1:0] quanta_q;

logic [NQ-1:0]    prev_d;
logic [NP*16-1:0] timer_d;
logic [NP-1:0]    valid_d;
logic [NQ-1:0]    cev_d;
logic [NQ*16-1:0] quanta_d;

// per-port temporaries
logic [7:0]       d;
logic [7:0]       prev;
logic             change;
logic             refresh;
logic             emit;

integer k_c;
integer k_p;
integer k_f;

genvar gi;

assign pfc_valid  = valid_q;
assign pfc_cev    = cev_q;
assign pfc_quanta = quanta_q;

always_comb begin
    prev_d   = d_state;
    timer_d  = '0;
    valid_d  = '0;
    cev_d    = '0;
    for (k_c = 0; k_c < NP; k_c = k_c + 1) begin
        d       = d_state[k_c*8 +: 8];
        prev    = prev_q[k_c*8 +: 8];
`ifdef CAPFC_V1_BUG_XON_NEVER
        // seeded bug: only a new pause is a change, a class that resumes is never announced
        change  = (d & ~prev) != 8'd0;
`else
        change  = d != prev;
`endif
        refresh = (d != 8'd0) && !change && (timer_q[k_c] == 16'd0);
        emit    = change || refresh;

        valid_d[k_c]       = emit;
        cev_d[k_c*8 +: 8]  = emit ? (d | prev) : 8'd0;
        for (k_p = 0; k_p < 8; k_p = k_p + 1) begin
            quanta_d[(k_c*8+k_p)*16 +: 16] = (emit && d[k_p]) ? cfg_quanta : 16'd0;
        end
`ifdef CAPFC_V1_BUG_LATE_REFRESH
        // seeded bug: the refresh timer reloads 8 cycles more than the period
        timer_d[k_c*16 +: 16] = emit ? cfg_refresh + 16'd8 :
`else
        timer_d[k_c*16 +: 16] = emit ? cfg_refresh :
`endif
                                (timer_q[k_c] != 16'd0) ? timer_q[k_c] - 16'd1 : 16'd0;
    end
`ifdef CAPFC_V1_BUG_LOST_FRAME
    // seeded bug: one request slot shared by the ports: when several ports have a frame in the
    // same cycle only the lowest-numbered one goes out, the others are lost
    valid_d = valid_d & (~valid_d + NP'(1));
`endif
end

always_ff @(posedge clk) begin
    if (rst) begin
        prev_q   <= '0;
        valid_q  <= '0;
        cev_q    <= '0;
        // per port: a single '0 of NQ*16 bits exceeds Verilator's 8k replication check at NP=128
        for (k_f = 0; k_f < NP; k_f = k_f + 1) begin
            quanta_q[k_f*128 +: 128] <= '0;
        end
    end else begin
        prev_q   <= prev_d;
        valid_q  <= valid_d;
        cev_q    <= cev_d;
        quanta_q <= quanta_d;
    end
end

// refresh timers (one block per entry: no array write inside a loop)
for (gi = 0; gi < NP; gi = gi + 1) begin : gen_timer
    always_ff @(posedge clk) begin
        if (rst) begin
            timer_q[gi] <= '0;
        end else begin
            timer_q[gi] <= timer_d[gi*16 +: 16];
        end
    end
end

endmodule

`resetall
