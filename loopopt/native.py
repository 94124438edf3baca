"""Run an affine MLIR kernel natively with the reference toolchain (mlir-opt / mlir-runner 22).

Three steps, each a pure function of text:
  make_harness   appends a `@main` that allocates the kernel's memref arguments, fills them with a
                 deterministic pattern, calls the kernel `warmup` times untimed and `reps` times
                 timed (rtclock), then prints every memref argument and every result;
  lower_to_llvm  lowers the whole module to the LLVM dialect with one fixed pipeline;
  run_native     runs it with `mlir-runner -O3` and parses what @main printed.
Every variant of a program goes through the same harness and the same pipeline, so the only
difference between two runs is the kernel's own body.

Temporaries (`temporaries=`): "malloc" (the default) lowers `memref.alloc`/`dealloc` to
`malloc`/`free`, MLIR's default; "cache" lowers them as loopopt.compile's libraries do
(RUNTIME_LOWERING_PASSES: MLIR's generic allocation functions) and gives mlir-runner
`allocator_library()`, built from the same C as the libraries' (runtime/alloc.py): freed blocks
are kept per thread and handed out again, so a kernel's temporaries above glibc's mmap threshold
are not mapped and page-faulted anew on every call. The benchmarks time with "cache" (the models
benchmark's affine columns, paired.py, runtime_vs_harness.py), so a kernel costs in the harness
what it costs called through loopopt.compile. With "cache" @main also prints, after its end mark,
the allocator's counters (alloc.HARNESS_STATS) after the warm-up calls and after the timed calls
(`NativeResult.temporaries`).

What @main prints (one integer per line, via printI64 from libmlir_c_runner_utils):
  MARK, reps, one f64 bit pattern per timed call (seconds), the cache flush's sum (0 without
  a flush), number of outputs, then per output:
  numel, mode, and for mode 0 every element, for mode 1 the checksums (sum, position-weighted
  sum, sum of magnitudes; f64 bit patterns), then MARK again. Floats travel as f64 bit patterns
  so nothing is lost to decimal printing.
"""
from __future__ import annotations

import glob
import math
import os
import statistics
import struct
import subprocess
import tempfile
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from . import mlir
from .mlir import ir
from .oracle import TypeSpec, first_mismatch, function_signature, matching
# The one lowering used for every variant lives with the runtime, which builds the same code into a
# shared object (loopopt.compile); benchmarks and tests read it here.
from .runtime.build import split_resources  # noqa: F401  (the resource trailer, also the runtime's)
from .runtime.lowering import LOWERING_PASSES  # noqa: F401
from .toolchain import find_tool, mlir_opt

RUNNER_FLAGS: tuple[str, ...] = ("-O3", "-e", "main", "-entry-point-result=void")
MARK = 7_340_033_001  # brackets the harness output so a truncated run is detected
WEIGHT_MODULUS = 1009  # position weight of element i is (i mod 1009) + 1
FILL_MODULUS = 251  # element i of argument k holds ((7 i + 131 k + 3) mod 251) * 2/251 - 1
FULL_LIMIT = 4096  # outputs with at most this many elements are printed whole
TEMPORARIES = ("malloc", "cache")  # how memref.alloc/dealloc are lowered and served (module doc)
ALLOC_MARK = 7_340_033_002  # starts the allocator's counters, printed after the end mark ("cache")


class NativeError(Exception):
    """Lowering or running failed; the message is one line."""


@dataclass(frozen=True)
class Slot:
    """One kernel argument or result as the harness sees it: a ranked memref or a scalar."""

    name: str  # "arg0", "result1"
    spec: TypeSpec  # its type, classified by loopopt.oracle

    @property
    def type(self) -> str:
        """The MLIR type text."""
        return self.spec.text

    @property
    def kind(self) -> str:
        """"memref", or the scalar's kind: "index", "int" or "float"."""
        return "memref" if self.spec.is_memref else self.spec.element.kind

    @property
    def elem(self) -> str:
        """The element type (memref) or the scalar type itself."""
        return self.spec.element_text

    @property
    def shape(self) -> tuple[int, ...]:
        """The memref shape, -1 marking a dynamic dimension; () for scalars."""
        return tuple(-1 if d is None else d for d in self.spec.shape or ())

    @property
    def identity_layout(self) -> bool:
        return self.spec.identity_layout

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class KernelSignature:
    name: str
    args: tuple[Slot, ...]
    results: tuple[Slot, ...]

    def outputs(self) -> tuple[Slot, ...]:
        """What the harness prints: every memref argument, then every result."""
        return tuple(s for s in self.args if s.kind == "memref") + self.results


@dataclass(frozen=True)
class Output:
    """One printed output: all elements (small) or checksums (large)."""

    name: str
    numel: int
    values: tuple | None = None  # floats or ints, flattened row-major
    checksum: tuple[float, float, float] | None = None  # (sum, weighted sum, sum of |x|)


@dataclass(frozen=True)
class NativeResult:
    times: tuple[float, ...]  # seconds per timed kernel call
    outputs: tuple[Output, ...]
    stdout: str
    # temporaries="cache": {"warm": {stat: value}, "end": {...}}, the allocator's counters
    # (alloc.HARNESS_STATS) after the warm-up calls and after the timed calls; None with malloc
    temporaries: dict | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)


# ----------------------------------------------------------------------------- signature

