// A dynamic batch: one SSA value per dynamic size. The out-parameter's size must equal the
// input's (the program relies on it); the lowering checks it at function entry, before any loop
// (cf.assert), and past the check every nest is bounded by the input's dim, so the nests fuse.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s
// RUN: loopopt-lower %s | mlir-opt > /dev/null
// REQUIRES: mlir-opt

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: tensor<?x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x16xf32>, tensor<16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x16xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// CHECK: lowering: loopopt-unify-dynamic-sizes: {{.*}}; 1 memref.dim of out-parameters replaced by the checked size
// CHECK: lowering: run-time check: bias_relu: dim 0 of output argument 2 must equal dim 0 of argument 0
// CHECK-LABEL: func.func @bias_relu(%arg0: memref<?x16xf32>, %arg1: memref<16xf32>, %arg2: memref<?x16xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = memref.dim %arg0, %[[C0]] : memref<?x16xf32>
// CHECK-NEXT:    %[[M:.*]] = memref.dim %arg2, %[[C0]] : memref<?x16xf32>
// CHECK-NEXT:    %[[EQ:.*]] = arith.cmpi eq, %[[M]], %[[N]] : index
// CHECK-NEXT:    cf.assert %[[EQ]], "loopopt: bias_relu: dim 0 of output argument 2 must equal dim 0 of argument 0"
// CHECK-NEXT:    affine.for %{{.*}} = 0 to %[[N]] {
// CHECK-NOT:     memref.dim
// CHECK:         affine.for %{{.*}} = 0 to %[[N]] {
// CHECK-NOT:     memref.dim
// CHECK:         return
