// capfc_ingress: ingress occupancy per (input port, priority) and the ingress congestion state I
//
// Contract (docs/microarchitecture.md, "Ingress"):
// - arr_accept[i] is combinational: arrival lane i is valid and occ_q[i*8+prio] + units(size) fits
//   under ing_max[prio] (compared in OW+1 bits). The decision uses occ_q: a departure in the same
//   cycle frees space only from the next cycle on.
// - Per queue q = {i, p}, the departure is applied first (mid = occ_q - units; I cleared when the
//   departure leaves mid <= XON), then the accepted arrival (occ_d = mid + units; I set when the
//   priority is lossless and occ_d > XOFF). occ_q and xoff_q (= I, driven out as i_state) show the
//   result in cycle t+1. A departure lane whose port is >= NP is ignored; departures are trusted
//   (removing more than a queue holds wraps modulo 2^OW).
// - Synchronous active-high rst clears occ_q and xoff_q to 0.
// - One always_comb computes every _d (reset included) and arr_accept, one always_ff copies them.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_ingress #(
    // number of ports
    parameter NP = 8,
    // packet size width (bytes)
    parameter SW = 14,
    // occupancy and threshold width (units)
    parameter OW = 20,
    // a unit is 2^CELL_LOG2 bytes
    parameter CELL_LOG2 = 0,
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // number of (port, priority) queues
    localparam NQ = NP*8
) (
    input  wire             clk,
    input  wire             rst,

    // configuration
    input  wire [8*OW-1:0]  cfg_ing_max,
    input  wire [8*OW-1:0]  cfg_ing_xoff,
    input  wire [8*OW-1:0]  cfg_ing_xon,
    input  wire [7:0]       cfg_lossless,

    // arrival lanes, one per input port
    input  wire [NP-1:0]    arr_valid,
    input  wire [NP*3-1:0]  arr_prio,
    input  wire [NP*SW-1:0] arr_size,
    output logic [NP-1:0]   arr_accept,

    // departure lane (into the pipeline)
    input  wire             dep_valid,
    input  wire [PW-1:0]    dep_port,
    input  wire [2:0]       dep_prio,
    input  wire [SW-1:0]    dep_size,

    // ingress congestion state I per queue
    output wire [NQ-1:0]    i_state
);

localparam integer NPRIO = capfc_pkg::NPRIO;
// NQ as a body localparam: Icarus 11 does not see the index in a loop bounded by the header's NQ
// ("A for statement must use the index")
localparam integer NQB = NQ;
// queue index width
localparam QIW = PW + 3;

// parameter check
if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 32 || CELL_LOG2 < 0 || CELL_LOG2 > 12 ||
        CELL_LOG2 >= SW) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_ingress: illegal parameters NP=%0d SW=%0d OW=%0d CELL_LOG2=%0d", NP, SW, OW, CELL_LOG2);
`else
    $error("capfc_ingress: illegal parameters (NP 2..128, SW 1..OW, OW ..32, CELL_LOG2 0..12 and < SW)");
`endif
end

// state
logic [OW-1:0]     occ_q [NQ] /*verilator public_flat_rd*/;
logic [NQ-1:0]     xoff_q     /*verilator public_flat_rd*/;
logic [OW-1:0]     occ_d [NQ];
logic [NQ-1:0]     xoff_d;

// thresholds per priority
logic [OW-1:0]     thr_max  [NPRIO];
logic [OW-1:0]     thr_xoff [NPRIO];
logic [OW-1:0]     thr_xon  [NPRIO];

// departure lane
logic              dep_ok;
logic [QIW-1:0]    dep_qi;
logic [OW-1:0]     dep_mid;

logic              dep_xon;

// arrival lane temporaries, and per lane: its priority, occupancy after it, XOFF crossing
logic [NP-1:0]     acc_t;
logic [2:0]        a_prio;
logic [QIW-1:0]    a_qi;
logic [OW-1:0]     a_units;
logic [OW-1:0]     a_cur;
logic [OW-1:0]     a_base;
logic [OW-1:0]     a_occ;
logic [2:0]        a_prio_t [NP];
logic [OW-1:0]     a_occ_t  [NP];
logic [NP-1:0]     a_xoff_t;
// per-queue temporaries
logic [QIW-1:0]    q_t;
logic [OW-1:0]     q_occ;
logic              q_xoff;

