"""Issue 35: one planner for contractions (codegen/cpu/plan/cpu_plan.py plan_register_tile,
codegen/cpu/register_tile.py; docs/cpu_codegen.md section 17).

A nest is a band of parallel loops around a band of reduction loops, any number of each: the
register tile is over two parallel loops (the lanes loop, contiguous, and a rows loop anywhere
around it), every reduction loop stays outside the tile with the accumulators in its iter_args,
loops of one iteration are dropped first. Convolutions (3x3, 1x1, depthwise, strided, 1-D),
pooling windows, batched products and the masked column tail are each run through the default
cpu pipeline and compared natively with their input (bit for bit: affine input keeps every sum
in its order), and in the reference interpreter, which also checks every element a vector load
reads is in bounds. The adversarial programs below each break one rule of the planner; the
mutation check (`scripts/mutation_check.py --only "contraction planner"`) shows each guard is
needed.
"""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu.plan import cpu_plan
from loopopt.codegen.cpu.plan.cpu_plan import TileCode, plan_register_tiles
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def cpu(bits: int = 256, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def run(src: str, options: Options, passes: list[str] | None = None) -> tuple[str, list[str]]:
    res = optimize(src, options, filename="t.mlir", passes=passes)
    messages = [r.message for r in res.remarks]
    assert not [m for m in messages if "[INTERNAL]" in m], messages
    return res.text, messages


def tiles(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith("[REGISTER TILING]")]


# ----------------------------------------------------------------------------- programs

def conv2d(n=1, c=3, f=13, oh=3, ow=11, kh=3, kw=3, stride=1, depthwise=False, init="zero") -> str:
    """O[n, f, oh, ow] (+)= sum over (c,) kh, kw of X[n, c, s oh + kh, s ow + kw] W[f, c, kh, kw],
    as convert-linalg-to-affine-loops writes it (a fill, then the sum in memory); depthwise: the
    channel is f itself (no channel reduction)."""
    h, w = stride * (oh - 1) + kh, stride * (ow - 1) + kw
    cin = f if depthwise else c
    xs, ws, os_ = f"memref<{n}x{cin}x{h}x{w}xf32>", f"memref<{f}x{1 if depthwise else c}x{kh}x{kw}xf32>", \
        f"memref<{n}x{f}x{oh}x{ow}xf32>"
    s = stride
    xi = f"%n, {'%f' if depthwise else '%c'}, %y * {s} + %i, %x * {s} + %j" if s > 1 else \
        f"%n, {'%f' if depthwise else '%c'}, %y + %i, %x + %j"
    wi = f"%f, {'0' if depthwise else '%c'}, %i, %j"
    fill = "" if init != "zero" else f"""  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %y = 0 to {oh} {{
        affine.for %x = 0 to {ow} {{
          affine.store %z, %O[%n, %f, %y, %x] : {os_}
        }}
      }}
    }}
  }}
"""
    cloop, cend = ("", "") if depthwise else (f"          affine.for %c = 0 to {c} {{\n", "          }\n")
    return f"""func.func @k(%X: {xs}, %W: {ws}, %O: {os_}) {{
  %z = arith.constant 0.0 : f32
{fill}  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %y = 0 to {oh} {{
        affine.for %x = 0 to {ow} {{
{cloop}            affine.for %i = 0 to {kh} {{
              affine.for %j = 0 to {kw} {{
                %a = affine.load %X[{xi}] : {xs}
                %b = affine.load %W[{wi}] : {ws}
                %o = affine.load %O[%n, %f, %y, %x] : {os_}
                %p = arith.mulf %a, %b : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : {os_}
              }}
            }}
{cend}        }}
      }}
    }}
  }}
  return
}}
"""


def pool2d(n=2, c=3, oh=5, ow=11, k=2, stride=2, kind="max") -> str:
    """Max (or average: a sum, then / k^2) pooling of a k x k window of stride `stride`, the
    window's reductions in iter_args (as scalar replacement leaves them)."""
    h, w = stride * (oh - 1) + k, stride * (ow - 1) + k
    xs, os_ = f"memref<{n}x{c}x{h}x{w}xf32>", f"memref<{n}x{c}x{oh}x{ow}xf32>"
    init, op = ("%ninf", "arith.maximumf") if kind == "max" else ("%z", "arith.addf")
    epi = "" if kind == "max" else f"        %r = arith.divf %m, %kk : f32\n"
    val = "%m" if kind == "max" else "%r"
    return f"""func.func @k(%X: {xs}, %O: {os_}) {{
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %kk = arith.constant {float(k * k)} : f32
  affine.for %n = 0 to {n} {{
    affine.for %c = 0 to {c} {{
      affine.for %y = 0 to {oh} {{
        affine.for %x = 0 to {ow} {{
          %m = affine.for %i = 0 to {k} iter_args(%u = {init}) -> (f32) {{
            %v = affine.for %j = 0 to {k} iter_args(%t = %u) -> (f32) {{
              %a = affine.load %X[%n, %c, %y * {stride} + %i, %x * {stride} + %j] : {xs}
              %s = {op} %t, %a : f32
              affine.yield %s : f32
            }}
            affine.yield %v : f32
          }}
{epi}          affine.store {val}, %O[%n, %c, %y, %x] : {os_}
        }}
      }}
    }}
  }}
  return
}}
"""


def conv1d(n=2, c=5, f=11, ow=21, k=3) -> str:
    w = ow + k - 1
    xs, ws, os_ = f"memref<{n}x{c}x{w}xf32>", f"memref<{f}x{c}x{k}xf32>", f"memref<{n}x{f}x{ow}xf32>"
    return f"""func.func @k(%X: {xs}, %W: {ws}, %O: {os_}) {{
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %x = 0 to {ow} {{
        %r = affine.for %c = 0 to {c} iter_args(%u = %z) -> (f32) {{
          %v = affine.for %j = 0 to {k} iter_args(%t = %u) -> (f32) {{
            %a = affine.load %X[%n, %c, %x + %j] : {xs}
            %b = affine.load %W[%f, %c, %j] : {ws}
            %p = arith.mulf %a, %b : f32
            %s = arith.addf %t, %p : f32
            affine.yield %s : f32
          }}
          affine.yield %v : f32
        }}
        affine.store %r, %O[%n, %f, %x] : {os_}
      }}
    }}
  }}
  return
}}
"""


def bmm(b=3, m=7, n=19, k=9) -> str:
    at, bt, ct = f"memref<{b}x{m}x{k}xf32>", f"memref<{b}x{k}x{n}xf32>", f"memref<{b}x{m}x{n}xf32>"
    return f"""func.func @k(%A: {at}, %B: {bt}, %C: {ct}) {{
  %z = arith.constant 0.0 : f32
  affine.for %b = 0 to {b} {{
    affine.for %i = 0 to {m} {{
      affine.for %j = 0 to {n} {{
        %r = affine.for %k = 0 to {k} iter_args(%u = %z) -> (f32) {{
          %x = affine.load %A[%b, %i, %k] : {at}
          %y = affine.load %B[%b, %k, %j] : {bt}
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %u, %p : f32
          affine.yield %s : f32
        }}
        affine.store %r, %C[%b, %i, %j] : {ct}
      }}
    }}
  }}
  return
}}
"""


_MODULES: list = []  # the modules whose ops the plans hold stay alive for the test


def plans(src: str, options: Options | None = None) -> list:
    module = mlir.parse_module(src)
    _MODULES.append(module)
    with module.context:
        return plan_register_tiles(mlir.functions(module)[0], Facts(), options or cpu())


# ----------------------------------------------------------------------------- the plan shapes

@pytest.mark.parametrize("bits", [256, 512])
def test_conv3x3_rows_of_output_channels_and_the_whole_reduction_band_in_registers(bits):
    c = optimize_and_compare(conv2d(c=5), "k", cpu(bits))
    out, messages = c.text, c.messages
    (tiled,) = tiles(messages)
    assert "vector accumulators" in tiled and "each sum kept in order" in tiled
    # rows of f (the weight broadcast per row), the input's vector shared: c carries the
    # accumulators, its 3 x 3 kernel positions unrolled in it (9 vectors of the input per step)
    body = out[out.index("iter_args"):]
    body = body[:body.index("affine.yield")]
    # (at 512 bits the 11 columns are one vector of 16 masked past them: section 38; at 256 bits
    # a vector of 8 and the 3 columns left over in a vector of 4 masked past them, in the same
    # step: section 44)
    vectors = 1 if bits == 512 else 2
    # (a masked vector that lies inside the input reads whole through its 1-D view: section 58)
    assert body.count("affine.vector_load %arg0") + body.count("vector.maskedload %arg0") \
        + body.count("vector.load %collapse_shape") == 9 * vectors
    assert "vector.broadcast" in body


def test_conv3x3_plan_rows_over_the_output_channel_across_the_output_rows():
    """After scalar replacement the sum is carried by c, kh and kw: one band; the rows are f's
    (the weight broadcast per row, the input's vector shared), jammed across the loop over the
    output rows between f and the lanes loop."""
    text, _ = run(conv2d(init="none"), cpu(), passes=["scalar-replacement"])
    (plan,) = [p for p in plans(text) if p.refusal is None]
    assert len(plan.band) == 3 and len(plan.between) == 1 and plan.rows > 1
    # the rows loop is f: the weight's load moves with it, the input's does not
    lanes = cpu_plan.lanes_of(plan.loop, plan.reduction_loop, plan.rows_loop, (), plan.between)
    loads = cpu_plan.load_copies(list(plan.band), lanes)
    assert (loads.rows, loads.lanes, loads.both) == (1, 1, 0)


@pytest.mark.parametrize("bits", [256, 512])
def test_conv1x1_unit_loops_dropped_is_a_matrix_product(bits):
    c = optimize_and_compare(conv2d(kh=1, kw=1, ow=19), "k", cpu(bits))
    out, messages = c.text, c.messages
    (unit,) = [m for m in messages if m.startswith("[UNIT LOOP]")]  # one remark per function (step unit-loops)
    assert int(unit.split()[2]) >= 2 and "loops of one iteration replaced by their bodies" in unit
    assert len(tiles(messages)) == 1


@pytest.mark.parametrize("bits,ow", [(256, 14), (512, 28)])
def test_conv1x1_vectors_cover_all_columns_the_last_masked(bits, ow):
    """ow = 14 at 8 lanes (28 at 16: mobilenet_block's 1x1 convolutions): two vectors cover
    every column in one step, the second masked to the 6 (12) that exist; no remainder loop.
    The first vector's loads and stores stay unmasked; the interpreter checks no masked-off lane
    is read, natively the results are the same bit for bit. One output row: with more, the rows
    and columns run as one loop of whole vectors (tests/test_cpu_flat_rows.py)."""
    c = optimize_and_compare(conv2d(kh=1, kw=1, oh=1, ow=ow, f=12, c=5), "k", cpu(bits))
    out, messages = c.text, c.messages
    (tiled,) = tiles(messages)
    assert f"its 2 vectors cover all {ow} columns in one step, the last one masked" in tiled
    w = bits // 32
    assert f"0 to {ow} step {2 * w} {{" in out and out.count("vector.create_mask") == 1
    assert out.count("vector.maskedload %arg0") == 1 and out.count("affine.vector_load %arg0") == 1


SLIDING_COLUMNS = """func.func @k(%X: memref<5x40xf32>, %W: memref<6x5xf32>, %O: memref<3x6x40xf32>) {
  affine.for %t = 0 to 3 {
    affine.for %f = 0 to 6 {
      affine.for %x = affine_map<(d0) -> (d0 * 13)>(%t) to affine_map<(d0) -> (d0 * 13 + 14)>(%t) {
        %i = affine.load %O[%t, %f, %x] : memref<3x6x40xf32>
        %s = affine.for %c = 0 to 5 iter_args(%a = %i) -> (f32) {
          %u = affine.load %X[%c, %x] : memref<5x40xf32>
          %v = affine.load %W[%f, %c] : memref<6x5xf32>
          %p = arith.mulf %u, %v : f32
          %q = arith.addf %a, %p : f32
          affine.yield %q : f32
        }
        affine.store %s, %O[%t, %f, %x] : memref<3x6x40xf32>
      }
    }
  }
  return
}
"""


def test_a_covering_step_between_symbolic_bounds_masks_every_vector():
    """14 columns from 13 t to 13 t + 14: a constant trip count between bounds that are not
    constants, so each of the two vectors gets its own mask, counted from its first column (for
    t = 2 the second vector's last two lanes lie past X's rows: the interpreter checks they are
    not read). The trip count is a constant, so the first vector, whose 8 columns all exist, is
    not masked (section 44: a step's masks count from the columns it covers)."""
    c = optimize_and_compare(SLIDING_COLUMNS, "k", cpu())
    out, messages = c.text, c.messages
    (tiled,) = tiles(messages)
    assert "its 2 vectors cover all 14 columns" in tiled
    # one mask per copy of the nest: unmask-loads splits off t's last iteration, where the second
    # vector passes X's end, and the other iterations read it whole (section 58)
    assert any(m.startswith("[UNMASK LOADS]") and "split off" in m for m in messages), messages
    assert out.count("vector.create_mask") == 2 and "affine.vector_load %arg0" in out


def test_covering_is_the_fewest_vectors_past_a_column_count_no_multiple_of_the_width():
    assert cpu_plan.covering(28, 2, 16) and cpu_plan.covering(10, 2, 8) and cpu_plan.covering(19, 3, 8)
    assert not cpu_plan.covering(32, 2, 16)  # a multiple: whole vectors
    assert not cpu_plan.covering(28, 3, 16)  # a vector of no column
    assert not cpu_plan.covering(None, 2, 16)  # an unknown count


def test_a_covering_tile_counts_its_reuse_on_the_columns_that_exist():
    """28 columns at 16 lanes, 32 registers: 12 rows x 2 vectors (24 accumulators, 28 columns
    of 16 x 2) beats 6 rows x 1 vector and the 16 rows a one-vector tile may jam; without masks
    one vector of 16; 19 columns at 8 lanes in 16 registers: 6 x 2 without a mask (12 of 16
    per load) beats 4 x 3 covering 19."""
    assert cpu_plan.choose_tile(32, 1, 16, 12, 28, 192, cover=True) == (12, 2)
    assert cpu_plan.choose_tile(32, 1, 16, 16, 28, 192) == (16, 1)
    assert cpu_plan.choose_tile(16, 1, 8, 6, 19, 12, cover=True) == (6, 2)


@pytest.mark.parametrize("bits", [256, 512])
def test_depthwise_rows_of_output_rows_share_the_weight(bits):
    c = optimize_and_compare(conv2d(depthwise=True, f=6, oh=7, ow=13), "k", cpu(bits))
    out, messages = c.text, c.messages
    assert len(tiles(messages)) == 1


@pytest.mark.parametrize("bits", [256, 512])
def test_strided_conv_loads_two_vectors_and_keeps_every_second_element(bits):
    c = optimize_and_compare(conv2d(stride=2, ow=17, oh=3), "k", cpu(bits))
    out, messages = c.text, c.messages
    assert len(tiles(messages)) == 1 and "vector.shuffle" in out


@pytest.mark.parametrize("kind,k,stride", [("max", 2, 2), ("max", 3, 2), ("avg", 2, 2), ("avg", 3, 1)])
def test_pooling_windows_are_reduction_bands(kind, k, stride):
    # ow = 11: one vector of 8 lanes and a masked tail of 3 (stride 1) or a scalar one (stride
    # 2); the last lane reads the buffer's last element (3x3 of stride 2: w = 2 (ow - 1) + 3)
    c = optimize_and_compare(pool2d(k=k, stride=stride, kind=kind), "k", cpu())
    out, messages = c.text, c.messages
    assert len(tiles(messages)) == 1
    assert ("vector.shuffle" in out) == (stride == 2)


def test_conv1d_band_of_channel_and_kernel():
    c = optimize_and_compare(conv1d(), "k", cpu())
    out, messages = c.text, c.messages
    assert len(tiles(messages)) == 1


@pytest.mark.parametrize("bits", [256, 512])
def test_batched_product_rows_of_i_not_of_the_batch(bits):
    c = optimize_and_compare(bmm(), "k", cpu(bits))
    out, messages = c.text, c.messages
    (plan,) = [p for p in plans(bmm(), cpu(bits)) if p.refusal is None]
    assert plan.rows > 1 and not plan.between  # i, the loop right around j (the batch shares nothing)


@has_runner
def test_conv_with_fused_multiply_add_within_rounding():
    src = conv2d(c=8, f=17, ow=20)
    c = optimize_and_compare(src, "k", cpu(512, contract=True), rtol=1e-5, normwise=True, interpret=False,
                             natively=True)
    assert "math.fma" in c.text and len(tiles(c.messages)) == 1


def test_the_rows_left_over_run_as_one_block():
    """f = 20 at 256 bits, one vector of 8 columns: blocks of 8 rows (half the 16 registers),
    the 4 left as one block (a loop of one iteration), not one by one."""
    out = optimize_and_compare(conv2d(f=20, ow=8), "k", cpu()).text
    assert "0 to 16 step 8" in out and "16 to 20 step 4" in out


# ----------------------------------------------------------------------------- adversarial programs

LINK_BROKEN = """func.func @k(%X: memref<4x12xf32>, %W: memref<4x3xf32>, %O: memref<10xf32>) {
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.5 : f32
  affine.for %x = 0 to 10 {
    %r = affine.for %c = 0 to 4 iter_args(%u = %z) -> (f32) {
      %t = arith.mulf %u, %h : f32
      %v = affine.for %j = 0 to 3 iter_args(%s = %t) -> (f32) {
        %a = affine.load %X[%c, %x + %j] : memref<4x12xf32>
        %b = affine.load %W[%c, %j] : memref<4x3xf32>
        %p = arith.mulf %a, %b : f32
        %q = arith.addf %s, %p : f32
        affine.yield %q : f32
      }
      affine.yield %v : f32
    }
    affine.store %r, %O[%x] : memref<10xf32>
  }
  return
}
"""


def test_a_reduction_loop_that_does_more_than_pass_its_value_on_is_no_band():
    """c scales its partial sum before kh continues it: the two loops are no chain; a plan
    that took them as one band would lose the scaling."""
    assert cpu_plan.band_link_refusal(_band_of(LINK_BROKEN)) is not None
    c = optimize_and_compare(LINK_BROKEN, "k", cpu())
    out, messages = c.text, c.messages
    assert not tiles(messages)


def _band_of(src: str) -> list:
    module = mlir.parse_module(src)
    _MODULES.append(module)
    fn = mlir.functions(module)[0]
    x = next(o for o in mlir.walk(fn) if o.name == "affine.for")
    return cpu_plan.band_loops(next(o for o in cpu_plan.body_ops(x) if o.name == "affine.for"))


TRIANGLE_BAND = """func.func @k(%X: memref<32xf32>, %O: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %x = 0 to 16 {
    %r = affine.for %c = 0 to 2 iter_args(%u = %z) -> (f32) {
      %v = affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%x) iter_args(%s = %u) -> (f32) {
        %a = affine.load %X[%x + %j + %c] : memref<32xf32>
        %q = arith.addf %s, %a : f32
        affine.yield %q : f32
      }
      affine.yield %v : f32
    }
    affine.store %r, %O[%x] : memref<16xf32>
  }
  return
}
"""


def test_a_band_loop_whose_bounds_move_with_the_lanes_is_refused():
    (plan,) = plans(TRIANGLE_BAND)
    assert plan.refusal is not None and plan.refusal.code is TileCode.REDUCTION_LOOP
    optimize_and_compare(TRIANGLE_BAND, "k", cpu())


BETWEEN_MOVES = """func.func @k(%X: memref<12x21xf32>, %W: memref<12x6xf32>, %O: memref<12x12x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %f = 0 to 12 {
    affine.for %y = 0 to affine_map<(d0) -> (d0 + 1)>(%f) {
      affine.for %x = 0 to 16 {
        %r = affine.for %c = 0 to 6 iter_args(%u = %z) -> (f32) {
          %a = affine.load %X[%y, %x + %c] : memref<12x21xf32>
          %b = affine.load %W[%f, %c] : memref<12x6xf32>
          %p = arith.mulf %a, %b : f32
          %q = arith.addf %u, %p : f32
          affine.yield %q : f32
        }
        affine.store %r, %O[%f, %y, %x] : memref<12x12x16xf32>
      }
    }
  }
  return
}
"""


def test_rows_across_a_loop_whose_bounds_move_with_them_are_refused():
    """f's rows would share the weight, but the loop between them (y) runs f + 1 times: the
    rows may not share it."""
    (plan,) = plans(BETWEEN_MOVES)
    assert plan.refusal is None and (plan.rows_loop is None or not plan.between)
    optimize_and_compare(BETWEEN_MOVES, "k", cpu())


BETWEEN_STORE = """func.func @k(%X: memref<8x21xf32>, %W: memref<12x6xf32>, %O: memref<12x8x16xf32>, %S: memref<12x8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %f = 0 to 12 {
    affine.for %y = 0 to 8 {
      %w0 = affine.load %W[%f, 0] : memref<12x6xf32>
      affine.store %w0, %S[%f, %y] : memref<12x8xf32>
      affine.for %x = 0 to 16 {
        %r = affine.for %c = 0 to 6 iter_args(%u = %z) -> (f32) {
          %a = affine.load %X[%y, %x + %c] : memref<8x21xf32>
          %b = affine.load %W[%f, %c] : memref<12x6xf32>
          %p = arith.mulf %a, %b : f32
          %q = arith.addf %u, %p : f32
          affine.yield %q : f32
        }
        affine.store %r, %O[%f, %y, %x] : memref<12x8x16xf32>
      }
    }
  }
  return
}
"""


def test_a_store_before_the_inner_loop_of_a_loop_between_keeps_the_rows_out():
    (plan,) = plans(BETWEEN_STORE)
    assert plan.refusal is None and (plan.rows_loop is None or not plan.between)
    optimize_and_compare(BETWEEN_STORE, "k", cpu())


ROWS_CARRY = """func.func @k(%X: memref<8x21xf32>, %W: memref<12x6xf32>, %O: memref<12x8x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %f = 1 to 12 {
    affine.for %y = 0 to 8 {
      affine.for %x = 0 to 16 {
        %o = affine.load %O[%f - 1, %y, %x] : memref<12x8x16xf32>
        %r = affine.for %c = 0 to 6 iter_args(%u = %o) -> (f32) {
          %a = affine.load %X[%y, %x + %c] : memref<8x21xf32>
          %b = affine.load %W[%f, %c] : memref<12x6xf32>
          %p = arith.mulf %a, %b : f32
          %q = arith.addf %u, %p : f32
          affine.yield %q : f32
        }
        affine.store %r, %O[%f, %y, %x] : memref<12x8x16xf32>
      }
    }
  }
  return
}
"""


def test_rows_that_carry_a_dependence_across_a_loop_between_are_refused():
    """Each f starts from the result of f - 1: f's rows (the cheapest) may not be jammed."""
    (plan,) = plans(ROWS_CARRY)
    assert plan.refusal is None and (plan.rows_loop is None or not plan.between)
    optimize_and_compare(ROWS_CARRY, "k", cpu())


TAIL_DIVIDES = """func.func @k(%A: memref<6x5xi32>, %B: memref<5x13xi32>, %D: memref<6x13xi32>, %C: memref<6x13xi32>) {
  %z = arith.constant 0 : i32
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 13 {
      %r = affine.for %k = 0 to 5 iter_args(%u = %z) -> (i32) {
        %a = affine.load %A[%i, %k] : memref<6x5xi32>
        %b = affine.load %B[%k, %j] : memref<5x13xi32>
        %p = arith.muli %a, %b : i32
        %q = arith.addi %u, %p : i32
        affine.yield %q : i32
      }
      %d = affine.load %D[%i, %j] : memref<6x13xi32>
      %one = arith.constant 1 : i32
      %e = arith.ori %d, %one : i32
      %v = arith.divsi %r, %e : i32
      affine.store %v, %C[%i, %j] : memref<6x13xi32>
    }
  }
  return
}
"""


@has_runner
def test_a_division_on_lanes_keeps_the_tail_unmasked():
    """A masked lane divides by the pass-through 0: x86 divides vectors lane by lane and traps.
    With the division the columns left over (13 = 8 + 5) run one at a time."""
    (plan,) = plans(TAIL_DIVIDES)
    assert plan.refusal is None and plan.width == 8 and not plan.masked_tail and not plan.cover
    out = optimize_and_compare(TAIL_DIVIDES, "k", cpu(), interpret=False).text
    assert "maskedload" not in out


def test_a_load_of_stride_three_is_no_shuffle():
    """Pooling 3x3 of stride 3: the lanes are every third element, which two vectors do not
    hold: the register tile alone makes scalar copies (the window's sum still in order). By
    default the input is first de-interleaved (section 35: paired 0.55 warm / 0.52 flushed on
    8x64x96x96), and the tile then reads it contiguously."""
    src = pool2d(k=3, stride=3, kind="avg", ow=9)
    (plan,) = plans(src)
    assert not plan.strided
    out = optimize_and_compare(src, "k", cpu(deinterleave_min_stride=0)).text
    assert "vector.shuffle" not in out
    copied = optimize_and_compare(src, "k", cpu())
    assert any(m.startswith("[DEINTERLEAVE]") for m in copied.messages), copied.messages


ZERO_TRIP = """func.func @k(%X: memref<4x20xf32>, %O: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %x = 0 to 16 {
    %r = affine.for %c = 0 to 4 iter_args(%u = %z) -> (f32) {
      %v = affine.for %j = 5 to 5 iter_args(%s = %u) -> (f32) {
        %a = affine.load %X[%c, %x + %j] : memref<4x20xf32>
        %q = arith.addf %s, %a : f32
        affine.yield %q : f32
      }
      %w = affine.for %j = 3 to 4 iter_args(%s = %v) -> (f32) {
        %a = affine.load %X[%c, %x + %j] : memref<4x20xf32>
        %q = arith.addf %s, %a : f32
        affine.yield %q : f32
      }
      affine.yield %w : f32
    }
    affine.store %r, %O[%x] : memref<16xf32>
  }
  return
}
"""


def test_a_loop_of_no_iteration_is_not_a_unit_loop():
    """`5 to 5` runs no iteration, `3 to 4` one (with j = 3): only the second is replaced by
    its body."""
    c = optimize_and_compare(ZERO_TRIP, "k", cpu())
    out, messages = c.text, c.messages
    assert sum(1 for m in messages if m.startswith("[UNIT LOOP]")) == 1


# ----------------------------------------------------------------------------- remarks

def carried_along_x(f: int) -> str:
    """O[f, y, x] = O[f, y, x + 1] + sum_c X W: the lanes loop x carries a dependence."""
    return f"""func.func @k(%X: memref<32x40xf32>, %W: memref<{f}x8xf32>, %O: memref<{f}x32x32xf32>) {{
  affine.for %f = 0 to {f} {{
    affine.for %y = 0 to 32 {{
      affine.for %x = 0 to 31 {{
        %o = affine.load %O[%f, %y, %x + 1] : memref<{f}x32x32xf32>
        %r = affine.for %c = 0 to 8 iter_args(%u = %o) -> (f32) {{
          %a = affine.load %X[%y, %x + %c] : memref<32x40xf32>
          %b = affine.load %W[%f, %c] : memref<{f}x8xf32>
          %p = arith.mulf %a, %b : f32
          %q = arith.addf %u, %p : f32
          affine.yield %q : f32
        }}
        affine.store %r, %O[%f, %y, %x] : memref<{f}x32x32xf32>
      }}
    }}
  }}
  return
}}
"""


def test_a_refused_hot_nest_says_why_in_the_default_remarks():
    """64 x 32 x 31 x 8 multiply-adds (past HOT_ITERATIONS): the default remarks say why the
    nest is left; 2 x 32 x 31 x 8 are not worth a remark there (`--passes register-tile`
    still gives it)."""
    _, messages = run(carried_along_x(64), cpu())
    assert any(m.startswith(TileCode.CARRIED.value) for m in messages), messages
    _, messages = run(carried_along_x(2), cpu())
    assert not any(m.startswith("[STOP REGISTER TILING]") for m in messages), messages
    _, messages = run(carried_along_x(2), cpu(), passes=["register-tile"])
    assert any(m.startswith(TileCode.CARRIED.value) for m in messages), messages


BETWEEN_VALUE = """func.func @k(%X: memref<8x21xf32>, %W: memref<12x6xf32>, %B: memref<12x8xf32>, %O: memref<12x8x16xf32>) {
  affine.for %f = 0 to 12 {
    affine.for %y = 0 to 8 {
      %b0 = affine.load %B[%f, %y] : memref<12x8xf32>
      affine.for %x = 0 to 16 {
        %r = affine.for %c = 0 to 6 iter_args(%u = %b0) -> (f32) {
          %a = affine.load %X[%y, %x + %c] : memref<8x21xf32>
          %b = affine.load %W[%f, %c] : memref<12x6xf32>
          %p = arith.mulf %a, %b : f32
          %q = arith.addf %u, %p : f32
          affine.yield %q : f32
        }
        affine.store %r, %O[%f, %y, %x] : memref<12x8x16xf32>
      }
    }
  }
  return
}
"""


def test_a_value_of_the_loop_between_moves_with_the_rows():
    """Each sum starts from B[f, y], loaded in the loop between f's rows and the lanes: every
    row needs its own load of it."""
    (plan,) = plans(BETWEEN_VALUE)
    assert plan.refusal is None and plan.rows > 1 and len(plan.between) == 1
    optimize_and_compare(BETWEEN_VALUE, "k", cpu())


def rowmax_tail(n: int = 13) -> str:
    """M[i] = max_j -(S[i, j]^2) - 1 with S = A B: every real value is below -1 unless S is 0;
    a masked lane (S = 0 from the pass-through) would give -1, above all of them."""
    return f"""func.func @k(%A: memref<9x6xf32>, %B: memref<6x{n}xf32>, %S: memref<9x{n}xf32>, %M: memref<9xf32>) {{
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  affine.for %i = 0 to 9 {{
    %mx = affine.for %j = 0 to {n} iter_args(%cur = %ninf) -> (f32) {{
      %d = affine.for %k = 0 to 6 iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %A[%i, %k] : memref<9x6xf32>
        %b = affine.load %B[%k, %j] : memref<6x{n}xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %d, %S[%i, %j] : memref<9x{n}xf32>
      %sq = arith.mulf %d, %d : f32
      %ng = arith.negf %sq : f32
      %v = arith.subf %ng, %one : f32
      %m = arith.maximumf %v, %cur : f32
      affine.yield %m : f32
    }}
    affine.store %mx, %M[%i] : memref<9xf32>
  }}
  return
}}
"""


def test_a_loop_carrying_values_keeps_its_tail_unmasked():
    """The row maximum's partials would take a masked lane's value: 13 = 8 + 5 columns, the 5
    run one at a time."""
    (plan,) = plans(rowmax_tail())
    assert plan.refusal is None and plan.carried and not plan.masked_tail and not plan.cover
    optimize_and_compare(rowmax_tail(), "k", cpu())


STRIDED_VIEW = """func.func private @pool(%v: memref<2x40xf32, strided<[80, 2]>>, %O: memref<2x19xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  affine.for %y = 0 to 2 {
    affine.for %x = 0 to 19 {
      %m = affine.for %j = 0 to 2 iter_args(%t = %ninf) -> (f32) {
        %a = affine.load %v[%y, %x * 2 + %j] : memref<2x40xf32, strided<[80, 2]>>
        %s = arith.maximumf %t, %a : f32
        affine.yield %s : f32
      }
      affine.store %m, %O[%y, %x] : memref<2x19xf32>
    }
  }
  return
}
func.func @k(%X: memref<2x80xf32>, %O: memref<2x19xf32>) {
  %v = memref.subview %X[0, 0] [2, 40] [1, 2] : memref<2x80xf32> to memref<2x40xf32, strided<[80, 2]>>
  func.call @pool(%v, %O) : (memref<2x40xf32, strided<[80, 2]>>, memref<2x19xf32>) -> ()
  return
}
"""


def test_a_stride_two_load_of_a_row_that_is_not_contiguous_is_no_shuffle():
    """@pool's argument is a view of every second element of X's rows: its elements 2x are 4x
    apart in memory, which two vectors of consecutive elements do not hold (the access analysis
    sees the argument's own indices: stride 2)."""
    assert all(not p.strided for p in plans(STRIDED_VIEW))
    out = optimize_and_compare(STRIDED_VIEW, "k", cpu()).text
    assert "vector.shuffle" not in out


def padded_conv1d(n=2, c=8, f=16, w=32, k=3) -> str:
    """A padding copy (zero fill, then the interior) and a 1-D convolution over it, the sum in
    memory: convert-linalg-to-affine-loops' form of torch's Conv1d(padding=1)."""
    p = w + k - 1
    return f"""func.func @k(%X: memref<{n}x{c}x{w}xf32>, %W: memref<{f}x{c}x{k}xf32>, %O: memref<{n}x{f}x{w}xf32>) {{
  %z = arith.constant 0.0 : f32
  %P = memref.alloc() : memref<{n}x{c}x{p}xf32>
  affine.for %n = 0 to {n} {{
    affine.for %c = 0 to {c} {{
      affine.for %x = 0 to {p} {{
        affine.store %z, %P[%n, %c, %x] : memref<{n}x{c}x{p}xf32>
      }}
    }}
  }}
  affine.for %n = 0 to {n} {{
    affine.for %c = 0 to {c} {{
      affine.for %x = 0 to {w} {{
        %v = affine.load %X[%n, %c, %x] : memref<{n}x{c}x{w}xf32>
        affine.store %v, %P[%n, %c, %x + 1] : memref<{n}x{c}x{p}xf32>
      }}
    }}
  }}
  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %x = 0 to {w} {{
        affine.store %z, %O[%n, %f, %x] : memref<{n}x{f}x{w}xf32>
      }}
    }}
  }}
  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %x = 0 to {w} {{
        affine.for %c = 0 to {c} {{
          affine.for %j = 0 to {k} {{
            %a = affine.load %P[%n, %c, %x + %j] : memref<{n}x{c}x{p}xf32>
            %b = affine.load %W[%f, %c, %j] : memref<{f}x{c}x{k}xf32>
            %o = affine.load %O[%n, %f, %x] : memref<{n}x{f}x{w}xf32>
            %m = arith.mulf %a, %b : f32
            %s = arith.addf %o, %m : f32
            affine.store %s, %O[%n, %f, %x] : memref<{n}x{f}x{w}xf32>
          }}
        }}
      }}
    }}
  }}
  memref.dealloc %P : memref<{n}x{c}x{p}xf32>
  return
}}
"""


def test_fusion_keeps_a_reduction_band_inside_its_output_loops():
    """Fusing the padding copy with the convolution at the channel loop needs the channel loop
    outside f and ow: the sums would then be loaded and stored once per channel. The cpu's
    interchange check (pair_locality.split_reductions) refuses that permutation; the
    convolution keeps c and kw inside and its tile carries the sums in registers across both."""
    c = optimize_and_compare(padded_conv1d(), "k", cpu(), interpret=False)
    out, messages = c.text, c.messages
    assert not any(m.startswith("[LOOP INTERCHANGE]") for m in messages), messages
    (tiled,) = tiles(messages)
    body = out[out.index("iter_args"):]
    body = body[:body.index("affine.yield")]
    assert "vector_store" not in body and "affine.store" not in body


# ----------------------------------------------------------------------------- registers a tile holds
# (docs/cpu_codegen.md section 24)

def test_a_masked_tail_after_one_vector_that_runs_once_is_live_with_it():
    """A row of 28 columns at 16 lanes: the whole vector and the masked one run once each, as one
    block: 2 accumulator vectors per row are live; not so for a covering tile, a multiple of the
    width, a tail left scalar, a row of two vectors or more, or an unknown count."""
    assert cpu_plan.live_vectors(1, 16, 28, False, True) == 2
    assert cpu_plan.live_vectors(1, 8, 12, False, True) == 2
    assert cpu_plan.live_vectors(2, 16, 28, True, True) == 2
    assert cpu_plan.live_vectors(1, 16, 32, False, True) == 1
    assert cpu_plan.live_vectors(1, 16, 28, False, False) == 1
    assert cpu_plan.live_vectors(1, 16, 40, False, True) == 1
    assert cpu_plan.live_vectors(1, 16, None, False, True) == 1


def test_the_tile_counts_the_live_tail_and_the_held_registers():
    """28 columns at 16 lanes in 32 registers: 16 rows of one vector without the tail counted;
    with it 14 rows (28 accumulators + 3 spare); with 9 weights held as well, 10 rows."""
    assert cpu_plan.choose_tile(32, 1, 16, 16, 28, 28) == (16, 1)
    assert cpu_plan.choose_tile(32, 1, 16, 16, 28, 28, tail=True) == (14, 1)
    assert cpu_plan.choose_tile(32, 1, 16, 16, 28, 28, tail=True, held=9) == (10, 1)


@pytest.mark.parametrize("bits,ow,rows,held", [(512, 28, 10, 9), (256, 12, 6, 0)])
def test_depthwise_with_a_masked_tail_keeps_its_accumulators_and_weights_in_registers(bits, ow, rows, held):
    """A 3x3 depthwise convolution whose output rows are one vector and a masked tail: at 512 bits
    the 9 weights (loaded once, used by every row) and 2 vectors per row fit 32 registers with 10
    rows (16 rows spilled: mobilenet_block); at 256 bits 9 weights are more than a third of 16
    registers, so none are counted as held and 6 rows of 2 vectors fit (the second now a vector
    of 4, section 38; not in one step: the rows share no load across the vectors, section 44). Bit
    for bit natively and in the interpreter (every lane a masked vector reads in bounds)."""
    c = optimize_and_compare(conv2d(depthwise=True, f=3, oh=rows + 3, ow=ow), "k", cpu(bits))
    out, messages = c.text, c.messages
    (tiled,) = tiles(messages)
    assert tiled.startswith(f"[REGISTER TILING] {rows} x ")
    assert f"{2 * rows} accumulators live at once" in tiled
    assert ("9 registers hold values loaded once for all rows" in tiled) == (held == 9)
    # 28 = 16 + 12 masked; 12 = 8 + 4, the 4 in an unmasked vector of 4 (section 38)
    assert ("vector.maskedload" in out) == (ow == 28) and ("vector<4xf32>" in out) == (ow == 12)


def test_a_product_whose_rows_are_two_vectors_or_more_keeps_its_tile():
    """The rule is for rows shorter than two vectors: a product of 40 columns at 8 lanes keeps its
    tile of 3 rows x 4 vectors (the sweep, a single vector, no masked vector after one that runs
    once)."""
    messages = optimize_and_compare(bmm(b=1, m=7, n=40, k=9), "k", cpu(256)).messages
    (tiled,) = tiles(messages)
    assert "accumulators live at once" not in tiled and "registers hold" not in tiled


# ----------------------------------------------------------------------------- the columns left over
# (docs/cpu_codegen.md section 38)

def test_the_tail_runs_in_the_narrowest_vector_that_holds_it():
    """The L = cols mod width columns after the whole vectors: with a mask, the smallest power of
    two >= L (at least 4 lanes), masked past L; without one, the largest power of two <= L,
    unmasked, the rest one at a time; none where it would be the whole width, where nothing is
    left over, or where the count is unknown."""
    assert cpu_plan.tail_width(56, 16, True) == 8  # 3 x 16 + 8: the 3x3 conv after the upsample
    assert cpu_plan.tail_width(100, 16, True) == 4  # a 1-D conv of length 100: 6 x 16 + 4
    assert cpu_plan.tail_width(21, 16, True) == 8  # 5 left: 8 lanes, 3 masked
    assert cpu_plan.tail_width(50, 16, True) == 4  # 2 left: the narrowest vector, 4 lanes
    assert cpu_plan.tail_width(21, 16, False) == 4  # 5 left, no mask: 4 lanes and one column alone
    assert cpu_plan.tail_width(50, 16, False) == 0  # 2 left, no mask: one at a time
    assert cpu_plan.tail_width(60, 16, True) == 0  # 12 left: a whole vector (masked) anyway
    assert cpu_plan.tail_width(48, 16, True) == 0 and cpu_plan.tail_width(None, 16, True) == 0
    assert cpu_plan.tail_width(13, 4, True) == 0  # already the narrowest vector


def test_a_row_shorter_than_the_width_is_one_vector_of_the_fewest_lanes():
    """With a mask: 7 columns in one vector of 8 lanes (not 4 and a masked 4), 14 in one of 16;
    without one, the largest power of two that fits, as before."""
    assert cpu_plan.narrower_width(7, 16, True) == 8 and cpu_plan.narrower_width(14, 16, True) == 16
    assert cpu_plan.narrower_width(8, 16, True) == 8 and cpu_plan.narrower_width(4, 16, True) == 4
    assert cpu_plan.narrower_width(7, 16) == 4 and cpu_plan.narrower_width(14, 16) == 8


def test_a_covering_tile_only_where_the_tail_needs_the_whole_width():
    """A tile covering P's columns with its last vector masked only where more than half of that
    vector's lanes are columns: 28 at 16 (12 left) yes; 24 at 16 (8 left: one vector of 8) no."""
    assert cpu_plan.cover_pays(28, 16) and cpu_plan.cover_pays(14, 8) and cpu_plan.cover_pays(7, 8)
    assert not cpu_plan.cover_pays(24, 16) and not cpu_plan.cover_pays(19, 8)
    assert not cpu_plan.cover_pays(32, 16) and not cpu_plan.cover_pays(None, 16)


@pytest.mark.parametrize("bits,ow,tail,masked", [(512, 24, 8, False), (512, 21, 8, True), (512, 20, 4, False),
                                                 (256, 12, 4, False), (256, 14, 0, True)])
def test_conv_columns_left_over_in_a_narrower_vector(bits, ow, tail, masked):
    """A 3x3 convolution whose output rows leave columns over after the whole vectors: they run
    in one vector of `tail` lanes (masked past the row's end or not), after the whole vectors in
    each row tile. Bit for bit natively and in the interpreter (which checks every lane a vector
    access reads or writes is in bounds). 14 at 8 lanes leaves 6: a covering tile as before."""
    c = optimize_and_compare(conv2d(c=3, f=10, oh=2, ow=ow), "k", cpu(bits))
    (tiled,) = tiles(c.messages)
    if tail:
        assert f"columns left over in one vector<{tail}xf32>" in tiled, tiled
        assert f"vector<{tail}xf32>" in c.text
        assert ("vector.maskedload" in c.text) == masked
    else:
        assert "cover all 14 columns" in tiled and "left over" not in tiled


@pytest.mark.parametrize("bits,ow,width", [(512, 7, 8), (512, 14, 16), (256, 7, 8), (256, 5, 8)])
def test_conv_short_rows_in_one_vector_masked_past_them(bits, ow, width):
    """ResNet's late stages: rows of 7 and 14 output columns, one vector of 8 (16) lanes masked
    past the row's end. Bit for bit natively and in the interpreter."""
    c = optimize_and_compare(conv2d(c=3, f=10, oh=2, ow=ow), "k", cpu(bits))
    (tiled,) = tiles(c.messages)
    assert f"(vector<{width}xf32>)" in tiled and f"its one vector covers all {ow} columns" in tiled, tiled


@has_runner
def test_a_strided_conv_runs_its_unmasked_tail_narrower():
    """Stride 2 refuses masks (the second vector of a shuffled load would read past the last
    lane's element): 13 columns at 8 lanes run as a vector of 8, a vector of 4 (two loads and a
    shuffle of 4 lanes each) and one column alone."""
    src = conv2d(stride=2, ow=13, oh=2, c=3, f=6)
    text, _ = run(conv2d(stride=2, ow=13, oh=2, c=3, f=6, init="none"), cpu(), passes=["scalar-replacement"])
    (plan,) = [p for p in plans(text) if p.refusal is None]
    assert plan.strided and not plan.masked_tail and plan.tail == 4
    c = optimize_and_compare(src, "k", cpu())
    (tiled,) = tiles(c.messages)
    assert "the 5 columns left over in one vector<4xf32> (the rest one at a time)" in tiled, tiled
    assert "vector.maskedload" not in c.text and "vector<4xf32>" in c.text


def test_a_loop_carrying_values_runs_its_unmasked_tail_narrower():
    """The row maximum's 13 columns at 8 lanes: 8, then 4 unmasked (their partials combined
    across 4 lanes), then one alone."""
    (plan,) = plans(rowmax_tail())
    assert plan.carried and plan.tail == 4
    assert "vector<4xf32>" in optimize_and_compare(rowmax_tail(), "k", cpu()).text


@pytest.mark.parametrize("cols,tail", [(24, 8), (21, 8), (20, 4)])
def test_a_narrower_tail_between_symbolic_bounds_is_masked_from_its_first_column(cols, tail):
    """`cols` columns from 13 t to 13 t + cols (a constant count between bounds that are not
    constants) at 16 lanes: one whole vector, then the columns left over in one vector of `tail`
    lanes, in the same step (section 44), masked where it is wider than the columns it holds
    (21: its mask counts from its own first column; the interpreter checks no lane past the
    row's end is read or written); a tail of exactly the columns left over (24, 20) needs no mask:
    the count is a constant. Bit for bit natively."""
    src = (SLIDING_COLUMNS.replace("d0 * 13 + 14", f"d0 * 13 + {cols}").replace("5x40xf32", "5x64xf32")
           .replace("3x6x40xf32", "3x6x64xf32"))
    c = optimize_and_compare(src, "k", cpu(512))
    (tiled,) = tiles(c.messages)
    assert f"columns left over in one vector<{tail}xf32>" in tiled, tiled
    assert (f"vector<{tail}xi1>" in c.text) == (tail > cols % 16)


def test_the_vectors_a_step_shares_across_the_rows_are_counted_in_the_registers():
    """Section 45: a tile whose rows share each vector a step loads (the input of a convolution,
    B of a product) holds its NV vectors and a broadcast beside the MR x NV accumulators. At 256
    bits a 3 x 32 tile (12 + 4 + 1 = 17 of 16 registers) spilled; a 4 x 24 tile fits (16). Scalar
    copies, a tile of one row and a band unrolled whole keep the old count."""
    loads = cpu_plan.LoadCopies()
    assert cpu_plan.spare_registers(3, 4, 8, loads) == 5
    assert cpu_plan.spare_registers(4, 3, 8, loads) == 4
    assert cpu_plan.spare_registers(6, 2, 8, loads) == cpu_plan.SPARE_REGISTERS
    assert cpu_plan.spare_registers(1, 4, 8, loads) == cpu_plan.SPARE_REGISTERS
    assert cpu_plan.spare_registers(3, 4, 1, loads) == cpu_plan.SPARE_REGISTERS
    assert cpu_plan.spare_registers(3, 4, 8, cpu_plan.LoadCopies(rows=1, lanes=0, both=1)) == cpu_plan.SPARE_REGISTERS
    # a band unrolled whole (small_cnn's 3 channels x 3 x 3): no loop carries the accumulators
    assert cpu_plan.spare_registers(3, 4, 8, cpu_plan.LoadCopies(unrolled=True)) == cpu_plan.SPARE_REGISTERS
    # 32 columns over 64 rows at 8 lanes: 3 x 32 before (no column left over), now 4 x 24
    assert cpu_plan.choose_tile(16, 1, 8, 6, 32, 64) == (4, 3)
    # at 512 bits 6 x 4 vectors still fit (24 + 5 of 32)
    assert cpu_plan.choose_tile(32, 1, 16, 6, None, None) == (6, 4)


@pytest.mark.parametrize("ow", [32, 25])
def test_a_conv_of_32_or_25_columns_at_256_bits_takes_a_tile_that_fits_the_registers(ow):
    """A 3x3 convolution whose 32 (or 25: four vectors covering them) output columns made a 3 x 32
    (3 x 28) tile, 4 input vectors live across 3 rows beside 12 accumulators: now 6 x 16 (12
    accumulators, 2 vectors, a broadcast), bit for bit natively and in the interpreter."""
    c = optimize_and_compare(conv2d(c=5, f=12, oh=2, ow=ow), "k", cpu(256))  # 5 channels: a loop kept
    (tiled,) = tiles(c.messages)
    assert tiled.startswith("[REGISTER TILING] 6 x 16 tile"), tiled
