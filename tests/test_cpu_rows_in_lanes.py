"""Issue 35, bit-exact affine input: an order-sensitive reduction innermost runs one row of the
loop around it per vector lane (codegen/cpu/plan/rows_in_lanes.py, codegen/cpu/rows_in_lanes.py).

Each rewrite is checked on its IR and bit for bit, in the reference interpreter and natively
with mlir-runner (every element printed): layernorm's and softmax's rows, matrix-vector
products, sums and maxima meeting NaN, infinities, signed zeros and subnormals, symbolic trip
counts including 0 and 1, rows and columns that do not fill a strip or a block. The adversarial
programs: a reduction whose rows share an accumulator, a row loop carrying a dependence through
the vector it reads, a transposed read that is not a permutation of rows (legal: kept exact), a
scratch buffer a row does not rewrite before reading it, a triangular reduction. Seeded random
row loops (legal and not) keep their results; each legality guard is shown to be needed.
"""
from __future__ import annotations

import functools
import random

import numpy as np
import pytest

import loopopt
from loopopt import mlir
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu import rows_in_lanes
from loopopt.codegen.cpu.plan import rows_in_lanes as plan_mod
from loopopt.codegen.cpu.plan.rows_in_lanes import LanesCode, transpose_masks
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results, make_inputs, native_mismatch, run_on_inputs
from loopopt.toolchain import find_tool

CPU = Options(target=TARGETS["cpu"], vector_bits=256)
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")
PASS = "rows-in-lanes"


def optimize(src: str, **knobs) -> tuple[str, list]:
    res = loopopt.optimize(src, target="cpu", vector_bits=256, **knobs)
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message], res.remarks_text()
    return res.text, [r for r in res.remarks if r.pass_name == PASS and "ROWS IN LANES" in r.message]


def step_only(src: str, explicit: bool = True) -> tuple[str, list]:
    """The step alone on the input as written."""
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            rows_in_lanes.rows_in_lanes_function(fn, CPU, log, "t.mlir", report_refusals=explicit)
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), [r for r in log if r.pass_name == PASS and "ROWS IN LANES" in r.message]


def code_of(remarks: list):
    missed = [r for r in remarks if r.kind == "Missed"]
    return missed[0].args["code"] if missed else None


# every element compared (outputs up to 2^20 elements), no warm-up call
same_natively = functools.partial(native_mismatch, warmup=0, full_limit=1 << 20)


def layernorm(rows=19, cols=21) -> str:
    return f"""func.func @k(%x: memref<{rows}x{cols}xf32>, %g: memref<{cols}xf32>, %b: memref<{cols}xf32>,
            %out: memref<{rows}x{cols}xf32>) {{
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant {1.0 / cols:.8e} : f32
  %eps = arith.constant 1.0e-05 : f32
  %mean = memref.alloc() : memref<{rows}xf32>
  %rstd = memref.alloc() : memref<{rows}xf32>
  affine.for %i = 0 to {rows} {{
    affine.store %zero, %mean[%i] : memref<{rows}xf32>
    affine.for %j = 0 to {cols} {{
      %v = affine.load %x[%i, %j] : memref<{rows}x{cols}xf32>
      %s = affine.load %mean[%i] : memref<{rows}xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %mean[%i] : memref<{rows}xf32>
    }}
    %t = affine.load %mean[%i] : memref<{rows}xf32>
    %mu = arith.mulf %t, %inv : f32
    affine.store %mu, %mean[%i] : memref<{rows}xf32>
  }}
  affine.for %i = 0 to {rows} {{
    affine.store %zero, %rstd[%i] : memref<{rows}xf32>
    affine.for %j = 0 to {cols} {{
      %v = affine.load %x[%i, %j] : memref<{rows}x{cols}xf32>
      %mu = affine.load %mean[%i] : memref<{rows}xf32>
      %d = arith.subf %v, %mu : f32
      %d2 = arith.mulf %d, %d : f32
      %s = affine.load %rstd[%i] : memref<{rows}xf32>
      %s2 = arith.addf %s, %d2 : f32
      affine.store %s2, %rstd[%i] : memref<{rows}xf32>
    }}
    %ss = affine.load %rstd[%i] : memref<{rows}xf32>
    %var = arith.mulf %ss, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    affine.store %r, %rstd[%i] : memref<{rows}xf32>
  }}
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %v = affine.load %x[%i, %j] : memref<{rows}x{cols}xf32>
      %mu = affine.load %mean[%i] : memref<{rows}xf32>
      %r = affine.load %rstd[%i] : memref<{rows}xf32>
      %gj = affine.load %g[%j] : memref<{cols}xf32>
      %bj = affine.load %b[%j] : memref<{cols}xf32>
      %d = arith.subf %v, %mu : f32
      %n = arith.mulf %d, %r : f32
      %y0 = arith.mulf %n, %gj : f32
      %y = arith.addf %y0, %bj : f32
      affine.store %y, %out[%i, %j] : memref<{rows}x{cols}xf32>
    }}
  }}
  memref.dealloc %mean : memref<{rows}xf32>
  memref.dealloc %rstd : memref<{rows}xf32>
  return
}}
"""


