# v3.mk: the block (capfc_top_oc, rtl/v3, docs/microarchitecture.md) and its units, checked: v3-spike
# keeps each unit clean (Verilator -Wall at V3_PORTS) and runs it against a reference written
# from the contract (testbench/v3) at V3_TB_PORTS: the ingress on Icarus, the egress and the sort
# engines on Verilator (--binary --timing; Icarus 11 does not get past the egress's first cycle);
# v3-check, v3-faults and v3-golden-faults check the whole block; fpga-v3 places and routes it.
#
#   make v3-spike [V3_SEED=n] [V3_CYCLES=n]
#   make fpga PORTS=48 FPGA_TOP=capfc_ingress FPGA_FILES="$(V3_INGRESS)"   (a unit on the FPGA flow)

V3_PORTS    ?= 4 6 8 16 48 128
V3_TB_PORTS ?= 4 12 48
# the ports at which the ingress's testbench runs on Icarus (its checks at V3_LOCKSTEP_PORTS also run
# on Verilator, below; make test keeps Icarus to 4 ports, where it takes 4 s of CPU, against 24 s at 12)
V3_TB_ICARUS_PORTS ?= $(V3_TB_PORTS)
# the units' testbenches whose waveforms the units' models replay (make v3-lockstep)
V3_LOCKSTEP_PORTS ?= 12
# (--trace-max-array/-width: Verilator leaves out of a waveform arrays of more than 32 elements and
# signals wider than 256 bits, and the replay refuses a waveform that lacks a register)
# (the testbenches' C++ at -O1: at 48 ports the egress's builds in 41 s of CPU, against 50 s at
# Verilator's -Os, and runs as fast; the trace code only in the builds whose waveform a model
# replays: without it the egress's at 48 ports builds in 24 s)
V3_TB_VERILATOR = verilator --binary -j 2 --timing -MAKEFLAGS OPT_FAST=-O1 -Wno-fatal -Wno-lint -Wno-style
V3_TB_TRACE = --trace --trace-max-array 4096 --trace-max-width 4096
V3_SEED     ?= 1
V3_CYCLES   ?= 20000
V3_INGRESS  := rtl/capfc_pkg.sv rtl/capfc_lutram.sv rtl/v3/capfc_thr_copies.sv rtl/v3/capfc_ingress.sv
V3_EGRESS   := rtl/capfc_pkg.sv rtl/capfc_lutram.sv rtl/capfc_ram.sv rtl/v3/capfc_thr_copies.sv rtl/v3/capfc_egress.sv
V3_SORT     := rtl/capfc_pkg.sv rtl/capfc_ram.sv rtl/v3/capfc_sort.sv
# the egress with the v3 sort engines beside it, for the FPGA flow (FPGA_TOP=capfc_egress_sort_oc)
V3_EGSORT   := rtl/capfc_pkg.sv rtl/capfc_lutram.sv rtl/capfc_ram.sv rtl/v3/capfc_thr_copies.sv rtl/v3/capfc_egress.sv rtl/v3/capfc_sort.sv rtl/v3/capfc_egress_sort_oc.sv
# the block (capfc_top_oc: its configuration registers, the units, the PFC generator, D registered), in
# rtl/v3/files.f's order: make fpga-v3, make v3-check
V3_TOP      := $(shell grep -v '^\#' rtl/v3/files.f)

.PHONY: v3-spike

