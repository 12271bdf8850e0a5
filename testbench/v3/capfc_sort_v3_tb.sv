// capfc_sort_v3_tb: the v3 block's sort engines (rtl/v3/capfc_sort.sv) against a reference of
// Stop-Max and Stop-Calibrate written from the contract (docs/microarchitecture-v2.md, "Sort engines",
// and the v3 timing in the unit's header), on random rows, with Verilator (make v3-spike)
//
// - The counter RAM's read port is modelled here: sval in t+3 is the row's word addressed in t.
//   A row is not changed while its engine sorts it; cfg_cut changes only while every engine is idle
//   (the engines read it in MUL); cfg_mode_cal at random (sampled at the grant).
// - An engine sorts the rows of two ports (engine e: ports 2e and 2e+1; the last engine has one
//   port when NP is odd). Each sort (busy_q rising; sl_q, row_q, cal_q read from the engine) is
//   checked when it ends: its E writes (swr_* of its port and of no other, a cycle after they
//   are found) are the reference's selection in index
//   order, or a prefix of it when a row clear cut the sort short; a complete sort lasts exactly
//   NP+6 cycles (Stop-Max) or (NP+6) + (CUT_F+1) + ceil(CW/2)(NP+7) + (NP+6) + (need+2) + (NP+6) (Stop-Calibrate,
//   need from the reference).
// - Requests and grants against a reference (pending per row, round robin from rr over the
//   engine's four rows, port 2e's two classes first), every cycle.
// - Rows are drawn from few values (ties at theta), zeros, one large input, all zero.
// - A clear in the cycle a write leaves (aimed at leaving writes now and then) must not stop it:
//   the egress cancels it beside E; an engine whose row is cleared while it sorts is idle the
//   next cycle.
// - Corners counted and required: both algorithms, a Stop-Max of an all-zero row (no write), a
//   selection that leaves inputs equal to theta untaken, theta = 0, aborts, a request while busy,
//   several rows pending at one grant, rows of both ports pending at one grant.
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
localparam integer NE = (NP + 1) / 2;   // engines: engine e sorts the rows of ports 2e and 2e+1
localparam integer NJ = 4;              // its rows j = {slot, class}: port 2e + j/2, class j%2
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
logic [NP*CW-1:0] sval_next, sval_mid, sval_mid2;
// per engine: the sort being watched (its port and class)
logic            on [NE], was_busy [NE], cut_short [NE];
integer          s_port [NE], s_row [NE], s_cal [NE], s_len [NE], s_nw [NE], s_nexp [NE], s_need [NE];
integer          s_exp [NE][NP], s_got [NE][NP];
integer          seed, seed_rng, cyc, errors, segment, quiet;
string           dump;
integer          n_max, n_cal, n_zero, n_tiecut, n_theta0, n_abort, n_busyreq, n_both, n_ports, n_writes;
logic            any_busy;
logic [NJ-1:0]   pend_ref [NE], avail, rowclr, rowtrig;
integer          rr_ref [NE], grant_ref [NE], gsel;
logic            abort_due [NE];
integer          n_supp;

task automatic fail(input string what);
    errors = errors + 1;
    if (errors <= 10) begin
        $display("capfc_sort_v3_tb: cycle %0d: %s (replay: make v3-spike V3_SEED=%0d)", cyc, what, seed);
    end
endtask

