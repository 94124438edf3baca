"""Compile-time scaling: loopopt against mlir-opt on the layouts real front ends emit.

    python3 benchmarks/scaling.py                  every pattern (~20 min on 2 busy CPUs)
    python3 benchmarks/scaling.py --only refused_1d,mixed --timeout 60
    python3 benchmarks/scaling.py --quick          the two smallest sizes of every pattern (a smoke run)
    python3 benchmarks/scaling.py --only shared_buffer --merge   re-run some patterns, keep the others'

Each pattern is a generator of one function from a size N; every tool of the pattern compiles
every size, smallest first, side by side in one run (for each size, the tools in turn). Wall
time and peak resident memory are measured per child process, with a timeout; a tool that times
out skips the larger sizes of that pattern. The loops left in each output are counted, so a tool
that gives up early is visible. Writes results/scaling.json, and from it results/scaling.md and
results/compile_time.png (report.py).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for _path in (REPO, HERE):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import numpy as np  # noqa: E402

from loopopt.toolchain import find_tool  # noqa: E402

RESULTS = os.path.join(HERE, "results")
SIZES = (250, 500, 1000, 2000, 4000)  # loops in the chain patterns (run.py's --scaling-sizes sets these)
TARGET_EXPONENT = 1.3  # issue 13: N log N at most, read as k <= 1.3 between the two largest sizes
ISSUE38_EXPONENT = 1.2  # issue 38's layouts: k <= 1.2 between the two largest sizes

# The time goal of a pattern's loopopt tools at its largest size (Pattern.goal):
FASTER = "faster than mlir-opt"  # issue 13: than the fastest mlir-opt tool of the pattern
WITHIN = "within 2x of max(mlir-opt, 0.5 s)"  # issue 38: single loops, start-up included
GROWTH_ONLY = "k only"  # issue 38's variations of its layouts: their growth is the target
SMALL_FLOOR = 0.5  # seconds: WITHIN's floor


def under(seconds: float) -> str:
    """The goal `under S s` (issue 38: the in-place chain at 2,000 loops under 10 s)."""
    return f"under {seconds:g} s"
DEFAULT_TIMEOUT = 120.0


# ---------------------------------------------------------------------------------------------
# Pattern generators: each returns the text of one module with one function.

def _elementwise(src: str, dst: str, t: str, extent: int) -> list[str]:
    """One loop: dst[i] = src[i] * 1.5 + 0.25."""
    return [f"  affine.for %i = 0 to {extent} {{",
            f"    %x = affine.load {src}[%i] : {t}",
            "    %y = arith.mulf %x, %c : f32",
            "    %z = arith.addf %y, %d : f32",
            f"    affine.store %z, {dst}[%i] : {t}",
            "  }"]


def _chain(n: int, extent: int, allocs_on_top: bool) -> str:
    t = f"memref<{extent}xf32>"
    lines = [f"func.func @chain(%in: {t}, %out: {t}) {{", "  %c = arith.constant 1.5 : f32",
             "  %d = arith.constant 0.25 : f32"]
    if allocs_on_top:
        lines += [f"  %t{k} = memref.alloc() : {t}" for k in range(n - 1)]
    src = "%in"
    for k in range(n):
        dst = f"%t{k}" if k < n - 1 else "%out"
        if not allocs_on_top and k < n - 1:
            lines.append(f"  %t{k} = memref.alloc() : {t}")
        lines += _elementwise(src, dst, t, extent)
        src = dst
    return "\n".join(lines + ["  return", "}"]) + "\n"


def chain_allocs_top(n: int, extent: int = 64) -> str:
    """N elementwise loops, loop k reading what loop k-1 wrote through N-1 placed buffers, every
    memref.alloc at the top of the function. No deallocs (they slow MLIR's pass about 2x)."""
    return _chain(n, extent, allocs_on_top=True)


chain_module = chain_allocs_top  # the name this generator had before the patterns


def chain_interleaved(n: int, extent: int = 64) -> str:
    """The same chain with each memref.alloc right before the loop that fills it, as
    bufferization emits it."""
    return _chain(n, extent, allocs_on_top=False)


def _refused_trip(k: int) -> int:
    """Trip counts alternate 16, 15, so no two neighbouring nests have the same."""
    return 16 if k % 2 == 0 else 15


def refused_1d(n: int) -> str:
    """N loops updating one buffer in place, trip counts alternating 16 and 15: every candidate
    pair is refused for unmatched trip counts."""
    t = "memref<16xf32>"
    lines = [f"func.func @refused(%a: {t}) {{", "  %c = arith.constant 1.5 : f32"]
    for k in range(n):
        lines += [f"  affine.for %i = 0 to {_refused_trip(k)} {{",
                  f"    %x = affine.load %a[%i] : {t}",
                  "    %y = arith.mulf %x, %c : f32",
                  f"    affine.store %y, %a[%i] : {t}",
                  "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def refused_2d(n: int) -> str:
    """N two-deep nests updating one 16x8 buffer in place, outer trip counts alternating 16 and 15."""
    t = "memref<16x8xf32>"
    lines = [f"func.func @refused2(%a: {t}) {{", "  %c = arith.constant 1.5 : f32"]
    for k in range(n):
        lines += [f"  affine.for %i = 0 to {_refused_trip(k)} {{",
                  "    affine.for %j = 0 to 8 {",
                  f"      %x = affine.load %a[%i, %j] : {t}",
                  "      %y = arith.mulf %x, %c : f32",
                  f"      affine.store %y, %a[%i, %j] : {t}",
                  "    }",
                  "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def many_accesses(k: int) -> str:
    """One loop of 4 iterations with K loads of the argument %a and K stores to a placed buffer %b
    (element i*K + j), then one loop copying %b back to %a."""
    n = 4 * k
    t = f"memref<{n}xf32>"
    lines = [f"func.func @many(%a: {t}) {{", f"  %b = memref.alloc() : {t}", "  affine.for %i = 0 to 4 {"]
    for j in range(k):
        lines += [f"    %x{j} = affine.load %a[%i * {k} + {j}] : {t}",
                  f"    affine.store %x{j}, %b[%i * {k} + {j}] : {t}"]
    lines += ["  }",
              f"  affine.for %i = 0 to {n} {{",
              f"    %v = affine.load %b[%i] : {t}",
              f"    affine.store %v, %a[%i] : {t}",
              "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def unrolled_private(k: int) -> str:
    """One loop of 4 iterations, unrolled K times, through a placed temporary each iteration owns
    (K stores of %a's elements into %b, then K loads of them in reverse order into %out): the
    temporary shrinks to K elements once contraction shows no two iterations share one."""
    n = 4 * k
    t = f"memref<{n}xf32>"
    lines = [f"func.func @unrolled(%a: {t}, %out: {t}) {{", f"  %b = memref.alloc() : {t}",
             "  affine.for %i = 0 to 4 {"]
    for j in range(k):
        lines += [f"    %x{j} = affine.load %a[%i * {k} + {j}] : {t}",
                  f"    affine.store %x{j}, %b[%i * {k} + {j}] : {t}"]
    for j in range(k):
        lines += [f"    %y{j} = affine.load %b[%i * {k} + {k - 1 - j}] : {t}",
                  f"    affine.store %y{j}, %out[%i * {k} + {j}] : {t}"]
    return "\n".join(lines + ["  }", "  return", "}"]) + "\n"


def licm_accesses(k: int) -> str:
    """One loop of 16 iterations with K loop-invariant loads of %a[j] and K stores to %a beyond
    them (element (i+1)*K + j): every load may be hoisted once each store is shown not to reach it."""
    t = f"memref<{17 * k}xf32>"
    lines = [f"func.func @licm(%a: {t}) {{", "  affine.for %i = 0 to 16 {"]
    for j in range(k):
        lines += [f"    %x{j} = affine.load %a[{j}] : {t}",
                  f"    affine.store %x{j}, %a[%i * {k} + {k + j}] : {t}"]
    return "\n".join(lines + ["  }", "  return", "}"]) + "\n"


def shared_buffer(n: int) -> str:
    """N two-deep nests over one placed 16x16 buffer, each reading it transposed and in place and
    writing it back (a[i][j] = (a[j][i] + a[i][j]) * 1.5), trip counts alternating 16 and 15 in
    both loops: every candidate pair shares the buffer and is refused (unmatched trip counts, or
    a refused nest in between), so liveness and the rescues see every pair."""
    t = "memref<16x16xf32>"
    lines = ["func.func @shared() {", "  %c = arith.constant 1.5 : f32", f"  %a = memref.alloc() : {t}"]
    for k in range(n):
        trip = _refused_trip(k)
        lines += [f"  affine.for %i = 0 to {trip} {{",
                  f"    affine.for %j = 0 to {trip} {{",
                  f"      %x = affine.load %a[%j, %i] : {t}",
                  f"      %y = affine.load %a[%i, %j] : {t}",
                  "      %s = arith.addf %x, %y : f32",
                  "      %z = arith.mulf %s, %c : f32",
                  f"      affine.store %z, %a[%i, %j] : {t}",
                  "    }",
                  "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def strided_private(k: int) -> str:
    """One loop of 4 iterations through a placed temporary each iteration owns, interleaved: K
    stores of %a's elements to %b[i + 4j], then K loads of them in reverse order into %out.
    Every index has IV coefficient 1, so the accesses form one residue class and contraction's
    privacy check sees all 2K of them at once (unrolled_private's split into K classes)."""
    n = 4 * k
    t = f"memref<{n}xf32>"
    lines = [f"func.func @strided(%a: {t}, %out: {t}) {{", f"  %b = memref.alloc() : {t}",
             "  affine.for %i = 0 to 4 {"]
    for j in range(k):
        lines += [f"    %x{j} = affine.load %a[%i * {k} + {j}] : {t}",
                  f"    affine.store %x{j}, %b[%i + {4 * j}] : {t}"]
    for j in range(k):
        lines += [f"    %y{j} = affine.load %b[%i + {4 * (k - 1 - j)}] : {t}",
                  f"    affine.store %y{j}, %out[%i * {k} + {j}] : {t}"]
    return "\n".join(lines + ["  }", "  return", "}"]) + "\n"


def distribute_refused(k: int) -> str:
    """A refused pair whose first loop has K statements: one loop of 4 iterations copying %a
    into a placed %b (element i*K + j), then a loop reading %b[i*K + K], which the first loop
    writes one iteration later (a negative distance). Distribution splits the first loop into K
    loops, one of which fuses with the reader."""
    n = 5 * k
    t = f"memref<{n}xf32>"
    lines = [f"func.func @distribute(%a: {t}, %out: {t}) {{", f"  %b = memref.alloc() : {t}",
             "  affine.for %i = 0 to 4 {"]
    for j in range(k):
        lines += [f"    %x{j} = affine.load %a[%i * {k} + {j}] : {t}",
                  f"    affine.store %x{j}, %b[%i * {k} + {j}] : {t}"]
    lines += ["  }",
              "  affine.for %i = 0 to 4 {",
              f"    %y = affine.load %b[%i * {k} + {k}] : {t}",
              f"    affine.store %y, %out[%i] : {t}",
              "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


MIXED_ACCESSES = 16  # load/store pairs in each mixed unit's many-access loop


def mixed(units: int) -> str:
    """UNITS repetitions of five loops, each buffer allocated right before the loop that fills it:
    two elementwise loops that fuse, a refused pair (trip counts 16 and 15 over one buffer shared
    by all units), and a loop of 4 iterations with 16 loads and 16 stores that feeds the next unit."""
    t, s = "memref<64xf32>", "memref<16xf32>"
    lines = [f"func.func @mixed(%in: {t}, %s: {s}, %out: {t}) {{",
             "  %c = arith.constant 1.5 : f32", "  %d = arith.constant 0.25 : f32"]
    src = "%in"
    for u in range(units):
        lines.append(f"  %p{u} = memref.alloc() : {t}")
        lines += _elementwise(src, f"%p{u}", t, 64)
        lines.append(f"  %r{u} = memref.alloc() : {t}")
        lines += _elementwise(f"%p{u}", f"%r{u}", t, 64)
        for trip in (16, 15):
            lines += [f"  affine.for %i = 0 to {trip} {{",
                      f"    %x = affine.load %s[%i] : {s}",
                      "    %y = arith.mulf %x, %c : f32",
                      f"    affine.store %y, %s[%i] : {s}",
                      "  }"]
        dst = "%out" if u == units - 1 else f"%q{u}"
        if u < units - 1:
            lines.append(f"  %q{u} = memref.alloc() : {t}")
        lines.append("  affine.for %i = 0 to 4 {")
        for j in range(MIXED_ACCESSES):
            lines += [f"    %x{j} = affine.load %r{u}[%i * {MIXED_ACCESSES} + {j}] : {t}",
                      f"    affine.store %x{j}, {dst}[%i * {MIXED_ACCESSES} + {j}] : {t}"]
        lines.append("  }")
        src = dst
    return "\n".join(lines + ["  return", "}"]) + "\n"


def deep_nest(depth: int) -> str:
    """One perfect nest DEPTH loops deep (each 0 to 2) whose body scales a 2x2 buffer indexed by
    the two innermost induction variables."""
    t = "memref<2x2xf32>"
    lines = [f"func.func @deep(%a: {t}, %b: {t}) {{", "  %c = arith.constant 1.5 : f32"]
    lines += [" " * (k + 1) + f"affine.for %i{k} = 0 to 2 {{" for k in range(depth)]
    pad = " " * (depth + 1)
    i, j = (f"%i{depth - 2}", f"%i{depth - 1}") if depth >= 2 else ("%i0", "%i0")
    lines += [f"{pad}%x = affine.load %a[{i}, {j}] : {t}",
              f"{pad}%y = arith.mulf %x, %c : f32",
              f"{pad}affine.store %y, %b[{i}, {j}] : {t}"]
    lines += [" " * (k + 1) + "}" for k in reversed(range(depth))]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def inplace_chain(n: int) -> str:
    """N loops over one function argument, each doubling A[i] in place (issue 38): every pair
    shares only the argument, so the cpu fuses the whole chain into one loop whose accesses grow
    with each fuse, and each of its dependence checks meets every access fused so far."""
    t = "memref<64xf32>"
    loop = ["  affine.for %i = 0 to 64 {", f"    %v = affine.load %A[%i] : {t}", "    %w = arith.addf %v, %v : f32",
            f"    affine.store %w, %A[%i] : {t}", "  }"]
    return "\n".join([f"func.func @chain(%A: {t}) {{"] + loop * n + ["  return", "}"]) + "\n"


def inplace_chain_2d(n: int) -> str:
    """The in-place chain with 2-deep nests over a 16x64 argument: A[i][j] = A[i][j] * 1.5."""
    t = "memref<16x64xf32>"
    nest = ["  affine.for %i = 0 to 16 {", "    affine.for %j = 0 to 64 {", f"      %v = affine.load %A[%i, %j] : {t}",
            "      %w = arith.mulf %v, %c : f32", f"      affine.store %w, %A[%i, %j] : {t}", "    }", "  }"]
    head = [f"func.func @chain2(%A: {t}) {{", "  %c = arith.constant 1.5 : f32"]
    return "\n".join(head + nest * n + ["  return", "}"]) + "\n"


def inplace_chain_symbolic(n: int) -> str:
    """The in-place chain over a dynamically sized argument, every loop running to the symbol %n."""
    t = "memref<?xf32>"
    loop = ["  affine.for %i = 0 to %n {", f"    %v = affine.load %A[%i] : {t}", "    %w = arith.addf %v, %v : f32",
            f"    affine.store %w, %A[%i] : {t}", "  }"]
    return "\n".join([f"func.func @chain_sym(%A: {t}, %n: index) {{"] + loop * n + ["  return", "}"]) + "\n"


def _copy_nest(src: str, dst: str, t: str, rows: str, cols: str) -> list[str]:
    return [f"  affine.for %i = 0 to {rows} {{", f"    affine.for %j = 0 to {cols} {{",
            f"      %x = affine.load {src}[%i, %j] : {t}", f"      affine.store %x, {dst}[%i, %j] : {t}", "    }", "  }"]


def _transpose_add_nest(t: str, rows: str, cols: str) -> list[str]:
    return [f"  affine.for %i = 0 to {rows} {{", f"    affine.for %j = 0 to {cols} {{",
            f"      %x = affine.load %T[%j, %i] : {t}", f"      %y = affine.load %T[%i, %j] : {t}",
            "      %s = arith.addf %x, %y : f32", f"      affine.store %s, %T[%i, %j] : {t}", "    }", "  }"]


def refused_copy(n: int) -> str:
    """Refused nests between a copy in and a copy out (issue 38): a placed 16x16 buffer T filled
    from argument A, then N two-deep nests T[i][j] = T[j][i] + T[i][j] with the outer trip count
    alternating 16 and 15 and the inner fixed at 16 (every candidate pair refused), then T copied
    to argument B: T is live across every pair, and each refusal tries the rescues."""
    t = "memref<16x16xf32>"
    lines = [f"func.func @refused_copy(%A: {t}, %B: {t}) {{", f"  %T = memref.alloc() : {t}"]
    lines += _copy_nest("%A", "%T", t, "16", "16")
    for k in range(n):
        lines += _transpose_add_nest(t, str(_refused_trip(k)), "16")
    lines += _copy_nest("%T", "%B", t, "16", "16")
    return "\n".join(lines + ["  return", "}"]) + "\n"


def refused_copy_1d(n: int) -> str:
    """refused_copy in one dimension: T[i] = T[15 - i] + T[i] over a placed memref<16xf32>, trip
    counts alternating 16 and 15, between a copy in from A and a copy out to B."""
    t = "memref<16xf32>"
    lines = [f"func.func @refused_copy1(%A: {t}, %B: {t}) {{", f"  %T = memref.alloc() : {t}",
             "  affine.for %i = 0 to 16 {", f"    %x = affine.load %A[%i] : {t}", f"    affine.store %x, %T[%i] : {t}", "  }"]
    for k in range(n):
        lines += [f"  affine.for %i = 0 to {_refused_trip(k)} {{", f"    %x = affine.load %T[15 - %i] : {t}",
                  f"    %y = affine.load %T[%i] : {t}", "    %s = arith.addf %x, %y : f32",
                  f"    affine.store %s, %T[%i] : {t}", "  }"]
    lines += ["  affine.for %i = 0 to 16 {", f"    %x = affine.load %T[%i] : {t}", f"    affine.store %x, %B[%i] : {t}", "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def refused_copy_symbolic(n: int) -> str:
    """refused_copy with symbolic sizes: T is %n x %n, the outer trip counts alternate the symbols
    %n and %m (not provably equal: refused) and the inner loops run to %n."""
    t = "memref<?x?xf32>"
    lines = [f"func.func @refused_copy_sym(%A: {t}, %B: {t}, %n: index, %m: index) {{",
             f"  %T = memref.alloc(%n, %n) : {t}"]
    lines += _copy_nest("%A", "%T", t, "%n", "%n")
    for k in range(n):
        lines += _transpose_add_nest(t, "%n" if k % 2 == 0 else "%m", "%n")
    lines += _copy_nest("%T", "%B", t, "%n", "%n")
    return "\n".join(lines + ["  return", "}"]) + "\n"


# ---------------------------------------------------------------------------------------------
# Tools and patterns.

LOOPOPT_CPU = "loopopt --target cpu"
LOOPOPT_TRN1 = "loopopt --target trn1"
LOOPOPT_DISTRIBUTE = "loopopt --target trn1 --passes distribute"
MLIR_FUSION = "mlir-opt --affine-loop-fusion"
MLIR_LICM = "mlir-opt --affine-loop-invariant-code-motion"


def tool_commands() -> dict[str, list[str]]:
    """Command prefix per tool; `-o OUT FILE` is appended."""
    loopopt = [sys.executable, "-m", "loopopt"]
    mlir_opt = find_tool("mlir-opt") or "mlir-opt"
    return {
        LOOPOPT_CPU: loopopt + ["--target", "cpu"],
        LOOPOPT_TRN1: loopopt + ["--target", "trn1"],
        LOOPOPT_DISTRIBUTE: loopopt + ["--target", "trn1", "--passes", "distribute"],
        MLIR_FUSION: [mlir_opt, "--affine-loop-fusion"],
        MLIR_LICM: [mlir_opt, "--affine-loop-invariant-code-motion"],
    }


def is_loopopt(tool: str) -> bool:
    return tool.startswith("loopopt")


@dataclass(frozen=True)
class Pattern:
    name: str
    generate: Callable[[int], str]
    sizes: tuple[int, ...]
    unit: str  # what N counts
    tools: tuple[str, ...]
    goal: str = FASTER  # the loopopt tools' time goal at the largest size (FASTER, WITHIN, under(S))
    exponent: float = TARGET_EXPONENT  # the largest k allowed between the two largest sizes


BOTH = (LOOPOPT_CPU, LOOPOPT_TRN1, MLIR_FUSION)
ISSUE38_CHAIN = (250, 500, 1000, 2000)  # loops in the in-place chains
ISSUE38_NESTS = (50, 100, 200, 400)  # refused nests between a copy in and a copy out
PATTERNS = (
    Pattern("chain_allocs_top", chain_allocs_top, SIZES, "loops", BOTH),
    Pattern("chain_interleaved", chain_interleaved, SIZES, "loops", BOTH),
    Pattern("refused_1d", refused_1d, (50, 100, 200, 400), "nests", BOTH),
    Pattern("refused_2d", refused_2d, (50, 100, 200, 400), "nests", BOTH),
    Pattern("many_accesses", many_accesses, (32, 64, 128, 256), "load/store pairs",
            (LOOPOPT_CPU, LOOPOPT_TRN1, LOOPOPT_DISTRIBUTE, MLIR_FUSION), WITHIN),
    Pattern("licm", licm_accesses, (30, 60, 120, 240), "load/store pairs", BOTH + (MLIR_LICM,), WITHIN),
    Pattern("unrolled_private", unrolled_private, (32, 64, 128, 256), "unrolled copies", BOTH, WITHIN),
    Pattern("strided_private", strided_private, (32, 64, 128), "interleaved copies (2 accesses of %b each)", BOTH,
            WITHIN),
    Pattern("distribute_refused", distribute_refused, (32, 64, 128), "statements in the refused loop", BOTH, WITHIN),
    Pattern("mixed", mixed, (40, 80, 160, 320), "units of 5 loops", BOTH),
    Pattern("shared_buffer", shared_buffer, (50, 100, 200, 400), "nests over one buffer", BOTH),
    Pattern("deep_nest", deep_nest, (125, 250, 500), "loops deep", BOTH, WITHIN),
    Pattern("chain_10k", chain_interleaved, (2500, 5000, 10000), "loops (interleaved allocs)", BOTH),
    Pattern("inplace_chain", inplace_chain, ISSUE38_CHAIN, "loops updating one argument in place", BOTH,
            under(10.0), ISSUE38_EXPONENT),
    Pattern("inplace_chain_2d", inplace_chain_2d, ISSUE38_CHAIN, "2-deep nests updating one argument in place",
            BOTH, GROWTH_ONLY, ISSUE38_EXPONENT),
    Pattern("inplace_chain_symbolic", inplace_chain_symbolic, ISSUE38_CHAIN, "loops to %n updating one argument",
            BOTH, GROWTH_ONLY, ISSUE38_EXPONENT),
    Pattern("refused_copy", refused_copy, ISSUE38_NESTS, "refused nests between a copy in and a copy out", BOTH,
            FASTER, ISSUE38_EXPONENT),
    Pattern("refused_copy_1d", refused_copy_1d, ISSUE38_NESTS, "refused 1-D loops between copies", BOTH,
            GROWTH_ONLY, ISSUE38_EXPONENT),
    Pattern("refused_copy_symbolic", refused_copy_symbolic, ISSUE38_NESTS, "refused nests to %n or %m between copies",
            BOTH, GROWTH_ONLY, ISSUE38_EXPONENT),
)


def select_patterns(only: str | None, chain_sizes: tuple[int, ...] | None = None,
                    quick: bool = False) -> list[Pattern]:
    """The named patterns (all when `only` is empty); `chain_sizes` replaces the sizes of the two
    chain patterns; `quick` keeps the two smallest sizes of each."""
    by_name = {p.name: p for p in PATTERNS}
    names = [w.strip() for w in only.split(",") if w.strip()] if only else list(by_name)
    unknown = [w for w in names if w not in by_name]
    if unknown:
        raise SystemExit(f"scaling.py: error: unknown pattern(s) {', '.join(unknown)} "
                         f"(known: {', '.join(by_name)})")
    out = []
    for p in (by_name[w] for w in names):
        sizes = tuple(sorted(chain_sizes)) if chain_sizes and p.name.startswith("chain_") and p.name != "chain_10k" \
            else p.sizes
        if quick:
            sizes = sizes[:2]
        out.append(Pattern(p.name, p.generate, sizes, p.unit, p.tools, p.goal, p.exponent))
    return out


# ---------------------------------------------------------------------------------------------
# Measuring.

@dataclass(frozen=True)
class Measurement:
    pattern: str
    tool: str
    size: int
    seconds: float | None  # None: failed, timed out or skipped
    peak_rss_mib: float | None
    status: str  # "ok", "exit N: first stderr line", "timeout (T s)", "skipped (timed out at N)"
    loops_after: int | None = None  # affine.for ops in the tool's output
    cpu_seconds: float | None = None  # user + system time of the child and what it waited for


TIME = "/usr/bin/time"


def _peak_kib(path: str) -> int | None:
    try:
        with open(path) as f:
            last = f.read().strip().splitlines()[-1]
        return int(last)
    except (OSError, IndexError, ValueError):
        return None


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the child and everything it started (GNU time's child is the tool itself), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def measure(cmd: list[str], timeout: float) -> tuple[float | None, float | None, str, float | None]:
    """(wall seconds, peak RSS MiB, status, CPU seconds) of one child process. The CPU time (user
    + system, of the child and the processes it waited for: wait4's usage) varies far less than
    the wall time with the load of a shared machine.

    The peak comes from GNU time when installed: a child forked from this (large) Python process
    inherits its high-water mark across exec, so its own ru_maxrss would overstate small tools.
    The child runs in its own process group, so a timeout kills the tool under GNU time too (killing
    only GNU time would leave the tool running and competing with the next measurement)."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile(suffix=".rss") as rss_file:
        use_time = os.path.exists(TIME)
        if use_time:
            cmd = [TIME, "-f", "%M", "-o", rss_file.name, *cmd]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=REPO, start_new_session=True)
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - start > timeout:
                    _kill_group(proc)
                    return None, None, f"timeout ({timeout:.0f} s)", None
                time.sleep(0.005)
        except BaseException:  # interrupted: do not leave the child running
            _kill_group(proc)
            raise
        wall = time.perf_counter() - start
        cpu = usage.ru_utime + usage.ru_stime
        proc.returncode = os.waitstatus_to_exitcode(status)
        kib = _peak_kib(rss_file.name) if use_time else usage.ru_maxrss  # KiB on Linux
        rss = kib / 1024.0 if kib is not None else None
        if proc.returncode != 0:
            err.seek(0)
            first = (err.read().decode(errors="replace").strip().splitlines() or [""])[0]
            return None, rss, f"exit {proc.returncode}: {first[:160]}", None
        return wall, rss, "ok", cpu


def _loops_in(path: str) -> int | None:
    try:
        with open(path) as f:
            return sum(line.count("affine.for") for line in f)
    except OSError:
        return None


def run_pattern(pattern: Pattern, timeout: float, tmp: str, log=print) -> list[Measurement]:
    """Every tool of the pattern on every size, smallest first; a tool that timed out skips the
    larger sizes."""
    commands = tool_commands()
    results = []
    gave_up: dict[str, int] = {}
    out = os.path.join(tmp, "out.mlir")
    for n in sorted(pattern.sizes):
        path = os.path.join(tmp, f"{pattern.name}{n}.mlir")
        with open(path, "w") as f:
            f.write(pattern.generate(n))
        for tool in pattern.tools:
            if tool in gave_up:
                results.append(Measurement(pattern.name, tool, n, None, None, f"skipped (timed out at {gave_up[tool]})"))
                continue
            if os.path.exists(out):
                os.unlink(out)
            secs, rss, status, cpu = measure(commands[tool] + ["-o", out, path], timeout)
            if status.startswith("timeout"):
                gave_up[tool] = n
            after = _loops_in(out) if status == "ok" else None
            results.append(Measurement(pattern.name, tool, n, secs, rss, status, after, cpu))
            shown = f"{secs:7.2f} s (CPU {cpu:.2f} s)" if secs is not None else status
            log(f"  {pattern.name:17s} {tool:42s} N={n:6d}: {shown}, peak {rss or 0:.0f} MiB, {after} loops after")
        os.unlink(path)
    return results


def run_scaling(sizes=SIZES, timeout: float = DEFAULT_TIMEOUT, log=print, only: str | None = None,
                quick: bool = False) -> list[Measurement]:
    """Every selected pattern in turn (`sizes`: the chain patterns' loop counts)."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for pattern in select_patterns(only, tuple(sizes) if sizes else None, quick):
            results += run_pattern(pattern, timeout, tmp, log)
    return results


def compile_bytecode() -> None:
    """Write loopopt's bytecode caches before timing it, as `pip install` does for an installed
    package: with PYTHONDONTWRITEBYTECODE set (these machines set it) or a read-only checkout,
    every compile would otherwise recompile loopopt's sources first (about 40 ms)."""
    import compileall

    import loopopt
    compileall.compile_dir(os.path.dirname(loopopt.__file__), quiet=1)


def startup_seconds(runs: int = 3) -> float | None:
    """loopopt's fixed cost (interpreter start, imports) on an empty function: the best of RUNS."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "empty.mlir")
        with open(path, "w") as f:
            f.write("func.func @empty() {\n  return\n}\n")
        cmd = tool_commands()[LOOPOPT_CPU] + ["-o", os.path.join(tmp, "out.mlir"), path]
        times = [measure(cmd, 60)[0] for _ in range(runs)]
    times = [t for t in times if t is not None]
    return min(times) if times else None


# ---------------------------------------------------------------------------------------------
# Growth and the issue's target.

def growth_exponent(points: list[tuple[int, float | None]]) -> float | None:
    """Least-squares slope of log(time) against log(N) over every size that ran: time ~ N^slope."""
    pts = [(n, t) for n, t in points if t and t > 0]
    if len(pts) < 2:
        return None
    x = np.log([n for n, _ in pts])
    y = np.log([t for _, t in pts])
    return float(np.polyfit(x, y, 1)[0])


def local_exponent(points: list[tuple[int, float | None]]) -> float | None:
    """log(t2/t1) / log(n2/n1) between the two largest sizes that ran."""
    pts = sorted((n, t) for n, t in points if t and t > 0)
    if len(pts) < 2:
        return None
    (n1, t1), (n2, t2) = pts[-2], pts[-1]
    return math.log(t2 / t1) / math.log(n2 / n1)


def net_exponent(points: list[tuple[int, float | None]], fixed: float | None) -> float | None:
    """local_exponent after subtracting a fixed start-up cost from both times (None when either
    time is not above it): start-up flattens the plain exponent of a fast tool."""
    if not fixed:
        return None
    pts = sorted((n, t) for n, t in points if t and t > 0)
    if len(pts) < 2 or pts[-2][1] <= fixed or pts[-1][1] <= fixed:
        return None
    (n1, t1), (n2, t2) = pts[-2], pts[-1]
    return math.log((t2 - fixed) / (t1 - fixed)) / math.log(n2 / n1)


def timeout_lower_bound(points: list[tuple[int, float | None, str]]) -> float | None:
    """When a size timed out ("timeout (T s)") after a smaller size ran in t1 seconds, the exponent
    between the two is at least log(T/t1)/log(n2/n1); None when nothing timed out."""
    pts = sorted(points, key=lambda p: p[0])
    hit = next(((n, s) for n, t, s in pts if s.startswith("timeout (")), None)
    if hit is None:
        return None
    n2, status = hit
    ran = [(n, t) for n, t, _ in pts if t and n < n2]
    if not ran:
        return None
    n1, t1 = ran[-1]
    limit = float(status[len("timeout ("):].split()[0])
    return math.log(limit / t1) / math.log(n2 / n1)


@dataclass(frozen=True)
class Verdict:
    """The issue's target for one loopopt tool on one pattern: its time goal at the largest size
    (`goal`: FASTER, WITHIN or under(S)) and growth (k <= `limit`), on wall time; the same goal
    judged on CPU time (`cpu_ok`, None when a time is missing), which a loaded machine disturbs
    far less."""
    pattern: str
    tool: str
    size: int
    seconds: float | None
    mlir_tool: str | None  # the fastest mlir-opt tool at the largest size (or the one that ran longest)
    mlir_seconds: float | None  # None: it timed out, failed or did not run
    mlir_status: str
    exponent_last: float | None
    faster: bool  # the time goal is met (for FASTER: faster than mlir-opt)
    grows_ok: bool
    goal: str = FASTER
    limit: float = TARGET_EXPONENT
    cpu_seconds: float | None = None
    mlir_cpu_seconds: float | None = None
    exponent_last_cpu: float | None = None
    cpu_ok: bool | None = None

    @property
    def met(self) -> bool:
        return self.faster and self.grows_ok


def meets_goal(goal: str, mine: float | None, mlir: float | None) -> bool:
    """loopopt's `mine` seconds against the goal, `mlir` the fastest mlir-opt tool's (None: it
    timed out, failed or did not run, so it is slower than anything); a loopopt failure misses."""
    if mine is None:
        return False
    if goal == GROWTH_ONLY:
        return True
    if goal == WITHIN:
        return mlir is None or mine <= 2 * max(mlir, SMALL_FLOOR)
    if goal.startswith("under "):
        return mine < float(goal.split()[1])
    return mlir is None or mine < mlir


def verdicts(results: list[Measurement], limit: float = TARGET_EXPONENT) -> list[Verdict]:
    """Per pattern and loopopt tool: its time goal at the largest size (by default faster than
    every mlir-opt tool; an mlir-opt timeout counts as slower, a failure of loopopt as a miss),
    and exponent <= the pattern's limit (`limit` for a pattern not in PATTERNS) between the two
    largest sizes."""
    out = []
    by_name = {p.name: p for p in PATTERNS}
    for pattern in dict.fromkeys(m.pattern for m in results):
        known = by_name.get(pattern)
        goal, k_max = (known.goal, known.exponent) if known else (FASTER, limit)
        ms = [m for m in results if m.pattern == pattern]
        largest = max(m.size for m in ms)
        mlir = [m for m in ms if m.size == largest and not is_loopopt(m.tool)]
        timed = [m for m in mlir if m.seconds is not None]
        ref = min(timed, key=lambda m: m.seconds) if timed else next(iter(mlir), None)
        mlir_cpu = min((m.cpu_seconds for m in timed if m.cpu_seconds is not None), default=None)
        for tool in dict.fromkeys(m.tool for m in ms if is_loopopt(m.tool)):
            mine = [m for m in ms if m.tool == tool]
            at = next(m for m in mine if m.size == largest)
            k = local_exponent([(m.size, m.seconds) for m in mine])
            k_cpu = local_exponent([(m.size, m.cpu_seconds) for m in mine])
            mlir_secs = ref.seconds if ref else None
            faster = meets_goal(goal, at.seconds, mlir_secs)
            cpu_ok = None if at.cpu_seconds is None or (timed and mlir_cpu is None) else \
                meets_goal(goal, at.cpu_seconds, mlir_cpu)
            grows_ok = k is not None and k <= k_max and at.seconds is not None
            out.append(Verdict(pattern, tool, largest, at.seconds, ref.tool if ref else None, mlir_secs,
                               ref.status if ref else "not run", k, faster, grows_ok, goal, k_max,
                               at.cpu_seconds, mlir_cpu, k_cpu, cpu_ok))
    return out


def summarize(results: list[Measurement], startup: float | None = None, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """The JSON written to results/scaling.json: measurements, per pattern and tool the growth
    exponents, and the issue's target per loopopt tool."""
    fits: dict[str, dict[str, dict]] = {}
    for m in results:
        fits.setdefault(m.pattern, {}).setdefault(m.tool, {})
    for pattern, by_tool in fits.items():
        for tool in by_tool:
            mine = [m for m in results if m.pattern == pattern and m.tool == tool]
            pts = [(m.size, m.seconds) for m in mine]
            by_tool[tool] = {
                "exponent": growth_exponent(pts),
                "exponent_last": local_exponent(pts),
                "exponent_last_cpu": local_exponent([(m.size, m.cpu_seconds) for m in mine]),
                "exponent_last_net": net_exponent(pts, startup) if is_loopopt(tool) else None,
                "exponent_at_least": timeout_lower_bound([(m.size, m.seconds, m.status) for m in mine]),
            }
    units = {p.name: p.unit for p in PATTERNS}
    return {"measurements": [asdict(m) for m in results], "fits": fits,
            "units": {p: units.get(p, "") for p in fits},
            "startup_seconds": startup, "target_exponent": TARGET_EXPONENT, "timeout": timeout,
            "verdicts": [dict(asdict(v), met=v.met) for v in verdicts(results)]}


def merge_results(old: dict, results: list[Measurement], startup: float | None, timeout: float) -> dict:
    """summarize() over `results` and the measurements of `old` (a scaling.json) for every
    pattern `results` did not re-run, in PATTERNS order. `merged` says which patterns come from
    which run (date, machine, load average at its start, start-up); a kept pattern's exponent net
    of start-up uses its own run's start-up, and its unit says where it was measured (the
    pattern's heading in scaling.md)."""
    rerun = set(m.pattern for m in results)
    kept = [Measurement(**m) for m in old.get("measurements", []) if m["pattern"] not in rerun]
    order = {p.name: k for k, p in enumerate(PATTERNS)}
    merged = sorted(kept + results, key=lambda m: (order.get(m.pattern, len(order)), m.size))
    data = summarize(merged, startup, timeout)
    previous = old.get("merged", {}).get("kept", {})
    here = {"date": old.get("date"), "cpu": old.get("machine", {}).get("cpu"),
            "load_average_at_start": old.get("machine", {}).get("load_average"),
            "startup_seconds": old.get("startup_seconds")}
    provenance = {m.pattern: previous.get(m.pattern) or here for m in kept}
    data["merged"] = {"rerun": sorted(rerun, key=lambda p: order.get(p, 0)), "kept": provenance}
    for pattern, run in provenance.items():
        for tool, fit in data["fits"][pattern].items():
            if is_loopopt(tool):
                pts = [(m.size, m.seconds) for m in merged if m.pattern == pattern and m.tool == tool]
                fit["exponent_last_net"] = net_exponent(pts, run.get("startup_seconds"))
        load = ", ".join(f"{x:.2f}" for x in run.get("load_average_at_start") or [])
        data["units"][pattern] += (f" (kept from the run of {run.get('date')} on {run.get('cpu') or '?'}, load "
                                   f"average at start {load}, start-up {_seconds(run.get('startup_seconds'))})")
    return data


def _seconds(t: float | None) -> str:
    return f"{t:.2f} s" if t is not None else "n/a"


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", metavar="PATTERNS", help=f"comma-separated, of: {', '.join(p.name for p in PATTERNS)}")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"per compile; a tool over it skips the larger sizes of the pattern (default {DEFAULT_TIMEOUT:.0f})")
    ap.add_argument("--quick", action="store_true", help="only the two smallest sizes of each pattern")
    ap.add_argument("--no-report", action="store_true", help="write scaling.json only")
    ap.add_argument("--results", default=RESULTS, metavar="DIR", help="where to write (default benchmarks/results)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the patterns of the existing scaling.json that this run does not measure; only "
                         "scaling.md and compile_time.png are regenerated (results.md and the README quote a full run)")
    a = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)  # so a killed run kills its running child too
    start = time.perf_counter()
    load_at_start = os.getloadavg()
    compile_bytecode()
    startup = startup_seconds()
    print(f"loopopt start-up on an empty function: {startup:.2f} s" if startup else "loopopt start-up: n/a")
    results = run_scaling(None, a.timeout, only=a.only, quick=a.quick)
    path = os.path.join(a.results, "scaling.json")
    if a.merge and os.path.exists(path):
        with open(path) as f:
            data = merge_results(json.load(f), results, startup, a.timeout)
    else:
        data = summarize(results, startup, a.timeout)
    from run import machine_info  # run.py imports this module: import it late
    machine = machine_info()
    data.update(niceness=os.nice(0), quick=a.quick, date=time.strftime("%Y-%m-%d"), wall_seconds=time.perf_counter() - start,
                machine=dict(machine, load_average=load_at_start), load_average_at_end=machine["load_average"])
    os.makedirs(a.results, exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    if not a.no_report:
        import report
        if a.merge:
            report.write_scaling(a.results)
        elif os.path.abspath(a.results) == os.path.abspath(RESULTS):
            report.write_all(RESULTS, speedup_png=False)  # results.md quotes the target table
            report.quote_in_readme(os.path.join(HERE, "README.md"), data)
        else:
            report.write_scaling(a.results)
    missed = [v for v in data["verdicts"] if not v["met"]]
    print(f"done in {data['wall_seconds']:.0f} s; {len(missed)} of {len(data['verdicts'])} (pattern, loopopt tool) "
          f"miss the target; see {os.path.relpath(os.path.join(a.results, 'scaling.md'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
