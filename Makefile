# capfc: the CaPFC block's Rust model, its RTL, and the co-simulation between them.
# `make` alone prints the targets. Settings are variables: `make synth PORTS=16`.

CARGO     ?= cargo
PORTS     ?= 8
LINT_PORTS ?= 4 6 8 16 32 48 64 128
# 1: `make lint` (so `make test`) runs lint-slang too (slang -Weverything, zero diagnostics);
# LINT_SLANG=0 leaves it out
LINT_SLANG ?= 1
# the test subject v2 (check/capfc_v2/README.md): its RTL and its seeded bugs
V2_RTL  := $(shell grep -vE '^\s*(//|\#|$$)' check/capfc_v2/files.f)
V2_BUGS := $(sort $(patsubst CAPFC_V2_BUG_%,%,$(shell grep -ohE 'CAPFC_V2_BUG_[A-Z_]+' $(V2_RTL))))
# Extra arguments for `make run`, e.g. ARGS="--config np32 --seeds 1..9".
ARGS      ?=
# the port counts `make icarus` compiles the block at
ICARUS_PORTS ?= 4 6 8 16 48 128

# The C++ compiles through ccache when it is installed (`make test` installs it): a clean clone
# compiles the same Verilated models and testbenches again (the build script's ten parameter
# sets, the units' and the block's testbenches, the golden replays' builds), and ccache keeps
# their objects between clones (in ~/.cache/ccache, as cargo keeps the crates it downloaded).
# Paths are hashed relative to the clone (CCACHE_BASEDIR) and without the working directory, so
# that a clone anywhere finds them. Verilator's builds take it as OBJCACHE (verilated.mk), cargo's
# build scripts as the wrapper in CXX (the cc crate). CCACHE_DISABLE=1 turns it off.
ifneq ($(shell command -v ccache 2>/dev/null),)
export OBJCACHE ?= ccache
ifeq ($(origin CXX),default)
export CXX := ccache g++
endif
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1
endif

.DEFAULT_GOAL := help
.PHONY: fecn qcn help deps deps-test venv run test lint lint-rust lint-doc lint-rtl lint-rtl-v2 lint-v1 icarus icarus-v2 bench golden wave-check soak soak-v2 paper-fat paper-fat-sweep paper-literal \
	kill-matrix faults check-matrix check-matrix-v3-faults check-v1-soak lint-dpi bench-dpi lint-sva pytest

# `make help` lists the targets by use; a target with a `## ` description in no group is listed
# under "other", so none goes unlisted.
HELP_GROUPS := run verify vectors fpga benchmarks development
HELP_run         := run deps paper-fat paper-fat-sweep paper-literal fecn qcn
HELP_verify      := test v3-check v3-faults faults kill-matrix check-matrix check-matrix-v3-faults check-v1-soak soak soak-v2 pytest wave-check
HELP_vectors     := golden replay replay-all v3-golden-faults
HELP_fpga        := fpga fpga-v3 fpga-table synth fpga-v2 fpga-table-v2 synth-v2
HELP_benchmarks  := bench bench-dpi
HELP_development := help lint lint-doc lint-rtl lint-rtl-v2 lint-v1 lint-dpi lint-sva lint-slang lint-slang-v2 lint-tb icarus icarus-v2 venv v3-spike v3-lockstep

help: ## print this help
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' \
	  -v groups="$(foreach g,$(HELP_GROUPS),$(g)=$(subst $(eval) ,+,$(strip $(HELP_$(g)))))" \
	  '{ d[$$1] = $$2; order[++n] = $$1 } \
	   END { ng = split(groups, gs, " "); \
	     for (k = 1; k <= ng; k++) { split(gs[k], kv, "="); printf "%s:\n", kv[1]; nt = split(kv[2], ts, "+"); \
	       for (j = 1; j <= nt; j++) if (ts[j] in d) { printf "  make %-24s %s\n", ts[j], d[ts[j]]; seen[ts[j]] = 1 } } \
	     for (j = 1; j <= n; j++) if (!(order[j] in seen)) { if (!o++) print "other:"; printf "  make %-24s %s\n", order[j], d[order[j]] } }'

