"""A cocotb scoreboard: capfc's reference checker beside a CaPFC block.

    from capfc import Params
    from capfc.cocotb import Scoreboard

    sb = Scoreboard(dut, dut.clk, Params.of("np4"), envelope=open("my.timing.toml").read())
    sb.start()
    ...                                   # drive the block, up to the last cycle's edge
    await ReadOnly()                      # (the scoreboard takes that edge too)
    sb.finish()                           # raises AssertionError if a rule was broken

Once a cycle, at the rising edge of ``clk``, it reads the block's ports as cocotb gives them there:
the values before the edge's updates, those of the cycle the edge ends (drive the inputs after the
edge, as a synchronous cocotb driver does; start the clock low, so that its first rising edge ends
the first cycle). It reads the ports (by the block's names, or through ``signals``: a function from
the block's port name to a handle or an int, for a block whose names or encodings differ), steps
the checker, and logs every report with ``dut._log.error``. The ports are capfc_top_oc's (the
lanes' readies among them) and the default envelope is the block's: a run that ends less than four
cycles after a lane's take ends before its answer and is reported so. With
``Params(..., block="v2")`` they are those of the previous block, capfc_v2_top, and its envelope.
"""

from typing import Any, Callable, List, Optional

import cocotb
from cocotb.triggers import RisingEdge

from . import Checker, Params


def to_int(v: Any) -> int:
    """A signal's value as an int, X and Z bits read as 0 (as DPI's bit vectors and capfc check do)."""
    try:
        return int(v)
    except ValueError:
        return int(str(v).lower().replace("x", "0").replace("z", "0"), 2)


class Scoreboard:
    def __init__(
        self,
        dut: Any,
        clk: Any,
        params: Params,
        envelope: Optional[str] = None,
        signals: Optional[Callable[[str], Any]] = None,
        max_reports: int = 10,
    ):
        self.dut = dut
        self.clk = clk
        self.checker = Checker(params, envelope)
        self.signals = signals or (lambda name: getattr(dut, name))
        self.max_reports = max_reports
        self.reports: List[str] = []
        # the cycle whose ports are being read (its edge's count from 0): the checker's own count
        # lags by the envelope's accept latency, as it waits for the answers
        self.cycle = -1
        self._task = None

    def _value(self, name: str) -> int:
        s = self.signals(name)
        return s if isinstance(s, int) else to_int(s.value)

    def _concat(self, fields) -> int:
        v = 0
        for name, lsb, _ in fields:
            v |= self._value(name) << lsb
        return v

    def _take(self, reports: List[str]) -> None:
        for r in reports:
            if len(self.reports) < self.max_reports:
                self.dut._log.error("capfc scoreboard: %s", r)
            self.reports.append(r)

    async def _run(self) -> None:
        while True:
            await RisingEdge(self.clk)
            self.cycle += 1
            i = self._concat(self.checker.in_fields)
            o = self._concat(self.checker.out_fields)
            self._take(self.checker.step(i, o))

    def start(self) -> None:
        self._task = cocotb.start_soon(self._run())

    def finish(self, raise_on_error: bool = True) -> None:
        if self._task is not None:
            self._task.cancel()
        self._take(self.checker.finish())
        self.dut._log.info("capfc scoreboard: %s", self.checker.summary())
        if raise_on_error and self.checker.lanes == 0:
            raise AssertionError("capfc scoreboard: nothing was checked (no lane was valid in any cycle)")
        if raise_on_error and self.reports:
            raise AssertionError(f"capfc scoreboard: {len(self.reports)} violations; first: {self.reports[0]}")
