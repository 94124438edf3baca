// Issue 35, B packed per column block with the copy's tiles cut to the block (docs/cpu_codegen.md
// section 54): at 256 bits the register tile's column blocks are 24 wide while block-transposes
// tiles the copy in 16 x 16; the clone at the head of each block runs its column tiles in steps
// of gcd(16, 24) = 8 (`0 to 24 step 8`, point loop `0 to 8`), so each block's copy moves exactly
// the block's 24 columns into one 96 x 24 buffer, in 16 x 8 vector transposes.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 32K,256K,8M --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @cut(%x: memref<13x96xf32>, %w: memref<384x96xf32>, %y: memref<13x384xf32>) {
  %t = memref.alloc() : memref<96x384xf32>
  affine.for %a = 0 to 96 {
    affine.for %b = 0 to 384 {
      %v = affine.load %w[%b, %a] : memref<384x96xf32>
      affine.store %v, %t[%a, %b] : memref<96x384xf32>
    }
  }
  affine.for %i = 0 to 13 {
    affine.for %j = 0 to 384 {
      %c = affine.load %y[%i, %j] : memref<13x384xf32>
      %r = affine.for %q = 0 to 96 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<13x96xf32>
        %s = affine.load %t[%q, %j] : memref<96x384xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      affine.store %r, %y[%i, %j] : memref<13x384xf32>
    }
  }
  memref.dealloc %t : memref<96x384xf32>
  return
}
// REMARK: [PACK B] the 96 x 384 transposed copy is made per column block of 24 at {{.*}} into one 96 x 24 buffer (9 KiB): the source is read once, in the product's order, and the whole copy is gone
// REMARK: [TRANSPOSE TILE] a 16 x 8 transposing copy in 8 x 8 tiles
// REMARK-NOT: STOP PACK B
// CHECK-LABEL: func.func @cut
// CHECK-NOT: memref<96x384xf32>
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<96x24xf32>
// CHECK: affine.for %[[JB:.*]] = 0 to 384 step 24 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 24 step 8 {
// CHECK: affine.for %{{.*}} = 0 to 8 step 8 {
// CHECK: vector.shuffle
// CHECK: affine.vector_store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}} - %[[JB]]] : memref<96x24xf32>, vector<8xf32>
// CHECK: affine.vector_load %[[BUF]]
// CHECK-NOT: memref<96x384xf32>
// CHECK: memref.dealloc %[[BUF]] : memref<96x24xf32>
