// capfc_tb: replays one golden vector set (docs/golden.md) against capfc_v2_top, no Rust needed
//
// A set of the v3 block (format 3: its params.vh defines CAPFC_V3) is replayed against
// capfc_top_oc instead (compile rtl/v3/files.f), whose two more outputs, arr_ready and deq_ready,
// lead the output concatenation and are compared like the others.
//
// Contract:
// - The set is a directory with params.vh, stim.hex and expect.hex. params.vh is `included (pass
//   +incdir+<dir> / -I <dir> when compiling); the .hex files are read at run time from the
//   directory named by the plusarg +GOLDEN=<dir> (default: the current directory).
// - Shared builds: compiled with +define+CAPFC_LINES_MAX=<n>, one build serves every set of the
//   same block parameters (params.vh's NP .. NL, IN_BITS, OUT_BITS): the run then takes the set's
//   CAPFC_CYCLES, CAPFC_STIM_LINES and CAPFC_EXPECT_LINES from the plusargs +CYCLES=, +STIM_LINES=
//   and +EXPECT_LINES= (make replay passes them from the set's params.vh), and refuses a set with
//   more than <n> lines. Without the define those three come from params.vh at compile time.
// - Before the first cycle both files are checked: each must hold exactly CAPFC_STIM_LINES /
//   CAPFC_EXPECT_LINES data lines (lines starting with a hex digit), each of 8 + 1 + ceil(BITS/4)
//   characters and ended by a line end, stamped in strictly increasing cycle order below
//   CAPFC_CYCLES, with no bit set above the concatenation; expect.hex must start at cycle 0. A
//   missing, truncated, overlong or malformed file stops the run with $fatal naming the file and
//   the line. So does a CAPFC_IN_BITS / CAPFC_OUT_BITS that is not the width of capfc_v2_top's ports
//   at these parameters.
// - Cycle c = 0 .. CAPFC_CYCLES-1 (the rising edge at (c+1)*PERIOD ends cycle c):
//   DRIVE_DELAY after the previous edge the inputs take the stim.hex line stamped c; without one,
//   every input is 0 but pfc_ready (a level), which keeps the value of the last line (all ones
//   before the first line); SAMPLE_LEAD before the next edge all seven outputs are compared with
//   the last expect.hex line stamped <= c. A cycle passes when every port matches (4-state: an X
//   or Z never matches), with one exception: until the DUT has seen a rising edge with rst = 1,
//   its registers hold the simulator's power-up value (X under Icarus, 0 under Verilator), so X/Z
//   output bits are not compared then; their known bits still are.
// - Each differing port prints `cycle C: <port> expected <hex> got <hex>`, both values in full
//   width (the first 50 such lines; +MAX_REPORTS=<n> changes the cap, counting goes on). The run
//   ends with exactly one line `N passed, N failed` (cycles), then $finish when no cycle failed,
//   else $fatal: exit status 1 under Icarus vvp, abort (134) under a Verilator --binary model.

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "params.vh"

module capfc_tb;

// block parameters of the set
localparam NP = `CAPFC_NP;
localparam SW = `CAPFC_SW;
localparam OW = `CAPFC_OW;
localparam CW = `CAPFC_CW;
localparam CELL_LOG2 = `CAPFC_CELL_LOG2;
localparam CUT_F = `CAPFC_CUT_F;
localparam NL = `CAPFC_NL;
// port index width and number of (port, priority) queues, as in capfc_v2_top
localparam PW = (NP > 1) ? $clog2(NP) : 1;
localparam NQ = NP*8;

// widths of the input and output concatenations, as the set declares them
localparam IN_BITS = `CAPFC_IN_BITS;
localparam OUT_BITS = `CAPFC_OUT_BITS;
// the same widths computed from capfc_v2_top's ports (docs/golden.md lists the order)
localparam IN_BITS_PORTS = 1 + 1 + 8 + 32 + NP*(1 + 3 + SW) + (1 + PW + 3 + SW) +
    (1 + PW + 3 + PW + SW) + NP*(1 + 3 + SW) + NP;
`ifdef CAPFC_V3
`define CAPFC_TB_TOP "capfc_top_oc"
localparam OUT_BITS_PORTS = NP + NP + NP + 1 + NP + NQ + NQ + 16 + NQ;
`else
`define CAPFC_TB_TOP "capfc_v2_top"
localparam OUT_BITS_PORTS = NP + 1 + NP + NQ + NQ + 16 + NQ;
`endif

