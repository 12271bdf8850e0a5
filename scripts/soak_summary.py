#!/usr/bin/env python3
"""soak_summary.py: one summary of the shards of `make soak` (capfc cosim --shard K/N --json) or
`make soak-v2` (examples/v2_cosim.rs --shard K/N --json).

Usage: soak_summary.py SHARD.json ... ; prints cycles, jobs, mismatches, time and the merged
coverage, and exits 1 when a shard is missing or unreadable, a job failed (its replay command
printed), no cycle ran, or a coverage point was never hit."""
import json
import sys


def main(paths):
    total = {"jobs": 0, "passed": 0, "failed": 0, "cycles": 0, "seconds": 0.0}
    cov, failures, bad = {}, [], []
    for p in paths:
        try:
            with open(p) as f:
                s = json.load(f)
        except (OSError, ValueError) as e:
            bad.append(f"{p}: {e}")
            continue
        for k in total:
            total[k] += s[k]
        for row in s["coverage"]:
            cov[row["point"]] = cov.get(row["point"], 0) + row["hits"]
        failures += s["failures"]
    wall = max(1e-9, total["seconds"])
    print(f"soak: {len(paths)} shards, {total['jobs']} jobs, {total['cycles']:,} cycles in lockstep, "
          f"{total['passed']} passed, {total['failed']} failed")
    print(f"soak: {total['seconds']:.0f} s of lockstep over all shards ({total['cycles'] / wall:,.0f} cycles/s per core)")
    missed = [k for k, v in cov.items() if v == 0]
    print(f"soak: coverage {len(cov) - len(missed)}/{len(cov)} points hit" +
          (f"; never: {', '.join(missed)}" if missed else ""))
    for k, v in sorted(cov.items(), key=lambda kv: kv[1]):
        print(f"  {v:>14,}  {k}")
    for f in failures:
        print(f, file=sys.stderr)
    for b in bad:
        print(f"soak: unreadable shard {b}", file=sys.stderr)
    ok = not bad and total["failed"] == 0 and total["cycles"] > 0 and not missed
    print("soak: PASS" if ok else "soak: FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
