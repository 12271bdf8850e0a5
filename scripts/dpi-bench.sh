#!/usr/bin/env bash
# dpi-bench.sh: what the DPI-C scoreboard costs a Verilator simulation. The golden replay
# testbench runs one random set of the block (capfc_top_oc) twice, built the same way (verilator
# --binary, default C++ optimisation), without and with the scoreboard (-DCAPFC_SCOREBOARD),
# side by side; prints cycles per second of each and the ratio.
#   scripts/dpi-bench.sh [CYCLES] [CONFIG]      (default 200000 v3_np4; a v2 set, e.g. np4, runs
#                                               the test subject v2, check/capfc_v2)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-200000}
config=${2:-v3_np4}
out=build/dpi-bench
mkdir -p "$out"
cargo build --release -q
cargo build --release -q -p capfc-capi
target/release/capfc golden gen --seed 1 --steady --cycles "$cycles" --config "$config" --algo max \
    --out "$out/set" 2>/dev/null
case $config in
    v3_*) block=v3 files=rtl/v3/files.f ;;
    *) block=v2 files=check/capfc_v2/files.f ;;
esac
target/release/capfc gen-sv --config "$config" --block "$block" --out "$out/sv" 2>/dev/null
def() { sed -n "s/^\`define CAPFC_$1 //p" "$out/set/params.vh"; }
rtl=$(grep -vE '^\s*(//|#|$)' "$files")
lines=$(def STIM_LINES)
[ "$(def EXPECT_LINES)" -gt "$lines" ] && lines=$(def EXPECT_LINES)
args="+GOLDEN=$out/set +CYCLES=$(def CYCLES) +STIM_LINES=$(def STIM_LINES) +EXPECT_LINES=$(def EXPECT_LINES)"
for v in plain scoreboard; do
    extra=()
    [ "$v" = scoreboard ] && extra=(-DCAPFC_SCOREBOARD "$out/sv/capfc_dpi.sv" "$out/sv/capfc_scoreboard.sv"
        "$PWD/target/release/libcapfc_capi.a" -LDFLAGS "-lpthread -ldl -lm")
    rm -rf "$out/$v"
    verilator --binary -j 2 -Wno-fatal --top-module capfc_tb -I"$out/set" +define+CAPFC_LINES_MAX="$lines" \
        --Mdir "$out/$v" -o tb "${extra[@]}" $rtl testbench/capfc_tb.sv >"$out/$v.build.log" 2>&1 \
        || { cat "$out/$v.build.log"; exit 1; }
done
for v in plain scoreboard; do
    t0=$(date +%s.%N)
    "$out/$v/tb" $args >"$out/$v.log" 2>&1 || { cat "$out/$v.log"; exit 1; }
    t1=$(date +%s.%N)
    grep -q ' passed, 0 failed' "$out/$v.log" || { cat "$out/$v.log"; exit 1; }
    secs=$(echo "$t1 - $t0" | bc)
    echo "$v ($block, $config): $(def CYCLES) cycles in $(printf %.2f "$secs") s: $(echo "$(def CYCLES) / $secs" | bc) cycles/s"
    eval "t_$v=$secs"
done
grep 'capfc_scoreboard' "$out/scoreboard.log" | tail -1
echo "dpi-bench: the scoreboard makes the simulation $(echo "scale=2; $t_scoreboard / $t_plain" | bc) times as long"