def softmax(rows=19, cols=21) -> str:
    sh = f"{rows}x{cols}"
    return f"""func.func @k(%x: memref<{sh}xf32>, %out: memref<{sh}xf32>) {{
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<{rows}xf32>
  %e = memref.alloc() : memref<{sh}xf32>
  %sum = memref.alloc() : memref<{rows}xf32>
  affine.for %i = 0 to {rows} {{
    affine.store %ninf, %mx[%i] : memref<{rows}xf32>
    affine.for %j = 0 to {cols} {{
      %v = affine.load %x[%i, %j] : memref<{sh}xf32>
      %m = affine.load %mx[%i] : memref<{rows}xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<{rows}xf32>
    }}
  }}
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %v = affine.load %x[%i, %j] : memref<{sh}xf32>
      %m = affine.load %mx[%i] : memref<{rows}xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<{sh}xf32>
    }}
  }}
  affine.for %i = 0 to {rows} {{
    affine.store %zero, %sum[%i] : memref<{rows}xf32>
    affine.for %j = 0 to {cols} {{
      %v = affine.load %e[%i, %j] : memref<{sh}xf32>
      %s = affine.load %sum[%i] : memref<{rows}xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<{rows}xf32>
    }}
  }}
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %v = affine.load %e[%i, %j] : memref<{sh}xf32>
      %s = affine.load %sum[%i] : memref<{rows}xf32>
      %r = arith.divf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<{sh}xf32>
    }}
  }}
  memref.dealloc %mx : memref<{rows}xf32>
  memref.dealloc %e : memref<{sh}xf32>
  memref.dealloc %sum : memref<{rows}xf32>
  return
}}
"""


def atax(n=21) -> str:
    return f"""func.func @k(%A: memref<{n}x{n}xf32>, %x: memref<{n}xf32>, %y: memref<{n}xf32>) {{
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<{n}xf32>
  affine.for %i = 0 to {n} {{
    affine.store %zero, %y[%i] : memref<{n}xf32>
  }}
  affine.for %i = 0 to {n} {{
    affine.store %zero, %tmp[%i] : memref<{n}xf32>
    affine.for %j = 0 to {n} {{
      %a = affine.load %A[%i, %j] : memref<{n}x{n}xf32>
      %v = affine.load %x[%j] : memref<{n}xf32>
      %p = arith.mulf %a, %v : f32
      %t = affine.load %tmp[%i] : memref<{n}xf32>
      %t2 = arith.addf %t, %p : f32
      affine.store %t2, %tmp[%i] : memref<{n}xf32>
    }}
    affine.for %j = 0 to {n} {{
      %a = affine.load %A[%i, %j] : memref<{n}x{n}xf32>
      %t = affine.load %tmp[%i] : memref<{n}xf32>
      %p = arith.mulf %a, %t : f32
      %s = affine.load %y[%j] : memref<{n}xf32>
      %s2 = arith.addf %s, %p : f32
      affine.store %s2, %y[%j] : memref<{n}xf32>
    }}
  }}
  memref.dealloc %tmp : memref<{n}xf32>
  return
}}
"""


