// capfc_sort (v3, the block's sort engines): one sort engine for two output ports,
// with every compare and every sum in a stage of its own
//
// Design (docs/microarchitecture.md, "Sort engines"): v2's engines and algorithms (Stop-Max,
// Stop-Calibrate; the same grants, aborts and selections), with the row's values pipelined:
// - A pass issues the reads of inputs k = 0..NP-1 in steps k (the counter RAM through the egress's
//   read port in MAX and COPY, the snap RAM in SRCH, GT and SEL). The word read is at k+3 in a
//   register: the egress's sval (its tag compared from registers, then registered: the port's
//   registers sit by the counter RAM and the engine may be far) or x_q (the snap RAM's read
//   registered beside it at k+1, its output at k+2, registered: both paths one length); the one of the two that the phase
//   reads in xr_q at k+4 (the select by slot and phase, then a register: with the compares
//   behind the select in one cycle, the slot's register through both muxes and the compare's
//   carry chain was the block's critical path at 8 ports, 9.7 ns in 13 cells); in y_q at k+5
//   with its compares against the pass's constants (y >= cand, y > v, y == v, y != 0), made from
//   xr_q, and is acted on at k+5 (P): one adder or one compare-and-load per cycle. A pass ends at
//   k = NP+5 (SRCH: the compare of the sum against the target registered at NP+5, applied at
//   NP+6).
// - The running value v is loaded from registers: the pass's windows decoded a cycle ahead
//   (yv_q, se_q), Stop-Max's compare of y with v from gt_q or, when v was just loaded from the
//   word before, gty_q (ldm_q).
// - Stop-Max: P keeps the strict maximum (ties: the lowest index); at the pass end the argmax is
//   written to E if its value is not 0. Busy NP+6 cycles.
// - Stop-Calibrate: COPY (row into the snap RAM, T = sum), MUL (target = cut * T by shift and
//   add, the cut's top bit first, in CUT_F + 1 cycles), ceil(CW/2) SRCH passes (theta two bits a
//   pass from the top: the sums of the inputs at or above each of the three candidates, the
//   highest that meets the target taken; the same theta as one bit a pass),
//   GT (G = sum of C > theta), CNT (need: the number of inputs equal to theta that SEL takes, the
//   first j with (G + j*theta) * 2^CUT_F >= target, capped at NP: one add a cycle, its compare
//   registered a cycle later, so v2's running compare in SEL is off SEL's path), SEL (index order:
//   C > theta, and C == theta != 0 while fewer than need equal inputs are taken). Busy
//   (NP+6) + (CUT_F+1) + ceil(CW/2)(NP+7) + (NP+6) + (CNT: at most NP+2) + (NP+6) cycles.
// - Engine e sorts the rows of ports 2e and 2e+1 (slots 0 and 1; with NP odd the last engine has
//   one port): its rows j = {slot, class} (2 NL) granted in round robin, one sort at a time, its
//   reads and E writes to the port of the row's slot. Every row asking at once, the last one's
//   E is written after 2 NL sorts: with NL = 2, at most about 2,670 cycles at 48 ports (bound 3,125).
// - cfg_mode_cal and cfg_cut are registered per group of eight engines: a change reaches the
//   engines one cycle later.
// - E writes leave registered (swr_en one cycle after P found the input). A row clear (rclr)
//   aborts a running sort (busy drops and the pass's write found in that cycle is dropped; the
//   engine's other registers step on, unread until the next grant sets them); a write leaving
//   in its cycle still leaves, and the egress, beside E, cancels it.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_sort #(
    parameter NP = 8,
    parameter CW = 16,
    parameter CUT_F = 8,
    parameter NL = 2,
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    localparam LW = (NL > 1) ? $clog2(NL) : 1,
    localparam NR = NP << LW
) (
    input  wire              clk,
    input  wire              rst,

    input  wire              cfg_mode_cal,
    input  wire [CUT_F:0]    cfg_cut,

    input  wire [NR-1:0]     rclr,
    input  wire [NR-1:0]     rtrig,

    // the egress's read port 1, per port: address in cycle t (sre), the word in t+3 (sval)
    output logic [NP-1:0]    sre,
    output logic [NP*LW-1:0] srow,
    output logic [NP*PW-1:0] sidx,
    input  wire [NP*CW-1:0]  sval,

    output logic [NP-1:0]    swr_en,
    output logic [NP*LW-1:0] swr_l,
    output logic [NP*PW-1:0] swr_i
);

