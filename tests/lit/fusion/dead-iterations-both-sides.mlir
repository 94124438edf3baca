// A longer producer whose iterations before and after its consumer's range write only what
// nothing reads afterwards: it shrinks to the run the consumer covers (16 to 32), and the two
// loops fuse with equal bounds (MLIR's loop-fusion-4.mlir @non_int_memory_space).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion --remarks 2>&1 | filecheck %s

func.func @win(%x: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %t[%i] : memref<64xf32>
  }
  affine.for %i = 16 to 32 {
    %v = affine.load %t[%i] : memref<64xf32>
    affine.store %v, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}

// CHECK: {{.*}}.mlir:8:3: passed: [DEAD ITERATIONS] shrink loop to the iterations whose writes are read (in @win)
// CHECK-NEXT: {{.*}}.mlir:8:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:13:3 profit = 128 (in @win)
// CHECK-LABEL: func.func @win
// CHECK: affine.for %[[I:.*]] = 16 to 32 {
// CHECK-NEXT: affine.load %arg0[%[[I]]]
// CHECK-NOT: affine.for
