// Step residue-order (docs/cpu_codegen.md section 43): a loop around a reduction nest whose loads read
// again, D > 1 iterations later, what an iteration read runs its iterations by residue mod D. A 3x3
// convolution of dilation 2 (DeepLab's ASPP uses 6): after the register tile, the row loop's reduction
// reads input rows y, y + 2 and y + 4; run as `for r = 0 to 2 { for y = r to 12 step 2 }`, the rows
// come back in the next iteration. 19 columns: the tile's masked tail (vector.maskedload/maskedstore)
// counts as its whole vector in the legality check. An undilated convolution keeps its order (D = 1);
// a loop writing what a later iteration reads is refused. The caches are given small (L2 2 KiB), so
// that these small programs hold more than L2 between a read and its reuse.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 1K,2K,64K --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt

func.func @dilated(%X: memref<8x16x23xf32>, %W: memref<4x8x3x3xf32>, %C: memref<4x12x19xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %o = 0 to 4 {
    affine.for %y = 0 to 12 {
      affine.for %x = 0 to 19 {
        affine.store %z, %C[%o, %y, %x] : memref<4x12x19xf32>
      }
    }
  }
  affine.for %o = 0 to 4 {
    affine.for %y = 0 to 12 {
      affine.for %x = 0 to 19 {
        affine.for %c = 0 to 8 {
          affine.for %kh = 0 to 3 {
            affine.for %kw = 0 to 3 {
              %w = affine.load %W[%o, %c, %kh, %kw] : memref<4x8x3x3xf32>
              %v = affine.load %X[%c, %y + %kh * 2, %x + %kw * 2] : memref<8x16x23xf32>
              %a = affine.load %C[%o, %y, %x] : memref<4x12x19xf32>
              %p = arith.mulf %w, %v : f32
              %s = arith.addf %a, %p : f32
              affine.store %s, %C[%o, %y, %x] : memref<4x12x19xf32>
            }
          }
        }
      }
    }
  }
  return
}

func.func @undilated(%X: memref<8x14x21xf32>, %W: memref<4x8x3x3xf32>, %C: memref<4x12x19xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %o = 0 to 4 {
    affine.for %y = 0 to 12 {
      affine.for %x = 0 to 19 {
        affine.store %z, %C[%o, %y, %x] : memref<4x12x19xf32>
      }
    }
  }
  affine.for %o = 0 to 4 {
    affine.for %y = 0 to 12 {
      affine.for %x = 0 to 19 {
        affine.for %c = 0 to 8 {
          affine.for %kh = 0 to 3 {
            affine.for %kw = 0 to 3 {
              %w = affine.load %W[%o, %c, %kh, %kw] : memref<4x8x3x3xf32>
              %v = affine.load %X[%c, %y + %kh * 1, %x + %kw * 1] : memref<8x14x21xf32>
              %a = affine.load %C[%o, %y, %x] : memref<4x12x19xf32>
              %p = arith.mulf %w, %v : f32
              %s = arith.addf %a, %p : f32
              affine.store %s, %C[%o, %y, %x] : memref<4x12x19xf32>
            }
          }
        }
      }
    }
  }
  return
}

func.func @conflict(%A: memref<40x256xf32>, %B: memref<256xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 24 {
    %s = affine.for %k = 0 to 256 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %k] : memref<40x256xf32>
      %b = affine.load %A[%i + 6, %k] : memref<40x256xf32>
      %w = affine.load %B[%k] : memref<256xf32>
      %p = arith.mulf %a, %w : f32
      %q = arith.addf %p, %b : f32
      %t = arith.addf %acc, %q : f32
      affine.yield %t : f32
    }
    affine.store %s, %A[%i + 13, 0] : memref<40x256xf32>
  }
  return
}

// CHECK: residue-order.mlir:16:5: passed: [RESIDUE ORDER] the loop's 12 iterations run by residue mod 2: loads read again 2, 4 iterations later are read again 1, 2 later (2 iterations load 5 KiB) (in @dilated)
// CHECK-NOT: RESIDUE ORDER] {{.*}}(in @undilated)
// CHECK: residue-order.mlir:75:3: missed: [STOP RESIDUE ORDER] the loop carries a dependence: its iterations may not be reordered (in @conflict) [{{.*}}residue-order.mlir:77:12: its buffer is written in one iteration and touched in another]
// CHECK-LABEL: func.func @dilated(
// CHECK: affine.for %[[R:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[Y:.*]] = #map{{[0-9]*}}(%[[R]]) to 12 step 2 {
// CHECK: affine.vector_load %arg0[%{{.*}}, %[[Y]] + %{{.*}} * 2, %{{.*}}] : memref<8x16x23xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %arg2[%arg3, %[[Y]], %{{.*}}] : memref<4x12x19xf32>, vector<8xf32>
// CHECK: vector.maskedstore %arg2
// CHECK-LABEL: func.func @undilated(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<8x14x21xf32> into memref<2352xf32>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 4 step 4 {
// CHECK-NOT: step 2 {
// CHECK-LABEL: func.func @conflict(
// CHECK: affine.for %{{.*}} = 0 to 24 {