# Rows of X by class (i mod 6): 0 the input; 1 scaled by 1e-38 (subnormals, sums of them); 2 zeros
# of the input's sign; 3 all -0; 4 +inf / -inf at the ends of the input's range; 5 NaN where the
# input is above 0.8. The row loop: an ordered sum from -0, a dot product, the maximum and
# minimum (exact: a loop of its own, row by row), a sum of squares with a maximum in one loop
# (in the lanes), the results stored per row, and a row-by-row loop that uses them.
SPECIALS = """func.func @k(%in: memref<ROWSxCOLSxf32>, %w: memref<COLSxf32>, %S: memref<ROWSxf32>,
            %D: memref<ROWSxf32>, %M: memref<ROWSxf32>, %N: memref<ROWSxf32>, %Q: memref<ROWSxf32>,
            %Q2: memref<ROWSxf32>, %Y: memref<ROWSxCOLSxf32>) {
  %negz = arith.constant -0.0 : f32
  %posz = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %tiny = arith.constant 1.0e-38 : f32
  %p8 = arith.constant 0.8 : f32
  %p9 = arith.constant 0.9 : f32
  %m9 = arith.constant -0.9 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %X = memref.alloc() : memref<ROWSxCOLSxf32>
  affine.for %i = 0 to ROWS {
    affine.for %j = 0 to COLS {
      %v = affine.load %in[%i, %j] : memref<ROWSxCOLSxf32>
      %c = affine.apply affine_map<(d0) -> (d0 mod 6)>(%i)
      %sub = arith.mulf %v, %tiny : f32
      %neg = arith.cmpf olt, %v, %posz : f32
      %sz = arith.select %neg, %negz, %posz : f32
      %hi = arith.cmpf ogt, %v, %p9 : f32
      %lo = arith.cmpf olt, %v, %m9 : f32
      %i1 = arith.select %hi, %pinf, %v : f32
      %inf = arith.select %lo, %ninf, %i1 : f32
      %big = arith.cmpf ogt, %v, %p8 : f32
      %nn = arith.select %big, %nan, %v : f32
      %is1 = arith.cmpi eq, %c, %c1 : index
      %is2 = arith.cmpi eq, %c, %c2 : index
      %is3 = arith.cmpi eq, %c, %c3 : index
      %is4 = arith.cmpi eq, %c, %c4 : index
      %is5 = arith.cmpi eq, %c, %c5 : index
      %x5 = arith.select %is5, %nn, %v : f32
      %x4 = arith.select %is4, %inf, %x5 : f32
      %x3 = arith.select %is3, %negz, %x4 : f32
      %x2 = arith.select %is2, %sz, %x3 : f32
      %x1 = arith.select %is1, %sub, %x2 : f32
      affine.store %x1, %X[%i, %j] : memref<ROWSxCOLSxf32>
    }
  }
  affine.for %i = 0 to ROWS {
    %s = affine.for %j = 0 to COLS iter_args(%a = %negz) -> (f32) {
      %v = affine.load %X[%i, %j] : memref<ROWSxCOLSxf32>
      %a2 = arith.addf %a, %v : f32
      affine.yield %a2 : f32
    }
    %d = affine.for %j = 0 to COLS iter_args(%a = %posz) -> (f32) {
      %v = affine.load %X[%i, %j] : memref<ROWSxCOLSxf32>
      %u = affine.load %w[%j] : memref<COLSxf32>
      %p = arith.mulf %v, %u : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }
    %m:2 = affine.for %j = 0 to COLS iter_args(%mx = %ninf, %mn = %pinf) -> (f32, f32) {
      %v = affine.load %X[%i, %j] : memref<ROWSxCOLSxf32>
      %mx2 = arith.maximumf %mx, %v : f32
      %mn2 = arith.minimumf %mn, %v : f32
      affine.yield %mx2, %mn2 : f32, f32
    }
    %q:2 = affine.for %j = 0 to COLS iter_args(%c = %posz, %mx = %ninf) -> (f32, f32) {
      %v = affine.load %X[%i, %j] : memref<ROWSxCOLSxf32>
      %v2 = arith.mulf %v, %v : f32
      %cc = arith.addf %c, %v2 : f32
      %mx2 = arith.maximumf %v, %mx : f32
      affine.yield %cc, %mx2 : f32, f32
    }
    affine.store %s, %S[%i] : memref<ROWSxf32>
    affine.store %d, %D[%i] : memref<ROWSxf32>
    affine.store %m#0, %M[%i] : memref<ROWSxf32>
    affine.store %m#1, %N[%i] : memref<ROWSxf32>
    affine.store %q#0, %Q[%i] : memref<ROWSxf32>
    affine.store %q#1, %Q2[%i] : memref<ROWSxf32>
    %r = arith.divf %s, %d : f32
    affine.for %j = 0 to COLS {
      %v = affine.load %X[%i, %j] : memref<ROWSxCOLSxf32>
      %t = arith.subf %v, %r : f32
      %y = arith.mulf %t, %q#0 : f32
      affine.store %y, %Y[%i, %j] : memref<ROWSxCOLSxf32>
    }
  }
  memref.dealloc %X : memref<ROWSxCOLSxf32>
  return
}
"""


