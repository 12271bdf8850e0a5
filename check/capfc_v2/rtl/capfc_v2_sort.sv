// capfc_v2_sort (v2, a test subject of capfc check: check/capfc_v2/README.md): one sort engine per
// output port, selects the culprit inputs of a congested row (sets E).
//
// Contract (docs/microarchitecture-v2.md, "Sort engines"):
// - Engine o serves rows {o, l}, l < NL. rtrig sets pend_q[o][l]; a row clear (rclr) drops it and
//   aborts a running sort of that row (busy_q drops, nothing else is written). One sort at a time
//   per engine; when idle, the first pending class at or after rr_q (wrapping over NL) that is not
//   cleared this cycle is granted and loaded in the same cycle.
// - A pass walks the row in NP+1 steps k = 0..NP: step k reads input k (k < NP), step k >= 1
//   processes input k-1 (x = sval from u_egress read port 1 in MAX and COPY, the snap RAM's data
//   in SRCH, GT and SEL). Read enables and addresses depend on registers only.
// - Stop-Max (MAX): one pass over the live row, E |= 1 << argmax (strict >, so ties keep the lowest
//   index and 0 is never chosen). Busy NP+1 cycles.
// - Stop-Calibrate: COPY (live row into gen_port[o].u_snap, acc = T), MUL (tgt = cut * T), CW SRCH
//   passes (theta bit by bit from the top: largest v with A(v) * 2^CUT_F >= tgt), GT (G = sum of
//   C > theta), SEL (index order: take C > theta, and C == theta != 0 while the sum is short; each
//   taken input is written to E in the cycle it is found). Busy (CW+3)(NP+1)+1 cycles.
// - E writes leave as swr_en/swr_l/swr_i (one input per engine per cycle).
// - Synchronous active-high rst clears every register to 0; the snap RAMs are not written.
// - Structure: always_comb "read_side" computes the read ports from registers only (so the
//   egress -> sort -> egress dependency has no combinational cycle); always_comb "next_state"
//   computes every _d, the E writes and the snap writes; one always_ff copies the _d.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v2_sort #(
    // number of ports
    parameter NP = 8,
    // arrival counter width
    parameter CW = 16,
    // fractional bits of CUT (1.0 = 2^CUT_F)
    parameter CUT_F = 8,
    // counted (lossless) classes
    parameter NL = 2,
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // class index width
    localparam LW = (NL > 1) ? $clog2(NL) : 1,
    // number of rows {o, l}
    localparam NR = NP << LW
) (
    input  wire              clk,
    input  wire              rst,

    // configuration
    input  wire              cfg_mode_cal,
    input  wire [CUT_F:0]    cfg_cut,

    // row events of this cycle (row r = {o, l})
    input  wire [NR-1:0]     rclr,
    input  wire [NR-1:0]     rtrig,

    // u_egress read port 1, per engine o: read address, processed address, value read last cycle
    output logic [NP-1:0]    sre,
    output logic [NP*LW-1:0] srow,
    output logic [NP*PW-1:0] sidx,
    output logic [NP*PW-1:0] spidx,
    input  wire [NP*CW-1:0]  sval,

    // E writes, per engine o
    output logic [NP-1:0]    swr_en,
    output logic [NP*LW-1:0] swr_l,
    output logic [NP*PW-1:0] swr_i
);

// sum width
localparam SUMW = CW + PW;
// width of the Stop-Calibrate target and comparisons
localparam MW = SUMW + CUT_F + 1;
// bit index width
localparam BW = (CW > 1) ? $clog2(CW) : 1;
// step width (0..NP)
localparam KW = PW + 1;

// parameter check
if (NP < 2 || NP > 128 || CW < 1 || CW > 16 || CUT_F < 1 || CUT_F > 16 || NL < 1 || NL > 8) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v2_sort: illegal parameters NP=%0d CW=%0d CUT_F=%0d NL=%0d", NP, CW, CUT_F, NL);
`else
    $error("capfc_v2_sort: illegal parameters (NP 2..128, CW 1..16, CUT_F 1..16, NL 1..8)");
`endif
end

// ---------------------------------------------------------------------------------------------
// state, per engine o
logic [NL-1:0]     pend_q [NP] /*verilator public_flat_rd*/;
logic [LW-1:0]     rr_q   [NP] /*verilator public_flat_rd*/;
logic [NP-1:0]     busy_q      /*verilator public_flat_rd*/;
logic [NP-1:0]     cal_q       /*verilator public_flat_rd*/;
logic [2:0]        ph_q   [NP] /*verilator public_flat_rd*/;
logic [LW-1:0]     row_q  [NP] /*verilator public_flat_rd*/;
logic [KW-1:0]     k_q    [NP] /*verilator public_flat_rd*/;
logic [BW-1:0]     bit_q  [NP] /*verilator public_flat_rd*/;
logic [CW-1:0]     v_q    [NP] /*verilator public_flat_rd*/;
logic [PW-1:0]     ix_q   [NP] /*verilator public_flat_rd*/;
logic [SUMW-1:0]   acc_q  [NP] /*verilator public_flat_rd*/;
logic [MW-1:0]     tgt_q  [NP] /*verilator public_flat_rd*/;

