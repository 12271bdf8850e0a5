"""pytest: the cocotb scoreboard on Icarus, on our block and on the second implementation, each
clean and with a bug the scoreboard must report at its cycle and on its signal.

Run by `make test` (make pytest): python/tests in the virtual environment build/venv, with the
capfc package built from the repository by pip (maturin).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cocotb_tools.runner import get_runner

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "build" / "cocotb"


def golden_set(name, *gen_args):
    """A set written by `capfc golden gen` (the binary built by cargo)."""
    d = WORK / "sets" / name
    if not (d / "params.vh").exists():
        subprocess.run(
            [str(ROOT / "target/release/capfc"), "golden", "gen", *gen_args, "--out", str(d)],
            check=True,
            capture_output=True,
        )
    return d


def run(block, set_dir, build, defines=None, envelope="", flip=-1):
    if block == "v1":
        sources = sorted((ROOT / "check/capfc_v1/rtl").glob("*.sv"))
        top = "capfc_v1_top"
    elif block == "v3":
        files = (ROOT / "rtl/v3/files.f").read_text().split()
        sources = [ROOT / f for f in files if f.endswith(".sv")]
        top = "capfc_top_oc"
    else:
        files = (ROOT / "check/capfc_v2/files.f").read_text().split()
        sources = [ROOT / f for f in files if f.endswith(".sv")]
        top = "capfc_v2_top"
    runner = get_runner("icarus")
    runner.build(
        sources=sources,
        hdl_toplevel=top,
        parameters={"NP": 4},
        defines=defines or {},
        build_args=["-g2012"],
        build_dir=WORK / build,
        always=True,
    )
    results_xml = WORK / build / "results.xml"
    try:
        runner.test(
            hdl_toplevel=top,
            test_module="capfc_cocotb_tests",
            test_dir=Path(__file__).parent,
            build_dir=WORK / build,
            results_xml=str(results_xml),
            extra_env={
                "CAPFC_SET": str(set_dir),
                "CAPFC_BLOCK": block,
                "CAPFC_ENVELOPE": envelope,
                "CAPFC_CONFIG": "np4",
                "CAPFC_FLIP": str(flip),
                "PYTHONPATH": str(Path(__file__).parent) + os.pathsep + os.environ.get("PYTHONPATH", ""),
            },
        )
    except SystemExit:
        # cocotb's runner exits when a test failed: the results file says which and why
        pass
    return results_xml


def failures(results_xml):
    """The failure messages of a cocotb results file (it must hold one test case)."""
    import xml.etree.ElementTree as ET

    t = ET.parse(results_xml)
    cases = list(t.iter("testcase"))
    assert len(cases) == 1, f"{results_xml}: {len(cases)} test cases"
    return [f.get("error_msg", "") for f in t.iter("failure")]


V1_ENV = str(ROOT / "check/capfc_v1/capfc_v1.timing.toml")


def test_our_block_clean_and_with_a_flipped_output():
    s = golden_set("ours_max_seed1", "--seed", "1", "--steady", "--cycles", "1500", "--config", "np4", "--algo", "max")
    results = run("ours", s, "ours")
    assert failures(results) == []
    results = run("ours", s, "ours_flip", flip=1000)
    f = failures(results)
    assert len(f) == 1 and "cycle 1000: " in f[0] and "d[0].p5" in f[0], f


def test_our_v3_block_clean_and_with_a_flipped_output():
    """The v3 block (capfc_top_oc) with Params(block="v3"): its lanes' readies, accepts four
    cycles after the take, the v3 envelope."""
    s = ROOT / "golden/v3/random_max_np4_seed1"
    results = run("v3", s, "v3")
    assert failures(results) == []
    results = run("v3", s, "v3_flip", flip=1000)
    f = failures(results)
    assert len(f) == 1 and "cycle 1000: " in f[0] and "d[0].p5" in f[0], f


def test_v1_clean_and_with_a_lost_frame():
    s = golden_set("v1_cal_seed3", "--seed", "3", "--steady", "--cycles", "1600", "--config", "np4", "--algo", "cal")
    results = run("v1", s, "v1_clean", envelope=V1_ENV)
    assert failures(results) == []
    results = run("v1", s, "v1_lost_frame", defines={"CAPFC_V1_BUG_LOST_FRAME": 1}, envelope=V1_ENV)
    f = failures(results)
    assert len(f) == 1 and "cycle 136: frame missing on frame[2]" in f[0], f
