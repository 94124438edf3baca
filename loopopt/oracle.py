"""What the three test oracles share: how a type is classified, a function's signature, and when
two results count as equal.

The oracles are the reference interpreter (`interpreter.py`: values as Python ints and numpy
scalars and arrays), the differential tester (`testing.py`: random inputs through the
interpreter) and the native harness (`native.py`: mlir-runner). They classify types here, once;
each then decides which classified types it can run:
  - the interpreter and the tester need a numpy representation (`scalar_kind`, `TypeSpec.dtype`);
  - the native harness runs every index, integer and float type (`classify_scalar`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import mlir
from .mlir import DYNAMIC, ir


class Unsupported(Exception):
    """An oracle cannot represent a type (or, in the interpreter, an op); the message names it."""


# --------------------------------------------------------------------------- scalar types


@dataclass(frozen=True)
class ScalarKind:
    """A scalar MLIR type: "index"/"int" (Python ints in the interpreter) or "float" (numpy scalars)."""

    kind: str
    width: int
    dtype: np.dtype | None  # element dtype when stored in a numpy array (None: numpy has none)

    @property
    def is_int(self) -> bool:
        return self.kind in ("index", "int")

    @property
    def representable(self) -> bool:
        """Integers of any width are Python ints; a float needs a numpy dtype of its own."""
        return self.is_int or self.dtype is not None


_INT_DTYPES = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_FLOAT_DTYPES = ((ir.F16Type, np.float16), (ir.F32Type, np.float32), (ir.F64Type, np.float64))


def classify_scalar(t: ir.Type) -> ScalarKind | None:
    """Every index, integer (any width) and float type (any format: bf16 and f8 have no dtype);
    None for anything else."""
    if isinstance(t, ir.IndexType):
        return ScalarKind("index", 64, np.dtype(np.int64))
    if isinstance(t, ir.IntegerType):
        w = ir.IntegerType(t).width
        dt = _INT_DTYPES.get(w)
        return ScalarKind("int", w, np.dtype(dt) if dt else None)
    if isinstance(t, ir.FloatType):
        dt = next((d for cls, d in _FLOAT_DTYPES if isinstance(t, cls)), None)
        return ScalarKind("float", ir.FloatType(t).width, np.dtype(dt) if dt else None)
    return None


def scalar_kind(t: ir.Type) -> ScalarKind | None:
    """The scalar type `t` as the numpy value model holds it: any index or integer type, and
    f16/f32/f64; None for other types."""
    k = classify_scalar(t)
    return k if k is not None and k.representable else None


def _storable(t: ir.Type) -> ScalarKind | None:
    """Element type `t` if a numpy array can hold it (i1/i8/.../i64, index, f16/f32/f64)."""
    k = classify_scalar(t)
    return k if k is not None and k.dtype is not None else None


# --------------------------------------------------------------------------- shaped types


def is_memref(t: ir.Type) -> bool:
    """Ranked or unranked memref type."""
    return isinstance(t, (ir.MemRefType, ir.UnrankedMemRefType))


def memref_shape(t: ir.Type) -> tuple[int | None, ...]:
    """The dims of ranked memref type `t`, None marking a dynamic (`?`) one."""
    return tuple(None if s == DYNAMIC else s for s in ir.MemRefType(t).shape)


def _memref_element(t: ir.Type) -> ir.Type:
    if isinstance(t, ir.UnrankedMemRefType):
        return ir.UnrankedMemRefType(t).element_type
    return ir.MemRefType(t).element_type


def memref_element_dtype(t: ir.Type) -> np.dtype:
    """numpy dtype of the elements of (ranked or unranked) memref type `t`; Unsupported when
    numpy has none."""
    elem = _memref_element(t)
    k = _storable(elem)
    if k is None:
        raise Unsupported(f"memref element type {elem}")
    return k.dtype


def has_identity_layout(t: ir.Type) -> bool:
    """A ranked memref whose layout is the identity map (row-major, no offset, no strides)."""
    return mlir.identity_layout(ir.MemRefType(t))


@dataclass(frozen=True)
class VectorKind:
    """A fixed-size vector type: a numpy array of `shape` whose elements follow `elem`."""

    shape: tuple[int, ...]
    elem: ScalarKind

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


def vector_kind(t: ir.Type) -> VectorKind:
    """The representation of vector type `t`; Unsupported for scalable vectors and for elements
    numpy cannot store."""
    vt = ir.VectorType(t)
    if vt.scalable:
        raise Unsupported(f"scalable vector type {t}")
    k = _storable(vt.element_type)
    if k is None:
        raise Unsupported(f"vector element type {vt.element_type}")
    return VectorKind(tuple(vt.shape), k)


# --------------------------------------------------------------------------- signatures


@dataclass(frozen=True)
class TypeSpec:
    """One argument or result type, classified.

    form: "scalar" (index, integer or float), "memref" (ranked), "unranked" (unranked memref),
    "vector" or "other". `element` is the scalar type itself, or the element type of a memref or
    vector (None when that is not an index, integer or float type); `element_text` is its text.
    `shape` holds the dims of a ranked memref or vector (None marks `?`), else None.
    """

    text: str
    form: str
    element: ScalarKind | None = None
    element_text: str = ""
    shape: tuple[int | None, ...] | None = None
    identity_layout: bool = True
    scalable: bool = False

    @property
    def is_memref(self) -> bool:
        """A ranked memref (the only memref the testers build)."""
        return self.form == "memref"

    @property
    def scalar(self) -> ScalarKind | None:
        """A scalar argument as the numpy value model holds it, else None."""
        k = self.element
        return k if self.form == "scalar" and k is not None and k.representable else None

    @property
    def dtype(self) -> np.dtype | None:
        """The numpy dtype of a ranked memref's elements, else None."""
        return self.element.dtype if self.form == "memref" and self.element is not None else None

    @property
    def rank(self) -> int:
        return len(self.shape) if self.shape is not None else 0


