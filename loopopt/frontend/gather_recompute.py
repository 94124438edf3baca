"""loopopt-recompute-gathered-elements: a gathered element is recomputed, not materialised.

A `tensor.extract %t[i, j]` (a gather: torch-mlir's nll_loss and cross_entropy pick the target's
log-probability this way) reads one element of a tensor that an elementwise `linalg.generic`
computes whole. Such a producer (all loops parallel, a pure body, its output written at the
loop point) yields at a point the value of its body on its inputs at the input maps' images of
that point, so the extract is replaced by its body, cloned before the extract, on extracts of
its inputs: the same ops on the same values, the same result bit for bit. The new extracts are
taken up in turn, so a chain of elementwise ops (x - max - log(sum)) is recomputed down to the
tensors something else computes (the reductions, the function's arguments).

Taken only where recomputing costs no more than materialising: the extract runs at most as
many times (the iteration count of the op around it) as the producer has points. A producer left
with no use is erased, with the tensor ops that fed only it: a log-softmax whose only reader was
the gather is then never written, and the fusion below can stream each row of logits twice (its
maximum; its sum of exponentials) instead of writing and reading back the whole tensor.

Every decision is one entry of the step's note (the driver turns each into a remark):
`recomputed ...` or `kept ...: <why>` naming the extract and the producer.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import mlir
from ..mlir import ir
from .registry import register

STEP = "loopopt-recompute-gathered-elements"
# Ops of an elementwise body that are pure values of their operands (no memory, no regions).
PURE_DIALECTS = ("arith.", "math.")
# At most this many ops are cloned for one original extract (a chain of producers sharing
# inputs could otherwise grow exponentially).
MAX_CLONED_OPS = 256
# Tensor ops that compute nothing observable: erased once unused.
DEAD_IF_UNUSED = ("linalg.generic", "linalg.fill", "tensor.empty", "tensor.expand_shape", "tensor.collapse_shape",
                  "linalg.map", "arith.constant")
DECISION_SEPARATOR = " | "
PASSED_REMARK = "[RECOMPUTE GATHER] the gathered element is recomputed from its elementwise producer"
MISSED_REMARK = "[STOP RECOMPUTE GATHER] the gathered element is read from the materialised tensor"


@dataclass
class Decision:
    """What became of one extract: recomputed (with how many ops) or kept, and why."""

    extract: str  # location text of the original extract
    producer: str  # name and location of the producer
    why: str = ""  # empty when recomputed
    ops: int = 0

    def text(self) -> str:
        if not self.why:
            return f"recomputed: tensor.extract at {self.extract} of {self.producer} ({self.ops} ops)"
        return f"kept: tensor.extract at {self.extract} of {self.producer}: {self.why}"


@dataclass
class Budget:
    """The ops cloned so far for one original extract."""

    ops: int = 0
    producers: list = field(default_factory=list)


def _dim_of(expr) -> int | None:
    """The loop position of a dimension expression (None for any other expression)."""
    expr = expr.maybe_downcast() if hasattr(expr, "maybe_downcast") else expr
    return expr.position if isinstance(expr, ir.AffineDimExpr) else None


def _const_of(expr) -> int | None:
    """The value of a constant expression (None for any other expression)."""
    expr = expr.maybe_downcast() if hasattr(expr, "maybe_downcast") else expr
    return expr.value if isinstance(expr, ir.AffineConstantExpr) else None


def _pure_body_op(op: ir.Operation) -> bool:
    return op.name.startswith(PURE_DIALECTS) and not len(op.regions)


def _dim_ranges(op: ir.Operation) -> list[int] | None:
    """The static iteration ranges of a linalg op's loops, from its operands' shapes and
    indexing maps (a loop's range is the size of an operand dimension it indexes alone); None if
    a range is dynamic or not found."""
    if "indexing_maps" not in op.attributes:
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    if not maps:
        return None
    ranges: list[int | None] = [None] * maps[0].n_dims
    for operand, amap in zip(op.operands, maps):
        if not isinstance(operand.type, ir.RankedTensorType):
            continue
        shape = ir.RankedTensorType(operand.type).shape
        for r, expr in enumerate(amap.results):
            d = _dim_of(expr)
            if d is not None and shape[r] != mlir.DYNAMIC:
                ranges[d] = shape[r]
    return None if any(x is None for x in ranges) else [int(x) for x in ranges]


def _points(op: ir.Operation) -> int | None:
    ranges = _dim_ranges(op)
    if ranges is None:
        return None
    n = 1
    for x in ranges:
        n *= x
    return n


def executions(extract: ir.Operation) -> int | None:
    """How many times `extract` runs: 1 in a function's body; the iteration count of the
    linalg op whose body holds it; None anywhere else (a loop, a dynamic size)."""
    parent = mlir.operation(extract.parent)
    if parent.name == "func.func":
        return 1
    if parent.name.startswith("linalg."):
        outer = mlir.operation(parent.parent)
        return _points(parent) if outer.name == "func.func" else None
    return None


def producer_refusal(extract: ir.Operation, producer: ir.Operation, result: int) -> str | None:
    """Why the element `extract` reads of `producer`'s result `result` may not be recomputed
    from the producer's body (None: it may): the rule of this module's docstring, exactly."""
    if producer.name != "linalg.generic":
        return f"its producer is a {producer.name}, not an elementwise linalg.generic"
    kinds = [str(ir.Attribute(a)) for a in ir.ArrayAttr(producer.attributes["iterator_types"])]
    if any("parallel" not in k for k in kinds):
        return "its producer has a reduction loop"
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(producer.attributes["indexing_maps"])]
    n_in = len(producer.operands) - len(producer.results)
    out_map = maps[n_in + result]
    dims = [d for d in map(_dim_of, out_map.results) if d is not None]
    if len(dims) != len(out_map.results) or sorted(dims) != list(range(out_map.n_dims)):
        return "its producer does not write its output at the loop point (the output map is not a permutation)"
    body = producer.regions[0].blocks[0]
    for arg in list(body.arguments)[n_in:]:
        if next(iter(arg.uses), None) is not None:
            return "its producer's body reads its output's initial value"
    for op in mlir.block_ops(body):
        if op.name in ("linalg.yield", "linalg.index") or _pure_body_op(op):
            continue
        return f"its producer's body holds {op.name}, not a pure arith/math op"
    for k, (operand, amap) in enumerate(zip(list(producer.operands)[:n_in], maps[:n_in])):
        shape = ir.RankedTensorType(operand.type).shape if isinstance(operand.type, ir.RankedTensorType) else []
        for r, expr in enumerate(amap.results):
            if _dim_of(expr) is not None:
                continue
            c = _const_of(expr)
            if c is None:
                return f"input {k} of its producer is read at {expr}, not a loop index or a constant"
            if r >= len(shape) or shape[r] == mlir.DYNAMIC or not 0 <= c < shape[r]:
                return f"input {k} of its producer is read at constant {c}, not within its static size"
    here, points = executions(extract), _points(producer)
    if here is None:
        return "it runs an unknown number of times (not in a linalg op of static sizes)"
    if points is None:
        return "its producer has dynamic sizes"
    if here > points:
        return f"it runs {here} times, more than the producer's {points} points"
    return None


def recompute(extract: ir.Operation, producer: ir.Operation, result: int) -> list[ir.Operation]:
    """Replace `extract` by `producer`'s body at the extract's point (`producer_refusal` said
    it may); returns the new extracts of the producer's tensor inputs."""
    n_in = len(producer.operands) - len(producer.results)
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(producer.attributes["indexing_maps"])]
    out_map = maps[n_in + result]
    idx = list(extract.operands)[1:]
    point: list = [None] * out_map.n_dims
    for r, expr in enumerate(out_map.results):
        point[_dim_of(expr)] = idx[r]
    ip, loc = ir.InsertionPoint(extract), extract.location
    consts: dict[int, ir.Value] = {}

    def const(c: int) -> ir.Value:
        if c not in consts:
            index = ir.IndexType.get()
            consts[c] = ir.Operation.create("arith.constant", results=[index],
                                            attributes={"value": ir.IntegerAttr.get(index, c)}, loc=loc, ip=ip).results[0]
        return consts[c]

    body = producer.regions[0].blocks[0]
    values: dict = {}
    new_extracts = []
    for k, (operand, amap) in enumerate(zip(list(producer.operands)[:n_in], maps[:n_in])):
        arg = body.arguments[k]
        if next(iter(arg.uses), None) is None:
            continue
        if not isinstance(operand.type, ir.RankedTensorType):
            values[arg] = operand  # a scalar input is the value itself
            continue
        at = [point[_dim_of(e)] if _dim_of(e) is not None else const(_const_of(e)) for e in amap.results]
        x = ir.Operation.create("tensor.extract", results=[arg.type], operands=[operand, *at], loc=loc, ip=ip)
        values[arg] = x.results[0]
        new_extracts.append(x)
    yielded = None
    for op in mlir.block_ops(body):
        if op.name == "linalg.yield":
            yielded = op.operands[result]
            break
        if op.name == "linalg.index":
            values[op.results[0]] = point[ir.IntegerAttr(op.attributes["dim"]).value]
            continue
        clone = op.clone(ip=ip)
        for m, v in enumerate(op.operands):
            if v in values:
                clone.operands[m] = values[v]
        for old, new in zip(op.results, clone.results):
            values[old] = new
    new = values.get(yielded, yielded)  # a yielded value defined outside the body is used as is
    extract.results[0].replace_all_uses_with(new)
    extract.erase()
    return new_extracts