def specials(rows: int, cols: int) -> str:
    return SPECIALS.replace("ROWS", str(rows)).replace("COLS", str(cols))


SYMBOLIC = """func.func @k(%n: index, %m: index, %A: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>,
            %z: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %s = affine.for %j = 0 to %m iter_args(%a = %zero) -> (f32) {
      %v = affine.load %A[%i, %j] : memref<?x?xf32>
      %u = affine.load %x[%j] : memref<?xf32>
      %p = arith.mulf %v, %u : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }
    affine.store %s, %y[%i] : memref<?xf32>
    %t = arith.mulf %s, %s : f32
    affine.store %t, %z[%i] : memref<?xf32>
  }
  return
}
"""


def row_loop(reduction_read: str, before: str = "", after: str = "", init: str = "%zero", rows=21, cols=19,
             lo: int = 0) -> str:
    """A row loop with one ordered sum over `reduction_read` (a load of %A, %B or %V), `before` and
    `after` it in the row; buffers A (rows x cols), B (rows x cols), V (cols + rows), O (rows)."""
    return f"""func.func @k(%A: memref<{rows}x{cols}xf32>, %B: memref<{rows}x{cols}xf32>, %V: memref<{rows + cols}xf32>,
            %O: memref<{rows}xf32>) {{
  %zero = arith.constant 0.0 : f32
  affine.for %i = {lo} to {rows} {{
{before}    %s = affine.for %j = 0 to {cols} iter_args(%a = {init}) -> (f32) {{
      %v = {reduction_read}
      %u = affine.load %B[%i, %j] : memref<{rows}x{cols}xf32>
      %p = arith.mulf %v, %u : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }}
{after}  }}
  return
}}
"""


A_ROW = "affine.load %A[%i, %j] : memref<21x19xf32>"


# ----------------------------------------------------------------------------- the transpose

@pytest.mark.parametrize("width", [2, 4, 8, 16])
def test_the_shuffle_stages_transpose_a_block(width):
    rows = [np.arange(width) + 100 * r for r in range(width)]
    for h, first, second in transpose_masks(width):
        new = list(rows)
        for a in range(width):
            if a & h:
                continue
            both = np.concatenate((rows[a], rows[a + h]))
            new[a], new[a + h] = both[first], both[second]
        rows = new
    assert all((rows[c] == 100 * np.arange(width) + c).all() for c in range(width))
    assert len(transpose_masks(width)) == width.bit_length() - 1


