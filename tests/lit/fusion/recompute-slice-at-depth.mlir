// Producer-consumer fusion inside fused loops where the inner trip counts differ (3 x 8 against
// 24): each consumer iteration recomputes the one producer iteration it reads, and the remark
// names the depth and the slice (MLIR's loop-fusion-4.mlir @fuse_higher_dim_nest_into_lower_dim_nest).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target trn1 --passes fusion --remarks 2>&1 | filecheck %s --check-prefix=TRN1

func.func @hd(%A: memref<2x3x4x8xf32>, %C: memref<2x4x24xf32>) {
  %B = memref.alloc() : memref<2x4x3x8xf32>
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 4 {
      affine.for %c = 0 to 3 {
        affine.for %d = 0 to 8 {
          %x = affine.load %A[%a, %c, %b, %d] : memref<2x3x4x8xf32>
          affine.store %x, %B[%a, %b, %c, %d] : memref<2x4x3x8xf32>
        }
      }
    }
  }
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 4 {
      affine.for %e = 0 to 24 {
        %y = affine.load %B[%a, %b, %e floordiv 8, %e mod 8] : memref<2x4x3x8xf32>
        affine.store %y, %C[%a, %b, %e] : memref<2x4x24xf32>
      }
    }
  }
  memref.dealloc %B : memref<2x4x3x8xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:19:3
// CHECK: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:10:5 and {{.*}}.mlir:20:5
// CHECK: {{.*}}.mlir:21:7: passed: [RECOMPUTE] producer slice recomputed in the consumer at depth 2 (one producer iteration per read: (%iv@11:7, %iv@12:9) = (%iv@21:7 floordiv 8, %iv@21:7 mod 8)); intermediate removed (in @hd)
// CHECK-NEXT: analysis: numLoopsFused = 4
// CHECK-LABEL: func.func @hd
// CHECK-NOT: memref.alloc
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 4 {
// CHECK-NEXT: affine.for %[[E:.*]] = 0 to 24 {
// CHECK: affine.load %arg0[{{.*}}] : memref<2x3x4x8xf32>
// CHECK-NEXT: affine.store
// CHECK-NOT: affine.for

// trn1 keeps the seed's rescues: the inner loops stay apart.
// TRN1: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:11:7 and {{.*}}.mlir:21:7, level = 2
// TRN1-NOT: [RECOMPUTE]
