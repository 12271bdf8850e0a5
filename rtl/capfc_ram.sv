// capfc_ram: simple dual/triple-port RAM, one write port and RP synchronous read ports (the
// block's counter RAMs)
//
// Contract (docs/microarchitecture.md, "The RAMs"):
// - State: mem[2^AW] (DW bits each) and rd_q (RP*DW bits, read port k at [k*DW +: DW]); rd = rd_q.
// - Each cycle: if we, mem[wa] <= wd; for every read port k, if re[k], rd_q[k] <= mem[ra[k]] (the
//   contents before this cycle's write: read-first), else rd_q[k] keeps its value.
// - No reset, no initial contents. The CaPFC logic never uses a read whose address is written in the
//   same cycle (it forwards instead), so a block RAM with an undefined same-address collision may
//   replace this model: mem carries (* no_rw_check *) for Yosys.
// - An ASIC team replaces this module by its SRAM macro (RP = 2: two macros with the same writes, or
//   a two-read-port register file).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module capfc_ram #(
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

    // read ports, port k at [k*AW +: AW] / [k*DW +: DW]
    input  wire [RP-1:0]     re,
    input  wire [RP*AW-1:0]  ra,
    output wire [RP*DW-1:0]  rd
);

localparam integer DEPTH = 1 << AW;

// parameter check
if (AW < 1 || AW > 16 || DW < 1 || RP < 1 || RP > 2) begin : gen_param_check
`ifdef __ICARUS__
    // Icarus 11 has no elaboration-time $error: stop at time 0 instead
    initial $fatal(1, "capfc_ram: illegal parameters AW=%0d DW=%0d RP=%0d", AW, DW, RP);
`else
    $error("capfc_ram: illegal parameters (AW 1..16, DW >= 1, RP 1..2)");
`endif
end

// state
(* no_rw_check *)
logic [DW-1:0]    mem [DEPTH] /*verilator public_flat_rd*/;
logic [RP*DW-1:0] rd_q        /*verilator public_flat_rd*/;

assign rd = rd_q;

always_ff @(posedge clk) begin
    if (we) begin
        mem[wa] <= wd;
    end
end

always_ff @(posedge clk) begin
    for (int k = 0; k < RP; k = k + 1) begin
        if (re[k]) begin
            rd_q[k*DW +: DW] <= mem[ra[k*AW +: AW]];
        end
    end
end

endmodule

`resetall
