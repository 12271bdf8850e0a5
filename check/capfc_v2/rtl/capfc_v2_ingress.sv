// capfc_v2_ingress (v2, a test subject of capfc check: check/capfc_v2/README.md): ingress occupancy
// per (input port, priority) and the ingress congestion state I.
//
// Contract (docs/microarchitecture-v2.md, "Ingress"):
// - Occupancy of queue q = {i, p}: two LUT RAMs per input port, gen_port[i].u_arr (written by
//   arrival lane i) and gen_port[i].u_dep (written by the departure lane), 8 words each, so that
//   each has one writer; sel_q[q] names the bank written last, vq_q[q] says the queue was written
//   since reset (else its occupancy is 0). occ(q) = vq_q[q] ? (sel_q[q] ? u_dep : u_arr)[p] : 0.
// - arr_accept[i] is combinational: arrival lane i is valid and occ({i, prio}) + units(size) fits
//   under ing_max[prio] (compared in OW+1 bits). The decision uses the occupancy before this
//   cycle's departure, which frees space only from the next cycle on.
// - Per queue, the departure is applied first (mid = occ - units, written to u_dep; I cleared when
//   mid <= XON), then the accepted arrival (mid + units, written to u_arr; I set when the priority
//   is lossless and the result > XOFF). xoff_q (= I, driven out as i_state) and the occupancy show
//   the result in cycle t+1. A departure lane whose port is >= NP is ignored; departures are
//   trusted (removing more than a queue holds wraps modulo 2^OW).
// - Synchronous active-high rst clears xoff_q, sel_q and vq_q (every occupancy reads 0); the RAMs
//   are not written while rst is high.
// - One always_comb computes every _d (reset included), the RAM write ports and arr_accept, one
//   always_ff copies the registers.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v2_ingress #(
    // number of ports
    parameter NP = 8,
    // packet size width (bytes)
    parameter SW = 14,
    // occupancy and threshold width (units)
    parameter OW = 20,
    // a unit is 2^CELL_LOG2 bytes
    parameter CELL_LOG2 = 0,
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // number of (port, priority) queues
    localparam NQ = NP*8
) (
    input  wire             clk,
    input  wire             rst,

    // configuration
    input  wire [8*OW-1:0]  cfg_ing_max,
    input  wire [8*OW-1:0]  cfg_ing_xoff,
    input  wire [8*OW-1:0]  cfg_ing_xon,
    input  wire [7:0]       cfg_lossless,

    // arrival lanes, one per input port
    input  wire [NP-1:0]    arr_valid,
    input  wire [NP*3-1:0]  arr_prio,
    input  wire [NP*SW-1:0] arr_size,
    output logic [NP-1:0]   arr_accept,

    // departure lane (into the pipeline)
    input  wire             dep_valid,
    input  wire [PW-1:0]    dep_port,
    input  wire [2:0]       dep_prio,
    input  wire [SW-1:0]    dep_size,

    // ingress congestion state I per queue
    output wire [NQ-1:0]    i_state
);

localparam integer NPRIO = capfc_v2_pkg::NPRIO;
// queue index width
localparam QIW = PW + 3;

// parameter check
if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 32 || CELL_LOG2 < 0 || CELL_LOG2 > 12 ||
        CELL_LOG2 >= SW) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v2_ingress: illegal parameters NP=%0d SW=%0d OW=%0d CELL_LOG2=%0d", NP, SW, OW, CELL_LOG2);
`else
    $error("capfc_v2_ingress: illegal parameters (NP 2..128, SW 1..OW, OW ..32, CELL_LOG2 0..12 and < SW)");
`endif
end

localparam integer NPB = 1 << PW;

// state: I, and per queue the bank that holds its occupancy and whether it was written since reset
logic [NQ-1:0]     xoff_q     /*verilator public_flat_rd*/;
logic [NQ-1:0]     sel_q      /*verilator public_flat_rd*/;
logic [NQ-1:0]     vq_q       /*verilator public_flat_rd*/;
logic [NQ-1:0]     xoff_d;
logic [NQ-1:0]     sel_d;
logic [NQ-1:0]     vq_d;

// the two banks of every port: read port 0 for the port's arrival lane, read port 1 for the
// departure lane (port i's read data at [i*2*OW +: 2*OW])
wire  [NP*2*OW-1:0] arr_rd;
wire  [NP*2*OW-1:0] dep_rd;
logic [NP-1:0]      arr_we;
logic [NP*OW-1:0]   arr_wd;
logic [NP-1:0]      dep_we;

