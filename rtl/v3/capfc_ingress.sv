// capfc_ingress (v3, the block's ingress): ingress occupancy and I, with the
// arrival lanes shared in time by groups of eight ports and a five-stage pipeline
//
// Design (docs/microarchitecture.md):
// - Slots: group g (ports g*8 .. g*8+7) has a 3-bit slot counter gs_q[g] that counts 0..7, wraps,
//   and resets to g % 8 (distinct per group, so that no two groups share it and its fan-out stays
//   in a group). Port i = g*8+s is served when gs_q[g] == s: arr_ready[i] = (gs_q[g] == s), low
//   for the first RC_RDY = max(8, 7 + NG) cycles after a reset (below). An arrival lane is taken
//   when valid and ready in the same cycle; the departure lane, shared by the ports, when valid,
//   dep_port < NP and arr_ready[dep_port] (its port's slot: the lane has no ready of its own, so
//   that no output depends on an input); a valid lane that is not taken is held by the
//   environment.
// - Per group, eight LUT RAMs (one per priority, eight words: word s is port g*8+s), one writer
//   each (the group's stage E). After a reset the RAMs are scrubbed: rc_q counts the cycles since
//   (saturating; a counter per group, its enables registered beside it: no net from one register
//   reaches every group); in cycles 4 to 11 each group's stage E writes 0 to its slot's word of every RAM
//   (the slot pipeline runs from the reset on), and the lanes are ready from cycle RC_RDY (rdy_q),
//   whose takes read scrubbed words and write after the scrub, and read thresholds' copies that
//   are complete.
// - Thresholds: each group keeps its own copy in LUT RAM (a word a priority: MAX, XOFF and
//   lossless for the arrival, XON for the departure), read in B by the lanes' priorities. A
//   refresh sends one priority a cycle from the configuration down a chain of registers, a stage
//   per group, each group writing its stage into its copies: a change is in every copy 8 + NG
//   cycles later (after a reset, by cycle 8 + NG, read by the lanes taken from 7 + NG), and no
//   threshold net crosses the block in one cycle.
// - Stages, for a take in cycle t:
//   A (t): the slot's port's lanes muxed in (one-hot AND-OR, no index arithmetic) and registered,
//     sizes in units.
//   B: the port's word of every priority RAM registered as read; the lanes' priorities one-hot;
//     the thresholds of their priorities (the group's copies); k = (same ? du : 0) - au (signed).
//   C: the two occupancies; the thresholds moved by the sizes (one adder each).
//   D: the compares, each an occupancy against a register, and the two results:
//     mid  = occ_d - du                       xon  = occ_d <= XON[dp] + du
//     acc  = occ_a <= MAX[ap] + k             new  = occ_a + au - (same ? du : 0)
//     over = occ_a > XOFF[ap] + k
//   E (t+4): the RAMs written (mid at dp, new at ap when accepted: one write when both name one
//     queue, new includes the departure), I of {i, dp} cleared on xon, I of {i, ap} set when
//     accepted, lossless and over (departure first, then arrival, as v2); arr_accept[i] = acc.
//   Each form equals v2's two-step one whenever a departure removes no more than its queue holds.
// - No forwarding: a port's next take is eight cycles later, after its stage E.
// - Synchronous active-high rst: every register 0, the slot counters to g % 8; the RAM write
//   enables are not gated by rst (off its fan-out: a word written in a reset cycle is scrubbed).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_ingress #(
    parameter NP = 8,
    parameter SW = 14,
    parameter OW = 20,
    parameter CELL_LOG2 = 0,
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    localparam NQ = NP*8
) (
    input  wire             clk,
    input  wire             rst,

    // the thresholds of priority cfg_ra (the configuration's LUT RAMs, read by the refresh)
    output logic [2:0]      cfg_ra,
    input  wire [OW-1:0]    cfg_ing_max,
    input  wire [OW-1:0]    cfg_ing_xoff,
    input  wire [OW-1:0]    cfg_ing_xon,
    input  wire [7:0]       cfg_lossless,

    input  wire [NP-1:0]    arr_valid,
    input  wire [NP*3-1:0]  arr_prio,
    input  wire [NP*SW-1:0] arr_size,
    output logic [NP-1:0]   arr_ready,
    output logic [NP-1:0]   arr_accept,

    input  wire             dep_valid,
    input  wire [PW-1:0]    dep_port,
    input  wire [2:0]       dep_prio,
    input  wire [SW-1:0]    dep_size,

    output wire [NQ-1:0]    i_state
);

