"""Issue 35: cache tiling from a size model (codegen/cpu/plan/cache_plan.py, codegen/cpu/cache_tile.py),
column panels of a product's local B buffer (codegen/cpu/plan/panel_layout.py,
codegen/cpu/panel_layout.py), products isolated in strips when their expansion exceeds the budget
(codegen/cpu/isolate_products.py), and the host's caches (codegen/cpu/host.py).

Every transform test runs the default cpu pipeline (`loopopt.driver.optimize`) with small caches
(`cache_sizes`), so that small products take every block, and compares the outputs natively with
the input's (mlir-runner), bit for bit: no numeric switch is on, and blocking keeps each
element's sequence of operations. The sizes are awkward on purpose: primes, 1, and just above
and below each block.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

from loopopt.codegen.cpu import host
from loopopt.codegen.cpu.plan.cache_plan import Sizes, block_sizes, even_block, panel_crowds_rows
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")
FULL = 200_000
SMALL = (1024, 8 * 1024, 16 * 1024)  # L1, L2, L3 share: blocks of a few tens of iterations


def cpu(bits: int = 256, caches=SMALL, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits, cache_sizes=caches, **kw)


def check(src: str, options: Options, sizes: tuple = (), passes: list[str] | None = None) -> tuple:
    """`optimize_and_compare` (the default pipeline, or `passes`) natively only, bit for bit, with
    harness sizes `sizes`; the remarks."""
    return optimize_and_compare(src, "k", options, passes=passes, interpret=False, natively=True, native_sizes=sizes,
                                full_limit=FULL).remarks


def messages(remarks, prefix: str) -> list[str]:
    return [r.message for r in remarks if r.message.startswith(prefix)]


def gemms(shapes: list[tuple[int, int, int]], form: str = "memory") -> str:
    """One kernel with a product C_t += A_t B_t per (m, n, k) in `shapes`, each in its own nest
    (i, j, k). `form`: "memory" (C updated in the k loop) or "zero" (a sum carried from 0.0,
    stored after the k loop: the fill fused into the product)."""
    args, nests = [], []
    for t, (m, n, k) in enumerate(shapes):
        a, b, c = f"memref<{m}x{k}xf32>", f"memref<{k}x{n}xf32>", f"memref<{m}x{n}xf32>"
        args += [f"%A{t}: {a}", f"%B{t}: {b}", f"%C{t}: {c}"]
        if form == "memory":
            body = f"""      affine.for %k = 0 to {k} {{
        %a = affine.load %A{t}[%i, %k] : {a}
        %b = affine.load %B{t}[%k, %j] : {b}
        %c = affine.load %C{t}[%i, %j] : {c}
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C{t}[%i, %j] : {c}
      }}"""
        else:
            body = f"""      %r = affine.for %k = 0 to {k} iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %A{t}[%i, %k] : {a}
        %b = affine.load %B{t}[%k, %j] : {b}
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C{t}[%i, %j] : {c}"""
        nests.append(f"""  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
{body}
    }}
  }}""")
    return (f"func.func @k({', '.join(args)}) {{\n  %z = arith.constant 0.0 : f32\n" + "\n".join(nests)
            + "\n  return\n}\n")


# ============================================================================= the size model

def test_even_blocks():
    assert even_block(768, 1024) == 0  # fits: no blocks
    assert even_block(3072, 1024) == 1024
    assert even_block(3000, 1024) == 1000  # three equal blocks
    assert even_block(3001, 1024) == 1001  # the last block is the shortest (999)
    assert even_block(None, 1024) == 1024  # unknown extent: the largest block
    assert even_block(4096, 256, 6) == 246  # 17 blocks, each a multiple of the rows
    assert even_block(7, 3, 4) == 4  # never below one multiple


def test_block_sizes_for_bert_shapes_on_this_kind_of_core():
    caches = (48 * 1024, 2 << 20, 240 << 20)
    tile = dict(mr=6, nr=64, elem=4)
    assert block_sizes(Sizes(128, 3072, 768, **tile), caches) == (0, 0, 0)  # the register tile's blocks suffice
    assert block_sizes(Sizes(128, 768, 3072, **tile), caches) == (1024, 0, 0)  # B's 1024 x 64 micro-panel: 256 KiB
    kc, mc, nc = block_sizes(Sizes(4096, 768, 3072, **tile), caches)
    assert (kc, mc) == (1024, 246) and mc * kc * 4 <= (1 << 20)  # A's block in half of L2
    kc, mc, nc = block_sizes(Sizes(128, 3072, 3072, **tile), (48 * 1024, 2 << 20, 2 << 20))
    assert nc == 256 and kc * nc * 4 <= (1 << 20)  # a 2 MiB L3 share: B's panel in half of it
    assert block_sizes(Sizes(None, None, None, **tile), caches)[0] == 1024  # unknown: blocked


def test_host_caches_from_sysfs(tmp_path):
    def level(k, lv, kind, size, shared="0"):
        d = tmp_path / f"index{k}"
        d.mkdir()
        for name, text in (("level", str(lv)), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
            (d / name).write_text(text + "\n")

    level(0, 1, "Data", "32K")
    level(1, 1, "Instruction", "32K")
    level(2, 2, "Unified", "1024K")
    level(3, 3, "Unified", "32768K", "0-7")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        c = host.host_cache_sizes(str(tmp_path))
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]  # every file it opens is closed
    assert (c.l1, c.l2, c.l3, c.source) == (32 << 10, 1 << 20, 4 << 20, "sysfs")  # L3 over 8 CPUs
    assert host.host_cache_sizes(str(tmp_path / "absent")) == host.FALLBACK_CACHES
    assert host.parse_size("48K") == 48 << 10 and host.parse_size("2M") == 2 << 20 and host.parse_size("100") == 100
    for bad in ("", "K", "-1K", "1.5M", "x"):
        with pytest.raises(ValueError):
            host.parse_size(bad)


def test_cli_cache_sizes(tmp_path):
    src = tmp_path / "g.mlir"
    src.write_text(gemms([(37, 61, 53)]))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run = lambda *a: subprocess.run([sys.executable, "-m", "loopopt", str(src), "--target", "cpu", *a],  # noqa: E731
                                    capture_output=True, text=True, env=env, timeout=300)
    for bad in ("48K,2M", "48K,2M,x", "0,1,2"):
        p = run("--cache-sizes", bad)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--cache-sizes" in p.stderr, p.stderr
    p = run("--cache-sizes", "1K,8K,16K", "--vector-bits", "256", "--remarks")
    assert p.returncode == 0
    assert "[CACHE TILING] 37 x 61 x 53 product (4 x 24 register tile): the reduction in blocks of 9" in p.stderr
    assert "caches L1 1K, L2 8K, L3 16K" in p.stderr


# ============================================================================= blocks, natively

# With SMALL caches at 256 bits (a 4 x 24 tile): kc <= 10 (B's kc x 24 micro-panel in L2 / 8),
# mc <= 4096 / (kc x 4) rows, nc <= 8192 / (kc x 4) columns.
AWKWARD = [
    (257, 263, 23),  # every block, each with a remainder: kc 8 (8, 8, 7), mc 88, nc 144
    (37, 61, 53),  # the reduction in 6 blocks of 9 (the last 8; a 4 x 24 tile at 256 bits, section 45)
    (5, 25, 11),  # just above kc (2 blocks: 6, 5) and one tile of columns
    (4, 24, 10),  # exactly one kc, one tile: B's panel fits half of L2, nothing to block
    (1, 97, 31),  # one row: no tile with rows, refused with the reason
    (16, 1, 40),  # one column
]


@has_runner
@pytest.mark.parametrize("bits", [256, 512])
def test_awkward_products_bit_exact(bits):
    src = gemms(AWKWARD)
    remarks = check(src, cpu(bits))
    blocked = messages(remarks, "[CACHE TILING]")
    every = ("rows in blocks", "columns in blocks", "the reduction in blocks") if bits == 256 else (
        "the reduction in blocks of 4",)  # a 6 x 64 tile: kc <= 4, and rows and columns then fit
    assert any(m.startswith("[CACHE TILING] 257 x 263 x 23 product") and all(w in m for w in every)
               for m in blocked), blocked
    assert bits == 512 or any("37 x 61 x 53" in m and "the reduction in blocks of 9" in m for m in blocked), blocked
    refused = messages(remarks, "[STOP CACHE TILING]")
    assert any("no register tile with rows" in m for m in refused), refused


@has_runner
def test_the_blocks_of_every_size_just_around_a_block():
    """kc's bound is 10 here: K = 9, 10 (one block), 11 (two), 19, 20, 21; N around one tile."""
    src = gemms([(9, 23, 9), (9, 25, 11), (7, 49, 19), (7, 47, 20), (6, 48, 21)])
    remarks = check(src, cpu(256, caches=(1024, 4 * 1024, 8 * 1024)))
    assert messages(remarks, "[CACHE TILING]")


