"""cocotb test: a golden set's stimulus drives a CaPFC block (capfc_v2_top, or the second
implementation capfc_v1_top through an adapter) and capfc's scoreboard checks it.

Environment: CAPFC_SET (a golden set directory), CAPFC_BLOCK ("ours", "v3": our v3 block
capfc_top_oc, or "v1"), CAPFC_ENVELOPE
(a timing envelope file; empty: capfc_v2_top's own), CAPFC_CONFIG (the parameter set, e.g. np4),
CAPFC_FLIP (ours: flip D[0].p5 from this cycle on, as the scoreboard sees it).
"""

import dataclasses
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from capfc import Params, unpack
from capfc.cocotb import Scoreboard, to_int


def read_stim(path):
    """{cycle: concatenation} of a golden stim.hex."""
    lines = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("//"):
                continue
            cyc, _, value = line.partition("_")
            lines[int(cyc, 16)] = int(value.replace("_", ""), 16)
    return lines


def cycles_of(set_dir):
    with open(os.path.join(set_dir, "params.vh")) as f:
        for line in f:
            if line.startswith("`define CAPFC_CYCLES "):
                return int(line.split()[2])
    raise ValueError(f"{set_dir}: no CAPFC_CYCLES")


@cocotb.test()
async def scoreboard_checks_the_block(dut):
    set_dir = os.environ["CAPFC_SET"]
    block = os.environ["CAPFC_BLOCK"]
    env_path = os.environ.get("CAPFC_ENVELOPE", "")
    params = Params.of(os.environ["CAPFC_CONFIG"])
    # (our v2 block, "ours", and the second implementation, "v1", have capfc_v2_top's ports)
    params = dataclasses.replace(params, block="v3" if block == "v3" else "v2")
    envelope = open(env_path).read() if env_path else None
    np_ = params.np

    signals = None
    if block == "v1":
        # the adapter: the pulse is always taken; the paused classes are those with a non-zero
        # pause time, which is the pause time of the frame
        def signals(name):
            if name == "pfc_ready":
                return (1 << np_) - 1
            if name in ("pfc_xoff", "pfc_quanta"):
                q = to_int(dut.pfc_quanta.value)
                times = [(q >> (16 * k)) & 0xFFFF for k in range(8 * np_)]
                if name == "pfc_quanta":
                    v = 0
                    for t in times:
                        v |= t
                    return v
                return sum(1 << k for k, t in enumerate(times) if t)
            return getattr(dut, name)

    flip = int(os.environ.get("CAPFC_FLIP", "-1"))
    if block in ("ours", "v3") and flip >= 0:
        # a stand-in for a bug in our block: D[0].p5 as the scoreboard sees it, flipped from its
        # cycle `flip` on
        def signals(name):
            if name == "d_state" and sb.cycle >= flip:
                return to_int(dut.d_state.value) ^ (1 << 5)
            return getattr(dut, name)

    sb = Scoreboard(dut, dut.clk, params, envelope=envelope, signals=signals)
    stim = read_stim(os.path.join(set_dir, "stim.hex"))
    fields = sb.checker.in_fields
    names = [n for n, _, _ in fields if not (block == "v1" and n == "pfc_ready")]
    # low first: the first rising edge (5 ns) ends cycle 0, whose inputs are driven at 0 ns
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start(start_high=False))
    sb.start()
    ready = (1 << np_) - 1
    for c in range(cycles_of(set_dir)):
        values = unpack(fields, stim.get(c, 0))
        if c in stim:
            ready = values["pfc_ready"]
        else:
            values["pfc_ready"] = ready
        for n in names:
            getattr(dut, n).value = values[n]
        await RisingEdge(dut.clk)
    # the scoreboard takes the last cycle at that edge too: let it, in the same time step, before
    # the end (the v3 block answers the lanes of that cycle's last four)
    await ReadOnly()
    sb.finish()
