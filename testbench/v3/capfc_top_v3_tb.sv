// capfc_top_v3_tb: the block (rtl/v3/capfc_top_oc.sv: its configuration registers, ingress, egress
// and sort engines, with v2's PFC generator) on random traffic, with a
// waveform for the reference checker (make v3-check: `capfc check --wave` against the contract,
// shared/domain.md section 3, within the v3 envelope check/v3/capfc_top_v3_np<N>.timing.toml).
//
// This testbench judges nothing of the block's answers itself: the checker does, from the
// waveform, as it would a team's RTL. The testbench only drives legal stimulus and makes sure
// the corners the checker judges happen:
// - Lanes are held until taken (valid and ready at a rising edge), as the v3 contract requires of
//   the environment; a lane is not changed while it waits. The testbench decides at the falling
//   edge and the block sees its lanes from the next rising edge (the *_q copies).
// - Removals are trusted: a departure or a dequeue removes at most what its queue holds, counted
//   from the accepts (read four cycles after the take, when they come).
// - The configuration is written only while no lane is offered, and the lanes start 8 + NG + 8
//   cycles after the last write (the v3 groups' copies of the thresholds take 8 + NG cycles).
// - The lanes stop 16 cycles before each reset, so that every take is answered before it.
// - Two halves, each after a reset: Stop-Max, then Stop-Calibrate (cut 1/2), the same thresholds
//   (multiples of 100, as every size, so that occupancies land on them), but for the ingress MAX
//   of priority 5, not written after the second reset: it reads 0 (every configuration register
//   is 0 after a reset; in v3 the thresholds are LUT RAM words with a valid bit), so every
//   arrival of priority 5 is refused in the second half (a corner, required). Priorities 1 and 3 are
//   lossless (the two counted classes, NL = 2), 5 is lossy.
// - Traffic: a hot output port (it changes every 1,500 cycles) gets half the enqueues and is
//   dequeued slowly, so its lossless queues cross XOFF_e and are sorted; the other ports drain
//   fast; arrivals of every port, departures from what the ingress holds. The MACs are busy at
//   random, sometimes all of them for a few hundred cycles.
// - The MAC episode, directed, in each half (cycles 2,000 to 5,000): the peer of port 0 is told
//   priority 1 paused, then port 0's MAC is held busy while port 0's own arrivals and departures
//   raise priority 3, drop 1, drop 3, raise 3 and drop it again; the frame held all along must
//   announce priority 1 resumed when the MAC takes it (an XON that a "latest request wins"
//   interface loses).
// - Corners counted and required at the end: takes of every lane, refusals of both kinds (and
//   of a threshold not written since the reset),
//   crossings of XOFF_e on a counted class, row clears (dequeues to WARN), E clears (to XON_e),
//   D raised by E (a port paused without its own I), PFC frames taken after a busy MAC, and a
//   frame held by a busy MAC through three or more changes of its D, one resuming a class that
//   was paused when they began (the handshake's XON, which the checker finds in the frame). Counted,
//   not required: an engine's E write leaving in its row's clear cycle (the egress cancels it; at
//   4 ports Stop-Max's writes and the clears fall in different cycles of the slot frame, so this
//   traffic seldom has one: the egress's testbench requires it).
// - +SEED=n (printed) seeds $urandom; +DUMP=file writes the waveform (VCD) of the block's ports,
//   +DUMPALL=file of every register and RAM word (the model's replay: make v3-lockstep).
// - +define+TB_WRAP_STAGES=n: the block behind check/wrap/capfc_v3_wrap.sv with STAGES = n (D
//   delayed by n registers, the PFC frames through an n-deep skid-buffer chain per port), built
//   with check/wrap's files (scripts/v3_faults.sh with V3_WRAP_STAGES). The wrapper keeps the
//   instance name u_dut and the block's port names, so check/v3/capfc_top_v3.map.toml reads it
//   unchanged (under the wrapper's envelope); the block itself is u_dut.u_blk. The corners are
//   counted as without the wrapper: the lanes' at the ports (the wrapper passes them through),
//   the pause from E from the block's own D and I (inside the wrapper), the frames and the MAC
//   handshake's corner at the wrapper's PFC ports, where the checker judges them. Through the
//   wrapper the MAC episode is 2 * STAGES phases longer, so that the chain fills and the block's
//   own frame waits through changes of D (a corner required then).

