// capfc_ingress_v3_tb: the v3 block's ingress (rtl/v3/capfc_ingress.sv) against a reference written
// from its contract (docs/microarchitecture.md), on random lanes, with Icarus (make v3-spike)
//
// - Reference: per queue the occupancy and I, updated at the take (the cycle a lane is valid and
//   ready): the departure first, then the arrival (accepted when occupancy + units <= MAX, I set
//   when lossless and the result > XOFF; I cleared when the departure leaves <= XON). Departures
//   are trusted: the stimulus never removes more than a queue holds.
// - Checked every cycle: arr_accept of every port (an arrival taken in t answers in t+4, every
//   other cycle 0), and I, which shows a take of cycle t from t+5 (so it is compared with the
//   reference as it stood five cycles before).
// - A second reset halfway, with new thresholds and lossless classes: the queues start again
//   from 0 while the RAMs hold the first half's words, and the groups' copies of the thresholds
//   must be the new ones when the lanes are ready.
// - Sizes and thresholds are multiples of 100, so occupancies land on thresholds.
// - Corners counted and required: results equal to a threshold, refusals, departure and arrival on one queue in one take, I set
//   and cleared, and a lane held because it was not ready. A run that checked none of them fails.
// - +SEED=n (printed) seeds $urandom; the same seed gives the same run. +DUMP=file writes the
//   unit's waveform (every register and RAM word, for the model's replay: make v3-lockstep). Exit: $fatal on an error.

`timescale 1ns / 1ps
`default_nettype none

module capfc_ingress_v3_tb;
localparam integer NP = `TB_NP;
localparam integer SW = 14;
localparam integer OW = 20;
localparam integer NQ = NP * 8;
localparam integer PW = (NP > 1) ? $clog2(NP) : 1;
localparam integer CYCLES = `TB_CYCLES;
localparam integer LAT = 4;

logic clk = 1'b0;
logic rst = 1'b1;
logic [8*OW-1:0]  cfg_max, cfg_xoff, cfg_xon;
logic [7:0]       cfg_ll;
// (the unit sees the configuration registered at the rising edge: Verilator 5.006 does not
// re-evaluate the logic reading a signal wider than 64 bits that this testbench's process
// changes at the falling edge, and the lockstep's replay of this run's waveform (make
// v3-lockstep) needs the unit simulated right; the configuration changes only with a reset)
logic [8*OW-1:0]  cfg_max_q, cfg_xoff_q, cfg_xon_q;
logic [7:0]       cfg_ll_q;
always @(posedge clk) begin
    cfg_max_q  <= cfg_max;
    cfg_xoff_q <= cfg_xoff;
    cfg_xon_q  <= cfg_xon;
    cfg_ll_q   <= cfg_ll;
end
logic [NP-1:0]    arr_valid;
logic [NP*3-1:0]  arr_prio;
logic [NP*SW-1:0] arr_size;
logic             dep_valid;
logic [PW-1:0]    dep_port;
logic [2:0]       dep_prio;
logic [SW-1:0]    dep_size;
wire  [NP-1:0]    arr_ready, arr_accept;
// the departure lane is taken on its port's slot ready (it has no ready of its own)
wire              dep_ready = (32'(dep_port) < NP) ? arr_ready[dep_port] : 1'b0;
wire  [NQ-1:0]    i_state;
// the unit reads the thresholds of one priority a cycle (its refresh, cfg_ra)
wire  [2:0]       cfg_ra;
wire  [OW-1:0]    cfg_max_ra  = cfg_max_q[cfg_ra*OW +: OW];
wire  [OW-1:0]    cfg_xoff_ra = cfg_xoff_q[cfg_ra*OW +: OW];
wire  [OW-1:0]    cfg_xon_ra  = cfg_xon_q[cfg_ra*OW +: OW];

capfc_ingress #(.NP(NP), .SW(SW), .OW(OW)) dut (
    .clk(clk), .rst(rst),
    .cfg_ra(cfg_ra), .cfg_ing_max(cfg_max_ra), .cfg_ing_xoff(cfg_xoff_ra), .cfg_ing_xon(cfg_xon_ra),
    .cfg_lossless(cfg_ll_q),
    .arr_valid(arr_valid), .arr_prio(arr_prio), .arr_size(arr_size), .arr_ready(arr_ready),
    .arr_accept(arr_accept),
    .dep_valid(dep_valid), .dep_port(dep_port), .dep_prio(dep_prio), .dep_size(dep_size),
    .i_state(i_state)
);

