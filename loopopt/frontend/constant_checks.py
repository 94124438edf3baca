"""loopopt-prove-constant-checks: a run-time check on constant data is decided at compile time.

torch-mlir writes an eval-mode BatchNorm's scale as three elementwise ops on the running variance,
a constant: `v + eps`, `sqrt`, then `1 / s` with the check `cf.assert (s != 0), "unimplemented:
tensor with zero element"` in the same body. The check may abort, so it keeps its order with every
write of visible memory (analysis/checks.py): fusion cannot move it, or the scale loop that holds
it, above a convolution that writes the function's output, and the BatchNorm, the ReLU and the
residual add after the convolution ran as a pass of their own over its output (docs/cpu_codegen.md
section 57). Its condition reads nothing but constants, so it is known before the program runs.

Rule. A `cf.assert` in the body of a `linalg.generic` G is erased when its condition is true at
every point of G's iteration space, computed here exactly as the program would compute it:
* G has static shapes and every map a projected permutation (each result a distinct loop: a
  broadcast along a channel, a transpose), its loops of any kind; the condition is computed from
  the body ops it depends on (`needed_ops`), each input it reads taken at a point as the element
  its map selects (`on_domain`), and it reads no output's block argument (a reduction's carried
  value, or an initial value canonicalization would have made an input): MLIR's elementwise
  fusion puts the check into the generic that applies the BatchNorm to the convolution's result,
  whose other ops are never computed here (section 84);
* every generic whose result the condition reads (its producers, recursively) has static
  shapes, every loop parallel and every map the identity (the value at a point is the body
  applied to the inputs' values at that point), and a body that does not read its output's
  initial value;
* a tensor read is an `arith.constant` of a dense value (elements, a splat or a `dense_resource`
  blob) or such a generic's result; a scalar taken from outside a body is an `arith.constant`;
* every body op is one IEEE rounds the same way everywhere: `arith.addf/subf/mulf/divf/negf`,
  `math.sqrt`, `math.absf`, `arith.extf`, `arith.truncf` (no rounding mode), `arith.cmpf`,
  `arith.select`, `arith.constant`; an op with fast-math flags is refused (a contraction or an
  approximation may round otherwise). numpy computes each op on arrays of the op's element type,
  correctly rounded as the compiled code (no fast math) computes it.
A check false at some point stays (it fires at run time, as before), as does any check whose
condition reaches an op or a value outside the rule; each decision says why.

Every decision is one entry of the step's note (the driver turns each into a remark): `proved ...`
for a check erased, `kept ...: <why>` for one that stays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import mlir
from ..mlir import ir
from .registry import register

STEP = "loopopt-prove-constant-checks"
DECISION_SEPARATOR = " | "
PASSED_REMARK = "[CONSTANT CHECK] the run-time check holds at every element of constant data: decided at compile time"
MISSED_REMARK = "[STOP CONSTANT CHECK] the run-time check stays"

# Ops whose result IEEE 754 defines exactly (correctly rounded), by the numpy function computing it.
EXACT_UNARY = {"arith.negf": np.negative, "math.sqrt": np.sqrt, "math.absf": np.abs}
EXACT_BINARY = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
                "arith.divf": np.divide}
CASTS = ("arith.extf", "arith.truncf")
DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_}
MAX_ELEMENTS = 1 << 20  # a constant this large is not evaluated at compile time

# arith::CmpFPredicate in enum order: (a, b) -> bool array; NaN compares unordered.
_ORD = lambda a, b: ~(np.isnan(a) | np.isnan(b))  # noqa: E731
CMPF = [
    lambda a, b: np.zeros(np.broadcast(a, b).shape, bool), lambda a, b: a == b, lambda a, b: a > b,
    lambda a, b: a >= b, lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: (a < b) | (a > b),
    _ORD, lambda a, b: ~((a < b) | (a > b)), lambda a, b: ~(a <= b), lambda a, b: ~(a < b),
    lambda a, b: ~(a >= b), lambda a, b: ~(a > b), lambda a, b: a != b, lambda a, b: ~_ORD(a, b),
    lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
]


class Refused(Exception):
    """A value the rule does not compute at compile time; the message says why."""


@dataclass
class Decision:
    """What became of one check: proved true everywhere (erased) or kept, and why."""

    check: str  # location text of the cf.assert
    message: str
    elements: int = 0
    why: str = ""  # empty when proved

    def text(self) -> str:
        if not self.why:
            return f'proved: the check "{self.message}" at {self.check} holds at all {self.elements} elements'
        return f'kept: the check "{self.message}" at {self.check}: {self.why}'


def dtype_of(t: ir.Type):
    """The numpy type of a scalar element type the rule computes in, or Refused."""
    dt = DTYPES.get(str(t))
    if dt is None:
        raise Refused(f"its values are of type {t}")
    return dt


def dense_value(op: ir.Operation, blobs: dict[str, bytes]) -> np.ndarray:
    """The value of `arith.constant` of a static tensor: its elements, its splat or its blob."""
    t = ir.RankedTensorType(op.results[0].type)
    dt = dtype_of(t.element_type)
    shape = tuple(t.shape)
    if int(np.prod(shape, dtype=np.int64)) > MAX_ELEMENTS:
        raise Refused(f"the constant at {mlir.location_of(op)} has more than {MAX_ELEMENTS} elements")
    attr = op.attributes["value"]
    name = mlir.resource_name(attr)
    if name is not None:
        data = blobs.get(name)
        if data is None or len(data) != np.dtype(dt).itemsize * int(np.prod(shape, dtype=np.int64)):
            raise Refused(f"the blob of dense_resource<{name}> is not readable")
        return np.frombuffer(data, dtype=np.dtype(dt).newbyteorder("<")).astype(dt).reshape(shape)
    dense = ir.DenseElementsAttr(attr)
    if dense.is_splat:
        return np.full(shape, scalar_value(dense.get_splat_value(), dt), dt)
    return np.array(dense).astype(dt).reshape(shape)


def scalar_value(attr: ir.Attribute, dt):
    """A float or i1 attribute's value as a numpy scalar of `dt`."""
    if dt is np.bool_:
        return np.bool_(ir.IntegerAttr(attr).value != 0)
    return dt(ir.FloatAttr(attr).value)


