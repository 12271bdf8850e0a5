// capfc_v1_tb: drives the second implementation (capfc_v1_top) with the inputs of a golden vector
// set and dumps its waveform for `capfc check`. It compares nothing: judging is the checker's job.
//
// Contract:
// - The set's params.vh is `included (compile with -I <set> / +incdir+<set>); its stim.hex is read
//   line by line at run time from +GOLDEN=<dir> (default: the current directory), so a set of any
//   length streams through without a line memory.
// - Cycle c = 0 .. CAPFC_CYCLES-1 (+CYCLES=<n> overrides the count): DRIVE_DELAY after the edge that
//   ends cycle c-1 the inputs take the stim.hex line stamped c, or 0 without one. The v1 block has no
//   pfc_ready (its PFC request is a pulse the MAC must take), so that field of the line is unused.
// - +DUMP=<file> dumps capfc_v1_tb.u_dut's ports ($dumpvars(1, u_dut)): VCD under Icarus (FST with
//   `vvp -fst`), the format the Verilator build was made with (--trace or --trace-fst).
// - +TRACE=<file> writes one line per cycle, the outputs sampled SAMPLE_LEAD before the edge:
//   `cycle arr_accept enq_accept pfc_valid pfc_cev pfc_quanta d_state`, hexadecimal, so that two
//   builds (a clean one and one with a seeded bug) can be compared for the first difference.
// - A malformed stim.hex line stops the run with $fatal naming the file and the line.
// - Seeded bugs are compiled in with -DCAPFC_V1_BUG_<NAME> (check/capfc_v1/README.md lists them).
// - With -DCAPFC_V1_TEAM (and check/capfc_v1/team/team_pfc.sv) u_dut is the same block behind
//   another team's names and encodings (4-port sets only); the trace is the same.

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "params.vh"

module capfc_v1_tb;

localparam NP = `CAPFC_NP;
localparam SW = `CAPFC_SW;
localparam OW = `CAPFC_OW;
localparam CW = `CAPFC_CW;
localparam CELL_LOG2 = `CAPFC_CELL_LOG2;
localparam CUT_F = `CAPFC_CUT_F;
localparam PW = (NP > 1) ? $clog2(NP) : 1;
localparam NQ = NP*8;
localparam IN_BITS = `CAPFC_IN_BITS;
localparam IN_DIGITS = (IN_BITS + 3) / 4;
localparam LINE_W = 32 + 4*IN_DIGITS;

localparam PERIOD = 10;
localparam DRIVE_DELAY = 1;
localparam SAMPLE_LEAD = 1;


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
/* verilator lint_off UNUSEDSIGNAL */
// the golden format carries our block's pfc_ready; the v1 block has none
wire [NP-1:0]     unused_ready;
/* verilator lint_on UNUSEDSIGNAL */

assign {rst, cfg_we, cfg_addr, cfg_wdata, arr_valid, arr_prio, arr_size,
        dep_valid, dep_port, dep_prio, dep_size,
        enq_valid, enq_oport, enq_prio, enq_iport, enq_size,
        deq_valid, deq_prio, deq_size, unused_ready} = stim_q;

wire [NP-1:0]     arr_accept;
wire              enq_accept;
wire [NP-1:0]     pfc_valid;
wire [NQ-1:0]     pfc_cev;
wire [NQ*16-1:0]  pfc_quanta;
wire [NQ-1:0]     d_state;

`ifdef CAPFC_V1_TEAM
// the same block behind team_pfc's names and encodings (check/capfc_v1/team), at 4 ports
if (NP != 4) begin : gen_team_np
    initial $fatal(1, "capfc_v1_tb: CAPFC_V1_TEAM needs a 4-port set");
end
wire [31:0] pause_tc;
// the XOFF vectors are for the map (pfc.xoff); the trace carries the pause times
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] team_xoff [4];
/* verilator lint_on UNUSEDSIGNAL */
for (genvar i = 0; i < 4; i = i + 1) begin : gen_team_d
    for (genvar p = 0; p < 8; p = p + 1) begin : gen_team_p
        assign d_state[i*8 + p] = pause_tc[p*4 + i];
    end
