"""Memory locations: which buffer an access touches, and the seed's MemoryLocation facts.

A view (`memref.cast`, `memref.subview`, ...) is traced to its root buffer, so an aliased
write is seen as a write of the root. A root allocated by the function
(`memref.alloc`/`alloca`) is *placed* (the seed's type == 1); anything else (arguments,
globals, call results) is *external*. Distinct function arguments are assumed not to
alias each other (MLIR's affine analysis makes the same assumption).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir

# Ops whose result is a view of their first memref operand.
VIEW_OPS = (
    "memref.cast", "memref.subview", "memref.reinterpret_cast", "memref.view", "memref.expand_shape",
    "memref.collapse_shape", "memref.transpose", "memref.reshape", "memref.assume_alignment",
    "memref.memory_space_cast",
)
ALLOC_OPS = ("memref.alloc", "memref.alloca")
PLACED = "placed"
EXTERNAL = "external"
# Extent assumed for a dynamic (`?`) dimension when a byte count is needed for ordering.
DEFAULT_DYNAMIC_EXTENT = 1024


def alias_root(v: ir.Value) -> ir.Value:
    """The buffer a memref value views: follow view ops back to an allocation or argument."""
    seen = 0
    while True:
        owner, _ = mlir.value_owner(v)
        if owner is None or owner.name not in VIEW_OPS or seen > 1000:
            return v
        v = owner.operands[0]
        seen += 1


def is_placed(root: ir.Value) -> bool:
    owner, _ = mlir.value_owner(root)
    return owner is not None and owner.name in ALLOC_OPS


@dataclass(frozen=True, eq=False)
class MemoryLocation:
    """The seed's MemoryLocation: a root buffer, its type, element size and liveN."""

    root: ir.Value
    name: str  # a readable name for remarks (e.g. %alloc_0 or %arg1)
    kind: str  # "placed" | "external"
    elem_size: int  # bytes per element
    shape: tuple[int | None, ...]  # None for a dynamic dimension
    live_n: int  # elements live across the loops that touch it

    @property
    def placed(self) -> bool:
        return self.kind == PLACED

    @property
    def bytes(self) -> int:
        return self.live_n * self.elem_size

    @property
    def partition_extent(self) -> int | None:
        """Extent of dimension 0 (the partition dimension), if static."""
        return self.shape[0] if self.shape else 1


def value_name(v: ir.Value) -> str:
    """A cheap readable name: `%argN` for a function argument, `%iv@L:C` for an induction
    variable, `op.name@L:C` for an op result (positions of the defining op / loop).
    (Value.get_name() prints the whole function to number values: far too slow to call often.)"""
    owner, block = mlir.value_owner(v)
    if owner is None:
        v = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
        parent = mlir.operation(block.owner) if block is not None and block.owner is not None else None
        if parent is None or parent.name == "func.func":
            return f"%arg{v.arg_number}"
        return f"%iv@{_line_col(parent)}" if v.arg_number == 0 else f"%{parent.name}.arg{v.arg_number}@{_line_col(parent)}"
    return f"{owner.name}@{_line_col(owner)}"


def _line_col(op: ir.Operation) -> str:
    loc = mlir.location_of(op)
    return loc.split(":", 1)[1] if ":" in loc else loc


def memory_location(root: ir.Value) -> MemoryLocation:
    t = mlir.memref_type(root)
    if t is None:
        raise ValueError("not a memref")
    shape = tuple(None if d == mlir.DYNAMIC else d for d in t.shape)
    n = 1
    for d in shape:
        n *= d if d is not None else DEFAULT_DYNAMIC_EXTENT
    return MemoryLocation(
        root=root,
        name=value_name(root),
        kind=PLACED if is_placed(root) else EXTERNAL,
        elem_size=mlir.element_size_bytes(t.element_type),
        shape=shape,
        live_n=n,
    )