def _identity(amap: ir.AffineMap) -> bool:
    return amap.n_symbols == 0 and [str(e) for e in amap.results] == [f"d{i}" for i in range(amap.n_dims)]


def pointwise_refusal(g: ir.Operation) -> str | None:
    """Why the generic `g` is not pointwise on static shapes (its value at a point is its body
    on its inputs' values at that point, when the body does not read its output:
    `output_read_refusal`, asked of the ops computed), or None."""
    where = f"the linalg.generic at {mlir.location_of(g)}"
    kinds = [str(ir.Attribute(a)) for a in ir.ArrayAttr(g.attributes["iterator_types"])]
    if any("parallel" not in k for k in kinds):
        return f"{where} has a reduction loop"
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(g.attributes["indexing_maps"])]
    if not all(_identity(m) for m in maps):
        return f"{where} reads or writes through a map other than the identity"
    for v in g.operands:
        t = v.type
        if not isinstance(t, ir.RankedTensorType) or any(d == mlir.DYNAMIC for d in ir.RankedTensorType(t).shape):
            return f"{where} has an operand of dynamic or non-tensor type"
    return None  # a body reading its output's initial value: `output_read_refusal`, on the values computed


class Evaluator:
    """Compile-time values of the tensors and scalars a check reads, memoised by value."""

    def __init__(self, blobs: dict[str, bytes]):
        self.blobs = blobs
        self.tensors: dict = {}

    def tensor(self, v: ir.Value) -> np.ndarray:
        """The value of tensor `v`: a dense constant, or a pointwise generic's result."""
        if v in self.tensors:
            return self.tensors[v]
        owner, _ = mlir.value_owner(v)
        if owner is None:
            raise Refused("it reads a function argument")
        if owner.name == "arith.constant" and isinstance(v.type, ir.RankedTensorType):
            out = dense_value(owner, self.blobs)
        elif owner.name == "linalg.generic":
            out = self.generic(owner)[0][ir.OpResult(v).result_number]
        else:
            raise Refused(f"it reads the result of {owner.name} at {mlir.location_of(owner)}")
        self.tensors[v] = out
        return out

    def outer_scalar(self, v: ir.Value):
        owner, _ = mlir.value_owner(v)
        if owner is None or owner.name != "arith.constant" or isinstance(v.type, ir.ShapedType):
            raise Refused("its body reads a value from outside that is not a scalar constant")
        return scalar_value(owner.attributes["value"], dtype_of(v.type))

    def generic(self, g: ir.Operation) -> tuple[list[np.ndarray], list[tuple[ir.Operation, np.ndarray]]]:
        """(g's results, [(check, its condition at every point)]) for a pointwise generic."""
        why = pointwise_refusal(g)
        if why is not None:
            raise Refused(why)
        shape = tuple(ir.RankedTensorType(g.results[0].type).shape)
        body = g.regions[0].blocks[0]
        y = mlir.block_ops(body)[-1]
        values = self._body(g, shape, [*y.operands, *(c.operands[0] for c in _asserts(body))])
        results = [np.broadcast_to(values[x] if x in values else self.outer_scalar(x), shape) for x in y.operands]
        return results, [(c, np.broadcast_to(values.get(c.operands[0], True), shape)) for c in _asserts(body)]

    def checks(self, g: ir.Operation) -> list[tuple[ir.Operation, np.ndarray]]:
        """[(check, its condition at every point of g's iteration space)] for any generic of
        static shapes whose maps are projected permutations (`check_domain`): each input the
        conditions read is a constant or a pointwise generic's result, its element at a point
        the one its map selects. Only the ops the conditions depend on are computed (a fused
        BatchNorm's check beside the convolution's result it never reads); a condition that
        reads an output's value is refused (`output_read_refusal`)."""
        shape = check_domain(g)
        body = g.regions[0].blocks[0]
        values = self._body(g, shape, [c.operands[0] for c in _asserts(body)])
        return [(c, np.broadcast_to(values.get(c.operands[0], True), shape)) for c in _asserts(body)]

    def _body(self, g: ir.Operation, shape: tuple, wanted: list) -> dict:
        """The values over g's iteration space (`shape`) of the body ops `wanted` depends on,
        by value; an input read at a point is its element at the point's image by its map."""
        body = g.regions[0].blocks[0]
        needed = needed_ops(body, wanted)
        n_in = len(g.operands) - len(g.results)
        args = list(body.arguments)
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(g.attributes["indexing_maps"])]
        read = {a for op in needed for a in op.operands if a in args} | {a for a in wanted if a in args}
        why = output_read_refusal(g, [args.index(a) for a in read])
        if why is not None:
            raise Refused(why)
        values: dict = {}
        for k in range(n_in):
            if args[k] in read:
                values[args[k]] = on_domain(self.tensor(g.operands[k]), maps[k], shape)

        def get(v):
            if v in values:
                return values[v]
            return self.outer_scalar(v)

        with np.errstate(all="ignore"):
            for op in needed:
                name = op.name
                if "fastmath" in op.attributes and "none" not in str(op.attributes["fastmath"]):
                    raise Refused(f"{name} at {mlir.location_of(op)} has fast-math flags")
                if name == "arith.constant":
                    values[op.results[0]] = scalar_value(op.attributes["value"], dtype_of(op.results[0].type))
                elif name in EXACT_UNARY:
                    values[op.results[0]] = EXACT_UNARY[name](get(op.operands[0]))
                elif name in EXACT_BINARY:
                    values[op.results[0]] = EXACT_BINARY[name](get(op.operands[0]), get(op.operands[1]))
                elif name in CASTS:
                    if "roundingmode" in op.attributes:
                        raise Refused(f"{name} at {mlir.location_of(op)} has a rounding mode")
                    values[op.results[0]] = np.asarray(get(op.operands[0])).astype(dtype_of(op.results[0].type))
                elif name == "arith.cmpf":
                    pred = ir.IntegerAttr(op.attributes["predicate"]).value
                    values[op.results[0]] = CMPF[pred](get(op.operands[0]), get(op.operands[1]))
                elif name == "arith.select":
                    c, a, b = (get(x) for x in op.operands)
                    values[op.results[0]] = np.where(c, a, b)
                else:
                    raise Refused(f"{name} at {mlir.location_of(op)} is not computed at compile time")
        for v in wanted:  # a scalar from outside the body
            if v not in values and v not in args:
                values[v] = self.outer_scalar(v)
        return values