end
team_pfc #(
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F)
) u_dut (
    .clk_core(clk),
    .rst_core_n(!rst),
    .csr_wr(cfg_we),
    .csr_addr(cfg_addr),
    .csr_wdata(cfg_wdata),
    .rx0_valid(arr_valid[0]), .rx1_valid(arr_valid[1]), .rx2_valid(arr_valid[2]), .rx3_valid(arr_valid[3]),
    .rx0_tc(arr_prio[2:0]), .rx1_tc(arr_prio[5:3]), .rx2_tc(arr_prio[8:6]), .rx3_tc(arr_prio[11:9]),
    .rx0_len(arr_size[0*SW +: SW]), .rx1_len(arr_size[1*SW +: SW]),
    .rx2_len(arr_size[2*SW +: SW]), .rx3_len(arr_size[3*SW +: SW]),
    .rx0_admit(arr_accept[0]), .rx1_admit(arr_accept[1]), .rx2_admit(arr_accept[2]),
    .rx3_admit(arr_accept[3]),
    .ing_free_valid(dep_valid),
    .ing_free_port(dep_port[1:0]),
    .ing_free_tc(dep_prio),
    .ing_free_len(dep_size),
    .eg_push_valid(enq_valid),
    .eg_push_out(enq_oport[1:0]),
    .eg_push_in(enq_iport[1:0]),
    .eg_push_tc(enq_prio),
    .eg_push_len(enq_size),
    .eg_push_admit(enq_accept),
    .tx0_pop(deq_valid[0]), .tx1_pop(deq_valid[1]), .tx2_pop(deq_valid[2]), .tx3_pop(deq_valid[3]),
    .tx0_tc(deq_prio[2:0]), .tx1_tc(deq_prio[5:3]), .tx2_tc(deq_prio[8:6]), .tx3_tc(deq_prio[11:9]),
    .tx0_len(deq_size[0*SW +: SW]), .tx1_len(deq_size[1*SW +: SW]),
    .tx2_len(deq_size[2*SW +: SW]), .tx3_len(deq_size[3*SW +: SW]),
    .pause_tc(pause_tc),
    .p0_pfc_req(pfc_valid[0]), .p1_pfc_req(pfc_valid[1]), .p2_pfc_req(pfc_valid[2]),
    .p3_pfc_req(pfc_valid[3]),
    .p0_pfc_en(pfc_cev[7:0]), .p1_pfc_en(pfc_cev[15:8]), .p2_pfc_en(pfc_cev[23:16]),
    .p3_pfc_en(pfc_cev[31:24]),
    .p0_pfc_xoff(team_xoff[0]), .p1_pfc_xoff(team_xoff[1]), .p2_pfc_xoff(team_xoff[2]),
    .p3_pfc_xoff(team_xoff[3]),
    .p0_pfc_time(pfc_quanta[0*128 +: 128]), .p1_pfc_time(pfc_quanta[1*128 +: 128]),
    .p2_pfc_time(pfc_quanta[2*128 +: 128]), .p3_pfc_time(pfc_quanta[3*128 +: 128])
);
`else
capfc_v1_top #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F)
) u_dut (
    .clk(clk),
    .rst(rst),
    .cfg_we(cfg_we),
    .cfg_addr(cfg_addr),
    .cfg_wdata(cfg_wdata),
    .arr_valid(arr_valid),
    .arr_prio(arr_prio),
    .arr_size(arr_size),
    .dep_valid(dep_valid),
    .dep_port(dep_port),
    .dep_prio(dep_prio),
    .dep_size(dep_size),
    .enq_valid(enq_valid),
    .enq_oport(enq_oport),
    .enq_prio(enq_prio),
    .enq_iport(enq_iport),
    .enq_size(enq_size),
    .deq_valid(deq_valid),
    .deq_prio(deq_prio),
    .deq_size(deq_size),
    .arr_accept(arr_accept),
    .enq_accept(enq_accept),
    .pfc_valid(pfc_valid),
    .pfc_cev(pfc_cev),
    .pfc_quanta(pfc_quanta),
    .d_state(d_state)
);
`endif

`ifdef CAPFC_V1_SCOREBOARD
`define CAPFC_V1_ADAPTER
`endif
`ifdef CAPFC_V1_PROPS
`define CAPFC_V1_ADAPTER
`endif
`ifdef CAPFC_V1_ADAPTER
// The adapter to capfc_v2_top's PFC outputs: the paused classes are those with a non-zero pause time,
// and the pause time is the one they carry.
logic [NQ-1:0] sb_xoff;
logic [15:0] sb_quanta;
always @(*) begin
    sb_quanta = '0;
    for (int q = 0; q < NQ; q = q + 1) begin
        sb_xoff[q] = pfc_quanta[q*16 +: 16] != 16'd0;
        sb_quanta = sb_quanta | pfc_quanta[q*16 +: 16];
    end
end
`endif

