// capfc_egress (v3, the block's egress): egress occupancy, the counter RAMs,
// row events, E, with the dequeue lanes shared in time by groups of eight ports
//
// Design (docs/microarchitecture.md, "Egress"): the ingress engine's slots and stages A to E,
// with the dequeue lane of the slot's port for the departure and the enqueue lane, taken in its
// output port's slot, for the arrival. Unlike the ingress, stage B muxes the two occupancy words
// out of the RAMs' read and moves every threshold by the sizes (WARN and XOFF too), so that stage
// C compares registers, for the slot's port o and with k = (same ? du : 0) - au:
//   acc  = occ_a <= MAX[ap] + k       trig = occ_a > XOFF[ap] + k   inc = occ_a >= WARN[ap] + k
//   clrc = occ_d <= WARN[dp] + du     clre = occ_d <= XON[dp] + du
// and stage D only registers the results and decodes the row events of port o, each into a
// register per row: rclr (clrc of a counted dp), eclr (clre), rtrig (acc && trig of a counted ap
// with mode != 0); E writes the occupancies and asks for an increment (acc && inc, counted). (A
// compare and the row decode in one stage, whose registers sit by the rows' loads across the die,
// was the critical path of the egress with its engines at 48 ports: 14.7 ns, 10 of it routing.)
// Counters carry generation tags instead of v2's valid bitmaps: a counter word is {tag, count}
// (TW = CAW + 1 bits of tag), each row (port, class) has a generation gen_q, and a word counts
// only if its tag is its row's generation; a row clear advances the generation. In the eight-cycle
// frame of port o's slot (its take in t): the scrub reads word sp_q in t+1, registers it as read
// in t+2, and rewrites it as {generation, 0} in t+4 if its tag is stale (every word visited every
// 2^CAW frames, before a tag can come round); F reads the increment's word in t+5, G registers it
// in t+6, H in t+7 takes its count if the tag is the generation (after this take's clear, E in
// t+4) and 0 otherwise and adds one (saturating), and the write, with the generation, is made in
// t+8 (t+0 of the next frame). Every RAM output goes straight into a register and every RAM
// input comes straight from one. The port's next take is 8 cycles later and its rows' clears
// come from its own slot, so nothing needs forwarding. The sort request (rtrig) leaves in t+6,
// so that an engine's first read (two cycles after it) sees the take's increment. The sort
// engines' read port is a synchronous read: at the read (sre) the port registers the generation
// the word's row has after this cycle and whether H's write is made now (its value forwarded); a
// cycle later the word leaves the RAM into registers as it is, and a cycle after that its count
// if its tag is that generation and it was not forwarded (else 0), ORed with the forwarded value,
// is registered: sval, three cycles after the read, from a register (the port's registers sit
// by the counter RAM, the engine may be far: with the compare's result driving the engine's
// compares directly, that net was the assembled block's critical path at 86.1 MHz); it holds
// while sre is low.
// E: as v2, its update in a process of its own; an engine's write is cancelled in the cycle its
// row clears and in the next (the selection came from counters that are now 0): the engines get
// the clear (rclr) a cycle after E, from a register of its own (rclr5_q) that the placer can put
// near them, so a write found before they see it leaves in either cycle. The write is registered
// beside E (ew_*_q, the cancel applied on the way in) and made in E a cycle later. e_other: from
// per-group partial ORs of E's register, registered: a clear two cycles after E's clear event, an
// engine's write three cycles after the engine gives it.
// After a reset (synchronous, active high): rc_q counts the cycles since (a counter per group,
// its enables registered beside it: no net from one register reaches every group); each group writes 0 to
// its slot's occupancy words in cycles 4 to 11, every counter word is written {0, 0} in cycles
// 1 to NA (NA = 2^CAW words a port), the lanes are ready from cycle max(8, NA + 1) (rdy_q), and
// a sort read issued before then reads 0.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_egress #(
    parameter NP = 8,
    parameter SW = 14,
    parameter OW = 20,
    parameter CW = 16,
    parameter CELL_LOG2 = 0,
    parameter NL = 2,
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    localparam LW = (NL > 1) ? $clog2(NL) : 1,
    localparam NQ = NP*8,
    localparam NR = NP << LW
) (
    input  wire              clk,
    input  wire              rst,

    // the thresholds of priority cfg_ra (the configuration's LUT RAMs, read by the refresh)
    output logic [2:0]       cfg_ra,
    input  wire [OW-1:0]     cfg_eg_max,
    input  wire [OW-1:0]     cfg_eg_xoff,
    input  wire [OW-1:0]     cfg_eg_xon,
    input  wire [OW-1:0]     cfg_eg_warn,
    input  wire [7:0]        cfg_lossless,
    input  wire [1:0]        cfg_mode,

    input  wire              enq_valid,
    input  wire [PW-1:0]     enq_oport,
    input  wire [2:0]        enq_prio,
    input  wire [PW-1:0]     enq_iport,
    input  wire [SW-1:0]     enq_size,
    output logic             enq_accept,

    input  wire [NP-1:0]     deq_valid,
    input  wire [NP*3-1:0]   deq_prio,
    input  wire [NP*SW-1:0]  deq_size,
    output logic [NP-1:0]    deq_ready,

    output logic [NR-1:0]    rclr,
    output logic [NR-1:0]    rtrig,

    input  wire [NP-1:0]     sre,
    input  wire [NP*LW-1:0]  srow,
    input  wire [NP*PW-1:0]  sidx,
    output logic [NP*CW-1:0] sval,

    input  wire [NP-1:0]     swr_en,
    input  wire [NP*LW-1:0]  swr_l,
    input  wire [NP*PW-1:0]  swr_i,

    output logic [NQ-1:0]    e_other
);

localparam integer NPRIO = 8;
localparam integer NG = (NP + 7) / 8;
localparam integer NPG = NG * 8;
localparam integer XW = OW + 2;
localparam integer NLP = 1 << LW;
localparam integer CAW = LW + PW;
// counters with generation tags: a word is {tag, count}, valid when its tag is its row's
// generation; TW = CAW + 1 keeps a word that the scrub visits every 2^CAW frames from wrapping
localparam integer NA = 1 << CAW;
localparam integer TW = CAW + 1;
localparam integer DW = CW + TW;
// cycles since reset: the occupancy scrub in 4..11, the counter words initialised in 0..NA-1,
// the lanes ready from RC_RDY
localparam integer RCW = CAW + 2;
// (the thresholds' copies are complete at 8 + NG, read by lanes taken from 7 + NG: NA >= 2 NP
// covers that above 8 ports, 8 up to 8)
// (the last initialisation write, registered, is made in cycle NA: ready from NA + 1)
localparam integer RC_RDY = (NA + 1 > 8) ? NA + 1 : 8;
localparam integer RC_SAT = (RC_RDY > 12) ? RC_RDY : 12;
// the thresholds' copies per group (LUT RAM, a word a priority): the arrival's side (MAX, XOFF,
// WARN, class, counted with mode != 0, counted) and the departure's (WARN, XON, class, counted)
localparam integer TAW = 3*OW + LW + 2;
localparam integer TDW = 2*OW + LW + 1;

