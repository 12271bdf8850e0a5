// capfc_egress_v3_tb: the v3 block's egress (rtl/v3/capfc_egress.sv) against a reference written
// from its contract (docs/microarchitecture.md), on random lanes, with Verilator (make v3-spike)
//
// - Reference at the take (a lane valid and ready): per port, the dequeue first, then the
//   enqueue. Dequeue: mid = occ - size; a counted priority's row is cleared when mid <= WARN and
//   its E row when mid <= XON. Enqueue: accepted when occ + size <= MAX; then for a counted
//   priority the counter C[o][l][iport] counts one when the result >= WARN, and with mode != 0 a
//   sort request when the result > XOFF. Dequeues are trusted (never more than a queue holds).
// - Timing of a take in cycle t: enq_accept in t+4, the row clear in E in t+4 and on rclr (to the
//   engines) in t+5, rtrig in t+6; a row clear reaches the sort
//   engines' reads issued from t+5, an increment (written in t+8) reads issued from t+9; E
//   follows the engines' writes (swr_*, driven at random here) one cycle later, unless their row's
//   counters clear in that cycle or the one before (t+4 or t+5: the write is cancelled; required
//   as a corner), and its
//   row clears from t+5; E (the register with the write registered beside it) is checked every
//   cycle, and e_other, which follows E's register a cycle later (a write three cycles after
//   the engine gives it, a clear two), every cycle.
//   A reset in cycle t clears E at the end of t+1 (by the counters' initialisation, t+1 to
//   t+NA, not by the reset), and E takes no engine write in t+1 to t+NA (required as a corner:
//   the engines' writes here are random, a real engine writes none then). sval, for every
//   port: the word read three cycles earlier (sre, at random) when its row was held, and
//   unchanged after a cycle without a read.
// - A second reset halfway, with new thresholds: queues, counters and E start again from 0 while
//   the RAMs hold the first half's words (their tags among them), and the groups' copies of the
//   thresholds must be the new ones when the lanes are ready; no lane is taken in the cycles after a reset
//   until the counter words are initialised (enqueues are offered in the first eight).
// - Churn, two thousand cycles in three: port 0's priority 1 is kept around its WARN, so that
//   its row is cleared more than 2^TW times since a reset (required): its generation comes round
//   while words written generations earlier are stale, which only the scrub keeps from counting
//   (its inputs four at a time, a new four every thousand cycles; port 0's reads at random over
//   all inputs).
// - Sizes and thresholds are multiples of 100, so occupancies land on thresholds.
// - Corners counted and required: results equal to a threshold, refusals, a dequeue and an enqueue of one queue in one take,
//   row clears, E clears, sort requests, increments seen through sval, held lanes, reads that
//   met their counter's write or their row's clear, reads held.
// - +SEED=n (printed) seeds $urandom; $fatal on an error.

`timescale 1ns / 1ps
`default_nettype none

module capfc_egress_v3_tb;
localparam integer NP = `TB_NP;
localparam integer SW = 14;
localparam integer OW = 20;
localparam integer CW = 16;
localparam integer NL = 2;
localparam integer NQ = NP * 8;
localparam integer PW = (NP > 1) ? $clog2(NP) : 1;
localparam integer LW = 1;
localparam integer NR = NP * 2;
localparam integer CYCLES = `TB_CYCLES;
localparam integer H = 16;  // history depth (cycles)
// the counters' generation tags: TW = CAW + 1 bits (CAW = LW + PW), a tag comes round after
// 2^TW clears of its row
localparam integer TW = LW + PW + 1;
// the counter words a port initialises after a reset (the egress's NA): E takes no write then
localparam integer NA = 1 << (LW + PW);
// the cycle after a reset from which the lanes are ready, as the egress's (and e_other is 0 before)
localparam integer RC_RDY = (NA + 1 > 8) ? NA + 1 : 8;