localparam integer NPRIO = 8;
// groups of eight ports (the last one partial when NP is not a multiple of 8)
localparam integer NG = (NP + 7) / 8;
localparam integer NPG = NG * 8;
// signed width of a threshold moved by a size difference
localparam integer XW = OW + 2;
// cycles since reset: the scrub in 4..11, the lanes ready from RC_RDY
localparam integer RC_RDY = (7 + NG > 8) ? 7 + NG : 8;
localparam integer RC_SAT = (RC_RDY > 12) ? RC_RDY : 12;
// the thresholds' copies: the arrival's side (MAX, XOFF, lossless), the departure's (XON)
localparam integer TAW = 2*OW + 1;

if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 30 || CELL_LOG2 < 0 || CELL_LOG2 > 12 ||
        CELL_LOG2 >= SW) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_ingress: illegal parameters NP=%0d SW=%0d OW=%0d CELL_LOG2=%0d", NP, SW, OW, CELL_LOG2);
`else
    $error("capfc_ingress: illegal parameters (NP 2..128, SW 1..OW, OW ..30, CELL_LOG2 0..12 and < SW)");
`endif
end

// ---------------------------------------------------------------------------------------------
// state
logic [2:0]        gs_q [NG];
logic [NQ-1:0]     xoff_q;
// per group (a copy each, so that no net from one register reaches every group): the cycles
// since reset, the lanes ready, the scrub's enable
logic [4:0]        rc_q [NG];
logic [NG-1:0]     rdy_q, scr_q;
// stage A -> B, per group
logic [NG-1:0]     av_q, dv_q;
// both lanes taken into the group name one priority (the departure's size counts in the
// arrival's thresholds): compared in A, from the lanes, so that B's subtracts start from a
// register (from ap1_q and dp1_q through the compare it was the critical path at 8 ports on
// grade 8: 7.5 ns in 15 cells)
logic [NG-1:0]     sm1_q;
logic [2:0]        s1_q [NG];
logic [2:0]        ap1_q [NG], dp1_q [NG];
logic [OW-1:0]     au1_q [NG], du1_q [NG];
// stage B -> C
logic [NG-1:0]     av2_q, dv2_q, ll2_q;
logic [2:0]        s2_q [NG];
logic [2:0]        ap2_q [NG], dp2_q [NG];
logic [8*OW-1:0]   row2_q [NG];
logic [7:0]        apv2_q [NG], dpv2_q [NG];
logic [OW-1:0]     du2_q [NG], delta2_q [NG];
logic [XW-1:0]     k2_q [NG];
logic [OW-1:0]     max2_q [NG], xoff2_q [NG], xon2_q [NG];
// stage C -> D
logic [NG-1:0]     av3_q, dv3_q, ll3_q;
logic [2:0]        s3_q [NG];
logic [2:0]        ap3_q [NG], dp3_q [NG];
logic [OW-1:0]     occa3_q [NG], occd3_q [NG], du3_q [NG], delta3_q [NG];
logic [XW-1:0]     racc3_q [NG], rover3_q [NG], rxon3_q [NG];
// stage D -> E
logic [NG-1:0]     acc4_q;
logic [2:0]        s4_q [NG];
logic [7:0]        wa4_q [NG], wd4_q [NG], set4_q [NG], clr4_q [NG], soh4_q [NG];
logic [OW-1:0]     new4_q [NG], mid4_q [NG];