// thresholds per priority
logic [OW-1:0]     thr_max  [NPRIO];
logic [OW-1:0]     thr_xoff [NPRIO];
logic [OW-1:0]     thr_xon  [NPRIO];

// departure lane
logic              dep_ok;
logic [QIW-1:0]    dep_qi;
logic [OW-1:0]     dep_cur;
logic [OW-1:0]     dep_units;
logic [OW-1:0]     dep_mid;
logic              dep_xon;
logic [OW-1:0]     dcur_b [NPB];
logic [7:0]        v_p;
logic [7:0]        s_p;

// arrival lane temporaries, and per lane: its priority, occupancy after it, XOFF crossing
logic [NP-1:0]     acc_t;
logic [2:0]        a_prio;
logic [QIW-1:0]    a_qi;
logic [OW-1:0]     a_units;
logic [OW-1:0]     a_cur;
logic [OW:0]       a_room;
logic [OW-1:0]     a_delta;
logic [OW-1:0]     a_occ;
logic [2:0]        a_prio_t [NP];
logic [NP-1:0]     a_xoff_t;
// per-queue temporaries
logic [QIW-1:0]    q_t;
logic              q_xoff;
logic              q_sel;
logic              q_vq;

genvar gi;

for (gi = 0; gi < NP; gi = gi + 1) begin : gen_port
    // occupancies written by arrival lane gi
    capfc_v2_lutram #(
        .AW(3),
        .DW(OW),
        .RP(2)
    ) u_arr (
        .clk(clk),
        .we(arr_we[gi]),
        .wa(arr_prio[gi*3 +: 3]),
        .wd(arr_wd[gi*OW +: OW]),
        .ra({dep_prio, arr_prio[gi*3 +: 3]}),
        .rd(arr_rd[gi*2*OW +: 2*OW])
    );

    // occupancies written by the departure lane when it names port gi
    capfc_v2_lutram #(
        .AW(3),
        .DW(OW),
        .RP(2)
    ) u_dep (
        .clk(clk),
        .we(dep_we[gi]),
        .wa(dep_prio),
        .wd(dep_mid),
        .ra({dep_prio, arr_prio[gi*3 +: 3]}),
        .rd(dep_rd[gi*2*OW +: 2*OW])
    );
end

// Loop indices are declared in their for statements: slang then unrolls the loops and sees every
// temporary and array element of an always_comb assigned on all paths (no inferred latch).

assign i_state = xoff_q;

always_comb begin
    for (int k_c = 0; k_c < NPRIO; k_c = k_c + 1) begin
        thr_max[k_c]  = cfg_ing_max[k_c*OW +: OW];
        thr_xoff[k_c] = cfg_ing_xoff[k_c*OW +: OW];
        thr_xon[k_c]  = cfg_ing_xon[k_c*OW +: OW];
    end

    // The occupancy of queue {i, p} is in bank u_dep of port i when sel_q is set, else in u_arr;
    // 0 until the queue is first written after reset (vq_q). Every write below has a constant
    // index (one next-state mux per queue); the departure's read picks among the ports' read
    // port 1 data with one NP-to-1 mux.

    // defaults first: Verilator's latch check does not see through a loop it does not unroll
    xoff_d = xoff_q;
    sel_d  = sel_q;
    vq_d   = vq_q;
    arr_we = '0;
    arr_wd = '0;
    dep_we = '0;

    // departure first
    dep_ok = dep_valid && ({1'b0, dep_port} < (PW+1)'($unsigned(NP)));
    dep_qi = {dep_port, dep_prio};
    for (int k_c = 0; k_c < NPB; k_c = k_c + 1) begin
        dcur_b[k_c] = '0;
    end
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        v_p = vq_q[k_c*NPRIO +: NPRIO];
        s_p = sel_q[k_c*NPRIO +: NPRIO];
        if (v_p[dep_prio]) begin
            dcur_b[k_c] = s_p[dep_prio] ? dep_rd[(k_c*2+1)*OW +: OW] : arr_rd[(k_c*2+1)*OW +: OW];
        end
    end
    dep_cur   = dcur_b[dep_port];
    dep_units = OW'({capfc_v2_pkg::units(32'(dep_size), CELL_LOG2)});
    dep_mid   = dep_cur - dep_units;
