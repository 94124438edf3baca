// The fused pair's intermediate is also passed to a call after the loops: it escapes, so it is
// kept (a Missed remark names the call); the fused loop stores it, the reload takes the value.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @consume(%m: memref<64xf32>)

func.func @escapes(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  func.call @consume(%t) : (memref<64xf32>) -> ()
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:13:3 profit = 512 (in @escapes)
// CHECK-NEXT: {{.*}}.mlir:8:8: missed: [CONTRACTION] kept memref<64xf32> at {{.*}}.mlir:8:8: used by func.call at {{.*}}.mlir:18:3 (in @escapes)
// CHECK-NEXT: {{.*}}.mlir:14:10: passed: [SCALAR REPLACEMENT] load replaced by the value stored to the same address earlier in the block (in @escapes)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @escapes
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load
// CHECK-NEXT: affine.store %[[X]], %[[T]][%[[I]]]
// CHECK-NEXT: arith.addf %[[X]], %[[X]]
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: call @consume(%[[T]])