localparam integer SUMW = CW + PW;
localparam integer MW = SUMW + CUT_F + 1;
localparam integer BW = (CW > 1) ? $clog2(CW) : 1;
// Stop-Calibrate's search, two bits of theta a pass: NSP passes, the first at bit BSTART
localparam integer NSP = (CW + 1) / 2;
localparam integer BSTART = 2 * (NSP - 1);
localparam integer KW = $clog2(((NP + 7) > (CUT_F + 2)) ? (NP + 7) : (CUT_F + 2));
localparam integer NW = PW + 1;            // 0..NP
// engines: one for two ports (engine e sorts the rows of ports 2e and 2e+1, its slots 0 and 1);
// its rows j = {slot, class}, NJ of them (those of a class >= NL or of a port >= NP never asked)
localparam integer NE = (NP + 1) / 2;
localparam integer NP2 = 2 * NE;
localparam integer JW = LW + 1;
localparam integer NJ = 1 << JW;
localparam integer NG = (NE + 7) / 8;
localparam logic [2:0] PH_MAX = 3'd0, PH_COPY = 3'd1, PH_MUL = 3'd2, PH_SRCH = 3'd3,
                       PH_GT = 3'd4, PH_CNT = 3'd5, PH_SEL = 3'd6;

if (NP < 2 || NP > 128 || CW < 1 || CW > 16 || CUT_F < 1 || CUT_F > 16 || NL < 1 || NL > 8) begin : gen_param_check
`ifdef __ICARUS__
    initial $fatal(1, "capfc_sort: illegal parameters");
`else
    $error("capfc_sort: illegal parameters (NP 2..128, CW 1..16, CUT_F 1..16, NL 1..8)");
