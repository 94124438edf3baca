// docs/cpu_codegen.md section 69: a gather counts the elements it can reach in one iteration of
// the fused loop (one per execution), not its whole buffer. SBSize 2048: @gathers' consumer reads
// %src at an index computed from %x (a memref.load of unknown elements). One batch iteration of
// the pair touches 5120 bytes (%d's 2048, %x's, %out's and 256 gathered floats: 1024 each), one
// group 1280 (before the rule: %src whole, 2048, so 3072 and no level fit): the batch loops fuse
// as shells and the group loops inside them; the f64 buffer then lives in a register.
// RUN: loopopt %s --target cpu --loop-opt-sb-size 2048 --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt

// REMARK: passed: [LOOP FUSION] , level = 0 fused {{.*}} (in @gathers) [{{.*}}fused at level 1: one iteration of the fused loop there touches 1280 bytes <= SBSize 2048]
// REMARK: passed: [LOOP FUSION] , level = 1 fused {{.*}} (in @gathers) [inside the shells fused at level 0]

// CHECK-LABEL: func.func @gathers
// CHECK-NOT: memref.alloc
// CHECK: memref.load %arg1
func.func @gathers(%x: memref<2x4x64xf32>, %src: memref<2x4x64xf32>, %out: memref<2x4x64xf32>) {
  %c63 = arith.constant 63 : i64
  %d = memref.alloc() : memref<2x4x64xf64>
  affine.for %b = 0 to 2 {
    affine.for %g = 0 to 4 {
      affine.for %k = 0 to 64 {
        %v = affine.load %x[%b, %g, %k] : memref<2x4x64xf32>
        %w = arith.extf %v : f32 to f64
        affine.store %w, %d[%b, %g, %k] : memref<2x4x64xf64>
      }
    }
  }
  affine.for %b = 0 to 2 {
    affine.for %g = 0 to 4 {
      affine.for %k = 0 to 64 {
        %w = affine.load %d[%b, %g, %k] : memref<2x4x64xf64>
        %v = affine.load %x[%b, %g, %k] : memref<2x4x64xf32>
        %i = arith.fptosi %v : f32 to i64
        %m = arith.andi %i, %c63 : i64
        %n = arith.index_cast %m : i64 to index
        %s = memref.load %src[%b, %g, %n] : memref<2x4x64xf32>
        %e = arith.extf %s : f32 to f64
        %p = arith.mulf %w, %e : f64
        %t = arith.truncf %p : f64 to f32
        affine.store %t, %out[%b, %g, %k] : memref<2x4x64xf32>
      }
    }
  }
  memref.dealloc %d : memref<2x4x64xf64>
  return
}
