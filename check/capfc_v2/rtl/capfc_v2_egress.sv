// capfc_v2_egress (v2, a test subject of capfc check: check/capfc_v2/README.md): egress occupancy,
// arrival counters C (per-port RAMs), row clears and E.
//
// Contract (docs/microarchitecture-v2.md, "Egress queues, counter table, E"):
// - Occupancy of queue q = {o, p}: two LUT RAMs per output port, gen_port[o].u_deq (written by
//   dequeue lane o) and gen_port[o].u_enq (written by the enqueue lane), 8 words each, so that
//   each has one writer; sel_q[q] set = u_enq was written last, vq_q[q] = written since reset (else
//   the occupancy is 0). occ(q) = vq_q[q] ? (sel_q[q] ? u_enq : u_deq)[p] : 0.
// - enq_accept is combinational: the enqueue lane is valid, its ports are < NP and
//   occ({oport, prio}) + units(size) fits under eg_max[prio] (compared in OW+1 bits).
// - Per queue q = {o, p}, the dequeue of lane o is applied first (mid = occ - units, written to
//   u_deq; clr_c when mid <= WARN, clr_e when mid <= XON_e), then the accepted enqueue (occ_d =
//   mid + units, written to u_enq). For a
//   counted priority p (lossless and lidx(p) < NL) the enqueue increments C[o][lidx(p)][iport] when
//   occ_d >= WARN, and with mode != 0 requests a sort of row {o, lidx(p)} (rtrig) when occ_d > XOFF_e.
//   Row events: rclr (clr_c), eclr (clr_e), rtrig, per row r = {o, l}.
// - Counters: per output port o, RAM gen_port[o].u_cnt (word {l, i}), two synchronous read ports.
//   vld_q[r] (flip-flops) is row r's valid bitmap: a row clear zeroes it (O(1)), the stage-2 write
//   of an increment sets its bit; a clear wins over the stage-2 write of the same cycle. An
//   increment reads port 0 in cycle t (stage 1) and writes the new counter in t+1 (stage 2),
//   forwarding the previous cycle's write (wr_*_q) of the same word.
// - Read port 1 serves sort engine o: address {srow, sidx} when sre; one cycle later sval[o] is the
//   counter of {srow, spidx} (the address the engine registered), forwarded like stage 2 and 0 when
//   its bit of vld_q is 0.
// - E: e_d[r] = eclr[r] ? 0 : e_q[r] | (engine o writes class l ? 1 << swr_i : 0).
// - e_other[{i, p}] = counted(p) && OR over o != i of e_q[{o, lidx(p)}][i] (own port never counts).
// - Synchronous active-high rst: sel_q, vq_q, vld_q, e_q, inc_*, wr_* to 0; RAMs not written.
// - Structure: always_comb "events" computes the combinational outputs (accept, row events, sval,
//   e_other) and the RAM ports from registers, RAM data and inputs; always_comb "next_state"
//   computes every _d; one always_ff copies them. The split keeps the block-level dependency
//   egress -> sort -> egress free of a combinational cycle (sval/rclr do not depend on swr_*).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v2_egress #(
    // number of ports
    parameter NP = 8,
    // packet size width (bytes)
    parameter SW = 14,
    // occupancy and threshold width (units)
    parameter OW = 20,
    // arrival counter width
    parameter CW = 16,
    // a unit is 2^CELL_LOG2 bytes
    parameter CELL_LOG2 = 0,
    // counted (lossless) classes
    parameter NL = 2,
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // class index width
    localparam LW = (NL > 1) ? $clog2(NL) : 1,
    // number of (port, priority) queues
    localparam NQ = NP*8,
    // number of rows {o, l}
    localparam NR = NP << LW
) (
    input  wire              clk,
    input  wire              rst,

    // configuration
    input  wire [8*OW-1:0]   cfg_eg_max,
    input  wire [8*OW-1:0]   cfg_eg_xoff,
    input  wire [8*OW-1:0]   cfg_eg_xon,
    input  wire [8*OW-1:0]   cfg_eg_warn,
    input  wire [7:0]        cfg_lossless,
    input  wire [1:0]        cfg_mode,

    // enqueue lane (end of the pipeline)
    input  wire              enq_valid,
    input  wire [PW-1:0]     enq_oport,
    input  wire [2:0]        enq_prio,
    input  wire [PW-1:0]     enq_iport,
    input  wire [SW-1:0]     enq_size,
    output logic             enq_accept,

    // dequeue lanes, one per output port
    input  wire [NP-1:0]     deq_valid,
    input  wire [NP*3-1:0]   deq_prio,
    input  wire [NP*SW-1:0]  deq_size,

    // row events of this cycle, to the sort engines (row r = {o, l})
    output logic [NR-1:0]    rclr,
    output logic [NR-1:0]    rtrig,

    // read port 1, per engine o: read address (this cycle) and processed address (read last cycle)
    input  wire [NP-1:0]     sre,
    input  wire [NP*LW-1:0]  srow,
    input  wire [NP*PW-1:0]  sidx,
    input  wire [NP*PW-1:0]  spidx,
    output logic [NP*CW-1:0] sval,

    // E writes, per engine o: class swr_l, input swr_i
    input  wire [NP-1:0]     swr_en,
    input  wire [NP*LW-1:0]  swr_l,
    input  wire [NP*PW-1:0]  swr_i,

    // E seen by input port i at priority p from every other output port
    output logic [NQ-1:0]    e_other
);