`endif
end

// ---------------------------------------------------------------------------------------------
// state, per engine
logic [NJ-1:0]   pend_q [NE];   // per row j = {slot, class}
logic [JW-1:0]   rr_q   [NE];
logic [NE-1:0]   busy_q, cal_q;
logic [NE-1:0]   sl_q;           // the slot (port 2e or 2e+1) of the row being sorted
logic [2:0]      ph_q   [NE];
logic [LW-1:0]   row_q  [NE];
logic [KW-1:0]   k_q    [NE];
logic [BW-1:0]   bit_q  [NE];
logic [CW-1:0]   v_q    [NE];
logic [PW-1:0]   ix_q   [NE];
logic [SUMW-1:0] acc_q  [NE];
logic [SUMW-1:0] acc2_q [NE], acc3_q [NE];   // the search's sums for its second and third candidates
logic [MW-1:0]   tgt_q  [NE];
logic [NE-1:0]   met_q, met2_q, met3_q, cb_q;
logic [NW-1:0]   need_q [NE], t_q [NE];
// the row's word: raw (x), with its compares (y); its index and valid follow from k
logic [NE-1:0]   ge_q, ge2_q, ge3_q, gt_q, eq_q, nz_q;
// the pass's windows, decoded a cycle ahead from the phase and k: yv_q, the word in y is an
// input of the pass (k in [5, NP+5) of a phase that reads); se_q, the search pass's end
// (SRCH, k = NP+6). With the decode in the same cycle, ph_q and k_q through it into the running
// value's select was the critical path at 8 ports (grade 6, 102.4 MHz: 9.8 ns in 7 cells)
logic [NE-1:0]   yv_q, se_q;
// Stop-Max's compare of y against the running maximum, from registers: v holds either what it
// held a cycle ago (compared with the word then in xr: gt_q) or the word then in y (ldm_q: the
// maximum was loaded; compared with the word in xr: gty_q). With the compare in the cycle,
// v_q through its carry chain into its own enable was the critical path at 8 ports (grade 6,
// 104.6 MHz: 9.6 ns in 20 cells, 6.7 ns of it routing from v_q's many loads)
logic [NE-1:0]   gty_q, ldm_q;
logic [CW-1:0]   x_q  [NE], xr_q [NE], y_q [NE];
// the snap RAM's read, registered beside the RAM: its enable and address (k of the pass) a cycle
// after the engine issues them. With the address straight from k_q, an engine's counter through
// its snap RAM, which the placer may put 40 columns away, into the RAM's output register is the
// critical path at 48 ports on grade 8 (measured: 101.9 MHz, 9.1 ns of routing in 9.8). The RAM's
// output is then in x_q at k+3, as the egress's sval is
logic [NE-1:0]    snre_q;
logic [NE*PW-1:0] snra_q;
// E write, registered
logic [NE-1:0]   wv_q;
logic [LW-1:0]   wl_q [NE];
logic [PW-1:0]   wi_q [NE];

logic [NJ-1:0]   pend_d [NE];
logic [JW-1:0]   rr_d   [NE];
logic [NE-1:0]   busy_d, cal_d, sl_d;
logic [2:0]      ph_d   [NE];
logic [LW-1:0]   row_d  [NE];
logic [KW-1:0]   k_d    [NE];
logic [BW-1:0]   bit_d  [NE];
logic [CW-1:0]   v_d    [NE];
logic [PW-1:0]   ix_d   [NE];
logic [SUMW-1:0] acc_d  [NE];
logic [SUMW-1:0] acc2_d [NE], acc3_d [NE];
logic [MW-1:0]   tgt_d  [NE];
logic [NE-1:0]   met_d, met2_d, met3_d, cb_d;
logic [NW-1:0]   need_d [NE], t_d [NE];
logic [NE-1:0]   ge_d, ge2_d, ge3_d, gt_d, eq_d, nz_d;
logic [NE-1:0]   yv_d, se_d, gty_d, ldm_d;
logic [CW-1:0]   x_d  [NE], xr_d [NE], y_d [NE];
logic [NE-1:0]    snre_d;
logic [NE*PW-1:0] snra_d;
logic [NE-1:0]   wv_d;
logic [LW-1:0]   wl_d [NE];
logic [PW-1:0]   wi_d [NE];

// the configuration, a copy per group of eight engines (a net to every engine crosses the die:
// 18.7 ns of routing at 48 ports); the engines see a change one cycle later
logic [NG-1:0]   gcal_q, gcal_d;
logic [CUT_F:0]  gcut_q [NG], gcut_d [NG];

// snap RAMs (Stop-Calibrate's copy of the row)
logic [NE-1:0]    snap_re, snap_we;
logic [NE*PW-1:0] snap_ra, snap_wa;
logic [NE*CW-1:0] snap_wd;
wire  [NE*CW-1:0] snap_rd;

// each engine's snap RAM: LUT RAM beside the engine (12 DPR16X4 at 48 ports). Measured, a block
// RAM of its own (ram_style "block") saved about 5,000 logic cells but pulled every engine to
// the DP16KD rows, and the egress with its engines did not route at 48 ports
genvar go;
for (go = 0; go < NE; go = go + 1) begin : gen_engine
    capfc_ram #(.AW(PW), .DW(CW), .RP(1)) u_snap (
        .clk(clk),
        .we(snap_we[go]),
        .wa(snap_wa[go*PW +: PW]),
        .wd(snap_wd[go*CW +: CW]),
        .re(snap_re[go]),
        .ra(snap_ra[go*PW +: PW]),
        .rd(snap_rd[go*CW +: CW])
    );
end

// temporaries
logic [2:0]      ph;
logic [KW-1:0]   k;
logic            issue;
logic            pend_end, abort, granted, g_hi_any, take, yv;
logic [PW-1:0]   yi;
// k - 5 (the input index of the word in y) and k - 1 (CNT's need), wider than the index and the
// count they give (PW <= KW, NW <= KW + 1): their top bits are not used, by design
/* verilator lint_off UNUSEDSIGNAL */
logic [KW-1:0]   km5;
logic [KW:0]     km1;
/* verilator lint_on UNUSEDSIGNAL */
logic [CW:0]     cand, cand2, cand3;
logic            cbit;
logic [NJ-1:0]   rowclr, avail;
logic [JW-1:0]   g, g_hi, g_lo;
logic [CW-1:0]   xr, xs;
// the ports' side padded to 2*NE ports (NP odd: the last engine's slot 1 has no port, and the
// padding's bits are written and never read: waived for that reason)
/* verilator lint_off UNUSEDSIGNAL */
logic [NP2-1:0]   sre_t, swr_en_t;
logic [NP2*LW-1:0] srow_t, swr_l_t;
logic [NP2*PW-1:0] sidx_t, swr_i_t;
logic [NP2*CW-1:0] sval_p;
logic [(NP2 << LW)-1:0] rclr_p, rtrig_p;
/* verilator lint_on UNUSEDSIGNAL */
logic [NE-1:0]   snap_re_t, snap_we_t;
logic [NE*PW-1:0] snap_ra_t, snap_wa_t;
logic [NE*CW-1:0] snap_wd_t;

// reads: issued from registers only, in a process of their own (the egress's read port and row
// events meet here and in its process: one process would make a false combinational loop)
always_comb begin
    sre_t = '0; srow_t = '0; sidx_t = '0; snap_re_t = '0; snap_ra_t = '0;
    for (int o = 0; o < NE; o = o + 1) begin
        issue = busy_q[o] && ph_q[o] != PH_MUL && ph_q[o] != PH_CNT && k_q[o] < KW'($unsigned(NP));
        // the read goes to the port of the row's slot; both ports get the row and index (every
        // select here and below is a constant part-select and a 2:1 mux by the slot: an index
        // computed from the slot made Yosys build shifters over every port's bits)
        sre_t[2*o]     = issue && (ph_q[o] == PH_MAX || ph_q[o] == PH_COPY) && !sl_q[o];
        sre_t[2*o + 1] = issue && (ph_q[o] == PH_MAX || ph_q[o] == PH_COPY) && sl_q[o];
        snap_re_t[o] = issue && (ph_q[o] == PH_SRCH || ph_q[o] == PH_GT || ph_q[o] == PH_SEL);
        for (int s = 0; s < 2; s = s + 1) begin
            srow_t[(2*o + s)*LW +: LW] = row_q[o];
            sidx_t[(2*o + s)*PW +: PW] = k_q[o][PW-1:0];
        end
        snap_ra_t[o*PW +: PW] = k_q[o][PW-1:0];
    end
    sre     = sre_t[NP-1:0];
    srow    = srow_t[NP*LW-1:0];
    sidx    = sidx_t[NP*PW-1:0];
    snre_d  = snap_re_t;
    snra_d  = snap_ra_t;
    snap_re = snre_q;
    snap_ra = snra_q;
end

always_comb begin
    // defaults for the arrays written per engine (Verilator 5.006 does not unroll these loops
    // at 128 engines and would report latches without them; Icarus 11 cannot assign a whole
    // unpacked array: element by element there)
`ifdef VERILATOR
    pend_d = pend_q; rr_d = rr_q; ph_d = ph_q; row_d = row_q;
    k_d = k_q; bit_d = bit_q; v_d = v_q; ix_d = ix_q; acc_d = acc_q; acc2_d = acc2_q; acc3_d = acc3_q;
    tgt_d = tgt_q; need_d = need_q; t_d = t_q; x_d = x_q; xr_d = xr_q; y_d = y_q;
    wl_d = wl_q; wi_d = wi_q;