logic clk = 1'b0;
logic rst = 1'b1;
logic [8*OW-1:0]  cfg_max, cfg_xoff, cfg_xon, cfg_warn;
logic [7:0]       cfg_ll;
logic [1:0]       cfg_mode;
logic             enq_valid;
logic [PW-1:0]    enq_oport, enq_iport;
logic [2:0]       enq_prio;
logic [SW-1:0]    enq_size;
logic [NP-1:0]    deq_valid;
logic [NP*3-1:0]  deq_prio;
logic [NP*SW-1:0] deq_size;
logic [NP-1:0]    sre, swr_en;
logic [NP*LW-1:0] srow, swr_l;
logic [NP*PW-1:0] sidx, spidx, swr_i;
wire              enq_accept;
wire  [NP-1:0]    deq_ready;
// the enqueue lane is taken on its output port's slot ready (it has no ready of its own)
wire              enq_ready = (32'(enq_oport) < NP && 32'(enq_iport) < NP) ? deq_ready[enq_oport] : 1'b0;
wire  [NR-1:0]    rclr, rtrig;
wire  [NP*CW-1:0] sval;
wire  [NQ-1:0]    e_other;
// the unit reads the thresholds of one priority a cycle (its refresh, cfg_ra)
wire  [2:0]       cfg_ra;
wire  [OW-1:0]    cfg_max_ra  = cfg_max[cfg_ra*OW +: OW];
wire  [OW-1:0]    cfg_xoff_ra = cfg_xoff[cfg_ra*OW +: OW];
wire  [OW-1:0]    cfg_xon_ra  = cfg_xon[cfg_ra*OW +: OW];
wire  [OW-1:0]    cfg_warn_ra = cfg_warn[cfg_ra*OW +: OW];

capfc_egress #(.NP(NP), .SW(SW), .OW(OW), .CW(CW), .NL(NL)) dut (
    .clk(clk), .rst(rst),
    .cfg_ra(cfg_ra), .cfg_eg_max(cfg_max_ra), .cfg_eg_xoff(cfg_xoff_ra), .cfg_eg_xon(cfg_xon_ra),
    .cfg_eg_warn(cfg_warn_ra),
    .cfg_lossless(cfg_ll), .cfg_mode(cfg_mode),
    .enq_valid(enq_valid), .enq_oport(enq_oport), .enq_prio(enq_prio), .enq_iport(enq_iport),
    .enq_size(enq_size), .enq_accept(enq_accept),
    .deq_valid(deq_valid), .deq_prio(deq_prio), .deq_size(deq_size), .deq_ready(deq_ready),
    .rclr(rclr), .rtrig(rtrig), .sre(sre), .srow(srow), .sidx(sidx), .sval(sval),
    .swr_en(swr_en), .swr_l(swr_l), .swr_i(swr_i), .e_other(e_other)
);

always #5 clk = ~clk;

longint          occ [NQ];
integer          cref [NR][NP];     // counters as the sort engines' reads see them
logic [NP-1:0]   eref [NR];
// E's register (without the write registered beside it) as it will stand next cycle (eq1) and as
// it stands now (eq2): E's partial ORs read the register, and e_other is registered once more, so
// e_other follows E's register a cycle later (a write three cycles after the engine gives it)
logic [NP-1:0]   eq1 [NR], eq2 [NR];
// scheduled by the take of cycle t: index (t + k) % H
logic            acc_due [H];
logic [NR-1:0]   rclr_due [H], rtrig_due [H], eclr_due [H], vclr_due [H];
logic [NR-1:0]   rclo_due [H];   // the rclr output: the clear once more, for the engines
integer          inc_row [H], inc_i [H];
logic [NP*LW-1:0] srow_prev;
logic [NP-1:0]    sre_prev;
logic [NP*CW-1:0] sval_prev;
// sval's checks, due two cycles after the reference gives them (sval is three cycles after its read)
logic [NP-1:0]    chk_hold, chk_val, chk2_hold, chk2_val;
integer           chk_exp [NP], chk2_exp [NP];
integer          seed, seed_rng, cyc, errors, pick, p, o, l, r, q;
string           dump;
integer          n_take, n_acc, n_ref, n_same, n_clr, n_eclr, n_trig, n_inc, n_held, n_sval, n_eq, n_fw, n_rdclr, n_hold, n_wcan;
integer          n_rowclr [NR];   // row clears since the last reset
integer          n_wrap;          // the most clears of one row since a reset
integer          since_rst;       // cycles since the last reset (the reset's cycle 0)
integer          n_winit;         // E writes offered while the counters initialise (dropped)
integer          aim;
logic            churn;
longint          nocc;

