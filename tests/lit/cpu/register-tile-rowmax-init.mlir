// Issue 33, class 3: a row maximum carried by the loop over keys whose initial value is loaded
// in the row loop (M[i]). With 6 rows jammed, each row's partials start from its own row's
// init (one load per row, broadcast to that row's 2 vectors), and so does the next sweep.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.3.mlir 2> %t.3.remarks && %cat %t.3.remarks %t.3.mlir | filecheck %s
// RUN: mlir-opt %t.3.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @rowmax_init(%Q: memref<8x16xf32>, %K: memref<16x40xf32>, %S: memref<8x40xf32>, %M: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %m0 = affine.load %M[%i] : memref<8xf32>
    %mx = affine.for %j = 0 to 40 iter_args(%cur = %m0) -> (f32) {
      %d = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %Q[%i, %k] : memref<8x16xf32>
        %b = affine.load %K[%k, %j] : memref<16x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %d, %S[%i, %j] : memref<8x40xf32>
      %n = arith.maximumf %d, %cur : f32
      affine.yield %n : f32
    }
    affine.store %mx, %O[%i] : memref<8xf32>
  }
  return
}

// CHECK: rowmax-init.mlir:11:11: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the loop's own reductions (arith.maximumf) in 12 lane-wise partials, exact in any order (in @rowmax_init)
// CHECK-LABEL: func.func @rowmax_init
// CHECK: affine.for %[[I:.*]] = 0 to 6 step 6 {
// CHECK: %[[I1:.*]] = affine.apply #map(%[[I]])
// CHECK: %[[I2:.*]] = affine.apply #map1(%[[I]])
// CHECK: %[[I3:.*]] = affine.apply #map2(%[[I]])
// CHECK: %[[I4:.*]] = affine.apply #map3(%[[I]])
// CHECK: %[[I5:.*]] = affine.apply #map4(%[[I]])
// CHECK: %[[M0:.*]] = affine.load %arg3[%[[I]]] : memref<8xf32>
// CHECK: %[[M1:.*]] = affine.load %arg3[%[[I1]]] : memref<8xf32>
// CHECK: %[[M2:.*]] = affine.load %arg3[%[[I2]]] : memref<8xf32>
// CHECK: %[[M3:.*]] = affine.load %arg3[%[[I3]]] : memref<8xf32>
// CHECK: %[[M4:.*]] = affine.load %arg3[%[[I4]]] : memref<8xf32>
// CHECK: %[[M5:.*]] = affine.load %arg3[%[[I5]]] : memref<8xf32>
// CHECK: %[[B0:.*]] = vector.broadcast %[[M0]] : f32 to vector<8xf32>
// CHECK: %[[B1:.*]] = vector.broadcast %[[M1]] : f32 to vector<8xf32>
// CHECK: %[[B2:.*]] = vector.broadcast %[[M2]] : f32 to vector<8xf32>
// CHECK: %[[B3:.*]] = vector.broadcast %[[M3]] : f32 to vector<8xf32>
// CHECK: %[[B4:.*]] = vector.broadcast %[[M4]] : f32 to vector<8xf32>
// CHECK: %[[B5:.*]] = vector.broadcast %[[M5]] : f32 to vector<8xf32>
// CHECK: affine.for %{{.*}} = 0 to 32 step 16 iter_args(%{{[^ ]*}} = %[[B0]], %{{[^ ]*}} = %[[B0]], %{{[^ ]*}} = %[[B1]], %{{[^ ]*}} = %[[B1]], %{{[^ ]*}} = %[[B2]], %{{[^ ]*}} = %[[B2]], %{{[^ ]*}} = %[[B3]], %{{[^ ]*}} = %[[B3]], %{{[^ ]*}} = %[[B4]], %{{[^ ]*}} = %[[B4]], %{{[^ ]*}} = %[[B5]], %{{[^ ]*}} = %[[B5]])
// The rows left over (6 and 7), jammed as one block of two, each from its own M[i].
// CHECK: affine.for %[[R:.*]] = 6 to 8 step 2 {
// CHECK: %[[R1:.*]] = affine.apply #{{.*}}(%[[R]])
// CHECK: %[[MR:.*]] = affine.load %arg3[%[[R]]] : memref<8xf32>
// CHECK: %[[MR1:.*]] = affine.load %arg3[%[[R1]]] : memref<8xf32>
// CHECK: %[[BR:.*]] = vector.broadcast %[[MR]] : f32 to vector<8xf32>
// CHECK: %[[BR1:.*]] = vector.broadcast %[[MR1]] : f32 to vector<8xf32>
// CHECK: affine.for %{{.*}} = 0 to 32 step 16 iter_args(%{{[^ ]*}} = %[[BR]], %{{[^ ]*}} = %[[BR]], %{{[^ ]*}} = %[[BR1]], %{{[^ ]*}} = %[[BR1]])
