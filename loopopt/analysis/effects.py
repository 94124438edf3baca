"""Side effects of ops: what each op reads, writes, or may do to memory.

Sound by default: an op is trusted only when this module models it exactly (the tables
below; docs/soundness.md lists them). Pure compute may move freely; loads read their buffer;
stores write it; everything else (calls, unregistered or unmodelled ops, accesses through a
memref whose origin is not traced, see `memory.buffer_key`) is `unknown`: a barrier for every
transform, with a reason that names it. Region ops take the union of their bodies.

Buffers are named by their `buffer_key` (every `get_global @G` is one buffer); `values`
keeps one root value per key for the facts that need a type (element size, shape).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import mlir
from ..mlir import ir
from .memory import ALLOC_OPS, UNTRACED, VIEW_OPS, alias_root, buffer_key, callee_name, is_memref_value

PURE_DIALECTS = ("arith.", "math.", "index.", "complex.")
# Value-only vector ops (no memory): what affine-super-vectorize and friends emit around accesses.
PURE_VECTOR_OPS = {
    "vector.broadcast", "vector.splat", "vector.extract", "vector.insert", "vector.extractelement",
    "vector.insertelement", "vector.reduction", "vector.fma", "vector.shape_cast", "vector.transpose",
    "vector.shuffle", "vector.bitcast", "vector.step", "vector.from_elements", "vector.contract",
    "vector.outerproduct", "vector.multi_reduction", "vector.extract_strided_slice",
    "vector.insert_strided_slice", "vector.constant_mask", "vector.create_mask", "vector.interleave",
    "vector.deinterleave",
}
PURE_OPS = {
    "affine.apply", "affine.min", "affine.max", "memref.dim", "memref.rank", "memref.extract_strided_metadata",
    "affine.yield", "scf.yield", "scf.condition", "func.return", "memref.get_global", "ub.poison",
    "memref.extract_aligned_pointer_as_index", "scf.reduce", "scf.reduce.return",
    "memref.alloca_scope.return", "func.constant", *PURE_VECTOR_OPS,
    *(v for v in VIEW_OPS if v != "memref.reshape"),
}
# Ops that read and write no memory but may end the program: `cf.assert` aborts when its
# condition is false (`Effects.aborts`). Where such a check may move, and what may move across
# it, is analysis/checks.py's rule (docs/soundness.md, "Run-time checks"); it is never pure.
GUARD_OPS = {"cf.assert"}
# Position of the memref operand of each modelled access.
READ_OPS = {"affine.load": 0, "memref.load": 0, "affine.vector_load": 0, "vector.load": 0,
            "vector.transfer_read": 0, "vector.maskedload": 0, "vector.gather": 0, "vector.expandload": 0}
WRITE_OPS = {"affine.store": 1, "memref.store": 1, "affine.vector_store": 1, "vector.store": 1,
             "vector.transfer_write": 1, "vector.maskedstore": 0, "vector.scatter": 0,
             "vector.compressstore": 0}
REGION_OPS = {"affine.for", "affine.if", "affine.parallel", "scf.for", "scf.if", "scf.while",
              "scf.parallel", "scf.forall", "scf.execute_region", "scf.index_switch"}


@dataclass
class Effects:
    """Buffers (keys) read and written by an op, and whether it may do anything else."""

    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)
    unknown: bool = False  # may touch any memory or have other side effects (barrier)
    reasons: list = field(default_factory=list)
    allocates: set = field(default_factory=set)
    values: dict = field(default_factory=dict)  # key -> a root value of that buffer
    aborts: bool = False  # holds a run-time check (GUARD_OPS): no memory effect, but it may end the program

    def read(self, root: ir.Value) -> None:
        k = self._key(root)
        if k is not None:
            self.reads.add(k)

    def write(self, root: ir.Value) -> None:
        k = self._key(root)
        if k is not None:
            self.writes.add(k)

    def _key(self, root: ir.Value):
        if not is_memref_value(root):
            return None  # a tensor or vector value: no memory
        k = buffer_key(root)
        self.values.setdefault(k, root)
        if k is UNTRACED:
            self.untraced(root)
        return k

    def untraced(self, root: ir.Value) -> None:
        self.unknown = True
        self.reasons.append(f"memref {_origin_text(root)} is not traced to a buffer")

    def merge(self, other: "Effects") -> None:
        cached = self.__dict__.get("_touches")
        self.reads |= other.reads
        self.writes |= other.writes
        if cached is not None:  # keep the cached union current instead of rebuilding it
            cached[1].update(other.reads, other.writes)
            self.__dict__["_touches"] = ((len(self.reads), len(self.writes)), cached[1])
        for k, v in other.values.items():
            self.values.setdefault(k, v)
        self.allocates |= other.allocates
        self.unknown = self.unknown or other.unknown
        self.aborts = self.aborts or other.aborts
        self.reasons.extend(other.reasons)

    def may_write(self, key) -> bool:
        """True iff the op may write memory that the buffer of `key` (`memory.buffer_key`) may
        occupy: it has unknown effects, or it writes a buffer whose key may alias `key`
        (`memory.keys_may_alias`). So a write through an untraced memref may change every
        buffer, and a buffer of untraced origin is changed by every write."""
        if self.unknown:
            return True
        if not self.writes:
            return False
        # keys_may_alias(key, k) for some written k, as set look-ups
        return key is UNTRACED or UNTRACED in self.writes or key in self.writes

    @property
    def pure(self) -> bool:
        return not (self.reads or self.writes or self.unknown or self.allocates or self.aborts)

    @property
    def reason(self) -> str:
        """The first reason this op is a barrier (empty if it is not)."""
        return self.reasons[0] if self.reasons else ""

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
    return [v for v in op.operands if is_memref_value(v)]


def _origin_text(v: ir.Value) -> str:
    owner, block = mlir.value_owner(v)
    if owner is not None:
        return f"made by {owner.name} at {mlir.location_of(owner)}"
    parent = mlir.operation(block.owner) if block is not None and block.owner is not None else None
    return f"block argument of {parent.name if parent is not None else 'a block'}" + (
        f" at {mlir.location_of(parent)}" if parent is not None else "")


def op_effects(op: ir.Operation) -> Effects:
    """Effects of `op`, including everything nested in its regions."""
    eff = Effects()
    name = op.name
    if name in READ_OPS:
        eff.read(alias_root(op.operands[READ_OPS[name]]))
    elif name in WRITE_OPS:
        eff.write(alias_root(op.operands[WRITE_OPS[name]]))
    elif name in ALLOC_OPS:
        eff.allocates.add(op.results[0])
    elif name == "memref.dealloc":
        eff.write(alias_root(op.operands[0]))
    elif name == "memref.copy":
        eff.read(alias_root(op.operands[0]))
        eff.write(alias_root(op.operands[1]))
    elif name == "memref.reshape":
        eff.read(alias_root(op.operands[1]))  # the shape is read from memory at run time
    elif name in ("func.call", "func.call_indirect"):
        for v in _memref_operands(op):
            eff.read(alias_root(v))
            eff.write(alias_root(v))
        eff.unknown = True  # the callee may also touch globals or have other effects
        eff.reasons.append(f"{callee_text(op)} at {mlir.location_of(op)}")
    elif name in GUARD_OPS:
        eff.aborts = True
    elif name in REGION_OPS:
        pass
    elif is_pure_op(op):
        pass
    else:
        for v in _memref_operands(op):
            eff.read(alias_root(v))
            eff.write(alias_root(v))
        eff.unknown = True
        eff.reasons.append(f"unmodelled op {name} at {mlir.location_of(op)}")
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                eff.merge(op_effects(mlir.operation(child)))
    return eff


def callee_text(op: ir.Operation) -> str:
    """`call to @f` for a direct call, the op's name otherwise."""
    name = callee_name(op)
    return f"call to @{name}" if name is not None else op.name
