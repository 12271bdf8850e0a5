// capfc_wrap_delay: a delay line of STAGES registers (STAGES = 0: a wire), for the wrappers of
// check/wrap that register a block's outputs the way an FPGA team retimes them.
//
// Contract:
// - q in cycle t is d of cycle t - STAGES (STAGES = 0: the same cycle, combinational).
// - Synchronous active-high rst clears every stage: q is 0 from the cycle after a reset until
//   STAGES cycles after it ends (d of the reset's last cycle and before never shows).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_wrap_delay #(
    // width of the delayed signal
    parameter W = 1,
    // number of register stages (0: a wire)
    parameter STAGES = 1
) (
    input  wire          clk,
    input  wire          rst,
    input  wire [W-1:0]  d,
    output wire [W-1:0]  q
);

if (W < 1 || STAGES < 0) begin : gen_param_check
`ifdef __ICARUS__
    initial $fatal(1, "capfc_wrap_delay: illegal parameters W=%0d STAGES=%0d", W, STAGES);
`else
    $error("capfc_wrap_delay: illegal parameters (W >= 1, STAGES >= 0)");
`endif
end

if (STAGES == 0) begin : gen_wire
    assign q = d;
    // (a wire has no state to reset)
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_clk_rst = clk ^ rst;
    /* verilator lint_on UNUSEDSIGNAL */
end else begin : gen_regs
    // stage k holds d of k + 1 cycles ago
    logic [W-1:0] stage_q [STAGES];
    for (genvar k = 0; k < STAGES; k = k + 1) begin : gen_stage
        logic [W-1:0] stage_d;
        if (k == 0) begin : gen_first
            assign stage_d = d;
        end else begin : gen_next
            assign stage_d = stage_q[k-1];
        end
        always_ff @(posedge clk) begin
            if (rst) begin
                stage_q[k] <= '0;
            end else begin
                stage_q[k] <= stage_d;
            end
        end
    end
    assign q = stage_q[STAGES-1];
end

endmodule

`resetall
