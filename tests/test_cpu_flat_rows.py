"""Issue 35: rows and columns of a reduction nest as one loop through a collapsed view
(codegen/cpu/flat_rows.py, step register-tile; docs/cpu_codegen.md section 27).

A 1x1 convolution over rows of 28 (or 14) columns runs its tile over the 784 (or 42) columns of
the joined (row, column) dimensions instead of a whole vector and a masked one per row. Each
program runs through the default cpu pipeline and is compared with its input natively (bit for
bit) and in the interpreter (which checks every element a vector access reads is in bounds);
each adversarial program breaks one condition of the rule, stays as it was (with a
`[STOP FLAT ROWS]` remark in the default remarks) and keeps its results. The mutation check
(`scripts/mutation_check.py --only "flat rows"`) shows each guard is needed.
"""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.analysis.accesses import access_pattern
from loopopt.analysis.affine import Scope
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare


def cpu(bits: int) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits)


def conv1x1(n=2, c=5, f=12, oh=3, ow=14, out="%y, %x", oshape=None, extra="", xindex="%y, %x", view=None, xlead="%n", stored="%r") -> str:
    """O[n, f, out] = relu(sum over c of X[n, c, y, x] W[f, c]): a 1x1 convolution as the lowering
    writes it after its unit loops are dropped, with a ReLU in its epilogue."""
    oshape = oshape or f"{n}x{f}x{oh}x{ow}"
    xs, ws, os_ = f"memref<{n}x{c}x{oh}x{ow}xf32>", f"memref<{f}x{c}xf32>", f"memref<{oshape}xf32>"
    ov, ot, prelude = "%O", os_, ""
    if view is not None:  # the output stored through a subview of O of this layout
        ov, ot = "%S", f"memref<{n}x{f}x{oh}x{ow}xf32, {view}>"
        prelude = (f"  %S = memref.subview %O[0, 0, 0, 0] [{n}, {f}, {oh}, {ow}] [1, 1, 1, 1] : {os_} to {ot}\n")
    return f"""func.func @k(%X: {xs}, %W: {ws}, %O: {os_}) {{
  %z = arith.constant 0.0 : f32
{prelude}  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %y = 0 to {oh} {{
        affine.for %x = 0 to {ow} {{
          %s = affine.for %c = 0 to {c} iter_args(%a = %z) -> (f32) {{
            %u = affine.load %X[{xlead}, %c, {xindex}] : {xs}
            %v = affine.load %W[%f, %c] : {ws}
            %p = arith.mulf %u, %v : f32
            %q = arith.addf %a, %p : f32
            affine.yield %q : f32
          }}
          %r = arith.maximumf %s, %z : f32
{extra}          affine.store {stored}, {ov}[%n, %f, {out}] : {ot}
        }}
      }}
    }}
  }}
  return
}}
"""


def flat(messages):
    return [m for m in messages if m.startswith("[FLAT ROWS]")]


def stops(messages):
    return [m for m in messages if m.startswith("[STOP FLAT ROWS]")]


@pytest.mark.parametrize("bits,oh,ow", [(256, 3, 14), (512, 4, 28), (512, 3, 10)])
def test_conv1x1_rows_and_columns_run_as_one_loop(bits, oh, ow):
    """ow no multiple of the lanes: the tile runs over oh x ow columns of views joining the last
    two dimensions of X and O; no mask where oh x ow is a multiple of the lanes."""
    c = optimize_and_compare(conv1x1(oh=oh, ow=ow), "k", cpu(bits))
    out, messages = c.text, c.messages
    (m,) = flat(messages)
    assert f"loops over {oh} rows and {ow} columns run as one loop of {oh * ow} columns" in m
    assert out.count("memref.collapse_shape") == 2
    assert f"memref<2x5x{oh * ow}xf32>" in out and f"memref<2x12x{oh * ow}xf32>" in out
    if (oh * ow) % (bits // 32) == 0:
        assert "vector.create_mask" not in out
    assert any(t.startswith("[REGISTER TILING]") for t in messages)


def test_whole_vectors_per_row_stay_as_they_are():
    c = optimize_and_compare(conv1x1(oh=3, ow=16), "k", cpu(256))
    out, messages = c.text, c.messages
    assert not flat(messages) and not stops(messages) and "collapse_shape" not in out


@pytest.mark.parametrize("name,kw,why", [
    ("padded output", dict(out="%y + 1, %x + 1", oshape="2x12x5x16"), "does not end in 3 x 14 contiguous elements"),
    ("rows strided in memory", dict(oshape="2x12x3x16", view="strided<[576, 48, 16, 1]>"),
     "does not end in 3 x 14 contiguous"),
    ("rows read backwards", dict(xindex="2 - %y, %x"), "by (row, column)"),
    ("the row also in a leading index", dict(n=3, xlead="%y"), "by (row, column)"),
    ("column counter as data", dict(extra="          %i = arith.index_cast %x : index to i32\n"
                                       "          %g0 = arith.sitofp %i : i32 to f32\n"
                                       "          %g = arith.addf %g0, %r : f32\n", stored="%g"),
     "arith.index_cast at"),
])
def test_a_nest_off_the_rule_is_kept_and_says_why(name, kw, why):
    c = optimize_and_compare(conv1x1(**kw), "k", cpu(256))
    out, messages = c.text, c.messages
    assert not flat(messages), name
    assert any(why in m for m in stops(messages)), (name, stops(messages))
    # no view joins rows and columns (a 1-D view of a whole buffer is unmask-loads': section 58)
    assert all("[[0, 1, 2, 3]]" in line for line in out.splitlines() if "memref.collapse_shape" in line), out


def test_the_stop_remark_is_in_the_default_remarks():
    res = optimize(conv1x1(out="%y + 1, %x + 1", oshape="2x12x5x16"), cpu(256), filename="t.mlir")
    assert any(r.message.startswith("[STOP FLAT ROWS]") and r.kind == "Missed" for r in res.remarks)


VIEW = """func.func @k(%A: memref<2x3x4xf32>, %B: memref<2x12xf32>) {
  %v = memref.collapse_shape %A [[0], [1, 2]] : memref<2x3x4xf32> into memref<2x12xf32>
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 12 {
      %x = affine.load %v[%i, %j] : memref<2x12xf32>
      affine.store %x, %B[%i, %j] : memref<2x12xf32>
    }
  }
  affine.for %i = 0 to 2 {
    %y = affine.vector_load %v[%i, 0] : memref<2x12xf32>, vector<8xf32>
    affine.vector_store %y, %B[%i, 0] : memref<2x12xf32>, vector<8xf32>
  }
  return
}
"""


def test_an_access_through_a_collapsed_view_is_read_in_the_buffers_coordinates():
    """A scalar access: (j floordiv 4, j mod 4) of A, exactly; its own index kept for strides. A
    vector access through the view spans rows of A: any element (sound, not modelled)."""
    m = mlir.parse_module(VIEW)
    fn = mlir.functions(m)[0]
    scope = Scope()
    loads = [o for o in mlir.walk(fn) if o.name in ("affine.load", "affine.vector_load")]
    a = access_pattern(loads[0], scope)
    assert a.root == mlir.func_body(fn).arguments[0]
    assert len(a.index) == 3 and "floor" in a.index[1] and "mod 4" in a.index[2]
    assert a.view_index is not None and len(a.view_index) == 2
    v = access_pattern(loads[1], scope)
    assert v.index is None