# ----------------------------------------------------------------------------- the rewrite

def test_layernorm_rows_run_in_lanes_and_keep_every_bit():
    src = layernorm()
    out, remarks = optimize(src)
    (r,) = remarks
    assert r.message.startswith("[ROWS IN LANES] 8 rows in the lanes of vector<8xf32>: 2 reduction loop(s) (arith.addf)")
    assert r.args["segments"] == ["lanes"] * 6 + ["jammed"] and r.args["forms"] == ["rows"]
    assert out.count("vector.shuffle") == 2 * 24 and "math.rsqrt %" in out and ": vector<8xf32>" in out
    # the normalisation: one loop, the 8 rows in order in each iteration (gamma and beta loaded once)
    jammed = out.split("math.rsqrt")[1].split("affine.yield")[0]
    assert jammed.count("arith.subf") == 8 and jammed.count("affine.load %arg1[") == 1
    assert_same_results(src, out)


def test_atax_and_softmax_keep_every_bit_in_the_interpreter():
    for src in (atax(), softmax()):
        out, remarks = optimize(src)
        assert remarks and remarks[0].message.startswith("[ROWS IN LANES]"), remarks
        assert_same_results(src, out)
    out, _ = optimize(softmax())
    assert "memref<8x1x21xf32>" in out  # the exponentials of each lane's row: a copy per lane


@has_runner
@pytest.mark.parametrize("rows,cols", [(19, 21), (8, 8), (16, 24), (7, 30)])
def test_nan_infinities_signed_zeros_and_subnormals_keep_every_bit_natively(rows, cols):
    src = specials(rows, cols)
    out, remarks = optimize(src)
    if rows >= 8:
        assert remarks and remarks[0].kind == "Passed", remarks
        # fusion joins the four reduction loops (and the specials, in a scratch row per lane): the
        # sums, the maximum and the minimum all run in the lanes
        assert "(arith.addf, arith.maximumf, arith.minimumf)" in remarks[0].message
    assert same_natively(src, out, [None] * 9) is None


@has_runner
def test_layernorm_softmax_and_atax_keep_every_bit_natively():
    for src, nargs in ((layernorm(), 4), (softmax(), 2), (atax(), 3), (layernorm(40, 77), 4), (softmax(9, 130), 2)):
        out, remarks = optimize(src)
        assert remarks and remarks[0].kind == "Passed"
        assert same_natively(src, out, [None] * nargs) is None


@has_runner
@pytest.mark.parametrize("n,m", [(0, 5), (1, 5), (5, 0), (5, 1), (8, 8), (9, 17), (17, 9), (16, 0), (23, 3)])
def test_symbolic_trip_counts_including_zero_and_one_keep_every_bit(n, m):
    out, remarks = optimize(SYMBOLIC)
    assert remarks[0].kind == "Passed" and remarks[0].args["segments"] == ["lanes"] * 4
    assert same_natively(SYMBOLIC, out, [n, m, [max(n, 1), max(m, 1)], [max(m, 1)], [max(n, 1)], [max(n, 1)]]) is None


def test_symbolic_trip_counts_in_the_interpreter():
    out, _ = optimize(SYMBOLIC)
    for n, m in ((0, 3), (1, 1), (9, 17), (17, 8)):
        sizes = {0: n, 1: m, 2: (max(n, 1), max(m, 1)), 3: (max(m, 1),), 4: (max(n, 1),), 5: (max(n, 1),)}
        ins = make_inputs(SYMBOLIC, "k", 3, sizes)
        a, b = run_on_inputs(SYMBOLIC, "k", ins), run_on_inputs(out, "k", ins)
        assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


# ----------------------------------------------------------------------------- adversarial programs