@has_runner
def test_a_sum_carried_from_zero_is_not_cut_and_says_why():
    """The fill fused into the product: the sum starts from 0.0, not from the element; its first
    block would need the 0.0 and the others the element, so kc is refused, with the reason in the
    default remarks. Its whole 23 x 24 micro-panel (2.2 KiB) then exceeds an eighth of the 8 KiB
    L2, so the rows are not blocked either (section 65), and say why; the columns are."""
    src = gemms([(257, 263, 23)], form="zero")
    remarks = check(src, cpu())
    assert any(r.message == "[STOP CACHE TILING] the reduction is not blocked"
               and "from an init other than the element" in r.args["reason"] for r in remarks), [r.message for r in remarks]
    assert any(r.message == "[STOP CACHE TILING] the rows are not blocked"
               and "(23 x 24, 2.16 KiB)" in r.args["reason"] and "L2 / 8 (1 KiB)" in r.args["reason"]
               for r in remarks), [r.message for r in remarks]
    tiled = messages(remarks, "[CACHE TILING]")
    assert any("columns in blocks" in m for m in tiled) and not any("rows in blocks" in m for m in tiled), tiled


def test_block_sizes_keep_the_rows_whole_beside_a_whole_reductions_micro_panel():
    """Section 65, on this AVX2 host's caches (L2 512 KiB) and its 4 x 24 f32 tile: a reduction
    that stays whole (kc 0) with a K x 24 micro-panel over L2 / 8 (64 KiB: K > 682) gets no row
    blocks; below the bound, or with K unknown, A's block in half of L2 as before."""
    caches = (32 * 1024, 512 * 1024, 16 << 20)
    tile = dict(mr=4, nr=24, elem=4)
    down = Sizes(308, 512, 2048, **tile)  # clip's MLP down projection: a 2048 x 24 micro-panel, 192 KiB
    assert block_sizes(down, caches, reduction=False) == (0, 0, 0)
    assert block_sizes(down, caches, reduction=False, panel_bound=False) == (0, 32, 0)  # A's 32 x 2048 block
    assert panel_crowds_rows(down, caches[1], 0) and not panel_crowds_rows(down, caches[1], 512)
    qkv = Sizes(308, 1536, 512, **tile)  # a 512 x 24 micro-panel, 48 KiB: within the bound
    assert block_sizes(qkv, caches, reduction=False) == (0, 104, 0)
    assert block_sizes(Sizes(308, 1536, 682, **tile), caches, reduction=False)[1] != 0  # 63.9 KiB
    assert block_sizes(Sizes(308, 1536, 683, **tile), caches, reduction=False)[1] == 0  # 64.03 KiB
    assert block_sizes(Sizes(None, 1536, None, **tile), caches, reduction=False)[1] != 0  # K unknown: blocked
    assert block_sizes(down, caches) == (512, 104, 0)  # the reduction cut: its micro-panel bounded, rows blocked


