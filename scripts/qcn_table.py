#!/usr/bin/env python3
"""The tables of docs/qcn.md: seed 003's QCN and adaptive-routing figures beside the paper's, each
with its verdict by the rules written in docs/qcn.md (`make qcn`).

Runs `capfc net --mode PAUSE,QCN,QCN_AR --scenario scenarios/qcn-*.toml --json --csv OUT --pcap
OUT --plot OUT/NAME.svg` for every hotspot scenario, and the uniform scenarios of T1 and T2 at loads 0.1 to 1.0 (the
load written into a copy of the file under OUT), two at a time; then prints the markdown tables.
Usage: scripts/qcn_table.py [CAPFC_BINARY] [OUT_DIR]
"""
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

capfc = sys.argv[1] if len(sys.argv) > 1 else "target/release/capfc"
out = sys.argv[2] if len(sys.argv) > 2 else "target/qcn"
os.makedirs(out, exist_ok=True)
Q_EQ = 33000.0
HOT = ["qcn-dumbbell", "qcn-t1-non", "qcn-t2-non", "qcn-t3-non", "qcn-t1-con", "qcn-t2-con",
       "qcn-t3-con"]
LOADS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def run(path, extra=()):
    cmd = [capfc, "net", "--mode", "PAUSE,QCN,QCN_AR", "--scenario", path, "--json", "--csv", out,
           *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return {r["mode"]: r for r in json.loads(p.stdout)}


def hot(name):
    return name, run(f"scenarios/{name}.toml", ["--pcap", out, "--plot", f"{out}/{name}.svg"])


def uniform(job):
    topo, load = job
    text = open(f"scenarios/qcn-{topo}-uniform.toml").read()
    text = re.sub(r"(?m)^uniform_load = .*$", f"uniform_load = {load}", text)
    path = f"{out}/qcn-{topo}-uniform-{load:.1f}.toml"
    with open(path, "w") as f:
        f.write(text)
    return (topo, load), run(path)


def spread(name):
    """QCN and QCN_AR with seeds 1 to 5 (not judged: the spread of the judged figures)."""
    cmd = [capfc, "net", "--mode", "QCN,QCN_AR", "--scenario", f"scenarios/{name}.toml", "--json",
           "--seeds", "1..=5"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return name, json.loads(p.stdout)


with ThreadPoolExecutor(2) as ex:
    H = dict(ex.map(hot, HOT))
    S = dict(ex.map(spread, HOT[1:]))
    U = dict(ex.map(uniform, [(t, l) for t in ("t1", "t2") for l in LOADS]))

hits = total = 0


def verdict(ok):
    global hits, total
    total += 1
    hits += bool(ok)
    return "**hit**" if ok else "miss"


def kb(x):
    return f"{x / 1000:.1f}"


def cmd(name, modes="PAUSE,QCN,QCN_AR"):
    return f"`capfc net --mode {modes} --scenario scenarios/{name}.toml`"


print("### 1. QCN alone holds the hot queue at Q_eq, hot flows sum to the bottleneck\n")
print("| topology | paper | hot queue mean (KB) | hot flows (MB/s) | sum (MB/s) | verdict | command |")
print("|---|---|---|---|---|---|---|")
for name in ["qcn-dumbbell", "qcn-t1-non", "qcn-t2-non", "qcn-t3-non"]:
    r = H[name]["QCN"]
    q = r["hot_queue_mean"][0]
    s = sum(r["hot_mbytes"])
    ok = abs(q - Q_EQ) <= 0.1 * Q_EQ and abs(s - 1250) <= 12.5
    flows = " / ".join(f"{x:.1f}" for x in r["hot_mbytes"])
    print(f"| {name} | 33.0 KB, sum 1,250 | {kb(q)} | {flows} | {s:.1f} | {verdict(ok)} | {cmd(name, 'QCN')} |")

print("\n### 2. AR: each non-contending hot flow at 1,187.5 MB/s, hot queues empty\n")
print("| topology | hot flows (MB/s) | hot queues mean (KB) | (QCN alone, MB/s) | verdict | command |")
print("|---|---|---|---|---|---|")
for name in ["qcn-t1-non", "qcn-t2-non", "qcn-t3-non"]:
    r = H[name]["QCN_AR"]
    ok = all(abs(x - 1187.5) <= 11.875 for x in r["hot_mbytes"]) and all(
        q < 1500 for q in r["hot_queue_mean"])
    flows = " / ".join(f"{x:.1f}" for x in r["hot_mbytes"])
    qs = " / ".join(kb(q) for q in r["hot_queue_mean"])
    alone = " / ".join(f"{x:.1f}" for x in H[name]["QCN"]["hot_mbytes"])
    print(f"| {name} | {flows} | {qs} | {alone} | {verdict(ok)} | {cmd(name, 'QCN_AR')} |")

print("\n### 3. Uniform traffic: saturation throughput at λ = 1.0 (% of the hosts' line rate)\n")
print("| topology | mode | paper | measured | verdict | command |")
print("|---|---|---|---|---|---|")
PAPER = {("t1", "PAUSE"): 55.6, ("t2", "PAUSE"): 55.6, ("t1", "QCN"): 100 * (3 / 9 + 2 / 5),
         ("t2", "QCN"): 100 * (3 / 9 + 2 / 5), ("t1", "QCN_AR"): 96.8, ("t2", "QCN_AR"): 98.5}
for topo in ("t1", "t2"):
    for mode in ("PAUSE", "QCN", "QCN_AR"):
        m = 100 * U[(topo, 1.0)][mode]["throughput"]
        p = PAPER[(topo, mode)]
        print(f"| {topo.upper()} | {mode} | {p:.1f} | {m:.1f} | {verdict(abs(m - p) <= 3)} | "
              f"`capfc net --mode {mode} --scenario {out}/qcn-{topo}-uniform-1.0.toml` |")

print("\n#### The sweep (throughput %, not judged below λ = 1.0)\n")
print("| λ | T1 PAUSE | T1 QCN | T1 AR | T2 PAUSE | T2 QCN | T2 AR | paper QCN `3/9+2λ/5` (λ ≥ 5/9) | T1 latency PAUSE / QCN / AR (µs) |")
print("|---|---|---|---|---|---|---|---|---|")
for l in LOADS:
    row = [f"{100 * U[(t, l)][m]['throughput']:.1f}" for t in ("t1", "t2")
           for m in ("PAUSE", "QCN", "QCN_AR")]
    pq = f"{100 * (3 / 9 + 2 * l / 5):.1f}" if l >= 5 / 9 else "(= λ)"
    lat = " / ".join(f"{U[('t1', l)][m]['latency_us']:.0f}" for m in ("PAUSE", "QCN", "QCN_AR"))
    print(f"| {l:.1f} | " + " | ".join(row) + f" | {pq} | {lat} |")

print("\n### 4. Resequencing buffer with AR (frames, time average over 500–1500 ms)\n")
print("| scenario | paper | hot flows mean | hot flows max | verdict |")
print("|---|---|---|---|---|")
for name in ["qcn-t1-non", "qcn-t2-non", "qcn-t3-non", "qcn-t1-con", "qcn-t2-con", "qcn-t3-con"]:
    r = H[name]["QCN_AR"]
    m = r["reseq_mean"]
    if name.endswith("non"):
        ok, paper = all(x < 1 for x in m), "< 1"
    else:
        mean = sum(m) / len(m)
        ok, paper = 5 <= mean <= 20, "about 10"
    print(f"| {name} | {paper} | {' / '.join(f'{x:.2f}' for x in m)} | "
          f"{' / '.join(str(x) for x in r['reseq_max'])} | {verdict(ok)} |")

print("\n### 5. Contending flows: QCN still holds the unavoidable hot queue with AR\n")
print("| scenario | queue | QCN_AR mean (KB) | QCN mean (KB) | hot flows QCN_AR (MB/s) | verdict | command |")
print("|---|---|---|---|---|---|---|")
for name in ["qcn-t1-con", "qcn-t2-con", "qcn-t3-con"]:
    r = H[name]["QCN_AR"]
    q = r["hot_queue_mean"][1]
    qq = H[name]["QCN"]["hot_queue_mean"]
    ok = abs(q - Q_EQ) <= 0.1 * Q_EQ
    flows = " / ".join(f"{x:.1f}" for x in r["hot_mbytes"])
    print(f"| {name} | 2nd listed | {kb(q)} | {' / '.join(kb(x) for x in qq)} | {flows} | "
          f"{verdict(ok)} | {cmd(name, 'QCN,QCN_AR')} |")

print("\n### Spread over seeds 1 to 5 (not judged)\n")
print("| scenario | QCN hot queue mean, min–max (KB) | QCN hot sum min–max (MB/s) | QCN_AR slowest hot flow min–max (MB/s) | QCN_AR reseq hot mean max (frames) | QCN_AR 2nd queue mean min–max (KB) |")
print("|---|---|---|---|---|---|")
for name, runs in S.items():
    q = [r for r in runs if r["mode"] == "QCN"]
    a = [r for r in runs if r["mode"] == "QCN_AR"]
    qm = [r["hot_queue_mean"][0] for r in q]
    qs = [sum(r["hot_mbytes"]) for r in q]
    slow = [min(r["hot_mbytes"]) for r in a]
    rs = max(max(r["reseq_mean"]) for r in a)
    q2 = [r["hot_queue_mean"][1] for r in a]
    print(f"| {name} | {kb(min(qm))}–{kb(max(qm))} | {min(qs):.1f}–{max(qs):.1f} | "
          f"{min(slow):.1f}–{max(slow):.1f} | {rs:.2f} | {kb(min(q2))}–{kb(max(q2))} |")
print(f"\n`capfc net --mode QCN,QCN_AR --scenario scenarios/NAME.toml --seeds 1..=5`")

print(f"\n**{hits} of {total} checks hit.**")
wall = sum(r["wall_s"] for d in list(H.values()) + list(U.values()) for r in d.values()) + sum(
    r["wall_s"] for runs in S.values() for r in runs)
print(f"\nSimulation time summed over runs: {wall:.0f} s.")
