"""Which masked vector loads may read their whole vector (cpu, step `unmask-loads`; rule in
docs/cpu_codegen.md section 58).

The register tile runs the columns a row leaves over as one vector under a mask
(`vector.maskedload`, section 17): a ResNet's last stage has output rows of 7 columns, so every
load of its 3x3 convolution's input is one vector<8> with lane 7 masked. On AVX2 a masked load
(`vmaskmovps`) costs more than a plain one: the same tile with `vector.load` and a select of the
mask ran 0.88x the time (docs section 58).

Rule: a `vector.maskedload` of a 1-D vector of W lanes from a buffer of static shape and identity
layout, read directly (no view), with affine indices, may read all W elements when, for every
iteration of the loops around it (isl, exact), the elements from its first one on, W of them in
the buffer's row-major order, lie inside the buffer: 0 <= L and L + W <= size, L the linear
offset of its indices. It then becomes a plain load of those W elements through a 1-D view of the
buffer and `arith.select(mask, loaded, pass-through)`: every lane holds what the masked load gave
(the lanes the mask keeps read the same elements; the others hold the pass-through), only the
elements read differ, and all lie inside the buffer. A lane past the row reads the next row's
element, which the select drops.

A 3x3 convolution's last vector over-reads only in the last iterations of its outermost loop (the
last image's last row: one element past the end). Then that loop's last iteration is split off
(`pair_restructuring.split_loop`: the same iterations in the same order) where every over-reading
iteration has the outermost loop's counter at its last value (isl), and the loads of the first
part are proven again on their own bounds.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from .... import mlir
from ....analysis.accesses import may_access, row_major
from ....analysis.affine import Scope
from ....analysis.loops import constant_bounds
from ....analysis.memory import alias_root
from ....mlir import ir

MASKED_LOAD = "vector.maskedload"


@dataclass(frozen=True)
class LoadFacts:
    """A masked load the rule may take: its buffer's size in elements, the strides of its
    row-major layout, the vector's lanes, the loops around it (isl names) and its index texts."""

    op: ir.Operation
    size: int
    strides: tuple[int, ...]
    lanes: int
    names: tuple[str, ...]
    constraints: tuple[str, ...]
    index: tuple[str, ...]
    params: tuple[str, ...]

    def linear(self) -> str:
        """isl text of the linear offset of the first element read."""
        return " + ".join(f"{s} * ({i})" for s, i in zip(self.strides, self.index))

    def space(self) -> str:
        return f"[{', '.join(self.params)}] -> {{ [{', '.join(self.names)}] : "

    def over_read(self, extra: str = "") -> isl.Set:
        """The iterations whose W elements from the first one pass either end of the buffer."""
        cons = " and ".join([*self.constraints, *([extra] if extra else [])]) or "true"
        lin = self.linear()
        return isl.Set(f"{self.space()}{cons} and (({lin}) < 0 or ({lin}) + {self.lanes} > {self.size}) }}")


def whole_bytes(t: ir.Type) -> bool:
    """An element type a plain vector load reads one element per lane of: index, or an integer
    or float of a whole number of bytes (a vector of i1 is bit-packed where the buffer holds a
    byte per element)."""
    if isinstance(t, ir.IndexType):
        return True
    return isinstance(t, (ir.IntegerType, ir.FloatType)) and t.width % 8 == 0


def load_facts(op: ir.Operation, scope: Scope) -> tuple[LoadFacts | None, str]:
    """(facts, "") for a masked load the rule may take, else (None, why not)."""
    if op.name != MASKED_LOAD:
        return None, "not a masked load"
    mem = op.operands[0]
    mt = mlir.memref_type(mem)
    if mt is None or alias_root(mem) != mem:
        return None, "its buffer is read through a view"
    if any(d < 0 for d in mt.shape) or not mlir.identity_layout(mt) or not row_major(mt):
        return None, "its buffer has no static shape of identity layout"
    vt = ir.VectorType(op.results[0].type)
    if vt.rank != 1:
        return None, "its vector has more than one dimension"
    if not whole_bytes(mt.element_type):
        return None, "its elements are not whole bytes (a vector of them would be bit-packed)"
    a = may_access(op, scope)
    if a.index is None or len(a.index) != mt.rank:
        return None, "its index is not affine"
    strides, acc = [], 1
    for d in reversed(list(mt.shape)):
        strides.append(acc)
        acc *= d
    cons = tuple(c for lp in a.loops for c in lp.constraints())
    return LoadFacts(op, acc, tuple(reversed(strides)), vt.shape[0], tuple(lp.name for lp in a.loops), cons,
                     tuple(a.index), tuple(sorted(scope.params))), ""


def reads_inside(facts: LoadFacts) -> bool:
    """Every iteration's W elements lie inside the buffer (isl: the over-read set is empty)."""
    try:
        return facts.over_read().is_empty()
    except isl.Error:
        return False


def peels_outer(facts: list[LoadFacts], outer: ir.Operation, scope: Scope) -> str | None:
    """None when every over-reading iteration of `facts` runs in the last iteration of the loop
    `outer` (constant bounds, step 1, at least two iterations), so that running that iteration
    apart leaves loads that read inside their buffer; else why not."""
    bounds = constant_bounds(outer)
    if bounds is None or mlir.int_attr(outer, "step") != 1 or bounds[1] - bounds[0] < 2:
        return "the outermost loop has no constant bounds of step 1 and two iterations or more"
    name = scope.value_expr(outer.regions[0].blocks[0].arguments[0])
    for f in facts:
        if name not in f.names:
            return f"the load at {mlir.location_of(f.op)} does not move with the outermost loop"
        try:
            if not f.over_read(f"{name} < {bounds[1] - 1}").is_empty():
                return (f"the load at {mlir.location_of(f.op)} would pass its buffer's end before the outermost "
                        f"loop's last iteration")
        except isl.Error:
            return f"isl cannot tell where the load at {mlir.location_of(f.op)} reads"
    return None