localparam integer NPRIO = capfc_v2_pkg::NPRIO;
// queue index width
localparam QIW = PW + 3;
// row index width
localparam RIW = PW + LW;
// classes addressable by LW bits (rows with l >= NL exist but are never written)
localparam integer NLP = 1 << LW;
// port-indexed views padded to a power of two, so that a PW-bit index is always in range
localparam integer NPB = 1 << PW;
// counter RAM address width: {l, i}
localparam CAW = LW + PW;
// rows of a padded array indexed by {o, l} with o < 2^PW
localparam integer NRB = NPB << LW;

// parameter check
if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 32 || CW < 1 || CW > 16 ||
        CELL_LOG2 < 0 || CELL_LOG2 > 12 || CELL_LOG2 >= SW || NL < 1 || NL > 8) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v2_egress: illegal parameters NP=%0d SW=%0d OW=%0d CW=%0d CELL_LOG2=%0d NL=%0d",
        NP, SW, OW, CW, CELL_LOG2, NL);
`else
    $error("capfc_v2_egress: illegal parameters (NP 2..128, SW 1..OW, OW ..32, CW 1..16, CELL_LOG2 0..12 and < SW, NL 1..8)");
`endif
end

// ---------------------------------------------------------------------------------------------
// state
logic [NQ-1:0]     sel_q      /*verilator public_flat_rd*/;
logic [NQ-1:0]     vq_q       /*verilator public_flat_rd*/;
logic [NP-1:0]     vld_q [NR] /*verilator public_flat_rd*/;
logic [NP-1:0]     e_q   [NR] /*verilator public_flat_rd*/;
logic              inc_v_q    /*verilator public_flat_rd*/;
logic [PW-1:0]     inc_o_q    /*verilator public_flat_rd*/;
logic [LW-1:0]     inc_l_q    /*verilator public_flat_rd*/;
logic [PW-1:0]     inc_i_q    /*verilator public_flat_rd*/;
logic              wr_v_q     /*verilator public_flat_rd*/;
logic [PW-1:0]     wr_o_q     /*verilator public_flat_rd*/;
logic [LW-1:0]     wr_l_q     /*verilator public_flat_rd*/;
logic [PW-1:0]     wr_i_q     /*verilator public_flat_rd*/;
logic [CW-1:0]     wr_cnt_q   /*verilator public_flat_rd*/;