def type_spec(t: ir.Type) -> TypeSpec:
    """Classify argument or result type `t` (see TypeSpec)."""
    text = str(t)
    if isinstance(t, ir.MemRefType):
        elem = _memref_element(t)
        return TypeSpec(text, "memref", classify_scalar(elem), str(elem), memref_shape(t), has_identity_layout(t))
    if isinstance(t, ir.UnrankedMemRefType):
        elem = _memref_element(t)
        return TypeSpec(text, "unranked", classify_scalar(elem), str(elem))
    if isinstance(t, ir.VectorType):
        vt = ir.VectorType(t)
        return TypeSpec(text, "vector", classify_scalar(vt.element_type), str(vt.element_type), tuple(vt.shape),
                        scalable=vt.scalable)
    k = classify_scalar(t)
    return TypeSpec(text, "scalar" if k is not None else "other", k, text)


@dataclass(frozen=True)
class Signature:
    """The classified argument and result types of one function."""

    name: str
    args: tuple[TypeSpec, ...]
    results: tuple[TypeSpec, ...]


def function_signature(fn: ir.Operation) -> Signature:
    """The signature of `func.func` op `fn`, read from its function_type."""
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    name = ir.StringAttr(fn.attributes["sym_name"]).value
    return Signature(name, tuple(type_spec(t) for t in ftype.inputs), tuple(type_spec(t) for t in ftype.results))


# --------------------------------------------------------------------------- comparison


def float_bits(a: np.ndarray) -> np.ndarray:
    """Float arrays as unsigned integers of the same width (their bit patterns); others unchanged."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "f":
        return a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a


def matching(want: np.ndarray, got: np.ndarray, rtol: float = 0.0, atol: float = 0.0,
             scale: np.ndarray | None = None, signed_zeros: bool = True) -> np.ndarray:
    """Elementwise: does `got` count as equal to `want` (arrays of one shape)?

    Integers and booleans: equal values. Floats: a NaN matches any NaN; otherwise equal bit
    patterns when `signed_zeros` (-0.0 differs from +0.0; both arrays of one dtype), equal values
    when not. With rtol or atol set, floats also match within a tolerance: with `scale`,
    |got - want| <= atol + rtol * scale; without, numpy's isclose rule (atol + rtol * |got|, an
    infinity matching only itself).
    """
    want, got = np.asarray(want), np.asarray(got)
    if want.dtype.kind != "f" and got.dtype.kind != "f":
        return np.asarray(want == got)
    with np.errstate(invalid="ignore", over="ignore"):
        same = np.isnan(want) & np.isnan(got)
        same |= (float_bits(want) == float_bits(got)) if signed_zeros else (want == got)
        if rtol or atol:
            if scale is None:
                same |= np.isclose(want, got, rtol=rtol, atol=atol)
            else:
                same |= np.abs(want - got) <= atol + rtol * np.asarray(scale)
    return same


@dataclass(frozen=True)
class Mismatch:
    """Where two results differ: the first differing element (row-major) and how many differ."""

    index: tuple[int, ...]
    count: int
    size: int


def first_mismatch(same: np.ndarray) -> Mismatch | None:
    """None if every element of `same` (from `matching`) is true, else the first false one."""
    same = np.asarray(same)
    bad = np.flatnonzero(~same)
    if bad.size == 0:
        return None
    index = tuple(int(i) for i in np.unravel_index(int(bad[0]), same.shape))
    return Mismatch(index, int(bad.size), int(same.size))


def first_difference(before, after, rtol: float = 0.0, atol: float = 0.0) -> str | None:
    """None if `after` equals `before` (bitwise, any NaN equal to any NaN; or within rtol/atol by
    numpy's isclose rule), else a description of the first difference."""
    a, b = np.asarray(before), np.asarray(after)
    if a.shape != b.shape:
        return f"shape {list(a.shape)} != {list(b.shape)}"
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    miss = first_mismatch(matching(a, b, rtol, atol))
    if miss is None:
        return None
    if a.ndim == 0:
        return f"before={a[()]!r} after={b[()]!r}"
    where = miss.index
    return (f"first difference at index {list(where)}: before={a[where]!r} after={b[where]!r} "
            f"({miss.count} of {miss.size} elements differ)")