def _slot(name: str, spec: TypeSpec) -> Slot:
    """The harness allocates and prints ranked memrefs and scalars of index, integer and float
    types (any width or format); NativeError for anything else."""
    if spec.is_memref and spec.element is None:
        raise NativeError(f"{name}: unsupported element type {spec.element_text}")
    if spec.form not in ("memref", "scalar"):
        raise NativeError(f"{name}: unsupported type {spec.text}")
    return Slot(name, spec)


def _find_kernel(module: ir.Module, kernel: str) -> ir.Operation:
    names = [mlir.func_name(f) for f in mlir.functions(module)]
    if "main" in names:
        raise NativeError("the kernel module already defines @main; rename it")
    for fn in mlir.functions(module):
        if mlir.func_name(fn) == kernel:
            if mlir.func_body(fn) is None:
                raise NativeError(f"@{kernel} is only a declaration")
            return fn
    raise NativeError(f"no function @{kernel} in the module (have: {', '.join(names) or 'none'})")


def _signature_of(fn: ir.Operation, kernel: str) -> KernelSignature:
    sig = function_signature(fn)
    args = tuple(_slot(f"arg{i}", spec) for i, spec in enumerate(sig.args))
    results = tuple(_slot(f"result{i}", spec) for i, spec in enumerate(sig.results))
    return KernelSignature(kernel, args, results)


def kernel_signature(text: str, kernel: str) -> KernelSignature:
    """The argument and result slots of function @kernel in `text`."""
    module = mlir.parse_module(text)
    with module.context:
        return _signature_of(_find_kernel(module, kernel), kernel)


def _noinline_module(text: str, kernel: str) -> tuple[str, KernelSignature]:
    """The module re-printed with @kernel marked noinline, so LLVM cannot specialise it to the
    harness (alias facts, alignment, constant sizes) differently for different variants."""
    module = mlir.parse_module(text)
    with module.context:
        fn = _find_kernel(module, kernel)
        sig = _signature_of(fn, kernel)
        old = list(fn.attributes["passthrough"]) if "passthrough" in fn.attributes else []  # "name" or ["key", "value"]
        if not any(isinstance(a, ir.StringAttr) and ir.StringAttr(a).value == "noinline" for a in old):
            fn.attributes["passthrough"] = ir.ArrayAttr.get(old + [ir.StringAttr.get("noinline")])
        return mlir.print_module(module), sig


# ----------------------------------------------------------------------------- sizes

def resolve_sizes(sig: KernelSignature, sizes: Sequence) -> list:
    """Check `sizes` (one entry per kernel argument: an int for index/integer args, a number for
    float args, a full shape list for memref args) against the signature; return them normalised."""
    if len(sizes) != len(sig.args):
        raise NativeError(f"@{sig.name} takes {len(sig.args)} arguments, sizes gives {len(sizes)}")
    out = []
    for slot, size in zip(sig.args, sizes):
        if slot.kind == "memref":
            if size is None and -1 not in slot.shape:
                size = list(slot.shape)
            if not isinstance(size, (list, tuple)) or len(size) != slot.rank:
                raise NativeError(f"{slot.name} ({slot.type}): expected a shape of rank {slot.rank}, got {size!r}")
            for want, got in zip(slot.shape, size):
                if not isinstance(got, int) or got < 0 or (want != -1 and want != got):
                    raise NativeError(f"{slot.name} ({slot.type}): shape {list(size)} does not fit the type")
            if not slot.identity_layout:
                raise NativeError(f"{slot.name} ({slot.type}): the harness allocates identity layouts only")
            out.append([int(d) for d in size])
        elif slot.kind == "float":
            out.append(float(size))
        else:
            if not isinstance(size, int):
                raise NativeError(f"{slot.name} ({slot.type}): expected an integer, got {size!r}")
            out.append(size)
    return out


# ----------------------------------------------------------------------------- harness text

def _float_literal(x: float) -> str:
    text = repr(float(x))
    return text if any(c in text for c in ".eEn") else text + ".0"


