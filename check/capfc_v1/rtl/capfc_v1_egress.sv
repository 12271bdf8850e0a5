// capfc_v1_egress: egress occupancy per (output port, priority), arrival counters C and congestion signals E
//
// Contract (docs/microarchitecture-v2.md, "Egress queues, arrival counters and E"):
// - enq_accept is combinational: the enqueue lane is valid, its ports are < NP and
//   occ_q[oport*8+prio] + units(size) fits under eg_max[prio] (compared in OW+1 bits).
// - Per queue q = o*8+p, the dequeue of lane o is applied first (mid = occ_q - units; clr_c when
//   mid <= WARN, clr_e when mid <= XON_e), then the accepted enqueue (occ_d = mid + units).
// - An accepted enqueue into a lossless priority with occ_d >= WARN increments C[q][iport]
//   (saturating at 2^CW-1); with mode != 0 and occ_d > XOFF_e it raises trig[q] (a sort request).
// - With CAPFC_V1_ADD_FIRST the other order: the accepted enqueue first (mid = occ_q + units; the
//   increment when mid >= WARN, trig when mid > XOFF_e), then the dequeue (occ_d = mid - units;
//   clr_c when occ_d <= WARN, which also clears this cycle's increment; clr_e when occ_d <= XON_e,
//   which also drops this cycle's trig: the E it asks for is cleared by the same cycle). enq_accept
//   still compares occ_q.
// - Counter table: cnt_q[q*NP+i] with a valid bit cnt_vld_q[q][i]; C = valid ? word : 0. A row clear
//   costs one cycle and only clears the row's valid bits; stale words stay until the next increment
//   of that entry rewrites them. At most one table word is written per cycle.
// - E: e_q[q] is cleared by clr_e[q], else ORed with wr_mask when the sort unit writes queue q
//   (clear wins). rd_row returns the architectural counter row C[rd_q][*] combinationally.
// - e_other[i*8+p] = OR over o != i of E[o][p][i] (combinational from e_q; the own port never counts).
// - All state shows its new value in cycle t+1. Dequeue lanes are trusted (wrap modulo 2^OW).
// - Synchronous active-high rst clears occ_q, cnt_q, cnt_vld_q and e_q to 0.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_egress #(
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
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // number of (port, priority) queues
    localparam NQ = NP*8,
    // queue index width
    localparam QIW = PW + 3
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

    // to the sort unit: requests, clears of E, counter row read port
    output logic [NQ-1:0]    trig,
    output logic [NQ-1:0]    clr_e,
    input  wire [QIW-1:0]    rd_q,
    output logic [NP*CW-1:0] rd_row,

    // from the sort unit: E write port
    input  wire              wr_en,
    input  wire [QIW-1:0]    wr_q,
    input  wire [NP-1:0]     wr_mask,

    // E seen by input port i at priority p from every other output port:
    // e_other[i*8+p] = OR over o != i of e_q[o*8+p][i]
    output logic [NQ-1:0]    e_other
);

// counter table size and index width
localparam integer NC = NQ*NP;
localparam integer CIW = $clog2(NC);

// rounding addend of units(), computed in SW+1 bits as the spec says
localparam [63:0] CELL_RND_FULL = (64'd1 << CELL_LOG2) - 64'd1;
localparam [SW:0] CELL_RND = CELL_RND_FULL[SW:0];

// parameter check
if (NP < 2 || NP > 128 || SW < 1 || SW > OW || OW > 32 || CW < 1 || CW > 16 ||
        CELL_LOG2 < 0 || CELL_LOG2 > 12) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v1_egress: illegal parameters NP=%0d SW=%0d OW=%0d CW=%0d CELL_LOG2=%0d",
        NP, SW, OW, CW, CELL_LOG2);
`else
    $error("capfc_v1_egress: illegal parameters (NP 2..128, SW 1..OW, OW ..32, CW 1..16, CELL_LOG2 0..12)");
`endif
end