logic [NQ-1:0]     sel_d;
logic [NQ-1:0]     vq_d;
logic [NP-1:0]     vld_d [NR];
logic [NP-1:0]     e_d   [NR];
logic              inc_v_d;
logic [PW-1:0]     inc_o_d;
logic [LW-1:0]     inc_l_d;
logic [PW-1:0]     inc_i_d;
logic              wr_v_d;
logic [PW-1:0]     wr_o_d;
logic [LW-1:0]     wr_l_d;
logic [PW-1:0]     wr_i_d;
logic [CW-1:0]     wr_cnt_d;

// ---------------------------------------------------------------------------------------------
// RAM ports: port o's read port k at [(2*o+k)*W +: W]; writes broadcast address and data
logic [NP-1:0]     rd0_en;
logic [CAW-1:0]    rd0_cnt_a;
logic [NP-1:0]     ram_we;
logic [CAW-1:0]    cnt_wa;
logic [CW-1:0]     cnt_wd;
wire  [2*NP*CW-1:0] cnt_rd;

// ---------------------------------------------------------------------------------------------
// "events" results used by "next_state"
logic [QIW-1:0]    dqi  [NP];
logic [NR-1:0]     eclr;
logic              enq_acc;
logic [QIW-1:0]    e_qi;
logic [OW-1:0]     e_occ;
logic              e_inc;
logic [LW-1:0]     e_l;
logic [CW-1:0]     new_cnt;

// "events" temporaries
logic [OW-1:0]     thr_max  [NPRIO];
logic [OW-1:0]     thr_xoff [NPRIO];
logic [OW-1:0]     thr_xon  [NPRIO];
logic [OW-1:0]     thr_warn [NPRIO];
logic [NPRIO-1:0]  cnt_p;
logic [2:0]        p_t;
logic [LW-1:0]     lid_p [NPRIO];
logic [2:0]        d_p;
logic [OW-1:0]     d_cur;
logic [OW-1:0]     d_mid;
logic              d_clr_c;
logic              d_clr_e;
logic [NR-1:0]     rclr_t;
logic [NR-1:0]     eclr_t;
logic [NR-1:0]     rtrig_t;
logic              e_ok;
logic [OW-1:0]     e_units;
logic [OW:0]       e_room;
logic [OW-1:0]     e_delta;
logic              e_trig;
logic [CW-1:0]     word0;
// per-port views for the index muxes (a balanced mux tree, not a chain of NP priority muxes)
logic [NPB-1:0]    dhit_b;
logic [OW-1:0]     dunits_b [NPB];
logic [CW-1:0]     word0_b [NPB];
logic [NP-1:0]     vrow_b [NRB];
logic              fw_row;
logic [CW-1:0]     fw_word;
logic [CW-1:0]     cur;
logic [LW-1:0]     a_l;
logic [PW-1:0]     a_i;
logic [NP*CW-1:0]  sval_t;
logic [NP-1:0]     eacc [NLP];
logic [NQ-1:0]     eo_t;
// "next_state" temporaries
logic [QIW-1:0]    q_n;
logic              sel_n;
logic              vq_n;
// occupancy banks: read port 0 for the port's dequeue lane, read port 1 for the enqueue lane
// (port o's data at [o*2*OW +: 2*OW])
wire  [NP*2*OW-1:0] odeq_rd;
wire  [NP*2*OW-1:0] oenq_rd;
logic [NP-1:0]      odeq_we;
logic [NP*OW-1:0]   odeq_wd;
logic [NP-1:0]      oenq_we;
logic [OW-1:0]      ecur_b [NPB];
logic [OW-1:0]      e_cur;
logic [7:0]         v_p;
logic [7:0]         s_p;

// Loop indices are declared in their for statements: slang then unrolls the loops and sees every
// temporary and array element of an always_comb assigned on all paths (no inferred latch).

