"""Issue 24, the roofline: FLOPs and compulsory bytes of a program at given sizes
(loopopt/analysis/roofline.py), checked against hand counts and against brute-force enumeration
of random nests."""
from __future__ import annotations

import random

import pytest

from loopopt.analysis.roofline import Work, attainable_seconds, program_work

MM = """
func.func @mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %n: index) {
  %t = memref.alloc(%n, %n) : memref<?x?xf32>
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      affine.for %k = 0 to %n {
        %x = affine.load %a[%i, %k] : memref<?x?xf32>
        %y = affine.load %b[%k, %j] : memref<?x?xf32>
        %z = affine.load %c[%i, %j] : memref<?x?xf32>
        %p = math.fma %x, %y, %z : f32
        affine.store %p, %c[%i, %j] : memref<?x?xf32>
        affine.store %p, %t[%i, %j] : memref<?x?xf32>
      }
    }
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}
"""


def test_matmul_counts_two_flops_per_fma_and_each_argument_once():
    n = 37
    w = program_work(MM, "mm", [[n, n], [n, n], [n, n], n])
    assert w.flops == 2 * n ** 3 and w.exact
    assert (w.read_bytes, w.written_bytes) == (3 * n * n * 4, n * n * 4)  # the placed %t costs nothing
    assert w.intensity == pytest.approx(2 * n ** 3 / (4 * n * n * 4))


def test_math_functions_vector_lanes_and_non_arithmetic():
    src = """
func.func @k(%x: memref<64xf32>, %y: memref<64xf32>, %v: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %x[%i] : memref<64xf32>
    %e = math.exp %a : f32
    %n = arith.negf %e : f32
    %c = arith.cmpf olt, %n, %a : f32
    %s = arith.select %c, %n, %a : f32
    %m = arith.maximumf %s, %a : f32
    affine.store %m, %y[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %a = affine.vector_load %x[%i] : memref<64xf32>, vector<8xf32>
    %f = vector.fma %a, %a, %a : vector<8xf32>
    %r = vector.reduction <add>, %f : vector<8xf32> into f32
    %i2 = arith.addi %i, %i : index
    affine.vector_store %f, %v[%i] : memref<64xf32>, vector<8xf32>
  }
  return
}
"""
    w = program_work(src, "k", [None, None, None])
    # exp 1 + maximumf 1 per scalar iteration; fma 2*8 + reduction 7 per vector iteration
    assert w.flops == 64 * 2 + 8 * (16 + 7)
    assert w.exact


def test_triangular_and_strided_nests_are_counted_exactly():
    src = """
func.func @tri(%x: memref<100x100xf32>, %n: index) {
  affine.for %i = 0 to %n step 3 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to min affine_map<(d0)[s0] -> (d0 + 7, s0)>(%i)[%n] {
      %a = affine.load %x[%i, %j] : memref<100x100xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %x[%i, %j] : memref<100x100xf32>
    }
  }
  return
}
"""
    n = 50
    expect = sum(1 for i in range(0, n, 3) for j in range(i, min(i + 7, n)))
    w = program_work(src, "tri", [None, n])
    assert w.flops == expect and w.exact


def test_conditions_over_count_and_unknown_loops_give_none():
    cond = """
func.func @c(%x: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    affine.if affine_set<(d0) : (d0 - 8 >= 0)>(%i) {
      %a = affine.load %x[%i] : memref<16xf32>
      %b = arith.mulf %a, %a : f32
      affine.store %b, %x[%i] : memref<16xf32>
    }
  }
  return
}
"""
    w = program_work(cond, "c", [None])
    assert w.flops == 16 and not w.exact and "affine.if" in w.why
    scf = """
func.func @s(%x: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<16xf32>
    %b = arith.mulf %a, %a : f32
    memref.store %b, %x[%i] : memref<16xf32>
  }
  return
}
"""
    w = program_work(scf, "s", [None, 16])
    assert w.flops is None and "scf.for" in w.why
    assert (w.read_bytes, w.written_bytes) == (64, 64)