@has_runner
def test_a_carried_sum_whose_micro_panel_fits_keeps_its_row_blocks():
    """The same product over 9 terms: its 9 x 24 micro-panel is within L2 / 8, the reduction
    needs no blocks, and the rows are blocked as before (bit for bit against the input)."""
    remarks = check(gemms([(257, 263, 9)], form="zero"), cpu())
    assert not any(r.message == "[STOP CACHE TILING] the rows are not blocked" for r in remarks)
    assert any("rows in blocks" in m for m in messages(remarks, "[CACHE TILING]")), messages(remarks, "[CACHE TILING]")


def symbolic_gemm() -> str:
    """C += A B with every extent unknown, the sum carried from C's element (scalar
    replacement's form: the reduction loop may run zero times)."""
    return """func.func @k(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %kk = memref.dim %A, %c1 : memref<?x?xf32>
  %n = memref.dim %B, %c1 : memref<?x?xf32>
  affine.for %i = 0 to %m {
    affine.for %j = 0 to %n {
      %c = affine.load %C[%i, %j] : memref<?x?xf32>
      %r = affine.for %k = 0 to %kk iter_args(%acc = %c) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %j] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
"""


@has_runner
@pytest.mark.parametrize("m,n,k", [(0, 5, 3), (1, 1, 1), (37, 61, 53), (131, 263, 23), (9, 30, 0)])
def test_symbolic_sizes(m, n, k):
    """Unknown extents count as large: every loop is blocked with symbolic bounds (whole blocks,
    then the rest; an empty product, or an empty reduction, runs no iteration of it)."""
    src = symbolic_gemm()
    remarks = check(src, cpu(), sizes=((m, k), (k, n), (m, n)))
    assert any("? x ? x ? product" in m and "the reduction in blocks of 10" in m and "rows in blocks" in m
               and "columns in blocks" in m for m in messages(remarks, "[CACHE TILING]")), [r.message for r in remarks]


