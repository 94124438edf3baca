"""loopopt-recompute-casts: a widening cast is recomputed where it is read, not materialised.

torch-mlir computes a norm's statistics in f64 (GroupNorm, InstanceNorm and LayerNorm: the mean
and the variance through `aten.var_mean` in double): it first writes the whole input widened,
`%w = linalg.generic ins(%x : f32) outs(tensor.empty : f64) { arith.extf }`, then reads `%w`
twice (the sum for the mean, the squared deviations from it). After bufferization that is a
buffer of doubles written once and read twice, in nests fusion cannot join (the variance needs
the mean of the whole group first): twice the input's bytes written and read back, for values
that are the input's own, widened.

Rule. A producer P = `linalg.generic` with
* every loop parallel, one tensor input X and one output, both at the identity map, of static sizes
  (so P's element at a point is cast(X's element at that point));
* a body of one op, a widening cast (`arith.extf`, `arith.extsi`, `arith.extui`: their verifiers
  ask a result type wider than the operand's, so the materialised copy has more bytes than X), on
  the input's element, its output's initial value unread,
is read by each consumer C = `linalg.generic` that takes P's result as an input (`ins`) through
the consumer's map M for it: P's result at M(q) is cast(X at M(q)) (P's maps are the identity and
the shapes are equal), so C reads X through the same map M and its body starts with the same cast
of that block argument: the same op on the same value (a widening cast is exact and has no
rounding or fast-math flag to differ), then the consumer's body unchanged. Bit for bit the values
of before. Taken for a consumer whose iteration count is at most P's number of points (the cast
runs no more often than P ran it: a product that reads each element N times keeps the copy); a
P left without uses is erased with its `tensor.empty`.

Every decision is one entry of the step's note (the driver turns each into a remark):
`recomputed ...` for a cast no longer materialised, `kept ...: <why>` for one a consumer keeps.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .gather_recompute import _dim_of, _points, erase_dead_tensor_ops
from .registry import register

STEP = "loopopt-recompute-casts"
# Their verifiers ask a result type wider than the operand's: the copy has more bytes than its input.
WIDENING = ("arith.extf", "arith.extsi", "arith.extui")
DECISION_SEPARATOR = " | "
PASSED_REMARK = "[RECOMPUTE CAST] a widening copy is cast again in each reader, not materialised"
MISSED_REMARK = "[STOP RECOMPUTE CAST] the widened copy is materialised"


@dataclass
class Decision:
    """What became of one widening-cast producer: recomputed in its readers, or kept and why."""

    producer: str  # location text of the producer
    cast: str  # "f32 -> f64"
    readers: int = 0
    why: str = ""  # empty when recomputed

    def text(self) -> str:
        if not self.why:
            return f"recomputed: the {self.cast} copy at {self.producer} in its {self.readers} reader(s)"
        return f"kept: the {self.cast} copy at {self.producer}: {self.why}"


def _maps(op: ir.Operation) -> list:
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def _identity(amap) -> bool:
    return [_dim_of(e) for e in amap.results] == list(range(amap.n_dims)) and amap.n_symbols == 0


def widening_cast(producer: ir.Operation) -> ir.Operation | None:
    """The cast op of `producer` if it is a widening-cast copy (the rule's shape of P), else None."""
    if producer.name != "linalg.generic" or len(producer.operands) != 2 or len(producer.results) != 1:
        return None
    x = producer.operands[0]
    if not isinstance(x.type, ir.RankedTensorType) or x.type.shape != producer.results[0].type.shape:
        return None
    if any(d == mlir.DYNAMIC for d in ir.RankedTensorType(x.type).shape):
        return None
    kinds = [str(ir.Attribute(a)) for a in ir.ArrayAttr(producer.attributes["iterator_types"])]
    if any("parallel" not in k for k in kinds) or not all(_identity(m) for m in _maps(producer)):
        return None
    body = producer.regions[0].blocks[0]
    ops = mlir.block_ops(body)
    if len(ops) != 2 or ops[0].name not in WIDENING or ops[1].name != "linalg.yield":
        return None
    cast, yield_ = ops
    if cast.operands[0] != body.arguments[0] or yield_.operands[0] != cast.results[0]:
        return None
    if next(iter(body.arguments[1].uses), None) is not None:
        return None
    return cast


def reader_refusal(use, producer: ir.Operation) -> str | None:
    """Why the consumer of `use` (an operand use of P's result) keeps reading the copy, or None."""
    c = mlir.operation(use.owner)
    where = f"{c.name} at {mlir.location_of(c)}"
    if c.name != "linalg.generic":
        return f"{where} reads it (not a linalg.generic)"
    n_in = len(c.operands) - len(c.results)
    if use.operand_number >= n_in:
        return f"{where} writes into it (its output's initial value)"
    points, produced = _points(c), _points(producer)
    if points is None:
        return f"{where} has dynamic sizes"
    if points > produced:
        return f"{where} runs {points} iterations, more than the copy's {produced} elements"
    return None


def recompute_in(consumer: ir.Operation, producer: ir.Operation, cast: ir.Operation) -> None:
    """Rewrite `consumer` to read P's input wherever it read P's result, each such block argument
    now the cast of the input's element (reader_refusal said it may)."""
    x = producer.operands[0]
    result = producer.results[0]
    n_in = len(consumer.operands) - len(consumer.results)
    which = [k for k in range(n_in) if consumer.operands[k] == result]
    operands = [x if k in which else v for k, v in enumerate(consumer.operands)]
    old = consumer.regions[0].blocks[0]
    types = [cast.operands[0].type if k in which else a.type for k, a in enumerate(old.arguments)]
    attrs = dict(consumer.attributes.items())
    new = ir.Operation.create("linalg.generic", results=[r.type for r in consumer.results], operands=operands,
                              attributes=attrs, regions=1, loc=consumer.location, ip=ir.InsertionPoint(consumer))
    block = new.regions[0].blocks.append(*types, arg_locs=[a.location for a in old.arguments])
    ip = ir.InsertionPoint(block)
    for k, arg in enumerate(old.arguments):
        if k in which:
            widened = ir.Operation.create(cast.name, results=[cast.results[0].type], operands=[block.arguments[k]],
                                          attributes=dict(cast.attributes.items()),
                                          loc=cast.location, ip=ip)
            arg.replace_all_uses_with(widened.results[0])
        else:
            arg.replace_all_uses_with(block.arguments[k])
    for op in mlir.block_ops(old):
        op.detach_from_parent()
        ip.insert(op)
    for a, b in zip(consumer.results, new.results):
        a.replace_all_uses_with(b)
    consumer.erase()


def recompute_casts(module: ir.Module, filename: str) -> list[Decision]:
    """Every widening-cast copy recomputed in the readers `reader_refusal` allows; a copy left
    without readers erased (with its tensor.empty)."""
    decisions: list[Decision] = []
    # last first: a rewrite replaces the producer's readers, which come after it and were seen
    for producer in reversed([op for op in mlir.walk(module.operation) if op.name == "linalg.generic"]):
        cast = widening_cast(producer)
        if cast is None:
            continue
        what = f"{cast.operands[0].type} -> {cast.results[0].type}"
        d = Decision(mlir.location_of(producer, filename), what)
        refusals, readers = [], {}
        for use in list(producer.results[0].uses):
            why = reader_refusal(use, producer)
            if why is not None:
                refusals.append(why)
            else:
                readers[mlir.op_key(mlir.operation(use.owner))] = mlir.operation(use.owner)
        for consumer in readers.values():
            recompute_in(consumer, producer, cast)
        d.readers = len(readers)
        if refusals:
            d.why = refusals[0] + (f" (and {len(refusals) - 1} more)" if len(refusals) > 1 else "")
            if readers:
                d.why += f"; recomputed in {len(readers)} other reader(s)"
        decisions.insert(0, d)
    if any(d.readers for d in decisions):
        erase_dead_tensor_ops(module)
    return decisions


@register(STEP, "a linalg.generic that only widens its input (torch-mlir's f64 copy for a norm's statistics) is "
          "recomputed in each reader: the readers read the narrower input and cast it themselves")
def recompute_widening_casts(module: ir.Module, filename: str) -> str:
    return DECISION_SEPARATOR.join(d.text() for d in recompute_casts(module, filename))
