#!/usr/bin/env python3
"""The table of docs/network.md: the paper's Table I scenarios on the fat tree (`make paper-fat`).

Runs `capfc net --scenario paper-fat-N --json` for N = 1..6 (two at a time), then prints, per
scenario and traffic class, the tail FCT in each flow-control mode (the maximum, as the paper
defines it: "tail (maximum) flow completion time"; `--p99` for the 99th percentile) and CaPFC_cal's
gain against PFC_wdrop and PFC_wstop, beside the paper's (query about 6x and 3x, short about 5x,
long within a few percent). Usage: scripts/paper_fat_table.py [CAPFC_BINARY] [EXTRA capfc net ARGS...]
"""
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

args = [a for a in sys.argv[1:] if a != "--p99"]
key, label = ("fct_p99_us", "p99") if "--p99" in sys.argv else ("fct_max_us", "max")
capfc = args[0] if args else "target/release/capfc"
extra = args[1:]
PAPER = {"query": "6x / 3x", "short": "5x / 5x", "long": "~1x / ~1x"}
MODES = ["PFC_wdrop", "PFC_wstop", "CaPFC_max", "CaPFC_cal"]


def run(n):
    # two runs at a time, each on one thread
    cmd = [capfc, "net", "--scenario", f"paper-fat-{n}", "--json", "--jobs", "1"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return n, json.loads(p.stdout), " ".join(cmd)


with ThreadPoolExecutor(max_workers=2) as ex:
    results = list(ex.map(run, range(1, 7)))

print("| scenario | class | " + " | ".join(f"{m} {label} (ms)" for m in MODES)
      + " | PFC_wdrop / CaPFC_cal | PFC_wstop / CaPFC_cal | paper |")
print("| --- | --- | " + " | ".join("---:" for _ in MODES) + " | ---: | ---: | --- |")
for n, doc, _ in results:
    runs = {r["mode"]: r["stats"] for r in doc["runs"]}
    for cls in ["query", "short", "long"]:
        p99 = {}
        for m in MODES:
            c = [k for k in runs[m]["classes"] if k["class"] == cls]
            if not c or c[0]["completed"] != c[0]["flows"]:
                p99[m] = None
            else:
                p99[m] = c[0][key] / 1000.0
        cal = p99["CaPFC_cal"]
        ratio = lambda m: (f"{p99[m] / cal:.2f}x" if cal and p99[m] else "-")
        cells = " | ".join(f"{p99[m]:.2f}" if p99[m] else "not all done" for m in MODES)
        print(f"| paper-fat-{n} | {cls} | {cells} | {ratio('PFC_wdrop')} | {ratio('PFC_wstop')} | {PAPER[cls]} |")
print()
for n, doc, cmd in results:
    runs = {r["mode"]: r["stats"] for r in doc["runs"]}
    drops = ", ".join(f"{m} {runs[m]['egress_drops'] + runs[m]['ingress_drops']}" for m in MODES)
    print(f"- `{cmd}`: packets dropped: {drops}")