class _Emitter:
    """Accumulates the lines of @main with fresh SSA names and cached constants."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.consts: dict[tuple[str, str], str] = {}
        self.indent = 2

    def fresh(self, hint: str = "v") -> str:
        self.count += 1
        return f"%h_{hint}{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append(" " * self.indent + line)

    def const(self, value, typ: str) -> str:
        key = (repr(value), typ)
        if key not in self.consts:
            name = self.fresh("c")
            lit = _float_literal(value) if typ.startswith(("f", "bf")) else str(int(value))
            self.consts[key] = name
            self.lines.insert(0, f"  {name} = arith.constant {lit} : {typ}")
        return self.consts[key]

    def op(self, text: str, hint: str = "v") -> str:
        name = self.fresh(hint)
        self.emit(f"{name} = {text}")
        return name

    def open(self, header: str) -> None:
        self.emit(header + " {")
        self.indent += 2

    def close(self, trailer: str = "}") -> None:
        self.indent -= 2
        self.emit(trailer)


def _flat(e: _Emitter, value: str, slot: Slot) -> tuple[str, str, str]:
    """(1-d view, its type, element count) of a rank>=1 memref with identity layout."""
    if slot.rank == 1:
        view, vtype = value, slot.type
    else:
        static = -1 not in slot.shape
        n = math.prod(slot.shape) if static else -1
        vtype = f"memref<{n if static else '?'}x{slot.elem}>"
        assoc = ", ".join(str(i) for i in range(slot.rank))
        view = e.op(f"memref.collapse_shape {value} [[{assoc}]] : {slot.type} into {vtype}", "flat")
    numel = e.op(f"memref.dim {view}, {e.const(0, 'index')} : {vtype}", "n")
    return view, vtype, numel


def _to_f64(e: _Emitter, x: str, typ: str) -> str:
    if typ == "f64":
        return x
    if typ == "index":
        x = e.op(f"arith.index_cast {x} : index to i64")
        typ = "i64"
    if typ.startswith("i"):
        return e.op(f"arith.sitofp {x} : {typ} to f64")
    return e.op(f"arith.extf {x} : {typ} to f64")


def _to_i64_bits(e: _Emitter, x: str, typ: str) -> str:
    """Floats as the bit pattern of their exact f64 value; integers sign-extended."""
    if typ == "index":
        return e.op(f"arith.index_cast {x} : index to i64")
    if typ.startswith("i"):
        return x if typ == "i64" else e.op(f"arith.extsi {x} : {typ} to i64")
    return e.op(f"arith.bitcast {_to_f64(e, x, typ)} : f64 to i64")


def _print(e: _Emitter, x: str) -> None:
    e.emit(f"func.call @printI64({x}) : (i64) -> ()")
    e.emit("func.call @printNewline() : () -> ()")


def _print_int(e: _Emitter, value: int) -> None:
    _print(e, e.const(value, "i64"))


def _fill_value(e: _Emitter, i: str, argno: int, elem: str) -> str:
    p = e.op(f"arith.muli {i}, {e.const(7, 'index')} : index")
    q = e.op(f"arith.addi {p}, {e.const(131 * argno + 3, 'index')} : index")
    r = e.op(f"arith.remui {q}, {e.const(FILL_MODULUS, 'index')} : index")
    ri = e.op(f"arith.index_cast {r} : index to i64")
    if elem == "index":
        return r
    if elem.startswith("i"):
        centred = e.op(f"arith.subi {ri}, {e.const(FILL_MODULUS // 2, 'i64')} : i64")
        return centred if elem == "i64" else e.op(f"arith.trunci {centred} : i64 to {elem}")
    rf = e.op(f"arith.sitofp {ri} : i64 to f64")
    scaled = e.op(f"arith.mulf {rf}, {e.const(2.0 / FILL_MODULUS, 'f64')} : f64")
    v = e.op(f"arith.subf {scaled}, {e.const(1.0, 'f64')} : f64")
    return v if elem == "f64" else e.op(f"arith.truncf {v} : f64 to {elem}")


HUGE_PAGE_BYTES = 1 << 22  # numpy asks for transparent huge pages from this size on
HUGE_PAGE_ALIGNMENT = 1 << 21  # an x86-64 huge page: a buffer aligned to it is huge pages throughout
MADV_HUGEPAGE = 14
_ELEM_BYTES = {"f64": 8, "i64": 8, "index": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1, "i1": 1}


def _advise_huge_pages(e: _Emitter, m: str, mtype: str, nbytes: int) -> None:
    """madvise(MADV_HUGEPAGE) on the whole pages of buffer `m` (nbytes long, allocated aligned to
    HUGE_PAGE_ALIGNMENT), as numpy does for the arrays of the torch and IREE columns (their
    buffers then take fewer TLB entries; with THP in `madvise` mode, as here, plain malloc'd
    memory gets 4 KiB pages). Before the fill, so the pages are faulted in as huge pages; the
    kernel's code is not changed."""
    p = e.op(f"memref.extract_aligned_pointer_as_index {m} : {mtype} -> index")
    pi = e.op(f"arith.index_cast {p} : index to i64")
    up = e.op(f"arith.addi {pi}, {e.const(4095, 'i64')} : i64")
    start = e.op(f"arith.andi {up}, {e.const(-4096, 'i64')} : i64")
    end = e.op(f"arith.addi {pi}, {e.const(nbytes, 'i64')} : i64")
    length = e.op(f"arith.subi {end}, {start} : i64")
    ptr = e.op(f"llvm.inttoptr {start} : i64 to !llvm.ptr")
    e.op(f"func.call @madvise({ptr}, {length}, {e.const(MADV_HUGEPAGE, 'i32')}) : (!llvm.ptr, i64, i32) -> i32")


def _alloc_and_fill(e: _Emitter, slot: Slot, shape: list[int], argno: int, huge_pages: bool = False) -> str:
    dyn = [e.const(d, "index") for d, s in zip(shape, slot.shape) if s == -1]
    nbytes = math.prod(shape) * _ELEM_BYTES.get(slot.elem, 8)
    align = HUGE_PAGE_ALIGNMENT if huge_pages and nbytes >= HUGE_PAGE_BYTES else 64
    m = e.op(f"memref.alloc({', '.join(dyn)}) {{alignment = {align} : i64}} : {slot.type}", "m")
    if huge_pages and nbytes >= HUGE_PAGE_BYTES:
        _advise_huge_pages(e, m, slot.type, nbytes)
    if slot.rank == 0:
        e.emit(f"memref.store {_fill_value(e, e.const(0, 'index'), argno, slot.elem)}, {m}[] : {slot.type}")
        return m
    view, vtype, numel = _flat(e, m, slot)
    i = e.fresh("i")
    e.open(f"scf.for {i} = {e.const(0, 'index')} to {numel} step {e.const(1, 'index')}")
    e.emit(f"memref.store {_fill_value(e, i, argno, slot.elem)}, {view}[{i}] : {vtype}")
    e.close()
    return m


