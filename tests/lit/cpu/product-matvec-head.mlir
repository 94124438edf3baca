// Section 81 (DLRM's top MLP): an MLP's scoring head as torch-mlir writes it, Linear(20, 64), ReLU,
// Linear(64, 1) (a matmul with a one-column weight), sigmoid. The matrix-vector product's sum over
// the hidden columns sits inside its loop of one iteration (the one output column); interchanged
// to align with the product's column loop it would make that loop carry the sum, so the fusion is
// refused (the pair's refusal, the trip counts, names the refused trial). The product is a nest of its own,
// tiled in vector accumulators with its bias and ReLU on them; the matrix-vector product and the
// sigmoid run after it.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @k(%x: tensor<16x20xf32>, %w1: tensor<20x64xf32>, %b1: tensor<64xf32>, %w2: tensor<64x1xf32>) -> tensor<16x1xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %zero = arith.constant 0.000000e+00 : f64
    %one = arith.constant 1.000000e+00 : f32
    %e = tensor.empty() : tensor<16x64xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    %p = linalg.matmul ins(%x, %w1 : tensor<16x20xf32>, tensor<20x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
    %h = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%p, %b1 : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    } -> tensor<16x64xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.extf %in : f32 to f64
      %1 = arith.cmpf olt, %0, %zero : f64
      %2 = arith.select %1, %cst, %in : f32
      linalg.yield %2 : f32
    } -> tensor<16x64xf32>
    %e2 = tensor.empty() : tensor<16x1xf32>
    %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<16x1xf32>) -> tensor<16x1xf32>
    %q = linalg.matmul ins(%r, %w2 : tensor<16x64xf32>, tensor<64x1xf32>) outs(%f2 : tensor<16x1xf32>) -> tensor<16x1xf32>
    %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<16x1xf32>) outs(%e2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.negf %in : f32
      %2 = math.exp %1 : f32
      %3 = arith.addf %2, %one : f32
      %4 = arith.divf %one, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<16x1xf32>
    return %s : tensor<16x1xf32>
  }
}

// CHECK: product-matvec-head.mlir:17:10: missed: [STOP FUSION] unmatched trip count: {{.*}}product-matvec-head.mlir:17:10 and {{.*}}product-matvec-head.mlir:33:10, level = 1, {{.*}}[restructured to align them: a product's output loop would carry a reduction its tile's lanes may not share: the loop at {{.*}}product-matvec-head.mlir:17:10 holds a product's reduction loop; the loop at {{.*}}product-matvec-head.mlir:33:10 carries a reduction by arith.addf, not one the tile's lanes may share]
// CHECK: passed: [PRODUCT ISOLATION] loop split into 3 loops: a matrix product in a nest of its own
// CHECK: product-matvec-head.mlir:17:10: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>)
// CHECK-NOT: [STOP REGISTER TILING]
// CHECK-LABEL: func.func @k
// CHECK: affine.for %[[I:.*]] = 0 to 16 step 4 {
// CHECK: affine.for %[[J:.*]] = 0 to 48 step 24 {
// CHECK: affine.for %{{.*}} = 0 to 20 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: affine.vector_store %{{.*}}, %[[H:.*]][%[[I]], %[[J]]] : memref<16x64xf32>, vector<8xf32>
// the matrix-vector product, after the product: one sum per row over the hidden columns
// CHECK: affine.for %[[R:.*]] = 0 to 16 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT: affine.load %[[H]][%[[R]], %{{.*}}] : memref<16x64xf32>
// CHECK: return
