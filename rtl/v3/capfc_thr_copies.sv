// capfc_thr_copies (v3, in the block): the thresholds' copies per group of eight ports, shared by
// the ingress and the egress
//
// Design (docs/microarchitecture.md, "The thresholds' copies"): each group keeps its own copy
// of a word per priority in LUT RAM, one for the arrival's side (TAW bits) and one for the
// departure's (TDW bits), read asynchronously by the group's stage-A priorities (ra_a, ra_d). A
// refresh names one priority a cycle (rf, 0 after a reset, then counting), the user gives that
// priority's words (wa_rec, wd_rec) from its configuration in the same cycle, and they go down a
// chain of registers, a stage per group, each group writing its stage into its copies every
// cycle: a change is in every copy 8 + NG cycles later, and no net from the configuration
// crosses the block in one cycle.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_thr_copies #(
    parameter NG = 1,
    parameter TAW = 1,
    parameter TDW = 1
) (
    input  wire              clk,
    input  wire              rst,
    output logic [2:0]       rf,
    input  wire [TAW-1:0]    wa_rec,
    input  wire [TDW-1:0]    wd_rec,
    input  wire [NG*3-1:0]   ra_a,
    input  wire [NG*3-1:0]   ra_d,
    output logic [NG*TAW-1:0] rd_a,
    output logic [NG*TDW-1:0] rd_d
);

logic [2:0]     rf_q, rf_d;
logic [2:0]     chp_q [NG], chp_d [NG];
logic [TAW-1:0] cha_q [NG], cha_d [NG];
logic [TDW-1:0] chd_q [NG], chd_d [NG];

genvar gg;
for (gg = 0; gg < NG; gg = gg + 1) begin : gen_grp
    capfc_lutram #(.AW(3), .DW(TAW), .RP(1)) u_tha (
        .clk(clk),
        .we(1'b1),
        .wa(chp_q[gg]),
        .wd(cha_q[gg]),
        .ra(ra_a[gg*3 +: 3]),
        .rd(rd_a[gg*TAW +: TAW])
    );
    capfc_lutram #(.AW(3), .DW(TDW), .RP(1)) u_thd (
        .clk(clk),
        .we(1'b1),
        .wa(chp_q[gg]),
        .wd(chd_q[gg]),
        .ra(ra_d[gg*3 +: 3]),
        .rd(rd_d[gg*TDW +: TDW])
    );
end

always_comb begin
    rf   = rf_q;
    rf_d = rst ? 3'd0 : rf_q + 3'd1;
    chp_d[0] = rf_q;
    cha_d[0] = wa_rec;
    chd_d[0] = wd_rec;
    for (int g = 1; g < NG; g = g + 1) begin
        chp_d[g] = chp_q[g-1];
        cha_d[g] = cha_q[g-1];
        chd_d[g] = chd_q[g-1];
    end
end

always_ff @(posedge clk) begin
    rf_q <= rf_d;
    for (int g = 0; g < NG; g = g + 1) begin
        chp_q[g] <= chp_d[g];
        cha_q[g] <= cha_d[g];
        chd_q[g] <= chd_d[g];
    end
end

endmodule

`resetall
