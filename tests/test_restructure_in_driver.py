"""Seed 001 inside the fusion driver: distribution, dead iterations, GCD tiling + interchange."""
import os

from fusion_util import count, messages, optimize_checked

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_384_256_tiled_interchanged_and_fused_on_neuron():
    # Both ranges are live (the 384 loop also writes %x): tile by GCD 128, move the 128
    # partitions outermost in both nests, then fuse on the partition loop.
    src = open(os.path.join(ROOT, "examples", "partition_extents.mlir")).read()
    res = optimize_checked(src, target="trn1")
    msgs = messages(res)
    assert "[LOOP TILING] by 128" in msgs
    assert msgs.count("[LOOP INTERCHANGE] 1:0:2") == 2
    assert res.num_loops_fused >= 1
    outer = res.text.split("affine.for", 2)[1]
    assert outer.strip().split("{")[0].strip().endswith("= 0 to 128")
    # the intermediate is contracted to the slice one partition needs: 3 tiles x 4
    assert "memref<3x4xf32>" in res.text and "memref<384x4xf32>" not in res.text.split("func.func")[1].split("{")[1]
    # the order is distribution -> tiling -> interchange -> fusion
    order = [m.split("]")[0] + "]" for m in msgs if m.startswith(("[LOOP TILING]", "[LOOP INTERCHANGE]",
                                                                  "[LOOP FUSION]"))]
    assert order[0] == "[LOOP TILING]" and order[-1] == "[LOOP FUSION]"


def test_384_256_not_interchanged_on_cpu():
    # On the cpu target the driver never tiles or interchanges (locality): the 384-row loop is
    # split at row 256 instead (its tail writes %x) and the head fuses with the consumer.
    src = open(os.path.join(ROOT, "examples", "partition_extents.mlir")).read()
    res = optimize_checked(src, target="cpu")
    assert "[LOOP TILING] by 128" not in messages(res)
    assert "[LOOP SPLIT] split the loop at iteration 256: the head fuses, the tail keeps the rest" in messages(res)
    assert "[LOOP FUSION] , level = 0 fused test.mlir:6:3 and test.mlir:15:3 profit = 8192" in messages(res)


DEAD_TAIL = """
func.func @f(%a: memref<384x4xf32>, %y: memref<256x4xf32>) {
  %t = memref.alloc() : memref<384x4xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j] : memref<384x4xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %t[%i, %j] : memref<384x4xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      affine.store %w, %y[%i, %j] : memref<256x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>
  return
}
"""


def test_dead_iterations_shrink_then_plain_fusion():
    # Rows 256..383 of %t are never read: the producer shrinks to 256 rows and fuses directly.
    for target in ("trn1", "cpu"):
        res = optimize_checked(DEAD_TAIL, target=target)
        msgs = messages(res)
        assert "[DEAD ITERATIONS] shrink loop to the iterations whose writes are read" in msgs
        assert "[LOOP TILING] by 128" not in msgs
        assert count(res.text, "affine.for") == 2
        assert "0 to 384" not in res.text


LIVE_TAIL = DEAD_TAIL.replace("""  memref.dealloc %t : memref<384x4xf32>""", """  affine.for %i = 256 to 384 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      affine.store %w, %a[%i, %j] : memref<384x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>""")


def test_live_tail_is_kept():
    # A later loop reads rows 256..383: the tail is live and must not be removed.
    res = optimize_checked(LIVE_TAIL, target="cpu")
    assert "[DEAD ITERATIONS] shrink loop to the iterations whose writes are read" not in messages(res)
    assert "256 to 384" in res.text  # on cpu the tail is split off, not dropped


DISTRIBUTE = """
func.func @f(%a: memref<65xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  %c = arith.constant 0.0 : f32
  affine.store %c, %t[64] : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<65xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<65xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out1[%i] : memref<64xf32>
    %z = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %z, %out2[%i] : memref<64xf32>
  }
  return
}
"""


def test_distribution_enables_fusion():
    # The consumer's second statement reads t[i+1] (negative distance); split it off and fuse
    # the first statement with the producer.
    res = optimize_checked(DISTRIBUTE, target="cpu")
    msgs = messages(res)
    assert "[STOP FUSION] negative distance dep in def-use: test.mlir:6:3 and test.mlir:10:3, level = 0, profit = 520" in msgs
    assert "[LOOP DISTRIBUTION] into 2 loops" in msgs
    assert res.num_loops_fused == 1
    assert count(res.text, "affine.for") == 2


