// capfc_sort_v3_tb: the v3 sort engines spike (rtl/v3/capfc_sort.sv) against a reference of
// Stop-Max and Stop-Calibrate written from the contract (docs/microarchitecture.md, "Sort engines",
// and the v3 timing in the spike's header), on random rows, with Verilator (make v3-spike)
//
// - The counter RAM's read port is modelled here: sval in t+2 is the row's word addressed in t.
//   A row is not changed while its engine sorts it; cfg_cut changes only while every engine is idle
//   (the engines read it in MUL); cfg_mode_cal at random (sampled at the grant).
// - Each sort (busy_q rising; row_q, cal_q read from the engine) is checked when it ends:
//   its E writes (swr_*, a cycle after they are found) are the reference's selection in index
//   order, or a prefix of it when a row clear cut the sort short; a complete sort lasts exactly
//   NP+4 cycles (Stop-Max) or (NP+4) + (CUT_F+1) + ceil(CW/2)(NP+5) + (NP+4) + (need+2) + (NP+4) (Stop-Calibrate,
//   need from the reference).
// - Requests and grants against a reference (pending per row, round robin from rr), every cycle.
// - Rows are drawn from few values (ties at theta), zeros, one large input, all zero.
// - A clear in the cycle a write leaves (aimed at leaving writes now and then) must not stop it:
//   the egress cancels it beside E; an engine whose row is cleared while it sorts is idle the
//   next cycle.
// - Corners counted and required: both algorithms, a Stop-Max of an all-zero row (no write), a
//   selection that leaves inputs equal to theta untaken, theta = 0, aborts, a request while busy,
//   both classes pending at one grant.
// - +SEED=n (printed) seeds $urandom; $fatal on an error.

`timescale 1ns / 1ps
`default_nettype none

module capfc_sort_v3_tb;
localparam integer NP = `TB_NP;
`ifndef TB_CW
`define TB_CW 16
`endif
localparam integer CW = `TB_CW;
localparam integer CUT_F = 8;
localparam integer NL = 2;
localparam integer LW = 1;
localparam integer PW = (NP > 1) ? $clog2(NP) : 1;
localparam integer NR = NP * 2;
localparam integer CYCLES = `TB_CYCLES;

logic clk = 1'b0;
logic rst = 1'b1;
logic             cfg_mode_cal;
logic [CUT_F:0]   cfg_cut;
logic [NR-1:0]    rclr, rtrig;
logic [NP*CW-1:0] sval;
wire  [NP-1:0]    sre, swr_en;
wire  [NP*LW-1:0] srow, swr_l;
wire  [NP*PW-1:0] sidx, swr_i;

capfc_sort #(.NP(NP), .CW(CW), .CUT_F(CUT_F), .NL(NL)) dut (
    .clk(clk), .rst(rst), .cfg_mode_cal(cfg_mode_cal), .cfg_cut(cfg_cut),
    .rclr(rclr), .rtrig(rtrig), .sre(sre), .srow(srow), .sidx(sidx), .sval(sval),
    .swr_en(swr_en), .swr_l(swr_l), .swr_i(swr_i)
);

always #5 clk = ~clk;

integer          rows [NP][NL][NP];
logic [NP*CW-1:0] sval_next, sval_mid;
// per engine: the sort being watched
logic            on [NP], was_busy [NP], cut_short [NP];
integer          s_row [NP], s_cal [NP], s_len [NP], s_nw [NP], s_nexp [NP], s_need [NP];
integer          s_exp [NP][NP], s_got [NP][NP];
integer          seed, seed_rng, cyc, errors, segment, quiet;
integer          n_max, n_cal, n_zero, n_tiecut, n_theta0, n_abort, n_busyreq, n_both, n_writes;
logic            any_busy;
logic [1:0]      pend_ref [NP], avail;
integer          rr_ref [NP], grant_ref [NP], gsel;
logic            abort_due [NP];
integer          n_supp;

task automatic fail(input string what);
    errors = errors + 1;
    if (errors <= 10) begin
        $display("capfc_sort_v3_tb: cycle %0d: %s (replay: make v3-spike V3_SEED=%0d)", cyc, what, seed);
    end
endtask

