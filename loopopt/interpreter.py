"""Reference interpreter: run a `func.func` on numpy arrays to check that a transform kept results.

Each function of a module is translated once into Python source (one Python `for` per loop,
one local variable per SSA value) and `exec`-ed; translations are cached by module text.

Value model (the rule every emitter follows):
  - index values are Python ints (no wrap-around);
  - iN values are Python ints in signed canonical form, wrapped modulo 2^N after every op;
    i1 is the exception: it is 0 or 1;
  - f16/f32/f64 values are numpy scalars of that dtype, so every op rounds to the type;
  - memrefs (ranked or unranked) are numpy arrays (views for subviews and reshapes); every
    element access is bounds-checked explicitly because numpy wraps negative indices silently.
    A memref value that flows through select, scf.if/for results, iter_args, block arguments,
    casts or call results is the same array object, so aliasing is real; get_global returns
    one array per symbol and run;
  - vectors are fresh read-only numpy arrays of the element dtype (never views of memory);
    arith/math ops on vectors run the scalar rule once per element.
Functions of several blocks (cf.br/cf.cond_br/cf.switch) become a loop dispatching on the
current block's number.
Newly allocated memory is filled with NaN (floats) or 0xA5 bytes (integers), so reading it
before writing it shows up in the results instead of passing as zeros.
"""
from __future__ import annotations

import functools
import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import mlir
from .codegen.cpu.math.libm import libm_expf
from .mlir import DYNAMIC, block_ops, func_body, func_name, functions, ir, location_of, new_context, parse_module
from .oracle import (ScalarKind, TypeSpec, Unsupported, VectorKind, function_signature, is_memref,
                     memref_element_dtype, memref_shape, scalar_kind, vector_kind)

DEFAULT_MAX_OPS = 50_000_000
"""Default op budget per `run_function` call; a run that executes more ops is stopped."""

_CACHE_SIZE = 256


class InterpreterError(Exception):
    """The program cannot be run: out-of-bounds access, unsupported op, missing body, budget."""


# Types are classified once for every oracle, in loopopt.oracle; _Unsupported marks what this
# interpreter cannot render (a type or an op).
_Unsupported = Unsupported


def _mask(k: ScalarKind) -> int:
    return (1 << k.width) - 1


def _wrap(expr: str, k: ScalarKind, force: bool = False) -> str:
    """Python expression that brings integer `expr` back to the canonical form of `k`.

    index is left unbounded unless `force` (ops that reinterpret bits, e.g. shifts).
    """
    if k.kind == "index" and not force:
        return f"({expr})"
    if k.width == 1:
        return f"(({expr}) & 1)"
    half = 1 << (k.width - 1)
    return f"(((({expr}) + {half}) & {_mask(k)}) - {half})"


def _signed(name: str, k: ScalarKind) -> str:
    """The signed reading of a canonical value (only i1 differs: true is -1)."""
    return f"(-{name})" if k.width == 1 else name


def _unsigned(name: str, k: ScalarKind) -> str:
    """The unsigned reading of a canonical value."""
    return name if k.width == 1 else f"({name} & {_mask(k)})"


def canonical_int(value: int, k: ScalarKind) -> int:
    """`value` wrapped to the canonical form of integer kind `k`."""
    value = int(value)
    if k.kind == "index":
        return value
    if k.width == 1:
        return value & 1
    half = 1 << (k.width - 1)
    return ((value + half) & _mask(k)) - half


# --------------------------------------------------------------------------- runtime helpers


class _Fault(Exception):
    """Raised by a runtime helper; its message is reported as is, at the op that ran it."""


def _positive_divisor(b: int, what: str) -> None:
    if b <= 0:
        raise _Fault(f"{what} by non-positive value {b} in a semi-affine expression")


def _amod(a: int, b: int) -> int:
    """Semi-affine `a mod b` (b a symbol): the floor remainder, for a positive b only."""
    _positive_divisor(b, "mod")
    return a % b


def _afloordiv(a: int, b: int) -> int:
    _positive_divisor(b, "floordiv")
    return a // b


