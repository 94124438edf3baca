"""Locality guard (cpu): the pass never leaves an innermost loop walking a non-last dimension of a
multi-dimensional buffer where the input did not (MLIR 22's fusion does on atax/bicg)."""
import pytest

from loopopt import mlir
from loopopt.analysis.accesses import collect_accesses
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import body_ops

from fusion_util import optimize_checked
from test_corpus import FILES, _sizes


def strided_inner_accesses(text: str) -> int:
    """Accesses whose innermost enclosing loop's IV appears in a non-last index of a rank >= 2
    buffer (a strided walk through memory)."""
    m = mlir.parse_module(text)
    n = 0
    for fn in mlir.functions(m):
        scope = Scope()
        for lp in [o for o in mlir.walk(fn) if o.name == "affine.for"]:
            if any(o.name == "affine.for" for o in body_ops(lp)):
                continue  # not innermost
            for a in collect_accesses(lp, scope):
                if a.index is None or len(a.index) < 2 or not a.loops:
                    continue
                iv = a.loops[-1].name
                if any(a.uses_iv(iv, d) for d in range(len(a.index) - 1)) and not a.uses_iv(iv, len(a.index) - 1):
                    n += 1
    return n


@pytest.mark.parametrize("path", [p for p in FILES if "polybench" in p.name or "transpose" in p.name
                                  or "chain" in p.name or "softmax" in p.name or "layernorm" in p.name],
                         ids=lambda p: p.stem)
def test_no_new_column_walks_on_cpu(path):
    src = path.read_text()
    res = optimize_checked(src, target="cpu", sizes=_sizes(path))
    assert strided_inner_accesses(res.text) <= strided_inner_accesses(src)


def test_the_metric_sees_a_column_walk():
    src = """func.func @f(%a: memref<8x8xf32>, %o: memref<8xf32>) {
  affine.for %j = 0 to 8 {
    affine.for %i = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<8x8xf32>
      affine.store %x, %o[%i] : memref<8xf32>
    }
  }
  return
}"""
    assert strided_inner_accesses(src) == 1
