#!/usr/bin/env python3
"""paper-fat-1 changed one thing at a time (`make paper-fat-sweep`): the table of docs/network.md under
"Where ours differ".

Each variant is scenarios/paper-fat-1.toml with some of its keys set anew (written to
build/paper-fat-sweep/NAME.toml) and run with its `--ecn`, over seeds 1 and 2 (`--seeds`), in
PFC_wdrop, PFC_wstop and CaPFC_cal, two runs at a time. Prints one Markdown row per variant: per
class (query, short, long) the maximum FCT of PFC_wstop and of PFC_wdrop over CaPFC_cal's, one
ratio per seed. A run in which a flow did not complete (a deadlock, or --max-time) prints
"not all done" instead of a ratio, with the deadlock when there is one.

Usage: scripts/paper_fat_sweep.py [CAPFC_BINARY] [--seeds A..=B] [--block v3|v2] [VARIANT ...]
(--block: the block in every switch, `capfc net --block`; default capfc net's, v3)
"""
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# name: (description, {(table, key): value}, --ecn)
LONG_SHORT = lambda gap: {("mix.long", "mean_gap"): gap, ("mix.short", "mean_gap"): gap}
VARIANTS = {
    "none": ("none", {}, "dctcp"),
    "rto200": ("`rto` 200 ms (Linux's minimum)", {("", "rto"): 25_000_000}, "dctcp"),
    "classic": ("`--ecn classic` (RFC 3168, as Linux)", {}, "classic"),
    "off": ("`--ecn off`", {}, "off"),
    "gap120": ("long and short flows at one mean gap, 120 ms a server (the paper: \"a mean of "
               "5000\" for both)", LONG_SHORT(15_000_000), "dctcp"),
    "gap60": ("the same at 60 ms", LONG_SHORT(7_500_000), "dctcp"),
    "gap60-classic": ("the same at 60 ms, `--ecn classic`", LONG_SHORT(7_500_000), "classic"),
    "gap40": ("the same at 40 ms", LONG_SHORT(5_000_000), "dctcp"),
    "query300": ("300 queries a second", {("mix.query", "mean_gap"): 416_667}, "dctcp"),
    "query300-off": ("300 queries a second, `--ecn off`", {("mix.query", "mean_gap"): 416_667},
                     "off"),
    "short-x2": ("short flows twice as often", {("mix.short", "mean_gap"): 937_500}, "dctcp"),
    # deadlocks PFC_wstop at seed 1 (docs/network.md, "PFC_wstop can deadlock a fat tree")
    "gap60-off": ("the same at 60 ms, `--ecn off`", LONG_SHORT(7_500_000), "off"),
}
MODES = ["PFC_wdrop", "PFC_wstop", "CaPFC_cal"]
CLASSES = ["query", "short", "long"]

args = sys.argv[1:]
seeds = "1..=2"
if "--seeds" in args:
    i = args.index("--seeds")
    seeds = args[i + 1]
    del args[i : i + 2]
block = []
if "--block" in args:
    i = args.index("--block")
    block = ["--block", args[i + 1]]
    del args[i : i + 2]
capfc = args.pop(0) if args and os.path.sep in args[0] else "target/release/capfc"
names = args or [n for n in VARIANTS if n != "gap60-off"]
for n in names:
    if n not in VARIANTS:
        sys.exit(f"paper_fat_sweep: no variant {n!r} (there are {', '.join(VARIANTS)})")
base = open("scenarios/paper-fat-1.toml").read()
out_dir = "build/paper-fat-sweep"
os.makedirs(out_dir, exist_ok=True)


def edit(text, table, key, value):
    """Set `key = value` in [table] ("" for the top level), which must have it."""
    lines, cur, done = text.split("\n"), "", False
    for i, line in enumerate(lines):
        m = re.match(r"^\[(.*)\]\s*$", line)
        if m:
            cur = m.group(1)
        elif cur == table and re.match(rf"^{re.escape(key)}\s*=", line):
            lines[i], done = f"{key} = {value}", True
    if not done:
        sys.exit(f"paper_fat_sweep: scenarios/paper-fat-1.toml has no [{table}] {key}")
    return "\n".join(lines)


def run(name):
    _, keys, ecn = VARIANTS[name]
    text = base
    for (table, key), value in keys.items():
        text = edit(text, table, key, value)
    path = f"{out_dir}/{name}.toml"
    with open(path, "w") as f:
        f.write(text)
    # two runs at a time, each on one thread
    cmd = [capfc, "net", "--scenario", path, "--ecn", ecn, "--seeds", seeds, "--json",
           "--mode", ",".join(MODES), "--jobs", "1"] + block
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return name, [json.loads(line) for line in p.stdout.splitlines()], " ".join(cmd)


with ThreadPoolExecutor(max_workers=2) as ex:
    results = list(ex.map(run, names))

head = [f"{c}: {m}" for c in CLASSES for m in ["PFC_wstop", "PFC_wdrop"]]
print("| change | " + " | ".join(head) + " |")
print("| --- | " + " | ".join("---" for _ in head) + " |")
notes = []
for name, runs, cmd in results:
    by = {}
    for r in runs:
        st = r["stats"]
        for c in st["classes"]:
            done = c["completed"] == c["flows"]
            by[(r["seed"], r["mode"], c["class"])] = c["fct_max_us"] if done else None
        if st.get("deadlock"):
            d = st["deadlock"]
            notes.append(f"- {name}, seed {r['seed']}, {r['mode']}: deadlock found at "
                         f"{d['since'] * st['cycle_ns'] / 1e6:.3f} ms ({len(d['waits'])} switches)")
    seed_list = sorted({r["seed"] for r in runs})
    cells = []
    for c in CLASSES:
        for m in ["PFC_wstop", "PFC_wdrop"]:
            ratios = []
            for s in seed_list:
                a, cal = by.get((s, m, c)), by.get((s, "CaPFC_cal", c))
                ratios.append(f"{a / cal:.2f}" if a and cal else "not all done")
            cells.append(", ".join(ratios))
    print(f"| {VARIANTS[name][0]} | " + " | ".join(cells) + " |")
print()
for name, _, cmd in results:
    print(f"- {name}: `{cmd}`")
for n in notes:
    print(n)
