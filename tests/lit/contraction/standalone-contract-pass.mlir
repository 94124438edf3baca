// --passes picks the pipeline: fusion alone leaves the intermediate buffer in the fused loop;
// fuse,contract also removes it.
// RUN: loopopt %s --passes fuse --remarks 2>&1 | filecheck %s --check-prefix=FUSE
// RUN: loopopt %s --passes fuse,contract --remarks 2>&1 | filecheck %s --check-prefix=BOTH

func.func @pair(%a: memref<128x4xf32>, %out: memref<128x4xf32>) {
  %t = memref.alloc() : memref<128x4xf32>
  affine.for %p = 0 to 128 {
    affine.for %k = 0 to 4 {
      %x = affine.load %a[%p, %k] : memref<128x4xf32>
      %y = arith.negf %x : f32
      affine.store %y, %t[%p, %k] : memref<128x4xf32>
    }
  }
  affine.for %p = 0 to 128 {
    affine.for %k = 0 to 4 {
      %x = affine.load %t[%p, %k] : memref<128x4xf32>
      affine.store %x, %out[%p, %k] : memref<128x4xf32>
    }
  }
  return
}

// FUSE: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:15:3 profit = 4096 (in @pair)
// FUSE-NEXT: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:9:5 and {{.*}}.mlir:16:5 profit = 4096 (in @pair)
// FUSE-NOT: [CONTRACTION]
// FUSE-LABEL: func.func @pair
// FUSE-NEXT: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<128x4xf32>
// FUSE-NEXT: affine.for %[[P:[a-z0-9_]+]] = 0 to 128 {
// FUSE-NEXT: affine.for %[[K:[a-z0-9_]+]] = 0 to 4 {
// FUSE-NEXT: affine.load
// FUSE-NEXT: arith.negf
// FUSE-NEXT: affine.store %{{[a-z0-9_]+}}, %[[T]][%[[P]], %[[K]]]
// FUSE-NEXT: affine.load %[[T]][%[[P]], %[[K]]]
// FUSE-NEXT: affine.store

// BOTH: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:7:8 replaced by its stored values; buffer removed (in @pair)
// BOTH-LABEL: func.func @pair
// BOTH-SAME: (%[[A:[a-z0-9_]+]]: memref<128x4xf32>, %[[OUT:[a-z0-9_]+]]: memref<128x4xf32>)
// BOTH-NEXT: affine.for %[[P:[a-z0-9_]+]] = 0 to 128 {
// BOTH-NEXT: affine.for %[[K:[a-z0-9_]+]] = 0 to 4 {
// BOTH-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[P]], %[[K]]]
// BOTH-NEXT: %[[N:[a-z0-9_]+]] = arith.negf %[[X]]
// BOTH-NEXT: affine.store %[[N]], %[[OUT]][%[[P]], %[[K]]]
// BOTH-NEXT: }
// BOTH-NEXT: }
// BOTH-NEXT: return