@has_runner
def test_a_sum_stored_to_another_element_is_not_cut():
    """The sum starts from C[i, j] but ends in D[i, j]: each block of the reduction would start
    again from C, so it is not cut (the rows and columns may be)."""
    src = """func.func @k(%A: memref<64x40xf32>, %B: memref<40x263xf32>, %C: memref<64x263xf32>, %D: memref<64x263xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 263 {
      %c = affine.load %C[%i, %j] : memref<64x263xf32>
      %r = affine.for %k = 0 to 40 iter_args(%acc = %c) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<64x40xf32>
        %b = affine.load %B[%k, %j] : memref<40x263xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %D[%i, %j] : memref<64x263xf32>
    }
  }
  return
}"""
    remarks = check(src, cpu())
    assert "[STOP CACHE TILING] the reduction is not blocked" in [r.message for r in remarks]
    assert not [m for m in messages(remarks, "[CACHE TILING]") if "the reduction in blocks" in m]


def beside(op: str) -> str:
    """A product with `op` in the row loop before it (`%v` its value, used in the product)."""
    return f"""func.func @k(%A: memref<64x40xf32>, %B: memref<40x263xf32>, %C: memref<64x263xf32>, %D: memref<64xf32>) {{
  affine.for %i = 0 to 64 {{
    {op}
    affine.for %j = 0 to 263 {{
      affine.for %k = 0 to 40 {{
        %a = affine.load %A[%i, %k] : memref<64x40xf32>
        %b = affine.load %B[%k, %j] : memref<40x263xf32>
        %c = affine.load %C[%i, %j] : memref<64x263xf32>
        %p = arith.mulf %a, %b : f32
        %q = arith.mulf %p, %v : f32
        %s = arith.addf %c, %q : f32
        affine.store %s, %C[%i, %j] : memref<64x263xf32>
      }}
    }}
  }}
  return
}}
"""


@has_runner
def test_a_load_beside_the_product_refuses_the_blocks():
    """C[i, 0] loaded in the row loop would run once per block of columns or of the reduction,
    and from the second on read what an earlier block's product wrote: the blocks are refused,
    with the op named."""
    remarks = check(beside("%v = affine.load %C[%i, 0] : memref<64x263xf32>"), cpu())
    refused = messages(remarks, "[STOP CACHE TILING]")
    assert any("would run once per block" in m for m in refused), [r.message for r in remarks]
    assert not messages(remarks, "[CACHE TILING]")


@has_runner
def test_a_pure_op_beside_the_product_is_copied_into_each_block():
    remarks = check(beside("%ii = arith.index_cast %i : index to i32\n    %v = arith.sitofp %ii : i32 to f32"), cpu())
    assert messages(remarks, "[CACHE TILING]"), [r.message for r in remarks]


def test_the_order_check_refuses_a_dependence_the_blocks_would_reverse():
    """The isl check on its own (the register tile's legality already keeps such nests away):
    C[i, j] = C[i, j] + C[i, j - 1] * B[k, j] is carried by j; cutting j into blocks outside the
    reduction's blocks would run a later column's first block before an earlier column's last."""
    from loopopt import mlir
    from loopopt.codegen.cpu.cache_tile import order_violation
    from loopopt.codegen.cpu.plan.cache_plan import CachePlan

    src = """func.func @k(%B: memref<20x30xf32>, %C: memref<8x30xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 1 to 30 {
      affine.for %k = 0 to 20 {
        %b = affine.load %B[%k, %j] : memref<20x30xf32>
        %l = affine.load %C[%i, %j - 1] : memref<8x30xf32>
        %c = affine.load %C[%i, %j] : memref<8x30xf32>
        %p = arith.mulf %l, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<8x30xf32>
      }
    }
  }
  return
}"""
    ctx = mlir.new_context()
    with ctx:
        module = mlir.parse_module(src, ctx=ctx)
        q = next(o for o in mlir.walk(module.operation) if o.name == "affine.for")
        p = next(o for o in mlir.walk(q) if o.name == "affine.for" and o != q)
        r = next(o for o in mlir.walk(p) if o.name == "affine.for" and o != p)
        plan = CachePlan(q, p, r, Sizes(8, 29, 20, 4, 8, 4), SMALL, kc=5, nc=8)
        why = order_violation(plan)
        assert why is not None and "dependence" in why or "RAW" in (why or ""), why
        assert order_violation(CachePlan(q, p, r, Sizes(8, 29, 20, 4, 8, 4), SMALL, mc=4)) is None  # rows: legal
        assert mlir.verify(module.operation) is None  # the scratch copy is gone