`timescale 1ns / 1ps
`default_nettype none

module capfc_top_v3_tb;
localparam integer NP = `TB_NP;
localparam integer SW = 14;
localparam integer OW = 20;
localparam integer CW = 16;
localparam integer CUT_F = 8;
localparam integer NL = 2;
localparam integer NQ = NP * 8;
localparam integer PW = (NP > 1) ? $clog2(NP) : 1;
localparam integer NG = (NP + 7) / 8;
localparam integer LW = (NL > 1) ? $clog2(NL) : 1;
localparam integer CYCLES = `TB_CYCLES;
localparam integer QUIET = 8 + NG + 8;
// the checker's thresholds (as written below)
localparam integer EG_XOFF = 6000;
localparam integer EG_WARN = 4000;
localparam integer EG_XON = 3000;

logic clk = 1'b0;
logic rst = 1'b1;
logic             cfg_we = 1'b0;
logic [7:0]       cfg_addr = '0;
logic [31:0]      cfg_wdata = '0;
// the lanes: as the testbench decides them at the falling edge (`ln`), and as the block sees
// them (`ln_q`), applied at the rising edge (nonblocking), so that they change in the same time
// step as the block's registers (Verilator 5.006 with --timing does not re-evaluate logic on a
// change of a signal wider than 64 bits made at the falling edge by this process: measured, the
// arrival's sizes and priorities reached stage A a cycle late)
typedef struct packed {
    logic [NP-1:0]    arr_valid;
    logic [NP*3-1:0]  arr_prio;
    logic [NP*SW-1:0] arr_size;
    logic             dep_valid;
    logic [PW-1:0]    dep_port;
    logic [2:0]       dep_prio;
    logic [SW-1:0]    dep_size;
    logic             enq_valid;
    logic [PW-1:0]    enq_oport;
    logic [PW-1:0]    enq_iport;
    logic [2:0]       enq_prio;
    logic [SW-1:0]    enq_size;
    logic [NP-1:0]    deq_valid;
    logic [NP*3-1:0]  deq_prio;
    logic [NP*SW-1:0] deq_size;
    logic [NP-1:0]    pfc_ready;
} lanes_t;
lanes_t ln = '0, ln_q = '0;
always @(posedge clk) begin
    ln_q <= ln;
end
wire  [NP-1:0]    arr_ready, deq_ready, arr_accept, pfc_valid;
wire              enq_accept;
wire  [NQ-1:0]    pfc_cev, pfc_xoff, d_state;
wire  [15:0]      pfc_quanta;

// (the block's own internals, and its D before the wrapper's registers, for the corners)
`ifdef TB_WRAP_STAGES
`define TB_BLK u_dut.u_blk
`define TB_BLK_D u_dut.u_blk.d_state
capfc_v3_wrap #(.NP(NP), .SW(SW), .OW(OW), .CW(CW), .CUT_F(CUT_F), .NL(NL), .STAGES(`TB_WRAP_STAGES)) u_dut (
`else
`define TB_BLK u_dut
`define TB_BLK_D d_state
capfc_top_oc #(.NP(NP), .SW(SW), .OW(OW), .CW(CW), .CUT_F(CUT_F), .NL(NL)) u_dut (
`endif
    .clk(clk), .rst(rst),
    .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
    .arr_valid(ln_q.arr_valid), .arr_prio(ln_q.arr_prio), .arr_size(ln_q.arr_size),
    .dep_valid(ln_q.dep_valid), .dep_port(ln_q.dep_port), .dep_prio(ln_q.dep_prio),
    .dep_size(ln_q.dep_size),
    .enq_valid(ln_q.enq_valid), .enq_oport(ln_q.enq_oport), .enq_prio(ln_q.enq_prio),
    .enq_iport(ln_q.enq_iport), .enq_size(ln_q.enq_size),
    .deq_valid(ln_q.deq_valid), .deq_prio(ln_q.deq_prio), .deq_size(ln_q.deq_size),
    .pfc_ready(ln_q.pfc_ready),
    .arr_ready(arr_ready), .deq_ready(deq_ready),
    .arr_accept(arr_accept), .enq_accept(enq_accept),
    .pfc_valid(pfc_valid), .pfc_cev(pfc_cev), .pfc_xoff(pfc_xoff), .pfc_quanta(pfc_quanta),
    .d_state(d_state)
);