logic [2:0]        gs_d [NG];
logic [NQ-1:0]     xoff_d;
logic [4:0]        rc_d [NG];
logic [NG-1:0]     rdy_d, scr_d;
// the thresholds' copies (capfc_thr_copies): the priority refreshed now, its words, the reads
logic [2:0]        rf;
logic [TAW-1:0]    tha_rec;
logic [OW-1:0]     thd_rec;
logic [NG*3-1:0]   tha_ra, thd_ra;
logic [NG*TAW-1:0] tha_rd;
logic [NG*OW-1:0]  thd_rd;
logic [NG-1:0]     av_d, dv_d, sm1_d;
logic [2:0]        s1_d [NG];
logic [2:0]        ap1_d [NG], dp1_d [NG];
logic [OW-1:0]     au1_d [NG], du1_d [NG];
logic [NG-1:0]     av2_d, dv2_d, ll2_d;
logic [2:0]        s2_d [NG];
logic [2:0]        ap2_d [NG], dp2_d [NG];
logic [8*OW-1:0]   row2_d [NG];
logic [7:0]        apv2_d [NG], dpv2_d [NG];
logic [OW-1:0]     du2_d [NG], delta2_d [NG];
logic [XW-1:0]     k2_d [NG];
logic [OW-1:0]     max2_d [NG], xoff2_d [NG], xon2_d [NG];
logic [NG-1:0]     av3_d, dv3_d, ll3_d;
logic [2:0]        s3_d [NG];
logic [2:0]        ap3_d [NG], dp3_d [NG];
logic [OW-1:0]     occa3_d [NG], occd3_d [NG], du3_d [NG], delta3_d [NG];
logic [XW-1:0]     racc3_d [NG], rover3_d [NG], rxon3_d [NG];
logic [NG-1:0]     acc4_d;
logic [2:0]        s4_d [NG];
logic [7:0]        wa4_d [NG], wd4_d [NG], set4_d [NG], clr4_d [NG], soh4_d [NG];
logic [OW-1:0]     new4_d [NG], mid4_d [NG];

// RAM ports: group g, priority p at [g*8+p]
logic [NG*8-1:0]    occ_we;
logic [NG*8*OW-1:0] occ_wd;
logic [NG*8*OW-1:0] occ_rd;

genvar gg, gp;
for (gg = 0; gg < NG; gg = gg + 1) begin : gen_grp
    for (gp = 0; gp < NPRIO; gp = gp + 1) begin : gen_prio
        capfc_lutram #(
            .AW(3),
            .DW(OW),
            .RP(1)
        ) u_occ (
            .clk(clk),
            .we(occ_we[gg*8+gp]),
            .wa(s4_q[gg]),
            .wd(occ_wd[(gg*8+gp)*OW +: OW]),
            .ra(s1_q[gg]),
            .rd(occ_rd[(gg*8+gp)*OW +: OW])
        );
    end
end

assign i_state = xoff_q;

// inputs padded to whole groups
logic [NPG-1:0]    av_pad;
logic [NPG*3-1:0]  ap_pad;
logic [NPG*SW-1:0] as_pad;
logic [SW-1:0]     a_size;
logic              acc, over, xon;
logic [NP-1:0]     acc_t;
// the departure lane names a port (< NP) of group g in its slot
logic [NG-1:0]     dep_g;
logic [PW+2:0]     dep_pad;

