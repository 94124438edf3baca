"""What a call needs to know about an entry function, read once from the optimized module.

`KernelSpec` holds each argument (a memref: element dtype, rank, static dims; or a scalar), its
role, which arguments the kernel may write, how to size the out-parameters the callable allocates,
and the module's run-time checks (`cf.assert`, numbered 1, 2, ... in the module's order:
`assert_ops`). A check of the entry block over the arguments' dims and scalar values becomes an
expression the callable evaluates in Python before the call (a one-line error that names the
sizes); any other check the entry function may reach (inside a loop, on data, in a function it
calls: `in_kernel`) is evaluated by the kernel, which returns the failing check's number through
the library's wrapper (runtime/checks.py; the callable calls it whenever the module has a check).

Roles: a function lowered from tensors (linalg, StableHLO, torch, ONNX) takes its inputs, then
one out-parameter per result (docs/frontend.md, calling convention); the callable allocates those
when the caller leaves them out. An affine function's memref arguments are the caller's, as in C:
all are passed, any may be written (`written` says which the kernel may write: a conservative
reading of their uses).

A spec is plain data (`to_json`/`from_json`): the cache stores it beside the built object, so a
cached kernel is called without parsing its module again.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from ..errors import LoopOptError

SPEC_VERSION = 2
_C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "bool true false".split())

# numpy dtype names of the element types a memref argument may have, by MLIR type text
DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool", "i8": "int8", "i16": "int16",
          "i32": "int32", "i64": "int64", "index": "int64"}
# scalar arguments and results by value: the ctypes type name (f16 has none)
SCALAR_CTYPES = {"f32": "c_float", "f64": "c_double", "i1": "c_bool", "i8": "c_int8", "i16": "c_int16",
                 "i32": "c_int32", "i64": "c_int64", "index": "c_int64"}


# The module's run-time checks by number, and the symbols the library exports for an entry point
# besides MLIR's (runtime/checks.py makes them).
WRAPPER_PREFIX = "loopopt_call_"
MESSAGE_PREFIX = "loopopt_check_message_"


def wrapper_name(entry: str) -> str:
    return WRAPPER_PREFIX + entry


def message_function(entry: str) -> str:
    return MESSAGE_PREFIX + entry


def generated_names(entry: str) -> tuple[str, str]:
    """The symbols the library exports for an entry point besides MLIR's."""
    return wrapper_name(entry), message_function(entry)


def assert_ops(module) -> list:
    """Every cf.assert of the module, in the module's order (pre-order): check n is the n-th."""
    from .. import mlir

    return [op for op in mlir.walk(module.operation) if op.name == "cf.assert"]


def message(op) -> str:
    from ..mlir import ir

    return ir.StringAttr(op.attributes["msg"]).value


class SpecError(LoopOptError):
    """The entry function cannot be called through the runtime; one line naming why."""


@dataclass(frozen=True)
class Param:
    """One argument of the entry function."""

    name: str  # "arg0"
    kind: str  # "memref" or "scalar"
    type: str  # its MLIR type
    elem: str  # element (memref) or scalar type: f32, i64, index, ...
    dtype: str  # numpy dtype name of the element or scalar
    shape: tuple = ()  # memref dims, None for `?`
    role: str = "input"  # "input", "output" (an out-parameter the callable may allocate), "inout" (affine)
    written: bool = False  # the kernel may write it

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Check:
    """A `cf.assert` of the entry block whose condition depends on argument sizes and scalars only:
    the callable evaluates it before the call."""

    message: str
    expr: list  # see `evaluate`
    number: int = 0  # the check's number in the module (runtime/checks.py)


@dataclass(frozen=True)
class KernelSpec:
    name: str
    params: tuple[Param, ...]
    result: str | None = None  # the scalar result's type (None: no result)
    n_outputs: int = 0  # trailing out-parameters the callable allocates when they are left out
    output_dims: tuple = ()  # per out-parameter, per dim: None (static), an expression, or "unknown"
    checks: tuple[Check, ...] = field(default_factory=tuple)
    messages: tuple[str, ...] = ()  # every check of the module by number (messages[n - 1])
    in_kernel: tuple[int, ...] = ()  # the checks the entry may reach that only the kernel evaluates
    version: int = SPEC_VERSION

    @property
    def n_inputs(self) -> int:
        return len(self.params) - self.n_outputs

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> "KernelSpec":
        d = json.loads(text)
        if d.get("version") != SPEC_VERSION:
            raise ValueError(f"spec version {d.get('version')!r}, expected {SPEC_VERSION}")
        params = tuple(Param(**{**p, "shape": tuple(p["shape"])}) for p in d["params"])
        checks = tuple(Check(**c) for c in d["checks"])
        dims = tuple(tuple(x) for x in d["output_dims"])
        return KernelSpec(d["name"], params, d["result"], d["n_outputs"], dims, checks, tuple(d["messages"]),
                          tuple(d["in_kernel"]), d["version"])

    def signature_text(self) -> str:
        """`name(arg0: memref<?x16xf32> input, ...)` for messages and reprs."""
        args = ", ".join(f"{p.name}: {p.type}" + (f" ({p.role})" if p.kind == "memref" else "") for p in self.params)
        return f"{self.name}({args})" + (f" -> {self.result}" if self.result else "")


