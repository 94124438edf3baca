// --loop-opt-distance-threshold bounds how far apart (in loops) a candidate pair may be: with 1
// no pair is a candidate and nothing fuses; with the default 8 the chain fuses.
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-distance-threshold 1 --remarks 2>&1 | filecheck %s --check-prefix=ONE
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=DEFAULT

func.func @chain(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// ONE-NOT: [LOOP FUSION]
// ONE-NOT: [STOP FUSION]
// ONE: analysis: numLoopsFused = 0
// ONE-LABEL: func.func @chain
// ONE: memref.alloc()
// ONE-COUNT-2: affine.for

// DEFAULT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:12:3 profit = 512 (in @chain)
// DEFAULT: analysis: numLoopsFused = 1
// DEFAULT-LABEL: func.func @chain
// DEFAULT-NEXT: affine.for
// DEFAULT-NEXT: affine.load
// DEFAULT-NEXT: affine.store
// DEFAULT-NEXT: }
// DEFAULT-NEXT: return