def _asserts(body: ir.Block) -> list[ir.Operation]:
    return [o for o in mlir.block_ops(body) if o.name == "cf.assert"]


def needed_ops(body: ir.Block, wanted: list) -> list[ir.Operation]:
    """The ops of `body` the values `wanted` are computed from (through the body's own ops), in
    body order."""
    ops = mlir.block_ops(body)
    keys = {mlir.op_key(o) for o in ops}
    need, work = set(), list(wanted)
    while work:
        owner, _ = mlir.value_owner(work.pop())
        if owner is None or mlir.op_key(owner) not in keys or mlir.op_key(owner) in need:
            continue
        need.add(mlir.op_key(owner))
        work.extend(owner.operands)
    return [o for o in ops if mlir.op_key(o) in need]


def _dims(amap: ir.AffineMap) -> list[int] | None:
    """The dim positions of the map's results when each is a distinct dim (a projected
    permutation, no symbols), else None."""
    if amap.n_symbols:
        return None
    out = []
    for e in amap.results:
        t = str(e)
        if not (t.startswith("d") and t[1:].isdigit()) or int(t[1:]) in out:
            return None
        out.append(int(t[1:]))
    return out


def check_domain(g: ir.Operation) -> tuple:
    """The static shape of g's iteration space, from its operands' shapes through its maps, when
    every operand is a tensor of static shape read through a projected permutation (`_dims`: a
    broadcast bias, a transpose) and every loop is some operand's dim; else Refused."""
    where = f"the linalg.generic at {mlir.location_of(g)}"
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(g.attributes["indexing_maps"])]
    n = maps[0].n_dims if maps else 0
    sizes: list = [None] * n
    for v, m in zip(g.operands, maps):
        t = v.type
        if not isinstance(t, ir.RankedTensorType) or any(d == mlir.DYNAMIC for d in ir.RankedTensorType(t).shape):
            raise Refused(f"{where} has an operand of dynamic or non-tensor type")
        dims = _dims(m)
        if dims is None:
            raise Refused(f"{where} reads or writes through a map that is not a projected permutation")
        for d, extent in zip(dims, ir.RankedTensorType(t).shape):
            if sizes[d] not in (None, extent):
                raise Refused(f"{where} gives its loop d{d} two extents")
            sizes[d] = extent
    if None in sizes:
        raise Refused(f"{where} has a loop no operand's map uses")
    if int(np.prod(sizes, dtype=np.int64)) > MAX_ELEMENTS:
        raise Refused(f"{where} runs more than {MAX_ELEMENTS} iterations")
    return tuple(sizes)