def _print_memref(e: _Emitter, m: str, slot: Slot, full_limit: int) -> None:
    if slot.rank == 0:
        _print_int(e, 1)
        _print_int(e, 0)
        _print(e, _to_i64_bits(e, e.op(f"memref.load {m}[] : {slot.type}"), slot.elem))
        return
    if not slot.identity_layout:  # copy into a contiguous buffer first
        dims = [e.op(f"memref.dim {m}, {e.const(k, 'index')} : {slot.type}") for k, s in enumerate(slot.shape) if s == -1]
        plain = f"memref<{'x'.join('?' if s == -1 else str(s) for s in slot.shape)}x{slot.elem}>"
        copy = e.op(f"memref.alloc({', '.join(dims)}) : {plain}", "m")
        e.emit(f"memref.copy {m}, {copy} : {slot.type} to {plain}")
        m, slot = copy, Slot(slot.name, replace(slot.spec, text=plain, identity_layout=True))
    view, vtype, numel = _flat(e, m, slot)
    c0, c1 = e.const(0, "index"), e.const(1, "index")
    _print(e, e.op(f"arith.index_cast {numel} : index to i64"))
    small = e.op(f"arith.cmpi ule, {numel}, {e.const(full_limit, 'index')} : index")
    e.open(f"scf.if {small}")
    _print_int(e, 0)
    i = e.fresh("i")
    e.open(f"scf.for {i} = {c0} to {numel} step {c1}")
    _print(e, _to_i64_bits(e, e.op(f"memref.load {view}[{i}] : {vtype}"), slot.elem))
    e.close()
    e.close("} else {")
    e.indent += 2
    _print_int(e, 1)
    i, s, w, a = e.fresh("i"), e.fresh("s"), e.fresh("w"), e.fresh("a")
    zero = e.const(0.0, "f64")
    sums = e.fresh("sums")
    e.open(f"{sums}:3 = scf.for {i} = {c0} to {numel} step {c1} iter_args({s} = {zero}, {w} = {zero}, {a} = {zero}) -> (f64, f64, f64)")
    x = _to_f64(e, e.op(f"memref.load {view}[{i}] : {vtype}"), slot.elem)
    r = e.op(f"arith.remui {i}, {e.const(WEIGHT_MODULUS, 'index')} : index")
    r1 = e.op(f"arith.addi {r}, {c1} : index")
    wf = _to_f64(e, r1, "index")
    s2 = e.op(f"arith.addf {s}, {x} : f64")
    xw = e.op(f"arith.mulf {x}, {wf} : f64")
    w2 = e.op(f"arith.addf {w}, {xw} : f64")
    ax = e.op(f"math.absf {x} : f64")
    a2 = e.op(f"arith.addf {a}, {ax} : f64")
    e.emit(f"scf.yield {s2}, {w2}, {a2} : f64, f64, f64")
    e.close()
    for k in range(3):
        _print(e, e.op(f"arith.bitcast {sums}#{k} : f64 to i64"))
    e.close()


def _print_output(e: _Emitter, value: str, slot: Slot, full_limit: int) -> None:
    if slot.kind == "memref":
        _print_memref(e, value, slot, full_limit)
    else:
        _print_int(e, 1)
        _print_int(e, 0)
        _print(e, _to_i64_bits(e, value, slot.elem))


def _call(e: _Emitter, sig: KernelSignature, args: list[str]) -> list[str]:
    types = f"({', '.join(s.type for s in sig.args)}) -> ({', '.join(s.type for s in sig.results)})"
    call = f"func.call @{sig.name}({', '.join(args)}) : {types}"
    if not sig.results:
        e.emit(call)
        return []
    r = e.fresh("r")
    e.emit(f"{r}:{len(sig.results)} = {call}")
    return [f"{r}#{k}" for k in range(len(sig.results))]


