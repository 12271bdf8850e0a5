// capfc_props: assertions of the CaPFC rules (shared/domain.md section 3) that need no reference
// model, for a team to instantiate beside its block (explicitly: Yosys 0.23 drops `bind`). The
// ports are capfc_v2_top's (a block with other ports connects through a few lines of adapter, as
// check/capfc_v1/capfc_v1_tb.sv does); the timing parameters are the block's timing envelope
// (`capfc check --timing`). Immediate assertions in clocked processes with small counters instead
// of `##[m:n]`, so that Verilator 5.006 (`--assert`) runs them and Yosys reads them.
//
// The module keeps what the rules need: the configuration (capfc's register map, cleared by a
// reset), every queue's occupancy from the lanes, and the ingress state I. Rules, each reported as
// `capfc_props: <RULE> cycle <c> ...`:
//   ACCEPT_ING / ACCEPT_EG  an accept answers exactly "occupancy + size <= MAX" (the occupancy the
//                          cycle started with)
//   LOSSY_PAUSE            D is never set for a priority that is not lossless
//   PAUSE_AT_XOFF          I held for ING_MAX cycles (an arrival took the ingress queue above XOFF,
//                          no departure took it to XON since) shows in D
//   PAUSE_HAS_CAUSE        D set has a cause: I within the ingress window, or an egress queue of the
//                          same priority at another port above XON_e (E can be set only then) within
//                          the E-clear window
//   FRAME_PER_CHANGE       a change of D reaches a frame the MAC takes within FRAME_MAX ready cycles
//   REFRESH                while the peer is paused, a frame comes every REFRESH cycles (+ REF_MAX)
// `errors` counts the failed checks, for the testbench.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_props #(
    parameter int NP = 8,
    parameter int SW = 14,
    parameter int OW = 20,
    parameter int CELL_LOG2 = 0,
    // the timing envelope (cycles)
    parameter int ING_MIN = 1,
    parameter int ING_MAX = 1,
    parameter int E_CLEAR_MAX = 1,
    parameter int FRAME_MIN = 0,
    parameter int FRAME_MAX = 0,
    parameter int REF_MAX = 1,
    parameter int RESET_CYCLES = 1,
    localparam int PW = (NP > 1) ? $clog2(NP) : 1,
    localparam int NQ = NP*8
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             cfg_we,
    input  wire [7:0]       cfg_addr,
    // the registers' fields are at most OW bits: the bits above are not read
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [31:0]      cfg_wdata,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [NP-1:0]    arr_valid,
    input  wire [NP*3-1:0]  arr_prio,
    input  wire [NP*SW-1:0] arr_size,
    input  wire             dep_valid,
    input  wire [PW-1:0]    dep_port,
    input  wire [2:0]       dep_prio,
    input  wire [SW-1:0]    dep_size,
    input  wire             enq_valid,
    input  wire [PW-1:0]    enq_oport,
    input  wire [2:0]       enq_prio,
    input  wire [PW-1:0]    enq_iport,
    input  wire [SW-1:0]    enq_size,
    input  wire [NP-1:0]    deq_valid,
    input  wire [NP*3-1:0]  deq_prio,
    input  wire [NP*SW-1:0] deq_size,
    input  wire [NP-1:0]    pfc_ready,
    input  wire [NP-1:0]    arr_accept,
    input  wire             enq_accept,
    input  wire [NP-1:0]    pfc_valid,
    input  wire [NQ-1:0]    pfc_cev,
    input  wire [NQ-1:0]    pfc_xoff,
    input  wire [NQ-1:0]    d_state,
    output int              errors
);