if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 30 || CW < 1 || CW > 16 ||
        CELL_LOG2 < 0 || CELL_LOG2 > 12 || CELL_LOG2 >= SW || NL < 1 || NL > 8) begin : gen_param_check
`ifdef __ICARUS__
    initial $fatal(1, "capfc_egress: illegal parameters");
`else
    $error("capfc_egress: illegal parameters");
`endif
end

// a + b - c in XW bits: one carry-save layer (a LUT a bit) and one adder, the subtraction's +1 in
// the carry vector's free bit 0
function automatic logic [XW-1:0] add3m(input logic [XW-1:0] a, input logic [XW-1:0] b,
                                        input logic [XW-1:0] c);
    logic [XW-1:0] nc, sm, cy;
    nc = ~c;
    sm = a ^ b ^ nc;
    cy = {((a[XW-2:0] & b[XW-2:0]) | (a[XW-2:0] & nc[XW-2:0]) | (b[XW-2:0] & nc[XW-2:0])), 1'b1};
    add3m = sm + cy;
endfunction

// a registered E write's bit in row (its port, class l) of E: 0 if none or for another class
function automatic logic [NP-1:0] ewb(input logic v, input logic [LW-1:0] wl, input logic [PW-1:0] wi,
                                      input logic [LW-1:0] l);
    ewb = (v && wl == l) ? NP'(1'b1) << wi : '0;
endfunction

// ---------------------------------------------------------------------------------------------
// state
logic [2:0]        gs_q [NG];
// per group (a copy each, so that no net from one register reaches every group): the cycles
// since reset, the lanes ready, the occupancy scrub's and the counter initialisation's enables
logic [RCW-1:0]    rc_q [NG];
logic [NG-1:0]     rdy_q, scr_q, cin_q;
logic [TW-1:0]     gen_q [NR];
// the classes (counted, class index), registered for e_other
logic [7:0]        cntr_q;
logic [LW-1:0]     lidr_q [NPRIO];
logic [NP-1:0]     e_q   [NR];
logic [NP-1:0]     epart_q [NG*NLP];
// the engines' E writes, registered beside E as they arrive (already cancelled by the row's
// clears of their cycle), made in E a cycle later: E as v2 has it is e_q with
// the registered write's bit (ewb)
logic [NP-1:0]     ew_v_q;
logic [LW-1:0]     ew_l_q [NP];
logic [PW-1:0]     ew_i_q [NP];
// A -> B
logic [NG-1:0]     av1_q, dv1_q;
// both lanes taken into the group name one priority (the departure's size counts in the
// arrival's thresholds): compared in A, from the lanes, so that B's threshold adders start
// from a register (from ap1_q and dp1_q through the compare it was 18 cells, the critical path
// at 32 ports: 10.9 ns)
logic [NG-1:0]     sm1_q;
logic [2:0]        s1_q [NG], ap1_q [NG], dp1_q [NG];
// the priorities one-hot for B's occupancy muxes, a register of their own: with ap1_q's decode
// shared by the mux and aoh2_d, that decode sat by aoh2_q, 40 rows from the mux by the occupancy
// RAMs (ap1_q -> occa2_q, 11.1 ns, 9.8 of it routing: the critical path at 48 ports on grade 8)
logic [7:0]        aoh1_q [NG], doh1_q [NG];
logic [PW-1:0]     ai1_q [NG];
logic [OW-1:0]     au1_q [NG], du1_q [NG];
// B -> C
logic [NG-1:0]     av2_q, dv2_q, ca2_q, cd2_q, cc2_q;
logic [2:0]        s2_q [NG];
logic [LW-1:0]     la2_q [NG], ld2_q [NG];
logic [PW-1:0]     ai2_q [NG];
logic [7:0]        aoh2_q [NG], doh2_q [NG];
logic [OW-1:0]     occa2_q [NG], occd2_q [NG], du2_q [NG], delta2_q [NG];
logic [XW-1:0]     racc2_q [NG], rtrig2_q [NG], rinc2_q [NG], rclrc2_q [NG], rclre2_q [NG];
// C -> D
logic [NG-1:0]     dv3_q;
logic [2:0]        s3_q [NG];
logic [LW-1:0]     la3_q [NG];
logic [PW-1:0]     ai3_q [NG];
logic [7:0]        aoh3_q [NG], doh3_q [NG];
logic [NG-1:0]     acc3_q, trig3_q, inc3_q, clrc3_q, clre3_q;
logic [OW-1:0]     new3_q [NG], mid3_q [NG];
logic [8*NLP-1:0]  rohd3_q [NG], roha3_q [NG];
logic [TW-1:0]     gn3_q [NG];
// D -> E
logic [NG-1:0]     acc4_q, inc4_q, dv4_q;
logic [2:0]        s4_q [NG];
logic [7:0]        aoh4_q [NG], doh4_q [NG];
logic [LW-1:0]     la4_q [NG];
logic [PW-1:0]     ai4_q [NG];
logic [OW-1:0]     new4_q [NG], mid4_q [NG];
logic [TW-1:0]     gn4_q [NG];
logic [NR-1:0]     rclr4_q, eclr4_q, rtrig4_q;
// the row clears once more, for the sort engines (placed near their loads, the engines' pending
// requests and aborts): the engines see a clear a cycle after E
logic [NR-1:0]     rclr5_q;
// the sort requests two cycles later (t+6), so that the engine's first read (two cycles after
// the request) comes no earlier than the take's increment's write (t+8, forwarded to a read in
// its cycle): a sort sees the increment of the take that asked for it, as the contract's order
// (count, then select) requires
logic [NR-1:0]     rtrig5_q, rtrig6_q;
// E -> F (the group's increment request), then per port: F -> G (word read), G -> H (its count,
// 0 when its tag is stale); the sort engines' read port: the expected generation and the
// forward, registered at the issue
// (F's valid per port, fv_q, decoded from E's slot; the scrub's read per port, sn_q, decoded a
// cycle ahead: the counter RAM's read enable and address select are then a register each. With
// the group's F valid and slot, and its slot counter, decoded per port into them, gs_q through
// three LUTs into a counter RAM's read register was the critical path at 8 ports on grade 6,
// 111.6 MHz, 7.7 ns of it routing)
logic [NP-1:0]     fv_q, sn_q;
logic [LW-1:0]     f_l_q [NG], g_l_q [NG], h_l_q [NG];
logic [PW-1:0]     f_i_q [NG], g_i_q [NG], h_i_q [NG];
logic [NP-1:0]     g_v_q, h_v_q;
// the scrub, per port: its word (sp), its read's data due (sc_v), its write's cycle (sc_w); the
// word read on the RAM's port 0 (the scrub's or F's), registered straight from the RAM, every
// cycle (a block RAM's output costs most of a cycle: no logic between it and a register)
logic [CAW-1:0]    sp_q [NP];
logic [NP-1:0]     sc_v_q, sc_w_q;
logic [DW-1:0]     w0_q [NP];
// the counter RAM's write port, registered (no logic between these and the RAM): the write
// computed in t+3 (the scrub's) or t+7 (H's) is made in t+4 or t+8; wh: it is H's
logic [NP-1:0]     ww_q, wh_q;
logic [CAW-1:0]    wa_q [NP];
logic [DW-1:0]     wd_q [NP];
logic [NP-1:0]     sv_ok_q, sv_fw_q;
logic [TW-1:0]     sv_exp_q [NP];
logic [CW-1:0]     sv_fwv_q [NP];
// and a cycle later: the word's count and tag registered straight from the RAM (no logic between
// them), the generation expected, ok (the words were initialised at the read and the value is not
// forwarded), the forwarded value (0 when not forwarded); sv_rd: a read was issued
logic [NP-1:0]     sv_rd_q, sv_ok2_q;
logic [CW-1:0]     sv_cnt_q [NP], sv_fwv2_q [NP];
logic [TW-1:0]     sv_tag_q [NP], sv_exp2_q [NP];

logic [2:0]        gs_d [NG];
logic [7:0]        cntr_d;
logic [LW-1:0]     lidr_d [NPRIO];
logic [RCW-1:0]    rc_d [NG];
logic [NG-1:0]     rdy_d, scr_d, cin_d;
logic [TW-1:0]     gen_d [NR];
logic [NP-1:0]     e_d   [NR];
logic [NP-1:0]     epart_d [NG*NLP];
// (an E partial OR and a write's class as they are computed: no process reads an unpacked
// array it writes, which Icarus 11, sensitive to the whole array, would re-run without end)
logic [NP-1:0]     epart_t;
logic [LW-1:0]     ew_l_t;
logic [NP-1:0]     ew_v_d;
logic [LW-1:0]     ew_l_d [NP];
logic [PW-1:0]     ew_i_d [NP];
logic [NG-1:0]     av1_d, dv1_d, sm1_d;
logic [2:0]        s1_d [NG], ap1_d [NG], dp1_d [NG];
logic [7:0]        aoh1_d [NG], doh1_d [NG];
logic [PW-1:0]     ai1_d [NG];
logic [OW-1:0]     au1_d [NG], du1_d [NG];
logic [NG-1:0]     av2_d, dv2_d, ca2_d, cd2_d, cc2_d;
logic [2:0]        s2_d [NG];
logic [LW-1:0]     la2_d [NG], ld2_d [NG];
logic [PW-1:0]     ai2_d [NG];
logic [7:0]        aoh2_d [NG], doh2_d [NG];
logic [OW-1:0]     occa2_d [NG], occd2_d [NG], du2_d [NG], delta2_d [NG];
logic [XW-1:0]     racc2_d [NG], rtrig2_d [NG], rinc2_d [NG], rclrc2_d [NG], rclre2_d [NG];
logic [NG-1:0]     dv3_d;
logic [2:0]        s3_d [NG];
logic [LW-1:0]     la3_d [NG];
logic [PW-1:0]     ai3_d [NG];
logic [7:0]        aoh3_d [NG], doh3_d [NG];
logic [NG-1:0]     acc3_d, trig3_d, inc3_d, clrc3_d, clre3_d;
logic [OW-1:0]     new3_d [NG], mid3_d [NG];
logic [8*NLP-1:0]  rohd3_d [NG], roha3_d [NG];
logic [TW-1:0]     gn3_d [NG];
logic [NG-1:0]     acc4_d, inc4_d, dv4_d;
logic [2:0]        s4_d [NG];
logic [7:0]        aoh4_d [NG], doh4_d [NG];
logic [LW-1:0]     la4_d [NG];
logic [PW-1:0]     ai4_d [NG];
logic [OW-1:0]     new4_d [NG], mid4_d [NG];
logic [TW-1:0]     gn4_d [NG];
logic [NR-1:0]     rclr4_d, eclr4_d, rtrig4_d, rtrig5_d, rtrig6_d, rclr5_d;
logic [NP-1:0]     fv_d, sn_d;
logic [LW-1:0]     f_l_d [NG], g_l_d [NG], h_l_d [NG];
logic [PW-1:0]     f_i_d [NG], g_i_d [NG], h_i_d [NG];
logic [NP-1:0]     g_v_d, h_v_d;
logic [CAW-1:0]    sp_d [NP];
logic [NP-1:0]     sc_v_d, sc_w_d;
logic [DW-1:0]     w0_d [NP];
logic [NP-1:0]     ww_d, wh_d;
logic [CAW-1:0]    wa_d [NP];
logic [DW-1:0]     wd_d [NP];
logic [NP-1:0]     sv_ok_d, sv_fw_d;
logic [TW-1:0]     sv_exp_d [NP];
logic [CW-1:0]     sv_fwv_d [NP];
logic [NP-1:0]     sv_rd_d, sv_ok2_d;
logic [CW-1:0]     sv_cnt_d [NP], sv_fwv2_d [NP];
logic [TW-1:0]     sv_tag_d [NP], sv_exp2_d [NP];

// RAMs
logic [NG*8-1:0]    occ_we;
logic [NG*8*OW-1:0] occ_wd;
logic [NG*8*OW-1:0] occ_rd;
logic [NP-1:0]      cnt_we;
logic [NP-1:0]      cnt_re0;
logic [CAW-1:0]     cnt_ra0 [NP];
logic [CAW-1:0]     cnt_wa [NP];
logic [DW-1:0]      cnt_wd [NP];
wire  [2*NP*DW-1:0] cnt_rd;
// the thresholds' copies (capfc_thr_copies): the priority refreshed now, its words, the reads
logic [2:0]         rf;
logic [TAW-1:0]     tha_rec;
logic [TDW-1:0]     thd_rec;
logic [NG*3-1:0]    tha_ra, thd_ra;
logic [NG*TAW-1:0]  tha_rd;
logic [NG*TDW-1:0]  thd_rd;

genvar gg, gp, go;
for (gg = 0; gg < NG; gg = gg + 1) begin : gen_grp
    for (gp = 0; gp < NPRIO; gp = gp + 1) begin : gen_prio
        capfc_lutram #(.AW(3), .DW(OW), .RP(1)) u_occ (
            .clk(clk),
            .we(occ_we[gg*8+gp]),
            .wa(s4_q[gg]),
            .wd(occ_wd[(gg*8+gp)*OW +: OW]),
            .ra(s1_q[gg]),
            .rd(occ_rd[(gg*8+gp)*OW +: OW])
        );
    end
end
for (go = 0; go < NP; go = go + 1) begin : gen_port
    capfc_ram #(.AW(CAW), .DW(DW), .RP(2)) u_cnt (
        .clk(clk),
        .we(cnt_we[go]),
        .wa(cnt_wa[go]),
        .wd(cnt_wd[go]),
        .re({sre[go], cnt_re0[go]}),
        .ra({srow[go*LW +: LW], sidx[go*PW +: PW], cnt_ra0[go]}),
        .rd(cnt_rd[go*2*DW +: 2*DW])
    );
end

// the thresholds' copies per group (shared with the ingress: rtl/v3/capfc_thr_copies.sv)
capfc_thr_copies #(.NG(NG), .TAW(TAW), .TDW(TDW)) u_thr (
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

// temporaries
logic [NPG-1:0]    dv_pad;
logic [NPG*3-1:0]  dp_pad;
logic [NPG*SW-1:0] ds_pad;
logic [SW-1:0]     d_size;
logic [7:0]        cnt_p;
logic [NPRIO-1:0][LW-1:0] lid_p;
logic [3:0]        lid_t;
logic              du_same;
logic [OW-1:0]     max_b, xoff_b, warna_b, warnd_b, xon_b;
logic [XW-1:0]     dsame_b, nau_b;
logic [NR-1:0]     rclr_t, eclr_t, rtrig_t;
logic              acc_t;
logic [CW-1:0]     new_cnt;
logic [NLP-1:0][NP-1:0] eacc;
logic [NQ-1:0]     eo_t;
logic [NP*CW-1:0]  sval_d;
// sval from a register: the read port's registers sit by the counter RAM, its engine may be far
logic [NP*CW-1:0]  sval_q;
logic [DW-1:0]     sval_rd;
logic [LW-1:0]     a_l;
logic [PW-1:0]     a_i;
logic              a_set;
logic [TW-1:0]     w_gen;
logic              tag_ok;
logic [CW-1:0]     w_cnt;
logic [DW-1:0]     rd0;
logic [TW-1:0]     gsel;
// the enqueue lane names ports (< NP) with its output port in group g's slot
logic [NG-1:0]     enq_g;
logic [PW+2:0]     enq_pad;

always_comb begin
    dv_pad = '0;
    dp_pad = '0;
    ds_pad = '0;
    dv_pad[NP-1:0]    = deq_valid;
    dp_pad[NP*3-1:0]  = deq_prio;
    ds_pad[NP*SW-1:0] = deq_size;
    enq_pad = {3'b0, enq_oport};
    for (int g = 0; g < NG; g = g + 1) begin
        enq_g[g] = {1'b0, enq_oport} < (PW+1)'($unsigned(NP)) && {1'b0, enq_iport} < (PW+1)'($unsigned(NP)) &&
                   (enq_pad >> 3) == (PW+3)'($unsigned(g)) && enq_pad[2:0] == gs_q[g];
    end
    // cycles since reset (saturating): the occupancy RAMs are scrubbed (every word of the slot
    // in stage E written 0) in 4 to 11, every counter word initialised to {0, 0} in 0 to NA-1,
    // the lanes ready from RC_RDY (rdy_q)
    // (the enables registered: scr_q is rc_q in 4..11, cin_q is rc_q < NA; each computed from
    // rc_q, not from rc_d, so that the reset is the last gate before the register and not the
    // first of the compare: rc_d = rc_q + 1 unless saturated, and RC_SAT >= max(RC_RDY, 12, NA))
    for (int g = 0; g < NG; g = g + 1) begin
        rc_d[g]  = (rc_q[g] == RCW'($unsigned(RC_SAT))) ? rc_q[g] : rc_q[g] + 1'b1;
        if (rst) begin
            rc_d[g] = '0;
        end
        rdy_d[g] = !rst && rc_q[g] >= RCW'($unsigned(RC_RDY - 1));
        scr_d[g] = !rst && rc_q[g] >= RCW'(3'd3) && rc_q[g] < RCW'(4'd11);
        cin_d[g] = rst || rc_q[g] < RCW'($unsigned(NA - 1));
    end

    // defaults for the registers written per port or per row below (Verilator 5.006 does not
    // unroll those loops at 48 ports and more, and would report latches without them; Icarus 11
    // cannot assign a whole unpacked array: element by element there)
`ifdef VERILATOR
    gen_d   = gen_q;
    sp_d    = sp_q;
    epart_d = epart_q;
    sv_exp_d = sv_exp_q;
    sv_cnt_d = sv_cnt_q;
    sv_fwv2_d = sv_fwv2_q;
    sv_tag_d = sv_tag_q;
    sv_exp2_d = sv_exp2_q;