def _aceildiv(a: int, b: int) -> int:
    _positive_divisor(b, "ceildiv")
    return -((-a) // b)


def _mask_vector(shape: tuple, sizes: tuple) -> np.ndarray:
    """vector.create_mask: true where every index is below its dim's size (sizes clamp at 0)."""
    m = np.zeros(shape, np.bool_)
    m[tuple(slice(0, max(0, int(s))) for s in sizes)] = True
    m.flags.writeable = False
    return m


def _divsi(a: int, b: int) -> int:
    """Signed division rounding toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _remsi(a: int, b: int) -> int:
    """Remainder of `_divsi`: takes the sign of the dividend."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _fptoi(x, k: ScalarKind, unsigned: bool) -> int:
    """fptosi/fptoui: truncate toward zero; out-of-range or non-finite inputs (poison) give 0."""
    xf = float(x)
    if not math.isfinite(xf):
        return 0
    v = int(xf)
    lo, hi = (0, (1 << k.width) - 1) if unsigned else (-(1 << (k.width - 1)), (1 << (k.width - 1)) - 1)
    if k.kind != "index" and not lo <= v <= hi:
        return 0
    return canonical_int(v, k)


def _itofp(v: int, dt):
    """Round integer `v` to float type `dt` once (via a 64-bit integer when a double is not exact)."""
    if -(1 << 53) <= v <= (1 << 53):
        return dt(v)
    if v < 0:
        return dt(np.int64(v))
    return dt(np.uint64(v))


def _bitcast(x, src: np.dtype, dst: np.dtype):
    """Reinterpret the bits of scalar `x` (stored as `src`) as `dst`."""
    out = np.array(x, dtype=src).view(dst)[()]
    if dst.kind in "iub":
        return int(out)
    return out


def _erf(x):
    return type(x)(math.erf(float(x)))


def _erfc(x):
    return type(x)(math.erfc(float(x)))


def _round_away(x):
    """math.round: nearest, ties away from zero."""
    v = float(x)
    if not math.isfinite(v):
        return x
    r = math.floor(abs(v))
    if abs(v) - r >= 0.5:
        r += 1
    return type(x)(math.copysign(r, v))


def _fma(a, b, c):
    """a*b+c with a single rounding for f64 (exact rationals) and f32/f16 (via f64)."""
    t = type(a)
    if t is np.float64:
        fa, fb, fc = float(a), float(b), float(c)
        if all(math.isfinite(v) for v in (fa, fb, fc)):
            exact = Fraction(fa) * Fraction(fb) + Fraction(fc)
            if exact == 0:
                return a * b + c  # keeps the IEEE sign of zero
            try:
                return t(float(exact))
            except OverflowError:
                return t(math.copysign(math.inf, exact))
        return a * b + c
    return t(np.float64(a) * np.float64(b) + np.float64(c))


def _ctpop(v: int, k: ScalarKind) -> int:
    return bin(v & _mask(k)).count("1")


def _expf(a):
    """math.exp: on f32, the host's libm `expf` element by element (what the native lowering
    calls, codegen/cpu/math/libm.py); numpy's exp where there is none and on other types."""
    fn = libm_expf()
    if isinstance(fn, str):
        return np.exp(a)
    if isinstance(a, np.float32):
        return np.float32(fn(float(a)))
    if isinstance(a, np.ndarray) and a.dtype == np.float32:
        return np.array([fn(float(v)) for v in a.ravel()], dtype=np.float32).reshape(a.shape)
    return np.exp(a)


def _powi(x, n: int):
    """math.fpowi (llvm.powi): x to the integer power n by repeated squaring in x's type, the
    order of LLVM's expansion for a constant n and of compiler-rt's __powisf2/__powidf2 for a
    variable one (the result starts at the lowest set bit's power, each further set bit
    multiplies it by the next square; n < 0 divides 1 by that product; n = 0 gives 1)."""
    one = np.asarray(x).dtype.type(1)
    m = -n if n < 0 else n
    r = None
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        while m:
            if m & 1:
                r = x if r is None else r * x
            m >>= 1
            if m:
                x = x * x
        if r is None:
            return one if np.ndim(x) == 0 else np.full_like(x, one)
        return one / r if n < 0 else r


def _ldexp(p, n):
    """llvm.intr.ldexp: p * 2^n rounded once to p's type (numpy's ldexp, libm's ldexpf on f32),
    inf beyond the range, subnormal or zero below it."""
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(p, np.asarray(n, dtype=np.int32) if isinstance(n, np.ndarray) else np.int32(n))


_HELPERS = {
    "_amod": _amod,
    "_ldexp": _ldexp,
    "_powi": _powi,
    "_expf": _expf,
    "_afloordiv": _afloordiv,
    "_aceildiv": _aceildiv,
    "_mask_vector": _mask_vector,
    "_divsi": _divsi,
    "_remsi": _remsi,
    "_fptoi": _fptoi,
    "_itofp": _itofp,
    "_bitcast": _bitcast,
    "_erf": _erf,
    "_erfc": _erfc,
    "_round_away": _round_away,
    "_fma": _fma,
    "_ctpop": _ctpop,
    "_np": np,
    "_math": math,
}

# numpy ufuncs bound as globals of the generated code: math op -> global name
_UNARY_UFUNCS = {
    "math.exp": "exp", "math.exp2": "exp2", "math.expm1": "expm1", "math.log": "log", "math.log2": "log2",
    "math.log10": "log10", "math.log1p": "log1p", "math.sqrt": "sqrt", "math.tanh": "tanh", "math.sin": "sin",
    "math.cos": "cos", "math.tan": "tan", "math.atan": "arctan", "math.asin": "arcsin", "math.acos": "arccos",
    "math.sinh": "sinh", "math.cosh": "cosh", "math.asinh": "arcsinh", "math.acosh": "arccosh",
    "math.atanh": "arctanh", "math.absf": "abs", "math.floor": "floor", "math.ceil": "ceil", "math.trunc": "trunc",
    "math.roundeven": "rint", "math.cbrt": "cbrt",
}
_BINARY_UFUNCS = {
    "arith.remf": "fmod", "arith.maximumf": "maximum", "arith.minimumf": "minimum", "arith.maxnumf": "fmax",
    "arith.minnumf": "fmin", "math.powf": "power", "math.atan2": "arctan2", "math.copysign": "copysign",
}
for _u in set(_UNARY_UFUNCS.values()) | set(_BINARY_UFUNCS.values()):
    _HELPERS["_u_" + _u] = getattr(np, _u)

# cmpf predicates (enum order of arith::CmpFPredicate) as conditions on a, b
_CMPF = [
    "False", "{a} == {b}", "{a} > {b}", "{a} >= {b}", "{a} < {b}", "{a} <= {b}", "({a} < {b} or {a} > {b})",
    "({a} == {a} and {b} == {b})", "not ({a} < {b} or {a} > {b})", "not ({a} <= {b})", "not ({a} < {b})",
    "not ({a} >= {b})", "not ({a} > {b})", "{a} != {b}", "({a} != {a} or {b} != {b})", "True",
]
# cmpi predicates: (operator, signedness) in arith::CmpIPredicate order
_CMPI = [("==", None), ("!=", None), ("<", "s"), ("<=", "s"), (">", "s"), (">=", "s"),
         ("<", "u"), ("<=", "u"), (">", "u"), (">=", "u")]

# arith::AtomicRMWKind values as stored in affine.parallel's `reductions`
_RMW_KINDS = {0: "addf", 1: "addi", 2: "andi", 3: "assign", 4: "maximumf", 5: "maxnumf", 6: "maxs",
              7: "maxu", 8: "minimumf", 9: "minnumf", 10: "mins", 11: "minu", 12: "mulf", 13: "muli",
              14: "ori", 15: "xori"}

_TERMINATORS = {"affine.yield", "scf.yield", "scf.condition", "scf.reduce", "scf.reduce.return",
                "func.return", "memref.alloca_scope.return"}


@dataclass(frozen=True)
class OpSite:
    """An op of the source program, for error messages."""

    name: str
    loc: str

    def __str__(self) -> str:
        return f"{self.loc}: {self.name}"


# --------------------------------------------------------------------------- affine maps


def affine_expr_source(e: ir.AffineExpr, dims: list[str], syms: list[str]) -> str:
    """Python source for an affine expression; floordiv and mod round toward -inf like MLIR."""
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    if isinstance(e, ir.AffineConstantExpr):
        return str(e.value)
    if isinstance(e, ir.AffineAddExpr):
        lhs = affine_expr_source(e.lhs, dims, syms)
        r = e.rhs
        if isinstance(r, ir.AffineConstantExpr) and r.value < 0:
            return f"({lhs} - {-r.value})"
        if isinstance(r, ir.AffineMulExpr) and isinstance(r.rhs, ir.AffineConstantExpr) and r.rhs.value == -1:
            return f"({lhs} - {affine_expr_source(r.lhs, dims, syms)})"
        return f"({lhs} + {affine_expr_source(r, dims, syms)})"
    semi = {ir.AffineModExpr: "_amod", ir.AffineFloorDivExpr: "_afloordiv", ir.AffineCeilDivExpr: "_aceildiv"}
    for cls, helper in semi.items():
        if isinstance(e, cls) and not isinstance(e.rhs, ir.AffineConstantExpr):
            # semi-affine: defined for a positive divisor only (checked when it runs; MLIR's
            # lowering assumes it and gives no floor/ceil/remainder for a negative one)
            return f"{helper}({affine_expr_source(e.lhs, dims, syms)}, {affine_expr_source(e.rhs, dims, syms)})"
    ops = ((ir.AffineMulExpr, "*"), (ir.AffineFloorDivExpr, "//"), (ir.AffineModExpr, "%"))
    for cls, sym in ops:
        if isinstance(e, cls):
            return f"({affine_expr_source(e.lhs, dims, syms)} {sym} {affine_expr_source(e.rhs, dims, syms)})"
    if isinstance(e, ir.AffineCeilDivExpr):
        return f"(-((-{affine_expr_source(e.lhs, dims, syms)}) // {affine_expr_source(e.rhs, dims, syms)}))"
    raise _Unsupported(f"affine expression {e}")


def affine_map_sources(m: ir.AffineMap, operands: list[str]) -> list[str]:
    """Python source for each result of map `m` applied to `operands` (dims first, then symbols)."""
    dims, syms = operands[: m.n_dims], operands[m.n_dims:]
    return [affine_expr_source(e, dims, syms) for e in m.results]


Range = tuple[int, int]


def affine_expr_range(e: ir.AffineExpr, dims: list[Range | None], syms: list[Range | None]) -> Range | None:
    """Inclusive [lo, hi] of an affine expression given operand ranges, or None if unknown."""
    if isinstance(e, ir.AffineConstantExpr):
        return (e.value, e.value)
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    if not isinstance(e, (ir.AffineAddExpr, ir.AffineMulExpr, ir.AffineFloorDivExpr, ir.AffineCeilDivExpr,
                          ir.AffineModExpr)):
        return None
    lhs, rhs = affine_expr_range(e.lhs, dims, syms), affine_expr_range(e.rhs, dims, syms)
    if lhs is None or rhs is None:
        return None
    if isinstance(e, ir.AffineAddExpr):
        return (lhs[0] + rhs[0], lhs[1] + rhs[1])
    if isinstance(e, ir.AffineMulExpr):
        corners = [a * b for a in lhs for b in rhs]
        return (min(corners), max(corners))
    if rhs[0] != rhs[1] or rhs[0] <= 0:
        return None
    c = rhs[0]
    if isinstance(e, ir.AffineFloorDivExpr):
        return (lhs[0] // c, lhs[1] // c)
    if isinstance(e, ir.AffineCeilDivExpr):
        return (-(-lhs[0] // c), -(-lhs[1] // c))
    return (0, c - 1)


def affine_map_ranges(m: ir.AffineMap, operands: list[Range | None]) -> list[Range | None]:
    dims, syms = operands[: m.n_dims], operands[m.n_dims:]
    return [affine_expr_range(e, dims, syms) for e in m.results]


def loop_range(lbs: list[Range | None], ubs: list[Range | None]) -> Range | None:
    """Range of an IV running from max(lbs) to min(ubs) (exclusive); None if a bound is unknown
    or the loop may not run (then the IV is never used)."""
    if not lbs or not ubs or any(r is None for r in lbs + ubs):
        return None
    return (max(r[0] for r in lbs), min(r[1] for r in ubs) - 1)


def _split_top_level(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def integer_set_constraints(attr: ir.Attribute) -> tuple[ir.AffineMap, list[bool]]:
    """An integer set as (map of its constraint expressions, is_equality per constraint).

    The bindings do not expose IntegerSetAttr's set, so the canonical printed form is re-read
    as an affine map: `affine_set<H : (e0 >= 0, e1 == 0)>` becomes `affine_map<H -> (e0, e1)>`.
    """
    text = str(attr)
    m = re.fullmatch(r"affine_set<(.*?) : \((.*)\)>", text, re.S)
    if not m:
        raise _Unsupported(f"integer set {text}")
    exprs, eqs = [], []
    for c in _split_top_level(m.group(2)):
        cm = re.fullmatch(r"(.*) (>=|==) 0", c, re.S)
        if not cm:
            raise _Unsupported(f"integer set constraint {c}")
        exprs.append(cm.group(1))
        eqs.append(cm.group(2) == "==")
    amap = ir.Attribute.parse(f"affine_map<{m.group(1)} -> ({', '.join(exprs)})>", attr.context)
    return ir.AffineMapAttr(amap).value, eqs


# --------------------------------------------------------------------------- translation


def _int_attr(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _i64_array(op: ir.Operation, name: str) -> list[int]:
    return [int(x) for x in op.attributes[name]]


def _single_block(region: ir.Region) -> ir.Block | None:
    blocks = list(region.blocks)
    if len(blocks) > 1:
        raise _Unsupported("regions with more than one block (unstructured control flow)")
    return blocks[0] if blocks else None


@dataclass(frozen=True)
class GlobalInfo:
    """A module-level memref.global: materialized afresh for every run."""

    shape: tuple[int, ...]
    dtype: np.dtype
    init: np.ndarray | None
    constant: bool


class _FuncWriter:
    """Writes the Python source of one func.func into the module's line list."""

    def __init__(self, unit: "CompiledModule", fn: ir.Operation, pyname: str):
        self.u = unit
        self.fn = fn
        self.pyname = pyname
        self.names: dict[ir.Value, str] = {}
        self.const_ints: dict[ir.Value, int] = {}
        self.ranges: dict[ir.Value, Range] = {}  # index values whose range is known statically
        self.count = 0
        self.depth = 1
        self.elementwise = False  # inside `_emit_elementwise`: vector values stand for one element
        self.site = unit.add_site(fn)
        self.asm = ir.AsmState(fn)

    # -- bookkeeping
    def line(self, text: str) -> None:
        self.u.lines.append("    " * self.depth + text)
        self.u.tags.append(self.site)

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def define(self, v: ir.Value, prefix: str = "v") -> str:
        name = self.fresh(prefix)
        self.names[v] = name
        return name

    def n(self, v: ir.Value) -> str:
        try:
            return self.names[v]
        except KeyError:
            raise _Unsupported("use of a value defined outside the translated function") from None

    def kind(self, v: ir.Value) -> ScalarKind:
        t = v.type
        if self.elementwise and isinstance(t, ir.VectorType):
            t = ir.VectorType(t).element_type
        k = scalar_kind(t)
        if k is None:
            raise _Unsupported(f"values of type {v.type}")
        return k

    def vkind(self, v: ir.Value) -> VectorKind:
        if not isinstance(v.type, ir.VectorType):
            raise _Unsupported(f"expected a vector, got {v.type}")
        return vector_kind(v.type)

    def const(self, obj) -> str:
        return self.u.add_const(obj)

    def tick(self, count: int) -> None:
        """Charge `count` executed ops against the budget (once per block entry)."""
        self.line(f"_n -= {count}")
        self.line(f"if _n < 0: _budget({self.site})")

    def bind_dims(self, v: ir.Value) -> None:
        """Locals `<name>_dK` for the dynamic dims of memref value `v` (static dims are literals)."""
        if not isinstance(v.type, ir.MemRefType):
            return
        t = ir.MemRefType(v.type)
        name = self.n(v)
        for i, s in enumerate(t.shape):
            if s == DYNAMIC:
                self.line(f"{name}_d{i} = {name}.shape[{i}]")

    def dim(self, v: ir.Value, i: int) -> str:
        s = ir.MemRefType(v.type).shape[i]
        return f"{self.n(v)}_d{i}" if s == DYNAMIC else str(s)

    def describe(self, v: ir.Value) -> str:
        try:
            return f"{v.get_name(self.asm)} ({v.type})"
        except Exception:
            return str(v.type)

    def assign(self, targets: list[str], sources: list[str]) -> None:
        if not targets:
            return
        if len(targets) == 1:
            self.line(f"{targets[0]} = {sources[0]}")
        else:
            self.line(f"{', '.join(targets)} = {', '.join(sources)}")

    # -- functions
    def write(self) -> None:
        body = func_body(self.fn)
        args = list(body.arguments)
        params = [self.define(a, "p") for a in args]
        self.u.lines.append(f"def {self.pyname}({', '.join(params)}):")
        self.u.tags.append(self.site)
        self.line(f"_n = _B[0] - {len(block_ops(body))}")
        self.line(f"if _n < 0: _budget({self.site})")
        for a, p in zip(args, params):
            self.entry_check(a, p)
        start = len(self.u.lines)
        try:
            blocks = list(self.fn.regions[0].blocks)
            if len(blocks) > 1:
                self.write_blocks(blocks)
            else:
                term = self.emit_ops(body)
                if term is None or term.name != "func.return":
                    raise _Unsupported("function body without func.return")
                self.ret(term)
        except _Unsupported as e:
            del self.u.lines[start:]
            del self.u.tags[start:]
            self.line(f"_unsupported({self.site}, {self.const(str(e))})")

    def ret(self, term: ir.Operation) -> None:
        self.line("_B[0] = _n")
        rets = [self.n(v) for v in term.operands]
        self.line(f"return ({''.join(r + ', ' for r in rets)})")

    def write_blocks(self, blocks: list[ir.Block]) -> None:
        """A body of several blocks (cf.br, cf.cond_br, cf.switch): a loop that dispatches on the
        number of the current block; a branch assigns the target's arguments, sets the number
        and continues. Blocks are written in reverse post-order so that every value is named
        before its uses (a dominator comes first); unreachable blocks come last."""
        for b in blocks[1:]:
            for a in b.arguments:
                self.define(a, "a")
        self.line("_blk = 0")
        self.line("while True:")
        self.depth += 1
        for k, i in enumerate(_block_order(blocks)):
            b = blocks[i]
            self.line(f"{'if' if k == 0 else 'elif'} _blk == {i}:")
            self.depth += 1
            if i:
                self.tick(len(block_ops(b)))
                for a in b.arguments:
                    self.bind_dims(a)
            ops = block_ops(b)
            for op in ops[:-1]:
                self.emit_op(op)
            self.emit_op(ops[-1], lambda w, op: _emit_branch(w, op, blocks))
            self.depth -= 1
        self.depth -= 1

    def entry_check(self, a: ir.Value, p: str) -> None:
        """Check and normalize an argument: memrefs must match dtype/rank/static dims, vectors
        become read-only arrays, scalars take their canonical form. A type the interpreter cannot
        hold makes the call fail when it runs."""
        t = a.type
        try:
            if is_memref(t):
                shape = memref_shape(t) if isinstance(t, ir.MemRefType) else None  # None: unranked
                spec = self.const((self.describe(a), memref_element_dtype(t), shape))
                self.line(f"_check_memref({p}, {spec}, {self.site})")
                if shape is not None:
                    self.bind_dims(a)
            elif isinstance(t, ir.VectorType):
                vk = vector_kind(t)
                spec = self.const((self.describe(a), vk.elem.dtype, vk.shape))
                self.line(f"{p} = _vector_arg({p}, {spec}, {self.site})")
            else:
                k = scalar_kind(t)
                if k is None:
                    raise _Unsupported(f"arguments of type {t}")
                self.line(f"{p} = _canon({p}, {self.const(k)})" if k.is_int else
                          f"{p} = {self.const(k.dtype.type)}({p})")
        except _Unsupported as e:
            self.line(f"_unsupported({self.site}, {self.const(str(e))})")

    # -- blocks
    def emit_ops(self, block: ir.Block) -> ir.Operation | None:
        """Emit every op of `block` but its terminator, which is returned for the parent to handle."""
        ops = block_ops(block)
        term = ops[-1] if ops and ops[-1].name in _TERMINATORS else None
        body = ops[:-1] if term is not None else ops
        for op in body:
            self.emit_op(op)
        return term

    def emit_op(self, op: ir.Operation, method=None) -> None:
        """Emit `op` with `method` (default: its registered emitter; arith/math ops on vectors
        are applied element by element). An op that cannot be translated becomes a call that
        raises InterpreterError when it is reached."""
        outer = self.site
        self.site = self.u.add_site(op)
        start, depth = len(self.u.lines), self.depth
        try:
            if method is None:
                method = _DISPATCH.get(op.name)
                if method is None:
                    raise _Unsupported("unsupported op")
                if _is_elementwise(op):
                    method = functools.partial(_emit_elementwise, scalar_method=method)
            method(self, op)
        except _Unsupported as e:
            del self.u.lines[start:]
            del self.u.tags[start:]
            self.depth = depth
            self.line(f"_unsupported({self.site}, {self.const(str(e))})")
            for r in op.results:  # later uses must still translate; they never run
                self.define(r)
        finally:
            self.site = outer

    def open_loop(self, iv: str, range_src: str, cost: int) -> None:
        """`for iv in range(...)`, charging `cost` ops per iteration to the budget before the loop
        starts (so a runaway loop is stopped before it runs); the body is indented after it."""
        if cost:
            r = self.fresh("_r")
            self.line(f"{r} = {range_src}")
            self.line(f"_n -= {cost} * len({r})")
            self.line(f"if _n < 0: _budget({self.site})")
            range_src = r
        self.line(f"for {iv} in {range_src}:")
        self.depth += 1

    def loop_body(self, block: ir.Block, iter_names: list[str]) -> None:
        """Emit the body of a loop opened by `open_loop`; its yield carries the new `iter_names`."""
        for a in list(block.arguments)[len(block.arguments) - len(iter_names):]:
            self.bind_dims(a)
        term = self.emit_ops(block)
        self.assign(iter_names, [self.n(v) for v in term.operands] if term is not None else [])
        self.line("pass")  # a block may be empty
        self.depth -= 1

    # -- memory access
    def index_names(self, exprs: list[str]) -> list[str]:
        """Store non-trivial index expressions in temporaries so they are computed once."""
        out = []
        for e in exprs:
            if e.isidentifier() or re.fullmatch(r"-?\d+", e):
                out.append(e)
            else:
                t = self.fresh("_t")
                self.line(f"{t} = {e}")
                out.append(t)
        return out

    def range_of(self, v: ir.Value) -> Range | None:
        c = self.const_ints.get(v)
        return (c, c) if c is not None else self.ranges.get(v)

    def element(self, mem: ir.Value, exprs: list[str], ranges: list[Range | None]) -> str:
        """Bounds-check indices `exprs` into `mem`; return the subscript expression.

        An index whose static range lies inside a static dim needs no runtime check.
        """
        name = self.n(mem)
        shape = ir.MemRefType(mem.type).shape
        if len(exprs) != len(shape):
            raise _Unsupported(f"access with {len(exprs)} indices into a rank-{len(shape)} memref")
        if not shape:
            return f"{name}[()]"
        idx = self.index_names(exprs)
        checks = [f"0 <= {x} < {self.dim(mem, i)}" for i, (x, r) in enumerate(zip(idx, ranges))
                  if not (r is not None and shape[i] != DYNAMIC and 0 <= r[0] and r[1] < shape[i])]
        if checks:
            what = self.const(self.describe(mem))
            self.line(f"if not ({' and '.join(checks)}): "
                      f"_oob({self.site}, ({''.join(x + ', ' for x in idx)}), {name}, {what})")
        return f"{name}[{', '.join(idx)}]"

    def load(self, op: ir.Operation, mem: ir.Value, exprs: list[str], ranges: list[Range | None]) -> None:
        ref = self.element(mem, exprs, ranges)
        r = op.results[0]
        k = self.kind(r)
        self.line(f"{self.define(r)} = {'int(' + ref + ')' if k.is_int else ref}")

    def store(self, value: ir.Value, mem: ir.Value, exprs: list[str], ranges: list[Range | None]) -> None:
        self.kind(value)
        memref_element_dtype(mem.type)
        ref = self.element(mem, exprs, ranges)
        self.line(f"{ref} = {self.n(value)}")

    def bound(self, m: ir.AffineMap, operands: list[str], combine: str) -> str:
        exprs = affine_map_sources(m, operands)
        if not exprs:
            raise _Unsupported("loop bound map without results")
        return exprs[0] if len(exprs) == 1 else f"{combine}({', '.join(exprs)})"


# --------------------------------------------------------------------------- op emitters

_DISPATCH: dict[str, callable] = {}


def _emits(*names):
    def deco(f):
        for nm in names:
            _DISPATCH[nm] = f
        return f
    return deco


# ---- func


@_emits("func.call")
def _e_call(w: _FuncWriter, op):
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    target = w.u.py_names.get(callee)
    if target is None:
        for r in op.results:
            w.define(r)
        w.line(f"_nobody({w.site}, {w.const(callee)})")
        return
    _emit_call(w, op, target, list(op.operands))


@_emits("func.constant")
def _e_func_constant(w: _FuncWriter, op):
    """A function value is the translated function (calling a bodiless one stops the run)."""
    callee = ir.FlatSymbolRefAttr(op.attributes["value"]).value
    target = w.u.py_names.get(callee)
    r = w.define(op.results[0])
    w.line(f"{r} = {target}" if target is not None else
           f"{r} = lambda *_a: _nobody({w.site}, {w.const(callee)})")


@_emits("func.call_indirect")
def _e_call_indirect(w: _FuncWriter, op):
    fn, *args = op.operands
    _emit_call(w, op, w.n(fn), args)


def _emit_call(w: _FuncWriter, op, target: str, operands: list) -> None:
    """Call a translated function on `operands` (memrefs are passed as the same arrays, so the
    callee's writes are the caller's); the op budget carries over."""
    args = ", ".join(w.n(v) for v in operands)
    results = [w.define(r) for r in op.results]
    w.line("_B[0] = _n")
    call = f"{target}({args})"
    if results:
        w.line(f"({''.join(r + ', ' for r in results)}) = {call}")
    else:
        w.line(call)
    w.line("_n = _B[0]")
    for r in op.results:
        w.bind_dims(r)


# ---- arith


@_emits("arith.constant")
def _e_constant(w, op):
    r = op.results[0]
    attr = op.attributes["value"]
    if isinstance(r.type, ir.VectorType):
        vk = w.vkind(r)
        arr = np.array(ir.DenseElementsAttr(attr)).astype(vk.elem.dtype).reshape(vk.shape)
        arr.flags.writeable = False
        w.line(f"{w.define(r)} = {w.const(arr)}")
        return
    k = w.kind(r)
    if k.is_int:
        v = canonical_int(ir.IntegerAttr(attr).value, k)
        w.const_ints[r] = v
        w.line(f"{w.define(r)} = {v}")
    else:
        w.line(f"{w.define(r)} = {w.const(k.dtype.type(ir.FloatAttr(attr).value))}")


def _int_binary_source(name: str, a: str, b: str, k: ScalarKind) -> str:
    sa, sb, ua, ub = _signed(a, k), _signed(b, k), _unsigned(a, k), _unsigned(b, k)
    w = k.width
    table = {
        "arith.addi": lambda: _wrap(f"{a} + {b}", k),
        "arith.subi": lambda: _wrap(f"{a} - {b}", k),
        "arith.muli": lambda: _wrap(f"{a} * {b}", k),
        "arith.divsi": lambda: _wrap(f"_divsi({sa}, {sb})", k),
        "arith.remsi": lambda: _wrap(f"_remsi({sa}, {sb})", k),
        "arith.divui": lambda: _wrap(f"{ua} // {ub}", k, force=True),
        "arith.remui": lambda: _wrap(f"{ua} % {ub}", k, force=True),
        "arith.floordivsi": lambda: _wrap(f"{sa} // {sb}", k),
        "arith.ceildivsi": lambda: _wrap(f"-((-{sa}) // {sb})", k),
        "arith.andi": lambda: f"({a} & {b})",
        "arith.ori": lambda: f"({a} | {b})",
        "arith.xori": lambda: f"({a} ^ {b})",
        "arith.maxsi": lambda: f"({a} if {sa} >= {sb} else {b})",
        "arith.minsi": lambda: f"({a} if {sa} <= {sb} else {b})",
        "arith.maxui": lambda: f"({a} if {ua} >= {ub} else {b})",
        "arith.minui": lambda: f"({a} if {ua} <= {ub} else {b})",
        "arith.shli": lambda: f"({_wrap(f'{a} << {ub}', k, force=True)} if {ub} < {w} else 0)",
        "arith.shrsi": lambda: f"({_wrap(f'{sa} >> {ub}', k)} if {ub} < {w} else 0)",
        "arith.shrui": lambda: f"({_wrap(f'{ua} >> {ub}', k, force=True)} if {ub} < {w} else 0)",
    }
    return table[name]()


_INT_BINARY_OPS = ("arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.remsi", "arith.divui",
                   "arith.remui", "arith.floordivsi", "arith.ceildivsi", "arith.andi", "arith.ori", "arith.xori",
                   "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.shli", "arith.shrsi",
                   "arith.shrui")


@_emits(*_INT_BINARY_OPS)
def _e_int_binary(w, op):
    r = op.results[0]
    k = w.kind(r)
    if not k.is_int:
        raise _Unsupported(f"operands of type {r.type}")
    a, b = (w.n(v) for v in op.operands)
    w.line(f"{w.define(r)} = {_int_binary_source(op.name, a, b, k)}")


@_emits("math.absi")
def _e_absi(w, op):
    r = op.results[0]
    k = w.kind(r)
    w.line(f"{w.define(r)} = {_wrap(f'abs({_signed(w.n(op.operands[0]), k)})', k)}")


@_emits("math.ctpop")
def _e_ctpop(w, op):
    r = op.results[0]
    w.line(f"{w.define(r)} = _ctpop({w.n(op.operands[0])}, {w.const(w.kind(r))})")


@_emits("arith.addui_extended")
def _e_addui_extended(w, op):
    k = w.kind(op.results[0])
    a, b = (_unsigned(w.n(v), k) for v in op.operands)
    t = w.fresh("_t")
    w.line(f"{t} = {a} + {b}")
    w.line(f"{w.define(op.results[0])} = {_wrap(t, k, force=True)}")
    w.line(f"{w.define(op.results[1])} = {t} >> {k.width}")


@_emits("arith.mulsi_extended", "arith.mului_extended")
def _e_mul_extended(w, op):
    k = w.kind(op.results[0])
    read = _signed if op.name == "arith.mulsi_extended" else _unsigned
    a, b = (read(w.n(v), k) for v in op.operands)
    t = w.fresh("_t")
    w.line(f"{t} = {a} * {b}")
    w.line(f"{w.define(op.results[0])} = {_wrap(t, k, force=True)}")
    w.line(f"{w.define(op.results[1])} = {_wrap(f'{t} >> {k.width}', k, force=True)}")


_FLOAT_OPERATORS = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}


@_emits(*_FLOAT_OPERATORS, *_BINARY_UFUNCS)
def _e_float_binary(w, op):
    r = op.results[0]
    if w.kind(r).kind != "float":
        raise _Unsupported(f"operands of type {r.type}")
    a, b = (w.n(v) for v in op.operands)
    if op.name in _FLOAT_OPERATORS:
        src = f"{a} {_FLOAT_OPERATORS[op.name]} {b}"
    else:
        src = f"_u_{_BINARY_UFUNCS[op.name]}({a}, {b})"
    w.line(f"{w.define(r)} = {src}")


@_emits("arith.negf", "math.rsqrt", "math.erf", "math.erfc", "math.round", *_UNARY_UFUNCS)
def _e_float_unary(w, op):
    r = op.results[0]
    k = w.kind(r)
    if k.kind != "float":
        raise _Unsupported(f"operands of type {r.type}")
    a = w.n(op.operands[0])
    if op.name == "arith.negf":
        src = f"-{a}"
    elif op.name == "math.rsqrt":
        src = f"{w.const(k.dtype.type(1))} / _u_sqrt({a})"
    elif op.name in ("math.erf", "math.erfc"):
        src = f"_{op.name[5:]}({a})"
    elif op.name == "math.round":
        src = f"_round_away({a})"
    elif op.name == "math.exp":
        src = f"_expf({a})"
    else:
        src = f"_u_{_UNARY_UFUNCS[op.name]}({a})"
    w.line(f"{w.define(r)} = {src}")


@_emits("math.fma")
def _e_fma(w, op):
    a, b, c = (w.n(v) for v in op.operands)
    w.line(f"{w.define(op.results[0])} = _fma({a}, {b}, {c})")


@_emits("math.fpowi")
def _e_fpowi(w, op):
    r, n_v = op.results[0], op.operands[1]
    if w.kind(r).kind != "float":
        raise _Unsupported(f"operands of type {r.type}")
    kn = w.kind(n_v)
    if kn.kind != "int" or isinstance(n_v.type, ir.VectorType):
        raise _Unsupported(f"an exponent of type {n_v.type} (one integer)")
    w.line(f"{w.define(r)} = _powi({w.n(op.operands[0])}, {_signed(w.n(n_v), kn)})")


@_emits("llvm.intr.ldexp")
def _e_ldexp(w, op):
    p, n = (w.n(v) for v in op.operands)
    w.kind(op.operands[1])
    w.line(f"{w.define(op.results[0])} = _ldexp({p}, {n})")


@_emits("llvm.call_intrinsic")
def _e_call_intrinsic(w, op):
    """LLVM's ldexp on vectors (codegen/cpu/math/math_approx.vector_ldexp): each lane by the scalar
    op's rule; any other intrinsic is not evaluated."""
    from .codegen.cpu.math.math_approx import is_vector_ldexp

    if not is_vector_ldexp(op) or len(op.operands) != 2:
        name = ir.StringAttr(op.attributes["intrin"]).value if "intrin" in op.attributes else "?"
        raise _Unsupported(f"the intrinsic {name}")
    _emit_elementwise(w, op, _e_ldexp)


@_emits("math.isnan", "math.isinf", "math.isfinite")
def _e_float_class(w, op):
    a = w.n(op.operands[0])
    test = {"math.isnan": f"{a} != {a}", "math.isinf": f"abs({a}) == _math.inf",
            "math.isfinite": f"abs({a}) < _math.inf"}[op.name]
    w.line(f"{w.define(op.results[0])} = (1 if {test} else 0)")


@_emits("arith.cmpi")
def _e_cmpi(w, op):
    a_v, b_v = op.operands
    k = w.kind(a_v)
    sym, sign = _CMPI[_int_attr(op, "predicate")]
    a, b = w.n(a_v), w.n(b_v)
    if sign == "s":
        a, b = _signed(a, k), _signed(b, k)
    elif sign == "u":
        a, b = _unsigned(a, k), _unsigned(b, k)
    w.line(f"{w.define(op.results[0])} = (1 if {a} {sym} {b} else 0)")


@_emits("arith.cmpf")
def _e_cmpf(w, op):
    a, b = (w.n(v) for v in op.operands)
    w.kind(op.operands[0])
    cond = _CMPF[_int_attr(op, "predicate")].format(a=a, b=b)
    w.line(f"{w.define(op.results[0])} = (1 if {cond} else 0)")


@_emits("arith.select")
def _e_select(w, op):
    c, t, f = (w.n(v) for v in op.operands)
    if w.kind(op.operands[0]).kind != "int":
        raise _Unsupported(f"select on a condition of type {op.operands[0].type}")
    r = op.results[0]
    w.line(f"{w.define(r)} = ({t} if {c} else {f})")
    w.bind_dims(r)


@_emits("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci")
def _e_int_cast(w, op):
    src, r = op.operands[0], op.results[0]
    ks, kd = w.kind(src), w.kind(r)
    a = w.n(src)
    unsigned = op.name in ("arith.index_castui", "arith.extui")
    widening = kd.kind == "index" or (ks.kind != "index" and kd.width > ks.width)
    if widening:
        src_expr = _unsigned(a, ks) if unsigned else _signed(a, ks)
        out = src_expr if kd.kind == "index" else _wrap(src_expr, kd)
    else:
        out = _wrap(a, kd, force=True)
    w.line(f"{w.define(r)} = {out}")


@_emits("arith.sitofp", "arith.uitofp")
def _e_int_to_float(w, op):
    src, r = op.operands[0], op.results[0]
    ks, kd = w.kind(src), w.kind(r)
    a = w.n(src)
    v = _signed(a, ks) if op.name == "arith.sitofp" else _unsigned(a, ks)
    w.line(f"{w.define(r)} = _itofp({v}, {w.const(kd.dtype.type)})")


@_emits("arith.fptosi", "arith.fptoui")
def _e_float_to_int(w, op):
    r = op.results[0]
    k = w.kind(r)
    unsigned = op.name == "arith.fptoui"
    w.line(f"{w.define(r)} = _fptoi({w.n(op.operands[0])}, {w.const(k)}, {unsigned})")


@_emits("arith.extf", "arith.truncf")
def _e_float_cast(w, op):
    r = op.results[0]
    k = w.kind(r)
    w.kind(op.operands[0])
    w.line(f"{w.define(r)} = {w.const(k.dtype.type)}({w.n(op.operands[0])})")


@_emits("arith.bitcast")
def _e_bitcast(w, op):
    src, r = op.operands[0], op.results[0]
    ks, kd = w.kind(src), w.kind(r)
    if ks.dtype is None or kd.dtype is None or ks.width == 1:
        raise _Unsupported(f"bitcast from {src.type} to {r.type}")
    src_dt = np.dtype(f"i{ks.width // 8}") if ks.is_int else ks.dtype
    dst_dt = np.dtype(f"i{kd.width // 8}") if kd.is_int else kd.dtype
    w.line(f"{w.define(r)} = _bitcast({w.n(src)}, {w.const(src_dt)}, {w.const(dst_dt)})")


# ---- affine


def _affine_indices(w: _FuncWriter, op, operands) -> tuple[list[str], list[Range | None]]:
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    return (affine_map_sources(amap, [w.n(v) for v in operands]),
            affine_map_ranges(amap, [w.range_of(v) for v in operands]))


@_emits("affine.load")
def _e_affine_load(w, op):
    mem, *rest = op.operands
    w.load(op, mem, *_affine_indices(w, op, rest))


@_emits("affine.store")
def _e_affine_store(w, op):
    value, mem, *rest = op.operands
    w.store(value, mem, *_affine_indices(w, op, rest))


@_emits("affine.apply", "affine.min", "affine.max")
def _e_affine_apply(w, op):
    exprs = affine_map_sources(ir.AffineMapAttr(op.attributes["map"]).value, [w.n(v) for v in op.operands])
    ranges = affine_map_ranges(ir.AffineMapAttr(op.attributes["map"]).value, [w.range_of(v) for v in op.operands])
    if op.name == "affine.apply" or len(exprs) == 1:
        src = exprs[0]
    else:
        src = f"{op.name[7:]}({', '.join(exprs)})"
    r = op.results[0]
    w.line(f"{w.define(r)} = {src}")
    if all(x is not None for x in ranges):
        pick = min if op.name == "affine.min" else max
        w.ranges[r] = ranges[0] if len(ranges) == 1 else (pick(x[0] for x in ranges), pick(x[1] for x in ranges))


@_emits("affine.prefetch", "memref.dealloc")
def _e_nothing(w, op):
    w.line("pass")


@_emits("affine.for")
def _e_affine_for(w, op):
    seg = [int(x) for x in op.attributes["operandSegmentSizes"]]
    operands = [w.n(v) for v in op.operands]
    lb_ops, ub_ops = operands[: seg[0]], operands[seg[0]: seg[0] + seg[1]]
    inits = operands[seg[0] + seg[1]:]
    lb = w.bound(ir.AffineMapAttr(op.attributes["lowerBoundMap"]).value, lb_ops, "max")
    ub = w.bound(ir.AffineMapAttr(op.attributes["upperBoundMap"]).value, ub_ops, "min")
    step = _int_attr(op, "step")
    body = _single_block(op.regions[0])
    args = list(body.arguments)
    iv = w.define(args[0], "i")
    seg_vals = list(op.operands)
    iv_range = loop_range(
        affine_map_ranges(ir.AffineMapAttr(op.attributes["lowerBoundMap"]).value,
                          [w.range_of(v) for v in seg_vals[: seg[0]]]),
        affine_map_ranges(ir.AffineMapAttr(op.attributes["upperBoundMap"]).value,
                          [w.range_of(v) for v in seg_vals[seg[0]: seg[0] + seg[1]]]))
    if iv_range is not None:
        w.ranges[args[0]] = iv_range
    _emit_loop(w, op, iv, f"range({lb}, {ub}{'' if step == 1 else f', {step}'})", body, args, inits)


def _emit_loop(w, op, iv: str, range_src: str, body, args, inits) -> None:
    """The loop itself, shared by affine.for and scf.for: iter_args carried in Python locals,
    the body, and the op's results bound to the final iter values."""
    iters = [w.define(a, "a") for a in args[1:]]
    w.assign(iters, inits)
    w.open_loop(iv, range_src, len(block_ops(body)))
    w.loop_body(body, iters)
    for r, name in zip(op.results, iters):
        w.names[r] = name
        w.bind_dims(r)


@_emits("affine.if")
def _e_affine_if(w, op):
    amap, eqs = integer_set_constraints(op.attributes["condition"])
    exprs = affine_map_sources(amap, [w.n(v) for v in op.operands])
    cond = " and ".join(f"{e} {'==' if eq else '>='} 0" for e, eq in zip(exprs, eqs)) or "True"
    _emit_if(w, op, cond)


def _emit_if(w: _FuncWriter, op, cond: str) -> None:
    results = [w.define(r) for r in op.results]
    then_block = _single_block(op.regions[0])
    else_block = _single_block(op.regions[1]) if len(op.regions) > 1 else None
    w.line(f"if {cond}:")
    for block in (then_block, else_block):
        if block is None:
            continue
        if block is else_block:
            w.line("else:")
        w.depth += 1
        start = len(w.u.lines)
        term = w.emit_ops(block)
        w.assign(results, [w.n(v) for v in term.operands] if term is not None else [])
        if len(w.u.lines) == start:
            w.line("pass")
        w.depth -= 1
    for r in op.results:
        w.bind_dims(r)


def _reduction_source(kind: str, acc: str, val: str, k: ScalarKind) -> str:
    """Combine accumulator `acc` with `val` for an affine.parallel reduction kind."""
    if kind == "assign":
        return val
    arith = {"addf": "arith.addf", "mulf": "arith.mulf", "maximumf": "arith.maximumf",
             "minimumf": "arith.minimumf", "maxnumf": "arith.maxnumf", "minnumf": "arith.minnumf"}
    if kind in arith:
        name = arith[kind]
        if name in _FLOAT_OPERATORS:
            return f"{acc} {_FLOAT_OPERATORS[name]} {val}"
        return f"_u_{_BINARY_UFUNCS[name]}({acc}, {val})"
    ints = {"addi": "arith.addi", "muli": "arith.muli", "andi": "arith.andi", "ori": "arith.ori",
            "xori": "arith.xori", "maxs": "arith.maxsi", "mins": "arith.minsi", "maxu": "arith.maxui",
            "minu": "arith.minui"}
    return _int_binary_source(ints[kind], acc, val, k)


def _reduction_identity(kind: str, k: ScalarKind):
    if k.kind == "float":
        ident = {"addf": 0.0, "mulf": 1.0, "maximumf": -math.inf, "maxnumf": -math.inf,
                 "minimumf": math.inf, "minnumf": math.inf}
        if kind not in ident:
            raise _Unsupported(f"reduction {kind} on {k.kind}")
        return k.dtype.type(ident[kind])
    half = 1 << (k.width - 1)
    ident = {"addi": 0, "ori": 0, "xori": 0, "maxu": 0, "muli": 1, "andi": -1, "maxs": -half,
             "mins": half - 1, "minu": -1}
    if kind not in ident:
        raise _Unsupported(f"reduction {kind} on {k.kind}")
    return canonical_int(ident[kind], k)


@_emits("affine.parallel")
def _e_affine_parallel(w, op):
    lb_map = ir.AffineMapAttr(op.attributes["lowerBoundsMap"]).value
    ub_map = ir.AffineMapAttr(op.attributes["upperBoundsMap"]).value
    lb_groups = [int(x) for x in op.attributes["lowerBoundsGroups"]]
    ub_groups = [int(x) for x in op.attributes["upperBoundsGroups"]]
    steps = [ir.IntegerAttr(s).value for s in op.attributes["steps"]]
    kinds = [_RMW_KINDS[ir.IntegerAttr(x).value] for x in op.attributes["reductions"]]
    operands = [w.n(v) for v in op.operands]
    lbs = affine_map_sources(lb_map, operands[: lb_map.n_inputs])
    ubs = affine_map_sources(ub_map, operands[lb_map.n_inputs:])

    def grouped(exprs, groups, combine):
        out, i = [], 0
        for g in groups:
            part = exprs[i: i + g]
            out.append(part[0] if g == 1 else f"{combine}({', '.join(part)})")
            i += g
        return out

    lb_ranges = affine_map_ranges(lb_map, [w.range_of(v) for v in op.operands[: lb_map.n_inputs]])
    ub_ranges = affine_map_ranges(ub_map, [w.range_of(v) for v in op.operands[lb_map.n_inputs:]])
    lbs, ubs = grouped(lbs, lb_groups, "max"), grouped(ubs, ub_groups, "min")
    body = _single_block(op.regions[0])
    lo_at = hi_at = 0
    for iv_v, lg, ug in zip(body.arguments, lb_groups, ub_groups):
        iv_range = loop_range(lb_ranges[lo_at: lo_at + lg], ub_ranges[hi_at: hi_at + ug])
        lo_at, hi_at = lo_at + lg, hi_at + ug
        if iv_range is not None:
            w.ranges[iv_v] = iv_range
    rkinds = [w.kind(r) for r in op.results]
    accs = [w.define(r, "acc") for r in op.results]
    for acc, kind, k in zip(accs, kinds, rkinds):
        w.line(f"{acc} = {_literal(w, _reduction_identity(kind, k))}")
    depth0 = w.depth
    ivs = list(body.arguments)
    for d, (iv_v, lb, ub, st) in enumerate(zip(ivs, lbs, ubs, steps)):
        cost = len(block_ops(body)) if d == len(ivs) - 1 else 0
        w.open_loop(w.define(iv_v, "i"), f"range({lb}, {ub}{'' if st == 1 else f', {st}'})", cost)
    term = w.emit_ops(body)
    for acc, kind, k, v in zip(accs, kinds, rkinds, term.operands if term is not None else []):
        w.line(f"{acc} = {_reduction_source(kind, acc, w.n(v), k)}")
    w.depth = depth0


def _literal(w: _FuncWriter, value) -> str:
    return str(value) if isinstance(value, int) else w.const(value)


# ---- scf


@_emits("scf.for")
def _e_scf_for(w, op):
    lb, ub, st, *inits = (w.n(v) for v in op.operands)
    body = _single_block(op.regions[0])
    args = list(body.arguments)
    step_const = w.const_ints.get(op.operands[2])
    if step_const is None or step_const <= 0:
        w.line(f"if {st} <= 0: _bad_step({w.site}, {st})")
    iv = w.define(args[0], "i")
    iv_range = loop_range([w.range_of(op.operands[0])], [w.range_of(op.operands[1])])
    if iv_range is not None and isinstance(args[0].type, ir.IndexType):
        w.ranges[args[0]] = iv_range
    _emit_loop(w, op, iv, f"range({lb}, {ub}, {st})", body, args, inits)


@_emits("scf.if")
def _e_scf_if(w, op):
    _emit_if(w, op, w.n(op.operands[0]))


@_emits("scf.while")
def _e_scf_while(w, op):
    before = _single_block(op.regions[0])
    after = _single_block(op.regions[1])
    b_args = [w.define(a, "a") for a in before.arguments]
    w.assign(b_args, [w.n(v) for v in op.operands])
    results = [w.define(r) for r in op.results]
    w.line("while True:")
    w.depth += 1
    w.tick(len(block_ops(before)) + len(block_ops(after)))
    for a in before.arguments:
        w.bind_dims(a)
    cond_op = w.emit_ops(before)
    cond, *passed = (w.n(v) for v in cond_op.operands)
    w.line(f"if not {cond}:")
    w.depth += 1
    w.assign(results, passed)
    w.line("break")
    w.depth -= 1
    a_args = [w.define(a, "a") for a in after.arguments]
    w.assign(a_args, passed)
    for a in after.arguments:
        w.bind_dims(a)
    term = w.emit_ops(after)
    w.assign(b_args, [w.n(v) for v in term.operands])
    w.depth -= 1
    for r in op.results:
        w.bind_dims(r)


@_emits("scf.execute_region", "memref.alloca_scope")
def _e_execute_region(w, op):
    body = _single_block(op.regions[0])
    results = [w.define(r) for r in op.results]
    term = w.emit_ops(body)
    w.assign(results, [w.n(v) for v in term.operands] if term is not None else [])
    for r in op.results:
        w.bind_dims(r)


@_emits("scf.parallel")
def _e_scf_parallel(w, op):
    seg = [int(x) for x in op.attributes["operandSegmentSizes"]]
    names = [w.n(v) for v in op.operands]
    lbs, rest = names[: seg[0]], names[seg[0]:]
    ubs, rest = rest[: seg[1]], rest[seg[1]:]
    steps, inits = rest[: seg[2]], rest[seg[2]:]
    body = _single_block(op.regions[0])
    accs = [w.define(r, "acc") for r in op.results]
    w.assign(accs, inits)
    depth0 = w.depth
    for st in steps:
        w.line(f"if {st} <= 0: _bad_step({w.site}, {st})")
    ivs = list(body.arguments)
    for d, (iv_v, lb, ub, st) in enumerate(zip(ivs, lbs, ubs, steps)):
        cost = len(block_ops(body)) if d == len(ivs) - 1 else 0
        w.open_loop(w.define(iv_v, "i"), f"range({lb}, {ub}, {st})", cost)
    term = w.emit_ops(body)
    if term is not None and term.name == "scf.reduce":
        for acc, v, region in zip(accs, term.operands, term.regions):
            rblock = _single_block(region)
            lhs, rhs = rblock.arguments
            w.assign([w.define(lhs, "a"), w.define(rhs, "a")], [acc, w.n(v)])
            ret = w.emit_ops(rblock)
            w.line(f"{acc} = {w.n(ret.operands[0])}")
    w.depth = depth0


# ---- cf (multi-block function bodies)


def _block_index(blocks: list[ir.Block], b: ir.Block) -> int:
    for i, x in enumerate(blocks):
        if x == b:
            return i
    raise _Unsupported("branch to a block of another region")


def _successors(blocks: list[ir.Block], i: int) -> list[int]:
    ops = block_ops(blocks[i])
    return [_block_index(blocks, b) for b in ops[-1].successors] if ops else []


def _block_order(blocks: list[ir.Block]) -> list[int]:
    """Block numbers in reverse post-order from the entry block, then the unreachable ones."""
    seen, post = {0}, []
    stack = [(0, iter(_successors(blocks, 0)))]
    while stack:
        node, it = stack[-1]
        nxt = next((b for b in it if b not in seen), None)
        if nxt is None:
            post.append(node)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(_successors(blocks, nxt))))
    return post[::-1] + [i for i in range(len(blocks)) if i not in seen]


def _jump(w: _FuncWriter, blocks: list[ir.Block], target: ir.Block, values) -> None:
    """Pass `values` to the arguments of `target` (all at once) and make it the current block."""
    w.assign([w.n(a) for a in target.arguments], [w.n(v) for v in values])
    w.line(f"_blk = {_block_index(blocks, target)}")


def _emit_branch(w: _FuncWriter, op, blocks: list[ir.Block]) -> None:
    """The terminator of one block of a multi-block body (see `_FuncWriter.write_blocks`)."""
    if op.name == "func.return":
        w.ret(op)
        return
    succ = list(op.successors)
    operands = list(op.operands)
    if op.name == "cf.br":
        _jump(w, blocks, succ[0], operands)
    elif op.name == "cf.cond_br":
        n_true = [int(x) for x in op.attributes["operandSegmentSizes"]][1]
        w.line(f"if {w.n(operands[0])}:")
        w.depth += 1
        _jump(w, blocks, succ[0], operands[1: 1 + n_true])
        w.depth -= 1
        w.line("else:")
        w.depth += 1
        _jump(w, blocks, succ[1], operands[1 + n_true:])
        w.depth -= 1
    elif op.name == "cf.switch":
        _emit_switch(w, op, blocks, succ, operands)
    else:
        raise _Unsupported("unsupported block terminator")
    w.line("continue")


def _emit_switch(w: _FuncWriter, op, blocks, succ, operands) -> None:
    """cf.switch: the first case whose value equals the flag, else the default destination."""
    flag = operands[0]
    k = w.kind(flag)
    n_default = [int(x) for x in op.attributes["operandSegmentSizes"]][1]
    cases = [canonical_int(int(x), k) for x in op.attributes["case_values"]] \
        if "case_values" in op.attributes else []
    sizes = [int(x) for x in op.attributes["case_operand_segments"]] if cases else []
    at = 1 + n_default
    for c, (value, size) in enumerate(zip(cases, sizes)):
        w.line(f"{'if' if c == 0 else 'elif'} {w.n(flag)} == {value}:")
        w.depth += 1
        _jump(w, blocks, succ[1 + c], operands[at: at + size])
        w.depth -= 1
        at += size
    if cases:
        w.line("else:")
        w.depth += 1
    _jump(w, blocks, succ[0], operands[1: 1 + n_default])
    if cases:
        w.depth -= 1


@_emits("cf.assert")
def _e_assert(w, op):
    msg = ir.StringAttr(op.attributes["msg"]).value if "msg" in op.attributes else ""
    w.line(f"if not {w.n(op.operands[0])}: _assert_failed({w.site}, {w.const(msg)})")


# ---- memref


@_emits("memref.alloc", "memref.alloca")
def _e_alloc(w, op):
    r = op.results[0]
    t = ir.MemRefType(r.type)
    dt = memref_element_dtype(r.type)
    dyn = iter(op.operands)
    dims = [str(s) if s != DYNAMIC else w.n(next(dyn)) for s in t.shape]
    w.line(f"{w.define(r)} = _alloc(({''.join(d + ', ' for d in dims)}), {w.const(dt)}, {w.site})")
    w.bind_dims(r)


@_emits("memref.load")
def _e_memref_load(w, op):
    mem, *idx = op.operands
    w.load(op, mem, [w.n(v) for v in idx], [w.range_of(v) for v in idx])


@_emits("memref.store")
def _e_memref_store(w, op):
    value, mem, *idx = op.operands
    w.store(value, mem, [w.n(v) for v in idx], [w.range_of(v) for v in idx])


@_emits("memref.dim")
def _e_dim(w, op):
    mem, index = op.operands
    r = op.results[0]
    rank = len(ir.MemRefType(mem.type).shape) if isinstance(mem.type, ir.MemRefType) else -1
    const = w.const_ints.get(index)
    if const is not None and 0 <= const < rank:
        w.line(f"{w.define(r)} = {w.dim(mem, const)}")
    else:
        w.line(f"{w.define(r)} = _dim({w.n(mem)}, {w.n(index)}, {w.site})")


@_emits("memref.cast", "memref.assume_alignment", "memref.memory_space_cast")
def _e_cast(w, op):
    src = op.operands[0]
    if not op.results:
        w.line("pass")
        return
    r = op.results[0]
    if not is_memref(r.type):
        raise _Unsupported(f"cast to {r.type}")
    name = w.define(r)
    w.line(f"{name} = {w.n(src)}")  # the same array: a cast never copies
    if isinstance(r.type, ir.MemRefType):
        dst_shape = memref_shape(r.type)
        # from unranked: rank and static dims are checked; between ranked types: the static dims
        # the source did not already guarantee
        if not isinstance(src.type, ir.MemRefType) or any(
                d is not None and s is None for s, d in zip(memref_shape(src.type), dst_shape)):
            w.line(f"_check_shape({name}, {w.const(dst_shape)}, {w.site})")
        w.bind_dims(r)


@_emits("memref.rank")
def _e_rank(w, op):
    w.line(f"{w.define(op.results[0])} = {w.n(op.operands[0])}.ndim")


@_emits("memref.reshape")
def _e_memref_reshape(w, op):
    """memref.reshape: the result shape is read from a 1-D memref when the op runs; the result
    is a view of the (contiguous) source."""
    src, shape_mem = op.operands
    r = op.results[0]
    static = memref_shape(r.type) if isinstance(r.type, ir.MemRefType) else None
    w.line(f"{w.define(r)} = _shape_reshape({w.n(src)}, {w.n(shape_mem)}, {w.const(static)}, {w.site})")
    w.bind_dims(r)


def _rank_reduction_keep(sizes: list[int], result_shape: list[int]) -> list[bool]:
    """Which source dims a rank-reducing subview keeps: match sizes in order, drop unmatched unit dims."""
    keep, j = [], 0
    for s in sizes:
        if j < len(result_shape) and s == result_shape[j]:
            keep.append(True)
            j += 1
        elif s == 1:
            keep.append(False)
        else:
            raise _Unsupported("subview whose rank reduction cannot be matched")
    if j != len(result_shape):
        raise _Unsupported("subview whose rank reduction cannot be matched")
    return keep


@_emits("memref.subview")
def _e_subview(w, op):
    seg = [int(x) for x in op.attributes["operandSegmentSizes"]]
    names = [w.n(v) for v in op.operands]
    src = names[0]
    dyn = [iter(names[1: 1 + seg[1]]), iter(names[1 + seg[1]: 1 + seg[1] + seg[2]]),
           iter(names[1 + seg[1] + seg[2]:])]
    parts = []
    for attr, it in zip(("static_offsets", "static_sizes", "static_strides"), dyn):
        parts.append([str(s) if s != DYNAMIC else next(it) for s in _i64_array(op, attr)])
    r = op.results[0]
    keep = _rank_reduction_keep(_i64_array(op, "static_sizes"), list(ir.MemRefType(r.type).shape))
    tup = lambda xs: f"({''.join(x + ', ' for x in xs)})"  # noqa: E731
    w.line(f"{w.define(r)} = _subview({src}, {tup(parts[0])}, {tup(parts[1])}, {tup(parts[2])}, "
           f"{w.const(tuple(keep))}, {w.site})")
    w.bind_dims(r)


@_emits("memref.copy")
def _e_copy(w, op):
    src, dst = (w.n(v) for v in op.operands)
    w.line(f"_copy({src}, {dst}, {w.site})")


@_emits("memref.expand_shape", "memref.collapse_shape")
def _e_reshape(w, op):
    src = op.operands[0]
    r = op.results[0]
    t = ir.MemRefType(r.type)
    if op.name == "memref.expand_shape":
        dyn = iter(w.n(v) for v in op.operands[1:])
        shape = [str(s) if s != DYNAMIC else next(dyn) for s in t.shape]
    else:
        groups = [[int(ir.IntegerAttr(i).value) for i in g] for g in op.attributes["reassociation"]]
        shape = []
        for g in groups:
            shape.append(" * ".join(w.dim(src, i) for i in g) if g else "1")
    w.line(f"{w.define(r)} = _reshape({w.n(src)}, ({''.join(s + ', ' for s in shape)}), {w.site})")
    w.bind_dims(r)


@_emits("memref.get_global")
def _e_get_global(w, op):
    name = ir.FlatSymbolRefAttr(op.attributes["name"]).value
    if name not in w.u.globals_info:
        raise _Unsupported(f"global @{name} is not a memref.global of this module")
    r = op.results[0]
    w.line(f"{w.define(r)} = _global({w.const(name)})")
    w.bind_dims(r)


# ---- vector (values are fresh read-only numpy arrays of the element dtype, never memory views)


def _is_elementwise(op: ir.Operation) -> bool:
    """arith and math ops on vectors act element by element (arith.constant and a select on a
    scalar condition are the exceptions: they handle whole vectors themselves)."""
    if not op.name.startswith(("arith.", "math.")) or op.name == "arith.constant":
        return False
    if op.name == "arith.select" and not isinstance(op.operands[0].type, ir.VectorType):
        return False
    return any(isinstance(v.type, ir.VectorType) for v in [*op.operands, *op.results])


def _emit_elementwise(w: _FuncWriter, op, scalar_method) -> None:
    """Run the scalar emitter of `op` once per element: a Python loop over the flat index binds
    every vector operand to its element, runs the scalar code, and stores each result element
    into a fresh array. The scalar rules (wrap-around, rounding, poison) are thus the same."""
    kinds = [w.vkind(v) for v in [*op.operands, *op.results]]
    shape = kinds[0].shape
    if any(k.shape != shape for k in kinds):
        raise _Unsupported("elementwise op on vectors of different shapes")
    outs = [w.fresh("vec") for _ in op.results]
    for name, r in zip(outs, op.results):
        w.line(f"{name} = _np.empty({shape!r}, {w.const(w.vkind(r).elem.dtype)})")
    j = w.fresh("_j")
    w.line(f"for {j} in range({kinds[0].numel}):")
    operands = list(dict.fromkeys(op.operands))
    saved = {v: w.n(v) for v in operands}
    w.depth += 1
    w.elementwise = True
    try:
        for v in operands:
            e = w.fresh("e")
            read = f"{saved[v]}.flat[{j}]"
            w.line(f"{e} = {'int(' + read + ')' if w.kind(v).is_int else read}")
            w.names[v] = e
        scalar_method(w, op)
        for name, r in zip(outs, op.results):
            w.line(f"{name}.flat[{j}] = {w.n(r)}")
    finally:
        w.elementwise = False
        w.names.update(saved)
        w.depth -= 1
    for name, r in zip(outs, op.results):
        w.line(f"{name}.flags.writeable = False")
        w.names[r] = name


@_emits("ub.poison")
def _e_poison(w, op):
    """poison (e.g. the padding of a transfer whose out-of-bounds lanes are never used) takes
    the pattern of uninitialized memory: NaN or 0xA5 bytes, so a use that matters shows."""
    r = op.results[0]
    if isinstance(r.type, ir.VectorType):
        vk = w.vkind(r)
        arr = _uninitialized(vk.shape, vk.elem.dtype)
        arr.flags.writeable = False
        w.line(f"{w.define(r)} = {w.const(arr)}")
        return
    k = w.kind(r)
    if k.dtype is None:
        raise _Unsupported(f"poison of type {r.type}")
    value = _uninitialized((), k.dtype)[()]
    w.line(f"{w.define(r)} = {canonical_int(value, k) if k.is_int else w.const(value)}")


@_emits("vector.broadcast", "vector.splat")
def _e_broadcast(w, op):
    """A scalar fills the vector; a vector is stretched along its unit and missing leading dims."""
    src, r = op.operands[0], op.results[0]
    vk = w.vkind(r)
    name = w.define(r)
    if isinstance(src.type, ir.VectorType):
        w.vkind(src)
        w.line(f"{name} = _np.broadcast_to({w.n(src)}, {vk.shape!r}).copy()")
    else:
        w.kind(src)
        w.line(f"{name} = _np.full({vk.shape!r}, {w.n(src)}, {w.const(vk.elem.dtype)})")
    w.line(f"{name}.flags.writeable = False")


# vector.reduction kinds -> (_reduction_source kind for floats, for integers)
_VECTOR_COMBINING = {
    "add": ("addf", "addi"), "mul": ("mulf", "muli"), "minui": (None, "minu"), "minsi": (None, "mins"),
    "maxui": (None, "maxu"), "maxsi": (None, "maxs"), "and": (None, "andi"), "or": (None, "ori"),
    "xor": (None, "xori"), "minnumf": ("minnumf", None), "maxnumf": ("maxnumf", None),
    "minimumf": ("minimumf", None), "maximumf": ("maximumf", None),
}


@_emits("vector.reduction")
def _e_vector_reduction(w, op):
    """Float add/mul fold in element order starting from the accumulator (or +0.0 / 1.0), as
    the ordered LLVM reductions do; the other kinds fold the elements, then the accumulator."""
    m = re.fullmatch(r"#vector\.kind<(\w+)>", str(op.attributes["kind"]))
    vec, r = op.operands[0], op.results[0]
    vk, k = w.vkind(vec), w.kind(r)
    kind = _VECTOR_COMBINING.get(m.group(1) if m else "", (None, None))[1 if k.is_int else 0]
    if kind is None or vk.numel == 0:
        raise _Unsupported(f"reduction {op.attributes['kind']} on {vec.type}")
    src = w.n(vec)
    acc = w.define(r)
    e = w.fresh("e")
    elems = lambda start: f"{src}.flat[{start}:]" if not k.is_int else f"map(int, {src}.flat[{start}:])"  # noqa: E731
    has_acc = len(op.operands) > 1
    if kind in ("addf", "mulf"):
        init = w.n(op.operands[1]) if has_acc else w.const(k.dtype.type(0.0 if kind == "addf" else 1.0))
        w.line(f"{acc} = {init}")
        w.line(f"for {e} in {elems(0)}:")
    else:
        w.line(f"{acc} = {'int(' + src + '.flat[0])' if k.is_int else src + '.flat[0]'}")
        w.line(f"for {e} in {elems(1)}:")
    w.line(f"    {acc} = {_reduction_source(kind, acc, e, k)}")
    if has_acc and kind not in ("addf", "mulf"):
        w.line(f"{acc} = {_reduction_source(kind, acc, w.n(op.operands[1]), k)}")


@_emits("vector.extract")
def _e_vector_extract(w, op):
    """Static or dynamic positions (bounds-checked) into the leading dims; a scalar or a copy."""
    src, *dyn = op.operands
    vk = w.vkind(src)
    dyn_it = iter(w.n(v) for v in dyn)
    idx = []
    for d, p in enumerate(_i64_array(op, "static_position")):
        if p == DYNAMIC:
            x = next(dyn_it)
            w.line(f"if not 0 <= {x} < {vk.shape[d]}: _oob({w.site}, ({x},), {w.n(src)}, "
                   f"{w.const(w.describe(src))})")
            idx.append(x)
        elif not 0 <= p < vk.shape[d]:
            raise _Unsupported(f"vector.extract at the poison position {p}")
        else:
            idx.append(str(p))
    r = op.results[0]
    ref = f"{w.n(src)}[{', '.join(idx)}{',' if len(idx) == 1 else ''}]" if idx else f"{w.n(src)}[()]"
    if isinstance(r.type, ir.VectorType):
        w.line(f"{w.define(r)} = {ref}.copy()")
    else:
        w.line(f"{w.define(r)} = {'int(' + ref + ')' if w.kind(r).is_int else ref}")


@_emits("vector.insert")
def _e_vector_insert(w, op):
    """A copy of the destination with one element (static or dynamic position, bounds-checked)
    replaced; 1-D vectors and a scalar source only."""
    src, dest, *dyn = op.operands
    vk = w.vkind(dest)
    pos = _i64_array(op, "static_position")
    if len(vk.shape) != 1 or len(pos) != 1 or isinstance(src.type, ir.VectorType):
        raise _Unsupported(f"vector.insert into {dest.type}")
    if pos[0] == DYNAMIC:
        x = w.n(dyn[0])
        w.line(f"if not 0 <= {x} < {vk.shape[0]}: _oob({w.site}, ({x},), {w.n(dest)}, {w.const(w.describe(dest))})")
    elif not 0 <= pos[0] < vk.shape[0]:
        raise _Unsupported(f"vector.insert at the poison position {pos[0]}")
    else:
        x = str(pos[0])
    name = w.define(op.results[0])
    w.line(f"{name} = {w.n(dest)}.copy()")
    w.line(f"{name}[{x}] = {w.n(src)}")
    w.line(f"{name}.flags.writeable = False")


@_emits("vector.shuffle")
def _e_vector_shuffle(w, op):
    """Lanes of the two 1-D operands, concatenated, picked by the mask."""
    a, b = op.operands
    vk = w.vkind(op.results[0])
    if len(w.vkind(a).shape) != 1 or len(vk.shape) != 1:
        raise _Unsupported(f"vector.shuffle of {a.type}")
    mask = list(_i64_array(op, "mask"))
    if any(m < 0 for m in mask):
        raise _Unsupported("vector.shuffle with a poison lane")
    name = w.define(op.results[0])
    w.line(f"{name} = _np.concatenate(({w.n(a)}, {w.n(b)}))[{w.const(mask)}]")
    w.line(f"{name}.flags.writeable = False")


@_emits("vector.from_elements")
def _e_from_elements(w, op):
    vk = w.vkind(op.results[0])
    if len(vk.shape) != 1:
        raise _Unsupported(f"vector.from_elements of {op.results[0].type}")
    name = w.define(op.results[0])
    elems = ", ".join(w.n(v) for v in op.operands)
    w.line(f"{name} = _np.array([{elems}], dtype={w.const(vk.elem.dtype)})")
    w.line(f"{name}.flags.writeable = False")


@_emits("vector.create_mask")
def _e_create_mask(w, op):
    vk = w.vkind(op.results[0])
    sizes = "".join(w.n(v) + ", " for v in op.operands)
    w.line(f"{w.define(op.results[0])} = _mask_vector({vk.shape!r}, ({sizes}))")


@_emits("vector.constant_mask")
def _e_constant_mask(w, op):
    vk = w.vkind(op.results[0])
    mask = _mask_vector(vk.shape, tuple(_i64_array(op, "mask_dim_sizes")))
    w.line(f"{w.define(op.results[0])} = {w.const(mask)}")


def _vector_memory_check(w: _FuncWriter, mem: ir.Value, vk: VectorKind) -> None:
    if not isinstance(mem.type, ir.MemRefType):
        raise _Unsupported(f"vector access to {mem.type}")
    if memref_element_dtype(mem.type) != vk.elem.dtype:
        raise _Unsupported(f"vector of {vk.elem.dtype} accessing {mem.type}")
    if len(vk.shape) > len(ir.MemRefType(mem.type).shape):
        raise _Unsupported(f"vector of rank {len(vk.shape)} accessing {mem.type}")


def _vector_indices(w: _FuncWriter, op, operands) -> str:
    """The start indices of a vector access as a Python tuple (affine ops apply their map)."""
    if op.name.startswith("affine."):
        exprs = affine_map_sources(ir.AffineMapAttr(op.attributes["map"]).value, [w.n(v) for v in operands])
    else:
        exprs = [w.n(v) for v in operands]
    return f"({''.join(x + ', ' for x in w.index_names(exprs))})"


@_emits("vector.load", "affine.vector_load")
def _e_vector_load(w, op):
    """A contiguous slice: the vector's dims run along the memref's trailing dims; every element
    must be in bounds (MLIR leaves out-of-bounds lanes unspecified)."""
    mem, *rest = op.operands
    r = op.results[0]
    vk = w.vkind(r)
    _vector_memory_check(w, mem, vk)
    w.line(f"{w.define(r)} = _vload({w.n(mem)}, {_vector_indices(w, op, rest)}, {vk.shape!r}, {w.site})")


@_emits("vector.store", "affine.vector_store")
def _e_vector_store(w, op):
    value, mem, *rest = op.operands
    _vector_memory_check(w, mem, w.vkind(value))
    w.line(f"_vstore({w.n(value)}, {w.n(mem)}, {_vector_indices(w, op, rest)}, {w.site})")


def _transfer_facts(w: _FuncWriter, op, mem: ir.Value, vk: VectorKind) -> tuple[bool, ...]:
    """Check a transfer is supported (a memref, a minor-identity permutation map) and return
    its in_bounds flags (all false when the attribute is absent)."""
    _vector_memory_check(w, mem, vk)
    rank = len(ir.MemRefType(mem.type).shape)
    pmap = ir.AffineMapAttr(op.attributes["permutation_map"]).value
    if pmap != ir.AffineMap.get_minor_identity(rank, len(vk.shape), context=op.context):
        raise _Unsupported(f"transfer with permutation map {pmap} (only minor identities are supported)")
    if "in_bounds" not in op.attributes:
        return (False,) * len(vk.shape)
    return tuple(bool(ir.BoolAttr(x).value) for x in op.attributes["in_bounds"])


@_emits("vector.transfer_read")
def _e_transfer_read(w, op):
    """Lanes out of bounds (along the transferred dims) or masked off read the padding."""
    seg = [int(x) for x in op.attributes["operandSegmentSizes"]]
    operands = list(op.operands)
    mem, idx = operands[0], operands[1: 1 + seg[1]]
    pad = operands[1 + seg[1]]
    mask = w.n(operands[2 + seg[1]]) if seg[3] else "None"
    r = op.results[0]
    vk = w.vkind(r)
    in_bounds = _transfer_facts(w, op, mem, vk)
    w.line(f"{w.define(r)} = _tread({w.n(mem)}, {_vector_indices(w, op, idx)}, {w.n(pad)}, {mask}, "
           f"{vk.shape!r}, {in_bounds!r}, {w.site})")


@_emits("vector.transfer_write")
def _e_transfer_write(w, op):
    """Lanes out of bounds (along the transferred dims) or masked off are not written."""
    seg = [int(x) for x in op.attributes["operandSegmentSizes"]]
    operands = list(op.operands)
    value, mem, idx = operands[0], operands[1], operands[2: 2 + seg[2]]
    mask = w.n(operands[2 + seg[2]]) if seg[3] else "None"
    if op.results:
        raise _Unsupported("transfer_write to a tensor")
    in_bounds = _transfer_facts(w, op, mem, w.vkind(value))
    w.line(f"_twrite({w.n(value)}, {w.n(mem)}, {_vector_indices(w, op, idx)}, {mask}, {in_bounds!r}, {w.site})")


@_emits("vector.maskedload")
def _e_masked_load(w, op):
    """Lanes where the mask is set read memory (and must be in bounds); the others take the
    pass-through vector's lane and touch no memory."""
    mem, *rest = op.operands
    idx, mask, passthru = rest[:-2], rest[-2], rest[-1]
    r = op.results[0]
    vk = w.vkind(r)
    _vector_memory_check(w, mem, vk)
    w.line(f"{w.define(r)} = _mload({w.n(mem)}, {_vector_indices(w, op, idx)}, {w.n(mask)}, {w.n(passthru)}, "
           f"{w.site})")


@_emits("vector.maskedstore")
def _e_masked_store(w, op):
    """Lanes where the mask is set are written (and must be in bounds); the others touch no memory."""
    mem, *rest = op.operands
    idx, mask, value = rest[:-2], rest[-2], rest[-1]
    vk = w.vkind(value)
    _vector_memory_check(w, mem, vk)
    w.line(f"_twrite({w.n(value)}, {w.n(mem)}, {_vector_indices(w, op, idx)}, {w.n(mask)}, "
           f"{(True,) * len(vk.shape)!r}, {w.site})")


@_emits("vector.shuffle")
def _e_shuffle(w, op):
    """Lane i of the result is lane mask[i] of the two operands' lanes end to end (1-D only)."""
    a, b = op.operands
    r = op.results[0]
    va, vb, vr = w.vkind(a), w.vkind(b), w.vkind(r)
    if len(va.shape) != 1 or len(vb.shape) != 1:
        raise _Unsupported(f"vector.shuffle of {a.type}")
    mask = [int(x) for x in op.attributes["mask"]]
    if any(not 0 <= m < va.shape[0] + vb.shape[0] for m in mask):
        raise _Unsupported("vector.shuffle with a poison lane")
    name = w.define(r)
    w.line(f"{name} = _np.concatenate(({w.n(a)}, {w.n(b)}))[{mask!r}]")
    w.line(f"{name}.flags.writeable = False")


# --------------------------------------------------------------------------- compiled modules


def _global_info(op: ir.Operation, blobs: dict[str, bytes]) -> GlobalInfo:
    """A global's shape, dtype and initial value: a dense attribute, or a `dense_resource` blob
    (its raw little-endian elements, in `blobs` by name)."""
    t = ir.MemRefType(ir.TypeAttr(op.attributes["type"]).value)
    dt = memref_element_dtype(t)
    init = None
    if "initial_value" in op.attributes:
        attr = op.attributes["initial_value"]
        resource = mlir.resource_name(attr)
        if resource is not None:
            data = blobs.get(resource)
            if data is None or len(data) != np.dtype(dt).itemsize * int(np.prod(t.shape, dtype=np.int64)):
                raise _Unsupported(f"dense_resource<{resource}> has no blob of its size")
            init = np.frombuffer(data, dtype=np.dtype(dt).newbyteorder("<")).astype(dt).reshape(tuple(t.shape))
        elif not isinstance(attr, ir.UnitAttr):
            init = np.array(ir.DenseElementsAttr(attr)).astype(dt).reshape(tuple(t.shape))
    return GlobalInfo(tuple(t.shape), dt, init, "constant" in op.attributes)


class CompiledModule:
    """Python translation of every func.func of one module, ready to call."""

    _serial = 0

    def __init__(self, module: ir.Module, filename: str = "<input>"):
        CompiledModule._serial += 1
        self.filename = filename
        self.code_name = f"<loopopt-interpreter-{CompiledModule._serial}>"
        self.sites: list[OpSite] = []
        self.lines: list[str] = []
        self.tags: list[int] = []
        self.consts: list[object] = []
        self.const_index: dict[tuple, str] = {}
        self.globals_info: dict[str, GlobalInfo] = {}
        self.globals_live: dict[str, np.ndarray] = {}
        self.budget = [DEFAULT_MAX_OPS]
        self.max_ops = DEFAULT_MAX_OPS
        resources = {n for op in block_ops(module.body) if op.name == "memref.global" and "initial_value" in op.attributes
                     and (n := mlir.resource_name(op.attributes["initial_value"])) is not None}
        blobs = mlir.resource_blobs(module, resources) if resources else {}
        for op in block_ops(module.body):
            if op.name == "memref.global":
                try:
                    self.globals_info[ir.StringAttr(op.attributes["sym_name"]).value] = _global_info(op, blobs)
                except (_Unsupported, ValueError, TypeError):
                    pass
        fns = functions(module)
        self.py_names: dict[str, str] = {}
        self.has_body: dict[str, bool] = {}
        self.signatures: dict[str, tuple[TypeSpec, ...]] = {}
        self.public: dict[str, bool] = {}
        for i, fn in enumerate(fns):
            self.has_body[func_name(fn)] = func_body(fn) is not None
            self.signatures[func_name(fn)] = function_signature(fn).args
            vis = fn.attributes["sym_visibility"] if "sym_visibility" in fn.attributes else None
            self.public[func_name(fn)] = vis is None or ir.StringAttr(vis).value == "public"
            if func_body(fn) is not None:
                self.py_names[func_name(fn)] = f"_f{i}_{re.sub(r'[^0-9A-Za-z_]', '_', func_name(fn))}"
        for fn in fns:
            if func_body(fn) is not None:
                _FuncWriter(self, fn, self.py_names[func_name(fn)]).write()
        self.source = "\n".join(self.lines) + "\n"
        self.ns = self._namespace()
        try:
            code = compile(self.source, self.code_name, "exec")
        except SyntaxError as e:  # e.g. more than Python's 20 statically nested blocks
            raise InterpreterError(f"{filename}: cannot translate the program to Python: {e.msg}") from None
        exec(code, self.ns)

    def defined(self) -> list[str]:
        """The functions that have a body (can be run), in module order."""
        return [n for n, has in self.has_body.items() if has]

    def sole_function(self) -> str | None:
        """The function to run when none is named: the only one with a body (None if not exactly one)."""
        defined = self.defined()
        return defined[0] if len(defined) == 1 else None

    # -- translation support
    def add_site(self, op: ir.Operation) -> int:
        self.sites.append(OpSite(op.name, location_of(op, self.filename)))
        return len(self.sites) - 1

    def add_const(self, obj) -> str:
        if isinstance(obj, np.ndarray):
            key = ("ndarray", obj.dtype.str, repr(obj.shape), obj.tobytes())
        else:
            key = (type(obj).__name__, repr(obj), np.asarray(obj).tobytes() if isinstance(obj, np.generic) else b"")
        if key in self.const_index:
            return self.const_index[key]
        self.consts.append(obj)
        name = f"_k{len(self.consts) - 1}"
        self.const_index[key] = name
        return name

    # -- runtime support
    def _namespace(self) -> dict:
        ns = dict(_HELPERS)
        for i, c in enumerate(self.consts):
            ns[f"_k{i}"] = c
        ns.update(
            _B=self.budget,
            _budget=self._budget,
            _unsupported=self._unsupported,
            _nobody=self._nobody,
            _oob=self._oob,
            _check_memref=self._check_memref,
            _vector_arg=self._vector_arg,
            _check_shape=self._check_shape,
            _canon=self._canon,
            _alloc=self._alloc,
            _dim=self._dim,
            _subview=self._subview,
            _copy=self._copy,
            _reshape=self._reshape,
            _global=self._global,
            _shape_reshape=self._shape_reshape,
            _assert_failed=self._assert_failed,
            _vload=self._vload,
            _vstore=self._vstore,
            _tread=self._tread,
            _twrite=self._twrite,
            _mload=self._mload,
            _bad_step=self._bad_step,
        )
        return ns

    def _fail(self, site: int, msg: str):
        raise InterpreterError(f"{self.sites[site]}: {msg}")

    def _budget(self, site: int):
        self._fail(site, f"op budget of {self.max_ops} operations exhausted (runaway execution?)")

    def _unsupported(self, site: int, what: str):
        self._fail(site, f"cannot interpret: {what}")

    def _nobody(self, site: int, callee: str):
        self._fail(site, f"call to @{callee}, which has no body in this module")

    def _oob(self, site: int, idx: tuple, arr: np.ndarray, what: str):
        self._fail(site, f"index {list(idx)} out of bounds for {what} of shape {list(arr.shape)}")

    def _bad_step(self, site: int, step):
        self._fail(site, f"loop step {step} is not positive")

    def _check_memref(self, arr, spec, site: int):
        """`spec` is (description, dtype, shape with None for `?`); shape None: unranked."""
        what, dt, shape = spec
        if not isinstance(arr, np.ndarray):
            self._fail(site, f"argument {what} expects a numpy array, got {type(arr).__name__}")
        if arr.dtype != dt:
            self._fail(site, f"argument {what} expects dtype {dt}, got {arr.dtype}")
        if shape is None:
            return
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            self._fail(site, f"argument {what} expects shape {['?' if s is None else s for s in shape]}, "
                             f"got {list(arr.shape)}")

    def _vector_arg(self, x, spec, site: int) -> np.ndarray:
        """A vector argument: a fresh read-only array of the vector's dtype and shape."""
        what, dt, shape = spec
        arr = np.array(x, dtype=dt) if not isinstance(x, np.ndarray) or x.dtype == dt else None
        if arr is None or arr.shape != shape:
            self._fail(site, f"argument {what} expects an array of dtype {dt} and shape {list(shape)}")
        arr.flags.writeable = False
        return arr

    def _check_shape(self, arr, shape, site: int):
        if arr.ndim != len(shape):
            self._fail(site, f"memref of rank {arr.ndim} cast to rank {len(shape)}")
        if any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            self._fail(site, f"memref of shape {list(arr.shape)} does not match the static shape "
                             f"{['?' if s is None else s for s in shape]}")

    @staticmethod
    def _canon(value, k: ScalarKind) -> int:
        return canonical_int(value, k)

    def _alloc(self, shape: tuple, dt: np.dtype, site: int) -> np.ndarray:
        if any(s < 0 for s in shape):
            self._fail(site, f"negative size in allocation of shape {list(shape)}")
        return _uninitialized(shape, dt)

    def _dim(self, arr: np.ndarray, i: int, site: int) -> int:
        if not 0 <= i < arr.ndim:
            self._fail(site, f"dimension {i} out of range for a rank-{arr.ndim} memref")
        return arr.shape[i]

    def _subview(self, arr, offsets, sizes, strides, keep, site: int):
        index = []
        for d, (o, s, st, kp) in enumerate(zip(offsets, sizes, strides, keep)):
            n = arr.shape[d]
            if s < 0 or st <= 0 or o < 0 or (s > 0 and o + (s - 1) * st >= n) or o > n:
                self._fail(site, f"subview dim {d}: offset {o}, size {s}, stride {st} out of bounds "
                                 f"for size {n}")
            if kp:
                index.append(slice(o, o + (s - 1) * st + 1, st) if s > 0 else slice(o, o))
            else:
                index.append(o)
        return arr[tuple(index)]

    def _copy(self, src, dst, site: int):
        if src.shape != dst.shape:
            self._fail(site, f"copy from shape {list(src.shape)} to shape {list(dst.shape)}")
        dst[...] = src

    def _reshape(self, arr, shape, site: int):
        try:
            return np.reshape(arr, shape, copy=False)
        except ValueError as e:
            self._fail(site, f"cannot reshape {list(arr.shape)} to {list(shape)} without a copy: {e}")

    def _shape_reshape(self, arr, shape_mem, static, site: int):
        """memref.reshape: `shape_mem` holds the new sizes; element counts must agree."""
        sizes = tuple(int(x) for x in np.asarray(shape_mem).reshape(-1))
        if static is not None and (len(sizes) != len(static)
                                   or any(s is not None and s != g for s, g in zip(static, sizes))):
            self._fail(site, f"reshape to {list(sizes)} does not match the result type "
                             f"{['?' if s is None else s for s in static]}")
        if any(s < 0 for s in sizes) or math.prod(sizes) != arr.size:
            self._fail(site, f"cannot reshape {list(arr.shape)} to {list(sizes)}")
        return self._reshape(arr, sizes, site)

    def _assert_failed(self, site: int, msg: str):
        self._fail(site, f"assertion failed: {msg}")

    def _vector_window(self, arr, idx, vshape, site: int) -> tuple:
        """The index of a vector.load/store slice; every element must lie inside `arr`."""
        lead = len(idx) - len(vshape)
        key = list(idx[:lead])
        for d, i in enumerate(idx):
            n = arr.shape[d]
            s = vshape[d - lead] if d >= lead else 1
            if i < 0 or i + s > n:
                self._fail(site, f"vector of shape {list(vshape)} at {list(idx)} out of bounds for a memref "
                                 f"of shape {list(arr.shape)}")
            if d >= lead:
                key.append(slice(i, i + s))
        return tuple(key)

    def _vload(self, arr, idx, vshape, site: int) -> np.ndarray:
        out = arr[self._vector_window(arr, idx, vshape, site)].copy()
        out.flags.writeable = False
        return out

    def _vstore(self, vec, arr, idx, site: int) -> None:
        arr[self._vector_window(arr, idx, vec.shape, site)] = vec

    def _transfer_window(self, arr, idx, vshape, in_bounds, mask, site: int) -> tuple[tuple, tuple]:
        """(memref index, vector index) of the lanes of a transfer that lie inside `arr`.

        Indices must be non-negative and the leading (not transferred) ones inside `arr`; a
        transferred dim may run past the end unless it is marked in_bounds (then only masked-off
        lanes may)."""
        lead = len(idx) - len(vshape)
        if any(i < 0 for i in idx) or any(i >= arr.shape[d] for d, i in enumerate(idx[:lead])):
            self._fail(site, f"transfer at {list(idx)} out of bounds for a memref of shape {list(arr.shape)}")
        mkey, vkey = list(idx[:lead]), []
        for d, (i, s) in enumerate(zip(idx[lead:], vshape)):
            inside = max(0, min(s, arr.shape[lead + d] - i))
            outside = (slice(None),) * d + (slice(inside, None),)
            if in_bounds[d] and inside < s and (mask is None or mask[outside].any()):
                self._fail(site, f"transfer of shape {list(vshape)} at {list(idx)} runs out of bounds along "
                                 f"in_bounds dim {d} of a memref of shape {list(arr.shape)}")
            mkey.append(slice(i, i + inside))
            vkey.append(slice(0, inside))
        return tuple(mkey), tuple(vkey)

    def _tread(self, arr, idx, pad, mask, vshape, in_bounds, site: int) -> np.ndarray:
        mkey, vkey = self._transfer_window(arr, idx, vshape, in_bounds, mask, site)
        out = np.full(vshape, pad, dtype=arr.dtype)
        out[vkey] = arr[mkey]
        if mask is not None:
            out[~mask] = pad
        out.flags.writeable = False
        return out

    def _mload(self, arr, idx, mask, passthru, site: int) -> np.ndarray:
        mkey, vkey = self._transfer_window(arr, idx, passthru.shape, (True,) * passthru.ndim, mask, site)
        out = passthru.copy()
        out[vkey] = np.where(mask[vkey], arr[mkey], passthru[vkey])
        out.flags.writeable = False
        return out

    def _twrite(self, vec, arr, idx, mask, in_bounds, site: int) -> None:
        mkey, vkey = self._transfer_window(arr, idx, vec.shape, in_bounds, mask, site)
        part = vec[vkey]
        if mask is not None:
            part = np.where(mask[vkey], part, arr[mkey])
        arr[mkey] = part

    def _global(self, name: str) -> np.ndarray:
        arr = self.globals_live.get(name)
        if arr is None:
            info = self.globals_info[name]
            arr = info.init.copy() if info.init is not None else _uninitialized(info.shape, info.dtype)
            if info.constant:
                arr.flags.writeable = False
            self.globals_live[name] = arr
        return arr

    # -- running
    def run(self, name: str, args: list, max_ops: int = DEFAULT_MAX_OPS, keep_globals: bool = False) -> list:
        """Run @name on `args`. Every run starts with the globals' initial values, unless
        `keep_globals`: then they hold what the previous run of this module left (as in one
        process calling the function again, which the native harness does)."""
        if not self.has_body.get(name, False):
            if name in self.has_body:
                raise InterpreterError(f"{self.filename}: @{name} has no body")
            raise InterpreterError(f"{self.filename}: no function @{name} in the module")
        fn = self.ns[self.py_names[name]]
        self.max_ops = max_ops
        self.budget[0] = max_ops
        if not keep_globals:
            self.globals_live = {}
        try:
            with np.errstate(all="ignore"):
                out = fn(*args)
        except InterpreterError:
            raise
        except RecursionError:
            raise InterpreterError(f"{self.filename}: @{name}: call nesting too deep") from None
        except TypeError as e:
            if e.__traceback__ is not None and e.__traceback__.tb_next is None:
                raise InterpreterError(f"{self.filename}: @{name}: bad arguments: {e}") from None
            raise InterpreterError(self._describe(e)) from None
        except Exception as e:
            raise InterpreterError(self._describe(e)) from None
        return list(out)

    def _describe(self, e: BaseException) -> str:
        """`loc: op: error` for a Python error raised inside generated code."""
        site = None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.code_name:
                site = self.tags[tb.tb_lineno - 1]
            tb = tb.tb_next
        what = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        if isinstance(e, _Fault):
            what = str(e)
        if isinstance(e, ZeroDivisionError):
            what = "division by zero"
        return f"{self.sites[site]}: {what}" if site is not None else f"{self.filename}: {what}"


def _uninitialized(shape: tuple, dt: np.dtype) -> np.ndarray:
    """Fresh memory: NaN for floats, 0xA5 bytes for integers, so unwritten reads are visible."""
    if dt.kind == "f":
        return np.full(shape, np.nan, dtype=dt)
    if dt.kind == "b":
        return np.full(shape, True, dtype=dt)
    return np.full(shape, np.frombuffer(b"\xa5" * dt.itemsize, dtype=dt)[0], dtype=dt)


_compiled: OrderedDict[str, CompiledModule] = OrderedDict()
_context = {"ctx": None, "uses": 0}


def _shared_context() -> ir.Context:
    """One MLIR context for parsing text (creating one costs ~10 ms), renewed every 200 parses
    so attributes interned by many different programs do not pile up."""
    if _context["ctx"] is None or _context["uses"] >= 200:
        _context["ctx"], _context["uses"] = new_context(), 0
    _context["uses"] += 1
    return _context["ctx"]


def _module_key(module: ir.Module) -> str:
    return module.operation.get_asm(enable_debug_info=True)


def compile_module(module: ir.Module | str | CompiledModule, filename: str = "<input>") -> CompiledModule:
    """The (cached) Python translation of `module` (an ir.Module or MLIR text)."""
    if isinstance(module, CompiledModule):
        return module
    if isinstance(module, str):
        key = "text:" + filename + "\0" + module
    else:
        key = "asm:" + filename + "\0" + _module_key(module)
    hit = _compiled.get(key)
    if hit is not None:
        _compiled.move_to_end(key)
        return hit
    parsed = parse_module(module, filename, _shared_context()) if isinstance(module, str) else module
    compiled = CompiledModule(parsed, filename)
    _compiled[key] = compiled
    if len(_compiled) > _CACHE_SIZE:
        _compiled.popitem(last=False)
    return compiled


def run_function(module: ir.Module | str | CompiledModule, func_name: str | None = None, args: list | tuple = (),
                 max_ops: int = DEFAULT_MAX_OPS, filename: str = "<input>") -> list:
    """Run `@func_name` of `module` on `args` and return its results.

    memref arguments are numpy arrays of the element dtype and are updated in place; scalars
    are Python/numpy numbers. Results: numpy arrays for memrefs, Python ints for index/integers
    (i1 as 0/1), numpy scalars for floats. Raises InterpreterError for out-of-bounds accesses,
    unsupported ops, calls to bodiless functions, or more than `max_ops` executed ops.
    """
    compiled = compile_module(module, filename)
    func_name = func_name if func_name is not None else compiled.sole_function()
    if func_name is None:
        raise InterpreterError(f"name the function to run; the module defines {['@' + n for n in compiled.defined()]}")
    return compiled.run(func_name, list(args), max_ops)


def function_source(module: ir.Module | str) -> str:
    """The generated Python source for `module` (for debugging the interpreter)."""
    return compile_module(module).source