# ----------------------------------------------------------------------------- expressions
#
# An expression is a JSON list: ["const", v], ["dim", argno, k] (dim k of memref argument argno),
# ["arg", argno] (a scalar argument), [op, a, b] for op in _BINARY, ["cmp", predicate, a, b],
# ["select", c, a, b], ["min", [a, ...]], ["max", [a, ...]]. Values are Python ints (index and
# integers as signed 64-bit; comparisons give 0 or 1).

_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b, "ceildiv": lambda a, b: -((-a) // b), "mod": lambda a, b: a % b,
    "divsi": lambda a, b: _trunc_div(a, b), "remsi": lambda a, b: a - b * _trunc_div(a, b),
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "maxsi": max, "minsi": min,
}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "ult": lambda a, b: a % 2**64 < b % 2**64, "ule": lambda a, b: a % 2**64 <= b % 2**64,
        "ugt": lambda a, b: a % 2**64 > b % 2**64, "uge": lambda a, b: a % 2**64 >= b % 2**64}
_CMP_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")  # arith.cmpi's enum order
_ARITH = {"arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.divsi": "divsi",
          "arith.remsi": "remsi", "arith.floordivsi": "floordiv", "arith.ceildivsi": "ceildiv",
          "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor", "arith.maxsi": "maxsi", "arith.minsi": "minsi"}


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class _NotEvaluable(Exception):
    pass


def evaluate(expr: list, dims: dict, scalars: dict) -> int:
    """The value of an expression given `dims[(argno, k)]` and `scalars[argno]`; ZeroDivisionError
    for a division by zero (the caller reports it as a failed check)."""
    op = expr[0]
    if op == "const":
        return expr[1]
    if op == "dim":
        return dims[(expr[1], expr[2])]
    if op == "arg":
        return scalars[expr[1]]
    if op == "cmp":
        return int(_CMP[expr[1]](evaluate(expr[2], dims, scalars), evaluate(expr[3], dims, scalars)))
    if op == "select":
        return evaluate(expr[2] if evaluate(expr[1], dims, scalars) else expr[3], dims, scalars)
    if op in ("min", "max"):
        values = [evaluate(e, dims, scalars) for e in expr[1]]
        return min(values) if op == "min" else max(values)
    return _BINARY[op](evaluate(expr[1], dims, scalars), evaluate(expr[2], dims, scalars))


def references(expr: list) -> set[int]:
    """The argument numbers an expression reads."""
    if expr[0] in ("dim", "arg"):
        return {expr[1]}
    if expr[0] == "const":
        return set()
    out: set[int] = set()
    for e in expr[1:]:
        if isinstance(e, list) and e and isinstance(e[0], str):
            out |= references(e)
        elif isinstance(e, list):
            for x in e:
                out |= references(x)
    return out


def _affine_results(op, operands: list[list]) -> list[list]:
    from ..mlir import ir

    m = ir.AffineMapAttr(op.attributes["map"]).value
    dims, syms = operands[:m.n_dims], operands[m.n_dims:]
    out = []
    for r in m.results:
        out.append(_affine_with(r, dims, syms))
    return out


def _affine_with(e, dims: list[list], syms: list[list]) -> list:
    from ..mlir import ir

    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    if isinstance(e, ir.AffineConstantExpr):
        return ["const", e.value]
    for cls, name in ((ir.AffineAddExpr, "add"), (ir.AffineMulExpr, "mul"), (ir.AffineFloorDivExpr, "floordiv"),
                      (ir.AffineCeilDivExpr, "ceildiv"), (ir.AffineModExpr, "mod")):
        if isinstance(e, cls):
            return [name, _affine_with(e.lhs, dims, syms), _affine_with(e.rhs, dims, syms)]
    raise _NotEvaluable(f"affine expression {e}")


