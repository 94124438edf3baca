"""`mlir.erase_innermost_first` erases a function's clone (the driver's snapshot) completely, also
when nested ops yield values used later, and leaves the rest of the module valid."""
from loopopt import mlir
from loopopt.mlir import ir

WITH_RESULTS = """
func.func @f(%a: memref<16xf32>, %n: index) -> f32 {
  %z = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 16 iter_args(%acc = %z) -> (f32) {
    %t = affine.for %j = 0 to 4 iter_args(%in = %acc) -> (f32) {
      %x = affine.load %a[%i] : memref<16xf32>
      %y = arith.addf %x, %in : f32
      affine.yield %y : f32
    }
    affine.yield %t : f32
  }
  %c = arith.cmpf ogt, %s, %z : f32
  %r = scf.if %c -> (f32) {
    %w = affine.for %k = 0 to %n iter_args(%v = %s) -> (f32) {
      %u = arith.addf %v, %s : f32
      affine.yield %u : f32
    }
    scf.yield %w : f32
  } else {
    scf.yield %z : f32
  }
  affine.for %i = 0 to 16 {
    affine.store %r, %a[%i] : memref<16xf32>
  }
  return %r : f32
}
"""


def _deep(depth: int) -> str:
    lines = ["func.func @deep(%a: memref<2xf32>) {", "  %c = arith.constant 1.5 : f32"]
    lines += [f"affine.for %i{k} = 0 to 2 {{" for k in range(depth)]
    lines += [f"affine.store %c, %a[%i{depth - 1}] : memref<2xf32>"] + ["}"] * depth
    return "\n".join(lines + ["  return", "}"]) + "\n"


def _erase_clone(text: str) -> str:
    module = mlir.parse_module(text)
    fn = mlir.functions(module)[0]
    before = mlir.print_module(module)
    snapshot = fn.clone(ip=ir.InsertionPoint(fn))
    assert len(mlir.functions(module)) == 2
    mlir.erase_innermost_first(snapshot)
    assert len(mlir.functions(module)) == 1
    assert mlir.verify(module.operation) is None
    after = mlir.print_module(module)
    assert after == before
    return after


def test_erase_with_results_used_later():
    _erase_clone(WITH_RESULTS)


def test_erase_deep_nest():
    _erase_clone(_deep(300))


def test_erase_keeps_ops_with_used_results_for_the_parent():
    """The loops yielding used values are erased with their parent, not alone."""
    module = mlir.parse_module(WITH_RESULTS)
    fn = mlir.functions(module)[0]
    erased = []
    real_walk = mlir.walk_list

    def spy_walk(op):
        out = real_walk(op)
        for o in out:
            if len(o.regions):
                erased.append((o.name, len(o.results), any(next(iter(r.uses), None) is not None for r in o.results)))
        return out

    mlir.walk_list = spy_walk
    try:
        mlir.erase_innermost_first(fn)
    finally:
        mlir.walk_list = real_walk
    assert mlir.functions(module) == []
    assert any(used for _, _, used in erased)  # the case the guard is for was met
    assert mlir.verify(module.operation) is None
