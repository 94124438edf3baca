// Issue 24, attention's Q K^T: the loop over keys (j) carries the softmax's row maximum and the
// unused first index of it (`aten.max.dim`, as torch-mlir lowers it). The dead index is removed,
// then the j loop is tiled (rows of i jammed) with the maximum as lane-wise partials (one per row and
// vector), combined
// after the sweep by elementwise maxima and one `vector.reduction <maximumf>` (exact in any order).
// A sum carried by the j loop is refused (its partials would each count the init).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes register-tile --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
func.func @qk(%Q: memref<8x16xf32>, %K: memref<16x40xf32>, %S: memref<8x40xf32>, %M: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  affine.for %i = 0 to 8 {
    %m:2 = affine.for %j = 0 to 40 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {
      %d = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %Q[%i, %k] : memref<8x16xf32>
        %b = affine.load %K[%k, %j] : memref<16x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %d, %S[%i, %j] : memref<8x40xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %d, %mx : f32
      %gt = arith.cmpf ogt, %d, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
      affine.yield %nm, %ni : f32, i64
    }
    affine.store %m#0, %M[%i] : memref<8xf32>
  }
  return
}

func.func @sum_carried(%Q: memref<8x16xf32>, %K: memref<16x40xf32>, %M: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %t = affine.for %j = 0 to 40 iter_args(%tot = %z) -> (f32) {
      %d = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %Q[%i, %k] : memref<8x16xf32>
        %b = affine.load %K[%k, %j] : memref<16x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      %nt = arith.addf %d, %tot : f32
      affine.yield %nt : f32
    }
    affine.store %t, %M[%i] : memref<8xf32>
  }
  return
}

// The index is gone; 6 rows x 2 vectors of 8 keys, each with its own partial maximum from -inf.
// CHECK-LABEL: func.func @qk
// CHECK-NOT: index_cast
// CHECK: affine.for %[[I:.*]] = 0 to 6 step 6 {
// CHECK: %[[N0:.*]] = vector.broadcast %cst_0 : f32 to vector<8xf32>
// CHECK: %[[N1:.*]] = vector.broadcast %cst_0 : f32 to vector<8xf32>
// CHECK: %[[T:.*]]:12 = affine.for %{{.*}} = 0 to 32 step 16 iter_args(%[[M0:[^ ]*]] = %[[N0]], %{{[^ ]*}} = %[[N0]], %[[M2:[^ ]*]] = %[[N1]], {{.*}}, %[[M11:[^ ]*]] = %{{[^ ]*}}) -> (vector<8xf32>,
// CHECK: %[[D:.*]]:12 = affine.for %{{.*}} = 0 to 16 iter_args
// CHECK: affine.vector_store %[[D]]#0, %arg2
// CHECK: %[[X0:.*]] = arith.maximumf %[[D]]#0, %[[M0]] : vector<8xf32>
// CHECK: arith.maximumf %[[D]]#2, %[[M2]] : vector<8xf32>
// CHECK: arith.maximumf %[[D]]#11, %[[M11]] : vector<8xf32>
// CHECK: affine.yield %[[X0]],
// Each row's partials combined: elementwise, then across the lanes; the next sweep (one vector
// per row) starts from them, and each row's maximum is stored after the sweeps.
// CHECK: %[[A:.*]] = arith.maximumf %[[T]]#0, %[[T]]#1 : vector<8xf32>
// CHECK: %[[R0:.*]] = vector.reduction <maximumf>, %[[A]] : vector<8xf32> into f32
// CHECK: arith.maximumf %[[T]]#2, %[[T]]#3 : vector<8xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: %[[RB:.*]] = vector.broadcast %[[R0]] : f32 to vector<8xf32>
// CHECK: %[[V:.*]]:6 = affine.for %{{.*}} = 32 to 40 step 8 iter_args(%{{.*}} = %[[RB]], {{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: %[[F:.*]] = vector.reduction <maximumf>, %[[V]]#0 : vector<8xf32> into f32
// CHECK: affine.store %[[F]], %arg3[%[[I]]] : memref<8xf32>
// The rows left over (6 and 7), jammed as one block of two rows.
// CHECK: affine.for %{{.*}} = 6 to 8 step 2 {
// CHECK: affine.for %{{.*}} = 0 to 32 step 16 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {

// The sum stays as it was.
// CHECK-LABEL: func.func @sum_carried
// CHECK-NOT: vector
// CHECK: arith.addf %{{.*}}, %arg5 : f32

// REMARK: rowmax.mlir:14:12: passed: [DEAD VALUE] a value carried by the loop is never used: removed (3 ops) (in @qk)
// REMARK: rowmax.mlir:14:12: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the loop's own reductions (arith.maximumf) in 12 lane-wise partials, exact in any order (in @qk)
// REMARK: rowmax.mlir:37:10: missed: [STOP REGISTER TILING] a value carried by the loop to block is not a reduction its lanes may share (in @sum_carried) [arith.addf is not idempotent and exact in any order (its partials may not start from the init)]