always_comb begin
    av_pad = '0;
    ap_pad = '0;
    as_pad = '0;
    av_pad[NP-1:0]    = arr_valid;
    ap_pad[NP*3-1:0]  = arr_prio;
    as_pad[NP*SW-1:0] = arr_size;
    dep_pad = {3'b0, dep_port};
    for (int g = 0; g < NG; g = g + 1) begin
        dep_g[g] = {1'b0, dep_port} < (PW+1)'($unsigned(NP)) && (dep_pad >> 3) == (PW+3)'($unsigned(g)) &&
                   dep_pad[2:0] == gs_q[g];
    end
    // cycles since reset (saturating), per group: the lanes are ready from RC_RDY (rdy_q), the
    // RAMs are scrubbed (every word of the slot in stage E written 0) in 4 to 11 (scr_q: the
    // enables registered, each computed from rc_q, not from rc_d, so that the reset is the last
    // gate before the register: rc_d = rc_q + 1 unless saturated, and RC_SAT >= max(RC_RDY, 12))
    for (int g = 0; g < NG; g = g + 1) begin
        rc_d[g] = (rc_q[g] == 5'($unsigned(RC_SAT))) ? rc_q[g] : rc_q[g] + 5'd1;
        if (rst) begin
            rc_d[g] = '0;
        end
        rdy_d[g] = !rst && rc_q[g] >= 5'($unsigned(RC_RDY - 1));
        scr_d[g] = !rst && rc_q[g] >= 5'd3 && rc_q[g] < 5'd11;
    end

    xoff_d = xoff_q;
    occ_we = '0;
    occ_wd = '0;
    acc_t  = '0;
    av_d   = '0;
    dv_d   = '0;
    sm1_d  = '0;
    av2_d  = '0;
    dv2_d  = '0;
    ll2_d  = '0;
    av3_d  = '0;
    dv3_d  = '0;
    ll3_d  = '0;
    acc4_d = '0;

    for (int g = 0; g < NG; g = g + 1) begin
        // ---- the group's slot: port g*8+s is served when gs_q[g] == s; groups are offset by
        // their index, so that no two groups share the slot register (its fan-out stays a group's)
        gs_d[g] = gs_q[g] + 3'd1;

        // ---- stage A: the slot's port (one-hot AND-OR muxes with constant part-selects: no
        // index arithmetic, no multiply)
        a_size   = '0;
        ap1_d[g] = '0;
        for (int s = 0; s < 8; s = s + 1) begin
            if (gs_q[g] == 3'($unsigned(s))) begin
                av_d[g]  = av_pad[g*8 + s] && rdy_q[g];
                ap1_d[g] = ap_pad[(g*8 + s)*3 +: 3];
                a_size   = as_pad[(g*8 + s)*SW +: SW];
            end
        end
        au1_d[g] = OW'({capfc_pkg::units(32'(a_size), CELL_LOG2)});
        dv_d[g]  = dep_valid && dep_g[g] && rdy_q[g];
        // (the lane's fields loaded only by the group the lane is taken into: with the same D in
        // every group and no enable, synthesis kept one copy of dp1_q and du1_q for all groups)
        dp1_d[g] = dp1_q[g];
        du1_d[g] = du1_q[g];
        if (dep_valid && dep_g[g] && rdy_q[g]) begin
            dp1_d[g] = dep_prio;
            du1_d[g] = OW'({capfc_pkg::units(32'(dep_size), CELL_LOG2)});
        end
        s1_d[g]  = gs_q[g];
        sm1_d[g] = av_d[g] && dv_d[g] && ap1_d[g] == dep_prio;

        // ---- stage B: the port's word of each priority RAM, registered as read; the thresholds
        // of the lanes' priorities and the size difference
        row2_d[g] = occ_rd[g*8*OW +: 8*OW];
        // the lanes' priorities one-hot (every word was written since reset: the scrub)
        apv2_d[g] = 8'd1 << ap1_q[g];
        dpv2_d[g] = 8'd1 << dp1_q[g];
        {max2_d[g], xoff2_d[g], ll2_d[g]} = tha_rd[g*TAW +: TAW];
        xon2_d[g] = thd_rd[g*OW +: OW];
        delta2_d[g] = au1_q[g] - (sm1_q[g] ? du1_q[g] : '0);
        k2_d[g]     = {2'b0, (sm1_q[g] ? du1_q[g] : '0)} -
                      {2'b0, au1_q[g]};
        av2_d[g]    = av_q[g];
        dv2_d[g]    = dv_q[g];
        s2_d[g]     = s1_q[g];
        ap2_d[g]    = ap1_q[g];
        dp2_d[g]    = dp1_q[g];
        du2_d[g]    = du1_q[g];

        // ---- stage C: the two occupancies (0 until written since reset); the thresholds moved
        // by the sizes
        occa3_d[g] = '0;
        occd3_d[g] = '0;
        for (int p = 0; p < NPRIO; p = p + 1) begin
            occa3_d[g] = occa3_d[g] | ((apv2_q[g][p]) ? row2_q[g][p*OW +: OW] : '0);
            occd3_d[g] = occd3_d[g] | ((dpv2_q[g][p]) ? row2_q[g][p*OW +: OW] : '0);
        end
        racc3_d[g]  = {2'b0, max2_q[g]} + k2_q[g];
        rover3_d[g] = {2'b0, xoff2_q[g]} + k2_q[g];
        rxon3_d[g]  = {2'b0, xon2_q[g]} + {2'b0, du2_q[g]};
        av3_d[g]    = av2_q[g];
        dv3_d[g]    = dv2_q[g];
        ll3_d[g]    = ll2_q[g];
        s3_d[g]     = s2_q[g];
        ap3_d[g]    = ap2_q[g];
        dp3_d[g]    = dp2_q[g];
        du3_d[g]    = du2_q[g];
        delta3_d[g] = delta2_q[g];

        // ---- stage D: the compares and the two results, registered with the queues they
        // name decoded (one-hot), so that stage E's per-queue logic is one LUT from registers
        acc = av3_q[g] && !racc3_q[g][XW-1] && $signed({2'b0, occa3_q[g]}) <= $signed(racc3_q[g]);
        over = rover3_q[g][XW-1] || $signed({2'b0, occa3_q[g]}) > $signed(rover3_q[g]);
        xon = $signed({2'b0, occd3_q[g]}) <= $signed(rxon3_q[g]);
        new4_d[g] = occa3_q[g] + delta3_q[g];
        mid4_d[g] = occd3_q[g] - du3_q[g];
        // (the priorities and the slot one-hot, decoded here from registers, beside the compares)
        wa4_d[g]  = 8'd1 << ap3_q[g];
        wd4_d[g]  = dv3_q[g] ? 8'(1) << dp3_q[g] : 8'd0;
        set4_d[g] = {8{ll3_q[g] && over}};
        clr4_d[g] = {8{xon}};
        soh4_d[g] = 8'd1 << s3_q[g];
        acc4_d[g] = acc;
        s4_d[g]   = s3_q[g];

        // ---- stage E: write back, I, the accept
        // wa4_q: the arrival's priority one-hot (used with acc4_q), wd4_q: the departure's (0 when
        // none), set4_q: every bit = lossless && over, clr4_q: every bit = xon
        for (int p = 0; p < NPRIO; p = p + 1) begin
            // (not gated by rst: a word written in a reset cycle is scrubbed afterwards, and the
            // RAM write enables stay off the reset's fan-out)
            occ_we[g*8 + p] = scr_q[g] || (acc4_q[g] && wa4_q[g][p]) || wd4_q[g][p];
            occ_wd[(g*8 + p)*OW +: OW] = scr_q[g] ? '0 : (acc4_q[g] && wa4_q[g][p]) ? new4_q[g] : mid4_q[g];
        end
        for (int s = 0; s < 8; s = s + 1) begin
            for (int p = 0; p < NPRIO; p = p + 1) begin
                if (g*8 + s < NP && soh4_q[g][s]) begin
                    if (acc4_q[g] && wa4_q[g][p] && set4_q[g][p]) begin
                        xoff_d[(g*8 + s)*8 + p] = 1'b1;
                    end else if (wd4_q[g][p] && clr4_q[g][p]) begin
                        xoff_d[(g*8 + s)*8 + p] = 1'b0;
                    end
                end
            end
            if (g*8 + s < NP && soh4_q[g][s] && acc4_q[g]) begin
                acc_t[g*8 + s] = 1'b1;
            end
        end
        if (rst) begin
            gs_d[g]   = 3'($unsigned(g));
            wa4_d[g]  = '0;
            wd4_d[g]  = '0;
            set4_d[g] = '0;
            clr4_d[g] = '0;
        end
    end

    if (rst) begin
        xoff_d = '0;
        av_d   = '0;
        dv_d   = '0;
        sm1_d  = '0;
        av2_d  = '0;
        dv2_d  = '0;
        av3_d  = '0;
        dv3_d  = '0;
        acc4_d = '0;
    end
end

// the thresholds' copies per group (shared with the egress: rtl/v3/capfc_thr_copies.sv)
capfc_thr_copies #(.NG(NG), .TAW(TAW), .TDW(OW)) u_thr (
    .clk(clk),
    .rst(rst),
    .rf(rf),
    .wa_rec(tha_rec),
    .wd_rec(thd_rec),
    .ra_a(tha_ra),
    .ra_d(thd_ra),
    .rd_a(tha_rd),
    .rd_d(thd_rd)
);

always_comb begin
    for (int i = 0; i < NP; i = i + 1) begin
        arr_ready[i]  = 3'($unsigned(i % 8)) == gs_q[i / 8] && rdy_q[i / 8];
        arr_accept[i] = acc_t[i];
    end
end

// the thresholds' refresh (see the header)
always_comb begin
    cfg_ra  = rf;
    tha_rec = {cfg_ing_max, cfg_ing_xoff, cfg_lossless[rf]};
    thd_rec = cfg_ing_xon;
    for (int g = 0; g < NG; g = g + 1) begin
        tha_ra[g*3 +: 3] = ap1_q[g];
        thd_ra[g*3 +: 3] = dp1_q[g];
    end
end

always_ff @(posedge clk) begin
    xoff_q  <= xoff_d;
    rdy_q   <= rdy_d;
    scr_q   <= scr_d;
    av_q    <= av_d;
    dv_q    <= dv_d;
    sm1_q   <= sm1_d;
    av2_q   <= av2_d;
    dv2_q   <= dv2_d;
    ll2_q   <= ll2_d;
    av3_q   <= av3_d;
    dv3_q   <= dv3_d;
    ll3_q   <= ll3_d;
    acc4_q  <= acc4_d;
    for (int g = 0; g < NG; g = g + 1) begin
        rc_q[g]     <= rc_d[g];
        s1_q[g]     <= s1_d[g];
        ap1_q[g]    <= ap1_d[g];
        dp1_q[g]    <= dp1_d[g];
        au1_q[g]    <= au1_d[g];
        du1_q[g]    <= du1_d[g];
        s2_q[g]     <= s2_d[g];
        ap2_q[g]    <= ap2_d[g];
        dp2_q[g]    <= dp2_d[g];
        gs_q[g]     <= gs_d[g];
        row2_q[g]   <= row2_d[g];
        apv2_q[g]   <= apv2_d[g];
        dpv2_q[g]   <= dpv2_d[g];
        du2_q[g]    <= du2_d[g];
        delta2_q[g] <= delta2_d[g];
        k2_q[g]     <= k2_d[g];
        max2_q[g]   <= max2_d[g];
        xoff2_q[g]  <= xoff2_d[g];
        xon2_q[g]   <= xon2_d[g];
        s3_q[g]     <= s3_d[g];
        ap3_q[g]    <= ap3_d[g];
        dp3_q[g]    <= dp3_d[g];
        occa3_q[g]  <= occa3_d[g];
        occd3_q[g]  <= occd3_d[g];
        du3_q[g]    <= du3_d[g];
        delta3_q[g] <= delta3_d[g];
        racc3_q[g]  <= racc3_d[g];
        rover3_q[g] <= rover3_d[g];
        rxon3_q[g]  <= rxon3_d[g];
        s4_q[g]     <= s4_d[g];
        wa4_q[g]    <= wa4_d[g];
        wd4_q[g]    <= wd4_d[g];
        set4_q[g]   <= set4_d[g];
        clr4_q[g]   <= clr4_d[g];
        soh4_q[g]   <= soh4_d[g];
        new4_q[g]   <= new4_d[g];
        mid4_q[g]   <= mid4_d[g];
    end
end

endmodule

`resetall