deps: ## install verilator, iverilog, yosys and g++ from Debian, those missing (needs root)
	@scripts/deps.sh

# what the tests need besides: tshark (crates/cli/tests/pcap.rs reads our captures with Wireshark's
# analysis) and ccache (the C++ objects kept from one clean clone to the next, above)
deps-test:
	@scripts/deps.sh tshark ccache

run: deps ## build, then run the default switch scenario in the four modes, RTL in the loop
	$(CARGO) run --release -- run --dut rtl $(ARGS)

# (the v3 units' testbenches at 4 and 12 ports in make test, the ingress's on Icarus at 4 and on
# Verilator at 12; make v3-spike alone runs them at 48 ports too, the ingress's on Icarus at every
# one; Icarus replays the block's golden sets of up to 20,000 cycles, make replay-all every
# set: v2's sets go through Icarus in tests/check_v2.rs)
test: V3_TB_PORTS := 4 12
test: V3_TB_ICARUS_PORTS := 4
test: REPLAY_ICARUS_MAX_CYCLES := 20000
test: REPLAY_ICARUS_V2 := 0
test: deps deps-test venv ## lint, every cargo test, the block's units and the assembled block in lockstep, every golden set on Verilator (the block's on Icarus too, up to 20,000 cycles), the corner sets' faults, cocotb (CI)
	@s=$$(date +%s); $(MAKE) --no-print-directory $(FPGA_VENV)/.slang test-build \
	  && echo "test: the builds took $$(( $$(date +%s) - s )) s"
	@s=$$(date +%s); $(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target V3_TB_PORTS="$(V3_TB_PORTS)" V3_TB_ICARUS_PORTS="$(V3_TB_ICARUS_PORTS)" \
	  REPLAY_ICARUS_MAX_CYCLES=$(REPLAY_ICARUS_MAX_CYCLES) REPLAY_ICARUS_V2=$(REPLAY_ICARUS_V2) \
	  $(addprefix timed-,$(TEST_RUNS)) && echo "test: the runs took $$(( $$(date +%s) - s )) s"
	@echo "test: passed ($(words $(TEST_RUNS)) runs after the builds)"

# A run of make test with its wall-clock time after its output (a failure's too: where the time
# goes, in CI's log). (Not .PHONY: make skips pattern rules for phony targets.)
timed-%:
	@s=$$(date +%s); $(MAKE) --no-print-directory $*; rc=$$?; \
	  echo "test: $* took $$(( $$(date +%s) - s )) s$$([ $$rc = 0 ] || echo ", FAILED")"; exit $$rc

# make test in two stages. First the builds, where cargo keeps both cores busy by itself: rustfmt,
# clippy, then the binary, every test binary and example, and the C ABI's tests. Then the runs, which are
# independent of one another (no two write the same file under build/ and none builds with cargo
# any more: cargo holds its lock only while it builds), TEST_JOBS at a time, the longest first;
# each prints its output when it ends (--output-sync), so a failure's lines stay together.
TEST_JOBS ?= 2
TEST_RUNS := test-cargo-cli test-cargo-lib replay-all v3-spike v3-check test-capi pytest v3-golden-faults \
	lint-rtl lint-rtl-v2 lint-v1 lint-dpi lint-sva $(if $(filter 1,$(LINT_SLANG)),lint-slang lint-slang-v2) icarus icarus-v2
.PHONY: test-build test-cargo test-cargo-cli test-cargo-lib test-capi

# (one cargo command for the binary, the test binaries and the examples, so that cargo overlaps
# their compiles. Some runs call cargo build or cargo run, which leave out the dev-dependencies;
# Cargo.toml turns on in the library's dependencies the features the dev-dependencies would add,
# so those find the same library and binary built, and build nothing. The C ABI's manifest does
# the same for capfc-block and capfc-check, so its test build compiles the C ABI alone)
test-build: lint-rust
	$(CARGO) build --release --tests --examples
	$(CARGO) test --release -p capfc-capi --no-run

test-cargo: test-cargo-cli test-cargo-lib

# Every cargo test in two halves of about equal time, so that make test's runs pack onto two
# cores: the command line's tests (crates/cli/tests), and the rest (the units' tests, tests/, the
# doc tests). Both select test targets at the root, so that cargo resolves the features of the
# workspace's crates together and runs the binaries test-build built (`-p capfc-cli` alone would build
# the library again: its `default` feature would be off).
CARGO_TESTS_CLI := $(patsubst crates/cli/tests/%.rs,--test %,$(wildcard crates/cli/tests/*.rs))
CARGO_TESTS_LIB := $(patsubst %.rs,--test %,$(notdir $(wildcard tests/*.rs crates/block/tests/*.rs)))
test-cargo-cli:
	MAKEFLAGS= $(CARGO) test --release $(CARGO_TESTS_CLI)

test-cargo-lib:
	MAKEFLAGS= $(CARGO) test --release --lib --bins $(CARGO_TESTS_LIB)
	MAKEFLAGS= $(CARGO) test --release --doc

test-capi:
	MAKEFLAGS= $(CARGO) test --release -p capfc-capi

lint: lint-rust lint-doc lint-rtl lint-rtl-v2 lint-v1 lint-dpi lint-sva $(if $(filter 1,$(LINT_SLANG)),lint-slang lint-slang-v2) ## cargo fmt --check, clippy -D warnings, rustdoc, verilator -Wall, slang (LINT_SLANG=1)

lint-rust: deps
	$(CARGO) fmt --all -- --check
	@# (crates/rtl/build.rs verilates nothing under clippy, whose builds link nothing and do not share
	@# OUT_DIR with cargo build's: the Rust side of the bridge is cxx's macro)
	$(CARGO) clippy --release --all-targets -- -D warnings
	$(CARGO) clippy --release -p capfc-capi --all-targets -- -D warnings
	$(CARGO) clippy --release -p capfc-py --all-targets -- -D warnings

# The crates' API documentation with every warning an error (broken or private links, stray HTML):
# in make lint, not make test (about 15 s that make test's budget keeps for checks).
lint-doc: deps ## the crates' API docs by rustdoc, every warning an error
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --release --no-deps --lib -p capfc -p capfc-cli -p capfc-capi \
	  -p capfc-block -p capfc-check -p capfc-rtl -p capfc-switch -p capfc-net -p capfc-vectors

# The block (capfc_top_oc, rtl/v3/files.f); UNUSEDPARAM waived: constants of capfc_pkg that serve
# v2's units (rtl/, the second implementation the tests keep) and not the block's.
lint-rtl: deps ## the block (capfc_top_oc): verilator --lint-only -Wall at every LINT_PORTS
	@for np in $(LINT_PORTS); do \
	  verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module capfc_top_oc -GNP=$$np $(V3_TOP) || exit 1; \
	done
	@echo "lint-rtl: capfc_top_oc clean at NP = $(LINT_PORTS)"

lint-rtl-v2: deps ## the test subject v2 (capfc_v2_top, check/capfc_v2/files.f): verilator --lint-only -Wall at every LINT_PORTS, and with each seeded bug
	@for np in $(LINT_PORTS); do \
	  verilator --lint-only -Wall --top-module capfc_v2_top -GNP=$$np $(V2_RTL) || exit 1; \
	done
	@for b in $(V2_BUGS); do verilator --lint-only -Wall --top-module capfc_v2_top -DCAPFC_V2_BUG_$$b $(V2_RTL) || exit 1; done
	@echo "lint-rtl-v2: capfc_v2_top clean at NP = $(LINT_PORTS) and with each of its $(words $(V2_BUGS)) seeded bugs"

# The second, independent implementation that `capfc check` is tried on (check/capfc_v1/README.md):
# its RTL, its seeded bugs (each a define in the RTL), and team_pfc, the same block under other names.
V1_RTL  := $(sort $(wildcard check/capfc_v1/rtl/*.sv))
V1_BUGS := $(sort $(patsubst CAPFC_V1_BUG_%,%,$(shell grep -ohE 'CAPFC_V1_BUG_[A-Z_]+' $(V1_RTL))))
WRAP_RTL := check/wrap/capfc_wrap_delay.sv check/wrap/capfc_wrap_skid.sv
V1_SOAK_CYCLES ?= 10000000
V1_SOAK_RUN    ?= 1000000

lint-v1: deps ## verilator -Wall on check/capfc_v1 at 4 and 8 ports, with each seeded bug, in both within-cycle orders, team_pfc, and the wrappers of check/wrap
	@for np in 4 8; do verilator --lint-only -Wall --top-module capfc_v1_top -GNP=$$np $(V1_RTL) || exit 1; done
	@for b in $(V1_BUGS); do verilator --lint-only -Wall --top-module capfc_v1_top -DCAPFC_V1_BUG_$$b $(V1_RTL) || exit 1; done
	@# (the other within-cycle order, alone and with each seeded bug)
	@for np in 4 8; do verilator --lint-only -Wall --top-module capfc_v1_top -GNP=$$np -DCAPFC_V1_ADD_FIRST $(V1_RTL) || exit 1; done
	@for b in $(V1_BUGS); do verilator --lint-only -Wall --top-module capfc_v1_top -DCAPFC_V1_ADD_FIRST -DCAPFC_V1_BUG_$$b $(V1_RTL) || exit 1; done
	@verilator --lint-only -Wall --top-module team_pfc $(V1_RTL) check/capfc_v1/team/team_pfc.sv
	@# (the wrappers of check/wrap: v1 and v3 behind 0, 1 and 3 register stages; UNUSEDPARAM
	@# waived for v3 as in its own lint: capfc_pkg's constants it does not use)
	@for s in 0 1 3; do \
	  verilator --lint-only -Wall --top-module capfc_v1_wrap -GNP=4 -GSTAGES=$$s $(V1_RTL) $(WRAP_RTL) check/wrap/capfc_v1_wrap.sv || exit 1; \
	  verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module capfc_v3_wrap -GNP=4 -GSTAGES=$$s $(V3_TOP) $(WRAP_RTL) check/wrap/capfc_v3_wrap.sv || exit 1; \
	done
	@echo "lint-v1: capfc_v1_top (4, 8 ports; $(words $(V1_BUGS)) seeded bugs; both within-cycle orders), team_pfc and the wrappers (0, 1, 3 stages) clean"

# The DPI-C scoreboard (`capfc gen-sv`) in both testbenches, linted at 4 ports.
lint-dpi: deps ## verilator -Wall on the generated DPI package and scoreboard inside both testbenches (our golden one with the v2 and the v3 block)
	@$(CARGO) run --release -q -- gen-sv --config np4 --block v2 --out build/sv 2>/dev/null
	@verilator --lint-only -Wall --timing -DCAPFC_SCOREBOARD -DCAPFC_SCOREBOARD_TWO --top-module capfc_tb -Igolden/random_max_np4_seed1 \
	  +define+CAPFC_LINES_MAX=65536 build/sv/capfc_dpi.sv build/sv/capfc_scoreboard.sv $(V2_RTL) testbench/capfc_tb.sv
	@verilator --lint-only -Wall --timing -DCAPFC_V1_SCOREBOARD --top-module capfc_v1_tb -Igolden/random_max_np4_seed1 \
	  build/sv/capfc_dpi.sv build/sv/capfc_scoreboard.sv $(V1_RTL) check/capfc_v1/capfc_v1_tb.sv
	@$(CARGO) run --release -q -- gen-sv --config np4 --block v3 --out build/sv_v3 2>/dev/null
	@# (-Wno-UNUSEDPARAM: capfc_pkg holds the whole register map, of which the RTL decodes part, the waiver of mk/v3.mk's lint)
	@verilator --lint-only -Wall -Wno-UNUSEDPARAM --timing -DCAPFC_SCOREBOARD -DCAPFC_SCOREBOARD_TWO --top-module capfc_tb -Igolden/v3/random_max_np4_seed1 \
	  +define+CAPFC_LINES_MAX=65536 build/sv_v3/capfc_dpi.sv build/sv_v3/capfc_scoreboard.sv $(V3_TOP) testbench/capfc_tb.sv
	@echo "lint-dpi: capfc_dpi, capfc_scoreboard in capfc_tb (v2 and v3 blocks) and capfc_v1_tb clean"

lint-sva: deps ## the rule assertions (check/sva/capfc_props.sv): verilator -Wall in both testbenches, and Yosys reads them
	@verilator --lint-only -Wall --top-module capfc_props check/sva/capfc_props.sv
	@verilator --lint-only -Wall --timing -DCAPFC_PROPS --top-module capfc_tb -Igolden/random_max_np4_seed1 \
	  +define+CAPFC_LINES_MAX=65536 check/sva/capfc_props.sv $(V2_RTL) testbench/capfc_tb.sv
	@verilator --lint-only -Wall --timing -DCAPFC_V1_PROPS --top-module capfc_v1_tb -Igolden/random_max_np4_seed1 \
	  check/sva/capfc_props.sv $(V1_RTL) check/capfc_v1/capfc_v1_tb.sv
	@# (-defer: elaborated once, at 4 ports, in 2 s; without it Yosys 0.23 also elaborates the
	@# default of 8 ports when it reads the file, 16 s more)
	@yosys -p "read_verilog -sv -defer check/sva/capfc_props.sv; hierarchy -top capfc_props -chparam NP 4; proc; stat" 2>&1 \
	  | awk '/\$$assert/ {n=$$2} END {if (n < 1) exit 1; print "lint-sva: Yosys reads capfc_props: " n " assertions at 4 ports"}'
	@echo "lint-sva: capfc_props clean, and in capfc_tb and capfc_v1_tb"

# The Python package (python/: pyo3 + maturin, built by pip from the repository) and its cocotb
# scoreboard, tested on Icarus in the virtual environment build/venv (shared with make lint-slang).
PY_VENV := build/venv
PY_PIP := cocotb==2.0.1 pytest==8.3.5 scapy==2.6.1

venv: deps ## build/venv: cocotb, pytest, and scapy (the pcap test's dissector), installed when missing
	@test -x $(PY_VENV)/bin/python || python3 -m venv $(PY_VENV)
	@$(PY_VENV)/bin/python -c "import cocotb, pytest, scapy" 2>/dev/null \
	  || $(PY_VENV)/bin/pip install --disable-pip-version-check -q $(PY_PIP)

pytest: deps venv ## the Python package's cocotb scoreboard on Icarus: both blocks, clean and with a bug
	$(CARGO) build --release
	$(PY_VENV)/bin/pip install --disable-pip-version-check -q ./python
	cd python && $(CURDIR)/$(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_cocotb.py

bench-dpi: deps ## cycles/s of our block's Verilated testbench without and with the DPI scoreboard
	scripts/dpi-bench.sh

kill-matrix: deps ## every seeded bug of check/capfc_v1 and check/capfc_v2 against capfc check (Icarus): prints the kill matrices
	$(CARGO) test --release --test check_v1 every_seeded_bug -- --nocapture
	$(CARGO) test --release --test check_v2 every_seeded_bug -- --nocapture

# The block's fault catalogue (crates/block/src/v3/fault.rs) in full (tests/faults.rs; make test runs its slice:
# every fault by the lockstep and the golden sets from Rust, four on the Icarus testbench).
faults: deps ## the block's fault matrix: every fault by the lockstep and by a golden set replayed on the Icarus testbench alone (capfc faults; about a minute on 2 cores)
	$(CARGO) test --release --test faults the_full_matrix -- --ignored --nocapture

# The checker on legal designs that are not ours (tests/check_matrix.rs): v1, v1 adding first and
# v3 behind 0, 1 and 3 register stages, on Icarus; make test runs its default slice.
check-matrix: deps ## capfc check on the wrapped blocks of check/wrap: the full matrix (every v1 bug through 1 and 3 stages and both orders, the v3 faults through every wrapper, more seeds), then check-matrix-v3-faults
	$(CARGO) test --release --test check_matrix -- --include-ignored --nocapture
	@$(MAKE) --no-print-directory check-matrix-v3-faults

# The v3 fault table through the 3-stage wrapper on the block's own random Verilator testbench
# (20,000 cycles; scripts/v3_faults.sh with V3_WRAP_STAGES, check/wrap/README.md): the clean
# wrapped block checks clean under the wrapper's envelope, and every fault the bare block's check
# catches is caught through the wrapper. About 30 s a fault (not in make test).
#   make check-matrix-v3-faults [V3_SEED=n] [V3_WRAP_STAGES=n] [V3_FAULTS="fault ..."]
V3_WRAP_STAGES ?= 3
V3_FAULTS ?=

check-matrix-v3-faults: deps ## the v3 RTL faults through the 3-stage wrapper on the block's random testbench, judged by capfc check (about 30 s a fault)
	$(CARGO) build --release --quiet
	V3_WRAP_STAGES=$(V3_WRAP_STAGES) scripts/v3_faults.sh 4 $(V3_SEED) $(V3_FAULTS)

check-v1-soak: deps ## capfc check on check/capfc_v1 over V1_SOAK_CYCLES (10^7) random cycles of Verilator FST
	scripts/check-v1-soak.sh $(V1_SOAK_CYCLES) $(V1_SOAK_RUN)

# (Icarus 11 says "sorry: constant selects" of the block's constant part-selects in always_*
# processes and compiles them: those lines are left out of what is shown)
icarus: deps ## the block (capfc_top_oc) compiles under Icarus Verilog (-g2012) at every ICARUS_PORTS
	@mkdir -p build/v3
	@for np in $(ICARUS_PORTS); do \
	  iverilog -g2012 -s capfc_top_oc -P capfc_top_oc.NP=$$np -o build/v3/icarus_top_np$$np $(V3_TOP) \
	    2> build/v3/icarus_top_np$$np.log || { grep -v "sorry: constant selects" build/v3/icarus_top_np$$np.log; exit 1; }; \
	done
	@echo "icarus: capfc_top_oc compiles at NP = $(ICARUS_PORTS)"

icarus-v2: deps ## v2 (capfc_v2_top) compiles under Icarus Verilog (-g2012) at 4 and 32 ports
	@mkdir -p build
	@for np in 4 32; do \
	  iverilog -g2012 -P capfc_v2_top.NP=$$np -s capfc_v2_top -o build/capfc_v2_top_np$$np.vvp $(V2_RTL) || exit 1; \
	done
	@echo "icarus-v2: capfc_v2_top compiles at NP = 4 32"


golden: deps ## regenerate the checked-in golden vector sets (review the diff like code)
	$(CARGO) run --release -- golden gen

wave-check: deps ## the block's lockstep with a fault in its model: the mismatch's waveform window, both sides read by GTKWave's vcd2fst
	@rm -rf target/wave-check
	@! $(CARGO) run --release -q -- cosim --config v3_np4 --algo max --seeds 0 --directed reset_with_e_max_np4 --fault ing_lossy_pause --wave-dir target/wave-check
	@command -v vcd2fst >/dev/null || { echo "wave-check: vcd2fst missing (apt-get install gtkwave)"; exit 1; }
	@for f in target/wave-check/*.vcd; do vcd2fst $$f $${f%.vcd}.fst >/dev/null && echo "gtkwave's vcd2fst read $$f: $$(grep -c '\$$var' $$f) signals"; done

# BLOCK=v2 (or v3): the block in every switch (capfc net --block); empty: capfc net's default, v3
BLOCK ?=
paper-fat: ## the paper's Table I scenarios on its fat tree in the four modes: the tables of docs/network.md [BLOCK=v3|v2]
	$(CARGO) build --release
	scripts/paper_fat_table.py target/release/capfc $(if $(BLOCK),--block $(BLOCK))

paper-literal: ## the paper's fat tree read literally (docs/paper-literal.md): scenarios 1 to 6, 12 seeds, four modes, the written rule's verdict [BLOCK=v3|v2]
	$(CARGO) build --release
	scripts/paper_literal_table.py target/release/capfc $(if $(BLOCK),--block $(BLOCK))

fecn: ## seed 001's FECN figures (docs/fecn.md): Tables I and II, the queue, the PAUSE interval, beside the paper's with verdicts; CSV and SVG in target/fecn
	$(CARGO) build --release --no-default-features
	scripts/fecn_table.py $${CARGO_TARGET_DIR:-target}/release/capfc target/fecn

qcn: ## seed 003's QCN and adaptive-routing figures (docs/qcn.md): hot queues, hot rates, uniform saturation, resequencing, beside the paper's with verdicts; CSV and pcap in target/qcn
	$(CARGO) build --release --no-default-features
	scripts/qcn_table.py $${CARGO_TARGET_DIR:-target}/release/capfc target/qcn

paper-fat-sweep: ## paper-fat-1 changed one thing at a time (load, ECN, RTO), seeds 1 and 2: the table of variants in docs/network.md [BLOCK=v3|v2]
	$(CARGO) build --release
	scripts/paper_fat_sweep.py target/release/capfc $(if $(BLOCK),--block $(BLOCK))

# the v3 sets the block benchmark builds (not the soak's own corners)
V3_BENCH_CONFIGS ?= v3_np4,v3_np8,v3_np8_nl3,v3_np32,v3_np48
bench: deps ## benchmarks: the block, v2 and v3 (model, RTL from Rust, lockstep, RTL from C++), the switch, the network
	$(CARGO) bench --bench block
	$(MAKE) --no-print-directory v3-bench-stim
	CAPFC_V3_CONFIGS=$(V3_BENCH_CONFIGS) $(CARGO) bench --bench block_v3
	$(CARGO) bench --bench switch
	$(CARGO) bench --bench network

# Soak: SOAK_CYCLES (10^9) of random lockstep of the block (v3: its model beside its Verilated
# RTL) over the parameter sets SOAK_V3_CONFIGS (a share each, about equal time; the sets of
# crates/block/src/v3/rtl_configs.rs, among them the soak's own corners, which only this target builds) and
# both algorithms, in shards that GNU parallel runs; one summary at the end. scripts/soak.sh says
# how; `scripts/soak.sh --plan` gives the shard commands for a Slurm array (docs/lockstep.md).
# `make soak-v2`: the same over the previous block, v2 (its lockstep, examples/v2_cosim.rs, every
# directed case too).
SOAK_V3_CONFIGS ?= all
soak: deps ## SOAK_CYCLES (10^9) of v3's lockstep over 9 parameter sets in shards under GNU parallel; one summary
	@command -v parallel >/dev/null || apt-get install -y -qq parallel >/dev/null
	CAPFC_V3_CONFIGS=$(SOAK_V3_CONFIGS) $(CARGO) build --release
	scripts/soak.sh

soak-v2: deps ## SOAK_CYCLES (10^9) of v2's lockstep (examples/v2_cosim.rs) in shards under GNU parallel; one summary
	@command -v parallel >/dev/null || apt-get install -y -qq parallel >/dev/null
	$(CARGO) build --release --example v2_cosim
	scripts/soak-v2.sh

# The plain Verilog testbench that replays golden sets without Rust (make replay, make replay-all).
include mk/replay.mk
replay replay-all lint-tb: deps

# The open FPGA flow (make fpga, make fpga-table) and the slang lint (make lint-slang).
include mk/fpga.mk
include mk/v3.mk
