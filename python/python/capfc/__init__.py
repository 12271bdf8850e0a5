"""capfc: the CaPFC reference model and checker (Rust, through pyo3) for Python testbenches.

A cycle travels as two concatenations of the block's ports, first port highest, as Python ints:
capfc_top_oc's (``{rst, cfg_we, ..., pfc_ready}`` in, ``{arr_ready, deq_ready, arr_accept, ...,
d_state}`` out, the accepts four cycles after a lane's take); with ``Params(..., block="v2")``,
those of the previous block, capfc_v2_top (no readies, every lane answered in the cycle it is seen).
``Params`` names the RTL parameters; ``fields()`` gives each port's place, so a testbench can
build and read the ints by name (``pack`` / ``unpack``). ``capfc.cocotb.Scoreboard`` runs the
checker beside a block in a cocotb test.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import _native

__all__ = ["Params", "Model", "Checker", "pack", "unpack"]


@dataclass(frozen=True)
class Params:
    """The block's RTL parameters, and its micro-architecture ("v3", the block: capfc_top_oc; "v2",
    the previous block: capfc_v2_top)."""

    np: int
    sw: int = 14
    ow: int = 20
    cw: int = 16
    cell_log2: int = 0
    cut_f: int = 8
    nl: int = 2
    block: str = "v3"

    @staticmethod
    def of(name: str) -> "Params":
        """A built-in parameter set: ``np4``, ``np8``, ``np6_cw4``, ... (the block "v3")."""
        return Params(*_native.params_of(name))

    def values(self) -> Tuple[int, ...]:
        return (self.np, self.sw, self.ow, self.cw, self.cell_log2, self.cut_f, self.nl)


def _to_bytes(v: int, bits: int) -> bytes:
    if v < 0 or v >> bits:
        raise ValueError(f"{v:#x} does not fit in {bits} bits")
    return v.to_bytes((bits + 31) // 32 * 4, "little")


Field = Tuple[str, int, int]


def pack(fields: List[Field], values: Dict[str, int]) -> int:
    """The concatenation of named port values (ports left out are 0)."""
    known = {name: (lsb, width) for name, lsb, width in fields}
    v = 0
    for name, x in values.items():
        if name not in known:
            raise KeyError(f"no port '{name}' (ports: {', '.join(known)})")
        lsb, width = known[name]
        if x < 0 or x >> width:
            raise ValueError(f"{name} = {x:#x} does not fit in {width} bits")
        v |= x << lsb
    return v


def unpack(fields: List[Field], v: int) -> Dict[str, int]:
    """Named port values of a concatenation."""
    return {name: (v >> lsb) & ((1 << width) - 1) for name, lsb, width in fields}


class Model:
    """The cycle model of capfc_v2_top."""

    def __init__(self, params: Params):
        self._m = _native.Model(*params.values(), block=params.block)
        self.in_bits = self._m.in_bits
        self.out_bits = self._m.out_bits
        self.in_fields: List[Field] = self._m.in_fields()
        self.out_fields: List[Field] = self._m.out_fields()

    def step(self, inputs: int) -> int:
        """One cycle: the inputs' concatenation in, the outputs' out."""
        return int.from_bytes(self._m.step(_to_bytes(inputs, self.in_bits)), "little")


class Checker:
    """The reference checker: judges what a block was given and what it answered, cycle by cycle,
    within its timing envelope (TOML text, the format of ``capfc check --timing``; None: capfc_v2_top's
    own)."""

    def __init__(self, params: Params, envelope: Optional[str] = None):
        self._c = _native.Checker(*params.values(), envelope, block=params.block)
        self.in_bits = self._c.in_bits
        self.out_bits = self._c.out_bits
        fields = _native.Model(*params.values(), block=params.block)
        self.in_fields: List[Field] = fields.in_fields()
        self.out_fields: List[Field] = fields.out_fields()

    def step(self, inputs: int, outputs: int) -> List[str]:
        """One cycle; the reports of the violations it shows."""
        return self._c.step(_to_bytes(inputs, self.in_bits), _to_bytes(outputs, self.out_bits))

    def finish(self) -> List[str]:
        """The end of the run; the reports of what waited for it."""
        return self._c.finish()

    @property
    def violations(self) -> int:
        return self._c.violations

    @property
    def cycles(self) -> int:
        return self._c.cycles

    @property
    def lanes(self) -> int:
        """Lanes checked so far: a run with none checked nothing."""
        return self._c.lanes

    def summary(self) -> str:
        return self._c.summary()
