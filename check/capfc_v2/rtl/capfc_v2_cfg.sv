// capfc_v2_cfg (v2, a test subject of capfc check: check/capfc_v2/README.md): CaPFC configuration
// register file (thresholds, lossless mask, mode, CUT, PFC timing).
//
// Contract (docs/microarchitecture-v2.md, "Configuration registers"):
// - A write with cfg_we high in cycle t updates the addressed register at the rising edge ending t;
//   the new value is used from cycle t+1. Outputs are the registers themselves (no read port).
// - cfg_wdata is truncated to the register's width; unknown addresses are ignored.
// - Synchronous active-high rst clears every register to 0 (so every packet is rejected until the
//   MAX thresholds are written).
// - The hardware does not check the configuration; software validates it before writing.
// - One always_comb computes every _d (reset included), one always_ff copies them.
//
// Address map (capfc_v2_pkg::ADDR_*, p = priority 0..7):
//   0x00+p ing_max_q[p]   0x08+p ing_xoff_q[p]   0x10+p ing_xon_q[p]
//   0x18+p eg_max_q[p]    0x20+p eg_xoff_q[p]    0x28+p eg_xon_q[p]    0x30+p eg_warn_q[p]
//   0x38 lossless_q (8)   0x39 mode_q (2)   0x3A cut_q (CUT_F+1)   0x3B quanta_q (16)   0x3C refresh_q (16)

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v2_cfg #(
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

localparam integer NPRIO = capfc_v2_pkg::NPRIO;

// parameter check
if (OW < 1 || OW > 32 || CUT_F < 1 || CUT_F > 16) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v2_cfg: illegal parameters OW=%0d CUT_F=%0d", OW, CUT_F);
`else
    $error("capfc_v2_cfg: illegal parameters (OW 1..32, CUT_F 1..16)");
`endif
end

// threshold registers, one per priority
logic [OW-1:0]    ing_max_q  [NPRIO] /*verilator public_flat_rd*/;
logic [OW-1:0]    ing_xoff_q [NPRIO] /*verilator public_flat_rd*/;
logic [OW-1:0]    ing_xon_q  [NPRIO] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_max_q   [NPRIO] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_xoff_q  [NPRIO] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_xon_q   [NPRIO] /*verilator public_flat_rd*/;
logic [OW-1:0]    eg_warn_q  [NPRIO] /*verilator public_flat_rd*/;
// scalar registers
logic [7:0]       lossless_q /*verilator public_flat_rd*/;
logic [1:0]       mode_q     /*verilator public_flat_rd*/;
logic [CUT_F:0]   cut_q      /*verilator public_flat_rd*/;
logic [15:0]      quanta_q   /*verilator public_flat_rd*/;
logic [15:0]      refresh_q  /*verilator public_flat_rd*/;

logic [OW-1:0]    ing_max_d  [NPRIO];
logic [OW-1:0]    ing_xoff_d [NPRIO];
logic [OW-1:0]    ing_xon_d  [NPRIO];
logic [OW-1:0]    eg_max_d   [NPRIO];
logic [OW-1:0]    eg_xoff_d  [NPRIO];
logic [OW-1:0]    eg_xon_d   [NPRIO];
logic [OW-1:0]    eg_warn_d  [NPRIO];
logic [7:0]       lossless_d;
logic [1:0]       mode_d;
logic [CUT_F:0]   cut_d;
logic [15:0]      quanta_d;
logic [15:0]      refresh_d;

