"""Roofline facts of a program at given sizes: the work it must do and the traffic it cannot avoid.

A roofline (as the STREAM and Empirical Roofline Toolkit measure it) bounds a kernel's time by
`max(flops / peak FLOP/s, bytes / bandwidth)`: the *attainable* time. This module counts the two
numbers of a program; the benchmark measures the machine's two roofs and divides.

* **FLOPs**: each floating-point arithmetic op counts once per execution and per vector lane:
  `addf subf mulf divf remf maximumf minimumf maxnumf minnumf` 1, `math.fma`/`vector.fma` 2,
  a math function (`exp log tanh erf sqrt rsqrt ...`) 1 (the program's operation, not the ~15
  of its polynomial), `vector.reduction` of n lanes n - 1. Sign flips, comparisons, selects
  and conversions count 0. An op runs once per point of its enclosing `affine.for` nest,
  counted exactly with isl at the given sizes.
* **Compulsory bytes**: every memref argument the function reads is read once, whole; every one
  it writes is written once, whole; placed buffers (alloc/alloca) cost nothing, since a schedule
  may keep them in registers or the cache.

The count is `exact` when every float op sits in `affine.for` nests only. Under an `affine.if`
or `scf.if` the op is counted as if the branch were always taken (exact=False); inside another
loop (`scf.for`, `scf.while`, `affine.parallel`) its executions are unknown: flops=None.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

import islpy as isl

from .. import mlir
from ..mlir import ir
from .affine import NonAffine, Scope
from .loops import LOOP_OPS, domain_loops, enclosing_loops

ONE_FLOP = frozenset({
    "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.remf", "arith.maximumf", "arith.minimumf",
    "arith.maxnumf", "arith.minnumf",
})
TWO_FLOPS = frozenset({"math.fma", "vector.fma"})
MATH_FUNCTIONS = frozenset({
    "math.exp", "math.exp2", "math.expm1", "math.log", "math.log2", "math.log10", "math.log1p", "math.tanh",
    "math.erf", "math.erfc", "math.sqrt", "math.rsqrt", "math.cbrt", "math.sin", "math.cos", "math.tan",
    "math.atan", "math.atan2", "math.asin", "math.acos", "math.sinh", "math.cosh", "math.asinh", "math.acosh",
    "math.atanh", "math.powf", "math.fpowi",
})
READS = {"affine.load": 0, "memref.load": 0, "affine.vector_load": 0, "vector.load": 0,
         "vector.transfer_read": 0, "vector.maskedload": 0, "memref.copy": 0}
WRITES = {"affine.store": 1, "memref.store": 1, "affine.vector_store": 1, "vector.store": 1,
          "vector.transfer_write": 1, "vector.maskedstore": 1, "memref.copy": 1}


@dataclass(frozen=True)
class Work:
    """What a program must do at given sizes: floating-point operations and compulsory traffic."""

    flops: int | None  # None: some float op runs an unknown number of times
    read_bytes: int
    written_bytes: int
    exact: bool  # flops counted without over-approximation
    why: str = ""  # why the count is not exact (or unknown)

    @property
    def bytes(self) -> int:
        return self.read_bytes + self.written_bytes

    @property
    def intensity(self) -> float | None:
        """FLOPs per compulsory byte (the roofline's x axis)."""
        return self.flops / self.bytes if self.flops is not None and self.bytes else None


def attainable_seconds(work: Work, peak_flops: float | None, bandwidth: float | None) -> float | None:
    """The roofline bound: max(flops / peak, bytes / bandwidth); None without both roofs."""
    if work.flops is None or not peak_flops or not bandwidth:
        return None
    return max(work.flops / peak_flops, work.bytes / bandwidth)


def flop_weight(op: ir.Operation) -> int:
    """FLOPs of one execution of `op` (see the module docstring); 0 for non-float work."""
    name = op.name
    if name == "vector.reduction":
        vt = op.operands[0].type
        if not _is_float(vt):
            return 0
        return max(0, _lanes(vt) - 1)
    if name not in ONE_FLOP and name not in TWO_FLOPS and name not in MATH_FUNCTIONS:
        return 0
    if not op.results or not _is_float(op.results[0].type):
        return 0
    per_lane = 2 if name in TWO_FLOPS else 1
    return per_lane * _lanes(op.results[0].type)


def _is_float(t: ir.Type) -> bool:
    if isinstance(t, ir.VectorType):
        t = t.element_type
    return isinstance(t, ir.FloatType)


def _lanes(t: ir.Type) -> int:
    return math.prod(ir.VectorType(t).shape) if isinstance(t, ir.VectorType) else 1


# ----------------------------------------------------------------------------- sizes

def parameter_values(fn: ir.Operation, scope: Scope, sizes: Sequence) -> dict[str, int]:
    """isl parameter name -> value at the given sizes, for the parameters the scope knows:
    index arguments (`sizes[k]` an int) and `memref.dim` of an argument by a constant
    (`sizes[k]` its shape, None for a static shape). Unknown parameters are left out."""
    entry = mlir.func_body(fn)
    types = list(fn.attributes["function_type"].value.inputs)
    out = {}
    for name, v in scope.params.items():
        val = _index_value(v, entry, types, sizes)
        if val is not None:
            out[name] = val
    return out


def _shape(types, sizes, k: int):
    s = sizes[k] if k < len(sizes) else None
    if s is None and isinstance(types[k], ir.MemRefType):
        return list(types[k].shape)
    return s


def _arg_number(v: ir.Value, entry: ir.Block) -> int | None:
    if mlir.is_block_argument(v):
        arg = v if isinstance(v, ir.BlockArgument) else ir.BlockArgument(v)
        if arg.owner == entry:
            return arg.arg_number
    return None


def _index_value(v: ir.Value, entry: ir.Block, types, sizes) -> int | None:
    k = _arg_number(v, entry)
    if k is not None:
        s = sizes[k] if k < len(sizes) else None
        return s if isinstance(s, int) else None
    owner, _ = mlir.value_owner(v)
    if owner is None:
        return None
    if owner.name == "arith.constant":
        try:
            return ir.IntegerAttr(owner.attributes["value"]).value
        except ValueError:
            return None
    if owner.name == "memref.dim":
        j = _arg_number(owner.operands[0], entry)
        d = _index_value(owner.operands[1], entry, types, sizes)
        shape = _shape(types, sizes, j) if j is not None else None
        if isinstance(shape, list) and d is not None and 0 <= d < len(shape) and shape[d] != mlir.DYNAMIC:
            return shape[d]
    return None


# ----------------------------------------------------------------------------- executions

def count_points(loops: list, values: dict[str, int], params=()) -> int | None:
    """Number of iterations of a nest of Loop facts (outermost first) with the parameters at
    `values` (`params`: every parameter name, known or not); None if a bound is unknown. A loop whose bounds mention no other IV and that no
    other loop's bounds mention contributes its own trip count as a factor; the others are
    counted together with isl (`count_val` enumerates all but the innermost of those dims, so
    keeping independent loops out of it keeps rectangular nests instantaneous)."""
    if not loops:
        return 1
    if any(not lp.bounded for lp in loops):
        return None
    names = [lp.name for lp in loops]
    mentions = {lp.name: {n for n in names if n != lp.name and _mentions(lp, n)} for lp in loops}
    mentioned = {n for ms in mentions.values() for n in ms}
    coupled = [lp for lp in loops if mentions[lp.name] or lp.name in mentioned]
    total = 1
    for lp in loops:
        if lp not in coupled:
            c = _count([lp], values, params)
            if c is None:
                return None
            total *= c
    if coupled:
        c = _count(coupled, values, params)
        if c is None:
            return None
        total *= c
    return total


def _mentions(lp, name: str) -> bool:
    pat = re.compile(rf"\b{re.escape(name)}\b")
    return any(pat.search(t) for t in (*lp.lower, *lp.upper))


def _count(loops: list, values: dict[str, int], params) -> int | None:
    cons = [c for lp in loops for c in lp.constraints()]
    text = " and ".join(cons) or "true"
    words = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
    used = sorted(words & (set(params) | set(values)))
    if any(p not in values for p in used):
        return None
    fixed = " and ".join([text] + [f"{p} = {values[p]}" for p in used])
    head = f"[{', '.join(used)}] -> " if used else ""
    try:
        n = isl.Set(f"{head}{{ [{', '.join(lp.name for lp in loops)}] : {fixed} }}").count_val()
    except isl.Error:
        return None
    return int(n.to_python())


def executions(op: ir.Operation, scope: Scope, values: dict[str, int], memo: dict | None = None
               ) -> tuple[int | None, str]:
    """(how many times `op` runs, why the number is not exact or "" ) at the parameter values."""
    why = ""
    for p in _ancestors(op):
        if p.name in ("affine.if", "scf.if"):
            why = f"counted as if the {p.name} branch were always taken"
        elif p.name in LOOP_OPS and p.name != "affine.for":
            return None, f"runs inside {p.name}"
    key = tuple(mlir.op_key(lp) for lp in enclosing_loops(op))
    if memo is not None and key in memo:
        return memo[key], why
    try:
        n = count_points(domain_loops(op, scope), values, scope.params)
    except NonAffine as e:
        n = None
        why = f"a bound is not affine ({e})"
    if memo is not None:
        memo[key] = n
    return n, why if n is not None else (why or "a loop bound is unknown at these sizes")


def _ancestors(op: ir.Operation):
    p = op.parent
    while p is not None:
        p = mlir.operation(p)
        if p.name == "func.func":
            return
        yield p
        p = p.parent


# ----------------------------------------------------------------------------- the program

def function_work(fn: ir.Operation, sizes: Sequence) -> Work:
    """The Work of function `fn` with its arguments at `sizes` (one entry per argument: an int
    for an index argument, a shape list for a memref, None for a static shape)."""
    scope = Scope()
    entry = mlir.func_body(fn)
    types = list(fn.attributes["function_type"].value.inputs)
    weighted = [(op, w) for op in mlir.walk(fn) if (w := flop_weight(op))]
    for op, _ in weighted:
        try:
            domain_loops(op, scope)  # gives every parameter of the bounds its isl name
        except NonAffine:
            pass
    values = parameter_values(fn, scope, sizes)
    exact, why = True, ""
    memo: dict = {}
    per_op: dict[int, int] = {}
    for op, w in weighted:
        n, note = executions(op, scope, values, memo)
        if n is None:
            return Work(None, *compulsory_bytes(fn, entry, types, sizes), False, note)
        if note:
            exact, why = False, note
        per_op[mlir.op_key(op)] = w * n
    dropped = costlier_branches(fn, per_op)
    if dropped:
        exact, why = False, "an if with two branches counted as its cheaper branch"
    flops = sum(f for k, f in per_op.items() if k not in dropped)
    read, written = compulsory_bytes(fn, entry, types, sizes)
    return Work(flops, read, written, exact, why)


def _branches(op: ir.Operation) -> list[list[ir.Operation]] | None:
    """The ops of each branch of an scf.if/affine.if with a non-empty else, else None."""
    if op.name not in ("scf.if", "affine.if") or len(op.regions) != 2:
        return None
    out = [[x for b in r.blocks for top in b.operations for x in mlir.walk(mlir.operation(top))] for r in op.regions]
    return out if all(len(b) > 1 for b in out) else None


def costlier_branches(fn: ir.Operation, per_op: dict[int, int]) -> set[int]:
    """The keys of the ops in the costlier branch of every two-branch if (outermost first; a
    tie drops the else): the work is that of the cheaper path, so a share of the peak computed
    from it never over-claims (a guarded fast path and its fallback, frontend/zero_phases.py,
    count as the fast path)."""
    dropped: set[int] = set()
    for op in mlir.walk(fn):
        if mlir.op_key(op) in dropped:
            continue
        branches = _branches(op)
        if branches is None:
            continue
        totals = [sum(per_op.get(mlir.op_key(x), 0) for x in b if mlir.op_key(x) not in dropped) for b in branches]
        costlier = branches[0] if totals[0] > totals[1] else branches[1]
        dropped.update(mlir.op_key(x) for x in costlier)
    return dropped


def compulsory_bytes(fn: ir.Operation, entry: ir.Block, types, sizes) -> tuple[int, int]:
    """(bytes of the memref arguments the function reads, bytes of those it writes), each
    argument counted whole, once."""
    read, written = set(), set()
    for op in mlir.walk(fn):
        for table, into in ((READS, read), (WRITES, written)):
            pos = table.get(op.name)
            if pos is not None and pos < len(op.operands):
                k = _arg_number(op.operands[pos], entry)
                if k is not None:
                    into.add(k)

    def nbytes(k: int) -> int:
        shape = _shape(types, sizes, k) or []
        if any(not isinstance(d, int) or d < 0 for d in shape):
            return 0  # a dynamic size the caller did not give
        return math.prod(shape) * mlir.element_size_bytes(types[k].element_type)

    return sum(nbytes(k) for k in read), sum(nbytes(k) for k in written)


def program_work(text: str, kernel: str, sizes: Sequence) -> Work:
    """function_work of @kernel in the module `text`."""
    module = mlir.parse_module(text)
    with module.context:
        for fn in mlir.functions(module):
            if mlir.func_name(fn) == kernel:
                return function_work(fn, sizes)
    raise ValueError(f"no function @{kernel}")