// the reference: the selection (indices in order) and Stop-Calibrate's need
task automatic reference(input integer e, input integer o, input integer l, input integer cal,
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
            s_exp[e][0] = tk;
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
                s_exp[e][n] = i;
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
    // (+DUMP=file: the unit's every register and RAM word, for the model's replay, make v3-lockstep)
    if ($value$plusargs("DUMP=%s", dump)) begin
        $dumpfile(dump);
        $dumpvars(0, capfc_sort_v3_tb.dut);
    end
    $display("capfc_sort_v3_tb: NP=%0d CW=%0d seed %0d, %0d cycles", NP, CW, seed, CYCLES);
    seed_rng = seed;
    n = $urandom(seed_rng);
    for (int o = 0; o < NP; o = o + 1) begin
        for (int l = 0; l < NL; l = l + 1) new_row(o, l);
    end
    for (int e = 0; e < NE; e = e + 1) begin
        on[e] = 1'b0; was_busy[e] = 1'b0; cut_short[e] = 1'b0;
        pend_ref[e] = '0; rr_ref[e] = 0; grant_ref[e] = -1; abort_due[e] = 1'b0;
    end
    cfg_mode_cal = 1'b0;
    cfg_cut = 9'd256;
    rclr = '0; rtrig = '0; sval = '0; sval_next = '0; sval_mid = '0; sval_mid2 = '0;
    n_max = 0; n_cal = 0; n_zero = 0; n_tiecut = 0; n_theta0 = 0; n_abort = 0; n_busyreq = 0;
    n_both = 0; n_ports = 0; n_writes = 0; n_supp = 0; errors = 0; segment = 0; quiet = 0; cyc = 0;
    repeat (2) @(negedge clk);
    rst = 1'b0;
    for (cyc = 0; cyc < CYCLES; cyc = cyc + 1) begin
        sval = sval_mid2;
        sval_mid2 = sval_mid;
        sval_mid = sval_next;
        // ---- observe the engines (registers of this cycle)
        any_busy = 1'b0;
        for (int e = 0; e < NE; e = e + 1) begin
            any_busy = any_busy | dut.busy_q[e];
            // the grant the reference made last cycle, and the requests pending now
            if (grant_ref[e] >= 0 && !(dut.busy_q[e] && {dut.sl_q[e], dut.row_q[e]} == 2'(grant_ref[e]) && !was_busy[e]))
                fail($sformatf("engine %0d: busy %b row %0d of port %0d, expected a grant of row %0d", e, dut.busy_q[e],
                    dut.row_q[e], 2*e + dut.sl_q[e], grant_ref[e]));
            if (grant_ref[e] < 0 && !was_busy[e] && dut.busy_q[e])
                fail($sformatf("engine %0d: a grant of row %0d with none expected", e, dut.row_q[e]));
            if (abort_due[e] && dut.busy_q[e]) fail($sformatf("engine %0d: still busy a cycle after its row's clear", e));
            if (dut.pend_q[e] !== pend_ref[e]) fail($sformatf("engine %0d: pending %b, expected %b", e, dut.pend_q[e], pend_ref[e]));
            if (!was_busy[e] && dut.busy_q[e]) begin
                on[e] = 1'b1;
                cut_short[e] = 1'b0;
                s_port[e] = 2*e + dut.sl_q[e];
                s_row[e] = dut.row_q[e];
                s_cal[e] = dut.cal_q[e];
                s_len[e] = 0;
                s_nw[e] = 0;
                reference(e, s_port[e], s_row[e], s_cal[e], n, need, th);
                s_nexp[e] = n;
                s_need[e] = need;
                if (s_cal[e] != 0) begin
                    n_cal = n_cal + 1;
                    if (th == 0) n_theta0 = n_theta0 + 1;
                    len = 0;
                    for (int i = 0; i < NP; i = i + 1) begin
                        if (rows[s_port[e]][s_row[e]][i] == th && th != 0) len = len + 1;
                    end
                    if (len > need) n_tiecut = n_tiecut + 1;
                end else begin
                    n_max = n_max + 1;
                    if (n == 0) n_zero = n_zero + 1;
                end
            end
            if (dut.busy_q[e]) s_len[e] = s_len[e] + 1;
            if (!dut.busy_q[e] && (dut.pend_q[e] & (dut.pend_q[e] - 1'b1)) != 0) n_both = n_both + 1;  // a grant among several
            if (!dut.busy_q[e] && dut.pend_q[e][1:0] != 0 && dut.pend_q[e][3:2] != 0) n_ports = n_ports + 1;  // both ports
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
                    if (dut.busy_q[o / 2]) n_busyreq = n_busyreq + 1;
                end
                if ($urandom % (NP * 400) == 0) rclr[o*2 + l] = 1'b1;
                if (!(dut.busy_q[o / 2] && 2*(o / 2) + dut.sl_q[o / 2] == o && dut.row_q[o / 2] == LW'(l)) &&
                        $urandom % 50 == 0) new_row(o, l);
            end
        end
        for (int e = 0; e < NE; e = e + 1) begin
            // a clear aimed at a write leaving now (it must still leave), now and then
            if (dut.wv_q[e] && $urandom % 8 == 0) begin
                rclr[(2*e + dut.sl_q[e])*2 + dut.wl_q[e]] = 1'b1;
                n_supp = n_supp + 1;
            end
        end
        #1;
        // ---- E writes leaving now; the sort they belong to; a clear that cuts it short
        for (int e = 0; e < NE; e = e + 1) begin
            if (on[e] && rclr[s_port[e]*2 + s_row[e]]) cut_short[e] = 1'b1;
            abort_due[e] = dut.busy_q[e] && rclr[(2*e + dut.sl_q[e])*2 + dut.row_q[e]];
            if (dut.wv_q[e] && !swr_en[2*e + dut.sl_q[e]])
                fail($sformatf("engine %0d holds back its E write (port %0d row %0d, input %0d)", e, 2*e + dut.sl_q[e], dut.wl_q[e], dut.wi_q[e]));
            for (int s2 = 0; s2 < 2; s2 = s2 + 1) begin
                if (2*e + s2 < NP && swr_en[2*e + s2]) begin
                    n_writes = n_writes + 1;
                    if (!on[e]) begin
                        fail($sformatf("port %0d: E write (input %0d) outside a sort", 2*e + s2, swr_i[(2*e + s2)*PW +: PW]));
                    end else begin
                        if (2*e + s2 != s_port[e] || swr_l[(2*e + s2)*LW +: LW] != LW'(s_row[e]))
                            fail($sformatf("engine %0d writes port %0d row %0d, sorting port %0d row %0d", e, 2*e + s2,
                                swr_l[(2*e + s2)*LW +: LW], s_port[e], s_row[e]));
                        if (s_nw[e] < NP) s_got[e][s_nw[e]] = swr_i[(2*e + s2)*PW +: PW];
                        s_nw[e] = s_nw[e] + 1;
                    end
                end
            end
            // a sort closes in the first cycle busy is low (its last write leaves then)
            if (on[e] && was_busy[e] && !dut.busy_q[e]) begin
                on[e] = 1'b0;
                if (!cut_short[e]) begin
                    len = (s_cal[e] == 0) ? NP + 6 :
                          (NP + 6) + (CUT_F + 1) + (CW + 1) / 2 * (NP + 7) + (NP + 6) + (s_need[e] + 2) + (NP + 6);
                    if (s_len[e] != len) fail($sformatf("engine %0d port %0d row %0d (%s): busy %0d cycles, expected %0d", e, s_port[e], s_row[e],
                        s_cal[e] ? "Stop-Calibrate" : "Stop-Max", s_len[e], len));
                    if (s_nw[e] != s_nexp[e]) fail($sformatf("engine %0d port %0d row %0d (%s): %0d E writes, expected %0d", e, s_port[e], s_row[e],
                        s_cal[e] ? "Stop-Calibrate" : "Stop-Max", s_nw[e], s_nexp[e]));
                end else begin
                    n_abort = n_abort + 1;
                    if (s_nw[e] > s_nexp[e]) fail($sformatf("engine %0d port %0d row %0d: %0d E writes after a clear, at most %0d expected", e, s_port[e], s_row[e], s_nw[e], s_nexp[e]));
                end
                for (int k = 0; k < s_nw[e] && k < s_nexp[e]; k = k + 1) begin
                    if (s_got[e][k] != s_exp[e][k]) fail($sformatf("engine %0d port %0d row %0d (%s): E write %0d is input %0d, expected %0d", e, s_port[e], s_row[e],
                        s_cal[e] ? "Stop-Calibrate" : "Stop-Max", k, s_got[e][k], s_exp[e][k]));
                end
            end
            was_busy[e] = dut.busy_q[e];
        end
        // ---- the reference's requests and grants: an idle engine takes the first request at or
        // after rr (wrapping over its four rows), not cleared this cycle; a clear drops one, a
        // request (re)sets one
        for (int e = 0; e < NE; e = e + 1) begin
            for (int j = 0; j < NJ; j = j + 1) begin
                rowclr[j]  = (2*e + j / 2 < NP) ? rclr[(2*e + j / 2)*2 + j % 2] : 1'b0;
                rowtrig[j] = (2*e + j / 2 < NP) ? rtrig[(2*e + j / 2)*2 + j % 2] : 1'b0;
            end
            avail = pend_ref[e] & ~rowclr;
            grant_ref[e] = -1;
            if (!dut.busy_q[e] && avail != 0) begin
                gsel = -1;
                for (int j = 0; j < NJ; j = j + 1) begin
                    if (gsel < 0 && avail[(rr_ref[e] + j) % NJ]) gsel = (rr_ref[e] + j) % NJ;
                end
                grant_ref[e] = gsel;
                rr_ref[e] = (gsel + 1) % NJ;
                avail[gsel] = 1'b0;
            end
            pend_ref[e] = avail | rowtrig;
        end
        // ---- the read port: the word addressed now, in sval three cycles later
        for (int o = 0; o < NP; o = o + 1) begin
            if (sre[o]) sval_next[o*CW +: CW] = CW'(rows[o][srow[o*LW +: LW]][sidx[o*PW +: PW]]);
        end
        @(negedge clk);
    end
    $display("capfc_sort_v3_tb: %0d Stop-Max sorts (%0d of an all-zero row), %0d Stop-Calibrate (%0d with theta 0, %0d leaving inputs equal to theta), %0d cut short by a clear, %0d requests while busy, %0d grants among several rows pending (%0d with both ports'), %0d E writes, %0d clears aimed at a write leaving, %0d cut changes",
        n_max, n_zero, n_cal, n_theta0, n_tiecut, n_abort, n_busyreq, n_both, n_ports, n_writes, n_supp, segment);
    if (n_max == 0 || n_zero == 0 || n_cal == 0 || n_theta0 == 0 || n_tiecut == 0 || n_abort == 0 ||
            n_busyreq == 0 || n_both == 0 || n_ports == 0 || n_supp == 0) begin
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