# (the assembled block's own lint, slang and Icarus compile are make lint-rtl, lint-slang and icarus)
v3-spike: deps ## the block's units: verilator -Wall, each against its reference, and their models in lockstep (V3_SEED)
	@for np in $(V3_PORTS); do \
	  verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module capfc_ingress -GNP=$$np $(V3_INGRESS) || exit 1; \
	  verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module capfc_egress -GNP=$$np $(V3_EGRESS) || exit 1; \
	  verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module capfc_sort -GNP=$$np $(V3_SORT) || exit 1; \
	  verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module capfc_egress_sort_oc -GNP=$$np $(V3_EGSORT) || exit 1; \
	done
	@echo "v3-spike: capfc_ingress, capfc_egress, capfc_sort and the egress with the engines clean at NP = $(V3_PORTS) (UNUSEDPARAM waived: capfc_pkg's constants the units do not use)"
	@# (Icarus 11 does not simulate the egress's testbench in reasonable time, so only the
	@# ingress's runs on it)
	$(CARGO) build --release --quiet --example v3_lockstep
	@mkdir -p build/v3
	@for np in $(V3_TB_ICARUS_PORTS); do \
	  iverilog -g2012 -DTB_NP=$$np -DTB_CYCLES=$(V3_CYCLES) -o build/v3/ingress_tb_np$$np \
	    $(V3_INGRESS) testbench/v3/capfc_ingress_v3_tb.sv 2>&1 | grep -v "sorry: constant selects" >&2; \
	  vvp -n build/v3/ingress_tb_np$$np +SEED=$(V3_SEED) || exit 1; \
	done
	@# (the testbench is behavioural code, not RTL: -Wno-lint -Wno-style waive the width and style
	@# warnings of its reference arithmetic in longint; the spikes themselves are linted -Wall above)
	@# (each Verilator testbench built with --trace: at V3_LOCKSTEP_PORTS its run dumps every
	@# register of the unit and the unit's Rust model replays it, below)
	@for np in $(V3_TB_PORTS); do \
	  tr=; case " $(V3_LOCKSTEP_PORTS) " in *" $$np "*) tr="$(V3_TB_TRACE)";; esac; \
	  $(V3_TB_VERILATOR) $$tr -DTB_NP=$$np -DTB_CYCLES=$(V3_CYCLES) \
	    --top-module capfc_egress_v3_tb -Mdir build/v3/egress_tb_np$$np $(V3_EGRESS) \
	    testbench/v3/capfc_egress_v3_tb.sv > build/v3/egress_tb_np$$np.log 2>&1 \
	    || { tail -20 build/v3/egress_tb_np$$np.log; exit 1; }; \
	  case " $(V3_LOCKSTEP_PORTS) " in \
	    *" $$np "*) build/v3/egress_tb_np$$np/Vcapfc_egress_v3_tb +SEED=$(V3_SEED) +DUMP=build/v3/egress_np$$np.vcd || exit 1; \
	      target/release/examples/v3_lockstep egress build/v3/egress_np$$np.vcd $$np \
	        || { echo "v3-spike: capfc_egress's model, NP=$$np (replay: make v3-spike V3_SEED=$(V3_SEED))"; exit 1; }; \
	      rm -f build/v3/egress_np$$np.vcd;; \
	    *) build/v3/egress_tb_np$$np/Vcapfc_egress_v3_tb +SEED=$(V3_SEED) || exit 1;; \
	  esac; \
	done
	@# (the sort engines also at NP = 5 with CW = 7: the last engine with one port, and the search's
	@# first pass with a candidate above the counters' range)
	@for pc in $(addsuffix :16,$(V3_TB_PORTS)) 5:7; do \
	  np=$${pc%:*}; cw=$${pc#*:}; d=build/v3/sort_tb_np$${np}_cw$$cw; \
	  tr=; case " $(V3_LOCKSTEP_PORTS) 5 " in *" $$np "*) tr="$(V3_TB_TRACE)";; esac; \
	  $(V3_TB_VERILATOR) $$tr -DTB_NP=$$np -DTB_CW=$$cw -DTB_CYCLES=$(V3_CYCLES) \
	    --top-module capfc_sort_v3_tb -Mdir $$d $(V3_SORT) \
	    testbench/v3/capfc_sort_v3_tb.sv > $$d.log 2>&1 || { tail -20 $$d.log; exit 1; }; \
	  case " $(V3_LOCKSTEP_PORTS) 5 " in \
	    *" $$np "*) $$d/Vcapfc_sort_v3_tb +SEED=$(V3_SEED) +DUMP=$$d.vcd || exit 1; \
	      target/release/examples/v3_lockstep sort $$d.vcd $$np $$cw \
	        || { echo "v3-spike: capfc_sort's model, NP=$$np CW=$$cw (replay: make v3-spike V3_SEED=$(V3_SEED))"; exit 1; }; \
	      rm -f $$d.vcd;; \
	    *) $$d/Vcapfc_sort_v3_tb +SEED=$(V3_SEED) || exit 1;; \
	  esac; \
	done
	@# (the ingress on Verilator at V3_LOCKSTEP_PORTS, its testbench's checks printed, for its
	@# model's replay)
	@for np in $(V3_LOCKSTEP_PORTS); do \
	  $(V3_TB_VERILATOR) $(V3_TB_TRACE) -DTB_NP=$$np -DTB_CYCLES=$(V3_CYCLES) --top-module capfc_ingress_v3_tb \
	    -Mdir build/v3/ingress_ls_np$$np $(V3_INGRESS) testbench/v3/capfc_ingress_v3_tb.sv \
	    > build/v3/ingress_ls_np$$np.log 2>&1 || { tail -20 build/v3/ingress_ls_np$$np.log; exit 1; }; \
	  build/v3/ingress_ls_np$$np/Vcapfc_ingress_v3_tb +SEED=$(V3_SEED) +DUMP=build/v3/ingress_np$$np.vcd > build/v3/ingress_ls_np$$np.out \
	    || { cat build/v3/ingress_ls_np$$np.out; exit 1; }; \
	  grep -v '^- ' build/v3/ingress_ls_np$$np.out; \
	  target/release/examples/v3_lockstep ingress build/v3/ingress_np$$np.vcd $$np \
	    || { echo "v3-spike: capfc_ingress's model, NP=$$np (replay: make v3-spike V3_SEED=$(V3_SEED))"; exit 1; }; \
	  rm -f build/v3/ingress_np$$np.vcd; \
	done
	@# (an RTL mutation the contract cannot see, the scrub a cycle longer while no lane is ready,
	@# which the replay must report: the comparison can fail)
	@mkdir -p build/v3/mut
	@sed 's/rc_q\[g\] >= 5.d3 \&\& rc_q\[g\] < 5.d11/rc_q[g] >= 5'"'"'d3 \&\& rc_q[g] < 5'"'"'d12/' rtl/v3/capfc_ingress.sv > build/v3/mut/capfc_ingress.sv
	@! cmp -s rtl/v3/capfc_ingress.sv build/v3/mut/capfc_ingress.sv || { echo "v3-spike: the mutation no longer applies"; exit 1; }
	@$(V3_TB_VERILATOR) $(V3_TB_TRACE) -DTB_NP=4 -DTB_CYCLES=$(V3_CYCLES) --top-module capfc_ingress_v3_tb \
	    -Mdir build/v3/ingress_ls_mut $(filter-out rtl/v3/capfc_ingress.sv,$(V3_INGRESS)) build/v3/mut/capfc_ingress.sv \
	    testbench/v3/capfc_ingress_v3_tb.sv > build/v3/ingress_ls_mut.log 2>&1 || { tail -20 build/v3/ingress_ls_mut.log; exit 1; }
	@build/v3/ingress_ls_mut/Vcapfc_ingress_v3_tb +SEED=$(V3_SEED) +DUMP=build/v3/ingress_mut.vcd > /dev/null; \
	  target/release/examples/v3_lockstep ingress build/v3/ingress_mut.vcd 4 > build/v3/ingress_mut.txt; rc=$$?; \
	  rm -f build/v3/ingress_mut.vcd; \
	  if [ $$rc -eq 1 ]; then echo "v3-spike: the ingress's scrub a cycle longer (a mutation the contract cannot see): caught by its model's replay, first: $$(head -1 build/v3/ingress_mut.txt)"; \
	  else echo "v3-spike: the mutated ingress was not caught by its model's replay (exit $$rc)"; cat build/v3/ingress_mut.txt; exit 1; fi