@has_runner
@pytest.mark.parametrize("stored", [True, False])
def test_a_row_maximum_carried_by_the_column_loop_keeps_its_columns_whole(stored):
    """P carries its own reduction (a row maximum, section 11b): its column loop is not cut into
    blocks (the partial maximum would have to cross them), and the default remarks say so; the
    rows may still be blocked. An unused maximum is dead: the default pipeline's dead-carried step
    removes it before cache tiling, so cache-tile's own rule is checked on it with cache-tile and
    register-tile alone (which removes it later), and the default pipeline then blocks the
    columns of what is left, a plain product. (Its rows are not blocked: the sum runs whole, and
    its micro-panel exceeds an eighth of L2, section 65.)"""
    store = "    affine.store %mx, %M[%i] : memref<130xf32>\n" if stored else ""
    src = f"""func.func @k(%A: memref<130x20xf32>, %B: memref<20x263xf32>, %C: memref<130x263xf32>, %M: memref<130xf32>) {{
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 130 {{
    %mx = affine.for %j = 0 to 263 iter_args(%m = %ninf) -> (f32) {{
      %r = affine.for %k = 0 to 20 iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %A[%i, %k] : memref<130x20xf32>
        %b = affine.load %B[%k, %j] : memref<20x263xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : memref<130x263xf32>
      %n = arith.maximumf %m, %r : f32
      affine.yield %n : f32
    }}
{store}  }}
  return
}}"""
    remarks = check(src, cpu(caches=(1024, 4096, 8192)), passes=None if stored else ["cache-tile", "register-tile"])
    assert not [m for m in messages(remarks, "[CACHE TILING]") if "columns in blocks" in m]
    assert not messages(remarks, "[STOP CACHE TILING] the blocked order")  # the plan's rule, not the check's
    # the sum's whole 20-term micro-panel exceeds an eighth of the 4 KiB L2: the rows stay whole too (section 65)
    assert stored or messages(remarks, "[STOP CACHE TILING] the rows are not blocked")
    kept = [r for r in remarks if r.message.startswith("[STOP CACHE TILING] the columns are not blocked")]
    assert kept and "a row maximum" in kept[0].args["reason"], [r.message for r in remarks]  # said by default
    if not stored:
        remarks = check(src, cpu(caches=(1024, 4096, 8192)))
        assert [r for r in remarks if r.pass_name == "dead-carried" and r.message.startswith("[DEAD VALUE]")]
        assert [m for m in messages(remarks, "[CACHE TILING]") if "columns in blocks" in m], [r.message for r in remarks]


@has_runner
def test_rows_from_a_loop_further_out_keep_the_product_unblocked():
    """A 1x1 convolution in channels-first order (f, oh, ow, c): the register tile takes its rows
    from f, two loops out (section 17), oh between. The blocks are built around a product
    directly inside its rows' loop, so the plan refuses, naming oh; results unchanged."""
    src = """func.func @k(%W: memref<16x40xf32>, %I: memref<40x3x64xf32>, %O: memref<16x3x64xf32>) {
  affine.for %f = 0 to 16 {
    affine.for %oh = 0 to 3 {
      affine.for %ow = 0 to 64 {
        affine.for %c = 0 to 40 {
          %w = affine.load %W[%f, %c] : memref<16x40xf32>
          %x = affine.load %I[%c, %oh, %ow] : memref<40x3x64xf32>
          %o = affine.load %O[%f, %oh, %ow] : memref<16x3x64xf32>
          %p = arith.mulf %w, %x : f32
          %s = arith.addf %o, %p : f32
          affine.store %s, %O[%f, %oh, %ow] : memref<16x3x64xf32>
        }
      }
    }
  }
  return
}"""
    remarks = check(src, cpu(), passes=["cache-tile", "register-tile"])
    refused = [r for r in remarks if r.message.startswith("[STOP CACHE TILING]")]
    assert refused and "t.mlir:3:5 lies between the rows' loop and the product" in refused[0].args["reason"], \
        [r.message for r in remarks]
    assert not messages(remarks, "[CACHE TILING]")


# ============================================================================= panels of a local B

def transposed_product(m: int, n: int, k: int, extra: str = "") -> str:
    """X (m x k) times W^T, W (n x k) transposed into a local buffer first (the form product
    isolation leaves torch's Linear in), then `extra` (uses of %T after the product)."""
    return f"""func.func @k(%X: memref<{m}x{k}xf32>, %W: memref<{n}x{k}xf32>, %C: memref<{m}x{n}xf32>, %O: memref<8xf32>) {{
  %T = memref.alloc() : memref<{k}x{n}xf32>
  affine.for %a = 0 to {k} {{
    affine.for %b = 0 to {n} {{
      %w = affine.load %W[%b, %a] : memref<{n}x{k}xf32>
      affine.store %w, %T[%a, %b] : memref<{k}x{n}xf32>
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %c = affine.load %C[%i, %j] : memref<{m}x{n}xf32>
      %r = affine.for %q = 0 to {k} iter_args(%acc = %c) -> (f32) {{
        %x = affine.load %X[%i, %q] : memref<{m}x{k}xf32>
        %t = affine.load %T[%q, %j] : memref<{k}x{n}xf32>
        %p = arith.mulf %x, %t : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
{extra}  memref.dealloc %T : memref<{k}x{n}xf32>
  return
}}
"""


