"""Locality guard (cpu): the pass never leaves an innermost loop walking a non-last dimension of a
multi-dimensional buffer where the input did not (MLIR 22's fusion does on atax/bicg)."""
import pytest

from loopopt import mlir
from loopopt.analysis.locality import strided_innermost_accesses

from fusion_util import optimize_checked
from test_corpus import FILES, _sizes


def strided_inner_accesses(text: str) -> int:
    module = mlir.parse_module(text)  # keep the module alive while its ops are read
    return sum(strided_innermost_accesses(f) for f in mlir.functions(module))


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