// length of the run and of the two files, and the capacity of the line memories
`ifdef CAPFC_LINES_MAX
localparam STIM_CAP = `CAPFC_LINES_MAX;
localparam EXPECT_CAP = `CAPFC_LINES_MAX;
integer CYCLES;
integer STIM_LINES;
integer EXPECT_LINES;
`else
localparam CYCLES = `CAPFC_CYCLES;
localparam STIM_LINES = `CAPFC_STIM_LINES;
localparam EXPECT_LINES = `CAPFC_EXPECT_LINES;
localparam STIM_CAP = STIM_LINES;
localparam EXPECT_CAP = EXPECT_LINES;
`endif

// clock period, and where in it the inputs change and the outputs are sampled (ns)
localparam PERIOD = 10;
localparam DRIVE_DELAY = 1;
localparam SAMPLE_LEAD = 1;

// default number of mismatch lines printed
localparam MAX_REPORTS_DEFAULT = 50;

// A data line is 8 hex digits of cycle, then the concatenation in whole hex digits: the cycle
// stamp sits at bit 4*<digits>, above the concatenation's unused (zero) high bits.
localparam IN_DIGITS = (IN_BITS + 3) / 4;
localparam OUT_DIGITS = (OUT_BITS + 3) / 4;

// characters $fgets reads at a time when counting the data lines of a file
localparam LINE_CHUNK = 256;

// pfc_ready is the last, least significant port of the input concatenation: this mask selects it
localparam [IN_BITS-1:0] READY_MASK = {{(IN_BITS-NP){1'b0}}, {NP{1'b1}}};

// the two files, one word per data line
reg [32+4*IN_DIGITS-1:0]  stim_mem   [0:STIM_CAP-1];
reg [32+4*OUT_DIGITS-1:0] expect_mem [0:EXPECT_CAP-1];

// clock: low until the first rising edge at PERIOD, then rising edges at 2*PERIOD, 3*PERIOD, ...
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

// the inputs of the current cycle and the expectation in force, as the files pack them; the
// inputs of a cycle without a stim.hex line (0 but pfc_ready of the last line)
reg [IN_BITS-1:0]  stim_q;
reg [IN_BITS-1:0]  held_q;
reg [OUT_BITS-1:0] expect_q;

// DUT inputs
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

// DUT outputs
`ifdef CAPFC_V3
wire [NP-1:0]     arr_ready;
wire [NP-1:0]     deq_ready;
`endif
wire [NP-1:0]     arr_accept;
wire              enq_accept;
wire [NP-1:0]     pfc_valid;
wire [NQ-1:0]     pfc_cev;
wire [NQ-1:0]     pfc_xoff;
wire [15:0]       pfc_quanta;
wire [NQ-1:0]     d_state;

// expected outputs
`ifdef CAPFC_V3
wire [NP-1:0]     exp_arr_ready;
wire [NP-1:0]     exp_deq_ready;
`endif
wire [NP-1:0]     exp_arr_accept;
wire              exp_enq_accept;
wire [NP-1:0]     exp_pfc_valid;
wire [NQ-1:0]     exp_pfc_cev;
wire [NQ-1:0]     exp_pfc_xoff;
wire [15:0]       exp_pfc_quanta;
wire [NQ-1:0]     exp_d_state;

`ifdef CAPFC_V3
assign {exp_arr_ready, exp_deq_ready, exp_arr_accept, exp_enq_accept, exp_pfc_valid, exp_pfc_cev, exp_pfc_xoff, exp_pfc_quanta,
        exp_d_state} = expect_q;
`else
assign {exp_arr_accept, exp_enq_accept, exp_pfc_valid, exp_pfc_cev, exp_pfc_xoff, exp_pfc_quanta,
        exp_d_state} = expect_q;