// An immediate assertion; outside Yosys (whose 0.23 parser takes no action block) a failure prints
// its message and counts in `errors`.
`ifdef YOSYS
`define CAPFC_CHECK(cond, msg) assert (cond);
`else
`define CAPFC_CHECK(cond, msg) assert (cond) else begin $error msg; errors <= errors + 1; end
`endif

localparam int HIST = (ING_MAX > E_CLEAR_MAX ? ING_MAX : E_CLEAR_MAX) + 1;
localparam [SW:0] CELL_RND = (SW+1)'((64'd1 << CELL_LOG2) - 64'd1);

function automatic [SW:0] units(input [SW-1:0] size);
    units = ({1'b0, size} + CELL_RND) >> CELL_LOG2;
endfunction

// configuration (capfc's register map; a reset clears it)
logic [OW-1:0] ing_max [8], ing_xoff [8], ing_xon [8];
logic [OW-1:0] eg_max [8], eg_xon [8];
logic [7:0]    lossless;
logic [15:0]   quanta, refresh;

// model state
logic [OW-1:0] ing_occ [NQ], eg_occ [NQ];
logic [NQ-1:0] i_q;
// history, newest at [0]: I, and "an egress queue of this priority at another port is above XON_e"
logic [NQ-1:0] i_hist [HIST];
logic [NQ-1:0] e_hist [HIST];
logic [NQ-1:0] d_prev;
logic [7:0]    sent [NP];
int            waiting [NP];
int            since [NP];
int            cycle;
int            since_reset;
// no check before the first reset: registers hold their power-up values until then
logic          seen_reset;
// frames: taken this cycle, and the ready cycles D has differed from what the peer was told
logic [NP-1:0] took;
int            wait_now [NP];

always_comb begin
    took = pfc_valid & pfc_ready;
    for (int i = 0; i < NP; i = i + 1) begin
        if (took[i] || d_state[i*8 +: 8] == sent[i]) wait_now[i] = 0;
        else wait_now[i] = waiting[i] + (pfc_ready[i] ? 1 : 0);
    end
end

// the next I and occupancies, from this cycle's lanes
logic [OW-1:0] ing_n [NQ], eg_n [NQ];
logic [NQ-1:0] i_n;
logic [NQ-1:0] e_cause;

always_comb begin
    for (int q = 0; q < NQ; q = q + 1) begin
        ing_n[q] = ing_occ[q];
        eg_n[q] = eg_occ[q];
    end
    i_n = i_q;
    // ingress: the departure first, then the accepted arrivals
    if (dep_valid && 32'(dep_port) < NP) begin
        ing_n[{dep_port, dep_prio}] = ing_occ[{dep_port, dep_prio}] - OW'(units(dep_size));
        if (ing_n[{dep_port, dep_prio}] <= ing_xon[dep_prio]) i_n[{dep_port, dep_prio}] = 1'b0;
    end
    for (int i = 0; i < NP; i = i + 1) begin
        if (arr_valid[i] && arr_accept[i]) begin
            ing_n[i*8 + 32'(arr_prio[i*3 +: 3])] = ing_n[i*8 + 32'(arr_prio[i*3 +: 3])]
                + OW'(units(arr_size[i*SW +: SW]));
            if (lossless[arr_prio[i*3 +: 3]]
                    && ing_n[i*8 + 32'(arr_prio[i*3 +: 3])] > ing_xoff[arr_prio[i*3 +: 3]]) begin
                i_n[i*8 + 32'(arr_prio[i*3 +: 3])] = 1'b1;
            end
        end
    end
    // egress: the dequeues first, then the accepted enqueue
    for (int o = 0; o < NP; o = o + 1) begin
        if (deq_valid[o]) begin
            eg_n[o*8 + 32'(deq_prio[o*3 +: 3])] = eg_occ[o*8 + 32'(deq_prio[o*3 +: 3])]
                - OW'(units(deq_size[o*SW +: SW]));
        end
    end
    if (enq_valid && enq_accept && 32'(enq_oport) < NP && 32'(enq_iport) < NP) begin
        eg_n[{enq_oport, enq_prio}] = eg_n[{enq_oport, enq_prio}] + OW'(units(enq_size));
    end
    // an E that may be set for input i, priority p: a queue (o != i, p) above XON_e now
    for (int i = 0; i < NP; i = i + 1) begin
        for (int p = 0; p < 8; p = p + 1) begin
            e_cause[i*8 + p] = 1'b0;
            for (int o = 0; o < NP; o = o + 1) begin
                if (o != i && eg_occ[o*8 + p] > eg_xon[p]) e_cause[i*8 + p] = 1'b1;
            end
        end
    end
end

// the checks of this cycle, on the values the cycle started with
always @(posedge clk) begin
    if (!rst && seen_reset && since_reset >= RESET_CYCLES) begin
        for (int i = 0; i < NP; i = i + 1) begin
            if (arr_valid[i]) begin
                `CAPFC_CHECK(arr_accept[i] == ({1'b0, ing_occ[i*8 + 32'(arr_prio[i*3 +: 3])]}
                        + (OW+1)'(units(arr_size[i*SW +: SW])) <= {1'b0, ing_max[arr_prio[i*3 +: 3]]}),
                    ("capfc_props: ACCEPT_ING cycle %0d port %0d prio %0d: accept %0d, occupancy %0d + %0d, MAX %0d",
                        cycle, i, arr_prio[i*3 +: 3], arr_accept[i], ing_occ[i*8 + 32'(arr_prio[i*3 +: 3])],
                        units(arr_size[i*SW +: SW]), ing_max[arr_prio[i*3 +: 3]]))
            end
        end
        if (enq_valid && 32'(enq_oport) < NP && 32'(enq_iport) < NP) begin
            `CAPFC_CHECK(enq_accept == ({1'b0, eg_occ[{enq_oport, enq_prio}]} + (OW+1)'(units(enq_size))
                    <= {1'b0, eg_max[enq_prio]}),
                ("capfc_props: ACCEPT_EG cycle %0d queue (%0d, %0d): accept %0d, occupancy %0d + %0d, MAX %0d",
                    cycle, enq_oport, enq_prio, enq_accept, eg_occ[{enq_oport, enq_prio}], units(enq_size),
                    eg_max[enq_prio]))
        end
        for (int q = 0; q < NQ; q = q + 1) begin
            if (d_state[q]) begin
                `CAPFC_CHECK(lossless[q % 8],
                    ("capfc_props: LOSSY_PAUSE cycle %0d port %0d prio %0d: lossless mask %02h",
                        cycle, q / 8, q % 8, lossless))
                // a cause within the windows: I at lags ING_MIN..ING_MAX, E at lags 0..E_CLEAR_MAX
                `CAPFC_CHECK(lossless[q % 8] == 1'b0 || cause(q),
                    ("capfc_props: PAUSE_HAS_CAUSE cycle %0d port %0d prio %0d: no I and no egress queue of priority %0d above XON_e at another port",
                        cycle, q / 8, q % 8, q % 8))
            end else if (held_i(q)) begin
                `CAPFC_CHECK(0,
                    ("capfc_props: PAUSE_AT_XOFF cycle %0d port %0d prio %0d: I is set for %0d cycles (ingress %0d > XOFF %0d), D is not",
                        cycle, q / 8, q % 8, ING_MAX, ing_occ[q], ing_xoff[q % 8]))
            end
        end
        for (int i = 0; i < NP; i = i + 1) begin
            // reported once per episode: when the wait first exceeds the window
            `CAPFC_CHECK(wait_now[i] != FRAME_MAX + 1,
                ("capfc_props: FRAME_PER_CHANGE cycle %0d port %0d: D %02h, the peer was last told %02h, %0d ready cycles without a frame",
                    cycle, i, d_state[i*8 +: 8], sent[i], wait_now[i]))
            `CAPFC_CHECK(!(sent[i] != 8'd0 && pfc_ready[i] && !took[i]
                    && since[i] == 32'(refresh) + REF_MAX),
                ("capfc_props: REFRESH cycle %0d port %0d: paused %02h, %0d cycles since the last frame, period %0d",
                    cycle, i, sent[i], since[i], refresh))
        end
    end
end

// q is a queue index (below NQ): its high bits are not read
/* verilator lint_off UNUSEDSIGNAL */
function automatic logic cause(input int q);
    cause = 1'b0;
    for (int k = ING_MIN - 1; k < ING_MAX; k = k + 1) cause = cause | i_hist[k][q];
    for (int k = 0; k < E_CLEAR_MAX; k = k + 1) cause = cause | e_hist[k][q];
    cause = cause | e_cause[q];
endfunction

function automatic logic held_i(input int q);
    held_i = 1'b1;
    for (int k = 0; k < ING_MAX; k = k + 1) held_i = held_i & i_hist[k][q];
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// registers
always_ff @(posedge clk) begin
    if (rst) begin
        for (int p = 0; p < 8; p = p + 1) begin
            ing_max[p] <= '0; ing_xoff[p] <= '0; ing_xon[p] <= '0;
            eg_max[p] <= '0; eg_xon[p] <= '0;
        end
        lossless <= '0;
        quanta <= '0;
        refresh <= '0;
        for (int q = 0; q < NQ; q = q + 1) begin
            ing_occ[q] <= '0;
            eg_occ[q] <= '0;
        end
        i_q <= '0;
        for (int k = 0; k < HIST; k = k + 1) begin
            i_hist[k] <= '0;
            e_hist[k] <= '0;
        end
        since_reset <= 0;
    end else begin
        if (cfg_we) begin
            case (cfg_addr[7:3])
                5'h00: ing_max[cfg_addr[2:0]] <= OW'(cfg_wdata);
                5'h01: ing_xoff[cfg_addr[2:0]] <= OW'(cfg_wdata);
                5'h02: ing_xon[cfg_addr[2:0]] <= OW'(cfg_wdata);
                5'h03: eg_max[cfg_addr[2:0]] <= OW'(cfg_wdata);
                5'h05: eg_xon[cfg_addr[2:0]] <= OW'(cfg_wdata);
                default: ;
            endcase
            case (cfg_addr)
                8'h38: lossless <= cfg_wdata[7:0];
                8'h3B: quanta <= cfg_wdata[15:0];
                8'h3C: refresh <= cfg_wdata[15:0];
                default: ;
            endcase
        end
        for (int q = 0; q < NQ; q = q + 1) begin
            ing_occ[q] <= ing_n[q];
            eg_occ[q] <= eg_n[q];
        end
        i_q <= i_n;
        // I of cycle t+1 is i_n; D may show it from ING_MIN cycles after the lane
        i_hist[0] <= i_n;
        e_hist[0] <= e_cause;
        for (int k = 1; k < HIST; k = k + 1) begin
            i_hist[k] <= i_hist[k-1];
            e_hist[k] <= e_hist[k-1];
        end
        if (since_reset < RESET_CYCLES) since_reset <= since_reset + 1;
    end
end

// frames: what the peer was last told, and the waits
always_ff @(posedge clk) begin
    if (rst) begin
        for (int i = 0; i < NP; i = i + 1) begin
            sent[i] <= '0;
            waiting[i] <= 0;
            since[i] <= 0;
        end
    end else begin
        for (int i = 0; i < NP; i = i + 1) begin
            waiting[i] <= wait_now[i];
            if (took[i]) begin
                // the frame's pause bits; with a pause time of 0 configured a pause reads as a
                // resume, so the peer is taken to hold D of FRAME_MIN cycles before
                sent[i] <= (sent[i] & ~pfc_cev[i*8 +: 8]) | (pfc_cev[i*8 +: 8] &
                    (quanta != 16'd0 ? pfc_xoff[i*8 +: 8] :
                     (FRAME_MIN == 0 ? d_state[i*8 +: 8] : d_prev[i*8 +: 8])));
                since[i] <= 1;
            end else begin
                since[i] <= since[i] + 1;
            end
        end
    end
end

always_ff @(posedge clk) begin
    d_prev <= d_state;
    cycle <= cycle + 1;
    if (rst) seen_reset <= 1'b1;
end

initial begin
    errors = 0;
    cycle = 0;
    seen_reset = 1'b0;
end

endmodule

`undef CAPFC_CHECK
`resetall
