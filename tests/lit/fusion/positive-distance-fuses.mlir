// The consumer reads t[i - 1], written one iteration earlier: distance +1 is legal, the pair
// fuses. The buffer stays (the value crosses iterations, so it cannot become a scalar).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @prev(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 1 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 1 to 64 {
    %x = affine.load %t[%i - 1] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:11:3 profit = 496 (in @prev)
// CHECK-NEXT: missed: [CONTRACTION] kept memref<64xf32> at {{.*}}.mlir:6:8: not forwarded (the load at {{.*}}.mlir:12:10 does not read exactly what the latest store wrote); not shrunk (iterations of the loop at {{.*}}.mlir:7:3 share elements) (in @prev)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @prev
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 1 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: affine.store %[[X]], %[[T]][%[[I]]]
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = affine.load %[[T]][%[[I]] - 1]
// CHECK-NEXT: affine.store %[[P]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