`ifdef CAPFC_V2_BUG_XON_BELOW
    dep_xon = dep_mid < thr_xon[dep_prio];
`else
    dep_xon = dep_mid <= thr_xon[dep_prio];
`endif
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        dep_we[k_c] = dep_ok && !rst && dep_port == PW'($unsigned(k_c));
    end

    // then the arrivals, one per input port (so at most one per queue); lane k_c reads its own
    // port's banks through read port 0
    acc_t    = '0;
    a_xoff_t = '0;
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        a_prio  = arr_prio[k_c*3 +: 3];
        a_qi    = {PW'(k_c), a_prio};
        a_units = OW'({capfc_v2_pkg::units(32'(arr_size[k_c*SW +: SW]), CELL_LOG2)});
        v_p     = vq_q[k_c*NPRIO +: NPRIO];
        s_p     = sel_q[k_c*NPRIO +: NPRIO];
        a_cur   = '0;
        if (v_p[a_prio]) begin
            a_cur = s_p[a_prio] ? dep_rd[k_c*2*OW +: OW] : arr_rd[k_c*2*OW +: OW];
        end
        // occ + units <= MAX as occ <= MAX - units, the room computed from the inputs and the
        // configuration beside the occupancy's read (room's top bit: units > MAX, no room)
        a_room = {1'b0, thr_max[a_prio]} - {1'b0, a_units};
`ifdef CAPFC_V2_BUG_DROP_FITS
        acc_t[k_c] = arr_valid[k_c] && !a_room[OW] && ({1'b0, a_cur} < a_room);
`else
        acc_t[k_c] = arr_valid[k_c] && !a_room[OW] && ({1'b0, a_cur} <= a_room);
`endif
        // A departure of the same queue this cycle read the same word (its read port 1 at
        // dep_prio = a_prio of port dep_port = k_c): dep_mid + units = a_cur + (units - dep
        // units), modulo 2^OW as the contract's two steps, without the departure's NP-to-1 mux and subtraction
        a_delta = (dep_ok && dep_qi == a_qi) ? a_units - dep_units : a_units;
        a_occ  = a_cur + a_delta;
        a_prio_t[k_c] = a_prio;
`ifdef CAPFC_V2_BUG_XOFF_AT
        a_xoff_t[k_c] = cfg_lossless[a_prio] && a_occ >= thr_xoff[a_prio];
`else
        a_xoff_t[k_c] = cfg_lossless[a_prio] && a_occ > thr_xoff[a_prio];
`endif
        arr_we[k_c] = acc_t[k_c] && !rst;
        arr_wd[k_c*OW +: OW] = a_occ;
    end

    // per queue q = {i, p}: the departure, then input i's arrival
    for (int k_c = 0; k_c < NP; k_c = k_c + 1) begin
        for (int k_p = 0; k_p < NPRIO; k_p = k_p + 1) begin
            q_t    = {PW'($unsigned(k_c)), 3'($unsigned(k_p))};
            q_xoff = xoff_q[k_c*NPRIO + k_p];
            q_sel  = sel_q[k_c*NPRIO + k_p];
            q_vq   = vq_q[k_c*NPRIO + k_p];
            if (dep_ok && dep_qi == q_t) begin
                q_sel = 1'b1;
                q_vq  = 1'b1;
                if (dep_xon) begin
                    q_xoff = 1'b0;
                end
            end
            if (acc_t[k_c] && a_prio_t[k_c] == 3'($unsigned(k_p))) begin
                q_sel = 1'b0;
                q_vq  = 1'b1;
                if (a_xoff_t[k_c]) begin
                    q_xoff = 1'b1;
                end
            end
            xoff_d[k_c*NPRIO + k_p] = q_xoff;
            sel_d[k_c*NPRIO + k_p]  = q_sel;
            vq_d[k_c*NPRIO + k_p]   = q_vq;
        end
    end

    if (rst) begin
        xoff_d = '0;
        sel_d  = '0;
        vq_d   = '0;
    end

    // written once per evaluation
    arr_accept = acc_t;
end

always_ff @(posedge clk) begin
    xoff_q <= xoff_d;
    sel_q  <= sel_d;
    vq_q   <= vq_d;
end

endmodule

`resetall
