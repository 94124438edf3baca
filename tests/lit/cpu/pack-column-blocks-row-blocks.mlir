// B packed per column block (section 26), refused for a row-blocked product: with a 256K L2,
// cache tiling blocks the 300 rows in two blocks of 150 around the register tile's column blocks
// of 64. Packing per column block there would make the transposing copy once per row block
// (measured slower than the whole copy); the whole 128 x 320 buffer stays, laid out in panels of
// 64 columns, and the remark says why.
// RUN: loopopt %s --target cpu --vector-bits 512 --cache-sizes 32K,256K,8M --remarks -o %t.5.mlir 2> %t.5.remarks && %cat %t.5.remarks %t.5.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.5.mlir
// RUN: mlir-opt %t.5.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @row_blocked(%x: memref<300x128xf32>, %w: memref<320x128xf32>, %y: memref<300x320xf32>) {
  %t = memref.alloc() : memref<128x320xf32>
  affine.for %a = 0 to 128 {
    affine.for %b = 0 to 320 {
      %v = affine.load %w[%b, %a] : memref<320x128xf32>
      affine.store %v, %t[%a, %b] : memref<128x320xf32>
    }
  }
  affine.for %i = 0 to 300 {
    affine.for %j = 0 to 320 {
      %c = affine.load %y[%i, %j] : memref<300x320xf32>
      %r = affine.for %q = 0 to 128 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<300x128xf32>
        %s = affine.load %t[%q, %j] : memref<128x320xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      affine.store %r, %y[%i, %j] : memref<300x320xf32>
    }
  }
  memref.dealloc %t : memref<128x320xf32>
  return
}

// REMARK: pack-column-blocks-row-blocks.mlir:19:5: passed: [CACHE TILING] 300 x 320 x 128 product (6 x 64 register tile): rows in blocks of 150
// REMARK: pack-column-blocks-row-blocks.mlir:11:8: missed: [STOP PACK B] the product's rows are split around its column blocks (row blocks or a remainder nest): the copy would be made once per row block (in @row_blocked) [the row-block loop at {{.*}}pack-column-blocks-row-blocks.mlir:18:3 (step 150) lies around the column blocks; the whole copy, laid out in panels, is packed once for every row block]
// REMARK-NOT: [PACK B]
// REMARK: [PANEL LAYOUT] the 128 x 320 buffer a register tile reads as B is laid out in panels of 64 columns (5x128x64)

// CHECK-LABEL: func.func @row_blocked
// CHECK: %[[T:.+]] = memref.alloc() {alignment = 64 : i64} : memref<5x128x64xf32>
// CHECK-NOT: memref<128x64xf32>
// CHECK: affine.vector_store {{.+}}, %[[T]][
// CHECK: affine.for %{{.+}} = 0 to 300 step 150 {
// CHECK: affine.for %{{.+}} = 0 to 320 step 64 {
// CHECK-NOT: memref.alloc
// CHECK: affine.vector_load %[[T]][
// CHECK: memref.dealloc %[[T]] : memref<5x128x64xf32>