// address fields: register group (address with the priority bits cleared) and priority
wire  [7:0]       addr_grp = {cfg_addr[7:3], 3'd0};
wire  [2:0]       addr_idx = cfg_addr[2:0];
wire  [OW-1:0]    thr_wdata = OW'(cfg_wdata);

// Loop indices are declared in their for statements: slang then unrolls the loops and sees every
// temporary and array element of an always_comb assigned on all paths (no inferred latch).
always_comb begin
    for (int k_c = 0; k_c < NPRIO; k_c = k_c + 1) begin
        ing_max_d[k_c]  = ing_max_q[k_c];
        ing_xoff_d[k_c] = ing_xoff_q[k_c];
        ing_xon_d[k_c]  = ing_xon_q[k_c];
        eg_max_d[k_c]   = eg_max_q[k_c];
        eg_xoff_d[k_c]  = eg_xoff_q[k_c];
        eg_xon_d[k_c]   = eg_xon_q[k_c];
        eg_warn_d[k_c]  = eg_warn_q[k_c];
    end
    lossless_d = lossless_q;
    mode_d     = mode_q;
    cut_d      = cut_q;
    quanta_d   = quanta_q;
    refresh_d  = refresh_q;

    if (cfg_we) begin
        case (addr_grp)
            capfc_v2_pkg::ADDR_ING_MAX:  ing_max_d[addr_idx]  = thr_wdata;
            capfc_v2_pkg::ADDR_ING_XOFF: ing_xoff_d[addr_idx] = thr_wdata;
            capfc_v2_pkg::ADDR_ING_XON:  ing_xon_d[addr_idx]  = thr_wdata;
            capfc_v2_pkg::ADDR_EG_MAX:   eg_max_d[addr_idx]   = thr_wdata;
            capfc_v2_pkg::ADDR_EG_XOFF:  eg_xoff_d[addr_idx]  = thr_wdata;
            capfc_v2_pkg::ADDR_EG_XON:   eg_xon_d[addr_idx]   = thr_wdata;
            capfc_v2_pkg::ADDR_EG_WARN:  eg_warn_d[addr_idx]  = thr_wdata;
            default: ;
        endcase
        case (cfg_addr)
            capfc_v2_pkg::ADDR_LOSSLESS: lossless_d = 8'(cfg_wdata);
            capfc_v2_pkg::ADDR_MODE:     mode_d     = 2'(cfg_wdata);
            capfc_v2_pkg::ADDR_CUT:      cut_d      = (CUT_F+1)'(cfg_wdata);
            capfc_v2_pkg::ADDR_QUANTA:   quanta_d   = 16'(cfg_wdata);
            capfc_v2_pkg::ADDR_REFRESH:  refresh_d  = 16'(cfg_wdata);
            default: ;
        endcase
    end

    if (rst) begin
        for (int k_c = 0; k_c < NPRIO; k_c = k_c + 1) begin
            ing_max_d[k_c]  = '0;
            ing_xoff_d[k_c] = '0;
            ing_xon_d[k_c]  = '0;
            eg_max_d[k_c]   = '0;
            eg_xoff_d[k_c]  = '0;
            eg_xon_d[k_c]   = '0;
            eg_warn_d[k_c]  = '0;
        end
        lossless_d = '0;
        mode_d     = '0;
        cut_d      = '0;
        quanta_d   = '0;
        refresh_d  = '0;
    end
end

// (8-entry loops: Verilator unrolls them, so the array writes may be non-blocking)
always_ff @(posedge clk) begin
    for (int k_f = 0; k_f < NPRIO; k_f = k_f + 1) begin
        ing_max_q[k_f]  <= ing_max_d[k_f];
        ing_xoff_q[k_f] <= ing_xoff_d[k_f];
        ing_xon_q[k_f]  <= ing_xon_d[k_f];
        eg_max_q[k_f]   <= eg_max_d[k_f];
        eg_xoff_q[k_f]  <= eg_xoff_d[k_f];
        eg_xon_q[k_f]   <= eg_xon_d[k_f];
        eg_warn_q[k_f]  <= eg_warn_d[k_f];
    end
    lossless_q <= lossless_d;
    mode_q     <= mode_d;
    cut_q      <= cut_d;
    quanta_q   <= quanta_d;
    refresh_q  <= refresh_d;
end

// outputs: the registers, threshold arrays flattened for the datapath
always_comb begin
    for (int k_o = 0; k_o < NPRIO; k_o = k_o + 1) begin
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