`endif

`ifdef CAPFC_V3
capfc_top_oc #(
`else
capfc_v2_top #(
`endif
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CW(CW),
    .CELL_LOG2(CELL_LOG2),
    .CUT_F(CUT_F),
    .NL(NL)
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
    .pfc_ready(pfc_ready),
`ifdef CAPFC_V3
    .arr_ready(arr_ready),
    .deq_ready(deq_ready),
`endif
    .arr_accept(arr_accept),
    .enq_accept(enq_accept),
    .pfc_valid(pfc_valid),
    .pfc_cev(pfc_cev),
    .pfc_xoff(pfc_xoff),
    .pfc_quanta(pfc_quanta),
    .d_state(d_state)
);

// run state
string       golden_dir;
string       dump_path;
string       stim_path;
string       expect_path;
integer      max_reports;
integer      cycle;
integer      stim_idx;
integer      expect_idx;
integer      passed;
integer      failed;
integer      reports;
reg          reset_seen;
reg          cycle_bad;

`ifdef CAPFC_SCOREBOARD
// capfc's reference checker beside the block, through DPI-C (`capfc gen-sv`; compile with
// capfc_dpi.sv and capfc_scoreboard.sv, link libcapfc_capi.a): it judges the block's answers by
// the paper's rules within capfc_v2_top's own timing, independently of expect.hex. +SB_FLIP=<c>
// flips D[0].p5 as the scoreboard sees it from its cycle c on (a stand-in for a bug in the block,
// which the scoreboard must report at cycle c).
// the scoreboard raises $error itself; its count is there for a testbench that wants it
/* verilator lint_off UNUSEDSIGNAL */
longint sb_violations;
/* verilator lint_on UNUSEDSIGNAL */
integer sb_flip;
integer sb_cycle;
reg [NQ-1:0] sb_d;
initial begin
    sb_cycle = 0;
    if (!$value$plusargs("SB_FLIP=%d", sb_flip)) sb_flip = -1;
end
// the scoreboard's cycle count: its edges so far
always @(posedge clk) sb_cycle <= sb_cycle + 1;
always @(*) begin
    sb_d = d_state;
    if (sb_flip >= 0 && sb_cycle >= sb_flip) sb_d[5] = !d_state[5];
end
// the block's outputs as the scoreboard takes them (`capfc gen-sv [--block v3]`), D given
`ifdef CAPFC_V3
`define CAPFC_SB_OUT(d) {arr_ready, deq_ready, arr_accept, enq_accept, pfc_valid, pfc_cev, pfc_xoff, pfc_quanta, d}
`else
`define CAPFC_SB_OUT(d) {arr_accept, enq_accept, pfc_valid, pfc_cev, pfc_xoff, pfc_quanta, d}
`endif
capfc_scoreboard u_scoreboard (
    .clk(clk),
    .in_bits(stim_q),
    .out_bits(`CAPFC_SB_OUT(sb_d)),
    .violations(sb_violations)
);
`ifdef CAPFC_SCOREBOARD_TWO
// A second scoreboard in the same simulation, on the unflipped outputs: two checkers side by side
// must not interfere (it reports nothing while the first reports the flip).
/* verilator lint_off UNUSEDSIGNAL */
longint sb2_violations;
/* verilator lint_on UNUSEDSIGNAL */
capfc_scoreboard u_scoreboard_2 (
    .clk(clk),
    .in_bits(stim_q),
    .out_bits(`CAPFC_SB_OUT(d_state)),
    .violations(sb2_violations)
);
`endif
`endif

`ifdef CAPFC_PROPS
// capfc's rule assertions (check/sva/capfc_props.sv) with capfc_v2_top's timing
int props_errors;
capfc_props #(
    .NP(NP),
    .SW(SW),
    .OW(OW),
    .CELL_LOG2(CELL_LOG2),
    .ING_MIN(1),
    .ING_MAX(1),
    .E_CLEAR_MAX(1),
    .FRAME_MIN(0),
    .FRAME_MAX(0),
    .REF_MAX(1)
) u_props (
    .clk(clk), .rst(rst), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
    .arr_valid(arr_valid), .arr_prio(arr_prio), .arr_size(arr_size),
    .dep_valid(dep_valid), .dep_port(dep_port), .dep_prio(dep_prio), .dep_size(dep_size),
    .enq_valid(enq_valid), .enq_oport(enq_oport), .enq_prio(enq_prio), .enq_iport(enq_iport),
    .enq_size(enq_size), .deq_valid(deq_valid), .deq_prio(deq_prio), .deq_size(deq_size),
    .pfc_ready(pfc_ready), .arr_accept(arr_accept), .enq_accept(enq_accept),
    .pfc_valid(pfc_valid), .pfc_cev(pfc_cev), .pfc_xoff(pfc_xoff), .d_state(d_state),
    .errors(props_errors)
);
final $display("capfc_props: %0d failed checks", props_errors);
`endif

// Number of data lines in a file (lines whose first character is a hex digit), checking that each
// is `digits` hex digits after the 8-digit cycle and the underscore. Read in chunks of LINE_CHUNK
// characters, so a line of any length counts once.
task automatic count_data_lines(input string path, input integer digits, output integer count);
    reg [8*LINE_CHUNK-1:0] chunk;
    reg [7:0] first;
    reg [7:0] last;
    reg [7:0] prev_char;
    reg at_start;
    reg is_data;
    integer fd;
    integer n;
    integer len;
    count = 0;
    fd = $fopen(path, "r");
    if (fd == 0)
        $fatal(1, "[golden] %s: cannot open (give the set's directory with +GOLDEN=<dir>)", path);
    at_start = 1'b1;
    is_data = 1'b0;
    last = 8'h0a;
    len = 0;
    n = $fgets(chunk, fd);
    while (n > 0) begin
        // $fgets leaves the last character read in chunk[7:0], the first in chunk[8*n-1 -: 8]
        if (at_start) begin
            first = chunk[8*n-1 -: 8];
            is_data = (first >= "0" && first <= "9") || (first >= "a" && first <= "f") ||
                (first >= "A" && first <= "F");
            len = 0;
            if (is_data)
                count = count + 1;
        end
        len = len + n;
        prev_char = (n >= 2) ? chunk[15:8] : last;
        last = chunk[7:0];
        at_start = (last == 8'h0a);
        n = $fgets(chunk, fd);
        // a data line is complete: its length without the line end
        if (is_data && (at_start || n <= 0)) begin
            if (last == 8'h0a)
                len = len - ((prev_char == 8'h0d) ? 2 : 1);
            if (len != 9 + digits)
                $fatal(1, "[golden] %s: data line %0d: %0d characters, expected %0d (8+1+%0d)",
                    path, count, len, 9 + digits, digits);
        end
    end
    $fclose(fd);
    if (!at_start)
        // (Verilator 5.006's $readmemh silently drops such a last line)
        $fatal(1, "[golden] %s: the last line has no line end", path);
endtask

// Checks the cycle stamp of data line idx (0-based) of a file; prev is the stamp of line idx-1.
task automatic check_stamp(input string path, input integer idx, input reg [31:0] stamp,
        input reg [31:0] prev);
    if (^stamp === 1'bx)
        $fatal(1, "[golden] %s: data line %0d: no cycle stamp (malformed line)", path, idx + 1);
    else if (idx > 0 && stamp <= prev)
        $fatal(1, "[golden] %s: data line %0d: cycle %0d does not follow cycle %0d",
            path, idx + 1, stamp, prev);
    else if (stamp >= CYCLES)
        $fatal(1, "[golden] %s: data line %0d: cycle %0d, but params.vh says CAPFC_CYCLES %0d",
            path, idx + 1, stamp, CYCLES);
endtask

// Reads both files and checks their line counts and cycle stamps.
task automatic load_set;
    integer i;
    integer lines;
    reg [31:0] stamp;
    reg [31:0] prev;
    if (IN_BITS != IN_BITS_PORTS || OUT_BITS != OUT_BITS_PORTS)
        $fatal(1, "[golden] params.vh: CAPFC_IN_BITS/OUT_BITS %0d/%0d, %s has %0d/%0d",
            IN_BITS, OUT_BITS, `CAPFC_TB_TOP, IN_BITS_PORTS, OUT_BITS_PORTS);
    count_data_lines(stim_path, IN_DIGITS, lines);
    if (lines != STIM_LINES)
        $fatal(1, "[golden] %s: %0d data lines, params.vh says CAPFC_STIM_LINES %0d",
            stim_path, lines, STIM_LINES);
    count_data_lines(expect_path, OUT_DIGITS, lines);
    if (lines != EXPECT_LINES)
        $fatal(1, "[golden] %s: %0d data lines, params.vh says CAPFC_EXPECT_LINES %0d",
            expect_path, lines, EXPECT_LINES);
    $readmemh(stim_path, stim_mem, 0, STIM_LINES - 1);
    $readmemh(expect_path, expect_mem, 0, EXPECT_LINES - 1);
    prev = 32'd0;
    for (i = 0; i < STIM_LINES; i = i + 1) begin
        stamp = stim_mem[i][4*IN_DIGITS +: 32];
        check_stamp(stim_path, i, stamp, prev);
        if ((stim_mem[i][4*IN_DIGITS-1:0] >> IN_BITS) != 0)
            $fatal(1, "[golden] %s: data line %0d: bits above the %0d-bit concatenation are set",
                stim_path, i + 1, IN_BITS);
        prev = stamp;
    end
    prev = 32'd0;
    for (i = 0; i < EXPECT_LINES; i = i + 1) begin
        stamp = expect_mem[i][4*OUT_DIGITS +: 32];
        check_stamp(expect_path, i, stamp, prev);
        if ((expect_mem[i][4*OUT_DIGITS-1:0] >> OUT_BITS) != 0)
            $fatal(1, "[golden] %s: data line %0d: bits above the %0d-bit concatenation are set",
                expect_path, i + 1, OUT_BITS);
        prev = stamp;
    end
    if (expect_mem[0][4*OUT_DIGITS +: 32] != 32'd0)
        $fatal(1, "[golden] %s: the first data line is stamped cycle %0d, not 0",
            expect_path, expect_mem[0][4*OUT_DIGITS +: 32]);
endtask

// Records one differing port of the current cycle.
task automatic report(input string port, input string exp_hex, input string got_hex);
    cycle_bad = 1'b1;
    reports = reports + 1;
    if (reports <= max_reports)
        $display("cycle %0d: %s expected %s got %s", cycle, port, exp_hex, got_hex);
    else if (reports == max_reports + 1)
        $display("(further mismatch lines are not printed; +MAX_REPORTS=<n> raises the cap)");
endtask

// One port: 4-state comparison, or only its known bits before the first reset edge (the OR of
// the XOR is 1 when a known bit differs, X when the only differences are unknown bits).
`define CAPFC_TB_CHECK(port) \
    if (reset_seen ? (port !== exp_``port) : ((|(port ^ exp_``port)) === 1'b1)) \
        report(`"port`", $sformatf("%h", exp_``port), $sformatf("%h", port));

initial begin
    if (!$value$plusargs("GOLDEN=%s", golden_dir))
        golden_dir = ".";
    if (!$value$plusargs("MAX_REPORTS=%d", max_reports))
        max_reports = MAX_REPORTS_DEFAULT;
`ifdef CAPFC_LINES_MAX
    if (!$value$plusargs("CYCLES=%d", CYCLES) || !$value$plusargs("STIM_LINES=%d", STIM_LINES) ||
            !$value$plusargs("EXPECT_LINES=%d", EXPECT_LINES))
        $fatal(1, "[golden] a shared build (CAPFC_LINES_MAX) needs +CYCLES=, +STIM_LINES= and +EXPECT_LINES= (the set's params.vh)");
    if (STIM_LINES < 1 || EXPECT_LINES < 1 || CYCLES < 1)
        $fatal(1, "[golden] +CYCLES=%0d +STIM_LINES=%0d +EXPECT_LINES=%0d: each must be at least 1",
            CYCLES, STIM_LINES, EXPECT_LINES);
    if (STIM_LINES > STIM_CAP || EXPECT_LINES > EXPECT_CAP)
        $fatal(1, "[golden] %0d/%0d lines: this build holds %0d (rebuild with a larger CAPFC_LINES_MAX)",
            STIM_LINES, EXPECT_LINES, STIM_CAP);
`endif
    // +DUMP=<file.vcd>: the DUT's ports as a waveform (Icarus; Verilator needs --trace), for
    // `capfc check --wave` (check/capfc_v2/capfc_v2.map.toml maps them).
    if ($value$plusargs("DUMP=%s", dump_path)) begin
        $dumpfile(dump_path);
        $dumpvars(1, u_dut);
    end
    stim_path = $sformatf("%s/stim.hex", golden_dir);
    expect_path = $sformatf("%s/expect.hex", golden_dir);
    load_set();
    $display("capfc_tb: %s (%s): NP=%0d SW=%0d OW=%0d CW=%0d CELL_LOG2=%0d CUT_F=%0d NL=%0d, %0d cycles",
        golden_dir, `CAPFC_TB_TOP, NP, SW, OW, CW, CELL_LOG2, CUT_F, NL, CYCLES);

    stim_idx = 0;
    expect_idx = 0;
    passed = 0;
    failed = 0;
    reports = 0;
    reset_seen = 1'b0;
    expect_q = {OUT_BITS{1'b0}};
    held_q = READY_MASK;
    for (cycle = 0; cycle < CYCLES; cycle = cycle + 1) begin
        if (cycle != 0)
            @(posedge clk);
        #(DRIVE_DELAY);
        // inputs of this cycle
        if (stim_idx < STIM_LINES && stim_mem[stim_idx][4*IN_DIGITS +: 32] == cycle) begin
            stim_q = stim_mem[stim_idx][IN_BITS-1:0];
            held_q = stim_q & READY_MASK;
            stim_idx = stim_idx + 1;
        end else begin
            stim_q = held_q;
        end
        // expectation in force
        if (expect_idx < EXPECT_LINES && expect_mem[expect_idx][4*OUT_DIGITS +: 32] == cycle) begin
            expect_q = expect_mem[expect_idx][OUT_BITS-1:0];
            expect_idx = expect_idx + 1;
        end
        #(PERIOD - DRIVE_DELAY - SAMPLE_LEAD);
        cycle_bad = 1'b0;
`ifdef CAPFC_V3
        `CAPFC_TB_CHECK(arr_ready)
        `CAPFC_TB_CHECK(deq_ready)
`endif
        `CAPFC_TB_CHECK(arr_accept)
        `CAPFC_TB_CHECK(enq_accept)
        `CAPFC_TB_CHECK(pfc_valid)
        `CAPFC_TB_CHECK(pfc_cev)
        `CAPFC_TB_CHECK(pfc_xoff)
        `CAPFC_TB_CHECK(pfc_quanta)
        `CAPFC_TB_CHECK(d_state)
        if (cycle_bad)
            failed = failed + 1;
        else
            passed = passed + 1;
        // the coming edge resets the DUT
        if (rst === 1'b1)
            reset_seen = 1'b1;
    end

    // the edge that ends the last cycle, so that what samples there (the DPI scoreboard) sees it
    @(posedge clk);
    #(DRIVE_DELAY);
    $display("%0d passed, %0d failed", passed, failed);
    if (failed != 0)
        $fatal(1, "capfc_tb: %s: %0d of %0d cycles failed", golden_dir, failed, CYCLES);
    $finish;
end

`undef CAPFC_TB_CHECK
`undef CAPFC_TB_TOP

endmodule

`resetall
