// Issue 35, docs/cpu_codegen.md section 64: torch-mlir's x @ W^T with W an argument, lowered: a
// transposing copy of W into %t (24 KiB, over the 8 KiB fusion budget given), the zero fill, the
// product summing into %y in memory. Fused, the copy would join the product at its reduction loop
// and product isolation would cut it into strips, each loading and storing all of %y again; %y
// (6 KiB) exceeds the L2 given (4 KiB), so fusion refuses the pair and the copy stays apart: it is
// made in panels of 24 columns (whole, or per column block as pack-column-blocks makes it), and the
// product runs the whole reduction (0 to 64) in the register tile's accumulators. With an L2 that holds %y (256 KiB) the fusion stays, in strips.
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-sb-size 8192 --cache-sizes 1024,4096,1048576 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-sb-size 8192 --cache-sizes 32768,262144,8388608 --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=INL2
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%x: memref<16x64xf32>, %w: memref<96x64xf32>, %y: memref<16x96xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %t = memref.alloc() {alignment = 64 : i64} : memref<64x96xf32>
  affine.for %a = 0 to 64 {
    affine.for %b = 0 to 96 {
      %0 = affine.load %w[%b, %a] : memref<96x64xf32>
      affine.store %0, %t[%a, %b] : memref<64x96xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 96 {
      affine.store %cst, %y[%i, %j] : memref<16x96xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 96 {
      affine.for %q = 0 to 64 {
        %0 = affine.load %x[%i, %q] : memref<16x64xf32>
        %1 = affine.load %t[%q, %j] : memref<64x96xf32>
        %2 = affine.load %y[%i, %j] : memref<16x96xf32>
        %3 = arith.mulf %0, %1 : f32
        %4 = arith.addf %2, %3 : f32
        affine.store %4, %y[%i, %j] : memref<16x96xf32>
      }
    }
  }
  memref.dealloc %t : memref<64x96xf32>
  return
}

// REMARK: copy-into-product.mlir:16:3: missed: [STOP FUSION] a copy feeds a matrix product's operand: fused, the product would run in strips of its reduction: {{.*}}copy-into-product.mlir:16:3 and {{.*}}copy-into-product.mlir:27:3, level = 0, profit = 49152 (in @k) [%arg1 (96 x 64) permuted into 64 x 96 (24 KiB) by the loop at {{.*}}copy-into-product.mlir:16:3, read as an operand by the product at {{.*}}copy-into-product.mlir:{{[0-9]+}}:{{[0-9]+}}, whose 16 x 96 output (6 KiB) exceeds L2 (4 KiB): each strip would load and store it again]
// REMARK-NOT: cut into strips
// REMARK-NOT: [LOOP INTERCHANGE]

// CHECK-LABEL: func.func @k
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<{{(4x)?}}64x24xf32>
// CHECK: affine.vector_store %{{.*}}, %[[P]][
// CHECK: affine.for %{{.*}} = 0 to 64 iter_args(
// CHECK: affine.vector_load %[[P]][
// CHECK: memref.dealloc %[[P]] : memref<{{(4x)?}}64x24xf32>

// INL2-NOT: a copy feeds
// INL2: [PRODUCT ISOLATION] loop cut into strips
