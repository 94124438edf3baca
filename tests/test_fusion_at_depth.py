"""Issue 25: fusion where the trip counts do not match, inside fused loops and at function level.

* A producer nest whose store is indexed by the fused (enclosing) IVs and its own: each consumer
  iteration recomputes the one producer iteration it reads (`plan_recompute(at_depth=True)`,
  MLIR's loop-fusion-4.mlir `@fuse_higher_dim_nest_into_lower_dim_nest`); the remark names the
  depth and the slice.
* Dead iterations of a longer loop on both sides of the shorter loop's range (MLIR's
  loop-fusion-4.mlir `@non_int_memory_space`): the longer loop shrinks to the run its partner
  covers.
* A consumer permuted so that it reads its private intermediate in the producer's order even
  though that walk becomes strided (the intermediate goes with the fusion; loop-fusion.mlir
  `@should_fuse_loop_nest`), and a band of four loops permuted to align (loop-fusion-2.mlir
  `@should_fuse_after_two_loop_interchanges`).

Every transform is checked for its IR, unchanged results in the interpreter (optimize_checked)
and natively with mlir-runner; every guard has a case that it refuses (mutation checks in the
report of issue 25: removing the guard makes these tests fail).
"""
from __future__ import annotations

from loopopt import mlir
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import loops_in_block
from loopopt.loop_optimization import pair_restructuring as pr
from fusion_util import messages, optimize_checked
from test_cost_model import _native_same

HIGHER_DIM = """
func.func @hd(%A: memref<2x3x4x8xf32>, %C: memref<2x4x24xf32>) {
  %B = memref.alloc() : memref<2x4x3x8xf32>
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 4 {
      affine.for %c = 0 to 3 {
        affine.for %d = 0 to 8 {
          %x = affine.load %A[%a, %c, %b, %d] : memref<2x3x4x8xf32>
          %y = arith.mulf %x, %x : f32
          affine.store %y, %B[%a, %b, %c, %d] : memref<2x4x3x8xf32>
        }
      }
    }
  }
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 4 {
      affine.for %e = 0 to 24 {
        %y = affine.load %B[OUTER, %e floordiv 8, %e mod 8] : memref<2x4x3x8xf32>
        %z = arith.addf %y, %y : f32
        affine.store %z, %C[%a, %b, %e] : memref<2x4x24xf32>
      }
    }
  }
  memref.dealloc %B : memref<2x4x3x8xf32>
  return
}
"""


def test_higher_dim_producer_is_recomputed_at_depth_two():
    src = HIGHER_DIM.replace("OUTER", "%a, %b")
    res = optimize_checked(src, "cpu")
    assert res.text.count("affine.for") == 3
    assert "memref.alloc" not in res.text
    msg = [m for m in messages(res) if m.startswith("[RECOMPUTE] producer slice")]
    assert len(msg) == 1, messages(res)
    assert "at depth 2" in msg[0]
    assert "floordiv 8" in msg[0] and "mod 8" in msg[0]
    rem = next(r for r in res.remarks if r.message == msg[0])
    assert rem.args["depth"] == 2 and rem.args["loops_removed"] == 2
    _native_same(src, res.text, "hd")


def _inner_pair(text: str):
    module = mlir.parse_module(text, "t.mlir")
    fn = mlir.functions(module)[0]
    outer = loops_in_block(mlir.func_body(fn))[0]
    inner = loops_in_block(outer.regions[0].blocks[0])
    inner = loops_in_block(inner[0].regions[0].blocks[0])
    return module, inner[0], inner[-1]


FUSED_OUTER = """
func.func @fo(%A: memref<2x3x4x8xf32>, %C: memref<2x4x24xf32>) {
  %B = memref.alloc() : memref<2x4x3x8xf32>
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 4 {
      affine.for %c = 0 to 3 {
        affine.for %d = 0 to 8 {
          %x = affine.load %A[%a, %c, %b, %d] : memref<2x3x4x8xf32>
          %y = arith.mulf %x, %x : f32
          affine.store %y, %B[%a, %b, %c, %d] : memref<2x4x3x8xf32>
        }
      }
      affine.for %e = 0 to 24 {
        %y = affine.load %B[READ, %e floordiv 8, %e mod 8] : memref<2x4x3x8xf32>
        %z = arith.addf %y, %y : f32
        affine.store %z, %C[%a, %b, %e] : memref<2x4x24xf32>
      }
      AFTER
    }
  }
  memref.dealloc %B : memref<2x4x3x8xf32>
  return
}
"""


