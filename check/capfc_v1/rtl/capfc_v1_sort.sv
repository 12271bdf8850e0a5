// capfc_v1_sort: contributor sort unit, selects the culprit inputs of a congested egress queue (sets E)
//
// Contract (docs/microarchitecture-v2.md, "Contributor sort unit"):
// - One sort at a time. Requests (trig) set a pending bit per egress queue; a request for a queue
//   already pending is merged; a request for the queue being sorted stays pending and runs again.
// - When idle, the first pending queue at or after rr_q (round robin over the NQ queues, wrapping)
//   is granted and loaded in the same cycle: snapshot of its counter row (before this cycle's
//   increment), total T, cal_q = mode[1] (Stop-Calibrate), cancel_q = clr_e of that queue.
// - Stop-Max: one busy cycle, E |= 1 << argmax (ties to the lowest index, 0 is never a candidate).
//   Stop-Calibrate: exactly NP busy cycles (latency independent of the data); each takes the next
//   largest counter while S * 2^CUT_F < CUT * T; on the last cycle E |= taken.
// - The E write happens on the last busy cycle unless the queue fell to XON_e or below (clr_e) at
//   any time since the load: the result is then discarded. clr_e also drops a pending request.
// - Latency from a request seen in pend_q at cycle u: E visible at u+2 (Stop-Max), u+1+NP
//   (Stop-Calibrate); contention adds the remaining sort time and the round-robin wait.
// - Synchronous active-high rst clears every register to 0.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_v1_sort #(
    // number of ports
    parameter NP = 8,
    // arrival counter width
    parameter CW = 16,
    // fractional bits of CUT (1.0 = 2^CUT_F)
    parameter CUT_F = 8,
    // port index width
    localparam PW = (NP > 1) ? $clog2(NP) : 1,
    // number of egress queues
    localparam NQ = NP*8,
    // queue index width
    localparam QIW = PW + 3
) (
    input  wire              clk,
    input  wire              rst,

    // configuration
    input  wire              cfg_mode_cal,
    input  wire [CUT_F:0]    cfg_cut,

    // from the egress queues: requests and clears of E
    input  wire [NQ-1:0]     trig,
    input  wire [NQ-1:0]     clr_e,

    // counter row read port (combinational, architectural values C[rd_q][*])
    output logic [QIW-1:0]   rd_q,
    input  wire [NP*CW-1:0]  rd_row,

    // E write port
    output logic             wr_en,
    output logic [QIW-1:0]   wr_q,
    output logic [NP-1:0]    wr_mask
);

// sum width
localparam SUMW = CW + PW;
// width of the Stop-Calibrate comparison
localparam MW = SUMW + CUT_F + 1;

// parameter check
if (NP < 2 || NP > 128 || CW < 1 || CW > 16 || CUT_F < 1 || CUT_F > 16) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_v1_sort: illegal parameters NP=%0d CW=%0d CUT_F=%0d", NP, CW, CUT_F);
`else
    $error("capfc_v1_sort: illegal parameters (NP 2..128, CW 1..16, CUT_F 1..16)");
`endif
end

`ifdef CAPFC_V1_BUG_LATE_PAUSE
// seeded bug: cycles a Stop-Max sort stalls, more than the envelope's 2 * NQ cycles of arbitration
localparam integer LATE_STALL = 2*NQ + 8;
logic [15:0]     stall_q;
always_ff @(posedge clk) begin
    if (rst || !busy_q) begin
        stall_q <= '0;
    end else begin
        stall_q <= stall_q + 16'd1;
    end
end
`endif

// state
logic [NQ-1:0]   pend_q   /*verilator public_flat_rd*/;
logic [QIW-1:0]  rr_q     /*verilator public_flat_rd*/;
logic            busy_q   /*verilator public_flat_rd*/;
logic [QIW-1:0]  qidx_q   /*verilator public_flat_rd*/;
logic [PW-1:0]   iter_q   /*verilator public_flat_rd*/;
logic            cancel_q /*verilator public_flat_rd*/;
logic            cal_q    /*verilator public_flat_rd*/;
logic [CW-1:0]   vals_q   [NP] /*verilator public_flat_rd*/;
logic [NP-1:0]   taken_q  /*verilator public_flat_rd*/;
logic [SUMW-1:0] sum_q    /*verilator public_flat_rd*/;
logic [SUMW-1:0] total_q  /*verilator public_flat_rd*/;

logic [NQ-1:0]   pend_d;
logic [QIW-1:0]  rr_d;
logic            busy_d;
logic [QIW-1:0]  qidx_d;
logic [PW-1:0]   iter_d;
logic            cancel_d;
logic            cal_d;
logic [NP-1:0]   taken_d;
logic [SUMW-1:0] sum_d;
logic [SUMW-1:0] total_d;
// vals_q is written as a whole row from rd_row on a load
logic            load;

// round-robin grant
logic            granted;
logic [QIW-1:0]  g;
logic [QIW-1:0]  g_hi;
logic [QIW-1:0]  g_lo;
logic            g_hi_any;

// argmax over the snapshot
logic [NP-1:0]    am_valid;
logic [NP*CW-1:0] am_val;
logic             am_any;
logic [CW-1:0]    am_mx;
logic [PW-1:0]    am_idx;

// T of the row being loaded
logic [SUMW-1:0] row_sum;
logic [SUMW-1:0] rd_total;

