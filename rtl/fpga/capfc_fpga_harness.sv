// capfc_fpga_harness: a CaPFC top on an FPGA through three pins, to place, route and time it (make
// fpga and make fpga-v3: the block, capfc_top_oc; make fpga-v2: the test subject v2's capfc_v2_top)
//
// The block has far more I/O bits than a device has pins, so every input of the block comes from a
// register and every output goes into one, and every path through the block is register to
// register:
// - a 64-bit LFSR (x^64 + x^63 + x^61 + x^60 + 1, the pin din XORed into its feedback) shifts 64
//   bits a cycle into the NIN-bit register chain in_q, which drives all the block's inputs but
//   the clock and the reset (configuration writes included, so they happen about every other cycle);
//   or (CAPFC_FPGA_FREE_INPUTS, make fpga FPGA_FREE_INPUTS=1) every bit of in_q toggles on its own
//   (D = ~Q, one LUT beside its flip-flop), so the placer puts each input's register by the
//   block's logic that reads it, as in a design whose units drive the block from their own
//   registers: the chain ties each bit to the bits 64 before and after it, inputs of ports far
//   apart, and at 48 ports a chain register into a group's first stage was the critical path
//   (13.4 ns on grade 6); timing is static, so what the inputs carry does not change it;
// - the reset is the AND of 8 LFSR bits, registered: asserted about one cycle in 256;
// - the NOUT output bits are registered in out_q and XOR-reduced to the pin dout by a pipelined
//   tree of 4-input XORs, one LUT4 and one register per node, so no output can be optimised away.
//
// capfc_fpga_dut maps in_bits and out_bits onto the block's ports; scripts/fpga.py generates it per
// parameter set from the top's port list (elaborated by slang) and sets NIN and NOUT to match.
// In no files.f: the simulators and the co-simulation never see this file.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_fpga_harness #(
    // input bits of the block, its clock and reset excepted
    parameter int NIN = 1,
    // output bits of the block
    parameter int NOUT = 1,
    // depth of the XOR tree: the smallest L with 4**L > NOUT
    localparam int L = ($clog2(NOUT + 1) + 1) / 2,
    // internal nodes of a complete 4-ary tree of depth L, stored as a heap (children of node i:
    // 4i+1 .. 4i+4, leaves from NINT on); the leaves past NOUT are 0 and their nodes optimised away
    localparam int NINT = ((4 ** L) - 1) / 3,
    localparam int NPAD = (4 ** L) - NOUT
) (
    input  wire clk,
    input  wire din,
    output wire dout
);

logic [63:0]          lfsr = 64'd1;
logic [NIN-1:0]       in_q = '0;
logic                 rst_q = 1'b1;
logic [NOUT-1:0]      out_w;
logic [NOUT-1:0]      out_q;
logic [NINT-1:0]      tree_q;
wire  [NINT+4**L-1:0] node = {{NPAD{1'b0}}, out_q, tree_q};

always_ff @(posedge clk) begin
    lfsr  <= {lfsr[62:0], lfsr[63] ^ lfsr[62] ^ lfsr[60] ^ lfsr[59] ^ din};
`ifdef CAPFC_FPGA_FREE_INPUTS
    in_q  <= ~in_q;
`else
    in_q  <= NIN'({in_q, lfsr});
`endif
    rst_q <= &lfsr[7:0];
    out_q <= out_w;
    for (int i = 0; i < NINT; i++) begin
        tree_q[i] <= ^node[4*i+1 +: 4];
    end
end

assign dout = tree_q[0];

// the block's reset: rst_q itself, or (CAPFC_FPGA_RST_GLOBAL, make fpga FPGA_RST_GLOBAL=1) rst_q on
// one of the ECP5's global networks through a DCCA, as an FPGA design distributes a synchronous
// reset that reaches every part of the die (the reset's one register is otherwise a net of
// thousands of loads in the fabric: the critical path at 32 ports, 13.4 ns)
wire rst_w;
`ifdef CAPFC_FPGA_RST_GLOBAL
DCCA u_rst_global (
    .CLKI(rst_q),
    .CE(1'b1),
    .CLKO(rst_w)
);
`else
assign rst_w = rst_q;
`endif

capfc_fpga_dut u_dut (
    .clk(clk),
    .rst(rst_w),
    .in_bits(in_q),
    .out_bits(out_w)
);

endmodule

`resetall