def _dead(op: ir.Operation) -> bool:
    """Nothing uses `op` and it computes nothing observable: a tensor op of DEAD_IF_UNUSED
    whose body, if any, holds only pure ops (a body with a run-time check is kept)."""
    if op.name not in DEAD_IF_UNUSED or any(next(iter(r.uses), None) is not None for r in op.results):
        return False
    return all(o.name in ("linalg.yield", "linalg.index") or _pure_body_op(o)
               for r in op.regions for b in r.blocks for o in mlir.block_ops(b))


def erase_dead_tensor_ops(module: ir.Module) -> int:
    """Erase, in every function, the tensor ops `_dead` says nothing needs, until none is left."""
    count = 0
    while True:
        dead = [o for fn in mlir.functions(module) for o in mlir.block_ops(mlir.func_body(fn) or module.body)
                if o.name != "func.func" and _dead(o)]
        if not dead:
            return count
        for o in reversed(dead):  # users before the ops they use
            if _dead(o):
                mlir.erase_innermost_first(o)
                count += 1


def _cloned_ops(producer: ir.Operation) -> int:
    return sum(1 for op in mlir.block_ops(producer.regions[0].blocks[0]) if op.name != "linalg.yield")


def recompute_gathers(module: ir.Module, filename: str) -> list[Decision]:
    """Every tensor.extract of a tensor an elementwise linalg.generic computes, recomputed where
    `producer_refusal` allows, its new extracts in turn; producers left unused erased."""
    decisions: list[Decision] = []
    work = [(op, Budget()) for op in mlir.walk(module.operation) if op.name == "tensor.extract"]
    while work:
        extract, budget = work.pop(0)
        producer, _ = mlir.value_owner(extract.operands[0])
        if producer is None or producer.name in ("tensor.empty", "arith.constant"):
            continue  # an argument, a constant: nothing to recompute
        where = mlir.location_of(extract, filename)
        name = f"{producer.name} at {mlir.location_of(producer, filename)}"
        result = extract.operands[0].maybe_downcast().result_number
        why = producer_refusal(extract, producer, result)
        if why is None and budget.ops + _cloned_ops(producer) > MAX_CLONED_OPS:
            why = f"recomputing the chain would clone over {MAX_CLONED_OPS} ops"
        if why is not None:
            # a chain ends at what something else computes (a reduction, a reshape): said only
            # for the extract the input had, or for an elementwise producer kept
            if not budget.producers or (producer.name == "linalg.generic" and "reduction" not in why):
                decisions.append(Decision(where, name, why))
            continue
        n = _cloned_ops(producer)
        budget.ops += n
        budget.producers.append(name)
        decisions.append(Decision(where, name, ops=n))
        work.extend((x, budget) for x in recompute(extract, producer, result))
    if any(not d.why for d in decisions):
        erase_dead_tensor_ops(module)
    return decisions


@register(STEP, "a tensor.extract of an elementwise linalg.generic's result is recomputed from its inputs")
def recompute_gathered_elements(module: ir.Module, filename: str) -> str:
    return DECISION_SEPARATOR.join(d.text() for d in recompute_gathers(module, filename))
