// capfc_v1_cfg: CaPFC configuration register file (thresholds, lossless mask, mode, CUT, PFC timing)
//
// Contract (docs/microarchitecture-v2.md, "Configuration registers"):
// - A write with cfg_we high in cycle t updates the addressed register at the rising edge ending t;
//   the new value is used from cycle t+1. Outputs are the registers themselves (no read port).
// - cfg_wdata is truncated to the register's width; unknown addresses are ignored.
// - Synchronous active-high rst clears every register to 0 (so every packet is rejected until the
//   MAX thresholds are written).
// - The hardware does not check the configuration; software validates it before writing.
//
// Address map (p = priority 0..7):
//   0x00+p ing_max_q[p]   0x08+p ing_xoff_q[p]   0x10+p ing_xon_q[p]
//   0x18+p eg_max_q[p]    0x20+p eg_xoff_q[p]    0x28+p eg_xon_q[p]    0x30+p eg_warn_q[p]
//   0x38 lossless_q (8)   0x39 mode_q (2)   0x3A cut_q (CUT_F+1)   0x3B quanta_q (16)   0x3C refresh_q (16)

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_cfg #(
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

    // register values, priority p at [p*OW +: OW]
    output logic [8*OW-1:0] cfg_ing_max,
    output logic [8*OW-1:0] cfg_ing_xoff,
    output logic [8*OW-1:0] cfg_ing_xon,
    output logic [8*OW-1:0] cfg_eg_max,
    output logic [8*OW-1:0] cfg_eg_xoff,
    output logic [8*OW-1:0] cfg_eg_xon,
    output logic [8*OW-1:0] cfg_eg_warn,
    output logic [7:0]      cfg_lossless,
    output logic [1:0]      cfg_mode,
    output logic [CUT_F:0]  cfg_cut,
    output logic [15:0]     cfg_quanta,
    output logic [15:0]     cfg_refresh
);

// parameter check
if (OW < 1 || OW > 32 || CUT_F < 1 || CUT_F > 16) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v1_cfg: illegal parameters OW=%0d CUT_F=%0d", OW, CUT_F);
`else
    $error("capfc_v1_cfg: illegal parameters (OW 1..32, CUT_F 1..16)");
`endif
end

// threshold registers, one per priority
logic [OW-1:0]    ing_max_q  [8] /*verilator public_flat_rd*/;
logic [OW-1:0]    ing_xoff_q [8] /*verilator public_flat_rd*/;
logic [OW-1:0]    ing_xon_q  [8] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_max_q   [8] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_xoff_q  [8] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_xon_q   [8] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_warn_q  [8] /*verilator public_flat_rd*/;
// scalar registers
logic [7:0]       lossless_q /*verilator public_flat_rd*/;
logic [1:0]       mode_q     /*verilator public_flat_rd*/;
logic [CUT_F:0]   cut_q      /*verilator public_flat_rd*/;
logic [15:0]      quanta_q   /*verilator public_flat_rd*/;
logic [15:0]      refresh_q  /*verilator public_flat_rd*/;

logic [7:0]       lossless_d;
logic [1:0]       mode_d;
logic [CUT_F:0]   cut_d;
logic [15:0]      quanta_d;
logic [15:0]      refresh_d;

// write strobes of the threshold arrays (index cfg_addr[2:0])
logic             ing_max_we, ing_xoff_we, ing_xon_we;
logic             eg_max_we, eg_xoff_we, eg_xon_we, eg_warn_we;
logic [OW-1:0]    thr_wdata;

// address fields: register group and priority
wire  [4:0]       addr_grp = cfg_addr[7:3];
wire  [2:0]       addr_idx = cfg_addr[2:0];

integer k_o;
integer k_f;

always_comb begin
    ing_max_we  = 1'b0;
    ing_xoff_we = 1'b0;
    ing_xon_we  = 1'b0;
    eg_max_we   = 1'b0;
    eg_xoff_we  = 1'b0;
    eg_xon_we   = 1'b0;
    eg_warn_we  = 1'b0;
    thr_wdata   = OW'(cfg_wdata);

    lossless_d = lossless_q;
    mode_d     = mode_q;
    cut_d      = cut_q;
    quanta_d   = quanta_q;
    refresh_d  = refresh_q;

    if (cfg_we) begin
        case (addr_grp)
            5'h00: ing_max_we  = 1'b1;
            5'h01: ing_xoff_we = 1'b1;
            5'h02: ing_xon_we  = 1'b1;
            5'h03: eg_max_we   = 1'b1;
            5'h04: eg_xoff_we  = 1'b1;
            5'h05: eg_xon_we   = 1'b1;
            5'h06: eg_warn_we  = 1'b1;
            5'h07: begin
                case (addr_idx)
                    3'h0:    lossless_d = 8'(cfg_wdata);
                    3'h1:    mode_d     = 2'(cfg_wdata);
                    3'h2:    cut_d      = (CUT_F+1)'(cfg_wdata);
                    3'h3:    quanta_d   = 16'(cfg_wdata);
                    3'h4:    refresh_d  = 16'(cfg_wdata);
                    default: ;
                endcase
            end
            default: ;
        endcase
    end
end

always_ff @(posedge clk) begin
    if (rst) begin
        for (k_f = 0; k_f < 8; k_f = k_f + 1) begin
            ing_max_q[k_f]  <= '0;
            ing_xoff_q[k_f] <= '0;
            ing_xon_q[k_f]  <= '0;
            eg_max_q[k_f]   <= '0;
            eg_xoff_q[k_f]  <= '0;
            eg_xon_q[k_f]   <= '0;
            eg_warn_q[k_f]  <= '0;
        end
        lossless_q <= '0;
        mode_q     <= '0;
        cut_q      <= '0;
        quanta_q   <= '0;
        refresh_q  <= '0;
    end else begin
        if (ing_max_we)  ing_max_q[addr_idx]  <= thr_wdata;
        if (ing_xoff_we) ing_xoff_q[addr_idx] <= thr_wdata;
        if (ing_xon_we)  ing_xon_q[addr_idx]  <= thr_wdata;
        if (eg_max_we)   eg_max_q[addr_idx]   <= thr_wdata;
        if (eg_xoff_we)  eg_xoff_q[addr_idx]  <= thr_wdata;
        if (eg_xon_we)   eg_xon_q[addr_idx]   <= thr_wdata;
        if (eg_warn_we)  eg_warn_q[addr_idx]  <= thr_wdata;
        lossless_q <= lossless_d;
        mode_q     <= mode_d;
        cut_q      <= cut_d;
        quanta_q   <= quanta_d;
        refresh_q  <= refresh_d;
    end
end

// flatten the threshold arrays for the datapath
always_comb begin
    for (k_o = 0; k_o < 8; k_o = k_o + 1) begin
        cfg_ing_max[k_o*OW +: OW]  = ing_max_q[k_o];
        cfg_ing_xoff[k_o*OW +: OW] = ing_xoff_q[k_o];
        cfg_ing_xon[k_o*OW +: OW]  = ing_xon_q[k_o];
        cfg_eg_max[k_o*OW +: OW]   = eg_max_q[k_o];
        cfg_eg_xoff[k_o*OW +: OW]  = eg_xoff_q[k_o];
        cfg_eg_xon[k_o*OW +: OW]   = eg_xon_q[k_o];
        cfg_eg_warn[k_o*OW +: OW]  = eg_warn_q[k_o];
    end
    cfg_lossless = lossless_q;
    cfg_mode     = mode_q;
    cfg_cut      = cut_q;
    cfg_quanta   = quanta_q;
    cfg_refresh  = refresh_q;
end

endmodule

`resetall