def test_an_if_with_two_branches_counts_its_cheaper_branch():
    """A guarded fast path and its fallback (frontend/zero_phases.py's shape): the work is the
    cheaper branch's, so a share of the peak never over-claims; the nested if in the kept branch
    is decided in turn."""
    text = """
func.func @g(%x: memref<16xf32>, %c: i1, %d: i1) {
  scf.if %c {
    affine.for %i = 0 to 16 {
      %a = affine.load %x[%i] : memref<16xf32>
      %b = arith.mulf %a, %a : f32
      affine.store %b, %x[%i] : memref<16xf32>
    }
    scf.if %d {
      affine.for %i = 0 to 4 {
        %a = affine.load %x[%i] : memref<16xf32>
        %b = arith.addf %a, %a : f32
        affine.store %b, %x[%i] : memref<16xf32>
      }
    } else {
      affine.for %i = 0 to 8 {
        %a = affine.load %x[%i] : memref<16xf32>
        %b = arith.addf %a, %a : f32
        %e = arith.addf %b, %a : f32
        affine.store %e, %x[%i] : memref<16xf32>
      }
    }
  } else {
    affine.for %i = 0 to 16 {
      affine.for %j = 0 to 16 {
        %a = affine.load %x[%i] : memref<16xf32>
        %b = arith.mulf %a, %a : f32
        affine.store %b, %x[%j] : memref<16xf32>
      }
    }
  }
  return
}
"""
    w = program_work(text, "g", [None, None, None])
    assert w.flops == 16 + 4 and not w.exact and "cheaper branch" in w.why


def test_attainable_time_is_the_higher_roof():
    w = Work(flops=10 ** 9, read_bytes=10 ** 8, written_bytes=0, exact=True)
    assert attainable_seconds(w, 100e9, 20e9) == pytest.approx(0.01)  # compute-bound
    assert attainable_seconds(w, 1000e9, 5e9) == pytest.approx(0.02)  # memory-bound
    assert attainable_seconds(w, None, 5e9) is None


def _random_nest(rng: random.Random) -> tuple[str, list, int]:
    """A 1-3 deep nest with random constant, symbolic, triangular and min/max bounds and steps;
    (program, sizes, the iteration count by enumeration)."""
    depth = rng.randint(1, 3)
    n = rng.randint(0, 9)
    ivs = [f"%i{d}" for d in range(depth)]
    bounds = []
    lines = [f"func.func @r(%x: memref<f32>, %n: index) {{"]
    for d in range(depth):
        step = rng.choice([1, 1, 2, 3])
        kind = rng.choice(["const", "sym", "tri", "min"]) if d else rng.choice(["const", "sym"])
        lo_c, hi_c = rng.randint(0, 3), rng.randint(2, 9)
        if kind == "const":
            head = f"affine.for {ivs[d]} = {lo_c} to {hi_c} step {step}"
            bounds.append(lambda env, lo=lo_c, hi=hi_c: (lo, hi))
        elif kind == "sym":
            head = f"affine.for {ivs[d]} = {lo_c} to %n step {step}"
            bounds.append(lambda env, lo=lo_c: (lo, env["n"]))
        elif kind == "tri":
            p = rng.randrange(d)
            head = (f"affine.for {ivs[d]} = affine_map<(d0) -> (d0 + {lo_c})>({ivs[p]}) to "
                    f"affine_map<(d0)[s0] -> (s0 + 2)>({ivs[p]})[%n] step {step}")
            bounds.append(lambda env, p=p, lo=lo_c: (env[p] + lo, env["n"] + 2))
        else:
            p = rng.randrange(d)
            head = (f"affine.for {ivs[d]} = max affine_map<(d0) -> (d0 - 1, 0)>({ivs[p]}) to "
                    f"min affine_map<(d0)[s0] -> (d0 + {hi_c}, s0)>({ivs[p]})[%n] step {step}")
            bounds.append(lambda env, p=p, hi=hi_c: (max(env[p] - 1, 0), min(env[p] + hi, env["n"])))
        lines.append("  " * (d + 1) + head + " {")
        bounds[-1] = (bounds[-1], step)
    pad = "  " * (depth + 1)
    lines += [pad + "%a = affine.load %x[] : memref<f32>", pad + "%b = arith.mulf %a, %a : f32",
              pad + "affine.store %b, %x[] : memref<f32>"]
    lines += ["  " * (d + 1) + "}" for d in reversed(range(depth))] + ["  return", "}"]

    def count(d: int, env: dict) -> int:
        if d == depth:
            return 1
        (bound, step) = bounds[d]
        lo, hi = bound(env)
        return sum(count(d + 1, {**env, d: v}) for v in range(lo, hi, step))

    return "\n".join(lines), [None, n], count(0, {"n": n})


def test_random_nests_match_enumeration():
    rng = random.Random(24)
    for _ in range(60):
        src, sizes, expect = _random_nest(rng)
        w = program_work(src, "r", sizes)
        assert w.flops == expect, src


def test_host_vector_bits_from_the_cpu_flags():
    from loopopt.codegen.cpu.host import host_vector_bits

    assert host_vector_bits("flags\t\t: fpu sse2 avx avx2 avx512f avx512vl\n") == 512
    assert host_vector_bits("flags\t\t: fpu sse2 avx avx2 fma\n") == 256  # Zen 3
    assert host_vector_bits("Features\t: fp asimd\n") == 128
    assert host_vector_bits("") == 256  # nothing known: the plan's default
