#!/usr/bin/env python3
"""The paper's fat tree read literally (docs/paper-literal.md, `make paper-literal`).

Runs `capfc net --scenario paper-literal-N --seeds 1..=SEEDS --json` for N = 1..6 (two at a time;
every mode on the same seeds), pools each class's tail (the maximum FCT) over the seeds, and prints
for each scenario the tails in the four modes beside the paper's Table III (long flows) and the
ratios of Fig. 8 the text states, each with a 95 % percentile bootstrap interval over the seeds
(10,000 resamples, seed printed). Then the verdict of docs/paper-literal.md's rule, written before
the runs: reproduced, deadlock or not reproduced, and which of its conditions failed.

With --pause-refresh off, every run is the pause expiry variant (`capfc net --pause-refresh
off`: pauses are not refreshed and run out after their quanta; docs/paper-literal.md, "Pause expiry
variant"), and the report adds what the pauses that ran out did.

With --block v2 (or v3) every switch has that block (`capfc net --block`); without it, the block
`capfc net` runs by default, v3. The report names the block.

Usage: scripts/paper_literal_table.py [CAPFC_BINARY] [--seeds N] [--boot-seed S]
       [--scenarios 1,2] [--pause-refresh off] [--block v2|v3]
"""
import json
import math
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

argv = sys.argv[1:]


def opt(name, default):
    if name in argv:
        i = argv.index(name)
        v = argv[i + 1]
        del argv[i:i + 2]
        return int(v)
    return default


SEEDS = opt("--seeds", 12)
BOOT_SEED = opt("--boot-seed", 1)
PAUSE_REFRESH = []
if "--pause-refresh" in argv:
    i = argv.index("--pause-refresh")
    PAUSE_REFRESH = ["--pause-refresh", argv[i + 1]]
    del argv[i:i + 2]
BLOCK = []
if "--block" in argv:
    i = argv.index("--block")
    BLOCK = ["--block", argv[i + 1]]
    del argv[i:i + 2]
SCENARIOS = list(range(1, 7))
if "--scenarios" in argv:
    i = argv.index("--scenarios")
    SCENARIOS = [int(x) for x in argv[i + 1].split(",")]
    del argv[i:i + 2]
capfc = argv[0] if argv else "target/release/capfc"
MODES = ["PFC_wdrop", "PFC_wstop", "CaPFC_max", "CaPFC_cal"]
CAPFC = ["CaPFC_max", "CaPFC_cal"]
# Table III: PFC_wdrop's long-flow tails (ms), and the paper's stated ratios (Fig. 8's text)
TABLE3_WDROP = {1: "50-56", 2: "50-56", 3: "62", 4: "50-56", 5: "50-56", 6: "50-56"}
STATED = {
    (1, "query", "PFC_wdrop"): 6, (1, "query", "PFC_wstop"): 3,
    (1, "short", "PFC_wdrop"): 5, (1, "short", "PFC_wstop"): 5,
    (2, "short", "PFC_wdrop"): 17, (2, "query", "PFC_wstop"): 6,
}
# the rule: two thirds of the stated ratios, for both CaPFC versions
RULE = {
    (1, "query", "PFC_wdrop"): 4, (1, "query", "PFC_wstop"): 2,
    (1, "short", "PFC_wdrop"): 3.3, (1, "short", "PFC_wstop"): 3.3,
    (2, "short", "PFC_wdrop"): 11, (2, "query", "PFC_wstop"): 4,
}


def run(n):
    cmd = [capfc, "net", "--scenario", f"paper-literal-{n}", "--seeds", f"1..={SEEDS}",
           "--max-time", "5s", "--json", "--jobs", "1"] + PAUSE_REFRESH + BLOCK
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    runs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    # per mode, per seed: the stats
    by = {m: {} for m in MODES}
    for r in runs:
        by[r["mode"]][r["seed"]] = r["stats"]
    for m in MODES:
        if sorted(by[m]) != list(range(1, SEEDS + 1)):
            sys.exit(f"{' '.join(cmd)}: mode {m} ran seeds {sorted(by[m])}")
    return n, by, " ".join(cmd)


def tails(stats, cls):
    """Per seed: the class's maximum FCT (ms), or None if a flow of it did not complete."""
    out = []
    for s in range(1, SEEDS + 1):
        c = [k for k in stats[s]["classes"] if k["class"] == cls]
        if not c or c[0]["completed"] != c[0]["flows"]:
            out.append(None)
        else:
            out.append(c[0]["fct_max_us"] / 1000.0)
    return out


def pooled(t, idx):
    v = [t[i] for i in idx]
    return None if any(x is None for x in v) else max(v)


