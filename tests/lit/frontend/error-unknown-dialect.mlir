// An op of a dialect outside linalg on tensors (here an unregistered one) is refused before any
// pass runs, with its name and place.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: not loopopt-lower %s 2>&1 | filecheck %s

func.func @custom(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mydialect.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK: {{.*}}error-unknown-dialect.mlir:7:8: error: cannot lower 'mydialect.gelu': the mydialect dialect is not part of linalg on tensors (the lowering takes builtin, func, arith, math, tensor, linalg, bufferization, scf, affine, memref; see docs/frontend.md)
// CHECK-NOT: {{.}}
