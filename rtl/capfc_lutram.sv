// capfc_lutram: small RAM, one synchronous write port and RP asynchronous read ports
//
// Contract (docs/microarchitecture.md, "The RAMs"):
// - State: mem[2^AW] (DW bits each). No read register: rd[k] = mem[ra[k]] combinationally, the
//   contents before this cycle's write (a write shows from the next cycle).
// - Each cycle: if we, mem[wa] <= wd.
// - No reset, no initial contents: its user keeps a valid bit per word in flip-flops and never
//   uses a word it has not written since reset.
// - On an FPGA this is distributed (LUT) RAM: an ECP5 DPR16X4 or a 7-series RAM32M/RAM64M per
//   word slice, one copy per read port (the tools duplicate it). An ASIC team uses a register file.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_lutram #(
    // address width (2^AW words)
    parameter AW = 1,
    // data width
    parameter DW = 1,
    // read ports (1 or 2)
    parameter RP = 1
) (
    input  wire              clk,

    // write port (public to the lockstep, which compares each cycle's write instead of the words)
    input  wire              we /*verilator public_flat_rd*/,
    input  wire [AW-1:0]     wa /*verilator public_flat_rd*/,
    input  wire [DW-1:0]     wd /*verilator public_flat_rd*/,

    // asynchronous read ports, port k at [k*AW +: AW] / [k*DW +: DW]
    input  wire [RP*AW-1:0]  ra,
    output logic [RP*DW-1:0] rd
);

localparam integer DEPTH = 1 << AW;

// parameter check
if (AW < 1 || AW > 8 || DW < 1 || RP < 1 || RP > 2) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_lutram: illegal parameters AW=%0d DW=%0d RP=%0d", AW, DW, RP);
`else
    $error("capfc_lutram: illegal parameters (AW 1..8, DW >= 1, RP 1..2)");
`endif
end

// state
logic [DW-1:0] mem [DEPTH] /*verilator public_flat_rd*/;

always_ff @(posedge clk) begin
    if (we) begin
        mem[wa] <= wd;
    end
end

always_comb begin
    for (int k = 0; k < RP; k = k + 1) begin
        rd[k*DW +: DW] = mem[ra[k*AW +: AW]];
    end
end

endmodule

`resetall
