"""Side effects of ops: what each op reads, writes, or may do to memory.

Ops are classified by name (the seed's kind discriminator): pure compute may move freely;
loads read their buffer; stores write it; calls read and write every buffer they receive
and may touch any global; unknown ops are barriers. Region ops take the union of their bodies.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import mlir
from ..mlir import ir
from .memory import ALLOC_OPS, VIEW_OPS, alias_root

PURE_DIALECTS = ("arith.", "math.", "index.", "complex.")
PURE_OPS = {
    "affine.apply", "affine.min", "affine.max", "memref.dim", "memref.rank", "memref.extract_strided_metadata",
    "affine.yield", "scf.yield", "scf.condition", "func.return", "memref.get_global", *VIEW_OPS,
}
READ_OPS = {"affine.load": 0, "memref.load": 0, "affine.vector_load": 0, "vector.load": 0}
WRITE_OPS = {"affine.store": 1, "memref.store": 1, "affine.vector_store": 1, "vector.store": 1}
REGION_OPS = {"affine.for", "affine.if", "affine.parallel", "scf.for", "scf.if", "scf.while",
              "scf.parallel", "scf.forall", "scf.execute_region", "scf.index_switch"}
LOOP_OPS = {"affine.for", "affine.parallel", "scf.for", "scf.while", "scf.parallel", "scf.forall"}


@dataclass
class Effects:
    """Buffers (alias roots) read and written by an op, and whether it may do anything else."""

    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)
    unknown: bool = False  # may touch any memory or have other side effects (barrier)
    reasons: list = field(default_factory=list)
    allocates: set = field(default_factory=set)

    def merge(self, other: "Effects") -> None:
        cached = self.__dict__.get("_touches")
        self.reads |= other.reads
        self.writes |= other.writes
        if cached is not None:  # keep the cached union current instead of rebuilding it
            cached[1].update(other.reads, other.writes)
            self.__dict__["_touches"] = ((len(self.reads), len(self.writes)), cached[1])
        self.allocates |= other.allocates
        self.unknown = self.unknown or other.unknown
        self.reasons.extend(other.reasons)

    @property
    def pure(self) -> bool:
        return not (self.reads or self.writes or self.unknown or self.allocates)

    def touches(self) -> set:
        """reads | writes (cached: the sets only grow, so their sizes tell when to recompute)."""
        key = (len(self.reads), len(self.writes))
        cached = self.__dict__.get("_touches")
        if cached is None or cached[0] != key:
            cached = (key, self.reads | self.writes)
            self.__dict__["_touches"] = cached
        return cached[1]


def is_pure_op(op: ir.Operation) -> bool:
    """Side-effect-free compute, judged by the op alone (not its regions)."""
    return op.name in PURE_OPS or (op.name.startswith(PURE_DIALECTS) and op.name != "arith.constant_buffer")


def _memref_operands(op: ir.Operation) -> list[ir.Value]:
    return [v for v in op.operands if mlir.memref_type(v) is not None]


def op_effects(op: ir.Operation) -> Effects:
    """Effects of `op`, including everything nested in its regions."""
    eff = Effects()
    name = op.name
    if name in READ_OPS:
        eff.reads.add(alias_root(op.operands[READ_OPS[name]]))
    elif name in WRITE_OPS:
        eff.writes.add(alias_root(op.operands[WRITE_OPS[name]]))
    elif name in ALLOC_OPS:
        eff.allocates.add(op.results[0])
    elif name == "memref.dealloc":
        eff.writes.add(alias_root(op.operands[0]))
    elif name == "memref.copy":
        eff.reads.add(alias_root(op.operands[0]))
        eff.writes.add(alias_root(op.operands[1]))
    elif name in ("func.call", "func.call_indirect"):
        for v in _memref_operands(op):
            r = alias_root(v)
            eff.reads.add(r)
            eff.writes.add(r)
        eff.unknown = True  # the callee may also touch globals or have other effects
        eff.reasons.append(f"call to {_callee(op)}")
    elif name in REGION_OPS:
        pass
    elif is_pure_op(op):
        pass
    else:
        for v in _memref_operands(op):
            r = alias_root(v)
            eff.reads.add(r)
            eff.writes.add(r)
        eff.unknown = True
        eff.reasons.append(f"unknown op {name}")
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                eff.merge(op_effects(mlir.operation(child)))
    return eff


def _callee(op: ir.Operation) -> str:
    try:
        return "@" + ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    except Exception:
        return op.name
