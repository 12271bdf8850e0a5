// capfc_wrap_tb: drives a wrapper of check/wrap with the inputs of a golden vector set and dumps its
// waveform for `capfc check`. It compares nothing: judging is the checker's job.
//
// Contract:
// - The set's params.vh is `included (compile with -I <set>): a v3 set (format 3, CAPFC_V3
//   defined) drives capfc_v3_wrap (compile rtl/v3/files.f), any other capfc_v1_wrap (compile
//   check/capfc_v1/rtl). +define+CAPFC_WRAP_STAGES=<n> sets the wrapper's STAGES (default 0).
// - stim.hex is read line by line at run time from +GOLDEN=<dir> (default: the current
//   directory), so a set of any length streams through without a line memory.
// - Cycle c = 0 .. CAPFC_CYCLES-1 (+CYCLES=<n> overrides the count): DRIVE_DELAY after the edge
//   that ends cycle c-1 the inputs take the stim.hex line stamped c; without one, every input is 0
//   but pfc_ready (a level), which keeps the value of the last line (all ones before the first).
//   capfc_v1_wrap has no pfc_ready (its PFC request is a pulse): that field is unused for it.
// - +DUMP=<file> dumps capfc_wrap_tb.u_dut's ports ($dumpvars(1, u_dut)).
// - A malformed stim.hex line stops the run with $fatal naming the file and the line.
// - Seeded bugs of capfc_v1 (-DCAPFC_V1_BUG_<NAME>) and its other order (-DCAPFC_V1_ADD_FIRST)
//   reach the wrapped block as they reach it alone.

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "params.vh"