logic [NL-1:0]     pend_d [NP];
logic [LW-1:0]     rr_d   [NP];
logic [NP-1:0]     busy_d;
logic [NP-1:0]     cal_d;
logic [2:0]        ph_d   [NP];
logic [LW-1:0]     row_d  [NP];
logic [KW-1:0]     k_d    [NP];
logic [BW-1:0]     bit_d  [NP];
logic [CW-1:0]     v_d    [NP];
logic [PW-1:0]     ix_d   [NP];
logic [SUMW-1:0]   acc_d  [NP];
logic [MW-1:0]     tgt_d  [NP];

// ---------------------------------------------------------------------------------------------
// snap RAM ports, engine o at [o*W +: W]
logic [NP-1:0]     snap_re;
logic [NP*PW-1:0]  snap_ra;
logic [NP-1:0]     snap_we;
logic [NP*PW-1:0]  snap_wa;
logic [NP*CW-1:0]  snap_wd;
wire  [NP*CW-1:0]  snap_rd;

// "read_side" temporaries
logic              rs_klt;
logic [NP-1:0]     sre_t;
logic [NP*LW-1:0]  srow_t;
logic [NP*PW-1:0]  sidx_t;
logic [NP*PW-1:0]  spidx_t;
logic [NP-1:0]     snap_re_t;

// "next_state" temporaries
logic [2:0]        ph;
logic [KW-1:0]     k;
logic [PW-1:0]     km1;
logic              last;
logic              proc;
logic [CW-1:0]     x;
logic [NL-1:0]     rowclr;
logic [NL-1:0]     rowtrig;
logic [NL-1:0]     avail;
logic              abort;
logic              granted;
logic [LW-1:0]     g;
logic [LW-1:0]     g_hi;
logic [LW-1:0]     g_lo;
logic              g_hi_any;
logic [CW-1:0]     nv;
logic [PW-1:0]     ni;
logic [CW-1:0]     cand;
logic [SUMW-1:0]   ssum;
logic              met;
logic              take;
logic [NP-1:0]     swr_en_t;
logic [NP*LW-1:0]  swr_l_t;
logic [NP*PW-1:0]  swr_i_t;
logic [NP-1:0]     snap_we_t;
logic [NP*PW-1:0]  snap_wa_t;

// Loop indices are declared in their for statements: slang then unrolls the loops and sees every
// temporary and array element of an always_comb assigned on all paths (no inferred latch).

genvar go;

// ---------------------------------------------------------------------------------------------
// per engine: Stop-Calibrate's copy of the row
for (go = 0; go < NP; go = go + 1) begin : gen_port
    capfc_v2_ram #(
        .AW(PW),
        .DW(CW),
        .RP(1)
    ) u_snap (
        .clk(clk),
        .we(snap_we[go]),
        .wa(snap_wa[go*PW +: PW]),
        .wd(snap_wd[go*CW +: CW]),
        .re(snap_re[go]),
        .ra(snap_ra[go*PW +: PW]),
        .rd(snap_rd[go*CW +: CW])
    );
end

// ---------------------------------------------------------------------------------------------
// read side: addresses and enables from registers only
always_comb begin : read_side
    for (int k_r = 0; k_r < NP; k_r = k_r + 1) begin
        rs_klt = k_q[k_r] < KW'($unsigned(NP));
        sre_t[k_r] = busy_q[k_r] && (ph_q[k_r] == capfc_v2_pkg::PH_MAX || ph_q[k_r] == capfc_v2_pkg::PH_COPY) && rs_klt;
        snap_re_t[k_r] = busy_q[k_r] && (ph_q[k_r] == capfc_v2_pkg::PH_SRCH || ph_q[k_r] == capfc_v2_pkg::PH_GT ||
                                         ph_q[k_r] == capfc_v2_pkg::PH_SEL) && rs_klt;
        srow_t[k_r*LW +: LW]  = row_q[k_r];
        sidx_t[k_r*PW +: PW]  = PW'(k_q[k_r]);
        spidx_t[k_r*PW +: PW] = PW'(k_q[k_r] - 1'b1);
    end
    // written once
    sre     = sre_t;
    srow    = srow_t;
    sidx    = sidx_t;
    spidx   = spidx_t;
    snap_re = snap_re_t;
    snap_ra = sidx_t;
end

