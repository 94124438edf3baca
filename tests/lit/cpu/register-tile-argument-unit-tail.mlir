// An argument whose type ends in a dimension of size 1 (torch's keepdim reductions, einsum operands passed
// in) read and written along the register tile's lanes (docs/cpu_codegen.md section 40): the lane test
// leaves the trailing unit dimension out (an in-bounds index of it is 0: the access moves along the last
// dimension that is not one), and the lanes load and store through a memref.collapse_shape without it,
// made once at the top of the function; the argument's type (the calling convention) is unchanged.
// Before: "lanes refused: affine.load ... moves by [0, 1, 0] elements per iteration", a scalar tile.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt

func.func @argtail(%A: memref<12x20xf32>, %B: memref<20x40x1xf32>, %C: memref<12x40x1xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      affine.store %z, %C[%i, %j, 0] : memref<12x40x1xf32>
    }
  }
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      affine.for %k = 0 to 20 {
        %a = affine.load %A[%i, %k] : memref<12x20xf32>
        %b = affine.load %B[%k, %j, 0] : memref<20x40x1xf32>
        %c = affine.load %C[%i, %j, 0] : memref<12x40x1xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j, 0] : memref<12x40x1xf32>
      }
    }
  }
  return
}

// CHECK: passed: [REGISTER TILING] {{.*}} vector accumulators (vector<8xf32>), each sum kept in order{{.*}} (in @argtail)
// CHECK-NOT: lanes refused
// CHECK-LABEL: func.func @argtail(%arg0: memref<12x20xf32>, %arg1: memref<20x40x1xf32>, %arg2: memref<12x40x1xf32>)
// CHECK-DAG:   %[[CV:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1, 2]] : memref<12x40x1xf32> into memref<12x40xf32>
// CHECK-DAG:   %[[BV:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1, 2]] : memref<20x40x1xf32> into memref<20x40xf32>
// CHECK:       affine.vector_load %[[BV]][%{{.*}}, %{{.*}}] : memref<20x40xf32>, vector<8xf32>
// CHECK:       affine.vector_store %{{.*}}, %[[CV]][%{{.*}}, %{{.*}}] : memref<12x40xf32>, vector<8xf32>
// CHECK-NOT:   memref.collapse_shape