def fused_outer(read: str, after: str = "") -> str:
    return FUSED_OUTER.replace("READ", read).replace("AFTER", after)


def test_planner_at_depth_needs_the_flag():
    """Without `at_depth` a store indexed by enclosing IVs is not a plan (the negative-distance
    rescue keeps its rule); with it the enclosing components are kept and the slice named."""
    module, producer, consumer = _inner_pair(fused_outer("%a, %b"))
    plan, why = pr.plan_recompute(producer, consumer, Scope())
    assert plan is None and "not the nest's IVs" in why
    plan, why = pr.plan_recompute(producer, consumer, Scope(), at_depth=True)
    assert plan is not None, why
    assert plan.positions == (None, None, 0, 1)
    assert pr.slice_bounds(plan).count("floordiv 8") == 1


def test_reads_of_another_enclosing_iteration_refuse():
    """The consumer reads row 0 of B, written in iteration b = 0 of the fused loop; the end of
    that iteration overwrites A[a, 0, 0, 0], so recomputing B's row 0 in a later iteration would
    read the new A. Refused: _reads_covered keeps the enclosing IVs as set dimensions."""
    src = fused_outer("%a, 0", "affine.store %k, %A[%a, 0, %b, 0] : memref<2x3x4x8xf32>")
    src = src.replace("%B = memref.alloc()", "%k = arith.constant 2.5 : f32\n  %B = memref.alloc()")
    module, producer, consumer = _inner_pair(src)
    plan, why = pr.plan_recompute(producer, consumer, Scope(), at_depth=True)
    assert plan is None and "may read elements the producer does not write" in why
    res = optimize_checked(src, "cpu")
    assert not any(m.startswith("[RECOMPUTE]") for m in messages(res))
    assert "memref.alloc" in res.text
    _native_same(src, res.text, "fo")


def test_consumer_writing_the_producer_input_refuses_at_depth():
    """The consumer overwrites A, which the producer read: a recomputed value would see the
    new A (the planner's rule on what the consumer writes)."""
    src = fused_outer("%a, %b").replace(
        "affine.store %z, %C[%a, %b, %e] : memref<2x4x24xf32>",
        "affine.store %z, %C[%a, %b, %e] : memref<2x4x24xf32>\n"
        "        affine.store %z, %A[%a, (%e + 1) mod 3, %b, %e mod 8] : memref<2x3x4x8xf32>")
    module, producer, consumer = _inner_pair(src)
    plan, why = pr.plan_recompute(producer, consumer, Scope(), at_depth=True)
    assert plan is None and "may change what the producer reads" in why
    res = optimize_checked(src, "cpu")
    assert not any(m.startswith("[RECOMPUTE]") for m in messages(res))
    _native_same(src, res.text, "fo")


def test_trn1_keeps_the_seed_rescues():
    src = HIGHER_DIM.replace("OUTER", "%a, %b")
    res = optimize_checked(src, "trn1")
    assert not any(m.startswith("[RECOMPUTE]") for m in messages(res))


# ------------------------------------------------------------ dead iterations on both sides

WINDOW = """
func.func @win(%x: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %t[%i] : memref<64xf32>
  }
  affine.for %i = 16 to 32 {
    %v = affine.load %t[%i] : memref<64xf32>
    affine.store %v, %out[%i] : memref<64xf32>
  }
  LATER
  memref.dealloc %t : memref<64xf32>
  return
}
"""