// ---------------------------------------------------------------------------------------------
// next state of every engine, E writes and snap writes
always_comb begin : next_state
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        // defaults: keep
        pend_d[k_o] = pend_q[k_o];
        rr_d[k_o]   = rr_q[k_o];
        busy_d[k_o] = busy_q[k_o];
        cal_d[k_o]  = cal_q[k_o];
        ph_d[k_o]   = ph_q[k_o];
        row_d[k_o]  = row_q[k_o];
        k_d[k_o]    = k_q[k_o];
        bit_d[k_o]  = bit_q[k_o];
        v_d[k_o]    = v_q[k_o];
        ix_d[k_o]   = ix_q[k_o];
        acc_d[k_o]  = acc_q[k_o];
        tgt_d[k_o]  = tgt_q[k_o];

        ph   = ph_q[k_o];
        k    = k_q[k_o];
        km1  = PW'(k_q[k_o] - 1'b1);
        last = k == KW'($unsigned(NP));
        proc = k != '0;
        x    = (ph == capfc_v2_pkg::PH_MAX || ph == capfc_v2_pkg::PH_COPY) ? sval[k_o*CW +: CW] : snap_rd[k_o*CW +: CW];

        swr_en_t[k_o]           = 1'b0;
        swr_l_t[k_o*LW +: LW]   = row_q[k_o];
        swr_i_t[k_o*PW +: PW]   = '0;
        snap_we_t[k_o]          = 1'b0;
        snap_wa_t[k_o*PW +: PW] = km1;

        // this engine's rows
        for (int k_l = 0; k_l < NL; k_l = k_l + 1) begin
            rowclr[k_l]  = rclr[{PW'(k_o), LW'(k_l)}];
            rowtrig[k_l] = rtrig[{PW'(k_o), LW'(k_l)}];
        end
        abort = busy_q[k_o] && rclr[{PW'(k_o), row_q[k_o]}];

        // grant: the first available class at or after rr_q, wrapping over NL
        avail    = pend_q[k_o] & ~rowclr;
        granted  = !busy_q[k_o] && (avail != '0);
        g_hi     = '0;
        g_lo     = '0;
        g_hi_any = 1'b0;
        for (int k_l = NL-1; k_l >= 0; k_l = k_l - 1) begin
            if (avail[k_l]) begin
                g_lo = LW'($unsigned(k_l));
                if (LW'($unsigned(k_l)) >= rr_q[k_o]) begin
                    g_hi     = LW'($unsigned(k_l));
                    g_hi_any = 1'b1;
                end
            end
        end
        g = g_hi_any ? g_hi : g_lo;

        // step temporaries (assigned on every path)
        nv   = v_q[k_o];
        ni   = ix_q[k_o];
        cand = v_q[k_o] | (CW'(32'd1) << bit_q[k_o]);
        ssum  = acc_q[k_o] + ((x >= cand) ? SUMW'(x) : '0);
        met  = (MW'(acc_q[k_o]) << CUT_F) >= tgt_q[k_o];
        take = (x > v_q[k_o]) || (x == v_q[k_o] && x != '0 && !met);

        if (!busy_q[k_o]) begin
            if (granted) begin
                rr_d[k_o]   = (g == LW'($unsigned(NL-1))) ? '0 : g + 1'b1;
                busy_d[k_o] = 1'b1;
                row_d[k_o]  = g;
                cal_d[k_o]  = cfg_mode_cal;
                ph_d[k_o]   = cfg_mode_cal ? capfc_v2_pkg::PH_COPY : capfc_v2_pkg::PH_MAX;
                k_d[k_o]    = '0;
                v_d[k_o]    = '0;
                ix_d[k_o]   = '0;
                acc_d[k_o]  = '0;
                bit_d[k_o]  = BW'(CW-1);
            end
        end else if (abort) begin
            busy_d[k_o] = 1'b0;
        end else begin
            case (ph)
                capfc_v2_pkg::PH_MAX: begin
`ifdef CAPFC_V2_BUG_TIE_HIGH
                    if (proc && x >= v_q[k_o]) begin
                        nv = x;
`else
                    if (proc && x > v_q[k_o]) begin
                        nv = x;
`endif
                        ni = km1;
                    end
                    v_d[k_o]  = nv;
                    ix_d[k_o] = ni;
                    if (last) begin
                        swr_en_t[k_o]         = nv != '0;
                        swr_i_t[k_o*PW +: PW] = ni;
                        busy_d[k_o]           = 1'b0;
                    end else begin
                        k_d[k_o] = k + 1'b1;
                    end
                end
                capfc_v2_pkg::PH_COPY: begin
                    if (proc) begin
                        snap_we_t[k_o] = 1'b1;
                        acc_d[k_o]     = acc_q[k_o] + SUMW'(x);
                    end
                    if (last) begin
                        ph_d[k_o] = capfc_v2_pkg::PH_MUL;
                        k_d[k_o]  = '0;
                    end else begin
                        k_d[k_o] = k + 1'b1;
                    end
                end
                capfc_v2_pkg::PH_MUL: begin
                    tgt_d[k_o] = MW'(cfg_cut) * MW'(acc_q[k_o]);
                    acc_d[k_o] = '0;
                    v_d[k_o]   = '0;
                    bit_d[k_o] = BW'(CW-1);
                    ph_d[k_o]  = capfc_v2_pkg::PH_SRCH;
                    k_d[k_o]   = '0;
                end
                capfc_v2_pkg::PH_SRCH: begin
                    if (proc) begin
                        acc_d[k_o] = ssum;
                    end
                    if (last) begin
                        v_d[k_o]   = ((MW'(ssum) << CUT_F) >= tgt_q[k_o]) ? cand : v_q[k_o];
                        acc_d[k_o] = '0;
                        k_d[k_o]   = '0;
                        if (bit_q[k_o] == '0) begin
                            ph_d[k_o] = capfc_v2_pkg::PH_GT;
                        end else begin
                            bit_d[k_o] = bit_q[k_o] - 1'b1;
                        end
                    end else begin
                        k_d[k_o] = k + 1'b1;
                    end
                end
                capfc_v2_pkg::PH_GT: begin
                    if (proc && x > v_q[k_o]) begin
                        acc_d[k_o] = acc_q[k_o] + SUMW'(x);
                    end
                    if (last) begin
                        ph_d[k_o] = capfc_v2_pkg::PH_SEL;
                        k_d[k_o]  = '0;
                    end else begin
                        k_d[k_o] = k + 1'b1;
                    end
                end
                capfc_v2_pkg::PH_SEL: begin
                    if (proc && take) begin
                        if (x == v_q[k_o]) begin
                            acc_d[k_o] = acc_q[k_o] + SUMW'(x);
                        end
                        swr_en_t[k_o]         = 1'b1;
                        swr_i_t[k_o*PW +: PW] = km1;
                    end
                    if (last) begin
                        busy_d[k_o] = 1'b0;
                    end else begin
                        k_d[k_o] = k + 1'b1;
                    end
                end
                default: begin
                    // unreachable (ph_q only holds 0..5): end the sort
                    busy_d[k_o] = 1'b0;
                end
            endcase
        end

        // pending requests: a clear drops one, a grant consumes one, a request (re)sets one
        pend_d[k_o] = (pend_q[k_o] & ~rowclr & ~((granted ? NL'(32'd1) : NL'(32'd0)) << g)) | rowtrig;

        if (rst) begin
            pend_d[k_o]    = '0;
            rr_d[k_o]      = '0;
            busy_d[k_o]    = 1'b0;
            cal_d[k_o]     = 1'b0;
            ph_d[k_o]      = '0;
            row_d[k_o]     = '0;
            k_d[k_o]       = '0;
            bit_d[k_o]     = '0;
            v_d[k_o]       = '0;
            ix_d[k_o]      = '0;
            acc_d[k_o]     = '0;
            tgt_d[k_o]     = '0;
            snap_we_t[k_o] = 1'b0;
        end
    end

    // written once
    swr_en  = swr_en_t;
    swr_l   = swr_l_t;
    swr_i   = swr_i_t;
    snap_we = snap_we_t;
    snap_wa = snap_wa_t;
    snap_wd = sval;
end

always_ff @(posedge clk) begin
    busy_q <= busy_d;
    cal_q  <= cal_d;
`ifdef VERILATOR
    // Under Verilator: version 5.006 cannot schedule a non-blocking array write in a loop it does not unroll (more
    // than 64 iterations: BLKLOOPINIT); Icarus 11 and Yosys 0.23 cannot assign a whole unpacked
    // array. Both forms copy every element.
    pend_q <= pend_d;
    rr_q   <= rr_d;
    ph_q   <= ph_d;
    row_q  <= row_d;
    k_q    <= k_d;
    bit_q  <= bit_d;
    v_q    <= v_d;
    ix_q   <= ix_d;
    acc_q  <= acc_d;
    tgt_q  <= tgt_d;
`else
    for (int k_f = 0; k_f < NP; k_f = k_f + 1) begin
        pend_q[k_f] <= pend_d[k_f];
        rr_q[k_f]   <= rr_d[k_f];
        ph_q[k_f]   <= ph_d[k_f];
        row_q[k_f]  <= row_d[k_f];
        k_q[k_f]    <= k_d[k_f];
        bit_q[k_f]  <= bit_d[k_f];
        v_q[k_f]    <= v_d[k_f];
        ix_q[k_f]   <= ix_d[k_f];
        acc_q[k_f]  <= acc_d[k_f];
        tgt_q[k_f]  <= tgt_d[k_f];
    end
`endif
end

endmodule

`resetall
