# replay.mk: replay golden vector sets through the plain Verilog testbench, no Rust involved
#
# Included by the top-level Makefile; also usable alone: `make -f mk/replay.mk replay`.
# A set is a directory holding params.vh, stim.hex, expect.hex (docs/golden.md). The testbench
# (testbench/capfc_tb.sv) gets params.vh through the include path and the .hex files through
# +GOLDEN=<dir>, and ends with `N passed, N failed`. A replay passes only when the simulator exits
# with status 0 AND printed `N passed, 0 failed`, so a run that stops early cannot pass.
#
#   make replay SIM=icarus GOLDEN=golden/<set>    one set, one simulator (SIM: verilator | icarus)
#   make replay-all                               every set under golden/ and golden/v3/, both simulators
#   make lint-tb GOLDEN=golden/<set>          verilator --lint-only -Wall on the testbench

# the repository as a path prefix: empty when make runs in it (as from the top-level Makefile),
# else its absolute path and a slash
REPLAY_ROOT := $(patsubst %/mk/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
REPLAY_R    := $(if $(filter $(REPLAY_ROOT),$(CURDIR)),,$(REPLAY_ROOT)/)
REPLAY_MK   := $(REPLAY_R)mk/replay.mk

SIM         ?= verilator
GOLDEN      ?= $(REPLAY_R)golden/random_max_np4_seed1
# Arguments appended to the simulation command line, e.g. SIMARGS=+MAX_REPORTS=500
SIMARGS     ?=

REPLAY_TB   := $(REPLAY_R)testbench/capfc_tb.sv
# a set of the block (its params.vh defines CAPFC_V3) is replayed against rtl/v3/files.f, a set of
# the test subject v2 against check/capfc_v2/files.f
REPLAY_V3   := $(shell grep -qs '^`define CAPFC_V3 ' $(GOLDEN)/params.vh && echo v3)
REPLAY_RTL  := $(addprefix $(REPLAY_R),$(shell grep -vE '^\s*(//|\#|$$)' $(REPLAY_R)$(if $(REPLAY_V3),rtl/v3,check/capfc_v2)/files.f))
# a set's log and status (and under Icarus its build: params.vh is compiled into the testbench)
REPLAY_SET  := $(if $(REPLAY_V3),v3_)$(notdir $(patsubst %/,%,$(GOLDEN)))
REPLAY_OUT  := $(REPLAY_R)build/replay/$(SIM)/$(REPLAY_SET)
# replays run at once by replay-all (each prints its lines when it ends)
REPLAY_JOBS ?= 2
# replay-all replays on Icarus only the sets of at most this many cycles, when set (make test
# sets it: Icarus takes about 2 ms a cycle of the 8-port block, so the two recorded switch
# scenarios, 40,062 and 60,062 cycles, would take over two minutes of its time; Verilator still
# replays them). Empty: every set on both simulators.
REPLAY_ICARUS_MAX_CYCLES ?=
# 0: replay-all replays the test subject v2's sets on Verilator only (make test sets it: its
# tests/check_v2.rs runs every one of them on Icarus through the same testbench, and requires
# 0 failed). 1: on both simulators.
REPLAY_ICARUS_V2 ?= 1
REPLAY_FAILED = $(REPLAY_R)build/replay/failed
# the sets: directories under golden/ holding a params.vh, the most cycles first (so that
# replay-all does not end on one long run); those Icarus replays (REPLAY_ICARUS_MAX_CYCLES)
REPLAY_CYCLES := $(shell grep -H '^`define CAPFC_CYCLES ' $(REPLAY_R)golden/*/params.vh $(REPLAY_R)golden/v3/*/params.vh 2>/dev/null \
	| sort -t' ' -k3,3nr | sed 's|/params.vh:`define CAPFC_CYCLES |:|')
comma := ,
REPLAY_SETS := $(foreach c,$(REPLAY_CYCLES),$(firstword $(subst :, ,$(c))))
# (expanded only by replay-all's recipe, not by each replay's make)
REPLAY_ICARUS_ALL = $(if $(REPLAY_ICARUS_MAX_CYCLES),$(shell printf '%s\n' $(REPLAY_CYCLES) \
	| awk -F: '$$2 <= $(REPLAY_ICARUS_MAX_CYCLES) { print $$1 }'),$(REPLAY_SETS))
REPLAY_ICARUS_SETS = $(if $(filter 0,$(REPLAY_ICARUS_V2)),$(filter $(REPLAY_R)golden/v3/%,$(REPLAY_ICARUS_ALL)),$(REPLAY_ICARUS_ALL))

# A define of the set's params.vh, for the shell.
REPLAY_DEF   = $$(sed -n 's/^`define CAPFC_$(1) //p' $(GOLDEN)/params.vh)

ifeq ($(SIM),verilator)
# One Verilator build serves every set with the same block parameters (NP .. NL and the port
# widths; the line counts come in as plusargs, testbench/capfc_tb.sv "Shared builds"), with room
# for 65,536 lines per file, or the next power of two above the set's. Builds of one key are
# serialised with flock, so that replay-all's parallel jobs never build the same one twice.
# --binary brings --main --exe --build --timing (the testbench's clock and delays need --timing).
# (The C++ at -O0 throughout: a set is a few thousand cycles, so the build is what costs; a v3
# set at 4 ports builds in 13 s of CPU so, 16 s at verilated.mk's -Os, and replays in 0.1 s.)
REPLAY_KEY   = $$(grep -E '^`define CAPFC_(V3|NP|SW|OW|CW|CELL_LOG2|CUT_F|NL|IN_BITS|OUT_BITS) ' \
	$(GOLDEN)/params.vh | md5sum | cut -c1-12)
REPLAY_BUILD = lines=$(call REPLAY_DEF,STIM_LINES); e=$(call REPLAY_DEF,EXPECT_LINES); \
	[ "$$e" -gt "$$lines" ] 2>/dev/null && lines=$$e; cap=65536; \
	while [ "$$cap" -lt "$$lines" ]; do cap=$$((cap * 2)); done; \
	bin=$(REPLAY_R)build/replay/verilator/shared-$(REPLAY_KEY)-$$cap; mkdir -p $$bin; \
	echo $$bin/capfc_tb >$(REPLAY_OUT)/bin; \
	flock $$bin.lock sh -c 'if [ ! -x "$$0/capfc_tb" ] || [ -n "$$(find $(REPLAY_RTL) $(REPLAY_TB) -newer $$0/capfc_tb)" ]; then \
	  verilator --binary -j 2 -MAKEFLAGS "OPT_FAST=-O0 OPT_GLOBAL=-O0" -Wno-fatal --top-module capfc_tb +incdir+$(GOLDEN) \
	    +define+CAPFC_LINES_MAX=$$1 --Mdir $$0 -o capfc_tb $(REPLAY_RTL) $(REPLAY_TB) >$$0/build.log 2>&1 \
	  && { grep -E "^%Warning" $$0/build.log || true; } || { cat $$0/build.log; rm -f $$0/capfc_tb; exit 1; }; fi' $$bin $$cap
REPLAY_RUN   = $$(cat $(REPLAY_OUT)/bin) +CYCLES=$(call REPLAY_DEF,CYCLES) \
	+STIM_LINES=$(call REPLAY_DEF,STIM_LINES) +EXPECT_LINES=$(call REPLAY_DEF,EXPECT_LINES)
else ifeq ($(SIM),icarus)
REPLAY_BUILD = iverilog -g2012 -I $(GOLDEN) -s capfc_tb -o $(REPLAY_OUT)/capfc_tb.vvp \
	$(REPLAY_RTL) $(REPLAY_TB)
REPLAY_RUN   = vvp -n $(REPLAY_OUT)/capfc_tb.vvp
else
REPLAY_BUILD = echo "replay: SIM=$(SIM): use SIM=verilator or SIM=icarus" >&2; exit 2
REPLAY_RUN   = false
endif

.PHONY: replay replay-all lint-tb

replay: ## replay golden set GOLDEN=golden/<set> through testbench/capfc_tb.sv with SIM
	@test -f $(GOLDEN)/params.vh \
	  || { echo "replay: $(GOLDEN)/params.vh: no such golden set" >&2; exit 2; }
	@mkdir -p $(REPLAY_OUT)
	@echo "replay: $(SIM) $(GOLDEN)"
	@$(REPLAY_BUILD)
	@{ $(REPLAY_RUN) +GOLDEN=$(GOLDEN) $(SIMARGS); echo $$? >$(REPLAY_OUT)/status; } 2>&1 \
	  | tee $(REPLAY_OUT)/replay.log
	@status=$$(cat $(REPLAY_OUT)/status); \
	if [ "$$status" = 0 ] && grep -qE '^[0-9]+ passed, 0 failed$$' $(REPLAY_OUT)/replay.log; then \
	  echo "replay: $(SIM) $(REPLAY_SET): PASS"; \
	else \
	  echo "replay: $(SIM) $(REPLAY_SET): FAIL (exit status $$status," \
	    "log $(REPLAY_OUT)/replay.log)" >&2; \
	  exit 1; \
	fi

replay-all: ## replay every set under golden/ with Verilator and Icarus, REPLAY_JOBS at a time; fails if any fails
	@test -n "$(REPLAY_SETS)" || { echo "replay-all: no golden/*/params.vh" >&2; exit 2; }
	@case "$(REPLAY_ICARUS_MAX_CYCLES)" in *[!0-9]*) echo "replay-all: REPLAY_ICARUS_MAX_CYCLES=$(REPLAY_ICARUS_MAX_CYCLES):" \
	  "a number of cycles, or empty for every set" >&2; exit 2;; esac
	@mkdir -p $(REPLAY_R)build/replay && rm -f $(REPLAY_FAILED)
	@printf '%s %s\n' $(foreach s,$(REPLAY_SETS),verilator $(s) $(if $(filter $(s),$(REPLAY_ICARUS_SETS)),icarus $(s))) \
	  | xargs -P $(REPLAY_JOBS) -n 2 sh -c 'out=$$($(MAKE) --no-print-directory -f $(REPLAY_MK) replay \
	      SIM=$$0 GOLDEN=$$1 2>&1) || echo "$$0:$${1##*/}" >>$(REPLAY_FAILED); printf "%s\n" "$$out"'
	@if [ -s $(REPLAY_FAILED) ]; then \
	  echo "replay-all: FAILED: $$(tr '\n' ' ' <$(REPLAY_FAILED))" >&2; exit 1; \
	fi; \
	echo "replay-all: all $(words $(REPLAY_SETS) $(REPLAY_ICARUS_SETS)) replays passed ($(words $(REPLAY_SETS)) sets on Verilator, $(words $(REPLAY_ICARUS_SETS)) on Icarus$(if \
	  $(filter-out $(REPLAY_ICARUS_ALL),$(REPLAY_SETS)),; over $(REPLAY_ICARUS_MAX_CYCLES) cycles$(comma) left to Verilator: $(notdir $(filter-out $(REPLAY_ICARUS_ALL),$(REPLAY_SETS))))$(if \
	  $(filter-out $(REPLAY_ICARUS_SETS),$(REPLAY_ICARUS_ALL)),; v2's $(words $(filter-out $(REPLAY_ICARUS_SETS),$(REPLAY_ICARUS_ALL))) left to Verilator and tests/check_v2.rs))"

lint-tb: ## verilator --lint-only -Wall on testbench/capfc_tb.sv and the RTL (params.vh of GOLDEN)
	@# (a v3 set: UNUSEDPARAM waived, as make v3-spike does: capfc_pkg's v2 constants v3 does not use)
	verilator --lint-only -Wall $(if $(REPLAY_V3),-Wno-UNUSEDPARAM) --timing --top-module capfc_tb +incdir+$(GOLDEN) \
	  $(REPLAY_RTL) $(REPLAY_TB)
	@echo "lint-tb: clean"
