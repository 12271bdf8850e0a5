#!/usr/bin/env bash
# check-v1-soak.sh: the reference checker on the second implementation (check/capfc_v1) over many
# random cycles, through Verilator-written FST waveforms, the way a team would run it on its own
# block: simulate, dump, `capfc check`. Any report fails the run, and the run that produced it is
# kept with the command that replays it.
#
#   scripts/check-v1-soak.sh [TOTAL_CYCLES] [CYCLES_PER_RUN] [CONFIGS]
#     TOTAL_CYCLES    cycles to check in all (default 10000000)
#     CYCLES_PER_RUN  cycles of one random set, one waveform (default 1000000)
#     CONFIGS         parameter sets to cycle through (default "np4 np8 np6_cw4")
#   BENCH=1 scripts/check-v1-soak.sh 10000000 10000000 np4
#     one 10^7-cycle FST: prints the simulator's time and the checker's, side by side
#
# Runs alternate Stop-Max and Stop-Calibrate; run k uses seed k. Sets are `capfc golden gen --seed
# --steady` (every configuration write before the traffic, none after it). Needs verilator and a
# release build of capfc (the script builds it).
set -euo pipefail
cd "$(dirname "$0")/.."

total=${1:-10000000}
per=${2:-1000000}
configs=(${3:-np4 np8 np6_cw4})
out=build/check-v1-soak
capfc=target/release/capfc
mkdir -p "$out"
cargo build --release -q
[ -x "$capfc" ] || { echo "check-v1-soak: $capfc missing" >&2; exit 2; }
command -v verilator >/dev/null || { echo "check-v1-soak: verilator missing (make deps)" >&2; exit 2; }

# The map and the envelope of the v1 block at a parameter set (the checked-in files are for np4;
# tests/check_v1.rs holds the same formulas).
param() { sed -n "s/^\`define CAPFC_$2 //p" "$1/params.vh"; }
make_map() { # set-dir map-out
    sed -e "s/^np = .*/np = $(param "$1" NP)/" -e "s/^cw = .*/cw = $(param "$1" CW)/" \
        -e "s/^cell_log2 = .*/cell_log2 = $(param "$1" CELL_LOG2)/" \
        -e "s/^cut_f = .*/cut_f = $(param "$1" CUT_F)/" -e "s/^ow = .*/ow = $(param "$1" OW)/" \
        check/capfc_v1/capfc_v1.map.toml >"$2"
}
make_timing() { # set-dir timing-out
    local np nq
    np=$(param "$1" NP)
    nq=$((8 * np))
    sed -e "s/^stop_max = .*/stop_max = { min = 3, max = $((3 + 2 * nq)) }/" \
        -e "s/^stop_cal = .*/stop_cal = { min = $((np + 2)), max = $((np + 2 + nq * (np + 1))) }/" \
        check/capfc_v1/capfc_v1.timing.toml >"$2"
}

# One Verilator build per parameter set (the set's params.vh is compiled in).
build_tb() { # config set-dir -> prints the binary
    local bin="$out/vl-$1"
    if [ ! -x "$bin/v1tb" ] || [ -n "$(find check/capfc_v1 -name '*.sv' -newer "$bin/v1tb")" ]; then
        mkdir -p "$bin"
        verilator --binary -j 2 -Wno-fatal --trace-fst --top-module capfc_v1_tb -I"$2" \
            --Mdir "$bin" -o v1tb check/capfc_v1/rtl/*.sv check/capfc_v1/capfc_v1_tb.sv >"$bin/build.log" 2>&1 \
            || { cat "$bin/build.log" >&2; exit 2; }
    fi
    echo "$bin/v1tb"
}

done_cycles=0
run=0
sim_total=0
check_total=0
echo "check-v1-soak: $total cycles in runs of $per over ${configs[*]}"
while [ "$done_cycles" -lt "$total" ]; do
    run=$((run + 1))
    cfg=${configs[$(((run - 1) % ${#configs[@]}))]}
    algo=$([ $((run % 2)) = 1 ] && echo max || echo cal)
    n=$per
    [ $((total - done_cycles)) -lt "$n" ] && n=$((total - done_cycles))
    dir="$out/run$run"
    rm -rf "$dir"
    "$capfc" golden gen --seed "$run" --steady --cycles "$n" --config "$cfg" --algo "$algo" \
        --out "$dir/set" 2>/dev/null
    bin=$(build_tb "$cfg" "$dir/set")
    make_map "$dir/set" "$dir/map.toml"
    make_timing "$dir/set" "$dir/timing.toml"
    cycles=$(param "$dir/set" CYCLES)
    t0=$(date +%s.%N)
    "$bin" +GOLDEN="$dir/set" +CYCLES="$cycles" +DUMP="$dir/wave.fst" >"$dir/sim.log"
    t1=$(date +%s.%N)
    replay="$capfc check --wave $dir/wave.fst --map $dir/map.toml --timing $dir/timing.toml"
    if ! $replay >"$dir/check.log" 2>&1; then
        cat "$dir/check.log"
        echo "check-v1-soak: run $run ($cfg $algo seed $run): FAILED; replay: $replay"
        exit 1
    fi
    t2=$(date +%s.%N)
    sim=$(echo "$t1 - $t0" | bc)
    chk=$(echo "$t2 - $t1" | bc)
    sim_total=$(echo "$sim_total + $sim" | bc)
    check_total=$(echo "$check_total + $chk" | bc)
    size=$(stat -c %s "$dir/wave.fst")
    echo "run $run: $cfg $algo seed $run, $cycles cycles: 0 violations; simulate+dump $(printf %.1f "$sim") s, FST $((size / 1000000)) MB, capfc check $(printf %.1f "$chk") s"
    tail -1 "$dir/check.log" | sed 's/^/  /'
    done_cycles=$((done_cycles + cycles))
    [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
done
echo "check-v1-soak: $done_cycles cycles in $run runs, no false alarm; simulate+dump $(printf %.1f "$sim_total") s, capfc check $(printf %.1f "$check_total") s ($(echo "$done_cycles / $check_total" | bc) cycles/s), ratio check/simulate $(echo "scale=2; $check_total / $sim_total" | bc)"