`ifdef CAPFC_V1_PROPS
// capfc's rule assertions (check/sva/capfc_props.sv) with the v1 timing: the pulse is always
// taken, a frame carries D of the cycle before.
int props_errors;
capfc_props #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CELL_LOG2(CELL_LOG2),
    .ING_MIN(1),
    .ING_MAX(1),
    .E_CLEAR_MAX(1),
    .FRAME_MIN(1),
    .FRAME_MAX(1),
    .REF_MAX(1)
) u_props (
    .clk(clk), .rst(rst), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
    .arr_valid(arr_valid), .arr_prio(arr_prio), .arr_size(arr_size),
    .dep_valid(dep_valid), .dep_port(dep_port), .dep_prio(dep_prio), .dep_size(dep_size),
    .enq_valid(enq_valid), .enq_oport(enq_oport), .enq_prio(enq_prio), .enq_iport(enq_iport),
    .enq_size(enq_size), .deq_valid(deq_valid), .deq_prio(deq_prio), .deq_size(deq_size),
    .pfc_ready({NP{1'b1}}), .arr_accept(arr_accept), .enq_accept(enq_accept),
    .pfc_valid(pfc_valid), .pfc_cev(pfc_cev), .pfc_xoff(sb_xoff), .d_state(d_state),
    .errors(props_errors)
);
final $display("capfc_props: %0d failed checks", props_errors);
`endif

`ifdef CAPFC_V1_SCOREBOARD
// capfc's reference checker beside the block through DPI-C (`capfc gen-sv` for the set's
// parameters; link libcapfc_capi.a), with the v1 envelope (+define+CAPFC_V1_ENVELOPE="<path>").
// The adapter to capfc_v2_top's port layout: the pulse is always taken (pfc_ready all ones), the
// paused classes are those with a non-zero pause time, and the pause time is the one they carry.
`ifndef CAPFC_V1_ENVELOPE
`define CAPFC_V1_ENVELOPE "check/capfc_v1/capfc_v1.timing.toml"
`endif
// the scoreboard raises $error itself; its count is there for a testbench that wants it
/* verilator lint_off UNUSEDSIGNAL */
longint sb_violations;
/* verilator lint_on UNUSEDSIGNAL */
capfc_scoreboard #(
    .ENVELOPE(`CAPFC_V1_ENVELOPE)
) u_scoreboard (
    .clk(clk),
    .in_bits({stim_q[IN_BITS-1:NP], {NP{1'b1}}}),
    .out_bits({arr_accept, enq_accept, pfc_valid, pfc_cev, sb_xoff, sb_quanta, d_state}),
    .violations(sb_violations)
);
`endif

string dir;
string stim_path;
string dump_path;
string trace_path;
integer cycles;
integer fd;
integer trace_fd;
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
    stim_q = '0;
    line_no = 0;
    if (!$value$plusargs("GOLDEN=%s", dir)) dir = ".";
    if (!$value$plusargs("CYCLES=%d", cycles)) cycles = `CAPFC_CYCLES;
    stim_path = {dir, "/stim.hex"};
    fd = $fopen(stim_path, "r");
    if (fd == 0) $fatal(1, "%s: cannot open", stim_path);
    trace_fd = 0;
    if ($value$plusargs("TRACE=%s", trace_path)) begin
        trace_fd = $fopen(trace_path, "w");
        if (trace_fd == 0) $fatal(1, "%s: cannot write", trace_path);
    end
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
            stim_q = '0;
        end
        #(PERIOD - DRIVE_DELAY - SAMPLE_LEAD);
        if (trace_fd != 0) begin
            $fwrite(trace_fd, "%0d %h %h %h %h %h %h\n", c, arr_accept, enq_accept, pfc_valid,
                pfc_cev, pfc_quanta, d_state);
        end
        #(SAMPLE_LEAD);
    end
    #(DRIVE_DELAY);
    $fclose(fd);
    if (trace_fd != 0) $fclose(trace_fd);
    $display("capfc_v1_tb: %0d cycles", cycles);
    $finish;
end

endmodule

`resetall