def _flush_buffer(e: _Emitter, flush_bytes: int, huge_pages: bool = False) -> tuple[str, str, str]:
    """(buffer, its type, a one-element accumulator) for evicting the caches by reading (advised
    to huge pages with `huge_pages`, as the workers' numpy buffer is)."""
    n = max(8, flush_bytes // 8)
    btype = f"memref<{n}xi64>"
    huge = huge_pages and n * 8 >= HUGE_PAGE_BYTES
    buf = e.op(f"memref.alloc() {{alignment = {HUGE_PAGE_ALIGNMENT if huge else 64} : i64}} : {btype}", "flush")
    if huge:
        _advise_huge_pages(e, buf, btype, n * 8)
    i = e.fresh("i")
    # written once so every page is real memory (unwritten pages all map one shared zero page)
    e.open(f"scf.for {i} = {e.const(0, 'index')} to {e.const(n, 'index')} step {e.const(1, 'index')}")
    e.emit(f"memref.store {e.op(f'arith.index_cast {i} : index to i64')}, {buf}[{i}] : {btype}")
    e.close()
    acc = e.op("memref.alloc() : memref<1xi64>", "fsum")
    e.emit(f"memref.store {e.const(0, 'i64')}, {acc}[{e.const(0, 'index')}] : memref<1xi64>")
    return buf, btype, acc


def _flush(e: _Emitter, buf: str, btype: str, acc: str) -> None:
    """Read one word per 64-byte line of the buffer; the sum is printed so the reads stay."""
    n = int(btype[len("memref<"):].split("x")[0])
    i, s = e.fresh("i"), e.fresh("s")
    total = e.fresh("fs")
    c0 = e.const(0, "index")
    e.open(f"{total} = scf.for {i} = {c0} to {e.const(n, 'index')} step {e.const(8, 'index')} "
           f"iter_args({s} = {e.const(0, 'i64')}) -> (i64)")
    e.emit(f"scf.yield {e.op(f'arith.addi {s}, ' + e.op(f'memref.load {buf}[{i}] : {btype}') + ' : i64')} : i64")
    e.close()
    old = e.op(f"memref.load {acc}[{c0}] : memref<1xi64>")
    e.emit(f"memref.store {e.op(f'arith.addi {old}, {total} : i64')}, {acc}[{c0}] : memref<1xi64>")


def _alloc_stats(e: _Emitter) -> list[str]:
    """The allocator's counters now (temporaries="cache"), as i64 values."""
    from .runtime.alloc import HARNESS_STAT, HARNESS_STATS

    return [e.op(f"func.call @{HARNESS_STAT}({e.const(n, 'i64')}) : (i64) -> i64") for n in range(len(HARNESS_STATS))]


def _main_body(sig: KernelSignature, sizes: list, reps: int, warmup: int, full_limit: int,
               flush_bytes: int = 0, huge_pages: bool = False, temporaries: str = "malloc") -> list[str]:
    e = _Emitter()
    args: list[str] = []
    for k, (slot, size) in enumerate(zip(sig.args, sizes)):
        if slot.kind == "memref":
            args.append(_alloc_and_fill(e, slot, size, k, huge_pages))
        else:
            args.append(e.const(size, slot.type))
    flush = _flush_buffer(e, flush_bytes, huge_pages) if flush_bytes > 0 else None
    results: list[str] = []
    for _ in range(max(1, warmup)):
        results = _call(e, sig, args)
    c0, c1 = e.const(0, "index"), e.const(1, "index")
    times = e.op(f"memref.alloc() : memref<{reps}xf64>", "times")
    warm_stats = _alloc_stats(e) if temporaries == "cache" else []
    it = e.fresh("it")
    rtypes = [s.type for s in sig.results]
    carried = [e.fresh("acc") for _ in results]
    head = f"scf.for {it} = {c0} to {e.const(reps, 'index')} step {c1}"
    if results:
        inits = ", ".join(f"{c} = {r}" for c, r in zip(carried, results))
        loop = e.fresh("loop")
        head = f"{loop}:{len(results)} = {head} iter_args({inits}) -> ({', '.join(rtypes)})"
    e.open(head)
    if flush:
        _flush(e, *flush)
    t0 = e.op("func.call @rtclock() : () -> f64", "t")
    fresh = _call(e, sig, args)
    t1 = e.op("func.call @rtclock() : () -> f64", "t")
    e.emit(f"memref.store {e.op(f'arith.subf {t1}, {t0} : f64')}, {times}[{it}] : memref<{reps}xf64>")
    if results:
        e.emit(f"scf.yield {', '.join(fresh)} : {', '.join(rtypes)}")
    e.close()
    if results:
        results = [f"{loop}#{k}" for k in range(len(results))]
    end_stats = _alloc_stats(e) if temporaries == "cache" else []
    _print_int(e, MARK)
    _print_int(e, reps)
    j = e.fresh("j")
    e.open(f"scf.for {j} = {c0} to {e.const(reps, 'index')} step {c1}")
    _print(e, _to_i64_bits(e, e.op(f"memref.load {times}[{j}] : memref<{reps}xf64>"), "f64"))
    e.close()
    _print(e, e.op(f"memref.load {flush[2]}[{c0}] : memref<1xi64>") if flush else e.const(0, "i64"))
    outputs = [(a, s) for a, s in zip(args, sig.args) if s.kind == "memref"] + list(zip(results, sig.results))
    _print_int(e, len(outputs))
    for value, slot in outputs:
        _print_output(e, value, slot, full_limit)
    _print_int(e, MARK)
    if temporaries == "cache":
        _print_int(e, ALLOC_MARK)
        _print_int(e, len(warm_stats))
        for x in warm_stats + end_stats:
            _print(e, x)
    e.emit("return")
    return e.lines


_DECLS = {
    "rtclock": "func.func private @rtclock() -> f64",
    "printI64": "func.func private @printI64(i64)",
    "printNewline": "func.func private @printNewline()",
}


def make_harness(text: str, kernel: str, sizes: Sequence, reps: int = 5, warmup: int = 1,
                 full_limit: int = FULL_LIMIT, flush_bytes: int = 0, huge_pages: bool = False,
                 temporaries: str = "malloc") -> str:
    """The kernel module plus a `@main` that allocates, fills, times and prints (see module doc).
    With flush_bytes > 0 every timed call is preceded (untimed) by reading a buffer that large,
    so each call starts with cold caches. With huge_pages, arguments of HUGE_PAGE_BYTES or more
    are advised to transparent huge pages, as numpy advises the arrays it allocates. With
    temporaries="cache" @main also prints the allocator's counters (module doc); lower it with
    the same `temporaries`."""
    if reps < 1:
        raise NativeError("reps must be at least 1")
    _check_temporaries(temporaries)
    module_text, sig = _noinline_module(text, kernel)
    sizes = resolve_sizes(sig, sizes)
    parsed = mlir.parse_module(module_text)  # kept alive while its functions are read
    existing = {mlir.func_name(f) for f in mlir.functions(parsed)}
    decls = [d for name, d in _DECLS.items() if name not in existing]
    body = _main_body(sig, sizes, reps, warmup, full_limit, flush_bytes, huge_pages, temporaries)
    if temporaries == "cache":
        from .runtime.alloc import HARNESS_STAT

        if HARNESS_STAT in existing:
            raise NativeError(f"the kernel module defines @{HARNESS_STAT}, which the harness's allocator defines")
        decls.append(f"func.func private @{HARNESS_STAT}(i64) -> i64")
    if huge_pages and "madvise" not in existing and any("@madvise(" in ln for ln in body):
        decls.append("func.func private @madvise(!llvm.ptr, i64, i32) -> i32")
    driver = ["", *("  " + d for d in decls), "  func.func @main() {", *("  " + ln for ln in body), "  }"]
    module_part, resources = split_resources(module_text)
    end = module_part.rstrip().rfind("}")
    return module_part[:end] + "\n".join(driver) + "\n}\n" + resources


# ----------------------------------------------------------------------------- lower and run

def _check_temporaries(temporaries: str) -> None:
    if temporaries not in TEMPORARIES:
        raise NativeError(f"temporaries must be one of {', '.join(TEMPORARIES)}, not {temporaries!r}")


def lowering_passes(temporaries: str = "malloc") -> tuple[str, ...]:
    """The harness's lowering: LOWERING_PASSES, or with temporaries="cache" the runtime's
    (memref.alloc/dealloc through MLIR's generic allocation functions, which
    `allocator_library()` defines)."""
    from .runtime.lowering import RUNTIME_LOWERING_PASSES

    _check_temporaries(temporaries)
    return RUNTIME_LOWERING_PASSES if temporaries == "cache" else LOWERING_PASSES


def lower_to_llvm(text: str, timeout: float = 600, temporaries: str = "malloc") -> str:
    """`text` lowered to the LLVM dialect with `lowering_passes(temporaries)`."""
    p = mlir_opt(text, list(lowering_passes(temporaries)), timeout=timeout)
    if p.returncode != 0:
        raise NativeError("lowering failed: " + first_error_line(p.stderr))
    return p.stdout


def first_error_line(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if "error" in ln] or [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return lines[0] if lines else "(no message)"


def runtime_library() -> str:
    """Path of libmlir_c_runner_utils (rtclock, printI64) next to mlir-runner."""
    runner = find_tool("mlir-runner")
    if runner is None:
        raise NativeError("mlir-runner 22 not found: apt-get install -y mlir-22-tools")
    libdir = os.path.join(os.path.dirname(os.path.realpath(runner)), "..", "lib")
    found = sorted(glob.glob(os.path.join(libdir, "libmlir_c_runner_utils.so*")), key=len)
    if not found:
        raise NativeError(f"libmlir_c_runner_utils.so not found in {os.path.normpath(libdir)}")
    return os.path.normpath(found[0])


_ALLOCATOR: dict = {}  # the process's allocator_library(): {"path": ..., "dir": TemporaryDirectory}


def allocator_library() -> str:
    """Path of the harness's allocation library (temporaries="cache"): runtime/alloc.py's C with
    its two functions visible and the counters' probe (alloc.harness_source), compiled with the
    flags of the libraries' C into a shared object, once per process (a temporary directory
    removed at exit)."""
    if "path" in _ALLOCATOR:
        return _ALLOCATOR["path"]
    import shutil

    from .runtime import alloc
    from .runtime.build import wrapper_cc_flags

    cc = shutil.which("cc")
    if cc is None:
        raise NativeError("cc not found: the harness's allocator (temporaries=\"cache\") is C built here; "
                          "apt-get install -y gcc")
    d = tempfile.TemporaryDirectory(prefix="loopopt-harness-alloc-")
    src, lib = os.path.join(d.name, "alloc.c"), os.path.join(d.name, "libloopopt_harness_alloc.so")
    with open(src, "w") as f:
        f.write(alloc.harness_source())
    p = subprocess.run([cc, *wrapper_cc_flags(), "-shared", src, "-o", lib], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        d.cleanup()
        raise NativeError("building the harness's allocator failed: " + first_error_line(p.stderr))
    _ALLOCATOR.update(path=lib, dir=d)  # the directory lives (and is removed) with the process
    return lib


def uses_allocator(llvm_text: str) -> bool:
    """Whether LLVM-dialect text calls the generic allocation functions or the harness's probe
    (lowered with temporaries="cache"): mlir-runner then needs allocator_library()."""
    from .runtime.alloc import ALLOC, FREE, HARNESS_STAT

    return any(f"@{name}(" in llvm_text for name in (ALLOC, FREE, HARNESS_STAT))


def run_lowered(llvm_text: str, timeout: float = 600) -> str:
    """Run LLVM-dialect text's @main with mlir-runner -O3; returns its stdout. Text lowered with
    temporaries="cache" gets the harness's allocator library too (uses_allocator)."""
    runner = find_tool("mlir-runner")
    if runner is None:
        raise NativeError("mlir-runner 22 not found: apt-get install -y mlir-22-tools")
    libs = [runtime_library()] + ([allocator_library()] if uses_allocator(llvm_text) else [])
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(llvm_text)
        path = f.name
    try:
        cmd = [*_line_buffered(), runner, *RUNNER_FLAGS, *(f"-shared-libs={lib}" for lib in libs), path]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise NativeError(f"mlir-runner timed out after {timeout:.0f} s") from None
    finally:
        os.unlink(path)
    if p.returncode != 0:
        raise NativeError(runner_failure(p.returncode, p.stdout, p.stderr))
    return p.stdout


def _line_buffered() -> list[str]:
    """`stdbuf -oL` where coreutils has it: the program's stdout is then flushed line by line, so
    what a failing `cf.assert` prints (`puts`, then `abort()`) reaches us instead of dying in a
    full buffer. The harness prints after its timed calls, so timing is not affected."""
    import shutil

    stdbuf = shutil.which("stdbuf")
    return [stdbuf, "-oL"] if stdbuf else []


def runner_failure(returncode: int, stdout: str, stderr: str) -> str:
    """One line for a failed mlir-runner run: the exit status (the signal's name when it died of
    one) and the program's own last message, a line of its stdout that is not one of the
    harness's integers (a failing `cf.assert` prints its message, then aborts), else the first
    error line of stderr."""
    import signal

    status = f"exited {returncode}"
    if returncode < 0:
        try:
            status += f" ({signal.Signals(-returncode).name})"
        except ValueError:
            pass
    said = [ln.strip() for ln in stdout.splitlines() if ln.strip() and not _is_int(ln.strip())]
    if said:
        return f"mlir-runner {status}: the program printed: {said[-1]}"
    return f"mlir-runner {status}: {first_error_line(stderr)}"


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _decode(bits: int, elem: str):
    return _f64(bits) if elem.startswith(("f", "bf")) else bits


def parse_output(stdout: str, sig: KernelSignature) -> tuple[tuple[float, ...], tuple[Output, ...]]:
    """Times and outputs from what @main printed; NativeError if it is malformed or truncated."""
    try:
        nums = iter([int(tok) for tok in stdout.split()])
        if next(nums) != MARK:
            raise ValueError("missing start mark")
        times = tuple(_f64(next(nums)) for _ in range(next(nums)))
        next(nums)  # the cache flush's sum, printed only to keep its reads alive
        slots = sig.outputs()
        if next(nums) != len(slots):
            raise ValueError("wrong number of outputs")
        outputs = []
        for slot in slots:
            numel, mode = next(nums), next(nums)
            if mode == 0:
                outputs.append(Output(slot.name, numel, values=tuple(_decode(next(nums), slot.elem) for _ in range(numel))))
            elif mode != 1:
                raise ValueError(f"unknown output mode {mode}")
            else:
                outputs.append(Output(slot.name, numel, checksum=tuple(_f64(next(nums)) for _ in range(3))))
        if next(nums) != MARK:
            raise ValueError("missing end mark")
    except (StopIteration, ValueError) as err:
        raise NativeError(f"harness output is malformed ({err}); stdout starts {stdout[:80]!r}") from None
    return times, tuple(outputs)


def parse_alloc_stats(stdout: str) -> dict | None:
    """The allocator's counters a temporaries="cache" harness printed after its end mark:
    {"warm": {stat: n}, "end": {stat: n}} (alloc.HARNESS_STATS), or None when there are none."""
    from .runtime.alloc import HARNESS_STATS

    n = len(HARNESS_STATS)
    tokens = stdout.split()[-(2 + 2 * n):]  # the last lines: ALLOC_MARK, n, the counters twice
    if len(tokens) != 2 + 2 * n or tokens[0] != str(ALLOC_MARK):
        return None
    try:
        values = [int(t) for t in tokens[2:]]
    except ValueError:
        raise NativeError("harness output is malformed (the allocator's counters)") from None
    if tokens[1] != str(n):
        raise NativeError(f"harness output is malformed ({tokens[1]} allocator counters, expected {n})")
    return {"warm": dict(zip(HARNESS_STATS, values[:n])), "end": dict(zip(HARNESS_STATS, values[n:]))}


def run_native(text: str, kernel: str, sizes: Sequence, reps: int = 5, warmup: int = 1,
               full_limit: int = FULL_LIMIT, flush_bytes: int = 0, timeout: float = 600,
               temporaries: str = "malloc", huge_pages: bool = False) -> NativeResult:
    """Build the harness around @kernel, lower it, run it, and return times and outputs
    (temporaries: "malloc" or "cache", module doc)."""
    harness = make_harness(text, kernel, sizes, reps=reps, warmup=warmup, full_limit=full_limit,
                           flush_bytes=flush_bytes, huge_pages=huge_pages, temporaries=temporaries)
    sig = kernel_signature(text, kernel)
    stdout = run_lowered(lower_to_llvm(harness, timeout=timeout, temporaries=temporaries), timeout=timeout)
    times, outputs = parse_output(stdout, sig)
    return NativeResult(times, outputs, stdout, parse_alloc_stats(stdout) if temporaries == "cache" else None)


# ----------------------------------------------------------------------------- comparison

_CHECKSUM_LABELS = ("sum", "weighted sum", "sum |x|")


def _values_difference(x: Output, y: Output, rtol: float, normwise: bool = False) -> str | None:
    """The first element of two fully printed outputs that differs, scaled by the larger magnitude
    of the two elements (or, `normwise`, by the largest magnitude in either output)."""
    n = min(len(x.values), len(y.values))
    u, v = np.asarray(x.values[:n]), np.asarray(y.values[:n])
    scale = np.maximum(np.abs(u), np.abs(v)) if rtol else None
    if scale is not None and normwise and n:
        with np.errstate(invalid="ignore"):
            finite = scale[np.isfinite(scale)]
        scale = np.full_like(scale, finite.max() if finite.size else 0.0)
    miss = first_mismatch(matching(u, v, rtol, scale=scale, signed_zeros=False))
    if miss is None:
        return None
    k = miss.index[0]
    return f"{x.name}[{k}]: {x.values[k]!r} vs {y.values[k]!r}"


def _checksum_difference(x: Output, y: Output, rtol: float) -> str | None:
    """The first checksum that differs, scaled by the sum of magnitudes (times the largest weight
    for the weighted sum)."""
    mag = max(x.checksum[2], y.checksum[2])
    scale = np.array((mag, mag * WEIGHT_MODULUS, mag))
    miss = first_mismatch(matching(np.array(x.checksum), np.array(y.checksum), rtol, scale=scale,
                                   signed_zeros=False))
    if miss is None:
        return None
    k = miss.index[0]
    return f"{x.name} {_CHECKSUM_LABELS[k]}: {x.checksum[k]!r} vs {y.checksum[k]!r}"


def compare_outputs(a: Sequence[Output], b: Sequence[Output], rtol: float = 0.0, normwise: bool = False) -> str | None:
    """None if the two runs printed equal outputs, else the first difference in one line.

    rtol=0 demands equal values (NaN equals NaN, -0 equals +0; loopopt.oracle.matching). Otherwise
    elements may differ by rtol*max(|a|,|b|) and checksums by rtol times the sum of magnitudes
    (times the largest weight for the weighted sum), which is what reassociating float sums can cost.
    `normwise`: elements may differ by rtol times the largest magnitude of their output (a sum
    whose terms cancel has an error relative to its terms, not to its small result)."""
    if len(a) != len(b):
        return f"{len(a)} outputs vs {len(b)}"
    for x, y in zip(a, b):
        if x.numel != y.numel:
            return f"{x.name}: {x.numel} elements vs {y.numel}"
        if x.values is not None and y.values is not None:
            diff = _values_difference(x, y, rtol, normwise)
        elif x.checksum is not None and y.checksum is not None:
            diff = _checksum_difference(x, y, rtol)
        else:
            diff = f"{x.name}: printed in different modes"
        if diff is not None:
            return diff
    return None


# ----------------------------------------------------------------------------- LLVM's vectorizer

@dataclass(frozen=True)
class VectorizerRemark:
    """One remark of LLVM's loop vectorizer about a loop of the harness (`-pass-remarks=loop-vectorize`).

    `line`/`col` are positions in `source` (the harness text: the kernel module as re-printed, then
    @main), `source_line` is that line's text, so a caller finds its loop by what the line says."""

    line: int
    col: int
    message: str
    source_line: str
    in_kernel: bool  # the position is in the kernel module, not in @main

    @property
    def vectorized(self) -> bool:
        return self.message.startswith("vectorized loop")

    @property
    def width(self) -> int | None:
        """The vectorization width of a vectorized loop."""
        import re

        m = re.search(r"vectorization width: (\d+)", self.message)
        return int(m.group(1)) if m else None


def llvm_vectorizer_remarks(text: str, kernel: str, sizes: Sequence, timeout: float = 600) -> list[VectorizerRemark]:
    """What LLVM's loop vectorizer did with each loop of @kernel under mlir-runner -O3.

    The harness is lowered with LOWERING_PASSES plus `--ensure-debug-info-scope-on-llvm-func`
    (line tables only: the remarks then carry the MLIR positions of the loops) and run once with
    the loop-vectorize remarks on. The timed code is the same as run_native's; only debug line
    tables are added, which do not change what the vectorizer decides."""
    harness = make_harness(text, kernel, sizes, reps=1, warmup=1)
    lines = harness.splitlines()
    main_line = next((k + 1 for k, ln in enumerate(lines) if "func.func @main()" in ln), len(lines) + 1)
    runner, opt = find_tool("mlir-runner"), find_tool("mlir-opt")
    if runner is None or opt is None:
        raise NativeError("mlir-opt/mlir-runner 22 not found: apt-get install -y mlir-22-tools")
    with tempfile.TemporaryDirectory() as tmp:
        src, low = os.path.join(tmp, "harness.mlir"), os.path.join(tmp, "lowered.mlir")
        with open(src, "w") as f:
            f.write(harness)
        p = subprocess.run([opt, src, *LOWERING_PASSES, "--ensure-debug-info-scope-on-llvm-func",
                            "-mlir-print-debuginfo", "-o", low], capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise NativeError("lowering failed: " + first_error_line(p.stderr))
        cmd = [runner, *RUNNER_FLAGS, f"-shared-libs={runtime_library()}", "--pass-remarks=loop-vectorize",
               "--pass-remarks-missed=loop-vectorize", "--pass-remarks-analysis=loop-vectorize", low]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise NativeError(f"mlir-runner timed out after {timeout:.0f} s") from None
    if p.returncode != 0:
        raise NativeError(runner_failure(p.returncode, "", p.stderr))
    import re

    out = []
    for m in re.finditer(r"^remark: harness\.mlir:(\d+):(\d+): (.*)$", p.stderr, re.MULTILINE):
        line, col = int(m.group(1)), int(m.group(2))
        source = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        out.append(VectorizerRemark(line, col, m.group(3).strip(), source, line < main_line))
    return out
