// capfc_v1_ingress: ingress occupancy per (input port, priority) and the ingress congestion state I
//
// Contract (docs/microarchitecture-v2.md, "Ingress"):
// - arr_accept[i] is combinational: arrival lane i is valid and occ_q[i*8+prio] + units(size) fits
//   under ing_max[prio] (compared in OW+1 bits). The decision uses occ_q: a departure in the same
//   cycle frees space only from the next cycle on.
// - Per queue q = i*8+p, the departure is applied first (mid = occ_q - units; I cleared when the
//   departure leaves mid <= XON), then the accepted arrival (occ_d = mid + units; I set when the
//   priority is lossless and occ_d > XOFF). occ_q and xoff_q (= I, driven out as i_state) show the
//   result in cycle t+1. With CAPFC_V1_ADD_FIRST the other order: the accepted arrival first (mid =
//   occ_q + units; I set when lossless and mid > XOFF), then the departure (occ_d = mid - units; I
//   cleared when occ_d <= XON); the accept still compares occ_q. A departure lane whose port is >= NP is ignored; departures are trusted
//   (removing more than a queue holds wraps modulo 2^OW).
// - Synchronous active-high rst clears occ_q and xoff_q to 0.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_ingress #(
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

// queue index width
localparam QIW = PW + 3;

// rounding addend of units(), computed in SW+1 bits as the spec says
localparam [63:0] CELL_RND_FULL = (64'd1 << CELL_LOG2) - 64'd1;
localparam [SW:0] CELL_RND = CELL_RND_FULL[SW:0];

// parameter check
if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 32 || CELL_LOG2 < 0 || CELL_LOG2 > 12) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v1_ingress: illegal parameters NP=%0d SW=%0d OW=%0d CELL_LOG2=%0d", NP, SW, OW, CELL_LOG2);
`else
    $error("capfc_v1_ingress: illegal parameters (NP 2..128, SW 1..OW, OW ..32, CELL_LOG2 0..12)");
`endif
end

// size in bytes to units, in SW+1 bits
function automatic logic [SW:0] units(input logic [SW-1:0] size);
    units = ({1'b0, size} + CELL_RND) >> CELL_LOG2;
endfunction

// state
logic [OW-1:0]     occ_q [NQ] /*verilator public_flat_rd*/;
logic [NQ-1:0]     xoff_q /*verilator public_flat_rd*/;
logic [NQ-1:0]     xoff_d;

// departure lane
logic              dep_ok;
logic [QIW-1:0]    dep_qi;
logic [OW-1:0]     dep_mid;

// arrival lanes: queue, occupancy after departure and arrival, write enable
logic [NP*QIW-1:0] arr_qi;
logic [NP*OW-1:0]  arr_occ;
logic [NP-1:0]     arr_we;
// departure write, steered to the block of its port
logic [NP-1:0]     dep_we;

// loop temporaries
logic [2:0]        a_prio;
logic [QIW-1:0]    a_qi;
logic [SW:0]       a_units;
logic [OW-1:0]     a_base;

integer k_c;

genvar gp;

assign i_state = xoff_q;

always_comb begin
    dep_ok  = dep_valid && ({1'b0, dep_port} < (PW+1)'(NP));
    dep_qi  = {dep_port, dep_prio};
    xoff_d  = xoff_q;
`ifndef CAPFC_V1_ADD_FIRST
    // departure first
    dep_mid = occ_q[dep_qi] - OW'(units(dep_size));
    if (dep_ok && dep_mid <= cfg_ing_xon[dep_prio*OW +: OW]) begin
        xoff_d[dep_qi] = 1'b0;
    end
`endif

    // the arrivals, one per input port (so one per queue)
    for (k_c = 0; k_c < NP; k_c = k_c + 1) begin
        a_prio  = arr_prio[k_c*3 +: 3];
        a_qi    = {PW'(k_c), a_prio};
        a_units = units(arr_size[k_c*SW +: SW]);

`ifdef CAPFC_V1_BUG_DROP_FITS
        // seeded bug: < instead of <=, a packet that fills the queue exactly to MAX is dropped
        arr_accept[k_c] = arr_valid[k_c] &&
            ({1'b0, occ_q[a_qi]} + (OW+1)'(a_units) < {1'b0, cfg_ing_max[a_prio*OW +: OW]});
`else
        arr_accept[k_c] = arr_valid[k_c] &&
            ({1'b0, occ_q[a_qi]} + (OW+1)'(a_units) <= {1'b0, cfg_ing_max[a_prio*OW +: OW]});
`endif

`ifdef CAPFC_V1_ADD_FIRST
        // the arrival before the departure: the departure of the same queue writes the result
        a_base = occ_q[a_qi];
        arr_we[k_c] = arr_accept[k_c] && !(dep_ok && dep_qi == a_qi);
`else
        a_base = (dep_ok && dep_qi == a_qi) ? dep_mid : occ_q[a_qi];
        arr_we[k_c] = arr_accept[k_c];
`endif
        arr_qi[k_c*QIW +: QIW] = a_qi;
        arr_occ[k_c*OW +: OW]  = a_base + OW'(a_units);
        dep_we[k_c]            = dep_ok && (dep_port == PW'(k_c));

`ifdef CAPFC_V1_BUG_LOSSY_PAUSE
        // seeded bug: the lossless mask is indexed by the port instead of the priority
        if (arr_accept[k_c] && cfg_lossless[3'(k_c)] &&
`else
        if (arr_accept[k_c] && cfg_lossless[a_prio] &&
`endif
                arr_occ[k_c*OW +: OW] > cfg_ing_xoff[a_prio*OW +: OW]) begin
            xoff_d[a_qi] = 1'b1;
        end
    end

`ifdef CAPFC_V1_ADD_FIRST
    // then the departure, from its queue's occupancy after an accepted arrival (its clear of I wins)
    dep_mid = occ_q[dep_qi] - OW'(units(dep_size));
    for (k_c = 0; k_c < NP; k_c = k_c + 1) begin
        if (arr_accept[k_c] && arr_qi[k_c*QIW +: QIW] == dep_qi) begin
            dep_mid = arr_occ[k_c*OW +: OW] - OW'(units(dep_size));
        end
    end
    if (dep_ok && dep_mid <= cfg_ing_xon[dep_prio*OW +: OW]) begin
        xoff_d[dep_qi] = 1'b0;
    end
`endif
end

always_ff @(posedge clk) begin
    if (rst) begin
        xoff_q <= '0;
    end else begin
        xoff_q <= xoff_d;
    end
end

// occupancy: each port's block writes only that port's 8 queues, so the blocks never collide;
// within a block the arrival write comes last, and when it hits the departure's queue its value
// already includes the departure (with CAPFC_V1_ADD_FIRST that arrival does not write: the
// departure's value includes it)
for (gp = 0; gp < NP; gp = gp + 1) begin : gen_port
    integer k;

    always_ff @(posedge clk) begin
        if (rst) begin
            for (k = 0; k < 8; k = k + 1) begin
                occ_q[gp*8+k] <= '0;
            end
        end else begin
            if (dep_we[gp]) begin
                occ_q[dep_qi] <= dep_mid;
            end
            if (arr_we[gp]) begin
                occ_q[arr_qi[gp*QIW +: QIW]] <= arr_occ[gp*OW +: OW];
            end
        end
    end
end

endmodule

`resetall
