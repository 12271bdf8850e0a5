#!/usr/bin/env python3
"""lint_slang.py: the RTL through slang, a strict SystemVerilog compiler (pyslang), at several port counts.

Compiles the file list with the top module's NP overridden to each port count, runs slang's
analysis pass too (drivers, latches), and prints every diagnostic, errors and warnings, once:
file:line:col, severity, message, [-Wflag] and the port counts where it occurs. Exits 1 if there
is any. slang's own report of each run (with source lines) goes to OUT/np<N>.log, its JSON to
OUT/np<N>.json.

Usage: lint_slang.py [--top capfc_v2_top] [-f check/capfc_v2/files.f] [--ports 4 8 ...] [--out DIR] [SLANG_ARG ...]
e.g.   lint_slang.py --ports 8 32 -Weverything        (make lint-slang SLANG_WARNINGS=-Wextra)
"""
import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from pyslang import driver


def compile_once(files_f, top, np, slang_args, log, diag_json):
    """One slang compilation (parse, elaborate, analyse); its text report goes to log."""
    cmd = ["slang", "-f", files_f, "--top", top, f"-GNP={np}", "--diag-json", str(diag_json)]
    d = driver.Driver()
    d.addStandardArgs()
    saved = os.dup(2)  # slang writes its report to the process's stderr: send it to the log
    with open(log, "w") as f:
        os.dup2(f.fileno(), 2)
        try:
            ok = d.parseCommandLine(shlex.join(cmd + slang_args), driver.CommandLineOptions())
            ok = ok and d.processOptions()
            if ok:
                d.parseAllSources()
                comp = d.createCompilation()
                d.reportCompilation(comp, True)
                d.runAnalysis(comp)
                d.reportDiagnostics(True)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    if not ok:
        sys.exit(f"lint-slang: NP={np}: slang refused its command line {shlex.join(cmd + slang_args)} (log {log})")
    return json.loads(Path(diag_json).read_text() or "[]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", default="capfc_v2_top")
    ap.add_argument("-f", dest="files_f", default="check/capfc_v2/files.f")
    ap.add_argument("--ports", type=int, nargs="+", default=[4, 6, 8, 16, 32, 48, 64, 128])
    ap.add_argument("--out", default="build/lint-slang")
    args, slang_args = ap.parse_known_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)

    seen = {}  # (location, severity, flag) -> [diagnostic of the first port count, port counts]
    for np in args.ports:
        out = Path(args.out) / f"np{np}"
        for diag in compile_once(args.files_f, args.top, np, slang_args, f"{out}.log", f"{out}.json"):
            key = (diag["location"], diag["severity"], diag.get("optionName", ""))
            seen.setdefault(key, [diag, []])[1].append(np)

    def by_place(item):  # file, then line and column as numbers
        file, _, pos = item[0][0].partition(":")
        return (file, [int(n) for n in pos.split(":") if n.isdigit()])

    for (loc, sev, flag), (diag, nps) in sorted(seen.items(), key=by_place):
        where = "all" if nps == args.ports else ",".join(map(str, nps))
        print(f"{loc}: {sev}: {diag['message']}" + (f" [-W{flag}]" if flag else "") + f" (NP={where})")
        for note in diag.get("notes", []):
            print(f"    note: {note['message']}")
    errors = sum(1 for k in seen if k[1] in ("error", "fatal"))
    ports = " ".join(map(str, args.ports))
    flags = " ".join(slang_args) or "default warnings"
    if seen:
        print(f"lint-slang: {errors} errors, {len(seen) - errors} warnings (distinct locations) at NP={ports}"
              f" ({flags}); slang's reports: {args.out}/np<N>.log")
        sys.exit(1)
    print(f"lint-slang: {args.top} clean at NP={ports} ({flags})")


if __name__ == "__main__":
    main()