def on_domain(value: np.ndarray, amap: ir.AffineMap, shape: tuple) -> np.ndarray:
    """`value`, read through the projected permutation `amap`, at every point of an iteration
    space of `shape`: axis i of value runs along loop amap.results[i] (its axes put in loop
    order, a unit axis for each loop the map leaves out, broadcast)."""
    dims = _dims(amap)
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    moved = np.transpose(value, order)
    present = sorted(dims)
    full = [shape[d] if d in present else 1 for d in range(len(shape))]
    return np.broadcast_to(moved.reshape(full), shape)


def output_read_refusal(g: ir.Operation, read: list[int]) -> str | None:
    """Why the body's reads (block argument positions) are not values known at a point, or None:
    an output's block argument is its initial value only where no loop reduces into it, and
    canonicalization turns a pointwise generic's read of its output into an input: refused."""
    n_in = len(g.operands) - len(g.results)
    if any(k >= n_in for k in read):
        return f"the linalg.generic at {mlir.location_of(g)} reads its output's initial value"
    return None


def blobs_of(module: ir.Module) -> dict[str, bytes]:
    """The module's dense_resource blobs read by tensor constants, by name."""
    names = {n for op in mlir.walk(module.operation) if op.name == "arith.constant"
             and (n := mlir.resource_name(op.attributes["value"])) is not None}
    return mlir.resource_blobs(module, names) if names else {}


def prove_checks(module: ir.Module, filename: str) -> list[Decision]:
    """Every cf.assert in a linalg.generic's body decided by `Evaluator.checks`: erased when its
    condition is true at every point, kept otherwise (with the reason)."""
    holders = [op for op in mlir.walk(module.operation) if op.name == "linalg.generic"
               and any(o.name == "cf.assert" for o in mlir.block_ops(op.regions[0].blocks[0]))]
    if not holders:
        return []
    ev = Evaluator(blobs_of(module))
    decisions = []
    for g in holders:
        asserts = [o for o in mlir.block_ops(g.regions[0].blocks[0]) if o.name == "cf.assert"]
        try:
            checks = ev.checks(g)
        except Refused as e:
            decisions += [Decision(mlir.location_of(a, filename), _message(a), why=str(e)) for a in asserts]
            continue
        except (ValueError, TypeError, KeyError, IndexError) as e:  # an attribute or shape not read: keep it
            why = f"its values could not be computed ({type(e).__name__}: {e})"
            decisions += [Decision(mlir.location_of(a, filename), _message(a), why=why) for a in asserts]
            continue
        for check, cond in checks:
            d = Decision(mlir.location_of(check, filename), _message(check), elements=cond.size)
            bad = np.flatnonzero(~np.asarray(cond, bool))
            if bad.size:
                d.why = f"false at {bad.size} of {cond.size} elements (the first at flat index {int(bad[0])})"
            else:
                check.erase()
            decisions.append(d)
    return decisions


def _message(check: ir.Operation) -> str:
    return ir.StringAttr(check.attributes["msg"]).value if "msg" in check.attributes else ""


@register(STEP, "a run-time check (cf.assert) in an elementwise linalg.generic whose condition reads only "
          "constants is computed at compile time and erased where it holds at every element")
def prove_constant_checks(module: ir.Module, filename: str) -> str:
    return DECISION_SEPARATOR.join(d.text() for d in prove_checks(module, filename))
