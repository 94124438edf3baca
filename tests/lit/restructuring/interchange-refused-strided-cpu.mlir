// Aligning the consumer with the producer would turn the walks over %b, %c and %o into column walks:
// on cpu the locality guard refuses the interchange, the consumer recomputes %t's elements and its one
// column walk (over %a) is tiled a cache line a side (transpose blocking); trn1 interchanges, fuses both.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=CPU
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefix=TRN1

func.func @mostly_rows(%a: memref<32x32xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>, %o: memref<32x32xf32>) {
  %t = memref.alloc() : memref<32x32xf32>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<32x32xf32>
      affine.store %x, %t[%i, %j] : memref<32x32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%j, %i] : memref<32x32xf32>
      %y = affine.load %b[%i, %j] : memref<32x32xf32>
      %z = affine.load %c[%i, %j] : memref<32x32xf32>
      %s = arith.addf %x, %y : f32
      %r = arith.addf %s, %z : f32
      affine.store %r, %o[%i, %j] : memref<32x32xf32>
    }
  }
  return
}

// CPU-NOT: [LOOP INTERCHANGE]
// CPU: {{.*}}.mlir:15:3: passed: [RECOMPUTE] producer's value recomputed in the consumer; intermediate removed (in @mostly_rows)
// CPU-NEXT: {{.*}}.mlir:15:3: passed: [BLOCK TRANSPOSE] 16 x 16 tiles of the loop at {{.*}}.mlir:15:3 and the innermost loop
// CPU-NEXT: analysis: numLoopsFused = 2
// CPU-LABEL: func.func @mostly_rows
// CPU-SAME: (%[[A:[a-z0-9_]+]]: memref<32x32xf32>, %[[B:[a-z0-9_]+]]: memref<32x32xf32>, %[[C:[a-z0-9_]+]]: memref<32x32xf32>, %[[O:[a-z0-9_]+]]: memref<32x32xf32>)
// CPU-NOT: memref.alloc
// CPU-NEXT: affine.for %[[II:[a-z0-9_]+]] = 0 to 32 step 16 {
// CPU-NEXT: affine.for %[[JJ:[a-z0-9_]+]] = 0 to 32 step 16 {
// CPU-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CPU-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 16 {
// CPU-NEXT: %[[P0:[a-z0-9_]+]] = affine.apply #{{.*}}(%[[J]], %[[I]], %[[JJ]], %[[II]])
// CPU-NEXT: %[[P1:[a-z0-9_]+]] = affine.apply #{{.*}}(%[[J]], %[[I]], %[[JJ]], %[[II]])
// CPU-NEXT: affine.load %[[A]][%[[P0]], %[[P1]]]
// CPU-NEXT: affine.load %[[B]][%[[I]] + %[[II]], %[[J]] + %[[JJ]]]
// CPU-NEXT: affine.load %[[C]][%[[I]] + %[[II]], %[[J]] + %[[JJ]]]
// CPU: affine.store %{{[a-z0-9_]+}}, %[[O]][%[[I]] + %[[II]], %[[J]] + %[[JJ]]]
// CPU-NEXT: }
// CPU-NEXT: }
// CPU-NEXT: }
// CPU-NEXT: }
// CPU-NEXT: return

// TRN1: :15:3: passed: [LOOP INTERCHANGE] 1:0 (in @mostly_rows)
// TRN1-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:15:3 profit = 8192 (in @mostly_rows)
// TRN1-NEXT: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:10:5 and {{.*}}.mlir:15:3 profit = 8192 (in @mostly_rows)
// TRN1-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:8:8 replaced by its stored values; buffer removed (in @mostly_rows)
// TRN1-LABEL: func.func @mostly_rows
// TRN1-SAME: (%[[A:[a-z0-9_]+]]: memref<32x32xf32>, %[[B:[a-z0-9_]+]]: memref<32x32xf32>, %[[C:[a-z0-9_]+]]: memref<32x32xf32>, %[[O:[a-z0-9_]+]]: memref<32x32xf32>)
// TRN1-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 32 {
// TRN1-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 32 {
// TRN1-NEXT: affine.load %[[A]][%[[I]], %[[J]]]
// TRN1-NEXT: affine.load %[[B]][%[[J]], %[[I]]]
// TRN1-NEXT: affine.load %[[C]][%[[J]], %[[I]]]
// TRN1-NEXT: arith.addf
// TRN1-NEXT: arith.addf
// TRN1-NEXT: affine.store %{{[a-z0-9_]+}}, %[[O]][%[[J]], %[[I]]]
// TRN1-NEXT: }
// TRN1-NEXT: }
// TRN1-NEXT: return