# The assembled v3 block (capfc_top_oc) checked whole against the contract: the testbench drives
# legal random traffic (lanes held until ready) and writes a waveform, and `capfc check --wave`
# judges it against shared/domain.md section 3 within v3's timing envelope (`capfc check
# --envelope v3_np4 --ports N`: crates/check/src/check/block.rs, envelope_of_v3), from
# docs/microarchitecture.md's latencies (a lane taken in t: accepts in t+4, D from I in t+6;
# D may stay up 6 cycles after E's clear; a sort requested in t+6 is granted in t+7 and its E
# shows in D 12 cycles after the request's take plus the sort's busy time: Stop-Max's pass, or
# at the earliest Stop-Calibrate's COPY, MUL, SRCH and GT before SEL writes its first E; at worst
# after every other row of its engine, 2 NL - 1 of them, and its own previous sort, each with
# a grant cycle).
#
# The same waveform (every register and RAM word dumped) then replays the block's Rust model
# (crates/block/src/v3/top.rs, examples/v3_lockstep.rs): every register and output compared every cycle.
#
#   make v3-check [V3_SEED=n] [V3_CHECK_PORTS="4 12"] [V3_CHECK_CYCLES=n]

V3_CHECK_PORTS  ?= 4 12
V3_CHECK_CYCLES ?= 20000
V3_CW := 16
V3_CUT_F := 8
V3_NL := 2