genvar go;

// ---------------------------------------------------------------------------------------------
// per output port: occupancy banks and counter words
for (go = 0; go < NP; go = go + 1) begin : gen_port
    // occupancies written by dequeue lane go
    capfc_v2_lutram #(
        .AW(3),
        .DW(OW),
        .RP(2)
    ) u_deq (
        .clk(clk),
        .we(odeq_we[go]),
        .wa(deq_prio[go*3 +: 3]),
        .wd(odeq_wd[go*OW +: OW]),
        .ra({enq_prio, deq_prio[go*3 +: 3]}),
        .rd(odeq_rd[go*2*OW +: 2*OW])
    );

    // occupancies written by the enqueue lane when it names port go
    capfc_v2_lutram #(
        .AW(3),
        .DW(OW),
        .RP(2)
    ) u_enq (
        .clk(clk),
        .we(oenq_we[go]),
        .wa(enq_prio),
        .wd(e_occ),
        .ra({enq_prio, deq_prio[go*3 +: 3]}),
        .rd(oenq_rd[go*2*OW +: 2*OW])
    );

    capfc_v2_ram #(
        .AW(CAW),
        .DW(CW),
        .RP(2)
    ) u_cnt (
        .clk(clk),
        .we(ram_we[go]),
        .wa(cnt_wa),
        .wd(cnt_wd),
        .re({sre[go], rd0_en[go]}),
        .ra({srow[go*LW +: LW], sidx[go*PW +: PW], rd0_cnt_a}),
        .rd(cnt_rd[go*2*CW +: 2*CW])
    );
end

// ---------------------------------------------------------------------------------------------
// events: combinational outputs and RAM ports. Every signal leaving this block is written once
// per evaluation (Icarus 11 was seen to loop between always_comb blocks otherwise).
always_comb begin : events
    // per priority: thresholds, counted, class
    for (int k_p = 0; k_p < NPRIO; k_p = k_p + 1) begin
        thr_max[k_p]  = cfg_eg_max[k_p*OW +: OW];
        thr_xoff[k_p] = cfg_eg_xoff[k_p*OW +: OW];
        thr_xon[k_p]  = cfg_eg_xon[k_p*OW +: OW];
        thr_warn[k_p] = cfg_eg_warn[k_p*OW +: OW];
        // (an unsigned variable and cast: Yosys 0.23 passes a signed cast 3'(k_p) on as negative)
        p_t           = 3'($unsigned(k_p));
        cnt_p[k_p]    = capfc_v2_pkg::counted(cfg_lossless, p_t, NL);
        lid_p[k_p]    = LW'({capfc_v2_pkg::lidx(cfg_lossless, p_t)});
    end

    // dequeue lanes first (dunits_b: each lane's units, also the enqueue's forward below)
    for (int k_o = 0; k_o < NPB; k_o = k_o + 1) begin
        dunits_b[k_o] = '0;
    end
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        d_p     = deq_prio[k_o*3 +: 3];
        dqi[k_o] = {PW'(k_o), d_p};
        v_p     = vq_q[k_o*NPRIO +: NPRIO];
        s_p     = sel_q[k_o*NPRIO +: NPRIO];
        d_cur   = '0;
        if (v_p[d_p]) begin
            d_cur = s_p[d_p] ? oenq_rd[k_o*2*OW +: OW] : odeq_rd[k_o*2*OW +: OW];
        end
        dunits_b[k_o] = OW'({capfc_v2_pkg::units(32'(deq_size[k_o*SW +: SW]), CELL_LOG2)});
        d_mid   = d_cur - dunits_b[k_o];
        odeq_we[k_o] = deq_valid[k_o] && !rst;
        odeq_wd[k_o*OW +: OW] = d_mid;
