// Issue 35, a constant weight read inside column blocks (docs/cpu_codegen.md section 51): B's
// 48 x 96 panel exceeds half of an 8 KiB L2 (given: --cache-sizes), so the 4 x 24 register tile
// (256 bits) sweeps the columns one tile at a time: J runs from %jc to %jc + 24 by 24 inside %jc
// from 0 by 24. J's lower bound is the IV of a loop whose every value is a multiple of 24, so J is
// one too (`constant_panels.starts_on_panels`) and the tile reads B from panels of 24 (section 11d),
// one contiguous 48 x 24 block per column block, not rows 384 bytes apart.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 1K,8K,64K --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
memref.global "private" constant @w : memref<48x96xf32> = dense<0.5> {alignment = 64 : i64}
func.func @linear(%A: memref<16x48xf32>, %C: memref<16x96xf32>) {
  %z = arith.constant 0.0 : f32
  %B = memref.get_global @w : memref<48x96xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 96 {
      %r = affine.for %k = 0 to 48 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<16x48xf32>
        %b = affine.load %B[%k, %j] : memref<48x96xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<16x96xf32>
    }
  }
  return
}
// REMARK: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; columns in blocks of 24
// REMARK: [PACK CONSTANT] 3 load(s) of @w (48 x 96) read column panels of 24: @w_panels24 (4 x 48 x 24)
// CHECK: memref.global "private" constant @w_panels24 : memref<4x48x24xf32>
// CHECK: %[[P:.*]] = memref.get_global @w_panels24 : memref<4x48x24xf32>
// CHECK-NOT: memref.get_global @w :
// CHECK: affine.for %[[JC:.*]] = 0 to 96 step 24 {
// CHECK: affine.for %{{.*}} = 0 to 16 step 4 {
// CHECK: affine.for %[[J:.*]] = #{{map[0-9]*}}(%[[JC]]) to #{{map[0-9]*}}(%[[JC]], %[[JC]]) step 24 {
// CHECK: affine.for %[[K:.*]] = 0 to 48 iter_args
// CHECK: affine.vector_load %[[P]][%[[J]] floordiv 24, %[[K]], 0] : memref<4x48x24xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[P]][%[[J]] floordiv 24, %[[K]], 8] : memref<4x48x24xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[P]][%[[J]] floordiv 24, %[[K]], 16] : memref<4x48x24xf32>, vector<8xf32>