def _expression(v, fn, entry) -> list:
    """`v` as an expression over fn's arguments; _NotEvaluable when it depends on anything else
    (data, a value of another block, an op outside the small integer subset)."""
    from .. import mlir
    from ..mlir import ir

    owner, block = mlir.value_owner(v)
    if owner is None:
        if block is not None and block == entry:
            arg = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
            return ["arg", arg.arg_number]
        raise _NotEvaluable("a block argument of an inner block")
    if owner.block != entry:
        raise _NotEvaluable(f"{owner.name} inside a region")
    name = owner.name
    if name == "arith.constant":
        attr = owner.attributes["value"]
        if not isinstance(attr, ir.IntegerAttr):
            raise _NotEvaluable("a non-integer constant")
        value = ir.IntegerAttr(attr).value
        width = ir.IntegerType(attr.type).width if isinstance(attr.type, ir.IntegerType) else 64
        return ["const", int(bool(value)) if width == 1 else value]
    if name == "memref.dim":
        src, idx = owner.operands
        src_owner, src_block = mlir.value_owner(src)
        k = _expression(idx, fn, entry)
        if src_owner is not None or src_block != entry or k[0] != "const":
            raise _NotEvaluable("memref.dim of a value that is not an argument")
        return ["dim", (src.maybe_downcast() if hasattr(src, "maybe_downcast") else src).arg_number, k[1]]
    if name in ("arith.index_cast", "arith.index_castui"):
        return _expression(owner.operands[0], fn, entry)
    if name in _ARITH:
        return [_ARITH[name], _expression(owner.operands[0], fn, entry), _expression(owner.operands[1], fn, entry)]
    if name == "arith.cmpi":
        pred = _CMP_NAMES[ir.IntegerAttr(owner.attributes["predicate"]).value]
        return ["cmp", pred, _expression(owner.operands[0], fn, entry), _expression(owner.operands[1], fn, entry)]
    if name == "arith.select":
        c, a, b = owner.operands
        return ["select", _expression(c, fn, entry), _expression(a, fn, entry), _expression(b, fn, entry)]
    if name in ("affine.apply", "affine.min", "affine.max"):
        operands = [_expression(x, fn, entry) for x in owner.operands]
        results = _affine_results(owner, operands)
        if name == "affine.apply":
            return results[0]
        return [name.split(".")[1], results]
    raise _NotEvaluable(name)


# ----------------------------------------------------------------------------- the spec

_READS = ("affine.load", "memref.load", "affine.vector_load", "vector.load", "vector.transfer_read",
          "vector.maskedload", "vector.gather", "memref.dim", "affine.prefetch", "memref.prefetch")
_VIEWS = ("memref.subview", "memref.collapse_shape", "memref.expand_shape", "memref.cast",
          "memref.reinterpret_cast", "memref.transpose", "memref.view")


def _may_write(v, depth: int = 0) -> bool:
    """Whether any use of memref value `v` may write it: every use that is not a read (or a view
    only read) counts as a write, a call included."""
    from .. import mlir

    if depth > 32:
        return True
    for use in v.uses:
        user = mlir.operation(use.owner)
        if user.name in _READS:
            continue
        if user.name == "memref.copy" and use.operand_number == 0:
            continue
        if user.name in _VIEWS and use.operand_number == 0:
            if any(_may_write(r, depth + 1) for r in user.results):
                return True
            continue
        return True
    return False


def _param(i: int, spec, value, role: str) -> Param:
    name = f"arg{i}"
    if spec.form == "scalar":
        if spec.element_text not in SCALAR_CTYPES:
            raise SpecError(f"{name} has type {spec.text}: a scalar argument must be one of "
                            f"{', '.join(SCALAR_CTYPES)}")
        return Param(name, "scalar", spec.text, spec.element_text, DTYPES[spec.element_text], (), "scalar")
    if spec.form != "memref":
        raise SpecError(f"{name} has type {spec.text}: the runtime passes ranked memrefs and scalars")
    if spec.element_text not in DTYPES:
        raise SpecError(f"{name} has type {spec.text}: element type {spec.element_text} has no numpy dtype here "
                        f"(supported: {', '.join(DTYPES)})")
    if not spec.identity_layout:
        raise SpecError(f"{name} has type {spec.text}: the runtime passes row-major arrays (identity layout)")
    return Param(name, "memref", spec.text, spec.element_text, DTYPES[spec.element_text], tuple(spec.shape),
                 role, _may_write(value))


def find_entry(module, function: str | None):
    """The entry function: the one named `function`, or the module's only public function with a
    body. SpecError naming the candidates otherwise."""
    from .. import mlir
    from .lowering import entry_points

    entries = entry_points(module)
    names = [mlir.func_name(f) for f in entries]
    if function is not None:
        for fn in entries:
            if mlir.func_name(fn) == function:
                return fn
        raise SpecError(f"no public function @{function} with a body (have: {', '.join(names) or 'none'})")
    if len(entries) != 1:
        raise SpecError(f"the module has {len(entries)} public functions ({', '.join(names) or 'none'}); "
                        "name one with function=")
    return entries[0]