`ifdef CAPFC_V2_BUG_CLEAR_BELOW_WARN
        d_clr_c = deq_valid[k_o] && cnt_p[d_p] && d_mid < thr_warn[d_p];
`else
        d_clr_c = deq_valid[k_o] && cnt_p[d_p] && d_mid <= thr_warn[d_p];
`endif
        d_clr_e = deq_valid[k_o] && cnt_p[d_p] && d_mid <= thr_xon[d_p];
        for (int k_l = 0; k_l < NLP; k_l = k_l + 1) begin
            rclr_t[k_o*NLP + k_l] = d_clr_c && lid_p[d_p] == LW'($unsigned(k_l));
            eclr_t[k_o*NLP + k_l] = d_clr_e && lid_p[d_p] == LW'($unsigned(k_l));
        end
    end

    // then the enqueue: its queue's occupancy after a dequeue of the same queue
    e_ok    = enq_valid && ({1'b0, enq_oport} < (PW+1)'($unsigned(NP))) && ({1'b0, enq_iport} < (PW+1)'($unsigned(NP)));
    e_qi    = {enq_oport, enq_prio};
    e_units = OW'({capfc_v2_pkg::units(32'(enq_size), CELL_LOG2)});
    // the enqueue's occupancy: every port's read port 1 at enq_prio, then an NP-to-1 mux
    for (int k_o = 0; k_o < NPB; k_o = k_o + 1) begin
        ecur_b[k_o] = '0;
    end
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        v_p = vq_q[k_o*NPRIO +: NPRIO];
        s_p = sel_q[k_o*NPRIO +: NPRIO];
        if (v_p[enq_prio]) begin
            ecur_b[k_o] = s_p[enq_prio] ? oenq_rd[(k_o*2+1)*OW +: OW] : odeq_rd[(k_o*2+1)*OW +: OW];
        end
    end
    e_cur   = ecur_b[enq_oport];
    // occ + units <= MAX as occ <= MAX - units, the room computed from the inputs and the
    // configuration beside the occupancy's read (room's top bit: units > MAX, no room)
    e_room  = {1'b0, thr_max[enq_prio]} - {1'b0, e_units};
    enq_acc = e_ok && !e_room[OW] && ({1'b0, e_cur} <= e_room);
    // a dequeue lane only ever hits its own port's queues: the lane of port enq_oport, by index
    for (int k_o = 0; k_o < NPB; k_o = k_o + 1) begin
        dhit_b[k_o] = 1'b0;
    end
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        dhit_b[k_o] = deq_valid[k_o] && deq_prio[k_o*3 +: 3] == enq_prio;
    end
    // A dequeue of the same queue read the same word as e_cur (its read port 0 at deq_prio =
    // enq_prio of port enq_oport): d_mid + units = e_cur + (units - dequeue units), modulo 2^OW as
    // before; the sizes' mux runs beside the occupancy's read instead of after a subtraction
    e_delta = dhit_b[enq_oport] ? e_units - dunits_b[enq_oport] : e_units;
    e_occ   = e_cur + e_delta;
    e_l    = lid_p[enq_prio];
    e_inc  = enq_acc && cnt_p[enq_prio] && e_occ >= thr_warn[enq_prio];
    e_trig = enq_acc && cnt_p[enq_prio] && cfg_mode != 2'd0 && e_occ > thr_xoff[enq_prio];
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        for (int k_l = 0; k_l < NLP; k_l = k_l + 1) begin
            rtrig_t[k_o*NLP + k_l] = e_trig && enq_oport == PW'($unsigned(k_o)) &&
                                     e_l == LW'($unsigned(k_l));
        end
    end

    // increment stage 1: read port 0 of port enq_oport (address broadcast)
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        rd0_en[k_o] = e_inc && enq_oport == PW'($unsigned(k_o));
    end
    rd0_cnt_a = {e_l, enq_iport};

    // increment stage 2: port inc_o_q's read port 0 data, forwarded from the last write of the
    // same word; the word counts only if its bit of the row's bitmap is set
    for (int k_o = 0; k_o < NPB; k_o = k_o + 1) begin
        word0_b[k_o] = '0;
    end
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        word0_b[k_o] = cnt_rd[k_o*2*CW +: CW];
    end
    for (int k_r = 0; k_r < NRB; k_r = k_r + 1) begin
        vrow_b[k_r] = '0;
    end
    for (int k_r = 0; k_r < NR; k_r = k_r + 1) begin
        vrow_b[k_r] = vld_q[k_r];
    end
    word0   = word0_b[inc_o_q];
    fw_row  = wr_v_q && wr_o_q == inc_o_q && wr_l_q == inc_l_q;
    fw_word = (fw_row && wr_i_q == inc_i_q) ? wr_cnt_q : word0;
    cur     = 1'(vrow_b[{inc_o_q, inc_l_q}] >> inc_i_q) ? fw_word : '0;
`ifdef CAPFC_V2_BUG_COUNTER_WRAP
    new_cnt = cur + 1'b1;