def test_dead_iterations_on_both_sides_shrink_to_the_partner_range():
    src = WINDOW.replace("LATER", "")
    res = optimize_checked(src, "cpu")
    rem = [r for r in res.remarks if r.message.startswith("[DEAD ITERATIONS]")]
    assert len(rem) == 1 and rem[0].args["first_kept"] == 16 and rem[0].args["kept_iterations"] == 16
    assert res.text.count("affine.for") == 1 and "affine.for %arg2 = 16 to 32" in res.text
    _native_same(src, res.text, "win")


def test_a_later_read_of_a_leading_iteration_keeps_it():
    """t[5] is read after both loops: iteration 5 of the producer is not dead, so the producer
    is not shrunk to 16..31 (the leading cut of dead_tail_violation)."""
    later = ("%c5 = arith.constant 5 : index\n  %l = affine.load %t[5] : memref<64xf32>\n"
             "  affine.store %l, %out[0] : memref<64xf32>")
    src = WINDOW.replace("LATER", later)
    module = mlir.parse_module(src, "t.mlir")
    fn = mlir.functions(module)[0]
    producer, consumer = loops_in_block(mlir.func_body(fn))[:2]
    assert pr.aligned_start(producer, consumer) == 16
    why = pr.dead_tail_violation(producer, 16, Scope(), start=16)
    assert why is not None and "uses the removed iterations" in why
    assert pr.dead_tail_violation(producer, 16, Scope(), start=0) is not None  # 32.. are dead, 16.. not
    res = optimize_checked(src, "cpu")
    assert not any(m.startswith("[DEAD ITERATIONS]") for m in messages(res))
    _native_same(src, res.text, "win")


def test_aligned_start_needs_the_partner_inside():
    src = WINDOW.replace("LATER", "").replace("affine.for %i = 16 to 32", "affine.for %i = 56 to 72")
    module = mlir.parse_module(src.replace("memref<64xf32>", "memref<80xf32>"), "t.mlir")
    producer, consumer = loops_in_block(mlir.func_body(mlir.functions(module)[0]))[:2]
    assert pr.aligned_start(producer, consumer) == 0  # 56..71 is not a run of 0..63


# ------------------------------------------------------------ interchange to align

PRIVATE_TRANSPOSE = """
func.func @pt(%out: memref<10xf32>, %x: memref<10x10xf32>) {
  %a = memref.alloc() : memref<10x10xf32>
  %b = memref.alloc() : memref<10x10xf32>
  affine.for %i0 = 0 to 10 {
    affine.for %i1 = 0 to 10 {
      %v = affine.load %x[%i0, %i1] : memref<10x10xf32>
      affine.store %v, %a[%i0, %i1] : memref<10x10xf32>
    }
  }
  affine.for %i2 = 0 to 10 {
    affine.for %i3 = 0 to 10 {
      %v0 = affine.load %a[%i3, %i2] : memref<10x10xf32>
      affine.store %v0, %b[%i2, %i3] : memref<10x10xf32>
    }
  }
  affine.for %i4 = 0 to 10 {
    affine.for %i5 = 0 to 10 {
      %v1 = affine.load %b[%i4, %i5] : memref<10x10xf32>
      %s = affine.load %out[%i4] : memref<10xf32>
      %s1 = arith.addf %s, %v1 : f32
      affine.store %s1, %out[%i4] : memref<10xf32>
    }
  }
  memref.dealloc %a : memref<10x10xf32>
  memref.dealloc %b : memref<10x10xf32>
  return
}
"""


def test_private_intermediates_do_not_count_as_strided_walks():
    from loopopt.codegen.cpu.plan.pair_locality import pair_private_buffers, strided_walks
    from loopopt.analysis.memory import buffer_key_of

    module = mlir.parse_module(PRIVATE_TRANSPOSE, "t.mlir")
    fn = mlir.functions(module)[0]
    l1, l2, l3 = loops_in_block(mlir.func_body(fn))
    a = mlir.func_body(fn).operations[0].result
    assert pair_private_buffers(l1, l2) == frozenset({buffer_key_of(a)})
    assert pair_private_buffers(l1, l3) == frozenset()  # l3 does not read a
    assert strided_walks(l2) == 1 and strided_walks(l2, pair_private_buffers(l1, l2)) == 0
    # a buffer another op also reads is not private to the pair
    src = PRIVATE_TRANSPOSE.replace("  memref.dealloc %a", "  %e = affine.load %a[0, 0] : memref<10x10xf32>\n"
                                    "  affine.store %e, %out[0] : memref<10xf32>\n  memref.dealloc %a")
    module2 = mlir.parse_module(src, "t.mlir")
    m1, m2, _ = loops_in_block(mlir.func_body(mlir.functions(module2)[0]))
    assert pair_private_buffers(m1, m2) == frozenset()


