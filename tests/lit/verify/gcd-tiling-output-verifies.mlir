// REQUIRES: mlir-opt
// The GCD-tiled, interchanged, fused and shrunk 384/256 output is valid MLIR for stock
// mlir-opt 22; canonicalized, its buffer index (p + t - p) floordiv 128 folds to t floordiv 128.
// RUN: loopopt %s --target trn1 | mlir-opt | filecheck %s
// RUN: loopopt %s --target trn1 | mlir-opt --canonicalize | filecheck %s --check-prefix=CANON

func.func @partition_extents(%a: memref<384x4xf32>, %b: memref<256x4xf32>, %x: memref<384x4xf32>, %y: memref<256x4xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<384x4xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j] : memref<384x4xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %t[%i, %j] : memref<384x4xf32>
      %w1 = arith.addf %w, %one : f32
      affine.store %w1, %x[%i, %j] : memref<384x4xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      %u = affine.load %b[%i, %j] : memref<256x4xf32>
      %s = arith.addf %w, %u : f32
      affine.store %s, %y[%i, %j] : memref<256x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>
  return
}

// CHECK-LABEL: func.func @partition_extents
// CHECK: memref.alloc() : memref<3x4xf32>
// CHECK-NEXT: affine.for %[[P:[a-z0-9_]+]] = 0 to 128 {
// CHECK-NEXT: affine.for %[[T1:[a-z0-9_]+]] = 0 to 384 step 128 {
// CHECK: affine.for %[[T2:[a-z0-9_]+]] = 0 to 256 step 128 {

// CANON: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[T1:[a-z0-9_]+]] floordiv 128, %{{[a-z0-9_]+}}] : memref<3x4xf32>
// CANON: affine.load %{{[a-z0-9_]+}}[%[[T2:[a-z0-9_]+]] floordiv 128, %{{[a-z0-9_]+}}] : memref<3x4xf32>