PANEL_STEPS = ["cache-tile", "register-tile", "panel-layout"]


@has_runner
@pytest.mark.parametrize("bits", [256, 512])
def test_a_transposed_weight_is_laid_out_in_panels(bits):
    src = transposed_product(37, 101, 29)
    remarks = check(src, cpu(bits), passes=PANEL_STEPS)
    panels = messages(remarks, "[PANEL LAYOUT]")
    assert len(panels) == 1 and "29 x 101 buffer" in panels[0], [r.message for r in remarks]


@has_runner
def test_a_transposed_weight_through_the_default_pipeline():
    remarks = check(transposed_product(37, 101, 29), cpu())
    assert messages(remarks, "[PANEL LAYOUT]")


@has_runner
def test_a_vector_read_across_a_panel_keeps_the_rows():
    """A vector of 8 read from column 20 of each row (an op the function wrote itself) would cross
    a panel of 24 columns: the layout is refused, naming it."""
    extra = """  affine.for %r = 0 to 29 {
    %v = affine.vector_load %T[%r, 20] : memref<29x101xf32>, vector<8xf32>
    affine.vector_store %v, %C[%r, 0] : memref<37x101xf32>, vector<8xf32>
  }
"""
    remarks = check(transposed_product(37, 101, 29, extra), cpu(), passes=PANEL_STEPS)
    refused = messages(remarks, "[STOP PANEL LAYOUT]")
    assert refused and "may cross a panel" in refused[0], [r.message for r in remarks]
    assert not messages(remarks, "[PANEL LAYOUT]")


@has_runner
def test_a_vector_read_within_a_panel_is_rewritten_with_the_rest():
    extra = """  affine.for %r = 0 to 29 {
    %v = affine.vector_load %T[%r, 48] : memref<29x101xf32>, vector<8xf32>
    affine.vector_store %v, %C[%r, 0] : memref<37x101xf32>, vector<8xf32>
  }
"""
    remarks = check(transposed_product(37, 101, 29, extra), cpu(), passes=PANEL_STEPS)
    assert messages(remarks, "[PANEL LAYOUT]"), [r.message for r in remarks]


@has_runner
def test_a_buffer_seen_by_a_call_keeps_its_layout():
    extra = "  func.call @see(%T) : (memref<29x101xf32>) -> ()\n"
    src = transposed_product(37, 101, 29, extra) + """
func.func private @see(%t: memref<29x101xf32>) {
  return
}
"""
    remarks = check(src, cpu(), passes=PANEL_STEPS)
    refused = messages(remarks, "[STOP PANEL LAYOUT]")
    assert refused and "cannot follow" in refused[0], [r.message for r in remarks]
    assert not messages(remarks, "[PANEL LAYOUT]")


def test_the_panel_check_finds_a_crossing_vector():
    """crossing() on its own: a vector of 8 from column 8 t + 3 crosses a 16-column panel for some
    t, one from 8 t does not."""
    from loopopt import mlir
    from loopopt.analysis.affine import Scope
    from loopopt.codegen.cpu.plan.panel_layout import crossing

    src = """func.func @k(%T: memref<4x64xf32>, %o: memref<4x64xf32>) {
  affine.for %r = 0 to 4 {
    affine.for %c = 0 to 56 step 8 {
      %v = affine.vector_load %T[%r, %c] : memref<4x64xf32>, vector<8xf32>
      %w = affine.vector_load %T[%r, %c + 3] : memref<4x64xf32>, vector<8xf32>
      affine.vector_store %v, %o[%r, %c] : memref<4x64xf32>, vector<8xf32>
      affine.vector_store %w, %o[%r, %c] : memref<4x64xf32>, vector<8xf32>
    }
  }
  return
}"""
    ctx = mlir.new_context()
    with ctx:
        module = mlir.parse_module(src, ctx=ctx)
        loads = [o for o in mlir.walk(module.operation) if o.name == "affine.vector_load"]
        assert crossing(loads[0], 16, Scope()) is None
        assert crossing(loads[1], 16, Scope()) is not None


@has_runner
def test_the_masked_last_vectors_of_the_tile_are_laid_out_with_the_rest():
    """101 columns in tiles of 24: the register tile reads the last 5 with a masked vector
    (vector.maskedload, affine.apply indices); panel layout rewrites it with the tile's other
    loads (all 17 accesses), and the results stay bit-exact natively."""
    remarks = check(transposed_product(37, 101, 29), cpu(), passes=PANEL_STEPS)
    assert [m for m in messages(remarks, "[REGISTER TILING]")], [r.message for r in remarks]
    res = optimize(transposed_product(37, 101, 29), cpu(), filename="t.mlir", passes=PANEL_STEPS)
    masked = [ln for ln in res.text.splitlines() if "vector.maskedload" in ln and "memref<5x29x24xf32>" in ln]
    assert masked and "memref<29x101xf32>" not in res.text, res.text