`else
    new_cnt = (cur == {CW{1'b1}}) ? cur : cur + 1'b1;
`endif
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        ram_we[k_o] = inc_v_q && !rst && inc_o_q == PW'($unsigned(k_o));
    end
    cnt_wa = {inc_l_q, inc_i_q};
    cnt_wd = new_cnt;

    // read port 1: the value engine o reads, as of this cycle (forwarded like stage 2)
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        a_l     = srow[k_o*LW +: LW];
        a_i     = spidx[k_o*PW +: PW];
        fw_row  = wr_v_q && wr_o_q == PW'($unsigned(k_o)) && wr_l_q == a_l;
        fw_word = (fw_row && wr_i_q == a_i) ? wr_cnt_q : cnt_rd[(k_o*2+1)*CW +: CW];
        sval_t[k_o*CW +: CW] = 1'(vld_q[{PW'(k_o), a_l}] >> a_i) ? fw_word : '0;
    end

    // E of the other output ports, per class (own port masked out)
    for (int k_l = 0; k_l < NLP; k_l = k_l + 1) begin
        eacc[k_l] = '0;
    end
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        for (int k_l = 0; k_l < NLP; k_l = k_l + 1) begin
            eacc[k_l] = eacc[k_l] | (e_q[{PW'(k_o), LW'(k_l)}] & ~(NP'(1'b1) << k_o));
        end
    end
    for (int k_o = 0; k_o < NP; k_o = k_o + 1) begin
        for (int k_p = 0; k_p < NPRIO; k_p = k_p + 1) begin
            eo_t[k_o*NPRIO + k_p] = cnt_p[k_p] && 1'(eacc[lid_p[k_p]] >> k_o);
        end
    end

    // outputs, written once
    enq_accept = enq_acc;
    rclr       = rclr_t;
    eclr       = eclr_t;
    rtrig      = rtrig_t;
    sval       = sval_t;
    e_other    = eo_t;
end

