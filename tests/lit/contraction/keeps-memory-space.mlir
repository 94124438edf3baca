// Contraction keeps the buffer's memory space when it shrinks it (3 here: the space is part of the
// type every user of the buffer sees; dropping it changed the program's types).
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s
func.func @f(%a: memref<16x64xf32>, %out: memref<16x64xf32>) {
  %t = memref.alloc() : memref<16x64xf32, 3>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 {
      %x = affine.load %a[%i, %j] : memref<16x64xf32>
      affine.store %x, %t[%i, %j] : memref<16x64xf32, 3>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 {
      %x = affine.load %t[%i, 63 - %j] : memref<16x64xf32, 3>
      %y = arith.addf %x, %x : f32
      affine.store %y, %out[%i, %j] : memref<16x64xf32>
    }
  }
  memref.dealloc %t : memref<16x64xf32, 3>
  return
}

// CHECK: passed: [CONTRACTION] buffer at {{.*}}keeps-memory-space.mlir:5:8 shrunk from 16x64 to 1x64
// CHECK: %[[T:.*]] = memref.alloc() : memref<1x64xf32, 3>
// CHECK: affine.store %{{.*}}, %[[T]][0, %{{.*}}] : memref<1x64xf32, 3>
// CHECK: affine.load %[[T]][0, -%{{.*}} + 63] : memref<1x64xf32, 3>
// CHECK: memref.dealloc %[[T]] : memref<1x64xf32, 3>