def test_transposing_chain_fuses_into_one_nest():
    """The sum over b's rows is permuted to read b as the transposing copy writes it: its walk of
    b becomes strided, but b goes with the fusion (contraction), so the guard lets it through;
    counting b's walk (codegen/cpu/plan/locality.py alone) refuses it and leaves 4 loops."""
    res = optimize_checked(PRIVATE_TRANSPOSE, "cpu")
    assert res.num_loops_fused == 4  # three nests into one (register tiling then adds its own loops)
    assert "memref.alloc" not in res.text
    _native_same(PRIVATE_TRANSPOSE, res.text, "pt")


FOUR_DEEP = """
func.func @fd(%x: memref<6x8xf32>, %out: memref<6x8xf32>) {
  %a = memref.alloc() : memref<6x8xf32>
  affine.for %i0 = 0 to 6 {
    affine.for %i1 = 0 to 8 {
      %v = affine.load %x[%i0, %i1] : memref<6x8xf32>
      affine.store %v, %a[%i0, %i1] : memref<6x8xf32>
    }
  }
  affine.for %i2 = 0 to 4 {
    affine.for %i3 = 0 to 6 {
      affine.for %i4 = 0 to 2 {
        affine.for %i5 = 0 to 8 {
          %v0 = affine.load %a[%i3, %i5] : memref<6x8xf32>
          %v1 = arith.addf %v0, %v0 : f32
          affine.store %v1, %a[%i3, %i5] : memref<6x8xf32>
        }
      }
    }
  }
  affine.for %i0 = 0 to 6 {
    affine.for %i1 = 0 to 8 {
      %v = affine.load %a[%i0, %i1] : memref<6x8xf32>
      affine.store %v, %out[%i0, %i1] : memref<6x8xf32>
    }
  }
  memref.dealloc %a : memref<6x8xf32>
  return
}
"""


def test_four_deep_band_is_permuted_to_align():
    module = mlir.parse_module(FOUR_DEEP, "t.mlir")
    assert len(pr.interchange_options(loops_in_block(mlir.func_body(mlir.functions(module)[0]))[1])) == 23
    res = optimize_checked(FOUR_DEEP, "cpu")
    assert any(m.startswith("[LOOP INTERCHANGE] 1:0:2:3") for m in messages(res)), messages(res)
    assert res.num_loops_fused >= 2
    _native_same(FOUR_DEEP, res.text, "fd")


# ------------------------------------------------------------ a loop that writes nothing waits

DEEP_READER = """
func.func @dr(%x: memref<2x3x4xf32>, %out: memref<3x2x4xf32>) {
  %t = memref.alloc() : memref<2x3x4xf32>
  affine.for %i0 = 0 to 2 {
    affine.for %i1 = 0 to 3 {
      affine.for %i2 = 0 to 4 {
        %v = affine.load %x[%i0, %i1, %i2] : memref<2x3x4xf32>
        affine.store %v, %t[%i0, %i1, %i2] : memref<2x3x4xf32>
      }
    }
  }
  affine.for %j0 = 0 to 3 {
    affine.for %j1 = 0 to 2 {
      affine.for %j2 = 0 to 4 {
        %v = affine.load %t[%j1, %j0, %j2] : memref<2x3x4xf32>
        READER
      }
    }
  }
  memref.dealloc %t : memref<2x3x4xf32>
  return
}
"""