def kernel_spec(module, function: str | None = None, n_outputs: int = 0) -> KernelSpec:
    """The spec of the entry function of an optimized module; SpecError for what the runtime
    cannot call (a memref result, an element type numpy lacks, a name it cannot export)."""
    from .. import mlir
    from ..oracle import function_signature

    with module.context:
        fn = find_entry(module, function)
        name = mlir.func_name(fn)
        if not _C_IDENTIFIER.match(name) or name in _C_KEYWORDS or name.startswith("_mlir_"):
            raise SpecError(f"@{name}: the entry function's name must be a C identifier (not a C keyword, not _mlir_...)")
        taken = sorted(set(generated_names(name)) & mlir.symbol_names(module.operation))
        if taken:
            raise SpecError(f"@{name}: the module has a symbol @{taken[0]}, the name of the library's check wrapper "
                            f"for @{name}")
        sig = function_signature(fn)
        entry = mlir.func_body(fn)
        args = list(entry.arguments)
        if n_outputs > len(sig.args):
            raise SpecError(f"@{name} has {len(sig.args)} arguments, fewer than its {n_outputs} outputs")
        first_out = len(sig.args) - n_outputs
        params = []
        for i, (s, value) in enumerate(zip(sig.args, args)):
            role = "output" if i >= first_out else ("input" if n_outputs else "inout")
            params.append(_param(i, s, value, role))
            if role == "output" and s.form != "memref":
                raise SpecError(f"@{name}: output argument {i} is not a memref ({s.text})")
        result = None
        if len(sig.results) > 1 or (sig.results and sig.results[0].form != "scalar"):
            raise SpecError(f"@{name} returns {', '.join(r.text for r in sig.results)}: the runtime calls functions "
                            "that write their results into memref arguments (or return one scalar)")
        if sig.results:
            result = sig.results[0].element_text
            if result not in SCALAR_CTYPES:
                raise SpecError(f"@{name} returns {result}: a scalar result must be one of {', '.join(SCALAR_CTYPES)}")
        asserts = assert_ops(module)
        numbers = {mlir.op_key(op): n for n, op in enumerate(asserts, 1)}
        checks, in_kernel = _checks(module, fn, entry, numbers)
        dims = _output_dims(params, first_out, checks)
    return KernelSpec(name, tuple(params), result, n_outputs, dims, checks, tuple(message(op) for op in asserts),
                      in_kernel)


def _checks(module, fn, entry, numbers: dict) -> tuple[tuple[Check, ...], tuple[int, ...]]:
    """(the checks the callable evaluates before the call: the cf.asserts of the entry block over
    the arguments' sizes and scalars; the numbers of every other check the entry may reach)."""
    from .. import mlir

    before, in_kernel = [], []
    for f in reachable_functions(module, fn):
        for op in mlir.walk(f):
            if op.name != "cf.assert":
                continue
            n = numbers[mlir.op_key(op)]
            try:
                if f != fn or op.block != entry:
                    raise _NotEvaluable("not in the entry block")
                before.append(Check(message(op), _expression(op.operands[0], fn, entry), n))
            except _NotEvaluable:
                in_kernel.append(n)
    return tuple(before), tuple(sorted(in_kernel))


def reachable_functions(module, fn) -> list:
    """`fn` and every function of the module it may call, directly or not: the callees of its
    `func.call`s; every function when a function's address is taken (`func.constant`)."""
    from .. import mlir
    from ..mlir import ir

    by_name = {mlir.func_name(f): f for f in mlir.all_functions(module)}
    out, todo, seen = [], [fn], {mlir.func_name(fn)}
    while todo:
        f = todo.pop()
        out.append(f)
        for op in mlir.walk(f):
            if op.name == "func.constant":
                return list(by_name.values())
            if op.name == "func.call":
                callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                if callee not in seen and callee in by_name:
                    seen.add(callee)
                    todo.append(by_name[callee])
    return out


def _output_dims(params: list[Param], first_out: int, checks: tuple[Check, ...]) -> tuple:
    """How to size each out-parameter's dims: None for a static dim; for a dynamic dim k of
    output j, the expression E of a check `dim k of j == E` (E reading inputs only), else "unknown"."""
    rules = {}
    for c in checks:
        e = c.expr
        if e[0] != "cmp" or e[1] != "eq":
            continue
        for lhs, rhs in ((e[2], e[3]), (e[3], e[2])):
            if lhs[0] == "dim" and lhs[1] >= first_out and all(r < first_out for r in references(rhs)):
                rules.setdefault((lhs[1], lhs[2]), rhs)
    out = []
    for j in range(first_out, len(params)):
        p = params[j]
        out.append(tuple(None if d is not None else rules.get((j, k), "unknown") for k, d in enumerate(p.shape)))
    return tuple(out)