always #5 clk = ~clk;

// reference state, and its history of I for the comparison LAT+1 cycles later
longint          occ [NQ];
logic [NQ-1:0]   iref;
logic [NQ-1:0]   ihist [0:LAT];
logic [NP-1:0]   acc_due [0:LAT];
integer          seed, seed_rng, cyc, errors;
integer          n_take, n_acc, n_ref, n_same, n_set, n_clr, n_held, n_dep, n_eq;
longint          q, n;
integer          p, pick;
string           dump;

task automatic fail(input string what);
    errors = errors + 1;
    if (errors <= 10) begin
        $display("capfc_ingress_v3_tb: cycle %0d: %s (replay: make v3-spike V3_SEED=%0d)", cyc, what, seed);
    end
endtask

initial begin
    if (!$value$plusargs("SEED=%d", seed)) begin
        seed = 1;
    end
    // (+DUMP=file: the unit's every register and RAM word, for the model's replay, make v3-lockstep)
    if ($value$plusargs("DUMP=%s", dump)) begin
        $dumpfile(dump);
        $dumpvars(0, capfc_ingress_v3_tb.dut);
    end
    $display("capfc_ingress_v3_tb: NP=%0d seed %0d, %0d cycles", NP, seed, CYCLES);
    seed_rng = seed;
    pick = $urandom(seed_rng);
    for (int k = 0; k < 8; k = k + 1) begin
        // multiples of 100, as every size: occupancies land on the thresholds (the equality cases)
        cfg_max[k*OW +: OW]  = OW'(12000 + 100 * k);
        cfg_xoff[k*OW +: OW] = OW'(8000 + 100 * k);
        cfg_xon[k*OW +: OW]  = OW'(5000 - 100 * k);
    end
    cfg_ll = 8'b1010_0110;
    for (int k = 0; k < NQ; k = k + 1) begin
        occ[k] = 0;
    end
    iref = '0;
    for (int k = 0; k <= LAT; k = k + 1) begin
        ihist[k] = '0;
        acc_due[k] = '0;
    end
    n_take = 0; n_acc = 0; n_ref = 0; n_same = 0; n_set = 0; n_clr = 0; n_held = 0; n_dep = 0; n_eq = 0;
    errors = 0; cyc = 0;
    arr_valid = '0; arr_prio = '0; arr_size = '0;
    dep_valid = 1'b0; dep_port = '0; dep_prio = '0; dep_size = '0;
    repeat (2) @(negedge clk);
    rst = 1'b0;
    for (cyc = 0; cyc < CYCLES; cyc = cyc + 1) begin
        // lanes: arrivals at random ports; a departure aimed at a port whose slot it is, from a
        // queue that holds something, half of the cycles (three in four from twelve ports)
        for (int i = 0; i < NP; i = i + 1) begin
            // (the first twelve ports loaded, the others light: at every port count some queues
            // fill to MAX and back below XON)
            // (every port in the eight cycles after a reset, when no lane is ready yet)
            arr_valid[i] = ($urandom % ((i < 12) ? 3 : 24)) == 0 || cyc < 8 ||
                           (cyc > CYCLES / 2 && cyc <= CYCLES / 2 + 8);
            arr_prio[i*3 +: 3] = 3'($urandom % 4);
            arr_size[i*SW +: SW] = SW'(100 * (1 + $urandom % 15));
            if (arr_valid[i] && !arr_ready[i]) begin
                n_held = n_held + 1;
            end
        end
        dep_valid = 1'b0;
        if ($urandom % 4 < ((NP < 12) ? 2 : 3)) begin
            pick = $urandom % NP;
            for (int k = 0; k < NP; k = k + 1) begin
                if (arr_ready[(pick + k) % NP] && occ[((pick + k) % NP) * 8 + ($urandom % 4)] > 0) begin
                    dep_port = PW'((pick + k) % NP);
                end
            end
            dep_prio = 3'($urandom % 4);
            q = longint'(dep_port) * 8 + dep_prio;
            if (arr_ready[dep_port] && occ[q] > 0) begin
                dep_valid = 1'b1;
                dep_size = SW'((occ[q] < 1500) ? occ[q] : 100 * (1 + $urandom % 15));
            end
        end
        // a second reset halfway, with every lane idle: the queues start again from 0 (the RAMs
        // still hold the words of the first half)
        rst = cyc == CYCLES / 2;
        if (rst) begin
            arr_valid = '0;
            dep_valid = 1'b0;
            // and new thresholds and lossless classes, which reach the groups' copies before
            // the lanes are ready
            for (int k = 0; k < 8; k = k + 1) begin
                cfg_max[k*OW +: OW]  = OW'(11000 + 100 * k);
                cfg_xoff[k*OW +: OW] = OW'(7500 + 100 * k);
                cfg_xon[k*OW +: OW]  = OW'(5200 - 100 * k);
            end
            cfg_ll = 8'b0101_0011;
        end
        #1;
        // answers and I due this cycle
        for (int i = 0; i < NP; i = i + 1) begin
            if (arr_accept[i] !== acc_due[0][i]) begin
                fail($sformatf("arr_accept[%0d] = %b, expected %b", i, arr_accept[i], acc_due[0][i]));
            end
        end
        if (i_state !== ihist[0]) begin
            fail($sformatf("I = %h, expected %h", i_state, ihist[0]));
        end
        for (int k = 0; k < LAT; k = k + 1) begin
            acc_due[k] = acc_due[k + 1];
            ihist[k] = ihist[k + 1];
        end
        acc_due[LAT] = '0;
        if (rst) begin
            for (int k = 0; k < NQ; k = k + 1) occ[k] = 0;
            iref = '0;
            for (int k = 0; k <= LAT; k = k + 1) begin
                ihist[k] = '0;
                acc_due[k] = '0;
            end
        end
        // the reference takes this cycle's lanes: the departure first
        if (dep_valid && dep_ready) begin
            q = longint'(dep_port) * 8 + dep_prio;
            n_dep = n_dep + 1;
            occ[q] = occ[q] - dep_size;
            if (occ[q] == cfg_xon[dep_prio*OW +: OW]) n_eq = n_eq + 1;
            if (occ[q] <= cfg_xon[dep_prio*OW +: OW] && iref[q]) begin
                iref[q] = 1'b0;
                n_clr = n_clr + 1;
            end
            if (arr_valid[dep_port] && arr_ready[dep_port] && arr_prio[dep_port*3 +: 3] == dep_prio) begin
                n_same = n_same + 1;
            end
        end
        for (int i = 0; i < NP; i = i + 1) begin
            if (arr_valid[i] && arr_ready[i]) begin
                p = arr_prio[i*3 +: 3];
                q = i * 8 + p;
                n = occ[q] + arr_size[i*SW +: SW];
                n_take = n_take + 1;
                if (n == cfg_max[p*OW +: OW] || n == cfg_xoff[p*OW +: OW]) n_eq = n_eq + 1;
                if (n <= cfg_max[p*OW +: OW]) begin
                    n_acc = n_acc + 1;
                    occ[q] = n;
                    acc_due[LAT - 1][i] = 1'b1;
                    if (cfg_ll[p] && n > cfg_xoff[p*OW +: OW] && !iref[q]) begin
                        iref[q] = 1'b1;
                        n_set = n_set + 1;
                    end
                end else begin
                    n_ref = n_ref + 1;
                end
            end
        end
        ihist[LAT] = iref;
        @(negedge clk);
    end
    $display("capfc_ingress_v3_tb: %0d arrivals taken (%0d accepted, %0d refused), %0d departures, %0d on one queue with an arrival, I set %0d and cleared %0d times, %0d lanes held, %0d results equal to a threshold",
        n_take, n_acc, n_ref, n_dep, n_same, n_set, n_clr, n_held, n_eq);
    if (n_ref == 0 || n_same == 0 || n_set == 0 || n_clr == 0 || n_held == 0 || n_eq == 0) begin
        fail("a corner was not reached (refusal, one queue, I set, I cleared, lane held, equality)");
    end
    if (errors != 0) begin
        $fatal(1, "capfc_ingress_v3_tb: %0d errors", errors);
    end
    $display("capfc_ingress_v3_tb: 1 passed, 0 failed");
    $finish;
end

endmodule

`resetall
