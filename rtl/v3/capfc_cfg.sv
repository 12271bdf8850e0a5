// capfc_cfg (v3): the configuration registers, the thresholds in LUT RAM
//
// Contract (docs/microarchitecture.md, "The configuration"): v2's address map, write port and
// reset (check/capfc_v2/rtl/capfc_v2_cfg.sv), seen from outside the same register for register:
// - A write with cfg_we high in cycle t updates the addressed register at the rising edge ending t;
//   the new value is used from cycle t+1. cfg_wdata is truncated to the register's width; unknown
//   addresses are ignored. Synchronous active-high rst sets every register to 0 (a write in the
//   same cycle is lost).
// - v3's units read the thresholds only through their refresh (capfc_thr_copies: one priority a
//   cycle), so the seven threshold arrays are not outputs of 8*OW bits each but LUT RAMs of 8
//   words (capfc_lutram), read asynchronously at the priority the ingress (ing_ra) or the egress
//   (eg_ra) asks for. A RAM is not reset: a valid bit per word (thr_v_q, cleared by rst, set by
//   the word's write) makes a word not written since the reset read as 0. At 48 ports this keeps
//   56 flip-flops where v2 keeps 7 x 8 x OW (1,120 at OW = 20).
// - One always_comb computes every _d (reset included), one always_ff copies them.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_cfg #(
    // occupancy and threshold width (units)
    parameter OW = 20,
    // fractional bits of CUT (1.0 = 2^CUT_F)
    parameter CUT_F = 8
) (
    input  wire             clk,
    input  wire             rst,

    // configuration write port
    input  wire             cfg_we,
    input  wire [7:0]       cfg_addr,
    // bits above the widest register (max(OW, 16, CUT_F+1)) are ignored by design
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [31:0]      cfg_wdata,
    /* verilator lint_on UNUSEDSIGNAL */

    // the thresholds of priority ing_ra (the ingress's refresh) and eg_ra (the egress's)
    input  wire [2:0]       ing_ra,
    input  wire [2:0]       eg_ra,
    output logic [OW-1:0]   cfg_ing_max,
    output logic [OW-1:0]   cfg_ing_xoff,
    output logic [OW-1:0]   cfg_ing_xon,
    output logic [OW-1:0]   cfg_eg_max,
    output logic [OW-1:0]   cfg_eg_xoff,
    output logic [OW-1:0]   cfg_eg_xon,
    output logic [OW-1:0]   cfg_eg_warn,
    // the scalar registers
    output logic [7:0]      cfg_lossless,
    output logic [1:0]      cfg_mode,
    output logic [CUT_F:0]  cfg_cut,
    output logic [15:0]     cfg_quanta,
    output logic [15:0]     cfg_refresh
);

// the threshold arrays, table k at address 8k + p (capfc_pkg::ADDR_ING_MAX ... ADDR_EG_WARN):
// 0 ing_max, 1 ing_xoff, 2 ing_xon, 3 eg_max, 4 eg_xoff, 5 eg_xon, 6 eg_warn
localparam integer NT = 7;

// parameter check
if (OW < 1 || OW > 32 || CUT_F < 1 || CUT_F > 16) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_cfg: illegal parameters OW=%0d CUT_F=%0d", OW, CUT_F);
`else
    $error("capfc_cfg: illegal parameters (OW 1..32, CUT_F 1..16)");
`endif
end

// registers
logic [7:0]       thr_v_q [NT];
logic [7:0]       lossless_q;
logic [1:0]       mode_q;
logic [CUT_F:0]   cut_q;
logic [15:0]      quanta_q;
logic [15:0]      refresh_q;

logic [7:0]       thr_v_d [NT];
logic [7:0]       lossless_d;
logic [1:0]       mode_d;
logic [CUT_F:0]   cut_d;
logic [15:0]      quanta_d;
logic [15:0]      refresh_d;

// the tables' write enables (a table is written whatever rst: its word is invalid until written
// after the reset) and read ports
logic [NT-1:0]    thr_we;
logic [NT*3-1:0]  thr_ra;
logic [NT*OW-1:0] thr_rd;

// address fields: the table (address bits 5:3, when bits 7:6 are 0) and the priority
wire  [2:0]       addr_idx = cfg_addr[2:0];
wire  [OW-1:0]    thr_wdata = OW'(cfg_wdata);

genvar gk;
for (gk = 0; gk < NT; gk = gk + 1) begin : gen_thr
    capfc_lutram #(.AW(3), .DW(OW), .RP(1)) u_tab (
        .clk(clk),
        .we(thr_we[gk]),
        .wa(addr_idx),
        .wd(thr_wdata),
        .ra(thr_ra[gk*3 +: 3]),
        .rd(thr_rd[gk*OW +: OW])
    );
end

always_comb begin
    for (int k = 0; k < NT; k = k + 1) begin
        thr_we[k]  = cfg_we && cfg_addr[7:3] == 5'($unsigned(k));
        thr_v_d[k] = thr_v_q[k];
        if (thr_we[k]) begin
            thr_v_d[k][addr_idx] = 1'b1;
        end
        thr_ra[k*3 +: 3] = k < 3 ? ing_ra : eg_ra;
    end
    lossless_d = lossless_q;
    mode_d     = mode_q;
    cut_d      = cut_q;
    quanta_d   = quanta_q;
    refresh_d  = refresh_q;
    if (cfg_we) begin
        case (cfg_addr)
            capfc_pkg::ADDR_LOSSLESS: lossless_d = 8'(cfg_wdata);
            capfc_pkg::ADDR_MODE:     mode_d     = 2'(cfg_wdata);
            capfc_pkg::ADDR_CUT:      cut_d      = (CUT_F+1)'(cfg_wdata);
            capfc_pkg::ADDR_QUANTA:   quanta_d   = 16'(cfg_wdata);
            capfc_pkg::ADDR_REFRESH:  refresh_d  = 16'(cfg_wdata);
            default: ;
        endcase
    end
    if (rst) begin
        for (int k = 0; k < NT; k = k + 1) begin
            thr_v_d[k] = '0;
        end
        lossless_d = '0;
        mode_d     = '0;
        cut_d      = '0;
        quanta_d   = '0;
        refresh_d  = '0;
    end
end

always_ff @(posedge clk) begin
    for (int k = 0; k < NT; k = k + 1) begin
        thr_v_q[k] <= thr_v_d[k];
    end
    lossless_q <= lossless_d;
    mode_q     <= mode_d;
    cut_q      <= cut_d;
    quanta_q   <= quanta_d;
    refresh_q  <= refresh_d;
end

// outputs: a word not written since the reset reads as 0
logic [NT-1:0][OW-1:0] thr_o;
always_comb begin
    for (int k = 0; k < NT; k = k + 1) begin
        thr_o[k] = thr_v_q[k][k < 3 ? ing_ra : eg_ra] ? thr_rd[k*OW +: OW] : '0;
    end
    cfg_ing_max  = thr_o[0];
    cfg_ing_xoff = thr_o[1];
    cfg_ing_xon  = thr_o[2];
    cfg_eg_max   = thr_o[3];
    cfg_eg_xoff  = thr_o[4];
    cfg_eg_xon   = thr_o[5];
    cfg_eg_warn  = thr_o[6];
    cfg_lossless = lossless_q;
    cfg_mode     = mode_q;
    cfg_cut      = cut_q;
    cfg_quanta   = quanta_q;
    cfg_refresh  = refresh_q;
end

endmodule

`resetall
