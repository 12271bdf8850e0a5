// capfc_v1_argmax: combinational maximum of N (valid, value) candidates, smallest index wins ties
//
// Contract:
// - Purely combinational, no state, no latency.
// - any = OR of valid; mx = largest value among the valid candidates; idx = its index.
// - Ties go to the lowest index. Invalid candidates never win; when no candidate is valid, any = 0,
//   mx = 0 and idx = 0.
// - Structure: a binary tree of clog2(N) comparator levels over N candidates padded to a power of
//   two with invalid leaves (heap numbering: node k combines nodes 2k and 2k+1, root is node 1;
//   the left child always holds the lower indices, so it wins unless the right one is strictly larger).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_argmax #(
    // number of candidates
    parameter N = 8,
    // value width
    parameter W = 16,
    // index width
    localparam IW = (N > 1) ? $clog2(N) : 1
) (
    // candidates, candidate i at [i*W +: W]
    input  wire [N-1:0]   valid,
    input  wire [N*W-1:0] val,

    // result
    output logic          any,
    output logic [W-1:0]  mx,
    output logic [IW-1:0] idx
);

// tree depth and number of (padded) leaves
localparam integer LVL = (N > 1) ? $clog2(N) : 0;
localparam integer NL  = 1 << LVL;

// parameter check
if (N < 1 || W < 1) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v1_argmax: illegal parameters N=%0d W=%0d", N, W);
`else
    $error("capfc_v1_argmax: illegal parameters (N >= 1, W >= 1)");
`endif
end

// padded candidates
logic [NL-1:0]     valid_p;
logic [NL*W-1:0]   val_p;

// tree nodes in heap order (node 0 unused), leaves at NL..2*NL-1
logic [2*NL-1:0]    t_vld;
logic [2*NL*W-1:0]  t_val;
logic [2*NL*IW-1:0] t_idx;
logic               pick_r;

integer k;

always_comb begin
    valid_p = NL'(valid);
    val_p   = (NL*W)'(val);

    t_vld  = '0;
    t_val  = '0;
    t_idx  = '0;
    pick_r = 1'b0;

    // leaves: an invalid candidate carries value 0
    for (k = 0; k < NL; k = k + 1) begin
        t_vld[NL+k]             = valid_p[k];
        t_val[(NL+k)*W +: W]    = valid_p[k] ? val_p[k*W +: W] : '0;
        t_idx[(NL+k)*IW +: IW]  = IW'(k);
    end

    // inner nodes, from the last level up to the root
    for (k = NL-1; k >= 1; k = k - 1) begin
`ifdef CAPFC_V1_BUG_WRONG_VICTIM
        // seeded bug: the comparison is reversed, the smallest non-zero counter wins
        pick_r = t_vld[2*k+1] && (!t_vld[2*k] || t_val[(2*k+1)*W +: W] < t_val[2*k*W +: W]);
`elsif CAPFC_V1_BUG_TIE_HIGH
        // seeded bug: >= gives a tie to the right-hand (higher) index
        pick_r = t_vld[2*k+1] && (!t_vld[2*k] || t_val[(2*k+1)*W +: W] >= t_val[2*k*W +: W]);
`else
        pick_r = t_vld[2*k+1] && (!t_vld[2*k] || t_val[(2*k+1)*W +: W] > t_val[2*k*W +: W]);
`endif
        t_vld[k]            = t_vld[2*k] || t_vld[2*k+1];
        t_val[k*W +: W]     = pick_r ? t_val[(2*k+1)*W +: W]    : t_val[2*k*W +: W];
        t_idx[k*IW +: IW]   = pick_r ? t_idx[(2*k+1)*IW +: IW]  : t_idx[2*k*IW +: IW];
    end


    // the root (node 1), taken with shifts: Icarus 11 does not support constant selects in
    // always_comb, and the outputs are written once so that no intermediate value leaves the block
    any = 1'(t_vld >> 1);
    mx  = W'(t_val >> W);
    idx = IW'(t_idx >> IW);
end

endmodule

`resetall