`else
    for (int o = 0; o < NE; o = o + 1) begin
        pend_d[o] = pend_q[o]; rr_d[o] = rr_q[o]; ph_d[o] = ph_q[o]; row_d[o] = row_q[o];
        k_d[o] = k_q[o]; bit_d[o] = bit_q[o]; v_d[o] = v_q[o]; ix_d[o] = ix_q[o];
        acc_d[o] = acc_q[o]; acc2_d[o] = acc2_q[o]; acc3_d[o] = acc3_q[o];
        tgt_d[o] = tgt_q[o]; need_d[o] = need_q[o]; t_d[o] = t_q[o];
        x_d[o] = x_q[o]; xr_d[o] = xr_q[o]; y_d[o] = y_q[o];
        wl_d[o] = wl_q[o]; wi_d[o] = wi_q[o];
    end
`endif
    busy_d = busy_q; cal_d = cal_q; sl_d = sl_q;
    met_d = met_q; met2_d = met2_q; met3_d = met3_q; cb_d = cb_q;
    ge_d = '0; ge2_d = '0; ge3_d = '0; gt_d = '0; eq_d = '0; nz_d = '0;
    yv_d = '0; se_d = '0; gty_d = '0; ldm_d = '0;
    wv_d = '0;
    sval_p = '0; rclr_p = '0; rtrig_p = '0;
    sval_p[NP*CW-1:0] = sval;
    rclr_p[NR-1:0]    = rclr;
    rtrig_p[NR-1:0]   = rtrig;
    snap_we_t = '0; snap_wa_t = '0;
    snap_wd_t = '0;

    for (int o = 0; o < NE; o = o + 1) begin
        ph = ph_q[o];
        k  = k_q[o];
        // the engine's rows j = {slot, class}: port 2o+slot's row class
        for (int j = 0; j < NJ; j = j + 1) begin
            rowclr[j] = rclr_p[((2*o + j / (1 << LW)) << LW) + (j % (1 << LW))];
        end
        abort = busy_q[o] && rowclr[{sl_q[o], row_q[o]}];

        // ---- the word's pipeline: the snap RAM's output -> x (raw); x or the egress's
        // sval (both registered), by the slot and the phase -> xr; xr -> y, with its compares
        x_d[o]  = snap_rd[o*CW +: CW];
        xs = sl_q[o] ? sval_p[(2*o + 1)*CW +: CW] : sval_p[(2*o)*CW +: CW];
        xr = (ph == PH_MAX || ph == PH_COPY) ? xs : x_q[o];
        xr_d[o] = xr;
        // the word in y is input k-5 of the pass (read in k-5, in x or sval at k-2, in xr at k-1):
        // yv_q, decoded in k-1 (a phase that reads keeps its phase and counts k up in [4, NP+4):
        // no pass ends there, and a grant, which would not, is excluded by busy_q; after an
        // abort yv_q may be 1 while the engine is idle, where nothing reads it)
        yv = yv_q[o];
        yv_d[o] = busy_q[o] && ph != PH_MUL && ph != PH_CNT &&
                  k >= KW'(3'd4) && k < KW'($unsigned(NP + 4));
        // the search pass's end (k = NP+6), decoded in k = NP+5
        se_d[o] = busy_q[o] && ph == PH_SRCH && k == KW'($unsigned(NP + 5));
        km5 = k - KW'(3'd5);
        yi  = km5[PW-1:0];
        km1 = {1'b0, k} - 1'b1;
        y_d[o]  = xr_q[o];
        // the search's three candidates, theta's two bits at bit_q 01, 10 and 11 (CW+1 bits: with
        // CW odd the first pass's top bit is above the counters), from registers
        cand    = {1'b0, v_q[o]} | ((CW+1)'(2'd1) << bit_q[o]);
        cand2   = {1'b0, v_q[o]} | ((CW+1)'(2'd2) << bit_q[o]);
        cand3   = {1'b0, v_q[o]} | ((CW+1)'(2'd3) << bit_q[o]);
        ge_d[o]  = {1'b0, xr_q[o]} >= cand;
        ge2_d[o] = {1'b0, xr_q[o]} >= cand2;
        ge3_d[o] = {1'b0, xr_q[o]} >= cand3;
        gt_d[o] = xr_q[o] > v_q[o];
        gty_d[o] = xr_q[o] > y_q[o];
        eq_d[o] = xr_q[o] == v_q[o];
        nz_d[o] = xr_q[o] != '0;

        // ---- grant: the first available row at or after rr_q, wrapping over the NJ rows
        avail    = pend_q[o] & ~rowclr;
        granted  = !busy_q[o] && (avail != '0);
        g_hi     = '0;
        g_lo     = '0;
        g_hi_any = 1'b0;
        for (int j = NJ-1; j >= 0; j = j - 1) begin
            if (avail[j]) begin
                g_lo = JW'($unsigned(j));
                if (JW'($unsigned(j)) >= rr_q[o]) begin
                    g_hi     = JW'($unsigned(j));
                    g_hi_any = 1'b1;
                end
            end
        end
        g = g_hi_any ? g_hi : g_lo;

        pend_end = k == KW'($unsigned(NP + 5));
        cbit     = 1'b0;
        take = yv && (gt_q[o] || (eq_q[o] && nz_q[o] && t_q[o] < need_q[o]));

        if (!busy_q[o]) begin
            if (granted) begin
                rr_d[o]   = g + 1'b1;
                busy_d[o] = 1'b1;
                sl_d[o]   = g[JW-1];
                row_d[o]  = g[LW-1:0];
                cal_d[o]  = gcal_q[o / 8];
                ph_d[o]   = gcal_q[o / 8] ? PH_COPY : PH_MAX;
                k_d[o]    = '0;
                v_d[o]    = '0;
                ix_d[o]   = '0;
                acc_d[o]  = '0;
            end
        end else begin
            // (a row clear's abort, below, drops busy and the pass's E write only: the other
            // registers step on as if it had not come, and the next grant sets what a sort
            // reads. With the abort in every register's enable, a row clear's register in the
            // egress into the engine's target was the critical path at 8 ports on grade 6,
            // 114.4 MHz)
            k_d[o] = k + 1'b1;
            case (ph)
                PH_MAX: begin
                    // (the running maximum's load: below, off the phase's case)
                    if (pend_end) begin
                        wv_d[o]   = v_q[o] != '0;
                        wl_d[o]   = row_q[o];
                        wi_d[o]   = ix_q[o];
                        busy_d[o] = 1'b0;
                    end
                end
                PH_COPY: begin
                    if (yv) begin
                        snap_we_t[o] = 1'b1;
                        acc_d[o]     = acc_q[o] + SUMW'(y_q[o]);
                    end
                    if (pend_end) begin
                        ph_d[o]  = PH_MUL;
                        k_d[o]   = '0;
                        tgt_d[o] = '0;
                        cb_d[o]  = gcut_q[o / 8][CUT_F];
                    end
                end
                PH_MUL: begin
                    // cut * T by shift and add, the cut's top bit first: one add a cycle in
                    // LUTs beside the engine (a DSP's fixed site is up to half the die away:
                    // measured, 12.8 ns of routing to and from it); the step's bit of the cut
                    // registered a step ahead (cb_q), off the adder's path
                    for (int b = 0; b < CUT_F; b = b + 1) begin
                        if (k == KW'($unsigned(CUT_F - 1 - b))) begin
                            cbit = gcut_q[o / 8][b];
                        end
                    end
                    cb_d[o]  = cbit;
                    tgt_d[o] = (tgt_q[o] << 1) + (cb_q[o] ? MW'(acc_q[o]) : '0);
                    if (k == KW'($unsigned(CUT_F))) begin
                        acc_d[o]  = '0;
                        acc2_d[o] = '0;
                        acc3_d[o] = '0;
                        bit_d[o]  = BW'(BSTART);
                        ph_d[o]   = PH_SRCH;
                        k_d[o]    = '0;
                    end
                end
                PH_SRCH: begin
                    // a sum per candidate (each the sum of the inputs at or above it), each
                    // compared against the target a cycle later
                    if (yv && ge_q[o]) begin
                        acc_d[o] = acc_q[o] + SUMW'(y_q[o]);
                    end
                    if (yv && ge2_q[o]) begin
                        acc2_d[o] = acc2_q[o] + SUMW'(y_q[o]);
                    end
                    if (yv && ge3_q[o]) begin
                        acc3_d[o] = acc3_q[o] + SUMW'(y_q[o]);
                    end
                    met_d[o]  = (MW'(acc_q[o]) << CUT_F) >= tgt_q[o];
                    met2_d[o] = (MW'(acc2_q[o]) << CUT_F) >= tgt_q[o];
                    met3_d[o] = (MW'(acc3_q[o]) << CUT_F) >= tgt_q[o];
                    if (se_q[o]) begin
                        // (theta's two bits: below, off the phase's case)
                        acc_d[o]  = '0;
                        acc2_d[o] = '0;
                        acc3_d[o] = '0;
                        k_d[o]    = '0;
                        if (bit_q[o] == '0) begin
                            ph_d[o] = PH_GT;
                        end else begin
                            bit_d[o]  = bit_q[o] - BW'(2'd2);
                        end
                    end
                end
                PH_GT: begin
                    if (yv && gt_q[o]) begin
                        acc_d[o] = acc_q[o] + SUMW'(y_q[o]);
                    end
                    if (pend_end) begin
                        ph_d[o] = PH_CNT;
                        k_d[o]  = '0;
                    end
                end
                PH_CNT: begin
                    // acc_q = G + k*theta; met_q = its compare a cycle later (j = k-1)
                    acc_d[o] = acc_q[o] + SUMW'(v_q[o]);
                    met_d[o] = (MW'(acc_q[o]) << CUT_F) >= tgt_q[o];
                    if (k != '0 && (met_q[o] || k == KW'($unsigned(NP + 1)))) begin
                        need_d[o] = km1[NW-1:0];
                        t_d[o]    = '0;
                        ph_d[o]   = PH_SEL;
                        k_d[o]    = '0;
                    end
                end
                PH_SEL: begin
                    if (take) begin
                        wv_d[o] = 1'b1;
                        wl_d[o] = row_q[o];
                        wi_d[o] = yi;
                        if (!gt_q[o]) begin
                            t_d[o] = t_q[o] + 1'b1;
                        end
                    end
                    if (pend_end) begin
                        busy_d[o] = 1'b0;
                    end
                end
                default: begin
                    busy_d[o] = 1'b0;
                end
            endcase
            // the running value, from the windows' registers and the phase's one bit for MAX:
            // Stop-Max's maximum (strict: ties keep the lowest index); at the search pass's end
            // theta's two bits, met*_q (the pass's sums against the target, registered at
            // NP+5): the highest candidate met (the sums fall as the candidates rise). A
            // candidate above the counters' range (CW odd, the first pass) has a sum of 0 and is
            // met only when the target is 0, and then so is the one below it, which its low CW
            // bits are
            if (yv && ph == PH_MAX && (ldm_q[o] ? gty_q[o] : gt_q[o])) begin
                v_d[o]   = y_q[o];
                ix_d[o]  = yi;
                ldm_d[o] = 1'b1;
            end
            if (se_q[o]) begin
                v_d[o] = met3_q[o] ? CW'(cand3) : met2_q[o] ? CW'(cand2) :
                         met_q[o]  ? CW'(cand)  : v_q[o];
            end
            if (abort) begin
                busy_d[o] = 1'b0;
                wv_d[o]   = 1'b0;
            end
        end
        snap_wa_t[o*PW +: PW] = yi;
        snap_wd_t[o*CW +: CW] = y_q[o];

        // pending requests: a clear drops one, a grant consumes one, a request (re)sets one
        for (int j = 0; j < NJ; j = j + 1) begin
            pend_d[o][j] = (pend_q[o][j] && !rowclr[j] && !(granted && g == JW'($unsigned(j)))) ||
                           ((j % (1 << LW)) < NL && 2*o + j / (1 << LW) < NP &&
                            rtrig_p[((2*o + j / (1 << LW)) << LW) + (j % (1 << LW))]);
        end

        if (rst) begin
            pend_d[o] = '0;
            rr_d[o]   = '0;
            busy_d[o] = 1'b0;
            wv_d[o]   = 1'b0;
            yv_d[o]   = 1'b0;
            se_d[o]   = 1'b0;
            // (the snap RAM's write is not gated by the reset, which keeps the reset's net off its
            // write enable, the critical path at 66.8 MHz: a word written in a reset cycle is
            // written again by the next sort's copy pass before any read)
        end
    end

    snap_we = snap_we_t;
    snap_wa = snap_wa_t;
    snap_wd = snap_wd_t;
end

// E writes: last cycle's, registered (the egress cancels one whose row clears in its cycle)
always_comb begin
    swr_en_t = '0; swr_l_t = '0; swr_i_t = '0;
    for (int o = 0; o < NE; o = o + 1) begin
        // (sl_q is still the write's slot: the last write leaves in the cycle busy drops, and a
        // grant in that cycle sets the slot a cycle later)
        swr_en_t[2*o]     = wv_q[o] && !sl_q[o];
        swr_en_t[2*o + 1] = wv_q[o] && sl_q[o];
        for (int s = 0; s < 2; s = s + 1) begin
            swr_l_t[(2*o + s)*LW +: LW] = wl_q[o];
            swr_i_t[(2*o + s)*PW +: PW] = wi_q[o];
        end
    end
    swr_en = swr_en_t[NP-1:0];
    swr_l  = swr_l_t[NP*LW-1:0];
    swr_i  = swr_i_t[NP*PW-1:0];
end

always_comb begin
    for (int gi = 0; gi < NG; gi = gi + 1) begin
        gcal_d[gi] = cfg_mode_cal;
        gcut_d[gi] = cfg_cut;
    end
end

// the configuration's copies, a process per group, kept: with the same D in every group,
// synthesis would merge them into one register whose net crosses the die to every engine
for (genvar gi = 0; gi < NG; gi = gi + 1) begin : gen_gcfg
    (* keep *)
    always_ff @(posedge clk) begin
        gcal_q[gi] <= gcal_d[gi];
        gcut_q[gi] <= gcut_d[gi];
    end
end

always_ff @(posedge clk) begin
    busy_q <= busy_d; cal_q <= cal_d; sl_q <= sl_d; met_q <= met_d; met2_q <= met2_d; met3_q <= met3_d; cb_q <= cb_d;
    ge_q <= ge_d; ge2_q <= ge2_d; ge3_q <= ge3_d; gt_q <= gt_d; eq_q <= eq_d; nz_q <= nz_d;
    snre_q <= snre_d; snra_q <= snra_d;
    yv_q <= yv_d; se_q <= se_d; gty_q <= gty_d; ldm_q <= ldm_d;
    wv_q <= wv_d;
    // (whole arrays for Verilator, which does not unroll a loop of more than 64 here; Icarus 11
    // and Yosys cannot assign a whole unpacked array)
`ifdef VERILATOR
    pend_q <= pend_d; rr_q <= rr_d; ph_q <= ph_d; row_q <= row_d; k_q <= k_d; bit_q <= bit_d;
    v_q <= v_d; ix_q <= ix_d; acc_q <= acc_d; acc2_q <= acc2_d; acc3_q <= acc3_d; tgt_q <= tgt_d;
    need_q <= need_d; t_q <= t_d;
    x_q <= x_d; xr_q <= xr_d; y_q <= y_d; wl_q <= wl_d; wi_q <= wi_d;
`else
    for (int o = 0; o < NE; o = o + 1) begin
        pend_q[o] <= pend_d[o]; rr_q[o] <= rr_d[o]; ph_q[o] <= ph_d[o]; row_q[o] <= row_d[o];
        k_q[o] <= k_d[o]; bit_q[o] <= bit_d[o]; v_q[o] <= v_d[o];
        ix_q[o] <= ix_d[o]; acc_q[o] <= acc_d[o]; acc2_q[o] <= acc2_d[o]; acc3_q[o] <= acc3_d[o];
        tgt_q[o] <= tgt_d[o];
        need_q[o] <= need_d[o]; t_q[o] <= t_d[o]; x_q[o] <= x_d[o]; xr_q[o] <= xr_d[o];
        y_q[o] <= y_d[o];
        wl_q[o] <= wl_d[o]; wi_q[o] <= wi_d[o];
    end
`endif
end

endmodule

`resetall