.PHONY: v3-check v3-faults v3-bench-stim v3-golden-faults

# The v3 golden sets named after a corner, each replayed on Icarus against the RTL with the fault
# of the rule it covers (scripts/v3_golden_faults.sh): each replay must fail. (A few seconds.)
v3-golden-faults: ## the v3 golden sets named after a corner fail on the RTL with that corner's fault
	scripts/v3_golden_faults.sh

# The block testbench at NP = $$np, built into build/v3/top_tb_np$$np (a shell fragment).
V3_TOP_TB_BUILD = $(V3_TB_VERILATOR) $(V3_TB_TRACE) \
	    -DTB_NP=$$np -DTB_CYCLES=$(V3_CHECK_CYCLES) --top-module capfc_top_v3_tb \
	    -Mdir build/v3/top_tb_np$$np $(V3_TOP) testbench/v3/capfc_top_v3_tb.sv \
	    > build/v3/top_tb_np$$np.log 2>&1 || { tail -20 build/v3/top_tb_np$$np.log; false; }

# The v3 block benchmark's stimulus (benches/block_v3.rs): the block testbench's port waveform at
# 8, 32 and 48 ports, seed 1.
v3-bench-stim: deps
	@mkdir -p build/v3
	@for np in 8 32 48; do \
	  $(V3_TOP_TB_BUILD) || exit 1; \
	  build/v3/top_tb_np$$np/Vcapfc_top_v3_tb +SEED=1 +DUMP=build/v3/bench_np$$np.vcd > /dev/null || exit 1; \
	done

v3-faults: ## the named faults of the assembled v3 block that make v3-check must catch (scripts/v3_faults.sh; about 30 s a fault)
	$(CARGO) build --release --quiet
	@$(MAKE) --no-print-directory v3-check V3_CHECK_PORTS=4 > /dev/null
	scripts/v3_faults.sh 4 $(V3_SEED)