def test_a_reader_that_writes_nothing_is_not_shrunk_before_the_interchange():
    """The consumer (3 x 2 x 4) only reads: all its iterations are dead, and shrinking its outer
    loop to the producer's 2 first would leave a pair no interchange aligns (loop-fusion.mlir
    `@should_fuse_deep_loop_nests`). On cpu the producer is permuted to walk 3 rows outermost
    and the nests fuse at every level; trn1 keeps the seed's order (dead iterations first)."""
    src = DEEP_READER.replace("READER", "")
    res = optimize_checked(src, "cpu", passes=["fusion"])
    assert not any(m.startswith("[DEAD ITERATIONS]") for m in messages(res)), messages(res)
    assert any(m.startswith("[LOOP INTERCHANGE] 1:0") for m in messages(res)), messages(res)
    assert res.num_loops_fused >= 3
    trn1 = optimize_checked(src, "trn1", passes=["fusion"])
    assert any(m.startswith("[DEAD ITERATIONS]") for m in messages(trn1)), messages(trn1)


def test_a_reader_that_writes_is_interchanged_too():
    """The consumer copies %t into the result by a permutation. Fusion alone interchanges the
    producer to fuse the pair; the cpu pipeline folds the copy into its writer before fusion
    (`fold-result-copies`: the producer writes %out through the permutation), so %t goes either way."""
    src = DEEP_READER.replace("READER", "affine.store %v, %out[%j0, %j1, %j2] : memref<3x2x4xf32>")
    fused = optimize_checked(src, "cpu", passes=["fusion", "scalar-replacement", "dead-stores", "cleanup"])
    assert any(m.startswith("[LOOP INTERCHANGE] 1:0") for m in messages(fused)), messages(fused)
    assert "memref.alloc" not in fused.text
    _native_same(src, fused.text, "dr")
    res = optimize_checked(src, "cpu")
    assert any(m.startswith("[FOLD COPY] the copy of 2x3x4 into 3x2x4 by the permutation [1, 0, 2]")
               for m in messages(res)), messages(res)
    assert "memref.alloc" not in res.text
    _native_same(src, res.text, "dr")


# ------------------------------------------------------------ every block of the function

MULTI_BLOCK = """
func.func @mb(%x: memref<10xf32>, %out: memref<10xf32>, %out2: memref<10xf32>) {
  %m = memref.alloc() : memref<10xf32>
  affine.for %i = 0 to 10 {
    %v = affine.load %x[%i] : memref<10xf32>
    affine.store %v, %m[%i] : memref<10xf32>
  }
  affine.for %i = 0 to 10 {
    %v = affine.load %m[%i] : memref<10xf32>
    affine.store %v, %out[%i] : memref<10xf32>
  }
  cf.br ^bb1
^bb1:
  affine.for %i = 0 to 10 {
    %v = affine.load %x[%i] : memref<10xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %m[%i] : memref<10xf32>
  }
  affine.for %i = 0 to 10 {
    %v = affine.load %m[%i] : memref<10xf32>
    affine.store %v, %out2[%i] : memref<10xf32>
  }
  memref.dealloc %m : memref<10xf32>
  return
}
"""


def test_loops_of_a_later_block_fuse_too():
    """MLIR's loop-fusion-4.mlir @fusion_for_multiple_blocks: the driver visits every block of the
    function body, not only the entry block."""
    for target in ("cpu", "trn1"):
        res = optimize_checked(MULTI_BLOCK, target, passes=["fusion"])
        fused = [m for m in messages(res) if m.startswith("[LOOP FUSION]")]
        assert len(fused) == 2 and any(":14:3 and" in m for m in fused), messages(res)
    res = optimize_checked(MULTI_BLOCK, "cpu")
    _native_same(MULTI_BLOCK, res.text, "mb")


# ------------------------------------------------------------ the cost rules of recompute at depth