def test_distribution_can_be_disabled():
    res = optimize_checked(DISTRIBUTE, target="cpu", enable_loop_distribution=False)
    assert "[LOOP DISTRIBUTION] into 2 loops" not in messages(res)
    assert res.num_loops_fused == 0


ROW_PRIVATE = """
func.func @f(%a: memref<16x8xf32>, %out: memref<16x8xf32>) {
  %t = memref.alloc() : memref<16x8xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<16x8xf32>
      affine.store %x, %t[%i, %j] : memref<16x8xf32>
    }
    affine.for %j = 0 to 8 {
      %x = affine.load %t[%i, 7 - %j] : memref<16x8xf32>
      affine.store %x, %out[%i, %j] : memref<16x8xf32>
    }
  }
  memref.dealloc %t : memref<16x8xf32>
  return
}
"""


def test_row_private_buffer_shrinks_to_one_row():
    # Each i iteration writes and reads only row i (reversed): one row of 8 suffices.
    res = optimize_checked(ROW_PRIVATE, target="cpu")
    assert "memref<1x8xf32>" in res.text
    assert any("shrunk from 16x8 to 1x8" in m for m in messages(res))


def test_buffer_shared_across_iterations_is_not_shrunk():
    src = ROW_PRIVATE.replace("%t[%i, 7 - %j]", "%t[15 - %i, 7 - %j]")
    res = optimize_checked(src, target="cpu")
    assert "memref<16x8xf32>" in res.text.split("memref.alloc")[1].split("\n")[0]


def test_transposed_consumer_is_interchanged_then_fused():
    # The consumer walks (j, i) over a (i, j) intermediate: interchange aligns it, both levels
    # fuse and the intermediate becomes a scalar (MLIR reaches this only by slicing, and not at all
    # with symbolic bounds: see tests/test_seed003.py).
    src = open(os.path.join(ROOT, "examples", "transpose_consumer.mlir")).read()
    for target in ("trn1", "cpu"):
        res = optimize_checked(src, target=target)
        assert "[LOOP INTERCHANGE] 1:0" in messages(res)
        assert res.num_loops_fused == 2
        assert "memref.alloc" not in res.text


def test_3d_consumer_interchanged_at_two_levels():
    src = open(os.path.join(ROOT, "examples", "batched_3d_chain.mlir")).read()
    res = optimize_checked(src, target="cpu")
    # three loops, the inner two then joined into one of 64 (flat-loops: rows of whole vectors)
    joined = sum(1 for r in res.remarks if r.pass_name == "flat-loops" and r.kind == "Passed")
    assert res.text.count("affine.for") + joined == 3 and res.num_loops_fused == 3
    assert "memref.alloc" not in res.text


MOSTLY_ROWS = """
func.func @f(%a: memref<32x32xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>, %o: memref<32x32xf32>) {
  %t = memref.alloc() : memref<32x32xf32>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<32x32xf32>
      affine.store %x, %t[%i, %j] : memref<32x32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%j, %i] : memref<32x32xf32>
      %y = affine.load %b[%i, %j] : memref<32x32xf32>
      %z = affine.load %c[%i, %j] : memref<32x32xf32>
      %s = arith.addf %x, %y : f32
      %r = arith.addf %s, %z : f32
      affine.store %r, %o[%i, %j] : memref<32x32xf32>
    }
  }
  return
}
"""


def test_cpu_interchange_never_adds_strided_walks():
    # Aligning the consumer with the producer would fix the walk over %t but make %b, %c and %o
    # column walks (3 strided accesses instead of 1): on cpu the guard refuses; on a Neuron
    # target there is no such guard and the pair fuses.
    from loopopt import mlir
    from loopopt.codegen.cpu.plan.locality import strided_innermost_accesses

    def strided(text):
        module = mlir.parse_module(text)  # keep the module alive while its ops are read
        return sum(strided_innermost_accesses(f) for f in mlir.functions(module))

    assert strided(MOSTLY_ROWS) == 1
    res = optimize_checked(MOSTLY_ROWS, target="cpu")
    assert "[LOOP INTERCHANGE] 1:0" not in messages(res)
    assert strided(res.text) == 1
    res = optimize_checked(MOSTLY_ROWS, target="trn1")
    assert "[LOOP INTERCHANGE] 1:0" in messages(res) and res.num_loops_fused == 2