def test_rows_that_read_one_row_twice_or_a_skewed_row_stay_exact():
    """A transposed read that is not a permutation of rows (rows i and i + 1 read row i floordiv
    2) and a skewed one (row i from column i): the block's row vectors are each lane's own."""
    for read in ("affine.load %A[%i floordiv 2, %j] : memref<21x19xf32>",
                 "affine.load %V[%i + %j] : memref<40xf32>"):
        src = row_loop(read, after="    affine.store %s, %O[%i] : memref<21xf32>\n")
        out, remarks = step_only(src)
        assert remarks[0].kind == "Passed", remarks[0].message
        assert_same_results(src, out)


def test_a_reduction_whose_rows_share_an_accumulator_is_refused():
    """Rows 2k and 2k + 1 start from and store to O[k]: row 2k + 1 reads what row 2k wrote."""
    src = row_loop(A_ROW, before="    %init = affine.load %O[%i floordiv 2] : memref<21xf32>\n",
                   after="    affine.store %s, %O[%i floordiv 2] : memref<21xf32>\n", init="%init")
    out, remarks = step_only(src)
    assert code_of(remarks) == "CARRIED" and "RAW dependence" in remarks[0].args["reason"]
    assert out.count("affine.for") == 2


def test_a_row_loop_carrying_a_dependence_through_the_vector_it_reads_is_refused():
    """Row i's product reads V[j] for every j and stores V[i]: later rows read it."""
    src = row_loop(A_ROW, after="    affine.store %s, %V[%i] : memref<40xf32>\n").replace(
        "%u = affine.load %B[%i, %j] : memref<21x19xf32>", "%u = affine.load %V[%j] : memref<40xf32>")
    out, remarks = step_only(src)
    assert code_of(remarks) == "CARRIED"
    assert "vector" not in out


def test_a_triangular_reduction_and_a_call_are_refused_with_their_codes():
    tri = row_loop(A_ROW, after="    affine.store %s, %O[%i] : memref<21xf32>\n").replace(
        "affine.for %j = 0 to 19 iter_args", "affine.for %j = 0 to affine_map<(d0) -> (d0 floordiv 2)>(%i) iter_args")
    assert code_of(step_only(tri)[1]) == "BOUNDS"
    call = row_loop(A_ROW, before="    func.call @f() : () -> ()\n",
                    after="    affine.store %s, %O[%i] : memref<21xf32>\n") + "func.func private @f()\n"
    assert code_of(step_only(call)[1]) == "UNSUPPORTED_OP"


# softmax's exponentials as contraction leaves them (one row all rows share), but the last
# column is set once before the rows and never rewritten: every row reads it.
SHARED_SCRATCH = """func.func @k(%x: memref<19x21xf32>, %out: memref<19xf32>) {
  %zero = arith.constant 0.0 : f32
  %seven = arith.constant 7.0 : f32
  %e = memref.alloc() : memref<1x21xf32>
INIT  affine.for %i = 0 to 19 {
    affine.for %j = 0 to COLS {
      %v = affine.load %x[%i, %j] : memref<19x21xf32>
      %ex = math.exp %v : f32
      affine.store %ex, %e[0, %j] : memref<1x21xf32>
    }
    %s = affine.for %j = 0 to 21 iter_args(%a = %zero) -> (f32) {
      %v = affine.load %e[0, %j] : memref<1x21xf32>
      %w = affine.load %x[%i, %j] : memref<19x21xf32>
      %p = arith.mulf %v, %w : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }
    affine.store %s, %out[%i] : memref<19xf32>
  }
  memref.dealloc %e : memref<1x21xf32>
  return
}
"""


LAST_COLUMN = "  affine.store %seven, %e[0, 20] : memref<1x21xf32>\n"


def test_a_scratch_row_every_row_rewrites_gets_a_copy_per_lane():
    src = SHARED_SCRATCH.replace("COLS", "21").replace("INIT", "")
    out, remarks = step_only(src)
    assert remarks[0].kind == "Passed" and "memref<8x1x21xf32>" in out
    assert_same_results(src, out)


