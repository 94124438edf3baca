// B packed per column block with the columns left over (docs/cpu_codegen.md section 76): at 256
// bits the register tile's column blocks are 24 wide and 392 = 16 x 24 + 8, so the tile reads the
// last 8 columns in a nest of its own after the blocks. That nest is packed too: the copy is
// cloned just before it, restricted to columns 384 .. 391, into the blocks' 96 x 24 buffer at
// `[r, e - 384]`; no whole transposed copy is left.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 32K,256K,8M --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @tail(%x: memref<13x96xf32>, %w: memref<392x96xf32>, %y: memref<13x392xf32>) {
  %t = memref.alloc() : memref<96x392xf32>
  affine.for %a = 0 to 96 {
    affine.for %b = 0 to 392 {
      %v = affine.load %w[%b, %a] : memref<392x96xf32>
      affine.store %v, %t[%a, %b] : memref<96x392xf32>
    }
  }
  affine.for %i = 0 to 13 {
    affine.for %j = 0 to 392 {
      %c = affine.load %y[%i, %j] : memref<13x392xf32>
      %r = affine.for %q = 0 to 96 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<13x96xf32>
        %s = affine.load %t[%q, %j] : memref<96x392xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      affine.store %r, %y[%i, %j] : memref<13x392xf32>
    }
  }
  memref.dealloc %t : memref<96x392xf32>
  return
}
// REMARK: [PACK B] the 96 x 392 transposed copy is made per column block of 24 at {{.*}} into one 96 x 24 buffer (9 KiB): the source is read once, in the product's order, and the whole copy is gone; the 8 columns left over (384 .. 391) are copied into it before their nest at {{.*}}; the 8 columns left over (384 .. 391) are copied into it before their nest at
// REMARK-NOT: STOP PACK B
// CHECK-LABEL: func.func @tail
// CHECK-NOT: memref<96x392xf32>
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<96x24xf32>
// CHECK: affine.for %[[JB:.*]] = 0 to 384 step 24 {
// CHECK: affine.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}} - %[[JB]]] : memref<96x24xf32>
// CHECK: affine.vector_load %[[BUF]][%{{.*}}, %{{.*}} - %[[JB]]] : memref<96x24xf32>, vector<8xf32>
// CHECK: affine.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}} - 384] : memref<96x24xf32>
// CHECK: affine.for %{{.*}} = 384 to 392 step 8 {
// CHECK: affine.vector_load %[[BUF]][%{{.*}}, %{{.*}} - 384] : memref<96x24xf32>, vector<8xf32>
// CHECK-NOT: memref<96x392xf32>
// CHECK: memref.dealloc %[[BUF]] : memref<96x24xf32>
