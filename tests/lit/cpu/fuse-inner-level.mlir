// docs/cpu_codegen.md section 47: a pair over the working-set bound at its own level fuses at the
// next inner common loop. SBSize 2048: one batch row of @groups' three buffers is 4096 bytes
// (the seed's measure, and one batch iteration touches as much), one group 1024: the batch loops
// fuse as shells and their group loops inside them; the f64 buffer then lives in a register.
// @other_group: the consumer reads another group's elements, so the group loops may not fuse (a
// negative distance) and the batch loops stay apart, the remark saying why. @not_shells: the
// producer's batch body holds a load besides its group loop. The trn1 target keeps the seed's
// refusal (TRN).
// RUN: loopopt %s --target cpu --loop-opt-sb-size 2048 --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// RUN: loopopt %s --target trn1 --loop-opt-sb-size 2048 --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=TRN
// REQUIRES: mlir-opt

// REMARK: fuse-inner-level.mlir:27:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}fuse-inner-level.mlir:27:3 and {{.*}}fuse-inner-level.mlir:36:3 profit = 8192 (in @groups) [fused at level 1: one iteration of the fused loop there touches 1024 bytes <= SBSize 2048]
// REMARK: fuse-inner-level.mlir:28:5: passed: [LOOP FUSION] , level = 1 fused {{.*}}fuse-inner-level.mlir:28:5 and {{.*}}fuse-inner-level.mlir:37:5 profit = 8192 (in @groups) [inside the shells fused at level 0]
// REMARK: missed: [STOP FUSION] fused working set exceeds SBSize: {{.*}} level = 0, profit = 8192 (in @other_group) [4096 bytes per partition > SBSize 2048; one iteration of the fused loop touches 4096 bytes, and the loops inside are not fusable]
// REMARK: missed: [STOP FUSION] fused working set exceeds SBSize: {{.*}} level = 0, profit = 8192 (in @not_shells) [4104 bytes per partition > SBSize 2048; one iteration of the fused loop touches 4104 bytes, and the loops' bodies are not one loop each]
// TRN: missed: [STOP FUSION] fused working set exceeds SBSize: {{.*}} level = 0, profit = 8192 (in @groups) [4096 bytes per partition > SBSize 2048]
// TRN-NOT: passed: [LOOP FUSION]{{.*}}@groups

// CHECK-LABEL: func.func @groups
// CHECK-NOT: memref.alloc
func.func @groups(%x: memref<2x4x64xf32>, %out: memref<2x4x64xf32>) {
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
        %s = arith.mulf %w, %w : f64
        %t = arith.truncf %s : f64 to f32
        affine.store %t, %out[%b, %g, %k] : memref<2x4x64xf32>
      }
    }
  }
  memref.dealloc %d : memref<2x4x64xf64>
  return
}

// CHECK-LABEL: func.func @other_group
// CHECK: memref.alloc() {{.*}}: memref<2x4x64xf64>
func.func @other_group(%x: memref<2x4x64xf32>, %out: memref<2x4x64xf32>) {
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
        %w = affine.load %d[%b, 3 - %g, %k] : memref<2x4x64xf64>
        %s = arith.mulf %w, %w : f64
        %t = arith.truncf %s : f64 to f32
        affine.store %t, %out[%b, %g, %k] : memref<2x4x64xf32>
      }
    }
  }
  memref.dealloc %d : memref<2x4x64xf64>
  return
}

// CHECK-LABEL: func.func @not_shells
// CHECK: memref.alloc() {{.*}}: memref<2x4x64xf64>
func.func @not_shells(%x: memref<2x4x64xf32>, %scale: memref<2xf64>, %out: memref<2x4x64xf32>) {
  %d = memref.alloc() : memref<2x4x64xf64>
  affine.for %b = 0 to 2 {
    %c = affine.load %scale[%b] : memref<2xf64>
    affine.for %g = 0 to 4 {
      affine.for %k = 0 to 64 {
        %v = affine.load %x[%b, %g, %k] : memref<2x4x64xf32>
        %w = arith.extf %v : f32 to f64
        %m = arith.mulf %w, %c : f64
        affine.store %m, %d[%b, %g, %k] : memref<2x4x64xf64>
      }
    }
  }
  affine.for %b = 0 to 2 {
    affine.for %g = 0 to 4 {
      affine.for %k = 0 to 64 {
        %w = affine.load %d[%b, %g, %k] : memref<2x4x64xf64>
        %s = arith.mulf %w, %w : f64
        %t = arith.truncf %s : f64 to f32
        affine.store %t, %out[%b, %g, %k] : memref<2x4x64xf32>
      }
    }
  }
  memref.dealloc %d : memref<2x4x64xf64>
  return
}
