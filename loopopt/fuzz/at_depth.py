"""Random producer-consumer pairs inside fused loops, for fusion at depth (issue 25).

Each program has `depth` outer loops (0 to 2) around a producer nest (1 or 2 loops) that writes
an intermediate `%t` from `%in` at the outer IVs and its own, and a consumer loop whose trip count
differs from the producer's, reading `%t` in one of these ways (`COVERAGE`):

* `cover`: every element the producer wrote, in another order (`c floordiv P1`, `c mod P1`);
* `under`: fewer elements than the producer wrote (a prefix, or every other one);
* `overlap`: elements the producer wrote and some it did not (those hold the fill that runs
  before the nest, so the program is deterministic);
* `earlier`: the row of an earlier outer iteration (`(o floordiv 2) * 2`), after which the outer
  body overwrites one element of `%in` (a recomputed value would read the new one).

The reads are in range by construction and read only initialized elements, so the program's
results are defined and the interpreter compares them exactly. `generate(rng)` is pure given
the generator's state; tests run loopopt on each program for both targets and compare results
(`tests/test_fuzz_at_depth.py`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

COVERAGE = ("cover", "under", "overlap", "earlier")


@dataclass(frozen=True)
class AtDepthProgram:
    """One generated program: its text, the coverage kind, the number of outer loops, and
    whether the producer nest has one loop or two."""

    text: str
    coverage: str
    depth: int
    producer_loops: int


def _memref(dims: list[int]) -> str:
    return "memref<" + "x".join(str(d) for d in dims) + "xf32>"


def generate(rng: random.Random, coverage: str | None = None, depth: int | None = None) -> AtDepthProgram:
    """A random program of the given (or a random) coverage kind and depth; `earlier` needs an
    outer loop, so it implies depth >= 1."""
    coverage = coverage or rng.choice(COVERAGE)
    depth = depth if depth is not None else rng.randint(0, 2)
    if coverage == "earlier":
        depth = max(depth, 1)
    outer = [rng.randint(2, 3) for _ in range(depth)]
    two = rng.random() < 0.6
    p = [rng.randint(2, 3), rng.randint(2, 4)] if two else [rng.randint(3, 6)]
    written = p[0] * p[1] if two else p[0]
    extra_rows = 1 if coverage == "overlap" else 0
    t_dims = outer + ([p[0] + extra_rows, p[1]] if two else [p[0] + extra_rows])
    if coverage == "cover":
        c_trip = written
    elif coverage == "under":
        c_trip = rng.randint(1, written - 1)
    elif coverage == "overlap":
        c_trip = written + rng.randint(1, p[1] if two else 1)
    else:
        c_trip = rng.randint(1, written)
    stride2 = coverage == "under" and rng.random() < 0.5 and c_trip * 2 <= written
    ovs = [f"%o{k}" for k in range(depth)]
    in_dims = outer + p
    out_dims = outer + [c_trip]
    lines = [f"func.func @f(%in: {_memref(in_dims)}, %out: {_memref(out_dims)}) {{",
             "  %k = arith.constant 1.5 : f32",
             "  %z = arith.constant 0.25 : f32",
             f"  %t = memref.alloc() : {_memref(t_dims)}"]
    ind = "  "
    if coverage == "overlap":  # every element of %t is initialized before the nest
        fill = [f"%f{k}" for k in range(len(t_dims))]
        for k, d in enumerate(t_dims):
            lines.append(f"{ind * (k + 1)}affine.for {fill[k]} = 0 to {d} {{")
        lines.append(f"{ind * (len(t_dims) + 1)}affine.store %z, %t[{', '.join(fill)}] : {_memref(t_dims)}")
        lines += [f"{ind * (k + 1)}}}" for k in reversed(range(len(t_dims)))]
    for k, d in enumerate(outer):
        lines.append(f"{ind * (k + 1)}affine.for {ovs[k]} = 0 to {d} {{")
    base = depth + 1
    pv = [f"%p{k}" for k in range(len(p))]
    for k, d in enumerate(p):
        lines.append(f"{ind * (base + k)}affine.for {pv[k]} = 0 to {d} {{")
    body = ind * (base + len(p))
    op = rng.choice(["arith.mulf %x, %x", "arith.addf %x, %k", "arith.mulf %x, %k"])
    lines += [f"{body}%x = affine.load %in[{', '.join(ovs + pv)}] : {_memref(in_dims)}",
              f"{body}%y = {op} : f32",
              f"{body}affine.store %y, %t[{', '.join(ovs + pv)}] : {_memref(t_dims)}"]
    lines += [f"{ind * (base + k)}}}" for k in reversed(range(len(p)))]
    lines.append(f"{ind * base}affine.for %c = 0 to {c_trip} {{")
    cb = ind * (base + 1)
    flat = "%c * 2" if stride2 else "%c"
    if two:
        elem = [f"({flat}) floordiv {p[1]}", f"({flat}) mod {p[1]}"]
        if coverage == "cover" and rng.random() < 0.5:
            elem = [f"%c mod {p[0]}", f"%c floordiv {p[0]}"]  # column-major: another order, same elements
    else:
        elem = [flat if coverage != "cover" else f"{p[0] - 1} - %c"]
    read_outer = list(ovs)
    if coverage == "earlier":
        k = rng.randrange(depth)
        read_outer[k] = f"({ovs[k]} floordiv 2) * 2"
    lines += [f"{cb}%v = affine.load %t[{', '.join(read_outer + elem)}] : {_memref(t_dims)}",
              f"{cb}%w = arith.addf %v, %z : f32",
              f"{cb}affine.store %w, %out[{', '.join(ovs + ['%c'])}] : {_memref(out_dims)}",
              f"{ind * base}}}"]
    if coverage == "earlier":
        lines.append(f"{ind * base}affine.store %k, %in[{', '.join(ovs + ['0'] * len(p))}] : {_memref(in_dims)}")
    lines += [f"{ind * (k + 1)}}}" for k in reversed(range(depth))]
    lines += [f"  memref.dealloc %t : {_memref(t_dims)}", "  return", "}"]
    return AtDepthProgram("\n".join(lines) + "\n", coverage, depth, len(p))
