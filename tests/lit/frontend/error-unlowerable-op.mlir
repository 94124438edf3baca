// An op the lowering cannot turn into loops is a one-line error naming the op and its place,
// never a half-lowered module (nothing is printed on stdout).
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: not loopopt-lower %s 2>&1 | filecheck %s
// RUN: not loopopt-lower %s 2>/dev/null | filecheck %s --check-prefix=NOOUT --allow-empty

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK: {{.*}}error-unlowerable-op.mlir:9:8: error: cannot lower 'linalg.softmax': an aggregate op with no loop form in convert-linalg-to-affine-loops
// CHECK-NOT: {{.}}
// NOOUT-NOT: {{.}}