// Stop-Calibrate step
logic            last;
logic            met;
logic            take;

integer k_g;
integer k_a;
integer k_n;

genvar gi;

// grant: the first pending queue at or after rr_q, wrapping (only searched when it can be used)
always_comb begin
    granted  = !busy_q && (pend_q != '0);
    g_hi     = '0;
    g_lo     = '0;
    g_hi_any = 1'b0;
    k_g      = 0;
    if (granted) begin
        for (k_g = NQ-1; k_g >= 0; k_g = k_g - 1) begin
            if (pend_q[k_g]) begin
                g_lo = QIW'(k_g);
                if (QIW'(k_g) >= rr_q) begin
                    g_hi     = QIW'(k_g);
                    g_hi_any = 1'b1;
                end
            end
        end
    end
    g    = g_hi_any ? g_hi : g_lo;
    rd_q = g;
end

// candidates: not yet taken and non-zero
always_comb begin
    for (k_a = 0; k_a < NP; k_a = k_a + 1) begin
        am_valid[k_a]          = !taken_q[k_a] && (vals_q[k_a] != '0);
        am_val[k_a*CW +: CW]   = vals_q[k_a];
    end
end

capfc_v1_argmax #(
    .N(NP),
    .W(CW)
) u_argmax (
    .valid(am_valid),
    .val(am_val),
    .any(am_any),
    .mx(am_mx),
    .idx(am_idx)
);

// sum of the counter row being loaded (accumulated in a private variable, written out once)
always_comb begin
    row_sum = '0;
    for (k_n = 0; k_n < NP; k_n = k_n + 1) begin
        row_sum = row_sum + SUMW'(rd_row[k_n*CW +: CW]);
    end
    rd_total = row_sum;
end

always_comb begin
    pend_d   = (pend_q & ~clr_e & ~(granted ? (NQ'(1) << g) : '0)) | trig;
    rr_d     = rr_q;
    busy_d   = busy_q;
    qidx_d   = qidx_q;
    iter_d   = iter_q;
    cancel_d = cancel_q;
    cal_d    = cal_q;
    taken_d  = taken_q;
    sum_d    = sum_q;
    total_d  = total_q;
    load     = 1'b0;

    wr_en   = 1'b0;
    wr_q    = qidx_q;
    wr_mask = '0;

`ifdef CAPFC_V1_BUG_LATE_PAUSE
    // seeded bug: a Stop-Max sort stalls LATE_STALL cycles before it writes E (beyond the envelope)
    last = cal_q ? (iter_q == PW'(NP-1)) : (stall_q == 16'(LATE_STALL));
`else
    last = !cal_q || (iter_q == PW'(NP-1));
`endif
`ifdef CAPFC_V1_BUG_CUT_OFF_BY_ONE
    // seeded bug: > instead of >=, a sum exactly at CUT * T takes one more input
    met  = {1'b0, sum_q, {CUT_F{1'b0}}} > MW'(cfg_cut) * MW'(total_q);
`else
    met  = {1'b0, sum_q, {CUT_F{1'b0}}} >= MW'(cfg_cut) * MW'(total_q);
`endif
    take = !met && am_any;

    if (!busy_q) begin
        if (granted) begin
            load     = 1'b1;
            busy_d   = 1'b1;
            rr_d     = (g == QIW'(NQ-1)) ? '0 : g + 1'b1;
            qidx_d   = g;
            iter_d   = '0;
            cal_d    = cfg_mode_cal;
            taken_d  = '0;
            sum_d    = '0;
            total_d  = rd_total;
            cancel_d = clr_e[g];
        end
    end else begin
        if (!cal_q) begin
            // Stop-Max
            wr_mask = am_any ? (NP'(1) << am_idx) : '0;
        end else begin
            // Stop-Calibrate: one step of the cumulative scan
            taken_d = taken_q | (take ? (NP'(1) << am_idx) : '0);
            sum_d   = sum_q + (take ? SUMW'(am_mx) : '0);
            iter_d  = iter_q + 1'b1;
            wr_mask = taken_d;
        end
        if (last) begin
            wr_en  = !(cancel_q || clr_e[qidx_q]);
            busy_d = 1'b0;
        end else begin
            cancel_d = cancel_q || clr_e[qidx_q];
        end
    end
end

always_ff @(posedge clk) begin
    if (rst) begin
        pend_q   <= '0;
        rr_q     <= '0;
        busy_q   <= 1'b0;
        qidx_q   <= '0;
        iter_q   <= '0;
        cancel_q <= 1'b0;
        cal_q    <= 1'b0;
        taken_q  <= '0;
        sum_q    <= '0;
        total_q  <= '0;
    end else begin
        pend_q   <= pend_d;
        rr_q     <= rr_d;
        busy_q   <= busy_d;
        qidx_q   <= qidx_d;
        iter_q   <= iter_d;
        cancel_q <= cancel_d;
        cal_q    <= cal_d;
        taken_q  <= taken_d;
        sum_q    <= sum_d;
        total_q  <= total_d;
    end
end

// counter row snapshot, taken on a load (one block per entry: no array write inside a loop)
for (gi = 0; gi < NP; gi = gi + 1) begin : gen_vals
    always_ff @(posedge clk) begin
        if (rst) begin
            vals_q[gi] <= '0;
        end else if (load) begin
            vals_q[gi] <= rd_row[gi*CW +: CW];
        end
    end
end

endmodule

`resetall
