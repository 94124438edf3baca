"""The seed's profit model: the Fusion Profit Graph (FPG).

profit(l1, l2) = 2 * sum over shared *placed* tensors of liveN * elemSize: fusing a producer
and a consumer over a placed intermediate saves its write and its read-back. liveN is the
number of the tensor's elements live between the two loops (analysis/liveness.py). External
tensors contribute nothing on Neuron targets. On the cpu target only (our extension), two
loops that read the same external tensor also earn 1 * its bytes (it is read once, not twice),
and so does a consumer that reads what its producer wrote into an external tensor.
"""
from __future__ import annotations

import heapq
import struct
from dataclasses import dataclass, field

from ..analysis.effects import Effects
from ..analysis.memory import UNTRACED, MemoryLocation, memory_location
from ..mlir import ir


@dataclass(frozen=True)
class SharedTensor:
    location: MemoryLocation
    written_by_first: bool
    written_by_second: bool


@dataclass(frozen=True, order=True)
class FPGEntry:
    """One heap entry; ordered so that heapq pops the highest profit, then program order."""

    neg_profit: float
    first_pos: int
    second_pos: int
    l1: ir.Operation = field(compare=False)
    l2: ir.Operation = field(compare=False)
    stamp: tuple = field(compare=False, default=())

    @property
    def profit(self) -> float:
        return -self.neg_profit


def shared_tensors(e1: Effects, e2: Effects, location=memory_location) -> list[SharedTensor]:
    """Buffers both loops touch, in a deterministic order."""
    common = [k for k in e1.touches() & e2.touches() if k is not UNTRACED and _is_memref(e1.values[k])]
    pairs = sorted(((location(e1.values[k]), k) for k in common), key=lambda mk: mk[0].name)
    return [SharedTensor(m, k in e1.writes, k in e2.writes) for m, k in pairs]


def _is_memref(v) -> bool:
    return isinstance(v.type, ir.MemRefType)


def fusion_profit(shared: list[SharedTensor], reward_shared_reads: bool = False,
                  reads_same_elements=lambda root: True, live_n=None,
                  reads_produced_elements=lambda root: False) -> float:
    """2 * sum(liveN * elemSize) over shared placed tensors, in 32-bit floats as the seed (`f32`).
    With `reward_shared_reads` (cpu),
    + 1 * bytes per shared external tensor both loops only read, when they read the same
    elements in the same iteration (reading A[i][j] and A[j][i] in one fused iteration reuses
    nothing), and + 1 * bytes per external tensor the first loop writes and the second reads
    at the elements just written (`reads_produced_elements`): the read-back hits the cache,
    while the write still goes to memory (an external tensor is not contracted).

    `live_n(t)` gives a shared tensor's live elements between the two loops (the driver passes
    `liveness.Liveness`); by default the static element count `MemoryLocation.live_n`."""
    profit = 0.0
    for t in shared:
        if t.location.placed:
            n = t.location.live_n if live_n is None else live_n(t)
            profit = f32(profit + f32(2.0 * f32(n * t.location.elem_size)))
        elif reward_shared_reads and not (t.written_by_first or t.written_by_second) \
                and reads_same_elements(t.location.root):
            profit = f32(profit + f32(t.location.bytes))
        elif reward_shared_reads and t.written_by_first and reads_produced_elements(t.location.root):
            profit = f32(profit + f32(t.location.bytes))
    return profit


def f32(x) -> float:
    """`x` rounded to the nearest 32-bit float, as the seed computes the profit: each byte count
    converted with `cvtsi2ss`, doubled with `addss %xmm0,%xmm0` and summed in a float, so ties
    and near-ties order in the heap as the seed's do (a count beyond 2^24 loses its low bits)."""
    return _F32.unpack(_F32.pack(float(x)))[0]


_F32 = struct.Struct("f")


@dataclass
class FusionProfitGraph:
    """A max-heap of candidate pairs keyed by profit (ties: program order)."""

    heap: list = field(default_factory=list)

    def push(self, entry: FPGEntry) -> None:
        heapq.heappush(self.heap, entry)

    def pop(self) -> FPGEntry | None:
        return heapq.heappop(self.heap) if self.heap else None

    def __len__(self) -> int:
        return len(self.heap)


def candidate_pairs(n: int, distance_threshold: int):
    """Index pairs (i, j), i < j, whose positional gap is below the threshold (the seed's window)."""
    for i in range(n):
        for j in range(i + 1, min(n, i + distance_threshold)):
            yield i, j
