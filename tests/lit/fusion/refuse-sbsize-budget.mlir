// With a 64-byte SBUF budget the fused nest's working set does not fit: refused at level 0,
// with the byte count in the detail.
// RUN: loopopt %s --target trn1 --loop-opt-sb-size 64 --remarks 2>&1 | filecheck %s

func.func @nest(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %t = memref.alloc() : memref<16x32xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      %y = math.exp %x : f32
      affine.store %y, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%i, %j] : memref<16x32xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %out[%i, %j] : memref<16x32xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] fused working set exceeds SBSize: {{.*}}.mlir:7:3 and {{.*}}.mlir:14:3, level = 0, profit = 4096 (in @nest) [384 bytes per partition > SBSize 64]
// CHECK-NOT: [LOOP FUSION]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @nest
// CHECK: memref.alloc() : memref<16x32xf32>
// CHECK-COUNT-4: affine.for
