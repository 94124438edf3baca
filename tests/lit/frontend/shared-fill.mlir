// One linalg.fill initializes two reductions (as torch's layer_norm does for its mean and
// variance): one-shot-bufferize would copy the filled buffer for the second writer. The fill is
// repeated for its second user instead, so both reductions run in place and no copy is left.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @sum_and_sumsq(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %s, %q : tensor<4xf32>, tensor<4xf32>
}

// CHECK: lowering: loopopt-duplicate-shared-fills: {{.*}}; linalg.fill +1, linalg.yield +1, tensor.empty +1; 1 fill(s) repeated for their extra users
// CHECK: lowering: one-shot-bufferize{{.*}}: {{.*}}; bufferization.alloc_tensor -2, memref.alloc +2
// CHECK: lowering: loopopt-copies-to-loops: {{.*}}; no op count changed
// CHECK-LABEL: func.func @sum_and_sumsq(%arg0: memref<4x8xf32>, %arg1: memref<4xf32>, %arg2: memref<4xf32>)
// CHECK-NOT:     memref.copy
// CHECK-NOT:     memref.alloc
// CHECK:         affine.store %{{.*}}, %arg2[%{{.*}}] : memref<4xf32>
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}] : memref<4xf32>
// CHECK:         return