@has_runner
def test_a_masked_write_and_read_within_a_panel_are_rewritten():
    """A masked store and a masked load of 8 lanes from column c + 8 (c a multiple of 24) stay in
    one panel: rewritten, and what the store wrote is what the loads read."""
    extra = """  %c3 = arith.constant 3 : index
  %pz = arith.constant dense<0.0> : vector<8xf32>
  %mk = vector.create_mask %c3 : vector<8xi1>
  %one = arith.constant dense<1.5> : vector<8xf32>
  affine.for %r = 0 to 29 {
    affine.for %c = 0 to 96 step 24 {
      %e = affine.apply affine_map<(d0) -> (d0 + 8)>(%c)
      vector.maskedstore %T[%r, %e], %mk, %one : memref<29x101xf32>, vector<8xi1>, vector<8xf32>
      %v = vector.maskedload %T[%r, %e], %mk, %pz : memref<29x101xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
      %w = affine.vector_load %T[%r, %c + 8] : memref<29x101xf32>, vector<8xf32>
      %s = arith.addf %v, %w : vector<8xf32>
      affine.vector_store %s, %C[%r, %c] : memref<37x101xf32>, vector<8xf32>
    }
  }
"""
    remarks = check(transposed_product(37, 101, 29, extra), cpu(), passes=PANEL_STEPS)
    assert messages(remarks, "[PANEL LAYOUT]"), [r.message for r in remarks]
    text = optimize(transposed_product(37, 101, 29, extra), cpu(), filename="t.mlir", passes=PANEL_STEPS).text
    assert [ln for ln in text.splitlines() if "vector.maskedstore" in ln and "memref<5x29x24xf32>" in ln], text
    assert "memref<29x101xf32>" not in text, text


@has_runner
@pytest.mark.parametrize("column", ["%c20", "%e"])
def test_a_masked_read_across_a_panel_or_at_an_unknown_column_keeps_the_rows(column):
    """A masked vector of 8 lanes from column 20 (5 of them set: columns 20 to 24) crosses a panel
    of 24 columns, and one from a column computed in the loop (2 r by arith.muli) is not modelled:
    the layout is refused, naming the op."""
    extra = f"""  %c20 = arith.constant 20 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %pz = arith.constant dense<0.0> : vector<8xf32>
  %mk = vector.create_mask %c5 : vector<8xi1>
  affine.for %r = 0 to 29 {{
    %e = arith.muli %r, %c2 : index
    %v = vector.maskedload %T[%r, {column}], %mk, %pz : memref<29x101xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
    affine.vector_store %v, %C[%r, 0] : memref<37x101xf32>, vector<8xf32>
  }}
"""
    remarks = check(transposed_product(37, 101, 29, extra), cpu(), passes=PANEL_STEPS)
    refused = messages(remarks, "[STOP PANEL LAYOUT]")
    assert refused and "may cross a panel" in refused[0], [r.message for r in remarks]
    why = [r.args["reason"] for r in remarks if r.message.startswith("[STOP PANEL LAYOUT]")][0]
    assert why.startswith("vector.maskedload") and ("not affine" if column == "%e" else "8 lanes") in why, why
    assert not messages(remarks, "[PANEL LAYOUT]")


# ============================================================================= isolation in strips

def fused_linear(m: int, n: int, k: int) -> str:
    """The shape fusion leaves a Linear layer in (BERT's FFN): for each k, the column k of W is
    copied into a row buffer, then every row of C is updated with it."""
    return f"""func.func @k(%X: memref<{m}x{k}xf32>, %W: memref<{n}x{k}xf32>, %C: memref<{m}x{n}xf32>) {{
  %t = memref.alloc() : memref<1x{n}xf32>
  affine.for %q = 0 to {k} {{
    affine.for %b = 0 to {n} {{
      %w = affine.load %W[%b, %q] : memref<{n}x{k}xf32>
      affine.store %w, %t[0, %b] : memref<1x{n}xf32>
    }}
    affine.for %i = 0 to {m} {{
      %x = affine.load %X[%i, %q] : memref<{m}x{k}xf32>
      affine.for %j = 0 to {n} {{
        %v = affine.load %t[0, %j] : memref<1x{n}xf32>
        %c = affine.load %C[%i, %j] : memref<{m}x{n}xf32>
        %p = arith.mulf %x, %v : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<{m}x{n}xf32>
      }}
    }}
  }}
  memref.dealloc %t : memref<1x{n}xf32>
  return
}}
"""