`else
    for (int r = 0; r < NR; r = r + 1) begin
        gen_d[r] = gen_q[r];
    end
    for (int k = 0; k < NG*NLP; k = k + 1) begin
        epart_d[k] = epart_q[k];
    end
    for (int o = 0; o < NP; o = o + 1) begin
        sp_d[o]      = sp_q[o];
        sv_exp_d[o]  = sv_exp_q[o];
        sv_cnt_d[o]  = sv_cnt_q[o];
        sv_fwv2_d[o] = sv_fwv2_q[o];
        sv_tag_d[o]  = sv_tag_q[o];
        sv_exp2_d[o] = sv_exp2_q[o];
    end
`endif
    sc_v_d  = '0;
    sc_w_d  = '0;
    g_v_d   = '0;
    h_v_d   = '0;
    ww_d    = '0;
    wh_d    = '0;
    sv_ok_d = sv_ok_q;
    sv_fw_d = sv_fw_q;
    sv_rd_d  = sre;
    sv_ok2_d = sv_ok2_q;
    occ_we  = '0;
    occ_wd  = '0;
    cnt_we  = '0;
    cnt_re0 = '0;
    rclr_t  = rclr4_q;
    rclr5_d = rclr4_q;
    eclr_t  = eclr4_q;
    rtrig_t = rtrig6_q;
    rtrig5_d = rtrig4_q;
    rtrig6_d = rtrig5_q;
    acc_t   = 1'b0;
    rclr4_d = '0;
    eclr4_d = '0;
    rtrig4_d = '0;
    av1_d = '0; dv1_d = '0; sm1_d = '0; av2_d = '0; dv2_d = '0; ca2_d = '0; cd2_d = '0; cc2_d = '0;
    dv3_d = '0;
    acc3_d = '0; trig3_d = '0; inc3_d = '0; clrc3_d = '0; clre3_d = '0;
    acc4_d = '0; inc4_d = '0; dv4_d = '0;
    fv_d = '0; sn_d = '0;

    for (int g = 0; g < NG; g = g + 1) begin
        gs_d[g] = gs_q[g] + 3'd1;

        // ---- A: the slot's dequeue lane; the enqueue lane when its output port has the slot
        d_size   = '0;
        dp1_d[g] = '0;
        for (int s = 0; s < 8; s = s + 1) begin
            if (gs_q[g] == 3'($unsigned(s))) begin
                dv1_d[g] = dv_pad[g*8 + s] && rdy_q[g];
                dp1_d[g] = dp_pad[(g*8 + s)*3 +: 3];
                d_size   = ds_pad[(g*8 + s)*SW +: SW];
            end
        end
        du1_d[g] = OW'({capfc_pkg::units(32'(d_size), CELL_LOG2)});
        av1_d[g] = enq_valid && enq_g[g] && rdy_q[g];
        // (the lane's fields loaded only by the group the lane is taken into: with the same D in
        // every group and no enable, synthesis kept one copy of ap1_q, ai1_q and au1_q for all
        // the groups, and its nets across the die were the critical path, 15.7 ns at 48 ports)
        ap1_d[g] = ap1_q[g];
        ai1_d[g] = ai1_q[g];
        au1_d[g] = au1_q[g];
        if (enq_valid && enq_g[g] && rdy_q[g]) begin
            ap1_d[g] = enq_prio;
            ai1_d[g] = enq_iport;
            au1_d[g] = OW'({capfc_pkg::units(32'(enq_size), CELL_LOG2)});
        end
        s1_d[g]  = gs_q[g];
        sm1_d[g] = av1_d[g] && dv1_d[g] && enq_prio == dp1_d[g];
        aoh1_d[g] = 8'd1 << ap1_d[g];
        doh1_d[g] = 8'd1 << dp1_d[g];

        // ---- B: the port's word of each priority RAM; thresholds, classes, size difference
        // the arrival's and the departure's occupancy words, muxed from the RAMs' read (every
        // word written since reset: the scrub)
        occa2_d[g] = '0;
        occd2_d[g] = '0;
        for (int p = 0; p < NPRIO; p = p + 1) begin
            occa2_d[g] = occa2_d[g] | (occ_rd[(g*8 + p)*OW +: OW] & {OW{aoh1_q[g][p]}});
            occd2_d[g] = occd2_d[g] | (occ_rd[(g*8 + p)*OW +: OW] & {OW{doh1_q[g][p]}});
        end
        aoh2_d[g] = aoh1_q[g];
        doh2_d[g] = doh1_q[g];
        // (from the group's copies, read by the priorities: no threshold crosses the block here)
        {max_b, xoff_b, warna_b, la2_d[g], ca2_d[g], cc2_d[g]} = tha_rd[g*TAW +: TAW];
        {warnd_b, xon_b, ld2_d[g], cd2_d[g]} = thd_rd[g*TDW +: TDW];
        du_same     = sm1_q[g];
        delta2_d[g] = au1_q[g] - (du_same ? du1_q[g] : '0);
        // the thresholds moved by the sizes, here so that C compares two registers: the
        // arrival's by k = (same ? du : 0) - au, each one carry-save layer and one adder
        // (add3m: a + b - c), the departure's by du
        dsame_b = {2'b0, (du_same ? du1_q[g] : '0)};
        nau_b   = {2'b0, au1_q[g]};
        racc2_d[g]  = add3m({2'b0, max_b}, dsame_b, nau_b);
        rtrig2_d[g] = add3m({2'b0, xoff_b}, dsame_b, nau_b);
        rinc2_d[g]  = add3m({2'b0, warna_b}, dsame_b, nau_b);
        rclrc2_d[g] = {2'b0, warnd_b} + {2'b0, du1_q[g]};
        rclre2_d[g] = {2'b0, xon_b} + {2'b0, du1_q[g]};
        av2_d[g] = av1_q[g]; dv2_d[g] = dv1_q[g]; s2_d[g] = s1_q[g];
        ai2_d[g] = ai1_q[g]; du2_d[g] = du1_q[g];

        // ---- C: the compares, each an occupancy against a register; the results
        acc3_d[g]  = av2_q[g] && !racc2_q[g][XW-1] && $signed({2'b0, occa2_q[g]}) <= $signed(racc2_q[g]);
        trig3_d[g] = ca2_q[g] && (rtrig2_q[g][XW-1] || $signed({2'b0, occa2_q[g]}) > $signed(rtrig2_q[g]));
        inc3_d[g]  = cc2_q[g] && (rinc2_q[g][XW-1] || $signed({2'b0, occa2_q[g]}) >= $signed(rinc2_q[g]));
        clrc3_d[g] = dv2_q[g] && cd2_q[g] && $signed({2'b0, occd2_q[g]}) <= $signed(rclrc2_q[g]);
        clre3_d[g] = dv2_q[g] && cd2_q[g] && $signed({2'b0, occd2_q[g]}) <= $signed(rclre2_q[g]);
        new3_d[g]  = occa2_q[g] + delta2_q[g];
        mid3_d[g]  = occd2_q[g] - du2_q[g];
        aoh3_d[g] = aoh2_q[g];
        // the rows of the slot's port that this take's row events name, one-hot (the dequeue's
        // class, the arrival's), so that D registers each row's events by itself
        rohd3_d[g] = (8*NLP)'(1'b1) << {s2_q[g], ld2_q[g]};
        // the dequeue row's generation (its next one is made in D, one incrementer a group):
        // the row's generation changes only by this port's own clears, eight cycles apart, so it
        // stands until E. An AND-OR over the group's rows with their one-hot (an if-chain over
        // the slot and the class was a 16-deep mux chain into the incrementer: 12.4 ns at 48
        // ports, the assembled block's critical path with nextpnr's static placer)
        gsel = '0;
        for (int s = 0; s < 8; s = s + 1) begin
            for (int l = 0; l < NLP; l = l + 1) begin
                if (g*8 + s < NP) begin
                    gsel = gsel | (rohd3_d[g][s*NLP + l] ? gen_q[(g*8 + s)*NLP + l] : '0);
                end
            end
        end
        gn3_d[g] = gsel;
        roha3_d[g] = (8*NLP)'(1'b1) << {s2_q[g], la2_q[g]};
        doh3_d[g] = dv2_q[g] ? doh2_q[g] : 8'd0;
        dv3_d[g] = dv2_q[g];
        s3_d[g] = s2_q[g]; la3_d[g] = la2_q[g]; ai3_d[g] = ai2_q[g];

        // ---- D: the results registered; the row events decoded, a register per row
        acc4_d[g]   = acc3_q[g];
        inc4_d[g]   = inc3_q[g];
        dv4_d[g]    = dv3_q[g];
        new4_d[g]   = new3_q[g];
        gn4_d[g]    = gn3_q[g] + 1'b1;
        mid4_d[g]   = mid3_q[g];
        aoh4_d[g]   = aoh3_q[g];
        doh4_d[g]   = doh3_q[g];
        s4_d[g] = s3_q[g]; la4_d[g] = la3_q[g]; ai4_d[g] = ai3_q[g];
        // the row events, a register per row: their loads (the port's sort engine, its E rows
        // and generations) sit wherever the port's logic is placed, and a group's E registers
        // decoded there crossed the die (measured, 17.2 ns of routing at 48 ports)
        for (int s = 0; s < 8; s = s + 1) begin
            if (g*8 + s < NP) begin
                for (int l = 0; l < NLP; l = l + 1) begin
                    rclr4_d[(g*8 + s)*NLP + l]  = clrc3_q[g] && rohd3_q[g][s*NLP + l];
                    eclr4_d[(g*8 + s)*NLP + l]  = clre3_q[g] && rohd3_q[g][s*NLP + l];
                    rtrig4_d[(g*8 + s)*NLP + l] = acc3_q[g] && trig3_q[g] && roha3_q[g][s*NLP + l];
                end
            end
        end

        // ---- E: write back; the row events of the slot's port; the increment request
        for (int p = 0; p < NPRIO; p = p + 1) begin
            occ_we[g*8 + p] = scr_q[g] || (acc4_q[g] && aoh4_q[g][p]) || (dv4_q[g] && doh4_q[g][p]);
            occ_wd[(g*8 + p)*OW +: OW] = scr_q[g] ? '0 : (acc4_q[g] && aoh4_q[g][p]) ? new4_q[g] : mid4_q[g];
        end
        acc_t = acc_t | acc4_q[g];
        f_l_d[g] = la4_q[g]; f_i_d[g] = ai4_q[g];

        // ---- F, G, H: the request handed to its port (per port below)
        g_l_d[g] = f_l_q[g]; g_i_d[g] = f_i_q[g];
        h_l_d[g] = g_l_q[g]; h_i_d[g] = g_i_q[g];

        if (rst) begin
            gs_d[g] = 3'($unsigned(g));
        end
    end

    // generations: a row clear (stage E) advances its row's (loaded from its group's
    // incrementer), so that every word of the row reads as 0 until written again
    for (int r = 0; r < NR; r = r + 1) begin
        gen_d[r] = rclr_t[r] ? gn4_q[r / NLP / 8] : gen_q[r];
    end

    // per port o, in the eight-cycle frame of its slot (the take in t): the scrub reads word sp
    // in t+1 and, if its tag is not its row's generation, writes {generation, 0} in t+4; the
    // increment's F reads in t+5 (after the take's clear in E, t+4), G registers the word, H
    // keeps the count if the tag is the row's generation (else 0) and adds one (saturating),
    // written with the generation in t+8. No two of these meet, and every word is visited every 2^CAW frames,
    // fewer than the 2^TW clears a tag needs to come round. The sort engine's read issue: the
    // generation the word must carry after this cycle (a clear now counts) and the forward of
    // H's write of this cycle, registered beside the RAM's read
    for (int o = 0; o < NP; o = o + 1) begin
        rd0 = cnt_rd[o*2*DW +: DW];
        fv_d[o]    = acc4_q[o / 8] && inc4_q[o / 8] && s4_q[o / 8] == 3'($unsigned(o % 8));
        sn_d[o]    = rdy_d[o / 8] && gs_d[o / 8] == 3'($unsigned(o % 8 + 1));
        g_v_d[o]   = fv_q[o];
        sc_v_d[o]  = sn_q[o];
        cnt_re0[o] = g_v_d[o] || sc_v_d[o];
        cnt_ra0[o] = g_v_d[o] ? {f_l_q[o / 8], f_i_q[o / 8]} : sp_q[o];
        // the word read in the cycle before (the scrub's in t+2, F's in t+6), registered as read
        w0_d[o]    = rd0;
        h_v_d[o]   = g_v_q[o];
        sc_w_d[o]  = sc_v_q[o];
        sp_d[o]    = (sc_w_q[o] || cin_q[o / 8]) ? sp_q[o] + 1'b1 : sp_q[o];
        // in t+3 (the scrub's write) or t+7 (H's): the word's tag against its row's generation
        // (no clear comes between the read and this cycle: the port's clears are in t+4)
        w_gen  = gen_q[{PW'(o), h_v_q[o] ? h_l_q[o / 8] : sp_q[o][CAW-1 -: LW]}];  // H's row, or the scrub's
        tag_ok = w0_q[o][CW +: TW] == w_gen;
        w_cnt  = w0_q[o][CW-1:0];
        // H: the count plus one (saturating), or 1 when the word's tag is stale (its count is 0)
        new_cnt    = !tag_ok ? CW'(1) : (w_cnt == {CW{1'b1}}) ? w_cnt : w_cnt + 1'b1;
        ww_d[o]    = cin_q[o / 8] || h_v_q[o] || (sc_w_q[o] && !tag_ok);
        wh_d[o]    = h_v_q[o];
        // (the initialisation is the scrub's write, every cycle, while the generations are 0)
        wa_d[o]    = h_v_q[o] ? {h_l_q[o / 8], h_i_q[o / 8]} : sp_q[o];
        wd_d[o]    = {w_gen, h_v_q[o] ? new_cnt : CW'(0)};
        cnt_we[o]  = ww_q[o];
        cnt_wa[o]  = wa_q[o];
        cnt_wd[o]  = wd_q[o];
        a_l   = srow[o*LW +: LW];
        a_i   = sidx[o*PW +: PW];
        a_set = wh_q[o] && wa_q[o] == {a_l, a_i};
        sv_ok_d[o]  = sre[o] ? rdy_q[o / 8] : sv_ok_q[o];
        sv_exp_d[o] = !sre[o] ? sv_exp_q[o] : rclr_t[{PW'($unsigned(o)), a_l}] ? gn4_q[o / 8] : gen_q[{PW'($unsigned(o)), a_l}];
        // (the forward needs no clear: H's write is made in t+8 of its frame, t+0 of the next,
        // and a row clears only in t+4)
        sv_fw_d[o]  = sre[o] ? a_set : sv_fw_q[o];
        sv_fwv_d[o] = sre[o] ? wd_q[o][CW-1:0] : sv_fwv_q[o];
        // a cycle after the read: the word as read (a forward's value with the expected tag)
        sval_rd = cnt_rd[(o*2+1)*DW +: DW];
        if (sv_rd_q[o]) begin
            sv_cnt_d[o]  = sval_rd[CW-1:0];
            sv_tag_d[o]  = sval_rd[CW +: TW];
            sv_exp2_d[o] = sv_exp_q[o];
            sv_ok2_d[o]  = sv_ok_q[o] && !sv_fw_q[o];
            sv_fwv2_d[o] = sv_fw_q[o] ? sv_fwv_q[o] : '0;
        end
    end

    // per group and class, the OR of its ports' E rows, each without its own port's bit: the
    // NP x NP transpose of E is wired within a group, and only NG partial ORs cross the block.
    // From E's register alone: an engine's registered write (ew_*_q) reaches the partial ORs
    // through E, a cycle after E takes it (its index decoded into the partial ORs of every
    // input port's column, across the die, was the critical path at 48 ports: 14.8 ns)
    for (int g = 0; g < NG; g = g + 1) begin
        for (int l = 0; l < NLP; l = l + 1) begin
            epart_t = '0;
            for (int s = 0; s < 8; s = s + 1) begin
                if (g*8 + s < NP) begin
                    epart_t = epart_t | (e_q[(g*8 + s)*NLP + l] & ~(NP'(1'b1) << (g*8 + s)));
                end
            end
            epart_d[g*NLP + l] = epart_t;
        end
    end

    if (rst) begin
        for (int r = 0; r < NR; r = r + 1) begin
            gen_d[r] = '0;
        end
        for (int o = 0; o < NP; o = o + 1) begin
            sp_d[o]      = '0;
            sv_fwv2_d[o] = '0;
        end
        sc_v_d = '0; sc_w_d = '0;
        av1_d = '0; dv1_d = '0; sm1_d = '0; av2_d = '0; dv2_d = '0; dv3_d = '0;
        acc3_d = '0; clrc3_d = '0; clre3_d = '0;
        acc4_d = '0; dv4_d = '0; fv_d = '0; g_v_d = '0; h_v_d = '0;
        rclr4_d = '0; eclr4_d = '0; rtrig4_d = '0; rtrig5_d = '0; rtrig6_d = '0; rclr5_d = '0;
        sv_ok_d = '0; sv_fw_d = '0; sv_rd_d = '0; sv_ok2_d = '0;
    end
end

// the thresholds' refresh (capfc_thr_copies): the words of priority rf for the copies' chain; a
// change of the configuration is in every group's copies 8 + NG cycles later (and after a reset
// before the lanes are ready), and no threshold net crosses the block in one cycle
always_comb begin
    for (int p = 0; p < NPRIO; p = p + 1) begin
        lid_t    = capfc_pkg::lidx(cfg_lossless, 3'($unsigned(p)));
        lid_p[p] = LW'(lid_t);
        cnt_p[p] = cfg_lossless[p] && {1'b0, lid_t} < 5'($unsigned(NL));
        lidr_d[p] = lid_p[p];
    end
    cntr_d = cnt_p;
    cfg_ra  = rf;
    tha_rec = {cfg_eg_max, cfg_eg_xoff, cfg_eg_warn, lid_p[rf], cnt_p[rf] && cfg_mode != 2'd0, cnt_p[rf]};
    thd_rec = {cfg_eg_warn, cfg_eg_xon, lid_p[rf], cnt_p[rf]};
    for (int g = 0; g < NG; g = g + 1) begin
        tha_ra[g*3 +: 3] = ap1_q[g];
        thd_ra[g*3 +: 3] = dp1_q[g];
    end
end

// E: an engine's write is registered beside E as it arrives (the engines sit by their counter
// RAMs, across the die: the write's net into E's decode was the critical path at 96.7 MHz), unless
// its row clears now (the cancel is here, beside E, not in the engine: a row clear's register
// reached E through the engine in 12.0 ns at 48 ports); E takes it a cycle later, and a clear of
// that cycle wins. E's partial ORs read E's register only, so a write reaches e_other a cycle
// after E takes it (three after the engine gives it). A process of its own: the engines' writes depend on the row clears this unit's
// main process gives them, so one process would make a false combinational loop through the sort engines
always_comb begin
`ifdef VERILATOR
    e_d = e_q;  // (a default for Verilator 5.006, which does not unroll the loops below at 48 ports)
`endif
    for (int r = 0; r < NR; r = r + 1) begin
        e_d[r] = eclr_t[r] ? '0 : e_q[r] | ewb(ew_v_q[r / NLP], ew_l_q[r / NLP], ew_i_q[r / NLP], LW'($unsigned(r % NLP)));
    end
    for (int o = 0; o < NP; o = o + 1) begin
        ew_l_t    = swr_l[o*LW +: LW];
        ew_l_d[o] = ew_l_t;
        ew_i_d[o] = swr_i[o*PW +: PW];
        ew_v_d[o] = swr_en[o] && !eclr_t[{PW'($unsigned(o)), ew_l_t}] &&
                    !rclr_t[{PW'($unsigned(o)), ew_l_t}] && !rclr5_q[{PW'($unsigned(o)), ew_l_t}];
    end
    // E and its registered writes are cleared while the row's group initialises its counters
    // (cin_q: from the cycle after a reset, NA cycles), not by the reset itself: no net from the
    // reset to E's NR x NP flip-flops, which would cross the die and limit the clock
    for (int r = 0; r < NR; r = r + 1) begin
        if (cin_q[r / NLP / 8]) begin
            e_d[r] = '0;
        end
    end
    for (int o = 0; o < NP; o = o + 1) begin
        if (cin_q[o / 8]) begin
            ew_v_d[o] = 1'b0;
        end
    end
end

// outputs and the sort engines' read port
always_comb begin
    for (int o = 0; o < NP; o = o + 1) begin
        deq_ready[o] = 3'($unsigned(o % 8)) == gs_q[o / 8] && rdy_q[o / 8];
    end
    enq_accept = acc_t;
    rclr  = rclr5_q;
    rtrig = rtrig_t;
    for (int o = 0; o < NP; o = o + 1) begin
        // (the word read two cycles before, or H's write forwarded, if its tag is the generation
        // its row had after the read's cycle and the words were initialised then; from
        // registers, and registered: sval three cycles after the read)
        sval_d[o*CW +: CW] = ((sv_ok2_q[o] && sv_tag_q[o] == sv_exp2_q[o]) ? sv_cnt_q[o] : '0) | sv_fwv2_q[o];
    end
    sval = sval_q;
    // E of the other ports: the groups' registered partial ORs (epart_q), ORed over the groups,
    // and 0 until the lanes are ready after a reset (rdy_q of the input port's group): E and its
    // partial ORs are not reset, and hold the power-up or pre-reset state until cin_q has
    // cleared them, which D must not see (a PFC frame of stale classes after a reset)
    for (int l = 0; l < NLP; l = l + 1) begin
        eacc[l] = '0;
        for (int g = 0; g < NG; g = g + 1) begin
            eacc[l] = eacc[l] | epart_q[g*NLP + l];
        end
    end
    for (int i = 0; i < NP; i = i + 1) begin
        for (int p = 0; p < NPRIO; p = p + 1) begin
            eo_t[i*8 + p] = rdy_q[i / 8] && cntr_q[p] && 1'(eacc[lidr_q[p]] >> i);
        end
    end
    e_other = eo_t;
end

always_ff @(posedge clk) begin
    rdy_q <= rdy_d; scr_q <= scr_d; cin_q <= cin_d;
    cntr_q <= cntr_d;
    for (int p = 0; p < NPRIO; p = p + 1) begin
        lidr_q[p] <= lidr_d[p];
    end
    av1_q <= av1_d; dv1_q <= dv1_d; sm1_q <= sm1_d; av2_q <= av2_d; dv2_q <= dv2_d; ca2_q <= ca2_d; cd2_q <= cd2_d; cc2_q <= cc2_d;
    dv3_q <= dv3_d;
    acc3_q <= acc3_d; trig3_q <= trig3_d; inc3_q <= inc3_d; clrc3_q <= clrc3_d; clre3_q <= clre3_d;
    acc4_q <= acc4_d; inc4_q <= inc4_d;
    sc_v_q <= sc_v_d; sc_w_q <= sc_w_d; ww_q <= ww_d; wh_q <= wh_d;
    sval_q  <= sval_d;
    rclr4_q <= rclr4_d; rclr5_q <= rclr5_d; eclr4_q <= eclr4_d; rtrig4_q <= rtrig4_d; rtrig5_q <= rtrig5_d; rtrig6_q <= rtrig6_d;
    dv4_q <= dv4_d; fv_q <= fv_d; sn_q <= sn_d; g_v_q <= g_v_d; h_v_q <= h_v_d;
    sv_ok_q <= sv_ok_d; sv_fw_q <= sv_fw_d; sv_rd_q <= sv_rd_d; sv_ok2_q <= sv_ok2_d;
    for (int g = 0; g < NG; g = g + 1) begin
        gs_q[g] <= gs_d[g];
        rc_q[g] <= rc_d[g];
        s1_q[g] <= s1_d[g]; ap1_q[g] <= ap1_d[g]; dp1_q[g] <= dp1_d[g]; ai1_q[g] <= ai1_d[g];
        aoh1_q[g] <= aoh1_d[g]; doh1_q[g] <= doh1_d[g];
        au1_q[g] <= au1_d[g]; du1_q[g] <= du1_d[g];
        s2_q[g] <= s2_d[g]; la2_q[g] <= la2_d[g]; ld2_q[g] <= ld2_d[g]; ai2_q[g] <= ai2_d[g];
        aoh2_q[g] <= aoh2_d[g]; doh2_q[g] <= doh2_d[g];
        occa2_q[g] <= occa2_d[g]; occd2_q[g] <= occd2_d[g]; du2_q[g] <= du2_d[g]; delta2_q[g] <= delta2_d[g];
        racc2_q[g] <= racc2_d[g]; rtrig2_q[g] <= rtrig2_d[g]; rinc2_q[g] <= rinc2_d[g];
        rclrc2_q[g] <= rclrc2_d[g]; rclre2_q[g] <= rclre2_d[g];
        s3_q[g] <= s3_d[g]; la3_q[g] <= la3_d[g]; ai3_q[g] <= ai3_d[g];
        aoh3_q[g] <= aoh3_d[g]; doh3_q[g] <= doh3_d[g];
        new3_q[g] <= new3_d[g]; mid3_q[g] <= mid3_d[g];
        s4_q[g] <= s4_d[g]; aoh4_q[g] <= aoh4_d[g]; doh4_q[g] <= doh4_d[g];
        la4_q[g] <= la4_d[g]; ai4_q[g] <= ai4_d[g];
        rohd3_q[g] <= rohd3_d[g]; roha3_q[g] <= roha3_d[g];
        gn3_q[g] <= gn3_d[g]; gn4_q[g] <= gn4_d[g];
        new4_q[g] <= new4_d[g]; mid4_q[g] <= mid4_d[g];
        f_l_q[g] <= f_l_d[g]; f_i_q[g] <= f_i_d[g];
        g_l_q[g] <= g_l_d[g]; g_i_q[g] <= g_i_d[g];
        h_l_q[g] <= h_l_d[g]; h_i_q[g] <= h_i_d[g];
    end
    for (int k = 0; k < NG*NLP; k = k + 1) begin
        epart_q[k] <= epart_d[k];
    end
    ew_v_q <= ew_v_d;
    // (whole arrays for Verilator, which does not unroll a loop of more than 64 here)
`ifdef VERILATOR
    gen_q    <= gen_d;
    sp_q     <= sp_d;
    sv_exp_q <= sv_exp_d;
    e_q      <= e_d;
    ew_l_q   <= ew_l_d;
    ew_i_q   <= ew_i_d;
    w0_q     <= w0_d;
    wa_q     <= wa_d;
    wd_q     <= wd_d;
    sv_fwv2_q <= sv_fwv2_d;
    sv_fwv_q <= sv_fwv_d;
    sv_cnt_q <= sv_cnt_d;
    sv_tag_q <= sv_tag_d;
    sv_exp2_q <= sv_exp2_d;
`else
    for (int r = 0; r < NR; r = r + 1) begin
        gen_q[r] <= gen_d[r];
        e_q[r]   <= e_d[r];
    end
    for (int o = 0; o < NP; o = o + 1) begin
        ew_l_q[o]   <= ew_l_d[o];
        ew_i_q[o]   <= ew_i_d[o];
        w0_q[o]     <= w0_d[o];
        wa_q[o]     <= wa_d[o];
        wd_q[o]     <= wd_d[o];
        sv_fwv2_q[o] <= sv_fwv2_d[o];
        sv_fwv_q[o] <= sv_fwv_d[o];
        sp_q[o]     <= sp_d[o];
        sv_exp_q[o] <= sv_exp_d[o];
        sv_cnt_q[o] <= sv_cnt_d[o];
        sv_tag_q[o] <= sv_tag_d[o];
        sv_exp2_q[o] <= sv_exp2_d[o];
    end
`endif
end

endmodule

`resetall