# A scratch buffer row i writes (element i) and the reduction of row i reads at i floordiv 2: the
# value of an earlier row. Legal as written (the stores of a strip run before its reductions),
# but no row owns what it reads: a copy per lane would read elements its lane never wrote.
HALF_SCRATCH = """func.func @k(%x: memref<19x21xf32>, %out: memref<19xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = memref.alloc() : memref<19xf32>
  affine.for %i = 0 to 19 {
    %v = affine.load %x[%i, 0] : memref<19x21xf32>
    affine.store %v, %e[%i] : memref<19xf32>
    %s = affine.for %j = 0 to 21 iter_args(%a = %zero) -> (f32) {
      %h = affine.load %e[%i floordiv 2] : memref<19xf32>
      %w = affine.load %x[%i, %j] : memref<19x21xf32>
      %p = arith.mulf %h, %w : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }
    affine.store %s, %out[%i] : memref<19xf32>
  }
  memref.dealloc %e : memref<19xf32>
  return
}
"""


def test_a_scratch_row_not_rewritten_before_it_is_read_is_not_private():
    for src in (SHARED_SCRATCH.replace("COLS", "20").replace("INIT", LAST_COLUMN), HALF_SCRATCH):
        module = mlir.parse_module(src)
        with module.context:
            loop = plan_mod.candidates(mlir.functions(module)[0])[0]
            assert plan_mod.private_buffers(loop, Facts()) == ()
    out, remarks = step_only(SHARED_SCRATCH.replace("COLS", "20").replace("INIT", LAST_COLUMN))
    assert code_of(remarks) == "CARRIED", remarks  # the rows share the scratch row
    assert "vector" not in out
    out, remarks = step_only(HALF_SCRATCH)
    assert remarks[0].kind == "Passed" and "memref<8x19xf32>" not in out
    assert_same_results(HALF_SCRATCH, out)


def test_a_scratch_row_read_after_the_rows_is_not_private():
    """Every row rewrites the scratch row before reading it, but the function reads it after the
    rows too (the last row's values): the copies per lane would leave it stale."""
    src = SHARED_SCRATCH.replace("COLS", "21").replace("INIT", "").replace(
        "  memref.dealloc %e : memref<1x21xf32>\n",
        "  %last = affine.load %e[0, 3] : memref<1x21xf32>\n  affine.store %last, %out[0] : memref<19xf32>\n"
        "  memref.dealloc %e : memref<1x21xf32>\n")
    assert "%last" in src
    module = mlir.parse_module(src)
    with module.context:
        loop = plan_mod.candidates(mlir.functions(module)[0])[0]
        assert plan_mod.private_buffers(loop, Facts()) == ()
    out, _ = step_only(src)
    assert_same_results(src, out)


def test_row_loops_are_jammed_only_where_the_rows_keep_their_order():
    """atax's update of y is jammed (each y[j] gets the rows' products in row order); a loop
    whose next row reads V[j] one iteration before this row wrote it runs row by row."""
    out, remarks = optimize(atax())
    assert remarks[0].args["segments"][-1] == "jammed"
    shift = row_loop(A_ROW, after=SHIFT_LOOP)
    out, remarks = step_only(shift)
    assert remarks[0].kind == "Passed" and remarks[0].args["segments"] == ["lanes", "rows"], remarks[0].args
    assert_same_results(shift, out)


def test_reassociation_leaves_the_rows_to_llvm():
    out, remarks = optimize(layernorm(), reassociate=True)
    assert remarks == [] and "vector.shuffle" not in out
    res = loopopt.optimize(layernorm(), target="cpu", vector_bits=256, reassociate=True,
                           passes="fusion,contraction,scalar-replacement,licm,rows-in-lanes")
    assert any(r.message.startswith(LanesCode.REASSOCIATE.message) for r in res.remarks)


# ----------------------------------------------------------------------------- random row loops

