#!/usr/bin/env bash
# soak.sh: SOAK_CYCLES of random lockstep of the block, v3 (`capfc cosim`: its model and
# its Verilated RTL, every register, output and RAM write compared every cycle), over every built
# v3 parameter set and both algorithms, in shards that GNU parallel runs SOAK_JOBS at a time; one
# summary at the end (scripts/soak_summary.py). `make soak` calls it (v2's soak: soak-v2.sh).
#
# Each parameter set gets a share of the cycles (SOAK_SHARE, "set:weight ..."): by default about the
# same lockstep time each (the weights are its lockstep's cycles/s on one core). A set's share is
# cut into jobs of SOAK_JOB_CYCLES cycles, a seed each in both algorithms, and its jobs into
# SOAK_SHARDS shards (capfc cosim --shard K/N). The seeds are SOAK_SEED0 + 1 onwards: SOAK_SEED0 is
# random unless given, and printed; a failed job prints the command that replays it.
#
#   scripts/soak.sh            run the plan and summarise
#   scripts/soak.sh --plan     print the plan: one shell command a shard, for a Slurm array
#
# Environment: SOAK_CYCLES (10^9), SOAK_JOB_CYCLES (10^6), SOAK_SHARDS (8 per parameter set),
# SOAK_JOBS (nproc), SOAK_DIR (build/soak), SOAK_SHARE, SOAK_SEED0 (random), CAPFC_SOAK (the
# binary: $CARGO_TARGET_DIR/release/capfc).
set -euo pipefail

cycles=${SOAK_CYCLES:-1000000000}
job=${SOAK_JOB_CYCLES:-1000000}
shards=${SOAK_SHARDS:-8}
jobs=${SOAK_JOBS:-$(nproc)}
dir=${SOAK_DIR:-build/soak}
# weights: k cycles/s of each set's soak job on one of two busy cores (the mean 10^6-cycle job of
# the last full `make soak`, docs/lockstep.md; v3_np4's from a single job, its soak jobs having
# shared the machine with a build)
share=${SOAK_SHARE:-"v3_np4:218 v3_np4_nl1:244 v3_np6_cw4:198 v3_np8:163 v3_np8_nl3:158 v3_np8_cell64:172 v3_np12:110 v3_np32:45 v3_np48:25"}
bin=${CAPFC_SOAK:-${CARGO_TARGET_DIR:-target}/release/capfc}
seed0=${SOAK_SEED0:-$(( (RANDOM << 15 | RANDOM) * 1000 ))}

die() { echo "soak: $*" >&2; exit 2; }
for v in "$cycles" "$job" "$shards" "$jobs"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "SOAK_CYCLES, SOAK_JOB_CYCLES, SOAK_SHARDS and SOAK_JOBS must be positive integers (got '$v')"
done
[[ $seed0 =~ ^[0-9]+$ ]] || die "SOAK_SEED0 must be a non-negative integer (got '$seed0')"
[[ -x $bin ]] || die "$bin is not built (CAPFC_V3_CONFIGS=... cargo build --release; make soak builds it)"

# every built parameter set has a share, and every share a built set
built=$("$bin" cosim --list | awk '/^v3_/ {print $1}' | sort)
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
        # jobs of `job` cycles, a seed in both algorithms: at least one seed
        local seeds=$(((n + 2 * job - 1) / (2 * job)))
        # (no more shards than jobs: a shard without a job is refused)
        local k_max=$((shards < 2 * seeds ? shards : 2 * seeds))
        for k in $(seq 1 "$k_max"); do
            echo "$bin cosim --config $cfg --algo both --directed none --wave-dir $dir --seeds $((seed0 + 1))..=$((seed0 + seeds)) --cycles $job --shard $k/$k_max --json > $dir/$cfg-$k.json 2> $dir/$cfg-$k.log"
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
echo "soak: $cycles cycles of v3 over [$(echo $built)] x 2 algorithms (shares: $share), seeds from" \
    "$((seed0 + 1)) (SOAK_SEED0=$seed0); $(wc -l < "$dir/plan.txt") shards, $jobs at a time; plan in $dir/plan.txt"
start=$(date +%s)
parallel --will-cite -j "$jobs" --halt never < "$dir/plan.txt" || true
echo "soak: $(($(date +%s) - start)) s wall clock, started $(date -u -d "@$start" '+%Y-%m-%d %H:%M UTC')"
# one summary; a shard that failed or never wrote its JSON fails it
mapfile -t out < <(sed -E 's/.*--json > ([^ ]+) 2>.*/\1/' "$dir/plan.txt")
exec scripts/soak_summary.py "${out[@]}"
