#!/usr/bin/env bash
# soak-v2.sh: SOAK_CYCLES of random lockstep of the previous block, v2 (crates/cli/examples/v2_cosim.rs), over every
# built parameter set and both algorithms, plus every directed case, in shards that GNU parallel
# runs SOAK_JOBS at a time; one summary at the end (scripts/soak_summary.py). `make soak-v2` calls
# it (the block's soak, v3's, is soak.sh: `make soak`).
#
# Each parameter set gets a share of the cycles (SOAK_SHARE, "set:weight ..."): by default about the
# same lockstep time each, so 4 ports, whose lockstep is seven times as fast as 48 ports', gets
# seven times the cycles. Each set is split into SOAK_SHARDS shards (v2_cosim --shard K/N).
#
#   scripts/soak-v2.sh          run the plan and summarise
#   scripts/soak-v2.sh --plan   print the plan: one shell command a shard, for a Slurm array
#
# Environment: SOAK_CYCLES (10^9), SOAK_JOB_CYCLES (10^6: cycles of one random job), SOAK_SHARDS
# (8 per parameter set), SOAK_JOBS (nproc), SOAK_DIR (build/soak-v2), SOAK_SHARE, CAPFC (the binary).
set -euo pipefail

cycles=${SOAK_CYCLES:-1000000000}
job=${SOAK_JOB_CYCLES:-1000000}
shards=${SOAK_SHARDS:-8}
jobs=${SOAK_JOBS:-$(nproc)}
dir=${SOAK_DIR:-build/soak-v2}
# weights: lockstep cycles/s of each set on one core (v2_cosim on a 2-core machine)
share=${SOAK_SHARE:-"np4:273 np6_cw4:197 np8:148 np8_cell64:148 np16:90 np32:44 np48:21"}
capfc=${CAPFC:-${CARGO_TARGET_DIR:-target}/release/examples/v2_cosim}

die() { echo "soak: $*" >&2; exit 2; }
for v in "$cycles" "$job" "$shards" "$jobs"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "SOAK_CYCLES, SOAK_JOB_CYCLES, SOAK_SHARDS and SOAK_JOBS must be positive integers (got '$v')"
done
[[ -x $capfc ]] || die "$capfc is not built (cargo build --release --example v2_cosim)"

# every built parameter set has a share, and every share a built set
built=$("$capfc" --list | awk '/^np/ {print $1}' | sort)
named=$(for s in $share; do echo "${s%%:*}"; done | sort)
[[ $built == "$named" ]] || die "SOAK_SHARE names [$(echo $named)] but the built parameter sets are [$(echo $built)]"

total=0
for s in $share; do
    w=${s#*:}
    [[ $w =~ ^[1-9][0-9]*$ ]] || die "SOAK_SHARE: '$s' is not set:weight with a positive weight"
    total=$((total + w))
done

plan() {
    for s in $share; do
        local cfg=${s%%:*} w=${s#*:}
        local n=$((cycles * w / total))
        # random jobs of `job` cycles, both algorithms: at least one seed
        local seeds=$(((n + 2 * job - 1) / (2 * job)))
        for k in $(seq 1 "$shards"); do
            echo "$capfc --config $cfg --algo both --seeds 1..=$seeds --cycles $job --directed all --shard $k/$shards --json > $dir/$cfg-$k.json 2> $dir/$cfg-$k.log"
        done
    done
}

if [[ ${1:-} == --plan ]]; then
    plan
    exit 0
fi

command -v parallel >/dev/null || die "GNU parallel is missing (apt-get install parallel)"
rm -rf "$dir" && mkdir -p "$dir"
plan > "$dir/plan.txt"
echo "soak: $cycles cycles over [$(echo $built)] x 2 algorithms (shares: $share), every directed case;" \
    "$(wc -l < "$dir/plan.txt") shards, $jobs at a time; plan in $dir/plan.txt"
start=$(date +%s)
parallel --will-cite -j "$jobs" --halt never < "$dir/plan.txt" || true
echo "soak: $(($(date +%s) - start)) s wall clock, started $(date -u -d "@$start" '+%Y-%m-%d %H:%M UTC')"
# one summary; a shard that failed or never wrote its JSON fails it
mapfile -t out < <(sed -E 's/.*--json > ([^ ]+) 2>.*/\1/' "$dir/plan.txt")
exec scripts/soak_summary.py "${out[@]}"