@has_runner
@pytest.mark.parametrize("k,budget,strip", [(13, 1600, 4), (12, 1600, 4), (24, 3200, 8), (7, 1000, 2)])
def test_a_product_whose_expansion_exceeds_the_budget_is_isolated_in_strips(k, budget, strip):
    """50 columns (200 bytes a copy): a budget of 1600 bytes fits 8 copies; K = 13 (a prime) has
    no divisor in [4, 8], so it is cut into strips of 7 (the rest 6)... here the strip is the one
    `strip_of` picks; every result bit-exact, the strips named in the remark."""
    from loopopt.codegen.cpu.isolate_products import strip_of

    src = fused_linear(9, 50, k)
    remarks = check(src, cpu(sb_size=budget))
    iso = messages(remarks, "[PRODUCT ISOLATION]")
    want = strip_of(k, budget // 200)
    assert any(f"strips of {want} iterations" in m for m in iso), [r.message for r in remarks]
    assert messages(remarks, "[REGISTER TILING]")


def test_strip_lengths():
    from loopopt.codegen.cpu.isolate_products import strip_of

    assert strip_of(768, 170) == 128  # a divisor within [85, 170]
    assert strip_of(3072, 682) == 512
    assert strip_of(13, 8) == 7  # no divisor in [4, 8]: two equal strips (7, 6)
    assert strip_of(769, 170) == 154  # a prime: five strips (154 x 4 + 153)


@has_runner
def test_a_budget_that_fits_no_strip_says_why_by_default():
    src = fused_linear(9, 50, 13)
    remarks = check(src, cpu(sb_size=300))
    missed = [r.message for r in remarks if r.message.startswith("[STOP PRODUCT ISOLATION]")]
    assert missed and "two iterations' copies" in missed[0], [r.message for r in remarks]


# ============================================================================= a dynamic batch's rows left over

def batch_gemm(k: int = 48, n: int = 64) -> str:
    """C = A B over an unknown number of rows (a dynamic batch), the sum carried from 0.0."""
    return f"""func.func @k(%A: memref<?x{k}xf32>, %B: memref<{k}x{n}xf32>, %C: memref<?x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x{k}xf32>
  affine.for %i = 0 to %m {{
    affine.for %j = 0 to {n} {{
      %r = affine.for %kk = 0 to {k} iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %A[%i, %kk] : memref<?x{k}xf32>
        %b = affine.load %B[%kk, %j] : memref<{k}x{n}xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : memref<?x{n}xf32>
    }}
  }}
  return
}}
"""


def test_the_rows_left_over_start_at_a_single_bound():
    """`start_of_rest`: the loop after the whole blocks of `0 to %m` (%m a memref.dim) starts at
    `(%m floordiv b) * b` itself (%m >= 0, so that is >= 0); a lower bound that may lie above
    the upper one (`1 to %m`, `%i to %m`) keeps the max."""
    from loopopt.codegen.cpu.register_tile import multiple_bound, start_of_rest
    from loopopt.analysis.loops import loop_bound
    from loopopt import mlir as lm
    src = """func.func @k(%A: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %A, %c0 : memref<?xf32>
  affine.for %i = 0 to %m { }
  affine.for %i = 1 to %m { }
  affine.for %i = 0 to %n { }
  affine.for %i = 0 to affine_map<()[s0] -> (s0 floordiv 2 + 3)>()[%m] { }
  return
}"""
    with lm.new_context() as ctx:
        module = lm.parse_module(src, ctx=ctx)
        loops = [op for op in lm.walk(module.operation) if op.name == "affine.for"]
        results = []
        for lp in loops:
            lo, hi = loop_bound(lp, "lb"), loop_bound(lp, "ub")
            start, _ = start_of_rest(multiple_bound(lo, hi, 8), lo, hi)
            results.append(len(start.results))
    assert results == [1, 2, 2, 1]


@has_runner
@pytest.mark.parametrize("m", [0, 3, 13, 104, 211])
def test_a_dynamic_batch_left_over_by_the_row_blocks_keeps_its_register_tile(m):
    """The rows the whole row blocks leave over (all of them when the batch is smaller than a
    block) are register tiled with rows as the blocks are (`start_of_rest`: one lower bound);
    before, their loop started at `max(0, ...)` and ran one row per step. Bit for bit natively.
    (A 40 KiB L2: rows in blocks of 104, the sum's whole 48 x 24 micro-panel within an eighth of
    it, section 65.)"""
    remarks = check(batch_gemm(n=112), cpu(caches=(1024, 40 * 1024, 160 * 1024)), sizes=((m, 48), (48, 112), (m, 112)))
    tiled = messages(remarks, "[REGISTER TILING]")
    assert any("rows in blocks of" in r for r in messages(remarks, "[CACHE TILING]")), tiled
    assert tiled and not any(r.startswith("[REGISTER TILING] 1 x") for r in tiled), tiled