// Loop indices are declared in their for statements: slang then unrolls the loops and sees every
// temporary and array element of an always_comb assigned on all paths (no inferred latch).

assign i_state = xoff_q;

always_comb begin
    for (int k_c = 0; k_c < NPRIO; k_c = k_c + 1) begin
        thr_max[k_c]  = cfg_ing_max[k_c*OW +: OW];
        thr_xoff[k_c] = cfg_ing_xoff[k_c*OW +: OW];
        thr_xon[k_c]  = cfg_ing_xon[k_c*OW +: OW];
    end

    // Every write below has a constant index (one next-state mux per queue), and the only
    // run-time-indexed read of the whole table is the departure's: synthesis front ends then
    // elaborate in time linear in NQ.

    // departure first
    dep_ok  = dep_valid && ({1'b0, dep_port} < (PW+1)'($unsigned(NP)));
    dep_qi  = {dep_port, dep_prio};
    dep_mid = occ_q[dep_qi] - OW'({capfc_pkg::units(32'(dep_size), CELL_LOG2)});
    dep_xon = dep_mid <= thr_xon[dep_prio];

    // then the arrivals, one per input port (so at most one per queue); lane k_c reads its own
    // port's 8 queues only (defaults first: Verilator's latch check does not see through a loop
    // it does not unroll)
    acc_t    = '0;
    a_xoff_t = '0;
    xoff_d   = xoff_q;
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        a_prio  = arr_prio[k_c*3 +: 3];
        a_qi    = {PW'(k_c), a_prio};
        a_units = OW'({capfc_pkg::units(32'(arr_size[k_c*SW +: SW]), CELL_LOG2)});
        a_cur   = '0;
        for (int k_p = 0; k_p < NPRIO; k_p = k_p + 1) begin
            if (a_prio == 3'($unsigned(k_p))) begin
                a_cur = occ_q[k_c*NPRIO + k_p];
            end
        end
        acc_t[k_c] = arr_valid[k_c] && ({1'b0, a_cur} + {1'b0, a_units} <= {1'b0, thr_max[a_prio]});
        a_base = (dep_ok && dep_qi == a_qi) ? dep_mid : a_cur;
        a_occ  = a_base + a_units;
        a_prio_t[k_c] = a_prio;
        a_occ_t[k_c]  = a_occ;
        a_xoff_t[k_c] = cfg_lossless[a_prio] && a_occ > thr_xoff[a_prio];
    end

    // per queue q = {i, p}: the departure, then input i's arrival
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        for (int k_p = 0; k_p < NPRIO; k_p = k_p + 1) begin
            q_t    = {PW'($unsigned(k_c)), 3'($unsigned(k_p))};
            q_occ  = occ_q[k_c*NPRIO + k_p];
            q_xoff = xoff_q[k_c*NPRIO + k_p];
            if (dep_ok && dep_qi == q_t) begin
                q_occ = dep_mid;
                if (dep_xon) begin
                    q_xoff = 1'b0;
                end
            end
            if (acc_t[k_c] && a_prio_t[k_c] == 3'($unsigned(k_p))) begin
                q_occ = a_occ_t[k_c];
                if (a_xoff_t[k_c]) begin
                    q_xoff = 1'b1;
                end
            end
            occ_d[k_c*NPRIO + k_p]  = q_occ;
            xoff_d[k_c*NPRIO + k_p] = q_xoff;
        end
    end

    if (rst) begin
        for (int k_c = 0; k_c < NQB; k_c = k_c + 1) begin
            occ_d[k_c] = '0;
        end
        xoff_d = '0;
    end

    // written once per evaluation
    arr_accept = acc_t;
end

always_ff @(posedge clk) begin
    xoff_q <= xoff_d;
`ifdef VERILATOR
    // Under Verilator: version 5.006 cannot schedule a non-blocking array write in a loop it does not unroll (more
    // than 64 iterations: BLKLOOPINIT); Icarus 11 and Yosys 0.23 cannot assign a whole unpacked
    // array. Both forms copy every element.
    occ_q <= occ_d;
`else
    for (int k_f = 0; k_f < NQB; k_f = k_f + 1) begin
        occ_q[k_f] <= occ_d[k_f];
    end
`endif
end

endmodule

`resetall
