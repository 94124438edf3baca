// torch.cumsum(x.abs(), -1) as torch-mlir writes it: a tm_tensor.scan (TMTensor's own dialect) along
// the last dimension, inclusive, its accumulator result unused. loopopt-scans-to-loops writes it as
// affine loops over buffers before bufferization: out[i, 0] = in[i, 0], then for j = 1 to N,
// out[i, j] = out[i, j - 1] + in[i, j] (the region's addf, previous output first), as TMTensor's own
// loops compute it (docs/cpu_codegen.md section 43). No accumulator is written (its result unused).
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @cumsum(%arg0: tensor<32x300xf32>) -> tensor<32x300xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<32x300xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x300xf32>) outs(%0 : tensor<32x300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.absf %in : f32
    linalg.yield %a : f32
  } -> tensor<32x300xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%0 : tensor<32x300xf32>) -> tensor<32x300xf32>
  %3 = tensor.empty() : tensor<32xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<32xf32>) -> tensor<32xf32>
  %5:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%1 : tensor<32x300xf32>) outs(%2, %4 : tensor<32x300xf32>, tensor<32xf32>) {
  ^bb0(%p: f32, %v: f32):
    %s = arith.addf %p, %v : f32
    tm_tensor.yield %s : f32
  } -> tensor<32x300xf32>, tensor<32xf32>
  return %5#0 : tensor<32x300xf32>
}

// CHECK: loopopt-scans-to-loops: {{.*}}loops: tm_tensor.scan at {{.*}}scans-to-loops.mlir:20:10
// CHECK-LABEL: func.func @cumsum(
// CHECK-NOT: tm_tensor
// CHECK: math.absf
// CHECK: affine.for %[[I:.*]] = 0 to 32 {
// CHECK-NEXT: %[[F:.*]] = affine.load %[[IN:.*]][%[[I]], 0] : memref<32x300xf32>
// CHECK-NEXT: affine.store %[[F]], %[[OUT:.*]][%[[I]], 0] : memref<32x300xf32>
// CHECK-NEXT: affine.for %[[J:.*]] = 1 to 300 {
// CHECK-NEXT: %[[P:.*]] = affine.load %[[OUT]][%[[I]], %[[J]] - 1] : memref<32x300xf32>
// CHECK-NEXT: %[[X:.*]] = affine.load %[[IN]][%[[I]], %[[J]]] : memref<32x300xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[X]] : f32
// CHECK-NEXT: affine.store %[[S]], %[[OUT]][%[[I]], %[[J]]] : memref<32x300xf32>
// CHECK-NOT: tm_tensor
