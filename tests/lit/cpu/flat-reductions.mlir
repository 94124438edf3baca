// Issue 35, global pooling (docs/cpu_codegen.md section 32): a global average pool's sum over
// x[n, c, h, w]'s 7 x 7 window, carried through both loops, runs as one loop of 49 elements
// through a view joining the last two dimensions; with --reassociate its 3 whole vectors are
// summed in lanes (vector.reduction), the 49th element after them in order. A max pool is
// reordered exactly, without --reassociate. A window smaller than the image stays and says why.
// RUN: loopopt %s --target cpu --passes flat-reductions --reassociate --remarks 2>&1 | filecheck %s
func.func @avg(%X: memref<2x8x7x7xf32>, %Y: memref<2x8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 8 {
      %s = affine.for %i = 0 to 7 iter_args(%acc0 = %z) -> (f32) {
        %t = affine.for %j = 0 to 7 iter_args(%acc1 = %acc0) -> (f32) {
          %x = affine.load %X[%a, %b, %i, %j] : memref<2x8x7x7xf32>
          %y = arith.addf %x, %acc1 : f32
          affine.yield %y : f32
        }
        affine.yield %t : f32
      }
      affine.store %s, %Y[%a, %b] : memref<2x8xf32>
    }
  }
  return
}

func.func @window(%X: memref<2x8x9x9xf32>, %Y: memref<2x8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 8 {
      %s = affine.for %i = 0 to 7 iter_args(%acc0 = %z) -> (f32) {
        %t = affine.for %j = 0 to 7 iter_args(%acc1 = %acc0) -> (f32) {
          %x = affine.load %X[%a, %b, %i, %j] : memref<2x8x9x9xf32>
          %y = arith.maximumf %x, %acc1 : f32
          affine.yield %y : f32
        }
        affine.yield %t : f32
      }
      affine.store %s, %Y[%a, %b] : memref<2x8xf32>
    }
  }
  return
}

// CHECK-DAG: flat-reductions.mlir:11:12: passed: [FLAT REDUCTION] the reduction loops over 7 rows and 7 columns run as one loop of 49 elements through a view joining the buffer's last two dimensions, in vector partial sums of 16 lanes (3 vectors, then 1 in order) (in @avg)
// CHECK-DAG: flat-reductions.mlir:29:12: missed: [STOP FLAT REDUCTION] affine.load at {{.*}}flat-reductions.mlir:31:16: its buffer does not end in 7 x 7 contiguous elements (in @window)
// CHECK-LABEL: func.func @avg
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<2x8x7x7xf32> into memref<2x8x49xf32>
// CHECK: %[[ID:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-NEXT: %[[P:.*]] = affine.for %[[Q:.*]] = 0 to 48 step 16 iter_args(%[[ACC:.*]] = %[[ID]]) -> (vector<16xf32>) {
// CHECK-NEXT: %[[X:.*]] = affine.vector_load %[[V]][%{{.*}}, %{{.*}}, %[[Q]]] : memref<2x8x49xf32>, vector<16xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : vector<16xf32>
// CHECK-NEXT: affine.yield %[[S]] : vector<16xf32>
// CHECK: %[[R:.*]] = vector.reduction <add>, %[[P]] : vector<16xf32> into f32
// CHECK-NEXT: %[[I:.*]] = arith.addf %[[Z]], %[[R]] : f32
// CHECK-NEXT: %[[T:.*]] = affine.for %[[Q2:.*]] = 48 to 49 iter_args(%[[A2:.*]] = %[[I]]) -> (f32) {
// CHECK-NEXT: affine.load %[[V]][%{{.*}}, %{{.*}}, %[[Q2]]] : memref<2x8x49xf32>
// CHECK: affine.store %[[T]], %arg1
// CHECK-LABEL: func.func @window
// CHECK-NOT: collapse_shape
// CHECK: return
