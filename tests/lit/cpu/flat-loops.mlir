// An elementwise op over NCHW maps of 7 x 7 (a squeeze-excitation's scale): the rows and columns run
// as one loop of 49 through collapse views of both buffers, so a row is no longer a vector and a
// remainder; rows of whole vectors too (@whole_rows); named in --passes, a pair the rule refuses
// says why.
// RUN: loopopt %s --target cpu --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// RUN: loopopt %s --target cpu --passes flat-loops --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=STOP
// REQUIRES: mlir-opt
// REMARK: [FLAT LOOPS] the loops over 7 rows and 7 columns run as one loop of 49 columns through a view joining the buffers' last two dimensions (in @scale)
// REMARK: [FLAT LOOPS] the loops over 32 rows and 32 columns run as one loop of 1024 columns through a view joining the buffers' last two dimensions (in @whole_rows)
// REMARK-NOT: FLAT LOOPS
// CHECK-LABEL: func.func @scale
// CHECK-DAG: memref.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : memref<2x8x7x7xf32> into memref<2x8x49xf32>
// CHECK-DAG: memref.collapse_shape %arg2 {{\[\[}}0], [1], [2, 3]] : memref<2x8x7x7xf32> into memref<2x8x49xf32>
// CHECK: affine.for %{{.*}} = 0 to 49 {
// CHECK-NOT: affine.for
// CHECK: arith.mulf
// CHECK-LABEL: func.func @whole_rows
// CHECK-DAG: memref.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : memref<8x32x32xf32> into memref<8x1024xf32>
// CHECK: affine.for %{{.*}} = 0 to 1024 {
// CHECK-NOT: affine.for
// CHECK: arith.addf
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: collapse_shape
// CHECK: affine.for %{{.*}} = 0 to 7 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 7 {
// STOP: [STOP FLAT LOOPS] affine.store at {{.*}} does not index its last two dimensions by (row, column) (in @transposed)
func.func @scale(%x: memref<2x8x7x7xf32>, %s: memref<8xf32>, %o: memref<2x8x7x7xf32>) {
  affine.for %n = 0 to 2 {
    affine.for %c = 0 to 8 {
      %v = affine.load %s[%c] : memref<8xf32>
      affine.for %h = 0 to 7 {
        affine.for %w = 0 to 7 {
          %a = affine.load %x[%n, %c, %h, %w] : memref<2x8x7x7xf32>
          %b = arith.mulf %a, %v : f32
          affine.store %b, %o[%n, %c, %h, %w] : memref<2x8x7x7xf32>
        }
      }
    }
  }
  return
}

// Rows of whole vectors (32 f32: two of 16 lanes) are joined too: LLVM unrolls a loop of 32 columns
// whole and then vectorizes the rows loop across rows, by gathers and scatters (section 41).
func.func @whole_rows(%x: memref<8x32x32xf32>, %o: memref<8x32x32xf32>) {
  affine.for %c = 0 to 8 {
    affine.for %h = 0 to 32 {
      affine.for %w = 0 to 32 {
        %a = affine.load %x[%c, %h, %w] : memref<8x32x32xf32>
        %b = arith.addf %a, %a : f32
        affine.store %b, %o[%c, %h, %w] : memref<8x32x32xf32>
      }
    }
  }
  return
}

func.func @transposed(%x: memref<8x7x7xf32>, %o: memref<8x7x7xf32>) {
  affine.for %c = 0 to 8 {
    affine.for %h = 0 to 7 {
      affine.for %w = 0 to 7 {
        %a = affine.load %x[%c, %h, %w] : memref<8x7x7xf32>
        %b = arith.addf %a, %a : f32
        affine.store %b, %o[%c, %w, %h] : memref<8x7x7xf32>
      }
    }
  }
  return
}