function automatic integer lidx(input integer pr);
    integer c;
    c = 0;
    for (int k = 0; k < pr; k = k + 1) begin
        c = c + cfg_ll[k];
    end
    return c;
endfunction

function automatic logic counted(input integer pr);
    return cfg_ll[pr] && lidx(pr) < NL;
endfunction

task automatic fail(input string what);
    errors = errors + 1;
    if (errors <= 10) begin
        $display("capfc_egress_v3_tb: cycle %0d: %s (replay: make v3-spike V3_SEED=%0d)", cyc, what, seed);
    end
endtask

initial begin
    if (!$value$plusargs("SEED=%d", seed)) begin
        seed = 1;
    end
    // (+DUMP=file: the unit's every register and RAM word, for the model's replay, make v3-lockstep)
    if ($value$plusargs("DUMP=%s", dump)) begin
        $dumpfile(dump);
        $dumpvars(0, capfc_egress_v3_tb.dut);
    end
    $display("capfc_egress_v3_tb: NP=%0d seed %0d, %0d cycles", NP, seed, CYCLES);
    seed_rng = seed;
    pick = $urandom(seed_rng);
    for (int k = 0; k < 8; k = k + 1) begin
        // multiples of 100, as every size: occupancies land on the thresholds (the equality cases)
        cfg_max[k*OW +: OW]  = OW'(9000 + 100 * k);
        cfg_xoff[k*OW +: OW] = OW'(6000 + 100 * k);
        cfg_warn[k*OW +: OW] = OW'(4000 + 100 * k);
        cfg_xon[k*OW +: OW]  = OW'(3000 - 100 * k);
    end
    cfg_ll = 8'b0000_1010;  // priorities 1 and 3: counted classes 0 and 1
    cfg_mode = 2'd2;
    for (int k = 0; k < NQ; k = k + 1) occ[k] = 0;
    for (int k = 0; k < NR; k = k + 1) begin
        eref[k] = '0;
        eq1[k] = '0;
        eq2[k] = '0;
        for (int i = 0; i < NP; i = i + 1) cref[k][i] = 0;
    end
    for (int k = 0; k < H; k = k + 1) begin
        acc_due[k] = 1'b0; rclr_due[k] = '0; rtrig_due[k] = '0; eclr_due[k] = '0; vclr_due[k] = '0; rclo_due[k] = '0;
        inc_row[k] = -1; inc_i[k] = 0;
    end
    n_take = 0; n_acc = 0; n_ref = 0; n_same = 0; n_clr = 0; n_eclr = 0; n_trig = 0; n_inc = 0;
    n_held = 0; n_sval = 0; n_eq = 0; n_fw = 0; n_rdclr = 0; n_hold = 0; errors = 0; cyc = 0;
    n_wrap = 0; n_wcan = 0; n_winit = 0;
    since_rst = 1;  // (cycle 0 is the first after the initial reset)
    chk_hold = '0; chk_val = '0; chk2_hold = '0; chk2_val = '0;
    for (int k = 0; k < NR; k = k + 1) n_rowclr[k] = 0;
    enq_valid = 1'b0; enq_oport = '0; enq_iport = '0; enq_prio = '0; enq_size = '0;
    deq_valid = '0; deq_prio = '0; deq_size = '0;
    sre = '0; srow = '0; sidx = '0; spidx = '0; swr_en = '0; swr_l = '0; swr_i = '0;
    srow_prev = '0;
    sre_prev = '0;
    sval_prev = '0;
    repeat (2) @(negedge clk);
    rst = 1'b0;
    for (cyc = 0; cyc < CYCLES; cyc = cyc + 1) begin
        // ---- drive: an enqueue aimed at a port whose slot it is (mostly), dequeues from
        // non-empty queues of ready ports, the engines' reads and E writes at random
        // (always in the eight cycles after a reset, when no lane is ready yet)
        enq_valid = ($urandom % 4) != 0 || cyc < 8 || (cyc > CYCLES / 2 && cyc <= CYCLES / 2 + 8);
        pick = $urandom % NP;
        for (int k = 0; k < NP; k = k + 1) begin
            if (deq_ready[(pick + k) % NP] && ($urandom % 8) != 0) enq_oport = PW'((pick + k) % NP);
        end
        // (three in four aimed at the first twelve ports when one is ready: at every port count
        // some queues fill to MAX)
        if ($urandom % 4 != 0) begin
            for (int k = 0; k < NP && k < 12; k = k + 1) begin
                if (deq_ready[k]) enq_oport = PW'(k);
            end
        end
        enq_prio = 3'((($urandom % 2) == 0) ? (($urandom % 2) ? 1 : 3) : $urandom % 8);
        // churn, two thousand cycles in three: port 0's priority 1 kept around its WARN (4,100;
        // 4,000 after the second reset)
        // by every enqueue of its slot and a dequeue whenever it is above 3,600, so that its row
        // is cleared and written about once a frame: its generation comes round (2^TW clears)
        // while words written generations ago are still stale, which the scrub must rewrite
        churn = ((cyc / 1000) % 3) != 0;
        if (churn && deq_ready[0]) begin
            enq_oport = '0;
            enq_prio  = 3'd1;
        end
        // (inputs 0 to 3 half the time, as the engines' reads below: reads meet writes at 48 ports too)
        enq_iport = PW'(($urandom % 2) ? $urandom % 4 : $urandom % NP);
        // (in churn, port 0's inputs four at a time, a new four each thousand cycles: the words
        // of earlier fours are left stale while the row's generation comes round)
        if (churn && enq_oport == '0) enq_iport = PW'(((cyc / 1000) * 4 + $urandom % 4) % NP);
        enq_size = SW'(100 * (1 + $urandom % 15));
        if (enq_valid && !enq_ready) n_held = n_held + 1;
        for (int i = 0; i < NP; i = i + 1) begin
            p = (($urandom % 2) == 0) ? (($urandom % 2) ? 1 : 3) : $urandom % 8;
            deq_prio[i*3 +: 3] = 3'(p);
            deq_valid[i] = ($urandom % 3) == 0 && occ[i*8 + p] > 0;
            deq_size[i*SW +: SW] = SW'((occ[i*8 + p] < 1500) ? occ[i*8 + p] : 100 * (1 + $urandom % 15));
            if (churn && i == 0) begin
                deq_prio[2:0] = 3'd1;
                deq_valid[0]  = occ[1] > 3600;
                deq_size[SW-1:0] = SW'((occ[1] < 1500) ? occ[1] : 100 * (1 + $urandom % 15));
            end
        end
        srow_prev = srow;
        sre_prev = sre;
        spidx = sidx;
        for (int i = 0; i < NP; i = i + 1) begin
            sre[i] = ($urandom % 8) != 0;
            if ($urandom % 4 == 0) srow[i*LW +: LW] = LW'($urandom % NL);
            sidx[i*PW +: PW] = PW'(($urandom % 2 && !(churn && i == 0)) ? $urandom % 4 : $urandom % NP);
            swr_en[i] = ($urandom % 16) == 0;
            swr_l[i*LW +: LW] = LW'($urandom % NL);
            swr_i[i*PW +: PW] = PW'($urandom % NP);
            // now and then a write aimed at a row whose counters clear now (not its E), at an input
            // whose E bit is 0, so that a write not cancelled shows in e_other
            for (int l2 = 0; l2 < NL; l2 = l2 + 1) begin
                if ((rclr_due[cyc % H][i*2 + l2] || rclo_due[cyc % H][i*2 + l2]) && !eclr_due[cyc % H][i*2 + l2] &&
                        $urandom % 2 == 0) begin
                    aim = $urandom % NP;
                    if (!eref[i*2 + l2][aim]) begin
                        swr_en[i] = 1'b1;
                        swr_l[i*LW +: LW] = LW'(l2);
                        swr_i[i*PW +: PW] = PW'(aim);
                    end
                end
            end
        end
        // a second reset halfway, with every lane idle: queues, counters and E start again from 0
        // (the RAMs still hold the words of the first half)
        rst = cyc == CYCLES / 2;
        if (rst) begin
            enq_valid = 1'b0;
            deq_valid = '0;
            // and new thresholds, which reach the groups' copies before the lanes are ready
            for (int k = 0; k < 8; k = k + 1) begin
                cfg_max[k*OW +: OW]  = OW'(8000 + 100 * k);
                cfg_xoff[k*OW +: OW] = OW'(5500 + 100 * k);
                cfg_warn[k*OW +: OW] = OW'(3900 + 100 * k);
                cfg_xon[k*OW +: OW]  = OW'(2900 - 100 * k);
            end
        end
        #1;
        // ---- the reference's scheduled effects due now
        r = cyc % H;
        // E: this cycle's clears and writes (a clear wins), checked next cycle through e_other
        // counters: clears reach the reads one cycle after rclr, increments when written
        if (inc_row[r] >= 0) begin
            if (cref[inc_row[r]][inc_i[r]] < 65535) cref[inc_row[r]][inc_i[r]] = cref[inc_row[r]][inc_i[r]] + 1;
            n_inc = n_inc + 1;
        end
        for (int k = 0; k < NR; k = k + 1) begin
            if (vclr_due[r][k]) for (int i = 0; i < NP; i = i + 1) cref[k][i] = 0;
        end
        // ---- checks
        if (enq_accept !== acc_due[r]) fail($sformatf("enq_accept = %b, expected %b", enq_accept, acc_due[r]));
        if (rclr !== rclo_due[r]) fail($sformatf("rclr = %h, expected %h", rclr, rclo_due[r]));
        if (rtrig !== rtrig_due[r]) fail($sformatf("rtrig = %h, expected %h", rtrig, rtrig_due[r]));
        for (int i = 0; i < NP; i = i + 1) begin
            for (int pp = 0; pp < 8; pp = pp + 1) begin
                logic want;
                want = 1'b0;
                // (0 until the lanes are ready after a reset: E is not reset, cin clears it)
                if (counted(pp) && since_rst > RC_RDY) begin
                    for (int oo = 0; oo < NP; oo = oo + 1) begin
                        if (oo != i && eq2[oo*2 + lidx(pp)][i]) want = 1'b1;
                    end
                end
                if (e_other[i*8 + pp] !== want) fail($sformatf("e_other[%0d.p%0d] = %b, expected %b", i, pp, e_other[i*8 + pp], want));
            end
        end
        // sval: the word read three cycles before with sre (its row and input as read then), held
        // while sre is low: checked against the reference as it was a cycle after the read;
        // counted: a read that met the counter's write or its row's clear
        for (int i = 0; i < NP; i = i + 1) begin
            if (chk2_hold[i] && sval[i*CW +: CW] !== sval_prev[i*CW +: CW])
                fail($sformatf("sval[%0d] = %0d changed without a read (was %0d)", i, sval[i*CW +: CW], sval_prev[i*CW +: CW]));
            if (chk2_val[i] && sval[i*CW +: CW] !== CW'(chk2_exp[i]))
                fail($sformatf("sval[%0d] = %0d, expected %0d (the read three cycles before)", i, sval[i*CW +: CW], chk2_exp[i]));
        end
        chk2_hold = chk_hold;
        chk2_val = chk_val;
        for (int i = 0; i < NP; i = i + 1) chk2_exp[i] = chk_exp[i];  // (Icarus 11: element by element)
        chk_hold = '0;
        chk_val = '0;
        for (int i = 0; i < NP; i = i + 1) begin
            // (none due after the reset's cycle: the reset empties the read port's registers)
            if (cyc > 0 && !sre_prev[i] && !rst) begin
                n_hold = n_hold + 1;
                chk_hold[i] = 1'b1;
            end else if (cyc > 0 && srow[i*LW +: LW] == srow_prev[i*LW +: LW] && !rst) begin
                n_sval = n_sval + 1;
                if (inc_row[r] == i*2 + srow[i*LW +: LW] && inc_i[r] == spidx[i*PW +: PW]) n_fw = n_fw + 1;
                if (vclr_due[r][i*2 + srow[i*LW +: LW]]) n_rdclr = n_rdclr + 1;
                chk_val[i] = 1'b1;
                chk_exp[i] = cref[i*2 + srow[i*LW +: LW]][spidx[i*PW +: PW]];
            end
        end
        sval_prev = sval;
        // E after this cycle: clears first (a clear wins), then the writes
        // E itself (the egress's register with the write registered beside it, row by row):
        // e_other's OR over the other ports hides a bit that another port's row already has
        for (int k = 0; k < NR; k = k + 1) begin
            if ((dut.e_q[k] | dut.ewb(dut.ew_v_q[k / 2], dut.ew_l_q[k / 2], dut.ew_i_q[k / 2], 1'(k % 2))) !== eref[k])
                fail($sformatf("E row %0d (port %0d class %0d) = %b, expected %b", k, k / 2, k % 2,
                     dut.e_q[k] | dut.ewb(dut.ew_v_q[k / 2], dut.ew_l_q[k / 2], dut.ew_i_q[k / 2], 1'(k % 2)), eref[k]));
        end
        for (int k = 0; k < NR; k = k + 1) eq2[k] = eq1[k];
        for (int k = 0; k < NR; k = k + 1) begin
            if (eclr_due[r][k]) eref[k] = '0;
        end
        // (E's register next cycle: this cycle's clears, not its writes, which it takes a cycle later)
        for (int k = 0; k < NR; k = k + 1) eq1[k] = eref[k];
        for (int i = 0; i < NP; i = i + 1) begin
            // (an engine's write in the cycle its row's counters clear is cancelled)
            if (swr_en[i] && (rclr_due[r][i*2 + swr_l[i*LW +: LW]] || rclo_due[r][i*2 + swr_l[i*LW +: LW]]) &&
                    !eclr_due[r][i*2 + swr_l[i*LW +: LW]] && !eref[i*2 + swr_l[i*LW +: LW]][swr_i[i*PW +: PW]])
                n_wcan = n_wcan + 1;
            if (swr_en[i] && !eclr_due[r][i*2 + swr_l[i*LW +: LW]] && !rclr_due[r][i*2 + swr_l[i*LW +: LW]] &&
                    !rclo_due[r][i*2 + swr_l[i*LW +: LW]])
                eref[i*2 + swr_l[i*LW +: LW]][swr_i[i*PW +: PW]] = 1'b1;
            if (swr_en[i] && since_rst >= 1 && since_rst <= NA) n_winit = n_winit + 1;
        end
        // a reset in cycle t clears E at the end of t+1, not t (E is cleared by the counters'
        // initialisation, cycles t+1 to t+NA, not by the reset), and E takes no write of those
        // cycles: E in t+1 is what t's clears and writes made it, 0 from t+2 to t+NA+1
        if (since_rst >= 1 && since_rst <= NA) begin
            for (int k = 0; k < NR; k = k + 1) eref[k] = '0;
            for (int k = 0; k < NR; k = k + 1) eq1[k] = '0;
        end
        since_rst = since_rst + 1;
        acc_due[r] = 1'b0; rclr_due[r] = '0; rtrig_due[r] = '0; eclr_due[r] = '0; vclr_due[r] = '0; rclo_due[r] = '0;
        inc_row[r] = -1;
        if (rst) begin
            since_rst = 1;
            chk2_hold = '0;
            chk2_val = '0;
            for (int k = 0; k < NQ; k = k + 1) occ[k] = 0;
            for (int k = 0; k < NR; k = k + 1) begin
                n_rowclr[k] = 0;
                for (int i = 0; i < NP; i = i + 1) cref[k][i] = 0;
            end
            for (int k = 0; k < H; k = k + 1) begin
                acc_due[k] = 1'b0; rclr_due[k] = '0; rtrig_due[k] = '0; eclr_due[k] = '0; vclr_due[k] = '0; rclo_due[k] = '0;
                inc_row[k] = -1;
            end
        end
        // ---- takes of this cycle: per port the dequeue, then the enqueue
        for (int i = 0; i < NP; i = i + 1) begin
            if (deq_valid[i] && deq_ready[i]) begin
                p = deq_prio[i*3 +: 3];
                q = i * 8 + p;
                occ[q] = occ[q] - deq_size[i*SW +: SW];
                if (occ[q] == cfg_warn[p*OW +: OW] || occ[q] == cfg_xon[p*OW +: OW]) n_eq = n_eq + 1;
                if (counted(p) && occ[q] <= cfg_warn[p*OW +: OW]) begin
                    rclr_due[(cyc + 4) % H][i*2 + lidx(p)] = 1'b1;
                    rclo_due[(cyc + 5) % H][i*2 + lidx(p)] = 1'b1;
                    vclr_due[(cyc + 5) % H][i*2 + lidx(p)] = 1'b1;
                    n_clr = n_clr + 1;
                    n_rowclr[i*2 + lidx(p)] = n_rowclr[i*2 + lidx(p)] + 1;
                    if (n_rowclr[i*2 + lidx(p)] > n_wrap) n_wrap = n_rowclr[i*2 + lidx(p)];
                end
                if (counted(p) && occ[q] <= cfg_xon[p*OW +: OW]) begin
                    eclr_due[(cyc + 4) % H][i*2 + lidx(p)] = 1'b1;
                    n_eclr = n_eclr + 1;
                end
                if (enq_valid && enq_ready && enq_oport == PW'(i) && enq_prio == 3'(p)) n_same = n_same + 1;
            end
        end
        if (enq_valid && enq_ready) begin
            o = enq_oport;
            p = enq_prio;
            q = o * 8 + p;
            nocc = occ[q] + enq_size;
            n_take = n_take + 1;
            if (nocc == cfg_max[p*OW +: OW] || nocc == cfg_warn[p*OW +: OW] || nocc == cfg_xoff[p*OW +: OW]) n_eq = n_eq + 1;
            if (nocc <= cfg_max[p*OW +: OW]) begin
                n_acc = n_acc + 1;
                occ[q] = nocc;
                acc_due[(cyc + 4) % H] = 1'b1;
                if (counted(p) && nocc >= cfg_warn[p*OW +: OW]) begin
                    inc_row[(cyc + 9) % H] = o * 2 + lidx(p);
                    inc_i[(cyc + 9) % H] = enq_iport;
                end
                if (counted(p) && cfg_mode != 0 && nocc > cfg_xoff[p*OW +: OW]) begin
                    rtrig_due[(cyc + 6) % H][o*2 + lidx(p)] = 1'b1;
                    n_trig = n_trig + 1;
                end
            end else begin
                n_ref = n_ref + 1;
            end
        end
        @(negedge clk);
    end
    $display("capfc_egress_v3_tb: %0d enqueues taken (%0d accepted, %0d refused), %0d with a dequeue of their queue, %0d row clears (at most %0d of one row since a reset, %0d bring a tag round), %0d E clears, %0d sort requests, %0d increments, %0d sval compared (%0d reads met their counter's write, %0d their row's clear, %0d held), %0d lanes held, %0d results equal to a threshold, %0d E writes cancelled by a row clear (their E bit 0), %0d E writes dropped while the counters initialise after a reset",
        n_take, n_acc, n_ref, n_same, n_clr, n_wrap, 1 << TW, n_eclr, n_trig, n_inc, n_sval, n_fw, n_rdclr, n_hold, n_held, n_eq, n_wcan, n_winit);
    if (n_ref == 0 || n_same == 0 || n_clr == 0 || n_eclr == 0 || n_trig == 0 || n_inc == 0 || n_held == 0 || n_eq == 0 ||
            n_fw == 0 || n_rdclr == 0 || n_hold == 0 || n_wcan == 0 || n_winit == 0 || n_wrap < (1 << TW)) begin
        fail("a corner was not reached");
    end
    if (errors != 0) begin
        $fatal(1, "capfc_egress_v3_tb: %0d errors", errors);
    end
    $display("capfc_egress_v3_tb: 1 passed, 0 failed");
    $finish;
end

endmodule

`resetall
