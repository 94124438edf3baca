// --enable-profitable-loop-fusion=false: classic fusion of adjacent pairs in program order, so
// loops 1 and 2 fuse first (profit 512), then the result with loop 3 (1024), the reverse of
// the greedy order.
// RUN: loopopt %s --target cpu --vector-bits 256 --enable-profitable-loop-fusion=false --remarks 2>&1 | filecheck %s

func.func @chain(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<64xf32>) {
  %t0 = memref.alloc() : memref<64xf32>
  %t1 = memref.alloc() : memref<64xf32>
  %c = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = affine.load %b[%i] : memref<64xf32>
    %z = arith.addf %x, %y : f32
    affine.store %z, %t0[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t0[%i] : memref<64xf32>
    %z = arith.mulf %x, %c : f32
    affine.store %z, %t1[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t1[%i] : memref<64xf32>
    %y = affine.load %t0[%i] : memref<64xf32>
    %z = arith.subf %x, %y : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t0 : memref<64xf32>
  memref.dealloc %t1 : memref<64xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:10:3 and {{.*}}.mlir:16:3 profit = 512 (in @chain)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:10:3 and {{.*}}.mlir:21:3 profit = 1024 (in @chain)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:7:9 replaced by its stored values; buffer removed
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:8:9 replaced by its stored values; buffer removed
// CHECK-NEXT: analysis: numLoopsFused = 2

// CHECK-LABEL: func.func @chain
// CHECK-NOT: memref.alloc
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: affine.load %{{[a-z0-9_]+}}[%[[I]]]
// CHECK-NEXT: affine.load %{{[a-z0-9_]+}}[%[[I]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.subf
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: return
