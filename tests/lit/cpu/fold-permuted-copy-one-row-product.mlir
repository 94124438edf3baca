// One decoder step's attention scores per head (q, one row, times K^T with K as the cache holds it,
// keys by rows): the transposing copy torch-mlir makes of K is read once per element by the
// product (every loop around the read indexes it), so fold-permuted-copies folds it into the
// product, which reads the cache in place (rows in lanes, transposed in registers). @three_rows
// reads each element of the copy from three rows: the copy stays for the product's packing steps.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: passed: [FOLD COPY] the copy of 4x32x16 into 4x16x32 by the permutation [0, 2, 1] folded into its readers: 1 access(es) of the destination read the source through it; the copy and the 4x16x32 buffer erased (in @one_row)
// REMARK: missed: [STOP FOLD COPY] the destination is an operand of a product: its transposing copy is left to pack-column-blocks and transpose-tiles (in @three_rows) [affine.load at {{.*}}]
// REMARK: passed: [ROWS IN LANES] 8 rows in the lanes of vector<8xf32>{{.*}}(in @one_row)
// REMARK: passed: [TRANSPOSE TILE] a 16 x 32 transposing copy in 8 x 8 tiles{{.*}}(in @three_rows)
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: memref.alloc
// CHECK: affine.vector_load %arg1[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x32x16xf32>, vector<8xf32>
// CHECK-LABEL: func.func @three_rows
// CHECK: memref.alloc
func.func @one_row(%q: memref<4x16xf32>, %kc: memref<4x32x16xf32>, %o: memref<4x32xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x16x32xf32>
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %v = affine.load %kc[%b, %j, %d] : memref<4x32x16xf32>
        affine.store %v, %t[%b, %d, %j] : memref<4x16x32xf32>
      }
    }
  }
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.store %z, %o[%b, %j] : memref<4x32xf32>
    }
  }
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %a = affine.load %q[%b, %d] : memref<4x16xf32>
        %k = affine.load %t[%b, %d, %j] : memref<4x16x32xf32>
        %c = affine.load %o[%b, %j] : memref<4x32xf32>
        %m = arith.mulf %a, %k : f32
        %s = arith.addf %c, %m : f32
        affine.store %s, %o[%b, %j] : memref<4x32xf32>
      }
    }
  }
  memref.dealloc %t : memref<4x16x32xf32>
  return
}

func.func @three_rows(%q: memref<4x3x16xf32>, %kc: memref<4x32x16xf32>, %o: memref<4x3x32xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x16x32xf32>
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %v = affine.load %kc[%b, %j, %d] : memref<4x32x16xf32>
        affine.store %v, %t[%b, %d, %j] : memref<4x16x32xf32>
      }
    }
  }
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.store %z, %o[%b, 0, %j] : memref<4x3x32xf32>
    }
  }
  affine.for %b = 0 to 4 {
   affine.for %i = 0 to 3 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %a = affine.load %q[%b, %i, %d] : memref<4x3x16xf32>
        %k = affine.load %t[%b, %d, %j] : memref<4x16x32xf32>
        %c = affine.load %o[%b, %i, %j] : memref<4x3x32xf32>
        %m = arith.mulf %a, %k : f32
        %s = arith.addf %c, %m : f32
        affine.store %s, %o[%b, %i, %j] : memref<4x3x32xf32>
      }
    }
   }
  }
  memref.dealloc %t : memref<4x16x32xf32>
  return
}
