#!/usr/bin/env bash
# Synthesises capfc_top with Yosys (generic gates) and prints its size.
# Usage: scripts/synth.sh [NP]
set -euo pipefail
np=${1:-8}
files=$(grep -vE '^\s*(//|#|$)' rtl/files.f | tr '\n' ' ')
mkdir -p build
log=build/synth_np$np.log
yosys -q -l "$log" -p "read_verilog -sv $files; chparam -set NP $np capfc_top; synth -top capfc_top; stat" >/dev/null
# The last section of the last 'stat' is the whole design (the hierarchy summary when the
# design is not flattened, which adds up every module).
cells=$(grep -E '^\s+Number of cells:' "$log" | tail -1 | awk '{print $4}')
ffs=$(awk '/^===/{n=0} /\$_[A-Z]*DFF[A-Z]*_/{n+=$2} END{print n}' "$log")
echo "synth: capfc_top NP=$np: $cells cells, $ffs flip-flops (Yosys $(yosys -V | awk '{print $2}'), log $log)"
