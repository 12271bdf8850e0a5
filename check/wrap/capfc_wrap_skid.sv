// capfc_wrap_skid: one pipeline stage of a valid/ready stream with a skid buffer: every output
// registered, ready included, at full throughput.
//
// Contract:
// - A word is taken at s_* when s_valid && s_ready and leaves at m_* when m_valid && m_ready, in
//   order, never lost or duplicated. The stage holds up to two words: the output register and the
//   skid register, which catches the word taken in a cycle the output is stalled.
// - s_ready = the skid register is empty (a register: no combinational path from m_ready).
// - Latency: a word taken in cycle t is offered at m_* from t + 1. Throughput: one word a cycle
//   while m_ready stays high.
// - Synchronous active-high rst empties the stage (the valid bits; the data registers are not
//   reset: they are read only with their valid bit).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_wrap_skid #(
    // width of a word
    parameter W = 1
) (
    input  wire          clk,
    input  wire          rst,

    // in
    input  wire          s_valid,
    output wire          s_ready,
    input  wire [W-1:0]  s_data,

    // out
    output wire          m_valid,
    input  wire          m_ready,
    output wire [W-1:0]  m_data
);

if (W < 1) begin : gen_param_check
`ifdef __ICARUS__
    initial $fatal(1, "capfc_wrap_skid: illegal parameter W=%0d", W);
`else
    $error("capfc_wrap_skid: illegal parameter (W >= 1)");
`endif
end

logic          out_valid_q, out_valid_d;
logic [W-1:0]  out_data_q, out_data_d;
logic          skid_valid_q, skid_valid_d;
logic [W-1:0]  skid_data_q, skid_data_d;
logic          take;
logic          out_free;

assign s_ready = !skid_valid_q;
assign m_valid = out_valid_q;
assign m_data  = out_data_q;

always_comb begin
    take         = s_valid && !skid_valid_q;
    out_free     = !out_valid_q || m_ready;
    out_valid_d  = out_valid_q;
    out_data_d   = out_data_q;
    skid_valid_d = skid_valid_q;
    skid_data_d  = skid_data_q;
    if (out_free) begin
        if (skid_valid_q) begin
            // the older word first (s_ready is low: nothing is taken this cycle)
            out_valid_d  = 1'b1;
            out_data_d   = skid_data_q;
            skid_valid_d = 1'b0;
        end else begin
            out_valid_d  = take;
            out_data_d   = take ? s_data : out_data_q;
        end
    end else if (take) begin
        // the output is stalled: the word taken waits in the skid register
        skid_valid_d = 1'b1;
        skid_data_d  = s_data;
    end
end

always_ff @(posedge clk) begin
    if (rst) begin
        out_valid_q <= 1'b0;
    end else begin
        out_valid_q <= out_valid_d;
    end
end

always_ff @(posedge clk) begin
    out_data_q <= out_data_d;
end

always_ff @(posedge clk) begin
    if (rst) begin
        skid_valid_q <= 1'b0;
    end else begin
        skid_valid_q <= skid_valid_d;
    end
end

always_ff @(posedge clk) begin
    skid_data_q <= skid_data_d;
end

endmodule

`resetall
