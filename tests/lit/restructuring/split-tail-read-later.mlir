// The producer writes 384 rows of %t, the consumer reads rows 0..255 and a later loop rows
// 256..383: the producer's tail is live, so dead-iteration elimination cannot shrink it. On cpu
// the producer is split at row 256 ([LOOP SPLIT]); the tail may run after the consumer (it
// touches other rows of %t), so it moves there, the head fuses with the consumer and the tail
// with the later loop. Scalar replacement forwards %t in both bodies; the stores to %t are then
// dead and go, with the buffer. On trn1 the seed's behaviour stays: no split.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefix=TRN1

func.func @split_tail(%a: memref<384x64xf32>, %b: memref<256x64xf32>, %out: memref<256x64xf32>, %out2: memref<128x64xf32>) {
  %c2 = arith.constant 2.0 : f32
  %c1 = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<384x64xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 64 {
      %v = affine.load %a[%i, %j] : memref<384x64xf32>
      %m = arith.mulf %v, %c2 : f32
      %s = arith.addf %m, %c1 : f32
      affine.store %s, %t[%i, %j] : memref<384x64xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 64 {
      %v = affine.load %t[%i, %j] : memref<384x64xf32>
      %w = affine.load %b[%i, %j] : memref<256x64xf32>
      %p = arith.mulf %v, %w : f32
      affine.store %p, %out[%i, %j] : memref<256x64xf32>
    }
  }
  affine.for %i = 256 to 384 {
    affine.for %j = 0 to 64 {
      %v = affine.load %t[%i, %j] : memref<384x64xf32>
      affine.store %v, %out2[%i - 256, %j] : memref<128x64xf32>
    }
  }
  memref.dealloc %t : memref<384x64xf32>
  return
}

// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: {{.*}}.mlir:14:3: passed: [LOOP SPLIT] split the loop at iteration 256: the head fuses, the tail keeps the rest (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:14:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:14:3 and {{.*}}.mlir:22:3 profit = 196608 (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:14:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:14:3 and {{.*}}.mlir:30:3 profit = 65536 (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:15:5: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:15:5 and {{.*}}.mlir:23:5 profit = 196608 (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:15:5: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:15:5 and {{.*}}.mlir:31:5 profit = 196608 (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:32:12: passed: [SCALAR REPLACEMENT] load replaced by the value stored to the same address earlier in the block (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:24:12: passed: [SCALAR REPLACEMENT] load replaced by the value stored to the same address earlier in the block (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:19:7: passed: [DEAD STORE] store removed: nothing that runs after it reads what it writes (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:19:7: passed: [DEAD STORE] store removed: nothing that runs after it reads what it writes (in @split_tail)
// CHECK-NEXT: {{.*}}.mlir:13:8: passed: [DEAD STORE] buffer removed: nothing reads it (in @split_tail)
// CHECK-NEXT: analysis: numLoopsFused = 4

// Two loops: rows 0..255 compute out, rows 256..383 compute out2; %t is gone.
// CHECK-LABEL: func.func @split_tail
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<384x64xf32>, %[[B:[a-z0-9_]+]]: memref<256x64xf32>, %[[OUT:[a-z0-9_]+]]: memref<256x64xf32>, %[[OUT2:[a-z0-9_]+]]: memref<128x64xf32>)
// CHECK-NOT: memref.alloc
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 256 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = affine.load %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.mulf %[[V]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[M]]
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = affine.load %[[B]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = arith.mulf %[[S]], %[[W]]
// CHECK-NEXT: affine.store %[[P]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I2:[a-z0-9_]+]] = 256 to 384 {
// CHECK-NEXT: affine.for %[[J2:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[V2:[a-z0-9_]+]] = affine.load %[[A]][%[[I2]], %[[J2]]]
// CHECK-NEXT: %[[M2:[a-z0-9_]+]] = arith.mulf %[[V2]]
// CHECK-NEXT: %[[S2:[a-z0-9_]+]] = arith.addf %[[M2]]
// CHECK-NEXT: affine.store %[[S2]], %[[OUT2]][%[[I2]] - 256, %[[J2]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return

// TRN1-NOT: [LOOP SPLIT]
// TRN1-NOT: [DEAD STORE]
// TRN1: analysis: numLoopsFused
