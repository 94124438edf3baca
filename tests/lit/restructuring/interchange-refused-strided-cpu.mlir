// Aligning the consumer with the producer would fix the column walk over %t but turn the walks
// over %b, %c and %o into column walks: on cpu the locality guard refuses the interchange and
// the consumer recomputes %t's elements instead; trn1 interchanges and fuses both levels.
// RUN: loopopt %s --target cpu --remarks 2>&1 | filecheck %s --check-prefix=CPU
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
// CPU-NEXT: analysis: numLoopsFused = 2
// CPU-LABEL: func.func @mostly_rows
// CPU-SAME: (%[[A:[a-z0-9_]+]]: memref<32x32xf32>, %[[B:[a-z0-9_]+]]: memref<32x32xf32>, %[[C:[a-z0-9_]+]]: memref<32x32xf32>, %[[O:[a-z0-9_]+]]: memref<32x32xf32>)
// CPU-NOT: memref.alloc
// CPU-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 32 {
// CPU-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 32 {
// CPU-NEXT: %[[P0:[a-z0-9_]+]] = affine.apply #{{.*}}(%[[J]], %[[I]])
// CPU-NEXT: %[[P1:[a-z0-9_]+]] = affine.apply #{{.*}}(%[[J]], %[[I]])
// CPU-NEXT: affine.load %[[A]][%[[P0]], %[[P1]]]
// CPU-NEXT: affine.load %[[B]][%[[I]], %[[J]]]
// CPU-NEXT: affine.load %[[C]][%[[I]], %[[J]]]
// CPU: affine.store %{{[a-z0-9_]+}}, %[[O]][%[[I]], %[[J]]]
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