def ratio_ci(a, b, rng):
    """The ratio of pooled tails a / b and its bootstrap interval (the same resample for both)."""
    idx = list(range(SEEDS))
    pa, pb = pooled(a, idx), pooled(b, idx)
    if pa is None or pb is None:
        return None, None, None
    rs = []
    for _ in range(10_000):
        k = [rng.randrange(SEEDS) for _ in idx]
        rs.append(pooled(a, k) / pooled(b, k))
    rs.sort()
    return pa / pb, rs[249], rs[9749]


with ThreadPoolExecutor(max_workers=2) as ex:
    results = list(ex.map(run, SCENARIOS))

rng = random.Random(BOOT_SEED)
block = BLOCK[1] if BLOCK else "v3 (capfc net's default)"
print(f"Block: {block}. Seeds 1 to {SEEDS} pooled per mode; bootstrap: 10,000 resamples of the seeds, seed {BOOT_SEED}.\n")
print("| scenario | class | " + " | ".join(f"{m} (ms)" for m in MODES) + " | Table III, PFC_wdrop (ms) |")
print("| --- | --- | " + " | ".join("---:" for _ in MODES) + " | ---: |")
all_idx = list(range(SEEDS))
tail = {}
for n, by, _ in results:
    for cls in ["query", "short", "long"]:
        row = []
        for m in MODES:
            t = tails(by[m], cls)
            tail[(n, cls, m)] = t
            p = pooled(t, all_idx)
            row.append(f"{p:.2f}" if p is not None else "not all done")
        t3 = TABLE3_WDROP[n] if cls == "long" else ""
        print(f"| {n} | {cls} | " + " | ".join(row) + f" | {t3} |")
print()
print("| scenario | class | against | paper | rule | CaPFC_max: ratio [95 % interval] | CaPFC_cal: ratio [95 % interval] |")
print("| --- | --- | --- | ---: | ---: | --- | --- |")
failed = []
for (n, cls, against), want in RULE.items():
    if n not in SCENARIOS:
        continue
    cells = []
    for cm in CAPFC:
        r, lo, hi = ratio_ci(tail[(n, cls, against)], tail[(n, cls, cm)], rng)
        if r is None:
            cells.append("not all done")
            failed.append(f"scenario {n} {cls} vs {against} ({cm}): not all flows done")
            continue
        cells.append(f"{r:.2f}x [{lo:.2f}, {hi:.2f}]")
        if r < want:
            failed.append(f"scenario {n} {cls} {cm} vs {against}: {r:.2f}x < {want}x")
    print(f"| {n} | {cls} | {against} | {STATED[(n, cls, against)]}x | >= {want}x | " + " | ".join(cells) + " |")
for n in (n for n in (1, 2) if n in SCENARIOS):
    ws = pooled(tail[(n, "long", "PFC_wstop")], all_idx)
    for cm in CAPFC:
        c = pooled(tail[(n, "long", cm)], all_idx)
        if ws is None or c is None:
            failed.append(f"scenario {n} long {cm} vs PFC_wstop: not all flows done")
        elif abs(c / ws - 1) > 0.15:
            failed.append(f"scenario {n} long: {cm} {c:.2f} ms not within 15 % of PFC_wstop's {ws:.2f} ms")
deadlocks = []
for n, by, _ in results:
    for s in range(1, SEEDS + 1):
        if by["PFC_wstop"][s].get("deadlock"):
            deadlocks.append((n, s))
print()
if any(n in (1, 2) for n, _ in deadlocks):
    verdict = "deadlock"
elif not failed:
    verdict = "reproduced"
else:
    verdict = "not reproduced"
print(f"**Verdict (docs/paper-literal.md's rule): {verdict}.**")
if deadlocks:
    print("- PFC_wstop deadlocked in (scenario, seed): " + ", ".join(f"({n}, {s})" for n, s in deadlocks))
for f in failed:
    print(f"- {f}")
print()
for n, by, cmd in results:
    drops = ", ".join(
        f"{m} {sum(by[m][s]['egress_drops'] + by[m][s]['ingress_drops'] for s in by[m])}" for m in MODES)
    to = ", ".join(f"{m} {sum(by[m][s]['timeouts'] for s in by[m])}" for m in MODES)
    print(f"- `{cmd}`: packets dropped: {drops}; TCP timeouts: {to}")
    if any("pause_expiry" in by[m][s] for m in MODES for s in by[m]):
        def pe(m, k):
            return sum(by[m][s].get("pause_expiry", {}).get(k, 0) for s in by[m])
        ex = "; ".join(
            f"{m}: {pe(m, 'expiries')} pauses expired, {pe(m, 'refreshes_withheld')} refreshes withheld, "
            f"deadlocks {pe(m, 'deadlocks')} (cleared {pe(m, 'deadlocks_cleared')}, longest "
            f"{max(by[m][s].get('pause_expiry', {}).get('longest_deadlock_checks', 0) for s in by[m])} ms)"
            for m in MODES)
        print(f"  - pause expiry variant: {ex}")
