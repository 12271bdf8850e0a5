#!/usr/bin/env python3
"""The tables of docs/fecn.md: seed 001's FECN figures beside the paper's, each with its verdict
by the rules written in docs/fecn.md (`make fecn`).

Runs `capfc net --mode FECN,FECN_PAUSE --scenario scenarios/fecn-*.toml --json --csv OUT --plot
OUT/NAME.svg` for every FECN scenario (two at a time), the verdicts on the scenario's seed (1), and
FECN again with seeds 1 to 5 for the spread, then prints the markdown tables.
Usage: scripts/fecn_table.py [CAPFC_BINARY] [OUT_DIR]
"""
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

capfc = sys.argv[1] if len(sys.argv) > 1 else "target/release/capfc"
out = sys.argv[2] if len(sys.argv) > 2 else "target/fecn"

TABLE1 = [("fecn-gamma-0.98", "γ = 0.98", 9154.14), ("fecn-gamma-0.99", "γ = 0.99", 9329.22),
          ("fecn-gamma-1.00", "γ = 1.00", 9154.14)]
TABLE2 = [("bernoulli", "n1", "single stage", 9329.22), ("bernoulli", "n2", "n = 2", 9446.28),
          ("bernoulli", "n3", "n = 3", 9814.68), ("pareto", "n1", "single stage", 9376.32),
          ("pareto", "n2", "n = 2", 9366.78), ("pareto", "n3", "n = 3", 9401.22)]
NAMES = [n for n, _, _ in TABLE1] + [f"fecn-{a}-{s}" for a, s, _, _ in TABLE2] + ["fecn-pause"]


def run(name):
    cmd = [capfc, "net", "--mode", "FECN,FECN_PAUSE", "--scenario", f"scenarios/{name}.toml",
           "--json", "--csv", out, "--plot", f"{out}/{name}.svg"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return name, {r["mode"]: r for r in json.loads(p.stdout)}


SEEDS = "1..=5"


def spread(name):
    """FECN with seeds 1 to 5: (mean, min, max) throughput, Mb/s."""
    cmd = [capfc, "net", "--mode", "FECN", "--scenario", f"scenarios/{name}.toml", "--json",
           "--seeds", SEEDS]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    t = [r["throughput_mbps"] for r in json.loads(p.stdout)]
    return name, (sum(t) / len(t), min(t), max(t))


with ThreadPoolExecutor(max_workers=2) as ex:
    res = dict(ex.map(run, NAMES))
    spr = dict(ex.map(spread, NAMES[:-1]))


def sp(name):
    m, lo, hi = spr[name]
    return f"{m:,.0f} ({lo:,.0f} to {hi:,.0f})"


def within(x, paper, tol):
    return abs(x - paper) <= tol * paper


def hit(ok):
    return "hit" if ok else "**miss**"


print("Table I, 100 CBR flows, hyperbolic f(q) (throughput, Mb/s; rule 1: FECN within 1.5 %)\n")
print("| γ | paper | FECN | off by | FECN_PAUSE | verdict | FECN, seeds 1 to 5: mean (min to max) |")
print("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
t1 = {}
for name, label, paper in TABLE1:
    f, fp = res[name]["FECN"], res[name]["FECN_PAUSE"]
    t1[name] = f["throughput_mbps"]
    d = (f["throughput_mbps"] - paper) / paper * 100
    print(f"| {label} | {paper:,.2f} | {f['throughput_mbps']:,.2f} | {d:+.2f} % | "
          f"{fp['throughput_mbps']:,.2f} | {hit(within(f['throughput_mbps'], paper, 0.015))} | "
          f"{sp(name)} |")
order = t1["fecn-gamma-0.99"] > max(t1["fecn-gamma-0.98"], t1["fecn-gamma-1.00"])
print(f"\nOrder (γ = 0.99 above both others): {hit(order)}\n")

print("Table II, multistage f(q), γ = 0.99 (throughput, Mb/s; rule 2: FECN within 1.5 %)\n")
print("| arrivals | control | paper | FECN | off by | FECN_PAUSE | verdict | FECN, seeds 1 to 5 |")
print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |")
bern = []
for arr, st, label, paper in TABLE2:
    name = f"fecn-{arr}-{st}"
    f, fp = res[name]["FECN"], res[name]["FECN_PAUSE"]
    if arr == "bernoulli":
        bern.append(f["throughput_mbps"])
    d = (f["throughput_mbps"] - paper) / paper * 100
    print(f"| {arr} | {label} | {paper:,.2f} | {f['throughput_mbps']:,.2f} | {d:+.2f} % | "
          f"{fp['throughput_mbps']:,.2f} | {hit(within(f['throughput_mbps'], paper, 0.015))} | "
          f"{sp(name)} |")
rising = bern[0] < bern[1] < bern[2]
print(f"\nOrder (Bernoulli rising with n): {hit(rising)}\n")

g = res["fecn-gamma-0.99"]["FECN"]
q_ok = 12.0 <= g["queue_mean_pkts"] <= 20.0
fair = g["jain"] >= 0.99 and g["per_flow_min_mbps"] >= 0.95 * g["per_flow_mean_mbps"] \
    and g["per_flow_max_mbps"] <= 1.05 * g["per_flow_mean_mbps"]
p = res["fecn-pause"]["FECN_PAUSE"]
p_ok = within(p["pause_mean_us"], 24.0, 0.10) and p["network_drops"] == 0
print("The queue, the fair share and PAUSE\n")
print("| figure | paper | measured | verdict |")
print("| --- | --- | --- | --- |")
print(f"| queue's mean, γ = 0.99 CBR, FECN (rule 3) | Q_eq = 16 packets | "
      f"{g['queue_mean_pkts']:.2f} packets (max {g['queue_max_pkts']:.1f}) | {hit(q_ok)} |")
print(f"| fair share, same run (rule 4) | 100 flows equal | Jain {g['jain']:.4f}, flows "
      f"{g['per_flow_min_mbps']:.2f} to {g['per_flow_max_mbps']:.2f} Mb/s, mean "
      f"{g['per_flow_mean_mbps']:.2f} | {hit(fair)} |")
print(f"| PAUSE interval, fecn-pause, FECN_PAUSE (rule 5) | 24 us, no drop | mean "
      f"{p['pause_mean_us']:.2f} us (max {p['pause_max_us']:.2f}) over {p['pauses']} intervals, "
      f"{p['network_drops']} drops | {hit(p_ok)} |")
f = res["fecn-pause"]["FECN"]
print(f"| the same overload without PAUSE (FECN) | drops | {f['network_drops']} drops, queue max "
      f"{f['queue_max_pkts']:.1f} | - |")
print(f"\nCSV and SVG per scenario and mode in {out}/.")