v3-check: deps ## the assembled v3 block on random traffic, judged by capfc check from its waveform, and its model in lockstep (V3_SEED)
	$(CARGO) build --release --quiet
	$(CARGO) build --release --quiet --example v3_lockstep
	@mkdir -p build/v3
	@for np in $(V3_CHECK_PORTS); do \
	  $(V3_TOP_TB_BUILD) || exit 1; \
	  build/v3/top_tb_np$$np/Vcapfc_top_v3_tb +SEED=$(V3_SEED) +DUMPALL=build/v3/top_np$$np.vcd || exit 1; \
	  sed "s/^np = .*/np = $$np/" check/v3/capfc_top_v3.map.toml > build/v3/top_np$$np.map.toml; \
	  target/release/capfc check --envelope v3_np4 --ports $$np > build/v3/top_np$$np.timing.toml || exit 1; \
	  target/release/capfc check --wave build/v3/top_np$$np.vcd --map build/v3/top_np$$np.map.toml \
	    --timing build/v3/top_np$$np.timing.toml \
	    || { echo "v3-check: NP=$$np failed (replay: make v3-check V3_SEED=$(V3_SEED) V3_CHECK_PORTS=$$np)"; exit 1; }; \
	  target/release/examples/v3_lockstep top build/v3/top_np$$np.vcd $$np 14 20 $(V3_CW) 0 $(V3_CUT_F) $(V3_NL) \
	    || { echo "v3-check: NP=$$np: the block's model and its RTL differ (replay: make v3-check V3_SEED=$(V3_SEED) V3_CHECK_PORTS=$$np)"; exit 1; }; \
	  if [ $$np = 4 ]; then \
	    target/release/examples/v3_lockstep top-rtl build/v3/top_np$$np.vcd $$np 14 20 $(V3_CW) 0 $(V3_CUT_F) $(V3_NL) \
	      || { echo "v3-check: NP=$$np: the block's model and its Verilated RTL in process differ (replay: make v3-check V3_SEED=$(V3_SEED) V3_CHECK_PORTS=$$np)"; exit 1; }; \
	  fi; \
	  rm -f build/v3/top_np$$np.vcd; \
	done

# The v3 units' Rust models (crates/block/src/v3: the ingress, the egress, the sort engines) against their
# RTL, register for register and cycle for cycle, run by v3-spike: each unit's testbench (its own
# contract checks) runs on Verilator with every register and RAM word dumped, at
# V3_LOCKSTEP_PORTS (and the sort engines at 5 ports with CW = 7), and the unit's model replays
# the waveform's inputs (examples/v3_lockstep.rs: every register and output compared every cycle;
# a register of the RTL the model does not list is an error); then one RTL mutation the contract
# cannot see, which the replay must report. (At 4 and 12 ports every unit is replayed inside the
# whole block too, by v3-check.)
#
#   make v3-lockstep [V3_SEED=n] [V3_LOCKSTEP_PORTS="12 48"]     (the same as make v3-spike)

.PHONY: v3-lockstep

v3-lockstep: v3-spike ## the v3 units' models against their RTL, register for register (run by v3-spike)

# The v3 block on the open FPGA flow as it meets 125 MHz at 48 ports (127.1 MHz with seed 1,
# docs/fpga.md): 48 ports, NL = 2, grade 8, router1 with its timing-driven rip-up, the static placer, the
# harness's reset on a global network and its inputs free. Any of these given on the command line
# wins (make fpga-v3 PORTS=8 FPGA_SPEED=6 FPGA_SEED="1 2"); about 45 minutes at 48 ports on 2 cores.
v3_fpga_default = $(if $(filter command line,$(origin $(1))),,$(1)=$(2))

.PHONY: fpga-v3

fpga-v3: ## the v3 block on the ECP5 flow as it met 125 MHz: 48 ports, NL=2, grade 8, router1 with --tmg-ripup (PORTS, FPGA_* override)
	@$(MAKE) --no-print-directory fpga $(call v3_fpga_default,PORTS,48) $(call v3_fpga_default,NL,2) FPGA_TOP=capfc_top_oc FPGA_FILES="$(V3_TOP)" \
	  $(call v3_fpga_default,FPGA_ROUTER,router1) $(call v3_fpga_default,FPGA_PLACER,static) \
	  $(call v3_fpga_default,FPGA_RST_GLOBAL,1) $(call v3_fpga_default,FPGA_FREE_INPUTS,1) \
	  $(call v3_fpga_default,FPGA_SPEED,8) $(call v3_fpga_default,FPGA_NEXTPNR_ARGS,--tmg-ripup)