always #5 clk = ~clk;

// what the queues hold, counted from the accepts (removals never exceed it)
longint  iocc [NQ];
longint  eocc [NQ];
// takes in flight, by the cycle of their accept (t + 4): index (t + 4) % 8
logic [NP-1:0]  a_due [8];
integer         a_size_due [8][NP];
integer         a_q_due [8][NP];
logic           e_due [8];
integer         e_size_due [8], e_q_due [8];
// the taken lanes of the coming edge (valid and ready at the negative edge before it)
logic [NP-1:0]  arr_take, deq_take;
logic           dep_take, enq_take;

integer seed, seed_rng, cyc, half, hot, busy_left;
logic   drain;
logic   done = 1'b0;
string  dump;
// corners
integer n_arr, n_dep, n_enq, n_deq, n_arr_ref, n_enq_ref, n_cross, n_rowclr, n_eclr, n_epause,
        n_frames, n_wcan, n_busy_xon, n_unwritten;

task automatic cfg_write(input logic [7:0] a, input integer d);
    @(negedge clk);
    cfg_we = 1'b1;
    cfg_addr = a;
    cfg_wdata = 32'(d);
    @(negedge clk);
    cfg_we = 1'b0;
endtask

task automatic configure(input integer mode);
    for (int p = 0; p < 8; p = p + 1) begin
        // ingress MAX (priority 5's is not written again after the second reset: it must read 0,
        // so that every arrival of priority 5 is refused in the second half)
        if (!(mode == 2 && p == 5)) begin
            cfg_write(8'h00 + 8'(p), 20000);
        end
        cfg_write(8'h08 + 8'(p), 12000);          // ingress XOFF
        cfg_write(8'h10 + 8'(p), 8000);           // ingress XON
        cfg_write(8'h18 + 8'(p), 9000 + 100 * p); // egress MAX
        cfg_write(8'h20 + 8'(p), EG_XOFF);
        cfg_write(8'h28 + 8'(p), EG_XON);
        cfg_write(8'h30 + 8'(p), EG_WARN);
    end
    cfg_write(8'h38, 32'h0000_000A);  // priorities 1 and 3 lossless (counted classes 0 and 1)
    cfg_write(8'h39, mode);           // 1: Stop-Max, 2: Stop-Calibrate
    cfg_write(8'h3A, 128);            // cut 1/2
    cfg_write(8'h3B, 200);            // quanta: 200 x 512 bit times = 12,800 cycles
    cfg_write(8'h3C, 1000);           // refresh
endtask

function automatic integer rnd(input integer n);
    return $urandom % n;
endfunction

// a removal's size: a multiple of 100 up to 1,500, at most what its queue holds
function automatic integer removal_size(input longint held);
    integer s;
    s = 100 * (1 + rnd(15));
    return (s > held) ? int'(held) : s;
endfunction

// the MAC episode (directed, cycles EP0 .. EP0 + 6 * EPL of each half): port 0's own arrivals
// and departures raise and drop I of priorities 1 and 3, one step a phase: 0: 1 up and 3 down,
// the MAC ready (the peer is told priority 1 paused); from 1 on the MAC is held busy: 1: 3 up,
// 2: 1 down, 3: 3 down, 4: 3 up, 5: 3 down. D changes at least three times while the frame waits
// and ends with priority 1 resumed, which the frame taken when the MAC is ready again must
// announce (the checker judges it; the corner is counted above)
localparam integer EP0 = 2000;
localparam integer EPL = 500;
`ifdef TB_WRAP_STAGES
// (through the wrapper, 2 * STAGES phases more, 6 on: priority 3 up in the even ones, down in the
// odd ones. The wrapper's chain takes 2 * STAGES frames while the MAC is busy, so through 3 stages
// the 5 changes of D of phases 1 to 5 all wait in the chain and the block never holds a frame of
// its own: the corner of a change of D while the block's frame waits (a PFC generator that loses
// such a change, pfc_xon_lost_while_busy) would not happen. With the phases added the chain fills
// and the block's frame waits through the last ones (required below).)
localparam integer EPN = 6 + 2 * `TB_WRAP_STAGES;
function automatic integer ep_phase(input integer c);
    return (c >= EP0 && c < EP0 + EPN * EPL) ? (c - EP0) / EPL : -1;
endfunction
function automatic integer ep_fill(input integer ph);
    return (ph == 0) ? 1 : (ph == 1 || ph == 4 || (ph >= 6 && ph % 2 == 0)) ? 3 : -1;
endfunction
function automatic integer ep_drain(input integer ph);
    return (ph == 2) ? 1 : (ph == 0 || ph == 3 || ph == 5 || (ph >= 6 && ph % 2 == 1)) ? 3 : -1;
endfunction
initial begin
    if (EP0 + EPN * EPL > CYCLES / 2 - 16) begin
        $fatal(1, "capfc_top_v3_tb: the MAC episode through %0d stages does not fit in a half of %0d cycles", `TB_WRAP_STAGES, CYCLES / 2);
    end
end
`else
function automatic integer ep_phase(input integer c);
    return (c >= EP0 && c < EP0 + 6 * EPL) ? (c - EP0) / EPL : -1;
endfunction
// the priority port 0's arrivals raise in a phase (-1: none), and the one its departures drain
function automatic integer ep_fill(input integer ph);
    return (ph == 0) ? 1 : (ph == 1 || ph == 4) ? 3 : -1;
endfunction
function automatic integer ep_drain(input integer ph);
    return (ph == 2) ? 1 : (ph == 0 || ph == 3 || ph == 5) ? 3 : -1;
endfunction
`endif

function automatic integer prio_pick();
    integer r;
    r = rnd(10);
    return (r < 4) ? 1 : (r < 8) ? 3 : 5;
endfunction

task automatic reset_block(input integer mode);
    @(negedge clk);
    rst = 1'b1;
    ln.arr_valid = '0;
    ln.dep_valid = 1'b0;
    ln.enq_valid = 1'b0;
    ln.deq_valid = '0;
    for (int q = 0; q < NQ; q = q + 1) begin
        iocc[q] = 0;
        eocc[q] = 0;
    end
    for (int k = 0; k < 8; k = k + 1) begin
        a_due[k] = '0;
        e_due[k] = 1'b0;
    end
    repeat (3) @(negedge clk);
    rst = 1'b0;
    configure(mode);
    repeat (QUIET) @(negedge clk);
endtask

// the corners the checker judges, seen from the outputs (and I, inside): frames taken, and D up
// for a queue whose I has been down for two cycles (a pause from E)
logic [NQ-1:0] i_prev = '0;
always @(posedge clk) begin
    if (!rst) begin
        for (int i = 0; i < NP; i = i + 1) begin
            if (pfc_valid[i] && ln_q.pfc_ready[i]) begin
                n_frames = n_frames + 1;
            end
        end
        if ((`TB_BLK_D & ~`TB_BLK.i_state & ~i_prev) != '0) begin
            n_epause = n_epause + 1;
        end
        for (int o = 0; o < NP; o = o + 1) begin
            if (`TB_BLK.swr_en[o] && `TB_BLK.rclr[(o << LW) + 32'(`TB_BLK.swr_l[o*LW +: LW])]) begin
                n_wcan = n_wcan + 1;
            end
        end
    end
    i_prev <= `TB_BLK.i_state;
end

`ifdef TB_WRAP_STAGES
// through the wrapper: changes of the block's own D while its own frame waits (its chain full)
integer        n_blk_wait = 0;
logic [NQ-1:0] bd_prev = '0;
always @(posedge clk) begin
    if (!rst) begin
        for (int i = 0; i < NP; i = i + 1) begin
            if (`TB_BLK.pfc_valid[i] && !`TB_BLK.pfc_ready[i] && `TB_BLK_D[i*8 +: 8] != bd_prev[i*8 +: 8]) begin
                n_blk_wait = n_blk_wait + 1;
            end
        end
    end
    bd_prev <= `TB_BLK_D;
end
`endif

// the MAC handshake's corner: a frame held while its MAC is busy through three or more changes of
// its port's D, a class paused at some point of the wait and resumed when the MAC takes it (an XON
// that a "latest request wins" interface would lose); the checker judges the frame taken
logic [NQ-1:0] d_prev = '0, bz_seen = '0;
integer        bz_chg [NP];
always @(posedge clk) begin
    for (int i = 0; i < NP; i = i + 1) begin
        if (rst || !pfc_valid[i]) begin
            bz_chg[i] = 0;
            bz_seen[i*8 +: 8] = '0;
        end else if (ln_q.pfc_ready[i]) begin
            if (bz_chg[i] >= 3 && (bz_seen[i*8 +: 8] & ~d_state[i*8 +: 8]) != '0) begin
                n_busy_xon = n_busy_xon + 1;
            end
            bz_chg[i] = 0;
            bz_seen[i*8 +: 8] = '0;
        end else begin
            bz_seen[i*8 +: 8] = bz_seen[i*8 +: 8] | d_prev[i*8 +: 8] | d_state[i*8 +: 8];
            if (d_state[i*8 +: 8] != d_prev[i*8 +: 8]) begin
                bz_chg[i] = bz_chg[i] + 1;
            end
        end
    end
    d_prev <= d_state;
end

initial begin
    if (!$value$plusargs("SEED=%d", seed)) begin
        seed = 1;
    end
    if ($value$plusargs("DUMP=%s", dump)) begin
        $dumpfile(dump);
        $dumpvars(1, capfc_top_v3_tb.u_dut);
    end
    // (+DUMPALL=file: every register and RAM word of the block, for the model's replay, make
    // v3-lockstep; built without --trace-depth)
    if ($value$plusargs("DUMPALL=%s", dump)) begin
        $dumpfile(dump);
        $dumpvars(0, capfc_top_v3_tb.u_dut);
    end
    $display("capfc_top_v3_tb: NP=%0d seed %0d, %0d cycles", NP, seed, CYCLES);
    seed_rng = seed;
    cyc = $urandom(seed_rng);
    {n_arr, n_dep, n_enq, n_deq, n_arr_ref, n_enq_ref, n_cross, n_rowclr, n_eclr, n_epause} = '0;
    n_frames = 0;
    n_wcan = 0;
    n_busy_xon = 0;
    n_unwritten = 0;
    busy_left = 0;
    hot = 0;
    for (half = 0; half < 2; half = half + 1) begin
        reset_block(half + 1);
        for (cyc = 0; cyc < CYCLES / 2; cyc = cyc + 1) begin
            // (at the negative edge: the lanes taken at the edge just passed leave, the
            // accepts due in this cycle are read, new lanes are offered)
            if (cyc % 1500 == 0) begin
                hot = rnd(NP);
            end
            // the last 16 cycles of a half offer no new lane: every lane held is taken and
            // answered before the reset
            drain = cyc >= CYCLES / 2 - 16;
            // accepts of the takes of four cycles ago, visible in this cycle
            for (int i = 0; i < NP; i = i + 1) begin
                if (a_due[cyc % 8][i]) begin
                    if (arr_accept[i]) begin
                        iocc[a_q_due[cyc % 8][i]] = iocc[a_q_due[cyc % 8][i]] + a_size_due[cyc % 8][i];
                    end else begin
                        n_arr_ref = n_arr_ref + 1;
                        if (half == 1 && a_q_due[cyc % 8][i] % 8 == 5) begin
                            n_unwritten = n_unwritten + 1;
                        end
                    end
                end
            end
            a_due[cyc % 8] = '0;
            if (e_due[cyc % 8]) begin
                if (enq_accept) begin
                    eocc[e_q_due[cyc % 8]] = eocc[e_q_due[cyc % 8]] + e_size_due[cyc % 8];
                    if (eocc[e_q_due[cyc % 8]] > EG_XOFF && e_q_due[cyc % 8] % 8 != 5 &&
                            eocc[e_q_due[cyc % 8]] - e_size_due[cyc % 8] <= EG_XOFF) begin
                        n_cross = n_cross + 1;
                    end
                end else begin
                    n_enq_ref = n_enq_ref + 1;
                end
            end
            e_due[cyc % 8] = 1'b0;
            // what the coming edge takes (the lanes the block sees now, valid and ready), and
            // the accepts it will bring four cycles later
            arr_take = ln_q.arr_valid & arr_ready;
            deq_take = ln_q.deq_valid & deq_ready;
            // (the shared lanes are taken on their port's slot ready)
            dep_take = ln_q.dep_valid && arr_ready[ln_q.dep_port];
            enq_take = ln_q.enq_valid && deq_ready[ln_q.enq_oport];
            for (int i = 0; i < NP; i = i + 1) begin
                if (arr_take[i]) begin
                    n_arr = n_arr + 1;
                    a_due[(cyc + 4) % 8][i] = 1'b1;
                    a_size_due[(cyc + 4) % 8][i] = int'(ln_q.arr_size[i*SW +: SW]);
                    a_q_due[(cyc + 4) % 8][i] = i * 8 + int'(ln_q.arr_prio[i*3 +: 3]);
                end
                if (deq_take[i]) begin
                    n_deq = n_deq + 1;
                    if (ln_q.deq_prio[i*3 +: 3] != 3'd5) begin
                        if (eocc[i * 8 + int'(ln_q.deq_prio[i*3 +: 3])] <= EG_WARN) begin
                            n_rowclr = n_rowclr + 1;
                        end
                        if (eocc[i * 8 + int'(ln_q.deq_prio[i*3 +: 3])] <= EG_XON) begin
                            n_eclr = n_eclr + 1;
                        end
                    end
                end
            end
            if (dep_take) begin
                n_dep = n_dep + 1;
            end
            if (enq_take) begin
                n_enq = n_enq + 1;
                e_due[(cyc + 4) % 8] = 1'b1;
                e_size_due[(cyc + 4) % 8] = int'(ln_q.enq_size);
                e_q_due[(cyc + 4) % 8] = int'(ln_q.enq_oport) * 8 + int'(ln_q.enq_prio);
            end
            // lanes taken at the coming edge leave (the block sees the next ones after it); new
            // ones are offered
            for (int i = 0; i < NP; i = i + 1) begin
                if (arr_take[i]) begin
                    ln.arr_valid[i] = 1'b0;
                end
                if (i == 0 && ep_phase(cyc) >= 0) begin
                    // the episode: arrivals to raise the phase's priority, none while it drains
                    if (!ln.arr_valid[0] && !drain && ep_fill(ep_phase(cyc)) >= 0) begin
                        ln.arr_valid[0] = 1'b1;
                        ln.arr_prio[2:0] = 3'(ep_fill(ep_phase(cyc)));
                        ln.arr_size[SW-1:0] = SW'(100 * (1 + rnd(15)));
                    end
                end else if (!ln.arr_valid[i] && !drain && rnd(100) < 5) begin
                    ln.arr_valid[i] = 1'b1;
                    ln.arr_prio[i*3 +: 3] = 3'(prio_pick());
                    ln.arr_size[i*SW +: SW] = SW'(100 * (1 + rnd(15)));
                end
                if (deq_take[i]) begin
                    ln.deq_valid[i] = 1'b0;
                end
                if (!ln.deq_valid[i] && !drain && rnd(100) < ((i == hot) ? 8 : 70)) begin
                    // a queue of the port that holds something, at most what it holds
                    integer p, q;
                    p = prio_pick();
                    q = i * 8 + p;
                    if (eocc[q] >= 100) begin
                        integer s;
                        s = removal_size(eocc[q]);
                        ln.deq_valid[i] = 1'b1;
                        ln.deq_prio[i*3 +: 3] = 3'(p);
                        ln.deq_size[i*SW +: SW] = SW'(s);
                        // counted now: a later accept adds, nothing else removes
                        eocc[q] = eocc[q] - s;
                    end
                end
            end
            if (dep_take) begin
                ln.dep_valid = 1'b0;
            end
            if (!ln.dep_valid && !drain && rnd(100) < 60) begin
                // a queue that holds something: from a random (port, priority), the first such
                // in order
                integer i0, k0, q, s;
                i0 = rnd(NP);
                k0 = rnd(3);
                q = -1;
                for (int k = 0; k < 3 * NP && q < 0; k = k + 1) begin
                    integer c;
                    c = ((i0 + k / 3) % NP) * 8 + ((k0 + k) % 3) * 2 + 1;
                    if (iocc[c] >= 100) begin
                        q = c;
                    end
                end
                // (the episode: port 0 only, the priority its phase drains; none in a phase that
                // drains nothing)
                if (ep_phase(cyc) >= 0 && ep_drain(ep_phase(cyc)) >= 0) begin
                    q = (iocc[ep_drain(ep_phase(cyc))] >= 100) ? ep_drain(ep_phase(cyc)) : -1;
                end else if (ep_phase(cyc) >= 0 && q >= 0 && q / 8 == 0) begin
                    q = -1;
                end
                if (q >= 0) begin
                    s = removal_size(iocc[q]);
                    ln.dep_valid = 1'b1;
                    ln.dep_port = PW'(q / 8);
                    ln.dep_prio = 3'(q % 8);
                    ln.dep_size = SW'(s);
                    iocc[q] = iocc[q] - s;
                end
            end
            if (enq_take) begin
                ln.enq_valid = 1'b0;
            end
            if (!ln.enq_valid && !drain && rnd(100) < 70) begin
                ln.enq_valid = 1'b1;
                ln.enq_oport = PW'((rnd(2) == 0) ? hot : rnd(NP));
                ln.enq_prio = 3'(prio_pick());
                ln.enq_iport = PW'(rnd(NP));
                ln.enq_size = SW'(100 * (1 + rnd(15)));
            end
            // the MACs: ready most of the time, a long busy spell now and then
            if (busy_left > 0) begin
                busy_left = busy_left - 1;
                ln.pfc_ready = '0;
            end else if (rnd(2000) == 0) begin
                busy_left = 100 + rnd(300);
                ln.pfc_ready = '0;
            end else begin
                for (int i = 0; i < NP; i = i + 1) begin
                    ln.pfc_ready[i] = rnd(100) < 80;
                end
            end
            // the MAC episode: port 0's MAC busy from its phase 1
            if (ep_phase(cyc) >= 1) begin
                ln.pfc_ready[0] = 1'b0;
            end
            @(negedge clk);
        end
    end
    done = 1'b1;
end

// the report, in a process of its own (Verilator 5.006 with --timing folded these counters to
// their initial 0 in the stimulus process's last statements at 12 ports)
always @(posedge done) begin
    $display("capfc_top_v3_tb: takes: %0d arrivals (%0d refused), %0d departures, %0d enqueues (%0d refused), %0d dequeues; %0d crossings of XOFF_e on a lossless queue, %0d dequeues to WARN, %0d to XON_e; %0d cycles with a pause from E; %0d E writes leaving in their row's clear cycle; %0d frames taken, %0d of them after a busy MAC held them through 3 or more changes of D and a class resumed; %0d arrivals refused by a threshold not written since the reset",
        n_arr, n_arr_ref, n_dep, n_enq, n_enq_ref, n_deq, n_cross, n_rowclr, n_eclr, n_epause, n_wcan, n_frames, n_busy_xon, n_unwritten);
`ifdef TB_WRAP_STAGES
    $display("capfc_top_v3_tb: through %0d stages: %0d changes of the block's D while its own frame waited behind a full chain",
        `TB_WRAP_STAGES, n_blk_wait);
    if (n_blk_wait == 0) begin
        $fatal(1, "capfc_top_v3_tb: a required corner did not happen through %0d stages: a change of D while the block's frame waits (replay: make check-matrix-v3-faults V3_SEED=%0d)", `TB_WRAP_STAGES, seed);
    end
`endif
    if (n_arr == 0 || n_arr_ref == 0 || n_dep == 0 || n_enq == 0 || n_enq_ref == 0 || n_deq == 0 ||
            n_cross == 0 || n_rowclr == 0 || n_eclr == 0 || n_epause == 0 || n_frames == 0 || n_busy_xon == 0 ||
            n_unwritten == 0) begin
`ifdef TB_WRAP_STAGES
        $fatal(1, "capfc_top_v3_tb: a required corner did not happen through %0d stages (replay: make check-matrix-v3-faults V3_SEED=%0d)", `TB_WRAP_STAGES, seed);
`else
        $fatal(1, "capfc_top_v3_tb: a required corner did not happen (replay: make v3-check V3_SEED=%0d)", seed);
`endif
    end
    $finish;
end

endmodule

`undef TB_BLK
`undef TB_BLK_D
