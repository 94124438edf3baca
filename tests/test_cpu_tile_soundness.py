"""Issue 33, the cpu code generator on hand-written programs outside the benchmarks' shapes:
three classes of register tiling (codegen/cpu/plan/cpu_plan.py TilePlan, codegen/cpu/register_tile.py).

1. Column blocks copy Q's body into every block: an op beside the product in the row loop (a
   load of C[i, 0] that an earlier block overwrote, `D[i] += E[i]` after the product) ran once
   per block. Guard: `cpu_plan.block_copy_refusal` (only pure ops are copied; else the tile is
   built without blocks, `[STOP COLUMN BLOCKS]`).
2. The loop's counter as data in a lane op (`arith.index_cast %j`, `arith.cmpi` on %j or on the
   reduction's %k) got a vector result over a scalar operand: invalid IR, rolled back. Guard:
   `cpu_plan.lane_operand_refusal` checks every operand of a lane op; P's counter becomes the
   vector of its lanes' iterations (`_Sweep.lane_indices`), an index without a lane form (an
   affine.apply's result used as data) refuses the lanes.
3. A value P carries whose init is computed per row (`M[i]` loaded in the row loop): the
   jammed rows used the original row's init, a use of the erased nest, rolled back. Guard:
   `register_tiling.row_value` gives each row's partials its own row's init.

Every program runs through `loopopt.driver.optimize` with the cpu target (the default pipeline,
and one per class through the CLI) and natively against its input (mlir-runner); no run may
leave an `[INTERNAL]` remark. Before the fix each `*_fails_before` program gave wrong results
natively (class 1) or an `[INTERNAL]` rollback (classes 2, 3).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

pytestmark = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")
FULL = 100_000  # print every element of the outputs (C of 8 x 4160 included)


def cpu(bits: int | None = None, **kw) -> Options:
    return Options(target=TARGETS["cpu"], **({"vector_bits": bits} if bits else {}), **kw)


def check(src: str, options: Options, sizes: tuple = (), rtol: float = 0.0) -> list[str]:
    """`optimize_and_compare` natively only (harness sizes `sizes`); the messages."""
    return optimize_and_compare(src, "k", options, rtol=rtol, interpret=False, natively=True, native_sizes=sizes,
                                full_limit=FULL).messages


def check_cli(src: str, tmp_path, sizes: tuple = ()) -> str:
    """The CLI's default cpu pipeline on `src` (exit 0), compared as `check` does; its stderr."""
    def cli(text: str) -> tuple[str, list[str]]:
        path = tmp_path / "k.mlir"
        path.write_text(text)
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        p = subprocess.run([sys.executable, "-m", "loopopt", str(path), "--target", "cpu", "--remarks"],
                           capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        return p.stdout, p.stderr.splitlines()

    compared = optimize_and_compare(src, "k", transform=cli, interpret=False, natively=True, native_sizes=sizes,
                                    full_limit=FULL)
    return "\n".join(compared.messages)


def tiled(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith("[REGISTER TILING]")]


def product(elem="f32", m="12", n="40", k="16", body_r="", epi="", extra_args="", value="%r") -> str:
    """C[i, j] = sum_k A B (+ `epi`, which may store more), with `body_r` in the reduction loop
    (its `%q` the term summed); sizes may be `?` (then %m, %n are the memrefs' sizes)."""
    zero = "0.0" if elem.startswith("f") else "0"
    dims = ""
    mu, nu = m, n
    if m == "?":
        dims += f"  %c0i = arith.constant 0 : index\n  %m = memref.dim %A, %c0i : memref<?x{k}x{elem}>\n"
        mu = "%m"
    if n == "?":
        dims += f"  %c1i = arith.constant 1 : index\n  %n = memref.dim %B, %c1i : memref<{k}x?x{elem}>\n"
        nu = "%n"
    term = "%q" if body_r else "%p"
    return f"""func.func @k(%A: memref<{m}x{k}x{elem}>, %B: memref<{k}x{n}x{elem}>, %C: memref<{m}x{n}x{elem}>{extra_args}) {{
  %z = arith.constant {zero} : {elem}
  %c5 = arith.constant 5 : index
{dims}  affine.for %i = 0 to {mu} {{
    affine.for %j = 0 to {nu} {{
      %r = affine.for %k = 0 to {k} iter_args(%acc = %z) -> ({elem}) {{
        %a = affine.load %A[%i, %k] : memref<{m}x{k}x{elem}>
        %b = affine.load %B[%k, %j] : memref<{k}x{n}x{elem}>
        %p = arith.mulf %a, %b : {elem}
{body_r}        %s = arith.addf %acc, {term} : {elem}
        affine.yield %s : {elem}
      }}
{epi}      affine.store {value}, %C[%i, %j] : memref<{m}x{n}x{elem}>
    }}
  }}
  return
}}
"""


# ============================================================================= 1. column blocks
#
# B's 64 x N panel is larger than half the L2 (2 MiB): N = 4160 f32 or 2080 f64 (1040 KiB), so
# the columns come in blocks. `before` and `after` are Q's ops beside the product.

def blocked(elem="f32", n=None, rows="8", before="", init="%z", after="", epi="") -> str:
    n = n or (4160 if elem == "f32" else 2080)
    m = "?" if rows.startswith("%") else rows
    dims = "  %c0i = arith.constant 0 : index\n  %m = memref.dim %C, %c0i : memref<?x{n}x{e}>\n".format(n=n, e=elem) \
        if m == "?" else ""
    ub = "%m" if m == "?" else rows
    return f"""func.func @k(%A: memref<{m}x64x{elem}>, %B: memref<64x{n}x{elem}>, %C: memref<{m}x{n}x{elem}>,
             %D: memref<{m}x{elem}>, %E: memref<{m}x{elem}>) {{
  %z = arith.constant 0.0 : {elem}
{dims}  affine.for %i = 0 to {ub} {{
{before}    affine.for %j = 0 to {n} {{
      %r = affine.for %k = 0 to 64 iter_args(%acc = {init}) -> ({elem}) {{
        %a = affine.load %A[%i, %k] : memref<{m}x64x{elem}>
        %b = affine.load %B[%k, %j] : memref<64x{n}x{elem}>
        %p = arith.mulf %a, %b : {elem}
        %s = arith.addf %acc, %p : {elem}
        affine.yield %s : {elem}
      }}
{epi}      affine.store %r, %C[%i, %j] : memref<{m}x{n}x{elem}>
    }}
{after}  }}
  return
}}
"""


def load_c0(elem, m="8", n=4160):
    return f"    %c0 = affine.load %C[%i, 0] : memref<{m}x{n}x{elem}>\n"


# D[i] += E[i] after the product, with a pure value computed before it (so that isolating the
# product does not split it off): run once per block of columns before the fix.
def after_d(elem, m="8"):
    return (f"    %d = affine.load %D[%i] : memref<{m}x{elem}>\n    %d2 = arith.addf %d, %e2 : {elem}\n"
            f"    affine.store %d2, %D[%i] : memref<{m}x{elem}>\n")


def before_e(elem, m="8"):
    return f"    %e = affine.load %E[%i] : memref<{m}x{elem}>\n    %e2 = arith.mulf %e, %e : {elem}\n"


EPI_E2 = "      %r = arith.addf %r0, %e2 : ELEM\n"


def with_epi(src: str, elem: str) -> str:
    """The product's result plus e2 before the store (a use of the value computed before P)."""
    src = src.replace("      %r = affine.for", "      %r0 = affine.for")
    return src.replace("      }\n      affine.store %r,", "      }\n" + EPI_E2.replace("ELEM", elem) + "      affine.store %r,")


def test_column_blocks_load_of_c_before_the_product_fails_before():
    src = blocked(before=load_c0("f32"), init="%c0")
    for bits in (256, None):
        messages = check(src, cpu(bits))
        assert tiled(messages) and not any("columns in blocks" in m for m in messages)
        assert any(m.startswith("[STOP COLUMN BLOCKS]") for m in messages), messages


def test_column_blocks_store_after_the_product_fails_before():
    for elem in ("f32", "f64"):
        src = with_epi(blocked(elem, before=before_e(elem), after=after_d(elem)), elem)
        messages = check(src, cpu(256))
        assert tiled(messages) and any(m.startswith("[STOP COLUMN BLOCKS]") for m in messages), messages


def test_column_blocks_f64_and_symbolic_rows_fail_before():
    src = blocked("f64", before=load_c0("f64", n=2080), init="%c0")
    check(src, cpu(256))
    dyn = blocked("f32", rows="%m", before=load_c0("f32", m="?"), init="%c0")
    check(dyn, cpu(256), sizes=((7, 64), (64, 4160), (7, 4160), (7,), (7,)))


def test_pure_ops_before_the_product_keep_the_blocks():
    """A value computed per row from the counter alone (pure) may be copied into every block."""
    before = "    %ii = arith.index_cast %i : index to i32\n    %fi = arith.sitofp %ii : i32 to f32\n"
    src = blocked(before=before, init="%fi")
    # a 32 MiB L3 share: no cache blocks (issue 35), the register tile's own column blocks
    messages = check(src, cpu(256, cache_sizes=(48 << 10, 2 << 20, 32 << 20)))
    assert any("columns in blocks of" in m for m in tiled(messages)), messages
    # a 2 MiB one: the cache tiling cuts the columns in blocks, the pure ops copied into each
    messages = check(src, cpu(256, cache_sizes=(48 << 10, 2 << 20, 2 << 20)))
    assert any(m.startswith("[CACHE TILING]") and "columns in blocks of" in m for m in messages), messages
    assert not any(m.startswith("[STOP COLUMN BLOCKS]") for m in messages)


def test_column_blocks_through_the_cli(tmp_path):
    stderr = check_cli(with_epi(blocked(before=before_e("f32"), after=after_d("f32")), "f32"), tmp_path)
    assert "[STOP COLUMN BLOCKS]" in stderr and "affine.load at" in stderr


def conv1d(n=3328, after="") -> str:
    """A 1-D convolution C[o, w] = b[o] + sum_{c, t} W[o, c, t] X[c, w + t]: the reduction a band
    of two loops (16 channels x 5 taps), the bias loaded in the row loop beside the product and
    `after` there after it. B's panel, 80 x N f32, exceeds half of a 2 MiB L2 at N = 3328."""
    return f"""func.func @k(%W: memref<8x16x5xf32>, %X: memref<16x{n + 4}xf32>, %b: memref<8xf32>,
             %C: memref<8x{n}xf32>) {{
  affine.for %o = 0 to 8 {{
    %bias = affine.load %b[%o] : memref<8xf32>
    affine.for %w = 0 to {n} {{
      %r = affine.for %c = 0 to 16 iter_args(%acc = %bias) -> (f32) {{
        %s = affine.for %t = 0 to 5 iter_args(%a2 = %acc) -> (f32) {{
          %x = affine.load %X[%c, %w + %t] : memref<16x{n + 4}xf32>
          %y = affine.load %W[%o, %c, %t] : memref<8x16x5xf32>
          %p = arith.mulf %x, %y : f32
          %q = arith.addf %a2, %p : f32
          affine.yield %q : f32
        }}
        affine.yield %s : f32
      }}
      affine.store %r, %C[%o, %w] : memref<8x{n}xf32>
    }}
{after}  }}
  return
}}
"""


L2_2MIB = (48 << 10, 2 << 20, 32 << 20)


def test_a_convolution_band_with_a_bias_comes_in_column_blocks_fails_before():
    """Section 53: the panel counts every loop of the reduction band, and a load of a buffer the
    row loop never writes (the bias) is copied into every block. Before: a band of two loops got
    no column blocks, and the bias load refused them."""
    messages = check(conv1d(), cpu(256, cache_sizes=L2_2MIB))
    assert any("columns in blocks of" in m for m in tiled(messages)), messages
    assert not any(m.startswith("[STOP COLUMN BLOCKS]") for m in messages), messages


def test_a_bias_the_row_loop_writes_refuses_the_column_blocks():
    """The bias buffer written in the row loop (after the product): its load would read another
    block's write, so the blocks are refused (`cpu_plan.unwritten_load`)."""
    after = "    %bb = arith.addf %bias, %bias : f32\n    affine.store %bb, %b[%o] : memref<8xf32>\n"
    messages = check(conv1d(after=after), cpu(256, cache_sizes=L2_2MIB))
    assert not any("columns in blocks of" in m for m in tiled(messages)), messages


def test_a_short_convolution_row_keeps_its_order():
    """A panel within half of L2 (80 x 1024 f32): no column blocks."""
    messages = check(conv1d(n=1024), cpu(256, cache_sizes=L2_2MIB))
    assert tiled(messages) and not any("columns in blocks of" in m for m in tiled(messages)), messages


# ============================================================================= 2. the counter as data

def test_index_cast_of_the_counter_fails_before():
    for elem, it in (("f32", "i32"), ("f64", "i64")):
        epi = f"      %jj = arith.index_cast %j : index to {it}\n      affine.store %jj, %D[%i, %j] : memref<12x40x{it}>\n"
        src = product(elem, epi=epi, extra_args=f", %D: memref<12x40x{it}>")
        for bits in (256, None):
            messages = check(src, cpu(bits))
            assert tiled(messages) and "scalar" not in tiled(messages)[0], messages


def test_compare_of_the_counter_fails_before():
    epi = "      %lt = arith.cmpi ult, %j, %c5 : index\n      %v = arith.select %lt, %r, %z : f32\n"
    src = product(epi=epi, value="%v")
    assert tiled(check(src, cpu(256)))
    # the row's counter against the column's (a triangle), and the counter summed as data
    epi = ("      %le = arith.cmpi ule, %i, %j : index\n      %j1 = arith.addi %j, %c5 : index\n"
           "      %jf0 = arith.index_cast %j1 : index to i64\n      %jf = arith.sitofp %jf0 : i64 to f32\n"
           "      %w = arith.addf %r, %jf : f32\n      %v = arith.select %le, %w, %z : f32\n")
    assert tiled(check(product(epi=epi, value="%v"), cpu(256)))


def test_causal_mask_in_the_reduction_loop_fails_before():
    """`k <= j` inside the reduction: the reduction's counter (uniform: broadcast) against P's."""
    body = f"        %kj = arith.cmpi ule, %k, %j : index\n        %q = arith.select %kj, %p, %z : ELEM\n"
    for elem in ("f32", "f64"):
        src = product(elem, body_r=body.replace("ELEM", elem))
        assert tiled(check(src, cpu(256))), elem
    dyn = product("f32", m="?", n="?", body_r=body.replace("ELEM", "f32"))
    assert tiled(check(dyn, cpu(256), sizes=((7, 16), (16, 21), (7, 21))))


def test_counter_stored_as_an_index_fails_before():
    epi = "      affine.store %j, %T[%i, %j] : memref<12x40xindex>\n"
    src = product(epi=epi, extra_args=", %T: memref<12x40xindex>")
    assert tiled(check(src, cpu(256)))


def test_an_index_without_a_lane_form_refuses_the_lanes():
    """An affine.apply of the counter used as data is the lane-0 address only: no lanes (an
    ordered f32 sum then gets scalar copies; so does an exact i32 sum, as LLVM cannot vectorize its
    reduction loop, which reads B down a column)."""
    epi = ("      %j2 = affine.apply affine_map<(d0) -> (d0 * 2)>(%j)\n"
           "      %jj = arith.index_cast %j2 : index to i32\n      affine.store %jj, %D[%i, %j] : memref<12x40xi32>\n")
    src = product("f32", epi=epi, extra_args=", %D: memref<12x40xi32>")
    messages = check(src, cpu(256))
    assert not tiled(messages) or "scalar" in tiled(messages)[0], messages
    stored = ("      %j2 = affine.apply affine_map<(d0) -> (d0 * 2)>(%j)\n"
              "      affine.store %j2, %T[%i, %j] : memref<12x40xindex>\n")
    messages = check(product("f32", epi=stored, extra_args=", %T: memref<12x40xindex>"), cpu(256))
    assert not tiled(messages) or "scalar" in tiled(messages)[0], messages
    ints = product("i32", epi=epi, extra_args=", %D: memref<12x40xi32>").replace("arith.mulf", "arith.muli") \
        .replace("arith.addf", "arith.addi")
    # an exact i32 sum: LLVM would take the reduction loop, but it reads B down a column, so
    # the tile makes scalar copies (section 29) and says why; results checked natively by check()
    int_tiled = tiled(check(ints, cpu(256)))
    assert int_tiled and "scalar copies: LLVM cannot vectorize the reduction loop either" in int_tiled[0]
    explained = optimize(ints, cpu(256), passes=["register-tile"], filename="t.mlir").remarks
    assert any("affine.apply's result) is used as data" in str(r.args.get("lanes_why", "")) for r in explained), \
        [(r.message, r.args) for r in explained]


def test_counter_as_data_through_the_cli(tmp_path):
    body = "        %kj = arith.cmpi ule, %k, %j : index\n        %q = arith.select %kj, %p, %z : f32\n"
    epi = "      %jj = arith.index_cast %j : index to i32\n      affine.store %jj, %D[%i, %j] : memref<12x40xi32>\n"
    stderr = check_cli(product(body_r=body, epi=epi, extra_args=", %D: memref<12x40xi32>"), tmp_path)
    assert "[REGISTER TILING]" in stderr


# The vectorize step's plan keeps a loop scalar for LLVM (form "llvm"), so the counter as data
# needs no lane form there; checked on math of the counter and a sum masked by it, with each
# rewrite the plan may list (polynomial or exact exp, reassociated sum).
VEC_COUNTER = """func.func @k(%X: memref<100xf32>, %Y: memref<100xf32>, %S: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  %sc = arith.constant 0.03 : f32
  %c40 = arith.constant 40 : index
  %t = affine.for %j = 0 to 100 iter_args(%acc = %z) -> (f32) {
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %u = arith.mulf %jf, %sc : f32
    %e = math.exp %u : f32
    %x = affine.load %X[%j] : memref<100xf32>
    %y = arith.mulf %e, %x : f32
    affine.store %y, %Y[%j] : memref<100xf32>
    %lt = arith.cmpi ult, %j, %c40 : index
    %v = arith.select %lt, %x, %z : f32
    %s = arith.addf %acc, %v : f32
    affine.yield %s : f32
  }
  affine.store %t, %S[0] : memref<1xf32>
  return
}
"""


VEC_MATH = """func.func @k(%X: memref<100xf32>, %Y: memref<100xf32>) {
  %sc = arith.constant 0.03 : f32
  affine.for %j = 0 to 100 {
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %u = arith.mulf %jf, %sc : f32
    %e = math.exp %u : f32
    %x = affine.load %X[%j] : memref<100xf32>
    %y = arith.mulf %e, %x : f32
    affine.store %y, %Y[%j] : memref<100xf32>
  }
  return
}
"""


def test_vectorize_plan_with_the_counter_as_data():
    assert any("[VECTORIZE]" in m for m in check(VEC_MATH, cpu(256)))
    messages = check(VEC_COUNTER, cpu(256, approximate_math=True, reassociate=True), rtol=1e-5)
    assert any("[MATH APPROX]" in m for m in messages) and any("[VECTOR REDUCTION]" in m for m in messages)


# ============================================================================= 3. per-row inits

def rowred(elem="f32", rows="9", init_ops=None, kind="arith.maximumf", init="%m1", cols="40") -> str:
    """Q K^T with each row's reduction `kind` of the scores carried by P, started from the row's
    own init (`init_ops`: M[i] loaded and scaled so that it beats some rows' scores)."""
    m = "?" if rows.startswith("%") else rows
    mul = "arith.mulf" if elem.startswith("f") else "arith.muli"
    if init_ops is None:
        init_ops = (f"    %m0 = affine.load %M[%i] : memref<{m}x{elem}>\n"
                    f"    %m1 = {mul} %m0, %four : {elem}\n")
    dims = f"  %c0i = arith.constant 0 : index\n  %m = memref.dim %M, %c0i : memref<?x{elem}>\n" if m == "?" else ""
    ub = "%m" if m == "?" else rows
    zero = "0.0" if elem.startswith("f") else "0"
    four = "4.0" if elem.startswith("f") else "4"
    add = "arith.addf" if elem.startswith("f") else "arith.addi"
    return f"""func.func @k(%Q: memref<{m}x8x{elem}>, %K: memref<8x{cols}x{elem}>, %S: memref<{m}x{cols}x{elem}>,
             %M: memref<{m}x{elem}>, %O: memref<{m}x{elem}>) {{
  %z = arith.constant {zero} : {elem}
  %four = arith.constant {four} : {elem}
{dims}  affine.for %i = 0 to {ub} {{
{init_ops}    %mx = affine.for %j = 0 to {cols} iter_args(%cur = {init}) -> ({elem}) {{
      %d = affine.for %k = 0 to 8 iter_args(%acc = %z) -> ({elem}) {{
        %a = affine.load %Q[%i, %k] : memref<{m}x8x{elem}>
        %b = affine.load %K[%k, %j] : memref<8x{cols}x{elem}>
        %p = {mul} %a, %b : {elem}
        %s = {add} %acc, %p : {elem}
        affine.yield %s : {elem}
      }}
      affine.store %d, %S[%i, %j] : memref<{m}x{cols}x{elem}>
      %n = {kind} %d, %cur : {elem}
      affine.yield %n : {elem}
    }}
    affine.store %mx, %O[%i] : memref<{m}x{elem}>
  }}
  return
}}
"""


def carried_tiled(messages: list[str]) -> bool:
    return any("the loop's own reductions" in m for m in tiled(messages))


def test_row_maximum_with_its_init_loaded_per_row_fails_before():
    for bits in (256, None):
        messages = check(rowred(), cpu(bits))
        assert carried_tiled(messages), messages


def test_other_reductions_with_inits_per_row_fail_before():
    assert carried_tiled(check(rowred("f64", kind="arith.minimumf"), cpu(256)))
    assert carried_tiled(check(rowred("i32", kind="arith.maxsi"), cpu(256)))
    assert carried_tiled(check(rowred("i32", kind="arith.andi"), cpu(256)))
    dyn = rowred(rows="%m")
    assert carried_tiled(check(dyn, cpu(256), sizes=((10, 8), (8, 40), (10, 40), (10,), (10,))))
    # the init loaded per row without a pure op between (the form)
    direct = rowred(init_ops="    %m1 = affine.load %M[%i] : memref<9xf32>\n")
    assert carried_tiled(check(direct, cpu(256)))
    # an init computed in the row loop but the same for every row (row 0's copy serves all)
    same = rowred(init_ops="    %m0 = affine.load %M[0] : memref<9xf32>\n    %m1 = arith.mulf %m0, %four : f32\n")
    assert carried_tiled(check(same, cpu(256)))


def test_a_sum_carried_with_its_init_per_row_is_refused():
    """A sum's partials cannot all start from the init (it would count once per partial)."""
    messages = check(rowred(kind="arith.addf"), cpu(256))
    assert not carried_tiled(messages)
    explained = optimize(rowred(kind="arith.addf"), cpu(256), passes=["register-tile"]).remarks
    assert any(r.message.startswith("[STOP REGISTER TILING] a value carried by the loop to block")
               for r in explained)


def test_reduction_loop_sums_with_inits_per_row():
    """R's own sum starting from a value of the row (loaded in Q, or in P without moving with it)."""
    in_q = product(extra_args=", %X: memref<12xf32>").replace(
        "    affine.for %j", "    %x0 = affine.load %X[%i] : memref<12xf32>\n    %x1 = arith.mulf %x0, %x0 : f32\n"
        "    affine.for %j").replace("iter_args(%acc = %z)", "iter_args(%acc = %x1)")
    assert tiled(check(in_q, cpu(256)))
    in_p = product(extra_args=", %X: memref<12xf32>").replace(
        "      %r = affine.for", "      %x0 = affine.load %X[%i] : memref<12xf32>\n      %r = affine.for").replace(
        "iter_args(%acc = %z)", "iter_args(%acc = %x0)")
    assert tiled(check(in_p, cpu(256)))


def test_per_row_init_through_the_cli(tmp_path):
    stderr = check_cli(rowred(), tmp_path)
    assert "the loop's own reductions" in stderr