// ---------------------------------------------------------------------------------------------
// next state: every _d of this module
always_comb begin : next_state
    // occupancy banks: a dequeue writes u_deq, then the accepted enqueue writes u_enq (its value
    // already includes a dequeue of the same queue) and wins sel (one next-state mux per queue,
    // every index constant: q = {o, p} hears only lane o and the enqueue lane)
    sel_d = sel_q;
    vq_d  = vq_q;
    oenq_we = '0;
    for (int k_n = 0; k_n < NP; k_n = k_n + 1) begin
        oenq_we[k_n] = enq_acc && !rst && enq_oport == PW'($unsigned(k_n));
        for (int k_m = 0; k_m < NPRIO; k_m = k_m + 1) begin
            q_n   = {PW'($unsigned(k_n)), 3'($unsigned(k_m))};
            sel_n = sel_q[k_n*NPRIO + k_m];
            vq_n  = vq_q[k_n*NPRIO + k_m];
            if (deq_valid[k_n] && dqi[k_n] == q_n) begin
                sel_n = 1'b0;
                vq_n  = 1'b1;
            end
            if (enq_acc && e_qi == q_n) begin
                sel_n = 1'b1;
                vq_n  = 1'b1;
            end
            sel_d[k_n*NPRIO + k_m] = sel_n;
            vq_d[k_n*NPRIO + k_m]  = vq_n;
        end
    end

    // valid bitmaps: a row clear zeroes the row and wins over the stage-2 write of the same row
    // (that write belongs to an enqueue of an earlier cycle), which otherwise sets its bit
    for (int k_n = 0; k_n < NR; k_n = k_n + 1) begin
        vld_d[k_n] = rclr[k_n] ? '0 :
                     vld_q[k_n] | ((inc_v_q && {inc_o_q, inc_l_q} == RIW'($unsigned(k_n))) ?
                                   (NP'(1'b1) << inc_i_q) : '0);
    end

    // E: clear, else OR in the sort engine's write
    for (int k_n = 0; k_n < NP; k_n = k_n + 1) begin
        for (int k_m = 0; k_m < NLP; k_m = k_m + 1) begin
            e_d[k_n*NLP + k_m] = eclr[k_n*NLP + k_m] ? '0 :
                       e_q[k_n*NLP + k_m] | ((swr_en[k_n] && swr_l[k_n*LW +: LW] == LW'($unsigned(k_m))) ?
                                   (NP'(1'b1) << swr_i[k_n*PW +: PW]) : '0);
        end
    end

    // increment pipeline (the fields load every cycle)
    inc_v_d = e_inc;
    inc_o_d = enq_oport;
    inc_l_d = e_l;
    inc_i_d = enq_iport;

    // last write, kept one cycle for forwarding
    wr_v_d   = inc_v_q;
    wr_o_d   = wr_o_q;
    wr_l_d   = wr_l_q;
    wr_i_d   = wr_i_q;
    wr_cnt_d = wr_cnt_q;
    if (inc_v_q) begin
        wr_o_d   = inc_o_q;
        wr_l_d   = inc_l_q;
        wr_i_d   = inc_i_q;
        wr_cnt_d = new_cnt;
    end

    if (rst) begin
        sel_d = '0;
        vq_d  = '0;
        for (int k_n = 0; k_n < NR; k_n = k_n + 1) begin
            vld_d[k_n] = '0;
            e_d[k_n]   = '0;
        end
        inc_v_d  = 1'b0;
        inc_o_d  = '0;
        inc_l_d  = '0;
        inc_i_d  = '0;
        wr_v_d   = 1'b0;
        wr_o_d   = '0;
        wr_l_d   = '0;
        wr_i_d   = '0;
        wr_cnt_d = '0;
    end
end

always_ff @(posedge clk) begin
    sel_q    <= sel_d;
    vq_q     <= vq_d;
    inc_v_q  <= inc_v_d;
    inc_o_q  <= inc_o_d;
    inc_l_q  <= inc_l_d;
    inc_i_q  <= inc_i_d;
    wr_v_q   <= wr_v_d;
    wr_o_q   <= wr_o_d;
    wr_l_q   <= wr_l_d;
    wr_i_q   <= wr_i_d;
    wr_cnt_q <= wr_cnt_d;
`ifdef VERILATOR
    // Under Verilator: version 5.006 cannot schedule a non-blocking array write in a loop it does not unroll (more
    // than 64 iterations: BLKLOOPINIT); Icarus 11 and Yosys 0.23 cannot assign a whole unpacked
    // array. Both forms copy every element.
    vld_q <= vld_d;
    e_q   <= e_d;
`else
    for (int k_f = 0; k_f < NR; k_f = k_f + 1) begin
        vld_q[k_f] <= vld_d[k_f];
        e_q[k_f]   <= e_d[k_f];
    end
`endif
end

endmodule

`resetall