`ifndef CAPFC_WRAP_STAGES
`define CAPFC_WRAP_STAGES 0
`endif

module capfc_wrap_tb;

localparam NP = `CAPFC_NP;
localparam SW = `CAPFC_SW;
localparam OW = `CAPFC_OW;
localparam CW = `CAPFC_CW;
localparam CELL_LOG2 = `CAPFC_CELL_LOG2;
localparam CUT_F = `CAPFC_CUT_F;
localparam STAGES = `CAPFC_WRAP_STAGES;
localparam PW = (NP > 1) ? $clog2(NP) : 1;
localparam NQ = NP*8;
localparam IN_BITS = `CAPFC_IN_BITS;
localparam IN_DIGITS = (IN_BITS + 3) / 4;
localparam LINE_W = 32 + 4*IN_DIGITS;
// pfc_ready is the last, least significant field of the input concatenation
localparam [IN_BITS-1:0] READY_MASK = {{(IN_BITS-NP){1'b0}}, {NP{1'b1}}};

localparam PERIOD = 10;
localparam DRIVE_DELAY = 1;

reg clk;
initial begin
    clk = 1'b0;
    #(PERIOD);
    forever begin
        clk = 1'b1;
        #(PERIOD/2);
        clk = 1'b0;
        #(PERIOD - PERIOD/2);
    end
end

reg [IN_BITS-1:0] stim_q;

wire              rst;
wire              cfg_we;
wire [7:0]        cfg_addr;
wire [31:0]       cfg_wdata;
wire [NP-1:0]     arr_valid;
wire [NP*3-1:0]   arr_prio;
wire [NP*SW-1:0]  arr_size;
wire              dep_valid;
wire [PW-1:0]     dep_port;
wire [2:0]        dep_prio;
wire [SW-1:0]     dep_size;
wire              enq_valid;
wire [PW-1:0]     enq_oport;
wire [2:0]        enq_prio;
wire [PW-1:0]     enq_iport;
wire [SW-1:0]     enq_size;
wire [NP-1:0]     deq_valid;
wire [NP*3-1:0]   deq_prio;
wire [NP*SW-1:0]  deq_size;
wire [NP-1:0]     pfc_ready;

assign {rst, cfg_we, cfg_addr, cfg_wdata, arr_valid, arr_prio, arr_size,
        dep_valid, dep_port, dep_prio, dep_size,
        enq_valid, enq_oport, enq_prio, enq_iport, enq_size,
        deq_valid, deq_prio, deq_size, pfc_ready} = stim_q;

// the outputs: the waveform is what the checker reads
/* verilator lint_off UNUSEDSIGNAL */
wire [NP-1:0]     arr_accept;
wire              enq_accept;
wire [NP-1:0]     pfc_valid;
wire [NQ-1:0]     pfc_cev;
wire [NQ-1:0]     d_state;
/* verilator lint_on UNUSEDSIGNAL */

`ifdef CAPFC_V3
/* verilator lint_off UNUSEDSIGNAL */
wire [NP-1:0]     arr_ready;
wire [NP-1:0]     deq_ready;
wire [NQ-1:0]     pfc_xoff;
wire [15:0]       pfc_quanta;
/* verilator lint_on UNUSEDSIGNAL */
capfc_v3_wrap #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F),
    .NL(`CAPFC_NL),
    .STAGES(STAGES)
) u_dut (
    .clk(clk), .rst(rst), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
    .arr_valid(arr_valid), .arr_prio(arr_prio), .arr_size(arr_size),
    .dep_valid(dep_valid), .dep_port(dep_port), .dep_prio(dep_prio), .dep_size(dep_size),
    .enq_valid(enq_valid), .enq_oport(enq_oport), .enq_prio(enq_prio), .enq_iport(enq_iport),
    .enq_size(enq_size), .deq_valid(deq_valid), .deq_prio(deq_prio), .deq_size(deq_size),
    .pfc_ready(pfc_ready), .arr_ready(arr_ready), .deq_ready(deq_ready),
    .arr_accept(arr_accept), .enq_accept(enq_accept),
    .pfc_valid(pfc_valid), .pfc_cev(pfc_cev), .pfc_xoff(pfc_xoff), .pfc_quanta(pfc_quanta),
    .d_state(d_state)
);
`else
/* verilator lint_off UNUSEDSIGNAL */
wire [NQ*16-1:0]  pfc_quanta;
// (the v1 block's pulse has no ready)
wire [NP-1:0]     unused_ready = pfc_ready;
/* verilator lint_on UNUSEDSIGNAL */
capfc_v1_wrap #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F),
    .STAGES(STAGES)
) u_dut (
    .clk(clk), .rst(rst), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
    .arr_valid(arr_valid), .arr_prio(arr_prio), .arr_size(arr_size),
    .dep_valid(dep_valid), .dep_port(dep_port), .dep_prio(dep_prio), .dep_size(dep_size),
    .enq_valid(enq_valid), .enq_oport(enq_oport), .enq_prio(enq_prio), .enq_iport(enq_iport),
    .enq_size(enq_size), .deq_valid(deq_valid), .deq_prio(deq_prio), .deq_size(deq_size),
    .arr_accept(arr_accept), .enq_accept(enq_accept),
    .pfc_valid(pfc_valid), .pfc_cev(pfc_cev), .pfc_quanta(pfc_quanta), .d_state(d_state)
);
`endif

string dir;
string stim_path;
string dump_path;
integer cycles;
integer fd;
integer line_no;
integer c;
integer n;
reg [LINE_W-1:0] word;
reg [31:0] next_cycle;
reg [IN_BITS-1:0] next_stim;
reg have_next;

// Reads the next data line of stim.hex into next_cycle/next_stim (have_next = 0 at the end).
// A line starting with '/' is a comment and is skipped whole; a data line is one hex token
// (digits and '_') and its line end.
task automatic read_next;
    integer ch;
    begin
        have_next = 1'b0;
        ch = $fgetc(fd);
        while (!have_next && ch != -1) begin
            line_no = line_no + 1;
            if (ch == "/") begin
                while (ch != -1 && ch != 10) ch = $fgetc(fd);
                ch = $fgetc(fd);
            end else if (ch == 10) begin
                ch = $fgetc(fd);
            end else begin
                n = $ungetc(ch, fd);
                if (n == -1) $fatal(1, "%s:%0d: cannot read", stim_path, line_no);
                word = '0;
                if ($fscanf(fd, "%h", word) != 1) begin
                    $fatal(1, "%s:%0d: not a golden data line", stim_path, line_no);
                end
                ch = $fgetc(fd);
                if (ch == 13) ch = $fgetc(fd);
                if (ch != 10) begin
                    $fatal(1, "%s:%0d: junk after the data token", stim_path, line_no);
                end
                next_cycle = word[LINE_W-1 -: 32];
                next_stim = word[IN_BITS-1:0];
                have_next = 1'b1;
            end
        end
    end
endtask

initial begin
    stim_q = READY_MASK;
    line_no = 0;
    if (!$value$plusargs("GOLDEN=%s", dir)) dir = ".";
    if (!$value$plusargs("CYCLES=%d", cycles)) cycles = `CAPFC_CYCLES;
    stim_path = {dir, "/stim.hex"};
    fd = $fopen(stim_path, "r");
    if (fd == 0) $fatal(1, "%s: cannot open", stim_path);
    if ($value$plusargs("DUMP=%s", dump_path)) begin
        $dumpfile(dump_path);
        $dumpvars(1, u_dut);
    end
    read_next();
    for (c = 0; c < cycles; c = c + 1) begin
        #(DRIVE_DELAY);
        if (have_next && next_cycle < c) begin
            $fatal(1, "%s:%0d: cycle %0d is not after the previous line", stim_path, line_no,
                next_cycle);
        end
        if (have_next && next_cycle == c) begin
            stim_q = next_stim;
            read_next();
        end else begin
            stim_q = stim_q & READY_MASK;
        end
        #(PERIOD - DRIVE_DELAY);
    end
    #(DRIVE_DELAY);
    $fclose(fd);
    $display("capfc_wrap_tb: %0d cycles, STAGES=%0d", cycles, STAGES);
    $finish;
end

endmodule

`resetall
