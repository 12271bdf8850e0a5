// capfc_v2_pkg: constants and functions of v2's modules (its copy of the block's rtl/capfc_pkg.sv)
//
// Contract (docs/microarchitecture-v2.md):
// - NPRIO: priorities per port (8). Queue q = {port, prio}.
// - ADDR_*: configuration register addresses ("Configuration registers"); the threshold arrays are
//   at ADDR_<array> + p for priority p.
// - PH_*: sort engine phase codes (ph_q): MAX=0, COPY=1, MUL=2, SRCH=3, GT=4, SEL=5.
// - units(s, cell_log2) = (s + 2^cell_log2 - 1) >> cell_log2, the units a packet of s bytes takes
//   (computed in 33 bits, so it never overflows; the callers pass SW-bit sizes and truncate to their
//   width, which holds the result since cell_log2 < SW).
// - lidx(lossless, p) = popcount(lossless & ((1 << p) - 1)): the counted class of priority p.
// - counted(lossless, p, nl) = lossless[p] && lidx(lossless, p) < nl.
// Modules call these qualified (capfc_v2_pkg::units): Yosys 0.23 does not accept a package import in a
// module header. Icarus 11 cannot cast a function call (N'(f(..)) is "not a vector type"): callers
// cast the concatenation N'({f(..)}) instead.

`resetall
`timescale 1ns / 1ps
`default_nettype none

package capfc_v2_pkg;

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

// sort engine phases (ph_q)
localparam logic [2:0] PH_MAX  = 3'd0;
localparam logic [2:0] PH_COPY = 3'd1;
localparam logic [2:0] PH_MUL  = 3'd2;
localparam logic [2:0] PH_SRCH = 3'd3;
localparam logic [2:0] PH_GT   = 3'd4;
localparam logic [2:0] PH_SEL  = 3'd5;

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

// priority p has arrival counters, sort requests and E (nl = NL, 1..8)
function automatic logic counted(input logic [7:0] lossless, input logic [2:0] p, input integer nl);
    logic [3:0] l;
    l       = lidx(lossless, p);
    counted = lossless[p] && ({28'd0, l} < $unsigned(nl));
endfunction

endpackage

`resetall