// size in bytes to units, in SW+1 bits
function automatic logic [SW:0] units(input logic [SW-1:0] size);
    units = ({1'b0, size} + CELL_RND) >> CELL_LOG2;
endfunction

// state
logic [OW-1:0]     occ_q     [NQ] /*verilator public_flat_rd*/;
logic [CW-1:0]     cnt_q     [NC] /*verilator public_flat_rd*/;
logic [NP-1:0]     cnt_vld_q [NQ] /*verilator public_flat_rd*/;
logic [NP-1:0]     e_q       [NQ] /*verilator public_flat_rd*/;

// dequeue lanes: queue and occupancy after the dequeue
logic [NP*QIW-1:0] deq_qi;
logic [NP*OW-1:0]  deq_mid;
logic [NQ-1:0]     clr_c;
logic [NQ-1:0]     clr_e_v;

// enqueue lane
logic              enq_ok;
logic [QIW-1:0]    enq_qi;
logic [SW:0]       enq_units;
`ifndef CAPFC_V1_ADD_FIRST
logic [OW-1:0]     enq_base;
`endif
logic [OW-1:0]     enq_occ;
// the occupancy the enqueue writes (its dequeue's when one hits the same queue after it)
logic [OW-1:0]     enq_wocc;

// counter increment: one table word per cycle
logic              inc;
logic [CIW-1:0]    cnt_widx;
logic [NP-1:0]     vld_mid;
logic [CW-1:0]     cnt_cur;
logic [CW-1:0]     cnt_wdata;
logic [NP-1:0]     cnt_vld_wdata;

// loop temporaries
logic [2:0]        d_prio;
logic [QIW-1:0]    d_qi;
logic [OW-1:0]     d_mid;

// E reduction: priority p, input i at [p*NP + i]
logic [8*NP-1:0]   e_acc;

integer k_c;
integer k_r;
integer k_e;
integer k_p;
integer k_f;

genvar gp;

// Signals that leave this block for the sort unit's always_comb (clr_e, trig) are written exactly
// once per evaluation: Icarus 11 propagates intermediate values and was seen to loop forever
// between always_comb blocks otherwise.
always_comb begin
    clr_c   = '0;
    clr_e_v = '0;
    enq_ok     = enq_valid && ({1'b0, enq_oport} < (PW+1)'(NP)) && ({1'b0, enq_iport} < (PW+1)'(NP));
    enq_qi     = {enq_oport, enq_prio};
    enq_units  = units(enq_size);
    enq_accept = enq_ok &&
        ({1'b0, occ_q[enq_qi]} + (OW+1)'(enq_units) <= {1'b0, cfg_eg_max[enq_prio*OW +: OW]});
`ifdef CAPFC_V1_ADD_FIRST
    // the enqueue first
    enq_occ = occ_q[enq_qi] + OW'(enq_units);
`endif

    // the dequeue lanes (with CAPFC_V1_ADD_FIRST from their queue's occupancy after the enqueue)
    for (k_c = 0; k_c < NP; k_c = k_c + 1) begin
        d_prio = deq_prio[k_c*3 +: 3];
        d_qi   = {PW'(k_c), d_prio};
`ifdef CAPFC_V1_ADD_FIRST
        d_mid  = ((enq_accept && enq_qi == d_qi) ? enq_occ : occ_q[d_qi]) -
                 OW'(units(deq_size[k_c*SW +: SW]));
`else
        d_mid  = occ_q[d_qi] - OW'(units(deq_size[k_c*SW +: SW]));
`endif
        deq_qi[k_c*QIW +: QIW] = d_qi;
        deq_mid[k_c*OW +: OW]  = d_mid;
        if (deq_valid[k_c]) begin
`ifdef CAPFC_V1_BUG_CLEAR_BELOW_WARN
            // seeded bug: C is cleared only strictly below WARN, not at it
            clr_c[d_qi]   = d_mid < cfg_eg_warn[d_prio*OW +: OW];
`else
            clr_c[d_qi]   = d_mid <= cfg_eg_warn[d_prio*OW +: OW];
`endif
`ifdef CAPFC_V1_BUG_E_STUCK
            // seeded bug: XON_e is read one bit off (halved), E stays set below XON_e
            clr_e_v[d_qi] = d_mid <= (cfg_eg_xon[d_prio*OW +: OW] >> 1);
`else
            clr_e_v[d_qi] = d_mid <= cfg_eg_xon[d_prio*OW +: OW];
`endif
        end
    end

`ifndef CAPFC_V1_ADD_FIRST
    // then the enqueue, from its queue's occupancy after a dequeue
    enq_base = occ_q[enq_qi];
    for (k_c = 0; k_c < NP; k_c = k_c + 1) begin
        if (deq_valid[k_c] && deq_qi[k_c*QIW +: QIW] == enq_qi) begin
            enq_base = deq_mid[k_c*OW +: OW];
        end
    end
    enq_occ  = enq_base + OW'(enq_units);
    enq_wocc = enq_occ;
`else
    // the occupancy the enqueue leaves: its dequeue's when one hits the same queue
    enq_wocc = enq_occ;
    for (k_c = 0; k_c < NP; k_c = k_c + 1) begin
        if (deq_valid[k_c] && deq_qi[k_c*QIW +: QIW] == enq_qi) begin
            enq_wocc = deq_mid[k_c*OW +: OW];
        end
    end
`endif

    inc = enq_accept && cfg_lossless[enq_prio] && enq_occ >= cfg_eg_warn[enq_prio*OW +: OW];

`ifdef CAPFC_V1_ADD_FIRST
    trig = (enq_accept && cfg_lossless[enq_prio] && cfg_mode != 2'd0 &&
            enq_occ > cfg_eg_xoff[enq_prio*OW +: OW] && !clr_e_v[enq_qi]) ? (NQ'(1) << enq_qi) : '0;
`else
    trig = (enq_accept && cfg_lossless[enq_prio] && cfg_mode != 2'd0 &&
            enq_occ > cfg_eg_xoff[enq_prio*OW +: OW]) ? (NQ'(1) << enq_qi) : '0;
`endif
    clr_e = clr_e_v;

`ifdef CAPFC_V1_ADD_FIRST
    // counter of (enq_qi, enq_iport) before this cycle's row clear, which comes after it
    vld_mid       = cnt_vld_q[enq_qi];
`else
    // counter of (enq_qi, enq_iport), seen after this cycle's row clear
    vld_mid       = clr_c[enq_qi] ? '0 : cnt_vld_q[enq_qi];
`endif
    cnt_widx      = CIW'(enq_qi) * CIW'(NP) + CIW'(enq_iport);
    cnt_cur       = vld_mid[enq_iport] ? cnt_q[cnt_widx] : '0;
`ifdef CAPFC_V1_BUG_COUNTER_WRAP
    // seeded bug: no saturation, a full counter wraps to 0
    cnt_wdata     = cnt_cur + 1'b1;
`else
    cnt_wdata     = (cnt_cur == {CW{1'b1}}) ? cnt_cur : cnt_cur + 1'b1;
`endif
`ifdef CAPFC_V1_ADD_FIRST
    cnt_vld_wdata = clr_c[enq_qi] ? '0 : (vld_mid | (NP'(1) << enq_iport));
`else
    cnt_vld_wdata = vld_mid | (NP'(1) << enq_iport);
`endif
end

// counter row read port for the sort unit's snapshot (NP indexed reads)
always_comb begin
    for (k_r = 0; k_r < NP; k_r = k_r + 1) begin
        rd_row[k_r*CW +: CW] = cnt_vld_q[rd_q][k_r] ? cnt_q[CIW'(rd_q) * CIW'(NP) + CIW'(k_r)] : '0;
    end
end

// E from the other output ports, per priority (input i at [p*NP + i]); the own port is masked
// out. Reduced here, next to e_q, so that no NQ*NP-bit bus is needed.
always_comb begin
    e_acc = '0;
    for (k_e = 0; k_e < NP; k_e = k_e + 1) begin
        for (k_p = 0; k_p < 8; k_p = k_p + 1) begin
            e_acc[k_p*NP +: NP] = e_acc[k_p*NP +: NP] | (e_q[k_e*8+k_p] & ~(NP'(1) << k_e));
        end
    end
    for (k_e = 0; k_e < NP; k_e = k_e + 1) begin
        for (k_p = 0; k_p < 8; k_p = k_p + 1) begin
            e_other[k_e*8+k_p] = e_acc[k_p*NP+k_e];
        end
    end
end

// counter table: one word written per cycle. The reset walks the whole table with blocking
// assignments because Verilator cannot schedule a non-blocking array write inside a loop it does not
// unroll (BLKLOOPINIT); it is race-free since nothing else samples cnt_q in a reset cycle (every
// register that depends on it is being reset too).
always_ff @(posedge clk) begin
    if (rst) begin
        for (k_f = 0; k_f < NC; k_f = k_f + 1) begin
            /* verilator lint_off BLKSEQ */
            cnt_q[k_f] = '0;
            /* verilator lint_on BLKSEQ */
        end
    end else if (inc) begin
        cnt_q[cnt_widx] <= cnt_wdata;
    end
end

// per output port: each block writes only that port's 8 queues (occupancy, counter valid bits, E),
// so the blocks never collide. Within a block the later write wins: the E clear overrides the sort
// unit's E write, and the enqueue's values already include a dequeue or row clear of the same queue.
for (gp = 0; gp < NP; gp = gp + 1) begin : gen_port
    integer k;

    always_ff @(posedge clk) begin
        if (rst) begin
            for (k = 0; k < 8; k = k + 1) begin
                occ_q[gp*8+k]     <= '0;
                cnt_vld_q[gp*8+k] <= '0;
                e_q[gp*8+k]       <= '0;
            end
        end else begin
            if (wr_en && wr_q[QIW-1:3] == PW'(gp)) begin
                e_q[wr_q] <= e_q[wr_q] | wr_mask;
            end
            if (deq_valid[gp]) begin
                occ_q[deq_qi[gp*QIW +: QIW]] <= deq_mid[gp*OW +: OW];
                if (clr_c[deq_qi[gp*QIW +: QIW]]) begin
                    cnt_vld_q[deq_qi[gp*QIW +: QIW]] <= '0;
                end
                if (clr_e[deq_qi[gp*QIW +: QIW]]) begin
                    e_q[deq_qi[gp*QIW +: QIW]] <= '0;
                end
            end
            if (enq_accept && enq_oport == PW'(gp)) begin
                occ_q[enq_qi] <= enq_wocc;
                if (inc) begin
                    cnt_vld_q[enq_qi] <= cnt_vld_wdata;
                end
            end
        end
    end
end

endmodule

`resetall