# A row loop whose next row reads, one iteration earlier, what this row wrote: W copies of it in
# one loop (the rows jammed) would run that read first.
SHIFT_LOOP = ("    affine.for %j = 0 to 19 {\n      %n = affine.load %V[%j + 1] : memref<40xf32>\n"
              "      %c = arith.mulf %n, %s : f32\n      affine.store %c, %V[%j] : memref<40xf32>\n    }\n")
READS = ["affine.load %A[%i, %j] : memref<21x19xf32>", "affine.load %A[%i floordiv 2, %j] : memref<21x19xf32>",
         "affine.load %V[%i + %j] : memref<40xf32>", "affine.load %V[%j] : memref<40xf32>",
         "affine.load %B[%i - 1, %j] : memref<21x19xf32>"]
BEFORE = ["", "    %pre = affine.load %O[%i - 1] : memref<21xf32>\n", "    %pre = affine.load %V[%i] : memref<40xf32>\n",
          "    %pre = affine.load %O[%i floordiv 3] : memref<21xf32>\n"]
AFTER = ["    affine.store %s, %O[%i] : memref<21xf32>\n", "    affine.store %s, %V[%i + 19] : memref<40xf32>\n",
         "    affine.store %s, %V[%i] : memref<40xf32>\n", "    affine.store %s, %B[%i, 3] : memref<21x19xf32>\n",
         "    affine.store %s, %O[%i floordiv 3] : memref<21xf32>\n",
         "    affine.for %j = 0 to 19 {\n      %b = affine.load %B[%i, %j] : memref<21x19xf32>\n"
         "      %c = arith.mulf %b, %s : f32\n      %d = affine.load %V[%j] : memref<40xf32>\n"
         "      %e = arith.addf %d, %c : f32\n      affine.store %e, %V[%j] : memref<40xf32>\n    }\n",
         SHIFT_LOOP]


def random_row_loop(rng: random.Random) -> str:
    before = rng.choice(BEFORE)
    init = "%pre" if before and rng.random() < 0.6 else "%zero"
    after = "".join(rng.sample(AFTER, rng.randint(1, 2)))
    return row_loop(rng.choice(READS), before, after, init, lo=1)


def random_failures(n: int = 40, seed: int = 35) -> tuple[list[str], int, int]:
    """Random row loops through the step: (failures, rewritten, refused as carrying)."""
    rng = random.Random(seed)
    failures, done, carried = [], 0, 0
    for k in range(n):
        src = random_row_loop(rng)
        out, remarks = step_only(src)
        if remarks and remarks[0].kind == "Passed":
            done += 1
        elif code_of(remarks) == "CARRIED":
            carried += 1
        try:
            assert_same_results(src, out, seed=k, trials=2)
        except AssertionError as e:
            failures.append(f"program {k}: {str(e).splitlines()[0]}\n{src}")
    return failures, done, carried


def test_random_row_loops_keep_their_results():
    failures, done, carried = random_failures()
    assert failures == [], failures[0]
    assert done >= 8 and carried >= 8, (done, carried)


# ----------------------------------------------------------------------------- each guard is needed

def test_the_interleaving_check_is_needed(monkeypatch):
    monkeypatch.setattr(plan_mod, "interleave_violation", lambda plan, facts: None)
    failures, _, _ = random_failures()
    assert failures


def test_the_jam_check_is_needed(monkeypatch):
    monkeypatch.setattr(plan_mod, "jam_violation", lambda *a: None)
    shift = row_loop(A_ROW, after=SHIFT_LOOP)
    out, remarks = step_only(shift)
    assert remarks[0].args["segments"] == ["lanes", "jammed"]
    with pytest.raises(AssertionError):
        assert_same_results(shift, out)


def test_the_private_copy_check_is_needed(monkeypatch):
    monkeypatch.setattr(plan_mod, "_covered", lambda *a: True)
    out, remarks = step_only(HALF_SCRATCH)
    assert remarks[0].kind == "Passed" and "memref<8x19xf32>" in out
    with pytest.raises(AssertionError):
        assert_same_results(HALF_SCRATCH, out)