// the reference: the selection (indices in order) and Stop-Calibrate's need
task automatic reference(input integer o, input integer l, input integer cal,
                         output integer n, output integer need, output integer theta_out);
    longint t, tgt, a, g, vv, cand;
    integer tk;
    n = 0;
    need = 0;
    theta_out = 0;
    if (cal == 0) begin
        vv = 0;
        tk = 0;
        for (int i = 0; i < NP; i = i + 1) begin
            if (rows[o][l][i] > vv) begin
                vv = rows[o][l][i];
                tk = i;
            end
        end
        if (vv != 0) begin
            s_exp[o][0] = tk;
            n = 1;
        end
    end else begin
        t = 0;
        for (int i = 0; i < NP; i = i + 1) t = t + rows[o][l][i];
        tgt = longint'(cfg_cut) * t;
        vv = 0;
        for (int b = CW - 1; b >= 0; b = b - 1) begin
            cand = vv | (longint'(1) << b);
            a = 0;
            for (int i = 0; i < NP; i = i + 1) if (rows[o][l][i] >= cand) a = a + rows[o][l][i];
            if ((a << CUT_F) >= tgt) vv = cand;
        end
        theta_out = int'(vv);
        g = 0;
        for (int i = 0; i < NP; i = i + 1) if (rows[o][l][i] > vv) g = g + rows[o][l][i];
        need = NP;
        for (int j = NP; j >= 0; j = j - 1) if (((g + j * vv) << CUT_F) >= tgt) need = j;
        tk = 0;
        for (int i = 0; i < NP; i = i + 1) begin
            if (rows[o][l][i] > vv || (rows[o][l][i] == vv && vv != 0 && tk < need)) begin
                if (rows[o][l][i] == vv) tk = tk + 1;
                s_exp[o][n] = i;
                n = n + 1;
            end
        end
    end
endtask

task automatic new_row(input integer o, input integer l);
    integer kind, a, b;
    kind = $urandom % 6;
    a = 1 + $urandom % 200;
    b = 1 + $urandom % 5;
    for (int i = 0; i < NP; i = i + 1) begin
        case (kind)
            0: rows[o][l][i] = 0;
            1: rows[o][l][i] = ($urandom % 3 == 0) ? 0 : a * (1 + $urandom % 3);       // ties
            2: rows[o][l][i] = (i == $urandom % NP) ? 60000 : $urandom % 8;          // one large
            3: rows[o][l][i] = $urandom % 65536;
            4: rows[o][l][i] = ($urandom % 2) ? a : 0;                               // all equal or 0
            default: rows[o][l][i] = b * ($urandom % 4);
        endcase
        rows[o][l][i] = rows[o][l][i] % (1 << CW);
    end
endtask

initial begin
    integer n, need, th, len;
    if (!$value$plusargs("SEED=%d", seed)) begin
        seed = 1;
    end
    $display("capfc_sort_v3_tb: NP=%0d CW=%0d seed %0d, %0d cycles", NP, CW, seed, CYCLES);
    seed_rng = seed;
    n = $urandom(seed_rng);
    for (int o = 0; o < NP; o = o + 1) begin
        for (int l = 0; l < NL; l = l + 1) new_row(o, l);
        on[o] = 1'b0; was_busy[o] = 1'b0; cut_short[o] = 1'b0;
        pend_ref[o] = '0; rr_ref[o] = 0; grant_ref[o] = -1; abort_due[o] = 1'b0;
    end
    cfg_mode_cal = 1'b0;
    cfg_cut = 9'd256;
    rclr = '0; rtrig = '0; sval = '0; sval_next = '0; sval_mid = '0;
    n_max = 0; n_cal = 0; n_zero = 0; n_tiecut = 0; n_theta0 = 0; n_abort = 0; n_busyreq = 0;
    n_both = 0; n_writes = 0; n_supp = 0; errors = 0; segment = 0; quiet = 0; cyc = 0;
    repeat (2) @(negedge clk);
    rst = 1'b0;
    for (cyc = 0; cyc < CYCLES; cyc = cyc + 1) begin
        sval = sval_mid;
        sval_mid = sval_next;
        // ---- observe the engines (registers of this cycle)
        any_busy = 1'b0;
        for (int o = 0; o < NP; o = o + 1) begin
            any_busy = any_busy | dut.busy_q[o];
            // the grant the reference made last cycle, and the requests pending now
            if (grant_ref[o] >= 0 && !(dut.busy_q[o] && dut.row_q[o] == LW'(grant_ref[o]) && !was_busy[o]))
                fail($sformatf("engine %0d: busy %b row %0d, expected a grant of row %0d", o, dut.busy_q[o], dut.row_q[o], grant_ref[o]));
            if (grant_ref[o] < 0 && !was_busy[o] && dut.busy_q[o])
                fail($sformatf("engine %0d: a grant of row %0d with none expected", o, dut.row_q[o]));
            if (abort_due[o] && dut.busy_q[o]) fail($sformatf("engine %0d: still busy a cycle after its row's clear", o));
            if (dut.pend_q[o] !== pend_ref[o]) fail($sformatf("engine %0d: pending %b, expected %b", o, dut.pend_q[o], pend_ref[o]));
            if (!was_busy[o] && dut.busy_q[o]) begin
                on[o] = 1'b1;
                cut_short[o] = 1'b0;
                s_row[o] = dut.row_q[o];
                s_cal[o] = dut.cal_q[o];
                s_len[o] = 0;
                s_nw[o] = 0;
                reference(o, s_row[o], s_cal[o], n, need, th);
                s_nexp[o] = n;
                s_need[o] = need;
                if (s_cal[o] != 0) begin
                    n_cal = n_cal + 1;
                    if (th == 0) n_theta0 = n_theta0 + 1;
                    len = 0;
                    for (int i = 0; i < NP; i = i + 1) begin
                        if (rows[o][s_row[o]][i] == th && th != 0) len = len + 1;
                    end
                    if (len > need) n_tiecut = n_tiecut + 1;
                end else begin
                    n_max = n_max + 1;
                    if (n == 0) n_zero = n_zero + 1;
                end
            end
            if (dut.busy_q[o]) s_len[o] = s_len[o] + 1;
            if (!dut.busy_q[o] && dut.pend_q[o] == 2'b11) n_both = n_both + 1;  // a grant between two
        end
        // ---- drive: requests (none in the quiet spell before a cut change), clears, rows, mode
        rtrig = '0;
        rclr = '0;
        if (cyc % 2000 == 1999) quiet = 1;
        if (quiet != 0 && !any_busy) begin
            quiet = 0;
            segment = segment + 1;
            case (segment % 5)  // each value in turn, more than 1.0 (theta 0) first
                1: cfg_cut = 9'd300;
                2: cfg_cut = 9'd64;
                3: cfg_cut = 9'd128;
                4: cfg_cut = 9'(1 + $urandom % 511);
                default: cfg_cut = 9'd256;
            endcase
        end
        if ($urandom % 200 == 0) cfg_mode_cal = !cfg_mode_cal;
        for (int o = 0; o < NP; o = o + 1) begin
            if (quiet == 0 && $urandom % (NP * 100) == 0) rtrig[o*2 +: 2] = 2'b11;  // both classes at once
            for (int l = 0; l < NL; l = l + 1) begin
                if (quiet == 0 && $urandom % (NP * 40) == 0) begin
                    rtrig[o*2 + l] = 1'b1;
                    if (dut.busy_q[o]) n_busyreq = n_busyreq + 1;
                end
                if ($urandom % (NP * 400) == 0) rclr[o*2 + l] = 1'b1;
                if (!(dut.busy_q[o] && dut.row_q[o] == LW'(l)) && $urandom % 50 == 0) new_row(o, l);
            end
            // a clear aimed at a write leaving now (it must still leave), now and then
            if (dut.wv_q[o] && $urandom % 8 == 0) begin
                rclr[o*2 + dut.wl_q[o]] = 1'b1;
                n_supp = n_supp + 1;
            end
        end
        #1;
        // ---- E writes leaving now; the sort they belong to; a clear that cuts it short
        for (int o = 0; o < NP; o = o + 1) begin
            if (on[o] && rclr[o*2 + s_row[o]]) cut_short[o] = 1'b1;
            abort_due[o] = dut.busy_q[o] && rclr[o*2 + dut.row_q[o]];
            if (dut.wv_q[o] && !swr_en[o])
                fail($sformatf("engine %0d holds back its E write (row %0d, input %0d)", o, dut.wl_q[o], dut.wi_q[o]));
            if (swr_en[o]) begin
                n_writes = n_writes + 1;
                if (!on[o]) begin
                    fail($sformatf("engine %0d writes E (input %0d) outside a sort", o, swr_i[o*PW +: PW]));
                end else begin
                    if (swr_l[o*LW +: LW] != LW'(s_row[o])) fail($sformatf("engine %0d writes row %0d, sorting row %0d", o, swr_l[o*LW +: LW], s_row[o]));
                    if (s_nw[o] < NP) s_got[o][s_nw[o]] = swr_i[o*PW +: PW];
                    s_nw[o] = s_nw[o] + 1;
                end
            end
            // a sort closes in the first cycle busy is low (its last write leaves then)
            if (on[o] && was_busy[o] && !dut.busy_q[o]) begin
                on[o] = 1'b0;
                if (!cut_short[o]) begin
                    len = (s_cal[o] == 0) ? NP + 4 :
                          (NP + 4) + (CUT_F + 1) + (CW + 1) / 2 * (NP + 5) + (NP + 4) + (s_need[o] + 2) + (NP + 4);
                    if (s_len[o] != len) fail($sformatf("engine %0d row %0d (%s): busy %0d cycles, expected %0d", o, s_row[o],
                        s_cal[o] ? "Stop-Calibrate" : "Stop-Max", s_len[o], len));
                    if (s_nw[o] != s_nexp[o]) fail($sformatf("engine %0d row %0d (%s): %0d E writes, expected %0d", o, s_row[o],
                        s_cal[o] ? "Stop-Calibrate" : "Stop-Max", s_nw[o], s_nexp[o]));
                end else begin
                    n_abort = n_abort + 1;
                    if (s_nw[o] > s_nexp[o]) fail($sformatf("engine %0d row %0d: %0d E writes after a clear, at most %0d expected", o, s_row[o], s_nw[o], s_nexp[o]));
                end
                for (int k = 0; k < s_nw[o] && k < s_nexp[o]; k = k + 1) begin
                    if (s_got[o][k] != s_exp[o][k]) fail($sformatf("engine %0d row %0d (%s): E write %0d is input %0d, expected %0d", o, s_row[o],
                        s_cal[o] ? "Stop-Calibrate" : "Stop-Max", k, s_got[o][k], s_exp[o][k]));
                end
            end
            was_busy[o] = dut.busy_q[o];
        end
        // ---- the reference's requests and grants: an idle engine takes the first request at or
        // after rr (wrapping), not cleared this cycle; a clear drops one, a request (re)sets one
        for (int o = 0; o < NP; o = o + 1) begin
            avail = pend_ref[o] & ~rclr[o*2 +: 2];
            grant_ref[o] = -1;
            if (!dut.busy_q[o] && avail != 0) begin
                gsel = avail[rr_ref[o]] ? rr_ref[o] : avail[(rr_ref[o] + 1) % 2] ? (rr_ref[o] + 1) % 2 : rr_ref[o];
                grant_ref[o] = gsel;
                rr_ref[o] = (gsel + 1) % 2;
                avail[gsel] = 1'b0;
            end
            pend_ref[o] = avail | rtrig[o*2 +: 2];
        end
        // ---- the read port: the word addressed now, in sval two cycles later
        for (int o = 0; o < NP; o = o + 1) begin
            if (sre[o]) sval_next[o*CW +: CW] = CW'(rows[o][srow[o*LW +: LW]][sidx[o*PW +: PW]]);
        end
        @(negedge clk);
    end
    $display("capfc_sort_v3_tb: %0d Stop-Max sorts (%0d of an all-zero row), %0d Stop-Calibrate (%0d with theta 0, %0d leaving inputs equal to theta), %0d cut short by a clear, %0d requests while busy, %0d grants with both classes pending, %0d E writes, %0d clears aimed at a write leaving, %0d cut changes",
        n_max, n_zero, n_cal, n_theta0, n_tiecut, n_abort, n_busyreq, n_both, n_writes, n_supp, segment);
    if (n_max == 0 || n_zero == 0 || n_cal == 0 || n_theta0 == 0 || n_tiecut == 0 || n_abort == 0 ||
            n_busyreq == 0 || n_both == 0 || n_supp == 0) begin
        fail("a corner was not reached");
    end
    if (errors != 0) begin
        $fatal(1, "capfc_sort_v3_tb: %0d errors", errors);
    end
    $display("capfc_sort_v3_tb: 1 passed, 0 failed");
    $finish;
end

endmodule

`resetall
