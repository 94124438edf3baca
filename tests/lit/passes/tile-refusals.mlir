// --passes tile=32 refuses a band with no loop longer than 32, and tiles but keeps the tile
// loops inside the point loops where moving them would reverse a dependence.
// RUN: loopopt %s --passes tile=32 --remarks 2>&1 | filecheck %s

func.func @short(%a: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.store %z, %a[%i] : memref<16xf32>
  }
  return
}

func.func @skewed(%a: memref<65x65xf32>) {
  affine.for %i = 1 to 65 {
    affine.for %j = 0 to 64 {
      %x = affine.load %a[%i - 1, %j + 1] : memref<65x65xf32>
      affine.store %x, %a[%i, %j] : memref<65x65xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:7:3: missed: [STOP TILING] no loop has more iterations than the tile size (in @short)
// CHECK-NEXT: {{.*}}.mlir:14:3: passed: [LOOP TILING] by 32 (in @skewed)
// CHECK-NEXT: {{.*}}.mlir:14:3: missed: [STOP TILING] tile loops stay inside point loops (in @skewed)

// CHECK-LABEL: func.func @short
// CHECK-NEXT: arith.constant
// CHECK-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// CHECK-LABEL: func.func @skewed
// CHECK-NEXT: affine.for %[[TI:[a-z0-9_]+]] = 1 to 65 step 32 {
// CHECK-NEXT: affine.for %[[PI:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: affine.for %[[TJ:[a-z0-9_]+]] = 0 to 64 step 32 {
// CHECK-NEXT: affine.for %[[PJ:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: affine.load %{{[a-z0-9_]+}}[%[[PI]] + %[[TI]] - 1, %[[PJ]] + %[[TJ]] + 1]