def test_reads_of_one_element_in_several_consumer_iterations_refuse():
    """Each element of B is read twice per (a, b) iteration (an inner loop of 2 around the read):
    recomputing would run the producer's work twice (pair_restructuring.redundant_recompute)."""
    src = fused_outer("%a, %b").replace(
        """        %y = affine.load %B[%a, %b, %e floordiv 8, %e mod 8] : memref<2x4x3x8xf32>
        %z = arith.addf %y, %y : f32
        affine.store %z, %C[%a, %b, %e] : memref<2x4x24xf32>""",
        """        affine.for %r = 0 to 2 {
          %y = affine.load %B[%a, %b, %e floordiv 8, %e mod 8] : memref<2x4x3x8xf32>
          %z = arith.addf %y, %y : f32
          affine.store %z, %C[%a, %b, %e] : memref<2x4x24xf32>
        }""")
    module, producer, consumer = _inner_pair(src)
    plan, why = pr.plan_recompute(producer, consumer, Scope(), at_depth=True)
    assert plan is not None, why
    assert pr.redundant_recompute(plan) == "the consumer reads 48 elements where the producer wrote 24"
    res = optimize_checked(src, "cpu")
    assert not any(m.startswith("[RECOMPUTE]") for m in messages(res))
    _native_same(src, res.text, "fo")


FUNCTION_LEVEL = """
func.func @fl(%x: memref<8xf32>, %out: memref<4xf32>) {
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %t[%i] : memref<8xf32>
  }
  affine.for %j = 0 to 4 {
    %v = affine.load %t[%j * 2] : memref<8xf32>
    affine.store %v, %out[%j] : memref<4xf32>
  }
  memref.dealloc %t : memref<8xf32>
  return
}
"""


def test_no_recompute_at_function_level_for_unmatched_trip_counts():
    """At function level (depth 0) the unmatched-trip-count rescue does not recompute, although
    the plan is legal and does no extra work (see rescues.PairRescues.recompute_at_depth)."""
    module = mlir.parse_module(FUNCTION_LEVEL, "t.mlir")
    producer, consumer = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    plan, why = pr.plan_recompute(producer, consumer, Scope(), at_depth=True)
    assert plan is not None and pr.redundant_recompute(plan) is None
    res = optimize_checked(FUNCTION_LEVEL, "cpu")
    assert not any(m.startswith("[RECOMPUTE]") for m in messages(res)), messages(res)
    _native_same(FUNCTION_LEVEL, res.text, "fl")


TRANSPOSED_WEIGHT = """
func.func @tw(%x: memref<6x4xf32>, %w: memref<8x4xf32>, %out: memref<6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %wt = memref.alloc() : memref<4x8xf32>
  affine.for %k = 0 to 4 {
    affine.for %n = 0 to 8 {
      %v = affine.load %w[%n, %k] : memref<8x4xf32>
      affine.store %v, %wt[%k, %n] : memref<4x8xf32>
    }
  }
  affine.for %m = 0 to 6 {
    affine.for %n = 0 to 8 {
      affine.store %zero, %out[%m, %n] : memref<6x8xf32>
      affine.for %k = 0 to 4 {
        %a = affine.load %x[%m, %k] : memref<6x4xf32>
        %b = affine.load %wt[%k, %n] : memref<4x8xf32>
        %c = affine.load %out[%m, %n] : memref<6x8xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %out[%m, %n] : memref<6x8xf32>
      }
    }
  }
  memref.dealloc %wt : memref<4x8xf32>
  return
}
"""


def test_a_transposed_weight_read_in_every_row_is_not_recomputed():
    """The product reads each element of the transposed weight in all 6 rows: 192 reads of 32
    written elements (redundant_recompute), so the copy stays for code generation to read."""
    module = mlir.parse_module(TRANSPOSED_WEIGHT, "t.mlir")
    producer, consumer = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    plan, why = pr.plan_recompute(producer, consumer, Scope(), at_depth=True)
    assert plan is not None, why
    assert pr.redundant_recompute(plan) == "the consumer reads 192 elements where the producer wrote 32"
    res = optimize_checked(TRANSPOSED_WEIGHT, "cpu")
    assert not any(m.startswith("[RECOMPUTE]") for m in messages(res)), messages(res)
    _native_same(TRANSPOSED_WEIGHT, res.text, "tw")
