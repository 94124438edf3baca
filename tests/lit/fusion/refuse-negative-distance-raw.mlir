// The consumer reads t[i + 1], which the producer writes one iteration LATER: fusing would read
// it before it is written (RAW, distance -1). Refused on both targets; both loops stay.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s

func.func @next(%a: memref<66xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<66xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<66xf32>
    affine.store %x, %t[%i] : memref<66xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i + 1] : memref<66xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:8:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:8:3 and {{.*}}.mlir:12:3, level = 0, profit = 504 (in @next) [RAW on memref.alloc ({{.*}}:7:8), distances { [d = -1] }]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @next
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<66xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: affine.load
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[T]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: affine.load %[[T]][%[[J]] + 1]
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: return
