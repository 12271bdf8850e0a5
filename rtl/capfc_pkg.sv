// capfc_pkg: the block's constants and functions (capfc_top_oc, rtl/v3/files.f)
//
// Contract (docs/microarchitecture.md, "The configuration"):
// - NPRIO: priorities per port (8). Queue q = {port, prio}.
// - ADDR_*: configuration register addresses, the whole map; the threshold arrays are at
//   ADDR_<array> + p for priority p.
// - units(s, cell_log2) = (s + 2^cell_log2 - 1) >> cell_log2, the units a packet of s bytes takes
//   (computed in 33 bits, so it never overflows; the callers pass SW-bit sizes and truncate to their
//   width, which holds the result since cell_log2 < SW).
// - lidx(lossless, p) = popcount(lossless & ((1 << p) - 1)): the counted class of priority p.
// Modules call these qualified (capfc_pkg::units): Yosys 0.23 does not accept a package import in a
// module header. Icarus 11 cannot cast a function call (N'(f(..)) is "not a vector type"): callers
// cast the concatenation N'({f(..)}) instead.

`resetall
`timescale 1ns / 1ps
`default_nettype none

package capfc_pkg;

// priorities per port
localparam integer NPRIO = 8;

// configuration register addresses (arrays: base + priority)
localparam logic [7:0] ADDR_ING_MAX  = 8'h00;
localparam logic [7:0] ADDR_ING_XOFF = 8'h08;
localparam logic [7:0] ADDR_ING_XON  = 8'h10;
localparam logic [7:0] ADDR_EG_MAX   = 8'h18;
localparam logic [7:0] ADDR_EG_XOFF  = 8'h20;
localparam logic [7:0] ADDR_EG_XON   = 8'h28;
localparam logic [7:0] ADDR_EG_WARN  = 8'h30;
localparam logic [7:0] ADDR_LOSSLESS = 8'h38;
localparam logic [7:0] ADDR_MODE     = 8'h39;
localparam logic [7:0] ADDR_CUT      = 8'h3A;
localparam logic [7:0] ADDR_QUANTA   = 8'h3B;
localparam logic [7:0] ADDR_REFRESH  = 8'h3C;

// size in bytes to units (a unit is 2^cell_log2 bytes), rounded up
function automatic logic [31:0] units(input logic [31:0] size, input integer cell_log2);
    logic [32:0] s;
    s     = {1'b0, size} + ((33'd1 << cell_log2) - 33'd1);
    units = 32'(s >> cell_log2);
endfunction

// counted class of priority p: its rank among the lossless priorities
function automatic logic [3:0] lidx(input logic [7:0] lossless, input logic [2:0] p);
    logic [7:0] m;
    integer k;
    m    = lossless & ((8'd1 << p) - 8'd1);
    lidx = 4'd0;
    for (k = 0; k < 8; k = k + 1) begin
        lidx = lidx + {3'd0, m[k]};
    end
endfunction

endpackage

`resetall
